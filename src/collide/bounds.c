/* src/collide/bounds.c — bounding volumes of shapes: the axis-aligned box and the k-DOP from the
 * support mapping (exact for every rotated shape: a slab's sides are the support values along its
 * axis), the oriented box and the minimal sphere per type (closed forms for the round shapes,
 * the point-set volumes of bounds_points.c and bounds_obb.c for the others), rounding added.
 * Part of collide. */
#include "bounds_internal.h"
#include "collide_internal.h"

/* sr_shape_bounds is in shape.c, beside the support mappings it reads. */

sr_status sr_shape_kdop(const sr_shape *shape, int k, sr_kdop *out, sr_error *err)
{
    if (k != 6 && k != 14 && k != 18 && k != 26)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_shape_kdop: k is %d (6, 14, 18 or 26)", k);
    if (!shape)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_shape_kdop: shape is NULL");
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_shape_kdop: out is NULL");
    sr_status status = sr_shape_validate(shape, err);
    if (status != SR_OK)
        return status;
    sr_kdop dop = {.k = k};
    for (int slot = 0; slot < 13; slot++) {
        if (!sr_kdop_uses_slot(k, slot)) {
            dop.min[slot] = -INFINITY;
            dop.max[slot] = INFINITY;
            continue;
        }
        sr_dvec3 axis = sr_kdop_axis(slot);
        dop.max[slot] = ddot(sr_shape_support(shape, axis), axis);
        dop.min[slot] = ddot(sr_shape_support(shape, dneg(axis)), axis);
    }
    *out = dop;
    return SR_OK;
}

/* ---- oriented boxes ---- */

/* The shape's rotation as the columns of a matrix (the local axes in the world). */
static void local_axes(const sr_shape *shape, sr_dvec3 axes[3])
{
    /* (a zero rotation is the identity, and rotates nothing) */
    for (int k = 0; k < 3; k++)
        axes[k] = sr_dquat_rotate(shape->pose.rotation, dv(k == 0, k == 1, k == 2));
}

/* A box of the local frame placed by the shape's pose. */
static sr_dobb placed_box(const sr_shape *shape, sr_dobb local)
{
    sr_dvec3 axes[3];
    local_axes(shape, axes);
    sr_dobb out;
    out.centre = sr_pose_apply(shape->pose, local.centre);
    for (int k = 0; k < 3; k++)
        out.axes[k] = dadd(dadd(dscale(axes[0], local.axes[k].x), dscale(axes[1], local.axes[k].y)),
                           dscale(axes[2], local.axes[k].z));
    out.half_extents = local.half_extents;
    return out;
}

sr_status sr_shape_obb(const sr_shape *shape, sr_dobb *out, sr_error *err)
{
    if (!shape)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_shape_obb: shape is NULL");
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_shape_obb: out is NULL");
    sr_status status = sr_shape_validate(shape, err);
    if (status != SR_OK)
        return status;
    sr_dobb local = {.centre = {0, 0, 0}, .axes = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    double r = shape->radius, h = shape->half_height;
    switch (shape->type) {
    case SR_SHAPE_POINT:
        break;
    case SR_SHAPE_SPHERE:
        local.half_extents = dv(r, r, r);
        break;
    case SR_SHAPE_BOX:
        local.half_extents = shape->half_extents;
        break;
    case SR_SHAPE_CAPSULE:
        local.half_extents = dv(r, r, h + r);
        break;
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        local.half_extents = dv(r, r, h);
        break;
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
        status = sr_bound_obb_points(shape->points, shape->type == SR_SHAPE_SEGMENT ? 2 : 3, &local, err);
        break;
    default:
        status = sr_bounds_obb_of_hull(shape->hull, &local, err);
        break;
    }
    if (status != SR_OK)
        return status;
    double rounding = shape->rounding;
    local.half_extents = dadd(local.half_extents, dv(rounding, rounding, rounding));
    *out = placed_box(shape, local);
    return SR_OK;
}

/* ---- minimal spheres ---- */

sr_status sr_shape_bounding_sphere(const sr_shape *shape, sr_dsphere *out, sr_error *err)
{
    if (!shape)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_shape_bounding_sphere: shape is NULL");
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_shape_bounding_sphere: out is NULL");
    sr_status status = sr_shape_validate(shape, err);
    if (status != SR_OK)
        return status;
    sr_dsphere local = {{0, 0, 0}, 0.0};
    double r = shape->radius, h = shape->half_height;
    switch (shape->type) {
    case SR_SHAPE_POINT:
        break;
    case SR_SHAPE_SPHERE:
        local.radius = r;
        break;
    case SR_SHAPE_BOX:
        local.radius = dlength(shape->half_extents);
        break;
    case SR_SHAPE_CAPSULE:
        local.radius = h + r;
        break;
    /* centrally symmetric: the ball about the centre through the rims */
    case SR_SHAPE_CYLINDER:
        local.radius = sqrt(r * r + h * h);
        break;
    case SR_SHAPE_CONE:
        /* the apex (0, 0, h) and the base's rim (radius r at z = -h); by symmetry the centre is on
         * the axis at some z = c. A flat cone (r >= 2h) has the base's ball, which holds the
         * apex; otherwise the ball through the apex and the rim: (h - c)^2 = r^2 + (c + h)^2
         * gives c = -r^2 / (4h), radius h - c. */
        if (r >= 2.0 * h) {
            local.centre = dv(0, 0, -h);
            local.radius = r;
        } else {
            local.centre = dv(0, 0, -r * r / (4.0 * h));
            local.radius = h + r * r / (4.0 * h);
        }
        break;
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE: {
        uint32_t links[2 * 3 + 2];
        local = sr_bounds_welzl(shape->points, shape->type == SR_SHAPE_SEGMENT ? 2 : 3, links);
        break;
    }
    default: {
        sr_hull_view view = sr_hull_get_view(shape->hull);
        status = sr_bounds_sphere("sr_shape_bounding_sphere", view.vertices, view.vertex_count, &local, err);
        if (status != SR_OK)
            return status;
        break;
    }
    }
    out->centre = sr_pose_apply(shape->pose, local.centre);
    out->radius = local.radius + shape->rounding;
    return SR_OK;
}
