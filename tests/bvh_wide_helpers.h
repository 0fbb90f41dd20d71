/* tests/bvh_wide_helpers.h — what tests/test_bvh_wide.c (the wide tree, one ray at a time) and
 * tests/test_bvh_packet.c (packets of rays) share: the portable copies of the traversals, the
 * meshes (random soups, the shared meshes), the mix of rays and the bit-for-bit comparison of
 * hits. Header-only, for tests. */
#ifndef SR_TESTS_BVH_WIDE_HELPERS_H
#define SR_TESTS_BVH_WIDE_HELPERS_H

#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <softrast/bvh.h>
#include <softrast/scene.h>

#include "../src/bvh/bvh_internal.h"

#define MESH_DIR SR_SOURCE_DIR "/../shared/meshes"

/* The traversal and the pack test compiled with the portable lanes (tests/meson.build). */
bool sr_bvh_query_wide_portable(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode,
                                sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *hit);
unsigned sr_bvh_pack_filter_portable(const sr_triangle_pack *pack, const sr_ray *ray);
int sr_bvh_query_ray_packet_portable(const sr_bvh *bvh, const sr_ray *rays, int count, sr_bvh_hit *hits);

#include "test_rng.h" /* rng, rng_range, rng_in_box, rng_direction */

/* ---- meshes ---- */

static inline sr_vec3 mesh_vertex(const sr_mesh *mesh, size_t triangle, int corner)
{
    return mesh->positions[mesh->indices[3 * triangle + (size_t)corner]];
}

static inline sr_bvh *build_mesh(const sr_mesh *mesh)
{
    sr_bvh_triangles input = {.positions = mesh->triangle_count ? &mesh->positions[0].x : NULL,
                              .position_stride = sizeof(sr_vec3),
                              .vertex_count = mesh->vertex_count,
                              .indices = mesh->indices,
                              .triangle_count = mesh->triangle_count};
    sr_bvh *bvh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, &bvh, &err), SR_OK, "build failed: %s", err.message);
    return bvh;
}

/* A point of the triangle (v0, v1, v2) to aim a ray at: a vertex, an edge point, inside, or just
 * outside across the edge v0 v1, one in four each. */
static inline sr_vec3 rng_aim_at_triangle(rng *r, sr_vec3 v0, sr_vec3 v1, sr_vec3 v2)
{
    const int aim = (int)(rng_next(r) % 4);
    float a = rng_unit(r), b = rng_unit(r);
    if (aim == 0)
        a = b = 0.0f;
    else if (aim == 1)
        b = 0.0f;
    else if (aim == 2 && a + b > 1.0f)
        a = 1.0f - a, b = 1.0f - b;
    else if (aim == 3)
        b = -1e-6f * rng_unit(r);
    return sr_vec3_add(v0, sr_vec3_add(sr_vec3_scale(sr_vec3_sub(v1, v0), a), sr_vec3_scale(sr_vec3_sub(v2, v0), b)));
}

/* `count` triangles with random corners in [-1, 1]^3 times `scale`, sizes from tiny to large;
 * `degenerate_percent` of them collinear, with a repeated vertex or a single point. */
static inline sr_mesh *random_soup(size_t count, float scale, int degenerate_percent, uint64_t seed)
{
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_create(&(sr_mesh_desc){.vertex_count = 3 * count, .triangle_count = count}, &mesh, &err),
                 SR_OK, "%s", err.message);
    rng r = {seed};
    sr_aabb cube = {{-1, -1, -1}, {1, 1, 1}};
    for (size_t i = 0; i < count; i++) {
        sr_vec3 centre = rng_in_box(&r, cube);
        float size = rng_unit(&r) < 0.9f ? rng_range(&r, 0.005f, 0.08f) : rng_range(&r, 0.1f, 0.6f);
        sr_vec3 v[3];
        for (int k = 0; k < 3; k++)
            v[k] = sr_vec3_add(centre, sr_vec3_scale(rng_direction(&r), size));
        if ((int)(rng_next(&r) % 100) < degenerate_percent) {
            switch (rng_next(&r) % 3) {
            case 0: /* collinear (up to rounding) */
                v[2] = sr_vec3_add(v[0], sr_vec3_scale(sr_vec3_sub(v[1], v[0]), rng_range(&r, -0.5f, 1.5f)));
                break;
            case 1:
                v[2] = v[1];
                break;
            default:
                v[1] = v[2] = v[0];
                break;
            }
        }
        for (int k = 0; k < 3; k++) {
            mesh->positions[3 * i + (size_t)k] = sr_vec3_scale(v[k], scale);
            mesh->indices[3 * i + (size_t)k] = (uint32_t)(3 * i + (size_t)k);
        }
    }
    return mesh;
}

static inline sr_mesh *load_shared_mesh(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MESH_DIR, name);
    if (access(path, R_OK) != 0)
        return NULL;
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_load_obj(path, &mesh, &err), SR_OK, "%s", err.message);
    return mesh;
}

/* ---- rays and hits ---- */

static inline bool same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static inline bool same_hit(const sr_bvh_hit *a, const sr_bvh_hit *b)
{
    return a->primitive == b->primitive && same_bits(a->t, b->t) && same_bits(a->u, b->u) && same_bits(a->v, b->v) &&
           same_bits(a->point.x, b->point.x) && same_bits(a->point.y, b->point.y) &&
           same_bits(a->point.z, b->point.z) && same_bits(a->normal.x, b->normal.x) &&
           same_bits(a->normal.y, b->normal.y) && same_bits(a->normal.z, b->normal.z);
}

typedef struct tally {
    int rays, hits;
} tally;

static inline sr_vec3 triangle_point(const sr_mesh *mesh, size_t t, float u, float v)
{
    sr_vec3 a = mesh_vertex(mesh, t, 0), b = mesh_vertex(mesh, t, 1), c = mesh_vertex(mesh, t, 2);
    return sr_vec3_add(a, sr_vec3_add(sr_vec3_scale(sr_vec3_sub(b, a), u), sr_vec3_scale(sr_vec3_sub(c, a), v)));
}

/* A ray of the mix: from around the mesh, aimed at a random point of a random triangle, at a
 * vertex or an edge midpoint, at a corner of a triangle's box, in a random direction, or along
 * an axis from a grid point (faces of boxes, in-plane with axis-aligned triangles); varied
 * direction lengths and [tmin, tmax]. */
static inline sr_ray mixed_ray(rng *r, const sr_mesh *mesh, sr_aabb bounds, int kind)
{
    const sr_vec3 centre = sr_aabb_centre(bounds), extent = sr_aabb_extent(bounds);
    const float size = fmaxf(extent.x, fmaxf(extent.y, extent.z));
    sr_vec3 half = sr_vec3_scale(extent, 0.75f);
    sr_aabb around = {sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
    sr_vec3 origin = rng_in_box(r, around);
    size_t t = rng_next(r) % mesh->triangle_count;
    sr_vec3 direction;
    switch (kind % 6) {
    case 0: /* inside a triangle */
    case 1: {
        float u = rng_unit(r), v = rng_unit(r);
        if (u + v > 1) {
            u = 1 - u;
            v = 1 - v;
        }
        direction = sr_vec3_sub(triangle_point(mesh, t, u, v), origin);
        break;
    }
    case 2: { /* a vertex or an edge midpoint */
        int k = (int)(rng_next(r) % 3);
        sr_vec3 a = mesh_vertex(mesh, t, k), b = mesh_vertex(mesh, t, (k + 1) % 3);
        sr_vec3 target = rng_unit(r) < 0.5f ? a : sr_vec3_scale(sr_vec3_add(a, b), 0.5f);
        direction = sr_vec3_sub(target, origin);
        break;
    }
    case 3: { /* a corner of the triangle's box: grazes the boxes of the tree */
        sr_aabb box = sr_aabb_empty();
        for (int k = 0; k < 3; k++)
            box = sr_aabb_grow(box, mesh_vertex(mesh, t, k));
        sr_vec3 corner = {rng_unit(r) < 0.5f ? box.min.x : box.max.x, rng_unit(r) < 0.5f ? box.min.y : box.max.y,
                          rng_unit(r) < 0.5f ? box.min.z : box.max.z};
        direction = sr_vec3_sub(corner, origin);
        break;
    }
    case 4: /* anywhere */
        direction = sr_vec3_scale(rng_direction(r), size);
        break;
    default: { /* along an axis, +0 or -0 elsewhere, from a point of a grid of the bounds */
        int axis = (int)(rng_next(r) % 3);
        float sign = rng_unit(r) < 0.5f ? -1.0f : 1.0f, zero = rng_unit(r) < 0.5f ? -0.0f : 0.0f;
        direction = (sr_vec3){axis == 0 ? sign : zero, axis == 1 ? sign : zero, axis == 2 ? sign : zero};
        direction = sr_vec3_scale(direction, size);
        float step = size / 16.0f;
        origin = (sr_vec3){centre.x + step * roundf((origin.x - centre.x) / step),
                           centre.y + step * roundf((origin.y - centre.y) / step),
                           centre.z + step * roundf((origin.z - centre.z) / step)};
        break;
    }
    }
    direction = sr_vec3_scale(direction, rng_range(r, 0.25f, 4.0f));
    float tmin = 0.0f, tmax = INFINITY;
    uint32_t range = rng_next(r) % 10;
    if (range == 0)
        tmin = rng_range(r, 0.0f, 0.5f);
    else if (range == 1)
        tmax = rng_range(r, 0.2f, 2.0f);
    else if (range == 2)
        tmin = -INFINITY; /* the non-fast box test */
    return sr_ray_make(origin, direction, tmin, tmax);
}

/* Whether sr_ray_triangle's sign test can pass (some t) when its compiler fuses the ray-space
 * expression relative - shear * z into an FMA, as -ffp-contract=fast may: the packets' filter
 * bound covers that reference too (bvh_query_packet_lanes.h). */
static inline bool fused_reference_may_hit(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c)
{
    const sr_vec3 v[3] = {a, b, c};
    const float origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    sr_vec3 p[3];
    for (int k = 0; k < 3; k++) {
        const float q[3] = {v[k].x, v[k].y, v[k].z};
        const float z = q[ray->axis_z] - origin[ray->axis_z];
        p[k] = (sr_vec3){fmaf(-ray->shear.x, z, q[ray->axis_x] - origin[ray->axis_x]),
                         fmaf(-ray->shear.y, z, q[ray->axis_y] - origin[ray->axis_y]), z};
    }
    const double w_a = sr_ray_space_edge(p[2], p[1]), w_b = sr_ray_space_edge(p[0], p[2]),
                 w_c = sr_ray_space_edge(p[1], p[0]);
    return (w_a >= 0.0 && w_b >= 0.0 && w_c >= 0.0) || (w_a <= 0.0 && w_b <= 0.0 && w_c <= 0.0);
}

#endif
