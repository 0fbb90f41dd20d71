/* src/collide/gjk.c — GJK on the cores of two placed shapes: the distance with closest points
 * (sr_gjk_distance, which sr_collide_distance and the penetration queries of query.c run), the
 * boolean intersection with a warm start (sr_collide_intersect), the closest point of a simplex to
 * the origin that both use, and the traces' bookkeeping. Knows nothing of raster, scene or SDL.
 *
 * The iteration is van den Bergen's ("A Fast and Robust GJK Implementation for Collision Detection
 * of Convex Objects", 1999): v, the point of the simplex closest to the origin, is the distance's
 * upper bound; w, the support point of A - B along -v, gives the lower bound v.w / |v|; the loop
 * ends when the two meet within a relative 1e-7 (plus the rounding noise of the query's scale),
 * when w is already in the simplex, when v stops shrinking (the backup: the previous simplex is
 * kept), when the simplex holds the origin, or at the iteration cap. The sub-algorithm is
 * Montanari, Petrinic & Barbieri's signed volumes ("Improving the GJK algorithm for faster and
 * more reliable distance queries between convex objects", 2017): which sub-simplex holds the
 * closest point is decided by the signs of the signed volumes (areas, lengths) of the simplex and
 * of its sub-simplices with the origin's projection in place of a vertex, computed on the
 * coordinate plane where they are largest. It needs no tolerance and no special case for
 * degenerate simplices: a zero volume fails every sign test and sends the search to the faces. */
#include "collide_internal.h"

#include <string.h>

/* The convergence test: |v|^2 - v.w <= GJK_RELATIVE |v|^2 + GJK_NOISE |v| scale, so the distance
 * is within about GJK_RELATIVE of itself. 1e-7, far inside the queries' contract (1e-4 of the
 * size, tests/collide_oracle.h): near a curved surface the steps close in on the closest
 * direction slowly, and 1e-10 took a quarter more of them (bench_scene_collide's pile: 7.9 steps
 * a query on average against 6.3). */
#define GJK_RELATIVE 1e-7
#define GJK_NOISE 1e-14
/* |v| below this fraction of the query's scale: the origin is on A - B (touching or overlapping).
 * Not smaller: near a curved surface, or with the origin on a triangle of support points inside
 * A - B, the simplex can shrink towards the origin for dozens of steps without ever enclosing it
 * (found by the oracle's pairs: a box and a cone, |v| 6e-12 after 28 steps); the penetration
 * queries then ask EPA or SAT, which find the depth. */
#define GJK_TOUCH 1e-10
/* When GJK stops (no progress, a repeated support point) within this fraction of the scale of the
 * origin without ever having a positive lower bound (no plane has separated the shapes), the
 * origin is taken to be on or in A - B: a simplex whose plane runs through the origin shrinks
 * towards it without enclosing it (a segment and a cylinder, |v| 3e-10 after 24 steps). The
 * distance is then at most that far from 0, within the near-touching tolerance. */
#define GJK_STALL 1e-6

/* ---- the closest point of a simplex ---- */

/* A triangle or tetrahedron whose area or volume is below this fraction of the product of its
 * edges' lengths is flat (its sign is rounding noise): its faces or edges are searched instead.
 * Montanari's sub-algorithm needs no tolerance for the closest point itself, but the weights of a
 * noise-signed "inside" are meaningless, and the witness points are made from them. */
#define FLAT_SIMPLEX 1e-12

static bool same_sign(double a, double b)
{
    return (a > 0 && b > 0) || (a < 0 && b < 0);
}

static sr_dvec3 combine(const sr_dvec3 *points, const double weights[4], int count)
{
    sr_dvec3 r = dv(0, 0, 0);
    for (int k = 0; k < count; k++)
        if (weights[k] != 0)
            r = dmadd(r, weights[k], points[k]);
    return r;
}

/* Segment points[i] - points[j]: the origin's projection on its line, clamped. */
static void closest_on_segment(const sr_dvec3 *points, int i, int j, double weights[4])
{
    sr_dvec3 a = points[i], t = dsub(points[j], a);
    double tt = ddot(t, t);
    double mu = tt > 0 ? -ddot(a, t) / tt : 0;
    if (!(mu > 0)) {
        weights[i] = 1;
    } else if (mu >= 1) {
        weights[j] = 1;
    } else {
        weights[i] = 1 - mu;
        weights[j] = mu;
    }
}

/* Signed area of the triangle pqr projected on the coordinate plane that drops `axis`, with the
 * orientation of that axis (so that the area of the whole triangle is its normal's component). */
static double projected_area(int axis, sr_dvec3 p, sr_dvec3 q, sr_dvec3 r)
{
    double pu = axis == 0 ? p.y : axis == 1 ? p.z : p.x, pv = axis == 0 ? p.z : axis == 1 ? p.x : p.y;
    double qu = axis == 0 ? q.y : axis == 1 ? q.z : q.x, qv = axis == 0 ? q.z : axis == 1 ? q.x : q.y;
    double ru = axis == 0 ? r.y : axis == 1 ? r.z : r.x, rv = axis == 0 ? r.z : axis == 1 ? r.x : r.y;
    return (qu - pu) * (rv - pv) - (qv - pv) * (ru - pu);
}

/* Triangle points[i], points[j], points[k] (Montanari's S2D). */
static void closest_on_triangle(const sr_dvec3 *points, int i, int j, int k, double weights[4])
{
    sr_dvec3 a = points[i], b = points[j], c = points[k];
    sr_dvec3 n = dcross(dsub(b, a), dsub(c, a));
    double nn = ddot(n, n), mu = 0, area[3] = {0, 0, 0};
    /* a triangle whose area is at the rounding's level of its edges' (collinear points) is treated
     * as its edges: the signs of noise would otherwise call the origin inside, with weights that
     * mean nothing (and witness points far from the shapes) */
    if (nn > FLAT_SIMPLEX * FLAT_SIMPLEX * dlength_squared(dsub(b, a)) * dlength_squared(dsub(c, a))) {
        sr_dvec3 p0 = dscale(n, ddot(a, n) / nn); /* the origin's projection on the plane */
        double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
        int axis = ax >= ay && ax >= az ? 0 : ay >= az ? 1 : 2;
        mu = axis == 0 ? n.x : axis == 1 ? n.y : n.z;
        area[0] = projected_area(axis, p0, b, c);
        area[1] = projected_area(axis, a, p0, c);
        area[2] = projected_area(axis, a, b, p0);
        if (same_sign(mu, area[0]) && same_sign(mu, area[1]) && same_sign(mu, area[2])) {
            /* divided by their sum, not by mu: with rounding they need not add up to it, and a
             * sliver's weights would then not be a convex combination */
            double sum = area[0] + area[1] + area[2];
            weights[i] = area[0] / sum;
            weights[j] = area[1] / sum;
            weights[k] = area[2] / sum;
            return;
        }
    }
    /* outside (or a degenerate triangle): the best edge among those the projection is beyond */
    const int index[3] = {i, j, k};
    double best = INFINITY, best_weights[4] = {0, 0, 0, 0};
    bool solid = mu != 0;
    for (int m = 0; m < 3; m++) {
        if (solid && same_sign(mu, area[m]))
            continue;
        double w[4] = {0, 0, 0, 0};
        closest_on_segment(points, index[(m + 1) % 3], index[(m + 2) % 3], w);
        double d = dlength_squared(combine(points, w, 4));
        if (d < best) {
            best = d;
            memcpy(best_weights, w, sizeof w);
        }
    }
    for (int m = 0; m < 3; m++)
        weights[index[m]] = best_weights[index[m]];
}

/* Tetrahedron points[0..3] (Montanari's S3D): signed volumes with the origin in place of each
 * vertex. */
static void closest_on_tetrahedron(const sr_dvec3 *points, double weights[4])
{
    sr_dvec3 a = points[0], b = points[1], c = points[2], d = points[3];
    sr_dvec3 ab = dsub(b, a), ac = dsub(c, a), ad = dsub(d, a);
    double volume = ddot(ab, dcross(ac, ad));
    double cofactor[4] = {
        ddot(b, dcross(c, d)),
        -ddot(a, dcross(ac, ad)),
        -ddot(ab, dcross(a, ad)),
        -ddot(ab, dcross(ac, a)),
    };
    /* a flat tetrahedron (its volume at the rounding's level of its edges'): every face is tried */
    if (fabs(volume) <= FLAT_SIMPLEX * dlength(ab) * dlength(ac) * dlength(ad))
        volume = 0;
    if (same_sign(volume, cofactor[0]) && same_sign(volume, cofactor[1]) && same_sign(volume, cofactor[2]) &&
        same_sign(volume, cofactor[3])) {
        /* divided by their sum (see closest_on_triangle): always a convex combination */
        double sum = cofactor[0] + cofactor[1] + cofactor[2] + cofactor[3];
        for (int m = 0; m < 4; m++)
            weights[m] = cofactor[m] / sum;
        return;
    }
    static const int faces[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}}; /* opposite vertex m */
    double best = INFINITY, best_weights[4] = {0, 0, 0, 0};
    for (int m = 0; m < 4; m++) {
        if (volume != 0 && same_sign(volume, cofactor[m]))
            continue;
        double w[4] = {0, 0, 0, 0};
        closest_on_triangle(points, faces[m][0], faces[m][1], faces[m][2], w);
        double dist = dlength_squared(combine(points, w, 4));
        if (dist < best) {
            best = dist;
            memcpy(best_weights, w, sizeof w);
        }
    }
    memcpy(weights, best_weights, sizeof best_weights);
}

sr_dvec3 sr_simplex_closest(const sr_dvec3 *points, int count, double weights[4])
{
    memset(weights, 0, 4 * sizeof(double));
    switch (count) {
    case 1:
        weights[0] = 1;
        break;
    case 2:
        closest_on_segment(points, 0, 1, weights);
        break;
    case 3:
        closest_on_triangle(points, 0, 1, 2, weights);
        break;
    default:
        closest_on_tetrahedron(points, weights);
        break;
    }
    return combine(points, weights, count);
}

/* Keeps the simplex's vertices of non-zero weight, in order. */
static void simplex_reduce(sr_gjk_simplex *s, const double weights[4])
{
    int kept = 0;
    for (int k = 0; k < s->count; k++)
        if (weights[k] > 0) {
            s->v[kept] = s->v[k];
            s->weights[kept] = weights[k];
            kept++;
        }
    s->count = kept;
}

static void simplex_witnesses(const sr_gjk_simplex *s, sr_dvec3 *a, sr_dvec3 *b)
{
    *a = dv(0, 0, 0);
    *b = dv(0, 0, 0);
    for (int k = 0; k < s->count; k++) {
        *a = dmadd(*a, s->weights[k], s->v[k].a);
        *b = dmadd(*b, s->weights[k], s->v[k].b);
    }
}

/* ---- traces ---- */

void sr_trace_clear(sr_collide_trace *trace)
{
    if (!trace)
        return;
    trace->gjk_count = trace->epa_vertex_count = trace->epa_face_count = trace->epa_count = trace->sat_count = 0;
    trace->dropped = 0;
}

/* One GJK step into the trace (world coordinates: the query's frame moved back by `origin`). */
static void record_step(sr_collide_trace *trace, sr_dvec3 origin, const sr_gjk_simplex *s, sr_dvec3 closest,
                        sr_dvec3 direction, sr_support_point support, double lower, double upper)
{
    if (trace->gjk_count >= trace->gjk_capacity || !trace->gjk) {
        trace->dropped++;
        return;
    }
    sr_gjk_step *step = &trace->gjk[trace->gjk_count++];
    memset(step, 0, sizeof *step);
    step->simplex_count = s->count;
    for (int k = 0; k < s->count; k++) {
        step->simplex_a[k] = dadd(s->v[k].a, origin);
        step->simplex_b[k] = dadd(s->v[k].b, origin);
        step->weights[k] = s->weights[k];
    }
    step->closest = closest;
    step->direction = direction;
    step->support_a = dadd(support.a, origin);
    step->support_b = dadd(support.b, origin);
    step->lower_bound = lower;
    step->upper_bound = upper;
}

/* ---- GJK distance ---- */

/* The first simplex vertex: the support of A - B towards the origin from the centres' difference
 * (any direction when they coincide). */
static sr_dvec3 start_direction(const sr_placed *a, const sr_placed *b)
{
    sr_dvec3 d = dsub(b->position, a->position);
    return dlength_squared(d) > 0 ? d : dv(1, 0, 0);
}

void sr_gjk_distance(const sr_placed *a, const sr_placed *b, int max_iterations, sr_collide_trace *trace,
                     sr_dvec3 origin, sr_gjk_output *out)
{
    memset(out, 0, sizeof *out);
    double scale = query_scale(a, b);
    double touch = GJK_TOUCH * scale;
    sr_gjk_simplex *s = &out->simplex;
    s->v[0] = minkowski_support(a, b, start_direction(a, b));
    s->weights[0] = 1;
    s->count = 1;
    sr_dvec3 v = s->v[0].w;
    double vv = ddot(v, v), lower = 0;
    int iteration = 0;
    for (;;) {
        if (vv <= touch * touch) {
            out->overlap = true;
            break;
        }
        if (iteration >= max_iterations) {
            out->capped = true;
            break;
        }
        iteration++;
        sr_support_point w = minkowski_support(a, b, dneg(v));
        double vw = ddot(v, w.w);
        double length = sqrt(vv);
        if (vw > 0 && vw / length > lower)
            lower = vw / length;
        if (trace)
            record_step(trace, origin, s, v, dneg(v), w, lower, length);
        /* converged: the lower bound meets |v| (van den Bergen's relative test, with a floor at the
         * rounding noise of the query's coordinates) */
        if (vv - vw <= GJK_RELATIVE * vv + GJK_NOISE * length * scale)
            break;
        bool repeated = false;
        for (int k = 0; k < s->count; k++)
            repeated |= s->v[k].w.x == w.w.x && s->v[k].w.y == w.w.y && s->v[k].w.z == w.w.z;
        if (repeated)
            break;
        sr_dvec3 points[4];
        for (int k = 0; k < s->count; k++)
            points[k] = s->v[k].w;
        points[s->count] = w.w;
        double weights[4];
        sr_dvec3 next = sr_simplex_closest(points, s->count + 1, weights);
        double next_vv = ddot(next, next);
        bool inside = weights[0] > 0 && weights[1] > 0 && weights[2] > 0 && weights[3] > 0 && s->count == 3;
        if (!inside && next_vv >= vv)
            break; /* no progress: keep the simplex as it was (van den Bergen's backup) */
        s->v[s->count++] = w;
        simplex_reduce(s, weights);
        if (s->count == 4) { /* the simplex holds the origin */
            v = dv(0, 0, 0);
            vv = 0;
            out->overlap = true;
            break;
        }
        v = next;
        vv = next_vv;
    }
    if (!out->overlap && !out->capped && lower <= touch && sqrt(vv) <= GJK_STALL * scale)
        out->overlap = true;
    out->iterations = iteration;
    simplex_witnesses(s, &out->point_a, &out->point_b);
    if (out->overlap) {
        sr_dvec3 common = dscale(dadd(out->point_a, out->point_b), 0.5);
        out->point_a = out->point_b = common;
        out->closest = dv(0, 0, 0);
        out->distance = 0;
    } else {
        out->closest = v;
        out->distance = sqrt(vv);
    }
    if (trace && (out->overlap || out->capped)) {
        /* the final state, whose closest point is the answer */
        sr_support_point none = {dv(0, 0, 0), out->point_a, out->point_b};
        record_step(trace, origin, s, out->closest, dneg(out->closest), none, out->overlap ? 0 : lower, out->distance);
    }
}

/* ---- the public GJK queries ---- */

sr_collide_status sr_collide_intersect(const sr_shape *a, const sr_shape *b, sr_dvec3 *axis,
                                       const sr_collide_options *options, bool *hit)
{
    bool answer = false;
    sr_collide_trace *trace = options_trace(options);
    sr_trace_clear(trace);
    sr_placed pa, pb;
    sr_dvec3 origin;
    if (!sr_pair_place(a, b, &pa, &pb, &origin)) {
        if (hit)
            *hit = false;
        return SR_COLLIDE_INVALID_SHAPE;
    }
    double radius = pa.radius + pb.radius;
    double scale = query_scale(&pa, &pb);
    double touch = GJK_TOUCH * scale, reach = radius + touch;
    int max_iterations = options_iterations(options);
    sr_collide_status status = SR_COLLIDE_OK;

    /* warm start: the caller's axis (from A towards B) separates when A - B stays below -reach
     * along it; otherwise the cold iteration runs, from the same start as without an axis, so that
     * a warm start never changes the answer (the axis left after a miss certifies it again, with
     * the very numbers the cold run used) */
    sr_gjk_simplex s;
    s.count = 1;
    s.weights[0] = 1;
    if (axis && sr_dvec3_is_finite(*axis) && dlength_squared(*axis) > 0) {
        sr_dvec3 d = *axis;
        s.v[0] = minkowski_support(&pa, &pb, d);
        double along = ddot(s.v[0].w, d);
        if (along < 0 && along * along > reach * reach * dlength_squared(d)) {
            if (trace)
                record_step(trace, origin, &s, s.v[0].w, d, s.v[0], -along / dlength(d), dlength(s.v[0].w));
            if (hit)
                *hit = false;
            return SR_COLLIDE_OK;
        }
    }
    s.v[0] = minkowski_support(&pa, &pb, start_direction(&pa, &pb));
    sr_dvec3 v = s.v[0].w;
    double vv = ddot(v, v), lower = 0;
    for (int iteration = 0;; iteration++) {
        if (vv <= reach * reach) {
            answer = true;
            break;
        }
        if (iteration >= max_iterations) {
            status = SR_COLLIDE_ITERATION_CAP;
            break;
        }
        sr_support_point w = minkowski_support(&pa, &pb, dneg(v));
        double vw = ddot(v, w.w);
        double length = sqrt(vv);
        if (vw > 0 && vw / length > lower)
            lower = vw / length;
        if (trace)
            record_step(trace, origin, &s, v, dneg(v), w, lower, length);
        if (vw > 0 && vw * vw > reach * reach * vv) /* a separating plane: the lower bound passed the radii */
            break;
        if (vv - vw <= GJK_RELATIVE * vv + GJK_NOISE * length * scale) /* converged above the radii */
            break;
        bool repeated = false;
        for (int k = 0; k < s.count; k++)
            repeated |= s.v[k].w.x == w.w.x && s.v[k].w.y == w.w.y && s.v[k].w.z == w.w.z;
        if (repeated)
            break;
        sr_gjk_simplex previous = s;
        s.v[s.count++] = w;
        sr_dvec3 points[4];
        for (int k = 0; k < s.count; k++)
            points[k] = s.v[k].w;
        double weights[4];
        sr_dvec3 next = sr_simplex_closest(points, s.count, weights);
        simplex_reduce(&s, weights);
        if (s.count == 4) {
            answer = true;
            v = dv(0, 0, 0);
            break;
        }
        double next_vv = ddot(next, next);
        if (next_vv >= vv) {
            s = previous;
            break;
        }
        v = next;
        vv = next_vv;
    }
    if (!answer && status == SR_COLLIDE_OK && lower <= touch && sqrt(vv) <= GJK_STALL * scale)
        answer = true; /* stopped by the origin without a separating plane (sr_gjk_distance) */
    if (axis && dlength_squared(v) > 0)
        *axis = dneg(v);
    if (hit)
        *hit = answer;
    return status;
}
