/* softrast/geom.h — rays, boxes, spheres, planes, OBBs, frustums and their intersection tests.
 * The geometry every query of softrast (picking, culling, BVH traversal) stands on.
 * Knows nothing of raster, bvh or scene. All functions are pure and thread-safe. */
#ifndef SOFTRAST_GEOM_H
#define SOFTRAST_GEOM_H

#include <softrast/core.h>
#include <softrast/math.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A ray origin + t * direction for t in [tmin, tmax]. `inv_direction` is 1 / direction per
/// component, +/-infinity for (+/-)0 components: the slab test relies on IEEE infinities.
/// Build it with sr_ray_make so the three stay consistent.
typedef struct sr_ray {
    sr_vec3 origin;
    sr_vec3 direction; ///< need not be unit length: t is in units of |direction|
    sr_vec3 inv_direction;
    float tmin, tmax;
} sr_ray;

/// Axis-aligned box. Empty boxes have min > max (sr_aabb_empty: +inf / -inf).
typedef struct sr_aabb {
    sr_vec3 min, max;
} sr_aabb;

typedef struct sr_sphere {
    sr_vec3 centre;
    float radius;
} sr_sphere;

/// Plane dot(normal, p) + d = 0; the positive side (dot + d > 0) is "inside" for frustums.
typedef struct sr_plane {
    sr_vec3 normal;
    float d;
} sr_plane;

/// Oriented box: centre, three orthonormal axes and half extents along them.
typedef struct sr_obb {
    sr_vec3 centre;
    sr_vec3 axes[3];
    sr_vec3 half_extents;
} sr_obb;

/// Six planes with normals pointing inwards, normalised: left, right, bottom, top, near, far.
typedef struct sr_frustum {
    sr_plane planes[6];
} sr_frustum;

typedef enum sr_containment {
    SR_OUTSIDE = 0,
    SR_INTERSECTING,
    SR_INSIDE,
} sr_containment;

/// Result of a ray/triangle test: distance along the ray, barycentric weights u of the second
/// and v of the third vertex (the first has 1 - u - v).
typedef struct sr_triangle_hit {
    float t, u, v;
} sr_triangle_hit;

/* ---- rays ---- */
sr_ray sr_ray_make(sr_vec3 origin, sr_vec3 direction, float tmin, float tmax);
static inline sr_vec3 sr_ray_at(const sr_ray *ray, float t)
{
    return sr_vec3_add(ray->origin, sr_vec3_scale(ray->direction, t));
}

/* ---- boxes ---- */
sr_aabb sr_aabb_empty(void);
bool sr_aabb_is_empty(sr_aabb box);
sr_aabb sr_aabb_merge(sr_aabb a, sr_aabb b);
sr_aabb sr_aabb_grow(sr_aabb box, sr_vec3 point);
sr_aabb sr_aabb_expand(sr_aabb box, float margin); ///< every side moved out by margin
float sr_aabb_surface_area(sr_aabb box);          ///< 0 for empty boxes
sr_vec3 sr_aabb_centre(sr_aabb box);
sr_vec3 sr_aabb_extent(sr_aabb box);              ///< max - min
bool sr_aabb_overlaps(sr_aabb a, sr_aabb b);      ///< closed boxes: touching counts
bool sr_aabb_contains(sr_aabb outer, sr_aabb inner);
bool sr_aabb_contains_point(sr_aabb box, sr_vec3 point);
/// Box of the transformed box's 8 corners (Arvo's method), exact for affine matrices.
sr_aabb sr_aabb_transform(sr_aabb box, sr_mat4 matrix);
bool sr_aabb_sphere_overlap(sr_aabb box, sr_sphere sphere);

/* ---- planes ---- */
sr_plane sr_plane_from_point_normal(sr_vec3 point, sr_vec3 normal);
sr_plane sr_plane_normalize(sr_plane plane);
float sr_plane_distance(sr_plane plane, sr_vec3 point); ///< signed, in units of |normal|

/* ---- ray queries: true on a hit within [ray.tmin, ray.tmax] ---- */
/// Williams et al. slab test, branch-free on IEEE infinities; writes the entry and exit
/// distances clipped to [tmin, tmax]. Correct for origins inside the box and on its faces.
bool sr_ray_aabb(const sr_ray *ray, const sr_aabb *box, float *t_near, float *t_far);
/// Möller–Trumbore, two-sided. Watertight for picking: a ray through an edge or vertex shared
/// by triangles of a closed mesh hits at least one of them.
bool sr_ray_triangle(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_triangle_hit *hit);
/// Möller–Trumbore, front faces only (counter-clockwise a, b, c seen from the ray origin).
bool sr_ray_triangle_culled(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_triangle_hit *hit);
bool sr_ray_sphere(const sr_ray *ray, const sr_sphere *sphere, float *t);
bool sr_ray_plane(const sr_ray *ray, const sr_plane *plane, float *t);
bool sr_ray_obb(const sr_ray *ray, const sr_obb *box, float *t_near, float *t_far);

/* ---- frustums ---- */
/// Frustum of a world-to-clip matrix with zero-to-one depth (Gribb & Hartmann extraction).
sr_frustum sr_frustum_from_matrix(sr_mat4 view_projection);
/// Conservative box test: SR_OUTSIDE only if the box is wholly outside one plane.
sr_containment sr_frustum_test_aabb(const sr_frustum *frustum, const sr_aabb *box);
sr_containment sr_frustum_test_sphere(const sr_frustum *frustum, const sr_sphere *sphere);

#ifdef __cplusplus
}
#endif
#endif
