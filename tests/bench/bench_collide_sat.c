/* tests/bench/bench_collide_sat.c — benchmark of sr_collide_sat (softrast/collide.h): the median
 * time per query, one thread, of box-box (the 15-axis path), triangle-box (13 axes), and hull-hull
 * (the generic test with the Gauss map's pruning) on hulls of 8 (the boxes as hulls: the generic
 * test on the box-box pairs), 20, 50 and 150 vertices; plus how many edge pairs the generic test
 * computes a separation for against all that exist. Each workload is 4,096 random pairs, about
 * half overlapping, timed in rounds over the whole set; the median of 15 rounds after one warm-up
 * round. Witness points included (the queries return them). Where Bullet is installed (built with
 * bench_collide_sat_bullet.cpp, SR_BENCH_BULLET), the box-box pairs also go through Bullet's
 * btBoxBoxDetector (ODE's dBoxBox), timed alike: the ratio of the medians (ours / Bullet's) and
 * how many of its answers disagree with ours (verdict, or depth by more than 1e-4 relative;
 * Debian's Bullet computes in float). One JSON line on stdout. Not a test.
 *   ./build/tests/bench/bench_collide_sat */
#include <softrast/collide.h>

#include "bench_random.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { PAIRS = 4096, ROUNDS = 15 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#ifdef SR_BENCH_BULLET
typedef struct bench_box {
    double half[3], position[3], rotation[4];
} bench_box;
typedef struct bench_bullet_answer {
    bool hit;
    double depth;
    int contacts;
} bench_bullet_answer;
void bench_collide_sat_bullet_begin(const bench_box *a, const bench_box *b, size_t count);
double bench_collide_sat_bullet_round(bench_bullet_answer *answers);
void bench_collide_sat_bullet_end(void);

static bench_box to_bench_box(const sr_shape *s)
{
    bench_box box = {{s->half_extents.x, s->half_extents.y, s->half_extents.z},
                     {s->pose.position.x, s->pose.position.y, s->pose.position.z},
                     {s->pose.rotation.x, s->pose.rotation.y, s->pose.rotation.z, s->pose.rotation.w}};
    return box;
}

/* One round of ours over the pairs: ns per query. */
static double our_round(const sr_shape *a, const sr_shape *b)
{
    volatile double sink = 0;
    double start = now();
    for (int i = 0; i < PAIRS; i++) {
        sr_collide_result result;
        sr_collide_sat(&a[i], &b[i], NULL, &result);
        sink += result.point_a.x;
    }
    (void)sink;
    return (now() - start) * 1e9 / PAIRS;
}

/* Bullet on the box-box pairs, rounds alternating with ours (a loaded machine slows both alike):
 * both medians, their ratio, and Bullet's disagreements with ours. */
static void compare_bullet(const sr_shape *a, const sr_shape *b)
{
    static bench_box boxes_a[PAIRS], boxes_b[PAIRS];
    static bench_bullet_answer answers[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        boxes_a[i] = to_bench_box(&a[i]);
        boxes_b[i] = to_bench_box(&b[i]);
    }
    bench_collide_sat_bullet_begin(boxes_a, boxes_b, PAIRS);
    double ours[ROUNDS], theirs[ROUNDS];
    for (int round = -1; round < ROUNDS; round++) {
        double o = our_round(a, b), t = bench_collide_sat_bullet_round(answers);
        if (round >= 0) {
            ours[round] = o;
            theirs[round] = t;
        }
    }
    bench_collide_sat_bullet_end();
    qsort(ours, ROUNDS, sizeof ours[0], compare_doubles);
    qsort(theirs, ROUNDS, sizeof theirs[0], compare_doubles);
    double ours_ns = ours[ROUNDS / 2], bullet_ns = theirs[ROUNDS / 2];
    int verdicts = 0, depths = 0;
    double worst = 0.0;
    for (int i = 0; i < PAIRS; i++) {
        sr_collide_result result;
        sr_collide_sat(&a[i], &b[i], NULL, &result);
        double size = 2 * fmax(fmax(a[i].half_extents.x, a[i].half_extents.y), a[i].half_extents.z);
        if (fabs(result.distance) <= 1e-6 * size)
            continue; /* touching within float's reach: either answer */
        if (result.hit != answers[i].hit) {
            verdicts++;
        } else if (result.hit) {
            double error = fabs(answers[i].depth + result.distance) / -result.distance;
            worst = fmax(worst, error);
            depths += error > 1e-4;
        }
    }
    printf(",\"alternating_box_box_ns\":%.1f,\"bullet_box_box_ns\":%.1f,\"box_box_ratio_to_bullet\":%.3f,\"bullet_"
           "verdicts_differ\":%d,"
           "\"bullet_depths_differ\":%d,\"bullet_worst_depth_error\":%.4f",
           ours_ns, bullet_ns, ours_ns / bullet_ns, verdicts, depths, worst);
}
#endif

typedef struct workload {
    sr_shape a[PAIRS], b[PAIRS];
    sr_hull *hulls[2 * PAIRS];
    int hull_count;
} workload;

/* The median ns per query over the rounds; *hits the overlapping pairs. */
static double time_workload(const workload *w, int *hits)
{
    double samples[ROUNDS];
    volatile double sink = 0;
    for (int round = -1; round < ROUNDS; round++) {
        int overlapping = 0;
        double start = now();
        for (int i = 0; i < PAIRS; i++) {
            sr_collide_result result;
            sr_collide_sat(&w->a[i], &w->b[i], NULL, &result);
            overlapping += result.hit;
            sink += result.point_a.x;
        }
        double elapsed = now() - start;
        if (round >= 0)
            samples[round] = elapsed * 1e9 / PAIRS;
        *hits = overlapping;
    }
    (void)sink;
    qsort(samples, ROUNDS, sizeof samples[0], compare_doubles);
    return samples[ROUNDS / 2];
}

static sr_pose random_pose(double spread)
{
    return sr_pose_make(random_vector(-spread, spread), random_rotation());
}

static sr_hull *sphere_hull(int vertices)
{
    sr_dvec3 points[256];
    for (int i = 0; i < vertices; i++) {
        sr_dvec3 d = random_vector(-1, 1);
        double length = sr_dvec3_length(d);
        points[i] = length > 0 ? sr_dvec3_scale(d, 1 / length) : sr_dvec3_make(1, 0, 0);
    }
    sr_hull *hull;
    if (sr_hull_create(points, (size_t)vertices, &hull, NULL) != SR_OK) {
        fprintf(stderr, "bench_collide_sat: sr_hull_create failed\n");
        exit(1);
    }
    return hull;
}

static void release(workload *w)
{
    for (int i = 0; i < w->hull_count; i++)
        sr_hull_destroy(w->hulls[i]);
    w->hull_count = 0;
}

/* Edge pairs whose separation the generic test computed, against all edge pairs. */
static double edge_pairs_kept(const workload *w)
{
    static sr_sat_axis axes[65536];
    sr_collide_trace trace = {.sat = axes, .sat_capacity = 65536};
    sr_collide_options options = {.trace = &trace};
    double kept = 0, all = 0;
    for (int i = 0; i < PAIRS; i++) {
        sr_collide_result result;
        sr_collide_sat(&w->a[i], &w->b[i], &options, &result);
        for (size_t k = 0; k < trace.sat_count; k++)
            kept += axes[k].kind == SR_SAT_EDGE_EDGE;
        all += (double)sr_hull_get_view(w->a[i].hull).edge_count * (double)sr_hull_get_view(w->b[i].hull).edge_count;
    }
    return kept / all;
}

int main(void)
{
    bench_random_state = 0x2545f4914f6cdd1dull;
    static workload w;
    int hits;
    printf("{\"bench\":\"collide_sat\",\"pairs\":%d,\"rounds\":%d", PAIRS, ROUNDS);

    for (int i = 0; i < PAIRS; i++) {
        w.a[i] = sr_shape_with_pose(sr_shape_box(random_vector(0.2, 1.0)), random_pose(0.0));
        w.b[i] = sr_shape_with_pose(sr_shape_box(random_vector(0.2, 1.0)), random_pose(1.2));
    }
    double box_box = time_workload(&w, &hits);
    printf(",\"box_box_ns\":%.1f,\"box_box_hits\":%d", box_box, hits);
#ifdef SR_BENCH_BULLET
    compare_bullet(w.a, w.b);
#endif

    /* the same boxes as hulls of their corners: the generic test */
    for (int i = 0; i < PAIRS; i++) {
        sr_shape *shapes[2] = {&w.a[i], &w.b[i]};
        for (int s = 0; s < 2; s++) {
            sr_dvec3 h = shapes[s]->half_extents, corners[8];
            for (int k = 0; k < 8; k++)
                corners[k] = sr_dvec3_make(k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z);
            sr_hull *hull;
            sr_hull_create(corners, 8, &hull, NULL);
            w.hulls[w.hull_count++] = hull;
            *shapes[s] = sr_shape_with_pose(sr_shape_hull(hull), shapes[s]->pose);
        }
    }
    double boxes_as_hulls = time_workload(&w, &hits);
    printf(",\"box_box_as_hulls_ns\":%.1f,\"box_box_as_hulls_hits\":%d", boxes_as_hulls, hits);
    release(&w);

    for (int i = 0; i < PAIRS; i++) {
        w.a[i] = sr_shape_with_pose(sr_shape_box(random_vector(0.2, 1.0)), random_pose(0.0));
        sr_dvec3 p = random_vector(-1.5, 1.5), q = random_vector(-1.5, 1.5), r = random_vector(-1.5, 1.5);
        w.b[i] = sr_shape_with_pose(sr_shape_triangle(p, q, r), random_pose(0.8));
    }
    double triangle_box = time_workload(&w, &hits);
    printf(",\"box_triangle_ns\":%.1f,\"box_triangle_hits\":%d", triangle_box, hits);

    const int sizes[4] = {20, 50, 150};
    for (int s = 0; s < 3; s++) {
        sr_hull *shared[16];
        for (int k = 0; k < 16; k++)
            shared[k] = sphere_hull(sizes[s]);
        for (int i = 0; i < PAIRS; i++) {
            w.a[i] = sr_shape_with_pose(sr_shape_hull(shared[i % 16]), random_pose(0.0));
            w.b[i] = sr_shape_with_pose(sr_shape_hull(shared[(i * 7 + 3) % 16]), random_pose(1.3));
        }
        double hull_hull = time_workload(&w, &hits);
        printf(",\"hull%d_hull%d_ns\":%.1f,\"hull%d_hits\":%d,\"hull%d_edge_pairs_kept\":%.4f", sizes[s], sizes[s],
               hull_hull, sizes[s], hits, sizes[s], edge_pairs_kept(&w));
        for (int k = 0; k < 16; k++)
            sr_hull_destroy(shared[k]);
    }
    printf("}\n");
    return 0;
}
