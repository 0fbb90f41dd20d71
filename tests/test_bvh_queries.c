/* tests/test_bvh_queries.c — the static BVH's rays on closed meshes (watertightness),
 * degenerate input, and its overlap queries (boxes, spheres, frustums) against brute force (part of
 * the program test_bvh; helpers: bvh_test_helpers.h). */
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
/* Watertightness                                                                                   */

static void check_inside_rays(const sr_mesh *mesh, sr_vec3 (*inside_point)(rng *), uint64_t seed, const char *what)
{
    sr_bvh *bvh = build_mesh(mesh, NULL);
    rng r = {seed};
    int misses = 0;
    for (int i = 0; i < 100000; i++) {
        const float length = rng_range(&r, 0.5f, 2.0f); /* drawn first: see draw_order_note */
        sr_vec3 direction = sr_vec3_scale(rng_direction(&r), length);
        sr_ray ray = sr_ray_make(inside_point(&r), direction, 0.0f, INFINITY);
        sr_bvh_hit hit;
        if (!sr_bvh_query_ray(bvh, &ray, &hit))
            misses++;
        else if (i % 10 == 0)
            cr_assert(sr_bvh_query_ray_any(bvh, &ray, NULL));
    }
    cr_assert_eq(misses, 0, "%s: %d of 100000 rays from inside escaped", what, misses);
    sr_bvh_destroy(bvh);
}

static sr_vec3 inside_sphere(rng *r)
{
    const float radius = 0.95f * sqrtf(rng_unit(r)); /* drawn first: see draw_order_note */
    return sr_vec3_scale(rng_direction(r), radius);
}

/* inside the tube of the torus (major 1, minor 0.4) around the y axis */
static sr_vec3 inside_torus(rng *r)
{
    float angle = rng_range(r, 0, 2 * SR_PI);
    sr_vec3 ring = {cosf(angle), 0.0f, sinf(angle)};
    float a = rng_range(r, 0, 2 * SR_PI), radius = 0.38f * sqrtf(rng_unit(r));
    return sr_vec3_add(ring, sr_vec3_add(sr_vec3_scale(ring, radius * cosf(a)), (sr_vec3){0, radius * sinf(a), 0}));
}

Test(bvh_watertight, rays_from_inside_a_closed_sphere_always_hit)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 160, 64, &mesh, NULL), SR_OK);
    cr_assert_geq(mesh->triangle_count, 20000);
    check_inside_rays(mesh, inside_sphere, 31, "sphere");
    sr_mesh_destroy(mesh);
}

Test(bvh_watertight, rays_from_inside_a_closed_torus_always_hit)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_torus(1.0f, 0.4f, 160, 64, &mesh, NULL), SR_OK);
    cr_assert_geq(mesh->triangle_count, 20000);
    /* the generator's axis: check that the sample points are inside its tube */
    sr_aabb bounds = sr_mesh_bounds(mesh);
    cr_assert_float_eq(bounds.max.y, 0.4f, 1e-3f, "torus around the y axis");
    check_inside_rays(mesh, inside_torus, 32, "torus");
    sr_mesh_destroy(mesh);
}

/* Rays from outside aimed exactly at mesh vertices (shared by up to 8 triangles at the poles)
 * and at edge midpoints hit the mesh no later than the aimed point. */
/* On the edges of the unit cube (two coordinates at +-1): a ray from outside that touches such a
 * convex 90-degree edge only grazes the solid, and whether it touches is a matter of rounding,
 * so those targets are left out for the box mesh. */
static bool on_cube_edge(sr_vec3 p)
{
    return (fabsf(p.x) == 1) + (fabsf(p.y) == 1) + (fabsf(p.z) == 1) >= 2;
}

static void check_aimed_rays(const sr_mesh *mesh, float distance, bool skip_cube_edges)
{
    sr_bvh *bvh = build_mesh(mesh, NULL);
    rng r = {33};
    int checked = 0;
    for (size_t t = 0; t < mesh->triangle_count; t += 3) {
        for (int k = 0; k < 3; k++) {
            sr_vec3 a = mesh_vertex(mesh, t, k), b = mesh_vertex(mesh, t, (k + 1) % 3);
            sr_vec3 targets[2] = {a, sr_vec3_scale(sr_vec3_add(a, b), 0.5f)};
            sr_vec3 normal =
                sr_vec3_normalize(sr_vec3_cross(sr_vec3_sub(mesh_vertex(mesh, t, 1), mesh_vertex(mesh, t, 0)),
                                                sr_vec3_sub(mesh_vertex(mesh, t, 2), mesh_vertex(mesh, t, 0))));
            for (int i = 0; i < 2; i++) {
                if (skip_cube_edges && on_cube_edge(targets[i]))
                    continue;
                /* from outside, along the face normal tilted a little at random (at most ~17
                 * degrees: the ray crosses the surface, it does not graze it) */
                sr_vec3 offset =
                    sr_vec3_add(sr_vec3_scale(normal, distance), sr_vec3_scale(rng_direction(&r), distance * 0.3f));
                sr_vec3 origin = sr_vec3_add(targets[i], offset);
                sr_ray ray = sr_ray_make(origin, sr_vec3_sub(targets[i], origin), 0.0f, INFINITY);
                sr_bvh_hit hit;
                if (!sr_bvh_query_ray(bvh, &ray, &hit)) {
                    brute_hit brute = brute_closest(mesh, &ray);
                    cr_assert_fail("ray at %s (%.9g %.9g %.9g) of triangle %zu from (%.9g %.9g %.9g) missed "
                                   "(brute force: %s triangle %u)",
                                   i ? "edge midpoint" : "vertex", (double)targets[i].x, (double)targets[i].y,
                                   (double)targets[i].z, t, (double)origin.x, (double)origin.y, (double)origin.z,
                                   brute.hit ? "hit" : "missed", brute.triangle);
                }
                cr_assert_leq(hit.t, 1.0f + 1e-4f);
                checked++;
            }
        }
    }
    cr_assert_gt(checked, 5000);
    sr_bvh_destroy(bvh);
}

Test(bvh_watertight, rays_aimed_at_shared_vertices_and_edges_hit)
{
    sr_mesh *sphere = NULL, *torus = NULL, *box = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 96, 48, &sphere, NULL), SR_OK);
    cr_assert_eq(sr_mesh_create_torus(1.0f, 0.4f, 96, 48, &torus, NULL), SR_OK);
    /* the box's vertices lie on multiples of 1/8, so its edge midpoints are exactly on the edges */
    cr_assert_eq(sr_mesh_create_box((sr_vec3){1, 1, 1}, 16, &box, NULL), SR_OK);
    check_aimed_rays(sphere, 0.5f, false);
    check_aimed_rays(torus, 0.1f, false);
    check_aimed_rays(box, 0.5f, true);
    sr_mesh_destroy(sphere);
    sr_mesh_destroy(torus);
    sr_mesh_destroy(box);
}

/* ================================================================================================ */
/* Degenerate input                                                                                 */

static bool never_called(void *user, uint32_t primitive)
{
    (void)user;
    cr_assert_fail("callback called for primitive %u of an empty tree", primitive);
    return false;
}

Test(bvh_edge, empty_tree_reports_nothing)
{
    sr_bvh *bvh = NULL;
    sr_bvh_triangles input = {0};
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, &bvh, NULL), SR_OK);
    cr_assert_eq(bvh->primitive_count, 0);
    check_tree(bvh, 8);
    sr_ray ray = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, 0, INFINITY);
    sr_bvh_hit hit;
    cr_assert_not(sr_bvh_query_ray(bvh, &ray, &hit));
    cr_assert_eq(hit.primitive, SR_BVH_NO_HIT);
    cr_assert_not(sr_bvh_query_ray_any(bvh, &ray, &hit));
    sr_bvh_query_stats stats =
        sr_bvh_query_aabb(bvh, (sr_aabb){{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}}, never_called, NULL);
    cr_assert_eq(stats.primitives_reported, 0);
    sr_bvh_destroy(bvh);

    cr_assert_eq(sr_bvh_build_boxes(NULL, NULL, 0, &bvh, NULL), SR_OK);
    cr_assert_not(sr_bvh_query_ray_custom(bvh, &ray, intersect_box, NULL, &hit));
    sr_bvh_destroy(bvh);
    /* NULL trees and callbacks */
    cr_assert_not(sr_bvh_query_ray(NULL, &ray, &hit));
    cr_assert_eq(sr_bvh_query_sphere(NULL, (sr_sphere){{0, 0, 0}, 1}, NULL, NULL).nodes_visited, 0);
    sr_bvh_destroy(NULL);
}

Test(bvh_edge, non_finite_triangles_are_skipped)
{
    float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, NAN, 0, 0, INFINITY, 1, 1, 0, 0, -INFINITY};
    uint32_t indices[] = {0, 1, 2, 3, 1, 2, 0, 4, 2, 0, 1, 5, 3, 4, 5};
    sr_bvh_triangles input = {.positions = positions, .vertex_count = 6, .indices = indices, .triangle_count = 5};
    sr_bvh *bvh = NULL;
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, &bvh, NULL), SR_OK);
    cr_assert_eq(bvh->primitive_count, 1);
    cr_assert_eq(bvh->stats.skipped_count, 4);
    cr_assert_eq(bvh->primitive_indices[0], 0);
    sr_ray ray = sr_ray_make((sr_vec3){0.25f, 0.25f, 1}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    sr_bvh_hit hit;
    cr_assert(sr_bvh_query_ray(bvh, &ray, &hit));
    cr_assert_eq(hit.primitive, 0);
    cr_assert_eq(hit.t, 1.0f);
    sr_bvh_destroy(bvh);
    /* only non-finite triangles: an empty tree */
    input.indices = indices + 3;
    input.triangle_count = 1;
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, &bvh, NULL), SR_OK);
    cr_assert_eq(bvh->primitive_count, 0);
    cr_assert_not(sr_bvh_query_ray(bvh, &ray, &hit));
    sr_bvh_destroy(bvh);
}

Test(bvh_edge, single_triangle_matches_sr_ray_triangle)
{
    sr_mesh *mesh = random_triangles(1, 41);
    sr_bvh *bvh = build_mesh(mesh, NULL);
    check_tree(bvh, 8);
    cr_assert_eq(bvh->node_count, 1);
    rng r = {42};
    for (int i = 0; i < 3000; i++) {
        sr_ray ray = random_ray(&r, mesh, (sr_aabb){{-1, -1, -1}, {1, 1, 1}});
        check_closest(mesh, bvh, &ray, "single", i);
        check_any(mesh, bvh, &ray, "single", i);
    }
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(mesh);
}

/* The traversal intersects leaf triangles with a specialisation of sr_ray_triangle (vertices
 * read in place, the ray's origin permuted once): it must answer bit for bit what
 * sr_ray_triangle answers, hit or miss, t, u and v, also for rays through vertices and edges,
 * degenerate triangles, negative directions along every axis, tmin > 0 and finite tmax. */
Test(bvh_edge, leaf_triangle_test_is_bit_identical_to_sr_ray_triangle)
{
    rng r = {77};
    int hits = 0;
    for (int i = 0; i < 4000; i++) {
        sr_vec3 v[3];
        for (int k = 0; k < 3; k++)
            v[k] = rng_in_box(&r, (sr_aabb){{-1, -1, -1}, {1, 1, 1}});
        if (i % 10 == 1)
            v[2] = v[1]; /* a repeated vertex */
        if (i % 10 == 2)
            v[2] = sr_vec3_add(v[0], sr_vec3_scale(sr_vec3_sub(v[1], v[0]), 0.5f)); /* (nearly) collinear */
        sr_bvh *bvh = NULL;
        cr_assert_eq(
            sr_bvh_build_triangles(
                NULL, &(sr_bvh_triangles){.positions = &v[0].x, .vertex_count = 3, .triangle_count = 1}, &bvh, NULL),
            SR_OK);
        for (int j = 0; j < 8; j++) {
            /* aim at a vertex, an edge point or an inside point, from a random place */
            float a = rng_unit(&r), b = rng_unit(&r);
            if (j % 4 == 0)
                a = b = 0.0f;
            else if (j % 4 == 1)
                b = 0.0f;
            else if (a + b > 1.0f)
                a = 1.0f - a, b = 1.0f - b;
            sr_vec3 target = sr_vec3_add(v[0], sr_vec3_add(sr_vec3_scale(sr_vec3_sub(v[1], v[0]), a),
                                                           sr_vec3_scale(sr_vec3_sub(v[2], v[0]), b)));
            sr_vec3 origin = rng_in_box(&r, (sr_aabb){{-3, -3, -3}, {3, 3, 3}});
            float scale = rng_range(&r, 0.1f, 10.0f);
            sr_vec3 direction = sr_vec3_scale(sr_vec3_sub(target, origin), scale);
            float tmin = j == 5 ? rng_range(&r, 0.0f, 0.2f) : 0.0f;
            float tmax = j == 6 ? rng_range(&r, 0.05f, 0.5f) : INFINITY;
            sr_ray ray = sr_ray_make(origin, direction, tmin, tmax);
            sr_triangle_hit expected;
            bool expected_hit = sr_ray_triangle(&ray, v[0], v[1], v[2], &expected);
            sr_bvh_hit hit;
            bool found = sr_bvh_query_ray(bvh, &ray, &hit);
            cr_assert_eq(found, expected_hit, "triangle %d ray %d: bvh %d, sr_ray_triangle %d", i, j, found,
                         expected_hit);
            if (found) {
                hits++;
                cr_assert_eq(memcmp(&hit.t, &expected.t, sizeof(float)), 0, "triangle %d ray %d: t", i, j);
                cr_assert_eq(memcmp(&hit.u, &expected.u, sizeof(float)), 0, "triangle %d ray %d: u", i, j);
                cr_assert_eq(memcmp(&hit.v, &expected.v, sizeof(float)), 0, "triangle %d ray %d: v", i, j);
            }
            found = sr_bvh_query_ray_any(bvh, &ray, &hit);
            cr_assert_eq(found, expected_hit);
            if (found)
                cr_assert_eq(memcmp(&hit.t, &expected.t, sizeof(float)), 0);
        }
        sr_bvh_destroy(bvh);
    }
    cr_assert_gt(hits, 10000, "the rays aim at the triangles: most must hit (%d)", hits);
}

Test(bvh_edge, identical_and_degenerate_triangles)
{
    enum { COPIES = 20000 };
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create(&(sr_mesh_desc){.vertex_count = 9, .triangle_count = COPIES + 300}, &mesh, NULL),
                 SR_OK);
    sr_vec3 points[9] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0},     /* a triangle */
                         {2, 2, 2}, {3, 3, 3}, {4, 4, 4},     /* collinear */
                         {5, 0, 0}, {5, 0, 0}, {5, 0, 0.5f}}; /* a repeated vertex */
    memcpy(mesh->positions, points, sizeof points);
    for (size_t i = 0; i < mesh->triangle_count; i++) {
        uint32_t base = i < COPIES ? 0 : (i % 3 == 0 ? 3 : (i % 3 == 1 ? 6 : 0));
        uint32_t corners[3] = {base, base + 1, base + 2};
        if (i >= COPIES && i % 3 == 2) /* a point: all three corners equal */
            corners[1] = corners[2] = base;
        memcpy(&mesh->indices[3 * i], corners, sizeof corners);
    }
    sr_bvh *bvh = build_mesh(mesh, NULL);
    check_tree(bvh, 8);
    cr_assert_lt(bvh->stats.max_depth, SR_BVH_MAX_DEPTH);
    rng r = {43};
    for (int i = 0; i < 300; i++) {
        sr_ray ray = random_ray(&r, mesh, (sr_aabb){{-1, -1, -1}, {5, 5, 5}});
        check_closest(mesh, bvh, &ray, "identical", i);
        check_any(mesh, bvh, &ray, "identical", i);
    }
    /* rays through the collinear and the repeated-vertex triangles: no false hit */
    sr_vec3 targets[3] = {{3, 3, 3}, {5, 0, 0.25f}, {5, 0, 0}};
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 20; k++) {
            sr_vec3 origin = sr_vec3_add(targets[i], sr_vec3_scale(rng_direction(&r), 2.0f));
            sr_ray ray = sr_ray_make(origin, sr_vec3_sub(targets[i], origin), 0, INFINITY);
            check_closest(mesh, bvh, &ray, "degenerate", k);
        }
    }
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(mesh);
}

Test(bvh_edge, axis_parallel_zero_nan_and_subnormal_rays)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_box((sr_vec3){1, 1, 1}, 4, &mesh, NULL), SR_OK);
    sr_bvh *bvh = build_mesh(mesh, NULL);
    rng r = {44};
    int index = 0;
    /* along each axis, both signs, +0 and -0 in the other components, origins on the grid of
     * the box's vertices (so on node box faces and triangle edges) and off it */
    for (int axis = 0; axis < 3; axis++) {
        for (int sign = -1; sign <= 1; sign += 2) {
            for (int zero = 0; zero < 2; zero++) {
                float z = zero ? -0.0f : 0.0f;
                sr_vec3 direction = {axis == 0 ? (float)sign : z, axis == 1 ? (float)sign : z,
                                     axis == 2 ? (float)sign : z};
                for (int k = 0; k < 60; k++) {
                    sr_vec3 origin = rng_in_box(&r, (sr_aabb){{-1.5f, -1.5f, -1.5f}, {1.5f, 1.5f, 1.5f}});
                    if (k % 2 == 0) /* on the vertex grid: faces, edges and corners of boxes */
                        origin =
                            (sr_vec3){roundf(origin.x * 2) / 2, roundf(origin.y * 2) / 2, roundf(origin.z * 2) / 2};
                    if (k % 6 == 0) /* exactly on the root box face, running inside its plane */
                        origin = (sr_vec3){axis == 0 ? origin.x : 1.0f, axis == 0 ? 1.0f : origin.y, origin.z};
                    sr_ray ray = sr_ray_make(origin, direction, 0, INFINITY);
                    check_closest(mesh, bvh, &ray, "axis-parallel", index);
                    check_any(mesh, bvh, &ray, "axis-parallel", index++);
                }
            }
        }
    }
    /* zero directions and NaN anywhere: no hit, no crash */
    sr_ray bad[] = {
        sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, 0}, 0, INFINITY),
        sr_ray_make((sr_vec3){1, 0, 0}, (sr_vec3){-0.0f, 0, -0.0f}, 0, INFINITY),
        sr_ray_make((sr_vec3){NAN, 0, 0}, (sr_vec3){1, 0, 0}, 0, INFINITY),
        sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, NAN, 1}, 0, INFINITY),
        sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, NAN, INFINITY),
        sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, 0, NAN),
        sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){INFINITY, 0, 0}, 0, INFINITY),
        sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, 2, 1), /* empty range */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sr_bvh_hit hit;
        cr_assert_not(sr_bvh_query_ray(bvh, &bad[i], &hit), "bad ray %zu hit", i);
        cr_assert_eq(hit.primitive, SR_BVH_NO_HIT);
        cr_assert_not(sr_bvh_query_ray_any(bvh, &bad[i], &hit), "bad ray %zu any-hit", i);
        cr_assert_eq(brute_closest(mesh, &bad[i]).hit, false);
    }
    /* a hand-made NaN ray (not through sr_ray_make) */
    sr_ray nan_ray = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, 0, INFINITY);
    nan_ray.inv_direction.x = NAN;
    nan_ray.origin.y = NAN;
    cr_assert_not(sr_bvh_query_ray(bvh, &nan_ray, NULL));
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(mesh);

    /* subnormal geometry and rays */
    sr_mesh *tiny = random_triangles(500, 45);
    for (size_t v = 0; v < tiny->vertex_count; v++)
        tiny->positions[v] = sr_vec3_scale(tiny->positions[v], 1e-39f);
    bvh = build_mesh(tiny, NULL);
    check_tree(bvh, 8);
    for (int i = 0; i < 500; i++) {
        sr_vec3 origin = sr_vec3_scale(rng_in_box(&r, (sr_aabb){{-2, -2, -2}, {2, 2, 2}}), 1e-39f);
        sr_vec3 direction = rng_direction(&r);
        if (i % 2)
            direction = sr_vec3_scale(direction, 1e-39f); /* subnormal direction components */
        sr_ray ray = sr_ray_make(origin, direction, 0, INFINITY);
        check_closest(tiny, bvh, &ray, "subnormal", i);
    }
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(tiny);
}

/* ================================================================================================ */
/* Overlap queries against brute force                                                              */

/* Runs `count` random box, sphere and frustum queries over a triangle mesh's tree and compares
 * the reported sets with brute force over the triangle boxes. */
static void check_overlaps(const sr_mesh *mesh, int count, uint64_t seed)
{
    sr_bvh *bvh = build_mesh(mesh, NULL);
    size_t n = mesh->triangle_count;
    sr_aabb *boxes = malloc(n * sizeof(sr_aabb));
    for (size_t i = 0; i < n; i++)
        boxes[i] = triangle_box(mesh, i);
    collected c = {calloc(n, 1), calloc(n, sizeof(sr_containment)), 0, 0};
    rng r = {seed};
    size_t total[3] = {0, 0, 0};
    for (int q = 0; q < count; q++) {
        int kind = q % 3;
        memset(c.count, 0, n);
        c.reported = 0;
        sr_aabb box = random_query_box(&r);
        sr_sphere sphere = {rng_in_box(&r, (sr_aabb){{-1.2f, -1.2f, -1.2f}, {1.2f, 1.2f, 1.2f}}),
                            rng_unit(&r) < 0.8f ? rng_range(&r, 0, 0.2f) : rng_range(&r, 0, 1.0f)};
        sr_frustum frustum = random_frustum(&r);
        sr_bvh_query_stats stats = kind == 0   ? sr_bvh_query_aabb(bvh, box, collect, &c)
                                   : kind == 1 ? sr_bvh_query_sphere(bvh, sphere, collect, &c)
                                               : sr_bvh_query_frustum(bvh, &frustum, collect_frustum, &c);
        cr_assert_eq(stats.primitives_reported, c.reported);
        cr_assert_not(stats.stopped);
        cr_assert_gt(stats.nodes_visited, 0);
        for (size_t i = 0; i < n; i++) {
            sr_containment expected = kind == 0 ? (sr_aabb_overlaps(box, boxes[i]) ? SR_INTERSECTING : SR_OUTSIDE)
                                      : kind == 1
                                          ? (sr_aabb_sphere_overlap(boxes[i], sphere) ? SR_INTERSECTING : SR_OUTSIDE)
                                          : sr_frustum_test_aabb(&frustum, &boxes[i]);
            /* plain ifs: a criterion assertion per primitive would dominate the run time */
            if (c.count[i] != (expected != SR_OUTSIDE ? 1 : 0))
                cr_assert_fail("query %d (kind %d) primitive %zu: %d reports, brute force %d", q, kind, i, c.count[i],
                               expected);
            if (kind == 2 && expected != SR_OUTSIDE && c.containment[i] != expected)
                cr_assert_fail("frustum %d primitive %zu: containment %d, brute force %d", q, i, c.containment[i],
                               expected);
            total[kind] += expected != SR_OUTSIDE;
        }
    }
    for (int kind = 0; kind < 3; kind++)
        cr_assert_gt(total[kind], (size_t)count / 3, "query kind %d found too little to be a test", kind);
    /* a callback returning false stops the query at once */
    c.stop_after = 3;
    c.reported = 0;
    sr_bvh_query_stats stats = sr_bvh_query_aabb(bvh, (sr_aabb){{-2, -2, -2}, {2, 2, 2}}, collect, &c);
    cr_assert(stats.stopped);
    cr_assert_eq(c.reported, 3);
    cr_assert_eq(stats.primitives_reported, 3);
    free(c.count);
    free(c.containment);
    free(boxes);
    sr_bvh_destroy(bvh);
}

Test(bvh_overlap, random_triangles_match_brute_force)
{
    sr_mesh *mesh = random_triangles(6000, 51);
    check_overlaps(mesh, SR_TEST_COUNT(10002, 2502), 52);
    sr_mesh_destroy(mesh);
}

Test(bvh_overlap, sphere_mesh_matches_brute_force)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 64, 48, &mesh, NULL), SR_OK);
    check_overlaps(mesh, 1500, 53);
    sr_mesh_destroy(mesh);
}

Test(bvh_overlap, box_tree_matches_brute_force)
{
    enum { BOXES = 5000 };
    rng r = {54};
    sr_aabb *boxes = malloc(BOXES * sizeof(sr_aabb));
    for (int i = 0; i < BOXES; i++)
        boxes[i] = random_query_box(&r);
    sr_bvh *bvh = NULL;
    cr_assert_eq(sr_bvh_build_boxes(NULL, boxes, BOXES, &bvh, NULL), SR_OK);
    check_tree(bvh, 8);
    collected c = {calloc(BOXES, 1), calloc(BOXES, sizeof(sr_containment)), 0, 0};
    for (int q = 0; q < 2000; q++) {
        memset(c.count, 0, BOXES);
        sr_frustum frustum = random_frustum(&r);
        sr_aabb box = random_query_box(&r);
        if (q % 2)
            sr_bvh_query_frustum(bvh, &frustum, collect_frustum, &c);
        else
            sr_bvh_query_aabb(bvh, box, collect, &c);
        for (int i = 0; i < BOXES; i++) {
            sr_containment expected = q % 2 ? sr_frustum_test_aabb(&frustum, &boxes[i])
                                            : (sr_aabb_overlaps(box, boxes[i]) ? SR_INTERSECTING : SR_OUTSIDE);
            if (c.count[i] != (expected != SR_OUTSIDE) ||
                (q % 2 && expected != SR_OUTSIDE && c.containment[i] != expected))
                cr_assert_fail("query %d box %d: %d reports (containment %d), brute force %d", q, i, c.count[i],
                               c.containment[i], expected);
        }
    }
    free(c.count);
    free(c.containment);
    free(boxes);
    sr_bvh_destroy(bvh);
}
