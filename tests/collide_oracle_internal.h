/* tests/collide_oracle_internal.h — vector helpers and primitives shared by the oracle's files
 * (collide_oracle_*.c). Test support code. */
#ifndef SR_TESTS_COLLIDE_ORACLE_INTERNAL_H
#define SR_TESTS_COLLIDE_ORACLE_INTERNAL_H

#include "collide_oracle.h"

#include <math.h>

static inline sr_dvec3 v3(double x, double y, double z)
{
    return (sr_dvec3){x, y, z};
}
static inline sr_dvec3 vadd(sr_dvec3 a, sr_dvec3 b)
{
    return v3(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline sr_dvec3 vsub(sr_dvec3 a, sr_dvec3 b)
{
    return v3(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline sr_dvec3 vscale(sr_dvec3 a, double s)
{
    return v3(a.x * s, a.y * s, a.z * s);
}
static inline sr_dvec3 vmadd(sr_dvec3 a, sr_dvec3 b, double s)
{
    return v3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s);
}
static inline double vdot(sr_dvec3 a, sr_dvec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline sr_dvec3 vcross(sr_dvec3 a, sr_dvec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double vlen(sr_dvec3 a)
{
    return sqrt(vdot(a, a));
}
static inline double vdist(sr_dvec3 a, sr_dvec3 b)
{
    return vlen(vsub(a, b));
}
static inline sr_dvec3 vunit(sr_dvec3 a)
{
    double l = vlen(a);
    return l > 0.0 ? vscale(a, 1.0 / l) : v3(0, 0, 0);
}
static inline sr_dvec3 vlerp(sr_dvec3 a, sr_dvec3 b, double t)
{
    return vadd(a, vscale(vsub(b, a), t));
}
static inline double vmax_abs(sr_dvec3 a)
{
    return fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
}
static inline double clamp01(double t)
{
    return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}
/// The angle between two vectors, accurate near 0 and pi (atan2 of the cross and dot products).
static inline double vangle(sr_dvec3 a, sr_dvec3 b)
{
    return atan2(vlen(vcross(a, b)), vdot(a, b));
}

/// Two unit vectors completing `n` (unit) to a right-handed frame.
void oracle_basis(sr_dvec3 n, sr_dvec3 *t1, sr_dvec3 *t2);
/// The rotation matrix of a quaternion (x, y, z, w), as its rows; all zeros is the identity.
void oracle_quat_matrix(sr_dquat q, sr_dvec3 rows[3]);
sr_dvec3 oracle_mat_apply(const sr_dvec3 rows[3], sr_dvec3 v);
sr_dvec3 oracle_mat_apply_transposed(const sr_dvec3 rows[3], sr_dvec3 v);

/* ---- closest points (collide_oracle_geometry.c): written for the oracle, not Ericson's
 * Voronoi regions, so that they share no reasoning with the library's closest.c ---- */

/// Closest point to p on segment ab.
sr_dvec3 oracle_closest_on_segment(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b);
/// Closest points of segments p0-p1 and q0-q1 (*cp on the first, *cq on the second); their distance.
double oracle_segment_segment(sr_dvec3 p0, sr_dvec3 p1, sr_dvec3 q0, sr_dvec3 q1, sr_dvec3 *cp, sr_dvec3 *cq);
/// Closest point to p on face `face` of `poly` (the polygon, its inside included).
sr_dvec3 oracle_closest_on_face(const oracle_poly *poly, const oracle_face *face, sr_dvec3 p);
/// Closest point to p on the polytope (solid for dimension 3); its distance (0 inside).
double oracle_poly_distance(const oracle_poly *poly, sr_dvec3 p, sr_dvec3 *closest);
/// Whether segment a-b crosses face `face` of `poly` (through its inside); *at the crossing.
bool oracle_segment_crosses_face(const oracle_poly *poly, const oracle_face *face, sr_dvec3 a, sr_dvec3 b,
                                 sr_dvec3 *at);
/// max over the polytope's vertices of n . v (the support value); *at the vertex (may be NULL).
double oracle_poly_support(const oracle_poly *poly, sr_dvec3 n, sr_dvec3 *at);

/* ---- the solvers (collide_oracle_solve.c, collide_oracle_bound.c) ---- */

#endif
