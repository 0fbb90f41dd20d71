/* test_random.h — a small deterministic generator for the tests' random data (xorshift64), the
 * same sequence on every machine and compiler. Header-only; one state per test program (each
 * criterion test runs in its own process, and seeds it). */
#ifndef SR_TESTS_RANDOM_H
#define SR_TESTS_RANDOM_H

#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline void rng_seed(uint64_t seed)
{
    rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
}

/// Uniform in [0, 1).
static inline double rng_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * 0x1p-53;
}

/// Uniform in [low, high), as a float.
static inline float rng_range(double low, double high)
{
    return (float)(low + (high - low) * rng_uniform());
}

#endif
