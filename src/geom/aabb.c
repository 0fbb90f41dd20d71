/* src/geom/aabb.c — rays, axis-aligned boxes, oriented boxes and planes: construction and the
 * small helpers around them. Part of geom: knows nothing of raster, bvh or scene. */
#include <softrast/geom.h>

#include <math.h>

/* ---- rays ---- */

static float component(sr_vec3 v, int axis)
{
    return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

sr_ray sr_ray_make(sr_vec3 origin, sr_vec3 direction, float tmin, float tmax)
{
    sr_ray ray;
    /* IEEE division on purpose: 1/+0 = +inf and 1/-0 = -inf are what the slab test needs. A
     * subnormal component whose reciprocal overflows becomes a signed zero: the slab test sees
     * it as zero through the infinite reciprocal, so the direction must say the same, or the
     * box and triangle tests would answer for two different rays. */
    ray.inv_direction = (sr_vec3){1.0f / direction.x, 1.0f / direction.y, 1.0f / direction.z};
    if (isinf(ray.inv_direction.x))
        direction.x = copysignf(0.0f, direction.x);
    if (isinf(ray.inv_direction.y))
        direction.y = copysignf(0.0f, direction.y);
    if (isinf(ray.inv_direction.z))
        direction.z = copysignf(0.0f, direction.z);
    ray.origin = origin;
    ray.direction = direction;
    ray.tmin = tmin;
    ray.tmax = tmax;
    /* Validate once here rather than in every box/triangle test: a poisoned range (NaN) makes
     * every query miss, because they all compare against tmin/tmax so that NaN fails. */
    if (!sr_vec3_is_finite(origin) || !sr_vec3_is_finite(direction) || isnan(tmin) || isnan(tmax)) {
        ray.tmin = NAN;
        ray.tmax = NAN;
    }
    /* Ray space of Woop, Benthin & Wald (2013): z along the largest |direction| component so the
     * shear divides by the largest value; x, y swapped for a negative z to keep the winding. */
    float ax = fabsf(direction.x), ay = fabsf(direction.y), az = fabsf(direction.z);
    int kz = ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
    int kx = (kz + 1) % 3, ky = (kz + 2) % 3;
    float dz = component(direction, kz);
    if (dz < 0.0f) {
        int swap = kx;
        kx = ky;
        ky = swap;
    }
    ray.axis_x = kx;
    ray.axis_y = ky;
    ray.axis_z = kz;
    ray.shear = (sr_vec3){component(direction, kx) / dz, component(direction, ky) / dz, 1.0f / dz};
    return ray;
}

/* ---- axis-aligned boxes ---- */

sr_aabb sr_aabb_empty(void)
{
    return (sr_aabb){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
}

bool sr_aabb_is_empty(sr_aabb box)
{
    /* Written as "not a valid interval" so that NaN bounds count as empty. */
    return !(box.min.x <= box.max.x && box.min.y <= box.max.y && box.min.z <= box.max.z);
}

sr_aabb sr_aabb_merge(sr_aabb a, sr_aabb b)
{
    /* Every empty box is the identity, not only the canonical (+inf, -inf) one: an inverted or
     * NaN box must not move the other box's bounds. */
    if (sr_aabb_is_empty(a))
        return sr_aabb_is_empty(b) ? sr_aabb_empty() : b;
    if (sr_aabb_is_empty(b))
        return a;
    return (sr_aabb){sr_vec3_min(a.min, b.min), sr_vec3_max(a.max, b.max)};
}

/* Not fminf/fmaxf: they return NaN for a signalling NaN operand (IEEE 754-2008 minNum). A NaN
 * value (quiet or signalling) keeps the bound; a NaN bound takes the value, as fminf would. */
static float lower(float bound, float value)
{
    return isnan(value) ? bound : (value < bound || isnan(bound) ? value : bound);
}

static float upper(float bound, float value)
{
    return isnan(value) ? bound : (value > bound || isnan(bound) ? value : bound);
}

sr_aabb sr_aabb_grow(sr_aabb box, sr_vec3 point)
{
    /* NaN coordinates (quiet or signalling) are ignored. */
    return (sr_aabb){{lower(box.min.x, point.x), lower(box.min.y, point.y), lower(box.min.z, point.z)},
                     {upper(box.max.x, point.x), upper(box.max.y, point.y), upper(box.max.z, point.z)}};
}

sr_aabb sr_aabb_expand(sr_aabb box, float margin)
{
    sr_vec3 m = sr_vec3_splat(margin);
    return (sr_aabb){sr_vec3_sub(box.min, m), sr_vec3_add(box.max, m)};
}

float sr_aabb_surface_area(sr_aabb box)
{
    if (sr_aabb_is_empty(box))
        return 0.0f;
    sr_vec3 e = sr_vec3_sub(box.max, box.min);
    return 2.0f * (e.x * e.y + e.y * e.z + e.z * e.x);
}

sr_vec3 sr_aabb_centre(sr_aabb box)
{
    /* Halving first: (min + max) / 2 overflows for bounds near FLT_MAX, this cannot. */
    return sr_vec3_add(sr_vec3_scale(box.min, 0.5f), sr_vec3_scale(box.max, 0.5f));
}

sr_vec3 sr_aabb_extent(sr_aabb box)
{
    return sr_vec3_sub(box.max, box.min);
}

bool sr_aabb_overlaps(sr_aabb a, sr_aabb b)
{
    return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y && a.min.z <= b.max.z &&
           b.min.z <= a.max.z;
}

bool sr_aabb_contains(sr_aabb outer, sr_aabb inner)
{
    if (sr_aabb_is_empty(inner))
        return true;
    return outer.min.x <= inner.min.x && inner.max.x <= outer.max.x && outer.min.y <= inner.min.y &&
           inner.max.y <= outer.max.y && outer.min.z <= inner.min.z && inner.max.z <= outer.max.z;
}

bool sr_aabb_contains_point(sr_aabb box, sr_vec3 point)
{
    return box.min.x <= point.x && point.x <= box.max.x && box.min.y <= point.y && point.y <= box.max.y &&
           box.min.z <= point.z && point.z <= box.max.z;
}

sr_aabb sr_aabb_transform(sr_aabb box, sr_mat4 matrix)
{
    if (sr_aabb_is_empty(box))
        return sr_aabb_empty(); /* 0 * inf would turn the empty box into NaN */
    /* Arvo, "Transforming Axis-Aligned Bounding Boxes" (Graphics Gems, 1990): each output
     * coordinate is a sum of m_rc * x_c over the columns; its extremes take, per term, the
     * smaller or larger of m_rc * min_c and m_rc * max_c. */
    const float lo[3] = {box.min.x, box.min.y, box.min.z};
    const float hi[3] = {box.max.x, box.max.y, box.max.z};
    float out_min[3], out_max[3];
    for (int row = 0; row < 3; row++) {
        out_min[row] = out_max[row] = matrix.m[12 + row];
        for (int column = 0; column < 3; column++) {
            float m = matrix.m[column * 4 + row];
            float a = m * lo[column], b = m * hi[column];
            out_min[row] += a < b ? a : b;
            out_max[row] += a < b ? b : a;
        }
    }
    return (sr_aabb){{out_min[0], out_min[1], out_min[2]}, {out_max[0], out_max[1], out_max[2]}};
}

bool sr_aabb_sphere_overlap(sr_aabb box, sr_sphere sphere)
{
    if (sr_aabb_is_empty(box) || !(sphere.radius >= 0.0f))
        return false;
    /* Arvo's distance from the centre to the closest point of the box. */
    sr_vec3 closest = sr_vec3_max(box.min, sr_vec3_min(sphere.centre, box.max));
    sr_vec3 offset = sr_vec3_sub(closest, sphere.centre);
    return sr_vec3_dot(offset, offset) <= sphere.radius * sphere.radius;
}

/* ---- oriented boxes ---- */

sr_obb sr_obb_from_aabb(sr_aabb box, sr_mat4 matrix)
{
    sr_obb obb;
    obb.centre = sr_mat4_transform_point(matrix, sr_aabb_centre(box));
    sr_vec3 half = sr_vec3_scale(sr_aabb_extent(box), 0.5f);
    const float half_in[3] = {half.x, half.y, half.z};
    float half_out[3];
    for (int axis = 0; axis < 3; axis++) {
        sr_vec3 column = {matrix.m[axis * 4 + 0], matrix.m[axis * 4 + 1], matrix.m[axis * 4 + 2]};
        float length = sr_vec3_length(column);
        if (length > 0.0f && isfinite(length)) {
            obb.axes[axis] = sr_vec3_scale(column, 1.0f / length);
        } else {
            obb.axes[axis] = (sr_vec3){axis == 0, axis == 1, axis == 2};
            length = 0.0f;
        }
        half_out[axis] = half_in[axis] * length;
    }
    obb.half_extents = (sr_vec3){half_out[0], half_out[1], half_out[2]};
    return obb;
}

sr_aabb sr_obb_bounds(const sr_obb *box)
{
    /* Half extent of the bounds along world axis i: sum over the box axes of |axis_j.i| * h_j. */
    sr_vec3 reach = {0.0f, 0.0f, 0.0f};
    const float half[3] = {box->half_extents.x, box->half_extents.y, box->half_extents.z};
    for (int axis = 0; axis < 3; axis++) {
        sr_vec3 a = box->axes[axis];
        reach = sr_vec3_add(reach, sr_vec3_scale((sr_vec3){fabsf(a.x), fabsf(a.y), fabsf(a.z)}, half[axis]));
    }
    return (sr_aabb){sr_vec3_sub(box->centre, reach), sr_vec3_add(box->centre, reach)};
}

bool sr_obb_contains_point(const sr_obb *box, sr_vec3 point)
{
    sr_vec3 offset = sr_vec3_sub(point, box->centre);
    const float half[3] = {box->half_extents.x, box->half_extents.y, box->half_extents.z};
    for (int axis = 0; axis < 3; axis++) {
        if (!(fabsf(sr_vec3_dot(offset, box->axes[axis])) <= half[axis]))
            return false;
    }
    return true;
}

/* ---- planes ---- */

sr_plane sr_plane_from_point_normal(sr_vec3 point, sr_vec3 normal)
{
    return (sr_plane){normal, -sr_vec3_dot(normal, point)};
}

sr_plane sr_plane_normalize(sr_plane plane)
{
    float length = sr_vec3_length(plane.normal);
    if (!(length > 0.0f && isfinite(length)))
        return plane;
    float inv = 1.0f / length;
    return (sr_plane){sr_vec3_scale(plane.normal, inv), plane.d * inv};
}

float sr_plane_distance(sr_plane plane, sr_vec3 point)
{
    return sr_vec3_dot(plane.normal, point) + plane.d;
}
