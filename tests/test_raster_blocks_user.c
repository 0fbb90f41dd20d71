/* tests/test_raster_blocks_user.c — shading in blocks with user programs: one with only
 * `fragment` gets inputs lane for lane equal to those the block form sees; one with only
 * `fragment_block` that discards lanes draws what its one-fragment twin draws; a program needs a
 * fragment function (part of the program test_raster_blocks; helpers:
 * raster_blocks_test_helpers.h). */
#include <criterion/criterion.h>

#include <softrast/raster.h>
#include <softrast/shaders.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"

#include "raster_blocks_test_helpers.h"

/* ------------------------------------------------------------------------------------------ */
/* User programs                                                                               */

/* The scene in clip space for the user programs: x, y, z, w straight from the vertex. */
typedef struct user_vertex {
    float clip[4];
    float attributes[3];
} user_vertex;

/* Per pixel, what the fragment function saw: x, y, depth, 3 varyings, 3 barycentrics, id,
 * facing, and the number of calls. */
enum {
    SEEN_X,
    SEEN_Y,
    SEEN_DEPTH,
    SEEN_VARYINGS,
    SEEN_BARY = SEEN_VARYINGS + 3,
    SEEN_ID = SEEN_BARY + 3,
    SEEN_FRONT,
    SEEN_CALLS,
    SEEN_SIZE
};

typedef struct user_uniforms {
    int width, height;
    float *seen;                ///< SEEN_SIZE floats per pixel, or NULL
    _Atomic uint64_t lanes;     ///< lanes in the masks given to the block form
    _Atomic uint64_t blocks;    ///< calls of the block form
    _Atomic uint64_t misplaced; ///< blocks whose lanes were not laid out as a 4x2 block
} user_uniforms;

static void user_vertex_fn(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    (void)uniforms;
    const user_vertex *v = vertex;
    memcpy(clip, v->clip, sizeof v->clip);
    memcpy(varyings, v->attributes, sizeof v->attributes);
}

/* Discards where the second varying's fraction is below 0.3; writes a depth from the varyings. */
static bool user_fragment_fn(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const user_uniforms *u = uniforms;
    const float *v = in->varyings;
    if (u->seen) {
        float *seen = u->seen + ((size_t)in->y * (size_t)u->width + (size_t)in->x) * SEEN_SIZE;
        seen[SEEN_X] = in->x;
        seen[SEEN_Y] = in->y;
        seen[SEEN_DEPTH] = in->depth;
        for (int i = 0; i < 3; i++) {
            seen[SEEN_VARYINGS + i] = v[i];
            seen[SEEN_BARY + i] = in->barycentric ? in->barycentric[i] : -1.0f;
        }
        seen[SEEN_ID] = (float)in->primitive_id;
        seen[SEEN_FRONT] = in->front_facing;
        seen[SEEN_CALLS] += 1.0f;
    }
    float fraction = v[1] - floorf(v[1]);
    if (fraction < 0.3f)
        return false;
    out->color[0] = v[0] - floorf(v[0]);
    out->color[1] = fraction;
    out->color[2] = in->barycentric ? in->barycentric[2] : 0.5f * in->depth;
    out->color[3] = in->front_facing ? 0.8f : 0.4f;
    out->depth = 0.5f * in->depth + 0.2f * (v[2] - floorf(v[2]));
    return true;
}

/* The same, a block at a time, written as a user would (a loop over the lanes of the mask). It
 * returns the lanes it keeps with every bit outside the mask set too: the pipeline must ignore
 * them. It also checks that the lanes' pixels are laid out as raster.h says (lane k at column
 * k % 4, row k / 4 of the block). */
static uint32_t user_fragment_block_fn(const sr_fragment_block_in *in, const void *uniforms, sr_fragment_block_out *out)
{
    user_uniforms *u = (user_uniforms *)uniforms;
    atomic_fetch_add_explicit(&u->blocks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&u->lanes, (uint64_t)__builtin_popcount(in->mask), memory_order_relaxed);
    int first = __builtin_ctz(in->mask);
    float x0 = in->x[first] - 0.5f - (float)(first % SR_BLOCK_WIDTH);
    float y0 = in->y[first] - 0.5f - (float)(first / SR_BLOCK_WIDTH);
    bool laid_out = in->mask != 0 && in->mask <= 0xffu && fmodf(x0, 1.0f) == 0.0f && fmodf(y0, 1.0f) == 0.0f;
    uint32_t keep = ~in->mask;
    for (uint32_t mask = in->mask; mask; mask &= mask - 1) {
        int k = __builtin_ctz(mask);
        laid_out = laid_out && in->x[k] == x0 + 0.5f + (float)(k % SR_BLOCK_WIDTH) &&
                   in->y[k] == y0 + 0.5f + (float)(k / SR_BLOCK_WIDTH);
        float varyings[3] = {in->varyings[0][k], in->varyings[1][k], in->varyings[2][k]};
        float barycentric[3];
        if (in->barycentric)
            for (int i = 0; i < 3; i++)
                barycentric[i] = in->barycentric[i][k];
        sr_fragment_in one = {.x = in->x[k],
                              .y = in->y[k],
                              .depth = in->depth[k],
                              .varyings = varyings,
                              .barycentric = in->barycentric ? barycentric : NULL,
                              .primitive_id = in->primitive_id,
                              .front_facing = in->front_facing};
        sr_fragment_out o = {.color = {out->color[0][k], out->color[1][k], out->color[2][k], out->color[3][k]},
                             .depth = out->depth[k]};
        if (!user_fragment_fn(&one, uniforms, &o))
            continue;
        keep |= 1u << k;
        for (int c = 0; c < 4; c++)
            out->color[c][k] = o.color[c];
        out->depth[k] = o.depth;
    }
    if (!laid_out)
        atomic_fetch_add_explicit(&u->misplaced, 1, memory_order_relaxed);
    return keep;
}

/* Triangles in clip space: small, large and tiny ones scattered, some crossing the near plane,
 * some back-facing; then a grid of squares with corners on pixel centres, each cut along a
 * diagonal, so that many pixel centres lie exactly on edges (the fill rule decides them). */
static size_t user_scene(user_vertex **out, size_t *grid_first)
{
    enum { MAX = 3 * 760, WIDTH = 157, HEIGHT = 111 };
    user_vertex *v = malloc(MAX * sizeof *v);
    cr_assert(v);
    size_t n = 0;
    uint32_t x = 99u;
    for (int t = 0; t < 560; t++) {
        float cx, cy, size;
        x = x * 1664525u + 1013904223u;
        cx = (float)(x >> 8) / 16777216.0f * 2.2f - 1.1f;
        x = x * 1664525u + 1013904223u;
        cy = (float)(x >> 8) / 16777216.0f * 2.2f - 1.1f;
        size = t % 40 == 0 ? 1.5f : t % 3 == 0 ? 0.01f : 0.12f;
        for (int k = 0; k < 3; k++) {
            float angle = 2.1f * (float)k + 0.3f * (float)t;
            float w = 1.0f + 0.6f * (float)k + 0.1f * (float)(t % 5);
            float z = t % 50 == 7 && k == 0 ? -0.5f : 0.3f + 0.001f * (float)t;
            v[n++] = (user_vertex){{(cx + size * cosf(angle)) * w, (cy + size * sinf(angle)) * w, z * w, w},
                                   {(float)k * 1.7f + 0.3f * cx, (float)t * 0.013f + 3.1f * cy, (float)k * 0.6f}};
        }
        if (t % 7 == 3) { // clockwise
            user_vertex swap = v[n - 1];
            v[n - 1] = v[n - 2];
            v[n - 2] = swap;
        }
    }
    *grid_first = n;
    for (int j = 0; j < 10; j++)
        for (int i = 0; i < 10; i++) {
            float corner[4][2];
            for (int k = 0; k < 4; k++) {
                float px = 10.5f + 6.0f * (float)(i + k % 2), py = 20.5f + 6.0f * (float)(j + k / 2);
                corner[k][0] = px * 2.0f / WIDTH - 1.0f;
                corner[k][1] = 1.0f - py * 2.0f / HEIGHT;
            }
            // Both diagonals, both windings, and the corners rotated, so that each of a triangle's
            // three edges (in setup's order) is at times a top, left, bottom or right edge.
            const int orders[4][6] = {{0, 2, 1, 1, 2, 3}, {0, 3, 1, 0, 2, 3}, {1, 2, 0, 3, 2, 1}, {3, 0, 2, 3, 1, 0}};
            const int *order = orders[(i + 2 * j) % 4];
            for (int k = 0; k < 6; k++) {
                const float *c = corner[order[(k + i) % 3 + k / 3 * 3]];
                v[n++] = (user_vertex){{c[0], c[1], 0.2f, 1.0f}, {c[0] * 5.0f, c[1] * 3.0f + 0.5f, (float)k}};
            }
        }
    cr_assert_leq(n, MAX);
    *out = v;
    return n;
}

typedef struct user_frame {
    frame frame;
    float *seen;
    uint64_t lanes, blocks, misplaced;
} user_frame;

static user_frame draw_user(form f, bool late, bool barycentrics, int threads, bool record, bool portable)
{
    const int width = 157, height = 111;
    user_vertex *vertices;
    size_t grid_first;
    size_t count = user_scene(&vertices, &grid_first);
    user_uniforms u = {.width = width, .height = height};
    u.seen = record ? calloc((size_t)width * height * SEEN_SIZE, sizeof(float)) : NULL;
    atomic_init(&u.lanes, 0);
    atomic_init(&u.blocks, 0);
    atomic_init(&u.misplaced, 0);
    sr_program program = {.name = "user",
                          .vertex = user_vertex_fn,
                          .fragment = f == FORM_BLOCK ? NULL : user_fragment_fn,
                          .fragment_block = f == FORM_ONE ? NULL : user_fragment_block_fn,
                          .varying_count = 3,
                          .uniforms = &u,
                          .writes_depth = late,
                          .uses_barycentrics = barycentrics,
                          .vertex_size = sizeof(user_vertex)};
    sr_renderer *renderer = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &renderer, &err), SR_OK);
    renderer->portable_fill = portable;
    user_frame result = {.frame = {fb_new(width, height), {0}}, .seen = u.seen};
    sr_framebuffer_clear(result.frame.fb, 0, 1.0f);
    // Three draws of everything, then the grid blended over everything: a pixel on an edge drawn
    // by both triangles, or by neither, shows.
    const sr_render_state draws[4] = {{0},
                                      {.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_LESS_EQUAL},
                                      {.no_depth_write = true, .depth_func = SR_DEPTH_GREATER, .cull = SR_CULL_BACK},
                                      {.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_ALWAYS}};
    for (int d = 0; d < (record ? 1 : 4); d++) {
        sr_draw_desc desc = {.vertices = d == 3 ? vertices + grid_first : vertices,
                             .vertex_count = d == 3 ? count - grid_first : count,
                             .vertex_stride = sizeof(user_vertex),
                             .program = &program,
                             .state = draws[d],
                             .primitive_id_base = (uint32_t)d * 1000u};
        cr_assert_eq(sr_draw_triangles(renderer, result.frame.fb, &desc, &err), SR_OK, "%s", err.message);
    }
    result.frame.stats = sr_renderer_stats(renderer);
    result.lanes = atomic_load(&u.lanes);
    result.blocks = atomic_load(&u.blocks);
    result.misplaced = atomic_load(&u.misplaced);
    sr_renderer_destroy(renderer);
    free(vertices);
    return result;
}

/* The user programs drawn by the native fill on one thread (once per form and depth mode), and
 * as each of the `count` ways says. */
void compare_user_frames(int count, const bool *portable, const int *threads, const char *const *what)
{
    for (int f = FORM_ONE; f <= FORM_BLOCK; f++)
        for (int late = 0; late < 2; late++) {
            user_frame a = draw_user((form)f, late, true, 1, false, false);
            for (int k = 0; k < count; k++) {
                user_frame b = draw_user((form)f, late, true, threads[k], false, portable[k]);
                char name[128];
                snprintf(name, sizeof name, "%.60s, form %d, late %d", what[k], f, late);
                assert_same_frame(&a.frame, &b.frame, name);
                frame_free(&b.frame);
            }
            frame_free(&a.frame);
        }
}

/* A program with only a one-fragment function (the wrapped path) draws what its block twin
 * draws, with and without barycentrics and depth written, on 1 and 3 threads; and each call sees
 * the values the block form sees in its lane (recorded per pixel through a pass with no
 * overdraw: a record draw keeps the last visitor). */
Test(raster_blocks, one_fragment_user_program_matches_its_block_twin)
{
    for (int late = 0; late < 2; late++)
        for (int barycentrics = 0; barycentrics < 2; barycentrics++)
            for (int threads = 1; threads <= 3; threads += 2) {
                user_frame one = draw_user(FORM_ONE, late, barycentrics, threads, false, false);
                user_frame block = draw_user(FORM_BLOCK, late, barycentrics, threads, false, false);
                char what[96];
                snprintf(what, sizeof what, "one fragment / block, late %d, barycentrics %d, %d threads", late,
                         barycentrics, threads);
                cr_assert_gt(one.frame.stats.fragments_written, 5000, "%s", what);
                assert_same_frame(&one.frame, &block.frame, what);
                cr_assert_eq(block.lanes, block.frame.stats.fragments_shaded, "%s", what);
                cr_assert_eq(block.misplaced, 0, "%s: %llu blocks not laid out as 4x2 blocks", what,
                             (unsigned long long)block.misplaced);
                frame_free(&one.frame);
                frame_free(&block.frame);
            }
    user_frame one = draw_user(FORM_ONE, true, true, 1, true, false);
    user_frame block = draw_user(FORM_BLOCK, true, true, 1, true, false);
    size_t floats = (size_t)one.frame.fb->width * (size_t)one.frame.fb->height * SEEN_SIZE;
    size_t seen = 0;
    for (size_t i = 0; i < floats; i += SEEN_SIZE) {
        seen += one.seen[i + SEEN_CALLS] > 0.0f;
        cr_assert(memcmp(one.seen + i, block.seen + i, SEEN_SIZE * sizeof(float)) == 0,
                  "pixel (%zu, %zu): the one-fragment call saw other values than the block's lane",
                  i / SEEN_SIZE % (size_t)one.frame.fb->width, i / SEEN_SIZE / (size_t)one.frame.fb->width);
    }
    cr_assert_gt(seen, 5000);
    free(one.seen);
    free(block.seen);
    frame_free(&one.frame);
    frame_free(&block.frame);
}

/* A program with only a block function that discards lanes: the pipeline gives it covered lanes
 * only (each pixel's lanes exactly the pixels that the one-fragment twin is called for), in
 * 4x2 blocks, never an empty mask, counts shaded lanes as fragments_shaded, ignores the
 * returned bits outside the mask, and discards the lanes whose bit is cleared. */
Test(raster_blocks, block_only_user_program_discards_lanes)
{
    for (int late = 0; late < 2; late++) {
        user_frame block = draw_user(FORM_BLOCK, late, false, 1, true, false);
        user_frame one = draw_user(FORM_ONE, late, false, 1, true, false);
        cr_assert_eq(block.misplaced, 0);
        cr_assert_eq(block.lanes, block.frame.stats.fragments_shaded);
        cr_assert_lt(block.blocks * 2, block.lanes, "blocks hold several lanes (%llu lanes in %llu blocks)",
                     (unsigned long long)block.lanes, (unsigned long long)block.blocks);
        cr_assert_lt(block.frame.stats.fragments_written, block.frame.stats.fragments_shaded * 9 / 10,
                     "some lanes are discarded");
        cr_assert_gt(block.frame.stats.fragments_written, 1000);
        assert_same_frame(&one.frame, &block.frame, late ? "block only / one fragment, late" : "block only");
        size_t pixels = (size_t)one.frame.fb->width * (size_t)one.frame.fb->height;
        for (size_t i = 0; i < pixels; i++)
            cr_assert_eq(one.seen[i * SEEN_SIZE + SEEN_CALLS], block.seen[i * SEEN_SIZE + SEEN_CALLS],
                         "pixel (%zu, %zu): shaded %g times as a lane, %g as one fragment", i % 157, i / 157,
                         (double)block.seen[i * SEEN_SIZE + SEEN_CALLS], (double)one.seen[i * SEEN_SIZE + SEEN_CALLS]);
        free(one.seen);
        free(block.seen);
        frame_free(&one.frame);
        frame_free(&block.frame);
    }
}

/* sr_draw_triangles accepts a program with either form and refuses one with neither. */
Test(raster_blocks, a_program_needs_a_fragment_function)
{
    user_vertex *vertices;
    size_t grid_first;
    size_t count = user_scene(&vertices, &grid_first);
    user_uniforms u = {.width = 8, .height = 8};
    atomic_init(&u.lanes, 0);
    atomic_init(&u.blocks, 0);
    atomic_init(&u.misplaced, 0);
    sr_program program = {.vertex = user_vertex_fn, .varying_count = 3, .uniforms = &u};
    sr_renderer *renderer = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(NULL, &renderer, &err), SR_OK);
    sr_framebuffer *fb = fb_new(8, 8);
    sr_draw_desc desc = {
        .vertices = vertices, .vertex_count = count, .vertex_stride = sizeof(user_vertex), .program = &program};
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "no fragment function"), "%s", err.message);
    program.fragment_block = user_fragment_block_fn;
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
    program.fragment = user_fragment_fn;
    program.fragment_block = NULL;
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    free(vertices);
}
