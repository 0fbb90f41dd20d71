/* tests/shader_test_helpers.h — what the built-in shaders' tests (tests/test_shaders*.c) share: meshes and
 * uniforms, the benchmark scene's light and lambert formula written here, running one vertex or
 * fragment function, transforms in double. Header-only, for tests. */
#ifndef SR_TESTS_SHADER_TEST_HELPERS_H
#define SR_TESTS_SHADER_TEST_HELPERS_H

#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <softrast/raster.h>
#include <softrast/scene.h>

#include <softrast/shaders.h>

/* ---- helpers ---------------------------------------------------------------------------- */

static const double PI = 3.14159265358979323846;

typedef struct dvec3 {
    double x, y, z;
} dvec3;

static inline dvec3 dv(double x, double y, double z)
{
    return (dvec3){x, y, z};
}
static inline double ddot(dvec3 a, dvec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline dvec3 dscale(dvec3 a, double s)
{
    return dv(a.x * s, a.y * s, a.z * s);
}
static inline dvec3 dadd(dvec3 a, dvec3 b)
{
    return dv(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline dvec3 dsub(dvec3 a, dvec3 b)
{
    return dv(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline dvec3 dnormalize(dvec3 a)
{
    return dscale(a, 1.0 / sqrt(ddot(a, a)));
}

/* The benchmark scene's light, computed here rather than taken from the defaults under test. */
static inline dvec3 bench_light(void)
{
    return dnormalize(dv(0.3, 0.5, 1.0));
}

/* The benchmark scene's lambert formula for one channel. */
static inline double lambert_expected(double albedo, dvec3 normal)
{
    double n_dot_l = ddot(dnormalize(normal), bench_light());
    return albedo * (0.2 + 0.8 * fmax(0.0, n_dot_l));
}

/* Runs a program's vertex function on one vertex. */
static inline void run_vertex(const sr_shader *shader, const sr_shader_uniforms *u, const sr_shader_vertex *v,
                              float clip[4], float varyings[SR_MAX_VARYINGS])
{
    memset(varyings, 0, SR_MAX_VARYINGS * sizeof(float));
    shader->program.vertex(v, u, clip, varyings);
}

/* Runs a program's fragment function with the given varyings; returns its keep/discard. */
static inline bool run_fragment(const sr_shader *shader, const sr_shader_uniforms *u, const float *varyings,
                                const float *barycentric, uint32_t primitive_id, float color[4])
{
    sr_fragment_in in = {.x = 0.5f,
                         .y = 0.5f,
                         .depth = 0.5f,
                         .varyings = varyings,
                         .barycentric = barycentric,
                         .primitive_id = primitive_id,
                         .front_facing = true};
    sr_fragment_out out = {.color = {-1, -1, -1, -1}, .depth = 0.5f};
    bool kept = shader->program.fragment(&in, u, &out);
    memcpy(color, out.color, sizeof out.color);
    return kept;
}

/* M * (p, 1) in double, from a float matrix. */
static inline void dtransform(const sr_mat4 *m, dvec3 p, double out[4])
{
    for (int row = 0; row < 4; row++)
        out[row] = (double)m->m[row] * p.x + (double)m->m[4 + row] * p.y + (double)m->m[8 + row] * p.z +
                   (double)m->m[12 + row];
}

#endif
