/* src/collide/sat_witness.c — the witness points of the separating-axis test. Along the chosen
 * axis n, A's support feature (its vertices farthest along n: a face, an edge or a vertex) and
 * B's (its vertices farthest against n) are projected on the plane orthogonal to n. When the
 * shapes overlap by the depth d along n, moving B by d n makes them touch exactly where these two
 * projections overlap (the Minkowski face's closest point to the origin lies in it); the witness
 * is the centre of that overlap, lifted onto each feature. When they are apart, or rounding left
 * the projections a hair apart, the closest points of the two projections. Part of collide. */
#include "sat_internal.h"

/* Features of more vertices keep the first ones (a polygon of as many sides still holds the
 * contact region's centre but for the corners it cuts off). */
enum { FEATURE_CAPACITY = 256 };

typedef struct point2 {
    double x, y;
} point2;

static double cross2(point2 o, point2 a, point2 b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

static point2 sub2(point2 a, point2 b)
{
    point2 r = {a.x - b.x, a.y - b.y};
    return r;
}

static double dot2(point2 a, point2 b)
{
    return a.x * b.x + a.y * b.y;
}

static bool before(point2 a, point2 b)
{
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

/* Andrew's monotone chain: the convex hull of points[0 .. count), counter-clockwise, in place;
 * returns its vertex count (1 for a point, 2 for a segment). */
static int convex_hull2(point2 *points, int count)
{
    for (int i = 1; i < count; i++) { /* insertion sort: features are small */
        point2 p = points[i];
        int j = i - 1;
        for (; j >= 0 && before(p, points[j]); j--)
            points[j + 1] = points[j];
        points[j + 1] = p;
    }
    int unique = 0;
    for (int i = 0; i < count; i++)
        if (unique == 0 || points[i].x != points[unique - 1].x || points[i].y != points[unique - 1].y)
            points[unique++] = points[i];
    if (unique <= 2)
        return unique;
    point2 hull[2 * FEATURE_CAPACITY];
    int k = 0;
    for (int i = 0; i < unique; i++) {
        while (k >= 2 && cross2(hull[k - 2], hull[k - 1], points[i]) <= 0.0)
            k--;
        hull[k++] = points[i];
    }
    for (int i = unique - 2, lower = k + 1; i >= 0; i--) {
        while (k >= lower && cross2(hull[k - 2], hull[k - 1], points[i]) <= 0.0)
            k--;
        hull[k++] = points[i];
    }
    k--;       /* the first point closes the chain */
    if (k < 2) /* every point on one line: its two ends */
        k = 2;
    for (int i = 0; i < k; i++)
        points[i] = hull[i];
    return k;
}

/* The closest point to p on segment a-b (2D). */
static point2 closest_on_segment2(point2 p, point2 a, point2 b)
{
    point2 ab = sub2(b, a);
    double length_squared = dot2(ab, ab);
    double t = length_squared > 0.0 ? dot2(sub2(p, a), ab) / length_squared : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    point2 r = {a.x + t * ab.x, a.y + t * ab.y};
    return r;
}

/* The closest point to p of convex polygon q (count vertices, counter-clockwise; 1 or 2 for a
 * point or a segment): p itself when inside within `tolerance`. */
static point2 closest_in_polygon2(point2 p, const point2 *q, int count, double tolerance, bool *inside)
{
    bool in = count >= 3;
    for (int i = 0; i < count && in; i++) {
        point2 edge = sub2(q[(i + 1) % count], q[i]);
        double length = sqrt(dot2(edge, edge));
        in = cross2(q[i], q[(i + 1) % count], p) >= -tolerance * length;
    }
    if (in) {
        *inside = true;
        return p;
    }
    point2 best = q[0];
    double best_distance = INFINITY;
    int edges = count == 1 ? 1 : (count == 2 ? 1 : count);
    for (int i = 0; i < edges; i++) {
        point2 c = closest_on_segment2(p, q[i], q[(i + 1) % count]);
        point2 d = sub2(p, c);
        if (dot2(d, d) < best_distance) {
            best_distance = dot2(d, d);
            best = c;
        }
    }
    *inside = sqrt(best_distance) <= tolerance;
    return best;
}

/* The support feature of `poly` (vertices within `tolerance` of the farthest along `axis`, which
 * is in A's frame; B's vertices are moved there by `rel`, NULL for A), projected on (u, w) about
 * `origin`. Returns the count and the extreme value along the axis. */
static int feature(const sat_poly *poly, const sat_relative *rel, sr_dvec3 axis, double tolerance, sr_dvec3 origin,
                   sr_dvec3 u, sr_dvec3 w, point2 *out, double *extreme)
{
    sr_dvec3 local_axis = rel ? sat_rotate_inverse(&rel->r, axis) : axis;
    sr_dvec3 top = sat_poly_support(poly, local_axis);
    double top_value = ddot(rel ? sat_b_to_a(rel, top) : top, axis);
    int count = 0;
    uint32_t vertices = sat_poly_vertex_count(poly);
    for (uint32_t v = 0; v < vertices && count < FEATURE_CAPACITY; v++) {
        sr_dvec3 p = sat_poly_vertex(poly, v);
        if (rel)
            p = sat_b_to_a(rel, p);
        if (ddot(p, axis) < top_value - tolerance)
            continue;
        sr_dvec3 offset = dsub(p, origin);
        out[count].x = ddot(offset, u);
        out[count].y = ddot(offset, w);
        count++;
    }
    *extreme = top_value;
    return count;
}

void sat_witness(const sat_poly *a, const sat_poly *b, const sat_relative *rel, sr_dvec3 axis, double separation,
                 sr_dvec3 *point_a, sr_dvec3 *point_b)
{
    double size = fmax(a->size, b->size);
    double tolerance = 1e-9 * size;
    /* an orthonormal basis of the plane orthogonal to the axis */
    sr_dvec3 helper = fabs(axis.x) < 0.57 ? dv(1, 0, 0) : (fabs(axis.y) < 0.57 ? dv(0, 1, 0) : dv(0, 0, 1));
    sr_dvec3 u = sr_dvec3_normalize(dcross(axis, helper));
    sr_dvec3 w = dcross(axis, u);
    sr_dvec3 origin = sat_poly_support(a, axis);
    point2 fa[FEATURE_CAPACITY], fb[FEATURE_CAPACITY];
    double top_a, top_b;
    int count_a = feature(a, NULL, axis, tolerance, origin, u, w, fa, &top_a);
    int count_b = feature(b, rel, dneg(axis), tolerance, origin, u, w, fb, &top_b);
    double bottom_b = -top_b; /* B's lowest value along the axis */
    count_a = convex_hull2(fa, count_a);
    count_b = convex_hull2(fb, count_b);

    /* the overlap of the two projections: the vertices of each inside the other and the
     * crossings of their edges; its centre is the average of those points */
    double sum_x = 0.0, sum_y = 0.0;
    int found = 0;
    bool inside;
    for (int i = 0; i < count_a; i++) {
        closest_in_polygon2(fa[i], fb, count_b, tolerance, &inside);
        if (inside) {
            sum_x += fa[i].x;
            sum_y += fa[i].y;
            found++;
        }
    }
    for (int i = 0; i < count_b; i++) {
        closest_in_polygon2(fb[i], fa, count_a, tolerance, &inside);
        if (inside) {
            sum_x += fb[i].x;
            sum_y += fb[i].y;
            found++;
        }
    }
    int edges_a = count_a >= 3 ? count_a : count_a - 1, edges_b = count_b >= 3 ? count_b : count_b - 1;
    for (int i = 0; i < edges_a; i++)
        for (int j = 0; j < edges_b; j++) {
            point2 p = fa[i], d1 = sub2(fa[(i + 1) % count_a], p);
            point2 q = fb[j], d2 = sub2(fb[(j + 1) % count_b], q);
            double denominator = d1.x * d2.y - d1.y * d2.x;
            /* parallel within SAT_PARALLEL (collinear edges, a segment lying along a box's edge):
             * the crossing of two such lines is rounding, anywhere along them (it once put a
             * segment's end, 0.03 outside the box, into the centre). Their overlap's ends are
             * vertices of one inside the other within the tolerance, counted above. */
            if (!(fabs(denominator) > SAT_PARALLEL * sqrt(dot2(d1, d1) * dot2(d2, d2))))
                continue;
            point2 pq = sub2(q, p);
            double s = (pq.x * d2.y - pq.y * d2.x) / denominator, t = (pq.x * d1.y - pq.y * d1.x) / denominator;
            if (s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0) {
                sum_x += p.x + s * d1.x;
                sum_y += p.y + s * d1.y;
                found++;
            }
        }
    point2 on_a, on_b;
    if (found > 0) {
        on_a.x = on_b.x = sum_x / found;
        on_a.y = on_b.y = sum_y / found;
    } else {
        /* apart in the plane: the closest points of the two projections */
        double best = INFINITY;
        on_a = fa[0];
        on_b = fb[0];
        for (int i = 0; i < count_a; i++) {
            point2 c = closest_in_polygon2(fa[i], fb, count_b, tolerance, &inside);
            point2 d = sub2(fa[i], c);
            if (dot2(d, d) < best) {
                best = dot2(d, d);
                on_a = fa[i];
                on_b = c;
            }
        }
        for (int i = 0; i < count_b; i++) {
            point2 c = closest_in_polygon2(fb[i], fa, count_a, tolerance, &inside);
            point2 d = sub2(fb[i], c);
            if (dot2(d, d) < best) {
                best = dot2(d, d);
                on_a = c;
                on_b = fb[i];
            }
        }
        if (separation <= 0.0) { /* overlapping: rounding kept them apart; their middle */
            on_a.x = on_b.x = 0.5 * (on_a.x + on_b.x);
            on_a.y = on_b.y = 0.5 * (on_a.y + on_b.y);
        }
    }
    double base = ddot(origin, axis);
    *point_a = dadd(origin, dadd(dadd(dscale(u, on_a.x), dscale(w, on_a.y)), dscale(axis, top_a - base)));
    if (on_a.x == on_b.x && on_a.y == on_b.y) {
        /* one point of the plane: the two differ by the separation along the axis exactly */
        *point_b = dmadd(*point_a, separation, axis);
    } else {
        *point_b = dadd(origin, dadd(dadd(dscale(u, on_b.x), dscale(w, on_b.y)), dscale(axis, bottom_b - base)));
    }
}
