/* tests/test_bvh_wide.c — the wide tree of src/bvh/ (bvh_wide.c: the collapse; bvh_query_wide.c:
 * the traversal and its triangle filter), one ray at a time (packets: tests/test_bvh_packet.c).
 *
 * The wide traversal must answer exactly what the binary traversal it replaced answers
 * (sr_bvh_query_ray_binary, kept for this): the same hit or miss, and for a hit the same
 * triangle, t, u, v, point and normal bit for bit, ray by ray, on generated meshes (closed
 * sphere, torus and box grid, random soups with degenerate triangles, huge and tiny
 * coordinates) and the shared meshes, for random rays, rays aimed at vertices, edges and box
 * corners, axis-parallel rays and rays from inside closed meshes (which must all hit). The
 * traversal compiled with the portable lanes (SR_BVH_PORTABLE, tests/meson.build) must give
 * the same answers and the same counters as the SIMD one. The test of a pack of 4 triangles is
 * checked directly against sr_ray_triangle's edge functions: it keeps exactly the lanes whose
 * edge functions agree in sign, so every triangle hit.
 * The tree itself is checked against the binary one (every triangle once, boxes nested). */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/bvh.h>
#include <softrast/scene.h>

#include "bvh_wide_helpers.h"
#include "test_budget.h"

/* ---- one ray, every traversal ---- */

/* The caller's test of the custom query: sr_ray_triangle on the mesh's triangle. */
static bool intersect_mesh_triangle(void *user, uint32_t primitive, const sr_ray *ray, sr_bvh_hit *hit)
{
    const sr_mesh *mesh = user;
    sr_triangle_hit h;
    if (!sr_ray_triangle(ray, mesh_vertex(mesh, primitive, 0), mesh_vertex(mesh, primitive, 1),
                         mesh_vertex(mesh, primitive, 2), &h))
        return false;
    hit->t = h.t;
    hit->u = h.u;
    hit->v = h.v;
    return true;
}

/* The public entry's checks around the portable traversal. */
static bool query_portable(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode,
                           sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *hit)
{
    sr_bvh_hit_clear(hit);
    if (!sr_bvh_ray_is_usable(ray) || bvh->primitive_count == 0)
        return false;
    return sr_bvh_query_wide_portable(bvh, ray, mode, intersect, user, hit);
}

/* Wide (SIMD and portable) against binary, for the closest, any and custom queries. */
static void compare_ray(const sr_mesh *mesh, const sr_bvh *bvh, const sr_ray *ray, const char *what, int index,
                        tally *t)
{
    sr_bvh_hit wide, binary, portable;
    bool found = sr_bvh_query_ray(bvh, ray, &wide);
    bool found_binary = sr_bvh_query_ray_binary(bvh, ray, SR_BVH_RAY_CLOSEST, NULL, NULL, &binary);
    bool found_portable = query_portable(bvh, ray, SR_BVH_RAY_CLOSEST, NULL, NULL, &portable);
    t->rays++;
    t->hits += found;
    if (found != found_binary || (found && !same_hit(&wide, &binary)))
        cr_assert_fail("%s ray %d (origin %a %a %a, direction %a %a %a, t in [%a, %a]): wide %s triangle %u t %a, "
                       "binary %s triangle %u t %a",
                       what, index, (double)ray->origin.x, (double)ray->origin.y, (double)ray->origin.z,
                       (double)ray->direction.x, (double)ray->direction.y, (double)ray->direction.z, (double)ray->tmin,
                       (double)ray->tmax, found ? "hit" : "missed", wide.primitive, (double)wide.t,
                       found_binary ? "hit" : "missed", binary.primitive, (double)binary.t);
    cr_assert(found_portable == found && same_hit(&portable, &wide) && portable.nodes_visited == wide.nodes_visited &&
                  portable.primitives_tested == wide.primitives_tested,
              "%s ray %d: the portable traversal answers differently (%d/%d, nodes %u/%u, triangles %u/%u)", what,
              index, found_portable, found, portable.nodes_visited, wide.nodes_visited, portable.primitives_tested,
              wide.primitives_tested);
#if defined(SR_ISA_DISPATCH)
    // every instruction set's copy of the kernels this processor runs (src/bvh/bvh_dispatch.c)
    for (sr_isa isa = SR_ISA_BUILD; isa <= SR_ISA_AVX512; isa++) {
        if (!sr_isa_available(isa))
            continue;
        sr_bvh_hit copy;
        sr_bvh_hit_clear(&copy); /* what query_ray does before it calls the kernels (bvh_query.c) */
        bool found_copy = sr_bvh_ray_is_usable(ray) && bvh->primitive_count > 0 &&
                          sr_bvh_query_wide_isa(isa, bvh, ray, SR_BVH_RAY_CLOSEST, NULL, NULL, &copy);
        cr_assert(found_copy == found && same_hit(&copy, &wide) && copy.nodes_visited == wide.nodes_visited &&
                      copy.primitives_tested == wide.primitives_tested,
                  "%s ray %d: the %s traversal answers differently (%d/%d, triangle %u/%u, t %a/%a, nodes %u/%u, "
                  "triangles tested %u/%u)",
                  what, index, sr_isa_name(isa), found_copy, found, copy.primitive, wide.primitive, (double)copy.t,
                  (double)wide.t, copy.nodes_visited, wide.nodes_visited, copy.primitives_tested,
                  wide.primitives_tested);
    }
#endif
    if (!found)
        cr_assert(wide.primitive == SR_BVH_NO_HIT && isinf(wide.t) && wide.t > 0, "%s ray %d: a miss", what, index);

    sr_bvh_hit any_wide, any_binary;
    bool any = sr_bvh_query_ray_any(bvh, ray, &any_wide);
    cr_assert_eq(any, sr_bvh_query_ray_binary(bvh, ray, SR_BVH_RAY_ANY, NULL, NULL, &any_binary),
                 "%s ray %d: any-hit wide %d, binary %d", what, index, any, !any);
    cr_assert_eq(any, found, "%s ray %d: any-hit %d, closest hit %d", what, index, any, found);
    if (any) {
        sr_triangle_hit own;
        cr_assert(sr_ray_triangle(ray, mesh_vertex(mesh, any_wide.primitive, 0),
                                  mesh_vertex(mesh, any_wide.primitive, 1), mesh_vertex(mesh, any_wide.primitive, 2),
                                  &own) &&
                      same_bits(own.t, any_wide.t),
                  "%s ray %d: any-hit reports triangle %u", what, index, any_wide.primitive);
    }

    /* a third of the rays: the custom form and the portable any-hit */
    if (index % 3 == 0) {
        sr_bvh_hit custom;
        bool found_custom = sr_bvh_query_ray_custom(bvh, ray, intersect_mesh_triangle, (void *)mesh, &custom);
        cr_assert(found_custom == found &&
                      (!found || (custom.primitive == wide.primitive && same_bits(custom.t, wide.t) &&
                                  same_bits(custom.u, wide.u) && same_bits(custom.v, wide.v))),
                  "%s ray %d: custom query %d triangle %u t %a, closest %d triangle %u t %a", what, index, found_custom,
                  custom.primitive, (double)custom.t, found, wide.primitive, (double)wide.t);
        sr_bvh_hit any_portable;
        cr_assert_eq(query_portable(bvh, ray, SR_BVH_RAY_ANY, NULL, NULL, &any_portable), any);
        cr_assert(!any || (any_portable.primitive == any_wide.primitive && same_bits(any_portable.t, any_wide.t)));
    }
}

/* ---- rays ---- */

/* A point of triangle t at barycentric (u, v). */

/* `count` mixed rays through compare_ray; the outcome must be mixed for the check to mean
 * anything. */
static void compare_mixed_rays(const sr_mesh *mesh, const char *what, int count, uint64_t seed)
{
    sr_bvh *bvh = build_mesh(mesh);
    sr_aabb bounds = sr_mesh_bounds(mesh);
    rng r = {seed};
    tally t = {0};
    for (int i = 0; i < count; i++) {
        sr_ray ray = mixed_ray(&r, mesh, bounds, i);
        compare_ray(mesh, bvh, &ray, what, i, &t);
    }
    cr_assert_gt(t.hits, t.rays / 5, "%s: only %d hits of %d rays", what, t.hits, t.rays);
    cr_assert_lt(t.hits, t.rays - t.rays / 20, "%s: %d hits of %d rays", what, t.hits, t.rays);
    sr_bvh_destroy(bvh);
}

/* Rays from inside a closed mesh hit it, in every traversal (compare_ray), none escapes. */
static void compare_inside_rays(const sr_mesh *mesh, sr_vec3 (*inside_point)(rng *), int count, uint64_t seed,
                                const char *what)
{
    sr_bvh *bvh = build_mesh(mesh);
    rng r = {seed};
    tally t = {0};
    for (int i = 0; i < count; i++) {
        sr_vec3 direction = sr_vec3_scale(rng_direction(&r), rng_range(&r, 0.5f, 2.0f));
        sr_ray ray = sr_ray_make(inside_point(&r), direction, 0.0f, INFINITY);
        compare_ray(mesh, bvh, &ray, what, i, &t);
    }
    cr_assert_eq(t.hits, t.rays, "%s: %d of %d rays from inside escaped", what, t.rays - t.hits, t.rays);
    sr_bvh_destroy(bvh);
}

/* Rays from outside aimed at every vertex and edge midpoint (of every third triangle), along
 * the face normal tilted at random: they cross the surface there, so each hits. */
static void compare_aimed_rays(const sr_mesh *mesh, float distance, const char *what)
{
    sr_bvh *bvh = build_mesh(mesh);
    rng r = {7};
    tally t = {0};
    for (size_t tri = 0; tri < mesh->triangle_count; tri += 3) {
        sr_vec3 a0 = mesh_vertex(mesh, tri, 0), a1 = mesh_vertex(mesh, tri, 1), a2 = mesh_vertex(mesh, tri, 2);
        sr_vec3 normal = sr_vec3_normalize(sr_vec3_cross(sr_vec3_sub(a1, a0), sr_vec3_sub(a2, a0)));
        for (int k = 0; k < 3; k++) {
            sr_vec3 a = mesh_vertex(mesh, tri, k), b = mesh_vertex(mesh, tri, (k + 1) % 3);
            sr_vec3 targets[2] = {a, sr_vec3_scale(sr_vec3_add(a, b), 0.5f)};
            for (int i = 0; i < 2; i++) {
                sr_vec3 offset =
                    sr_vec3_add(sr_vec3_scale(normal, distance), sr_vec3_scale(rng_direction(&r), distance * 0.3f));
                sr_vec3 origin = sr_vec3_add(targets[i], offset);
                sr_ray ray = sr_ray_make(origin, sr_vec3_sub(targets[i], origin), 0.0f, INFINITY);
                compare_ray(mesh, bvh, &ray, what, t.rays, &t);
            }
        }
    }
    cr_assert_gt(t.rays, 5000);
    cr_assert_eq(t.hits, t.rays, "%s: %d of %d rays aimed at vertices and edges missed", what, t.rays - t.hits, t.rays);
    sr_bvh_destroy(bvh);
}

static sr_vec3 inside_sphere(rng *r)
{
    return sr_vec3_scale(rng_direction(r), 0.95f * sqrtf(rng_unit(r)));
}

static sr_vec3 inside_torus(rng *r) /* the tube of the torus (major 1, minor 0.4) around y */
{
    float angle = rng_range(r, 0, 2 * SR_PI);
    sr_vec3 ring = {cosf(angle), 0.0f, sinf(angle)};
    float a = rng_range(r, 0, 2 * SR_PI), radius = 0.38f * sqrtf(rng_unit(r));
    return sr_vec3_add(ring, sr_vec3_add(sr_vec3_scale(ring, radius * cosf(a)), (sr_vec3){0, radius * sinf(a), 0}));
}

static sr_vec3 inside_box(rng *r)
{
    return rng_in_box(r, (sr_aabb){{-0.99f, -0.99f, -0.99f}, {0.99f, 0.99f, 0.99f}});
}

/* ================================================================================================ */
/* Wide = binary                                                                                    */

Test(bvh_wide, closed_sphere_torus_and_box_grid, .timeout = 600)
{
    sr_mesh *sphere = NULL, *torus = NULL, *box = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 96, 48, &sphere, NULL), SR_OK);
    cr_assert_eq(sr_mesh_create_torus(1.0f, 0.4f, 96, 48, &torus, NULL), SR_OK);
    /* vertices on multiples of 1/8: axis-parallel rays from the grid run in triangles' planes */
    cr_assert_eq(sr_mesh_create_box((sr_vec3){1, 1, 1}, 16, &box, NULL), SR_OK);
    const int mixed = SR_TEST_COUNT(100000, 20000), inside = SR_TEST_COUNT(30000, 6000);
    compare_mixed_rays(sphere, "sphere", mixed, 1);
    compare_mixed_rays(torus, "torus", mixed, 2);
    compare_mixed_rays(box, "box grid", mixed, 3);
    compare_inside_rays(sphere, inside_sphere, inside, 4, "inside the sphere");
    compare_inside_rays(torus, inside_torus, inside, 5, "inside the torus");
    compare_inside_rays(box, inside_box, inside, 6, "inside the box");
    compare_aimed_rays(sphere, 0.5f, "sphere");
    compare_aimed_rays(torus, 0.1f, "torus");
    sr_mesh_destroy(sphere);
    sr_mesh_destroy(torus);
    sr_mesh_destroy(box);
}

Test(bvh_wide, random_soups_with_degenerate_triangles, .timeout = 600)
{
    sr_mesh *soup = random_soup(20000, 1.0f, 0, 11);
    compare_mixed_rays(soup, "soup", SR_TEST_COUNT(100000, 20000), 12);
    sr_mesh_destroy(soup);
    /* a third degenerate: collinear, repeated vertices, points */
    soup = random_soup(20000, 1.0f, 33, 13);
    compare_mixed_rays(soup, "degenerate soup", SR_TEST_COUNT(100000, 20000), 14);
    sr_mesh_destroy(soup);
    /* few triangles: a root with few children, one-pack leaves, a one-leaf tree */
    for (size_t n = 1; n <= 40; n += 3) {
        soup = random_soup(n, 1.0f, 10, 15 + n);
        compare_mixed_rays(soup, "small soup", 3000, 16 + n);
        sr_mesh_destroy(soup);
    }
}

Test(bvh_wide, huge_and_tiny_coordinates, .timeout = 600)
{
    /* 1e30: the filter's bound exceeds 2^62 and is switched off; 1e18 and 1e-18: far from 1;
     * 1e-39: subnormal coordinates, where products underflow. There the boxes, widened by
     * their rounding bound, hardly separate the triangles: a ray visits about 850 nodes and
     * tests about 3,250 of the 5,000 triangles (29 at the other scales), each in subnormal
     * arithmetic, so 10,000 rays already compare some 32 million triangle tests, ten times
     * what 100,000 rays compare at another scale (and 100,000 took 30 s of the suite's 100). */
    const float scales[] = {1e30f, 1e18f, 1e-18f, 1e-39f};
    const int rays[] = {SR_TEST_COUNT(100000, 20000), SR_TEST_COUNT(100000, 20000), SR_TEST_COUNT(100000, 20000),
                        SR_TEST_COUNT(10000, 2000)};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        sr_mesh *soup = random_soup(5000, scales[i], 10, 21 + i);
        char what[64];
        snprintf(what, sizeof what, "soup at scale %g", (double)scales[i]);
        compare_mixed_rays(soup, what, rays[i], 31 + i);
        sr_mesh_destroy(soup);
    }
}

Test(bvh_wide, shared_meshes, .timeout = 600)
{
    const char *names[] = {"teapot.obj", "bunny.obj", "dragon_res3.obj"};
    int found = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sr_mesh *mesh = load_shared_mesh(names[i]);
        if (!mesh)
            continue;
        found++;
        compare_mixed_rays(mesh, names[i], SR_TEST_COUNT(100000, 20000), 41 + i);
        /* the primary rays of the benchmark (the README's benchmark scene), every third pixel of 480x270 (every
         * ninth under the sanitizers) */
        sr_mesh_normalize(mesh);
        sr_bvh *bvh = build_mesh(mesh);
        enum { WIDTH = 480, HEIGHT = 270 };
        sr_ray *rays = malloc((size_t)WIDTH * HEIGHT * sizeof *rays);
        sr_bench_scene_primary_rays(WIDTH, HEIGHT, rays);
        tally t = {0};
        for (int p = 0; p < WIDTH * HEIGHT; p += SR_TEST_COUNT(3, 9))
            compare_ray(mesh, bvh, &rays[p], names[i], p, &t);
        cr_assert_gt(t.hits, 1000, "%s: %d primary rays hit", names[i], t.hits);
        free(rays);
        sr_bvh_destroy(bvh);
        sr_mesh_destroy(mesh);
    }
    if (found == 0)
        cr_skip_test("no meshes in %s", MESH_DIR);
}

/* The box trees of the custom query (the scene's instance trees are such trees): wide = binary
 * for a caller's box test. */
static bool intersect_box(void *user, uint32_t primitive, const sr_ray *ray, sr_bvh_hit *hit)
{
    const sr_aabb *boxes = user;
    float t_near;
    if (!sr_ray_aabb(ray, &boxes[primitive], &t_near, NULL))
        return false;
    hit->t = t_near;
    return true;
}

Test(bvh_wide, custom_query_over_a_box_tree)
{
    enum { BOXES = 4000 };
    rng r = {51};
    sr_aabb *boxes = malloc(BOXES * sizeof *boxes);
    for (int i = 0; i < BOXES; i++) {
        sr_vec3 a = rng_in_box(&r, (sr_aabb){{-1, -1, -1}, {1, 1, 1}});
        if (i % 3 == 0) /* on a grid: rays from the grid touch faces exactly, equal entries tie */
            a = (sr_vec3){roundf(a.x * 8) / 8, roundf(a.y * 8) / 8, roundf(a.z * 8) / 8};
        boxes[i] = (sr_aabb){a, sr_vec3_add(a, (sr_vec3){rng_range(&r, 0, 0.1f), rng_range(&r, 0, 0.1f),
                                                         i % 10 == 0 ? 0.0f : rng_range(&r, 0, 0.1f)})};
    }
    sr_bvh *bvh = NULL;
    cr_assert_eq(sr_bvh_build_boxes(&(sr_bvh_desc){.max_leaf_size = 2}, boxes, BOXES, &bvh, NULL), SR_OK);
    int hits = 0;
    for (int i = 0; i < 20000; i++) {
        sr_vec3 origin = rng_in_box(&r, (sr_aabb){{-2, -2, -2}, {2, 2, 2}});
        if (i % 4 == 0)
            origin = (sr_vec3){roundf(origin.x * 8) / 8, roundf(origin.y * 8) / 8, roundf(origin.z * 8) / 8};
        sr_ray ray = sr_ray_make(origin, rng_direction(&r), i % 5 == 0 ? -1.0f : 0.0f, i % 3 ? INFINITY : 1.5f);
        sr_bvh_hit wide, binary, portable;
        bool found = sr_bvh_query_ray_custom(bvh, &ray, intersect_box, boxes, &wide);
        cr_assert_eq(found, sr_bvh_query_ray_binary(bvh, &ray, SR_BVH_RAY_CUSTOM, intersect_box, boxes, &binary),
                     "ray %d", i);
        cr_assert(!found || (wide.primitive == binary.primitive && same_bits(wide.t, binary.t)),
                  "ray %d: box %u at %a, binary box %u at %a", i, wide.primitive, (double)wide.t, binary.primitive,
                  (double)binary.t);
        cr_assert_eq(query_portable(bvh, &ray, SR_BVH_RAY_CUSTOM, intersect_box, boxes, &portable), found);
        cr_assert(!found || (portable.primitive == wide.primitive && portable.nodes_visited == wide.nodes_visited));
        hits += found;
    }
    cr_assert_gt(hits, 2000);
    sr_bvh_destroy(bvh);
    free(boxes);
}

/* ================================================================================================ */
/* The test of a pack of 4 triangles                                                               */

/* A pack of 4 triangles as the collapse makes it (no padding, no flags). */
static sr_triangle_pack make_pack(const sr_vec3 v[4][3])
{
    sr_triangle_pack pack = {0};
    for (int lane = 0; lane < 4; lane++)
        for (int k = 0; k < 3; k++) {
            const float p[3] = {v[lane][k].x, v[lane][k].y, v[lane][k].z};
            for (int axis = 0; axis < 3; axis++)
                pack.v[k][axis][lane] = p[axis];
        }
    return pack;
}

/* sr_ray_triangle's edge verdict, computed here from the public pieces (sr_ray_space_point,
 * sr_ray_space_edge): the three edge functions do not have opposite signs. */
static bool edges_agree(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c)
{
    const sr_vec3 pa = sr_ray_space_point(ray, a), pb = sr_ray_space_point(ray, b), pc = sr_ray_space_point(ray, c);
    const double w[3] = {sr_ray_space_edge(pc, pb), sr_ray_space_edge(pa, pc), sr_ray_space_edge(pb, pa)};
    bool positive = false, negative = false;
    for (int k = 0; k < 3; k++) {
        positive |= w[k] > 0.0;
        negative |= w[k] < 0.0;
    }
    return !(positive && negative);
}

/* For triangles at `scale` and rays aimed at their vertices, edges, insides and near misses:
 * the lanes the single-ray leaf test keeps (sr_bvh_pack_filter) are exactly those whose edge
 * functions, as sr_ray_triangle computes them, do not have opposite signs: every triangle hit
 * is kept, every other kept lane is one that only the rest of sr_ray_triangle (its determinant
 * and t range) can drop; the SIMD and the portable tests agree. */
static void check_pack_test(float scale, uint64_t seed)
{
    rng r = {seed};
    long hits = 0, misses = 0, kept_misses = 0;
    for (int i = 0; i < 20000; i++) {
        sr_vec3 v[4][3];
        for (int lane = 0; lane < 4; lane++) {
            sr_vec3 centre = sr_vec3_scale(rng_in_box(&r, (sr_aabb){{-1, -1, -1}, {1, 1, 1}}), scale);
            float size = scale * (rng_unit(&r) < 0.5f ? rng_range(&r, 1e-4f, 1e-2f) : rng_range(&r, 0.01f, 0.5f));
            for (int k = 0; k < 3; k++)
                v[lane][k] = sr_vec3_add(centre, sr_vec3_scale(rng_direction(&r), size));
            if (i % 7 == 0) /* nearly collinear */
                v[lane][2] = sr_vec3_add(v[lane][0], sr_vec3_scale(sr_vec3_sub(v[lane][1], v[lane][0]), 0.37f));
        }
        if (i % 11 == 0) /* lane 1 repeats lane 0 (a pack's padding lanes) */
            for (int k = 0; k < 3; k++)
                v[1][k] = v[0][k];
        sr_triangle_pack pack = make_pack((const sr_vec3(*)[3])v);
        /* aim at a point of lane 0's triangle */
        sr_vec3 target = rng_aim_at_triangle(&r, v[0][0], v[0][1], v[0][2]);
        sr_vec3 origin = sr_vec3_scale(rng_in_box(&r, (sr_aabb){{-3, -3, -3}, {3, 3, 3}}), scale);
        if (i % 3 == 0) { /* close to the triangle, where the rounding of ray space matters most */
            float size = sr_vec3_length(sr_vec3_sub(v[0][1], v[0][0]));
            origin = sr_vec3_add(target, sr_vec3_scale(rng_direction(&r), size * rng_range(&r, 0.3f, 3.0f)));
        }
        sr_ray ray = sr_ray_make(origin, sr_vec3_sub(target, origin), -INFINITY, INFINITY);
        unsigned kept = sr_bvh_pack_filter(&pack, &ray);
        cr_assert_eq(kept, sr_bvh_pack_filter_portable(&pack, &ray), "ray %d: SIMD and portable pack tests", i);
        for (int lane = 0; lane < 4; lane++) {
            const bool agree = edges_agree(&ray, v[lane][0], v[lane][1], v[lane][2]);
            cr_assert_eq((kept >> lane & 1u) != 0, agree, "scale %g ray %d lane %d: kept %u, edge verdict %d",
                         (double)scale, i, lane, kept >> lane & 1u, agree);
            sr_triangle_hit hit;
            if (sr_ray_triangle(&ray, v[lane][0], v[lane][1], v[lane][2], &hit)) {
                hits++;
                cr_assert(kept >> lane & 1u, "scale %g ray %d lane %d: a triangle that is hit is dropped",
                          (double)scale, i, lane);
            } else {
                misses++;
                kept_misses += (kept >> lane & 1u) != 0;
            }
        }
    }
    cr_assert_gt(hits, 10, "scale %g: %ld hits", (double)scale, hits);
    cr_assert_gt(misses, 10000, "scale %g: %ld misses", (double)scale, misses);
    (void)kept_misses;
}

Test(bvh_wide, pack_test_keeps_exactly_the_lanes_whose_edge_functions_agree)
{
    check_pack_test(1.0f, 61);
    check_pack_test(1e6f, 62);
    check_pack_test(1e-6f, 63);
    check_pack_test(1e-30f, 64); /* products near the subnormal range */
    check_pack_test(1e-39f, 65); /* subnormal coordinates */
    check_pack_test(1e20f, 66);
    check_pack_test(1e36f, 67); /* edge functions past the float range: double holds them */
}

/* ================================================================================================ */
/* The tree                                                                                         */

/* Walks the wide tree: every child box is the box of a binary node and holds its contents,
 * every kept triangle appears in exactly one real lane with its own vertices, padding lanes
 * repeat their pack's last real lane, and the child count and orders are consistent. */
static void check_wide_tree(const sr_bvh *bvh)
{
    const sr_bvh_wide *wide = bvh->wide;
    cr_assert_not_null(wide);
    cr_assert_eq((uintptr_t)wide->units % 64, 0, "units are 64-byte aligned");
    cr_assert_eq(sr_bvh_wide_bytes(bvh), wide->unit_count * SR_WIDE_UNIT);
    unsigned char *seen = calloc(bvh->primitive_count, 1);
    size_t nodes = 0, packs = 0, lanes = 0;
    uint32_t stack[8 * (SR_BVH_MAX_DEPTH + 1)];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        uint32_t ref = stack[--top];
        cr_assert_eq(ref % 2, 0, "node %u on a 64-byte boundary", ref);
        const sr_wide_node *node = sr_wide_node_at(wide, ref);
        nodes++;
        unsigned count = sr_wide_node_child_count(node);
        cr_assert(count >= 1 && count <= SR_WIDE_WIDTH);
        for (unsigned octant = 0; octant < 8; octant++) {
            unsigned used = 0;
            for (int p = 0; p < SR_WIDE_WIDTH; p++)
                used |= 1u << (node->order[p] >> (3 * octant) & 7u);
            cr_assert_eq(used, 0xffu, "node %u octant %u: the order is a permutation", ref, octant);
        }
        for (unsigned i = 0; i < SR_WIDE_WIDTH; i++) {
            sr_aabb box = {{node->bounds[0][i], node->bounds[2][i], node->bounds[4][i]},
                           {node->bounds[1][i], node->bounds[3][i], node->bounds[5][i]}};
            if (i >= count) {
                cr_assert(isinf(box.min.x) && box.min.x > 0 && isinf(box.max.x) && box.max.x < 0, "empty slot");
                continue;
            }
            uint32_t child = node->child[i];
            if (!(child & SR_WIDE_LEAF)) {
                cr_assert_lt((size_t)child, wide->unit_count);
                const sr_wide_node *c = sr_wide_node_at(wide, child);
                for (unsigned j = 0; j < sr_wide_node_child_count(c); j++) {
                    sr_aabb inner = {{c->bounds[0][j], c->bounds[2][j], c->bounds[4][j]},
                                     {c->bounds[1][j], c->bounds[3][j], c->bounds[5][j]}};
                    cr_assert(sr_aabb_contains(box, inner), "node %u child %u holds its children", ref, i);
                }
                stack[top++] = child;
                continue;
            }
            const sr_triangle_pack *pack = sr_wide_pack_at(wide, child);
            for (;;) {
                packs++;
                uint32_t last_real = pack->primitive[0] & ~SR_PACK_FLAG;
                for (int lane = 0; lane < SR_PACK_WIDTH; lane++) {
                    uint32_t primitive = pack->primitive[lane] & ~SR_PACK_FLAG;
                    bool padding = lane > 0 && (pack->primitive[lane] & SR_PACK_FLAG);
                    if (padding) {
                        cr_assert_eq(primitive, last_real, "padding repeats the last real lane");
                        continue;
                    }
                    last_real = primitive;
                    cr_assert_lt(primitive, bvh->primitive_count);
                    cr_assert_eq(seen[primitive], 0, "triangle %u in two lanes", primitive);
                    seen[primitive] = 1;
                    lanes++;
                    for (int k = 0; k < 3; k++) {
                        sr_vec3 p = {pack->v[k][0][lane], pack->v[k][1][lane], pack->v[k][2][lane]};
                        cr_assert(sr_aabb_contains_point(box, p), "node %u leaf %u holds its triangles", ref, i);
                    }
                }
                if (!(pack->primitive[0] & SR_PACK_FLAG))
                    break;
                pack++;
            }
        }
    }
    cr_assert_eq(lanes, bvh->primitive_count, "every triangle in one lane");
    cr_assert_eq(nodes, wide->node_count);
    cr_assert_eq(packs, wide->pack_count);
    free(seen);
}

Test(bvh_wide, tree_holds_every_triangle_once_in_nested_boxes)
{
    sr_mesh *soup = random_soup(30000, 1.0f, 20, 71);
    sr_bvh *bvh = build_mesh(soup);
    check_wide_tree(bvh);
    /* deterministic: the same input gives the same bytes */
    sr_bvh *again = build_mesh(soup);
    cr_assert_eq(again->wide->unit_count, bvh->wide->unit_count);
    cr_assert_eq(memcmp(again->wide->units, bvh->wide->units, bvh->wide->unit_count * SR_WIDE_UNIT), 0);
    sr_bvh_destroy(again);
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(soup);
    for (size_t n = 1; n <= 20; n++) {
        soup = random_soup(n, 1.0f, 0, 72 + n);
        bvh = build_mesh(soup);
        check_wide_tree(bvh);
        sr_bvh_destroy(bvh);
        sr_mesh_destroy(soup);
    }
    /* leaves of up to 255 triangles: several packs per leaf */
    soup = random_soup(3000, 1.0f, 0, 99);
    sr_bvh_triangles input = {.positions = &soup->positions[0].x,
                              .position_stride = sizeof(sr_vec3),
                              .vertex_count = soup->vertex_count,
                              .indices = soup->indices,
                              .triangle_count = soup->triangle_count};
    cr_assert_eq(
        sr_bvh_build_triangles(&(sr_bvh_desc){.split = SR_BVH_SPLIT_MEDIAN, .max_leaf_size = 255}, &input, &bvh, NULL),
        SR_OK);
    check_wide_tree(bvh);
    rng r = {100};
    tally t = {0};
    for (int i = 0; i < SR_TEST_COUNT(20000, 4000); i++) {
        sr_ray ray = mixed_ray(&r, soup, sr_mesh_bounds(soup), i);
        compare_ray(soup, bvh, &ray, "255-triangle leaves", i, &t);
    }
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(soup);
}

/* nodes_visited counts the boxes tested: the root's box, then the child boxes of every wide node
 * entered (the same for the SIMD and the portable traversal: compare_ray). */
Test(bvh_wide, nodes_visited_counts_child_boxes)
{
    sr_mesh *sphere = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 64, 32, &sphere, NULL), SR_OK);
    sr_bvh *bvh = build_mesh(sphere);
    const unsigned root_children = sr_wide_node_child_count(sr_wide_node_at(bvh->wide, 0));
    sr_ray ray = sr_ray_make((sr_vec3){0, 0, 3}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    sr_bvh_hit hit;
    cr_assert(sr_bvh_query_ray(bvh, &ray, &hit));
    cr_assert_gt(hit.nodes_visited, 1 + root_children);
    cr_assert_geq(hit.primitives_tested, 1);
    /* a ray missing the root's box: that one box */
    ray = sr_ray_make((sr_vec3){5, 5, 5}, (sr_vec3){1, 0, 0}, 0, INFINITY);
    cr_assert_not(sr_bvh_query_ray(bvh, &ray, &hit));
    cr_assert_eq(hit.nodes_visited, 1);
    cr_assert_eq(hit.primitives_tested, 0);
    /* a ray through the root's box between the sphere's children: the root's box and its children */
    ray = sr_ray_make((sr_vec3){0.999f, 0.999f, 5}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert_not(sr_bvh_query_ray(bvh, &ray, &hit));
    cr_assert_geq(hit.nodes_visited, 1 + root_children);
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(sphere);
}
