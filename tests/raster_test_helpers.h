/* tests/raster_test_helpers.h — what the pipeline's tests (tests/test_raster*.c) share: hand-built
 * framebuffers, a counting vertex/fragment program, drawing in window coordinates, a seeded random
 * source and the check of one triangle against raster_reference.h. Header-only, for tests. */
#ifndef SR_TESTS_RASTER_TEST_HELPERS_H
#define SR_TESTS_RASTER_TEST_HELPERS_H

#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"
#include "raster_reference.h"

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                     */

static inline sr_framebuffer *fb_new(int width, int height, bool ids)
{
    sr_framebuffer *fb = calloc(1, sizeof *fb);
    cr_assert(fb);
    size_t count = (size_t)width * (size_t)height;
    fb->width = width;
    fb->height = height;
    fb->color = calloc(count, sizeof *fb->color);
    fb->depth = malloc(count * sizeof *fb->depth);
    cr_assert(fb->color && fb->depth);
    for (size_t i = 0; i < count; i++)
        fb->depth[i] = 1.0f;
    if (ids) {
        fb->ids = malloc(count * sizeof *fb->ids);
        cr_assert(fb->ids);
        for (size_t i = 0; i < count; i++)
            fb->ids[i] = SR_NO_ID;
    }
    return fb;
}

static inline void fb_fill(sr_framebuffer *fb, uint32_t color, float depth)
{
    size_t count = (size_t)fb->width * (size_t)fb->height;
    for (size_t i = 0; i < count; i++) {
        fb->color[i] = color;
        fb->depth[i] = depth;
        if (fb->ids)
            fb->ids[i] = SR_NO_ID;
    }
}

static inline void fb_delete(sr_framebuffer *fb)
{
    free(fb->color);
    free(fb->depth);
    free(fb->ids);
    free(fb);
}

static inline int red_at(const sr_framebuffer *fb, int x, int y)
{
    return (int)(fb->color[y * fb->width + x] & 0xffu);
}

static inline sr_renderer *renderer_new(void)
{
    sr_renderer *renderer = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(NULL, &renderer, &err), SR_OK, "%s", err.message);
    return renderer;
}

/* Per-pixel record written by the capturing fragment function. */
enum { CAP_VARYINGS = 0, CAP_BARY = 4, CAP_DEPTH = 7, CAP_FRONT = 8, CAP_ID = 9, CAP_CALLS = 10, CAP_SIZE = 11 };

typedef struct test_vertex {
    float position[4];   ///< clip position (use_matrix false) or world xyz (use_matrix true)
    float attributes[4]; ///< copied to the varyings
} test_vertex;

typedef struct test_uniforms {
    bool use_matrix;
    sr_mat4 matrix;
    int varying_count;
    bool world_varyings; ///< varyings 0..2 = world position
    float color[4];
    float *capture; ///< CAP_SIZE floats per pixel, or NULL
    int capture_width;
    int *vertex_calls;
    float discard_below_x; ///< discard fragments whose x is smaller
    float written_depth;   ///< depth written by depth_fragment
} test_uniforms;

static inline void test_vertex_fn(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const test_vertex *v = vertex;
    const test_uniforms *u = uniforms;
    if (u->use_matrix) {
        sr_vec4 c = sr_mat4_mul_vec4(u->matrix, (sr_vec4){v->position[0], v->position[1], v->position[2], 1.0f});
        clip[0] = c.x;
        clip[1] = c.y;
        clip[2] = c.z;
        clip[3] = c.w;
    } else {
        memcpy(clip, v->position, 4 * sizeof(float));
    }
    for (int i = 0; i < u->varying_count; i++)
        varyings[i] = u->world_varyings ? v->position[i] : v->attributes[i];
    if (u->vertex_calls)
        (*u->vertex_calls)++;
}

static inline bool test_fragment_fn(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const test_uniforms *u = uniforms;
    if (in->x < u->discard_below_x)
        return false;
    memcpy(out->color, u->color, sizeof out->color);
    if (u->capture) {
        float *c = u->capture + ((size_t)in->y * (size_t)u->capture_width + (size_t)in->x) * CAP_SIZE;
        for (int i = 0; i < u->varying_count && i < 4; i++)
            c[CAP_VARYINGS + i] = in->varyings[i];
        if (in->barycentric)
            for (int i = 0; i < 3; i++)
                c[CAP_BARY + i] = in->barycentric[i];
        c[CAP_DEPTH] = in->depth;
        c[CAP_FRONT] = in->front_facing ? 1.0f : 0.0f;
        c[CAP_ID] = (float)in->primitive_id;
        c[CAP_CALLS] += 1.0f;
    }
    return true;
}

static inline bool depth_fragment_fn(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const test_uniforms *u = uniforms;
    bool keep = test_fragment_fn(in, uniforms, out);
    out->depth = u->written_depth;
    return keep;
}

static inline sr_program program_for(const test_uniforms *u)
{
    return (sr_program){.name = "test",
                        .vertex = test_vertex_fn,
                        .fragment = test_fragment_fn,
                        .varying_count = u->varying_count,
                        .uniforms = u,
                        .vertex_size = sizeof(test_vertex)};
}

/* Uniforms of the coverage counter: every fragment adds 1/255 to red (additive blend, depth
 * ALWAYS, no depth writes), so red = number of times the pixel was drawn. */
static inline test_uniforms counter_uniforms(void)
{
    return (test_uniforms){.color = {1.0f / 255.0f, 0.0f, 0.0f, 1.0f}};
}

static const sr_render_state counter_state = {
    .cull = SR_CULL_NONE, .depth_func = SR_DEPTH_ALWAYS, .no_depth_write = true, .blend = SR_BLEND_ADDITIVE};

static inline sr_status draw(sr_renderer *renderer, sr_framebuffer *fb, const test_vertex *vertices,
                             size_t vertex_count, const uint32_t *indices, size_t index_count,
                             const sr_program *program, sr_render_state state, uint32_t primitive_id_base)
{
    sr_error err;
    sr_draw_desc desc = {
        .vertices = vertices,
        .vertex_count = vertex_count,
        .vertex_stride = sizeof(test_vertex),
        .indices = indices,
        .index_count = index_count,
        .program = program,
        .state = state,
        .primitive_id_base = primitive_id_base,
    };
    sr_status status = sr_draw_triangles(renderer, fb, &desc, &err);
    cr_assert_eq(status, SR_OK, "%s", err.message);
    return status;
}

/* A vertex at window position (x, y) (pixels, y down) with w = 1. */
static inline test_vertex window_vertex(double x, double y, double z, int width, int height)
{
    test_vertex v = {{(float)(2.0 * x / width - 1.0), (float)(1.0 - 2.0 * y / height), (float)z, 1.0f}, {0}};
    return v;
}

static inline uint64_t rng_next(uint64_t *state)
{
    // xorshift64*
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

static inline double rng_uniform(uint64_t *state)
{
    return (double)(rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Draws one triangle given in fixed point with the counter and compares every pixel with the
 * reference. */
static inline void check_against_reference(sr_renderer *renderer, sr_framebuffer *fb, const int64_t x[3],
                                           const int64_t y[3])
{
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    test_vertex v[3];
    for (int k = 0; k < 3; k++)
        v[k] = window_vertex((double)x[k] / 256.0, (double)y[k] / 256.0, 0.5, fb->width, fb->height);
    fb_fill(fb, 0, 1.0f);
    draw(renderer, fb, v, 3, NULL, 3, &program, counter_state, 0);
    for (int py = 0; py < fb->height; py++)
        for (int px = 0; px < fb->width; px++) {
            int expected = reference_fixed_covers(x, y, px, py) ? 1 : 0;
            cr_assert_eq(red_at(fb, px, py), expected,
                         "pixel (%d, %d): drawn %d times, expected %d; triangle (%lld %lld) (%lld %lld) (%lld %lld) "
                         "in 1/256 px",
                         px, py, red_at(fb, px, py), expected, (long long)x[0], (long long)y[0], (long long)x[1],
                         (long long)y[1], (long long)x[2], (long long)y[2]);
        }
}

/* UV sphere with shared vertices (single pole vertices, seam vertices shared through indices),
 * triangles counter-clockwise seen from outside. */
static inline size_t make_sphere(double cx, double cy, double cz, double radius, int slices, int stacks,
                                 test_vertex **vertices_out, uint32_t **indices_out, size_t *vertex_count)
{
    size_t count = 2 + (size_t)slices * (size_t)(stacks - 1);
    test_vertex *vertices = calloc(count, sizeof *vertices);
    uint32_t *indices = calloc((size_t)slices * (size_t)stacks * 6, sizeof *indices);
    for (int j = 1; j < stacks; j++)
        for (int i = 0; i < slices; i++) {
            double theta = SR_PI * j / stacks, phi = 2.0 * SR_PI * i / slices;
            test_vertex *v = &vertices[1 + (size_t)(j - 1) * (size_t)slices + (size_t)i];
            v->position[0] = (float)(cx + radius * sin(theta) * cos(phi));
            v->position[1] = (float)(cy + radius * cos(theta));
            v->position[2] = (float)(cz - radius * sin(theta) * sin(phi));
        }
    vertices[0].position[0] = (float)cx;
    vertices[0].position[1] = (float)(cy + radius);
    vertices[0].position[2] = (float)cz;
    vertices[count - 1].position[0] = (float)cx;
    vertices[count - 1].position[1] = (float)(cy - radius);
    vertices[count - 1].position[2] = (float)cz;
#define RING(j, i) ((uint32_t)(1 + ((j)-1) * slices + ((i) % slices)))
    size_t n = 0;
    for (int i = 0; i < slices; i++) {
        uint32_t top[3] = {0, RING(1, i), RING(1, i + 1)};
        uint32_t bottom[3] = {(uint32_t)(count - 1), RING(stacks - 1, i + 1), RING(stacks - 1, i)};
        memcpy(indices + n, top, sizeof top);
        n += 3;
        memcpy(indices + n, bottom, sizeof bottom);
        n += 3;
        for (int j = 1; j + 1 < stacks; j++) {
            uint32_t quad[6] = {RING(j, i), RING(j + 1, i),     RING(j + 1, i + 1),
                                RING(j, i), RING(j + 1, i + 1), RING(j, i + 1)};
            memcpy(indices + n, quad, sizeof quad);
            n += 6;
        }
    }
#undef RING
    *vertices_out = vertices;
    *indices_out = indices;
    *vertex_count = count;
    return n;
}

static inline double segment_distance(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, length2 = dx * dx + dy * dy;
    double t = length2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / length2 : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(px - (ax + t * dx), py - (ay + t * dy));
}

typedef struct camera {
    double tan_half_fov, aspect, near_z, far_z;
    int width, height;
} camera;

/* Direction of the ray from the eye (origin, looking down -Z) through the centre of pixel
 * (px, py), offset by (ox, oy) pixels: computed from the camera's definition, not its matrix. */
static inline void pixel_ray(const camera *cam, double px, double py, double direction[3])
{
    double nx = (px + 0.5) / cam->width * 2 - 1, ny = 1 - (py + 0.5) / cam->height * 2;
    direction[0] = nx * cam->tan_half_fov * cam->aspect;
    direction[1] = ny * cam->tan_half_fov;
    direction[2] = -1.0;
}

/* Möller–Trumbore in double: hit distance along `direction` (as a multiple of it) and the
 * barycentric weights of the three corners; false when the ray misses. */
static inline bool ray_triangle(const double direction[3], const float p0[3], const float p1[3], const float p2[3],
                                double *t_out, double weights[3])
{
    double e1[3], e2[3], pv[3], tv[3], qv[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)p1[k] - p0[k];
        e2[k] = (double)p2[k] - p0[k];
        tv[k] = -(double)p0[k];
    }
    pv[0] = direction[1] * e2[2] - direction[2] * e2[1];
    pv[1] = direction[2] * e2[0] - direction[0] * e2[2];
    pv[2] = direction[0] * e2[1] - direction[1] * e2[0];
    double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (fabs(det) < 1e-15)
        return false;
    double inv = 1.0 / det;
    double u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) * inv;
    qv[0] = tv[1] * e1[2] - tv[2] * e1[1];
    qv[1] = tv[2] * e1[0] - tv[0] * e1[2];
    qv[2] = tv[0] * e1[1] - tv[1] * e1[0];
    double v = (direction[0] * qv[0] + direction[1] * qv[1] + direction[2] * qv[2]) * inv;
    double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) * inv;
    weights[0] = 1 - u - v;
    weights[1] = u;
    weights[2] = v;
    *t_out = t;
    return u >= 0 && v >= 0 && u + v <= 1 && t > 0;
}

/* Is the pixel's ray hitting the visible part of the triangle (between the near and far planes;
 * direction has z = -1 so t is the view depth)? Undecided (returns -1) when nudging the sample by
 * 0.01 px changes the answer: the centre is too close to the outline to compare. */
static inline int visible_hit(const camera *cam, int px, int py, const float *p[3], double *t, double weights[3])
{
    const double nudges[5][2] = {{0, 0}, {0.01, 0}, {-0.01, 0}, {0, 0.01}, {0, -0.01}};
    int result = -1;
    for (int n = 0; n < 5; n++) {
        double direction[3], tn = 0.0, w[3] = {0.0, 0.0, 0.0};
        pixel_ray(cam, px + nudges[n][0], py + nudges[n][1], direction);
        bool hit = ray_triangle(direction, p[0], p[1], p[2], &tn, w) && tn >= cam->near_z && tn <= cam->far_z;
        if (n == 0) {
            result = hit;
            *t = tn;
            memcpy(weights, w, sizeof w);
        } else if (hit != (result == 1)) {
            return -1;
        }
    }
    return result;
}

static inline void draw_lines(sr_renderer *renderer, sr_framebuffer *fb, const sr_line_vertex *v, size_t count,
                              sr_mat4 view_projection, bool depth_test)
{
    sr_error err;
    sr_line_desc desc = {
        .vertices = v, .vertex_count = count, .view_projection = view_projection, .depth_test = depth_test};
    cr_assert_eq(sr_draw_lines(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
}

static inline int count_written(const sr_framebuffer *fb)
{
    int n = 0;
    for (int i = 0; i < fb->width * fb->height; i++)
        n += fb->color[i] != 0;
    return n;
}

#endif
