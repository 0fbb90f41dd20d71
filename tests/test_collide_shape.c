/* tests/test_collide_shape.c — shapes of softrast/collide.h (src/collide/shape.c): makers, poses,
 * validation (every bad field refused, named in the message), sizes, and the support mappings of
 * every shape type under random poses against brute force: the support point is a point of the
 * shape (an independent membership test in the shape's frame) and no point of a dense sampling of
 * the shape's surface reaches farther along the direction; hull supports (linear scan and hill
 * climbing) equal the maximum over the hull's vertices. */
#include <criterion/criterion.h>

#include "collide_core_helpers.h"

#include <softrast/collide.h>

#include <stdlib.h>
#include <string.h>

/* ---- makers and poses ---- */

Test(collide_shape, makers_fill_the_fields_their_type_reads)
{
    sr_shape s = sr_shape_sphere(2);
    cr_assert_eq(s.type, SR_SHAPE_SPHERE);
    cr_assert_eq(s.radius, 2);
    cr_assert_eq(s.rounding, 0);
    cr_assert_eq(s.pose.rotation.w, 1);
    s = sr_shape_box(v3(1, 2, 3));
    cr_assert(s.type == SR_SHAPE_BOX && s.half_extents.y == 2);
    s = sr_shape_capsule(0.5, 2);
    cr_assert(s.type == SR_SHAPE_CAPSULE && s.radius == 0.5 && s.half_height == 2);
    s = sr_shape_cylinder(0.5, 2);
    cr_assert(s.type == SR_SHAPE_CYLINDER && s.radius == 0.5 && s.half_height == 2);
    s = sr_shape_cone(0.5, 2);
    cr_assert(s.type == SR_SHAPE_CONE && s.radius == 0.5 && s.half_height == 2);
    s = sr_shape_segment(v3(1, 0, 0), v3(0, 1, 0));
    cr_assert(s.type == SR_SHAPE_SEGMENT && s.points[1].y == 1);
    s = sr_shape_triangle(v3(1, 0, 0), v3(0, 1, 0), v3(0, 0, 1));
    cr_assert(s.type == SR_SHAPE_TRIANGLE && s.points[2].z == 1);
    s = sr_shape_point();
    cr_assert_eq(s.type, SR_SHAPE_POINT);
    sr_pose pose = sr_pose_make(v3(1, 2, 3), sr_dquat_from_axis_angle(v3(0, 0, 1), 1));
    s = sr_shape_with_pose(sr_shape_sphere(1), pose);
    cr_assert(s.pose.position.z == 3 && s.pose.rotation.z == pose.rotation.z);
}

Test(collide_shape, type_names)
{
    const char *names[] = {"point", "segment", "triangle", "sphere", "box", "capsule", "cylinder", "cone", "hull"};
    for (int t = 0; t < SR_SHAPE_TYPE_COUNT; t++)
        cr_assert_str_eq(sr_shape_type_name((sr_shape_type)t), names[t]);
    cr_assert_str_eq(sr_shape_type_name(SR_SHAPE_TYPE_COUNT), "unknown");
    cr_assert_str_eq(sr_shape_type_name((sr_shape_type)-1), "unknown");
}

Test(collide_shape, poses_rotate_then_translate)
{
    sr_pose pose = sr_pose_make(v3(10, 0, 0), sr_dquat_from_axis_angle(v3(0, 0, 1), M_PI / 2));
    sr_dvec3 p = sr_pose_apply(pose, v3(1, 0, 0));
    cr_assert(vdistance(p, v3(10, 1, 0)) < 1e-15);
    cr_assert(vdistance(sr_pose_apply_inverse(pose, p), v3(1, 0, 0)) < 1e-15);
    sr_pose zero = {{1, 2, 3}, {0, 0, 0, 0}}; /* a zero rotation is the identity */
    cr_assert(vdistance(sr_pose_apply(zero, v3(1, 1, 1)), v3(2, 3, 4)) == 0);
    drng r = {1};
    for (int k = 0; k < 1000; k++) {
        sr_pose random = sr_pose_make(drng_vec(&r, -100, 100), drng_rotation(&r));
        sr_dvec3 local = drng_vec(&r, -5, 5);
        sr_dvec3 world = sr_pose_apply(random, local);
        sr_dvec3 expected = vadd(sr_dquat_rotate(random.rotation, local), random.position);
        cr_assert(vdistance(world, expected) < 1e-12);
        cr_assert(vdistance(sr_pose_apply_inverse(random, world), local) < 1e-12);
    }
    cr_assert(vdistance(sr_pose_apply(sr_pose_identity(), v3(4, 5, 6)), v3(4, 5, 6)) == 0);
}

/* ---- validation ---- */

static void expect_invalid(sr_shape shape, const char *field)
{
    sr_error err = {0};
    cr_assert_eq(sr_shape_validate(&shape, &err), SR_ERROR_INVALID_ARGUMENT, "%s accepted", field);
    cr_assert(strstr(err.message, field), "message \"%s\" does not name %s", err.message, field);
    cr_assert_eq(sr_shape_validate(&shape, NULL), SR_ERROR_INVALID_ARGUMENT);
}

Test(collide_shape, validation_names_the_bad_field)
{
    sr_dvec3 points[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    sr_hull *hull = NULL;
    cr_assert_eq(sr_hull_create(points, 4, &hull, NULL), SR_OK);
    sr_shape good[] = {sr_shape_point(),
                       sr_shape_segment(v3(0, 0, 0), v3(1, 1, 1)),
                       sr_shape_triangle(v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0)),
                       sr_shape_sphere(1),
                       sr_shape_box(v3(1, 2, 0)),
                       sr_shape_capsule(1, 0),
                       sr_shape_cylinder(1, 2),
                       sr_shape_cone(0, 0),
                       sr_shape_hull(hull)};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        sr_error err = {0};
        cr_assert_eq(sr_shape_validate(&good[i], &err), SR_OK, "%s: %s", sr_shape_type_name(good[i].type), err.message);
        good[i].pose.rotation = (sr_dquat){0, 0, 0, 0};
        cr_assert_eq(sr_shape_validate(&good[i], &err), SR_OK, "zero rotation: %s", err.message);
        good[i].pose.rotation = (sr_dquat){0, 0, 0, 1 + 9e-7};
        cr_assert_eq(sr_shape_validate(&good[i], &err), SR_OK, "rotation within 1e-6: %s", err.message);
    }
    expect_invalid(sr_shape_sphere(-1), "radius");
    expect_invalid(sr_shape_sphere(NAN), "radius");
    expect_invalid(sr_shape_sphere(1e31), "radius");
    expect_invalid(sr_shape_box(v3(1, -1, 1)), "half_extents.y");
    expect_invalid(sr_shape_box(v3(1, 1, INFINITY)), "half_extents.z");
    expect_invalid(sr_shape_capsule(1, -2), "half_height");
    expect_invalid(sr_shape_cylinder(-1, 2), "radius");
    expect_invalid(sr_shape_cone(1, NAN), "half_height");
    expect_invalid(sr_shape_segment(v3(0, 0, 0), v3(0, 0, NAN)), "points[1].z");
    expect_invalid(sr_shape_triangle(v3(0, 0, 0), v3(1, 0, 0), v3(INFINITY, 0, 0)), "points[2].x");
    expect_invalid(sr_shape_hull(NULL), "hull");
    sr_shape s = sr_shape_sphere(1);
    s.rounding = -0.5;
    expect_invalid(s, "rounding");
    s = sr_shape_sphere(1);
    s.pose.position.x = NAN;
    expect_invalid(s, "position.x");
    s.pose.position.x = -1e31;
    expect_invalid(s, "limit");
    s = sr_shape_sphere(1);
    s.pose.rotation = (sr_dquat){0, 0, 0, 0.5};
    expect_invalid(s, "not a unit quaternion (length 0.5");
    s.pose.rotation = (sr_dquat){NAN, 0, 0, 1};
    expect_invalid(s, "rotation");
    s = sr_shape_sphere(1);
    s.type = (sr_shape_type)99;
    expect_invalid(s, "type");
    sr_error err = {0};
    cr_assert_eq(sr_shape_validate(NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_hull_destroy(hull);
}

/* A placed shape (sr_shape_place) of an invalid shape or of NULL is not valid: the queries on it
 * answer SR_COLLIDE_INVALID_SHAPE with the plain queries' zeroed result, and its support point and
 * box are the plain ones of the shape it holds. The valid shapes' answers are compared bit for bit
 * with the plain queries on generated pairs in test_collide_pairs.c. */
Test(collide_shape, placed_invalid_shapes_answer_as_the_plain_queries)
{
    sr_shape bad[4] = {sr_shape_sphere(-1), sr_shape_box(v3(1, 1, NAN)), sr_shape_hull(NULL), sr_shape_cone(1, 1)};
    bad[3].pose.rotation = (sr_dquat){0, 0, 0, 0.5}; /* usable by the support, refused by the queries */
    sr_shape good = sr_shape_box(v3(1, 1, 1));
    sr_placed_shape placed_good;
    sr_shape_place(&good, &placed_good);
    cr_assert(placed_good.valid);
    for (int i = 0; i < 4; i++) {
        sr_placed_shape placed;
        memset(&placed, 0xA5, sizeof placed);
        sr_shape_place(&bad[i], &placed);
        cr_assert(!placed.valid, "invalid shape %d placed as valid", i);
        cr_assert(memcmp(&placed.shape, &bad[i], sizeof bad[i]) == 0);
        sr_collide_result want, got;
        memset(&got, 0xA5, sizeof got);
        cr_assert_eq(sr_collide_signed_distance(&bad[i], &good, NULL, &want), SR_COLLIDE_INVALID_SHAPE);
        cr_assert_eq(sr_collide_placed_signed_distance(&placed, &placed_good, NULL, &got), SR_COLLIDE_INVALID_SHAPE);
        cr_assert(memcmp(&want, &got, sizeof got) == 0);
        cr_assert_eq(sr_collide_placed_distance(&placed_good, &placed, NULL, &got), SR_COLLIDE_INVALID_SHAPE);
        cr_assert_eq(sr_collide_placed_penetration(&placed, &placed, NULL, &got), SR_COLLIDE_INVALID_SHAPE);
        sr_dvec3 d = v3(0.3, -0.2, 0.9), w = sr_shape_support(&bad[i], d), p = sr_placed_support(&placed, d);
        cr_assert(memcmp(&w, &p, sizeof p) == 0, "shape %d: another support point", i);
        sr_dbox want_box = sr_shape_bounds(&bad[i]), box = sr_placed_bounds(&placed);
        cr_assert(memcmp(&want_box, &box, sizeof box) == 0 && box.min.x == INFINITY);
    }
    sr_placed_shape none;
    sr_shape_place(NULL, &none);
    cr_assert(!none.valid);
    sr_collide_result got;
    cr_assert_eq(sr_collide_placed_signed_distance(NULL, &placed_good, NULL, &got), SR_COLLIDE_INVALID_SHAPE);
    cr_assert_eq(sr_collide_placed_signed_distance(&none, &placed_good, NULL, &got), SR_COLLIDE_INVALID_SHAPE);
    cr_assert_eq(sr_placed_bounds(NULL).min.x, INFINITY);
    cr_assert(vdistance(sr_placed_support(NULL, v3(1, 0, 0)), v3(0, 0, 0)) == 0);
}

/* ---- sizes ---- */

Test(collide_shape, sizes_are_the_largest_extent_of_the_local_box)
{
    sr_shape s = sr_shape_sphere(2);
    s.rounding = 0.5;
    cr_assert_eq(sr_shape_size(&s), 5);
    cr_assert_eq(sr_shape_core_radius(&s), 2.5);
    s = sr_shape_box(v3(1, 3, 2));
    cr_assert_eq(sr_shape_size(&s), 6);
    cr_assert_eq(sr_shape_core_radius(&s), 0);
    s = sr_shape_capsule(1, 2);
    cr_assert_eq(sr_shape_size(&s), 6);
    cr_assert_eq(sr_shape_core_radius(&s), 1);
    s = sr_shape_cylinder(3, 1);
    cr_assert_eq(sr_shape_size(&s), 6);
    s = sr_shape_cone(1, 3);
    s.rounding = 1;
    cr_assert_eq(sr_shape_size(&s), 8);
    cr_assert_eq(sr_shape_core_radius(&s), 1);
    s = sr_shape_segment(v3(0, 0, 0), v3(1, -4, 2));
    cr_assert_eq(sr_shape_size(&s), 4);
    s = sr_shape_triangle(v3(0, 0, 0), v3(1, -4, 2), v3(0, 0, 5));
    cr_assert_eq(sr_shape_size(&s), 5);
    s = sr_shape_point();
    cr_assert_eq(sr_shape_size(&s), 0);
    sr_dvec3 points[4] = {{0, 0, 0}, {2, 0, 0}, {0, 7, 0}, {0, 0, 1}};
    sr_hull *hull = NULL;
    cr_assert_eq(sr_hull_create(points, 4, &hull, NULL), SR_OK);
    s = sr_shape_hull(hull);
    s.pose = sr_pose_make(v3(5, 5, 5), sr_dquat_from_axis_angle(v3(1, 1, 0), 0.7)); /* pose-independent */
    cr_assert_eq(sr_shape_size(&s), 7);
    sr_hull_destroy(hull);
    s = sr_shape_hull(NULL); /* not a valid shape: no crash */
    cr_assert_eq(sr_shape_size(&s), 0);
    sr_dvec3 p = sr_shape_support(&s, v3(1, 0, 0));
    cr_assert(p.x == 0 && p.y == 0 && p.z == 0);
}

/* ---- support mappings against brute force ---- */

/* Distance from a local point to the local core of a shape (0 inside), computed independently of
 * the support functions. */
static double core_distance_local(const sr_shape *s, sr_dvec3 q)
{
    switch (s->type) {
    case SR_SHAPE_POINT:
    case SR_SHAPE_SPHERE:
        return vlength(q);
    case SR_SHAPE_BOX: {
        sr_dvec3 h = s->half_extents;
        sr_dvec3 outside = v3(fmax(fabs(q.x) - h.x, 0), fmax(fabs(q.y) - h.y, 0), fmax(fabs(q.z) - h.z, 0));
        return vlength(outside);
    }
    case SR_SHAPE_CAPSULE: {
        double z = fmax(-s->half_height, fmin(s->half_height, q.z));
        return vlength(vsub(q, v3(0, 0, z)));
    }
    case SR_SHAPE_CYLINDER: {
        double rho = sqrt(q.x * q.x + q.y * q.y);
        return hypot(fmax(rho - s->radius, 0), fmax(fabs(q.z) - s->half_height, 0));
    }
    case SR_SHAPE_CONE: {
        /* inside when |z| <= h and rho <= r (h - z) / 2h; outside: distance to the triangle of the
         * axial section (apex, rim, base centre) in the (rho, z) plane */
        double h = s->half_height, r = s->radius;
        double rho = sqrt(q.x * q.x + q.y * q.y);
        if (fabs(q.z) <= h && rho <= r * (h - q.z) / (2 * h) + 1e-300)
            return 0;
        sr_dvec3 p = v3(rho, q.z, 0), apex = v3(0, h, 0), rim = v3(r, -h, 0), base = v3(0, -h, 0);
        double best = INFINITY;
        const sr_dvec3 ends[3][2] = {{apex, rim}, {rim, base}, {base, apex}};
        for (int e = 0; e < 3; e++) {
            sr_dvec3 a = ends[e][0], ab = vsub(ends[e][1], a);
            double t = vdot(ab, ab) > 0 ? fmax(0, fmin(1, vdot(vsub(p, a), ab) / vdot(ab, ab))) : 0;
            best = fmin(best, vdistance(p, vadd(a, vscale(ab, t))));
        }
        return best;
    }
    default:
        return INFINITY;
    }
}

/* Points of the core's surface (local) dense enough that their maximum along a direction is
 * within ~1e-6 of the core's support value. */
static size_t core_samples(const sr_shape *s, sr_dvec3 *out, size_t capacity)
{
    size_t n = 0;
    switch (s->type) {
    case SR_SHAPE_POINT:
    case SR_SHAPE_SPHERE:
        out[n++] = v3(0, 0, 0);
        break;
    case SR_SHAPE_SEGMENT:
        out[n++] = s->points[0];
        out[n++] = s->points[1];
        break;
    case SR_SHAPE_TRIANGLE:
        for (int i = 0; i < 3; i++)
            out[n++] = s->points[i];
        break;
    case SR_SHAPE_BOX:
        for (int c = 0; c < 8; c++)
            out[n++] =
                v3(c & 1 ? s->half_extents.x : -s->half_extents.x, c & 2 ? s->half_extents.y : -s->half_extents.y,
                   c & 4 ? s->half_extents.z : -s->half_extents.z);
        break;
    case SR_SHAPE_CAPSULE:
        out[n++] = v3(0, 0, -s->half_height);
        out[n++] = v3(0, 0, s->half_height);
        break;
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        for (size_t k = 0; n + 2 < capacity; k++) {
            double a = 2 * M_PI * (double)k / (double)((capacity - 1) / 2);
            sr_dvec3 rim = v3(s->radius * cos(a), s->radius * sin(a), 0);
            out[n++] = vadd(rim, v3(0, 0, -s->half_height));
            if (s->type == SR_SHAPE_CYLINDER)
                out[n++] = vadd(rim, v3(0, 0, s->half_height));
        }
        if (s->type == SR_SHAPE_CONE)
            out[n++] = v3(0, 0, s->half_height);
        break;
    default:
        break;
    }
    return n;
}

Test(collide_shape, core_supports_of_every_type_against_sampled_surfaces)
{
    drng r = {41};
    enum { SAMPLES = 20001 };
    sr_dvec3 *samples = malloc(SAMPLES * sizeof *samples);
    for (int k = 0; k < COUNT(400); k++) {
        sr_shape s;
        switch (k % 8) {
        case 0:
            s = sr_shape_point();
            break;
        case 1:
            s = sr_shape_segment(drng_vec(&r, -2, 2), drng_vec(&r, -2, 2));
            break;
        case 2:
            s = sr_shape_triangle(drng_vec(&r, -2, 2), drng_vec(&r, -2, 2), drng_vec(&r, -2, 2));
            break;
        case 3:
            s = sr_shape_sphere(drng_range(&r, 0.1, 2));
            break;
        case 4:
            s = sr_shape_box(drng_vec(&r, 0, 2));
            break;
        case 5:
            s = sr_shape_capsule(drng_range(&r, 0, 1), drng_range(&r, 0, 2));
            break;
        case 6:
            s = sr_shape_cylinder(drng_range(&r, 0, 1), drng_range(&r, 0, 2));
            break;
        default:
            s = sr_shape_cone(drng_range(&r, 0.01, 1), drng_range(&r, 0.01, 2));
            break;
        }
        s.rounding = k % 3 == 0 ? drng_range(&r, 0, 0.5) : 0;
        s.pose = sr_pose_make(drng_vec(&r, -1e3, 1e3), drng_rotation(&r));
        cr_assert_eq(sr_shape_validate(&s, NULL), SR_OK);
        size_t n = core_samples(&s, samples, SAMPLES);
        for (size_t i = 0; i < n; i++)
            samples[i] = sr_pose_apply(s.pose, samples[i]);
        double size = fmax(sr_shape_size(&s), 1);
        for (int j = 0; j < 20; j++) {
            sr_dvec3 d = j < 6 ? v3(j / 2 == 0 ? (j & 1 ? -1 : 1) : 0, j / 2 == 1 ? (j & 1 ? -1 : 1) : 0,
                                    j / 2 == 2 ? (j & 1 ? -1 : 1) : 0)
                               : vscale(drng_direction(&r), drng_range(&r, 1e-3, 1e3));
            sr_dvec3 p = sr_shape_core_support(&s, d);
            sr_dvec3 local = sr_pose_apply_inverse(s.pose, p);
            if (s.type != SR_SHAPE_SEGMENT && s.type != SR_SHAPE_TRIANGLE)
                cr_assert(core_distance_local(&s, local) <= 1e-9 * size, "%s: support point off the core by %g",
                          sr_shape_type_name(s.type), core_distance_local(&s, local));
            sr_dvec3 unit = sr_dvec3_normalize(d);
            double reach = vdot(p, unit), best = -INFINITY;
            for (size_t i = 0; i < n; i++)
                best = fmax(best, vdot(samples[i], unit));
            cr_assert(reach >= best - 1e-9 * size, "%s: a sample reaches %.12g, the support %.12g",
                      sr_shape_type_name(s.type), best, reach);
            /* polytopes: the support is a vertex, exactly the best one up to rounding */
            if (s.type <= SR_SHAPE_TRIANGLE || s.type == SR_SHAPE_BOX)
                cr_assert(reach <= best + 1e-9 * size);
            /* the rounded shape's support: the core's plus the radius along d */
            sr_dvec3 rounded = sr_shape_support(&s, d);
            sr_dvec3 expected = vadd(p, vscale(unit, sr_shape_core_radius(&s)));
            cr_assert(vdistance(rounded, expected) <= 1e-12 * (size + 1e3));
        }
        /* a zero or NaN direction gives a point of the shape, never a NaN */
        sr_dvec3 p = sr_shape_support(&s, v3(0, 0, 0));
        cr_assert(sr_dvec3_is_finite(p));
        p = sr_shape_support(&s, v3(NAN, 0, 1));
        cr_assert(sr_dvec3_is_finite(p));
    }
    free(samples);
}

Test(collide_shape, hull_supports_scan_and_climb_to_the_best_vertex)
{
    drng r = {43};
    const size_t sizes[] = {4, 12, 32, 33, 100, 2000};
    for (int k = 0; k < COUNT(60); k++) {
        size_t n = sizes[k % 6];
        sr_dvec3 *points = malloc(n * sizeof *points);
        for (size_t i = 0; i < n; i++)
            points[i] = k % 2 ? drng_direction(&r) : drng_vec(&r, -1, 1);
        sr_hull *hull = NULL;
        cr_assert_eq(sr_hull_create(points, n, &hull, NULL), SR_OK);
        sr_hull_view view = sr_hull_get_view(hull);
        sr_shape s = sr_shape_hull(hull);
        s.pose = sr_pose_make(drng_vec(&r, -10, 10), drng_rotation(&r));
        for (int j = 0; j < 200; j++) {
            sr_dvec3 d = drng_direction(&r);
            sr_dvec3 p = sr_shape_support(&s, d);
            double best = -INFINITY;
            for (size_t v = 0; v < view.vertex_count; v++)
                best = fmax(best, vdot(sr_pose_apply(s.pose, view.vertices[v]), d));
            cr_assert(fabs(vdot(p, d) - best) <= 1e-12 * 10, "%zu points (%zu vertices): support %.17g, best %.17g", n,
                      view.vertex_count, vdot(p, d), best);
            /* the same bits on a second call */
            sr_dvec3 again = sr_shape_support(&s, d);
            cr_assert(memcmp(&p, &again, sizeof p) == 0);
        }
        sr_hull_destroy(hull);
        free(points);
    }
}
