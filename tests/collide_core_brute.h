/* collide_core_brute.h — exact answers for the core queries' tests, computed without GJK, EPA or
 * SAT: polytopes in world space (a shape's vertices moved by its pose, their hull by
 * sr_hull_create, which test_collide_hull.c checks by brute force), the distance between two
 * polytopes from every feature pair (vertex-face, edge-edge, edge-face crossings, a vertex inside),
 * the penetration depth of two solid polytopes as the smallest overlap over every candidate axis of
 * their Minkowski difference (face normals of each, edge x edge), and the distance from a point to
 * each curved shape in its own frame. Header-only; test helpers, not the library. */
#ifndef SR_TESTS_COLLIDE_CORE_BRUTE_H
#define SR_TESTS_COLLIDE_CORE_BRUTE_H

#include "collide_core_helpers.h"

#include <criterion/criterion.h>

#include <stdlib.h>

/* ---- points, segments, polygons ---- */

static inline double brute_point_segment(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b, sr_dvec3 *closest)
{
    sr_dvec3 ab = vsub(b, a);
    double l = vdot(ab, ab);
    double t = l > 0 ? vdot(vsub(p, a), ab) / l : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    sr_dvec3 c = vadd(a, vscale(ab, t));
    if (closest)
        *closest = c;
    return vdistance(p, c);
}

/* Segment-segment distance by minimising over one parameter with the other solved exactly (the
 * distance from a point on the first to the second segment is convex in the parameter): golden
 * section on [0, 1], then the endpoints. Slow and independent of the library's closed forms. */
static inline double brute_segment_segment(sr_dvec3 p1, sr_dvec3 q1, sr_dvec3 p2, sr_dvec3 q2, sr_dvec3 *c1,
                                           sr_dvec3 *c2)
{
    double lo = 0, hi = 1;
    const double g = 0.5 * (sqrt(5.0) - 1);
    sr_dvec3 d1 = vsub(q1, p1);
    for (int k = 0; k < 80; k++) { /* 0.618^80: 2e-17 of the segment */
        double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
        double f1 = brute_point_segment(vadd(p1, vscale(d1, m1)), p2, q2, NULL);
        double f2 = brute_point_segment(vadd(p1, vscale(d1, m2)), p2, q2, NULL);
        if (f1 <= f2)
            hi = m2;
        else
            lo = m1;
    }
    double best = INFINITY;
    const double candidates[3] = {0.5 * (lo + hi), 0, 1};
    for (int k = 0; k < 3; k++) {
        sr_dvec3 a = vadd(p1, vscale(d1, candidates[k])), b;
        double d = brute_point_segment(a, p2, q2, &b);
        if (d < best) {
            best = d;
            if (c1)
                *c1 = a;
            if (c2)
                *c2 = b;
        }
    }
    return best;
}

/* ---- polytopes ---- */

typedef struct brute_poly {
    sr_hull *hull; /* in world space */
    sr_hull_view view;
} brute_poly;

/* The polytope of a point, segment, triangle, box or hull shape (its core: rounding ignored). */
static inline brute_poly brute_poly_of(const sr_shape *s)
{
    sr_dvec3 local[64];
    const sr_dvec3 *points = local;
    size_t n = 0;
    sr_dvec3 *moved = NULL;
    switch (s->type) {
    case SR_SHAPE_POINT:
    case SR_SHAPE_SPHERE:
        local[n++] = v3(0, 0, 0);
        break;
    case SR_SHAPE_SEGMENT:
        local[n++] = s->points[0];
        local[n++] = s->points[1];
        break;
    case SR_SHAPE_CAPSULE:
        local[n++] = v3(0, 0, -s->half_height);
        local[n++] = v3(0, 0, s->half_height);
        break;
    case SR_SHAPE_TRIANGLE:
        for (int i = 0; i < 3; i++)
            local[n++] = s->points[i];
        break;
    case SR_SHAPE_BOX:
        for (int c = 0; c < 8; c++)
            local[n++] =
                v3(c & 1 ? s->half_extents.x : -s->half_extents.x, c & 2 ? s->half_extents.y : -s->half_extents.y,
                   c & 4 ? s->half_extents.z : -s->half_extents.z);
        break;
    case SR_SHAPE_HULL: {
        sr_hull_view v = sr_hull_get_view(s->hull);
        points = v.vertices;
        n = v.vertex_count;
        break;
    }
    default:
        cr_assert_fail("brute_poly_of: %s is not a polytope", sr_shape_type_name(s->type));
    }
    moved = malloc(n * sizeof *moved);
    for (size_t i = 0; i < n; i++)
        moved[i] = sr_pose_apply(s->pose, points[i]);
    brute_poly p;
    cr_assert_eq(sr_hull_create(moved, n, &p.hull, NULL), SR_OK);
    p.view = sr_hull_get_view(p.hull);
    free(moved);
    return p;
}

static inline void brute_poly_free(brute_poly *p)
{
    sr_hull_destroy(p->hull);
}

static inline bool brute_inside_polygon(const sr_hull_view *v, const sr_hull_face *f, sr_dvec3 p)
{
    const uint32_t *loop = v->face_vertices + f->first;
    for (uint32_t k = 0; k < f->count; k++) {
        sr_dvec3 a = v->vertices[loop[k]], b = v->vertices[loop[(k + 1) % f->count]];
        if (vdot(vcross(vsub(b, a), vsub(p, a)), f->normal) < 0)
            return false;
    }
    return true;
}

/* Distance from p to a polytope's boundary features (faces, edges, vertices), and whether p is
 * inside a solid one. */
static inline double brute_point_poly(sr_dvec3 p, const brute_poly *q, sr_dvec3 *closest)
{
    const sr_hull_view *v = &q->view;
    if (v->dimension == 3) {
        bool inside = true;
        for (size_t f = 0; f < v->face_count && inside; f++)
            inside = vdot(v->faces[f].normal, p) <= v->faces[f].offset;
        if (inside) {
            if (closest)
                *closest = p;
            return 0;
        }
    }
    double best = INFINITY;
    for (size_t f = 0; f < v->face_count; f++) {
        const sr_hull_face *face = &v->faces[f];
        double h = vdot(face->normal, p) - face->offset;
        sr_dvec3 projected = vsub(p, vscale(face->normal, h));
        if (brute_inside_polygon(v, face, projected) && fabs(h) < best) {
            best = fabs(h);
            if (closest)
                *closest = projected;
        }
    }
    for (size_t e = 0; e < v->edge_count; e++) {
        sr_dvec3 c;
        double d = brute_point_segment(p, v->vertices[v->edges[2 * e]], v->vertices[v->edges[2 * e + 1]], &c);
        if (d < best) {
            best = d;
            if (closest)
                *closest = c;
        }
    }
    for (size_t i = 0; i < v->vertex_count; i++) {
        double d = vdistance(p, v->vertices[i]);
        if (d < best) {
            best = d;
            if (closest)
                *closest = v->vertices[i];
        }
    }
    return best;
}

/* Whether segment ab crosses a face of q (its plane within the polygon). */
static inline bool brute_segment_crosses_poly(sr_dvec3 a, sr_dvec3 b, const brute_poly *q)
{
    const sr_hull_view *v = &q->view;
    for (size_t f = 0; f < v->face_count; f++) {
        const sr_hull_face *face = &v->faces[f];
        double ha = vdot(face->normal, a) - face->offset, hb = vdot(face->normal, b) - face->offset;
        if ((ha > 0 && hb > 0) || (ha < 0 && hb < 0) || ha == hb)
            continue;
        sr_dvec3 x = vadd(a, vscale(vsub(b, a), ha / (ha - hb)));
        if (brute_inside_polygon(v, face, x))
            return true;
    }
    return false;
}

/* The exact distance between two polytopes (0 when they touch or overlap). */
static inline double brute_poly_distance(const brute_poly *p, const brute_poly *q)
{
    double best = INFINITY;
    const brute_poly *pair[2] = {p, q};
    for (int side = 0; side < 2; side++) {
        const brute_poly *one = pair[side], *other = pair[1 - side];
        for (size_t i = 0; i < one->view.vertex_count; i++)
            best = fmin(best, brute_point_poly(one->view.vertices[i], other, NULL));
        for (size_t e = 0; e < one->view.edge_count; e++)
            if (brute_segment_crosses_poly(one->view.vertices[one->view.edges[2 * e]],
                                           one->view.vertices[one->view.edges[2 * e + 1]], other))
                return 0;
    }
    for (size_t e = 0; e < p->view.edge_count; e++)
        for (size_t f = 0; f < q->view.edge_count; f++)
            best = fmin(best, brute_segment_segment(p->view.vertices[p->view.edges[2 * e]],
                                                    p->view.vertices[p->view.edges[2 * e + 1]],
                                                    q->view.vertices[q->view.edges[2 * f]],
                                                    q->view.vertices[q->view.edges[2 * f + 1]], NULL, NULL));
    return best;
}

/* Largest separation of two vertex sets along a unit axis: (min of q) - (max of p) along it. */
static inline double brute_separation(const brute_poly *p, const brute_poly *q, sr_dvec3 axis)
{
    double p_max = -INFINITY, q_min = INFINITY;
    for (size_t i = 0; i < p->view.vertex_count; i++)
        p_max = fmax(p_max, vdot(p->view.vertices[i], axis));
    for (size_t i = 0; i < q->view.vertex_count; i++)
        q_min = fmin(q_min, vdot(q->view.vertices[i], axis));
    return q_min - p_max;
}

/* Penetration depth of two overlapping solid polytopes: the smallest overlap over the face
 * normals of each and every edge x edge direction (both orientations). *normal receives the axis
 * from p towards q along which it is reached. */
static inline double brute_poly_depth(const brute_poly *p, const brute_poly *q, sr_dvec3 *normal)
{
    double best = INFINITY;
    const brute_poly *pair[2] = {p, q};
    for (int side = 0; side < 2; side++)
        for (size_t f = 0; f < pair[side]->view.face_count; f++)
            for (int sign = -1; sign <= 1; sign += 2) {
                sr_dvec3 axis = vscale(pair[side]->view.faces[f].normal, sign);
                double overlap = -brute_separation(p, q, axis);
                if (overlap < best) {
                    best = overlap;
                    *normal = axis;
                }
            }
    for (size_t e = 0; e < p->view.edge_count; e++)
        for (size_t f = 0; f < q->view.edge_count; f++) {
            sr_dvec3 d1 = vsub(p->view.vertices[p->view.edges[2 * e + 1]], p->view.vertices[p->view.edges[2 * e]]);
            sr_dvec3 d2 = vsub(q->view.vertices[q->view.edges[2 * f + 1]], q->view.vertices[q->view.edges[2 * f]]);
            sr_dvec3 c = vcross(d1, d2);
            double l = vlength(c);
            if (l < 1e-9 * vlength(d1) * vlength(d2))
                continue;
            for (int sign = -1; sign <= 1; sign += 2) {
                sr_dvec3 axis = vscale(c, sign / l);
                double overlap = -brute_separation(p, q, axis);
                if (overlap < best) {
                    best = overlap;
                    *normal = axis;
                }
            }
        }
    return best;
}

/* ---- curved shapes: distance from a world point to the core, in the shape's frame ---- */

static inline double brute_point_core(const sr_shape *s, sr_dvec3 world)
{
    sr_dvec3 q = sr_pose_apply_inverse(s->pose, world);
    switch (s->type) {
    case SR_SHAPE_POINT:
    case SR_SHAPE_SPHERE:
        return vlength(q);
    case SR_SHAPE_BOX: {
        sr_dvec3 h = s->half_extents;
        return vlength(v3(fmax(fabs(q.x) - h.x, 0), fmax(fabs(q.y) - h.y, 0), fmax(fabs(q.z) - h.z, 0)));
    }
    case SR_SHAPE_CAPSULE:
        return brute_point_segment(q, v3(0, 0, -s->half_height), v3(0, 0, s->half_height), NULL);
    case SR_SHAPE_CYLINDER: {
        double rho = sqrt(q.x * q.x + q.y * q.y);
        return hypot(fmax(rho - s->radius, 0), fmax(fabs(q.z) - s->half_height, 0));
    }
    case SR_SHAPE_CONE: {
        double h = s->half_height, r = s->radius, rho = sqrt(q.x * q.x + q.y * q.y);
        if (fabs(q.z) <= h && rho <= r * (h - q.z) / (2 * h))
            return 0;
        /* the axial section: triangle apex (0, h), rim (r, -h), base centre (0, -h) */
        sr_dvec3 p = v3(rho, q.z, 0);
        double a = brute_point_segment(p, v3(0, h, 0), v3(r, -h, 0), NULL);
        double b = brute_point_segment(p, v3(r, -h, 0), v3(0, -h, 0), NULL);
        return fmin(a, b);
    }
    default:
        cr_assert_fail("brute_point_core: %s", sr_shape_type_name(s->type));
        return 0;
    }
}

#endif
