/* src/bvh/bvh_internal.h — private to src/bvh/: the exact leaf triangle test and the hit rules
 * that ray traversals share. Never installed.
 *
 * Knows nothing of raster or scene. */
#ifndef SR_BVH_INTERNAL_H
#define SR_BVH_INTERNAL_H

#include <softrast/bvh.h>

#include <math.h>
#include <stdint.h>

#if defined(__GNUC__)
#define SR_BVH_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define SR_BVH_ALWAYS_INLINE static inline
#endif

/// Asks the kernel for transparent huge pages over a large block (advice only; bvh_build.c).
void sr_bvh_advise_huge_pages(void *block, size_t size);

/* ---- the ray queries' shared rules ---- */

typedef enum sr_bvh_ray_mode {
    SR_BVH_RAY_CLOSEST,
    SR_BVH_RAY_ANY,
    SR_BVH_RAY_CUSTOM,
} sr_bvh_ray_mode;

/// Rays no primitive can meet: a NaN anywhere (sr_ray_make poisons non-finite rays with NaN
/// tmin/tmax), an infinite origin or direction, a zero direction, an empty [tmin, tmax].
static inline bool sr_bvh_ray_is_usable(const sr_ray *ray)
{
    if (!sr_vec3_is_finite(ray->origin) || !sr_vec3_is_finite(ray->direction))
        return false;
    if (ray->direction.x == 0.0f && ray->direction.y == 0.0f && ray->direction.z == 0.0f)
        return false;
    return ray->tmin <= ray->tmax; /* false for NaN as well */
}

/// Whether the box tests may take their short path for this ray: tmin >= 0 (the exit widening
/// can be folded into 1/d) and every 1/d finite (no NaN slab distance).
static inline bool sr_bvh_ray_is_fast(const sr_ray *ray)
{
    return ray->tmin >= 0.0f && fabsf(ray->inv_direction.x) < INFINITY && fabsf(ray->inv_direction.y) < INFINITY &&
           fabsf(ray->inv_direction.z) < INFINITY;
}

/// The distance up to which boxes are still entered when the closest hit so far is at t:
/// t + |t| 2^-18 (t itself for +-inf). A triangle hit at t is never pruned by a box that holds
/// its hit point, whatever the roundings of the box entry (3 roundings, below 2^-22 relative)
/// and of the triangle's t: without the margin a box entered at exactly t could round to one
/// float above it and lose a triangle hit at the same t, and which of two triangles sharing an
/// edge is reported would depend on the order of the traversal. With it, every traversal
/// (binary, wide, packet) reaches every triangle hit at or before the closest one and reports
/// the same one: the smallest t, on equal t the smallest primitive number. (Not for a ray lying
/// in a triangle's plane, whose t is rounding noise that may lie outside its box: bvh.h.)
static inline float sr_bvh_prune_limit(float t)
{
    return t + fabsf(t) * 0x1p-18f;
}

/// Whether a hit at (t, primitive) replaces the best so far (best_t, best_primitive): closer,
/// or as close with a smaller primitive number (SR_BVH_NO_HIT before the first hit). The
/// result is then independent of the order in which a traversal meets the triangles.
static inline bool sr_bvh_hit_is_better(float t, uint32_t primitive, float best_t, uint32_t best_primitive)
{
    return t < best_t || (t == best_t && primitive < best_primitive);
}

/* ---- the exact leaf triangle test ----
 * sr_ray_triangle, specialised for leaf loops and bit-identical to it (tests/test_bvh.c
 * compares t, u and v bit for bit). geom's version indexes a 3-float array by the ray's axes,
 * which compilers keep in memory: each vertex goes through a store and three reloads. Here the
 * origin is permuted once per ray and each coordinate is read straight from the vertices, so
 * the same IEEE operations (p - o, then relative - shear * z, in the same expression shape, so
 * that FMA contraction treats both alike) run on registers. The rest is geom's own code path,
 * with its edge function. */

typedef struct sr_bvh_leaf_ray {
    int axis_x, axis_y, axis_z;
    float origin_x, origin_y, origin_z; /* origin[axis_x], origin[axis_y], origin[axis_z] */
    float shear_x, shear_y, shear_z;
} sr_bvh_leaf_ray;

static inline void sr_bvh_leaf_ray_make(const sr_ray *ray, sr_bvh_leaf_ray *leaf)
{
    const float origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    leaf->axis_x = ray->axis_x;
    leaf->axis_y = ray->axis_y;
    leaf->axis_z = ray->axis_z;
    leaf->origin_x = origin[ray->axis_x];
    leaf->origin_y = origin[ray->axis_y];
    leaf->origin_z = origin[ray->axis_z];
    leaf->shear_x = ray->shear.x;
    leaf->shear_y = ray->shear.y;
    leaf->shear_z = ray->shear.z;
}

/// sr_ray_space_point of the vertex at `p` (x, y, z floats).
static inline sr_vec3 sr_bvh_leaf_ray_space_point(const sr_bvh_leaf_ray *ray, const float *p)
{
    const float z = p[ray->axis_z] - ray->origin_z;
    return (sr_vec3){(p[ray->axis_x] - ray->origin_x) - ray->shear_x * z,
                     (p[ray->axis_y] - ray->origin_y) - ray->shear_y * z, z};
}

/// The part of sr_ray_triangle after the vertices are in ray space (sr_ray_triangle_test).
static inline bool sr_bvh_leaf_triangle_in_ray_space(const sr_bvh_leaf_ray *ray, float tmin, float tmax, sr_vec3 pa,
                                                     sr_vec3 pb, sr_vec3 pc, sr_triangle_hit *hit)
{
    const double w_a = sr_ray_space_edge(pc, pb);
    const double w_b = sr_ray_space_edge(pa, pc);
    const double w_c = sr_ray_space_edge(pb, pa);
    const bool all_nonnegative = w_a >= 0.0 && w_b >= 0.0 && w_c >= 0.0;
    const bool all_nonpositive = w_a <= 0.0 && w_b <= 0.0 && w_c <= 0.0;
    if (!(all_nonnegative || all_nonpositive))
        return false;
    const double det = w_a + w_b + w_c;
    if (det == 0.0)
        return false;
    const double inv_det = 1.0 / det;
    const float t = (float)((w_a * pa.z + w_b * pb.z + w_c * pc.z) * inv_det * ray->shear_z);
    if (!(t >= tmin && t <= tmax && fabsf(t) < INFINITY))
        return false;
    hit->t = t;
    hit->u = (float)(w_b * inv_det);
    hit->v = (float)(w_c * inv_det);
    return true;
}

/// sr_ray_triangle(ray, v[0..2], v[3..5], v[6..8], hit) within [tmin, tmax].
static inline bool sr_bvh_leaf_triangle(const sr_bvh_leaf_ray *ray, float tmin, float tmax, const float *v,
                                        sr_triangle_hit *hit)
{
    return sr_bvh_leaf_triangle_in_ray_space(ray, tmin, tmax, sr_bvh_leaf_ray_space_point(ray, v),
                                             sr_bvh_leaf_ray_space_point(ray, v + 3),
                                             sr_bvh_leaf_ray_space_point(ray, v + 6), hit);
}

/// Fills primitive, point and, when `vertices` is not NULL (9 floats: a triangle's three
/// vertices), the geometric normal of a hit whose t (and u, v) are set. The cross product is
/// taken in double: float would underflow to zero for tiny (subnormal-sized) triangles that the
/// watertight test still hits. A zero-area triangle has no normal: 0.
void sr_bvh_hit_finish(const sr_ray *ray, uint32_t primitive, const float *vertices, sr_bvh_hit *hit);

/// sr_bvh_hit for a miss: SR_BVH_NO_HIT at +infinity, counters 0.
static inline void sr_bvh_hit_clear(sr_bvh_hit *hit)
{
    *hit = (sr_bvh_hit){.primitive = SR_BVH_NO_HIT, .t = INFINITY};
}

/* ---- traversals ---- */

/// The ray query of softrast/bvh.h (closest, any or custom) walking the binary node array
/// (bvh_query.c). Same contract as the public queries, which call it.
bool sr_bvh_query_ray_binary(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode,
                             sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *hit);

#endif
