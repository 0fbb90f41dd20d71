/* src/collide/closest.c — closest points on primitives: to a point on a segment, a triangle, a
 * solid box and a solid tetrahedron, and between two segments. Ericson, Real-Time Collision
 * Detection (2005), ch. 5.1: Voronoi regions tested with dot products, in double. Degenerate
 * primitives (zero-length segments, collinear or point triangles, flat tetrahedra) fall back to
 * their lower-dimensional parts instead of dividing by a zero area or volume. Part of collide:
 * stands on math only. */
#include <softrast/collide.h>

#include <math.h>

/* A triangle is treated as its three edges when its height is below this fraction of its longest
 * edge (|ab x ac| <= SLIVER * longest^2): the face region's barycentric weights divide by the
 * area, and the answer of the edges is then within SLIVER * longest of the true one. */
#define SLIVER 1e-8

static double clamp01(double t)
{
    return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

/* a + t (b - a), exactly a at t = 0 and exactly b at t = 1. */
static sr_dvec3 lerp(sr_dvec3 a, sr_dvec3 b, double t)
{
    if (t <= 0.0)
        return a;
    if (t >= 1.0)
        return b;
    return sr_dvec3_add(a, sr_dvec3_scale(sr_dvec3_sub(b, a), t));
}

static double distance_squared(sr_dvec3 a, sr_dvec3 b)
{
    sr_dvec3 d = sr_dvec3_sub(a, b);
    return sr_dvec3_dot(d, d);
}

sr_dvec3 sr_collide_closest_point_segment(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b, double *t)
{
    sr_dvec3 ab = sr_dvec3_sub(b, a);
    double length_squared = sr_dvec3_dot(ab, ab);
    /* A zero-length segment is its point a; otherwise the projection, clamped to the ends. */
    double s = length_squared > 0.0 ? clamp01(sr_dvec3_dot(sr_dvec3_sub(p, a), ab) / length_squared) : 0.0;
    if (t)
        *t = s;
    return lerp(a, b, s);
}

/* The closest point of the three edges of a degenerate (collinear or point) triangle, with its
 * barycentric weights. */
static sr_dvec3 closest_on_edges(sr_dvec3 p, const sr_dvec3 v[3], sr_dvec3 *barycentric)
{
    sr_dvec3 best = v[0];
    double best_distance = INFINITY;
    double weights[3] = {1, 0, 0};
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3;
        double t;
        sr_dvec3 q = sr_collide_closest_point_segment(p, v[i], v[j], &t);
        double d = distance_squared(p, q);
        if (d < best_distance) {
            best_distance = d;
            best = q;
            weights[0] = weights[1] = weights[2] = 0.0;
            weights[i] = 1.0 - t;
            weights[j] = t;
        }
    }
    if (barycentric)
        *barycentric = sr_dvec3_make(weights[0], weights[1], weights[2]);
    return best;
}

sr_dvec3 sr_collide_closest_point_triangle(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b, sr_dvec3 c, sr_dvec3 *barycentric)
{
    sr_dvec3 ab = sr_dvec3_sub(b, a), ac = sr_dvec3_sub(c, a), bc = sr_dvec3_sub(c, b);
    double longest = fmax(sr_dvec3_dot(ab, ab), fmax(sr_dvec3_dot(ac, ac), sr_dvec3_dot(bc, bc)));
    sr_dvec3 normal = sr_dvec3_cross(ab, ac);
    if (!(sr_dvec3_dot(normal, normal) > SLIVER * SLIVER * longest * longest)) {
        const sr_dvec3 vertices[3] = {a, b, c};
        return closest_on_edges(p, vertices, barycentric);
    }
    sr_dvec3 weights;
    sr_dvec3 result;
    /* Ericson 5.1.5: the vertex regions, then the edge regions, then the face. */
    sr_dvec3 ap = sr_dvec3_sub(p, a);
    double d1 = sr_dvec3_dot(ab, ap), d2 = sr_dvec3_dot(ac, ap);
    sr_dvec3 bp = sr_dvec3_sub(p, b);
    double d3 = sr_dvec3_dot(ab, bp), d4 = sr_dvec3_dot(ac, bp);
    sr_dvec3 cp = sr_dvec3_sub(p, c);
    double d5 = sr_dvec3_dot(ab, cp), d6 = sr_dvec3_dot(ac, cp);
    double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d1 <= 0.0 && d2 <= 0.0) {
        result = a;
        weights = sr_dvec3_make(1, 0, 0);
    } else if (d3 >= 0.0 && d4 <= d3) {
        result = b;
        weights = sr_dvec3_make(0, 1, 0);
    } else if (d6 >= 0.0 && d5 <= d6) {
        result = c;
        weights = sr_dvec3_make(0, 0, 1);
    } else if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        /* d1 - d3 = |ab|^2 > 0 for a triangle that is not degenerate */
        double v = clamp01(d1 / (d1 - d3));
        result = lerp(a, b, v);
        weights = sr_dvec3_make(1.0 - v, v, 0);
    } else if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double w = clamp01(d2 / (d2 - d6));
        result = lerp(a, c, w);
        weights = sr_dvec3_make(1.0 - w, 0, w);
    } else if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        double w = clamp01((d4 - d3) / ((d4 - d3) + (d5 - d6)));
        result = lerp(b, c, w);
        weights = sr_dvec3_make(0, 1.0 - w, w);
    } else {
        /* Inside the face region: va, vb, vc are the barycentric weights times |ab x ac|^2
         * (Lagrange's identity); rounding may leave one a hair below zero. */
        va = fmax(va, 0.0);
        vb = fmax(vb, 0.0);
        vc = fmax(vc, 0.0);
        double sum = va + vb + vc;
        double v = vb / sum, w = vc / sum;
        result = sr_dvec3_add(a, sr_dvec3_add(sr_dvec3_scale(ab, v), sr_dvec3_scale(ac, w)));
        weights = sr_dvec3_make(1.0 - v - w, v, w);
    }
    if (barycentric)
        *barycentric = weights;
    return result;
}

sr_dvec3 sr_collide_closest_point_box(sr_dvec3 p, sr_pose pose, sr_dvec3 half_extents)
{
    sr_dquat q = pose.rotation;
    bool identity = q.x == 0.0 && q.y == 0.0 && q.z == 0.0 && (q.w == 0.0 || q.w == 1.0);
    sr_dvec3 offset = sr_dvec3_sub(p, pose.position);
    sr_dvec3 local = identity ? offset : sr_dquat_rotate(sr_dquat_conjugate(q), offset);
    double h[3] = {fabs(half_extents.x), fabs(half_extents.y), fabs(half_extents.z)};
    double l[3] = {local.x, local.y, local.z};
    bool inside = true;
    for (int i = 0; i < 3; i++) {
        if (l[i] < -h[i]) {
            l[i] = -h[i];
            inside = false;
        } else if (l[i] > h[i]) {
            l[i] = h[i];
            inside = false;
        }
    }
    /* A point inside is its own closest point: returned as given, not after a round trip
     * through the box frame. */
    if (inside)
        return p;
    sr_dvec3 clamped = sr_dvec3_make(l[0], l[1], l[2]);
    return sr_dvec3_add(identity ? clamped : sr_dquat_rotate(q, clamped), pose.position);
}

sr_dvec3 sr_collide_closest_point_tetrahedron(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b, sr_dvec3 c, sr_dvec3 d)
{
    const sr_dvec3 v[4] = {a, b, c, d};
    /* Face i leaves out vertex i; its outward side is the one away from that vertex. */
    static const int faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    sr_dvec3 ab = sr_dvec3_sub(b, a), ac = sr_dvec3_sub(c, a), ad = sr_dvec3_sub(d, a);
    double volume6 = sr_dvec3_dot(ab, sr_dvec3_cross(ac, ad));
    double longest = 0.0;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            longest = fmax(longest, distance_squared(v[i], v[j]));
    longest = sqrt(longest);
    /* Flat (its height below SLIVER of its longest edge, or a NaN): the solid is the union of the
     * four triangles, and the plane tests below mean nothing. */
    bool flat = !(fabs(volume6) > SLIVER * longest * longest * longest);
    bool outside[4];
    bool inside = !flat;
    for (int i = 0; i < 4; i++) {
        const int *f = faces[i];
        sr_dvec3 normal = sr_dvec3_cross(sr_dvec3_sub(v[f[1]], v[f[0]]), sr_dvec3_sub(v[f[2]], v[f[0]]));
        /* Oriented by the sign of the volume: outward for either winding of abcd. */
        double side = sr_dvec3_dot(sr_dvec3_sub(p, v[f[0]]), normal) * (volume6 < 0.0 ? -1.0 : 1.0);
        outside[i] = flat || side > 0.0;
        if (outside[i])
            inside = false;
    }
    if (inside)
        return p;
    /* Ericson 5.1.6: the closest point of a point outside lies on a face whose plane it is
     * outside of (the normal cone at that point holds p - q). */
    sr_dvec3 best = p;
    double best_distance = INFINITY;
    for (int i = 0; i < 4; i++) {
        if (!outside[i])
            continue;
        const int *f = faces[i];
        sr_dvec3 q = sr_collide_closest_point_triangle(p, v[f[0]], v[f[1]], v[f[2]], NULL);
        double distance = distance_squared(p, q);
        if (distance < best_distance) {
            best_distance = distance;
            best = q;
        }
    }
    return best;
}

double sr_collide_closest_segment_segment(sr_dvec3 p1, sr_dvec3 q1, sr_dvec3 p2, sr_dvec3 q2, sr_dvec3 *c1,
                                          sr_dvec3 *c2)
{
    /* Ericson 5.1.9: minimise |p1 + s d1 - (p2 + t d2)|^2 over [0, 1]^2. */
    sr_dvec3 d1 = sr_dvec3_sub(q1, p1), d2 = sr_dvec3_sub(q2, p2), r = sr_dvec3_sub(p1, p2);
    double a = sr_dvec3_dot(d1, d1), e = sr_dvec3_dot(d2, d2), f = sr_dvec3_dot(d2, r);
    double s, t;
    if (!(a > 0.0) && !(e > 0.0)) { /* two points */
        s = t = 0.0;
    } else if (!(a > 0.0)) { /* the first is a point */
        s = 0.0;
        t = clamp01(f / e);
    } else {
        double c = sr_dvec3_dot(d1, r);
        if (!(e > 0.0)) { /* the second is a point */
            t = 0.0;
            s = clamp01(-c / a);
        } else {
            double b = sr_dvec3_dot(d1, d2);
            /* The lines' closest point on the first: s = ((p2 - p1) x d2) . n / |n|^2 with
             * n = d1 x d2. Ericson's (b f - c e) / (a e - b^2) is the same number, but a e - b^2
             * loses all its digits for segments less than 1e-8 rad apart (relative error
             * u / sin^2), the cross products only u / sin. Parallel segments: any s of the
             * overlap is closest; s = 0 and the clamping below find a pair of the overlap, or
             * the nearest ends. */
            sr_dvec3 n = sr_dvec3_cross(d1, d2);
            double denominator = sr_dvec3_dot(n, n);
            s = denominator > 0.0 ? clamp01(sr_dvec3_dot(sr_dvec3_cross(sr_dvec3_negate(r), d2), n) / denominator)
                                  : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clamp01(-c / a);
            } else if (t > 1.0) {
                t = 1.0;
                s = clamp01((b - c) / a);
            }
        }
    }
    sr_dvec3 x = lerp(p1, q1, s), y = lerp(p2, q2, t);
    if (c1)
        *c1 = x;
    if (c2)
        *c2 = y;
    return distance_squared(x, y);
}
