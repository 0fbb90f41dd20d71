/* src/debug/debug_items.c — the functions that add items to a debug list (softrast/debug.h): each
 * checks its arguments and writes the item's parameters in place in the list's next slot
 * (sr_debug_list_begin), which the list then keeps or drops by its cost (sr_debug_list_commit);
 * nothing is tessellated here (debug_tessellate.c). sr_debug_list_append replays a stored item
 * through the same functions. Knows nothing of drawing. */
#include "debug_internal.h"

#include <float.h>
#include <string.h>

/* ---- 3D items ---- */

void sr_debug_line_gradient(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_debug_style style, uint32_t color_b)
{
    if (!list)
        return;
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_LINE, style);
    item->line = (sr_debug_item_line){.a = a, .b = b, .color_b = color_b};
    sr_debug_list_commit(list, item, NULL, NULL);
}

void sr_debug_line(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_debug_style style)
{
    sr_debug_line_gradient(list, a, b, style, style.color);
}

/* A polyline or polygon: `count` points, closed or not, filled with `fill` (alpha 0: not). */
static void add_polyline(sr_debug_list *list, const sr_vec3 *points, size_t count, bool closed, uint32_t fill,
                         sr_debug_style style)
{
    if (!list || !points || count < 2 || count > UINT32_MAX)
        return;
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_POLYLINE, style);
    item->polyline = (sr_debug_item_polyline){.count = (uint32_t)count, .closed = closed, .fill_color = fill};
    sr_debug_list_commit(list, item, points, NULL);
}

void sr_debug_polyline(sr_debug_list *list, const sr_vec3 *points, size_t count, bool closed, sr_debug_style style)
{
    add_polyline(list, points, count, closed, 0, style);
}

void sr_debug_polygon_filled(sr_debug_list *list, const sr_vec3 *points, size_t count, uint32_t fill_color,
                             sr_debug_style style)
{
    if (count >= 3)
        add_polyline(list, points, count, true, fill_color, style);
}

void sr_debug_arrow(sr_debug_list *list, sr_vec3 from, sr_vec3 to, sr_debug_style style)
{
    if (!list)
        return;
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_ARROW, style);
    item->line = (sr_debug_item_line){.a = from, .b = to, .color_b = item->style.color};
    sr_debug_list_commit(list, item, NULL, NULL);
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

static void add_point(sr_debug_list *list, sr_debug_item_kind kind, sr_vec3 point, float size_px, float default_size,
                      sr_debug_style style)
{
    if (!list)
        return;
    sr_debug_item *item = sr_debug_list_begin(list, kind, style);
    item->point = (sr_debug_item_point){.position = point,
                                       .size_px = size_px > 0.0f && isfinite(size_px) ? size_px : default_size};
    sr_debug_list_commit(list, item, NULL, NULL);
}

void sr_debug_point(sr_debug_list *list, sr_vec3 point, float size_px, sr_debug_style style)
{
    add_point(list, SR_DEBUG_ITEM_POINT, point, size_px, 8.0f, style);
}

void sr_debug_dot(sr_debug_list *list, sr_vec3 point, float size_px, sr_debug_style style)
{
    // Dots larger than the largest framebuffer side are not dots: clamped there.
    add_point(list, SR_DEBUG_ITEM_DOT, point, size_px > (float)SR_MAX_IMAGE_SIDE ? (float)SR_MAX_IMAGE_SIDE : size_px,
              6.0f, style);
}

void sr_debug_box(sr_debug_list *list, sr_aabb box, sr_mat4 transform, sr_debug_style style)
{
    if (!list || sr_aabb_is_empty(box))
        return;
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_BOX, style);
    item->box = (sr_debug_item_box){.box = box, .transform = transform};
    sr_debug_list_commit(list, item, NULL, NULL);
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

static void add_sphere(sr_debug_list *list, sr_debug_item_kind kind, sr_vec3 centre, sr_quat rotation, float radius,
                       sr_debug_style style)
{
    if (!list || !(radius >= 0.0f))
        return;
    sr_debug_item *item = sr_debug_list_begin(list, kind, style);
    item->sphere = (sr_debug_item_sphere){.centre = centre, .radius = radius, .rotation = rotation};
    sr_debug_list_commit(list, item, NULL, NULL);
}

void sr_debug_sphere(sr_debug_list *list, sr_vec3 centre, float radius, sr_debug_style style)
{
    add_sphere(list, SR_DEBUG_ITEM_SPHERE, centre, sr_quat_identity(), radius, style);
}

void sr_debug_sphere_oriented(sr_debug_list *list, sr_vec3 centre, sr_quat rotation, float radius,
                              sr_debug_style style)
{
    // A rotation that is no rotation (zero, NaN, infinite) draws the unrotated sphere.
    float length = sqrtf(sr_quat_dot(rotation, rotation));
    sr_quat unit = length > 0.0f && isfinite(length) ? sr_quat_normalize(rotation) : sr_quat_identity();
    add_sphere(list, SR_DEBUG_ITEM_ORIENTED_SPHERE, centre, unit, radius, style);
}

static void add_segment(sr_debug_list *list, sr_debug_item_kind kind, sr_vec3 a, sr_vec3 b, float radius,
                        sr_debug_style style)
{
    if (!list || !(radius >= 0.0f))
        return;
    sr_debug_item *item = sr_debug_list_begin(list, kind, style);
    item->segment = (sr_debug_item_segment){.a = a, .b = b, .radius = radius};
    sr_debug_list_commit(list, item, NULL, NULL);
}

void sr_debug_cylinder(sr_debug_list *list, sr_vec3 a, sr_vec3 b, float radius, sr_debug_style style)
{
    add_segment(list, SR_DEBUG_ITEM_CYLINDER, a, b, radius, style);
}

void sr_debug_capsule(sr_debug_list *list, sr_vec3 a, sr_vec3 b, float radius, sr_debug_style style)
{
    add_segment(list, SR_DEBUG_ITEM_CAPSULE, a, b, radius, style);
}

void sr_debug_cone(sr_debug_list *list, sr_vec3 apex, sr_vec3 base, float radius, sr_debug_style style)
{
    add_segment(list, SR_DEBUG_ITEM_CONE, apex, base, radius, style);
}

void sr_debug_circle_filled(sr_debug_list *list, sr_vec3 centre, sr_vec3 normal, float radius, uint32_t fill_color,
                            sr_debug_style style)
{
    if (!list || !(radius >= 0.0f))
        return;
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_CIRCLE, style);
    item->circle = (sr_debug_item_circle){.centre = centre, .normal = normal, .radius = radius, .fill_color = fill_color};
    sr_debug_list_commit(list, item, NULL, NULL);
}

void sr_debug_circle(sr_debug_list *list, sr_vec3 centre, sr_vec3 normal, float radius, sr_debug_style style)
{
    sr_debug_circle_filled(list, centre, normal, radius, 0, style);
}

void sr_debug_frustum(sr_debug_list *list, sr_mat4 view_projection, sr_debug_style style)
{
    sr_mat4 inverse;
    if (!list || !sr_mat4_inverse(view_projection, &inverse))
        return;
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_FRUSTUM, style);
    item->frustum.view_projection = view_projection;
    sr_debug_list_commit(list, item, NULL, NULL);
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
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_AXES, style);
    item->axes = (sr_debug_item_axes){.transform = transform, .length = length};
    sr_debug_list_commit(list, item, NULL, NULL);
}

void sr_debug_grid(sr_debug_list *list, sr_vec3 centre, float size, int divisions, sr_debug_style style)
{
    if (!list || !(size > 0.0f) || divisions < 1 || divisions > 4096)
        return;
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_GRID, style);
    item->grid = (sr_debug_item_grid){.centre = centre, .size = size, .divisions = divisions};
    sr_debug_list_commit(list, item, NULL, NULL);
}

void sr_debug_triangle_filled(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_vec3 c, uint32_t fill_color,
                              sr_debug_style style)
{
    if (!list)
        return;
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_TRIANGLE, style);
    item->triangle = (sr_debug_item_triangle){.a = a, .b = b, .c = c, .fill_color = fill_color};
    sr_debug_list_commit(list, item, NULL, NULL);
}

void sr_debug_triangle(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_debug_style style)
{
    sr_debug_triangle_filled(list, a, b, c, 0, style);
}

/* ---- text and 2D items ---- */

static void add_text(sr_debug_list *list, sr_debug_item_kind kind, sr_vec3 anchor, const char *text,
                     sr_debug_style style)
{
    if (!list || !text)
        return;
    size_t length = strlen(text);
    if (length >= UINT32_MAX)
        return;
    sr_debug_item *item = sr_debug_list_begin(list, kind, style);
    item->text = (sr_debug_item_text){.anchor = anchor, .length = (uint32_t)length};
    sr_debug_list_commit(list, item, NULL, text);
}

void sr_debug_text(sr_debug_list *list, sr_vec3 anchor, const char *text, sr_debug_style style)
{
    add_text(list, SR_DEBUG_ITEM_TEXT, anchor, text, style);
}

void sr_debug_text_2d(sr_debug_list *list, float x, float y, const char *text, sr_debug_style style)
{
    add_text(list, SR_DEBUG_ITEM_TEXT_2D, sr_vec3_make(x, y, 0.0f), text, style);
}

void sr_debug_rect_2d(sr_debug_list *list, float x, float y, float width, float height, bool filled,
                      sr_debug_style style)
{
    if (!list)
        return;
    style.on_top = true; // 2D items are always on top
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_RECT_2D, style);
    item->rect = (sr_debug_item_rect){.x = x, .y = y, .width = width, .height = height, .filled = filled};
    sr_debug_list_commit(list, item, NULL, NULL);
}

/* ---- replaying a stored item ---- */

void sr_debug_list_append(sr_debug_list *list, const sr_debug_item *item, const sr_vec3 *points, const char *text)
{
    if (!list || !item)
        return;
    sr_debug_style style = item->style;
    switch (item->kind) {
    case SR_DEBUG_ITEM_LINE:
        sr_debug_line_gradient(list, item->line.a, item->line.b, style, item->line.color_b);
        break;
    case SR_DEBUG_ITEM_ARROW:
        sr_debug_arrow(list, item->line.a, item->line.b, style);
        break;
    case SR_DEBUG_ITEM_POINT:
        sr_debug_point(list, item->point.position, item->point.size_px, style);
        break;
    case SR_DEBUG_ITEM_DOT:
        sr_debug_dot(list, item->point.position, item->point.size_px, style);
        break;
    case SR_DEBUG_ITEM_BOX:
        sr_debug_box(list, item->box.box, item->box.transform, style);
        break;
    case SR_DEBUG_ITEM_SPHERE:
        sr_debug_sphere(list, item->sphere.centre, item->sphere.radius, style);
        break;
    case SR_DEBUG_ITEM_ORIENTED_SPHERE: {
        // A rotation already of unit length (an item read back from a list) is kept bit for bit:
        // normalising a unit quaternion again may change its last bits, and a replayed item must
        // be the item that was recorded.
        sr_quat q = item->sphere.rotation;
        float length2 = sr_quat_dot(q, q);
        if (fabsf(length2 - 1.0f) <= 4.0f * FLT_EPSILON)
            add_sphere(list, SR_DEBUG_ITEM_ORIENTED_SPHERE, item->sphere.centre, q, item->sphere.radius, style);
        else
            sr_debug_sphere_oriented(list, item->sphere.centre, q, item->sphere.radius, style);
        break;
    }
    case SR_DEBUG_ITEM_CAPSULE:
        sr_debug_capsule(list, item->segment.a, item->segment.b, item->segment.radius, style);
        break;
    case SR_DEBUG_ITEM_CYLINDER:
        sr_debug_cylinder(list, item->segment.a, item->segment.b, item->segment.radius, style);
        break;
    case SR_DEBUG_ITEM_CONE:
        sr_debug_cone(list, item->segment.a, item->segment.b, item->segment.radius, style);
        break;
    case SR_DEBUG_ITEM_CIRCLE:
        sr_debug_circle_filled(list, item->circle.centre, item->circle.normal, item->circle.radius,
                               item->circle.fill_color, style);
        break;
    case SR_DEBUG_ITEM_FRUSTUM:
        sr_debug_frustum(list, item->frustum.view_projection, style);
        break;
    case SR_DEBUG_ITEM_AXES:
        sr_debug_axes(list, item->axes.transform, item->axes.length, style);
        break;
    case SR_DEBUG_ITEM_GRID:
        sr_debug_grid(list, item->grid.centre, item->grid.size, item->grid.divisions, style);
        break;
    case SR_DEBUG_ITEM_TRIANGLE:
        sr_debug_triangle_filled(list, item->triangle.a, item->triangle.b, item->triangle.c, item->triangle.fill_color,
                                 style);
        break;
    case SR_DEBUG_ITEM_POLYLINE:
        add_polyline(list, points, item->polyline.count, item->polyline.closed, item->polyline.fill_color, style);
        break;
    case SR_DEBUG_ITEM_TEXT:
        sr_debug_text(list, item->text.anchor, text, style);
        break;
    case SR_DEBUG_ITEM_TEXT_2D:
        sr_debug_text_2d(list, item->text.anchor.x, item->text.anchor.y, text, style);
        break;
    case SR_DEBUG_ITEM_RECT_2D:
        sr_debug_rect_2d(list, item->rect.x, item->rect.y, item->rect.width, item->rect.height, item->rect.filled,
                         style);
        break;
    case SR_DEBUG_ITEM_SHAPE:
        sr_debug_shape_append(list, item, points);
        break;
    case SR_DEBUG_ITEM_KIND_COUNT:
        break;
    }
}
