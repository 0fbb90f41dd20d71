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

const sr_shader sr_shader_flat = {
    .name = "flat",
    .summary = "one unlit colour (albedo)",
    .program = {.name = "flat",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = flat_vertex,
                .fragment = flat_fragment,
                .varying_count = 0},
    .inputs = 0,
};
