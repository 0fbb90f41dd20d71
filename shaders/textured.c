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
    float k = shader_lambert_factor(u, shader_turns_normals(u, in->front_facing), in->varyings);
    out->color[0] = texel[0] * u->albedo.x * k;
    out->color[1] = texel[1] * u->albedo.y * k;
    out->color[2] = texel[2] * u->albedo.z * k;
    out->color[3] = texel[3] * u->opacity;
    return true;
}

/* The same per lane: the texture is sampled lane by lane (sr_texture_sample), the lighting and the
 * products vectorise. */
SHADER_BLOCK_CLONES static uint32_t textured_fragment_block(const sr_fragment_block_in *in, const void *uniforms,
                                                            sr_fragment_block_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    float texel[4][SR_BLOCK_LANES];
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            texel[c][i] = 1.0f;
    if (u->texture)
        for (uint32_t mask = in->mask; mask; mask &= mask - 1) {
            int i = __builtin_ctz(mask);
            float rgba[4];
            sr_texture_sample(u->texture, &u->sampler, in->varyings[3][i], in->varyings[4][i], rgba);
            for (int c = 0; c < 4; c++)
                texel[c][i] = rgba[c];
        }
    float k[SR_BLOCK_LANES];
    shader_lambert_factor_block(u, shader_turns_normals(u, in->front_facing), in->varyings, k);
    const float albedo[3] = {u->albedo.x, u->albedo.y, u->albedo.z}, opacity = u->opacity;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            out->color[c][i] = texel[c][i] * albedo[c] * k[i];
    for (int i = 0; i < SR_BLOCK_LANES; i++)
        out->color[3][i] = texel[3][i] * opacity;
    return in->mask;
}

const sr_shader sr_shader_textured = {
    .name = "textured",
    .summary = "texture x albedo, lambert lighting",
    .program = {.name = "textured",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = textured_vertex,
                .fragment = textured_fragment,
                .fragment_block = textured_fragment_block,
                .varying_count = 5},
    .inputs = SR_SHADER_INPUT_NORMAL | SR_SHADER_INPUT_UV | SR_SHADER_INPUT_TEXTURE,
};
