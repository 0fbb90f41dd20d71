/* shaders/shader_common.h — private helpers shared by the built-in programs (not installed):
 * the object-to-clip and object-to-world transforms every vertex function starts with, and
 * the lighting term of the README's benchmark scene. Knows only shaders.h. */
#ifndef SR_SHADER_COMMON_H
#define SR_SHADER_COMMON_H

#include <softrast/shaders.h>

/* The block forms of the built-in programs are plain loops over the 8 lanes that the compiler
 * vectorises. A build for generic x86-64 that dispatches at run time (meson.build) compiles
 * each of them twice, for SSE2 and for AVX2 (GCC/Clang target clones: the loader picks the
 * clone the processor runs, once). Both round every lane alike (no FMA: meson.build), so they
 * give the same bits. */
#if defined(SR_ISA_DISPATCH) && defined(__x86_64__) && !defined(__AVX2__) && (defined(__GNUC__) || defined(__clang__))
#define SHADER_BLOCK_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SHADER_BLOCK_CLONES
#endif

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
 * fragment renormalises after interpolation anyway (the README's benchmark scene). */
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

/* fmaxf and fminf as glibc computes them — the other operand when one is NaN, the first on a tie
 * (so fmaxf(-0, +0) is -0) — written as comparisons, which compilers vectorise (they do not
 * vectorise the libm calls), so that a program's block form and its one-fragment form use the
 * very same operations. */
static inline float shader_max(float a, float b)
{
    return a >= b || b != b ? a : b;
}

static inline float shader_min(float a, float b)
{
    return a <= b || b != b ? a : b;
}

/* sr_vec3_normalize on each lane: (x, y, z)[i] / |(x, y, z)[i]|, zero for a zero or non-finite
 * length, written into out[0..2][i]. */
static inline void shader_normalize_block(const float *restrict x, const float *restrict y, const float *restrict z,
                                          float out[3][SR_BLOCK_LANES])
{
    float *restrict ox = out[0], *restrict oy = out[1], *restrict oz = out[2];
    for (int i = 0; i < SR_BLOCK_LANES; i++) {
        float length = sqrtf(x[i] * x[i] + y[i] * y[i] + z[i] * z[i]);
        bool usable = length > 0.0f && isfinite(length);
        float scale = 1.0f / length;
        ox[i] = usable ? x[i] * scale : 0.0f;
        oy[i] = usable ? y[i] * scale : 0.0f;
        oz[i] = usable ? z[i] * scale : 0.0f;
    }
}

/* Two-sided lighting (u->two_sided) turns a normal round where the surface is seen from behind:
 * on a back-facing triangle whose interpolated normal faces away from the viewer, along the
 * camera's view axis (the third row of the view matrix). Both tests: the winding alone (OpenGL's
 * and VTK's rule) would darken the triangles scans wind the other way under normals that face
 * the camera; the normal alone would light up the far side of smooth normals near silhouettes
 * (a smooth-shaded cube's corners). */
static inline bool shader_turns_normals(const sr_shader_uniforms *u, bool front_facing)
{
    return u->two_sided && !front_facing;
}

static inline sr_vec3 shader_view_axis(const sr_shader_uniforms *u)
{
    return sr_vec3_make(u->view.m[2], u->view.m[6], u->view.m[10]);
}

/* The lambert factor ambient + diffuse * max(0, dot(N, L)) with N = normal / |normal|, N.L
 * negated where two-sided lighting turns N (`turn` = shader_turns_normals; -(N.L) is exactly
 * (-N).L). Normalisation cannot change the sign of the dot product, so the square root is only
 * paid where the light term is used; a zero normal gives ambient only. */
static inline float shader_lambert_factor(const sr_shader_uniforms *u, bool turn, const float normal[3])
{
    sr_vec3 l = u->light_direction;
    float n_dot_l = normal[0] * l.x + normal[1] * l.y + normal[2] * l.z;
    if (turn) {
        sr_vec3 v = shader_view_axis(u);
        if (normal[0] * v.x + normal[1] * v.y + normal[2] * v.z < 0.0f)
            n_dot_l = -n_dot_l;
    }
    if (!(n_dot_l > 0.0f))
        return u->ambient;
    float length_squared = normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2];
    return u->ambient + u->diffuse * (n_dot_l / sqrtf(length_squared));
}

/* shader_lambert_factor on each lane of a block: the same operations, written so that compilers
 * vectorise the loop (the square root and the division are computed on every lane and kept only
 * where N.L > 0; IEEE square roots and divisions round the same in vector and scalar form, so
 * every lane gets the scalar function's bits). `normal` is the block's varyings 0..2, `turn`
 * shader_turns_normals of the block's triangle. */
static inline void shader_lambert_factor_block(const sr_shader_uniforms *u, bool turn,
                                               const float (*normal)[SR_BLOCK_LANES], float factor[SR_BLOCK_LANES])
{
    const float lx = u->light_direction.x, ly = u->light_direction.y, lz = u->light_direction.z;
    const float ambient = u->ambient, diffuse = u->diffuse;
    const float *restrict nx = normal[0], *restrict ny = normal[1], *restrict nz = normal[2];
    float lit[SR_BLOCK_LANES];
    if (turn) { // a loop of its own: the usual loop (the benchmark's) stays as it was
        const sr_vec3 v = shader_view_axis(u);
        for (int i = 0; i < SR_BLOCK_LANES; i++) {
            float n_dot_l = nx[i] * lx + ny[i] * ly + nz[i] * lz;
            float facing = nx[i] * v.x + ny[i] * v.y + nz[i] * v.z;
            n_dot_l = facing < 0.0f ? -n_dot_l : n_dot_l;
            float length_squared = nx[i] * nx[i] + ny[i] * ny[i] + nz[i] * nz[i];
            float k = ambient + diffuse * (n_dot_l / sqrtf(length_squared));
            lit[i] = n_dot_l > 0.0f ? k : ambient;
        }
        for (int i = 0; i < SR_BLOCK_LANES; i++)
            factor[i] = lit[i];
        return;
    }
    for (int i = 0; i < SR_BLOCK_LANES; i++) {
        float n_dot_l = nx[i] * lx + ny[i] * ly + nz[i] * lz;
        float length_squared = nx[i] * nx[i] + ny[i] * ny[i] + nz[i] * nz[i];
        float k = ambient + diffuse * (n_dot_l / sqrtf(length_squared));
        lit[i] = n_dot_l > 0.0f ? k : ambient;
    }
    for (int i = 0; i < SR_BLOCK_LANES; i++)
        factor[i] = lit[i];
}

/* out->color[0..3][lane] = (r, g, b, a) * (factor, factor, factor, 1) for every lane. */
static inline void shader_write_block(sr_fragment_block_out *out, sr_vec3 rgb, float alpha,
                                      const float factor[SR_BLOCK_LANES])
{
    float *restrict red = out->color[0], *restrict green = out->color[1], *restrict blue = out->color[2];
    float *restrict opacity = out->color[3];
    for (int i = 0; i < SR_BLOCK_LANES; i++) {
        red[i] = rgb.x * factor[i];
        green[i] = rgb.y * factor[i];
        blue[i] = rgb.z * factor[i];
        opacity[i] = alpha;
    }
}

#endif
