/* tests/collide_oracle_generate.c — the pair generator of the oracle (collide_oracle.h): every
 * ordered pair of shape types in every kind of configuration (apart, near-touching, penetrating,
 * degenerate), deterministic from a seed; rays and sweeps for the casts; and the pairs-format
 * text of a pair, so that a failure can be replayed with `softrast collide --pairs`. */
#include "collide_oracle_internal.h"
#include "test_rng.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers ---- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static rng seeded(uint64_t seed, uint64_t index, uint64_t stream)
{
    rng r = {mix(seed ^ mix(index ^ mix(stream)))};
    if (r.state == 0)
        r.state = 1;
    return r;
}

/* Uniform in [0, 1) with 53 bits. */
static double uniform(rng *r)
{
    uint64_t high = rng_next(r) >> 5, low = rng_next(r) >> 6;
    return (double)(high * 67108864.0 + (double)low) * 0x1p-53;
}

static double between(rng *r, double low, double high)
{
    return low + (high - low) * uniform(r);
}

static int below(rng *r, int n)
{
    return (int)(uniform(r) * n);
}

static sr_dvec3 random_direction(rng *r)
{
    for (;;) {
        double x = between(r, -1, 1);
        double y = between(r, -1, 1);
        double z = between(r, -1, 1);
        sr_dvec3 d = v3(x, y, z);
        double length = vlen(d);
        if (length > 0.05 && length <= 1.0)
            return vscale(d, 1.0 / length);
    }
}

static sr_dvec3 random_in_ball(rng *r)
{
    return vscale(random_direction(r), cbrt(uniform(r)));
}

/* ---- quaternions ---- */

static sr_dquat quat_mul(sr_dquat a, sr_dquat b)
{
    return (sr_dquat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static sr_dquat quat_unit(sr_dquat q)
{
    double length = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return (sr_dquat){q.x / length, q.y / length, q.z / length, q.w / length};
}

static sr_dquat quat_axis_angle(sr_dvec3 axis, double angle)
{
    sr_dvec3 a = vunit(axis);
    double s = sin(0.5 * angle);
    return quat_unit((sr_dquat){a.x * s, a.y * s, a.z * s, cos(0.5 * angle)});
}

/* The rotation taking unit vector f to unit vector g. */
static sr_dquat quat_between(sr_dvec3 f, sr_dvec3 g)
{
    double c = vdot(f, g);
    if (c < -1.0 + 1e-12) {
        sr_dvec3 t1, t2;
        oracle_basis(f, &t1, &t2);
        return (sr_dquat){t1.x, t1.y, t1.z, 0.0};
    }
    sr_dvec3 axis = vcross(f, g);
    return quat_unit((sr_dquat){axis.x, axis.y, axis.z, 1.0 + c});
}

/* A uniformly random rotation (Shoemake), or one of the four exact ones (identity, half turns
 * about x, y, z) that keep axis-aligned faces exactly axis-aligned. */
static sr_dquat random_rotation(rng *r)
{
    if (uniform(r) < 0.25) {
        static const sr_dquat exact[4] = {{0, 0, 0, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
        return exact[below(r, 4)];
    }
    double u1 = uniform(r), u2 = 2.0 * M_PI * uniform(r), u3 = 2.0 * M_PI * uniform(r);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    return quat_unit((sr_dquat){a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)});
}

/* The quaternion of a rotation matrix, for frames built from vectors. */
static sr_dquat quat_from_matrix(double m[3][3])
{
    double trace = m[0][0] + m[1][1] + m[2][2];
    sr_dquat q;
    if (trace > 0.0) {
        double s = 2.0 * sqrt(trace + 1.0);
        q = (sr_dquat){(m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, 0.25 * s};
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = 2.0 * sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]);
        q = (sr_dquat){0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s, (m[2][1] - m[1][2]) / s};
    } else if (m[1][1] > m[2][2]) {
        double s = 2.0 * sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]);
        q = (sr_dquat){(m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s, (m[0][2] - m[2][0]) / s};
    } else {
        double s = 2.0 * sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]);
        q = (sr_dquat){(m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s, (m[1][0] - m[0][1]) / s};
    }
    return quat_unit(q);
}

/* The rotation taking the orthonormal frame (f1, f2, f1 x f2) to (g1, g2, g1 x g2): G F^T, the
 * frames as columns. */
static sr_dquat quat_frames(sr_dvec3 f1, sr_dvec3 f2, sr_dvec3 g1, sr_dvec3 g2)
{
    sr_dvec3 f3 = vcross(f1, f2), g3 = vcross(g1, g2);
    const double f[3][3] = {{f1.x, f1.y, f1.z}, {f2.x, f2.y, f2.z}, {f3.x, f3.y, f3.z}};
    const double g[3][3] = {{g1.x, g1.y, g1.z}, {g2.x, g2.y, g2.z}, {g3.x, g3.y, g3.z}};
    double m[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m[i][j] = g[0][i] * f[0][j] + g[1][i] * f[1][j] + g[2][i] * f[2][j];
    return quat_from_matrix(m);
}

/* ---- shapes ---- */

static const char *make_hull(rng *r, double scale, oracle_shape *s)
{
    static const char *const flavours[] = {"generic", "generic", "duplicates",  "flat",
                                           "needle",  "boxy",    "tetrahedron", "point"};
    int flavour = below(r, 8);
    sr_dvec3 axes = v3(between(r, 0.3, 1.0) * scale, between(r, 0.3, 1.0) * scale, between(r, 0.3, 1.0) * scale);
    sr_dvec3 centre = vscale(random_in_ball(r), 0.2 * scale);
    size_t n = 0;
    switch (flavour) {
    case 0:
    case 1: {
        size_t count = 4 + (size_t)below(r, 21);
        bool surface = uniform(r) < 0.5;
        for (size_t i = 0; i < count; i++) {
            sr_dvec3 p = surface ? random_direction(r) : random_in_ball(r);
            s->points[n++] = vadd(centre, v3(p.x * axes.x, p.y * axes.y, p.z * axes.z));
        }
        break;
    }
    case 2: { /* duplicates, interior points, points on edges */
        size_t count = 4 + (size_t)below(r, 10);
        for (size_t i = 0; i < count; i++) {
            sr_dvec3 p = random_direction(r);
            s->points[n++] = vadd(centre, v3(p.x * axes.x, p.y * axes.y, p.z * axes.z));
        }
        size_t extra = 2 + (size_t)below(r, 8);
        for (size_t i = 0; i < extra; i++) {
            int kind = below(r, 3);
            const sr_dvec3 p = s->points[below(r, (int)count)], q = s->points[below(r, (int)count)];
            if (kind == 0)
                s->points[n++] = p;
            else if (kind == 1)
                s->points[n++] = vadd(centre, vscale(vsub(p, centre), between(r, 0.0, 0.9)));
            else
                s->points[n++] = vlerp(p, q, 0.5);
        }
        break;
    }
    case 3: { /* flat: a polygon in the plane z = 0 */
        size_t count = 3 + (size_t)below(r, 12);
        for (size_t i = 0; i < count; i++) {
            double angle = between(r, 0, 2 * M_PI), radius = uniform(r) < 0.5 ? 1.0 : sqrt(uniform(r));
            s->points[n++] = v3(centre.x + axes.x * radius * cos(angle), centre.y + axes.y * radius * sin(angle), 0.0);
        }
        break;
    }
    case 4: { /* needle: points on a line */
        size_t count = 2 + (size_t)below(r, 6);
        for (size_t i = 0; i < count; i++)
            s->points[n++] = v3(centre.x + between(r, -1, 1) * axes.x, 0.0, 0.0);
        break;
    }
    case 5: { /* a box's corners, points on its faces (coplanar), inside points */
        for (int i = 0; i < 8; i++)
            s->points[n++] = v3(i & 1 ? axes.x : -axes.x, i & 2 ? axes.y : -axes.y, i & 4 ? axes.z : -axes.z);
        size_t extra = (size_t)below(r, 12);
        for (size_t i = 0; i < extra; i++) {
            int axis = below(r, 3);
            double c[3] = {between(r, -1, 1) * axes.x, between(r, -1, 1) * axes.y, between(r, -1, 1) * axes.z};
            double half[3] = {axes.x, axes.y, axes.z};
            if (uniform(r) < 0.8)
                c[axis] = uniform(r) < 0.5 ? -half[axis] : half[axis];
            s->points[n++] = v3(c[0], c[1], c[2]);
        }
        break;
    }
    case 6:
        s->points[n++] = v3(axes.x, 0, 0);
        s->points[n++] = v3(0, axes.y, 0);
        s->points[n++] = v3(0, 0, axes.z);
        s->points[n++] = v3(-axes.x / 3, -axes.y / 3, -axes.z / 3);
        break;
    default: { /* one point, repeated */
        size_t count = 1 + (size_t)below(r, 3);
        for (size_t i = 0; i < count; i++)
            s->points[n++] = centre;
        break;
    }
    }
    s->point_count = n;
    return flavours[flavour];
}

static const char *make_shape(rng *r, sr_shape_type type, double scale, oracle_shape *s)
{
    memset(s, 0, sizeof *s);
    s->type = type;
    s->pose.rotation = (sr_dquat){0, 0, 0, 1};
    const char *flavour = NULL;
    switch (type) {
    case SR_SHAPE_POINT:
        break;
    case SR_SHAPE_SEGMENT: {
        sr_dvec3 half = vscale(random_direction(r), between(r, 0.2, 1.0) * scale);
        sr_dvec3 centre = vscale(random_in_ball(r), 0.2 * scale);
        s->points[0] = vsub(centre, half);
        s->points[1] = vadd(centre, half);
        s->point_count = 2;
        break;
    }
    case SR_SHAPE_TRIANGLE:
        for (int i = 0; i < 3; i++)
            s->points[i] = vscale(random_in_ball(r), scale);
        if (uniform(r) < 0.05) /* degenerate: a segment */
            s->points[2] = vlerp(s->points[0], s->points[1], between(r, 0, 1));
        s->point_count = 3;
        break;
    case SR_SHAPE_SPHERE:
        s->radius = between(r, 0.2, 0.8) * scale;
        break;
    case SR_SHAPE_BOX:
        s->half_extents = v3(between(r, 0.1, 0.8) * scale, between(r, 0.1, 0.8) * scale, between(r, 0.1, 0.8) * scale);
        if (uniform(r) < 0.04) /* a flat box */
            s->half_extents.z = 0.0;
        break;
    case SR_SHAPE_CAPSULE:
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        s->radius = between(r, 0.1, 0.7) * scale;
        s->half_height = between(r, 0.05, 0.8) * scale;
        if (type != SR_SHAPE_CAPSULE && uniform(r) < 0.04) /* a disc */
            s->half_height = 0.0;
        break;
    case SR_SHAPE_HULL:
        flavour = make_hull(r, scale, s);
        break;
    default:
        assert(!"make_shape: unknown type");
    }
    if (uniform(r) < 0.25)
        s->rounding = between(r, 0.02, 0.2) * scale;
    s->pose.rotation = random_rotation(r);
    return flavour;
}

/* The shape made smaller by `factor` about its local origin. */
static void shrink(oracle_shape *s, double factor)
{
    s->radius *= factor;
    s->half_height *= factor;
    s->rounding *= factor;
    s->half_extents = vscale(s->half_extents, factor);
    for (size_t i = 0; i < s->point_count; i++)
        s->points[i] = vscale(s->points[i], factor);
}

static sr_dvec3 world_point(const oracle_shape *s, sr_dvec3 local)
{
    sr_dvec3 m[3];
    oracle_quat_matrix(s->pose.rotation, m);
    return vadd(oracle_mat_apply(m, local), s->pose.position);
}

static sr_dvec3 world_direction(const oracle_shape *s, sr_dvec3 local)
{
    sr_dvec3 m[3];
    oracle_quat_matrix(s->pose.rotation, m);
    return oracle_mat_apply(m, local);
}

/* A body of the shape at its pose, in one scratch (large; the generator runs on one thread). */
static const oracle_body *scratch_body(const oracle_shape *s, int slot)
{
    static oracle_body bodies[2];
    oracle_body_make(s, v3(0, 0, 0), &bodies[slot]);
    return &bodies[slot];
}

/* Support point of a shape at its current pose (rounding included). */
static sr_dvec3 shape_support(const oracle_shape *s, sr_dvec3 n)
{
    return oracle_support(scratch_body(s, 0), n);
}

static double shape_size(const oracle_shape *s)
{
    return scratch_body(s, 0)->size;
}

/* The centre of the shape's bounding box (world). */
static sr_dvec3 shape_centre(const oracle_shape *s)
{
    const oracle_body *body = scratch_body(s, 0);
    double c[3];
    for (int k = 0; k < 3; k++) {
        sr_dvec3 axis = v3(k == 0, k == 1, k == 2);
        c[k] = 0.5 * (vdot(axis, oracle_support(body, axis)) + vdot(axis, oracle_support(body, vscale(axis, -1.0))));
    }
    return v3(c[0], c[1], c[2]);
}

/* B placed so that its support point along -n is A's along n moved by `gap` * n: apart by gap
 * (when n is their optimal direction; they are never nearer), or sunk by -gap along n. */
static void place_along(const oracle_shape *a, oracle_shape *b, sr_dvec3 n, double gap)
{
    b->pose.position = v3(0, 0, 0);
    sr_dvec3 pa = oracle_support(scratch_body(a, 0), n), pb = oracle_support(scratch_body(b, 1), vscale(n, -1.0));
    b->pose.position = vsub(vmadd(pa, n, gap), pb);
}

/* A face of a shape (local): its outward normal and a point in its middle. False when it has
 * none (points, segments, spheres, capsules). */
static bool pick_face(rng *r, const oracle_shape *s, sr_dvec3 *normal, sr_dvec3 *middle)
{
    static oracle_poly poly;
    switch (s->type) {
    case SR_SHAPE_BOX: {
        int axis = below(r, 3);
        double sign = uniform(r) < 0.5 ? -1.0 : 1.0, h[3] = {s->half_extents.x, s->half_extents.y, s->half_extents.z};
        double n[3] = {0, 0, 0};
        n[axis] = sign;
        *normal = v3(n[0], n[1], n[2]);
        *middle = vscale(*normal, h[axis]);
        return true;
    }
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE: {
        double sign = s->type == SR_SHAPE_CONE || uniform(r) < 0.5 ? -1.0 : 1.0;
        *normal = v3(0, 0, sign);
        *middle = v3(0, 0, sign * s->half_height);
        return true;
    }
    case SR_SHAPE_TRIANGLE:
    case SR_SHAPE_HULL:
        oracle_poly_build(s->points, s->point_count, &poly);
        if (poly.face_count == 0)
            return false;
        const oracle_face *face = &poly.faces[below(r, poly.face_count)];
        sr_dvec3 sum = v3(0, 0, 0);
        for (int i = 0; i < face->count; i++)
            sum = vadd(sum, poly.vertices[poly.face_vertices[face->first + i]]);
        *normal = face->normal;
        *middle = vscale(sum, 1.0 / face->count);
        return true;
    default:
        return false;
    }
}

/* An edge of a shape (local): its unit direction, middle, and the middle of its normal cone
 * (the sum of its faces' normals; in a flat core's plane, outwards; across a segment, any). */
static bool pick_edge(rng *r, const oracle_shape *s, sr_dvec3 *direction, sr_dvec3 *middle, sr_dvec3 *outward)
{
    static oracle_poly poly;
    sr_dvec3 local[ORACLE_MAX_POINTS];
    size_t count = 0;
    switch (s->type) {
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
    case SR_SHAPE_HULL:
        count = s->point_count;
        memcpy(local, s->points, count * sizeof local[0]);
        break;
    case SR_SHAPE_CAPSULE:
        local[count++] = v3(0, 0, -s->half_height);
        local[count++] = v3(0, 0, s->half_height);
        break;
    case SR_SHAPE_BOX:
        for (int i = 0; i < 8; i++)
            local[count++] =
                v3(i & 1 ? s->half_extents.x : -s->half_extents.x, i & 2 ? s->half_extents.y : -s->half_extents.y,
                   i & 4 ? s->half_extents.z : -s->half_extents.z);
        break;
    default:
        return false;
    }
    oracle_poly_build(local, count, &poly);
    if (poly.edge_count == 0)
        return false;
    int e = below(r, poly.edge_count);
    sr_dvec3 p = poly.vertices[poly.edges[e][0]], q = poly.vertices[poly.edges[e][1]];
    *direction = vunit(vsub(q, p));
    *middle = vlerp(p, q, 0.5);
    sr_dvec3 sum = v3(0, 0, 0);
    if (poly.dimension == 3) {
        for (int f = 0; f < poly.face_count; f++) {
            const oracle_face *face = &poly.faces[f];
            for (int i = 0; i < face->count; i++) {
                int u = poly.face_vertices[face->first + i],
                    v = poly.face_vertices[face->first + (i + 1) % face->count];
                if ((u == poly.edges[e][0] && v == poly.edges[e][1]) ||
                    (u == poly.edges[e][1] && v == poly.edges[e][0]))
                    sum = vadd(sum, face->normal);
            }
        }
    } else if (poly.dimension == 2) {
        sr_dvec3 centroid = v3(0, 0, 0);
        for (int i = 0; i < poly.vertex_count; i++)
            centroid = vadd(centroid, poly.vertices[i]);
        centroid = vscale(centroid, 1.0 / poly.vertex_count);
        sum = vcross(*direction, poly.axis);
        if (vdot(sum, vsub(*middle, centroid)) < 0.0)
            sum = vscale(sum, -1.0);
    }
    if (vlen(sum) < 1e-9) {
        sr_dvec3 t1, t2;
        oracle_basis(*direction, &t1, &t2);
        double angle = between(r, 0, 2 * M_PI);
        sum = vadd(vscale(t1, cos(angle)), vscale(t2, sin(angle)));
    }
    *outward = vunit(vsub(sum, vscale(*direction, vdot(sum, *direction))));
    return true;
}

const char *oracle_kind_name(oracle_kind kind)
{
    static const char *const names[ORACLE_KIND_COUNT] = {"separated",  "touch+1e-4", "touch-1e-4", "touch+1e-6",
                                                         "touch-1e-6", "touch0",     "shallow",    "deep",
                                                         "identical",  "inside",     "coplanar",   "parallel-edges"};
    return kind < ORACLE_KIND_COUNT ? names[kind] : "unknown";
}

static double kind_gap(rng *r, oracle_kind kind, double size)
{
    switch (kind) {
    case ORACLE_SEPARATED:
        return between(r, 0.05, 1.5) * size;
    case ORACLE_TOUCH_PLUS_1E4:
        return 1e-4 * size;
    case ORACLE_TOUCH_MINUS_1E4:
        return -1e-4 * size;
    case ORACLE_TOUCH_PLUS_1E6:
        return 1e-6 * size;
    case ORACLE_TOUCH_MINUS_1E6:
        return -1e-6 * size;
    case ORACLE_SHALLOW:
        return -between(r, 1e-3, 3e-2) * size;
    case ORACLE_DEEP:
        return -between(r, 0.1, 0.6) * size;
    default: { /* faces and edges: touching, just apart or in, or clearly apart */
        static const double gaps[5] = {0.0, 1e-6, -1e-6, 0.1, -0.01};
        return gaps[below(r, 5)] * size;
    }
    }
}

void oracle_generate_pair(uint64_t seed, uint64_t index, oracle_shape *a, oracle_shape *b, oracle_pair_info *info)
{
    rng r = seeded(seed, index, 1);
    oracle_kind kind = (oracle_kind)(index % ORACLE_KIND_COUNT);
    uint64_t combo = (index / ORACLE_KIND_COUNT) % (SR_SHAPE_TYPE_COUNT * SR_SHAPE_TYPE_COUNT);
    sr_shape_type type_a = (sr_shape_type)(combo % SR_SHAPE_TYPE_COUNT);
    sr_shape_type type_b = (sr_shape_type)(combo / SR_SHAPE_TYPE_COUNT);
    double u = uniform(&r);
    double scale = u < 0.1 ? 1e-3 : (u < 0.2 ? 1e3 : 1.0);
    bool far = uniform(&r) < 0.15;
    oracle_pair_info meta = {kind, scale, far, NULL, NULL, ORACLE_GAP_NONE, 0.0};
    meta.hull_a = make_shape(&r, type_a, scale, a);
    meta.hull_b = make_shape(&r, type_b, scale, b);
    double size = fmin(shape_size(a), shape_size(b));
    if (size == 0.0)
        size = fmax(fmax(shape_size(a), shape_size(b)), scale);

    switch (kind) {
    case ORACLE_IDENTICAL:
        *b = *a;
        meta.hull_b = meta.hull_a;
        break;
    case ORACLE_INSIDE: {
        bool swap = uniform(&r) < 0.5;
        oracle_shape *outer = swap ? b : a, *inner = swap ? a : b;
        double inner_size = shape_size(inner), factor = between(&r, 0.05, 0.3) * shape_size(outer);
        if (inner_size > 0.0) /* a point (or a hull of one point) has no size to scale */
            shrink(inner, factor / inner_size);
        /* The inner shape's box centre on the outer's, nudged a little. */
        inner->pose.position = v3(0, 0, 0);
        sr_dvec3 offset = vsub(shape_centre(outer), shape_centre(inner));
        inner->pose.position = vadd(offset, vscale(random_in_ball(&r), 0.05 * shape_size(outer)));
        break;
    }
    case ORACLE_COPLANAR: {
        sr_dvec3 na, ma, nb, mb;
        if (!pick_face(&r, a, &na, &ma) || !pick_face(&r, b, &nb, &mb)) {
            meta.gap = kind_gap(&r, kind, size);
            meta.gap_kind = ORACLE_GAP_SUPPORT;
            place_along(a, b, random_direction(&r), meta.gap);
            break;
        }
        sr_dvec3 n = world_direction(a, na), middle = world_point(a, ma);
        /* B's face normal onto -n, then turned about n: by a right angle or at random. */
        double spin = uniform(&r) < 0.5 ? 0.5 * M_PI * below(&r, 4) : between(&r, 0, 2 * M_PI);
        b->pose.rotation = quat_mul(quat_axis_angle(n, spin), quat_between(nb, vscale(n, -1.0)));
        sr_dvec3 t1, t2;
        oracle_basis(n, &t1, &t2);
        double lateral = uniform(&r) < 0.3 ? 0.0 : 0.3 * size;
        double lx = between(&r, -lateral, lateral), ly = between(&r, -lateral, lateral);
        meta.gap = kind_gap(&r, kind, size);
        meta.gap_kind = ORACLE_GAP_AT_LEAST;
        double gap = meta.gap + a->rounding + b->rounding;
        b->pose.position = v3(0, 0, 0);
        b->pose.position = vsub(vadd(vmadd(middle, n, gap), vadd(vscale(t1, lx), vscale(t2, ly))), world_point(b, mb));
        break;
    }
    case ORACLE_PARALLEL_EDGES: {
        sr_dvec3 ea, ma, oa, eb, mb, ob;
        if (!pick_edge(&r, a, &ea, &ma, &oa) || !pick_edge(&r, b, &eb, &mb, &ob)) {
            meta.gap = kind_gap(&r, kind, size);
            meta.gap_kind = ORACLE_GAP_SUPPORT;
            place_along(a, b, random_direction(&r), meta.gap);
            break;
        }
        sr_dvec3 e = world_direction(a, ea), out = world_direction(a, oa), middle = world_point(a, ma);
        b->pose.rotation = quat_frames(eb, ob, e, vscale(out, -1.0));
        meta.gap = kind_gap(&r, kind, size);
        meta.gap_kind = ORACLE_GAP_AT_LEAST;
        /* A capsule's edge is its core's: its radius is around it. */
        double gap = meta.gap + a->rounding + b->rounding + (a->type == SR_SHAPE_CAPSULE ? a->radius : 0.0) +
                     (b->type == SR_SHAPE_CAPSULE ? b->radius : 0.0);
        double slide = between(&r, -0.3, 0.3) * size;
        b->pose.position = v3(0, 0, 0);
        b->pose.position = vsub(vmadd(vmadd(middle, out, gap), e, slide), world_point(b, mb));
        break;
    }
    default:
        meta.gap = kind_gap(&r, kind, size);
        meta.gap_kind = ORACLE_GAP_SUPPORT;
        place_along(a, b, random_direction(&r), meta.gap);
        break;
    }
    if (far) {
        sr_dvec3 offset = vscale(random_direction(&r), 1e3);
        a->pose.position = vadd(a->pose.position, offset);
        b->pose.position = vadd(b->pose.position, offset);
    }
    if (info)
        *info = meta;
}

void oracle_generate_ray(uint64_t seed, uint64_t index, const oracle_shape *shape, sr_dvec3 *origin,
                         sr_dvec3 *direction, double *max_t)
{
    rng r = seeded(seed, index, 2);
    double size = shape_size(shape);
    if (size == 0.0)
        size = 1.0;
    sr_dvec3 centre = shape_centre(shape);
    double speed = between(&r, 0.2, 5.0); /* directions of any length: t is in units of it */
    int kind = below(&r, 5);
    if (kind <= 1) { /* aimed at the shape from outside; sometimes too short to reach it */
        *origin = vmadd(centre, random_direction(&r), between(&r, 1.2, 4.0) * size);
        sr_dvec3 target = vmadd(centre, random_in_ball(&r), 0.6 * size);
        *direction = vscale(vunit(vsub(target, *origin)), speed);
        *max_t = vdist(target, *origin) / speed * (kind == 0 ? between(&r, 0.2, 1.0) : between(&r, 1.0, 3.0));
    } else if (kind == 2) { /* from inside or near the middle */
        *origin = vmadd(centre, random_in_ball(&r), 0.3 * size);
        *direction = vscale(random_direction(&r), speed);
        *max_t = 3.0 * size / speed;
    } else { /* grazing: past a support point, within 0, 1e-6 or 1e-4 of it, or along a face */
        sr_dvec3 d = random_direction(&r), t1, t2;
        oracle_basis(d, &t1, &t2);
        double angle = between(&r, 0, 2 * M_PI);
        sr_dvec3 m = vadd(vscale(t1, cos(angle)), vscale(t2, sin(angle)));
        static const double offsets[5] = {0.0, 1e-6, -1e-6, 1e-4, -1e-4};
        sr_dvec3 p = vmadd(shape_support(shape, m), m, offsets[below(&r, 5)] * size);
        if (kind == 4) {
            sr_dvec3 normal, middle;
            if (pick_face(&r, shape, &normal, &middle)) {
                sr_dvec3 n = world_direction(shape, normal);
                p = vmadd(world_point(shape, middle), n, shape->rounding + offsets[below(&r, 5)] * size);
                d = vsub(d, vscale(n, vdot(d, n)));
                if (vlen(d) < 1e-6)
                    oracle_basis(n, &d, &t2);
                d = vunit(d);
            }
        }
        *origin = vmadd(p, d, -between(&r, 1.0, 3.0) * size);
        *direction = vscale(d, speed);
        *max_t = 6.0 * size / speed;
    }
}

sr_dvec3 oracle_generate_sweep(uint64_t seed, uint64_t index, const oracle_shape *a, const oracle_shape *b)
{
    rng r = seeded(seed, index, 3);
    double size = fmax(fmin(shape_size(a), shape_size(b)), 1e-3 * fmax(shape_size(a), shape_size(b)));
    if (size == 0.0)
        size = 1.0;
    int kind = below(&r, 6);
    if (kind == 0)
        return v3(0, 0, 0);
    sr_dvec3 towards = vsub(shape_centre(b), shape_centre(a));
    if (kind == 1) /* short, in any direction */
        return vscale(random_direction(&r), between(&r, 0.0, 0.2) * size);
    return vadd(vscale(towards, between(&r, 0.3, 2.5)), vscale(random_in_ball(&r), 0.5 * size));
}

/* ---- shapes in and out ---- */

sr_shape oracle_to_shape(const oracle_shape *s, const sr_hull *hull)
{
    sr_shape shape;
    memset(&shape, 0, sizeof shape);
    shape.type = s->type;
    shape.pose = s->pose;
    shape.radius = s->radius;
    shape.half_height = s->half_height;
    shape.half_extents = s->half_extents;
    shape.rounding = s->rounding;
    for (size_t i = 0; i < 3 && i < s->point_count; i++)
        shape.points[i] = s->points[i];
    shape.hull = s->type == SR_SHAPE_HULL ? hull : NULL;
    return shape;
}

bool oracle_from_shape(const sr_shape *shape, const sr_dvec3 *points, size_t count, oracle_shape *out)
{
    memset(out, 0, sizeof *out);
    out->type = shape->type;
    out->pose = shape->pose;
    out->radius = shape->radius;
    out->half_height = shape->half_height;
    out->half_extents = shape->half_extents;
    out->rounding = shape->rounding;
    if (shape->type == SR_SHAPE_SEGMENT || shape->type == SR_SHAPE_TRIANGLE) {
        out->point_count = shape->type == SR_SHAPE_SEGMENT ? 2 : 3;
        memcpy(out->points, shape->points, out->point_count * sizeof out->points[0]);
    } else if (shape->type == SR_SHAPE_HULL) {
        if (!points || count == 0 || count > ORACLE_MAX_POINTS)
            return false;
        out->point_count = count;
        memcpy(out->points, points, count * sizeof out->points[0]);
    }
    return true;
}

static void print_vector(FILE *out, sr_dvec3 v)
{
    fprintf(out, "[%.17g,%.17g,%.17g]", v.x, v.y, v.z);
}

void oracle_print_shape(FILE *out, const oracle_shape *s)
{
    static const char *const names[SR_SHAPE_TYPE_COUNT] = {"point",   "segment",  "triangle", "sphere", "box",
                                                           "capsule", "cylinder", "cone",     "hull"};
    fprintf(out, "{\"type\":\"%s\"", (unsigned)s->type < SR_SHAPE_TYPE_COUNT ? names[s->type] : "unknown");
    switch (s->type) {
    case SR_SHAPE_SPHERE:
        fprintf(out, ",\"radius\":%.17g", s->radius);
        break;
    case SR_SHAPE_BOX:
        fputs(",\"half_extents\":", out);
        print_vector(out, s->half_extents);
        break;
    case SR_SHAPE_CAPSULE:
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        fprintf(out, ",\"radius\":%.17g,\"half_height\":%.17g", s->radius, s->half_height);
        break;
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
    case SR_SHAPE_HULL:
        fputs(",\"points\":[", out);
        for (size_t i = 0; i < s->point_count; i++) {
            if (i)
                fputc(',', out);
            print_vector(out, s->points[i]);
        }
        fputc(']', out);
        break;
    default:
        break;
    }
    fputs(",\"position\":", out);
    print_vector(out, s->pose.position);
    fprintf(out, ",\"rotation\":[%.17g,%.17g,%.17g,%.17g]", s->pose.rotation.x, s->pose.rotation.y, s->pose.rotation.z,
            s->pose.rotation.w);
    if (s->rounding != 0.0)
        fprintf(out, ",\"rounding\":%.17g", s->rounding);
    fputc('}', out);
}

void oracle_print_pair(FILE *out, long long id, const oracle_shape *a, const oracle_shape *b)
{
    fprintf(out, "{\"id\":%lld,\"a\":", id);
    oracle_print_shape(out, a);
    fputs(",\"b\":", out);
    oracle_print_shape(out, b);
    fputs("}\n", out);
}
