/* test_math.c — vectors, matrices, quaternions and projections (softrast/math.h), checked
 * against double-precision and analytic computations written here. */
#include <criterion/criterion.h>
#include <softrast/math.h>

#include <stdlib.h>

static float random_float(unsigned *state, float lo, float hi)
{
    *state = *state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*state >> 8) / 16777216.0f;
}

static sr_mat4 random_matrix(unsigned *state)
{
    sr_mat4 m;
    for (int i = 0; i < 16; i++)
        m.m[i] = random_float(state, -2.0f, 2.0f);
    return m;
}

Test(mat4, multiply_matches_double_precision)
{
    unsigned state = 1;
    for (int trial = 0; trial < 200; trial++) {
        sr_mat4 a = random_matrix(&state), b = random_matrix(&state), r = sr_mat4_mul(a, b);
        for (int row = 0; row < 4; row++)
            for (int col = 0; col < 4; col++) {
                double sum = 0.0;
                for (int k = 0; k < 4; k++)
                    sum += (double)a.m[k * 4 + row] * b.m[col * 4 + k];
                cr_assert_float_eq(sr_mat4_get(&r, row, col), sum, 1e-5);
            }
    }
}

Test(mat4, inverse_times_matrix_is_identity)
{
    unsigned state = 7;
    int inverted = 0;
    for (int trial = 0; trial < 200; trial++) {
        sr_mat4 a = random_matrix(&state), inv;
        if (!sr_mat4_inverse(a, &inv))
            continue;
        inverted++;
        sr_mat4 p = sr_mat4_mul(a, inv);
        for (int row = 0; row < 4; row++)
            for (int col = 0; col < 4; col++) {
                double tolerance = 1e-3;
                cr_assert(fabs(sr_mat4_get(&p, row, col) - (row == col ? 1.0 : 0.0)) < tolerance,
                          "trial %d (%d,%d) = %g", trial, row, col, (double)sr_mat4_get(&p, row, col));
            }
    }
    cr_assert_gt(inverted, 150);
    sr_mat4 singular = {{0}}, out;
    cr_assert_not(sr_mat4_inverse(singular, &out));
    cr_assert_float_eq(out.m[0], 1.0f, 0.0f);
    singular.m[0] = NAN;
    cr_assert_not(sr_mat4_inverse(singular, &out));
}

Test(mat4, transpose_translation_scaling_and_transforms)
{
    sr_mat4 t = sr_mat4_translation((sr_vec3){1, 2, 3});
    sr_vec3 p = sr_mat4_transform_point(t, (sr_vec3){1, 1, 1});
    sr_vec3 d = sr_mat4_transform_direction(t, (sr_vec3){1, 1, 1});
    cr_assert(p.x == 2 && p.y == 3 && p.z == 4);
    cr_assert(d.x == 1 && d.y == 1 && d.z == 1);
    sr_mat4 tt = sr_mat4_transpose(t);
    cr_assert_float_eq(sr_mat4_get(&tt, 3, 0), 1.0f, 0.0f);
    cr_assert_float_eq(sr_mat4_get(&t, 0, 3), 1.0f, 0.0f);
    sr_vec3 s = sr_mat4_transform_point(sr_mat4_scaling((sr_vec3){2, 3, 4}), (sr_vec3){1, 1, 1});
    cr_assert(s.x == 2 && s.y == 3 && s.z == 4);
}

/* Rodrigues' rotation formula in double precision, independent of the matrix code. */
static void rodrigues(const double axis_in[3], double angle, const double v[3], double out[3])
{
    double length = sqrt(axis_in[0] * axis_in[0] + axis_in[1] * axis_in[1] + axis_in[2] * axis_in[2]);
    double k[3] = {axis_in[0] / length, axis_in[1] / length, axis_in[2] / length};
    double c = cos(angle), s = sin(angle), dot = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
    double cross[3] = {k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]};
    for (int i = 0; i < 3; i++)
        out[i] = v[i] * c + cross[i] * s + k[i] * dot * (1 - c);
}

Test(rotation, matrix_and_quaternion_match_rodrigues)
{
    unsigned state = 3;
    for (int trial = 0; trial < 500; trial++) {
        double axis[3] = {random_float(&state, -1, 1), random_float(&state, -1, 1), random_float(&state, -1, 1)};
        double angle = random_float(&state, -7, 7);
        double v[3] = {random_float(&state, -3, 3), random_float(&state, -3, 3), random_float(&state, -3, 3)};
        double expected[3];
        rodrigues(axis, angle, v, expected);
        sr_vec3 axis_f = {(float)axis[0], (float)axis[1], (float)axis[2]},
                v_f = {(float)v[0], (float)v[1], (float)v[2]};
        sr_vec3 by_matrix = sr_mat4_transform_direction(sr_mat4_rotation(axis_f, (float)angle), v_f);
        sr_quat q = sr_quat_from_axis_angle(axis_f, (float)angle);
        sr_vec3 by_quat = sr_quat_rotate(q, v_f);
        sr_vec3 by_quat_matrix = sr_mat4_transform_direction(sr_quat_to_mat4(q), v_f);
        double got[3][3] = {{by_matrix.x, by_matrix.y, by_matrix.z},
                            {by_quat.x, by_quat.y, by_quat.z},
                            {by_quat_matrix.x, by_quat_matrix.y, by_quat_matrix.z}};
        for (int way = 0; way < 3; way++)
            for (int i = 0; i < 3; i++)
                cr_assert(fabs(got[way][i] - expected[i]) < 1e-4, "trial %d way %d: %g vs %g", trial, way, got[way][i],
                          expected[i]);
    }
}

/* The product of random rotations against Rodrigues' formula applied twice, in double. Random
 * axes matter: with a fixed pair whose axes have zero components some terms of the Hamilton
 * product vanish, and a wrong sign in one of them went unnoticed (tests/mutants/math-quat-mul-sign). */
Test(quat, multiply_composes_rotations)
{
    unsigned state = 5;
    for (int trial = 0; trial < 500; trial++) {
        double axis_a[3] = {random_float(&state, -1, 1), random_float(&state, -1, 1), random_float(&state, -1, 1)};
        double axis_b[3] = {random_float(&state, -1, 1), random_float(&state, -1, 1), random_float(&state, -1, 1)};
        double angle_a = random_float(&state, -4, 4), angle_b = random_float(&state, -4, 4);
        double v[3] = {random_float(&state, -3, 3), random_float(&state, -3, 3), random_float(&state, -3, 3)};
        double after_b[3], expected[3];
        rodrigues(axis_b, angle_b, v, after_b);
        rodrigues(axis_a, angle_a, after_b, expected);
        sr_quat a =
            sr_quat_from_axis_angle((sr_vec3){(float)axis_a[0], (float)axis_a[1], (float)axis_a[2]}, (float)angle_a);
        sr_quat b =
            sr_quat_from_axis_angle((sr_vec3){(float)axis_b[0], (float)axis_b[1], (float)axis_b[2]}, (float)angle_b);
        sr_vec3 composed = sr_quat_rotate(sr_quat_mul(a, b), (sr_vec3){(float)v[0], (float)v[1], (float)v[2]});
        double got[3] = {composed.x, composed.y, composed.z};
        for (int i = 0; i < 3; i++)
            cr_assert(fabs(got[i] - expected[i]) < 1e-4, "trial %d component %d: %g vs %g", trial, i, got[i],
                      expected[i]);
    }
    sr_quat a = sr_quat_from_axis_angle((sr_vec3){0, 1, 0}, 0.7f);
    sr_vec3 v = {0.3f, -2.0f, 1.5f};
    sr_vec3 back = sr_quat_rotate(sr_quat_conjugate(a), sr_quat_rotate(a, v));
    cr_assert_float_eq(back.x, v.x, 1e-5);
}

Test(quat, slerp_endpoints_midpoint_and_short_arc)
{
    sr_vec3 axis = {0, 0, 1};
    sr_quat a = sr_quat_from_axis_angle(axis, 0.2f), b = sr_quat_from_axis_angle(axis, 1.4f);
    for (int i = 0; i <= 10; i++) {
        float t = (float)i / 10.0f;
        sr_quat q = sr_quat_slerp(a, b, t);
        /* rotating x by the slerped quaternion gives the analytic angle 0.2 + 1.2 t */
        sr_vec3 x = sr_quat_rotate(q, (sr_vec3){1, 0, 0});
        double angle = atan2(x.y, x.x);
        cr_assert(fabs(angle - (0.2 + 1.2 * t)) < 1e-5, "t=%g angle %g", t, angle);
    }
    /* -b is the same rotation: slerp must still take the short arc */
    sr_quat nb = {-b.x, -b.y, -b.z, -b.w};
    sr_vec3 x = sr_quat_rotate(sr_quat_slerp(a, nb, 0.5f), (sr_vec3){1, 0, 0});
    cr_assert(fabs(atan2(x.y, x.x) - 0.8) < 1e-5);
    /* nearly identical quaternions do not divide by zero */
    sr_quat q = sr_quat_slerp(a, a, 0.5f);
    cr_assert(isfinite(q.w) && fabs(q.w - a.w) < 1e-6);
}

Test(camera, look_at_puts_target_on_negative_z)
{
    sr_vec3 eye = {3, 4, 5}, target = {-1, 0.5f, 2};
    sr_mat4 view = sr_mat4_look_at(eye, target, (sr_vec3){0, 1, 0});
    sr_vec3 e = sr_mat4_transform_point(view, eye), t = sr_mat4_transform_point(view, target);
    double distance = sqrt(16.0 + 3.5 * 3.5 + 9.0);
    cr_assert_float_eq(e.x, 0.0f, 1e-5);
    cr_assert_float_eq(e.z, 0.0f, 1e-5);
    cr_assert_float_eq(t.x, 0.0f, 1e-5);
    cr_assert_float_eq(t.y, 0.0f, 1e-5);
    cr_assert_float_eq(t.z, -distance, 1e-5);
    /* world up stays up in view space */
    sr_vec3 up = sr_mat4_transform_direction(view, (sr_vec3){0, 1, 0});
    cr_assert_gt(up.y, 0.0f);
}

Test(camera, perspective_maps_near_to_zero_far_to_one_and_fov_to_edges)
{
    float fov = 45.0f * SR_PI / 180.0f, aspect = 16.0f / 9.0f, n = 0.1f, f = 100.0f;
    sr_mat4 p = sr_mat4_perspective(fov, aspect, n, f);
    sr_vec4 near_point = sr_mat4_mul_vec4(p, (sr_vec4){0, 0, -n, 1});
    sr_vec4 far_point = sr_mat4_mul_vec4(p, (sr_vec4){0, 0, -f, 1});
    cr_assert_float_eq(near_point.z / near_point.w, 0.0f, 1e-6);
    cr_assert_float_eq(far_point.z / far_point.w, 1.0f, 1e-5);
    cr_assert_float_eq(near_point.w, n, 1e-7);
    double half = tan(fov / 2.0), z = -7.0;
    sr_vec4 top = sr_mat4_mul_vec4(p, (sr_vec4){0, (float)(-z * half), (float)z, 1});
    sr_vec4 right = sr_mat4_mul_vec4(p, (sr_vec4){(float)(-z * half * aspect), 0, (float)z, 1});
    cr_assert_float_eq(top.y / top.w, 1.0f, 1e-5);
    cr_assert_float_eq(right.x / right.w, 1.0f, 1e-5);
    sr_mat4 inverse;
    cr_assert(sr_mat4_inverse(p, &inverse));
    sr_vec3 back = sr_mat4_transform_point_projective(inverse, (sr_vec3){0.5f, -0.25f, 0.0f});
    cr_assert_float_eq(back.z, -n, 1e-5);
}

Test(camera, orthographic_maps_box_to_clip_volume)
{
    sr_mat4 o = sr_mat4_orthographic(-2, 4, -1, 3, 0.5f, 10);
    sr_vec3 lo = sr_mat4_transform_point(o, (sr_vec3){-2, -1, -0.5f});
    sr_vec3 hi = sr_mat4_transform_point(o, (sr_vec3){4, 3, -10});
    cr_assert_float_eq(lo.x, -1.0f, 1e-6);
    cr_assert_float_eq(lo.y, -1.0f, 1e-6);
    cr_assert_float_eq(lo.z, 0.0f, 1e-6);
    cr_assert_float_eq(hi.x, 1.0f, 1e-6);
    cr_assert_float_eq(hi.y, 1.0f, 1e-6);
    cr_assert_float_eq(hi.z, 1.0f, 1e-6);
}

Test(vec, basic_operations)
{
    sr_vec3 a = {1, 2, 3}, b = {-4, 5, 0.5f};
    sr_vec3 c = sr_vec3_cross(a, b);
    cr_assert_float_eq(sr_vec3_dot(c, a), 0.0f, 1e-5);
    cr_assert_float_eq(sr_vec3_dot(c, b), 0.0f, 1e-5);
    cr_assert_float_eq(c.x, 2 * 0.5f - 3 * 5, 1e-6);
    cr_assert_float_eq(sr_vec3_length(sr_vec3_normalize(b)), 1.0f, 1e-6);
    sr_vec3 zero = sr_vec3_normalize((sr_vec3){0, 0, 0});
    cr_assert(zero.x == 0 && zero.y == 0 && zero.z == 0);
    cr_assert_float_eq(sr_vec2_length((sr_vec2){3, 4}), 5.0f, 1e-6);
    sr_vec4 l = sr_vec4_lerp((sr_vec4){0, 0, 0, 0}, (sr_vec4){2, 4, 6, 8}, 0.25f);
    cr_assert(l.x == 0.5f && l.w == 2.0f);
    cr_assert_float_eq(sr_vec3_get(b, 2), 0.5f, 0.0f);
}
