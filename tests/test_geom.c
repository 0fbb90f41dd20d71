/* tests/test_geom.c — tests of src/geom: rays, boxes, planes, OBBs, frustums and the ray queries.
 * Every answer is checked against an independent computation: double-precision clipping and
 * barycentrics, analytic values, corner/point brute force, or the clip-space definition of the
 * frustum. Links only sr_geom and sr_core: the closed meshes of the watertightness tests are
 * built here. This file: rays, boxes, planes, OBBs and ray/AABB; the program test_geom also holds
 * test_geom_triangle.c (ray/triangle, watertightness) and test_geom_volumes.c (ray/sphere, plane,
 * OBB; frustums); their helpers are in geom_test_helpers.h. */
#include <criterion/criterion.h>

#include <softrast/geom.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geom_test_helpers.h"

/* ------------------------------------------------------------------------------------------ */
/* Rays                                                                                        */

Test(ray, make_inverts_with_ieee_semantics)
{
    sr_ray r = sr_ray_make((sr_vec3){1, 2, 3}, (sr_vec3){0.0f, -0.0f, 4.0f}, 0.0f, 10.0f);
    cr_assert(isinf(r.inv_direction.x) && r.inv_direction.x > 0, "1/+0 must be +inf");
    cr_assert(isinf(r.inv_direction.y) && r.inv_direction.y < 0, "1/-0 must be -inf");
    cr_assert_eq(r.inv_direction.z, 0.25f);
    cr_assert_eq(r.tmin, 0.0f);
    cr_assert_eq(r.tmax, 10.0f);
    /* subnormal direction: 1/d overflows to infinity, never a clamped constant */
    sr_ray s = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){1e-40f, -1e-40f, 1.0f}, 0.0f, 1.0f);
    cr_assert(isinf(s.inv_direction.x) && s.inv_direction.x > 0);
    cr_assert(isinf(s.inv_direction.y) && s.inv_direction.y < 0);
    /* ... and the direction says the same: signed zeros */
    cr_assert(s.direction.x == 0 && !signbit(s.direction.x) && s.direction.y == 0 && signbit(s.direction.y));
    /* a subnormal whose reciprocal is finite is kept */
    sr_ray kept = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){5e-39f, 1, 0}, 0.0f, 1.0f);
    cr_assert(kept.direction.x == 5e-39f && isfinite(kept.inv_direction.x));
    /* the ray-space permutation puts z on the largest |direction| component */
    sr_vec3 dirs[4] = {{3, -1, 2}, {0.1f, -5, 2}, {1, 2, -7}, {0, 0, 0}};
    int expected_z[4] = {0, 1, 2, 0};
    for (int i = 0; i < 4; i++) {
        sr_ray q = sr_ray_make((sr_vec3){0, 0, 0}, dirs[i], 0, 1);
        cr_assert_eq(q.axis_z, expected_z[i], "case %d", i);
        cr_assert(q.axis_x != q.axis_z && q.axis_y != q.axis_z && q.axis_x != q.axis_y);
    }
}

Test(ray, make_poisons_non_finite_input)
{
    const float bad[3] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        for (int axis = 0; axis < 3; axis++) {
            float o[3] = {1, 2, 3}, d[3] = {0.5f, -1, 2};
            o[axis] = bad[i];
            sr_ray a = sr_ray_make((sr_vec3){o[0], o[1], o[2]}, (sr_vec3){0.5f, -1, 2}, 0, 1);
            cr_assert(isnan(a.tmin) && isnan(a.tmax));
            d[axis] = bad[i];
            sr_ray b = sr_ray_make((sr_vec3){1, 2, 3}, (sr_vec3){d[0], d[1], d[2]}, 0, 1);
            cr_assert(isnan(b.tmin) && isnan(b.tmax));
        }
    }
    sr_ray c = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, NAN, 1);
    cr_assert(isnan(c.tmin) && isnan(c.tmax));
    sr_ray d = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, 0, NAN);
    cr_assert(isnan(d.tmin) && isnan(d.tmax));
    /* a zero direction is a valid (point) ray, infinite tmax is valid */
    sr_ray e = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, 0}, 0, INFINITY);
    cr_assert_eq(e.tmin, 0.0f);
    cr_assert(isinf(e.tmax));
}

/* ------------------------------------------------------------------------------------------ */
/* Boxes, planes, OBBs                                                                         */

Test(aabb, empty_merge_grow_expand)
{
    sr_aabb e = sr_aabb_empty();
    cr_assert(sr_aabb_is_empty(e));
    cr_assert_eq(sr_aabb_surface_area(e), 0.0f);
    sr_aabb nan_box = {{0, NAN, 0}, {1, 1, 1}};
    cr_assert(sr_aabb_is_empty(nan_box));
    cr_assert(!sr_aabb_is_empty((sr_aabb){{1, 1, 1}, {1, 1, 1}}), "a point box is not empty");

    rng r = {1};
    for (int round = 0; round < 200; round++) {
        /* grow by points = the min/max of the points, computed by hand */
        sr_aabb box = sr_aabb_empty();
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        int n = 1 + (int)(rng_unit(&r) * 20);
        sr_vec3 points[20];
        for (int i = 0; i < n; i++) {
            points[i] = rng_vec3(&r, -100, 100);
            box = sr_aabb_grow(box, points[i]);
            for (int a = 0; a < 3; a++) {
                lo[a] = fmin(lo[a], dv_get(dv(points[i]), a));
                hi[a] = fmax(hi[a], dv_get(dv(points[i]), a));
            }
        }
        cr_assert(box.min.x == lo[0] && box.min.y == lo[1] && box.min.z == lo[2]);
        cr_assert(box.max.x == hi[0] && box.max.y == hi[1] && box.max.z == hi[2]);
        for (int i = 0; i < n; i++)
            cr_assert(sr_aabb_contains_point(box, points[i]), "grown box holds its points (closed)");
        /* NaN coordinates are ignored by grow */
        sr_aabb same = sr_aabb_grow(box, (sr_vec3){NAN, NAN, NAN});
        cr_assert(memcmp(&same, &box, sizeof box) == 0);

        /* merge = box of both; empty is the identity; contains both */
        sr_aabb other = random_box(&r, -100, 100, 50);
        sr_aabb merged = sr_aabb_merge(box, other);
        cr_assert(merged.min.x == fminf(box.min.x, other.min.x) && merged.max.z == fmaxf(box.max.z, other.max.z));
        cr_assert(sr_aabb_contains(merged, box) && sr_aabb_contains(merged, other));
        sr_aabb with_empty = sr_aabb_merge(other, sr_aabb_empty());
        cr_assert(memcmp(&with_empty, &other, sizeof other) == 0);
        cr_assert(sr_aabb_contains(other, sr_aabb_empty()), "the empty box is in every box");
        cr_assert(!sr_aabb_contains(sr_aabb_empty(), other));

        /* expand moves every face by the margin */
        float margin = rng_float(&r, 0, 5);
        sr_aabb expanded = sr_aabb_expand(other, margin);
        cr_assert(expanded.min.x == other.min.x - margin && expanded.max.y == other.max.y + margin);
        cr_assert(sr_aabb_contains(expanded, other));
    }
}

Test(aabb, measures)
{
    sr_aabb box = {{-1, 2, 3}, {3, 5, 4}}; /* extent 4, 3, 1 */
    cr_assert_eq(sr_aabb_surface_area(box), 2.0f * (4 * 3 + 3 * 1 + 1 * 4));
    sr_vec3 c = sr_aabb_centre(box);
    cr_assert(c.x == 1 && c.y == 3.5f && c.z == 3.5f);
    sr_vec3 e = sr_aabb_extent(box);
    cr_assert(e.x == 4 && e.y == 3 && e.z == 1);
    /* a flat box has the area of its two faces */
    cr_assert_eq(sr_aabb_surface_area((sr_aabb){{0, 0, 0}, {2, 3, 0}}), 12.0f);
    /* centre does not overflow for bounds near FLT_MAX */
    sr_vec3 big = sr_aabb_centre((sr_aabb){{FLT_MAX, FLT_MAX, -FLT_MAX}, {FLT_MAX, FLT_MAX, FLT_MAX}});
    cr_assert(big.x == FLT_MAX && big.z == 0.0f);
}

Test(aabb, overlap_and_containment_are_closed)
{
    sr_aabb a = {{0, 0, 0}, {1, 1, 1}};
    cr_assert(sr_aabb_overlaps(a, (sr_aabb){{1, 0, 0}, {2, 1, 1}}), "touching faces overlap");
    cr_assert(sr_aabb_overlaps(a, (sr_aabb){{1, 1, 1}, {2, 2, 2}}), "touching corners overlap");
    cr_assert(!sr_aabb_overlaps(a, (sr_aabb){{1.0000001f, 0, 0}, {2, 1, 1}}));
    cr_assert(!sr_aabb_overlaps(a, sr_aabb_empty()));
    cr_assert(sr_aabb_contains(a, a));
    cr_assert(sr_aabb_contains_point(a, (sr_vec3){1, 0, 0.5f}));
    cr_assert(!sr_aabb_contains_point(a, (sr_vec3){1, 0, NAN}));
    cr_assert(!sr_aabb_contains_point(a, (sr_vec3){-1e-7f, 0.5f, 0.5f}));

    /* random pairs against an interval brute force */
    rng r = {2};
    for (int i = 0; i < 5000; i++) {
        sr_aabb p = random_box(&r, -10, 10, 8), q = random_box(&r, -10, 10, 8);
        bool overlap = true, contains = true;
        for (int axis = 0; axis < 3; axis++) {
            double pl = dv_get(dv(p.min), axis), ph = dv_get(dv(p.max), axis);
            double ql = dv_get(dv(q.min), axis), qh = dv_get(dv(q.max), axis);
            overlap = overlap && fmax(pl, ql) <= fmin(ph, qh);
            contains = contains && pl <= ql && qh <= ph;
        }
        cr_assert_eq(sr_aabb_overlaps(p, q), overlap);
        cr_assert_eq(sr_aabb_overlaps(q, p), overlap);
        cr_assert_eq(sr_aabb_contains(p, q), contains);
    }
}

Test(aabb, transform_matches_transformed_corners)
{
    rng r = {3};
    for (int i = 0; i < 2000; i++) {
        sr_aabb box = random_box(&r, -5, 5, 4);
        sr_mat4 m = sr_mat4_identity();
        for (int row = 0; row < 3; row++) /* general affine: rotation, scale and shear */
            for (int column = 0; column < 4; column++)
                m.m[column * 4 + row] = rng_float(&r, -3, 3);
        sr_aabb t = sr_aabb_transform(box, m);
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        double scale = 0;
        for (int corner = 0; corner < 8; corner++) {
            dvec p = {corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                      corner & 4 ? box.max.z : box.min.z};
            for (int row = 0; row < 3; row++) {
                double v = m.m[12 + row];
                for (int column = 0; column < 3; column++) {
                    v += (double)m.m[column * 4 + row] * dv_get(p, column);
                    scale = fmax(scale, fabs((double)m.m[column * 4 + row] * dv_get(p, column)));
                }
                lo[row] = fmin(lo[row], v);
                hi[row] = fmax(hi[row], v);
            }
        }
        double tolerance = 1e-6 * (scale + 1);
        for (int row = 0; row < 3; row++) {
            cr_assert(fabs(dv_get(dv(t.min), row) - lo[row]) <= tolerance, "min %d: %g vs %g", row,
                      dv_get(dv(t.min), row), lo[row]);
            cr_assert(fabs(dv_get(dv(t.max), row) - hi[row]) <= tolerance, "max %d", row);
        }
    }
    cr_assert(sr_aabb_is_empty(sr_aabb_transform(sr_aabb_empty(), sr_mat4_identity())));
    sr_aabb shifted = sr_aabb_transform((sr_aabb){{0, 0, 0}, {1, 2, 3}}, sr_mat4_translation((sr_vec3){1, 1, 1}));
    cr_assert(shifted.min.x == 1 && shifted.max.z == 4);
}

Test(aabb, sphere_overlap_matches_closest_point)
{
    rng r = {4};
    int checked = 0;
    for (int i = 0; i < 20000; i++) {
        sr_aabb box = random_box(&r, -5, 5, 4);
        sr_sphere s = {rng_vec3(&r, -8, 8), rng_float(&r, 0, 4)};
        double d2 = 0;
        for (int axis = 0; axis < 3; axis++) {
            double c = dv_get(dv(s.centre), axis);
            double nearest = fmin(fmax(c, dv_get(dv(box.min), axis)), dv_get(dv(box.max), axis));
            d2 += (nearest - c) * (nearest - c);
        }
        double gap = sqrt(d2) - s.radius;
        if (fabs(gap) < 1e-5)
            continue; /* touching within rounding */
        checked++;
        cr_assert_eq(sr_aabb_sphere_overlap(box, s), gap < 0, "case %d gap %g", i, gap);
    }
    cr_assert(checked > 19000);
    sr_aabb unit = {{0, 0, 0}, {1, 1, 1}};
    cr_assert(sr_aabb_sphere_overlap(unit, (sr_sphere){{2, 0.5f, 0.5f}, 1.0f}), "touching counts");
    cr_assert(!sr_aabb_sphere_overlap(unit, (sr_sphere){{0.5f, 0.5f, 0.5f}, -1.0f}));
    cr_assert(!sr_aabb_sphere_overlap(unit, (sr_sphere){{0.5f, 0.5f, 0.5f}, NAN}));
    cr_assert(!sr_aabb_sphere_overlap(unit, (sr_sphere){{NAN, 0.5f, 0.5f}, 1.0f}));
    cr_assert(!sr_aabb_sphere_overlap(sr_aabb_empty(), (sr_sphere){{0, 0, 0}, 1e30f}));
}

Test(plane, helpers)
{
    sr_plane p = sr_plane_from_point_normal((sr_vec3){0, 2, 0}, (sr_vec3){0, 3, 0});
    cr_assert_eq(sr_plane_distance(p, (sr_vec3){5, 2, 7}), 0.0f);
    cr_assert_eq(sr_plane_distance(p, (sr_vec3){5, 3, 7}), 3.0f, "units of |normal|");
    sr_plane n = sr_plane_normalize(p);
    cr_assert(n.normal.y == 1.0f && n.d == -2.0f);
    cr_assert_eq(sr_plane_distance(n, (sr_vec3){5, -1, 7}), -3.0f);
    sr_plane zero = sr_plane_normalize((sr_plane){{0, 0, 0}, 4});
    cr_assert(zero.normal.x == 0 && zero.d == 4, "zero normal returned unchanged");
    rng r = {5};
    for (int i = 0; i < 1000; i++) {
        /* drawn in separate statements, in gcc's right-to-left order of the arguments they were:
         * C leaves that order unspecified (clang goes left to right), and the data must not
         * depend on the compiler */
        const double length = rng_range(&r, 0.1, 10);
        dvec normal = dv_scale(rng_direction(&r), length);
        sr_vec3 point = rng_vec3(&r, -10, 10), query = rng_vec3(&r, -10, 10);
        sr_plane q = sr_plane_normalize(sr_plane_from_point_normal(point, to_float(normal)));
        dvec nn = dv(q.normal);
        cr_assert(fabs(dv_length(nn) - 1) < 1e-6);
        double expected =
            dv_dot(dv_sub(dv(query), dv(point)), dv_scale(dv(to_float(normal)), 1 / dv_length(dv(to_float(normal)))));
        cr_assert(fabs(sr_plane_distance(q, query) - expected) < 1e-5 * 20, "%g vs %g", sr_plane_distance(q, query),
                  expected);
    }
}

Test(obb, from_aabb_bounds_and_containment)
{
    rng r = {6};
    for (int i = 0; i < 500; i++) {
        sr_aabb box = random_box(&r, -3, 3, 3);
        rigid t = random_rigid(&r);
        sr_obb obb = sr_obb_from_aabb(box, t.matrix);
        /* every transformed corner lies on the OBB's boundary: |local| = half extent per axis */
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int corner = 0; corner < 8; corner++) {
            dvec p = {corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                      corner & 4 ? box.max.z : box.min.z};
            dvec w = rigid_apply(&t, p);
            for (int axis = 0; axis < 3; axis++) {
                double local = dv_dot(dv_sub(w, dv(obb.centre)), dv(obb.axes[axis]));
                cr_assert(fabs(fabs(local) - dv_get(dv(obb.half_extents), axis)) < 1e-4, "corner %d axis %d", corner,
                          axis);
                lo[axis] = fmin(lo[axis], dv_get(w, axis));
                hi[axis] = fmax(hi[axis], dv_get(w, axis));
            }
        }
        sr_aabb bounds = sr_obb_bounds(&obb);
        for (int axis = 0; axis < 3; axis++) {
            cr_assert(fabs(dv_get(dv(bounds.min), axis) - lo[axis]) < 1e-4);
            cr_assert(fabs(dv_get(dv(bounds.max), axis) - hi[axis]) < 1e-4);
        }
        /* containment against the inverse transform in double, away from the faces */
        for (int k = 0; k < 20; k++) {
            sr_vec3 q = {rng_float(&r, lo[0] - 0.5, hi[0] + 0.5), rng_float(&r, lo[1] - 0.5, hi[1] + 0.5),
                         rng_float(&r, lo[2] - 0.5, hi[2] + 0.5)};
            dvec local = rigid_invert(&t, dv(q));
            double margin = INFINITY;
            bool inside = true;
            for (int axis = 0; axis < 3; axis++) {
                double l = dv_get(local, axis), mn = dv_get(dv(box.min), axis), mx = dv_get(dv(box.max), axis);
                double s = dv_get(t.scale, axis);
                inside = inside && l >= mn && l <= mx;
                margin = fmin(margin, fmin(fabs(l - mn), fabs(l - mx)) * s);
            }
            if (margin > 1e-4)
                cr_assert_eq(sr_obb_contains_point(&obb, q), inside);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Ray / AABB                                                                                  */

/* Independent reference: Liang–Barsky clipping in double with explicit branches and division
 * (no reciprocal, no infinities). `gap` > 0 measures by how much (in t) a miss misses. */
typedef struct box_reference {
    bool hit;
    double t_near, t_far, gap;
} box_reference;

static box_reference reference_ray_aabb(sr_vec3 origin, sr_vec3 direction, sr_aabb box, double tmin, double tmax)
{
    double lo = tmin, hi = tmax;
    for (int axis = 0; axis < 3; axis++) {
        double o = dv_get(dv(origin), axis), d = dv_get(dv(direction), axis);
        double mn = dv_get(dv(box.min), axis), mx = dv_get(dv(box.max), axis);
        if (mn > mx)
            return (box_reference){false, 0, 0, INFINITY}; /* empty box */
        if (d == 0) {
            if (o < mn || o > mx)
                return (box_reference){false, 0, 0, INFINITY};
            continue; /* inside the closed slab for every t */
        }
        double t0 = (mn - o) / d, t1 = (mx - o) / d;
        if (t0 > t1) {
            double swap = t0;
            t0 = t1;
            t1 = swap;
        }
        lo = fmax(lo, t0);
        hi = fmin(hi, t1);
    }
    return (box_reference){lo <= hi, lo, hi, lo - hi};
}

/* Compares sr_ray_aabb with the reference. Rules (see the header): a reference hit is always a
 * hit, except when it enters within rounding of tmax (the range is applied as given); a miss
 * may be reported as a hit only within the widening band: gap <= 1e-6 * |t| (the exit is
 * widened by 2^-21 ~ 4.8e-7 relative; the rest covers the reference's own rounding). Returns
 * 1 when the case fell into that band. */
static int check_ray_aabb(sr_vec3 origin, sr_vec3 direction, sr_aabb box, float tmin, float tmax, const char *what)
{
    sr_ray ray = sr_ray_make(origin, direction, tmin, tmax);
    float t_near = -1234, t_far = -1234;
    bool hit = sr_ray_aabb(&ray, &box, &t_near, &t_far);
    /* the reference answers for the ray as sr_ray_make stored it (components whose reciprocal
     * overflows are zeros there: a documented part of sr_ray_make, tested on its own) */
    direction = ray.direction;
    box_reference ref = reference_ray_aabb(origin, direction, box, tmin, tmax);
    /* t beyond the float range is infinity in float */
    if (fabs(ref.t_near) > FLT_MAX)
        ref.t_near = copysign(INFINITY, ref.t_near);
    if (fabs(ref.t_far) > FLT_MAX)
        ref.t_far = copysign(INFINITY, ref.t_far);
    double magnitude = fmax(fabs(ref.t_near), fabs(ref.t_far));
    if (isinf(magnitude))
        magnitude = 0;
    bool near_tmax = ref.hit && ref.t_near >= tmax - 1e-6 * fabs(tmax);
    if (ref.hit && !near_tmax) {
        cr_assert(hit, "%s: missed a box the reference hits: o (%a %a %a) d (%a %a %a) box (%a %a %a)-(%a %a %a)", what,
                  origin.x, origin.y, origin.z, direction.x, direction.y, direction.z, box.min.x, box.min.y, box.min.z,
                  box.max.x, box.max.y, box.max.z);
        /* t tolerance: 1e-5 relative to the natural t scale of the case (|t| or, for t near 0,
         * the box's size over |direction|) */
        double scale = dv_length(dv_sub(dv(box.max), dv(box.min))) / fmax(dv_length(dv(direction)), 1e-30);
        scale = fmin(scale, 1e30);
        if (isfinite(ref.t_near))
            cr_assert(close_relative(t_near, ref.t_near, 1e-5, 1e-3 * scale), "%s: t_near %.9g vs %.9g", what,
                      (double)t_near, ref.t_near);
        else
            cr_assert_eq(t_near, (float)ref.t_near, "%s: infinite t_near", what);
        if (isfinite(ref.t_far))
            cr_assert(close_relative(t_far, ref.t_far, 1e-5, 1e-3 * scale), "%s: t_far %.9g vs %.9g", what,
                      (double)t_far, ref.t_far);
        else
            cr_assert_eq(t_far, (float)ref.t_far, "%s: infinite t_far", what);
        cr_assert(t_near <= t_far && t_near >= tmin && t_far <= tmax, "%s: outputs in [tmin, tmax]", what);
        return 0;
    }
    if (!ref.hit && ref.gap > 1e-6 * magnitude) {
        cr_assert(!hit, "%s: false hit, gap %g (t %g)", what, ref.gap, magnitude);
        return 0;
    }
    return 1;
}

Test(ray_aabb, random_rays_against_double_clipping)
{
    rng r = {10};
    int band = 0, hits = 0;
    const int count = 40000;
    for (int i = 0; i < count; i++) {
        sr_aabb box = random_box(&r, -10, 10, rng_unit(&r) < 0.1 ? 0.01 : 8);
        sr_vec3 origin = rng_vec3(&r, -20, 20);
        sr_vec3 direction;
        if (rng_unit(&r) < 0.8) { /* aim near the box: about half hit */
            sr_vec3 e = sr_aabb_extent(box);
            sr_vec3 target = {rng_float(&r, box.min.x - 0.1 * e.x, box.max.x + 0.1 * e.x),
                              rng_float(&r, box.min.y - 0.1 * e.y, box.max.y + 0.1 * e.y),
                              rng_float(&r, box.min.z - 0.1 * e.z, box.max.z + 0.1 * e.z)};
            direction = sr_vec3_scale(sr_vec3_sub(target, origin), rng_float(&r, 0.1, 10));
        } else {
            direction = to_float(rng_direction(&r));
        }
        /* zero some components (+0 or -0) */
        for (int axis = 0; axis < 3; axis++)
            if (rng_unit(&r) < 0.1)
                set_axis(&direction, axis, rng_unit(&r) < 0.5 ? 0.0f : -0.0f);
        float tmin = rng_unit(&r) < 0.7 ? 0.0f : rng_float(&r, -5, 5);
        float tmax = rng_unit(&r) < 0.7 ? INFINITY : tmin + rng_float(&r, 0, 10);
        box_reference ref = reference_ray_aabb(origin, direction, box, tmin, tmax);
        hits += ref.hit;
        band += check_ray_aabb(origin, direction, box, tmin, tmax, "random");
    }
    cr_assert(hits > count / 4 && hits < count * 3 / 4, "a useful mix of hits (%d) and misses", hits);
    cr_assert(band <= count / 1000, "%d cases in the tolerance band", band);
}

Test(ray_aabb, rays_starting_inside)
{
    rng r = {11};
    for (int i = 0; i < 10000; i++) {
        sr_aabb box = random_box(&r, -10, 10, 8);
        sr_vec3 origin = {rng_float(&r, box.min.x, box.max.x), rng_float(&r, box.min.y, box.max.y),
                          rng_float(&r, box.min.z, box.max.z)};
        if (!sr_aabb_contains_point(box, origin))
            continue; /* rounding of the range */
        sr_vec3 direction = to_float(rng_direction(&r));
        sr_ray ray = sr_ray_make(origin, direction, 0, INFINITY);
        float t_near, t_far;
        cr_assert(sr_ray_aabb(&ray, &box, &t_near, &t_far));
        cr_assert_eq(t_near, 0.0f, "an origin inside enters at tmin");
        check_ray_aabb(origin, direction, box, 0, INFINITY, "inside");
    }
}

/* All +0/-0 sign combinations of the zero components must give the same answers. */
Test(ray_aabb, rays_in_face_planes_and_axis_parallel_rays_on_faces)
{
    sr_aabb box = {{-1, 2, -3}, {4, 5, 6}};
    const float lo[3] = {-1, 2, -3}, hi[3] = {4, 5, 6}, mid[3] = {1.5f, 3.5f, 1.5f};
    for (int axis = 0; axis < 3; axis++) {            /* direction axis */
        for (int sign = -1; sign <= 1; sign += 2) {   /* direction sign */
            for (int zeros = 0; zeros < 4; zeros++) { /* signs of the two zero components */
                float d[3], o[3];
                int other1 = (axis + 1) % 3, other2 = (axis + 2) % 3;
                d[axis] = (float)sign;
                d[other1] = zeros & 1 ? -0.0f : 0.0f;
                d[other2] = zeros & 2 ? -0.0f : 0.0f;
                /* origin before the box along the axis */
                o[axis] = sign > 0 ? lo[axis] - 2 : hi[axis] + 2;
                /* 9 placements of the two other coordinates: min face, middle, max face each
                 * (faces give the 0 * inf = NaN trap; two faces: an edge of the box) */
                const float *choices[3] = {lo, mid, hi};
                for (int p = 0; p < 9; p++) {
                    o[other1] = choices[p % 3][other1];
                    o[other2] = choices[p / 3][other2];
                    sr_vec3 origin = {o[0], o[1], o[2]}, direction = {d[0], d[1], d[2]};
                    sr_ray ray = sr_ray_make(origin, direction, 0, INFINITY);
                    float t_near = -1, t_far = -1;
                    cr_assert(sr_ray_aabb(&ray, &box, &t_near, &t_far), "axis %d sign %d zeros %d placement %d", axis,
                              sign, zeros, p);
                    cr_assert_eq(t_near, 2.0f, "enters after 2");
                    cr_assert(fabsf(t_far - (2.0f + hi[axis] - lo[axis])) <= 1e-5f, "t_far %g", (double)t_far);
                    /* the same ray just outside the face misses */
                    float outside[3] = {o[0], o[1], o[2]};
                    if (p % 3 != 1) {
                        outside[other1] = nextafterf(o[other1], p % 3 == 0 ? -INFINITY : INFINITY);
                        sr_ray off = sr_ray_make((sr_vec3){outside[0], outside[1], outside[2]}, direction, 0, INFINITY);
                        cr_assert(!sr_ray_aabb(&off, &box, NULL, NULL), "one ulp outside the face must miss");
                    }
                    /* origin on the entry face itself: enters at t = 0 */
                    o[axis] = sign > 0 ? lo[axis] : hi[axis];
                    sr_ray on_face = sr_ray_make((sr_vec3){o[0], o[1], o[2]}, direction, 0, INFINITY);
                    cr_assert(sr_ray_aabb(&on_face, &box, &t_near, &t_far));
                    cr_assert_eq(t_near, 0.0f);
                    /* origin on the exit face looking out: touches at t = 0 only (closed box) */
                    o[axis] = sign > 0 ? hi[axis] : lo[axis];
                    sr_ray leaving = sr_ray_make((sr_vec3){o[0], o[1], o[2]}, direction, 0, INFINITY);
                    cr_assert(sr_ray_aabb(&leaving, &box, &t_near, &t_far), "origin on the exit face");
                    cr_assert(t_near == 0.0f && t_far == 0.0f);
                    sr_ray later = sr_ray_make((sr_vec3){o[0], o[1], o[2]}, direction, 1e-6f, INFINITY);
                    cr_assert(!sr_ray_aabb(&later, &box, NULL, NULL));
                    o[axis] = sign > 0 ? lo[axis] - 2 : hi[axis] + 2;
                }
            }
        }
    }
    /* rays lying in a face plane with a general direction inside that plane */
    rng r = {12};
    for (int i = 0; i < 5000; i++) {
        int axis = (int)(rng_unit(&r) * 3);
        float o[3] = {rng_float(&r, -8, 8), rng_float(&r, -8, 8), rng_float(&r, -8, 8)};
        o[axis] = rng_unit(&r) < 0.5 ? lo[axis] : hi[axis];
        sr_vec3 direction = to_float(rng_direction(&r));
        set_axis(&direction, axis, rng_unit(&r) < 0.5 ? 0.0f : -0.0f);
        check_ray_aabb((sr_vec3){o[0], o[1], o[2]}, direction, box, 0, INFINITY, "in face plane");
    }
}

Test(ray_aabb, negative_zero_components_match_positive_zero)
{
    rng r = {13};
    for (int i = 0; i < 10000; i++) {
        sr_aabb box = random_box(&r, -5, 5, 4);
        sr_vec3 origin = rng_vec3(&r, -8, 8);
        sr_vec3 plus = to_float(rng_direction(&r)), minus;
        int zero_mask = 1 + (int)(rng_unit(&r) * 6);
        for (int axis = 0; axis < 3; axis++) {
            if (zero_mask & (1 << axis)) {
                set_axis(&plus, axis, 0.0f);
                /* origins often exactly on a face of that axis: the 0 * inf case */
                double u = rng_unit(&r);
                if (u < 0.3)
                    set_axis(&origin, axis, get_axis(box.min, axis));
                else if (u < 0.6)
                    set_axis(&origin, axis, get_axis(box.max, axis));
            }
        }
        minus = plus;
        for (int axis = 0; axis < 3; axis++)
            if (zero_mask & (1 << axis))
                set_axis(&minus, axis, -0.0f);
        sr_ray a = sr_ray_make(origin, plus, 0, INFINITY), b = sr_ray_make(origin, minus, 0, INFINITY);
        float an = -1, af = -1, bn = -1, bf = -1;
        bool ha = sr_ray_aabb(&a, &box, &an, &af), hb = sr_ray_aabb(&b, &box, &bn, &bf);
        cr_assert_eq(ha, hb);
        if (ha)
            cr_assert(an == bn && af == bf);
        check_ray_aabb(origin, minus, box, 0, INFINITY, "-0 components");
        check_ray_aabb(origin, plus, box, 0, INFINITY, "+0 components");
    }
}

Test(ray_aabb, subnormal_components)
{
    const float tiny = 1e-40f;  /* subnormal: 1 / tiny overflows to infinity */
    const float small = 5e-39f; /* subnormal with a finite reciprocal (2e38) */
    cr_assert(fpclassify(tiny) == FP_SUBNORMAL && fpclassify(small) == FP_SUBNORMAL);
    sr_aabb box = {{0, -1, -1}, {2, 1, 1}};
    const float values[7] = {tiny, -tiny, 0.0f, -0.0f, 3 * tiny, small, -small};
    const float ys[6] = {0.0f, 1.0f, -1.0f, tiny, -tiny, 0.5f};
    int hits = 0;
    for (int i = 0; i < 7; i++) {
        for (int j = 0; j < 7; j++) {
            sr_vec3 direction = {1.0f, values[i], values[j]};
            /* origins inside the y/z slabs, on their faces (the 0 * inf case, or exactly on the
             * boundary with a tiny slope away), with subnormal coordinates */
            for (int k = 0; k < 6; k++) {
                for (int l = 0; l < 6; l++) {
                    sr_vec3 origin = {-1.0f, ys[k], ys[l]};
                    check_ray_aabb(origin, direction, box, 0, INFINITY, "subnormal direction");
                    sr_ray ray = sr_ray_make(origin, direction, 0, INFINITY);
                    float t_near = NAN, t_far = NAN;
                    if (fabsf(origin.y) < 1 && fabsf(origin.z) < 1) { /* strictly inside: a hit */
                        cr_assert(sr_ray_aabb(&ray, &box, &t_near, &t_far), "subnormal %d %d %d %d", i, j, k, l);
                        cr_assert(t_near == 1.0f && fabsf(t_far - 3.0f) < 1e-5f);
                        hits++;
                    }
                }
            }
            /* just outside a face, a subnormal component pointing inwards: the slab is reached
             * only after ~1e36 or more, long after the x slab: a miss */
            sr_vec3 outside = {-1.0f, 1.001f, 0.0f};
            check_ray_aabb(outside, (sr_vec3){1.0f, -fabsf(values[i]), values[j]}, box, 0, INFINITY,
                           "subnormal outside");
            sr_ray away = sr_ray_make(outside, (sr_vec3){1.0f, -fabsf(values[i]), values[j]}, 0, INFINITY);
            cr_assert(!sr_ray_aabb(&away, &box, NULL, NULL));
        }
    }
    cr_assert(hits == 7 * 7 * 16);
    /* a box with subnormal bounds crossed by ordinary rays and by rays with subnormal parts */
    sr_aabb thin = {{-tiny, -1, -1}, {tiny, 1, 1}};
    check_ray_aabb((sr_vec3){-1, 0, 0}, (sr_vec3){1, 0, 0}, thin, 0, INFINITY, "thin box");
    sr_ray through = sr_ray_make((sr_vec3){-1, 0, 0}, (sr_vec3){1, 0.25f, 0}, 0, INFINITY);
    cr_assert(sr_ray_aabb(&through, &thin, NULL, NULL));
    check_ray_aabb((sr_vec3){-tiny, 0, 0}, (sr_vec3){1, tiny, -tiny}, thin, 0, INFINITY, "subnormal origin");
    check_ray_aabb((sr_vec3){-tiny, 0, 0}, (sr_vec3){small, 0, 0}, thin, 0, INFINITY, "subnormal ray");
    sr_ray small_ray = sr_ray_make((sr_vec3){-tiny, 0, 0}, (sr_vec3){small, 0, 0}, 0, INFINITY);
    float t_near, t_far;
    cr_assert(sr_ray_aabb(&small_ray, &thin, &t_near, &t_far));
    cr_assert(t_near == 0.0f && t_far > 0.0f && isfinite(t_far), "t_far %g", (double)t_far);
    /* random rays with subnormal origins, directions and box bounds mixed in */
    rng r = {16};
    for (int i = 0; i < 10000; i++) {
        sr_aabb b = random_box(&r, -2, 2, 2);
        sr_vec3 o = rng_vec3(&r, -3, 3), d = to_float(rng_direction(&r));
        for (int axis = 0; axis < 3; axis++) {
            if (rng_unit(&r) < 0.3)
                set_axis(&o, axis, values[(int)(rng_unit(&r) * 7)]);
            if (rng_unit(&r) < 0.3)
                set_axis(&d, axis, values[(int)(rng_unit(&r) * 7)]);
            if (rng_unit(&r) < 0.2) {
                float bound = values[(int)(rng_unit(&r) * 7)];
                if (bound <= get_axis(b.max, axis))
                    set_axis(&b.min, axis, bound);
            }
        }
        check_ray_aabb(o, d, b, 0, INFINITY, "random subnormal");
    }
}

Test(ray_aabb, zero_direction_is_a_point_query)
{
    sr_aabb box = {{0, 0, 0}, {1, 1, 1}};
    const sr_vec3 zero = {0, 0, 0}, negative_zero = {-0.0f, 0.0f, -0.0f};
    sr_ray inside = sr_ray_make((sr_vec3){0.5f, 0.5f, 0.5f}, zero, 0, 7);
    float t_near, t_far;
    cr_assert(sr_ray_aabb(&inside, &box, &t_near, &t_far));
    cr_assert(t_near == 0 && t_far == 7, "the whole range");
    sr_ray on_corner = sr_ray_make((sr_vec3){1, 1, 0}, negative_zero, 0, 7);
    cr_assert(sr_ray_aabb(&on_corner, &box, NULL, NULL), "closed box holds its corner");
    sr_ray outside = sr_ray_make((sr_vec3){1.5f, 0.5f, 0.5f}, zero, 0, INFINITY);
    cr_assert(!sr_ray_aabb(&outside, &box, NULL, NULL));
    sr_ray outside2 = sr_ray_make((sr_vec3){0.5f, -1e-30f, 0.5f}, negative_zero, 0, INFINITY);
    cr_assert(!sr_ray_aabb(&outside2, &box, NULL, NULL));
}

Test(ray_aabb, nan_and_empty_never_hit)
{
    sr_aabb everything = {{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
    sr_vec3 good_o = {0, 0, 0}, good_d = {1, 0.5f, 0};
    for (int axis = 0; axis < 3; axis++) {
        float o[3] = {0, 0, 0}, d[3] = {1, 0.5f, 0};
        o[axis] = NAN;
        sr_ray a = sr_ray_make((sr_vec3){o[0], o[1], o[2]}, good_d, 0, INFINITY);
        cr_assert(!sr_ray_aabb(&a, &everything, NULL, NULL), "NaN origin %d", axis);
        d[axis] = NAN;
        sr_ray b = sr_ray_make(good_o, (sr_vec3){d[0], d[1], d[2]}, 0, INFINITY);
        cr_assert(!sr_ray_aabb(&b, &everything, NULL, NULL), "NaN direction %d", axis);
    }
    sr_ray c = sr_ray_make(good_o, good_d, NAN, INFINITY);
    cr_assert(!sr_ray_aabb(&c, &everything, NULL, NULL));
    sr_ray d = sr_ray_make(good_o, good_d, 0, NAN);
    cr_assert(!sr_ray_aabb(&d, &everything, NULL, NULL));
    /* a hand-made ray with NaN range (not through sr_ray_make) misses too */
    sr_ray hand = sr_ray_make(good_o, good_d, 0, INFINITY);
    hand.tmin = NAN;
    cr_assert(!sr_ray_aabb(&hand, &everything, NULL, NULL));
    hand.tmin = 0;
    hand.tmax = NAN;
    cr_assert(!sr_ray_aabb(&hand, &everything, NULL, NULL));
    /* empty boxes never hit, whatever the ray (including origins on +-inf planes) */
    rng r = {14};
    sr_aabb empty = sr_aabb_empty();
    for (int i = 0; i < 1000; i++) {
        sr_vec3 direction = to_float(rng_direction(&r));
        if (i % 3 == 0)
            direction.x = 0;
        sr_ray ray = sr_ray_make(rng_vec3(&r, -10, 10), direction, -INFINITY, INFINITY);
        cr_assert(!sr_ray_aabb(&ray, &empty, NULL, NULL));
    }
    /* tmin > tmax is an empty range */
    sr_ray reversed = sr_ray_make(good_o, good_d, 2, 1);
    cr_assert(!sr_ray_aabb(&reversed, &everything, NULL, NULL));
}

/* Rays that touch a box only at a corner or along an edge, exact in real arithmetic on the
 * float inputs (dyadic coordinates: the ray meets the corner at t = k exactly), and rays that
 * enter exactly through a corner. Several slab distances equal k exactly but each is computed
 * with rounding, so without the widening of the exit distance many of these would miss. */
Test(ray_aabb, grazing_corners_and_edges_always_hit)
{
    rng r = {15};
    sr_aabb box = {{-1.5f, -0.5f, 2.0f}, {3.25f, 1.75f, 4.5f}};
    int touching = 0;
    for (int i = 0; i < 30000; i++) {
        int corner = (int)(rng_unit(&r) * 8);
        sr_vec3 c = {corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                     corner & 4 ? box.max.z : box.min.z};
        /* inward[axis] = +1 when the box lies on the positive side of the corner on that axis */
        const float inward[3] = {corner & 1 ? -1.0f : 1.0f, corner & 2 ? -1.0f : 1.0f, corner & 4 ? -1.0f : 1.0f};
        /* integer direction; `pattern` picks which axes point into the box. All three inward:
         * the ray enters at the corner. Mixed: the line touches the box only at the corner. A
         * zero component: the line runs along the plane of a face and touches only an edge
         * (or enters through it). */
        int pattern = 1 + (int)(rng_unit(&r) * 7);
        sr_vec3 direction;
        for (int axis = 0; axis < 3; axis++) {
            float magnitude = (float)(1 + (int)(rng_unit(&r) * 1000));
            set_axis(&direction, axis, (pattern & (1 << axis) ? 1.0f : -1.0f) * inward[axis] * magnitude);
        }
        if (rng_unit(&r) < 0.3)
            set_axis(&direction, (int)(rng_unit(&r) * 3), rng_unit(&r) < 0.5 ? 0.0f : -0.0f);
        float k = ldexpf(1.0f, -(int)(rng_unit(&r) * 12));                                      /* t of the corner */
        sr_vec3 origin = {c.x - k * direction.x, c.y - k * direction.y, c.z - k * direction.z}; /* exact */
        cr_assert(origin.x + k * direction.x == c.x && origin.y + k * direction.y == c.y &&
                  origin.z + k * direction.z == c.z);
        box_reference ref = reference_ray_aabb(origin, direction, box, 0, INFINITY);
        cr_assert(ref.hit && ref.t_near <= k && ref.t_far >= k, "the reference passes the corner");
        touching += ref.t_near == ref.t_far;
        sr_ray ray = sr_ray_make(origin, direction, 0, INFINITY);
        float t_near = NAN, t_far = NAN;
        cr_assert(sr_ray_aabb(&ray, &box, &t_near, &t_far), "grazing corner %d pattern %d missed (k %g)", corner,
                  pattern, (double)k);
        cr_assert(close_relative(t_near, ref.t_near, 1e-6, 0) && close_relative(t_far, ref.t_far, 1e-6, 0),
                  "t %.9g %.9g vs %.9g %.9g", (double)t_near, (double)t_far, ref.t_near, ref.t_far);
    }
    cr_assert(touching > 10000, "%d rays only touch the box", touching);
}
