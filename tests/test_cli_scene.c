/* test_cli_scene.c — the scene commands as a user runs them: `softrast render` of scene files
 * (image, two-value ids, --camera, --stats) against the library's render of the same scene,
 * `softrast pick` against the id buffer and the library's pick, `softrast bench scene`'s JSON,
 * and their error paths. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>
#include <stb_image.h>

#include "run_program.h"

#define ARM SR_SOURCE_DIR "/assets/scenes/robot_arm.json"

/* The library's picture of a scene file, with the render command's defaults. */
typedef struct library_picture {
    sr_scene *scene;
    sr_framebuffer *fb;
    sr_scene_frame *frame;
} library_picture;

static library_picture library_render(const char *path, int width, int height, const char *camera_spec)
{
    library_picture p = {0};
    sr_error err = {0};
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = path}, &p.scene, &err), SR_OK, "%s", err.message);
    sr_camera camera = sr_scene_camera(p.scene);
    if (camera_spec) {
        sr_camera base = camera;
        cr_assert_eq(sr_camera_parse(camera_spec, &base, &camera, &err), SR_OK, "%s", err.message);
    }
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_renderer_create(NULL, &renderer, NULL), SR_OK);
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &p.fb, NULL),
        SR_OK);
    cr_assert_eq(sr_scene_frame_create(&p.frame, NULL), SR_OK);
    cr_assert_eq(sr_scene_render(p.scene, &(sr_scene_render_desc){.camera = &camera}, renderer, p.fb, p.frame, &err),
                 SR_OK, "%s", err.message);
    sr_renderer_destroy(renderer);
    return p;
}

static void free_library_picture(library_picture *p)
{
    sr_framebuffer_destroy(p->fb);
    sr_scene_frame_destroy(p->frame);
    sr_scene_destroy(p->scene);
}

/* The PNG written by the program equals the library's colour buffer, pixel for pixel. */
static void expect_same_image(const char *png, const sr_framebuffer *fb)
{
    int w, h, n;
    unsigned char *pixels = stbi_load(png, &w, &h, &n, 4);
    cr_assert_not_null(pixels, "cannot read %s", png);
    cr_assert(w == fb->width && h == fb->height);
    int different = 0;
    for (int i = 0; i < w * h; i++) {
        uint32_t p = (uint32_t)pixels[4 * i] | (uint32_t)pixels[4 * i + 1] << 8 | (uint32_t)pixels[4 * i + 2] << 16 |
                     (uint32_t)pixels[4 * i + 3] << 24;
        different += p != fb->color[i];
    }
    stbi_image_free(pixels);
    cr_assert_eq(different, 0, "%d pixels differ from the library's render", different);
}

Test(render_scene, image_and_two_value_ids_equal_the_library_render, .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    char out[128], ids[128];
    snprintf(out, sizeof out, "%s/arm.png", dir);
    snprintf(ids, sizeof ids, "%s/arm.ids", dir);
    run_result r = run((const char *[]){"render", ARM, "--out", out, "--size", "200x120", "--ids", ids, NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    library_picture p = library_render(ARM, 200, 120, NULL);
    expect_same_image(out, p.fb);
    uint32_t *values = read_raw(ids, 200 * 120 * 8);
    int drawn = 0;
    for (int i = 0; i < 200 * 120; i++) {
        sr_node_id node;
        uint32_t triangle;
        if (sr_scene_frame_decode_id(p.frame, p.fb->ids[i], &node, &triangle)) {
            cr_assert(values[2 * i] == node.index && values[2 * i + 1] == triangle, "pixel %d", i);
            drawn++;
        } else {
            cr_assert(values[2 * i] == 0xffffffffu && values[2 * i + 1] == 0xffffffffu, "pixel %d", i);
        }
    }
    cr_assert_gt(drawn, 10000);
    free(values);
    free_library_picture(&p);
    remove_dir(dir);
}

Test(render_scene, camera_and_shader_options, .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    char out[128];
    snprintf(out, sizeof out, "%s/side.png", dir);
    const char *spec = "eye=4,1,0:target=0,1,0:fov=60";
    run_result r = run((const char *[]){"render", ARM, "--out", out, "--size", "120x90", "--camera", spec, NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    library_picture p = library_render(ARM, 120, 90, spec);
    expect_same_image(out, p.fb);
    free_library_picture(&p);
    // --shader applies to every material of a scene.
    r = run((const char *[]){"render", ARM, "--out", out, "--size", "120x90", "--shader", "normals", NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    remove_dir(dir);
}

Test(render_scene, stats_are_one_json_line_matching_the_library, .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    char out[128];
    snprintf(out, sizeof out, "%s/field.bmp", dir);
    const char *field = SR_SOURCE_DIR "/assets/scenes/field.json";
    run_result r = run((const char *[]){"render", field, "--out", out, "--size", "160x90", "--stats", NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cr_assert(strchr(r.out, '\n') == strrchr(r.out, '\n'), "one line: %s", r.out);
    cJSON *json = cJSON_Parse(r.out);
    cr_assert_not_null(json, "not JSON: %s", r.out);
    library_picture p = library_render(field, 160, 90, NULL);
    sr_scene_stats s = sr_scene_frame_stats(p.frame);
    const cJSON *instances = cJSON_GetObjectItem(json, "instances");
    const cJSON *triangles = cJSON_GetObjectItem(json, "triangles");
    cr_assert_eq(cJSON_GetObjectItem(instances, "total")->valueint, (int)s.instances_total);
    cr_assert_eq(cJSON_GetObjectItem(instances, "culled")->valueint, (int)s.instances_culled);
    cr_assert_eq(cJSON_GetObjectItem(instances, "drawn")->valueint, (int)s.instances_drawn);
    cr_assert(s.instances_culled > s.instances_drawn);
    cr_assert_eq(cJSON_GetObjectItem(triangles, "submitted")->valuedouble, (double)s.triangles_submitted);
    cr_assert_eq(cJSON_GetObjectItem(triangles, "drawn")->valuedouble, (double)s.triangles_drawn);
    cr_assert_eq(cJSON_GetObjectItem(json, "fragments_shaded")->valuedouble, (double)s.fragments_shaded);
    const cJSON *ms = cJSON_GetObjectItem(json, "ms");
    cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(ms, "cull")) && cJSON_IsNumber(cJSON_GetObjectItem(ms, "draw")));
    cJSON_Delete(json);
    free_library_picture(&p);
    remove_dir(dir);
}

/* Parses the JSON lines of a pick run. */
static int parse_lines(const char *text, cJSON **lines, int most)
{
    int count = 0;
    const char *p = text;
    while (*p && count < most) {
        const char *end = strchr(p, '\n');
        cr_assert_not_null(end, "every line ends with a newline");
        char line[4096];
        size_t length = (size_t)(end - p);
        cr_assert_lt(length, sizeof line);
        memcpy(line, p, length);
        line[length] = '\0';
        lines[count] = cJSON_Parse(line);
        cr_assert_not_null(lines[count], "not JSON: %s", line);
        count++;
        p = end + 1;
    }
    return count;
}

Test(pick, agrees_with_the_id_buffer_and_the_library, .timeout = 120)
{
    library_picture p = library_render(ARM, 160, 100, NULL);
    // Every 41st pixel centre of the image, as a --points file.
    char dir[64];
    make_temp_dir(dir);
    char points[128];
    snprintf(points, sizeof points, "%s/points.txt", dir);
    FILE *f = fopen(points, "w");
    fprintf(f, "# x y\n\n");
    int count = 0, xs[3000], ys[3000];
    for (int i = 0; i < 160 * 100 && count < 3000; i += 41, count++) {
        xs[count] = i % 160;
        ys[count] = i / 160;
        fprintf(f, "%d.5 %d.5\n", xs[count], ys[count]);
    }
    fclose(f);
    run_result r = run((const char *[]){"pick", ARM, "--size", "160x100", "--points", points, "--threads", "2", NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    static cJSON *lines[3000];
    cr_assert_eq(parse_lines(r.out, lines, 3000), count);
    int agree = 0, covered = 0;
    for (int k = 0; k < count; k++) {
        const cJSON *line = lines[k];
        cr_assert_eq(cJSON_GetObjectItem(line, "x")->valuedouble, xs[k] + 0.5);
        sr_pick_hit hit;
        cr_assert_eq(sr_scene_pick(p.scene, NULL, 160, 100, xs[k] + 0.5f, ys[k] + 0.5f, &hit, NULL), SR_OK);
        cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItem(line, "hit")), hit.hit, "point %d", k);
        cr_assert_eq(cJSON_GetObjectItem(line, "nodes_visited")->valueint, (int)hit.nodes_visited);
        sr_node_id node;
        uint32_t triangle;
        bool drawn = sr_scene_frame_decode_id(p.frame, p.fb->ids[ys[k] * 160 + xs[k]], &node, &triangle);
        covered += drawn;
        if (!hit.hit)
            continue;
        const cJSON *picked = cJSON_GetObjectItem(line, "node");
        cr_assert_eq(cJSON_GetObjectItem(picked, "index")->valueint, (int)hit.node.index);
        sr_node_info info;
        sr_scene_node(p.scene, hit.node, &info, NULL);
        cr_assert_str_eq(cJSON_GetObjectItem(picked, "name")->valuestring, info.name);
        cr_assert_eq(cJSON_GetObjectItem(line, "triangle")->valueint, (int)hit.triangle);
        cr_assert_float_eq(cJSON_GetObjectItem(line, "t")->valuedouble, hit.t, 1e-6 * hit.t);
        const cJSON *position = cJSON_GetObjectItem(line, "position");
        const cJSON *normal = cJSON_GetObjectItem(line, "normal");
        cr_assert_float_eq(cJSON_GetArrayItem(position, 1)->valuedouble, hit.position.y, 1e-6);
        cr_assert_float_eq(cJSON_GetArrayItem(normal, 2)->valuedouble, hit.normal.z, 1e-6);
        cr_assert_float_eq(cJSON_GetObjectItem(line, "u")->valuedouble, hit.u, 1e-6);
        agree += drawn && node.index == hit.node.index && triangle == hit.triangle;
    }
    cr_assert_gt(covered, 100);
    cr_assert_geq(agree, covered * 99 / 100, "%d of %d covered points agree with the id buffer", agree, covered);
    for (int k = 0; k < count; k++)
        cJSON_Delete(lines[k]);
    free_library_picture(&p);
    remove_dir(dir);
}

static void expect_failure(const char *const *args, const char *expected)
{
    run_result r = run(args);
    cr_assert(r.exited && r.code != 0, "%s %s: exit %d", args[0], args[1] ? args[1] : "", r.code);
    cr_assert(strstr(r.err, expected), "stderr does not name '%s': %s", expected, r.err);
    cr_assert_eq(r.out[0], '\0', "nothing on stdout: %s", r.out);
}

Test(pick, errors_name_the_argument_or_the_line, .timeout = 60)
{
    char dir[64];
    make_temp_dir(dir);
    char points[128];
    snprintf(points, sizeof points, "%s/bad.txt", dir);
    FILE *f = fopen(points, "w");
    fprintf(f, "1 2\n3 four\n");
    fclose(f);
    expect_failure((const char *[]){"pick", ARM, NULL}, "no points");
    expect_failure((const char *[]){"pick", ARM, "--at", "1", NULL}, "--at: '1'");
    expect_failure((const char *[]){"pick", ARM, "--at", "1,x", NULL}, "--at");
    expect_failure((const char *[]){"pick", ARM, "--at", "2000,10", NULL}, "outside the 1280x720 image");
    expect_failure((const char *[]){"pick", ARM, "--points", points, NULL}, "bad.txt:2: expected two finite numbers");
    expect_failure((const char *[]){"pick", ARM, "--points", points, "--at", "1,1", NULL}, "not both");
    expect_failure((const char *[]){"pick", ARM, "--at", "1,1", "--camera", "eye=1,2", NULL}, "--camera");
    expect_failure((const char *[]){"pick", "/nonexistent_softrast.json", "--at", "1,1", NULL},
                   "/nonexistent_softrast.json");
    expect_failure((const char *[]){"pick", ARM, "--at", "1,1", "--threads", "0", NULL}, "--threads");
    expect_failure((const char *[]){"pick", ARM, "--at", "1,1", "--wat", NULL}, "--wat");
    remove_dir(dir);
}

Test(render_scene, errors_name_the_file_and_json_path, .timeout = 60)
{
    char dir[64];
    make_temp_dir(dir);
    char scene[128], out[128];
    snprintf(scene, sizeof scene, "%s/bad.json", dir);
    snprintf(out, sizeof out, "%s/out.bmp", dir);
    FILE *f = fopen(scene, "w");
    fprintf(f, "{\"nodes\": [{\"transform\": {\"scale\": [1, true, 1]}}]}\n");
    fclose(f);
    expect_failure((const char *[]){"render", scene, "--out", out, NULL},
                   "bad.json: nodes[0].transform.scale[1]: expected a number, found a boolean");
    expect_failure((const char *[]){"render", ARM, "--out", out, "--camera", "eye=0,0,0:target=0,0,0", NULL},
                   "--camera");
    cr_assert_eq(count_entries(dir), 1, "no output was left behind");
    remove_dir(dir);
}

Test(bench_scene, prints_one_json_line_of_medians, .timeout = 120)
{
    run_result r = run((const char *[]){"bench", "scene", ARM, "--runs", "2", "--size", "64x48", NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cr_assert(strchr(r.out, '\n') == strrchr(r.out, '\n'), "one line: %s", r.out);
    cJSON *json = cJSON_Parse(r.out);
    cr_assert_not_null(json, "%s", r.out);
    const char *stages[] = {"load_ms", "build_ms", "update_ms", "cull_ms", "frame_ms", "pick_us"};
    for (int i = 0; i < 6; i++) {
        const cJSON *stage = cJSON_GetObjectItem(json, stages[i]);
        cr_assert_not_null(stage, "no %s: %s", stages[i], r.out);
        double median = cJSON_GetObjectItem(stage, "median")->valuedouble;
        double low = cJSON_GetObjectItem(stage, "min")->valuedouble,
               high = cJSON_GetObjectItem(stage, "max")->valuedouble;
        cr_assert(low <= median && median <= high && low >= 0, "%s: %g %g %g", stages[i], low, median, high);
    }
    cr_assert_eq(cJSON_GetObjectItem(json, "instances")->valueint, 14);
    cJSON_Delete(json);
    expect_failure((const char *[]){"bench", "scene", ARM, "--runs", "0", NULL}, "--runs");
}
