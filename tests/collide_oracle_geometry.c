/* tests/collide_oracle_geometry.c — the geometry of one shape for the oracle (collide_oracle.h):
 * brute-force polytopes of point sets, bodies placed in the world, closed-form support points and
 * signed distances of points. Test support code: clarity over speed, double throughout. */
#include "collide_oracle_internal.h"

#include <assert.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

/* ---- frames ---- */

void oracle_basis(sr_dvec3 n, sr_dvec3 *t1, sr_dvec3 *t2)
{
    /* The axis least aligned with n, made orthogonal to it. */
    sr_dvec3 other = fabs(n.x) <= fabs(n.y) && fabs(n.x) <= fabs(n.z) ? v3(1, 0, 0)
                     : fabs(n.y) <= fabs(n.z)                         ? v3(0, 1, 0)
                                                                      : v3(0, 0, 1);
    *t1 = vunit(vcross(other, n));
    *t2 = vcross(n, *t1);
}

void oracle_quat_matrix(sr_dquat q, sr_dvec3 m[3])
{
    if (q.x == 0.0 && q.y == 0.0 && q.z == 0.0 && q.w == 0.0)
        q.w = 1.0; /* collide.h: a zeroed rotation is the identity */
    double x = q.x, y = q.y, z = q.z, w = q.w;
    m[0] = v3(1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w));
    m[1] = v3(2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w));
    m[2] = v3(2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y));
}

sr_dvec3 oracle_mat_apply(const sr_dvec3 m[3], sr_dvec3 v)
{
    return v3(vdot(m[0], v), vdot(m[1], v), vdot(m[2], v));
}

sr_dvec3 oracle_mat_apply_transposed(const sr_dvec3 m[3], sr_dvec3 v)
{
    return vadd(vadd(vscale(m[0], v.x), vscale(m[1], v.y)), vscale(m[2], v.z));
}

/* ---- closest points ---- */

sr_dvec3 oracle_closest_on_segment(sr_dvec3 p, sr_dvec3 a, sr_dvec3 b)
{
    sr_dvec3 ab = vsub(b, a);
    double length2 = vdot(ab, ab);
    if (length2 == 0.0)
        return a;
    return vmadd(a, ab, clamp01(vdot(vsub(p, a), ab) / length2));
}

/* The squared distance is a convex quadratic over the parameter square [0,1]^2: its minimum is
 * the unconstrained one when that lies inside, otherwise on the square's border, where one
 * parameter is 0 or 1: an endpoint against the other segment. Trying all five is exact. */
double oracle_segment_segment(sr_dvec3 p0, sr_dvec3 p1, sr_dvec3 q0, sr_dvec3 q1, sr_dvec3 *cp, sr_dvec3 *cq)
{
    sr_dvec3 candidates[5][2];
    int count = 0;
    sr_dvec3 d1 = vsub(p1, p0), d2 = vsub(q1, q0), r = vsub(p0, q0);
    double a = vdot(d1, d1), e = vdot(d2, d2), b = vdot(d1, d2), c = vdot(d1, r), f = vdot(d2, r);
    double den = a * e - b * b;
    if (den > 1e-14 * a * e) {
        double s = (b * f - c * e) / den, t = (a * f - b * c) / den;
        if (s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0) {
            candidates[count][0] = vmadd(p0, d1, s);
            candidates[count][1] = vmadd(q0, d2, t);
            count++;
        }
    }
    sr_dvec3 ends[4][2] = {{p0, oracle_closest_on_segment(p0, q0, q1)},
                           {p1, oracle_closest_on_segment(p1, q0, q1)},
                           {oracle_closest_on_segment(q0, p0, p1), q0},
                           {oracle_closest_on_segment(q1, p0, p1), q1}};
    for (int i = 0; i < 4; i++, count++) {
        candidates[count][0] = ends[i][0];
        candidates[count][1] = ends[i][1];
    }
    double best = INFINITY;
    for (int i = 0; i < count; i++) {
        double d = vdist(candidates[i][0], candidates[i][1]);
        if (d < best) {
            best = d;
            *cp = candidates[i][0];
            *cq = candidates[i][1];
        }
    }
    return best;
}

/* Inside the polygon when the projection is left of (or on) every edge seen from the normal's
 * side; otherwise the nearest point of its border. */
sr_dvec3 oracle_closest_on_face(const oracle_poly *poly, const oracle_face *face, sr_dvec3 p)
{
    const int *ids = poly->face_vertices + face->first;
    int n = face->count;
    sr_dvec3 q = vmadd(p, face->normal, face->offset - vdot(face->normal, p));
    bool inside = n >= 3;
    for (int i = 0; i < n && inside; i++) {
        sr_dvec3 a = poly->vertices[ids[i]], b = poly->vertices[ids[(i + 1) % n]];
        inside = vdot(vcross(vsub(b, a), vsub(q, a)), face->normal) >= 0.0;
    }
    if (inside)
        return q;
    sr_dvec3 best = poly->vertices[ids[0]];
    double best_d = vdist(p, best);
    for (int i = 0; i < n; i++) {
        sr_dvec3 c = oracle_closest_on_segment(p, poly->vertices[ids[i]], poly->vertices[ids[(i + 1) % n]]);
        double d = vdist(p, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

double oracle_poly_distance(const oracle_poly *poly, sr_dvec3 p, sr_dvec3 *closest)
{
    sr_dvec3 c = poly->vertices[0];
    if (poly->dimension == 1) {
        c = oracle_closest_on_segment(p, poly->vertices[0], poly->vertices[1]);
    } else if (poly->dimension == 2) {
        c = oracle_closest_on_face(poly, &poly->faces[0], p);
    } else if (poly->dimension == 3) {
        double best = INFINITY;
        bool outside = false;
        for (int f = 0; f < poly->face_count; f++) {
            const oracle_face *face = &poly->faces[f];
            if (vdot(face->normal, p) - face->offset <= 0.0)
                continue; /* only faces p sees can hold its nearest point */
            outside = true;
            sr_dvec3 q = oracle_closest_on_face(poly, face, p);
            double d = vdist(p, q);
            if (d < best) {
                best = d;
                c = q;
            }
        }
        if (!outside)
            c = p;
    }
    if (closest)
        *closest = c;
    return vdist(p, c);
}

bool oracle_segment_crosses_face(const oracle_poly *poly, const oracle_face *face, sr_dvec3 a, sr_dvec3 b, sr_dvec3 *at)
{
    double da = vdot(face->normal, a) - face->offset, db = vdot(face->normal, b) - face->offset;
    if ((da > 0.0 && db > 0.0) || (da < 0.0 && db < 0.0) || da == db)
        return false; /* on one side, or in the plane (edge-edge and vertex-face pairs see that) */
    sr_dvec3 x = vlerp(a, b, da / (da - db));
    const int *ids = poly->face_vertices + face->first;
    for (int i = 0; i < face->count; i++) {
        sr_dvec3 p = poly->vertices[ids[i]], q = poly->vertices[ids[(i + 1) % face->count]];
        if (vdot(vcross(vsub(q, p), vsub(x, p)), face->normal) < 0.0)
            return false;
    }
    *at = x;
    return true;
}

double oracle_poly_support(const oracle_poly *poly, sr_dvec3 n, sr_dvec3 *at)
{
    int best = 0;
    double best_value = vdot(n, poly->vertices[0]);
    for (int i = 1; i < poly->vertex_count; i++) {
        double value = vdot(n, poly->vertices[i]);
        if (value > best_value) {
            best_value = value;
            best = i;
        }
    }
    if (at)
        *at = poly->vertices[best];
    return best_value;
}

/* ---- brute-force polytopes ---- */

typedef struct point2 {
    double x, y;
    int index;
} point2;

static int compare_point2(const void *a, const void *b)
{
    const point2 *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return p->index - q->index;
}

static double turn(point2 o, point2 a, point2 b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* The convex polygon of `count` points lying in the plane of unit normal n, counter-clockwise
 * seen from n's side (Andrew's monotone chain; points within `eps` of an edge's line are left
 * out). Writes point indices to `out`, returns their number. */
static int plane_hull(const sr_dvec3 *points, const int *ids, int count, sr_dvec3 n, double eps, int *out)
{
    sr_dvec3 t1, t2;
    oracle_basis(n, &t1, &t2);
    point2 p[ORACLE_MAX_POINTS * 2];
    for (int i = 0; i < count; i++)
        p[i] = (point2){vdot(points[ids[i]], t1), vdot(points[ids[i]], t2), ids[i]};
    qsort(p, (size_t)count, sizeof p[0], compare_point2);
    point2 chain[ORACLE_MAX_POINTS * 4];
    int k = 0;
    for (int i = 0; i < count; i++) { /* lower chain */
        while (k >= 2 &&
               turn(chain[k - 2], chain[k - 1], p[i]) <= eps * hypot(p[i].x - chain[k - 2].x, p[i].y - chain[k - 2].y))
            k--;
        chain[k++] = p[i];
    }
    for (int i = count - 2, lower = k + 1; i >= 0; i--) { /* upper chain */
        while (k >= lower &&
               turn(chain[k - 2], chain[k - 1], p[i]) <= eps * hypot(p[i].x - chain[k - 2].x, p[i].y - chain[k - 2].y))
            k--;
        chain[k++] = p[i];
    }
    k = k > 1 ? k - 1 : k; /* the last point repeats the first */
    for (int i = 0; i < k; i++)
        out[i] = chain[i].index;
    return k;
}

static void add_edge(oracle_poly *poly, int a, int b)
{
    for (int e = 0; e < poly->edge_count; e++)
        if ((poly->edges[e][0] == a && poly->edges[e][1] == b) || (poly->edges[e][0] == b && poly->edges[e][1] == a))
            return;
    assert(poly->edge_count < ORACLE_MAX_EDGES * 2);
    poly->edges[poly->edge_count][0] = a;
    poly->edges[poly->edge_count][1] = b;
    poly->edge_count++;
}

static void add_face(oracle_poly *poly, sr_dvec3 normal, double offset, const int *ids, int count)
{
    assert(poly->face_count < ORACLE_MAX_FACES * 2);
    int first =
        poly->face_count == 0 ? 0 : poly->faces[poly->face_count - 1].first + poly->faces[poly->face_count - 1].count;
    assert(first + count <= ORACLE_MAX_FACE_VERTICES * 2);
    memcpy(poly->face_vertices + first, ids, (size_t)count * sizeof *ids);
    poly->faces[poly->face_count++] = (oracle_face){normal, offset, first, count};
    for (int i = 0; i < count; i++)
        add_edge(poly, ids[i], ids[(i + 1) % count]);
}

/* Keeps only the vertices that faces or edges use (interior points out), renumbered. */
static void compact_vertices(oracle_poly *poly, const sr_dvec3 *points, int count)
{
    int map[ORACLE_MAX_POINTS * 2];
    bool used[ORACLE_MAX_POINTS * 2] = {false};
    for (int e = 0; e < poly->edge_count; e++)
        used[poly->edges[e][0]] = used[poly->edges[e][1]] = true;
    int n = 0;
    for (int i = 0; i < count; i++) {
        map[i] = used[i] ? n : -1;
        if (used[i])
            poly->vertices[n++] = points[i];
    }
    poly->vertex_count = n;
    for (int e = 0; e < poly->edge_count; e++) {
        poly->edges[e][0] = map[poly->edges[e][0]];
        poly->edges[e][1] = map[poly->edges[e][1]];
    }
    int total =
        poly->face_count ? poly->faces[poly->face_count - 1].first + poly->faces[poly->face_count - 1].count : 0;
    for (int i = 0; i < total; i++)
        poly->face_vertices[i] = map[poly->face_vertices[i]];
}

void oracle_poly_build(const sr_dvec3 *input, size_t input_count, oracle_poly *out)
{
    assert(input_count >= 1 && input_count <= ORACLE_MAX_POINTS * 2);
    memset(out, 0, offsetof(oracle_poly, vertices));
    out->axis = v3(0, 0, 0);
    /* Exact duplicates out (they make degenerate triples and repeated vertices). */
    sr_dvec3 points[ORACLE_MAX_POINTS * 2];
    int count = 0;
    for (size_t i = 0; i < input_count; i++) {
        bool seen = false;
        for (int j = 0; j < count && !seen; j++)
            seen = points[j].x == input[i].x && points[j].y == input[i].y && points[j].z == input[i].z;
        if (!seen)
            points[count++] = input[i];
    }
    sr_dvec3 centre = v3(0, 0, 0);
    for (int i = 0; i < count; i++)
        centre = vadd(centre, points[i]);
    centre = vscale(centre, 1.0 / count);
    double extent = 0.0;
    for (int i = 0; i < count; i++)
        extent = fmax(extent, vdist(points[i], centre));
    double eps = 1e-12 * extent;

    /* Dimension: farthest pair, farthest from their line, farthest from their plane. */
    int a = 0, b = 0, c = 0, d = 0;
    for (int i = 0; i < count; i++)
        if (vdist(points[i], centre) > vdist(points[a], centre))
            a = i;
    for (int i = 0; i < count; i++)
        if (vdist(points[i], points[a]) > vdist(points[b], points[a]))
            b = i;
    if (count == 1 || vdist(points[a], points[b]) <= eps) {
        out->dimension = 0;
        out->vertex_count = 1;
        out->vertices[0] = points[a];
        return;
    }
    sr_dvec3 u = vunit(vsub(points[b], points[a]));
    double far_line = -1.0;
    for (int i = 0; i < count; i++) {
        sr_dvec3 r = vsub(points[i], points[a]);
        double h = vlen(vsub(r, vscale(u, vdot(r, u))));
        if (h > far_line) {
            far_line = h;
            c = i;
        }
    }
    if (far_line <= eps) {
        int lo = 0, hi = 0;
        for (int i = 0; i < count; i++) {
            if (vdot(points[i], u) < vdot(points[lo], u))
                lo = i;
            if (vdot(points[i], u) > vdot(points[hi], u))
                hi = i;
        }
        out->dimension = 1;
        out->vertex_count = 2;
        out->vertices[0] = points[lo];
        out->vertices[1] = points[hi];
        out->edge_count = 1;
        out->edges[0][0] = 0;
        out->edges[0][1] = 1;
        out->axis = vunit(vsub(points[hi], points[lo]));
        return;
    }
    sr_dvec3 m_cross = vcross(vsub(points[b], points[a]), vsub(points[c], points[a]));
    sr_dvec3 m = vunit(m_cross);
    /* A plane through a thin triangle has a normal only as good as the triangle's conditioning
     * (|e1| |e2| / |e1 x e2|) times the rounding of the coordinates: a point of an exactly flat
     * sliver (a segment swept nearly along itself) lies that far off it. */
    double magnitude = 0.0;
    for (int i = 0; i < count; i++)
        magnitude = fmax(magnitude, vmax_abs(points[i]));
    double flat_eps = eps + 8.0 * DBL_EPSILON * magnitude * vdist(points[b], points[a]) * vdist(points[c], points[a]) /
                                fmax(vlen(m_cross), 1e-300);
    double far_plane = -1.0;
    for (int i = 0; i < count; i++) {
        double h = fabs(vdot(vsub(points[i], points[a]), m));
        if (h > far_plane) {
            far_plane = h;
            d = i;
        }
    }
    int all[ORACLE_MAX_POINTS * 2], polygon[ORACLE_MAX_POINTS * 2];
    for (int i = 0; i < count; i++)
        all[i] = i;
    if (far_plane <= flat_eps) {
        /* Flat: one polygon, its two sides two faces. */
        int n = plane_hull(points, all, count, m, eps, polygon);
        double offset = vdot(m, points[a]);
        add_face(out, m, offset, polygon, n);
        int reversed[ORACLE_MAX_POINTS * 2];
        for (int i = 0; i < n; i++)
            reversed[i] = polygon[n - 1 - i];
        add_face(out, vscale(m, -1.0), -offset, reversed, n);
        out->dimension = 2;
        out->axis = m;
        compact_vertices(out, points, count);
        return;
    }
    (void)d;
    /* Solid: every plane through three points with all points on one side is a face plane. */
    out->dimension = 3;
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            for (int k = j + 1; k < count; k++) {
                sr_dvec3 e1 = vsub(points[j], points[i]), e2 = vsub(points[k], points[i]);
                sr_dvec3 cross = vcross(e1, e2);
                double cross_length = vlen(cross);
                if (cross_length <= 1e-12 * vlen(e1) * vlen(e2))
                    continue;
                sr_dvec3 n = vscale(cross, 1.0 / cross_length);
                double offset = vdot(n, points[i]);
                /* The plane's own tolerance: eps, widened for a thin triangle (see flat_eps). */
                double plane_eps = eps + 8.0 * DBL_EPSILON * magnitude * vlen(e1) * vlen(e2) / cross_length;
                bool above = false, below = false;
                for (int p = 0; p < count && !(above && below); p++) {
                    double h = vdot(n, points[p]) - offset;
                    above = above || h > plane_eps;
                    below = below || h < -plane_eps;
                }
                if (above && below)
                    continue;
                if (above) { /* all below the flipped plane */
                    n = vscale(n, -1.0);
                    offset = -offset;
                }
                bool known = false;
                for (int f = 0; f < out->face_count && !known; f++)
                    known =
                        vdist(out->faces[f].normal, n) <= 1e-9 && fabs(out->faces[f].offset - offset) <= 10 * plane_eps;
                if (known)
                    continue;
                int on[ORACLE_MAX_POINTS * 2], on_count = 0;
                for (int p = 0; p < count; p++)
                    if (fabs(vdot(n, points[p]) - offset) <= plane_eps)
                        on[on_count++] = p;
                int n_polygon = plane_hull(points, on, on_count, n, eps, polygon);
                if (n_polygon >= 3)
                    add_face(out, n, offset, polygon, n_polygon);
            }
    if (out->face_count == 0) { /* no plane held them all on one side: flat after all */
        int n = plane_hull(points, all, count, m, flat_eps, polygon);
        double offset = vdot(m, points[a]);
        add_face(out, m, offset, polygon, n);
        int reversed[ORACLE_MAX_POINTS * 2];
        for (int i = 0; i < n; i++)
            reversed[i] = polygon[n - 1 - i];
        add_face(out, vscale(m, -1.0), -offset, reversed, n);
        out->dimension = 2;
        out->axis = m;
    }
    compact_vertices(out, points, count);
}

/* ---- bodies ---- */

static double extent_along(const oracle_body *body, sr_dvec3 axis)
{
    sr_dvec3 back = vscale(axis, -1.0);
    return vdot(axis, oracle_support(body, axis)) + vdot(back, oracle_support(body, back));
}

void oracle_body_make(const oracle_shape *shape, sr_dvec3 origin, oracle_body *out)
{
    memset(out, 0, offsetof(oracle_body, poly));
    out->type = shape->type;
    out->position = vsub(shape->pose.position, origin);
    oracle_quat_matrix(shape->pose.rotation, out->rotation);
    out->radius = shape->rounding;
    sr_dvec3 local[ORACLE_MAX_POINTS];
    size_t count = 0;
    double h = shape->half_height;
    switch (shape->type) {
    case SR_SHAPE_SPHERE:
        out->radius += shape->radius;
        /* fall through */
    case SR_SHAPE_POINT:
        local[count++] = v3(0, 0, 0);
        break;
    case SR_SHAPE_CAPSULE:
        out->radius += shape->radius;
        local[count++] = v3(0, 0, -h);
        local[count++] = v3(0, 0, h);
        break;
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
    case SR_SHAPE_HULL:
        count = shape->point_count;
        memcpy(local, shape->points, count * sizeof local[0]);
        break;
    case SR_SHAPE_BOX:
        for (int i = 0; i < 8; i++)
            local[count++] = v3(i & 1 ? shape->half_extents.x : -shape->half_extents.x,
                                i & 2 ? shape->half_extents.y : -shape->half_extents.y,
                                i & 4 ? shape->half_extents.z : -shape->half_extents.z);
        break;
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        if (shape->radius == 0.0) { /* a needle: the segment of its axis, a polytope */
            local[count++] = v3(0, 0, -h);
            local[count++] = v3(0, 0, h);
        }
        out->core_radius = shape->radius;
        out->half_height = h;
        break;
    default:
        assert(!"oracle_body_make: unknown shape type");
    }
    out->polytope = count > 0;
    if (out->polytope) {
        oracle_poly_build(local, count, &out->poly);
        oracle_poly *poly = &out->poly;
        for (int i = 0; i < poly->vertex_count; i++)
            poly->vertices[i] = vadd(oracle_mat_apply(out->rotation, poly->vertices[i]), out->position);
        for (int f = 0; f < poly->face_count; f++) {
            oracle_face *face = &poly->faces[f];
            face->normal = oracle_mat_apply(out->rotation, face->normal);
            face->offset = vdot(face->normal, poly->vertices[poly->face_vertices[face->first]]);
        }
        poly->axis = oracle_mat_apply(out->rotation, poly->axis);
    }
    /* The largest extent of its box in its own frame (rotation does not change it): along the
     * world images of its local axes, the rotation's columns. */
    out->size = 0.0;
    for (int k = 0; k < 3; k++)
        out->size = fmax(
            out->size,
            extent_along(
                out,
                v3(out->rotation[0].x * (k == 0) + out->rotation[0].y * (k == 1) + out->rotation[0].z * (k == 2),
                   out->rotation[1].x * (k == 0) + out->rotation[1].y * (k == 1) + out->rotation[1].z * (k == 2),
                   out->rotation[2].x * (k == 0) + out->rotation[2].y * (k == 1) + out->rotation[2].z * (k == 2))));
}

void oracle_body_sweep(const oracle_body *body, sr_dvec3 sweep, oracle_body *out)
{
    if (out != body)
        memcpy(out, body, sizeof *out);
    if (!body->polytope) {
        out->sweep = vadd(out->sweep, sweep);
        return;
    }
    sr_dvec3 points[ORACLE_MAX_POINTS * 2];
    int n = body->poly.vertex_count;
    assert(n <= ORACLE_MAX_POINTS);
    for (int i = 0; i < n; i++) {
        points[i] = body->poly.vertices[i];
        points[n + i] = vadd(body->poly.vertices[i], sweep);
    }
    oracle_poly_build(points, (size_t)(2 * n), &out->poly);
}

sr_dvec3 oracle_support(const oracle_body *body, sr_dvec3 direction)
{
    sr_dvec3 p = oracle_core_support(body, direction);
    double length = vlen(direction);
    return length > 0.0 ? vmadd(p, direction, body->radius / length) : p;
}

sr_dvec3 oracle_core_support(const oracle_body *body, sr_dvec3 direction)
{
    sr_dvec3 p;
    if (body->polytope) {
        oracle_poly_support(&body->poly, direction, &p);
    } else {
        sr_dvec3 d = oracle_mat_apply_transposed(body->rotation, direction);
        double rho = hypot(d.x, d.y), r = body->core_radius, h = body->half_height;
        sr_dvec3 rim = rho > 0.0 ? v3(r * d.x / rho, r * d.y / rho, 0.0) : v3(0, 0, 0);
        sr_dvec3 local;
        if (body->type == SR_SHAPE_CYLINDER) {
            /* A tie (d.z == 0: the whole side line) picks its middle. */
            local = v3(rim.x, rim.y, d.z > 0.0 ? h : (d.z < 0.0 ? -h : 0.0));
        } else {
            double apex = h * d.z, base = r * rho - h * d.z;
            sr_dvec3 apex_point = v3(0, 0, h), base_point = v3(rim.x, rim.y, -h);
            local = apex > base ? apex_point : (base > apex ? base_point : vlerp(apex_point, base_point, 0.5));
        }
        p = vadd(oracle_mat_apply(body->rotation, local), body->position);
        if (vdot(direction, body->sweep) > 0.0)
            p = vadd(p, body->sweep);
    }
    return p;
}

/* 2D closest point of (x, y) on segment (ax, ay)-(bx, by). */
static void closest_2d(double x, double y, double ax, double ay, double bx, double by, double *cx, double *cy)
{
    double ex = bx - ax, ey = by - ay, length2 = ex * ex + ey * ey;
    double t = length2 > 0.0 ? clamp01(((x - ax) * ex + (y - ay) * ey) / length2) : 0.0;
    *cx = ax + t * ex;
    *cy = ay + t * ey;
}

double oracle_point_distance(const oracle_body *body, sr_dvec3 p, sr_dvec3 *closest)
{
    assert(body->sweep.x == 0.0 && body->sweep.y == 0.0 && body->sweep.z == 0.0);
    double core; /* signed distance to the core */
    sr_dvec3 c = p;
    if (body->polytope) {
        const oracle_poly *poly = &body->poly;
        double deepest = -INFINITY;
        if (poly->dimension == 3)
            for (int f = 0; f < poly->face_count; f++)
                deepest = fmax(deepest, vdot(poly->faces[f].normal, p) - poly->faces[f].offset);
        if (poly->dimension == 3 && deepest <= 0.0)
            core = deepest; /* inside a convex polytope: the nearest face plane is the depth */
        else
            core = oracle_poly_distance(poly, p, &c);
    } else {
        sr_dvec3 q = oracle_mat_apply_transposed(body->rotation, vsub(p, body->position));
        double rho = hypot(q.x, q.y), r = body->core_radius, h = body->half_height;
        double ux = rho > 0.0 ? q.x / rho : 1.0, uy = rho > 0.0 ? q.y / rho : 0.0;
        double crho, cz; /* nearest core point in the meridian half-plane of q */
        if (body->type == SR_SHAPE_CYLINDER) {
            double d_side = rho - r, d_cap = fabs(q.z) - h;
            if (d_side <= 0.0 && d_cap <= 0.0) {
                core = fmax(d_side, d_cap);
                crho = rho;
                cz = q.z;
            } else {
                crho = fmin(rho, r);
                cz = fmax(-h, fmin(h, q.z));
                core = hypot(fmax(d_side, 0.0), fmax(d_cap, 0.0));
            }
        } else {
            /* The meridian section: the triangle (0,-h), (r,-h), (0,h) of the (rho, z) plane. */
            /* (rho <= r: implied when h > 0; a cone of height 0 is its base disc, not its plane) */
            bool inside = q.z >= -h && 2.0 * h * rho + r * (q.z + h) <= 2.0 * h * r && rho <= r;
            double sx, sy;
            closest_2d(rho, q.z, r, -h, 0.0, h, &sx, &sy);
            double d_side = hypot(rho - sx, q.z - sy);
            if (inside) {
                core = -fmin(q.z + h, d_side);
                crho = rho;
                cz = q.z;
            } else {
                double bx, by, ax, ay;
                closest_2d(rho, q.z, 0.0, -h, r, -h, &bx, &by);
                closest_2d(rho, q.z, 0.0, -h, 0.0, h, &ax, &ay);
                double d_base = hypot(rho - bx, q.z - by), d_axis = hypot(rho - ax, q.z - ay);
                crho = sx;
                cz = sy;
                core = d_side;
                if (d_base < core) {
                    core = d_base;
                    crho = bx;
                    cz = by;
                }
                if (d_axis < core) {
                    core = d_axis;
                    crho = ax;
                    cz = ay;
                }
            }
        }
        c = vadd(oracle_mat_apply(body->rotation, v3(crho * ux, crho * uy, cz)), body->position);
        if (core <= 0.0)
            c = p;
    }
    double sd = core - body->radius;
    if (closest) {
        if (sd <= 0.0)
            *closest = p;
        else if (core > 0.0)
            *closest = vmadd(c, vsub(p, c), body->radius / core);
        else
            *closest = c;
    }
    return sd;
}
