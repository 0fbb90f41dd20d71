/* src/bvh/bvh_query_wide.c — the single-ray queries of softrast/bvh.h over the wide tree
 * (bvh_internal.h): closest hit, any hit and closest hit with a caller's primitive test.
 *
 * Traversal (Embree's BVH8 single-ray traversal, Wald et al. 2008): at a wide node the slab
 * test runs on all 8 child boxes at once; of two children hit the one entered first is visited
 * next and the other pushed, three or more are pushed in the node's order for the ray's octant
 * (sr_wide_node.order), farthest first, each with its entry distance, and the nearest is visited
 * next; a popped entry beyond the prune limit of the closest hit so far is dropped. Leaves go
 * to the leaf tests of bvh_leaf.c. The closest-hit query of the common rays runs in one copy
 * per octant, whose box tests read the node's rows at constant offsets. (Prefetching the
 * children pushed on the stack was measured on 2026-12-05: 0.5-3% more
 * rays/s on the 200k-1M-triangle meshes, 1-3% fewer on the small ones; not kept.)
 *
 * Exactness. The answers are sr_ray_triangle's, bit for bit (bvh_leaf.c for the leaves): the
 * box test is geom's slab test with its roundings on boxes grown by the margin of bvh_query.c
 * (sr_bvh_slab_origins), as the binary traversal's pair test, so no box holding a hit is missed
 * or entered after a farther hit, even for rays lying in a triangle's plane. Which of several triangles hit at the same t is reported is fixed
 * by sr_bvh_hit_is_better, and sr_bvh_prune_limit keeps every such triangle reachable, so the
 * order of the traversal does not change the answer.
 *
 * Knows nothing of raster or scene. */
#define SR_BVH_KERNEL 1 /* bvh_leaf.h: one of the kernels compiled per instruction set */
#include "bvh_leaf.h"
#include "bvh_slab.h"

#include <string.h>

/* ---- the box test of a wide node ---- */

/* Per-ray constants of the 8-box slab test. */
typedef struct wide_ray {
    f8 near_origin[3], far_origin[3]; /* sr_bvh_slab_origins */
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
static inline void wide_ray_make(const sr_ray *ray, const float near_origin[3], const float far_origin[3],
                                 wide_ray *w)
{
    const float inv[3] = {ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z};
    w->widened = ray->tmin >= 0.0f;
    const float far_scale = w->widened ? 1.0f + 0x1p-21f : 1.0f;
    for (int axis = 0; axis < 3; axis++) {
        const int negative = inv[axis] < 0.0f;
        w->near_origin[axis] = f8_splat(near_origin[axis]);
        w->far_origin[axis] = f8_splat(far_origin[axis]);
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
 * widening is folded into inv_far, so the reductions may run as trees. `octant` is the ray's
 * (a constant in the copies specialised per octant: the rows are then read at constant
 * offsets), or -1: the offsets are read from `ray`. */
SR_BVH_ALWAYS_INLINE unsigned wide_box_test(const sr_wide_node *node, const wide_ray *ray, f8 limit, bool fast,
                                            int octant, f8 *enter_out)
{
    const char *bounds = (const char *)node->bounds;
    f8 near[3], far[3];
    for (int axis = 0; axis < 3; axis++) {
        const int negative = octant >> axis & 1;
        const float *near_row = octant >= 0 ? node->bounds[2 * axis + negative]
                                            : (const float *)(const void *)(bounds + ray->near_offset[axis]);
        const float *far_row = octant >= 0 ? node->bounds[2 * axis + 1 - negative]
                                           : (const float *)(const void *)(bounds + ray->far_offset[axis]);
        near[axis] = f8_mul(f8_sub(f8_load(near_row), ray->near_origin[axis]), ray->inv_near[axis]);
        far[axis] = f8_mul(f8_sub(f8_load(far_row), ray->far_origin[axis]), ray->inv_far[axis]);
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

/* For a node with three or more children hit (bit i of `mask` for slot i, entry distances in
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
    const __m256i slots =
        _mm256_and_si256(_mm256_srl_epi32(_mm256_load_si256((const __m256i *)(const void *)node->order),
                                          _mm_cvtsi32_si128((int)(3 * octant))),
                         _mm256_set1_epi32(7));
    /* bit p of `hit`: the child at position p is hit (bit `slot` of mask moved to the sign) */
    const __m256i lane_bits =
        _mm256_sllv_epi32(_mm256_set1_epi32((int)mask), _mm256_sub_epi32(_mm256_set1_epi32(31), slots));
    const unsigned hit = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(lane_bits));
    const __m256i child =
        _mm256_permutevar8x32_epi32(_mm256_load_si256((const __m256i *)(const void *)node->child), slots);
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

/* ---- the traversal ---- */

/* The one wide traversal; `mode` and `fast` are constants at each call site (see bvh_query.c's
 * traverse for why it is inlined into each), and so is `fixed_octant`, the ray's octant in the
 * copies specialised per octant (-1 in the others). Returns the number of child boxes tested. */
SR_BVH_ALWAYS_INLINE uint32_t traverse(sr_bvh_leaf_query *q, sr_bvh_ray_mode mode, bool fast, int fixed_octant,
                                       uint32_t start, const float near_origin[3], const float far_origin[3])
{
    const sr_bvh_wide *wide = q->bvh->wide;
    wide_ray box_ray;
    wide_ray_make(q->ray, near_origin, far_origin, &box_ray);
    const wide_ray *box = &box_ray;
    uint32_t visited = 0;
    float limit = sr_bvh_prune_limit(q->tmax);
    const unsigned octant = fixed_octant >= 0 ? (unsigned)fixed_octant : slab_ray_octant(q->ray);
    uint32_t stack_ref[STACK_SIZE];
    float stack_t[STACK_SIZE];
    int top = 0;
    uint32_t ref = start;
    for (;;) {
        while (!(ref & SR_WIDE_LEAF)) {
            const sr_wide_node *node = sr_wide_node_at(wide, ref);
            f8 enter;
            const unsigned count = sr_wide_node_child_count(node);
            /* Empty slots (+inf / -inf boxes) are missed by every slab test but one whose grown
             * origin overflowed to infinity (inf - inf is NaN there): only the real children count. */
            const unsigned mask =
                wide_box_test(node, box, f8_splat(limit), fast, fixed_octant, &enter) & ((1u << count) - 1u);
            visited += count;
            if (mask == 0)
                goto pop;
            const unsigned rest = mask & (mask - 1);
            if (rest == 0) {
                ref = node->child[lowest_bit(mask)];
                continue;
            }
            if ((rest & (rest - 1)) == 0) {
                /* Two children hit: the one entered first is visited next (the lower slot on equal
                 * entries, never NaN for a child hit), the other pushed. Cheaper than the order
                 * of push_children and, by the entry distances themselves, at least as good. */
                float t[SR_WIDE_WIDTH];
                f8_store(t, enter);
                const unsigned first = lowest_bit(mask), second = lowest_bit(rest);
                const bool swap = t[second] < t[first];
                const unsigned near_slot = swap ? second : first, far_slot = swap ? first : second;
                stack_ref[top] = node->child[far_slot];
                stack_t[top] = t[far_slot];
                top++;
                ref = node->child[near_slot];
                continue;
            }
            ref = push_children(node, mask, enter, octant, stack_ref, stack_t, &top);
        }
        if (mode == SR_BVH_RAY_CLOSEST)
            sr_bvh_leaf_closest(q, ref);
        else if (mode == SR_BVH_RAY_ANY ? sr_bvh_leaf_any(q, ref) : sr_bvh_leaf_custom(q, ref))
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
    /* The root's box first (grown by the margin of sr_bvh_slab_origins, as every box test of the
     * wide tree): most primary rays miss the whole mesh, and this one test is cheaper than the
     * set-up of the traversal and its first 8 boxes. The common rays get the wide test's
     * operations on this one box, the others the slab test of the binary traversal. It counts as
     * one box tested. */
    const slab_origins origins = slab_origins_make(bvh, ray);
    const bool fast = slab_ray_is_fast(ray);
    bool entered;
    if (fast) {
        entered = box_is_entered_fast(&bvh->nodes[0], ray, &origins, sr_bvh_prune_limit(ray->tmax));
    } else {
        sr_ray limited = *ray;
        limited.tmax = sr_bvh_prune_limit(ray->tmax);
        entered = box_entry(&bvh->nodes[0], &limited, &origins) != INFINITY;
    }
    if (!entered) {
        sr_bvh_hit_clear(hit);
        hit->nodes_visited = 1;
        return false;
    }
    float near[3], far[3];
    slab_origins_floats(&origins, near, far);
    sr_bvh_leaf_query q;
    sr_bvh_leaf_query_start(&q, bvh, ray, intersect, user, hit);
    uint32_t visited;
    if (fast && mode == SR_BVH_RAY_CLOSEST) {
        /* the common query, one copy per octant: the box test reads the rows at constant offsets */
        switch (slab_ray_octant(ray)) {
        case 0:
            visited = traverse(&q, SR_BVH_RAY_CLOSEST, true, 0, 0, near, far);
            break;
        case 1:
            visited = traverse(&q, SR_BVH_RAY_CLOSEST, true, 1, 0, near, far);
            break;
        case 2:
            visited = traverse(&q, SR_BVH_RAY_CLOSEST, true, 2, 0, near, far);
            break;
        case 3:
            visited = traverse(&q, SR_BVH_RAY_CLOSEST, true, 3, 0, near, far);
            break;
        case 4:
            visited = traverse(&q, SR_BVH_RAY_CLOSEST, true, 4, 0, near, far);
            break;
        case 5:
            visited = traverse(&q, SR_BVH_RAY_CLOSEST, true, 5, 0, near, far);
            break;
        case 6:
            visited = traverse(&q, SR_BVH_RAY_CLOSEST, true, 6, 0, near, far);
            break;
        default:
            visited = traverse(&q, SR_BVH_RAY_CLOSEST, true, 7, 0, near, far);
            break;
        }
    } else if (fast) {
        visited = mode == SR_BVH_RAY_ANY ? traverse(&q, SR_BVH_RAY_ANY, true, -1, 0, near, far)
                                         : traverse(&q, SR_BVH_RAY_CUSTOM, true, -1, 0, near, far);
    } else {
        visited = mode == SR_BVH_RAY_CLOSEST ? traverse(&q, SR_BVH_RAY_CLOSEST, false, -1, 0, near, far)
                  : mode == SR_BVH_RAY_ANY   ? traverse(&q, SR_BVH_RAY_ANY, false, -1, 0, near, far)
                                             : traverse(&q, SR_BVH_RAY_CUSTOM, false, -1, 0, near, far);
    }
    return sr_bvh_leaf_query_finish(&q, mode, 1 + visited);
}

uint32_t sr_bvh_wide_traverse_subtree(sr_bvh_leaf_query *q, uint32_t ref)
{
    const slab_origins origins = slab_origins_make(q->bvh, q->ray);
    float near[3], far[3];
    slab_origins_floats(&origins, near, far);
    return traverse(q, SR_BVH_RAY_CLOSEST, true, -1, ref, near, far);
}
