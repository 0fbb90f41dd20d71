/* src/collide/bounds_points.c — bounding volumes of point sets: the axis-aligned box, the k-DOP
 * and Welzl's minimal enclosing sphere (the oriented box is in bounds_obb.c), plus the k-DOP
 * axes and the rounding of a double box to float. Part of collide: stands on math and core. */
#include "bounds_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

sr_status sr_bounds_check_points(const char *function, const sr_dvec3 *points, size_t count, const void *out,
                                 sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: out is NULL", function);
    if (count == 0)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: count is 0 (at least one point is needed)", function);
    if (!points)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: points is NULL with count %zu", function, count);
    for (size_t i = 0; i < count; i++)
        if (!sr_dvec3_is_finite(points[i]))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: point %zu is (%g, %g, %g), not finite", function,
                                i, points[i].x, points[i].y, points[i].z);
    return SR_OK;
}

sr_status sr_bound_box_points(const sr_dvec3 *points, size_t count, sr_dbox *out, sr_error *err)
{
    sr_status status = sr_bounds_check_points("sr_bound_box_points", points, count, out, err);
    if (status != SR_OK)
        return status;
    sr_dbox box = {points[0], points[0]};
    for (size_t i = 1; i < count; i++) {
        box.min =
            sr_dvec3_make(fmin(box.min.x, points[i].x), fmin(box.min.y, points[i].y), fmin(box.min.z, points[i].z));
        box.max =
            sr_dvec3_make(fmax(box.max.x, points[i].x), fmax(box.max.y, points[i].y), fmax(box.max.z, points[i].z));
    }
    *out = box;
    return SR_OK;
}

/* The float next to f downwards and upwards: nextafterf(f, -INFINITY) and nextafterf(f, INFINITY)
 * without the library call (a step of the bit pattern; zero steps to the smallest subnormal; an
 * infinity steps to the largest float, the largest float to an infinity). NaN stays NaN. */
static float step_down(float f)
{
    if (f != f)
        return f;
    if (f == 0.0f)
        return -FLT_TRUE_MIN;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bits = f > 0.0f ? bits - 1 : bits + 1;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static float step_up(float f)
{
    return -step_down(-f);
}

/* float(x) rounded down and up: the nearest float, moved one step when it landed on the wrong
 * side of x. */
static float round_down(double x)
{
    float f = (float)x;
    return (double)f > x ? step_down(f) : f;
}

static float round_up(double x)
{
    float f = (float)x;
    return (double)f < x ? step_up(f) : f;
}

sr_aabb sr_dbox_to_aabb(sr_dbox box)
{
    sr_aabb out;
    out.min = (sr_vec3){round_down(box.min.x), round_down(box.min.y), round_down(box.min.z)};
    out.max = (sr_vec3){round_up(box.max.x), round_up(box.max.y), round_up(box.max.z)};
    return out;
}

/* ---- k-DOPs ---- */

/* Slots 0-2 the coordinate axes, 3-6 the cube diagonals, 7-12 the edge diagonals. */
static const double kdop_axes[13][3] = {
    {1, 0, 0}, {0, 1, 0},  {0, 0, 1},                                     /* 6-DOP */
    {1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {-1, 1, 1},                        /* 14-DOP */
    {1, 1, 0}, {1, -1, 0}, {1, 0, 1},  {1, 0, -1}, {0, 1, 1}, {0, 1, -1}, /* 18-DOP */
};

sr_dvec3 sr_kdop_axis(int i)
{
    if (i < 0 || i >= 13)
        return sr_dvec3_make(0, 0, 0);
    return sr_dvec3_make(kdop_axes[i][0], kdop_axes[i][1], kdop_axes[i][2]);
}

bool sr_kdop_uses_slot(int k, int i)
{
    switch (k) {
    case 6:
        return i >= 0 && i < 3;
    case 14:
        return i >= 0 && i < 7;
    case 18:
        return (i >= 0 && i < 3) || (i >= 7 && i < 13);
    case 26:
        return i >= 0 && i < 13;
    default:
        return false;
    }
}

sr_status sr_bound_kdop_points(const sr_dvec3 *points, size_t count, int k, sr_kdop *out, sr_error *err)
{
    if (k != 6 && k != 14 && k != 18 && k != 26)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bound_kdop_points: k is %d (6, 14, 18 or 26)", k);
    sr_status status = sr_bounds_check_points("sr_bound_kdop_points", points, count, out, err);
    if (status != SR_OK)
        return status;
    sr_kdop dop = {.k = k};
    for (int slot = 0; slot < 13; slot++) {
        dop.min[slot] = sr_kdop_uses_slot(k, slot) ? INFINITY : -INFINITY;
        dop.max[slot] = sr_kdop_uses_slot(k, slot) ? -INFINITY : INFINITY;
    }
    for (size_t i = 0; i < count; i++)
        for (int slot = 0; slot < 13; slot++) {
            if (!sr_kdop_uses_slot(k, slot))
                continue;
            double d = sr_dvec3_dot(points[i], sr_kdop_axis(slot));
            dop.min[slot] = fmin(dop.min[slot], d);
            dop.max[slot] = fmax(dop.max[slot], d);
        }
    *out = dop;
    return SR_OK;
}

/* ---- Welzl's minimal sphere ---- */

/* A point is inside a candidate ball within this relative slack of the squared radius: points on
 * the sphere (the corners of a box, a regular polygon) must not enter the support set again
 * because of rounding. The final radius is the largest distance to the centre, so the slack
 * never leaves a point outside. */
#define INSIDE_SLACK 1e-12

static double distance_squared(sr_dvec3 a, sr_dvec3 b)
{
    sr_dvec3 d = sr_dvec3_sub(a, b);
    return sr_dvec3_dot(d, d);
}

static bool contains(sr_dsphere ball, sr_dvec3 p)
{
    return ball.radius >= 0.0 && distance_squared(p, ball.centre) <= ball.radius * ball.radius * (1.0 + INSIDE_SLACK);
}

static sr_dsphere ball_of_two(sr_dvec3 a, sr_dvec3 b)
{
    sr_dsphere ball = {sr_dvec3_scale(sr_dvec3_add(a, b), 0.5), 0.0};
    ball.radius = sqrt(fmax(distance_squared(ball.centre, a), distance_squared(ball.centre, b)));
    return ball;
}

/* The circle through a, b, c (in their plane); false when they are (nearly) collinear. */
static bool circumcircle(sr_dvec3 a, sr_dvec3 b, sr_dvec3 c, sr_dsphere *out)
{
    sr_dvec3 u = sr_dvec3_sub(b, a), v = sr_dvec3_sub(c, a);
    sr_dvec3 w = sr_dvec3_cross(u, v);
    double uu = sr_dvec3_dot(u, u), vv = sr_dvec3_dot(v, v), ww = sr_dvec3_dot(w, w);
    if (!(ww > 1e-20 * uu * vv))
        return false;
    sr_dvec3 offset = sr_dvec3_scale(
        sr_dvec3_add(sr_dvec3_scale(sr_dvec3_cross(v, w), uu), sr_dvec3_scale(sr_dvec3_cross(w, u), vv)), 0.5 / ww);
    out->centre = sr_dvec3_add(a, offset);
    out->radius = sqrt(sr_dvec3_dot(offset, offset));
    return true;
}

/* The sphere through a, b, c, d; false when they are (nearly) coplanar. */
static bool circumsphere(sr_dvec3 a, sr_dvec3 b, sr_dvec3 c, sr_dvec3 d, sr_dsphere *out)
{
    sr_dvec3 u = sr_dvec3_sub(b, a), v = sr_dvec3_sub(c, a), w = sr_dvec3_sub(d, a);
    sr_dvec3 vw = sr_dvec3_cross(v, w), wu = sr_dvec3_cross(w, u), uv = sr_dvec3_cross(u, v);
    double det = sr_dvec3_dot(u, vw);
    double uu = sr_dvec3_dot(u, u), vv = sr_dvec3_dot(v, v), ww = sr_dvec3_dot(w, w);
    if (!(det * det > 1e-20 * uu * vv * ww))
        return false;
    sr_dvec3 offset = sr_dvec3_scale(
        sr_dvec3_add(sr_dvec3_add(sr_dvec3_scale(vw, uu), sr_dvec3_scale(wu, vv)), sr_dvec3_scale(uv, ww)), 0.5 / det);
    out->centre = sr_dvec3_add(a, offset);
    out->radius = sqrt(sr_dvec3_dot(offset, offset));
    return true;
}

/* The smallest ball holding the `count` (<= 4) support points, not necessarily through them:
 * the fallback when they are (nearly) affinely dependent and the sphere through them does not
 * exist. The smallest of the balls of every pair and every triple that holds all of them. */
static sr_dsphere smallest_ball_of_few(const sr_dvec3 *s, int count)
{
    sr_dsphere best = {s[0], 0.0};
    bool found = count == 1;
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++) {
            sr_dsphere candidates[3];
            int n = 0;
            candidates[n++] = ball_of_two(s[i], s[j]);
            for (int k = j + 1; k < count; k++)
                if (circumcircle(s[i], s[j], s[k], &candidates[n]))
                    n++;
            for (int c = 0; c < n; c++) {
                bool holds = true;
                for (int m = 0; m < count; m++)
                    holds = holds && contains(candidates[c], s[m]);
                if (holds && (!found || candidates[c].radius < best.radius)) {
                    best = candidates[c];
                    found = true;
                }
            }
        }
    if (!found) { /* rounding refused every candidate: the widest pair's ball, grown to hold all */
        best = ball_of_two(s[0], s[count - 1]);
        for (int m = 0; m < count; m++)
            best.radius = fmax(best.radius, sqrt(distance_squared(best.centre, s[m])));
    }
    return best;
}

/* The ball with every support point on its sphere (Welzl's "b_md"). */
static sr_dsphere ball_through(const sr_dvec3 *s, int count)
{
    sr_dsphere ball;
    switch (count) {
    case 0:
        ball.centre = sr_dvec3_make(0, 0, 0);
        ball.radius = -1.0;
        return ball; /* holds nothing */
    case 1:
        ball.centre = s[0];
        ball.radius = 0.0;
        return ball;
    case 2:
        return ball_of_two(s[0], s[1]);
    case 3:
        if (circumcircle(s[0], s[1], s[2], &ball))
            return ball;
        break;
    default:
        if (circumsphere(s[0], s[1], s[2], s[3], &ball))
            return ball;
        break;
    }
    return smallest_ball_of_few(s, count);
}

typedef struct welzl {
    const sr_dvec3 *points;
    uint32_t *next, *prev; /* a doubly linked list of point indices; index `count` is its head */
    uint32_t head;
    sr_dvec3 support[4];
} welzl;

static void move_to_front(welzl *w, uint32_t i)
{
    w->next[w->prev[i]] = w->next[i];
    w->prev[w->next[i]] = w->prev[i];
    w->next[i] = w->next[w->head];
    w->prev[i] = w->head;
    w->prev[w->next[w->head]] = i;
    w->next[w->head] = i;
}

/* Welzl (1991) with Gaertner's move-to-front heuristic (1999): the smallest ball of the points
 * before `end` in the list with the support points on its sphere. A point found outside joins
 * the support, and moves to the front, where the next passes meet it first. The recursion is at
 * most four deep (a sphere is fixed by four points). */
static sr_dsphere move_to_front_ball(welzl *w, uint32_t end, int support_count)
{
    sr_dsphere ball = ball_through(w->support, support_count);
    if (support_count == 4)
        return ball;
    for (uint32_t i = w->next[w->head]; i != end;) {
        uint32_t following = w->next[i];
        if (!contains(ball, w->points[i])) {
            w->support[support_count] = w->points[i];
            ball = move_to_front_ball(w, i, support_count + 1);
            move_to_front(w, i);
        }
        i = following;
    }
    return ball;
}

sr_dsphere sr_bounds_welzl(const sr_dvec3 *points, size_t count, uint32_t *links)
{
    welzl w = {.points = points, .next = links, .prev = links + count + 1, .head = (uint32_t)count};
    /* The list in a fixed pseudo-random order (xorshift64 from a constant seed, Fisher-Yates):
     * the expected linear time of Welzl's algorithm needs the points in random order, and a
     * sorted input (a scan, a grid) is its slow case; the same input gives the same order. */
    uint32_t *order = w.prev; /* borrowed until the list is linked */
    for (uint32_t i = 0; i < count; i++)
        order[i] = i;
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (size_t i = count; i > 1; i--) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        size_t j = (size_t)(state % i);
        uint32_t swap = order[i - 1];
        order[i - 1] = order[j];
        order[j] = swap;
    }
    uint32_t previous = w.head;
    for (size_t i = 0; i < count; i++) {
        w.next[previous] = order[i];
        previous = order[i];
    }
    w.next[previous] = w.head;
    /* the backward links, from the forward ones (order[] lived in prev[]) */
    for (uint32_t i = w.head, steps = 0; steps <= count; steps++) {
        w.prev[w.next[i]] = i;
        i = w.next[i];
    }
    sr_dsphere ball = move_to_front_ball(&w, w.head, 0);
    /* The slack of `contains` and the rounding of the circumcentres may leave a point a hair
     * outside: the radius is the largest distance from the centre. */
    double largest = 0.0;
    for (size_t i = 0; i < count; i++)
        largest = fmax(largest, distance_squared(points[i], ball.centre));
    ball.radius = sqrt(largest);
    return ball;
}

sr_status sr_bounds_sphere(const char *function, const sr_dvec3 *points, size_t count, sr_dsphere *out, sr_error *err)
{
    if (count >= UINT32_MAX / 2)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: %zu points (at most %u)", function, count,
                            UINT32_MAX / 2 - 1);
    uint32_t small[2 * 64 + 2];
    uint32_t *links = small;
    if (count > 64) {
        links = sr_alloc_array(2 * count + 2, sizeof *links);
        if (!links)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: no memory for the lists of %zu points", function,
                                count);
    }
    *out = sr_bounds_welzl(points, count, links);
    if (links != small)
        sr_free(links);
    return SR_OK;
}

sr_status sr_bound_sphere_points(const sr_dvec3 *points, size_t count, sr_dsphere *out, sr_error *err)
{
    sr_status status = sr_bounds_check_points("sr_bound_sphere_points", points, count, out, err);
    if (status != SR_OK)
        return status;
    return sr_bounds_sphere("sr_bound_sphere_points", points, count, out, err);
}
