/* src/collide/sat_poly.c — the separating-axis test's view of points, segments, triangles, boxes
 * and hulls as complete polytopes (faces, edges with their Gauss-map arcs; see sat_internal.h),
 * and the generic test over them: every face normal of both, and every pair of edges whose arcs
 * cross on the Gauss map (Gregorius, GDC 2013: the pairs that form a face of the Minkowski
 * difference; the others stand for no face and are skipped without computing a separation).
 * Part of collide. */
#include "sat_internal.h"

#include <string.h>

/* A triangle whose height is below this fraction of its longest side is its longest side
 * (a segment): its normal would carry the rounding of a cross product of nearly parallel sides. */
#define SAT_SLIVER 1e-8

static void set_identity(sat_matrix *r)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r->m[i][j] = i == j ? 1.0 : 0.0;
}

/* points[0 .. count) of the query's frame as a point, a segment or a flat triangle */
static void make_from_points(sat_poly *out, const sr_dvec3 *points, int count)
{
    out->source = SAT_FROM_POINTS;
    out->rotated = false;
    set_identity(&out->m);
    out->position = dv(0, 0, 0);
    out->vertices = out->points;
    if (count == 3) {
        sr_dvec3 ab = dsub(points[1], points[0]), ac = dsub(points[2], points[0]), bc = dsub(points[2], points[1]);
        double sides[3] = {dlength_squared(ab), dlength_squared(ac), dlength_squared(bc)};
        double longest = fmax(sides[0], fmax(sides[1], sides[2]));
        sr_dvec3 normal = dcross(ab, ac);
        if (dlength_squared(normal) > SAT_SLIVER * SAT_SLIVER * longest * longest) {
            out->dim = SAT_FLAT;
            for (int i = 0; i < 3; i++) {
                out->points[i] = points[i];
                out->cycle_storage[i] = (uint32_t)i;
            }
            out->vertex_count = 3;
            out->cycle = out->cycle_storage;
            out->cycle_count = 3;
            out->normal = sr_dvec3_normalize(normal);
            return;
        }
        /* a segment: the longest side */
        int first = 0, second = 1;
        if (sides[1] >= sides[0] && sides[1] >= sides[2])
            second = 2;
        else if (sides[2] >= sides[0] && sides[2] >= sides[1])
            first = 1, second = 2;
        sr_dvec3 ends[2] = {points[first], points[second]};
        make_from_points(out, ends, 2);
        return;
    }
    if (count == 2 && dlength_squared(dsub(points[1], points[0])) > 0.0) {
        out->dim = SAT_SEGMENT;
        out->points[0] = points[0];
        out->points[1] = points[1];
        out->vertex_count = 2;
        return;
    }
    out->dim = SAT_POINT;
    out->points[0] = points[0];
    out->vertex_count = 1;
}

/* The rotation matrix of a unit quaternion (rows: query = m * local); false for the identity
 * (a zero rotation is the identity too). */
static bool rotation_matrix(sr_dquat q, sat_matrix *r)
{
    if (q.x == 0.0 && q.y == 0.0 && q.z == 0.0) {
        set_identity(r);
        return false;
    }
    double(*m)[3] = r->m;
    double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    m[0][0] = 1.0 - 2.0 * (yy + zz), m[0][1] = 2.0 * (xy - wz), m[0][2] = 2.0 * (xz + wy);
    m[1][0] = 2.0 * (xy + wz), m[1][1] = 1.0 - 2.0 * (xx + zz), m[1][2] = 2.0 * (yz - wx);
    m[2][0] = 2.0 * (xz - wy), m[2][1] = 2.0 * (yz + wx), m[2][2] = 1.0 - 2.0 * (xx + yy);
    return true;
}

/* The largest side of the local bounding box of points[0 .. count): the scale of tolerances. */
static double extent_of(const sr_dvec3 *points, size_t count)
{
    sr_dvec3 low = points[0], high = points[0];
    for (size_t i = 1; i < count; i++) {
        low = dv(fmin(low.x, points[i].x), fmin(low.y, points[i].y), fmin(low.z, points[i].z));
        high = dv(fmax(high.x, points[i].x), fmax(high.y, points[i].y), fmax(high.z, points[i].z));
    }
    return fmax(high.x - low.x, fmax(high.y - low.y, high.z - low.z));
}

void sat_poly_make(const sr_shape *shape, sr_dvec3 origin, sat_poly *out)
{
    out->hull = NULL;
    out->vertices = NULL;
    out->cycle = NULL;
    out->cycle_count = 0;
    sat_matrix m;
    bool rotated = rotation_matrix(shape->pose.rotation, &m);
    sr_dvec3 position = dsub(shape->pose.position, origin);
    const sr_hull_view *view = shape->type == SR_SHAPE_HULL ? &shape->hull->view : NULL;
    if (shape->type != SR_SHAPE_BOX && !(view && view->dimension >= 2)) {
        /* points, segments, triangles and hulls of dimension 0 or 1: their points in the query's
         * frame */
        sr_dvec3 points[3];
        int count = shape->type == SR_SHAPE_POINT ? 1 : (shape->type == SR_SHAPE_SEGMENT ? 2 : 3);
        const sr_dvec3 zero = {0, 0, 0};
        const sr_dvec3 *local = shape->type == SR_SHAPE_POINT ? &zero : shape->points;
        if (view) {
            count = (int)view->vertex_count;
            local = view->vertices;
        }
        for (int i = 0; i < count; i++)
            points[i] = dadd(rotated ? sat_rotate(&m, local[i]) : local[i], position);
        make_from_points(out, points, count);
        out->size = extent_of(out->points, out->vertex_count);
        return;
    }
    out->rotated = rotated;
    out->m = m;
    out->position = position;
    if (shape->type == SR_SHAPE_BOX) {
        out->dim = SAT_SOLID;
        out->source = SAT_FROM_BOX;
        out->half_extents = shape->half_extents;
        out->vertex_count = 8;
        out->size = 2.0 * fmax(shape->half_extents.x, fmax(shape->half_extents.y, shape->half_extents.z));
        return;
    }
    out->size = dmax_abs(dsub(shape->hull->box_max, shape->hull->box_min));
    out->source = SAT_FROM_HULL;
    out->hull = shape->hull;
    out->vertices = view->vertices;
    out->vertex_count = (uint32_t)view->vertex_count;
    if (view->dimension == 2) {
        out->dim = SAT_FLAT;
        out->cycle = view->face_vertices + view->faces[0].first;
        out->cycle_count = view->faces[0].count;
        out->normal = view->faces[0].normal;
    } else {
        out->dim = SAT_SOLID;
    }
}

void sat_relative_make(const sat_poly *a, const sat_poly *b, sat_relative *out)
{
    /* x_query = ma x_A + pa = mb x_B + pb, so x_A = ma^T mb x_B + ma^T (pb - pa) */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out->r.m[i][j] = a->m.m[0][i] * b->m.m[0][j] + a->m.m[1][i] * b->m.m[1][j] + a->m.m[2][i] * b->m.m[2][j];
    out->t = sat_rotate_inverse(&a->m, dsub(b->position, a->position));
}

/* ---- vertices and support ---- */

static sr_dvec3 box_corner(sr_dvec3 h, uint32_t k)
{
    return dv(k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z);
}

uint32_t sat_poly_vertex_count(const sat_poly *p)
{
    return p->vertex_count;
}

sr_dvec3 sat_poly_vertex(const sat_poly *p, uint32_t v)
{
    return p->source == SAT_FROM_BOX ? box_corner(p->half_extents, v) : p->vertices[v];
}

uint32_t sat_poly_support_index(const sat_poly *p, sr_dvec3 d)
{
    switch (p->source) {
    case SAT_FROM_BOX:
        return (uint32_t)((d.x >= 0) | (d.y >= 0) << 1 | (d.z >= 0) << 2); /* box_support's corner */
    case SAT_FROM_HULL:
        return sr_hull_support_index(p->hull, d);
    default:
        break;
    }
    uint32_t best = 0;
    double best_dot = ddot(p->points[0], d);
    for (uint32_t i = 1; i < p->vertex_count; i++) {
        double dot = ddot(p->points[i], d);
        if (dot > best_dot) {
            best_dot = dot;
            best = i;
        }
    }
    return best;
}

sr_dvec3 sat_poly_support(const sat_poly *p, sr_dvec3 d)
{
    switch (p->source) {
    case SAT_FROM_BOX:
        return box_support(p->half_extents, d);
    case SAT_FROM_HULL:
        return p->vertices[sr_hull_support_index(p->hull, d)];
    default:
        break;
    }
    uint32_t best = 0;
    double best_dot = ddot(p->points[0], d);
    for (uint32_t i = 1; i < p->vertex_count; i++) {
        double dot = ddot(p->points[i], d);
        if (dot > best_dot) {
            best_dot = dot;
            best = i;
        }
    }
    return p->points[best];
}

/* The support of a hull warm-started: hill climbing over the vertex graph from the last answer
 * (`*warm`; UINT32_MAX: none yet), which the loops below keep for directions that change little
 * from one call to the next. Every local maximum of a linear function over a convex polytope's
 * vertex graph is a global one (at a vertex that is not, some edge climbs: the simplex method's
 * argument), so the start changes only which of tied vertices is returned. Small hulls and the
 * other shapes: sat_poly_support. */
static uint32_t support_warm(const sat_poly *p, sr_dvec3 d, uint32_t *warm)
{
    if (p->source != SAT_FROM_HULL || p->vertex_count <= SR_HULL_CLIMB_THRESHOLD)
        return sat_poly_support_index(p, d);
    const sr_hull *hull = p->hull;
    uint32_t v = *warm == UINT32_MAX ? sr_hull_support_index(hull, d) : *warm;
    const sr_dvec3 *vertices = p->vertices;
    double best = ddot(vertices[v], d);
    for (;;) {
        uint32_t next = v;
        for (uint32_t k = hull->adjacency_first[v]; k < hull->adjacency_first[v + 1]; k++) {
            uint32_t u = hull->adjacency[k];
            double dot = ddot(vertices[u], d);
            if (dot > best) {
                best = dot;
                next = u;
            }
        }
        if (next == v)
            break;
        v = next;
    }
    *warm = v;
    return v;
}

/* ---- faces ---- */

static sr_dvec3 axis_vector(int axis, double sign)
{
    return dv(axis == 0 ? sign : 0.0, axis == 1 ? sign : 0.0, axis == 2 ? sign : 0.0);
}

static double component(sr_dvec3 v, int axis)
{
    return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

/* polygon vertex i of a flat polytope (cyclic) */
static sr_dvec3 cycle_vertex(const sat_poly *p, uint32_t i)
{
    return p->vertices[p->cycle[i % p->cycle_count]];
}

/* the outward in-plane normal of polygon edge i (from vertex i to i + 1) */
static sr_dvec3 side_normal(const sat_poly *p, uint32_t i)
{
    return sr_dvec3_normalize(dcross(dsub(cycle_vertex(p, i + 1), cycle_vertex(p, i)), p->normal));
}

uint32_t sat_poly_face_count(const sat_poly *p)
{
    switch (p->dim) {
    case SAT_SOLID:
        return p->source == SAT_FROM_BOX ? 6 : (uint32_t)p->hull->view.face_count;
    case SAT_FLAT:
        return 2 + p->cycle_count;
    default:
        return 0;
    }
}

sat_face sat_poly_face(const sat_poly *p, uint32_t f)
{
    sat_face face;
    if (p->dim == SAT_SOLID) {
        if (p->source == SAT_FROM_BOX) { /* 0: +x, 1: -x, 2: +y, 3: -y, 4: +z, 5: -z */
            int axis = (int)f / 2;
            face.normal = axis_vector(axis, f % 2 ? -1.0 : 1.0);
            face.offset = component(p->half_extents, axis);
        } else {
            const sr_hull_face *hull_face = &p->hull->view.faces[f];
            face.normal = hull_face->normal;
            face.offset = hull_face->offset;
        }
        return face;
    }
    /* flat: the two sides, then the side faces */
    sr_dvec3 v0 = cycle_vertex(p, f < 2 ? 0 : f - 2);
    face.normal = f == 0 ? p->normal : (f == 1 ? dneg(p->normal) : side_normal(p, f - 2));
    face.offset = ddot(face.normal, v0);
    return face;
}

/* ---- edges ---- */

uint32_t sat_poly_edge_count(const sat_poly *p)
{
    switch (p->dim) {
    case SAT_SOLID:
        return p->source == SAT_FROM_BOX ? 12 : (uint32_t)p->hull->view.edge_count;
    case SAT_FLAT:
        return 3 * p->cycle_count;
    case SAT_SEGMENT:
        return 1;
    default:
        return 0;
    }
}

sat_edge sat_poly_edge(const sat_poly *p, uint32_t e)
{
    sat_edge edge;
    edge.full_circle = false;
    switch (p->dim) {
    case SAT_SOLID:
        if (p->source == SAT_FROM_BOX) {
            /* edge 4 axis + k runs along `axis` from its negative end; k's bits give the signs
             * of the two other axes, whose faces it joins */
            int axis = (int)e / 4, k = (int)e % 4;
            int u = (axis + 1) % 3, w = (axis + 2) % 3;
            double su = k & 1 ? 1.0 : -1.0, sw = k & 2 ? 1.0 : -1.0;
            double c[3];
            c[axis] = -component(p->half_extents, axis);
            c[u] = su * component(p->half_extents, u);
            c[w] = sw * component(p->half_extents, w);
            edge.point = dv(c[0], c[1], c[2]);
            edge.direction = axis_vector(axis, 1.0);
            edge.arc_a = axis_vector(u, su);
            edge.arc_b = axis_vector(w, sw);
            edge.face_a = (uint32_t)(2 * u + (su < 0.0));
            edge.face_b = (uint32_t)(2 * w + (sw < 0.0));
        } else {
            const sr_hull_view *view = &p->hull->view;
            const uint32_t *ends = view->edges + 2 * e;
            const uint32_t *faces = p->hull->edge_faces + 2 * e;
            edge.point = view->vertices[ends[0]];
            edge.direction = dsub(view->vertices[ends[1]], edge.point);
            edge.arc_a = view->faces[faces[0]].normal;
            edge.arc_b = view->faces[faces[1]].normal;
            edge.face_a = faces[0];
            edge.face_b = faces[1];
        }
        return edge;
    case SAT_FLAT: {
        uint32_t i = e / 3;
        edge.point = cycle_vertex(p, i);
        switch (e % 3) {
        case 0: /* the polygon edge, top side */
        case 1: /* bottom side */
            edge.direction = dsub(cycle_vertex(p, i + 1), edge.point);
            edge.arc_a = e % 3 == 0 ? p->normal : dneg(p->normal);
            edge.arc_b = side_normal(p, i);
            edge.face_a = e % 3;
            edge.face_b = 2 + i;
            break;
        default: /* the edge of height 0 at vertex i, between the side faces meeting there */
            edge.direction = p->normal;
            edge.arc_a = side_normal(p, i + p->cycle_count - 1);
            edge.arc_b = side_normal(p, i);
            edge.face_a = 2 + (i + p->cycle_count - 1) % p->cycle_count;
            edge.face_b = 2 + i;
            break;
        }
        return edge;
    }
    default: /* a segment: every direction orthogonal to it supports the whole edge */
        edge.point = p->points[0];
        edge.direction = dsub(p->points[1], p->points[0]);
        edge.arc_a = edge.arc_b = dv(0, 0, 0);
        edge.face_a = edge.face_b = UINT32_MAX;
        edge.full_circle = true;
        return edge;
    }
}

/* ---- the generic test ---- */

/* An edge ready for the crossing test: its arc's ends and the normal of their great circle. */
typedef struct prepared_edge {
    sr_dvec3 point, direction;
    sr_dvec3 arc_a, arc_b, circle; /* circle: arc_b x arc_a, or the direction of a full circle */
    double direction_length_squared;
    uint32_t face_a, face_b;
    bool full_circle;
} prepared_edge;

static prepared_edge prepare(sat_edge edge, bool negate)
{
    prepared_edge out;
    out.point = edge.point;
    out.direction = edge.direction;
    out.direction_length_squared = dlength_squared(edge.direction);
    out.full_circle = edge.full_circle;
    out.face_a = edge.face_a;
    out.face_b = edge.face_b;
    /* B's arcs enter A - B negated */
    out.arc_a = negate ? dneg(edge.arc_a) : edge.arc_a;
    out.arc_b = negate ? dneg(edge.arc_b) : edge.arc_b;
    out.circle = edge.full_circle ? edge.direction : dcross(out.arc_b, out.arc_a);
    return out;
}

/* Whether the arcs of an edge of A and an edge of B (negated) cross when one of them is a
 * segment's, whose arc is its whole great circle: then the two edges form a face of A - B
 * exactly when the other arc's ends lie on either side of that circle. (Two full arcs are never
 * asked: points and segments are answered by their closest points. The general case is
 * screen() below.) Arcs that only touch it (a product of 0) cross at a face normal, tested
 * already. */
static bool segment_arcs_cross(const prepared_edge *ea, const prepared_edge *eb)
{
    if (ea->full_circle)
        return ddot(eb->arc_a, ea->circle) * ddot(eb->arc_b, ea->circle) < 0.0;
    return ddot(ea->arc_a, eb->circle) * ddot(ea->arc_b, eb->circle) < 0.0;
}

enum { EDGE_CHUNK = 64 };
/* A's edges whose bound is computed once and kept (4 KiB of the stack); beyond, per chunk. */
enum { BOUNDED_EDGES = 1024 };

/* B's edges of a chunk, structure of arrays for the crossing test's screen: the negated arcs'
 * ends c and d and their circle's normal d x c. */
typedef struct edge_chunk {
    double cx[EDGE_CHUNK], cy[EDGE_CHUNK], cz[EDGE_CHUNK];
    double dx[EDGE_CHUNK], dy[EDGE_CHUNK], dz[EDGE_CHUNK];
    double nx[EDGE_CHUNK], ny[EDGE_CHUNK], nz[EDGE_CHUNK];
    unsigned char crossing[EDGE_CHUNK];
} edge_chunk;

/* Whether the arcs of A's edge `ea` and of each B edge of the chunk (negated) cross, so that the
 * two edges form a face of A - B, whose normal is their cross product: Gregorius's test, each
 * arc's ends on either side of the other's great circle (cba dba < 0, adc bdc < 0) and the
 * crossing on the same half of both (cba bdc > 0); arcs that only touch (a product of 0) cross
 * at a face normal, tested already. Every edge of the chunk at once: the loop vectorises. None
 * is a segment's full circle (segment_arcs_cross). */
static void screen(const prepared_edge *ea, edge_chunk *c, uint32_t count)
{
    const double ax = ea->arc_a.x, ay = ea->arc_a.y, az = ea->arc_a.z;
    const double bx = ea->arc_b.x, by = ea->arc_b.y, bz = ea->arc_b.z;
    const double px = ea->circle.x, py = ea->circle.y, pz = ea->circle.z;
    for (uint32_t k = 0; k < count; k++) {
        double cba = c->cx[k] * px + c->cy[k] * py + c->cz[k] * pz;
        double dba = c->dx[k] * px + c->dy[k] * py + c->dz[k] * pz;
        double adc = ax * c->nx[k] + ay * c->ny[k] + az * c->nz[k];
        double bdc = bx * c->nx[k] + by * c->ny[k] + bz * c->nz[k];
        c->crossing[k] = (unsigned char)((cba * dba < 0.0) & (adc * bdc < 0.0) & (cba * bdc > 0.0));
    }
}

/* A point inside the polytope (local frame): its centre or the average of its vertices. */
static sr_dvec3 interior_point(const sat_poly *p)
{
    if (p->source == SAT_FROM_BOX)
        return dv(0, 0, 0);
    if (p->source == SAT_FROM_HULL)
        return p->hull->centroid;
    sr_dvec3 sum = dv(0, 0, 0);
    for (uint32_t i = 0; i < p->vertex_count; i++)
        sum = dadd(sum, p->points[i]);
    return dscale(sum, 1.0 / p->vertex_count);
}

/* The largest v . n over the unit directions n of an edge's arc (a full circle: every unit n
 * orthogonal to circle). */
static double arc_max(const prepared_edge *e, sr_dvec3 v, double threshold)
{
    sr_dvec3 normal = e->circle; /* orthogonal to the arc's plane */
    double normal_squared = dlength_squared(normal);
    if (!(normal_squared > 0.0)) /* an arc of one point, or a zero direction */
        return e->full_circle ? dlength(v) : ddot(e->arc_a, v);
    /* On the arc's great circle the maximum of n . v is |v'|, v' = v without its part along the
     * normal, at n = v' / |v'|: the answer when that point lies on the arc (between its ends;
     * circle = arc_b x arc_a, so the arc runs from arc_a to arc_b clockwise about it: the tests
     * read v for v', whose part along the normal drops out of them), else the better end. */
    bool on_arc =
        e->full_circle || (ddot(dcross(v, e->arc_a), normal) >= 0.0 && ddot(dcross(e->arc_b, v), normal) >= 0.0);
    if (!on_arc)
        return fmax(ddot(e->arc_a, v), ddot(e->arc_b, v));
    if (threshold < 0.0)
        return INFINITY; /* |v'| >= 0 beats a negative threshold: no need to know by how much */
    double along = ddot(v, normal);
    return sqrt(fmax(0.0, dlength_squared(v) - along * along / normal_squared));
}

/* A's edge e in B's frame, ready for the crossing test. */
static prepared_edge prepare_a(const sat_poly *a, uint32_t e, const sat_relative *rel)
{
    sat_edge edge = sat_poly_edge(a, e);
    edge.point = sat_a_to_b(rel, edge.point);
    edge.direction = sat_rotate_inverse(&rel->r, edge.direction);
    edge.arc_a = sat_rotate_inverse(&rel->r, edge.arc_a);
    edge.arc_b = sat_rotate_inverse(&rel->r, edge.arc_b);
    return prepare(edge, false);
}

/* The deepest vertex of the other shape against each face, found by the face loops and kept
 * for the edges' bounds (the faces past the capacity find theirs again). */
enum { FACE_CACHE = 1024 };

typedef struct face_supports {
    uint32_t vertex[FACE_CACHE];
    uint32_t count; /* faces known */
} face_supports;

/* The vertex of `other` found for `face` (UINT32_MAX when not kept). */
static uint32_t cached(const face_supports *c, uint32_t face)
{
    return face < c->count ? c->vertex[face] : UINT32_MAX;
}

/* The most any face of A - B that A's edge `ea` (B's frame) forms can separate: the largest of
 * n . (q - pA) over its arc, q a point of B: B's deepest vertices against the faces at the arc's
 * two ends (the face loop found them), the better of the two bounds (the second only when the
 * first is above `threshold`, the separation to beat); B's interior point for a segment's full
 * circle or faces not kept. */
static double edge_a_bound(const prepared_edge *ea, const sat_poly *b, sr_dvec3 inside_b, const face_supports *c,
                           double threshold)
{
    uint32_t qa = ea->full_circle ? UINT32_MAX : cached(c, ea->face_a);
    uint32_t qb = ea->full_circle ? UINT32_MAX : cached(c, ea->face_b);
    if (qa == UINT32_MAX || qb == UINT32_MAX)
        return arc_max(ea, dsub(inside_b, ea->point), threshold);
    double first = arc_max(ea, dsub(sat_poly_vertex(b, qa), ea->point), threshold);
    if (first <= threshold)
        return first; /* enough to skip the edge */
    return fmin(first, arc_max(ea, dsub(sat_poly_vertex(b, qb), ea->point), threshold));
}

/* The same for B's edge `eb` (its arc negated, B's frame): n . (pB - q) over the arc, q A's
 * highest vertices along the (negated) normals of B's faces at the arc's ends. */
static double edge_b_bound(const prepared_edge *eb, const sat_poly *a, const sat_relative *rel, sr_dvec3 inside_a,
                           const face_supports *c, double threshold)
{
    uint32_t qa = eb->full_circle ? UINT32_MAX : cached(c, eb->face_a);
    uint32_t qb = eb->full_circle ? UINT32_MAX : cached(c, eb->face_b);
    if (qa == UINT32_MAX || qb == UINT32_MAX)
        return arc_max(eb, dsub(eb->point, inside_a), threshold);
    double first = arc_max(eb, dsub(eb->point, sat_a_to_b(rel, sat_poly_vertex(a, qa))), threshold);
    if (first <= threshold)
        return first;
    return fmin(first, arc_max(eb, dsub(eb->point, sat_a_to_b(rel, sat_poly_vertex(a, qb))), threshold));
}

static void edge_pairs(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_recorder *recorder,
                       sat_best *best, const face_supports *deepest_a, const face_supports *deepest_b);
static void reversed_faces(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_recorder *recorder,
                           sat_best *best, uint32_t *warm_a, uint32_t *warm_b);

void sat_generic(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_recorder *recorder,
                 sat_best *best)
{
    double edge_bias = 1e-9 * fmax(a->size, b->size);
    face_supports deepest_b, deepest_a; /* B's vertex against each face of A; A's against B's */
    /* faces of A: B's deepest vertex against each */
    uint32_t warm_a = UINT32_MAX, warm_b = UINT32_MAX; /* the last support vertex of each */
    uint32_t faces_a = sat_poly_face_count(a);
    deepest_b.count = faces_a < FACE_CACHE ? faces_a : FACE_CACHE;
    for (uint32_t f = 0; f < faces_a; f++) {
        sat_face face = sat_poly_face(a, f);
        sr_dvec3 against = sat_rotate_inverse(&rel->r, dneg(face.normal));
        /* The last vertex found bounds this face's separation from above (B's lowest point along
         * the normal is no higher): when that cannot beat the best, it stands for the face's
         * deepest vertex in the edges' bounds, and no climb is needed. */
        if (warm_b != UINT32_MAX && f > 0 &&
            ddot(face.normal, sat_b_to_a(rel, sat_poly_vertex(b, warm_b))) - face.offset <= best->separation) {
            if (f < FACE_CACHE)
                deepest_b.vertex[f] = warm_b;
            continue;
        }
        uint32_t v = support_warm(b, against, &warm_b);
        warm_b = v;
        if (f < FACE_CACHE)
            deepest_b.vertex[f] = v;
        double separation = ddot(face.normal, sat_b_to_a(rel, sat_poly_vertex(b, v))) - face.offset;
        sat_offer(best, separation, face.normal, SR_SAT_FACE_A, (int)f, -1, edge_bias);
        if (recorder)
            sat_record(recorder, SR_SAT_FACE_A, (int)f, -1, face.normal, separation);
    }
    /* faces of B, in B's frame: A's deepest vertex against each; the axis from A to B is -normal */
    uint32_t faces_b = sat_poly_face_count(b);
    deepest_a.count = faces_b < FACE_CACHE ? faces_b : FACE_CACHE;
    for (uint32_t f = 0; f < faces_b; f++) {
        sat_face face = sat_poly_face(b, f);
        sr_dvec3 axis = sat_rotate(&rel->r, dneg(face.normal));
        if (warm_a != UINT32_MAX &&
            ddot(face.normal, sat_a_to_b(rel, sat_poly_vertex(a, warm_a))) - face.offset <= best->separation) {
            if (f < FACE_CACHE)
                deepest_a.vertex[f] = warm_a;
            continue;
        }
        uint32_t v = support_warm(a, axis, &warm_a);
        warm_a = v;
        if (f < FACE_CACHE)
            deepest_a.vertex[f] = v;
        double separation = ddot(face.normal, sat_a_to_b(rel, sat_poly_vertex(a, v))) - face.offset;
        sat_offer(best, separation, axis, SR_SAT_FACE_B, -1, (int)f, edge_bias);
        if (recorder)
            sat_record(recorder, SR_SAT_FACE_B, -1, (int)f, axis, separation);
    }
    if (!(a->dim <= SAT_SEGMENT && b->dim <= SAT_SEGMENT)) /* points and segments: sat.c's closest points */
        edge_pairs(a, b, rel, recorder, best, &deepest_a, &deepest_b);
    if (best->separation > 0.0)
        reversed_faces(a, b, rel, recorder, best, &warm_a, &warm_b);
}

/* Apart, every face normal is also tried the other way round (from B's side of A to A's side of
 * B): not a face of A - B, so it cannot give a depth, but when the shapes are apart it may
 * separate them more than any face of A - B does, and the answer is the largest separation over
 * the face normals of both as lines. The last vertices found bound each from above (A's lowest
 * along the normal is no lower than any of its points, B's highest no higher), so most need no
 * support point. Only after the faces and edges have found the shapes apart: an overlap's depth
 * never comes from these. */
static void reversed_faces(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_recorder *recorder,
                           sat_best *best, uint32_t *warm_a, uint32_t *warm_b)
{
    double edge_bias = 1e-9 * fmax(a->size, b->size);
    uint32_t faces_a = sat_poly_face_count(a);
    for (uint32_t f = 0; f < faces_a; f++) { /* A's face normal n, axis -n: min_A(n . a) - max_B(n . b) */
        sr_dvec3 n = sat_poly_face(a, f).normal;
        sr_dvec3 n_b = sat_rotate_inverse(&rel->r, n);
        if (*warm_a != UINT32_MAX && *warm_b != UINT32_MAX &&
            ddot(n, dsub(sat_poly_vertex(a, *warm_a), sat_b_to_a(rel, sat_poly_vertex(b, *warm_b)))) <=
                best->separation)
            continue;
        *warm_a = support_warm(a, dneg(n), warm_a);
        *warm_b = support_warm(b, n_b, warm_b);
        double separation = ddot(n, dsub(sat_poly_vertex(a, *warm_a), sat_b_to_a(rel, sat_poly_vertex(b, *warm_b))));
        sat_offer(best, separation, dneg(n), SR_SAT_FACE_A, (int)f, -1, edge_bias);
        if (recorder)
            sat_record(recorder, SR_SAT_FACE_A, (int)f, -1, dneg(n), separation);
    }
    uint32_t faces_b = sat_poly_face_count(b);
    for (uint32_t f = 0; f < faces_b; f++) { /* B's face normal c, axis +c: min_B(c . b) - max_A(c . a) */
        sr_dvec3 c = sat_poly_face(b, f).normal;
        sr_dvec3 c_a = sat_rotate(&rel->r, c);
        if (*warm_a != UINT32_MAX && *warm_b != UINT32_MAX &&
            ddot(c, dsub(sat_poly_vertex(b, *warm_b), sat_a_to_b(rel, sat_poly_vertex(a, *warm_a)))) <=
                best->separation)
            continue;
        *warm_b = support_warm(b, dneg(c), warm_b);
        *warm_a = support_warm(a, c_a, warm_a);
        double separation = ddot(c, dsub(sat_poly_vertex(b, *warm_b), sat_a_to_b(rel, sat_poly_vertex(a, *warm_a))));
        sat_offer(best, separation, c_a, SR_SAT_FACE_B, -1, (int)f, edge_bias);
        if (recorder)
            sat_record(recorder, SR_SAT_FACE_B, -1, (int)f, c_a, separation);
    }
}

/* The edge pairs whose arcs cross, in B's frame, B's edges prepared by chunks (no allocation). */
static void edge_pairs(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_recorder *recorder,
                       sat_best *best, const face_supports *deepest_a, const face_supports *deepest_b)
{
    double edge_bias = 1e-9 * fmax(a->size, b->size);
    uint32_t edges_a = sat_poly_edge_count(a), edges_b = sat_poly_edge_count(b);
    prepared_edge chunk[EDGE_CHUNK];
    uint32_t chunk_edge[EDGE_CHUNK];
    edge_chunk soa;
    /* a segment's arc is a whole circle: the scalar test */
    bool screened = a->dim != SAT_SEGMENT && b->dim != SAT_SEGMENT;
    /* Bounds that skip edges before any pair: on a face of A - B with normal n, from edge pA of
     * A and pB of B, the separation n . (pB - pA) is at most n . (qB - pA) for any point qB of
     * B (pB is B's lowest along n), and at most n . (pB - qA) for any point qA of A; n lies on
     * the edge's arc. An edge whose largest such value over its arc cannot beat the best
     * separation found so far forms no pair that could. The points: the other shape's deepest
     * vertices against the faces at the arc's ends, where the bound is the faces' separation. */
    sr_dvec3 inside_a = sat_a_to_b(rel, interior_point(a)), inside_b = interior_point(b);
    /* A's edges' bounds once (not per chunk of B's), as floats rounded up, for the first ones */
    float bound_a[BOUNDED_EDGES];
    uint32_t bounded_a = edges_a < BOUNDED_EDGES ? edges_a : BOUNDED_EDGES;
    for (uint32_t e = 0; e < bounded_a; e++) {
        prepared_edge ea = prepare_a(a, e, rel);
        double bound = edge_a_bound(&ea, b, inside_b, deepest_b, best->separation);
        float rounded = (float)bound;
        bound_a[e] = (double)rounded < bound ? nextafterf(rounded, INFINITY) : rounded;
    }
    for (uint32_t next_b = 0; next_b < edges_b;) {
        uint32_t count = 0;
        for (; next_b < edges_b && count < EDGE_CHUNK; next_b++) {
            prepared_edge eb = prepare(sat_poly_edge(b, next_b), true);
            if (edge_b_bound(&eb, a, rel, inside_a, deepest_a, best->separation) <= best->separation)
                continue;
            chunk[count] = eb;
            chunk_edge[count] = next_b;
            soa.cx[count] = eb.arc_a.x, soa.cy[count] = eb.arc_a.y, soa.cz[count] = eb.arc_a.z;
            soa.dx[count] = eb.arc_b.x, soa.dy[count] = eb.arc_b.y, soa.dz[count] = eb.arc_b.z;
            soa.nx[count] = eb.circle.x, soa.ny[count] = eb.circle.y, soa.nz[count] = eb.circle.z;
            count++;
        }
        for (uint32_t e = 0; e < edges_a && count > 0; e++) {
            if (e < bounded_a && bound_a[e] <= best->separation)
                continue;
            prepared_edge ea = prepare_a(a, e, rel);
            if (e >= bounded_a && edge_a_bound(&ea, b, inside_b, deepest_b, best->separation) <= best->separation)
                continue;
            if (screened)
                screen(&ea, &soa, count);
            for (uint32_t k = 0; k < count; k++) {
                if (screened && k % 8 == 0) { /* few pairs cross: skip 8 at a time */
                    uint64_t word = 0;
                    memcpy(&word, soa.crossing + k, count - k < 8 ? count - k : 8);
                    if (word == 0) {
                        k += 7;
                        continue;
                    }
                }
                const prepared_edge *eb = &chunk[k];
                if (screened ? !soa.crossing[k] : !segment_arcs_cross(&ea, eb))
                    continue;
                sr_dvec3 axis = dcross(ea.direction, eb->direction);
                double length_squared = dlength_squared(axis);
                if (!(length_squared >
                      SAT_PARALLEL * SAT_PARALLEL * ea.direction_length_squared * eb->direction_length_squared))
                    continue; /* parallel: A - B has an edge there, not a face */
                axis = dscale(axis, 1.0 / sqrt(length_squared));
                /* the crossing is the one on the arcs: outward from A at its edge */
                sr_dvec3 side = ea.full_circle ? dadd(eb->arc_a, eb->arc_b) : dadd(ea.arc_a, ea.arc_b);
                if (ddot(axis, side) < 0.0)
                    axis = dneg(axis);
                double separation = ddot(axis, dsub(eb->point, ea.point));
                sr_dvec3 axis_a = sat_rotate(&rel->r, axis);
                sat_offer(best, separation, axis_a, SR_SAT_EDGE_EDGE, (int)e, (int)chunk_edge[k], edge_bias);
                if (recorder)
                    sat_record(recorder, SR_SAT_EDGE_EDGE, (int)e, (int)chunk_edge[k], axis_a, separation);
            }
        }
    }
}
