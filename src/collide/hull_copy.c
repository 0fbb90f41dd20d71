/* src/collide/hull_copy.c — a hull made from another hull's tables (sr_hull_create_from_view):
 * the way a hull is read back from a file (a recording) exactly as it was, which building the hull
 * of its vertices again does not promise (quickhull's merges depend on every input point, interior
 * ones included). The tables come from outside, so everything the queries rely on is checked
 * first: counts and indices, each face a loop of three or more distinct vertices whose edges are
 * edges of the hull, each edge on exactly two faces, Euler's formula, finite unit normals, and
 * convexity (every vertex on or below every face's plane within a tolerance of the hull's extent).
 * Knows nothing of the queries, nor of raster, scene or SDL. */
#include "collide_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A vertex may stand this fraction of the hull's extent above a face's plane (quickhull merges
 * faces within 1e-11 of the extent, plus rounding; far below what a query could mistake). */
#define CONVEX_TOLERANCE 1e-7
#define UNIT_TOLERANCE 1e-9
/* Up to this many vertex-face tests the convexity check is exhaustive (a hull of 10,000 vertices:
 * about 0.2 s); past it, local (every edge convex). */
#define FULL_CHECK_LIMIT 2e8

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static sr_status refuse(sr_error *err, const char *format, ...)
{
    char message[200];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_hull_create_from_view: %s", message);
}

/* The index of edge (a, c) in either direction through the adjacency the hull has (-1: none). */
static int64_t find_edge(const sr_hull *hull, uint32_t a, uint32_t c)
{
    for (uint32_t slot = hull->adjacency_first[a]; slot < hull->adjacency_first[a + 1]; slot++)
        if (hull->adjacency[slot] == c)
            return hull->adjacency_edges[slot];
    return -1;
}

static sr_status check_counts(const sr_hull_view *v, sr_error *err)
{
    switch (v->dimension) {
    case 0:
    case 1:
        if (v->vertex_count != (size_t)v->dimension + 1 || v->face_count != 0 || v->edge_count != (size_t)v->dimension)
            return refuse(err, "a hull of dimension %d with %zu vertices, %zu faces and %zu edges", v->dimension,
                          v->vertex_count, v->face_count, v->edge_count);
        return SR_OK;
    case 2:
        if (v->vertex_count < 3 || v->face_count != 2 || v->edge_count != v->vertex_count)
            return refuse(err, "a flat hull needs 3 or more vertices, two faces and as many edges (%zu vertices, %zu faces)",
                          v->vertex_count, v->face_count);
        return SR_OK;
    case 3:
        if (v->vertex_count < 4 || v->face_count < 4 || v->edge_count < 6)
            return refuse(err, "a solid hull needs 4 or more vertices and faces (%zu vertices, %zu faces)",
                          v->vertex_count, v->face_count);
        // Euler's formula for a convex polytope.
        if (v->vertex_count + v->face_count != v->edge_count + 2)
            return refuse(err, "V - E + F is not 2 (%zu vertices and faces, %zu edges)",
                          v->vertex_count + v->face_count, v->edge_count);
        return SR_OK;
    default:
        return refuse(err, "dimension %d is not 0, 1, 2 or 3", v->dimension);
    }
}

/* Everything that needs only the view: vertices, faces' ranges, indices, normals. `mark` is
 * scratch of vertex_count entries (each face stamps its vertices to find one passed twice). */
static sr_status check_view(const sr_hull_view *v, size_t face_vertex_count, uint32_t *mark, sr_error *err)
{
    sr_status status = check_counts(v, err);
    if (status != SR_OK)
        return status;
    if (!v->vertices || (v->face_count && (!v->faces || !v->face_vertices)) || (v->edge_count && !v->edges))
        return refuse(err, "a table is NULL");
    for (size_t i = 0; i < v->vertex_count; i++) {
        const double c[3] = {v->vertices[i].x, v->vertices[i].y, v->vertices[i].z};
        for (int k = 0; k < 3; k++)
            if (!isfinite(c[k]) || fabs(c[k]) > SR_COLLIDE_MAX_MAGNITUDE)
                return refuse(err, "vertex %zu has a coordinate that is not finite or beyond 1e30", i);
    }
    for (size_t f = 0; f < v->face_count; f++) {
        const sr_hull_face *face = &v->faces[f];
        if (face->count < 3 || face->first > face_vertex_count || face->count > face_vertex_count - face->first)
            return refuse(err, "face %zu has %u vertices, or a range past the face vertices", f, face->count);
        for (uint32_t k = 0; k < face->count; k++) {
            uint32_t a = v->face_vertices[face->first + k];
            if (a >= v->vertex_count)
                return refuse(err, "face %zu names vertex %u, which does not exist", f, a);
            if (mark[a] == (uint32_t)f + 1)
                return refuse(err, "face %zu passes vertex %u twice", f, a);
            mark[a] = (uint32_t)f + 1;
        }
        double length = sqrt(ddot(face->normal, face->normal));
        if (!isfinite(face->offset) || !(fabs(length - 1) <= UNIT_TOLERANCE))
            return refuse(err, "face %zu has a normal that is not a unit vector, or an offset that is not finite", f);
    }
    for (size_t e = 0; e < v->edge_count; e++) {
        uint32_t a = v->edges[2 * e], c = v->edges[2 * e + 1];
        if (a >= v->vertex_count || c >= v->vertex_count || a == c)
            return refuse(err, "edge %zu joins vertices %u and %u", e, a, c);
    }
    return SR_OK;
}

/* What the finished hull's adjacency shows: edges once each, faces' loops along edges, each edge on
 * two faces (none for a segment), every vertex below every face's plane. */
static sr_status check_structure(const sr_hull *hull, sr_error *err)
{
    const sr_hull_view *v = &hull->view;
    for (size_t e = 0; e < v->edge_count; e++)
        if (find_edge(hull, v->edges[2 * e], v->edges[2 * e + 1]) != (int64_t)e)
            return refuse(err, "edge %zu repeats another", e);
    size_t passes = 0;
    for (size_t f = 0; f < v->face_count; f++) {
        const sr_hull_face *face = &v->faces[f];
        const uint32_t *loop = v->face_vertices + face->first;
        for (uint32_t k = 0; k < face->count; k++)
            if (find_edge(hull, loop[k], loop[(k + 1) % face->count]) < 0)
                return refuse(err, "face %zu goes from vertex %u along no edge", f, loop[k]);
        passes += face->count;
    }
    if (v->dimension >= 2) {
        // Every edge is passed by exactly two faces: passes == 2 E, and none was left out.
        if (passes != 2 * v->edge_count)
            return refuse(err, "the faces pass %zu edges, not twice the %zu edges", passes, v->edge_count);
        for (size_t e = 0; e < 2 * v->edge_count; e++)
            if (hull->edge_faces[e] == UINT32_MAX)
                return refuse(err, "edge %zu is on fewer than two faces", e / 2);
    }
    sr_dvec3 extent = dsub(hull->box_max, hull->box_min);
    double tolerance = CONVEX_TOLERANCE * fmax(extent.x, fmax(extent.y, extent.z)) +
                       8 * DBL_EPSILON * fmax(dmax_abs(hull->box_min), dmax_abs(hull->box_max));
    if ((double)v->face_count * (double)v->vertex_count <= FULL_CHECK_LIMIT) {
        for (size_t f = 0; f < v->face_count; f++)
            for (size_t i = 0; i < v->vertex_count; i++) {
                double above = ddot(v->faces[f].normal, v->vertices[i]) - v->faces[f].offset;
                if (!(above <= tolerance))
                    return refuse(err, "vertex %zu stands above the plane of face %zu (the hull is not convex)", i, f);
            }
        return SR_OK;
    }
    // A hull too large to check every vertex against every face (a file's, perhaps made up): each
    // face's own vertices on its plane, and each edge's two faces below each other's planes
    // (convex at every edge), in time linear in the tables.
    for (size_t f = 0; f < v->face_count; f++)
        for (uint32_t k = 0; k < v->faces[f].count; k++) {
            uint32_t i = v->face_vertices[v->faces[f].first + k];
            double off = ddot(v->faces[f].normal, v->vertices[i]) - v->faces[f].offset;
            if (!(fabs(off) <= tolerance))
                return refuse(err, "vertex %u of face %zu is off its plane by %g", i, f, off);
        }
    for (size_t e = 0; e < v->edge_count; e++)
        for (int side = 0; side < 2; side++) {
            const sr_hull_face *face = &v->faces[hull->edge_faces[2 * e + side]];
            const sr_hull_face *other = &v->faces[hull->edge_faces[2 * e + 1 - side]];
            for (uint32_t k = 0; k < other->count; k++) {
                uint32_t i = v->face_vertices[other->first + k];
                if (!(ddot(face->normal, v->vertices[i]) - face->offset <= tolerance))
                    return refuse(err, "vertex %u stands above the plane of a neighbouring face of edge %zu (the hull "
                                       "is not convex)",
                                  i, e);
            }
        }
    return SR_OK;
}

sr_status sr_hull_create_from_view(const sr_hull_view *view, size_t face_vertex_count, sr_hull **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_hull_create_from_view: out is NULL");
    *out = NULL;
    if (!view)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_hull_create_from_view: view is NULL");
    uint32_t *mark = view->vertex_count ? sr_calloc(view->vertex_count, sizeof *mark) : NULL;
    if (view->vertex_count && !mark)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_hull_create_from_view: out of memory");
    sr_status status = check_view(view, face_vertex_count, mark, err);
    sr_free(mark);
    if (status != SR_OK)
        return status;
    sr_hull_tables tables = {.dimension = view->dimension,
                             .vertex_count = view->vertex_count,
                             .face_count = view->face_count,
                             .face_vertex_count = face_vertex_count,
                             .edge_count = view->edge_count};
    sr_hull *hull = sr_hull_allocate(&tables);
    if (!hull)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_hull_create_from_view: out of memory");
    memcpy((sr_dvec3 *)hull->view.vertices, view->vertices, view->vertex_count * sizeof(sr_dvec3));
    if (view->face_count) {
        memcpy((sr_hull_face *)hull->view.faces, view->faces, view->face_count * sizeof(sr_hull_face));
        memcpy((uint32_t *)hull->view.face_vertices, view->face_vertices, face_vertex_count * sizeof(uint32_t));
    }
    if (view->edge_count)
        memcpy((uint32_t *)hull->view.edges, view->edges, 2 * view->edge_count * sizeof(uint32_t));
    sr_hull_finish(hull);
    status = check_structure(hull, err);
    if (status != SR_OK) {
        sr_hull_destroy(hull);
        return status;
    }
    *out = hull;
    return SR_OK;
}
