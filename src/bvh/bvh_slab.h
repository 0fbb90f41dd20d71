/* src/bvh/bvh_slab.h — private to src/bvh/: the per-ray set-up of the box tests of triangle
 * trees (the origins moved by the margin of bvh_query.c, "the margin") and the slab test of one
 * node's box with them, three axes in SSE lanes where the build has SSE2 (the origins stay in
 * registers: every traversal step waits for them), else in scalar code. Used by the binary
 * traversal (bvh_query.c) and the wide one's root test (bvh_query_wide.c). */
#ifndef SR_BVH_SLAB_H
#define SR_BVH_SLAB_H

#include "bvh_internal.h"

#if defined(__SSE2__) && !defined(SR_BVH_PORTABLE)
#include <emmintrin.h>
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

/* Lanes x, y, z of the origins the slab test subtracts from a box's near and far faces (lane 3
 * unused): the ray's origin moved by the margin above, or not moved for box trees. */
typedef struct slab_origins {
    __m128 near, far;
} slab_origins;

/* The largest of lanes x, y, z (lane 3 must not be larger), in every lane. */
static inline __m128 largest_lane(__m128 v)
{
    v = _mm_max_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_max_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
}

static inline __m128 select_ps(__m128 mask, __m128 if_set, __m128 if_clear)
{
#if defined(__SSE4_1__)
    return _mm_blendv_ps(if_clear, if_set, mask);
#else
    return _mm_or_ps(_mm_and_ps(mask, if_set), _mm_andnot_ps(mask, if_clear));
#endif
}

/* A node's box as two vectors, lane 3 (an integer, as a float a subnormal) cleared before use. */
static inline void node_bounds(const sr_bvh_node *node, __m128 *low, __m128 *high)
{
    const __m128 xyz = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
    *low = _mm_and_ps(xyz, _mm_loadu_ps(&node->min.x));
    *high = _mm_and_ps(xyz, _mm_loadu_ps(&node->max.x));
}

SR_BVH_ALWAYS_INLINE slab_origins slab_origins_make(const sr_bvh *bvh, const sr_ray *ray)
{
    const __m128 origin = _mm_setr_ps(ray->origin.x, ray->origin.y, ray->origin.z, 0.0f);
    if (!bvh->triangles)
        return (slab_origins){origin, origin};
    __m128 low, high;
    node_bounds(&bvh->nodes[0], &low, &high);
    const __m128 sign = _mm_set1_ps(-0.0f);
    const __m128 reach = largest_lane(
        _mm_max_ps(_mm_andnot_ps(sign, _mm_sub_ps(low, origin)), _mm_andnot_ps(sign, _mm_sub_ps(high, origin))));
    const float x = fabsf(ray->direction.x), y = fabsf(ray->direction.y), z = fabsf(ray->direction.z);
    const float xy = x > y ? x : y;
    const float speed = xy > z ? xy : z; /* D (no NaN: the ray is usable) */
    const float scaled = 0x1p-46f * (1.0f + speed);
    /* max(scaled, 1) as MAXSS (`scaled > 1 ? scaled : 1`), without a branch */
    const float at_least_one = _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(scaled), _mm_set_ss(1.0f)));
    const __m128 rest = _mm_add_ps(_mm_set1_ps(0x1p-100f * at_least_one),
                                   _mm_mul_ps(_mm_set1_ps(0x1p-22f), _mm_andnot_ps(sign, origin)));
    const __m128 margin = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(0x1p-18f), reach), rest);
    const __m128 ahead = _mm_add_ps(origin, margin), behind = _mm_sub_ps(origin, margin);
    /* sr_ray_aabb's choice of faces: the near face is the max one when 1/d < 0 (-0 included) */
    const __m128 negative = _mm_cmplt_ps(
        _mm_setr_ps(ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z, 0.0f), _mm_setzero_ps());
    return (slab_origins){select_ps(negative, behind, ahead), select_ps(negative, ahead, behind)};
}

/* Entry distance of the ray into a node's box (grown as `origins` say) within
 * [ray->tmin, ray->tmax], or INFINITY on a miss: sr_ray_aabb's operations and rules with two
 * origins, three axes at once (MAXSS/MINSS keep their second operand when the first is NaN, as
 * `x > acc ? x : acc` does). Used for the root, whose box is never empty. */
SR_BVH_ALWAYS_INLINE float box_entry(const sr_bvh_node *node, const sr_ray *ray, const slab_origins *origins)
{
    const __m128 inv = _mm_setr_ps(ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z, 0.0f);
    const __m128 negative = _mm_cmplt_ps(inv, _mm_setzero_ps());
    __m128 low, high;
    node_bounds(node, &low, &high);
    const __m128 near = _mm_mul_ps(_mm_sub_ps(select_ps(negative, high, low), origins->near), inv);
    const __m128 far = _mm_mul_ps(_mm_sub_ps(select_ps(negative, low, high), origins->far), inv);
    __m128 enter = _mm_max_ss(near, _mm_set_ss(ray->tmin));
    enter = _mm_max_ss(_mm_shuffle_ps(near, near, _MM_SHUFFLE(1, 1, 1, 1)), enter);
    enter = _mm_max_ss(_mm_shuffle_ps(near, near, _MM_SHUFFLE(2, 2, 2, 2)), enter);
    __m128 leave = _mm_min_ss(far, _mm_set_ss(INFINITY));
    leave = _mm_min_ss(_mm_shuffle_ps(far, far, _MM_SHUFFLE(1, 1, 1, 1)), leave);
    leave = _mm_min_ss(_mm_shuffle_ps(far, far, _MM_SHUFFLE(2, 2, 2, 2)), leave);
    const float t_enter = _mm_cvtss_f32(enter);
    float t_leave = sr_ray_aabb_widen_far(_mm_cvtss_f32(leave));
    t_leave = t_leave < ray->tmax ? t_leave : ray->tmax;
    return t_enter <= t_leave && t_enter < INFINITY && t_leave > -INFINITY ? t_enter : INFINITY;
}

/* sr_bvh_ray_is_fast, with 1/d in the lanes that slab_origins_make and box_is_entered_fast read
 * it into. */
static inline bool slab_ray_is_fast(const sr_ray *ray)
{
    const __m128 inv = _mm_setr_ps(ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z, 0.0f);
    const __m128 finite = _mm_cmplt_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), inv), _mm_set1_ps(INFINITY));
    return ray->tmin >= 0.0f && _mm_movemask_ps(finite) == 0xf;
}

/* The ray's octant: bit k set when 1/d_k < 0 (-0 included: 1 / -0 = -inf), from the lanes of
 * slab_origins_make's choice of faces. */
static inline unsigned slab_ray_octant(const sr_ray *ray)
{
    const __m128 inv = _mm_setr_ps(ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z, 0.0f);
    return (unsigned)_mm_movemask_ps(_mm_cmplt_ps(inv, _mm_setzero_ps())) & 7u;
}

/* Whether the ray enters a node's box (grown as `origins` say) within [ray->tmin, limit], for
 * rays that take the short path of the box tests (sr_bvh_ray_is_fast): the operations of the
 * wide tree's box test on one box (bvh_query_wide.c, wide_box_test), the exit widening folded
 * into 1/d, the reductions as trees (no slab distance is NaN), an entry at +inf a miss. */
SR_BVH_ALWAYS_INLINE bool box_is_entered_fast(const sr_bvh_node *node, const sr_ray *ray, const slab_origins *origins,
                                              float limit)
{
    const __m128 inv = _mm_setr_ps(ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z, 0.0f);
    const __m128 negative = _mm_cmplt_ps(inv, _mm_setzero_ps());
    __m128 low, high;
    node_bounds(node, &low, &high);
    const __m128 inv_far = _mm_mul_ps(inv, _mm_set1_ps(1.0f + 0x1p-21f));
    const __m128 near = _mm_mul_ps(_mm_sub_ps(select_ps(negative, high, low), origins->near), inv);
    const __m128 far = _mm_mul_ps(_mm_sub_ps(select_ps(negative, low, high), origins->far), inv_far);
    const __m128 near_y = _mm_shuffle_ps(near, near, _MM_SHUFFLE(1, 1, 1, 1));
    const __m128 near_z = _mm_shuffle_ps(near, near, _MM_SHUFFLE(2, 2, 2, 2));
    const __m128 far_y = _mm_shuffle_ps(far, far, _MM_SHUFFLE(1, 1, 1, 1));
    const __m128 far_z = _mm_shuffle_ps(far, far, _MM_SHUFFLE(2, 2, 2, 2));
    const float enter = _mm_cvtss_f32(_mm_max_ss(_mm_max_ss(near, near_y), _mm_max_ss(near_z, _mm_set_ss(ray->tmin))));
    const float leave = _mm_cvtss_f32(_mm_min_ss(_mm_min_ss(far, far_y), _mm_min_ss(far_z, _mm_set_ss(limit))));
    return enter <= leave && enter < INFINITY;
}
#else
/// The origins that the slab tests of a triangle tree subtract from a box's near faces (`near`)
/// and far faces (`far`), per axis: the ray's origin moved by the margin of bvh_query.c ("the
/// margin"), so that every box holds the point o + t d of each hit sr_ray_triangle reports for
/// a triangle inside it, rays lying in a triangle's plane included: no box holding a hit is
/// missed or entered after a farther hit. Box trees (the caller's own test): the origin itself.
/// The very floats of the SSE version above (the same operations in the same order).
SR_BVH_ALWAYS_INLINE void sr_bvh_slab_origins(const sr_bvh *bvh, const sr_ray *ray, float near[3], float far[3])
{
    const float origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    const float inv[3] = {ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z};
    if (!bvh->triangles) {
        for (int k = 0; k < 3; k++)
            near[k] = far[k] = origin[k];
        return;
    }
    const sr_bvh_node *root = &bvh->nodes[0];
    const float low[3] = {root->min.x, root->min.y, root->min.z};
    const float high[3] = {root->max.x, root->max.y, root->max.z};
    float reach = 0.0f; /* R */
    for (int k = 0; k < 3; k++) {
        const float below = fabsf(low[k] - origin[k]), above = fabsf(high[k] - origin[k]);
        const float farther = below > above ? below : above;
        reach = farther > reach ? farther : reach;
    }
    const float x = fabsf(ray->direction.x), y = fabsf(ray->direction.y), z = fabsf(ray->direction.z);
    const float xy = x > y ? x : y;
    const float speed = xy > z ? xy : z; /* D (no NaN: the ray is usable) */
    const float scaled = 0x1p-46f * (1.0f + speed);
    const float rest = 0x1p-100f * (scaled > 1.0f ? scaled : 1.0f);
    for (int k = 0; k < 3; k++) {
        const float margin = 0x1p-18f * reach + (rest + 0x1p-22f * fabsf(origin[k]));
        /* sr_ray_aabb's choice of faces: the near face is the max one when 1/d < 0 (-0 included) */
        const bool negative = inv[k] < 0.0f;
        const float ahead = origin[k] + margin, behind = origin[k] - margin;
        near[k] = negative ? behind : ahead;
        far[k] = negative ? ahead : behind;
    }
}

/// Entry distance of the ray into a node's box, grown as the origins of sr_bvh_slab_origins
/// say, within [ray->tmin, ray->tmax], or INFINITY on a miss: sr_ray_aabb's operations and
/// rules with two origins.
static inline float sr_bvh_grown_box_entry(const sr_bvh_node *node, const sr_ray *ray, const float near[3],
                                           const float far[3])
{
    const sr_vec3 inv = ray->inv_direction;
    const bool neg_x = inv.x < 0.0f, neg_y = inv.y < 0.0f, neg_z = inv.z < 0.0f;
    const float near_x = ((neg_x ? node->max.x : node->min.x) - near[0]) * inv.x;
    const float far_x = ((neg_x ? node->min.x : node->max.x) - far[0]) * inv.x;
    const float near_y = ((neg_y ? node->max.y : node->min.y) - near[1]) * inv.y;
    const float far_y = ((neg_y ? node->min.y : node->max.y) - far[1]) * inv.y;
    const float near_z = ((neg_z ? node->max.z : node->min.z) - near[2]) * inv.z;
    const float far_z = ((neg_z ? node->min.z : node->max.z) - far[2]) * inv.z;
    float enter = ray->tmin;
    enter = near_x > enter ? near_x : enter;
    enter = near_y > enter ? near_y : enter;
    enter = near_z > enter ? near_z : enter;
    float leave = INFINITY;
    leave = far_x < leave ? far_x : leave;
    leave = far_y < leave ? far_y : leave;
    leave = far_z < leave ? far_z : leave;
    leave = sr_ray_aabb_widen_far(leave);
    leave = leave < ray->tmax ? leave : ray->tmax;
    if (!(enter <= leave && enter < INFINITY && leave > -INFINITY) ||
        !(node->min.x <= node->max.x && node->min.y <= node->max.y && node->min.z <= node->max.z))
        return INFINITY;
    return enter;
}

/* Lanes x, y, z of the origins the slab test subtracts from a box's near and far faces: the
 * ray's origin moved by the margin above, or not moved for box trees. */
typedef struct slab_origins {
    float near[3], far[3];
} slab_origins;

SR_BVH_ALWAYS_INLINE slab_origins slab_origins_make(const sr_bvh *bvh, const sr_ray *ray)
{
    slab_origins out;
    sr_bvh_slab_origins(bvh, ray, out.near, out.far);
    return out;
}

/* Entry distance of the ray into a node's box (grown as `origins` say) within
 * [ray->tmin, ray->tmax], or INFINITY on a miss. */
static inline float box_entry(const sr_bvh_node *node, const sr_ray *ray, const slab_origins *origins)
{
    return sr_bvh_grown_box_entry(node, ray, origins->near, origins->far);
}

static inline bool slab_ray_is_fast(const sr_ray *ray)
{
    return sr_bvh_ray_is_fast(ray);
}

static inline unsigned slab_ray_octant(const sr_ray *ray)
{
    const sr_vec3 inv = ray->inv_direction;
    return (unsigned)((inv.x < 0.0f) | (inv.y < 0.0f) << 1 | (inv.z < 0.0f) << 2);
}

/* The SSE version's box_is_entered_fast, the same operations axis by axis. */
static inline bool box_is_entered_fast(const sr_bvh_node *node, const sr_ray *ray, const slab_origins *origins,
                                       float limit)
{
    const float inv[3] = {ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z};
    const float low[3] = {node->min.x, node->min.y, node->min.z}, high[3] = {node->max.x, node->max.y, node->max.z};
    float near[3], far[3];
    for (int k = 0; k < 3; k++) {
        const bool negative = inv[k] < 0.0f;
        const float inv_far = inv[k] * (1.0f + 0x1p-21f);
        near[k] = ((negative ? high[k] : low[k]) - origins->near[k]) * inv[k];
        far[k] = ((negative ? low[k] : high[k]) - origins->far[k]) * inv_far;
    }
    const float near_xy = near[0] > near[1] ? near[0] : near[1];
    const float near_zt = near[2] > ray->tmin ? near[2] : ray->tmin;
    const float far_xy = far[0] < far[1] ? far[0] : far[1];
    const float far_zt = far[2] < limit ? far[2] : limit;
    const float enter = near_xy > near_zt ? near_xy : near_zt;
    const float leave = far_xy < far_zt ? far_xy : far_zt;
    return enter <= leave && enter < INFINITY;
}
#endif

/* The origins as floats per axis (for splatting into wider lanes). */
static inline void slab_origins_floats(const slab_origins *origins, float near[3], float far[3])
{
#if defined(__SSE2__) && !defined(SR_BVH_PORTABLE)
    float n[4], f[4];
    _mm_storeu_ps(n, origins->near);
    _mm_storeu_ps(f, origins->far);
    for (int k = 0; k < 3; k++) {
        near[k] = n[k];
        far[k] = f[k];
    }
#else
    for (int k = 0; k < 3; k++) {
        near[k] = origins->near[k];
        far[k] = origins->far[k];
    }
#endif
}

#endif
