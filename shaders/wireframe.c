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
    float nearest = b ? shader_min(b[0], shader_min(b[1], b[2])) : 1.0f;
    if (nearest < u->wireframe_width) {
        for (int i = 0; i < 4; i++)
            out->color[i] = u->wireframe_color[i];
        return true;
    }
    if (!u->wireframe_fill)
        return false;
    /* Lit like lambert, so the fill still shows the shape under a dense mesh. */
    float k = shader_lambert_factor(u, shader_turns_normals(u, in->front_facing), in->varyings);
    out->color[0] = u->albedo.x * k;
    out->color[1] = u->albedo.y * k;
    out->color[2] = u->albedo.z * k;
    out->color[3] = u->opacity;
    return true;
}

/* The same per lane: edges, fill and discards chosen lane by lane from vectors. */
SHADER_BLOCK_CLONES static uint32_t wireframe_fragment_block(const sr_fragment_block_in *in, const void *uniforms,
                                                             sr_fragment_block_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    const float width = u->wireframe_width;
    float k[SR_BLOCK_LANES];
    shader_lambert_factor_block(u, shader_turns_normals(u, in->front_facing), in->varyings, k);
    uint32_t edges = 0;
    if (in->barycentric) {
        const float *restrict b0 = in->barycentric[0], *restrict b1 = in->barycentric[1],
                              *restrict b2 = in->barycentric[2];
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            edges |= (uint32_t)(shader_min(b0[i], shader_min(b1[i], b2[i])) < width) << i;
    } else {
        edges = 1.0f < width ? 0xffu : 0u;
    }
    const float fill[4] = {u->albedo.x, u->albedo.y, u->albedo.z, u->opacity};
    for (int c = 0; c < 4; c++) {
        const float edge_color = u->wireframe_color[c];
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            out->color[c][i] = edges >> i & 1u ? edge_color : c < 3 ? fill[c] * k[i] : fill[3];
    }
    return u->wireframe_fill ? in->mask : in->mask & edges;
}

const sr_shader sr_shader_wireframe = {
    .name = "wireframe",
    .summary = "triangle edges (barycentric) over a lambert fill",
    .program = {.name = "wireframe",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = shader_lit_vertex,
                .fragment = wireframe_fragment,
                .fragment_block = wireframe_fragment_block,
                .varying_count = 3,
                .uses_barycentrics = true},
    .inputs = SR_SHADER_INPUT_NORMAL,
};
