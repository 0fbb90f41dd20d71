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
    sr_vec3 l = u->light_direction;
    float n_dot_l = sr_vec3_dot(n, l);
    float k = u->ambient + u->diffuse * fmaxf(n_dot_l, 0.0f);
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

const sr_shader sr_shader_blinn_phong = {
    .name = "blinn_phong",
    .summary = "diffuse plus Blinn-Phong specular highlight",
    .program = {.name = "blinn_phong",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = blinn_phong_vertex,
                .fragment = blinn_phong_fragment,
                .varying_count = 6},
    .inputs = SR_SHADER_INPUT_NORMAL,
};
