/* tests/test_raster_batches.c — batches of draws (sr_renderer_begin_batch, src/raster/batch.c):
 * a frame of hundreds of small draws made in a batch by 2, 3 and 4 threads must give the colour,
 * depth, ids and statistics of the same draws made one by one by one thread, bit for bit — with
 * every render state changing from draw to draw (face culling, blending, depth functions, depth
 * writes off, a program that writes depth, barycentrics), triangles clipped by the near plane and
 * reaching past the guard band, and, in the middle of the batch, what must be drawn after the
 * batch's earlier draws: a draw too large for the batch, lines, a draw into another framebuffer
 * and a clear. The caller's vertices and indices are overwritten right after each batched call
 * (a batch reads them during the call only). Bad arguments are refused with a message. */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_budget.h"

typedef struct vertex {
    float position[3];
    float value;
} vertex;

typedef struct uniforms {
    sr_mat4 view_projection;
    float alpha, shift;
} uniforms;

static void vertex_fn(const void *input, const void *user, float clip[4], float *varyings)
{
    const vertex *v = input;
    const uniforms *u = user;
    sr_vec4 c = sr_mat4_mul_vec4(u->view_projection, (sr_vec4){v->position[0], v->position[1], v->position[2], 1});
    clip[0] = c.x;
    clip[1] = c.y;
    clip[2] = c.z;
    clip[3] = c.w;
    varyings[0] = v->position[0];
    varyings[1] = v->position[1];
    varyings[2] = v->value + u->shift;
}

/* Colour from every interpolated input and the draw's uniforms (a wrong weight, varying or
 * uniform anywhere changes bits); a pattern of discards; a depth of its own. */
static bool fragment_fn(const sr_fragment_in *in, const void *user, sr_fragment_out *out)
{
    const uniforms *u = user;
    const float *v = in->varyings;
    if (((int)floorf(v[0] * 9.0f) + (int)floorf(v[1] * 9.0f)) % 7 == 0)
        return false;
    out->color[0] = v[0] - floorf(v[0]);
    out->color[1] = in->barycentric ? in->barycentric[1] : v[2] - floorf(v[2]);
    out->color[2] = in->front_facing ? 0.9f * u->alpha : 0.2f + 0.5f * in->depth;
    out->color[3] = u->alpha;
    out->depth = in->depth * 0.75f + 0.2f * (v[2] - floorf(v[2]));
    return true;
}

typedef struct mesh {
    vertex *vertices;
    uint32_t *indices;
    size_t vertex_count, index_count;
} mesh;

static uint64_t state = 0x9E3779B97F4A7C15ull;
static float uniform(float low, float high)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return low + (high - low) * (float)((state * 0x2545F4914F6CDD1Dull) >> 40) * 0x1.0p-24f;
}

/* A bumpy sphere of slices x stacks quads. */
static mesh make_sphere(float cx, float cy, float cz, float radius, int slices, int stacks)
{
    mesh m = {.vertex_count = (size_t)(slices + 1) * (size_t)(stacks + 1),
              .index_count = 6u * (size_t)(slices * stacks)};
    m.vertices = malloc(m.vertex_count * sizeof *m.vertices);
    m.indices = malloc(m.index_count * sizeof *m.indices);
    cr_assert(m.vertices && m.indices);
    size_t v = 0, i = 0;
    for (int j = 0; j <= stacks; j++)
        for (int k = 0; k <= slices; k++) {
            float theta = 3.14159265f * (float)j / (float)stacks, phi = 6.2831853f * (float)k / (float)slices;
            float r = radius * (1.0f + 0.08f * sinf(5.0f * phi) * sinf(3.0f * theta));
            m.vertices[v++] =
                (vertex){{cx + r * sinf(theta) * cosf(phi), cy + r * cosf(theta), cz - r * sinf(theta) * sinf(phi)},
                         (float)(j + k) * 0.29f};
        }
    for (int j = 0; j < stacks; j++)
        for (int k = 0; k < slices; k++) {
            uint32_t a = (uint32_t)(j * (slices + 1) + k), b = a + 1, c = a + (uint32_t)(slices + 1), d = c + 1;
            const uint32_t quad[6] = {a, c, b, b, c, d};
            for (int q = 0; q < 6; q++)
                m.indices[i++] = quad[q];
        }
    return m;
}

/* Two huge triangles: one crossing the near plane, one far past the guard band. */
static mesh make_huge(void)
{
    mesh m = {.vertex_count = 6, .index_count = 6};
    m.vertices = malloc(6 * sizeof *m.vertices);
    m.indices = malloc(6 * sizeof *m.indices);
    cr_assert(m.vertices && m.indices);
    const vertex v[6] = {{{-4, -3, 1.0f}, 0},         {{5, -2, -8}, 1.7f},     {{0.5f, 4, -2}, 3.3f},
                         {{-1e5f, -1e5f, -30}, 0.2f}, {{1e5f, -1e5f, -30}, 1}, {{0, 1e5f, -30}, 2}};
    memcpy(m.vertices, v, sizeof v);
    for (uint32_t k = 0; k < 6; k++)
        m.indices[k] = k;
    return m;
}

enum { SHAPES = 240, BIG_AT = 80, LINES_AT = 120, OTHER_AT = 160, CLEAR_AT = 200 };

typedef struct frame_input {
    mesh shapes[SHAPES], big, huge;
    uniforms u[SHAPES + 2];
    sr_render_state states[SHAPES];
    bool barycentrics[SHAPES], writes_depth[SHAPES];
} frame_input;

static void make_input(frame_input *in, int width, int height)
{
    const sr_mat4 vp = sr_mat4_perspective(1.1f, (float)width / (float)height, 0.1f, 40.0f);
    for (int i = 0; i < SHAPES; i++) {
        // Small shapes over the view; every 17th reaches through the near plane.
        float z = i % 17 == 0 ? -0.3f : uniform(-12.0f, -2.0f);
        in->shapes[i] = make_sphere(uniform(-0.5f, 0.5f) * -z, uniform(-0.4f, 0.4f) * -z, z, uniform(0.15f, 0.6f),
                                    4 + i % 7, 3 + i % 5);
        in->u[i] = (uniforms){.view_projection = vp, .alpha = uniform(0.3f, 1.0f), .shift = (float)i * 0.11f};
        const sr_blend_mode blends[4] = {SR_BLEND_NONE, SR_BLEND_NONE, SR_BLEND_ALPHA, SR_BLEND_ADDITIVE};
        const sr_depth_func depths[4] = {SR_DEPTH_LESS, SR_DEPTH_LESS_EQUAL, SR_DEPTH_GREATER, SR_DEPTH_ALWAYS};
        in->states[i] = (sr_render_state){.cull = (sr_cull_mode)(i % 3),
                                          .blend = blends[i % 4],
                                          .depth_func = i % 5 == 0 ? depths[(i / 5) % 4] : SR_DEPTH_LESS,
                                          .no_depth_write = i % 11 == 0};
        in->barycentrics[i] = i % 6 == 1;
        in->writes_depth[i] = i % 9 == 4;
    }
    in->big = make_sphere(0.3f, -0.2f, -6.0f, 2.0f, 80, 60); // 9,600 triangles: too large for a batch
    in->huge = make_huge();
    in->u[SHAPES] = (uniforms){.view_projection = vp, .alpha = 0.6f, .shift = 0.5f};
    in->u[SHAPES + 1] = (uniforms){.view_projection = vp, .alpha = 0.4f, .shift = 0.25f};
}

static void free_mesh(mesh *m)
{
    free(m->vertices);
    free(m->indices);
}

static void free_input(frame_input *in)
{
    for (int i = 0; i < SHAPES; i++)
        free_mesh(&in->shapes[i]);
    free_mesh(&in->big);
    free_mesh(&in->huge);
}

static sr_program program_for(const uniforms *u, bool barycentrics, bool writes_depth)
{
    return (sr_program){.name = "batches",
                        .vertex = vertex_fn,
                        .fragment = fragment_fn,
                        .varying_count = 3,
                        .uniforms = u,
                        .uses_barycentrics = barycentrics,
                        .writes_depth = writes_depth,
                        .vertex_size = sizeof(vertex)};
}

/* Draws `m` from copies of its arrays that are overwritten with garbage right after the call. */
static void draw_copy(sr_renderer *renderer, sr_framebuffer *fb, const mesh *m, const sr_program *program,
                      sr_render_state render_state, uint32_t base)
{
    vertex *vertices = malloc(m->vertex_count * sizeof *vertices);
    uint32_t *indices = malloc(m->index_count * sizeof *indices);
    cr_assert(vertices && indices);
    memcpy(vertices, m->vertices, m->vertex_count * sizeof *vertices);
    memcpy(indices, m->indices, m->index_count * sizeof *indices);
    sr_error err;
    sr_draw_desc desc = {.vertices = vertices,
                         .vertex_count = m->vertex_count,
                         .vertex_stride = sizeof(vertex),
                         .indices = indices,
                         .index_count = m->index_count,
                         .program = program,
                         .state = render_state,
                         .primitive_id_base = base};
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
    memset(vertices, 0xff, m->vertex_count * sizeof *vertices); // NaNs
    memset(indices, 0x5a, m->index_count * sizeof *indices);    // out of range
    free(vertices);
    free(indices);
}

/* The frame: a clear, the shapes with the interruptions of the header, the huge triangles. */
static void draw_frame(sr_renderer *renderer, sr_framebuffer *fb, sr_framebuffer *other, const frame_input *in,
                       bool batch)
{
    sr_error err;
    sr_renderer_clear(renderer, fb, 0xff302010u, 1.0f);
    if (batch)
        cr_assert_eq(sr_renderer_begin_batch(renderer, fb, &err), SR_OK, "%s", err.message);
    for (int i = 0; i < SHAPES; i++) {
        if (i == BIG_AT) {
            sr_program big = program_for(&in->u[SHAPES], false, false);
            draw_copy(renderer, fb, &in->big, &big, (sr_render_state){.blend = SR_BLEND_ALPHA}, 500000);
        }
        if (i == LINES_AT) {
            sr_line_vertex lines[2 * 64];
            for (int k = 0; k < 64; k++) {
                float a = 0.098f * (float)k;
                lines[2 * k] = (sr_line_vertex){{0.0f, 0.0f, -5.0f}, {1.0f, 0.2f, 0.1f, 0.8f}};
                lines[2 * k + 1] = (sr_line_vertex){{3.0f * cosf(a), 2.0f * sinf(a), -5.0f + 3.0f * sinf(2.0f * a)},
                                                    {0.1f, 0.9f, 1.0f, 0.6f}};
            }
            cr_assert_eq(sr_draw_lines(renderer, fb,
                                       &(sr_line_desc){.vertices = lines,
                                                       .vertex_count = 128,
                                                       .view_projection = in->u[0].view_projection,
                                                       .depth_test = true,
                                                       .blend = SR_BLEND_ALPHA,
                                                       .width = 2},
                                       &err),
                         SR_OK, "%s", err.message);
        }
        if (i == OTHER_AT) {
            sr_program p = program_for(&in->u[3], false, false);
            draw_copy(renderer, other, &in->shapes[3], &p, (sr_render_state){0}, 700000);
        }
        if (i == CLEAR_AT) {
            // A clear of the depth alone would be a user's way to draw on top; here all of it.
            sr_renderer_clear(renderer, fb, 0xff102030u, 0.5f);
        }
        sr_program p = program_for(&in->u[i], in->barycentrics[i], in->writes_depth[i]);
        draw_copy(renderer, fb, &in->shapes[i], &p, in->states[i], (uint32_t)i * 1000u);
    }
    sr_program huge = program_for(&in->u[SHAPES + 1], true, false);
    draw_copy(renderer, fb, &in->huge, &huge, (sr_render_state){.blend = SR_BLEND_ALPHA}, 900000);
    if (batch)
        cr_assert_eq(sr_renderer_end_batch(renderer, &err), SR_OK, "%s", err.message);
}

static sr_framebuffer *fb_new(int width, int height)
{
    sr_framebuffer *fb = NULL;
    sr_error err;
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &fb, &err), SR_OK,
        "%s", err.message);
    return fb;
}

static void assert_same_fb(const sr_framebuffer *fb, const sr_framebuffer *r, const char *what, int threads, int pass)
{
    size_t pixels = (size_t)fb->width * (size_t)fb->height;
    for (size_t i = 0; i < pixels; i++) {
        cr_assert(fb->color[i] == r->color[i], "%s, %d threads, frame %d: colour of pixel (%zu, %zu) %08x, not %08x",
                  what, threads, pass, i % (size_t)fb->width, i / (size_t)fb->width, fb->color[i], r->color[i]);
        cr_assert(memcmp(&fb->depth[i], &r->depth[i], sizeof(float)) == 0,
                  "%s, %d threads, frame %d: depth of pixel (%zu, %zu)", what, threads, pass, i % (size_t)fb->width,
                  i / (size_t)fb->width);
        cr_assert(fb->ids[i] == r->ids[i], "%s, %d threads, frame %d: id of pixel (%zu, %zu)", what, threads, pass,
                  i % (size_t)fb->width, i / (size_t)fb->width);
    }
}

Test(raster_batches, a_batch_gives_the_draws_made_one_by_one)
{
    const int width = 331, height = 217;
    frame_input *in = calloc(1, sizeof *in);
    cr_assert(in);
    make_input(in, width, height);
    sr_error err;
    sr_renderer *single = NULL;
    cr_assert_eq(sr_renderer_create(NULL, &single, &err), SR_OK, "%s", err.message);
    sr_framebuffer *reference = fb_new(width, height), *reference_other = fb_new(width, height);
    sr_framebuffer_clear(reference_other, 0, 1.0f);
    draw_frame(single, reference, reference_other, in, false);
    const sr_raster_stats expected = sr_renderer_stats(single);
    cr_assert_gt(expected.triangles_clipped, 0);
    cr_assert_gt(expected.triangles_backfacing, 0);
    cr_assert_gt(expected.fragments_written, (uint64_t)(width * height));
    cr_assert_gt(expected.lines_in, 0);

    const int thread_counts[4] = {1, 2, 3, 4};
    for (int c = 0; c < 4; c++) {
        if (SR_TEST_SANITIZED && c == 2)
            continue;
        sr_renderer *renderer = NULL;
        cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = thread_counts[c]}, &renderer, &err), SR_OK, "%s",
                     err.message);
        sr_framebuffer *fb = fb_new(width, height), *other = fb_new(width, height);
        // Twice: the first frame grows the batch's memory while it fills, the second has it.
        for (int pass = 0; pass < 2; pass++) {
            sr_framebuffer_clear(other, 0, 1.0f);
            sr_renderer_reset_stats(renderer);
            draw_frame(renderer, fb, other, in, true);
            sr_raster_stats stats = sr_renderer_stats(renderer);
            assert_same_fb(fb, reference, "frame", thread_counts[c], pass);
            assert_same_fb(other, reference_other, "other framebuffer", thread_counts[c], pass);
            cr_assert(memcmp(&stats, &expected, sizeof stats) == 0,
                      "%d threads, frame %d: statistics differ (rasterized %llu / %llu, shaded %llu / %llu, written "
                      "%llu / %llu)",
                      thread_counts[c], pass, (unsigned long long)stats.triangles_rasterized,
                      (unsigned long long)expected.triangles_rasterized, (unsigned long long)stats.fragments_shaded,
                      (unsigned long long)expected.fragments_shaded, (unsigned long long)stats.fragments_written,
                      (unsigned long long)expected.fragments_written);
        }
        sr_framebuffer_destroy(fb);
        sr_framebuffer_destroy(other);
        sr_renderer_destroy(renderer);
    }
    sr_framebuffer_destroy(reference);
    sr_framebuffer_destroy(reference_other);
    sr_renderer_destroy(single);
    free_input(in);
    free(in);
}

/* A batched draw's pixels wait for the batch's end (which is what lets the threads share them),
 * and a renderer destroyed with an open batch frees it. */
Test(raster_batches, pixels_arrive_at_the_end_of_the_batch)
{
    frame_input *in = calloc(1, sizeof *in);
    cr_assert(in);
    make_input(in, 64, 48);
    sr_error err;
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = 2}, &renderer, &err), SR_OK, "%s", err.message);
    sr_framebuffer *fb = fb_new(64, 48);
    sr_framebuffer_clear(fb, 0xff000000u, 1.0f);
    cr_assert_eq(sr_renderer_begin_batch(renderer, fb, &err), SR_OK, "%s", err.message);
    sr_program p = program_for(&in->u[1], false, false);
    mesh near = make_sphere(0.0f, 0.0f, -3.0f, 1.0f, 8, 6);
    draw_copy(renderer, fb, &near, &p, (sr_render_state){0}, 0);
    size_t changed = 0;
    for (size_t i = 0; i < 64 * 48; i++)
        changed += fb->color[i] != 0xff000000u;
    cr_assert_eq(changed, 0, "%zu pixels changed before the batch's end", changed);
    cr_assert_eq(sr_renderer_end_batch(renderer, &err), SR_OK, "%s", err.message);
    for (size_t i = 0; i < 64 * 48; i++)
        changed += fb->color[i] != 0xff000000u;
    cr_assert_gt(changed, 100, "the sphere covers the middle of the frame");
    // Ending a closed batch does nothing; a batch left open is freed with its renderer.
    cr_assert_eq(sr_renderer_end_batch(renderer, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_renderer_begin_batch(renderer, fb, &err), SR_OK, "%s", err.message);
    draw_copy(renderer, fb, &near, &p, (sr_render_state){0}, 0);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    free_mesh(&near);
    free_input(in);
    free(in);
}

Test(raster_batches, bad_arguments_are_refused)
{
    sr_error err;
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = 2}, &renderer, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_renderer_begin_batch(NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "sr_renderer_begin_batch: renderer is NULL"), "%s", err.message);
    cr_assert_eq(sr_renderer_begin_batch(renderer, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "sr_renderer_begin_batch: fb is NULL"), "%s", err.message);
    sr_framebuffer broken = {.width = 0, .height = 10};
    cr_assert_eq(sr_renderer_begin_batch(renderer, &broken, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "sr_renderer_begin_batch: fb size 0x10"), "%s", err.message);
    cr_assert_eq(sr_renderer_end_batch(NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "sr_renderer_end_batch: renderer is NULL"), "%s", err.message);
    sr_renderer_destroy(renderer);
}
