/* viewer_control.c — what a program reads and steers from code (softrast/viewer.h): the lists it
 * has drawn, saving frames, the camera, the overlays and the BVH depth ranges, its HUD lines, the
 * last pick. Each setter marks the viewer dirty, so the next sr_viewer_frame draws the change. */
#include "viewer_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void sr_viewer_request_redraw(sr_viewer *viewer)
{
    SDL_assert(viewer);
    viewer->dirty = true;
}

sr_status sr_viewer_add_list(sr_viewer *viewer, sr_debug_list *list, sr_error *err)
{
    SDL_assert(viewer);
    if (!list)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_viewer_add_list: list is NULL");
    for (int i = 0; i < viewer->list_count; i++)
        if (viewer->lists[i] == list)
            return SR_OK;
    if (viewer->list_count == SR_VIEWER_MAX_LISTS)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_viewer_add_list: the viewer already draws %d lists (SR_VIEWER_MAX_LISTS)",
                            SR_VIEWER_MAX_LISTS);
    viewer->lists[viewer->list_count++] = list;
    viewer->dirty = true;
    return SR_OK;
}

void sr_viewer_remove_list(sr_viewer *viewer, const sr_debug_list *list)
{
    SDL_assert(viewer);
    if (!list)
        return;
    if (viewer->extra == list) {
        viewer->extra = NULL;
        viewer->dirty = true;
    }
    for (int i = 0; i < viewer->list_count; i++)
        if (viewer->lists[i] == list) {
            memmove(viewer->lists + i, viewer->lists + i + 1,
                    (size_t)(viewer->list_count - i - 1) * sizeof *viewer->lists);
            viewer->list_count--;
            viewer->dirty = true;
            break;
        }
    // The last frame's record may point at it: forget it, so that nothing reads a freed list.
    for (int i = 0; i < viewer->drawn_count; i++)
        if (viewer->drawn_lists[i] == list)
            viewer->drawn_lists[i] = NULL;
}

sr_status sr_viewer_save_frame(sr_viewer *viewer, const char *path, sr_error *err)
{
    SDL_assert(viewer);
    if (!path || !path[0])
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_viewer_save_frame: path is %s",
                            path ? "empty" : "NULL");
    viewer_watch_scene(viewer);
    return viewer_save(viewer, path, err);
}

const sr_framebuffer *sr_viewer_framebuffer(const sr_viewer *viewer)
{
    SDL_assert(viewer);
    return viewer->fb;
}

sr_camera sr_viewer_camera(const sr_viewer *viewer)
{
    SDL_assert(viewer);
    return viewer_view_camera(viewer);
}

sr_status sr_viewer_set_camera(sr_viewer *viewer, const sr_camera *camera, sr_error *err)
{
    SDL_assert(viewer);
    if (!camera)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_viewer_set_camera: camera is NULL");
    sr_camera resolved = sr_camera_resolve(camera);
    sr_status status = sr_camera_check(&resolved, err);
    if (status != SR_OK)
        return status;
    if (viewer->no_scene) {
        // No scene of the program's: this camera is also where Home goes back to.
        sr_scene_set_camera(viewer->scene, &resolved);
        viewer->home = resolved;
    }
    viewer->base = resolved;
    viewer->orbit = sr_orbit_from_camera(&resolved);
    viewer->orbit_moved = false;
    viewer->dirty = true;
    return SR_OK;
}

/// The overlays sr_viewer_set_overlays takes (SR_OVERLAY_FRUSTUM belongs to the F key).
#define SETTABLE_OVERLAYS                                                                                              \
    (SR_OVERLAY_BVH | SR_OVERLAY_MESH_BVH | SR_OVERLAY_BOUNDS | SR_OVERLAY_NORMALS | SR_OVERLAY_WIRE |                 \
     SR_OVERLAY_PICK | SR_OVERLAY_HEAT | SR_OVERLAY_AXES | SR_OVERLAY_GRID | SR_OVERLAY_HUD | SR_OVERLAY_CONTACTS |   \
     SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS)

uint32_t sr_viewer_overlays(const sr_viewer *viewer)
{
    SDL_assert(viewer);
    return viewer->overlays;
}

void sr_viewer_set_overlays(sr_viewer *viewer, uint32_t items)
{
    SDL_assert(viewer);
    viewer->overlays = items & (uint32_t)SETTABLE_OVERLAYS;
    viewer->dirty = true;
}

sr_status sr_viewer_set_bvh_depths(sr_viewer *viewer, int first, int last, int mesh_first, int mesh_last, sr_error *err)
{
    SDL_assert(viewer);
    const struct {
        const char *name;
        int first, last;
    } ranges[2] = {{"instance tree", first, last}, {"mesh BVH", mesh_first, mesh_last}};
    for (int i = 0; i < 2; i++)
        if (ranges[i].first < 0 || ranges[i].last < ranges[i].first || ranges[i].last > 255)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                "sr_viewer_set_bvh_depths: %s depths %d-%d (0 <= first <= last <= 255)", ranges[i].name,
                                ranges[i].first, ranges[i].last);
    viewer->bvh_first = first;
    viewer->bvh_last = last;
    viewer->mesh_bvh_first = mesh_first;
    viewer->mesh_bvh_last = mesh_last;
    viewer->dirty = true;
    return SR_OK;
}

void sr_viewer_set_hud_text(sr_viewer *viewer, const char *text)
{
    SDL_assert(viewer);
    const char *now = text ? text : "";
    if (strncmp(viewer->hud_text, now, sizeof viewer->hud_text - 1) == 0)
        return; // the same lines every step draw nothing new
    snprintf(viewer->hud_text, sizeof viewer->hud_text, "%s", now);
    viewer->dirty = true;
}

bool sr_viewer_last_pick(const sr_viewer *viewer, sr_pick_hit *hit)
{
    SDL_assert(viewer && hit);
    if (!viewer->has_pick)
        return false;
    *hit = viewer->pick;
    return true;
}

sr_scene *sr_viewer_scene(const sr_viewer *viewer)
{
    SDL_assert(viewer);
    return viewer->no_scene ? NULL : viewer->scene;
}

const char *sr_viewer_load_error(const sr_viewer *viewer)
{
    SDL_assert(viewer);
    return viewer->load_error;
}

sr_viewer_playback sr_viewer_get_playback(const sr_viewer *viewer)
{
    SDL_assert(viewer);
    const viewer_playback *p = viewer->playback;
    if (!p || !p->info)
        return (sr_viewer_playback){0};
    return (sr_viewer_playback){.recording = true,
                                .frame = p->frame.index,
                                .frame_count = p->info->frame_count,
                                .time = p->frame.time,
                                .playing = p->playing,
                                .speed = ldexp(1.0, p->speed),
                                .loop = p->loop,
                                .loop_first = p->loop ? p->loop_first : 0,
                                .loop_last = p->loop ? p->loop_last : 0};
}

sr_status sr_viewer_seek(sr_viewer *viewer, uint64_t frame, sr_error *err)
{
    SDL_assert(viewer);
    viewer_playback *p = viewer->playback;
    if (!p || !p->info)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_viewer_seek: the viewer shows no recording%s",
                            viewer->load.running ? " yet (it is being opened)" : "");
    if (p->info->frame_count == 0)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_viewer_seek: %s has no frame", p->path);
    if (!viewer_playback_seek(viewer, frame))
        return sr_error_set(err, SR_ERROR_PARSE, "%s", p->seek_error);
    viewer_playback_restart_clock(viewer); // play goes on from the new frame
    return SR_OK;
}

void sr_viewer_play(sr_viewer *viewer, bool play)
{
    SDL_assert(viewer);
    viewer_playback_play(viewer, play);
}
