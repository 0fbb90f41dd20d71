/* viewer_example.c — the embedded viewer, as a physics program uses it: the program owns its scene
 * (a ground and a few boxes), runs its own "physics" (boxes falling, bouncing on the ground and
 * orbiting a pole), moves the nodes with sr_scene_set_transform, refills its own debug list
 * (contacts, velocities) every step, puts its step count in the HUD, takes the keys the viewer
 * does not use (Space pauses, Return steps once while paused) and calls sr_viewer_frame once per
 * pass of its loop: moved nodes and a refilled list are drawn without any other call, and clicks
 * pick the moving boxes. It stops when the user closes the window or after FRAMES frames (the
 * first argument; 0 = forever), saves the last frame as OUT (the second, optional: what the
 * window shows, the program's lines included) and prints the last pick. Built and run by the test
 * suite under SDL's dummy driver (no display):
 *   SDL_VIDEODRIVER=dummy ./build/tests/viewer_example 120 frame.png */
#include <softrast/softrast.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BOXES 5

/* The program's state the input callback changes. */
typedef struct controls {
    bool paused;
    int steps_wanted; ///< steps to take while paused (Return)
} controls;

/* The keys the viewer has no use for come here (sr_viewer_desc.input). SDL keycodes of printable
 * keys are their characters; SDLK_RETURN is '\r'. */
static bool on_input(void *user, const sr_viewer_event *event)
{
    controls *c = (controls *)user;
    if (event->type == SR_VIEWER_EVENT_KEY_DOWN && !event->repeat) {
        if (event->key == ' ')
            c->paused = !c->paused;
        else if (event->key == '\r' && c->paused)
            c->steps_wanted++;
    }
    return false;
}

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
        uint32_t color = contact ? SR_DEBUG_RED : SR_DEBUG_GREEN; // red at a contact, green in the air
        sr_debug_point(list, foot, 10.0f, sr_debug_style_make(color, 2, true));
        sr_debug_arrow(list, b->position, sr_vec3_add(b->position, sr_vec3_scale(b->velocity, 0.15f)),
                       sr_debug_style_make(SR_DEBUG_CYAN, 1, true));
    }
}

int main(int argc, char **argv)
{
    long frames = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    const char *out = argc > 2 ? argv[2] : NULL;
    sr_error err = {0};
    body bodies[BOXES];
    sr_scene *scene = NULL;
    if (!build_scene(&scene, bodies, &err))
        return 1;
    controls keys = {0};
    sr_viewer *viewer = NULL;
    sr_debug_list *list = NULL;
    sr_viewer_desc desc = {.title = "viewer_example", .width = 960, .height = 720, .input = on_input, .user = &keys};
    if (sr_viewer_create(&desc, scene, &viewer, &err) || sr_debug_list_create(NULL, &list, &err)) {
        fail(&err);
        sr_viewer_destroy(viewer);
        sr_scene_destroy(scene);
        return 1;
    }
    int status = 0;
    long steps = 0;
    for (long frame = 0; frames == 0 || frame < frames; frame++) {
        if (!keys.paused || keys.steps_wanted > 0) {
            keys.steps_wanted -= keys.steps_wanted > 0;
            // The list is refilled in place each step: the viewer notices (sr_debug_list_generation).
            sr_debug_list_clear(list, NULL);
            step(scene, bodies, 1.0f / 60.0f, list);
            steps++;
        }
        char hud[128];
        snprintf(hud, sizeof hud, "viewer_example: step %ld%s (Space pauses, Return steps)", steps,
                 keys.paused ? ", paused" : "");
        sr_viewer_set_hud_text(viewer, hud);
        if (!sr_viewer_frame(viewer, list, &err)) {
            if (err.status != SR_OK)
                status = fail(&err) ? 0 : 1;
            break;
        }
    }
    if (status == 0 && out && sr_viewer_save_frame(viewer, out, &err) != SR_OK)
        status = fail(&err) ? 0 : 1;
    else if (status == 0 && out)
        printf("viewer_example: saved %s\n", out);
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
