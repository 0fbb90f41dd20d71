/* src/bvh/bvh_query_packet.c — closest hits of a packet of up to 16 rays at once
 * (sr_bvh_query_ray_packet, softrast/bvh.h), for coherent rays such as the primary rays of a
 * block of pixels.
 *
 * Packet traversal over the wide tree (Wald, Slusallek, Benthin & Wagner, "Interactive
 * rendering with coherent ray tracing", 2001; Embree's hybrid traversal): the rays walk the
 * tree together. At a wide node each child box is tested against all rays of the packet at
 * once (the rays in SIMD lanes, 8 per f8), which gives the set of rays that enter it; the
 * children entered by some ray are pushed with that set in the node's order for the packet's
 * octant, farthest first, and the nearest is visited next; a popped entry whose nearest entry
 * distance lies beyond every ray's prune limit is dropped. At a leaf each ray of the set runs
 * the single-ray leaf test (bvh_leaf.c). The packet takes the rays that share one octant and
 * the box test's short path (sr_bvh_ray_is_fast); the others, and packets too small to gain,
 * go through the single-ray traversal.
 *
 * Exactness. For each ray of the packet the box test performs the single-ray test's operations
 * on the same floats (the same near and far faces, the same widening of the exit, the ray's
 * own prune limit), so it enters a box exactly when the single-ray traversal would at that
 * limit; the leaf test is the single-ray one. The answer of a traversal does not depend on the
 * order in which it meets the triangles (sr_bvh_hit_is_better, sr_bvh_prune_limit), so every
 * ray gets the single-ray answer.
 *
 * Knows nothing of raster or scene. */
#include "bvh_leaf.h"

#include <float.h>
#include <string.h>

/* The packet's rays in SoA order, lane i for ray i. Lanes without a ray have tmin = +inf and a
 * limit of -inf, so that no box is entered by them. */
typedef struct packet {
    f16 origin[3];
    f16 inv_near[3];
    f16 inv_far[3]; /* times 1 + 2^-21: the exit widening, sound for tmin >= 0 (wide_ray_make) */
    f16 tmin;
    f16 limit;                                   /* sr_bvh_prune_limit of each ray's closest hit so far */
    _Alignas(64) float limits[SR_BVH_PACKET_MAX]; /* the same, for updates */
    int near_row[3], far_row[3];                 /* as wide_ray's offsets: the octant is the packet's */
    unsigned octant;
    const sr_bvh *bvh;
    const sr_ray *rays;
    sr_bvh_hit *hits;
    unsigned members;
    /* Made at the first leaf (leaves_ready): the queries, and the triangle filter with the rays
     * in lanes when every ray has the same axis order (as pack_ray, per ray: pack_candidates'
     * operations per (ray, triangle), so the same verdicts). */
    bool leaves_ready, shared_axes;
    int axis_x, axis_y, axis_z;
    f16 filter_origin[3]; /* origin[axis_x], origin[axis_y], origin[axis_z] */
    f16 shear_x, shear_y, bound_scale, bound_offset;
    _Alignas(64) uint32_t tested[SR_BVH_PACKET_MAX];
    sr_bvh_leaf_query q[SR_BVH_PACKET_MAX];
} packet;

/* Deepest stack: at most 7 entries per wide level (bvh_query_wide.c). */
#define STACK_SIZE (7 * SR_BVH_MAX_DEPTH + 8)

/* The traversal stack: per entry the child, the rays that entered it and their entry
 * distances (lanes of the other rays unused). */
typedef struct packet_stack {
    f16 t_entry[STACK_SIZE];
    uint32_t ref[STACK_SIZE];
    uint32_t rays[STACK_SIZE];
} packet_stack;

/* Slab test of a box (its bounds min x, max x, min y, max y, min z, max z) against every ray of
 * the packet: bit i of the result is set when ray i enters it, *enter_out holds the entry
 * distances. Per lane, the fast path of wide_box_test (bvh_query_wide.c) with the bounds
 * broadcast. */
static inline unsigned packet_box_test(const float bounds[6], const packet *p, f16 *enter_out)
{
    f16 near[3], far[3];
    for (int axis = 0; axis < 3; axis++) {
        near[axis] = f16_mul(f16_sub(f16_splat(bounds[p->near_row[axis]]), p->origin[axis]), p->inv_near[axis]);
        far[axis] = f16_mul(f16_sub(f16_splat(bounds[p->far_row[axis]]), p->origin[axis]), p->inv_far[axis]);
    }
    const f16 enter = f16_max(f16_max(near[0], near[1]), f16_max(near[2], p->tmin));
    const f16 leave = f16_min(f16_min(far[0], far[1]), f16_min(far[2], p->limit));
    *enter_out = enter;
    return f16_le(enter, leave);
}

static void update_limit(packet *p, unsigned ray, float tmax)
{
    p->limits[ray] = sr_bvh_prune_limit(tmax);
    p->limit = f16_load(p->limits);
}

/* The queries and the filter's constants, when the first leaf is reached. */
static void packet_start_leaves(packet *p)
{
    const sr_ray *rays = p->rays;
    const int first = (int)lowest_bit(p->members);
    p->shared_axes = true;
    p->axis_x = rays[first].axis_x;
    p->axis_y = rays[first].axis_y;
    p->axis_z = rays[first].axis_z;
    if (p->axis_x < 0 || p->axis_x > 2 || p->axis_y < 0 || p->axis_y > 2 || p->axis_z < 0 || p->axis_z > 2)
        p->shared_axes = false; /* a hand-made ray: the single-ray leaf tests check it */
    _Alignas(64) float lanes[7][SR_BVH_PACKET_MAX];
    for (int i = 0; i < SR_BVH_PACKET_MAX; i++) {
        /* lanes without a ray copy the first ray's constants (never used) */
        const bool member = p->members >> i & 1u;
        const sr_ray *ray = member ? &rays[i] : &rays[first];
        p->tested[i] = 0;
        if (member) {
            sr_bvh_leaf_query_start(&p->q[i], p->bvh, ray, NULL, NULL, &p->hits[i]);
            sr_bvh_leaf_ray_make(ray, &p->q[i].leaf); /* for the exact tests of packet_leaf */
            if (ray->axis_x != p->axis_x || ray->axis_y != p->axis_y || ray->axis_z != p->axis_z)
                p->shared_axes = false;
        }
        if (!p->shared_axes)
            continue;
        const float origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
        float scale, offset;
        sr_bvh_filter_bound(&p->bvh->nodes[0], ray, &scale, &offset);
        lanes[0][i] = origin[p->axis_x];
        lanes[1][i] = origin[p->axis_y];
        lanes[2][i] = origin[p->axis_z];
        lanes[3][i] = ray->shear.x;
        lanes[4][i] = ray->shear.y;
        lanes[5][i] = scale;
        lanes[6][i] = offset;
    }
    if (p->shared_axes) {
        for (int k = 0; k < 3; k++)
            p->filter_origin[k] = f16_load(lanes[k]);
        p->shear_x = f16_load(lanes[3]);
        p->shear_y = f16_load(lanes[4]);
        p->bound_scale = f16_load(lanes[5]);
        p->bound_offset = f16_load(lanes[6]);
    }
    p->leaves_ready = true;
}

/* The triangles of leaf `ref` against the rays of `rays`, one triangle at a time with the rays
 * in lanes (packet.shared_axes): the filter's verdict per (ray, triangle), then sr_ray_triangle's
 * own test for each pair it keeps (sr_bvh_pack_triangle_test). */
static void packet_leaf(packet *p, uint32_t ref, unsigned rays)
{
    const sr_triangle_pack *pack = sr_wide_pack_at(p->bvh->wide, ref);
    for (;;) {
        const unsigned flags = u4_top_bits(pack->primitive);
        const unsigned real = (~flags & 0xeu) | 1u;
        u16_add_masked(p->tested, rays, bit_count(real));
        for (unsigned lanes = real; lanes; lanes &= lanes - 1) {
            const unsigned lane = lowest_bit(lanes);
            f16 x[3], y[3];
            for (int k = 0; k < 3; k++) {
                const f16 z = f16_sub(f16_splat(pack->v[k][p->axis_z][lane]), p->filter_origin[2]);
                x[k] = f16_sub(f16_sub(f16_splat(pack->v[k][p->axis_x][lane]), p->filter_origin[0]),
                               f16_mul(p->shear_x, z));
                y[k] = f16_sub(f16_sub(f16_splat(pack->v[k][p->axis_y][lane]), p->filter_origin[1]),
                               f16_mul(p->shear_y, z));
            }
            const f16 edge_a = f16_sub(f16_mul(x[2], y[1]), f16_mul(y[2], x[1]));
            const f16 edge_b = f16_sub(f16_mul(x[0], y[2]), f16_mul(y[0], x[2]));
            const f16 edge_c = f16_sub(f16_mul(x[1], y[0]), f16_mul(y[1], x[0]));
            const f16 magnitude =
                f16_max(f16_max(f16_max(f16_abs(x[0]), f16_abs(y[0])), f16_max(f16_abs(x[1]), f16_abs(y[1]))),
                        f16_max(f16_abs(x[2]), f16_abs(y[2])));
            const f16 bound = f16_mul(p->bound_scale, f16_add(magnitude, p->bound_offset));
            const f16 low = f16_min(f16_min(edge_a, edge_b), edge_c);
            const f16 high = f16_max(f16_max(edge_a, edge_b), edge_c);
            unsigned candidates = rays & ~f16_gt_and_lt(high, bound, low, f16_negate(bound));
            if (!candidates)
                continue;
            const uint32_t primitive = pack->primitive[lane] & ~SR_PACK_FLAG;
            for (; candidates; candidates &= candidates - 1) {
                const unsigned ray = lowest_bit(candidates);
                sr_bvh_leaf_query *query = &p->q[ray];
                sr_triangle_hit triangle_hit;
                if (sr_bvh_pack_triangle_test(&query->leaf, query->ray->tmin, query->tmax, pack, lane, p->axis_x,
                                              p->axis_y, p->axis_z, &triangle_hit) &&
                    sr_bvh_hit_is_better(triangle_hit.t, primitive, query->tmax, query->best_primitive)) {
                    sr_bvh_leaf_query_keep(query, pack, lane, primitive, &triangle_hit);
                    update_limit(p, ray, triangle_hit.t);
                }
            }
        }
        if (!(flags & 1u))
            return;
        pack++;
    }
}

/* Walks the tree with the packet's rays. */
static void traverse_packet(packet *p, packet_stack *stack, uint32_t visited[SR_BVH_PACKET_MAX])
{
    const sr_bvh_wide *wide = p->bvh->wide;
    int top = 0;
    uint32_t ref = 0;
    unsigned active = p->members;
    for (;;) {
        while (!(ref & SR_WIDE_LEAF)) {
            const sr_wide_node *node = sr_wide_node_at(wide, ref);
            const unsigned count = sr_wide_node_child_count(node);
            u16_add_masked(visited, active, count);
            uint32_t child_rays[SR_WIDE_WIDTH];
            f16 child_t[SR_WIDE_WIDTH];
            unsigned entered = 0;
            for (unsigned slot = 0; slot < count; slot++) {
                const float bounds[6] = {node->bounds[0][slot], node->bounds[1][slot], node->bounds[2][slot],
                                         node->bounds[3][slot], node->bounds[4][slot], node->bounds[5][slot]};
                child_rays[slot] = packet_box_test(bounds, p, &child_t[slot]) & active;
                entered |= (child_rays[slot] != 0) << slot;
            }
            if (entered == 0)
                goto pop;
            /* push the children entered, farthest first, and go on with the nearest */
            for (int position = 0; position < SR_WIDE_WIDTH; position++) {
                const unsigned slot = node->order[position] >> (3 * p->octant) & 7u;
                if (entered >> slot & 1u) {
                    stack->t_entry[top] = child_t[slot];
                    stack->ref[top] = node->child[slot];
                    stack->rays[top] = child_rays[slot];
                    top++;
                }
            }
            top--;
            ref = stack->ref[top];
            active = stack->rays[top];
        }
        if (!p->leaves_ready)
            packet_start_leaves(p);
        if (p->shared_axes) {
            packet_leaf(p, ref, active);
        } else {
            for (unsigned rest = active; rest; rest &= rest - 1) {
                const unsigned ray = lowest_bit(rest);
                const float before = p->q[ray].tmax;
                sr_bvh_leaf_closest(&p->q[ray], ref);
                if (p->q[ray].tmax != before) /* a new closest hit: its limit moves */
                    update_limit(p, ray, p->q[ray].tmax);
            }
        }
    pop:
        /* the next entry some of whose rays still enter it before their limits */
        for (;;) {
            if (top == 0)
                return;
            top--;
            active = stack->rays[top] & f16_le(stack->t_entry[top], p->limit);
            if (active)
                break;
        }
        ref = stack->ref[top];
    }
}

/* Fewer rays than this in a packet go one by one: the packet would test boxes for few rays. */
#define PACKET_MIN_RAYS 4

/* Lane arrays of the rays (lanes from `count` on hold no ray: a zero direction). */
enum { ORIGIN = 0, DIRECTION = 3, INVERSE = 6, TMIN = 9, TMAX = 10, LANE_ROWS = 11 };

/* bit i: lane i is finite */
static inline unsigned finite_lanes(f16 a)
{
    return f16_le(f16_abs(a), f16_splat(FLT_MAX));
}

/* The rays' fields in lane arrays. Kept scalar on purpose: GCC vectorises this loop into
 * gathers (the rays are 68 bytes apart), which made the whole query 1.6 times slower on the
 * AMD machine of the benchmarks. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
static void transpose_rays(const sr_ray *rays, int count, float lanes[LANE_ROWS][SR_BVH_PACKET_MAX])
{
    for (int i = 0; i < SR_BVH_PACKET_MAX; i++) {
        const sr_ray *ray = &rays[i < count ? i : 0];
        const float origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
        const float direction[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
        const float inv[3] = {ray->inv_direction.x, ray->inv_direction.y, ray->inv_direction.z};
        for (int axis = 0; axis < 3; axis++) {
            lanes[ORIGIN + axis][i] = origin[axis];
            lanes[DIRECTION + axis][i] = i < count ? direction[axis] : 0.0f;
            lanes[INVERSE + axis][i] = inv[axis];
        }
        lanes[TMIN][i] = ray->tmin;
        lanes[TMAX][i] = ray->tmax;
    }
}

int sr_bvh_query_ray_packet(const sr_bvh *bvh, const sr_ray *rays, int count, sr_bvh_hit *hits)
{
    if (!bvh || !rays || !hits || count <= 0)
        return 0;
    if (count > SR_BVH_PACKET_MAX)
        count = SR_BVH_PACKET_MAX;
    for (int i = 0; i < count; i++)
        sr_bvh_hit_clear(&hits[i]);
    if (bvh->primitive_count == 0 || !bvh->wide || !bvh->triangles)
        return 0;
    _Alignas(64) float lanes[LANE_ROWS][SR_BVH_PACKET_MAX];
    transpose_rays(rays, count, lanes);
    /* sr_bvh_ray_is_usable and sr_bvh_ray_is_fast, lane by lane */
    f16 row[LANE_ROWS];
    for (int r = 0; r < LANE_ROWS; r++)
        row[r] = f16_load(lanes[r]);
    const f16 zero = f16_splat(0.0f);
    const f16 direction_size =
        f16_add(f16_add(f16_abs(row[DIRECTION]), f16_abs(row[DIRECTION + 1])), f16_abs(row[DIRECTION + 2]));
    const unsigned usable = finite_lanes(row[ORIGIN]) & finite_lanes(row[ORIGIN + 1]) &
                            finite_lanes(row[ORIGIN + 2]) & finite_lanes(row[DIRECTION]) &
                            finite_lanes(row[DIRECTION + 1]) & finite_lanes(row[DIRECTION + 2]) &
                            ~f16_le(direction_size, zero) & f16_le(row[TMIN], row[TMAX]) & 0xffffu;
    const unsigned fast = usable & f16_le(zero, row[TMIN]) & finite_lanes(row[INVERSE]) &
                          finite_lanes(row[INVERSE + 1]) & finite_lanes(row[INVERSE + 2]);
    const unsigned negative[3] = {f16_lt(row[INVERSE], zero), f16_lt(row[INVERSE + 1], zero),
                                  f16_lt(row[INVERSE + 2], zero)};
    /* the packet: the fast rays in the first one's octant */
    unsigned members = 0, octant = 0;
    if (fast) {
        const unsigned first = lowest_bit(fast);
        octant = (negative[0] >> first & 1u) | (negative[1] >> first & 1u) << 1 | (negative[2] >> first & 1u) << 2;
        members = fast;
        for (int axis = 0; axis < 3; axis++)
            members &= (octant >> axis & 1u) ? negative[axis] : ~negative[axis];
    }
    int found = 0;
    unsigned alone = usable & ~members;
    if (bit_count(members) < PACKET_MIN_RAYS) {
        alone = usable;
        members = 0;
    }
    for (unsigned rest = alone; rest; rest &= rest - 1) {
        const unsigned i = lowest_bit(rest);
        found += sr_bvh_query_wide(bvh, &rays[i], SR_BVH_RAY_CLOSEST, NULL, NULL, &hits[i]);
    }
    if (!members)
        return found;

    packet p;
    p.bvh = bvh;
    p.rays = rays;
    p.hits = hits;
    p.members = members;
    p.leaves_ready = false;
    p.octant = octant;
    for (int axis = 0; axis < 3; axis++) {
        p.origin[axis] = row[ORIGIN + axis];
        p.inv_near[axis] = row[INVERSE + axis];
        p.inv_far[axis] = f16_mul(row[INVERSE + axis], f16_splat(1.0f + 0x1p-21f)); /* as wide_ray_make */
        const int neg = octant >> axis & 1u;
        p.near_row[axis] = 2 * axis + neg;
        p.far_row[axis] = 2 * axis + 1 - neg;
    }
    for (int i = 0; i < SR_BVH_PACKET_MAX; i++) {
        const bool member = members >> i & 1u;
        lanes[TMIN][i] = member ? lanes[TMIN][i] : INFINITY;
        p.limits[i] = member ? sr_bvh_prune_limit(lanes[TMAX][i]) : -INFINITY;
    }
    p.tmin = f16_load(lanes[TMIN]);
    p.limit = f16_load(p.limits);

    /* The root's box first: a packet off the mesh is done after one box test instead of the
     * root's 8 (its rays count that one box). */
    uint32_t visited[SR_BVH_PACKET_MAX] = {0};
    const sr_bvh_node *root = &bvh->nodes[0];
    const float root_bounds[6] = {root->min.x, root->max.x, root->min.y, root->max.y, root->min.z, root->max.z};
    f16 entry;
    const unsigned in_root = packet_box_test(root_bounds, &p, &entry) & members;
    u16_add_masked(visited, members, 1);
    for (unsigned rest = members & ~in_root; rest; rest &= rest - 1)
        hits[lowest_bit(rest)].nodes_visited = 1;
    members = in_root;
    p.members = members;
    if (!members)
        return found;
    packet_stack stack;
    traverse_packet(&p, &stack, visited);
    for (unsigned rest = members; rest; rest &= rest - 1) {
        const unsigned i = lowest_bit(rest);
        if (!p.leaves_ready) { /* no leaf reached: a miss */
            hits[i].nodes_visited = visited[i];
            continue;
        }
        p.q[i].tested += p.tested[i];
        found += sr_bvh_leaf_query_finish(&p.q[i], SR_BVH_RAY_CLOSEST, visited[i]);
    }
    return found;
}
