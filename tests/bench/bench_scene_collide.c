/* tests/bench/bench_scene_collide.c — benchmark of the collision pass over a scene
 * (sr_scene_collide, softrast/scene.h): a pile of N shapes (default 10,000: spheres, boxes,
 * capsules, cylinders, cones and hulls of 0.35 to 0.6 in size, some rounded) on a jittered grid of
 * spacing 1, so that neighbours touch, penetrate or come near; every frame every shape moves a
 * little (a wobble of up to 0.05 around its place and a turn of up to 3 degrees), the scene is
 * updated and the pass runs (broadphase through the kept dynamic tree and pair cache, then the
 * queries). Medians over the frames after WARMUP frames, of the pass's wall time (broadphase +
 * narrowphase, on one thread) and of each half, and of the pass's thread CPU time (what the pass
 * costs on a machine shared with other work, where wall time also counts the waits for a core),
 * with the pass's counts (and its contacts and near pairs by the method that answered them);
 * sr_scene_update's time beside it. One JSON line on stdout. Not a test.
 *
 *   bench_scene_collide [--shapes N] [--frames F] [--margin THOUSANDTHS] [--moving PERCENT] [--still]
 *
 * --moving P: only P percent of the shapes move (spread evenly; the others rest, as most bodies of
 * a game's pile sleep); --still: none moves (the pass's floor: every answer is reused). */
#include <softrast/collide.h>
#include <softrast/scene.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARMUP 5

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static uint64_t state = 0x2545F4914F6CDD1Dull;
static double uniform(double low, double high)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return low + (high - low) * (double)((state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static void check(sr_status status, const sr_error *err)
{
    if (status != SR_OK) {
        fprintf(stderr, "bench_scene_collide: %s\n", err->message);
        exit(1);
    }
}

static long parse_arg(const char *name, const char *value, long low, long high)
{
    char *end = NULL;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || *end != '\0' || v < low || v > high) {
        fprintf(stderr, "bench_scene_collide: %s: expected a whole number from %ld to %ld\n", name, low, high);
        exit(2);
    }
    return v;
}

typedef struct body {
    sr_node_id node;
    sr_vec3 home, wobble_axis;
    float phase, speed, spin;
} body;

int main(int argc, char **argv)
{
    long shapes = 10000, frames = 100;
    double margin = 0.0;
    int still = 0;
    long moving_percent = 100;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shapes") == 0)
            shapes = parse_arg("--shapes", i + 1 < argc ? argv[++i] : NULL, 2, 1000000);
        else if (strcmp(argv[i], "--frames") == 0)
            frames = parse_arg("--frames", i + 1 < argc ? argv[++i] : NULL, 1, 100000);
        else if (strcmp(argv[i], "--margin") == 0)
            margin = (double)parse_arg("--margin (in thousandths)", i + 1 < argc ? argv[++i] : NULL, 0, 100000) * 1e-3;
        else if (strcmp(argv[i], "--moving") == 0)
            moving_percent = parse_arg("--moving", i + 1 < argc ? argv[++i] : NULL, 0, 100);
        else if (strcmp(argv[i], "--still") == 0)
            still = 1;
        else {
            fprintf(stderr,
                    "usage: bench_scene_collide [--shapes N] [--frames F] [--margin THOUSANDTHS] [--moving PERCENT] "
                    "[--still]\n");
            return 2;
        }
    }
    sr_error err = {0};
    sr_scene *scene = NULL;
    sr_collision *result = NULL;
    check(sr_scene_create(NULL, &scene, &err), &err);
    check(sr_collision_create(&result, &err), &err);
    sr_hull *hulls[3];
    for (int h = 0; h < 3; h++) {
        sr_dvec3 points[16];
        for (int i = 0; i < 16; i++) {
            // Points on a squashed ball of radius ~0.45.
            double z = uniform(-1, 1), angle = uniform(0, 2 * 3.14159265358979), r = sqrt(1 - z * z);
            points[i] = (sr_dvec3){0.45 * r * cos(angle), 0.35 * z, 0.45 * r * sin(angle)};
        }
        check(sr_hull_create(points, 16, &hulls[h], &err), &err);
    }
    // The grid: as close to a cube as N allows, spacing 1.
    int side = (int)ceil(cbrt((double)shapes));
    body *bodies = calloc((size_t)shapes, sizeof *bodies);
    if (!bodies) {
        fprintf(stderr, "bench_scene_collide: out of memory\n");
        return 1;
    }
    for (long i = 0; i < shapes; i++) {
        double size = uniform(0.35, 0.6);
        sr_shape shape;
        switch (i % 6) {
        case 0:
            shape = sr_shape_sphere(size);
            break;
        case 1:
            shape = sr_shape_box((sr_dvec3){size, 0.8 * size, 0.9 * size});
            break;
        case 2:
            shape = sr_shape_capsule(0.5 * size, 0.6 * size);
            break;
        case 3:
            shape = sr_shape_cylinder(size, 0.7 * size);
            break;
        case 4:
            shape = sr_shape_cone(size, 0.8 * size);
            break;
        default:
            shape = sr_shape_hull(hulls[i % 3]);
            break;
        }
        if (i % 7 == 0)
            shape.rounding = 0.03;
        body *b = &bodies[i];
        const double jitter[3] = {uniform(-0.1, 0.1), uniform(-0.1, 0.1), uniform(-0.1, 0.1)};
        b->home = sr_vec3_make((float)(i % side + jitter[0]), (float)((i / side) % side + jitter[1]),
                               (float)(i / ((long)side * side) + jitter[2]));
        const double axis[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
        b->wobble_axis = sr_vec3_normalize(sr_vec3_make((float)axis[0], (float)axis[1], (float)axis[2] + 0.01f));
        b->phase = (float)uniform(0, 6.28);
        b->speed = (float)uniform(0.05, 0.15);
        b->spin = (float)uniform(-0.05, 0.05);
        sr_transform t = sr_transform_identity();
        t.translation = b->home;
        t.rotation = sr_quat_from_axis_angle(b->wobble_axis, b->phase);
        sr_node_shape_desc desc = {.shape = shape, .draw = SR_SHAPE_DRAW_NONE};
        check(
            sr_scene_add_node(scene, &(sr_node_desc){.name = "shape", .transform = t, .shape = &desc}, &b->node, &err),
            &err);
    }
    const sr_collision_desc desc = {.margin = margin};
    double *pass = malloc(sizeof(double) * (size_t)frames), *broad = malloc(sizeof(double) * (size_t)frames),
           *narrow = malloc(sizeof(double) * (size_t)frames), *update = malloc(sizeof(double) * (size_t)frames),
           *pass_cpu = malloc(sizeof(double) * (size_t)frames);
    if (!pass || !broad || !narrow || !update || !pass_cpu) {
        fprintf(stderr, "bench_scene_collide: out of memory\n");
        return 1;
    }
    sr_collision_stats sum = {0};
    double by_method[4] = {0, 0, 0, 0}; // contacts and near pairs by sr_collide_method
    double first_pass_ms = 0.0;
    for (long frame = -WARMUP; frame < frames; frame++) {
        if (!still && frame > -WARMUP) {
            float time = (float)(frame + WARMUP);
            for (long i = 0; i < shapes; i++) {
                if ((i * moving_percent) % 100 >= moving_percent)
                    continue; // resting
                body *b = &bodies[i];
                float s = sinf(b->phase + b->speed * time), c = cosf(b->phase + 0.7f * b->speed * time);
                sr_transform t = sr_transform_identity();
                t.translation = sr_vec3_add(b->home, sr_vec3_make(0.05f * s, 0.05f * c, 0.05f * s * c));
                t.rotation = sr_quat_from_axis_angle(b->wobble_axis, b->phase + b->spin * s);
                check(sr_scene_set_transform(scene, b->node, t, &err), &err);
            }
        }
        double start = now_ms();
        check(sr_scene_update(scene, NULL, &err), &err);
        double middle = now_ms(), cpu_start = cpu_ms();
        check(sr_scene_collide(scene, &desc, result, &err), &err);
        double end = now_ms(), cpu_end = cpu_ms();
        if (frame == -WARMUP)
            first_pass_ms = end - middle;
        if (frame < 0)
            continue;
        update[frame] = middle - start;
        pass[frame] = end - middle;
        pass_cpu[frame] = cpu_end - cpu_start;
        broad[frame] = result->stats.broadphase_ms;
        narrow[frame] = result->stats.narrowphase_ms;
        const sr_collision_stats *s = &result->stats;
        sum.pairs += s->pairs;
        sum.tests += s->tests;
        sum.reused += s->reused;
        sum.axis_rejects += s->axis_rejects;
        sum.contacts += s->contacts;
        sum.near += s->near;
        sum.shapes_moved += s->shapes_moved;
        sum.proxies_moved += s->proxies_moved;
        sum.pairs_cached += s->pairs_cached;
        sum.iteration_caps += s->iteration_caps;
        for (size_t k = 0; k < result->contact_count; k++)
            by_method[result->contacts[k].method & 3]++;
        for (size_t k = 0; k < result->near_count; k++)
            by_method[result->near[k].method & 3]++;
    }
    double f = (double)frames;
    printf(
        "{\"benchmark\": \"scene_collide\", \"shapes\": %ld, \"frames\": %ld, \"moving_percent\": %ld, \"margin\": %g, "
        "\"per_frame_median_ms\": {\"pass\": %.3f, \"broadphase\": %.3f, \"narrowphase\": %.3f, \"update\": %.3f}, "
        "\"per_frame_median_cpu_ms\": {\"pass\": %.3f}, \"first_pass_ms\": %.3f, "
        "\"per_frame_mean\": {\"pairs_cached\": %.0f, \"pairs\": %.0f, \"axis_rejects\": %.0f, \"tests\": %.0f, "
        "\"reused\": %.0f, "
        "\"contacts\": %.0f, \"near\": %.0f, \"shapes_moved\": %.0f, \"proxies_moved\": %.0f}, "
        "\"contacts_and_near_by_method\": {\"gjk\": %.0f, \"epa\": %.0f, \"sat\": %.0f, \"closed_form\": %.0f}, "
        "\"iteration_caps\": %u}\n",
        shapes, frames, still ? 0L : moving_percent, result->margin, median(pass, (int)frames),
        median(broad, (int)frames), median(narrow, (int)frames), median(update, (int)frames),
        median(pass_cpu, (int)frames), first_pass_ms, sum.pairs_cached / f, sum.pairs / f, sum.axis_rejects / f,
        sum.tests / f, sum.reused / f, sum.contacts / f, sum.near / f, sum.shapes_moved / f, sum.proxies_moved / f,
        by_method[SR_COLLIDE_BY_GJK] / f, by_method[SR_COLLIDE_BY_EPA] / f, by_method[SR_COLLIDE_BY_SAT] / f,
        by_method[SR_COLLIDE_BY_CLOSED_FORM] / f, sum.iteration_caps);
    free(pass);
    free(broad);
    free(narrow);
    free(update);
    free(pass_cpu);
    free(bodies);
    sr_collision_destroy(result);
    sr_scene_destroy(scene);
    for (int h = 0; h < 3; h++)
        sr_hull_destroy(hulls[h]);
    return 0;
}
