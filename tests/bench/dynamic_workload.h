/* tests/bench/dynamic_workload.h — the workload of the dynamic-tree benchmark, shared by
 * bench_dynamic.c (softrast's tree) and its side-by-side baselines bench_dynamic_bullet.cpp
 * (Bullet's btDbvt) and bench_dynamic_box2d.cpp (Box2D's b2DynamicTree), so that the three
 * programs time the same boxes, the same moves, the same removal order and the same frustum, and
 * print one JSON line with the same field names.
 *
 * The world: 100,000 game-sized boxes in a 2000 x 50 x 2000 region (mostly props of 0.5-4 units,
 * one in 50 a building of 5-20), one random generator (splitmix64) with one seed. Each run
 * inserts all of them into an empty tree, culls them with a camera that sees ~16,000, moves them
 * three ways, removes them in a random order, then times a 10,000-object tree. Medians over
 * WORKLOAD_RUNS runs after one warm-up run.
 *
 * Plain C17 that is also valid C++ (no softrast types, no compound literals, explicit casts of
 * malloc), all functions static inline so that each program uses what it needs. Not a test. */
#ifndef SOFTRAST_BENCH_DYNAMIC_WORKLOAD_H
#define SOFTRAST_BENCH_DYNAMIC_WORKLOAD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORKLOAD_OBJECTS 100000
#define WORKLOAD_SMALL_OBJECTS 10000
#define WORKLOAD_BATCH 100
#define WORKLOAD_RUNS 7
#define WORKLOAD_QUERIES 9 /* frustum queries per run; their median is the run's figure */
#define WORKLOAD_TARGET_VISIBLE 16000
#define WORKLOAD_SEED 2024u
#define WORKLOAD_WORLD_XZ 1000.0f
#define WORKLOAD_WORLD_Y 50.0f
/* Fat-box margin: softrast's default, Box2D's b2_aabbExtension; given to Bullet explicitly. */
#define WORKLOAD_MARGIN 0.1f

typedef struct workload_vec3 {
    float x, y, z;
} workload_vec3;

typedef struct workload_box {
    workload_vec3 min, max;
} workload_box;

/* A point p is inside (or on) the plane when dot(normal, p) + d >= 0 (softrast's and Bullet's
 * convention). Not normalised. */
typedef struct workload_plane {
    workload_vec3 normal;
    float d;
} workload_plane;

typedef struct workload {
    uint64_t rng_state;
    workload_box *boxes;            /* tight boxes as inserted, WORKLOAD_OBJECTS */
    int *removal_order;             /* a random permutation of the objects */
    workload_vec3 *offset_inside;   /* move pass 1: jitter that stays inside the margin */
    workload_vec3 *offset_reinsert; /* move pass 2: every object leaves its fat box */
    workload_vec3 *offset_mixed;    /* move pass 3: 90% jitter, 10% leave (from pass 2's places) */
    int mixed_leaving;              /* objects pass 3 moves by more than the margin */
    float far_z;                    /* far-plane distance at which ~WORKLOAD_TARGET_VISIBLE are seen */
    workload_plane planes[6];       /* left, right, bottom, top, near, far */
    int expected_visible;           /* fat boxes not wholly outside a plane, by brute force */
} workload;

/* ---- random numbers: splitmix64 (Steele, Lea, Flood 2014) ---- */

static inline uint64_t workload_random(workload *w)
{
    uint64_t z = (w->rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline float workload_random_float(workload *w, float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(workload_random(w) >> 11) * (1.0 / 9007199254740992.0));
}

static inline workload_vec3 workload_vec3_make(float x, float y, float z)
{
    workload_vec3 v;
    v.x = x, v.y = y, v.z = z;
    return v;
}

static inline workload_vec3 workload_vec3_add(workload_vec3 a, workload_vec3 b)
{
    return workload_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline workload_vec3 workload_vec3_scale(workload_vec3 a, float s)
{
    return workload_vec3_make(a.x * s, a.y * s, a.z * s);
}

static inline float workload_vec3_dot(workload_vec3 a, workload_vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline workload_vec3 workload_vec3_cross(workload_vec3 a, workload_vec3 b)
{
    return workload_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline workload_vec3 workload_vec3_normalize(workload_vec3 a)
{
    return workload_vec3_scale(a, 1.0f / sqrtf(workload_vec3_dot(a, a)));
}

static inline workload_box workload_box_shifted(workload_box b, workload_vec3 offset)
{
    workload_box r;
    r.min = workload_vec3_add(b.min, offset);
    r.max = workload_vec3_add(b.max, offset);
    return r;
}

static inline workload_box workload_box_expanded(workload_box b, float margin)
{
    workload_box r;
    r.min = workload_vec3_make(b.min.x - margin, b.min.y - margin, b.min.z - margin);
    r.max = workload_vec3_make(b.max.x + margin, b.max.y + margin, b.max.z + margin);
    return r;
}

/* Sizes like a game's: mostly props of 0.5-4 units, one in 50 a building-sized 5-20. */
static inline workload_box workload_random_box(workload *w)
{
    workload_vec3 centre = workload_vec3_make(workload_random_float(w, -WORKLOAD_WORLD_XZ, WORKLOAD_WORLD_XZ),
                                              workload_random_float(w, 0.0f, WORKLOAD_WORLD_Y),
                                              workload_random_float(w, -WORKLOAD_WORLD_XZ, WORKLOAD_WORLD_XZ));
    float size =
        workload_random(w) % 50 == 0 ? workload_random_float(w, 5.0f, 20.0f) : workload_random_float(w, 0.5f, 4.0f);
    float hx = size * workload_random_float(w, 0.25f, 0.5f);
    float hy = size * workload_random_float(w, 0.25f, 0.5f);
    float hz = size * workload_random_float(w, 0.25f, 0.5f);
    workload_box b;
    b.min = workload_vec3_make(centre.x - hx, centre.y - hy, centre.z - hz);
    b.max = workload_vec3_make(centre.x + hx, centre.y + hy, centre.z + hz);
    return b;
}

/* ---- the camera: a player near the ground in the middle of the world, looking along -z ---- */

#define WORKLOAD_EYE_X 0.0f
#define WORKLOAD_EYE_Y 10.0f
#define WORKLOAD_EYE_Z 0.0f
#define WORKLOAD_TARGET_Y 8.0f
#define WORKLOAD_TARGET_Z (-100.0f)
#define WORKLOAD_FOV_Y_DEGREES 60.0f
#define WORKLOAD_ASPECT (16.0f / 9.0f)
#define WORKLOAD_NEAR 0.1f

typedef struct workload_camera {
    workload_vec3 eye, forward, right, up;
    float tan_half_x, tan_half_y;
} workload_camera;

static inline workload_camera workload_make_camera(void)
{
    workload_camera c;
    c.eye = workload_vec3_make(WORKLOAD_EYE_X, WORKLOAD_EYE_Y, WORKLOAD_EYE_Z);
    c.forward = workload_vec3_normalize(
        workload_vec3_make(0.0f, WORKLOAD_TARGET_Y - WORKLOAD_EYE_Y, WORKLOAD_TARGET_Z - WORKLOAD_EYE_Z));
    c.right = workload_vec3_normalize(workload_vec3_cross(c.forward, workload_vec3_make(0.0f, 1.0f, 0.0f)));
    c.up = workload_vec3_cross(c.right, c.forward);
    c.tan_half_y = tanf(0.5f * WORKLOAD_FOV_Y_DEGREES * 3.14159265358979f / 180.0f);
    c.tan_half_x = c.tan_half_y * WORKLOAD_ASPECT;
    return c;
}

static inline workload_plane workload_plane_through(workload_vec3 normal, workload_vec3 point)
{
    workload_plane p;
    p.normal = normal;
    p.d = -workload_vec3_dot(normal, point);
    return p;
}

/* The six planes built from the camera's geometry. With p = eye + a forward + b right + c up, the
 * view volume is |b| <= a tan_half_x, |c| <= a tan_half_y, near <= a <= far: each inequality,
 * rearranged to (linear form) >= 0, is one plane through the eye (sides) or across the view axis. */
static inline void workload_frustum_planes(float far_z, workload_plane planes[6])
{
    workload_camera c = workload_make_camera();
    workload_vec3 f = c.forward;
    planes[0] = workload_plane_through(workload_vec3_add(c.right, workload_vec3_scale(f, c.tan_half_x)), c.eye);
    planes[1] = workload_plane_through(
        workload_vec3_add(workload_vec3_scale(c.right, -1.0f), workload_vec3_scale(f, c.tan_half_x)), c.eye);
    planes[2] = workload_plane_through(workload_vec3_add(c.up, workload_vec3_scale(f, c.tan_half_y)), c.eye);
    planes[3] = workload_plane_through(
        workload_vec3_add(workload_vec3_scale(c.up, -1.0f), workload_vec3_scale(f, c.tan_half_y)), c.eye);
    planes[4] = workload_plane_through(f, workload_vec3_add(c.eye, workload_vec3_scale(f, WORKLOAD_NEAR)));
    planes[5] =
        workload_plane_through(workload_vec3_scale(f, -1.0f), workload_vec3_add(c.eye, workload_vec3_scale(f, far_z)));
}

/* The frustum's bounding box on the x-z ground plane (its eight corners projected): the region a
 * 2D tree can be asked about. */
static inline void workload_frustum_footprint(float far_z, float min_xz[2], float max_xz[2])
{
    workload_camera c = workload_make_camera();
    min_xz[0] = min_xz[1] = INFINITY;
    max_xz[0] = max_xz[1] = -INFINITY;
    for (int corner = 0; corner < 8; corner++) {
        float distance = corner & 4 ? far_z : WORKLOAD_NEAR;
        float side = (corner & 1 ? 1.0f : -1.0f) * distance * c.tan_half_x;
        float height = (corner & 2 ? 1.0f : -1.0f) * distance * c.tan_half_y;
        workload_vec3 p =
            workload_vec3_add(c.eye, workload_vec3_add(workload_vec3_scale(c.forward, distance),
                                                       workload_vec3_add(workload_vec3_scale(c.right, side),
                                                                         workload_vec3_scale(c.up, height))));
        min_xz[0] = fminf(min_xz[0], p.x), max_xz[0] = fmaxf(max_xz[0], p.x);
        min_xz[1] = fminf(min_xz[1], p.z), max_xz[1] = fmaxf(max_xz[1], p.z);
    }
}

/* Conservative box test (p-vertex): true unless the box is wholly on the negative side of a plane. */
static inline bool workload_box_in_frustum(const workload_plane planes[6], const workload_box *b)
{
    for (int i = 0; i < 6; i++) {
        const workload_plane *p = &planes[i];
        workload_vec3 positive =
            workload_vec3_make(p->normal.x >= 0.0f ? b->max.x : b->min.x, p->normal.y >= 0.0f ? b->max.y : b->min.y,
                               p->normal.z >= 0.0f ? b->max.z : b->min.z);
        if (workload_vec3_dot(p->normal, positive) + p->d < 0.0f)
            return false;
    }
    return true;
}

static inline int workload_count_visible(const workload *w, float far_z)
{
    workload_plane planes[6];
    workload_frustum_planes(far_z, planes);
    int visible = 0;
    for (int i = 0; i < WORKLOAD_OBJECTS; i++) {
        workload_box fat = workload_box_expanded(w->boxes[i], WORKLOAD_MARGIN);
        visible += workload_box_in_frustum(planes, &fat);
    }
    return visible;
}

/* ---- setup ---- */

static inline void workload_destroy(workload *w)
{
    free(w->boxes);
    free(w->removal_order);
    free(w->offset_inside);
    free(w->offset_reinsert);
    free(w->offset_mixed);
}

/* Generates the boxes, the removal order and the frustum; false when out of memory. */
static inline bool workload_init(workload *w)
{
    memset(w, 0, sizeof *w);
    w->rng_state = WORKLOAD_SEED;
    w->boxes = (workload_box *)malloc(sizeof(workload_box) * WORKLOAD_OBJECTS);
    w->removal_order = (int *)malloc(sizeof(int) * WORKLOAD_OBJECTS);
    w->offset_inside = (workload_vec3 *)malloc(sizeof(workload_vec3) * WORKLOAD_OBJECTS);
    w->offset_reinsert = (workload_vec3 *)malloc(sizeof(workload_vec3) * WORKLOAD_OBJECTS);
    w->offset_mixed = (workload_vec3 *)malloc(sizeof(workload_vec3) * WORKLOAD_OBJECTS);
    if (!w->boxes || !w->removal_order || !w->offset_inside || !w->offset_reinsert || !w->offset_mixed) {
        workload_destroy(w);
        return false;
    }
    for (int i = 0; i < WORKLOAD_OBJECTS; i++) {
        w->boxes[i] = workload_random_box(w);
        w->removal_order[i] = i;
    }
    for (int i = WORKLOAD_OBJECTS - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)(workload_random(w) % (uint64_t)(i + 1));
        int swap = w->removal_order[i];
        w->removal_order[i] = w->removal_order[j];
        w->removal_order[j] = swap;
    }
    /* Far plane by bisection on the brute-force count of the fat boxes (tight + margin, what every
     * tree stores right after insertion), so that all three programs cull with the same planes. */
    float lo = 10.0f, hi = 4000.0f;
    for (int k = 0; k < 40; k++) {
        float mid = 0.5f * (lo + hi);
        if (workload_count_visible(w, mid) < WORKLOAD_TARGET_VISIBLE)
            lo = mid;
        else
            hi = mid;
    }
    w->far_z = hi;
    workload_frustum_planes(hi, w->planes);
    w->expected_visible = workload_count_visible(w, hi);
    return true;
}

/* The three move passes of one run, drawn before anything is timed. Offsets are from the inserted
 * boxes (each run starts from a fresh tree), so the moves are teleports to new places, not a
 * continuous motion: the displacement argument of every tree is zero (no predictive enlargement).
 * Inside: jitter within the margin (no tree changes). Reinsert: every object moves 0.5-2 units in x
 * and up to 2 in z (always leaves its fat box). Mixed, relative to where the reinsert pass left
 * each box: 90% jitter, 10% move up to 2 units (the game-like mix). */
static inline void workload_make_offsets(workload *w)
{
    for (int i = 0; i < WORKLOAD_OBJECTS; i++)
        w->offset_inside[i] =
            workload_vec3_make(workload_random_float(w, -0.04f, 0.04f), workload_random_float(w, -0.04f, 0.04f),
                               workload_random_float(w, -0.04f, 0.04f));
    for (int i = 0; i < WORKLOAD_OBJECTS; i++) {
        float sign = workload_random(w) & 1 ? 1.0f : -1.0f;
        w->offset_reinsert[i] =
            workload_vec3_make(sign * workload_random_float(w, 0.5f, 2.0f), workload_random_float(w, -0.2f, 0.2f),
                               workload_random_float(w, -2.0f, 2.0f));
    }
    w->mixed_leaving = 0;
    for (int i = 0; i < WORKLOAD_OBJECTS; i++) {
        bool leaves = workload_random(w) % 10 == 0;
        workload_vec3 step = leaves ? workload_vec3_make(workload_random_float(w, -2.0f, 2.0f), 0.0f,
                                                         workload_random_float(w, -2.0f, 2.0f))
                                    : workload_vec3_make(workload_random_float(w, -0.04f, 0.04f), 0.0f, 0.0f);
        w->offset_mixed[i] = workload_vec3_add(w->offset_reinsert[i], step);
        w->mixed_leaving += leaves;
    }
}

/* ---- timing and output ---- */

static inline double workload_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int workload_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* Median of count values (sorted in place); NaN values (not measured) sort nowhere useful, so a
 * program that does not measure a figure leaves all its samples NaN and gets NaN back. */
static inline double workload_median(double *values, int count)
{
    if (isnan(values[0]))
        return NAN;
    qsort(values, (size_t)count, sizeof *values, workload_compare_double);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* Per-run samples of every timed figure; a program fills what it measures and leaves the rest NaN. */
typedef struct workload_samples {
    double insert_us[WORKLOAD_RUNS];
    double move_mixed_us[WORKLOAD_RUNS];
    double move_inside_fat_us[WORKLOAD_RUNS];
    double move_reinsert_us[WORKLOAD_RUNS];
    double remove_us[WORKLOAD_RUNS];
    double frustum_ms[WORKLOAD_RUNS];
    double rebuild_100k_ms[WORKLOAD_RUNS];
    double build_10k_by_insert_ms[WORKLOAD_RUNS];
    double rebuild_10k_ms[WORKLOAD_RUNS];
    double insert_batch_10k_ms[WORKLOAD_RUNS];
} workload_samples;

/* Tree statistics of the last run (NaN / -1 where the tree cannot report them). */
typedef struct workload_tree_figures {
    double mixed_reinserted; /* fraction of the mixed pass's moves that changed the tree */
    int frustum_visible;     /* proxies the cull reported */
    double sah_incremental;  /* softrast's SAH cost definition (bvh_dynamic.h) after the inserts */
    double sah_rebuilt;      /* the same after the rebuild */
    int height_incremental;  /* root height after the inserts (leaves 0) */
} workload_tree_figures;

static inline void workload_samples_init(workload_samples *s)
{
    double *values = (double *)s;
    for (size_t i = 0; i < sizeof *s / sizeof(double); i++)
        values[i] = NAN;
}

/* Fills run `run`'s samples of the passes every program times alike: the 100k inserts [t0, t1],
 * the three move passes [m0, m1] (inside the fat box), [m1, m2] (reinsert) and [m2, m3] (mixed),
 * the removals [r0, r1] (seconds), and the frustum cull's median in seconds. */
static inline void workload_record_passes(workload_samples *s, int run, double t0, double t1, double m0, double m1,
                                          double m2, double m3, double r0, double r1, double frustum_seconds)
{
    s->insert_us[run] = (t1 - t0) * 1e6 / WORKLOAD_OBJECTS;
    s->frustum_ms[run] = frustum_seconds * 1e3;
    s->move_inside_fat_us[run] = (m1 - m0) * 1e6 / WORKLOAD_OBJECTS;
    s->move_reinsert_us[run] = (m2 - m1) * 1e6 / WORKLOAD_OBJECTS;
    s->move_mixed_us[run] = (m3 - m2) * 1e6 / WORKLOAD_OBJECTS;
    s->remove_us[run] = (r1 - r0) * 1e6 / WORKLOAD_OBJECTS;
}

static inline void workload_print_number(const char *name, double value, const char *format)
{
    printf(",\"%s\":", name);
    if (isnan(value))
        printf("null");
    else
        printf(format, value);
}

/* One JSON line on stdout with the same field names in every program; `extra` is appended inside
 * the object as is (",\"name\":value..." or ""). */
static inline void workload_print(const char *bench, const workload *w, workload_samples *s,
                                  const workload_tree_figures *t, const char *extra)
{
    double batch_ms = workload_median(s->insert_batch_10k_ms, WORKLOAD_RUNS);
    printf("{\"bench\":\"%s\",\"objects\":%d,\"runs\":%d", bench, WORKLOAD_OBJECTS, WORKLOAD_RUNS);
    workload_print_number("insert_us", workload_median(s->insert_us, WORKLOAD_RUNS), "%.3f");
    workload_print_number("move_mixed_us", workload_median(s->move_mixed_us, WORKLOAD_RUNS), "%.3f");
    workload_print_number("move_mixed_reinserted", t->mixed_reinserted, "%.3f");
    workload_print_number("move_inside_fat_us", workload_median(s->move_inside_fat_us, WORKLOAD_RUNS), "%.3f");
    workload_print_number("move_reinsert_us", workload_median(s->move_reinsert_us, WORKLOAD_RUNS), "%.3f");
    workload_print_number("remove_us", workload_median(s->remove_us, WORKLOAD_RUNS), "%.3f");
    workload_print_number("frustum_ms", workload_median(s->frustum_ms, WORKLOAD_RUNS), "%.3f");
    printf(",\"frustum_visible\":%d,\"frustum_expected\":%d", t->frustum_visible, w->expected_visible);
    workload_print_number("frustum_far", (double)w->far_z, "%.1f");
    workload_print_number("rebuild_100k_ms", workload_median(s->rebuild_100k_ms, WORKLOAD_RUNS), "%.2f");
    workload_print_number("sah_incremental", t->sah_incremental, "%.2f");
    workload_print_number("sah_rebuilt", t->sah_rebuilt, "%.2f");
    workload_print_number("height_incremental", t->height_incremental < 0 ? NAN : t->height_incremental, "%.0f");
    workload_print_number("build_10k_by_insert_ms", workload_median(s->build_10k_by_insert_ms, WORKLOAD_RUNS), "%.3f");
    workload_print_number("rebuild_10k_ms", workload_median(s->rebuild_10k_ms, WORKLOAD_RUNS), "%.3f");
    char batch_name[64];
    snprintf(batch_name, sizeof batch_name, "insert_batch_%d_into_10k_ms", WORKLOAD_BATCH);
    workload_print_number(batch_name, batch_ms, "%.4f");
    workload_print_number("insert_into_10k_us", batch_ms * 1e3 / WORKLOAD_BATCH, "%.3f");
    printf("%s}\n", extra ? extra : "");
}

#endif
