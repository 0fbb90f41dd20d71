/* shaders/blinn_phong.c — the "blinn_phong" program: lambert diffuse plus a Blinn-Phong
 * specular highlight (Blinn 1977, "Models of light reflection for computer synthesized
 * pictures": the half vector H = normalize(L + V) replaces Phong's reflection vector). */
#include "shader_common.h"

/* varyings: world normal (0..2), world position (3..5) */
static void blinn_phong_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const sr_shader_uniforms *u = uniforms;
    const sr_shader_vertex *v = vertex;
    shader_clip_position(u, v->position, clip);
    shader_world_normal(u, v->normal, varyings);
    sr_vec3 world = sr_mat4_transform_point(u->model, v->position);
    varyings[3] = world.x;
    varyings[4] = world.y;
    varyings[5] = world.z;
}

static bool blinn_phong_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    const float *f = in->varyings;
    sr_vec3 n = sr_vec3_normalize(sr_vec3_make(f[0], f[1], f[2]));
    // Two-sided lighting turns N round on a surface seen from behind (shader_turns_normals); the
    // specular term needs N itself turned, not only N.L's sign.
    if (shader_turns_normals(u, in->front_facing)) {
        sr_vec3 v = shader_view_axis(u);
        if (n.x * v.x + n.y * v.y + n.z * v.z < 0.0f)
            n = sr_vec3_make(-n.x, -n.y, -n.z);
    }
    sr_vec3 l = u->light_direction;
    float n_dot_l = sr_vec3_dot(n, l);
    float k = u->ambient + u->diffuse * shader_max(n_dot_l, 0.0f);
    sr_vec3 color = sr_vec3_scale(u->albedo, k);
    /* No highlight on the side facing away from the light: N.H can be positive there although
     * the surface is unlit, which would paint highlights on the shadowed side. */
    if (n_dot_l > 0.0f) {
        sr_vec3 to_eye = sr_vec3_normalize(sr_vec3_sub(u->camera_position, sr_vec3_make(f[3], f[4], f[5])));
        sr_vec3 half = sr_vec3_normalize(sr_vec3_add(l, to_eye));
        float n_dot_h = sr_vec3_dot(n, half);
        if (n_dot_h > 0.0f)
            color = sr_vec3_add(color, sr_vec3_scale(u->specular_color, powf(n_dot_h, u->shininess)));
    }
    out->color[0] = color.x;
    out->color[1] = color.y;
    out->color[2] = color.z;
    out->color[3] = u->opacity;
    return true;
}

/* The same per lane: everything but powf vectorises; powf is called lane by lane where the
 * highlight shows (a vector powf would not round as libm's does). */
SHADER_BLOCK_CLONES static uint32_t blinn_phong_fragment_block(const sr_fragment_block_in *in, const void *uniforms,
                                                               sr_fragment_block_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    const float(*f)[SR_BLOCK_LANES] = in->varyings;
    float n[3][SR_BLOCK_LANES];
    shader_normalize_block(f[0], f[1], f[2], n);
    if (shader_turns_normals(u, in->front_facing)) {
        const sr_vec3 v = shader_view_axis(u);
        for (int i = 0; i < SR_BLOCK_LANES; i++) {
            float sign = n[0][i] * v.x + n[1][i] * v.y + n[2][i] * v.z < 0.0f ? -1.0f : 1.0f;
            n[0][i] *= sign;
            n[1][i] *= sign;
            n[2][i] *= sign;
        }
    }
    const sr_vec3 l = u->light_direction, eye = u->camera_position;
    const float ambient = u->ambient, diffuse = u->diffuse;
    float n_dot_l[SR_BLOCK_LANES], k[SR_BLOCK_LANES], to_eye[3][SR_BLOCK_LANES], toward[3][SR_BLOCK_LANES];
    float half[3][SR_BLOCK_LANES], n_dot_h[SR_BLOCK_LANES];
    for (int i = 0; i < SR_BLOCK_LANES; i++) {
        n_dot_l[i] = n[0][i] * l.x + n[1][i] * l.y + n[2][i] * l.z;
        k[i] = ambient + diffuse * shader_max(n_dot_l[i], 0.0f);
        to_eye[0][i] = eye.x - f[3][i];
        to_eye[1][i] = eye.y - f[4][i];
        to_eye[2][i] = eye.z - f[5][i];
    }
    shader_normalize_block(to_eye[0], to_eye[1], to_eye[2], toward);
    for (int i = 0; i < SR_BLOCK_LANES; i++) {
        toward[0][i] = l.x + toward[0][i];
        toward[1][i] = l.y + toward[1][i];
        toward[2][i] = l.z + toward[2][i];
    }
    shader_normalize_block(toward[0], toward[1], toward[2], half);
    uint32_t highlight = 0;
    for (int i = 0; i < SR_BLOCK_LANES; i++) {
        n_dot_h[i] = n[0][i] * half[0][i] + n[1][i] * half[1][i] + n[2][i] * half[2][i];
        highlight |= (uint32_t)(n_dot_l[i] > 0.0f && n_dot_h[i] > 0.0f) << i;
    }
    float power[SR_BLOCK_LANES] = {0};
    for (uint32_t lanes = highlight & in->mask; lanes; lanes &= lanes - 1) {
        int i = __builtin_ctz(lanes);
        power[i] = powf(n_dot_h[i], u->shininess);
    }
    const float albedo[3] = {u->albedo.x, u->albedo.y, u->albedo.z};
    const float specular[3] = {u->specular_color.x, u->specular_color.y, u->specular_color.z};
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < SR_BLOCK_LANES; i++) {
            float color = albedo[c] * k[i];
            out->color[c][i] = highlight >> i & 1u ? color + specular[c] * power[i] : color;
        }
    for (int i = 0; i < SR_BLOCK_LANES; i++)
        out->color[3][i] = u->opacity;
    return in->mask;
}

const sr_shader sr_shader_blinn_phong = {
    .name = "blinn_phong",
    .summary = "diffuse plus Blinn-Phong specular highlight",
    .program = {.name = "blinn_phong",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = blinn_phong_vertex,
                .fragment = blinn_phong_fragment,
                .fragment_block = blinn_phong_fragment_block,
                .varying_count = 6},
    .inputs = SR_SHADER_INPUT_NORMAL,
};
