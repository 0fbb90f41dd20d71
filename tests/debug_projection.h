/* tests/debug_projection.h — an independent camera for the debug renderer's tests: where a world
 * point lands on screen, computed in double precision from the camera's definition (eye, target,
 * up, vertical field of view, near and far planes; DESIGN.md's conventions: right-handed, looking
 * down -Z, zero-to-one depth, pixel centres at (x + 0.5, y + 0.5), y down), without
 * sr_camera_matrices or any other softrast code. Used by test_debug_items.c and the engines'
 * examples' test. Header-only, file-local. */
#ifndef SR_TESTS_DEBUG_PROJECTION_H
#define SR_TESTS_DEBUG_PROJECTION_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct test_view {
    double eye[3], right[3], up[3], back[3]; ///< the camera's orthonormal basis (back = -forward)
    double y_scale, x_scale;                 ///< cot(fov / 2), over the aspect ratio for x
    double near_z, far_z;
    int width, height;
} test_view;

/// Where a world point lands: window x, y (pixels, y down), window depth in [0, 1], and whether
/// it is in front of the eye.
typedef struct test_pixel {
    double x, y, depth, w; ///< w: the distance in front of the eye (clip w)
    bool in_front;
} test_pixel;

static inline void test_normalize(double v[3])
{
    double length = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
        v[k] /= length;
}

static inline void test_cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/// The view of a perspective camera at `eye` looking at `target` with `up`, a vertical field of
/// view of `fov_degrees`, for a width x height image.
static inline test_view test_view_make(const double eye[3], const double target[3], const double up[3],
                                       double fov_degrees, double near_z, double far_z, int width, int height)
{
    test_view v;
    double forward[3];
    for (int k = 0; k < 3; k++) {
        v.eye[k] = eye[k];
        forward[k] = target[k] - eye[k];
    }
    test_normalize(forward);
    test_cross(forward, up, v.right);
    test_normalize(v.right);
    test_cross(v.right, forward, v.up);
    for (int k = 0; k < 3; k++)
        v.back[k] = -forward[k];
    v.y_scale = 1.0 / tan(fov_degrees * M_PI / 360.0);
    v.x_scale = v.y_scale * (double)height / (double)width;
    v.near_z = near_z;
    v.far_z = far_z;
    v.width = width;
    v.height = height;
    return v;
}

static inline test_pixel test_project(const test_view *v, double x, double y, double z)
{
    double d[3] = {x - v->eye[0], y - v->eye[1], z - v->eye[2]};
    double vx = d[0] * v->right[0] + d[1] * v->right[1] + d[2] * v->right[2];
    double vy = d[0] * v->up[0] + d[1] * v->up[1] + d[2] * v->up[2];
    double vz = d[0] * v->back[0] + d[1] * v->back[1] + d[2] * v->back[2];
    double w = -vz; // distance in front of the eye
    test_pixel p;
    p.w = w;
    p.in_front = w > 0.0;
    double ndc_x = v->x_scale * vx / w, ndc_y = v->y_scale * vy / w;
    p.x = (ndc_x + 1.0) * 0.5 * (double)v->width;
    p.y = (1.0 - ndc_y) * 0.5 * (double)v->height;
    // Zero-to-one depth: near -> 0, far -> 1, hyperbolic in between.
    p.depth = v->far_z / (v->far_z - v->near_z) * (1.0 - v->near_z / w);
    return p;
}

/// Distance from (px, py) to the segment (ax, ay)-(bx, by), in pixels.
static inline double test_distance_to_segment(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, length2 = dx * dx + dy * dy;
    double t = length2 > 0.0 ? ((px - ax) * dx + (py - ay) * dy) / length2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    double ex = ax + t * dx - px, ey = ay + t * dy - py;
    return sqrt(ex * ex + ey * ey);
}

/// The byte the pipeline stores when blending source byte value s (0..255) of alpha a (0..1)
/// over destination byte d (raster.h's SR_BLEND_ALPHA: colour s a + d (1 - a), alpha 255 a +
/// d (1 - a), rounded), for a whole RGBA8 pixel.
static inline uint32_t test_blend_over(uint32_t source, uint32_t destination)
{
    double a = (double)(source >> 24) / 255.0;
    uint32_t out = 0;
    for (int k = 0; k < 4; k++) {
        double s = k == 3 ? 255.0 * a : (double)(source >> (8 * k) & 0xffu) * a;
        double v = s + (double)(destination >> (8 * k) & 0xffu) * (1.0 - a);
        uint32_t byte = (uint32_t)floor(v + 0.5);
        out |= (byte > 255 ? 255 : byte) << (8 * k);
    }
    return out;
}

#endif
