/* tests/collide_oracle.h — the exact brute force behind the collision tests and benchmarks (test
 * support code, not the library): a generator of pair sets and an independent answer for every
 * pair, trusting no GJK, no EPA and no hull of the library.
 *
 * How the answers are made (collide_oracle_solve.c):
 *  - Spheres, capsules, boxes, hulls, points, segments and triangles (rounded or not) are cores —
 *    a point, a segment or a convex polytope — plus a radius. The polytope of a core is found by
 *    brute force (a plane through 3 of its points with every point on one side is a face plane;
 *    never sr_hull_create). The distance of two separated cores is the smallest over every
 *    feature pair (vertex-face, edge-edge, edge crossing a face); their overlap and depth come
 *    from SAT over every candidate axis of the Minkowski difference (face normals of both,
 *    edge x edge). Exact up to rounding in double.
 *  - Pairs with a cylinder or a cone get certified bounds from closed-form support functions:
 *    the signed distance is s = -min over unit n of h(n), h(n) = h_A(n) + h_B(-n) the support
 *    function of A - B. Every evaluated h(n) bounds min h from above; a branch and bound over the
 *    sphere of directions bounds it from below (in a cap of directions, n . z <= h(n) for every
 *    point z of A - B: the cap's smallest n . z is a certified lower bound). When the bounds are
 *    not within a twentieth of the tolerance the pair is counted as uncertified.
 *
 * Tolerances (oracle_tolerance), L the smaller shape's size: distance and witness points within
 * 1e-4 * max(L, d); depth within max(1e-3 * depth, 1e-4 * L); normals within 3 degrees, or any
 * normal along which the depth needed is within the depth tolerance. Near-touching pairs (|s|
 * within the tolerance) may answer hit or miss.
 *
 * Everything is deterministic: the same seed and index give the same pair on every machine. */
#ifndef SR_TESTS_COLLIDE_ORACLE_H
#define SR_TESTS_COLLIDE_ORACLE_H

#include <softrast/collide.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most input points of a hull the oracle takes (the generator makes up to 32).
#define ORACLE_MAX_POINTS 64
#define ORACLE_MAX_FACES (2 * ORACLE_MAX_POINTS)
#define ORACLE_MAX_EDGES (3 * ORACLE_MAX_POINTS)
#define ORACLE_MAX_FACE_VERTICES (6 * ORACLE_MAX_POINTS)

/* ------------------------------------------------------------------------------------------ */
/* Shapes as the oracle sees them: the sr_shape fields, and a hull's input points              */

/// A shape of a pair: the fields of sr_shape (without its hull pointer) and, for a hull, the
/// points the hull is made from (local frame). Segments and triangles keep theirs in points[].
typedef struct oracle_shape {
    sr_shape_type type;
    sr_pose pose;
    double radius, half_height, rounding;
    sr_dvec3 half_extents;
    size_t point_count; ///< segment 2, triangle 3, hull 1..ORACLE_MAX_POINTS, others 0
    sr_dvec3 points[ORACLE_MAX_POINTS];
} oracle_shape;

/// The library's shape for an oracle shape; `hull` is the library hull of its points (made by
/// the caller with sr_hull_create) for a hull, NULL otherwise.
sr_shape oracle_to_shape(const oracle_shape *shape, const sr_hull *hull);
/// The oracle shape of a library shape; `points` / `count` the hull's input points (a pairs
/// file keeps them), ignored for other types. False when a hull has too many points.
bool oracle_from_shape(const sr_shape *shape, const sr_dvec3 *points, size_t count, oracle_shape *out);
/// One SHAPE object of the pairs format ({"type":..., "position":..., "rotation":...}), numbers
/// printed with %.17g so that they read back to the same bits.
void oracle_print_shape(FILE *out, const oracle_shape *shape);
/// One line of the pairs format: {"id":ID,"a":SHAPE,"b":SHAPE} and a newline.
void oracle_print_pair(FILE *out, long long id, const oracle_shape *a, const oracle_shape *b);

/* ------------------------------------------------------------------------------------------ */
/* Geometry of one shape (collide_oracle_geometry.c)                                           */

/// The brute-force polytope of a core's points: faces are planes through 3 points with all on
/// one side, their polygons the 2D hull of the points on them. dimension 0..3 as sr_hull_view.
typedef struct oracle_face {
    sr_dvec3 normal;  ///< outward unit normal
    double offset;    ///< normal . p for p on the face
    int first, count; ///< vertex indices face_vertices[first .. first + count), counter-clockwise from outside
} oracle_face;

typedef struct oracle_poly {
    int dimension;
    int vertex_count, edge_count, face_count;
    sr_dvec3 vertices[ORACLE_MAX_POINTS * 2];
    int edges[ORACLE_MAX_EDGES * 2][2];
    oracle_face faces[ORACLE_MAX_FACES * 2];
    int face_vertices[ORACLE_MAX_FACE_VERTICES * 2];
    sr_dvec3 axis; ///< dimension 1: the segment's unit direction; dimension 2: the plane's unit normal
} oracle_poly;

/// Builds the polytope of `count` points (1 <= count <= 2 * ORACLE_MAX_POINTS). Tolerances are
/// relative to the points' extent (1e-12).
void oracle_poly_build(const sr_dvec3 *points, size_t count, oracle_poly *out);

/// A shape placed in the world, ready for queries: its core (a polytope, or a cylinder or cone
/// in its frame) and the radius around it, optionally swept by a translation (the volume it
/// covers moving along `sweep`). Large (a polytope inside): keep it off small stacks.
typedef struct oracle_body {
    sr_shape_type type; ///< of the shape it was made from
    bool polytope;      ///< the core is `poly` (world); otherwise a cylinder or cone
    double radius;      ///< around the core: sphere or capsule radius + rounding
    sr_dvec3 position;
    sr_dvec3 rotation[3];            ///< rows of the matrix: world = rotation * local + position
    double core_radius, half_height; ///< cylinder and cone
    sr_dvec3 sweep;                  ///< zero, or the translation the body sweeps
    double size;                     ///< largest extent of its box in its own frame (before the sweep), radius included
    oracle_poly poly;
} oracle_body;

/// The body of `shape`, with everything expressed relative to `origin` (subtracted from world
/// positions) to keep the brute force's rounding small far from the world's origin.
void oracle_body_make(const oracle_shape *shape, sr_dvec3 origin, oracle_body *out);
/// The same body swept along `sweep` (a polytope core: the polytope of its points and their
/// translates; a curved one keeps its closed-form support).
void oracle_body_sweep(const oracle_body *body, sr_dvec3 sweep, oracle_body *out);
/// A point of the body farthest along `direction` (any length; zero gives some point).
sr_dvec3 oracle_support(const oracle_body *body, sr_dvec3 direction);
/// The same without the radius around the core (the sweep included).
sr_dvec3 oracle_core_support(const oracle_body *body, sr_dvec3 direction);
/// Signed distance from `p` to the body (negative inside; exact: closed forms and the
/// brute-force polytope). Not for swept bodies. `closest` (may be NULL): the nearest point of
/// the body when outside, `p` itself inside.
double oracle_point_distance(const oracle_body *body, sr_dvec3 p, sr_dvec3 *closest);

/* ------------------------------------------------------------------------------------------ */
/* Pair answers (collide_oracle_solve.c)                                                       */

typedef struct oracle_answer {
    bool exact;                ///< polytope cores: exact up to rounding (lo == hi)
    bool certified;            ///< the bounds are within a twentieth of the tolerance
    double lo, hi;             ///< the signed distance s is in [lo, hi] (> 0 apart, < 0 the depth)
    double distance;           ///< best value: (lo + hi) / 2
    sr_dvec3 normal;           ///< unit, from A towards B (apart: pa -> pb; penetrating: where to move B)
    sr_dvec3 point_a, point_b; ///< witnesses (world) for that normal
    /// Polytopes without rounding: the largest separation over the axes SAT must test (face
    /// normals of both and edge x edge) and over the face normals alone.
    double sat_separation, sat_face_separation;
    double size; ///< L: the smaller shape's size (oracle_pair_size)
    int cells;   ///< branch-and-bound cells evaluated (0 when exact)
} oracle_answer;

/// Both shapes' bodies (relative to a common origin: the middle of their positions), made once
/// for the several questions a test asks about one pair.
typedef struct oracle_pair {
    oracle_shape a, b;
    sr_dvec3 origin;
    oracle_body body_a, body_b;
    double size;
} oracle_pair;

/// Fills the pair's bodies from its shapes (copied).
void oracle_pair_prepare(oracle_pair *pair, const oracle_shape *a, const oracle_shape *b);
/// L of the tolerances: the smaller of the two sizes that are not zero (a point has none), or a
/// small floor relative to the positions when both are points.
double oracle_pair_size(const oracle_body *a, const oracle_body *b);
/// The signed distance of the pair, exact or bounded.
void oracle_solve(const oracle_pair *pair, oracle_answer *out);
/// The same for two bodies (e.g. a swept one); `size` is L.
void oracle_solve_bodies(const oracle_body *a, const oracle_body *b, double size, oracle_answer *out);
/// The exact answer of two polytope cores with radii (both bodies `polytope`).
void oracle_solve_polytopes(const oracle_body *a, const oracle_body *b, double size, oracle_answer *out);
/// Certified bounds from the support functions alone (any bodies): the branch and bound.
void oracle_solve_bound(const oracle_body *a, const oracle_body *b, double size, oracle_answer *out);
/// h(n) = max over A of n . a - min over B of n . b (n unit): how deep B is along n; for a
/// penetration normal, the depth it needs; minus the separation along n.
double oracle_depth_along(const oracle_body *a, const oracle_body *b, sr_dvec3 n);

/// The tolerance of a signed distance s for pairs of size L: 1e-4 * max(L, s) apart,
/// max(1e-3 * |s|, 1e-4 * L) penetrating.
double oracle_tolerance(double size, double s);

/* ------------------------------------------------------------------------------------------ */
/* Judging the library's answers (collide_oracle_judge.c)                                      */

typedef enum oracle_verdict {
    ORACLE_PASS = 0,
    ORACLE_FAIL,
    ORACLE_UNCERTIFIED, ///< the oracle's bounds are too wide to tell (curved pairs only)
} oracle_verdict;

/// A claimed answer of a pair query, from the library or from a baseline library.
typedef struct oracle_claim {
    bool hit;
    double distance; ///< signed: < 0 penetrating (its depth), 0 touching
    bool has_normal, has_points;
    sr_dvec3 normal;           ///< unit, from A towards B
    sr_dvec3 point_a, point_b; ///< world
} oracle_claim;

/// Judges a signed-distance answer (sr_collide_signed_distance, sr_collide_penetration, and
/// sr_collide_distance when `overlap_as_zero`: then an overlap answers distance 0 and one common
/// point). `why` receives the reason of a failure.
oracle_verdict oracle_judge_signed(const oracle_pair *pair, const oracle_answer *truth, const oracle_claim *claim,
                                   bool overlap_as_zero, char *why, size_t why_size);
/// Judges a boolean answer, and the separating axis it returned when apart (may be NULL).
oracle_verdict oracle_judge_intersect(const oracle_pair *pair, const oracle_answer *truth, bool hit,
                                      const sr_dvec3 *axis, char *why, size_t why_size);
/// Judges sr_collide_sat's answer on a polytope pair (no rounding, no curved shape).
oracle_verdict oracle_judge_sat(const oracle_pair *pair, const oracle_answer *truth, const sr_collide_result *result,
                                char *why, size_t why_size);
/// Judges a ray cast against `shape` (origin + t * direction, t in [0, max_t]).
oracle_verdict oracle_judge_ray(const oracle_shape *shape, sr_dvec3 origin, sr_dvec3 direction, double max_t,
                                const sr_collide_ray_hit *hit, char *why, size_t why_size);
/// Judges a shape cast: A moved by t * translation, t in [0, 1], against B.
oracle_verdict oracle_judge_cast(const oracle_pair *pair, sr_dvec3 translation, const sr_collide_cast_hit *hit,
                                 char *why, size_t why_size);

/* ------------------------------------------------------------------------------------------ */
/* The generator (collide_oracle_generate.c)                                                   */

typedef enum oracle_kind {
    ORACLE_SEPARATED = 0,
    ORACLE_TOUCH_PLUS_1E4,  ///< apart by 1e-4 L
    ORACLE_TOUCH_MINUS_1E4, ///< penetrating by about 1e-4 L
    ORACLE_TOUCH_PLUS_1E6,
    ORACLE_TOUCH_MINUS_1E6,
    ORACLE_TOUCH_ZERO,     ///< touching
    ORACLE_SHALLOW,        ///< depth 1e-3 .. 3e-2 L
    ORACLE_DEEP,           ///< depth 0.1 .. 0.6 L (along the chosen normal)
    ORACLE_IDENTICAL,      ///< the same shape at the same pose
    ORACLE_INSIDE,         ///< a small shape inside the other
    ORACLE_COPLANAR,       ///< faces against each other (touching, apart, or slightly in)
    ORACLE_PARALLEL_EDGES, ///< edges parallel, near each other
    ORACLE_KIND_COUNT
} oracle_kind;

const char *oracle_kind_name(oracle_kind kind);

/// How a generated pair's B was placed (oracle_pair_info.gap).
typedef enum oracle_gap_kind {
    ORACLE_GAP_NONE = 0, ///< identical and inside pairs
    ORACLE_GAP_AT_LEAST, ///< faces or edges `gap` apart: the signed distance is at least gap
    ORACLE_GAP_SUPPORT,  ///< `gap` along n from A's support point: exactly gap when gap >= 0, at least gap otherwise
} oracle_gap_kind;

/// What a generated pair is made of, for reports.
typedef struct oracle_pair_info {
    oracle_kind kind;
    double scale;                ///< 1, 1e-3 or 1e3
    bool far;                    ///< placed 1e3 away from the origin
    const char *hull_a, *hull_b; ///< hull flavour ("generic", "flat", "needle", ...) or NULL
    oracle_gap_kind gap_kind;
    double gap; ///< the gap B was placed at (signed: < 0 sunk in)
} oracle_pair_info;

/// Pair `index` of the set of `seed`: shape types cycle through every ordered pair of the nine
/// types and every kind, modifiers (rounding, scale, distance from the origin, hull flavour,
/// rotation) drawn from the seed.
void oracle_generate_pair(uint64_t seed, uint64_t index, oracle_shape *a, oracle_shape *b, oracle_pair_info *info);

/// A ray against one shape of pair `index` (origins outside and inside, rays aimed at the shape,
/// grazing, parallel to faces, short ones that stop before it).
void oracle_generate_ray(uint64_t seed, uint64_t index, const oracle_shape *shape, sr_dvec3 *origin,
                         sr_dvec3 *direction, double *max_t);
/// A translation for a shape cast of A against B.
sr_dvec3 oracle_generate_sweep(uint64_t seed, uint64_t index, const oracle_shape *a, const oracle_shape *b);

#ifdef __cplusplus
}
#endif
#endif
