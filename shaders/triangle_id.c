/* shaders/triangle_id.c — the "triangle_id" program: a distinct colour per primitive id, to see
 * tessellation, triangle order and which draw wrote a pixel. (The exact id goes to the
 * framebuffer's id buffer; this is the picture of it.) */
#include "shader_common.h"

/* An avalanching 32-bit integer hash (the "lowbias32" constants found by Chris Wellons' hash
 * prospector): neighbouring ids differ in about half of the output bits, so neighbouring
 * triangles get unrelated colours. */
static uint32_t hash_id(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void sr_shader_id_color(uint32_t primitive_id, float rgb[3])
{
    uint32_t h = hash_id(primitive_id);
    /* Three bytes of the hash, each mapped to [0.25, 1] so no triangle is lost against a dark
     * background. */
    for (int i = 0; i < 3; i++)
        rgb[i] = 0.25f + 0.75f * (float)((h >> (8 * i)) & 0xffu) / 255.0f;
}

static void triangle_id_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    (void)varyings;
    const sr_shader_vertex *v = vertex;
    shader_clip_position(uniforms, v->position, clip);
}

static bool triangle_id_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    (void)uniforms;
    sr_shader_id_color(in->primitive_id, out->color);
    out->color[3] = 1.0f;
    return true;
}

SHADER_BLOCK_CLONES static uint32_t triangle_id_fragment_block(const sr_fragment_block_in *in, const void *uniforms,
                                           sr_fragment_block_out *out)
{
    (void)uniforms;
    float rgb[3];
    sr_shader_id_color(in->primitive_id, rgb);
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            out->color[c][i] = c < 3 ? rgb[c] : 1.0f;
    return in->mask;
}

const sr_shader sr_shader_triangle_id = {
    .name = "triangle_id",
    .summary = "a distinct colour per triangle (hash of the primitive id)",
    .program = {.name = "triangle_id",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = triangle_id_vertex,
                .fragment = triangle_id_fragment,
                .fragment_block = triangle_id_fragment_block,
                .varying_count = 0},
    .inputs = 0,
};
