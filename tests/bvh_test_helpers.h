/* tests/bvh_test_helpers.h — what the tests of the static BVH (tests/test_bvh*.c) share: meshes (random
 * triangles, tessellated spheres and tori, the shared meshes), brute-force answers over all
 * primitives, and the tree invariants recomputed from the node array. Header-only, for tests. */
#ifndef SR_TESTS_BVH_TEST_HELPERS_H
#define SR_TESTS_BVH_TEST_HELPERS_H

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

/* ---- meshes ---- */

static inline sr_vec3 mesh_vertex(const sr_mesh *mesh, size_t triangle, int corner)
{
    return mesh->positions[mesh->indices[3 * triangle + (size_t)corner]];
}

static inline sr_bvh *build_mesh(const sr_mesh *mesh, const sr_bvh_desc *desc)
{
    sr_bvh_triangles input = {.positions = mesh->triangle_count ? &mesh->positions[0].x : NULL,
                              .position_stride = sizeof(sr_vec3),
                              .vertex_count = mesh->vertex_count,
                              .indices = mesh->indices,
                              .triangle_count = mesh->triangle_count};
    sr_bvh *bvh = NULL;
    sr_error err = {0};
    sr_status status = sr_bvh_build_triangles(desc, &input, &bvh, &err);
    cr_assert_eq(status, SR_OK, "build failed: %s", err.message);
    cr_assert_not_null(bvh);
    return bvh;
}

/* `count` triangles with random corners in [-1, 1]^3, sizes from tiny to large. */
static inline sr_mesh *random_triangles(size_t count, uint64_t seed)
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
        for (int k = 0; k < 3; k++) {
            mesh->positions[3 * i + (size_t)k] = sr_vec3_add(centre, sr_vec3_scale(rng_direction(&r), size));
            mesh->indices[3 * i + (size_t)k] = (uint32_t)(3 * i + (size_t)k);
        }
    }
    return mesh;
}

/* Skips the calling test, with a message, when the folder of shared meshes is absent: the tests
 * over real meshes then report as skipped, never as passed. A mesh missing from a folder that is
 * there fails (load_shared_mesh): that is a broken copy of the shared data, not an absent one. */
static inline void require_shared_meshes(void)
{
    struct stat info;
    if (stat(MESH_DIR, &info) != 0 || !S_ISDIR(info.st_mode))
        cr_skip_test("%s is absent: the checks over real meshes did not run", MESH_DIR);
}

static inline sr_mesh *load_shared_mesh(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MESH_DIR, name);
    cr_assert_eq(access(path, R_OK), 0, "%s: %s (the folder of shared meshes is there, this mesh is not)", path,
                 strerror(errno));
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_load_obj(path, &mesh, &err), SR_OK, "%s", err.message);
    return mesh;
}

/* ---- brute force ---- */

typedef struct brute_hit {
    bool hit;
    float t;
    uint32_t triangle;
} brute_hit;

static inline brute_hit brute_closest(const sr_mesh *mesh, const sr_ray *ray)
{
    brute_hit best = {false, INFINITY, SR_BVH_NO_HIT};
    for (size_t i = 0; i < mesh->triangle_count; i++) {
        sr_triangle_hit hit;
        if (sr_ray_triangle(ray, mesh_vertex(mesh, i, 0), mesh_vertex(mesh, i, 1), mesh_vertex(mesh, i, 2), &hit) &&
            (!best.hit || hit.t < best.t)) {
            best = (brute_hit){true, hit.t, (uint32_t)i};
        }
    }
    return best;
}

/* The same answer, faster for large meshes: triangles whose box geom's sr_ray_aabb rejects
 * are skipped (sr_ray_aabb never rejects a box a ray touches, so it never rejects a triangle
 * the ray hits). Used for the shared meshes, where plain brute force would take minutes. */
static inline brute_hit brute_closest_boxed(const sr_mesh *mesh, const sr_aabb *boxes, const sr_ray *ray)
{
    brute_hit best = {false, INFINITY, SR_BVH_NO_HIT};
    for (size_t i = 0; i < mesh->triangle_count; i++) {
        sr_triangle_hit hit;
        if (sr_ray_aabb(ray, &boxes[i], NULL, NULL) &&
            sr_ray_triangle(ray, mesh_vertex(mesh, i, 0), mesh_vertex(mesh, i, 1), mesh_vertex(mesh, i, 2), &hit) &&
            (!best.hit || hit.t < best.t)) {
            best = (brute_hit){true, hit.t, (uint32_t)i};
        }
    }
    return best;
}

static inline sr_aabb triangle_box(const sr_mesh *mesh, size_t triangle)
{
    sr_aabb box = sr_aabb_empty();
    for (int k = 0; k < 3; k++)
        box = sr_aabb_grow(box, mesh_vertex(mesh, triangle, k));
    return box;
}

/* Checks a BVH closest hit against brute force: same hit/miss, same t, and a triangle that is
 * hit at exactly that t (the brute-force one, or another that meets it there), with the u, v,
 * point and normal of that triangle. */
static inline void check_closest_against(const sr_mesh *mesh, const sr_bvh *bvh, const sr_ray *ray, brute_hit expected,
                                         const char *what, int index)
{
    sr_bvh_hit hit;
    bool found = sr_bvh_query_ray(bvh, ray, &hit);
    cr_assert_eq(found, expected.hit, "%s ray %d: bvh %s, brute force %s (t %g)", what, index, found ? "hit" : "missed",
                 expected.hit ? "hit" : "missed", (double)expected.t);
    if (!found) {
        cr_assert_eq(hit.primitive, SR_BVH_NO_HIT);
        cr_assert(isinf(hit.t) && hit.t > 0);
        return;
    }
    cr_assert_eq(hit.t, expected.t, "%s ray %d: t %.9g, brute force %.9g (triangle %u vs %u)", what, index,
                 (double)hit.t, (double)expected.t, hit.primitive, expected.triangle);
    cr_assert_lt(hit.primitive, mesh->triangle_count);
    sr_vec3 a = mesh_vertex(mesh, hit.primitive, 0), b = mesh_vertex(mesh, hit.primitive, 1),
            c = mesh_vertex(mesh, hit.primitive, 2);
    sr_triangle_hit own;
    cr_assert(sr_ray_triangle(ray, a, b, c, &own), "%s ray %d: reported triangle %u is not hit", what, index,
              hit.primitive);
    cr_assert_eq(own.t, hit.t, "%s ray %d: reported triangle %u is hit at %.9g, not %.9g", what, index, hit.primitive,
                 (double)own.t, (double)hit.t);
    cr_assert_eq(own.u, hit.u);
    cr_assert_eq(own.v, hit.v);
    sr_vec3 point = sr_ray_at(ray, hit.t);
    cr_assert(point.x == hit.point.x && point.y == hit.point.y && point.z == hit.point.z);
    /* the normal in double (float underflows for subnormal-sized triangles); 0 for zero area */
    double e1[3] = {(double)b.x - a.x, (double)b.y - a.y, (double)b.z - a.z};
    double e2[3] = {(double)c.x - a.x, (double)c.y - a.y, (double)c.z - a.z};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (length == 0.0) {
        cr_assert(hit.normal.x == 0 && hit.normal.y == 0 && hit.normal.z == 0, "%s ray %d: zero-area normal", what,
                  index);
    } else {
        double dot = (n[0] * hit.normal.x + n[1] * hit.normal.y + n[2] * hit.normal.z) / length;
        cr_assert_float_eq(dot, 1.0, 1e-6, "%s ray %d: normal", what, index);
    }
    cr_assert_gt(hit.nodes_visited, 0);
}

static inline void check_closest(const sr_mesh *mesh, const sr_bvh *bvh, const sr_ray *ray, const char *what, int index)
{
    check_closest_against(mesh, bvh, ray, brute_closest(mesh, ray), what, index);
}

static inline void check_any_against(const sr_mesh *mesh, const sr_bvh *bvh, const sr_ray *ray, brute_hit expected,
                                     const char *what, int index)
{
    sr_bvh_hit hit;
    bool found = sr_bvh_query_ray_any(bvh, ray, &hit);
    cr_assert_eq(found, expected.hit, "%s any-hit ray %d: bvh %d, brute force %d", what, index, found, expected.hit);
    if (found) {
        sr_triangle_hit own;
        cr_assert(sr_ray_triangle(ray, mesh_vertex(mesh, hit.primitive, 0), mesh_vertex(mesh, hit.primitive, 1),
                                  mesh_vertex(mesh, hit.primitive, 2), &own));
        cr_assert_eq(own.t, hit.t);
    }
}

static inline void check_any(const sr_mesh *mesh, const sr_bvh *bvh, const sr_ray *ray, const char *what, int index)
{
    check_any_against(mesh, bvh, ray, brute_closest(mesh, ray), what, index);
}

/* A random ray for a mesh inside `bounds`: from a point around the mesh, half of them aimed at
 * a random point of a random triangle (so that many hit), half in a random direction; direction
 * lengths vary (t is in units of |direction|); some rays have a finite tmax or a tmin > 0. */
static inline sr_ray random_ray(rng *r, const sr_mesh *mesh, sr_aabb bounds)
{
    sr_vec3 centre = sr_aabb_centre(bounds);
    sr_vec3 half = sr_vec3_scale(sr_aabb_extent(bounds), 0.75f);
    sr_aabb around = {sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
    sr_vec3 origin = rng_in_box(r, around);
    sr_vec3 direction;
    if (rng_unit(r) < 0.5f && mesh->triangle_count > 0) {
        size_t t = rng_next(r) % mesh->triangle_count;
        float u = rng_unit(r), v = rng_unit(r);
        if (u + v > 1) {
            u = 1 - u;
            v = 1 - v;
        }
        sr_vec3 a = mesh_vertex(mesh, t, 0), b = mesh_vertex(mesh, t, 1), c = mesh_vertex(mesh, t, 2);
        sr_vec3 target =
            sr_vec3_add(a, sr_vec3_add(sr_vec3_scale(sr_vec3_sub(b, a), u), sr_vec3_scale(sr_vec3_sub(c, a), v)));
        direction = sr_vec3_sub(target, origin);
    } else {
        direction = rng_direction(r);
    }
    direction = sr_vec3_scale(direction, rng_range(r, 0.25f, 4.0f));
    float tmin = rng_unit(r) < 0.8f ? 0.0f : rng_range(r, 0.0f, 0.5f);
    float tmax = rng_unit(r) < 0.7f ? INFINITY : rng_range(r, 0.2f, 2.0f);
    return sr_ray_make(origin, direction, tmin, tmax);
}

/* `boxed`: brute force with the box prefilter (large meshes). */
static inline void check_random_rays(const sr_mesh *mesh, const char *what, int count, uint64_t seed, bool boxed)
{
    sr_bvh *bvh = build_mesh(mesh, NULL);
    sr_aabb bounds = sr_mesh_bounds(mesh);
    sr_aabb *boxes = malloc(mesh->triangle_count * sizeof(sr_aabb));
    for (size_t i = 0; i < mesh->triangle_count; i++)
        boxes[i] = triangle_box(mesh, i);
    rng r = {seed};
    int hits = 0;
    for (int i = 0; i < count; i++) {
        sr_ray ray = random_ray(&r, mesh, bounds);
        brute_hit expected = boxed ? brute_closest_boxed(mesh, boxes, &ray) : brute_closest(mesh, &ray);
        check_closest_against(mesh, bvh, &ray, expected, what, i);
        check_any_against(mesh, bvh, &ray, expected, what, i);
        hits += expected.hit;
    }
    free(boxes);
    /* the comparison means something only if both outcomes occur often */
    cr_assert_gt(hits, count / 5, "%s: only %d hits", what, hits);
    cr_assert_lt(hits, count - count / 10, "%s: %d hits of %d", what, hits, count);
    sr_bvh_destroy(bvh);
}

/* ---- tree invariants, recomputed from the node array ---- */

static inline double half_area_double(sr_vec3 min, sr_vec3 max)
{
    double dx = (double)max.x - min.x, dy = (double)max.y - min.y, dz = (double)max.z - min.z;
    return dx * dy + dy * dz + dz * dx;
}

static inline bool box_inside(sr_vec3 inner_min, sr_vec3 inner_max, sr_vec3 min, sr_vec3 max)
{
    return min.x <= inner_min.x && min.y <= inner_min.y && min.z <= inner_min.z && inner_max.x <= max.x &&
           inner_max.y <= max.y && inner_max.z <= max.z;
}

static inline sr_aabb slot_box_of(const sr_bvh *bvh, size_t slot)
{
    if (bvh->boxes)
        return bvh->boxes[slot];
    sr_aabb box = sr_aabb_empty();
    for (int k = 0; k < 3; k++) {
        const float *v = &bvh->triangles[9 * slot + 3 * (size_t)k];
        box = sr_aabb_grow(box, (sr_vec3){v[0], v[1], v[2]});
    }
    return box;
}

/* Walks the tree from the root and checks: sibling pairs at even indices from 2, nodes reached
 * once, boxes containing their children and primitives, every slot in exactly one leaf, leaf
 * sizes, depth, node and leaf counts, and the SAH cost of the README's benchmark scene. Returns the SAH cost. */
static inline double check_tree(const sr_bvh *bvh, uint32_t max_leaf_size)
{
    const sr_bvh_stats *stats = &bvh->stats;
    cr_assert_eq(stats->primitive_count, bvh->primitive_count);
    if (bvh->primitive_count == 0) {
        cr_assert_eq(bvh->node_count, 1);
        cr_assert_eq(bvh->nodes[0].count, 0);
        cr_assert_eq(stats->sah_cost, 0.0);
        return 0.0;
    }
    cr_assert_eq((uintptr_t)bvh->nodes % 64, 0, "node array is 64-byte aligned");
    unsigned char *slot_seen = calloc(bvh->primitive_count, 1);
    unsigned char *node_seen = calloc(bvh->node_count, 1);
    cr_assert(slot_seen && node_seen);
    uint32_t stack[2 * SR_BVH_MAX_DEPTH + 2];
    int depth_of[2 * SR_BVH_MAX_DEPTH + 2];
    int top = 0;
    stack[top] = 0;
    depth_of[top++] = 0;
    size_t nodes = 0, leaves = 0;
    int max_depth = 0;
    double root_area = half_area_double(bvh->nodes[0].min, bvh->nodes[0].max);
    double sah = 0.0;
    while (top > 0) {
        top--;
        uint32_t index = stack[top];
        int depth = depth_of[top];
        cr_assert_lt(index, bvh->node_count);
        cr_assert_neq(index, 1, "node 1 is padding, never referenced");
        cr_assert_eq(node_seen[index], 0, "node %u reached twice", index);
        node_seen[index] = 1;
        nodes++;
        const sr_bvh_node *node = &bvh->nodes[index];
        double ratio = root_area > 0 ? half_area_double(node->min, node->max) / root_area : 1.0;
        if (depth > max_depth)
            max_depth = depth;
        cr_assert_lt(depth, SR_BVH_MAX_DEPTH);
        if (node->count == 0) {
            sah += ratio;
            cr_assert_eq(node->first % 2, 0, "sibling pairs start at even indices");
            cr_assert_geq(node->first, 2);
            cr_assert_lt(node->first + 1, bvh->node_count);
            for (uint32_t side = 0; side < 2; side++) {
                const sr_bvh_node *child = &bvh->nodes[node->first + side];
                cr_assert(box_inside(child->min, child->max, node->min, node->max), "child %u outside node %u",
                          node->first + side, index);
                cr_assert_lt(top, 2 * SR_BVH_MAX_DEPTH);
                stack[top] = node->first + side;
                depth_of[top++] = depth + 1;
            }
        } else {
            leaves++;
            sah += ratio * node->count;
            cr_assert_leq(node->count, max_leaf_size, "leaf %u holds %u primitives", index, node->count);
            cr_assert_leq((size_t)node->first + node->count, bvh->primitive_count);
            for (uint32_t slot = node->first; slot < node->first + node->count; slot++) {
                cr_assert_eq(slot_seen[slot], 0, "slot %u in two leaves", slot);
                slot_seen[slot] = 1;
                sr_aabb box = slot_box_of(bvh, slot);
                cr_assert(box_inside(box.min, box.max, node->min, node->max), "slot %u outside leaf %u", slot, index);
            }
        }
    }
    for (size_t slot = 0; slot < bvh->primitive_count; slot++)
        cr_assert_eq(slot_seen[slot], 1, "slot %zu in no leaf", slot);
    cr_assert_eq(nodes, stats->node_count);
    cr_assert_eq(leaves, stats->leaf_count);
    cr_assert_eq(nodes, 2 * leaves - 1);
    cr_assert_eq(bvh->node_count, leaves > 1 ? nodes + 1 : 1, "only the padding node is unreachable");
    cr_assert_eq(max_depth, stats->max_depth);
    cr_assert_float_eq(sah, stats->sah_cost, 1e-9 * sah, "SAH cost %.9f, reported %.9f", sah, stats->sah_cost);
    free(slot_seen);
    free(node_seen);
    return sah;
}

/* Slot indices are a permutation of the kept triangles, and each slot holds its triangle's
 * vertices. */
static inline void check_slots(const sr_bvh *bvh, const sr_mesh *mesh)
{
    unsigned char *seen = calloc(mesh->triangle_count + 1, 1);
    for (size_t slot = 0; slot < bvh->primitive_count; slot++) {
        uint32_t triangle = bvh->primitive_indices[slot];
        cr_assert_lt(triangle, mesh->triangle_count);
        cr_assert_eq(seen[triangle], 0, "triangle %u in two slots", triangle);
        seen[triangle] = 1;
        for (int k = 0; k < 3; k++) {
            sr_vec3 v = mesh_vertex(mesh, triangle, k);
            const float *stored = &bvh->triangles[9 * slot + 3 * (size_t)k];
            cr_assert(stored[0] == v.x && stored[1] == v.y && stored[2] == v.z);
        }
    }
    free(seen);
}

/* Closest hit over a box tree with a caller's primitive test (here: the box entry distance). */
typedef struct box_scene {
    const sr_aabb *boxes;
} box_scene;

static inline bool intersect_box(void *user, uint32_t primitive, const sr_ray *ray, sr_bvh_hit *hit)
{
    const box_scene *scene = user;
    float t_near;
    if (!sr_ray_aabb(ray, &scene->boxes[primitive], &t_near, NULL))
        return false;
    hit->t = t_near;
    hit->u = 0.25f; /* passed through */
    return true;
}

typedef struct collected {
    unsigned char *count; /* per primitive: times reported */
    sr_containment *containment;
    uint32_t reported;
    uint32_t stop_after; /* 0: never stop */
} collected;

static inline bool collect(void *user, uint32_t primitive)
{
    collected *c = user;
    c->count[primitive]++;
    c->reported++;
    return c->stop_after == 0 || c->reported < c->stop_after;
}

static inline bool collect_frustum(void *user, uint32_t primitive, sr_containment containment)
{
    collected *c = user;
    c->containment[primitive] = containment;
    return collect(user, primitive);
}

static inline sr_aabb random_query_box(rng *r)
{
    sr_vec3 a = rng_in_box(r, (sr_aabb){{-1.2f, -1.2f, -1.2f}, {1.2f, 1.2f, 1.2f}});
    float size = rng_unit(r) < 0.8f ? rng_range(r, 0, 0.2f) : rng_range(r, 0, 1.5f);
    return (sr_aabb){a, sr_vec3_add(a, (sr_vec3){size * rng_unit(r), size * rng_unit(r), size * rng_unit(r)})};
}

static inline sr_frustum random_frustum(rng *r)
{
    const float distance = rng_range(r, 0.2f, 3.0f); /* drawn first: see draw_order_note */
    sr_vec3 eye = sr_vec3_scale(rng_direction(r), distance);
    sr_vec3 target = rng_in_box(r, (sr_aabb){{-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f}});
    sr_vec3 up = rng_direction(r);
    sr_mat4 view = sr_mat4_look_at(eye, target, up);
    /* drawn last argument first: see draw_order_note */
    const float far_z = rng_range(r, 1.5f, 5.0f), near_z = rng_range(r, 0.05f, 1.0f);
    const float aspect = rng_range(r, 0.5f, 2.0f), fov = rng_range(r, 0.2f, 1.8f);
    sr_mat4 projection = sr_mat4_perspective(fov, aspect, near_z, far_z);
    return sr_frustum_from_matrix(sr_mat4_mul(projection, view));
}

#endif
