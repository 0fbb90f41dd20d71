/* tests/collide_oracle_judge.c — judging a collision library's answers against the oracle
 * (collide_oracle.h), with the tolerances of issue 21. A verdict is PASS, FAIL (certainly wrong,
 * with the reason in `why`), or UNCERTIFIED (the oracle's bounds of a curved pair are too wide to
 * tell). Used by the pairs test on softrast's answers and by the baselines benchmark on libccd's,
 * FCL's and Bullet's. */
#include "collide_oracle_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Normals within this angle of the oracle's are right (issue 21). */
#define NORMAL_DEGREES 3.0

static oracle_verdict fail(char *why, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

static oracle_verdict fail(char *why, size_t size, const char *format, ...)
{
    if (why && size) {
        va_list args;
        va_start(args, format);
        vsnprintf(why, size, format, args);
        va_end(args);
    }
    return ORACLE_FAIL;
}

static bool finite3(sr_dvec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

/* Every value of [lo, hi] within tol of `claimed`: PASS; none: FAIL; some: UNCERTIFIED. */
static oracle_verdict within(double claimed, double lo, double hi, double tol)
{
    if (claimed - tol <= lo && hi <= claimed + tol)
        return ORACLE_PASS;
    if (claimed + tol < lo || claimed - tol > hi)
        return ORACLE_FAIL;
    return ORACLE_UNCERTIFIED;
}

static oracle_verdict worst(oracle_verdict a, oracle_verdict b)
{
    return a == ORACLE_FAIL || b == ORACLE_FAIL
               ? ORACLE_FAIL
               : (a == ORACLE_UNCERTIFIED || b == ORACLE_UNCERTIFIED ? ORACLE_UNCERTIFIED : ORACLE_PASS);
}

static double degrees(sr_dvec3 a, sr_dvec3 b)
{
    return vangle(a, b) * (180.0 / M_PI);
}

static bool unit(sr_dvec3 n)
{
    return finite3(n) && fabs(vlen(n) - 1.0) <= 1e-6;
}

/* The hit flag a signed distance means, checked against the truth. */
static oracle_verdict judge_hit(const oracle_answer *truth, bool hit, double tol, char *why, size_t size)
{
    if (hit) {
        if (truth->lo > tol)
            return fail(why, size, "says they overlap, but they are apart by %.17g (tolerance %.3g)", truth->lo, tol);
        return truth->hi > tol ? ORACLE_UNCERTIFIED : ORACLE_PASS;
    }
    if (truth->hi < -tol)
        return fail(why, size, "says they are apart, but they overlap by %.17g (tolerance %.3g)", -truth->hi, tol);
    return truth->lo < -tol ? ORACLE_UNCERTIFIED : ORACLE_PASS;
}

oracle_verdict oracle_judge_signed(const oracle_pair *pair, const oracle_answer *truth, const oracle_claim *claim,
                                   bool overlap_as_zero, char *why, size_t why_size)
{
    const oracle_body *a = &pair->body_a, *b = &pair->body_b;
    double s = truth->distance, tol = oracle_tolerance(truth->size, s);
    if (!isfinite(claim->distance) || (claim->has_normal && !finite3(claim->normal)) ||
        (claim->has_points && (!finite3(claim->point_a) || !finite3(claim->point_b))))
        return fail(why, why_size, "a NaN or infinite value in the answer");
    if (claim->hit != (claim->distance <= 0.0))
        return fail(why, why_size, "hit is %s but the distance is %.17g", claim->hit ? "true" : "false",
                    claim->distance);
    oracle_verdict verdict = judge_hit(truth, claim->hit, tol, why, why_size);
    if (verdict == ORACLE_FAIL)
        return verdict;
    sr_dvec3 pa = vsub(claim->point_a, pair->origin), pb = vsub(claim->point_b, pair->origin);

    if (overlap_as_zero && claim->hit) {
        if (claim->distance != 0.0)
            return fail(why, why_size, "an overlap answered %.17g instead of distance 0", claim->distance);
        if (claim->has_points) {
            double in_a = oracle_point_distance(a, pa, NULL), in_b = oracle_point_distance(b, pb, NULL);
            if (vdist(pa, pb) > tol || in_a > tol || in_b > tol)
                return fail(why, why_size,
                            "overlap witness is not one point in both shapes (|pa-pb| %.3g, pa off A by %.3g, pb off B "
                            "by %.3g, tolerance %.3g)",
                            vdist(pa, pb), in_a, in_b, tol);
        }
        return verdict;
    }

    oracle_verdict value = within(claim->distance, truth->lo, truth->hi, tol);
    if (value == ORACLE_FAIL)
        return fail(why, why_size, "signed distance %.17g, true %.17g (in [%.17g, %.17g]), tolerance %.3g",
                    claim->distance, s, truth->lo, truth->hi, tol);
    verdict = worst(verdict, value);

    if (claim->has_normal && !unit(claim->normal))
        return fail(why, why_size, "normal (%.17g, %.17g, %.17g) is not unit", claim->normal.x, claim->normal.y,
                    claim->normal.z);
    if (claim->distance > 0.0) {
        if (claim->has_points) {
            double off_a = oracle_point_distance(a, pa, NULL), off_b = oracle_point_distance(b, pb, NULL);
            double gap = vdist(pa, pb);
            if (off_a > tol || off_b > tol || fabs(gap - claim->distance) > tol)
                return fail(why, why_size,
                            "closest points wrong: pa off A by %.3g, pb off B by %.3g, |pa-pb| %.17g for distance "
                            "%.17g (tolerance %.3g)",
                            off_a, off_b, gap, claim->distance, tol);
            if (claim->has_normal && gap > 10.0 * tol && degrees(claim->normal, vsub(pb, pa)) > NORMAL_DEGREES)
                return fail(why, why_size, "normal is %.3g degrees from pa -> pb",
                            degrees(claim->normal, vsub(pb, pa)));
        }
    } else if (claim->distance < 0.0) {
        double depth = -claim->distance;
        if (claim->has_normal) {
            double needed = oracle_depth_along(a, b, claim->normal);
            double angle = degrees(claim->normal, truth->normal);
            if (angle > NORMAL_DEGREES && needed > -truth->lo + tol)
                return fail(why, why_size,
                            "normal %.3g degrees from the oracle's, and moving B along it needs %.17g, not the depth "
                            "%.17g (tolerance %.3g)",
                            angle, needed, -truth->distance, tol);
        }
        if (claim->has_points) {
            /* The deepest point of A inside B and of B inside A: points of A and B, depth * normal
             * apart, extreme along the normal (pa A's support point along it, pb B's along its
             * opposite), to within what a normal that is not the best one adds. */
            double pa_on_a = oracle_point_distance(a, pa, NULL), pb_on_b = oracle_point_distance(b, pb, NULL);
            double off = 0.0, short_a = 0.0, short_b = 0.0;
            if (claim->has_normal) {
                sr_dvec3 n = claim->normal;
                off = vdist(vsub(pa, pb), vscale(n, depth));
                double slack = fmax(0.0, oracle_depth_along(a, b, n) - depth);
                short_a = vdot(n, oracle_support(a, n)) - vdot(n, pa) - slack;
                short_b = vdot(n, pb) - vdot(n, oracle_support(b, vscale(n, -1.0))) - slack;
            }
            if (pa_on_a > tol || pb_on_b > tol || off > tol || short_a > tol || short_b > tol)
                return fail(
                    why, why_size,
                    "witness points wrong: pa off A by %.3g, pb off B by %.3g, |pa - pb - depth*normal| %.3g, "
                    "pa short of A's deepest point along the normal by %.3g, pb of B's by %.3g (tolerance %.3g)",
                    pa_on_a, pb_on_b, off, short_a, short_b, tol);
        }
    } else if (claim->has_points) {
        double off_a = oracle_point_distance(a, pa, NULL), off_b = oracle_point_distance(b, pb, NULL);
        if (off_a > tol || off_b > tol || vdist(pa, pb) > tol)
            return fail(why, why_size, "touching witness points: pa off A by %.3g, pb off B by %.3g, apart by %.3g",
                        off_a, off_b, vdist(pa, pb));
    }
    return verdict;
}

oracle_verdict oracle_judge_intersect(const oracle_pair *pair, const oracle_answer *truth, bool hit,
                                      const sr_dvec3 *axis, char *why, size_t why_size)
{
    double tol = oracle_tolerance(truth->size, truth->distance);
    oracle_verdict verdict = judge_hit(truth, hit, tol, why, why_size);
    if (verdict == ORACLE_FAIL || hit || !axis)
        return verdict;
    double length = vlen(*axis);
    if (!finite3(*axis) || length == 0.0)
        return fail(why, why_size, "apart, but the separating axis is (%.17g, %.17g, %.17g)", axis->x, axis->y,
                    axis->z);
    sr_dvec3 n = vscale(*axis, 1.0 / length);
    double separation = -oracle_depth_along(&pair->body_a, &pair->body_b, n);
    if (separation < -tol)
        return fail(why, why_size, "the axis (%.17g, %.17g, %.17g) does not separate them (separation %.17g)", n.x, n.y,
                    n.z, separation);
    return verdict;
}

oracle_verdict oracle_judge_sat(const oracle_pair *pair, const oracle_answer *truth, const sr_collide_result *result,
                                char *why, size_t why_size)
{
    double tol = oracle_tolerance(truth->size, truth->distance);
    if (result->status != SR_COLLIDE_OK)
        return fail(why, why_size, "status %d", (int)result->status);
    if (result->hit) {
        oracle_claim claim = {true, result->distance, true, true, result->normal, result->point_a, result->point_b};
        return oracle_judge_signed(pair, truth, &claim, false, why, why_size);
    }
    oracle_verdict verdict = judge_hit(truth, false, tol, why, why_size);
    if (verdict == ORACLE_FAIL)
        return verdict;
    if (!isfinite(result->distance) || !unit(result->normal))
        return fail(why, why_size, "apart with separation %.17g along (%.17g, %.17g, %.17g)", result->distance,
                    result->normal.x, result->normal.y, result->normal.z);
    if (result->distance > truth->hi + tol)
        return fail(why, why_size, "separation %.17g is more than the distance %.17g", result->distance, truth->hi);
    /* Every face normal of both is an axis SAT tests (edge pairs may be pruned to those that make
     * faces of A - B, so the edge axes' largest separation is not required). */
    if (isfinite(truth->sat_face_separation) && result->distance < truth->sat_face_separation - tol)
        return fail(why, why_size, "separation %.17g, but a face normal separates them by %.17g", result->distance,
                    truth->sat_face_separation);
    double along = -oracle_depth_along(&pair->body_a, &pair->body_b, result->normal);
    if (fabs(along - result->distance) > tol)
        return fail(why, why_size, "separation %.17g, but along its normal they are apart by %.17g", result->distance,
                    along);
    return verdict;
}

/* The signed distance of two bodies, as a verdict that it is at least -tol (no robust overlap):
 * PASS, FAIL (certainly below), UNCERTIFIED. */
static oracle_verdict not_overlapping(const oracle_body *a, const oracle_body *b, double size, double tol,
                                      double *value)
{
    oracle_answer answer;
    oracle_solve_bodies(a, b, size, &answer);
    *value = answer.distance;
    if (answer.lo >= -tol)
        return ORACLE_PASS;
    return answer.hi < -tol ? ORACLE_FAIL : ORACLE_UNCERTIFIED;
}

/* A segment body from p to q (relative coordinates). */
static void segment_body(sr_dvec3 p, sr_dvec3 q, oracle_body *out)
{
    oracle_shape s;
    memset(&s, 0, sizeof s);
    s.type = SR_SHAPE_SEGMENT;
    s.pose.rotation = (sr_dquat){0, 0, 0, 1};
    s.point_count = 2;
    s.points[0] = p;
    s.points[1] = q;
    oracle_body_make(&s, v3(0, 0, 0), out);
}

oracle_verdict oracle_judge_ray(const oracle_shape *shape, sr_dvec3 origin, sr_dvec3 direction, double max_t,
                                const sr_collide_ray_hit *hit, char *why, size_t why_size)
{
    static oracle_body body, segment; /* large; one thread */
    oracle_body_make(shape, origin, &body);
    /* A point has no size: a floor well above the rounding of the ray's and the shape's coordinates. */
    double reach =
        vmax_abs(origin) + vmax_abs(direction) * max_t + vmax_abs(vadd(oracle_support(&body, v3(1, 1, 1)), origin));
    double size = body.size > 0.0 ? body.size : 1e-9 * (1.0 + reach);
    double tol = oracle_tolerance(size, 0.0), speed = vlen(direction);
    if (!hit->hit) {
        segment_body(v3(0, 0, 0), vscale(direction, max_t), &segment);
        double s;
        oracle_verdict v = not_overlapping(&segment, &body, size, tol, &s);
        if (v == ORACLE_FAIL)
            return fail(why, why_size, "misses, but the ray goes %.3g deep into the shape (tolerance %.3g)", -s, tol);
        return v;
    }
    if (!isfinite(hit->t) || !finite3(hit->point) || !finite3(hit->normal))
        return fail(why, why_size, "a NaN or infinite value in the hit");
    if (hit->t < 0.0 || hit->t > max_t)
        return fail(why, why_size, "t %.17g is outside [0, %.17g]", hit->t, max_t);
    sr_dvec3 at = vscale(direction, hit->t), point = vsub(hit->point, origin);
    if (vdist(at, point) > tol)
        return fail(why, why_size, "point is %.3g from origin + t * direction", vdist(at, point));
    double sd = oracle_point_distance(&body, at, NULL);
    if (sd > tol || (hit->t > 0.0 && sd < -tol))
        return fail(why, why_size, "the hit point at t %.17g is %.3g from the surface (tolerance %.3g)", hit->t, sd,
                    tol);
    if (!unit(hit->normal))
        return fail(why, why_size, "normal is not unit");
    oracle_verdict verdict = ORACLE_PASS;
    double before = hit->t - tol / speed;
    if (before > 0.0) { /* nothing robustly hit earlier */
        segment_body(v3(0, 0, 0), vscale(direction, before), &segment);
        double s;
        verdict = not_overlapping(&segment, &body, size, tol, &s);
        if (verdict == ORACLE_FAIL)
            return fail(why, why_size, "hit at t %.17g, but the ray is %.3g deep in the shape before it", hit->t, -s);
    }
    double inside = oracle_point_distance(&body, v3(0, 0, 0), NULL);
    if (hit->t == 0.0 && inside < -tol) {
        if (degrees(hit->normal, vscale(direction, -1.0)) > 1e-6)
            return fail(why, why_size, "origin inside: the normal must be -direction");
    } else if (hit->t > 0.0 || inside >= -tol) {
        /* An outward normal of the surface at the point: the point is extreme along it. */
        double extreme = vdot(hit->normal, oracle_support(&body, hit->normal)) - vdot(hit->normal, at);
        if (hit->t > 0.0 && extreme > tol)
            return fail(why, why_size, "normal (%.17g, %.17g, %.17g) is not a surface normal at the point (%.3g)",
                        hit->normal.x, hit->normal.y, hit->normal.z, extreme);
    }
    return verdict;
}

oracle_verdict oracle_judge_cast(const oracle_pair *pair, sr_dvec3 translation, const sr_collide_cast_hit *hit,
                                 char *why, size_t why_size)
{
    static oracle_body swept; /* large; one thread */
    static oracle_pair moved;
    oracle_answer start;
    oracle_solve(pair, &start);
    double size = pair->size, tol = oracle_tolerance(size, 0.0), speed = vlen(translation);
    if (hit->initially_overlapping) {
        if (!hit->hit || hit->t != 0.0)
            return fail(why, why_size, "initially overlapping, but hit %d at t %.17g", hit->hit, hit->t);
        return judge_hit(&start, true, tol, why, why_size);
    }
    if (start.hi < -tol)
        return fail(why, why_size, "they overlap by %.3g at t = 0, but initially_overlapping is false", -start.hi);
    if (!hit->hit) {
        oracle_body_sweep(&pair->body_a, translation, &swept);
        double s;
        oracle_verdict v = not_overlapping(&swept, &pair->body_b, size, tol, &s);
        if (v == ORACLE_FAIL)
            return fail(why, why_size, "misses, but A's sweep goes %.3g deep into B", -s);
        return v;
    }
    if (!isfinite(hit->t) || !finite3(hit->point) || !finite3(hit->normal))
        return fail(why, why_size, "a NaN or infinite value in the hit");
    if (hit->t < 0.0 || hit->t > 1.0)
        return fail(why, why_size, "t %.17g is outside [0, 1]", hit->t);
    if (!unit(hit->normal))
        return fail(why, why_size, "normal is not unit");
    moved.a = pair->a;
    moved.a.pose.position = vmadd(pair->a.pose.position, translation, hit->t);
    oracle_pair_prepare(&moved, &moved.a, &pair->b);
    oracle_answer at;
    oracle_solve(&moved, &at);
    oracle_verdict verdict = within(0.0, at.lo, at.hi, tol);
    if (verdict == ORACLE_FAIL)
        return fail(why, why_size, "at t %.17g they are not touching: signed distance %.17g (tolerance %.3g)", hit->t,
                    at.distance, tol);
    sr_dvec3 point = vsub(hit->point, moved.origin);
    double off_a = oracle_point_distance(&moved.body_a, point, NULL),
           off_b = oracle_point_distance(&moved.body_b, point, NULL);
    if (off_a > tol || off_b > tol)
        return fail(why, why_size, "contact point off A by %.3g and off B by %.3g (tolerance %.3g)", off_a, off_b, tol);
    /* A contact normal: one along which they touch, or within 3 degrees of the oracle's. */
    double along = oracle_depth_along(&moved.body_a, &moved.body_b, hit->normal);
    double angle = degrees(hit->normal, at.normal);
    if (fabs(along) > tol && angle > NORMAL_DEGREES)
        return fail(why, why_size,
                    "normal (%.17g, %.17g, %.17g) does not separate them at contact (%.3g) and is %.3g degrees from "
                    "the oracle's",
                    hit->normal.x, hit->normal.y, hit->normal.z, along, angle);
    double before = hit->t - tol / fmax(speed, 1e-300);
    if (before > 0.0) {
        oracle_body_sweep(&pair->body_a, vscale(translation, before), &swept);
        double s;
        oracle_verdict v = not_overlapping(&swept, &pair->body_b, size, tol, &s);
        if (v == ORACLE_FAIL)
            return fail(why, why_size, "hit at t %.17g, but A's sweep before it goes %.3g deep into B", hit->t, -s);
        verdict = worst(verdict, v);
    }
    return verdict;
}
