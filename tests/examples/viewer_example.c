/* viewer_example.c — the README's embedded-viewer example: a program that owns its scene (a
 * ground and a few boxes), runs its own "physics" (boxes falling, bouncing on the ground and
 * orbiting a pole), moves the nodes with sr_scene_set_transform, draws its contacts and
 * velocities into its own debug list, and calls sr_viewer_frame once per pass of its loop.
 * It stops when the user closes the window or after FRAMES frames (the argument; 0 = forever),
 * and prints the last pick. Built and run by the test suite under SDL's dummy driver (no display):
 *   SDL_VIDEODRIVER=dummy ./build/tests/viewer_example 120 */
#include <softrast/softrast.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BOXES 5

typedef struct body {
    sr_node_id node;
    sr_vec3 position, velocity;
    float half; ///< half the box's side
    float angle;
} body;

static bool fail(const sr_error *err)
{
    fprintf(stderr, "viewer_example: %s\n", err->message);
    return false;
}

/* The scene the program owns: a ground plane and BOXES boxes. */
static bool build_scene(sr_scene **out, body bodies[BOXES], sr_error *err)
{
    sr_scene *scene = NULL;
    sr_mesh *ground = NULL, *box = NULL;
    sr_mesh_id ground_mesh, box_mesh;
    sr_material_id grey, orange;
    sr_node_id node;
    if (sr_scene_create(&(sr_scene_desc){.name = "falling boxes"}, &scene, err) ||
        sr_mesh_create_plane(12.0f, 1, 1.0f, &ground, err) ||
        sr_scene_add_mesh(scene, ground, "ground", &ground_mesh, err) ||
        sr_mesh_create_box(sr_vec3_splat(1.0f), 1, &box, err) || sr_scene_add_mesh(scene, box, "box", &box_mesh, err) ||
        sr_scene_add_material(scene, &(sr_material_desc){.base_color = {0.55f, 0.55f, 0.6f, 1}}, &grey, err) ||
        sr_scene_add_material(scene, &(sr_material_desc){.base_color = {0.95f, 0.55f, 0.2f, 1}}, &orange, err) ||
        sr_scene_add_node(scene, &(sr_node_desc){.name = "ground", .mesh = ground_mesh, .material = grey}, &node,
                          err)) {
        sr_scene_destroy(scene);
        return fail(err);
    }
    for (int i = 0; i < BOXES; i++) {
        char name[16];
        snprintf(name, sizeof name, "box %d", i);
        body *b = &bodies[i];
        b->half = 0.25f + 0.05f * (float)i;
        b->position = sr_vec3_make(-2.0f + (float)i, 1.5f + 0.7f * (float)i, 0.0f);
        b->velocity = sr_vec3_make(0.0f, 0.0f, 0.0f);
        b->angle = 0.0f;
        sr_transform t = {.translation = b->position, .scale = sr_vec3_splat(b->half)};
        if (sr_scene_add_node(scene,
                              &(sr_node_desc){.name = name, .mesh = box_mesh, .material = orange, .transform = t},
                              &b->node, err)) {
            sr_scene_destroy(scene);
            return fail(err);
        }
    }
    sr_scene_set_camera(scene, &(sr_camera){.eye = {0, 4, 9}, .target = {0, 0.8f, 0}});
    if (sr_scene_update(scene, NULL, err)) {
        sr_scene_destroy(scene);
        return fail(err);
    }
    *out = scene;
    return true;
}

/* One step of made-up physics: gravity, a bounce on the ground, and a slow orbit around the
 * pole at the origin. Fills `list` with each box's ground contact and velocity. */
static void step(sr_scene *scene, body bodies[BOXES], float dt, sr_debug_list *list)
{
    for (int i = 0; i < BOXES; i++) {
        body *b = &bodies[i];
        b->velocity.y -= 9.81f * dt;
        b->position = sr_vec3_add(b->position, sr_vec3_scale(b->velocity, dt));
        bool contact = b->position.y < b->half;
        if (contact) {
            b->position.y = b->half;
            b->velocity.y = -b->velocity.y * 0.6f;
        }
        // Orbit the pole: turn the position about +Y by a small angle.
        float turn = 0.4f * dt, c = cosf(turn), s = sinf(turn);
        b->position =
            sr_vec3_make(c * b->position.x + s * b->position.z, b->position.y, -s * b->position.x + c * b->position.z);
        b->angle += turn;
        sr_transform t = {.translation = b->position,
                          .rotation = sr_quat_from_euler_degrees(sr_vec3_make(0, b->angle * 57.29578f, 0)),
                          .scale = sr_vec3_splat(b->half)};
        sr_scene_set_transform(scene, b->node, t, NULL);
        sr_vec3 foot = sr_vec3_make(b->position.x, 0.0f, b->position.z);
        uint32_t color = contact ? 0xff4040ffu : 0xff40e060u; // red at a contact, green in the air
        sr_debug_point(list, foot, 10.0f, (sr_debug_style){.color = color, .width = 2, .on_top = true});
        sr_debug_arrow(list, b->position, sr_vec3_add(b->position, sr_vec3_scale(b->velocity, 0.15f)),
                       (sr_debug_style){.color = 0xffffff40u, .on_top = true});
    }
    sr_debug_text_2d(list, 8.0f, 690.0f, "viewer_example: the program's own debug list (contacts, velocities)",
                     (sr_debug_style){.color = SR_DEBUG_WHITE});
}

int main(int argc, char **argv)
{
    long frames = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    sr_error err = {0};
    body bodies[BOXES];
    sr_scene *scene = NULL;
    if (!build_scene(&scene, bodies, &err))
        return 1;
    sr_viewer *viewer = NULL;
    sr_debug_list *list = NULL;
    if (sr_viewer_create(&(sr_viewer_desc){.title = "viewer_example", .width = 960, .height = 720}, scene, &viewer,
                         &err) ||
        sr_debug_list_create(NULL, &list, &err)) {
        fail(&err);
        sr_viewer_destroy(viewer);
        sr_scene_destroy(scene);
        return 1;
    }
    int status = 0;
    for (long frame = 0; frames == 0 || frame < frames; frame++) {
        sr_debug_list_clear(list, NULL);
        step(scene, bodies, 1.0f / 60.0f, list);
        sr_viewer_request_redraw(viewer); // the scene moved under the viewer
        if (!sr_viewer_frame(viewer, list, &err)) {
            if (err.status != SR_OK)
                status = fail(&err) ? 0 : 1;
            break;
        }
    }
    sr_pick_hit hit;
    if (sr_viewer_last_pick(viewer, &hit) && hit.hit)
        printf("viewer_example: last pick node %u, triangle %u, t %.3f\n", hit.node.index, hit.triangle, (double)hit.t);
    sr_viewer_stats stats = sr_viewer_get_stats(viewer);
    printf("viewer_example: %llu frames, median %.2f ms per frame\n", (unsigned long long)stats.frames,
           stats.median_frame_ms);
    sr_debug_list_destroy(list);
    sr_viewer_destroy(viewer); // before the scene: the viewer does not own it
    sr_scene_destroy(scene);
    return status;
}
