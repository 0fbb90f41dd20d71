/* src/geom/intersect.c — ray queries against spheres, planes and oriented boxes. The hot ones
 * (ray/box, ray/triangle) are `static inline` in softrast/geom.h so that the BVH can inline
 * them. Part of geom: knows nothing of raster, bvh or scene. */
#include <softrast/geom.h>

#include <float.h>

#include <math.h>

bool sr_ray_sphere(const sr_ray *ray, const sr_sphere *sphere, float *t)
{
    const float r = sphere->radius;
    if (!(r >= 0.0f))
        return false;
    const sr_vec3 d = ray->direction;
    const sr_vec3 f = sr_vec3_sub(ray->origin, sphere->centre);
    const float a = sr_vec3_dot(d, d);
    const float b = sr_vec3_dot(f, d); /* half the linear coefficient of a t^2 + 2 b t + c */
    const float c = sr_vec3_dot(f, f) - r * r;
    /* Haines et al., "Precision Improvements for Ray/Sphere Intersection" (Ray Tracing Gems,
     * ch. 7): b^2 - a c = a (r^2 - |f - (b / a) d|^2). The right side measures the squared
     * distance from the centre to the line directly, instead of subtracting two large nearly
     * equal numbers when the sphere is small and far away. A zero direction gives NaN: miss. */
    const sr_vec3 closest = sr_vec3_sub(f, sr_vec3_scale(d, b / a));
    const float discriminant = a * (r * r - sr_vec3_dot(closest, closest));
    if (!(discriminant >= 0.0f))
        return false;
    /* Numerical Recipes' stable root pair: q has no cancellation; the roots are q / a and c / q
     * (their product is c / a). q = 0 only for a tangent ray grazing at t = 0. */
    const float q = -(b + copysignf(sqrtf(discriminant), b));
    const float t_one = q / a;
    const float t_two = q != 0.0f ? c / q : t_one;
    const float t_first = fminf(t_one, t_two), t_second = fmaxf(t_one, t_two);
    /* The first root in range; an origin inside has t_first < tmin <= t_second: the exit. */
    float t_hit;
    if (t_first >= ray->tmin && t_first <= ray->tmax)
        t_hit = t_first;
    else if (t_second >= ray->tmin && t_second <= ray->tmax)
        t_hit = t_second;
    else
        return false;
    if (t)
        *t = t_hit;
    return true;
}

bool sr_ray_plane(const sr_ray *ray, const sr_plane *plane, float *t)
{
    const float denominator = sr_vec3_dot(plane->normal, ray->direction);
    if (denominator == 0.0f) /* parallel, or lying in the plane: no single hit point */
        return false;
    const float t_hit = -(sr_vec3_dot(plane->normal, ray->origin) + plane->d) / denominator;
    if (!(t_hit >= ray->tmin && t_hit <= ray->tmax && fabsf(t_hit) < INFINITY))
        return false;
    if (t)
        *t = t_hit;
    return true;
}

bool sr_ray_obb(const sr_ray *ray, const sr_obb *box, float *t_near, float *t_far)
{
    /* Rotate the ray into the box frame (axes orthonormal, so t keeps its meaning) and run the
     * slab test against [-h, h]. Only the fields sr_ray_aabb reads are filled: the ray space of
     * the triangle test is not needed here. The rotation is done in double: a finite direction
     * near FLT_MAX can leave the float range when rotated (|rotated| <= sqrt(3) |d|). */
    const sr_vec3 offset = sr_vec3_sub(ray->origin, box->centre);
    const sr_vec3 origin = {sr_vec3_dot(offset, box->axes[0]), sr_vec3_dot(offset, box->axes[1]),
                            sr_vec3_dot(offset, box->axes[2])};
    double direction[3];
    for (int i = 0; i < 3; i++)
        direction[i] = (double)ray->direction.x * box->axes[i].x + (double)ray->direction.y * box->axes[i].y +
                       (double)ray->direction.z * box->axes[i].z;
    /* Bring an overflowing direction back into float range by a power of two (exact), and the
     * ray's t range with it: o + t d = o + (t / s)(s d). At most one step for finite input. */
    double largest = fmax(fabs(direction[0]), fmax(fabs(direction[1]), fabs(direction[2])));
    double scale = 1.0;
    while (largest * scale > FLT_MAX)
        scale *= 0.25;
    sr_ray local = *ray;
    local.origin = origin;
    local.direction =
        (sr_vec3){(float)(direction[0] * scale), (float)(direction[1] * scale), (float)(direction[2] * scale)};
    /* A NaN in the box would be dropped by the slab test as if it were 0 * inf: refuse it. */
    if (!sr_vec3_is_finite(origin) || !sr_vec3_is_finite(local.direction) || !sr_vec3_is_finite(box->half_extents))
        return false;
    local.tmin = (float)(ray->tmin / scale);
    local.tmax = (float)(ray->tmax / scale);
    local.inv_direction = (sr_vec3){1.0f / local.direction.x, 1.0f / local.direction.y, 1.0f / local.direction.z};
    const sr_aabb local_box = {sr_vec3_negate(box->half_extents), box->half_extents};
    float enter, leave;
    if (!sr_ray_aabb(&local, &local_box, &enter, &leave))
        return false;
    if (t_near)
        *t_near = (float)(enter * scale);
    if (t_far)
        *t_far = (float)(leave * scale);
    return true;
}
