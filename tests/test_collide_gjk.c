/* tests/test_collide_gjk.c — GJK (src/collide/gjk.c): sr_collide_distance and sr_collide_intersect
 * against analytic answers (spheres, axis-aligned boxes, a point against every curved shape in its
 * own frame) and the brute force of collide_core_brute.h (polytope pairs from every feature pair);
 * witness points on their shapes and as far apart as the distance; touching, identical and nested
 * shapes; 1e-3 and 1e3 scales 1e3 from the origin; determinism, warm starts, traces whose last step
 * is the answer, the iteration cap, invalid shapes. */
#include <criterion/criterion.h>

#include "collide_core_brute.h"

#include <softrast/collide.h>

#include <string.h>

/* Tolerances of the contract (L: the smaller shape's size): distance and witness points within
 * 1e-4 max(L, d). GJK does far better; these tests ask for 1e-9 of the scale where the answer is
 * analytic. */
#define TIGHT 1e-9

static sr_collide_result distance_of(const sr_shape *a, const sr_shape *b)
{
    sr_collide_result r;
    cr_assert_eq(sr_collide_distance(a, b, NULL, &r), SR_COLLIDE_OK);
    cr_assert(r.status == SR_COLLIDE_OK);
    cr_assert(isfinite(r.distance) && sr_dvec3_is_finite(r.normal) && sr_dvec3_is_finite(r.point_a) &&
              sr_dvec3_is_finite(r.point_b));
    cr_assert(fabs(vlength(r.normal) - 1) < 1e-12);
    /* the same bits again */
    sr_collide_result again;
    sr_collide_distance(a, b, NULL, &again);
    cr_assert(memcmp(&r, &again, sizeof r) == 0, "a second call gave other bits");
    return r;
}

static sr_shape posed(sr_shape s, sr_dvec3 position, sr_dquat rotation)
{
    s.pose = sr_pose_make(position, rotation);
    return s;
}

/* ---- analytic answers ---- */

Test(collide_gjk, sphere_sphere)
{
    drng r = {1};
    for (int k = 0; k < COUNT(2000); k++) {
        double scale = k % 3 == 0 ? 1e-3 : k % 3 == 1 ? 1 : 1e3;
        sr_dvec3 base = k % 2 ? vscale(drng_direction(&r), 1e3) : v3(0, 0, 0);
        double ra = drng_range(&r, 0.1, 1) * scale, rb = drng_range(&r, 0.1, 1) * scale;
        sr_dvec3 ca = vadd(base, drng_vec(&r, -scale, scale)), cb = vadd(base, drng_vec(&r, -3 * scale, 3 * scale));
        sr_shape a = posed(sr_shape_sphere(ra), ca, drng_rotation(&r));
        sr_shape b = posed(sr_shape_sphere(rb), cb, drng_rotation(&r));
        sr_collide_result res = distance_of(&a, &b);
        double expected = vdistance(ca, cb) - ra - rb;
        double tolerance = TIGHT * (scale + 1e3 * (k % 2));
        if (expected > tolerance) {
            cr_assert(!res.hit);
            cr_assert(fabs(res.distance - expected) <= tolerance, "distance %.17g, expected %.17g", res.distance,
                      expected);
            sr_dvec3 n = vscale(vsub(cb, ca), 1 / vdistance(ca, cb));
            cr_assert(vdistance(res.normal, n) < 1e-9);
            cr_assert(vdistance(res.point_a, vadd(ca, vscale(n, ra))) <= tolerance);
            cr_assert(vdistance(res.point_b, vsub(cb, vscale(n, rb))) <= tolerance);
        } else if (expected < -tolerance) {
            cr_assert(res.hit);
            cr_assert_eq(res.distance, 0);
            cr_assert(vdistance(res.point_a, ca) <= ra + tolerance && vdistance(res.point_a, cb) <= rb + tolerance,
                      "the common point is not in both spheres");
        }
    }
}

/* Boxes with the identity rotation: the distance is the length of the per-axis gaps. */
Test(collide_gjk, axis_aligned_boxes)
{
    drng r = {2};
    for (int k = 0; k < COUNT(2000); k++) {
        sr_dvec3 ha = drng_vec(&r, 0.05, 1), hb = drng_vec(&r, 0.05, 1);
        sr_dvec3 ca = drng_vec(&r, -1, 1), cb = drng_vec(&r, -3, 3);
        sr_shape a = posed(sr_shape_box(ha), ca, sr_dquat_identity());
        sr_shape b = posed(sr_shape_box(hb), cb, sr_dquat_identity());
        sr_dvec3 gap = v3(fmax(fabs(cb.x - ca.x) - ha.x - hb.x, 0), fmax(fabs(cb.y - ca.y) - ha.y - hb.y, 0),
                          fmax(fabs(cb.z - ca.z) - ha.z - hb.z, 0));
        double expected = vlength(gap);
        sr_collide_result res = distance_of(&a, &b);
        if (expected > 1e-9) {
            cr_assert(!res.hit);
            cr_assert(fabs(res.distance - expected) < 1e-9, "distance %.17g, expected %.17g", res.distance, expected);
            cr_assert(fabs(vdistance(res.point_a, res.point_b) - expected) < 1e-9);
            cr_assert(brute_point_core(&a, res.point_a) < 1e-9 && brute_point_core(&b, res.point_b) < 1e-9,
                      "witness points off their boxes");
        } else if (fmin(fmin(-(fabs(cb.x - ca.x) - ha.x - hb.x), -(fabs(cb.y - ca.y) - ha.y - hb.y)),
                        -(fabs(cb.z - ca.z) - ha.z - hb.z)) > 1e-9) {
            cr_assert(res.hit);
            cr_assert(brute_point_core(&a, res.point_a) < 1e-9 && brute_point_core(&b, res.point_a) < 1e-9);
        }
    }
}

/* A sphere against every shape type: the distance from its centre to the other's core, minus the
 * radii, computed in the other's frame. */
Test(collide_gjk, sphere_against_every_shape)
{
    drng r = {3};
    for (int k = 0; k < COUNT(3000); k++) {
        sr_shape b;
        switch (k % 5) {
        case 0:
            b = sr_shape_box(drng_vec(&r, 0.1, 1));
            break;
        case 1:
            b = sr_shape_capsule(drng_range(&r, 0.05, 0.5), drng_range(&r, 0, 1));
            break;
        case 2:
            b = sr_shape_cylinder(drng_range(&r, 0.05, 1), drng_range(&r, 0.05, 1));
            break;
        case 3:
            b = sr_shape_cone(drng_range(&r, 0.05, 1), drng_range(&r, 0.05, 1));
            break;
        default:
            b = sr_shape_sphere(drng_range(&r, 0.05, 1));
            break;
        }
        b.rounding = k % 4 == 0 ? drng_range(&r, 0, 0.2) : 0;
        b.pose = sr_pose_make(drng_vec(&r, -1, 1), drng_rotation(&r));
        double ra = drng_range(&r, 0, 0.3);
        sr_dvec3 centre = drng_vec(&r, -3, 3);
        sr_shape a = posed(sr_shape_sphere(ra), centre, drng_rotation(&r));
        double expected = brute_point_core(&b, centre) - ra - sr_shape_core_radius(&b);
        sr_collide_result res = distance_of(&a, &b);
        if (expected > 1e-7) {
            cr_assert(!res.hit, "%s: hit, expected distance %g", sr_shape_type_name(b.type), expected);
            cr_assert(fabs(res.distance - expected) < 1e-7, "%s: distance %.12g, expected %.12g",
                      sr_shape_type_name(b.type), res.distance, expected);
            cr_assert(fabs(vdistance(res.point_a, centre) - ra) < 1e-9);
            cr_assert(fabs(brute_point_core(&b, res.point_b) - sr_shape_core_radius(&b)) < 1e-7,
                      "%s: point_b off the surface", sr_shape_type_name(b.type));
        } else if (expected < -1e-7) {
            cr_assert(res.hit, "%s: miss, expected depth %g", sr_shape_type_name(b.type), -expected);
        }
    }
}

/* ---- polytopes against brute force ---- */

static sr_shape random_polytope(drng *r, sr_hull **hull, double scale)
{
    *hull = NULL;
    switch (drng_int(r, 5)) {
    case 0:
        return sr_shape_box(vscale(drng_vec(r, 0.05, 1), scale));
    case 1:
        return sr_shape_triangle(vscale(drng_vec(r, -1, 1), scale), vscale(drng_vec(r, -1, 1), scale),
                                 vscale(drng_vec(r, -1, 1), scale));
    case 2:
        return sr_shape_segment(vscale(drng_vec(r, -1, 1), scale), vscale(drng_vec(r, -1, 1), scale));
    default: {
        sr_dvec3 points[12];
        int n = 4 + drng_int(r, 8);
        for (int i = 0; i < n; i++)
            points[i] = vscale(drng_vec(r, -1, 1), scale);
        cr_assert_eq(sr_hull_create(points, (size_t)n, hull, NULL), SR_OK);
        return sr_shape_hull(*hull);
    }
    }
}

Test(collide_gjk, polytope_pairs_against_every_feature_pair)
{
    drng r = {4};
    int apart = 0, overlapping = 0;
    for (int k = 0; k < COUNT(1500); k++) {
        double scale = k % 5 == 0 ? 1e-3 : k % 5 == 1 ? 1e3 : 1;
        sr_dvec3 base = k % 3 == 0 ? vscale(drng_direction(&r), 1e3) : v3(0, 0, 0);
        sr_hull *ha, *hb;
        sr_shape a = random_polytope(&r, &ha, scale), b = random_polytope(&r, &hb, scale);
        a.pose = sr_pose_make(vadd(base, vscale(drng_vec(&r, -1, 1), scale)), drng_rotation(&r));
        b.pose = sr_pose_make(vadd(base, vscale(drng_vec(&r, -2, 2), scale)), drng_rotation(&r));
        brute_poly pa = brute_poly_of(&a), pb = brute_poly_of(&b);
        double expected = brute_poly_distance(&pa, &pb);
        sr_collide_result res = distance_of(&a, &b);
        double tolerance = 1e-9 * scale + 1e-12 * vlength(base);
        if (expected > tolerance) {
            apart++;
            cr_assert(!res.hit, "case %d: hit, expected distance %g", k, expected);
            cr_assert(fabs(res.distance - expected) <= tolerance, "case %d: distance %.17g, expected %.17g", k,
                      res.distance, expected);
            cr_assert(fabs(vdistance(res.point_a, res.point_b) - res.distance) <= tolerance);
            cr_assert(brute_point_poly(res.point_a, &pa, NULL) <= tolerance, "case %d: point_a off A", k);
            cr_assert(brute_point_poly(res.point_b, &pb, NULL) <= tolerance, "case %d: point_b off B", k);
            cr_assert(vdistance(res.normal, vscale(vsub(res.point_b, res.point_a), 1 / res.distance)) < 1e-6);
        } else if (expected == 0 && pa.view.dimension == 3 && pb.view.dimension == 3) {
            /* overlap, unless only touching: the brute force's depth says which */
            sr_dvec3 axis;
            if (brute_poly_depth(&pa, &pb, &axis) > tolerance) {
                overlapping++;
                cr_assert(res.hit, "case %d: miss on overlapping polytopes", k);
                cr_assert(brute_point_poly(res.point_a, &pa, NULL) <= tolerance &&
                          brute_point_poly(res.point_a, &pb, NULL) <= tolerance);
            }
        }
        bool hit = !res.hit;
        cr_assert_eq(sr_collide_intersect(&a, &b, NULL, NULL, &hit), SR_COLLIDE_OK);
        if (fabs(expected) > tolerance || res.hit)
            cr_assert_eq(hit, res.hit, "case %d: intersect says %d, distance says %d", k, hit, res.hit);
        brute_poly_free(&pa);
        brute_poly_free(&pb);
        sr_hull_destroy(ha);
        sr_hull_destroy(hb);
    }
    cr_assert(apart > COUNT(1500) / 4 && overlapping > COUNT(1500) / 20, "apart %d, overlapping %d", apart,
              overlapping);
}

/* ---- degenerate pairs ---- */

Test(collide_gjk, identical_nested_and_touching_shapes)
{
    drng r = {5};
    sr_dvec3 points[12];
    for (int i = 0; i < 12; i++)
        points[i] = drng_vec(&r, -1, 1);
    sr_hull *hull;
    cr_assert_eq(sr_hull_create(points, 12, &hull, NULL), SR_OK);
    sr_shape shapes[] = {sr_shape_box(v3(1, 0.5, 0.25)), sr_shape_cylinder(0.5, 1),
                         sr_shape_cone(0.5, 1),          sr_shape_hull(hull),
                         sr_shape_capsule(0.3, 0.5),     sr_shape_sphere(0.7)};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        sr_pose pose = sr_pose_make(v3(1e3, -2e3, 5), drng_rotation(&r));
        sr_shape a = shapes[i], b = shapes[i];
        a.pose = b.pose = pose;
        sr_collide_result res = distance_of(&a, &b);
        cr_assert(res.hit, "identical %s: miss", sr_shape_type_name(a.type));
        /* a smaller copy inside */
        sr_shape inner = sr_shape_sphere(0.01);
        inner.pose = pose;
        res = distance_of(&a, &inner);
        cr_assert(res.hit, "%s around a small sphere: miss", sr_shape_type_name(a.type));
        bool hit = false;
        cr_assert_eq(sr_collide_intersect(&a, &inner, NULL, NULL, &hit), SR_COLLIDE_OK);
        cr_assert(hit);
    }
    /* unit boxes face to face at gaps 1e-4, 1e-6, 0, -1e-6, -1e-4 of their size */
    const double gaps[] = {1e-4, 1e-6, 0, -1e-6, -1e-4};
    for (int g = 0; g < 5; g++) {
        sr_dquat q = drng_rotation(&r);
        sr_shape a = posed(sr_shape_box(v3(0.5, 0.5, 0.5)), v3(0, 0, 0), q);
        sr_shape b = posed(sr_shape_box(v3(0.5, 0.5, 0.5)), sr_dquat_rotate(q, v3(1 + gaps[g], 0.3, -0.2)), q);
        sr_collide_result res = distance_of(&a, &b);
        if (gaps[g] > 0) {
            cr_assert(!res.hit);
            cr_assert(fabs(res.distance - gaps[g]) < 1e-12, "gap %g: distance %.17g", gaps[g], res.distance);
        } else if (gaps[g] < 0) {
            cr_assert(res.hit);
        }
    }
    sr_hull_destroy(hull);
}

/* Flat and needle shapes: coplanar triangles, parallel segments. */
Test(collide_gjk, flat_and_needle_pairs)
{
    sr_shape a = sr_shape_triangle(v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0));
    sr_shape b = sr_shape_triangle(v3(0.2, 0.2, 0), v3(2, 0.2, 0), v3(0.2, 2, 0));
    cr_assert(distance_of(&a, &b).hit, "coplanar overlapping triangles");
    b = sr_shape_triangle(v3(1.5, 0, 0), v3(3, 0, 0), v3(1.5, 1, 0));
    sr_collide_result res = distance_of(&a, &b);
    cr_assert(!res.hit && fabs(res.distance - 0.5) < 1e-12, "coplanar triangles 0.5 apart: %g", res.distance);
    a = sr_shape_segment(v3(0, 0, 0), v3(1, 0, 0));
    b = sr_shape_segment(v3(0.5, 0.3, 0), v3(2, 0.3, 0));
    res = distance_of(&a, &b);
    cr_assert(!res.hit && fabs(res.distance - 0.3) < 1e-12, "parallel segments: %g", res.distance);
    b = sr_shape_segment(v3(2, 0, 0), v3(3, 0, 0));
    res = distance_of(&a, &b);
    cr_assert(!res.hit && fabs(res.distance - 1) < 1e-12, "collinear segments: %g", res.distance);
    b = sr_shape_segment(v3(0.5, -1, 0), v3(0.5, 1, 0));
    cr_assert(distance_of(&a, &b).hit, "crossing segments");
    sr_shape p = sr_shape_point();
    p.pose.position = v3(0.25, 0, 0);
    cr_assert(distance_of(&a, &p).hit, "a point on a segment");
}

/* Nearly parallel segment cores (segments, and rounded ones: capsules), 1e-10 to 1e-6 rad apart,
 * their lines 2e-9 to 1e-5 of the scale apart and crossing inside both seen along the common
 * perpendicular z: the distance is the lines' (less the radii) and the normal z. The endpoints are
 * exact in the shapes' frame (A along x in the plane z = 0, B in z = h), posed together by one
 * rotation. The closest point of the lines divides by a e - b^2 in Ericson's form, only rounding
 * at these angles: it fell anywhere along A, and with the cores 5e-9 apart the normal leaned off
 * z; the cross products' form is exact to the rounding. (Posing rounds the endpoints by 1e-16 of
 * the size, which turns the common perpendicular of nearly parallel lines by 1e-16 / angle: the
 * normal is asked to be within that, and within the rounding over the cores' distance.) */
Test(collide_gjk, nearly_parallel_segment_cores)
{
    drng r = {21};
    double worst_distance = 0, worst_normal = 0;
    for (int k = 0; k < COUNT(3000); k++) {
        double scale = k % 3 == 0 ? 1e-3 : k % 3 == 1 ? 1 : 1e3;
        double angle = exp(drng_range(&r, log(1e-10), log(1e-6)));
        double h = exp(drng_range(&r, log(2e-9), log(1e-5))) * scale;
        double half = drng_range(&r, 0.2, 1) * scale, along = drng_range(&r, -0.9, 0.9) * half;
        double rise = tan(angle) * half;
        sr_shape a = sr_shape_segment(v3(-half, 0, 0), v3(half, 0, 0));
        sr_shape b = sr_shape_segment(v3(along - half, -rise, h), v3(along + half, rise, h));
        double ra = 0, rb = 0;
        if (k % 2) { /* capsules, touching within h or overlapping by up to 1e-5 of the scale */
            ra = drng_range(&r, 0, 1) * h;
            rb = fmax(0, h - ra + drng_range(&r, -1, 1) * 1e-5 * scale);
            a.rounding = ra;
            b.rounding = rb;
        }
        a.pose = b.pose =
            sr_pose_make(k % 4 < 2 ? v3(0, 0, 0) : vscale(drng_direction(&r), 1e3 * scale), drng_rotation(&r));
        sr_dvec3 z = sr_dquat_rotate(a.pose.rotation, v3(0, 0, 1));
        double expected = h - ra - rb;
        double tolerance = 2e-15 * (vlength(a.pose.position) + scale);
        double leaning = 2e-15 / angle + tolerance / h;
        sr_collide_result res;
        cr_assert_eq(sr_collide_signed_distance(&a, &b, NULL, &res), SR_COLLIDE_OK);
        worst_distance = fmax(worst_distance, fabs(res.distance - expected) / tolerance);
        worst_normal = fmax(worst_normal, vdistance(res.normal, z) / leaning);
        cr_assert(fabs(res.distance - expected) <= tolerance, "case %d: signed distance %.17g, expected %.17g", k,
                  res.distance, expected);
        cr_assert(vdistance(res.normal, z) <= leaning,
                  "case %d (%g rad, cores %g apart): the normal is %g off the common perpendicular", k, angle, h,
                  vdistance(res.normal, z));
        cr_assert(fabs(vdot(vsub(res.point_b, res.point_a), z) - expected) <= 2 * tolerance,
                  "case %d: the witness points are %.17g apart along z, expected %.17g", k,
                  vdot(vsub(res.point_b, res.point_a), z), expected);
        if (expected > tolerance) {
            sr_collide_result apart = distance_of(&a, &b);
            cr_assert(!apart.hit && fabs(apart.distance - expected) <= tolerance &&
                          vdistance(apart.normal, z) <= leaning,
                      "case %d: distance %.17g, expected %.17g", k, apart.distance, expected);
        }
    }
    cr_log_info("nearly parallel cores: at most %.2g of the tolerance in distance, %.2g in the normal", worst_distance,
                worst_normal);
}

/* ---- warm starts, traces, limits, invalid shapes ---- */

Test(collide_gjk, intersect_warm_start_gives_the_same_answer)
{
    drng r = {6};
    for (int k = 0; k < COUNT(2000); k++) {
        sr_hull *ha, *hb;
        sr_shape a = random_polytope(&r, &ha, 1), b = random_polytope(&r, &hb, 1);
        a.rounding = k % 3 == 0 ? 0.1 : 0;
        a.pose = sr_pose_make(drng_vec(&r, -1, 1), drng_rotation(&r));
        b.pose = sr_pose_make(drng_vec(&r, -2, 2), drng_rotation(&r));
        sr_dvec3 axis = v3(0, 0, 0);
        bool cold, warm, random_start;
        cr_assert_eq(sr_collide_intersect(&a, &b, &axis, NULL, &cold), SR_COLLIDE_OK);
        cr_assert(sr_dvec3_is_finite(axis));
        cr_assert_eq(sr_collide_intersect(&a, &b, &axis, NULL, &warm), SR_COLLIDE_OK);
        cr_assert_eq(cold, warm, "case %d: warm start changed the answer", k);
        sr_dvec3 other = drng_direction(&r);
        cr_assert_eq(sr_collide_intersect(&a, &b, &other, NULL, &random_start), SR_COLLIDE_OK);
        sr_collide_result res = distance_of(&a, &b);
        if (res.hit || res.distance > 1e-9)
            cr_assert(cold == res.hit && random_start == res.hit, "case %d", k);
        if (!cold) { /* the axis left separates them: A - B is below zero along it */
            sr_dvec3 d = axis;
            sr_dvec3 w = vsub(sr_shape_support(&a, d), sr_shape_support(&b, vscale(d, -1)));
            cr_assert(vdot(w, d) < 0, "case %d: the axis left does not separate", k);
        }
        sr_hull_destroy(ha);
        sr_hull_destroy(hb);
    }
}

Test(collide_gjk, trace_records_the_steps_and_ends_at_the_answer)
{
    drng r = {7};
    sr_gjk_step steps[256];
    for (int k = 0; k < COUNT(500); k++) {
        sr_hull *ha, *hb = NULL;
        sr_shape a = random_polytope(&r, &ha, 1);
        sr_shape b = k % 2 ? sr_shape_cylinder(0.5, 0.7) : random_polytope(&r, &hb, 1);
        a.pose = sr_pose_make(drng_vec(&r, -1, 1), drng_rotation(&r));
        b.pose = sr_pose_make(drng_vec(&r, -2, 2), drng_rotation(&r));
        sr_collide_trace trace;
        memset(&trace, 0, sizeof trace);
        trace.gjk = steps;
        trace.gjk_capacity = 256;
        trace.gjk_count = 99; /* cleared by the query */
        sr_collide_options options = {.trace = &trace};
        sr_collide_result traced, plain;
        sr_collide_distance(&a, &b, &options, &traced);
        sr_collide_distance(&a, &b, NULL, &plain);
        cr_assert(memcmp(&traced, &plain, sizeof plain) == 0, "a trace changed the answer");
        if (traced.method == SR_COLLIDE_BY_CLOSED_FORM) { /* two segments: no iteration to trace */
            cr_assert_eq(trace.gjk_count, 0);
            sr_hull_destroy(ha);
            sr_hull_destroy(hb);
            continue;
        }
        cr_assert(trace.gjk_count >= 1 && trace.gjk_count <= (size_t)traced.iterations + 1);
        cr_assert_eq(trace.dropped, 0);
        const sr_gjk_step *last = &steps[trace.gjk_count - 1];
        if (!traced.hit) {
            sr_dvec3 difference = vsub(traced.point_a, traced.point_b);
            cr_assert(vdistance(last->closest, difference) < 1e-9, "case %d: the last step's closest point", k);
            cr_assert(fabs(last->upper_bound - traced.distance) < 1e-9);
            cr_assert(last->lower_bound <= last->upper_bound + 1e-12);
        } else {
            cr_assert(vlength(last->closest) < 1e-9);
        }
        for (size_t s = 0; s < trace.gjk_count; s++) {
            cr_assert(steps[s].simplex_count >= 1 && steps[s].simplex_count <= 4);
            double sum = 0;
            for (int v = 0; v < steps[s].simplex_count; v++)
                sum += steps[s].weights[v];
            cr_assert(fabs(sum - 1) < 1e-9, "step %zu: weights sum to %g", s, sum);
            if (s > 0)
                cr_assert(steps[s].upper_bound <= steps[s - 1].upper_bound + 1e-12, "upper bounds do not shrink");
        }
        /* a small capacity: the rest is counted, not stored */
        trace.gjk_capacity = 1;
        sr_collide_distance(&a, &b, &options, &traced);
        cr_assert(trace.gjk_count <= 1 && (trace.gjk_count + trace.dropped >= 1));
        sr_hull_destroy(ha);
        sr_hull_destroy(hb);
    }
}

Test(collide_gjk, iteration_cap_is_reported_and_never_hit_by_default)
{
    sr_shape a = posed(sr_shape_cylinder(1, 1), v3(0, 0, 0), sr_dquat_from_axis_angle(v3(1, 1, 0), 0.3));
    sr_shape b = posed(sr_shape_cone(1, 1), v3(2.5, 0.3, 0.2), sr_dquat_from_axis_angle(v3(0, 1, 1), 1.1));
    sr_collide_options options = {.max_iterations = 1};
    sr_collide_result res;
    cr_assert_eq(sr_collide_distance(&a, &b, &options, &res), SR_COLLIDE_ITERATION_CAP);
    cr_assert_eq(res.status, SR_COLLIDE_ITERATION_CAP);
    cr_assert(isfinite(res.distance) && res.iterations == 1);
    drng r = {8};
    int most = 0;
    for (int k = 0; k < COUNT(2000); k++) {
        a.pose = sr_pose_make(drng_vec(&r, -1, 1), drng_rotation(&r));
        b.pose = sr_pose_make(drng_vec(&r, -3, 3), drng_rotation(&r));
        cr_assert_eq(sr_collide_distance(&a, &b, NULL, &res), SR_COLLIDE_OK);
        most = res.iterations > most ? res.iterations : most;
    }
    cr_assert(most < 64, "curved pairs took up to %d iterations", most);
}

Test(collide_gjk, invalid_shapes_are_refused)
{
    sr_shape good = sr_shape_sphere(1);
    sr_shape bad = sr_shape_sphere(NAN);
    sr_collide_result res;
    memset(&res, 0x55, sizeof res);
    cr_assert_eq(sr_collide_distance(&good, &bad, NULL, &res), SR_COLLIDE_INVALID_SHAPE);
    cr_assert_eq(res.status, SR_COLLIDE_INVALID_SHAPE);
    cr_assert(!res.hit && res.distance == 0 && res.iterations == 0);
    cr_assert_eq(sr_collide_distance(&bad, &good, NULL, &res), SR_COLLIDE_INVALID_SHAPE);
    cr_assert_eq(sr_collide_distance(NULL, &good, NULL, &res), SR_COLLIDE_INVALID_SHAPE);
    bool hit = true;
    cr_assert_eq(sr_collide_intersect(&good, &bad, NULL, NULL, &hit), SR_COLLIDE_INVALID_SHAPE);
    cr_assert(!hit);
    bad = sr_shape_hull(NULL);
    cr_assert_eq(sr_collide_distance(&good, &bad, NULL, &res), SR_COLLIDE_INVALID_SHAPE);
    bad = sr_shape_box(v3(1, 1, 1));
    bad.pose.rotation = (sr_dquat){0.5, 0, 0, 0.5};
    cr_assert_eq(sr_collide_distance(&good, &bad, NULL, &res), SR_COLLIDE_INVALID_SHAPE);
    /* a NaN warm-start axis is ignored, not followed */
    sr_dvec3 axis = v3(NAN, 0, 0);
    sr_shape far = posed(sr_shape_sphere(1), v3(5, 0, 0), sr_dquat_identity());
    cr_assert_eq(sr_collide_intersect(&good, &far, &axis, NULL, &hit), SR_COLLIDE_OK);
    cr_assert(!hit && sr_dvec3_is_finite(axis));
}
