/* viewer_draw.c — what one viewer frame shows: the scene drawn by sr_scene_render with the view
 * camera (and the frozen culling camera), the heat map, the overlays of debug.h with the
 * viewer's state appended to the HUD (one frame time, the rate while frames follow each other,
 * the pick once), the help panel, messages and load errors at the bottom, the program's own
 * debug list; or, while the first load runs, the loading screen; and the notice shown while a
 * slow frame (the heat map) is computed. Text scales with the window (sr_overlay_text_scale).
 * The overlays are made exactly as `softrast render --overlay` makes them, so that a saved frame
 * equals that command's picture for the same camera and overlay list. */
#include "viewer_internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Appends printf output to `text` (size bytes, `*used` of them filled). */
static void append(char *text, size_t size, size_t *used, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *text, size_t size, size_t *used, const char *format, ...)
{
    if (*used >= size)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(text + *used, size - *used, format, args);
    va_end(args);
    if (n > 0)
        *used = (size_t)n < size - *used ? *used + (size_t)n : size - 1;
}

/* The frame rate while frames follow each other (the last one was presented less than
 * LIVE_GAP_MS before this one started), over the last second; 0 otherwise: a frame drawn after
 * a pause (the viewer draws only on change) has no rate worth showing. */
#define LIVE_GAP_MS 250u
static double live_fps(const sr_viewer *viewer)
{
    if (viewer->present_count < 2)
        return 0.0;
    uint32_t last = viewer->presents[(viewer->present_count - 1) % VIEWER_PRESENTS];
    if (SDL_GetTicks() - last > LIVE_GAP_MS)
        return 0.0;
    return sr_viewer_get_stats(viewer).fps;
}

/* The viewer's own lines of the HUD, after the overlay's (scene, frame time, counts, pick):
 * what state it is in, and the key to its help. Messages go to a panel at the bottom. */
static void hud_text(const sr_viewer *viewer, char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    if (viewer->frozen)
        append(text, size, &used, "culling frozen (F)\n");
    // The program's lists, and what they dropped: a list that is too small loses items until its
    // next clear grows it (sr_debug_list_clear), and a program should know.
    size_t items = 0, dropped = 0;
    int count = viewer_lists_summary(viewer, &items, &dropped);
    if (count > 0) {
        append(text, size, &used, "lists: %d, %zu items\n", count, items);
        if (dropped)
            append(text, size, &used, "%zu dropped (list full)\n", dropped);
    }
    if (viewer->load.running && !viewer->load.quiet) {
        // The worker writes the stage while the viewer draws: read it under the lock.
        pthread_mutex_t *lock = (pthread_mutex_t *)&viewer->load.lock;
        pthread_mutex_lock(lock);
        append(text, size, &used, "reloading: %.0f%%\n", viewer->load.fraction * 100.0);
        pthread_mutex_unlock(lock);
    }
    if (viewer->playback) {
        char lines[1536];
        viewer_playback_hud(viewer, lines, sizeof lines);
        if (lines[0])
            append(text, size, &used, "%s\n", lines);
    }
    char pair[512];
    if (viewer_pair_hud(viewer, pair, sizeof pair))
        append(text, size, &used, "%s", pair);
    if (viewer->hud_text[0])
        append(text, size, &used, "%s\n", viewer->hud_text);
    append(text, size, &used, "H: help");
}

float viewer_text_panel(sr_debug_list *list, float x, float y, const char *text, uint32_t color, uint32_t backdrop,
                        int scale)
{
    int width, height;
    sr_overlay_text_size(text, scale, &width, &height);
    const float margin = 7.0f * (float)scale;
    float box_height = (float)height + 2.0f * margin;
    sr_debug_rect_2d(list, x, y, (float)width + 2.0f * margin, box_height, true, (sr_debug_style){.color = backdrop});
    sr_debug_text_2d(list, x + margin, y + margin, text, (sr_debug_style){.color = color, .width = scale});
    return box_height;
}

/* The help (H): one column when it fits the frame's height, else two side by side, split where a
 * section starts so that the taller column is as short as it can be; at a smaller text scale
 * when even that does not fit. */
static void help_panel(const sr_viewer *viewer, sr_debug_list *list, int scale, uint32_t backdrop)
{
    static char text[8192];
    snprintf(text, sizeof text, "softrast view: mouse and keys\n\n%s", sr_viewer_help_text());
    size_t length = strlen(text);
    while (length > 0 && text[length - 1] == '\n')
        text[--length] = '\0';
    const float width = (float)viewer->fb->width, height = (float)viewer->fb->height;
    // Where sections start: lines that are not indented (after the title).
    size_t starts[16];
    int start_count = 0;
    for (size_t i = 1; i < length && start_count < 16; i++)
        if (text[i - 1] == '\n' && text[i] != ' ' && text[i] != '\n' && i > 32)
            starts[start_count++] = i;
    for (int s = scale; s >= 1; s--) {
        const float margin = 7.0f * (float)s, room_height = height - 16.0f * (float)s - 2.0f * margin;
        int text_width, text_height;
        sr_overlay_text_size(text, s, &text_width, &text_height);
        if ((float)text_height <= room_height || (start_count == 0 && s == 1)) {
            float x = width - (float)text_width - 22.0f * (float)s;
            viewer_text_panel(list, x > 4.0f ? x : 4.0f, 8.0f * (float)s, text, 0xffffffffu, backdrop, s);
            return;
        }
        // Two columns: the split whose taller half is shortest.
        int best = -1, best_height = 0;
        for (int k = 0; k < start_count; k++) {
            char first[8192];
            snprintf(first, sizeof first, "%.*s", (int)starts[k] - 1, text);
            int h1, h2;
            sr_overlay_text_size(first, s, NULL, &h1);
            sr_overlay_text_size(text + starts[k], s, NULL, &h2);
            int taller = h1 > h2 ? h1 : h2;
            if (best < 0 || taller < best_height) {
                best = k;
                best_height = taller;
            }
        }
        char left[8192];
        snprintf(left, sizeof left, "%.*s", (int)starts[best] - 1, text);
        const char *right = text + starts[best];
        int w1, w2;
        sr_overlay_text_size(left, s, &w1, NULL);
        sr_overlay_text_size(right, s, &w2, NULL);
        const float gap = 18.0f * (float)s;
        float panel_width = (float)w1 + gap + (float)w2 + 2.0f * margin;
        if (((float)best_height > room_height || panel_width > width - 8.0f) && s > 1)
            continue;
        float x = width - panel_width - 8.0f * (float)s;
        x = x > 4.0f ? x : 4.0f;
        float y = 8.0f * (float)s;
        sr_debug_rect_2d(list, x, y, panel_width, (float)best_height + 2.0f * margin, true,
                         (sr_debug_style){.color = backdrop});
        sr_debug_style style = {.color = 0xffffffffu, .width = s};
        sr_debug_text_2d(list, x + margin, y + margin, left, style);
        sr_debug_text_2d(list, x + margin + (float)w1 + gap, y + margin, right, style);
        return;
    }
}

/* Errors, messages (with the HUD) and the help panel, over everything else, at text scale `scale`. */
void viewer_add_panels(const sr_viewer *viewer, sr_debug_list *list, int scale)
{
    const float height = (float)viewer->fb->height, s = (float)scale;
    const uint32_t backdrop = sr_rgba8(0.0f, 0.0f, 0.0f, 0.75f);
    if (viewer->help)
        help_panel(viewer, list, scale, backdrop);
    char text[1200] = "";
    uint32_t color = 0xffffffffu;
    if (viewer->load_error[0] || (viewer->message[0] && viewer->message_is_error)) {
        snprintf(text, sizeof text, "%s%s", viewer->load_error[0] ? viewer->load_error : viewer->message,
                 viewer->load_error[0] ? "\nthe scene shown is the last one that loaded; fix the file and press R "
                                         "(or save it: it reloads by itself)"
                                       : "");
        color = sr_rgba8(1.0f, 0.45f, 0.4f, 1.0f);
    } else if (viewer->message[0] && (viewer->overlays & SR_OVERLAY_HUD)) {
        // Saved frames, reloads: bottom left, out of the way; part of the HUD (U hides it).
        snprintf(text, sizeof text, "%s", viewer->message);
    }
    if (text[0]) {
        int text_height;
        sr_overlay_text_size(text, scale, NULL, &text_height);
        // Over a recording's timeline, not on it.
        float bottom = viewer->playback && viewer->playback->layout.top > 0.0f ? viewer->playback->layout.top : height;
        viewer_text_panel(list, 8.0f * s, bottom - (float)text_height - 22.0f * s, text, color, backdrop, scale);
    }
}

/* The first load is running or failed: no scene to draw yet. */
static sr_status draw_waiting(sr_viewer *viewer, sr_error *err)
{
    sr_framebuffer *fb = viewer->fb;
    sr_framebuffer_clear(fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
    sr_status status = sr_debug_list_clear(viewer->list, err);
    if (status != SR_OK)
        return status;
    const int scale = sr_overlay_text_scale(fb->width, fb->height);
    const float s = (float)scale, bar_width = 400.0f * s;
    char text[1200];
    float x = (float)fb->width * 0.5f - 0.5f * bar_width, y = (float)fb->height * 0.5f - 30.0f * s;
    x = x < 8.0f ? 8.0f : x;
    y = y < 8.0f ? 8.0f : y;
    if (viewer->load.running) {
        pthread_mutex_lock(&viewer->load.lock);
        double fraction = viewer->load.fraction;
        snprintf(text, sizeof text, "loading %s ...\n%s: %.0f%%\n\n(Esc closes the window)", viewer->scene_name,
                 viewer->load.stage, fraction * 100.0);
        pthread_mutex_unlock(&viewer->load.lock);
        float height = viewer_text_panel(viewer->list, x, y, text, 0xffffffffu, sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f), scale);
        sr_debug_rect_2d(viewer->list, x, y + height + 4.0f * s, bar_width, 10.0f * s, false, sr_debug_style_color(SR_DEBUG_WHITE));
        sr_debug_rect_2d(viewer->list, x, y + height + 4.0f * s, bar_width * (float)fraction, 10.0f * s, true,
                         (sr_debug_style){.color = SR_OVERLAY_COLOR_BOUNDS});
    } else {
        snprintf(text, sizeof text,
                 "%.300s did not load:\n%.500s\n\nfix the file and press R (or save it: it reloads by itself)",
                 viewer->scene_path, viewer->load_error);
        viewer_text_panel(viewer->list, 8.0f, y, text, sr_rgba8(1.0f, 0.45f, 0.4f, 1.0f), sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f),
                   scale);
    }
    if (viewer->help)
        viewer_add_panels(viewer, viewer->list, scale);
    return sr_debug_draw(viewer->list, viewer->renderer, fb, sr_mat4_identity(), err);
}

/* Whether a fill asked for more than the list holds (the next clear grows it). */
static bool list_dropped(const sr_debug_list *list)
{
    sr_debug_list_stats stats = sr_debug_list_get_stats(list);
    return stats.items_dropped || stats.segments_dropped || stats.texts_dropped;
}

/* The program's lists, seen by the view camera. */
static sr_status draw_program_lists(sr_viewer *viewer, sr_mat4 view_projection, sr_error *err)
{
    // A recording's lists (those shown, and the selection's highlight) first, then the program's.
    sr_debug_list *const *recorded = NULL;
    int recorded_count = viewer_playback_lists(viewer, &recorded);
    sr_status status = SR_OK;
    for (int i = 0; i < recorded_count && status == SR_OK; i++)
        status = sr_debug_draw(recorded[i], viewer->renderer, viewer->fb, view_projection, err);
    sr_debug_list *lists[SR_VIEWER_MAX_LISTS + 1];
    int count = viewer_program_lists(viewer, lists);
    for (int i = 0; i < count && status == SR_OK; i++)
        status = sr_debug_draw(lists[i], viewer->renderer, viewer->fb, view_projection, err);
    return status;
}

void viewer_notice_slow_frame(sr_viewer *viewer, const char *what)
{
    sr_framebuffer *fb = viewer->fb;
    if (!viewer->scene || sr_debug_list_clear(viewer->list, NULL) != SR_OK)
        return;
    const int scale = sr_overlay_text_scale(fb->width, fb->height);
    char text[256];
    snprintf(text, sizeof text, "%s ...", what);
    snprintf(viewer->notice_shown, sizeof viewer->notice_shown, "%s", text);
    int width, height;
    sr_overlay_text_size(text, scale, &width, &height);
    // Centred over the last frame, which stays on screen until the new one is ready.
    float x = 0.5f * ((float)fb->width - (float)width) - 7.0f * (float)scale;
    float y = 0.5f * ((float)fb->height - (float)height) - 7.0f * (float)scale;
    viewer_text_panel(viewer->list, x > 0.0f ? x : 0.0f, y > 0.0f ? y : 0.0f, text, 0xffffffffu,
               sr_rgba8(0.0f, 0.0f, 0.0f, 0.8f), scale);
    sr_debug_draw(viewer->list, viewer->renderer, fb, sr_mat4_identity(), NULL);
}

sr_status viewer_render(sr_viewer *viewer, double *render_ms, sr_error *err)
{
    double start = now_ms();
    *render_ms = 0.0;
    if (!viewer->scene)
        return draw_waiting(viewer, err);
    if (viewer_pair_view_shown(viewer)) {
        // The pair's trace as `softrast collide` draws it, instead of the scene.
        sr_status status = viewer_pair_render(viewer, err);
        *render_ms = now_ms() - start;
        return status;
    }
    sr_framebuffer *fb = viewer->fb;
    sr_camera view = viewer_view_camera(viewer);
    // The selected pair's answer for the scene as it is now (within the frame that shows a move).
    viewer_pair_answer(viewer);
    // The overlays as `softrast render --overlay LIST [--debug-camera]` makes them (cmd_render.c).
    uint32_t items = viewer->overlays | (viewer->frozen ? SR_OVERLAY_FRUSTUM : 0u);
    // The collision pass, while one of its overlays is on (as `softrast render --overlay` runs it),
    // on its own thread while this one draws the scene (viewer_pass.c).
    const uint32_t collision_items = SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS;
    const bool collide = (items & collision_items) && sr_scene_shape_count(viewer->scene) > 0;
    sr_status status = collide ? viewer_pass_start(viewer, err) : SR_OK;
    sr_scene_render_desc render = {.camera = &view, .cull_camera = viewer->frozen ? &viewer->cull_camera : NULL};
    if (status == SR_OK)
        status = sr_scene_render(viewer->scene, &render, viewer->renderer, fb, viewer->frame, err);
    sr_status passed = viewer_pass_finish(viewer, status == SR_OK ? err : NULL);
    status = status == SR_OK ? passed : status;

    if (!viewer->has_pick)
        items &= ~(uint32_t)SR_OVERLAY_PICK;
    char hud[4096];
    if (items & SR_OVERLAY_HUD)
        hud_text(viewer, hud, sizeof hud);
    // With no scene the overlays' HUD (the scene's instances, triangles, fragments) says nothing:
    // the viewer's own lines go in a panel of the same place instead.
    // So does a recording's scene with no nodes (lists recorded with an empty scene or none).
    bool lists_only = viewer->no_scene || (viewer->playback && sr_scene_node_count(viewer->scene) == 0);
    bool own_hud = lists_only && (items & SR_OVERLAY_HUD);
    sr_overlay_desc overlay = {.items = own_hud ? items & ~(uint32_t)SR_OVERLAY_HUD : items,
                               .bvh_range = true,
                               .bvh_min = viewer->bvh_first,
                               .bvh_max = viewer->bvh_last,
                               .mesh_bvh_range = true,
                               .mesh_bvh_min = viewer->mesh_bvh_first,
                               .mesh_bvh_max = viewer->mesh_bvh_last,
                               .pick_x = viewer->pick_x,
                               .pick_y = viewer->pick_y,
                               .pick_hit = viewer->has_pick ? &viewer->pick : NULL,
                               .cull_camera = viewer->frozen ? &viewer->cull_camera : &view,
                               .fps = live_fps(viewer),
                               .hud_text = (items & SR_OVERLAY_HUD) ? hud : NULL};
    if (status == SR_OK && collide)
        overlay.collision = viewer->collision;
    if (status == SR_OK && (items & SR_OVERLAY_HEAT))
        status = sr_overlay_heat(viewer->scene, &view, fb, viewer->threads, NULL, &overlay.heat_max, err);
    // The 3D overlays in one list, the HUD, legends and panels in another: the program's lines go
    // between them, over the overlays (its on-top lines over everything in the world, the grid
    // included) and under the HUD and the help, which stay readable.
    overlay.hud_list = viewer->hud_list;
    // The HUD's one frame time: this frame's work, the scene and the heat map (the slow part
    // when it is on), up to the overlays' lines.
    overlay.frame_ms = now_ms() - start;
    for (int attempt = 0; attempt < 2 && status == SR_OK; attempt++) {
        // Each clear grows a list to what its last fill asked for.
        status = sr_debug_list_clear(viewer->list, err);
        if (status == SR_OK)
            status = sr_debug_list_clear(viewer->hud_list, err);
        if (status == SR_OK)
            status =
                sr_overlay_add(viewer->scene, viewer->frame, &view, fb->width, fb->height, &overlay, viewer->list, err);
        if (status == SR_OK)
            viewer_pair_overlay(viewer, viewer->list, &view, fb->height);
        if (status == SR_OK && own_hud) {
            char text[4400];
            if (viewer->playback)
                snprintf(text, sizeof text, "%s\ndrawn in %.1f ms\n%s", viewer->scene_name, overlay.frame_ms, hud);
            else
                snprintf(text, sizeof text, "no scene: the program's lists\n%s", hud);
            viewer_text_panel(viewer->hud_list, 4.0f, 4.0f, text, SR_DEBUG_WHITE, sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f),
                       sr_overlay_text_scale(fb->width, fb->height));
        }
        // A recording's timeline and legend belong to the HUD: U hides them for a clean picture.
        if (viewer->playback)
            viewer->playback->layout = (playback_layout){0};
        if (status == SR_OK && viewer->playback && (items & SR_OVERLAY_HUD))
            viewer_timeline_add(viewer, viewer->hud_list, sr_overlay_text_scale(fb->width, fb->height));
        if (status == SR_OK)
            viewer_add_panels(viewer, viewer->hud_list, sr_overlay_text_scale(fb->width, fb->height));
        if (!list_dropped(viewer->list) && !list_dropped(viewer->hud_list))
            break;
    }
    // What the HUD said, for print-state.
    if (status == SR_OK && (items & SR_OVERLAY_HUD))
        sr_overlay_hud_text(viewer->scene, viewer->frame, &overlay, (items & SR_OVERLAY_PICK) ? &viewer->pick : NULL,
                            viewer->hud_shown, sizeof viewer->hud_shown);
    else
        viewer->hud_shown[0] = '\0';
    sr_mat4 view_matrix, projection;
    sr_camera_matrices(&view, fb->width, fb->height, &view_matrix, &projection);
    sr_mat4 view_projection = sr_mat4_mul(projection, view_matrix);
    if (status == SR_OK)
        status = sr_debug_draw(viewer->list, viewer->renderer, fb, view_projection, err);
    if (status == SR_OK)
        status = draw_program_lists(viewer, view_projection, err);
    if (status == SR_OK)
        status = sr_debug_draw(viewer->hud_list, viewer->renderer, fb, view_projection, err);
    *render_ms = now_ms() - start;
    return status;
}
