/* softrast/bvh.h — the static bounding volume hierarchy: a binned-SAH build over triangles or
 * boxes into a flat array of 32-byte nodes, collapsed into a private 8-wide tree with leaves of
 * 4-triangle packs for the ray queries; closest-hit and any-hit ray queries for one ray or a
 * packet of up to 16, and box, sphere and frustum overlap queries with callbacks.
 * Stands on geom (rays, boxes, frustums); knows nothing of raster or scene: meshes come in as
 * plain arrays. (The dynamic tree of moving boxes is softrast/bvh_dynamic.h.) */
#ifndef SOFTRAST_BVH_H
#define SOFTRAST_BVH_H

#include <softrast/core.h>
#include <softrast/geom.h>
#include <softrast/math.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Primitive index reported when nothing was hit.
#define SR_BVH_NO_HIT 0xffffffffu

/// Deepest level a tree can have (the root is depth 0). The build never goes deeper (it switches
/// to median splits near this depth), so a query's traversal stack of SR_BVH_MAX_DEPTH entries
/// never overflows.
#define SR_BVH_MAX_DEPTH 64

/// One node of the flat node array, 32 bytes (DESIGN.md). Interior node: `count` is 0 and its
/// children are nodes `first` and `first + 1`. Leaf: primitive slots `first` .. `first + count - 1`
/// (see sr_bvh.primitive_indices). Node 0 is the root.
typedef struct sr_bvh_node {
    sr_vec3 min;
    uint32_t first; ///< interior: index of the left child; leaf: first primitive slot
    sr_vec3 max;
    uint32_t count; ///< number of primitives in a leaf; 0 for interior nodes
} sr_bvh_node;

#ifdef __cplusplus
static_assert(sizeof(sr_bvh_node) == 32, "BVH nodes are 32 bytes (DESIGN.md)");
#else
_Static_assert(sizeof(sr_bvh_node) == 32, "BVH nodes are 32 bytes (DESIGN.md)");
#endif

/// How interior nodes choose their split. 0 is the default (SAH).
typedef enum sr_bvh_split {
    SR_BVH_SPLIT_DEFAULT = 0, ///< SR_BVH_SPLIT_SAH
    SR_BVH_SPLIT_SAH,         ///< binned surface area heuristic with SAH termination
    SR_BVH_SPLIT_MEDIAN,      ///< object median along the longest centroid axis; leaves of max_leaf_size
} sr_bvh_split;

/// Build options; zero in any field means its default (so a zeroed desc or NULL is fine).
typedef struct sr_bvh_desc {
    sr_bvh_split split;
    int bin_count;     ///< SAH bins per axis, 2..256; default SR_BVH_DEFAULT_BIN_COUNT
    int max_leaf_size; ///< a node with more primitives is always split, 1..255; default 8
    /// Cost of visiting an interior node relative to one primitive test (SAH termination: a node
    /// becomes a leaf when every split costs more than testing all its primitives); default 1.
    /// Triangle trees test a leaf's triangles 4 at a time, so their SAH counts triangles in
    /// blocks of 4 (a leaf of 1 to 4 triangles costs one test, of 5 to 8 two); box trees count
    /// primitives one by one.
    float traversal_cost;
} sr_bvh_desc;

/// Default bin count of the SAH build, chosen by measurement on bunny, dragon_res3 and a 1M
/// triangle sphere: see the comment at its use in bvh_build.c.
#define SR_BVH_DEFAULT_BIN_COUNT 16

/// Triangle input: caller memory, read during the build only (the tree keeps its own copy).
typedef struct sr_bvh_triangles {
    const float *positions;  ///< vertex i starts at (const char *)positions + i * position_stride
    size_t position_stride;  ///< bytes between vertices; 0 means 3 * sizeof(float) (packed xyz)
    size_t vertex_count;     ///< number of vertices (indices are checked against it)
    const uint32_t *indices; ///< triangle i uses indices[3i..3i+2]; NULL: vertices 3i, 3i+1, 3i+2
    size_t triangle_count;
} sr_bvh_triangles;

/// Statistics of a built tree (filled by the build).
typedef struct sr_bvh_stats {
    size_t node_count; ///< nodes reachable from the root (the padding node 1 not counted)
    size_t leaf_count;
    int max_depth;          ///< depth of the deepest leaf; the root alone is depth 0
    size_t primitive_count; ///< primitives in the tree
    size_t skipped_count;   ///< primitives left out (non-finite positions, empty or non-finite boxes)
    /// The benchmark scene (README): sum over interior nodes of SA(n)/SA(root) plus sum over leaves of
    /// SA(n)/SA(root) * primitives. When SA(root) is 0 every ratio is taken as 1.
    double sah_cost;
    size_t wide_node_count; ///< nodes of the wide tree the ray queries walk
    size_t pack_count;      ///< its leaf packs of 4 triangles (box trees: 0)
    /// Bytes the tree holds: binary nodes, slot indices, the triangles' vertices or the boxes,
    /// and the wide tree (nodes and packs); not the sr_bvh struct itself.
    size_t bytes;
} sr_bvh_stats;

/// A built tree. Every field is read-only for the caller (the debug renderer draws `nodes`).
/// Free with sr_bvh_destroy. A const tree is immutable: every query is thread-safe on it.
typedef struct sr_bvh {
    /// `node_count` nodes, 64-byte aligned. Node 1 is never used (an empty leaf with an empty
    /// box) so that every sibling pair (2k, 2k+1) shares one cache line; a tree of one leaf has
    /// node_count 1.
    sr_bvh_node *nodes;
    size_t node_count;
    /// Per primitive slot (leaf order): the primitive's index in the caller's numbering (the
    /// triangle number of the input, or the box number).
    uint32_t *primitive_indices;
    size_t primitive_count;
    /// Triangle trees: per slot the three vertices, 9 floats (x0 y0 z0 x1 y1 z1 x2 y2 z2) in leaf
    /// order, so that a leaf's triangles are contiguous in memory. NULL for box trees.
    float *triangles;
    /// Box trees: per slot the primitive's box. NULL for triangle trees.
    sr_aabb *boxes;
    sr_bvh_stats stats;
    void *allocation; ///< private: the block `nodes` lives in
    /// Private: the wide tree the ray queries walk, built from `nodes` by the build (8 children
    /// per node, each child a node of `nodes`; leaves hold the triangles again as packs of 4
    /// in SIMD order). NULL for an empty tree.
    struct sr_bvh_wide *wide;
} sr_bvh;

/// Builds a tree over triangles. Triangles with a non-finite vertex are left out (they can
/// never be hit) and counted in stats.skipped_count. Degenerate (zero-area) triangles are kept
/// and behave in queries exactly as sr_ray_triangle treats them: its watertight test may hit a
/// collinear triangle where it closes a gap (a vertex lying on its neighbour's edge), so
/// dropping them could let rays through a closed mesh. Zero triangles give a valid
/// empty tree whose queries report nothing. Errors: NULL arguments, an index >= vertex_count
/// (naming the triangle), more than 2^31 - 1 triangles, bad desc values, out of memory.
/// Deterministic: the same input and desc give byte-identical arrays. `*out` is NULL on failure.
/// Memory: one block for the tree, a scratch array, and the wide tree's nodes and packs, all
/// through sr_alloc; on Linux, blocks of 4 MiB and more get madvise(MADV_HUGEPAGE) (advice
/// only) because large trees are walked at random. Per triangle, the tree holds its 32-byte
/// binary nodes (about 1.05), its slot index (4 bytes) and vertices (36 bytes), and the wide
/// tree: about 0.09 nodes of 256 bytes and 0.32 packs of 160 bytes, 69-86 bytes (141-163 bytes
/// per triangle with the rest) on the shared and benchmark meshes; stats.bytes has the total. Single-threaded; builds of
/// different trees may run on different threads at once.
sr_status sr_bvh_build_triangles(const sr_bvh_desc *desc, const sr_bvh_triangles *triangles, sr_bvh **out,
                                 sr_error *err);

/// Builds a tree over `count` boxes (box i is primitive i). Boxes that are empty (min > max on
/// an axis) or not finite are left out and counted in stats.skipped_count. Errors and
/// determinism as sr_bvh_build_triangles.
sr_status sr_bvh_build_boxes(const sr_bvh_desc *desc, const sr_aabb *boxes, size_t count, sr_bvh **out, sr_error *err);

/// Frees a tree (NULL is fine).
void sr_bvh_destroy(sr_bvh *bvh);

/* ---- ray queries ---- */

/// Result of a ray query.
typedef struct sr_bvh_hit {
    uint32_t primitive; ///< caller's numbering; SR_BVH_NO_HIT on a miss
    float t;            ///< along the ray, in units of |direction|; +infinity on a miss
    float u, v;         ///< barycentric weights of the second and third vertex (triangles)
    sr_vec3 point;      ///< origin + t * direction
    /// Geometric normal: unit length along (v1 - v0) x (v2 - v0); (0, 0, 0) for a zero-area
    /// triangle (which sr_ray_triangle can hit where it fills a crack between its neighbours).
    sr_vec3 normal;
    /// Boxes tested (for the debug heat map): the root's box, then, as the ray queries walk the
    /// wide tree, the children's boxes (up to 8, each a node of `sr_bvh.nodes`, tested at once)
    /// of every wide node the ray enters. A ray missing the root's box counts 1.
    uint32_t nodes_visited;
    uint32_t primitives_tested; ///< primitives intersected (triangles of the leaves reached)
} sr_bvh_hit;

/// Closest hit of a triangle tree in [ray->tmin, ray->tmax] (two-sided, as sr_ray_triangle and
/// with its watertightness rule). Returns true on a hit. `hit` is always filled (a miss has
/// primitive SR_BVH_NO_HIT and t = +infinity). A box tree or an empty tree reports no hit. Rays
/// with NaN components or a zero direction hit nothing. `ray` must be made by sr_ray_make (the
/// triangle test reads its ray-space fields). Thread-safe on a const tree. The hit is exactly
/// the brute-force closest hit over sr_ray_triangle for every ray: the same hit or miss and the
/// same t bit for bit, and of triangles hit at that very t (a ray through a shared edge or
/// vertex) the one with the smallest number, whatever the shape of the tree. Node boxes are
/// tested with a margin that covers the rounding of sr_ray_triangle's t (see bvh_query.c), so a
/// ray grazing or lying in a face is no exception.
bool sr_bvh_query_ray(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_hit *hit);

/// Most rays sr_bvh_query_ray_packet takes at once.
#define SR_BVH_PACKET_MAX 16

/// Closest hits of `count` rays (0..SR_BVH_PACKET_MAX) at once: hits[i] is exactly what
/// sr_bvh_query_ray(bvh, &rays[i], &hits[i]) gives (t, primitive, u, v, point, normal), except
/// for the counters, which count the work of the packet (nodes_visited: the boxes tested for
/// that ray, primitives_tested: the triangles tested for it). Fastest for coherent rays (e.g.
/// primary rays through a 4x2 or 4x4 block of pixels), which mostly enter the same nodes: those
/// are tested for all rays together. Returns the number of rays that hit. Thread-safe on a
/// const tree; `rays` and `hits` must not overlap.
int sr_bvh_query_ray_packet(const sr_bvh *bvh, const sr_ray *rays, int count, sr_bvh_hit *hits);

/// Any hit (occlusion) of a triangle tree: stops at the first triangle hit in
/// [ray->tmin, ray->tmax]; `hit` (may be NULL) gets that triangle's t, u, v. Hits exactly when
/// brute force over sr_ray_triangle hits. Thread-safe.
bool sr_bvh_query_ray_any(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_hit *hit);

/// Intersects one primitive for sr_bvh_query_ray_custom. `ray->tmax` is the closest t found so
/// far. On a hit at a t in [ray->tmin, ray->tmax] it writes hit->t (and, if it has them, u, v
/// and normal) and returns true. Of hits at equal t the query keeps the smallest primitive
/// number, so the answer does not depend on the order of the calls. (A test built on
/// sr_ray_aabb should run it with the query's own tmax and compare its t with ray->tmax: once
/// the closest t is -inf, a box entered at -inf, sr_ray_aabb on `ray` refuses every box.)
typedef bool (*sr_bvh_ray_primitive_fn)(void *user, uint32_t primitive, const sr_ray *ray, sr_bvh_hit *hit);

/// Closest hit over any tree (box or triangle) with a caller's primitive test, called for each
/// primitive whose leaf the ray reaches. The query fills primitive, point and the counters.
/// Thread-safe if `intersect` is.
bool sr_bvh_query_ray_custom(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_primitive_fn intersect, void *user,
                             sr_bvh_hit *hit);

/* ---- overlap queries ---- */

/// Counters of an overlap query.
typedef struct sr_bvh_query_stats {
    uint32_t nodes_visited;       ///< nodes whose box was tested (or accepted wholesale)
    uint32_t primitives_tested;   ///< primitive boxes tested
    uint32_t primitives_reported; ///< callback calls
    bool stopped;                 ///< the callback returned false
} sr_bvh_query_stats;

/// Called for each primitive found by an overlap query; return false to stop the query.
typedef bool (*sr_bvh_overlap_fn)(void *user, uint32_t primitive);

/// Reports every primitive whose box (a triangle's box is the box of its three vertices)
/// overlaps `box` (closed boxes: touching counts, as sr_aabb_overlaps), once each, in tree order.
/// Thread-safe if `report` is.
sr_bvh_query_stats sr_bvh_query_aabb(const sr_bvh *bvh, sr_aabb box, sr_bvh_overlap_fn report, void *user);

/// Reports every primitive whose box overlaps `sphere` (sr_aabb_sphere_overlap), once each.
sr_bvh_query_stats sr_bvh_query_sphere(const sr_bvh *bvh, sr_sphere sphere, sr_bvh_overlap_fn report, void *user);

/// Called for each primitive found by a frustum query, with SR_INSIDE or SR_INTERSECTING;
/// return false to stop the query.
typedef bool (*sr_bvh_frustum_fn)(void *user, uint32_t primitive, sr_containment containment);

/// Reports exactly the primitives whose box is not SR_OUTSIDE by sr_frustum_test_aabb, once
/// each, with `containment` equal to that test's result. A subtree whose node box is SR_INSIDE
/// is accepted wholesale: its primitives are reported as SR_INSIDE without testing their boxes
/// (a box inside a box inside the frustum is inside). Thread-safe if `report` is.
sr_bvh_query_stats sr_bvh_query_frustum(const sr_bvh *bvh, const sr_frustum *frustum, sr_bvh_frustum_fn report,
                                        void *user);

#ifdef __cplusplus
}
#endif
#endif
