/* viewer_draw.c — what one viewer frame shows: the scene drawn by sr_scene_render with the view
 * camera (and the frozen culling camera), the heat map, the overlays of debug.h with the viewer's
 * lines appended to the HUD (frame rate, pick details, messages), the help panel, load errors,
 * the program's own debug list; or, while the first load runs, the loading screen. The
 * overlays are made exactly as `softrast render --overlay` makes them, so that a saved frame
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

/* The viewer's lines of the HUD. */
static void hud_text(const sr_viewer *viewer, char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    sr_viewer_stats stats = sr_viewer_get_stats(viewer);
    // The last frame's time says how fast the viewer can go; fps how fast it went in the last
    // second (0 while nothing moves: frames are drawn only on change).
    append(text, size, &used, "viewer %dx%d, %d threads: last frame %.2f ms (softrast %.2f ms), %.0f fps",
           viewer->fb->width, viewer->fb->height, viewer->threads, viewer->last_frame_ms, viewer->last_render_ms,
           stats.fps);
    if (viewer->frozen)
        append(text, size, &used, "\nculling camera frozen (F): its frustum yellow, culled instances grey");
    // The program's lists, and what they dropped: a list that is too small loses items until its
    // next clear grows it (sr_debug_list_clear), and a program should know.
    size_t items = 0, dropped = 0;
    int count = viewer_lists_summary(viewer, &items, &dropped);
    if (count > 0) {
        append(text, size, &used, "\nprogram's lists: %d, %zu items", count, items);
        if (dropped)
            append(text, size, &used, " (%zu dropped past their capacity: the next clear grows it)", dropped);
    }
    if (viewer->has_pick) {
        const sr_pick_hit *hit = &viewer->pick;
        if (hit->hit) {
            sr_node_info info;
            const char *name = sr_scene_node(viewer->scene, hit->node, &info, NULL) == SR_OK ? info.name : "?";
            append(text, size, &used,
                   "\npicked at pixel %.1f,%.1f: node '%s' (#%u), triangle %u, t %.5g\n  position (%.4g, %.4g, %.4g)"
                   "  normal (%.3f, %.3f, %.3f)",
                   (double)viewer->pick_x, (double)viewer->pick_y, name, hit->node.index, hit->triangle, (double)hit->t,
                   (double)hit->position.x, (double)hit->position.y, (double)hit->position.z, (double)hit->normal.x,
                   (double)hit->normal.y, (double)hit->normal.z);
        } else {
            append(text, size, &used, "\npicked at pixel %.1f,%.1f: nothing there", (double)viewer->pick_x,
                   (double)viewer->pick_y);
        }
    }
    if (viewer->load.running) {
        // The worker writes the stage while the viewer draws: read it under the lock.
        pthread_mutex_t *lock = (pthread_mutex_t *)&viewer->load.lock;
        pthread_mutex_lock(lock);
        append(text, size, &used, "\nreloading %s: %s %.0f%%", viewer->scene_path, viewer->load.stage,
               viewer->load.fraction * 100.0);
        pthread_mutex_unlock(lock);
    }
    if (viewer->hud_text[0])
        append(text, size, &used, "\n%s", viewer->hud_text);
    if (viewer->message[0] && !viewer->message_is_error)
        append(text, size, &used, "\n%s", viewer->message);
    append(text, size, &used, "\nH: help");
}

/* Text in a dark box at (x, y); `width` 0 measures it. Returns the box's height. */
static float text_panel(sr_debug_list *list, float x, float y, const char *text, uint32_t color, uint32_t backdrop)
{
    int lines = 1, longest = 0, current = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n' && p[1] != '\0') {
            lines++;
            current = 0;
        } else if (++current > longest) {
            longest = current;
        }
    }
    // The debug font's cell is 6 x 10 pixels at scale 1 (src/debug/font.h), lines one cell apart.
    float width = (float)longest * 6.0f + 16.0f, height = (float)lines * 10.0f + 14.0f;
    sr_debug_rect_2d(list, x, y, width, height, true, (sr_debug_style){.color = backdrop});
    sr_debug_text_2d(list, x + 8.0f, y + 7.0f, text, (sr_debug_style){.color = color});
    return height;
}

/* Errors and the help panel, over everything else. */
static void add_panels(const sr_viewer *viewer, sr_debug_list *list)
{
    const float width = (float)viewer->fb->width, height = (float)viewer->fb->height;
    const uint32_t backdrop = sr_rgba8(0.0f, 0.0f, 0.0f, 0.75f);
    if (viewer->help) {
        char text[4096];
        snprintf(text, sizeof text, "softrast view: mouse and keys\n\n%s", sr_viewer_help_text());
        float x = width - 80.0f * 6.0f - 24.0f;
        text_panel(list, x > 4.0f ? x : 4.0f, 8.0f, text, 0xffffffffu, backdrop);
    }
    if (viewer->load_error[0] || (viewer->message[0] && viewer->message_is_error)) {
        char text[1200];
        snprintf(text, sizeof text, "%s%s", viewer->load_error[0] ? viewer->load_error : viewer->message,
                 viewer->load_error[0] ? "\nthe scene shown is the last one that loaded; fix the file and press R "
                                         "(or save it: it reloads by itself)"
                                       : "");
        text_panel(list, 8.0f, height - 44.0f, text, sr_rgba8(1.0f, 0.45f, 0.4f, 1.0f), backdrop);
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
    char text[1200];
    float x = (float)fb->width * 0.5f - 200.0f, y = (float)fb->height * 0.5f - 30.0f;
    x = x < 8.0f ? 8.0f : x;
    y = y < 8.0f ? 8.0f : y;
    if (viewer->load.running) {
        pthread_mutex_lock(&viewer->load.lock);
        double fraction = viewer->load.fraction;
        snprintf(text, sizeof text, "loading %s ...\n%s: %.0f%%\n\n(Esc closes the window)", viewer->scene_name,
                 viewer->load.stage, fraction * 100.0);
        pthread_mutex_unlock(&viewer->load.lock);
        text_panel(viewer->list, x, y, text, 0xffffffffu, sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f));
        sr_debug_rect_2d(viewer->list, x, y + 62.0f, 400.0f, 10.0f, false, (sr_debug_style){.color = SR_DEBUG_WHITE});
        sr_debug_rect_2d(viewer->list, x, y + 62.0f, 400.0f * (float)fraction, 10.0f, true,
                         (sr_debug_style){.color = SR_OVERLAY_COLOR_BOUNDS});
    } else {
        snprintf(text, sizeof text,
                 "%.300s did not load:\n%.500s\n\nfix the file and press R (or save it: it reloads by itself)",
                 viewer->scene_path, viewer->load_error);
        text_panel(viewer->list, 8.0f, y, text, sr_rgba8(1.0f, 0.45f, 0.4f, 1.0f), sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f));
    }
    if (viewer->help)
        add_panels(viewer, viewer->list);
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
    sr_debug_list *lists[SR_VIEWER_MAX_LISTS + 1];
    int count = viewer_program_lists(viewer, lists);
    sr_status status = SR_OK;
    for (int i = 0; i < count && status == SR_OK; i++)
        status = sr_debug_draw(lists[i], viewer->renderer, viewer->fb, view_projection, err);
    return status;
}

sr_status viewer_render(sr_viewer *viewer, double *render_ms, sr_error *err)
{
    double start = now_ms();
    *render_ms = 0.0;
    if (!viewer->scene)
        return draw_waiting(viewer, err);
    sr_framebuffer *fb = viewer->fb;
    sr_camera view = viewer_view_camera(viewer);
    sr_scene_render_desc render = {.camera = &view, .cull_camera = viewer->frozen ? &viewer->cull_camera : NULL};
    sr_status status = sr_scene_render(viewer->scene, &render, viewer->renderer, fb, viewer->frame, err);
    double scene_ms = now_ms() - start;

    // The overlays as `softrast render --overlay LIST [--debug-camera]` makes them (cmd_render.c).
    uint32_t items = viewer->overlays | (viewer->frozen ? SR_OVERLAY_FRUSTUM : 0u);
    if (!viewer->has_pick)
        items &= ~(uint32_t)SR_OVERLAY_PICK;
    char hud[4096];
    if (items & SR_OVERLAY_HUD)
        hud_text(viewer, hud, sizeof hud);
    // With no scene the overlays' HUD (the scene's instances, triangles, fragments) says nothing:
    // the viewer's own lines go in a panel of the same place instead.
    bool own_hud = viewer->no_scene && (items & SR_OVERLAY_HUD);
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
                               .frame_ms = scene_ms,
                               .hud_text = (items & SR_OVERLAY_HUD) ? hud : NULL};
    if (status == SR_OK && (items & SR_OVERLAY_HEAT))
        status = sr_overlay_heat(viewer->scene, &view, fb, viewer->threads, NULL, &overlay.heat_max, err);
    // The 3D overlays in one list, the HUD, legends and panels in another: the program's lines go
    // between them, over the overlays (its on-top lines over everything in the world, the grid
    // included) and under the HUD and the help, which stay readable.
    overlay.hud_list = viewer->hud_list;
    for (int attempt = 0; attempt < 2 && status == SR_OK; attempt++) {
        // Each clear grows a list to what its last fill asked for.
        status = sr_debug_list_clear(viewer->list, err);
        if (status == SR_OK)
            status = sr_debug_list_clear(viewer->hud_list, err);
        if (status == SR_OK)
            status =
                sr_overlay_add(viewer->scene, viewer->frame, &view, fb->width, fb->height, &overlay, viewer->list, err);
        if (status == SR_OK && own_hud) {
            char text[4200];
            snprintf(text, sizeof text, "no scene: the program's lists\n%s", hud);
            text_panel(viewer->hud_list, 4.0f, 4.0f, text, SR_DEBUG_WHITE, sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f));
        }
        if (status == SR_OK)
            add_panels(viewer, viewer->hud_list);
        if (!list_dropped(viewer->list) && !list_dropped(viewer->hud_list))
            break;
    }
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
