/* shaders/normals.c — the "normals" program: the renormalised world normal shown as a colour,
 * N * 0.5 + 0.5 (+X red, +Y green, +Z blue), the usual debugging view of normals. */
#include "shader_common.h"

static bool normals_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    /* sr_vec3_normalize maps a zero normal to zero, hence grey 0.5 rather than NaN. */
    sr_vec3 n = sr_vec3_normalize(sr_vec3_make(in->varyings[0], in->varyings[1], in->varyings[2]));
    out->color[0] = n.x * 0.5f + 0.5f;
    out->color[1] = n.y * 0.5f + 0.5f;
    out->color[2] = n.z * 0.5f + 0.5f;
    out->color[3] = u->opacity;
    return true;
}

SHADER_BLOCK_CLONES static uint32_t normals_fragment_block(const sr_fragment_block_in *in, const void *uniforms, sr_fragment_block_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    float n[3][SR_BLOCK_LANES];
    shader_normalize_block(in->varyings[0], in->varyings[1], in->varyings[2], n);
    const float opacity = u->opacity;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            out->color[c][i] = n[c][i] * 0.5f + 0.5f;
    for (int i = 0; i < SR_BLOCK_LANES; i++)
        out->color[3][i] = opacity;
    return in->mask;
}

const sr_shader sr_shader_normals = {
    .name = "normals",
    .summary = "world normal as colour (N * 0.5 + 0.5)",
    .program = {.name = "normals",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = shader_lit_vertex,
                .fragment = normals_fragment,
                .fragment_block = normals_fragment_block,
                .varying_count = 3},
    .inputs = SR_SHADER_INPUT_NORMAL,
};
