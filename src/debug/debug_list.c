/* src/debug/debug_list.c — filling debug draw lists (softrast/debug.h): the list's fixed
 * capacity, grown between frames, and every shape turned into segments (circles of 32
 * segments, boxes of 12 edges, arrows of a line and four barbs). Knows nothing of drawing. */
#include "debug_internal.h"

#include <string.h>

#define DEFAULT_SEGMENTS 16384
#define DEFAULT_TEXTS 256
#define DEFAULT_TEXT_BYTES 16384
#define CIRCLE_SEGMENTS 32

static uint32_t style_color(sr_debug_style style)
{
    return style.color ? style.color : 0xffffffffu;
}

static uint8_t style_width(sr_debug_style style)
{
    return (uint8_t)(style.width < 1 ? 1 : style.width > 4 ? 4 : style.width);
}

/* Grows the three arrays to `items`, `texts`, `bytes` (never shrinks). */
static bool reserve(sr_debug_list *list, size_t items, size_t texts, size_t bytes)
{
    if (items > list->item_capacity) {
        if (items > SIZE_MAX / 2 / sizeof(sr_line_vertex))
            return false;
        debug_item *grown = sr_realloc(list->items, items * sizeof *grown);
        if (!grown)
            return false;
        list->items = grown;
        sr_line_vertex *scratch = sr_realloc(list->scratch, 2 * items * sizeof *scratch);
        if (!scratch)
            return false; // items grown, scratch not: the capacity stays the old one
        list->scratch = scratch;
        list->item_capacity = items;
    }
    if (texts > list->text_capacity) {
        debug_text *grown = sr_realloc(list->texts, texts * sizeof *grown);
        if (!grown)
            return false;
        list->texts = grown;
        list->text_capacity = texts;
    }
    if (bytes > list->byte_capacity) {
        char *grown = sr_realloc(list->bytes, bytes);
        if (!grown)
            return false;
        list->bytes = grown;
        list->byte_capacity = bytes;
    }
    return true;
}

sr_status sr_debug_list_create(const sr_debug_list_desc *desc, sr_debug_list **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_list_create: out is NULL");
    *out = NULL;
    sr_debug_list_desc d = desc ? *desc : (sr_debug_list_desc){0};
    sr_debug_list *list = sr_calloc(1, sizeof *list);
    if (!list ||
        !reserve(list, d.segment_capacity ? d.segment_capacity : DEFAULT_SEGMENTS,
                 d.text_capacity ? d.text_capacity : DEFAULT_TEXTS, d.text_bytes ? d.text_bytes : DEFAULT_TEXT_BYTES)) {
        sr_debug_list_destroy(list);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_debug_list_create: out of memory");
    }
    *out = list;
    return SR_OK;
}

void sr_debug_list_destroy(sr_debug_list *list)
{
    if (!list)
        return;
    sr_free(list->items);
    sr_free(list->scratch);
    sr_free(list->texts);
    sr_free(list->bytes);
    sr_free(list);
}

sr_status sr_debug_list_clear(sr_debug_list *list, sr_error *err)
{
    if (!list)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_list_clear: list is NULL");
    size_t items = list->items_asked, texts = list->texts_asked, bytes = list->bytes_asked;
    list->generation++;
    list->item_count = list->text_count = list->byte_count = 0;
    list->items_asked = list->texts_asked = list->bytes_asked = 0;
    // Grow by half again over the demand, so that a slowly growing frame does not grow every time.
    if (!reserve(list, items > list->item_capacity ? items + items / 2 : 0,
                 texts > list->text_capacity ? texts + texts / 2 : 0,
                 bytes > list->byte_capacity ? bytes + bytes / 2 : 0))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_debug_list_clear: out of memory growing the list");
    return SR_OK;
}

sr_debug_list_stats sr_debug_list_get_stats(const sr_debug_list *list)
{
    if (!list)
        return (sr_debug_list_stats){0};
    return (sr_debug_list_stats){
        .segments = list->item_count,
        .texts = list->text_count,
        .text_bytes = list->byte_count,
        .segments_dropped = list->items_asked - list->item_count,
        .texts_dropped = list->texts_asked - list->text_count,
        .segment_capacity = list->item_capacity,
        .text_capacity = list->text_capacity,
        .text_byte_capacity = list->byte_capacity,
    };
}

uint64_t sr_debug_list_generation(const sr_debug_list *list)
{
    return list ? list->generation : 0;
}

void sr_debug_add_item(sr_debug_list *list, const debug_item *item)
{
    list->generation++;
    list->items_asked++;
    if (list->item_count < list->item_capacity)
        list->items[list->item_count++] = *item;
}

/* ---- 3D items ---- */

void sr_debug_line(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_debug_style style)
{
    if (!list)
        return;
    debug_item item = {.a = a,
                       .b = b,
                       .color = style_color(style),
                       .width = style_width(style),
                       .on_top = style.on_top,
                       .kind = ITEM_SEGMENT};
    sr_debug_add_item(list, &item);
}

void sr_debug_polyline(sr_debug_list *list, const sr_vec3 *points, size_t count, bool closed, sr_debug_style style)
{
    if (!list || !points)
        return;
    for (size_t i = 0; i + 1 < count; i++)
        sr_debug_line(list, points[i], points[i + 1], style);
    if (closed && count > 2)
        sr_debug_line(list, points[count - 1], points[0], style);
}

/* Two unit vectors perpendicular to `d` and to each other (d need not be unit length). */
static void perpendiculars(sr_vec3 d, sr_vec3 *u, sr_vec3 *v)
{
    sr_vec3 n = sr_vec3_normalize(d);
    if (sr_vec3_length(n) == 0.0f)
        n = sr_vec3_make(0.0f, 1.0f, 0.0f);
    sr_vec3 helper = fabsf(n.x) < 0.6f ? sr_vec3_make(1.0f, 0.0f, 0.0f) : sr_vec3_make(0.0f, 0.0f, 1.0f);
    *u = sr_vec3_normalize(sr_vec3_cross(n, helper));
    *v = sr_vec3_cross(n, *u);
}

/* A circle of CIRCLE_SEGMENTS segments around `centre` in the plane of unit vectors u, v: one
 * polyline, so its joints are drawn once. `first`..`last` of the segments (a half circle: 0 to
 * CIRCLE_SEGMENTS / 2). */
static void arc(sr_debug_list *list, sr_vec3 centre, sr_vec3 u, sr_vec3 v, float radius, int first, int last,
                sr_debug_style style)
{
    sr_vec3 previous = {0, 0, 0};
    for (int i = first; i <= last; i++) {
        // Index CIRCLE_SEGMENTS is index 0 again, bit for bit, so a full circle closes exactly.
        int k = i % CIRCLE_SEGMENTS;
        float angle = 2.0f * SR_PI * (float)k / (float)CIRCLE_SEGMENTS;
        sr_vec3 p = sr_vec3_add(
            centre, sr_vec3_add(sr_vec3_scale(u, radius * cosf(angle)), sr_vec3_scale(v, radius * sinf(angle))));
        if (i > first)
            sr_debug_line(list, previous, p, style);
        previous = p;
    }
}

void sr_debug_arrow(sr_debug_list *list, sr_vec3 from, sr_vec3 to, sr_debug_style style)
{
    if (!list)
        return;
    sr_debug_line(list, from, to, style);
    sr_vec3 d = sr_vec3_sub(to, from);
    float length = sr_vec3_length(d);
    if (!(length > 0.0f) || !isfinite(length))
        return;
    // Four barbs, a sixth of the length long, opening at 20 degrees.
    sr_vec3 u, v;
    perpendiculars(d, &u, &v);
    float head = length / 6.0f, spread = head * 0.36397f; // tan(20 degrees)
    sr_vec3 back = sr_vec3_sub(to, sr_vec3_scale(d, head / length));
    const sr_vec3 sides[4] = {u, sr_vec3_negate(u), v, sr_vec3_negate(v)};
    for (int i = 0; i < 4; i++)
        sr_debug_line(list, to, sr_vec3_add(back, sr_vec3_scale(sides[i], spread)), style);
}

void sr_debug_ray(sr_debug_list *list, const sr_ray *ray, float length, sr_debug_style style)
{
    if (!list || !ray)
        return;
    float t = length;
    if (!(t > 0.0f) || !isfinite(t))
        t = isfinite(ray->tmax) && ray->tmax > 0.0f ? ray->tmax : 1000.0f;
    sr_debug_arrow(list, ray->origin, sr_ray_at(ray, t), style);
}

void sr_debug_point(sr_debug_list *list, sr_vec3 point, float size_px, sr_debug_style style)
{
    if (!list)
        return;
    debug_item item = {.a = point,
                       .size = size_px > 0.0f && isfinite(size_px) ? size_px : 8.0f,
                       .color = style_color(style),
                       .width = style_width(style),
                       .on_top = style.on_top,
                       .kind = ITEM_MARKER};
    sr_debug_add_item(list, &item);
}

void sr_debug_box(sr_debug_list *list, sr_aabb box, sr_mat4 transform, sr_debug_style style)
{
    if (!list || sr_aabb_is_empty(box))
        return;
    sr_vec3 c[8];
    for (int i = 0; i < 8; i++)
        c[i] = sr_mat4_transform_point(
            transform,
            sr_vec3_make(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z));
    // Bottom and top rings as closed polylines, then the four uprights.
    const int ring[5] = {0, 1, 3, 2, 0};
    for (int level = 0; level < 2; level++)
        for (int i = 0; i < 4; i++)
            sr_debug_line(list, c[ring[i] + 4 * level], c[ring[i + 1] + 4 * level], style);
    for (int i = 0; i < 4; i++)
        sr_debug_line(list, c[ring[i]], c[ring[i] + 4], style);
}

void sr_debug_aabb(sr_debug_list *list, sr_aabb box, sr_debug_style style)
{
    sr_debug_box(list, box, sr_mat4_identity(), style);
}

void sr_debug_obb(sr_debug_list *list, const sr_obb *box, sr_debug_style style)
{
    if (!box)
        return;
    sr_mat4 m = sr_mat4_identity();
    for (int axis = 0; axis < 3; axis++) {
        m.m[axis * 4 + 0] = box->axes[axis].x;
        m.m[axis * 4 + 1] = box->axes[axis].y;
        m.m[axis * 4 + 2] = box->axes[axis].z;
    }
    m.m[12] = box->centre.x;
    m.m[13] = box->centre.y;
    m.m[14] = box->centre.z;
    sr_debug_box(list, (sr_aabb){sr_vec3_negate(box->half_extents), box->half_extents}, m, style);
}

void sr_debug_sphere(sr_debug_list *list, sr_vec3 centre, float radius, sr_debug_style style)
{
    if (!list || !(radius >= 0.0f))
        return;
    const sr_vec3 x = {1, 0, 0}, y = {0, 1, 0}, z = {0, 0, 1};
    arc(list, centre, x, y, radius, 0, CIRCLE_SEGMENTS, style);
    arc(list, centre, y, z, radius, 0, CIRCLE_SEGMENTS, style);
    arc(list, centre, z, x, radius, 0, CIRCLE_SEGMENTS, style);
}

void sr_debug_cylinder(sr_debug_list *list, sr_vec3 a, sr_vec3 b, float radius, sr_debug_style style)
{
    if (!list || !(radius >= 0.0f))
        return;
    sr_vec3 u, v;
    perpendiculars(sr_vec3_sub(b, a), &u, &v);
    arc(list, a, u, v, radius, 0, CIRCLE_SEGMENTS, style);
    arc(list, b, u, v, radius, 0, CIRCLE_SEGMENTS, style);
    const sr_vec3 sides[4] = {u, v, sr_vec3_negate(u), sr_vec3_negate(v)};
    for (int i = 0; i < 4; i++) {
        sr_vec3 offset = sr_vec3_scale(sides[i], radius);
        sr_debug_line(list, sr_vec3_add(a, offset), sr_vec3_add(b, offset), style);
    }
}

void sr_debug_capsule(sr_debug_list *list, sr_vec3 a, sr_vec3 b, float radius, sr_debug_style style)
{
    if (!list || !(radius >= 0.0f))
        return;
    sr_vec3 axis = sr_vec3_sub(b, a);
    sr_vec3 u, v;
    perpendiculars(axis, &u, &v);
    sr_vec3 n = sr_vec3_normalize(axis);
    if (sr_vec3_length(n) == 0.0f)
        n = sr_vec3_cross(u, v);
    sr_debug_cylinder(list, a, b, radius, style);
    // Half circles over each end, in the two planes through the axis.
    arc(list, b, u, n, radius, 0, CIRCLE_SEGMENTS / 2, style);
    arc(list, b, v, n, radius, 0, CIRCLE_SEGMENTS / 2, style);
    sr_vec3 m = sr_vec3_negate(n);
    arc(list, a, u, m, radius, 0, CIRCLE_SEGMENTS / 2, style);
    arc(list, a, v, m, radius, 0, CIRCLE_SEGMENTS / 2, style);
}

void sr_debug_cone(sr_debug_list *list, sr_vec3 apex, sr_vec3 base, float radius, sr_debug_style style)
{
    if (!list || !(radius >= 0.0f))
        return;
    sr_vec3 u, v;
    perpendiculars(sr_vec3_sub(apex, base), &u, &v);
    arc(list, base, u, v, radius, 0, CIRCLE_SEGMENTS, style);
    const sr_vec3 sides[4] = {u, v, sr_vec3_negate(u), sr_vec3_negate(v)};
    for (int i = 0; i < 4; i++)
        sr_debug_line(list, apex, sr_vec3_add(base, sr_vec3_scale(sides[i], radius)), style);
}

void sr_debug_frustum(sr_debug_list *list, sr_mat4 view_projection, sr_debug_style style)
{
    if (!list)
        return;
    sr_mat4 inverse;
    if (!sr_mat4_inverse(view_projection, &inverse))
        return;
    // The clip cube's corners (x, y in [-1, 1], z in [0, 1]) back in world space.
    sr_vec3 c[8];
    for (int i = 0; i < 8; i++)
        c[i] = sr_mat4_transform_point_projective(
            inverse, sr_vec3_make(i & 1 ? 1.0f : -1.0f, i & 2 ? 1.0f : -1.0f, i & 4 ? 1.0f : 0.0f));
    const int ring[5] = {0, 1, 3, 2, 0};
    for (int level = 0; level < 2; level++)
        for (int i = 0; i < 4; i++)
            sr_debug_line(list, c[ring[i] + 4 * level], c[ring[i + 1] + 4 * level], style);
    for (int i = 0; i < 4; i++)
        sr_debug_line(list, c[ring[i]], c[ring[i] + 4], style);
}

void sr_debug_camera_frustum(sr_debug_list *list, const sr_camera *camera, int width, int height, sr_debug_style style)
{
    if (!list || !camera)
        return;
    sr_mat4 view, projection;
    sr_camera_matrices(camera, width, height, &view, &projection);
    sr_debug_frustum(list, sr_mat4_mul(projection, view), style);
}

void sr_debug_axes(sr_debug_list *list, sr_mat4 transform, float length, sr_debug_style style)
{
    if (!list)
        return;
    sr_vec3 origin = sr_mat4_transform_point(transform, sr_vec3_make(0, 0, 0));
    const uint32_t colors[3] = {sr_rgba8(0.95f, 0.25f, 0.2f, 1.0f), sr_rgba8(0.3f, 0.9f, 0.3f, 1.0f),
                                sr_rgba8(0.3f, 0.5f, 1.0f, 1.0f)};
    for (int axis = 0; axis < 3; axis++) {
        sr_vec3 unit = {axis == 0 ? length : 0.0f, axis == 1 ? length : 0.0f, axis == 2 ? length : 0.0f};
        sr_debug_style s = style;
        s.color = colors[axis];
        sr_debug_arrow(list, origin, sr_mat4_transform_point(transform, unit), s);
    }
}

void sr_debug_grid(sr_debug_list *list, sr_vec3 centre, float size, int divisions, sr_debug_style style)
{
    if (!list || !(size > 0.0f) || divisions < 1 || divisions > 4096)
        return;
    float half = 0.5f * size;
    uint32_t color = style_color(style);
    // The centre lines stand out: the colour at full alpha, the others at half.
    uint32_t faint = (color & 0x00ffffffu) | ((color >> 25) << 24);
    for (int i = 0; i <= divisions; i++) {
        float offset = -half + size * (float)i / (float)divisions;
        sr_debug_style s = style;
        s.color = 2 * i == divisions ? color : faint;
        sr_debug_line(list, sr_vec3_make(centre.x + offset, centre.y, centre.z - half),
                      sr_vec3_make(centre.x + offset, centre.y, centre.z + half), s);
        sr_debug_line(list, sr_vec3_make(centre.x - half, centre.y, centre.z + offset),
                      sr_vec3_make(centre.x + half, centre.y, centre.z + offset), s);
    }
}

void sr_debug_triangle(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_debug_style style)
{
    const sr_vec3 points[3] = {a, b, c};
    sr_debug_polyline(list, points, 3, true, style);
}

/* ---- text and 2D items ---- */

static void add_text(sr_debug_list *list, sr_vec3 anchor, bool is_2d, const char *text, sr_debug_style style)
{
    if (!list || !text)
        return;
    size_t length = strlen(text) + 1;
    list->generation++;
    list->texts_asked++;
    list->bytes_asked += length;
    if (list->text_count >= list->text_capacity || length > list->byte_capacity - list->byte_count)
        return;
    memcpy(list->bytes + list->byte_count, text, length);
    list->texts[list->text_count++] = (debug_text){
        .anchor = anchor,
        .color = style_color(style),
        .offset = (uint32_t)list->byte_count,
        .scale = style_width(style),
        .on_top = style.on_top,
        .is_2d = is_2d,
    };
    list->byte_count += length;
}

void sr_debug_text(sr_debug_list *list, sr_vec3 anchor, const char *text, sr_debug_style style)
{
    add_text(list, anchor, false, text, style);
}

void sr_debug_text_2d(sr_debug_list *list, float x, float y, const char *text, sr_debug_style style)
{
    add_text(list, sr_vec3_make(x, y, 0.0f), true, text, style);
}

void sr_debug_rect_2d(sr_debug_list *list, float x, float y, float width, float height, bool filled,
                      sr_debug_style style)
{
    if (!list)
        return;
    debug_item item = {.a = {x, y, 0.0f},
                       .b = {width, height, 0.0f},
                       .color = style_color(style),
                       .width = style_width(style),
                       .on_top = true,
                       .kind = (uint8_t)(filled ? ITEM_FILLED_RECT : ITEM_RECT)};
    sr_debug_add_item(list, &item);
}
