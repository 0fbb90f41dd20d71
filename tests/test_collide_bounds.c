/* test_collide_bounds.c — the bounding volumes of src/collide/bounds*.c: every volume holds every
 * point (of a point set, or a shape's support points in many directions) and is tight: boxes and
 * k-DOPs touch a point on every side; Welzl's sphere has its centre in the hull of the points on
 * its sphere (the optimality certificate of the minimal ball) and equals a brute force over every
 * 2-, 3- and 4-point subset of small sets; the oriented box is never larger than the PCA box and
 * within a few percent of a brute-force search over rotations. */
#include "collide_brute.h"

#include <criterion/criterion.h>
#include <softrast/collide.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- point sets for the tests ---- */

enum { SET_KINDS = 9 };

/* A point set of kind `kind` (random cloud, duplicates, collinear, coplanar, cospherical, box
 * corners, one point, far from the origin, tiny), `count` points at most; returns the count. */
static size_t make_set(rng *r, int kind, size_t count, sr_dvec3 *out)
{
    sr_dvec3 centre = rng_dvec3(r, -2, 2);
    sr_dvec3 u = rng_unit_dvec3(r), v = sr_dvec3_normalize(sr_dvec3_cross(u, rng_unit_dvec3(r)));
    for (size_t i = 0; i < count; i++) {
        sr_dvec3 p;
        switch (kind) {
        case 0:
            p = rng_dvec3(r, -1, 1);
            break;
        case 1:
            p = i > 0 && i % 3 ? out[i / 2] : rng_dvec3(r, -1, 1);
            break; /* duplicates */
        case 2:
            p = sr_dvec3_scale(u, rng_double_range(r, -1, 1));
            break; /* on a line */
        case 3:    /* in a plane */
        {
            double a = rng_double_range(r, -1, 1);
            double b = rng_double_range(r, -1, 1);
            p = sr_dvec3_add(sr_dvec3_scale(u, a), sr_dvec3_scale(v, b));
            break;
        }
        case 4:
            p = rng_unit_dvec3(r);
            break; /* on a sphere */
        case 5:
            p = sr_dvec3_make(i & 1 ? 1 : -1, i & 2 ? 0.5 : -0.5, i & 4 ? 2 : -2);
            break; /* box corners */
        case 6:
            p = sr_dvec3_make(0.25, -0.5, 3);
            break; /* one point */
        case 7:
            p = sr_dvec3_add(sr_dvec3_make(1e3, -1e3, 1e3), rng_dvec3(r, -1, 1));
            break; /* far away */
        default:
            p = rng_dvec3(r, -1e-3, 1e-3);
            break; /* tiny */
        }
        out[i] = kind >= 7 || kind == 6 ? p : sr_dvec3_add(p, centre);
    }
    return count;
}

static double set_scale(const sr_dvec3 *p, size_t n)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        const double c[3] = {p[i].x, p[i].y, p[i].z};
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], c[k]);
            hi[k] = fmax(hi[k], c[k]);
        }
    }
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

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

/* Brute force: the smallest, among the balls through every 2, 3 and 4 points (diameter ball,
 * circumcircle in their plane, circumsphere), that holds every point. */
static sr_dsphere brute_minimal_ball(const sr_dvec3 *p, int n)
{
    double scale = set_scale(p, (size_t)n);
    sr_dsphere best = {p[0], scale == 0.0 ? 0.0 : INFINITY}; /* one point, maybe repeated */
    for (unsigned mask = 1; mask < (1u << n); mask++) {
        int members[4], size = 0;
        for (int i = 0; i < n && size <= 4; i++)
            if (mask & (1u << i)) {
                if (size < 4)
                    members[size] = i;
                size++;
            }
        if (size < 2 || size > 4)
            continue;
        /* the centre c = p0 + sum y_k e_k in the affine hull, equidistant from every member:
         * 2 e_j . (c - p0) = |e_j|^2 */
        sr_dvec3 origin = p[members[0]];
        sr_dvec3 e[3];
        int m = size - 1;
        for (int k = 0; k < m; k++)
            e[k] = sr_dvec3_sub(p[members[k + 1]], origin);
        double gram[3][3], rhs[3], y[3];
        for (int a = 0; a < m; a++) {
            for (int b = 0; b < m; b++)
                gram[a][b] = 2 * sr_dvec3_dot(e[a], e[b]);
            rhs[a] = sr_dvec3_dot(e[a], e[a]);
        }
        if (!brute_solve(gram, rhs, m, 1e-12 * scale * scale, y))
            continue;
        sr_dvec3 c = origin;
        for (int k = 0; k < m; k++)
            c = sr_dvec3_add(c, sr_dvec3_scale(e[k], y[k]));
        double radius = sr_dvec3_length(sr_dvec3_sub(origin, c));
        bool holds = true;
        for (int i = 0; i < n && holds; i++)
            holds = sr_dvec3_length(sr_dvec3_sub(p[i], c)) <= radius * (1 + 1e-12) + 1e-12 * scale;
        if (holds && radius < best.radius) {
            best.centre = c;
            best.radius = radius;
        }
    }
    return best;
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
