/* src/collide/epa.c — the expanding polytope algorithm (van den Bergen 2001, as in Bullet's
 * btGjkEpa, libccd and Jolt's EPAPenetrationDepth): the penetration depth, normal and witness
 * points of two overlapping cores from the simplex GJK ended with. Knows nothing of raster, scene
 * or SDL.
 *
 * The polytope lives in fixed arrays (EPA_MAX_VERTICES vertices, about 36 KB of stack; no
 * allocation): a triangle mesh of support points of A - B with face adjacency. Each step takes
 * the face closest to the origin (a scan of the few dozen faces), finds the support
 * point along its normal (the depth is at most that far along it: an upper bound; the face's
 * distance is a lower bound, as the polytope is inside A - B), and stops when the two meet within
 * a relative 1e-7; otherwise the faces the new point sees are removed and the hole is closed by a
 * fan to it. Rounding bounds how far that can go: a sliver face (vertices GJK left a hair apart
 * near the origin) has a normal off by the rounding over its altitude, so it also stops when the
 * gap is within that precision of the face's plane, or when a new face leaves the origin outside
 * (the polytope folded, as Jolt's and Bullet's EPA check), and a local search on exact support
 * values finishes from the best normal seen. GJK may end with fewer than four points (touching
 * shapes, flat or needle differences): the simplex is blown up to a tetrahedron by support points
 * along directions around it (as Bullet and Jolt do); a difference that stays flat, or a segment,
 * or a point within 1e-10 of the scale has depth 0 along its normal. The origin may lie just
 * outside the first tetrahedron (touching cores): faces with negative distances are then expanded
 * first, and a support point that does not reach past the origin means the cores only touch.
 *
 * The answer: the normal of the last closest face; the depth is the support value along it (moving
 * B by depth * normal makes the cores touch exactly along that normal), the witness points the
 * face's barycentric combination of the support points on A and on B, moved apart along the normal
 * by the (converged: tiny) gap between the face's distance and the depth. */
#include "collide_internal.h"

#include <string.h>

#define EPA_MAX_VERTICES 128
#define EPA_MAX_FACES (2 * EPA_MAX_VERTICES)
/* Convergence: upper - lower <= EPA_RELATIVE * upper + EPA_ABSOLUTE * scale (the absolute part,
 * GJK's touching distance, for depths near zero: a curved difference is not refined to the
 * rounding there). Faces see a point more than EPA_NOISE * scale above them. The relative part,
 * 1e-7, is far inside the depth's contract (1e-3 of the depth, tests/collide_oracle.h). On a
 * curved difference (a cylinder's rim) the faces close in slowly: with 1e-10 the pile of
 * bench_scene_collide took 25 steps a query instead of 22, and its queries met the planes'
 * precision first often enough that the local search finishing those (up to 400 support values
 * each) cost a tenth of EPA's time. */
#define EPA_RELATIVE 1e-7
#define EPA_ABSOLUTE 1e-10
#define EPA_NOISE 1e-14
/* A result whose bounds are within this when the vertices or iterations run out is within the
 * contract (depth 1e-3 relative): reported as OK; beyond it, flagged as capped. */
#define EPA_ACCEPTABLE 1e-3
/* The rounding of a support point's coordinates, in units of DBL_EPSILON * scale: its shapes'
 * coordinates, rotated and subtracted, are about the scale. */
#define EPA_ROUNDING 8.0
/* A difference flatter than this fraction of the scale is flat (or a segment, or a point). */
#define EPA_FLAT 1e-10
/* Depths below this fraction of the scale, when the polytope runs out before its bounds meet (a
 * curved pair nearly touching: its faces must get very fine to resolve the curvature), take
 * GJK's common point as their witness points. */
#define EPA_SHALLOW 1e-6

typedef struct epa_face {
    int32_t v[3];        /* vertices, counter-clockwise seen from outside */
    int32_t adjacent[3]; /* the face across edge k (from v[k] to v[k + 1]) */
    uint8_t adjacent_edge[3];
    bool alive;
    sr_dvec3 normal;
    double distance; /* of its plane from the origin, signed (negative: the origin is outside) */
} epa_face;

typedef struct horizon_edge {
    int32_t from, to;   /* vertices, in the removed face's order */
    int32_t face, edge; /* the face that stays, and its edge */
} horizon_edge;

typedef struct polytope {
    sr_support_point vertices[EPA_MAX_VERTICES];
    int vertex_count;
    epa_face faces[EPA_MAX_FACES];
    /* each slot's face distance, INFINITY for a dead slot: the closest face's scan reads these
     * 8 bytes a face rather than the 64-byte faces */
    double distances[EPA_MAX_FACES];
    int32_t free_faces[EPA_MAX_FACES];
    int free_count, face_slots, live_faces;
    horizon_edge horizon[EPA_MAX_FACES];
    int horizon_count;
    int32_t stack[EPA_MAX_FACES * 2];
    double noise; /* below this, a face sees nothing */
} polytope;

/* ---- the closest face ---- */

/* The live face closest to the origin (ties: the lowest slot), or -1: a scan of the faces'
 * distances. The polytope has a few dozen faces and each step makes about four and looks for the
 * closest once, so the scan costs less than a heap's sifting, whose comparisons the processor
 * cannot predict (the scan made the EPA queries of bench_scene_collide's pile about a fifth
 * faster). Dead faces are skipped by their flag; a face's distance never changes while it lives,
 * so this is the face a heap ordered by (distance, slot) would give. */
static int32_t closest_face(const polytope *p)
{
    /* the compact distances first, without branches; they find the same face unless no live face
     * has a finite distance (only faces without area, whose distance is infinite, are left) */
    int32_t best = -1;
    double best_distance = INFINITY;
    for (int32_t f = 0; f < p->face_slots; f++) {
        double d = p->distances[f];
        bool closer = d < best_distance;
        best = closer ? f : best;
        best_distance = closer ? d : best_distance;
    }
    if (best >= 0)
        return best;
    for (int32_t f = 0; f < p->face_slots; f++) {
        if (!p->faces[f].alive)
            continue;
        double d = p->faces[f].distance;
        if (best < 0 || d < best_distance) {
            best = f;
            best_distance = d;
        }
    }
    return best;
}

/* ---- faces ---- */

/* Plane of a face: the normal from the two edges at the vertex facing the longest edge (the most
 * accurate cross product of a sliver), its distance from the origin. A face with no area gets a
 * zero normal and an infinite distance: never chosen, always seen. */
static void face_plane(polytope *p, epa_face *face)
{
    sr_dvec3 a = p->vertices[face->v[0]].w, b = p->vertices[face->v[1]].w, c = p->vertices[face->v[2]].w;
    double ab = dlength_squared(dsub(b, a)), bc = dlength_squared(dsub(c, b)), ca = dlength_squared(dsub(a, c));
    sr_dvec3 n = ab >= bc && ab >= ca ? dcross(dsub(a, c), dsub(b, c))
                 : bc >= ca           ? dcross(dsub(b, a), dsub(c, a))
                                      : dcross(dsub(c, b), dsub(a, b));
    double length = dlength(n);
    if (length > 0 && isfinite(length)) {
        face->normal = dscale(n, 1.0 / length);
        /* the average over the three vertices: better than any one of them */
        face->distance = (ddot(face->normal, a) + ddot(face->normal, b) + ddot(face->normal, c)) / 3;
    } else {
        face->normal = dv(0, 0, 0);
        face->distance = INFINITY;
    }
}

/* How much of the gap between the support value along a face's normal and the face's distance
 * is rounding, for the support point w: the vertices' coordinates are off by about `rounding`,
 * which tilts the plane of a sliver (its smallest altitude tiny: vertices GJK left a hair apart
 * near the origin) by rounding / altitude, and the support value, taken as far away as w, by
 * that much times |w|. Below it, expanding the face cannot help: the support point sits on the
 * face's true plane, and adding it folds the polytope (found on a disc against a triangle: a face
 * of altitude 7e-9 whose normal, 1e-7 rad off, sent the support point across the flat disc face
 * of A - B). */
static double face_precision(const polytope *p, const epa_face *face, sr_dvec3 w, double rounding)
{
    /* the face's smallest altitude and its farthest vertex from the origin, found here for the
     * one face a step looks at rather than for every face made (most are never chosen) */
    sr_dvec3 a = p->vertices[face->v[0]].w, b = p->vertices[face->v[1]].w, c = p->vertices[face->v[2]].w;
    double ab = dlength_squared(dsub(b, a)), bc = dlength_squared(dsub(c, b)), ca = dlength_squared(dsub(a, c));
    sr_dvec3 n = ab >= bc && ab >= ca ? dcross(dsub(a, c), dsub(b, c))
                 : bc >= ca           ? dcross(dsub(b, a), dsub(c, a))
                                      : dcross(dsub(c, b), dsub(a, b));
    double altitude = dlength(n) / sqrt(fmax(ab, fmax(bc, ca)));
    double reach = sqrt(fmax(dlength_squared(a), fmax(dlength_squared(b), dlength_squared(c))));
    return rounding * (1 + (reach + dlength(w)) / altitude);
}

static int32_t face_new(polytope *p, int32_t a, int32_t b, int32_t c)
{
    int32_t f;
    if (p->free_count > 0) {
        f = p->free_faces[--p->free_count];
    } else if (p->face_slots < EPA_MAX_FACES) {
        f = p->face_slots++;
    } else {
        return -1;
    }
    epa_face *face = &p->faces[f];
    face->v[0] = a;
    face->v[1] = b;
    face->v[2] = c;
    face->alive = true;
    face_plane(p, face);
    p->distances[f] = face->distance;
    p->live_faces++;
    return f;
}

static void face_delete(polytope *p, int32_t f)
{
    p->faces[f].alive = false;
    p->distances[f] = INFINITY;
    p->free_faces[p->free_count++] = f;
    p->live_faces--;
}

static void link(polytope *p, int32_t f, int edge, int32_t g, int other_edge)
{
    p->faces[f].adjacent[edge] = g;
    p->faces[f].adjacent_edge[edge] = (uint8_t)other_edge;
    p->faces[g].adjacent[other_edge] = f;
    p->faces[g].adjacent_edge[other_edge] = (uint8_t)edge;
}

static bool face_sees(const polytope *p, const epa_face *face, sr_dvec3 w)
{
    if (face->distance == INFINITY)
        return true;
    return ddot(face->normal, w) - face->distance > p->noise;
}

/* ---- the first polytope ---- */

/* The tetrahedron of four support points, its faces turned outwards. False when it is flat. */
static bool polytope_start(polytope *p)
{
    sr_dvec3 a = p->vertices[0].w, b = p->vertices[1].w, c = p->vertices[2].w, d = p->vertices[3].w;
    if (ddot(dcross(dsub(b, a), dsub(c, a)), dsub(d, a)) > 0) { /* d above abc: swap b and c */
        sr_support_point t = p->vertices[1];
        p->vertices[1] = p->vertices[2];
        p->vertices[2] = t;
    }
    int32_t f0 = face_new(p, 0, 1, 2), f1 = face_new(p, 0, 3, 1), f2 = face_new(p, 1, 3, 2), f3 = face_new(p, 2, 3, 0);
    /* edges: f0 (0 1)(1 2)(2 0); f1 (0 3)(3 1)(1 0); f2 (1 3)(3 2)(2 1); f3 (2 3)(3 0)(0 2) */
    link(p, f0, 0, f1, 2);
    link(p, f0, 1, f2, 2);
    link(p, f0, 2, f3, 2);
    link(p, f1, 0, f3, 1);
    link(p, f1, 1, f2, 0);
    link(p, f2, 1, f3, 0);
    return true;
}

/* Directions around a unit axis: six at 60 degrees in the plane perpendicular to it. */
static sr_dvec3 around(sr_dvec3 axis, int k)
{
    sr_dvec3 helper = fabs(axis.x) < 0.57 ? dv(1, 0, 0) : fabs(axis.y) < 0.57 ? dv(0, 1, 0) : dv(0, 0, 1);
    sr_dvec3 u = sr_dvec3_normalize(dcross(axis, helper)), v = dcross(axis, u);
    double angle = k * (M_PI / 3);
    return dadd(dscale(u, cos(angle)), dscale(v, sin(angle)));
}

/* ---- one expansion ---- */

/* The faces the new point sees, found from the closest face across edges; removes them and
 * collects the horizon in order (each edge ends where the next begins). False when the visible
 * region is not a disc (rounding made the polytope slightly concave): the caller stops. */
static bool find_horizon(polytope *p, int32_t first, sr_dvec3 w)
{
    p->horizon_count = 0;
    int sp = 0;
    face_delete(p, first);
    /* frames: (face, next edge to look across, edges left) */
    p->stack[sp++] = first;
    p->stack[sp++] = 0 | (3 << 8);
    while (sp > 0) {
        int32_t f = p->stack[sp - 2];
        int32_t state = p->stack[sp - 1];
        int edge = state & 0xff, left = state >> 8;
        if (left == 0) {
            sp -= 2;
            continue;
        }
        p->stack[sp - 1] = ((edge + 1) % 3) | ((left - 1) << 8);
        const epa_face *face = &p->faces[f];
        int32_t g = face->adjacent[edge];
        int g_edge = face->adjacent_edge[edge];
        if (!p->faces[g].alive)
            continue;
        if (face_sees(p, &p->faces[g], w)) {
            face_delete(p, g);
            if (sp + 2 > (int)(sizeof p->stack / sizeof *p->stack))
                return false;
            p->stack[sp++] = g;
            p->stack[sp++] = ((g_edge + 1) % 3) | (2 << 8); /* its two other edges, in order */
        } else {
            if (p->horizon_count == EPA_MAX_FACES)
                return false;
            p->horizon[p->horizon_count++] = (horizon_edge){face->v[edge], face->v[(edge + 1) % 3], g, g_edge};
        }
    }
    if (p->horizon_count < 3)
        return false;
    for (int k = 0; k < p->horizon_count; k++)
        if (p->horizon[k].to != p->horizon[(k + 1) % p->horizon_count].from)
            return false;
    return true;
}

/* The fan from the new vertex to the horizon. False when the faces run out, or when a new face
 * leaves the origin outside its plane by more than `floor` (INFINITY: not checked):
 * the polytope folded (the Minkowski difference is convex, a polytope of its points around the
 * origin keeps it inside every face; Bullet's EPA calls it non-convex, Jolt's a defect). */
static bool add_fan(polytope *p, int32_t vertex, double floor)
{
    bool folded = false;
    int32_t first = -1, previous = -1;
    for (int k = 0; k < p->horizon_count; k++) {
        const horizon_edge *h = &p->horizon[k];
        int32_t f = face_new(p, h->from, h->to, vertex); /* edges: (from to) (to vertex) (vertex from) */
        if (f < 0)
            return false;
        link(p, f, 0, h->face, h->edge);
        if (previous >= 0)
            link(p, f, 2, previous, 1);
        else
            first = f;
        previous = f;
        folded |= p->faces[f].distance < -floor;
    }
    link(p, first, 2, previous, 1);
    return !folded;
}

/* ---- traces ---- */

static void record_vertex(sr_collide_trace *trace, const sr_support_point *s, sr_dvec3 origin)
{
    if (!trace->epa_vertices || trace->epa_vertex_count >= trace->epa_vertex_capacity) {
        trace->dropped++;
        return;
    }
    sr_epa_vertex *v = &trace->epa_vertices[trace->epa_vertex_count++];
    v->point = s->w;
    v->a = dadd(s->a, origin);
    v->b = dadd(s->b, origin);
}

static void record_step(sr_collide_trace *trace, const polytope *p, int32_t chosen, const sr_support_point *support,
                        double lower, double upper, sr_dvec3 origin)
{
    if (!trace->epa || trace->epa_count >= trace->epa_capacity) {
        trace->dropped++;
        return;
    }
    sr_epa_step *step = &trace->epa[trace->epa_count++];
    memset(step, 0, sizeof *step);
    step->vertex_count = (uint32_t)p->vertex_count;
    step->face_first = (uint32_t)trace->epa_face_count;
    step->chosen_face = UINT32_MAX;
    for (int32_t f = 0; f < p->face_slots; f++) {
        const epa_face *face = &p->faces[f];
        if (!face->alive && f != chosen)
            continue;
        if (!trace->epa_faces || trace->epa_face_count >= trace->epa_face_capacity) {
            trace->dropped++;
            continue;
        }
        if (f == chosen)
            step->chosen_face = (uint32_t)trace->epa_face_count;
        sr_epa_face *out = &trace->epa_faces[trace->epa_face_count++];
        for (int k = 0; k < 3; k++)
            out->v[k] = (uint32_t)face->v[k];
        out->normal = face->normal;
        out->distance = face->distance;
        step->face_count++;
    }
    step->support.point = support->w;
    step->support.a = dadd(support->a, origin);
    step->support.b = dadd(support->b, origin);
    step->lower_bound = lower;
    step->upper_bound = upper;
}

/* ---- EPA ---- */

/* The support value of A - B along a unit direction: the depth needed to separate along it. */
static double depth_along(const sr_placed *a, const sr_placed *b, sr_dvec3 n)
{
    return ddot(minkowski_support(a, b, n).w, n);
}

/* A local pattern search on the unit sphere for a smaller support value than along n: steps in
 * the tangent plane, enlarged after a success and halved after a failure, down to 1e-12 rad; until
 * the first success a failure divides the step by ten (the normal EPA stopped at is usually far
 * closer than the first step of 1e-2 rad: halving down to its distance cost 8 evaluations a
 * halving, a quarter of the search's 400). When
 * the polytope runs out before its bounds meet (A - B with a ring of deepest directions, whose
 * faces approach it slowly), this finds the deepest direction's neighbourhood that EPA saw. */
static sr_dvec3 refine_normal(const sr_placed *a, const sr_placed *b, sr_dvec3 n, double *depth)
{
    /* the eight directions' cosines and sines, and the tangent frame (remade when n moves), are
     * computed once rather than at every evaluation: the search runs hundreds of them */
    double cosines[8], sines[8];
    for (int k = 0; k < 8; k++) {
        double angle = k * (M_PI / 4);
        cosines[k] = cos(angle);
        sines[k] = sin(angle);
    }
    double best = depth_along(a, b, n), step = 1e-2;
    bool moved = true;
    sr_dvec3 u = dv(0, 0, 0), v = dv(0, 0, 0);
    bool found = false;
    for (int evaluations = 0; evaluations < 400 && step > 1e-12;) {
        if (moved) {
            u = dcross(n, fabs(n.x) < 0.57 ? dv(1, 0, 0) : fabs(n.y) < 0.57 ? dv(0, 1, 0) : dv(0, 0, 1));
            u = sr_dvec3_normalize(u);
            v = dcross(n, u);
        }
        bool improved = false;
        for (int k = 0; k < 8 && !improved; k++) {
            sr_dvec3 m = sr_dvec3_normalize(dadd(n, dscale(dadd(dscale(u, cosines[k]), dscale(v, sines[k])), step)));
            double h = depth_along(a, b, m);
            evaluations++;
            if (h < best) {
                best = h;
                n = m;
                improved = true;
            }
        }
        moved = improved;
        found |= improved;
        step = improved ? step * 1.5 : found ? step * 0.5 : step * 0.1;
    }
    *depth = best;
    return n;
}

void sr_witness_along(const sr_placed *a, const sr_placed *b, sr_dvec3 n, double depth, sr_dvec3 *point_a,
                      sr_dvec3 *point_b)
{
    /* The support points along n tilted four ways span the support sets along n (a face, an edge,
     * a disc, one point of a smooth surface); the combination of them nearest depth * n, found in
     * the plane across n (every triangle of the four, by the same closest-point routine as GJK's).
     * When n is a little off the exact deepest direction (EPA refined by a local search), a hair's
     * tilt does not reach the far end of a support set: larger tilts are tried until the target is
     * within reach. */
    sr_dvec3 helper = fabs(n.x) < 0.57 ? dv(1, 0, 0) : fabs(n.y) < 0.57 ? dv(0, 1, 0) : dv(0, 0, 1);
    sr_dvec3 u = sr_dvec3_normalize(dcross(n, helper)), v = dcross(n, u);
    sr_dvec3 target = dscale(n, depth);
    double scale = query_scale(a, b), best_miss = INFINITY;
    static const int triangles[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    for (double tilt = 1e-9; tilt <= 1.1e-3; tilt *= 100) {
        const sr_dvec3 directions[4] = {dmadd(n, tilt, u), dmadd(n, -tilt, u), dmadd(n, tilt, v), dmadd(n, -tilt, v)};
        sr_support_point s[4];
        sr_dvec3 across[4];
        for (int k = 0; k < 4; k++) {
            s[k] = minkowski_support(a, b, directions[k]);
            sr_dvec3 off = dsub(s[k].w, target);
            across[k] = dmadd(off, -ddot(off, n), n);
        }
        for (int t = 0; t < 4; t++) {
            sr_dvec3 points[3];
            for (int k = 0; k < 3; k++)
                points[k] = across[triangles[t][k]];
            double weights[4];
            double miss = dlength(sr_simplex_closest(points, 3, weights));
            if (miss < best_miss) {
                best_miss = miss;
                sr_dvec3 pa = dv(0, 0, 0), pb = dv(0, 0, 0);
                for (int k = 0; k < 3; k++) {
                    pa = dmadd(pa, weights[k], s[triangles[t][k]].a);
                    pb = dmadd(pb, weights[k], s[triangles[t][k]].b);
                }
                /* what is left of the difference (the tilt, the rounding) is split between them */
                sr_dvec3 residual = dsub(target, dsub(pa, pb));
                *point_a = dmadd(pa, 0.5, residual);
                *point_b = dmadd(pb, -0.5, residual);
            }
        }
        if (best_miss <= 1e-12 * scale)
            break;
    }
}

static void answer_along(const sr_placed *a, const sr_placed *b, sr_dvec3 normal, sr_epa_output *out)
{
    out->normal = normal;
    out->depth = ddot(minkowski_support(a, b, normal).w, normal);
    sr_witness_along(a, b, normal, out->depth, &out->point_a, &out->point_b);
}

/* A difference that is flat, a segment or a point has depth about 0 across it: the cores touch
 * (or overlap in a flat region), and GJK's simplex already holds their common point; the witness
 * points are that point, moved apart by the depth along the normal. */
static void answer_degenerate(const sr_placed *a, const sr_placed *b, sr_dvec3 normal, const sr_gjk_simplex *simplex,
                              sr_epa_output *out)
{
    out->normal = normal;
    out->depth = ddot(minkowski_support(a, b, normal).w, normal);
    sr_dvec3 pa = dv(0, 0, 0), pb = dv(0, 0, 0);
    double total = 0;
    for (int k = 0; k < simplex->count; k++) {
        pa = dmadd(pa, simplex->weights[k], simplex->v[k].a);
        pb = dmadd(pb, simplex->weights[k], simplex->v[k].b);
        total += simplex->weights[k];
    }
    if (!(total > 0.5)) { /* no weights: the supports along the normal */
        sr_witness_along(a, b, normal, out->depth, &out->point_a, &out->point_b);
    } else {
        sr_dvec3 residual = dsub(dscale(normal, out->depth), dsub(pa, pb));
        out->point_a = dmadd(pa, 0.5, residual);
        out->point_b = dmadd(pb, -0.5, residual);
    }
    out->degenerate = true;
}

void sr_epa_penetration(const sr_placed *a, const sr_placed *b, const sr_gjk_simplex *simplex, int max_iterations,
                        sr_collide_trace *trace, sr_dvec3 origin, sr_epa_output *out)
{
    polytope p; /* not cleared: only what the counts cover is read */
    p.vertex_count = 0;
    p.free_count = p.face_slots = p.live_faces = 0;
    double scale = query_scale(a, b);
    p.noise = EPA_NOISE * scale;
    double absolute = EPA_ABSOLUTE * scale;
    memset(out, 0, sizeof *out);
    double flat = EPA_FLAT * scale;

    /* the simplex's distinct points, then support points around it up to a tetrahedron */
    for (int k = 0; k < simplex->count; k++) {
        bool repeated = false;
        for (int j = 0; j < p.vertex_count; j++)
            repeated |= dlength(dsub(p.vertices[j].w, simplex->v[k].w)) <= flat;
        if (!repeated)
            p.vertices[p.vertex_count++] = simplex->v[k];
    }
    if (p.vertex_count == 4) {
        sr_dvec3 w0 = p.vertices[0].w;
        sr_dvec3 n = dcross(dsub(p.vertices[1].w, w0), dsub(p.vertices[2].w, w0));
        double height = fabs(ddot(sr_dvec3_normalize(n), dsub(p.vertices[3].w, w0)));
        if (!(height > flat))
            p.vertex_count = 1; /* a flat tetrahedron: start again from its first point */
    }
    if (p.vertex_count == 0)
        p.vertices[p.vertex_count++] = minkowski_support(a, b, dv(1, 0, 0));
    if (p.vertex_count == 1) {
        static const sr_dvec3 axes[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
        double best = flat;
        for (int k = 0; k < 6; k++) {
            sr_support_point s = minkowski_support(a, b, axes[k]);
            double d = dlength(dsub(s.w, p.vertices[0].w));
            if (d > best) {
                best = d;
                p.vertices[1] = s;
                p.vertex_count = 2;
            }
        }
        if (p.vertex_count == 1) { /* A - B is a point: no depth */
            answer_degenerate(a, b, dv(0, 0, 1), simplex, out);
            return;
        }
    }
    if (p.vertex_count == 2) {
        sr_dvec3 axis = sr_dvec3_normalize(dsub(p.vertices[1].w, p.vertices[0].w));
        double best = flat, lowest = INFINITY;
        sr_dvec3 lowest_direction = around(axis, 0);
        for (int k = 0; k < 6; k++) {
            sr_dvec3 d = around(axis, k);
            sr_support_point s = minkowski_support(a, b, d);
            sr_dvec3 off = dsub(s.w, p.vertices[0].w);
            double distance = dlength(dsub(off, dscale(axis, ddot(off, axis))));
            if (ddot(s.w, d) < lowest) {
                lowest = ddot(s.w, d);
                lowest_direction = d;
            }
            if (distance > best) {
                best = distance;
                p.vertices[2] = s;
                p.vertex_count = 3;
            }
        }
        if (p.vertex_count == 2) { /* A - B is a segment: no depth across it */
            answer_degenerate(a, b, lowest_direction, simplex, out);
            return;
        }
    }
    if (p.vertex_count == 3) {
        sr_dvec3 w0 = p.vertices[0].w;
        sr_dvec3 n = sr_dvec3_normalize(dcross(dsub(p.vertices[1].w, w0), dsub(p.vertices[2].w, w0)));
        sr_support_point up = minkowski_support(a, b, n), down = minkowski_support(a, b, dneg(n));
        double above = ddot(dsub(up.w, w0), n), below = -ddot(dsub(down.w, w0), n);
        if (!(fmax(above, below) > flat)) { /* A - B is flat: its depth is 0 along the normal */
            double along_up = ddot(up.w, n), along_down = -ddot(down.w, n);
            answer_degenerate(a, b, along_up <= along_down ? n : dneg(n), simplex, out);
            return;
        }
        p.vertices[3] = above >= below ? up : down;
        p.vertex_count = 4;
    }
    polytope_start(&p);
    if (trace)
        for (int k = 0; k < 4; k++)
            record_vertex(trace, &p.vertices[k], origin);

    double lower = -INFINITY, upper = INFINITY, rounding = EPA_ROUNDING * DBL_EPSILON * scale;
    sr_dvec3 best_normal = dv(0, 0, 1), upper_normal = dv(0, 0, 1);
    int32_t best[3] = {-1, -1, -1}; /* the vertices of the last closest face */
    double limit = 0;               /* the precision of the face's plane it stopped at, if it did */
    int iteration = 0;
    bool converged = false;
    for (;;) {
        int32_t f = closest_face(&p);
        if (f < 0)
            break;
        epa_face *face = &p.faces[f];
        sr_support_point w = minkowski_support(a, b, face->normal);
        double h = ddot(w.w, face->normal);
        if (face->distance > lower)
            lower = face->distance;
        if (h < upper) {
            upper = h;
            upper_normal = face->normal;
        }
        best_normal = face->normal;
        memcpy(best, face->v, sizeof best);
        iteration++;
        if (trace)
            record_step(trace, &p, f, &w, lower, upper, origin);
        double gap = h - face->distance, tolerance = EPA_RELATIVE * fabs(h) + absolute;
        if (gap <= tolerance) {
            converged = true;
            break;
        }
        double precision = face_precision(&p, face, w.w, rounding);
        if (gap <= tolerance + precision) {
            /* the gap is within what the face's plane can be trusted to: expanding it cannot
             * tighten the bounds (the support point sits on the face's true plane; adding it
             * folds the polytope), and its normal may be off by the rounding over its altitude.
             * The polytope has done what it can: the local search below finishes from the best
             * normal seen, on exact support values, and the bounds are judged with the plane's
             * precision. */
            limit = precision;
            break;
        }
        if (iteration >= max_iterations || p.vertex_count == EPA_MAX_VERTICES)
            break;
        int32_t vertex = p.vertex_count;
        p.vertices[p.vertex_count++] = w;
        /* a polytope that held the origin (the closest face's distance >= 0) must keep it */
        double floor = face->distance >= 0 ? p.noise : INFINITY;
        if (!find_horizon(&p, f, w.w) || !add_fan(&p, vertex, floor))
            break; /* the polytope cannot grow consistently: keep the best found */
        if (trace)
            record_vertex(trace, &w, origin);
    }
    out->iterations = iteration;
    /* the answer along the last closest face's normal (converged: its distance and the support
     * value along it agree; the origin's projection is inside it, as it is the closest face of a
     * convex polytope around the origin); not converged: along the best direction a local search
     * finds from the smallest support value seen */
    sr_dvec3 normal = best_normal;
    if (!converged) {
        double refined;
        normal = refine_normal(a, b, upper_normal, &refined);
        upper = fmin(upper, refined);
    }
    if (!converged && upper <= EPA_SHALLOW * scale) {
        /* a near-touching curved pair whose polytope ran out: the depth is within the tolerance of
         * touching; GJK's common point serves as the witness, as for a flat difference */
        answer_degenerate(a, b, normal, simplex, out);
        out->degenerate = false;
    } else if (!(converged && best[0] >= 0)) {
        answer_along(a, b, normal, out);
    } else {
        out->normal = normal;
        out->depth = ddot(minkowski_support(a, b, normal).w, normal);
        /* witnesses from that face: the barycentric point of the origin's projection on it, whose
         * difference is (its distance) * normal; the gap to the depth is spread over both. A face
         * coplanar with it may be the one the projection is in (a tie in the scan): the live face
         * whose closest point to the origin is nearest the projection is used. */
        sr_dvec3 points[3];
        double weights[4];
        for (int k = 0; k < 3; k++)
            points[k] = p.vertices[best[k]].w;
        sr_dvec3 target = dscale(best_normal, ddot(best_normal, points[0]));
        double miss = dlength(dsub(sr_simplex_closest(points, 3, weights), target));
        if (miss > p.noise) {
            for (int32_t f = 0; f < p.face_slots; f++) {
                const epa_face *face = &p.faces[f];
                if (!face->alive || ddot(face->normal, best_normal) < 1 - 1e-9)
                    continue;
                sr_dvec3 candidate[3];
                for (int k = 0; k < 3; k++)
                    candidate[k] = p.vertices[face->v[k]].w;
                double w[4];
                double d = dlength(dsub(sr_simplex_closest(candidate, 3, w), target));
                if (d < miss) {
                    miss = d;
                    memcpy(best, face->v, sizeof best);
                }
            }
            for (int k = 0; k < 3; k++)
                points[k] = p.vertices[best[k]].w;
        }
        sr_simplex_closest(points, 3, weights);
        sr_dvec3 pa = dv(0, 0, 0), pb = dv(0, 0, 0);
        for (int k = 0; k < 3; k++) {
            pa = dmadd(pa, weights[k], p.vertices[best[k]].a);
            pb = dmadd(pb, weights[k], p.vertices[best[k]].b);
        }
        /* moved so that their difference is depth * normal (converged: by the tiny gap along it) */
        sr_dvec3 gap = dsub(dscale(normal, out->depth), dsub(pa, pb));
        out->point_a = dmadd(pa, 0.5, gap);
        out->point_b = dmadd(pb, -0.5, gap);
    }
    out->capped = !converged && !(upper - lower <= EPA_ACCEPTABLE * fabs(upper) + absolute + limit);
}
