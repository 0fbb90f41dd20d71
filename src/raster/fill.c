/* src/raster/fill.c — rasterisation of a set-up triangle (triangle.c) over a pixel rectangle:
 * 8x8 blocks trivially rejected or accepted as a whole, partial blocks tested per pixel, early or
 * late depth test, fragment function, blending, id buffer. Knows nothing of vertex processing,
 * clipping or setup. */
#include "raster_internal.h"

#include <math.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define BLOCK_SIZE 8

/* Clamp to [0, 1] with NaN as 0, branch-free (compilers turn the portable form into branches). */
static inline float clamp_unit(float value)
{
#if defined(__SSE2__)
    // maxss returns its second operand when the first is NaN.
    return _mm_cvtss_f32(_mm_min_ss(_mm_max_ss(_mm_set_ss(value), _mm_setzero_ps()), _mm_set_ss(1.0f)));
#else
    value = value > 0.0f ? value : 0.0f;
    return value < 1.0f ? value : 1.0f;
#endif
}

static inline bool depth_passes(sr_depth_func func, float fragment, float stored)
{
    switch (func) {
    case SR_DEPTH_LESS:
        return fragment < stored;
    case SR_DEPTH_LESS_EQUAL:
        return fragment <= stored;
    case SR_DEPTH_GREATER:
        return fragment > stored;
    case SR_DEPTH_GREATER_EQUAL:
        return fragment >= stored;
    case SR_DEPTH_EQUAL:
        return fragment == stored;
    case SR_DEPTH_NOT_EQUAL:
        return fragment != stored;
    case SR_DEPTH_ALWAYS:
        return true;
    case SR_DEPTH_NEVER:
        return false;
    }
    return false;
}

static inline uint32_t pack_color(const float rgba[4])
{
#if defined(__SSE2__)
    // The same arithmetic as below, four channels at once: clamp (NaN as 0), * 255 + 0.5,
    // truncate, pack to bytes.
    __m128 c = _mm_min_ps(_mm_max_ps(_mm_loadu_ps(rgba), _mm_setzero_ps()), _mm_set1_ps(1.0f));
    __m128i i = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(c, _mm_set1_ps(255.0f)), _mm_set1_ps(0.5f)));
    i = _mm_packs_epi32(i, i);
    return (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(i, i));
#endif
    uint32_t r = (uint32_t)(clamp_unit(rgba[0]) * 255.0f + 0.5f);
    uint32_t g = (uint32_t)(clamp_unit(rgba[1]) * 255.0f + 0.5f);
    uint32_t b = (uint32_t)(clamp_unit(rgba[2]) * 255.0f + 0.5f);
    uint32_t a = (uint32_t)(clamp_unit(rgba[3]) * 255.0f + 0.5f);
    return r | g << 8 | b << 16 | a << 24;
}

/* The per-pixel code is written once and instantiated twice: a generic version and one for the
 * common state (early LESS test, depth writes, no blending), where the constant `fast` lets the
 * compiler drop every per-pixel switch. GNU attribute, also understood by Clang. */
#define SR_ALWAYS_INLINE static inline __attribute__((always_inline))

/* Plane values at the start of a row (x = bounds.min_x): pixels of the row add step_x * dx. */
typedef struct row_planes {
    float value[SR_PLANE_SLOTS]; ///< depth, 1 / w, attributes / w (see sr_triangle_setup)
} row_planes;

SR_ALWAYS_INLINE void start_row(const sr_triangle_setup *setup, int slots, int py, row_planes *row)
{
    float fy = (float)(py - setup->bounds.min_y);
    for (int i = 0; i < slots; i += 4)
        for (int j = i; j < i + 4; j++)
            row->value[j] = setup->plane_origin[j] + setup->plane_step_y[j] * fy;
    for (int j = SR_PLANE_DEPTH; j < SR_PLANE_DEPTH + 4; j++)
        row->value[j] = setup->plane_origin[j] + setup->plane_step_y[j] * fy;
}

#if defined(__SSE2__)
/* The early LESS test of the fast path over a whole row segment, four pixels per step: returns
 * the bits of `mask` whose interpolated depth (written to lane_depth[k] for pixel x0 + k, with the
 * scalar formula of shade_pixels, so the bits are the same) is below the stored one. */
SR_ALWAYS_INLINE uint64_t early_depth_less(const sr_triangle_setup *setup, const row_planes *row,
                                           const float *depth_row, int limit_x, int x0, uint64_t mask,
                                           float *lane_depth)
{
    int lanes = 64 - __builtin_clzll(mask);
    float first = (float)(x0 - setup->bounds.min_x);
    const __m128 base = _mm_set1_ps(row->value[SR_PLANE_DEPTH]),
                 step = _mm_set1_ps(setup->plane_step_x[SR_PLANE_DEPTH]);
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    // 4-wide loads may read past the segment (those lanes are masked off below) but never past
    // column limit_x (the end of the row, or of the tile a thread owns): the last group gathers
    // what it may read. Every lane goes through the same vector arithmetic, whatever the split.
    int readable = limit_x - x0 + 1;
    uint64_t pass = 0;
    for (int k = 0; k < lanes; k += 4) {
        __m128 fx = _mm_add_ps(_mm_set1_ps(first + (float)k), _mm_setr_ps(0.0f, 1.0f, 2.0f, 3.0f));
        __m128 depth = _mm_min_ps(_mm_max_ps(_mm_add_ps(base, _mm_mul_ps(step, fx)), zero), one);
        _mm_storeu_ps(lane_depth + k, depth);
        __m128 stored;
        if (k + 4 <= readable) {
            stored = _mm_loadu_ps(depth_row + x0 + k);
        } else {
            float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int j = 0; j < 4 && k + j < readable; j++)
                part[j] = depth_row[x0 + k + j];
            stored = _mm_loadu_ps(part);
        }
        pass |= (uint64_t)_mm_movemask_ps(_mm_cmplt_ps(depth, stored)) << k;
    }
    return mask & pass;
}
#endif

/* Shades the pixels of row `py` whose bits are set in `mask` (bit k: pixel x0 + k). Every value
 * comes from the plane equations at the pixel's own coordinates relative to the setup's bounds,
 * never from a neighbour, so any split into tiles reproduces the same bits. */
SR_ALWAYS_INLINE void shade_pixels(const sr_draw_context *context, const sr_triangle_setup *setup,
                                   const row_planes *row, int py, int x0, uint64_t mask, int limit_x,
                                   sr_fragment_counters *counters, bool fast)
{
    sr_framebuffer *fb = context->fb;
    size_t row_start = (size_t)py * (size_t)fb->width;
    float *depth_row = fb->depth + row_start;
    uint32_t *color_row = fb->color + row_start;
    const int slots = (context->attribute_count + 3) & ~3;
    const sr_depth_func func = context->state.depth_func;
    float attributes[SR_ATTRIBUTE_SLOTS];
    uint64_t shaded = 0, written = 0;
#if defined(__SSE2__)
    float lane_depth[64 + 4]; // whole 4-lane groups past the last pixel
    if (fast)
        mask = early_depth_less(setup, row, depth_row, limit_x, x0, mask, lane_depth);
#endif
    // Fields that do not change along the row are filled once.
    sr_fragment_in in = {
        .y = (float)py + 0.5f,
        .varyings = attributes,
        .barycentric = context->barycentrics ? attributes + context->varying_count : NULL,
        .primitive_id = setup->primitive_id,
        .front_facing = setup->front_facing,
    };
    while (mask) {
        int lane = __builtin_ctzll(mask), px = x0 + lane;
        mask &= mask - 1;
        float fx = (float)(px - setup->bounds.min_x);
        float depth;
#if defined(__SSE2__)
        if (fast) {
            depth = lane_depth[lane];
        } else
#endif
        {
            depth = clamp_unit(row->value[SR_PLANE_DEPTH] + setup->plane_step_x[SR_PLANE_DEPTH] * fx);
            // Early depth test: the fragment function runs only for fragments that can be seen.
            if (fast ? !(depth < depth_row[px]) : !context->late_depth && !depth_passes(func, depth, depth_row[px]))
                continue;
        }
        // Perspective-correct interpolation: attribute / w and 1 / w are linear in screen space;
        // one reciprocal per pixel.
        float w = 1.0f / (row->value[SR_PLANE_INV_W] + setup->plane_step_x[SR_PLANE_INV_W] * fx);
        const float *row_attributes = row->value + SR_PLANE_ATTRIBUTES;
        const float *step_attributes = setup->plane_step_x + SR_PLANE_ATTRIBUTES;
        for (int i = 0; i < slots; i += 4)
            for (int j = i; j < i + 4; j++)
                attributes[j] = (row_attributes[j] + step_attributes[j] * fx) * w;
        in.x = (float)px + 0.5f;
        in.depth = depth;
        sr_fragment_out out = {.color = {0.0f, 0.0f, 0.0f, 1.0f}, .depth = depth};
        shaded++;
        if (!context->fragment(&in, context->uniforms, &out))
            continue;
        if (!fast && context->late_depth) {
            // A written depth that is NaN discards the fragment; others are clamped to [0, 1].
            if (isnan(out.depth))
                continue;
            depth = clamp_unit(out.depth);
            if (!depth_passes(func, depth, depth_row[px]))
                continue;
        }
        if (fast || !context->state.no_depth_write)
            depth_row[px] = depth;
        color_row[px] = fast || context->state.blend == SR_BLEND_NONE
                            ? pack_color(out.color)
                            : sr_raster_blend(context->state.blend, out.color, color_row[px]);
        if (fb->ids)
            fb->ids[row_start + (size_t)px] = setup->primitive_id;
        written++;
    }
    counters->shaded += shaded;
    counters->written += written;
}

/* Coverage of `width` (1..64) consecutive pixels of a row of a small triangle: bit k set when
 * all three edge functions (fill-rule bias included) are >= 0 at pixel k. Branch-free; with SSE2
 * four pixels per step (the sign bits of e0 | e1 | e2). */
SR_ALWAYS_INLINE uint64_t small_row_coverage(const int32_t edge[3], const int32_t step[3], int width)
{
    uint64_t mask = 0;
#if defined(__SSE2__)
    __m128i e0 = _mm_add_epi32(_mm_set1_epi32(edge[0]), _mm_setr_epi32(0, step[0], 2 * step[0], 3 * step[0]));
    __m128i e1 = _mm_add_epi32(_mm_set1_epi32(edge[1]), _mm_setr_epi32(0, step[1], 2 * step[1], 3 * step[1]));
    __m128i e2 = _mm_add_epi32(_mm_set1_epi32(edge[2]), _mm_setr_epi32(0, step[2], 2 * step[2], 3 * step[2]));
    const __m128i d0 = _mm_set1_epi32(4 * step[0]), d1 = _mm_set1_epi32(4 * step[1]), d2 = _mm_set1_epi32(4 * step[2]);
    for (int k = 0; k < width; k += 4) {
        __m128i any = _mm_or_si128(_mm_or_si128(e0, e1), e2);
        uint64_t outside = (uint64_t)_mm_movemask_ps(_mm_castsi128_ps(any));
        mask |= (outside ^ 0xfu) << k;
        e0 = _mm_add_epi32(e0, d0);
        e1 = _mm_add_epi32(e1, d1);
        e2 = _mm_add_epi32(e2, d2);
    }
#else
    int32_t e0 = edge[0], e1 = edge[1], e2 = edge[2];
    for (int k = 0; k < width; k++) {
        mask |= (uint64_t)((e0 | e1 | e2) >= 0) << k;
        e0 += step[0];
        e1 += step[1];
        e2 += step[2];
    }
#endif
    return width >= 64 ? mask : mask & ((UINT64_C(1) << width) - 1);
}

/* Coverage of 8 consecutive pixels of a row of a large triangle (int64 edges). */
SR_ALWAYS_INLINE unsigned block_row_coverage(int64_t e0, int64_t e1, int64_t e2, const int64_t step[3])
{
    unsigned mask = 0;
    for (int k = 0; k < 8; k++) {
        mask |= (unsigned)((e0 | e1 | e2) >= 0) << k;
        e0 += step[0];
        e1 += step[1];
        e2 += step[2];
    }
    return mask;
}

static void edges_at(const sr_triangle_setup *setup, int x, int y, int64_t edge[3])
{
    int64_t dx = x - setup->bounds.min_x, dy = y - setup->bounds.min_y;
    for (int k = 0; k < 3; k++)
        edge[k] = setup->edge_origin[k] + setup->edge_step_x[k] * dx + setup->edge_step_y[k] * dy;
}

/* Small triangles: one pass over the rows of the box, each row's coverage in one mask. */
SR_ALWAYS_INLINE void fill_small(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect r,
                                 int limit_x, sr_fragment_counters *counters, bool fast)
{
    int64_t start[3];
    edges_at(setup, r.min_x, r.min_y, start);
    // In range by construction (setup->small): see sr_triangle_setup.
    int32_t edge[3] = {(int32_t)start[0], (int32_t)start[1], (int32_t)start[2]};
    const int32_t step_x[3] = {(int32_t)setup->edge_step_x[0], (int32_t)setup->edge_step_x[1],
                               (int32_t)setup->edge_step_x[2]};
    const int32_t step_y[3] = {(int32_t)setup->edge_step_y[0], (int32_t)setup->edge_step_y[1],
                               (int32_t)setup->edge_step_y[2]};
    const int width = r.max_x - r.min_x + 1, slots = (context->attribute_count + 3) & ~3;
    row_planes row;
    for (int y = r.min_y; y <= r.max_y; y++) {
        uint64_t mask = small_row_coverage(edge, step_x, width);
        if (mask) {
            start_row(setup, slots, y, &row);
            shade_pixels(context, setup, &row, y, r.min_x, mask, limit_x, counters, fast);
        }
        for (int k = 0; k < 3; k++)
            edge[k] += step_y[k];
    }
}

/* Rows y0..y1 of the at most 8 columns x0..x1 of a large triangle, edges given at (x0, y0);
 * `full` when the block is known to be covered. */
SR_ALWAYS_INLINE void fill_block(const sr_draw_context *context, const sr_triangle_setup *setup, int x0, int y0, int x1,
                                 int limit_x, int y1, const int64_t edge[3], bool full, sr_fragment_counters *counters,
                                 bool fast)
{
    const unsigned columns = (1u << (x1 - x0 + 1)) - 1u;
    const int slots = (context->attribute_count + 3) & ~3;
    int64_t e0 = edge[0], e1 = edge[1], e2 = edge[2];
    row_planes row;
    for (int y = y0; y <= y1; y++) {
        unsigned mask = full ? columns : block_row_coverage(e0, e1, e2, setup->edge_step_x) & columns;
        if (mask) {
            start_row(setup, slots, y, &row);
            shade_pixels(context, setup, &row, y, x0, mask, limit_x, counters, fast);
        }
        e0 += setup->edge_step_y[0];
        e1 += setup->edge_step_y[1];
        e2 += setup->edge_step_y[2];
    }
}

SR_ALWAYS_INLINE void fill_triangle(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect r,
                                    int limit_x, sr_fragment_counters *counters, bool fast)
{
    if (setup->small) {
        fill_small(context, setup, r, limit_x, counters, fast);
        return;
    }
    int64_t edge[3];
    // Large triangles: 8x8 blocks on a grid aligned to multiples of 8 (tiles that are multiples
    // of 8 see the same blocks). A block is rejected when an edge is negative at all of its pixel
    // centres, accepted whole when all edges are non-negative at all of them.
    for (int by = r.min_y & ~(BLOCK_SIZE - 1); by <= r.max_y; by += BLOCK_SIZE) {
        int y0 = by > r.min_y ? by : r.min_y;
        int y1 = by + BLOCK_SIZE - 1 < r.max_y ? by + BLOCK_SIZE - 1 : r.max_y;
        for (int bx = r.min_x & ~(BLOCK_SIZE - 1); bx <= r.max_x; bx += BLOCK_SIZE) {
            int x0 = bx > r.min_x ? bx : r.min_x;
            int x1 = bx + BLOCK_SIZE - 1 < r.max_x ? bx + BLOCK_SIZE - 1 : r.max_x;
            edges_at(setup, x0, y0, edge);
            bool rejected = false, accepted = true;
            for (int k = 0; k < 3; k++) {
                int64_t across_x = setup->edge_step_x[k] * (x1 - x0);
                int64_t across_y = setup->edge_step_y[k] * (y1 - y0);
                int64_t low = edge[k] + (across_x < 0 ? across_x : 0) + (across_y < 0 ? across_y : 0);
                int64_t high = edge[k] + (across_x > 0 ? across_x : 0) + (across_y > 0 ? across_y : 0);
                rejected |= high < 0;
                accepted &= low >= 0;
            }
            if (!rejected)
                fill_block(context, setup, x0, y0, x1, limit_x, y1, edge, accepted, counters, fast);
        }
    }
}

static void fill_triangle_fast(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect r,
                               int limit_x, sr_fragment_counters *counters)
{
    fill_triangle(context, setup, r, limit_x, counters, true);
}

static void fill_triangle_generic(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect r,
                                  int limit_x, sr_fragment_counters *counters)
{
    fill_triangle(context, setup, r, limit_x, counters, false);
}

void sr_raster_fill_triangle(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect rect,
                             sr_fragment_counters *counters)
{
    sr_pixel_rect r = setup->bounds;
    r.min_x = rect.min_x > r.min_x ? rect.min_x : r.min_x;
    r.min_y = rect.min_y > r.min_y ? rect.min_y : r.min_y;
    r.max_x = rect.max_x < r.max_x ? rect.max_x : r.max_x;
    r.max_y = rect.max_y < r.max_y ? rect.max_y : r.max_y;
    if (r.min_x > r.max_x || r.min_y > r.max_y)
        return;
    sr_fragment_counters local = {0, 0};
    // The last column the per-pixel code may read (vector loads past a segment): the rectangle's.
    int limit_x = rect.max_x < context->fb->width - 1 ? rect.max_x : context->fb->width - 1;
    bool fast = !context->late_depth && context->state.depth_func == SR_DEPTH_LESS && !context->state.no_depth_write &&
                context->state.blend == SR_BLEND_NONE;
    if (fast)
        fill_triangle_fast(context, setup, r, limit_x, &local);
    else
        fill_triangle_generic(context, setup, r, limit_x, &local);
    counters->shaded += local.shaded;
    counters->written += local.written;
}

