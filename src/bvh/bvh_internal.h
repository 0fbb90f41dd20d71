/* src/bvh/bvh_internal.h — private to src/bvh/: the wide tree that the ray queries walk (built
 * by bvh_wide.c after the binary build, walked by bvh_query_wide.c and bvh_query_packet.c), the
 * exact leaf triangle test and the hit rules that every ray traversal shares, and the binary
 * traversal kept for comparisons (tests/test_bvh_wide.c, tests/fuzz/fuzz_bvh.c). Never installed.
 *
 * The wide tree is the binary SAH tree collapsed into nodes of up to 8 children (Wald, Benthin
 * & Boulos, "Getting rid of packets", 2008; Embree's BVH8): every child box of a node is tested
 * in one 8-lane slab test, the children hit are visited nearest first. Its leaves are packs of
 * 4 triangles in SoA order, tested 4 at a time by a float filter that is exact for the answers:
 * it only ever rejects a triangle that sr_ray_triangle's double-precision edge functions reject
 * too, and every other triangle goes through the very test of sr_ray_triangle (see
 * bvh_leaf.c for the proof). The binary `sr_bvh.nodes` stays as it is (the debug renderer
 * draws it, the overlap queries walk it). Knows nothing of raster or scene. */
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

/* ---- the wide tree ---- */

/// Children per wide node; fixed whatever the instruction set, so that every build walks the
/// same tree in the same order (AVX tests the 8 boxes in one register, SSE in two, the portable
/// path lane by lane, with the same IEEE operations per lane).
#define SR_WIDE_WIDTH 8
/// Triangles per leaf pack, and its log2.
#define SR_PACK_WIDTH 4
#define SR_PACK_SHIFT 2
_Static_assert(1 << SR_PACK_SHIFT == SR_PACK_WIDTH, "SR_PACK_SHIFT is log2 of SR_PACK_WIDTH");
/// The wide tree is one array of 32-byte units holding nodes (8 units) and, right after each
/// node, the packs (5 units each) of its leaf children, so that a leaf is read from memory
/// next to its parent. Nodes start on 64-byte boundaries.
#define SR_WIDE_UNIT 32
/// Set in a child reference that is a leaf. Triangle trees: the rest is the unit of the leaf's
/// first pack. Box trees: the index of the binary leaf node (sr_bvh.nodes) whose slots the leaf
/// holds. Without it, a reference is the unit of a wide node.
#define SR_WIDE_LEAF 0x80000000u
/// Set in sr_triangle_pack.primitive: in lane 0, "the leaf's next pack follows this one"; in
/// lanes 1..3, "padding: a copy of the pack's last real triangle". Primitive numbers are below
/// 2^31 (the build refuses more).
#define SR_PACK_FLAG 0x80000000u

/// One node of the wide tree: 256 bytes. Child i's box is [bounds[0][i], bounds[1][i]] x
/// [bounds[2][i], bounds[3][i]] x [bounds[4][i], bounds[5][i]] (min x, max x, min y, max y,
/// min z, max z): the box of a node of the binary tree. Slots from the child count on are
/// empty: box +inf / -inf, which every slab test misses unless the ray's grown origin overflowed
/// to infinity (inf - inf is NaN); the traversals only look at the first `count` slots.
///
/// Why the boxes stay floats (measured on 2026-12-05 with a full implementation, not kept):
/// 128-byte nodes with 8-bit child faces on a per-node power-of-two grid (Ylitie, Karras & Laine,
/// HPG 2017), rounded outward and decoded exactly (an integer add, a conversion, a product by
/// 2^e: the same floats on every instruction set, the answers bit for bit as here), made single
/// rays 14-16% slower on bunny, dragon_res3 and sphere_871414 alike (AMD EPYC, AVX-512). The four
/// cache lines of a node are fetched in parallel, so two lines do not shorten the wait for a
/// node, while the decoding adds about 9 cycles to every node's dependent chain (and the looser
/// boxes 2.6% more boxes tested); the wide tree only shrank by 12%, from 55 to 48 bytes per
/// triangle.
///
/// `order` gives the order in which the children hit by a ray are pushed on the traversal
/// stack, farthest first (Fuetterling et al., "Accelerated single ray tracing for wide vector
/// units", 2017): for the ray octant q (bit 0 set when 1/d.x < 0, bit 1 for y, bit 2 for z),
/// bits 3q..3q+2 of order[p] are the slot of the child at position p, position 7 being the
/// child nearest along the octant's diagonal (the centres of the child boxes projected onto
/// it), empty slots first. Bits 24..31 of order[0] hold the child count.
typedef struct sr_wide_node {
    float bounds[6][SR_WIDE_WIDTH];
    uint32_t child[SR_WIDE_WIDTH]; ///< a wide node's unit, or SR_WIDE_LEAF | leaf reference
    uint32_t order[SR_WIDE_WIDTH];
} sr_wide_node;

_Static_assert(sizeof(sr_wide_node) == 8 * SR_WIDE_UNIT, "wide nodes are 8 units, four cache lines");

/// The number of children of a wide node.
static inline unsigned sr_wide_node_child_count(const sr_wide_node *node)
{
    return node->order[0] >> 24;
}

/// Four triangles of one leaf, structure of arrays: v[k][axis][lane] is coordinate `axis` (0 x,
/// 1 y, 2 z) of vertex k of the lane's triangle, the very floats of sr_bvh.triangles.
/// `primitive` is the caller's triangle number, with SR_PACK_FLAG as described there. 160 bytes.
typedef struct sr_triangle_pack {
    float v[3][3][SR_PACK_WIDTH];
    uint32_t primitive[SR_PACK_WIDTH];
} sr_triangle_pack;

_Static_assert(sizeof(sr_triangle_pack) == 5 * SR_WIDE_UNIT, "packs are 5 units");

/// The wide tree of an sr_bvh (sr_bvh.wide). The root node is at unit 0.
typedef struct sr_bvh_wide {
    unsigned char *units; ///< 64-byte aligned
    size_t unit_count;
    size_t node_count, pack_count; ///< statistics
    void *block;                   ///< the allocation `units` lives in
} sr_bvh_wide;

/// The wide node at unit `ref`.
static inline const sr_wide_node *sr_wide_node_at(const sr_bvh_wide *wide, uint32_t ref)
{
    return (const sr_wide_node *)(const void *)(wide->units + (size_t)ref * SR_WIDE_UNIT);
}

/// The first pack of the leaf reference `ref` of a triangle tree.
static inline const sr_triangle_pack *sr_wide_pack_at(const sr_bvh_wide *wide, uint32_t ref)
{
    return (const sr_triangle_pack *)(const void *)(wide->units + (size_t)(ref & ~SR_WIDE_LEAF) * SR_WIDE_UNIT);
}

/// Builds bvh->wide from bvh->nodes (the binary tree must be complete, slots and triangles
/// filled). Errors: out of memory (bvh->wide stays NULL). Deterministic. An empty tree gets no
/// wide tree.
sr_status sr_bvh_wide_build(sr_bvh *bvh, sr_error *err);
/// Frees a wide tree (NULL is fine).
void sr_bvh_wide_destroy(sr_bvh_wide *wide);

/// Bytes the wide tree holds (nodes, packs and the padding that keeps nodes 64-byte aligned),
/// for the memory figures of the benchmarks.
size_t sr_bvh_wide_bytes(const sr_bvh *bvh);

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
/// the same one: the smallest t, on equal t the smallest primitive number.
static inline float sr_bvh_prune_limit(float t)
{
    /* (a caller's test may report t = -inf, where t + |t| would be NaN) */
    return fabsf(t) < INFINITY ? t + fabsf(t) * 0x1p-18f : t;
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

/// The part of sr_ray_triangle after its three edge functions (w_a = sr_ray_space_edge(pc, pb),
/// w_b = ...(pa, pc), w_c = ...(pb, pa)), the vertices' ray-space depths z_a, z_b, z_c and the
/// ray's shear.z.
static inline bool sr_bvh_leaf_triangle_from_edges(float shear_z, float tmin, float tmax, double w_a, double w_b,
                                                   double w_c, float z_a, float z_b, float z_c, sr_triangle_hit *hit)
{
    const bool all_nonnegative = w_a >= 0.0 && w_b >= 0.0 && w_c >= 0.0;
    const bool all_nonpositive = w_a <= 0.0 && w_b <= 0.0 && w_c <= 0.0;
    if (!(all_nonnegative || all_nonpositive))
        return false;
    const double det = w_a + w_b + w_c;
    if (det == 0.0)
        return false;
    const double inv_det = 1.0 / det;
    const float t = (float)((w_a * z_a + w_b * z_b + w_c * z_c) * inv_det * shear_z);
    if (!(t >= tmin && t <= tmax && fabsf(t) < INFINITY))
        return false;
    hit->t = t;
    hit->u = (float)(w_b * inv_det);
    hit->v = (float)(w_c * inv_det);
    return true;
}

/// The part of sr_ray_triangle after the vertices are in ray space (sr_ray_triangle_test), for
/// a ray of shear.z `shear_z`.
static inline bool sr_bvh_leaf_triangle_in_ray_space(float shear_z, float tmin, float tmax, sr_vec3 pa, sr_vec3 pb,
                                                     sr_vec3 pc, sr_triangle_hit *hit)
{
    return sr_bvh_leaf_triangle_from_edges(shear_z, tmin, tmax, sr_ray_space_edge(pc, pb), sr_ray_space_edge(pa, pc),
                                           sr_ray_space_edge(pb, pa), pa.z, pb.z, pc.z, hit);
}

/// sr_ray_triangle(ray, v[0..2], v[3..5], v[6..8], hit) within [tmin, tmax].
static inline bool sr_bvh_leaf_triangle(const sr_bvh_leaf_ray *ray, float tmin, float tmax, const float *v,
                                        sr_triangle_hit *hit)
{
    return sr_bvh_leaf_triangle_in_ray_space(ray->shear_z, tmin, tmax, sr_bvh_leaf_ray_space_point(ray, v),
                                             sr_bvh_leaf_ray_space_point(ray, v + 3),
                                             sr_bvh_leaf_ray_space_point(ray, v + 6), hit);
}

/// The geometric normal of the triangle of the 9 floats at `v` (its three vertices), as
/// sr_bvh_hit.normal gives it; and sr_bvh_hit_finish: fills primitive, point and, when `v` is
/// not NULL, that normal, for a hit whose t (and u, v) are set. The cross product is taken in
/// double: float would underflow to zero for tiny (subnormal-sized) triangles that the
/// watertight test still hits. A zero-area triangle has no normal: 0. Inline, so that the wide
/// traversal's copies read the vertices from a pack without a call (ISO C: nothing contracted
/// into FMA, the same bits in every copy).
static inline sr_vec3 sr_bvh_hit_normal(const float *v)
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)v[3 + k] - v[k];
        e2[k] = (double)v[6 + k] - v[k];
    }
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    return length > 0.0 ? (sr_vec3){(float)(n[0] / length), (float)(n[1] / length), (float)(n[2] / length)}
                        : (sr_vec3){0.0f, 0.0f, 0.0f};
}

static inline void sr_bvh_hit_finish(const sr_ray *ray, uint32_t primitive, const float *v, sr_bvh_hit *hit)
{
    hit->primitive = primitive;
    hit->point = sr_vec3_add(ray->origin, sr_vec3_scale(ray->direction, hit->t));
    if (v)
        hit->normal = sr_bvh_hit_normal(v);
}

/// sr_bvh_hit for a miss: SR_BVH_NO_HIT at +infinity, counters 0.
static inline void sr_bvh_hit_clear(sr_bvh_hit *hit)
{
    *hit = (sr_bvh_hit){.primitive = SR_BVH_NO_HIT, .t = INFINITY};
}

/* ---- traversals ---- */

/// The ray query of softrast/bvh.h (closest, any or custom) walking the wide tree; `ray` is
/// usable (sr_bvh_ray_is_usable), the tree not empty. Fills `hit` completely (whatever it held
/// before); returns whether something was hit. (bvh_query_wide.c)
bool sr_bvh_query_wide(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode, sr_bvh_ray_primitive_fn intersect,
                       void *user, sr_bvh_hit *hit);

#if defined(SR_ISA_DISPATCH)
/// For tests, in builds that dispatch at run time (bvh_dispatch.c): sr_bvh_query_wide and
/// sr_bvh_query_ray_packet of the copy for `isa`, which must be available (sr_isa_available).
bool sr_bvh_query_wide_isa(sr_isa isa, const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode,
                           sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *hit);
int sr_bvh_query_ray_packet_isa(sr_isa isa, const sr_bvh *bvh, const sr_ray *rays, int count, sr_bvh_hit *hits);
#endif

/// For tests: the lanes of `pack` (bit i for lane i) whose three edge functions, as
/// sr_ray_triangle computes them for `ray`, do not have opposite signs: the lanes the single-ray
/// leaf test hands to the rest of sr_ray_triangle's code; it misses every other lane.
/// (bvh_leaf.c)
unsigned sr_bvh_pack_filter(const sr_triangle_pack *pack, const sr_ray *ray);

/// For tests: the rays of `rays` (bit i for rays[i]; 1..SR_BVH_PACKET_MAX rays of one axis
/// order of ray space) for which the packets' triangle filter (bvh_query_packet.c, the rays in
/// lanes) keeps triangle `lane` of `pack` in a tree whose root box is `root`; sr_ray_triangle
/// misses the triangle for every other ray. In builds that dispatch at run time there is no
/// entry of this name, only the copies of bvh_leaf.h (_base, _avx2, _avx512; _portable in the
/// tests' copy).
unsigned sr_bvh_packet_filter(const sr_triangle_pack *pack, unsigned lane, const sr_ray *rays, int count, sr_aabb root);

/// The same query walking the binary node array instead (bvh_query.c): the traversal the wide
/// tree replaced, kept so that tests can compare the two ray by ray. Same contract and same
/// answers as the public queries (for `nodes_visited`: nodes of the binary tree).
bool sr_bvh_query_ray_binary(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode,
                             sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *hit);

#endif
