/* collide_sat_check.h — the independent computation that test_collide_sat.c judges
 * sr_collide_sat by, and the checks of one pair. Each polytope is its world vertices; the brute
 * force projects all of them on every axis it tries:
 *  - the axes: every cross product of two directions between two vertices of the same or of
 *    either shape (a superset of the face normals of A - B, whose edges are such directions); the
 *    largest separation over them is the depth's exact value on overlap (-depth) for a solid
 *    A - B, and a lower bound of the distance when apart;
 *  - when A - B is flat (both shapes flat in one plane, or segments), the distance from the
 *    origin to A - B by enumerating every subset of up to three of its vertices
 *    (collide_brute.h), and depth 0 on overlap;
 *  - the distance when apart: the closest points of every vertex triple of one against every
 *    vertex of the other, and every vertex pair against every vertex pair (closest.c, tested on
 *    its own against a brute force);
 *  - the face planes of each shape: three vertices with every other on one side.
 * Header-only, for test_collide_sat.c. */
#ifndef SR_TESTS_COLLIDE_SAT_CHECK_H
#define SR_TESTS_COLLIDE_SAT_CHECK_H

#include "collide_brute.h"

#include <criterion/criterion.h>
#include <softrast/collide.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { MAX_VERTICES = 16 };

/* A test polytope: the shape (a hull's lives in `hull`) and its world vertices. */
typedef struct poly {
    sr_shape shape;
    sr_hull *hull;
    sr_dvec3 local[MAX_VERTICES];
    int local_count;
    sr_dvec3 world[MAX_VERTICES];
    int count;
} poly;

static inline void poly_place(poly *p, sr_pose pose)
{
    p->shape.pose = pose;
    p->count = p->local_count;
    for (int i = 0; i < p->count; i++)
        p->world[i] = sr_dvec3_add(sr_dquat_rotate(pose.rotation, p->local[i]), pose.position);
}

static inline void poly_free(poly *p)
{
    if (p->hull)
        sr_hull_destroy(p->hull);
    p->hull = NULL;
}

static inline void make_box(poly *p, sr_dvec3 h)
{
    memset(p, 0, sizeof *p);
    p->shape = sr_shape_box(h);
    for (int k = 0; k < 8; k++)
        p->local[k] = sr_dvec3_make(k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z);
    p->local_count = 8;
}

static inline void make_points_shape(poly *p, sr_shape_type type, const sr_dvec3 *points, int count)
{
    memset(p, 0, sizeof *p);
    if (type == SR_SHAPE_POINT)
        p->shape = sr_shape_point();
    else if (type == SR_SHAPE_SEGMENT)
        p->shape = sr_shape_segment(points[0], points[1]);
    else
        p->shape = sr_shape_triangle(points[0], points[1], points[2]);
    for (int i = 0; i < count; i++)
        p->local[i] = type == SR_SHAPE_POINT ? sr_dvec3_make(0, 0, 0) : points[i];
    p->local_count = count;
}

static inline void make_hull(poly *p, const sr_dvec3 *points, int count)
{
    memset(p, 0, sizeof *p);
    sr_error err;
    cr_assert_eq(sr_hull_create(points, (size_t)count, &p->hull, &err), SR_OK, "%s", err.message);
    p->shape = sr_shape_hull(p->hull);
    for (int i = 0; i < count; i++)
        p->local[i] = points[i];
    p->local_count = count;
}

/* ---- the brute force ---- */

static inline void interval(const poly *p, sr_dvec3 axis, double *low, double *high)
{
    *low = INFINITY;
    *high = -INFINITY;
    for (int i = 0; i < p->count; i++) {
        double d = sr_dvec3_dot(p->world[i], axis);
        *low = d < *low ? d : *low;
        *high = d > *high ? d : *high;
    }
}

/* separation along a unit axis oriented from A towards B */
static inline double separation_along(const poly *a, const poly *b, sr_dvec3 axis)
{
    double a_low, a_high, b_low, b_high;
    interval(a, axis, &a_low, &a_high);
    interval(b, axis, &b_low, &b_high);
    return b_low - a_high;
}

static inline double extent(const poly *p)
{
    double size = 0.0;
    for (int i = 0; i < p->count; i++)
        for (int j = 0; j < i; j++)
            size = fmax(size, sr_dvec3_length(sr_dvec3_sub(p->world[i], p->world[j])));
    return size;
}

typedef struct oracle {
    double best_separation; /* over the superset of axes, both ways */
    bool flat;              /* A - B is at most flat */
    double distance;        /* 0 on overlap */
    bool overlap;
} oracle;

static inline int directions(const poly *p, sr_dvec3 *out, int n)
{
    for (int i = 0; i < p->count; i++)
        for (int j = 0; j < i; j++) {
            sr_dvec3 d = sr_dvec3_sub(p->world[i], p->world[j]);
            if (!(sr_dvec3_length(d) > 0.0))
                continue;
            d = sr_dvec3_normalize(d);
            bool known = false; /* parallel to one already there: the same axes */
            for (int k = 0; k < n && !known; k++)
                known = sr_dvec3_length(sr_dvec3_cross(d, out[k])) < 1e-12;
            if (!known)
                out[n++] = d;
        }
    return n;
}

static inline double feature_distance(const poly *a, const poly *b)
{
    double best = INFINITY;
    for (int swap = 0; swap < 2; swap++) {
        const poly *p = swap ? b : a, *q = swap ? a : b;
        for (int i = 0; i < p->count; i++)
            for (int j = 0; j <= i; j++)
                for (int k = 0; k <= j; k++)
                    for (int v = 0; v < q->count; v++) {
                        sr_dvec3 c =
                            sr_collide_closest_point_triangle(q->world[v], p->world[i], p->world[j], p->world[k], NULL);
                        best = fmin(best, sr_dvec3_length(sr_dvec3_sub(c, q->world[v])));
                    }
    }
    for (int i = 0; i < a->count; i++)
        for (int j = 0; j <= i; j++)
            for (int k = 0; k < b->count; k++)
                for (int l = 0; l <= k; l++)
                    best = fmin(best, sqrt(sr_collide_closest_segment_segment(a->world[i], a->world[j], b->world[k],
                                                                              b->world[l], NULL, NULL)));
    return best;
}

static inline oracle brute_force(const poly *a, const poly *b)
{
    static sr_dvec3 dirs[2 * MAX_VERTICES * MAX_VERTICES];
    int n = directions(a, dirs, 0);
    n = directions(b, dirs, n);
    oracle o = {.best_separation = -INFINITY};
    double widest = 0.0;
    sr_dvec3 plane = {0, 0, 0};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            sr_dvec3 c = sr_dvec3_cross(dirs[i], dirs[j]);
            double length = sr_dvec3_length(c);
            if (!(length > 1e-9))
                continue;
            sr_dvec3 axis = sr_dvec3_scale(c, 1.0 / length);
            double s = fmax(separation_along(a, b, axis), separation_along(a, b, sr_dvec3_negate(axis)));
            o.best_separation = fmax(o.best_separation, s);
            if (length > widest) {
                widest = length;
                plane = axis;
            }
        }
    /* the rank of the directions: A - B is flat when all lie in the plane of the two that are the
     * farthest from parallel */
    double volume = 0.0;
    for (int k = 0; k < n; k++)
        volume = fmax(volume, fabs(sr_dvec3_dot(plane, dirs[k])));
    /* segments and points, or all directions in one plane */
    o.flat = o.best_separation == -INFINITY || volume < 1e-9;
    if (o.flat) {
        static sr_dvec3 differences[MAX_VERTICES * MAX_VERTICES];
        int m = 0;
        for (int i = 0; i < a->count; i++)
            for (int j = 0; j < b->count; j++)
                differences[m++] = sr_dvec3_sub(a->world[i], b->world[j]);
        o.distance = brute_closest_in_hull_k(sr_dvec3_make(0, 0, 0), differences, m, 3, NULL);
        o.overlap = o.distance <= 0.0;
        if (o.best_separation == -INFINITY)
            o.best_separation = o.distance;
    } else {
        o.overlap = o.best_separation <= 0.0;
        o.distance = o.overlap ? 0.0 : feature_distance(a, b);
    }
    return o;
}

/* ---- the checks ---- */

static inline double coordinate_scale(const poly *a, const poly *b)
{
    return fmax(brute_max_abs(a->world, a->count), brute_max_abs(b->world, b->count));
}

static inline void describe(const poly *p, char *out, size_t size)
{
    int n = snprintf(out, size, "%s pos (%.17g, %.17g, %.17g) rot (%.17g, %.17g, %.17g, %.17g) vertices",
                     sr_shape_type_name(p->shape.type), p->shape.pose.position.x, p->shape.pose.position.y,
                     p->shape.pose.position.z, p->shape.pose.rotation.x, p->shape.pose.rotation.y,
                     p->shape.pose.rotation.z, p->shape.pose.rotation.w);
    for (int i = 0; i < p->local_count && n > 0 && (size_t)n < size; i++)
        n += snprintf(out + n, size - (size_t)n, " [%.17g, %.17g, %.17g]", p->local[i].x, p->local[i].y, p->local[i].z);
}

#define PAIR_ASSERT(condition, ...)                                                                                    \
    do {                                                                                                               \
        if (!(condition)) {                                                                                            \
            char da[2048], db[2048];                                                                                   \
            describe(a, da, sizeof da);                                                                                \
            describe(b, db, sizeof db);                                                                                \
            cr_assert(condition, "%s (pair %d)\n  A: %s\n  B: %s", message_of(__VA_ARGS__), index, da, db);            \
        }                                                                                                              \
    } while (0)

static char message_buffer[512];
__attribute__((format(printf, 1, 2))) static const char *message_of(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(message_buffer, sizeof message_buffer, format, args);
    va_end(args);
    return message_buffer;
}

/* The largest separation, both ways, along the face normals of either shape found by brute force:
 * the planes through three vertices with every vertex on one side (a flat shape's plane too).
 * Found in the shape's own frame (small coordinates: a needle's planes are told from near-planes
 * tilted by its rounding), the normal then turned into the world. */
static inline double face_separation(const poly *a, const poly *b)
{
    double best = -INFINITY;
    for (int side = 0; side < 2; side++) {
        const poly *p = side ? b : a;
        const sr_dvec3 *v = p->local;
        double size = 0.0;
        for (int i = 0; i < p->local_count; i++)
            for (int j = 0; j < i; j++)
                size = fmax(size, sr_dvec3_length(sr_dvec3_sub(v[i], v[j])));
        for (int i = 0; i < p->local_count; i++)
            for (int j = i + 1; j < p->local_count; j++)
                for (int k = j + 1; k < p->local_count; k++) {
                    sr_dvec3 n = sr_dvec3_cross(sr_dvec3_sub(v[j], v[i]), sr_dvec3_sub(v[k], v[i]));
                    double length = sr_dvec3_length(n);
                    if (!(length > 1e-6 * size * size))
                        continue;
                    n = sr_dvec3_scale(n, 1.0 / length);
                    double at = sr_dvec3_dot(n, v[i]), low = at, high = at;
                    for (int m = 0; m < p->local_count; m++) {
                        double d = sr_dvec3_dot(n, v[m]);
                        low = fmin(low, d);
                        high = fmax(high, d);
                    }
                    if (high > at + 1e-12 * size && low < at - 1e-12 * size)
                        continue; /* vertices on both sides: no face */
                    sr_dvec3 world = sr_dquat_rotate(p->shape.pose.rotation, n);
                    best =
                        fmax(best, fmax(separation_along(a, b, world), separation_along(a, b, sr_dvec3_negate(world))));
                }
    }
    return best;
}

typedef struct check_stats {
    int hits, misses, near_touching;
} check_stats;

static inline void check_pair(const poly *a, const poly *b, int index, check_stats *stats)
{
    static sr_sat_axis axes[4096];
    sr_collide_trace trace = {.sat = axes, .sat_capacity = 4096};
    sr_collide_options options = {.trace = &trace};
    sr_collide_result result, again;
    sr_collide_status status = sr_collide_sat(&a->shape, &b->shape, &options, &result);
    PAIR_ASSERT(status == SR_COLLIDE_OK, "status %d", status);
    sr_collide_sat(&a->shape, &b->shape, NULL, &again);
    PAIR_ASSERT(memcmp(&result, &again, sizeof result) == 0, "a second call (untraced) answers differently");
    PAIR_ASSERT(trace.dropped == 0 && trace.sat_count > 0, "%zu axes traced, %zu dropped", trace.sat_count,
                trace.dropped);
    PAIR_ASSERT(result.method == SR_COLLIDE_BY_SAT, "method %d", result.method);

    double size = fmax(extent(a), extent(b));
    double tolerance = 1e-8 * size + 1e-13 * coordinate_scale(a, b);
    oracle o = brute_force(a, b);

    /* every traced axis, recomputed */
    double largest = -INFINITY;
    for (size_t i = 0; i < trace.sat_count; i++) {
        const sr_sat_axis *x = &axes[i];
        PAIR_ASSERT(fabs(sr_dvec3_length(x->axis) - 1.0) < 1e-12, "traced axis %zu is not unit", i);
        double a_low, a_high, b_low, b_high;
        interval(a, x->axis, &a_low, &a_high);
        interval(b, x->axis, &b_low, &b_high);
        PAIR_ASSERT(fabs(x->min_a - a_low) <= tolerance && fabs(x->max_a - a_high) <= tolerance &&
                        fabs(x->min_b - b_low) <= tolerance && fabs(x->max_b - b_high) <= tolerance,
                    "traced axis %zu (kind %d): intervals A [%.17g, %.17g] B [%.17g, %.17g], projected A [%.17g, "
                    "%.17g] B [%.17g, %.17g]",
                    i, x->kind, x->min_a, x->max_a, x->min_b, x->max_b, a_low, a_high, b_low, b_high);
        if (!o.flat || x->kind != SR_SAT_EDGE_EDGE || a->count > 2 || b->count > 2)
            PAIR_ASSERT(fabs(x->separation - (b_low - a_high)) <= tolerance,
                        "traced axis %zu (kind %d, features %d %d): separation %.17g, projected %.17g", i, x->kind,
                        x->feature_a, x->feature_b, x->separation, b_low - a_high);
        largest = fmax(largest, x->separation);
    }
    /* the answer is a traced axis, the largest but for the bias towards faces (1e-9 of the size) */
    bool traced = false;
    for (size_t i = 0; i < trace.sat_count; i++)
        traced |=
            axes[i].separation == result.distance || (result.distance == 0.0 && fabs(axes[i].separation) <= tolerance);
    PAIR_ASSERT(traced && result.distance >= fmin(largest - 1e-9 * size, 0.0),
                "the answer %.17g is not the largest traced separation %.17g", result.distance, largest);
    PAIR_ASSERT(fabs(sr_dvec3_length(result.normal) - 1.0) < 1e-12, "the normal is not unit");

    /* the verdict */
    bool near_touching =
        fabs(o.overlap ? o.best_separation : o.distance) <= tolerance || fabs(result.distance) <= tolerance;
    if (near_touching) {
        stats->near_touching++;
    } else {
        PAIR_ASSERT(result.hit == o.overlap,
                    "hit %d, the brute force says %s (its separation %.17g, distance "
                    "%.17g; ours %.17g)",
                    result.hit, o.overlap ? "overlap" : "apart", o.best_separation, o.distance, result.distance);
    }
    if (result.hit)
        stats->hits++;
    else
        stats->misses++;
    sr_dvec3 normal = result.normal;
    double along = separation_along(a, b, normal);
    PAIR_ASSERT(fabs(along - result.distance) <= tolerance,
                "the separation along the normal is %.17g, the answer %.17g", along, result.distance);
    double in_a = brute_closest_in_hull(result.point_a, a->world, a->count, NULL);
    double in_b = brute_closest_in_hull(result.point_b, b->world, b->count, NULL);
    if (result.hit) {
        double depth = -result.distance;
        if (!o.flat)
            PAIR_ASSERT(fabs(depth + o.best_separation) <= tolerance, "depth %.17g, the brute force's %.17g", depth,
                        -o.best_separation);
        else
            PAIR_ASSERT(depth <= tolerance, "depth %.17g of a flat Minkowski difference", depth);
        sr_dvec3 gap = sr_dvec3_sub(sr_dvec3_sub(result.point_a, result.point_b), sr_dvec3_scale(normal, depth));
        PAIR_ASSERT(sr_dvec3_length(gap) <= tolerance, "point_a - point_b is not depth * normal (off by %.3g)",
                    sr_dvec3_length(gap));
        PAIR_ASSERT(in_a <= 1e-6 * size + tolerance && in_b <= 1e-6 * size + tolerance,
                    "witness points outside their shapes by %.3g and %.3g", in_a, in_b);
        /* B moved by depth * normal touches A */
        if (!o.flat) {
            poly moved = *b;
            for (int i = 0; i < moved.count; i++)
                moved.world[i] = sr_dvec3_add(moved.world[i], sr_dvec3_scale(normal, depth));
            oracle after = brute_force(a, &moved);
            PAIR_ASSERT(fabs(after.best_separation) <= 2 * tolerance,
                        "B moved by depth * normal does not touch A (separation %.3g)", after.best_separation);
        }
    } else {
        PAIR_ASSERT(result.distance <= o.distance + tolerance, "separation %.17g exceeds the distance %.17g",
                    result.distance, o.distance);
        /* the largest separation over the axes: none of the face normals, either way, does better */
        double faces = face_separation(a, b);
        PAIR_ASSERT(result.distance >= faces - tolerance, "separation %.17g, but a face normal separates by %.17g",
                    result.distance, faces);
        PAIR_ASSERT(in_a <= 1e-6 * size + tolerance && in_b <= 1e-6 * size + tolerance,
                    "witness points outside their shapes by %.3g and %.3g", in_a, in_b);
        PAIR_ASSERT(sr_dvec3_dot(sr_dvec3_sub(result.point_b, result.point_a), normal) >= result.distance - tolerance,
                    "the witness points are closer along the normal than the separation");
    }
}

#endif
