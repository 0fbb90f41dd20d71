/* tests/test_geom_volumes.c — ray/sphere, ray/plane and ray/OBB against analytic and
 * double-precision answers, and frustums against their clip-space definition (part of the program
 * test_geom; helpers: geom_test_helpers.h). */
#include <criterion/criterion.h>

#include <softrast/geom.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geom_test_helpers.h"

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
