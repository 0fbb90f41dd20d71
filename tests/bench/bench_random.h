/* tests/bench/bench_random.h — the random poses and the median sort that the collision
 * benchmarks share (bench_collide_core.c, bench_collide_sat.c): a xorshift generator whose state
 * each program seeds itself, vectors and uniformly distributed rotations, and the comparison
 * qsort takes to sort timings. Header-only, for benchmark programs. */
#ifndef SR_TESTS_BENCH_RANDOM_H
#define SR_TESTS_BENCH_RANDOM_H

#include <softrast/collide.h>

#include <math.h>
#include <stdint.h>

/// The generator's state: each program sets its own seed before the first draw.
static uint64_t bench_random_state = 0x9e3779b97f4a7c15ull;

/// Uniform in [low, high).
static inline double uniform(double low, double high)
{
    bench_random_state ^= bench_random_state << 13;
    bench_random_state ^= bench_random_state >> 7;
    bench_random_state ^= bench_random_state << 17;
    return low + (high - low) * (double)(bench_random_state >> 11) * 0x1p-53;
}

/// Each coordinate uniform in [low, high).
static inline sr_dvec3 random_vector(double low, double high)
{
    double x = uniform(low, high), y = uniform(low, high), z = uniform(low, high);
    return sr_dvec3_make(x, y, z);
}

/// A rotation drawn uniformly (Shoemake's subgroup algorithm).
static inline sr_dquat random_rotation(void)
{
    double u1 = uniform(0, 1), u2 = uniform(0, 2 * M_PI), u3 = uniform(0, 2 * M_PI);
    double a = sqrt(1 - u1), b = sqrt(u1);
    sr_dquat q = {a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)};
    return q;
}

/// qsort's comparison of doubles, ascending.
static inline int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
