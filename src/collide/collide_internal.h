/* src/collide/collide_internal.h — private to the collide module: the hull's full layout (the
 * public view is a part of it), the "placed" shape every query works on (a shape's core with its
 * rotation as a matrix, its position relative to the query's origin and its radius), the support
 * mappings of the cores, and the functions the module's files share (GJK in gjk.c, EPA in epa.c,
 * the trace helpers). Never installed. Knows nothing of raster, scene or SDL.
 *
 * Cores and radii: every shape is a core (point, segment, triangle, box, cylinder, cone, hull)
 * plus a radius — a sphere is a point of radius r, a capsule a segment, and any shape's `rounding`
 * adds to it. The iterative queries run on the cores and add the radii at the end, which makes
 * spheres and capsules exact (Box2D's and Bullet's margins do the same). Hulls of dimension 0 or
 * 1 become point or segment cores.
 *
 * The query's frame: a pair query subtracts A's position from both positions before it starts
 * (placed shapes keep `position` relative to that origin), so that two shapes 1e3 from the world's
 * origin are computed with the precision of their own sizes; results are moved back at the end. */
#ifndef SR_COLLIDE_INTERNAL_H
#define SR_COLLIDE_INTERNAL_H

#include <softrast/collide.h>

#include <float.h>
#include <math.h>

/* Coordinates, sizes and positions beyond this magnitude are refused (sr_shape_validate,
 * sr_hull_create): products of up to six of them stay far from overflow (1e180), so no query can
 * make an infinity or a NaN out of valid input. */
#define SR_COLLIDE_MAX_MAGNITUDE 1e30

#define SR_COLLIDE_DEFAULT_ITERATIONS 128

/* Hulls with more vertices than this find their support point by hill climbing over the vertex
 * adjacency (from the axis-extreme vertex nearest the direction); smaller ones by a linear scan,
 * which is faster there (measured in tests/bench). */
#define SR_HULL_CLIMB_THRESHOLD 32

/* ---- hulls ---- */

struct sr_hull {
    sr_hull_view view; /* points into the arrays below */
    /* Vertex adjacency for hill climbing: the neighbours of vertex v are
     * adjacency[adjacency_first[v] .. adjacency_first[v + 1]). */
    const uint32_t *adjacency_first;
    const uint32_t *adjacency;
    /* The edge of each adjacency entry: vertex v and adjacency[k] are joined by edge
     * adjacency_edges[k]. */
    const uint32_t *adjacency_edges;
    /* The two faces each edge joins: edge_faces[2 e] and edge_faces[2 e + 1] (for a flat hull,
     * its two sides); the separating-axis test's Gauss map (sat_poly.c) reads them. */
    const uint32_t *edge_faces;
    /* The vertex extreme along +x, -x, +y, -y, +z, -z: where hill climbing starts. */
    uint32_t extreme[6];
    /* Structure of arrays copy of the vertices, for the linear scan. */
    const double *xs, *ys, *zs;
    sr_dvec3 box_min, box_max; /* local bounding box of the vertices */
    sr_dvec3 centroid;         /* average of the vertices: a point of the hull */
    void *block;               /* the one allocation holding every array */
};

/* The counts a hull's block is laid out for (hull.c). */
typedef struct sr_hull_tables {
    int dimension;
    size_t vertex_count, face_count, face_vertex_count, edge_count;
} sr_hull_tables;
/* A hull and its one block for the counts, the view's pointers set (hull.c); NULL when out of
 * memory. */
sr_hull *sr_hull_allocate(const sr_hull_tables *tables);
/* Fills what every hull carries beyond its vertices, faces and edges (which must be in place):
 * the structure-of-arrays copy, box, centroid, extreme vertices and adjacency (hull.c). */
void sr_hull_finish(sr_hull *hull);
/* The hull of a solid point set from its first tetrahedron `simplex` (hull_quickhull.c): `points`
 * the input, `centred` the same moved by -centre. NULL with *status SR_ERROR_OUT_OF_MEMORY or, should
 * no attempt give a consistent hull, SR_ERROR_UNSUPPORTED. */
sr_hull *sr_hull_quickhull(const sr_dvec3 *points, const sr_dvec3 *centred, size_t count, double tolerance,
                           const int32_t simplex[4], sr_dvec3 centre, sr_status *status);

/* ---- placed shapes ---- */

typedef enum core_type {
    CORE_POINT = 0, /* the position */
    CORE_SEGMENT,   /* world points p[0], p[1] */
    CORE_TRIANGLE,  /* world points p[0..2] */
    CORE_BOX,
    CORE_CYLINDER,
    CORE_CONE,
    CORE_HULL,
} core_type;

typedef struct sr_placed {
    core_type core;
    bool rotated;      /* false: the rotation is the identity, skip the matrix */
    double m[9];       /* rotation matrix, row-major: world = m * local + position */
    sr_dvec3 position; /* relative to the query's origin */
    double radius;     /* the core's radius: sphere or capsule radius plus rounding */
    double size;       /* sr_shape_size of the shape */
    sr_dvec3 p[3];     /* point, segment and triangle cores: their points in the query's frame */
    sr_dvec3 half_extents;
    double core_radius; /* cylinder, cone */
    double half_height; /* cylinder, cone */
    const sr_hull *hull;
} sr_placed;

/* The placed form of a valid shape (sr_shape_validate passed), positions relative to `origin`. */
void sr_placed_make(const sr_shape *shape, sr_dvec3 origin, sr_placed *out);
/* Validates a pair of shapes and places both in the query's frame (A's position, returned in
 * *origin). False when either is NULL or invalid. */
bool sr_pair_place(const sr_shape *a, const sr_shape *b, sr_placed *placed_a, sr_placed *placed_b, sr_dvec3 *origin);
/* sr_pair_place of two placed shapes (sr_shape_place): the same placed shapes from their kept
 * rotation matrices and points. False when either is NULL or invalid. */
bool sr_pair_place_placed(const sr_placed_shape *a, const sr_placed_shape *b, sr_placed *placed_a, sr_placed *placed_b,
                          sr_dvec3 *origin);
/* The shape's size (sr_shape_size) of a valid shape. */
double sr_shape_size_of_valid(const sr_shape *shape);
/* Support point of a hull's vertices along a local direction (ties: the lowest index for the
 * scan, the climb's own deterministic walk for large hulls). */
uint32_t sr_hull_support_index(const sr_hull *hull, sr_dvec3 direction);

static inline sr_dvec3 dv(double x, double y, double z)
{
    sr_dvec3 r = {x, y, z};
    return r;
}
static inline sr_dvec3 dadd(sr_dvec3 a, sr_dvec3 b)
{
    return dv(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline sr_dvec3 dsub(sr_dvec3 a, sr_dvec3 b)
{
    return dv(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline sr_dvec3 dscale(sr_dvec3 a, double s)
{
    return dv(a.x * s, a.y * s, a.z * s);
}
static inline sr_dvec3 dneg(sr_dvec3 a)
{
    return dv(-a.x, -a.y, -a.z);
}
static inline double ddot(sr_dvec3 a, sr_dvec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline sr_dvec3 dcross(sr_dvec3 a, sr_dvec3 b)
{
    return dv(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double dlength_squared(sr_dvec3 a)
{
    return ddot(a, a);
}
static inline double dlength(sr_dvec3 a)
{
    return sqrt(ddot(a, a));
}
static inline double dmax_abs(sr_dvec3 a)
{
    return fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
}
/* a + s * b */
static inline sr_dvec3 dmadd(sr_dvec3 a, double s, sr_dvec3 b)
{
    return dv(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

static inline sr_dvec3 placed_to_local(const sr_placed *shape, sr_dvec3 world_direction)
{
    const double *m = shape->m;
    return dv(m[0] * world_direction.x + m[3] * world_direction.y + m[6] * world_direction.z,
              m[1] * world_direction.x + m[4] * world_direction.y + m[7] * world_direction.z,
              m[2] * world_direction.x + m[5] * world_direction.y + m[8] * world_direction.z);
}

static inline sr_dvec3 placed_to_world(const sr_placed *shape, sr_dvec3 local)
{
    const double *m = shape->m;
    return dv(m[0] * local.x + m[1] * local.y + m[2] * local.z, m[3] * local.x + m[4] * local.y + m[5] * local.z,
              m[6] * local.x + m[7] * local.y + m[8] * local.z);
}

/* Support points of the local cores (no rounding). Ties go to the positive side, the apex, the
 * first point: the same input gives the same point. */
static inline sr_dvec3 box_support(sr_dvec3 half, sr_dvec3 d)
{
    return dv(d.x >= 0 ? half.x : -half.x, d.y >= 0 ? half.y : -half.y, d.z >= 0 ? half.z : -half.z);
}

/* A direction within 1e-12 rad of a cylinder's or cone's axis picks the centre of the cap or base
 * (its support value is then R * 1e-12 short at most): the tie of a whole disc is broken at its
 * centre, not at a rim point chosen by the rounding of a rotation. */
#define AXIAL_TIE 1e-12

static inline sr_dvec3 cylinder_support(double radius, double half_height, sr_dvec3 d)
{
    double rxy = sqrt(d.x * d.x + d.y * d.y);
    double z = d.z >= 0 ? half_height : -half_height;
    if (rxy > AXIAL_TIE * fabs(d.z) && rxy > 0 && isfinite(rxy)) {
        double s = radius / rxy;
        return dv(d.x * s, d.y * s, z);
    }
    return dv(0, 0, z);
}

static inline sr_dvec3 cone_support(double radius, double half_height, sr_dvec3 d)
{
    /* the apex (0, 0, h) against the rim point along d's horizontal part (the base's centre when
     * d is vertical) */
    double rxy = sqrt(d.x * d.x + d.y * d.y);
    bool horizontal = rxy > AXIAL_TIE * fabs(d.z) && rxy > 0 && isfinite(rxy);
    double apex = d.z * half_height;
    double rim = (horizontal ? radius * rxy : 0.0) - d.z * half_height;
    if (apex >= rim)
        return dv(0, 0, half_height);
    if (!horizontal)
        return dv(0, 0, -half_height);
    double s = radius / rxy;
    return dv(d.x * s, d.y * s, -half_height);
}

/* The core's support point along a direction of the query's frame. */
__attribute__((always_inline)) static inline sr_dvec3 placed_support(const sr_placed *shape, sr_dvec3 d)
{
    switch (shape->core) {
    case CORE_POINT:
        return shape->p[0];
    case CORE_SEGMENT:
        return ddot(shape->p[1], d) > ddot(shape->p[0], d) ? shape->p[1] : shape->p[0];
    case CORE_TRIANGLE: {
        double d0 = ddot(shape->p[0], d), d1 = ddot(shape->p[1], d), d2 = ddot(shape->p[2], d);
        int best = d1 > d0 ? 1 : 0;
        if (d2 > (best ? d1 : d0))
            best = 2;
        return shape->p[best];
    }
    default:
        break;
    }
    sr_dvec3 local_d = shape->rotated ? placed_to_local(shape, d) : d;
    sr_dvec3 local;
    switch (shape->core) {
    case CORE_BOX:
        local = box_support(shape->half_extents, local_d);
        break;
    case CORE_CYLINDER:
        local = cylinder_support(shape->core_radius, shape->half_height, local_d);
        break;
    case CORE_CONE:
        local = cone_support(shape->core_radius, shape->half_height, local_d);
        break;
    default:
        local = shape->hull->view.vertices[sr_hull_support_index(shape->hull, local_d)];
        break;
    }
    return dadd(shape->rotated ? placed_to_world(shape, local) : local, shape->position);
}

/* ---- queries' shared machinery ---- */

/* A point of the cores' Minkowski difference A - B and the support points it came from. */
typedef struct sr_support_point {
    sr_dvec3 w, a, b; /* w = a - b */
} sr_support_point;

static inline sr_support_point minkowski_support(const sr_placed *a, const sr_placed *b, sr_dvec3 d)
{
    sr_support_point s;
    s.a = placed_support(a, d);
    s.b = placed_support(b, dneg(d));
    s.w = dsub(s.a, s.b);
    return s;
}

/* The magnitude of the coordinates a pair query computes with (its frame is A's position): the
 * tolerances of the iterations are relative to it. */
static inline double query_scale(const sr_placed *a, const sr_placed *b)
{
    double scale = dlength(dsub(b->position, a->position)) + a->size + b->size;
    return scale > 1e-290 ? scale : 1e-290;
}

/* A simplex of GJK: 1 to 4 points of A - B with the barycentric weights of the point of the simplex
 * closest to the origin. */
typedef struct sr_gjk_simplex {
    sr_support_point v[4];
    double weights[4];
    int count;
} sr_gjk_simplex;

/* What GJK found about the cores (gjk.c). */
typedef struct sr_gjk_output {
    sr_gjk_simplex simplex;
    sr_dvec3 closest;          /* the point of A - B closest to the origin (point_a - point_b) */
    double distance;           /* |closest|: the cores' distance (0 when they overlap) */
    sr_dvec3 point_a, point_b; /* the cores' closest points (one common point on overlap) */
    bool overlap;              /* the cores overlap or touch (closest is 0 within the rounding) */
    bool capped;               /* the iteration cap was hit */
    int iterations;
} sr_gjk_output;

/* GJK distance between the cores (gjk.c): signed-volume sub-algorithm (Montanari et al. 2017) and
 * van den Bergen's termination tests and backup. Records its steps in `trace` (may be NULL). */
void sr_gjk_distance(const sr_placed *a, const sr_placed *b, int max_iterations, sr_collide_trace *trace,
                     sr_dvec3 origin, sr_gjk_output *out);

/* What EPA found about overlapping cores (epa.c). */
typedef struct sr_epa_output {
    sr_dvec3 normal;           /* unit, from A towards B: moving B by depth * normal makes the cores touch */
    double depth;              /* the cores' depth along normal (about 0 when they only touch) */
    sr_dvec3 point_a, point_b; /* the deepest points of each core in the other: point_a - point_b = depth * normal */
    int iterations;
    bool capped;     /* the vertices or iterations ran out before the bounds met within 1e-6 */
    bool degenerate; /* A - B is flat, a segment or a point: the depth across it */
} sr_epa_output;

/* Witness points along a normal of the cores' overlap (epa.c): a point of A's support set along n
 * and one of B's along -n whose difference is depth * n (ties — faces, edges, discs — resolved by
 * combining the supports along n tilted a hair four ways). */
void sr_witness_along(const sr_placed *a, const sr_placed *b, sr_dvec3 n, double depth, sr_dvec3 *point_a,
                      sr_dvec3 *point_b);

/* EPA on the cores from GJK's last simplex (epa.c); records its steps in `trace` (may be NULL). */
void sr_epa_penetration(const sr_placed *a, const sr_placed *b, const sr_gjk_simplex *simplex, int max_iterations,
                        sr_collide_trace *trace, sr_dvec3 origin, sr_epa_output *out);

/* The point of the simplex `points[0..count)` closest to the origin (gjk.c): fills weights[0..4)
 * (zero for the vertices the closest point does not need) and returns the point. Degenerate
 * simplices (repeated, collinear, coplanar points) are handled. */
sr_dvec3 sr_simplex_closest(const sr_dvec3 *points, int count, double weights[4]);

/* A point against a box, cylinder or cone core (point_core.c). */
typedef struct sr_point_core {
    double distance;   /* signed: positive outside, minus the depth inside */
    sr_dvec3 normal;   /* unit, the core's outward normal at the boundary point */
    sr_dvec3 boundary; /* the boundary point nearest the point: point - distance * normal */
} sr_point_core;

/* The signed distance from a point to the core of a box, cylinder or cone, in closed form in the
 * core's frame: outside, the core's closest point; inside, the nearest point of its boundary (the
 * nearest face; for a cylinder or cone the side, a cap or the base). False for other cores. */
bool sr_point_core_distance(const sr_placed *solid, sr_dvec3 point, sr_point_core *out);

/* The options with defaults filled in. */
static inline int options_iterations(const sr_collide_options *options)
{
    return options && options->max_iterations > 0 ? options->max_iterations : SR_COLLIDE_DEFAULT_ITERATIONS;
}
static inline sr_collide_trace *options_trace(const sr_collide_options *options)
{
    return options ? options->trace : NULL;
}

/* Clears a trace's counts (a query starts with it). */
void sr_trace_clear(sr_collide_trace *trace);

#endif
