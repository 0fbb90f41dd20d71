/* bench_idle.c — the CPU an idle renderer uses: a renderer with worker threads draws a few
 * frames of the benchmark scene's lambert scene, then the program does nothing for a few seconds and
 * reports the process's CPU time over that wait (getrusage: user + system, every thread), as a
 * viewer waiting for input would spend it. Never run by `meson test` (test_raster_threads checks
 * the same behaviour without timing: idle workers asleep and still).
 *
 *   build/tests/bench/bench_idle MESH.obj [--threads N] [--seconds S]
 *
 * Then the frame time that a viewer drawing now and then sees: 21 frames back to back, and 21
 * frames each after a pause of 2 ms, long enough for the workers to have gone to sleep (their
 * wake-up is then part of the frame), medians.
 *
 * Prints one JSON line: threads, idle seconds, CPU milliseconds, CPU percent of one core, frame
 * milliseconds back to back and after a pause. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <softrast/raster.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>

static double cpu_seconds(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           1e-6 * (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *mesh_path = NULL;
    long threads = 2;
    double seconds = 3.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = strtod(argv[++i], NULL);
        else if (argv[i][0] != '-' && !mesh_path)
            mesh_path = argv[i];
        else
            mesh_path = NULL, i = argc;
    }
    if (!mesh_path || threads < 1 || threads > SR_MAX_THREADS || !(seconds > 0.0 && seconds <= 3600.0)) {
        fprintf(stderr, "usage: bench_idle MESH.obj [--threads N] [--seconds S]\n");
        return 2;
    }
    sr_error err = {0};
    sr_mesh *mesh = NULL;
    sr_shader_vertex *vertices = NULL;
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    if (sr_bench_scene_load_mesh(mesh_path, &mesh, &err) != SR_OK ||
        sr_mesh_create_shader_vertices(mesh, NULL, &vertices, &err) != SR_OK ||
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = 1280, .height = 720}, &fb, &err) != SR_OK ||
        sr_renderer_create(&(sr_renderer_desc){.threads = (int)threads}, &renderer, &err) != SR_OK) {
        fprintf(stderr, "bench_idle: %s\n", err.message);
        return 1;
    }
    sr_mat4 view, projection;
    sr_bench_scene_camera(1280, 720, &view, &projection);
    sr_shader_uniforms uniforms = sr_shader_uniforms_default();
    sr_shader_uniforms_set_transforms(&uniforms, sr_mat4_identity(), view, projection);
    sr_program program = sr_shader_program(&sr_shader_lambert, &uniforms);
    sr_draw_desc draw = {.vertices = vertices,
                         .vertex_count = mesh->vertex_count,
                         .vertex_stride = sizeof(sr_shader_vertex),
                         .indices = mesh->indices,
                         .index_count = mesh->triangle_count * 3,
                         .program = &program};
    for (int frame = 0; frame < 5; frame++) {
        sr_renderer_clear(renderer, fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
        if (sr_draw_triangles(renderer, fb, &draw, &err) != SR_OK) {
            fprintf(stderr, "bench_idle: %s\n", err.message);
            return 1;
        }
    }
    // From the end of the last frame: the workers' brief spin is part of the idle time.
    double cpu_start = cpu_seconds(), wall_start = wall_seconds();
    struct timespec pause = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&pause, &pause) != 0)
        ;
    double cpu = cpu_seconds() - cpu_start, wall = wall_seconds() - wall_start;
    enum { FRAMES = 21 };
    double frame_ms[2][FRAMES];
    for (int paused = 0; paused < 2; paused++) {
        for (int frame = 0; frame < FRAMES; frame++) {
            if (paused) {
                struct timespec gap = {0, 2000000};
                while (nanosleep(&gap, &gap) != 0)
                    ;
            }
            double start = wall_seconds();
            sr_renderer_clear(renderer, fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
            sr_draw_triangles(renderer, fb, &draw, &err);
            frame_ms[paused][frame] = 1e3 * (wall_seconds() - start);
        }
        qsort(frame_ms[paused], FRAMES, sizeof(double), compare_doubles);
    }
    printf("{\"bench\": \"idle\", \"threads\": %ld, \"idle_s\": %.3f, \"cpu_ms\": %.3f, \"cpu_percent\": %.4f, "
           "\"frame_ms_back_to_back\": %.3f, \"frame_ms_after_2ms_pause\": %.3f}\n",
           threads, wall, cpu * 1e3, 100.0 * cpu / wall, frame_ms[0][FRAMES / 2], frame_ms[1][FRAMES / 2]);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_free(vertices);
    sr_mesh_destroy(mesh);
    return 0;
}
