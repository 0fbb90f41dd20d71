/* test_scene_graph.c — scenes (src/scene/camera.c, scene.c, scene_update.c, scene_render.c,
 * scene_pick.c): cameras against projections in double, the hierarchy against matrix products
 * in double, update counts, handles, culling against brute-force frustum tests, culling never
 * changing the picture, and picks agreeing with the id buffer and with brute-force ray casts. */
#include <criterion/criterion.h>

#include "test_random.h"
#include <softrast/scene.h>
#include <softrast/shaders.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */


static sr_scene *new_scene(void)
{
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(NULL, &scene, &err), SR_OK, "%s", err.message);
    return scene;
}

static sr_mesh_id add_mesh(sr_scene *scene, sr_mesh *mesh, const char *name)
{
    sr_mesh_id id;
    sr_error err = {0};
    cr_assert_eq(sr_scene_add_mesh(scene, mesh, name, &id, &err), SR_OK, "%s", err.message);
    return id;
}

static sr_mesh *sphere_mesh(float radius)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_sphere(radius, 16, 8, &mesh, NULL), SR_OK);
    return mesh;
}

static sr_mesh *box_mesh(float half)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_box(sr_vec3_splat(half), 2, &mesh, NULL), SR_OK);
    return mesh;
}

static sr_node_id add_node(sr_scene *scene, const char *name, sr_node_id parent, sr_transform transform,
                           sr_mesh_id mesh)
{
    sr_node_id id;
    sr_error err = {0};
    sr_status status = sr_scene_add_node(
        scene, &(sr_node_desc){.name = name, .parent = parent, .transform = transform, .mesh = mesh}, &id, &err);
    cr_assert_eq(status, SR_OK, "%s", err.message);
    return id;
}

static void update(sr_scene *scene, sr_scene_update_stats *stats)
{
    sr_error err = {0};
    cr_assert_eq(sr_scene_update(scene, stats, &err), SR_OK, "%s", err.message);
}

static sr_transform random_transform(void)
{
    sr_vec3 axis = {rng_range(-1, 1), rng_range(-1, 1), rng_range(-1, 1)};
    if (sr_vec3_length(axis) < 0.1f)
        axis = sr_vec3_make(0, 1, 0);
    return (sr_transform){
        .translation = {rng_range(-3, 3), rng_range(-3, 3), rng_range(-3, 3)},
        .rotation = sr_quat_from_axis_angle(sr_vec3_normalize(axis), rng_range(-3.1, 3.1)),
        .scale = {rng_range(0.3, 2.0), rng_range(0.3, 2.0), rng_range(0.3, 2.0)},
    };
}

/* Double-precision T * R * S from the transform's fields (Rodrigues' rotation matrix of the
 * normalised quaternion), column-major like sr_mat4. */
static void transform_matrix_double(sr_transform t, double m[16])
{
    double x = t.rotation.x, y = t.rotation.y, z = t.rotation.z, w = t.rotation.w;
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n, y /= n, z /= n, w /= n;
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    double s[3] = {t.scale.x, t.scale.y, t.scale.z};
    memset(m, 0, 16 * sizeof *m);
    for (int column = 0; column < 3; column++)
        for (int row = 0; row < 3; row++)
            m[column * 4 + row] = r[row][column] * s[column];
    m[12] = t.translation.x;
    m[13] = t.translation.y;
    m[14] = t.translation.z;
    m[15] = 1.0;
}

static void mul_double(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int column = 0; column < 4; column++)
        for (int row = 0; row < 4; row++) {
            double sum = 0.0;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + row] * b[column * 4 + k];
            r[column * 4 + row] = sum;
        }
    memcpy(out, r, sizeof r);
}

static void transform_point_double(const double m[16], sr_vec3 p, double out[3])
{
    for (int row = 0; row < 3; row++)
        out[row] = m[row] * p.x + m[4 + row] * p.y + m[8 + row] * p.z + m[12 + row];
}

/* ---- transforms and the hierarchy ---- */

Test(transform, matrix_is_t_r_s_and_zero_means_identity)
{
    rng_seed(2);
    for (int trial = 0; trial < 100; trial++) {
        sr_transform t = random_transform();
        sr_mat4 m = sr_transform_matrix(t);
        double expected[16];
        transform_matrix_double(t, expected);
        for (int k = 0; k < 16; k++)
            cr_assert(fabs(m.m[k] - expected[k]) < 1e-5, "element %d: %g vs %g", k, (double)m.m[k], expected[k]);
    }
    sr_mat4 zero = sr_transform_matrix((sr_transform){0});
    sr_mat4 identity = sr_mat4_identity();
    cr_assert(memcmp(&zero, &identity, sizeof zero) == 0, "a zeroed transform is the identity");
    sr_transform explicit_identity = sr_transform_identity();
    sr_mat4 from_identity = sr_transform_matrix(explicit_identity);
    cr_assert(memcmp(&from_identity, &identity, sizeof identity) == 0);
}

Test(transform, euler_degrees_rotate_x_then_y_then_z)
{
    sr_vec3 degrees = {30, -50, 75};
    sr_quat q = sr_quat_from_euler_degrees(degrees);
    sr_vec3 v = {0.3f, -0.7f, 1.1f};
    // Rotate about X, then Y, then Z in double.
    double p[3] = {v.x, v.y, v.z};
    const double angles[3] = {degrees.x * M_PI / 180, degrees.y * M_PI / 180, degrees.z * M_PI / 180};
    for (int axis = 0; axis < 3; axis++) {
        double c = cos(angles[axis]), s = sin(angles[axis]);
        int a = (axis + 1) % 3, b = (axis + 2) % 3;
        double pa = p[a] * c - p[b] * s, pb = p[a] * s + p[b] * c;
        p[a] = pa;
        p[b] = pb;
    }
    sr_vec3 r = sr_quat_rotate(q, v);
    cr_assert(fabs(r.x - p[0]) < 1e-5 && fabs(r.y - p[1]) < 1e-5 && fabs(r.z - p[2]) < 1e-5, "(%g %g %g) vs (%g %g %g)",
              (double)r.x, (double)r.y, (double)r.z, p[0], p[1], p[2]);
}

/* A random tree of `count` nodes (node i's parent is a random earlier node or the top level),
 * every third one without a mesh. */
typedef struct test_tree {
    sr_scene *scene;
    sr_node_id nodes[64];
    int parent[64];
    sr_transform local[64];
    int count;
    sr_mesh_id mesh;
} test_tree;

static void make_tree(test_tree *tree, int count, uint64_t seed)
{
    rng_seed(seed);
    tree->scene = new_scene();
    tree->mesh = add_mesh(tree->scene, box_mesh(0.5f), "box");
    tree->count = count;
    for (int i = 0; i < count; i++) {
        tree->parent[i] = i == 0 || rng_uniform() < 0.2 ? -1 : (int)(rng_uniform() * i);
        tree->local[i] = random_transform();
        tree->nodes[i] = add_node(tree->scene, "n", tree->parent[i] < 0 ? SR_NODE_NULL : tree->nodes[tree->parent[i]],
                                  tree->local[i], i % 3 == 2 ? (sr_mesh_id){0} : tree->mesh);
    }
}

static void world_double(const test_tree *tree, int i, double out[16])
{
    double local[16];
    transform_matrix_double(tree->local[i], local);
    if (tree->parent[i] < 0) {
        memcpy(out, local, sizeof local);
        return;
    }
    double parent[16];
    world_double(tree, tree->parent[i], parent);
    mul_double(parent, local, out);
}

static bool in_subtree(const test_tree *tree, int node, int root)
{
    for (int a = node; a >= 0; a = tree->parent[a])
        if (a == root)
            return true;
    return false;
}

Test(hierarchy, world_transforms_and_boxes_match_double_precision)
{
    test_tree tree;
    make_tree(&tree, 40, 3);
    update(tree.scene, NULL);
    const sr_mesh *mesh = sr_scene_mesh(tree.scene, tree.mesh);
    for (int i = 0; i < tree.count; i++) {
        sr_node_info info;
        cr_assert_eq(sr_scene_node(tree.scene, tree.nodes[i], &info, NULL), SR_OK);
        double world[16];
        world_double(&tree, i, world);
        for (int k = 0; k < 16; k++)
            cr_assert(fabs(info.world.m[k] - world[k]) < 1e-4 * (1 + fabs(world[k])), "node %d element %d", i, k);
        if (i % 3 == 2) {
            cr_assert(sr_aabb_is_empty(info.world_aabb), "a node without a mesh has an empty box");
            continue;
        }
        // The world box holds every transformed vertex, and is no larger than the box of the
        // transformed corners of the mesh box (Arvo's box is exactly that).
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (size_t v = 0; v < mesh->vertex_count; v++) {
            double p[3];
            transform_point_double(world, mesh->positions[v], p);
            for (int k = 0; k < 3; k++) {
                lo[k] = fmin(lo[k], p[k]);
                hi[k] = fmax(hi[k], p[k]);
            }
        }
        const float box_lo[3] = {info.world_aabb.min.x, info.world_aabb.min.y, info.world_aabb.min.z};
        const float box_hi[3] = {info.world_aabb.max.x, info.world_aabb.max.y, info.world_aabb.max.z};
        for (int k = 0; k < 3; k++) {
            cr_assert(box_lo[k] <= lo[k] && box_hi[k] >= hi[k], "node %d axis %d: box misses a vertex", i, k);
            // The mesh is a box, so its corners are vertices: the world box is tight.
            cr_assert(lo[k] - box_lo[k] < 1e-4 && box_hi[k] - hi[k] < 1e-4, "node %d axis %d: box too large", i, k);
        }
    }
    // Subtree boxes are the unions of the world boxes below.
    for (int i = 0; i < tree.count; i++) {
        sr_aabb expected = sr_aabb_empty();
        for (int j = 0; j < tree.count; j++)
            if (in_subtree(&tree, j, i)) {
                sr_node_info info;
                sr_scene_node(tree.scene, tree.nodes[j], &info, NULL);
                expected = sr_aabb_merge(expected, info.world_aabb);
            }
        sr_node_info info;
        sr_scene_node(tree.scene, tree.nodes[i], &info, NULL);
        cr_assert(memcmp(&info.subtree_aabb, &expected, sizeof expected) == 0 ||
                      (sr_aabb_is_empty(expected) && sr_aabb_is_empty(info.subtree_aabb)),
                  "node %d: subtree box is not the union of its subtree", i);
    }
    sr_scene_destroy(tree.scene);
}

Test(hierarchy, a_move_updates_its_subtree_and_ancestors_and_nothing_else)
{
    test_tree tree;
    make_tree(&tree, 60, 4);
    sr_scene_update_stats stats;
    update(tree.scene, &stats);
    cr_assert_eq(stats.transforms_updated, 60u, "the first update computes every node");
    for (int trial = 0; trial < 20; trial++) {
        int moved = (int)(rng_uniform() * tree.count);
        sr_node_info before[64];
        for (int i = 0; i < tree.count; i++)
            sr_scene_node(tree.scene, tree.nodes[i], &before[i], NULL);
        tree.local[moved] = random_transform();
        cr_assert_eq(sr_scene_set_transform(tree.scene, tree.nodes[moved], tree.local[moved], NULL), SR_OK);
        cr_assert(sr_scene_needs_update(tree.scene));
        update(tree.scene, &stats);
        cr_assert(!sr_scene_needs_update(tree.scene));
        uint32_t subtree = 0, ancestors = 0;
        for (int i = 0; i < tree.count; i++)
            subtree += in_subtree(&tree, i, moved);
        for (int a = tree.parent[moved]; a >= 0; a = tree.parent[a])
            ancestors++;
        cr_assert_eq(stats.transforms_updated, subtree, "trial %d: %u transforms for a subtree of %u", trial,
                     stats.transforms_updated, subtree);
        cr_assert_eq(stats.bounds_updated, subtree + ancestors, "trial %d: %u boxes for %u + %u", trial,
                     stats.bounds_updated, subtree, ancestors);
        for (int i = 0; i < tree.count; i++) {
            sr_node_info after;
            sr_scene_node(tree.scene, tree.nodes[i], &after, NULL);
            double world[16];
            world_double(&tree, i, world);
            for (int k = 0; k < 16; k++)
                cr_assert(fabs(after.world.m[k] - world[k]) < 1e-4 * (1 + fabs(world[k])), "trial %d node %d", trial,
                          i);
            if (!in_subtree(&tree, i, moved))
                cr_assert(memcmp(&after.world, &before[i].world, sizeof after.world) == 0,
                          "trial %d: node %d outside the moved subtree changed", trial, i);
        }
    }
    // Moving a node and one of its descendants recomputes the ancestor's subtree once.
    int child = -1;
    for (int i = tree.count - 1; i > 0 && child < 0; i--)
        if (tree.parent[i] >= 0)
            child = i;
    int parent = tree.parent[child];
    sr_scene_set_transform(tree.scene, tree.nodes[child], tree.local[child], NULL);
    sr_scene_set_transform(tree.scene, tree.nodes[parent], tree.local[parent], NULL);
    update(tree.scene, &stats);
    uint32_t subtree = 0;
    for (int i = 0; i < tree.count; i++)
        subtree += in_subtree(&tree, i, parent);
    cr_assert_eq(stats.transforms_updated, subtree);
    // Nothing changed: an update does nothing.
    update(tree.scene, &stats);
    cr_assert_eq(stats.transforms_updated + stats.bounds_updated, 0u);
    sr_scene_destroy(tree.scene);
}

Test(hierarchy, removed_nodes_leave_stale_handles_and_shrink_their_ancestors_boxes)
{
    sr_scene *scene = new_scene();
    sr_mesh_id box = add_mesh(scene, box_mesh(0.5f), "box");
    sr_node_id root = add_node(scene, "root", SR_NODE_NULL, (sr_transform){0}, box);
    sr_node_id arm = add_node(scene, "arm", root, (sr_transform){.translation = {5, 0, 0}}, box);
    sr_node_id hand = add_node(scene, "hand", arm, (sr_transform){.translation = {5, 0, 0}}, box);
    sr_node_id other = add_node(scene, "other", root, (sr_transform){.translation = {0, 2, 0}}, box);
    update(scene, NULL);
    sr_node_info info;
    sr_scene_node(scene, root, &info, NULL);
    cr_assert(info.subtree_aabb.max.x > 10.4f, "the hand reaches x = 10.5");
    cr_assert_eq(sr_scene_node_count(scene), 4u);
    cr_assert_eq(sr_scene_remove_node(scene, arm, NULL), SR_OK);
    cr_assert_eq(sr_scene_node_count(scene), 2u);
    cr_assert(!sr_scene_node_is_valid(scene, arm) && !sr_scene_node_is_valid(scene, hand));
    sr_error err = {0};
    cr_assert_neq(sr_scene_set_transform(scene, hand, (sr_transform){0}, &err), SR_OK);
    cr_assert(strstr(err.message, "stale"), "%s", err.message);
    cr_assert_neq(sr_scene_remove_node(scene, arm, NULL), SR_OK, "removing twice is an error");
    cr_assert_neq(sr_scene_node(scene, (sr_node_id){0, 0}, &info, NULL), SR_OK, "the zero handle is never valid");
    cr_assert_neq(sr_scene_node(scene, (sr_node_id){999, 1}, &info, NULL), SR_OK);
    update(scene, NULL);
    sr_scene_node(scene, root, &info, NULL);
    cr_assert(info.subtree_aabb.max.x < 0.6f, "the root's box shrank back: max x %g", (double)info.subtree_aabb.max.x);
    // Reused slots get new generations: the old handles stay stale.
    sr_node_id again = add_node(scene, "again", other, (sr_transform){0}, box);
    sr_node_id again2 = add_node(scene, "again2", SR_NODE_NULL, (sr_transform){0}, box);
    cr_assert(again.index == hand.index || again.index == arm.index, "a freed slot is reused");
    cr_assert(!sr_scene_node_is_valid(scene, arm) && !sr_scene_node_is_valid(scene, hand));
    cr_assert(sr_scene_node_is_valid(scene, again) && sr_scene_node_is_valid(scene, again2));
    cr_assert(sr_scene_find_node(scene, "again").index == again.index);
    cr_assert(sr_scene_first_child(scene, root).index == other.index);
    cr_assert(sr_scene_next_sibling(scene, other).generation == 0, "the arm is gone from the root's children");
    update(scene, NULL);
    // The instance tree holds exactly the live instances.
    sr_dynamic_tree_stats tree_stats = sr_dynamic_tree_get_stats(sr_scene_instance_tree(scene));
    cr_assert_eq(tree_stats.proxy_count, 4);
    sr_scene_destroy(scene);
}

Test(hierarchy, bad_nodes_are_refused_with_a_message)
{
    sr_scene *scene = new_scene();
    sr_error err = {0};
    sr_node_id id;
    cr_assert_neq(sr_scene_add_node(scene, &(sr_node_desc){.name = "n", .mesh = {3}}, &id, &err), SR_OK);
    cr_assert(strstr(err.message, "mesh id 3"), "%s", err.message);
    cr_assert_neq(
        sr_scene_add_node(scene, &(sr_node_desc){.name = "flat", .transform = {.scale = {1, 0, 1}}}, &id, &err), SR_OK);
    cr_assert(strstr(err.message, "flat") && strstr(err.message, "scale"), "%s", err.message);
    cr_assert_neq(
        sr_scene_add_node(scene, &(sr_node_desc){.name = "far", .transform = {.translation = {NAN, 0, 0}}}, &id, &err),
        SR_OK);
    cr_assert(strstr(err.message, "translation"), "%s", err.message);
    cr_assert_neq(sr_scene_add_node(scene, &(sr_node_desc){.name = "orphan", .parent = {5, 1}}, &id, &err), SR_OK);
    cr_assert(strstr(err.message, "parent"), "%s", err.message);
    cr_assert_eq(sr_scene_node_count(scene), 0u, "nothing was added");
    sr_scene_destroy(scene);
}

/* ---- culling ---- */

/* A field of `count` instances of two meshes scattered over a wide area. */
static sr_scene *make_field(int count, uint64_t seed, sr_node_id *nodes)
{
    rng_seed(seed);
    sr_scene *scene = new_scene();
    sr_mesh_id meshes[2] = {add_mesh(scene, sphere_mesh(0.5f), "sphere"), add_mesh(scene, box_mesh(0.4f), "box")};
    for (int i = 0; i < count; i++) {
        sr_transform t = random_transform();
        t.translation = sr_vec3_make(rng_range(-40, 40), rng_range(-3, 3), rng_range(-40, 40));
        sr_node_id id = add_node(scene, "item", SR_NODE_NULL, t, meshes[i % 2]);
        if (nodes)
            nodes[i] = id;
    }
    update(scene, NULL);
    return scene;
}

static sr_camera random_camera(void)
{
    return (sr_camera){.eye = {rng_range(-30, 30), rng_range(1, 10), rng_range(-30, 30)},
                       .target = {rng_range(-10, 10), 0, rng_range(-10, 10)},
                       .fov_y_degrees = rng_range(30, 90),
                       .far_z = rng_range(10, 60)};
}

Test(culling, visible_set_equals_brute_force_frustum_tests)
{
    sr_node_id nodes[3000];
    sr_scene *scene = make_field(3000, 5, nodes);
    // Some hidden nodes: never counted as instances.
    for (int i = 0; i < 3000; i += 97)
        sr_scene_set_hidden(scene, nodes[i], true, NULL);
    sr_scene_frame *frame = NULL;
    cr_assert_eq(sr_scene_frame_create(&frame, NULL), SR_OK);
    for (int trial = 0; trial < 30; trial++) {
        sr_camera camera = random_camera();
        int width = 320, height = 200;
        sr_error err = {0};
        cr_assert_eq(sr_scene_cull(scene, &camera, width, height, frame, &err), SR_OK, "%s", err.message);
        sr_mat4 view, projection;
        sr_camera_matrices(&camera, width, height, &view, &projection);
        sr_frustum frustum = sr_frustum_from_matrix(sr_mat4_mul(projection, view));
        const sr_node_id *visible, *culled;
        size_t visible_count = sr_scene_frame_visible(frame, &visible);
        size_t culled_count = sr_scene_frame_culled(frame, &culled);
        size_t expected_visible = 0, v = 0, c = 0;
        for (int i = 0; i < 3000; i++) {
            if (i % 97 == 0)
                continue;
            sr_node_info info;
            sr_scene_node(scene, nodes[i], &info, NULL);
            bool inside = sr_frustum_test_aabb(&frustum, &info.world_aabb) != SR_OUTSIDE;
            expected_visible += inside;
            // Both lists are in node order.
            if (inside) {
                cr_assert(v < visible_count && visible[v].index == nodes[i].index, "trial %d: node %d not visible",
                          trial, i);
                v++;
            } else {
                cr_assert(c < culled_count && culled[c].index == nodes[i].index, "trial %d: node %d not culled", trial,
                          i);
                c++;
            }
        }
        cr_assert_eq(visible_count, expected_visible);
        cr_assert_eq(visible_count + culled_count, 3000u - 31u);
        sr_scene_stats stats = sr_scene_frame_stats(frame);
        cr_assert_eq(stats.instances_total, 3000u - 31u);
        cr_assert_eq(stats.instances_culled, culled_count);
    }
    sr_scene_frame_destroy(frame);
    sr_scene_destroy(scene);
}

static sr_framebuffer *new_framebuffer(int width, int height)
{
    sr_framebuffer *fb = NULL;
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &fb, NULL), SR_OK);
    return fb;
}

static sr_renderer *new_renderer(int threads)
{
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &renderer, NULL), SR_OK);
    return renderer;
}

static void render(sr_scene *scene, const sr_scene_render_desc *desc, sr_renderer *renderer, sr_framebuffer *fb,
                   sr_scene_frame *frame)
{
    sr_error err = {0};
    cr_assert_eq(sr_scene_render(scene, desc, renderer, fb, frame, &err), SR_OK, "%s", err.message);
}

Test(culling, never_changes_the_picture)
{
    sr_scene *scene = make_field(1500, 6, NULL);
    sr_renderer *renderer = new_renderer(1);
    sr_framebuffer *culled_fb = new_framebuffer(200, 150), *full_fb = new_framebuffer(200, 150);
    sr_scene_frame *culled_frame = NULL, *full_frame = NULL;
    sr_scene_frame_create(&culled_frame, NULL);
    sr_scene_frame_create(&full_frame, NULL);
    for (int trial = 0; trial < 8; trial++) {
        sr_camera camera = random_camera();
        render(scene, &(sr_scene_render_desc){.camera = &camera}, renderer, culled_fb, culled_frame);
        render(scene, &(sr_scene_render_desc){.camera = &camera, .no_culling = true}, renderer, full_fb, full_frame);
        sr_scene_stats culled_stats = sr_scene_frame_stats(culled_frame);
        sr_scene_stats full_stats = sr_scene_frame_stats(full_frame);
        cr_assert(culled_stats.instances_culled > 0, "trial %d: the camera culls something", trial);
        cr_assert_eq(full_stats.instances_culled, 0u);
        cr_assert_eq(culled_stats.fragments_shaded, full_stats.fragments_shaded);
        size_t pixels = 200 * 150;
        cr_assert(memcmp(culled_fb->color, full_fb->color, pixels * 4) == 0, "trial %d: colours differ", trial);
        cr_assert(memcmp(culled_fb->depth, full_fb->depth, pixels * 4) == 0, "trial %d: depths differ", trial);
        for (size_t p = 0; p < pixels; p++) {
            sr_node_id a, b;
            uint32_t ta, tb;
            bool ha = sr_scene_frame_decode_id(culled_frame, culled_fb->ids[p], &a, &ta);
            bool hb = sr_scene_frame_decode_id(full_frame, full_fb->ids[p], &b, &tb);
            cr_assert(ha == hb && a.index == b.index && ta == tb, "trial %d pixel %zu: ids differ", trial, p);
        }
    }
    sr_scene_frame_destroy(culled_frame);
    sr_scene_frame_destroy(full_frame);
    sr_framebuffer_destroy(culled_fb);
    sr_framebuffer_destroy(full_fb);
    sr_renderer_destroy(renderer);
    sr_scene_destroy(scene);
}

/* ---- picking ---- */

/* Nested transforms with non-uniform scale and overlapping instances, seen from a camera that
 * shows all of them. */
static sr_scene *make_picking_scene(sr_node_id nodes[6])
{
    sr_scene *scene = new_scene();
    sr_mesh_id sphere = add_mesh(scene, sphere_mesh(0.6f), "sphere");
    sr_mesh_id box = add_mesh(scene, box_mesh(0.5f), "box");
    sr_mesh *torus_mesh = NULL;
    sr_mesh_create_torus(0.5f, 0.2f, 24, 12, &torus_mesh, NULL);
    sr_mesh_id torus = add_mesh(scene, torus_mesh, "torus");
    nodes[0] =
        add_node(scene, "base", SR_NODE_NULL, (sr_transform){.translation = {0, -0.5f, 0}, .scale = {3, 0.2f, 2}}, box);
    nodes[1] = add_node(scene, "arm", SR_NODE_NULL,
                        (sr_transform){.translation = {-0.8f, 0.4f, 0},
                                       .rotation = sr_quat_from_euler_degrees(sr_vec3_make(10, 30, 20)),
                                       .scale = {1.5f, 0.7f, 1.0f}},
                        sphere);
    nodes[2] = add_node(scene, "forearm", nodes[1],
                        (sr_transform){.translation = {0.9f, 0.3f, 0.2f},
                                       .rotation = sr_quat_from_euler_degrees(sr_vec3_make(0, 0, 50)),
                                       .scale = {0.5f, 1.4f, 0.8f}},
                        box);
    nodes[3] = add_node(scene, "hand", nodes[2],
                        (sr_transform){.translation = {0.2f, 0.7f, 0.0f},
                                       .rotation = sr_quat_from_euler_degrees(sr_vec3_make(70, 0, 0)),
                                       .scale = {1.2f, 1.2f, 0.6f}},
                        torus);
    // Two overlapping instances: their surfaces cross.
    nodes[4] = add_node(scene, "overlap a", SR_NODE_NULL, (sr_transform){.translation = {1.2f, 0.2f, 0.3f}}, sphere);
    nodes[5] = add_node(scene, "overlap b", SR_NODE_NULL,
                        (sr_transform){.translation = {1.5f, 0.3f, 0.5f},
                                       .rotation = sr_quat_from_euler_degrees(sr_vec3_make(20, 40, 0)),
                                       .scale = {0.8f, 1.3f, 0.9f}},
                        box);
    sr_scene_set_camera(scene, &(sr_camera){.eye = {0.5f, 2.0f, 4.5f}, .target = {0.2f, 0.1f, 0}});
    update(scene, NULL);
    return scene;
}

/* Does triangle `t` of node `node` share a vertex position (in world space, bit for bit after the
 * same transform) with triangle `u` of node `other`, or lie near it? Here: the pick's barycentric
 * weights put the hit within `margin` of an edge. */
static bool near_edge(const sr_pick_hit *hit, float margin)
{
    float w = 1.0f - hit->u - hit->v;
    return hit->u < margin || hit->v < margin || w < margin;
}

Test(picking, pick_agrees_with_the_id_buffer)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    const int width = 240, height = 160;
    sr_renderer *renderer = new_renderer(1);
    sr_framebuffer *fb = new_framebuffer(width, height);
    sr_scene_frame *frame = NULL;
    sr_scene_frame_create(&frame, NULL);
    render(scene, NULL, renderer, fb, frame);
    size_t covered = 0, agree = 0, background = 0;
    sr_camera camera = sr_scene_camera(scene);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            sr_pick_hit hit;
            sr_error err = {0};
            cr_assert_eq(sr_scene_pick(scene, NULL, width, height, x + 0.5f, y + 0.5f, &hit, &err), SR_OK, "%s",
                         err.message);
            sr_node_id node;
            uint32_t triangle;
            bool drawn = sr_scene_frame_decode_id(frame, fb->ids[y * width + x], &node, &triangle);
            if (!drawn) {
                background++;
                // Where nothing was drawn the pick misses, but for rays grazing a silhouette
                // within the rasteriser's 1/256-pixel snapping.
                cr_assert(!hit.hit || near_edge(&hit, 0.02f), "pixel (%d, %d): background but hit node %u", x, y,
                          hit.node.index);
                cr_assert(!hit.hit || hit.t <= sr_camera_ray(&camera, width, height, x + 0.5f, y + 0.5f).tmax);
                continue;
            }
            covered++;
            if (hit.hit && hit.node.index == node.index && hit.triangle == triangle) {
                agree++;
                continue;
            }
            cr_assert(hit.hit, "pixel (%d, %d): drawn node %u triangle %u, pick misses", x, y, node.index, triangle);
            // Disagreements lie on edges between triangles that touch, or where two surfaces
            // cross (equal depths up to rounding).
            sr_node_info info;
            sr_scene_node(scene, node, &info, NULL);
            cr_assert(near_edge(&hit, 0.02f) || hit.node.index != node.index,
                      "pixel (%d, %d): drawn %u/%u, picked %u/%u inside a triangle", x, y, node.index, triangle,
                      hit.node.index, hit.triangle);
        }
    cr_assert(covered > 5000 && background > 1000, "the scene covers part of the image (%zu pixels)", covered);
    cr_assert(agree >= covered * 999 / 1000, "%zu of %zu covered pixels agree", agree, covered);
    sr_scene_frame_destroy(frame);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    sr_scene_destroy(scene);
}

/* Brute force in double: every triangle of every instance mapped to world space. */
static bool brute_force_pick(const sr_scene *scene, const sr_node_id *nodes, int count, const sr_ray *ray,
                             double *t_out, int *node_out, uint32_t *triangle_out)
{
    double best = INFINITY;
    for (int i = 0; i < count; i++) {
        sr_node_info info;
        sr_scene_node(scene, nodes[i], &info, NULL);
        const sr_mesh *mesh = sr_scene_mesh(scene, info.mesh);
        double world[16];
        for (int k = 0; k < 16; k++)
            world[k] = info.world.m[k];
        for (size_t t = 0; t < mesh->triangle_count; t++) {
            double p[3][3];
            for (int c = 0; c < 3; c++)
                transform_point_double(world, mesh->positions[mesh->indices[3 * t + c]], p[c]);
            // Möller–Trumbore in double.
            double e1[3], e2[3], s[3], d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
            double o[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
            for (int k = 0; k < 3; k++) {
                e1[k] = p[1][k] - p[0][k];
                e2[k] = p[2][k] - p[0][k];
                s[k] = o[k] - p[0][k];
            }
            double h[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
            double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
            if (det == 0.0)
                continue;
            double u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) / det;
            double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
            double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
            double tt = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
            if (u < 0 || v < 0 || u + v > 1 || tt < ray->tmin || tt > ray->tmax || tt >= best)
                continue;
            best = tt;
            *node_out = i;
            *triangle_out = (uint32_t)t;
        }
    }
    *t_out = best;
    return best < INFINITY;
}

Test(picking, pick_matches_brute_force_in_double)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    rng_seed(7);
    int hits = 0;
    for (int trial = 0; trial < 3000; trial++) {
        float x = rng_range(0, 200), y = rng_range(0, 150);
        sr_pick_hit hit;
        cr_assert_eq(sr_scene_pick(scene, NULL, 200, 150, x, y, &hit, NULL), SR_OK);
        double t;
        int node = 0;
        uint32_t triangle = 0;
        bool expected = brute_force_pick(scene, nodes, 6, &hit.ray, &t, &node, &triangle);
        if (expected != hit.hit) {
            cr_assert(hit.hit && near_edge(&hit, 1e-3f), "trial %d: brute force %s", trial,
                      expected ? "hits" : "misses");
            continue;
        }
        if (!expected)
            continue;
        hits++;
        cr_assert(fabs(hit.t - t) < 1e-4 * t, "trial %d: t %g vs %g", trial, (double)hit.t, t);
        if (hit.node.index != nodes[node].index || hit.triangle != triangle)
            cr_assert(near_edge(&hit, 1e-3f) || fabs(hit.t - t) < 1e-5 * t, "trial %d: picked %u/%u, brute force %u/%u",
                      trial, hit.node.index, hit.triangle, nodes[node].index, triangle);
        // The point is on the ray at t, the normal unit and facing the ray.
        sr_vec3 p = sr_ray_at(&hit.ray, hit.t);
        cr_assert(sr_vec3_length(sr_vec3_sub(p, hit.position)) < 1e-5f);
        cr_assert(fabsf(sr_vec3_length(hit.normal) - 1.0f) < 1e-5f);
        cr_assert(sr_vec3_dot(hit.normal, hit.ray.direction) <= 0.0f);
        cr_assert(hit.nodes_visited > 0 && hit.instances_tested > 0);
    }
    cr_assert(hits > 1000, "%d hits", hits);
    sr_scene_destroy(scene);
}

Test(picking, world_normals_of_a_scaled_sphere_are_the_analytic_normals)
{
    // A sphere of radius 1 scaled to an ellipsoid (a, b, c): the normal at p is
    // normalize(p.x / a^2, p.y / b^2, p.z / c^2); the geometric normal of the hit triangle is
    // within the tessellation's angle of it.
    sr_scene *scene = new_scene();
    sr_mesh *mesh = NULL;
    sr_mesh_create_sphere(1.0f, 96, 48, &mesh, NULL);
    sr_mesh_id sphere = add_mesh(scene, mesh, "sphere");
    const float a = 2.0f, b = 0.5f, c = 1.0f;
    add_node(scene, "ellipsoid", SR_NODE_NULL, (sr_transform){.scale = {a, b, c}}, sphere);
    update(scene, NULL);
    rng_seed(8);
    for (int trial = 0; trial < 500; trial++) {
        sr_vec3 origin = {rng_range(-1, 1), rng_range(-0.3, 0.3), 5.0f};
        sr_ray ray = sr_ray_make(origin, sr_vec3_make(0, 0, -1), 0.0f, INFINITY);
        sr_pick_hit hit;
        cr_assert_eq(sr_scene_pick_ray(scene, &ray, &hit, NULL), SR_OK);
        if (!hit.hit)
            continue;
        sr_vec3 p = hit.position;
        sr_vec3 expected = sr_vec3_normalize(sr_vec3_make(p.x / (a * a), p.y / (b * b), p.z / (c * c)));
        cr_assert(sr_vec3_dot(hit.normal, expected) > 0.99f, "trial %d: normal (%g %g %g) vs (%g %g %g)", trial,
                  (double)hit.normal.x, (double)hit.normal.y, (double)hit.normal.z, (double)expected.x,
                  (double)expected.y, (double)expected.z);
        // t in world units: the hit's distance from the origin.
        cr_assert(fabsf(hit.t - sr_vec3_length(sr_vec3_sub(p, origin))) < 1e-5f);
    }
    sr_scene_destroy(scene);
}

Test(picking, many_points_on_any_thread_count_equal_single_picks)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    enum { count = 997 };
    sr_vec2 points[count];
    rng_seed(9);
    for (int i = 0; i < count; i++)
        points[i] = sr_vec2_make(rng_range(0, 320), rng_range(0, 200));
    sr_pick_hit single[count], many[count];
    for (int i = 0; i < count; i++)
        cr_assert_eq(sr_scene_pick(scene, NULL, 320, 200, points[i].x, points[i].y, &single[i], NULL), SR_OK);
    const int thread_counts[] = {0, 1, 2, 3, 7};
    for (int k = 0; k < 5; k++) {
        cr_assert_eq(sr_scene_pick_many(scene, NULL, 320, 200, points, count, thread_counts[k], many, NULL), SR_OK);
        cr_assert(memcmp(single, many, sizeof single) == 0, "%d threads", thread_counts[k]);
    }
    sr_scene_destroy(scene);
}

Test(picking, hidden_nodes_and_pending_edits)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    sr_pick_hit hit;
    sr_ray ray = sr_ray_make(sr_vec3_make(1.45f, 5, -0.9f), sr_vec3_make(0, -1, 0), 0.0f, INFINITY);
    cr_assert_eq(sr_scene_pick_ray(scene, &ray, &hit, NULL), SR_OK);
    cr_assert(hit.hit && hit.node.index == nodes[0].index, "straight down hits the base");
    cr_assert(fabsf(hit.t - 5.4f) < 1e-4f, "t %g: the base's top is at y = -0.4", (double)hit.t);
    sr_scene_set_hidden(scene, nodes[0], true, NULL);
    cr_assert_eq(sr_scene_pick_ray(scene, &ray, &hit, NULL), SR_OK);
    cr_assert(!hit.hit, "a hidden node is not picked");
    sr_scene_set_transform(scene, nodes[1], (sr_transform){0}, NULL);
    sr_error err = {0};
    cr_assert_neq(sr_scene_pick_ray(scene, &ray, &hit, &err), SR_OK);
    cr_assert(strstr(err.message, "sr_scene_update"), "%s", err.message);
    sr_scene_destroy(scene);
}

/* ---- drawing ---- */

Test(drawing, blended_materials_are_drawn_over_opaque_ones_with_the_alpha_formula)
{
    sr_scene *scene = new_scene();
    sr_mesh *plane_mesh = NULL;
    sr_mesh_create_plane(2.0f, 1, 1.0f, &plane_mesh, NULL);
    sr_mesh_id plane = add_mesh(scene, plane_mesh, "plane");
    sr_material_id red, glass;
    cr_assert_eq(sr_scene_add_material(
                     scene, &(sr_material_desc){.name = "red", .shader = &sr_shader_flat, .base_color = {1, 0, 0, 1}},
                     &red, NULL),
                 SR_OK);
    cr_assert_eq(sr_scene_add_material(
                     scene,
                     &(sr_material_desc){.name = "glass", .shader = &sr_shader_flat, .base_color = {0, 0, 1, 0.25f}},
                     &glass, NULL),
                 SR_OK);
    // The blended plane is added first, nearer to the camera: it must still be drawn last.
    sr_quat facing = sr_quat_from_euler_degrees(sr_vec3_make(90, 0, 0)); // +Y normal to +Z
    sr_node_id front, back;
    sr_scene_add_node(scene,
                      &(sr_node_desc){.name = "front",
                                      .mesh = plane,
                                      .material = glass,
                                      .transform = {.translation = {0, 0, 1}, .rotation = facing}},
                      &front, NULL);
    sr_scene_add_node(
        scene,
        &(sr_node_desc){
            .name = "back", .mesh = plane, .material = red, .transform = {.rotation = facing, .scale = {2, 2, 2}}},
        &back, NULL);
    sr_scene_set_camera(scene, &(sr_camera){.eye = {0, 0, 4}});
    sr_scene_set_background(scene, sr_rgba8(0, 0, 0, 1));
    sr_renderer *renderer = new_renderer(1);
    sr_framebuffer *fb = new_framebuffer(64, 64);
    sr_scene_frame *frame = NULL;
    sr_scene_frame_create(&frame, NULL);
    render(scene, NULL, renderer, fb, frame);
    uint32_t centre = fb->color[32 * 64 + 32];
    // s * a + d * (1 - a), rounded: blue 255 * 0.25 = 63.75 over red 255 * 0.75 = 191.25.
    uint32_t r = centre & 0xff, g = centre >> 8 & 0xff, b = centre >> 16 & 0xff;
    cr_assert(r == 191 && g == 0 && b == 64, "centre (%u, %u, %u)", r, g, b);
    // The id there is the front plane's (blended parts write ids too).
    sr_node_id node;
    cr_assert(sr_scene_frame_decode_id(frame, fb->ids[32 * 64 + 32], &node, NULL) && node.index == front.index);
    sr_scene_stats stats = sr_scene_frame_stats(frame);
    cr_assert_eq(stats.draw_calls, 3u);
    cr_assert_eq(stats.instances_drawn, 2u);
    cr_assert_eq(stats.triangles_submitted, 6u);
    sr_scene_frame_destroy(frame);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    sr_scene_destroy(scene);
}

Test(drawing, threads_draw_the_same_scene_image)
{
    sr_scene *scene = make_field(400, 10, NULL);
    sr_camera camera = {.eye = {0, 6, 30}, .target = {0, 0, 0}, .fov_y_degrees = 60};
    sr_framebuffer *reference = new_framebuffer(160, 120);
    sr_renderer *one = new_renderer(1);
    render(scene, &(sr_scene_render_desc){.camera = &camera}, one, reference, NULL);
    const int thread_counts[] = {2, 3, 5};
    for (int k = 0; k < 3; k++) {
        sr_renderer *renderer = new_renderer(thread_counts[k]);
        sr_framebuffer *fb = new_framebuffer(160, 120);
        render(scene, &(sr_scene_render_desc){.camera = &camera}, renderer, fb, NULL);
        cr_assert(memcmp(fb->color, reference->color, 160 * 120 * 4) == 0, "%d threads", thread_counts[k]);
        cr_assert(memcmp(fb->ids, reference->ids, 160 * 120 * 4) == 0, "%d threads", thread_counts[k]);
        sr_framebuffer_destroy(fb);
        sr_renderer_destroy(renderer);
    }
    sr_framebuffer_destroy(reference);
    sr_renderer_destroy(one);
    sr_scene_destroy(scene);
}

Test(drawing, decode_id_maps_every_drawn_triangle_back)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    sr_renderer *renderer = new_renderer(1);
    sr_framebuffer *fb = new_framebuffer(100, 80);
    sr_scene_frame *frame = NULL;
    sr_scene_frame_create(&frame, NULL);
    render(scene, NULL, renderer, fb, frame);
    for (size_t p = 0; p < 100 * 80; p++) {
        sr_node_id node;
        uint32_t triangle;
        if (!sr_scene_frame_decode_id(frame, fb->ids[p], &node, &triangle)) {
            cr_assert_eq(fb->ids[p], SR_NO_ID);
            continue;
        }
        sr_node_info info;
        cr_assert_eq(sr_scene_node(scene, node, &info, NULL), SR_OK);
        cr_assert(triangle < sr_scene_mesh(scene, info.mesh)->triangle_count);
    }
    cr_assert(!sr_scene_frame_decode_id(frame, SR_NO_ID, NULL, NULL));
    cr_assert(!sr_scene_frame_decode_id(frame, 0x7fffffff, NULL, NULL), "ids past the last instance are unknown");
    sr_scene_frame_destroy(frame);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    sr_scene_destroy(scene);
}

/* An OBJ file with groups, materials and a texture, written here: two tilted quads in front of a
 * polygon, the left one red, the right one textured with a PNG of two colours. */
static void write_text(const char *dir, const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(picking, a_textured_obj_with_groups_and_materials_agrees_with_its_picture)
{
    char dir[] = "/tmp/softrast_objscene_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    write_text(dir, "parts.mtl",
               "newmtl red\nKd 1 0 0\n\nnewmtl checker\nKd 1 1 1\nmap_Kd -s 1 1 1 two colours.png\n"
               "newmtl floor\nKd 0.3 0.6 0.3\n");
    sr_texture *texture = NULL;
    sr_checker_texture_create(8, 2, sr_rgba8(0, 0, 1, 1), sr_rgba8(1, 1, 0, 1), &texture, NULL);
    sr_framebuffer image = {.width = 8, .height = 8, .color = texture->texels};
    char png[700];
    snprintf(png, sizeof png, "%s/two colours.png", dir);
    cr_assert_eq(sr_framebuffer_save(&image, png, NULL), SR_OK);
    sr_texture_destroy(texture);
    write_text(dir, "parts.obj",
               "mtllib parts.mtl\n"
               "v -2 -1 0.2\nv -0.2 -1 0\nv -0.2 1 0\nv -2 1 0.3\n"
               "v 0.2 -1 0\nv 2 -1 -0.4\nv 2 1 -0.2\nv 0.2 1 0\n"
               "v -3 -2 -1\nv 3 -2 -1\nv 3 2 -1\nv 0 0.5 -1\nv -3 2 -1\n"
               "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
               "g left\nusemtl red\nf 1 2 3 4\n"
               "g right\nusemtl checker\nf 5/1 6/2 7/3 8/4\n"
               "g back\nusemtl floor\nf 9 10 11 12 13\n");
    char path[700];
    snprintf(path, sizeof path, "%s/parts.obj", dir);
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = path}, &scene, &err), SR_OK, "%s", err.message);
    sr_node_id node = sr_scene_find_node(scene, "parts");
    cr_assert(node.generation != 0);
    sr_node_info info;
    sr_scene_node(scene, node, &info, NULL);
    const sr_mesh *mesh = sr_scene_mesh(scene, info.mesh);
    cr_assert_eq(mesh->triangle_count, 2u + 2u + 3u, "the concave pentagon gives three triangles");
    cr_assert_eq(mesh->group_count, 3u);
    cr_assert(sr_scene_find_material(scene, "red").id && sr_scene_find_material(scene, "checker").id);
    const int width = 160, height = 120;
    sr_renderer *renderer = new_renderer(1);
    sr_framebuffer *fb = new_framebuffer(width, height);
    sr_scene_frame *frame = NULL;
    sr_scene_frame_create(&frame, NULL);
    render(scene, NULL, renderer, fb, frame);
    size_t covered = 0, agree = 0, red = 0, textured = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            sr_node_id drawn_node;
            uint32_t triangle;
            if (!sr_scene_frame_decode_id(frame, fb->ids[y * width + x], &drawn_node, &triangle))
                continue;
            covered++;
            sr_pick_hit hit;
            cr_assert_eq(sr_scene_pick(scene, NULL, width, height, x + 0.5f, y + 0.5f, &hit, NULL), SR_OK);
            agree += hit.hit && hit.node.index == drawn_node.index && hit.triangle == triangle;
            uint32_t c = fb->color[y * width + x];
            uint32_t r = c & 0xff, g = c >> 8 & 0xff, b = c >> 16 & 0xff;
            if (triangle < 2) // the red quad: lit red, no green or blue
                red += r > 100 && g == 0 && b == 0;
            else if (triangle < 4) // the textured quad: the texture's blue or yellow, lit
                textured += (b > 100 && r == 0 && g == 0) || (r > 100 && g > 100 && b == 0);
        }
    cr_assert_gt(covered, 3000, "%zu pixels covered", covered);
    cr_assert_geq(agree, covered * 999 / 1000, "%zu of %zu agree", agree, covered);
    cr_assert_gt(red, 600, "the red material shows (%zu pixels)", red);
    cr_assert_gt(textured, 600, "the texture shows (%zu pixels)", textured);
    sr_scene_frame_destroy(frame);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    sr_scene_destroy(scene);
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_assert_eq(system(command), 0);
}
