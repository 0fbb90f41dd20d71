/* tests/test_raster_input.c — the pipeline under bad input: bad arguments are errors
 * naming them, non-finite positions and bad indices are skipped and counted, allocation failures
 * are errors (part of the program test_raster; helpers: raster_test_helpers.h). */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"
#include "raster_reference.h"

#include "raster_test_helpers.h"

/* ------------------------------------------------------------------------------------------ */
/* Bad input                                                                                   */

static void expect_error(sr_status status, sr_status expected, const sr_error *err, const char *word)
{
    cr_assert_eq(status, expected, "status %d (%s), expected %d", (int)status, err->message, (int)expected);
    cr_assert(strstr(err->message, word) != NULL, "message \"%s\" does not name \"%s\"", err->message, word);
}

Test(raster, bad_arguments_are_errors)
{
    sr_framebuffer *fb = fb_new(8, 8, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[3] = {{{-1, -1, 0.5f, 1}, {0}}, {{1, -1, 0.5f, 1}, {0}}, {{0, 1, 0.5f, 1}, {0}}};
    uint32_t indices[4] = {0, 1, 2, 0};
    test_uniforms u = {.color = {1, 1, 1, 1}};
    sr_program program = program_for(&u);
    sr_draw_desc good = {.vertices = v,
                         .vertex_count = 3,
                         .vertex_stride = sizeof(test_vertex),
                         .indices = indices,
                         .index_count = 3,
                         .program = &program};
    sr_error err;
    expect_error(sr_draw_triangles(NULL, fb, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "renderer");
    expect_error(sr_draw_triangles(renderer, NULL, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb");
    expect_error(sr_draw_triangles(renderer, fb, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "desc");
    sr_draw_desc d = good;
    d.program = NULL;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "program");
    sr_program p = program;
    d = good;
    d.program = &p;
    p.vertex = NULL;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertex function");
    p = program;
    p.fragment = NULL;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fragment function");
    p = program;
    p.varying_count = -1;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "varying_count");
    p.varying_count = SR_MAX_VARYINGS + 1;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "varying_count");
    p = program;
    d.vertex_stride = sizeof(test_vertex) - 4;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertex_stride");
    d = good;
    d.vertex_stride = 0;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertex_stride");
    d = good;
    d.index_count = 4;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "index_count");
    d = good;
    d.vertices = NULL;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertices");
    d = good;
    d.state.cull = (sr_cull_mode)9;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "cull");
    d = good;
    d.state.depth_func = (sr_depth_func)-1;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "depth_func");
    d = good;
    d.state.blend = (sr_blend_mode)3;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "blend");
    d = good;
    d.vertex_count = SIZE_MAX / 2;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "overflows");

    // Framebuffers: absurd, zero-sized, negative, missing buffers; never touched.
    sr_framebuffer bad = *fb;
    bad.width = bad.height = 100000;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "100000x100000");
    bad = *fb;
    bad.width = 0;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb size");
    bad = *fb;
    bad.height = -5;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb size");
    bad = *fb;
    bad.color = NULL;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "color");
    bad = *fb;
    bad.depth = NULL;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "depth");

    // Lines.
    sr_line_vertex lv[3] = {{{0, 0, 0.5f}, {1, 1, 1, 1}}, {{1, 1, 0.5f}, {1, 1, 1, 1}}, {{0, 1, 0.5f}, {1, 1, 1, 1}}};
    sr_line_desc ld = {.vertices = lv, .vertex_count = 2, .view_projection = sr_mat4_identity()};
    expect_error(sr_draw_lines(NULL, fb, &ld, &err), SR_ERROR_INVALID_ARGUMENT, &err, "renderer");
    expect_error(sr_draw_lines(renderer, NULL, &ld, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb");
    expect_error(sr_draw_lines(renderer, fb, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "desc");
    bad = *fb;
    bad.width = bad.height = 100000;
    expect_error(sr_draw_lines(renderer, &bad, &ld, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb size");
    sr_line_desc odd = ld;
    odd.vertex_count = 3;
    expect_error(sr_draw_lines(renderer, fb, &odd, &err), SR_ERROR_INVALID_ARGUMENT, &err, "odd");
    odd = ld;
    odd.vertices = NULL;
    expect_error(sr_draw_lines(renderer, fb, &odd, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertices");
    odd = ld;
    odd.blend = (sr_blend_mode)7;
    expect_error(sr_draw_lines(renderer, fb, &odd, &err), SR_ERROR_INVALID_ARGUMENT, &err, "blend");

    // Renderer creation.
    sr_renderer *other = (sr_renderer *)&err;
    expect_error(sr_renderer_create(&(sr_renderer_desc){.threads = SR_MAX_THREADS + 1}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT, &err, "threads");
    cr_assert_null(other);
    expect_error(sr_renderer_create(&(sr_renderer_desc){.threads = -1}, &other, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "threads");
    expect_error(sr_renderer_create(NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "out");
    // Nothing was drawn by any failed call; NULL err is accepted.
    cr_assert_eq(sr_draw_triangles(NULL, NULL, NULL, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(count_written(fb), 0);
    cr_assert_eq(sr_renderer_stats(renderer).triangles_in, 0);
    sr_renderer_destroy(NULL);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, non_finite_positions_and_bad_indices_are_skipped_and_counted)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[9] = {{{-1, -1, 0.5f, 1}, {0}},          {{1, -1, 0.5f, 1}, {0}},          {{0, 1, 0.5f, 1}, {0}},
                        {{NAN, -1, 0.5f, 1}, {0}},         {{INFINITY, 0, 0.5f, 1}, {0}},    {{0, 0, 0.5f, NAN}, {0}},
                        {{3e38f, -3e38f, 0, 1e-30f}, {0}}, {{-3e38f, 1, 3e38f, 3e38f}, {0}}, {{0, 0, 0, 0}, {0}}};
    const uint32_t indices[] = {0,           1, 2, 3, 1, 2, 0, 4, 2, 0, 1, 5, 0, 1, 99,
                                0xffffffffu, 1, 2, 6, 7, 8, 0, 6, 7, 8, 8, 8, 1, 8, 2};
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    draw(renderer, fb, v, 9, indices, sizeof indices / sizeof indices[0], &program, counter_state, 0);
    sr_raster_stats stats = sr_renderer_stats(renderer);
    cr_assert_eq(stats.triangles_in, 10);
    cr_assert_eq(stats.triangles_skipped, 5, "skipped %llu", (unsigned long long)stats.triangles_skipped);
    cr_assert_eq(stats.triangles_in, stats.triangles_skipped + stats.triangles_culled + stats.triangles_rasterized);
    // Every pixel is drawn once per triangle whose visible part covers its centre (the homogeneous
    // reference, clipped at w >= SR_CLIP_W_EPSILON): triangle (0, 1, 2), and (0, 6, 7), whose corner
    // 6 lies 3e68 away in NDC, over the lower-left corner; the ones through vertex 8 at the origin
    // of clip space have no area. No triangle draws a pixel twice, and none is lost.
    int compared = 0, overlapped = 0;
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            int expected = 0;
            bool decided = true;
            for (size_t t = 0; t + 2 < sizeof indices / sizeof indices[0] && decided; t += 3) {
                double clip[3][4];
                bool usable = true;
                for (int k = 0; k < 3 && usable; k++) {
                    uint32_t i = indices[t + (size_t)k];
                    usable = i < 9;
                    for (int c = 0; c < 4 && usable; c++) {
                        usable = isfinite(v[i].position[c]);
                        clip[k][c] = v[i].position[c];
                    }
                }
                if (!usable)
                    continue;
                reference_region region = reference_region_triangle(&clip[0][0], SR_CLIP_W_EPSILON);
                int covered = reference_region_classify(&region, size, size, px + 0.5, py + 0.5, 0.01);
                decided = covered >= 0;
                expected += covered > 0;
            }
            if (!decided)
                continue;
            compared++;
            overlapped += expected == 2;
            cr_assert_eq(red_at(fb, px, py), expected, "pixel (%d, %d) drawn %d times, covered by %d triangles", px, py,
                         red_at(fb, px, py), expected);
        }
    cr_assert_gt(compared, size * size * 3 / 4);
    cr_assert_gt(overlapped, 5);
    // Lines with non-finite ends are skipped and counted too.
    sr_line_vertex lv[4] = {{{NAN, 0, 0.5f}, {1, 1, 1, 1}},
                            {{0, 0, 0.5f}, {1, 1, 1, 1}},
                            {{0, 0, 0.5f}, {1, 1, 1, 1}},
                            {{0.5f, 0.5f, 0.5f}, {1, 1, 1, 1}}};
    draw_lines(renderer, fb, lv, 4, sr_mat4_identity(), false);
    cr_assert_eq(sr_renderer_stats(renderer).lines_skipped, 1);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* An allocator that grants the first `left` requests and refuses the others (state through
 * sr_allocator.user, not a global). */
typedef struct allocation_budget {
    int left;
    int refused;
} allocation_budget;

static void *budget_allocate(size_t size, void *user)
{
    allocation_budget *budget = user;
    if (budget->left <= 0) {
        budget->refused++;
        return NULL;
    }
    budget->left--;
    return malloc(size);
}

static void *budget_reallocate(void *pointer, size_t size, void *user)
{
    allocation_budget *budget = user;
    if (budget->left <= 0) {
        budget->refused++;
        return NULL; // the old block stays valid
    }
    budget->left--;
    return realloc(pointer, size);
}

static void budget_release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

/* Every budget of allocations, from none upwards, until the draw succeeds: each draw refused for
 * lack of memory returns SR_ERROR_OUT_OF_MEMORY naming what it could not allocate and leaves the
 * framebuffer and the statistics exactly as they were; the renderer then still draws once memory is
 * available again. The draw has 300 triangles, so that with worker threads it is split and binned
 * (the bins are allocated too). */
Test(raster, out_of_memory_is_an_error)
{
    allocation_budget budget = {0, 0};
    sr_allocator limited = {budget_allocate, budget_reallocate, budget_release, &budget};
    sr_set_allocator(&limited);
    sr_error err;
    sr_renderer *renderer = NULL;
    expect_error(sr_renderer_create(NULL, &renderer, &err), SR_ERROR_OUT_OF_MEMORY, &err, "memory");
    cr_assert_null(renderer);
    const int size = 16;
    const uint32_t old_color = 0x11223344u, white = 0xffffffffu;
    sr_framebuffer *fb = fb_new(size, size, false);
    // The whole screen at depth 0.5, 150 times: the first copy writes every pixel, the others fail
    // the LESS test.
    test_vertex v[4] = {
        {{-1, -1, 0.5f, 1}, {0}}, {{1, -1, 0.5f, 1}, {0}}, {{1, 1, 0.5f, 1}, {0}}, {{-1, 1, 0.5f, 1}, {0}}};
    uint32_t indices[900];
    for (int q = 0; q < 150; q++) {
        const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
        memcpy(indices + 6 * q, quad, sizeof quad);
    }
    test_uniforms u = {.color = {1, 1, 1, 1}, .varying_count = 2};
    sr_program program = program_for(&u);
    sr_draw_desc desc = {.vertices = v,
                         .vertex_count = 4,
                         .vertex_stride = sizeof *v,
                         .indices = indices,
                         .index_count = 900,
                         .program = &program};
    const int thread_counts[2] = {0, 3};
    for (int c = 0; c < 2; c++) {
        int refused_draws = 0;
        bool drawn = false, named_cache = false, named_varyings = false, named_bins = false;
        for (int allowed = 0; allowed < 64 && !drawn; allowed++) {
            budget.left = allowed;
            renderer = NULL;
            sr_status status = sr_renderer_create(&(sr_renderer_desc){.threads = thread_counts[c]}, &renderer, &err);
            if (status != SR_OK) {
                expect_error(status, SR_ERROR_OUT_OF_MEMORY, &err, "memory");
                cr_assert_null(renderer);
                continue;
            }
            fb_fill(fb, old_color, 0.75f);
            status = sr_draw_triangles(renderer, fb, &desc, &err);
            if (status == SR_OK) {
                drawn = true;
            } else {
                expect_error(status, SR_ERROR_OUT_OF_MEMORY, &err, "out of memory");
                refused_draws++;
                named_cache = named_cache || strstr(err.message, "vertex cache") != NULL;
                named_varyings = named_varyings || strstr(err.message, "varyings") != NULL;
                named_bins = named_bins || strstr(err.message, "bins") != NULL;
                for (int i = 0; i < size * size; i++)
                    cr_assert(fb->color[i] == old_color && fb->depth[i] == 0.75f,
                              "threads %d, %d allocations: a refused draw changed pixel %d", thread_counts[c], allowed,
                              i);
                sr_raster_stats stats = sr_renderer_stats(renderer);
                cr_assert_eq(stats.triangles_in + stats.fragments_shaded + stats.fragments_written, 0,
                             "a refused draw changed the statistics");
                // The same renderer draws once memory is there.
                budget.left = 1000;
                cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
            }
            for (int i = 0; i < size * size; i++)
                cr_assert(fb->color[i] == white && fb->depth[i] == 0.5f, "threads %d, %d allocations: pixel %d is %08x",
                          thread_counts[c], allowed, i, fb->color[i]);
            sr_renderer_destroy(renderer);
        }
        cr_assert(drawn, "threads %d: no budget of allocations was enough", thread_counts[c]);
        cr_assert_geq(refused_draws, 2, "threads %d: only %d draws ran out of memory", thread_counts[c], refused_draws);
        cr_assert(named_cache && named_varyings, "threads %d: the vertex cache and varyings failures were not both met",
                  thread_counts[c]);
        cr_assert(named_bins == (thread_counts[c] > 1), "threads %d: bins failure met: %d", thread_counts[c],
                  (int)named_bins);
    }
    cr_assert_gt(budget.refused, 0);
    sr_set_allocator(NULL);
    fb_delete(fb);
}
