/* src/bvh/bvh_query.c — queries of the static BVH (softrast/bvh.h): the entry points of the ray
 * queries (closest hit, any hit, closest hit with a caller's primitive test), which walk the
 * wide tree (bvh_query_wide.c); the binary traversal they replaced, kept for comparisons
 * (bvh_internal.h); and the box, sphere and frustum overlap queries with callbacks, which walk
 * the binary node array.
 *
 * Every query reads a const tree and keeps its state on the stack (explicit traversal stack,
 * no recursion, no allocation), so queries are reentrant and any number of threads may query
 * one tree at once. Knows nothing of raster or scene. */
#include "bvh_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- rays ---- */

/* The ray tests are geom's own sr_ray_triangle (watertight ray-space edge functions, `static
 * inline` in softrast/geom.h so that it inlines into the leaf loop) and the Williams slab test of
 * sr_ray_aabb, run on node boxes grown by a per-ray margin (slab_origins below): the BVH answers
 * exactly what a brute-force loop over sr_ray_triangle answers, bit for bit, for every ray.
 *
 * Why the margin: sr_ray_triangle's t is computed in the ray's sheared space from rounded
 * coordinates, so the point o + t d it reports may lie a rounding outside the triangle's box.
 * For a ray crossing a flat box at a small angle (or lying in its plane) that rounding, divided
 * by a small direction component, is a large distance along the ray: the fuzzer's case
 * (tests/test_fuzz.c, regressions/bvh_closest_hit_at_box_face) had three triangles in the plane
 * x = 0, a ray starting in that plane, t = -1.95e-9, -1.66e-8 and 1.3e-8 from sr_ray_triangle
 * and a slab interval of exactly [0, 0] for every leaf. Once the first triangle was found at
 * -1.95e-9, the leaf of the closest one (-1.66e-8) was entered "after" the closest hit and
 * pruned; elsewhere a leaf whose triangle sr_ray_triangle hits was missed by the slab test. */

/* ---- the margin ----
 * Rounding of sr_ray_triangle, with u = 2^-24 and each float result r(1 + d) + e, |d| <= u,
 * |e| <= 2^-150 where a product or quotient underflows (sums of floats are exact there). M_k
 * bounds |p_k - o_k| over the tree's vertices (from the root box), Z is axis_z, D = |d_Z| the
 * largest direction component, so |d_k / d_Z| <= 1. A hit means that the ray-space origin lies
 * in the triangle of the *rounded* ray-space vertices (the edge functions are exact in double),
 * at barycentrics l_i >= 0. The exact point Q = sum l_i p_i is in the triangle, hence in every
 * box holding its vertices, and:
 *  - a sheared coordinate a_i - s c_i, rounded, misses its exact value by at most
 *    2.01u M_k + 4.01u M_Z + 2^-150 1.01 (M_Z + 1) (s = d_k / d_Z rounded, perhaps to a
 *    subnormal); since sum l_i x'_i = 0, the ray passes that close to Q on axes x and y;
 *  - the computed t misses the ray parameter of Q's depth by at most 3.01u M_Z / D
 *    + 2^-150 1.01 (M_Z + 1) (the double arithmetic adds ~2^-50 relative), which moves the
 *    point along axis k by that times |d_k|;
 *  - the slab distance (b - o') (1/d) of a grown box errs by 3.01u (M_k + E_k) / |d_k| plus
 *    2^-150 terms, i.e. by that times |d_k| in world units.
 * A box grown by E_k on axis k with E_k >= 5.03u M_k + 7.03u M_Z + 2^-150 1.02 (M_k + M_Z + 2)
 * (1 + D) therefore holds the point o + t d of every hit at t of a triangle inside it, with room
 * for the slab test's own rounding: its computed entry is <= t and its exit >= t. The margin
 * below is more than twice that. So every leaf holding a hit is reached and never pruned before
 * a hit closer than its own, and the traversal finds brute force's closest t.
 *
 * The growth costs nothing per node: the near faces are tested against an origin moved by E_k
 * towards the far side, the far faces against one moved the other way, so the slab test keeps
 * its instructions. The margin is about 4e-6 of the distance to the farthest vertex. Measured
 * on the primary rays of `softrast bench bvh` (CPU time of 31 runs, best of three): +8% on
 * teapot.obj, +5% on bunny.obj, +2% on dragon_res3.obj, mostly the per-ray set-up. Box trees
 * (the caller's own test) use no margin: their slab test is sr_ray_aabb's exactly. */

/* traverse and the per-ray set-up below are inlined into each call: with `mode` a constant
 * there, the leaf loop carries no mode tests and no register spills (left to itself, gcc made one
 * out-of-line copy testing `mode` per triangle and spilling registers around leaves), and the
 * grown origins stay in registers. GNU attribute, also understood by Clang. */
#if defined(__GNUC__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE static inline
#endif

/* The margin, one for the three axes, with R = max_k M_k, O_k = |o_k|:
 *     E_k = 2^-18 R + 2^-100 max(1, 2^-46 (1 + D)) + 2^-22 O_k.
 * Twice the bound above is at most 24.2u R + 2^-148 (2 R + 2)(1 + D) <= 2^-18 R + 2^-146 (1 + D)
 * (as M_k, M_Z <= R and 1 + D <= 2^128), which the first two terms cover; 2^-22 O_k covers the
 * rounding of o_k +- E_k itself (at most u (O_k + E_k)). The few float roundings here are
 * relative u each, inside the factor of two. No operand is subnormal (2^-146 (1 + D) itself
 * would be, for every ordinary ray, and a subnormal operand costs a microcode assist of ~100
 * cycles on common x86 cores). A margin that overflows is infinite: the box grows without bound
 * (never NaN, node boxes are finite).
 *
 * Every traversal step waits for the grown origins, so their computation is short: the second
 * and third terms do not depend on R, the ray's fields are read one by one (a 16-byte load over
 * the separate stores that made the ray stalls until they retire), and with SSE the origins stay
 * in vector registers from here to the box tests. (Measured on dragon_res3's primary rays: a
 * first version, with the per-axis margin of the analysis computed in scalar code through
 * memory, cost a third of the ray throughput.) */
#include "bvh_slab.h" /* slab_origins_make, box_entry */

/* ---- both children of an interior node at once ----
 * A traversal step tests the two boxes of a sibling pair. With SSE the pair is transposed so
 * that one vector holds, per axis, (left near, right near, left far, right far) bounds: the
 * Williams slab test of geom's sr_ray_aabb then runs on both boxes in the same instructions. It
 * computes the same roundings as sr_ray_aabb, ignores NaN slab distances the same way (operand
 * order of MINPS/MAXPS: the second operand wins when either is NaN) and widens the exit
 * distance by the same factor (folded into 1/d when tmin >= 0, see pair_ray_make), so it hits
 * every box box_entry hits (for box trees: every box sr_ray_aabb hits, and at most a box that a
 * rounding away; tests/test_bvh.c checks both). The near lanes subtract the near origin of
 * slab_origins, the far lanes the far one. Without SSE the scalar box_entry is used twice. */
#if defined(__SSE2__)
/* Per-ray constants of the pair test. */
typedef struct pair_ray {
    __m128 origin[3];        /* per axis: (near origin, near origin, far origin, far origin) */
    __m128 inv_direction[3]; /* per axis: (1/d, 1/d, far lanes: see `widened`) */
    __m128 swap[3];          /* all bits set when the axis is entered through the box max (sign of 1/d) */
    __m128 tmin;
    /* No slab distance can be NaN: every 1/d is finite (NaN needs 0 * inf). The entry and exit
     * reductions may then run as trees instead of chains (max and min are exact and, without
     * NaN, associative), which shortens every traversal step by two dependent operations. */
    bool finite;
    /* The exit widening of sr_ray_aabb is folded into the far lanes of inv_direction (1/d times
     * 1 + 2^-21). Valid when tmin >= 0 (see pair_ray_make); otherwise the exit distances are
     * widened after the fact as sr_ray_aabb does. */
    bool widened;
} pair_ray;

static inline void pair_ray_make(const sr_ray *ray, const slab_origins *origins, pair_ray *pair)
{
    const float inv[3] = {ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z};
    pair->origin[0] = _mm_shuffle_ps(origins->near, origins->far, _MM_SHUFFLE(0, 0, 0, 0));
    pair->origin[1] = _mm_shuffle_ps(origins->near, origins->far, _MM_SHUFFLE(1, 1, 1, 1));
    pair->origin[2] = _mm_shuffle_ps(origins->near, origins->far, _MM_SHUFFLE(2, 2, 2, 2));
    /* Folding the widening into 1/d takes three dependent operations off every traversal step.
     * It is sound for exits at t >= 0: the computed exit (b - o) * (1/d (1 + 2^-21)) carries four
     * roundings of at most u = 2^-24 each, so it is at least the exact exit times
     * (1 - u)^4 (1 + 8u) > 1 + 3u, still above any computed entry of a box the ray touches
     * (entries err by at most gamma(3) ~ 3u, Ize 2013). A negative exit is made more negative,
     * but with tmin >= 0 such a box is behind the origin and missed either way (the sign of
     * (b - o) * (1/d) is exact). Rays with tmin < 0 keep the explicit widening. */
    pair->widened = ray->tmin >= 0.0f; /* sr_bvh_ray_is_fast is widened && finite */
    const float far_scale = pair->widened ? 1.0f + 0x1p-21f : 1.0f;
    for (int axis = 0; axis < 3; axis++) {
        pair->inv_direction[axis] = _mm_setr_ps(inv[axis], inv[axis], inv[axis] * far_scale, inv[axis] * far_scale);
        /* sr_ray_aabb's choice: `inv < 0` (1 / -0 = -inf counts as negative) */
        pair->swap[axis] = _mm_cmplt_ps(_mm_set1_ps(inv[axis]), _mm_setzero_ps());
    }
    pair->tmin = _mm_set1_ps(ray->tmin);
    pair->finite = fabsf(inv[0]) < INFINITY && fabsf(inv[1]) < INFINITY && fabsf(inv[2]) < INFINITY;
}

/* (near, near, far, far) bounds of one axis from (min, min, max, max). */
static inline __m128 order_near_far(__m128 bounds, __m128 swap)
{
    __m128 swapped = _mm_shuffle_ps(bounds, bounds, _MM_SHUFFLE(1, 0, 3, 2));
#if defined(__SSE4_1__)
    return _mm_blendv_ps(bounds, swapped, swap);
#else
    return _mm_or_ps(_mm_and_ps(swap, swapped), _mm_andnot_ps(swap, bounds));
#endif
}

/* Slab test of nodes pair[0] and pair[1] within [tmin, t_limit]. Returns a bit mask (1: first
 * hit, 2: second hit) and their entry distances. */
static inline int pair_entry(const sr_bvh_node *pair, const pair_ray *ray, float t_limit, float t_entry[2], bool fast)
{
    /* lanes: min x y z + first, max x y z + count; the integer lanes are shuffled away unread */
    const __m128 min0 = _mm_loadu_ps(&pair[0].min.x), max0 = _mm_loadu_ps(&pair[0].max.x);
    const __m128 min1 = _mm_loadu_ps(&pair[1].min.x), max1 = _mm_loadu_ps(&pair[1].max.x);
    const __m128 min_xy = _mm_unpacklo_ps(min0, min1), max_xy = _mm_unpacklo_ps(max0, max1);
    const __m128 min_z = _mm_unpackhi_ps(min0, min1), max_z = _mm_unpackhi_ps(max0, max1);
    const __m128 bounds[3] = {_mm_movelh_ps(min_xy, max_xy), _mm_movehl_ps(max_xy, min_xy),
                              _mm_movelh_ps(min_z, max_z)};
    __m128 t[3];
    for (int axis = 0; axis < 3; axis++)
        t[axis] = _mm_mul_ps(_mm_sub_ps(order_near_far(bounds[axis], ray->swap[axis]), ray->origin[axis]),
                             ray->inv_direction[axis]);
    __m128 enter, leave;
    const __m128 limit = _mm_set1_ps(t_limit);
    if (fast) {
        /* the common case (sr_bvh_ray_is_fast): no NaN, widening folded in; t_limit joins the exit tree */
        enter = _mm_max_ps(_mm_max_ps(t[0], t[1]), _mm_max_ps(t[2], ray->tmin));
        leave = _mm_min_ps(_mm_min_ps(t[0], t[1]), _mm_min_ps(t[2], limit));
        const __m128 hit = _mm_cmple_ps(enter, _mm_movehl_ps(leave, leave));
        t_entry[0] = _mm_cvtss_f32(enter);
        t_entry[1] = _mm_cvtss_f32(_mm_shuffle_ps(enter, enter, _MM_SHUFFLE(1, 1, 1, 1)));
        return _mm_movemask_ps(hit) & 3;
    }
    enter = ray->tmin;
    leave = _mm_set1_ps(INFINITY);
    for (int axis = 0; axis < 3; axis++) {
        enter = _mm_max_ps(t[axis], enter); /* a NaN t keeps enter (lanes 0, 1 used) */
        leave = _mm_min_ps(t[axis], leave); /* a NaN t keeps leave (lanes 2, 3 used) */
    }
    if (!ray->widened) {
        /* sr_ray_aabb_widen_far: t * (1 +- 2^-21) by the sign of t is t + |t| * 2^-21, the same
         * real number rounded once (the product by a power of two is exact); -inf gives NaN: a
         * miss, as -inf is. */
        const __m128 magnitude = _mm_andnot_ps(_mm_set1_ps(-0.0f), leave);
        leave = _mm_add_ps(leave, _mm_mul_ps(magnitude, _mm_set1_ps(0x1p-21f)));
    }
    leave = _mm_min_ps(limit, leave); /* NaN leave stays NaN */
    const __m128 hit = _mm_cmple_ps(enter, _mm_movehl_ps(leave, leave));
    t_entry[0] = _mm_cvtss_f32(enter);
    t_entry[1] = _mm_cvtss_f32(_mm_shuffle_ps(enter, enter, _MM_SHUFFLE(1, 1, 1, 1)));
    return _mm_movemask_ps(hit) & 3;
}
#else
typedef struct pair_ray {
    const sr_ray *ray;
    const slab_origins *origins;
} pair_ray;

static inline void pair_ray_make(const sr_ray *ray, const slab_origins *origins, pair_ray *pair)
{
    pair->ray = ray;
    pair->origins = origins;
}

static inline int pair_entry(const sr_bvh_node *pair, const pair_ray *ray, float t_limit, float t_entry[2], bool fast)
{
    (void)fast;
    sr_ray limited = *ray->ray;
    limited.tmax = t_limit;
    t_entry[0] = box_entry(&pair[0], &limited, ray->origins);
    t_entry[1] = box_entry(&pair[1], &limited, ray->origins);
    return (t_entry[0] != INFINITY) | (t_entry[1] != INFINITY) << 1;
}
#endif

typedef struct stack_entry {
    uint32_t node;
    float t_entry;
} stack_entry;

/* The binary traversal (Wald's front-to-back order): at an interior node both children's boxes
 * are tested, the nearer is visited next and the farther pushed with its entry distance; a
 * popped node whose entry lies beyond the prune limit of the closest hit so far is dropped.
 * `ray` is the query's private copy: its tmax shrinks to the closest hit, which the triangle
 * test reads; boxes are tested up to sr_bvh_prune_limit(tmax). `mode` and `fast`
 * (sr_bvh_ray_is_fast(ray)) are constants at each call site, so each inlined copy is
 * specialised: the common rays run a box test without the tests for NaN and for negative tmin.
 * Returns the slot hit or SR_BVH_NO_HIT; best->primitive is the hit's primitive number. */
SR_BVH_ALWAYS_INLINE uint32_t traverse(const sr_bvh *bvh, sr_ray *ray, sr_bvh_ray_mode mode, bool fast,
                                       sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *best)
{
    const sr_bvh_node *nodes = bvh->nodes;
    uint32_t visited = 1, tested = 0, best_slot = SR_BVH_NO_HIT;
    stack_entry stack[SR_BVH_MAX_DEPTH];
    int top = 0;
    uint32_t node_index = 0;
    float limit = sr_bvh_prune_limit(ray->tmax);
    if (bvh->primitive_count == 0)
        goto done;
    const slab_origins origins = slab_origins_make(bvh, ray);
    sr_ray limited = *ray;
    limited.tmax = limit;
    if (box_entry(&nodes[0], &limited, &origins) == INFINITY)
        goto done;
    pair_ray pair;
    pair_ray_make(ray, &origins, &pair);
    sr_bvh_leaf_ray leaf;
    sr_bvh_leaf_ray_make(ray, &leaf);
    for (;;) {
        const sr_bvh_node *node = &nodes[node_index];
        if (node->count > 0) {
            uint32_t end = node->first + node->count;
            for (uint32_t slot = node->first; slot < end; slot++) {
                tested++;
                const uint32_t primitive = bvh->primitive_indices[slot];
                if (mode == SR_BVH_RAY_CUSTOM) {
                    sr_bvh_hit candidate = {.primitive = primitive, .t = INFINITY};
                    if (intersect(user, primitive, ray, &candidate) && candidate.t >= ray->tmin &&
                        candidate.t <= ray->tmax &&
                        sr_bvh_hit_is_better(candidate.t, primitive, ray->tmax, best->primitive)) {
                        *best = candidate;
                        best->primitive = primitive;
                        ray->tmax = candidate.t;
                        limit = sr_bvh_prune_limit(candidate.t);
                        best_slot = slot;
                    }
                    continue;
                }
                const float *v = &bvh->triangles[9 * (size_t)slot];
                sr_triangle_hit triangle_hit;
                if (sr_bvh_leaf_triangle(&leaf, ray->tmin, ray->tmax, v, &triangle_hit) &&
                    sr_bvh_hit_is_better(triangle_hit.t, primitive, ray->tmax, best->primitive)) {
                    ray->tmax = triangle_hit.t;
                    limit = sr_bvh_prune_limit(triangle_hit.t);
                    best->t = triangle_hit.t;
                    best->u = triangle_hit.u;
                    best->v = triangle_hit.v;
                    best->primitive = primitive;
                    best_slot = slot;
                    if (mode == SR_BVH_RAY_ANY)
                        goto done;
                }
            }
        } else {
            uint32_t left = node->first;
            float t_entry[2];
            int hits = pair_entry(&nodes[left], &pair, limit, t_entry, fast);
            visited += 2;
            /* Branches rather than selects on purpose: a predicted branch lets the CPU start
             * loading the next node before the box test has finished. */
            if (hits == 3) {
                if (t_entry[1] < t_entry[0]) {
                    stack[top++] = (stack_entry){left, t_entry[0]};
                    node_index = left + 1;
                } else {
                    stack[top++] = (stack_entry){left + 1, t_entry[1]};
                    node_index = left;
                }
                continue;
            }
            if (hits == 1) {
                node_index = left;
                continue;
            }
            if (hits == 2) {
                node_index = left + 1;
                continue;
            }
        }
        /* pop the next node that can still hold a hit at or before the closest one */
        for (;;) {
            if (top == 0)
                goto done;
            stack_entry entry = stack[--top];
            if (entry.t_entry <= limit) {
                node_index = entry.node;
                break;
            }
        }
    }
done:
    best->nodes_visited = visited;
    best->primitives_tested = tested;
    return best_slot;
}

bool sr_bvh_query_ray_binary(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode,
                             sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *hit)
{
    sr_bvh_hit_clear(hit);
    if (!bvh || !ray || !sr_bvh_ray_is_usable(ray))
        return false;
    if (mode == SR_BVH_RAY_CUSTOM ? !intersect : !bvh->triangles)
        return false;
    sr_ray local = *ray;
    uint32_t slot;
    if (sr_bvh_ray_is_fast(ray)) {
        slot = mode == SR_BVH_RAY_CLOSEST ? traverse(bvh, &local, SR_BVH_RAY_CLOSEST, true, NULL, NULL, hit)
               : mode == SR_BVH_RAY_ANY   ? traverse(bvh, &local, SR_BVH_RAY_ANY, true, NULL, NULL, hit)
                                          : traverse(bvh, &local, SR_BVH_RAY_CUSTOM, true, intersect, user, hit);
    } else {
        slot = mode == SR_BVH_RAY_CLOSEST ? traverse(bvh, &local, SR_BVH_RAY_CLOSEST, false, NULL, NULL, hit)
               : mode == SR_BVH_RAY_ANY   ? traverse(bvh, &local, SR_BVH_RAY_ANY, false, NULL, NULL, hit)
                                          : traverse(bvh, &local, SR_BVH_RAY_CUSTOM, false, intersect, user, hit);
    }
    if (slot == SR_BVH_NO_HIT) {
        uint32_t visited = hit->nodes_visited, tested = hit->primitives_tested;
        sr_bvh_hit_clear(hit);
        hit->nodes_visited = visited;
        hit->primitives_tested = tested;
        return false;
    }
    sr_bvh_hit_finish(ray, bvh->primitive_indices[slot],
                      mode != SR_BVH_RAY_CUSTOM ? &bvh->triangles[9 * (size_t)slot] : NULL, hit);
    return true;
}

/* sr_bvh_ray_is_usable in fewer instructions, for the entry of every query: x - x is 0 for a
 * finite x and NaN otherwise, so one sum tells whether all six components are finite. With SSE
 * two overlapping loads hold the six (origin x y z, direction x; origin z, direction x y z). The
 * result only feeds a branch that is predicted, so a 16-byte load that cannot be forwarded from
 * the separate stores of a freshly made ray delays nothing that depends on it. */
static inline bool ray_is_usable(const sr_ray *ray)
{
#if defined(__SSE2__)
    _Static_assert(offsetof(sr_ray, direction) == offsetof(sr_ray, origin) + 3 * sizeof(float) &&
                       sizeof(sr_vec3) == 3 * sizeof(float),
                   "the two loads read origin and direction as six consecutive floats");
    const __m128 first = _mm_loadu_ps(&ray->origin.x), second = _mm_loadu_ps(&ray->origin.z);
    const __m128 zero = _mm_setzero_ps();
    const __m128 rounding = _mm_add_ps(_mm_sub_ps(first, first), _mm_sub_ps(second, second));
    if (_mm_movemask_ps(_mm_cmpeq_ps(rounding, zero)) != 0xf)
        return false;
    if (!(_mm_movemask_ps(_mm_cmpneq_ps(second, zero)) & 0xe)) /* direction x, y, z all zero */
        return false;
    return ray->tmin <= ray->tmax; /* false for NaN as well */
#else
    return sr_bvh_ray_is_usable(ray);
#endif
}

/* The public ray queries walk the wide tree, which fills the whole hit. (An empty tree has no
 * wide tree.) */
static bool query_ray(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode, sr_bvh_ray_primitive_fn intersect,
                      void *user, sr_bvh_hit *hit)
{
    if (!bvh || !ray || !bvh->wide || (mode == SR_BVH_RAY_CUSTOM ? !intersect : !bvh->triangles) ||
        !ray_is_usable(ray)) {
        sr_bvh_hit_clear(hit);
        return false;
    }
    return sr_bvh_query_wide(bvh, ray, mode, intersect, user, hit);
}

bool sr_bvh_query_ray(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_hit *hit)
{
    sr_bvh_hit local;
    return query_ray(bvh, ray, SR_BVH_RAY_CLOSEST, NULL, NULL, hit ? hit : &local);
}

bool sr_bvh_query_ray_any(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_hit *hit)
{
    sr_bvh_hit local;
    return query_ray(bvh, ray, SR_BVH_RAY_ANY, NULL, NULL, hit ? hit : &local);
}

bool sr_bvh_query_ray_custom(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_primitive_fn intersect, void *user,
                             sr_bvh_hit *hit)
{
    sr_bvh_hit local;
    return query_ray(bvh, ray, SR_BVH_RAY_CUSTOM, intersect, user, hit ? hit : &local);
}

/* ---- overlap queries ---- */

static sr_aabb node_box(const sr_bvh_node *node)
{
    return (sr_aabb){node->min, node->max};
}

/* The box of a slot's primitive: a triangle's is the box of its three stored vertices (the
 * same min/max a caller computes from its own positions). */
static sr_aabb slot_box(const sr_bvh *bvh, uint32_t slot)
{
    if (bvh->boxes)
        return bvh->boxes[slot];
    const float *v = &bvh->triangles[9 * (size_t)slot];
    sr_aabb box = {{v[0], v[1], v[2]}, {v[0], v[1], v[2]}};
    for (int k = 1; k < 3; k++) {
        sr_vec3 p = {v[3 * k], v[3 * k + 1], v[3 * k + 2]};
        box.min = (sr_vec3){p.x < box.min.x ? p.x : box.min.x, p.y < box.min.y ? p.y : box.min.y,
                            p.z < box.min.z ? p.z : box.min.z};
        box.max = (sr_vec3){p.x > box.max.x ? p.x : box.max.x, p.y > box.max.y ? p.y : box.max.y,
                            p.z > box.max.z ? p.z : box.max.z};
    }
    return box;
}

/* The shape an overlap query tests boxes against. */
typedef enum shape_kind { SHAPE_BOX, SHAPE_SPHERE, SHAPE_FRUSTUM } shape_kind;

typedef struct shape {
    shape_kind kind;
    sr_aabb box;
    sr_sphere sphere;
    const sr_frustum *frustum;
} shape;

static sr_containment shape_test(const shape *s, const sr_aabb *box)
{
    switch (s->kind) {
    case SHAPE_BOX:
        return sr_aabb_overlaps(s->box, *box) ? SR_INTERSECTING : SR_OUTSIDE;
    case SHAPE_SPHERE:
        return sr_aabb_sphere_overlap(*box, s->sphere) ? SR_INTERSECTING : SR_OUTSIDE;
    case SHAPE_FRUSTUM:
        return sr_frustum_test_aabb(s->frustum, box);
    }
    return SR_OUTSIDE;
}

typedef struct overlap_report {
    sr_bvh_overlap_fn overlap;
    sr_bvh_frustum_fn frustum;
    void *user;
} overlap_report;

static bool report_slot(const sr_bvh *bvh, const overlap_report *report, uint32_t slot, sr_containment containment,
                        sr_bvh_query_stats *stats)
{
    stats->primitives_reported++;
    uint32_t primitive = bvh->primitive_indices[slot];
    bool go_on = report->frustum ? report->frustum(report->user, primitive, containment)
                                 : report->overlap(report->user, primitive);
    if (!go_on)
        stats->stopped = true;
    return go_on;
}

/* Slots of a subtree are contiguous (the build partitions in place), from the first slot of
 * its leftmost leaf to the end of its rightmost leaf. */
static void subtree_slots(const sr_bvh_node *nodes, uint32_t index, uint32_t *first, uint32_t *end)
{
    uint32_t left = index, right = index;
    while (nodes[left].count == 0)
        left = nodes[left].first;
    while (nodes[right].count == 0)
        right = nodes[right].first + 1;
    *first = nodes[left].first;
    *end = nodes[right].first + nodes[right].count;
}

static sr_bvh_query_stats query_overlap(const sr_bvh *bvh, const shape *s, const overlap_report *report)
{
    sr_bvh_query_stats stats = {0};
    if (!bvh || bvh->primitive_count == 0)
        return stats;
    const sr_bvh_node *nodes = bvh->nodes;
    uint32_t stack[SR_BVH_MAX_DEPTH + 2];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        uint32_t index = stack[--top];
        const sr_bvh_node *node = &nodes[index];
        stats.nodes_visited++;
        sr_aabb box = node_box(node);
        sr_containment containment = shape_test(s, &box);
        if (containment == SR_OUTSIDE)
            continue;
        if (containment == SR_INSIDE) {
            /* Only frustums answer INSIDE: everything below is inside too, no more tests. */
            uint32_t first, end;
            subtree_slots(nodes, index, &first, &end);
            for (uint32_t slot = first; slot < end; slot++)
                if (!report_slot(bvh, report, slot, SR_INSIDE, &stats))
                    return stats;
            continue;
        }
        if (node->count == 0) {
            /* right pushed first so the left subtree is reported first (tree order) */
            stack[top++] = node->first + 1;
            stack[top++] = node->first;
            continue;
        }
        for (uint32_t slot = node->first; slot < node->first + node->count; slot++) {
            stats.primitives_tested++;
            sr_aabb primitive_box = slot_box(bvh, slot);
            sr_containment primitive = shape_test(s, &primitive_box);
            if (primitive != SR_OUTSIDE && !report_slot(bvh, report, slot, primitive, &stats))
                return stats;
        }
    }
    return stats;
}

sr_bvh_query_stats sr_bvh_query_aabb(const sr_bvh *bvh, sr_aabb box, sr_bvh_overlap_fn report, void *user)
{
    if (!report)
        return (sr_bvh_query_stats){0};
    shape s = {.kind = SHAPE_BOX, .box = box};
    return query_overlap(bvh, &s, &(overlap_report){.overlap = report, .user = user});
}

sr_bvh_query_stats sr_bvh_query_sphere(const sr_bvh *bvh, sr_sphere sphere, sr_bvh_overlap_fn report, void *user)
{
    if (!report)
        return (sr_bvh_query_stats){0};
    shape s = {.kind = SHAPE_SPHERE, .sphere = sphere};
    return query_overlap(bvh, &s, &(overlap_report){.overlap = report, .user = user});
}

sr_bvh_query_stats sr_bvh_query_frustum(const sr_bvh *bvh, const sr_frustum *frustum, sr_bvh_frustum_fn report,
                                        void *user)
{
    if (!report || !frustum)
        return (sr_bvh_query_stats){0};
    shape s = {.kind = SHAPE_FRUSTUM, .frustum = frustum};
    return query_overlap(bvh, &s, &(overlap_report){.frustum = report, .user = user});
}
