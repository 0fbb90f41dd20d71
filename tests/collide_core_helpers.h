/* collide_core_helpers.h — what the collide tests of the core queries share (test_collide_hull.c,
 * test_collide_shape.c, test_collide_gjk.c, ...): a deterministic double-precision generator
 * (SplitMix64: the same numbers on every machine and compiler), random rotations and directions,
 * vector helpers, and the sanitizer switch that makes randomized counts smaller under
 * AddressSanitizer. Header-only. */
#ifndef SR_TESTS_COLLIDE_CORE_HELPERS_H
#define SR_TESTS_COLLIDE_CORE_HELPERS_H

#include <softrast/collide.h>

#include <math.h>
#include <stdint.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
/* A randomized count: full in the release build, a tenth under the sanitizers. */
#define COUNT(n) (SANITIZED ? ((n) + 9) / 10 : (n))

typedef struct drng {
    uint64_t state;
} drng;

static inline uint64_t drng_next(drng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi) */
static inline double drng_range(drng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(drng_next(r) >> 11) * 0x1p-53);
}

static inline int drng_int(drng *r, int n)
{
    return (int)(drng_next(r) % (uint64_t)n);
}

static inline sr_dvec3 drng_vec(drng *r, double lo, double hi)
{
    /* separate statements: C leaves the order of a call's arguments unspecified */
    double x = drng_range(r, lo, hi);
    double y = drng_range(r, lo, hi);
    double z = drng_range(r, lo, hi);
    return sr_dvec3_make(x, y, z);
}

/* a uniformly distributed unit vector */
static inline sr_dvec3 drng_direction(drng *r)
{
    for (;;) {
        sr_dvec3 v = drng_vec(r, -1, 1);
        double length = sr_dvec3_length(v);
        if (length > 0.1 && length <= 1.0)
            return sr_dvec3_scale(v, 1.0 / length);
    }
}

/* a uniformly distributed rotation (a random unit quaternion) */
static inline sr_dquat drng_rotation(drng *r)
{
    for (;;) {
        double x = drng_range(r, -1, 1);
        double y = drng_range(r, -1, 1);
        double z = drng_range(r, -1, 1);
        double w = drng_range(r, -1, 1);
        double length = sqrt(x * x + y * y + z * z + w * w);
        if (length > 0.1 && length <= 1.0) {
            sr_dquat q = {x / length, y / length, z / length, w / length};
            return q;
        }
    }
}

static inline sr_dvec3 v3(double x, double y, double z)
{
    return sr_dvec3_make(x, y, z);
}
static inline sr_dvec3 vadd(sr_dvec3 a, sr_dvec3 b)
{
    return sr_dvec3_add(a, b);
}
static inline sr_dvec3 vsub(sr_dvec3 a, sr_dvec3 b)
{
    return sr_dvec3_sub(a, b);
}
static inline sr_dvec3 vscale(sr_dvec3 a, double s)
{
    return sr_dvec3_scale(a, s);
}
static inline double vdot(sr_dvec3 a, sr_dvec3 b)
{
    return sr_dvec3_dot(a, b);
}
static inline sr_dvec3 vcross(sr_dvec3 a, sr_dvec3 b)
{
    return sr_dvec3_cross(a, b);
}
static inline double vlength(sr_dvec3 a)
{
    return sr_dvec3_length(a);
}
static inline double vdistance(sr_dvec3 a, sr_dvec3 b)
{
    return sr_dvec3_length(sr_dvec3_sub(a, b));
}

#endif
