/* test_bvh_order.c — the work a closest-hit query does: the answers are checked against brute
 * force elsewhere (test_bvh.c, test_bvh_wide.c); here the traversals must also visit the nearer
 * children first and prune what lies behind the closest hit, so that they test hardly more
 * triangles than reference front-to-back traversals written here: over the public binary node
 * array for the binary traversal (bvh_query.c, sr_bvh_query_ray_binary), over the wide tree
 * (bvh_internal.h) for the wide one that sr_bvh_query_ray walks (bvh_query_wide.c). A traversal
 * that visits far children first, or stops pruning, still answers right but tests far more. */
#include <criterion/criterion.h>
#include <softrast/bvh.h>
#include <softrast/scene.h>

#include "../src/bvh/bvh_internal.h" /* the wide tree and the binary traversal */
#include "test_random.h"

#include <math.h>

/* Entry distance of the ray into a box in double (INFINITY for a miss within [tmin, tmax]). */
static double box_entry(const sr_ray *ray, sr_vec3 min, sr_vec3 max, double tmax)
{
    const double o[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    const double d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
    const double lo[3] = {min.x, min.y, min.z}, hi[3] = {max.x, max.y, max.z};
    double enter = ray->tmin, leave = tmax;
    for (int k = 0; k < 3; k++) {
        if (d[k] == 0.0) {
            if (o[k] < lo[k] || o[k] > hi[k])
                return INFINITY;
            continue;
        }
        double a = (lo[k] - o[k]) / d[k], b = (hi[k] - o[k]) / d[k];
        enter = fmax(enter, fmin(a, b));
        leave = fmin(leave, fmax(a, b));
    }
    return enter <= leave * (1 + 1e-6) ? enter : INFINITY;
}

/* Front-to-back traversal with pruning: the number of triangles it tests. */
static uint32_t reference_tested(const sr_bvh *bvh, const sr_ray *ray)
{
    struct {
        uint32_t node;
        double entry;
    } stack[2 * SR_BVH_MAX_DEPTH + 2];
    int top = 0;
    double best = ray->tmax;
    uint32_t tested = 0;
    if (box_entry(ray, bvh->nodes[0].min, bvh->nodes[0].max, best) == INFINITY)
        return 0;
    stack[top].node = 0;
    stack[top++].entry = ray->tmin;
    while (top > 0) {
        top--;
        if (stack[top].entry > best)
            continue;
        const sr_bvh_node *node = &bvh->nodes[stack[top].node];
        if (node->count > 0) {
            for (uint32_t slot = node->first; slot < node->first + node->count; slot++) {
                tested++;
                const float *v = &bvh->triangles[9 * (size_t)slot];
                sr_ray limited = *ray;
                limited.tmax = (float)best;
                sr_triangle_hit hit;
                if (sr_ray_triangle(&limited, sr_vec3_make(v[0], v[1], v[2]), sr_vec3_make(v[3], v[4], v[5]),
                                    sr_vec3_make(v[6], v[7], v[8]), &hit))
                    best = hit.t;
            }
            continue;
        }
        double near_entry = box_entry(ray, bvh->nodes[node->first].min, bvh->nodes[node->first].max, best);
        double far_entry = box_entry(ray, bvh->nodes[node->first + 1].min, bvh->nodes[node->first + 1].max, best);
        uint32_t near = node->first, far = node->first + 1;
        if (far_entry < near_entry) {
            double swap = near_entry;
            near_entry = far_entry;
            far_entry = swap;
            near = node->first + 1;
            far = node->first;
        }
        // Pushed far first, so that the nearer child is popped next.
        if (far_entry != INFINITY) {
            stack[top].node = far;
            stack[top++].entry = far_entry;
        }
        if (near_entry != INFINITY) {
            stack[top].node = near;
            stack[top++].entry = near_entry;
        }
    }
    return tested;
}

/* Front-to-back traversal of the wide tree with pruning, children sorted by their exact entry
 * distances: the number of triangles it tests (the real lanes of each leaf's packs). */
static uint32_t reference_wide_tested(const sr_bvh *bvh, const sr_ray *ray)
{
    struct {
        uint32_t ref;
        double entry;
    } stack[8 * SR_BVH_MAX_DEPTH + 8];
    int top = 0;
    double best = ray->tmax;
    uint32_t tested = 0;
    if (box_entry(ray, bvh->nodes[0].min, bvh->nodes[0].max, best) == INFINITY)
        return 0;
    stack[top].ref = 0;
    stack[top++].entry = ray->tmin;
    while (top > 0) {
        top--;
        if (stack[top].entry > best)
            continue;
        const uint32_t ref = stack[top].ref;
        if (ref & SR_WIDE_LEAF) {
            for (const sr_triangle_pack *pack = sr_wide_pack_at(bvh->wide, ref);; pack++) {
                for (int lane = 0; lane < SR_PACK_WIDTH; lane++) {
                    if (lane > 0 && (pack->primitive[lane] & SR_PACK_FLAG))
                        continue; /* padding */
                    tested++;
                    const float(*v)[3][SR_PACK_WIDTH] = pack->v;
                    sr_vec3 p[3];
                    for (int k = 0; k < 3; k++)
                        p[k] = sr_vec3_make(v[k][0][lane], v[k][1][lane], v[k][2][lane]);
                    sr_ray limited = *ray;
                    limited.tmax = (float)best;
                    sr_triangle_hit hit;
                    if (sr_ray_triangle(&limited, p[0], p[1], p[2], &hit))
                        best = hit.t;
                }
                if (!(pack->primitive[0] & SR_PACK_FLAG))
                    break;
            }
            continue;
        }
        const sr_wide_node *node = sr_wide_node_at(bvh->wide, ref);
        const unsigned count = sr_wide_node_child_count(node);
        uint32_t child[SR_WIDE_WIDTH];
        double entry[SR_WIDE_WIDTH];
        unsigned hit_count = 0;
        for (unsigned i = 0; i < count; i++) {
            sr_vec3 min = {node->bounds[0][i], node->bounds[2][i], node->bounds[4][i]};
            sr_vec3 max = {node->bounds[1][i], node->bounds[3][i], node->bounds[5][i]};
            double t = box_entry(ray, min, max, best);
            if (t == INFINITY)
                continue;
            /* insertion sort, farthest first, so that the nearest is popped next */
            unsigned j = hit_count++;
            for (; j > 0 && entry[j - 1] < t; j--) {
                entry[j] = entry[j - 1];
                child[j] = child[j - 1];
            }
            entry[j] = t;
            child[j] = node->child[i];
        }
        for (unsigned j = 0; j < hit_count; j++) {
            stack[top].ref = child[j];
            stack[top++].entry = entry[j];
        }
    }
    return tested;
}

static sr_bvh *build(const sr_mesh *mesh)
{
    sr_bvh *bvh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_bvh_build_triangles(NULL,
                                        &(sr_bvh_triangles){.positions = &mesh->positions[0].x,
                                                            .position_stride = sizeof(sr_vec3),
                                                            .vertex_count = mesh->vertex_count,
                                                            .indices = mesh->indices,
                                                            .triangle_count = mesh->triangle_count},
                                        &bvh, &err),
                 SR_OK, "%s", err.message);
    return bvh;
}

/* Rays from all around towards points inside the mesh's box: most hit, through many boxes. */
static void check_work(const sr_mesh *mesh, const char *what)
{
    sr_bvh *bvh = build(mesh);
    sr_aabb box = sr_mesh_bounds(mesh);
    sr_vec3 centre = sr_aabb_centre(box);
    float radius = sr_vec3_length(sr_aabb_extent(box));
    uint64_t tested = 0, reference = 0, binary_tested = 0, binary_reference = 0;
    int hits = 0;
    rng_seed(31);
    for (int i = 0; i < 20000; i++) {
        sr_vec3 from = {rng_range(-1, 1), rng_range(-1, 1), rng_range(-1, 1)};
        from = sr_vec3_add(centre, sr_vec3_scale(sr_vec3_normalize(from), 2.0f * radius));
        sr_vec3 to = {rng_range(box.min.x, box.max.x), rng_range(box.min.y, box.max.y),
                      rng_range(box.min.z, box.max.z)};
        sr_ray ray = sr_ray_make(from, sr_vec3_normalize(sr_vec3_sub(to, from)), 0.0f, INFINITY);
        sr_bvh_hit hit;
        hits += sr_bvh_query_ray(bvh, &ray, &hit);
        tested += hit.primitives_tested;
        reference += reference_wide_tested(bvh, &ray);
        sr_bvh_query_ray_binary(bvh, &ray, SR_BVH_RAY_CLOSEST, NULL, NULL, &hit);
        binary_tested += hit.primitives_tested;
        binary_reference += reference_tested(bvh, &ray);
    }
    cr_assert_gt(hits, 5000, "%s: %d hits", what, hits);
    // The query may test a few more where its rounding widens a box; never many more.
    cr_assert_leq(binary_tested, binary_reference + binary_reference / 10,
                  "%s: the binary traversal tests %llu triangles, front to back needs %llu", what,
                  (unsigned long long)binary_tested, (unsigned long long)binary_reference);
    // The wide tree's order is fixed per node and octant (the children's centres along the
    // octant's diagonal), not sorted per ray by entry distance: it may test a little more.
    cr_assert_leq(tested, reference + reference / 10, "%s: the wide tree tests %llu triangles, front to back needs %llu",
                  what, (unsigned long long)tested, (unsigned long long)reference);
    cr_log_info("%s: wide %llu / %llu, binary %llu / %llu", what, (unsigned long long)tested,
                (unsigned long long)reference, (unsigned long long)binary_tested, (unsigned long long)binary_reference);
    sr_bvh_destroy(bvh);
}

Test(bvh_order, closest_hits_test_no_more_triangles_than_front_to_back)
{
    sr_mesh *sphere = NULL, *torus = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 96, 48, &sphere, NULL), SR_OK);
    cr_assert_eq(sr_mesh_create_torus(1.0f, 0.3f, 96, 32, &torus, NULL), SR_OK);
    check_work(sphere, "sphere");
    check_work(torus, "torus");
    sr_mesh_destroy(sphere);
    sr_mesh_destroy(torus);
}
