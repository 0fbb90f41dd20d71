/* tests/test_raster_batch.c — the screening of triangles in batches (src/raster/triangle_batch.c)
 * against the one-triangle setup it stands in for (triangle.c): for 300,000 random triangles
 * (sub-pixel, small, medium and large; vertices on pixel centres and edges through them, slivers
 * whose only pixel the fill rule decides; degenerate; off the viewport's sides; with clip flags,
 * non-finite vertices and invalid indices) every variant the processor runs gives setup's
 * verdict for every triangle it decides and decides every small unclipped one, and the setup
 * made from its steps for the triangles it sends to be drawn is setup's own, byte for byte (also
 * the one made from the one block's coverage alone, as the sorting into tiles keeps it); and
 * draws with the batches (one thread, and three threads, whose sorting into tiles screens the
 * triangles too) give the image, depth, ids and statistics of the same draws with every
 * triangle sent through the one-triangle path. */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"

/* xorshift64*: a fixed sequence on every platform */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545f4914f6cdd1dull;
}

static int32_t random_in(uint64_t *state, int32_t low, int32_t high)
{
    return low + (int32_t)(next_random(state) % (uint64_t)(high - low + 1));
}

/* A random vertex offset from (base_x, base_y) by up to `reach` sub-pixel units, snapped to
 * pixel centres (multiples of 128 that are odd multiples: the centres are at 128 mod 256) or to
 * half pixels now and then, so that vertices and edges pass exactly through centres. */
static void random_vertex(uint64_t *state, int32_t base_x, int32_t base_y, int32_t reach, int snap, int32_t *x,
                          int32_t *y)
{
    *x = base_x + random_in(state, -reach, reach);
    *y = base_y + random_in(state, -reach, reach);
    if (snap == 1) {
        *x = (*x & ~255) | 128;
        *y = (*y & ~255) | 128;
    } else if (snap == 2) {
        *x &= ~127;
        *y &= ~127;
    }
}

typedef struct random_triangle {
    sr_screen_vertex v[3];
    bool valid;
} random_triangle;

static random_triangle make_triangle(uint64_t *state, int width, int height)
{
    random_triangle t = {.valid = true};
    const int32_t reaches[] = {200, 700, 4 * 256, 16 * 256, 63 * 256 / 2, 100 * 256};
    const int32_t reach = reaches[next_random(state) % 6];
    const int snap = (int)(next_random(state) % 4); /* 0 or 3: no snapping */
    const int32_t base_x = random_in(state, -40 * 256, (width + 40) * 256);
    const int32_t base_y = random_in(state, -40 * 256, (height + 40) * 256);
    for (int k = 0; k < 3; k++) {
        random_vertex(state, base_x, base_y, reach, snap, &t.v[k].x, &t.v[k].y);
        t.v[k].z = 0.5f;
        t.v[k].inv_w = 1.0f;
        t.v[k].flags = 0;
    }
    const uint64_t kind = next_random(state) % 100;
    if (kind < 4) {
        t.v[2] = t.v[kind % 2]; /* a repeated vertex: zero area */
    } else if (kind < 8) {
        /* collinear: the third vertex on the line through the others */
        t.v[2].x = 2 * t.v[1].x - t.v[0].x;
        t.v[2].y = 2 * t.v[1].y - t.v[0].y;
    } else if (kind < 12) {
        t.v[next_random(state) % 3].flags |= 1u << (next_random(state) % SR_CLIP_PLANE_COUNT);
    } else if (kind < 14) {
        t.v[next_random(state) % 3].flags |= SR_VERTEX_NONFINITE;
    } else if (kind < 16) {
        for (int k = 0; k < 3; k++)
            t.v[k].flags |= SR_OUT_LEFT; /* rejected whole */
    } else if (kind < 18) {
        t.v[0].flags |= SR_OUT_TOP; /* partly outside the view volume, inside the guard band */
    } else if (kind < 20) {
        t.valid = false;
    } else if (kind < 35) {
        /* a sliver whose one long edge passes exactly through a pixel centre, horizontal,
         * vertical or diagonal, the third vertex a little to either side: whether it covers
         * that centre is the fill rule's decision alone */
        const int32_t centre_x = (base_x & ~255) | 128, centre_y = (base_y & ~255) | 128;
        const int32_t along = random_in(state, 40, 300), side = random_in(state, -60, 60);
        const int direction = (int)(next_random(state) % 4);
        const int32_t dx = direction == 1 ? 0 : direction == 3 ? -1 : 1, dy = direction == 0 ? 0 : 1;
        t.v[0].x = centre_x - dx * along;
        t.v[0].y = centre_y - dy * along;
        t.v[1].x = centre_x + dx * along;
        t.v[1].y = centre_y + dy * along;
        t.v[2].x = centre_x + random_in(state, -along, along) * dx - dy * side;
        t.v[2].y = centre_y + random_in(state, -along, along) * dy + dx * side;
    }
    return t;
}

/* What setup says of the triangle, as a batch verdict. */
static int setup_verdict(const sr_draw_context *context, const random_triangle *t)
{
    static const float no_attributes[SR_ATTRIBUTE_SLOTS];
    const float *const attributes[3] = {no_attributes, no_attributes, no_attributes};
    sr_triangle_setup setup;
    switch (sr_raster_setup_triangle(context, &t->v[0], &t->v[1], &t->v[2], attributes, 7, &setup)) {
    case SR_SETUP_NO_PIXEL:
        return SR_BATCH_NO_PIXEL;
    case SR_SETUP_CULLED:
        return SR_BATCH_ZERO_AREA;
    case SR_SETUP_BACKFACE:
        return SR_BATCH_BACKFACE;
    case SR_SETUP_OK:
        return setup.empty ? SR_BATCH_EMPTY : SR_BATCH_DRAW;
    }
    return -1;
}

/* Whether a batch must decide the triangle: valid, no flag that sends it to clipping or skips
 * it, not rejected whole, and small (its vertices within SR_SMALL_TRIANGLE pixels). */
static bool decidable(const random_triangle *t)
{
    uint32_t any = t->v[0].flags | t->v[1].flags | t->v[2].flags;
    uint32_t all = t->v[0].flags & t->v[1].flags & t->v[2].flags;
    if (!t->valid || (any & (SR_VERTEX_NONFINITE | SR_CLIP_MASK)) || (all & SR_REJECT_MASK))
        return false;
    int32_t low_x = INT32_MAX, high_x = INT32_MIN, low_y = INT32_MAX, high_y = INT32_MIN;
    for (int k = 0; k < 3; k++) {
        low_x = t->v[k].x < low_x ? t->v[k].x : low_x;
        high_x = t->v[k].x > high_x ? t->v[k].x : high_x;
        low_y = t->v[k].y < low_y ? t->v[k].y : low_y;
        high_y = t->v[k].y > high_y ? t->v[k].y : high_y;
    }
    const int64_t limit = (int64_t)SR_SMALL_TRIANGLE * SR_SUBPIXEL_ONE;
    return (int64_t)high_x - low_x < limit && (int64_t)high_y - low_y < limit;
}

Test(raster_batch, verdicts_are_setups_in_every_variant)
{
    const sr_isa isas[] = {SR_ISA_BUILD, SR_ISA_AVX2, SR_ISA_AVX512};
    const int sizes[][2] = {{97, 61}, {1280, 720}};
    const sr_cull_mode culls[] = {SR_CULL_NONE, SR_CULL_BACK, SR_CULL_FRONT};
    int variants = 0;
    for (int v = 0; v < 3; v++) {
        sr_screen_batch_fn screen = sr_raster_screen_batch_for(isas[v]);
        if (!screen)
            continue;
        variants++;
        size_t seen[SR_BATCH_DRAW + 1] = {0};
        for (int s = 0; s < 2; s++) {
            for (int c = 0; c < 3; c++) {
                sr_draw_context context = {.viewport = sr_raster_viewport(sizes[s][0], sizes[s][1])};
                context.state.cull = culls[c % 3];
                uint64_t state = 0x9e3779b97f4a7c15ull + (uint64_t)(3 * s + c);
                for (int round = 0; round < 300000 / 6 / SR_TRIANGLE_BATCH; round++) {
                    random_triangle t[SR_TRIANGLE_BATCH];
                    sr_triangle_batch batch;
                    for (int i = 0; i < SR_TRIANGLE_BATCH; i++) {
                        t[i] = make_triangle(&state, sizes[s][0], sizes[s][1]);
                        uint32_t any = 0, all = UINT32_MAX;
                        for (int k = 0; k < 3; k++) {
                            batch.x[k][i] = t[i].valid ? t[i].v[k].x : 0;
                            batch.y[k][i] = t[i].valid ? t[i].v[k].y : 0;
                            any |= t[i].valid ? t[i].v[k].flags : 0;
                            all &= t[i].valid ? t[i].v[k].flags : 0;
                        }
                        batch.flags_any[i] = any;
                        batch.flags_all[i] = all;
                        batch.valid[i] = t[i].valid;
                    }
                    sr_triangle_verdicts verdicts;
                    screen(&context, &batch, &verdicts);
                    for (int i = 0; i < SR_TRIANGLE_BATCH; i++) {
                        const int got = verdicts.verdict[i];
                        cr_assert(got >= SR_BATCH_SCALAR && got <= SR_BATCH_DRAW);
                        seen[got]++;
                        if (!decidable(&t[i])) {
                            cr_assert_eq(got, SR_BATCH_SCALAR,
                                         "%s, round %d lane %d: decided %d a triangle it must "
                                         "leave to the one-triangle path",
                                         sr_isa_name(isas[v]), round, i, got);
                            continue;
                        }
                        const int want = setup_verdict(&context, &t[i]);
                        if (got == SR_BATCH_DRAW) {
                            /* the setup from the batch's steps is setup's own, byte for byte */
                            static const float no_attributes[SR_ATTRIBUTE_SLOTS];
                            const float *const attributes[3] = {no_attributes, no_attributes, no_attributes};
                            sr_triangle_setup direct, screened;
                            memset(&direct, 0, sizeof direct);
                            memset(&screened, 0, sizeof screened);
                            sr_raster_setup_triangle(&context, &t[i].v[0], &t[i].v[1], &t[i].v[2], attributes, 9,
                                                     &direct);
                            sr_raster_setup_screened(&context, &t[i].v[0], &t[i].v[1], &t[i].v[2], attributes, 9,
                                                     &verdicts, i, &screened);
                            cr_assert_eq(memcmp(&direct, &screened, sizeof direct), 0,
                                         "%s, round %d lane %d: the screened setup differs (bounds %d %d %d %d / "
                                         "%d %d %d %d, tiny %x / %x)",
                                         sr_isa_name(isas[v]), round, i, direct.bounds.min_x, direct.bounds.min_y,
                                         direct.bounds.max_x, direct.bounds.max_y, screened.bounds.min_x,
                                         screened.bounds.min_y, screened.bounds.max_x, screened.bounds.max_y,
                                         direct.tiny_mask, screened.tiny_mask);
                            if (verdicts.covered[i]) {
                                /* the sorting into tiles keeps only the coverage: its setup is setup's own too */
                                sr_triangle_setup covered;
                                memset(&covered, 0, sizeof covered);
                                cr_assert_eq(sr_raster_setup_covered(&context, &t[i].v[0], &t[i].v[1], &t[i].v[2],
                                                                     attributes, 9, verdicts.covered[i], &covered),
                                             SR_SETUP_OK);
                                cr_assert_eq(memcmp(&direct, &covered, sizeof direct), 0,
                                             "%s, round %d lane %d: the setup from the kept coverage differs (tiny "
                                             "%x / %x)",
                                             sr_isa_name(isas[v]), round, i, direct.tiny_mask, covered.tiny_mask);
                            }
                        }
                        cr_assert_eq(got, want,
                                     "%s, %dx%d, cull %d, round %d lane %d: batch %d, setup %d; vertices (%d, %d) "
                                     "(%d, %d) (%d, %d)",
                                     sr_isa_name(isas[v]), sizes[s][0], sizes[s][1], (int)culls[c % 3], round, i, got,
                                     want, t[i].v[0].x, t[i].v[0].y, t[i].v[1].x, t[i].v[1].y, t[i].v[2].x,
                                     t[i].v[2].y);
                    }
                }
            }
        }
        /* every verdict occurs, so none of the comparisons above is vacuous */
        for (int k = SR_BATCH_SCALAR; k <= SR_BATCH_DRAW; k++)
            cr_assert_gt(seen[k], 100, "%s: verdict %d seen %zu times", sr_isa_name(isas[v]), k, seen[k]);
    }
    cr_assert_geq(variants, 1);
}

/* ---- whole draws ---- */

/* A batch variant that decides nothing: every triangle takes the one-triangle path. */
static void decide_nothing(const sr_draw_context *context, const sr_triangle_batch *in, sr_triangle_verdicts *out)
{
    (void)context;
    (void)in;
    for (int i = 0; i < SR_TRIANGLE_BATCH; i++)
        out->verdict[i] = SR_BATCH_SCALAR;
}

static void flat_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    (void)uniforms;
    const float *p = vertex;
    clip[0] = p[0];
    clip[1] = p[1];
    clip[2] = p[2];
    clip[3] = p[3];
    varyings[0] = p[4];
}

static bool flat_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    (void)uniforms;
    out->color[0] = in->varyings[0];
    out->color[1] = 1.0f - in->varyings[0];
    out->color[2] = in->depth;
    return true;
}

/* A dense sheet of random small and sub-pixel triangles in clip space, with a few large,
 * clipped (behind the eye, off the sides) and invalid ones mixed in; the count is not a
 * multiple of the batch. */
static void make_draw(uint64_t seed, float **vertices, size_t *vertex_count, uint32_t **indices, size_t *index_count)
{
    const size_t triangles = 20011;
    *vertex_count = 3 * triangles;
    *index_count = 3 * triangles;
    *vertices = malloc(*vertex_count * 5 * sizeof(float));
    *indices = malloc(*index_count * sizeof(uint32_t));
    cr_assert(*vertices && *indices);
    uint64_t state = seed;
    for (size_t t = 0; t < triangles; t++) {
        const uint64_t kind = next_random(&state) % 100;
        const float size = kind < 60 ? 0.004f : kind < 90 ? 0.03f : kind < 97 ? 0.2f : 1.5f;
        const float cx = (float)random_in(&state, -1100, 1100) / 1000.0f;
        const float cy = (float)random_in(&state, -1100, 1100) / 1000.0f;
        for (int k = 0; k < 3; k++) {
            float *v = *vertices + (3 * t + (size_t)k) * 5;
            v[0] = cx + size * (float)random_in(&state, -1000, 1000) / 1000.0f;
            v[1] = cy + size * (float)random_in(&state, -1000, 1000) / 1000.0f;
            v[2] = (float)random_in(&state, 0, 1000) / 1000.0f;
            v[3] = 1.0f;
            v[4] = (float)random_in(&state, 0, 1000) / 1000.0f;
            if (kind == 98 && k == 0)
                v[3] = -0.5f; /* behind the eye: clipped */
        }
        for (int k = 0; k < 3; k++)
            (*indices)[3 * t + (size_t)k] = (uint32_t)(3 * t + (size_t)k);
        if (kind == 99)
            (*indices)[3 * t + 1] = (uint32_t)(*vertex_count + 5); /* out of range: skipped */
    }
}

Test(raster_batch, draws_match_the_one_triangle_path)
{
    float *vertices;
    uint32_t *indices;
    size_t vertex_count, index_count;
    make_draw(0x1234567ull, &vertices, &vertex_count, &indices, &index_count);
    const sr_program program = {.name = "flat",
                                .vertex_size = 5 * sizeof(float),
                                .vertex = flat_vertex,
                                .fragment = flat_fragment,
                                .varying_count = 1};
    const sr_cull_mode culls[] = {SR_CULL_NONE, SR_CULL_BACK, SR_CULL_FRONT};
    const int sizes[][2] = {{640, 360}, {101, 77}};
    const int thread_counts[] = {1, 3};
    for (int s = 0; s < 2; s++) {
        for (int c = 0; c < 6; c++) {
            const int threads = thread_counts[c / 3];
            sr_framebuffer *fb[2];
            sr_raster_stats stats[2];
            for (int pass = 0; pass < 2; pass++) {
                sr_error err = {0};
                sr_renderer *renderer = NULL;
                cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &renderer, &err), SR_OK);
                if (pass == 1)
                    renderer->screen_batch = decide_nothing;
                cr_assert_eq(sr_framebuffer_create(
                                 &(sr_framebuffer_desc){.width = sizes[s][0], .height = sizes[s][1], .ids = true},
                                 &fb[pass], &err),
                             SR_OK);
                sr_framebuffer_clear(fb[pass], 0xff000000u, 1.0f);
                sr_draw_desc draw = {.program = &program,
                                     .vertices = vertices,
                                     .vertex_count = vertex_count,
                                     .vertex_stride = 5 * sizeof(float),
                                     .indices = indices,
                                     .index_count = index_count,
                                     .primitive_id_base = 3};
                draw.state.cull = culls[c % 3];
                cr_assert_eq(sr_draw_triangles(renderer, fb[pass], &draw, &err), SR_OK, "%s", err.message);
                stats[pass] = sr_renderer_stats(renderer);
                sr_renderer_destroy(renderer);
            }
            const size_t pixels = (size_t)sizes[s][0] * (size_t)sizes[s][1];
            cr_assert_eq(memcmp(fb[0]->color, fb[1]->color, pixels * 4), 0, "colour differs (cull %d, %d threads)",
                         (int)culls[c % 3], threads);
            cr_assert_eq(memcmp(fb[0]->depth, fb[1]->depth, pixels * 4), 0, "depth differs (cull %d, %d threads)",
                         (int)culls[c % 3], threads);
            cr_assert_eq(memcmp(fb[0]->ids, fb[1]->ids, pixels * 4), 0, "ids differ (cull %d, %d threads)",
                         (int)culls[c % 3], threads);
            cr_assert_eq(memcmp(&stats[0], &stats[1], sizeof stats[0]), 0,
                         "statistics differ (cull %d, %d threads): culled %llu / %llu, rasterized %llu / %llu",
                         (int)culls[c % 3], threads, (unsigned long long)stats[0].triangles_culled,
                         (unsigned long long)stats[1].triangles_culled,
                         (unsigned long long)stats[0].triangles_rasterized,
                         (unsigned long long)stats[1].triangles_rasterized);
            /* the draw exercised every path */
            cr_assert_gt(stats[0].triangles_clipped, 0);
            cr_assert_gt(stats[0].triangles_skipped, 0);
            cr_assert_gt(stats[0].triangles_culled, 1000);
            cr_assert_gt(stats[0].fragments_written, 1000);
            if (culls[c % 3] != SR_CULL_NONE)
                cr_assert_gt(stats[0].triangles_backfacing, 1000);
            sr_framebuffer_destroy(fb[0]);
            sr_framebuffer_destroy(fb[1]);
        }
    }
    free(vertices);
    free(indices);
}
