/* collide_bounds_check.h — what the tests of the bounding volumes share (test_collide_bounds.c,
 * test_collide_obb.c): point sets of every kind (clouds, duplicates, lines, planes, spheres, box
 * corners, one point, far from the origin, tiny), random shapes of every type, an analytic support
 * function per shape type that shares no code with the module's, and the brute-force minimal
 * ball of a few points (the smallest of the balls through every 2, 3 and 4 of them that holds
 * them all). Header-only. */
#ifndef SR_TESTS_COLLIDE_BOUNDS_CHECK_H
#define SR_TESTS_COLLIDE_BOUNDS_CHECK_H

#include "collide_brute.h"

#include <criterion/criterion.h>
#include <softrast/collide.h>

#include <math.h>

/* ---- point sets for the tests ---- */

enum { SET_KINDS = 9 };

/* A point set of kind `kind` (random cloud, duplicates, collinear, coplanar, cospherical, box
 * corners, one point, far from the origin, tiny), `count` points at most; returns the count. */
static inline size_t make_set(rng *r, int kind, size_t count, sr_dvec3 *out)
{
    sr_dvec3 centre = rng_dvec3(r, -2, 2);
    sr_dvec3 u = rng_unit_dvec3(r), v = sr_dvec3_normalize(sr_dvec3_cross(u, rng_unit_dvec3(r)));
    for (size_t i = 0; i < count; i++) {
        sr_dvec3 p;
        switch (kind) {
        case 0:
            p = rng_dvec3(r, -1, 1);
            break;
        case 1:
            p = i > 0 && i % 3 ? out[i / 2] : rng_dvec3(r, -1, 1);
            break; /* duplicates */
        case 2:
            p = sr_dvec3_scale(u, rng_double_range(r, -1, 1));
            break; /* on a line */
        case 3:    /* in a plane */
        {
            double a = rng_double_range(r, -1, 1);
            double b = rng_double_range(r, -1, 1);
            p = sr_dvec3_add(sr_dvec3_scale(u, a), sr_dvec3_scale(v, b));
            break;
        }
        case 4:
            p = rng_unit_dvec3(r);
            break; /* on a sphere */
        case 5:
            p = sr_dvec3_make(i & 1 ? 1 : -1, i & 2 ? 0.5 : -0.5, i & 4 ? 2 : -2);
            break; /* box corners */
        case 6:
            p = sr_dvec3_make(0.25, -0.5, 3);
            break; /* one point */
        case 7:
            p = sr_dvec3_add(sr_dvec3_make(1e3, -1e3, 1e3), rng_dvec3(r, -1, 1));
            break; /* far away */
        default:
            p = rng_dvec3(r, -1e-3, 1e-3);
            break; /* tiny */
        }
        out[i] = kind >= 7 || kind == 6 ? p : sr_dvec3_add(p, centre);
    }
    return count;
}

static inline double set_scale(const sr_dvec3 *p, size_t n)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) {
        const double c[3] = {p[i].x, p[i].y, p[i].z};
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], c[k]);
            hi[k] = fmax(hi[k], c[k]);
        }
    }
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

/* Brute force: the smallest, among the balls through every 2, 3 and 4 points (diameter ball,
 * circumcircle in their plane, circumsphere), that holds every point. */
static inline sr_dsphere brute_minimal_ball(const sr_dvec3 *p, int n)
{
    double scale = set_scale(p, (size_t)n);
    sr_dsphere best = {p[0], scale == 0.0 ? 0.0 : INFINITY}; /* one point, maybe repeated */
    for (unsigned mask = 1; mask < (1u << n); mask++) {
        int members[4], size = 0;
        for (int i = 0; i < n && size <= 4; i++)
            if (mask & (1u << i)) {
                if (size < 4)
                    members[size] = i;
                size++;
            }
        if (size < 2 || size > 4)
            continue;
        /* the centre c = p0 + sum y_k e_k in the affine hull, equidistant from every member:
         * 2 e_j . (c - p0) = |e_j|^2 */
        sr_dvec3 origin = p[members[0]];
        sr_dvec3 e[3];
        int m = size - 1;
        for (int k = 0; k < m; k++)
            e[k] = sr_dvec3_sub(p[members[k + 1]], origin);
        double gram[3][3], rhs[3], y[3];
        for (int a = 0; a < m; a++) {
            for (int b = 0; b < m; b++)
                gram[a][b] = 2 * sr_dvec3_dot(e[a], e[b]);
            rhs[a] = sr_dvec3_dot(e[a], e[a]);
        }
        if (!brute_solve(gram, rhs, m, 1e-12 * scale * scale, y))
            continue;
        sr_dvec3 c = origin;
        for (int k = 0; k < m; k++)
            c = sr_dvec3_add(c, sr_dvec3_scale(e[k], y[k]));
        double radius = sr_dvec3_length(sr_dvec3_sub(origin, c));
        bool holds = true;
        for (int i = 0; i < n && holds; i++)
            holds = sr_dvec3_length(sr_dvec3_sub(p[i], c)) <= radius * (1 + 1e-12) + 1e-12 * scale;
        if (holds && radius < best.radius) {
            best.centre = c;
            best.radius = radius;
        }
    }
    return best;
}

/* ---- shapes: an analytic support function, independent of the module's ---- */

/* The largest n . x over the shape (rounding included), from each type's closed form. */
static inline double analytic_support(const sr_shape *s, sr_dvec3 n)
{
    sr_dquat q = s->pose.rotation;
    sr_dvec3 c = s->pose.position;
    double length = sr_dvec3_length(n);
    sr_dvec3 axis = sr_dquat_rotate(q, sr_dvec3_make(0, 0, 1)); /* the local z in the world */
    double along = sr_dvec3_dot(n, axis);
    double across = sqrt(fmax(0.0, length * length - along * along)); /* |n| without its axis part */
    double value;
    switch (s->type) {
    case SR_SHAPE_POINT:
        value = sr_dvec3_dot(n, c);
        break;
    case SR_SHAPE_SPHERE:
        value = sr_dvec3_dot(n, c) + s->radius * length;
        break;
    case SR_SHAPE_BOX:
        value = sr_dvec3_dot(n, c) +
                s->half_extents.x * fabs(sr_dvec3_dot(n, sr_dquat_rotate(q, sr_dvec3_make(1, 0, 0)))) +
                s->half_extents.y * fabs(sr_dvec3_dot(n, sr_dquat_rotate(q, sr_dvec3_make(0, 1, 0)))) +
                s->half_extents.z * fabs(along);
        break;
    case SR_SHAPE_CAPSULE:
        value = sr_dvec3_dot(n, c) + s->half_height * fabs(along) + s->radius * length;
        break;
    case SR_SHAPE_CYLINDER:
        value = sr_dvec3_dot(n, c) + s->half_height * fabs(along) + s->radius * across;
        break;
    case SR_SHAPE_CONE: /* the apex at +h, the base's rim at -h */
        value = sr_dvec3_dot(n, c) + fmax(s->half_height * along, -s->half_height * along + s->radius * across);
        break;
    default: { /* segment, triangle: their points; hull: its vertices */
        const sr_dvec3 *points = s->points;
        size_t count = s->type == SR_SHAPE_SEGMENT ? 2 : 3;
        if (s->type == SR_SHAPE_HULL) {
            sr_hull_view view = sr_hull_get_view(s->hull);
            points = view.vertices;
            count = view.vertex_count;
        }
        value = -INFINITY;
        for (size_t i = 0; i < count; i++)
            value = fmax(value, sr_dvec3_dot(n, sr_dvec3_add(sr_dquat_rotate(q, points[i]), c)));
    }
    }
    return value + s->rounding * length;
}

/* A random shape of each type in turn, posed at random, sometimes rounded; hulls from `hulls`. */
static inline sr_shape random_shape(rng *r, int index, sr_hull *const *hulls)
{
    sr_shape s;
    switch (index % SR_SHAPE_TYPE_COUNT) {
    case SR_SHAPE_POINT:
        s = sr_shape_point();
        break;
    case SR_SHAPE_SEGMENT:
        s = sr_shape_segment(rng_dvec3(r, -1, 1), rng_dvec3(r, -1, 1));
        break;
    case SR_SHAPE_TRIANGLE:
        s = sr_shape_triangle(rng_dvec3(r, -1, 1), rng_dvec3(r, -1, 1), rng_dvec3(r, -1, 1));
        break;
    case SR_SHAPE_SPHERE:
        s = sr_shape_sphere(rng_double_range(r, 0.1, 2));
        break;
    case SR_SHAPE_BOX:
        s = sr_shape_box(rng_dvec3(r, 0, 2));
        break;
    case SR_SHAPE_CAPSULE:
        s = sr_shape_capsule(rng_double_range(r, 0.1, 1), rng_double_range(r, 0, 2));
        break;
    case SR_SHAPE_CYLINDER:
        s = sr_shape_cylinder(rng_double_range(r, 0.1, 1), rng_double_range(r, 0, 2));
        break;
    case SR_SHAPE_CONE: /* flat and tall ones: the minimal sphere changes its form at r = 2h */
        s = sr_shape_cone(rng_double_range(r, 0.1, 2), rng_double_range(r, 0.05, 2));
        break;
    default:
        s = sr_shape_hull(hulls[index % 4]);
        break;
    }
    double far = index % 5 == 0 ? 1e3 : 1.0;
    s.pose =
        sr_pose_make(sr_dvec3_scale(rng_dvec3(r, -1, 1), far), index % 7 == 0 ? sr_dquat_identity() : rng_rotation(r));
    if (index % 3 == 0)
        s.rounding = rng_double_range(r, 0, 0.3);
    return s;
}

static inline void make_hulls(rng *r, sr_hull **hulls)
{
    sr_dvec3 points[40];
    for (int h = 0; h < 4; h++) {
        size_t n = make_set(r, h == 3 ? 3 : h, 4 + 9 * (size_t)h, points); /* cloud, duplicates, line, plane */
        cr_assert_eq(sr_hull_create(points, n, &hulls[h], NULL), SR_OK);
    }
}

#endif
