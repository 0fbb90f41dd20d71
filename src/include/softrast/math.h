/* softrast/math.h — vectors, 4x4 matrices, quaternions and camera transforms.
 * Header-only (`static inline`); knows nothing of the other modules.
 * Conventions (DESIGN.md): right-handed, camera looks down -Z, column vectors (M * v),
 * column-major storage (element (row r, column c) is m[c * 4 + r]), clip-space depth in [0, w]. */
#ifndef SOFTRAST_MATH_H
#define SOFTRAST_MATH_H

#include <math.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SR_PI 3.14159265358979323846f

typedef struct sr_vec2 { float x, y; } sr_vec2;
typedef struct sr_vec3 { float x, y, z; } sr_vec3;
typedef struct sr_vec4 { float x, y, z, w; } sr_vec4;
/// Column-major 4x4 matrix: m[column * 4 + row].
typedef struct sr_mat4 { float m[16]; } sr_mat4;
/// Unit quaternion for rotations: v = (x, y, z) vector part, w scalar part.
typedef struct sr_quat { float x, y, z, w; } sr_quat;

/* ---- vec2 ---- */
static inline sr_vec2 sr_vec2_make(float x, float y) { sr_vec2 r = {x, y}; return r; }
static inline sr_vec2 sr_vec2_add(sr_vec2 a, sr_vec2 b) { return sr_vec2_make(a.x + b.x, a.y + b.y); }
static inline sr_vec2 sr_vec2_sub(sr_vec2 a, sr_vec2 b) { return sr_vec2_make(a.x - b.x, a.y - b.y); }
static inline sr_vec2 sr_vec2_scale(sr_vec2 a, float s) { return sr_vec2_make(a.x * s, a.y * s); }
static inline float sr_vec2_dot(sr_vec2 a, sr_vec2 b) { return a.x * b.x + a.y * b.y; }
static inline float sr_vec2_length(sr_vec2 a) { return sqrtf(sr_vec2_dot(a, a)); }

/* ---- vec3 ---- */
static inline sr_vec3 sr_vec3_make(float x, float y, float z) { sr_vec3 r = {x, y, z}; return r; }
static inline sr_vec3 sr_vec3_splat(float s) { return sr_vec3_make(s, s, s); }
static inline sr_vec3 sr_vec3_add(sr_vec3 a, sr_vec3 b) { return sr_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline sr_vec3 sr_vec3_sub(sr_vec3 a, sr_vec3 b) { return sr_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline sr_vec3 sr_vec3_mul(sr_vec3 a, sr_vec3 b) { return sr_vec3_make(a.x * b.x, a.y * b.y, a.z * b.z); }
static inline sr_vec3 sr_vec3_scale(sr_vec3 a, float s) { return sr_vec3_make(a.x * s, a.y * s, a.z * s); }
static inline sr_vec3 sr_vec3_negate(sr_vec3 a) { return sr_vec3_make(-a.x, -a.y, -a.z); }
static inline float sr_vec3_dot(sr_vec3 a, sr_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline sr_vec3 sr_vec3_cross(sr_vec3 a, sr_vec3 b)
{
    return sr_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float sr_vec3_length(sr_vec3 a) { return sqrtf(sr_vec3_dot(a, a)); }
static inline float sr_vec3_length_squared(sr_vec3 a) { return sr_vec3_dot(a, a); }
/// Unit vector along `a`; returns the zero vector for a zero (or non-finite-length) input.
static inline sr_vec3 sr_vec3_normalize(sr_vec3 a)
{
    float length = sr_vec3_length(a);
    return length > 0.0f && isfinite(length) ? sr_vec3_scale(a, 1.0f / length) : sr_vec3_make(0, 0, 0);
}
static inline sr_vec3 sr_vec3_min(sr_vec3 a, sr_vec3 b)
{
    return sr_vec3_make(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z));
}
static inline sr_vec3 sr_vec3_max(sr_vec3 a, sr_vec3 b)
{
    return sr_vec3_make(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z));
}
static inline sr_vec3 sr_vec3_lerp(sr_vec3 a, sr_vec3 b, float t)
{
    return sr_vec3_add(a, sr_vec3_scale(sr_vec3_sub(b, a), t));
}
/// Component i (0 = x, 1 = y, 2 = z) of `a`.
static inline float sr_vec3_get(sr_vec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }
static inline bool sr_vec3_is_finite(sr_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

/* ---- vec4 ---- */
static inline sr_vec4 sr_vec4_make(float x, float y, float z, float w) { sr_vec4 r = {x, y, z, w}; return r; }
static inline sr_vec4 sr_vec4_from_vec3(sr_vec3 v, float w) { return sr_vec4_make(v.x, v.y, v.z, w); }
static inline sr_vec3 sr_vec4_xyz(sr_vec4 v) { return sr_vec3_make(v.x, v.y, v.z); }
static inline sr_vec4 sr_vec4_add(sr_vec4 a, sr_vec4 b) { return sr_vec4_make(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
static inline sr_vec4 sr_vec4_sub(sr_vec4 a, sr_vec4 b) { return sr_vec4_make(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w); }
static inline sr_vec4 sr_vec4_scale(sr_vec4 a, float s) { return sr_vec4_make(a.x * s, a.y * s, a.z * s, a.w * s); }
static inline float sr_vec4_dot(sr_vec4 a, sr_vec4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static inline sr_vec4 sr_vec4_lerp(sr_vec4 a, sr_vec4 b, float t)
{
    return sr_vec4_add(a, sr_vec4_scale(sr_vec4_sub(b, a), t));
}

/* ---- mat4 ---- */
static inline float sr_mat4_get(const sr_mat4 *m, int row, int column) { return m->m[column * 4 + row]; }

static inline sr_mat4 sr_mat4_identity(void)
{
    sr_mat4 r = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    return r;
}

/// a * b (apply b first, then a).
static inline sr_mat4 sr_mat4_mul(sr_mat4 a, sr_mat4 b)
{
    sr_mat4 r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            r.m[c * 4 + row] = a.m[0 * 4 + row] * b.m[c * 4 + 0] + a.m[1 * 4 + row] * b.m[c * 4 + 1] +
                               a.m[2 * 4 + row] * b.m[c * 4 + 2] + a.m[3 * 4 + row] * b.m[c * 4 + 3];
    return r;
}

static inline sr_vec4 sr_mat4_mul_vec4(sr_mat4 m, sr_vec4 v)
{
    return sr_vec4_make(
        m.m[0] * v.x + m.m[4] * v.y + m.m[8] * v.z + m.m[12] * v.w,
        m.m[1] * v.x + m.m[5] * v.y + m.m[9] * v.z + m.m[13] * v.w,
        m.m[2] * v.x + m.m[6] * v.y + m.m[10] * v.z + m.m[14] * v.w,
        m.m[3] * v.x + m.m[7] * v.y + m.m[11] * v.z + m.m[15] * v.w);
}

/// M * (p, 1) without the projective divide (use for affine matrices).
static inline sr_vec3 sr_mat4_transform_point(sr_mat4 m, sr_vec3 p)
{
    return sr_vec3_make(
        m.m[0] * p.x + m.m[4] * p.y + m.m[8] * p.z + m.m[12],
        m.m[1] * p.x + m.m[5] * p.y + m.m[9] * p.z + m.m[13],
        m.m[2] * p.x + m.m[6] * p.y + m.m[10] * p.z + m.m[14]);
}

/// M * (p, 1) followed by division by w (use for projections, e.g. unprojecting NDC points).
static inline sr_vec3 sr_mat4_transform_point_projective(sr_mat4 m, sr_vec3 p)
{
    sr_vec4 r = sr_mat4_mul_vec4(m, sr_vec4_make(p.x, p.y, p.z, 1.0f));
    return sr_vec3_make(r.x / r.w, r.y / r.w, r.z / r.w);
}

/// M * (d, 0): directions ignore translation. (Normals need the inverse transpose.)
static inline sr_vec3 sr_mat4_transform_direction(sr_mat4 m, sr_vec3 d)
{
    return sr_vec3_make(
        m.m[0] * d.x + m.m[4] * d.y + m.m[8] * d.z,
        m.m[1] * d.x + m.m[5] * d.y + m.m[9] * d.z,
        m.m[2] * d.x + m.m[6] * d.y + m.m[10] * d.z);
}

static inline sr_mat4 sr_mat4_transpose(sr_mat4 a)
{
    sr_mat4 r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            r.m[c * 4 + row] = a.m[row * 4 + c];
    return r;
}

/// General inverse by cofactors. Returns false (and the identity in *out) when `a` is singular
/// or not finite.
static inline bool sr_mat4_inverse(sr_mat4 a, sr_mat4 *out)
{
    const float *m = a.m;
    float inv[16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] +
             m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] -
             m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] +
             m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] -
              m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] -
             m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] +
             m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] -
             m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] +
              m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] +
             m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] -
             m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] +
              m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] -
              m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] -
             m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] +
             m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] -
              m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] +
              m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    float det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if (det == 0.0f || !isfinite(det)) {
        *out = sr_mat4_identity();
        return false;
    }
    float inv_det = 1.0f / det;
    for (int i = 0; i < 16; i++)
        out->m[i] = inv[i] * inv_det;
    return true;
}

static inline sr_mat4 sr_mat4_translation(sr_vec3 t)
{
    sr_mat4 r = sr_mat4_identity();
    r.m[12] = t.x;
    r.m[13] = t.y;
    r.m[14] = t.z;
    return r;
}

static inline sr_mat4 sr_mat4_scaling(sr_vec3 s)
{
    sr_mat4 r = sr_mat4_identity();
    r.m[0] = s.x;
    r.m[5] = s.y;
    r.m[10] = s.z;
    return r;
}

/// Rotation by `radians` around `axis` (need not be unit length), counter-clockwise looking
/// from the tip of the axis towards the origin (right-hand rule).
static inline sr_mat4 sr_mat4_rotation(sr_vec3 axis, float radians)
{
    sr_vec3 a = sr_vec3_normalize(axis);
    float c = cosf(radians), s = sinf(radians), k = 1.0f - c;
    sr_mat4 r = sr_mat4_identity();
    r.m[0] = a.x * a.x * k + c;
    r.m[1] = a.y * a.x * k + a.z * s;
    r.m[2] = a.z * a.x * k - a.y * s;
    r.m[4] = a.x * a.y * k - a.z * s;
    r.m[5] = a.y * a.y * k + c;
    r.m[6] = a.z * a.y * k + a.x * s;
    r.m[8] = a.x * a.z * k + a.y * s;
    r.m[9] = a.y * a.z * k - a.x * s;
    r.m[10] = a.z * a.z * k + c;
    return r;
}

/// View matrix of a camera at `eye` looking at `target` (right-handed, looks down -Z).
static inline sr_mat4 sr_mat4_look_at(sr_vec3 eye, sr_vec3 target, sr_vec3 up)
{
    sr_vec3 f = sr_vec3_normalize(sr_vec3_sub(target, eye));
    sr_vec3 s = sr_vec3_normalize(sr_vec3_cross(f, up));
    sr_vec3 u = sr_vec3_cross(s, f);
    sr_mat4 r = sr_mat4_identity();
    r.m[0] = s.x;
    r.m[4] = s.y;
    r.m[8] = s.z;
    r.m[1] = u.x;
    r.m[5] = u.y;
    r.m[9] = u.z;
    r.m[2] = -f.x;
    r.m[6] = -f.y;
    r.m[10] = -f.z;
    r.m[12] = -sr_vec3_dot(s, eye);
    r.m[13] = -sr_vec3_dot(u, eye);
    r.m[14] = sr_vec3_dot(f, eye);
    return r;
}

/// Right-handed perspective projection with zero-to-one depth: view-space z = -near maps to
/// depth 0 and z = -far to depth 1 (after division by w = -z). `fov_y` in radians.
static inline sr_mat4 sr_mat4_perspective(float fov_y, float aspect, float near_z, float far_z)
{
    float f = 1.0f / tanf(fov_y * 0.5f);
    sr_mat4 r = {{0}};
    r.m[0] = f / aspect;
    r.m[5] = f;
    r.m[10] = far_z / (near_z - far_z);
    r.m[11] = -1.0f;
    r.m[14] = near_z * far_z / (near_z - far_z);
    return r;
}

/// Right-handed orthographic projection with zero-to-one depth (z = -near -> 0, z = -far -> 1).
static inline sr_mat4 sr_mat4_orthographic(float left, float right, float bottom, float top, float near_z,
                                           float far_z)
{
    sr_mat4 r = sr_mat4_identity();
    r.m[0] = 2.0f / (right - left);
    r.m[5] = 2.0f / (top - bottom);
    r.m[10] = 1.0f / (near_z - far_z);
    r.m[12] = -(right + left) / (right - left);
    r.m[13] = -(top + bottom) / (top - bottom);
    r.m[14] = near_z / (near_z - far_z);
    return r;
}

/* ---- quaternions ---- */
static inline sr_quat sr_quat_make(float x, float y, float z, float w) { sr_quat r = {x, y, z, w}; return r; }
static inline sr_quat sr_quat_identity(void) { return sr_quat_make(0, 0, 0, 1); }

/// Rotation by `radians` around `axis` (normalised here), right-hand rule.
static inline sr_quat sr_quat_from_axis_angle(sr_vec3 axis, float radians)
{
    sr_vec3 a = sr_vec3_normalize(axis);
    float s = sinf(radians * 0.5f);
    return sr_quat_make(a.x * s, a.y * s, a.z * s, cosf(radians * 0.5f));
}

/// a * b: rotation b first, then a.
static inline sr_quat sr_quat_mul(sr_quat a, sr_quat b)
{
    return sr_quat_make(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

static inline float sr_quat_dot(sr_quat a, sr_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

static inline sr_quat sr_quat_normalize(sr_quat q)
{
    float length = sqrtf(sr_quat_dot(q, q));
    if (!(length > 0.0f))
        return sr_quat_identity();
    float inv = 1.0f / length;
    return sr_quat_make(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
}

static inline sr_quat sr_quat_conjugate(sr_quat q) { return sr_quat_make(-q.x, -q.y, -q.z, q.w); }

/// Rotation matrix of a unit quaternion.
static inline sr_mat4 sr_quat_to_mat4(sr_quat q)
{
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    sr_mat4 r = sr_mat4_identity();
    r.m[0] = 1.0f - 2.0f * (yy + zz);
    r.m[1] = 2.0f * (xy + wz);
    r.m[2] = 2.0f * (xz - wy);
    r.m[4] = 2.0f * (xy - wz);
    r.m[5] = 1.0f - 2.0f * (xx + zz);
    r.m[6] = 2.0f * (yz + wx);
    r.m[8] = 2.0f * (xz + wy);
    r.m[9] = 2.0f * (yz - wx);
    r.m[10] = 1.0f - 2.0f * (xx + yy);
    return r;
}

/// Rotates vector v by unit quaternion q.
static inline sr_vec3 sr_quat_rotate(sr_quat q, sr_vec3 v)
{
    sr_vec3 u = {q.x, q.y, q.z};
    sr_vec3 t = sr_vec3_scale(sr_vec3_cross(u, v), 2.0f);
    return sr_vec3_add(sr_vec3_add(v, sr_vec3_scale(t, q.w)), sr_vec3_cross(u, t));
}

/// Spherical linear interpolation along the shorter arc; t in [0, 1].
static inline sr_quat sr_quat_slerp(sr_quat a, sr_quat b, float t)
{
    float cos_theta = sr_quat_dot(a, b);
    if (cos_theta < 0.0f) { /* take the shorter arc */
        b = sr_quat_make(-b.x, -b.y, -b.z, -b.w);
        cos_theta = -cos_theta;
    }
    float wa, wb;
    if (cos_theta > 0.9995f) { /* nearly parallel: lerp avoids dividing by sin(theta) ~ 0 */
        wa = 1.0f - t;
        wb = t;
    } else {
        float theta = acosf(cos_theta);
        float sin_theta = sinf(theta);
        wa = sinf((1.0f - t) * theta) / sin_theta;
        wb = sinf(t * theta) / sin_theta;
    }
    return sr_quat_normalize(sr_quat_make(a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb,
                                       a.w * wa + b.w * wb));
}

/* ---- double precision (the collision queries of softrast/collide.h compute in double) ---- */
typedef struct sr_dvec3 { double x, y, z; } sr_dvec3;
/// Unit quaternion in double: v = (x, y, z) vector part, w scalar part.
typedef struct sr_dquat { double x, y, z, w; } sr_dquat;

static inline sr_dvec3 sr_dvec3_make(double x, double y, double z) { sr_dvec3 r = {x, y, z}; return r; }
static inline sr_dvec3 sr_dvec3_from_vec3(sr_vec3 v) { return sr_dvec3_make(v.x, v.y, v.z); }
/// Rounded to nearest float per component.
static inline sr_vec3 sr_dvec3_to_vec3(sr_dvec3 v) { sr_vec3 r = {(float)v.x, (float)v.y, (float)v.z}; return r; }
static inline sr_dvec3 sr_dvec3_add(sr_dvec3 a, sr_dvec3 b) { return sr_dvec3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline sr_dvec3 sr_dvec3_sub(sr_dvec3 a, sr_dvec3 b) { return sr_dvec3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline sr_dvec3 sr_dvec3_scale(sr_dvec3 a, double s) { return sr_dvec3_make(a.x * s, a.y * s, a.z * s); }
static inline sr_dvec3 sr_dvec3_negate(sr_dvec3 a) { return sr_dvec3_make(-a.x, -a.y, -a.z); }
static inline double sr_dvec3_dot(sr_dvec3 a, sr_dvec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline sr_dvec3 sr_dvec3_cross(sr_dvec3 a, sr_dvec3 b)
{
    return sr_dvec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double sr_dvec3_length(sr_dvec3 a) { return sqrt(sr_dvec3_dot(a, a)); }
/// Unit vector along `a`; the zero vector for a zero (or non-finite-length) input.
static inline sr_dvec3 sr_dvec3_normalize(sr_dvec3 a)
{
    double length = sr_dvec3_length(a);
    return length > 0.0 && isfinite(length) ? sr_dvec3_scale(a, 1.0 / length) : sr_dvec3_make(0, 0, 0);
}
static inline bool sr_dvec3_is_finite(sr_dvec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

static inline sr_dquat sr_dquat_identity(void) { sr_dquat q = {0, 0, 0, 1}; return q; }
static inline sr_dquat sr_dquat_from_quat(sr_quat q) { sr_dquat r = {q.x, q.y, q.z, q.w}; return r; }
/// Rotation by `radians` around `axis` (normalised here), right-hand rule.
static inline sr_dquat sr_dquat_from_axis_angle(sr_dvec3 axis, double radians)
{
    sr_dvec3 a = sr_dvec3_normalize(axis);
    double s = sin(radians * 0.5);
    sr_dquat q = {a.x * s, a.y * s, a.z * s, cos(radians * 0.5)};
    return q;
}
/// a * b: rotation b first, then a.
static inline sr_dquat sr_dquat_mul(sr_dquat a, sr_dquat b)
{
    sr_dquat r = {
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
    return r;
}
static inline sr_dquat sr_dquat_conjugate(sr_dquat q) { sr_dquat r = {-q.x, -q.y, -q.z, q.w}; return r; }
/// Rotates vector v by unit quaternion q.
static inline sr_dvec3 sr_dquat_rotate(sr_dquat q, sr_dvec3 v)
{
    sr_dvec3 u = {q.x, q.y, q.z};
    sr_dvec3 t = sr_dvec3_scale(sr_dvec3_cross(u, v), 2.0);
    return sr_dvec3_add(sr_dvec3_add(v, sr_dvec3_scale(t, q.w)), sr_dvec3_cross(u, t));
}


#ifdef __cplusplus
}
#endif
#endif
