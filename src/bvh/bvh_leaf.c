/* src/bvh/bvh_leaf.c — the leaves of the wide tree for the ray queries (bvh_leaf.h): the test of
 * a pack of 4 triangles at once and the leaf tests of closest-hit, any-hit and custom queries.
 *
 * Exactness. The answers are sr_ray_triangle's, bit for bit: pack_edge_test computes its
 * ray-space vertices and its three edge functions for the 4 triangles at once, the same IEEE
 * operations on the same floats (exact products of floats in double, one rounding per
 * difference), drops the lanes whose edge functions have opposite signs, which sr_ray_triangle
 * misses, and hands the others to sr_bvh_leaf_triangle_from_edges, the rest of sr_ray_triangle's
 * own code, on those very values. Which of several triangles hit at the same t is reported is
 * fixed by sr_bvh_hit_is_better. (Until 2026-12-05 a float filter with an error bound ran first
 * and the survivors were tested again in double; computing the double edge functions directly
 * costs about what the filter did and leaves nothing to redo. The packets keep that filter,
 * bvh_query_packet_lanes.h, where one triangle meets up to 16 rays.) Knows nothing of raster or
 * scene. */
#define SR_BVH_KERNEL 1 /* bvh_leaf.h: one of the kernels compiled per instruction set */
#include "bvh_leaf.h"

#include <assert.h>
#include <string.h>

/* ---- the test of a pack ---- */

static void pack_ray_make(const sr_ray *ray, pack_ray *p)
{
    const float origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    p->offset_x = (size_t)ray->axis_x * sizeof(float[SR_PACK_WIDTH]);
    p->offset_y = (size_t)ray->axis_y * sizeof(float[SR_PACK_WIDTH]);
    p->offset_z = (size_t)ray->axis_z * sizeof(float[SR_PACK_WIDTH]);
    p->origin_x = f4_splat(origin[ray->axis_x]);
    p->origin_y = f4_splat(origin[ray->axis_y]);
    p->origin_z = f4_splat(origin[ray->axis_z]);
    p->shear_x = f4_splat(ray->shear.x);
    p->shear_y = f4_splat(ray->shear.y);
}

/* sr_ray_triangle's three edge functions of the 4 triangles of a pack and their vertices'
 * ray-space depths: lane i of w[0], w[1], w[2] is w_a, w_b, w_c of lane i's triangle. */
typedef struct pack_edges {
    double w[3][SR_PACK_WIDTH];
    float z[3][SR_PACK_WIDTH];
} pack_edges;

/* The lanes of `pack` whose three edge functions do not have opposite signs (bit i for lane i),
 * with the edge functions and depths in `out` when there are any. Per lane the operations of
 * sr_ray_triangle (sr_ray_space_point, sr_ray_space_edge) on the same floats: sr_ray_triangle
 * misses every other lane, and on these lanes its verdict is sr_bvh_leaf_triangle_from_edges on
 * out's values. (A NaN edge function may leave its lane in; the exact test drops it.) `axis_x`,
 * `axis_y`, `axis_z` are the ray's (constants at the call sites of the specialised versions, -1
 * for "read them from r"). */
SR_BVH_ALWAYS_INLINE unsigned pack_edge_test(const sr_triangle_pack *pack, const pack_ray *r, int axis_x, int axis_y,
                                             int axis_z, pack_edges *out)
{
    f4 z[3];
    d4 x[3], y[3];
    for (int k = 0; k < 3; k++) {
        const char *vertex = (const char *)pack->v[k];
        const float *px = axis_x >= 0 ? pack->v[k][axis_x] : (const float *)(const void *)(vertex + r->offset_x);
        const float *py = axis_y >= 0 ? pack->v[k][axis_y] : (const float *)(const void *)(vertex + r->offset_y);
        const float *pz = axis_z >= 0 ? pack->v[k][axis_z] : (const float *)(const void *)(vertex + r->offset_z);
        z[k] = f4_sub(f4_load(pz), r->origin_z);
        x[k] = d4_from_f4(f4_sub(f4_sub(f4_load(px), r->origin_x), f4_mul(r->shear_x, z[k])));
        y[k] = d4_from_f4(f4_sub(f4_sub(f4_load(py), r->origin_y), f4_mul(r->shear_y, z[k])));
    }
    /* sr_ray_space_edge(p, q) = p.x q.y - p.y q.x; w_a = edge(c, b), w_b = edge(a, c), w_c = edge(b, a) */
    const d4 w_a = d4_sub(d4_mul(x[2], y[1]), d4_mul(y[2], x[1]));
    const d4 w_b = d4_sub(d4_mul(x[0], y[2]), d4_mul(y[0], x[2]));
    const d4 w_c = d4_sub(d4_mul(x[1], y[0]), d4_mul(y[1], x[0]));
    const unsigned straddling =
        d4_positive_and_negative(d4_max(d4_max(w_a, w_b), w_c), d4_min(d4_min(w_a, w_b), w_c));
    const unsigned kept = ~straddling & 0xfu;
    if (kept) {
        d4_store(out->w[0], w_a);
        d4_store(out->w[1], w_b);
        d4_store(out->w[2], w_c);
        for (int k = 0; k < 3; k++)
            f4_store(out->z[k], z[k]);
    }
    return kept;
}

unsigned sr_bvh_pack_filter(const sr_triangle_pack *pack, const sr_ray *ray)
{
    pack_ray r;
    pack_ray_make(ray, &r);
    pack_edges edges;
    return pack_edge_test(pack, &r, -1, -1, -1, &edges);
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
        pack_edges edges;
        unsigned candidates = pack_edge_test(pack, &q->leaf_ray, axis_x, axis_y, axis_z, &edges) & real;
        while (candidates) {
            const unsigned lane = lowest_bit(candidates);
            candidates &= candidates - 1;
            const uint32_t primitive = pack->primitive[lane] & ~SR_PACK_FLAG;
            sr_triangle_hit triangle_hit;
            if (sr_bvh_leaf_triangle_from_edges(q->ray->shear.z, q->ray->tmin, q->tmax, edges.w[0][lane], edges.w[1][lane],
                                                edges.w[2][lane], edges.z[0][lane], edges.z[1][lane],
                                                edges.z[2][lane], &triangle_hit) &&
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
 * swapped), numbered 2 axis_z + swapped; 6: any other (a hand-made ray). The table holds the
 * number plus one at axis_x + 4 axis_y + 16 axis_z for each of the six, 0 elsewhere. */
static int axis_order(const sr_ray *ray)
{
    static const unsigned char order_plus_one[64] = {
        [1 + 4 * 2 + 16 * 0] = 1, [2 + 4 * 1 + 16 * 0] = 2, [2 + 4 * 0 + 16 * 1] = 3,
        [0 + 4 * 2 + 16 * 1] = 4, [0 + 4 * 1 + 16 * 2] = 5, [1 + 4 * 0 + 16 * 2] = 6,
    };
    const unsigned x = (unsigned)ray->axis_x, y = (unsigned)ray->axis_y, z = (unsigned)ray->axis_z;
    if ((x | y | z) > 3u)
        return 6;
    const int entry = order_plus_one[x + 4 * y + 16 * z];
    return entry ? entry - 1 : 6;
}

/* The per-ray constants of the leaf tests, made at the first leaf a query reaches (most
 * primary rays reach none); out of line, which keeps the leaf loop's registers for itself. */
static NOINLINE void leaf_rays_make(sr_bvh_leaf_query *q)
{
    pack_ray_make(q->ray, &q->leaf_ray);
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
