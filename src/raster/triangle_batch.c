/* src/raster/triangle_batch.c — the first steps of triangle setup (triangle.c) for
 * SR_TRIANGLE_BATCH triangles at once: their pixel bounds, area, facing and, for the triangles
 * whose bounds fit in one block, the pixel centres they cover. On a dense mesh most triangles
 * end there (between pixel centres, or inside one block without covering a centre), and the
 * loops below run in vector lanes, a triangle per lane, where the one-triangle setup pays a
 * scalar path with its branches for each. The verdicts are setup's own, bit for bit: the same
 * integer arithmetic (in int32, where setup's int64 values provably fit: small triangles only),
 * the same order of tests. Triangles the batch cannot decide go through the one-triangle path.
 *
 * This file is compiled once per instruction set, like fill.c (triangle_batch_avx2.c,
 * triangle_batch_avx512.c, triangle_batch_portable.c). Knows nothing of vertex processing or of
 * the per-pixel code. */
#include "raster_internal.h"

#if defined(SR_BATCH_PORTABLE)
#define BATCH_VARIANT(name) name##_portable
#elif defined(SR_BATCH_AVX2)
#define BATCH_VARIANT(name) name##_avx2
#elif defined(SR_BATCH_AVX512)
#define BATCH_VARIANT(name) name##_avx512
#else
#define BATCH_VARIANT(name) name##_native
#endif

/* Two's complement arithmetic on int32 lanes without signed overflow (lanes of triangles that
 * are not small compute garbage, which is never used). */
static inline int32_t wrap(uint32_t value)
{
    return (int32_t)value;
}

void BATCH_VARIANT(sr_raster_screen_batch)(const sr_draw_context *context, const sr_triangle_batch *restrict in,
                                           sr_triangle_verdicts *restrict out)
{
    const int32_t width = context->viewport.width, height = context->viewport.height;
    const int cull = (int)context->state.cull;
    const uint32_t scalar_flags = SR_VERTEX_NONFINITE | SR_CLIP_MASK;
    for (int i = 0; i < SR_TRIANGLE_BATCH; i++) {
        const int32_t x0 = in->x[0][i], y0 = in->y[0][i], x1 = in->x[1][i], y1 = in->y[1][i];
        const int32_t x2 = in->x[2][i], y2 = in->y[2][i];
        // sr_raster_pixel_bounds
        int32_t low_x = x0 < x1 ? x0 : x1, high_x = x0 > x1 ? x0 : x1;
        int32_t low_y = y0 < y1 ? y0 : y1, high_y = y0 > y1 ? y0 : y1;
        low_x = low_x < x2 ? low_x : x2;
        high_x = high_x > x2 ? high_x : x2;
        low_y = low_y < y2 ? low_y : y2;
        high_y = high_y > y2 ? high_y : y2;
        int32_t min_x = (low_x + (SR_SUBPIXEL_ONE / 2 - 1)) >> SR_SUBPIXEL_BITS;
        int32_t max_x = (high_x - SR_SUBPIXEL_ONE / 2) >> SR_SUBPIXEL_BITS;
        int32_t min_y = (low_y + (SR_SUBPIXEL_ONE / 2 - 1)) >> SR_SUBPIXEL_BITS;
        int32_t max_y = (high_y - SR_SUBPIXEL_ONE / 2) >> SR_SUBPIXEL_BITS;
        min_x = min_x < 0 ? 0 : min_x;
        min_y = min_y < 0 ? 0 : min_y;
        max_x = max_x >= width ? width - 1 : max_x;
        max_y = max_y >= height ? height - 1 : max_y;
        const int32_t has_pixel = (min_x <= max_x) & (min_y <= max_y);
        // sr_triangle_setup.small: the vertices span less than SR_SMALL_TRIANGLE pixels, so every
        // product below is < 2^30 (see sr_triangle_setup)
        const int32_t small = (high_x - low_x < SR_SMALL_TRIANGLE * SR_SUBPIXEL_ONE) &
                              (high_y - low_y < SR_SMALL_TRIANGLE * SR_SUBPIXEL_ONE);
        // sr_raster_doubled_area, in int32 for small triangles
        const int32_t area =
            wrap((uint32_t)(x1 - x0) * (uint32_t)(y2 - y0) - (uint32_t)(y1 - y0) * (uint32_t)(x2 - x0));
        const int32_t front = area < 0;
        const int32_t culled = ((cull == SR_CULL_BACK) & !front) | ((cull == SR_CULL_FRONT) & front);
        // setup's vertex order: interior on the positive side of the edges
        const int32_t bx = front ? x2 : x1, by = front ? y2 : y1, cx = front ? x1 : x2, cy = front ? y1 : y2;
        const int32_t ax[3] = {x0, bx, cx}, ay[3] = {y0, by, cy};
        const int32_t centre_x = min_x * SR_SUBPIXEL_ONE + SR_SUBPIXEL_ONE / 2;
        const int32_t centre_y = min_y * SR_SUBPIXEL_ONE + SR_SUBPIXEL_ONE / 2;
        const int32_t columns = max_x - min_x + 1, rows = max_y - min_y + 1;
        const int32_t tiny = small & (columns <= SR_BLOCK_WIDTH) & (rows <= SR_BLOCK_HEIGHT);
        // tiny_coverage (triangle.c): every lane of the block from the top-left pixel
        uint32_t covered = 0;
        int32_t origin[3], step_x[3], step_y[3];
        for (int k = 0; k < 3; k++) {
            const int32_t next = k == 2 ? 0 : k + 1;
            const int32_t dx = ax[next] - ax[k], dy = ay[next] - ay[k];
            const int32_t top_left = (dy < 0) | ((dy == 0) & (dx > 0));
            origin[k] = wrap((uint32_t)dx * (uint32_t)(centre_y - ay[k]) - (uint32_t)dy * (uint32_t)(centre_x - ax[k]) -
                             (uint32_t)(1 - top_left));
            step_x[k] = wrap(0u - (uint32_t)dy * SR_SUBPIXEL_ONE);
            step_y[k] = wrap((uint32_t)dx * SR_SUBPIXEL_ONE);
        }
        for (int lane = 0; lane < SR_BLOCK_LANES; lane++) {
            const int column = lane % SR_BLOCK_WIDTH, row = lane / SR_BLOCK_WIDTH;
            int32_t outside = 0;
            for (int k = 0; k < 3; k++)
                outside |= wrap((uint32_t)origin[k] + (uint32_t)step_x[k] * (uint32_t)column +
                                (uint32_t)step_y[k] * (uint32_t)row);
            covered |= (uint32_t)((outside >= 0) & (column < columns) & (row < rows)) << lane;
        }
        // the verdict, in setup's order of tests
        const uint32_t any = in->flags_any[i];
        const int32_t decide = !(any & scalar_flags) & !(in->flags_all[i] & SR_REJECT_MASK) & in->valid[i] & small;
        int32_t verdict = SR_BATCH_DRAW;
        verdict = (tiny & (covered == 0)) ? SR_BATCH_EMPTY : verdict;
        verdict = culled ? SR_BATCH_BACKFACE : verdict;
        verdict = area == 0 ? SR_BATCH_ZERO_AREA : verdict;
        verdict = has_pixel ? verdict : SR_BATCH_NO_PIXEL;
        verdict = decide ? verdict : SR_BATCH_SCALAR;
        out->verdict[i] = verdict;
        out->min_x[i] = min_x;
        out->min_y[i] = min_y;
        out->max_x[i] = max_x;
        out->max_y[i] = max_y;
        out->area[i] = area;
        out->covered[i] = tiny ? covered : 0;
    }
}
