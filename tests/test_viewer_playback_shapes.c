/* test_viewer_playback_shapes.c — the viewer's pair of shapes on a recording (`softrast view
 * RECORDING`, format 1.1's collision shapes), driven by a script under SDL's dummy video driver:
 * a pair selected by name at a frame, its answer (print-pair) the signed distance computed here from
 * the recorded poses, the selection kept while scrubbing (the answer following the bodies), and
 * the GJK trace and Minkowski view drawn; and `softrast replay --overlay` drawing the collision
 * overlays of the recorded shapes as this process draws them. The recording is made here with softrast/record.h: a
 * ball falling onto a box. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <softrast/record.h>
#include <softrast/scene_collide.h>
#include <stb_image.h>

#include "run_program.h"

#define FRAMES 20
#define BALL_R 0.5
#define BOX_HALF 0.5

static void init(void)
{
    setenv("SDL_VIDEODRIVER", "dummy", 0);
}

/* The ball's height at frame f: from 3 down to 0.8 (sinking 0.2 into the box's top at y = 0.5). */
static double ball_y(int f)
{
    return 3.0 - 2.2 * f / (FRAMES - 1);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static void record(const char *path)
{
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(&(sr_scene_desc){.name = "drop"}, &scene, &err), SR_OK);
    sr_camera camera = sr_scene_camera(scene);
    camera.eye = sr_vec3_make(0, 1.5f, 6);
    camera.target = sr_vec3_make(0, 1, 0);
    sr_scene_set_camera(scene, &camera);
    sr_node_id ball, box;
    sr_transform t = sr_transform_identity();
    cr_assert_eq(sr_scene_add_node(scene,
                                   &(sr_node_desc){.name = "box",
                                                   .transform = t,
                                                   .shape = &(sr_node_shape_desc){.shape = sr_shape_box(
                                                                                      (sr_dvec3){BOX_HALF, BOX_HALF,
                                                                                                 BOX_HALF})}},
                                   &box, &err),
                 SR_OK, "%s", err.message);
    t.translation.y = (float)ball_y(0);
    cr_assert_eq(sr_scene_add_node(
                     scene,
                     &(sr_node_desc){.name = "ball",
                                     .transform = t,
                                     .shape = &(sr_node_shape_desc){.shape = sr_shape_sphere(BALL_R)}},
                     &ball, &err),
                 SR_OK, "%s", err.message);
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, &err), SR_OK);
    for (int f = 0; f < FRAMES; f++) {
        t.translation.y = (float)ball_y(f);
        cr_assert_eq(sr_scene_set_transform(scene, ball, t, &err), SR_OK);
        cr_assert_eq(sr_recorder_frame(rec, f / 60.0, NULL, 0, scene, &err), SR_OK, "%s", err.message);
    }
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK);
    sr_scene_destroy(scene);
}

static int json_lines(const char *text, cJSON **lines, int most)
{
    int count = 0;
    for (const char *p = text; *p && count < most;) {
        const char *end = strchr(p, '\n');
        cr_assert_not_null(end);
        if (*p == '{') {
            size_t length = (size_t)(end - p);
            char *line = malloc(length + 1);
            memcpy(line, p, length);
            line[length] = '\0';
            lines[count] = cJSON_Parse(line);
            cr_assert_not_null(lines[count], "not JSON: %s", line);
            free(line);
            count++;
        }
        p = end + 1;
    }
    return count;
}

static const cJSON *object_of(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItem(object, key);
    cr_assert(cJSON_IsObject(item), "no object '%s'", key);
    return item;
}

static double number_of(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItem(object, key);
    cr_assert(cJSON_IsNumber(item), "no number '%s'", key);
    return item->valuedouble;
}

/* The pair's signed distance from the poses print-pair reports (the ball's centre over the box's
 * top face: its height above the face minus the radius). */
static void assert_answer(const cJSON *pair, int f)
{
    const cJSON *a = object_of(pair, "a"), *b = object_of(pair, "b");
    cr_assert_str_eq(cJSON_GetObjectItem(a, "name")->valuestring, "ball");
    cr_assert_str_eq(cJSON_GetObjectItem(b, "name")->valuestring, "box");
    const cJSON *position = cJSON_GetObjectItem(a, "position");
    cr_assert(cJSON_IsArray(position) && cJSON_GetArraySize(position) == 3);
    double y = cJSON_GetArrayItem(position, 1)->valuedouble;
    cr_assert(fabs(y - ball_y(f)) < 1e-6, "frame %d: the ball at y %g, recorded at %g", f, y, ball_y(f));
    double expected = y - BOX_HALF - BALL_R;
    double distance = number_of(object_of(pair, "answer"), "distance");
    cr_assert(fabs(distance - expected) < 1e-6, "frame %d: distance %.9g, expected %.9g", f, distance, expected);
}

Test(playback_shapes, a_pair_selected_on_a_recording_answers_as_the_recorded_poses_say, .init = init,
     .timeout = 120)
{
    char dir[64], file[128], script[1024], path[160];
    make_temp_dir(dir);
    snprintf(file, sizeof file, "%s/drop.srrec", dir);
    record(file);
    snprintf(path, sizeof path, "%s/script.txt", dir);
    snprintf(script, sizeof script,
             "frame 4\nselect ball box\nprint-pair\nframe %d\nprint-pair\nkey Left\nprint-pair\nkey G\n"
             "save %s/gjk.png\nprint-pair\nkey M\nsave %s/minkowski.png\nprint-state\n",
             FRAMES - 1, dir, dir);
    write_file(path, script);
    run_result r = run((const char *[]){"view", file, "--size", "640x360", "--script", path, NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *lines[8];
    int count = json_lines(r.out, lines, 8);
    cr_assert_eq(count, 5, "%s", r.out);
    assert_answer(lines[0], 4); // apart
    cr_assert_gt(number_of(object_of(lines[0], "answer"), "distance"), 0);
    assert_answer(lines[1], FRAMES - 1); // sunk 0.2 into the box
    cr_assert_lt(number_of(object_of(lines[1], "answer"), "distance"), 0);
    assert_answer(lines[2], FRAMES - 2); // the selection kept while stepping back
    const cJSON *query = cJSON_GetObjectItem(lines[3], "query");
    cr_assert(cJSON_IsString(query) && strcmp(query->valuestring, "gjk") == 0, "the GJK trace is shown");
    cr_assert_gt(number_of(lines[3], "steps"), 0, "the trace has steps");
    for (int i = 0; i < count; i++)
        cJSON_Delete(lines[i]);
    char image[160];
    snprintf(image, sizeof image, "%s/minkowski.png", dir);
    cr_assert_gt(file_size(image), 1000, "the Minkowski view was saved");
    if (getenv("SOFTRAST_KEEP_IMAGES")) {
        char command[400];
        snprintf(command, sizeof command, "cp %s/gjk.png %s/minkowski.png %s/", dir, dir, getenv("SOFTRAST_KEEP_IMAGES"));
        cr_assert_eq(system(command), 0);
    }
    remove_dir(dir);
}

/* ---- softrast replay --overlay ---- */

Test(playback_shapes, replay_draws_the_collision_overlays_of_the_recorded_shapes, .init = init, .timeout = 120)
{
    char dir[64], file[128], pattern[160], image_path[160];
    make_temp_dir(dir);
    snprintf(file, sizeof file, "%s/drop.srrec", dir);
    record(file);
    snprintf(pattern, sizeof pattern, "%s/f%%02d.png", dir);
    run_result r = run((const char *[]){"replay", file, "--frames", "19", "--out", pattern, "--size", "320x180",
                                        "--overlay", "contacts,closest,pairs", NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    snprintf(image_path, sizeof image_path, "%s/f19.png", dir);
    int width = 0, height = 0, channels = 0;
    unsigned char *got = stbi_load(image_path, &width, &height, &channels, 4);
    cr_assert_not_null(got);
    cr_assert(width == 320 && height == 180);

    // The same frame drawn here: the recording, then the pass over its scene and the overlays.
    sr_error err = {0};
    sr_recording *rec = NULL;
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    sr_scene_frame *scene_frame = NULL;
    sr_collision *collision = NULL;
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_recording_open(file, NULL, &rec, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = 320, .height = 180}, &fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(NULL, &renderer, NULL), SR_OK);
    cr_assert_eq(sr_scene_frame_create(&scene_frame, NULL), SR_OK);
    cr_assert_eq(sr_collision_create(&collision, NULL), SR_OK);
    cr_assert_eq(sr_debug_list_create(NULL, &list, NULL), SR_OK);
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(rec, 19, &frame, &err), SR_OK, "%s", err.message);
    sr_camera camera;
    cr_assert_eq(sr_recording_render(rec, renderer, fb,
                                     &(sr_recording_render_desc){.scene_frame = scene_frame, .camera_used = &camera},
                                     &err),
                 SR_OK, "%s", err.message);
    cr_assert_eq(sr_scene_collide(frame.scene, NULL, collision, &err), SR_OK, "%s", err.message);
    cr_assert_eq(collision->contact_count, 1, "the ball sinks into the box at the last frame");
    sr_overlay_desc desc = {.items = SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS,
                            .collision = collision};
    cr_assert_eq(sr_overlay_add(frame.scene, scene_frame, &camera, 320, 180, &desc, list, &err), SR_OK, "%s",
                 err.message);
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, 320, 180, &view, &projection);
    cr_assert_eq(sr_debug_draw(list, renderer, fb, sr_mat4_mul(projection, view), &err), SR_OK);
    long differ = 0, contact_red = 0;
    for (size_t p = 0; p < 320u * 180u; p++) {
        uint32_t value = (uint32_t)got[4 * p] | (uint32_t)got[4 * p + 1] << 8 | (uint32_t)got[4 * p + 2] << 16 |
                         (uint32_t)got[4 * p + 3] << 24;
        differ += value != fb->color[p];
        contact_red += value == SR_OVERLAY_COLOR_CONTACT;
    }
    cr_assert_eq(differ, 0, "%ld pixels differ from the frame drawn here", differ);
    cr_assert_gt(contact_red, 10, "the contact's red dot is drawn");
    stbi_image_free(got);

    // Usage: an unknown item, and --overlay without --frames.
    r = run((const char *[]){"replay", file, "--frames", "1", "--out", pattern, "--overlay", "contact", NULL});
    cr_assert(r.exited && r.code == 2 && strstr(r.err, "--overlay"), "exit %d: %s", r.code, r.err);
    r = run((const char *[]){"replay", file, "--info", "--overlay", "contacts", NULL});
    cr_assert(r.exited && r.code == 2 && strstr(r.err, "go with --frames"), "exit %d: %s", r.code, r.err);

    sr_debug_list_destroy(list);
    sr_collision_destroy(collision);
    sr_scene_frame_destroy(scene_frame);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_recording_destroy(rec);
    remove_dir(dir);
}
