/* test_geom_edge.c — the exact sign of the ray-space edge function (sr_ray_space_edge in
 * softrast/geom.h) and what it means for sr_ray_triangle. softrast/geom.h promises that the edge
 * function p.x q.y - p.y q.x never has a wrong sign and is zero only when exactly zero. Here it is
 * checked against exact arithmetic on the floats' bit patterns (integer mantissas and exponents,
 * no floating-point operation), on points whose float products cancel: their two products differ
 * in exact arithmetic but round to the same float, or to floats whose difference has the wrong
 * sign. Evaluated in float (even with one product fused into an FMA), such edges come out zero or
 * wrongly signed, and sr_ray_triangle reports a ray just outside such an edge as a hit. */
#include <criterion/criterion.h>
#include <softrast/geom.h>

#include <math.h>
#include <string.h>

/* ---- exact arithmetic on float bit patterns ---- */

/* A finite float as sign * mantissa * 2^exponent with an integer mantissa below 2^24. */
typedef struct exact_float {
    int sign; /* -1, 0 or 1 */
    uint64_t mantissa;
    int exponent;
} exact_float;

static exact_float decompose(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint32_t field = (bits >> 23) & 0xffu, fraction = bits & 0x7fffffu;
    cr_assert_neq(field, 0xffu, "decompose: %g is not finite", (double)f);
    exact_float e;
    e.mantissa = field ? (fraction | 0x800000u) : fraction; /* subnormals: no hidden bit */
    e.exponent = field ? (int)field - 150 : -149;
    e.sign = e.mantissa == 0 ? 0 : (bits >> 31 ? -1 : 1);
    return e;
}

/* The exact product of two floats: mantissas below 2^48, so one uint64_t holds it. */
static exact_float exact_product(float a, float b)
{
    exact_float x = decompose(a), y = decompose(b);
    return (exact_float){x.sign * y.sign, x.mantissa * y.mantissa, x.exponent + y.exponent};
}

static int top_bit(uint64_t m)
{
    int bit = -1;
    while (m) {
        m >>= 1;
        bit++;
    }
    return bit;
}

/* Compares |x| and |y| (both nonzero): -1, 0 or 1. Exact: the leading bits' weights first, then
 * the mantissas aligned to bit 63 (no bit of a mantissa below 2^48 is lost). */
static int compare_magnitudes(exact_float x, exact_float y)
{
    int top_x = top_bit(x.mantissa), top_y = top_bit(y.mantissa);
    if (x.exponent + top_x != y.exponent + top_y)
        return x.exponent + top_x < y.exponent + top_y ? -1 : 1;
    uint64_t mx = x.mantissa << (63 - top_x), my = y.mantissa << (63 - top_y);
    return mx < my ? -1 : (mx > my ? 1 : 0);
}

/* The sign of p.x q.y - p.y q.x in exact arithmetic. */
static int exact_edge_sign(sr_vec3 p, sr_vec3 q)
{
    exact_float a = exact_product(p.x, q.y), b = exact_product(p.y, q.x);
    if (a.sign != b.sign)
        return a.sign > b.sign ? 1 : -1;
    if (a.sign == 0)
        return 0;
    return a.sign * compare_magnitudes(a, b);
}

static int sign_of(double x)
{
    return x > 0.0 ? 1 : (x < 0.0 ? -1 : 0);
}

/* The check the header promises: the exact sign, zero only for an exact zero, and swapping the
 * points negates the value bit for bit. */
static void check_edge(sr_vec3 p, sr_vec3 q, const char *what)
{
    double value = sr_ray_space_edge(p, q), swapped = sr_ray_space_edge(q, p);
    int expected = exact_edge_sign(p, q);
    cr_assert_eq(sign_of(value), expected, "%s: edge((%.9g, %.9g), (%.9g, %.9g)) = %.17g, exact sign %d", what,
                 (double)p.x, (double)p.y, (double)q.x, (double)q.y, value, expected);
    cr_assert_eq(sign_of(swapped), -expected, "%s: swapped points give %.17g", what, swapped);
    if (expected != 0)
        cr_assert(swapped == -value, "%s: swapping gives %.17g, not -%.17g", what, swapped, value);
}

/* ---- the reference itself ---- */

Test(edge_reference, exact_sign_on_small_integers_and_known_cases)
{
    /* Small integers: every product is exact in float, so the sign is that of the integers. */
    for (int px = -4; px <= 4; px++)
        for (int py = -4; py <= 4; py++)
            for (int qx = -4; qx <= 4; qx++)
                for (int qy = -4; qy <= 4; qy++) {
                    int d = px * qy - py * qx;
                    sr_vec3 p = {(float)px, (float)py, 0.0f}, q = {(float)qx, (float)qy, 0.0f};
                    cr_assert_eq(exact_edge_sign(p, q), d > 0 ? 1 : (d < 0 ? -1 : 0), "(%d %d) (%d %d)", px, py, qx,
                                 qy);
                }
    /* Subnormal and huge factors. */
    float tiny = 0x1p-149f, huge = 0x1.fffffep127f;
    cr_assert_eq(exact_edge_sign((sr_vec3){tiny, 0.0f, 0}, (sr_vec3){0.0f, tiny, 0}), 1);
    cr_assert_eq(exact_edge_sign((sr_vec3){huge, huge, 0}, (sr_vec3){huge, nextafterf(huge, 0.0f), 0}), -1);
    cr_assert_eq(exact_edge_sign((sr_vec3){tiny, huge, 0}, (sr_vec3){huge, tiny, 0}), -1);
    /* (2^24 - 1)^2 - (2^24 - 2) 2^24 = 1, scaled by 2^-48. */
    sr_vec3 p = {1.0f - 0x1p-24f, 1.0f - 0x1p-23f, 0}, q = {1.0f, 1.0f - 0x1p-24f, 0};
    cr_assert_eq(exact_edge_sign(p, q), 1);
    cr_assert_eq(exact_edge_sign(q, p), -1);
}

/* ---- the edge function ---- */

/* Points built from integers below 2^24 (exact in float) whose two products differ by one while
 * one of them rounds to the other: (2^24 - 1)^2 = 2^48 - 2^25 + 1 rounds to 2^48 - 2^25 =
 * (2^24 - 2) 2^24. In float the difference is 0; with the rounded product fused into an FMA as
 * well. Swapping the points swaps which product is the representable one, so whichever of the two
 * a compiler fuses, one of the pair comes out 0 instead of +-2^-48. Scaled by powers of two
 * (exact) to several magnitudes and signs. */
Test(edge_function, cancelling_products_keep_the_exact_sign)
{
    const float scales[] = {0x1p-24f, 1.0f, 0x1p-60f, 0x1p40f, -0x1p-10f};
    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++)
        for (size_t t = 0; t < sizeof scales / sizeof scales[0]; t++) {
            float k = scales[s], m = scales[t];
            sr_vec3 p = {16777215.0f * k, 16777214.0f * k, 0}, q = {16777216.0f * m, 16777215.0f * m, 0};
            cr_assert_neq(exact_edge_sign(p, q), 0);
            check_edge(p, q, "2^48 - 2^25 + 1 against 2^48 - 2^25");
            check_edge(q, p, "swapped");
            /* mirrored and rotated by 90 degrees: the same cancellation with other signs */
            check_edge((sr_vec3){-p.y, p.x, 0}, (sr_vec3){-q.y, q.x, 0}, "rotated");
            check_edge((sr_vec3){p.x, -p.y, 0}, (sr_vec3){q.x, -q.y, 0}, "mirrored");
            /* the exact value: 2^-48 at unit scale */
            double value = sr_ray_space_edge(p, q);
            cr_assert(value == (double)k * (double)m, "value %.17g, exact %.17g", value, (double)k * (double)m);
        }
    /* Exact zeros stay zeros: collinear points with inexact-looking coordinates. */
    sr_vec3 p = {0.1f, 0.3f, 0}, q = {0.2f, 0.6f, 0}; /* q = 2 p exactly (doubling is exact) */
    cr_assert(sr_ray_space_edge(p, q) == 0.0);
    check_edge(p, q, "collinear");
}

/* Random nearly collinear pairs: q = lambda p plus a few ulps, over a wide range of magnitudes,
 * where the two products agree in most of their bits; one in eight exactly collinear. */
typedef struct rng {
    uint64_t state;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1p-53;
}

static float nudge(float x, int ulps)
{
    for (; ulps > 0; ulps--)
        x = nextafterf(x, INFINITY);
    for (; ulps < 0; ulps++)
        x = nextafterf(x, -INFINITY);
    return x;
}

Test(edge_function, nearly_collinear_random_points_keep_the_exact_sign)
{
    rng r = {2024};
    int zeros = 0, float_wrong = 0;
    for (int i = 0; i < 200000; i++) {
        int exponent = (int)(rng_next(&r) % 80) - 40;
        float x = (float)ldexp(rng_unit(&r) * 2.0 - 1.0, exponent),
              y = (float)ldexp(rng_unit(&r) * 2.0 - 1.0, exponent);
        float lambda = (float)ldexp(rng_unit(&r) + 0.5, (int)(rng_next(&r) % 20) - 10) * (rng_next(&r) & 1 ? 1 : -1);
        int dx = (int)(rng_next(&r) % 5) - 2, dy = (int)(rng_next(&r) % 5) - 2;
        if (rng_next(&r) % 8 == 0) { /* q = +-2^k p exactly: an exact zero */
            lambda = (float)ldexp(rng_next(&r) & 1 ? 1.0 : -1.0, (int)(rng_next(&r) % 20) - 10);
            dx = dy = 0;
        }
        sr_vec3 p = {x, y, 0}, q = {nudge(lambda * x, dx), nudge(lambda * y, dy), 0};
        check_edge(p, q, "random");
        int exact = exact_edge_sign(p, q);
        zeros += exact == 0;
        /* how often plain float arithmetic would have been wrong: the cases this test is about */
        volatile float xy = p.x * q.y, yx = p.y * q.x; /* volatile: rounded, whatever the FMA contraction */
        float in_float = xy - yx;
        float_wrong += sign_of(in_float) != exact;
    }
    cr_log_info("edge signs: %d exact zeros, float arithmetic wrong in %d of 200000", zeros, float_wrong);
    cr_assert_gt(float_wrong, 10000, "the points do not cancel enough to test anything");
    cr_assert_gt(zeros, 1000);
}

/* ---- sr_ray_triangle on such an edge ---- */

/* A ray down the z axis from the origin: its ray space is the world's x, y and z, unrounded (no
 * shear, no permutation), so the edge functions see the vertices' own coordinates. The triangle
 * a, b, c has its edge a -> b through the origin within 2^-48 (the cancelling points, b mirrored
 * through the origin) and c far off on the inside of the two other edges; with the edge's exact
 * value of one sign the ray is inside, of the other it is outside and must miss. */
Test(ray_triangle_edge, rays_just_outside_a_cancelling_edge_miss)
{
    const sr_vec3 p = {16777215.0f * 0x1p-24f, 16777214.0f * 0x1p-24f, 1.0f}; /* (1 - 2^-24, 1 - 2^-23) */
    const sr_vec3 q = {1.0f, 16777215.0f * 0x1p-24f, 1.0f};                   /* (1, 1 - 2^-24) */
    const sr_vec3 c = {-1.0f, 1.0f, 1.0f};
    for (int direction = 0; direction < 2; direction++) {
        /* Looking down +z, and down -z with the triangle mirrored to z = -1 (ray space then swaps x
         * and y to keep the winding, which changes nothing here: the products only swap places). */
        float z = direction ? -1.0f : 1.0f;
        sr_ray ray = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, z}, 0.0f, INFINITY);
        for (int outside = 0; outside < 2; outside++) {
            /* w_c = edge(b, a): a = q, b = -p gives edge(-p, q) = -edge(p, q) < 0: outside;
             * a = p, b = -q gives edge(-q, p) = edge(p, q) > 0: inside. */
            sr_vec3 a = outside ? q : p, b = outside ? p : q;
            b = (sr_vec3){-b.x, -b.y, 1.0f};
            a.z = b.z = z;
            sr_vec3 cz = {c.x, c.y, z};
            sr_vec3 pa = sr_ray_space_point(&ray, a), pb = sr_ray_space_point(&ray, b),
                    pc = sr_ray_space_point(&ray, cz);
            int w_c = exact_edge_sign(pb, pa), w_a = exact_edge_sign(pc, pb), w_b = exact_edge_sign(pa, pc);
            cr_assert(w_a == w_b && w_a != 0 && w_c == (outside ? -w_a : w_a), "the construction is off: %d %d %d", w_a,
                      w_b, w_c);
            sr_triangle_hit hit;
            bool got = sr_ray_triangle(&ray, a, b, cz, &hit);
            cr_assert_eq(got, !outside, "direction %+g: the ray %s the edge %s", (double)z,
                         outside ? "just outside" : "just inside", got ? "hits" : "misses");
            if (got)
                cr_assert(hit.t == 1.0f, "t = %g", (double)hit.t);
            /* both windings: the test is two-sided */
            cr_assert_eq(sr_ray_triangle(&ray, b, a, cz, &hit), !outside);
            /* culled: front faces only, and a ray outside misses whichever winding */
            bool front = w_a > 0;
            cr_assert_eq(sr_ray_triangle_culled(&ray, a, b, cz, &hit), !outside && front);
            cr_assert_eq(sr_ray_triangle_culled(&ray, b, a, cz, &hit), !outside && !front);
        }
    }
}
