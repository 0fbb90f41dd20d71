/* tests/bench/bench_scene_collide.c — benchmark of the collision pass over a scene
 * (sr_scene_collide, softrast/scene.h): the pile of pile_workload.h (default 10,000 shapes:
 * spheres, boxes, capsules, cylinders, cones and hulls of 0.35 to 0.6 in size, some rounded, on a
 * jittered grid of spacing 1, so that neighbours touch, penetrate or come near); every frame every
 * shape moves a little (a wobble of up to 0.05 around its place and a turn of up to 3 degrees),
 * the scene is updated and the pass runs (broadphase through the kept dynamic tree and pair cache,
 * then the queries). Medians over the frames after WARMUP frames, of the pass's wall time
 * (broadphase + narrowphase, on one thread) and of each half, and of the pass's thread CPU time
 * (what the pass costs on a machine shared with other work, where wall time also counts the waits
 * for a core), with the pass's counts (and its contacts and near pairs by the method that answered
 * them); sr_scene_update's time beside it. One JSON line on stdout. Not a test.
 * bench_scene_collide_bullet.cpp runs the same pile on Bullet's collision world.
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

#include "pile_workload.h"

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
    pile world;
    sr_node_id *nodes = malloc(sizeof(sr_node_id) * (size_t)shapes);
    if (!pile_make(&world, shapes) || !nodes) {
        fprintf(stderr, "bench_scene_collide: out of memory\n");
        return 1;
    }
    sr_hull *hulls[PILE_HULLS];
    for (int h = 0; h < PILE_HULLS; h++) {
        sr_dvec3 points[PILE_HULL_POINTS];
        for (int i = 0; i < PILE_HULL_POINTS; i++)
            points[i] = (sr_dvec3){world.hull_points[h][i][0], world.hull_points[h][i][1], world.hull_points[h][i][2]};
        check(sr_hull_create(points, PILE_HULL_POINTS, &hulls[h], &err), &err);
    }
    for (long i = 0; i < shapes; i++) {
        const pile_body *b = &world.bodies[i];
        sr_shape shape;
        switch (b->kind) {
        case PILE_SPHERE:
            shape = sr_shape_sphere(b->radius);
            break;
        case PILE_BOX:
            shape = sr_shape_box((sr_dvec3){b->half_extents[0], b->half_extents[1], b->half_extents[2]});
            break;
        case PILE_CAPSULE:
            shape = sr_shape_capsule(b->radius, b->half_height);
            break;
        case PILE_CYLINDER:
            shape = sr_shape_cylinder(b->radius, b->half_height);
            break;
        case PILE_CONE:
            shape = sr_shape_cone(b->radius, b->half_height);
            break;
        default:
            shape = sr_shape_hull(hulls[b->hull]);
            break;
        }
        shape.rounding = b->rounding;
        sr_transform t = sr_transform_identity();
        t.translation = sr_vec3_make(b->home[0], b->home[1], b->home[2]);
        t.rotation = sr_quat_from_axis_angle(sr_vec3_make(b->axis[0], b->axis[1], b->axis[2]), b->phase);
        sr_node_shape_desc desc = {.shape = shape, .draw = SR_SHAPE_DRAW_NONE};
        check(sr_scene_add_node(scene, &(sr_node_desc){.name = "shape", .transform = t, .shape = &desc}, &nodes[i], &err),
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
                if (!pile_moves(i, moving_percent))
                    continue; // resting
                const pile_body *b = &world.bodies[i];
                float translation[3], angle;
                pile_pose(b, time, translation, &angle);
                sr_transform t = sr_transform_identity();
                t.translation = sr_vec3_make(translation[0], translation[1], translation[2]);
                t.rotation = sr_quat_from_axis_angle(sr_vec3_make(b->axis[0], b->axis[1], b->axis[2]), angle);
                check(sr_scene_set_transform(scene, nodes[i], t, &err), &err);
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
    free(nodes);
    pile_free(&world);
    sr_collision_destroy(result);
    sr_scene_destroy(scene);
    for (int h = 0; h < PILE_HULLS; h++)
        sr_hull_destroy(hulls[h]);
    return 0;
}
