/* tests/fuzz/fuzz_geom.c — fuzz target of the geometry queries (softrast/geom.h,
 * src/geom/aabb.c, intersect.c, frustum.c): rays, boxes, triangles, spheres, planes, oriented
 * boxes and frustums made of raw floats (NaN, infinities, -0, huge and subnormal values) go
 * through every query.
 *
 * Checked, beyond "no crash": sr_ray_make poisons non-finite rays and keeps inv_direction
 * exact; every reported hit has finite distances inside [tmin, tmax] (NaN is never a hit);
 * triangle barycentrics are in [0, 1]; a front-face hit is also a two-sided hit with the same
 * answer; rays starting inside a box, oriented box or sphere hit it; where the input is well
 * conditioned the hit point lies on the shape (computed again in double); box helpers keep their
 * containment promises; frustum classification equals testing the eight corners one by one.
 * Knows nothing of the driver that calls it. */
#include "fuzz_targets.h"

#include <softrast/geom.h>

#include <float.h>
#include <math.h>
#include <string.h>

static sr_vec3 read_vec3(fuzz_reader *r)
{
    float x = fuzz_read_float(r), y = fuzz_read_float(r);
    return (sr_vec3){x, y, fuzz_read_float(r)};
}

static sr_aabb read_box(fuzz_reader *r)
{
    sr_vec3 a = read_vec3(r);
    if (fuzz_read_u8(r) % 4 == 0)
        return (sr_aabb){a, read_vec3(r)}; /* raw corners: may be inverted */
    sr_vec3 b = read_vec3(r);
    return (sr_aabb){sr_vec3_min(a, b), sr_vec3_max(a, b)};
}

static bool bits_equal(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static bool has_nan3(sr_vec3 v)
{
    return isnan(v.x) || isnan(v.y) || isnan(v.z);
}

static double max_abs3(sr_vec3 v)
{
    return fmax(fabs((double)v.x), fmax(fabs((double)v.y), fabs((double)v.z)));
}

/* A ray and its validity: tmin/tmax come from a small menu or from the bytes. */
static sr_ray read_ray(fuzz_reader *r, bool *usable)
{
    sr_vec3 origin = read_vec3(r), direction = read_vec3(r);
    uint8_t range = fuzz_read_u8(r);
    float tmin = range % 3 == 0 ? 0.0f : range % 3 == 1 ? -INFINITY : fuzz_read_float(r);
    float tmax = range / 3 % 2 == 0 ? INFINITY : fuzz_read_float(r);
    sr_ray ray = sr_ray_make(origin, direction, tmin, tmax);
    bool poisoned = !sr_vec3_is_finite(origin) || !sr_vec3_is_finite(direction) || isnan(tmin) || isnan(tmax);
    if (poisoned) {
        FUZZ_CHECK(isnan(ray.tmin) && isnan(ray.tmax), "non-finite ray not poisoned: tmin %g tmax %g", (double)ray.tmin,
                   (double)ray.tmax);
    } else {
        FUZZ_CHECK(bits_equal(ray.tmin, tmin) && bits_equal(ray.tmax, tmax), "sr_ray_make changed tmin/tmax");
    }
    FUZZ_CHECK(bits_equal(ray.inv_direction.x, 1.0f / direction.x) &&
                   bits_equal(ray.inv_direction.y, 1.0f / direction.y) &&
                   bits_equal(ray.inv_direction.z, 1.0f / direction.z),
               "inv_direction is not 1 / direction");
    FUZZ_CHECK(ray.axis_x >= 0 && ray.axis_x < 3 && ray.axis_y >= 0 && ray.axis_y < 3 && ray.axis_z >= 0 &&
                   ray.axis_z < 3 && ray.axis_x != ray.axis_y && ray.axis_y != ray.axis_z && ray.axis_x != ray.axis_z,
               "ray space axes %d %d %d", ray.axis_x, ray.axis_y, ray.axis_z);
    *usable = !poisoned;
    return ray;
}

/* A reported distance: finite (or the clipped range end), never NaN, inside [tmin, tmax]. */
static void check_t(const sr_ray *ray, float t, const char *query)
{
    FUZZ_CHECK(!isnan(t) && t >= ray->tmin && t <= ray->tmax, "%s reported t = %g outside [%g, %g]", query, (double)t,
               (double)ray->tmin, (double)ray->tmax);
}

static void check_ray_box(fuzz_reader *r)
{
    bool usable;
    sr_ray ray = read_ray(r, &usable);
    sr_aabb box = read_box(r);
    if (has_nan3(box.min) || has_nan3(box.max))
        return; /* geom.h: a box with NaN must not be given to sr_ray_aabb */
    float t_near = NAN, t_far = NAN;
    bool hit = sr_ray_aabb(&ray, &box, &t_near, &t_far);
    if (hit) {
        FUZZ_CHECK(usable, "a poisoned ray hit a box");
        check_t(&ray, t_near, "sr_ray_aabb (near)");
        check_t(&ray, t_far, "sr_ray_aabb (far)");
        FUZZ_CHECK(t_near <= t_far, "sr_ray_aabb near %g > far %g", (double)t_near, (double)t_far);
        /* Every empty box, not only the canonical one (regressions/geom_ray_hits_inverted_box). */
        FUZZ_CHECK(!sr_aabb_is_empty(box),
                   "empty box (%g %g %g)..(%g %g %g) hit at [%g, %g] (geom.h: an empty box never hits)",
                   (double)box.min.x, (double)box.min.y, (double)box.min.z, (double)box.max.x, (double)box.max.y,
                   (double)box.max.z, (double)t_near, (double)t_far);
    }
    /* closed box: an origin inside (t = 0 in range) is a hit */
    if (usable && ray.tmin <= 0.0f && 0.0f <= ray.tmax && sr_aabb_contains_point(box, ray.origin))
        FUZZ_CHECK(hit, "a ray starting inside the box missed it");
}

static void check_ray_triangle(fuzz_reader *r)
{
    bool usable;
    sr_ray ray = read_ray(r, &usable);
    sr_vec3 a = read_vec3(r), b = read_vec3(r), c = read_vec3(r);
    if (fuzz_read_u8(r) % 4 == 0) /* shared vertices: degenerate triangles */
        c = b;
    sr_triangle_hit hit = {NAN, NAN, NAN}, front = {NAN, NAN, NAN};
    bool two_sided = sr_ray_triangle(&ray, a, b, c, &hit);
    bool culled = sr_ray_triangle_culled(&ray, a, b, c, &front);
    if (culled) {
        FUZZ_CHECK(two_sided, "front-face hit without a two-sided hit");
        FUZZ_CHECK(bits_equal(front.t, hit.t) && bits_equal(front.u, hit.u) && bits_equal(front.v, hit.v),
                   "front-face hit (%g %g %g) differs from the two-sided one (%g %g %g)", (double)front.t,
                   (double)front.u, (double)front.v, (double)hit.t, (double)hit.u, (double)hit.v);
    }
    if (!two_sided)
        return;
    FUZZ_CHECK(usable, "a poisoned ray hit a triangle");
    FUZZ_CHECK(!has_nan3(a) && !has_nan3(b) && !has_nan3(c), "a triangle with a NaN vertex was hit");
    check_t(&ray, hit.t, "sr_ray_triangle");
    FUZZ_CHECK(isfinite(hit.t), "infinite t reported");
    FUZZ_CHECK(hit.u >= 0.0f && hit.v >= 0.0f && hit.u + hit.v <= 1.0f + 1e-6f, "barycentrics u %g v %g", (double)hit.u,
               (double)hit.v);

    /* Where the answer is well conditioned (moderate magnitudes, a fat triangle, not seen edge
     * on), the point on the ray at t and the point of the triangle at (u, v) must agree. */
    double scale = fmax(fmax(max_abs3(ray.origin), max_abs3(a)), fmax(max_abs3(b), max_abs3(c)));
    double d[3] = {ray.direction.x, ray.direction.y, ray.direction.z};
    double e1[3] = {(double)b.x - a.x, (double)b.y - a.y, (double)b.z - a.z};
    double e2[3] = {(double)c.x - a.x, (double)c.y - a.y, (double)c.z - a.z};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double n_length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double d_length = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double edge_squared =
        fmax(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2], e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
    double facing = fabs(n[0] * d[0] + n[1] * d[1] + n[2] * d[2]);
    if (!(scale <= 1e6 && d_length >= 1e-3 && d_length <= 1e6 && edge_squared >= 1e-6 &&
          n_length >= 0.05 * edge_squared && facing >= 0.3 * n_length * d_length))
        return;
    double t = hit.t, u = hit.u, v = hit.v;
    double ray_point[3] = {ray.origin.x + t * d[0], ray.origin.y + t * d[1], ray.origin.z + t * d[2]};
    double tri_point[3] = {a.x + u * e1[0] + v * e2[0], a.y + u * e1[1] + v * e2[1], a.z + u * e1[2] + v * e2[2]};
    double error = 0.0;
    for (int k = 0; k < 3; k++)
        error = fmax(error, fabs(ray_point[k] - tri_point[k]));
    double tolerance = 1e-4 * fmax(scale, fabs(t) * d_length) + 1e-30;
    FUZZ_CHECK(error <= tolerance, "ray point at t %g and triangle point at (u %g, v %g) are %g apart (scale %g)", t, u,
               v, error, scale);
}

static void check_ray_sphere_plane(fuzz_reader *r)
{
    bool usable;
    sr_ray ray = read_ray(r, &usable);
    sr_sphere sphere = {read_vec3(r), fuzz_read_float(r)};
    float t = NAN;
    bool hit = sr_ray_sphere(&ray, &sphere, &t);
    if (hit) {
        FUZZ_CHECK(usable, "a poisoned ray hit a sphere");
        FUZZ_CHECK(sphere.radius >= 0.0f, "a sphere of radius %g was hit", (double)sphere.radius);
        check_t(&ray, t, "sr_ray_sphere");
    }
    double offset[3] = {(double)ray.origin.x - sphere.centre.x, (double)ray.origin.y - sphere.centre.y,
                        (double)ray.origin.z - sphere.centre.z};
    double distance = sqrt(offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2]);
    double d_length = sqrt((double)ray.direction.x * ray.direction.x + (double)ray.direction.y * ray.direction.y +
                           (double)ray.direction.z * ray.direction.z);
    double radius = sphere.radius;
    bool moderate = usable && distance <= 1e6 && radius <= 1e6 && radius >= 1e-2 * distance && radius >= 1e-3 &&
                    d_length >= 1e-3 && d_length <= 1e6;
    /* An origin well inside with the whole forward half-line in range exits the sphere. */
    if (moderate && distance < 0.99 * radius && ray.tmin <= 0.0f && ray.tmax == INFINITY)
        FUZZ_CHECK(hit, "a ray starting inside the sphere missed it");
    if (hit && moderate && isfinite(t)) {
        double p[3] = {offset[0] + t * ray.direction.x, offset[1] + t * ray.direction.y,
                       offset[2] + t * ray.direction.z};
        double from_centre = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        FUZZ_CHECK(fabs(from_centre - radius) <= 1e-3 * fmax(radius, distance),
                   "sphere hit at t %g is %g from the centre, radius %g", (double)t, from_centre, radius);
    }

    sr_plane plane = {read_vec3(r), fuzz_read_float(r)};
    if (fuzz_read_u8(r) % 2)
        plane = sr_plane_normalize(plane);
    t = NAN;
    hit = sr_ray_plane(&ray, &plane, &t);
    if (hit) {
        FUZZ_CHECK(usable, "a poisoned ray hit a plane");
        check_t(&ray, t, "sr_ray_plane");
        FUZZ_CHECK(isfinite(t), "infinite plane distance");
        FUZZ_CHECK(sr_vec3_dot(plane.normal, ray.direction) != 0.0f, "a ray parallel to the plane hit it");
    }
}

static sr_mat4 read_matrix(fuzz_reader *r)
{
    uint8_t mode = fuzz_read_u8(r) % 3;
    if (mode == 0) {
        /* rotation, per-axis scale and translation: what sr_obb_from_aabb expects */
        sr_vec3 axis = read_vec3(r), scale = read_vec3(r), move = read_vec3(r);
        float angle = fuzz_read_float(r);
        return sr_mat4_mul(sr_mat4_translation(move),
                           sr_mat4_mul(sr_mat4_rotation(axis, angle), sr_mat4_scaling(scale)));
    }
    if (mode == 1) {
        sr_vec3 eye = read_vec3(r), target = read_vec3(r);
        float fov = fuzz_read_float(r), aspect = fuzz_read_float(r), near_z = fuzz_read_float(r),
              far_z = fuzz_read_float(r);
        return sr_mat4_mul(sr_mat4_perspective(fov, aspect, near_z, far_z),
                           sr_mat4_look_at(eye, target, (sr_vec3){0.0f, 1.0f, 0.0f}));
    }
    sr_mat4 m;
    for (int i = 0; i < 16; i++)
        m.m[i] = fuzz_read_float(r);
    return m;
}

static void check_ray_obb(fuzz_reader *r)
{
    bool usable;
    sr_ray ray = read_ray(r, &usable);
    sr_aabb box = read_box(r);
    sr_mat4 matrix = read_matrix(r);
    sr_obb obb = sr_obb_from_aabb(box, matrix);
    float t_near = NAN, t_far = NAN;
    bool hit = sr_ray_obb(&ray, &obb, &t_near, &t_far);
    if (hit) {
        FUZZ_CHECK(usable, "a poisoned ray hit an oriented box");
        check_t(&ray, t_near, "sr_ray_obb (near)");
        check_t(&ray, t_far, "sr_ray_obb (far)");
        FUZZ_CHECK(t_near <= t_far, "sr_ray_obb near %g > far %g", (double)t_near, (double)t_far);
    }
    bool finite_box = sr_vec3_is_finite(obb.centre) && sr_vec3_is_finite(obb.half_extents) &&
                      sr_vec3_is_finite(obb.axes[0]) && sr_vec3_is_finite(obb.axes[1]) &&
                      sr_vec3_is_finite(obb.axes[2]);
    /* Also when the rotated direction leaves the float range (regressions/geom_ray_obb_huge_direction). */
    if (usable && finite_box && ray.tmin <= 0.0f && 0.0f <= ray.tmax && sr_obb_contains_point(&obb, ray.origin))
        FUZZ_CHECK(hit,
                   "a ray from (%a %a %a) along (%a %a %a), t in [%g, %g], starting inside the oriented box at "
                   "(%a %a %a), axes (%a %a %a) (%a %a %a) (%a %a %a), half extents (%a %a %a), missed it",
                   (double)ray.origin.x, (double)ray.origin.y, (double)ray.origin.z, (double)ray.direction.x,
                   (double)ray.direction.y, (double)ray.direction.z, (double)ray.tmin, (double)ray.tmax,
                   (double)obb.centre.x, (double)obb.centre.y, (double)obb.centre.z, (double)obb.axes[0].x,
                   (double)obb.axes[0].y, (double)obb.axes[0].z, (double)obb.axes[1].x, (double)obb.axes[1].y,
                   (double)obb.axes[1].z, (double)obb.axes[2].x, (double)obb.axes[2].y, (double)obb.axes[2].z,
                   (double)obb.half_extents.x, (double)obb.half_extents.y, (double)obb.half_extents.z);
    sr_aabb bounds = sr_obb_bounds(&obb);
    if (finite_box && obb.half_extents.x >= 0.0f && obb.half_extents.y >= 0.0f && obb.half_extents.z >= 0.0f &&
        sr_vec3_is_finite(bounds.min) && sr_vec3_is_finite(bounds.max))
        FUZZ_CHECK(sr_aabb_contains_point(bounds, obb.centre), "sr_obb_bounds does not hold the centre");
}

static void check_boxes(fuzz_reader *r)
{
    sr_aabb a = read_box(r), b = read_box(r);
    sr_vec3 p = read_vec3(r);
    float margin = fuzz_read_float(r);
    sr_aabb merged = sr_aabb_merge(a, b);
    if (!sr_aabb_is_empty(a))
        FUZZ_CHECK(sr_aabb_contains(merged, a), "merge does not contain its first box");
    if (!sr_aabb_is_empty(b))
        FUZZ_CHECK(sr_aabb_contains(merged, b), "merge does not contain its second box");
    /* Every empty box is ignored, inverted ones too (regressions/geom_merge_inverted_empty_box). */
    if (sr_aabb_is_empty(a) && !sr_aabb_is_empty(b))
        FUZZ_CHECK(sr_aabb_contains(b, merged),
                   "merge with the empty box (%g %g %g)..(%g %g %g) grew the other box (geom.h: empty boxes "
                   "ignored)",
                   (double)a.min.x, (double)a.min.y, (double)a.min.z, (double)a.max.x, (double)a.max.y,
                   (double)a.max.z);
    sr_aabb grown = sr_aabb_grow(a, p);
    /* Signalling NaNs are ignored too (regressions/geom_grow_ignores_signalling_nan). */
    if (sr_vec3_is_finite(p))
        FUZZ_CHECK(sr_aabb_contains_point(grown, p), "grow does not contain its point");
    if (!sr_aabb_is_empty(a))
        FUZZ_CHECK(sr_aabb_contains(grown, a),
                   "grow by (%g %g %g) lost part of the box (%g %g %g)..(%g %g %g): (%g %g %g)..(%g %g %g)",
                   (double)p.x, (double)p.y, (double)p.z, (double)a.min.x, (double)a.min.y, (double)a.min.z,
                   (double)a.max.x, (double)a.max.y, (double)a.max.z, (double)grown.min.x, (double)grown.min.y,
                   (double)grown.min.z, (double)grown.max.x, (double)grown.max.y, (double)grown.max.z);
    if (margin >= 0.0f && isfinite(margin) && !sr_aabb_is_empty(a) && sr_vec3_is_finite(a.min) &&
        sr_vec3_is_finite(a.max))
        FUZZ_CHECK(sr_aabb_contains(sr_aabb_expand(a, margin), a), "expand by %g shrank the box", (double)margin);
    float area = sr_aabb_surface_area(a);
    FUZZ_CHECK(!(area < 0.0f), "surface area %g", (double)area);
    if (sr_aabb_is_empty(a))
        FUZZ_CHECK(area == 0.0f, "empty box with surface area %g", (double)area);
    FUZZ_CHECK(sr_aabb_overlaps(a, b) == sr_aabb_overlaps(b, a), "overlap is not symmetric");
    if (!sr_aabb_is_empty(a))
        FUZZ_CHECK(sr_aabb_contains(a, a) && sr_aabb_overlaps(a, a), "a box does not contain or overlap itself");
    FUZZ_CHECK(sr_aabb_contains(a, sr_aabb_empty()), "the empty box is not contained");
    sr_sphere sphere = {p, margin};
    bool overlap = sr_aabb_sphere_overlap(a, sphere);
    if (!(margin >= 0.0f) || sr_aabb_is_empty(a))
        FUZZ_CHECK(!overlap, "sphere of radius %g overlaps box (empty: %d)", (double)margin, sr_aabb_is_empty(a));
    else if (sr_vec3_is_finite(p) && sr_aabb_contains_point(a, p))
        FUZZ_CHECK(overlap, "a sphere at (%g %g %g) radius %g in the box (%g %g %g)..(%g %g %g) does not overlap it",
                   (double)p.x, (double)p.y, (double)p.z, (double)margin, (double)a.min.x, (double)a.min.y,
                   (double)a.min.z, (double)a.max.x, (double)a.max.y, (double)a.max.z);

    /* Arvo's transform: every transformed corner (in double) inside the result, up to rounding */
    sr_mat4 m = read_matrix(r);
    sr_aabb t = sr_aabb_transform(a, m);
    if (sr_aabb_is_empty(a)) {
        FUZZ_CHECK(sr_aabb_is_empty(t), "the transform of an empty box is not empty");
        return;
    }
    double scale = fmax(max_abs3(a.min), max_abs3(a.max)), matrix_scale = 0.0;
    bool finite_matrix = true;
    for (int i = 0; i < 16; i++) {
        matrix_scale = fmax(matrix_scale, fabs((double)m.m[i]));
        finite_matrix = finite_matrix && isfinite(m.m[i]);
    }
    if (!(finite_matrix && scale <= 1e6 && matrix_scale <= 1e3))
        return;
    double tolerance = 1e-5 * (scale * matrix_scale * 3 + matrix_scale) + 1e-30;
    for (int corner = 0; corner < 8; corner++) {
        double x = corner & 1 ? a.max.x : a.min.x, y = corner & 2 ? a.max.y : a.min.y,
               z = corner & 4 ? a.max.z : a.min.z;
        double out[3];
        for (int row = 0; row < 3; row++)
            out[row] = m.m[row] * x + m.m[4 + row] * y + m.m[8 + row] * z + m.m[12 + row];
        FUZZ_CHECK(out[0] >= t.min.x - tolerance && out[0] <= t.max.x + tolerance && out[1] >= t.min.y - tolerance &&
                       out[1] <= t.max.y + tolerance && out[2] >= t.min.z - tolerance && out[2] <= t.max.z + tolerance,
                   "transformed corner %d (%g %g %g) outside the transformed box", corner, out[0], out[1], out[2]);
    }
}

static void check_frustum(fuzz_reader *r)
{
    sr_mat4 m = read_matrix(r);
    sr_frustum frustum = sr_frustum_from_matrix(m);
    sr_aabb box = read_box(r);
    sr_containment result = sr_frustum_test_aabb(&frustum, &box);
    FUZZ_CHECK(result == SR_OUTSIDE || result == SR_INTERSECTING || result == SR_INSIDE, "containment %d", (int)result);
    if (sr_aabb_is_empty(box))
        FUZZ_CHECK(result == SR_OUTSIDE, "an empty box is not outside");
    /* The p-/n-vertex test answers exactly as testing the 8 corners one by one, where no NaN can
     * appear: finite planes with normal components of magnitude <= 1.5 and finite boxes below
     * 1e38 (products stay finite, so sums never meet inf - inf). */
    bool exact = !sr_aabb_is_empty(box) && max_abs3(box.min) <= 1e38 && max_abs3(box.max) <= 1e38;
    for (int i = 0; i < 6 && exact; i++)
        exact = isfinite(frustum.planes[i].d) && max_abs3(frustum.planes[i].normal) <= 1.5;
    if (exact) {
        sr_containment expected = SR_INSIDE;
        for (int i = 0; i < 6 && expected != SR_OUTSIDE; i++) {
            int inside_corners = 0;
            for (int corner = 0; corner < 8; corner++) {
                sr_vec3 p = {corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                             corner & 4 ? box.max.z : box.min.z};
                inside_corners += sr_plane_distance(frustum.planes[i], p) >= 0.0f;
            }
            if (inside_corners == 0)
                expected = SR_OUTSIDE;
            else if (inside_corners < 8)
                expected = SR_INTERSECTING;
        }
        FUZZ_CHECK(result == expected, "sr_frustum_test_aabb gave %d, the corners say %d", (int)result, (int)expected);
    }

    sr_sphere sphere = {read_vec3(r), fuzz_read_float(r)};
    sr_containment sphere_result = sr_frustum_test_sphere(&frustum, &sphere);
    FUZZ_CHECK(sphere_result == SR_OUTSIDE || sphere_result == SR_INTERSECTING || sphere_result == SR_INSIDE,
               "containment %d", (int)sphere_result);
    if (!(sphere.radius >= 0.0f))
        FUZZ_CHECK(sphere_result == SR_OUTSIDE, "a sphere of radius %g is not outside", (double)sphere.radius);
    else {
        sr_containment expected = SR_INSIDE;
        for (int i = 0; i < 6 && expected != SR_OUTSIDE; i++) {
            float distance = sr_plane_distance(frustum.planes[i], sphere.centre);
            if (!(distance >= -sphere.radius))
                expected = SR_OUTSIDE;
            else if (!(distance >= sphere.radius))
                expected = SR_INTERSECTING;
        }
        FUZZ_CHECK(sphere_result == expected, "sr_frustum_test_sphere gave %d, geom.h's rule says %d",
                   (int)sphere_result, (int)expected);
    }

    sr_plane plane = {read_vec3(r), fuzz_read_float(r)};
    sr_plane normalized = sr_plane_normalize(plane);
    double length = sqrt((double)plane.normal.x * plane.normal.x + (double)plane.normal.y * plane.normal.y +
                         (double)plane.normal.z * plane.normal.z);
    if (length >= 1e-15 && length <= 1e15) {
        double unit =
            sqrt((double)normalized.normal.x * normalized.normal.x + (double)normalized.normal.y * normalized.normal.y +
                 (double)normalized.normal.z * normalized.normal.z);
        FUZZ_CHECK(fabs(unit - 1.0) <= 1e-5, "normalised plane normal has length %g (from %g)", unit, length);
    }
}

int fuzz_geom_test_one_input(const uint8_t *data, size_t size)
{
    fuzz_reader r = fuzz_reader_make(data, size);
    for (int op = 0; op < 64 && !fuzz_reader_done(&r); op++) {
        switch (fuzz_read_u8(&r) % 6) {
        case 0:
            check_ray_box(&r);
            break;
        case 1:
            check_ray_triangle(&r);
            break;
        case 2:
            check_ray_sphere_plane(&r);
            break;
        case 3:
            check_ray_obb(&r);
            break;
        case 4:
            check_boxes(&r);
            break;
        default:
            check_frustum(&r);
            break;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Seeds                                                                                       */

/* fuzz_read_float's small form: tag 1, value * 32 as int8 (values in [-4, 4), steps 1/32) */
static void put_small(fuzz_seed_writer *w, float value)
{
    fuzz_seed_put(w, 1);
    fuzz_seed_put(w, (uint8_t)(int8_t)lrintf(value * 32.0f));
}

/* fuzz_read_float's table form: tag 2, entry */
static void put_special(fuzz_seed_writer *w, uint8_t entry)
{
    fuzz_seed_put(w, 2);
    fuzz_seed_put(w, entry);
}

static void put_vec3(fuzz_seed_writer *w, float x, float y, float z)
{
    put_small(w, x);
    put_small(w, y);
    put_small(w, z);
}

static void add_seeds(fuzz_corpus *corpus)
{
    fuzz_seed_writer w = {.size = 0};
    /* ray from (0, 0, -2) along +z against the unit box, a triangle and a sphere */
    fuzz_seed_put(&w, 0);
    put_vec3(&w, 0.0f, 0.0f, -2.0f);
    put_vec3(&w, 0.0f, 0.0f, 1.0f);
    fuzz_seed_put(&w, 0); /* tmin 0, tmax inf */
    put_vec3(&w, -1.0f, -1.0f, -1.0f);
    fuzz_seed_put(&w, 1); /* sorted corners */
    put_vec3(&w, 1.0f, 1.0f, 1.0f);
    fuzz_seed_put(&w, 1);
    put_vec3(&w, 0.0f, 0.0f, -2.0f);
    put_vec3(&w, 0.0f, 0.0f, 1.0f);
    fuzz_seed_put(&w, 0);
    put_vec3(&w, -1.0f, -1.0f, 0.0f);
    put_vec3(&w, 1.0f, -1.0f, 0.0f);
    put_vec3(&w, 0.0f, 1.0f, 0.0f);
    fuzz_seed_put(&w, 1);
    fuzz_seed_put(&w, 2);
    put_vec3(&w, 0.0f, 0.0f, -2.0f);
    put_vec3(&w, 0.0f, 0.0f, 1.0f);
    fuzz_seed_put(&w, 0);
    put_vec3(&w, 0.0f, 0.0f, 0.0f);
    put_small(&w, 1.0f);
    put_vec3(&w, 0.0f, 0.0f, 1.0f);
    put_small(&w, -0.5f);
    fuzz_seed_put(&w, 1);
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* a ray lying in a face plane of a box (0 * inf in the slab test), a ray through a shared
     * triangle edge, NaN and infinite components */
    w.size = 0;
    fuzz_seed_put(&w, 0);
    put_vec3(&w, 1.0f, 0.0f, -3.0f);
    put_vec3(&w, 0.0f, 0.0f, 1.0f);
    fuzz_seed_put(&w, 1); /* tmin -inf */
    put_vec3(&w, -1.0f, -1.0f, -1.0f);
    fuzz_seed_put(&w, 1);
    put_vec3(&w, 1.0f, 1.0f, 1.0f);
    fuzz_seed_put(&w, 1);
    put_vec3(&w, 0.0f, 0.0f, -2.0f);
    put_vec3(&w, 0.0f, 0.0f, 1.0f);
    fuzz_seed_put(&w, 0);
    put_vec3(&w, 0.0f, 0.0f, 0.0f);
    put_vec3(&w, 1.0f, 0.0f, 0.0f);
    put_vec3(&w, 0.0f, 1.0f, 0.0f);
    fuzz_seed_put(&w, 1);
    fuzz_seed_put(&w, 0);
    put_special(&w, 6); /* NaN */
    put_vec3(&w, 0.0f, 0.0f, 0.0f);
    put_vec3(&w, 0.0f, 0.0f, 1.0f);
    fuzz_seed_put(&w, 0);
    put_vec3(&w, 0.0f, 0.0f, 0.0f);
    fuzz_seed_put(&w, 1);
    put_special(&w, 8); /* +inf */
    put_vec3(&w, 1.0f, 1.0f, 1.0f);
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* a camera frustum against a box and a sphere; box helpers with a rotation */
    w.size = 0;
    fuzz_seed_put(&w, 5);
    fuzz_seed_put(&w, 1); /* camera matrix */
    put_vec3(&w, 0.0f, 0.0f, 3.0f);
    put_vec3(&w, 0.0f, 0.0f, 0.0f);
    put_small(&w, 0.75f);
    put_small(&w, 1.0f);
    put_small(&w, 0.125f);
    put_small(&w, 3.5f);
    put_vec3(&w, -0.5f, -0.5f, -0.5f);
    fuzz_seed_put(&w, 1);
    put_vec3(&w, 0.5f, 0.5f, 0.5f);
    put_vec3(&w, 0.0f, 0.0f, 0.0f);
    put_small(&w, 0.25f);
    put_vec3(&w, 0.0f, 1.0f, 0.0f);
    put_small(&w, 0.0f);
    fuzz_seed_put(&w, 4);
    put_vec3(&w, -1.0f, -2.0f, -3.0f);
    fuzz_seed_put(&w, 1);
    put_vec3(&w, 1.0f, 2.0f, 3.0f);
    put_vec3(&w, 3.0f, 0.0f, 0.0f);
    fuzz_seed_put(&w, 1);
    put_vec3(&w, 0.5f, 0.5f, 0.5f);
    put_vec3(&w, 0.0f, 0.0f, 0.0f);
    put_small(&w, 0.5f);
    fuzz_seed_put(&w, 0); /* rotation matrix */
    put_vec3(&w, 0.0f, 1.0f, 0.0f);
    put_vec3(&w, 1.0f, 2.0f, 1.0f);
    put_vec3(&w, 0.5f, 0.0f, 0.0f);
    put_small(&w, 0.75f);
    fuzz_corpus_add(corpus, w.bytes, w.size);
}

const fuzz_target fuzz_target_geom = {
    .name = "geom",
    .test_one_input = fuzz_geom_test_one_input,
    .add_seeds = add_seeds,
    .tokens = NULL,
    .token_count = 0,
    .max_size = 1024,
};
