/* shaders/lambert.c — the "lambert" program of the benchmark scene (the README's benchmark scene):
 * colour = albedo * (0.2 + 0.8 * max(0, dot(N, L))), N the interpolated, renormalised world
 * normal. It is the hot path of `softrast bench raster`: three varyings (the normal) and nothing
 * computed that the formula does not use. */
#include "shader_common.h"

static bool lambert_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    float k = shader_lambert_factor(u, shader_turns_normals(u, in->front_facing), in->varyings);
    out->color[0] = u->albedo.x * k;
    out->color[1] = u->albedo.y * k;
    out->color[2] = u->albedo.z * k;
    out->color[3] = u->opacity;
    return true;
}

/* The same per lane, a block at a time (vectorised by the compiler). */
SHADER_BLOCK_CLONES static uint32_t lambert_fragment_block(const sr_fragment_block_in *in, const void *uniforms,
                                                           sr_fragment_block_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    float k[SR_BLOCK_LANES];
    shader_lambert_factor_block(u, shader_turns_normals(u, in->front_facing), in->varyings, k);
    shader_write_block(out, u->albedo, u->opacity, k);
    return in->mask;
}

const sr_shader sr_shader_lambert = {
    .name = "lambert",
    .summary = "diffuse lighting (the default; the benchmark scene's)",
    .program = {.name = "lambert",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = shader_lit_vertex,
                .fragment = lambert_fragment,
                .fragment_block = lambert_fragment_block,
                .varying_count = 3},
    .inputs = SR_SHADER_INPUT_NORMAL,
};
