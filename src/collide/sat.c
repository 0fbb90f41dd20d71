/* src/collide/sat.c — the separating-axis test of two polytopes (point, segment, triangle, box,
 * hull) with the minimum translation distance: the entry point, the specialised box-box (15 axes)
 * and triangle-box (13 axes) tests, pairs of points and segments by their closest points, the
 * trace of the axes, and the result. The generic test is in sat_poly.c, the witness points in
 * sat_witness.c. Part of collide: stands on math and core.
 *
 * Every separation is measured along a unit axis oriented from A towards B: the gap between A's
 * interval and B's (positive: apart along it; negative: the overlap, the translation of B along
 * the axis that makes them touch). The shapes overlap when no axis separates them, and the
 * minimum translation is along the axis of the largest separation (the least overlap): for
 * polytopes the faces of the Minkowski difference A - B are the face normals of each and the
 * crossing edge pairs, so that axis is exact. Computed in A's local frame, from its position. */
#include "sat_internal.h"

#include <float.h>
#include <string.h>

static bool is_polytope(sr_shape_type type)
{
    return type == SR_SHAPE_POINT || type == SR_SHAPE_SEGMENT || type == SR_SHAPE_TRIANGLE || type == SR_SHAPE_BOX ||
           type == SR_SHAPE_HULL;
}

static double comp(sr_dvec3 v, int i)
{
    return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

/* ---- traces ---- */

void sat_record(const sat_recorder *recorder, sr_sat_axis_kind kind, int feature_a, int feature_b, sr_dvec3 axis,
                double separation)
{
    sr_collide_trace *trace = recorder->trace;
    if (!trace->sat || trace->sat_count >= trace->sat_capacity) {
        trace->dropped++;
        return;
    }
    /* the intervals of the first and second shape in the first's frame, moved to the world by
     * the first's position along the world axis */
    const sat_poly *first = recorder->a, *second = recorder->b;
    const sat_relative *rel = recorder->rel;
    sr_dvec3 axis_second = sat_rotate_inverse(&rel->r, axis);
    sr_dvec3 world_axis = first->rotated ? sat_rotate(&first->m, axis) : axis;
    double shift = ddot(world_axis, dadd(recorder->origin, first->position));
    double first_max = ddot(sat_poly_support(first, axis), axis) + shift;
    double first_min = ddot(sat_poly_support(first, dneg(axis)), axis) + shift;
    double second_max = ddot(sat_b_to_a(rel, sat_poly_support(second, axis_second)), axis) + shift;
    double second_min = ddot(sat_b_to_a(rel, sat_poly_support(second, dneg(axis_second))), axis) + shift;
    sr_sat_axis *out = &trace->sat[trace->sat_count++];
    out->separation = separation;
    if (!recorder->swapped) {
        out->kind = kind;
        out->feature_a = feature_a;
        out->feature_b = feature_b;
        out->axis = world_axis;
        out->min_a = first_min;
        out->max_a = first_max;
        out->min_b = second_min;
        out->max_b = second_max;
        return;
    }
    /* the first shape is the caller's B: the axis from the caller's A to B is the opposite */
    out->kind = kind == SR_SAT_FACE_A ? SR_SAT_FACE_B : (kind == SR_SAT_FACE_B ? SR_SAT_FACE_A : kind);
    out->feature_a = feature_b;
    out->feature_b = feature_a;
    out->axis = dneg(world_axis);
    out->min_a = -second_max;
    out->max_a = -second_min;
    out->min_b = -first_max;
    out->max_b = -first_min;
}

/* ---- triangle against box ---- */

/* Akenine-Moeller's 13 axes in the box's frame (the box first): the box's 3 face normals, the
 * triangle's normal and the 9 cross products of their edge directions. Each axis line is tried
 * both ways: the triangle may lie on either side. A degenerate triangle drops the axes that
 * vanish (its normal, its zero-length edges): a segment's or a point's are what remain. */
static void triangle_box(const sat_poly *box, const sat_poly *triangle_poly, const sr_dvec3 *triangle,
                         const sat_relative *rel, const sat_recorder *recorder, sat_best *best)
{
    sr_dvec3 v[3];
    for (int k = 0; k < 3; k++)
        v[k] = sat_b_to_a(rel, triangle[k]);
    const double h[3] = {box->half_extents.x, box->half_extents.y, box->half_extents.z};
    double edge_bias = 1e-9 * fmax(box->size, triangle_poly->size);
    /* offer the line through `axis` (|axis|^2 = length_squared), both ways */
    for (int i = 0; i < 3; i++) { /* the box's faces */
        double low = fmin(comp(v[0], i), fmin(comp(v[1], i), comp(v[2], i)));
        double high = fmax(comp(v[0], i), fmax(comp(v[1], i), comp(v[2], i)));
        double up = low - h[i], down = -high - h[i];
        double sign = up >= down ? 1.0 : -1.0;
        sr_dvec3 axis = dv(i == 0 ? sign : 0.0, i == 1 ? sign : 0.0, i == 2 ? sign : 0.0);
        double separation = fmax(up, down);
        int face = 2 * i + (sign < 0.0);
        sat_offer(best, separation, axis, SR_SAT_FACE_A, face, -1, edge_bias);
        if (recorder)
            sat_record(recorder, SR_SAT_FACE_A, face, -1, axis, separation);
    }
    sr_dvec3 edges[3] = {dsub(v[1], v[0]), dsub(v[2], v[1]), dsub(v[0], v[2])};
    sr_dvec3 normal = dcross(edges[0], dsub(v[2], v[0]));
    double normal_squared = dlength_squared(normal);
    if (normal_squared > SAT_PARALLEL * SAT_PARALLEL * dlength_squared(edges[0]) * dlength_squared(edges[2])) {
        normal = dscale(normal, 1.0 / sqrt(normal_squared));
        double radius = h[0] * fabs(normal.x) + h[1] * fabs(normal.y) + h[2] * fabs(normal.z);
        double at = ddot(normal, v[0]);
        double up = at - radius, down = -at - radius;
        double sign = up >= down ? 1.0 : -1.0;
        sr_dvec3 axis = dscale(normal, sign);
        /* the triangle's side facing the box: face 1 (-n) when the axis is +n */
        int face = sign > 0.0 ? 1 : 0;
        double separation = fmax(up, down);
        sat_offer(best, separation, axis, SR_SAT_FACE_B, -1, face, edge_bias);
        if (recorder)
            sat_record(recorder, SR_SAT_FACE_B, -1, face, axis, separation);
    }
    for (int i = 0; i < 3; i++) { /* box axis i x triangle edge j */
        for (int j = 0; j < 3; j++) {
            sr_dvec3 e = edges[j];
            sr_dvec3 l = dcross(dv(i == 0, i == 1, i == 2), e);
            double length_squared = dlength_squared(l);
            if (!(length_squared > SAT_PARALLEL * SAT_PARALLEL * dlength_squared(e)))
                continue;
            double radius = h[0] * fabs(l.x) + h[1] * fabs(l.y) + h[2] * fabs(l.z);
            double p0 = ddot(l, v[0]), p1 = ddot(l, v[1]), p2 = ddot(l, v[2]);
            double low = fmin(p0, fmin(p1, p2)), high = fmax(p0, fmax(p1, p2));
            double up = low - radius, down = -high - radius;
            double inverse = 1.0 / sqrt(length_squared);
            double sign = up >= down ? 1.0 : -1.0;
            sr_dvec3 axis = dscale(l, sign * inverse);
            double separation = fmax(up, down) * inverse;
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
            int edge_box = 4 * i + (comp(axis, i1) > 0.0) + 2 * (comp(axis, i2) > 0.0);
            int edge_triangle = 3 * j; /* polygon edge j (sat_poly.c: 3 j is its top side) */
            sat_offer(best, separation, axis, SR_SAT_EDGE_EDGE, edge_box, edge_triangle, edge_bias);
            if (recorder)
                sat_record(recorder, SR_SAT_EDGE_EDGE, edge_box, edge_triangle, axis, separation);
        }
    }
}

/* ---- points and segments ---- */

/* Two shapes of at most one dimension each: their Minkowski difference is at most flat, so they
 * either touch (depth 0) or are apart by the distance of their closest points, along which the
 * one axis that tells it lies. */
static void low_dimensional(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_recorder *recorder,
                            sat_best *best, sr_dvec3 *point_a, sr_dvec3 *point_b)
{
    sr_dvec3 a0 = sat_poly_vertex(a, 0), a1 = sat_poly_vertex(a, a->vertex_count - 1);
    sr_dvec3 b0 = sat_b_to_a(rel, sat_poly_vertex(b, 0)), b1 = sat_b_to_a(rel, sat_poly_vertex(b, b->vertex_count - 1));
    sr_dvec3 ca, cb;
    double distance = sqrt(sr_collide_closest_segment_segment(a0, a1, b0, b1, &ca, &cb));
    sr_dvec3 axis;
    if (distance > 1e-12 * fmax(a->size, b->size)) {
        axis = dscale(dsub(cb, ca), 1.0 / distance);
    } else {
        /* touching, or apart by rounding whose direction means nothing: a normal of the plane
         * they span, or of the line, or +x */
        sr_dvec3 da = dsub(a1, a0), db = dsub(b1, b0);
        sr_dvec3 line = dlength_squared(da) >= dlength_squared(db) ? da : db;
        sr_dvec3 across = dcross(da, db);
        /* (the cross product of nearly parallel segments is rounding: its direction too) */
        bool crossing =
            dlength_squared(across) > SAT_PARALLEL * SAT_PARALLEL * dlength_squared(da) * dlength_squared(db);
        axis = crossing ? sr_dvec3_normalize(across) : dv(0, 0, 0);
        if (dlength_squared(axis) == 0.0 && dlength_squared(line) > 0.0) {
            sr_dvec3 helper = fabs(line.x) <= fabs(line.y) && fabs(line.x) <= fabs(line.z)
                                  ? dv(1, 0, 0)
                                  : (fabs(line.y) <= fabs(line.z) ? dv(0, 1, 0) : dv(0, 0, 1));
            axis = sr_dvec3_normalize(dcross(line, helper));
        }
        if (dlength_squared(axis) == 0.0)
            axis = dv(1, 0, 0);
    }
    int feature_a = a->dim == SAT_SEGMENT ? 0 : -1, feature_b = b->dim == SAT_SEGMENT ? 0 : -1;
    sat_offer(best, distance, axis, SR_SAT_EDGE_EDGE, feature_a, feature_b, 0.0);
    if (recorder)
        sat_record(recorder, SR_SAT_EDGE_EDGE, feature_a, feature_b, axis, distance);
    *point_a = ca;
    *point_b = distance > 0.0 ? cb : ca;
}

/* ---- the query ---- */

sr_collide_status sr_collide_sat(const sr_shape *a, const sr_shape *b, const sr_collide_options *options,
                                 sr_collide_result *out)
{
    sr_collide_result unused;
    if (!out) /* the caller wants only the status */
        out = &unused;
    memset(out, 0, sizeof *out);
    out->method = SR_COLLIDE_BY_SAT;
    out->normal = dv(1, 0, 0);
    sr_collide_trace *trace = options ? options->trace : NULL;
    if (trace) { /* a query starts its trace afresh */
        trace->gjk_count = trace->epa_vertex_count = trace->epa_face_count = trace->epa_count = 0;
        trace->sat_count = trace->dropped = 0;
    }
    if (!a || !b || sr_shape_validate(a, NULL) != SR_OK || sr_shape_validate(b, NULL) != SR_OK) {
        out->status = SR_COLLIDE_INVALID_SHAPE;
        return out->status;
    }
    if (!is_polytope(a->type) || !is_polytope(b->type) || a->rounding > 0.0 || b->rounding > 0.0) {
        out->status = SR_COLLIDE_UNSUPPORTED;
        return out->status;
    }
    sr_dvec3 origin = a->pose.position;
    sat_poly poly_a, poly_b;
    sat_poly_make(a, origin, &poly_a);
    sat_poly_make(b, origin, &poly_b);
    /* The test runs on (first, second) in the first's frame; the triangle-box test wants the box
     * first, and then the caller's A is second. */
    bool triangle_and_box = (a->type == SR_SHAPE_TRIANGLE && poly_a.dim == SAT_FLAT && b->type == SR_SHAPE_BOX) ||
                            (a->type == SR_SHAPE_BOX && b->type == SR_SHAPE_TRIANGLE && poly_b.dim == SAT_FLAT);
    bool swapped = triangle_and_box && a->type == SR_SHAPE_TRIANGLE;
    const sat_poly *first = swapped ? &poly_b : &poly_a, *second = swapped ? &poly_a : &poly_b;
    sat_relative rel;
    sat_relative_make(first, second, &rel);
    sat_recorder recorder = {trace, first, second, &rel, origin, swapped};
    const sat_recorder *record = trace ? &recorder : NULL;
    sat_best best = {.separation = -INFINITY, .axis = dv(1, 0, 0), .feature_a = -1, .feature_b = -1};
    sr_dvec3 point_first, point_second;
    /* A separation within the rounding of the coordinates (8 ulps of the shapes' sizes and their
     * distance) is a touch: coplanar faces, flat shapes lying in one plane, segments that cross. */
    double touching = 8.0 * DBL_EPSILON * (first->size + second->size + dlength(rel.t));
    if (first->dim <= SAT_SEGMENT && second->dim <= SAT_SEGMENT) {
        low_dimensional(first, second, &rel, record, &best, &point_first, &point_second);
        if (fabs(best.separation) <= touching) {
            best.separation = 0.0;
            point_second = point_first;
        }
    } else {
        bool boxes = a->type == SR_SHAPE_BOX && b->type == SR_SHAPE_BOX;
        if (boxes)
            sat_box_box(first, second, &rel, record, &best);
        else if (triangle_and_box)
            triangle_box(first, second, second->points, &rel, record, &best);
        else
            sat_generic(first, second, &rel, record, &best);
        if (fabs(best.separation) <= touching)
            best.separation = 0.0;
        if (!boxes || !sat_box_box_witness(first, second, &rel, &best, &point_first, &point_second))
            sat_witness(first, second, &rel, best.axis, best.separation, &point_first, &point_second);
    }
    /* back to the world, and to the caller's order */
    sr_dvec3 normal = first->rotated ? sat_rotate(&first->m, best.axis) : best.axis;
    sr_dvec3 shift = dadd(first->position, origin);
    sr_dvec3 world_first = dadd(first->rotated ? sat_rotate(&first->m, point_first) : point_first, shift);
    sr_dvec3 world_second = dadd(first->rotated ? sat_rotate(&first->m, point_second) : point_second, shift);
    out->status = SR_COLLIDE_OK;
    out->hit = best.separation <= 0.0;
    out->distance = best.separation;
    out->normal = swapped ? dneg(normal) : normal;
    out->point_a = swapped ? world_second : world_first;
    out->point_b = swapped ? world_first : world_second;
    out->iterations = best.tested;
    return out->status;
}
