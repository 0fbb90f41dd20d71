/* tests/test_raster_state.c — the pipeline's render state (culling, depth functions and
 * writes, discard, blending, the ids buffer, vertex function calls) and its lines, checked against
 * hand-computed values (part of the program test_raster; helpers: raster_test_helpers.h). */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"
#include "raster_reference.h"

#include "raster_test_helpers.h"

/* ------------------------------------------------------------------------------------------ */
/* Render state                                                                                */

Test(raster, face_culling_and_front_facing)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    float *capture = calloc((size_t)size * size * CAP_SIZE, sizeof *capture);
    // Counter-clockwise in NDC (y up): a front face.
    test_vertex ccw[3] = {{{-0.5f, -0.5f, 0.5f, 1}, {0}}, {{0.5f, -0.5f, 0.5f, 1}, {0}}, {{0.0f, 0.5f, 0.5f, 1}, {0}}};
    test_vertex cw[3] = {ccw[0], ccw[2], ccw[1]};
    test_uniforms u = {.color = {1, 1, 1, 1}, .capture = capture, .capture_width = size};
    sr_program program = program_for(&u);
    const struct {
        const test_vertex *v;
        sr_cull_mode cull;
        bool drawn, front;
    } cases[6] = {{ccw, SR_CULL_NONE, true, true}, {ccw, SR_CULL_BACK, true, true},  {ccw, SR_CULL_FRONT, false, true},
                  {cw, SR_CULL_NONE, true, false}, {cw, SR_CULL_BACK, false, false}, {cw, SR_CULL_FRONT, true, false}};
    for (int c = 0; c < 6; c++) {
        fb_fill(fb, 0, 1.0f);
        memset(capture, 0, (size_t)size * size * CAP_SIZE * sizeof *capture);
        draw(renderer, fb, cases[c].v, 3, NULL, 3, &program, (sr_render_state){.cull = cases[c].cull}, 0);
        const float *centre = capture + ((size_t)(size / 2) * size + size / 2) * CAP_SIZE;
        cr_assert_eq(fb->color[(size / 2) * size + size / 2] != 0, cases[c].drawn, "case %d", c);
        if (cases[c].drawn)
            cr_assert_eq(centre[CAP_FRONT], cases[c].front ? 1.0f : 0.0f, "case %d: front_facing", c);
    }
    free(capture);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

static bool reference_depth_test(sr_depth_func func, float z, float stored)
{
    if (func == SR_DEPTH_ALWAYS)
        return true;
    if (func == SR_DEPTH_NEVER)
        return false;
    int order = z < stored ? -1 : z > stored ? 1 : 0;
    const int allowed[6][3] = {{1, 0, 0}, {1, 1, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}, {1, 0, 1}};
    return allowed[func][order + 1];
}

Test(raster, every_depth_func_and_the_write_mask)
{
    const int size = 8;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_uniforms u = {.color = {1, 1, 1, 1}};
    sr_program program = program_for(&u);
    const float depths[3] = {0.25f, 0.5f, 0.75f};
    for (int func = SR_DEPTH_LESS; func <= SR_DEPTH_NEVER; func++)
        for (int d = 0; d < 3; d++)
            for (int mask = 0; mask < 2; mask++) {
                // Two triangles covering the viewport at constant depth (clip z with w = 1).
                test_vertex v[4] = {{{-1, -1, depths[d], 1}, {0}},
                                    {{1, -1, depths[d], 1}, {0}},
                                    {{1, 1, depths[d], 1}, {0}},
                                    {{-1, 1, depths[d], 1}, {0}}};
                const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
                fb_fill(fb, 0, 0.5f);
                sr_render_state state = {.depth_func = (sr_depth_func)func, .no_depth_write = mask};
                draw(renderer, fb, v, 4, indices, 6, &program, state, 0);
                bool pass = reference_depth_test((sr_depth_func)func, depths[d], 0.5f);
                for (int i = 0; i < size * size; i++) {
                    cr_assert_eq(fb->color[i], pass ? 0xffffffffu : 0u, "func %d depth %g pixel %d", func, depths[d],
                                 i);
                    float expected = pass && !mask ? depths[d] : 0.5f;
                    cr_assert_eq(fb->depth[i], expected, "func %d depth %g mask %d pixel %d: depth %g", func, depths[d],
                                 mask, i, fb->depth[i]);
                }
            }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, discard_writes_nothing)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, true);
    sr_renderer *renderer = renderer_new();
    test_uniforms u = {.color = {1, 1, 1, 1}, .discard_below_x = 8.0f};
    sr_program program = program_for(&u);
    test_vertex v[4] = {
        {{-1, -1, 0.3f, 1}, {0}}, {{1, -1, 0.3f, 1}, {0}}, {{1, 1, 0.3f, 1}, {0}}, {{-1, 1, 0.3f, 1}, {0}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    draw(renderer, fb, v, 4, indices, 6, &program, (sr_render_state){0}, 7);
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int i = y * size + x;
            bool kept = x >= 8;
            cr_assert_eq(fb->color[i], kept ? 0xffffffffu : 0u, "pixel (%d, %d)", x, y);
            cr_assert_eq(fb->depth[i], kept ? 0.3f : 1.0f, "pixel (%d, %d)", x, y);
            // Triangle 0 is the lower-right half (x + y > 16 on the screen) and owns the diagonal,
            // its left edge.
            uint32_t id = x + y + 1 >= size ? 7u : 8u;
            cr_assert_eq(fb->ids[i], kept ? id : SR_NO_ID, "pixel (%d, %d): id %u", x, y, fb->ids[i]);
        }
    sr_raster_stats stats = sr_renderer_stats(renderer);
    cr_assert_eq(stats.fragments_shaded, (uint64_t)(size * size));
    cr_assert_eq(stats.fragments_written, (uint64_t)(size * size / 2));
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, early_and_late_depth_test)
{
    const int size = 8;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[4] = {
        {{-1, -1, 0.5f, 1}, {0}}, {{1, -1, 0.5f, 1}, {0}}, {{1, 1, 0.5f, 1}, {0}}, {{-1, 1, 0.5f, 1}, {0}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    test_uniforms u = {.color = {1, 1, 1, 1}, .written_depth = 0.1f};
    // Early test: hidden fragments never reach the fragment function.
    sr_program early = program_for(&u);
    fb_fill(fb, 0, 0.3f);
    draw(renderer, fb, v, 4, indices, 6, &early, (sr_render_state){0}, 0);
    cr_assert_eq(sr_renderer_stats(renderer).fragments_shaded, 0);
    cr_assert_eq(fb->color[0], 0u);
    // Late test on the written depth: 0.1 < 0.3 passes although the interpolated 0.5 would not.
    sr_program late = early;
    late.fragment = depth_fragment_fn;
    late.writes_depth = true;
    sr_renderer_reset_stats(renderer);
    draw(renderer, fb, v, 4, indices, 6, &late, (sr_render_state){0}, 0);
    cr_assert_eq(sr_renderer_stats(renderer).fragments_shaded, (uint64_t)(size * size));
    for (int i = 0; i < size * size; i++) {
        cr_assert_eq(fb->color[i], 0xffffffffu);
        cr_assert_eq(fb->depth[i], 0.1f);
    }
    // And a written depth behind the stored one fails.
    u.written_depth = 0.9f;
    u.color[0] = 0;
    draw(renderer, fb, v, 4, indices, 6, &late, (sr_render_state){0}, 0);
    for (int i = 0; i < size * size; i++) {
        cr_assert_eq(fb->color[i], 0xffffffffu);
        cr_assert_eq(fb->depth[i], 0.1f);
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

static uint32_t bytes(int r, int g, int b, int a)
{
    return (uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16 | (uint32_t)a << 24;
}

Test(raster, blending_matches_hand_computed_bytes)
{
    const int size = 4;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[4] = {
        {{-1, -1, 0.5f, 1}, {0}}, {{1, -1, 0.5f, 1}, {0}}, {{1, 1, 0.5f, 1}, {0}}, {{-1, 1, 0.5f, 1}, {0}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    test_uniforms u = {.color = {0.2f, 0.6f, 1.0f, 0.25f}};
    sr_program program = program_for(&u);
    const uint32_t destination = bytes(200, 100, 50, 255);
    // By hand, v = s a + d (1 - a) with s = 255 c: r 12.75 + 150, g 38.25 + 75, b 63.75 + 37.5,
    // and for alpha ("over") v = 255 a + d (1 - a): 63.75 + 191.25; rounded half up.
    const struct {
        sr_blend_mode mode;
        uint32_t expected;
    } cases[3] = {{SR_BLEND_NONE, bytes(51, 153, 255, 64)},
                  {SR_BLEND_ALPHA, bytes(163, 113, 101, 255)},
                  {SR_BLEND_ADDITIVE, bytes(213, 138, 114, 255)}};
    for (int c = 0; c < 3; c++) {
        fb_fill(fb, destination, 1.0f);
        draw(renderer, fb, v, 4, indices, 6, &program, (sr_render_state){.blend = cases[c].mode}, 0);
        for (int i = 0; i < size * size; i++)
            cr_assert_eq(fb->color[i], cases[c].expected, "mode %d: %08x, expected %08x", (int)cases[c].mode,
                         fb->color[i], cases[c].expected);
    }
    // Additive saturates; out-of-range and NaN source components are clamped (NaN as 0).
    test_uniforms bright = {.color = {2.0f, NAN, -1.0f, 1.0f}};
    sr_program bright_program = program_for(&bright);
    fb_fill(fb, bytes(250, 10, 20, 128), 1.0f);
    draw(renderer, fb, v, 4, indices, 6, &bright_program, (sr_render_state){.blend = SR_BLEND_ADDITIVE}, 0);
    cr_assert_eq(fb->color[0], bytes(255, 10, 20, 255), "%08x", fb->color[0]);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, ids_buffer_records_the_primitive)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, true);
    sr_renderer *renderer = renderer_new();
    float *capture = calloc((size_t)size * size * CAP_SIZE, sizeof *capture);
    test_vertex quad[4] = {window_vertex(2, 2, 0.5, size, size), window_vertex(10, 2, 0.5, size, size),
                           window_vertex(10, 10, 0.5, size, size), window_vertex(2, 10, 0.5, size, size)};
    const uint32_t indices[9] = {0, 1, 3, 1, 2, 3, 0, 0, 0};
    test_uniforms u = {.color = {1, 1, 1, 1}, .capture = capture, .capture_width = size};
    sr_program program = program_for(&u);
    draw(renderer, fb, quad, 4, indices, 9, &program, (sr_render_state){0}, 1000);
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            bool inside = x >= 2 && x < 10 && y >= 2 && y < 10;
            // The diagonal from (10, 2) to (2, 10) has no pixel centre on it: x + y + 1 = 12.
            uint32_t expected = !inside ? SR_NO_ID : x + y + 1 < 12 ? 1000u : 1001u;
            cr_assert_eq(fb->ids[y * size + x], expected, "pixel (%d, %d): id %u", x, y, fb->ids[y * size + x]);
            if (inside)
                cr_assert_eq(capture[((size_t)y * size + (size_t)x) * CAP_SIZE + CAP_ID], (float)expected);
        }
    free(capture);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, vertex_function_runs_once_per_referenced_vertex)
{
    const int size = 32, n = 10;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    // An n x n grid plus 7 vertices no triangle uses.
    size_t count = (size_t)n * n + 7;
    test_vertex *v = calloc(count, sizeof *v);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            v[j * n + i] = window_vertex(2 + i * 3.1, 1 + j * 2.9, 0.5, size, size);
    uint32_t *indices = calloc((size_t)(n - 1) * (n - 1) * 6, sizeof *indices);
    size_t k = 0;
    for (int j = 0; j + 1 < n; j++)
        for (int i = 0; i + 1 < n; i++) {
            uint32_t a = (uint32_t)(j * n + i);
            uint32_t quad[6] = {a, a + 1, a + (uint32_t)n + 1, a, a + (uint32_t)n + 1, a + (uint32_t)n};
            memcpy(indices + k, quad, sizeof quad);
            k += 6;
        }
    int calls = 0;
    test_uniforms u = counter_uniforms();
    u.vertex_calls = &calls;
    sr_program program = program_for(&u);
    draw(renderer, fb, v, count, indices, k, &program, counter_state, 0);
    cr_assert_eq(calls, n * n, "%d vertex calls for %d referenced vertices", calls, n * n);
    draw(renderer, fb, v, count, indices, k, &program, counter_state, 0);
    cr_assert_eq(calls, 2 * n * n, "the second draw must transform again");
    // Only the first row of quads: 2 n vertices referenced.
    draw(renderer, fb, v, count, indices, (size_t)(n - 1) * 6, &program, counter_state, 0);
    cr_assert_eq(calls, 2 * n * n + 2 * n);
    free(v);
    free(indices);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* ------------------------------------------------------------------------------------------ */
/* Lines                                                                                       */

static sr_line_vertex line_vertex_at(double x, double y, double z, int width, int height, float r, float g, float b)
{
    return (sr_line_vertex){{(float)(2.0 * x / width - 1.0), (float)(1.0 - 2.0 * y / height), (float)z}, {r, g, b, 1}};
}

Test(raster, lines_axis_aligned_and_diagonal)
{
    const int size = 32;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    const struct {
        double x0, y0, x1, y1;
    } segments[6] = {{3.5, 5.5, 12.5, 5.5}, {12.5, 5.5, 3.5, 5.5},  {7.5, 2.5, 7.5, 20.5},
                     {7.5, 20.5, 7.5, 2.5}, {2.5, 2.5, 12.5, 12.5}, {12.5, 12.5, 2.5, 2.5}};
    for (int s = 0; s < 6; s++) {
        fb_fill(fb, 0, 1.0f);
        sr_line_vertex v[2] = {line_vertex_at(segments[s].x0, segments[s].y0, 0.5, size, size, 1, 0, 0),
                               line_vertex_at(segments[s].x1, segments[s].y1, 0.5, size, size, 0, 0, 1)};
        draw_lines(renderer, fb, v, 2, sr_mat4_identity(), false);
        int expected_count = 0;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                bool on;
                if (s < 2)
                    on = y == 5 && x >= 3 && x <= 12;
                else if (s < 4)
                    on = x == 7 && y >= 2 && y <= 20;
                else
                    on = x == y && x >= 2 && x <= 12;
                expected_count += on;
                cr_assert_eq(fb->color[y * size + x] != 0, on, "segment %d pixel (%d, %d)", s, x, y);
            }
        cr_assert_eq(count_written(fb), expected_count);
    }
    // Colour along the first segment: t = (x + 0.5 - 3.5) / 9 from red to blue.
    fb_fill(fb, 0, 1.0f);
    sr_line_vertex v[2] = {line_vertex_at(3.5, 5.5, 0.5, size, size, 1, 0, 0),
                           line_vertex_at(12.5, 5.5, 0.5, size, size, 0, 0, 1)};
    draw_lines(renderer, fb, v, 2, sr_mat4_identity(), false);
    for (int x = 3; x <= 12; x++) {
        double t = (x + 0.5 - 3.5) / 9.0;
        uint32_t c = fb->color[5 * size + x];
        cr_assert(abs((int)(c & 0xff) - (int)lround(255 * (1 - t))) <= 1, "x %d red %u", x, c & 0xff);
        cr_assert(abs((int)((c >> 16) & 0xff) - (int)lround(255 * t)) <= 1, "x %d blue %u", x, (c >> 16) & 0xff);
    }
    // Ends off pixel centres: every column containing a point of the segment is drawn, both
    // ends' own pixels included (an end exactly on a pixel border belongs to the pixel right
    // of / below the border).
    const struct {
        double x0, y0, x1, y1;
        int first, last, row;
    } ends[3] = {{3.2, 6.3, 12.9, 6.7, 3, 12, 6}, {2.0, 9.5, 11.0, 9.5, 2, 11, 9}, {14.99, 3.1, 5.01, 3.9, 5, 14, 3}};
    for (int e = 0; e < 3; e++) {
        fb_fill(fb, 0, 1.0f);
        sr_line_vertex w[2] = {line_vertex_at(ends[e].x0, ends[e].y0, 0.5, size, size, 1, 1, 1),
                               line_vertex_at(ends[e].x1, ends[e].y1, 0.5, size, size, 1, 1, 1)};
        draw_lines(renderer, fb, w, 2, sr_mat4_identity(), false);
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                bool on = y == ends[e].row && x >= ends[e].first && x <= ends[e].last;
                cr_assert_eq(fb->color[y * size + x] != 0, on, "segment %d pixel (%d, %d)", e, x, y);
            }
    }
    cr_assert_eq(sr_renderer_stats(renderer).lines_in, 10);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, line_colour_is_perspective_correct)
{
    const int size = 64;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    sr_mat4 projection = sr_mat4_perspective((float)(60.0 * SR_PI / 180.0), 1.0f, 0.1f, 100.0f);
    // From (-1, 0, -2) red to (1, 0, -8) green: on screen the far half is much shorter.
    sr_line_vertex v[2] = {{{-1, 0, -2}, {1, 0, 0, 1}}, {{1, 0, -8}, {0, 1, 0, 1}}};
    draw_lines(renderer, fb, v, 2, projection, false);
    double f = 1.0 / tan(30.0 * SR_PI / 180.0);
    int checked = 0;
    for (int x = 0; x < size; x++) {
        // Point of the segment seen through the column's centre: f (-1 + 2 s) = ndc (2 + 6 s).
        double ndc = (x + 0.5) / size * 2 - 1;
        double s = (2 * ndc + f) / (2 * f - 6 * ndc);
        if (s < 0.02 || s > 0.98)
            continue;
        for (int y = 0; y < size; y++) {
            uint32_t c = fb->color[y * size + x];
            if (!c)
                continue;
            cr_assert(abs((int)(c & 0xff) - (int)lround(255 * (1 - s))) <= 2, "column %d: red %u, expected %g", x,
                      c & 0xff, 255 * (1 - s));
            checked++;
        }
    }
    cr_assert_gt(checked, 10);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, line_crossing_the_near_plane_is_clipped)
{
    const int size = 64;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    const double fov = 60.0 * SR_PI / 180.0, near_z = 0.1;
    sr_mat4 projection = sr_mat4_perspective((float)fov, 1.0f, (float)near_z, 100.0f);
    const double a[3] = {0.3, 0.2, -2.0}, b[3] = {-0.4, -0.1, 3.0};
    sr_line_vertex v[2] = {{{(float)a[0], (float)a[1], (float)a[2]}, {1, 1, 1, 1}},
                           {{(float)b[0], (float)b[1], (float)b[2]}, {1, 1, 1, 1}}};
    draw_lines(renderer, fb, v, 2, projection, false);
    // Visible part: from a to the near plane z = -near.
    double s = (-near_z - a[2]) / (b[2] - a[2]), p[3];
    for (int k = 0; k < 3; k++)
        p[k] = a[k] + s * (b[k] - a[k]);
    double f = 1.0 / tan(fov / 2);
    double ax = (f * a[0] / -a[2] + 1) / 2 * size, ay = (1 - f * a[1] / -a[2]) / 2 * size;
    double px = (f * p[0] / -p[2] + 1) / 2 * size, py = (1 - f * p[1] / -p[2]) / 2 * size;
    int written = 0;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            if (!fb->color[y * size + x])
                continue;
            written++;
            double d = segment_distance(x + 0.5, y + 0.5, ax, ay, px, py);
            cr_assert_leq(d, 1.0, "pixel (%d, %d) is %g px away from the visible segment", x, y, d);
        }
    cr_assert(fb->color[(int)ay * size + (int)ax] != 0, "the pixel of the front end is not drawn");
    double span = fmax(fabs(fmin(px, size) - ax), fabs(fmin(fmax(py, 0), size) - ay));
    cr_assert_geq(written, (int)span - 1, "%d pixels for a span of %g", written, span);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, depth_tested_line_hidden_behind_a_triangle)
{
    const int size = 32;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    // The left half of the screen at depth 0.3.
    test_vertex half[4] = {window_vertex(0, 0, 0.3, size, size), window_vertex(16, 0, 0.3, size, size),
                           window_vertex(16, 32, 0.3, size, size), window_vertex(0, 32, 0.3, size, size)};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    test_uniforms u = {.color = {0, 0, 1, 1}};
    sr_program program = program_for(&u);
    draw(renderer, fb, half, 4, indices, 6, &program, (sr_render_state){0}, 0);
    const uint32_t blue = bytes(0, 0, 255, 255), white = 0xffffffffu;
    for (int pass = 0; pass < 2; pass++) {
        double z = pass == 0 ? 0.6 : 0.2;
        sr_line_vertex v[2] = {line_vertex_at(0.5, 10.5, z, size, size, 1, 1, 1),
                               line_vertex_at(31.5, 10.5, z, size, size, 1, 1, 1)};
        draw_lines(renderer, fb, v, 2, sr_mat4_identity(), true);
        for (int x = 0; x < size; x++) {
            uint32_t expected = pass == 0 && x < 16 ? blue : white;
            cr_assert_eq(fb->color[10 * size + x], expected, "pass %d x %d: %08x", pass, x, fb->color[10 * size + x]);
            cr_assert_eq(fb->depth[10 * size + x], x < 16 ? 0.3f : 1.0f, "lines must not write depth");
        }
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* sr_line_desc.depth_test is LESS_EQUAL: a line exactly at the stored depth is drawn. With an
 * orthographic projection from near 0 to far 1, clip z = -z_view and w = 1 exactly, so a segment at
 * constant z_view = -d has window depth d bit for bit at every pixel (a + (b - a) t with b == a). */
Test(raster, line_at_exactly_the_stored_depth_is_drawn)
{
    const int size = 32;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    const sr_mat4 ortho = sr_mat4_orthographic(-1.0f, 1.0f, -1.0f, 1.0f, 0.0f, 1.0f);
    const float stored = 0.375f;
    const float depths[3] = {stored, nextafterf(stored, 0.0f), nextafterf(stored, 1.0f)};
    for (int pass = 0; pass < 3; pass++) {
        fb_fill(fb, 0, stored);
        // Ends on the centres of pixels (2, 10) and (29, 10).
        sr_line_vertex v[2] = {line_vertex_at(2.5, 10.5, -depths[pass], size, size, 1, 1, 1),
                               line_vertex_at(29.5, 10.5, -depths[pass], size, size, 1, 1, 1)};
        draw_lines(renderer, fb, v, 2, ortho, true);
        bool visible = depths[pass] <= stored;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                bool on = visible && y == 10 && x >= 2 && x <= 29;
                cr_assert_eq(fb->color[y * size + x] != 0, on, "line at depth %a over %a: pixel (%d, %d)",
                             (double)depths[pass], (double)stored, x, y);
                cr_assert_eq(fb->depth[y * size + x], stored, "lines must not write depth");
            }
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}
