/* shaders/textured.c — the "textured" program: a texture sampled at the interpolated uv,
 * modulated by the albedo and lit like lambert. Without a texture it samples opaque white. */
#include "shader_common.h"

/* varyings: world normal (0..2), uv (3..4) */
static void textured_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const sr_shader_vertex *v = vertex;
    shader_clip_position(uniforms, v->position, clip);
    shader_world_normal(uniforms, v->normal, varyings);
    varyings[3] = v->uv.x;
    varyings[4] = v->uv.y;
}

static bool textured_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    float texel[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    if (u->texture)
        sr_texture_sample(u->texture, &u->sampler, in->varyings[3], in->varyings[4], texel);
    float k = shader_lambert_factor(u, in->varyings);
    out->color[0] = texel[0] * u->albedo.x * k;
    out->color[1] = texel[1] * u->albedo.y * k;
    out->color[2] = texel[2] * u->albedo.z * k;
    out->color[3] = texel[3] * u->opacity;
    return true;
}

const sr_shader sr_shader_textured = {
    .name = "textured",
    .summary = "texture x albedo, lambert lighting",
    .program = {.name = "textured",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = textured_vertex,
                .fragment = textured_fragment,
                .varying_count = 5},
    .inputs = SR_SHADER_INPUT_NORMAL | SR_SHADER_INPUT_UV | SR_SHADER_INPUT_TEXTURE,
};
