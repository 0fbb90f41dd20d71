/* cmd_bench_scene.c — `softrast bench scene`: the stages of a scene frame timed over several runs
 * (load, BVH builds, a full update, culling, a frame, picks), one JSON line of medians. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/scene.h>

#include "app_scene.h"
#include "args.h"
#include "commands.h"

#define MAX_RUNS 1000
#define PICKS 10000

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast bench scene [SCENE.json | MESH.obj] [--runs N] [--size WxH] [--threads N]\n"
            "                            [--camera SPEC] [--up y|z]\n"
            "\n"
            "Times a scene (the demo scene when none is given; a mesh as the benchmark scene unless\n"
            "--camera fit) stage by stage, N runs (default 5) after one warm-up, and prints one JSON\n"
            "line with the median, min and max of each:\n"
            "  load_ms    reading the file(s) and making the scene, BVH builds included\n"
            "  build_ms   building all mesh BVHs (part of load_ms)\n"
            "  update_ms  a full update: every top-level node marked as moved, then sr_scene_update\n"
            "  cull_ms    frustum culling through the instance tree\n"
            "  frame_ms   sr_scene_render: clear, cull, draw (1280x720 by default)\n"
            "  frame_unculled_ms  the same frame with culling off (every instance drawn; same picture)\n"
            "  pick_us    one pick, the median over 10,000 random pixels of the frame\n"
            "  pick_hit_us  the same over 10,000 random pixels whose pick hits something (of at most\n"
            "             1,000,000 tried; 0 when none hits)\n"
            "plus the scene's sizes and the instances drawn and culled.\n"
            "\n"
            "options:\n"
            "  --runs N       1 to %d (default 5)\n"
            "  --size WxH     frame size, each side 1 to %d (default 1280x720)\n"
            "  --threads N    rendering threads, 1 to %d (default 1); picks run on one thread\n",
            MAX_RUNS, SR_MAX_IMAGE_SIDE, SR_MAX_THREADS);
    sr_app_print_view_help(out, true);
    fputs("  --help         this text\n"
          "\n"
          "Exit status: 0 done, 1 a file or the work failed, 2 a usage error.\n"
          "\n",
          out);
    sr_app_print_bench_scene(out);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts `values` and prints "name": {"median", "min", "max"}. */
static void print_series(const char *name, double *values, size_t count, const char *separator)
{
    qsort(values, count, sizeof *values, compare_doubles);
    double median = count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
    printf("\"%s\": {\"median\": %.4f, \"min\": %.4f, \"max\": %.4f}%s", name, median, values[0], values[count - 1],
           separator);
}

/* Marks every top-level node moved (its own transform again): the next update redoes them all. */
static sr_status touch_all(sr_scene *scene, sr_error *err)
{
    for (sr_node_id n = sr_scene_first_child(scene, SR_NODE_NULL); n.generation; n = sr_scene_next_sibling(scene, n)) {
        sr_node_info info;
        sr_status status = sr_scene_node(scene, n, &info, err);
        if (status == SR_OK)
            status = sr_scene_set_transform(scene, n, info.transform, err);
        if (status != SR_OK)
            return status;
    }
    return SR_OK;
}

enum {
    STAGE_LOAD,
    STAGE_BUILD,
    STAGE_UPDATE,
    STAGE_CULL,
    STAGE_FRAME,
    STAGE_UNCULLED,
    STAGE_PICK,
    STAGE_PICK_HIT,
    STAGE_COUNT
};

int sr_cmd_bench_scene(int argc, char **argv)
{
    const char *scene_path = NULL;
    sr_app_view_options view = {0};
    long runs = 5, threads = 1;
    int width = 1280, height = 720;
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (sr_args_is_help(arg)) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--runs") == 0 || strcmp(arg, "--threads") == 0 || strcmp(arg, "--size") == 0 ||
                   strcmp(arg, "--camera") == 0 || strcmp(arg, "--up") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error))
                goto usage_error;
            if (strcmp(arg, "--runs") == 0) {
                if (!sr_args_parse_int("--runs", value, 1, MAX_RUNS, &runs, error))
                    goto usage_error;
            } else if (strcmp(arg, "--threads") == 0) {
                if (!sr_args_parse_int("--threads", value, 1, SR_MAX_THREADS, &threads, error))
                    goto usage_error;
            } else if (strcmp(arg, "--camera") == 0) {
                if (!sr_app_parse_camera_option(value, &view, error))
                    goto usage_error;
            } else if (strcmp(arg, "--up") == 0) {
                if (!sr_app_parse_up_option(value, &view, error))
                    goto usage_error;
            } else if (!sr_args_parse_size("--size", value, SR_MAX_IMAGE_SIDE, &width, &height, error)) {
                goto usage_error;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast bench scene --help)", arg);
            goto usage_error;
        } else if (scene_path) {
            snprintf(error, sizeof error, "more than one scene or mesh given ('%s' and '%s')", scene_path, arg);
            goto usage_error;
        } else {
            scene_path = arg;
        }
    }

    sr_error err = {0};
    sr_renderer *renderer = NULL;
    sr_framebuffer *fb = NULL;
    sr_scene_frame *frame = NULL;
    sr_scene *scene = NULL;
    bool usage = false;
    double *series = calloc((size_t)runs * STAGE_COUNT, sizeof *series);
    double *picks = calloc(PICKS, sizeof *picks);
    sr_status status =
        series && picks ? SR_OK : sr_error_set(&err, SR_ERROR_OUT_OF_MEMORY, "out of memory for %ld runs", runs);
    if (status == SR_OK)
        status =
            sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &fb, &err);
    if (status == SR_OK)
        status = sr_renderer_create(&(sr_renderer_desc){.threads = (int)threads}, &renderer, &err);
    if (status == SR_OK)
        status = sr_scene_frame_create(&frame, &err);
    sr_scene_totals totals = {0};
    sr_scene_stats last = {0};
    uint64_t random = 0x9e3779b97f4a7c15ull;
    /* Run -1 is the warm-up (file cache, first-touch page faults, scratch memory growing). */
    for (long run = -1; run < runs && status == SR_OK; run++) {
        double *row = run >= 0 ? &series[run * STAGE_COUNT] : NULL;
        sr_scene_destroy(scene);
        scene = NULL;
        sr_app_scene loaded;
        double start = sr_app_now_ms();
        status = sr_app_load_scene(&(sr_app_scene_desc){.command = "softrast bench scene",
                                                        .path = scene_path,
                                                        .view = view,
                                                        .bench_by_default = true,
                                                        .width = width,
                                                        .height = height},
                                   &loaded, &usage, &err);
        double load = sr_app_now_ms() - start;
        if (status != SR_OK)
            break;
        scene = loaded.scene;
        totals = sr_scene_get_totals(scene);
        sr_camera camera = loaded.camera;
        status = touch_all(scene, &err);
        start = sr_app_now_ms();
        if (status == SR_OK)
            status = sr_scene_update(scene, NULL, &err);
        double update = sr_app_now_ms() - start;
        start = sr_app_now_ms();
        if (status == SR_OK)
            status = sr_scene_cull(scene, &camera, width, height, frame, &err);
        double cull = sr_app_now_ms() - start;
        start = sr_app_now_ms();
        if (status == SR_OK)
            status = sr_scene_render(scene, &(sr_scene_render_desc){.camera = &camera}, renderer, fb, frame, &err);
        double frame_ms = sr_app_now_ms() - start;
        last = sr_scene_frame_stats(frame);
        start = sr_app_now_ms();
        if (status == SR_OK)
            status = sr_scene_render(scene, &(sr_scene_render_desc){.camera = &camera, .no_culling = true}, renderer,
                                     fb, frame, &err);
        double unculled_ms = sr_app_now_ms() - start;
        // The picks read the culled frame's scene; its statistics are kept above.
        for (int p = 0; p < PICKS && status == SR_OK; p++) {
            random = random * 6364136223846793005ull + 1442695040888963407ull;
            float x = (float)((random >> 40) % (uint64_t)width) + 0.5f;
            float y = (float)((random >> 16 & 0xffffff) % (uint64_t)height) + 0.5f;
            sr_pick_hit hit;
            double pick_start = sr_app_now_ms();
            status = sr_scene_pick(scene, &camera, width, height, x, y, &hit, &err);
            picks[p] = (sr_app_now_ms() - pick_start) * 1e3;
        }
        double pick_median = 0.0;
        if (status == SR_OK) {
            qsort(picks, PICKS, sizeof *picks, compare_doubles);
            pick_median = 0.5 * (picks[PICKS / 2 - 1] + picks[PICKS / 2]);
        }
        // Picks that hit: the cost of what a user clicks on.
        int hits = 0;
        for (int tries = 0; tries < 100 * PICKS && hits < PICKS && status == SR_OK; tries++) {
            random = random * 6364136223846793005ull + 1442695040888963407ull;
            float x = (float)((random >> 40) % (uint64_t)width) + 0.5f;
            float y = (float)((random >> 16 & 0xffffff) % (uint64_t)height) + 0.5f;
            sr_pick_hit hit;
            double pick_start = sr_app_now_ms();
            status = sr_scene_pick(scene, &camera, width, height, x, y, &hit, &err);
            double elapsed = (sr_app_now_ms() - pick_start) * 1e3;
            if (hit.hit)
                picks[hits++] = elapsed;
        }
        double hit_median = 0.0;
        if (status == SR_OK && hits > 0) {
            qsort(picks, (size_t)hits, sizeof *picks, compare_doubles);
            hit_median = hits % 2 ? picks[hits / 2] : 0.5 * (picks[hits / 2 - 1] + picks[hits / 2]);
        }
        if (status == SR_OK && row) {
            row[STAGE_LOAD] = load;
            row[STAGE_BUILD] = totals.bvh_build_ms;
            row[STAGE_UPDATE] = update;
            row[STAGE_CULL] = cull;
            row[STAGE_FRAME] = frame_ms;
            row[STAGE_UNCULLED] = unculled_ms;
            row[STAGE_PICK] = pick_median;
            row[STAGE_PICK_HIT] = hit_median;
        }
    }
    if (status == SR_OK) {
        double *column = calloc((size_t)runs, sizeof *column);
        status = column ? SR_OK : sr_error_set(&err, SR_ERROR_OUT_OF_MEMORY, "out of memory");
        if (status == SR_OK) {
            printf("{\"scene\": ");
            sr_app_print_json_string(stdout, scene_path ? scene_path : "demo");
            printf(", \"size\": [%d, %d], \"threads\": %ld, \"runs\": %ld, \"meshes\": %u, \"nodes\": %u, "
                   "\"instances\": %u, \"mesh_triangles\": %llu, \"instance_triangles\": %llu, "
                   "\"instances_drawn\": %u, \"instances_culled\": %u, \"triangles_drawn\": %llu, ",
                   width, height, threads, runs, totals.meshes, totals.nodes, totals.instances,
                   (unsigned long long)totals.mesh_triangles, (unsigned long long)totals.instance_triangles,
                   last.instances_drawn, last.instances_culled, (unsigned long long)last.triangles_drawn);
            const char *names[STAGE_COUNT] = {"load_ms",  "build_ms",          "update_ms", "cull_ms",
                                              "frame_ms", "frame_unculled_ms", "pick_us",   "pick_hit_us"};
            for (int stage = 0; stage < STAGE_COUNT; stage++) {
                for (long run = 0; run < runs; run++)
                    column[run] = series[run * STAGE_COUNT + stage];
                print_series(names[stage], column, (size_t)runs, stage + 1 < STAGE_COUNT ? ", " : "}\n");
            }
        }
        free(column);
    }
    if (status != SR_OK)
        fprintf(stderr, "softrast bench scene: %s\n", err.message[0] ? err.message : sr_status_name(status));
    sr_scene_destroy(scene);
    sr_scene_frame_destroy(frame);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    free(series);
    free(picks);
    return status == SR_OK ? 0 : usage ? SR_EXIT_USAGE : SR_EXIT_FAILURE;

usage_error:
    fprintf(stderr, "softrast bench scene: %s\n", error);
    return SR_EXIT_USAGE;
}
