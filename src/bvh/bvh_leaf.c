/* src/bvh/bvh_leaf.c — the leaves of the wide tree for the ray queries (bvh_leaf.h): the triangle
 * filter that tests a pack of 4 triangles at once, exact for the answers, and the leaf tests of
 * closest-hit, any-hit and custom queries.
 *
 * Exactness. The answers are sr_ray_triangle's, bit for bit: the filter only rejects
 * triangles that sr_ray_triangle rejects as well (proof at pack_candidates), and every other
 * triangle goes through sr_bvh_leaf_triangle_in_ray_space, sr_ray_triangle's own code, on the
 * same floats. Which of several triangles hit at the same t is reported is fixed by
 * sr_bvh_hit_is_better. Knows nothing of raster or scene. */
#define SR_BVH_KERNEL 1 /* bvh_leaf.h: one of the kernels compiled per instruction set */
#include "bvh_leaf.h"

#include <assert.h>
#include <string.h>

/* ---- the triangle filter ---- */

/* K1 and K2 (see pack_candidates) from G, a bound on |r_x| + 2 |shear_x z| and |r_y| + 2
 * |shear_y z| over every vertex of the tree: the relative coordinates r = p - o of a vertex
 * inside the root box are bounded by those of the box's faces (rounding is monotonic). Each
 * float expression below is rounded up by its final factor 1 + 2^-20, which exceeds the at
 * most three roundings to nearest (a relative u each) before it, so G, K1 and K2 are never
 * below the real values the proof needs. Past 2^62 the filter is switched off (K1 = inf: no
 * lane is rejected), which keeps every product of the filter far from overflow. */
SR_BVH_ALWAYS_INLINE void filter_bound(const sr_bvh_node *root, const sr_ray *ray, float *scale_out, float *offset_out)
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
    *scale_out = scale;
    *offset_out = offset;
}

void sr_bvh_filter_bound(const sr_bvh_node *root, const sr_ray *ray, float *scale_out, float *offset_out)
{
    filter_bound(root, ray, scale_out, offset_out);
}

static void pack_ray_make(const sr_bvh_node *root, const sr_ray *ray, pack_ray *p)
{
    const float origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    float scale, offset;
    filter_bound(root, ray, &scale, &offset);
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
SR_BVH_ALWAYS_INLINE unsigned pack_candidates(const sr_triangle_pack *pack, const pack_ray *r, int axis_x, int axis_y,
                                              int axis_z)
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

unsigned sr_bvh_pack_filter(const sr_triangle_pack *pack, const sr_ray *ray, sr_aabb root)
{
    const sr_bvh_node root_node = {.min = root.min, .max = root.max};
    pack_ray r;
    pack_ray_make(&root_node, ray, &r);
    return pack_candidates(pack, &r, -1, -1, -1);
}

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* The triangles of leaf `ref`, pack by pack: the filter, then sr_ray_triangle's own test on the
 * lanes it keeps. Returns true when an any-hit query has its answer. The axes are constants in
 * the specialised copies (leaf_triangles), -1 in the generic one. */
SR_BVH_ALWAYS_INLINE bool leaf_packs(sr_bvh_leaf_query *q, uint32_t ref, bool any, int axis_x, int axis_y, int axis_z)
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
            if (sr_bvh_pack_triangle_test(&q->leaf, q->ray->tmin, q->tmax, pack, lane, axis_x, axis_y, axis_z,
                                          &triangle_hit) &&
                sr_bvh_hit_is_better(triangle_hit.t, primitive, q->tmax, q->best_primitive)) {
                sr_bvh_leaf_query_keep(q, pack, lane, primitive, &triangle_hit);
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
 * swapped), numbered 2 axis_z + swapped; 6: any other (a hand-made ray). The axes in 0..2 and
 * different from each other are one of the six; axis_x then follows axis_z (in order) or
 * axis_y does (swapped). */
static int axis_order(const sr_ray *ray)
{
    const unsigned x = (unsigned)ray->axis_x, y = (unsigned)ray->axis_y, z = (unsigned)ray->axis_z;
    if (x > 2 || y > 2 || z > 2 || x == y || x == z || y == z)
        return 6;
    const unsigned after_z = z == 2 ? 0 : z + 1;
    return (int)(2 * z + (x != after_z));
}

/* The per-ray constants of the leaf tests, made at the first leaf a query reaches (most
 * primary rays reach none); out of line, which keeps the leaf loop's registers for itself. */
static NOINLINE void leaf_rays_make(sr_bvh_leaf_query *q)
{
    pack_ray_make(&q->bvh->nodes[0], q->ray, &q->filter);
    sr_bvh_leaf_ray_make(q->ray, &q->leaf);
    q->axis_order = axis_order(q->ray);
    q->leaf_rays_made = true;
}

SR_BVH_ALWAYS_INLINE bool leaf_triangles(sr_bvh_leaf_query *q, uint32_t ref, bool any)
{
    if (!q->leaf_rays_made)
        leaf_rays_make(q);
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

NOINLINE bool sr_bvh_leaf_closest(sr_bvh_leaf_query *q, uint32_t ref)
{
    return leaf_triangles(q, ref, false);
}

NOINLINE bool sr_bvh_leaf_any(sr_bvh_leaf_query *q, uint32_t ref)
{
    return leaf_triangles(q, ref, true);
}

/* The caller's test on each primitive of the leaf, in slot order. */
NOINLINE bool sr_bvh_leaf_custom(sr_bvh_leaf_query *q, uint32_t ref)
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
                candidate.t <= ray.tmax &&
                sr_bvh_hit_is_better(candidate.t, primitives[i], ray.tmax, q->best_primitive)) {
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

bool sr_bvh_leaf_query_finish(sr_bvh_leaf_query *q, sr_bvh_ray_mode mode, uint32_t nodes_visited)
{
    sr_bvh_hit *hit = q->hit;
    (void)mode;
    if (q->best_primitive == SR_BVH_NO_HIT) {
        sr_bvh_hit_clear(hit); /* the caller's test may have written fields */
        hit->nodes_visited = nodes_visited;
        hit->primitives_tested = q->tested;
        return false;
    }
    hit->nodes_visited = nodes_visited;
    hit->primitives_tested = q->tested;
    /* the normal of a triangle hit was made when the hit was kept (q->normal_at_keep: the queries
     * that end here keep it set; the packets, which clear it, end their rays themselves) */
    assert(q->normal_at_keep);
    sr_bvh_hit_finish(q->ray, q->best_primitive, NULL, hit);
    return true;
}
