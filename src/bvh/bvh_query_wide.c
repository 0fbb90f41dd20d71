/* src/bvh/bvh_query_wide.c — the ray queries of softrast/bvh.h over the wide tree
 * (bvh_internal.h): closest hit, any hit and closest hit with a caller's primitive test.
 *
 * Traversal (Embree's BVH8 single-ray traversal, Wald et al. 2008): at a wide node the slab
 * test runs on all 8 child boxes at once; of the children hit, the nearest is visited next and
 * the others are pushed farthest first, each with its entry distance; a popped entry beyond the
 * prune limit of the closest hit so far is dropped. The order is that of the entry distances
 * with their 3 lowest bits cleared, then of the child's slot (order_key), the same in every
 * build. Leaves are packs of 4 triangles, filtered 4 at a time (pack_candidates) and tested
 * exactly one by one where the filter cannot decide.
 *
 * Exactness. The answers are sr_ray_triangle's, bit for bit: the box test is geom's slab test
 * with its roundings (as the binary traversal's pair test), so no box holding a hit is
 * missed; the filter only rejects triangles that sr_ray_triangle rejects as well (proof at
 * pack_candidates); every other triangle goes through sr_bvh_leaf_triangle, sr_ray_triangle's
 * own code on the same floats. Which of several triangles hit at the same t is reported is
 * fixed by sr_bvh_hit_is_better, and sr_bvh_prune_limit keeps every such triangle reachable, so
 * the traversal order does not change the answer.
 *
 * Knows nothing of raster or scene. */
#include "bvh_internal.h"
#include "bvh_simd.h"

#include <string.h>

/* ---- the box test of a wide node ---- */

/* Per-ray constants of the 8-box slab test. */
typedef struct wide_ray {
    f8 origin[3];
    f8 inv_near[3]; /* 1/d per axis */
    f8 inv_far[3];  /* 1/d per axis, times 1 + 2^-21 when `widened` */
    f8 tmin;
    /* byte offsets in sr_wide_node of the bounds rows of the faces entered first and last */
    size_t near_offset[3], far_offset[3];
    bool widened;
} wide_ray;

/* The constants of the binary traversal's pair test (bvh_query.c, pair_ray_make), per lane:
 * the near and far faces picked by the sign of 1/d (1 / -0 = -inf counts as negative), the exit
 * widening of sr_ray_aabb folded into 1/d when tmin >= 0 (sound there, see pair_ray_make). */
static inline void wide_ray_make(const sr_ray *ray, wide_ray *w)
{
    const float origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    const float inv[3] = {ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z};
    w->widened = ray->tmin >= 0.0f;
    const float far_scale = w->widened ? 1.0f + 0x1p-21f : 1.0f;
    for (int axis = 0; axis < 3; axis++) {
        const int negative = inv[axis] < 0.0f;
        w->origin[axis] = f8_splat(origin[axis]);
        w->inv_near[axis] = f8_splat(inv[axis]);
        w->inv_far[axis] = f8_splat(inv[axis] * far_scale);
        w->near_offset[axis] = (size_t)(2 * axis + negative) * sizeof(float[SR_WIDE_WIDTH]);
        w->far_offset[axis] = (size_t)(2 * axis + 1 - negative) * sizeof(float[SR_WIDE_WIDTH]);
    }
    w->tmin = f8_splat(ray->tmin);
}

/* Slab test of the 8 children of `node` within [tmin, limit]: bit i of the result is set when
 * child i is hit, enter[i] is its entry distance. Per lane the very operations of the pair
 * test (bvh_query.c, pair_entry): the same roundings, the same treatment of NaN slab distances
 * (a zero direction component with the origin on a face's plane: dropped by the operand order
 * of max/min), the same widening. `fast` is sr_bvh_ray_is_fast(ray): no NaN can occur and the
 * widening is folded into inv_far, so the reductions may run as trees. */
SR_BVH_ALWAYS_INLINE unsigned wide_box_test(const sr_wide_node *node, const wide_ray *ray, f8 limit, bool fast,
                                            f8 *enter_out)
{
    const char *bounds = (const char *)node->bounds;
    f8 near[3], far[3];
    for (int axis = 0; axis < 3; axis++) {
        const float *near_row = (const float *)(const void *)(bounds + ray->near_offset[axis]);
        const float *far_row = (const float *)(const void *)(bounds + ray->far_offset[axis]);
        near[axis] = f8_mul(f8_sub(f8_load(near_row), ray->origin[axis]), ray->inv_near[axis]);
        far[axis] = f8_mul(f8_sub(f8_load(far_row), ray->origin[axis]), ray->inv_far[axis]);
    }
    f8 enter, leave;
    if (fast) {
        enter = f8_max(f8_max(near[0], near[1]), f8_max(near[2], ray->tmin));
        leave = f8_min(f8_min(far[0], far[1]), f8_min(far[2], limit));
    } else {
        enter = ray->tmin;
        leave = f8_splat(INFINITY);
        for (int axis = 0; axis < 3; axis++) {
            enter = f8_max(near[axis], enter); /* a NaN distance keeps enter */
            leave = f8_min(far[axis], leave);  /* a NaN distance keeps leave */
        }
        if (!ray->widened) /* sr_ray_aabb_widen_far, as t + |t| 2^-21 (pair_entry) */
            leave = f8_add(leave, f8_mul(f8_abs(leave), f8_splat(0x1p-21f)));
        leave = f8_min(limit, leave); /* a NaN leave stays NaN: a miss */
    }
    *enter_out = enter;
    return f8_le(enter, leave);
}

/* ---- the order of the children ---- */

/* Deepest stack: at most 7 entries per wide level, at most SR_BVH_MAX_DEPTH levels (each wide
 * level takes at least one binary level); 8 more for the 8-lane stores of push_children. */
#define STACK_SIZE (7 * SR_BVH_MAX_DEPTH + 16)

static inline unsigned lowest_bit(unsigned mask)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(mask);
#else
    unsigned i = 0;
    while (!(mask & 1u)) {
        mask >>= 1;
        i++;
    }
    return i;
#endif
}

static inline unsigned bit_count(unsigned mask)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_popcount(mask);
#else
    unsigned n = 0;
    for (; mask; mask &= mask - 1)
        n++;
    return n;
#endif
}

/* For a node with at least two children hit (bit i of `mask` for slot i, entry distances in
 * `enter`): pushes them on the stack (`refs`, `t_entry`, `*top` entries used) in the node's
 * order for the ray's octant (sr_wide_node.order), farthest first, pops the nearest and returns
 * its reference. Every version pushes the same entries in the same order: with AVX2 the slots
 * are permuted into push order and the hit ones compressed into consecutive lanes (AVX-512's
 * compress, or BMI2's pext on lane numbers), the portable version walks the positions one by
 * one. (Pushing and popping one or no child the same way, without the caller's branches on
 * them, was measured slower: the pop then waits for the store to be forwarded.) */
SR_BVH_ALWAYS_INLINE uint32_t push_children(const sr_wide_node *node, unsigned mask, f8 enter, unsigned octant,
                                            uint32_t *refs, float *t_entry, int *top)
{
    const int count = (int)bit_count(mask);
#if defined(SR_BVH_AVX2)
    const __m256i slots = _mm256_and_si256(_mm256_srl_epi32(_mm256_load_si256((const __m256i *)(const void *)node->order),
                                                            _mm_cvtsi32_si128((int)(3 * octant))),
                                           _mm256_set1_epi32(7));
    /* bit p of `hit`: the child at position p is hit (bit `slot` of mask moved to the sign) */
    const __m256i lane_bits =
        _mm256_sllv_epi32(_mm256_set1_epi32((int)mask), _mm256_sub_epi32(_mm256_set1_epi32(31), slots));
    const unsigned hit = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(lane_bits));
    const __m256i child = _mm256_permutevar8x32_epi32(_mm256_load_si256((const __m256i *)(const void *)node->child), slots);
    const __m256 t = _mm256_permutevar8x32_ps(enter, slots);
#if defined(SR_BVH_AVX512)
    const __m256i packed_child = _mm256_maskz_compress_epi32((__mmask8)hit, child);
    const __m256 packed_t = _mm256_maskz_compress_ps((__mmask8)hit, t);
#else
    /* the positions of the set bits of `hit`, one byte each (pext of 0..7 by the mask's bytes) */
    const uint64_t byte_mask = _pdep_u64(hit, 0x0101010101010101ull) * 0xffu;
    const __m256i positions =
        _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)_pext_u64(0x0706050403020100ull, byte_mask)));
    const __m256i packed_child = _mm256_permutevar8x32_epi32(child, positions);
    const __m256 packed_t = _mm256_permutevar8x32_ps(t, positions);
#endif
    _mm256_storeu_si256((__m256i *)(void *)&refs[*top], packed_child);
    _mm256_storeu_ps(&t_entry[*top], packed_t);
    *top += count - 1;
    return (uint32_t)_mm_cvtsi128_si32(
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(packed_child, _mm256_set1_epi32(count - 1))));
#else
    float t[SR_WIDE_WIDTH];
    f8_store(t, enter);
    for (int p = 0; p < SR_WIDE_WIDTH; p++) {
        const unsigned slot = node->order[p] >> (3 * octant) & 7u;
        if (mask >> slot & 1u) {
            refs[*top] = node->child[slot];
            t_entry[*top] = t[slot];
            ++*top;
        }
    }
    (void)count;
    return refs[--*top];
#endif
}

/* ---- the triangle filter ---- */

/* Per-ray constants of pack_candidates. */
typedef struct pack_ray {
    /* byte offsets in a vertex of a pack (sr_triangle_pack.v[k]) of coordinates axis_x, axis_y, axis_z */
    size_t offset_x, offset_y, offset_z;
    f4 origin_x, origin_y, origin_z; /* origin[axis_x], origin[axis_y], origin[axis_z] */
    f4 shear_x, shear_y;
    f4 bound_scale, bound_offset; /* K1 and K2 of the proof below */
} pack_ray;

/* K1 and K2 (see pack_candidates) from G, a bound on |r_x| + 2 |shear_x z| and |r_y| + 2
 * |shear_y z| over every vertex of the tree: the relative coordinates r = p - o of a vertex
 * inside the root box are bounded by those of the box's faces (rounding is monotonic). Each
 * float expression below is rounded up by its final factor 1 + 2^-20, which exceeds the at
 * most three roundings to nearest (a relative u each) before it, so G, K1 and K2 are never
 * below the real values the proof needs. Past 2^62 the filter is switched off (K1 = inf: no
 * lane is rejected), which keeps every product of the filter far from overflow. */
static void pack_ray_make(const sr_bvh_node *root, const sr_ray *ray, pack_ray *p)
{
    const float origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    const float low[3] = {root->min.x, root->min.y, root->min.z}, high[3] = {root->max.x, root->max.y, root->max.z};
    float reach[3];
    for (int axis = 0; axis < 3; axis++) {
        const float a = fabsf(low[axis] - origin[axis]), b = fabsf(high[axis] - origin[axis]);
        reach[axis] = a > b ? a : b;
    }
    const float up = 1.0f + 0x1p-20f;
    const float z = reach[ray->axis_z];
    const float g_x = reach[ray->axis_x] + 2.0f * (fabsf(ray->shear.x) * z);
    const float g_y = reach[ray->axis_y] + 2.0f * (fabsf(ray->shear.y) * z);
    const float g = (g_x > g_y ? g_x : g_y) * up;
    float scale = INFINITY, offset = 0.0f;
    if (g <= 0x1p62f) {
        scale = (g * 0x1p-20f + 0x1p-100f) * up;
        offset = (g * 0x1p-24f + 0x1p-20f) * up;
    }
    p->offset_x = (size_t)ray->axis_x * sizeof(float[SR_PACK_WIDTH]);
    p->offset_y = (size_t)ray->axis_y * sizeof(float[SR_PACK_WIDTH]);
    p->offset_z = (size_t)ray->axis_z * sizeof(float[SR_PACK_WIDTH]);
    p->origin_x = f4_splat(origin[ray->axis_x]);
    p->origin_y = f4_splat(origin[ray->axis_y]);
    p->origin_z = f4_splat(origin[ray->axis_z]);
    p->shear_x = f4_splat(ray->shear.x);
    p->shear_y = f4_splat(ray->shear.y);
    p->bound_scale = f4_splat(scale);
    p->bound_offset = f4_splat(offset);
}

/* The lanes of `pack` that sr_ray_triangle might hit (bit i for lane i); the others it misses.
 *
 * sr_ray_triangle hits only if its three edge functions w (sr_ray_space_edge, double) are all
 * >= 0 or all <= 0. The filter computes the same three edge functions in float, E, and a bound
 * B on |E - w|; if one E exceeds B and another is below -B, one w is > 0 and another < 0, and
 * sr_ray_triangle misses: the lane is rejected. Otherwise it stays a candidate and the caller
 * runs sr_ray_triangle's own code on it. So the filter never changes an answer; it only saves
 * the double-precision test on most triangles.
 *
 * The bound, with u = 2^-24 and per vertex the floats r_x = fl(p_x - o_x), r_y, z =
 * fl(p_z - o_z) (axes of ray space; the same floats in every computation, one subtraction
 * each). The exact ray-space coordinate is X = r_x - s_x z (s the shear). sr_ray_triangle
 * computes x_ref = fl(r_x - fl(s_x z)), or fl(r_x - s_x z) if its compiler fused the
 * expression into an FMA; here x_s = fl(r_x - fl(s_x z)). Both lie within
 * u |X| + u (1 + u) |s_x z| + 2^-150 (a product underflowing to a subnormal) of X, so
 *   delta = |x_ref - x_s| <= 2u (1 + u) G + 2^-149,   G >= |r_x| + 2 |s_x z| (pack_ray_make).
 * Let A be the largest |x_s|, |y_s| of the triangle's vertices (computed exactly: abs and max
 * round nothing); |x_s| <= (1 + u)^2 G. The reference's edge function of vertices p, q is
 * exactly sign-correct: w has the sign of x_ref(p) y_ref(q) - y_ref(p) x_ref(q) (products of
 * floats are exact in double, the difference is rounded once). Then
 *   |w_ref - w_s| <= 4 A delta + 2 delta^2 <= 8.04 u G A + 8.1 u^2 G^2 + 2^-147 A + 2^-170 G
 * for w_s = x_s(p) y_s(q) - y_s(p) x_s(q) (exact), and the float E = fl(fl(x_s y_s) -
 * fl(y_s x_s)) has
 *   |E - w_s| <= (2u + u^2) 2 A^2 + 2^-149 <= 4.02 u G A + 2^-149.
 * In all |E - w| <= 12.1 u G A + 8.1 u^2 G^2 + 2^-147 A + 2^-170 G + 2^-149. The filter uses
 *   B = fl(K1 fl(A + K2)),   K1 >= 16 u G + 2^-100,   K2 >= u G + 2^-20,
 * so B >= (1 - u)^2 (16 u G A + 16 u^2 G^2 + 2^-100 A + 2^-120), which covers every term (the
 * 2^-170 G term is below 8 u^2 G^2 for G >= 2^-122, below 2^-292 otherwise), and K1 (A + K2)
 * >= 2^-120 is a normal float, so computing B loses at most a relative 2u. With G <= 2^62 no
 * product overflows. No lane holds a NaN or an infinity (finite vertices and origin, G
 * bounded), so min and max of the three E are exact. tests/test_bvh_wide.c checks the filter
 * against the double edge functions on rays aimed at edges and vertices, at tiny and huge
 * scales. */
/* `axis_x`, `axis_y`, `axis_z` are the ray's (constants at the call sites of the specialised
 * versions, -1 for "read them from r"). */
SR_BVH_ALWAYS_INLINE unsigned pack_candidates(const sr_triangle_pack *pack, const pack_ray *r, int axis_x,
                                              int axis_y, int axis_z)
{
    f4 x[3], y[3];
    for (int k = 0; k < 3; k++) {
        const char *vertex = (const char *)pack->v[k];
        const float *px = axis_x >= 0 ? pack->v[k][axis_x] : (const float *)(const void *)(vertex + r->offset_x);
        const float *py = axis_y >= 0 ? pack->v[k][axis_y] : (const float *)(const void *)(vertex + r->offset_y);
        const float *pz = axis_z >= 0 ? pack->v[k][axis_z] : (const float *)(const void *)(vertex + r->offset_z);
        const f4 z = f4_sub(f4_load(pz), r->origin_z);
        x[k] = f4_sub(f4_sub(f4_load(px), r->origin_x), f4_mul(r->shear_x, z));
        y[k] = f4_sub(f4_sub(f4_load(py), r->origin_y), f4_mul(r->shear_y, z));
    }
    /* the operand order of sr_ray_triangle_test: w_a = edge(c, b), w_b = edge(a, c), w_c = edge(b, a) */
    const f4 edge_a = f4_sub(f4_mul(x[2], y[1]), f4_mul(y[2], x[1]));
    const f4 edge_b = f4_sub(f4_mul(x[0], y[2]), f4_mul(y[0], x[2]));
    const f4 edge_c = f4_sub(f4_mul(x[1], y[0]), f4_mul(y[1], x[0]));
    const f4 magnitude = f4_max(f4_max(f4_max(f4_abs(x[0]), f4_abs(y[0])), f4_max(f4_abs(x[1]), f4_abs(y[1]))),
                                f4_max(f4_abs(x[2]), f4_abs(y[2])));
    const f4 bound = f4_mul(r->bound_scale, f4_add(magnitude, r->bound_offset));
    const f4 low = f4_min(f4_min(edge_a, edge_b), edge_c);
    const f4 high = f4_max(f4_max(edge_a, edge_b), edge_c);
    return ~f4_gt_and_lt(high, bound, low, f4_negate(bound)) & 0xfu;
}

/* sr_ray_triangle on lane `lane` of a pack: sr_bvh_leaf_triangle's arithmetic on the pack's
 * floats (the same expressions, so the same bits), axes as in pack_candidates. */
SR_BVH_ALWAYS_INLINE bool pack_triangle_test(const sr_bvh_leaf_ray *ray, float tmin, float tmax,
                                             const sr_triangle_pack *pack, unsigned lane, int axis_x, int axis_y,
                                             int axis_z, sr_triangle_hit *hit)
{
    if (axis_x < 0) {
        axis_x = ray->axis_x;
        axis_y = ray->axis_y;
        axis_z = ray->axis_z;
    }
    sr_vec3 p[3];
    for (int k = 0; k < 3; k++) {
        const float z = pack->v[k][axis_z][lane] - ray->origin_z;
        p[k] = (sr_vec3){(pack->v[k][axis_x][lane] - ray->origin_x) - ray->shear_x * z,
                         (pack->v[k][axis_y][lane] - ray->origin_y) - ray->shear_y * z, z};
    }
    return sr_bvh_leaf_triangle_in_ray_space(ray, tmin, tmax, p[0], p[1], p[2], hit);
}

unsigned sr_bvh_pack_filter(const sr_triangle_pack *pack, const sr_ray *ray, sr_aabb root)
{
    const sr_bvh_node root_node = {.min = root.min, .max = root.max};
    pack_ray r;
    pack_ray_make(&root_node, ray, &r);
    return pack_candidates(pack, &r, -1, -1, -1);
}

/* The 9 floats of lane `lane`'s triangle (sr_bvh.triangles order). */
static inline void pack_triangle(const sr_triangle_pack *pack, unsigned lane, float v[9])
{
    for (int k = 0; k < 3; k++)
        for (int axis = 0; axis < 3; axis++)
            v[3 * k + axis] = pack->v[k][axis][lane];
}

/* ---- the traversal ---- */

/* The state of one query that the leaf functions share with the traversal: the ray (tmax
 * shrinks to the closest hit), the per-ray constants of the triangle tests, the best hit so far
 * and the counters. The leaf functions run out of line and the box test's constants are the
 * traversal's locals, so that the node loop keeps them in registers (a single function holding
 * both made the compiler shuffle spilled constants between stack slots at every leaf). */
typedef struct query {
    const sr_ray *ray;
    float tmax; /* the ray's tmax, then the closest hit's t */
    pack_ray filter;
    sr_bvh_leaf_ray leaf;
    bool leaf_rays_made; /* filter, leaf and axis_order are made at the first leaf: most primary rays miss */
    int axis_order;
    const sr_bvh *bvh;
    sr_bvh_hit *hit; /* t, u, v of the best hit so far */
    uint32_t best_primitive; /* SR_BVH_NO_HIT before the first hit */
    const sr_triangle_pack *best_pack;
    unsigned best_lane;
    uint32_t tested;
    sr_bvh_ray_primitive_fn intersect;
    void *user;
} query;

#if defined(__GNUC__)
#define NOINLINE static __attribute__((noinline))
#else
#define NOINLINE static
#endif

/* The triangles of leaf `ref`, pack by pack: the filter, then sr_ray_triangle's own test on the
 * lanes it keeps. Returns true when an any-hit query has its answer. The axes are constants in
 * the specialised copies (leaf_triangles), -1 in the generic one. */
SR_BVH_ALWAYS_INLINE bool leaf_packs(query *q, uint32_t ref, bool any, int axis_x, int axis_y, int axis_z)
{
    const sr_triangle_pack *pack = sr_wide_pack_at(q->bvh->wide, ref);
    for (;;) {
        const unsigned flags = u4_top_bits(pack->primitive);
        const unsigned real = (~flags & 0xeu) | 1u;
        q->tested += bit_count(real);
        unsigned candidates = pack_candidates(pack, &q->filter, axis_x, axis_y, axis_z) & real;
        while (candidates) {
            const unsigned lane = lowest_bit(candidates);
            candidates &= candidates - 1;
            const uint32_t primitive = pack->primitive[lane] & ~SR_PACK_FLAG;
            sr_triangle_hit triangle_hit;
            if (pack_triangle_test(&q->leaf, q->ray->tmin, q->tmax, pack, lane, axis_x, axis_y, axis_z,
                                   &triangle_hit) &&
                sr_bvh_hit_is_better(triangle_hit.t, primitive, q->tmax, q->best_primitive)) {
                q->tmax = triangle_hit.t;
                q->hit->t = triangle_hit.t;
                q->hit->u = triangle_hit.u;
                q->hit->v = triangle_hit.v;
                q->best_primitive = primitive;
                q->best_pack = pack;
                q->best_lane = lane;
                if (any)
                    return true;
            }
        }
        if (!(flags & 1u))
            return false;
        pack++;
    }
}

/* The six axis orders sr_ray_make gives a ray (axis_z, then axis_x and axis_y in order or
 * swapped), numbered 2 axis_z + swapped; 6: any other (a hand-made ray). */
static int axis_order(const sr_ray *ray)
{
    const int z = ray->axis_z;
    if (z < 0 || z > 2)
        return 6;
    if (ray->axis_x == (z + 1) % 3 && ray->axis_y == (z + 2) % 3)
        return 2 * z;
    if (ray->axis_x == (z + 2) % 3 && ray->axis_y == (z + 1) % 3)
        return 2 * z + 1;
    return 6;
}

SR_BVH_ALWAYS_INLINE bool leaf_triangles(query *q, uint32_t ref, bool any)
{
    if (!q->leaf_rays_made) {
        pack_ray_make(&q->bvh->nodes[0], q->ray, &q->filter);
        sr_bvh_leaf_ray_make(q->ray, &q->leaf);
        q->axis_order = axis_order(q->ray);
        q->leaf_rays_made = true;
    }
    /* one copy per axis order, so that every load of a pack has a constant offset */
    switch (q->axis_order) {
    case 0:
        return leaf_packs(q, ref, any, 1, 2, 0);
    case 1:
        return leaf_packs(q, ref, any, 2, 1, 0);
    case 2:
        return leaf_packs(q, ref, any, 2, 0, 1);
    case 3:
        return leaf_packs(q, ref, any, 0, 2, 1);
    case 4:
        return leaf_packs(q, ref, any, 0, 1, 2);
    case 5:
        return leaf_packs(q, ref, any, 1, 0, 2);
    default:
        return leaf_packs(q, ref, any, -1, -1, -1);
    }
}

NOINLINE bool leaf_closest(query *q, uint32_t ref)
{
    return leaf_triangles(q, ref, false);
}

NOINLINE bool leaf_any(query *q, uint32_t ref)
{
    return leaf_triangles(q, ref, true);
}

/* The caller's test on each primitive of leaf `ref`, in slot order. */
NOINLINE bool leaf_custom(query *q, uint32_t ref)
{
    const sr_bvh *bvh = q->bvh;
    sr_ray ray = *q->ray; /* the callback sees the closest t so far as tmax */
    ray.tmax = q->tmax;
    const sr_triangle_pack *pack = NULL;
    uint32_t slot = 0, end = 0;
    if (bvh->triangles) {
        pack = sr_wide_pack_at(bvh->wide, ref);
    } else {
        const sr_bvh_node *leaf = &bvh->nodes[ref & ~SR_WIDE_LEAF];
        slot = leaf->first;
        end = leaf->first + leaf->count;
    }
    for (;;) {
        uint32_t primitives[SR_PACK_WIDTH];
        unsigned count = 0, flags = 0;
        if (pack) {
            flags = u4_top_bits(pack->primitive);
            for (unsigned lane = 0; lane < SR_PACK_WIDTH; lane++)
                if (lane == 0 || !(flags >> lane & 1u))
                    primitives[count++] = pack->primitive[lane] & ~SR_PACK_FLAG;
        } else {
            for (; slot < end && count < SR_PACK_WIDTH; slot++)
                primitives[count++] = bvh->primitive_indices[slot];
        }
        for (unsigned i = 0; i < count; i++) {
            q->tested++;
            sr_bvh_hit candidate = {.primitive = primitives[i], .t = INFINITY};
            if (q->intersect(q->user, primitives[i], &ray, &candidate) && candidate.t >= ray.tmin &&
                candidate.t <= ray.tmax && sr_bvh_hit_is_better(candidate.t, primitives[i], ray.tmax, q->best_primitive)) {
                *q->hit = candidate;
                q->best_primitive = primitives[i];
                ray.tmax = candidate.t;
                q->tmax = candidate.t;
            }
        }
        if (pack ? !(flags & 1u) : slot >= end)
            return false;
        if (pack)
            pack++;
    }
}

/* The one wide traversal; `mode` and `fast` are constants at each call site (see bvh_query.c's
 * traverse for why it is inlined into each). Returns the number of child boxes tested. */
SR_BVH_ALWAYS_INLINE uint32_t traverse(query *q, sr_bvh_ray_mode mode, bool fast)
{
    const sr_bvh_wide *wide = q->bvh->wide;
    wide_ray box_ray;
    wide_ray_make(q->ray, &box_ray);
    const wide_ray *box = &box_ray;
    uint32_t visited = 0;
    float limit = sr_bvh_prune_limit(q->tmax);
    const sr_vec3 inv = q->ray->inv_direction;
    const unsigned octant = (inv.x < 0.0f) | (inv.y < 0.0f) << 1 | (inv.z < 0.0f) << 2;
    uint32_t stack_ref[STACK_SIZE];
    float stack_t[STACK_SIZE];
    int top = 0;
    uint32_t ref = 0;
    for (;;) {
        while (!(ref & SR_WIDE_LEAF)) {
            const sr_wide_node *node = sr_wide_node_at(wide, ref);
            f8 enter;
            const unsigned mask = wide_box_test(node, box, f8_splat(limit), fast, &enter);
            visited += sr_wide_node_child_count(node);
            if (mask == 0)
                goto pop;
            if ((mask & (mask - 1)) == 0) {
                ref = node->child[lowest_bit(mask)];
                continue;
            }
            ref = push_children(node, mask, enter, octant, stack_ref, stack_t, &top);
        }
        if (mode == SR_BVH_RAY_CLOSEST)
            leaf_closest(q, ref);
        else if (mode == SR_BVH_RAY_ANY ? leaf_any(q, ref) : leaf_custom(q, ref))
            return visited;
        limit = sr_bvh_prune_limit(q->tmax);
    pop:
        for (;;) {
            if (top == 0)
                return visited;
            top--;
            if (stack_t[top] <= limit)
                break;
        }
        ref = stack_ref[top];
    }
}

bool sr_bvh_query_wide(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode, sr_bvh_ray_primitive_fn intersect,
                       void *user, sr_bvh_hit *hit)
{
    /* `hit` comes cleared (sr_bvh_hit_clear) */
    query q;
    q.ray = ray;
    q.tmax = ray->tmax;
    q.leaf_rays_made = false;
    q.bvh = bvh;
    q.hit = hit;
    q.best_primitive = SR_BVH_NO_HIT;
    q.best_pack = NULL;
    q.best_lane = 0;
    q.tested = 0;
    q.intersect = intersect;
    q.user = user;
    uint32_t visited;
    if (sr_bvh_ray_is_fast(ray)) {
        visited = mode == SR_BVH_RAY_CLOSEST ? traverse(&q, SR_BVH_RAY_CLOSEST, true)
                  : mode == SR_BVH_RAY_ANY   ? traverse(&q, SR_BVH_RAY_ANY, true)
                                             : traverse(&q, SR_BVH_RAY_CUSTOM, true);
    } else {
        visited = mode == SR_BVH_RAY_CLOSEST ? traverse(&q, SR_BVH_RAY_CLOSEST, false)
                  : mode == SR_BVH_RAY_ANY   ? traverse(&q, SR_BVH_RAY_ANY, false)
                                             : traverse(&q, SR_BVH_RAY_CUSTOM, false);
    }
    if (q.best_primitive == SR_BVH_NO_HIT) {
        if (mode == SR_BVH_RAY_CUSTOM) /* the caller's test may have written fields */
            sr_bvh_hit_clear(hit);
        hit->nodes_visited = visited;
        hit->primitives_tested = q.tested;
        return false;
    }
    hit->nodes_visited = visited;
    hit->primitives_tested = q.tested;
    float v[9];
    if (q.best_pack)
        pack_triangle(q.best_pack, q.best_lane, v);
    sr_bvh_hit_finish(ray, q.best_primitive, q.best_pack ? v : NULL, hit);
    return true;
}
