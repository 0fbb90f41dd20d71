/* shaders/wireframe.c — the "wireframe" program: triangle edges drawn from barycentric weights
 * in a single pass (the idea of Bærentzen et al., "Single-pass wireframe rendering", SIGGRAPH
 * 2006, without its screen-space distances: this pipeline has no derivatives). Barycentric b_i
 * is the distance to the edge opposite vertex i over that edge's altitude, so a constant
 * threshold gives lines a constant fraction of each triangle's size. Interiors are lit as by
 * the lambert program. */
#include "shader_common.h"

/* varyings: world normal (0..2), for the lit fill */
static bool wireframe_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    const float *b = in->barycentric;
    /* The pipeline fills barycentrics because the program asks; without them (a pipeline that
     * ignored uses_barycentrics) draw the fill rather than read NULL. */
    float nearest = b ? fminf(b[0], fminf(b[1], b[2])) : 1.0f;
    if (nearest < u->wireframe_width) {
        for (int i = 0; i < 4; i++)
            out->color[i] = u->wireframe_color[i];
        return true;
    }
    if (!u->wireframe_fill)
        return false;
    /* Lit like lambert, so the fill still shows the shape under a dense mesh. */
    float k = shader_lambert_factor(u, in->varyings);
    out->color[0] = u->albedo.x * k;
    out->color[1] = u->albedo.y * k;
    out->color[2] = u->albedo.z * k;
    out->color[3] = u->opacity;
    return true;
}

const sr_shader sr_shader_wireframe = {
    .name = "wireframe",
    .summary = "triangle edges (barycentric) over a lambert fill",
    .program = {.name = "wireframe",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = shader_lit_vertex,
                .fragment = wireframe_fragment,
                .varying_count = 3,
                .uses_barycentrics = true},
    .inputs = SR_SHADER_INPUT_NORMAL,
};
