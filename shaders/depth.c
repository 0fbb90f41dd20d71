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
    float grey = 1.0f - fminf(fmaxf(t, 0.0f), 1.0f);
    out->color[0] = grey;
    out->color[1] = grey;
    out->color[2] = grey;
    out->color[3] = u->opacity;
    return true;
}

const sr_shader sr_shader_depth = {
    .name = "depth",
    .summary = "linear view distance as grey (near white, far black)",
    .program = {.name = "depth",
                .vertex_size = sizeof(sr_shader_vertex),
                .vertex = depth_vertex,
                .fragment = depth_fragment,
                .varying_count = 1},
    .inputs = 0,
};
