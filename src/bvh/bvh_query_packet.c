/* src/bvh/bvh_query_packet.c — closest hits of a packet of up to 16 rays at once
 * (sr_bvh_query_ray_packet, softrast/bvh.h), for coherent rays such as the primary rays of a
 * block of pixels.
 *
 * Packet traversal over the wide tree (Wald, Slusallek, Benthin & Wagner, "Interactive
 * rendering with coherent ray tracing", 2001; Embree's hybrid traversal): the rays walk the
 * tree together, one ray per SIMD lane (8 lanes for up to 8 rays, 16 for more: the traversal is
 * bvh_query_packet_lanes.h, included once per width). The packet first tests the root's box. At
 * a wide node each child box is tested against all rays at once, which gives the set of rays
 * that enter it; the children entered by some ray are pushed with that set and the rays' entry
 * distances in the node's order for the packet's octant, farthest first, and the nearest is
 * visited next; a popped entry keeps the rays that still enter it before their prune limits. A
 * subtree entered by few rays is walked by each of them with the single-ray traversal. At a
 * leaf entered by two rays or more that share their axis order of ray space, each triangle is
 * filtered against all of them at once, and the pairs the filter keeps go through
 * sr_ray_triangle's arithmetic, from the filter's ray-space vertices; otherwise each ray runs
 * the single-ray leaf test (bvh_leaf.c). The packet takes the rays
 * that share one octant and the box test's short path (sr_bvh_ray_is_fast); the others, and
 * packets too small to gain, go through the single-ray traversal. (A test of a node's 8 child
 * boxes against the whole packet's frustum before the per-ray tests was measured: it cut the
 * per-ray child tests from 6.9 to 1.3 per node but made packets 0-8% slower, since the traversal
 * is bound by the latency of each node's tests, not their number. Prefetching the pushed
 * children's nodes gained nothing either.)
 *
 * Exactness. For each ray of the packet the box test performs the single-ray test's operations
 * on the same floats (the same near and far faces, the same widening of the exit, the ray's
 * own prune limit), so it enters a box exactly when the single-ray traversal would at that
 * limit; the filter (bvh_query_packet_lanes.h) rejects only pairs that sr_ray_triangle misses,
 * and its ray-space vertices are sr_ray_triangle's (the same operations on the same floats);
 * the exact test is sr_ray_triangle's. The answer of a traversal does not depend on the order in which it
 * meets the triangles (sr_bvh_hit_is_better, sr_bvh_prune_limit), so every ray gets its
 * single-ray answer.
 *
 * Knows nothing of raster or scene. */
#define SR_BVH_KERNEL 1 /* bvh_leaf.h: one of the kernels compiled per instruction set */
#include "bvh_leaf.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* Deepest stack: at most 7 entries per wide level (bvh_query_wide.c). */
#define STACK_SIZE (7 * SR_BVH_MAX_DEPTH + 8)

/* Fewer rays than this in a packet go one by one: the packet would test boxes for few rays. */
#define PACKET_MIN_RAYS 4
/* A subtree that at most ALONE_RAYS rays of a packet enter is walked by each of them alone,
 * set per width below (measured against 4 for both, thread CPU time: packets of 8 3-5% faster
 * with 2 on bunny and dragon_res3, packets of 16 2-4% faster with 3; 4 had been measured on
 * dragon_x16 against 0). */

/* The rays' fields in lanes: the first RECORD_FLOATS floats of each sr_ray, transposed. */
enum { ORIGIN = 0, DIRECTION = 3, INVERSE = 6, TMIN = 9, TMAX = 10, SHEAR = 14, RECORD_FLOATS = 16 };
_Static_assert(offsetof(sr_ray, origin) == ORIGIN * sizeof(float) &&
                   offsetof(sr_ray, direction) == DIRECTION * sizeof(float) &&
                   offsetof(sr_ray, inv_direction) == INVERSE * sizeof(float) &&
                   offsetof(sr_ray, tmin) == TMIN * sizeof(float) && offsetof(sr_ray, tmax) == TMAX * sizeof(float) &&
                   offsetof(sr_ray, shear) == SHEAR * sizeof(float) && sizeof(sr_ray) >= RECORD_FLOATS * sizeof(float),
               "the packet reads the first floats of sr_ray as one record");

/* sr_bvh_hit_finish's normals of the hits of a packet, computed together: the same double
 * operations on the same floats, in a loop over the hits that compilers vectorise (IEEE
 * operations lane by lane, never contracted: the same bits as one hit at a time), so that
 * the square roots and divisions of the hits overlap. */
typedef struct normal_batch {
    int count;
    double e1[3][SR_BVH_PACKET_MAX], e2[3][SR_BVH_PACKET_MAX];
    sr_vec3 *normal[SR_BVH_PACKET_MAX];
} normal_batch;

static void normal_batch_add(normal_batch *b, const sr_triangle_pack *pack, unsigned lane, sr_vec3 *normal)
{
    const int k = b->count++;
    for (int axis = 0; axis < 3; axis++) {
        const float v0 = pack->v[0][axis][lane];
        b->e1[axis][k] = (double)pack->v[1][axis][lane] - v0;
        b->e2[axis][k] = (double)pack->v[2][axis][lane] - v0;
    }
    b->normal[k] = normal;
}

static void normal_batch_finish(normal_batch *b)
{
    float normal[3][SR_BVH_PACKET_MAX];
    for (int k = 0; k < b->count; k++) {
        const double n0 = b->e1[1][k] * b->e2[2][k] - b->e1[2][k] * b->e2[1][k];
        const double n1 = b->e1[2][k] * b->e2[0][k] - b->e1[0][k] * b->e2[2][k];
        const double n2 = b->e1[0][k] * b->e2[1][k] - b->e1[1][k] * b->e2[0][k];
        const double length = sqrt(n0 * n0 + n1 * n1 + n2 * n2);
        const bool positive = length > 0.0;
        normal[0][k] = positive ? (float)(n0 / length) : 0.0f;
        normal[1][k] = positive ? (float)(n1 / length) : 0.0f;
        normal[2][k] = positive ? (float)(n2 / length) : 0.0f;
    }
    for (int k = 0; k < b->count; k++)
        *b->normal[k] = (sr_vec3){normal[0][k], normal[1][k], normal[2][k]};
}

/* 8 rays in f8 lanes */
#define LANES 8
#define ALONE_RAYS 2
#define LANE_MASK 0xffu
#define VEC f8
#define V(op) f8_##op
#define UADD u8_add_masked
#define P(name) name##_8
#include "bvh_query_packet_lanes.h"
#undef LANES
#undef ALONE_RAYS
#undef LANE_MASK
#undef VEC
#undef V
#undef UADD
#undef P

/* 16 rays in f16 lanes */
#define LANES 16
#define ALONE_RAYS 3
#define LANE_MASK 0xffffu
#define VEC f16
#define V(op) f16_##op
#define UADD u16_add_masked
#define P(name) name##_16
#include "bvh_query_packet_lanes.h"
#undef LANES
#undef ALONE_RAYS
#undef LANE_MASK
#undef VEC
#undef V
#undef UADD
#undef P

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
    /* a packet of up to 8 rays in 8 lanes: half the work of 16 lanes */
    return count <= 8 ? query_8(bvh, rays, count, hits) : query_16(bvh, rays, count, hits);
}

unsigned sr_bvh_packet_filter(const sr_triangle_pack *pack, unsigned lane, const sr_ray *rays, int count, sr_aabb root)
{
    assert(count >= 1 && count <= SR_BVH_PACKET_MAX && "sr_bvh_packet_filter: 1 to 16 rays");
    for (int i = 1; i < count; i++)
        assert(rays[i].axis_x == rays[0].axis_x && rays[i].axis_y == rays[0].axis_y &&
               rays[i].axis_z == rays[0].axis_z && "sr_bvh_packet_filter: rays of one axis order");
    return count <= 8 ? filter_rays_8(pack, lane, rays, count, root) : filter_rays_16(pack, lane, rays, count, root);
}
