/* shaders/flat.c — the "flat" program: one unlit colour (albedo, opacity) for every fragment.
 * The cheapest program: no varyings. */
#include "shader_common.h"

static void flat_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    (void)varyings;
    const sr_shader_vertex *v = vertex;
    shader_clip_position(uniforms, v->position, clip);
}

static bool flat_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    (void)in;
    const sr_shader_uniforms *u = uniforms;
    out->color[0] = u->albedo.x;
    out->color[1] = u->albedo.y;
    out->color[2] = u->albedo.z;
    out->color[3] = u->opacity;
    return true;
}

SHADER_BLOCK_CLONES static uint32_t flat_fragment_block(const sr_fragment_block_in *in, const void *uniforms, sr_fragment_block_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    const float color[4] = {u->albedo.x, u->albedo.y, u->albedo.z, u->opacity};
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            out->color[c][i] = color[c];
    return in->mask;
}

const sr_shader sr_shader_flat = {
    .name = "flat",
    .summary = "one unlit colour (albedo)",
    .program = {.name = "flat",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = flat_vertex,
                .fragment = flat_fragment,
                .fragment_block = flat_fragment_block,
                .varying_count = 0},
    .inputs = 0,
};
