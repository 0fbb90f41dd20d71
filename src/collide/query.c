/* src/collide/query.c — the pair queries that choose a method: sr_collide_distance,
 * sr_collide_penetration and sr_collide_signed_distance. Points, spheres, segments and capsules
 * (cores that are points or segments) are answered in closed form, and so is a point core against
 * a box, cylinder or cone (point_core.c) unless the query is traced; every other pair by GJK on the
 * cores; rounded shapes whose cores are apart get their depth from the cores' closest points,
 * which is exact. When the cores overlap: polytope cores by the separating-axis test (exact, no
 * iteration: sr_collide_sat), coaxial solids of revolution by a 1-D minimisation, the rest by EPA.
 * The radii are added along the normal. Knows nothing of raster, scene or SDL. */
#include "collide_internal.h"

#include <string.h>

/* Cores closer than this fraction of the scale count as touching or crossing: the direction
 * between their closest points is not trusted below it (a closed form or EPA gives the normal). */
#define CORES_CROSSING 1e-9
/* Cores closer than this fraction of the scale touch: GJK's GJK_TOUCH (gjk.c), below which
 * sr_collide_intersect answers hit; a closed form calls such cores overlapping too. */
#define CORES_TOUCHING 1e-10

/* ---- closed forms for point and segment cores ---- */

static bool is_simple_core(const sr_placed *s)
{
    return s->core == CORE_POINT || s->core == CORE_SEGMENT;
}

/* A unit vector perpendicular to d (any when d is zero), chosen the same way for the same d. */
static sr_dvec3 perpendicular(sr_dvec3 d)
{
    double ax = fabs(d.x), ay = fabs(d.y), az = fabs(d.z);
    sr_dvec3 helper = ax <= ay && ax <= az ? dv(1, 0, 0) : ay <= az ? dv(0, 1, 0) : dv(0, 0, 1);
    sr_dvec3 p = sr_dvec3_normalize(dcross(d, helper));
    return dlength_squared(p) > 0 ? p : dv(0, 0, 1);
}

/* The cores' closest points and the normal from A's towards B's (when they cross: the direction
 * along which they separate fastest, with the sign of the centres' offset). */
typedef struct core_pair {
    sr_dvec3 a, b; /* closest points */
    double distance;
    sr_dvec3 normal;
} core_pair;

static void simple_cores(const sr_placed *a, const sr_placed *b, double scale, core_pair *out)
{
    sr_dvec3 a0 = a->p[0], a1 = a->core == CORE_SEGMENT ? a->p[1] : a->p[0];
    sr_dvec3 b0 = b->p[0], b1 = b->core == CORE_SEGMENT ? b->p[1] : b->p[0];
    /* (Ericson 5.1.9 with the lines' closest point from cross products: exact to the last digits
     * for segments nearly parallel, where a e - b^2 is rounding) */
    sr_collide_closest_segment_segment(a0, a1, b0, b1, &out->a, &out->b);
    sr_dvec3 offset = dsub(out->b, out->a);
    out->distance = dlength(offset);
    if (out->distance > CORES_CROSSING * scale) {
        out->normal = dscale(offset, 1.0 / out->distance);
        return;
    }
    /* crossing or touching cores: across both segments, or across the one segment, signed by the
     * offset of the closest points (or of the centres when they coincide) */
    sr_dvec3 da = dsub(a1, a0), db = dsub(b1, b0);
    sr_dvec3 n = dcross(da, db);
    double la = dlength(da), lb = dlength(db);
    if (dlength(n) > 1e-9 * la * lb && la > 0 && lb > 0)
        n = sr_dvec3_normalize(n);
    else if (la > 0 || lb > 0)
        n = dlength(offset) > 0 && fabs(ddot(offset, la > 0 ? da : db)) < 0.5 * dlength(offset) * (la > 0 ? la : lb)
                ? sr_dvec3_normalize(offset)
                : perpendicular(la > 0 ? da : db);
    else
        n = dlength(offset) > 0 ? sr_dvec3_normalize(offset) : dv(0, 0, 1);
    sr_dvec3 centres = dsub(dscale(dadd(b0, b1), 0.5), dscale(dadd(a0, a1), 0.5));
    double sign = ddot(offset, n);
    if (sign == 0)
        sign = ddot(centres, n);
    out->normal = sign < 0 ? dneg(n) : n;
}

/* ---- solids of revolution on a common axis ---- */

/* The axis of a core that is a solid of revolution (a segment, cylinder or cone; a point has any),
 * and a point on it. False for other cores. */
static bool revolution_axis(const sr_placed *s, sr_dvec3 *axis, sr_dvec3 *centre, bool *has_axis)
{
    *has_axis = true;
    switch (s->core) {
    case CORE_POINT:
        *centre = s->p[0];
        *has_axis = false;
        return true;
    case CORE_SEGMENT:
        *centre = dscale(dadd(s->p[0], s->p[1]), 0.5);
        *axis = sr_dvec3_normalize(dsub(s->p[1], s->p[0]));
        *has_axis = dlength_squared(*axis) > 0;
        return true;
    case CORE_CYLINDER:
    case CORE_CONE:
        *centre = s->position;
        *axis = s->rotated ? placed_to_world(s, dv(0, 0, 1)) : dv(0, 0, 1);
        return true;
    default:
        return false;
    }
}

/* When both cores are solids of revolution about one line (identical or nested cylinders, cones
 * and capsules at one pose, a sphere on a cylinder's axis), A - B is one too, about a line through
 * the origin: its depth along a direction depends only on the angle to the axis, and a whole ring
 * of directions is deepest, which EPA's faces approach slowly. The depth is then the minimum over
 * that angle: a scan of 65 angles, then golden-section search around each local minimum of the
 * scan. Returns false when the pair is not coaxial. */
#define COAXIAL_TOLERANCE 1e-12
#define COAXIAL_SCAN 64

static double support_along(const sr_placed *a, const sr_placed *b, sr_dvec3 axis, sr_dvec3 u, double angle)
{
    sr_dvec3 n = dadd(dscale(axis, cos(angle)), dscale(u, sin(angle)));
    return ddot(minkowski_support(a, b, n).w, n);
}

static bool coaxial_depth(const sr_placed *a, const sr_placed *b, double scale, sr_epa_output *out)
{
    sr_dvec3 axis_a = dv(0, 0, 1), axis_b = dv(0, 0, 1), centre_a, centre_b;
    bool has_a, has_b;
    if (!revolution_axis(a, &axis_a, &centre_a, &has_a) || !revolution_axis(b, &axis_b, &centre_b, &has_b) ||
        (!has_a && !has_b))
        return false;
    sr_dvec3 axis = has_a ? axis_a : axis_b;
    if (has_a && has_b && dlength(dcross(axis_a, axis_b)) > COAXIAL_TOLERANCE)
        return false;
    sr_dvec3 offset = dsub(centre_b, centre_a);
    if (dlength(dsub(offset, dscale(axis, ddot(offset, axis)))) > COAXIAL_TOLERANCE * scale)
        return false;
    sr_dvec3 u = perpendicular(axis);
    double samples[COAXIAL_SCAN + 1];
    for (int k = 0; k <= COAXIAL_SCAN; k++)
        samples[k] = support_along(a, b, axis, u, M_PI * k / COAXIAL_SCAN);
    /* every local minimum of the samples is refined by golden section between its neighbours: the
     * depth along the angle is a maximum of smooth pieces, whose valleys can be narrower than the
     * samples' spacing (identical cones), but each lies next to a sampled local minimum */
    double best_angle = 0, best = INFINITY;
    const double g = 0.5 * (sqrt(5.0) - 1), spacing = M_PI / COAXIAL_SCAN;
    for (int k = 0; k <= COAXIAL_SCAN; k++) {
        if ((k > 0 && samples[k] > samples[k - 1]) || (k < COAXIAL_SCAN && samples[k] > samples[k + 1]))
            continue;
        if (samples[k] < best) {
            best = samples[k];
            best_angle = spacing * k;
        }
        double lo = fmax(0, spacing * (k - 1)), hi = fmin(M_PI, spacing * (k + 1));
        double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
        double f1 = support_along(a, b, axis, u, x1), f2 = support_along(a, b, axis, u, x2);
        for (int i = 0; i < 80 && hi - lo > 1e-15; i++) {
            if (f1 <= f2) {
                hi = x2;
                x2 = x1;
                f2 = f1;
                x1 = hi - g * (hi - lo);
                f1 = support_along(a, b, axis, u, x1);
            } else {
                lo = x1;
                x1 = x2;
                f1 = f2;
                x2 = lo + g * (hi - lo);
                f2 = support_along(a, b, axis, u, x2);
            }
        }
        if (fmin(f1, f2) < best) {
            best_angle = f1 <= f2 ? x1 : x2;
            best = fmin(f1, f2);
        }
    }
    /* the axis itself exactly (sin(pi) is not 0 in double): its support is a disc's centre */
    sr_dvec3 n = best_angle == 0      ? axis
                 : best_angle == M_PI ? dneg(axis)
                                      : dadd(dscale(axis, cos(best_angle)), dscale(u, sin(best_angle)));
    out->normal = n;
    out->depth = best;
    sr_witness_along(a, b, n, best, &out->point_a, &out->point_b);
    out->iterations = COAXIAL_SCAN + 3 + 80;
    out->capped = false;
    out->degenerate = false;
    return true;
}

/* ---- a point core against a box, cylinder or cone ---- */

/* A sphere (a point core) and a box, cylinder or cone: the signed distance from the point to the
 * other core in closed form in that core's frame (point_core.c) — apart, the closest points;
 * inside, the depth to the nearest face, the side, a cap or the base. Exact, where GJK takes 13 to
 * 18 steps to pin a curved core down to the queries' 1e-7 and EPA many faces (a point near a
 * cylinder's axis has a ring of nearly deepest directions). False for other pairs. */
static bool point_pair(const sr_placed *a, const sr_placed *b, bool *point_first, sr_point_core *form)
{
    *point_first = a->core == CORE_POINT;
    const sr_placed *point = *point_first ? a : b, *solid = *point_first ? b : a;
    return point->core == CORE_POINT && sr_point_core_distance(solid, point->p[0], form);
}

/* The depth of the point core in the solid (about 0 when it touches from outside). */
static void point_depth(bool point_first, sr_dvec3 point, const sr_point_core *form, sr_epa_output *out)
{
    sr_dvec3 m = form->normal;
    /* B moves to let the point out: along -m when the point is A, along m when it is B */
    out->normal = point_first ? dneg(m) : m;
    out->depth = -form->distance;
    out->point_a = point_first ? point : form->boundary;
    out->point_b = point_first ? form->boundary : point;
    out->iterations = 0;
    out->capped = out->degenerate = false;
}

/* After GJK found the cores overlapping (a traced query, which shows the iterations): a point core
 * in a cylinder or cone still gets its depth in closed form (a point in a box goes to EPA). GJK
 * calls the cores overlapping within its touching distance: a point that far outside (on a flat
 * disc, a cylinder or cone of height 0) is answered here too, with a depth about 0. */
static bool point_in_axial(const sr_placed *a, const sr_placed *b, double scale, sr_epa_output *out)
{
    bool point_first;
    sr_point_core form;
    const sr_placed *solid = a->core == CORE_POINT ? b : a;
    if (solid->core == CORE_BOX || !point_pair(a, b, &point_first, &form) || !(form.distance <= CORES_TOUCHING * scale))
        return false;
    point_depth(point_first, (point_first ? a : b)->p[0], &form, out);
    return true;
}

/* ---- polytope cores: SAT ---- */

/* The core of a shape as an unrounded polytope shape, when it is one (a sphere's point, a
 * capsule's segment, a rounded box's box...). */
static bool polytope_core(const sr_shape *s, sr_shape *core)
{
    *core = *s;
    core->rounding = 0;
    switch (s->type) {
    case SR_SHAPE_SPHERE:
        core->type = SR_SHAPE_POINT;
        core->radius = 0;
        return true;
    case SR_SHAPE_CAPSULE:
        *core = sr_shape_with_pose(sr_shape_segment(dv(0, 0, -s->half_height), dv(0, 0, s->half_height)), s->pose);
        return true;
    case SR_SHAPE_POINT:
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
    case SR_SHAPE_BOX:
    case SR_SHAPE_HULL:
        return true;
    default:
        return false;
    }
}

/* The separating-axis test on overlapping polytope cores (sat.c): exact, without iterations. Its
 * axes go to the caller's trace after GJK's steps. False when a core is curved. */
static bool sat_depth(const sr_shape *a, const sr_shape *b, sr_collide_trace *trace, sr_dvec3 origin,
                      sr_epa_output *out)
{
    sr_shape core_a, core_b;
    if (!polytope_core(a, &core_a) || !polytope_core(b, &core_b))
        return false;
    /* only boxes: their 15 axes take ~170 ns, while the generic test over hulls' edge pairs takes
     * microseconds (tests/bench/bench_collide_sat), where EPA converges on a polytope's exact face
     * in a few steps */
    if (core_a.type != SR_SHAPE_BOX || core_b.type != SR_SHAPE_BOX)
        return false;
    sr_collide_trace axes;
    memset(&axes, 0, sizeof axes);
    if (trace) {
        axes.sat = trace->sat;
        axes.sat_capacity = trace->sat_capacity;
    }
    sr_collide_options options = {.trace = trace ? &axes : NULL};
    sr_collide_result r;
    if (sr_collide_sat(&core_a, &core_b, &options, &r) != SR_COLLIDE_OK)
        return false;
    if (trace) {
        trace->sat_count = axes.sat_count;
        trace->dropped += axes.dropped;
    }
    memset(out, 0, sizeof *out);
    out->normal = r.normal;
    out->depth = -r.distance; /* a touching pair may come out a hair apart: depth about 0 */
    out->point_a = dsub(r.point_a, origin);
    out->point_b = dsub(r.point_b, origin);
    out->iterations = r.iterations;
    if (r.distance > 0) /* touching within the rounding: one point */
        out->point_b = dmadd(out->point_a, -out->depth, out->normal);
    return true;
}

/* ---- results ---- */

static void result_invalid(sr_collide_result *out)
{
    sr_collide_result r;
    memset(&r, 0, sizeof r);
    r.status = SR_COLLIDE_INVALID_SHAPE;
    r.normal = dv(0, 0, 1);
    if (out)
        *out = r;
}

/* The answer from the cores' closest points a, b (distance apart along `normal`, from A towards B).
 * Apart after the radii: the distance and the closest points. Overlapping: with `signed_depth`, the
 * depth along the normal (exact for cores apart: every deeper normal would cross them), else the
 * distance query's overlap (0 and a common point). */
static void result_from_cores(sr_collide_result *r, const core_pair *c, double ra, double rb, bool signed_depth,
                              sr_dvec3 origin)
{
    double total = c->distance - ra - rb;
    r->normal = c->normal;
    if (total > 0 || signed_depth) {
        r->hit = total <= 0;
        r->distance = total;
        r->point_a = dadd(dmadd(c->a, ra, c->normal), origin);
        r->point_b = dadd(dmadd(c->b, -rb, c->normal), origin);
        return;
    }
    /* one point inside both: on the segment between the cores' closest points, where the radii
     * overlap */
    r->hit = true;
    r->distance = 0;
    double t = fmax(0, fmin(c->distance, 0.5 * (c->distance - rb + ra)));
    r->point_a = r->point_b = dadd(dmadd(c->a, t, c->normal), origin);
}

/* The answer from the cores' depth along e's normal: the radii added along it. */
static void result_from_depth(sr_collide_result *r, const sr_epa_output *e, double ra, double rb, sr_dvec3 origin)
{
    double depth = e->depth + (ra + rb);
    r->hit = true;
    r->distance = depth > 0 ? -depth : 0;
    r->normal = e->normal;
    r->point_a = dadd(dmadd(e->point_a, ra, e->normal), origin);
    r->point_b = dadd(dmadd(e->point_b, -rb, e->normal), origin);
    if (depth <= 0) /* touching: one point */
        r->point_b = r->point_a;
}

/* A point core against a box, cylinder or cone in closed form (false for other pairs), with the
 * touching conventions of the GJK path below: cores within CORES_TOUCHING overlap (as GJK and
 * sr_collide_intersect call them); cores apart by more than CORES_CROSSING (or by more than the
 * radii) answer from their closest points; the rest by the depth (about 0 for cores touching). */
static bool solve_point_core(const sr_placed *pa, const sr_placed *pb, double scale, sr_dvec3 origin, bool signed_depth,
                             sr_collide_result *result)
{
    bool point_first;
    sr_point_core form;
    if (!point_pair(pa, pb, &point_first, &form))
        return false;
    sr_dvec3 point = (point_first ? pa : pb)->p[0];
    double d = form.distance;
    result->method = SR_COLLIDE_BY_CLOSED_FORM;
    if (d > CORES_TOUCHING * scale && (d > pa->radius + pb->radius || d > CORES_CROSSING * scale || !signed_depth)) {
        core_pair cores = {.a = point_first ? point : form.boundary,
                           .b = point_first ? form.boundary : point,
                           .distance = d,
                           .normal = point_first ? dneg(form.normal) : form.normal};
        result_from_cores(result, &cores, pa->radius, pb->radius, signed_depth, origin);
    } else if (!signed_depth) { /* the point is in both: the distance query's overlap */
        result->hit = true;
        result->normal = dv(0, 0, 1);
        result->point_a = result->point_b = dadd(point, origin);
    } else {
        sr_epa_output e;
        point_depth(point_first, point, &form, &e);
        result_from_depth(result, &e, pa->radius, pb->radius, origin);
    }
    return true;
}

/* ---- the queries ---- */

/* Distance (signed_depth false) or signed distance (true) of a valid pair, placed (pa, pb) in the
 * query's frame, whose origin is `origin`. */
static sr_collide_status solve_placed(const sr_shape *a, const sr_shape *b, const sr_placed *pa,
                                      const sr_placed *pb, sr_dvec3 origin, const sr_collide_options *options,
                                      bool signed_depth, sr_collide_result *out)
{
    sr_collide_result result;
    memset(&result, 0, sizeof result);
    sr_collide_trace *trace = options_trace(options);
    sr_trace_clear(trace);
    double scale = query_scale(pa, pb);
    core_pair cores;
    if (is_simple_core(pa) && is_simple_core(pb)) {
        simple_cores(pa, pb, scale, &cores);
        result.method = SR_COLLIDE_BY_CLOSED_FORM;
        result_from_cores(&result, &cores, pa->radius, pb->radius, signed_depth, origin);
        if (out)
            *out = result;
        return SR_COLLIDE_OK;
    }
    /* a traced query shows GJK's (and EPA's) steps: the closed form only answers untraced ones */
    if (!trace && solve_point_core(pa, pb, scale, origin, signed_depth, &result)) {
        if (out)
            *out = result;
        return SR_COLLIDE_OK;
    }
    int max_iterations = options_iterations(options);
    sr_gjk_output g;
    sr_gjk_distance(pa, pb, max_iterations, trace, origin, &g);
    result.method = SR_COLLIDE_BY_GJK;
    result.iterations = g.iterations;
    result.status = g.capped ? SR_COLLIDE_ITERATION_CAP : SR_COLLIDE_OK;
    double radius = pa->radius + pb->radius;
    bool cores_apart = !g.overlap && g.distance > 0;
    if (cores_apart && (g.distance > radius || g.distance > CORES_CROSSING * scale || !signed_depth)) {
        cores.a = g.point_a;
        cores.b = g.point_b;
        cores.distance = g.distance;
        cores.normal = dscale(g.closest, -1.0 / g.distance);
        result_from_cores(&result, &cores, pa->radius, pb->radius, signed_depth, origin);
    } else if (!signed_depth) {
        result.hit = true;
        result.normal = dv(0, 0, 1);
        result.point_a = result.point_b = dadd(g.point_a, origin);
    } else {
        /* the cores overlap (or touch): EPA on them, the radii added along its normal */
        sr_epa_output e;
        if (sat_depth(a, b, trace, origin, &e))
            result.method = SR_COLLIDE_BY_SAT;
        else if (point_in_axial(pa, pb, scale, &e) || coaxial_depth(pa, pb, scale, &e))
            result.method = SR_COLLIDE_BY_CLOSED_FORM;
        else {
            sr_epa_penetration(pa, pb, &g.simplex, max_iterations, trace, origin, &e);
            result.method = SR_COLLIDE_BY_EPA;
        }
        result.iterations += e.iterations;
        if (e.capped)
            result.status = SR_COLLIDE_ITERATION_CAP;
        result_from_depth(&result, &e, pa->radius, pb->radius, origin);
    }
    if (out)
        *out = result;
    return result.status;
}

/* solve_placed of two shapes (invalid: SR_COLLIDE_INVALID_SHAPE and a zeroed result). */
static sr_collide_status solve(const sr_shape *a, const sr_shape *b, const sr_collide_options *options,
                               bool signed_depth, sr_collide_result *out)
{
    sr_placed pa, pb;
    sr_dvec3 origin;
    if (!sr_pair_place(a, b, &pa, &pb, &origin)) {
        sr_trace_clear(options_trace(options));
        result_invalid(out);
        return SR_COLLIDE_INVALID_SHAPE;
    }
    return solve_placed(a, b, &pa, &pb, origin, options, signed_depth, out);
}

/* solve_placed of two placed shapes: the same placed forms as solve makes of their shapes. */
static sr_collide_status solve_shapes_placed(const sr_placed_shape *a, const sr_placed_shape *b,
                                             const sr_collide_options *options, bool signed_depth,
                                             sr_collide_result *out)
{
    sr_placed pa, pb;
    sr_dvec3 origin;
    if (!sr_pair_place_placed(a, b, &pa, &pb, &origin)) {
        sr_trace_clear(options_trace(options));
        result_invalid(out);
        return SR_COLLIDE_INVALID_SHAPE;
    }
    return solve_placed(&a->shape, &b->shape, &pa, &pb, origin, options, signed_depth, out);
}

sr_collide_status sr_collide_distance(const sr_shape *a, const sr_shape *b, const sr_collide_options *options,
                                      sr_collide_result *out)
{
    return solve(a, b, options, false, out);
}

sr_collide_status sr_collide_penetration(const sr_shape *a, const sr_shape *b, const sr_collide_options *options,
                                         sr_collide_result *out)
{
    return solve(a, b, options, true, out);
}

sr_collide_status sr_collide_signed_distance(const sr_shape *a, const sr_shape *b, const sr_collide_options *options,
                                             sr_collide_result *out)
{
    return solve(a, b, options, true, out);
}

sr_collide_status sr_collide_placed_distance(const sr_placed_shape *a, const sr_placed_shape *b,
                                             const sr_collide_options *options, sr_collide_result *out)
{
    return solve_shapes_placed(a, b, options, false, out);
}

sr_collide_status sr_collide_placed_penetration(const sr_placed_shape *a, const sr_placed_shape *b,
                                                const sr_collide_options *options, sr_collide_result *out)
{
    return solve_shapes_placed(a, b, options, true, out);
}

sr_collide_status sr_collide_placed_signed_distance(const sr_placed_shape *a, const sr_placed_shape *b,
                                                    const sr_collide_options *options, sr_collide_result *out)
{
    return solve_shapes_placed(a, b, options, true, out);
}
