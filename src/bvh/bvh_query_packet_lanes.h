/* src/bvh/bvh_query_packet_lanes.h — the packet traversal of bvh_query_packet.c for one packet
 * width, included there once per width (8 rays in f8 lanes, 16 in f16 lanes): LANES, the vector
 * type VEC, V(op) for its operations, UADD for the masked counter increment, LANE_MASK,
 * ALONE_RAYS and P(name) for the width's names are defined by the includer. Private to src/bvh/. */
/* the width's types */
#define PACKET P(packet)
#define PACKET_STACK P(packet_stack)

/* The packet's rays in SoA order, lane i for ray i. Lanes without a ray have tmin = +inf and a
 * limit of -inf, so that no box is entered by them. */
typedef struct PACKET {
    VEC near_origin[3], far_origin[3]; /* sr_bvh_slab_origins of each ray */
    VEC inv_near[3];
    VEC inv_far[3]; /* times 1 + 2^-21: the exit widening, sound for tmin >= 0 (wide_ray_make) */
    VEC tmin;
    VEC limit;                        /* sr_bvh_prune_limit of each ray's closest hit so far */
    int near_row[3], far_row[3];      /* as wide_ray's offsets: the octant is the packet's */
    unsigned octant;
    const sr_bvh *bvh;
    const sr_ray *rays;
    sr_bvh_hit *hits;
    unsigned members;
    /* Made at the first leaf (leaves_ready): the queries, and the triangle filter with the rays
     * in lanes when every ray has the same axis order (see filter_triangle). */
    bool leaves_ready, shared_axes;
    int axis_x, axis_y, axis_z;
    VEC origin[3];        /* each ray's origin */
    VEC filter_origin[3]; /* origin[axis_x], origin[axis_y], origin[axis_z] */
    VEC shear_x, shear_y; /* each ray's sr_ray.shear.x and .y */
    VEC bound_scale, bound_offset;
    _Alignas(64) uint32_t tested[LANES];
    sr_bvh_leaf_query q[LANES];
} PACKET;

/* The traversal stack: per entry the child, the rays that entered it and their entry
 * distances (lanes of the other rays unused). */
typedef struct PACKET_STACK {
    VEC t_entry[STACK_SIZE];
    uint32_t ref[STACK_SIZE];
    uint32_t rays[STACK_SIZE];
} PACKET_STACK;

/* Slab test of a box (bounds[row * stride] for the rows min x, max x, min y, max y, min z,
 * max z) against every ray of the packet: bit i of the result is set when ray i enters it,
 * *enter_out holds the entry distances. Per lane, the fast path of wide_box_test
 * (bvh_query_wide.c) with the bounds broadcast. */
static inline unsigned P(packet_box_test)(const float *bounds, size_t stride, const PACKET *p, VEC *enter_out)
{
    VEC near[3], far[3];
    for (int axis = 0; axis < 3; axis++) {
        near[axis] = V(mul)(V(sub)(V(splat)(bounds[(size_t)p->near_row[axis] * stride]), p->near_origin[axis]),
                            p->inv_near[axis]);
        far[axis] =
            V(mul)(V(sub)(V(splat)(bounds[(size_t)p->far_row[axis] * stride]), p->far_origin[axis]), p->inv_far[axis]);
    }
    const VEC enter = V(max)(V(max)(near[0], near[1]), V(max)(near[2], p->tmin));
    const VEC leave = V(min)(V(min)(far[0], far[1]), V(min)(far[2], p->limit));
    *enter_out = enter;
    return V(le)(enter, leave);
}

static void P(update_limit)(PACKET *p, unsigned ray, float tmax)
{
    p->limit = V(replace_lane)(p->limit, ray, sr_bvh_prune_limit(tmax));
}

/* The packets' triangle filter (filter_triangle: one triangle, the rays in lanes): the rays that
 * sr_ray_triangle might hit, per ray the operations described here; the others it misses.
 *
 * sr_ray_triangle hits only if its three edge functions w (sr_ray_space_edge, double) are all
 * >= 0 or all <= 0. The filter computes the same three edge functions in float, E, and a bound
 * B on |E - w|; if one E exceeds B and another is below -B, one w is > 0 and another < 0, and
 * sr_ray_triangle misses: the lane is rejected. Otherwise it stays a candidate and the caller
 * runs sr_ray_triangle's own code on it. So the filter never changes an answer; it only saves
 * the double-precision test on most pairs. (The single-ray leaf test, bvh_leaf.c, computes the
 * double edge functions of a pack's 4 triangles directly instead.)
 *
 * The bound, with u = 2^-24 and per vertex the floats r_x = fl(p_x - o_x), r_y, z =
 * fl(p_z - o_z) (axes of ray space; the same floats in every computation, one subtraction
 * each). The exact ray-space coordinate is X = r_x - s_x z (s the shear). sr_ray_triangle
 * computes x_ref = fl(r_x - fl(s_x z)), or fl(r_x - s_x z) if its compiler fused the
 * expression into an FMA; here x_s = fl(r_x - fl(s_x z)). Both lie within
 * u |X| + u (1 + u) |s_x z| + 2^-150 (a product underflowing to a subnormal) of X, so
 *   delta = |x_ref - x_s| <= 2u (1 + u) G + 2^-149,   G >= |r_x| + 2 |s_x z| (packet_filter_make).
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
 * bounded), so min and max of the three E are exact. tests/test_bvh_packet.c checks the filter
 * against sr_ray_triangle, fused or not, on rays aimed at edges and vertices, at tiny and huge
 * scales.
 *
 * K1 and K2 come from G, a bound on |r_x| + 2 |shear_x z| and |r_y| + 2 |shear_y z| over every
 * vertex of the tree: the relative coordinates r = p - o of a vertex inside the root box are
 * bounded by those of the box's faces (rounding is monotonic). Each float expression of
 * packet_filter_make is rounded up by its final factor 1 + 2^-20, which exceeds the at most
 * three roundings to nearest (a relative u each) before it, so G, K1 and K2 are never below the
 * real values the proof needs. Past 2^62 the filter is switched off (K1 = inf: no lane is
 * rejected), which keeps every product of the filter far from overflow. */

/* The triangle filter's bound constants (K1 and K2 above) of the packet's rays in a tree whose
 * root box is `root`, lane by lane. The axes are the packet's (shared_axes). */
static void P(packet_filter_make)(PACKET *p, const sr_bvh_node *root)
{
    const float low[3] = {root->min.x, root->min.y, root->min.z}, high[3] = {root->max.x, root->max.y, root->max.z};
    VEC reach[3];
    for (int axis = 0; axis < 3; axis++) {
        const VEC a = V(abs)(V(sub)(V(splat)(low[axis]), p->origin[axis]));
        const VEC b = V(abs)(V(sub)(V(splat)(high[axis]), p->origin[axis]));
        reach[axis] = V(max)(a, b);
    }
    const VEC up = V(splat)(1.0f + 0x1p-20f), two = V(splat)(2.0f);
    const VEC z = reach[p->axis_z];
    const VEC g_x = V(add)(reach[p->axis_x], V(mul)(two, V(mul)(V(abs)(p->shear_x), z)));
    const VEC g_y = V(add)(reach[p->axis_y], V(mul)(two, V(mul)(V(abs)(p->shear_y), z)));
    const VEC g = V(mul)(V(max)(g_x, g_y), up);
    const unsigned bounded = V(le)(g, V(splat)(0x1p62f));
    const VEC scale = V(mul)(V(add)(V(mul)(g, V(splat)(0x1p-20f)), V(splat)(0x1p-100f)), up);
    const VEC offset = V(mul)(V(add)(V(mul)(g, V(splat)(0x1p-24f)), V(splat)(0x1p-20f)), up);
    p->bound_scale = V(select)(bounded, V(splat)(INFINITY), scale);
    p->bound_offset = V(select)(bounded, V(splat)(0.0f), offset);
    p->filter_origin[0] = p->origin[p->axis_x];
    p->filter_origin[1] = p->origin[p->axis_y];
    p->filter_origin[2] = p->origin[p->axis_z];
}

/* The queries and the filter's constants, when the first leaf is reached. */
static void P(packet_start_leaves)(PACKET *p)
{
    const sr_ray *rays = p->rays;
    const sr_ray *first = &rays[lowest_bit(p->members)];
    p->axis_x = first->axis_x;
    p->axis_y = first->axis_y;
    p->axis_z = first->axis_z;
    /* a hand-made ray's axes may be anything: the single-ray leaf tests check them */
    p->shared_axes =
        p->axis_x >= 0 && p->axis_x <= 2 && p->axis_y >= 0 && p->axis_y <= 2 && p->axis_z >= 0 && p->axis_z <= 2;
    memset(p->tested, 0, sizeof p->tested);
    for (unsigned rest = p->members; rest; rest &= rest - 1) {
        const unsigned i = lowest_bit(rest);
        sr_bvh_leaf_query_start(&p->q[i], p->bvh, &rays[i], NULL, NULL, &p->hits[i]);
        p->q[i].normal_at_keep = false; /* the normals of the packet's hits are made together at the end */
        if (rays[i].axis_x != p->axis_x || rays[i].axis_y != p->axis_y || rays[i].axis_z != p->axis_z)
            p->shared_axes = false;
    }
    p->leaves_ready = true;
    if (!p->shared_axes)
        return;
    P(packet_filter_make)(p, &p->bvh->nodes[0]);
}

/* The rays (bit i for ray i) for which the filter (above) keeps triangle `lane` of `pack`, with
 * the rays in lanes (packet.shared_axes); its ray-space vertices in x, y, z_out. */
static inline unsigned P(filter_triangle)(const PACKET *p, const sr_triangle_pack *pack, unsigned lane, VEC x[3],
                                          VEC y[3], VEC z_out[3])
{
    for (int k = 0; k < 3; k++) {
        const VEC z = V(sub)(V(splat)(pack->v[k][p->axis_z][lane]), p->filter_origin[2]);
        z_out[k] = z;
        x[k] = V(sub)(V(sub)(V(splat)(pack->v[k][p->axis_x][lane]), p->filter_origin[0]), V(mul)(p->shear_x, z));
        y[k] = V(sub)(V(sub)(V(splat)(pack->v[k][p->axis_y][lane]), p->filter_origin[1]), V(mul)(p->shear_y, z));
    }
    const VEC edge_a = V(sub)(V(mul)(x[2], y[1]), V(mul)(y[2], x[1]));
    const VEC edge_b = V(sub)(V(mul)(x[0], y[2]), V(mul)(y[0], x[2]));
    const VEC edge_c = V(sub)(V(mul)(x[1], y[0]), V(mul)(y[1], x[0]));
    const VEC magnitude = V(max)(V(max)(V(max)(V(abs)(x[0]), V(abs)(y[0])), V(max)(V(abs)(x[1]), V(abs)(y[1]))),
                                 V(max)(V(abs)(x[2]), V(abs)(y[2])));
    const VEC bound = V(mul)(p->bound_scale, V(add)(magnitude, p->bound_offset));
    const VEC low = V(min)(V(min)(edge_a, edge_b), edge_c);
    const VEC high = V(max)(V(max)(edge_a, edge_b), edge_c);
    return ~V(gt_and_lt)(high, bound, low, V(negate)(bound)) & LANE_MASK;
}

/* The triangles of leaf `ref` against the rays of `rays`, one triangle at a time with the rays
 * in lanes (packet.shared_axes): the filter's verdict per (ray, triangle), then sr_ray_triangle's
 * own test for each pair it keeps (sr_bvh_leaf_triangle_in_ray_space). */
static void P(packet_leaf)(PACKET *p, uint32_t ref, unsigned rays)
{
    const sr_triangle_pack *pack = sr_wide_pack_at(p->bvh->wide, ref);
    for (;;) {
        const unsigned flags = u4_top_bits(pack->primitive);
        const unsigned real = (~flags & 0xeu) | 1u;
        UADD(p->tested, rays, bit_count(real));
        for (unsigned lanes = real; lanes; lanes &= lanes - 1) {
            const unsigned lane = lowest_bit(lanes);
            VEC x[3], y[3], z[3];
            unsigned candidates = P(filter_triangle)(p, pack, lane, x, y, z) & rays;
            if (!candidates)
                continue;
            /* The filter's ray-space vertices are sr_ray_triangle's, bit for bit (the
             * same operations on the same floats): the exact test goes on from them. */
            _Alignas(64) float space[3][3][LANES];
            for (int k = 0; k < 3; k++) {
                V(store)(space[k][0], x[k]);
                V(store)(space[k][1], y[k]);
                V(store)(space[k][2], z[k]);
            }
            const uint32_t primitive = pack->primitive[lane] & ~SR_PACK_FLAG;
            for (; candidates; candidates &= candidates - 1) {
                const unsigned ray = lowest_bit(candidates);
                sr_bvh_leaf_query *query = &p->q[ray];
                sr_vec3 vertex[3];
                for (int k = 0; k < 3; k++)
                    vertex[k] = (sr_vec3){space[k][0][ray], space[k][1][ray], space[k][2][ray]};
                sr_triangle_hit triangle_hit;
                if (sr_bvh_leaf_triangle_in_ray_space(query->ray->shear.z, query->ray->tmin, query->tmax, vertex[0], vertex[1],
                                                      vertex[2], &triangle_hit) &&
                    sr_bvh_hit_is_better(triangle_hit.t, primitive, query->tmax, query->best_primitive)) {
                    sr_bvh_leaf_query_keep(query, pack, lane, primitive, &triangle_hit);
                    P(update_limit)(p, ray, triangle_hit.t);
                }
            }
        }
        if (!(flags & 1u))
            return;
        pack++;
    }
}

/* Walks the tree with the packet's rays. */
static void P(traverse_packet)(PACKET *p, PACKET_STACK *stack, uint32_t visited[LANES])
{
    const sr_bvh_wide *wide = p->bvh->wide;
    int top = 0;
    uint32_t ref = 0;
    unsigned active = p->members;
    for (;;) {
        while (!(ref & SR_WIDE_LEAF)) {
            const sr_wide_node *node = sr_wide_node_at(wide, ref);
            const unsigned count = sr_wide_node_child_count(node);
            UADD(visited, active, count);
            /* The real children in push order (sr_wide_node.order: empty slots first, then
             * farthest first), each tested for every ray straight into the next stack entry,
             * which is kept when some active ray enters it: no branch per child (they
             * mispredict) and no copy of the entry distances. */
            const int bottom = top;
            const unsigned shift = 3 * p->octant;
            for (unsigned position = SR_WIDE_WIDTH - count; position < SR_WIDE_WIDTH; position++) {
                const unsigned slot = node->order[position] >> shift & 7u;
                const unsigned rays =
                    P(packet_box_test)(&node->bounds[0][slot], SR_WIDE_WIDTH, p, &stack->t_entry[top]) & active;
                stack->ref[top] = node->child[slot];
                stack->rays[top] = rays;
                top += rays != 0;
            }
            if (top == bottom)
                goto pop;
            top--;
            ref = stack->ref[top];
            active = stack->rays[top];
            if (!(ref & SR_WIDE_LEAF) && bit_count(active) <= ALONE_RAYS) {
                if (!p->leaves_ready)
                    P(packet_start_leaves)(p);
                goto alone;
            }
        }
        if (!p->leaves_ready)
            P(packet_start_leaves)(p);
        goto leaf;
    alone:
        /* Few rays left in this subtree: each walks it alone, as Embree's hybrid traversal
         * does; the packet's box tests would be spent mostly on empty lanes. */
        for (unsigned rest = active; rest; rest &= rest - 1) {
            const unsigned ray = lowest_bit(rest);
            const float before = p->q[ray].tmax;
            visited[ray] += sr_bvh_wide_traverse_subtree(&p->q[ray], ref);
            if (p->q[ray].tmax != before)
                P(update_limit)(p, ray, p->q[ray].tmax);
        }
        goto pop;
    leaf:
        /* one ray alone tests the leaf's packs 4 triangles at a time (sr_bvh_leaf_closest)
         * rather than each triangle in the packet's lanes (sphere_871414, whose leaves are
         * mostly entered by few rays of a packet: packets of 16 5% faster, others within
         * the noise) */
        if (p->shared_axes && (active & (active - 1))) {
            P(packet_leaf)(p, ref, active);
        } else {
            for (unsigned rest = active; rest; rest &= rest - 1) {
                const unsigned ray = lowest_bit(rest);
                const float before = p->q[ray].tmax;
                sr_bvh_leaf_closest(&p->q[ray], ref);
                if (p->q[ray].tmax != before) /* a new closest hit: its limit moves */
                    P(update_limit)(p, ray, p->q[ray].tmax);
            }
        }
    pop:
        /* the next entry some of whose rays still enter it before their limits */
        for (;;) {
            if (top == 0)
                return;
            top--;
            active = stack->rays[top] & V(le)(stack->t_entry[top], p->limit);
            if (active)
                break;
        }
        ref = stack->ref[top];
        if (!(ref & SR_WIDE_LEAF) && bit_count(active) <= ALONE_RAYS) {
            if (!p->leaves_ready)
                P(packet_start_leaves)(p);
            goto alone;
        }
    }
}

/* bit i: lane i is finite */
static inline unsigned P(finite_lanes)(VEC a)
{
    return V(le)(V(abs)(a), V(splat)(FLT_MAX));
}

/* For tests (sr_bvh_packet_filter): the rays of `rays` (count <= LANES, one axis order of ray
 * space) for which the packet's filter keeps triangle `lane` of `pack` in a tree whose root box
 * is `root`, with the very code of packet_leaf. */
static unsigned P(filter_rays)(const sr_triangle_pack *pack, unsigned lane, const sr_ray *rays, int count, sr_aabb root)
{
    const void *records[LANES];
    for (int i = 0; i < LANES; i++)
        records[i] = &rays[i < count ? i : 0];
    VEC row[RECORD_FLOATS];
    V(load_transposed)(records, row);
    VEC x[3], y[3], z[3];
    PACKET p;
    for (int axis = 0; axis < 3; axis++)
        p.origin[axis] = row[ORIGIN + axis];
    p.shear_x = row[SHEAR];
    p.shear_y = row[SHEAR + 1];
    p.axis_x = rays[0].axis_x;
    p.axis_y = rays[0].axis_y;
    p.axis_z = rays[0].axis_z;
    const sr_bvh_node root_node = {.min = root.min, .max = root.max};
    P(packet_filter_make)(&p, &root_node);
    return P(filter_triangle)(&p, pack, lane, x, y, z) & (LANE_MASK >> (LANES - count));
}

/* The packet query for count <= LANES rays (their hits cleared, the tree a triangle tree). */
static int P(query)(const sr_bvh *bvh, const sr_ray *rays, int count, sr_bvh_hit *hits)
{
    /* the rays' fields in lanes (lanes from `count` on repeat ray 0 and are no members) */
    const void *records[LANES];
    for (int i = 0; i < LANES; i++)
        records[i] = &rays[i < count ? i : 0];
    VEC row[RECORD_FLOATS];
    V(load_transposed)(records, row);
    /* sr_bvh_ray_is_usable and sr_bvh_ray_is_fast, lane by lane */
    const VEC zero = V(splat)(0.0f);
    const VEC direction_size =
        V(add)(V(add)(V(abs)(row[DIRECTION]), V(abs)(row[DIRECTION + 1])), V(abs)(row[DIRECTION + 2]));
    const unsigned usable = P(finite_lanes)(row[ORIGIN]) & P(finite_lanes)(row[ORIGIN + 1]) &
                            P(finite_lanes)(row[ORIGIN + 2]) & P(finite_lanes)(row[DIRECTION]) &
                            P(finite_lanes)(row[DIRECTION + 1]) & P(finite_lanes)(row[DIRECTION + 2]) &
                            ~V(le)(direction_size, zero) & V(le)(row[TMIN], row[TMAX]) & (LANE_MASK >> (LANES - count));
    const unsigned fast = usable & V(le)(zero, row[TMIN]) & P(finite_lanes)(row[INVERSE]) &
                          P(finite_lanes)(row[INVERSE + 1]) & P(finite_lanes)(row[INVERSE + 2]);
    const unsigned negative[3] = {V(lt)(row[INVERSE], zero), V(lt)(row[INVERSE + 1], zero),
                                  V(lt)(row[INVERSE + 2], zero)};
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

    PACKET p;
    p.bvh = bvh;
    p.rays = rays;
    p.hits = hits;
    p.members = members;
    p.leaves_ready = false;
    p.octant = octant;
    for (int axis = 0; axis < 3; axis++)
        p.origin[axis] = row[ORIGIN + axis];
    p.shear_x = row[SHEAR];
    p.shear_y = row[SHEAR + 1];
    /* the margin's terms (sr_bvh_slab_origins): R from the root's box, D the largest |d_k| */
    const sr_bvh_node *root = &bvh->nodes[0];
    const float low[3] = {root->min.x, root->min.y, root->min.z}, high[3] = {root->max.x, root->max.y, root->max.z};
    VEC reach = V(splat)(0.0f), speed = V(splat)(0.0f);
    for (int axis = 0; axis < 3; axis++) {
        const VEC below = V(abs)(V(sub)(V(splat)(low[axis]), row[ORIGIN + axis]));
        const VEC above = V(abs)(V(sub)(V(splat)(high[axis]), row[ORIGIN + axis]));
        reach = V(max)(V(max)(below, above), reach);
        speed = V(max)(V(abs)(row[DIRECTION + axis]), speed);
    }
    const VEC scaled = V(mul)(V(splat)(0x1p-46f), V(add)(V(splat)(1.0f), speed));
    const VEC tiny = V(mul)(V(splat)(0x1p-100f), V(max)(scaled, V(splat)(1.0f)));
    for (int axis = 0; axis < 3; axis++) {
        const int neg = octant >> axis & 1u;
        /* sr_bvh_slab_origins, lane by lane: the same operations on each ray's floats (max is
         * exact and no operand is NaN for a usable ray); the near face is the max one where the
         * packet's octant says 1/d < 0 */
        const VEC margin = V(add)(V(mul)(V(splat)(0x1p-18f), reach),
                                  V(add)(tiny, V(mul)(V(splat)(0x1p-22f), V(abs)(row[ORIGIN + axis]))));
        const VEC ahead = V(add)(row[ORIGIN + axis], margin), behind = V(sub)(row[ORIGIN + axis], margin);
        p.near_origin[axis] = neg ? behind : ahead;
        p.far_origin[axis] = neg ? ahead : behind;
        p.inv_near[axis] = row[INVERSE + axis];
        p.inv_far[axis] = V(mul)(row[INVERSE + axis], V(splat)(1.0f + 0x1p-21f)); /* as wide_ray_make */
        p.near_row[axis] = 2 * axis + neg;
        p.far_row[axis] = 2 * axis + 1 - neg;
    }
    /* sr_bvh_prune_limit lane by lane (tmax is never NaN for a member) */
    const VEC widened = V(add)(row[TMAX], V(mul)(V(abs)(row[TMAX]), V(splat)(0x1p-18f)));
    const VEC limit = V(select)(P(finite_lanes)(row[TMAX]), row[TMAX], widened);
    p.tmin = V(select)(members, V(splat)(INFINITY), row[TMIN]);
    p.limit = V(select)(members, V(splat)(-INFINITY), limit);

    /* The root's box first: a packet off the mesh is done after one box test instead of the
     * root's 8 (its rays count that one box). */
    uint32_t visited[LANES] = {0};
    const float root_bounds[6] = {root->min.x, root->max.x, root->min.y, root->max.y, root->min.z, root->max.z};
    VEC entry;
    const unsigned in_root = P(packet_box_test)(root_bounds, 1, &p, &entry) & members;
    UADD(visited, members, 1);
    for (unsigned rest = members & ~in_root; rest; rest &= rest - 1)
        hits[lowest_bit(rest)].nodes_visited = 1;
    members = in_root;
    p.members = members;
    if (!members)
        return found;
    PACKET_STACK stack;
    P(traverse_packet)(&p, &stack, visited);
    if (!p.leaves_ready) { /* no leaf reached: misses */
        for (unsigned rest = members; rest; rest &= rest - 1)
            hits[lowest_bit(rest)].nodes_visited = visited[lowest_bit(rest)];
        return found;
    }
    /* sr_bvh_leaf_query_finish for each ray, with the normals of all hits computed at once */
    normal_batch batch;
    batch.count = 0;
    for (unsigned rest = members; rest; rest &= rest - 1) {
        const unsigned i = lowest_bit(rest);
        const sr_bvh_leaf_query *q = &p.q[i];
        sr_bvh_hit *hit = &hits[i];
        hit->nodes_visited = visited[i];
        hit->primitives_tested = q->tested + p.tested[i];
        if (q->best_primitive == SR_BVH_NO_HIT)
            continue;
        found++;
        hit->primitive = q->best_primitive;
        hit->point = sr_vec3_add(rays[i].origin, sr_vec3_scale(rays[i].direction, hit->t));
        if (q->best_pack)
            normal_batch_add(&batch, q->best_pack, q->best_lane, &hit->normal);
    }
    normal_batch_finish(&batch);
    return found;
}

#undef PACKET
#undef PACKET_STACK
