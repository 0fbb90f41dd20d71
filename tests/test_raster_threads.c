/* tests/test_raster_threads.c — multi-threaded drawing (src/raster/tiles.c, pool.c): with 2, 3,
 * 5 and 7 threads every framebuffer (colour, depth, ids) and the statistics must be those of one
 * thread, bit for bit (DESIGN.md), over sequences of draws that mix many small triangles with
 * few huge ones, clipped ones, triangles whose edges lie on tile borders, blending, a program
 * that writes depth and lines, with the program's fragment function in its one-fragment form,
 * its block form or both; the tile grid must stay within its limits; and an idle renderer's
 * workers must be asleep and stay still. The single-threaded draw is the reference: it never
 * sorts anything into tiles. On Linux, the workers must be kept off the processor the caller
 * offers a job from, while there are processors enough. */
#if defined(__linux__)
#define _GNU_SOURCE 1 /* sched_getcpu, sched_setaffinity, pthread_getaffinity_np, CPU_SET */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#endif
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/raster/raster_internal.h"
#include "test_budget.h"

typedef struct vertex {
    float position[3]; ///< world space (or clip xyz with w = 1 when uniforms.clip_space)
    float value;       ///< an extra varying
} vertex;

typedef struct uniforms {
    sr_mat4 view_projection;
    bool clip_space;
    float alpha;
} uniforms;

static void vertex_fn(const void *input, const void *user, float clip[4], float *varyings)
{
    const vertex *v = input;
    const uniforms *u = user;
    if (u->clip_space) {
        clip[0] = v->position[0];
        clip[1] = v->position[1];
        clip[2] = v->position[2];
        clip[3] = 1.0f;
    } else {
        sr_vec4 c = sr_mat4_mul_vec4(u->view_projection, (sr_vec4){v->position[0], v->position[1], v->position[2], 1});
        clip[0] = c.x;
        clip[1] = c.y;
        clip[2] = c.z;
        clip[3] = c.w;
    }
    varyings[0] = v->position[0];
    varyings[1] = v->position[1];
    varyings[2] = v->position[2];
    varyings[3] = v->value;
}

/* Colour from every interpolated input (a wrong weight or varying anywhere changes bits); a
 * checkerboard of discards in world space. */
static bool fragment_fn(const sr_fragment_in *in, const void *user, sr_fragment_out *out)
{
    const uniforms *u = user;
    const float *v = in->varyings;
    if (((int)floorf(v[0] * 7.0f) + (int)floorf(v[1] * 7.0f)) % 5 == 0)
        return false;
    out->color[0] = v[0] - floorf(v[0]);
    out->color[1] = in->barycentric ? in->barycentric[0] : v[3] - floorf(v[3]);
    out->color[2] = in->front_facing ? 0.9f : 0.2f + 0.5f * in->depth;
    out->color[3] = u->alpha;
    out->depth = in->depth * 0.5f + 0.25f * (v[3] - floorf(v[3]));
    return true;
}

/* fragment_fn a block at a time, as a user would write it: a loop over the lanes of the mask. It
 * keeps the lanes fragment_fn keeps and sets every bit outside the mask (ignored by contract). */
static uint32_t fragment_block_fn(const sr_fragment_block_in *in, const void *user, sr_fragment_block_out *out)
{
    uint32_t keep = ~in->mask;
    for (uint32_t mask = in->mask; mask; mask &= mask - 1) {
        int k = __builtin_ctz(mask);
        float varyings[4], barycentric[3];
        for (int i = 0; i < 4; i++)
            varyings[i] = in->varyings[i][k];
        for (int i = 0; in->barycentric && i < 3; i++)
            barycentric[i] = in->barycentric[i][k];
        sr_fragment_in one = {.x = in->x[k],
                              .y = in->y[k],
                              .depth = in->depth[k],
                              .varyings = varyings,
                              .barycentric = in->barycentric ? barycentric : NULL,
                              .primitive_id = in->primitive_id,
                              .front_facing = in->front_facing};
        sr_fragment_out o = {.color = {0.0f, 0.0f, 0.0f, 1.0f}, .depth = in->depth[k]};
        if (!fragment_fn(&one, user, &o))
            continue;
        keep |= 1u << k;
        for (int c = 0; c < 4; c++)
            out->color[c][k] = o.color[c];
        out->depth[k] = o.depth;
    }
    return keep;
}

/* Which fragment functions a frame's programs have. */
typedef enum form { FORM_ONE = 0, FORM_BLOCK, FORM_BOTH, FORM_COUNT } form;

/* The geometry of the draws, in one vertex array. */
typedef struct scene {
    vertex *vertices;
    size_t vertex_count, vertex_capacity;
    uint32_t *indices;
    size_t index_count, index_capacity;
} scene;

static uint32_t add_vertex(scene *s, float x, float y, float z, float value)
{
    if (s->vertex_count == s->vertex_capacity) {
        s->vertex_capacity = s->vertex_capacity ? 2 * s->vertex_capacity : 1024;
        s->vertices = realloc(s->vertices, s->vertex_capacity * sizeof *s->vertices);
        cr_assert(s->vertices);
    }
    s->vertices[s->vertex_count] = (vertex){{x, y, z}, value};
    return (uint32_t)s->vertex_count++;
}

static void add_triangle(scene *s, uint32_t a, uint32_t b, uint32_t c)
{
    if (s->index_count + 3 > s->index_capacity) {
        s->index_capacity = s->index_capacity ? 2 * s->index_capacity : 3072;
        s->indices = realloc(s->indices, s->index_capacity * sizeof *s->indices);
        cr_assert(s->indices);
    }
    s->indices[s->index_count++] = a;
    s->indices[s->index_count++] = b;
    s->indices[s->index_count++] = c;
}

/* A bumpy sphere of small triangles (both windings appear from the camera: front and back). */
static void add_sphere(scene *s, float cx, float cy, float cz, float radius, int slices, int stacks)
{
    uint32_t first = (uint32_t)s->vertex_count;
    for (int j = 0; j <= stacks; j++)
        for (int i = 0; i <= slices; i++) {
            float theta = (float)SR_PI * (float)j / (float)stacks, phi = 2.0f * (float)SR_PI * (float)i / (float)slices;
            float r = radius * (1.0f + 0.05f * sinf(5.0f * phi) * sinf(3.0f * theta));
            add_vertex(s, cx + r * sinf(theta) * cosf(phi), cy + r * cosf(theta), cz - r * sinf(theta) * sinf(phi),
                       (float)(i + j) * 0.37f);
        }
    for (int j = 0; j < stacks; j++)
        for (int i = 0; i < slices; i++) {
            uint32_t a = first + (uint32_t)(j * (slices + 1) + i), b = a + 1, c = a + (uint32_t)(slices + 1), d = c + 1;
            add_triangle(s, a, c, b);
            add_triangle(s, b, c, d);
        }
}

/* Draw 2: a sphere of ~6000 small triangles, with huge triangles among them: one crossing the near
 * plane (clipped), one reaching far beyond the guard band, a back-facing one, and ones whose
 * vertices are placed exactly on the tile grid's lines. */
static void build_mixed(scene *s)
{
    add_sphere(s, 0.1f, -0.05f, -3.0f, 1.2f, 60, 50);
    const float huge[5][3][3] = {
        {{-4, -3, 1.0f}, {5, -2, -8}, {0.5f, 4, -2}},              // crosses the near plane
        {{-1e5f, -1e5f, -40}, {1e5f, -1e5f, -40}, {0, 1e5f, -40}}, // far outside the guard band
        {{-3, 2, -5}, {3, 2, -5}, {0, -3, -5}},                    // clockwise seen from the camera
        {{-8, 5, -2}, {9, 4, -9}, {1, -9, -4}},
        {{-2, -2, -2.5f}, {2.5f, -1, -2.5f}, {-1, 2.5f, -2.5f}},
    };
    for (int t = 0; t < 5; t++) {
        uint32_t a = add_vertex(s, huge[t][0][0], huge[t][0][1], huge[t][0][2], 0.1f * (float)t);
        uint32_t b = add_vertex(s, huge[t][1][0], huge[t][1][1], huge[t][1][2], 1.7f);
        uint32_t c = add_vertex(s, huge[t][2][0], huge[t][2][1], huge[t][2][2], 3.3f);
        // Interleaved with the sphere, so that tiles see them in submission order among small ones.
        add_triangle(s, a, b, c);
        size_t at = s->index_count - 3, target = (size_t)(t + 1) * 1800 * 3;
        if (target < at)
            for (int k = 0; k < 3; k++) {
                uint32_t swap = s->indices[target + (size_t)k];
                s->indices[target + (size_t)k] = s->indices[at + (size_t)k];
                s->indices[at + (size_t)k] = swap;
            }
    }
}

/* Draw 1 (clip space): 300 large overlapping triangles at decreasing depths, blended: each covers
 * many tiles, so the first draw of a renderer does not have room for their entries (the chunks
 * that do not fit are drawn from their spans). Corners on the lines of the 64-pixel tile grid. */
static void build_overlapping(scene *s, int width, int height)
{
    for (int t = 0; t < 300; t++) {
        // Window x = 64 k exactly: NDC 2 * 64 k / width - 1 (exact in float for these sizes).
        float x0 = 2.0f * (float)(64 * (t % 3)) / (float)width - 1.0f;
        float y0 = 1.0f - 2.0f * (float)(64 * (t % 2)) / (float)height;
        float x1 = 1.0f - 0.01f * (float)(t % 7), y1 = -1.0f + 0.013f * (float)(t % 5);
        float z = 0.9f - 0.0025f * (float)t;
        uint32_t a = add_vertex(s, x0, y0, z, 0.0f), b = add_vertex(s, x1, y0 - 0.2f, z, 1.0f),
                 c = add_vertex(s, x0 + 0.3f, y1, z, 2.0f);
        if (t % 2)
            add_triangle(s, a, b, c);
        else
            add_triangle(s, a, c, b);
    }
}

typedef struct frame {
    sr_framebuffer *fb;
    sr_raster_stats stats;
} frame;

static sr_framebuffer *fb_new(int width, int height)
{
    sr_framebuffer *fb = NULL;
    sr_error err;
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &fb, &err), SR_OK,
        "%s", err.message);
    return fb;
}

static void draw_or_fail(sr_renderer *renderer, sr_framebuffer *fb, const scene *s, size_t first_index,
                         size_t index_count, const sr_program *program, sr_render_state state, uint32_t base)
{
    sr_error err;
    sr_draw_desc desc = {.vertices = s->vertices,
                         .vertex_count = s->vertex_count,
                         .vertex_stride = sizeof(vertex),
                         .indices = s->indices + first_index,
                         .index_count = index_count,
                         .program = program,
                         .state = state,
                         .primitive_id_base = base};
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
}

/* The sequence of draws of one frame. Returns, in *overflowed, whether the overlapping draw found
 * too little room for its tile entries (with threads; with one thread nothing is sorted). */
static void draw_frame(sr_renderer *renderer, sr_framebuffer *fb, const scene *world, size_t mixed_indices,
                       const scene *flat, bool *overflowed, form f)
{
    const int width = fb->width, height = fb->height;
    uniforms u = {.view_projection = sr_mat4_perspective(1.1f, (float)width / (float)height, 0.1f, 50.0f),
                  .alpha = 0.7f};
    uniforms clip_u = {.clip_space = true, .alpha = 0.35f};
    sr_program program = {.name = "threads",
                          .vertex = vertex_fn,
                          .fragment = f == FORM_BLOCK ? NULL : fragment_fn,
                          .fragment_block = f == FORM_ONE ? NULL : fragment_block_fn,
                          .varying_count = 4,
                          .uniforms = &u,
                          .vertex_size = sizeof(vertex)};
    sr_framebuffer_clear(fb, 0xff202020u, 1.0f);
    // 1: the overlapping large triangles, blended in order (first: a new renderer has no room
    // for their entries yet).
    sr_program flat_program = program;
    flat_program.uniforms = &clip_u;
    draw_or_fail(renderer, fb, flat, 0, flat->index_count, &flat_program,
                 (sr_render_state){.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_LESS_EQUAL}, 100000);
    *overflowed = renderer->entries_wanted > renderer->entry_capacity;
    // 2: the fast path (LESS, depth writes, no blending).
    draw_or_fail(renderer, fb, world, 0, mixed_indices, &program, (sr_render_state){0}, 0);
    // 3: the sphere again with barycentrics, back faces culled, additive, no depth writes.
    sr_program bary = program;
    bary.uses_barycentrics = true;
    draw_or_fail(renderer, fb, world, 0, mixed_indices, &bary,
                 (sr_render_state){.cull = SR_CULL_BACK,
                                   .blend = SR_BLEND_ADDITIVE,
                                   .no_depth_write = true,
                                   .depth_func = SR_DEPTH_GREATER_EQUAL},
                 200000);
    // 4: a program that writes depth (late test), front faces culled.
    sr_program late = program;
    late.writes_depth = true;
    draw_or_fail(renderer, fb, world, 0, mixed_indices, &late,
                 (sr_render_state){.cull = SR_CULL_FRONT, .depth_func = SR_DEPTH_LESS}, 300000);
    // 5: lines over everything (enough segments to be split between threads), depth-tested.
    enum { SEGMENTS = 400 };
    sr_line_vertex *lines = malloc(2 * SEGMENTS * sizeof *lines);
    cr_assert(lines);
    for (int k = 0; k < SEGMENTS; k++) {
        float a = 0.0157f * (float)k;
        lines[2 * k] = (sr_line_vertex){{0.1f, 0.0f, -3.0f}, {1.0f, 0.2f, 0.1f, 0.8f}};
        lines[2 * k + 1] = (sr_line_vertex){{0.1f + 2.5f * cosf(a), 2.0f * sinf(a), -3.0f + 2.0f * sinf(3.0f * a)},
                                            {0.1f, 0.9f, 1.0f, 0.5f}};
    }
    sr_error err;
    cr_assert_eq(sr_draw_lines(renderer, fb,
                               &(sr_line_desc){.vertices = lines,
                                               .vertex_count = 2 * SEGMENTS,
                                               .view_projection = u.view_projection,
                                               .depth_test = true,
                                               .blend = SR_BLEND_ALPHA,
                                               .width = 2,
                                               .depth_bias = 0.001f},
                               &err),
                 SR_OK, "%s", err.message);
    free(lines);
}

static void assert_same(const sr_framebuffer *fb, const sr_raster_stats *stats, const frame *reference, int threads,
                        int pass)
{
    size_t pixels = (size_t)fb->width * (size_t)fb->height;
    const sr_framebuffer *r = reference->fb;
    for (size_t i = 0; i < pixels; i++) {
        cr_assert(fb->color[i] == r->color[i], "%dx%d, %d threads, pass %d: colour of pixel (%zu, %zu) %08x, not %08x",
                  fb->width, fb->height, threads, pass, i % (size_t)fb->width, i / (size_t)fb->width, fb->color[i],
                  r->color[i]);
        cr_assert(memcmp(&fb->depth[i], &r->depth[i], sizeof(float)) == 0,
                  "%dx%d, %d threads, pass %d: depth of pixel (%zu, %zu)", fb->width, fb->height, threads, pass,
                  i % (size_t)fb->width, i / (size_t)fb->width);
        cr_assert(fb->ids[i] == r->ids[i], "%dx%d, %d threads, pass %d: id of pixel (%zu, %zu)", fb->width, fb->height,
                  threads, pass, i % (size_t)fb->width, i / (size_t)fb->width);
    }
    cr_assert(
        memcmp(stats, &reference->stats, sizeof *stats) == 0,
        "%dx%d, %d threads, pass %d: statistics differ (rasterized %llu / %llu, culled %llu / %llu, shaded %llu / "
        "%llu, written %llu / %llu)",
        fb->width, fb->height, threads, pass, (unsigned long long)stats->triangles_rasterized,
        (unsigned long long)reference->stats.triangles_rasterized, (unsigned long long)stats->triangles_culled,
        (unsigned long long)reference->stats.triangles_culled, (unsigned long long)stats->fragments_shaded,
        (unsigned long long)reference->stats.fragments_shaded, (unsigned long long)stats->fragments_written,
        (unsigned long long)reference->stats.fragments_written);
}

/* Every thread count and every form of the fragment function (one fragment at a time, called lane
 * by lane; a block at a time; both) gives the frame of one thread with the one-fragment form. In
 * failure messages, "pass" is 2 * form + frame. */
Test(raster_threads, every_thread_count_gives_the_single_thread_frame)
{
    const int sizes[3][2] = {{203, 149}, {64, 64}, {517, 300}};
    const int thread_counts[5] = {1, 2, 3, 5, 7};
    int overflows = 0; // first frames whose entries did not all fit: the path from the spans ran
    for (int z = 0; z < 3; z++) {
        const int width = sizes[z][0], height = sizes[z][1];
        scene world = {0}, flat = {0};
        build_mixed(&world);
        build_overlapping(&flat, width, height);
        frame reference = {0};
        for (int c = 0; c < 5 * FORM_COUNT; c++) {
            const form f = (form)(c / 5);
            // Under the sanitizers the largest frame is drawn with 1 and 7 threads only (every
            // form): the release run compares every thread count at every size; this run looks for
            // memory errors and undefined behaviour on the same paths, which the two smaller frames
            // take with every thread count (tiles split between threads, chunks that overflow,
            // lines shared out) and the largest with the most tiles and workers.
            if (SR_TEST_SANITIZED && z == 2 && c % 5 != 0 && c % 5 != 4)
                continue;
            sr_renderer *renderer = NULL;
            sr_error err;
            cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = thread_counts[c % 5]}, &renderer, &err),
                         SR_OK, "%s", err.message);
            sr_framebuffer *fb = fb_new(width, height);
            // Twice: the first frame of a renderer grows its tile memory during the frame, the
            // second has it.
            for (int pass = 0; pass < 2; pass++) {
                sr_renderer_reset_stats(renderer);
                bool overflowed = false;
                draw_frame(renderer, fb, &world, world.index_count, &flat, &overflowed, f);
                sr_raster_stats stats = sr_renderer_stats(renderer);
                if (c == 0 && pass == 0) {
                    reference.fb = fb_new(width, height);
                    size_t pixels = (size_t)width * (size_t)height;
                    memcpy(reference.fb->color, fb->color, pixels * sizeof *fb->color);
                    memcpy(reference.fb->depth, fb->depth, pixels * sizeof *fb->depth);
                    memcpy(reference.fb->ids, fb->ids, pixels * sizeof *fb->ids);
                    reference.stats = stats;
                    cr_assert_gt(stats.triangles_clipped, 0);
                    cr_assert_gt(stats.triangles_backfacing, 0);
                    cr_assert_gt(stats.fragments_written, (uint64_t)pixels, "%dx%d", width, height);
                    cr_assert_gt(stats.lines_in, 0);
                    continue;
                }
                assert_same(fb, &stats, &reference, thread_counts[c % 5], 2 * (int)f + pass);
                // The second frame has the room the first one wanted.
                if (thread_counts[c % 5] > 1)
                    cr_assert(!overflowed || pass == 0, "%dx%d, %d threads: overflow in the second frame", width,
                              height, thread_counts[c % 5]);
                overflows += overflowed;
            }
            sr_framebuffer_destroy(fb);
            sr_renderer_destroy(renderer);
        }
        sr_framebuffer_destroy(reference.fb);
        free(world.vertices);
        free(world.indices);
        free(flat.vertices);
        free(flat.indices);
    }
    cr_assert_gt(overflows, 0, "no first frame ran out of room for its tile entries");
}

/* Draws sharing one renderer one after the other, each with its own triangle count (the chunks
 * of the sorting change size, some draws stay on one thread), must each match one thread. */
Test(raster_threads, draws_of_every_size_match)
{
    scene world = {0};
    add_sphere(&world, 0.0f, 0.0f, -3.0f, 1.3f, 120, 90);
    const size_t counts[6] = {3 * 255, 3 * 256, 3 * 1000, 3 * 4097, 3 * 9000, world.index_count};
    sr_renderer *single = NULL, *multi = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(NULL, &single, &err), SR_OK);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = 3}, &multi, &err), SR_OK);
    sr_framebuffer *a = fb_new(333, 222), *b = fb_new(333, 222);
    uniforms u = {.view_projection = sr_mat4_perspective(1.0f, 1.5f, 0.1f, 50.0f), .alpha = 0.5f};
    sr_program program = {.name = "threads",
                          .vertex = vertex_fn,
                          .fragment = fragment_fn,
                          .varying_count = 4,
                          .uniforms = &u,
                          .vertex_size = sizeof(vertex)};
    sr_framebuffer_clear(a, 0, 1.0f);
    sr_framebuffer_clear(b, 0, 1.0f);
    for (int k = 0; k < 6; k++) {
        sr_render_state state = {.blend = k % 2 ? SR_BLEND_ALPHA : SR_BLEND_NONE};
        size_t first = (size_t)k * 3 * 2000 % (world.index_count - counts[k] + 3);
        first -= first % 3;
        draw_or_fail(single, a, &world, first, counts[k], &program, state, (uint32_t)(k * 100000));
        draw_or_fail(multi, b, &world, first, counts[k], &program, state, (uint32_t)(k * 100000));
        frame reference = {a, sr_renderer_stats(single)};
        sr_raster_stats stats = sr_renderer_stats(multi);
        assert_same(b, &stats, &reference, 3, k);
    }
    sr_framebuffer_destroy(a);
    sr_framebuffer_destroy(b);
    sr_renderer_destroy(single);
    sr_renderer_destroy(multi);
    free(world.vertices);
    free(world.indices);
}

/* Framebuffers of any size get at most SR_MAX_TILES tiles, at most SR_MAX_TILES_PER_SIDE on a
 * side, each a whole number of 8x8 blocks, and together they cover the framebuffer; tiles are
 * SR_TILE_SIZE pixels unless there are too few for the threads (then smaller, not below
 * SR_MIN_TILE_SIZE) or too many (then larger). */
Test(raster_threads, tile_grid_limits)
{
    const int sides[8] = {1, 7, 64, 65, 1280, 4097, 9999, SR_MAX_IMAGE_SIDE};
    const int workers[4] = {2, 3, 8, SR_MAX_THREADS};
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            for (int w = 0; w < 4; w++) {
                sr_tile_grid grid = sr_raster_tile_grid(sides[i], sides[j], workers[w]);
                cr_assert(grid.size >= SR_MIN_TILE_SIZE && grid.size % 8 == 0 && grid.size == 1 << grid.shift,
                          "%dx%d: tile size %d", sides[i], sides[j], grid.size);
                cr_assert(grid.columns <= SR_MAX_TILES_PER_SIDE && grid.rows <= SR_MAX_TILES_PER_SIDE &&
                          grid.count == grid.columns * grid.rows && grid.count <= SR_MAX_TILES);
                cr_assert(grid.columns * grid.size >= sides[i] && (grid.columns - 1) * grid.size < sides[i]);
                cr_assert(grid.rows * grid.size >= sides[j] && (grid.rows - 1) * grid.size < sides[j]);
                // Smaller than SR_TILE_SIZE only when there were too few tiles, larger only when too many.
                cr_assert(grid.size >= SR_TILE_SIZE || grid.size == SR_MIN_TILE_SIZE ||
                          grid.count < 4 * SR_TILES_PER_WORKER * workers[w]);
                cr_assert(grid.size <= SR_TILE_SIZE || grid.count > SR_MAX_TILES / 4 ||
                          grid.columns > SR_MAX_TILES_PER_SIDE / 2 || grid.rows > SR_MAX_TILES_PER_SIDE / 2);
            }
    sr_tile_grid hd = sr_raster_tile_grid(1280, 720, 2);
    cr_assert(hd.size == 128 && hd.columns == 10 && hd.rows == 6, "%d", hd.size);
    sr_tile_grid hd8 = sr_raster_tile_grid(1280, 720, 8);
    cr_assert(hd8.size == 64 && hd8.columns == 20 && hd8.rows == 12, "%d", hd8.size);
    sr_tile_grid huge = sr_raster_tile_grid(SR_MAX_IMAGE_SIDE, SR_MAX_IMAGE_SIDE, 2);
    cr_assert(huge.size == 256 && huge.count == SR_MAX_TILES, "%d", huge.size);
}

static void sleep_ms(int ms)
{
    struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0)
        ;
}

/* A renderer with threads that draws nothing uses no CPU: after a frame its workers go to sleep on
 * their condition variable within a moment (they spin for at most SPIN_NANOSECONDS = 0.2 ms
 * first), and once asleep, while nothing is drawn for 200 ms, none of them spins or wakes up. A draw then wakes
 * them and still gives the right image. A behavioural check, not a timing: the only time limit
 * is the generous one for the workers to fall asleep. */
Test(raster_threads, idle_workers_sleep_and_stay_asleep)
{
    sr_renderer *renderer = NULL, *single = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = 4}, &renderer, &err), SR_OK);
    cr_assert_eq(sr_renderer_create(NULL, &single, &err), SR_OK);
    scene world = {0};
    add_sphere(&world, 0.0f, 0.0f, -3.0f, 1.3f, 40, 30);
    sr_framebuffer *fb = fb_new(160, 120), *reference = fb_new(160, 120);
    uniforms u = {.view_projection = sr_mat4_perspective(1.0f, 4.0f / 3.0f, 0.1f, 50.0f), .alpha = 1.0f};
    sr_program program = {.name = "threads",
                          .vertex = vertex_fn,
                          .fragment = fragment_fn,
                          .varying_count = 4,
                          .uniforms = &u,
                          .vertex_size = sizeof(vertex)};
    for (int round = 0; round < 3; round++) {
        sr_framebuffer_clear(fb, 0, 1.0f);
        draw_or_fail(renderer, fb, &world, 0, world.index_count, &program, (sr_render_state){0}, 0);
        // Asleep within 5 s (a loaded test machine may take a while to run the workers at all):
        // every worker waiting on its condition variable and nothing counted for 20 ms. (Workers
        // woken for a job they come too late to join wait a moment before they sleep again.)
        sr_pool_activity before = sr_pool_read_activity(renderer->pool), previous;
        int waited = 0;
        do {
            previous = before;
            sleep_ms(20);
            waited += 20;
            before = sr_pool_read_activity(renderer->pool);
        } while ((before.sleeping < 3 || before.spins != previous.spins || before.wakeups != previous.wakeups) &&
                 waited < 5000);
        cr_assert_eq(before.sleeping, 3, "round %d: %d of 3 workers asleep", round, before.sleeping);
        sleep_ms(200);
        sr_pool_activity after = sr_pool_read_activity(renderer->pool);
        cr_assert_eq(after.sleeping, 3, "round %d", round);
        cr_assert_eq(after.spins, before.spins, "round %d: idle workers spun %llu rounds", round,
                     (unsigned long long)(after.spins - before.spins));
        cr_assert_eq(after.wakeups, before.wakeups, "round %d: idle workers woke up %llu times", round,
                     (unsigned long long)(after.wakeups - before.wakeups));
    }
    sr_framebuffer_clear(reference, 0, 1.0f);
    draw_or_fail(single, reference, &world, 0, world.index_count, &program, (sr_render_state){0}, 0);
    cr_assert(memcmp(fb->color, reference->color, 160 * 120 * sizeof *fb->color) == 0);
    cr_assert(memcmp(fb->ids, reference->ids, 160 * 120 * sizeof *fb->ids) == 0);
    sr_framebuffer_destroy(fb);
    sr_framebuffer_destroy(reference);
    sr_renderer_destroy(renderer);
    sr_renderer_destroy(single);
    free(world.vertices);
    free(world.indices);
}

#if defined(__linux__)
/* What worker 1 of a pool saw of itself inside a job. */
typedef struct cpu_probe {
    _Atomic int recorded;
    int cpu;
    bool affinity_read;
    cpu_set_t affinity;
} cpu_probe;

/* The job: worker 1 records its processor and the processors it may run on; the caller's share
 * (worker 0) keeps the job open until it has (5 s at most), so that the worker joins it. */
static void probe_job(void *data, int worker)
{
    cpu_probe *probe = data;
    if (worker == 0) {
        for (int waited = 0; !atomic_load(&probe->recorded) && waited < 5000; waited++)
            sleep_ms(1);
    } else if (worker == 1) {
        probe->cpu = sched_getcpu();
        probe->affinity_read = pthread_getaffinity_np(pthread_self(), sizeof probe->affinity, &probe->affinity) == 0;
        atomic_store(&probe->recorded, 1);
    }
}

/* Moves the calling thread onto processor `cpu` alone; false if the system refuses. */
static bool pin_caller(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0 && sched_getcpu() == cpu;
}

/* Offers probe_job from processor `caller_cpu` and returns what worker 1 saw. */
static cpu_probe probe_from(sr_worker_pool *pool, int caller_cpu)
{
    cpu_probe probe = {.cpu = -1};
    cr_assert(pin_caller(caller_cpu), "cannot move the test onto processor %d", caller_cpu);
    sr_pool_start(pool, probe_job, &probe);
    probe_job(&probe, 0);
    sr_pool_finish(pool);
    cr_assert(atomic_load(&probe.recorded), "worker 1 did not join the job within 5 s");
    cr_assert(probe.affinity_read, "pthread_getaffinity_np failed in the worker");
    return probe;
}

/* pool.c: where there are more processors than the caller and its workers, a job offered from
 * processor c runs its workers on the process's other processors only, and follows the caller
 * when it moves; with fewer processors, the workers keep the whole set. Checked through the
 * workers' own affinity masks (pthread_getaffinity_np) and processors (sched_getcpu), the
 * caller pinned to one processor and then another. */
Test(raster_threads, workers_are_kept_off_the_callers_processor)
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    cr_assert_eq(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    const int count = CPU_COUNT(&allowed);
    if (count < 2)
        cr_skip_test("one processor available to the test: nothing to keep the workers off");
    int cpus[2], found = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++)
        if (CPU_ISSET(cpu, &allowed))
            cpus[found++] = cpu;
    if (!pin_caller(cpus[0]))
        cr_skip_test("the system refuses to pin the test to processor %d", cpus[0]);
    /* the pool is made with the whole set: threads inherit their creator's processors */
    sched_setaffinity(0, sizeof allowed, &allowed);
    sr_worker_pool *pool = NULL;
    sr_error err;
    cr_assert_eq(sr_pool_create(1, &pool, &err), SR_OK, "%s", err.message);
    for (int round = 0; round < 4; round++) {
        const int caller = cpus[round % 2], other = cpus[1 - round % 2];
        const cpu_probe probe = probe_from(pool, caller);
        cr_assert_neq(probe.cpu, caller, "round %d: the worker ran on the caller's processor %d", round, caller);
        cr_assert(!CPU_ISSET(caller, &probe.affinity), "round %d: the worker may still run on processor %d", round,
                  caller);
        cr_assert(CPU_ISSET(other, &probe.affinity), "round %d: the worker may not run on processor %d", round, other);
        cr_assert_eq(CPU_COUNT(&probe.affinity), count - 1, "round %d: the worker may run on %d processors, not %d",
                     round, CPU_COUNT(&probe.affinity), count - 1);
    }
    sr_pool_destroy(pool);
    sched_setaffinity(0, sizeof allowed, &allowed);

    /* as many workers as processors: with the caller, one thread too many to keep any processor free */
    if (count <= SR_MAX_THREADS - 1) {
        cr_assert_eq(sr_pool_create(count, &pool, &err), SR_OK, "%s", err.message);
        const cpu_probe probe = probe_from(pool, cpus[0]);
        cr_assert(CPU_EQUAL(&probe.affinity, &allowed), "%d workers for %d processors: the workers were steered",
                  count, count);
        sr_pool_destroy(pool);
    }
    sched_setaffinity(0, sizeof allowed, &allowed);
}
#endif

/* sr_renderer_clear gives sr_framebuffer_clear's buffers with any number of threads, on
 * framebuffers whose rows do not divide into its bands, with and without ids, for depth 0 (the
 * memset path) and others. */
Test(raster_threads, renderer_clear_is_framebuffer_clear)
{
    const int sizes[3][2] = {{1, 1}, {300, 301}, {1283, 77}};
    const int thread_counts[4] = {1, 2, 5, 7};
    const float depths[2] = {0.0f, 0.75f};
    for (int z = 0; z < 3; z++)
        for (int c = 0; c < 4; c++)
            for (int with_ids = 0; with_ids < 2; with_ids++) {
                sr_renderer *renderer = NULL;
                sr_framebuffer *fb = NULL, *reference = NULL;
                sr_error err;
                sr_framebuffer_desc desc = {.width = sizes[z][0], .height = sizes[z][1], .ids = with_ids};
                cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = thread_counts[c]}, &renderer, &err),
                             SR_OK);
                cr_assert_eq(sr_framebuffer_create(&desc, &fb, &err), SR_OK);
                cr_assert_eq(sr_framebuffer_create(&desc, &reference, &err), SR_OK);
                size_t pixels = (size_t)desc.width * (size_t)desc.height;
                for (int d = 0; d < 2; d++) {
                    // Garbage first, so that every pixel must be written.
                    for (size_t i = 0; i < pixels; i++) {
                        fb->color[i] = (uint32_t)i * 2654435761u;
                        fb->depth[i] = (float)i;
                        if (fb->ids)
                            fb->ids[i] = (uint32_t)i;
                    }
                    sr_renderer_clear(renderer, fb, 0x80402010u, depths[d]);
                    sr_framebuffer_clear(reference, 0x80402010u, depths[d]);
                    cr_assert(memcmp(fb->color, reference->color, pixels * sizeof *fb->color) == 0);
                    cr_assert(memcmp(fb->depth, reference->depth, pixels * sizeof *fb->depth) == 0);
                    if (with_ids)
                        cr_assert(memcmp(fb->ids, reference->ids, pixels * sizeof *fb->ids) == 0);
                }
                sr_framebuffer_destroy(fb);
                sr_framebuffer_destroy(reference);
                sr_renderer_destroy(renderer);
            }
    sr_renderer_clear(NULL, NULL, 0, 1.0f); // nothing happens
}
