/* tests/test_cli_replay.c — `softrast replay` (src/app/cmd_replay.c) run as a user runs it: frames
 * rendered to PNG files equal to the library's own rendering of those frames and the same for any
 * thread count; --info describing the file; --check's exit statuses (0 clean, 3 truncated, 1
 * damaged or unreadable); usage errors (exit 2) before anything is written. */
#include "run_program.h"

#include <softrast/record.h>

#include <stb_image.h>

/* A recording of 8 frames: a scene of two boxes, one falling, and two lists. */
static void make_recording(const char *path, bool close)
{
    sr_scene *scene = NULL;
    cr_assert_eq(sr_scene_create(&(sr_scene_desc){.name = "replay"}, &scene, NULL), SR_OK);
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_box(sr_vec3_make(0.5f, 0.5f, 0.5f), 1, &mesh, NULL), SR_OK);
    sr_mesh_id box;
    cr_assert_eq(sr_scene_add_mesh(scene, mesh, "box", &box, NULL), SR_OK);
    sr_node_id falling, ground;
    sr_transform t = sr_transform_identity();
    t.translation.y = 2.0f;
    cr_assert_eq(
        sr_scene_add_node(scene, &(sr_node_desc){.name = "falling", .transform = t, .mesh = box}, &falling, NULL),
        SR_OK);
    t = sr_transform_identity();
    t.scale = sr_vec3_make(4.0f, 0.2f, 4.0f);
    cr_assert_eq(
        sr_scene_add_node(scene, &(sr_node_desc){.name = "ground", .transform = t, .mesh = box}, &ground, NULL), SR_OK);
    sr_scene_set_camera(scene, &(sr_camera){.eye = {3, 3, 6}, .target = {0, 0.5f, 0}});
    sr_debug_list *lists[2] = {NULL, NULL};
    cr_assert_eq(sr_debug_list_create(NULL, &lists[0], NULL), SR_OK);
    cr_assert_eq(sr_debug_list_create(NULL, &lists[1], NULL), SR_OK);
    const char *names[] = {"shapes", "contacts"};
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(
                     path,
                     &(sr_recorder_desc){
                         .title = "replay test", .list_names = names, .list_name_count = 2, .keyframe_interval = 3},
                     &rec, NULL),
                 SR_OK);
    for (int f = 0; f < 8; f++) {
        t = sr_transform_identity();
        t.translation.y = 2.0f - 0.2f * (float)f;
        t.rotation = sr_quat_from_euler_degrees(sr_vec3_make(0, 10.0f * (float)f, 0));
        cr_assert_eq(sr_scene_set_transform(scene, falling, t, NULL), SR_OK);
        sr_debug_list_clear(lists[0], NULL);
        sr_debug_list_clear(lists[1], NULL);
        sr_debug_box(lists[0], (sr_aabb){{-0.55f, -0.55f, -0.55f}, {0.55f, 0.55f, 0.55f}}, sr_transform_matrix(t),
                     sr_debug_style_make(SR_DEBUG_GREEN, 2, false));
        sr_debug_sphere(lists[0], sr_vec3_make(-1.5f, 1.0f, 0.0f), 0.5f, sr_debug_style_color(SR_DEBUG_YELLOW));
        sr_debug_dot(lists[1], sr_vec3_make(0.0f, t.translation.y - 0.5f, 0.0f), 8.0f,
                     sr_debug_style_color(SR_DEBUG_RED));
        sr_debug_arrow(lists[1], sr_vec3_make(1, 0.1f, 1), sr_vec3_make(1, 1.1f, 1),
                       sr_debug_style_color(SR_DEBUG_CYAN));
        if (f == 5)
            cr_assert_eq(sr_recorder_message(rec, SR_RECORD_ERROR, "tunnelled", NULL), SR_OK);
        cr_assert_eq(sr_recorder_frame(rec, f / 60.0, lists, 2, scene, NULL), SR_OK);
    }
    if (close) {
        cr_assert_eq(sr_recorder_close(rec, NULL), SR_OK);
    } else {
        // What a killed writer leaves: the frames, no index (and here a torn record after them).
        sr_recorder_stats stats = sr_recorder_get_stats(rec);
        cr_assert_eq(sr_recorder_close(rec, NULL), SR_OK);
        cr_assert_eq(truncate(path, (off_t)stats.bytes.total + 7), 0);
    }
    sr_debug_list_destroy(lists[0]);
    sr_debug_list_destroy(lists[1]);
    sr_scene_destroy(scene);
}

/* The pixels of a PNG file (malloc'd RGBA). */
static uint8_t *load_png(const char *path, int *width, int *height)
{
    int channels = 0;
    uint8_t *pixels = stbi_load(path, width, height, &channels, 4);
    cr_assert_not_null(pixels, "%s: %s", path, stbi_failure_reason());
    return pixels;
}

Test(replay, frames_match_the_library_and_any_thread_count, .timeout = 120)
{
    char dir[64], path[128], one[128], three[128], file_one[160], file_three[160];
    make_temp_dir(dir);
    snprintf(path, sizeof path, "%s/pile.srrec", dir);
    make_recording(path, true);
    snprintf(one, sizeof one, "%s/one_%%03d.png", dir);
    snprintf(three, sizeof three, "%s/three_%%03d.png", dir);
    run_result r = run((const char *[]){"replay", path, "--frames", "1:7:3", "--out", one, "--size", "160x120",
                                        "--threads", "1", NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.out, "wrote 3 frames") != NULL, "%s", r.out);
    r = run((const char *[]){"replay", path, "--frames", "1:7:3", "--out", three, "--size", "160x120", "--threads", "3",
                             NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert_eq(count_entries(dir), 7, "the recording and six images");

    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, NULL), SR_OK);
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = 160, .height = 120}, &fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(NULL, &renderer, NULL), SR_OK);
    for (int f = 1; f <= 7; f += 3) {
        snprintf(file_one, sizeof file_one, "%s/one_%03d.png", dir, f);
        snprintf(file_three, sizeof file_three, "%s/three_%03d.png", dir, f);
        int w = 0, h = 0, w3 = 0, h3 = 0;
        uint8_t *a = load_png(file_one, &w, &h), *b = load_png(file_three, &w3, &h3);
        cr_assert(w == 160 && h == 120 && w3 == 160 && h3 == 120);
        cr_assert_eq(memcmp(a, b, (size_t)w * h * 4), 0, "frame %d differs between 1 and 3 threads", f);
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, NULL, NULL), SR_OK);
        cr_assert_eq(sr_recording_render(recording, renderer, fb, NULL, NULL), SR_OK);
        cr_assert_eq(memcmp(a, fb->color, (size_t)w * h * 4), 0, "frame %d is not the library's rendering", f);
        stbi_image_free(a);
        stbi_image_free(b);
    }
    // --lists: the contacts alone differ from everything; fit and a camera spec draw something.
    char only[160], fit[160], spec[160];
    snprintf(only, sizeof only, "%s/only_%%d.png", dir);
    r = run((const char *[]){"replay", path, "--frames", "4", "--out", only, "--size", "160x120", "--lists", "contacts",
                             NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    snprintf(only, sizeof only, "%s/only_4.png", dir);
    snprintf(file_one, sizeof file_one, "%s/one_004.png", dir);
    int w, h;
    uint8_t *a = load_png(only, &w, &h), *b = load_png(file_one, &w, &h);
    cr_assert_neq(memcmp(a, b, (size_t)w * h * 4), 0, "hiding a list changed nothing");
    stbi_image_free(a);
    stbi_image_free(b);
    snprintf(fit, sizeof fit, "%s/fit_%%02d.png", dir);
    r = run(
        (const char *[]){"replay", path, "--frames", "0:", "--out", fit, "--size", "96x64", "--camera", "fit", NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.out, "wrote 8 frames (0 to 7") != NULL, "%s", r.out);
    snprintf(spec, sizeof spec, "%s/spec_%%d.bmp", dir);
    r = run((const char *[]){"replay", path, "--frames", "2", "--out", spec, "--size", "96x64", "--camera",
                             "eye=0,8,0.1:target=0,0,0", NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    sr_recording_destroy(recording);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    remove_dir(dir);
}

Test(replay, info_describes_the_file)
{
    char dir[64], path[128], crashed[128];
    make_temp_dir(dir);
    snprintf(path, sizeof path, "%s/pile.srrec", dir);
    snprintf(crashed, sizeof crashed, "%s/crashed.srrec", dir);
    make_recording(path, true);
    make_recording(crashed, false);
    run_result r = run((const char *[]){"replay", path, "--info", NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    const char *expected[] = {"recording: replay test",
                              "closed:    cleanly",
                              "frames:    8, times 0 to",
                              "a keyframe every 3",
                              "scene:     yes",
                              "lists:     2 (0 'shapes', 1 'contacts')",
                              "messages:  1",
                              "frame 5",
                              "error: tunnelled",
                              "boxes",
                              "spheres",
                              "dots",
                              "arrows",
                              "meshes",
                              "nodes",
                              "framing"};
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++)
        cr_assert(strstr(r.out, expected[i]) != NULL, "no '%s' in:\n%s", expected[i], r.out);
    r = run((const char *[]){"replay", crashed, "--info", NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.out, "closed:    no") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "note:") != NULL && strstr(r.out, "scanned 8 frames") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "frames:    8") != NULL, "%s", r.out);
    remove_dir(dir);
}

Test(replay, check_exit_status_says_clean_truncated_or_damaged)
{
    char dir[64], path[128], crashed[128], damaged[128], text[128], missing[128];
    make_temp_dir(dir);
    snprintf(path, sizeof path, "%s/pile.srrec", dir);
    snprintf(crashed, sizeof crashed, "%s/crashed.srrec", dir);
    snprintf(damaged, sizeof damaged, "%s/damaged.srrec", dir);
    snprintf(text, sizeof text, "%s/notes.txt", dir);
    snprintf(missing, sizeof missing, "%s/missing.srrec", dir);
    make_recording(path, true);
    make_recording(crashed, false);
    run_result r = run((const char *[]){"replay", path, "--check", NULL});
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "clean: 8 frames") != NULL, "%s", r.out);
    r = run((const char *[]){"replay", crashed, "--check", NULL});
    cr_assert_eq(r.code, 3, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "truncated: 8 frames readable") != NULL, "%s", r.out);
    // A byte changed in the middle of the file, which keeps its index: frames are lost.
    FILE *in = fopen(path, "rb");
    cr_assert_not_null(in);
    uint8_t bytes[65536];
    size_t size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    bytes[size / 2] ^= 0x10;
    FILE *out = fopen(damaged, "wb");
    fwrite(bytes, 1, size, out);
    fclose(out);
    r = run((const char *[]){"replay", damaged, "--check", NULL});
    cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
    cr_assert(strstr(r.out, "damaged") != NULL, "%s", r.out);
    out = fopen(text, "w");
    fputs("not a recording\n", out);
    fclose(out);
    r = run((const char *[]){"replay", text, "--check", NULL});
    cr_assert_eq(r.code, 1);
    cr_assert(strstr(r.err, text) != NULL && strstr(r.err, "not a softrast recording") != NULL, "%s", r.err);
    r = run((const char *[]){"replay", missing, "--info", NULL});
    cr_assert_eq(r.code, 1);
    cr_assert(strstr(r.err, missing) != NULL, "%s", r.err);
    // A crashed writer's frames still render, with a note.
    char pattern[160];
    snprintf(pattern, sizeof pattern, "%s/c_%%d.png", dir);
    r = run((const char *[]){"replay", crashed, "--frames", "7", "--out", pattern, "--size", "32x24", NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "note:") != NULL, "%s", r.err);
    remove_dir(dir);
}

Test(replay, usage_errors_exit_2_and_write_nothing)
{
    char dir[64], path[128], pattern[160], no_folder[160];
    make_temp_dir(dir);
    snprintf(path, sizeof path, "%s/pile.srrec", dir);
    make_recording(path, true);
    snprintf(pattern, sizeof pattern, "%s/f%%d.png", dir);
    snprintf(no_folder, sizeof no_folder, "%s/nowhere/f%%d.png", dir);
    const char *const cases[][12] = {
        {"replay", NULL},
        {"replay", path, NULL},
        {"replay", path, "--info", "--check", NULL},
        {"replay", path, "--frames", "0:3", NULL},
        {"replay", path, "--info", "--out", pattern, NULL},
        {"replay", path, "--frames", "0:3", "--out", "f.png", NULL},
        {"replay", path, "--frames", "0:3", "--out", "f%s.png", NULL},
        {"replay", path, "--frames", "0:3", "--out", "f%d_%d.png", NULL},
        {"replay", path, "--frames", "0:3", "--out", "f%d.jpg", NULL},
        {"replay", path, "--frames", "5:2", "--out", pattern, NULL},
        {"replay", path, "--frames", "0:3:0", "--out", pattern, NULL},
        {"replay", path, "--frames", "x", "--out", pattern, NULL},
        {"replay", path, "--frames", "3:20", "--out", pattern, NULL},
        {"replay", path, "--frames", "0", "--out", pattern, "--camera", "eye=1,2", NULL},
        {"replay", path, "--frames", "0", "--out", pattern, "--lists", "nothing", NULL},
        {"replay", path, "--frames", "0", "--out", pattern, "--size", "0x10", NULL},
        {"replay", path, "--frames", "0", "--out", pattern, "--threads", "0", NULL},
        {"replay", path, "--frames", "0", "--out", no_folder, NULL},
        {"replay", path, "--bogus", NULL},
        {"replay", path, path, "--info", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_result r = run(cases[i]);
        cr_assert_eq(r.code, 2, "case %zu: exit %d\n%s%s", i, r.code, r.out, r.err);
        cr_assert(strncmp(r.err, "softrast replay: ", 17) == 0, "case %zu: %s", i, r.err);
    }
    cr_assert_eq(count_entries(dir), 1, "a usage error wrote a file");
    run_result r = run((const char *[]){"replay", "--help", NULL});
    cr_assert_eq(r.code, 0);
    cr_assert(strstr(r.out, "--frames A:B[:STEP]") != NULL && strstr(r.out, "Exit status") != NULL);
    remove_dir(dir);
}
