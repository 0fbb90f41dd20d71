/* src/collide/hull.c — convex hulls of point sets (sr_hull_create): checking the input, finding its
 * dimension, the hulls of points, segments and flat polygons, and the tables every hull carries for
 * the queries (vertex adjacency for hill climbing, the axis-extreme vertices, a structure-of-arrays
 * copy of the vertices). Solids are built by quickhull in hull_quickhull.c. Knows nothing of the
 * queries, nor of raster, scene or SDL.
 *
 * Tolerance: the points are first moved to their bounding box's centre (the subtraction is exact
 * for nearby points, so a hull 1e3 from the origin is built with the precision of its own size);
 * the tolerance is 1e-11 of the extent plus three units of rounding of the input's coordinates
 * (Lloyd's bound: points computed by rotating and moving carry that much noise), so points within
 * about 1e-11 of the extent of a face count as on it. Degenerate inputs are found first: all points
 * equal (dimension 0), on a line within 1e-8 of the extent (dimension 1: the two extreme points),
 * on a plane within 1e-8 (dimension 2: Andrew's monotone chain in the plane, two faces with
 * opposite normals). */
#include "collide_internal.h"

#include <stdlib.h>
#include <string.h>

#define NONE (-1)
#define MAX_POINTS ((size_t)INT32_MAX - 1)
/* Below this extent the points are taken as one point: cross products of such coordinates would
 * underflow. */
#define MIN_EXTENT 1e-90
#define RELATIVE_TOLERANCE 1e-11
/* Points within this fraction of the extent (plus ten tolerances) of a line or a plane make a
 * segment or a flat hull. Solids thinner than that would have faces whose dihedral angles are
 * within a few tolerances of flat, where merging decisions become arbitrary; as a segment or a
 * polygon they are exact to 1e-8 of their size. */
#define RELATIVE_THICKNESS 1e-8

/* ---- the result ---- */

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* Allocates the hull and its one block, laid out for the counts; the view's pointers set. */
sr_hull *sr_hull_allocate(const sr_hull_tables *t)
{
    size_t v = t->vertex_count;
    size_t offset_vertices = 0;
    size_t offset_soa = align8(offset_vertices + v * sizeof(sr_dvec3));
    size_t offset_faces = align8(offset_soa + 3 * v * sizeof(double));
    size_t offset_face_vertices = align8(offset_faces + t->face_count * sizeof(sr_hull_face));
    size_t offset_edges = align8(offset_face_vertices + t->face_vertex_count * sizeof(uint32_t));
    size_t offset_first = align8(offset_edges + 2 * t->edge_count * sizeof(uint32_t));
    size_t offset_adjacency = align8(offset_first + (v + 1) * sizeof(uint32_t));
    size_t offset_adjacency_edges = align8(offset_adjacency + 2 * t->edge_count * sizeof(uint32_t));
    size_t offset_edge_faces = align8(offset_adjacency_edges + 2 * t->edge_count * sizeof(uint32_t));
    size_t bytes = offset_edge_faces + 2 * t->edge_count * sizeof(uint32_t);
    sr_hull *hull = sr_calloc(1, sizeof *hull);
    char *block = sr_calloc(bytes ? bytes : 1, 1);
    if (!hull || !block) {
        sr_free(hull);
        sr_free(block);
        return NULL;
    }
    hull->block = block;
    hull->view.dimension = t->dimension;
    hull->view.vertices = (const sr_dvec3 *)(void *)(block + offset_vertices);
    hull->view.vertex_count = v;
    hull->xs = (const double *)(void *)(block + offset_soa);
    hull->ys = hull->xs + v;
    hull->zs = hull->ys + v;
    hull->view.faces = (const sr_hull_face *)(void *)(block + offset_faces);
    hull->view.face_count = t->face_count;
    hull->view.face_vertices = (const uint32_t *)(void *)(block + offset_face_vertices);
    hull->view.edges = (const uint32_t *)(void *)(block + offset_edges);
    hull->view.edge_count = t->edge_count;
    hull->adjacency_first = (const uint32_t *)(void *)(block + offset_first);
    hull->adjacency = (const uint32_t *)(void *)(block + offset_adjacency);
    hull->adjacency_edges = (const uint32_t *)(void *)(block + offset_adjacency_edges);
    hull->edge_faces = (const uint32_t *)(void *)(block + offset_edge_faces);
    hull->view.edge_faces = hull->edge_faces;
    return hull;
}

/* Fills the tables every hull has beyond its vertices, faces and edges (the vertices and edges
 * must be in place): the copies, box, centroid, extremes and adjacency. */
void sr_hull_finish(sr_hull *hull)
{
    size_t v = hull->view.vertex_count;
    sr_dvec3 *vertices = (sr_dvec3 *)hull->view.vertices;
    double *xs = (double *)hull->xs, *ys = (double *)hull->ys, *zs = (double *)hull->zs;
    sr_dvec3 low = vertices[0], high = vertices[0], sum = dv(0, 0, 0);
    for (size_t i = 0; i < v; i++) {
        sr_dvec3 p = vertices[i];
        xs[i] = p.x, ys[i] = p.y, zs[i] = p.z;
        low = dv(fmin(low.x, p.x), fmin(low.y, p.y), fmin(low.z, p.z));
        high = dv(fmax(high.x, p.x), fmax(high.y, p.y), fmax(high.z, p.z));
        sum = dadd(sum, p);
    }
    hull->box_min = low;
    hull->box_max = high;
    hull->centroid = dscale(sum, 1.0 / (double)v);
    const sr_dvec3 axes[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int a = 0; a < 6; a++) {
        uint32_t best = 0;
        for (size_t i = 1; i < v; i++)
            if (ddot(vertices[i], axes[a]) > ddot(vertices[best], axes[a]))
                best = (uint32_t)i;
        hull->extreme[a] = best;
    }
    uint32_t *first = (uint32_t *)hull->adjacency_first, *adjacency = (uint32_t *)hull->adjacency;
    const uint32_t *edges = hull->view.edges;
    memset(first, 0, (v + 1) * sizeof(uint32_t));
    for (size_t e = 0; e < hull->view.edge_count; e++) {
        first[edges[2 * e] + 1]++;
        first[edges[2 * e + 1] + 1]++;
    }
    for (size_t i = 0; i < v; i++)
        first[i + 1] += first[i];
    /* fill with a moving cursor per vertex (first[i] is advanced, then shifted back) */
    uint32_t *adjacency_edges = (uint32_t *)hull->adjacency_edges;
    for (size_t e = 0; e < hull->view.edge_count; e++) {
        uint32_t a = edges[2 * e], c = edges[2 * e + 1];
        adjacency_edges[first[a]] = (uint32_t)e;
        adjacency[first[a]++] = c;
        adjacency_edges[first[c]] = (uint32_t)e;
        adjacency[first[c]++] = a;
    }
    for (size_t i = v; i > 0; i--)
        first[i] = first[i - 1];
    first[0] = 0;
    /* the two faces of each edge: every face's loop passes each of its edges once (a flat hull's
     * two sides both pass every edge) */
    uint32_t *edge_faces = (uint32_t *)hull->edge_faces;
    for (size_t e = 0; e < 2 * hull->view.edge_count; e++)
        edge_faces[e] = UINT32_MAX;
    for (size_t f = 0; f < hull->view.face_count; f++) {
        const sr_hull_face *face = &hull->view.faces[f];
        const uint32_t *loop = hull->view.face_vertices + face->first;
        for (uint32_t k = 0; k < face->count; k++) {
            uint32_t a = loop[k], c = loop[(k + 1) % face->count];
            for (uint32_t slot = first[a]; slot < first[a + 1]; slot++)
                if (adjacency[slot] == c) {
                    uint32_t e = adjacency_edges[slot];
                    edge_faces[2 * e + (edge_faces[2 * e] != UINT32_MAX)] = (uint32_t)f;
                    break;
                }
        }
    }
}

/* ---- degenerate inputs ---- */

static sr_hull *point_result(const sr_dvec3 *points, size_t index)
{
    sr_hull_tables t = {.dimension = 0, .vertex_count = 1};
    sr_hull *hull = sr_hull_allocate(&t);
    if (!hull)
        return NULL;
    ((sr_dvec3 *)hull->view.vertices)[0] = points[index];
    sr_hull_finish(hull);
    return hull;
}

static sr_hull *segment_result(const sr_dvec3 *points, const sr_dvec3 *p, size_t n, int32_t i0, int32_t i1)
{
    /* the extreme points along the line (ties: the lowest index) */
    sr_dvec3 direction = dsub(p[i1], p[i0]);
    size_t low = 0, high = 0;
    for (size_t i = 1; i < n; i++) {
        double s = ddot(p[i], direction);
        if (s < ddot(p[low], direction))
            low = i;
        if (s > ddot(p[high], direction))
            high = i;
    }
    sr_hull_tables t = {.dimension = 1, .vertex_count = 2, .edge_count = 1};
    sr_hull *hull = sr_hull_allocate(&t);
    if (!hull)
        return NULL;
    size_t first = low < high ? low : high, second = low < high ? high : low;
    ((sr_dvec3 *)hull->view.vertices)[0] = points[first];
    ((sr_dvec3 *)hull->view.vertices)[1] = points[second];
    uint32_t *edges = (uint32_t *)hull->view.edges;
    edges[0] = 0;
    edges[1] = 1;
    sr_hull_finish(hull);
    return hull;
}

typedef struct planar_point {
    double u, v;
    int32_t index;
} planar_point;

static int compare_planar(const void *pa, const void *pb)
{
    const planar_point *a = pa, *b = pb;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* Signed distance of b from the line a -> c, positive to the left (counter-clockwise turn). */
static double left_of(planar_point a, planar_point b, planar_point c)
{
    double ex = c.u - a.u, ey = c.v - a.v;
    double length = sqrt(ex * ex + ey * ey);
    if (!(length > 0))
        return 0;
    return (ex * (b.v - a.v) - ey * (b.u - a.u)) / length;
}

/* A flat hull: Andrew's monotone chain in the plane through p[i0], p[i1], p[i2], keeping a point
 * only when it is more than the tolerance left of the chain; two faces, the polygon seen from
 * either side. */
static sr_hull *planar_result(const sr_dvec3 *points, const sr_dvec3 *p, size_t n, const int32_t v[3], double tolerance,
                              sr_dvec3 centre)
{
    sr_dvec3 normal = sr_dvec3_normalize(dcross(dsub(p[v[1]], p[v[0]]), dsub(p[v[2]], p[v[0]])));
    sr_dvec3 u_axis = sr_dvec3_normalize(dsub(p[v[1]], p[v[0]]));
    sr_dvec3 v_axis = dcross(normal, u_axis);
    planar_point *q = sr_alloc_array(n, sizeof *q);
    planar_point *chain = sr_alloc_array(2 * n + 1, sizeof *chain);
    int32_t *remap = sr_alloc_array(n, sizeof *remap);
    sr_hull *hull = NULL;
    if (!q || !chain || !remap)
        goto done;
    for (size_t i = 0; i < n; i++)
        q[i] = (planar_point){ddot(p[i], u_axis), ddot(p[i], v_axis), (int32_t)i};
    qsort(q, n, sizeof *q, compare_planar);
    size_t k = 0;
    /* a chain point stays when it is more than the tolerance right of the line from the one before
     * it to the next: a counter-clockwise turn */
    for (size_t i = 0; i < n; i++) { /* lower chain */
        while (k >= 2 && left_of(chain[k - 2], chain[k - 1], q[i]) >= -tolerance)
            k--;
        chain[k++] = q[i];
    }
    for (size_t i = n - 1, lower = k + 1; i-- > 0;) { /* upper chain */
        while (k >= lower && left_of(chain[k - 2], chain[k - 1], q[i]) >= -tolerance)
            k--;
        chain[k++] = q[i];
    }
    size_t count = k - 1; /* the last point repeats the first */
    for (size_t i = 0; i < n; i++)
        remap[i] = NONE;
    for (size_t i = 0; i < count; i++)
        remap[chain[i].index] = 0;
    sr_hull_tables t = {.dimension = 2, .face_count = 2, .face_vertex_count = 2 * count, .edge_count = count};
    for (size_t i = 0; i < n; i++)
        if (remap[i] == 0)
            remap[i] = (int32_t)t.vertex_count++;
    hull = sr_hull_allocate(&t);
    if (!hull)
        goto done;
    sr_dvec3 *vertices = (sr_dvec3 *)hull->view.vertices;
    for (size_t i = 0; i < n; i++)
        if (remap[i] != NONE)
            vertices[remap[i]] = points[i];
    /* the loop counter-clockwise around `normal`, from its lowest vertex */
    size_t start = 0;
    for (size_t i = 1; i < count; i++)
        if (remap[chain[i].index] < remap[chain[start].index])
            start = i;
    uint32_t *face_vertices = (uint32_t *)hull->view.face_vertices, *edges = (uint32_t *)hull->view.edges;
    double offset = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t a = (uint32_t)remap[chain[(start + i) % count].index];
        uint32_t c = (uint32_t)remap[chain[(start + i + 1) % count].index];
        face_vertices[i] = a;
        face_vertices[count + (count - i) % count] = a; /* the reversed loop, same first vertex */
        edges[2 * i] = a;
        edges[2 * i + 1] = c;
        offset += ddot(normal, dsub(vertices[a], centre));
    }
    offset = offset / (double)count + ddot(normal, centre);
    sr_hull_face *faces = (sr_hull_face *)hull->view.faces;
    faces[0] = (sr_hull_face){0, (uint32_t)count, normal, offset};
    faces[1] = (sr_hull_face){(uint32_t)count, (uint32_t)count, dneg(normal), -offset};
    sr_hull_finish(hull);
done:
    sr_free(q);
    sr_free(chain);
    sr_free(remap);
    return hull;
}

/* ---- sr_hull_create ---- */

sr_status sr_hull_create(const sr_dvec3 *points, size_t count, sr_hull **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_hull_create: out is NULL");
    *out = NULL;
    if (count == 0)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_hull_create: count is 0 (a hull needs a point)");
    if (!points)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_hull_create: points is NULL");
    if (count > MAX_POINTS)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_hull_create: %zu points exceed the limit of %zu", count,
                            MAX_POINTS);
    sr_dvec3 low = points[0], high = points[0];
    for (size_t i = 0; i < count; i++) {
        const double c[3] = {points[i].x, points[i].y, points[i].z};
        for (int k = 0; k < 3; k++)
            if (!isfinite(c[k]) || fabs(c[k]) > SR_COLLIDE_MAX_MAGNITUDE)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_hull_create: point %zu has %c = %g (%s)", i,
                                    "xyz"[k], c[k], isfinite(c[k]) ? "beyond the limit of 1e30" : "not finite");
        low = dv(fmin(low.x, points[i].x), fmin(low.y, points[i].y), fmin(low.z, points[i].z));
        high = dv(fmax(high.x, points[i].x), fmax(high.y, points[i].y), fmax(high.z, points[i].z));
    }
    sr_dvec3 centre = dscale(dadd(low, high), 0.5);
    double extent = fmax(high.x - low.x, fmax(high.y - low.y, high.z - low.z));
    if (!(extent > MIN_EXTENT)) {
        *out = point_result(points, 0);
        return *out ? SR_OK : sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_hull_create: out of memory");
    }

    sr_dvec3 *p = sr_alloc_array(count, sizeof(sr_dvec3));
    if (!p)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_hull_create: out of memory for %zu points", count);
    for (size_t i = 0; i < count; i++)
        p[i] = dsub(points[i], centre);
    /* the rounding term of the input's own coordinates (their magnitude, not the centred one's):
     * corners of a box rotated and moved 1e3 away carry that rounding */
    double magnitude = dmax_abs(low) > dmax_abs(high) ? dmax_abs(low) : dmax_abs(high);
    double tolerance = RELATIVE_TOLERANCE * extent + 3 * DBL_EPSILON * 3 * magnitude;

    /* the first simplex: extremes of the widest axis, then the farthest from their line, then
     * from their plane (ties: the lowest index) */
    int axis = (high.x - low.x >= high.y - low.y && high.x - low.x >= high.z - low.z) ? 0
               : (high.y - low.y >= high.z - low.z)                                   ? 1
                                                                                      : 2;
    int32_t v[4] = {0, 0, 0, 0};
    for (size_t i = 1; i < count; i++) {
        double c = axis == 0 ? p[i].x : axis == 1 ? p[i].y : p[i].z;
        double c0 = axis == 0 ? p[v[0]].x : axis == 1 ? p[v[0]].y : p[v[0]].z;
        double c1 = axis == 0 ? p[v[1]].x : axis == 1 ? p[v[1]].y : p[v[1]].z;
        if (c < c0)
            v[0] = (int32_t)i;
        if (c > c1)
            v[1] = (int32_t)i;
    }
    sr_dvec3 line = sr_dvec3_normalize(dsub(p[v[1]], p[v[0]]));
    double farthest = -1;
    for (size_t i = 0; i < count; i++) {
        double d = dlength_squared(dcross(dsub(p[i], p[v[0]]), line));
        if (d > farthest) {
            farthest = d;
            v[2] = (int32_t)i;
        }
    }
    double thin = RELATIVE_THICKNESS * extent + 10 * tolerance;
    sr_hull *hull = NULL;
    sr_status status = SR_ERROR_OUT_OF_MEMORY;
    if (sqrt(farthest) <= thin) {
        hull = segment_result(points, p, count, v[0], v[1]);
    } else {
        sr_dvec3 plane = sr_dvec3_normalize(dcross(dsub(p[v[1]], p[v[0]]), dsub(p[v[2]], p[v[0]])));
        farthest = -1;
        for (size_t i = 0; i < count; i++) {
            double d = fabs(ddot(dsub(p[i], p[v[0]]), plane));
            if (d > farthest) {
                farthest = d;
                v[3] = (int32_t)i;
            }
        }
        if (farthest <= thin)
            hull = planar_result(points, p, count, v, tolerance, centre);
        else
            hull = sr_hull_quickhull(points, p, count, tolerance, v, centre, &status);
    }
    sr_free(p);
    if (!hull && status == SR_ERROR_UNSUPPORTED)
        return sr_error_set(err, SR_ERROR_UNSUPPORTED,
                            "sr_hull_create: the hull of the %zu points could not be built consistently", count);
    if (!hull)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_hull_create: out of memory for the hull of %zu points",
                            count);
    *out = hull;
    return SR_OK;
}

void sr_hull_destroy(sr_hull *hull)
{
    if (!hull)
        return;
    sr_free(hull->block);
    sr_free(hull);
}

sr_hull_view sr_hull_get_view(const sr_hull *hull)
{
    sr_hull_view view;
    if (!hull) {
        memset(&view, 0, sizeof view);
        return view;
    }
    return hull->view;
}
