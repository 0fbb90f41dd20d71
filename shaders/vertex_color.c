/* shaders/vertex_color.c — the "vertex_color" program: the vertex colours interpolated across
 * the triangle (perspective-correct), unlit. */
#include "shader_common.h"

static void vertex_color_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const sr_shader_vertex *v = vertex;
    shader_clip_position(uniforms, v->position, clip);
    for (int i = 0; i < 4; i++)
        varyings[i] = v->color[i];
}

static bool vertex_color_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    (void)uniforms;
    for (int i = 0; i < 4; i++)
        out->color[i] = in->varyings[i];
    return true;
}

SHADER_BLOCK_CLONES static uint32_t vertex_color_fragment_block(const sr_fragment_block_in *in, const void *uniforms,
                                            sr_fragment_block_out *out)
{
    (void)uniforms;
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            out->color[c][i] = in->varyings[c][i];
    return in->mask;
}

const sr_shader sr_shader_vertex_color = {
    .name = "vertex_color",
    .summary = "interpolated vertex colours, unlit",
    .program = {.name = "vertex_color",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = vertex_color_vertex,
                .fragment = vertex_color_fragment,
                .fragment_block = vertex_color_fragment_block,
                .varying_count = 4},
    .inputs = SR_SHADER_INPUT_COLOR,
};
