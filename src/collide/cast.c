/* src/collide/cast.c — ray casts and linear shape casts (sr_collide_ray_cast, sr_collide_shape_cast).
 * Knows nothing of raster, scene or SDL.
 *
 * Rays against spheres, capsules, boxes, cylinders, cones, triangles and solid hulls are closed
 * forms in the shape's frame (quadratics with the stable root, slabs, Cyrus-Beck clipping by the
 * hull's face planes). Everything else — rounded boxes, cylinders, cones, triangles and hulls,
 * flat hulls, segments and points — goes through the GJK ray cast (van den Bergen, "Ray Casting
 * against General Convex Objects with Application to Continuous Collision Detection", 2004), with
 * the core's radius handled the way Box2D's b2ShapeCast does: the ray's point x advances to the
 * plane of the current separating direction v moved out by the radius, and the iteration ends
 * when x is within the radius of the core. A shape cast is the same iteration on the Minkowski
 * difference B - A of the cores, with the ray A's translation: A at time t touches B when t *
 * translation is within rA + rB of B - A. */
#include "collide_internal.h"

#include <string.h>

/* The GJK ray cast stops when x is within CAST_TOLERANCE * scale of the radius around the core.
 * Near a curved surface GJK's simplex can stop improving before that (each new support point
 * replaces another without bringing v closer): x then counts as on the surface when it is within
 * CAST_STALL * scale of it. */
#define CAST_TOLERANCE 1e-10
#define CAST_STALL 1e-6
/* ... and x crawling towards C (v shrinking by less than a tenth a step, x not moving) counts as on
 * it within CAST_CRAWL * scale. */
#define CAST_CRAWL 1e-9

/* ---- closed forms (local frames) ---- */

typedef struct ray_answer {
    bool hit;
    double t;
    sr_dvec3 normal; /* local, unit */
} ray_answer;

/* The entering root of a t^2 + 2 b t + c = 0 (a > 0), computed without cancellation; false when the
 * line misses. */
static bool entering_root(double a, double b, double c, double *t)
{
    double discriminant = b * b - a * c;
    if (!(discriminant >= 0) || !(a > 0))
        return false;
    double root = sqrt(discriminant);
    /* t1 = (-b - root) / a; when b < 0 that subtracts nearly equal numbers: use t1 = c / (-b + root) */
    *t = b < 0 ? c / (root - b) : (-b - root) / a;
    return isfinite(*t);
}

static void consider(ray_answer *best, double t, sr_dvec3 normal, double max_t)
{
    if (t >= 0 && t <= max_t && (!best->hit || t < best->t)) {
        best->hit = true;
        best->t = t;
        best->normal = normal;
    }
}

/* A ball of `radius` around c. */
static void ray_ball(sr_dvec3 o, sr_dvec3 d, sr_dvec3 c, double radius, double max_t, ray_answer *best)
{
    sr_dvec3 m = dsub(o, c);
    double t;
    if (entering_root(ddot(d, d), ddot(m, d), ddot(m, m) - radius * radius, &t)) {
        sr_dvec3 n = sr_dvec3_normalize(dmadd(m, t, d));
        consider(best, t, dlength_squared(n) > 0 ? n : dv(0, 0, 1), max_t);
    }
}

/* A capsule: segment p-q rounded by radius (a point when p = q). */
static void ray_capsule(sr_dvec3 o, sr_dvec3 d, sr_dvec3 p, sr_dvec3 q, double radius, double max_t, ray_answer *best)
{
    ray_ball(o, d, p, radius, max_t, best);
    ray_ball(o, d, q, radius, max_t, best);
    sr_dvec3 axis = dsub(q, p);
    double length = dlength(axis);
    if (!(length > 0))
        return;
    sr_dvec3 u = dscale(axis, 1.0 / length), m = dsub(o, p);
    sr_dvec3 m_across = dmadd(m, -ddot(m, u), u), d_across = dmadd(d, -ddot(d, u), u);
    double t;
    if (!entering_root(ddot(d_across, d_across), ddot(m_across, d_across), ddot(m_across, m_across) - radius * radius,
                       &t))
        return;
    double s = ddot(dmadd(m, t, d), u);
    if (s >= 0 && s <= length)
        consider(best, t, sr_dvec3_normalize(dmadd(m_across, t, d_across)), max_t);
}

static void ray_box(sr_dvec3 o, sr_dvec3 d, sr_dvec3 h, double max_t, ray_answer *best)
{
    const double oc[3] = {o.x, o.y, o.z}, dc[3] = {d.x, d.y, d.z}, hc[3] = {h.x, h.y, h.z};
    double enter = -INFINITY, leave = INFINITY;
    int enter_axis = 0;
    double enter_sign = 1;
    for (int i = 0; i < 3; i++) {
        if (dc[i] == 0) {
            if (fabs(oc[i]) > hc[i])
                return;
            continue;
        }
        double t1 = (-hc[i] - oc[i]) / dc[i], t2 = (hc[i] - oc[i]) / dc[i];
        double near = fmin(t1, t2), far = fmax(t1, t2);
        if (near > enter) {
            enter = near;
            enter_axis = i;
            enter_sign = dc[i] > 0 ? -1 : 1;
        }
        leave = fmin(leave, far);
    }
    if (enter > leave || leave < 0)
        return;
    sr_dvec3 n =
        dv(enter_axis == 0 ? enter_sign : 0, enter_axis == 1 ? enter_sign : 0, enter_axis == 2 ? enter_sign : 0);
    consider(best, fmax(enter, 0), n, max_t);
}

static void ray_cylinder(sr_dvec3 o, sr_dvec3 d, double radius, double h, double max_t, ray_answer *best)
{
    if (d.z != 0)
        for (int side = -1; side <= 1; side += 2) {
            double t = (side * h - o.z) / d.z;
            sr_dvec3 p = dmadd(o, t, d);
            if (p.x * p.x + p.y * p.y <= radius * radius)
                consider(best, t, dv(0, 0, side), max_t);
        }
    double t;
    if (entering_root(d.x * d.x + d.y * d.y, o.x * d.x + o.y * d.y, o.x * o.x + o.y * o.y - radius * radius, &t)) {
        sr_dvec3 p = dmadd(o, t, d);
        if (fabs(p.z) <= h && (p.x != 0 || p.y != 0))
            consider(best, t, sr_dvec3_normalize(dv(p.x, p.y, 0)), max_t);
    }
}

static void ray_cone(sr_dvec3 o, sr_dvec3 d, double radius, double h, double max_t, ray_answer *best)
{
    if (d.z != 0) { /* the base disc at z = -h */
        double t = (-h - o.z) / d.z;
        sr_dvec3 p = dmadd(o, t, d);
        if (p.x * p.x + p.y * p.y <= radius * radius)
            consider(best, t, dv(0, 0, -1), max_t);
    }
    if (!(h > 0))
        return;
    /* the side: rho = k (h - z), k = r / 2h; with w = h - z: (x^2 + y^2) - k^2 w^2 = 0 */
    double k = radius / (2 * h), k2 = k * k, w0 = h - o.z;
    double a = d.x * d.x + d.y * d.y - k2 * d.z * d.z;
    double b = o.x * d.x + o.y * d.y + k2 * w0 * d.z;
    double c = o.x * o.x + o.y * o.y - k2 * w0 * w0;
    double roots[2];
    int count = 0;
    if (fabs(a) > 1e-300) {
        double discriminant = b * b - a * c;
        if (discriminant >= 0) {
            double root = sqrt(discriminant), q = b < 0 ? root - b : -b - root; /* q = -(b + sign(b) root) */
            roots[count++] = q / a;
            if (q != 0)
                roots[count++] = c / q;
        }
    } else if (b != 0) {
        roots[count++] = -c / (2 * b);
    }
    for (int i = 0; i < count; i++) {
        double t = roots[i];
        sr_dvec3 p = dmadd(o, t, d);
        double w = h - p.z;
        if (!(w >= 0 && w <= 2 * h))
            continue;
        double rho = sqrt(p.x * p.x + p.y * p.y);
        sr_dvec3 n = rho > 0 ? sr_dvec3_normalize(dv(p.x / rho, p.y / rho, k)) : dv(0, 0, 1);
        if (ddot(n, d) < 0) /* entering the cone through its side */
            consider(best, t, n, max_t);
    }
}

/* Inside tests of the closed-form shapes (local): a ray starting inside hits at t = 0. */
static bool inside_cylinder(sr_dvec3 o, double radius, double h)
{
    return fabs(o.z) <= h && o.x * o.x + o.y * o.y <= radius * radius;
}

static bool inside_cone(sr_dvec3 o, double radius, double h)
{
    if (!(fabs(o.z) <= h))
        return false;
    double rho = sqrt(o.x * o.x + o.y * o.y);
    return h > 0 ? rho <= radius * (h - o.z) / (2 * h) : rho <= radius;
}

/* A solid hull by Cyrus-Beck: the ray's interval inside every face plane. */
static bool ray_hull(const sr_hull *hull, sr_dvec3 o, sr_dvec3 d, double max_t, ray_answer *best)
{
    const sr_hull_view *v = &hull->view;
    double enter = -INFINITY, leave = INFINITY;
    sr_dvec3 normal = dv(0, 0, 1);
    for (size_t f = 0; f < v->face_count; f++) {
        double along = ddot(v->faces[f].normal, d), gap = v->faces[f].offset - ddot(v->faces[f].normal, o);
        if (along == 0) {
            if (gap < 0)
                return true;
            continue;
        }
        double t = gap / along;
        if (along < 0) {
            if (t > enter) {
                enter = t;
                normal = v->faces[f].normal;
            }
        } else {
            leave = fmin(leave, t);
        }
    }
    if (enter <= leave && leave >= 0)
        consider(best, fmax(enter, 0), normal, max_t);
    return true;
}

/* Triangle abc (two-sided): false when the ray runs in its plane (the GJK cast answers then). */
static bool ray_triangle(sr_dvec3 o, sr_dvec3 d, const sr_dvec3 p[3], double max_t, ray_answer *best)
{
    /* the normal from the two edges at the vertex facing the longest edge (a sliver's most
     * accurate cross product); a triangle that is a segment within the rounding (its area below
     * 1e-12 of its longest edge squared) has no plane to hit: the GJK cast answers then */
    double e0 = dlength_squared(dsub(p[1], p[0])), e1 = dlength_squared(dsub(p[2], p[1]));
    double e2 = dlength_squared(dsub(p[0], p[2]));
    int apex = e0 >= e1 && e0 >= e2 ? 2 : e1 >= e2 ? 0 : 1;
    sr_dvec3 a = p[apex], b = p[(apex + 1) % 3], c = p[(apex + 2) % 3];
    sr_dvec3 n = dcross(dsub(b, a), dsub(c, a));
    double along = ddot(n, d);
    if (along == 0 || !(dlength(n) > 1e-12 * fmax(e0, fmax(e1, e2))))
        return false;
    double t = ddot(n, dsub(p[0], o)) / along;
    sr_dvec3 x = dmadd(o, t, d);
    for (int i = 0; i < 3; i++)
        if (ddot(dcross(dsub(p[(i + 1) % 3], p[i]), dsub(x, p[i])), n) < 0)
            return true;
    sr_dvec3 unit = sr_dvec3_normalize(n);
    consider(best, t, along < 0 ? unit : dneg(unit), max_t);
    return true;
}

/* ---- the GJK ray cast ---- */

typedef struct cast_output {
    bool hit;
    double t;
    sr_dvec3 normal;           /* unit: from the set towards the ray's point */
    sr_dvec3 point_a, point_b; /* shape cast: the cores' closest points at t (A's not moved) */
    int iterations;
    bool capped;
} cast_output;

/* Ray s + t r, t in [0, max_t], against C + ball(radius), C = B - A (a NULL: C = B). The
 * simplex holds points of C; GJK runs on x - C. While x is farther than the radius from the plane
 * through C's support point along v (v.(x - p) / |v| > radius), x advances to that plane moved
 * out by the radius (a miss when the ray does not approach it, or passes max_t); it stops when
 * |v|, the distance from x to C, is within the tolerance of the radius. */
static void gjk_cast(const sr_placed *a, const sr_placed *b, sr_dvec3 s, sr_dvec3 r, double max_t, double radius,
                     double scale, int max_iterations, cast_output *out)
{
    memset(out, 0, sizeof *out);
    double tolerance = CAST_TOLERANCE * scale;
    sr_gjk_simplex simplex;
    simplex.count = 0;
    double t = 0;
    sr_dvec3 x = s, normal = dlength_squared(r) > 0 ? dneg(r) : dv(0, 0, 1);
    sr_support_point first;
    first.b = placed_support(b, dneg(normal));
    first.a = a ? placed_support(a, normal) : dv(0, 0, 0);
    first.w = dsub(first.b, first.a);
    simplex.v[0] = first;
    simplex.weights[0] = 1;
    simplex.count = 1;
    sr_dvec3 v = dsub(x, first.w);
    /* Two nested iterations, each with its own cap: the advances of x along the ray, and GJK's
     * steps at each point x reaches. Near a curved surface GJK converges linearly (the support
     * point walks along a rim, the gap shrinking about fourfold a step), and an advance leaves x
     * closer to C by a factor of 2 or 3 only when the ray grazes it, v's direction being
     * reshaped at each one: a segment grazing a cone 1e-5 away takes 12 advances of about 12
     * steps each to come within the tolerance (147 in all, past a single budget of 128). */
    int iteration = 0, advances = 0, steps = 0, crawling = 0;
    for (;;) {
        double length = dlength(v);
        if (length <= radius + tolerance) {
            out->hit = true;
            break;
        }
        if (steps >= max_iterations || advances >= max_iterations) {
            out->capped = true;
            break;
        }
        iteration++;
        steps++;
        sr_support_point p;
        p.b = placed_support(b, v);
        p.a = a ? placed_support(a, dneg(v)) : dv(0, 0, 0);
        p.w = dsub(p.b, p.a);
        double gap = ddot(v, dsub(x, p.w)) / length;
        bool advanced = false;
        if (gap > radius + tolerance) {
            double rate = ddot(v, r) / length;
            if (!(rate < 0))
                break; /* the ray does not approach the plane: a miss */
            double next = t + (gap - radius) / -rate;
            if (!(next <= max_t))
                break;
            advanced = next > t;
            if (advanced) {
                advances++;
                steps = 1; /* this step's support point is the first at the new x */
            }
            t = next;
            x = dmadd(s, t, r);
            normal = v;
        }
        bool repeated = false;
        for (int k = 0; k < simplex.count; k++)
            repeated |= simplex.v[k].w.x == p.w.x && simplex.v[k].w.y == p.w.y && simplex.v[k].w.z == p.w.z;
        if (repeated && !advanced) {
            /* no new support point and x did not move: v is as close as C lets it get; x is on the
             * radius's plane along v within the tolerance */
            out->hit = gap <= radius + tolerance;
            break;
        }
        sr_gjk_simplex previous = simplex;
        if (!repeated)
            simplex.v[simplex.count++] = p;
        sr_dvec3 points[4];
        for (int k = 0; k < simplex.count; k++)
            points[k] = dsub(x, simplex.v[k].w);
        double weights[4];
        sr_dvec3 next_v = sr_simplex_closest(points, simplex.count, weights);
        double next_length = dlength(next_v);
        if (!advanced && next_length >= length) {
            /* no progress: keep the previous simplex; within the stall tolerance x is on it */
            simplex = previous;
            out->hit = length <= radius + CAST_STALL * scale;
            break;
        }
        /* crawling: x within CAST_CRAWL of C and v shrinking by less than a tenth a step for three
         * steps without x moving (a point against a curved surface it nearly touches) */
        crawling = !advanced && next_length > 0.9 * length && length <= radius + CAST_CRAWL * scale ? crawling + 1 : 0;
        v = next_v;
        int kept = 0;
        for (int k = 0; k < simplex.count; k++)
            if (weights[k] > 0) {
                simplex.v[kept] = simplex.v[k];
                simplex.weights[kept] = weights[k];
                kept++;
            }
        simplex.count = kept;
        if (kept == 4) { /* x inside C */
            v = dv(0, 0, 0);
            out->hit = true;
            break;
        }
        if (crawling >= 3) {
            out->hit = true;
            break;
        }
    }
    out->iterations = iteration;
    if (!out->hit)
        return;
    out->t = t;
    /* the surface normal: the direction from C to x when x is off the core (a radius), else the
     * last plane x advanced to */
    /* the surface normal: the direction from C to x when x is well off the core (a radius: x stops
     * that far from it); otherwise the plane x last advanced to, which touches C there (a direction
     * from C to a point within the rounding of it means nothing) */
    double length = dlength(v);
    out->normal = length > 0.5 * radius && length > tolerance ? dscale(v, 1.0 / length) : sr_dvec3_normalize(normal);
    if (dlength_squared(out->normal) == 0)
        out->normal = dlength_squared(r) > 0 ? sr_dvec3_normalize(dneg(r)) : dv(0, 0, 1);
    out->point_a = dv(0, 0, 0);
    out->point_b = dv(0, 0, 0);
    for (int k = 0; k < simplex.count; k++) {
        out->point_a = dmadd(out->point_a, simplex.weights[k], simplex.v[k].a);
        out->point_b = dmadd(out->point_b, simplex.weights[k], simplex.v[k].b);
    }
}

/* ---- the public casts ---- */

static bool ray_is_valid(sr_dvec3 origin, sr_dvec3 direction, double max_t)
{
    return sr_dvec3_is_finite(origin) && sr_dvec3_is_finite(direction) &&
           dmax_abs(origin) <= SR_COLLIDE_MAX_MAGNITUDE && dmax_abs(direction) <= SR_COLLIDE_MAX_MAGNITUDE &&
           !isnan(max_t) && max_t >= 0;
}

sr_collide_status sr_collide_ray_cast(const sr_shape *shape, sr_dvec3 origin, sr_dvec3 direction, double max_t,
                                      const sr_collide_options *options, sr_collide_ray_hit *out)
{
    sr_collide_ray_hit hit;
    memset(&hit, 0, sizeof hit);
    hit.normal = dv(0, 0, 1);
    sr_trace_clear(options_trace(options));
    if (!shape || sr_shape_validate(shape, NULL) != SR_OK || !ray_is_valid(origin, direction, max_t)) {
        if (out)
            *out = hit;
        return SR_COLLIDE_INVALID_SHAPE;
    }
    /* the shape's frame: its position is the origin; `o` the ray's origin relative to it (world
     * axes), `lo` and `ld` the ray in the shape's own axes */
    sr_placed placed;
    sr_placed_make(shape, shape->pose.position, &placed);
    sr_dvec3 o = dsub(origin, shape->pose.position);
    double speed = dlength(direction);
    sr_dvec3 lo = placed.rotated ? placed_to_local(&placed, o) : o;
    sr_dvec3 ld = placed.rotated ? placed_to_local(&placed, direction) : direction;
    ray_answer answer = {false, 0, dv(0, 0, 1)};
    bool closed = true, inside = false, world_normal = false;
    double r = placed.radius;
    switch (placed.core) {
    case CORE_POINT:
    case CORE_SEGMENT:
        if (r > 0) { /* a sphere or a capsule (in the world's axes: the points are placed) */
            sr_dvec3 p = placed.p[0], q = placed.core == CORE_SEGMENT ? placed.p[1] : placed.p[0];
            sr_dvec3 ab = dsub(q, p);
            double l2 = ddot(ab, ab), u = l2 > 0 ? fmax(0, fmin(1, ddot(dsub(o, p), ab) / l2)) : 0;
            inside = dlength(dsub(o, dmadd(p, u, ab))) <= r;
            if (!inside)
                ray_capsule(o, direction, p, q, r, max_t, &answer);
            world_normal = true;
        } else {
            closed = false;
        }
        break;
    case CORE_BOX:
        inside = fabs(lo.x) <= placed.half_extents.x && fabs(lo.y) <= placed.half_extents.y &&
                 fabs(lo.z) <= placed.half_extents.z;
        if (!inside)
            ray_box(lo, ld, placed.half_extents, max_t, &answer);
        break;
    case CORE_CYLINDER:
    case CORE_CONE:
        /* a cylinder or cone of radius or height 0 (a segment, a disc, a point) has no closed form
         * here: the GJK cast answers */
        if (!(placed.core_radius > 0 && placed.half_height > 0)) {
            closed = false;
            break;
        }
        if (placed.core == CORE_CONE) {
            inside = inside_cone(lo, placed.core_radius, placed.half_height);
            if (!inside)
                ray_cone(lo, ld, placed.core_radius, placed.half_height, max_t, &answer);
            break;
        }
        inside = inside_cylinder(lo, placed.core_radius, placed.half_height);
        if (!inside)
            ray_cylinder(lo, ld, placed.core_radius, placed.half_height, max_t, &answer);
        break;
    case CORE_TRIANGLE:
        closed = ray_triangle(o, direction, placed.p, max_t, &answer);
        world_normal = true;
        break;
    default: /* hulls: solid ones by their face planes */
        if (placed.hull->view.dimension < 3) {
            closed = false;
            break;
        }
        inside = true;
        for (size_t f = 0; f < placed.hull->view.face_count && inside; f++)
            inside = ddot(placed.hull->view.faces[f].normal, lo) <= placed.hull->view.faces[f].offset;
        if (!inside)
            ray_hull(placed.hull, lo, ld, max_t, &answer);
        break;
    }
    /* a rounded core (other than the sphere's and capsule's) has no closed form here */
    if (r > 0 && placed.core != CORE_POINT && placed.core != CORE_SEGMENT)
        closed = false;
    if (closed) {
        if (inside) {
            hit.hit = true;
            hit.point = origin;
            hit.normal = speed > 0 ? dscale(direction, -1.0 / speed) : dv(0, 0, 1);
        } else if (answer.hit) {
            hit.hit = true;
            hit.t = answer.t;
            hit.point = dmadd(origin, answer.t, direction);
            hit.normal = world_normal || !placed.rotated ? answer.normal : placed_to_world(&placed, answer.normal);
        }
        if (out)
            *out = hit;
        return SR_COLLIDE_OK;
    }
    cast_output c;
    double scale = placed.size + dlength(o);
    gjk_cast(NULL, &placed, o, direction, max_t, r, scale > 1e-290 ? scale : 1e-290, options_iterations(options), &c);
    hit.iterations = c.iterations;
    if (c.hit) {
        hit.hit = true;
        hit.t = c.t;
        hit.point = dmadd(origin, c.t, direction);
        hit.normal = c.normal;
        if (c.t == 0) /* the origin is inside or on the shape */
            hit.normal = speed > 0 ? dscale(direction, -1.0 / speed) : dv(0, 0, 1);
    }
    if (out)
        *out = hit;
    return c.capped ? SR_COLLIDE_ITERATION_CAP : SR_COLLIDE_OK;
}

sr_collide_status sr_collide_shape_cast(const sr_shape *a, sr_dvec3 translation, const sr_shape *b,
                                        const sr_collide_options *options, sr_collide_cast_hit *out)
{
    sr_collide_cast_hit hit;
    memset(&hit, 0, sizeof hit);
    hit.normal = dv(0, 0, 1);
    sr_placed pa, pb;
    sr_dvec3 origin;
    if (!sr_dvec3_is_finite(translation) || dmax_abs(translation) > SR_COLLIDE_MAX_MAGNITUDE ||
        !sr_pair_place(a, b, &pa, &pb, &origin)) {
        sr_trace_clear(options_trace(options));
        if (out)
            *out = hit;
        return SR_COLLIDE_INVALID_SHAPE;
    }
    sr_trace_clear(options_trace(options));
    double radius = pa.radius + pb.radius;
    double scale = query_scale(&pa, &pb) + dlength(translation);
    cast_output c;
    gjk_cast(&pa, &pb, dv(0, 0, 0), translation, 1.0, radius, scale, options_iterations(options), &c);
    hit.iterations = c.iterations;
    sr_collide_status status = c.capped ? SR_COLLIDE_ITERATION_CAP : SR_COLLIDE_OK;
    if (!c.hit) {
        if (out)
            *out = hit;
        return status;
    }
    hit.hit = true;
    hit.t = c.t;
    if (c.t == 0) {
        /* overlapping at the start: the normal and point of the penetration query */
        sr_collide_result p;
        sr_collide_status s = sr_collide_penetration(a, b, options, &p);
        hit.initially_overlapping = true;
        hit.normal = p.normal;
        hit.point = p.point_a;
        hit.iterations += p.iterations;
        if (s != SR_COLLIDE_OK)
            status = s;
    } else {
        /* at t: A's core point moved by t * translation, B's core point; the normal from A to B is
         * -v (v runs from B - A towards t * translation); the contact on A's surface */
        hit.normal = dneg(c.normal);
        sr_dvec3 moved_a = dmadd(c.point_a, c.t, translation);
        hit.point = dadd(dmadd(moved_a, pa.radius, hit.normal), origin);
        if (radius == 0) {
            /* Bare cores touch at t, and the plane the cast last advanced to may lean on a curved
             * surface (a point that starts 1e-8 off a cylinder advances there in one step): the
             * contact normal is the penetration normal a hair after t, where the cores overlap by
             * 1e-9 of the scale or, when the cast stopped a little short, up to 1e-6 of it (a
             * closed form, SAT or EPA: exact there). */
            double speed = dlength(translation);
            sr_shape moved = *a;
            for (double ahead = 1e-9; ahead <= 1.1e-6; ahead *= 10) { /* until they overlap */
                moved.pose.position = dadd(a->pose.position, dscale(translation, c.t + ahead * scale / speed));
                sr_collide_result p;
                if (sr_collide_penetration(&moved, b, NULL, &p) == SR_COLLIDE_OK && p.hit && p.distance < 0) {
                    hit.normal = p.normal;
                    hit.iterations += p.iterations;
                    break;
                }
            }
        }
    }
    if (out)
        *out = hit;
    return status;
}
