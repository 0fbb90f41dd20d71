/* tests/bench/bench_collide_core.c — benchmark of the core pair queries of softrast/collide.h:
 * the median time per query, one thread, of sr_collide_intersect, sr_collide_distance,
 * sr_collide_penetration, sr_collide_signed_distance, sr_collide_ray_cast and
 * sr_collide_shape_cast over a mix of 4,096 random pairs of every shape type (spheres, boxes,
 * capsules, cylinders, cones, hulls of 16 points, triangles, segments; a quarter rounded; about
 * half overlapping), and the same queries on the polytope pairs and the curved pairs of the mix
 * apart, and on its pairs of a sphere against a box, cylinder or cone. QUERY_ns is the mean time
 * per query of the set, the median of 15 rounds over the whole set after one warm-up round, in
 * the thread's CPU time (the machine may be shared: time spent descheduled is not counted);
 * QUERY_median_ns the median over the pairs of each pair's own time
 * (the fastest of 7 timings of 8 repetitions each). One JSON line on stdout. Not a test.
 *   ./build/tests/bench/bench_collide_core */
#include <softrast/collide.h>

#include "bench_random.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { PAIRS = 4096, ROUNDS = 15 };

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct pair_set {
    sr_shape a[PAIRS], b[PAIRS];
    sr_dvec3 ray_origin[PAIRS], ray_direction[PAIRS], sweep[PAIRS];
    int count;
} pair_set;

static sr_hull *hulls[2 * PAIRS];
static int hull_count;

static bool is_curved(sr_shape_type t)
{
    return t == SR_SHAPE_CYLINDER || t == SR_SHAPE_CONE;
}

static sr_shape random_shape(int type)
{
    sr_shape s;
    switch (type) {
    case 0:
        s = sr_shape_sphere(uniform(0.2, 1));
        break;
    case 1:
        s = sr_shape_box(random_vector(0.2, 1));
        break;
    case 2:
        s = sr_shape_capsule(uniform(0.1, 0.5), uniform(0.1, 1));
        break;
    case 3:
        s = sr_shape_cylinder(uniform(0.2, 1), uniform(0.2, 1));
        break;
    case 4:
        s = sr_shape_cone(uniform(0.2, 1), uniform(0.2, 1));
        break;
    case 5: {
        sr_dvec3 points[16];
        for (int i = 0; i < 16; i++)
            points[i] = random_vector(-1, 1);
        sr_hull_create(points, 16, &hulls[hull_count], NULL);
        s = sr_shape_hull(hulls[hull_count++]);
        break;
    }
    case 6:
        s = sr_shape_triangle(random_vector(-1, 1), random_vector(-1, 1), random_vector(-1, 1));
        break;
    default:
        s = sr_shape_segment(random_vector(-1, 1), random_vector(-1, 1));
        break;
    }
    if (uniform(0, 1) < 0.25)
        s.rounding = uniform(0.02, 0.2);
    return s;
}

static void generate(pair_set *mix)
{
    for (int k = 0; k < PAIRS; k++) {
        mix->a[k] = random_shape((int)uniform(0, 8));
        mix->b[k] = random_shape((int)uniform(0, 8));
        mix->a[k].pose = sr_pose_make(random_vector(-0.2, 0.2), random_rotation());
        /* a distance from 0 to 2.4 between the centres: about half overlap */
        sr_dvec3 d = random_vector(-1, 1);
        double length = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        double r = uniform(0, 2.4) / (length > 0 ? length : 1);
        mix->b[k].pose = sr_pose_make(sr_dvec3_make(d.x * r, d.y * r, d.z * r), random_rotation());
        mix->ray_origin[k] = random_vector(-3, 3);
        sr_dvec3 target = random_vector(-0.5, 0.5);
        mix->ray_direction[k] = sr_dvec3_sub(target, mix->ray_origin[k]);
        mix->sweep[k] = sr_dvec3_scale(sr_dvec3_sub(mix->b[k].pose.position, mix->a[k].pose.position), 1.5);
    }
    mix->count = PAIRS;
}

/* The mix's pairs of a sphere against a box, cylinder or cone (closed forms in query.c). */
static bool is_sphere_against_solid(sr_shape_type a, sr_shape_type b)
{
    bool solid_b = b == SR_SHAPE_BOX || b == SR_SHAPE_CYLINDER || b == SR_SHAPE_CONE;
    bool solid_a = a == SR_SHAPE_BOX || a == SR_SHAPE_CYLINDER || a == SR_SHAPE_CONE;
    return (a == SR_SHAPE_SPHERE && solid_b) || (b == SR_SHAPE_SPHERE && solid_a);
}

static void copy_pair(const pair_set *mix, int k, pair_set *out)
{
    out->a[out->count] = mix->a[k];
    out->b[out->count] = mix->b[k];
    out->ray_origin[out->count] = mix->ray_origin[k];
    out->ray_direction[out->count] = mix->ray_direction[k];
    out->sweep[out->count] = mix->sweep[k];
    out->count++;
}

static void sphere_subset(const pair_set *mix, pair_set *out)
{
    out->count = 0;
    for (int k = 0; k < mix->count; k++)
        if (is_sphere_against_solid(mix->a[k].type, mix->b[k].type))
            copy_pair(mix, k, out);
}

/* A subset of the mix: its polytope pairs, or its pairs with a cylinder or cone, that are apart. */
static void subset(const pair_set *mix, bool curved, pair_set *out)
{
    out->count = 0;
    for (int k = 0; k < mix->count; k++) {
        bool c = is_curved(mix->a[k].type) || is_curved(mix->b[k].type);
        bool round = mix->a[k].rounding > 0 || mix->b[k].rounding > 0 || mix->a[k].type == SR_SHAPE_SPHERE ||
                     mix->b[k].type == SR_SHAPE_SPHERE || mix->a[k].type == SR_SHAPE_CAPSULE ||
                     mix->b[k].type == SR_SHAPE_CAPSULE;
        if (c != curved || (!curved && round))
            continue;
        copy_pair(mix, k, out);
    }
}

enum { Q_INTERSECT, Q_DISTANCE, Q_PENETRATION, Q_SIGNED, Q_RAY, Q_CAST, Q_COUNT };
static const char *const names[Q_COUNT] = {"intersect",       "distance", "penetration",
                                           "signed_distance", "ray_cast", "shape_cast"};

static volatile double sink;

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One query of the set, its result folded into a sum so that it is not optimised away. */
static double one(const pair_set *set, int query, int k)
{
    sr_collide_result r;
    bool hit;
    sr_collide_ray_hit ray;
    sr_collide_cast_hit cast;
    switch (query) {
    case Q_INTERSECT:
        sr_collide_intersect(&set->a[k], &set->b[k], NULL, NULL, &hit);
        return hit;
    case Q_DISTANCE:
        sr_collide_distance(&set->a[k], &set->b[k], NULL, &r);
        return r.distance;
    case Q_PENETRATION:
        sr_collide_penetration(&set->a[k], &set->b[k], NULL, &r);
        return r.distance;
    case Q_SIGNED:
        sr_collide_signed_distance(&set->a[k], &set->b[k], NULL, &r);
        return r.distance;
    case Q_RAY:
        sr_collide_ray_cast(&set->b[k], set->ray_origin[k], set->ray_direction[k], 1.0, NULL, &ray);
        return ray.t;
    default:
        sr_collide_shape_cast(&set->a[k], set->sweep[k], &set->b[k], NULL, &cast);
        return cast.t;
    }
}

/* The median over the pairs of each pair's time (the fastest of 7 timings of 8 repetitions, the
 * clock's own cost subtracted): the figure a per-query median of other libraries compares with. */
static double median_per_query(const pair_set *set, int query)
{
    static double times[PAIRS];
    double clock_cost = 1e9;
    for (int i = 0; i < 100; i++) {
        double t0 = wall_now(), t1 = wall_now();
        clock_cost = fmin(clock_cost, t1 - t0);
    }
    for (int k = 0; k < set->count; k++) {
        double best = 1e9;
        for (int round = 0; round < 7; round++) {
            double t0 = wall_now(), total = 0;
            for (int repeat = 0; repeat < 8; repeat++)
                total += one(set, query, k);
            double t = (wall_now() - t0 - clock_cost) / 8;
            sink += total;
            best = fmin(best, t);
        }
        times[k] = best * 1e9;
    }
    qsort(times, (size_t)set->count, sizeof *times, compare_doubles);
    return times[set->count / 2];
}

static double run(const pair_set *set, int query)
{
    double samples[ROUNDS];
    for (int round = -1; round < ROUNDS; round++) {
        double start = cpu_now(), total = 0;
        for (int k = 0; k < set->count; k++) {
            sr_collide_result r;
            bool hit;
            sr_collide_ray_hit ray;
            sr_collide_cast_hit cast;
            switch (query) {
            case Q_INTERSECT:
                sr_collide_intersect(&set->a[k], &set->b[k], NULL, NULL, &hit);
                total += hit;
                break;
            case Q_DISTANCE:
                sr_collide_distance(&set->a[k], &set->b[k], NULL, &r);
                total += r.distance;
                break;
            case Q_PENETRATION:
                sr_collide_penetration(&set->a[k], &set->b[k], NULL, &r);
                total += r.distance;
                break;
            case Q_SIGNED:
                sr_collide_signed_distance(&set->a[k], &set->b[k], NULL, &r);
                total += r.distance;
                break;
            case Q_RAY:
                sr_collide_ray_cast(&set->b[k], set->ray_origin[k], set->ray_direction[k], 1.0, NULL, &ray);
                total += ray.t;
                break;
            default:
                sr_collide_shape_cast(&set->a[k], set->sweep[k], &set->b[k], NULL, &cast);
                total += cast.t;
                break;
            }
        }
        sink += total;
        if (round >= 0)
            samples[round] = (cpu_now() - start) / set->count * 1e9;
    }
    qsort(samples, ROUNDS, sizeof *samples, compare_doubles);
    return samples[ROUNDS / 2];
}

int main(void)
{
    bench_random_state = 0x9e3779b97f4a7c15ull;
    static pair_set mix, polytopes, curved, spheres;
    generate(&mix);
    subset(&mix, false, &polytopes);
    subset(&mix, true, &curved);
    sphere_subset(&mix, &spheres);
    int overlapping = 0;
    for (int k = 0; k < mix.count; k++) {
        bool hit;
        sr_collide_intersect(&mix.a[k], &mix.b[k], NULL, NULL, &hit);
        overlapping += hit;
    }
    printf("{\"bench\":\"collide_core\",\"pairs\":%d,\"overlapping\":%d", mix.count, overlapping);
    const pair_set *sets[4] = {&mix, &polytopes, &curved, &spheres};
    const char *set_names[4] = {"mix", "polytopes", "curved", "spheres"};
    for (int s = 0; s < 4; s++) {
        printf(",\"%s\":{\"pairs\":%d", set_names[s], sets[s]->count);
        for (int q = 0; q < Q_COUNT; q++)
            printf(",\"%s_ns\":%.0f,\"%s_median_ns\":%.0f", names[q], run(sets[s], q), names[q],
                   median_per_query(sets[s], q));
        printf("}");
    }
    printf("}\n");
    for (int i = 0; i < hull_count; i++)
        sr_hull_destroy(hulls[i]);
    return 0;
}
