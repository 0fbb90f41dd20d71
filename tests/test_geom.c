/* tests/test_geom.c — tests of src/geom: rays, boxes, planes, OBBs, frustums and the ray queries.
 * Every answer is checked against an independent computation: double-precision clipping and
 * barycentrics, analytic values, corner/point brute force, or the clip-space definition of the
 * frustum. Links only sr_geom and sr_core: the closed meshes of the watertightness tests are
 * built here. */
#include <criterion/criterion.h>

#include <softrast/geom.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Deterministic random numbers (splitmix64) and double-precision vectors                      */

typedef struct rng {
    uint64_t state;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1p-53;
}

static double rng_range(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * rng_unit(r);
}

static float rng_float(rng *r, double lo, double hi)
{
    return (float)rng_range(r, lo, hi);
}

static sr_vec3 rng_vec3(rng *r, double lo, double hi)
{
    return (sr_vec3){rng_float(r, lo, hi), rng_float(r, lo, hi), rng_float(r, lo, hi)};
}

typedef struct dvec {
    double x, y, z;
} dvec;

static dvec dv(sr_vec3 v)
{
    return (dvec){v.x, v.y, v.z};
}
static dvec dv_add(dvec a, dvec b)
{
    return (dvec){a.x + b.x, a.y + b.y, a.z + b.z};
}
static dvec dv_sub(dvec a, dvec b)
{
    return (dvec){a.x - b.x, a.y - b.y, a.z - b.z};
}
static dvec dv_scale(dvec a, double s)
{
    return (dvec){a.x * s, a.y * s, a.z * s};
}
static double dv_dot(dvec a, dvec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static dvec dv_cross(dvec a, dvec b)
{
    return (dvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static double dv_length(dvec a)
{
    return sqrt(dv_dot(a, a));
}
static double dv_get(dvec a, int axis)
{
    return axis == 0 ? a.x : (axis == 1 ? a.y : a.z);
}
static sr_vec3 to_float(dvec a)
{
    return (sr_vec3){(float)a.x, (float)a.y, (float)a.z};
}

static const double pi = 3.14159265358979323846;

/* Component access by axis without pointer arithmetic across struct members. */
static float get_axis(sr_vec3 v, int axis)
{
    return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

static void set_axis(sr_vec3 *v, int axis, float value)
{
    if (axis == 0)
        v->x = value;
    else if (axis == 1)
        v->y = value;
    else
        v->z = value;
}

/* Unit vector uniformly on the sphere (rejection sampling in the cube). */
static dvec rng_direction(rng *r)
{
    for (;;) {
        dvec v = {rng_range(r, -1, 1), rng_range(r, -1, 1), rng_range(r, -1, 1)};
        double l = dv_length(v);
        if (l > 0.05 && l <= 1.0)
            return dv_scale(v, 1.0 / l);
    }
}

/* Random rotation matrix (row-major 3x3, double) from a random unit quaternion. */
static void random_rotation(rng *r, double m[9])
{
    double q[4], l = 0;
    do {
        l = 0;
        for (int i = 0; i < 4; i++) {
            q[i] = rng_range(r, -1, 1);
            l += q[i] * q[i];
        }
    } while (l < 0.01 || l > 1.0);
    l = sqrt(l);
    double x = q[0] / l, y = q[1] / l, z = q[2] / l, w = q[3] / l;
    double rows[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                      2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                      2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(m, rows, sizeof rows);
}

static dvec rotate(const double m[9], dvec v)
{
    return (dvec){m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
                  m[6] * v.x + m[7] * v.y + m[8] * v.z};
}

static bool close_relative(double actual, double expected, double relative, double scale)
{
    return fabs(actual - expected) <= relative * (fabs(expected) + scale);
}

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

static sr_aabb random_box(rng *r, double lo, double hi, double max_size)
{
    sr_vec3 a = rng_vec3(r, lo, hi);
    sr_vec3 size = rng_vec3(r, 0, max_size);
    return (sr_aabb){a, sr_vec3_add(a, size)};
}

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

/* Rotation * scale * translation as an sr_mat4 and its pieces in double. */
typedef struct rigid {
    double rotation[9];
    dvec scale, translation;
    sr_mat4 matrix;
} rigid;

static rigid random_rigid(rng *r)
{
    rigid t;
    random_rotation(r, t.rotation);
    t.scale = (dvec){rng_range(r, 0.2, 3), rng_range(r, 0.2, 3), rng_range(r, 0.2, 3)};
    t.translation = (dvec){rng_range(r, -5, 5), rng_range(r, -5, 5), rng_range(r, -5, 5)};
    t.matrix = sr_mat4_identity();
    for (int row = 0; row < 3; row++) {
        for (int column = 0; column < 3; column++)
            t.matrix.m[column * 4 + row] = (float)(t.rotation[row * 3 + column] * dv_get(t.scale, column));
        t.matrix.m[12 + row] = (float)dv_get(t.translation, row);
    }
    return t;
}

/* Point of box space (before the transform) to world, in double. */
static dvec rigid_apply(const rigid *t, dvec p)
{
    dvec s = {p.x * t->scale.x, p.y * t->scale.y, p.z * t->scale.z};
    return dv_add(rotate(t->rotation, s), t->translation);
}

/* World point back to box space, in double. */
static dvec rigid_invert(const rigid *t, dvec p)
{
    dvec q = dv_sub(p, t->translation);
    const double *m = t->rotation; /* transpose = inverse */
    dvec s = {m[0] * q.x + m[3] * q.y + m[6] * q.z, m[1] * q.x + m[4] * q.y + m[7] * q.z,
              m[2] * q.x + m[5] * q.y + m[8] * q.z};
    return (dvec){s.x / t->scale.x, s.y / t->scale.y, s.z / t->scale.z};
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
                    float t_near, t_far;
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
        float t_near, t_far;
        cr_assert(sr_ray_aabb(&ray, &box, &t_near, &t_far), "grazing corner %d pattern %d missed (k %g)", corner,
                  pattern, (double)k);
        cr_assert(close_relative(t_near, ref.t_near, 1e-6, 0) && close_relative(t_far, ref.t_far, 1e-6, 0),
                  "t %.9g %.9g vs %.9g %.9g", (double)t_near, (double)t_far, ref.t_near, ref.t_far);
    }
    cr_assert(touching > 10000, "%d rays only touch the box", touching);
}

/* ------------------------------------------------------------------------------------------ */
/* Ray / triangle                                                                              */

/* Independent reference in double: plane intersection, then barycentrics of the hit point. */
typedef struct triangle_reference {
    bool valid; /* false for rays too close to parallel to judge */
    double t, u, v, w;
    double facing; /* dot(normal, direction) < 0: front face */
} triangle_reference;

static triangle_reference reference_ray_triangle(sr_vec3 origin, sr_vec3 direction, sr_vec3 a, sr_vec3 b, sr_vec3 c)
{
    triangle_reference ref = {0};
    dvec o = dv(origin), d = dv(direction), A = dv(a), B = dv(b), C = dv(c);
    dvec n = dv_cross(dv_sub(B, A), dv_sub(C, A));
    double nn = dv_dot(n, n);
    double denominator = dv_dot(n, d);
    ref.facing = denominator;
    if (nn == 0 || fabs(denominator) < 1e-3 * sqrt(nn) * dv_length(d))
        return ref;
    ref.valid = true;
    ref.t = dv_dot(n, dv_sub(A, o)) / denominator;
    dvec p = dv_add(o, dv_scale(d, ref.t));
    ref.u = dv_dot(n, dv_cross(dv_sub(p, A), dv_sub(C, A))) / nn; /* weight of b */
    ref.v = dv_dot(n, dv_cross(dv_sub(B, A), dv_sub(p, A))) / nn; /* weight of c */
    ref.w = 1 - ref.u - ref.v;
    return ref;
}

Test(ray_triangle, analytic_cases)
{
    sr_vec3 a = {-1, -1, -2}, b = {1, -1, -2}, c = {0, 1, -2};
    sr_ray ray = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    sr_triangle_hit hit;
    cr_assert(sr_ray_triangle(&ray, a, b, c, &hit));
    /* (0, 0) = a + u (b - a) + v (c - a) = (-1 + 2u + v, -1 + 2v): v = 1/2, u = 1/4 */
    cr_assert(hit.t == 2.0f && hit.u == 0.25f && hit.v == 0.5f, "t %g u %g v %g", (double)hit.t, (double)hit.u,
              (double)hit.v);
    cr_assert(sr_ray_triangle_culled(&ray, a, b, c, &hit), "counter-clockwise seen from the origin: front");
    cr_assert(!sr_ray_triangle_culled(&ray, a, c, b, &hit), "clockwise: back face culled");
    cr_assert(sr_ray_triangle(&ray, a, c, b, &hit));
    cr_assert(hit.u == 0.5f && hit.v == 0.25f);
    /* direction length scales t */
    sr_ray fast = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -4}, 0, INFINITY);
    cr_assert(sr_ray_triangle(&fast, a, b, c, &hit) && hit.t == 0.5f);
    /* closed t range */
    sr_ray exact = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 2.0f, 2.0f);
    cr_assert(sr_ray_triangle(&exact, a, b, c, &hit), "t = tmin = tmax counts");
    sr_ray short_ray = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 0, nextafterf(2.0f, 0));
    cr_assert(!sr_ray_triangle(&short_ray, a, b, c, &hit));
    sr_ray late = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, nextafterf(2.0f, 3), INFINITY);
    cr_assert(!sr_ray_triangle(&late, a, b, c, &hit));
    sr_ray behind = sr_ray_make((sr_vec3){0, 0, -3}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(!sr_ray_triangle(&behind, a, b, c, &hit));
    /* vertices and edges are inside (closed triangle) */
    sr_ray at_vertex = sr_ray_make((sr_vec3){0, 1, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(sr_ray_triangle(&at_vertex, a, b, c, &hit) && hit.v == 1.0f && hit.u == 0.0f);
    sr_ray at_edge = sr_ray_make((sr_vec3){0, -1, 5}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(sr_ray_triangle(&at_edge, a, b, c, &hit) && hit.t == 7.0f && hit.v == 0.0f);
    sr_ray outside_edge = sr_ray_make((sr_vec3){0, nextafterf(-1, -2), 5}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(!sr_ray_triangle(&outside_edge, a, b, c, &hit));
    /* a ray in the triangle's plane misses (edge-on) */
    sr_ray in_plane = sr_ray_make((sr_vec3){-5, 0, -2}, (sr_vec3){1, 0, 0}, 0, INFINITY);
    cr_assert(!sr_ray_triangle(&in_plane, a, b, c, &hit));
}

Test(ray_triangle, random_rays_against_double_reference)
{
    rng r = {20};
    int compared = 0, hits = 0, culled_checked = 0;
    for (int i = 0; i < 40000; i++) {
        double size = rng_unit(&r) < 0.2 ? 0.01 : 3;
        sr_vec3 centre = rng_vec3(&r, -10, 10);
        sr_vec3 a = sr_vec3_add(centre, rng_vec3(&r, -size, size));
        sr_vec3 b = sr_vec3_add(centre, rng_vec3(&r, -size, size));
        sr_vec3 c = sr_vec3_add(centre, rng_vec3(&r, -size, size));
        sr_vec3 origin = rng_vec3(&r, -20, 20);
        /* aim at a random barycentric point around the triangle: about half hit */
        double wb = rng_range(&r, -0.3, 1.1), wc = rng_range(&r, -0.3, 1.1);
        dvec target = dv_add(dv(a), dv_add(dv_scale(dv_sub(dv(b), dv(a)), wb), dv_scale(dv_sub(dv(c), dv(a)), wc)));
        sr_vec3 direction = to_float(dv_scale(dv_sub(target, dv(origin)), rng_range(&r, 0.05, 20)));
        float tmin = rng_unit(&r) < 0.8 ? 0.0f : rng_float(&r, -1, 1);
        float tmax = rng_unit(&r) < 0.7 ? INFINITY : rng_float(&r, 0, 2);
        sr_ray ray = sr_ray_make(origin, direction, tmin, tmax);
        sr_triangle_hit hit = {-1, -1, -1}, front = {-1, -1, -1};
        bool got = sr_ray_triangle(&ray, a, b, c, &hit);
        bool got_front = sr_ray_triangle_culled(&ray, a, b, c, &front);
        triangle_reference ref = reference_ray_triangle(origin, direction, a, b, c);
        if (!ref.valid)
            continue;
        /* Float rounding of the vertices relative to the origin (a few u |v - o| per edge
         * function) is small against the triangle when it is about as large as its distance,
         * and grows with distance / size and with 1 / cosine at grazing angles. Barycentric
         * tolerance: 1e-4 plus that growth; t: 1e-5 relative plus the same growth of the
         * vertices' depths along the ray (|v - o| / |d|), which matters only when t is small
         * against those depths. Cases closer than the tolerance to an edge or to tmin/tmax are
         * not judged. */
        dvec normal = dv_cross(dv_sub(dv(b), dv(a)), dv_sub(dv(c), dv(a)));
        double cosine = fabs(ref.facing) / (dv_length(normal) * dv_length(dv(direction)));
        double distance = fmax(dv_length(dv_sub(dv(a), dv(origin))),
                               fmax(dv_length(dv_sub(dv(b), dv(origin))), dv_length(dv_sub(dv(c), dv(origin)))));
        double ratio = distance / sqrt(dv_length(normal));
        double uv_tolerance = 1e-4 + 1e-6 * ratio / cosine;
        double t_tolerance = 1e-5 * fabs(ref.t) + 1e-6 * distance / dv_length(dv(direction)) / cosine;
        double edge = fmin(fabs(ref.u), fmin(fabs(ref.v), fabs(ref.w)));
        if (edge < uv_tolerance || fabs(ref.t - tmin) < t_tolerance || fabs(ref.t - tmax) < t_tolerance)
            continue;
        bool expected = ref.u >= 0 && ref.v >= 0 && ref.w >= 0 && ref.t >= tmin && ref.t <= tmax;
        compared++;
        cr_assert_eq(got, expected, "case %d: got %d, reference t %g u %g v %g", i, got, ref.t, ref.u, ref.v);
        if (expected) {
            hits++;
            cr_assert(fabs(hit.t - ref.t) <= t_tolerance, "t %.9g vs %.9g", (double)hit.t, ref.t);
            cr_assert(fabs(hit.u - ref.u) <= uv_tolerance && fabs(hit.v - ref.v) <= uv_tolerance,
                      "u %g vs %g, v %g vs %g (ratio %g cosine %g)", (double)hit.u, ref.u, (double)hit.v, ref.v, ratio,
                      cosine);
        }
        /* culled: the same answer for front faces, never a back face */
        cr_assert_eq(got_front, expected && ref.facing < 0, "culled case %d", i);
        if (got_front) {
            culled_checked++;
            cr_assert(front.t == hit.t && front.u == hit.u && front.v == hit.v);
        }
    }
    cr_assert(compared > 30000, "compared %d", compared);
    cr_assert(hits > compared / 5 && culled_checked > hits / 5, "hits %d culled %d", hits, culled_checked);
}

Test(ray_triangle, degenerate_and_invalid_input_never_hit)
{
    rng r = {21};
    sr_triangle_hit hit;
    for (int i = 0; i < 20000; i++) {
        sr_vec3 a = rng_vec3(&r, -5, 5), b = rng_vec3(&r, -5, 5), c;
        if (i % 2)
            c = a; /* two vertices equal */
        else
            b = c = a; /* all equal */
        /* rays aimed exactly at the vertices, at the middle of the segment, and at random */
        sr_vec3 origin = rng_vec3(&r, -10, 10);
        sr_vec3 targets[5] = {a, b, c, sr_vec3_lerp(a, b, 0.5f), rng_vec3(&r, -5, 5)};
        for (int k = 0; k < 5; k++) {
            sr_ray ray = sr_ray_make(origin, sr_vec3_sub(targets[k], origin), -INFINITY, INFINITY);
            cr_assert(!sr_ray_triangle(&ray, a, b, c, &hit), "degenerate case %d target %d", i % 2, k);
            cr_assert(!sr_ray_triangle(&ray, c, a, b, &hit));
            cr_assert(!sr_ray_triangle_culled(&ray, a, b, c, &hit));
        }
    }
    /* Collinear distinct vertices: zero area in exact arithmetic, but in the ray space they are
     * rounded to a sliver of rounding width, which must stay hittable for watertightness (a
     * T-junction repair in a closed mesh is such a sliver, and its neighbours leave exactly
     * that sliver uncovered). So only rays passing further than rounding from the segment are
     * required to miss. */
    for (int i = 0; i < 20000; i++) {
        sr_vec3 a = {(float)(int)rng_range(&r, -40, 40) / 8, (float)(int)rng_range(&r, -40, 40) / 8,
                     (float)(int)rng_range(&r, -40, 40) / 8};
        sr_vec3 step = {(float)(int)rng_range(&r, -8, 8) / 16, (float)(int)rng_range(&r, -8, 8) / 16,
                        (float)(int)rng_range(&r, -8, 8) / 16};
        sr_vec3 b = sr_vec3_add(a, step), c = sr_vec3_add(a, sr_vec3_scale(step, 3)); /* exact */
        sr_vec3 origin = rng_vec3(&r, -10, 10);
        sr_vec3 target = rng_vec3(&r, -5, 5);
        /* distance between the ray's line and the segment's line, in double */
        dvec d = dv_sub(dv(target), dv(origin)), e = dv(step);
        dvec n = dv_cross(d, e);
        double line_distance = dv_length(n) > 0 ? fabs(dv_dot(dv_sub(dv(a), dv(origin)), n)) / dv_length(n) : 0;
        if (line_distance < 1e-4)
            continue;
        sr_ray ray = sr_ray_make(origin, sr_vec3_sub(target, origin), -INFINITY, INFINITY);
        cr_assert(!sr_ray_triangle(&ray, a, b, c, &hit), "collinear triangle hit %g away", line_distance);
    }
    /* zero direction, NaN anywhere */
    sr_vec3 a = {-1, -1, -2}, b = {1, -1, -2}, c = {0, 1, -2};
    sr_ray zero = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, 0}, -INFINITY, INFINITY);
    cr_assert(!sr_ray_triangle(&zero, a, b, c, &hit));
    sr_ray zero_on = sr_ray_make((sr_vec3){0, 0, -2}, (sr_vec3){-0.0f, 0, 0}, -INFINITY, INFINITY);
    cr_assert(!sr_ray_triangle(&zero_on, a, b, c, &hit), "a point on the triangle is not a ray");
    sr_ray good = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(sr_ray_triangle(&good, a, b, c, &hit));
    for (int k = 0; k < 9; k++) {
        sr_vec3 v[3] = {a, b, c};
        set_axis(&v[k / 3], k % 3, NAN);
        cr_assert(!sr_ray_triangle(&good, v[0], v[1], v[2], &hit), "NaN vertex %d", k);
        cr_assert(!sr_ray_triangle_culled(&good, v[0], v[1], v[2], &hit));
        set_axis(&v[k / 3], k % 3, INFINITY);
        cr_assert(!sr_ray_triangle(&good, v[0], v[1], v[2], &hit), "infinite vertex %d", k);
    }
    const sr_vec3 nan_vec[3] = {{NAN, 0, 0}, {0, NAN, 0}, {0, 0, NAN}};
    for (int k = 0; k < 3; k++) {
        sr_ray o = sr_ray_make(nan_vec[k], (sr_vec3){0, 0, -1}, 0, INFINITY);
        cr_assert(!sr_ray_triangle(&o, a, b, c, &hit));
        sr_ray d = sr_ray_make((sr_vec3){0, 0, 0}, nan_vec[k], 0, INFINITY);
        cr_assert(!sr_ray_triangle(&d, a, b, c, &hit));
    }
    sr_ray t1 = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, NAN, INFINITY);
    cr_assert(!sr_ray_triangle(&t1, a, b, c, &hit));
    sr_ray hand = good; /* not through sr_ray_make */
    hand.tmax = NAN;
    cr_assert(!sr_ray_triangle(&hand, a, b, c, &hit));
    hand.tmax = INFINITY;
    hand.tmin = NAN;
    cr_assert(!sr_ray_triangle(&hand, a, b, c, &hit));
    /* a subnormal direction would put the hit at t ~ 1e40: infinite t is not a hit */
    sr_ray subnormal = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1e-40f}, 0, INFINITY);
    cr_assert(!sr_ray_triangle(&subnormal, a, b, c, &hit));
}

/* ------------------------------------------------------------------------------------------ */
/* Watertightness on closed meshes                                                             */

typedef struct test_mesh {
    sr_vec3 *positions;
    dvec *outward; /* per vertex: direction away from the solid (for rays from outside) */
    uint32_t *indices;
    int vertex_count, triangle_count;
} test_mesh;

static void mesh_free(test_mesh *m)
{
    free(m->positions);
    free(m->outward);
    free(m->indices);
}

static void mesh_add_triangle(test_mesh *m, int *cursor, uint32_t a, uint32_t b, uint32_t c)
{
    m->indices[3 * *cursor + 0] = a;
    m->indices[3 * *cursor + 1] = b;
    m->indices[3 * *cursor + 2] = c;
    (*cursor)++;
}

/* Orients every triangle counter-clockwise seen from outside (normal along `outward`). */
static void mesh_orient(test_mesh *m)
{
    for (int i = 0; i < m->triangle_count; i++) {
        uint32_t *t = &m->indices[3 * i];
        dvec a = dv(m->positions[t[0]]), b = dv(m->positions[t[1]]), c = dv(m->positions[t[2]]);
        dvec out = dv_add(dv_add(m->outward[t[0]], m->outward[t[1]]), m->outward[t[2]]);
        if (dv_dot(dv_cross(dv_sub(b, a), dv_sub(c, a)), out) < 0) {
            uint32_t swap = t[1];
            t[1] = t[2];
            t[2] = swap;
        }
    }
}

/* UV sphere: poles shared by their fans, seam vertices shared by index: every shared vertex is
 * one float triple. `rotation` (row-major, double) is applied before rounding to float. */
static test_mesh build_sphere(int slices, int stacks, double radius, const double rotation[9])
{
    test_mesh m = {0};
    m.vertex_count = 2 + slices * (stacks - 1);
    m.triangle_count = 2 * slices * (stacks - 1);
    m.positions = calloc((size_t)m.vertex_count, sizeof *m.positions);
    m.outward = calloc((size_t)m.vertex_count, sizeof *m.outward);
    m.indices = calloc((size_t)m.triangle_count * 3, sizeof *m.indices);
    cr_assert(m.positions && m.outward && m.indices);
    for (int v = 0; v < m.vertex_count; v++) {
        dvec p;
        if (v == 0)
            p = (dvec){0, 1, 0};
        else if (v == m.vertex_count - 1)
            p = (dvec){0, -1, 0};
        else {
            int ring = (v - 1) / slices + 1, j = (v - 1) % slices;
            double theta = pi * ring / stacks, phi = 2 * pi * j / slices;
            p = (dvec){sin(theta) * cos(phi), cos(theta), sin(theta) * sin(phi)};
        }
        m.outward[v] = rotate(rotation, p);
        m.positions[v] = to_float(dv_scale(m.outward[v], radius));
    }
    int cursor = 0;
    uint32_t south = (uint32_t)m.vertex_count - 1;
    for (int j = 0; j < slices; j++) {
        uint32_t j1 = (uint32_t)((j + 1) % slices);
        mesh_add_triangle(&m, &cursor, 0, 1 + (uint32_t)j, 1 + j1);
        uint32_t last = 1 + (uint32_t)((stacks - 2) * slices);
        mesh_add_triangle(&m, &cursor, south, last + j1, last + (uint32_t)j);
        for (int ring = 1; ring < stacks - 1; ring++) {
            uint32_t upper = 1 + (uint32_t)((ring - 1) * slices), lower = upper + (uint32_t)slices;
            mesh_add_triangle(&m, &cursor, upper + (uint32_t)j, lower + (uint32_t)j, lower + j1);
            mesh_add_triangle(&m, &cursor, upper + (uint32_t)j, lower + j1, upper + j1);
        }
    }
    cr_assert_eq(cursor, m.triangle_count);
    mesh_orient(&m);
    return m;
}

static test_mesh build_torus(int rings, int sides, double major, double minor, const double rotation[9])
{
    test_mesh m = {0};
    m.vertex_count = rings * sides;
    m.triangle_count = 2 * rings * sides;
    m.positions = calloc((size_t)m.vertex_count, sizeof *m.positions);
    m.outward = calloc((size_t)m.vertex_count, sizeof *m.outward);
    m.indices = calloc((size_t)m.triangle_count * 3, sizeof *m.indices);
    cr_assert(m.positions && m.outward && m.indices);
    for (int i = 0; i < rings; i++) {
        for (int j = 0; j < sides; j++) {
            double phi = 2 * pi * i / rings, theta = 2 * pi * j / sides;
            dvec tube = {cos(theta) * cos(phi), sin(theta), cos(theta) * sin(phi)};
            dvec centre = {major * cos(phi), 0, major * sin(phi)};
            m.outward[i * sides + j] = rotate(rotation, tube);
            m.positions[i * sides + j] = to_float(rotate(rotation, dv_add(centre, dv_scale(tube, minor))));
        }
    }
    int cursor = 0;
    for (int i = 0; i < rings; i++) {
        for (int j = 0; j < sides; j++) {
            uint32_t a = (uint32_t)(i * sides + j), b = (uint32_t)(((i + 1) % rings) * sides + j);
            uint32_t c = (uint32_t)(((i + 1) % rings) * sides + (j + 1) % sides);
            uint32_t d = (uint32_t)(i * sides + (j + 1) % sides);
            mesh_add_triangle(&m, &cursor, a, b, c);
            mesh_add_triangle(&m, &cursor, a, c, d);
        }
    }
    mesh_orient(&m);
    return m;
}

/* Edges with their two triangles (the mesh must be closed: every edge used exactly twice) and
 * vertex fans, built by sorting. */
typedef struct edge_entry {
    uint64_t key;
    int triangle;
} edge_entry;

static int compare_edges(const void *pa, const void *pb)
{
    const edge_entry *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->triangle - b->triangle;
}

static edge_entry *mesh_edges(const test_mesh *m)
{
    size_t count = (size_t)m->triangle_count * 3;
    edge_entry *edges = malloc(count * sizeof *edges);
    cr_assert(edges);
    for (int t = 0; t < m->triangle_count; t++) {
        for (int k = 0; k < 3; k++) {
            uint64_t p = m->indices[3 * t + k], q = m->indices[3 * t + (k + 1) % 3];
            edges[3 * t + k] = (edge_entry){p < q ? (p << 32 | q) : (q << 32 | p), t};
        }
    }
    qsort(edges, count, sizeof *edges, compare_edges);
    for (size_t i = 0; i < count; i += 2) /* closed, manifold */
        cr_assert(edges[i].key == edges[i + 1].key && (i + 2 >= count || edges[i + 2].key != edges[i].key),
                  "mesh is not closed at edge %zu", i);
    return edges;
}

static bool triangle_hit_two_sided(const test_mesh *m, const sr_ray *ray, int t, sr_triangle_hit *hit)
{
    const uint32_t *i = &m->indices[3 * t];
    return sr_ray_triangle(ray, m->positions[i[0]], m->positions[i[1]], m->positions[i[2]], hit);
}

static bool triangle_hit_front(const test_mesh *m, const sr_ray *ray, int t, sr_triangle_hit *hit)
{
    const uint32_t *i = &m->indices[3 * t];
    return sr_ray_triangle_culled(ray, m->positions[i[0]], m->positions[i[1]], m->positions[i[2]], hit);
}

/* Rays aimed exactly at every shared edge (midpoint a + 0.5 (b - a) in float) and every vertex,
 * from outside and from inside: at least one of the adjacent triangles must hit (front faces
 * for rays from outside, with the culled test as well). */
static void check_edges_and_vertices(const test_mesh *m, rng *r, double offset, double inside_offset,
                                     const sr_vec3 *centre)
{
    edge_entry *edges = mesh_edges(m);
    size_t count = (size_t)m->triangle_count * 3;
    int missed_outside = 0, missed_culled = 0, missed_inside = 0;
    for (size_t e = 0; e < count; e += 2) {
        uint32_t p = (uint32_t)(edges[e].key >> 32), q = (uint32_t)(edges[e].key & 0xffffffffu);
        sr_vec3 a = m->positions[p], b = m->positions[q];
        sr_vec3 midpoint = sr_vec3_add(a, sr_vec3_scale(sr_vec3_sub(b, a), 0.5f));
        dvec out = dv_add(m->outward[p], m->outward[q]);
        out = dv_scale(out, 1 / dv_length(out));
        for (int side = 0; side < 2; side++) {
            double distance = side == 0 ? offset : -inside_offset;
            dvec jitter = dv_scale(rng_direction(r), 0.3 * fabs(distance));
            sr_vec3 origin = to_float(dv_add(dv_add(dv(midpoint), dv_scale(out, distance)), jitter));
            sr_ray ray = sr_ray_make(origin, sr_vec3_sub(midpoint, origin), 0, INFINITY);
            bool any = triangle_hit_two_sided(m, &ray, edges[e].triangle, NULL) ||
                       triangle_hit_two_sided(m, &ray, edges[e + 1].triangle, NULL);
            if (side == 0) {
                missed_outside += !any;
                missed_culled += !(triangle_hit_front(m, &ray, edges[e].triangle, NULL) ||
                                   triangle_hit_front(m, &ray, edges[e + 1].triangle, NULL));
            } else {
                missed_inside += !any;
            }
        }
        if (centre) { /* from the centre of a convex mesh, direction = midpoint - centre */
            sr_ray ray = sr_ray_make(*centre, sr_vec3_sub(midpoint, *centre), 0, INFINITY);
            missed_inside += !(triangle_hit_two_sided(m, &ray, edges[e].triangle, NULL) ||
                               triangle_hit_two_sided(m, &ray, edges[e + 1].triangle, NULL));
        }
    }
    cr_assert(missed_outside == 0 && missed_culled == 0 && missed_inside == 0,
              "rays through shared edges slipped through: %d from outside, %d culled, %d from inside", missed_outside,
              missed_culled, missed_inside);
    free(edges);

    /* vertex fans */
    int *fan_count = calloc((size_t)m->vertex_count + 1, sizeof *fan_count);
    int *fan = malloc((size_t)m->triangle_count * 3 * sizeof *fan);
    cr_assert(fan_count && fan);
    for (int i = 0; i < m->triangle_count * 3; i++)
        fan_count[m->indices[i] + 1]++;
    for (int v = 0; v < m->vertex_count; v++)
        fan_count[v + 1] += fan_count[v];
    int *fill = calloc((size_t)m->vertex_count, sizeof *fill);
    cr_assert(fill);
    for (int i = 0; i < m->triangle_count * 3; i++) {
        uint32_t v = m->indices[i];
        fan[fan_count[v] + fill[v]++] = i / 3;
    }
    int vertex_missed = 0, vertex_missed_culled = 0;
    for (int v = 0; v < m->vertex_count; v++) {
        for (int side = 0; side < 3; side++) {
            if (side == 2 && !centre)
                break;
            double distance = side == 0 ? offset : -inside_offset;
            dvec jitter = dv_scale(rng_direction(r), 0.3 * fabs(distance));
            sr_vec3 origin = to_float(dv_add(dv_add(dv(m->positions[v]), dv_scale(m->outward[v], distance)), jitter));
            if (side == 2)
                origin = *centre; /* direction = vertex - centre, exactly the vertex for (0,0,0) */
            sr_ray ray = sr_ray_make(origin, sr_vec3_sub(m->positions[v], origin), 0, INFINITY);
            bool any = false, any_front = false;
            for (int k = fan_count[v]; k < fan_count[v + 1]; k++) {
                any = any || triangle_hit_two_sided(m, &ray, fan[k], NULL);
                any_front = any_front || triangle_hit_front(m, &ray, fan[k], NULL);
            }
            vertex_missed += !any;
            if (side == 0)
                vertex_missed_culled += !any_front;
        }
    }
    cr_assert(vertex_missed == 0 && vertex_missed_culled == 0, "rays through vertices slipped through: %d (%d culled)",
              vertex_missed, vertex_missed_culled);
    free(fan_count);
    free(fan);
    free(fill);
}

/* A uniform grid over the mesh so that 100,000 rays need not each test every triangle. It only
 * selects candidates, conservatively: triangles are binned with their boxes grown by half the
 * sampling step, and the ray is sampled every `step` along its length, so the sample nearest to
 * any hit point lies in a cell holding that triangle. A mistake here could only hide hits (and
 * fail the test), never invent one. */
typedef struct test_grid {
    int resolution;
    double lo[3], cell, step;
    int *start, *items;
    int *stamp;
} test_grid;

static int grid_coordinate(const test_grid *g, double x, int axis)
{
    int c = (int)floor((x - g->lo[axis]) / g->cell);
    return c < 0 ? 0 : (c >= g->resolution ? g->resolution - 1 : c);
}

static test_grid grid_build(const test_mesh *m, int resolution)
{
    test_grid g = {.resolution = resolution};
    double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    g.lo[0] = g.lo[1] = g.lo[2] = INFINITY;
    for (int v = 0; v < m->vertex_count; v++) {
        for (int axis = 0; axis < 3; axis++) {
            g.lo[axis] = fmin(g.lo[axis], dv_get(dv(m->positions[v]), axis));
            hi[axis] = fmax(hi[axis], dv_get(dv(m->positions[v]), axis));
        }
    }
    double extent = fmax(hi[0] - g.lo[0], fmax(hi[1] - g.lo[1], hi[2] - g.lo[2]));
    g.cell = extent * 1.001 / resolution;
    g.step = g.cell * 0.5;
    size_t cells = (size_t)resolution * resolution * resolution;
    g.start = calloc(cells + 1, sizeof *g.start);
    g.stamp = malloc((size_t)m->triangle_count * sizeof *g.stamp);
    cr_assert(g.start && g.stamp);
    for (int pass = 0; pass < 2; pass++) {
        int *fill = pass ? calloc(cells, sizeof *fill) : NULL;
        for (int t = 0; t < m->triangle_count; t++) {
            int lo_cell[3], hi_cell[3];
            for (int axis = 0; axis < 3; axis++) {
                double mn = INFINITY, mx = -INFINITY;
                for (int k = 0; k < 3; k++) {
                    double x = dv_get(dv(m->positions[m->indices[3 * t + k]]), axis);
                    mn = fmin(mn, x);
                    mx = fmax(mx, x);
                }
                lo_cell[axis] = grid_coordinate(&g, mn - 0.6 * g.step, axis);
                hi_cell[axis] = grid_coordinate(&g, mx + 0.6 * g.step, axis);
            }
            for (int z = lo_cell[2]; z <= hi_cell[2]; z++)
                for (int y = lo_cell[1]; y <= hi_cell[1]; y++)
                    for (int x = lo_cell[0]; x <= hi_cell[0]; x++) {
                        size_t c = ((size_t)z * resolution + y) * resolution + x;
                        if (pass == 0)
                            g.start[c + 1]++;
                        else
                            g.items[g.start[c] + fill[c]++] = t;
                    }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; c++)
                g.start[c + 1] += g.start[c];
            g.items = malloc((size_t)g.start[cells] * sizeof *g.items);
            cr_assert(g.items);
        }
        free(fill);
    }
    for (int t = 0; t < m->triangle_count; t++)
        g.stamp[t] = -1;
    return g;
}

static void grid_free(test_grid *g)
{
    free(g->start);
    free(g->items);
    free(g->stamp);
}

/* Any hit of a ray with unit direction whose origin is inside the grid, over all candidates
 * along the ray until it leaves the grid's box. */
static bool grid_any_hit(test_grid *g, const test_mesh *m, const sr_ray *ray, int ray_id, sr_triangle_hit *hit)
{
    double hi[3];
    for (int axis = 0; axis < 3; axis++)
        hi[axis] = g->lo[axis] + g->cell * g->resolution;
    /* length inside the grid box (double slab clip; the origin is inside) */
    double t_exit = INFINITY;
    dvec o = dv(ray->origin), d = dv(ray->direction);
    for (int axis = 0; axis < 3; axis++) {
        double dc = dv_get(d, axis), oc = dv_get(o, axis);
        if (dc > 0)
            t_exit = fmin(t_exit, (hi[axis] - oc) / dc);
        else if (dc < 0)
            t_exit = fmin(t_exit, (g->lo[axis] - oc) / dc);
    }
    int steps = (int)ceil(t_exit / g->step) + 1;
    for (int s = 0; s <= steps; s++) {
        dvec p = dv_add(o, dv_scale(d, fmin(s * g->step, t_exit)));
        int x = grid_coordinate(g, p.x, 0), y = grid_coordinate(g, p.y, 1), z = grid_coordinate(g, p.z, 2);
        size_t c = ((size_t)z * g->resolution + y) * g->resolution + x;
        for (int k = g->start[c]; k < g->start[c + 1]; k++) {
            int t = g->items[k];
            if (g->stamp[t] == ray_id)
                continue;
            g->stamp[t] = ray_id;
            if (triangle_hit_two_sided(m, ray, t, hit))
                return true;
        }
    }
    return false;
}

typedef dvec (*inside_point_fn)(rng *r, const double rotation[9]);

static dvec inside_sphere(rng *r, const double rotation[9])
{
    (void)rotation;
    dvec p;
    do
        p = (dvec){rng_range(r, -0.9, 0.9), rng_range(r, -0.9, 0.9), rng_range(r, -0.9, 0.9)};
    while (dv_length(p) > 0.9);
    return p;
}

static dvec inside_torus(rng *r, const double rotation[9])
{
    /* major 1, minor 0.35: points within 0.6 of the minor radius of the ring circle, far inside
     * the tessellated tube (its inradius is 0.35 cos(pi / 64) minus a 2e-4 sag) */
    double phi = rng_range(r, 0, 2 * pi), radius = 0.35 * 0.6 * sqrt(rng_unit(r));
    double theta = rng_range(r, 0, 2 * pi);
    dvec tube = {cos(theta) * cos(phi), sin(theta), cos(theta) * sin(phi)};
    dvec p = dv_add((dvec){cos(phi), 0, sin(phi)}, dv_scale(tube, radius));
    return rotate(rotation, p);
}

/* Distance of a point from the ideal surface the mesh approximates. */
typedef double (*surface_error_fn)(dvec point, const double rotation[9]);

static double sphere_surface_error(dvec p, const double rotation[9])
{
    (void)rotation;
    return fabs(dv_length(p) - 1.0);
}

static double torus_surface_error(dvec p, const double rotation[9])
{
    const double *m = rotation; /* transpose = inverse */
    dvec q = {m[0] * p.x + m[3] * p.y + m[6] * p.z, m[1] * p.x + m[4] * p.y + m[7] * p.z,
              m[2] * p.x + m[5] * p.y + m[8] * p.z};
    double ring = sqrt(q.x * q.x + q.z * q.z) - 1.0;
    return fabs(sqrt(ring * ring + q.y * q.y) - 0.35);
}

static void check_rays_from_inside(const test_mesh *m, rng *r, const double rotation[9], inside_point_fn inside,
                                   int count, surface_error_fn surface_error)
{
    test_grid g = grid_build(m, 48);
    int misses = 0;
    for (int i = 0; i < count; i++) {
        sr_vec3 origin = to_float(inside(r, rotation));
        sr_vec3 direction = to_float(rng_direction(r));
        sr_ray ray = sr_ray_make(origin, direction, 0, INFINITY);
        sr_triangle_hit hit;
        if (!grid_any_hit(&g, m, &ray, i, &hit)) {
            misses++;
            continue;
        }
        /* a genuine crossing of the surface: positive t, a point within the tessellation's sag
         * (about 1e-3 here) of the ideal surface */
        cr_assert(hit.t > 0 && hit.u >= 0 && hit.v >= 0 && hit.u + hit.v <= 1.0f + 1e-6f);
        dvec point = dv_add(dv(origin), dv_scale(dv(direction), hit.t));
        cr_assert(surface_error(point, rotation) < 5e-3, "hit %g off the surface", surface_error(point, rotation));
    }
    cr_assert_eq(misses, 0, "%d of %d rays from inside the closed mesh escaped", misses, count);
    grid_free(&g);
}

static const double identity_rotation[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

Test(watertight, sphere_edges_and_vertices)
{
    rng r = {30};
    double rotation[9];
    random_rotation(&r, rotation);
    for (int variant = 0; variant < 2; variant++) {
        test_mesh m = build_sphere(128, 80, 1.0, variant ? rotation : identity_rotation);
        cr_assert(m.triangle_count >= 20000);
        const sr_vec3 centre = {0, 0, 0};
        check_edges_and_vertices(&m, &r, 0.5, 0.5, &centre);
        mesh_free(&m);
    }
}

Test(watertight, torus_edges_and_vertices)
{
    rng r = {31};
    double rotation[9];
    random_rotation(&r, rotation);
    for (int variant = 0; variant < 2; variant++) {
        test_mesh m = build_torus(160, 64, 1.0, 0.35, variant ? rotation : identity_rotation);
        cr_assert(m.triangle_count >= 20000);
        check_edges_and_vertices(&m, &r, 0.2, 0.2, NULL);
        mesh_free(&m);
    }
}

Test(watertight, sphere_rays_from_inside)
{
    rng r = {32};
    double rotation[9];
    random_rotation(&r, rotation);
    test_mesh aligned = build_sphere(128, 80, 1.0, identity_rotation);
    check_rays_from_inside(&aligned, &r, identity_rotation, inside_sphere, 20000, sphere_surface_error);
    mesh_free(&aligned);
    test_mesh m = build_sphere(128, 80, 1.0, rotation);
    check_rays_from_inside(&m, &r, rotation, inside_sphere, 100000, sphere_surface_error);
    mesh_free(&m);
}

Test(watertight, torus_rays_from_inside)
{
    rng r = {33};
    double rotation[9];
    random_rotation(&r, rotation);
    test_mesh aligned = build_torus(160, 64, 1.0, 0.35, identity_rotation);
    check_rays_from_inside(&aligned, &r, identity_rotation, inside_torus, 20000, torus_surface_error);
    mesh_free(&aligned);
    test_mesh m = build_torus(160, 64, 1.0, 0.35, rotation);
    check_rays_from_inside(&m, &r, rotation, inside_torus, 100000, torus_surface_error);
    mesh_free(&m);
}

/* ------------------------------------------------------------------------------------------ */
/* Ray / sphere, plane, OBB                                                                    */

Test(ray_sphere, analytic_cases)
{
    sr_sphere s = {{0, 0, -5}, 2};
    float t;
    sr_ray ray = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(sr_ray_sphere(&ray, &s, &t) && t == 3.0f, "front surface at 3");
    sr_ray inside = sr_ray_make((sr_vec3){0, 0, -5}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(sr_ray_sphere(&inside, &s, &t) && t == 2.0f, "origin inside: exit point");
    sr_ray behind = sr_ray_make((sr_vec3){0, 0, -10}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(!sr_ray_sphere(&behind, &s, &t));
    sr_ray clipped = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 0, 2.5f);
    cr_assert(!sr_ray_sphere(&clipped, &s, &t));
    sr_ray late = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 4, INFINITY);
    cr_assert(sr_ray_sphere(&late, &s, &t) && t == 7.0f, "tmin past the entry: the exit");
    sr_ray tangent = sr_ray_make((sr_vec3){2, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(sr_ray_sphere(&tangent, &s, &t) && fabsf(t - 5.0f) < 1e-5f, "tangent touches");
    sr_ray miss = sr_ray_make((sr_vec3){2.001f, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(!sr_ray_sphere(&miss, &s, &t));
    sr_ray scaled = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -2}, 0, INFINITY);
    cr_assert(sr_ray_sphere(&scaled, &s, &t) && t == 1.5f, "t in units of |direction|");
    sr_ray zero = sr_ray_make((sr_vec3){0, 0, -5}, (sr_vec3){0, 0, 0}, 0, INFINITY);
    cr_assert(!sr_ray_sphere(&zero, &s, &t));
    sr_sphere bad = {{0, 0, -5}, -1};
    cr_assert(!sr_ray_sphere(&ray, &bad, &t));
    bad.radius = NAN;
    cr_assert(!sr_ray_sphere(&ray, &bad, &t));
    sr_ray nan_ray = sr_ray_make((sr_vec3){NAN, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(!sr_ray_sphere(&nan_ray, &s, &t));
    /* small sphere far away: the stable form keeps full precision (the naive b^2 - ac loses it) */
    sr_sphere far_sphere = {{0, 0.0005f, -10000}, 0.001f};
    cr_assert(sr_ray_sphere(&ray, &far_sphere, &t));
    double expected = 10000 - sqrt(0.001 * 0.001 - 0.0005 * 0.0005);
    cr_assert(fabs(t - expected) <= 1e-6 * expected, "t %.9g vs %.9g", (double)t, expected);
}

Test(ray_sphere, random_rays_against_double)
{
    rng r = {40};
    int compared = 0;
    for (int i = 0; i < 20000; i++) {
        sr_sphere s = {rng_vec3(&r, -10, 10), rng_float(&r, 0.01, 4)};
        sr_vec3 origin = rng_vec3(&r, -15, 15);
        sr_vec3 target = sr_vec3_add(s.centre, rng_vec3(&r, -1.5 * s.radius, 1.5 * s.radius));
        sr_vec3 direction = to_float(dv_scale(dv_sub(dv(target), dv(origin)), rng_range(&r, 0.1, 10)));
        float tmin = rng_unit(&r) < 0.8 ? 0 : rng_float(&r, -1, 1);
        sr_ray ray = sr_ray_make(origin, direction, tmin, INFINITY);
        /* double reference: roots of |o + t d - c|^2 = r^2 by the textbook formula */
        dvec f = dv_sub(dv(origin), dv(s.centre)), d = dv(direction);
        double a = dv_dot(d, d), b = dv_dot(f, d), c = dv_dot(f, f) - (double)s.radius * s.radius;
        double disc = b * b - a * c;
        double scale = fabs(b) + dv_length(f) * sqrt(a);
        if (fabs(disc) < 1e-4 * scale * scale)
            continue; /* nearly tangent */
        bool expected = false;
        double t_expected = 0;
        if (disc > 0) {
            double t0 = (-b - sqrt(disc)) / a, t1 = (-b + sqrt(disc)) / a;
            if (t0 >= tmin)
                expected = true, t_expected = t0;
            else if (t1 >= tmin)
                expected = true, t_expected = t1;
            double t_scale = fabs(t_expected) + s.radius / sqrt(a);
            if (fabs(t0 - tmin) < 1e-5 * t_scale || fabs(t1 - tmin) < 1e-5 * t_scale)
                continue;
        }
        float t = -1;
        bool got = sr_ray_sphere(&ray, &s, &t);
        compared++;
        cr_assert_eq(got, expected, "case %d", i);
        if (expected)
            cr_assert(close_relative(t, t_expected, 1e-5, s.radius / sqrt(a)), "t %.9g vs %.9g", (double)t, t_expected);
    }
    cr_assert(compared > 15000);
}

Test(ray_plane, analytic_and_random)
{
    sr_plane p = sr_plane_from_point_normal((sr_vec3){0, 1, 0}, (sr_vec3){0, 1, 0});
    float t;
    sr_ray down = sr_ray_make((sr_vec3){3, 5, 2}, (sr_vec3){0, -2, 0}, 0, INFINITY);
    cr_assert(sr_ray_plane(&down, &p, &t) && t == 2.0f);
    sr_ray up = sr_ray_make((sr_vec3){3, -5, 2}, (sr_vec3){0, 1, 1}, 0, INFINITY);
    cr_assert(sr_ray_plane(&up, &p, &t) && t == 6.0f, "two-sided");
    sr_ray away = sr_ray_make((sr_vec3){3, 5, 2}, (sr_vec3){0, 1, 0}, 0, INFINITY);
    cr_assert(!sr_ray_plane(&away, &p, &t));
    sr_ray parallel = sr_ray_make((sr_vec3){3, 5, 2}, (sr_vec3){1, 0, 0}, -INFINITY, INFINITY);
    cr_assert(!sr_ray_plane(&parallel, &p, &t));
    sr_ray in_plane = sr_ray_make((sr_vec3){3, 1, 2}, (sr_vec3){1, 0, 0}, -INFINITY, INFINITY);
    cr_assert(!sr_ray_plane(&in_plane, &p, &t), "lying in the plane: no single point");
    sr_ray short_ray = sr_ray_make((sr_vec3){3, 5, 2}, (sr_vec3){0, -2, 0}, 0, 1.5f);
    cr_assert(!sr_ray_plane(&short_ray, &p, &t));
    sr_ray nan_ray = sr_ray_make((sr_vec3){3, NAN, 2}, (sr_vec3){0, -2, 0}, 0, INFINITY);
    cr_assert(!sr_ray_plane(&nan_ray, &p, &t));
    rng r = {41};
    for (int i = 0; i < 10000; i++) {
        sr_vec3 normal = to_float(dv_scale(rng_direction(&r), rng_range(&r, 0.5, 2)));
        sr_plane q = sr_plane_from_point_normal(rng_vec3(&r, -5, 5), normal);
        sr_vec3 origin = rng_vec3(&r, -10, 10), direction = to_float(rng_direction(&r));
        double denominator = dv_dot(dv(q.normal), dv(direction));
        if (fabs(denominator) < 1e-3 * dv_length(dv(q.normal)))
            continue;
        double t_expected = -(dv_dot(dv(q.normal), dv(origin)) + q.d) / denominator;
        sr_ray ray = sr_ray_make(origin, direction, 0, INFINITY);
        bool got = sr_ray_plane(&ray, &q, &t);
        if (fabs(t_expected) < 1e-4)
            continue;
        cr_assert_eq(got, t_expected >= 0);
        /* float rounding of n.o + d is ~u (|n.o| + |d|): relative to t it grows when they cancel */
        double scale = (fabs(dv_dot(dv(q.normal), dv(origin))) + fabs(q.d)) / fabs(denominator);
        if (got)
            cr_assert(close_relative(t, t_expected, 1e-5, scale), "t %g vs %g", (double)t, t_expected);
    }
}

Test(ray_obb, analytic_and_random)
{
    /* a cube of half size 1 rotated 45 degrees about y, centred at (0, 0, -5): its corner at
     * z = -5 + sqrt(2) faces the origin */
    sr_mat4 m = sr_mat4_mul(sr_mat4_translation((sr_vec3){0, 0, -5}), sr_mat4_rotation((sr_vec3){0, 1, 0}, SR_PI / 4));
    sr_obb box = sr_obb_from_aabb((sr_aabb){{-1, -1, -1}, {1, 1, 1}}, m);
    sr_ray ray = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    float t_near, t_far;
    cr_assert(sr_ray_obb(&ray, &box, &t_near, &t_far));
    cr_assert(fabsf(t_near - (5 - sqrtf(2))) < 1e-5f && fabsf(t_far - (5 + sqrtf(2))) < 1e-5f, "%g %g", (double)t_near,
              (double)t_far);
    sr_ray beside = sr_ray_make((sr_vec3){1.5f, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(!sr_ray_obb(&beside, &box, NULL, NULL), "an AABB of the OBB would be hit, the OBB is not");
    sr_ray nan_ray = sr_ray_make((sr_vec3){0, NAN, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(!sr_ray_obb(&nan_ray, &box, NULL, NULL));
    sr_obb nan_box = box;
    nan_box.axes[1].y = NAN;
    cr_assert(!sr_ray_obb(&ray, &nan_box, NULL, NULL));

    rng r = {42};
    int compared = 0;
    for (int i = 0; i < 10000; i++) {
        sr_aabb local = random_box(&r, -2, 2, 3);
        rigid t = random_rigid(&r);
        sr_obb obb = sr_obb_from_aabb(local, t.matrix);
        sr_vec3 origin = rng_vec3(&r, -10, 10);
        dvec target = rigid_apply(&t, (dvec){rng_range(&r, local.min.x - 1, local.max.x + 1),
                                             rng_range(&r, local.min.y - 1, local.max.y + 1),
                                             rng_range(&r, local.min.z - 1, local.max.z + 1)});
        sr_vec3 direction = to_float(dv_sub(target, dv(origin)));
        /* reference: the ray in box space in double (t is preserved by the affine map), then
         * Liang-Barsky in double against the box scaled into world units per axis */
        dvec o = rigid_invert(&t, dv(origin));
        dvec d = dv_sub(rigid_invert(&t, dv_add(dv(origin), dv(direction))), o);
        double lo = 0, hi = INFINITY, gap_scale = 0;
        bool hit = true;
        for (int axis = 0; axis < 3; axis++) {
            double oc = dv_get(o, axis), dc = dv_get(d, axis);
            double mn = dv_get(dv(local.min), axis), mx = dv_get(dv(local.max), axis);
            if (dc == 0) {
                hit = hit && oc >= mn && oc <= mx;
                continue;
            }
            double t0 = (mn - oc) / dc, t1 = (mx - oc) / dc;
            lo = fmax(lo, fmin(t0, t1));
            hi = fmin(hi, fmax(t0, t1));
            gap_scale = fmax(gap_scale, fmax(fabs(t0), fabs(t1)));
        }
        hit = hit && lo <= hi;
        if (fabs(lo - hi) < 1e-4 * (gap_scale + 1))
            continue; /* grazing: float rotation rounding decides */
        compared++;
        sr_ray world_ray = sr_ray_make(origin, direction, 0, INFINITY);
        bool got = sr_ray_obb(&world_ray, &obb, &t_near, &t_far);
        cr_assert_eq(got, hit, "case %d", i);
        if (hit) {
            cr_assert(close_relative(t_near, lo, 1e-4, 1e-2) && close_relative(t_far, hi, 1e-4, 1e-2),
                      "t %g %g vs %g %g", (double)t_near, (double)t_far, lo, hi);
        }
    }
    cr_assert(compared > 9000);
}

/* ------------------------------------------------------------------------------------------ */
/* Frustums                                                                                    */

static void assert_plane(sr_plane actual, dvec normal, double d, const char *name)
{
    double length = dv_length(normal);
    normal = dv_scale(normal, 1 / length);
    d /= length;
    cr_assert(fabs(actual.normal.x - normal.x) < 1e-5 && fabs(actual.normal.y - normal.y) < 1e-5 &&
                  fabs(actual.normal.z - normal.z) < 1e-5 && fabs(actual.d - d) < 1e-4 * (1 + fabs(d)),
              "%s plane: (%g %g %g, %g) expected (%g %g %g, %g)", name, (double)actual.normal.x,
              (double)actual.normal.y, (double)actual.normal.z, (double)actual.d, normal.x, normal.y, normal.z, d);
}

Test(frustum, perspective_planes_are_analytic)
{
    const double fov = 1.0, aspect = 1.5, near_z = 0.25, far_z = 50;
    sr_frustum f = sr_frustum_from_matrix(sr_mat4_perspective((float)fov, (float)aspect, (float)near_z, (float)far_z));
    /* view space: inside iff |x| <= -z tan(fov/2) aspect, |y| <= -z tan(fov/2), -far <= z <= -near */
    double g = 1 / tan(fov / 2); /* f of the projection */
    assert_plane(f.planes[0], (dvec){g / aspect, 0, -1}, 0, "left");
    assert_plane(f.planes[1], (dvec){-g / aspect, 0, -1}, 0, "right");
    assert_plane(f.planes[2], (dvec){0, g, -1}, 0, "bottom");
    assert_plane(f.planes[3], (dvec){0, -g, -1}, 0, "top");
    assert_plane(f.planes[4], (dvec){0, 0, -1}, -near_z, "near");
    assert_plane(f.planes[5], (dvec){0, 0, 1}, far_z, "far");

    /* with a view matrix: the eye is on the four side planes, the eight corners computed from
     * the camera's basis lie on their three planes each */
    sr_vec3 eye = {1, 2, 3}, target = {-1, 0.5f, -2}, up = {0, 1, 0};
    sr_mat4 vp = sr_mat4_mul(sr_mat4_perspective((float)fov, (float)aspect, (float)near_z, (float)far_z),
                             sr_mat4_look_at(eye, target, up));
    sr_frustum w = sr_frustum_from_matrix(vp);
    for (int i = 0; i < 4; i++)
        cr_assert(fabs(sr_plane_distance(w.planes[i], eye)) < 1e-5, "eye on side plane %d", i);
    dvec forward = dv_sub(dv(target), dv(eye));
    forward = dv_scale(forward, 1 / dv_length(forward));
    dvec right = dv_cross(forward, dv(up));
    right = dv_scale(right, 1 / dv_length(right));
    dvec true_up = dv_cross(right, forward);
    for (int corner = 0; corner < 8; corner++) {
        double depth = corner & 4 ? far_z : near_z;
        double sx = corner & 1 ? 1 : -1, sy = corner & 2 ? 1 : -1;
        double half_h = depth * tan(fov / 2), half_w = half_h * aspect;
        dvec p = dv_add(dv_add(dv_add(dv(eye), dv_scale(forward, depth)), dv_scale(right, sx * half_w)),
                        dv_scale(true_up, sy * half_h));
        int planes[3] = {sx < 0 ? 0 : 1, sy < 0 ? 2 : 3, corner & 4 ? 5 : 4};
        for (int k = 0; k < 3; k++)
            cr_assert(fabs(sr_plane_distance(w.planes[planes[k]], to_float(p))) < 1e-4 * (1 + depth),
                      "corner %d on plane %d: %g", corner, planes[k],
                      (double)sr_plane_distance(w.planes[planes[k]], to_float(p)));
        /* a point slightly towards the centre of the view is inside every plane */
        dvec inner = dv_add(dv(eye), dv_scale(forward, (near_z + far_z) / 2));
        for (int k = 0; k < 6; k++)
            cr_assert(sr_plane_distance(w.planes[k], to_float(inner)) > 0);
    }
}

Test(frustum, orthographic_planes_are_analytic)
{
    const double left = -2, right = 3, bottom = -1, top = 1.5, near_z = 0.5, far_z = 20;
    sr_frustum f = sr_frustum_from_matrix(
        sr_mat4_orthographic((float)left, (float)right, (float)bottom, (float)top, (float)near_z, (float)far_z));
    assert_plane(f.planes[0], (dvec){1, 0, 0}, -left, "left");
    assert_plane(f.planes[1], (dvec){-1, 0, 0}, right, "right");
    assert_plane(f.planes[2], (dvec){0, 1, 0}, -bottom, "bottom");
    assert_plane(f.planes[3], (dvec){0, -1, 0}, top, "top");
    assert_plane(f.planes[4], (dvec){0, 0, -1}, -near_z, "near");
    assert_plane(f.planes[5], (dvec){0, 0, 1}, far_z, "far");
}

/* Clip-space definition of "inside", in double: -w <= x, y <= w and 0 <= z <= w. `margin` > 0
 * demands the point be inside by that much (relative to w), < 0 tolerates that much outside. */
static bool clip_inside(const sr_mat4 *m, dvec p, double margin)
{
    double c[4];
    for (int row = 0; row < 4; row++)
        c[row] = m->m[row] * p.x + m->m[4 + row] * p.y + m->m[8 + row] * p.z + m->m[12 + row];
    double e = margin * fabs(c[3]);
    return c[0] >= -c[3] + e && c[0] <= c[3] - e && c[1] >= -c[3] + e && c[1] <= c[3] - e && c[2] >= e &&
           c[2] <= c[3] - e;
}

/* Random boxes: the p-/n-vertex answer against corner brute force in double, and against
 * sample points classified by the clip-space definition (OUTSIDE: no point inside; INSIDE:
 * every point inside). */
static void check_frustum_boxes(sr_mat4 vp, rng *r, double spread, double size)
{
    sr_frustum f = sr_frustum_from_matrix(vp);
    int counts[3] = {0, 0, 0};
    for (int i = 0; i < 20000; i++) {
        sr_aabb box = random_box(r, -spread, spread, size * rng_unit(r));
        sr_containment got = sr_frustum_test_aabb(&f, &box);
        counts[got]++;
        /* corner classification in double with the function's float planes (the planes are the
         * input here; their extraction is tested analytically above) */
        bool all_inside = true, any_plane_all_outside = false, band = false;
        for (int k = 0; k < 6; k++) {
            int negative = 0;
            for (int corner = 0; corner < 8; corner++) {
                dvec p = {corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                          corner & 4 ? box.max.z : box.min.z};
                double distance = dv_dot(dv(f.planes[k].normal), p) + f.planes[k].d;
                double tolerance = 1e-5 * (dv_length(p) + fabs(f.planes[k].d));
                band = band || fabs(distance) <= tolerance;
                negative += distance < 0;
            }
            all_inside = all_inside && negative == 0;
            any_plane_all_outside = any_plane_all_outside || negative == 8;
        }
        if (!band) {
            sr_containment expected = any_plane_all_outside ? SR_OUTSIDE : (all_inside ? SR_INSIDE : SR_INTERSECTING);
            cr_assert_eq(got, expected, "box %d", i);
        }
        /* sample points */
        for (int k = 0; k < 16; k++) {
            dvec p = {rng_range(r, box.min.x, box.max.x), rng_range(r, box.min.y, box.max.y),
                      rng_range(r, box.min.z, box.max.z)};
            if (k < 8)
                p = (dvec){k & 1 ? box.max.x : box.min.x, k & 2 ? box.max.y : box.min.y, k & 4 ? box.max.z : box.min.z};
            if (got == SR_OUTSIDE)
                cr_assert(!clip_inside(&vp, p, 1e-4), "OUTSIDE box %d has a point inside", i);
            if (got == SR_INSIDE)
                cr_assert(clip_inside(&vp, p, -1e-4), "INSIDE box %d has a point outside", i);
        }
    }
    cr_assert(counts[0] > 500 && counts[1] > 500 && counts[2] > 500, "outside %d intersecting %d inside %d", counts[0],
              counts[1], counts[2]);
}

Test(frustum, aabb_classification)
{
    rng r = {50};
    sr_mat4 view = sr_mat4_look_at((sr_vec3){1, 2, 8}, (sr_vec3){0, 0, 0}, (sr_vec3){0, 1, 0});
    check_frustum_boxes(sr_mat4_mul(sr_mat4_perspective(1.0f, 1.5f, 0.5f, 20.0f), view), &r, 10, 3);
    check_frustum_boxes(sr_mat4_mul(sr_mat4_orthographic(-3, 4, -2, 2.5f, 1, 15), view), &r, 8, 3);
    /* a box built from points inside, and boxes beyond each plane */
    sr_mat4 vp = sr_mat4_perspective(1.0f, 1.0f, 1.0f, 10.0f);
    sr_frustum f = sr_frustum_from_matrix(vp);
    sr_aabb inside = {{-0.2f, -0.2f, -3}, {0.2f, 0.2f, -2}};
    cr_assert_eq(sr_frustum_test_aabb(&f, &inside), SR_INSIDE);
    sr_aabb beyond_far = {{-1, -1, -30}, {1, 1, -11}};
    cr_assert_eq(sr_frustum_test_aabb(&f, &beyond_far), SR_OUTSIDE);
    sr_aabb behind = {{-1, -1, 0}, {1, 1, 5}};
    cr_assert_eq(sr_frustum_test_aabb(&f, &behind), SR_OUTSIDE);
    sr_aabb straddling = {{-1, -1, -12}, {1, 1, -5}};
    cr_assert_eq(sr_frustum_test_aabb(&f, &straddling), SR_INTERSECTING);
    sr_aabb empty = sr_aabb_empty();
    cr_assert_eq(sr_frustum_test_aabb(&f, &empty), SR_OUTSIDE);
    sr_aabb nan_box = {{NAN, 0, -3}, {0.1f, 0.1f, -2}};
    cr_assert_eq(sr_frustum_test_aabb(&f, &nan_box), SR_OUTSIDE);
}

Test(frustum, sphere_classification)
{
    rng r = {51};
    sr_mat4 vp = sr_mat4_mul(sr_mat4_perspective(1.2f, 1.3f, 0.5f, 20.0f),
                             sr_mat4_look_at((sr_vec3){-2, 1, 6}, (sr_vec3){0, 0, 0}, (sr_vec3){0, 1, 0}));
    sr_frustum f = sr_frustum_from_matrix(vp);
    int counts[3] = {0, 0, 0};
    for (int i = 0; i < 20000; i++) {
        sr_sphere s = {rng_vec3(&r, -10, 10), rng_float(&r, 0, 3)};
        sr_containment got = sr_frustum_test_sphere(&f, &s);
        counts[got]++;
        /* plane distances in double against the radius */
        bool outside = false, inside = true, band = false;
        for (int k = 0; k < 6; k++) {
            double distance = dv_dot(dv(f.planes[k].normal), dv(s.centre)) + f.planes[k].d;
            band = band || fabs(fabs(distance) - s.radius) < 1e-5 * (10 + dv_length(dv(s.centre)));
            outside = outside || distance < -s.radius;
            inside = inside && distance >= s.radius;
        }
        if (!band)
            cr_assert_eq(got, outside ? SR_OUTSIDE : (inside ? SR_INSIDE : SR_INTERSECTING), "sphere %d", i);
        /* points of the ball against the clip-space definition */
        for (int k = 0; k < 12; k++) {
            dvec p = dv_add(dv(s.centre), dv_scale(rng_direction(&r), s.radius * (k < 6 ? 1.0 : rng_unit(&r))));
            if (got == SR_OUTSIDE)
                cr_assert(!clip_inside(&vp, p, 1e-4));
            if (got == SR_INSIDE)
                cr_assert(clip_inside(&vp, p, -1e-4));
        }
    }
    cr_assert(counts[0] > 500 && counts[1] > 500 && counts[2] > 500, "outside %d intersecting %d inside %d", counts[0],
              counts[1], counts[2]);
    sr_sphere bad = {{0, 0, -3}, -1};
    cr_assert_eq(sr_frustum_test_sphere(&f, &bad), SR_OUTSIDE);
    bad.radius = NAN;
    cr_assert_eq(sr_frustum_test_sphere(&f, &bad), SR_OUTSIDE);
    sr_sphere nan_centre = {{NAN, 0, 0}, 1};
    cr_assert_eq(sr_frustum_test_sphere(&f, &nan_centre), SR_OUTSIDE);
}
