/* viewer_load.c — loading the viewer's scene file on a worker thread, so that the window keeps
 * answering (it can be closed, it shows "loading NAME ..." with the stage and how far it is) while
 * a big OBJ file is read and its BVH built; the progress also goes to the terminal as a bar when
 * stderr is one. The worker only calls sr_scene_load (no SDL); the viewer takes the result on
 * its own thread (viewer_load_poll). */
#include "viewer_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The loader's progress callback (sr_progress_fn), on the worker thread. */
static bool on_progress(void *user, const char *stage, double fraction)
{
    viewer_load *load = user;
    pthread_mutex_lock(&load->lock);
    snprintf(load->stage, sizeof load->stage, "%s", stage);
    load->fraction = fraction;
    bool cancel = load->cancel;
    int percent = (int)(fraction * 100.0 + 0.5);
    bool print = load->terminal_progress && (percent != load->bar_shown || fraction == 0.0);
    if (print)
        load->bar_shown = percent;
    pthread_mutex_unlock(&load->lock);
    if (print) {
        // One line redrawn in place: "\r" and the bar, padded so that a shorter stage erases a longer one.
        char bar[31];
        int filled = percent * 30 / 100;
        for (int i = 0; i < 30; i++)
            bar[i] = i < filled ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r%-50.50s [%s] %3d%%", stage, bar, percent);
        fflush(stderr);
    }
    return !cancel;
}

static void on_warning(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "softrast view: warning: %s\n", message);
}

static void *load_main(void *user)
{
    viewer_load *load = user;
    sr_scene *scene = NULL;
    sr_error error = {0};
    sr_status status = sr_scene_load(&(sr_scene_load_desc){.path = load->path,
                                                           .warning = on_warning,
                                                           .progress = on_progress,
                                                           .user = load,
                                                           .model_view = load->model_view},
                                     &scene, &error);
    pthread_mutex_lock(&load->lock);
    if (load->terminal_progress && load->bar_shown >= 0)
        fputc('\n', stderr);
    load->scene = status == SR_OK ? scene : NULL;
    load->error = error;
    load->error.status = status;
    load->done = true;
    pthread_mutex_unlock(&load->lock);
    return NULL;
}

bool viewer_file_mtime(const char *path, struct timespec *mtime)
{
    struct stat info;
    if (stat(path, &info) != 0)
        return false;
    *mtime = info.st_mtim;
    return true;
}

bool viewer_load_start(sr_viewer *viewer, bool reload)
{
    viewer_load *load = &viewer->load;
    if (load->running || viewer->scene_path[0] == '\0')
        return false;
    snprintf(load->path, sizeof load->path, "%s", viewer->scene_path);
    snprintf(load->stage, sizeof load->stage, "starting");
    load->fraction = 0.0;
    load->done = false;
    load->cancel = false;
    load->reload = reload;
    load->scene = NULL;
    load->bar_shown = -1;
    load->terminal_progress = viewer->desc.terminal_progress && isatty(STDERR_FILENO);
    load->error = (sr_error){0};
    // A mesh opens framed for the window as it is now (a reload frames it for the window then).
    load->model_view =
        (sr_model_view_desc){.up = viewer->desc.up, .aspect = (float)viewer->fb->width / (float)viewer->fb->height};
    viewer->have_mtime = viewer_file_mtime(viewer->scene_path, &viewer->scene_mtime);
    if (pthread_create(&load->thread, NULL, load_main, load) != 0) {
        viewer_say(viewer, true, "%s: cannot start the loading thread", viewer->scene_path);
        return false;
    }
    load->running = true;
    viewer->dirty = true;
    return true;
}

void viewer_load_stop(sr_viewer *viewer)
{
    viewer_load *load = &viewer->load;
    if (!load->running)
        return;
    pthread_mutex_lock(&load->lock);
    load->cancel = true;
    pthread_mutex_unlock(&load->lock);
    pthread_join(load->thread, NULL);
    load->running = false;
    sr_scene_destroy(load->scene);
    load->scene = NULL;
}

bool viewer_load_poll(sr_viewer *viewer)
{
    viewer_load *load = &viewer->load;
    if (!load->running)
        return false;
    pthread_mutex_lock(&load->lock);
    bool done = load->done;
    pthread_mutex_unlock(&load->lock);
    if (!done)
        return true;
    pthread_join(load->thread, NULL);
    load->running = false;
    viewer->dirty = true;
    if (!load->scene) {
        // The old scene (if any) stays on screen; the error is shown over it.
        snprintf(viewer->load_error, sizeof viewer->load_error, "%s",
                 load->error.message[0] ? load->error.message : sr_status_name(load->error.status));
        viewer_say(viewer, true, "cannot load %s", viewer->load_error);
        return false;
    }
    bool first = viewer->scene == NULL;
    if (viewer->owns_scene)
        sr_scene_destroy(viewer->scene);
    viewer->scene = load->scene;
    viewer->owns_scene = true;
    load->scene = NULL;
    viewer->load_error[0] = '\0';
    viewer->has_pick = false; // its node handle belonged to the old scene
    snprintf(viewer->scene_name, sizeof viewer->scene_name, "%s", sr_scene_name(viewer->scene));
    sr_camera camera = sr_scene_camera(viewer->scene);
    viewer->home = sr_camera_resolve(&camera);
    if (first) {
        viewer_reset_camera(viewer);
    } else {
        viewer_say(viewer, false, "reloaded %s", viewer->scene_path);
        if (viewer->frozen)
            viewer->cull_camera = viewer_view_camera(viewer);
    }
    return false;
}
