/* viewer_item_pick.c — which debug item a click falls on, and what to say about it. The lists are
 * drawn once more into an id buffer, each item in a colour that is its number (24 bits, opaque:
 * the rasterisers write an opaque colour exactly), over the depth of the scene drawn by the same
 * camera, in the order and with the depth tests of sr_debug_draw: the item found at a pixel is
 * the one drawn there, whatever its kind (a sphere's circles, a capsule's sides, a filled
 * polygon), with no second tessellation of our own. Text is drawn as its box (its glyphs'
 * outline blends and would not keep the number). The nearest id within a few pixels wins, since
 * a one-pixel line is hard to hit. Only at a click: nothing of this runs per frame. */
#include "viewer_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/// Ids are 24 bits: item 0 of the first list is 1, 0 is the background.
#define ID_LIMIT 0xffffffu

/* The window position of world point `p` (as debug_draw.c places text and dots); false behind
 * the eye or outside the depth range. */
static bool window_of(sr_mat4 view_projection, int width, int height, sr_vec3 p, float *x, float *y, float *z)
{
    sr_vec4 clip = sr_mat4_mul_vec4(view_projection, sr_vec4_from_vec3(p, 1.0f));
    if (!(clip.w > 0.0f) || !(clip.z >= 0.0f && clip.z <= clip.w))
        return false;
    *x = (clip.x / clip.w + 1.0f) * 0.5f * (float)width;
    *y = (1.0f - clip.y / clip.w) * 0.5f * (float)height;
    *z = clip.z / clip.w;
    return *x > -1e6f && *x < 1e6f && *y > -1e6f && *y < 1e6f;
}

/* A copy of `item` in the opaque colour `id` (outlines and fills that draw nothing stay so). */
static sr_debug_item id_item(const sr_debug_item *item, uint32_t id)
{
    sr_debug_item copy = *item;
    uint32_t color = 0xff000000u | id;
    if (copy.style.color >> 24)
        copy.style.color = color;
    switch (copy.kind) {
    case SR_DEBUG_ITEM_LINE:
    case SR_DEBUG_ITEM_ARROW:
        copy.line.color_b = copy.style.color;
        break;
    case SR_DEBUG_ITEM_CIRCLE:
        if (copy.circle.fill_color >> 24)
            copy.circle.fill_color = color;
        break;
    case SR_DEBUG_ITEM_TRIANGLE:
        if (copy.triangle.fill_color >> 24)
            copy.triangle.fill_color = color;
        break;
    case SR_DEBUG_ITEM_POLYLINE:
        if (copy.polyline.fill_color >> 24)
            copy.polyline.fill_color = color;
        break;
    default:
        break;
    }
    return copy;
}

/* Text as the box its glyphs cover: a filled 2D rectangle where sr_debug_draw puts the text
 * (world text at its anchor's pixel, hidden as a whole when the anchor is behind the scene). */
static void add_text_box(sr_debug_list *out, const sr_debug_list *list, const sr_debug_item *item, uint32_t id,
                         const sr_framebuffer *fb, sr_mat4 view_projection)
{
    if (!(item->style.color >> 24))
        return;
    float x = item->text.anchor.x, y = item->text.anchor.y, z = 0.0f;
    if (item->kind == SR_DEBUG_ITEM_TEXT) {
        if (!window_of(view_projection, fb->width, fb->height, item->text.anchor, &x, &y, &z))
            return;
        int px = (int)floorf(x), py = (int)floorf(y);
        if (!item->style.on_top && px >= 0 && py >= 0 && px < fb->width && py < fb->height &&
            !(z - SR_DEBUG_DEPTH_BIAS * (1.0f - z) <= fb->depth[(size_t)py * (size_t)fb->width + (size_t)px]))
            return;
        x = floorf(x);
        y = floorf(y);
    }
    const char *text = sr_debug_list_item_text(list, item);
    int width = 0, height = 0;
    sr_overlay_text_size(text ? text : "", item->style.width, &width, &height);
    if (width <= 0 || height <= 0)
        return;
    sr_debug_rect_2d(out, x, y, (float)width, (float)height, true, sr_debug_style_make(0xff000000u | id, 1, true));
}

/* Draws `list`'s items into the id buffer as ids first_id, first_id + 1, ... (through `scratch`,
 * emptied first). */
static sr_status draw_ids(sr_viewer *viewer, const sr_debug_list *list, int list_index, viewer_item_filter shown,
                          void *user, uint32_t first_id, sr_mat4 view_projection, sr_error *err)
{
    sr_debug_list *scratch = viewer->item_pick.scratch;
    sr_framebuffer *fb = viewer->item_pick.fb;
    for (int attempt = 0; attempt < 2; attempt++) {
        // The second attempt draws what the first dropped: each clear grows the list.
        sr_status status = sr_debug_list_clear(scratch, err);
        if (status != SR_OK)
            return status;
        size_t count = 0;
        const sr_debug_item *items = sr_debug_list_items(list, &count);
        for (size_t i = 0; i < count; i++) {
            uint32_t id = first_id + (uint32_t)i;
            if (shown && !shown(user, list_index, i))
                continue;
            if (items[i].kind == SR_DEBUG_ITEM_TEXT || items[i].kind == SR_DEBUG_ITEM_TEXT_2D) {
                add_text_box(scratch, list, &items[i], id, fb, view_projection);
                continue;
            }
            sr_debug_item copy = id_item(&items[i], id);
            sr_debug_list_append(scratch, &copy, sr_debug_list_item_points(list, &items[i]), NULL);
        }
        sr_debug_list_stats stats = sr_debug_list_get_stats(scratch);
        if (!stats.items_dropped && !stats.segments_dropped && !stats.texts_dropped)
            break;
    }
    return sr_debug_draw(scratch, viewer->renderer, fb, view_projection, err);
}

/* The id buffer's size follows the frame's. */
static sr_status prepare(sr_viewer *viewer, sr_error *err)
{
    viewer_item_pick *pick = &viewer->item_pick;
    sr_status status = SR_OK;
    if (!pick->scratch)
        status = sr_debug_list_create(NULL, &pick->scratch, err);
    if (status == SR_OK && !pick->fb)
        status = sr_framebuffer_create(&(sr_framebuffer_desc){.width = viewer->fb->width, .height = viewer->fb->height},
                                       &pick->fb, err);
    if (status == SR_OK && (pick->fb->width != viewer->fb->width || pick->fb->height != viewer->fb->height))
        status = sr_framebuffer_resize(pick->fb, viewer->fb->width, viewer->fb->height, err);
    return status;
}

bool viewer_pick_item(sr_viewer *viewer, sr_debug_list *const *lists, int count, viewer_item_filter shown, void *user,
                      float x, float y, float radius, viewer_item_hit *hit)
{
    *hit = (viewer_item_hit){.list = -1};
    if (!viewer->scene || count <= 0)
        return false;
    size_t total = 0;
    for (int i = 0; i < count; i++)
        total += sr_debug_list_get_stats(lists[i]).items;
    if (total == 0)
        return false;
    sr_error err = {0};
    if (prepare(viewer, &err) != SR_OK)
        return false;
    sr_framebuffer *fb = viewer->item_pick.fb;
    // The scene's depth by the view camera, culled as the frame was, so that depth-tested items
    // behind the scene are hidden here as they are on screen. Its colour is then cleared to the
    // background id 0.
    sr_camera view = viewer_view_camera(viewer);
    sr_scene_render_desc render = {.camera = &view, .cull_camera = viewer->frozen ? &viewer->cull_camera : NULL};
    if (sr_scene_needs_update(viewer->scene) && sr_scene_update(viewer->scene, NULL, NULL) != SR_OK)
        return false;
    if (sr_scene_render(viewer->scene, &render, viewer->renderer, fb, viewer->frame, &err) != SR_OK)
        return false;
    memset(fb->color, 0, (size_t)fb->width * (size_t)fb->height * sizeof *fb->color);
    sr_mat4 view_matrix, projection;
    sr_camera_matrices(&view, fb->width, fb->height, &view_matrix, &projection);
    sr_mat4 view_projection = sr_mat4_mul(projection, view_matrix);
    // Each list in turn, as the frame draws them (a later list's items over an earlier one's).
    uint32_t first_id = 1;
    int drawn = 0;
    for (; drawn < count; drawn++) {
        size_t items = sr_debug_list_get_stats(lists[drawn]).items;
        if (items > ID_LIMIT - first_id)
            break; // past 16 million items: the rest cannot be told apart (and are not picked)
        if (draw_ids(viewer, lists[drawn], drawn, shown, user, first_id, view_projection, &err) != SR_OK)
            return false;
        first_id += (uint32_t)items;
    }
    // The nearest pixel centre within `radius` of (x, y) that holds an id.
    int reach = (int)ceilf(radius);
    int cx = (int)floorf(x), cy = (int)floorf(y);
    float best = radius * radius;
    uint32_t found = 0;
    for (int py = cy - reach; py <= cy + reach; py++)
        for (int px = cx - reach; px <= cx + reach; px++) {
            if (px < 0 || py < 0 || px >= fb->width || py >= fb->height)
                continue;
            uint32_t id = fb->color[(size_t)py * (size_t)fb->width + (size_t)px] & ID_LIMIT;
            float dx = (float)px + 0.5f - x, dy = (float)py + 0.5f - y;
            float distance = dx * dx + dy * dy;
            if (id && distance <= best && (distance < best || !found)) {
                best = distance;
                found = id;
            }
        }
    if (!found)
        return false;
    uint32_t id = found - 1;
    for (int i = 0; i < drawn; i++) {
        size_t items = sr_debug_list_get_stats(lists[i]).items;
        if (id < items) {
            hit->list = i;
            hit->item = id;
            hit->distance_px = sqrtf(best);
            return true;
        }
        id -= (uint32_t)items;
    }
    return false;
}

void viewer_item_pick_free(sr_viewer *viewer)
{
    sr_debug_list_destroy(viewer->item_pick.scratch);
    sr_framebuffer_destroy(viewer->item_pick.fb);
    viewer->item_pick = (viewer_item_pick){0};
}

/* ---- what an item is and where ---- */

static const char *const kind_names[SR_DEBUG_ITEM_KIND_COUNT] = {
    [SR_DEBUG_ITEM_LINE] = "line",
    [SR_DEBUG_ITEM_ARROW] = "arrow",
    [SR_DEBUG_ITEM_POINT] = "point",
    [SR_DEBUG_ITEM_DOT] = "dot",
    [SR_DEBUG_ITEM_BOX] = "box",
    [SR_DEBUG_ITEM_SPHERE] = "sphere",
    [SR_DEBUG_ITEM_ORIENTED_SPHERE] = "oriented sphere",
    [SR_DEBUG_ITEM_CAPSULE] = "capsule",
    [SR_DEBUG_ITEM_CYLINDER] = "cylinder",
    [SR_DEBUG_ITEM_CONE] = "cone",
    [SR_DEBUG_ITEM_CIRCLE] = "circle",
    [SR_DEBUG_ITEM_FRUSTUM] = "frustum",
    [SR_DEBUG_ITEM_AXES] = "axes",
    [SR_DEBUG_ITEM_GRID] = "grid",
    [SR_DEBUG_ITEM_TRIANGLE] = "triangle",
    [SR_DEBUG_ITEM_POLYLINE] = "polyline",
    [SR_DEBUG_ITEM_TEXT] = "text",
    [SR_DEBUG_ITEM_TEXT_2D] = "2D text",
    [SR_DEBUG_ITEM_RECT_2D] = "2D rectangle",
    [SR_DEBUG_ITEM_SHAPE] = "shape",
};

const char *viewer_item_kind_name(sr_debug_item_kind kind)
{
    return (unsigned)kind < SR_DEBUG_ITEM_KIND_COUNT ? kind_names[kind] : "unknown";
}

sr_vec3 viewer_item_position(const sr_debug_list *list, const sr_debug_item *item, bool *is_2d)
{
    *is_2d = false;
    switch (item->kind) {
    case SR_DEBUG_ITEM_LINE:
    case SR_DEBUG_ITEM_ARROW:
        return sr_vec3_scale(sr_vec3_add(item->line.a, item->line.b), 0.5f);
    case SR_DEBUG_ITEM_POINT:
    case SR_DEBUG_ITEM_DOT:
        return item->point.position;
    case SR_DEBUG_ITEM_BOX:
        return sr_mat4_transform_point(item->box.transform,
                                       sr_vec3_scale(sr_vec3_add(item->box.box.min, item->box.box.max), 0.5f));
    case SR_DEBUG_ITEM_SPHERE:
    case SR_DEBUG_ITEM_ORIENTED_SPHERE:
        return item->sphere.centre;
    case SR_DEBUG_ITEM_CAPSULE:
    case SR_DEBUG_ITEM_CYLINDER:
    case SR_DEBUG_ITEM_CONE:
        return sr_vec3_scale(sr_vec3_add(item->segment.a, item->segment.b), 0.5f);
    case SR_DEBUG_ITEM_CIRCLE:
        return item->circle.centre;
    case SR_DEBUG_ITEM_AXES:
        return sr_mat4_transform_point(item->axes.transform, sr_vec3_make(0.0f, 0.0f, 0.0f));
    case SR_DEBUG_ITEM_GRID:
        return item->grid.centre;
    case SR_DEBUG_ITEM_TRIANGLE:
        return sr_vec3_scale(sr_vec3_add(sr_vec3_add(item->triangle.a, item->triangle.b), item->triangle.c),
                             1.0f / 3.0f);
    case SR_DEBUG_ITEM_POLYLINE: {
        const sr_vec3 *points = sr_debug_list_item_points(list, item);
        sr_vec3 sum = sr_vec3_make(0.0f, 0.0f, 0.0f);
        for (uint32_t i = 0; points && i < item->polyline.count; i++)
            sum = sr_vec3_add(sum, points[i]);
        return item->polyline.count ? sr_vec3_scale(sum, 1.0f / (float)item->polyline.count) : sum;
    }
    case SR_DEBUG_ITEM_TEXT:
        return item->text.anchor;
    case SR_DEBUG_ITEM_TEXT_2D:
        *is_2d = true;
        return item->text.anchor;
    case SR_DEBUG_ITEM_RECT_2D:
        *is_2d = true;
        return sr_vec3_make(item->rect.x, item->rect.y, 0.0f);
    case SR_DEBUG_ITEM_SHAPE:
        return item->shape.position;
    case SR_DEBUG_ITEM_FRUSTUM:
    default: {
        // A frustum: the centre of its near plane's corners, mapped back from clip space.
        sr_mat4 inverse;
        if (item->kind == SR_DEBUG_ITEM_FRUSTUM && sr_mat4_inverse(item->frustum.view_projection, &inverse)) {
            sr_vec4 c = sr_mat4_mul_vec4(inverse, sr_vec4_make(0.0f, 0.0f, 0.0f, 1.0f));
            if (c.w != 0.0f)
                return sr_vec3_make(c.x / c.w, c.y / c.w, c.z / c.w);
        }
        return sr_vec3_make(0.0f, 0.0f, 0.0f);
    }
    }
}

/* Appends printf output to `out` (`size` bytes, `*used` filled). */
static void append(char *out, size_t size, size_t *used, const char *format, ...) __attribute__((format(printf, 4, 5)));
static void append(char *out, size_t size, size_t *used, const char *format, ...)
{
    if (*used >= size)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(out + *used, size - *used, format, args);
    va_end(args);
    if (n > 0)
        *used = (size_t)n < size - *used ? *used + (size_t)n : size - 1;
}

static void append_vec3(char *out, size_t size, size_t *used, sr_vec3 v)
{
    append(out, size, used, "(%.4g, %.4g, %.4g)", (double)v.x, (double)v.y, (double)v.z);
}

void viewer_item_describe(const sr_debug_list *list, const sr_debug_item *item, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    // The kind on the first line, its parameters on short lines under it: the HUD stays narrow.
    append(out, size, &used, "%s", viewer_item_kind_name(item->kind));
    bool is_2d;
    switch (item->kind) {
    case SR_DEBUG_ITEM_LINE:
    case SR_DEBUG_ITEM_ARROW:
        append(out, size, &used, "\n  ");
        append_vec3(out, size, &used, item->line.a);
        append(out, size, &used, " to\n  ");
        append_vec3(out, size, &used, item->line.b);
        break;
    case SR_DEBUG_ITEM_POINT:
    case SR_DEBUG_ITEM_DOT:
        append(out, size, &used, "\n  at ");
        append_vec3(out, size, &used, item->point.position);
        break;
    case SR_DEBUG_ITEM_BOX:
        append(out, size, &used, "\n  centre ");
        append_vec3(out, size, &used, viewer_item_position(list, item, &is_2d));
        append(out, size, &used, "\n  half extents ");
        append_vec3(out, size, &used, sr_vec3_scale(sr_vec3_sub(item->box.box.max, item->box.box.min), 0.5f));
        break;
    case SR_DEBUG_ITEM_SPHERE:
    case SR_DEBUG_ITEM_ORIENTED_SPHERE:
        append(out, size, &used, "\n  centre ");
        append_vec3(out, size, &used, item->sphere.centre);
        append(out, size, &used, "\n  radius %.4g", (double)item->sphere.radius);
        break;
    case SR_DEBUG_ITEM_CAPSULE:
    case SR_DEBUG_ITEM_CYLINDER:
    case SR_DEBUG_ITEM_CONE:
        append(out, size, &used, "\n  ");
        append_vec3(out, size, &used, item->segment.a);
        append(out, size, &used, " to\n  ");
        append_vec3(out, size, &used, item->segment.b);
        append(out, size, &used, "\n  radius %.4g", (double)item->segment.radius);
        break;
    case SR_DEBUG_ITEM_CIRCLE:
        append(out, size, &used, "\n  centre ");
        append_vec3(out, size, &used, item->circle.centre);
        append(out, size, &used, "\n  radius %.4g", (double)item->circle.radius);
        break;
    case SR_DEBUG_ITEM_TRIANGLE:
        for (int k = 0; k < 3; k++) {
            append(out, size, &used, "\n  ");
            append_vec3(out, size, &used, k == 0 ? item->triangle.a : k == 1 ? item->triangle.b : item->triangle.c);
        }
        break;
    case SR_DEBUG_ITEM_POLYLINE:
        append(out, size, &used, "\n  %u points%s, centre ", item->polyline.count,
               item->polyline.closed ? ", closed" : "");
        append_vec3(out, size, &used, viewer_item_position(list, item, &is_2d));
        break;
    case SR_DEBUG_ITEM_TEXT:
    case SR_DEBUG_ITEM_TEXT_2D: {
        const char *text = sr_debug_list_item_text(list, item);
        char shown[48];
        snprintf(shown, sizeof shown, "%s", text ? text : "");
        for (char *c = shown; *c; c++)
            if (*c == '\n')
                *c = ' ';
        append(out, size, &used, "\n  \"%s%s\"", shown, text && strlen(text) >= sizeof shown ? "..." : "");
        append(out, size, &used, item->kind == SR_DEBUG_ITEM_TEXT ? "\n  at " : "\n  at pixel ");
        append_vec3(out, size, &used, item->text.anchor);
        break;
    }
    default:
        append(out, size, &used, "\n  at ");
        append_vec3(out, size, &used, viewer_item_position(list, item, &is_2d));
        break;
    }
    uint32_t c = item->style.color;
    append(out, size, &used, "\n  colour #%02x%02x%02x%02x", c & 0xffu, c >> 8 & 0xffu, c >> 16 & 0xffu, c >> 24);
}
