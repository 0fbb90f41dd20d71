/* softrast/bvh_dynamic.h — dynamic AABB tree for moving objects (broad phase, culling of moving
 * instances). Proxies are inserted, moved and removed one at a time; the tree stays good by
 * SAH-driven insertion and tree rotations, and can be rebuilt with a binned SAH at any time.
 * Learned from Box2D's b2DynamicTree (fat boxes, proxy ids, predictive enlargement), Bullet's
 * btDbvt (culling with fully-inside subtrees), Bittner et al. 2015 "Fast insertion-based
 * optimization of bounding volume hierarchies" (branch-and-bound insertion) and Kopta et al. 2012
 * "Fast, effective BVH updates for animated scenes" (rotations).
 * The static BVH over triangles/boxes is softrast/bvh.h. Knows nothing of raster or scene. */
#ifndef SOFTRAST_BVH_DYNAMIC_H
#define SOFTRAST_BVH_DYNAMIC_H

#include <softrast/core.h>
#include <softrast/geom.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A dynamic AABB tree. Opaque; create with sr_dynamic_tree_create, free with
/// sr_dynamic_tree_destroy. Thread-safety: queries (every function taking `const sr_dynamic_tree *`)
/// may run concurrently with each other; anything that modifies the tree (insert, remove, move,
/// reserve, rebuild) needs exclusive access. Callbacks must not modify the tree they are called from.
typedef struct sr_dynamic_tree sr_dynamic_tree;

/// Handle of a proxy (one object's box in the tree). Copy it freely. A handle becomes stale when
/// its proxy is removed; every function taking a handle detects stale, zeroed and out-of-range
/// handles (slot index + generation count) and returns an error instead of touching memory.
/// The zero handle (SR_DYNAMIC_PROXY_NULL) is never valid. Handles stay valid across moves and
/// rebuilds. (A slot's generation wraps after 2^31 removals of proxies in that slot; a handle kept
/// that long may alias a later proxy, never an internal node.)
typedef struct sr_dynamic_proxy {
    uint32_t index;      ///< slot in the tree's node pool
    uint32_t generation; ///< slot's generation when the proxy was inserted; never 0 for live proxies
} sr_dynamic_proxy;

#define SR_DYNAMIC_PROXY_NULL (SR_LITERAL(sr_dynamic_proxy){0, 0})

/// Creation parameters; zero-initialise and set only what you mean (every zero is a default).
typedef struct sr_dynamic_tree_desc {
    /// Proxies to reserve room for, so that the first inserts do not grow the pool. 0 = 64.
    int initial_capacity;
    /// Fat-box margin in world units, added on every side of the tight box given to insert/move,
    /// so that small motions do not touch the tree (Box2D's b2_aabbMargin). Absolute, not relative:
    /// pick it for the size of your objects and per-step motions. 0 = 0.1. Must be finite, >= 0.
    float margin;
    /// True: fat boxes equal the tight boxes (margin ignored); every move that changes the box
    /// reinserts the proxy. For trees of static objects, or to test exact boxes.
    bool no_margin;
    /// Predictive enlargement: on a move that reinserts the proxy, the fat box is also extended by
    /// displacement * displacement_multiplier towards the displacement (Box2D's b2_aabbMultiplier).
    /// Dimensionless. 0 = 4. Must be finite, >= 0.
    float displacement_multiplier;
    /// How an insert (and a move that reinserts) picks the new leaf's sibling, both by the surface
    /// area heuristic. false (default): greedy descent, as Box2D v3 does: from the root, weigh
    /// both children as siblings and go on into the one whose subtree grows least, until no
    /// child can beat the best sibling seen. true: the exact optimum (Bittner et al.'s branch and
    /// bound), which also searches the subtrees the descent passed by. Measured on 100,000
    /// game-sized boxes (README): exact insertion gives a ~7% lower SAH cost and costs ~1.5x the
    /// insertion time; culls and moves were no faster for it.
    bool exact_insertion;
} sr_dynamic_tree_desc;

/// Creates an empty tree. `desc` may be NULL (all defaults). On success *out_tree owns a tree to
/// free with sr_dynamic_tree_destroy; on failure *out_tree is NULL and the status says why
/// (SR_ERROR_INVALID_ARGUMENT for NULL out_tree or bad desc values, SR_ERROR_OUT_OF_MEMORY).
sr_status sr_dynamic_tree_create(const sr_dynamic_tree_desc *desc, sr_dynamic_tree **out_tree, sr_error *err);

/// Frees the tree and its node pool. NULL is a no-op. Handles into it become meaningless.
void sr_dynamic_tree_destroy(sr_dynamic_tree *tree);

/// Grows the node pool so that `proxy_count` proxies fit without further allocation. Call it
/// between frames; inserts grow the pool themselves when needed (doubling). Never shrinks.
sr_status sr_dynamic_tree_reserve(sr_dynamic_tree *tree, int proxy_count, sr_error *err);

/// Inserts a proxy with the tight box `box` (min <= max per axis, finite) and the caller's
/// `user_data` (an index or a pointer cast to uintptr_t; given back to callbacks). The stored fat
/// box is `box` expanded by the margin. Writes the new handle to *out_proxy.
/// Errors: SR_ERROR_INVALID_ARGUMENT (NULL tree/out_proxy, NaN/infinite/inverted box),
/// SR_ERROR_OUT_OF_MEMORY (the pool could not grow; the tree is unchanged). O(log n) typical.
sr_status sr_dynamic_tree_insert(sr_dynamic_tree *tree, sr_aabb box, uint64_t user_data, sr_dynamic_proxy *out_proxy,
                                 sr_error *err);

/// Removes a proxy; its handle (and every copy of it) becomes stale. Never allocates.
/// Errors: SR_ERROR_INVALID_ARGUMENT for a NULL tree or a stale/invalid handle (tree unchanged).
sr_status sr_dynamic_tree_remove(sr_dynamic_tree *tree, sr_dynamic_proxy proxy, sr_error *err);

/// Tells the tree that the proxy's tight box is now `box`. `displacement` is the object's motion
/// (e.g. since the last move, or expected until the next one; zero vector = no prediction).
/// Rule (Box2D v2.4's MoveProxy): with fat = box expanded by the margin, then extended by
/// displacement * displacement_multiplier towards the displacement, the tree is left alone when
/// the stored fat box contains `box` and is itself contained in fat expanded by 4 * margin on every
/// side (not needlessly large); otherwise the stored fat box becomes `fat` and the proxy is
/// reinserted (removal + SAH insertion + rotations). *out_changed (may be NULL) tells whether the
/// tree changed. Never allocates. Errors: SR_ERROR_INVALID_ARGUMENT (NULL tree, stale/invalid
/// handle, NaN/infinite/inverted box, non-finite displacement); the tree is then unchanged.
sr_status sr_dynamic_tree_move(sr_dynamic_tree *tree, sr_dynamic_proxy proxy, sr_aabb box, sr_vec3 displacement,
                               bool *out_changed, sr_error *err);

/// True when `proxy` refers to a live proxy of `tree` (false for NULL tree and stale handles).
bool sr_dynamic_tree_proxy_is_valid(const sr_dynamic_tree *tree, sr_dynamic_proxy proxy);

/// Reads a live proxy's stored fat box and user data (either output may be NULL).
/// Errors: SR_ERROR_INVALID_ARGUMENT for a NULL tree or a stale/invalid handle.
sr_status sr_dynamic_tree_get(const sr_dynamic_tree *tree, sr_dynamic_proxy proxy, sr_aabb *out_fat_box,
                              uint64_t *out_user_data, sr_error *err);

/* ---- queries: read-only, reentrant; callbacks must not modify the tree ---- */

/// What a query did. `status` is SR_OK, SR_ERROR_INVALID_ARGUMENT (NULL tree or callback, NaN
/// query shape; nothing visited) or SR_ERROR_OUT_OF_MEMORY (a tree taller than the query's fixed
/// stack of 256 levels needs one allocation of height + 2 entries, and it failed; nothing visited).
typedef struct sr_dynamic_tree_query_stats {
    sr_status status;
    int nodes_visited;    ///< nodes whose box was tested or that were walked as part of an inside subtree
    int proxies_reported; ///< callback invocations
    bool stopped;         ///< the callback asked to stop
} sr_dynamic_tree_query_stats;

/// Called for each proxy whose fat box overlaps the query shape; return false to stop the query.
typedef bool (*sr_dynamic_tree_overlap_fn)(void *user, sr_dynamic_proxy proxy, uint64_t user_data);

/// Called for each proxy whose fat box the ray enters within [ray->tmin, ray->tmax], in roughly
/// front-to-back order; `ray` is the query ray with tmax clipped to the current value. Returns the
/// new tmax: a value >= ray->tmax continues unchanged, a smaller one clips the ray (proxies whose
/// boxes are entered later are skipped), and 0 (any value <= ray->tmin, or NaN) stops the query
/// (b2DynamicTree_RayCast's contract). The first rule wins where they meet: on a ray with tmin ==
/// tmax, returning ray->tmax goes on (return NaN to stop). A closest-hit search returns its hit t,
/// or ray->tmax on a miss.
typedef float (*sr_dynamic_tree_ray_fn)(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data);

/// Called for each proxy whose fat box is not wholly outside one frustum plane. `containment` is
/// SR_INSIDE when the box is inside all six planes (proxies under a subtree found inside are
/// accepted wholesale, without further tests) and SR_INTERSECTING otherwise. Return false to stop.
typedef bool (*sr_dynamic_tree_frustum_fn)(void *user, sr_dynamic_proxy proxy, uint64_t user_data,
                                           sr_containment containment);

/// Proxies whose fat box overlaps `box` (closed boxes: touching counts; infinite bounds are fine,
/// NaN is refused).
sr_dynamic_tree_query_stats sr_dynamic_tree_query_aabb(const sr_dynamic_tree *tree, sr_aabb box,
                                                       sr_dynamic_tree_overlap_fn fn, void *user, sr_error *err);

/// Proxies whose fat box overlaps the closed ball `sphere` (radius >= 0), decided per proxy exactly
/// as sr_aabb_sphere_overlap decides it (in float: squared distances of subnormal size underflow
/// to 0, so at that scale a box just outside the ball may be reported).
sr_dynamic_tree_query_stats sr_dynamic_tree_query_sphere(const sr_dynamic_tree *tree, sr_sphere sphere,
                                                         sr_dynamic_tree_overlap_fn fn, void *user, sr_error *err);

/// Ray cast (see sr_dynamic_tree_ray_fn). Boxes are tested with sr_ray_aabb (geom.h), so its
/// boundary rules hold: closed boxes, touching, grazing and in-face rays report the box. The
/// direction need not be unit length and may have zero components; inv_direction is recomputed
/// here. Requires a finite origin and direction and tmin <= tmax (tmax may be +infinity): a ray
/// that sr_ray_make poisoned (NaN tmin/tmax) is refused with SR_ERROR_INVALID_ARGUMENT.
sr_dynamic_tree_query_stats sr_dynamic_tree_ray_cast(const sr_dynamic_tree *tree, const sr_ray *ray,
                                                     sr_dynamic_tree_ray_fn fn, void *user, sr_error *err);

/// Frustum culling (see sr_dynamic_tree_frustum_fn). Each proxy is classified exactly as
/// sr_frustum_test_aabb classifies its fat box (the same corner tests and roundings; where products
/// of normals and coordinates overflow float, subtrees are kept rather than culled): rejected only
/// when wholly on the negative side of one plane (corners on a plane count as inside it).
/// Planes must be finite; they need not be normalised. Proxies come in no particular order
/// (subtrees found inside are walked breadth-first to prefetch their nodes).
sr_dynamic_tree_query_stats sr_dynamic_tree_query_frustum(const sr_dynamic_tree *tree, const sr_frustum *frustum,
                                                          sr_dynamic_tree_frustum_fn fn, void *user, sr_error *err);

/// One node as seen by sr_dynamic_tree_visit_nodes (for debug drawing and tests).
typedef struct sr_dynamic_tree_node_info {
    sr_aabb box; ///< fat box for leaves, union of the children for interior nodes
    int depth;   ///< 0 for the root
    int height;  ///< 0 for leaves, 1 + the children's maximum otherwise
    bool is_leaf;
    sr_dynamic_proxy proxy; ///< leaves only (SR_DYNAMIC_PROXY_NULL otherwise)
    uint64_t user_data;     ///< leaves only
} sr_dynamic_tree_node_info;

/// Called per node in depth-first pre-order; return false to stop.
typedef bool (*sr_dynamic_tree_node_fn)(void *user, const sr_dynamic_tree_node_info *node);

/// Walks every node of the tree (depth first, parent before children).
sr_dynamic_tree_query_stats sr_dynamic_tree_visit_nodes(const sr_dynamic_tree *tree, sr_dynamic_tree_node_fn fn,
                                                        void *user, sr_error *err);

/* ---- maintenance and statistics ---- */

/// Counters of the tree, computed on demand (O(node count) for the SAH cost).
typedef struct sr_dynamic_tree_stats {
    int proxy_count;   ///< live proxies (leaves)
    int node_count;    ///< nodes in the tree: 2 * proxy_count - 1 (0 when empty)
    int node_capacity; ///< nodes the pool holds without growing
    int height;        ///< height of the root: 0 for a single leaf (and for an empty tree)
    /// Surface-area-heuristic cost with unit traversal and intersection costs (MacDonald & Booth):
    /// sum over interior nodes of SA(n)/SA(root) + sum over leaves of SA(n)/SA(root) * 1 — i.e. the
    /// expected number of nodes a random ray hitting the root visits. The root counts 1. 0 when
    /// empty; when SA(root) is 0 (a tree of flat/point boxes) every node counts 1.
    double sah_cost;
} sr_dynamic_tree_stats;

/// Fills the statistics (all zero for a NULL tree).
sr_dynamic_tree_stats sr_dynamic_tree_get_stats(const sr_dynamic_tree *tree);

/// Checks every invariant: the root has no parent, every child's parent link points back, no node
/// is reached twice, interior boxes equal the union of their children's, heights are
/// 1 + max(children), leaves have live generations, leaf count and free list agree with the pool.
/// Returns SR_OK or SR_ERROR_INVALID_ARGUMENT with a message naming the first broken node. O(n);
/// never allocates (a stackless walk), so it also works while the allocator fails.
sr_status sr_dynamic_tree_validate(const sr_dynamic_tree *tree, sr_error *err);

/// Rebuilds all interior nodes top-down with a binned SAH over the leaves' fat boxes (16 bins on
/// the axis of largest centroid extent per node, fewer for small nodes). Leaves, handles and user
/// data are unchanged. Needs temporary memory (60 bytes per proxy); on SR_ERROR_OUT_OF_MEMORY the
/// tree is unchanged. O(n log n); deterministic (same proxies and boxes, same tree).
sr_status sr_dynamic_tree_rebuild(sr_dynamic_tree *tree, sr_error *err);

#ifdef __cplusplus
}
#endif
#endif
