/* src/debug/debug_shape.c — collide shapes (softrast/collide.h) in a debug list: sr_debug_shape
 * keeps a SR_DEBUG_ITEM_SHAPE item of the shape's parameters in float (a hull's wire copied into
 * the list's points, so that the hull need not outlive the call), and at draw time the item is
 * turned into its wire (debug_shape_wire.c) through its pose. Also the item's cost and its replay
 * (sr_debug_list_append). Knows the collide module's public shapes; nothing of rasterising. */
#include "debug_internal.h"

/* ---- the wire of an item ---- */

/* Two unit vectors across unit `z` (and each other), so that x, y, z is right-handed. */
static void across(sr_vec3 z, sr_vec3 *x, sr_vec3 *y)
{
    sr_vec3 helper = fabsf(z.x) < 0.6f ? sr_vec3_make(1.0f, 0.0f, 0.0f) : sr_vec3_make(0.0f, 0.0f, 1.0f);
    *x = sr_vec3_normalize(sr_vec3_cross(helper, z));
    *y = sr_vec3_cross(z, *x);
}

static const sr_vec3 local_axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* The capsule of radius r around the segment a-b (a sphere when they coincide). */
static void capsule_between(debug_wire *wire, sr_vec3 a, sr_vec3 b, float r)
{
    sr_vec3 d = sr_vec3_sub(b, a);
    float length = sr_vec3_length(d);
    sr_vec3 axes[3];
    axes[2] = length > 0.0f ? sr_vec3_scale(d, 1.0f / length) : sr_vec3_make(0.0f, 0.0f, 1.0f);
    across(axes[2], &axes[0], &axes[1]);
    const sr_vec2 core[2] = {{0.0f, -0.5f * length}, {0.0f, 0.5f * length}};
    sr_debug_wire_revolved(wire, sr_vec3_scale(sr_vec3_add(a, b), 0.5f), axes, core, 2, r);
}

/* Fills edge_faces[2 e], [2 e + 1] of a small polytope by walking its faces' loops. */
static void find_edge_faces(const sr_hull_view *view, uint32_t *edge_faces)
{
    for (size_t e = 0; e < 2 * view->edge_count; e++)
        edge_faces[e] = UINT32_MAX;
    for (size_t f = 0; f < view->face_count; f++) {
        const sr_hull_face *face = &view->faces[f];
        for (uint32_t k = 0; k < face->count; k++) {
            uint32_t a = view->face_vertices[face->first + k];
            uint32_t b = view->face_vertices[face->first + (k + 1) % face->count];
            for (size_t e = 0; e < view->edge_count; e++) {
                uint32_t u = view->edges[2 * e], v = view->edges[2 * e + 1];
                if ((u == a && v == b) || (u == b && v == a)) {
                    edge_faces[2 * e + (edge_faces[2 * e] != UINT32_MAX)] = (uint32_t)f;
                    break;
                }
            }
        }
    }
}

/* A box of half extents h as a polytope: corner i has the signs of its bits (x 1, y 2, z 4), the
 * faces +x, -x, +y, -y, +z, -z counter-clockwise from outside. */
static void box_wire(debug_wire *wire, sr_vec3 h, float rounding)
{
    static const uint32_t loops[24] = {1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3, 0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1};
    static const uint32_t edges[24] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 4, 6, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7};
    sr_dvec3 vertices[8];
    for (int i = 0; i < 8; i++)
        vertices[i] = sr_dvec3_make(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z);
    sr_hull_face faces[6];
    for (uint32_t f = 0; f < 6; f++) {
        double sign = f % 2 ? -1.0 : 1.0;
        faces[f] = (sr_hull_face){
            .first = 4 * f,
            .count = 4,
            .normal = sr_dvec3_make(f / 2 == 0 ? sign : 0, f / 2 == 1 ? sign : 0, f / 2 == 2 ? sign : 0)};
    }
    sr_hull_view view = {.dimension = 3,
                         .vertices = vertices,
                         .vertex_count = 8,
                         .faces = faces,
                         .face_count = 6,
                         .face_vertices = loops,
                         .edges = edges,
                         .edge_count = 12};
    uint32_t edge_faces[24];
    find_edge_faces(&view, edge_faces);
    sr_debug_wire_polytope(wire, &view, edge_faces, rounding);
}

static void triangle_wire(debug_wire *wire, const sr_vec3 p[3], float rounding)
{
    if (!(rounding > 0.0f)) {
        for (int k = 0; k < 3; k++)
            sr_debug_wire_line(wire, p[k], p[(k + 1) % 3]);
        return;
    }
    sr_dvec3 v[3];
    for (int k = 0; k < 3; k++)
        v[k] = sr_dvec3_from_vec3(p[k]);
    sr_dvec3 n = sr_dvec3_cross(sr_dvec3_sub(v[1], v[0]), sr_dvec3_sub(v[2], v[0]));
    double area = sr_dvec3_length(n);
    double longest = 0.0;
    int far = 0;
    for (int k = 0; k < 3; k++) {
        double length = sr_dvec3_length(sr_dvec3_sub(v[(k + 1) % 3], v[k]));
        if (length > longest) {
            longest = length;
            far = k;
        }
    }
    if (!(area > 1e-12 * longest * longest)) {
        // A triangle with no area is its longest edge: rounded, a capsule.
        capsule_between(wire, p[far], p[(far + 1) % 3], rounding);
        return;
    }
    n = sr_dvec3_scale(n, 1.0 / area);
    // Its two sides, each edge joining them.
    static const uint32_t loops[6] = {0, 1, 2, 0, 2, 1};
    static const uint32_t edges[6] = {0, 1, 1, 2, 2, 0};
    static const uint32_t edge_faces[6] = {0, 1, 0, 1, 0, 1};
    const sr_hull_face faces[2] = {{.first = 0, .count = 3, .normal = n},
                                   {.first = 3, .count = 3, .normal = sr_dvec3_negate(n)}};
    sr_hull_view view = {.dimension = 2,
                         .vertices = v,
                         .vertex_count = 3,
                         .faces = faces,
                         .face_count = 2,
                         .face_vertices = loops,
                         .edges = edges,
                         .edge_count = 3};
    sr_debug_wire_polytope(wire, &view, edge_faces, rounding);
}

/* The wire of a shape item in its local frame; a hull's from its pairs of points. */
static void shape_wire(debug_wire *wire, const sr_debug_item_shape *s, const sr_vec3 *points)
{
    float h = s->half_height, r = s->radius;
    switch (s->type) {
    case SR_SHAPE_POINT:
    case SR_SHAPE_SPHERE: {
        const sr_vec2 core[1] = {{0.0f, 0.0f}};
        float radius = (s->type == SR_SHAPE_SPHERE ? r : 0.0f) + s->rounding;
        if (radius > 0.0f)
            sr_debug_wire_revolved(wire, sr_vec3_make(0, 0, 0), local_axes, core, 1, radius);
        break;
    }
    case SR_SHAPE_SEGMENT:
        if (s->rounding > 0.0f)
            capsule_between(wire, s->points[0], s->points[1], s->rounding);
        else
            sr_debug_wire_line(wire, s->points[0], s->points[1]);
        break;
    case SR_SHAPE_TRIANGLE:
        triangle_wire(wire, s->points, s->rounding);
        break;
    case SR_SHAPE_BOX:
        box_wire(wire, s->half_extents, s->rounding);
        break;
    case SR_SHAPE_CAPSULE: {
        const sr_vec2 core[2] = {{0.0f, -h}, {0.0f, h}};
        sr_debug_wire_revolved(wire, sr_vec3_make(0, 0, 0), local_axes, core, 2, r + s->rounding);
        break;
    }
    case SR_SHAPE_CYLINDER: {
        const sr_vec2 core[4] = {{0.0f, -h}, {r, -h}, {r, h}, {0.0f, h}};
        sr_debug_wire_revolved(wire, sr_vec3_make(0, 0, 0), local_axes, core, 4, s->rounding);
        break;
    }
    case SR_SHAPE_CONE: {
        const sr_vec2 core[3] = {{0.0f, -h}, {r, -h}, {0.0f, h}};
        sr_debug_wire_revolved(wire, sr_vec3_make(0, 0, 0), local_axes, core, 3, s->rounding);
        break;
    }
    case SR_SHAPE_HULL:
        for (uint32_t k = 0; points && k + 1 < s->count; k += 2)
            sr_debug_wire_line(wire, points[k], points[k + 1]);
        break;
    default:
        break;
    }
}

size_t sr_debug_shape_segments(const sr_debug_item *item)
{
    if (item->shape.type == SR_SHAPE_HULL)
        return item->shape.count / 2;
    debug_wire counter = {0};
    shape_wire(&counter, &item->shape, NULL);
    return counter.count;
}

void sr_debug_shape_tessellate(const sr_debug_item *item, const sr_vec3 *points, debug_sink *sink)
{
    const sr_debug_item_shape *s = &item->shape;
    debug_wire wire = {.sink = sink, .position = s->position, .color = item->style.color};
    for (int k = 0; k < 3; k++)
        wire.axes[k] = sr_quat_rotate(s->rotation, local_axes[k]);
    shape_wire(&wire, s, points);
}

/* ---- adding ---- */

/* A hull's wire in its own frame (rounding included). */
static void hull_wire(debug_wire *wire, const sr_hull_view *view, float rounding)
{
    if (view->vertex_count == 0)
        return;
    sr_vec3 first = sr_dvec3_to_vec3(view->vertices[0]);
    if (view->dimension == 0) {
        const sr_vec2 core[1] = {{0.0f, 0.0f}};
        if (rounding > 0.0f)
            sr_debug_wire_revolved(wire, first, local_axes, core, 1, rounding);
    } else if (view->dimension == 1 && rounding > 0.0f) {
        capsule_between(wire, first, sr_dvec3_to_vec3(view->vertices[1]), rounding);
    } else {
        sr_debug_wire_polytope(wire, view, view->edge_faces, rounding);
    }
}

/* A unit float rotation of a pose's (a zero rotation is the identity). */
static sr_quat pose_rotation(sr_dquat q)
{
    return sr_quat_normalize(sr_quat_make((float)q.x, (float)q.y, (float)q.z, (float)q.w));
}

void sr_debug_shape(sr_debug_list *list, const sr_shape *shape, sr_debug_style style)
{
    if (!list || !shape || sr_shape_validate(shape, NULL) != SR_OK)
        return;
    if (sr_shape_size(shape) == 0.0) {
        // A shape of no size (a point, a hull of one point, a zero box): a marker where it is.
        sr_debug_point(list, sr_dvec3_to_vec3(sr_shape_support(shape, sr_dvec3_make(1, 0, 0))), 8.0f, style);
        return;
    }
    sr_debug_item *item = sr_debug_list_begin(list, SR_DEBUG_ITEM_SHAPE, style);
    sr_debug_item_shape *s = &item->shape;
    s->type = shape->type;
    s->position = sr_dvec3_to_vec3(shape->pose.position);
    s->rotation = pose_rotation(shape->pose.rotation);
    s->radius = (float)shape->radius;
    s->half_height = (float)shape->half_height;
    s->rounding = (float)shape->rounding;
    s->half_extents = sr_dvec3_to_vec3(shape->half_extents);
    for (int k = 0; k < 3; k++)
        s->points[k] = sr_dvec3_to_vec3(shape->points[k]);
    sr_vec3 *space = NULL;
    if (shape->type == SR_SHAPE_HULL) {
        // Counted first, then written straight into the list when it fits (no copy, no
        // allocation); a wire too long for the list's points is dropped with the item.
        sr_hull_view view = sr_hull_get_view(shape->hull);
        debug_wire counter = {0};
        hull_wire(&counter, &view, s->rounding);
        if (counter.count > UINT32_MAX / 2)
            return;
        s->count = (uint32_t)(2 * counter.count);
        space = sr_debug_list_point_space(list, s->count);
        if (space) {
            debug_wire writer = {.pairs = space};
            hull_wire(&writer, &view, s->rounding);
        }
    }
    sr_debug_list_commit(list, item, space, NULL);
}

/* ---- replaying ---- */

static bool finite3(sr_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

void sr_debug_shape_append(sr_debug_list *list, const sr_debug_item *item, const sr_vec3 *points)
{
    const sr_debug_item_shape *s = &item->shape;
    bool hull = s->type == SR_SHAPE_HULL;
    bool sizes = s->radius >= 0.0f && s->half_height >= 0.0f && s->rounding >= 0.0f && s->half_extents.x >= 0.0f &&
                 s->half_extents.y >= 0.0f && s->half_extents.z >= 0.0f && isfinite(s->radius) &&
                 isfinite(s->half_height) && isfinite(s->rounding) && finite3(s->half_extents);
    bool placed = finite3(s->position) && finite3(s->points[0]) && finite3(s->points[1]) && finite3(s->points[2]) &&
                  isfinite(s->rotation.x) && isfinite(s->rotation.y) && isfinite(s->rotation.z) &&
                  isfinite(s->rotation.w);
    bool counted = hull ? s->count % 2 == 0 && (s->count == 0 || points) : s->count == 0;
    if ((unsigned)s->type >= SR_SHAPE_TYPE_COUNT || !sizes || !placed || !counted)
        return;
    sr_debug_item *copy = sr_debug_list_begin(list, SR_DEBUG_ITEM_SHAPE, item->style);
    copy->shape = *s;
    copy->shape.first = 0;
    // A unit rotation is kept bit for bit (a recorded item replays exactly); others normalised.
    float length = sqrtf(sr_quat_dot(s->rotation, s->rotation));
    if (!(fabsf(length - 1.0f) <= 1e-6f))
        copy->shape.rotation = sr_quat_normalize(s->rotation);
    sr_debug_list_commit(list, copy, hull ? points : NULL, NULL);
}
