/* test_collide_shapes.c — the shapes of softrast/collide.h against the oracle of the collision
 * tests (tests/collide_oracle.h), on every shape of the generated pairs (every type, rounded,
 * flat and needle hulls, hulls with duplicate and inside points, scales 1e-3 and 1e3, poses 1e3
 * away): hulls against the brute-force polytope of the same points (dimension, vertices, faces
 * with coplanar triangles merged, edges once), support mappings against the closed forms (the
 * same support value, a point on the shape), sizes, and the bounding volumes of every shape (they
 * hold its support points and touch it). */
#include <criterion/criterion.h>

#include "collide_oracle.h"

#include <softrast/collide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEED 2026
#if defined(__SANITIZE_ADDRESS__)
#define SCALE 10
#else
#define SCALE 1
#endif

static uint64_t state = 99;

static sr_dvec3 random_direction(void)
{
    for (;;) {
        double v[3];
        for (int k = 0; k < 3; k++) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            v[k] = (double)(state >> 11) * 0x1p-52 - 1.0;
        }
        double length = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (length > 0.1 && length <= 1.0)
            return (sr_dvec3){v[0] / length, v[1] / length, v[2] / length};
    }
}

static double dot(sr_dvec3 a, sr_dvec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static sr_dvec3 sub(sr_dvec3 a, sr_dvec3 b)
{
    return (sr_dvec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

static double length(sr_dvec3 a)
{
    return sqrt(dot(a, a));
}

/* A generated shape made real: the library's (with its hull) and the oracle's body. */
typedef struct live_shape {
    oracle_shape source;
    sr_hull *hull;
    sr_shape shape;
    oracle_body body; /* large */
} live_shape;

static live_shape live;

/* Shape `k` (0: a, 1: b) of generated pair `index`. */
static void make_live(uint64_t index, int k)
{
    if (live.hull)
        sr_hull_destroy(live.hull);
    live.hull = NULL;
    oracle_shape a, b;
    oracle_generate_pair(SEED, index, &a, &b, NULL);
    live.source = k ? b : a;
    sr_error err = {0};
    if (live.source.type == SR_SHAPE_HULL)
        cr_assert_eq(sr_hull_create(live.source.points, live.source.point_count, &live.hull, &err), SR_OK,
                     "pair %llu: %s", (unsigned long long)index, err.message);
    live.shape = oracle_to_shape(&live.source, live.hull);
    oracle_body_make(&live.source, (sr_dvec3){0, 0, 0}, &live.body);
}

static void release_live(void)
{
    if (live.hull)
        sr_hull_destroy(live.hull);
    live.hull = NULL;
}

/* The hull of every generated point set against the brute-force polytope of the same points. */
Test(shapes, hulls_match_the_brute_force_polytope, .timeout = 300)
{
    static oracle_poly poly;
    size_t hulls = 0, failed = 0;
    for (uint64_t index = 0; index < 15000 / SCALE; index++) {
        for (int k = 0; k < 2; k++) {
            make_live(index, k);
            if (live.source.type != SR_SHAPE_HULL)
                continue;
            hulls++;
            oracle_poly_build(live.source.points, live.source.point_count, &poly);
            sr_hull_view view = sr_hull_get_view(live.hull);
            double extent = 0.0;
            for (size_t i = 0; i < live.source.point_count; i++)
                extent = fmax(extent, length(sub(live.source.points[i], live.source.points[0])));
            double tol = 1e-9 * extent;
            char problem[256] = "";
            if (view.dimension != poly.dimension)
                snprintf(problem, sizeof problem, "dimension %d, brute force %d", view.dimension, poly.dimension);
            else if ((int)view.vertex_count != poly.vertex_count)
                snprintf(problem, sizeof problem, "%zu vertices, brute force %d", view.vertex_count, poly.vertex_count);
            else if ((int)view.edge_count != poly.edge_count)
                snprintf(problem, sizeof problem, "%zu edges, brute force %d", view.edge_count, poly.edge_count);
            else if ((int)view.face_count != poly.face_count)
                snprintf(problem, sizeof problem, "%zu faces, brute force %d", view.face_count, poly.face_count);
            for (size_t i = 0; !problem[0] && i < view.vertex_count; i++) {
                /* Every vertex is an input point, bit for bit, and a brute-force vertex. */
                bool input = false, extreme = false;
                for (size_t j = 0; j < live.source.point_count && !input; j++)
                    input = memcmp(&view.vertices[i], &live.source.points[j], sizeof(sr_dvec3)) == 0;
                for (int j = 0; j < poly.vertex_count && !extreme; j++)
                    extreme = length(sub(view.vertices[i], poly.vertices[j])) <= tol;
                if (!input || !extreme)
                    snprintf(problem, sizeof problem, "vertex %zu (%.17g, %.17g, %.17g) is %s", i, view.vertices[i].x,
                             view.vertices[i].y, view.vertices[i].z,
                             !input ? "not an input point" : "not a vertex of the brute-force polytope");
            }
            for (size_t f = 0; !problem[0] && f < view.face_count; f++) {
                const sr_hull_face *face = &view.faces[f];
                bool matched = false;
                for (int g = 0; g < poly.face_count && !matched; g++)
                    matched = length(sub(face->normal, poly.faces[g].normal)) <= 1e-9 &&
                              fabs(face->offset - poly.faces[g].offset) <= tol;
                /* Its vertices on its plane, counter-clockwise seen from outside. */
                sr_dvec3 area = {0, 0, 0};
                bool on_plane = face->count >= 3;
                for (uint32_t v = 0; v < face->count; v++) {
                    sr_dvec3 p = view.vertices[view.face_vertices[face->first + v]];
                    sr_dvec3 q = view.vertices[view.face_vertices[face->first + (v + 1) % face->count]];
                    area = (sr_dvec3){area.x + p.y * q.z - p.z * q.y, area.y + p.z * q.x - p.x * q.z,
                                      area.z + p.x * q.y - p.y * q.x};
                    on_plane = on_plane && fabs(dot(face->normal, p) - face->offset) <= tol;
                }
                if (!matched || !on_plane || dot(area, face->normal) <= 0.0)
                    snprintf(problem, sizeof problem, "face %zu: %s", f,
                             !matched    ? "its plane is no face plane of the brute-force polytope"
                             : !on_plane ? "a vertex off its plane (or fewer than 3)"
                                         : "not counter-clockwise from outside");
            }
            for (size_t e = 0; !problem[0] && e < view.edge_count; e++)
                for (size_t g = e + 1; g < view.edge_count; g++) {
                    uint32_t a0 = view.edges[2 * e], a1 = view.edges[2 * e + 1];
                    uint32_t b0 = view.edges[2 * g], b1 = view.edges[2 * g + 1];
                    if ((a0 == b0 && a1 == b1) || (a0 == b1 && a1 == b0)) {
                        snprintf(problem, sizeof problem, "edge %zu listed twice", e);
                        break;
                    }
                }
            if (problem[0]) {
                failed++;
                if (failed <= 10) {
                    char *line = NULL;
                    size_t size = 0;
                    FILE *memory = open_memstream(&line, &size);
                    oracle_print_shape(memory, &live.source);
                    fclose(memory);
                    cr_log_error("hull of pair %llu shape %c: %s\n  %s", (unsigned long long)index, k ? 'b' : 'a',
                                 problem, line);
                    free(line);
                }
            }
        }
    }
    release_live();
    cr_log_info("%zu hulls", hulls);
    cr_assert_eq(failed, 0, "%zu of %zu hulls differ from the brute-force polytope", failed, hulls);
}

/* The support point of every shape in many directions: its value is the closed form's (to
 * rounding), it lies on the shape, and the core's support plus the core radius along the unit
 * direction is the shape's. Sizes are the closed form's too. */
Test(shapes, support_mappings_and_sizes, .timeout = 300)
{
    size_t shapes = 0, failed = 0;
    for (uint64_t index = 0; index < 4000 / SCALE; index++) {
        for (int k = 0; k < 2; k++) {
            make_live(index, k);
            shapes++;
            const sr_shape *s = &live.shape;
            double far = fabs(s->pose.position.x) + fabs(s->pose.position.y) + fabs(s->pose.position.z);
            double size = live.body.size, tol = 1e-12 * (size + far) + 1e-300;
            double own_size = sr_shape_size(s);
            if (!(fabs(own_size - size) <= 1e-12 * (size + far))) {
                failed++;
                cr_log_error("pair %llu shape %c (%s): size %.17g, closed form %.17g", (unsigned long long)index,
                             k ? 'b' : 'a', sr_shape_type_name(s->type), own_size, size);
            }
            double radius = sr_shape_core_radius(s);
            for (int d = 0; d < 64; d++) {
                sr_dvec3 n = random_direction();
                sr_dvec3 p = sr_shape_support(s, n), c = sr_shape_core_support(s, n);
                double value = dot(n, p), expected = dot(n, oracle_support(&live.body, n));
                double off = fabs(oracle_point_distance(&live.body, p, NULL));
                sr_dvec3 rebuilt = {c.x + radius * n.x, c.y + radius * n.y, c.z + radius * n.z};
                if (!(fabs(value - expected) <= tol * 4) || !(off <= tol * 4) ||
                    !(length(sub(rebuilt, p)) <= tol * 4)) {
                    failed++;
                    cr_log_error("pair %llu shape %c (%s): support along (%.17g, %.17g, %.17g) gives %.17g, closed "
                                 "form %.17g; %.3g off the shape; core + radius %.3g away",
                                 (unsigned long long)index, k ? 'b' : 'a', sr_shape_type_name(s->type), n.x, n.y, n.z,
                                 value, expected, off, length(sub(rebuilt, p)));
                    break;
                }
            }
        }
    }
    release_live();
    cr_assert_eq(failed, 0, "%zu support or size failures on %zu shapes", failed, shapes);
}

/* ---- closest points on primitives ---- */

static double uniform(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) * 0x1p-53;
}

static sr_dvec3 random_point(double extent)
{
    double x = (2.0 * uniform() - 1.0) * extent;
    double y = (2.0 * uniform() - 1.0) * extent;
    double z = (2.0 * uniform() - 1.0) * extent;
    return (sr_dvec3){x, y, z};
}

/* The oracle's body of a point set (a segment, triangle or tetrahedron: the hull of its points). */
static void body_of_points(const sr_dvec3 *points, size_t count, oracle_body *out)
{
    oracle_shape s;
    memset(&s, 0, sizeof s);
    s.type = SR_SHAPE_HULL;
    s.pose.rotation = (sr_dquat){0, 0, 0, 1};
    s.point_count = count;
    memcpy(s.points, points, count * sizeof *points);
    oracle_body_make(&s, (sr_dvec3){0, 0, 0}, out);
}

/* Points against segments, triangles, boxes and tetrahedra (degenerate ones one time in four:
 * repeated or collinear corners, flat tetrahedra), and segments against segments: the library's
 * closest point is on the primitive and as near as the oracle's. */
Test(shapes, closest_points_on_primitives, .timeout = 300)
{
    static oracle_body body, other;
    size_t failed = 0;
    for (int i = 0; i < 20000 / SCALE; i++) {
        sr_dvec3 c[4];
        for (int k = 0; k < 4; k++)
            c[k] = random_point(1.0);
        int degenerate = (int)(uniform() * 8);
        if (degenerate == 1)
            c[1] = c[0];
        else if (degenerate == 2)
            c[2] = (sr_dvec3){0.5 * (c[0].x + c[1].x), 0.5 * (c[0].y + c[1].y), 0.5 * (c[0].z + c[1].z)};
        else if (degenerate == 3) /* flat tetrahedron */
            c[3] = (sr_dvec3){c[0].x + c[1].x - c[2].x, c[0].y + c[1].y - c[2].y, c[0].z + c[1].z - c[2].z};
        sr_dvec3 p = random_point(1.5);
        if (uniform() < 0.2) /* on or inside */
            p = (sr_dvec3){(c[0].x + c[1].x + c[2].x) / 3, (c[0].y + c[1].y + c[2].y) / 3,
                           (c[0].z + c[1].z + c[2].z) / 3};
        const char *what[4] = {"segment", "triangle", "tetrahedron", "box"};
        for (int kind = 0; kind < 4; kind++) {
            sr_dvec3 q;
            if (kind == 0) {
                q = sr_collide_closest_point_segment(p, c[0], c[1], NULL);
                body_of_points(c, 2, &body);
            } else if (kind == 1) {
                q = sr_collide_closest_point_triangle(p, c[0], c[1], c[2], NULL);
                body_of_points(c, 3, &body);
            } else if (kind == 2) {
                q = sr_collide_closest_point_tetrahedron(p, c[0], c[1], c[2], c[3]);
                body_of_points(c, 4, &body);
            } else {
                oracle_shape box;
                memset(&box, 0, sizeof box);
                box.type = SR_SHAPE_BOX;
                box.half_extents = (sr_dvec3){fabs(c[0].x) + 0.1, fabs(c[0].y) + 0.1, fabs(c[0].z) + 0.1};
                box.pose.position = c[1];
                double angle = 6.283 * uniform();
                sr_dvec3 axis = c[2];
                double l = length(axis), s = sin(angle / 2) / l;
                box.pose.rotation = (sr_dquat){axis.x * s, axis.y * s, axis.z * s, cos(angle / 2)};
                q = sr_collide_closest_point_box(p, box.pose, box.half_extents);
                oracle_body_make(&box, (sr_dvec3){0, 0, 0}, &body);
            }
            double expected = fmax(0.0, oracle_point_distance(&body, p, NULL));
            double got = length(sub(q, p)), off = oracle_point_distance(&body, q, NULL);
            if (!(fabs(got - expected) <= 1e-12) || !(off <= 1e-12)) {
                failed++;
                cr_log_error("%d: closest point on the %s%s: %.17g away (oracle %.17g), %.3g off it", i, what[kind],
                             degenerate >= 1 && degenerate <= 3 ? " (degenerate)" : "", got, expected, off);
            }
        }
        /* Segment against segment (parallel ones too). */
        sr_dvec3 d[2] = {c[2], c[3]};
        if (uniform() < 0.2) /* parallel */
            d[1] = (sr_dvec3){c[2].x + (c[1].x - c[0].x) * 0.7, c[2].y + (c[1].y - c[0].y) * 0.7,
                              c[2].z + (c[1].z - c[0].z) * 0.7};
        sr_dvec3 q1, q2;
        double squared = sr_collide_closest_segment_segment(c[0], c[1], d[0], d[1], &q1, &q2);
        body_of_points(c, 2, &body);
        body_of_points(d, 2, &other);
        oracle_answer truth;
        oracle_solve_bodies(&body, &other, 1.0, &truth);
        double expected = fmax(0.0, truth.distance);
        if (!(fabs(sqrt(squared) - expected) <= 1e-12) || !(fabs(length(sub(q1, q2)) - expected) <= 1e-12) ||
            !(oracle_point_distance(&body, q1, NULL) <= 1e-12) || !(oracle_point_distance(&other, q2, NULL) <= 1e-12)) {
            failed++;
            cr_log_error("%d: segment-segment: squared %.17g (distance %.17g), points %.17g apart, oracle %.17g", i,
                         squared, sqrt(squared), length(sub(q1, q2)), expected);
        }
    }
    cr_assert_eq(failed, 0, "%zu closest-point failures", failed);
}

/* ---- bounding volumes ---- */

/* Every bounding volume of every shape of the generated pairs holds the shape's support points
 * (the oracle's, in 200 directions) and touches the shape: the box and k-DOP on each of their
 * planes (exact), the OBB on each face, the sphere at its farthest point. */
Test(bounds, hold_and_touch_every_shape, .timeout = 600)
{
    size_t shapes = 0, failed = 0;
    for (uint64_t index = 0; index < 3000 / SCALE; index++) {
        for (int k = 0; k < 2; k++) {
            make_live(index, k);
            const sr_shape *shape = &live.shape;
            const oracle_body *body = &live.body;
            double size = body->size > 0.0 ? body->size : 1.0;
            double far = fabs(shape->pose.position.x) + fabs(shape->pose.position.y) + fabs(shape->pose.position.z);
            double tol = 1e-9 * size + 1e-12 * far;
            sr_dbox box = sr_shape_bounds(shape);
            sr_dobb obb;
            sr_dsphere sphere;
            sr_kdop kdop;
            sr_error err = {0};
            cr_assert_eq(sr_shape_obb(shape, &obb, &err), SR_OK, "%s", err.message);
            cr_assert_eq(sr_shape_bounding_sphere(shape, &sphere, &err), SR_OK, "%s", err.message);
            cr_assert_eq(sr_shape_kdop(shape, 26, &kdop, &err), SR_OK, "%s", err.message);
            double farthest = 0.0;
            for (int d = 0; d < 200; d++) {
                sr_dvec3 n = random_direction(), p = oracle_support(body, n);
                bool in_box = p.x >= box.min.x - tol && p.x <= box.max.x + tol && p.y >= box.min.y - tol &&
                              p.y <= box.max.y + tol && p.z >= box.min.z - tol && p.z <= box.max.z + tol;
                sr_dvec3 r = {p.x - obb.centre.x, p.y - obb.centre.y, p.z - obb.centre.z};
                const double h[3] = {obb.half_extents.x, obb.half_extents.y, obb.half_extents.z};
                bool in_obb = true;
                for (int a = 0; a < 3; a++)
                    in_obb = in_obb && fabs(dot(r, obb.axes[a])) <= h[a] + tol;
                sr_dvec3 c = {p.x - sphere.centre.x, p.y - sphere.centre.y, p.z - sphere.centre.z};
                double distance = sqrt(dot(c, c));
                farthest = fmax(farthest, distance);
                bool in_kdop = true;
                for (int slot = 0; slot < 13; slot++) {
                    sr_dvec3 axis = sr_kdop_axis(slot);
                    double along = dot(axis, p), scale = sqrt(dot(axis, axis));
                    in_kdop = in_kdop && along >= kdop.min[slot] - tol * scale && along <= kdop.max[slot] + tol * scale;
                }
                if (!(in_box && in_obb && distance <= sphere.radius + tol && in_kdop)) {
                    failed++;
                    cr_log_error("pair %llu shape %c: support point along (%g, %g, %g) outside the%s%s%s%s",
                                 (unsigned long long)index, k ? 'b' : 'a', n.x, n.y, n.z, in_box ? "" : " box",
                                 in_obb ? "" : " OBB", distance <= sphere.radius + tol ? "" : " sphere",
                                 in_kdop ? "" : " 26-DOP");
                    break;
                }
            }
            /* Touching: the box and the k-DOP exactly (support points along their axes), the OBB on
             * its six faces, the sphere at the farthest support point (the sampled one within
             * the sampling's reach: a tenth of the radius would be far too loose, 1% is not). */
            const sr_dvec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
            const double lo[3] = {box.min.x, box.min.y, box.min.z}, hi[3] = {box.max.x, box.max.y, box.max.z};
            for (int a = 0; a < 3; a++) {
                sr_dvec3 back = {-axes[a].x, -axes[a].y, -axes[a].z};
                double top = dot(axes[a], oracle_support(body, axes[a]));
                double bottom = dot(axes[a], oracle_support(body, back));
                if (fabs(top - hi[a]) > tol || fabs(bottom - lo[a]) > tol) {
                    failed++;
                    cr_log_error("pair %llu shape %c: box [%.17g, %.17g] on axis %d, shape spans [%.17g, %.17g]",
                                 (unsigned long long)index, k ? 'b' : 'a', lo[a], hi[a], a, bottom, top);
                }
                sr_dvec3 u = obb.axes[a], v = {-u.x, -u.y, -u.z};
                double face = dot(u, obb.centre), reach_up = dot(u, oracle_support(body, u)) - face,
                       reach_down = face - dot(u, oracle_support(body, v));
                const double h[3] = {obb.half_extents.x, obb.half_extents.y, obb.half_extents.z};
                if (fabs(reach_up - h[a]) > 1e-6 * size + tol || fabs(reach_down - h[a]) > 1e-6 * size + tol) {
                    failed++;
                    cr_log_error("pair %llu shape %c: OBB half extent %.17g on axis %d, shape reaches %.17g and %.17g",
                                 (unsigned long long)index, k ? 'b' : 'a', h[a], a, reach_up, reach_down);
                }
            }
            for (int slot = 0; slot < 13; slot++) {
                sr_dvec3 axis = sr_kdop_axis(slot), back = {-axis.x, -axis.y, -axis.z};
                double top = dot(axis, oracle_support(body, axis)), bottom = dot(axis, oracle_support(body, back));
                double scale = sqrt(dot(axis, axis));
                if (fabs(top - kdop.max[slot]) > tol * scale || fabs(bottom - kdop.min[slot]) > tol * scale) {
                    failed++;
                    cr_log_error("pair %llu shape %c: 26-DOP slot %d [%.17g, %.17g], shape spans [%.17g, %.17g]",
                                 (unsigned long long)index, k ? 'b' : 'a', slot, kdop.min[slot], kdop.max[slot], bottom,
                                 top);
                }
            }
            if (farthest < 0.99 * sphere.radius - tol) {
                failed++;
                cr_log_error("pair %llu shape %c: sphere radius %.17g, the farthest support point only %.17g away",
                             (unsigned long long)index, k ? 'b' : 'a', sphere.radius, farthest);
            }
            shapes++;
        }
    }
    release_live();
    cr_assert_eq(failed, 0, "%zu bounding-volume failures on %zu shapes", failed, shapes);
}

