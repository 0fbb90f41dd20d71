/* bench_record_shapes.c — what nodes' collision shapes cost the recorder (format 1.1's SHAPES
 * section and HULL records): the CPU time of sr_recorder_frame for a scene of 1,000 nodes of which
 * 100 move every frame, without shapes, with a box on every node, and with a hull of 8 points on
 * every node; medians over frames (keyframes included: one in 60), and the shapes' bytes. Never
 * run by `meson test`.
 *
 *   build/tests/bench/bench_record_shapes [--frames N] [--folder DIR]
 *
 * Prints a line per case and one JSON line at the end. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <softrast/record.h>
#include <softrast/scene_collide.h>

#define NODES 1000

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void fail(const char *what, const sr_error *err)
{
    fprintf(stderr, "bench_record_shapes: %s: %s\n", what, err->message);
    exit(1);
}

typedef struct result {
    double median_us;
    unsigned long long shape_bytes;
} result;

/* kind 0: no shapes, 1: boxes, 2: hulls. */
static result run(int kind, int frames, const char *path)
{
    sr_error err = {0};
    sr_scene *scene = NULL;
    if (sr_scene_create(NULL, &scene, &err) != SR_OK)
        fail("scene", &err);
    static const sr_dvec3 points[] = {{0.3, 0, 0},    {-0.3, 0.1, 0},   {0, 0.35, 0.1},    {0, -0.1, 0.3},
                                      {0.1, 0.1, -0.3}, {0.2, 0.2, 0.2}, {-0.2, -0.2, 0.1}, {0.25, -0.2, -0.1}};
    sr_node_id nodes[NODES];
    for (int i = 0; i < NODES; i++) {
        sr_transform t = sr_transform_identity();
        t.translation = sr_vec3_make((float)(i % 10), (float)(i / 100), (float)(i / 10 % 10));
        sr_node_shape_desc box = {.shape = sr_shape_box((sr_dvec3){0.3, 0.3, 0.3}), .draw = SR_SHAPE_DRAW_NONE};
        sr_node_shape_desc hull = {.shape = {.type = SR_SHAPE_HULL},
                                   .hull_points = points,
                                   .hull_point_count = 8,
                                   .draw = SR_SHAPE_DRAW_NONE};
        if (sr_scene_add_node(scene,
                              &(sr_node_desc){.transform = t, .shape = kind == 1 ? &box : kind == 2 ? &hull : NULL},
                              &nodes[i], &err) != SR_OK)
            fail("node", &err);
    }
    sr_recorder *rec = NULL;
    if (sr_recorder_create(path, NULL, &rec, &err) != SR_OK)
        fail(path, &err);
    double *times = malloc((size_t)frames * sizeof *times);
    for (int f = 0; f < frames; f++) {
        for (int i = 0; i < NODES; i += 10) {
            sr_transform t = sr_transform_identity();
            t.translation = sr_vec3_make((float)(i % 10), (float)(i / 100) + 0.01f * (float)f, (float)(i / 10 % 10));
            sr_scene_set_transform(scene, nodes[i], t, NULL);
        }
        if (sr_scene_update(scene, NULL, &err) != SR_OK)
            fail("update", &err);
        double start = cpu_ms();
        if (sr_recorder_frame(rec, f / 60.0, NULL, 0, scene, &err) != SR_OK)
            fail("frame", &err);
        times[f] = (cpu_ms() - start) * 1e3;
    }
    sr_recorder_stats stats = sr_recorder_get_stats(rec);
    if (sr_recorder_close(rec, &err) != SR_OK)
        fail("close", &err);
    qsort(times, (size_t)frames, sizeof *times, compare_doubles);
    result r = {times[frames / 2], (unsigned long long)stats.bytes.shapes};
    free(times);
    sr_scene_destroy(scene);
    remove(path);
    return r;
}

int main(int argc, char **argv)
{
    int frames = 600;
    const char *folder = "/tmp";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--frames") == 0)
            frames = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--folder") == 0)
            folder = argv[i + 1];
    }
    if (frames < 1) {
        fprintf(stderr, "bench_record_shapes: --frames must be at least 1\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_record_shapes.srrec", folder);
    static const char *const names[] = {"no shapes", "boxes", "hulls of 8 points"};
    result results[3];
    for (int kind = 0; kind < 3; kind++) {
        results[kind] = run(kind, frames, path);
        printf("%-18s %8.1f us a frame (median CPU time of %d frames; 1,000 nodes, 100 moving), shapes %llu bytes\n",
               names[kind], results[kind].median_us, frames, results[kind].shape_bytes);
    }
    printf("{\"frames\": %d, \"none_us\": %.1f, \"boxes_us\": %.1f, \"hulls_us\": %.1f, \"boxes_shape_bytes\": %llu, "
           "\"hulls_shape_bytes\": %llu}\n",
           frames, results[0].median_us, results[1].median_us, results[2].median_us, results[1].shape_bytes,
           results[2].shape_bytes);
    return 0;
}
