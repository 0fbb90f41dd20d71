/* test_scene_graph.c — scenes (src/scene/scene.c, scene_node.c, scene_update.c,
 * scene_render.c): the hierarchy against matrix products in double, update counts, handles,
 * culling against brute-force frustum tests, culling never changing the picture, drawing.
 * Picking is test_scene_pick.c, cameras test_camera.c. */
#include "scene_test_helpers.h"

#include <float.h>

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

/* A node thrown to the edge of the float range (a recording's or an engine's blown-up body) and
 * back: every update succeeds (its box plus the instance tree's margin and predicted displacement
 * overflows there, so it leaves the tree while out there), and back home it is where it was,
 * culled and drawn again. */
Test(hierarchy, a_node_at_the_edge_of_the_float_range_and_back)
{
    test_tree tree;
    make_tree(&tree, 12, 3);
    sr_scene_update_stats stats;
    update(tree.scene, &stats);
    int moved = tree.count - 1;
    sr_node_info before;
    for (sr_scene_node(tree.scene, tree.nodes[moved], &before, NULL); sr_aabb_is_empty(before.world_aabb) && moved > 0;)
        sr_scene_node(tree.scene, tree.nodes[--moved], &before, NULL); // one that draws something
    cr_assert(!sr_aabb_is_empty(before.world_aabb));
    const sr_vec3 far[5] = {{1e38f, 0, 0}, {0, -2e38f, 0}, {0, 0, 3e38f}, {-3e38f, 3e38f, 0}, {FLT_MAX, -FLT_MAX, FLT_MAX}};
    for (int k = 0; k < 5; k++) {
        sr_transform t = tree.local[moved];
        t.translation = far[k];
        cr_assert_eq(sr_scene_set_transform(tree.scene, tree.nodes[moved], t, NULL), SR_OK);
        update(tree.scene, &stats); // from home: a displacement as large as the jump
        cr_assert_eq(sr_scene_set_transform(tree.scene, tree.nodes[moved], tree.local[moved], NULL), SR_OK);
        update(tree.scene, &stats);
        t.translation = far[(k + 1) % 5];
        cr_assert_eq(sr_scene_set_transform(tree.scene, tree.nodes[moved], t, NULL), SR_OK);
        update(tree.scene, &stats);
        t.translation = far[k]; // from far to far
        cr_assert_eq(sr_scene_set_transform(tree.scene, tree.nodes[moved], t, NULL), SR_OK);
        update(tree.scene, &stats);
    }
    cr_assert_eq(sr_scene_set_transform(tree.scene, tree.nodes[moved], tree.local[moved], NULL), SR_OK);
    update(tree.scene, &stats);
    sr_node_info after;
    sr_scene_node(tree.scene, tree.nodes[moved], &after, NULL);
    cr_assert(memcmp(&after.world_aabb, &before.world_aabb, sizeof after.world_aabb) == 0);
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
