/* src/collide/sat_internal.h — the separating-axis test's view of a polytope, shared by sat.c
 * (the entry point, box-box and triangle-box), sat_poly.c (the views and the generic test over
 * faces and Gauss-map-pruned edge pairs) and sat_witness.c (the witness points of the chosen
 * axis). Private to src/collide.
 *
 * Every polytope is seen as a complete 3D polytope: faces with outward normals, and edges with
 * the two faces they join, whose normals bound the edge's arc on the Gauss map (the unit sphere
 * of directions; a Minkowski face of A - B is a pair of arcs that cross, Gregorius, "The
 * Separating Axis Test between Convex Polyhedra", GDC 2013). Lower-dimensional shapes become
 * complete ones in the limit:
 *  - a box with zero half extents keeps its six faces and twelve edges (some of length 0);
 *  - a flat polygon (a triangle, a flat hull) is a prism of height 0: its two sides (faces 0
 *    and 1, normals n and -n), a side face per polygon edge i (face 2 + i, normal edge_i x n,
 *    in the plane), and per polygon vertex three edges: the polygon edge on the top side
 *    (3i, between faces 0 and 2 + i), the same on the bottom (3i + 1, faces 1 and 2 + i), and
 *    the edge of height 0 along n at vertex i (3i + 2, between the side faces of the two polygon
 *    edges meeting there);
 *  - a segment has one edge whose arc is the whole great circle orthogonal to it, no face;
 *  - a point has neither.
 * Pairs of points and segments (whose Minkowski difference is at most flat) are answered by
 * their closest points instead. */
#ifndef SR_COLLIDE_SAT_INTERNAL_H
#define SR_COLLIDE_SAT_INTERNAL_H

#include "collide_internal.h"

typedef enum sat_dim {
    SAT_POINT = 0,
    SAT_SEGMENT,
    SAT_FLAT,
    SAT_SOLID,
} sat_dim;

typedef enum sat_source {
    SAT_FROM_BOX = 0, /* half_extents; the box's own topology */
    SAT_FROM_HULL,    /* a hull of dimension 2 or 3 */
    SAT_FROM_POINTS,  /* points[] (a point, a segment, a triangle) */
} sat_source;

/* A rotation matrix (rows: rotated = m * v). */
typedef struct sat_matrix {
    double m[3][3];
} sat_matrix;

/* A polytope in its local frame, placed in the query's frame by local -> m * local + position. */
typedef struct sat_poly {
    sat_dim dim;
    sat_source source;
    bool rotated;
    sat_matrix m;
    sr_dvec3 position;
    sr_dvec3 half_extents;    /* SAT_FROM_BOX */
    const sr_hull *hull;      /* SAT_FROM_HULL */
    sr_dvec3 points[3];       /* SAT_FROM_POINTS, local (= the query's frame, m the identity) */
    const sr_dvec3 *vertices; /* the local vertices: points[] or the hull's; NULL for a box */
    uint32_t vertex_count;
    const uint32_t *cycle; /* SAT_FLAT: the polygon's vertices, counter-clockwise about normal */
    uint32_t cycle_count;
    uint32_t cycle_storage[3];
    sr_dvec3 normal; /* SAT_FLAT: unit, local */
    double size;     /* the shape's size: tolerances are relative to it */
} sat_poly;

/* A face in the local frame: outward unit normal and plane offset (dot(normal, p) <= offset on
 * the polytope). */
typedef struct sat_face {
    sr_dvec3 normal;
    double offset;
} sat_face;

/* An edge in the local frame: a point of it, its direction (not normalised; for an edge of
 * length 0 the direction it stands for), and the outward normals of the faces it joins (the
 * ends of its arc on the Gauss map), or full_circle for a segment's edge. */
typedef struct sat_edge {
    sr_dvec3 point, direction;
    sr_dvec3 arc_a, arc_b;
    uint32_t face_a, face_b; /* the faces whose normals are arc_a and arc_b (none for a segment) */
    bool full_circle;
} sat_edge;

/* The SAT's view of a valid shape (point, segment, triangle, box or hull, already checked),
 * placed relative to `origin`. */
void sat_poly_make(const sr_shape *shape, sr_dvec3 origin, sat_poly *out);

uint32_t sat_poly_face_count(const sat_poly *p);
sat_face sat_poly_face(const sat_poly *p, uint32_t f);
uint32_t sat_poly_edge_count(const sat_poly *p);
sat_edge sat_poly_edge(const sat_poly *p, uint32_t e);
uint32_t sat_poly_vertex_count(const sat_poly *p);
sr_dvec3 sat_poly_vertex(const sat_poly *p, uint32_t v);
/* A vertex farthest along the local direction d (deterministic ties). */
sr_dvec3 sat_poly_support(const sat_poly *p, sr_dvec3 d);
/* The index of such a vertex (sat_poly_vertex gives it). */
uint32_t sat_poly_support_index(const sat_poly *p, sr_dvec3 d);

/* The placement of B in A's local frame: x_A = r * x_B + t. */
typedef struct sat_relative {
    sat_matrix r;
    sr_dvec3 t;
} sat_relative;

void sat_relative_make(const sat_poly *a, const sat_poly *b, sat_relative *out);

static inline sr_dvec3 sat_rotate(const sat_matrix *r, sr_dvec3 v)
{
    const double(*m)[3] = r->m;
    return dv(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
              m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z);
}

static inline sr_dvec3 sat_rotate_inverse(const sat_matrix *r, sr_dvec3 v)
{
    const double(*m)[3] = r->m;
    return dv(m[0][0] * v.x + m[1][0] * v.y + m[2][0] * v.z, m[0][1] * v.x + m[1][1] * v.y + m[2][1] * v.z,
              m[0][2] * v.x + m[1][2] * v.y + m[2][2] * v.z);
}

static inline sr_dvec3 sat_b_to_a(const sat_relative *rel, sr_dvec3 x)
{
    return dadd(sat_rotate(&rel->r, x), rel->t);
}
static inline sr_dvec3 sat_a_to_b(const sat_relative *rel, sr_dvec3 x)
{
    return sat_rotate_inverse(&rel->r, dsub(x, rel->t));
}

/* Two directions are parallel for the SAT when |u x v| <= SAT_PARALLEL |u| |v| (1e-9 rad): the
 * cross product then stands for a face of A - B thinner than 1e-9 of the shapes, whose
 * separation its neighbours on the Gauss map give within that much. */
#define SAT_PARALLEL 1e-9

/* The best axis found: unit, from A towards B, in A's local frame. */
typedef struct sat_best {
    double separation;
    sr_dvec3 axis;
    sr_sat_axis_kind kind;
    int feature_a, feature_b;
    int tested; /* axes whose separation was computed */
} sat_best;

/* Where the axes a query tests go when it is traced: their world intervals are computed only then. */
typedef struct sat_recorder {
    sr_collide_trace *trace;
    const sat_poly *a, *b;
    const sat_relative *rel;
    sr_dvec3 origin; /* the query's origin in the world */
    bool swapped;    /* the first shape is the caller's B (triangle-box with the box first) */
} sat_recorder;

/* Records one axis (unit, A's local frame, from A towards B) with both shapes' world intervals. */
void sat_record(const sat_recorder *recorder, sr_sat_axis_kind kind, int feature_a, int feature_b, sr_dvec3 axis,
                double separation);

/* Offers a candidate axis to `best`: an edge pair must beat the best face by more than the
 * tolerance `edge_bias` (faces give better contacts, and ties are real). */
static inline void sat_offer(sat_best *best, double separation, sr_dvec3 axis, sr_sat_axis_kind kind, int feature_a,
                             int feature_b, double edge_bias)
{
    best->tested++;
    double bar = kind == SR_SAT_EDGE_EDGE ? best->separation + edge_bias : best->separation;
    if (separation > bar) {
        best->separation = separation;
        best->axis = axis;
        best->kind = kind;
        best->feature_a = feature_a;
        best->feature_b = feature_b;
    }
}

/* The generic test: every face of both and every edge pair whose arcs cross. */
void sat_generic(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_recorder *recorder,
                 sat_best *best);

/* The 15 axes of two boxes (sat_box.c). */
void sat_box_box(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_recorder *recorder,
                 sat_best *best);
/* Their witness points for the chosen axis, by clipping the features; false when the general
 * witness must take over (the features' projections do not meet). */
bool sat_box_box_witness(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_best *best,
                         sr_dvec3 *point_a, sr_dvec3 *point_b);

/* Witness points in A's local frame for the chosen axis (unit, A's frame, from A towards B) and
 * separation: on the support features of A along the axis and of B against it. When they
 * overlap, point_a - point_b = -separation * axis; when apart, the closest points of the two
 * features. */
void sat_witness(const sat_poly *a, const sat_poly *b, const sat_relative *rel, sr_dvec3 axis, double separation,
                 sr_dvec3 *point_a, sr_dvec3 *point_b);

#endif
