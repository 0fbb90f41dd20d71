/* cmd_bench_raster.c — `softrast bench raster`: the frame time of the benchmark scene's lambert
 * render of a mesh (app_scene.c describes the scene), printed as one JSON line. A frame is clear
 * + draw (sr_renderer_clear and sr_draw_triangles, both with --threads); vertex normals and the
 * vertex array are made once at load. One warm-up frame, then --runs timed frames (median, min,
 * max). Timing uses CLOCK_MONOTONIC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <softrast/raster.h>
#include <softrast/scene.h>

#include <softrast/shaders.h>

#include "app_scene.h"
#include "args.h"
#include "commands.h"

#define MAX_RUNS 10000

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast bench raster MESH.obj [--runs N] [--size WxH] [--threads N]\n"
            "\n"
            "Times the benchmark scene's lambert render of MESH.obj (frame = clear + draw, after one\n"
            "warm-up frame) and prints one JSON line:\n"
            "  {\"mesh\": PATH, \"triangles\": N, \"size\": [W, H], \"threads\": N, \"load_ms\": X,\n"
            "   \"frame_ms\": {\"median\": X, \"min\": X, \"max\": X}, \"isa\": NAME}\n"
            "load_ms covers reading the OBJ, normalising it and computing vertex normals; isa is\n"
            "the instruction set of the kernels in use (sse2, avx2, avx512, native (...); README).\n"
            "\n"
            "options:\n"
            "  --runs N      timed frames, 1 to %d (default 10)\n"
            "  --size WxH    image size, each side 1 to %d (default 1280x720)\n"
            "  --threads N   rendering threads, 1 to %d (default 1); the image does not depend on N\n"
            "  --help        this text\n"
            "\n"
            "Exit status: 0 done, 1 the mesh or the work failed, 2 a usage error.\n"
            "\n",
            MAX_RUNS, SR_MAX_IMAGE_SIDE, SR_MAX_THREADS);
    sr_app_print_bench_scene(out);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A JSON string (RFC 8259 section 7): quote, backslash and control characters escaped; other
 * bytes are copied, so a UTF-8 path stays UTF-8. */
static void print_json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

int sr_cmd_bench_raster(int argc, char **argv)
{
    const char *mesh_path = NULL;
    long runs = 10, threads = 1;
    int width = 1280, height = 720;
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (sr_args_is_help(arg)) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--runs") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error) ||
                !sr_args_parse_int("--runs", value, 1, MAX_RUNS, &runs, error))
                goto usage_error;
        } else if (strcmp(arg, "--threads") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error) ||
                !sr_args_parse_int("--threads", value, 1, SR_MAX_THREADS, &threads, error))
                goto usage_error;
        } else if (strcmp(arg, "--size") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error) ||
                !sr_args_parse_size("--size", value, SR_MAX_IMAGE_SIDE, &width, &height, error))
                goto usage_error;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast bench raster --help)", arg);
            goto usage_error;
        } else if (mesh_path) {
            snprintf(error, sizeof error, "more than one mesh given ('%s' and '%s')", mesh_path, arg);
            goto usage_error;
        } else {
            mesh_path = arg;
        }
    }
    if (!mesh_path) {
        snprintf(error, sizeof error, "missing MESH.obj (see softrast bench raster --help)");
        goto usage_error;
    }
    sr_error err = {0};
    sr_mesh *mesh = NULL;
    sr_shader_vertex *vertices = NULL;
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    double *frame_ms = calloc((size_t)runs, sizeof *frame_ms);
    sr_status status = frame_ms ? SR_OK : sr_error_set(&err, SR_ERROR_OUT_OF_MEMORY, "no memory for %ld runs", runs);

    double start = now_ms();
    if (status == SR_OK)
        status = sr_bench_scene_load_mesh(mesh_path, &mesh, &err);
    double load_ms = now_ms() - start;
    if (status == SR_OK)
        status = sr_mesh_create_shader_vertices(mesh, NULL, &vertices, &err);
    if (status == SR_OK)
        status = sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height}, &fb, &err);
    if (status == SR_OK)
        status = sr_renderer_create(&(sr_renderer_desc){.threads = (int)threads}, &renderer, &err);

    if (status == SR_OK) {
        sr_mat4 view, projection;
        sr_bench_scene_camera(width, height, &view, &projection);
        sr_shader_uniforms uniforms = sr_shader_uniforms_default();
        sr_shader_uniforms_set_transforms(&uniforms, sr_mat4_identity(), view, projection);
        sr_program program = sr_shader_program(&sr_shader_lambert, &uniforms);
        sr_draw_desc draw = {
            .vertices = vertices,
            .vertex_count = mesh->vertex_count,
            .vertex_stride = sizeof(sr_shader_vertex),
            .indices = mesh->indices,
            .index_count = mesh->triangle_count * 3,
            .program = &program,
        };
        /* Run -1 is the warm-up: caches, page faults of the framebuffer, the renderer's scratch
         * memory growing to size. */
        for (long run = -1; run < runs && status == SR_OK; run++) {
            double frame_start = now_ms();
            sr_renderer_clear(renderer, fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
            status = sr_draw_triangles(renderer, fb, &draw, &err);
            double elapsed = now_ms() - frame_start;
            if (run >= 0)
                frame_ms[run] = elapsed;
        }
    }

    if (status == SR_OK) {
        qsort(frame_ms, (size_t)runs, sizeof *frame_ms, compare_doubles);
        double median = runs % 2 ? frame_ms[runs / 2] : 0.5 * (frame_ms[runs / 2 - 1] + frame_ms[runs / 2]);
        printf("{\"mesh\": ");
        print_json_string(mesh_path);
        printf(", \"triangles\": %zu, \"size\": [%d, %d], \"threads\": %ld, \"load_ms\": %.3f, "
               "\"frame_ms\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}, \"isa\": \"%s\"}\n",
               mesh->triangle_count, width, height, threads, load_ms, median, frame_ms[0], frame_ms[runs - 1],
               sr_isa_name(sr_isa_active()));
    } else {
        fprintf(stderr, "softrast bench raster: %s\n", err.message[0] ? err.message : sr_status_name(status));
    }
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_free(vertices);
    sr_mesh_destroy(mesh);
    free(frame_ms);
    return status == SR_OK ? 0 : SR_EXIT_FAILURE;

usage_error:
    fprintf(stderr, "softrast bench raster: %s\n", error);
    return SR_EXIT_USAGE;
}
