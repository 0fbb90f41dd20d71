/* test_collide_bounds.c — the boxes, k-DOPs and minimal spheres of src/collide/bounds*.c: every
 * volume holds every point (of a point set, or a shape's support in many directions) and is
 * tight: boxes and k-DOPs touch a point on every side and equal an analytic support function on
 * every shape type; Welzl's sphere has its centre in the hull of the points on its sphere (the
 * optimality certificate of the minimal ball) and equals a brute force over every 2-, 3- and
 * 4-point subset of small sets; the round shapes' spheres against Welzl on their sampled rims.
 * The oriented boxes are in test_collide_obb.c. */
#include "collide_bounds_check.h"

#include <criterion/criterion.h>
#include <softrast/collide.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- boxes and k-DOPs ---- */

Test(collide_bounds, box_of_points_holds_and_touches_them)
{
    rng r = {0xb0b};
    sr_dvec3 points[40];
    for (int trial = 0; trial < 200; trial++) {
        size_t n = make_set(&r, trial % SET_KINDS, 1 + (size_t)trial % 40, points);
        sr_dbox box;
        cr_assert_eq(sr_bound_box_points(points, n, &box, NULL), SR_OK);
        const double lo[3] = {box.min.x, box.min.y, box.min.z}, hi[3] = {box.max.x, box.max.y, box.max.z};
        bool touches_lo[3] = {false, false, false}, touches_hi[3] = {false, false, false};
        for (size_t i = 0; i < n; i++) {
            const double c[3] = {points[i].x, points[i].y, points[i].z};
            for (int k = 0; k < 3; k++) {
                cr_assert(c[k] >= lo[k] && c[k] <= hi[k], "trial %d: point %zu outside", trial, i);
                touches_lo[k] |= c[k] == lo[k];
                touches_hi[k] |= c[k] == hi[k];
            }
        }
        for (int k = 0; k < 3; k++)
            cr_assert(touches_lo[k] && touches_hi[k], "trial %d: side %d touches no point", trial, k);
    }
}

Test(collide_bounds, double_box_rounds_outwards_to_the_nearest_floats)
{
    rng r = {0xf10a7};
    for (int i = 0; i < 20000; i++) {
        double magnitude = pow(10.0, rng_double_range(&r, -30, 30));
        sr_dvec3 a = sr_dvec3_scale(rng_dvec3(&r, -1, 1), magnitude);
        sr_dvec3 b = sr_dvec3_scale(rng_dvec3(&r, -1, 1), magnitude);
        if (i % 5 == 0) /* exactly representable as floats: kept as they are */
            a = sr_dvec3_make((float)a.x, (float)a.y, (float)a.z);
        sr_dbox box = {{fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z)},
                       {fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z)}};
        sr_aabb f = sr_dbox_to_aabb(box);
        const double dlo[3] = {box.min.x, box.min.y, box.min.z}, dhi[3] = {box.max.x, box.max.y, box.max.z};
        const float flo[3] = {f.min.x, f.min.y, f.min.z}, fhi[3] = {f.max.x, f.max.y, f.max.z};
        for (int k = 0; k < 3; k++) {
            cr_assert((double)flo[k] <= dlo[k] && (double)fhi[k] >= dhi[k], "case %d: the float box does not hold", i);
            /* the nearest: one float step inwards no longer holds */
            cr_assert((double)nextafterf(flo[k], INFINITY) > dlo[k], "case %d: min %a not the largest below %a", i,
                      flo[k], dlo[k]);
            cr_assert((double)nextafterf(fhi[k], -INFINITY) < dhi[k], "case %d: max %a not the smallest above %a", i,
                      fhi[k], dhi[k]);
        }
    }
    /* beyond the float range: infinite on the outside */
    sr_aabb f = sr_dbox_to_aabb((sr_dbox){{-1e300, 0, 0}, {1e300, 0, 0}});
    cr_assert(f.min.x == -INFINITY && f.max.x == INFINITY);
    /* at the ends of the float range: zeros, subnormals, the largest float and just past it, each
     * the float the C library's nextafterf steps to where the nearest float is on the wrong side */
    const double edges[] = {0.0, 1e-46, 7e-46, 1e-45, 1e-40, 1.1754942e-38, 3.4028234e38, 3.40282357e38, 3.4028236e38,
                            1e39};
    for (size_t e = 0; e < sizeof edges / sizeof *edges; e++)
        for (int sign = -1; sign <= 1; sign += 2) {
            double x = sign * edges[e];
            sr_aabb g = sr_dbox_to_aabb((sr_dbox){{x, x, x}, {x, x, x}});
            float near = (float)x;
            float down = (double)near > x ? nextafterf(near, -INFINITY) : near;
            float up = (double)near < x ? nextafterf(near, INFINITY) : near;
            cr_assert(memcmp(&g.min.x, &down, sizeof down) == 0 && memcmp(&g.max.x, &up, sizeof up) == 0,
                      "%.9g: [%a, %a], expected [%a, %a]", x, g.min.x, g.max.x, down, up);
        }
}

Test(collide_bounds, kdop_axes_and_slots)
{
    const int ks[4] = {6, 14, 18, 26};
    const int used[4] = {3, 7, 9, 13};
    for (int j = 0; j < 4; j++) {
        int count = 0;
        for (int i = 0; i < 13; i++)
            count += sr_kdop_uses_slot(ks[j], i);
        cr_assert_eq(count, used[j], "the %d-DOP uses %d slots", ks[j], count);
    }
    /* the 18-DOP: the coordinate axes and the six edge diagonals */
    for (int i = 0; i < 13; i++) {
        sr_dvec3 axis = sr_kdop_axis(i);
        int zeros = (axis.x == 0) + (axis.y == 0) + (axis.z == 0);
        cr_assert_eq(sr_kdop_uses_slot(18, i), zeros != 0, "slot %d", i);
        cr_assert_eq(sr_kdop_uses_slot(14, i), zeros != 1, "slot %d", i);
        for (int k = 0; k < i; k++) { /* 13 different directions, none the opposite of another */
            sr_dvec3 other = sr_kdop_axis(k);
            cr_assert(sr_dvec3_length(sr_dvec3_cross(axis, other)) > 0.5, "slots %d and %d are parallel", i, k);
        }
    }
    cr_assert(!sr_kdop_uses_slot(8, 0) && !sr_kdop_uses_slot(26, 13) && !sr_kdop_uses_slot(26, -1));
    sr_dvec3 none = sr_kdop_axis(13);
    cr_assert(none.x == 0 && none.y == 0 && none.z == 0);
}

Test(collide_bounds, kdop_of_points_holds_and_touches_them)
{
    rng r = {0xd0b};
    sr_dvec3 points[40];
    const int ks[4] = {6, 14, 18, 26};
    for (int trial = 0; trial < 200; trial++) {
        size_t n = make_set(&r, trial % SET_KINDS, 1 + (size_t)trial % 40, points);
        int k = ks[trial % 4];
        sr_kdop dop;
        cr_assert_eq(sr_bound_kdop_points(points, n, k, &dop, NULL), SR_OK);
        cr_assert_eq(dop.k, k);
        for (int slot = 0; slot < 13; slot++) {
            if (!sr_kdop_uses_slot(k, slot)) {
                cr_assert(dop.min[slot] == -INFINITY && dop.max[slot] == INFINITY, "unused slot %d not unbounded",
                          slot);
                continue;
            }
            sr_dvec3 axis = sr_kdop_axis(slot);
            bool touches_min = false, touches_max = false;
            for (size_t i = 0; i < n; i++) {
                double d = sr_dvec3_dot(points[i], axis);
                cr_assert(d >= dop.min[slot] && d <= dop.max[slot], "trial %d slot %d: point %zu outside", trial, slot,
                          i);
                touches_min |= d == dop.min[slot];
                touches_max |= d == dop.max[slot];
            }
            cr_assert(touches_min && touches_max, "trial %d slot %d: a side touches no point", trial, slot);
        }
    }
}

Test(collide_bounds, point_set_errors_name_the_argument)
{
    sr_dvec3 points[3] = {{0, 0, 0}, {1, 2, 3}, {NAN, 0, 0}};
    sr_error err;
    sr_dbox box;
    sr_kdop dop;
    sr_dsphere sphere;
    cr_assert_eq(sr_bound_box_points(points, 0, &box, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "count is 0"), "%s", err.message);
    cr_assert_eq(sr_bound_sphere_points(points, 3, &sphere, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "sr_bound_sphere_points") && strstr(err.message, "point 2"), "%s", err.message);
    cr_assert_eq(sr_bound_kdop_points(points, 2, 10, &dop, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "k is 10"), "%s", err.message);
    points[2].x = INFINITY;
    cr_assert_eq(sr_bound_kdop_points(points, 3, 26, &dop, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "point 2"), "%s", err.message);
    cr_assert_eq(sr_bound_box_points(points, 2, &box, NULL), SR_OK); /* NULL error: no message wanted */
    cr_assert_eq(sr_bound_obb_points(points, 2, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "sr_bound_obb_points: out is NULL"), "%s", err.message);
    cr_assert_eq(sr_bound_sphere_points(NULL, 2, &sphere, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "points is NULL"), "%s", err.message);
}

/* ---- Welzl's sphere ---- */

/* The minimal enclosing ball is the one whose centre lies in the convex hull of the points on its
 * sphere (a ball holding every point, and no smaller one exists: moving the centre any way moves
 * it away from one of those points). Checks both, and 1 to 4 points on the sphere (up to 16 of
 * them for cospherical sets, of which the certificate uses the first 12). */
static void check_minimal_ball(const sr_dvec3 *points, size_t n, sr_dsphere ball, const char *what, int trial)
{
    double scale = set_scale(points, n);
    double far = brute_max_abs(points, (int)n);
    double slack = 1e-9 * scale + 1e-14 * far;
    cr_assert(isfinite(ball.radius) && ball.radius >= 0 && sr_dvec3_is_finite(ball.centre), "%s %d: not finite", what,
              trial);
    sr_dvec3 on_sphere[12];
    int on = 0;
    for (size_t i = 0; i < n; i++) {
        double d = sr_dvec3_length(sr_dvec3_sub(points[i], ball.centre));
        cr_assert(d <= ball.radius * (1 + 1e-14) + 1e-15 * far, "%s %d: point %zu is %.3g outside", what, trial, i,
                  d - ball.radius);
        if (d >= ball.radius - slack && on < 12) {
            bool duplicate = false;
            for (int k = 0; k < on; k++)
                duplicate |= sr_dvec3_length(sr_dvec3_sub(on_sphere[k], points[i])) <= slack;
            if (!duplicate)
                on_sphere[on++] = points[i];
        }
    }
    if (scale == 0.0) {
        cr_assert(ball.radius <= slack, "%s %d: one point, radius %g", what, trial, ball.radius);
        return;
    }
    cr_assert(on >= 2, "%s %d: only %d point(s) on the sphere", what, trial, on);
    double gap = brute_closest_in_hull(ball.centre, on_sphere, on, NULL);
    cr_assert(gap <= 1e-7 * scale + 1e-14 * far,
              "%s %d: the centre is %.3g from the hull of the %d points on the "
              "sphere: a smaller ball exists",
              what, trial, gap, on);
}

Test(collide_bounds, welzl_equals_brute_force_on_small_sets)
{
    rng r = {0x3e12};
    sr_dvec3 points[10];
    for (int trial = 0; trial < BRUTE_COUNT(1500, 200); trial++) {
        int kind = trial % SET_KINDS;
        int n = 1 + trial % 10;
        make_set(&r, kind, (size_t)n, points);
        sr_dsphere ball, brute = brute_minimal_ball(points, n);
        cr_assert_eq(sr_bound_sphere_points(points, (size_t)n, &ball, NULL), SR_OK);
        double scale = set_scale(points, (size_t)n);
        cr_assert(fabs(ball.radius - brute.radius) <= 1e-9 * scale + 1e-13 * brute_max_abs(points, n),
                  "trial %d (kind %d, %d points): radius %.17g, brute force %.17g", trial, kind, n, ball.radius,
                  brute.radius);
        cr_assert(sr_dvec3_length(sr_dvec3_sub(ball.centre, brute.centre)) <=
                      1e-6 * scale + 1e-12 * brute_max_abs(points, n),
                  "trial %d: centre differs from the brute force's", trial);
        check_minimal_ball(points, (size_t)n, ball, "small set", trial);
    }
}

Test(collide_bounds, welzl_is_minimal_on_large_and_degenerate_sets)
{
    rng r = {0x3e13};
    size_t capacity = BRUTE_COUNT(20000, 2000);
    sr_dvec3 *points = malloc(capacity * sizeof *points);
    for (int trial = 0; trial < 4 * SET_KINDS; trial++) {
        size_t n = trial < SET_KINDS ? capacity : 50 + (size_t)trial * 7;
        make_set(&r, trial % SET_KINDS, n, points);
        sr_dsphere ball;
        cr_assert_eq(sr_bound_sphere_points(points, n, &ball, NULL), SR_OK);
        check_minimal_ball(points, n, ball, "large set", trial);
    }
    free(points);
}

Test(collide_bounds, welzl_is_deterministic_and_ignores_the_order_of_the_input)
{
    rng r = {0x3e14};
    sr_dvec3 points[300], shuffled[300];
    for (int trial = 0; trial < 20; trial++) {
        make_set(&r, trial % SET_KINDS, 300, points);
        sr_dsphere first, second;
        sr_bound_sphere_points(points, 300, &first, NULL);
        sr_bound_sphere_points(points, 300, &second, NULL);
        cr_assert(memcmp(&first, &second, sizeof first) == 0, "trial %d: two calls, two answers", trial);
        /* another order of the same points: the same ball (it is unique), up to rounding */
        for (int i = 0; i < 300; i++)
            shuffled[i] = points[(i * 7 + 3) % 300];
        sr_bound_sphere_points(shuffled, 300, &second, NULL);
        double scale = set_scale(points, 300) + 1e-12 * brute_max_abs(points, 300);
        cr_assert(fabs(first.radius - second.radius) <= 1e-9 * scale, "trial %d: radius depends on the order", trial);
    }
}

Test(collide_bounds, welzl_analytic)
{
    /* a regular tetrahedron's corners: the circumsphere, radius sqrt(3) */
    const sr_dvec3 tetrahedron[4] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
    sr_dsphere ball;
    sr_bound_sphere_points(tetrahedron, 4, &ball, NULL);
    cr_assert(fabs(ball.radius - sqrt(3.0)) < 1e-14 && sr_dvec3_length(ball.centre) < 1e-14);
    /* an obtuse triangle: the ball of its longest side, not its circumcircle */
    const sr_dvec3 obtuse[3] = {{-1, 0, 0}, {1, 0, 0}, {0, 0.1, 0}};
    sr_bound_sphere_points(obtuse, 3, &ball, NULL);
    cr_assert(fabs(ball.radius - 1.0) < 1e-15 && sr_dvec3_length(ball.centre) < 1e-15);
    /* the corners of a cube and its centre: the cube's circumsphere */
    sr_dvec3 cube[9];
    for (int i = 0; i < 8; i++)
        cube[i] = sr_dvec3_make(i & 1 ? 2 : 0, i & 2 ? 2 : 0, i & 4 ? 2 : 0);
    cube[8] = sr_dvec3_make(1, 1, 1);
    sr_bound_sphere_points(cube, 9, &ball, NULL);
    cr_assert(fabs(ball.radius - sqrt(3.0)) < 1e-14 && sr_dvec3_length(sr_dvec3_sub(ball.centre, cube[8])) < 1e-14);
}

Test(collide_bounds, shape_box_and_kdop_equal_the_analytic_support)
{
    rng r = {0x5a9e};
    sr_hull *hulls[4];
    make_hulls(&r, hulls);
    const int ks[4] = {6, 14, 18, 26};
    for (int index = 0; index < 2000; index++) {
        sr_shape s = random_shape(&r, index, hulls);
        double scale = sr_dvec3_length(s.pose.position) + 10.0;
        sr_dbox box = sr_shape_bounds(&s);
        const sr_dvec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        const double lo[3] = {box.min.x, box.min.y, box.min.z}, hi[3] = {box.max.x, box.max.y, box.max.z};
        for (int k = 0; k < 3; k++) {
            double expected_hi = analytic_support(&s, axes[k]),
                   expected_lo = -analytic_support(&s, sr_dvec3_negate(axes[k]));
            cr_assert(fabs(hi[k] - expected_hi) <= 1e-13 * scale && fabs(lo[k] - expected_lo) <= 1e-13 * scale,
                      "%s %d axis %d: [%.17g, %.17g], analytic [%.17g, %.17g]", sr_shape_type_name(s.type), index, k,
                      lo[k], hi[k], expected_lo, expected_hi);
        }
        sr_aabb f = sr_dbox_to_aabb(box);
        cr_assert(f.min.x <= box.min.x && f.max.z >= box.max.z);
        sr_kdop dop;
        int k = ks[index % 4];
        cr_assert_eq(sr_shape_kdop(&s, k, &dop, NULL), SR_OK);
        for (int slot = 0; slot < 13; slot++) {
            if (!sr_kdop_uses_slot(k, slot))
                continue;
            sr_dvec3 axis = sr_kdop_axis(slot);
            double expected_hi = analytic_support(&s, axis), expected_lo = -analytic_support(&s, sr_dvec3_negate(axis));
            cr_assert(fabs(dop.max[slot] - expected_hi) <= 1e-13 * scale &&
                          fabs(dop.min[slot] - expected_lo) <= 1e-13 * scale,
                      "%s %d slot %d of the %d-DOP: [%.17g, %.17g], analytic [%.17g, %.17g]",
                      sr_shape_type_name(s.type), index, slot, k, dop.min[slot], dop.max[slot], expected_lo,
                      expected_hi);
        }
    }
    for (int h = 0; h < 4; h++)
        sr_hull_destroy(hulls[h]);
}

/* The exact minimal spheres of the round shapes: the closed forms against Welzl's sphere of
 * their rims sampled densely (which it holds, and exceeds by less than the sampling's error). */
Test(collide_bounds, round_shapes_minimal_sphere_closed_forms)
{
    rng r = {0x5fe7e};
    enum { SAMPLES = 720 };
    static sr_dvec3 rim[2 * SAMPLES + 1];
    for (int index = 0; index < 200; index++) {
        bool cone = index % 2;
        double radius = rng_double_range(&r, 0.1, 2), half = rng_double_range(&r, 0.05, 2);
        sr_shape s = cone ? sr_shape_cone(radius, half) : sr_shape_cylinder(radius, half);
        s.pose = sr_pose_make(rng_dvec3(&r, -5, 5), rng_rotation(&r));
        size_t n = 0;
        for (int i = 0; i < SAMPLES; i++) {
            double angle = 2 * M_PI * i / SAMPLES;
            sr_dvec3 local = sr_dvec3_make(radius * cos(angle), radius * sin(angle), -half);
            rim[n++] = sr_pose_apply(s.pose, local);
            if (!cone) {
                local.z = half;
                rim[n++] = sr_pose_apply(s.pose, local);
            }
        }
        if (cone)
            rim[n++] = sr_pose_apply(s.pose, sr_dvec3_make(0, 0, half));
        sr_dsphere exact, sampled;
        sr_shape_bounding_sphere(&s, &exact, NULL);
        sr_bound_sphere_points(rim, n, &sampled, NULL);
        /* the sampled rim lies within radius * (1 - cos(pi / SAMPLES)) of the true one */
        double sampling = radius * (1 - cos(M_PI / SAMPLES));
        cr_assert(exact.radius >= sampled.radius - 1e-12 && exact.radius <= sampled.radius + sampling + 1e-12,
                  "%s %d (r %g, h %g): radius %.17g, sampled %.17g", cone ? "cone" : "cylinder", index, radius, half,
                  exact.radius, sampled.radius);
        cr_assert(sr_dvec3_length(sr_dvec3_sub(exact.centre, sampled.centre)) <= 1e-3 * radius + 1e-9);
    }
}

Test(collide_bounds, hull_and_triangle_spheres_equal_the_brute_force)
{
    rng r = {0x4e11};
    sr_dvec3 points[10];
    for (int index = 0; index < 300; index++) {
        int n = index % 3 == 0 ? 3 : 4 + index % 7;
        make_set(&r, index % 6, (size_t)n, points);
        sr_shape s;
        sr_hull *hull = NULL;
        if (n == 3) {
            s = sr_shape_triangle(points[0], points[1], points[2]);
        } else {
            cr_assert_eq(sr_hull_create(points, (size_t)n, &hull, NULL), SR_OK);
            s = sr_shape_hull(hull);
        }
        s.pose = sr_pose_make(rng_dvec3(&r, -3, 3), rng_rotation(&r));
        s.rounding = index % 2 ? 0.25 : 0.0;
        sr_dvec3 world[10];
        for (int i = 0; i < n; i++)
            world[i] = sr_pose_apply(s.pose, points[i]);
        sr_dsphere ours, brute = brute_minimal_ball(world, n);
        cr_assert_eq(sr_shape_bounding_sphere(&s, &ours, NULL), SR_OK);
        cr_assert(fabs(ours.radius - (brute.radius + s.rounding)) < 1e-9, "%d: radius %.17g, brute force %.17g", index,
                  ours.radius, brute.radius + s.rounding);
        cr_assert(sr_dvec3_length(sr_dvec3_sub(ours.centre, brute.centre)) < 1e-6, "%d: centre", index);
        sr_hull_destroy(hull);
    }
}

Test(collide_bounds, shape_errors_name_the_problem)
{
    sr_shape s = sr_shape_sphere(-1);
    sr_error err;
    sr_dobb box;
    sr_dsphere sphere;
    sr_kdop dop;
    cr_assert_eq(sr_shape_obb(&s, &box, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "radius"), "%s", err.message);
    cr_assert_eq(sr_shape_bounding_sphere(&s, &sphere, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_shape_kdop(&s, 14, &dop, &err), SR_ERROR_INVALID_ARGUMENT);
    s = sr_shape_sphere(1);
    cr_assert_eq(sr_shape_kdop(&s, 7, &dop, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "k is 7"), "%s", err.message);
    sr_shape bad = sr_shape_box(sr_dvec3_make(1, NAN, 1));
    sr_dbox empty = sr_shape_bounds(&bad);
    cr_assert(empty.min.x > empty.max.x, "an invalid shape has an empty box");
}
