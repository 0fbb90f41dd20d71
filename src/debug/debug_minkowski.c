/* src/debug/debug_minkowski.c — the Minkowski difference of two collide shapes' cores as a hull
 * (sr_debug_minkowski_hull), for the Minkowski view of sr_debug_collide_trace and for tools: exact
 * from the vertex differences when both cores are polytopes (a cylinder's or cone's rims taken as
 * 32-gons), from support points along a spread of directions when there are too many. Knows the collide module's public API only. */
#include "debug_internal.h"

#include <stdlib.h>

/* Directions spread over the sphere (a Fibonacci lattice) for curved cores. */
#define SAMPLE_DIRECTIONS 642
/* The sides of the polygons a cylinder's or cone's rims are taken as. */
#define RIM_SIDES 32
/* Past this many vertex pairs, the cores are sampled instead (the hull of them would be slow). */
#define MAX_VERTEX_PAIRS 65536

/* The vertices of a polytope core in world coordinates into `out` (NULL: only counted), a
 * cylinder's or cone's rims as polygons; -1 for none. */
static long core_vertices(const sr_shape *s, sr_dvec3 *out)
{
    sr_dvec3 local[8];
    long count = 0;
    const sr_dvec3 *from = local;
    switch (s->type) {
    case SR_SHAPE_POINT:
    case SR_SHAPE_SPHERE:
        local[0] = sr_dvec3_make(0, 0, 0);
        count = 1;
        break;
    case SR_SHAPE_CAPSULE:
        local[0] = sr_dvec3_make(0, 0, -s->half_height);
        local[1] = sr_dvec3_make(0, 0, s->half_height);
        count = 2;
        break;
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
        count = s->type == SR_SHAPE_SEGMENT ? 2 : 3;
        from = s->points;
        break;
    case SR_SHAPE_BOX:
        for (int i = 0; i < 8; i++)
            local[i] = sr_dvec3_make(i & 1 ? s->half_extents.x : -s->half_extents.x,
                                     i & 2 ? s->half_extents.y : -s->half_extents.y,
                                     i & 4 ? s->half_extents.z : -s->half_extents.z);
        count = 8;
        break;
    case SR_SHAPE_HULL: {
        sr_hull_view view = sr_hull_get_view(s->hull);
        from = view.vertices;
        count = (long)view.vertex_count;
        break;
    }
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE: {
        // Rims as polygons of RIM_SIDES vertices (the rings sr_debug_shape draws); a cone's apex.
        bool cone = s->type == SR_SHAPE_CONE;
        count = cone ? RIM_SIDES + 1 : 2 * RIM_SIDES;
        if (!out)
            return count;
        for (int k = 0; k < RIM_SIDES; k++) {
            double angle = 6.283185307179586 * k / RIM_SIDES;
            double x = s->radius * cos(angle), y = s->radius * sin(angle);
            out[k] = sr_pose_apply(s->pose, sr_dvec3_make(x, y, -s->half_height));
            if (!cone)
                out[RIM_SIDES + k] = sr_pose_apply(s->pose, sr_dvec3_make(x, y, s->half_height));
        }
        if (cone)
            out[RIM_SIDES] = sr_pose_apply(s->pose, sr_dvec3_make(0, 0, s->half_height));
        return count;
    }
    default:
        return -1;
    }
    if (out)
        for (long i = 0; i < count; i++)
            out[i] = sr_pose_apply(s->pose, from[i]);
    return count;
}

static sr_status check_shape(const sr_shape *s, const char *name, sr_error *err)
{
    if (!s)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s is NULL", name);
    sr_error why = {0};
    if (sr_shape_validate(s, &why) != SR_OK)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: %s", name, why.message);
    return SR_OK;
}

sr_status sr_debug_minkowski_hull(const sr_shape *a, const sr_shape *b, sr_hull **out, double *rounding,
                                  sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    sr_status status = check_shape(a, "shape a", err);
    if (status == SR_OK)
        status = check_shape(b, "shape b", err);
    if (status != SR_OK)
        return status;
    if (rounding)
        *rounding = sr_shape_core_radius(a) + sr_shape_core_radius(b);
    long na = core_vertices(a, NULL), nb = core_vertices(b, NULL);
    bool exact = na > 0 && nb > 0 && na * nb <= MAX_VERTEX_PAIRS;
    size_t count = exact ? (size_t)(na * nb) : SAMPLE_DIRECTIONS;
    sr_dvec3 *points = malloc(count * sizeof *points + (exact ? (size_t)(na + nb) * sizeof *points : 0));
    if (!points)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory for %zu points of A - B", count);
    if (exact) {
        sr_dvec3 *va = points + count, *vb = va + na;
        core_vertices(a, va);
        core_vertices(b, vb);
        for (long i = 0; i < na; i++)
            for (long j = 0; j < nb; j++)
                points[i * nb + j] = sr_dvec3_sub(va[i], vb[j]);
    } else {
        const double golden = 2.39996322972865332; // pi (3 - sqrt 5)
        for (size_t i = 0; i < count; i++) {
            double z = 1.0 - (2.0 * (double)i + 1.0) / (double)count, rho = sqrt(fmax(0.0, 1.0 - z * z));
            sr_dvec3 d = sr_dvec3_make(rho * cos(golden * (double)i), rho * sin(golden * (double)i), z);
            points[i] = sr_dvec3_sub(sr_shape_core_support(a, d), sr_shape_core_support(b, sr_dvec3_negate(d)));
        }
    }
    status = sr_hull_create(points, count, out, err);
    free(points);
    return status;
}
