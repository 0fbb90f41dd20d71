/* tests/test_bvh.c — the static BVH of src/bvh/ (softrast/bvh.h) and the `softrast raycast` and
 * `softrast bench bvh` commands built on it.
 *
 * Every query is compared with brute force over all primitives using geom's own tests
 * (sr_ray_triangle, sr_ray_aabb, sr_aabb_overlaps, sr_aabb_sphere_overlap,
 * sr_frustum_test_aabb); tree invariants (containment, SAH cost, slot coverage) are recomputed
 * here from the node array. The command tests run the built program ($SOFTRAST_EXE). */
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

static sr_vec3 mesh_vertex(const sr_mesh *mesh, size_t triangle, int corner)
{
    return mesh->positions[mesh->indices[3 * triangle + (size_t)corner]];
}

static sr_bvh *build_mesh(const sr_mesh *mesh, const sr_bvh_desc *desc)
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
static sr_mesh *random_triangles(size_t count, uint64_t seed)
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
static void require_shared_meshes(void)
{
    struct stat info;
    if (stat(MESH_DIR, &info) != 0 || !S_ISDIR(info.st_mode))
        cr_skip_test("%s is absent: the checks over real meshes did not run", MESH_DIR);
}

static sr_mesh *load_shared_mesh(const char *name)
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

static brute_hit brute_closest(const sr_mesh *mesh, const sr_ray *ray)
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
static brute_hit brute_closest_boxed(const sr_mesh *mesh, const sr_aabb *boxes, const sr_ray *ray)
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

static sr_aabb triangle_box(const sr_mesh *mesh, size_t triangle)
{
    sr_aabb box = sr_aabb_empty();
    for (int k = 0; k < 3; k++)
        box = sr_aabb_grow(box, mesh_vertex(mesh, triangle, k));
    return box;
}

/* Checks a BVH closest hit against brute force: same hit/miss, same t, and a triangle that is
 * hit at exactly that t (the brute-force one, or another that meets it there), with the u, v,
 * point and normal of that triangle. */
static void check_closest_against(const sr_mesh *mesh, const sr_bvh *bvh, const sr_ray *ray, brute_hit expected,
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

static void check_closest(const sr_mesh *mesh, const sr_bvh *bvh, const sr_ray *ray, const char *what, int index)
{
    check_closest_against(mesh, bvh, ray, brute_closest(mesh, ray), what, index);
}

static void check_any_against(const sr_mesh *mesh, const sr_bvh *bvh, const sr_ray *ray, brute_hit expected,
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

static void check_any(const sr_mesh *mesh, const sr_bvh *bvh, const sr_ray *ray, const char *what, int index)
{
    check_any_against(mesh, bvh, ray, brute_closest(mesh, ray), what, index);
}

/* A random ray for a mesh inside `bounds`: from a point around the mesh, half of them aimed at
 * a random point of a random triangle (so that many hit), half in a random direction; direction
 * lengths vary (t is in units of |direction|); some rays have a finite tmax or a tmin > 0. */
static sr_ray random_ray(rng *r, const sr_mesh *mesh, sr_aabb bounds)
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
static void check_random_rays(const sr_mesh *mesh, const char *what, int count, uint64_t seed, bool boxed)
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

static double half_area_double(sr_vec3 min, sr_vec3 max)
{
    double dx = (double)max.x - min.x, dy = (double)max.y - min.y, dz = (double)max.z - min.z;
    return dx * dy + dy * dz + dz * dx;
}

static bool box_inside(sr_vec3 inner_min, sr_vec3 inner_max, sr_vec3 min, sr_vec3 max)
{
    return min.x <= inner_min.x && min.y <= inner_min.y && min.z <= inner_min.z && inner_max.x <= max.x &&
           inner_max.y <= max.y && inner_max.z <= max.z;
}

static sr_aabb slot_box_of(const sr_bvh *bvh, size_t slot)
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
 * sizes, depth, node and leaf counts, and the SAH cost of BENCH_SCENE.md. Returns the SAH cost. */
static double check_tree(const sr_bvh *bvh, uint32_t max_leaf_size)
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
static void check_slots(const sr_bvh *bvh, const sr_mesh *mesh)
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

/* The SAH cost of BENCH_SCENE.md with each leaf counted in packs of 4 triangles (ceil(n / 4)),
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
    check_random_rays(mesh, "random triangles", 10000, 22, false);
    sr_mesh_destroy(mesh);
}

Test(bvh_ray, tessellated_sphere_matches_brute_force)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 64, 48, &mesh, NULL), SR_OK);
    cr_assert_geq(mesh->triangle_count, 5000);
    check_random_rays(mesh, "sphere", 10000, 23, false);
    sr_mesh_destroy(mesh);
}

Test(bvh_ray, shared_meshes_match_brute_force)
{
    require_shared_meshes();
    const char *names[] = {"bunny.obj", "dragon_res3.obj"};
    for (int i = 0; i < 2; i++) {
        sr_mesh *mesh = load_shared_mesh(names[i]);
        check_random_rays(mesh, names[i], 10000, 24 + (uint64_t)i, true);
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

/* Closest hit over a box tree with a caller's primitive test (here: the box entry distance). */
typedef struct box_scene {
    const sr_aabb *boxes;
} box_scene;

static bool intersect_box(void *user, uint32_t primitive, const sr_ray *ray, sr_bvh_hit *hit)
{
    const box_scene *scene = user;
    float t_near;
    if (!sr_ray_aabb(ray, &scene->boxes[primitive], &t_near, NULL))
        return false;
    hit->t = t_near;
    hit->u = 0.25f; /* passed through */
    return true;
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

typedef struct collected {
    unsigned char *count; /* per primitive: times reported */
    sr_containment *containment;
    uint32_t reported;
    uint32_t stop_after; /* 0: never stop */
} collected;

static bool collect(void *user, uint32_t primitive)
{
    collected *c = user;
    c->count[primitive]++;
    c->reported++;
    return c->stop_after == 0 || c->reported < c->stop_after;
}

static bool collect_frustum(void *user, uint32_t primitive, sr_containment containment)
{
    collected *c = user;
    c->containment[primitive] = containment;
    return collect(user, primitive);
}

static sr_aabb random_query_box(rng *r)
{
    sr_vec3 a = rng_in_box(r, (sr_aabb){{-1.2f, -1.2f, -1.2f}, {1.2f, 1.2f, 1.2f}});
    float size = rng_unit(r) < 0.8f ? rng_range(r, 0, 0.2f) : rng_range(r, 0, 1.5f);
    return (sr_aabb){a, sr_vec3_add(a, (sr_vec3){size * rng_unit(r), size * rng_unit(r), size * rng_unit(r)})};
}

static sr_frustum random_frustum(rng *r)
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
    check_overlaps(mesh, 10002, 52);
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

/* ================================================================================================ */
/* The raycast and bench bvh commands                                                               */

typedef struct command_result {
    int status;
    char out[4096];
    char err[4096];
} command_result;

static void read_small_file(const char *path, char *buffer, size_t size)
{
    buffer[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buffer, 1, size - 1, f);
    buffer[n] = '\0';
    fclose(f);
}

/* Runs the softrast program with `arguments` (already shell-quoted where needed) in `folder`. */
static command_result run_softrast(const char *folder, const char *arguments)
{
    const char *exe = getenv("SOFTRAST_EXE");
    cr_assert_not_null(exe, "SOFTRAST_EXE is not set (run through meson test)");
    char command[4096], out_path[600], err_path[600];
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", folder);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", folder);
    snprintf(command, sizeof command, "cd '%s' && '%s' %s > '%s' 2> '%s'", folder, exe, arguments, out_path, err_path);
    command_result result;
    int raw = system(command);
    result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    read_small_file(out_path, result.out, sizeof result.out);
    read_small_file(err_path, result.err, sizeof result.err);
    return result;
}

static void make_folder(char *folder, size_t size)
{
    snprintf(folder, size, "/tmp/test_bvh_XXXXXX");
    cr_assert_not_null(mkdtemp(folder), "mkdtemp: %s", strerror(errno));
}

static void remove_folder(const char *folder)
{
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    cr_assert_eq(system(command), 0);
}

/* Writes a mesh as OBJ (with one quad and one pentagon, which the loader fan-triangulates). */
static void write_obj(const char *path, const sr_mesh *mesh)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        fprintf(f, "v %.9g %.9g %.9g\n", (double)mesh->positions[v].x, (double)mesh->positions[v].y,
                (double)mesh->positions[v].z);
    for (size_t t = 0; t < mesh->triangle_count; t++)
        fprintf(f, "f %u %u %u\n", mesh->indices[3 * t] + 1, mesh->indices[3 * t + 1] + 1,
                mesh->indices[3 * t + 2] + 1);
    fprintf(f, "f 1 2 3 4\nf 4 5 6 7 8\n");
    fclose(f);
}

static void put_f32(FILE *f, float value)
{
    unsigned char bytes[4];
    uint32_t bits;
    memcpy(&bits, &value, 4);
    for (int i = 0; i < 4; i++)
        bytes[i] = (unsigned char)(bits >> (8 * i));
    fwrite(bytes, 1, 4, f);
}

static uint32_t get_u32(const unsigned char *bytes)
{
    return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

static float get_f32(const unsigned char *bytes)
{
    uint32_t bits = get_u32(bytes);
    float value;
    memcpy(&value, &bits, 4);
    return value;
}

static unsigned char *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc(length > 0 ? (size_t)length : 1);
    *size = fread(data, 1, (size_t)length, f);
    fclose(f);
    return data;
}

static bool file_exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0;
}

Test(bvh_cli, raycast_matches_brute_force, .timeout = 120)
{
    char folder[64], path[256];
    make_folder(folder, sizeof folder);
    sr_mesh *source = random_triangles(3000, 61);
    snprintf(path, sizeof path, "%s/mesh.obj", folder);
    write_obj(path, source);
    sr_mesh_destroy(source);
    sr_mesh *mesh = NULL; /* as the program reads it (the same float parsing) */
    cr_assert_eq(sr_mesh_load_obj(path, &mesh, NULL), SR_OK);
    cr_assert_eq(mesh->triangle_count, 3000 + 2 + 3);

    enum { RAYS = 2000 };
    sr_ray rays[RAYS];
    rng r = {62};
    snprintf(path, sizeof path, "%s/rays.bin", folder);
    FILE *f = fopen(path, "wb");
    for (int i = 0; i < RAYS; i++) {
        sr_ray ray = random_ray(&r, mesh, sr_mesh_bounds(mesh));
        if (i % 97 == 0)
            ray.origin.x = NAN;
        float values[8] = {ray.origin.x,    ray.origin.y,    ray.origin.z, ray.direction.x,
                           ray.direction.y, ray.direction.z, ray.tmin,     ray.tmax};
        for (int k = 0; k < 8; k++)
            put_f32(f, values[k]);
        rays[i] = sr_ray_make(ray.origin, ray.direction, ray.tmin, ray.tmax);
    }
    fclose(f);

    command_result result = run_softrast(folder, "raycast mesh.obj --rays rays.bin --out hits.bin");
    cr_assert_eq(result.status, 0, "%s", result.err);
    cr_assert(strstr(result.out, "2000 rays"), "%s", result.out);
    size_t size = 0;
    snprintf(path, sizeof path, "%s/hits.bin", folder);
    unsigned char *hits = read_whole(path, &size);
    cr_assert_eq(size, (size_t)RAYS * 16);
    int hit_count = 0;
    for (int i = 0; i < RAYS; i++) {
        const unsigned char *record = hits + 16 * i;
        float t = get_f32(record);
        uint32_t triangle = get_u32(record + 4);
        brute_hit expected = brute_closest(mesh, &rays[i]);
        cr_assert_eq(triangle != SR_BVH_NO_HIT, expected.hit, "ray %d", i);
        if (!expected.hit) {
            cr_assert(isinf(t) && t > 0);
            continue;
        }
        hit_count++;
        cr_assert_eq(t, expected.t, "ray %d: t %.9g, brute force %.9g", i, (double)t, (double)expected.t);
        sr_triangle_hit own;
        cr_assert(sr_ray_triangle(&rays[i], mesh_vertex(mesh, triangle, 0), mesh_vertex(mesh, triangle, 1),
                                  mesh_vertex(mesh, triangle, 2), &own));
        cr_assert(own.t == t && own.u == get_f32(record + 8) && own.v == get_f32(record + 12), "ray %d", i);
    }
    cr_assert_gt(hit_count, RAYS / 5);
    char expected_line[64];
    snprintf(expected_line, sizeof expected_line, "%d hits", hit_count);
    cr_assert(strstr(result.out, expected_line), "%s", result.out);

    /* --threads: the same bytes */
    result = run_softrast(folder, "raycast mesh.obj --rays rays.bin --out hits3.bin --threads 3");
    cr_assert_eq(result.status, 0, "%s", result.err);
    size_t size3 = 0;
    snprintf(path, sizeof path, "%s/hits3.bin", folder);
    unsigned char *hits3 = read_whole(path, &size3);
    cr_assert(size3 == size && memcmp(hits, hits3, size) == 0);

    /* --any-hit: same hit/miss, and a triangle really hit in range */
    result = run_softrast(folder, "raycast mesh.obj --rays rays.bin --out any.bin --any-hit --threads 2");
    cr_assert_eq(result.status, 0, "%s", result.err);
    snprintf(path, sizeof path, "%s/any.bin", folder);
    unsigned char *any = read_whole(path, &size3);
    cr_assert_eq(size3, size);
    for (int i = 0; i < RAYS; i++) {
        uint32_t triangle = get_u32(any + 16 * i + 4);
        cr_assert_eq(triangle != SR_BVH_NO_HIT, get_u32(hits + 16 * i + 4) != SR_BVH_NO_HIT);
        if (triangle != SR_BVH_NO_HIT) {
            sr_triangle_hit own;
            cr_assert(sr_ray_triangle(&rays[i], mesh_vertex(mesh, triangle, 0), mesh_vertex(mesh, triangle, 1),
                                      mesh_vertex(mesh, triangle, 2), &own));
            cr_assert_eq(own.t, get_f32(any + 16 * i));
        }
    }
    free(any);
    free(hits);
    free(hits3);
    sr_mesh_destroy(mesh);
    remove_folder(folder);
}

Test(bvh_cli, raycast_primary_rays)
{
    char folder[64], path[256];
    make_folder(folder, sizeof folder);
    sr_mesh *sphere = NULL;
    cr_assert_eq(sr_mesh_create_sphere(5.0f, 32, 16, &sphere, NULL), SR_OK); /* normalised by the command */
    snprintf(path, sizeof path, "%s/sphere.obj", folder);
    write_obj(path, sphere);
    sr_mesh_destroy(sphere);
    command_result result = run_softrast(folder, "raycast sphere.obj --primary 64x36 --out hits.bin");
    cr_assert_eq(result.status, 0, "%s", result.err);
    size_t size = 0;
    snprintf(path, sizeof path, "%s/hits.bin", folder);
    unsigned char *hits = read_whole(path, &size);
    cr_assert_eq(size, 64 * 36 * 16);
    /* the unit sphere seen from (0, 0, 3): the centre pixel hits at distance ~2, corners miss */
    const unsigned char *centre = hits + 16 * (18 * 64 + 32);
    cr_assert_neq(get_u32(centre + 4), SR_BVH_NO_HIT);
    cr_assert_float_eq(get_f32(centre), 2.0f, 0.01f);
    cr_assert_eq(get_u32(hits + 4), SR_BVH_NO_HIT);
    cr_assert(isinf(get_f32(hits)));
    free(hits);
    remove_folder(folder);
}

Test(bvh_cli, raycast_rejects_bad_arguments_and_leaves_no_file)
{
    char folder[64], path[256];
    make_folder(folder, sizeof folder);
    sr_mesh *mesh = random_triangles(10, 63);
    snprintf(path, sizeof path, "%s/mesh.obj", folder);
    write_obj(path, mesh);
    sr_mesh_destroy(mesh);
    snprintf(path, sizeof path, "%s/rays33.bin", folder);
    FILE *f = fopen(path, "wb");
    for (int i = 0; i < 33; i++)
        fputc(0, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/rays32.bin", folder);
    f = fopen(path, "wb");
    for (int i = 0; i < 8; i++)
        put_f32(f, i == 5 ? 1.0f : (i == 7 ? INFINITY : 0.0f));
    fclose(f);
    struct {
        const char *arguments;
        const char *message; /* a part of the message */
    } cases[] = {
        {"raycast missing.obj --rays rays32.bin --out hits.bin", "missing.obj"},
        {"raycast mesh.obj --rays missing.bin --out hits.bin", "missing.bin"},
        {"raycast mesh.obj --rays rays33.bin --out hits.bin", "33"},
        {"raycast mesh.obj --rays rays33.bin --out hits.bin", "rays33.bin"},
        {"raycast mesh.obj --rays rays32.bin --out hits.bin --threads 0", "--threads"},
        {"raycast mesh.obj --rays rays32.bin --out hits.bin --threads many", "--threads"},
        {"raycast mesh.obj --rays rays32.bin --out hits.bin --threads", "--threads"},
        {"raycast mesh.obj --rays rays32.bin", "--out"},
        {"raycast mesh.obj --out hits.bin", "--rays"},
        {"raycast mesh.obj --rays rays32.bin --primary 8x8 --out hits.bin", "--primary"},
        {"raycast mesh.obj --primary 0x8 --out hits.bin", "--primary"},
        {"raycast mesh.obj --rays rays32.bin --out hits.bin --bogus", "--bogus"},
        {"raycast --rays rays32.bin --out hits.bin", "MESH"},
        {"raycast mesh.obj --rays rays32.bin --out no/such/folder/hits.bin", "hits.bin"},
        {"bench bvh missing.obj", "missing.obj"},
        {"bench bvh mesh.obj --runs 0", "--runs"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        command_result result = run_softrast(folder, cases[i].arguments);
        cr_assert_neq(result.status, 0, "'%s' succeeded", cases[i].arguments);
        cr_assert(strstr(result.err, cases[i].message), "'%s': message '%s' does not name '%s'", cases[i].arguments,
                  result.err, cases[i].message);
        snprintf(path, sizeof path, "%s/hits.bin", folder);
        cr_assert_not(file_exists(path), "'%s' left hits.bin behind", cases[i].arguments);
    }
    /* and the valid one-ray file works */
    command_result result = run_softrast(folder, "raycast mesh.obj --rays rays32.bin --out hits.bin");
    cr_assert_eq(result.status, 0, "%s", result.err);
    cr_assert(file_exists(path));
    remove_folder(folder);
}

Test(bvh_cli, bench_bvh_prints_one_json_line, .timeout = 120)
{
    char folder[64], path[256];
    make_folder(folder, sizeof folder);
    sr_mesh *sphere = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 24, 12, &sphere, NULL), SR_OK);
    snprintf(path, sizeof path, "%s/we\"ird.obj", folder);
    write_obj(path, sphere);
    size_t triangles = sphere->triangle_count + 5;
    sr_mesh_destroy(sphere);
    command_result result = run_softrast(folder, "bench bvh 'we\"ird.obj' --runs 2");
    cr_assert_eq(result.status, 0, "%s", result.err);
    cr_assert_eq(strchr(result.out, '\n'), result.out + strlen(result.out) - 1, "one line: %s", result.out);
    cJSON *json = cJSON_Parse(result.out);
    cr_assert_not_null(json, "not JSON: %s", result.out);
    cr_assert_str_eq(cJSON_GetObjectItem(json, "mesh")->valuestring, "we\"ird.obj");
    cr_assert_eq((size_t)cJSON_GetObjectItem(json, "triangles")->valuedouble, triangles);
    cJSON *build = cJSON_GetObjectItem(json, "build_ms");
    double median = cJSON_GetObjectItem(build, "median")->valuedouble;
    cr_assert(cJSON_GetObjectItem(build, "min")->valuedouble <= median &&
              median <= cJSON_GetObjectItem(build, "max")->valuedouble);
    const char *keys[] = {"nodes",      "leaves", "max_depth", "sah_cost",          "wide_nodes", "packs",
                          "bytes_per_triangle", "rays", "rays_per_s", "hits", "mean_t", "triangle_index_sum"};
    for (int i = 0; i < 12; i++)
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(json, keys[i])), "key %s", keys[i]);
    cr_assert_eq(cJSON_GetObjectItem(json, "rays")->valuedouble, 1280.0 * 720.0);
    double nodes = cJSON_GetObjectItem(json, "nodes")->valuedouble,
           leaves = cJSON_GetObjectItem(json, "leaves")->valuedouble;
    cr_assert_eq(nodes, 2 * leaves - 1);
    /* the wide tree: fewer nodes than the binary one; packs of at most 4 triangles hold every
     * leaf's triangles (at least one per leaf) */
    double wide_nodes = cJSON_GetObjectItem(json, "wide_nodes")->valuedouble;
    cr_assert(wide_nodes >= 1 && wide_nodes < nodes, "wide nodes %g, binary %g", wide_nodes, nodes);
    cr_assert_geq(4 * cJSON_GetObjectItem(json, "packs")->valuedouble, leaves);
    cr_assert_gt(cJSON_GetObjectItem(json, "bytes_per_triangle")->valuedouble, 40.0);
    /* the unit sphere at distance 3: hits start at t ~ 2 */
    double mean_t = cJSON_GetObjectItem(json, "mean_t")->valuedouble;
    cr_assert(mean_t > 2.0 && mean_t < 2.5, "mean_t %g", mean_t);
    cr_assert_gt(cJSON_GetObjectItem(json, "hits")->valuedouble, 1000);
    cJSON_Delete(json);
    remove_folder(folder);
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
