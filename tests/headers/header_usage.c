/* header_usage.c — the public headers' helpers used the same way from C17, C++17 and C++20
 * (tests/headers/check_headers.sh compiles, links and runs it with each compiler and standard
 * under -Wall -Wextra -Wpedantic -Werror): C++ has no compound literals, and -Wextra warns about
 * `{0}` in C++ and `{}` in C, so code shared by both languages writes values with the make
 * functions, SR_LITERAL and SR_ZERO_INIT. Calls only inline functions and macros (no library).
 * Exits 1, naming the check, when a helper computes something else. */
#include <softrast/softrast.h>

#include <math.h>
#include <stdio.h>

static int failures = 0;

static void check(bool condition, const char *what)
{
    if (!condition) {
        fprintf(stderr, "header_usage: FAIL: %s\n", what);
        failures++;
    }
}

static bool near(float a, float b)
{
    return fabsf(a - b) <= 1e-6f;
}

int main(void)
{
    // Vectors: the make functions and SR_LITERAL give the same values.
    sr_vec3 a = sr_vec3_make(1.0f, 2.0f, 3.0f);
    sr_vec3 b = SR_LITERAL(sr_vec3){4.0f, 5.0f, 6.0f};
    sr_vec3 cross = sr_vec3_cross(a, b);
    check(cross.x == -3.0f && cross.y == 6.0f && cross.z == -3.0f, "sr_vec3_cross");
    sr_vec2 v2 = sr_vec2_add(sr_vec2_make(1.0f, 2.0f), SR_LITERAL(sr_vec2){3.0f, 4.0f});
    check(v2.x == 4.0f && v2.y == 6.0f, "sr_vec2_add");
    sr_vec4 v4 = sr_vec4_from_vec3(a, 1.0f);
    check(sr_vec4_dot(v4, sr_vec4_make(1.0f, 1.0f, 1.0f, 1.0f)) == 7.0f, "sr_vec4_from_vec3");
    check(near(sr_vec3_length(sr_vec3_normalize(b)), 1.0f), "sr_vec3_normalize");

    // Matrices and quaternions.
    sr_mat4 move = sr_mat4_mul(sr_mat4_translation(a), sr_mat4_identity());
    sr_vec3 moved = sr_mat4_transform_point(move, b);
    check(moved.x == 5.0f && moved.y == 7.0f && moved.z == 9.0f, "sr_mat4_transform_point");
    sr_quat quarter = sr_quat_from_axis_angle(sr_vec3_make(0.0f, 1.0f, 0.0f), SR_PI / 2.0f);
    sr_vec3 turned = sr_quat_rotate(quarter, sr_vec3_make(1.0f, 0.0f, 0.0f));
    check(near(turned.x, 0.0f) && near(turned.y, 0.0f) && near(turned.z, -1.0f), "sr_quat_rotate");
    sr_quat same = sr_quat_mul(sr_quat_make(0.0f, 0.0f, 0.0f, 1.0f), quarter);
    check(same.y == quarter.y && same.w == quarter.w, "sr_quat_make");
    sr_mat4 inverse;
    check(sr_mat4_inverse(move, &inverse) && sr_mat4_transform_point(inverse, moved).x == b.x, "sr_mat4_inverse");

    // Handles and descriptions.
    sr_node_id none = SR_NODE_NULL;
    check(none.index == 0 && none.generation == 0, "SR_NODE_NULL");
    sr_dynamic_proxy no_proxy = SR_DYNAMIC_PROXY_NULL;
    check(no_proxy.index == 0 && no_proxy.generation == 0, "SR_DYNAMIC_PROXY_NULL");
    sr_viewer_desc desc = SR_ZERO_INIT;
    desc.title = "header_usage";
    check(desc.width == 0 && desc.scene_path == NULL && desc.input == NULL, "SR_ZERO_INIT");
    sr_camera camera = sr_camera_look_at(sr_vec3_make(0.0f, 2.0f, 5.0f), sr_vec3_make(0.0f, 0.0f, 0.0f));
    check(camera.eye.z == 5.0f && camera.fov_y_degrees == 0.0f && camera.up.y == 0.0f, "sr_camera_look_at");
    sr_mat4 view = sr_mat4_look_at(camera.eye, camera.target, sr_vec3_make(0.0f, 1.0f, 0.0f));
    check(near(sr_mat4_transform_point(view, camera.target).z, -sqrtf(29.0f)), "sr_mat4_look_at");

    // Colours and the blocks' alignment.
    check(sr_rgba8(1.0f, 0.0f, 0.0f, 1.0f) == 0xff0000ffu, "sr_rgba8");
    SR_BLOCK_ALIGNED float lanes[SR_BLOCK_LANES] = {0};
    check(((uintptr_t)lanes & 31u) == 0, "SR_BLOCK_ALIGNED");
    return failures ? 1 : 0;
}
