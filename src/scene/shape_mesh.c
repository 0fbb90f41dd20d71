/* src/scene/shape_mesh.c — meshes that draw collision shapes (softrast/scene.h:
 * sr_mesh_create_shape; the scene's shape meshes and their wires, scene_shape.c).
 *
 * One construction for every shape type: a convex shape is its core (a polytope: a box's
 * corners, a hull's vertices, points around a cylinder's rims...) summed with a ball of its
 * radius and rounding (Minkowski sum, collide.h's convention). The mesh is the convex hull of
 * core (+) S, where S is a polyhedral sphere of that radius whose vertices lie on the ball: the
 * hull of the pairwise sums is exactly the Minkowski sum of the two polytopes (de Berg et al.,
 * Computational Geometry, 13.3), so every vertex lies on the true surface and the faces come out
 * right by themselves: a rounded box gets its flat faces, quarter-cylinder edges and
 * eighth-sphere corners; a capsule its hemispheres and straight band. S is a 16 x 8 latitude-
 * longitude sphere about local z, so capsules, cylinders and cones have rings and meridians
 * along their axes and its quads are planar (the hull keeps them as quads; the wire shows them).
 * Normals are smoothed between faces meeting at less than 30 degrees (angle-weighted), so curved
 * parts shade smoothly and real edges stay sharp. Knows nothing of drawing or files. */
#include "scene_internal.h"

#include <string.h>

/* The polyhedral sphere: slices around z, stacks from pole to pole (rings at stacks - 1 latitudes). */
#define SPHERE_SLICES 16
#define SPHERE_STACKS 8
#define SPHERE_POINTS (2 + (SPHERE_STACKS - 1) * SPHERE_SLICES)
/* Points on each rim of a cylinder and the base of a cone. */
#define RIM_POINTS 24
/* Faces meeting at less than this share their vertices' normals. */
#define SMOOTH_DEGREES 30.0
/* Markers of shapes without volume or area. */
#define POINT_MARKER_RADIUS 0.05
/* Radius and rounding below this fraction of the core's size are too small to see: not drawn. */
#define NEGLIGIBLE_RADIUS 1e-4
/* In double (SR_PI is a float). */
#define PI 3.14159265358979323846

/* The points of the polyhedral sphere of radius 1: the poles, then the rings top to bottom. */
static void sphere_points(sr_dvec3 out[SPHERE_POINTS])
{
    size_t n = 0;
    out[n++] = sr_dvec3_make(0.0, 0.0, 1.0);
    for (int i = 1; i < SPHERE_STACKS; i++) {
        double theta = PI * (double)i / SPHERE_STACKS; // from the +z pole
        for (int j = 0; j < SPHERE_SLICES; j++) {
            double phi = 2.0 * PI * (double)j / SPHERE_SLICES;
            out[n++] = sr_dvec3_make(sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta));
        }
    }
    out[n++] = sr_dvec3_make(0.0, 0.0, -1.0);
}

/* The core points of a shape (in its frame) and the radius of the ball summed with them. At most
 * 2 * RIM_POINTS points, or the hull's vertices (then *points is the hull's own array). */
typedef struct core {
    sr_dvec3 own[2 * RIM_POINTS];
    const sr_dvec3 *points;
    size_t count;
    double radius;
} core;

static void core_of(const sr_shape *shape, core *c)
{
    size_t n = 0;
    c->radius = shape->rounding;
    switch (shape->type) {
    case SR_SHAPE_POINT:
    case SR_SHAPE_SPHERE:
        c->own[n++] = sr_dvec3_make(0.0, 0.0, 0.0);
        if (shape->type == SR_SHAPE_SPHERE)
            c->radius += shape->radius;
        break;
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
        for (int k = 0; k < (shape->type == SR_SHAPE_SEGMENT ? 2 : 3); k++)
            c->own[n++] = shape->points[k];
        break;
    case SR_SHAPE_BOX:
        for (int k = 0; k < 8; k++)
            c->own[n++] = sr_dvec3_make(k & 1 ? shape->half_extents.x : -shape->half_extents.x,
                                        k & 2 ? shape->half_extents.y : -shape->half_extents.y,
                                        k & 4 ? shape->half_extents.z : -shape->half_extents.z);
        break;
    case SR_SHAPE_CAPSULE:
        c->own[n++] = sr_dvec3_make(0.0, 0.0, -shape->half_height);
        c->own[n++] = sr_dvec3_make(0.0, 0.0, shape->half_height);
        c->radius += shape->radius;
        break;
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        for (int j = 0; j < RIM_POINTS; j++) {
            double phi = 2.0 * PI * (double)j / RIM_POINTS;
            sr_dvec3 rim = sr_dvec3_make(shape->radius * cos(phi), shape->radius * sin(phi), -shape->half_height);
            c->own[n++] = rim;
            if (shape->type == SR_SHAPE_CYLINDER)
                c->own[n++] = sr_dvec3_make(rim.x, rim.y, shape->half_height);
        }
        if (shape->type == SR_SHAPE_CONE)
            c->own[n++] = sr_dvec3_make(0.0, 0.0, shape->half_height);
        break;
    default: { // hull
        sr_hull_view view = sr_hull_get_view(shape->hull);
        c->points = view.vertices;
        c->count = view.vertex_count;
        return;
    }
    }
    c->points = c->own;
    c->count = n;
}

/* Largest extent of the points' box. */
static double extent_of(const sr_dvec3 *points, size_t count)
{
    sr_dvec3 low = points[0], high = points[0];
    for (size_t i = 1; i < count; i++) {
        low = sr_dvec3_make(fmin(low.x, points[i].x), fmin(low.y, points[i].y), fmin(low.z, points[i].z));
        high = sr_dvec3_make(fmax(high.x, points[i].x), fmax(high.y, points[i].y), fmax(high.z, points[i].z));
    }
    return fmax(high.x - low.x, fmax(high.y - low.y, high.z - low.z));
}

/* Angle of the polygon corner at vertex `at` between its neighbours `before` and `after`. */
static double corner_angle(sr_dvec3 before, sr_dvec3 at, sr_dvec3 after)
{
    sr_dvec3 u = sr_dvec3_normalize(sr_dvec3_sub(before, at)), v = sr_dvec3_normalize(sr_dvec3_sub(after, at));
    double c = sr_dvec3_dot(u, v);
    return acos(c < -1.0 ? -1.0 : c > 1.0 ? 1.0 : c);
}

/* The mesh of the hull's faces (fans; the faces are convex, counter-clockwise from outside) with
 * normals smoothed across edges of less than SMOOTH_DEGREES, and its edges as the wire. */
static sr_status mesh_of_hull(const sr_hull *hull, sr_mesh **out, sr_vec3 **wire_out, uint32_t *wire_count,
                              sr_error *err)
{
    sr_hull_view view = sr_hull_get_view(hull);
    size_t corners = 0, triangles = 0;
    for (size_t f = 0; f < view.face_count; f++) {
        corners += view.faces[f].count;
        triangles += view.faces[f].count - 2;
    }
    /* Faces around each vertex (counting sort over the face corners), each corner's angle. */
    uint32_t *first = sr_calloc(view.vertex_count + 1, sizeof *first);
    uint32_t *incident = sr_alloc_array(corners, sizeof *incident);
    double *angles = sr_alloc_array(corners, sizeof *angles);
    /* Per mesh vertex: its hull vertex and normal; per hull vertex the mesh vertices made from it
     * are chained through `next` (UINT32_MAX ends). */
    uint32_t *chain = sr_alloc_array(view.vertex_count, sizeof *chain);
    uint32_t *next = sr_alloc_array(corners, sizeof *next);
    uint32_t *source = sr_alloc_array(corners, sizeof *source);
    sr_dvec3 *normals = sr_alloc_array(corners, sizeof *normals);
    uint32_t *corner_vertex = sr_alloc_array(corners, sizeof *corner_vertex);
    sr_vec3 *wire = sr_alloc_array(2 * (view.edge_count ? view.edge_count : 1), sizeof *wire);
    sr_status status = first && incident && angles && chain && next && source && normals && corner_vertex && wire
                           ? SR_OK
                           : sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "shape mesh: out of memory");
    sr_mesh *mesh = NULL;
    if (status == SR_OK) {
        for (size_t f = 0; f < view.face_count; f++)
            for (uint32_t k = 0; k < view.faces[f].count; k++)
                first[view.face_vertices[view.faces[f].first + k] + 1]++;
        for (size_t v = 0; v < view.vertex_count; v++)
            first[v + 1] += first[v];
        uint32_t *fill = chain; // borrowed as the fill cursor, reset below
        for (size_t v = 0; v < view.vertex_count; v++)
            fill[v] = first[v];
        for (size_t f = 0; f < view.face_count; f++) {
            const sr_hull_face *face = &view.faces[f];
            for (uint32_t k = 0; k < face->count; k++) {
                uint32_t v = view.face_vertices[face->first + k];
                uint32_t before = view.face_vertices[face->first + (k + face->count - 1) % face->count];
                uint32_t after = view.face_vertices[face->first + (k + 1) % face->count];
                incident[fill[v]] = (uint32_t)f;
                angles[fill[v]] = corner_angle(view.vertices[before], view.vertices[v], view.vertices[after]);
                fill[v]++;
            }
        }
        for (size_t v = 0; v < view.vertex_count; v++)
            chain[v] = UINT32_MAX;
        /* Each face corner's normal, and the mesh vertex it becomes (shared with an equal one). */
        const double smooth = cos(SMOOTH_DEGREES * PI / 180.0);
        uint32_t vertex_count = 0;
        size_t corner = 0;
        for (size_t f = 0; f < view.face_count; f++) {
            const sr_hull_face *face = &view.faces[f];
            for (uint32_t k = 0; k < face->count; k++, corner++) {
                uint32_t v = view.face_vertices[face->first + k];
                sr_dvec3 sum = sr_dvec3_make(0.0, 0.0, 0.0);
                for (uint32_t i = first[v]; i < first[v + 1]; i++) {
                    sr_dvec3 other = view.faces[incident[i]].normal;
                    if (sr_dvec3_dot(other, face->normal) >= smooth)
                        sum = sr_dvec3_add(sum, sr_dvec3_scale(other, angles[i]));
                }
                sr_dvec3 normal = sr_dvec3_normalize(sum);
                if (sr_dvec3_length(normal) == 0.0)
                    normal = face->normal;
                uint32_t found = UINT32_MAX;
                for (uint32_t m = chain[v]; m != UINT32_MAX && found == UINT32_MAX; m = next[m])
                    if (sr_dvec3_dot(normals[m], normal) > 1.0 - 1e-9)
                        found = m;
                if (found == UINT32_MAX) {
                    found = vertex_count++;
                    source[found] = v;
                    normals[found] = normal;
                    next[found] = chain[v];
                    chain[v] = found;
                }
                corner_vertex[corner] = found;
            }
        }
        status = sr_mesh_create(
            &(sr_mesh_desc){.vertex_count = vertex_count, .triangle_count = triangles, .normals = true}, &mesh, err);
        if (status == SR_OK) {
            for (uint32_t m = 0; m < vertex_count; m++) {
                mesh->positions[m] = sr_dvec3_to_vec3(view.vertices[source[m]]);
                mesh->normals[m] = sr_dvec3_to_vec3(normals[m]);
            }
            size_t t = 0;
            corner = 0;
            for (size_t f = 0; f < view.face_count; f++) {
                const sr_hull_face *face = &view.faces[f];
                for (uint32_t k = 1; k + 1 < face->count; k++, t++) {
                    mesh->indices[3 * t] = corner_vertex[corner];
                    mesh->indices[3 * t + 1] = corner_vertex[corner + k];
                    mesh->indices[3 * t + 2] = corner_vertex[corner + k + 1];
                }
                corner += face->count;
            }
            for (size_t e = 0; e < view.edge_count; e++) {
                wire[2 * e] = sr_dvec3_to_vec3(view.vertices[view.edges[2 * e]]);
                wire[2 * e + 1] = sr_dvec3_to_vec3(view.vertices[view.edges[2 * e + 1]]);
            }
        }
    }
    sr_free(first);
    sr_free(incident);
    sr_free(angles);
    sr_free(chain);
    sr_free(next);
    sr_free(source);
    sr_free(normals);
    sr_free(corner_vertex);
    if (status != SR_OK) {
        sr_free(wire);
        return status;
    }
    *out = mesh;
    *wire_out = wire;
    *wire_count = (uint32_t)view.edge_count;
    return SR_OK;
}

sr_status sr_shape_tessellate(const sr_shape *shape, sr_mesh **mesh, sr_vec3 **wire, uint32_t *wire_count,
                              sr_error *err)
{
    *mesh = NULL;
    *wire = NULL;
    *wire_count = 0;
    sr_error cause = {0};
    if (!shape)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_create_shape: shape is NULL");
    if (sr_shape_validate(shape, &cause) != SR_OK)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_create_shape: %s", cause.message);
    core c;
    core_of(shape, &c);
    double size = extent_of(c.points, c.count);
    double radius = c.radius > NEGLIGIBLE_RADIUS * size ? c.radius : 0.0;
    sr_hull *hull = NULL;
    if (radius == 0.0) {
        sr_status status = sr_hull_create(c.points, c.count, &hull, &cause);
        if (status != SR_OK)
            return sr_error_set(err, status, "sr_mesh_create_shape: %s", cause.message);
        sr_hull_view view = sr_hull_get_view(hull);
        if (view.dimension >= 2) {
            status = mesh_of_hull(hull, mesh, wire, wire_count, err);
            sr_hull_destroy(hull);
            return status;
        }
        // A point or a segment (of any type): its marker.
        radius = view.dimension == 0 ? POINT_MARKER_RADIUS
                                     : fmin(POINT_MARKER_RADIUS,
                                            0.1 * sr_dvec3_length(sr_dvec3_sub(view.vertices[1], view.vertices[0])));
        sr_hull_destroy(hull);
        hull = NULL;
    }
    sr_dvec3 ball[SPHERE_POINTS];
    sphere_points(ball);
    size_t count = c.count * SPHERE_POINTS;
    sr_dvec3 *points = sr_alloc_array(count, sizeof *points);
    if (!points)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_mesh_create_shape: out of memory for %zu points", count);
    for (size_t i = 0; i < c.count; i++)
        for (size_t j = 0; j < SPHERE_POINTS; j++)
            points[i * SPHERE_POINTS + j] = sr_dvec3_add(c.points[i], sr_dvec3_scale(ball[j], radius));
    sr_status status = sr_hull_create(points, count, &hull, &cause);
    sr_free(points);
    if (status != SR_OK)
        return sr_error_set(err, status, "sr_mesh_create_shape: %s", cause.message);
    status = mesh_of_hull(hull, mesh, wire, wire_count, err);
    sr_hull_destroy(hull);
    return status;
}

sr_status sr_mesh_create_shape(const sr_shape *shape, sr_mesh **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_create_shape: out is NULL");
    sr_vec3 *wire = NULL;
    uint32_t wire_count = 0;
    sr_status status = sr_shape_tessellate(shape, out, &wire, &wire_count, err);
    sr_free(wire);
    return status;
}
