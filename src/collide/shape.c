/* src/collide/shape.c — convex shapes of softrast/collide.h: the makers, poses, validation, the
 * public support mappings and sizes, and the "placed" form (collide_internal.h) that every query
 * works on: the shape's core in the query's frame with its rotation as a matrix, and its radius.
 * Knows nothing of the queries themselves, nor of raster, scene or SDL. */
#include "collide_internal.h"

#include <string.h>

/* ---- makers and poses ---- */

sr_shape sr_shape_point(void)
{
    sr_shape shape;
    memset(&shape, 0, sizeof shape);
    shape.type = SR_SHAPE_POINT;
    shape.pose = sr_pose_identity();
    return shape;
}

sr_shape sr_shape_segment(sr_dvec3 a, sr_dvec3 b)
{
    sr_shape shape = sr_shape_point();
    shape.type = SR_SHAPE_SEGMENT;
    shape.points[0] = a;
    shape.points[1] = b;
    return shape;
}

sr_shape sr_shape_triangle(sr_dvec3 a, sr_dvec3 b, sr_dvec3 c)
{
    sr_shape shape = sr_shape_point();
    shape.type = SR_SHAPE_TRIANGLE;
    shape.points[0] = a;
    shape.points[1] = b;
    shape.points[2] = c;
    return shape;
}

sr_shape sr_shape_sphere(double radius)
{
    sr_shape shape = sr_shape_point();
    shape.type = SR_SHAPE_SPHERE;
    shape.radius = radius;
    return shape;
}

sr_shape sr_shape_box(sr_dvec3 half_extents)
{
    sr_shape shape = sr_shape_point();
    shape.type = SR_SHAPE_BOX;
    shape.half_extents = half_extents;
    return shape;
}

static sr_shape axial(sr_shape_type type, double radius, double half_height)
{
    sr_shape shape = sr_shape_point();
    shape.type = type;
    shape.radius = radius;
    shape.half_height = half_height;
    return shape;
}

sr_shape sr_shape_capsule(double radius, double half_height)
{
    return axial(SR_SHAPE_CAPSULE, radius, half_height);
}
sr_shape sr_shape_cylinder(double radius, double half_height)
{
    return axial(SR_SHAPE_CYLINDER, radius, half_height);
}
sr_shape sr_shape_cone(double radius, double half_height)
{
    return axial(SR_SHAPE_CONE, radius, half_height);
}

sr_shape sr_shape_hull(const sr_hull *hull)
{
    sr_shape shape = sr_shape_point();
    shape.type = SR_SHAPE_HULL;
    shape.hull = hull;
    return shape;
}

sr_shape sr_shape_with_pose(sr_shape shape, sr_pose pose)
{
    shape.pose = pose;
    return shape;
}

sr_pose sr_pose_make(sr_dvec3 position, sr_dquat rotation)
{
    sr_pose pose = {position, rotation};
    return pose;
}

sr_pose sr_pose_identity(void)
{
    return sr_pose_make(dv(0, 0, 0), sr_dquat_identity());
}

/* The rotation matrix of a pose's quaternion, normalised (the contract allows 1e-6 off unit
 * length; the matrix is then exactly a rotation up to rounding). Returns false for the identity
 * (a zero quaternion, or a zero vector part). */
static bool rotation_matrix(sr_dquat q, double m[9])
{
    if (q.x == 0 && q.y == 0 && q.z == 0) {
        memset(m, 0, 9 * sizeof(double));
        m[0] = m[4] = m[8] = 1;
        return false;
    }
    double length = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    double s = 2.0 / (length * length);
    double xx = q.x * q.x * s, yy = q.y * q.y * s, zz = q.z * q.z * s;
    double xy = q.x * q.y * s, xz = q.x * q.z * s, yz = q.y * q.z * s;
    double wx = q.w * q.x * s, wy = q.w * q.y * s, wz = q.w * q.z * s;
    m[0] = 1 - (yy + zz);
    m[1] = xy - wz;
    m[2] = xz + wy;
    m[3] = xy + wz;
    m[4] = 1 - (xx + zz);
    m[5] = yz - wx;
    m[6] = xz - wy;
    m[7] = yz + wx;
    m[8] = 1 - (xx + yy);
    return true;
}

static sr_dvec3 rotate(const double m[9], sr_dvec3 v)
{
    return dv(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
              m[6] * v.x + m[7] * v.y + m[8] * v.z);
}

static sr_dvec3 rotate_inverse(const double m[9], sr_dvec3 v)
{
    return dv(m[0] * v.x + m[3] * v.y + m[6] * v.z, m[1] * v.x + m[4] * v.y + m[7] * v.z,
              m[2] * v.x + m[5] * v.y + m[8] * v.z);
}

sr_dvec3 sr_pose_apply(sr_pose pose, sr_dvec3 local)
{
    double m[9];
    if (!rotation_matrix(pose.rotation, m))
        return dadd(local, pose.position);
    return dadd(rotate(m, local), pose.position);
}

sr_dvec3 sr_pose_apply_inverse(sr_pose pose, sr_dvec3 world)
{
    double m[9];
    sr_dvec3 offset = dsub(world, pose.position);
    if (!rotation_matrix(pose.rotation, m))
        return offset;
    return rotate_inverse(m, offset);
}

const char *sr_shape_type_name(sr_shape_type type)
{
    static const char *const names[SR_SHAPE_TYPE_COUNT] = {
        "point", "segment", "triangle", "sphere", "box", "capsule", "cylinder", "cone", "hull",
    };
    return (unsigned)type < SR_SHAPE_TYPE_COUNT ? names[type] : "unknown";
}

/* ---- validation ---- */

static sr_status check_size(const sr_shape *shape, const char *field, double value, sr_error *err)
{
    if (!isfinite(value) || value < 0 || value > SR_COLLIDE_MAX_MAGNITUDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: %s is %g (%s)", sr_shape_type_name(shape->type), field,
                            value,
                            !isfinite(value) ? "not finite"
                            : value < 0      ? "negative"
                                             : "beyond the limit of 1e30");
    return SR_OK;
}

static sr_status check_vector(const sr_shape *shape, const char *field, sr_dvec3 v, bool non_negative, sr_error *err)
{
    const double c[3] = {v.x, v.y, v.z};
    for (int i = 0; i < 3; i++) {
        bool finite = isfinite(c[i]);
        if (!finite || fabs(c[i]) > SR_COLLIDE_MAX_MAGNITUDE || (non_negative && c[i] < 0))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: %s.%c is %g (%s)", sr_shape_type_name(shape->type),
                                field, "xyz"[i], c[i],
                                !finite                                 ? "not finite"
                                : fabs(c[i]) > SR_COLLIDE_MAX_MAGNITUDE ? "beyond the limit of 1e30"
                                                                        : "negative");
    }
    return SR_OK;
}

sr_status sr_shape_validate(const sr_shape *shape, sr_error *err)
{
    if (!shape)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "shape is NULL");
    if ((unsigned)shape->type >= SR_SHAPE_TYPE_COUNT)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "type is %d (not a shape type)", (int)shape->type);
    sr_status status = check_vector(shape, "position", shape->pose.position, false, err);
    if (status)
        return status;
    sr_dquat q = shape->pose.rotation;
    if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: rotation (%g, %g, %g, %g) is not finite",
                            sr_shape_type_name(shape->type), q.x, q.y, q.z, q.w);
    if (q.x != 0 || q.y != 0 || q.z != 0 || q.w != 0) {
        double length = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
        if (!(fabs(length - 1.0) <= 1e-6))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: rotation is not a unit quaternion (length %.9g)",
                                sr_shape_type_name(shape->type), length);
    }
    if ((status = check_size(shape, "rounding", shape->rounding, err)))
        return status;
    switch (shape->type) {
    case SR_SHAPE_POINT:
        return SR_OK;
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE: {
        static const char *const names[3] = {"points[0]", "points[1]", "points[2]"};
        int count = shape->type == SR_SHAPE_SEGMENT ? 2 : 3;
        for (int i = 0; i < count; i++)
            if ((status = check_vector(shape, names[i], shape->points[i], false, err)))
                return status;
        return SR_OK;
    }
    case SR_SHAPE_SPHERE:
        return check_size(shape, "radius", shape->radius, err);
    case SR_SHAPE_BOX:
        return check_vector(shape, "half_extents", shape->half_extents, true, err);
    case SR_SHAPE_CAPSULE:
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        if ((status = check_size(shape, "radius", shape->radius, err)))
            return status;
        return check_size(shape, "half_height", shape->half_height, err);
    case SR_SHAPE_HULL:
        if (!shape->hull)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "hull: hull is NULL");
        return SR_OK;
    default:
        return SR_OK;
    }
}

/* ---- placing ---- */

/* What placing a shape sets besides its rotation, position and points: the core's type, its
 * radius and sizes (every other field of `out` zero, the size too); `local` receives the core's
 * points in the shape's frame (*points of them). Field by field rather than clearing the whole
 * struct first: the scene's collision pass places shapes for every query and axis check. */
static void place_fields(const sr_shape *shape, sr_placed *out, sr_dvec3 local[3], int *points)
{
    out->radius = shape->rounding;
    out->size = 0;
    out->half_extents = dv(0, 0, 0);
    out->core_radius = 0;
    out->half_height = 0;
    out->hull = NULL;
    int n = 0;
    switch (shape->type) {
    case SR_SHAPE_POINT:
        out->core = CORE_POINT;
        local[n++] = dv(0, 0, 0);
        break;
    case SR_SHAPE_SPHERE:
        out->core = CORE_POINT;
        out->radius += shape->radius;
        local[n++] = dv(0, 0, 0);
        break;
    case SR_SHAPE_SEGMENT:
        out->core = CORE_SEGMENT;
        local[n++] = shape->points[0];
        local[n++] = shape->points[1];
        break;
    case SR_SHAPE_CAPSULE:
        out->core = CORE_SEGMENT;
        out->radius += shape->radius;
        local[n++] = dv(0, 0, -shape->half_height);
        local[n++] = dv(0, 0, shape->half_height);
        break;
    case SR_SHAPE_TRIANGLE:
        out->core = CORE_TRIANGLE;
        for (int i = 0; i < 3; i++)
            local[n++] = shape->points[i];
        break;
    case SR_SHAPE_BOX:
        out->core = CORE_BOX;
        out->half_extents = shape->half_extents;
        break;
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        out->core = shape->type == SR_SHAPE_CYLINDER ? CORE_CYLINDER : CORE_CONE;
        out->core_radius = shape->radius;
        out->half_height = shape->half_height;
        break;
    default: {
        const sr_hull_view *view = &shape->hull->view;
        if (view->dimension <= 1) {
            /* a point or a segment: the exact cores of the closed forms */
            out->core = view->dimension == 0 ? CORE_POINT : CORE_SEGMENT;
            for (size_t i = 0; i < view->vertex_count && i < 2; i++)
                local[n++] = view->vertices[i];
        } else {
            out->core = CORE_HULL;
            out->hull = shape->hull;
        }
        break;
    }
    }
    *points = n;
}

/* The placed core without its size (which only the pair queries' tolerances read). */
static void place_core(const sr_shape *shape, sr_dvec3 origin, sr_placed *out)
{
    sr_dvec3 local[3];
    int points;
    place_fields(shape, out, local, &points);
    out->rotated = rotation_matrix(shape->pose.rotation, out->m);
    out->position = dsub(shape->pose.position, origin);
    for (int i = 0; i < 3; i++)
        out->p[i] = i < points ? dadd(out->rotated ? rotate(out->m, local[i]) : local[i], out->position) : dv(0, 0, 0);
}

void sr_placed_make(const sr_shape *shape, sr_dvec3 origin, sr_placed *out)
{
    place_core(shape, origin, out);
    out->size = sr_shape_size_of_valid(shape);
}

bool sr_pair_place(const sr_shape *a, const sr_shape *b, sr_placed *placed_a, sr_placed *placed_b, sr_dvec3 *origin)
{
    if (!a || !b || sr_shape_validate(a, NULL) != SR_OK || sr_shape_validate(b, NULL) != SR_OK)
        return false;
    *origin = a->pose.position;
    sr_placed_make(a, *origin, placed_a);
    sr_placed_make(b, *origin, placed_b);
    return true;
}

void sr_shape_place(const sr_shape *shape, sr_placed_shape *out)
{
    if (!shape || sr_shape_validate(shape, NULL) != SR_OK) {
        memset(out, 0, sizeof *out);
        if (shape)
            out->shape = *shape;
        return;
    }
    out->shape = *shape;
    out->valid = true;
    /* place_core's rotation and points, the points kept before they are moved */
    sr_placed placed;
    sr_dvec3 local[3];
    int points;
    place_fields(shape, &placed, local, &points);
    out->rotated = rotation_matrix(shape->pose.rotation, out->rotation);
    for (int i = 0; i < 3; i++)
        out->core_points[i] = i >= points ? dv(0, 0, 0) : out->rotated ? rotate(out->rotation, local[i]) : local[i];
    out->core_point_count = points;
    out->size = sr_shape_size_of_valid(shape);
}

/* What place_core and sr_placed_make make of a valid placed shape's `shape` (the same matrix, the
 * same rotated points plus the same position), without placing it again. */
static void place_placed(const sr_placed_shape *shape, sr_dvec3 origin, sr_placed *out)
{
    sr_dvec3 local[3];
    int points;
    place_fields(&shape->shape, out, local, &points);
    out->rotated = shape->rotated;
    memcpy(out->m, shape->rotation, sizeof out->m);
    out->position = dsub(shape->shape.pose.position, origin);
    for (int i = 0; i < 3; i++)
        out->p[i] = i < points ? dadd(shape->core_points[i], out->position) : dv(0, 0, 0);
    out->size = shape->size;
}

bool sr_pair_place_placed(const sr_placed_shape *a, const sr_placed_shape *b, sr_placed *placed_a, sr_placed *placed_b,
                          sr_dvec3 *origin)
{
    if (!a || !b || !a->valid || !b->valid)
        return false;
    *origin = a->shape.pose.position;
    place_placed(a, *origin, placed_a);
    place_placed(b, *origin, placed_b);
    return true;
}

/* ---- support mappings and sizes ---- */

uint32_t sr_hull_support_index(const sr_hull *hull, sr_dvec3 d)
{
    size_t count = hull->view.vertex_count;
    if (count <= SR_HULL_CLIMB_THRESHOLD) {
        const double *xs = hull->xs, *ys = hull->ys, *zs = hull->zs;
        uint32_t best = 0;
        double best_dot = xs[0] * d.x + ys[0] * d.y + zs[0] * d.z;
        for (size_t i = 1; i < count; i++) {
            double dot = xs[i] * d.x + ys[i] * d.y + zs[i] * d.z;
            if (dot > best_dot) {
                best_dot = dot;
                best = (uint32_t)i;
            }
        }
        return best;
    }
    /* Hill climbing from the axis-extreme vertex on d's largest component: on a convex polytope
     * every local maximum of a linear function over the vertex graph is a global one. Each move
     * strictly increases the dot product, so the walk ends (and never revisits a vertex). */
    double ax = fabs(d.x), ay = fabs(d.y), az = fabs(d.z);
    int slot = ax >= ay && ax >= az ? (d.x >= 0 ? 0 : 1) : (ay >= az ? (d.y >= 0 ? 2 : 3) : (d.z >= 0 ? 4 : 5));
    uint32_t v = hull->extreme[slot];
    const sr_dvec3 *vertices = hull->view.vertices;
    double best_dot = ddot(vertices[v], d);
    for (;;) {
        uint32_t next = v;
        for (uint32_t k = hull->adjacency_first[v]; k < hull->adjacency_first[v + 1]; k++) {
            uint32_t u = hull->adjacency[k];
            double dot = ddot(vertices[u], d);
            if (dot > best_dot) {
                best_dot = dot;
                next = u;
            }
        }
        if (next == v)
            return v;
        v = next;
    }
}

/* The public support functions and sizes take any shape: one that could make them read through
 * a NULL hull or an unknown type gives the origin (or 0); the queries validate fully. */
static bool usable(const sr_shape *shape)
{
    return shape && (unsigned)shape->type < SR_SHAPE_TYPE_COUNT && (shape->type != SR_SHAPE_HULL || shape->hull);
}

static sr_dvec3 shape_core_support(const sr_shape *shape, sr_dvec3 direction, double *radius)
{
    *radius = 0;
    if (!usable(shape))
        return dv(0, 0, 0);
    sr_placed placed;
    place_core(shape, dv(0, 0, 0), &placed);
    *radius = placed.radius;
    return placed_support(&placed, direction);
}

/* The box of a core placed at the world's origin: its support points along the six axes
 * (sr_shape_support's), grown by its radius. */
static sr_dbox bounds_of_placed(const sr_placed *placed)
{
    sr_dbox box;
    box.max.x = placed_support(placed, dv(1, 0, 0)).x;
    box.max.y = placed_support(placed, dv(0, 1, 0)).y;
    box.max.z = placed_support(placed, dv(0, 0, 1)).z;
    box.min.x = placed_support(placed, dv(-1, 0, 0)).x;
    box.min.y = placed_support(placed, dv(0, -1, 0)).y;
    box.min.z = placed_support(placed, dv(0, 0, -1)).z;
    double r = placed->radius;
    if (r != 0) {
        box.max = dadd(box.max, dv(r, r, r));
        box.min = dsub(box.min, dv(r, r, r));
    }
    return box;
}

sr_dbox sr_shape_bounds(const sr_shape *shape)
{
    if (!shape || sr_shape_validate(shape, NULL) != SR_OK)
        return (sr_dbox){{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    sr_placed placed; /* placed once for the six support points */
    place_core(shape, dv(0, 0, 0), &placed);
    return bounds_of_placed(&placed);
}

sr_dbox sr_placed_bounds(const sr_placed_shape *shape)
{
    if (!shape || !shape->valid)
        return sr_shape_bounds(shape ? &shape->shape : NULL);
    sr_placed placed;
    place_placed(shape, dv(0, 0, 0), &placed);
    return bounds_of_placed(&placed);
}

sr_dvec3 sr_shape_core_support(const sr_shape *shape, sr_dvec3 direction)
{
    double radius;
    return shape_core_support(shape, direction, &radius);
}

sr_dvec3 sr_shape_support(const sr_shape *shape, sr_dvec3 direction)
{
    double radius;
    sr_dvec3 core = shape_core_support(shape, direction, &radius);
    if (radius == 0)
        return core;
    return dmadd(core, radius, sr_dvec3_normalize(direction));
}

sr_dvec3 sr_placed_support(const sr_placed_shape *shape, sr_dvec3 direction)
{
    if (!shape || !shape->valid)
        return sr_shape_support(shape ? &shape->shape : NULL, direction);
    sr_placed placed;
    place_placed(shape, dv(0, 0, 0), &placed);
    sr_dvec3 core = placed_support(&placed, direction);
    if (placed.radius == 0)
        return core;
    return dmadd(core, placed.radius, sr_dvec3_normalize(direction));
}

double sr_shape_core_radius(const sr_shape *shape)
{
    if (!usable(shape))
        return 0;
    switch (shape->type) {
    case SR_SHAPE_SPHERE:
    case SR_SHAPE_CAPSULE:
        return shape->radius + shape->rounding;
    default:
        return shape->rounding;
    }
}

static double box_extent(sr_dvec3 low, sr_dvec3 high)
{
    return fmax(high.x - low.x, fmax(high.y - low.y, high.z - low.z));
}

double sr_shape_size_of_valid(const sr_shape *shape)
{
    double r = shape->rounding;
    switch (shape->type) {
    case SR_SHAPE_POINT:
        return 2 * r;
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE: {
        int count = shape->type == SR_SHAPE_SEGMENT ? 2 : 3;
        sr_dvec3 low = shape->points[0], high = shape->points[0];
        for (int i = 1; i < count; i++) {
            sr_dvec3 p = shape->points[i];
            low = dv(fmin(low.x, p.x), fmin(low.y, p.y), fmin(low.z, p.z));
            high = dv(fmax(high.x, p.x), fmax(high.y, p.y), fmax(high.z, p.z));
        }
        return box_extent(low, high) + 2 * r;
    }
    case SR_SHAPE_SPHERE:
        return 2 * (shape->radius + r);
    case SR_SHAPE_BOX:
        return 2 * dmax_abs(shape->half_extents) + 2 * r;
    case SR_SHAPE_CAPSULE:
        return 2 * (shape->half_height + shape->radius + r);
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        return 2 * fmax(shape->radius, shape->half_height) + 2 * r;
    case SR_SHAPE_HULL:
        return box_extent(shape->hull->box_min, shape->hull->box_max) + 2 * r;
    default:
        return 0;
    }
}

double sr_shape_size(const sr_shape *shape)
{
    return usable(shape) ? sr_shape_size_of_valid(shape) : 0.0;
}
