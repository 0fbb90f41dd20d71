/* collide_brute.h — independent computations for the tests of src/collide/closest.c, bounds*.c
 * and sat*.c: random doubles, directions and rotations from test_rng.h's generator, and the
 * closest point of the convex hull of a few points by enumerating every subset of up to four of
 * them (Caratheodory: the closest point is an affine combination with non-negative weights of
 * at most four affinely independent points), which trusts no Voronoi region test. Header-only. */
#ifndef SR_TESTS_COLLIDE_BRUTE_H
#define SR_TESTS_COLLIDE_BRUTE_H

#include "test_rng.h"

#include <softrast/collide.h>

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

/* Fewer random cases under the sanitizers (their build is several times slower). */
#if defined(__SANITIZE_ADDRESS__)
#define BRUTE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BRUTE_SANITIZED 1
#endif
#endif
#ifndef BRUTE_SANITIZED
#define BRUTE_SANITIZED 0
#endif
#define BRUTE_COUNT(release, sanitized) (BRUTE_SANITIZED ? (sanitized) : (release))

/* uniform double in [0, 1) with 53 random bits */
static inline double rng_double(rng *r)
{
    uint64_t high = rng_next(r);
    uint64_t low = rng_next(r);
    return (double)(((high << 32) | low) >> 11) * 0x1p-53;
}

static inline double rng_double_range(rng *r, double low, double high)
{
    return low + (high - low) * rng_double(r);
}

static inline sr_dvec3 rng_dvec3(rng *r, double low, double high)
{
    double x = rng_double_range(r, low, high);
    double y = rng_double_range(r, low, high);
    double z = rng_double_range(r, low, high);
    return sr_dvec3_make(x, y, z);
}

static inline sr_dvec3 rng_unit_dvec3(rng *r)
{
    for (;;) {
        sr_dvec3 d = rng_dvec3(r, -1, 1);
        double length = sr_dvec3_length(d);
        if (length > 0.01 && length <= 1.0)
            return sr_dvec3_scale(d, 1.0 / length);
    }
}

/* a uniformly random unit quaternion (Shoemake) */
static inline sr_dquat rng_rotation(rng *r)
{
    double u1 = rng_double(r), u2 = rng_double(r) * 2.0 * M_PI, u3 = rng_double(r) * 2.0 * M_PI;
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    sr_dquat q = {a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)};
    return q;
}

/* Solves the n x n system m y = rhs (n <= 3) by Gaussian elimination with partial pivoting;
 * false when a pivot is below `tiny`. */
static inline bool brute_solve(double m[3][3], double rhs[3], int n, double tiny, double y[3])
{
    for (int col = 0; col < n; col++) {
        int pivot = col;
        for (int row = col + 1; row < n; row++)
            if (fabs(m[row][col]) > fabs(m[pivot][col]))
                pivot = row;
        if (!(fabs(m[pivot][col]) > tiny))
            return false;
        for (int k = 0; k < n; k++) {
            double swap = m[col][k];
            m[col][k] = m[pivot][k];
            m[pivot][k] = swap;
        }
        double swap = rhs[col];
        rhs[col] = rhs[pivot];
        rhs[pivot] = swap;
        for (int row = col + 1; row < n; row++) {
            double factor = m[row][col] / m[col][col];
            for (int k = col; k < n; k++)
                m[row][k] -= factor * m[col][k];
            rhs[row] -= factor * rhs[col];
        }
    }
    for (int row = n - 1; row >= 0; row--) {
        double sum = rhs[row];
        for (int k = row + 1; k < n; k++)
            sum -= m[row][k] * y[k];
        y[row] = sum / m[row][row];
    }
    return true;
}

/* The closest point to p of the affine hull of points[members[0 .. size)) if its weights are all
 * non-negative (false otherwise, or when the members are affinely dependent). */
static inline bool brute_subset(sr_dvec3 p, const sr_dvec3 *points, const int *members, int size, double scale,
                                sr_dvec3 *out)
{
    sr_dvec3 origin = points[members[0]];
    sr_dvec3 edges[3];
    for (int k = 1; k < size; k++)
        edges[k - 1] = sr_dvec3_sub(points[members[k]], origin);
    int n = size - 1;
    double gram[3][3], rhs[3], y[3] = {0, 0, 0};
    sr_dvec3 offset = sr_dvec3_sub(p, origin);
    for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++)
            gram[r][c] = sr_dvec3_dot(edges[r], edges[c]);
        rhs[r] = sr_dvec3_dot(edges[r], offset);
    }
    /* affinely dependent subsets are skipped: a smaller one realises the same point */
    if (n > 0 && !brute_solve(gram, rhs, n, 1e-12 * scale * scale, y))
        return false;
    double w0 = 1.0;
    for (int k = 0; k < n; k++) {
        w0 -= y[k];
        if (y[k] < -1e-12)
            return false;
    }
    if (w0 < -1e-12)
        return false;
    sr_dvec3 q = origin;
    for (int k = 0; k < n; k++)
        q = sr_dvec3_add(q, sr_dvec3_scale(edges[k], y[k]));
    *out = q;
    return true;
}

/* The closest point to p of the convex hull of points[0 .. count): the best over every subset of
 * 1 to `largest` (<= 4) points whose affine hull's projection of p has non-negative weights (4
 * for any set; 3 suffice for a flat one, 2 for one on a line). Returns the distance; *closest
 * receives the point. */
static inline double brute_closest_in_hull_k(sr_dvec3 p, const sr_dvec3 *points, int count, int largest,
                                             sr_dvec3 *closest)
{
    double best = INFINITY;
    sr_dvec3 best_point = points[0];
    double scale = 0.0;
    for (int i = 0; i < count; i++)
        for (int j = 0; j < count; j++)
            scale = fmax(scale, sr_dvec3_length(sr_dvec3_sub(points[i], points[j])));
    int m[4];
    for (m[0] = 0; m[0] < count; m[0]++)
        for (int size = 1; size <= largest; size++) {
            /* the subsets of `size` members starting with m[0], in increasing order */
            for (int i = 1; i < size; i++)
                m[i] = m[i - 1] + 1;
            if (size > 1 && m[size - 1] >= count)
                continue;
            for (;;) {
                sr_dvec3 q;
                if (brute_subset(p, points, m, size, scale, &q)) {
                    double d = sr_dvec3_length(sr_dvec3_sub(p, q));
                    if (d < best) {
                        best = d;
                        best_point = q;
                    }
                }
                int k = size - 1;
                while (k >= 1 && m[k] == count - size + k)
                    k--;
                if (k < 1)
                    break;
                m[k]++;
                for (int i = k + 1; i < size; i++)
                    m[i] = m[i - 1] + 1;
            }
        }
    if (closest)
        *closest = best_point;
    return best;
}

static inline double brute_closest_in_hull(sr_dvec3 p, const sr_dvec3 *points, int count, sr_dvec3 *closest)
{
    return brute_closest_in_hull_k(p, points, count, 4, closest);
}

static inline double brute_max_abs(const sr_dvec3 *points, int count)
{
    double m = 0.0;
    for (int i = 0; i < count; i++)
        m = fmax(m, fmax(fabs(points[i].x), fmax(fabs(points[i].y), fabs(points[i].z))));
    return m;
}

#endif
