/* tests/test_bvh.c — the static BVH of src/bvh/ (softrast/bvh.h) and the `softrast raycast` and
 * `softrast bench bvh` commands built on it.
 *
 * Every query is compared with brute force over all primitives using geom's own tests
 * (sr_ray_triangle, sr_ray_aabb, sr_aabb_overlaps, sr_aabb_sphere_overlap,
 * sr_frustum_test_aabb); tree invariants (containment, SAH cost, slot coverage) are recomputed
 * here from the node array. The command tests run the built program ($SOFTRAST_EXE). This file:
 * the build and rays against brute force; the program test_bvh also holds test_bvh_queries.c
 * (watertightness, degenerate input, overlap queries) and test_bvh_cli.c (the commands); their
 * helpers are in bvh_test_helpers.h. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <softrast/bvh.h>
#include <softrast/raster.h>
#include <softrast/scene.h>

#define MESH_DIR SR_SOURCE_DIR "/../shared/meshes"

#include "test_rng.h" /* rng, rng_range, rng_in_box, rng_direction */

/* draw_order_note: see test_rng.h. Where a call used to take two draws, they are now drawn in
 * gcc's order, so that the data the tests were tuned on stays the same. */

#include "bvh_test_helpers.h"
#include "test_budget.h"

/* ================================================================================================ */
/* Build                                                                                             */

Test(bvh_build, node_is_32_bytes_with_the_design_layout)
{
    cr_assert_eq(sizeof(sr_bvh_node), 32);
    cr_assert_eq(offsetof(sr_bvh_node, min), 0);
    cr_assert_eq(offsetof(sr_bvh_node, first), 12);
    cr_assert_eq(offsetof(sr_bvh_node, max), 16);
    cr_assert_eq(offsetof(sr_bvh_node, count), 28);
}

Test(bvh_build, invariants_on_random_triangles)
{
    sr_mesh *mesh = random_triangles(6000, 11);
    sr_bvh *bvh = build_mesh(mesh, NULL);
    cr_assert_eq(bvh->primitive_count, 6000);
    cr_assert_eq(bvh->stats.skipped_count, 0);
    check_tree(bvh, 8);
    check_slots(bvh, mesh);
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(mesh);
}

Test(bvh_build, invariants_on_shared_meshes)
{
    require_shared_meshes();
    const char *names[] = {"bunny.obj", "teapot.obj", "dragon_res3.obj"};
    for (int i = 0; i < 3; i++) {
        sr_mesh *mesh = load_shared_mesh(names[i]);
        sr_bvh *bvh = build_mesh(mesh, NULL);
        cr_assert_eq(bvh->primitive_count + bvh->stats.skipped_count, mesh->triangle_count);
        check_tree(bvh, 8);
        sr_bvh_destroy(bvh);
        sr_mesh_destroy(mesh);
    }
}

Test(bvh_build, deterministic_byte_for_byte)
{
    sr_mesh *mesh = random_triangles(5000, 12);
    sr_bvh *first = build_mesh(mesh, NULL);
    sr_bvh *second = build_mesh(mesh, NULL);
    cr_assert_eq(first->node_count, second->node_count);
    cr_assert_eq(first->primitive_count, second->primitive_count);
    cr_assert_eq(memcmp(first->nodes, second->nodes, first->node_count * sizeof(sr_bvh_node)), 0);
    cr_assert_eq(memcmp(first->primitive_indices, second->primitive_indices, first->primitive_count * 4), 0);
    cr_assert_eq(memcmp(first->triangles, second->triangles, first->primitive_count * 9 * sizeof(float)), 0);
    cr_assert_eq(memcmp(&first->stats, &second->stats, sizeof first->stats), 0);
    sr_bvh_destroy(first);
    sr_bvh_destroy(second);
    sr_mesh_destroy(mesh);
}

/* The SAH cost of the README's benchmark scene with each leaf counted in packs of 4 triangles (ceil(n / 4)),
 * the cost the build of a triangle tree minimises. */
static double sah_cost_in_packs(const sr_bvh *bvh)
{
    const double root = half_area_double(bvh->nodes[0].min, bvh->nodes[0].max);
    double cost = 0.0;
    for (size_t i = 0; i < bvh->node_count; i++) {
        if (i == 1)
            continue;
        const sr_bvh_node *node = &bvh->nodes[i];
        const double ratio = root > 0.0 ? half_area_double(node->min, node->max) / root : 1.0;
        cost += node->count == 0 ? ratio : ratio * (double)((node->count + 3) / 4);
    }
    return cost;
}

/* Primitives under node `index`, counted by walking its subtree. */
static uint32_t primitives_under(const sr_bvh *bvh, uint32_t index)
{
    const sr_bvh_node *node = &bvh->nodes[index];
    if (node->count > 0)
        return node->count;
    return primitives_under(bvh, node->first) + primitives_under(bvh, node->first + 1);
}

/* A triangle leaf of 1 to 4 triangles costs one pack test, as little as any split of it can
 * (a split costs a traversal step on top), so the SAH build never splits a node of 4 or fewer
 * triangles: every leaf pack it makes is as full as the tree allows. Counting triangles one by
 * one (the cost of box trees), the soups below split hundreds of such nodes. */
Test(bvh_build, triangle_trees_never_split_a_node_that_fits_one_pack)
{
    sr_mesh *meshes[] = {random_triangles(5000, 21), random_triangles(300, 22)};
    for (int m = 0; m < 2; m++) {
        sr_bvh *bvh = build_mesh(meshes[m], NULL);
        check_tree(bvh, 8);
        for (uint32_t i = 0; i < bvh->node_count; i++) {
            if (i == 1)
                continue;
            const uint32_t under = primitives_under(bvh, i);
            if (bvh->nodes[i].count == 0)
                cr_assert_gt(under, 4, "mesh %d: interior node %u holds only %u triangles", m, i, under);
        }
        sr_bvh_destroy(bvh);
        sr_mesh_destroy(meshes[m]);
    }
}

Test(bvh_build, options_give_valid_trees_and_sah_beats_median)
{
    sr_mesh *mesh = random_triangles(5000, 13);
    sr_bvh *sah = build_mesh(mesh, NULL);
    double sah_cost = check_tree(sah, 8);
    sr_bvh *median = build_mesh(mesh, &(sr_bvh_desc){.split = SR_BVH_SPLIT_MEDIAN, .max_leaf_size = 4});
    double median_cost = check_tree(median, 4);
    check_slots(median, mesh);
    (void)sah_cost;
    (void)median_cost;
    /* compared in the cost the build minimises: a triangle tree's leaves are tested in packs */
    const double sah_packs = sah_cost_in_packs(sah), median_packs = sah_cost_in_packs(median);
    cr_assert_leq(sah_packs, median_packs, "SAH %.3f, median %.3f (in packs of 4)", sah_packs, median_packs);
    /* the median split halves every node: a balanced tree */
    cr_assert_leq(median->stats.max_depth, 11);
    const int bins[] = {2, 3, 8, 64, 256};
    for (int i = 0; i < 5; i++) {
        sr_bvh *b = build_mesh(mesh, &(sr_bvh_desc){.bin_count = bins[i], .max_leaf_size = 1 + i});
        check_tree(b, (uint32_t)(1 + i));
        check_slots(b, mesh);
        sr_bvh_destroy(b);
    }
    sr_bvh *cheap = build_mesh(mesh, &(sr_bvh_desc){.traversal_cost = 0.1f, .max_leaf_size = 255});
    check_tree(cheap, 255);
    sr_bvh_destroy(cheap);
    sr_bvh_destroy(sah);
    sr_bvh_destroy(median);
    sr_mesh_destroy(mesh);
}

Test(bvh_build, rejects_bad_input_with_a_message)
{
    float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    sr_bvh *bvh = (sr_bvh *)1;
    sr_error err = {0};
    sr_bvh_triangles input = {.positions = positions, .vertex_count = 3, .indices = indices, .triangle_count = 2};
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, &bvh, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_null(bvh);
    cr_assert(strstr(err.message, "triangle 1") && strstr(err.message, "vertex 3"), "%s", err.message);
    input.triangle_count = 1;
    const sr_bvh_desc bad[] = {{.bin_count = 1},           {.bin_count = 257},        {.max_leaf_size = 256},
                               {.max_leaf_size = -1},      {.traversal_cost = -1.0f}, {.traversal_cost = NAN},
                               {.split = (sr_bvh_split)99}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = (sr_error){0};
        cr_assert_eq(sr_bvh_build_triangles(&bad[i], &input, &bvh, &err), SR_ERROR_INVALID_ARGUMENT, "desc %zu", i);
        cr_assert(strstr(err.message, "sr_bvh_desc."), "%s", err.message);
        cr_assert_null(bvh);
    }
    cr_assert_eq(sr_bvh_build_triangles(NULL, NULL, &bvh, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    input.position_stride = 8;
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, &bvh, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "position_stride"), "%s", err.message);
    input = (sr_bvh_triangles){.positions = NULL, .vertex_count = 3, .triangle_count = 1};
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, &bvh, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_bvh_build_boxes(NULL, NULL, 3, &bvh, &err), SR_ERROR_INVALID_ARGUMENT);
}

/* Positions with a stride and no index array: vertices 3i, 3i + 1, 3i + 2. */
Test(bvh_build, strided_positions_without_indices)
{
    sr_mesh *mesh = random_triangles(600, 14);
    float *strided = calloc(mesh->vertex_count * 5, sizeof(float));
    for (size_t v = 0; v < mesh->vertex_count; v++)
        memcpy(&strided[5 * v], &mesh->positions[v], 3 * sizeof(float));
    sr_bvh_triangles input = {.positions = strided,
                              .position_stride = 5 * sizeof(float),
                              .vertex_count = mesh->vertex_count,
                              .triangle_count = mesh->triangle_count};
    sr_bvh *bvh = NULL;
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, &bvh, NULL), SR_OK);
    check_tree(bvh, 8);
    check_slots(bvh, mesh);
    rng r = {15};
    for (int i = 0; i < 500; i++) {
        sr_ray ray = random_ray(&r, mesh, sr_mesh_bounds(mesh));
        check_closest(mesh, bvh, &ray, "strided", i);
    }
    sr_bvh_destroy(bvh);
    free(strided);
    sr_mesh_destroy(mesh);
}

/* An allocator that fails after a given number of allocations. */
typedef struct failing_allocator {
    int remaining;
} failing_allocator;

static void *failing_allocate(size_t size, void *user)
{
    failing_allocator *f = user;
    return f->remaining-- > 0 ? malloc(size) : NULL;
}

static void *failing_reallocate(void *pointer, size_t size, void *user)
{
    failing_allocator *f = user;
    return f->remaining-- > 0 ? realloc(pointer, size) : NULL;
}

static void failing_release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

/* An allocator whose reallocate always moves the block, to a different offset from a 64-byte
 * boundary each time (the build trims its block with reallocate and must keep the nodes
 * aligned and the slot arrays in place). Blocks carry their base pointer and size before them. */
typedef struct moving_allocator {
    int calls;
} moving_allocator;

static void *moving_allocate(size_t size, void *user)
{
    moving_allocator *m = user;
    size_t offset = 16 + 16 * (size_t)(m->calls++ % 4);
    unsigned char *base = malloc(size + 64);
    if (!base)
        return NULL;
    unsigned char *pointer = base + offset;
    memcpy(pointer - 8, &base, sizeof base);
    memcpy(pointer - 16, &size, sizeof size);
    return pointer;
}

static void moving_release(void *pointer, void *user)
{
    (void)user;
    if (!pointer)
        return;
    unsigned char *base;
    memcpy(&base, (unsigned char *)pointer - 8, sizeof base);
    free(base);
}

static void *moving_reallocate(void *pointer, size_t size, void *user)
{
    void *moved = moving_allocate(size, user);
    if (moved && pointer) {
        size_t old_size;
        memcpy(&old_size, (unsigned char *)pointer - 16, sizeof old_size);
        memcpy(moved, pointer, old_size < size ? old_size : size);
        moving_release(pointer, user);
    }
    return moved;
}

Test(bvh_build, trimming_survives_an_allocator_that_moves_blocks)
{
    sr_mesh *mesh = random_triangles(2000, 17);
    sr_bvh *reference = build_mesh(mesh, NULL);
    for (int round = 0; round < 4; round++) {
        moving_allocator m = {round};
        sr_set_allocator(&(sr_allocator){moving_allocate, moving_reallocate, moving_release, &m});
        sr_bvh *bvh = build_mesh(mesh, NULL);
        cr_assert_eq((uintptr_t)bvh->nodes % 64, 0);
        cr_assert_eq(bvh->node_count, reference->node_count);
        cr_assert_eq(memcmp(bvh->nodes, reference->nodes, bvh->node_count * sizeof(sr_bvh_node)), 0);
        cr_assert_eq(memcmp(bvh->primitive_indices, reference->primitive_indices, bvh->primitive_count * 4), 0);
        cr_assert_eq(memcmp(bvh->triangles, reference->triangles, bvh->primitive_count * 9 * sizeof(float)), 0);
        check_tree(bvh, 8);
        sr_bvh_destroy(bvh);
        sr_set_allocator(NULL);
    }
    sr_bvh_destroy(reference);
    sr_mesh_destroy(mesh);
}

Test(bvh_build, allocation_failures_are_reported)
{
    sr_mesh *mesh = random_triangles(100, 16);
    sr_bvh_triangles input = {.positions = &mesh->positions[0].x,
                              .position_stride = sizeof(sr_vec3),
                              .vertex_count = mesh->vertex_count,
                              .indices = mesh->indices,
                              .triangle_count = mesh->triangle_count};
    bool succeeded = false;
    for (int budget = 0; budget < 16 && !succeeded; budget++) {
        failing_allocator f = {budget};
        sr_set_allocator(&(sr_allocator){failing_allocate, failing_reallocate, failing_release, &f});
        sr_bvh *bvh = NULL;
        sr_error err = {0};
        sr_status status = sr_bvh_build_triangles(NULL, &input, &bvh, &err);
        sr_set_allocator(NULL);
        if (status == SR_OK) {
            succeeded = true;
            sr_bvh_destroy(bvh); /* freed with free(): the hook and malloc agree */
        } else {
            cr_assert_eq(status, SR_ERROR_OUT_OF_MEMORY, "budget %d: %s", budget, err.message);
            cr_assert_null(bvh);
        }
    }
    cr_assert(succeeded);
    sr_mesh_destroy(mesh);
}

/* ================================================================================================ */
/* Rays against brute force                                                                         */

Test(bvh_ray, random_triangles_match_brute_force)
{
    sr_mesh *mesh = random_triangles(6000, 21);
    check_random_rays(mesh, "random triangles", SR_TEST_COUNT(10000, 2500), 22, false);
    sr_mesh_destroy(mesh);
}

Test(bvh_ray, tessellated_sphere_matches_brute_force)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 64, 48, &mesh, NULL), SR_OK);
    cr_assert_geq(mesh->triangle_count, 5000);
    check_random_rays(mesh, "sphere", SR_TEST_COUNT(10000, 2500), 23, false);
    sr_mesh_destroy(mesh);
}

Test(bvh_ray, shared_meshes_match_brute_force)
{
    require_shared_meshes();
    const char *names[] = {"bunny.obj", "dragon_res3.obj"};
    for (int i = 0; i < 2; i++) {
        sr_mesh *mesh = load_shared_mesh(names[i]);
        check_random_rays(mesh, names[i], SR_TEST_COUNT(10000, 2500), 24 + (uint64_t)i, true);
        sr_mesh_destroy(mesh);
    }
}

/* The traversal's two-box slab test hits every box geom's sr_ray_aabb hits, and otherwise only
 * boxes within a rounding of the ray: over a box tree with one box per leaf, the custom query
 * calls back for every box whose whole path from the root passed the test. The callback never
 * reports a hit, so tmax stays fixed. */
typedef struct box_visits {
    unsigned char *visited;
} box_visits;

static bool record_box_visit(void *user, uint32_t primitive, const sr_ray *ray, sr_bvh_hit *hit)
{
    (void)ray;
    (void)hit;
    box_visits *v = user;
    v->visited[primitive]++;
    return false;
}

Test(bvh_ray, traversal_box_test_agrees_with_sr_ray_aabb)
{
    enum { BOXES = 3000 };
    rng r = {25};
    sr_aabb *boxes = malloc(BOXES * sizeof(sr_aabb));
    for (int i = 0; i < BOXES; i++) {
        sr_vec3 a = rng_in_box(&r, (sr_aabb){{-1, -1, -1}, {1, 1, 1}});
        sr_vec3 size = {rng_range(&r, 0, 0.2f), rng_range(&r, 0, 0.2f), rng_range(&r, 0, 0.2f)};
        if (i % 10 == 0)
            size.x = 0; /* flat boxes */
        /* snap some corners to a coarse grid so rays through grid values touch faces exactly */
        if (i % 3 == 0)
            a = (sr_vec3){roundf(a.x * 8) / 8, roundf(a.y * 8) / 8, roundf(a.z * 8) / 8};
        boxes[i] = (sr_aabb){a, sr_vec3_add(a, size)};
    }
    sr_bvh *bvh = NULL;
    cr_assert_eq(sr_bvh_build_boxes(&(sr_bvh_desc){.max_leaf_size = 1}, boxes, BOXES, &bvh, NULL), SR_OK);
    check_tree(bvh, 1);
    box_visits v = {calloc(BOXES, 1)};
    int extra = 0;
    for (int i = 0; i < 4000; i++) {
        sr_vec3 origin = rng_in_box(&r, (sr_aabb){{-1.5f, -1.5f, -1.5f}, {1.5f, 1.5f, 1.5f}});
        sr_vec3 direction = rng_direction(&r);
        if (i % 4 == 1) { /* axis-parallel, origin on a grid plane (box faces), +0 or -0 components */
            int axis = (int)(rng_next(&r) % 3);
            float sign = rng_unit(&r) < 0.5f ? -1.0f : 1.0f;
            float zero = rng_unit(&r) < 0.5f ? -0.0f : 0.0f;
            direction = (sr_vec3){axis == 0 ? sign : zero, axis == 1 ? sign : zero, axis == 2 ? sign : zero};
            origin = (sr_vec3){roundf(origin.x * 8) / 8, roundf(origin.y * 8) / 8, roundf(origin.z * 8) / 8};
        } else if (i % 4 == 2) { /* aimed at a box corner: grazing rays */
            const sr_aabb *b = &boxes[rng_next(&r) % BOXES];
            sr_vec3 corner = {rng_unit(&r) < 0.5f ? b->min.x : b->max.x, rng_unit(&r) < 0.5f ? b->min.y : b->max.y,
                              rng_unit(&r) < 0.5f ? b->min.z : b->max.z};
            direction = sr_vec3_sub(corner, origin);
        }
        float tmin = i % 5 == 0 ? -1.0f : 0.0f;
        float tmax = i % 7 == 0 ? 1.0f : INFINITY;
        sr_ray ray = sr_ray_make(origin, direction, tmin, tmax);
        memset(v.visited, 0, BOXES);
        sr_bvh_hit hit;
        cr_assert_not(sr_bvh_query_ray_custom(bvh, &ray, record_box_visit, &v, &hit));
        for (int b = 0; b < BOXES; b++) {
            bool expected = sr_ray_aabb(&ray, &boxes[b], NULL, NULL);
            if (v.visited[b] > 1 || (expected && v.visited[b] == 0))
                cr_assert_fail("ray %d box %d: visited %d, sr_ray_aabb %d", i, b, v.visited[b], expected);
            if (v.visited[b] && !expected) { /* allowed only for a box the ray misses by a rounding */
                sr_aabb grown = sr_aabb_expand(boxes[b], 1e-5f);
                extra++;
                if (!sr_ray_aabb(&ray, &grown, NULL, NULL))
                    cr_assert_fail("ray %d box %d: visited, but missed by more than 1e-5", i, b);
            }
        }
    }
    cr_assert_lt(extra, 20, "%d boxes visited that sr_ray_aabb misses", extra);
    free(v.visited);
    free(boxes);
    sr_bvh_destroy(bvh);
}

Test(bvh_ray, custom_closest_hit_over_boxes_matches_brute_force)
{
    enum { BOXES = 5000 };
    rng r = {26};
    sr_aabb *boxes = malloc((BOXES + 2) * sizeof(sr_aabb));
    for (int i = 0; i < BOXES; i++) {
        sr_vec3 a = rng_in_box(&r, (sr_aabb){{-1, -1, -1}, {1, 1, 1}});
        boxes[i] = (sr_aabb){
            a, sr_vec3_add(a, (sr_vec3){rng_range(&r, 0, 0.05f), rng_range(&r, 0, 0.05f), rng_range(&r, 0, 0.05f)})};
    }
    boxes[BOXES] = (sr_aabb){{NAN, 0, 0}, {1, 1, 1}};   /* skipped: not finite */
    boxes[BOXES + 1] = (sr_aabb){{1, 0, 0}, {0, 1, 1}}; /* skipped: empty */
    sr_bvh *bvh = NULL;
    cr_assert_eq(sr_bvh_build_boxes(NULL, boxes, BOXES + 2, &bvh, NULL), SR_OK);
    cr_assert_eq(bvh->stats.skipped_count, 2);
    cr_assert_eq(bvh->primitive_count, BOXES);
    check_tree(bvh, 8);
    box_scene scene = {boxes};
    int hits = 0;
    for (int i = 0; i < 10000; i++) {
        const sr_vec3 direction = rng_direction(&r); /* drawn first: see draw_order_note */
        const sr_vec3 origin = rng_in_box(&r, (sr_aabb){{-2, -2, -2}, {2, 2, 2}});
        sr_ray ray = sr_ray_make(origin, direction, 0.0f, i % 3 ? INFINITY : 1.5f);
        float best = INFINITY;
        int best_box = -1;
        for (int b = 0; b < BOXES; b++) {
            float t_near;
            if (sr_ray_aabb(&ray, &boxes[b], &t_near, NULL) && t_near < best) {
                best = t_near;
                best_box = b;
            }
        }
        sr_bvh_hit hit;
        bool found = sr_bvh_query_ray_custom(bvh, &ray, intersect_box, &scene, &hit);
        cr_assert_eq(found, best_box >= 0, "ray %d", i);
        if (found) {
            hits++;
            cr_assert_eq(hit.t, best, "ray %d: t %g, brute force %g", i, (double)hit.t, (double)best);
            float t_near;
            cr_assert(sr_ray_aabb(&ray, &boxes[hit.primitive], &t_near, NULL) && t_near == best);
            cr_assert_eq(hit.u, 0.25f);
        } else {
            cr_assert_eq(hit.primitive, SR_BVH_NO_HIT);
        }
    }
    cr_assert_gt(hits, 1000);
    /* the triangle queries need a triangle tree */
    sr_ray ray = sr_ray_make((sr_vec3){0, 0, -5}, (sr_vec3){0, 0, 1}, 0, INFINITY);
    sr_bvh_hit hit;
    cr_assert_not(sr_bvh_query_ray(bvh, &ray, &hit));
    cr_assert_not(sr_bvh_query_ray_any(bvh, &ray, NULL));
    free(boxes);
    sr_bvh_destroy(bvh);
}

/* Boxes spaced geometrically (x = 3^i) with two bins: every split can only peel the largest box
 * off, which would make a tree 78 levels deep; the build must switch to median splits near
 * SR_BVH_MAX_DEPTH, and queries (with their fixed stacks) must still find everything. */
Test(bvh_build, pathological_distribution_stays_within_the_depth_limit)
{
    enum { BOXES = 79 };
    sr_aabb boxes[BOXES];
    for (int i = 0; i < BOXES; i++) {
        float x = powf(3.0f, (float)i);
        boxes[i] = (sr_aabb){{x, 0, 0}, {x * 1.01f, 1, 1}};
    }
    sr_bvh *bvh = NULL;
    cr_assert_eq(sr_bvh_build_boxes(&(sr_bvh_desc){.max_leaf_size = 1, .bin_count = 2}, boxes, BOXES, &bvh, NULL),
                 SR_OK);
    check_tree(bvh, 1);
    cr_assert_lt(bvh->stats.max_depth, SR_BVH_MAX_DEPTH - 1);
    /* the SAH peeled one box per level until the guard (depth + log2(count) near the limit) */
    cr_assert_geq(bvh->stats.max_depth, 32, "the distribution is not pathological (depth %d)", bvh->stats.max_depth);
    /* a ray along x through every box, and a query box over all of them */
    sr_ray ray = sr_ray_make((sr_vec3){0, 0.5f, 0.5f}, (sr_vec3){1, 0, 0}, 0, INFINITY);
    box_visits v = {calloc(BOXES, 1)};
    cr_assert_not(sr_bvh_query_ray_custom(bvh, &ray, record_box_visit, &v, NULL));
    for (int i = 0; i < BOXES; i++)
        cr_assert_eq(v.visited[i], 1, "box %d", i);
    collected c = {calloc(BOXES, 1), NULL, 0, 0};
    sr_bvh_query_aabb(bvh, (sr_aabb){{0, 0, 0}, {1e38f, 1, 1}}, collect, &c);
    cr_assert_eq(c.reported, BOXES);
    free(c.count);
    free(v.visited);
    sr_bvh_destroy(bvh);
}
