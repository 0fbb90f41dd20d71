/* tests/collide_oracle_solve.c — the oracle's answer for a pair (collide_oracle.h): exact for
 * polytope cores plus radii (every feature pair for the distance, every candidate axis of the
 * Minkowski difference for the depth), certified bounds otherwise (collide_oracle_bound.c). */
#include "collide_oracle_internal.h"

#include <string.h>

double oracle_tolerance(double size, double s)
{
    return s >= 0.0 ? 1e-4 * fmax(size, s) : fmax(1e-3 * -s, 1e-4 * size);
}

double oracle_depth_along(const oracle_body *a, const oracle_body *b, sr_dvec3 n)
{
    return vdot(n, oracle_support(a, n)) - vdot(n, oracle_support(b, vscale(n, -1.0)));
}

double oracle_pair_size(const oracle_body *a, const oracle_body *b)
{
    if (a->size > 0.0 && b->size > 0.0)
        return fmin(a->size, b->size);
    return fmax(a->size, b->size);
}

void oracle_pair_prepare(oracle_pair *pair, const oracle_shape *a, const oracle_shape *b)
{
    if (&pair->a != a)
        pair->a = *a;
    if (&pair->b != b)
        pair->b = *b;
    pair->origin = vscale(vadd(a->pose.position, b->pose.position), 0.5);
    oracle_body_make(&pair->a, pair->origin, &pair->body_a);
    oracle_body_make(&pair->b, pair->origin, &pair->body_b);
    /* Two points have no size: a floor well above the rounding of their world coordinates (the
     * tolerance, 1e-4 of it, is then 1e-13 of the coordinates; a hull's points may lie far from
     * its position). */
    double far = 0.0;
    for (int k = 0; k < 6; k++) {
        sr_dvec3 axis = v3(k % 3 == 0, k % 3 == 1, k % 3 == 2);
        if (k >= 3)
            axis = vscale(axis, -1.0);
        far = fmax(far, fmax(vmax_abs(vadd(oracle_support(&pair->body_a, axis), pair->origin)),
                             vmax_abs(vadd(oracle_support(&pair->body_b, axis), pair->origin))));
    }
    pair->size = fmax(oracle_pair_size(&pair->body_a, &pair->body_b), 1e-9 * (1.0 + far));
}

/* ---- polytope cores ---- */

/* h(n) of the cores' Minkowski difference P - Q (n unit). */
static double core_depth_along(const oracle_poly *p, const oracle_poly *q, sr_dvec3 n)
{
    return oracle_poly_support(p, n, NULL) + oracle_poly_support(q, vscale(n, -1.0), NULL);
}

typedef struct axis_search {
    double min_all, min_faces; /* smallest h over every candidate, over face normals */
    sr_dvec3 best;             /* the candidate of min_all */
} axis_search;

static void try_axis(const oracle_poly *p, const oracle_poly *q, sr_dvec3 n, bool face, axis_search *s)
{
    for (int sign = 0; sign < 2; sign++, n = vscale(n, -1.0)) {
        double h = core_depth_along(p, q, n);
        if (h < s->min_all) {
            s->min_all = h;
            s->best = n;
        }
        if (face && h < s->min_faces)
            s->min_faces = h;
    }
}

/* SAT over every candidate axis of P - Q: face normals of both (a flat core's two sides), and
 * the cross products of an edge of each. Their smallest h is the depth when P - Q is a solid
 * containing the origin, and minus the largest separation SAT can see otherwise. */
static axis_search search_axes(const oracle_poly *p, const oracle_poly *q)
{
    axis_search s = {INFINITY, INFINITY, v3(0, 0, 1)};
    for (int f = 0; f < p->face_count; f++)
        try_axis(p, q, p->faces[f].normal, true, &s);
    for (int f = 0; f < q->face_count; f++)
        try_axis(p, q, q->faces[f].normal, true, &s);
    for (int i = 0; i < p->edge_count; i++) {
        sr_dvec3 e = vsub(p->vertices[p->edges[i][1]], p->vertices[p->edges[i][0]]);
        for (int j = 0; j < q->edge_count; j++) {
            sr_dvec3 g = vsub(q->vertices[q->edges[j][1]], q->vertices[q->edges[j][0]]);
            sr_dvec3 c = vcross(e, g);
            double length = vlen(c);
            if (length > 1e-12 * vlen(e) * vlen(g))
                try_axis(p, q, vscale(c, 1.0 / length), false, &s);
        }
    }
    return s;
}

/* Whether P - Q spans space (it has an inside, so a depth): a solid core, or two flat ones in
 * planes that are not parallel, or a flat one and a segment across its plane. */
static bool difference_is_solid(const oracle_poly *p, const oracle_poly *q)
{
    if (p->dimension == 3 || q->dimension == 3)
        return true;
    if (p->dimension == 2 && q->dimension == 2)
        return vlen(vcross(p->axis, q->axis)) > 1e-12;
    if ((p->dimension == 2 && q->dimension == 1) || (p->dimension == 1 && q->dimension == 2))
        return fabs(vdot(p->axis, q->axis)) > 1e-12;
    return false;
}

/* The distance of two polytopes when they are apart, 0 when they meet: the smallest over
 * vertex-to-solid (vertex inside the other: 0), edge-edge, and edge-crossing-face pairs. Two
 * disjoint polytopes have closest points on a vertex and anything, or on two edges; two that
 * meet have a vertex inside the other, two edges touching, or an edge through a face. */
static double feature_distance(const oracle_poly *p, const oracle_poly *q, sr_dvec3 *cp, sr_dvec3 *cq)
{
    double best = INFINITY;
    for (int i = 0; i < p->vertex_count; i++) {
        sr_dvec3 c;
        double d = oracle_poly_distance(q, p->vertices[i], &c);
        if (d < best) {
            best = d;
            *cp = p->vertices[i];
            *cq = c;
        }
    }
    for (int i = 0; i < q->vertex_count; i++) {
        sr_dvec3 c;
        double d = oracle_poly_distance(p, q->vertices[i], &c);
        if (d < best) {
            best = d;
            *cp = c;
            *cq = q->vertices[i];
        }
    }
    if (best == 0.0)
        return 0.0;
    for (int i = 0; i < p->edge_count; i++)
        for (int j = 0; j < q->edge_count; j++) {
            sr_dvec3 a, b;
            double d = oracle_segment_segment(p->vertices[p->edges[i][0]], p->vertices[p->edges[i][1]],
                                              q->vertices[q->edges[j][0]], q->vertices[q->edges[j][1]], &a, &b);
            if (d < best) {
                best = d;
                *cp = a;
                *cq = b;
            }
        }
    for (int pass = 0; pass < 2 && best > 0.0; pass++) {
        const oracle_poly *edges = pass ? q : p, *faces = pass ? p : q;
        int face_count = faces->dimension == 2 ? 1 : faces->face_count;
        for (int i = 0; i < edges->edge_count && best > 0.0; i++)
            for (int f = 0; f < face_count; f++) {
                sr_dvec3 x;
                if (oracle_segment_crosses_face(faces, &faces->faces[f], edges->vertices[edges->edges[i][0]],
                                                edges->vertices[edges->edges[i][1]], &x)) {
                    best = 0.0;
                    *cp = *cq = x;
                    break;
                }
            }
    }
    return best;
}

static bool rounded_or_curved(const oracle_body *body)
{
    return body->radius > 0.0 || body->type == SR_SHAPE_SPHERE || body->type == SR_SHAPE_CAPSULE ||
           body->type == SR_SHAPE_CYLINDER || body->type == SR_SHAPE_CONE;
}

void oracle_solve_polytopes(const oracle_body *a, const oracle_body *b, double size, oracle_answer *out)
{
    const oracle_poly *p = &a->poly, *q = &b->poly;
    memset(out, 0, sizeof *out);
    out->exact = out->certified = true;
    out->size = size;
    sr_dvec3 cp = p->vertices[0], cq = q->vertices[0];
    double apart = feature_distance(p, q, &cp, &cq);
    axis_search axes = search_axes(p, q);
    double core;
    sr_dvec3 n;
    if (apart > 0.0) {
        core = apart;
        n = vscale(vsub(cq, cp), 1.0 / apart);
    } else {
        core = difference_is_solid(p, q) ? -fmax(axes.min_all, 0.0) : 0.0;
        n = axes.best;
        if (core < 0.0) { /* witnesses: the deepest points along n */
            oracle_poly_support(p, n, &cp);
            oracle_poly_support(q, vscale(n, -1.0), &cq);
        }
    }
    double s = core - (a->radius + b->radius);
    out->lo = out->hi = out->distance = s;
    out->normal = n;
    out->point_a = vmadd(cp, n, a->radius);
    out->point_b = vmadd(cq, n, -b->radius);
    if (!rounded_or_curved(a) && !rounded_or_curved(b)) {
        out->sat_separation = -axes.min_all;
        out->sat_face_separation = -axes.min_faces;
    } else {
        out->sat_separation = out->sat_face_separation = NAN;
    }
}

void oracle_solve_bodies(const oracle_body *a, const oracle_body *b, double size, oracle_answer *out)
{
    if (a->polytope && b->polytope)
        oracle_solve_polytopes(a, b, size, out);
    else
        oracle_solve_bound(a, b, size, out);
}

static bool same_shape(const oracle_shape *a, const oracle_shape *b)
{
    return a->type == b->type && a->radius == b->radius && a->half_height == b->half_height &&
           a->rounding == b->rounding && memcmp(&a->pose, &b->pose, sizeof a->pose) == 0;
}

/* A cylinder or cone against itself at the same pose: A - A is symmetric, and the depth is the
 * least width of A, h_A(n) + h_A(-n), over directions n; by symmetry about the axis a function of
 * the angle phi to the axis, on [0, pi/2]. Cylinder: 2H cos + 2R sin, concave: least at an end,
 * 2H or 2R. Cone: max(2H cos + R sin, 2R sin), the larger of two concave functions: least at an
 * end (2H, 2R) or where they cross (tan phi = 2H / R: 4RH / sqrt(R^2 + 4H^2)). A branch and bound
 * would find it only slowly: the least width is reached on a whole circle of directions. */
static bool solve_identical(const oracle_pair *pair, oracle_answer *out)
{
    const oracle_body *a = &pair->body_a;
    if (!same_shape(&pair->a, &pair->b) || a->polytope ||
        (pair->a.type != SR_SHAPE_CYLINDER && pair->a.type != SR_SHAPE_CONE))
        return false;
    double r = a->core_radius, h = a->half_height;
    double width = 2.0 * h, phi = 0.0;
    if (2.0 * r < width) {
        width = 2.0 * r;
        phi = 0.5 * M_PI;
    }
    if (pair->a.type == SR_SHAPE_CONE) {
        double crossing = 4.0 * r * h / sqrt(r * r + 4.0 * h * h);
        if (crossing < width) {
            width = crossing;
            phi = atan2(2.0 * h, r);
        }
    }
    memset(out, 0, sizeof *out);
    out->exact = out->certified = true;
    out->size = pair->size;
    out->lo = out->hi = out->distance = -(width + 2.0 * a->radius);
    out->normal = oracle_mat_apply(a->rotation, v3(sin(phi), 0.0, cos(phi)));
    out->point_a = oracle_support(a, out->normal);
    out->point_b = oracle_support(&pair->body_b, vscale(out->normal, -1.0));
    out->sat_separation = out->sat_face_separation = NAN;
    return true;
}

void oracle_solve(const oracle_pair *pair, oracle_answer *out)
{
    if (!solve_identical(pair, out))
        oracle_solve_bodies(&pair->body_a, &pair->body_b, pair->size, out);
    out->point_a = vadd(out->point_a, pair->origin);
    out->point_b = vadd(out->point_b, pair->origin);
}
