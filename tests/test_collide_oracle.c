/* test_collide_oracle.c — the oracle of the collision tests (tests/collide_oracle.h) against
 * answers known in closed form: two spheres, axis-aligned boxes, a point and a box, capsules,
 * cylinders and cones standing on a box, and the generator's own placements (B put at a gap from
 * A's support point is exactly that far). Then the two halves of the oracle against each other:
 * the exact polytope solver and the support-function bounds agree on generated polytope pairs.
 * Needs none of the library's code: the oracle must be right before it judges anything. */
#include <criterion/criterion.h>

#include "collide_oracle.h"
#include "test_rng.h"

#include <math.h>
#include <string.h>

/* Cases per test in the release build; the sanitized build runs a fifth. */
#if defined(__SANITIZE_ADDRESS__)
#define SCALE 5
#else
#define SCALE 1
#endif

static uint64_t state = 0x1234567;

static double uniform(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) * 0x1p-53;
}

static double between(double low, double high)
{
    return low + (high - low) * uniform();
}

static sr_dvec3 random_point(double extent)
{
    double x = between(-extent, extent);
    double y = between(-extent, extent);
    double z = between(-extent, extent);
    return (sr_dvec3){x, y, z};
}

static oracle_shape make(sr_shape_type type, sr_dvec3 position)
{
    oracle_shape s;
    memset(&s, 0, sizeof s);
    s.type = type;
    s.pose.position = position;
    s.pose.rotation = (sr_dquat){0, 0, 0, 1};
    return s;
}

static oracle_pair pair; /* large */

static oracle_answer solve(const oracle_shape *a, const oracle_shape *b)
{
    oracle_pair_prepare(&pair, a, b);
    oracle_answer answer;
    oracle_solve(&pair, &answer);
    return answer;
}

static double length(sr_dvec3 v)
{
    return sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
}

static sr_dvec3 sub(sr_dvec3 a, sr_dvec3 b)
{
    return (sr_dvec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

Test(oracle_poly, cube_with_duplicates_and_inside_points_has_8_vertices_12_edges_6_faces)
{
    static oracle_poly poly;
    sr_dvec3 points[32];
    size_t n = 0;
    for (int i = 0; i < 8; i++)
        points[n++] = (sr_dvec3){i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1};
    points[n++] = points[3];                  /* duplicate */
    points[n++] = (sr_dvec3){0.2, -0.1, 0.3}; /* inside */
    points[n++] = (sr_dvec3){1, 0.5, -0.25};  /* on a face */
    points[n++] = (sr_dvec3){1, 1, 0};        /* on an edge */
    oracle_poly_build(points, n, &poly);
    cr_assert_eq(poly.dimension, 3);
    cr_assert_eq(poly.vertex_count, 8);
    cr_assert_eq(poly.edge_count, 12);
    cr_assert_eq(poly.face_count, 6);
    for (int f = 0; f < poly.face_count; f++) {
        cr_assert_eq(poly.faces[f].count, 4);
        cr_assert_float_eq(poly.faces[f].offset, 1.0, 1e-15);
    }
}

Test(oracle_poly, flat_needle_and_point_sets)
{
    static oracle_poly poly;
    sr_dvec3 square[6] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.5, 0.5, 0}, {0.5, 0, 0}};
    oracle_poly_build(square, 6, &poly);
    cr_assert_eq(poly.dimension, 2);
    cr_assert_eq(poly.vertex_count, 4);
    cr_assert_eq(poly.edge_count, 4);
    cr_assert_eq(poly.face_count, 2);
    cr_assert_float_eq(fabs(poly.axis.z), 1.0, 1e-15);
    sr_dvec3 needle[4] = {{0, 0, 0}, {3, 0, 0}, {1, 0, 0}, {3, 0, 0}};
    oracle_poly_build(needle, 4, &poly);
    cr_assert_eq(poly.dimension, 1);
    cr_assert_eq(poly.vertex_count, 2);
    cr_assert_eq(poly.edge_count, 1);
    sr_dvec3 point[3] = {{2, 2, 2}, {2, 2, 2}, {2, 2, 2}};
    oracle_poly_build(point, 3, &poly);
    cr_assert_eq(poly.dimension, 0);
    cr_assert_eq(poly.vertex_count, 1);
}

Test(oracle_analytic, two_spheres)
{
    for (int i = 0; i < 500 / SCALE; i++) {
        oracle_shape a = make(SR_SHAPE_SPHERE, random_point(2)), b = make(SR_SHAPE_SPHERE, random_point(2));
        a.radius = between(0.1, 1);
        b.radius = between(0.1, 1);
        if (i % 3 == 0) /* a rounded point is a sphere too */
            a.rounding = between(0, 0.5);
        double centres = length(sub(b.pose.position, a.pose.position));
        double expected = centres - a.radius - b.radius - a.rounding;
        oracle_answer answer = solve(&a, &b);
        cr_assert(answer.exact);
        cr_assert_float_eq(answer.distance, expected, 1e-12, "pair %d: %.17g vs %.17g", i, answer.distance, expected);
        sr_dvec3 axis = sub(b.pose.position, a.pose.position);
        double cosine = (axis.x * answer.normal.x + axis.y * answer.normal.y + axis.z * answer.normal.z) / centres;
        cr_assert_float_eq(cosine, 1.0, 1e-9, "pair %d: normal off the centres' line", i);
    }
}

/* Two axis-aligned boxes: apart, the length of the per-axis gaps; overlapping, the smallest
 * overlap of an axis (the boxes' Minkowski difference is a box). */
Test(oracle_analytic, axis_aligned_boxes)
{
    for (int i = 0; i < 500 / SCALE; i++) {
        oracle_shape a = make(SR_SHAPE_BOX, random_point(1.5)), b = make(SR_SHAPE_BOX, random_point(1.5));
        a.half_extents = (sr_dvec3){between(0.1, 1), between(0.1, 1), between(0.1, 1)};
        b.half_extents = (sr_dvec3){between(0.1, 1), between(0.1, 1), between(0.1, 1)};
        double ca[3] = {a.pose.position.x, a.pose.position.y, a.pose.position.z};
        double cb[3] = {b.pose.position.x, b.pose.position.y, b.pose.position.z};
        double ha[3] = {a.half_extents.x, a.half_extents.y, a.half_extents.z};
        double hb[3] = {b.half_extents.x, b.half_extents.y, b.half_extents.z};
        double gap2 = 0.0, overlap = INFINITY;
        bool apart = false;
        for (int k = 0; k < 3; k++) {
            double gap = fabs(cb[k] - ca[k]) - ha[k] - hb[k];
            if (gap > 0.0) {
                apart = true;
                gap2 += gap * gap;
            }
            overlap = fmin(overlap, -gap);
        }
        double expected = apart ? sqrt(gap2) : -overlap;
        oracle_answer answer = solve(&a, &b);
        cr_assert_float_eq(answer.distance, expected, 1e-12, "pair %d: %.17g vs %.17g", i, answer.distance, expected);
        if (!apart) /* boxes without rounding: SAT's smallest overlap is the depth */
            cr_assert_float_eq(answer.sat_separation, expected, 1e-12);
    }
}

Test(oracle_analytic, point_and_rotated_box)
{
    for (int i = 0; i < 500 / SCALE; i++) {
        oracle_shape box = make(SR_SHAPE_BOX, random_point(1));
        box.half_extents = (sr_dvec3){between(0.1, 1), between(0.1, 1), between(0.1, 1)};
        double angle = between(0, 6.28);
        box.pose.rotation = (sr_dquat){0, 0, sin(angle / 2), cos(angle / 2)};
        oracle_shape point = make(SR_SHAPE_POINT, random_point(2));
        /* The point in the box's frame: rotate back about z. */
        sr_dvec3 d = sub(point.pose.position, box.pose.position);
        double c = cos(angle), s = sin(angle);
        double local[3] = {c * d.x + s * d.y, -s * d.x + c * d.y, d.z};
        double h[3] = {box.half_extents.x, box.half_extents.y, box.half_extents.z};
        double outside2 = 0.0, inside = -INFINITY;
        for (int k = 0; k < 3; k++) {
            double q = fabs(local[k]) - h[k];
            outside2 += q > 0.0 ? q * q : 0.0;
            inside = fmax(inside, q);
        }
        double expected = inside > 0.0 ? sqrt(outside2) : inside;
        oracle_answer answer = solve(&box, &point);
        cr_assert_float_eq(answer.distance, expected, 1e-12, "pair %d: %.17g vs %.17g", i, answer.distance, expected);
    }
}

/* Two capsules along perpendicular axes, x and y, at heights 0 and dz: their segments' nearest
 * points are the clamped crossings. */
Test(oracle_analytic, crossed_capsules)
{
    for (int i = 0; i < 300 / SCALE; i++) {
        oracle_shape a = make(SR_SHAPE_CAPSULE, (sr_dvec3){0, 0, 0}), b = make(SR_SHAPE_CAPSULE, random_point(1.5));
        a.radius = between(0.05, 0.4);
        b.radius = between(0.05, 0.4);
        a.half_height = between(0.1, 1);
        b.half_height = between(0.1, 1);
        /* A's axis (local z) onto x, B's onto y. */
        a.pose.rotation = (sr_dquat){0, sqrt(0.5), 0, sqrt(0.5)};
        b.pose.rotation = (sr_dquat){-sqrt(0.5), 0, 0, sqrt(0.5)};
        sr_dvec3 c = b.pose.position;
        double x = fmax(-a.half_height, fmin(a.half_height, c.x)); /* nearest point of A's axis to B's */
        double y = fmax(-b.half_height, fmin(b.half_height, -c.y));
        double dx = c.x - x, dy = c.y + y, dz = c.z;
        /* Clamping one parameter can change the other's optimum: recompute both until stable. */
        for (int k = 0; k < 4; k++) {
            x = fmax(-a.half_height, fmin(a.half_height, c.x));
            y = fmax(-b.half_height, fmin(b.half_height, -c.y));
            dx = c.x - x;
            dy = c.y + y;
        }
        double expected = sqrt(dx * dx + dy * dy + dz * dz) - a.radius - b.radius;
        oracle_answer answer = solve(&a, &b);
        cr_assert_float_eq(answer.distance, expected, 1e-9, "pair %d: %.17g vs %.17g", i, answer.distance, expected);
    }
}

/* A cylinder or cone tilted by theta about x above a wide box whose top is z = 0: its lowest
 * point is at centre.z - (h |cos theta| + r |sin theta|) for the cylinder; for the cone, the
 * lowest of its apex and base rim. Depth or distance to the box's top. */
Test(oracle_analytic, tilted_cylinders_and_cones_over_a_box)
{
    int uncertified = 0;
    for (int i = 0; i < 200 / SCALE; i++) {
        bool cone = i % 2;
        oracle_shape s =
            make(cone ? SR_SHAPE_CONE : SR_SHAPE_CYLINDER, (sr_dvec3){between(-0.3, 0.3), between(-0.3, 0.3), 0});
        s.radius = between(0.1, 0.6);
        s.half_height = between(0.05, 0.8);
        double theta = between(-3.1, 3.1);
        s.pose.rotation = (sr_dquat){sin(theta / 2), 0, 0, cos(theta / 2)};
        double r = s.radius, h = s.half_height, c = cos(theta), sn = sin(theta);
        double lowest; /* of the solid, relative to its centre */
        if (!cone) {
            lowest = -(h * fabs(c) + r * fabs(sn));
        } else {
            double apex = h * c;                /* z of the apex */
            double rim = -h * c - r * fabs(sn); /* lowest point of the base circle */
            lowest = fmin(apex, rim);
        }
        double height = between(-0.8, 1.0) * (h + r);
        s.pose.position.z = height - lowest;
        oracle_shape box = make(SR_SHAPE_BOX, (sr_dvec3){0, 0, -5});
        box.half_extents = (sr_dvec3){5, 5, 5};
        oracle_answer answer = solve(&box, &s);
        cr_assert(!answer.exact);
        if (!answer.certified) {
            uncertified++;
            continue;
        }
        /* height > 0: apart by it; height < 0: the depth is -height (up out of the box is the
         * shortest way: the box is far wider than the shape). */
        double tol = oracle_tolerance(answer.size, height);
        cr_assert(answer.lo - 1e-12 <= height && height <= answer.hi + 1e-12,
                  "pair %d (%s, theta %.3f): %.17g not in [%.17g, %.17g]", i, cone ? "cone" : "cylinder", theta, height,
                  answer.lo, answer.hi);
        cr_assert_leq(answer.hi - answer.lo, 0.05 * tol + 1e-15);
        if (height < -0.01)
            cr_assert_gt(answer.normal.z, 0.999, "pair %d: normal (%g, %g, %g)", i, answer.normal.x, answer.normal.y,
                         answer.normal.z);
    }
    cr_assert_eq(uncertified, 0, "%d pairs uncertified", uncertified);
}

Test(oracle_analytic, sphere_and_cylinder)
{
    for (int i = 0; i < 300 / SCALE; i++) {
        oracle_shape cyl = make(SR_SHAPE_CYLINDER, (sr_dvec3){0, 0, 0});
        cyl.radius = between(0.2, 1);
        cyl.half_height = between(0.2, 1);
        oracle_shape ball = make(SR_SHAPE_SPHERE, random_point(2));
        ball.radius = between(0.05, 0.5);
        sr_dvec3 p = ball.pose.position;
        double rho = hypot(p.x, p.y), ds = rho - cyl.radius, dc = fabs(p.z) - cyl.half_height;
        double core = ds <= 0 && dc <= 0 ? fmax(ds, dc) : hypot(fmax(ds, 0), fmax(dc, 0));
        double expected = core - ball.radius;
        oracle_answer answer = solve(&cyl, &ball);
        cr_assert(answer.certified, "pair %d: bounds [%.17g, %.17g]", i, answer.lo, answer.hi);
        cr_assert(answer.lo - 1e-12 <= expected && expected <= answer.hi + 1e-12,
                  "pair %d: %.17g not in [%.17g, %.17g]", i, expected, answer.lo, answer.hi);
    }
}

/* The generator puts B at `gap` from A's support point along n: they are then exactly gap apart
 * (no pair of points is nearer, and n separates them by gap), or at most -gap deep. The oracle
 * must find exactly that, for every shape pair and kind, at every scale. */
Test(oracle_generator, placements_are_exactly_found)
{
    int checked = 0, uncertified = 0;
    for (uint64_t i = 0; i < 3000 / SCALE; i++) {
        oracle_shape a, b;
        oracle_pair_info info;
        oracle_generate_pair(7, i, &a, &b, &info);
        if (info.gap_kind == ORACLE_GAP_NONE)
            continue;
        oracle_answer answer = solve(&a, &b);
        if (!answer.certified) {
            uncertified++;
            continue;
        }
        double slack = 1e-10 * (info.scale + (info.far ? 1e3 : 0.0)) + 0.05 * oracle_tolerance(answer.size, info.gap);
        char line[64];
        snprintf(line, sizeof line, "pair %llu (%s)", (unsigned long long)i, oracle_kind_name(info.kind));
        cr_assert_geq(answer.hi, info.gap - slack, "%s: signed distance %.17g below the gap %.17g", line,
                      answer.distance, info.gap);
        if (info.gap_kind == ORACLE_GAP_SUPPORT && info.gap >= 0.0)
            cr_assert_leq(answer.lo, info.gap + slack, "%s: signed distance %.17g above the gap %.17g", line,
                          answer.distance, info.gap);
        checked++;
    }
    cr_log_info("%d placements checked, %d uncertified", checked, uncertified);
    cr_assert_leq(uncertified, 3, "%d uncertified", uncertified);
}

/* The exact polytope solver and the support-function bounds are independent computations: on
 * every generated pair of polytopes they must agree. */
Test(oracle_generator, exact_and_bounded_answers_agree)
{
    static oracle_pair p;
    int compared = 0;
    for (uint64_t i = 0; i < 2000 && compared < 400 / SCALE; i++) {
        oracle_shape a, b;
        oracle_generate_pair(11, i, &a, &b, NULL);
        oracle_pair_prepare(&p, &a, &b);
        if (!p.body_a.polytope || !p.body_b.polytope)
            continue;
        oracle_answer exact, bounded;
        oracle_solve(&p, &exact);
        oracle_solve_bound(&p.body_a, &p.body_b, p.size, &bounded);
        double slack = 1e-9 * (p.size + fabs(exact.distance)) +
                       1e-12 * (1.0 + fabs(p.origin.x) + fabs(p.origin.y) + fabs(p.origin.z));
        cr_assert(bounded.lo - slack <= exact.distance && exact.distance <= bounded.hi + slack,
                  "pair %llu: exact %.17g, bounds [%.17g, %.17g] (%d cells)", (unsigned long long)i, exact.distance,
                  bounded.lo, bounded.hi, bounded.cells);
        compared++;
    }
    cr_assert_geq(compared, 300 / SCALE);
}

/* The closed form of a cylinder or cone against itself (collide_oracle_solve.c) against the
 * branch and bound, whose bounds hold even when they do not meet. */
Test(oracle_analytic, identical_cylinders_and_cones)
{
    static oracle_pair p;
    for (int i = 0; i < 40 / SCALE; i++) {
        oracle_shape s = make(i % 2 ? SR_SHAPE_CONE : SR_SHAPE_CYLINDER, random_point(1));
        s.radius = between(0.05, 1);
        s.half_height = between(0.05, 1);
        s.rounding = i % 3 == 0 ? between(0, 0.2) : 0.0;
        double angle = between(0, 6.28);
        s.pose.rotation = (sr_dquat){sin(angle / 2) * 0.6, sin(angle / 2) * 0.8, 0, cos(angle / 2)};
        oracle_pair_prepare(&p, &s, &s);
        oracle_answer closed, bounded;
        oracle_solve(&p, &closed);
        oracle_solve_bound(&p.body_a, &p.body_b, p.size, &bounded);
        cr_assert(closed.exact);
        double slack = 1e-12 * p.size;
        cr_assert(bounded.lo - slack <= closed.distance && closed.distance <= bounded.hi + slack,
                  "%d: closed form %.17g, bounds [%.17g, %.17g]", i, closed.distance, bounded.lo, bounded.hi);
        cr_assert_float_eq(closed.distance, bounded.distance, 2e-3 * fabs(closed.distance));
    }
}

/* ---- the judges: right answers pass, wrong ones fail ---- */

static oracle_verdict judge_ray_hit(const oracle_shape *shape, sr_dvec3 origin, sr_dvec3 direction, double max_t,
                                    bool hit, double t, sr_dvec3 normal)
{
    sr_collide_ray_hit claim = {.hit = hit, .t = t, .normal = normal};
    claim.point = (sr_dvec3){origin.x + t * direction.x, origin.y + t * direction.y, origin.z + t * direction.z};
    char why[512];
    return oracle_judge_ray(shape, origin, direction, max_t, &claim, why, sizeof why);
}

Test(oracle_judge, rays)
{
    oracle_shape ball = make(SR_SHAPE_SPHERE, (sr_dvec3){0, 0, 0});
    ball.radius = 1.0;
    sr_dvec3 from = {-3, 0, 0}, along = {2, 0, 0}, back = {-1, 0, 0};
    /* Enters at x = -1: t = 1 in units of |direction| = 2. */
    cr_assert_eq(judge_ray_hit(&ball, from, along, 5, true, 1.0, back), ORACLE_PASS);
    cr_assert_eq(judge_ray_hit(&ball, from, along, 5, true, 1.05, back), ORACLE_FAIL, "a hit inside the ball");
    cr_assert_eq(judge_ray_hit(&ball, from, along, 5, true, 0.95, back), ORACLE_FAIL, "a hit before the ball");
    cr_assert_eq(judge_ray_hit(&ball, from, along, 5, true, 2.0, (sr_dvec3){1, 0, 0}), ORACLE_FAIL, "the exit point");
    cr_assert_eq(judge_ray_hit(&ball, from, along, 5, false, 0, back), ORACLE_FAIL, "a miss through the middle");
    cr_assert_eq(judge_ray_hit(&ball, from, along, 0.9, false, 0, back), ORACLE_PASS, "stops short of the ball");
    cr_assert_eq(judge_ray_hit(&ball, from, along, 5, true, 1.0, (sr_dvec3){0, 1, 0}), ORACLE_FAIL, "a wrong normal");
    /* Past the ball at 1.5, and grazing it within the tolerance. */
    cr_assert_eq(judge_ray_hit(&ball, (sr_dvec3){-3, 1.5, 0}, along, 5, true, 1.5, back), ORACLE_FAIL);
    cr_assert_eq(judge_ray_hit(&ball, (sr_dvec3){-3, 1.5, 0}, along, 5, false, 0, back), ORACLE_PASS);
    cr_assert_eq(judge_ray_hit(&ball, (sr_dvec3){-3, 1 + 1e-7, 0}, along, 5, false, 0, back), ORACLE_PASS);
    cr_assert_eq(judge_ray_hit(&ball, (sr_dvec3){-3, 1 - 1e-7, 0}, along, 5, true, 1.5, (sr_dvec3){0, 1, 0}),
                 ORACLE_PASS);
    /* From inside: t = 0 and the normal -direction. */
    cr_assert_eq(judge_ray_hit(&ball, (sr_dvec3){0.2, 0, 0}, along, 5, true, 0.0, back), ORACLE_PASS);
    cr_assert_eq(judge_ray_hit(&ball, (sr_dvec3){0.2, 0, 0}, along, 5, true, 0.4, (sr_dvec3){1, 0, 0}), ORACLE_FAIL);
    /* A triangle crossed through its middle: a miss is wrong; along its plane a miss is right. */
    oracle_shape triangle = make(SR_SHAPE_TRIANGLE, (sr_dvec3){0, 0, 0});
    triangle.point_count = 3;
    triangle.points[0] = (sr_dvec3){-1, -1, 0};
    triangle.points[1] = (sr_dvec3){1, -1, 0};
    triangle.points[2] = (sr_dvec3){0, 1, 0};
    sr_dvec3 down = {0, 0, -1};
    cr_assert_eq(judge_ray_hit(&triangle, (sr_dvec3){0, 0, 2}, down, 5, true, 2.0, (sr_dvec3){0, 0, 1}), ORACLE_PASS);
    cr_assert_eq(judge_ray_hit(&triangle, (sr_dvec3){0, 0, 2}, down, 5, false, 0, back), ORACLE_FAIL);
    cr_assert_eq(judge_ray_hit(&triangle, (sr_dvec3){0, 0, 2}, down, 5, true, 2.5, (sr_dvec3){0, 0, 1}), ORACLE_FAIL);
}

Test(oracle_judge, shape_casts)
{
    static oracle_pair p;
    oracle_shape a = make(SR_SHAPE_SPHERE, (sr_dvec3){-3, 0, 0}), b = make(SR_SHAPE_SPHERE, (sr_dvec3){0, 0, 0});
    a.radius = b.radius = 1.0;
    oracle_pair_prepare(&p, &a, &b);
    sr_dvec3 move = {4, 0, 0};
    char why[512];
    /* A's centre reaches -2 at t = 0.25: touching at x = -1. */
    sr_collide_cast_hit right = {.hit = true, .t = 0.25, .point = {-1, 0, 0}, .normal = {1, 0, 0}};
    cr_assert_eq(oracle_judge_cast(&p, move, &right, why, sizeof why), ORACLE_PASS, "%s", why);
    sr_collide_cast_hit late = right;
    late.t = 0.3;
    late.point = (sr_dvec3){-0.8, 0, 0};
    cr_assert_eq(oracle_judge_cast(&p, move, &late, why, sizeof why), ORACLE_FAIL);
    sr_collide_cast_hit miss = {0};
    cr_assert_eq(oracle_judge_cast(&p, move, &miss, why, sizeof why), ORACLE_FAIL);
    sr_collide_cast_hit wrong_normal = right;
    wrong_normal.normal = (sr_dvec3){0, 1, 0};
    cr_assert_eq(oracle_judge_cast(&p, move, &wrong_normal, why, sizeof why), ORACLE_FAIL);
    sr_collide_cast_hit overlapping = {.hit = true, .t = 0, .initially_overlapping = true, .normal = {1, 0, 0}};
    cr_assert_eq(oracle_judge_cast(&p, move, &overlapping, why, sizeof why), ORACLE_FAIL);
    /* Too short to reach B: a miss is right. */
    cr_assert_eq(oracle_judge_cast(&p, (sr_dvec3){0.9, 0, 0}, &miss, why, sizeof why), ORACLE_PASS, "%s", why);
}

Test(oracle_judge, signed_distances_and_intersections)
{
    static oracle_pair p;
    oracle_shape a = make(SR_SHAPE_BOX, (sr_dvec3){0, 0, 0}), b = make(SR_SHAPE_BOX, (sr_dvec3){1.5, 0.2, 0.1});
    a.half_extents = b.half_extents = (sr_dvec3){1, 1, 1};
    oracle_pair_prepare(&p, &a, &b);
    oracle_answer truth;
    oracle_solve(&p, &truth);
    cr_assert_float_eq(truth.distance, -0.5, 1e-15);
    char why[512];
    /* Depth 0.5 along +x, witnesses on the faces. */
    oracle_claim right = {true, -0.5, true, true, {1, 0, 0}, {1, 0.2, 0.1}, {0.5, 0.2, 0.1}};
    cr_assert_eq(oracle_judge_signed(&p, &truth, &right, false, why, sizeof why), ORACLE_PASS, "%s", why);
    oracle_claim shallow = right;
    shallow.distance = -0.4;
    cr_assert_eq(oracle_judge_signed(&p, &truth, &shallow, false, why, sizeof why), ORACLE_FAIL);
    oracle_claim bullet = right; /* Bullet's answer for these boxes, margins 0 (see docs) */
    bullet.distance = -0.31305;
    bullet.normal = (sr_dvec3){0.447214, 0, -0.894427};
    cr_assert_eq(oracle_judge_signed(&p, &truth, &bullet, false, why, sizeof why), ORACLE_FAIL);
    oracle_claim tilted = right; /* 10 degrees off, and B moved along it would not just touch */
    tilted.normal = (sr_dvec3){cos(0.1745), sin(0.1745), 0};
    cr_assert_eq(oracle_judge_signed(&p, &truth, &tilted, false, why, sizeof why), ORACLE_FAIL);
    oracle_claim off = right;
    off.point_b = (sr_dvec3){0.5, 0.2, 1.5};
    cr_assert_eq(oracle_judge_signed(&p, &truth, &off, false, why, sizeof why), ORACLE_FAIL);
    oracle_claim apart = {false, 0.1, true, true, {1, 0, 0}, {1, 0, 0}, {1.1, 0, 0}};
    cr_assert_eq(oracle_judge_signed(&p, &truth, &apart, false, why, sizeof why), ORACLE_FAIL);
    cr_assert_eq(oracle_judge_intersect(&p, &truth, false, NULL, why, sizeof why), ORACLE_FAIL);
    cr_assert_eq(oracle_judge_intersect(&p, &truth, true, NULL, why, sizeof why), ORACLE_PASS);
    /* Apart by 0.5 along x: the axis must separate. */
    b.pose.position = (sr_dvec3){2.5, 0.2, 0.1};
    oracle_pair_prepare(&p, &a, &b);
    oracle_solve(&p, &truth);
    sr_dvec3 good = {1, 0, 0}, bad = {0, 1, 0};
    cr_assert_eq(oracle_judge_intersect(&p, &truth, false, &good, why, sizeof why), ORACLE_PASS, "%s", why);
    cr_assert_eq(oracle_judge_intersect(&p, &truth, false, &bad, why, sizeof why), ORACLE_FAIL);
    oracle_claim closest = {false, 0.5, true, true, {1, 0, 0}, {1, 0.5, 0.5}, {1.5, 0.5, 0.5}};
    cr_assert_eq(oracle_judge_signed(&p, &truth, &closest, false, why, sizeof why), ORACLE_PASS, "%s", why);
    closest.point_b = (sr_dvec3){1.5, 0.5, 1.5}; /* off B */
    cr_assert_eq(oracle_judge_signed(&p, &truth, &closest, false, why, sizeof why), ORACLE_FAIL);
    /* SAT apart: a face normal separates by 0.5, so a smaller separation is wrong. */
    sr_collide_result sat = {.hit = false, .distance = 0.3, .normal = {0.6, 0.8, 0}};
    cr_assert_eq(oracle_judge_sat(&p, &truth, &sat, why, sizeof why), ORACLE_FAIL);
    sat.distance = 0.5;
    sat.normal = (sr_dvec3){1, 0, 0};
    cr_assert_eq(oracle_judge_sat(&p, &truth, &sat, why, sizeof why), ORACLE_PASS, "%s", why);
}
