/* src/debug/debug_tessellate.c — a debug item's parameters turned into what the rasteriser
 * draws, at sr_debug_draw time: line segments (circles of 32, boxes of 12 edges, arrows of a
 * line and four barbs), filled triangles (fans of polygons and circles), and the crosses and
 * rectangle outlines made in normalised device coordinates. Also what each item costs, which
 * the list checks against its capacities when the item is added: the two are kept side by side
 * here so that they cannot drift apart. Knows nothing of the list's storage or of rasterising. */
#include "debug_internal.h"

#define CIRCLE SR_DEBUG_CIRCLE_SEGMENTS

/* ---- what an item costs ---- */

/* Segments of an arrow from `from` to `to`: the shaft, and four barbs when it has a length. */
static size_t arrow_segments(sr_vec3 from, sr_vec3 to)
{
    float length = sr_vec3_length(sr_vec3_sub(to, from));
    return length > 0.0f && isfinite(length) ? 5 : 1;
}

debug_cost sr_debug_item_cost(const sr_debug_item *item)
{
    debug_cost cost = {0};
    switch (item->kind) {
    case SR_DEBUG_ITEM_LINE:
        cost.segments = 1;
        break;
    case SR_DEBUG_ITEM_ARROW:
        cost.segments = arrow_segments(item->line.a, item->line.b);
        break;
    case SR_DEBUG_ITEM_POINT:
        cost.segments = 2;
        break;
    case SR_DEBUG_ITEM_DOT:
        break;
    case SR_DEBUG_ITEM_BOX:
    case SR_DEBUG_ITEM_FRUSTUM:
        cost.segments = 12;
        break;
    case SR_DEBUG_ITEM_SPHERE:
        cost.segments = 3 * CIRCLE;
        break;
    case SR_DEBUG_ITEM_ORIENTED_SPHERE:
        cost.segments = 3 * CIRCLE + 5;
        break;
    case SR_DEBUG_ITEM_CYLINDER:
        cost.segments = 2 * CIRCLE + 4;
        break;
    case SR_DEBUG_ITEM_CAPSULE:
        cost.segments = 2 * CIRCLE + 4 + 4 * (CIRCLE / 2);
        break;
    case SR_DEBUG_ITEM_CONE:
        cost.segments = CIRCLE + 4;
        break;
    case SR_DEBUG_ITEM_CIRCLE:
        cost.segments = CIRCLE;
        cost.triangles = item->circle.fill_color >> 24 ? CIRCLE : 0;
        break;
    case SR_DEBUG_ITEM_AXES: {
        sr_mat4 m = item->axes.transform;
        sr_vec3 origin = sr_mat4_transform_point(m, sr_vec3_make(0, 0, 0));
        float length = item->axes.length;
        for (int axis = 0; axis < 3; axis++) {
            sr_vec3 unit = {axis == 0 ? length : 0.0f, axis == 1 ? length : 0.0f, axis == 2 ? length : 0.0f};
            cost.segments += arrow_segments(origin, sr_mat4_transform_point(m, unit));
        }
        break;
    }
    case SR_DEBUG_ITEM_GRID:
        cost.segments = 2 * ((size_t)item->grid.divisions + 1);
        break;
    case SR_DEBUG_ITEM_TRIANGLE:
        cost.segments = 3;
        cost.triangles = item->triangle.fill_color >> 24 ? 1 : 0;
        break;
    case SR_DEBUG_ITEM_POLYLINE: {
        size_t count = item->polyline.count;
        bool closed = item->polyline.closed && count > 2;
        cost.points = count;
        cost.segments = count < 2 ? 0 : count - 1 + closed;
        cost.triangles = closed && item->polyline.fill_color >> 24 ? count - 2 : 0;
        break;
    }
    case SR_DEBUG_ITEM_TEXT:
    case SR_DEBUG_ITEM_TEXT_2D:
        cost.bytes = (size_t)item->text.length + 1;
        break;
    case SR_DEBUG_ITEM_RECT_2D:
        cost.segments = item->rect.filled ? 0 : 4;
        break;
    case SR_DEBUG_ITEM_SHAPE:
        cost.segments = sr_debug_shape_segments(item);
        cost.points = item->shape.type == SR_SHAPE_HULL ? item->shape.count : 0;
        break;
    case SR_DEBUG_ITEM_KIND_COUNT:
        break;
    }
    return cost;
}

/* ---- segments and triangles ---- */

/* A colour as line vertex floats. */
static void unpack(uint32_t rgba, float out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = (float)(rgba >> (8 * k) & 0xffu) / 255.0f;
}

/* Appends the segment p-q, coloured color_p at p and color_q at q. A segment both of whose
 * colours are fully transparent would blend to nothing: it is left out. */
void sr_debug_sink_segment(debug_sink *sink, sr_vec3 p, sr_vec3 q, uint32_t color_p, uint32_t color_q)
{
    if (!((color_p | color_q) >> 24))
        return;
    sr_line_vertex *v = &sink->segments[2 * sink->segment_count++];
    v[0].position = p;
    v[1].position = q;
    unpack(color_p, v[0].color);
    unpack(color_q, v[1].color);
}

static void line(debug_sink *sink, sr_vec3 p, sr_vec3 q, uint32_t color)
{
    sr_debug_sink_segment(sink, p, q, color, color);
}

static void triangle(debug_sink *sink, sr_vec3 a, sr_vec3 b, sr_vec3 c, uint32_t color)
{
    if (!(color >> 24))
        return;
    sr_line_vertex *v = &sink->triangles[3 * sink->triangle_count++];
    v[0].position = a;
    v[1].position = b;
    v[2].position = c;
    unpack(color, v[0].color);
    for (int k = 0; k < 4; k++)
        v[1].color[k] = v[2].color[k] = v[0].color[k];
}

/* Two unit vectors perpendicular to `d` and to each other (d need not be unit length; a zero d
 * is taken as +Y). */
static void perpendiculars(sr_vec3 d, sr_vec3 *u, sr_vec3 *v)
{
    sr_vec3 n = sr_vec3_normalize(d);
    if (sr_vec3_length(n) == 0.0f)
        n = sr_vec3_make(0.0f, 1.0f, 0.0f);
    sr_vec3 helper = fabsf(n.x) < 0.6f ? sr_vec3_make(1.0f, 0.0f, 0.0f) : sr_vec3_make(0.0f, 0.0f, 1.0f);
    *u = sr_vec3_normalize(sr_vec3_cross(n, helper));
    *v = sr_vec3_cross(n, *u);
}

/* Point k of the circle of CIRCLE segments around `centre` in the plane of unit vectors u, v.
 * Index CIRCLE is index 0 again, bit for bit, so a full circle closes exactly. */
static sr_vec3 circle_point(sr_vec3 centre, sr_vec3 u, sr_vec3 v, float radius, int k)
{
    float angle = 2.0f * SR_PI * (float)(k % CIRCLE) / (float)CIRCLE;
    return sr_vec3_add(centre,
                       sr_vec3_add(sr_vec3_scale(u, radius * cosf(angle)), sr_vec3_scale(v, radius * sinf(angle))));
}

/* Segments `first` to `last` of that circle, as one polyline (its joints drawn once by
 * sr_draw_lines): 0 to CIRCLE is the full circle, 0 to CIRCLE / 2 a half circle. */
static void arc(debug_sink *sink, sr_vec3 centre, sr_vec3 u, sr_vec3 v, float radius, int first, int last,
                uint32_t color)
{
    sr_vec3 previous = circle_point(centre, u, v, radius, first);
    for (int i = first + 1; i <= last; i++) {
        sr_vec3 p = circle_point(centre, u, v, radius, i);
        line(sink, previous, p, color);
        previous = p;
    }
}

static void arrow(debug_sink *sink, sr_vec3 from, sr_vec3 to, uint32_t color)
{
    line(sink, from, to, color);
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
        line(sink, to, sr_vec3_add(back, sr_vec3_scale(sides[i], spread)), color);
}

/* The 12 edges of the box of corners c[0..7] (bit 0: x, bit 1: y, bit 2: z): bottom and top
 * rings, each a closed polyline, then the four uprights. */
static void box_edges(debug_sink *sink, const sr_vec3 c[8], uint32_t color)
{
    const int ring[5] = {0, 1, 3, 2, 0};
    for (int level = 0; level < 2; level++)
        for (int i = 0; i < 4; i++)
            line(sink, c[ring[i] + 4 * level], c[ring[i + 1] + 4 * level], color);
    for (int i = 0; i < 4; i++)
        line(sink, c[ring[i]], c[ring[i] + 4], color);
}

static void cylinder(debug_sink *sink, sr_vec3 a, sr_vec3 b, float radius, uint32_t color)
{
    sr_vec3 u, v;
    perpendiculars(sr_vec3_sub(b, a), &u, &v);
    arc(sink, a, u, v, radius, 0, CIRCLE, color);
    arc(sink, b, u, v, radius, 0, CIRCLE, color);
    const sr_vec3 sides[4] = {u, v, sr_vec3_negate(u), sr_vec3_negate(v)};
    for (int i = 0; i < 4; i++) {
        sr_vec3 offset = sr_vec3_scale(sides[i], radius);
        line(sink, sr_vec3_add(a, offset), sr_vec3_add(b, offset), color);
    }
}

static void capsule(debug_sink *sink, sr_vec3 a, sr_vec3 b, float radius, uint32_t color)
{
    sr_vec3 axis = sr_vec3_sub(b, a);
    sr_vec3 u, v;
    perpendiculars(axis, &u, &v);
    sr_vec3 n = sr_vec3_normalize(axis);
    if (sr_vec3_length(n) == 0.0f)
        n = sr_vec3_cross(u, v);
    cylinder(sink, a, b, radius, color);
    // Half circles over each end, in the two planes through the axis.
    arc(sink, b, u, n, radius, 0, CIRCLE / 2, color);
    arc(sink, b, v, n, radius, 0, CIRCLE / 2, color);
    sr_vec3 m = sr_vec3_negate(n);
    arc(sink, a, u, m, radius, 0, CIRCLE / 2, color);
    arc(sink, a, v, m, radius, 0, CIRCLE / 2, color);
}

static void cone(debug_sink *sink, sr_vec3 apex, sr_vec3 base, float radius, uint32_t color)
{
    sr_vec3 u, v;
    perpendiculars(sr_vec3_sub(apex, base), &u, &v);
    arc(sink, base, u, v, radius, 0, CIRCLE, color);
    const sr_vec3 sides[4] = {u, v, sr_vec3_negate(u), sr_vec3_negate(v)};
    for (int i = 0; i < 4; i++)
        line(sink, apex, sr_vec3_add(base, sr_vec3_scale(sides[i], radius)), color);
}

/* A sphere's three great circles in the planes of the unit axes x, y, z (XY, YZ, ZX). */
static void sphere(debug_sink *sink, sr_vec3 centre, const sr_vec3 axes[3], float radius, uint32_t color)
{
    arc(sink, centre, axes[0], axes[1], radius, 0, CIRCLE, color);
    arc(sink, centre, axes[1], axes[2], radius, 0, CIRCLE, color);
    arc(sink, centre, axes[2], axes[0], radius, 0, CIRCLE, color);
}

/* A circle in the plane perpendicular to `normal`: the fill as a fan from the centre, then the
 * outline through the very same points. */
static void circle(debug_sink *sink, const sr_debug_item_circle *c, uint32_t color)
{
    sr_vec3 u, v;
    perpendiculars(c->normal, &u, &v);
    if (c->fill_color >> 24)
        for (int k = 0; k < CIRCLE; k++)
            triangle(sink, c->centre, circle_point(c->centre, u, v, c->radius, k),
                     circle_point(c->centre, u, v, c->radius, k + 1), c->fill_color);
    arc(sink, c->centre, u, v, c->radius, 0, CIRCLE, color);
}

static void frustum(debug_sink *sink, sr_mat4 view_projection, uint32_t color)
{
    sr_mat4 inverse;
    if (!sr_mat4_inverse(view_projection, &inverse))
        return;
    // The clip cube's corners (x, y in [-1, 1], z in [0, 1]) back in world space.
    sr_vec3 c[8];
    for (int i = 0; i < 8; i++)
        c[i] = sr_mat4_transform_point_projective(
            inverse, sr_vec3_make(i & 1 ? 1.0f : -1.0f, i & 2 ? 1.0f : -1.0f, i & 4 ? 1.0f : 0.0f));
    box_edges(sink, c, color);
}

static void axes(debug_sink *sink, sr_mat4 transform, float length)
{
    sr_vec3 origin = sr_mat4_transform_point(transform, sr_vec3_make(0, 0, 0));
    const uint32_t colors[3] = {SR_DEBUG_RED, SR_DEBUG_GREEN, SR_DEBUG_BLUE};
    for (int axis = 0; axis < 3; axis++) {
        sr_vec3 unit = {axis == 0 ? length : 0.0f, axis == 1 ? length : 0.0f, axis == 2 ? length : 0.0f};
        arrow(sink, origin, sr_mat4_transform_point(transform, unit), colors[axis]);
    }
}

static void grid(debug_sink *sink, const sr_debug_item_grid *g, uint32_t color)
{
    sr_vec3 centre = g->centre;
    float half = 0.5f * g->size;
    // The centre lines stand out: the colour at full alpha, the others at half.
    uint32_t faint = (color & 0x00ffffffu) | ((color >> 25) << 24);
    for (int i = 0; i <= g->divisions; i++) {
        float offset = -half + g->size * (float)i / (float)g->divisions;
        uint32_t c = 2 * i == g->divisions ? color : faint;
        line(sink, sr_vec3_make(centre.x + offset, centre.y, centre.z - half),
             sr_vec3_make(centre.x + offset, centre.y, centre.z + half), c);
        line(sink, sr_vec3_make(centre.x - half, centre.y, centre.z + offset),
             sr_vec3_make(centre.x + half, centre.y, centre.z + offset), c);
    }
}

/* A polyline, closed or not, and filled as a fan from its first point when closed with a fill
 * colour: fill first, outline over it. */
static void polyline(debug_sink *sink, const sr_vec3 *points, size_t count, bool closed, uint32_t fill,
                     uint32_t color)
{
    closed = closed && count > 2;
    if (closed && fill >> 24)
        for (size_t i = 1; i + 1 < count; i++)
            triangle(sink, points[0], points[i], points[i + 1], fill);
    for (size_t i = 0; i + 1 < count; i++)
        line(sink, points[i], points[i + 1], color);
    if (closed)
        line(sink, points[count - 1], points[0], color);
}

/* Window pixel (x, y) at window depth z as a normalised device coordinate point. */
static sr_vec3 ndc_of(const debug_view *view, float x, float y, float z)
{
    return sr_vec3_make(x / (float)view->width * 2.0f - 1.0f, 1.0f - y / (float)view->height * 2.0f, z);
}

/* A marker: a diagonal cross `size` pixels wide around the point's pixel position, in
 * normalised device coordinates; nothing when the point is behind the eye or outside the depth
 * range. A diagonal cross stays readable on horizontal and vertical edges. */
static void marker(debug_sink *sink, const sr_debug_item *item, const debug_view *view)
{
    sr_vec4 clip = sr_mat4_mul_vec4(view->view_projection, sr_vec4_from_vec3(item->point.position, 1.0f));
    if (!(clip.w > 0.0f) || !(clip.z >= 0.0f && clip.z <= clip.w))
        return;
    float x = (clip.x / clip.w + 1.0f) * 0.5f * (float)view->width;
    float y = (1.0f - clip.y / clip.w) * 0.5f * (float)view->height;
    float z = clip.z / clip.w, half = 0.5f * item->point.size_px;
    uint32_t color = item->style.color;
    line(sink, ndc_of(view, x - half, y - half, z), ndc_of(view, x + half, y + half, z), color);
    line(sink, ndc_of(view, x - half, y + half, z), ndc_of(view, x + half, y - half, z), color);
}

/* A 2D rectangle's outline through the centres of its border pixels. */
static void rect_outline(debug_sink *sink, const sr_debug_item_rect *r, const debug_view *view, uint32_t color)
{
    float x0 = r->x + 0.5f, y0 = r->y + 0.5f;
    float x1 = r->x + r->width - 0.5f, y1 = r->y + r->height - 0.5f;
    sr_vec3 corners[4] = {ndc_of(view, x0, y0, 0.0f), ndc_of(view, x1, y0, 0.0f), ndc_of(view, x1, y1, 0.0f),
                          ndc_of(view, x0, y1, 0.0f)};
    for (int k = 0; k < 4; k++)
        line(sink, corners[k], corners[(k + 1) % 4], color);
}

void sr_debug_tessellate(const sr_debug_item *item, const sr_vec3 *points, const debug_view *view, debug_sink *sink)
{
    uint32_t color = item->style.color;
    switch (item->kind) {
    case SR_DEBUG_ITEM_LINE:
        sr_debug_sink_segment(sink, item->line.a, item->line.b, color, item->line.color_b);
        break;
    case SR_DEBUG_ITEM_ARROW:
        arrow(sink, item->line.a, item->line.b, color);
        break;
    case SR_DEBUG_ITEM_POINT:
        marker(sink, item, view);
        break;
    case SR_DEBUG_ITEM_BOX: {
        const sr_aabb *box = &item->box.box;
        sr_vec3 c[8];
        for (int i = 0; i < 8; i++)
            c[i] = sr_mat4_transform_point(item->box.transform,
                                           sr_vec3_make(i & 1 ? box->max.x : box->min.x, i & 2 ? box->max.y : box->min.y,
                                                        i & 4 ? box->max.z : box->min.z));
        box_edges(sink, c, color);
        break;
    }
    case SR_DEBUG_ITEM_SPHERE: {
        const sr_vec3 unit[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        sphere(sink, item->sphere.centre, unit, item->sphere.radius, color);
        break;
    }
    case SR_DEBUG_ITEM_ORIENTED_SPHERE: {
        const sr_debug_item_sphere *s = &item->sphere;
        const sr_vec3 local[3] = {sr_quat_rotate(s->rotation, sr_vec3_make(1, 0, 0)),
                                  sr_quat_rotate(s->rotation, sr_vec3_make(0, 1, 0)),
                                  sr_quat_rotate(s->rotation, sr_vec3_make(0, 0, 1))};
        sphere(sink, s->centre, local, s->radius, color);
        // The local +X axis as an arrow to the surface: it lies in two of the circles' planes, so
        // seen along one of them its shaft hides in that circle's edge-on line, its head does not.
        arrow(sink, s->centre, sr_vec3_add(s->centre, sr_vec3_scale(local[0], s->radius)), color);
        break;
    }
    case SR_DEBUG_ITEM_CAPSULE:
        capsule(sink, item->segment.a, item->segment.b, item->segment.radius, color);
        break;
    case SR_DEBUG_ITEM_CYLINDER:
        cylinder(sink, item->segment.a, item->segment.b, item->segment.radius, color);
        break;
    case SR_DEBUG_ITEM_CONE:
        cone(sink, item->segment.a, item->segment.b, item->segment.radius, color);
        break;
    case SR_DEBUG_ITEM_CIRCLE:
        circle(sink, &item->circle, color);
        break;
    case SR_DEBUG_ITEM_FRUSTUM:
        frustum(sink, item->frustum.view_projection, color);
        break;
    case SR_DEBUG_ITEM_AXES:
        axes(sink, item->axes.transform, item->axes.length);
        break;
    case SR_DEBUG_ITEM_GRID:
        grid(sink, &item->grid, color);
        break;
    case SR_DEBUG_ITEM_TRIANGLE: {
        const sr_vec3 corners[3] = {item->triangle.a, item->triangle.b, item->triangle.c};
        polyline(sink, corners, 3, true, item->triangle.fill_color, color);
        break;
    }
    case SR_DEBUG_ITEM_POLYLINE:
        polyline(sink, points, item->polyline.count, item->polyline.closed, item->polyline.fill_color, color);
        break;
    case SR_DEBUG_ITEM_RECT_2D:
        if (!item->rect.filled)
            rect_outline(sink, &item->rect, view, color);
        break;
    case SR_DEBUG_ITEM_SHAPE:
        sr_debug_shape_tessellate(item, points, sink);
        break;
    case SR_DEBUG_ITEM_DOT:
    case SR_DEBUG_ITEM_TEXT:
    case SR_DEBUG_ITEM_TEXT_2D:
    case SR_DEBUG_ITEM_KIND_COUNT:
        break; // drawn pixel by pixel (debug_draw.c)
    }
}
