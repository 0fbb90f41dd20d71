/* shaders/vertex_color_lit.c — the "vertex_color_lit" program: the interpolated vertex colour
 * used as the albedo of lambert lighting, colour = vertex RGB * albedo * (ambient + diffuse *
 * max(0, N.L)). A mesh with vertex colours (OBJ `v x y z r g b`) is shown with it, so its
 * colours appear with the shape's shading, as model viewers show them. */
#include "shader_common.h"

/* varyings: world normal (0..2), colour (3..6) */
static void vertex_color_lit_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const sr_shader_vertex *v = vertex;
    shader_clip_position(uniforms, v->position, clip);
    shader_world_normal(uniforms, v->normal, varyings);
    for (int i = 0; i < 4; i++)
        varyings[3 + i] = v->color[i];
}

static bool vertex_color_lit_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    const float *f = in->varyings;
    float k = shader_lambert_factor(u, shader_turns_normals(u, in->front_facing), f);
    out->color[0] = f[3] * u->albedo.x * k;
    out->color[1] = f[4] * u->albedo.y * k;
    out->color[2] = f[5] * u->albedo.z * k;
    out->color[3] = f[6] * u->opacity;
    return true;
}

/* The same per lane (vectorised by the compiler), with the same products in the same order. */
SHADER_BLOCK_CLONES static uint32_t vertex_color_lit_fragment_block(const sr_fragment_block_in *in,
                                                                    const void *uniforms, sr_fragment_block_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    const float(*f)[SR_BLOCK_LANES] = in->varyings;
    float k[SR_BLOCK_LANES];
    shader_lambert_factor_block(u, shader_turns_normals(u, in->front_facing), f, k);
    const float albedo[3] = {u->albedo.x, u->albedo.y, u->albedo.z}, opacity = u->opacity;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            out->color[c][i] = f[3 + c][i] * albedo[c] * k[i];
    for (int i = 0; i < SR_BLOCK_LANES; i++)
        out->color[3][i] = f[6][i] * opacity;
    return in->mask;
}

const sr_shader sr_shader_vertex_color_lit = {
    .name = "vertex_color_lit",
    .summary = "vertex colours x albedo, lambert lighting (meshes with colours)",
    .program = {.name = "vertex_color_lit",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = vertex_color_lit_vertex,
                .fragment = vertex_color_lit_fragment,
                .fragment_block = vertex_color_lit_fragment_block,
                .varying_count = 7},
    .inputs = SR_SHADER_INPUT_NORMAL | SR_SHADER_INPUT_COLOR,
};
