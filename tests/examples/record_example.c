/* record_example.c — the README's recording example: a made-up physics step (balls and crates
 * falling onto a ground and bouncing) whose scene and debug lists are recorded every frame, with
 * a message when a body first lands. Each body and the ground carry a collision shape (a sphere, a
 * box), so the collision pass and its overlays work on the recording (`softrast replay --overlay
 * contacts`). The file is then played with `softrast replay` or `softrast view`. Built and run by the test suite (tests/meson.build: meson test record_example).
 *
 *   record_example OUT.srrec [FRAMES]   (default 240 frames, 4 seconds at 60 Hz) */
#include <softrast/softrast.h>

#include <stdio.h>
#include <stdlib.h>

#define BODIES 12

typedef struct body {
    sr_node_id node; ///< unscaled, with the collision shape (shapes take no scale)
    sr_node_id mesh; ///< its child: the mesh, scaled to the body's radius
    sr_vec3 position, velocity;
    float radius;
    bool crate, landed;
} body;

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "pile.srrec";
    int frames = argc > 2 ? atoi(argv[2]) : 240;
    sr_error err;
    sr_scene *scene;
    sr_mesh *ball_mesh, *crate_mesh, *ground_mesh;
    sr_mesh_id ball, crate, ground;
    sr_material_id stone, orange, wood;
    sr_debug_list *lists[2]; // what the program draws: its shapes, and its contacts
    if (sr_scene_create(&(sr_scene_desc){.name = "falling pile"}, &scene, &err) ||
        sr_mesh_create_sphere(1.0f, 24, 12, &ball_mesh, &err) ||
        sr_scene_add_mesh(scene, ball_mesh, "ball", &ball, &err) ||
        sr_mesh_create_box(sr_vec3_make(1, 1, 1), 1, &crate_mesh, &err) ||
        sr_scene_add_mesh(scene, crate_mesh, "crate", &crate, &err) ||
        sr_mesh_create_plane(8.0f, 8, 1.0f, &ground_mesh, &err) ||
        sr_scene_add_mesh(scene, ground_mesh, "ground", &ground, &err) ||
        sr_scene_add_material(scene, &(sr_material_desc){.name = "stone", .base_color = {0.35f, 0.38f, 0.42f, 1}},
                              &stone, &err) ||
        sr_scene_add_material(scene, &(sr_material_desc){.name = "orange", .base_color = {0.9f, 0.5f, 0.2f, 1}},
                              &orange, &err) ||
        sr_scene_add_material(scene, &(sr_material_desc){.name = "wood", .base_color = {0.6f, 0.45f, 0.3f, 1}}, &wood,
                              &err) ||
        sr_scene_add_node(scene,
                          &(sr_node_desc){.name = "ground",
                                          .mesh = ground,
                                          .material = stone,
                                          .shape = &(sr_node_shape_desc){.shape = sr_shape_box((sr_dvec3){4, 0, 4})}},
                          NULL, &err) ||
        sr_debug_list_create(NULL, &lists[0], &err) || sr_debug_list_create(NULL, &lists[1], &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    sr_scene_set_camera(scene, &(sr_camera){.eye = {0, 4.5f, 9}, .target = {0, 1, 0}});
    body bodies[BODIES];
    for (int i = 0; i < BODIES; i++) {
        body *b = &bodies[i];
        *b = (body){.position = {(float)(i % 4) * 1.5f - 2.25f, 1.5f + (float)i * 0.6f, (float)(i / 4) - 1.0f},
                    .velocity = {0.4f * (float)(i % 3) - 0.4f, 0, 0},
                    .radius = 0.3f + 0.05f * (float)(i % 3),
                    .crate = i % 2 == 1};
        char name[32];
        snprintf(name, sizeof name, "%s %d", b->crate ? "crate" : "ball", i);
        // The body's node carries its shape (a collision proxy: its mesh is drawn), its child the
        // mesh scaled to the radius.
        double r = b->radius;
        sr_node_shape_desc shape = {.shape = b->crate ? sr_shape_box((sr_dvec3){r, r, r}) : sr_shape_sphere(r),
                                    .draw = SR_SHAPE_DRAW_NONE};
        sr_transform t = {b->position, {0, 0, 0, 1}, {1, 1, 1}};
        sr_transform scaled = {{0, 0, 0}, {0, 0, 0, 1}, {b->radius, b->radius, b->radius}};
        if (sr_scene_add_node(scene, &(sr_node_desc){.name = name, .transform = t, .shape = &shape}, &b->node, &err) ||
            sr_scene_add_node(scene,
                              &(sr_node_desc){.name = name, // what a click on it names
                                              .parent = b->node,
                                              .transform = scaled,
                                              .mesh = b->crate ? crate : ball,
                                              .material = b->crate ? wood : orange},
                              &b->mesh, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
    }

    // Record: one call per frame, after the step; the recorder keeps what the program drew.
    const char *names[] = {"shapes", "contacts"};
    sr_recorder *rec;
    if (sr_recorder_create(out,
                           &(sr_recorder_desc){.title = "record_example", .list_names = names, .list_name_count = 2},
                           &rec, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const float dt = 1.0f / 60.0f;
    for (int f = 0; f < frames; f++) {
        sr_debug_list_clear(lists[0], NULL);
        sr_debug_list_clear(lists[1], NULL);
        for (int i = 0; i < BODIES; i++) {
            body *b = &bodies[i];
            b->velocity.y -= 9.81f * dt;
            b->position = sr_vec3_add(b->position, sr_vec3_scale(b->velocity, dt));
            if (b->position.y < b->radius) { // the ground: bounce, losing a third of the speed
                b->position.y = b->radius;
                b->velocity.y = -b->velocity.y * 0.66f;
                sr_debug_dot(lists[1], sr_vec3_make(b->position.x, 0.0f, b->position.z), 8.0f,
                             sr_debug_style_make(SR_DEBUG_RED, 1, true));
                if (!b->landed) {
                    char text[64];
                    snprintf(text, sizeof text, "%s %d landed", b->crate ? "crate" : "ball", i);
                    sr_recorder_message(rec, SR_RECORD_INFO, text, NULL);
                    b->landed = true;
                }
            }
            sr_transform t = {b->position, sr_quat_from_euler_degrees(sr_vec3_make(0, 40.0f * b->position.x, 0)),
                              {1, 1, 1}};
            sr_scene_set_transform(scene, b->node, t, NULL);
            sr_debug_style outline = sr_debug_style_color(b->landed ? SR_DEBUG_GREEN : SR_DEBUG_YELLOW);
            if (b->crate) {
                sr_aabb box = {{-b->radius, -b->radius, -b->radius}, {b->radius, b->radius, b->radius}};
                sr_debug_box(lists[0], box, sr_transform_matrix((sr_transform){t.translation, t.rotation, {1, 1, 1}}),
                             outline);
            } else {
                sr_debug_sphere_oriented(lists[0], b->position, t.rotation, b->radius, outline);
            }
            sr_debug_arrow(lists[0], b->position, sr_vec3_add(b->position, sr_vec3_scale(b->velocity, 0.15f)),
                           sr_debug_style_color(SR_DEBUG_CYAN));
        }
        if (sr_recorder_frame(rec, f * (double)dt, lists, 2, scene, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
    }
    sr_recorder_stats stats = sr_recorder_get_stats(rec);
    if (sr_recorder_close(rec, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    printf("recorded %llu frames into %s (%llu bytes)\n", (unsigned long long)stats.frames, out,
           (unsigned long long)stats.bytes.total);
    sr_debug_list_destroy(lists[0]);
    sr_debug_list_destroy(lists[1]);
    sr_scene_destroy(scene);
    return 0;
}
