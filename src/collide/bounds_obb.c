/* src/collide/bounds_obb.c — tight oriented boxes of point sets. The box of the principal axes
 * of the points' convex hull (PCA of the solid hull, so that clusters of vertices weigh nothing),
 * then every orientation that has a side flush with a hull face (the face's normal, and in its
 * plane the minimum-area rectangle of the hull's shadow: rotating calipers, exact in 2D, Freeman
 * and Shapira 1975) or an edge along a hull edge, then a local descent over small rotations about
 * the best box's axes. The exact minimum (O'Rourke 1985, cubic time) touches the hull with two
 * adjacent sides each containing a hull edge; the faces' candidates find it whenever a side lies
 * on a face, which is the common case, and the descent closes most of the gap of the others.
 * Never larger than the PCA box, which is one of the candidates. Part of collide. */
#include "bounds_internal.h"
#include "collide_internal.h"

#include <string.h>

/* Large hulls try at most this many faces (the largest) and edges (the longest). */
enum { OBB_CANDIDATES = 256 };

typedef struct point2 {
    double x, y;
} point2;

typedef struct frame {
    sr_dvec3 axes[3];
} frame;

/* The box of `points` (relative to their mean `mean`) in `f`; returns its volume. */
static double fit(const sr_dvec3 *points, size_t count, sr_dvec3 mean, const frame *f, sr_dobb *out)
{
    double low[3] = {INFINITY, INFINITY, INFINITY}, high[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < count; i++) {
        sr_dvec3 p = dsub(points[i], mean);
        for (int k = 0; k < 3; k++) {
            double d = ddot(p, f->axes[k]);
            low[k] = d < low[k] ? d : low[k]; /* (fmin and fmax are calls: NaN rules) */
            high[k] = d > high[k] ? d : high[k];
        }
    }
    if (out) {
        out->centre = mean;
        for (int k = 0; k < 3; k++) {
            out->axes[k] = f->axes[k];
            out->centre = dmadd(out->centre, 0.5 * (low[k] + high[k]), f->axes[k]);
        }
        out->half_extents = dv(0.5 * (high[0] - low[0]), 0.5 * (high[1] - low[1]), 0.5 * (high[2] - low[2]));
    }
    return (high[0] - low[0]) * (high[1] - low[1]) * (high[2] - low[2]);
}

/* A right-handed orthonormal frame whose first axis is `first` (unit) and second the part of
 * `second` orthogonal to it (or any when parallel). */
static frame frame_from(sr_dvec3 first, sr_dvec3 second)
{
    frame f;
    f.axes[0] = first;
    sr_dvec3 s = dmadd(second, -ddot(second, first), first);
    if (!(dlength_squared(s) > 1e-24)) {
        sr_dvec3 helper = fabs(first.x) < 0.57 ? dv(1, 0, 0) : (fabs(first.y) < 0.57 ? dv(0, 1, 0) : dv(0, 0, 1));
        s = dcross(first, helper);
    }
    f.axes[1] = sr_dvec3_normalize(s);
    f.axes[2] = dcross(f.axes[0], f.axes[1]);
    return f;
}

/* ---- 2D: convex hull and minimum-area rectangle ---- */

static double cross2(point2 o, point2 a, point2 b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

static bool before2(point2 a, point2 b)
{
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

/* Heapsort by (x, y): in place, no allocation (qsort's merge sort allocates on every call). */
static void sort2(point2 *p, size_t n)
{
    for (size_t start = n / 2; start-- > 0;) /* heapify */
        for (size_t root = start;;) {
            size_t child = 2 * root + 1;
            if (child >= n)
                break;
            if (child + 1 < n && before2(p[child], p[child + 1]))
                child++;
            if (!before2(p[root], p[child]))
                break;
            point2 swap = p[root];
            p[root] = p[child];
            p[child] = swap;
            root = child;
        }
    for (size_t end = n; end-- > 1;) {
        point2 swap = p[0];
        p[0] = p[end];
        p[end] = swap;
        for (size_t root = 0;;) {
            size_t child = 2 * root + 1;
            if (child >= end)
                break;
            if (child + 1 < end && before2(p[child], p[child + 1]))
                child++;
            if (!before2(p[root], p[child]))
                break;
            swap = p[root];
            p[root] = p[child];
            p[child] = swap;
            root = child;
        }
    }
}

/* Andrew's monotone chain: the hull of points[0 .. count) (sorted in place) into hull[], counter-
 * clockwise; returns its vertex count. hull needs 2 * count entries: exactly, the two chains share
 * only their ends (count + 1 entries), but a turn of nearly collinear points can round to a left
 * turn in both chains, which then both keep the point. */
static size_t convex_hull2(point2 *points, size_t count, point2 *hull)
{
    sort2(points, count);
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        while (k >= 2 && cross2(hull[k - 2], hull[k - 1], points[i]) <= 0.0)
            k--;
        hull[k++] = points[i];
    }
    for (size_t i = count - 1, lower = k + 1; i-- > 0;) {
        while (k >= lower && cross2(hull[k - 2], hull[k - 1], points[i]) <= 0.0)
            k--;
        hull[k++] = points[i];
    }
    return count == 1 ? 1 : k - 1;
}

static double dot2(point2 a, point2 b)
{
    return a.x * b.x + a.y * b.y;
}

/* The minimum-area rectangle of convex polygon h[0 .. k) (counter-clockwise): one of its sides
 * lies on a polygon edge. Rotating calipers: the extreme vertices along each edge's direction,
 * against it and along its inward normal move forward monotonically. Returns the area and the
 * direction of the rectangle's side (unit). */
static double min_area_rectangle(const point2 *h, size_t k, point2 *direction)
{
    if (k < 3) {
        point2 d = {1, 0};
        if (k == 2) {
            d.x = h[1].x - h[0].x;
            d.y = h[1].y - h[0].y;
            double length = sqrt(dot2(d, d));
            if (length > 0.0) {
                d.x /= length;
                d.y /= length;
            }
        }
        *direction = d;
        return 0.0;
    }
    size_t right = 0, far = 0, left = 0;
    double best = INFINITY;
    for (size_t i = 0; i < k; i++) {
        point2 d = {h[(i + 1) % k].x - h[i].x, h[(i + 1) % k].y - h[i].y};
        double length = sqrt(dot2(d, d));
        if (!(length > 0.0))
            continue;
        d.x /= length;
        d.y /= length;
        point2 inward = {-d.y, d.x};
        if (i == 0) { /* the first edge: the extremes by a scan */
            for (size_t j = 1; j < k; j++) {
                if (dot2(h[j], d) > dot2(h[right], d))
                    right = j;
                if (dot2(h[j], inward) > dot2(h[far], inward))
                    far = j;
                if (dot2(h[j], d) < dot2(h[left], d))
                    left = j;
            }
        } else {
            for (size_t steps = 0; steps < k && dot2(h[(right + 1) % k], d) > dot2(h[right], d); steps++)
                right = (right + 1) % k;
            for (size_t steps = 0; steps < k && dot2(h[(far + 1) % k], inward) > dot2(h[far], inward); steps++)
                far = (far + 1) % k;
            for (size_t steps = 0; steps < k && dot2(h[(left + 1) % k], d) < dot2(h[left], d); steps++)
                left = (left + 1) % k;
        }
        double width = dot2(h[right], d) - dot2(h[left], d);
        double height = dot2(h[far], inward) - dot2(h[i], inward);
        double area = width * height;
        if (area < best) {
            best = area;
            *direction = d;
        }
    }
    return best;
}

/* ---- PCA of the solid hull ---- */

/* Cyclic Jacobi rotations: the eigenvectors of a symmetric 3x3 matrix (columns of v). */
static void jacobi_eigenvectors(double a[3][3], double v[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            v[i][j] = i == j;
    for (int sweep = 0; sweep < 32; sweep++) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        double diagonal = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
        if (!(off > 1e-15 * diagonal))
            break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (a[p][q] == 0.0)
                    continue;
                double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; k++) { /* a = J^T a J */
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
    }
}

/* The principal axes of the solid hull: its covariance from the second moments of the
 * tetrahedra joining `mean` to each face's triangle fan (int x x^T over a tetrahedron with corners
 * p_i is V / 20 (sum p_i p_i^T + (sum p_i)(sum p_i)^T)). */
static frame principal_axes(const sr_hull_view *view, sr_dvec3 mean)
{
    double moment[3][3] = {{0}};
    double volume = 0.0;
    sr_dvec3 weighted = dv(0, 0, 0);
    for (size_t f = 0; f < view->face_count; f++) {
        const sr_hull_face *face = &view->faces[f];
        const uint32_t *ids = view->face_vertices + face->first;
        sr_dvec3 p1 = dsub(view->vertices[ids[0]], mean);
        for (uint32_t i = 1; i + 1 < face->count; i++) {
            sr_dvec3 p2 = dsub(view->vertices[ids[i]], mean), p3 = dsub(view->vertices[ids[i + 1]], mean);
            double v = ddot(p1, dcross(p2, p3)) / 6.0; /* the fourth corner is the mean, at 0 */
            const sr_dvec3 corners[3] = {p1, p2, p3};
            sr_dvec3 sum = dadd(dadd(p1, p2), p3);
            const double s[3] = {sum.x, sum.y, sum.z};
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    double term = s[r] * s[c];
                    for (int k = 0; k < 3; k++) {
                        const double pk[3] = {corners[k].x, corners[k].y, corners[k].z};
                        term += pk[r] * pk[c];
                    }
                    moment[r][c] += v / 20.0 * term;
                }
            volume += v;
            weighted = dmadd(weighted, v / 4.0, sum);
        }
    }
    double covariance[3][3];
    sr_dvec3 centroid = volume > 0.0 ? dscale(weighted, 1.0 / volume) : dv(0, 0, 0);
    const double m[3] = {centroid.x, centroid.y, centroid.z};
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            covariance[r][c] = (volume > 0.0 ? moment[r][c] / volume : 0.0) - m[r] * m[c];
    double v[3][3];
    jacobi_eigenvectors(covariance, v);
    return frame_from(sr_dvec3_normalize(dv(v[0][0], v[1][0], v[2][0])), dv(v[0][1], v[1][1], v[2][1]));
}

/* The principal axes of the hull's vertices (the textbook PCA box, also a candidate). */
static frame vertex_axes(const sr_hull_view *view, sr_dvec3 mean)
{
    double covariance[3][3] = {{0}};
    for (size_t i = 0; i < view->vertex_count; i++) {
        sr_dvec3 p = dsub(view->vertices[i], mean);
        const double c[3] = {p.x, p.y, p.z};
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++)
                covariance[r][k] += c[r] * c[k] / (double)view->vertex_count;
    }
    double v[3][3];
    jacobi_eigenvectors(covariance, v);
    return frame_from(sr_dvec3_normalize(dv(v[0][0], v[1][0], v[2][0])), dv(v[0][1], v[1][1], v[2][1]));
}

/* ---- candidates ---- */

/* The descent starts from this many of the best candidates (distinct volumes). */
enum { STARTS = 6 };

typedef struct search {
    const sr_dvec3 *points; /* the hull's vertices */
    size_t count;
    sr_dvec3 mean;
    point2 *projected, *hull2; /* scratch: count and 2 * count entries */
    double best_volume;
    frame best;
    frame starts[STARTS]; /* the best candidates, by volume */
    double start_volume[STARTS];
    int start_count;
} search;

static void keep_start(search *s, const frame *f, double volume)
{
    for (int i = 0; i < s->start_count; i++)
        if (fabs(s->start_volume[i] - volume) <= 1e-12 * volume)
            return; /* the same box again (most faces give one of a few) */
    int slot;
    if (s->start_count < STARTS)
        slot = s->start_count++;
    else if (volume < s->start_volume[STARTS - 1])
        slot = STARTS - 1;
    else
        return;
    s->starts[slot] = *f;
    s->start_volume[slot] = volume;
    for (int i = slot; i > 0 && s->start_volume[i] < s->start_volume[i - 1]; i--) {
        frame swap = s->starts[i];
        s->starts[i] = s->starts[i - 1];
        s->starts[i - 1] = swap;
        double v = s->start_volume[i];
        s->start_volume[i] = s->start_volume[i - 1];
        s->start_volume[i - 1] = v;
    }
}

static double try_frame(search *s, const frame *f)
{
    double volume = fit(s->points, s->count, s->mean, f, NULL);
    if (volume < s->best_volume) {
        s->best_volume = volume;
        s->best = *f;
    }
    return volume;
}

/* The box with one axis along `axis` (unit) and, in the plane orthogonal to it, the minimum-area
 * rectangle of the points' shadow. */
static void try_axis(search *s, sr_dvec3 axis)
{
    frame plane = frame_from(axis, dv(0, 0, 0));
    for (size_t i = 0; i < s->count; i++) {
        sr_dvec3 p = dsub(s->points[i], s->mean);
        s->projected[i].x = ddot(p, plane.axes[1]);
        s->projected[i].y = ddot(p, plane.axes[2]);
    }
    size_t k = convex_hull2(s->projected, s->count, s->hull2);
    point2 d = {1, 0};
    min_area_rectangle(s->hull2, k, &d);
    sr_dvec3 side = dadd(dscale(plane.axes[1], d.x), dscale(plane.axes[2], d.y));
    frame f = frame_from(axis, side);
    keep_start(s, &f, try_frame(s, &f));
}

/* Rotation of v by `angle` about unit `axis` (Rodrigues). */
static sr_dvec3 rotate_about(sr_dvec3 v, sr_dvec3 axis, double angle)
{
    double c = cos(angle), s = sin(angle);
    return dadd(dadd(dscale(v, c), dscale(dcross(axis, v), s)), dscale(axis, ddot(axis, v) * (1.0 - c)));
}

/* Descent over small rotations about the box's own axes, from 0.2 rad down to 1e-6, from each of
 * the best candidates (the minimum may lie near another than the best). */
static void descend(search *s)
{
    for (int start = 0; start < s->start_count; start++) {
        frame current = s->starts[start];
        double volume = s->start_volume[start];
        for (double angle = 0.2; angle > 1e-6; angle *= 0.5) {
            for (int round = 0; round < 8; round++) {
                bool improved = false;
                for (int k = 0; k < 3; k++)
                    for (int sign = -1; sign <= 1; sign += 2) {
                        frame f = current;
                        sr_dvec3 axis = f.axes[k];
                        for (int j = 0; j < 3; j++)
                            f.axes[j] = rotate_about(f.axes[j], axis, sign * angle);
                        f = frame_from(sr_dvec3_normalize(f.axes[0]), f.axes[1]);
                        double v = try_frame(s, &f);
                        if (v < volume) {
                            volume = v;
                            current = f;
                            improved = true;
                        }
                    }
                if (!improved)
                    break;
            }
        }
    }
}

/* Indices of the `limit` largest values of key[0 .. count) into order[] (all when count <= limit). */
static size_t largest(const double *key, size_t count, size_t limit, uint32_t *order)
{
    size_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (n < limit) {
            order[n++] = i;
        } else if (key[i] > key[order[n - 1]]) {
            order[n - 1] = i;
        } else {
            continue;
        }
        for (size_t j = n - 1; j > 0 && key[order[j]] > key[order[j - 1]]; j--) {
            uint32_t swap = order[j];
            order[j] = order[j - 1];
            order[j - 1] = swap;
        }
    }
    return n;
}

static double polygon_area(const sr_hull_view *view, const sr_hull_face *face)
{
    const uint32_t *ids = view->face_vertices + face->first;
    sr_dvec3 sum = dv(0, 0, 0);
    for (uint32_t i = 1; i + 1 < face->count; i++)
        sum = dadd(sum, dcross(dsub(view->vertices[ids[i]], view->vertices[ids[0]]),
                               dsub(view->vertices[ids[i + 1]], view->vertices[ids[0]])));
    return 0.5 * dlength(sum);
}

sr_status sr_bounds_obb_of_hull(const sr_hull *hull, sr_dobb *out, sr_error *err)
{
    sr_hull_view view = sr_hull_get_view(hull);
    sr_dvec3 mean = dv(0, 0, 0);
    for (size_t i = 0; i < view.vertex_count; i++)
        mean = dadd(mean, view.vertices[i]);
    mean = dscale(mean, 1.0 / (double)view.vertex_count);
    if (view.dimension <= 1) { /* a point, or a segment: its direction, and any two others */
        sr_dvec3 d = view.vertex_count > 1 ? dsub(view.vertices[1], view.vertices[0]) : dv(1, 0, 0);
        frame f = frame_from(sr_dvec3_normalize(d), dv(0, 0, 1));
        fit(view.vertices, view.vertex_count, mean, &f, out);
        return SR_OK;
    }
    search s = {.points = view.vertices, .count = view.vertex_count, .mean = mean, .best_volume = INFINITY};
    size_t scratch = 3 * view.vertex_count;
    size_t keys = view.face_count > view.edge_count ? view.face_count : view.edge_count;
    s.projected = sr_alloc_array(scratch, sizeof *s.projected);
    double *key = sr_alloc_array(keys, sizeof *key);
    uint32_t *order = sr_alloc_array(OBB_CANDIDATES, sizeof *order);
    if (!s.projected || !key || !order) {
        sr_free(s.projected);
        sr_free(key);
        sr_free(order);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_bound_obb_points: no memory for a hull of %zu vertices",
                            view.vertex_count);
    }
    s.hull2 = s.projected + view.vertex_count;
    if (view.dimension == 2) {
        /* flat: the normal, and in the plane the exact minimum-area rectangle */
        try_axis(&s, view.faces[0].normal);
    } else {
        frame pca = principal_axes(&view, mean), vertex_pca = vertex_axes(&view, mean);
        keep_start(&s, &pca, try_frame(&s, &pca));
        keep_start(&s, &vertex_pca, try_frame(&s, &vertex_pca));
        for (size_t f = 0; f < view.face_count; f++)
            key[f] = polygon_area(&view, &view.faces[f]);
        size_t n = largest(key, view.face_count, OBB_CANDIDATES, order);
        for (size_t i = 0; i < n; i++)
            try_axis(&s, view.faces[order[i]].normal);
        for (size_t e = 0; e < view.edge_count; e++)
            key[e] = dlength_squared(dsub(view.vertices[view.edges[2 * e + 1]], view.vertices[view.edges[2 * e]]));
        n = largest(key, view.edge_count, OBB_CANDIDATES, order);
        for (size_t i = 0; i < n; i++) {
            const uint32_t *ends = view.edges + 2 * order[i];
            try_axis(&s, sr_dvec3_normalize(dsub(view.vertices[ends[1]], view.vertices[ends[0]])));
        }
        descend(&s);
    }
    fit(view.vertices, view.vertex_count, mean, &s.best, out);
    sr_free(s.projected);
    sr_free(key);
    sr_free(order);
    return SR_OK;
}

sr_status sr_bound_obb_points(const sr_dvec3 *points, size_t count, sr_dobb *out, sr_error *err)
{
    sr_status status = sr_bounds_check_points("sr_bound_obb_points", points, count, out, err);
    if (status != SR_OK)
        return status;
    sr_hull *hull;
    status = sr_hull_create(points, count, &hull, err);
    if (status != SR_OK)
        return status;
    status = sr_bounds_obb_of_hull(hull, out, err);
    sr_hull_destroy(hull);
    return status;
}
