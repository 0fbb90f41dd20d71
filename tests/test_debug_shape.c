/* test_debug_shape.c — collide shapes in debug lists (sr_debug_shape, src/debug/debug_shape.c and
 * debug_shape_wire.c): every shape type's pixels against its wire projected independently
 * (tests/debug_curves.h: our own quaternion, double precision, not the renderer's matrices); the
 * rounded wires' ends on the rounded surface (sr_collide_signed_distance) and spanning its exact
 * bounds (sr_shape_bounds); what each item costs equal to what it draws; hulls copied (a hull freed
 * after the call draws the same), items read back and replayed, capacities, and bad input. */
#include <criterion/criterion.h>
#include <softrast/debug.h>

#include "../src/debug/debug_internal.h"
#include "debug_curves.h"
#include "debug_test_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t WIRE = 0xff20d8ffu; // opaque: pixels of exactly this colour are the wire's

/* A pose in view of the test frame's camera, turned about a skew axis so that every face and
 * ring is seen at an angle. */
static sr_pose test_pose(void)
{
    return sr_pose_make(sr_dvec3_make(0.05, 0.3, 0.1), sr_dquat_from_axis_angle(sr_dvec3_make(0.3, 1.0, 0.5), 0.8));
}

/* A hull of 10 points on an irregular ball (every one a vertex). */
static sr_hull *test_hull(void)
{
    sr_dvec3 points[10];
    for (int i = 0; i < 10; i++) {
        double a = 0.9 * i, b = 1.3 * i;
        points[i] = sr_dvec3_make(0.55 * cos(a) * cos(b), 0.45 * sin(b), 0.6 * sin(a) * cos(b));
    }
    sr_hull *hull = NULL;
    cr_assert_eq(sr_hull_create(points, 10, &hull, NULL), SR_OK);
    return hull;
}

/* ---- the expected wires, in the shape's local frame, placed by our own pose ---- */

typedef struct wires {
    curve curves[24];
    int count;
} wires;

static curve *next_curve(wires *w)
{
    cr_assert_lt(w->count, 24);
    curve *c = &w->curves[w->count++];
    c->count = 0;
    return c;
}

static void local_segment(wires *w, const frame *f, sr_pose pose, sr_dvec3 a, sr_dvec3 b)
{
    curve_segment(next_curve(w), &f->view, curve_pose_apply(pose, a), curve_pose_apply(pose, b));
}

/* The arc centre + radius (cos t u + sin t v), t from t0 to t1 (local). */
static void local_arc(wires *w, const frame *f, sr_pose pose, sr_dvec3 centre, sr_dvec3 u, sr_dvec3 v, double radius,
                      double t0, double t1)
{
    curve *c = next_curve(w);
    for (int i = 0; i <= 128; i++) {
        double t = t0 + (t1 - t0) * i / 128.0;
        sr_dvec3 p = {centre.x + radius * (cos(t) * u.x + sin(t) * v.x),
                      centre.y + radius * (cos(t) * u.y + sin(t) * v.y),
                      centre.z + radius * (cos(t) * u.z + sin(t) * v.z)};
        curve_add(c, &f->view, curve_pose_apply(pose, p));
    }
}

static const sr_dvec3 X = {1, 0, 0}, Y = {0, 1, 0}, Z = {0, 0, 1};

static sr_dvec3 dv(double x, double y, double z)
{
    return sr_dvec3_make(x, y, z);
}

/* What sr_debug_shape's documentation says each unrounded type draws. */
static void expected_wire(wires *w, const frame *f, const sr_shape *s)
{
    sr_pose pose = s->pose;
    double r = s->radius, h = s->half_height;
    const sr_dvec3 radial[4] = {X, Y, {-1, 0, 0}, {0, -1, 0}};
    switch (s->type) {
    case SR_SHAPE_SEGMENT:
        local_segment(w, f, pose, s->points[0], s->points[1]);
        break;
    case SR_SHAPE_TRIANGLE:
        for (int k = 0; k < 3; k++)
            local_segment(w, f, pose, s->points[k], s->points[(k + 1) % 3]);
        break;
    case SR_SHAPE_SPHERE: // the great circles of the local XY, YZ and ZX planes
        local_arc(w, f, pose, dv(0, 0, 0), X, Y, r, 0, 2 * M_PI);
        local_arc(w, f, pose, dv(0, 0, 0), Y, Z, r, 0, 2 * M_PI);
        local_arc(w, f, pose, dv(0, 0, 0), Z, X, r, 0, 2 * M_PI);
        break;
    case SR_SHAPE_BOX: {
        sr_dvec3 e = s->half_extents;
        for (int axis = 0; axis < 3; axis++)
            for (int k = 0; k < 4; k++) {
                double s1 = k & 1 ? 1 : -1, s2 = k & 2 ? 1 : -1;
                double a[3], b[3];
                int u = (axis + 1) % 3, v = (axis + 2) % 3;
                const double extent[3] = {e.x, e.y, e.z};
                a[axis] = -extent[axis], b[axis] = extent[axis];
                a[u] = b[u] = s1 * extent[u];
                a[v] = b[v] = s2 * extent[v];
                local_segment(w, f, pose, dv(a[0], a[1], a[2]), dv(b[0], b[1], b[2]));
            }
        break;
    }
    case SR_SHAPE_CAPSULE: // rings at the ends, four side lines, half circles over the ends
        local_arc(w, f, pose, dv(0, 0, -h), X, Y, r, 0, 2 * M_PI);
        local_arc(w, f, pose, dv(0, 0, h), X, Y, r, 0, 2 * M_PI);
        for (int m = 0; m < 4; m++) {
            sr_dvec3 d = radial[m];
            local_segment(w, f, pose, dv(r * d.x, r * d.y, -h), dv(r * d.x, r * d.y, h));
        }
        for (int m = 0; m < 2; m++) {
            local_arc(w, f, pose, dv(0, 0, h), radial[m], Z, r, 0, M_PI);
            local_arc(w, f, pose, dv(0, 0, -h), radial[m], dv(0, 0, -1), r, 0, M_PI);
        }
        break;
    case SR_SHAPE_CYLINDER:
        local_arc(w, f, pose, dv(0, 0, -h), X, Y, r, 0, 2 * M_PI);
        local_arc(w, f, pose, dv(0, 0, h), X, Y, r, 0, 2 * M_PI);
        for (int m = 0; m < 4; m++)
            local_segment(w, f, pose, dv(r * radial[m].x, r * radial[m].y, -h),
                          dv(r * radial[m].x, r * radial[m].y, h));
        break;
    case SR_SHAPE_CONE:
        local_arc(w, f, pose, dv(0, 0, -h), X, Y, r, 0, 2 * M_PI);
        for (int m = 0; m < 4; m++)
            local_segment(w, f, pose, dv(0, 0, h), dv(r * radial[m].x, r * radial[m].y, -h));
        break;
    case SR_SHAPE_HULL: {
        sr_hull_view view = sr_hull_get_view(s->hull);
        for (size_t e = 0; e < view.edge_count; e++)
            local_segment(w, f, pose, view.vertices[view.edges[2 * e]], view.vertices[view.edges[2 * e + 1]]);
        break;
    }
    case SR_SHAPE_POINT: { // a marker: a diagonal cross 8 pixels wide
        sr_dvec3 p = curve_pose_apply(pose, dv(0, 0, 0));
        test_pixel q = test_project(&f->view, p.x, p.y, p.z);
        for (int k = 0; k < 2; k++) {
            curve *c = next_curve(w);
            double sign = k ? -1 : 1;
            for (int i = 0; i <= 8; i++)
                curve_add_pixel(c, q.x - 4 + i, q.y - sign * 4 + sign * i);
        }
        break;
    }
    default:
        cr_assert_fail("type %d", s->type);
    }
}

/* One shape of every type, unrounded, at the test pose. */
static int every_type(sr_shape out[SR_SHAPE_TYPE_COUNT], const sr_hull *hull)
{
    out[SR_SHAPE_POINT] = sr_shape_point();
    out[SR_SHAPE_SEGMENT] = sr_shape_segment(dv(-0.6, -0.3, 0.1), dv(0.5, 0.4, -0.2));
    out[SR_SHAPE_TRIANGLE] = sr_shape_triangle(dv(-0.6, -0.4, 0), dv(0.6, -0.3, 0.1), dv(0.1, 0.6, -0.2));
    out[SR_SHAPE_SPHERE] = sr_shape_sphere(0.6);
    out[SR_SHAPE_BOX] = sr_shape_box(dv(0.6, 0.4, 0.3));
    out[SR_SHAPE_CAPSULE] = sr_shape_capsule(0.3, 0.45);
    out[SR_SHAPE_CYLINDER] = sr_shape_cylinder(0.45, 0.5);
    out[SR_SHAPE_CONE] = sr_shape_cone(0.5, 0.55);
    out[SR_SHAPE_HULL] = sr_shape_hull(hull);
    for (int t = 0; t < SR_SHAPE_TYPE_COUNT; t++)
        out[t].pose = test_pose();
    return SR_SHAPE_TYPE_COUNT;
}

Test(debug_shape, every_type_draws_its_wire_where_an_independent_projection_puts_it)
{
    sr_hull *hull = test_hull();
    sr_shape shapes[SR_SHAPE_TYPE_COUNT];
    every_type(shapes, hull);
    for (int t = 0; t < SR_SHAPE_TYPE_COUNT; t++) {
        frame f = frame_make(2, false);
        sr_debug_list *list = list_make();
        sr_debug_shape(list, &shapes[t], sr_debug_style_make(WIRE, 1, true));
        draw(&f, list);
        static wires expected;
        expected.count = 0;
        expected_wire(&expected, &f, &shapes[t]);
        int lit = curves_expect(f.fb->color, W, H, expected.curves, expected.count, WIRE, 1.5, sr_shape_type_name(t));
        cr_assert_gt(lit, t == SR_SHAPE_POINT ? 8 : 60, "%s: %d pixels", sr_shape_type_name(t), lit);
        // A point is a marker item; every other type one shape item of its parameters.
        size_t count = 0;
        const sr_debug_item *items = sr_debug_list_items(list, &count);
        cr_assert_eq(count, 1u);
        cr_assert_eq(items[0].kind, t == SR_SHAPE_POINT ? SR_DEBUG_ITEM_POINT : SR_DEBUG_ITEM_SHAPE);
        sr_debug_list_destroy(list);
        frame_free(&f);
    }
    sr_hull_destroy(hull);
}

/* ---- rounded shapes: the wire lies on the rounded surface and spans it ---- */

typedef struct tessellation {
    sr_line_vertex *segments;
    size_t count, cost;
} tessellation;

static tessellation tessellate(const sr_debug_list *list)
{
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(list, &count);
    cr_assert_eq(count, 1u);
    debug_cost cost = sr_debug_item_cost(&items[0]);
    tessellation t = {.segments = calloc(2 * cost.segments + 2, sizeof(sr_line_vertex)), .cost = cost.segments};
    debug_sink sink = {.segments = t.segments};
    const debug_view view = {.view_projection = sr_mat4_identity(), .width = W, .height = H};
    sr_debug_tessellate(&items[0], sr_debug_list_item_points(list, &items[0]), &view, &sink);
    t.count = sink.segment_count;
    return t;
}

/* The wire's segment ends against the shape: each within `tolerance` of its surface (the signed
 * distance of a point there is 0), and together reaching its exact box in its own frame on every
 * side (a ring of 32 segments falls short of its circle by 0.5% of its radius; in the world's
 * axes a turned sphere's great circles need not reach its box). */
static void expect_on_surface(const sr_shape *shape, const char *what)
{
    sr_debug_list *list = list_make();
    sr_debug_shape(list, shape, sr_debug_style_color(WIRE));
    tessellation t = tessellate(list);
    cr_assert_eq(t.count, t.cost, "%s: %zu segments drawn, %zu counted", what, t.count, t.cost);
    cr_assert_gt(t.count, 0u, "%s", what);
    double size = sr_shape_size(shape), tolerance = 2e-6 * (1 + size);
    sr_shape unposed = *shape;
    unposed.pose = sr_pose_identity();
    sr_dbox exact = sr_shape_bounds(&unposed);
    sr_dbox reached = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t k = 0; k < 2 * t.count; k++) {
        sr_vec3 p = t.segments[k].position;
        sr_shape point = sr_shape_with_pose(sr_shape_point(), sr_pose_make(sr_dvec3_from_vec3(p), sr_dquat_identity()));
        sr_collide_result r;
        sr_collide_signed_distance(shape, &point, NULL, &r);
        cr_assert_leq(fabs(r.distance), tolerance, "%s: wire point %zu (%g, %g, %g) is %g off the surface", what, k,
                      p.x, p.y, p.z, r.distance);
        sr_dvec3 q = sr_pose_apply_inverse(shape->pose, sr_dvec3_from_vec3(p));
        reached.min = (sr_dvec3){fmin(reached.min.x, q.x), fmin(reached.min.y, q.y), fmin(reached.min.z, q.z)};
        reached.max = (sr_dvec3){fmax(reached.max.x, q.x), fmax(reached.max.y, q.y), fmax(reached.max.z, q.z)};
    }
    // A rounded solid hull's corners are spheres whose patches are left to the arcs around them
    // (its faces and edges are drawn): its box may be reached only that far.
    bool corners = shape->type == SR_SHAPE_HULL && sr_hull_get_view(shape->hull).dimension == 3;
    double short_of = corners ? 0.3 * shape->rounding + 0.006 * size : 0.006 * size;
    const double lo[3] = {exact.min.x, exact.min.y, exact.min.z}, hi[3] = {exact.max.x, exact.max.y, exact.max.z};
    const double rlo[3] = {reached.min.x, reached.min.y, reached.min.z},
                 rhi[3] = {reached.max.x, reached.max.y, reached.max.z};
    for (int k = 0; k < 3; k++) {
        cr_assert_leq(rlo[k] - lo[k], short_of + tolerance, "%s: axis %d min %g of %g", what, k, rlo[k], lo[k]);
        cr_assert_leq(hi[k] - rhi[k], short_of + tolerance, "%s: axis %d max %g of %g", what, k, rhi[k], hi[k]);
    }
    free(t.segments);
    sr_debug_list_destroy(list);
}

Test(debug_shape, rounded_wires_lie_on_the_rounded_surface_and_span_its_bounds)
{
    sr_hull *hull = test_hull();
    sr_dvec3 flat_points[5], line_points[3] = {{-0.4, 0.1, 0}, {0.1, 0.2, 0.1}, {0.6, 0.3, 0.2}};
    for (int i = 0; i < 5; i++)
        flat_points[i] = dv(0.5 * cos(1.2566 * i), 0.1, 0.5 * sin(1.2566 * i));
    sr_hull *flat = NULL, *line = NULL, *one = NULL;
    cr_assert_eq(sr_hull_create(flat_points, 5, &flat, NULL), SR_OK);
    cr_assert_eq(sr_hull_create(line_points, 3, &line, NULL), SR_OK);
    cr_assert_eq(sr_hull_create(line_points + 1, 1, &one, NULL), SR_OK);
    cr_assert_eq(sr_hull_get_view(flat).dimension, 2);
    cr_assert_eq(sr_hull_get_view(line).dimension, 1);
    sr_shape shapes[SR_SHAPE_TYPE_COUNT + 9];
    int count = every_type(shapes, hull);
    // Degenerate ones: a disc, a needle, a flat cone, a flat box, a triangle with no area, flat,
    // segment and point hulls, a rounded point.
    shapes[count++] = sr_shape_cylinder(0.5, 0);
    shapes[count++] = sr_shape_cylinder(0, 0.5);
    shapes[count++] = sr_shape_cone(0.5, 0);
    shapes[count++] = sr_shape_box(dv(0.5, 0, 0.3));
    shapes[count++] = sr_shape_triangle(dv(-0.5, 0, 0), dv(0.1, 0, 0), dv(0.5, 0, 0));
    shapes[count++] = sr_shape_hull(flat);
    shapes[count++] = sr_shape_hull(line);
    shapes[count++] = sr_shape_hull(one);
    shapes[count++] = sr_shape_point();
    for (int rounded = 0; rounded < 2; rounded++)
        for (int i = 0; i < count; i++) {
            sr_shape s = shapes[i];
            s.pose = sr_pose_make(dv(0.3, -0.2, 0.7), sr_dquat_from_axis_angle(dv(0.3, 1.0, 0.5), 0.8 + i));
            s.rounding = rounded ? 0.12 : 0;
            if (sr_shape_size(&s) == 0)
                continue; // a marker (tested above)
            char what[64];
            snprintf(what, sizeof what, "%s %d%s", sr_shape_type_name(s.type), i, rounded ? " rounded" : "");
            expect_on_surface(&s, what);
        }
    sr_hull_destroy(hull);
    sr_hull_destroy(flat);
    sr_hull_destroy(line);
    sr_hull_destroy(one);
}

/* ---- the item: a hull's wire copied, read back, replayed, capacities ---- */

Test(debug_shape, a_hull_freed_after_the_call_draws_the_same_and_items_replay_to_the_same_pixels)
{
    sr_hull *hull = test_hull();
    sr_shape shapes[SR_SHAPE_TYPE_COUNT];
    every_type(shapes, hull);
    sr_debug_list *list = list_make(), *copy = list_make();
    frame before = frame_make(1, false);
    for (int rounded = 0; rounded < 2; rounded++)
        for (int t = 0; t < SR_SHAPE_TYPE_COUNT; t++) {
            sr_shape s = shapes[t];
            s.rounding = 0.1 * rounded;
            s.pose.position.x += 0.3 * (t - 4);
            sr_debug_shape(
                list, &s, sr_debug_style_make(sr_rgba8(0.2f + 0.08f * (float)t, 0.9f, 0.5f, 0.8f), 1 + rounded, false));
        }
    draw(&before, list);
    sr_hull_destroy(hull); // the list kept the hull's wire: nothing reads the hull from here on
    frame after = frame_make(1, false), replayed = frame_make(1, false);
    draw(&after, list);
    cr_assert(memcmp(before.fb->color, after.fb->color, W * H * 4) == 0);
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(list, &count);
    cr_assert_eq(count, 18u);
    for (size_t i = 0; i < count; i++) {
        const sr_vec3 *points = sr_debug_list_item_points(list, &items[i]);
        if (items[i].kind == SR_DEBUG_ITEM_SHAPE && items[i].shape.type == SR_SHAPE_HULL)
            cr_assert(points && items[i].shape.count > 0 && items[i].shape.count % 2 == 0);
        sr_debug_list_append(copy, &items[i], points, NULL);
    }
    size_t copied = 0;
    const sr_debug_item *again = sr_debug_list_items(copy, &copied);
    cr_assert_eq(copied, count);
    cr_assert(memcmp(items, again, count * sizeof *items) == 0);
    draw(&replayed, copy);
    cr_assert(memcmp(before.fb->color, replayed.fb->color, W * H * 4) == 0);
    // The parameters are what was given: a capsule is its radius and half height.
    cr_assert_eq(items[SR_SHAPE_CAPSULE].shape.radius, 0.3f);
    cr_assert_eq(items[SR_SHAPE_CAPSULE].shape.half_height, 0.45f);
    cr_assert_eq(items[SR_SHAPE_CAPSULE].shape.count, 0u);
    sr_debug_list_destroy(list);
    sr_debug_list_destroy(copy);
    frame_free(&before);
    frame_free(&after);
    frame_free(&replayed);
}

Test(debug_shape, a_wire_past_the_capacity_is_dropped_counted_and_fits_after_the_clear)
{
    sr_dvec3 points[200];
    for (int i = 0; i < 200; i++) { // a ball of 200 points: about 590 edges, 1180 wire points
        double z = -1 + (2 * i + 1) / 200.0, a = 2.39996 * i;
        points[i] = dv(sqrt(1 - z * z) * cos(a), sqrt(1 - z * z) * sin(a), z);
    }
    sr_hull *hull = NULL;
    cr_assert_eq(sr_hull_create(points, 200, &hull, NULL), SR_OK);
    sr_hull_view view = sr_hull_get_view(hull);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.point_capacity = 64}, &list, NULL), SR_OK);
    sr_shape shape = sr_shape_hull(hull);
    sr_debug_shape(list, &shape, sr_debug_style_color(WIRE));
    sr_debug_list_stats stats = sr_debug_list_get_stats(list);
    cr_assert_eq(stats.items, 0u);
    cr_assert_eq(stats.items_dropped, 1u);
    cr_assert_eq(stats.segments_dropped, view.edge_count);
    cr_assert_eq(sr_debug_list_clear(list, NULL), SR_OK);
    cr_assert_geq(sr_debug_list_get_stats(list).point_capacity, 2 * view.edge_count);
    sr_debug_shape(list, &shape, sr_debug_style_color(WIRE));
    stats = sr_debug_list_get_stats(list);
    cr_assert_eq(stats.items, 1u);
    cr_assert_eq(stats.points, 2 * view.edge_count);
    cr_assert_eq(stats.segments, view.edge_count);
    sr_debug_list_destroy(list);
    sr_hull_destroy(hull);
}

/* ---- bad input ---- */

Test(debug_shape, invalid_shapes_and_wild_items_draw_nothing_and_never_crash)
{
    sr_debug_list *list = list_make();
    sr_debug_style style = sr_debug_style_color(WIRE);
    sr_shape bad[6] = {sr_shape_sphere(-1), sr_shape_box(dv(1, NAN, 1)), sr_shape_capsule(0.5, INFINITY),
                       sr_shape_cone(1, 1), sr_shape_hull(NULL),         sr_shape_cylinder(1, 1)};
    bad[3].pose.rotation = (sr_dquat){0.5, 0, 0, 0.5}; // not unit
    bad[5].type = (sr_shape_type)77;
    for (int i = 0; i < 6; i++)
        sr_debug_shape(list, &bad[i], style);
    sr_debug_shape(list, NULL, style);
    sr_debug_shape(NULL, &bad[0], style);
    cr_assert_eq(sr_debug_list_get_stats(list).items, 0u);
    cr_assert_eq(sr_debug_list_get_stats(list).items_dropped, 0u);
    // Items as a damaged recording might hold them: replayed, refused or drawn, never a crash.
    uint32_t state = 12345;
    const sr_vec3 points[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 4000; i++) {
        sr_debug_item item;
        memset(&item, 0, sizeof item);
        item.kind = SR_DEBUG_ITEM_SHAPE;
        item.style = style;
        // Every float from the position to the points (22 of them, no padding between).
        unsigned char *fields = (unsigned char *)&item.shape.position;
        size_t floats = (size_t)((unsigned char *)&item.shape.first - fields) / sizeof(float);
        cr_assert_eq(floats, 22u);
        for (size_t k = 0; k < floats; k++) {
            state = state * 1664525u + 1013904223u;
            const float values[8] = {0.5f, -2.0f, 1e30f, -1e-30f, 0.0f, NAN, INFINITY, 3.0f};
            memcpy(fields + k * sizeof(float), &values[(state >> 12) % 8], sizeof(float));
        }
        state = state * 1664525u + 1013904223u;
        item.shape.type = (sr_shape_type)((state >> 8) % 11);
        item.shape.count = (state >> 20) % 6;
        sr_debug_list_append(list, &item, (state >> 4) % 3 ? points : NULL, NULL);
    }
    frame f = frame_make(2, false);
    draw(&f, list);
    for (size_t i = 0; i < (size_t)W * H; i++)
        cr_assert_eq(f.fb->depth[i], 1.0f);
    frame_free(&f);
    sr_debug_list_destroy(list);
}
