/* shaders/depth.c — the "depth" program: linear view distance as grey, white at depth_near and
 * black at depth_far. The view distance -z_view is affine in object space, so the pipeline's
 * perspective-correct interpolation of it is exact; the window depth z/w would crowd a whole
 * scene into a sliver just below 1.0. */
#include "shader_common.h"

static void depth_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const sr_shader_uniforms *u = uniforms;
    const sr_shader_vertex *v = vertex;
    shader_clip_position(u, v->position, clip);
    /* Row 2 of model_view gives z_view; the camera looks down -Z, so distance is -z_view. */
    const float *m = u->model_view.m;
    varyings[0] = -(m[2] * v->position.x + m[6] * v->position.y + m[10] * v->position.z + m[14]);
}

static bool depth_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    float range = u->depth_far - u->depth_near;
    float t = range > 0.0f ? (in->varyings[0] - u->depth_near) / range : 0.0f;
    float grey = 1.0f - shader_min(shader_max(t, 0.0f), 1.0f);
    out->color[0] = grey;
    out->color[1] = grey;
    out->color[2] = grey;
    out->color[3] = u->opacity;
    return true;
}

SHADER_BLOCK_CLONES static uint32_t depth_fragment_block(const sr_fragment_block_in *in, const void *uniforms, sr_fragment_block_out *out)
{
    const sr_shader_uniforms *u = uniforms;
    const float near_distance = u->depth_near, range = u->depth_far - u->depth_near, opacity = u->opacity;
    const float *restrict distance = in->varyings[0];
    float grey[SR_BLOCK_LANES];
    for (int i = 0; i < SR_BLOCK_LANES; i++) {
        float t = range > 0.0f ? (distance[i] - near_distance) / range : 0.0f;
        grey[i] = 1.0f - shader_min(shader_max(t, 0.0f), 1.0f);
    }
    for (int i = 0; i < SR_BLOCK_LANES; i++) {
        out->color[0][i] = grey[i];
        out->color[1][i] = grey[i];
        out->color[2][i] = grey[i];
        out->color[3][i] = opacity;
    }
    return in->mask;
}

const sr_shader sr_shader_depth = {
    .name = "depth",
    .summary = "linear view distance as grey (near white, far black)",
    .program = {.name = "depth",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = depth_vertex,
                .fragment = depth_fragment,
                .fragment_block = depth_fragment_block,
                .varying_count = 1},
    .inputs = 0,
};
