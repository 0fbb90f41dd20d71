/* viewer_playback.c — a recording shown in the viewer (softrast/record.h's reader): the frame
 * shown and how it changes (seeks, steps, play at a speed in real time, a loop range), the view
 * following the recorded camera until the user moves it, which lists and colours are shown, and
 * the selection (a recorded item or a node of the recorded scene) found again at every frame so
 * that it survives scrubbing. The keys of the help's "recordings" section land here; the timeline
 * and the legend are viewer_timeline.c; which item a click falls on is viewer_item_pick.c. */
#include "viewer_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static uint64_t last_frame(const viewer_playback *p)
{
    uint64_t count = playback_frame_count(p);
    return count ? count - 1 : 0;
}

/* Whether item `index` of list `list` of the frame is drawn (viewer_pick_item's filter). */
static bool item_shown(void *user, int list, size_t index)
{
    const viewer_playback *p = user;
    if (playback_list_hidden(p, (size_t)list))
        return false;
    if (p->hidden_colour_count == 0)
        return true;
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(p->frame.lists[list], &count);
    return index < count && !playback_colour_hidden(p, playback_item_colour(&items[index]));
}

/* The colours of the frame's items, in order of first use over every list (so that Shift+N keeps
 * naming the same colour when lists are hidden), with their counts in the shown lists. */
static void count_colours(viewer_playback *p)
{
    p->colour_count = 0;
    p->colours_more = 0;
    int last = -1;
    for (size_t l = 0; l < p->frame.list_count; l++) {
        size_t count = 0, shown = !playback_list_hidden(p, l);
        const sr_debug_item *items = sr_debug_list_items(p->frame.lists[l], &count);
        for (size_t i = 0; i < count; i++) {
            uint32_t color = playback_item_colour(&items[i]);
            // Items come in runs of one colour: the last one found first.
            if (last >= 0 && p->colours[last].color == color) {
                p->colours[last].items += shown;
                continue;
            }
            last = -1;
            for (int c = 0; c < p->colour_count; c++)
                if (p->colours[c].color == color) {
                    last = c;
                    break;
                }
            if (last < 0 && p->colour_count < PLAYBACK_MAX_COLOURS) {
                last = p->colour_count++;
                p->colours[last] = (playback_colour){.color = color};
            }
            if (last >= 0)
                p->colours[last].items += shown;
            else
                p->colours_more += shown;
        }
    }
}

/* ---- the selection ---- */

/* The selected node's handle at the frame shown (the same program node, as recorded). */
static void find_selected_node(viewer_playback *p)
{
    p->selection.node =
        p->frame.scene ? sr_recording_node_of_source(p->recording, p->selection.source_node) : SR_NODE_NULL;
}

/* The selected item at the frame shown: itself at the frame it was picked, else the item most
 * like it (sr_recording_find_item: same list, kind and colour, nearest). */
static void find_selected_item(viewer_playback *p)
{
    sr_recording_item_pick found;
    p->selection.item_here = sr_recording_find_item(p->recording, &p->selection.item, &found);
    if (p->selection.item_here)
        p->selection.item = found; // followed frame by frame: the next search starts from here
}

/* The highlight of the selection: the item again over everything, a wider white line under its
 * own colour; a node's world box. */
static void build_highlight(sr_viewer *viewer)
{
    viewer_playback *p = viewer->playback;
    if ((!p->highlight && sr_debug_list_create(NULL, &p->highlight, NULL) != SR_OK) ||
        (!p->highlight_top && sr_debug_list_create(NULL, &p->highlight_top, NULL) != SR_OK))
        return;
    sr_debug_list_clear(p->highlight, NULL);
    sr_debug_list_clear(p->highlight_top, NULL);
    const playback_selection *s = &p->selection;
    if (s->kind == PLAYBACK_SELECTED_ITEM && s->item_here && s->item.list < p->frame.list_count) {
        const sr_debug_list *list = p->frame.lists[s->item.list];
        size_t count = 0;
        const sr_debug_item *items = sr_debug_list_items(list, &count);
        if (s->item.index >= count)
            return;
        sr_debug_item halo = items[s->item.index];
        halo.style.on_top = true;
        halo.style.width = halo.style.width + 2 > 4 ? 4 : halo.style.width + 2;
        halo.style.color = SR_OVERLAY_COLOR_PICKED;
        if (halo.kind == SR_DEBUG_ITEM_LINE || halo.kind == SR_DEBUG_ITEM_ARROW)
            halo.line.color_b = SR_OVERLAY_COLOR_PICKED;
        if (halo.kind == SR_DEBUG_ITEM_POINT || halo.kind == SR_DEBUG_ITEM_DOT)
            halo.point.size_px += 4.0f;
        const sr_vec3 *points = sr_debug_list_item_points(list, &items[s->item.index]);
        const char *text = sr_debug_list_item_text(list, &items[s->item.index]);
        if (halo.kind != SR_DEBUG_ITEM_TEXT && halo.kind != SR_DEBUG_ITEM_TEXT_2D)
            sr_debug_list_append(p->highlight, &halo, points, text);
        sr_debug_item again = items[s->item.index];
        again.style.on_top = true;
        if (!(again.style.color >> 24))
            again.style.color = playback_item_colour(&again) | 0xff000000u;
        // In a list of its own, drawn after the halo's (a list draws thin lines before wide ones).
        sr_debug_list_append(p->highlight_top, &again, points, text);
    } else if (s->kind == PLAYBACK_SELECTED_NODE && s->node.generation != 0 && viewer->scene) {
        sr_node_info info;
        if (sr_scene_node(viewer->scene, s->node, &info, NULL) == SR_OK && info.mesh.id != 0)
            sr_debug_aabb(p->highlight, info.world_aabb, sr_debug_style_make(SR_OVERLAY_COLOR_PICKED, 2, true));
    }
}

void viewer_playback_clear_selection(sr_viewer *viewer)
{
    viewer_playback *p = viewer->playback;
    if (!p)
        return;
    p->selection = (playback_selection){.kind = PLAYBACK_SELECTED_NONE};
    build_highlight(viewer);
    viewer->dirty = true;
}

/* ---- seeking ---- */

/* The camera the frame was recorded with; without one, a camera that fits the frame shown. */
static sr_camera recorded_camera(const sr_viewer *viewer)
{
    const viewer_playback *p = viewer->playback;
    if (p->frame.has_camera)
        return sr_camera_resolve(&p->frame.camera);
    float aspect = (float)viewer->fb->width / (float)viewer->fb->height;
    return sr_camera_fit_box(sr_recording_frame_bounds(p->recording), sr_vec3_make(0.0f, 0.0f, 0.0f), aspect);
}

static bool same_camera(const sr_camera *a, const sr_camera *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

bool viewer_playback_seek(sr_viewer *viewer, uint64_t frame)
{
    viewer_playback *p = viewer->playback;
    if (!p || !p->recording || playback_frame_count(p) == 0)
        return false;
    if (frame > last_frame(p))
        frame = last_frame(p);
    sr_error err = {0};
    sr_recording_frame shown;
    if (sr_recording_seek(p->recording, frame, &shown, &err) != SR_OK) {
        snprintf(p->seek_error, sizeof p->seek_error, "frame %llu: %.480s", (unsigned long long)frame,
                 err.message[0] ? err.message : sr_status_name(err.status));
        p->playing = false;
        viewer_say(viewer, true, "%s", p->seek_error);
        return false;
    }
    // The first frame shown chooses the view; later ones (a reload's included) only follow it.
    bool first = !p->camera_chosen;
    p->camera_chosen = true;
    p->frame = shown;
    p->has_frame = true;
    p->seek_error[0] = '\0';
    // The recorded scene (the same object at every frame), or the viewer's empty one when the
    // recording has none: the camera, grid, axes and HUD then work as with any scene.
    viewer->scene = shown.scene ? shown.scene : p->empty_scene;
    viewer->owns_scene = false;
    if (shown.scene)
        snprintf(viewer->scene_name, sizeof viewer->scene_name, "%s",
                 p->info->title[0] ? p->info->title : sr_scene_name(shown.scene));
    // The view follows the recorded camera while the user has not moved it (V goes back to it).
    sr_camera camera = recorded_camera(viewer);
    bool following = first || (!viewer->orbit_moved && same_camera(&viewer->base, &viewer->home));
    if (!first && !p->frame.has_camera)
        camera = viewer->home; // a fitted camera is chosen once, not at every frame
    if (!same_camera(&camera, &viewer->home) || first) {
        viewer->home = camera;
        if (following)
            viewer_reset_camera(viewer);
    }
    // A click's pick (ray, hit) belongs to the frame it was made at; the selection follows.
    if (viewer->has_pick && frame != p->selection.picked_frame) {
        viewer->has_pick = false;
        viewer->overlays &= ~(uint32_t)SR_OVERLAY_PICK;
    }
    count_colours(p);
    p->filtered_stale = true;
    if (p->selection.kind == PLAYBACK_SELECTED_ITEM)
        find_selected_item(p);
    else if (p->selection.kind == PLAYBACK_SELECTED_NODE)
        find_selected_node(p);
    build_highlight(viewer);
    viewer->dirty = true;
    return true;
}

/* ---- taking a recording, letting it go ---- */

void viewer_playback_take(sr_viewer *viewer, sr_recording *recording, uint64_t frame, bool follow_end)
{
    viewer_playback *p = viewer->playback;
    if (p->recording) {
        // A reload: the old recording's scene and lists go with it.
        viewer->scene = NULL;
        sr_recording_destroy(p->recording);
        p->frame = (sr_recording_frame){0};
        p->has_frame = false;
    }
    p->recording = recording;
    p->info = sr_recording_get_info(recording);
    p->by_time = p->info->times_increase && p->info->last_time > p->info->first_time;
    p->loop_first = p->loop_first > last_frame(p) ? last_frame(p) : p->loop_first;
    p->loop_last = p->loop_last > last_frame(p) ? last_frame(p) : p->loop_last;
    if (!p->empty_scene)
        sr_scene_create(&(sr_scene_desc){.name = "recording"}, &p->empty_scene, NULL);
    const char *name = strrchr(p->path, '/');
    snprintf(viewer->scene_name, sizeof viewer->scene_name, "%.127s",
             p->info->title[0] ? p->info->title
             : name            ? name + 1
                               : p->path);
    bool first = !p->seen;
    p->seen = true;
    if (playback_frame_count(p) == 0) {
        viewer->scene = p->empty_scene;
        viewer->owns_scene = false;
        viewer_say(viewer, false, "%s: no frame recorded yet (%s)", p->path, p->info->note);
        return;
    }
    uint64_t target = follow_end ? last_frame(p) : frame;
    if (viewer_playback_seek(viewer, target) && first && viewer->playback->info->truncated)
        viewer_say(viewer, false, "%s", p->info->note);
    if (p->playing) {
        p->play_wall_ms = now_ms();
        p->play_origin = p->by_time ? p->frame.time : (double)p->frame.index;
    }
}

void viewer_playback_free(sr_viewer *viewer)
{
    viewer_playback *p = viewer->playback;
    if (!p)
        return;
    if (viewer->scene == p->empty_scene || (p->has_frame && viewer->scene == p->frame.scene))
        viewer->scene = NULL;
    sr_recording_destroy(p->recording);
    sr_scene_destroy(p->empty_scene);
    for (size_t i = 0; i < p->filtered_capacity; i++)
        sr_debug_list_destroy(p->filtered[i]);
    sr_free(p->filtered);
    sr_free(p->shown);
    sr_debug_list_destroy(p->highlight);
    sr_debug_list_destroy(p->highlight_top);
    sr_free(p);
    viewer->playback = NULL;
}

/* ---- play ---- */

/* The ends play runs between: the loop range, or the whole recording. */
static void play_range(const viewer_playback *p, uint64_t *first, uint64_t *last)
{
    *first = p->loop ? p->loop_first : 0;
    *last = p->loop ? p->loop_last : last_frame(p);
}

/* Play's clock restarts at the frame shown (after a seek, a change of speed). */
static void restart_clock(viewer_playback *p)
{
    if (!p->has_frame)
        return;
    p->play_wall_ms = now_ms();
    p->play_origin = p->by_time ? p->frame.time : (double)p->frame.index;
}

void viewer_playback_restart_clock(sr_viewer *viewer)
{
    if (viewer->playback && viewer->playback->playing)
        restart_clock(viewer->playback);
}

void viewer_playback_play(sr_viewer *viewer, bool play)
{
    viewer_playback *p = viewer->playback;
    if (!p || !p->has_frame)
        return;
    viewer->dirty = true;
    if (!play) {
        p->playing = false;
        return;
    }
    uint64_t first, last;
    play_range(p, &first, &last);
    // At the end (or outside the loop), play starts again from the range's first frame.
    if (p->frame.index >= last || p->frame.index < first)
        viewer_playback_seek(viewer, first);
    p->playing = true;
    restart_clock(p);
}

void viewer_playback_tick(sr_viewer *viewer)
{
    viewer_playback *p = viewer->playback;
    if (!p || !p->playing || !p->has_frame)
        return;
    uint64_t first, last;
    play_range(p, &first, &last);
    double elapsed = (now_ms() - p->play_wall_ms) / 1000.0 * playback_speed_factor(p->speed);
    uint64_t frame;
    bool past_end;
    if (p->by_time) {
        double time = p->play_origin + elapsed;
        past_end = time > sr_recording_frame_time(p->recording, last);
        frame = past_end ? last : sr_recording_frame_at_time(p->recording, time);
    } else {
        double at = p->play_origin + elapsed * PLAYBACK_FALLBACK_FPS;
        past_end = at >= (double)last + 1.0;
        frame = past_end ? last : (uint64_t)at;
    }
    if (frame < first)
        frame = first;
    if (past_end) {
        if (p->loop) {
            // Once through the last frame of the range, back to its first.
            viewer_playback_seek(viewer, first);
            restart_clock(p);
            return;
        }
        p->playing = false;
        viewer->dirty = true;
    }
    if (frame != p->frame.index && !viewer_playback_seek(viewer, frame))
        p->playing = false;
}

bool viewer_playback_prepare(sr_viewer *viewer)
{
    viewer_playback *p = viewer->playback;
    if (!p || !p->has_frame)
        return false;
    if (sr_recording_prepare(p->recording))
        return true;
    // The first draw of the largest list would grow the renderer's line memory (8 MB for 100,000
    // segments, fresh pages): readied once here instead.
    size_t segments = sr_recording_get_cache_stats(p->recording).draw_segments;
    if (segments <= p->reserved_lines)
        return false;
    p->reserved_lines = segments;
    return sr_renderer_reserve_lines(viewer->renderer, segments, NULL) == SR_OK;
}

int viewer_playback_wakeup(const sr_viewer *viewer)
{
    const viewer_playback *p = viewer->playback;
    if (!p || !p->playing || !p->has_frame)
        return -1;
    double factor = playback_speed_factor(p->speed);
    double elapsed = (now_ms() - p->play_wall_ms) / 1000.0 * factor;
    double wait_s;
    if (p->by_time) {
        double next = sr_recording_frame_time(p->recording, p->frame.index + 1);
        wait_s = isnan(next) ? 0.0 : (next - (p->play_origin + elapsed)) / factor;
    } else {
        double next = (double)p->frame.index + 1.0;
        wait_s = (next - (p->play_origin + elapsed * PLAYBACK_FALLBACK_FPS)) / (PLAYBACK_FALLBACK_FPS * factor);
    }
    double ms = wait_s * 1000.0;
    return ms < 1.0 ? 1 : ms > 250.0 ? 250 : (int)ceil(ms);
}

/* ---- stepping ---- */

static void step(sr_viewer *viewer, int64_t frames)
{
    viewer_playback *p = viewer->playback;
    if (!p->has_frame)
        return;
    p->playing = false;
    int64_t target = (int64_t)p->frame.index + frames;
    int64_t last = (int64_t)last_frame(p);
    viewer_playback_seek(viewer, (uint64_t)(target < 0 ? 0 : target > last ? last : target));
    viewer->dirty = true;
}

/* The next (forward) or previous message's frame from the frame shown; false when none. */
static bool message_frame(const viewer_playback *p, bool forward, uint64_t *out)
{
    size_t count = 0;
    const sr_recording_message *messages = sr_recording_messages(p->recording, &count);
    uint64_t here = p->frame.index;
    bool found = false;
    for (size_t i = 0; i < count; i++) {
        uint64_t at = messages[i].frame;
        if (forward && at > here && (!found || at < *out)) {
            *out = at;
            found = true;
        } else if (!forward && at < here && (!found || at > *out)) {
            *out = at;
            found = true;
        }
    }
    return found;
}

void viewer_playback_set_loop(sr_viewer *viewer, bool loop, uint64_t first, uint64_t last)
{
    viewer_playback *p = viewer->playback;
    if (!p)
        return;
    p->loop_marked = false;
    p->loop = loop && playback_frame_count(p) > 0;
    if (p->loop) {
        if (first > last) {
            uint64_t swap = first;
            first = last;
            last = swap;
        }
        p->loop_first = first > last_frame(p) ? last_frame(p) : first;
        p->loop_last = last > last_frame(p) ? last_frame(p) : last;
        if (p->playing && (p->frame.index < p->loop_first || p->frame.index > p->loop_last)) {
            viewer_playback_seek(viewer, p->loop_first);
            restart_clock(p);
        }
    }
    viewer->dirty = true;
}

/* L: the first press marks where the range starts, the second where it ends (and loops), the
 * third clears it. */
static void loop_key(sr_viewer *viewer)
{
    viewer_playback *p = viewer->playback;
    if (p->loop) {
        viewer_playback_set_loop(viewer, false, 0, 0);
        viewer_say(viewer, false, "loop off");
    } else if (!p->loop_marked) {
        p->loop_marked = true;
        p->loop_mark = p->frame.index;
        viewer_say(viewer, false, "loop from frame %llu: go to its last frame and press L again",
                   (unsigned long long)p->loop_mark);
    } else {
        viewer_playback_set_loop(viewer, true, p->loop_mark, p->frame.index);
        viewer_say(viewer, false, "looping frames %llu to %llu (L: loop off)", (unsigned long long)p->loop_first,
                   (unsigned long long)p->loop_last);
    }
    viewer->dirty = true;
}

void viewer_playback_toggle_list(sr_viewer *viewer, int list)
{
    viewer_playback *p = viewer->playback;
    if (!p || list < 0 || list >= PLAYBACK_MAX_LISTS || (size_t)list >= p->info->list_count)
        return;
    p->list_hidden[list] = !p->list_hidden[list];
    count_colours(p);
    p->filtered_stale = true;
    viewer->dirty = true;
}

void viewer_playback_toggle_colour(sr_viewer *viewer, uint32_t color)
{
    viewer_playback *p = viewer->playback;
    if (!p)
        return;
    for (int i = 0; i < p->hidden_colour_count; i++)
        if (p->hidden_colours[i] == color) {
            p->hidden_colours[i] = p->hidden_colours[--p->hidden_colour_count];
            p->filtered_stale = true;
            viewer->dirty = true;
            return;
        }
    if (p->hidden_colour_count < PLAYBACK_MAX_COLOURS) {
        p->hidden_colours[p->hidden_colour_count++] = color;
        p->filtered_stale = true;
        viewer->dirty = true;
    }
}

static void show_everything(sr_viewer *viewer)
{
    viewer_playback *p = viewer->playback;
    memset(p->list_hidden, 0, sizeof p->list_hidden);
    count_colours(p);
    p->hidden_colour_count = 0;
    p->filtered_stale = true;
    viewer->dirty = true;
}

bool viewer_playback_key(sr_viewer *viewer, SDL_Keycode key, Uint16 modifiers)
{
    viewer_playback *p = viewer->playback;
    if (!p || !p->recording)
        return false;
    bool shift = (modifiers & KMOD_SHIFT) || viewer->shift_held, ctrl = modifiers & KMOD_CTRL;
    uint64_t target = 0;
    switch (key) {
    case SDLK_SPACE:
        viewer_playback_play(viewer, !p->playing);
        return true;
    case SDLK_RIGHT:
    case SDLK_LEFT: {
        int sign = key == SDLK_RIGHT ? 1 : -1;
        if (ctrl) {
            p->playing = false;
            if (message_frame(p, sign > 0, &target))
                viewer_playback_seek(viewer, target);
            else
                viewer_say(viewer, false, "no message %s frame %llu", sign > 0 ? "after" : "before",
                           (unsigned long long)p->frame.index);
            viewer->dirty = true;
        } else {
            step(viewer, sign * (shift ? 10 : 1));
        }
        return true;
    }
    case SDLK_PAGEDOWN:
    case SDLK_PAGEUP:
        step(viewer, key == SDLK_PAGEDOWN ? 100 : -100);
        return true;
    case SDLK_HOME:
    case SDLK_END:
        p->playing = false;
        viewer_playback_seek(viewer, key == SDLK_HOME ? 0 : last_frame(p));
        viewer->dirty = true;
        return true;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
    case SDLK_MINUS:
    case SDLK_KP_MINUS: {
        int speed = p->speed + (key == SDLK_MINUS || key == SDLK_KP_MINUS ? -1 : 1);
        if (speed >= PLAYBACK_SPEED_MIN && speed <= PLAYBACK_SPEED_MAX) {
            p->speed = speed;
            if (p->playing)
                restart_clock(p);
        }
        char text[32];
        viewer_speed_text(p->speed, text, sizeof text);
        viewer_say(viewer, false, "speed %s", text);
        return true;
    }
    case SDLK_l:
        loop_key(viewer);
        return true;
    case SDLK_k:
        p->legend = !p->legend;
        viewer->dirty = true;
        return true;
    case SDLK_v:
        viewer_reset_camera(viewer);
        return true;
    case SDLK_0:
        show_everything(viewer);
        viewer_say(viewer, false, "every list and colour shown");
        return true;
    default:
        break;
    }
    if (key >= SDLK_1 && key <= SDLK_9) {
        int n = (int)(key - SDLK_1);
        if (shift) {
            if (n < p->colour_count)
                viewer_playback_toggle_colour(viewer, p->colours[n].color);
        } else {
            viewer_playback_toggle_list(viewer, n);
        }
        return true;
    }
    return false;
}

/* ---- clicks ---- */

void viewer_playback_click(sr_viewer *viewer, float x, float y)
{
    viewer_playback *p = viewer->playback;
    if (!p->has_frame)
        return;
    viewer->dirty = true;
    const float radius = PLAYBACK_PICK_RADIUS * (float)sr_overlay_text_scale(viewer->fb->width, viewer->fb->height);
    viewer_item_hit hit;
    if (viewer_pick_item(viewer, p->frame.lists, (int)p->frame.list_count, item_shown, p, x, y, radius, &hit)) {
        size_t count = 0;
        const sr_debug_list *list = p->frame.lists[hit.list];
        const sr_debug_item *items = sr_debug_list_items(list, &count);
        bool is_2d;
        p->selection = (playback_selection){.kind = PLAYBACK_SELECTED_ITEM,
                                            .picked_frame = p->frame.index,
                                            .item = {.hit = true,
                                                     .list = (uint32_t)hit.list,
                                                     .index = (uint32_t)hit.item,
                                                     .item = items[hit.item],
                                                     .distance_px = hit.distance_px,
                                                     .position = viewer_item_position(list, &items[hit.item], &is_2d)},
                                            .item_here = true};
        viewer->has_pick = false;
        viewer->overlays &= ~(uint32_t)SR_OVERLAY_PICK;
        build_highlight(viewer);
        return;
    }
    // No item there: the node the ray hits, as in any scene (the pick overlay shows it).
    sr_pick_hit node_hit;
    if (!viewer_pick_at(viewer, x, y, &node_hit))
        return;
    viewer->pick = node_hit;
    viewer->has_pick = true;
    viewer->pick_x = x;
    viewer->pick_y = y;
    viewer->overlays |= SR_OVERLAY_PICK;
    if (node_hit.hit && p->frame.scene) {
        p->selection = (playback_selection){.kind = PLAYBACK_SELECTED_NODE,
                                            .picked_frame = p->frame.index,
                                            .source_node = sr_recording_source_node(p->recording, node_hit.node),
                                            .node = node_hit.node};
    } else {
        p->selection = (playback_selection){.kind = PLAYBACK_SELECTED_NONE, .picked_frame = p->frame.index};
    }
    build_highlight(viewer);
}

/* ---- the lists drawn ---- */

/* The frame's lists without the hidden colours, rebuilt when stale. */
static void filter_lists(viewer_playback *p)
{
    if (!p->filtered_stale)
        return;
    p->filtered_stale = false;
    if (p->hidden_colour_count == 0)
        return;
    if (p->filtered_capacity < p->frame.list_count) {
        size_t capacity = p->frame.list_count;
        sr_debug_list **grown = sr_realloc(p->filtered, capacity * sizeof *grown);
        if (!grown)
            return;
        for (size_t i = p->filtered_capacity; i < capacity; i++)
            grown[i] = NULL;
        p->filtered = grown;
        p->filtered_capacity = capacity;
    }
    p->filtered_count = p->frame.list_count;
    for (size_t l = 0; l < p->frame.list_count; l++) {
        if (playback_list_hidden(p, l))
            continue;
        if (!p->filtered[l] && sr_debug_list_create(NULL, &p->filtered[l], NULL) != SR_OK)
            continue;
        const sr_debug_list *from = p->frame.lists[l];
        for (int attempt = 0; attempt < 2; attempt++) {
            // A clear grows the list to what the last fill asked for: a second fill then fits.
            sr_debug_list_clear(p->filtered[l], NULL);
            size_t count = 0;
            const sr_debug_item *items = sr_debug_list_items(from, &count);
            for (size_t i = 0; i < count; i++)
                if (!playback_colour_hidden(p, playback_item_colour(&items[i])))
                    sr_debug_list_append(p->filtered[l], &items[i], sr_debug_list_item_points(from, &items[i]),
                                         sr_debug_list_item_text(from, &items[i]));
            sr_debug_list_stats stats = sr_debug_list_get_stats(p->filtered[l]);
            if (!stats.items_dropped && !stats.segments_dropped && !stats.texts_dropped)
                break;
        }
    }
}

int viewer_playback_lists(sr_viewer *viewer, sr_debug_list *const **lists)
{
    viewer_playback *p = viewer->playback;
    *lists = NULL;
    if (!p || !p->has_frame)
        return 0;
    filter_lists(p);
    size_t needed = p->frame.list_count + 2;
    if (p->shown_capacity < needed) {
        sr_debug_list **grown = sr_realloc(p->shown, needed * sizeof *grown);
        if (!grown)
            return 0;
        p->shown = grown;
        p->shown_capacity = needed;
    }
    int count = 0;
    for (size_t l = 0; l < p->frame.list_count; l++) {
        if (playback_list_hidden(p, l))
            continue;
        bool filtered = p->hidden_colour_count > 0 && l < p->filtered_count && p->filtered[l];
        p->shown[count++] = filtered ? p->filtered[l] : p->frame.lists[l];
    }
    if (p->selection.kind != PLAYBACK_SELECTED_NONE && p->highlight && p->highlight_top) {
        p->shown[count++] = p->highlight;
        p->shown[count++] = p->highlight_top;
    }
    *lists = p->shown;
    return count;
}
