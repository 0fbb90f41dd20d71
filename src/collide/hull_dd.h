/* src/collide/hull_dd.h — double-double arithmetic for the face normals of quickhull
 * (hull_quickhull.c). Private to the collide module.
 *
 * A sliver face (height h, length L) has a normal whose cross products cancel: in double, the
 * rounding of the edge vectors and products tilts it by about 1e-16 L / h, which for far points
 * exceeds the tolerance once h < 1e-5 L. Computing the edge vectors exactly (as a sum of two
 * doubles) and the cross products in double-double makes it accurate to the last bits for any
 * shape; building a hull is not a hot path. */
#ifndef SOFTRAST_COLLIDE_HULL_DD_H
#define SOFTRAST_COLLIDE_HULL_DD_H

#include <math.h>
#include <softrast/math.h>

typedef struct dd {
    double hi, lo;
} dd;

static inline dd two_sum(double a, double b)
{
    double s = a + b, v = s - a;
    return (dd){s, (a - (s - v)) + (b - v)};
}

static inline dd dd_normalize(double hi, double lo)
{
    double s = hi + lo;
    return (dd){s, lo - (s - hi)};
}

static inline dd dd_add(dd a, dd b)
{
    dd s = two_sum(a.hi, b.hi);
    return dd_normalize(s.hi, s.lo + a.lo + b.lo);
}

static inline dd dd_mul(dd a, dd b)
{
    double p = a.hi * b.hi;
    double e = fma(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi);
    return dd_normalize(p, e);
}

static inline dd dd_neg(dd a)
{
    return (dd){-a.hi, -a.lo};
}

typedef struct dd3 {
    dd x, y, z;
} dd3;

static inline dd3 dd3_sub(sr_dvec3 a, sr_dvec3 b)
{
    return (dd3){two_sum(a.x, -b.x), two_sum(a.y, -b.y), two_sum(a.z, -b.z)};
}

static inline dd3 dd3_cross(dd3 a, dd3 b)
{
    return (dd3){dd_add(dd_mul(a.y, b.z), dd_neg(dd_mul(a.z, b.y))), dd_add(dd_mul(a.z, b.x), dd_neg(dd_mul(a.x, b.z))),
                 dd_add(dd_mul(a.x, b.y), dd_neg(dd_mul(a.y, b.x)))};
}

static inline dd3 dd3_add(dd3 a, dd3 b)
{
    return (dd3){dd_add(a.x, b.x), dd_add(a.y, b.y), dd_add(a.z, b.z)};
}

#endif
