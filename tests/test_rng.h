/* test_rng.h — a deterministic generator with its state in the caller's hands (xorshift64*), for
 * tests that draw several independent streams (test_bvh.c, test_bvh_wide.c); the same sequence
 * on every machine and compiler. Header-only. (test_random.h is the one-state-per-program
 * generator of the other tests.)
 *
 * Values are drawn in separate statements, never as two arguments of one call, whose evaluation
 * order C leaves unspecified (gcc goes right to left, clang left to right): the tests' data must
 * not depend on the compiler. (Initialiser lists are evaluated left to right by both.) */
#ifndef SR_TESTS_RNG_H
#define SR_TESTS_RNG_H

#include <softrast/math.h>
#include <softrast/geom.h>

#include <stdint.h>

typedef struct rng {
    uint64_t state;
} rng;

static inline uint32_t rng_next(rng *r)
{
    r->state ^= r->state >> 12;
    r->state ^= r->state << 25;
    r->state ^= r->state >> 27;
    return (uint32_t)((r->state * 0x2545F4914F6CDD1DULL) >> 32);
}

/* uniform in [0, 1) */
static inline float rng_unit(rng *r)
{
    return (float)(rng_next(r) >> 8) * 0x1p-24f;
}

static inline float rng_range(rng *r, float low, float high)
{
    return low + (high - low) * rng_unit(r);
}

static inline sr_vec3 rng_in_box(rng *r, sr_aabb box)
{
    return (sr_vec3){rng_range(r, box.min.x, box.max.x), rng_range(r, box.min.y, box.max.y),
                     rng_range(r, box.min.z, box.max.z)};
}

/* uniform direction on the unit sphere */
static inline sr_vec3 rng_direction(rng *r)
{
    for (;;) {
        sr_vec3 d = {rng_range(r, -1, 1), rng_range(r, -1, 1), rng_range(r, -1, 1)};
        float length = sr_vec3_length(d);
        if (length > 0.01f && length <= 1.0f)
            return sr_vec3_scale(d, 1.0f / length);
    }
}

#endif
