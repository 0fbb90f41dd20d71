/* test_overlay.c — the overlays (src/debug/overlay.c) show the real query results: the boxes of a
 * BVH level are on overlay pixels, the pick marker sits on the picked point, the heat map's value
 * at each pixel is its pick's node count, the debug camera draws exactly the culled instances in
 * the culled colour; --overlay's syntax; and golden images (tests/golden/) that guard against
 * regressions, written with a diff image next to the failure message when they differ.
 * Regenerate the golden images on purpose with: SOFTRAST_UPDATE_GOLDEN=1 ./build/tests/test_overlay */
#include <criterion/criterion.h>
#include <softrast/debug.h>
#include <softrast/shaders.h>

#include <stb_image.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_DIR SR_SOURCE_DIR "/tests/golden/"

typedef struct frame {
    sr_scene *scene;
    sr_framebuffer *fb;
    sr_renderer *renderer;
    sr_scene_frame *frame;
    sr_camera view, cull;
} frame;

/* Renders `scene` seen by `view` (culled by `cull`, NULL: view) without overlays. */
static frame render(sr_scene *scene, int width, int height, const sr_camera *view, const sr_camera *cull)
{
    frame f = {.scene = scene};
    f.view = view ? *view : sr_scene_camera(scene);
    f.cull = cull ? *cull : f.view;
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height}, &f.fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(NULL, &f.renderer, NULL), SR_OK);
    cr_assert_eq(sr_scene_frame_create(&f.frame, NULL), SR_OK);
    cr_assert_eq(sr_scene_render(scene,
                                 &(sr_scene_render_desc){.camera = &f.view, .cull_camera = cull ? &f.cull : NULL},
                                 f.renderer, f.fb, f.frame, &err),
                 SR_OK, "%s", err.message);
    return f;
}

/* Adds the overlays of `items` (the --overlay syntax) to a fresh list and draws it over the frame. */
static void overlay(frame *f, const char *items, uint32_t heat_max)
{
    sr_overlay_desc desc = {.cull_camera = &f->cull, .heat_max = heat_max};
    sr_error err = {0};
    cr_assert_eq(sr_overlay_parse(items, &desc, &err), SR_OK, "%s", err.message);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.segment_capacity = 1 << 20}, &list, NULL), SR_OK);
    cr_assert_eq(sr_overlay_add(f->scene, f->frame, &f->view, f->fb->width, f->fb->height, &desc, list, &err), SR_OK,
                 "%s", err.message);
    cr_assert_eq(sr_debug_list_get_stats(list).segments_dropped, 0u);
    sr_mat4 view, projection;
    sr_camera_matrices(&f->view, f->fb->width, f->fb->height, &view, &projection);
    cr_assert_eq(sr_debug_draw(list, f->renderer, f->fb, sr_mat4_mul(projection, view), &err), SR_OK, "%s",
                 err.message);
    sr_debug_list_destroy(list);
}

static void free_frame(frame *f)
{
    sr_framebuffer_destroy(f->fb);
    sr_renderer_destroy(f->renderer);
    sr_scene_frame_destroy(f->frame);
}

/* The pixel a world point projects to with `camera` (false when behind or off the image). */
static bool project(const sr_camera *camera, int width, int height, sr_vec3 p, int *x, int *y)
{
    sr_mat4 view, projection;
    sr_camera_matrices(camera, width, height, &view, &projection);
    sr_vec4 c = sr_mat4_mul_vec4(sr_mat4_mul(projection, view), sr_vec4_from_vec3(p, 1.0f));
    if (!(c.w > 0.0f) || c.z < 0.0f || c.z > c.w)
        return false;
    double fx = ((double)c.x / c.w + 1.0) * 0.5 * width, fy = (1.0 - (double)c.y / c.w) * 0.5 * height;
    *x = (int)floor(fx);
    *y = (int)floor(fy);
    return *x >= 0 && *y >= 0 && *x < width && *y < height;
}

static sr_scene *demo(void)
{
    sr_scene *scene = NULL;
    cr_assert_eq(sr_scene_create_demo(&scene, NULL), SR_OK);
    return scene;
}

typedef struct level_boxes {
    sr_aabb boxes[1024];
    int count, depth;
} level_boxes;

static bool collect_level(void *user, const sr_dynamic_tree_node_info *node)
{
    level_boxes *l = user;
    if (node->depth == l->depth && l->count < 1024)
        l->boxes[l->count++] = node->box;
    return true;
}

Test(overlay, the_boxes_of_a_bvh_level_are_the_real_nodes)
{
    sr_scene *scene = demo();
    for (int depth = 0; depth <= 2; depth++) {
        frame f = render(scene, 320, 200, NULL, NULL);
        char items[32];
        snprintf(items, sizeof items, "bvh:%d-%d", depth, depth);
        overlay(&f, items, 0);
        // The nodes of that depth, from the tree itself.
        level_boxes level = {.depth = depth};
        sr_dynamic_tree_visit_nodes(sr_scene_instance_tree(scene), collect_level, &level, NULL);
        cr_assert_gt(level.count, 0);
        uint32_t color = sr_overlay_level_color(depth, depth, depth);
        int checked = 0;
        for (int b = 0; b < level.count; b++)
            for (int corner = 0; corner < 8; corner++) {
                sr_aabb box = level.boxes[b];
                sr_vec3 p = {corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                             corner & 4 ? box.max.z : box.min.z};
                int x, y;
                if (!project(&f.view, 320, 200, p, &x, &y))
                    continue;
                cr_assert_eq(f.fb->color[y * 320 + x], color, "depth %d box %d corner %d at (%d, %d)", depth, b, corner,
                             x, y);
                checked++;
            }
        cr_assert_gt(checked, 3, "depth %d: %d corners on screen", depth, checked);
        free_frame(&f);
    }
    sr_scene_destroy(scene);
}

Test(overlay, the_pick_marker_is_on_the_picked_point)
{
    sr_scene *scene = demo();
    const float points[3][2] = {{160.5f, 110.5f}, {75.5f, 100.5f}, {250.5f, 95.5f}};
    for (int k = 0; k < 3; k++) {
        frame f = render(scene, 320, 200, NULL, NULL);
        sr_pick_hit hit;
        cr_assert_eq(sr_scene_pick(scene, &f.view, 320, 200, points[k][0], points[k][1], &hit, NULL), SR_OK);
        cr_assert(hit.hit);
        char items[64];
        snprintf(items, sizeof items, "pick:%g,%g", (double)points[k][0], (double)points[k][1]);
        overlay(&f, items, 0);
        int x, y;
        cr_assert(project(&f.view, 320, 200, hit.position, &x, &y));
        // The point is the one under the cursor, and the marker's centre is drawn there.
        cr_assert(abs(x - (int)points[k][0]) <= 1 && abs(y - (int)points[k][1]) <= 1);
        cr_assert_eq(f.fb->color[y * 320 + x], SR_OVERLAY_COLOR_HIT, "point %d: (%d, %d) is %08x", k, x, y,
                     f.fb->color[y * 320 + x]);
        free_frame(&f);
    }
    sr_scene_destroy(scene);
}

Test(overlay, the_heat_map_is_each_pixels_pick_node_count)
{
    sr_scene *scene = demo();
    frame f = render(scene, 120, 80, NULL, NULL);
    uint32_t *counts = malloc(120 * 80 * sizeof *counts), max = 0;
    cr_assert_eq(sr_overlay_heat(scene, &f.view, f.fb, 2, counts, &max, NULL), SR_OK);
    uint32_t expected_max = 0;
    uint32_t *picked = malloc(120 * 80 * sizeof *picked);
    for (int y = 0; y < 80; y++)
        for (int x = 0; x < 120; x++) {
            sr_pick_hit hit;
            cr_assert_eq(sr_scene_pick(scene, &f.view, 120, 80, x + 0.5f, y + 0.5f, &hit, NULL), SR_OK);
            picked[y * 120 + x] = hit.nodes_visited;
            expected_max = hit.nodes_visited > expected_max ? hit.nodes_visited : expected_max;
        }
    cr_assert_eq(max, expected_max);
    for (int p = 0; p < 120 * 80; p++) {
        cr_assert_eq(counts[p], picked[p], "pixel %d", p);
        cr_assert_eq(f.fb->color[p], sr_overlay_heat_color(picked[p], expected_max), "pixel %d", p);
    }
    // The ramp: 0 is black, the maximum white, increasing brightness in between.
    cr_assert_eq(sr_overlay_heat_color(0, 10), sr_rgba8(0, 0, 0, 1));
    cr_assert_eq(sr_overlay_heat_color(10, 10), sr_rgba8(1, 1, 1, 1));
    free(counts);
    free(picked);
    free_frame(&f);
    sr_scene_destroy(scene);
}

/* Boxes floating in a row, nothing hiding anything from above. */
static sr_scene *floating_boxes(void)
{
    sr_scene *scene = NULL;
    cr_assert_eq(sr_scene_create(NULL, &scene, NULL), SR_OK);
    sr_mesh *mesh = NULL;
    sr_mesh_create_box(sr_vec3_splat(0.4f), 1, &mesh, NULL);
    sr_mesh_id box;
    cr_assert_eq(sr_scene_add_mesh(scene, mesh, "box", &box, NULL), SR_OK);
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++) {
            sr_node_id node;
            sr_scene_add_node(scene,
                              &(sr_node_desc){.name = "box",
                                              .mesh = box,
                                              .transform = {.translation = {(float)i * 3 - 9, 0, (float)j * 3 - 9}}},
                              &node, NULL);
        }
    cr_assert_eq(sr_scene_update(scene, NULL, NULL), SR_OK);
    return scene;
}

Test(overlay, the_debug_camera_draws_exactly_the_culled_instances_grey)
{
    sr_scene *scene = floating_boxes();
    sr_camera cull = {.eye = {0, 1, 4}, .target = {2, 0, -4}, .fov_y_degrees = 40, .far_z = 12};
    sr_camera view = {.eye = {0.1f, 40, 0}, .target = {0, 0, 0}, .fov_y_degrees = 40};
    frame f = render(scene, 320, 320, &view, &cull);
    overlay(&f, "frustum", 0);
    const sr_node_id *culled;
    size_t culled_count = sr_scene_frame_culled(f.frame, &culled);
    cr_assert(culled_count > 5 && culled_count < 49, "%zu culled", culled_count);
    bool is_culled[64] = {false};
    for (size_t i = 0; i < culled_count; i++)
        is_culled[culled[i].index] = true;
    // Brute force: the culled set is the frustum test of every box.
    sr_mat4 v, p;
    sr_camera_matrices(&cull, 320, 320, &v, &p);
    sr_frustum frustum = sr_frustum_from_matrix(sr_mat4_mul(p, v));
    int grey_corners = 0;
    for (uint32_t i = 0; i < 49; i++) {
        sr_node_info info;
        cr_assert_eq(sr_scene_node(scene, sr_scene_node_at(scene, i), &info, NULL), SR_OK);
        cr_assert_eq(is_culled[i], sr_frustum_test_aabb(&frustum, &info.world_aabb) == SR_OUTSIDE, "node %u", i);
        // Seen from above, the top corners are in front of everything.
        for (int corner = 0; corner < 4; corner++) {
            sr_vec3 q = {corner & 1 ? info.world_aabb.max.x : info.world_aabb.min.x, info.world_aabb.max.y,
                         corner & 2 ? info.world_aabb.max.z : info.world_aabb.min.z};
            int x, y;
            if (!project(&view, 320, 320, q, &x, &y))
                continue;
            bool grey = f.fb->color[y * 320 + x] == SR_OVERLAY_COLOR_CULLED;
            if (is_culled[i]) {
                cr_assert(grey || f.fb->color[y * 320 + x] == SR_OVERLAY_COLOR_FRUSTUM,
                          "culled node %u corner at (%d, %d) is %08x", i, x, y, f.fb->color[y * 320 + x]);
                grey_corners += grey;
            } else {
                cr_assert(!grey, "drawn node %u has a grey corner at (%d, %d)", i, x, y);
            }
        }
    }
    cr_assert_gt(grey_corners, (int)culled_count);
    free_frame(&f);
    sr_scene_destroy(scene);
}

Test(overlay, the_list_syntax_and_its_errors)
{
    sr_overlay_desc desc = {0};
    sr_error err = {0};
    cr_assert_eq(
        sr_overlay_parse("bvh:2-5,mesh-bvh,bounds,normals,wire,pick:10.5,20,frustum,heat,axes,grid,hud", &desc, &err),
        SR_OK, "%s", err.message);
    cr_assert_eq(desc.items, 0x7ffu);
    cr_assert(desc.bvh_range && desc.bvh_min == 2 && desc.bvh_max == 5 && !desc.mesh_bvh_range);
    cr_assert(desc.pick_x == 10.5f && desc.pick_y == 20.0f);
    const struct {
        const char *text, *fragment;
    } bad[] = {
        {"", "empty"},        {"boxes", "unknown"},   {"bvh:5-2", "depth range"},  {"bvh:x", "depth range"},
        {"pick", "pick:X,Y"}, {"pick:1", "pick:X,Y"}, {"hud:3", "takes no value"}, {"wire,", "ends with a comma"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sr_overlay_desc d = {0};
        cr_assert_neq(sr_overlay_parse(bad[i].text, &d, &err), SR_OK, "accepted '%s'", bad[i].text);
        cr_assert(strstr(err.message, bad[i].fragment), "'%s': %s", bad[i].text, err.message);
    }
}

/* ---- golden images ---- */

static void save_png(const char *path, const uint32_t *pixels, int width, int height)
{
    cr_assert_eq(sr_image_save(path, width, height, pixels, (size_t)width * 4, NULL), SR_OK, "%s", path);
}

/* Compares the frame with tests/golden/NAME.png pixel for pixel; on a mismatch writes
 * NAME.actual.png and NAME.diff.png (differing pixels red) into the current folder. */
static void expect_golden(const frame *f, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, GOLDEN_DIR "%s.png", name);
    int width = f->fb->width, height = f->fb->height;
    if (getenv("SOFTRAST_UPDATE_GOLDEN")) {
        save_png(path, f->fb->color, width, height);
        return;
    }
    int w, h, n;
    unsigned char *golden = stbi_load(path, &w, &h, &n, 4);
    cr_assert_not_null(golden, "%s is missing (SOFTRAST_UPDATE_GOLDEN=1 writes it)", path);
    int different = 0;
    uint32_t *diff = calloc((size_t)width * height, sizeof *diff);
    for (int i = 0; i < width * height && w == width && h == height; i++) {
        uint32_t g = (uint32_t)golden[4 * i] | (uint32_t)golden[4 * i + 1] << 8 | (uint32_t)golden[4 * i + 2] << 16 |
                     (uint32_t)golden[4 * i + 3] << 24;
        bool same = g == f->fb->color[i];
        different += !same;
        diff[i] = same ? 0xff202020u : 0xff0000ffu; // differing pixels red on dark grey
    }
    stbi_image_free(golden);
    if (different || w != width || h != height) {
        char actual[512], diff_path[512];
        snprintf(actual, sizeof actual, "%s.actual.png", name);
        snprintf(diff_path, sizeof diff_path, "%s.diff.png", name);
        save_png(actual, f->fb->color, width, height);
        save_png(diff_path, diff, width, height);
        free(diff);
        cr_assert_fail("%s: %d pixels differ from %s (size %dx%d vs %dx%d); wrote %s and %s", name, different, path,
                       width, height, w, h, actual, diff_path);
    }
    free(diff);
}

Test(golden, overlays_of_the_demo_scene)
{
    sr_scene *scene = demo();
    const struct {
        const char *name, *items;
    } cases[] = {{"overlay_bvh_bounds_axes", "bvh,bounds,axes"},
                 {"overlay_wire_normals", "wire,normals"},
                 {"overlay_pick", "pick:140.5,60.5,mesh-bvh:0-3"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        frame f = render(scene, 192, 108, NULL, NULL);
        overlay(&f, cases[i].items, 0);
        expect_golden(&f, cases[i].name);
        free_frame(&f);
    }
    // The debug camera over the floating boxes.
    sr_scene_destroy(scene);
    scene = floating_boxes();
    sr_camera cull = {.eye = {0, 1, 4}, .target = {2, 0, -4}, .fov_y_degrees = 40, .far_z = 12};
    sr_camera view = {.eye = {6, 18, 14}, .target = {0, 0, 0}, .fov_y_degrees = 40};
    frame f = render(scene, 192, 108, &view, &cull);
    overlay(&f, "frustum,grid", 0);
    expect_golden(&f, "overlay_debug_camera");
    free_frame(&f);
    sr_scene_destroy(scene);
}

/* The HUD's text: the frame time once, a rate only when one is given, instances and triangles as
 * the frame counted them, the pick once (as sr_scene_pick reports it), a long name cut short, the
 * caller's lines last; and the text scale for a few frame sizes. */
Test(hud, the_text_says_each_fact_once)
{
    sr_scene *scene = demo();
    frame f = render(scene, 192, 108, NULL, NULL);
    sr_pick_hit hit;
    cr_assert_eq(sr_scene_pick(scene, &f.view, 192, 108, 96.5f, 70.5f, &hit, NULL), SR_OK);
    cr_assert(hit.hit);
    sr_overlay_desc desc = {.items = SR_OVERLAY_HUD | SR_OVERLAY_PICK, .frame_ms = 12.5, .hud_text = "H: help"};
    char text[2048];
    size_t length = sr_overlay_hud_text(scene, f.frame, &desc, &hit, text, sizeof text);
    cr_assert_eq(length, strlen(text));
    sr_scene_stats stats = sr_scene_frame_stats(f.frame);
    sr_node_info info;
    sr_scene_node(scene, hit.node, &info, NULL);
    char expected[512];
    snprintf(expected, sizeof expected,
             "demo\nframe 12.5 ms\ninstances %u of %u\ntriangles %llu of %llu\nfragments %llu\ndraw calls %u\n"
             "pick: %s #%u\n triangle %u, t %.4g\n",
             stats.instances_drawn, stats.instances_total, (unsigned long long)stats.triangles_drawn,
             (unsigned long long)stats.triangles_submitted, (unsigned long long)stats.fragments_shaded,
             stats.draw_calls, info.name, hit.node.index, hit.triangle, (double)hit.t);
    cr_assert(strncmp(text, expected, strlen(expected)) == 0, "got:\n%s\nexpected to start with:\n%s", text, expected);
    cr_assert(strstr(text, "BVH nodes visited\nH: help") && !strstr(text, "fps"), "%s", text);
    desc.fps = 33.3;
    sr_overlay_hud_text(scene, f.frame, &desc, NULL, text, sizeof text);
    cr_assert(strstr(text, "\nframe 12.5 ms, 33 fps\n") && !strstr(text, "pick"), "%s", text);
    // Cut to the size given, NUL-terminated.
    char small[16];
    sr_overlay_hud_text(scene, f.frame, &desc, NULL, small, sizeof small);
    cr_assert_str_eq(small, "demo\nframe 12.5");
    free_frame(&f);
    sr_scene_destroy(scene);
    sr_scene *named = NULL;
    cr_assert_eq(sr_scene_create(&(sr_scene_desc){.name = "a scene with a very long name indeed"}, &named, NULL),
                 SR_OK);
    sr_scene_frame *empty = NULL;
    cr_assert_eq(sr_scene_frame_create(&empty, NULL), SR_OK);
    sr_overlay_hud_text(named, empty, &(sr_overlay_desc){0}, NULL, text, sizeof text);
    cr_assert(strncmp(text, "a scene with a very l...\n", 25) == 0, "%s", text);
    sr_scene_frame_destroy(empty);
    sr_scene_destroy(named);
    const int sizes[][3] = {{0, 0, 1},      {100, 100, 1},   {640, 360, 1},   {1279, 720, 1},  {1280, 719, 1},
                            {1280, 720, 2}, {1920, 1080, 3}, {2560, 1440, 4}, {7680, 4320, 4}, {4000, 400, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        cr_assert_eq(sr_overlay_text_scale(sizes[i][0], sizes[i][1]), sizes[i][2], "%dx%d", sizes[i][0], sizes[i][1]);
}
