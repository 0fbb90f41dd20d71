/* tests/geom_test_helpers.h — what the tests of src/geom (tests/test_geom*.c) share: deterministic random
 * numbers (splitmix64), double-precision vectors, random directions and rotations. Header-only,
 * for tests. */
#ifndef SR_TESTS_GEOM_TEST_HELPERS_H
#define SR_TESTS_GEOM_TEST_HELPERS_H

#include <criterion/criterion.h>

#include <softrast/geom.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ */
/* Deterministic random numbers (splitmix64) and double-precision vectors                      */

typedef struct rng {
    uint64_t state;
} rng;

static inline uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1p-53;
}

static inline double rng_range(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * rng_unit(r);
}

static inline float rng_float(rng *r, double lo, double hi)
{
    return (float)rng_range(r, lo, hi);
}

static inline sr_vec3 rng_vec3(rng *r, double lo, double hi)
{
    return (sr_vec3){rng_float(r, lo, hi), rng_float(r, lo, hi), rng_float(r, lo, hi)};
}

typedef struct dvec {
    double x, y, z;
} dvec;

static inline dvec dv(sr_vec3 v)
{
    return (dvec){v.x, v.y, v.z};
}
static inline dvec dv_add(dvec a, dvec b)
{
    return (dvec){a.x + b.x, a.y + b.y, a.z + b.z};
}
static inline dvec dv_sub(dvec a, dvec b)
{
    return (dvec){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline dvec dv_scale(dvec a, double s)
{
    return (dvec){a.x * s, a.y * s, a.z * s};
}
static inline double dv_dot(dvec a, dvec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline dvec dv_cross(dvec a, dvec b)
{
    return (dvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double dv_length(dvec a)
{
    return sqrt(dv_dot(a, a));
}
static inline double dv_get(dvec a, int axis)
{
    return axis == 0 ? a.x : (axis == 1 ? a.y : a.z);
}
static inline sr_vec3 to_float(dvec a)
{
    return (sr_vec3){(float)a.x, (float)a.y, (float)a.z};
}

static const double pi = 3.14159265358979323846;

/* Component access by axis without pointer arithmetic across struct members. */
static inline float get_axis(sr_vec3 v, int axis)
{
    return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

static inline void set_axis(sr_vec3 *v, int axis, float value)
{
    if (axis == 0)
        v->x = value;
    else if (axis == 1)
        v->y = value;
    else
        v->z = value;
}

/* Unit vector uniformly on the sphere (rejection sampling in the cube). */
static inline dvec rng_direction(rng *r)
{
    for (;;) {
        dvec v = {rng_range(r, -1, 1), rng_range(r, -1, 1), rng_range(r, -1, 1)};
        double l = dv_length(v);
        if (l > 0.05 && l <= 1.0)
            return dv_scale(v, 1.0 / l);
    }
}

/* Random rotation matrix (row-major 3x3, double) from a random unit quaternion. */
static inline void random_rotation(rng *r, double m[9])
{
    double q[4], l = 0;
    do {
        l = 0;
        for (int i = 0; i < 4; i++) {
            q[i] = rng_range(r, -1, 1);
            l += q[i] * q[i];
        }
    } while (l < 0.01 || l > 1.0);
    l = sqrt(l);
    double x = q[0] / l, y = q[1] / l, z = q[2] / l, w = q[3] / l;
    double rows[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                      2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                      2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(m, rows, sizeof rows);
}

static inline dvec rotate(const double m[9], dvec v)
{
    return (dvec){m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
                  m[6] * v.x + m[7] * v.y + m[8] * v.z};
}

static inline bool close_relative(double actual, double expected, double relative, double scale)
{
    return fabs(actual - expected) <= relative * (fabs(expected) + scale);
}

static inline sr_aabb random_box(rng *r, double lo, double hi, double max_size)
{
    sr_vec3 a = rng_vec3(r, lo, hi);
    sr_vec3 size = rng_vec3(r, 0, max_size);
    return (sr_aabb){a, sr_vec3_add(a, size)};
}

/* Rotation * scale * translation as an sr_mat4 and its pieces in double. */
typedef struct rigid {
    double rotation[9];
    dvec scale, translation;
    sr_mat4 matrix;
} rigid;

static inline rigid random_rigid(rng *r)
{
    rigid t;
    random_rotation(r, t.rotation);
    t.scale = (dvec){rng_range(r, 0.2, 3), rng_range(r, 0.2, 3), rng_range(r, 0.2, 3)};
    t.translation = (dvec){rng_range(r, -5, 5), rng_range(r, -5, 5), rng_range(r, -5, 5)};
    t.matrix = sr_mat4_identity();
    for (int row = 0; row < 3; row++) {
        for (int column = 0; column < 3; column++)
            t.matrix.m[column * 4 + row] = (float)(t.rotation[row * 3 + column] * dv_get(t.scale, column));
        t.matrix.m[12 + row] = (float)dv_get(t.translation, row);
    }
    return t;
}

/* Point of box space (before the transform) to world, in double. */
static inline dvec rigid_apply(const rigid *t, dvec p)
{
    dvec s = {p.x * t->scale.x, p.y * t->scale.y, p.z * t->scale.z};
    return dv_add(rotate(t->rotation, s), t->translation);
}

/* World point back to box space, in double. */
static inline dvec rigid_invert(const rigid *t, dvec p)
{
    dvec q = dv_sub(p, t->translation);
    const double *m = t->rotation; /* transpose = inverse */
    dvec s = {m[0] * q.x + m[3] * q.y + m[6] * q.z, m[1] * q.x + m[4] * q.y + m[7] * q.z,
              m[2] * q.x + m[5] * q.y + m[8] * q.z};
    return (dvec){s.x / t->scale.x, s.y / t->scale.y, s.z / t->scale.z};
}

#endif
