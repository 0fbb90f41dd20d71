/* softrast/collide.h — convex collision queries: shapes with poses and support mappings, GJK
 * distance and intersection, EPA penetration depth, SAT with the minimum translation distance,
 * signed distance, closest points on primitives, ray casts and linear shape casts, bounding
 * volumes (AABB, OBB, minimal sphere, k-DOP), and step traces of GJK, EPA and SAT for the
 * debugger. Double precision inside and out.
 *
 * Stands on geom and math; knows nothing of raster, scene or SDL. Every query is pure:
 * thread-safe (no shared state), allocation-free, deterministic (the same input gives the same
 * bits) and bounded (an iteration cap, reported when hit: never a hang). Only sr_hull_create and
 * the bounding volumes of point sets allocate.
 *
 * Conventions:
 *  - A shape is defined in its local frame and placed by its pose: world = rotation * local +
 *    position. Cylinders, cones and capsules have their axis along local z, z in [-half_height,
 *    half_height]; the cone's apex is at +half_height, its base disc at -half_height.
 *  - Every shape may be rounded: `rounding` >= 0 adds a sphere of that radius (Minkowski sum),
 *    as Box2D's radius and Bullet's margin do. A sphere is a rounded point, a capsule a rounded
 *    segment: the queries treat them as cores plus a radius, which makes them exact.
 *  - Normals of pair queries point from A towards B. A positive distance separates; a negative
 *    one is a penetration depth: moving B by -distance * normal (that is, depth * normal) makes
 *    the shapes touch.
 */
#ifndef SOFTRAST_COLLIDE_H
#define SOFTRAST_COLLIDE_H

#include <softrast/core.h>
#include <softrast/geom.h>
#include <softrast/math.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Hulls (src/collide/hull.c)                                                                  */

/// The convex hull of a point set, built once (it allocates) and then used by any number of
/// shapes and queries, from any thread. Free with sr_hull_destroy, after every shape using it.
typedef struct sr_hull sr_hull;

/// A face of a hull: a convex polygon, its vertices counter-clockwise seen from outside, with
/// its outward unit normal and plane offset (dot(normal, p) = offset on the face). Coplanar
/// triangles are merged into one polygon.
typedef struct sr_hull_face {
    uint32_t first, count; ///< the face's vertex indices: sr_hull_view.face_vertices[first .. first + count)
    sr_dvec3 normal;
    double offset;
} sr_hull_face;

/// A read-only view of a hull, valid as long as the hull. Vertices are the extreme points of the
/// input (duplicates, interior points and points inside faces or edges are gone), in the hull's
/// local frame. `dimension` says what the hull is: 0 a point, 1 a segment (2 vertices), 2 a flat
/// convex polygon (its two sides are two faces with opposite normals), 3 a solid polytope.
typedef struct sr_hull_view {
    int dimension;
    const sr_dvec3 *vertices;
    size_t vertex_count;
    const sr_hull_face *faces;
    size_t face_count;
    const uint32_t *face_vertices;
    const uint32_t *edges; ///< edge e joins vertices edges[2e] and edges[2e + 1]; each edge once
    size_t edge_count;
    /// The two faces edge e joins: edge_faces[2e] and edge_faces[2e + 1] (a flat hull's edges join
    /// its two sides; a segment's edge has none: UINT32_MAX).
    const uint32_t *edge_faces;
} sr_hull_view;

/// Builds the convex hull of `count` points (quickhull in double, with tolerances relative to
/// the points' extent; duplicates, coplanar and interior points allowed; the result may be flat,
/// a segment or a point). Errors: SR_ERROR_INVALID_ARGUMENT (count 0, a NaN or infinite
/// coordinate or one beyond 1e30 in magnitude: the message names the point's index),
/// SR_ERROR_OUT_OF_MEMORY.
sr_status sr_hull_create(const sr_dvec3 *points, size_t count, sr_hull **out, sr_error *err);
void sr_hull_destroy(sr_hull *hull);
sr_hull_view sr_hull_get_view(const sr_hull *hull);
/// A hull with the very tables of `view` (another hull's, read back from a file): the same
/// vertices, faces and edges in the same order, so every query answers as on the original, bit
/// for bit (building the hull of the vertices again may merge faces differently). The tables are
/// copied; `face_vertex_count` is the length of view->face_vertices. Errors
/// (SR_ERROR_INVALID_ARGUMENT, the message naming the face, edge or vertex): counts that do not
/// fit the dimension, indices out of range, a face of fewer than 3 vertices or passing one twice,
/// a face going along no edge, an edge not on exactly two faces, V - E + F != 2 for a solid,
/// coordinates not finite or beyond 1e30, normals not unit, a vertex above a face's plane by more
/// than 1e-7 of the extent (not convex); SR_ERROR_OUT_OF_MEMORY.
sr_status sr_hull_create_from_view(const sr_hull_view *view, size_t face_vertex_count, sr_hull **out, sr_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Shapes and poses (src/collide/shape.c)                                                      */

typedef enum sr_shape_type {
    SR_SHAPE_POINT = 0, ///< the origin of its frame (rounded: a sphere)
    SR_SHAPE_SEGMENT,   ///< points[0] to points[1]
    SR_SHAPE_TRIANGLE,  ///< points[0], points[1], points[2] (two-sided)
    SR_SHAPE_SPHERE,    ///< radius around the origin
    SR_SHAPE_BOX,       ///< half_extents around the origin
    SR_SHAPE_CAPSULE,   ///< segment (0, 0, -half_height) to (0, 0, half_height) rounded by radius
    SR_SHAPE_CYLINDER,  ///< radius, z in [-half_height, half_height]
    SR_SHAPE_CONE,      ///< base disc of radius at z = -half_height, apex at z = +half_height
    SR_SHAPE_HULL,      ///< the convex hull `hull`
    SR_SHAPE_TYPE_COUNT
} sr_shape_type;

/// Where a shape is: world = rotation * local + position. A rotation of all zeros means the
/// identity (so a zeroed pose is the identity); any other must be a unit quaternion (within
/// 1e-6; sr_shape_validate checks it).
typedef struct sr_pose {
    sr_dvec3 position;
    sr_dquat rotation;
} sr_pose;

/// A convex shape. Zero-initialise, set `type` and the fields that type reads (the comments on
/// sr_shape_type), or use the sr_shape_* makers below. Not owned: a hull shape points to a hull
/// the caller keeps alive.
typedef struct sr_shape {
    sr_shape_type type;
    sr_pose pose;
    double radius;         ///< sphere, capsule, cylinder, cone; >= 0
    double half_height;    ///< capsule, cylinder, cone; >= 0
    sr_dvec3 half_extents; ///< box; each >= 0
    sr_dvec3 points[3];    ///< segment (2), triangle (3), local
    const sr_hull *hull;   ///< hull
    double rounding;       ///< extra radius added all around (Minkowski sum with a sphere); >= 0
} sr_shape;

/// Makers (work alike in C and C++): the shape at the identity pose.
sr_shape sr_shape_point(void);
sr_shape sr_shape_segment(sr_dvec3 a, sr_dvec3 b);
sr_shape sr_shape_triangle(sr_dvec3 a, sr_dvec3 b, sr_dvec3 c);
sr_shape sr_shape_sphere(double radius);
sr_shape sr_shape_box(sr_dvec3 half_extents);
sr_shape sr_shape_capsule(double radius, double half_height);
sr_shape sr_shape_cylinder(double radius, double half_height);
sr_shape sr_shape_cone(double radius, double half_height);
sr_shape sr_shape_hull(const sr_hull *hull);
/// `shape` placed at `pose` (returned by value).
sr_shape sr_shape_with_pose(sr_shape shape, sr_pose pose);
sr_pose sr_pose_make(sr_dvec3 position, sr_dquat rotation);
sr_pose sr_pose_identity(void);
sr_dvec3 sr_pose_apply(sr_pose pose, sr_dvec3 local);     ///< rotation * local + position
sr_dvec3 sr_pose_apply_inverse(sr_pose pose, sr_dvec3 world);

/// "point", "segment", "triangle", "sphere", "box", "capsule", "cylinder", "cone", "hull";
/// "unknown" for other values.
const char *sr_shape_type_name(sr_shape_type type);

/// SR_OK when `shape` is well formed: a known type, finite fields at most 1e30 in magnitude (so
/// that no query can overflow), sizes >= 0, a unit (or zero) rotation, a hull where the type needs
/// one. Otherwise SR_ERROR_INVALID_ARGUMENT with a message
/// naming the field ("radius is -1", "rotation is not a unit quaternion (length 0.5)").
sr_status sr_shape_validate(const sr_shape *shape, sr_error *err);

/// The support mapping: a point of the shape (rounding included) farthest along `direction`
/// (world; need not be unit length; a zero direction gives some point of the shape). Ties are
/// broken deterministically.
sr_dvec3 sr_shape_support(const sr_shape *shape, sr_dvec3 direction);
/// The same without the rounding (the core's support point), and its radius.
sr_dvec3 sr_shape_core_support(const sr_shape *shape, sr_dvec3 direction);
double sr_shape_core_radius(const sr_shape *shape);
/// A size of the shape: the largest extent of its bounding box (rounding included). The queries'
/// tolerances are relative to it.
double sr_shape_size(const sr_shape *shape);

/* ------------------------------------------------------------------------------------------ */
/* Traces: the steps of a query, for the debugger (filled only when asked)                     */

/// One GJK iteration: the simplex it starts from, the search direction, the support points found.
typedef struct sr_gjk_step {
    int simplex_count;        ///< 1 to 4 vertices before the new support point is added
    sr_dvec3 simplex_a[4];    ///< support points on A of the simplex vertices (world)
    sr_dvec3 simplex_b[4];    ///< ... on B; the vertex of A - B is simplex_a[i] - simplex_b[i]
    double weights[4];        ///< barycentric weights of the simplex point closest to the origin
    sr_dvec3 closest;         ///< that point (of the Minkowski difference A - B)
    sr_dvec3 direction;       ///< the search direction of this iteration (-closest, or the start)
    sr_dvec3 support_a;       ///< support point on A along direction
    sr_dvec3 support_b;       ///< support point on B along -direction
    double lower_bound;       ///< distance lower bound after the step (van den Bergen's)
    double upper_bound;       ///< |closest|
} sr_gjk_step;

/// A vertex of EPA's polytope: a point of A - B and the support points on A and B it came from.
typedef struct sr_epa_vertex {
    sr_dvec3 point, a, b;
} sr_epa_vertex;

/// A face of EPA's polytope (vertex indices into the trace's epa_vertices).
typedef struct sr_epa_face {
    uint32_t v[3];
    sr_dvec3 normal;  ///< outward unit normal
    double distance;  ///< from the origin to the face's plane
} sr_epa_face;

/// One EPA iteration: the polytope (its first `vertex_count` vertices, and the faces
/// epa_faces[face_first .. face_first + face_count)), the face closest to the origin that it
/// expands, and the support point found along that face's normal.
typedef struct sr_epa_step {
    uint32_t vertex_count;
    uint32_t face_first, face_count;
    uint32_t chosen_face;     ///< index into epa_faces
    sr_epa_vertex support;    ///< the new vertex
    double lower_bound, upper_bound; ///< depth bounds after the step
} sr_epa_step;

typedef enum sr_sat_axis_kind {
    SR_SAT_FACE_A = 0, ///< a face normal of A (feature_a the face)
    SR_SAT_FACE_B,     ///< a face normal of B (feature_b)
    SR_SAT_EDGE_EDGE,  ///< cross product of edge feature_a of A and edge feature_b of B
} sr_sat_axis_kind;

/// One axis SAT tested: both shapes projected on it, and the separation there (positive:
/// separated along it; negative: the overlap, a candidate for the minimum translation).
/// Features: a hull's are its view's face and edge indices. A box's faces are 2 axis + (1 on
/// the negative side) (0: +x, 1: -x, 2: +y, ...), its edge 4 axis + k runs along that axis, k's
/// bits giving the signs of the next two axes (bit 0 set: + on axis + 1, bit 1: + on axis + 2).
/// A flat shape (a triangle, a flat hull) is seen as a prism of height 0: faces 0 and 1 its two
/// sides (normals n and -n, n = (b - a) x (c - a) for a triangle), face 2 + i the side through
/// its polygon edge i (vertex i to i + 1); edges 3 i and 3 i + 1 polygon edge i on either side,
/// 3 i + 2 the edge of height 0 along n at vertex i. A segment's edge is 0; -1 when the axis
/// has no feature on that shape.
typedef struct sr_sat_axis {
    sr_sat_axis_kind kind;
    int feature_a, feature_b;
    sr_dvec3 axis;              ///< unit, oriented from A towards B
    double min_a, max_a, min_b, max_b;
    double separation;
} sr_sat_axis;

/// Storage the caller gives a query to record its steps into (all arrays caller-owned, any may
/// be NULL with capacity 0). The query sets the counts; steps past a capacity are counted in
/// `dropped` and not stored. Zero-initialise it, set the arrays and capacities, and pass it in
/// sr_collide_options.trace; a query clears the counts before it starts.
typedef struct sr_collide_trace {
    sr_gjk_step *gjk;
    size_t gjk_capacity, gjk_count;
    sr_epa_vertex *epa_vertices;
    size_t epa_vertex_capacity, epa_vertex_count;
    sr_epa_face *epa_faces;
    size_t epa_face_capacity, epa_face_count;
    sr_epa_step *epa;
    size_t epa_capacity, epa_count;
    sr_sat_axis *sat;
    size_t sat_capacity, sat_count;
    size_t dropped;
} sr_collide_trace;

/* ------------------------------------------------------------------------------------------ */
/* Pair queries (src/collide/gjk.c, epa.c, sat.c, query.c)                                     */

typedef enum sr_collide_status {
    SR_COLLIDE_OK = 0,
    SR_COLLIDE_ITERATION_CAP,  ///< the cap was hit: the result is the best found, flagged
    SR_COLLIDE_INVALID_SHAPE,  ///< a shape fails sr_shape_validate (the result is zeroed)
    SR_COLLIDE_UNSUPPORTED,    ///< the query does not apply to these shapes (SAT of a sphere)
} sr_collide_status;

/// Which computation gave a result.
typedef enum sr_collide_method {
    SR_COLLIDE_BY_GJK = 0,
    SR_COLLIDE_BY_EPA,
    SR_COLLIDE_BY_SAT,
    SR_COLLIDE_BY_CLOSED_FORM, ///< sphere-sphere, capsule-capsule and the like
} sr_collide_method;

typedef struct sr_collide_options {
    /// Cap of each iterative stage: GJK's steps, EPA's steps, and in a ray or shape cast the
    /// advances along the ray and GJK's steps at each point of it. 0 = default (128).
    int max_iterations;
    sr_collide_trace *trace;  ///< NULL: no trace, no cost
} sr_collide_options;

/// The answer of a pair query (world space).
typedef struct sr_collide_result {
    sr_collide_status status;
    sr_collide_method method;
    bool hit;          ///< the shapes overlap or touch
    /// Signed distance: > 0 apart, < 0 penetrating (its absolute value is the depth), 0 touching.
    /// sr_collide_distance reports 0 for every overlap.
    double distance;
    /// Unit, from A towards B: the direction from point_a to point_b when apart; when penetrating,
    /// the direction to move B by the depth to make them touch. Some unit vector when touching
    /// or when the query does not give one (sr_collide_distance on an overlap).
    sr_dvec3 normal;
    /// Witness points: when apart, the closest points on A and on B; when penetrating, the
    /// deepest point of A inside B and of B inside A (point_a - point_b = depth * normal); on an
    /// overlap that sr_collide_distance reports, both are one point inside both shapes.
    sr_dvec3 point_a, point_b;
    int iterations;    ///< iterations of every stage together
} sr_collide_result;

/// GJK distance (Montanari et al.'s signed-volume sub-algorithm with van den Bergen's backup and
/// termination tests; closed forms for pairs of points, spheres, segments and capsules): the
/// distance between the shapes and their closest points; on overlap, hit = true, distance 0 and a
/// common point.
sr_collide_status sr_collide_distance(const sr_shape *a, const sr_shape *b, const sr_collide_options *options,
                                      sr_collide_result *out);

/// Boolean GJK: whether the shapes overlap or touch. `axis` (may be NULL) warm-starts it: on
/// entry a direction to start from (the separating axis a previous call left for this pair;
/// zero: the default start), on return a separating axis when they are apart (from A towards B,
/// not normalised). *hit receives the answer.
sr_collide_status sr_collide_intersect(const sr_shape *a, const sr_shape *b, sr_dvec3 *axis,
                                       const sr_collide_options *options, bool *hit);

/// Penetration depth: for overlapping shapes the depth, normal and witness points (EPA on the
/// Minkowski difference of the cores, SAT where it is exact, closed forms); for separated shapes
/// the same as sr_collide_distance. EPA's polytope lives on the stack (about 34 KB).
sr_collide_status sr_collide_penetration(const sr_shape *a, const sr_shape *b, const sr_collide_options *options,
                                         sr_collide_result *out);

/// Signed distance: the one call that answers either (distance when apart, depth when
/// penetrating), choosing the exact method for the pair.
sr_collide_status sr_collide_signed_distance(const sr_shape *a, const sr_shape *b, const sr_collide_options *options,
                                             sr_collide_result *out);

/// Separating-axis test of two polytopes (point, segment, triangle, box, hull; rounding not
/// allowed): every face normal of both and every edge x edge cross product. On overlap the
/// minimum translation distance (result.distance = -depth, normal, witness points); when apart,
/// result.distance is the largest separation over the axes (every face normal of both taken
/// both ways, and the edge pairs tested; a lower bound of the distance, equal to it when a face
/// realises it) and normal that axis. SR_COLLIDE_UNSUPPORTED for curved or
/// rounded shapes. Specialised paths for box-box (15 axes) and triangle-box (13 axes).
/// Flat shapes also test the normals of their sides (in their plane), so that coplanar shapes
/// apart in their plane are found apart; edge pairs are tested only where they form a face of
/// A - B (their arcs on the Gauss map cross), and not when parallel (within 1e-9 rad: A - B has
/// an edge there). Two points or segments are answered by their closest points (their distance
/// is then exact). Witness points: on overlap, the centre of the region where the shapes touch
/// once B is moved by depth * normal (point_a - point_b = depth * normal); when apart, the
/// closest points of the two features that support the axis (point_b - point_a has the
/// separation along the normal). The trace (options->trace) receives every axis tested.
sr_collide_status sr_collide_sat(const sr_shape *a, const sr_shape *b, const sr_collide_options *options,
                                 sr_collide_result *out);

/* ------------------------------------------------------------------------------------------ */
/* Closest points on primitives (Ericson, Real-Time Collision Detection, ch. 5; closest.c)     */

/// Closest point to `p` on segment a-b; *t (may be NULL) its parameter in [0, 1].
sr_dvec3 sr_collide_closest_point_segment(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b, double *t);
/// Closest point to `p` on triangle abc (Voronoi regions); `barycentric` (may be NULL) receives
/// its weights of a, b and c. Degenerate triangles (segments, points) are handled.
sr_dvec3 sr_collide_closest_point_triangle(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b, sr_dvec3 c, sr_dvec3 *barycentric);
/// Closest point to `p` in the solid box of `half_extents` placed by `pose` (p itself inside).
sr_dvec3 sr_collide_closest_point_box(sr_dvec3 p, sr_pose pose, sr_dvec3 half_extents);
/// Closest point to `p` in the solid tetrahedron abcd (p itself inside); degenerate ones handled.
sr_dvec3 sr_collide_closest_point_tetrahedron(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b, sr_dvec3 c, sr_dvec3 d);
/// Closest points between segments p1-q1 and p2-q2 (parallel and degenerate ones handled);
/// returns the squared distance.
double sr_collide_closest_segment_segment(sr_dvec3 p1, sr_dvec3 q1, sr_dvec3 p2, sr_dvec3 q2, sr_dvec3 *c1,
                                          sr_dvec3 *c2);

/* ------------------------------------------------------------------------------------------ */
/* Ray and shape casts (src/collide/cast.c)                                                    */

typedef struct sr_collide_ray_hit {
    bool hit;
    double t;        ///< in units of |direction|, in [0, max_t]
    sr_dvec3 point;  ///< origin + t * direction
    sr_dvec3 normal; ///< unit surface normal at the hit; -direction normalised when the origin is inside (t = 0)
    int iterations;
} sr_collide_ray_hit;

/// Ray origin + t * direction, t in [0, max_t], against a shape: closed forms for spheres,
/// capsules, boxes, cylinders and cones, GJK ray cast (van den Bergen) for the others. An origin
/// inside or on the shape hits at t = 0.
sr_collide_status sr_collide_ray_cast(const sr_shape *shape, sr_dvec3 origin, sr_dvec3 direction, double max_t,
                                      const sr_collide_options *options, sr_collide_ray_hit *out);

typedef struct sr_collide_cast_hit {
    bool hit;
    double t;        ///< time of impact in [0, 1]: A at pose.position + t * translation touches B
    sr_dvec3 point;  ///< the contact point at time t (world)
    sr_dvec3 normal; ///< unit, from A towards B at time t
    bool initially_overlapping; ///< they overlap at t = 0 (then t = 0 and normal as sr_collide_penetration)
    int iterations;             ///< GJK steps along the whole sweep (and the penetration query's at t = 0)
} sr_collide_cast_hit;

/// Linear sweep: shape A translated by `translation` over t in [0, 1] against B still (for two
/// moving shapes pass their relative translation). GJK ray cast on the Minkowski difference.
sr_collide_status sr_collide_shape_cast(const sr_shape *a, sr_dvec3 translation, const sr_shape *b,
                                        const sr_collide_options *options, sr_collide_cast_hit *out);

/* ------------------------------------------------------------------------------------------ */
/* Bounding volumes (src/collide/bounds.c)                                                     */

/// An axis-aligned box in double.
typedef struct sr_dbox {
    sr_dvec3 min, max;
} sr_dbox;

/// An oriented box: centre, orthonormal axes (a right-handed frame), half extents along them.
typedef struct sr_dobb {
    sr_dvec3 centre;
    sr_dvec3 axes[3];
    sr_dvec3 half_extents;
} sr_dobb;

typedef struct sr_dsphere {
    sr_dvec3 centre;
    double radius;
} sr_dsphere;

/// A discrete-orientation polytope: k / 2 fixed axes (6: the 3 coordinate axes; 14: + the 4
/// cube diagonals; 18: the 3 coordinate axes + the 6 edge diagonals (1,1,0)...; 26: all 13), an
/// interval per axis (in units of the axis, the axes not normalised: (1,1,1), (1,1,0), ...).
/// min and max are indexed by slot (sr_kdop_axis); a slot the k-DOP does not use holds
/// (-inf, +inf), no constraint, so an overlap test may run over all 13 slots for any k.
typedef struct sr_kdop {
    int k;
    double min[13], max[13];
} sr_kdop;

/// The axis of k-DOP slot `i` (0 <= i < 13), not normalised: slots 0-2 the coordinate axes,
/// 3-6 the cube diagonals (1,1,1), (1,1,-1), (1,-1,1), (-1,1,1), 7-12 the edge diagonals
/// (1,1,0), (1,-1,0), (1,0,1), (1,0,-1), (0,1,1), (0,1,-1); zero for any other i. The 6-DOP
/// uses slots 0-2, the 14-DOP 0-6, the 18-DOP 0-2 and 7-12, the 26-DOP all 13.
sr_dvec3 sr_kdop_axis(int i);
/// Whether the k-DOP uses slot `i` (false for a k other than 6, 14, 18, 26).
bool sr_kdop_uses_slot(int k, int i);

/// Exact box of the shape (support points along the 6 axes: exact for every rotated shape).
/// An invalid shape (sr_shape_validate) gives an empty box: min = +inf, max = -inf.
sr_dbox sr_shape_bounds(const sr_shape *shape);
/// The smallest float box holding a double box (rounded outwards), for the dynamic tree.
sr_aabb sr_dbox_to_aabb(sr_dbox box);
/// Exact k-DOP of the shape (support points along its axes); k is 6, 14, 18 or 26.
sr_status sr_shape_kdop(const sr_shape *shape, int k, sr_kdop *out, sr_error *err);
/// A tight oriented box of the shape: its own box for boxes, capsules, cylinders and cones (and
/// their local frame), the point-set OBB of its vertices for hulls, triangles and segments,
/// rounding added.
sr_status sr_shape_obb(const sr_shape *shape, sr_dobb *out, sr_error *err);
/// The minimal bounding sphere of the shape (exact for every shape type).
sr_status sr_shape_bounding_sphere(const sr_shape *shape, sr_dsphere *out, sr_error *err);

/// Bounding volumes of `count` points (count >= 1, finite). Errors: SR_ERROR_INVALID_ARGUMENT
/// (count 0, NaN or infinite coordinates, a bad k; the message names the point or the value),
/// SR_ERROR_OUT_OF_MEMORY.
sr_status sr_bound_box_points(const sr_dvec3 *points, size_t count, sr_dbox *out, sr_error *err);
/// Oriented box: the principal axes of the points' convex hull (PCA), then refined by trying the
/// directions of the hull's faces and edges (never larger in volume than the PCA box). Each face
/// normal (the 256 largest faces of big hulls) and edge direction (the 256 longest) is tried
/// with the exact minimum-area rectangle of the hull's shadow in the plane orthogonal to it
/// (rotating calipers), and a descent over small rotations polishes the best few. Flat sets get
/// the exact minimum-area rectangle in their plane (and 0 across it). Allocates (the hull).
sr_status sr_bound_obb_points(const sr_dvec3 *points, size_t count, sr_dobb *out, sr_error *err);
/// Welzl's minimal enclosing sphere: exact (up to rounding), deterministic (a fixed order, no
/// random shuffle that depends on anything but the input).
sr_status sr_bound_sphere_points(const sr_dvec3 *points, size_t count, sr_dsphere *out, sr_error *err);
sr_status sr_bound_kdop_points(const sr_dvec3 *points, size_t count, int k, sr_kdop *out, sr_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Placed shapes: a shape prepared once for many queries at one pose (shape.c, query.c)        */

/// A shape with what every query would work out of it again: whether it is valid
/// (sr_shape_validate), its rotation as a matrix, its size, its core's points turned into the
/// world. Make it with sr_shape_place when the shape or its pose changes, then ask any number of
/// queries of it; they answer bit for bit as the same queries on the shape itself. Worth it when
/// a shape meets several others before it moves again (a scene's pairs, a physics step's
/// contacts). Read-only: filled by sr_shape_place, it holds a copy of the shape and points to
/// nothing of its own (a hull shape's hull must outlive it), so it may be copied freely.
typedef struct sr_placed_shape {
    sr_shape shape; ///< the shape, as given
    /// It passed sr_shape_validate. When false nothing below is filled: the queries answer
    /// SR_COLLIDE_INVALID_SHAPE and the support and box are sr_shape_support's and
    /// sr_shape_bounds' of `shape`.
    bool valid;
    bool rotated;       ///< false: the rotation is the identity (a zero quaternion or vector part)
    double rotation[9]; ///< the pose's rotation, normalised, row-major: world = rotation * local + position
    double size;        ///< sr_shape_size(&shape)
    /// The core's points (point and sphere: the centre; segment and capsule: the two ends;
    /// triangle: the corners; a hull of dimension 0 or 1: its vertices; none for the others)
    /// rotated but not moved: the world point is core_points[i] + shape.pose.position.
    sr_dvec3 core_points[3];
    int core_point_count;
} sr_placed_shape;

/// Places `shape` (NULL or invalid: `valid` false).
void sr_shape_place(const sr_shape *shape, sr_placed_shape *out);
/// sr_shape_support of the placed shape, bit for bit.
sr_dvec3 sr_placed_support(const sr_placed_shape *shape, sr_dvec3 direction);
/// sr_shape_bounds of the placed shape, bit for bit.
sr_dbox sr_placed_bounds(const sr_placed_shape *shape);
/// sr_collide_distance, sr_collide_penetration and sr_collide_signed_distance of two placed
/// shapes: the same answer, bit for bit, as on their `shape`s (NULL or invalid:
/// SR_COLLIDE_INVALID_SHAPE and a zeroed result).
sr_collide_status sr_collide_placed_distance(const sr_placed_shape *a, const sr_placed_shape *b,
                                             const sr_collide_options *options, sr_collide_result *out);
sr_collide_status sr_collide_placed_penetration(const sr_placed_shape *a, const sr_placed_shape *b,
                                                const sr_collide_options *options, sr_collide_result *out);
sr_collide_status sr_collide_placed_signed_distance(const sr_placed_shape *a, const sr_placed_shape *b,
                                                    const sr_collide_options *options, sr_collide_result *out);

#ifdef __cplusplus
}
#endif
#endif
