/* tests/fuzz/fuzz_draw.c — fuzz target of the drawing pipeline (src/raster/pipeline.c, clip.c,
 * triangle.c, line.c, framebuffer.c): the bytes describe a small framebuffer and a few draws of
 * triangles and lines with raw render state, raw clip-space positions (NaN, infinities, huge,
 * subnormal values straight from the bytes), indices in and out of range and line segments.
 *
 * Checked: invalid arguments (enums out of range, bad varying counts, strides, index counts,
 * framebuffer sizes) are refused with an error and change nothing; fragments are inside the
 * framebuffer with depth in [0, 1] and a primitive id of the draw; the depth buffer stays in
 * [0, 1]; depth is not written with no_depth_write, nothing is written with SR_DEPTH_NEVER,
 * lines write neither depth nor ids; statistics add up (every triangle is culled, skipped or
 * rasterised once; fragments shaded = fragment function calls >= accepted >= written). With a
 * multi-threaded renderer every operation is repeated on a single-threaded one and a second
 * framebuffer, which must end bit-identical (raster.h), with the same statistics; draws of 256
 * triangles and more are made so that the worker threads really split them. Every operation is
 * also repeated on a "block twin": a single-threaded renderer drawing with the portable fill
 * (fill_portable.c) and the program's block form (a loop over the lanes of each block through the
 * same fragment function, checking the block's own contract: masks, the lanes' 4x2 layout, the
 * outputs' presets), which must end bit-identical too (raster.h: both forms give the same
 * image). Inputs starting
 * with FUZZ_ALLOCATION_FAILURE_MARK run with failing allocations: a refused allocation must
 * leave the framebuffer and statistics as they were. Knows nothing of the driver that calls it.
 * Its seeds are made in fuzz_draw_seeds.c. */
#include "fuzz_draw_oracle.h"
#include "fuzz_targets.h"

#include <softrast/raster.h>

#include "../../src/raster/raster_internal.h" /* sr_renderer.portable_fill */

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The vertex layout of the target's program: a position and four attributes. */
typedef struct draw_vertex {
    float position[4];
    float attributes[4];
} draw_vertex;

/* Atomic: with worker threads the fragment function runs on several threads at once. */
typedef struct fragment_counters {
    _Atomic uint64_t calls;   /* fragment function calls */
    _Atomic uint64_t accepts; /* calls that returned true */
} fragment_counters;

/* What the program reads (through sr_program.uniforms) and where it counts its calls. */
typedef struct draw_uniforms {
    sr_mat4 matrix;
    bool transform;   /* clip = matrix * position; else the position is the clip position */
    int depth_mode;   /* with writes_depth: 0 a varying, 1 NaN, 2 -1, 3 2, 4 the input depth */
    int discard_mode; /* 0 never, 1 when the second varying is negative, 2 always, 3 never */
    int varying_count;
    bool barycentrics;
    int width, height;
    uint32_t id_base;
    size_t triangle_count;
    fragment_counters *counters;
    _Atomic uint32_t *pixel_calls; /* calls per pixel (row-major), or NULL */
} draw_uniforms;

static void vertex_main(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const draw_uniforms *u = uniforms;
    draw_vertex in;
    memcpy(&in, vertex, sizeof in); /* strides need not keep floats aligned */
    if (u->transform) {
        sr_vec4 c =
            sr_mat4_mul_vec4(u->matrix, (sr_vec4){in.position[0], in.position[1], in.position[2], in.position[3]});
        clip[0] = c.x;
        clip[1] = c.y;
        clip[2] = c.z;
        clip[3] = c.w;
    } else {
        memcpy(clip, in.position, sizeof in.position);
    }
    for (int i = 0; i < u->varying_count; i++)
        varyings[i] = in.attributes[i % 4] * (float)(1 + i / 4);
}

static bool fragment_main(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const draw_uniforms *u = uniforms;
    atomic_fetch_add_explicit(&u->counters->calls, 1, memory_order_relaxed);
    FUZZ_CHECK(in->depth >= 0.0f && in->depth <= 1.0f, "fragment depth %g outside [0, 1]", (double)in->depth);
    FUZZ_CHECK(out->depth == in->depth, "sr_fragment_out.depth %g not preset to the input depth %g", (double)out->depth,
               (double)in->depth);
    FUZZ_CHECK(in->x >= 0.5f && in->x <= (float)u->width - 0.5f && in->x - floorf(in->x) == 0.5f && in->y >= 0.5f &&
                   in->y <= (float)u->height - 0.5f && in->y - floorf(in->y) == 0.5f,
               "fragment at (%g, %g) is not a pixel centre of the %dx%d framebuffer", (double)in->x, (double)in->y,
               u->width, u->height);
    FUZZ_CHECK((uint32_t)(in->primitive_id - u->id_base) < u->triangle_count,
               "primitive id %u outside the draw's [%u, %u + %zu)", in->primitive_id, u->id_base, u->id_base,
               u->triangle_count);
    FUZZ_CHECK((in->barycentric != NULL) == u->barycentrics, "barycentric pointer %s but uses_barycentrics is %d",
               in->barycentric ? "set" : "NULL", (int)u->barycentrics);
    FUZZ_CHECK(u->varying_count == 0 || in->varyings != NULL, "varyings pointer is NULL");
    if (u->pixel_calls)
        atomic_fetch_add_explicit(&u->pixel_calls[(size_t)in->y * (size_t)u->width + (size_t)in->x], 1,
                                  memory_order_relaxed);
    const float *v = in->varyings;
    int n = u->varying_count;
    for (int c = 0; c < 4; c++)
        out->color[c] = n > 0 ? v[c % n] : 0.5f; /* NaN and out-of-range colours on purpose */
    switch (u->depth_mode) {
    case 0:
        out->depth = n > 0 ? v[0] : 0.25f;
        break;
    case 1:
        out->depth = NAN;
        break;
    case 2:
        out->depth = -1.0f;
        break;
    case 3:
        out->depth = 2.0f;
        break;
    default:
        break;
    }
    bool accept = u->discard_mode == 0 || u->discard_mode == 3 || (u->discard_mode == 1 && !(n > 1 && v[1] < 0.0f));
    if (accept)
        atomic_fetch_add_explicit(&u->counters->accepts, 1, memory_order_relaxed);
    return accept;
}

/* fragment_main a block at a time: every lane of the mask through fragment_main (and its checks),
 * after the checks of the block's own contract. Returns the kept lanes with every bit outside the
 * mask set, which the pipeline must ignore. */
static uint32_t fragment_main_block(const sr_fragment_block_in *in, const void *uniforms, sr_fragment_block_out *out)
{
    const draw_uniforms *u = uniforms;
    FUZZ_CHECK(in->mask != 0 && in->mask <= 0xffu, "block mask %#x", in->mask);
    FUZZ_CHECK((in->barycentric != NULL) == u->barycentrics, "block barycentric pointer %s but uses_barycentrics is %d",
               in->barycentric ? "set" : "NULL", (int)u->barycentrics);
    FUZZ_CHECK(u->varying_count == 0 || in->varyings != NULL, "block varyings pointer is NULL");
    int first = __builtin_ctz(in->mask);
    float x0 = in->x[first] - 0.5f - (float)(first % SR_BLOCK_WIDTH);
    float y0 = in->y[first] - 0.5f - (float)(first / SR_BLOCK_WIDTH);
    FUZZ_CHECK(fmodf(x0, 1.0f) == 0.0f && fmodf(y0, 1.0f) == 0.0f && x0 >= 0.0f && y0 >= 0.0f,
               "block at (%g, %g) does not start at a pixel", (double)x0, (double)y0);
    uint32_t keep = ~in->mask;
    for (uint32_t mask = in->mask; mask; mask &= mask - 1) {
        int k = __builtin_ctz(mask);
        FUZZ_CHECK(in->x[k] == x0 + 0.5f + (float)(k % SR_BLOCK_WIDTH) &&
                       in->y[k] == y0 + 0.5f + (float)(k / SR_BLOCK_WIDTH),
                   "lane %d at (%g, %g) in the block at (%g, %g)", k, (double)in->x[k], (double)in->y[k], (double)x0,
                   (double)y0);
        FUZZ_CHECK(out->color[0][k] == 0.0f && out->color[1][k] == 0.0f && out->color[2][k] == 0.0f &&
                       out->color[3][k] == 1.0f && out->depth[k] == in->depth[k],
                   "lane %d: outputs not preset to (0, 0, 0, 1) and the input depth", k);
        float varyings[SR_MAX_VARYINGS], barycentric[3];
        for (int i = 0; i < u->varying_count; i++)
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
        sr_fragment_out lane = {.color = {0.0f, 0.0f, 0.0f, 1.0f}, .depth = in->depth[k]};
        if (!fragment_main(&one, uniforms, &lane))
            continue;
        keep |= 1u << k;
        for (int c = 0; c < 4; c++)
            out->color[c][k] = lane.color[c];
        out->depth[k] = lane.depth;
    }
    return keep;
}

/* ------------------------------------------------------------------------------------------ */
/* Framebuffer snapshots                                                                       */

typedef struct snapshot {
    uint32_t *color;
    float *depth;
    uint32_t *ids;
    size_t count;
} snapshot;

static snapshot snapshot_take(const sr_framebuffer *fb)
{
    size_t count = (size_t)fb->width * (size_t)fb->height;
    snapshot s = {malloc(count * sizeof *s.color), malloc(count * sizeof *s.depth),
                  fb->ids ? malloc(count * sizeof *s.ids) : NULL, count};
    FUZZ_CHECK(s.color && s.depth && (!fb->ids || s.ids), "out of memory");
    memcpy(s.color, fb->color, count * sizeof *s.color);
    memcpy(s.depth, fb->depth, count * sizeof *s.depth);
    if (fb->ids)
        memcpy(s.ids, fb->ids, count * sizeof *s.ids);
    return s;
}

static void snapshot_free(snapshot *s)
{
    free(s->color);
    free(s->depth);
    free(s->ids);
}

static bool same_color(const sr_framebuffer *fb, const snapshot *s)
{
    return memcmp(fb->color, s->color, s->count * sizeof *s->color) == 0;
}

static bool same_depth(const sr_framebuffer *fb, const snapshot *s)
{
    return memcmp(fb->depth, s->depth, s->count * sizeof *s->depth) == 0;
}

static bool same_ids(const sr_framebuffer *fb, const snapshot *s)
{
    return !fb->ids || memcmp(fb->ids, s->ids, s->count * sizeof *s->ids) == 0;
}

static void check_depth_range(const sr_framebuffer *fb)
{
    size_t count = (size_t)fb->width * (size_t)fb->height;
    for (size_t i = 0; i < count; i++)
        FUZZ_CHECK(fb->depth[i] >= 0.0f && fb->depth[i] <= 1.0f, "depth[%zu] = %g outside [0, 1]", i,
                   (double)fb->depth[i]);
}

/* ------------------------------------------------------------------------------------------ */
/* Decoding                                                                                    */

static int decode_side(uint8_t code)
{
    if (code == 0)
        return 0;
    if (code == 0xff)
        return SR_MAX_IMAGE_SIDE + 1;
    if (code == 0xfe)
        return -1;
    return 1 + code % 24;
}

static sr_mat4 decode_matrix(fuzz_reader *r)
{
    uint8_t mode = fuzz_read_u8(r) % 3;
    if (mode == 0)
        return sr_mat4_identity();
    if (mode == 1) {
        /* a camera: eye, target, field of view, near and far from small or raw floats */
        sr_vec3 eye = {fuzz_read_float(r), fuzz_read_float(r), fuzz_read_float(r) + 3.0f};
        sr_vec3 target = {fuzz_read_float(r), fuzz_read_float(r), fuzz_read_float(r)};
        float fov = 0.3f + fabsf(fuzz_read_float(r));
        float near_z = fuzz_read_float(r), far_z = fuzz_read_float(r);
        sr_mat4 view = sr_mat4_look_at(eye, target, (sr_vec3){0.0f, 1.0f, 0.0f});
        return sr_mat4_mul(sr_mat4_perspective(fov, 1.0f, near_z, far_z), view);
    }
    sr_mat4 m;
    for (int i = 0; i < 16; i++)
        m.m[i] = fuzz_read_float(r);
    return m;
}

static void decode_vertex(fuzz_reader *r, draw_vertex *v)
{
    if (fuzz_read_u8(r) % 2 == 0) {
        /* inside or near the view volume: x, y in [-2, 2), z in [-0.1, 1.1], w around 1 */
        v->position[0] = (float)(int8_t)fuzz_read_u8(r) / 64.0f;
        v->position[1] = (float)(int8_t)fuzz_read_u8(r) / 64.0f;
        v->position[2] = (float)fuzz_read_u8(r) / 255.0f * 1.2f - 0.1f;
        v->position[3] = 1.0f + (float)(int8_t)fuzz_read_u8(r) / 256.0f;
    } else {
        for (int k = 0; k < 4; k++)
            v->position[k] = fuzz_read_float(r);
    }
    for (int k = 0; k < 4; k++)
        v->attributes[k] = fuzz_read_float(r);
}

/* The renderer's statistics must move only as the draw explains. */
static void check_triangle_stats(sr_raster_stats before, sr_raster_stats after, size_t triangle_count,
                                 fragment_counters *counters, size_t pixels)
{
    uint64_t calls = atomic_load(&counters->calls), accepts = atomic_load(&counters->accepts);
    uint64_t in = after.triangles_in - before.triangles_in;
    uint64_t culled = after.triangles_culled - before.triangles_culled;
    uint64_t skipped = after.triangles_skipped - before.triangles_skipped;
    uint64_t rasterized = after.triangles_rasterized - before.triangles_rasterized;
    uint64_t clipped = after.triangles_clipped - before.triangles_clipped;
    uint64_t shaded = after.fragments_shaded - before.fragments_shaded;
    uint64_t written = after.fragments_written - before.fragments_written;
    FUZZ_CHECK(in == triangle_count, "triangles_in grew by %llu for %zu triangles", (unsigned long long)in,
               triangle_count);
    FUZZ_CHECK(culled + skipped + rasterized == in, "culled %llu + skipped %llu + rasterized %llu != in %llu",
               (unsigned long long)culled, (unsigned long long)skipped, (unsigned long long)rasterized,
               (unsigned long long)in);
    FUZZ_CHECK(clipped <= in, "clipped %llu > in %llu", (unsigned long long)clipped, (unsigned long long)in);
    FUZZ_CHECK(shaded == calls, "fragments_shaded grew by %llu but the fragment function ran %llu times",
               (unsigned long long)shaded, (unsigned long long)calls);
    FUZZ_CHECK(written <= accepts, "fragments_written %llu > fragments accepted %llu", (unsigned long long)written,
               (unsigned long long)accepts);
    /* a clipped triangle is drawn as at most 8 fan pieces (10 polygon vertices) */
    FUZZ_CHECK(shaded <= rasterized * pixels * 8, "%llu fragments shaded for %llu triangles on %zu pixels",
               (unsigned long long)shaded, (unsigned long long)rasterized, pixels);
    FUZZ_CHECK(after.lines_in == before.lines_in && after.lines_skipped == before.lines_skipped,
               "a triangle draw changed the line counters");
}

/* ------------------------------------------------------------------------------------------ */
/* Operations                                                                                  */

/* The renderer under test and its framebuffer; with worker threads also a single-threaded
 * renderer with its own framebuffer that every operation is repeated on. */
typedef struct draw_target {
    sr_renderer *renderer;
    sr_framebuffer *fb;
    sr_renderer *reference; /* NULL unless `renderer` has worker threads */
    sr_framebuffer *reference_fb;
    sr_renderer *twin; /* the block twin (one thread, portable fill, block form); NULL when failing */
    sr_framebuffer *twin_fb;
    int threads;
    bool failing; /* allocations may be refused (FUZZ_ALLOCATION_FAILURE_MARK) */
} draw_target;

/* An out-of-memory status is acceptable only when the input injects allocation failures and
 * one was refused. */
static bool refused_allocation(const draw_target *t, sr_status status)
{
    return status == SR_ERROR_OUT_OF_MEMORY && t->failing && fuzz_allocation_failed();
}

/* raster.h: the image of a multi-threaded renderer is bit-identical to the single-threaded one, and
 * the image of a program's block form to its one-fragment form's. */
static void compare_frames(const draw_target *t, const sr_renderer *other, const sr_framebuffer *b,
                           const char *operation, const char *who)
{
    const sr_framebuffer *a = t->fb;
    FUZZ_CHECK(a->width == b->width && a->height == b->height, "%s: sizes differ", operation);
    size_t count = (size_t)a->width * (size_t)a->height;
    for (size_t i = 0; i < count; i++) {
        FUZZ_CHECK(a->color[i] == b->color[i] && memcmp(&a->depth[i], &b->depth[i], sizeof(float)) == 0 &&
                       (!a->ids || a->ids[i] == b->ids[i]),
                   "%s with %d threads: pixel (%zu, %zu) is colour %08x depth %a id %u, %s %08x %a %u", operation,
                   t->threads, i % (size_t)a->width, i / (size_t)a->width, a->color[i], (double)a->depth[i],
                   a->ids ? a->ids[i] : 0u, who, b->color[i], (double)b->depth[i], b->ids ? b->ids[i] : 0u);
    }
    sr_raster_stats sa = sr_renderer_stats(t->renderer), sb = sr_renderer_stats(other);
    FUZZ_CHECK(memcmp(&sa, &sb, sizeof sa) == 0,
               "%s with %d threads: statistics differ from %s (rasterized %llu/%llu, culled %llu/%llu, "
               "shaded %llu/%llu, written %llu/%llu)",
               operation, t->threads, who, (unsigned long long)sa.triangles_rasterized,
               (unsigned long long)sb.triangles_rasterized, (unsigned long long)sa.triangles_culled,
               (unsigned long long)sb.triangles_culled, (unsigned long long)sa.fragments_shaded,
               (unsigned long long)sb.fragments_shaded, (unsigned long long)sa.fragments_written,
               (unsigned long long)sb.fragments_written);
}

static void compare_with_reference(const draw_target *t, const char *operation)
{
    if (t->reference)
        compare_frames(t, t->reference, t->reference_fb, operation, "single-threaded");
    if (t->twin)
        compare_frames(t, t->twin, t->twin_fb, operation, "the block twin");
}

/* What fragment_main does with depth and discards, for the oracle. */
static draw_oracle_fragment oracle_behaviour(const draw_uniforms *u)
{
    draw_oracle_fragment f = {DRAW_ORACLE_WRITES_INPUT, 0.0f, DRAW_ORACLE_DISCARD_NONE};
    static const float constants[4] = {0.25f, 0.0f, -1.0f, 2.0f};
    if (u->depth_mode == 0)
        f.written = u->varying_count > 0 ? DRAW_ORACLE_WRITES_UNKNOWN : DRAW_ORACLE_WRITES_CONSTANT;
    else if (u->depth_mode == 1)
        f.written = DRAW_ORACLE_WRITES_NAN;
    else if (u->depth_mode <= 3)
        f.written = DRAW_ORACLE_WRITES_CONSTANT;
    f.constant_depth = u->depth_mode <= 3 ? constants[u->depth_mode] : 0.0f;
    if (u->discard_mode == 2)
        f.discard = DRAW_ORACLE_DISCARD_ALL;
    else if (u->discard_mode == 1 && u->varying_count > 1)
        f.discard = DRAW_ORACLE_DISCARD_SOME;
    return f;
}

static void draw_triangles(fuzz_reader *r, draw_target *t)
{
    sr_framebuffer *fb = t->fb;
    sr_draw_desc desc = {0};
    desc.state.cull = (sr_cull_mode)fuzz_read_enum(r, 3);
    desc.state.depth_func = (sr_depth_func)fuzz_read_enum(r, 8);
    desc.state.blend = (sr_blend_mode)fuzz_read_enum(r, 3);
    uint8_t flags = fuzz_read_u8(r);
    desc.state.no_depth_write = flags & 1;
    uint8_t special = fuzz_read_u8(r);
    uint8_t varying_code = fuzz_read_u8(r);
    static const int odd_varyings[] = {-1, SR_MAX_VARYINGS + 1, INT_MIN, INT_MAX, 100, -100, SR_MAX_VARYINGS, 0};
    int varying_count = varying_code < 0xf8 ? varying_code % (SR_MAX_VARYINGS + 1) : odd_varyings[varying_code - 0xf8];
    static const size_t strides[] = {sizeof(draw_vertex), sizeof(draw_vertex), sizeof(draw_vertex), 0, 4, 33, 64, 12};
    desc.vertex_stride = strides[fuzz_read_u8(r) % 8];
    static const size_t vertex_sizes[] = {0, sizeof(draw_vertex), sizeof(draw_vertex), 16};
    size_t vertex_size = vertex_sizes[fuzz_read_u8(r) % 4];
    desc.vertex_count = fuzz_read_u8(r) % 17;
    uint8_t base_code = fuzz_read_u8(r);
    desc.primitive_id_base = base_code == 0 ? 0u : base_code == 1 ? 0xfffffff0u : (uint32_t)base_code * 1000u;

    fragment_counters counters = {0, 0};
    _Atomic uint32_t *pixel_calls = calloc((size_t)fb->width * (size_t)fb->height, sizeof *pixel_calls);
    FUZZ_CHECK(pixel_calls, "out of memory");
    draw_uniforms uniforms = {
        .transform = flags & 8,
        .depth_mode = flags >> 6 & 3,
        .discard_mode = flags >> 4 & 3,
        .varying_count = varying_count,
        .barycentrics = flags & 4,
        .width = fb->width,
        .height = fb->height,
        .id_base = desc.primitive_id_base,
        .counters = &counters,
        .pixel_calls = pixel_calls,
    };
    if ((flags >> 6 & 3) == 3 && (special & 1))
        uniforms.depth_mode = 4;
    uniforms.matrix = uniforms.transform ? decode_matrix(r) : sr_mat4_identity();
    sr_program program = {
        .name = "fuzz",
        .vertex = special == 0xfe ? NULL : vertex_main,
        .fragment = special == 0xfd ? NULL : fragment_main,
        .varying_count = varying_count,
        .uniforms = &uniforms,
        .writes_depth = flags & 2,
        .uses_barycentrics = flags & 4,
        .vertex_size = vertex_size,
    };
    desc.program = special == 0xff ? NULL : &program;

    /* The vertex array: vertex i at byte i * stride, with room for a whole draw_vertex past the
     * last start so that the vertex function never reads outside it, whatever the stride. */
    size_t stride = desc.vertex_stride;
    size_t bytes = desc.vertex_count * stride + sizeof(draw_vertex);
    uint8_t *vertices = calloc(1, bytes);
    FUZZ_CHECK(vertices, "out of memory");
    for (size_t i = 0; i < desc.vertex_count; i++) {
        draw_vertex v;
        decode_vertex(r, &v);
        memcpy(vertices + i * stride, &v, sizeof v);
    }
    desc.vertices = special == 0xfc ? NULL : vertices;

    /* Indices: none, a count only, an explicit list, or a long list (256 to 511 triangles, enough
     * for worker threads to split the draw) repeating an explicit pattern with an offset. */
    uint32_t *indices = NULL;
    uint8_t index_mode = fuzz_read_u8(r) % 4;
    if (index_mode == 1) {
        desc.index_count = fuzz_read_u8(r) % 20;
    } else if (index_mode >= 2) {
        size_t pattern = 1 + fuzz_read_u8(r) % 24;
        desc.index_count = index_mode == 2 ? pattern - 1 : 3 * (256 + (size_t)fuzz_read_u8(r));
        indices = malloc((desc.index_count + 1) * sizeof *indices);
        FUZZ_CHECK(indices, "out of memory");
        for (size_t i = 0; i < desc.index_count; i++) {
            uint8_t b = i < pattern ? fuzz_read_u8(r) : (uint8_t)(indices[i % pattern] + i / pattern);
            indices[i] = b == 0xff   ? 0xffffffffu
                         : b == 0xfe ? (uint32_t)desc.vertex_count
                         : b == 0xfd ? 0x7fffffffu
                                     : (uint32_t)(b % (desc.vertex_count + 1));
        }
        desc.indices = indices;
    }
    size_t index_count = desc.indices || desc.index_count ? desc.index_count : desc.vertex_count;
    uniforms.triangle_count = index_count / 3;

    bool expect_error = !desc.program || !program.vertex || !program.fragment || varying_count < 0 ||
                        varying_count > SR_MAX_VARYINGS || (unsigned)desc.state.cull > SR_CULL_FRONT ||
                        (unsigned)desc.state.depth_func > SR_DEPTH_NEVER ||
                        (unsigned)desc.state.blend > SR_BLEND_ADDITIVE || (desc.vertex_count > 0 && !desc.vertices) ||
                        (desc.vertex_count > 1 && stride == 0) || stride < vertex_size || index_count % 3 != 0;

    snapshot before = snapshot_take(fb);
    sr_raster_stats stats_before = sr_renderer_stats(t->renderer);
    sr_error err = {0};
    sr_status status = sr_draw_triangles(t->renderer, fb, &desc, &err);
    sr_raster_stats stats_after = sr_renderer_stats(t->renderer);
    if (expect_error) {
        FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT,
                   "invalid draw (cull %u, depth %u, blend %u, varyings %d, stride %zu, vertex_size %zu, %zu indices,"
                   " special %u) returned %s",
                   (unsigned)desc.state.cull, (unsigned)desc.state.depth_func, (unsigned)desc.state.blend,
                   varying_count, stride, vertex_size, index_count, special, sr_status_name(status));
        FUZZ_CHECK(err.message[0] != '\0', "error without a message");
        FUZZ_CHECK(same_color(fb, &before) && same_depth(fb, &before) && same_ids(fb, &before),
                   "a refused draw changed the framebuffer");
        FUZZ_CHECK(memcmp(&stats_before, &stats_after, sizeof stats_before) == 0, "a refused draw changed the stats");
        FUZZ_CHECK(atomic_load(&counters.calls) == 0, "a refused draw ran the fragment function");
    } else if (refused_allocation(t, status)) {
        FUZZ_CHECK(same_color(fb, &before) && same_depth(fb, &before) && same_ids(fb, &before),
                   "a draw that ran out of memory changed the framebuffer");
        FUZZ_CHECK(memcmp(&stats_before, &stats_after, sizeof stats_before) == 0,
                   "a draw that ran out of memory changed the stats");
    } else {
        FUZZ_CHECK(status == SR_OK, "valid draw failed: %s", err.message);
        size_t pixels = (size_t)fb->width * (size_t)fb->height;
        check_triangle_stats(stats_before, stats_after, index_count / 3, &counters, pixels);
        check_depth_range(fb);
        if (desc.state.no_depth_write)
            FUZZ_CHECK(same_depth(fb, &before), "depth written with no_depth_write");
        if (desc.state.depth_func == SR_DEPTH_NEVER) {
            FUZZ_CHECK(same_color(fb, &before) && same_depth(fb, &before) && same_ids(fb, &before),
                       "SR_DEPTH_NEVER wrote pixels");
            FUZZ_CHECK(stats_after.fragments_written == stats_before.fragments_written,
                       "SR_DEPTH_NEVER counted written fragments");
        }
        if (fb->ids)
            for (size_t i = 0; i < pixels; i++)
                FUZZ_CHECK(fb->ids[i] == before.ids[i] ||
                               (uint32_t)(fb->ids[i] - desc.primitive_id_base) < uniforms.triangle_count,
                           "id %u written at pixel %zu is not a primitive of the draw", fb->ids[i], i);
        draw_oracle_fragment behaviour = oracle_behaviour(&uniforms);
        draw_oracle_check(&desc, &behaviour, fb->width, fb->height, before.depth, fb->depth, pixel_calls);
    }
    if (t->reference) {
        /* the same draw, single-threaded, with its own counters */
        fragment_counters reference_counters = {0, 0};
        draw_uniforms reference_uniforms = uniforms;
        reference_uniforms.counters = &reference_counters;
        reference_uniforms.pixel_calls = NULL;
        sr_program reference_program = program;
        reference_program.uniforms = &reference_uniforms;
        sr_draw_desc reference_desc = desc;
        reference_desc.program = desc.program ? &reference_program : NULL;
        sr_status reference_status = sr_draw_triangles(t->reference, t->reference_fb, &reference_desc, NULL);
        FUZZ_CHECK(reference_status == status, "%d threads returned %s, one thread %s", t->threads,
                   sr_status_name(status), sr_status_name(reference_status));
        FUZZ_CHECK(atomic_load(&reference_counters.calls) == atomic_load(&counters.calls),
                   "%d threads ran the fragment function %llu times, one thread %llu", t->threads,
                   (unsigned long long)atomic_load(&counters.calls),
                   (unsigned long long)atomic_load(&reference_counters.calls));
    }
    if (t->twin) {
        /* the same draw with the program's block form (and the portable fill), one thread */
        fragment_counters twin_counters = {0, 0};
        draw_uniforms twin_uniforms = uniforms;
        twin_uniforms.counters = &twin_counters;
        twin_uniforms.pixel_calls = NULL;
        sr_program twin_program = program;
        twin_program.uniforms = &twin_uniforms;
        twin_program.fragment_block = program.fragment ? fragment_main_block : NULL;
        twin_program.fragment = NULL;
        sr_draw_desc twin_desc = desc;
        twin_desc.program = desc.program ? &twin_program : NULL;
        sr_status twin_status = sr_draw_triangles(t->twin, t->twin_fb, &twin_desc, NULL);
        FUZZ_CHECK(twin_status == status, "the block form returned %s, the one-fragment form %s",
                   sr_status_name(twin_status), sr_status_name(status));
        FUZZ_CHECK(atomic_load(&twin_counters.calls) == atomic_load(&counters.calls),
                   "the block form shaded %llu lanes, the one-fragment form was called %llu times",
                   (unsigned long long)atomic_load(&twin_counters.calls),
                   (unsigned long long)atomic_load(&counters.calls));
    }
    compare_with_reference(t, "sr_draw_triangles");
    snapshot_free(&before);
    free(pixel_calls);
    free(indices);
    free(vertices);
}

static void draw_lines(fuzz_reader *r, draw_target *t)
{
    sr_framebuffer *fb = t->fb;
    uint8_t count_code = fuzz_read_u8(r);
    size_t count = (size_t)(count_code % 9) * 2 + (count_code >= 0xf0 ? 1 : 0);
    uint8_t flags = fuzz_read_u8(r);
    sr_line_desc desc = {0};
    desc.vertex_count = count;
    desc.blend = (sr_blend_mode)fuzz_read_enum(r, 3);
    desc.depth_test = flags & 1;
    // The flags' other bits (no extra input bytes, so existing seeds decode as before): width 0 to
    // 7 (5 to 7 are refused), and a depth bias of 1/256, or a refused negative one.
    desc.width = (flags >> 3) & 7;
    desc.depth_bias = (flags & 0x40) ? ((flags & 0x80) ? -1.0f / 256.0f : 1.0f / 256.0f) : 0.0f;
    desc.view_projection = decode_matrix(r);
    sr_line_vertex vertices[17];
    for (size_t i = 0; i < count; i++) {
        vertices[i].position = (sr_vec3){fuzz_read_float(r), fuzz_read_float(r), fuzz_read_float(r)};
        for (int k = 0; k < 4; k++)
            vertices[i].color[k] = fuzz_read_float(r);
    }
    bool null_vertices = (flags & 6) == 6 && count > 0;
    desc.vertices = null_vertices ? NULL : vertices;
    bool expect_error = null_vertices || count % 2 != 0 || (unsigned)desc.blend > SR_BLEND_ADDITIVE || desc.width > 4 ||
                        desc.depth_bias < 0.0f;

    snapshot before = snapshot_take(fb);
    sr_raster_stats stats_before = sr_renderer_stats(t->renderer);
    sr_error err = {0};
    sr_status status = sr_draw_lines(t->renderer, fb, &desc, &err);
    sr_raster_stats stats_after = sr_renderer_stats(t->renderer);
    if (!expect_error && refused_allocation(t, status)) {
        // The segment scratch could not grow (allocation failures are part of the input).
        FUZZ_CHECK(err.message[0] != '\0', "out of memory without a message");
        FUZZ_CHECK(same_color(fb, &before), "a line draw out of memory changed the framebuffer");
        FUZZ_CHECK(memcmp(&stats_before, &stats_after, sizeof stats_before) == 0,
                   "a line draw out of memory changed the stats");
    } else if (expect_error) {
        FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT, "invalid line draw (%zu vertices, blend %u) returned %s", count,
                   (unsigned)desc.blend, sr_status_name(status));
        FUZZ_CHECK(err.message[0] != '\0', "error without a message");
        FUZZ_CHECK(same_color(fb, &before), "a refused line draw changed the framebuffer");
        FUZZ_CHECK(memcmp(&stats_before, &stats_after, sizeof stats_before) == 0,
                   "a refused line draw changed the stats");
    } else {
        FUZZ_CHECK(status == SR_OK, "valid line draw failed: %s", err.message);
        uint64_t lines = stats_after.lines_in - stats_before.lines_in;
        uint64_t skipped = stats_after.lines_skipped - stats_before.lines_skipped;
        uint64_t written = stats_after.fragments_written - stats_before.fragments_written;
        FUZZ_CHECK(lines == count / 2, "lines_in grew by %llu for %zu segments", (unsigned long long)lines, count / 2);
        FUZZ_CHECK(skipped <= lines, "lines_skipped %llu > lines %llu", (unsigned long long)skipped,
                   (unsigned long long)lines);
        size_t longest = (size_t)(fb->width > fb->height ? fb->width : fb->height);
        longest *= (size_t)(desc.width > 1 ? desc.width : 1);
        FUZZ_CHECK(written <= lines * longest, "%llu line pixels written for %llu segments on a %dx%d framebuffer",
                   (unsigned long long)written, (unsigned long long)lines, fb->width, fb->height);
        FUZZ_CHECK(same_depth(fb, &before), "lines wrote depth");
        FUZZ_CHECK(same_ids(fb, &before), "lines wrote ids");
        FUZZ_CHECK(stats_after.triangles_in == stats_before.triangles_in &&
                       stats_after.fragments_shaded == stats_before.fragments_shaded,
                   "a line draw changed triangle counters");
    }
    if (t->reference) {
        sr_status reference_status = sr_draw_lines(t->reference, t->reference_fb, &desc, NULL);
        FUZZ_CHECK(reference_status == status, "lines: %d threads returned %s, one thread %s", t->threads,
                   sr_status_name(status), sr_status_name(reference_status));
    }
    if (t->twin) {
        sr_status twin_status = sr_draw_lines(t->twin, t->twin_fb, &desc, NULL);
        FUZZ_CHECK(twin_status == status, "lines: the block twin returned %s, the renderer %s",
                   sr_status_name(twin_status), sr_status_name(status));
    }
    compare_with_reference(t, "sr_draw_lines");
    snapshot_free(&before);
}

/* Clear or resize; a refused resize must leave the framebuffer as it was. */
static void change_framebuffer(fuzz_reader *r, draw_target *t)
{
    uint8_t code = fuzz_read_u8(r);
    if (code % 2 == 0) {
        static const float depths[] = {1.0f, 0.5f, 0.0f, 1.0f};
        uint32_t color = fuzz_read_u32(r);
        sr_framebuffer_clear(t->fb, color, depths[code / 2 % 4]);
        if (t->reference_fb)
            sr_framebuffer_clear(t->reference_fb, color, depths[code / 2 % 4]);
        if (t->twin_fb)
            sr_framebuffer_clear(t->twin_fb, color, depths[code / 2 % 4]);
        return;
    }
    int width = decode_side(fuzz_read_u8(r)), height = decode_side(fuzz_read_u8(r));
    bool valid = width >= 1 && height >= 1 && width <= SR_MAX_IMAGE_SIDE && height <= SR_MAX_IMAGE_SIDE;
    sr_framebuffer *const all[3] = {t->fb, t->reference_fb, t->twin_fb};
    for (int which = 0; which < 3; which++) {
        sr_framebuffer *fb = all[which];
        if (!fb)
            continue;
        int old_width = fb->width, old_height = fb->height;
        sr_error err = {0};
        sr_status status = sr_framebuffer_resize(fb, width, height, &err);
        if (valid && refused_allocation(t, status)) {
            FUZZ_CHECK(fb->width == old_width && fb->height == old_height, "a failed resize changed the size");
            continue;
        }
        if (!valid) {
            FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT, "resize to %dx%d returned %s", width, height,
                       sr_status_name(status));
            FUZZ_CHECK(fb->width == old_width && fb->height == old_height, "a refused resize changed the size");
            continue;
        }
        FUZZ_CHECK(status == SR_OK, "resize to %dx%d failed: %s", width, height, err.message);
        FUZZ_CHECK(fb->width == width && fb->height == height, "resize to %dx%d gave %dx%d", width, height, fb->width,
                   fb->height);
        size_t count = (size_t)width * (size_t)height;
        for (size_t i = 0; i < count; i++)
            FUZZ_CHECK(fb->color[i] == 0 && fb->depth[i] == 1.0f && (!fb->ids || fb->ids[i] == SR_NO_ID),
                       "resized pixel %zu not cleared", i);
    }
}

/* A renderer with a thread count from the input; counts outside [0, SR_MAX_THREADS] must be
 * refused. Few threads only: each input creates (and joins) them. */
static sr_renderer *create_renderer(fuzz_reader *r, int *threads_used, bool failing)
{
    static const int thread_counts[] = {0, 1, 0, 2, 3, 4, -1, INT_MIN, SR_MAX_THREADS + 1, INT_MAX, 1, 2};
    int threads = thread_counts[fuzz_read_u8(r) % 12];
    sr_renderer *renderer = NULL;
    sr_error err = {0};
    sr_status status = sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &renderer, &err);
    if (threads < 0 || threads > SR_MAX_THREADS)
        FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT && !renderer, "threads %d gave %s", threads,
                   sr_status_name(status));
    else if (status == SR_ERROR_OUT_OF_MEMORY && failing && fuzz_allocation_failed())
        FUZZ_CHECK(!renderer, "a renderer that ran out of memory was returned");
    else
        FUZZ_CHECK(status == SR_OK && renderer, "threads %d failed: %s", threads, err.message);
    if (!renderer) {
        threads = 0;
        status = sr_renderer_create(NULL, &renderer, &err);
        if (status == SR_ERROR_OUT_OF_MEMORY && failing && fuzz_allocation_failed())
            return NULL;
        FUZZ_CHECK(status == SR_OK, "default renderer failed: %s", err.message);
    }
    *threads_used = threads;
    return renderer;
}

static void run_input(fuzz_reader *r, bool failing);

int fuzz_draw_test_one_input(const uint8_t *data, size_t size)
{
    fuzz_reader r = fuzz_reader_make(data, size);
    bool failing = fuzz_allocation_failures_begin(&r);
    run_input(&r, failing);
    fuzz_allocation_failures_end();
    return 0;
}

static void run_input(fuzz_reader *r, bool failing)
{
    int width = decode_side(fuzz_read_u8(r)), height = decode_side(fuzz_read_u8(r));
    uint8_t fb_flags = fuzz_read_u8(r);
    bool valid = width >= 1 && height >= 1 && width <= SR_MAX_IMAGE_SIDE && height <= SR_MAX_IMAGE_SIDE;
    draw_target t = {.failing = failing};
    sr_error err = {0};
    sr_framebuffer_desc fb_desc = {width, height, fb_flags & 1};
    sr_status status = sr_framebuffer_create(&fb_desc, &t.fb, &err);
    t.renderer = create_renderer(r, &t.threads, failing);
    if (!t.renderer || (valid && refused_allocation(&t, status))) {
        FUZZ_CHECK(failing && fuzz_allocation_failed(), "no renderer or framebuffer without a refused allocation");
        FUZZ_CHECK(status == SR_OK || !t.fb, "a framebuffer that ran out of memory was returned");
        sr_renderer_destroy(t.renderer);
        sr_framebuffer_destroy(t.fb);
        return;
    }
    if (!valid) {
        FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT && !t.fb, "framebuffer %dx%d gave %s", width, height,
                   sr_status_name(status));
        /* The draws must refuse a framebuffer of that size too, even over real buffers. */
        uint32_t color = 0, ids = SR_NO_ID;
        float depth = 1.0f;
        sr_framebuffer fake = {width, height, &color, &depth, &ids};
        sr_program program = {.vertex = vertex_main, .fragment = fragment_main};
        sr_draw_desc desc = {.program = &program};
        FUZZ_CHECK(sr_draw_triangles(t.renderer, &fake, &desc, NULL) == SR_ERROR_INVALID_ARGUMENT,
                   "a %dx%d framebuffer was accepted by sr_draw_triangles", width, height);
        sr_line_desc lines = {0};
        FUZZ_CHECK(sr_draw_lines(t.renderer, &fake, &lines, NULL) == SR_ERROR_INVALID_ARGUMENT,
                   "a %dx%d framebuffer was accepted by sr_draw_lines", width, height);
        sr_renderer_destroy(t.renderer);
        return;
    }
    FUZZ_CHECK(status == SR_OK && t.fb, "framebuffer %dx%d failed: %s", width, height, err.message);
    if (t.threads > 1 && !failing) {
        FUZZ_CHECK(sr_renderer_create(NULL, &t.reference, &err) == SR_OK, "%s", err.message);
        FUZZ_CHECK(sr_framebuffer_create(&fb_desc, &t.reference_fb, &err) == SR_OK, "%s", err.message);
    }
    if (!failing) {
        FUZZ_CHECK(sr_renderer_create(NULL, &t.twin, &err) == SR_OK, "%s", err.message);
        FUZZ_CHECK(sr_framebuffer_create(&fb_desc, &t.twin_fb, &err) == SR_OK, "%s", err.message);
        t.twin->portable_fill = true;
    }
    if (fb_flags & 2) {
        sr_framebuffer_clear_depth(t.fb, 0.5f);
        if (t.reference_fb)
            sr_framebuffer_clear_depth(t.reference_fb, 0.5f);
        if (t.twin_fb)
            sr_framebuffer_clear_depth(t.twin_fb, 0.5f);
    }

    for (int op = 0; op < 6 && !fuzz_reader_done(r); op++) {
        uint8_t kind = fuzz_read_u8(r) % 4;
        if (kind <= 1)
            draw_triangles(r, &t);
        else if (kind == 2)
            draw_lines(r, &t);
        else
            change_framebuffer(r, &t);
        check_depth_range(t.fb);
    }
    sr_renderer_destroy(t.renderer);
    sr_framebuffer_destroy(t.fb);
    sr_renderer_destroy(t.reference);
    sr_framebuffer_destroy(t.reference_fb);
    sr_renderer_destroy(t.twin);
    sr_framebuffer_destroy(t.twin_fb);
}

const fuzz_target fuzz_target_draw = {
    .name = "draw",
    .test_one_input = fuzz_draw_test_one_input,
    .add_seeds = fuzz_draw_add_seeds,
    .tokens = NULL,
    .token_count = 0,
    .max_size = 1024,
};
