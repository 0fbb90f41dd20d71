/* tests/raster_blocks_test_helpers.h — what the tests of shading in blocks (tests/test_raster_blocks*.c) share: the
 * scenes' geometry, how a frame is drawn (form, fill variant, threads) in every render state, and
 * the bit-for-bit comparison of frames. Header-only, for tests. */
#ifndef SR_TESTS_RASTER_BLOCKS_TEST_HELPERS_H
#define SR_TESTS_RASTER_BLOCKS_TEST_HELPERS_H

#include <criterion/criterion.h>

#include <softrast/raster.h>
#include <softrast/shaders.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Geometry                                                                                    */

typedef struct geometry {
    sr_shader_vertex *vertices;
    size_t vertex_count, vertex_capacity;
    uint32_t *indices;
    size_t index_count, index_capacity;
} geometry;

static inline uint32_t add_vertex(geometry *g, sr_vec3 position, sr_vec3 normal, sr_vec2 uv, const float color[4])
{
    if (g->vertex_count == g->vertex_capacity) {
        g->vertex_capacity = g->vertex_capacity ? 2 * g->vertex_capacity : 1024;
        g->vertices = realloc(g->vertices, g->vertex_capacity * sizeof *g->vertices);
        cr_assert(g->vertices);
    }
    sr_shader_vertex *v = &g->vertices[g->vertex_count];
    *v = (sr_shader_vertex){.position = position, .normal = normal, .uv = uv};
    memcpy(v->color, color, sizeof v->color);
    return (uint32_t)g->vertex_count++;
}

static inline void add_triangle(geometry *g, uint32_t a, uint32_t b, uint32_t c)
{
    if (g->index_count + 3 > g->index_capacity) {
        g->index_capacity = g->index_capacity ? 2 * g->index_capacity : 3072;
        g->indices = realloc(g->indices, g->index_capacity * sizeof *g->indices);
        cr_assert(g->indices);
    }
    g->indices[g->index_count++] = a;
    g->indices[g->index_count++] = b;
    g->indices[g->index_count++] = c;
}

/* A bumpy sphere: normals off the radial direction, uvs beyond [0, 1] (wrapping), colours with
 * varying alpha. Seen from the camera at the origin both windings occur (front and back). */
static inline void add_sphere(geometry *g, sr_vec3 centre, float radius, int slices, int stacks)
{
    uint32_t first = (uint32_t)g->vertex_count;
    for (int j = 0; j <= stacks; j++)
        for (int i = 0; i <= slices; i++) {
            float theta = (float)SR_PI * (float)j / (float)stacks, phi = 2.0f * (float)SR_PI * (float)i / (float)slices;
            sr_vec3 direction = {sinf(theta) * cosf(phi), cosf(theta), -sinf(theta) * sinf(phi)};
            float r = radius * (1.0f + 0.06f * sinf(5.0f * phi) * sinf(3.0f * theta));
            sr_vec3 normal = sr_vec3_add(direction, (sr_vec3){0.3f * sinf(7.0f * phi), 0.2f * cosf(4.0f * theta), 0});
            float color[4] = {0.5f + 0.5f * sinf(phi), 0.5f + 0.5f * cosf(3.0f * theta), (float)i / (float)slices,
                              0.3f + 0.7f * (float)j / (float)stacks};
            add_vertex(g, sr_vec3_add(centre, sr_vec3_scale(direction, r)), normal,
                       (sr_vec2){3.0f * (float)i / (float)slices - 1.0f, 2.5f * (float)j / (float)stacks - 0.7f},
                       color);
        }
    for (int j = 0; j < stacks; j++)
        for (int i = 0; i < slices; i++) {
            uint32_t a = first + (uint32_t)(j * (slices + 1) + i), b = a + 1, c = a + (uint32_t)(slices + 1), d = c + 1;
            add_triangle(g, a, c, b);
            add_triangle(g, b, c, d);
        }
}

/* The scene: a sphere of small triangles, a far one of tiny (sub-pixel) triangles, and large
 * triangles: crossing the near plane (clipped), reaching far beyond the guard band, back-facing,
 * one with zero normals (the shaders' zero-length paths), one covering the view behind. */
static inline geometry build_scene(void)
{
    geometry g = {0};
    add_sphere(&g, (sr_vec3){0.15f, -0.1f, -3.0f}, 1.1f, 36, 26);
    add_sphere(&g, (sr_vec3){-1.6f, 1.0f, -9.0f}, 0.35f, 30, 20);
    const float large[6][3][3] = {
        {{-4, -3, 1.0f}, {5, -2, -8}, {0.5f, 4, -2}},              // crosses the near plane
        {{-1e5f, -1e5f, -40}, {1e5f, -1e5f, -40}, {0, 1e5f, -40}}, // far outside the guard band
        {{-3, 2, -5}, {3, 2, -5}, {0, -3, -5}},                    // clockwise seen from the camera
        {{-2, -2, -2.5f}, {2.5f, -1, -2.5f}, {-1, 2.5f, -2.5f}},
        {{-1.5f, 0.5f, -2.2f}, {-0.2f, -1.5f, -2.0f}, {-0.4f, 1.2f, -1.9f}}, // zero normals
        {{-30, -20, -20}, {30, -20, -20}, {0, 40, -20}},                     // behind everything
    };
    for (int t = 0; t < 6; t++) {
        uint32_t corner[3];
        for (int k = 0; k < 3; k++) {
            sr_vec3 p = {large[t][k][0], large[t][k][1], large[t][k][2]};
            sr_vec3 normal = t == 4 ? (sr_vec3){0, 0, 0} : (sr_vec3){0.2f * (float)k - 0.2f, 0.3f, 1.0f};
            float color[4] = {0.2f * (float)t, 1.0f - 0.3f * (float)k, 0.5f, 0.25f + 0.25f * (float)k};
            corner[k] = add_vertex(&g, p, normal, (sr_vec2){0.37f * p.x, -0.21f * p.y}, color);
        }
        add_triangle(&g, corner[0], corner[1], corner[2]);
    }
    return g;
}

static inline void geometry_free(geometry *g)
{
    free(g->vertices);
    free(g->indices);
}

/* ------------------------------------------------------------------------------------------ */
/* Drawing and comparing                                                                       */

static inline sr_framebuffer *fb_new(int width, int height)
{
    sr_framebuffer *fb = NULL;
    sr_error err;
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &fb, &err), SR_OK,
        "%s", err.message);
    return fb;
}

/* How a frame is drawn: the form of the program's fragment function, the fill variant, threads. */
typedef enum form { FORM_ONE = 0, FORM_BLOCK, FORM_BOTH } form;

typedef struct way {
    form form;
    bool portable;
    int threads;
    sr_isa isa; ///< the fill variant unless `portable` (SR_ISA_BUILD: the native one)
} way;

/* Render states of the draws: the fast path, then the generic one in every flavour. */
static const sr_render_state states[] = {
    {0},
    {.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_LESS_EQUAL},
    {.blend = SR_BLEND_ADDITIVE, .no_depth_write = true, .depth_func = SR_DEPTH_GREATER_EQUAL, .cull = SR_CULL_BACK},
    {.depth_func = SR_DEPTH_NOT_EQUAL, .cull = SR_CULL_FRONT},
    {.depth_func = SR_DEPTH_EQUAL},
    {.depth_func = SR_DEPTH_GREATER, .blend = SR_BLEND_ALPHA},
    {.depth_func = SR_DEPTH_ALWAYS, .no_depth_write = true},
    {.depth_func = SR_DEPTH_NEVER},
};
#define STATE_COUNT (sizeof states / sizeof states[0])

typedef struct frame {
    sr_framebuffer *fb;
    sr_raster_stats stats;
} frame;

/* One frame: the scene drawn once per render state in a row (each draw sees the previous ones'
 * depth and colour), the program as `w` asks. */
static inline frame draw_frame(const geometry *g, sr_program program, way w, int width, int height)
{
    if (w.form == FORM_ONE)
        program.fragment_block = NULL;
    else if (w.form == FORM_BLOCK)
        program.fragment = NULL;
    sr_renderer *renderer = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = w.threads}, &renderer, &err), SR_OK, "%s",
                 err.message);
    renderer->portable_fill = w.portable;
    renderer->fill = sr_raster_fill_for(w.isa);
    cr_assert(renderer->fill, "no fill for %s", sr_isa_name(w.isa));
    frame f = {fb_new(width, height), {0}};
    sr_renderer_clear(renderer, f.fb, 0xff302010u, 1.0f);
    for (size_t s = 0; s < STATE_COUNT; s++) {
        sr_draw_desc desc = {.vertices = g->vertices,
                             .vertex_count = g->vertex_count,
                             .vertex_stride = sizeof(sr_shader_vertex),
                             .indices = g->indices,
                             .index_count = g->index_count,
                             .program = &program,
                             .state = states[s],
                             .primitive_id_base = (uint32_t)s * 100000u};
        cr_assert_eq(sr_draw_triangles(renderer, f.fb, &desc, &err), SR_OK, "%s", err.message);
    }
    f.stats = sr_renderer_stats(renderer);
    sr_renderer_destroy(renderer);
    return f;
}

static inline void frame_free(frame *f)
{
    sr_framebuffer_destroy(f->fb);
}

/* Colour, depth, ids and statistics bit for bit; `what` names the comparison in failures. */
static inline void assert_same_frame(const frame *a, const frame *b, const char *what)
{
    const size_t width = (size_t)a->fb->width, pixels = width * (size_t)a->fb->height;
    for (size_t i = 0; i < pixels; i++) {
        cr_assert(a->fb->color[i] == b->fb->color[i], "%s: colour of pixel (%zu, %zu) %08x, not %08x", what, i % width,
                  i / width, b->fb->color[i], a->fb->color[i]);
        cr_assert(memcmp(&a->fb->depth[i], &b->fb->depth[i], sizeof(float)) == 0,
                  "%s: depth of pixel (%zu, %zu) %.9g, not %.9g", what, i % width, i / width, (double)b->fb->depth[i],
                  (double)a->fb->depth[i]);
        cr_assert(a->fb->ids[i] == b->fb->ids[i], "%s: id of pixel (%zu, %zu) %u, not %u", what, i % width, i / width,
                  b->fb->ids[i], a->fb->ids[i]);
    }
    cr_assert(memcmp(&a->stats, &b->stats, sizeof a->stats) == 0,
              "%s: statistics differ (shaded %llu / %llu, written %llu / %llu)", what,
              (unsigned long long)b->stats.fragments_shaded, (unsigned long long)a->stats.fragments_shaded,
              (unsigned long long)b->stats.fragments_written, (unsigned long long)a->stats.fragments_written);
}

/// The user programs drawn by the native fill on one thread (once), and as each of the `count`
/// `portable` and `threads` say, compared bit for bit; `what[k]` names way k (test_raster_blocks_user.c).
void compare_user_frames(int count, const bool *portable, const int *threads, const char *const *what);

#endif
