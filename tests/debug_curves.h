/* tests/debug_curves.h — checks of drawn wires against an independent projection, for the tests
 * of collide shapes and traces in debug lists (test_debug_shape.c, test_debug_collide.c): curves
 * of world points projected in double precision (tests/debug_projection.h), the pixels of a colour
 * that lie along them, and a quaternion rotation of our own (not softrast's). Header-only, test
 * code. */
#ifndef SR_TESTS_DEBUG_CURVES_H
#define SR_TESTS_DEBUG_CURVES_H

#include <criterion/criterion.h>
#include <softrast/collide.h>

#include "debug_projection.h"

#include <math.h>

enum { CURVE_SAMPLES = 1024 };

/// A polyline of projected points (window pixels).
typedef struct curve {
    double x[CURVE_SAMPLES], y[CURVE_SAMPLES];
    int count;
} curve;

/// World point `local` of a shape at `pose`: rotation by the unit quaternion (x, y, z, w) written
/// out (v + 2 w (q x v) + 2 q x (q x v)), then the position.
static inline sr_dvec3 curve_pose_apply(sr_pose pose, sr_dvec3 local)
{
    sr_dquat q = pose.rotation;
    if (q.x == 0 && q.y == 0 && q.z == 0 && q.w == 0)
        q.w = 1;
    double tx = 2 * (q.y * local.z - q.z * local.y);
    double ty = 2 * (q.z * local.x - q.x * local.z);
    double tz = 2 * (q.x * local.y - q.y * local.x);
    sr_dvec3 r = {local.x + q.w * tx + (q.y * tz - q.z * ty), local.y + q.w * ty + (q.z * tx - q.x * tz),
                  local.z + q.w * tz + (q.x * ty - q.y * tx)};
    return (sr_dvec3){r.x + pose.position.x, r.y + pose.position.y, r.z + pose.position.z};
}

static inline void curve_add_pixel(curve *c, double x, double y)
{
    cr_assert_lt(c->count, CURVE_SAMPLES);
    c->x[c->count] = x;
    c->y[c->count] = y;
    c->count++;
}

static inline void curve_add(curve *c, const test_view *view, sr_dvec3 world)
{
    test_pixel p = test_project(view, world.x, world.y, world.z);
    cr_assert(p.in_front);
    curve_add_pixel(c, p.x, p.y);
}

/// The straight segment a-b (world), sampled every few pixels.
static inline void curve_segment(curve *c, const test_view *view, sr_dvec3 a, sr_dvec3 b)
{
    for (int i = 0; i <= 16; i++) {
        double t = i / 16.0;
        curve_add(c, view, (sr_dvec3){a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z)});
    }
}

/// Distance in pixels from (x, y) to the polyline.
static inline double curve_distance(const curve *c, double x, double y)
{
    double best = INFINITY;
    for (int i = 0; i + 1 < c->count; i++) {
        double d = test_distance_to_segment(x, y, c->x[i], c->y[i], c->x[i + 1], c->y[i + 1]);
        best = d < best ? d : best;
    }
    if (c->count == 1)
        best = hypot(x - c->x[0], y - c->y[0]);
    return best;
}

/// Whether a pixel of `color` lies within `reach` pixels of (x, y).
static inline bool curve_lit_near(const uint32_t *pixels, int width, int height, double x, double y, uint32_t color,
                                  int reach)
{
    int cx = (int)floor(x), cy = (int)floor(y);
    for (int dy = -reach; dy <= reach; dy++)
        for (int dx = -reach; dx <= reach; dx++) {
            int px = cx + dx, py = cy + dy;
            if (px >= 0 && py >= 0 && px < width && py < height &&
                pixels[(size_t)py * (size_t)width + (size_t)px] == color)
                return true;
        }
    return false;
}

/// Every sample of the curves (inside the frame) has a pixel of `color` within 1 px, and every
/// pixel of `color` is within `slack` px of a curve: the wire is where the curves say, and only
/// there. Returns the number of pixels of that colour.
static inline int curves_expect(const uint32_t *pixels, int width, int height, const curve *curves, int count,
                                uint32_t color, double slack, const char *what)
{
    for (int k = 0; k < count; k++)
        for (int i = 0; i < curves[k].count; i++) {
            double x = curves[k].x[i], y = curves[k].y[i];
            if (x < 1 || y < 1 || x > width - 1 || y > height - 1)
                continue;
            cr_assert(curve_lit_near(pixels, width, height, x, y, color, 1),
                      "%s: curve %d sample %d at (%.2f, %.2f) not drawn", what, k, i, x, y);
        }
    int lit = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            if (pixels[(size_t)y * (size_t)width + (size_t)x] != color)
                continue;
            lit++;
            double best = INFINITY;
            for (int k = 0; k < count; k++) {
                double d = curve_distance(&curves[k], x + 0.5, y + 0.5);
                best = d < best ? d : best;
            }
            cr_assert_leq(best, slack, "%s: pixel (%d, %d) is %.2f px from every curve", what, x, y, best);
        }
    return lit;
}

#endif
