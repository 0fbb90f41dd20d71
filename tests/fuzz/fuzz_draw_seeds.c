/* tests/fuzz/fuzz_draw_seeds.c — the seeds of the draw fuzz target (fuzz_draw.c): inputs in the
 * target's byte format (framebuffer, renderer, then operations) that reach each kind of draw,
 * state and clipping case, for the mutation engine to start from. */
#include "fuzz_targets.h"

#include <math.h>
#include <string.h>

/* A float in fuzz_read_float's raw form (tag 0, then the bits). */
static void put_float(fuzz_seed_writer *w, float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    fuzz_seed_put(w, 0);
    for (int k = 0; k < 4; k++)
        fuzz_seed_put(w, (uint8_t)(bits >> (8 * k)));
}

/* A vertex in decode_vertex's quantised form. */
static void put_small_vertex(fuzz_seed_writer *w, int8_t x, int8_t y, uint8_t z, float attribute)
{
    fuzz_seed_put(w, 0);
    fuzz_seed_put(w, (uint8_t)x);
    fuzz_seed_put(w, (uint8_t)y);
    fuzz_seed_put(w, z);
    fuzz_seed_put(w, 0);
    for (int k = 0; k < 4; k++)
        put_float(w, attribute + (float)k * 0.25f);
}

/* Header of a triangle draw: state, flags, special, varyings, stride, vertex size, count, id base. */
static void put_triangle_draw(fuzz_seed_writer *w, uint8_t cull, uint8_t depth_func, uint8_t blend, uint8_t flags,
                              uint8_t varyings, uint8_t vertex_count)
{
    fuzz_seed_put(w, 0); /* op: triangles */
    fuzz_seed_put(w, cull);
    fuzz_seed_put(w, depth_func);
    fuzz_seed_put(w, blend);
    fuzz_seed_put(w, flags);
    fuzz_seed_put(w, 0);        /* special: none */
    fuzz_seed_put(w, varyings); /* varying count */
    fuzz_seed_put(w, 0);        /* stride sizeof(draw_vertex) */
    fuzz_seed_put(w, 1);        /* vertex_size sizeof(draw_vertex) */
    fuzz_seed_put(w, vertex_count);
    fuzz_seed_put(w, 3); /* primitive id base 3000 */
}

void fuzz_draw_add_seeds(fuzz_corpus *corpus)
{
    fuzz_seed_writer w = {.size = 0};
    /* 16x16 with ids; one triangle with 4 varyings, then a line, then the same triangle again */
    fuzz_seed_put(&w, 15);
    fuzz_seed_put(&w, 15);
    fuzz_seed_put(&w, 1);
    fuzz_seed_put(&w, 0); /* renderer threads 0 */
    put_triangle_draw(&w, 0, 0, 0, 0, 4, 3);
    put_small_vertex(&w, -60, -60, 128, 0.25f);
    put_small_vertex(&w, 60, -60, 100, 0.5f);
    put_small_vertex(&w, 0, 60, 50, 0.75f);
    fuzz_seed_put(&w, 0); /* non-indexed */
    fuzz_seed_put(&w, 2); /* op: lines */
    fuzz_seed_put(&w, 1); /* one segment */
    fuzz_seed_put(&w, 1); /* depth test */
    fuzz_seed_put(&w, 0); /* blend none */
    fuzz_seed_put(&w, 0); /* identity */
    for (int e = 0; e < 2; e++) {
        put_float(&w, e ? 0.9f : -0.9f);
        put_float(&w, e ? 0.5f : -0.5f);
        put_float(&w, 0.5f);
        for (int k = 0; k < 4; k++)
            put_float(&w, 1.0f);
    }
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* an indexed quad clipped by the near plane (z < 0 at two corners), alpha blended, culled
     * back faces, late depth with barycentrics */
    w.size = 0;
    fuzz_seed_put(&w, 9);
    fuzz_seed_put(&w, 13);
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 1);
    put_triangle_draw(&w, 1, 1, 1, 2 | 4, 3, 4);
    put_small_vertex(&w, -100, -100, 0, -0.5f);
    put_small_vertex(&w, 100, -100, 0, 0.5f);
    put_small_vertex(&w, 100, 100, 200, 1.0f);
    put_small_vertex(&w, -100, 100, 200, 0.0f);
    fuzz_seed_put(&w, 2); /* explicit indices */
    fuzz_seed_put(&w, 6);
    const uint8_t quad[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; i++)
        fuzz_seed_put(&w, quad[i]);
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* raw clip positions: NaN, infinity, huge and subnormal values, and w = 0 */
    w.size = 0;
    fuzz_seed_put(&w, 7);
    fuzz_seed_put(&w, 7);
    fuzz_seed_put(&w, 1);
    fuzz_seed_put(&w, 0);
    put_triangle_draw(&w, 0, 6, 2, 0, 2, 6);
    const float raw[6][4] = {
        {NAN, 0.0f, 0.5f, 1.0f},       {INFINITY, 1.0f, 0.5f, 1.0f}, {1e30f, -1e30f, 0.5f, 1.0f},
        {0x1p-149f, 0.5f, 0.5f, 0.0f}, {-0.5f, 3e38f, 0.5f, 1e-30f}, {0.5f, 0.5f, -1e30f, 1e30f},
    };
    for (int i = 0; i < 6; i++) {
        fuzz_seed_put(&w, 1); /* raw vertex */
        for (int k = 0; k < 4; k++)
            put_float(&w, raw[i][k]);
        for (int k = 0; k < 4; k++)
            put_float(&w, raw[i][(k + 1) % 4]);
    }
    fuzz_seed_put(&w, 0);
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* refusals: an out-of-range cull mode (raw 32-bit), then an out-of-range depth function */
    w.size = 0;
    fuzz_seed_put(&w, 3);
    fuzz_seed_put(&w, 3);
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 0xf0);
    for (int k = 0; k < 4; k++)
        fuzz_seed_put(&w, 0x7f);
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* four threads (and the single-threaded reference): 400 triangles cycling over 8 vertices,
     * blended, with a line draw after */
    w.size = 0;
    fuzz_seed_put(&w, 23);
    fuzz_seed_put(&w, 23);
    fuzz_seed_put(&w, 1);
    fuzz_seed_put(&w, 5); /* renderer: 4 threads */
    put_triangle_draw(&w, 0, 1, 1, 4, 5, 8);
    for (int i = 0; i < 8; i++)
        put_small_vertex(&w, (int8_t)(-70 + 20 * i), (int8_t)(i % 2 ? 60 : -60), (uint8_t)(30 * i), 0.125f * (float)i);
    fuzz_seed_put(&w, 3);         /* long index list */
    fuzz_seed_put(&w, 8);         /* pattern of 9 indices */
    fuzz_seed_put(&w, 400 - 256); /* 400 triangles */
    const uint8_t pattern[9] = {0, 1, 2, 2, 1, 3, 4, 6, 5};
    for (int i = 0; i < 9; i++)
        fuzz_seed_put(&w, pattern[i]);
    fuzz_seed_put(&w, 2); /* op: lines, one segment, blended additively */
    fuzz_seed_put(&w, 1);
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 2);
    fuzz_seed_put(&w, 0);
    for (int e = 0; e < 2; e++) {
        put_float(&w, e ? 0.8f : -0.8f);
        put_float(&w, e ? -0.3f : 0.6f);
        put_float(&w, 0.25f);
        for (int k = 0; k < 4; k++)
            put_float(&w, 0.5f);
    }
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* one constant-depth triangle (w = 1, one z: its depth is known bit for bit) drawn six times:
     * LESS with the fast path (writes its depth), then at exactly that depth LESS through the generic
     * path (alpha blending: nothing passes), LESS_EQUAL, GREATER (nothing), GREATER_EQUAL and EQUAL */
    w.size = 0;
    fuzz_seed_put(&w, 15);
    fuzz_seed_put(&w, 15);
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 0);
    const uint8_t funcs[6][2] = {{0, 0}, {0, 1}, {1, 1}, {2, 1}, {3, 2}, {4, 1}}; /* depth func, blend */
    for (int d = 0; d < 6; d++) {
        put_triangle_draw(&w, 0, funcs[d][0], funcs[d][1], 0, 4, 3);
        put_small_vertex(&w, -50, -40, 90, 0.25f);
        put_small_vertex(&w, 60, -50, 90, 0.5f);
        put_small_vertex(&w, 10, 60, 90, 0.75f);
        fuzz_seed_put(&w, 0); /* non-indexed */
    }
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* a triangle most of which lies between the eye and the near plane (z < 0 at one corner, just
     * above 0 at the others), then one most of which lies beyond the far plane (z > w) */
    w.size = 0;
    fuzz_seed_put(&w, 19);
    fuzz_seed_put(&w, 15);
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 0);
    put_triangle_draw(&w, 0, 1, 0, 0, 2, 3);
    put_small_vertex(&w, -70, -60, 0, 0.25f);
    put_small_vertex(&w, 70, -30, 30, 0.5f);
    put_small_vertex(&w, -10, 70, 30, 0.75f);
    fuzz_seed_put(&w, 0);
    put_triangle_draw(&w, 0, 6, 0, 0, 2, 3);
    put_small_vertex(&w, -70, -60, 255, 0.25f);
    put_small_vertex(&w, 70, -30, 200, 0.5f);
    put_small_vertex(&w, -10, 70, 200, 0.75f);
    fuzz_seed_put(&w, 0);
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* the first seed with allocation failures after 0 to 4 allocations */
    fuzz_corpus_add_failing(corpus, 0, 5);

    /* an invalid framebuffer size */
    const uint8_t bad_size[] = {0, 5, 0, 0, 0, 0, 0};
    fuzz_corpus_add(corpus, bad_size, sizeof bad_size);
}
