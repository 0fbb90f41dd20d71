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

/* The benchmark's primary rays (BENCH_SCENE.md) of a normalised mesh in tiles of tile_w x
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
    for (int index = 0; index < 6000; index++) {
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
