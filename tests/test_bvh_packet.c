/* tests/test_bvh_packet.c — packets of rays over the wide tree (src/bvh/bvh_query_packet.c).
 *
 * Packets of rays (sr_bvh_query_ray_packet) must give every ray exactly its single-ray answer
 * (triangle, t, u, v, point and normal bit for bit), for coherent tiles of primary rays and
 * for incoherent mixes; the packet compiled with the portable lanes (SR_BVH_PORTABLE) and the
 * copies of every instruction set must answer alike, counters included. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>

#include <softrast/bvh.h>
#include <softrast/scene.h>

#include "bvh_wide_helpers.h"
#include "test_budget.h"

/* The packets' triangle filter, portable and (in builds that dispatch at run time) per
 * instruction set (src/bvh/bvh_leaf.h names the copies). */
unsigned sr_bvh_packet_filter_portable(const sr_triangle_pack *pack, unsigned lane, const sr_ray *rays, int count,
                                       sr_aabb root);
#if defined(SR_ISA_DISPATCH)
unsigned sr_bvh_packet_filter_base(const sr_triangle_pack *pack, unsigned lane, const sr_ray *rays, int count,
                                   sr_aabb root);
unsigned sr_bvh_packet_filter_avx2(const sr_triangle_pack *pack, unsigned lane, const sr_ray *rays, int count,
                                   sr_aabb root);
unsigned sr_bvh_packet_filter_avx512(const sr_triangle_pack *pack, unsigned lane, const sr_ray *rays, int count,
                                     sr_aabb root);
#endif

/* The packet's answer for each ray is the single-ray one; the portable packet answers alike,
 * counters included. */
static void compare_packet(const sr_bvh *bvh, const sr_ray *rays, int count, const char *what, int index, tally *t)
{
    sr_bvh_hit packet[SR_BVH_PACKET_MAX], portable[SR_BVH_PACKET_MAX];
    int found = sr_bvh_query_ray_packet(bvh, rays, count, packet);
    cr_assert_eq(sr_bvh_query_ray_packet_portable(bvh, rays, count, portable), found);
    int expected = 0;
    for (int i = 0; i < count; i++) {
        sr_bvh_hit single;
        bool hit = sr_bvh_query_ray(bvh, &rays[i], &single);
        expected += hit;
        t->rays++;
        t->hits += hit;
        cr_assert(same_hit(&packet[i], &single),
                  "%s packet %d ray %d of %d: packet triangle %u t %a, single ray triangle %u t %a", what, index, i,
                  count, packet[i].primitive, (double)packet[i].t, single.primitive, (double)single.t);
        cr_assert(same_hit(&portable[i], &packet[i]) && portable[i].nodes_visited == packet[i].nodes_visited &&
                      portable[i].primitives_tested == packet[i].primitives_tested,
                  "%s packet %d ray %d: the portable packet answers differently", what, index, i);
        if (hit)
            cr_assert_gt(packet[i].nodes_visited, 0);
    }
    cr_assert_eq(found, expected, "%s packet %d: %d hits counted, %d found", what, index, found, expected);
#if defined(SR_ISA_DISPATCH)
    for (sr_isa isa = SR_ISA_BUILD; isa <= SR_ISA_AVX512; isa++) {
        if (!sr_isa_available(isa))
            continue;
        sr_bvh_hit copy[SR_BVH_PACKET_MAX];
        cr_assert_eq(sr_bvh_query_ray_packet_isa(isa, bvh, rays, count, copy), found);
        for (int i = 0; i < count; i++)
            cr_assert(same_hit(&copy[i], &packet[i]) && copy[i].nodes_visited == packet[i].nodes_visited &&
                          copy[i].primitives_tested == packet[i].primitives_tested,
                      "%s packet %d ray %d: the %s packet answers differently", what, index, i, sr_isa_name(isa));
    }
#endif
}

/* The benchmark's primary rays (the README's benchmark scene) of a normalised mesh in tiles of tile_w x
 * tile_h pixels, every tile of a 320x180 image. */
static void compare_primary_packets(sr_mesh *mesh, int tile_w, int tile_h, const char *what)
{
    enum { WIDTH = 320, HEIGHT = 180 };
    sr_mesh_normalize(mesh);
    sr_bvh *bvh = build_mesh(mesh);
    sr_ray *image = malloc((size_t)WIDTH * HEIGHT * sizeof *image);
    sr_bench_scene_primary_rays(WIDTH, HEIGHT, image);
    tally t = {0};
    int index = 0;
    for (int y = 0; y < HEIGHT; y += tile_h) {
        for (int x = 0; x < WIDTH; x += tile_w) {
            sr_ray tile[SR_BVH_PACKET_MAX];
            int n = 0;
            for (int dy = 0; dy < tile_h; dy++)
                for (int dx = 0; dx < tile_w; dx++)
                    tile[n++] = image[(size_t)(y + dy) * WIDTH + (size_t)(x + dx)];
            compare_packet(bvh, tile, n, what, index++, &t);
        }
    }
    cr_assert_gt(t.hits, t.rays / 20, "%s: %d hits of %d", what, t.hits, t.rays);
    free(image);
    sr_bvh_destroy(bvh);
}

Test(bvh_packet, primary_ray_tiles_give_the_single_ray_answers, .timeout = 600)
{
    sr_mesh *sphere = NULL, *box = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 96, 48, &sphere, NULL), SR_OK);
    cr_assert_eq(sr_mesh_create_box((sr_vec3){1, 1, 1}, 16, &box, NULL), SR_OK);
    compare_primary_packets(sphere, 4, 4, "sphere 4x4");
    compare_primary_packets(sphere, 4, 2, "sphere 4x2");
    compare_primary_packets(box, 4, 4, "box grid 4x4");
    sr_mesh_destroy(sphere);
    sr_mesh_destroy(box);
    const char *names[] = {"teapot.obj", "bunny.obj", "dragon_res3.obj"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sr_mesh *mesh = load_shared_mesh(names[i]);
        if (!mesh)
            continue;
        compare_primary_packets(mesh, 4, 4, names[i]);
        compare_primary_packets(mesh, 4, 2, names[i]);
        sr_mesh_destroy(mesh);
    }
}

/* Incoherent packets: mixed rays (all octants, tmin < 0, axis-parallel), unusable rays (NaN,
 * zero direction, empty range), any count from 0 to SR_BVH_PACKET_MAX; and packets of rays
 * that share an octant but not an axis order of ray space. */
Test(bvh_packet, incoherent_packets_give_the_single_ray_answers, .timeout = 600)
{
    sr_mesh *soup = random_soup(20000, 1.0f, 20, 81);
    sr_bvh *bvh = build_mesh(soup);
    const sr_aabb bounds = sr_mesh_bounds(soup);
    rng r = {82};
    tally t = {0};
    for (int index = 0; index < SR_TEST_COUNT(6000, 1200); index++) {
        sr_ray rays[SR_BVH_PACKET_MAX];
        const int count = (int)(rng_next(&r) % (SR_BVH_PACKET_MAX + 1));
        const bool coherent = index % 2 == 0;
        const sr_vec3 origin =
            rng_in_box(&r, (sr_aabb){sr_vec3_scale(bounds.min, 2.5f), sr_vec3_scale(bounds.max, 2.5f)});
        const sr_vec3 target = rng_in_box(&r, bounds);
        for (int i = 0; i < count; i++) {
            if (coherent && index % 4 == 2) { /* one octant, the dominant axis alternating: two axis orders */
                sr_vec3 d = {rng_range(&r, 0.5f, 1.0f), rng_range(&r, 0.1f, 0.3f), rng_range(&r, 0.5f, 1.0f)};
                d = i % 2 ? (sr_vec3){fmaxf(d.x, d.z), d.y, fminf(d.x, d.z)}
                          : (sr_vec3){fminf(d.x, d.z), d.y, fmaxf(d.x, d.z)};
                rays[i] = sr_ray_make(sr_vec3_sub(target, sr_vec3_scale(d, 2.0f)), d, 0.0f, INFINITY);
            } else if (coherent) { /* from one point towards a small region: one octant */
                sr_vec3 aim = sr_vec3_add(target, sr_vec3_scale(rng_direction(&r), 0.2f));
                rays[i] = sr_ray_make(origin, sr_vec3_sub(aim, origin), 0.0f, i % 5 == 0 ? 2.0f : INFINITY);
            } else {
                rays[i] = mixed_ray(&r, soup, bounds, index * 17 + i);
            }
            switch (rng_next(&r) % 25) {
            case 0:
                rays[i] = sr_ray_make((sr_vec3){NAN, 0, 0}, (sr_vec3){1, 0, 0}, 0, INFINITY);
                break;
            case 1:
                rays[i] = sr_ray_make(origin, (sr_vec3){0, 0, 0}, 0, INFINITY);
                break;
            case 2:
                rays[i] = sr_ray_make(origin, sr_vec3_sub(target, origin), 2.0f, 1.0f);
                break;
            default:
                break;
            }
        }
        compare_packet(bvh, rays, count, coherent ? "coherent" : "incoherent", index, &t);
    }
    cr_assert_gt(t.hits, t.rays / 5, "%d hits of %d", t.hits, t.rays);
    /* NULL and empty arguments */
    sr_bvh_hit hits[2];
    cr_assert_eq(sr_bvh_query_ray_packet(NULL, NULL, 2, hits), 0);
    cr_assert_eq(sr_bvh_query_ray_packet(bvh, NULL, 0, hits), 0);
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(soup);
}

/* Packets whose rays graze: from points around one origin towards the vertices, edge midpoints,
 * points on the edges and box corners of one triangle (the edge cases of the triangle filter and
 * of the box tests, in the packet's lanes), at scales from 1e-39 to 1e30 (the filter's bound
 * per lane, switched off past 2^62); one packet in ten carries a ray of the opposite direction,
 * one with tmin = -inf or one with a NaN origin. */
Test(bvh_packet, grazing_packets_at_every_scale_give_the_single_ray_answers, .timeout = 600)
{
    const float scales[] = {1.0f, 1e30f, 1e18f, 1e-18f, 1e-39f};
    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
        sr_mesh *soup = random_soup(3000, scales[s], 10, 91 + s);
        sr_bvh *bvh = build_mesh(soup);
        const sr_aabb bounds = sr_mesh_bounds(soup);
        const sr_aabb around = {sr_vec3_scale(bounds.min, 2.5f), sr_vec3_scale(bounds.max, 2.5f)};
        rng r = {93 + s};
        tally t = {0};
        int aimed = 0;
        for (int index = 0; index < SR_TEST_COUNT(4000, 800); index++) {
            const int count = index % 2 ? 16 : 8;
            const size_t tri = rng_next(&r) % soup->triangle_count;
            sr_aabb box = sr_aabb_empty();
            for (int k = 0; k < 3; k++)
                box = sr_aabb_grow(box, mesh_vertex(soup, tri, k));
            /* from afar, or from close to the triangle, where the rounding of ray space matters
             * most (the filter's bound is relative to the whole tree's box) */
            const sr_vec3 size3 = sr_aabb_extent(index % 4 < 2 ? bounds : box);
            const float size = fmaxf(size3.x, fmaxf(size3.y, size3.z)); /* (a length overflows at 1e30) */
            const sr_vec3 base = index % 4 < 2
                                     ? rng_in_box(&r, around)
                                     : sr_vec3_add(sr_aabb_centre(box),
                                                   sr_vec3_scale(rng_direction(&r), size * rng_range(&r, 0.5f, 3.0f)));
            const float jitter = (index % 4 < 2 ? 1e-3f : 1e-2f) * size;
            sr_ray rays[SR_BVH_PACKET_MAX];
            for (int i = 0; i < count; i++) {
                const int k = i % 3;
                const sr_vec3 a = mesh_vertex(soup, tri, k), b = mesh_vertex(soup, tri, (k + 1) % 3);
                sr_vec3 target;
                switch (i / 3 % 4) {
                case 0:
                    target = a;
                    break;
                case 1:
                    target = sr_vec3_scale(sr_vec3_add(a, b), 0.5f);
                    break;
                case 2:
                    target = sr_vec3_add(a, sr_vec3_scale(sr_vec3_sub(b, a), rng_unit(&r)));
                    break;
                default:
                    target = (sr_vec3){i & 1 ? box.min.x : box.max.x, i & 2 ? box.min.y : box.max.y,
                                       i & 4 ? box.min.z : box.max.z};
                    break;
                }
                const sr_vec3 origin = sr_vec3_add(base, sr_vec3_scale(rng_direction(&r), jitter));
                rays[i] = sr_ray_make(origin, sr_vec3_sub(target, origin), 0.0f, INFINITY);
                aimed += i / 3 % 4 < 3;
            }
            if (index % 10 == 0) {
                const int i = (int)(rng_next(&r) % (uint64_t)count);
                switch (index / 10 % 3) {
                case 0:
                    rays[i] = sr_ray_make(rays[i].origin, sr_vec3_negate(rays[i].direction), 0.0f, INFINITY);
                    break;
                case 1:
                    rays[i] = sr_ray_make(rays[i].origin, rays[i].direction, -INFINITY, INFINITY);
                    break;
                default:
                    rays[i] = sr_ray_make((sr_vec3){NAN, 0, 0}, rays[i].direction, 0.0f, INFINITY);
                    break;
                }
            }
            compare_packet(bvh, rays, count, "grazing", index, &t);
        }
        /* rays aimed at a triangle's vertices and edges hit it or something before it (not at
         * 1e-39, where 1/d overflows and subnormal triangles lose their shape) */
        if (scales[s] > 1e-30f)
            cr_assert_geq(t.hits, aimed - 400, "scale %g: %d hits of %d rays aimed at vertices and edges",
                          (double)scales[s], t.hits, aimed);
        sr_bvh_destroy(bvh);
        sr_mesh_destroy(soup);
    }
}

/* The packets' filter in every copy: the lanes it keeps for each ray. */
static unsigned packet_filter(const sr_triangle_pack *pack, unsigned lane, const sr_ray *rays, int count, sr_aabb root)
{
    const unsigned kept = sr_bvh_packet_filter_portable(pack, lane, rays, count, root);
#if defined(SR_ISA_DISPATCH)
    cr_assert_eq(sr_bvh_packet_filter_base(pack, lane, rays, count, root), kept);
    if (sr_isa_available(SR_ISA_AVX2))
        cr_assert_eq(sr_bvh_packet_filter_avx2(pack, lane, rays, count, root), kept);
    if (sr_isa_available(SR_ISA_AVX512))
        cr_assert_eq(sr_bvh_packet_filter_avx512(pack, lane, rays, count, root), kept);
#else
    cr_assert_eq(sr_bvh_packet_filter(pack, lane, rays, count, root), kept);
#endif
    return kept;
}

/* The packets' triangle filter (the rays in lanes, its bound constants computed lane by lane)
 * may only reject a triangle for a ray that sr_ray_triangle misses, even computed with FMA
 * (fused_reference_may_hit): packs of 4 triangles at
 * scales from 1e-39 to 1e30, in trees whose root box is theirs or 3 times larger, and packets
 * of 8 or 16 rays of one axis order from around one point, close to lane 0's triangle or far,
 * aimed at its vertices, edges, inside and just outside. Every copy keeps the same rays. */
Test(bvh_packet, filter_rejects_only_triangles_that_sr_ray_triangle_misses, .timeout = 600)
{
    const float scales[] = {1.0f, 1e30f, 1e18f, 1e-18f, 1e-39f};
    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
        const float scale = scales[s];
        rng r = {71 + s};
        long hits = 0, misses = 0, rejected = 0;
        for (int i = 0; i < SR_TEST_COUNT(4000, 800); i++) {
            sr_vec3 v[4][3];
            sr_aabb root = sr_aabb_empty();
            sr_triangle_pack pack = {0};
            for (int lane = 0; lane < 4; lane++) {
                const sr_vec3 centre = sr_vec3_scale(rng_in_box(&r, (sr_aabb){{-1, -1, -1}, {1, 1, 1}}), scale);
                const float size =
                    scale * (rng_unit(&r) < 0.5f ? rng_range(&r, 1e-4f, 1e-2f) : rng_range(&r, 0.01f, 0.5f));
                for (int k = 0; k < 3; k++) {
                    v[lane][k] = sr_vec3_add(centre, sr_vec3_scale(rng_direction(&r), size));
                    root = sr_aabb_grow(root, v[lane][k]);
                    const float p[3] = {v[lane][k].x, v[lane][k].y, v[lane][k].z};
                    for (int axis = 0; axis < 3; axis++)
                        pack.v[k][axis][lane] = p[axis];
                }
            }
            if (i % 5 == 0) /* the root box of a larger scene */
                root = sr_aabb_merge(root, (sr_aabb){sr_vec3_scale((sr_vec3){-3, -3, -3}, scale),
                                                     sr_vec3_scale((sr_vec3){3, 3, 3}, scale)});
            const sr_vec3 side = sr_vec3_sub(v[0][1], v[0][0]); /* (a length overflows at 1e30) */
            const float edge = fmaxf(fabsf(side.x), fmaxf(fabsf(side.y), fabsf(side.z)));
            const sr_vec3 base =
                i % 2 ? sr_vec3_scale(rng_in_box(&r, (sr_aabb){{-3, -3, -3}, {3, 3, 3}}), scale)
                      : sr_vec3_add(v[0][0], sr_vec3_scale(rng_direction(&r), edge * rng_range(&r, 0.5f, 3.0f)));
            const int count = i % 4 < 2 ? 8 : 16;
            sr_ray rays[SR_BVH_PACKET_MAX];
            for (int k = 0; k < count; k++) {
                const sr_vec3 target = rng_aim_at_triangle(&r, v[0][0], v[0][1], v[0][2]);
                const sr_vec3 origin = sr_vec3_add(base, sr_vec3_scale(rng_direction(&r), edge * 0.05f));
                rays[k] = sr_ray_make(origin, sr_vec3_sub(target, origin), -INFINITY, INFINITY);
                if (rays[k].axis_x != rays[0].axis_x || rays[k].axis_y != rays[0].axis_y ||
                    rays[k].axis_z != rays[0].axis_z)
                    rays[k] = rays[0]; /* one axis order in a packet */
            }
            for (unsigned lane = 0; lane < 4; lane++) {
                const unsigned kept = packet_filter(&pack, lane, rays, count, root);
                for (int k = 0; k < count; k++) {
                    cr_assert(!fused_reference_may_hit(&rays[k], v[lane][0], v[lane][1], v[lane][2]) ||
                                  (kept >> k & 1u),
                              "scale %g packet %d ray %d lane %u: the filter rejects a triangle that a fused "
                              "sr_ray_triangle hits",
                              (double)scale, i, k, lane);
                    sr_triangle_hit hit;
                    if (sr_ray_triangle(&rays[k], v[lane][0], v[lane][1], v[lane][2], &hit)) {
                        hits++;
                        cr_assert(kept >> k & 1u,
                                  "scale %g packet %d ray %d lane %u: the filter rejects a triangle that is hit",
                                  (double)scale, i, k, lane);
                    } else if (lane > 0) {
                        misses++;
                        rejected += !(kept >> k & 1u);
                    }
                }
            }
        }
        /* at subnormal scales most aimed rays miss through the rounding of ray space (the sanitized
         * run's fewer packets: 15 hits built by gcc, 8 by clang, which draws the random points in
         * another order: C leaves the order of a call's arguments to the compiler) */
        cr_assert_gt(hits, scale > 1e-30f ? SR_TEST_COUNT(20000, 4000) : SR_TEST_COUNT(10, 4), "scale %g: %ld hits",
                     (double)scale, hits);
        if (scale == 1.0f) /* (past 2^62 the filter is off; at tiny scales its absolute terms dominate) */
            cr_assert_gt(rejected, misses - misses / 100, "scale %g: the filter rejects only %ld of %ld misses",
                         (double)scale, rejected, misses);
    }
}
