/* tests/bench/collide_baselines.h — what bench_collide_baselines.c (softrast, libccd, the oracle,
 * the timing and the report) and bench_collide_baselines_fcl_bullet.cpp (FCL and Bullet, C++)
 * share: shapes as plain data, and the answers of the C++ libraries. Plain C, no softrast header:
 * softrast's headers are C, and FCL asks for C++11. */
#ifndef SR_BENCH_COLLIDE_BASELINES_H
#define SR_BENCH_COLLIDE_BASELINES_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A shape as plain data: the fields of sr_shape (type an sr_shape_type value), and for hulls,
/// segments and triangles the points (local, x y z each); for hulls also the brute-force
/// polytope of the points (the oracle's: vertices, and faces as counts followed by vertex
/// indices, counter-clockwise from outside), which FCL's Convex needs.
typedef struct baseline_shape {
    int type;
    double position[3], rotation[4]; /* rotation x, y, z, w */
    double radius, half_height, rounding, half_extents[3];
    const double *points;
    size_t point_count;
    const double *vertices;
    size_t vertex_count;
    const int *faces; /* count, indices..., count, indices... */
    size_t face_count;
} baseline_shape;

/// The queries of the C++ libraries.
typedef enum baseline_method {
    BASELINE_FCL_DISTANCE = 0,   ///< fcl::distance with the nearest points
    BASELINE_FCL_SIGNED,         ///< fcl::distance with enable_signed_distance
    BASELINE_FCL_COLLIDE,        ///< fcl::collide with one contact
    BASELINE_BULLET_PENETRATION, ///< btGjkEpaSolver2::Penetration (margins used)
    BASELINE_BULLET_SIGNED,      ///< btGjkEpaSolver2::SignedDistance (cores), margins added back here
    BASELINE_METHOD_COUNT
} baseline_method;

/// A library's answer to a pair: whether it says they overlap, and what it gives besides.
typedef struct baseline_answer {
    bool answered; ///< false: the library gave no answer (Bullet's SignedDistance when both its stages fail)
    bool hit;
    bool has_distance, has_normal, has_points;
    double distance;                          ///< signed: < 0 the depth
    double normal[3], point_a[3], point_b[3]; ///< normal from A towards B
} baseline_answer;

/// The libraries' objects for one pair (made once, outside the timing).
typedef struct baseline_pair baseline_pair;

baseline_pair *baseline_pair_create(const baseline_shape *a, const baseline_shape *b);
void baseline_pair_destroy(baseline_pair *pair);
/// Whether the library of `method` can represent both shapes (FCL has no rounded boxes, hulls,
/// triangles, segments, cylinders or cones).
bool baseline_representable(baseline_method method, const baseline_pair *pair);
baseline_answer baseline_run(baseline_method method, const baseline_pair *pair);

#ifdef __cplusplus
}
#endif
#endif
