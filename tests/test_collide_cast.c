/* tests/test_collide_cast.c — ray casts and shape casts (src/collide/cast.c) against analytic
 * answers and brute force: a ray against every shape type (closed forms and the GJK ray cast for
 * rounded, flat and degenerate shapes) is checked by marching along it with a point-to-core
 * distance computed in the shape's frame (collide_core_brute.h): the hit point is on the surface,
 * no earlier sample is inside, the normal is the surface's; a miss has no sample inside. Spheres
 * and axis-aligned boxes swept against each other have analytic times of impact; random sweeps
 * touch at t and are apart just before. Origins inside, zero directions, max_t, invalid input. */
#include <criterion/criterion.h>

#include "collide_core_brute.h"

#include <softrast/collide.h>

#include <string.h>

/* Signed distance from a world point to a shape (rounding included): its core's distance minus its
 * radius; for polytope cores the brute-force polytope's, for curved ones the closed forms. */
static double shape_distance(const sr_shape *s, const brute_poly *poly, sr_dvec3 p)
{
    double core = poly ? brute_point_poly(p, poly, NULL) : brute_point_core(s, p);
    return core - sr_shape_core_radius(s);
}

static bool is_polytope(const sr_shape *s)
{
    return s->type == SR_SHAPE_BOX || s->type == SR_SHAPE_TRIANGLE || s->type == SR_SHAPE_SEGMENT ||
           s->type == SR_SHAPE_HULL || s->type == SR_SHAPE_POINT;
}

static sr_shape random_shape(drng *r, sr_hull **hull)
{
    *hull = NULL;
    sr_shape s;
    switch (drng_int(r, 9)) {
    case 0:
        s = sr_shape_sphere(drng_range(r, 0.1, 1));
        break;
    case 1:
        s = sr_shape_box(drng_vec(r, 0.1, 1));
        break;
    case 2:
        s = sr_shape_capsule(drng_range(r, 0.1, 0.5), drng_range(r, 0, 1));
        break;
    case 3:
        s = sr_shape_cylinder(drng_range(r, 0.1, 1), drng_range(r, 0.1, 1));
        break;
    case 4:
        s = sr_shape_cone(drng_range(r, 0.1, 1), drng_range(r, 0.1, 1));
        break;
    case 5:
        s = sr_shape_triangle(drng_vec(r, -1, 1), drng_vec(r, -1, 1), drng_vec(r, -1, 1));
        s.rounding = drng_range(r, 0.05, 0.3); /* a bare triangle is hit on a set of measure zero */
        break;
    case 6:
        s = sr_shape_segment(drng_vec(r, -1, 1), drng_vec(r, -1, 1));
        s.rounding = drng_range(r, 0.05, 0.3);
        break;
    default: {
        sr_dvec3 points[16];
        int n = 4 + drng_int(r, 12);
        bool flat = drng_int(r, 4) == 0;
        for (int i = 0; i < n; i++) {
            points[i] = drng_vec(r, -1, 1);
            if (flat)
                points[i].z = 0;
        }
        cr_assert_eq(sr_hull_create(points, (size_t)n, hull, NULL), SR_OK);
        s = sr_shape_hull(*hull);
        if (flat)
            s.rounding = drng_range(r, 0.05, 0.3);
        break;
    }
    }
    if (s.rounding == 0 && drng_int(r, 3) == 0)
        s.rounding = drng_range(r, 0.01, 0.3);
    s.pose = sr_pose_make(drng_vec(r, -1, 1), drng_rotation(r));
    return s;
}

Test(collide_cast, rays_against_every_shape_by_marching)
{
    drng r = {1};
    int hits = 0, misses = 0;
    enum { SAMPLES = 4000 };
    for (int k = 0; k < COUNT(1500); k++) {
        sr_hull *hull;
        sr_shape s = random_shape(&r, &hull);
        brute_poly poly, *pp = NULL;
        if (is_polytope(&s)) {
            poly = brute_poly_of(&s);
            pp = &poly;
        }
        sr_dvec3 origin = vscale(drng_direction(&r), drng_range(&r, 2, 4));
        sr_dvec3 aim = vadd(s.pose.position, drng_vec(&r, -1, 1));
        sr_dvec3 direction = vscale(vsub(aim, origin), drng_range(&r, 0.5, 2));
        double max_t = drng_range(&r, 0.5, 3);
        sr_collide_ray_hit hit;
        cr_assert_eq(sr_collide_ray_cast(&s, origin, direction, max_t, NULL, &hit), SR_COLLIDE_OK);
        if (shape_distance(&s, pp, origin) <= 0) {
            cr_assert(hit.hit && hit.t == 0, "case %d: origin inside", k);
        } else if (hit.hit) {
            hits++;
            cr_assert(hit.t >= 0 && hit.t <= max_t);
            cr_assert(vdistance(hit.point, vadd(origin, vscale(direction, hit.t))) < 1e-12);
            double on = shape_distance(&s, pp, hit.point);
            cr_assert(fabs(on) < 1e-8, "case %d (%s, rounding %g): hit point %g off the surface", k,
                      sr_shape_type_name(s.type), s.rounding, on);
            for (int i = 0; i < SAMPLES; i++) {
                double t = hit.t * i / SAMPLES;
                cr_assert(shape_distance(&s, pp, vadd(origin, vscale(direction, t))) > -1e-8,
                          "case %d (%s): a sample before the hit is inside", k, sr_shape_type_name(s.type));
            }
            /* the normal: stepping out along it leaves the shape, and the ray enters against it */
            cr_assert(fabs(vlength(hit.normal) - 1) < 1e-12);
            cr_assert(vdot(hit.normal, direction) <= 1e-9 * vlength(direction), "case %d: normal along the ray", k);
            double out = shape_distance(&s, pp, vadd(hit.point, vscale(hit.normal, 1e-4)));
            cr_assert(out > 0.5e-4, "case %d (%s): the normal does not point out (%g)", k, sr_shape_type_name(s.type),
                      out);
        } else {
            misses++;
            for (int i = 0; i <= SAMPLES; i++) {
                double t = max_t * i / SAMPLES;
                cr_assert(shape_distance(&s, pp, vadd(origin, vscale(direction, t))) > -1e-8,
                          "case %d (%s, rounding %g): a miss, but the ray is inside at t = %g", k,
                          sr_shape_type_name(s.type), s.rounding, t);
            }
        }
        if (pp)
            brute_poly_free(pp);
        sr_hull_destroy(hull);
    }
    cr_assert(hits > COUNT(1500) / 5 && misses > COUNT(1500) / 10, "hits %d, misses %d", hits, misses);
}

Test(collide_cast, ray_sphere_analytic_and_special_rays)
{
    drng r = {2};
    for (int k = 0; k < COUNT(2000); k++) {
        double radius = drng_range(&r, 0.1, 2);
        sr_dvec3 centre = vscale(drng_vec(&r, -1, 1), k % 2 ? 1e3 : 1);
        sr_shape s = sr_shape_with_pose(sr_shape_sphere(radius), sr_pose_make(centre, drng_rotation(&r)));
        sr_dvec3 origin = vadd(centre, vscale(drng_direction(&r), drng_range(&r, 0, 5)));
        sr_dvec3 direction = vscale(drng_direction(&r), drng_range(&r, 0.1, 10));
        sr_collide_ray_hit hit;
        cr_assert_eq(sr_collide_ray_cast(&s, origin, direction, INFINITY, NULL, &hit), SR_COLLIDE_OK);
        /* |o + t d - c| = radius */
        sr_dvec3 m = vsub(origin, centre);
        double a = vdot(direction, direction), b = vdot(m, direction), c = vdot(m, m) - radius * radius;
        double disc = b * b - a * c;
        if (c <= 0) {
            cr_assert(hit.hit && hit.t == 0);
            cr_assert(vdistance(hit.normal, vscale(direction, -1 / vlength(direction))) < 1e-15);
        } else if (disc > 1e-9 && b < 0) {
            double t = (-b - sqrt(disc)) / a;
            cr_assert(hit.hit && fabs(hit.t - t) <= 1e-9 * (1 + t), "t %.17g, expected %.17g", hit.t, t);
            sr_dvec3 n = vscale(vsub(hit.point, centre), 1 / radius);
            cr_assert(vdistance(hit.normal, n) < 1e-9);
        } else if (disc < -1e-9 || b > 0) {
            cr_assert(!hit.hit);
        }
    }
    /* a zero direction: a point query */
    sr_shape box = sr_shape_box(v3(1, 1, 1));
    sr_collide_ray_hit hit;
    cr_assert_eq(sr_collide_ray_cast(&box, v3(0.5, 0, 0), v3(0, 0, 0), 1, NULL, &hit), SR_COLLIDE_OK);
    cr_assert(hit.hit && hit.t == 0);
    cr_assert_eq(sr_collide_ray_cast(&box, v3(2, 0, 0), v3(0, 0, 0), 1, NULL, &hit), SR_COLLIDE_OK);
    cr_assert(!hit.hit);
    /* max_t cuts the ray; max_t 0 is the origin */
    cr_assert_eq(sr_collide_ray_cast(&box, v3(5, 0, 0), v3(-1, 0, 0), 3.9, NULL, &hit), SR_COLLIDE_OK);
    cr_assert(!hit.hit);
    cr_assert_eq(sr_collide_ray_cast(&box, v3(5, 0, 0), v3(-1, 0, 0), 4, NULL, &hit), SR_COLLIDE_OK);
    cr_assert(hit.hit && hit.t == 4 && hit.normal.x == 1);
    /* invalid rays and shapes */
    cr_assert_eq(sr_collide_ray_cast(&box, v3(NAN, 0, 0), v3(1, 0, 0), 1, NULL, &hit), SR_COLLIDE_INVALID_SHAPE);
    cr_assert_eq(sr_collide_ray_cast(&box, v3(0, 0, 0), v3(1, INFINITY, 0), 1, NULL, &hit), SR_COLLIDE_INVALID_SHAPE);
    cr_assert_eq(sr_collide_ray_cast(&box, v3(0, 0, 0), v3(1, 0, 0), NAN, NULL, &hit), SR_COLLIDE_INVALID_SHAPE);
    cr_assert_eq(sr_collide_ray_cast(&box, v3(0, 0, 0), v3(1, 0, 0), -1, NULL, &hit), SR_COLLIDE_INVALID_SHAPE);
    cr_assert(!hit.hit);
    sr_shape bad = sr_shape_cylinder(-1, 1);
    cr_assert_eq(sr_collide_ray_cast(&bad, v3(0, 0, 0), v3(1, 0, 0), 1, NULL, &hit), SR_COLLIDE_INVALID_SHAPE);
    cr_assert_eq(sr_collide_ray_cast(NULL, v3(0, 0, 0), v3(1, 0, 0), 1, NULL, NULL), SR_COLLIDE_INVALID_SHAPE);
}

/* ---- shape casts ---- */

Test(collide_cast, spheres_and_boxes_swept_analytically)
{
    drng r = {3};
    for (int k = 0; k < COUNT(2000); k++) {
        /* spheres: |ca + t v - cb| = ra + rb */
        double ra = drng_range(&r, 0.1, 1), rb = drng_range(&r, 0.1, 1);
        sr_dvec3 ca = drng_vec(&r, -1, 1), cb = vadd(ca, vscale(drng_direction(&r), drng_range(&r, 0, 6)));
        sr_dvec3 v = vscale(vsub(vadd(cb, drng_vec(&r, -1, 1)), ca), drng_range(&r, 0.3, 2));
        sr_shape a = sr_shape_with_pose(sr_shape_sphere(ra), sr_pose_make(ca, drng_rotation(&r)));
        sr_shape b = sr_shape_with_pose(sr_shape_sphere(rb), sr_pose_make(cb, drng_rotation(&r)));
        sr_collide_cast_hit hit;
        cr_assert_eq(sr_collide_shape_cast(&a, v, &b, NULL, &hit), SR_COLLIDE_OK);
        sr_dvec3 m = vsub(ca, cb);
        double qa = vdot(v, v), qb = vdot(m, v), qc = vdot(m, m) - (ra + rb) * (ra + rb);
        double disc = qb * qb - qa * qc;
        if (qc <= 0) {
            cr_assert(hit.hit && hit.t == 0 && hit.initially_overlapping);
        } else if (disc > 1e-9 && qb < 0 && (-qb - sqrt(disc)) / qa <= 1 - 1e-9) {
            double t = (-qb - sqrt(disc)) / qa;
            cr_assert(hit.hit && !hit.initially_overlapping);
            cr_assert(fabs(hit.t - t) < 1e-8, "spheres: t %.17g, expected %.17g", hit.t, t);
            sr_dvec3 at = vadd(ca, vscale(v, t));
            sr_dvec3 n = vscale(vsub(cb, at), 1 / vdistance(cb, at));
            cr_assert(vdistance(hit.normal, n) < 1e-6, "spheres: normal");
            cr_assert(vdistance(hit.point, vadd(at, vscale(n, ra))) < 1e-6, "spheres: point");
        } else if (disc < -1e-9 || qb > 0 || (-qb - sqrt(fmax(disc, 0))) / qa > 1 + 1e-9) {
            cr_assert(!hit.hit);
        }
    }
    /* axis-aligned boxes moving along x: they touch when the x gap closes (if y and z overlap) */
    for (int k = 0; k < COUNT(500); k++) {
        sr_dvec3 ha = drng_vec(&r, 0.1, 1), hb = drng_vec(&r, 0.1, 1);
        sr_dvec3 cb = v3(drng_range(&r, 2, 5), drng_range(&r, -1, 1), drng_range(&r, -1, 1));
        double speed = drng_range(&r, 1, 8);
        sr_shape a = sr_shape_box(ha), b = sr_shape_with_pose(sr_shape_box(hb), sr_pose_make(cb, sr_dquat_identity()));
        sr_collide_cast_hit hit;
        cr_assert_eq(sr_collide_shape_cast(&a, v3(speed, 0, 0), &b, NULL, &hit), SR_COLLIDE_OK);
        bool overlap_yz = fabs(cb.y) < ha.y + hb.y && fabs(cb.z) < ha.z + hb.z;
        double t = (cb.x - ha.x - hb.x) / speed;
        if (overlap_yz && t <= 1 - 1e-9 && fabs(fabs(cb.y) - ha.y - hb.y) > 1e-6 &&
            fabs(fabs(cb.z) - ha.z - hb.z) > 1e-6) {
            cr_assert(hit.hit && fabs(hit.t - t) < 1e-9, "boxes: t %.17g, expected %.17g", hit.t, t);
            cr_assert(vdistance(hit.normal, v3(1, 0, 0)) < 1e-9, "boxes: normal (%g, %g, %g)", hit.normal.x,
                      hit.normal.y, hit.normal.z);
            cr_assert(fabs(hit.point.x - (speed * hit.t + ha.x)) < 1e-9,
                      "boxes: the point is not on the touching face");
        } else if (!overlap_yz || t > 1 + 1e-9) {
            cr_assert(!hit.hit);
        }
    }
}

/* Random sweeps: at t the shapes touch, a little before they are apart, and misses stay apart. */
Test(collide_cast, random_sweeps_touch_at_the_time_of_impact)
{
    drng r = {4};
    int hits = 0;
    for (int k = 0; k < COUNT(1000); k++) {
        sr_hull *ha, *hb;
        sr_shape a = random_shape(&r, &ha), b = random_shape(&r, &hb);
        b.pose.position = vadd(a.pose.position, vscale(drng_direction(&r), drng_range(&r, 1, 5)));
        sr_dvec3 v =
            vscale(vsub(vadd(b.pose.position, drng_vec(&r, -1, 1)), a.pose.position), drng_range(&r, 0.5, 1.5));
        sr_collide_cast_hit hit;
        sr_collide_status status = sr_collide_shape_cast(&a, v, &b, NULL, &hit);
        cr_assert_eq(status, SR_COLLIDE_OK, "case %d (%s-%s, rounding %g %g): status %d after %d iterations", k,
                     sr_shape_type_name(a.type), sr_shape_type_name(b.type), a.rounding, b.rounding, status,
                     hit.iterations);
        sr_collide_result start;
        sr_collide_distance(&a, &b, NULL, &start);
        if (start.hit) {
            cr_assert(hit.hit && hit.t == 0 && hit.initially_overlapping,
                      "case %d (%s-%s): overlapping at the start (distance %g), cast hit %d at %g", k,
                      sr_shape_type_name(a.type), sr_shape_type_name(b.type), start.distance, hit.hit, hit.t);
        } else if (hit.hit) {
            hits++;
            sr_shape moved = a;
            moved.pose.position = vadd(a.pose.position, vscale(v, hit.t));
            sr_collide_result at;
            sr_collide_distance(&moved, &b, NULL, &at);
            cr_assert(at.hit || at.distance < 1e-6, "case %d (%s-%s): %g apart at the time of impact", k,
                      sr_shape_type_name(a.type), sr_shape_type_name(b.type), at.distance);
            moved.pose.position = vadd(a.pose.position, vscale(v, hit.t * (1 - 1e-6)));
            sr_collide_distance(&moved, &b, NULL, &at);
            cr_assert(!at.hit || at.distance == 0, "case %d: overlapping before the time of impact", k);
            cr_assert(fabs(vlength(hit.normal) - 1) < 1e-12);
        } else {
            for (int i = 0; i <= 64; i++) {
                sr_shape moved = a;
                moved.pose.position = vadd(a.pose.position, vscale(v, i / 64.0));
                sr_collide_result at;
                sr_collide_distance(&moved, &b, NULL, &at);
                cr_assert(!at.hit || at.distance == 0, "case %d (%s-%s): a miss, but they overlap at t = %g", k,
                          sr_shape_type_name(a.type), sr_shape_type_name(b.type), i / 64.0);
            }
        }
        sr_hull_destroy(ha);
        sr_hull_destroy(hb);
    }
    cr_assert(hits > COUNT(1000) / 5, "only %d hits", hits);
    sr_shape a = sr_shape_sphere(1), bad = sr_shape_box(v3(-1, 1, 1));
    sr_collide_cast_hit hit;
    cr_assert_eq(sr_collide_shape_cast(&a, v3(1, 0, 0), &bad, NULL, &hit), SR_COLLIDE_INVALID_SHAPE);
    cr_assert(!hit.hit);
    cr_assert_eq(sr_collide_shape_cast(&a, v3(NAN, 0, 0), &a, NULL, &hit), SR_COLLIDE_INVALID_SHAPE);
}

/* Sweeps that graze curved shapes: segments, boxes, triangles, cones and cylinders starting 1e-6
 * to 1e-3 of the size from a cone or a cylinder and moving at 70 to 90 degrees from the direction
 * that separates them. The cast nests two iterations (advances along the sweep, GJK at each point),
 * and GJK converges linearly on curved surfaces: a segment grazing a cone took 12 advances of about
 * 12 steps, 147 in all, and a single budget of 128 called it capped (the kept pair, below). Each
 * stage has its own cap: here a cap of 40 is never hit (at most 24 steps at one point and 18
 * advances), though a sweep takes up to 104 steps in all. A hit touches at t (the distance query)
 * and does not overlap just before; a miss never overlaps along the sweep (the penetration query). */
Test(collide_cast, sweeps_grazing_curved_shapes_stay_within_the_cap)
{
    drng r = {99};
    int hits = 0, most = 0;
    for (int k = 0; k < COUNT(3000); k++) {
        sr_shape a;
        switch (k % 5) {
        case 0:
            a = sr_shape_segment(drng_vec(&r, -1, 1), drng_vec(&r, -1, 1));
            break;
        case 1:
            a = sr_shape_box(drng_vec(&r, 0.1, 1));
            break;
        case 2:
            a = sr_shape_cone(drng_range(&r, 0.1, 1), drng_range(&r, 0.05, 1));
            break;
        case 3:
            a = sr_shape_cylinder(drng_range(&r, 0.1, 1), drng_range(&r, 0.05, 1));
            break;
        default:
            a = sr_shape_triangle(drng_vec(&r, -1, 1), drng_vec(&r, -1, 1), drng_vec(&r, -1, 1));
            break;
        }
        double radius = drng_range(&r, 0.1, 1), half_height = drng_range(&r, 0.05, 1);
        sr_shape b = (k / 5) % 2 ? sr_shape_cylinder(radius, half_height) : sr_shape_cone(radius, half_height);
        a.pose = sr_pose_make(v3(0, 0, 0), drng_rotation(&r));
        b.pose = sr_pose_make(v3(0, 0, 0), drng_rotation(&r));
        /* B at `gap` from A's support point along n, then A moved at angle theta from n */
        sr_dvec3 n = drng_direction(&r);
        const double gaps[4] = {1e-4, 1e-5, 1e-6, 1e-3};
        double size = sr_shape_size(&a) + sr_shape_size(&b);
        b.pose.position =
            vsub(vadd(sr_shape_support(&a, n), vscale(n, gaps[k % 4] * size)), sr_shape_support(&b, vscale(n, -1)));
        sr_dvec3 across = vcross(n, drng_direction(&r));
        across = vscale(across, 1 / vlength(across));
        double theta = drng_range(&r, 1.2, 0.5 * M_PI);
        sr_dvec3 v = vscale(vadd(vscale(n, cos(theta)), vscale(across, sin(theta))), drng_range(&r, 0.5, 2) * size);
        sr_collide_cast_hit hit;
        sr_collide_status status = sr_collide_shape_cast(&a, v, &b, &(sr_collide_options){.max_iterations = 40}, &hit);
        cr_assert_eq(status, SR_COLLIDE_OK, "case %d (%s-%s): status %d after %d iterations", k,
                     sr_shape_type_name(a.type), sr_shape_type_name(b.type), status, hit.iterations);
        most = hit.iterations > most ? hit.iterations : most;
        sr_shape moved = a;
        sr_collide_result at;
        if (hit.hit) {
            hits++;
            moved.pose.position = vscale(v, hit.t);
            sr_collide_distance(&moved, &b, NULL, &at);
            /* (within the cast's stall tolerance, 1e-6 of the scale: GJK near a curved surface) */
            cr_assert(at.hit || at.distance < 1e-6 * size, "case %d (%s-%s): %g apart at the time of impact", k,
                      sr_shape_type_name(a.type), sr_shape_type_name(b.type), at.distance);
            moved.pose.position = vscale(v, hit.t * (1 - 1e-6));
            sr_collide_penetration(&moved, &b, NULL, &at);
            cr_assert(at.distance >= -1e-9 * size, "case %d: %g deep just before the time of impact", k, -at.distance);
        } else {
            for (int i = 0; i <= 32; i++) {
                moved.pose.position = vscale(v, i / 32.0);
                sr_collide_penetration(&moved, &b, NULL, &at);
                cr_assert(at.distance >= -1e-9 * size, "case %d (%s-%s): a miss, but %g deep at t = %g", k,
                          sr_shape_type_name(a.type), sr_shape_type_name(b.type), -at.distance, i / 32.0);
            }
        }
    }
    cr_log_info("grazing sweeps: %d hits, at most %d iterations", hits, most);
    cr_assert(hits > COUNT(3000) / 10, "only %d hits", hits);
    /* the pair the oracle found (seed 9, pair 57146): a segment grazing a cone, 1.2e-5 away */
    sr_shape segment = sr_shape_segment(v3(0.18005817804192586, -0.29141827339005189, 0.57400277330390825),
                                        v3(-0.25805048037794431, -0.079863555742445191, -0.57178882514466511));
    segment.pose.rotation =
        (sr_dquat){0.78829778872420675, -0.098596041143959298, -0.60039585178301547, -0.091598243023609291};
    sr_shape cone = sr_shape_cone(0.32076452073833456, 0.26436378685005912);
    cone.pose =
        sr_pose_make(v3(-0.66138226000806521, 0.4194595982386648, -0.39466827484320177),
                     (sr_dquat){0.3830197091946575, 0.45357708487448672, 0.52892545485895082, 0.60646648188292707});
    sr_dvec3 v = v3(-0.97581546491568583, 0.30222520647206175, -0.8284080503443062);
    sr_collide_cast_hit hit;
    cr_assert_eq(sr_collide_shape_cast(&segment, v, &cone, NULL, &hit), SR_COLLIDE_OK, "the kept pair: status");
    cr_assert(hit.hit && hit.t > 3e-5 && hit.t < 3.5e-5, "the kept pair: hit %d at t %g", hit.hit, hit.t);
    sr_shape moved = segment;
    moved.pose.position = vscale(v, hit.t);
    sr_collide_result at;
    sr_collide_distance(&moved, &cone, NULL, &at);
    cr_assert(at.hit || at.distance < 1e-6, "the kept pair: %g apart at t", at.distance);
}
