/* tests/test_raster_tiles.c — the pipeline's statistics, its tiles and threads (the same
 * image as one pass on one thread) and the maximum number of varyings through clipping (part of
 * the program test_raster; helpers: raster_test_helpers.h). */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"
#include "raster_reference.h"

#include "raster_test_helpers.h"

Test(raster, statistics_count_the_work)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[6] = {window_vertex(0, 0, 0.5, size, size),   window_vertex(0, 16, 0.5, size, size),
                        window_vertex(16, 0, 0.5, size, size),  window_vertex(40, 40, 0.5, size, size),
                        window_vertex(50, 40, 0.5, size, size), window_vertex(40, 50, 0.5, size, size)};
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    // Triangle 0 covers the upper-left half (136 centres: x + y + 1 < 16, plus the diagonal
    // owned by it? no: the diagonal is its right edge), triangle 1 is off-screen.
    draw(renderer, fb, v, 6, NULL, 6, &program, counter_state, 0);
    int covered = 0;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++)
            covered += x + y + 1 < 16;
    sr_raster_stats stats = sr_renderer_stats(renderer);
    cr_assert_eq(stats.triangles_in, 2);
    cr_assert_eq(stats.triangles_rasterized, 1);
    cr_assert_eq(stats.triangles_culled, 1);
    cr_assert_eq(stats.fragments_shaded, (uint64_t)covered);
    cr_assert_eq(stats.fragments_written, (uint64_t)covered);
    cr_assert_eq(count_written(fb), covered);
    sr_renderer_reset_stats(renderer);
    stats = sr_renderer_stats(renderer);
    cr_assert_eq(stats.triangles_in + stats.fragments_written, 0);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* The tiled renderer of DESIGN.md needs rasterising a set-up triangle over any split of the
 * screen into rectangles to give the same bits as one pass over the whole screen: the tiles' own
 * split (rectangles on the 4x2 block grid) and one whose rectangles cut blocks (their pixels then
 * go lane by lane), with both variants of the fill (native and portable). */
Test(raster, tiles_reproduce_the_single_pass_image)
{
    const int size = 80;
    sr_framebuffer *whole = fb_new(size, size, true), *tiled = fb_new(size, size, true);
    test_vertex *vertices;
    uint32_t *indices;
    size_t vertex_count;
    size_t index_count = make_sphere(0.1, 0.05, -3.0, 1.2, 17, 9, &vertices, &indices, &vertex_count);
    float *capture = NULL;
    test_uniforms u = {.use_matrix = true,
                       .matrix = sr_mat4_perspective(1.0f, 1.0f, 0.1f, 10.0f),
                       .varying_count = 3,
                       .world_varyings = true,
                       .color = {0.5f, 0.25f, 1.0f, 0.5f},
                       .capture = capture};
    // Alpha blending takes the generic per-pixel path, the default state the fast one.
    const sr_render_state states[2] = {{.blend = SR_BLEND_ALPHA}, {0}};
    const sr_fill_fn fills[2] = {sr_raster_fill_triangle_native, sr_raster_fill_triangle_portable};
    const int tile_sizes[2][2] = {{24, 16}, {13, 7}};
    for (int pass = 0; pass < 8; pass++) {
        const int tile_width = tile_sizes[pass / 4][0], tile_height = tile_sizes[pass / 4][1];
        sr_draw_context context = {.viewport = sr_raster_viewport(size, size),
                                   .fill = fills[pass / 2 % 2],
                                   .fragment = test_fragment_fn,
                                   .uniforms = &u,
                                   .varying_count = 3,
                                   .attribute_count = 3,
                                   .state = states[pass % 2]};
        sr_fragment_counters counters = {0, 0};
        fb_fill(whole, 0, 1.0f);
        fb_fill(tiled, 0, 1.0f);
        for (size_t t = 0; t < index_count; t += 3) {
            sr_screen_vertex screen[3];
            float varyings[3][SR_ATTRIBUTE_SLOTS_FOR(3)] = {{0}}; // zero-padded, as the setup reads
            for (int k = 0; k < 3; k++) {
                float clip[4];
                test_vertex_fn(&vertices[indices[t + (size_t)k]], &u, clip, varyings[k]);
                screen[k] = sr_raster_project(clip, &context.viewport);
            }
            const float *const attributes[3] = {varyings[0], varyings[1], varyings[2]};
            sr_triangle_setup setup;
            if (sr_raster_setup_triangle(&context, &screen[0], &screen[1], &screen[2], attributes, (uint32_t)t,
                                         &setup) != SR_SETUP_OK)
                continue;
            context.fb = whole;
            sr_raster_fill_triangle(&context, &setup, (sr_pixel_rect){0, 0, size - 1, size - 1}, &counters);
            context.fb = tiled;
            for (int ty = 0; ty < size; ty += tile_height)
                for (int tx = 0; tx < size; tx += tile_width) {
                    sr_pixel_rect tile = {tx, ty, tx + tile_width - 1, ty + tile_height - 1};
                    tile.max_x = tile.max_x < size - 1 ? tile.max_x : size - 1;
                    tile.max_y = tile.max_y < size - 1 ? tile.max_y : size - 1;
                    sr_raster_fill_triangle(&context, &setup, tile, &counters);
                }
        }
        size_t pixels = (size_t)size * size;
        cr_assert_gt(counters.written, 2000, "pass %d", pass);
        cr_assert(memcmp(whole->color, tiled->color, pixels * sizeof *whole->color) == 0);
        cr_assert(memcmp(whole->depth, tiled->depth, pixels * sizeof *whole->depth) == 0);
        cr_assert(memcmp(whole->ids, tiled->ids, pixels * sizeof *whole->ids) == 0);
    }
    free(vertices);
    free(indices);
    fb_delete(whole);
    fb_delete(tiled);
}

/* DESIGN.md: with several threads the image is bit-identical to the single-threaded one. A mix of
 * small and large, clipped and unclipped, front and back triangles with ids and barycentrics, in
 * the fast and the generic per-pixel paths, drawn with 1, 2, 3 and 5 threads. */
Test(raster, threads_give_the_single_thread_image)
{
    const int width = 150, height = 101;
    test_vertex *sphere;
    uint32_t *sphere_indices;
    size_t sphere_count;
    size_t sphere_index_count = make_sphere(0.2, -0.1, -3.0, 1.3, 41, 23, &sphere, &sphere_indices, &sphere_count);
    // Plus, in the same draw (large enough to be split between threads), large triangles crossing
    // the near plane and the whole view.
    const test_vertex big[6] = {{{-3, -2, -1.5f, 1}, {0}}, {{3, -1, -6, 1}, {0}}, {{0.5f, 2, 1.5f, 1}, {0}},
                                {{-8, 5, -2, 1}, {0}},     {{9, 4, -9, 1}, {0}},  {{1, -9, -4, 1}, {0}}};
    sphere = realloc(sphere, (sphere_count + 6) * sizeof *sphere);
    sphere_indices = realloc(sphere_indices, (sphere_index_count + 6) * sizeof *sphere_indices);
    cr_assert(sphere && sphere_indices);
    for (int k = 0; k < 6; k++) {
        sphere[sphere_count + (size_t)k] = big[k];
        sphere_indices[sphere_index_count + (size_t)k] = (uint32_t)(sphere_count + (size_t)k);
    }
    sphere_count += 6;
    sphere_index_count += 6;
    const sr_render_state states[3] = {{0},
                                       {.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_LESS_EQUAL},
                                       {.cull = SR_CULL_BACK, .depth_func = SR_DEPTH_GREATER}};
    const int thread_counts[4] = {1, 2, 3, 5};
    sr_framebuffer *reference = NULL;
    sr_raster_stats reference_stats = {0};
    for (int s = 0; s < 3; s++)
        for (int c = 0; c < 4; c++) {
            sr_renderer *renderer = NULL;
            sr_error err;
            cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = thread_counts[c]}, &renderer, &err), SR_OK,
                         "%s", err.message);
            sr_framebuffer *fb = fb_new(width, height, true);
            fb_fill(fb, 0, s == 2 ? 0.0f : 1.0f);
            float *capture = calloc((size_t)width * height * CAP_SIZE, sizeof *capture);
            test_uniforms u = {.use_matrix = true,
                               .matrix = sr_mat4_perspective(1.1f, (float)width / height, 0.1f, 20.0f),
                               .varying_count = 3,
                               .world_varyings = true,
                               .color = {0.3f, 0.6f, 0.9f, 0.7f},
                               .capture = capture,
                               .capture_width = width};
            sr_program program = program_for(&u);
            program.uses_barycentrics = true;
            draw(renderer, fb, sphere, sphere_count, sphere_indices, sphere_index_count, &program, states[s], 0);
            sr_raster_stats stats = sr_renderer_stats(renderer);
            if (c == 0) {
                if (reference)
                    fb_delete(reference);
                reference = fb;
                reference_stats = stats;
                cr_assert_gt(stats.fragments_written, 1000, "state %d", s);
                cr_assert_gt(stats.triangles_clipped, 0, "state %d", s);
            } else {
                size_t pixels = (size_t)width * height;
                cr_assert(memcmp(fb->color, reference->color, pixels * sizeof *fb->color) == 0, "state %d threads %d",
                          s, thread_counts[c]);
                cr_assert(memcmp(fb->depth, reference->depth, pixels * sizeof *fb->depth) == 0, "state %d threads %d",
                          s, thread_counts[c]);
                cr_assert(memcmp(fb->ids, reference->ids, pixels * sizeof *fb->ids) == 0, "state %d threads %d", s,
                          thread_counts[c]);
                cr_assert(memcmp(&stats, &reference_stats, sizeof stats) == 0,
                          "state %d threads %d: statistics differ (rasterized %llu vs %llu, culled %llu vs %llu)", s,
                          thread_counts[c], (unsigned long long)stats.triangles_rasterized,
                          (unsigned long long)reference_stats.triangles_rasterized,
                          (unsigned long long)stats.triangles_culled,
                          (unsigned long long)reference_stats.triangles_culled);
                fb_delete(fb);
            }
            free(capture);
            sr_renderer_destroy(renderer);
        }
    fb_delete(reference);
    free(sphere);
    free(sphere_indices);
}

/* Uniforms of counting_vertex_fn: test_uniforms first (test_vertex_fn and test_fragment_fn read
 * them), then a call counter per vertex. Each vertex must be transformed by one thread exactly
 * once, so the counters need no atomics (a second call from another thread would be a data race
 * that ThreadSanitizer reports, and a count of 2 here). */
typedef struct counting_uniforms {
    test_uniforms base;
    const test_vertex *first;
    int *calls;
} counting_uniforms;

static void counting_vertex_fn(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const counting_uniforms *u = uniforms;
    test_vertex_fn(vertex, uniforms, clip, varyings);
    u->calls[(const test_vertex *)vertex - u->first]++;
}

/* The multi-threaded draw sorts triangles into units of rows and hands the units out. On a
 * framebuffer too tall for SR_BAND_HEIGHT-row units (over 64 of them), with triangles skipped for
 * bad indices and NaN positions, rejected, clipped, and vertices no triangle references, every
 * thread count must give the single-threaded image and statistics; the statistics must count
 * the bad triangles built here, and each referenced vertex (found by scanning the indices) must
 * be transformed exactly once, the others never. Indexed and non-indexed draws. */
Test(raster, threads_match_on_a_tall_framebuffer_with_bad_triangles)
{
    const int width = 45, height = 2700;
    test_vertex *vertices;
    uint32_t *sphere_indices;
    size_t sphere_count;
    size_t sphere_index_count = make_sphere(0.0, 0.05, -3.0, 1.25, 37, 29, &vertices, &sphere_indices, &sphere_count);
    // Extra vertices: 3 crossing the near plane, 1 with a NaN position, 5 never referenced.
    const size_t extra = 9;
    vertices = realloc(vertices, (sphere_count + extra) * sizeof *vertices);
    cr_assert(vertices);
    const test_vertex near_crossing[3] = {
        {{-0.5f, -1.5f, 1.0f, 1}, {0}}, {{0.5f, -0.5f, -4.0f, 1}, {0}}, {{0.0f, 1.5f, -1.0f, 1}, {0}}};
    for (size_t k = 0; k < extra; k++)
        vertices[sphere_count + k] = k < 3 ? near_crossing[k] : (test_vertex){{0.1f * (float)k, 0.2f, -2.0f, 1}, {0}};
    const uint32_t near_first = (uint32_t)sphere_count, nan_vertex = (uint32_t)sphere_count + 3;
    vertices[nan_vertex].position[1] = NAN;
    const size_t vertex_count = sphere_count + extra;
    // The sphere's triangles with, every 50th, a bad one inserted: out-of-range index, NaN vertex
    // or the near-crossing triangle (clipped); and one behind the camera (rejected).
    size_t capacity = sphere_index_count * 2 + 64;
    uint32_t *indices = malloc(capacity * sizeof *indices);
    cr_assert(indices);
    size_t count = 0, out_of_range = 0, with_nan = 0;
    for (size_t t = 0; t < sphere_index_count / 3; t++) {
        memcpy(indices + count, sphere_indices + 3 * t, 3 * sizeof *indices);
        count += 3;
        if (t % 50 == 7) {
            uint32_t bad[3][3] = {
                {0, (uint32_t)(vertex_count + t), 1}, {2, nan_vertex, 3}, {near_first, near_first + 1, near_first + 2}};
            memcpy(indices + count, bad[(t / 50) % 3], 3 * sizeof *indices);
            out_of_range += (t / 50) % 3 == 0;
            with_nan += (t / 50) % 3 == 1;
            count += 3;
        }
    }
    cr_assert_gt(out_of_range, 0);
    cr_assert_gt(with_nan, 0);
    // Referenced vertices, by brute force (an out-of-range index references nothing).
    bool *referenced = calloc(vertex_count, sizeof *referenced);
    for (size_t i = 0; i < count; i++)
        if (indices[i] < vertex_count)
            referenced[indices[i]] = true;
    cr_assert(!referenced[vertex_count - 1], "the last vertices stay unreferenced");

    const int thread_counts[4] = {1, 2, 3, 7};
    for (int indexed = 1; indexed >= 0; indexed--) {
        // Non-indexed: the sphere's triangles written out (no bad ones), minus a partial tail.
        test_vertex *flat = NULL;
        size_t flat_count = sphere_index_count;
        if (!indexed) {
            flat = malloc(flat_count * sizeof *flat);
            cr_assert(flat);
            for (size_t i = 0; i < flat_count; i++)
                flat[i] = vertices[sphere_indices[i]];
        }
        sr_framebuffer *reference = NULL;
        sr_raster_stats reference_stats = {0};
        for (int c = 0; c < 4; c++) {
            sr_renderer *renderer = NULL;
            sr_error err;
            cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = thread_counts[c]}, &renderer, &err), SR_OK,
                         "%s", err.message);
            sr_framebuffer *fb = fb_new(width, height, true);
            int *calls = calloc(indexed ? vertex_count : flat_count, sizeof *calls);
            counting_uniforms u = {
                .base = {.use_matrix = true,
                         .matrix = sr_mat4_perspective(1.1f, (float)width / height * 40.0f, 0.1f, 20.0f),
                         .varying_count = 3,
                         .world_varyings = true,
                         .color = {0.2f, 0.7f, 0.4f, 0.6f}},
                .first = indexed ? vertices : flat,
                .calls = calls,
            };
            sr_program program = program_for(&u.base);
            program.vertex = counting_vertex_fn;
            program.uniforms = &u;
            // Two draws into one image: the second blends over the first (generic per-pixel path).
            draw(renderer, fb, u.first, indexed ? vertex_count : flat_count, indexed ? indices : NULL,
                 indexed ? count : flat_count - 2 * 3, &program, (sr_render_state){0}, 0);
            draw(renderer, fb, u.first, indexed ? vertex_count : flat_count, indexed ? indices : NULL,
                 indexed ? count : flat_count - 2 * 3, &program,
                 (sr_render_state){.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_LESS_EQUAL}, 1000000);
            for (size_t v = 0; v < (indexed ? vertex_count : flat_count - 6); v++)
                cr_assert_eq(calls[v], indexed && !referenced[v] ? 0 : 2,
                             "indexed %d threads %d: vertex %zu transformed %d times in 2 draws", indexed,
                             thread_counts[c], v, calls[v]);
            free(calls);
            sr_raster_stats stats = sr_renderer_stats(renderer);
            if (c == 0) {
                reference = fb;
                reference_stats = stats;
                cr_assert_gt(stats.fragments_written, 20000, "indexed %d", indexed);
                cr_assert_eq(stats.triangles_skipped, indexed ? 2 * (out_of_range + with_nan) : 0);
                if (indexed)
                    cr_assert_gt(stats.triangles_clipped, 0);
                // Rows drawn: the image must reach far beyond 64 bands of 32 rows.
                int last_row = 0;
                for (int i = 0; i < width * height; i++)
                    last_row = fb->ids[i] != SR_NO_ID ? i / width : last_row;
                cr_assert_gt(last_row, 64 * 32, "indexed %d: last drawn row %d", indexed, last_row);
            } else {
                size_t pixels = (size_t)width * height;
                cr_assert(memcmp(fb->color, reference->color, pixels * sizeof *fb->color) == 0, "threads %d",
                          thread_counts[c]);
                cr_assert(memcmp(fb->depth, reference->depth, pixels * sizeof *fb->depth) == 0, "threads %d",
                          thread_counts[c]);
                cr_assert(memcmp(fb->ids, reference->ids, pixels * sizeof *fb->ids) == 0, "threads %d",
                          thread_counts[c]);
                cr_assert(memcmp(&stats, &reference_stats, sizeof stats) == 0,
                          "indexed %d threads %d: statistics differ", indexed, thread_counts[c]);
                fb_delete(fb);
            }
            sr_renderer_destroy(renderer);
        }
        fb_delete(reference);
        free(flat);
    }
    free(referenced);
    free(indices);
    free(sphere_indices);
    free(vertices);
}

/* The largest programs: SR_MAX_VARYINGS varyings plus barycentrics, through clipping. Varying i
 * is the linear function (i + 1) x - i y + 0.5 z of the world position, so it is checked against
 * the analytic ray hit. */
typedef struct wide_vertex {
    float position[3];
} wide_vertex;

static void wide_vertex_fn(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const wide_vertex *v = vertex;
    const sr_mat4 *m = uniforms;
    sr_vec4 c = sr_mat4_mul_vec4(*m, (sr_vec4){v->position[0], v->position[1], v->position[2], 1.0f});
    clip[0] = c.x;
    clip[1] = c.y;
    clip[2] = c.z;
    clip[3] = c.w;
    for (int i = 0; i < SR_MAX_VARYINGS; i++)
        varyings[i] = (float)(i + 1) * v->position[0] - (float)i * v->position[1] + 0.5f * v->position[2];
}

typedef struct wide_uniforms {
    sr_mat4 matrix; ///< first: wide_vertex_fn reads the uniforms as an sr_mat4
    int width;
    float *values; ///< SR_MAX_VARYINGS + 3 per pixel, then a hit counter
} wide_uniforms;

static bool wide_fragment_fn(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    (void)out;
    const wide_uniforms *capture = uniforms;
    float *c = capture->values + ((size_t)in->y * (size_t)capture->width + (size_t)in->x) * (SR_MAX_VARYINGS + 4);
    for (int i = 0; i < SR_MAX_VARYINGS; i++)
        c[i] = in->varyings[i];
    for (int k = 0; k < 3; k++)
        c[SR_MAX_VARYINGS + k] = in->barycentric[k];
    c[SR_MAX_VARYINGS + 3] += 1.0f;
    return true;
}

Test(raster, maximum_varyings_with_barycentrics_through_clipping)
{
    const int size = 48;
    camera cam = {tan(35.0 * SR_PI / 180.0), 1.0, 0.1, 50.0, size, size};
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    wide_uniforms uniforms = {sr_mat4_perspective((float)(70.0 * SR_PI / 180.0), 1.0f, 0.1f, 50.0f), size,
                              calloc((size_t)size * size * (SR_MAX_VARYINGS + 4), sizeof(float))};
    const float positions[3][3] = {{-2.0f, -1.0f, -3.0f}, {2.0f, -1.5f, -4.0f}, {0.5f, 1.0f, 2.0f}};
    wide_vertex v[3];
    memcpy(v, positions, sizeof v);
    sr_program program = {.name = "wide",
                          .vertex = wide_vertex_fn,
                          .fragment = wide_fragment_fn,
                          .varying_count = SR_MAX_VARYINGS,
                          .uniforms = &uniforms,
                          .uses_barycentrics = true,
                          .vertex_size = sizeof(wide_vertex)};
    sr_error err;
    sr_draw_desc desc = {.vertices = v, .vertex_count = 3, .vertex_stride = sizeof *v, .program = &program};
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_renderer_stats(renderer).triangles_clipped, 1);
    const float *p[3] = {positions[0], positions[1], positions[2]};
    int checked = 0;
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            double t = 0.0, w[3] = {0.0, 0.0, 0.0};
            const float *c = uniforms.values + ((size_t)py * size + (size_t)px) * (SR_MAX_VARYINGS + 4);
            if (visible_hit(&cam, px, py, p, &t, w) != 1)
                continue;
            cr_assert_eq(c[SR_MAX_VARYINGS + 3], 1.0f, "pixel (%d, %d)", px, py);
            double d[3];
            pixel_ray(&cam, px, py, d);
            double x = d[0] * t, y = d[1] * t, z = d[2] * t;
            for (int i = 0; i < SR_MAX_VARYINGS; i++) {
                double expected = (i + 1) * x - i * y + 0.5 * z;
                cr_assert(fabs(c[i] - expected) <= 2e-3 * (1.0 + fabs(expected)), "pixel (%d, %d) varying %d: %g vs %g",
                          px, py, i, c[i], expected);
            }
            for (int k = 0; k < 3; k++)
                cr_assert(fabs(c[SR_MAX_VARYINGS + k] - w[k]) < 1e-3, "pixel (%d, %d) weight %d", px, py, k);
            checked++;
        }
    cr_assert_gt(checked, 100);
    free(uniforms.values);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}
