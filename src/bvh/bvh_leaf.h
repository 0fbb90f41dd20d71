/* src/bvh/bvh_leaf.h — private to src/bvh/: the leaves of the wide tree as the ray traversals
 * reach them (bvh_leaf.c): the per-ray state of a query, the triangle test's constants and the
 * leaf tests. Shared by the single-ray traversal (bvh_query_wide.c) and the packet traversal
 * (bvh_query_packet.c), which call the leaf tests out of line. Knows nothing of raster or scene. */
#ifndef SR_BVH_LEAF_H
#define SR_BVH_LEAF_H

/* The traversal kernels (bvh_query_wide.c, bvh_query_packet.c and bvh_leaf.c, which define
 * SR_BVH_KERNEL) are compiled more than once: as the tests' portable copy (SR_BVH_PORTABLE,
 * tests/meson.build) and, in builds that dispatch at run time (meson.build), once per wider
 * instruction set (SR_ISA_VARIANT: avx2, avx512) beside the build's own copy (base). Each copy
 * gets its own names, so that they link side by side; bvh_dispatch.c's sr_bvh_query_wide,
 * sr_bvh_query_ray_packet and sr_bvh_pack_filter call the copy for sr_isa_active(). */
#define SR_BVH_PASTE_(name, suffix) name##_##suffix
#define SR_BVH_PASTE(name, suffix) SR_BVH_PASTE_(name, suffix)
#if defined(SR_BVH_PORTABLE)
#define SR_BVH_KERNEL_NAME(name) name##_portable
#elif defined(SR_ISA_VARIANT)
#define SR_BVH_KERNEL_NAME(name) SR_BVH_PASTE(name, SR_ISA_VARIANT)
#elif defined(SR_ISA_DISPATCH) && defined(SR_BVH_KERNEL)
#define SR_BVH_KERNEL_NAME(name) name##_base
#endif
#if defined(SR_BVH_KERNEL_NAME)
#define sr_bvh_query_wide SR_BVH_KERNEL_NAME(sr_bvh_query_wide)
#define sr_bvh_query_ray_packet SR_BVH_KERNEL_NAME(sr_bvh_query_ray_packet)
#define sr_bvh_pack_filter SR_BVH_KERNEL_NAME(sr_bvh_pack_filter)
#define sr_bvh_packet_filter SR_BVH_KERNEL_NAME(sr_bvh_packet_filter)
#define sr_bvh_leaf_query_start SR_BVH_KERNEL_NAME(sr_bvh_leaf_query_start)
#define sr_bvh_leaf_query_finish SR_BVH_KERNEL_NAME(sr_bvh_leaf_query_finish)
#define sr_bvh_leaf_closest SR_BVH_KERNEL_NAME(sr_bvh_leaf_closest)
#define sr_bvh_leaf_any SR_BVH_KERNEL_NAME(sr_bvh_leaf_any)
#define sr_bvh_leaf_custom SR_BVH_KERNEL_NAME(sr_bvh_leaf_custom)
#define sr_bvh_wide_traverse_subtree SR_BVH_KERNEL_NAME(sr_bvh_wide_traverse_subtree)
#endif

#include "bvh_internal.h"
#include "bvh_simd.h"

/* Per-ray constants of the leaf test (bvh_leaf.c, pack_edge_test). */
typedef struct pack_ray {
    /* byte offsets in a vertex of a pack (sr_triangle_pack.v[k]) of coordinates axis_x, axis_y, axis_z */
    size_t offset_x, offset_y, offset_z;
    f4 origin_x, origin_y, origin_z; /* origin[axis_x], origin[axis_y], origin[axis_z] */
    f4 shear_x, shear_y;
} pack_ray;

/* The state of one query that the leaf tests share with a traversal: the ray (tmax shrinks to
 * the closest hit), the per-ray constants of the triangle tests, the best hit so far and the
 * counters. The leaf tests run out of line and a traversal keeps its box test's constants to
 * itself, so that its node loop keeps them in registers (one function holding both made the
 * compiler shuffle spilled constants between stack slots at every leaf). */
typedef struct sr_bvh_leaf_query {
    const sr_ray *ray;
    float tmax; /* the ray's tmax, then the closest hit's t */
    pack_ray leaf_ray;
    bool leaf_rays_made; /* leaf_ray and axis_order are made at the first leaf: most primary rays miss */
    int axis_order;
    const sr_bvh *bvh;
    sr_bvh_hit *hit;         /* t, u, v of the best hit so far */
    uint32_t best_primitive; /* SR_BVH_NO_HIT before the first hit */
    const sr_triangle_pack *best_pack;
    unsigned best_lane;
    uint32_t tested;
    sr_bvh_ray_primitive_fn intersect;
    void *user;
    /// The normal of each hit kept is computed at once (sr_bvh_leaf_query_keep) rather than at
    /// the end of the query: its square root and divisions then overlap the rest of the
    /// traversal instead of lengthening the ray's last steps (5% of the time of a hit ray on
    /// the bunny). The packets, which compute their rays' normals together at the end, clear it.
    bool normal_at_keep;
} sr_bvh_leaf_query;

/// Keeps a hit of lane `lane` of `pack` (primitive `primitive`) as the query's best (and its
/// normal, with q->normal_at_keep).
static inline void sr_bvh_leaf_query_keep(sr_bvh_leaf_query *q, const sr_triangle_pack *pack, unsigned lane,
                                          uint32_t primitive, const sr_triangle_hit *hit)
{
    q->tmax = hit->t;
    q->hit->t = hit->t;
    q->hit->u = hit->u;
    q->hit->v = hit->v;
    q->best_primitive = primitive;
    q->best_pack = pack;
    q->best_lane = lane;
    if (q->normal_at_keep) {
        float v[9];
        for (int k = 0; k < 3; k++)
            for (int axis = 0; axis < 3; axis++)
                v[3 * k + axis] = pack->v[k][axis][lane];
        q->hit->normal = sr_bvh_hit_normal(v);
    }
}

/// The single-ray closest-hit traversal (bvh_query_wide.c) of the subtree at `ref`, a wide node,
/// for a query under way (its best hit and tmax are kept and updated): the packet traversal hands
/// it the rays that are left alone in a subtree. The ray must take the box test's short path
/// (sr_bvh_ray_is_fast). Returns the boxes tested.
uint32_t sr_bvh_wide_traverse_subtree(sr_bvh_leaf_query *q, uint32_t ref);

/// Starts a query of `ray` (usable: sr_bvh_ray_is_usable) over `bvh` (not empty) into `hit`
/// (whose fields are written as the query goes and completed by sr_bvh_leaf_query_finish).
/// Inline: a call here cost the traversal a save and reload of its set-up around it.
static inline void sr_bvh_leaf_query_start(sr_bvh_leaf_query *q, const sr_bvh *bvh, const sr_ray *ray,
                                           sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *hit)
{
    q->ray = ray;
    q->tmax = ray->tmax;
    q->leaf_rays_made = false;
    q->bvh = bvh;
    q->hit = hit;
    q->best_primitive = SR_BVH_NO_HIT;
    q->best_pack = NULL;
    q->best_lane = 0;
    q->tested = 0;
    q->intersect = intersect;
    q->user = user;
    q->normal_at_keep = true;
}
/// Fills in the hit at the end of a query (primitive, point, normal, the counters with
/// `nodes_visited`; a miss: sr_bvh_hit_clear's fields); returns whether something was hit.
bool sr_bvh_leaf_query_finish(sr_bvh_leaf_query *q, sr_bvh_ray_mode mode, uint32_t nodes_visited);

/// The leaf `ref` (a leaf reference of a wide node) for a closest-hit, any-hit or custom query:
/// its primitives tested, the best hit and q->tmax updated. Returns true when the query has its
/// answer (any hit).
bool sr_bvh_leaf_closest(sr_bvh_leaf_query *q, uint32_t ref);
bool sr_bvh_leaf_any(sr_bvh_leaf_query *q, uint32_t ref);
bool sr_bvh_leaf_custom(sr_bvh_leaf_query *q, uint32_t ref);

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

#endif
