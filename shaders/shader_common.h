/* shaders/shader_common.h — private helpers shared by the built-in programs (not installed):
 * the object-to-clip and object-to-world transforms every vertex function starts with, and
 * the lighting term of BENCH_SCENE.md. Knows only shaders.h. */
#ifndef SR_SHADER_COMMON_H
#define SR_SHADER_COMMON_H

#include <softrast/shaders.h>

/* clip = model_view_projection * (p, 1), written out so that no sr_vec4 temporaries are built. */
static inline void shader_clip_position(const sr_shader_uniforms *u, sr_vec3 p, float clip[4])
{
    const float *m = u->model_view_projection.m;
    clip[0] = m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12];
    clip[1] = m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13];
    clip[2] = m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14];
    clip[3] = m[3] * p.x + m[7] * p.y + m[11] * p.z + m[15];
}

/* World normal = normal matrix * n, written into three varyings. Not normalised here: the
 * fragment renormalises after interpolation anyway (BENCH_SCENE.md). */
static inline void shader_world_normal(const sr_shader_uniforms *u, sr_vec3 n, float out[3])
{
    const float *m = u->normal_matrix.m;
    out[0] = m[0] * n.x + m[4] * n.y + m[8] * n.z;
    out[1] = m[1] * n.x + m[5] * n.y + m[9] * n.z;
    out[2] = m[2] * n.x + m[6] * n.y + m[10] * n.z;
}

/* The vertex function of the lit programs (lambert, normals, wireframe): clip
 * position and the world normal in varyings 0..2. */
static inline void shader_lit_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const sr_shader_vertex *v = vertex;
    shader_clip_position(uniforms, v->position, clip);
    shader_world_normal(uniforms, v->normal, varyings);
}

/* The lambert factor ambient + diffuse * max(0, dot(N, L)) with N = normal / |normal|.
 * Normalisation cannot change the sign of the dot product, so the square root is only paid
 * where the light term is used; a zero normal gives ambient only. */
static inline float shader_lambert_factor(const sr_shader_uniforms *u, const float normal[3])
{
    sr_vec3 l = u->light_direction;
    float n_dot_l = normal[0] * l.x + normal[1] * l.y + normal[2] * l.z;
    if (!(n_dot_l > 0.0f))
        return u->ambient;
    float length_squared = normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2];
    return u->ambient + u->diffuse * (n_dot_l / sqrtf(length_squared));
}

#endif
