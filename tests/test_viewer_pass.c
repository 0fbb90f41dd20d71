/* tests/test_viewer_pass.c — the viewer's collision pass runs on a thread of its own while the
 * scene is drawn (src/viewer/viewer_pass.c): frame after frame of a pile of shapes that move,
 * with the contacts, closest and pairs overlays on, the viewer's picture must be the one made
 * independently in this process from a second, identical scene moved the same way: drawn with
 * sr_scene_render on one thread, the pass sr_scene_collide run after it, and the overlays added
 * and drawn as `softrast render --overlay` adds them (a pass over stale poses, or overlays drawn
 * before the pass ended, would change the contacts' pixels). SDL's dummy driver. */
#include <criterion/criterion.h>

#include <math.h>
#include <softrast/softrast.h>
#include <stdlib.h>
#include <string.h>

#define SIDE 4
#define SHAPES (SIDE * SIDE * SIDE)
#define FRAMES 4

static void init(void)
{
    setenv("SDL_VIDEODRIVER", "dummy", 0);
}

/* A pile of SHAPES spheres, boxes and capsules on a grid of spacing 1 whose sizes make
 * neighbours touch, overlap or come near. */
static sr_scene *make_pile(sr_node_id nodes[SHAPES])
{
    sr_error err = {0};
    sr_scene *scene = NULL;
    cr_assert_eq(sr_scene_create(NULL, &scene, &err), SR_OK, "%s", err.message);
    sr_material_id materials[3];
    for (int m = 0; m < 3; m++) {
        sr_material_desc material = {.cull = SR_CULL_BACK};
        material.base_color = sr_vec4_make(0.3f + 0.3f * (float)m, 0.8f - 0.2f * (float)m, 0.5f, 1.0f);
        cr_assert_eq(sr_scene_add_material(scene, &material, &materials[m], &err), SR_OK, "%s", err.message);
    }
    for (int i = 0; i < SHAPES; i++) {
        const double size = 0.45 + 0.05 * (double)(i % 4);
        sr_shape shape = i % 3 == 0   ? sr_shape_sphere(size)
                         : i % 3 == 1 ? sr_shape_box((sr_dvec3){size, 0.8 * size, 0.9 * size})
                                      : sr_shape_capsule(0.5 * size, 0.6 * size);
        sr_node_shape_desc desc = {.shape = shape, .draw = SR_SHAPE_DRAW_SOLID};
        sr_transform t = sr_transform_identity();
        t.translation = sr_vec3_make((float)(i % SIDE), (float)(i / SIDE % SIDE), (float)(i / (SIDE * SIDE)));
        cr_assert_eq(sr_scene_add_node(
                         scene,
                         &(sr_node_desc){.name = "shape", .transform = t, .material = materials[i % 3], .shape = &desc},
                         &nodes[i], &err),
                     SR_OK, "%s", err.message);
    }
    cr_assert_eq(sr_scene_update(scene, NULL, &err), SR_OK, "%s", err.message);
    return scene;
}

/* Frame f's poses: every shape wobbles and turns a little, differently. */
static void move_pile(sr_scene *scene, const sr_node_id nodes[SHAPES], int f)
{
    sr_error err = {0};
    for (int i = 0; i < SHAPES; i++) {
        const float phase = 0.7f * (float)i + 0.9f * (float)f;
        sr_transform t = sr_transform_identity();
        t.translation =
            sr_vec3_make((float)(i % SIDE) + 0.12f * sinf(phase), (float)(i / SIDE % SIDE) + 0.1f * cosf(phase),
                         (float)(i / (SIDE * SIDE)) + 0.08f * sinf(2.0f * phase));
        t.rotation =
            sr_quat_from_axis_angle(sr_vec3_normalize(sr_vec3_make(1.0f, (float)(i % 5) - 2.0f, 0.5f)), 0.4f * phase);
        cr_assert_eq(sr_scene_set_transform(scene, nodes[i], t, &err), SR_OK, "%s", err.message);
    }
}

/* The picture of `softrast render SCENE --overlay contacts,closest,pairs`, made from the API. */
static void reference_picture(sr_scene *scene, const sr_camera *camera, sr_renderer *renderer, sr_framebuffer *fb,
                              sr_scene_frame *frame, sr_collision *collision, sr_debug_list *list, uint32_t *contacts)
{
    sr_error err = {0};
    cr_assert_eq(sr_scene_render(scene, &(sr_scene_render_desc){.camera = camera}, renderer, fb, frame, &err), SR_OK,
                 "%s", err.message);
    cr_assert_eq(sr_scene_collide(scene, NULL, collision, &err), SR_OK, "%s", err.message);
    *contacts = collision->stats.contacts;
    sr_overlay_desc desc = {.items = SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS,
                            .cull_camera = camera,
                            .collision = collision};
    for (int attempt = 0; attempt < 2; attempt++) {
        cr_assert_eq(sr_debug_list_clear(list, &err), SR_OK, "%s", err.message);
        cr_assert_eq(sr_overlay_add(scene, frame, camera, fb->width, fb->height, &desc, list, &err), SR_OK, "%s",
                     err.message);
        if (sr_debug_list_get_stats(list).items_dropped == 0)
            break;
    }
    sr_mat4 view, projection;
    sr_camera_matrices(camera, fb->width, fb->height, &view, &projection);
    cr_assert_eq(sr_debug_draw(list, renderer, fb, sr_mat4_mul(projection, view), &err), SR_OK, "%s", err.message);
}

Test(viewer_pass, moving_shapes_with_collision_overlays_draw_the_pass_of_each_frame, .init = init, .timeout = 120)
{
    sr_node_id shown_nodes[SHAPES], reference_nodes[SHAPES];
    sr_scene *shown = make_pile(shown_nodes), *reference = make_pile(reference_nodes);
    sr_error err = {0};
    sr_viewer *viewer = NULL;
    cr_assert_eq(
        sr_viewer_create(
            &(sr_viewer_desc){.title = "test_viewer_pass", .width = 320, .height = 240, .threads = 2, .hidden = true},
            shown, &viewer, &err),
        SR_OK, "%s", err.message);
    sr_camera camera = sr_camera_fit_box(sr_scene_bounds(shown), sr_vec3_make(0.3f, 1.0f, 0.2f), 320.0f / 240.0f);
    cr_assert_eq(sr_viewer_set_camera(viewer, &camera, &err), SR_OK, "%s", err.message);
    sr_viewer_set_overlays(viewer, SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS);

    sr_renderer *renderer = NULL;
    sr_framebuffer *fb = NULL;
    sr_scene_frame *frame = NULL;
    sr_collision *collision = NULL;
    sr_debug_list *list = NULL;
    const sr_framebuffer *viewer_fb = sr_viewer_framebuffer(viewer);
    cr_assert_eq(sr_renderer_create(NULL, &renderer, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = viewer_fb->width, .height = viewer_fb->height},
                                       &fb, &err),
                 SR_OK, "%s", err.message);
    cr_assert_eq(sr_scene_frame_create(&frame, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_collision_create(&collision, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_debug_list_create(NULL, &list, &err), SR_OK, "%s", err.message);
    uint32_t contact_counts[FRAMES];
    for (int f = 0; f < FRAMES; f++) {
        move_pile(shown, shown_nodes, f);
        move_pile(reference, reference_nodes, f);
        cr_assert(sr_viewer_frame(viewer, NULL, &err), "sr_viewer_frame: %s", err.message);
        sr_camera view = sr_viewer_camera(viewer);
        reference_picture(reference, &view, renderer, fb, frame, collision, list, &contact_counts[f]);
        cr_assert_gt(contact_counts[f], 0, "frame %d: the pile has contacts", f);
        viewer_fb = sr_viewer_framebuffer(viewer);
        cr_assert(viewer_fb->width == fb->width && viewer_fb->height == fb->height);
        size_t different = 0, first = 0;
        for (size_t i = 0; i < (size_t)fb->width * (size_t)fb->height; i++)
            if (viewer_fb->color[i] != fb->color[i] && different++ == 0)
                first = i;
        cr_assert_eq(different, 0, "frame %d: %zu pixels differ from the reference, the first (%zu, %zu)", f, different,
                     first % (size_t)fb->width, first / (size_t)fb->width);
    }
    bool changed = false;
    for (int f = 1; f < FRAMES; f++)
        changed = changed || contact_counts[f] != contact_counts[0];
    cr_assert(changed, "the motion changes the contacts (%u in every frame)", contact_counts[0]);
    sr_debug_list_destroy(list);
    sr_collision_destroy(collision);
    sr_scene_frame_destroy(frame);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    sr_viewer_destroy(viewer);
    sr_scene_destroy(shown);
    sr_scene_destroy(reference);
}
