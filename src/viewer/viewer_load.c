/* viewer_load.c — loading the viewer's scene file on a worker thread, so that the window keeps
 * answering (it can be closed, it shows "loading NAME ..." with the stage and how far it is) while
 * a big OBJ file is read and its BVH built; the progress also goes to the terminal as a bar when
 * stderr is one. A file that starts with a recording's magic (softrast/record.h), whatever its
 * name, is opened as a recording instead and brought to its first frame (or the frame a reload
 * keeps) on the worker too. The worker only calls sr_scene_load or sr_recording_open and seek (no
 * SDL); the viewer takes the result on its own thread (viewer_load_poll). */
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

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* A recording: opened (its index read, or its records scanned when the writer did not close it)
 * and brought to the frame to show, so that the viewer's thread has only to draw it. */
static sr_status open_recording(viewer_load *load, sr_recording **out, sr_error *error)
{
    sr_recording *recording = NULL;
    sr_status status = sr_recording_open(
        load->path, &(sr_recording_desc){.cache_bytes = load->cache_bytes, .progress = on_progress, .user = load},
        &recording, error);
    if (status != SR_OK)
        return status;
    const sr_recording_info *info = sr_recording_get_info(recording);
    if (info->frame_count > 0) {
        uint64_t frame = load->follow_end || load->recording_frame >= info->frame_count ? info->frame_count - 1
                                                                                          : load->recording_frame;
        on_progress(load, "reading the frame", 1.0);
        status = sr_recording_seek(recording, frame, NULL, error);
    }
    if (status != SR_OK) {
        sr_recording_destroy(recording);
        return status;
    }
    *out = recording;
    return SR_OK;
}

/* Wakes the viewer's loop (SDL_PushEvent may be called from any thread). */
static void wake(const viewer_load *load)
{
    if (load->wake_event)
        SDL_PushEvent(&(SDL_Event){.user = {.type = load->wake_event, .timestamp = SDL_GetTicks()}});
}

static void *load_main(void *user)
{
    viewer_load *load = user;
    sr_scene *scene = NULL;
    sr_recording *recording = NULL;
    sr_error error = {0};
    double start = now_ms();
    if (sr_recording_probe(load->path)) {
        sr_status status = open_recording(load, &recording, &error);
        pthread_mutex_lock(&load->lock);
        if (load->terminal_progress && load->bar_shown >= 0)
            fputc('\n', stderr);
        load->recording = status == SR_OK ? recording : NULL;
        load->error = error;
        load->error.status = status;
        load->open_ms = now_ms() - start;
        load->done = true;
        pthread_mutex_unlock(&load->lock);
        wake(load);
        return NULL;
    }
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
    load->open_ms = now_ms() - start;
    load->done = true;
    pthread_mutex_unlock(&load->lock);
    wake(load);
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
    load->recording = NULL;
    // A reload of a recording keeps the frame shown; at the last frame, it follows the end as the
    // file grows (a program still recording).
    const viewer_playback *playback = viewer->playback;
    load->recording_frame = playback && playback->has_frame ? playback->frame.index : 0;
    load->follow_end = playback && playback->has_frame && playback->info &&
                       playback->frame.index + 1 >= playback->info->frame_count;
    load->bar_shown = -1;
    load->terminal_progress = viewer->desc.terminal_progress && isatty(STDERR_FILENO);
    load->error = (sr_error){0};
    // A mesh opens framed for the window as it is now (a reload frames it for the window then;
    // the first load starts before the framebuffer exists: the window's size asked for).
    float aspect = viewer->fb ? (float)viewer->fb->width / (float)viewer->fb->height
                              : (float)viewer->desc.width / (float)viewer->desc.height;
    load->model_view = (sr_model_view_desc){.up = viewer->desc.up, .aspect = aspect};
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
    sr_recording_destroy(load->recording);
    load->recording = NULL;
}

/* A recording opened: shown from the frame the worker went to (a reload keeps the play state,
 * the filters and the selection). */
static void take_recording(sr_viewer *viewer)
{
    viewer_load *load = &viewer->load;
    bool first = viewer->playback == NULL;
    if (first) {
        viewer->playback = sr_calloc(1, sizeof *viewer->playback);
        if (!viewer->playback) {
            sr_recording_destroy(load->recording);
            load->recording = NULL;
            snprintf(viewer->load_error, sizeof viewer->load_error, "%.400s: out of memory", viewer->scene_path);
            viewer_say(viewer, true, "cannot load %s", viewer->load_error);
            return;
        }
        snprintf(viewer->playback->path, sizeof viewer->playback->path, "%s", viewer->scene_path);
    }
    if (viewer->owns_scene) {
        // A scene file became a recording (the file was replaced): the scene goes.
        sr_scene_destroy(viewer->scene);
        viewer->scene = NULL;
        viewer->owns_scene = false;
    }
    sr_recording *recording = load->recording;
    load->recording = NULL;
    viewer->load_error[0] = '\0';
    const sr_recording_info *info = sr_recording_get_info(recording);
    uint64_t frame = info->frame_count == 0                          ? 0
                     : load->follow_end || load->recording_frame >= info->frame_count ? info->frame_count - 1
                                                                                       : load->recording_frame;
    viewer_playback_take(viewer, recording, frame, false);
    if (!first && !load->quiet)
        viewer_say(viewer, false, "reloaded %s: %llu frames", viewer->scene_path,
                   (unsigned long long)info->frame_count);
    load->quiet = false;
    viewer->grew_said = false;
    if (viewer->frozen)
        viewer->cull_camera = viewer_view_camera(viewer);
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
    if (load->recording) {
        take_recording(viewer);
        return false;
    }
    load->quiet = false;
    if (!load->scene) {
        // The old scene (if any) stays on screen; the error is shown over it.
        snprintf(viewer->load_error, sizeof viewer->load_error, "%s",
                 load->error.message[0] ? load->error.message : sr_status_name(load->error.status));
        viewer_say(viewer, true, "cannot load %s", viewer->load_error);
        return false;
    }
    bool first = viewer->scene == NULL;
    if (viewer->playback) {
        // A recording replaced by a scene file.
        viewer_playback_free(viewer);
        first = true;
    }
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
