/* viewer_pass.c — the frame's collision pass (sr_scene_collide, for the contacts, closest and
 * pairs overlays) on a thread of its own, while the calling thread draws the scene: the pass
 * needs none of the picture and the picture none of the pass, only the overlays drawn after both
 * need the two. On two cores a frame of a thousand shapes then costs the calling thread the
 * drawing alone, not the drawing and then the pass.
 *
 * Why the two may run at once (the contract of softrast/scene.h and scene_collide.h): the
 * scene is brought up to date (sr_scene_update) before the pass
 * starts, so sr_scene_render's own update finds nothing to do and the drawing only reads the
 * scene (nodes, meshes, materials, textures, the instance tree) and writes the viewer's frame,
 * renderer and framebuffer; the pass reads the nodes and writes only what belongs to the
 * collision pass (the shapes' tree, the kept pairs and answers) and viewer->collision. Nothing
 * else touches the scene until viewer_pass_finish returns. The thread is started at the first
 * pass and sleeps between frames; where it cannot be started, the pass runs on the calling
 * thread (the same answers). Knows nothing of what the overlays draw. */
#include "viewer_internal.h"

static void *pass_main(void *argument)
{
    viewer_pass *pass = argument;
    pthread_mutex_lock(&pass->lock);
    for (;;) {
        while (!pass->requested && !pass->quit)
            pthread_cond_wait(&pass->wake, &pass->lock);
        if (pass->quit)
            break;
        pass->requested = false;
        sr_scene *scene = pass->scene;
        sr_collision *collision = pass->collision;
        pthread_mutex_unlock(&pass->lock);
        sr_error err = {0};
        sr_status status = sr_scene_collide(scene, NULL, collision, &err);
        pthread_mutex_lock(&pass->lock);
        pass->status = status;
        pass->err = err;
        pass->running = false;
        pthread_cond_broadcast(&pass->done);
    }
    pthread_mutex_unlock(&pass->lock);
    return NULL;
}

/* Starts the thread (and its lock and conditions); false when the system refuses. */
static bool start_thread(viewer_pass *pass)
{
    if (pass->thread_started)
        return true;
    if (pass->thread_failed)
        return false;
    pass->thread_failed = true; // unless everything below succeeds
    if (pthread_mutex_init(&pass->lock, NULL) != 0)
        return false;
    if (pthread_cond_init(&pass->wake, NULL) != 0) {
        pthread_mutex_destroy(&pass->lock);
        return false;
    }
    if (pthread_cond_init(&pass->done, NULL) != 0) {
        pthread_cond_destroy(&pass->wake);
        pthread_mutex_destroy(&pass->lock);
        return false;
    }
    pass->requested = pass->running = pass->quit = false;
    if (pthread_create(&pass->thread, NULL, pass_main, pass) != 0) {
        pthread_cond_destroy(&pass->done);
        pthread_cond_destroy(&pass->wake);
        pthread_mutex_destroy(&pass->lock);
        return false;
    }
    pass->thread_failed = false;
    pass->thread_started = true;
    return true;
}

sr_status viewer_pass_start(sr_viewer *viewer, sr_error *err)
{
    viewer_pass *pass = &viewer->pass;
    pass->pending = false;
    sr_status status = SR_OK;
    if (!viewer->collision)
        status = sr_collision_create(&viewer->collision, err);
    // The drawing must find the scene up to date: it then only reads it (see the top).
    if (status == SR_OK)
        status = sr_scene_update(viewer->scene, NULL, err);
    if (status != SR_OK)
        return status;
    pass->pending = true;
    if (!start_thread(pass)) {
        // No thread: the pass now, on this one.
        pass->status = sr_scene_collide(viewer->scene, NULL, viewer->collision, &pass->err);
        return SR_OK;
    }
    pthread_mutex_lock(&pass->lock);
    pass->scene = viewer->scene;
    pass->collision = viewer->collision;
    pass->requested = pass->running = true;
    pthread_cond_signal(&pass->wake);
    pthread_mutex_unlock(&pass->lock);
    return SR_OK;
}

sr_status viewer_pass_finish(sr_viewer *viewer, sr_error *err)
{
    viewer_pass *pass = &viewer->pass;
    if (!pass->pending)
        return SR_OK;
    pass->pending = false;
    if (pass->thread_started) {
        pthread_mutex_lock(&pass->lock);
        while (pass->running)
            pthread_cond_wait(&pass->done, &pass->lock);
        pthread_mutex_unlock(&pass->lock);
    }
    if (pass->status != SR_OK && err)
        *err = pass->err;
    return pass->status;
}

void viewer_pass_stop(sr_viewer *viewer)
{
    viewer_pass *pass = &viewer->pass;
    if (!pass->thread_started)
        return;
    viewer_pass_finish(viewer, NULL);
    pthread_mutex_lock(&pass->lock);
    pass->quit = true;
    pthread_cond_signal(&pass->wake);
    pthread_mutex_unlock(&pass->lock);
    pthread_join(pass->thread, NULL);
    pthread_cond_destroy(&pass->done);
    pthread_cond_destroy(&pass->wake);
    pthread_mutex_destroy(&pass->lock);
    pass->thread_started = false;
}
