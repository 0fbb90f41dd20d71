/* cmd_bench_collide.c — `softrast bench collide`: the time of softrast's convex collision queries
 * (softrast/collide.h) over the pairs of a pairs file, one thread, by kind of query, printed as one
 * JSON line. tests/bench/bench_collide_baselines.cpp times libccd, FCL and Bullet on the same
 * pairs side by side. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/collide.h>
#include <softrast/scene.h>

#include "args.h"
#include "commands.h"

#define DEFAULT_RUNS 5
#define MAX_RUNS 1000

enum { KIND_INTERSECT, KIND_DISTANCE, KIND_PENETRATION, KIND_SIGNED, KIND_RAY, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = {"intersect", "distance", "penetration", "signed", "ray"};

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast bench collide --pairs FILE [--runs N]\n"
            "\n"
            "Times softrast's collision queries over every pair of a pairs file (see softrast collide\n"
            "--help), one thread: each query timed alone (the clock's own cost taken off), a warm-up pass\n"
            "and N timed passes per kind; a pair's time is its median over the passes. Prints one JSON\n"
            "line: for each kind the median over the pairs of those times (ns_per_query) and their mean\n"
            "(mean_ns_per_query), how many pairs it found hit, and how many queries hit their iteration cap:\n"
            "  intersect    sr_collide_intersect, cold (no axis kept from an earlier call)\n"
            "  distance     sr_collide_distance\n"
            "  penetration  sr_collide_penetration\n"
            "  signed       sr_collide_signed_distance\n"
            "  ray          sr_collide_ray_cast against A, from B's position towards A's (max_t 1)\n"
            "\n"
            "options:\n"
            "  --pairs FILE   the pairs (tests/tools/make_pairs writes generated ones)\n"
            "  --runs N       timed passes, 1 to %d (default %d)\n"
            "  --help         this text\n",
            MAX_RUNS, DEFAULT_RUNS);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

static double median_sorted(const double *values, int count)
{
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* The ray of a pair: from B's position towards A's, reaching it at t = 1. */
static void pair_ray(const sr_pair *pair, sr_dvec3 *origin, sr_dvec3 *direction)
{
    *origin = pair->b.shape.pose.position;
    sr_dvec3 a = pair->a.shape.pose.position;
    *direction = (sr_dvec3){a.x - origin->x, a.y - origin->y, a.z - origin->z};
    if (direction->x == 0.0 && direction->y == 0.0 && direction->z == 0.0)
        *direction = (sr_dvec3){1, 0, 0};
}

/* One query of one kind on pair i: whether it hit; the cap hit into *caps, a value into *sink. */
static bool run_query(int kind, const sr_pair *pair, size_t *caps, double *sink)
{
    const sr_shape *a = &pair->a.shape, *b = &pair->b.shape;
    sr_collide_status status;
    bool hit = false;
    if (kind == KIND_INTERSECT) {
        sr_dvec3 axis = {0, 0, 0};
        status = sr_collide_intersect(a, b, &axis, NULL, &hit);
    } else if (kind == KIND_RAY) {
        sr_dvec3 origin, direction;
        pair_ray(pair, &origin, &direction);
        sr_collide_ray_hit ray;
        status = sr_collide_ray_cast(a, origin, direction, 1.0, NULL, &ray);
        hit = ray.hit;
        *sink += ray.t;
    } else {
        sr_collide_result r;
        status = kind == KIND_DISTANCE      ? sr_collide_distance(a, b, NULL, &r)
                 : kind == KIND_PENETRATION ? sr_collide_penetration(a, b, NULL, &r)
                                            : sr_collide_signed_distance(a, b, NULL, &r);
        hit = r.hit;
        *sink += r.distance;
    }
    *caps += status == SR_COLLIDE_ITERATION_CAP;
    return hit;
}

/* The clock's own cost: the median of back-to-back readings. */
static double clock_overhead(void)
{
    double samples[1001];
    for (int i = 0; i < 1001; i++) {
        double start = sr_cmd_seconds();
        samples[i] = sr_cmd_seconds() - start;
    }
    qsort(samples, 1001, sizeof samples[0], compare_doubles);
    return samples[500];
}

int sr_cmd_bench_collide(int argc, char **argv)
{
    const char *pairs_path = NULL;
    long runs = DEFAULT_RUNS;
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--runs") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error) ||
                !sr_args_parse_int("--runs", value, 1, MAX_RUNS, &runs, error))
                goto usage_error;
        } else if (strcmp(argv[i], "--pairs") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error))
                goto usage_error;
            pairs_path = value;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast bench collide --help)", argv[i]);
            goto usage_error;
        } else {
            snprintf(error, sizeof error, "unexpected argument '%s' (pairs are given with --pairs FILE)", argv[i]);
            goto usage_error;
        }
    }
    if (!pairs_path) {
        snprintf(error, sizeof error, "missing --pairs FILE (see softrast bench collide --help)");
        goto usage_error;
    }

    sr_error err = {0};
    sr_pair_set *set = NULL;
    if (sr_pair_set_load(pairs_path, &set, &err) != SR_OK) {
        fprintf(stderr, "softrast bench collide: %s\n", err.message);
        return 1;
    }
    if (set->count == 0) {
        fprintf(stderr, "softrast bench collide: %s: no pairs to time\n", pairs_path);
        sr_pair_set_destroy(set);
        return 1;
    }
    size_t count = set->count;
    double *samples = malloc(count * (size_t)runs * sizeof *samples), *per_pair = malloc(count * sizeof *per_pair);
    if (!samples || !per_pair) {
        fputs("softrast bench collide: out of memory\n", stderr);
        free(samples);
        free(per_pair);
        sr_pair_set_destroy(set);
        return 1;
    }
    double overhead = clock_overhead(), median[KIND_COUNT], mean[KIND_COUNT], sink = 0.0;
    size_t hits[KIND_COUNT] = {0}, caps = 0;
    for (int kind = 0; kind < KIND_COUNT; kind++) {
        for (long run = -1; run < runs; run++) /* run -1 is the warm-up */
            for (size_t i = 0; i < count; i++) {
                size_t run_caps = 0;
                double start = sr_cmd_seconds();
                bool hit = run_query(kind, &set->pairs[i], &run_caps, &sink);
                double ns = (sr_cmd_seconds() - start - overhead) * 1e9;
                if (run < 0) {
                    hits[kind] += hit;
                    caps += run_caps;
                } else {
                    samples[i * (size_t)runs + (size_t)run] = ns;
                }
            }
        double sum = 0.0;
        for (size_t i = 0; i < count; i++) {
            double *mine = samples + i * (size_t)runs;
            qsort(mine, (size_t)runs, sizeof *mine, compare_doubles);
            per_pair[i] = median_sorted(mine, (int)runs);
            sum += per_pair[i];
        }
        qsort(per_pair, count, sizeof *per_pair, compare_doubles);
        median[kind] = count % 2 ? per_pair[count / 2] : 0.5 * (per_pair[count / 2 - 1] + per_pair[count / 2]);
        mean[kind] = sum / (double)count;
    }
    printf("{\"pairs\": %zu, \"runs\": %ld, \"ns_per_query\": {", count, runs);
    for (int kind = 0; kind < KIND_COUNT; kind++)
        printf("%s\"%s\": %.1f", kind ? ", " : "", kind_names[kind], median[kind]);
    printf("}, \"mean_ns_per_query\": {");
    for (int kind = 0; kind < KIND_COUNT; kind++)
        printf("%s\"%s\": %.1f", kind ? ", " : "", kind_names[kind], mean[kind]);
    printf("}, \"hits\": {");
    for (int kind = 0; kind < KIND_COUNT; kind++)
        printf("%s\"%s\": %zu", kind ? ", " : "", kind_names[kind], hits[kind]);
    printf("}, \"iteration_caps\": %zu, \"checksum\": %.6g}\n", caps, sink);
    free(samples);
    free(per_pair);
    sr_pair_set_destroy(set);
    return 0;
usage_error:
    fprintf(stderr, "softrast bench collide: %s\n", error);
    return 2;
}
