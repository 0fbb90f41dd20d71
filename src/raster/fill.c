/* src/raster/fill.c — rasterisation of a set-up triangle (triangle.c) over a pixel rectangle in
 * blocks of SR_BLOCK_LANES = 4 x 2 pixels (raster.h), the way llvmpipe and
 * Larrabee-style renderers shade: per block, the coverage mask from the fixed-point edge
 * functions (int32 lanes for small triangles; large ones first reject or accept 8x8 blocks whole,
 * then int64 lanes), the early depth test, the perspective-correct interpolation of depth and
 * varyings into structure-of-arrays form, one call of the program's block fragment function (or
 * of its one-fragment function per lane: the wrapped, slower path), then the late depth test,
 * the depth write, the blending or packing of colours and the id write, each for the whole block
 * in vector registers (fill_lanes.h).
 *
 * Every value of a lane is computed from the setup and the lane's own pixel coordinates, with the
 * operations of the scalar formulas in the same order (no fused multiply-adds: meson.build), so a
 * pixel gets the same bits whatever block, tile or vector width it is computed in. This file is
 * compiled twice: as the native variant (AVX2 where the build has it, SSE2 otherwise) and, through
 * fill_portable.c, as the portable one (plain C); the tests draw with both and compare. Builds
 * that dispatch at run time (meson.build) compile it twice more, fill_avx2.c and fill_avx512.c.
 * Knows nothing of vertex processing, clipping or setup. */
#include "raster_internal.h"

#include "fill_lanes.h"

#include <string.h>

#if defined(SR_FILL_PORTABLE)
#define FILL_VARIANT(name) name##_portable
#elif defined(SR_FILL_AVX2)
#define FILL_VARIANT(name) name##_avx2
#elif defined(SR_FILL_AVX512)
#define FILL_VARIANT(name) name##_avx512
#else
#define FILL_VARIANT(name) name##_native
#endif

/* The block code is written once and instantiated twice: a generic version and one for the
 * common state (early LESS test, depth writes, no blending), where the constant `fast` lets the
 * compiler drop every per-block switch. GNU attribute, also understood by Clang. */
#define SR_ALWAYS_INLINE static inline __attribute__((always_inline))

/* Large triangles are first classified in 8x8 blocks: rejected or accepted whole. */
#define COARSE_BLOCK 8

/* What one call of the fill keeps for its blocks. */
typedef struct fill_state {
    sr_fragment_block_in in;   ///< fields common to the triangle set once, the rest per block
    sr_fragment_block_out out; ///< preset per block
    SR_BLOCK_ALIGNED float varyings[SR_ATTRIBUTE_SLOTS][LANES]; ///< behind in.varyings / barycentric
    /// Edge function offsets of the lanes from the block's top-left pixel, step_x * column +
    /// step_y * row: int32 for small triangles, int64 for large ones.
    SR_BLOCK_ALIGNED int32_t edge_lanes32[3][LANES];
    SR_BLOCK_ALIGNED int64_t edge_lanes64[3][LANES];
    const sr_draw_context *context;
    const sr_triangle_setup *setup;
    sr_pixel_rect rect;  ///< the pixels this call may read and write
    sr_pixel_rect cover; ///< rect restricted to the triangle's bounds: the pixels it may shade
    sr_fragment_counters counters;
} fill_state;

/* Value of plane `j` at the lanes' pixels: (origin + step_y dy) + step_x dx, the scalar order. */
SR_ALWAYS_INLINE lanes_float plane_at(const sr_triangle_setup *setup, int j, lanes_float dx, lanes_float dy)
{
    lanes_float row = lf_add(lf_set(setup->plane_origin[j]), lf_mul(lf_set(setup->plane_step_y[j]), dy));
    return lf_add(row, lf_mul(lf_set(setup->plane_step_x[j]), dx));
}

/* The lanes of the block at (x0, y0) whose pixels lie inside `r`. */
static inline unsigned lanes_within(const sr_pixel_rect *r, int x0, int y0)
{
    int first = r->min_x - x0, last = r->max_x - x0;
    first = first < 0 ? 0 : first;
    last = last > SR_BLOCK_WIDTH - 1 ? SR_BLOCK_WIDTH - 1 : last;
    if (first > last)
        return 0;
    unsigned columns = ((2u << last) - 1u) & ~((1u << first) - 1u);
    unsigned rows = 0;
    for (int row = 0; row < SR_BLOCK_HEIGHT; row++)
        if (y0 + row >= r->min_y && y0 + row <= r->max_y)
            rows |= columns << (SR_BLOCK_WIDTH * row);
    return rows;
}

static inline unsigned depth_test(sr_depth_func func, lanes_float fragment, lanes_float stored)
{
    switch (func) {
    case SR_DEPTH_LESS:
        return lf_less(fragment, stored);
    case SR_DEPTH_LESS_EQUAL:
        return lf_less_equal(fragment, stored);
    case SR_DEPTH_GREATER:
        return lf_less(stored, fragment);
    case SR_DEPTH_GREATER_EQUAL:
        return lf_less_equal(stored, fragment);
    case SR_DEPTH_EQUAL:
        return lf_equal(fragment, stored);
    case SR_DEPTH_NOT_EQUAL:
        return lf_not_equal(fragment, stored);
    case SR_DEPTH_ALWAYS:
        return LANES_ALL;
    case SR_DEPTH_NEVER:
        return 0;
    }
    return 0;
}

/* RGBA8 of the block's colours: clamp (NaN as 0), * 255 + 0.5, truncate (sr_rgba8's rounding). */
static inline lanes_int pack_colors(const sr_fragment_block_out *out)
{
    lanes_int packed = li_set(0);
    for (int c = 0; c < 4; c++) {
        lanes_float v = lf_add(lf_mul(lf_clamp_unit(lf_load(out->color[c])), lf_set(255.0f)), lf_set(0.5f));
        packed = li_or(packed, li_shift_left(lf_truncate(v), 8 * c));
    }
    return packed;
}

/* sr_raster_blend (triangle.c) on eight pixels: the same operations per channel in the same
 * order, rounded half up and saturated. */
static inline lanes_int blend_colors(sr_blend_mode mode, const sr_fragment_block_out *out, lanes_int destination)
{
    const lanes_float alpha = lf_clamp_unit(lf_load(out->color[3]));
    const lanes_float scale = lf_set(255.0f), one = lf_set(1.0f);
    lanes_int result = li_set(0);
    for (int c = 0; c < 4; c++) {
        lanes_float source = lf_mul(c == 3 ? alpha : lf_clamp_unit(lf_load(out->color[c])), scale);
        lanes_float stored = li_to_float(li_byte(destination, c));
        lanes_float value;
        if (mode == SR_BLEND_ALPHA)
            value = lf_add(lf_mul(c == 3 ? scale : source, alpha), lf_mul(stored, lf_sub(one, alpha)));
        else
            value = lf_add(stored, lf_mul(source, alpha));
        value = lf_min(lf_add(value, lf_set(0.5f)), scale);
        result = li_or(result, li_shift_left(lf_truncate(value), 8 * c));
    }
    return result;
}

/* Lanes of `mask` read one at a time (a block that reaches outside the rectangle this call owns:
 * the other lanes read as 0 and are never used). */
static inline lanes_float gather_floats(const float *first, size_t stride, unsigned mask)
{
    SR_BLOCK_ALIGNED float lanes[LANES] = {0};
    for (; mask; mask &= mask - 1) {
        int k = __builtin_ctz(mask);
        lanes[k] = first[(size_t)(k / SR_BLOCK_WIDTH) * stride + (size_t)(k % SR_BLOCK_WIDTH)];
    }
    return lf_load(lanes);
}

static inline lanes_int gather_ints(const uint32_t *first, size_t stride, unsigned mask)
{
    SR_BLOCK_ALIGNED uint32_t lanes[LANES] = {0};
    for (; mask; mask &= mask - 1) {
        int k = __builtin_ctz(mask);
        lanes[k] = first[(size_t)(k / SR_BLOCK_WIDTH) * stride + (size_t)(k % SR_BLOCK_WIDTH)];
    }
    return li_load(lanes);
}

static inline void scatter_floats(float *first, size_t stride, unsigned mask, lanes_float values)
{
    SR_BLOCK_ALIGNED float lanes[LANES];
    lf_store(lanes, values);
    for (; mask; mask &= mask - 1) {
        int k = __builtin_ctz(mask);
        first[(size_t)(k / SR_BLOCK_WIDTH) * stride + (size_t)(k % SR_BLOCK_WIDTH)] = lanes[k];
    }
}

static inline void scatter_ints(uint32_t *first, size_t stride, unsigned mask, lanes_int values)
{
    SR_BLOCK_ALIGNED uint32_t lanes[LANES];
    li_store(lanes, values);
    for (; mask; mask &= mask - 1) {
        int k = __builtin_ctz(mask);
        first[(size_t)(k / SR_BLOCK_WIDTH) * stride + (size_t)(k % SR_BLOCK_WIDTH)] = lanes[k];
    }
}

/* The wrapped path of programs with a one-fragment function only: calls it for each lane of the
 * mask, with the lane's values gathered, and scatters what it writes. Returns the lanes kept. */
static uint32_t shade_lanes_one_by_one(fill_state *f)
{
    const sr_draw_context *context = f->context;
    const sr_fragment_block_in *in = &f->in;
    float attributes[SR_ATTRIBUTE_SLOTS] = {0};
    sr_fragment_in one = {
        .varyings = attributes,
        .barycentric = context->barycentrics ? attributes + context->varying_count : NULL,
        .primitive_id = in->primitive_id,
        .front_facing = in->front_facing,
    };
    uint32_t keep = 0;
    for (uint32_t mask = in->mask; mask; mask &= mask - 1) {
        int k = __builtin_ctz(mask);
        for (int i = 0; i < context->attribute_count; i++)
            attributes[i] = f->varyings[i][k];
        one.x = in->x[k];
        one.y = in->y[k];
        one.depth = in->depth[k];
        sr_fragment_out out = {.color = {0.0f, 0.0f, 0.0f, 1.0f}, .depth = in->depth[k]};
        if (!context->fragment(&one, context->uniforms, &out))
            continue;
        keep |= 1u << k;
        for (int c = 0; c < 4; c++)
            f->out.color[c][k] = out.color[c];
        f->out.depth[k] = out.depth;
    }
    return keep;
}

/* Shades the lanes of `mask` (covered, inside the rectangle) of the block at (x0, y0). */
SR_ALWAYS_INLINE void shade_block(fill_state *f, int x0, int y0, unsigned mask, bool fast)
{
    const sr_draw_context *context = f->context;
    const sr_triangle_setup *setup = f->setup;
    sr_framebuffer *fb = context->fb;
    const size_t stride = (size_t)fb->width;
    const size_t at = (size_t)y0 * stride + (size_t)x0;
    float *depth_row = fb->depth + at;
    uint32_t *color_row = fb->color + at;
    // Vector loads and stores of whole block rows when the block lies in the rectangle this call
    // owns (always, but for blocks cut by the framebuffer's right or bottom edge); lane by lane
    // otherwise, so that no other thread's pixel is ever read.
    const bool whole = x0 >= f->rect.min_x && x0 + SR_BLOCK_WIDTH - 1 <= f->rect.max_x && y0 >= f->rect.min_y &&
                       y0 + SR_BLOCK_HEIGHT - 1 <= f->rect.max_y;

    // The lanes' pixels relative to the setup's reference pixel (exact small integers).
    const lanes_float dx = lf_add(lf_set((float)(x0 - setup->bounds.min_x)), lf_load(lane_column));
    const lanes_float dy = lf_add(lf_set((float)(y0 - setup->bounds.min_y)), lf_load(lane_row));
    lanes_float depth = lf_clamp_unit(plane_at(setup, SR_PLANE_DEPTH, dx, dy));
    const lanes_float stored =
        whole ? lf_load_rows(depth_row, depth_row + stride) : gather_floats(depth_row, stride, mask);
    // Early depth test: the fragment function runs only for fragments that can be seen.
    if (fast)
        mask &= lf_less(depth, stored);
    else if (!context->late_depth)
        mask &= depth_test(context->state.depth_func, depth, stored);
    if (!mask)
        return;

    // Perspective-correct interpolation: attribute / w and 1 / w are linear in screen space; one
    // reciprocal per lane.
    const int count = context->attribute_count;
    if (count > 0) {
        const lanes_float w = lf_div(lf_set(1.0f), plane_at(setup, SR_PLANE_INV_W, dx, dy));
        for (int i = 0; i < count; i++)
            lf_store(f->varyings[i], lf_mul(plane_at(setup, SR_PLANE_ATTRIBUTES + i, dx, dy), w));
    }
    sr_fragment_block_in *in = &f->in;
    in->mask = mask;
    lf_store(in->x, lf_add(lf_set((float)x0), lf_load(lane_centre_x)));
    lf_store(in->y, lf_add(lf_set((float)y0), lf_load(lane_centre_y)));
    lf_store(in->depth, depth);
    sr_fragment_block_out *out = &f->out;
    lf_store(out->color[0], lf_set(0.0f));
    lf_store(out->color[1], lf_set(0.0f));
    lf_store(out->color[2], lf_set(0.0f));
    lf_store(out->color[3], lf_set(1.0f));
    lf_store(out->depth, depth);
    f->counters.shaded += (uint64_t)__builtin_popcount(mask);
    unsigned keep =
        context->fragment_block ? context->fragment_block(in, context->uniforms, out) : shade_lanes_one_by_one(f);
    keep &= mask;
    if (!keep)
        return;
    if (!fast && context->late_depth) {
        // A written depth that is NaN discards the fragment; others are clamped to [0, 1].
        const lanes_float written = lf_load(out->depth);
        keep &= ~lf_nan(written);
        depth = lf_clamp_unit(written);
        keep &= depth_test(context->state.depth_func, depth, stored);
        if (!keep)
            return;
    }
    f->counters.written += (uint64_t)__builtin_popcount(keep);

    const bool blend = !fast && context->state.blend != SR_BLEND_NONE;
    const bool write_depth = fast || !context->state.no_depth_write;
    uint32_t *ids_row = fb->ids ? fb->ids + at : NULL;
    if (!whole) {
        if (write_depth)
            scatter_floats(depth_row, stride, keep, depth);
        lanes_int color =
            blend ? blend_colors(context->state.blend, out, gather_ints(color_row, stride, keep)) : pack_colors(out);
        scatter_ints(color_row, stride, keep, color);
        if (ids_row)
            scatter_ints(ids_row, stride, keep, li_set(setup->primitive_id));
        return;
    }
    if (write_depth)
        lf_store_rows(depth_row, depth_row + stride, keep == LANES_ALL ? depth : lf_select(keep, depth, stored));
    lanes_int color;
    if (blend) {
        lanes_int old = li_load_rows(color_row, color_row + stride);
        color = li_select(keep, blend_colors(context->state.blend, out, old), old);
    } else {
        color = pack_colors(out);
        if (keep != LANES_ALL)
            color = li_select(keep, color, li_load_rows(color_row, color_row + stride));
    }
    li_store_rows(color_row, color_row + stride, color);
    if (ids_row) {
        lanes_int id = li_set(setup->primitive_id);
        if (keep != LANES_ALL)
            id = li_select(keep, id, li_load_rows(ids_row, ids_row + stride));
        li_store_rows(ids_row, ids_row + stride, id);
    }
}

static void edges_at(const sr_triangle_setup *setup, int x, int y, int64_t edge[3])
{
    int64_t dx = x - setup->bounds.min_x, dy = y - setup->bounds.min_y;
    for (int k = 0; k < 3; k++)
        edge[k] = setup->edge_origin[k] + setup->edge_step_x[k] * dx + setup->edge_step_y[k] * dy;
}

/* Small triangles: the blocks that tile the covered rectangle, int32 edge functions. Blocks start
 * at the rectangle rather than on the screen's grid: a triangle of a few pixels then needs one or
 * two blocks instead of up to four (no value depends on the block a pixel is shaded in). They
 * start at its top-left pixel, except where the triangle reaches the right (bottom) side of the
 * rectangle this call owns (a tile's side, shared with another thread; the framebuffer's side):
 * there the last block column (row) ends on that side, since a block across it would be read and
 * written lane by lane. In range by construction (setup->small; see sr_triangle_setup): blocks
 * reach at most 3 columns and 1 row outside the bounds, and the stepping one block further, which
 * keeps every value below 2^30. */
SR_ALWAYS_INLINE void fill_small(fill_state *f, bool fast)
{
    const sr_triangle_setup *setup = f->setup;
    const sr_pixel_rect r = f->cover;
    int first_x = r.min_x, first_y = r.min_y;
    if (r.max_x == f->rect.max_x) {
        const int columns = (r.max_x - r.min_x + SR_BLOCK_WIDTH) / SR_BLOCK_WIDTH * SR_BLOCK_WIDTH;
        first_x = r.max_x + 1 - columns >= f->rect.min_x ? r.max_x + 1 - columns : first_x;
    }
    if (r.max_y == f->rect.max_y) {
        const int rows = (r.max_y - r.min_y + SR_BLOCK_HEIGHT) / SR_BLOCK_HEIGHT * SR_BLOCK_HEIGHT;
        first_y = r.max_y + 1 - rows >= f->rect.min_y ? r.max_y + 1 - rows : first_y;
    }
    int64_t start[3];
    edges_at(setup, first_x, first_y, start);
    int32_t row[3], step_x[3], step_y[3];
    // Per edge, how far a block's largest lane value lies above its top-left lane's, and whether
    // the edge's values fall to the right. Where a block's largest value of such an edge is still
    // negative, no block further right in the row is covered (their values are smaller still):
    // the row ends there. Long thin triangles, whose bounds hold mostly uncovered blocks, skip
    // most of them so.
    int32_t reach[3], falling = 0;
    for (int k = 0; k < 3; k++) {
        row[k] = (int32_t)start[k];
        const int32_t pixel_x = (int32_t)setup->edge_step_x[k], pixel_y = (int32_t)setup->edge_step_y[k];
        step_x[k] = pixel_x * SR_BLOCK_WIDTH;
        step_y[k] = pixel_y * SR_BLOCK_HEIGHT;
        reach[k] =
            (pixel_x > 0 ? pixel_x * (SR_BLOCK_WIDTH - 1) : 0) + (pixel_y > 0 ? pixel_y * (SR_BLOCK_HEIGHT - 1) : 0);
        falling |= (pixel_x <= 0) << k;
    }
    const int32_t row_blocks = (r.max_x - first_x) / SR_BLOCK_WIDTH + 1;
    for (int y0 = first_y; y0 <= r.max_y; y0 += SR_BLOCK_HEIGHT) {
        int32_t edge[3] = {row[0], row[1], row[2]};
        // The row starts at the first block that an edge rising to the right does not leave
        // wholly negative: the blocks before it are uncovered.
        int32_t skip = 0;
        for (int k = 0; k < 3; k++) {
            const int32_t largest = edge[k] + reach[k];
            if (!(falling >> k & 1) && largest < 0) {
                const int32_t blocks = (-largest + step_x[k] - 1) / step_x[k];
                skip = blocks > skip ? blocks : skip;
            }
        }
        // (at most to the block past the row's last: the values stay those of the stepping)
        skip = skip < row_blocks ? skip : row_blocks;
        const int start_x = first_x + skip * SR_BLOCK_WIDTH;
        for (int k = 0; k < 3; k++)
            edge[k] += skip * step_x[k];
        for (int x0 = start_x; x0 <= r.max_x; x0 += SR_BLOCK_WIDTH) {
            unsigned mask = lanes_inside32(edge, f->edge_lanes32[0]);
            if (mask) {
                mask &= lanes_within(&r, x0, y0);
                if (mask)
                    shade_block(f, x0, y0, mask, fast);
            } else {
                int passed = 0;
                for (int k = 0; k < 3; k++)
                    passed |= (edge[k] + reach[k] < 0) << k;
                if (passed & falling)
                    break;
            }
            for (int k = 0; k < 3; k++)
                edge[k] += step_x[k];
        }
        for (int k = 0; k < 3; k++)
            row[k] += step_y[k];
    }
}

/* Large triangles: 8x8 blocks on a grid aligned to multiples of 8 (tiles that are multiples of 8
 * see the same blocks), rejected when an edge is negative at all of their pixel centres, accepted
 * whole when all edges are non-negative at all of them; the blocks of partial ones get int64
 * edge functions per lane. */
SR_ALWAYS_INLINE void fill_large(fill_state *f, bool fast)
{
    const sr_triangle_setup *setup = f->setup;
    const sr_pixel_rect r = f->cover;
    int64_t edge[3];
    for (int by = r.min_y & -COARSE_BLOCK; by <= r.max_y; by += COARSE_BLOCK) {
        int y0 = by > r.min_y ? by : r.min_y;
        int y1 = by + COARSE_BLOCK - 1 < r.max_y ? by + COARSE_BLOCK - 1 : r.max_y;
        for (int bx = r.min_x & -COARSE_BLOCK; bx <= r.max_x; bx += COARSE_BLOCK) {
            int x0 = bx > r.min_x ? bx : r.min_x;
            int x1 = bx + COARSE_BLOCK - 1 < r.max_x ? bx + COARSE_BLOCK - 1 : r.max_x;
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
            if (rejected)
                continue;
            for (int sy = y0 & -SR_BLOCK_HEIGHT; sy <= y1; sy += SR_BLOCK_HEIGHT)
                for (int sx = x0 & -SR_BLOCK_WIDTH; sx <= x1; sx += SR_BLOCK_WIDTH) {
                    unsigned mask = lanes_within(&r, sx, sy);
                    if (!accepted && mask) {
                        edges_at(setup, sx, sy, edge);
                        mask &= lanes_inside64(edge, f->edge_lanes64[0]);
                    }
                    if (mask)
                        shade_block(f, sx, sy, mask, fast);
                }
        }
    }
}

static void fill_fast(fill_state *f)
{
    if (f->setup->small)
        fill_small(f, true);
    else
        fill_large(f, true);
}

static void fill_generic(fill_state *f)
{
    if (f->setup->small)
        fill_small(f, false);
    else
        fill_large(f, false);
}

void FILL_VARIANT(sr_raster_fill_triangle)(const sr_draw_context *context, const sr_triangle_setup *setup,
                                           sr_pixel_rect rect, sr_fragment_counters *counters)
{
    sr_pixel_rect r = setup->bounds;
    r.min_x = rect.min_x > r.min_x ? rect.min_x : r.min_x;
    r.min_y = rect.min_y > r.min_y ? rect.min_y : r.min_y;
    r.max_x = rect.max_x < r.max_x ? rect.max_x : r.max_x;
    r.max_y = rect.max_y < r.max_y ? rect.max_y : r.max_y;
    if (r.min_x > r.max_x || r.min_y > r.max_y)
        return;
    fill_state f;
    f.context = context;
    f.setup = setup;
    // (Clamped to the framebuffer: what the vector loads and stores may touch.)
    f.rect = rect;
    f.rect.max_x = rect.max_x < context->fb->width - 1 ? rect.max_x : context->fb->width - 1;
    f.rect.max_y = rect.max_y < context->fb->height - 1 ? rect.max_y : context->fb->height - 1;
    f.cover = r;
    f.counters = (sr_fragment_counters){0, 0};
    f.in.varyings = (const float(*)[LANES])f.varyings;
    f.in.barycentric = context->barycentrics ? (const float(*)[LANES])f.varyings + context->varying_count : NULL;
    f.in.primitive_id = setup->primitive_id;
    f.in.front_facing = setup->front_facing;
    bool fast = !context->late_depth && context->state.depth_func == SR_DEPTH_LESS && !context->state.no_depth_write &&
                context->state.blend == SR_BLEND_NONE;
    if (setup->tiny_mask) {
        // One block, whose coverage setup found: the pixels of it that this call may shade.
        const int x0 = setup->bounds.min_x, y0 = setup->bounds.min_y;
        unsigned mask = setup->tiny_mask & lanes_within(&r, x0, y0);
        if (mask && fast)
            shade_block(&f, x0, y0, mask, true);
        else if (mask)
            shade_block(&f, x0, y0, mask, false);
        counters->shaded += f.counters.shaded;
        counters->written += f.counters.written;
        return;
    }
    if (setup->small) {
        for (int k = 0; k < 3; k++) {
            const int32_t step_x = (int32_t)setup->edge_step_x[k], step_y = (int32_t)setup->edge_step_y[k];
            for (int lane = 0; lane < LANES; lane++)
                f.edge_lanes32[k][lane] = step_x * (lane % SR_BLOCK_WIDTH) + step_y * (lane / SR_BLOCK_WIDTH);
        }
    } else {
        for (int k = 0; k < 3; k++)
            for (int lane = 0; lane < LANES; lane++)
                f.edge_lanes64[k][lane] =
                    setup->edge_step_x[k] * (lane % SR_BLOCK_WIDTH) + setup->edge_step_y[k] * (lane / SR_BLOCK_WIDTH);
    }
    if (fast)
        fill_fast(&f);
    else
        fill_generic(&f);
    counters->shaded += f.counters.shaded;
    counters->written += f.counters.written;
}
