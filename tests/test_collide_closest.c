/* test_collide_closest.c — the closest points of src/collide/closest.c against an independent
 * computation: the closest point of the convex hull of the primitive's corners by enumerating
 * every subset of them (collide_brute.h), the optimality condition of a convex minimisation
 * ((p - q) . (v - q) <= 0 for every corner v of the primitive), analytic answers in every
 * Voronoi region, and degenerate primitives (zero-length segments, collinear and point
 * triangles, flat tetrahedra, parallel and crossing segments). */
#include "collide_brute.h"

#include <criterion/criterion.h>
#include <softrast/collide.h>

#include <math.h>

static double dist(sr_dvec3 a, sr_dvec3 b)
{
    return sr_dvec3_length(sr_dvec3_sub(a, b));
}

static bool near(sr_dvec3 a, sr_dvec3 b, double tolerance)
{
    return dist(a, b) <= tolerance;
}

/* q is the closest point to p of conv(v[0 .. n)): it lies in the set and agrees with the subset
 * brute force; and (p - q) . (v_i - q) <= 0 for every corner (first-order optimality). */
static void check_closest(sr_dvec3 p, const sr_dvec3 *v, int n, sr_dvec3 q, const char *what, int index)
{
    double scale = fmax(brute_max_abs(v, n), brute_max_abs(&p, 1));
    double size = 0.0;
    for (int i = 0; i < n; i++)
        size = fmax(size, dist(v[i], v[0]));
    double tolerance = 1e-12 * scale + 1e-10 * size;
    sr_dvec3 expected;
    double brute = brute_closest_in_hull(p, v, n, &expected);
    double ours = dist(p, q);
    cr_assert(isfinite(q.x) && isfinite(q.y) && isfinite(q.z), "%s %d: not finite", what, index);
    cr_assert(fabs(ours - brute) <= tolerance, "%s %d: distance %.17g, brute force %.17g (difference %.3g)", what,
              index, ours, brute, ours - brute);
    double in_set = brute_closest_in_hull(q, v, n, NULL);
    cr_assert(in_set <= tolerance, "%s %d: the point is %.3g outside the primitive", what, index, in_set);
    sr_dvec3 away = sr_dvec3_sub(p, q);
    for (int i = 0; i < n; i++) {
        double slope = sr_dvec3_dot(away, sr_dvec3_sub(v[i], q));
        cr_assert(slope <= tolerance * (ours + size), "%s %d: moving towards corner %d gets closer (%.3g)", what, index,
                  i, slope);
    }
}

/* ---- segments ---- */

Test(collide_closest, segment_matches_brute_force_and_parameter)
{
    rng r = {0x5e9e17};
    for (int i = 0; i < BRUTE_COUNT(20000, 2000); i++) {
        sr_dvec3 v[2] = {rng_dvec3(&r, -2, 2), rng_dvec3(&r, -2, 2)};
        if (i % 10 == 0)
            v[1] = v[0]; /* zero length */
        sr_dvec3 p = rng_dvec3(&r, -4, 4);
        double t = -1;
        sr_dvec3 q = sr_collide_closest_point_segment(p, v[0], v[1], &t);
        check_closest(p, v, 2, q, "segment", i);
        cr_assert(t >= 0.0 && t <= 1.0, "segment %d: t = %g", i, t);
        cr_assert(near(q, sr_dvec3_add(v[0], sr_dvec3_scale(sr_dvec3_sub(v[1], v[0]), t)), 1e-12),
                  "segment %d: the point is not a + t (b - a)", i);
    }
}

Test(collide_closest, segment_ends_are_returned_exactly)
{
    sr_dvec3 a = {0.1, 0.2, 0.3}, b = {1.7, -0.3, 0.9};
    double t;
    sr_dvec3 q = sr_collide_closest_point_segment(sr_dvec3_make(-5, 0, 0), a, b, &t);
    cr_assert(q.x == a.x && q.y == a.y && q.z == a.z && t == 0.0);
    q = sr_collide_closest_point_segment(sr_dvec3_make(9, -1, 2), a, b, &t);
    cr_assert(q.x == b.x && q.y == b.y && q.z == b.z && t == 1.0);
    q = sr_collide_closest_point_segment(sr_dvec3_make(3, 4, 5), a, a, NULL);
    cr_assert(q.x == a.x && q.y == a.y && q.z == a.z, "a zero-length segment is its point");
    /* the middle, perpendicular */
    q = sr_collide_closest_point_segment(sr_dvec3_make(0.5, 7, 0), sr_dvec3_make(0, 0, 0), sr_dvec3_make(1, 0, 0), &t);
    cr_assert(near(q, sr_dvec3_make(0.5, 0, 0), 1e-15) && fabs(t - 0.5) < 1e-15);
}

/* ---- triangles ---- */

static void check_triangle(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b, sr_dvec3 c, int index)
{
    sr_dvec3 weights = {-1, -1, -1};
    sr_dvec3 q = sr_collide_closest_point_triangle(p, a, b, c, &weights);
    const sr_dvec3 v[3] = {a, b, c};
    check_closest(p, v, 3, q, "triangle", index);
    double size = fmax(dist(a, b), fmax(dist(a, c), dist(b, c)));
    double scale = fmax(brute_max_abs(v, 3), brute_max_abs(&p, 1));
    cr_assert(weights.x >= 0.0 && weights.y >= 0.0 && weights.z >= 0.0, "triangle %d: negative weight", index);
    cr_assert(fabs(weights.x + weights.y + weights.z - 1.0) < 1e-12, "triangle %d: weights sum to %.17g", index,
              weights.x + weights.y + weights.z);
    sr_dvec3 from_weights = sr_dvec3_add(sr_dvec3_add(sr_dvec3_scale(a, weights.x), sr_dvec3_scale(b, weights.y)),
                                         sr_dvec3_scale(c, weights.z));
    cr_assert(near(q, from_weights, 1e-12 * scale + 1e-9 * size), "triangle %d: the weights give another point", index);
}

Test(collide_closest, triangle_matches_brute_force)
{
    rng r = {0x7a1a};
    for (int i = 0; i < BRUTE_COUNT(20000, 2000); i++) {
        sr_dvec3 a = rng_dvec3(&r, -1, 1), b = rng_dvec3(&r, -1, 1), c = rng_dvec3(&r, -1, 1);
        sr_dvec3 p = rng_dvec3(&r, -2, 2);
        if (i % 4 == 1) { /* p in the triangle's plane, where the regions meet */
            double u = rng_double_range(&r, -1, 2), v = rng_double_range(&r, -1, 2);
            p = sr_dvec3_add(
                a, sr_dvec3_add(sr_dvec3_scale(sr_dvec3_sub(b, a), u), sr_dvec3_scale(sr_dvec3_sub(c, a), v)));
        }
        check_triangle(p, a, b, c, i);
    }
}

Test(collide_closest, triangle_far_from_the_origin_and_at_small_and_large_scales)
{
    rng r = {0xfa4};
    const double scales[3] = {1e-3, 1.0, 1e3};
    for (int i = 0; i < BRUTE_COUNT(6000, 600); i++) {
        double s = scales[i % 3];
        sr_dvec3 centre = i % 2 ? rng_dvec3(&r, -1e3, 1e3) : sr_dvec3_make(0, 0, 0);
        sr_dvec3 a = sr_dvec3_add(centre, sr_dvec3_scale(rng_dvec3(&r, -1, 1), s));
        sr_dvec3 b = sr_dvec3_add(centre, sr_dvec3_scale(rng_dvec3(&r, -1, 1), s));
        sr_dvec3 c = sr_dvec3_add(centre, sr_dvec3_scale(rng_dvec3(&r, -1, 1), s));
        sr_dvec3 p = sr_dvec3_add(centre, sr_dvec3_scale(rng_dvec3(&r, -2, 2), s));
        check_triangle(p, a, b, c, i);
    }
}

Test(collide_closest, triangle_voronoi_regions_analytic)
{
    /* a = origin, b = x, c = y; one point in each of the seven regions and on their borders */
    sr_dvec3 a = {0, 0, 0}, b = {1, 0, 0}, c = {0, 1, 0};
    struct {
        sr_dvec3 p, expected, weights;
    } cases[] = {
        {{-1, -1, 1}, {0, 0, 0}, {1, 0, 0}},              /* vertex a */
        {{3, -1, -2}, {1, 0, 0}, {0, 1, 0}},              /* vertex b */
        {{-0.5, 4, 0}, {0, 1, 0}, {0, 0, 1}},             /* vertex c */
        {{0.25, -1, 2}, {0.25, 0, 0}, {0.75, 0.25, 0}},   /* edge ab */
        {{-3, 0.5, -1}, {0, 0.5, 0}, {0.5, 0, 0.5}},      /* edge ac */
        {{1, 1, 5}, {0.5, 0.5, 0}, {0, 0.5, 0.5}},        /* edge bc */
        {{0.2, 0.3, -4}, {0.2, 0.3, 0}, {0.5, 0.2, 0.3}}, /* face, below */
        {{0.2, 0.3, 4}, {0.2, 0.3, 0}, {0.5, 0.2, 0.3}},  /* face, above */
        {{0, 0, 0}, {0, 0, 0}, {1, 0, 0}},                /* on vertex a */
        {{0.5, 0, 0}, {0.5, 0, 0}, {0.5, 0.5, 0}},        /* on edge ab */
        {{0, -1, 0}, {0, 0, 0}, {1, 0, 0}},               /* border of vertex a and edge ab */
        {{1, -1, 0}, {1, 0, 0}, {0, 1, 0}},               /* border of vertex b and edge ab */
        {{2, 1, 0}, {1, 0, 0}, {0, 1, 0}},                /* border of vertex b and edge bc */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sr_dvec3 weights;
        sr_dvec3 q = sr_collide_closest_point_triangle(cases[i].p, a, b, c, &weights);
        cr_assert(near(q, cases[i].expected, 1e-15), "case %zu: (%g, %g, %g)", i, q.x, q.y, q.z);
        cr_assert(near(weights, cases[i].weights, 1e-15), "case %zu: weights (%g, %g, %g)", i, weights.x, weights.y,
                  weights.z);
        /* every cyclic relabelling of the corners gives the same point */
        sr_dvec3 q2 = sr_collide_closest_point_triangle(cases[i].p, b, c, a, NULL);
        sr_dvec3 q3 = sr_collide_closest_point_triangle(cases[i].p, c, a, b, NULL);
        cr_assert(near(q2, q, 1e-15) && near(q3, q, 1e-15), "case %zu: depends on the order of the corners", i);
    }
}

Test(collide_closest, degenerate_triangles)
{
    rng r = {0xde6};
    for (int i = 0; i < BRUTE_COUNT(6000, 600); i++) {
        sr_dvec3 a = rng_dvec3(&r, -1, 1), b = rng_dvec3(&r, -1, 1);
        sr_dvec3 c;
        switch (i % 5) {
        case 0:
            c = sr_dvec3_add(a, sr_dvec3_scale(sr_dvec3_sub(b, a), rng_double_range(&r, -1, 2)));
            break;
        case 1:
            c = a;
            break; /* two corners equal */
        case 2:
            c = b = a;
            break; /* a point */
        case 3:
            c = sr_dvec3_add(a, sr_dvec3_scale(sr_dvec3_sub(b, a), 0.5));
            b = a;
            break;
        default: /* a sliver: c 1e-12 off the line ab */
            c = sr_dvec3_add(sr_dvec3_add(a, sr_dvec3_scale(sr_dvec3_sub(b, a), rng_double_range(&r, 0, 1))),
                             sr_dvec3_scale(rng_unit_dvec3(&r), 1e-12));
        }
        sr_dvec3 p = rng_dvec3(&r, -2, 2);
        sr_dvec3 weights;
        sr_dvec3 q = sr_collide_closest_point_triangle(p, a, b, c, &weights);
        const sr_dvec3 v[3] = {a, b, c};
        /* the degenerate triangle is a segment or a point: its corners' hull */
        check_closest(p, v, 3, q, "degenerate triangle", i);
        cr_assert(isfinite(weights.x) && isfinite(weights.y) && isfinite(weights.z));
        cr_assert(fabs(weights.x + weights.y + weights.z - 1.0) < 1e-12);
    }
}

/* ---- boxes ---- */

Test(collide_closest, box_matches_brute_force_over_its_corners)
{
    rng r = {0xb0c5};
    for (int i = 0; i < BRUTE_COUNT(5000, 500); i++) {
        sr_pose pose = {rng_dvec3(&r, -3, 3), rng_rotation(&r)};
        if (i % 7 == 0)
            pose.rotation = (sr_dquat){0, 0, 0, 0}; /* zero: the identity */
        sr_dvec3 h = rng_dvec3(&r, 0, 1.5);
        if (i % 11 == 0)
            h.y = 0.0; /* a flat box */
        sr_dvec3 p = sr_dvec3_add(pose.position, rng_dvec3(&r, -3, 3));
        sr_dvec3 q = sr_collide_closest_point_box(p, pose, h);
        sr_dvec3 corners[8];
        for (int k = 0; k < 8; k++) {
            sr_dvec3 local = {k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z};
            corners[k] = sr_dvec3_add(i % 7 == 0 ? local : sr_dquat_rotate(pose.rotation, local), pose.position);
        }
        check_closest(p, corners, 8, q, "box", i);
    }
}

Test(collide_closest, box_returns_a_point_inside_itself)
{
    sr_pose pose = {{1e3, -2e3, 5}, sr_dquat_from_axis_angle(sr_dvec3_make(1, 2, 3), 0.7)};
    sr_dvec3 p = sr_dvec3_add(pose.position, sr_dvec3_make(0.1, -0.2, 0.05));
    sr_dvec3 q = sr_collide_closest_point_box(p, pose, sr_dvec3_make(1, 1, 1));
    cr_assert(q.x == p.x && q.y == p.y && q.z == p.z, "a point inside is returned as given");
    /* outside along a local axis: the face's centre */
    sr_dvec3 outside = sr_dvec3_add(pose.position, sr_dquat_rotate(pose.rotation, sr_dvec3_make(0, 0, 5)));
    q = sr_collide_closest_point_box(outside, pose, sr_dvec3_make(1, 2, 3));
    sr_dvec3 expected = sr_dvec3_add(pose.position, sr_dquat_rotate(pose.rotation, sr_dvec3_make(0, 0, 3)));
    cr_assert(near(q, expected, 1e-9));
}

/* ---- tetrahedra ---- */

Test(collide_closest, tetrahedron_matches_brute_force)
{
    rng r = {0x7e7};
    for (int i = 0; i < BRUTE_COUNT(6000, 600); i++) {
        sr_dvec3 v[4] = {rng_dvec3(&r, -1, 1), rng_dvec3(&r, -1, 1), rng_dvec3(&r, -1, 1), rng_dvec3(&r, -1, 1)};
        sr_dvec3 p = rng_dvec3(&r, -2, 2);
        if (i % 3 == 0) { /* inside: a convex combination */
            double w[4], sum = 0;
            for (int k = 0; k < 4; k++)
                sum += w[k] = rng_double(&r) + 1e-3;
            p = sr_dvec3_make(0, 0, 0);
            for (int k = 0; k < 4; k++)
                p = sr_dvec3_add(p, sr_dvec3_scale(v[k], w[k] / sum));
        }
        sr_dvec3 q = sr_collide_closest_point_tetrahedron(p, v[0], v[1], v[2], v[3]);
        check_closest(p, v, 4, q, "tetrahedron", i);
        if (i % 3 == 0)
            cr_assert(q.x == p.x && q.y == p.y && q.z == p.z, "tetrahedron %d: a point inside is returned as given", i);
    }
}

Test(collide_closest, flat_and_degenerate_tetrahedra)
{
    rng r = {0xf1a7};
    for (int i = 0; i < BRUTE_COUNT(6000, 600); i++) {
        sr_dvec3 v[4] = {rng_dvec3(&r, -1, 1), rng_dvec3(&r, -1, 1), rng_dvec3(&r, -1, 1), rng_dvec3(&r, -1, 1)};
        switch (i % 4) {
        case 0: /* d in the plane of abc, anywhere (inside or outside the triangle) */
            v[3] =
                sr_dvec3_add(v[0], sr_dvec3_add(sr_dvec3_scale(sr_dvec3_sub(v[1], v[0]), rng_double_range(&r, -1, 2)),
                                                sr_dvec3_scale(sr_dvec3_sub(v[2], v[0]), rng_double_range(&r, -1, 2))));
            break;
        case 1: /* all four on a line */
            for (int k = 2; k < 4; k++)
                v[k] = sr_dvec3_add(v[0], sr_dvec3_scale(sr_dvec3_sub(v[1], v[0]), rng_double_range(&r, -1, 2)));
            break;
        case 2: /* two pairs of equal corners */
            v[2] = v[0];
            v[3] = v[1];
            break;
        default: /* one point */
            v[1] = v[2] = v[3] = v[0];
        }
        sr_dvec3 p = rng_dvec3(&r, -2, 2);
        if (i % 8 < 2) /* p in the plane of the flat ones: inside or outside the polygon */
            p = sr_dvec3_add(v[0],
                             sr_dvec3_add(sr_dvec3_scale(sr_dvec3_sub(v[1], v[0]), rng_double_range(&r, -0.5, 1)),
                                          sr_dvec3_scale(sr_dvec3_sub(v[2], v[0]), rng_double_range(&r, -0.5, 1))));
        sr_dvec3 q = sr_collide_closest_point_tetrahedron(p, v[0], v[1], v[2], v[3]);
        check_closest(p, v, 4, q, "flat tetrahedron", i);
    }
}

Test(collide_closest, tetrahedron_either_winding)
{
    sr_dvec3 a = {0, 0, 0}, b = {1, 0, 0}, c = {0, 1, 0}, d = {0, 0, 1};
    sr_dvec3 p = {1, 1, 1};
    sr_dvec3 expected = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    cr_assert(near(sr_collide_closest_point_tetrahedron(p, a, b, c, d), expected, 1e-15));
    cr_assert(near(sr_collide_closest_point_tetrahedron(p, a, c, b, d), expected, 1e-15));
    sr_dvec3 inside = {0.1, 0.2, 0.3};
    sr_dvec3 q = sr_collide_closest_point_tetrahedron(inside, b, a, c, d);
    cr_assert(q.x == inside.x && q.y == inside.y && q.z == inside.z);
    /* below the face abc (z = 0) */
    cr_assert(near(sr_collide_closest_point_tetrahedron(sr_dvec3_make(0.2, 0.2, -3), a, b, c, d),
                   sr_dvec3_make(0.2, 0.2, 0), 1e-15));
}

/* ---- segment against segment ---- */

static void check_segments(sr_dvec3 p1, sr_dvec3 q1, sr_dvec3 p2, sr_dvec3 q2, int index)
{
    sr_dvec3 c1, c2;
    double squared = sr_collide_closest_segment_segment(p1, q1, p2, q2, &c1, &c2);
    /* the distance between the segments is the distance from the origin to their Minkowski
     * difference, the hull of the four differences of their ends */
    const sr_dvec3 differences[4] = {sr_dvec3_sub(p1, p2), sr_dvec3_sub(p1, q2), sr_dvec3_sub(q1, p2),
                                     sr_dvec3_sub(q1, q2)};
    double brute = brute_closest_in_hull(sr_dvec3_make(0, 0, 0), differences, 4, NULL);
    const sr_dvec3 ends[4] = {p1, q1, p2, q2};
    double scale = brute_max_abs(ends, 4);
    double tolerance = 1e-12 * scale;
    cr_assert(fabs(sqrt(squared) - brute) <= tolerance, "segments %d: distance %.17g, brute force %.17g", index,
              sqrt(squared), brute);
    cr_assert(fabs(dist(c1, c2) - sqrt(squared)) <= tolerance, "segments %d: the points are not that far apart", index);
    const sr_dvec3 first[2] = {p1, q1}, second[2] = {p2, q2};
    cr_assert(brute_closest_in_hull(c1, first, 2, NULL) <= tolerance, "segments %d: c1 is off the first", index);
    cr_assert(brute_closest_in_hull(c2, second, 2, NULL) <= tolerance, "segments %d: c2 is off the second", index);
}

Test(collide_closest, segment_segment_matches_brute_force)
{
    rng r = {0x5e65e6};
    for (int i = 0; i < BRUTE_COUNT(20000, 2000); i++) {
        sr_dvec3 p1 = rng_dvec3(&r, -1, 1), q1 = rng_dvec3(&r, -1, 1);
        sr_dvec3 p2 = rng_dvec3(&r, -1, 1), q2 = rng_dvec3(&r, -1, 1);
        switch (i % 8) {
        case 0:
            q1 = p1;
            break; /* a point and a segment */
        case 1:
            q2 = p2;
            break; /* a segment and a point */
        case 2:
            q1 = p1;
            q2 = p2;
            break; /* two points */
        case 3:    /* parallel, overlapping or not */
            q2 = sr_dvec3_add(p2, sr_dvec3_scale(sr_dvec3_sub(q1, p1), rng_double_range(&r, -2, 2)));
            break;
        case 4: /* collinear */
            p2 = sr_dvec3_add(p1, sr_dvec3_scale(sr_dvec3_sub(q1, p1), rng_double_range(&r, -2, 2)));
            q2 = sr_dvec3_add(p1, sr_dvec3_scale(sr_dvec3_sub(q1, p1), rng_double_range(&r, -2, 2)));
            break;
        case 5: /* nearly parallel: 1e-9 rad apart */
            q2 = sr_dvec3_add(sr_dvec3_add(p2, sr_dvec3_sub(q1, p1)), sr_dvec3_scale(rng_unit_dvec3(&r), 1e-9));
            break;
        case 6: /* crossing: they share a point */
        {
            sr_dvec3 x = sr_dvec3_add(p1, sr_dvec3_scale(sr_dvec3_sub(q1, p1), rng_double(&r)));
            q2 = sr_dvec3_add(x, sr_dvec3_sub(x, p2));
            break;
        }
        default:
            break;
        }
        check_segments(p1, q1, p2, q2, i);
        check_segments(q2, p2, q1, p1, i); /* the same pair reversed and swapped */
    }
}

Test(collide_closest, segment_segment_analytic)
{
    sr_dvec3 c1, c2;
    /* skew lines crossing at x = 0.5 (first) and y = 0.25 (second), 2 apart along z */
    double d = sr_collide_closest_segment_segment(sr_dvec3_make(0, 0, 0), sr_dvec3_make(1, 0, 0),
                                                  sr_dvec3_make(0.5, -1, 2), sr_dvec3_make(0.5, 3, 2), &c1, &c2);
    cr_assert(fabs(d - 4.0) < 1e-15 && near(c1, sr_dvec3_make(0.5, 0, 0), 1e-15) &&
              near(c2, sr_dvec3_make(0.5, 0, 2), 1e-15));
    /* parallel and overlapping on [0.5, 1]: distance 1, the points on the overlap */
    d = sr_collide_closest_segment_segment(sr_dvec3_make(0, 0, 0), sr_dvec3_make(1, 0, 0), sr_dvec3_make(0.5, 1, 0),
                                           sr_dvec3_make(2, 1, 0), &c1, &c2);
    cr_assert(fabs(d - 1.0) < 1e-15 && c1.x >= 0.5 && c1.x <= 1.0 && fabs(c2.x - c1.x) < 1e-15);
    /* collinear and disjoint: the facing ends */
    d = sr_collide_closest_segment_segment(sr_dvec3_make(0, 0, 0), sr_dvec3_make(1, 0, 0), sr_dvec3_make(3, 0, 0),
                                           sr_dvec3_make(2, 0, 0), &c1, &c2);
    cr_assert(fabs(d - 1.0) < 1e-15 && c1.x == 1.0 && c2.x == 2.0);
}
