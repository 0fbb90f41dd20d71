/* test_collide_point_core.c — a sphere or point against a box, cylinder or cone, which the pair
 * queries answer in closed form (src/collide/point_core.c), judged three independent ways on
 * thousands of random poses: the oracle's exact point distance (tests/collide_oracle.h: the
 * brute-force polytope for boxes, the meridian triangle's edges for cylinders and cones), a dense
 * sampling of the core's surface, and the oracle's judge of the whole answer (normal, witness
 * points). The poses include the degenerate cases the shapes allow: zero heights, radii and half
 * extents, the point on the axis, on an edge or rim, exactly on the surface, a hair inside or
 * outside, and 1e3 from the world's origin. The traced queries (which run GJK and EPA, to show
 * their steps) agree within their tolerance. */
#include "collide_oracle.h"

#include <criterion/criterion.h>
#include <softrast/collide.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t state = 0x9E3779B97F4A7C15ull;

static double uniform(double low, double high)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return low + (high - low) * (double)((state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static bool chance(double p)
{
    return uniform(0, 1) < p;
}

static sr_dvec3 v3(double x, double y, double z)
{
    return sr_dvec3_make(x, y, z);
}

static sr_dvec3 random_unit(void)
{
    for (;;) {
        sr_dvec3 d = v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        double l = sr_dvec3_length(d);
        if (l > 0.1 && l <= 1)
            return sr_dvec3_scale(d, 1 / l);
    }
}

/* A size, sometimes exactly 0 (the degenerate shapes). */
static double size_or_zero(double zero_chance)
{
    return chance(zero_chance) ? 0.0 : uniform(0.05, 1.5);
}

/* A random box, cylinder or cone (type 0, 1, 2), a quarter rounded, a quarter unrotated, a tenth
 * 1e3 from the origin. */
static sr_shape random_solid(int type)
{
    sr_shape s;
    if (type == 0)
        s = sr_shape_box(v3(size_or_zero(0.1), size_or_zero(0.1), size_or_zero(0.1)));
    else if (type == 1)
        s = sr_shape_cylinder(size_or_zero(0.1), size_or_zero(0.1));
    else
        s = sr_shape_cone(size_or_zero(0.1), size_or_zero(0.1));
    if (chance(0.25))
        s.rounding = uniform(0, 0.3);
    sr_dvec3 position = v3(uniform(-2, 2), uniform(-2, 2), uniform(-2, 2));
    if (chance(0.1))
        position = sr_dvec3_add(position, v3(-700, 400, 1000));
    sr_dquat rotation = chance(0.25) ? sr_dquat_identity() : sr_dquat_from_axis_angle(random_unit(), uniform(0, 6.3));
    return sr_shape_with_pose(s, sr_pose_make(position, rotation));
}

/* A point of the core's surface in its frame (faces, edges, corners; side, caps, rims, apex). */
static sr_dvec3 local_surface_point(const sr_shape *s)
{
    double r = s->radius, h = s->half_height;
    if (s->type == SR_SHAPE_BOX) {
        sr_dvec3 e = s->half_extents;
        double c[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
        int pinned = 1 + (int)uniform(0, 3); /* 1: a face, 2: an edge, 3: a corner */
        for (int k = 0; k < pinned; k++)
            c[(k + (int)uniform(0, 3)) % 3] = chance(0.5) ? 1 : -1;
        return v3(c[0] * e.x, c[1] * e.y, c[2] * e.z);
    }
    double angle = uniform(0, 6.3);
    sr_dvec3 radial = v3(cos(angle), sin(angle), 0);
    double t = uniform(-1, 1);
    int where = (int)uniform(0, 4);
    if (s->type == SR_SHAPE_CYLINDER) {
        if (where == 0) /* the side */
            return v3(r * radial.x, r * radial.y, t * h);
        if (where == 1) /* a rim */
            return v3(r * radial.x, r * radial.y, t < 0 ? -h : h);
        double f = where == 2 ? fabs(t) : 0; /* a cap, or its centre */
        return v3(f * r * radial.x, f * r * radial.y, t < 0 ? -h : h);
    }
    if (where == 0) /* the slanted side */ {
        double f = 0.5 * (t + 1);
        return v3(f * r * radial.x, f * r * radial.y, h - 2 * h * f);
    }
    if (where == 1) /* the rim */
        return v3(r * radial.x, r * radial.y, -h);
    if (where == 2) /* the base */
        return v3(fabs(t) * r * radial.x, fabs(t) * r * radial.y, -h);
    return v3(0, 0, chance(0.5) ? h : -h); /* the apex or the base's centre */
}

static sr_dvec3 to_world(const sr_shape *s, sr_dvec3 local)
{
    return sr_dvec3_add(sr_dquat_rotate(s->pose.rotation, local), s->pose.position);
}

/* The sphere's centre for a solid: anywhere near it, on its axis, on its surface exactly, or a
 * hair off the surface. */
static sr_dvec3 random_centre(const sr_shape *solid)
{
    double size = sr_shape_size(solid) + 0.1;
    int kind = (int)uniform(0, 5);
    if (kind == 0) /* anywhere near, inside or out */
        return to_world(solid, v3(uniform(-size, size), uniform(-size, size), uniform(-size, size)));
    if (kind == 1) /* on the axis (cylinder, cone), on a local axis (box) */
        return to_world(solid, v3(0, 0, uniform(-size, size)));
    sr_dvec3 surface = local_surface_point(solid);
    if (kind == 2)
        return to_world(solid, surface);
    double offsets[] = {1e-13, 1e-11, 1e-9, 1e-6, 1e-3, 0.3};
    double offset = offsets[(int)uniform(0, 6)] * (chance(0.5) ? 1 : -1) * size;
    return to_world(solid, sr_dvec3_add(surface, sr_dvec3_scale(random_unit(), offset)));
}

/* The brute force of the core's surface in its frame: the smallest distance from local point q to
 * a grid of its surface points, and a bound on how far any surface point is from the grid. */
enum { GRID = 48 };

static void sample(sr_dvec3 q, sr_dvec3 p, double *best)
{
    double d = sr_dvec3_length(sr_dvec3_sub(q, p));
    if (d < *best)
        *best = d;
}

static double sampled_surface_distance(const sr_shape *s, sr_dvec3 q, double *spacing)
{
    double best = INFINITY;
    double r = s->radius, h = s->half_height;
    if (s->type == SR_SHAPE_BOX) {
        double e[3] = {s->half_extents.x, s->half_extents.y, s->half_extents.z};
        *spacing = 2 * sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / (GRID - 1);
        for (int axis = 0; axis < 3; axis++)
            for (int side = -1; side <= 1; side += 2)
                for (int i = 0; i < GRID; i++)
                    for (int j = 0; j < GRID; j++) {
                        double c[3];
                        c[axis] = side * e[axis];
                        c[(axis + 1) % 3] = e[(axis + 1) % 3] * (2.0 * i / (GRID - 1) - 1);
                        c[(axis + 2) % 3] = e[(axis + 2) % 3] * (2.0 * j / (GRID - 1) - 1);
                        sample(q, v3(c[0], c[1], c[2]), &best);
                    }
        return best;
    }
    enum { ANGLES = 4 * GRID };
    double arc = 2 * M_PI * r / ANGLES;
    *spacing = arc + 2 * sqrt(r * r + 4 * h * h) / (GRID - 1);
    for (int a = 0; a < ANGLES; a++) {
        double angle = 2 * M_PI * a / ANGLES, cx = cos(angle), cy = sin(angle);
        for (int i = 0; i < GRID; i++) {
            double f = (double)i / (GRID - 1);
            /* a cap or the base: a disc of radius r */
            sample(q, v3(f * r * cx, f * r * cy, -h), &best);
            if (s->type == SR_SHAPE_CYLINDER) {
                sample(q, v3(f * r * cx, f * r * cy, h), &best);
                sample(q, v3(r * cx, r * cy, h - 2 * h * f), &best); /* the side */
            } else {
                sample(q, v3(f * r * cx, f * r * cy, h - 2 * h * f), &best); /* the slanted side */
            }
        }
    }
    return best;
}

typedef struct point_case {
    sr_shape a, b, solid, sphere;
    bool sphere_first;
} point_case;

static void make_case(int index, point_case *c)
{
    c->solid = random_solid(index % 3);
    double radius = chance(0.3) ? 0 : uniform(0, 0.5);
    c->sphere = radius > 0 ? sr_shape_sphere(radius) : sr_shape_point();
    if (chance(0.1))
        c->sphere.rounding = uniform(0, 0.2);
    c->sphere = sr_shape_with_pose(c->sphere, sr_pose_make(random_centre(&c->solid), sr_dquat_identity()));
    c->sphere_first = chance(0.5);
    c->a = c->sphere_first ? c->sphere : c->solid;
    c->b = c->sphere_first ? c->solid : c->sphere;
}

static oracle_body *body_of(const sr_shape *s, oracle_body *body)
{
    oracle_shape o;
    cr_assert(oracle_from_shape(s, NULL, 0, &o));
    oracle_body_make(&o, v3(0, 0, 0), body);
    return body;
}

static double sphere_radius(const sr_shape *sphere)
{
    return sphere->radius + sphere->rounding;
}

enum { CASES = 6000 };

/* The signed distance and its witnesses against the oracle's exact point distance, for both
 * orders of the pair, at 1e-12 of the pair's scale (the closed forms' rounding; GJK's tolerance is
 * 1e-7). */
Test(collide_point_core, signed_distance_matches_the_exact_point_distance)
{
    static oracle_body solid_body, a_body, b_body;
    double worst = 0;
    for (int index = 0; index < CASES; index++) {
        point_case c;
        make_case(index, &c);
        sr_collide_result r;
        cr_assert_eq(sr_collide_signed_distance(&c.a, &c.b, NULL, &r), SR_COLLIDE_OK);
        cr_assert_eq(r.method, SR_COLLIDE_BY_CLOSED_FORM, "case %d: method %d", index, r.method);
        cr_assert_eq(r.iterations, 0);
        body_of(&c.solid, &solid_body);
        double truth = oracle_point_distance(&solid_body, c.sphere.pose.position, NULL) - sphere_radius(&c.sphere);
        double scale = sr_shape_size(&c.solid) + sr_shape_size(&c.sphere) +
                       sr_dvec3_length(sr_dvec3_sub(c.solid.pose.position, c.sphere.pose.position));
        double tolerance = 1e-12 * scale;
        /* shapes touching within 1e-9 of the scale may answer 0 (query.c's CORES_CROSSING) */
        double expected = truth;
        if (fabs(truth) <= 1e-9 * scale)
            tolerance = 2e-9 * scale;
        if (fabs(truth) > 1e-9 * scale)
            worst = fmax(worst, fabs(r.distance - expected) / scale);
        cr_assert(fabs(r.distance - expected) <= tolerance, "case %d (%s): distance %.17g, exact %.17g", index,
                  c.solid.type == SR_SHAPE_BOX        ? "box"
                  : c.solid.type == SR_SHAPE_CYLINDER ? "cylinder"
                                                      : "cone",
                  r.distance, expected);
        cr_assert_eq(r.hit, r.distance <= 0, "case %d: hit %d at distance %g", index, r.hit, r.distance);
        cr_assert(fabs(sr_dvec3_length(r.normal) - 1) <= 1e-12, "case %d: normal not unit", index);
        /* the witnesses: on their shapes, point_b - point_a = distance * normal */
        body_of(&c.a, &a_body);
        body_of(&c.b, &b_body);
        double off_a = oracle_point_distance(&a_body, r.point_a, NULL);
        double off_b = oracle_point_distance(&b_body, r.point_b, NULL);
        /* (touching within GJK's 1e-10 of the scale: one point for both, on one of them) */
        double on = r.distance == 0 ? 1e-9 * scale : 1e-11 * scale;
        cr_assert(fabs(off_a) <= on && fabs(off_b) <= on,
                  "case %d: witness points %g and %g off their shapes (scale %g, distance %g, solid %d, sphere %d "
                  "first %d)",
                  index, off_a, off_b, scale, r.distance, c.solid.type, c.sphere.type, c.sphere_first);
        sr_dvec3 gap = sr_dvec3_sub(sr_dvec3_sub(r.point_b, r.point_a), sr_dvec3_scale(r.normal, r.distance));
        cr_assert(sr_dvec3_length(gap) <= 1e-11 * scale, "case %d: point_b - point_a is %g off distance * normal",
                  index, sr_dvec3_length(gap));
        /* penetrating: moving B by the depth along the normal makes them touch */
        if (r.distance < 0) {
            double depth = oracle_depth_along(&a_body, &b_body, r.normal);
            cr_assert(fabs(depth + r.distance) <= 1e-11 * scale, "case %d: depth %.17g, along the normal %.17g", index,
                      -r.distance, depth);
        }
    }
    cr_log_info("largest difference from the exact point distance (shapes not touching): %.3g of the scale", worst);
}

/* The closed forms against a dense sampling of the core's surface: the distance to the nearest
 * surface point (outside: to the core; inside: to its boundary) is at most the smallest sampled
 * one, and at least that less the grid's spacing. */
Test(collide_point_core, distance_matches_a_sampled_surface)
{
    for (int index = 0; index < CASES / 10; index++) {
        point_case c;
        make_case(index, &c);
        sr_collide_result r;
        cr_assert_eq(sr_collide_signed_distance(&c.a, &c.b, NULL, &r), SR_COLLIDE_OK);
        double core = r.distance + sphere_radius(&c.sphere) + c.solid.rounding;
        if (r.distance == 0)
            continue; /* touching: the depth is clipped at 0 */
        sr_dvec3 q = sr_dquat_rotate(sr_dquat_conjugate(c.solid.pose.rotation),
                                     sr_dvec3_sub(c.sphere.pose.position, c.solid.pose.position));
        double spacing;
        double sampled = sampled_surface_distance(&c.solid, q, &spacing);
        double scale = sr_shape_size(&c.solid) + sr_dvec3_length(q) + 1e-3 * sr_dvec3_length(c.solid.pose.position);
        cr_assert(fabs(core) <= sampled + 1e-12 * scale && sampled <= fabs(core) + spacing + 1e-12 * scale,
                  "case %d: |core distance| %.17g, sampled surface %.17g (spacing %g)", index, fabs(core), sampled,
                  spacing);
    }
}

/* The oracle's judge of the whole answer (distance, normal, witness points), and the distance
 * query's form of an overlap (distance 0, one common point inside both). */
Test(collide_point_core, the_oracle_judges_every_answer)
{
    static oracle_pair pair;
    for (int index = 0; index < CASES / 4; index++) {
        point_case c;
        make_case(index, &c);
        oracle_shape oa, ob;
        cr_assert(oracle_from_shape(&c.a, NULL, 0, &oa) && oracle_from_shape(&c.b, NULL, 0, &ob));
        oracle_pair_prepare(&pair, &oa, &ob);
        oracle_answer truth;
        oracle_solve(&pair, &truth);
        char why[512];
        for (int query = 0; query < 3; query++) {
            sr_collide_result r;
            sr_collide_status status = query == 0   ? sr_collide_signed_distance(&c.a, &c.b, NULL, &r)
                                       : query == 1 ? sr_collide_penetration(&c.a, &c.b, NULL, &r)
                                                    : sr_collide_distance(&c.a, &c.b, NULL, &r);
            cr_assert_eq(status, SR_COLLIDE_OK);
            oracle_claim claim = {r.hit, r.distance, true, true, r.normal, r.point_a, r.point_b};
            oracle_verdict v = oracle_judge_signed(&pair, &truth, &claim, query == 2, why, sizeof why);
            cr_assert(v != ORACLE_FAIL, "case %d, query %d: %s", index, query, why);
            if (query == 2 && r.hit) {
                cr_assert(r.distance == 0 && sr_dvec3_length(sr_dvec3_sub(r.point_a, r.point_b)) == 0);
                double in_a = oracle_point_distance(&pair.body_a, sr_dvec3_sub(r.point_a, pair.origin), NULL);
                double in_b = oracle_point_distance(&pair.body_b, sr_dvec3_sub(r.point_a, pair.origin), NULL);
                cr_assert(in_a <= 1e-11 * truth.size + 1e-9 && in_b <= 1e-11 * truth.size + 1e-9,
                          "case %d: the common point is %g and %g outside", index, in_a, in_b);
            }
        }
    }
}

/* The placed forms answer bit for bit as the shapes' queries; sr_collide_intersect agrees on hit
 * except within the touching tolerance; a traced query, which runs GJK (and EPA) to show their
 * steps, agrees within their tolerance. */
Test(collide_point_core, placed_intersect_and_traced_queries_agree)
{
    static oracle_body solid_body;
    double worst_closed = 0, worst_traced = 0;
    for (int index = 0; index < CASES / 2; index++) {
        point_case c;
        make_case(index, &c);
        sr_collide_result r, placed, traced;
        cr_assert_eq(sr_collide_signed_distance(&c.a, &c.b, NULL, &r), SR_COLLIDE_OK);
        sr_placed_shape pa, pb;
        sr_shape_place(&c.a, &pa);
        sr_shape_place(&c.b, &pb);
        cr_assert_eq(sr_collide_placed_signed_distance(&pa, &pb, NULL, &placed), SR_COLLIDE_OK);
        cr_assert(memcmp(&r, &placed, sizeof r) == 0, "case %d: the placed form differs", index);
        sr_collide_result distance, placed_distance;
        sr_collide_distance(&c.a, &c.b, NULL, &distance);
        sr_collide_placed_distance(&pa, &pb, NULL, &placed_distance);
        cr_assert(memcmp(&distance, &placed_distance, sizeof distance) == 0, "case %d: placed distance", index);

        double scale = sr_shape_size(&c.solid) + sr_shape_size(&c.sphere) +
                       sr_dvec3_length(sr_dvec3_sub(c.solid.pose.position, c.sphere.pose.position));
        bool hit;
        cr_assert_eq(sr_collide_intersect(&c.a, &c.b, NULL, NULL, &hit), SR_COLLIDE_OK);
        cr_assert(hit == r.hit || fabs(r.distance) <= 1e-9 * scale, "case %d: intersect %d, distance %.17g", index, hit,
                  r.distance);

        sr_collide_trace trace;
        memset(&trace, 0, sizeof trace);
        sr_collide_options options = {.trace = &trace};
        sr_collide_status status = sr_collide_signed_distance(&c.a, &c.b, &options, &traced);
        cr_assert(traced.method != SR_COLLIDE_BY_CLOSED_FORM || c.solid.type != SR_SHAPE_BOX,
                  "case %d: a traced query of a box ran the closed form", index);
        if (status == SR_COLLIDE_OK)
            cr_assert(fabs(traced.distance - r.distance) <= 1e-6 * scale, "case %d: traced %.17g, closed form %.17g",
                      index, traced.distance, r.distance);
        double truth = oracle_point_distance(body_of(&c.solid, &solid_body), c.sphere.pose.position, NULL) -
                       sphere_radius(&c.sphere);
        if (fabs(truth) > 1e-9 * scale) {
            worst_closed = fmax(worst_closed, fabs(r.distance - truth) / scale);
            worst_traced = fmax(worst_traced, fabs(traced.distance - truth) / scale);
        }
    }
    /* at least as accurate as the iterations it replaces */
    cr_assert(worst_closed <= fmax(worst_traced, 1e-13), "closed forms %.3g, GJK and EPA %.3g of the scale",
              worst_closed, worst_traced);
    cr_log_info("largest difference from the exact point distance: closed forms %.3g, GJK and EPA %.3g of the scale",
                worst_closed, worst_traced);
}

/* Hand-made cases with known answers: every region of each core, and the degenerate shapes. */
static void expect(sr_shape solid, sr_dvec3 centre, double radius, double distance, sr_dvec3 normal, const char *what)
{
    sr_shape sphere = sr_shape_with_pose(radius > 0 ? sr_shape_sphere(radius) : sr_shape_point(),
                                         sr_pose_make(centre, sr_dquat_identity()));
    sr_collide_result r;
    cr_assert_eq(sr_collide_signed_distance(&sphere, &solid, NULL, &r), SR_COLLIDE_OK);
    cr_assert(fabs(r.distance - distance) <= 4e-15, "%s: distance %.17g, expected %.17g", what, r.distance, distance);
    /* the normal goes from the sphere (A) towards the solid (B) */
    cr_assert(sr_dvec3_length(sr_dvec3_sub(r.normal, normal)) <= 4e-15, "%s: normal (%g, %g, %g)", what, r.normal.x,
              r.normal.y, r.normal.z);
    cr_assert_eq(r.method, SR_COLLIDE_BY_CLOSED_FORM, "%s", what);
}

Test(collide_point_core, known_answers)
{
    sr_shape box = sr_shape_box(v3(1, 2, 3));
    expect(box, v3(3, 0, 0), 0.5, 1.5, v3(-1, 0, 0), "box face");
    expect(box, v3(4, 6, 0), 0, 5, v3(-0.6, -0.8, 0), "box edge");
    expect(box, v3(2, 4, 5), 0, 3, v3(-1.0 / 3, -2.0 / 3, -2.0 / 3), "box corner");
    expect(box, v3(0.5, 0, 0), 0.25, -0.75, v3(-1, 0, 0), "inside a box, nearest the +x face");
    expect(box, v3(0, 0, -2.5), 0, -0.5, v3(0, 0, 1), "inside a box, nearest the -z face");
    expect(box, v3(0, 0, 0), 0, -1, v3(-1, 0, 0), "a box's centre: the nearest face, ties to x");
    expect(sr_shape_box(v3(1, 1, 0)), v3(0.5, 0, 0), 0.1, -0.1, v3(0, 0, -1), "in a flat box");

    sr_shape cylinder = sr_shape_cylinder(1, 2);
    expect(cylinder, v3(0, 3, 0), 0, 2, v3(0, -1, 0), "cylinder side");
    expect(cylinder, v3(0, 0, 5), 1, 2, v3(0, 0, -1), "cylinder cap, on the axis");
    expect(cylinder, v3(4, 0, 6), 0, 5, v3(-0.6, 0, -0.8), "cylinder rim");
    expect(cylinder, v3(0, 0, 0), 0.5, -1.5, v3(-1, 0, 0), "cylinder centre: the side (radially, any way)");
    expect(cylinder, v3(0, 0.5, 1.75), 0, -0.25, v3(0, 0, -1), "inside a cylinder, nearest the cap");
    expect(sr_shape_cylinder(1, 0), v3(0, 0, 1), 0, 1, v3(0, 0, -1), "a disc, above");
    expect(sr_shape_cylinder(0, 1), v3(0, 2, 0), 0, 2, v3(0, -1, 0), "a cylinder of radius 0: a segment");

    /* the cone r = 1, h = 1: apex (0, 0, 1), base z = -1; slanted side 2 rho + z = 1 */
    sr_shape cone = sr_shape_cone(1, 1);
    expect(cone, v3(0, 0, 3), 0, 2, v3(0, 0, -1), "cone apex, on the axis");
    expect(cone, v3(0, 0, -4), 0, 3, v3(0, 0, 1), "cone base, on the axis");
    expect(cone, v3(4, 0, -5), 0, 5, v3(-0.6, 0, 0.8), "cone rim");
    expect(cone, v3(1, 0, 1), 0, 2 / sqrt(5), v3(-2 / sqrt(5), 0, -1 / sqrt(5)), "cone slanted side");
    expect(cone, v3(0, 0, -0.9), 0, -0.1, v3(0, 0, 1), "inside a cone, nearest the base");
    expect(cone, v3(0, 0, 0.5), 0, -0.5 / sqrt(5), v3(-2 / sqrt(5), 0, -1 / sqrt(5)),
           "inside a cone on its axis, nearest the slanted side");
    expect(sr_shape_cone(0, 1), v3(0, 3, 0), 0, 3, v3(0, -1, 0), "a cone of radius 0: a segment");
    expect(sr_shape_cone(1, 0), v3(0, 0, -2), 0, 2, v3(0, 0, 1), "a cone of height 0: a disc");
}
