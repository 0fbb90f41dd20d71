/* src/raster/triangle.c — triangle setup (fixed-point edge functions, fill rule, facing and
 * culling, plane equations of depth, 1/w and attributes / w) and sr_blend_rgba8 (the blending of
 * one pixel is raster_internal.h's sr_raster_blend). The rasterisation of a set-up triangle is
 * fill.c's. Knows nothing of vertex processing or
 * clipping. */
#include "raster_internal.h"

#include <math.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static int32_t min3(int32_t a, int32_t b, int32_t c)
{
    int32_t m = a < b ? a : b;
    return m < c ? m : c;
}

static int32_t max3(int32_t a, int32_t b, int32_t c)
{
    int32_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* The pixels of the bounds of a small triangle (edge functions in int32 there, see
 * sr_triangle_setup) that lie within one block from its top-left pixel and whose centres are
 * covered, as a lane mask (lane k: column k % 4, row k / 4): each lane's edge functions from the
 * origin by the steps, as fill.c computes them. */
static unsigned tiny_coverage(const sr_triangle_setup *setup)
{
    const int columns = setup->bounds.max_x - setup->bounds.min_x + 1;
    const int rows = setup->bounds.max_y - setup->bounds.min_y + 1;
    int32_t origin[3], step_x[3], step_y[3];
    for (int k = 0; k < 3; k++) {
        origin[k] = (int32_t)setup->edge_origin[k];
        step_x[k] = (int32_t)setup->edge_step_x[k];
        step_y[k] = (int32_t)setup->edge_step_y[k];
    }
    unsigned mask = 0;
    for (int lane = 0; lane < SR_BLOCK_LANES; lane++) {
        const int column = lane % SR_BLOCK_WIDTH, row = lane / SR_BLOCK_WIDTH;
        int32_t outside = 0;
        for (int k = 0; k < 3; k++)
            outside |= origin[k] + step_x[k] * column + step_y[k] * row;
        // Inside when no edge function is negative (sign bit clear), and the lane is in bounds.
        mask |= (unsigned)((outside >= 0) & (column < columns) & (row < rows)) << lane;
    }
    return mask;
}

/* value(x, y) = f0 + gx (x - x0) + gy (y - y0) through the three vertices, by Cramer's rule on
 * the edge vectors (e1, e2) from vertex 0, evaluated at the reference pixel centre. Attributes go
 * in groups of 4 (zero-padded), which compilers turn into vector code. */
#define SR_SET_UP_PLANES(type)                                                                                         \
    const type to_pixels = (type)1 / SR_SUBPIXEL_ONE;                                                                  \
    const type ex1 = (type)(v[1]->x - v[0]->x) * to_pixels, ey1 = (type)(v[1]->y - v[0]->y) * to_pixels;               \
    const type ex2 = (type)(v[2]->x - v[0]->x) * to_pixels, ey2 = (type)(v[2]->y - v[0]->y) * to_pixels;               \
    const type inv_area = (type)(SR_SUBPIXEL_ONE * SR_SUBPIXEL_ONE) / (type)area;                                      \
    const type offset_x = (type)min_x + (type)0.5 - (type)v[0]->x * to_pixels;                                         \
    const type offset_y = (type)min_y + (type)0.5 - (type)v[0]->y * to_pixels;                                         \
    const type w0 = v[0]->inv_w, w1 = v[1]->inv_w, w2 = v[2]->inv_w;                                                   \
    const int slots = SR_ATTRIBUTE_SLOTS_FOR(context->attribute_count);                                                \
    for (int g = 0; g < slots + 4; g += 4) {                                                                           \
        type f0[4], f1[4], f2[4];                                                                                      \
        if (g < slots) {                                                                                               \
            /* Perspective-correct interpolation: attribute / w is linear in screen space. */                          \
            for (int j = 0; j < 4; j++) {                                                                              \
                f0[j] = (type)attr[0][g + j] * w0;                                                                     \
                f1[j] = (type)attr[1][g + j] * w1;                                                                     \
                f2[j] = (type)attr[2][g + j] * w2;                                                                     \
            }                                                                                                          \
        } else {                                                                                                       \
            /* The last group: depth (linear in screen space) and 1 / w. */                                            \
            f0[0] = v[0]->z, f1[0] = v[1]->z, f2[0] = v[2]->z;                                                         \
            f0[1] = w0, f1[1] = w1, f2[1] = w2;                                                                        \
            f0[2] = f1[2] = f2[2] = f0[3] = f1[3] = f2[3] = 0;                                                         \
        }                                                                                                              \
        int at = g < slots ? SR_PLANE_ATTRIBUTES + g : SR_PLANE_DEPTH;                                                 \
        for (int j = 0; j < 4; j++) {                                                                                  \
            type d1 = f1[j] - f0[j], d2 = f2[j] - f0[j];                                                               \
            type gx = (d1 * ey2 - d2 * ey1) * inv_area, gy = (d2 * ex1 - d1 * ex2) * inv_area;                         \
            setup->plane_origin[at + j] = (float)(f0[j] + gx * offset_x + gy * offset_y);                              \
            setup->plane_step_x[at + j] = (float)gx;                                                                   \
            setup->plane_step_y[at + j] = (float)gy;                                                                   \
        }                                                                                                              \
    }

static void set_up_planes_float(const sr_draw_context *context, const sr_screen_vertex *const v[3],
                                const float *const attr[3], int64_t area, int min_x, int min_y,
                                sr_triangle_setup *setup)
{
#if defined(__SSE2__)
    // SR_SET_UP_PLANES(float) written with SSE: the same operations in the same order, four planes
    // at a time (compilers do not find this vectorisation by themselves).
    const float to_pixels = 1.0f / SR_SUBPIXEL_ONE;
    const float ex1 = (float)(v[1]->x - v[0]->x) * to_pixels, ey1 = (float)(v[1]->y - v[0]->y) * to_pixels;
    const float ex2 = (float)(v[2]->x - v[0]->x) * to_pixels, ey2 = (float)(v[2]->y - v[0]->y) * to_pixels;
    const __m128 ex1_v = _mm_set1_ps(ex1), ey1_v = _mm_set1_ps(ey1), ex2_v = _mm_set1_ps(ex2), ey2_v = _mm_set1_ps(ey2);
    const __m128 inv_area = _mm_set1_ps((float)(SR_SUBPIXEL_ONE * SR_SUBPIXEL_ONE) / (float)area);
    const __m128 offset_x = _mm_set1_ps((float)min_x + 0.5f - (float)v[0]->x * to_pixels);
    const __m128 offset_y = _mm_set1_ps((float)min_y + 0.5f - (float)v[0]->y * to_pixels);
    const __m128 w0 = _mm_set1_ps(v[0]->inv_w), w1 = _mm_set1_ps(v[1]->inv_w), w2 = _mm_set1_ps(v[2]->inv_w);
    const int slots = SR_ATTRIBUTE_SLOTS_FOR(context->attribute_count);
    for (int g = 0; g < slots + 4; g += 4) {
        __m128 f0, f1, f2;
        if (g < slots) {
            f0 = _mm_mul_ps(_mm_loadu_ps(attr[0] + g), w0);
            f1 = _mm_mul_ps(_mm_loadu_ps(attr[1] + g), w1);
            f2 = _mm_mul_ps(_mm_loadu_ps(attr[2] + g), w2);
        } else {
            f0 = _mm_setr_ps(v[0]->z, v[0]->inv_w, 0.0f, 0.0f);
            f1 = _mm_setr_ps(v[1]->z, v[1]->inv_w, 0.0f, 0.0f);
            f2 = _mm_setr_ps(v[2]->z, v[2]->inv_w, 0.0f, 0.0f);
        }
        int at = g < slots ? SR_PLANE_ATTRIBUTES + g : SR_PLANE_DEPTH;
        __m128 d1 = _mm_sub_ps(f1, f0), d2 = _mm_sub_ps(f2, f0);
        __m128 gx = _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(d1, ey2_v), _mm_mul_ps(d2, ey1_v)), inv_area);
        __m128 gy = _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(d2, ex1_v), _mm_mul_ps(d1, ex2_v)), inv_area);
        __m128 origin = _mm_add_ps(_mm_add_ps(f0, _mm_mul_ps(gx, offset_x)), _mm_mul_ps(gy, offset_y));
        _mm_storeu_ps(setup->plane_origin + at, origin);
        _mm_storeu_ps(setup->plane_step_x + at, gx);
        _mm_storeu_ps(setup->plane_step_y + at, gy);
    }
#else
    SR_SET_UP_PLANES(float);
#endif
}

static void set_up_planes_double(const sr_draw_context *context, const sr_screen_vertex *const v[3],
                                 const float *const attr[3], int64_t area, int min_x, int min_y,
                                 sr_triangle_setup *setup)
{
    SR_SET_UP_PLANES(double);
}
#undef SR_SET_UP_PLANES

/* Setup from the verdict on: bounds (SR_SETUP_OK's), doubled area (non-zero) and, when
 * `screened_coverage` is not NULL, the coverage tiny_coverage would find (the batch's). */
static inline __attribute__((always_inline)) void set_up(const sr_draw_context *context, const sr_screen_vertex *v0,
                                                         const sr_screen_vertex *v1, const sr_screen_vertex *v2,
                                                         const float *const attributes[3], uint32_t primitive_id,
                                                         sr_pixel_rect bounds, int64_t area,
                                                         const unsigned *screened_coverage, sr_triangle_setup *setup)
{
    const int min_x = bounds.min_x, min_y = bounds.min_y;
    bool front = area < 0;

    // Order the vertices so that the interior has positive edge functions. Selects rather than a
    // branch, and so below: on meshes drawn without culling the facing is a coin toss.
    const sr_screen_vertex *v[3] = {v0, front ? v2 : v1, front ? v1 : v2};
    const float *attr[3] = {attributes[0], front ? attributes[2] : attributes[1],
                            front ? attributes[1] : attributes[2]};
    area = front ? -area : area;
    setup->bounds = bounds;
    setup->primitive_id = primitive_id;
    setup->front_facing = front;
    const int32_t small = SR_SMALL_TRIANGLE * SR_SUBPIXEL_ONE;
    setup->small = (unsigned)(max3(v0->x, v1->x, v2->x) - min3(v0->x, v1->x, v2->x) < small) &
                   (unsigned)(max3(v0->y, v1->y, v2->y) - min3(v0->y, v1->y, v2->y) < small);

    int64_t centre_x = (int64_t)min_x * SR_SUBPIXEL_ONE + SR_SUBPIXEL_ONE / 2;
    int64_t centre_y = (int64_t)min_y * SR_SUBPIXEL_ONE + SR_SUBPIXEL_ONE / 2;
    for (int k = 0; k < 3; k++) {
        const sr_screen_vertex *a = v[k], *b = v[k == 2 ? 0 : k + 1];
        int64_t dx = (int64_t)b->x - a->x, dy = (int64_t)b->y - a->y;
        // E(p) = dx (p.y - a.y) - dy (p.x - a.x) > 0 inside. Top-left rule (D3D10) on the y-down
        // screen with this winding: a top edge is horizontal with the interior below it (dx > 0),
        // a left edge goes up (dy < 0). Pixels exactly on other edges are left to the neighbour.
        bool top_left = (dy < 0) | ((dy == 0) & (dx > 0));
        setup->edge_origin[k] = dx * (centre_y - a->y) - dy * (centre_x - a->x) - (top_left ? 0 : 1);
        setup->edge_step_x[k] = -dy * SR_SUBPIXEL_ONE;
        setup->edge_step_y[k] = dx * SR_SUBPIXEL_ONE;
    }

    // Triangles whose bounds fit in one block (most triangles of a dense mesh, and many of them
    // between pixel centres) get their coverage here, before the planes: an empty one is done,
    // the fill shades the others' one block without looking for blocks. The fill would find the
    // same pixels: the same edge functions at the same pixel centres.
    const bool tiny =
        setup->small && bounds.max_x - bounds.min_x < SR_BLOCK_WIDTH && bounds.max_y - bounds.min_y < SR_BLOCK_HEIGHT;
    setup->tiny_mask = !tiny ? 0 : screened_coverage ? *screened_coverage : tiny_coverage(setup);
    setup->empty = tiny && !setup->tiny_mask;
    if (setup->empty)
        return;

    // Plane equations in pixel units, stored as float relative to the centre of the first pixel
    // of the bounds (small offsets keep per-pixel float error small). Set up in float for small
    // triangles (extents and offsets below 64 pixels) and in double for large ones, whose
    // vertices may lie far outside the viewport.
    if (setup->small)
        set_up_planes_float(context, v, attr, area, min_x, min_y, setup);
    else
        set_up_planes_double(context, v, attr, area, min_x, min_y, setup);
}

/* The verdict, then (SR_SETUP_OK) the setup; `coverage` as set_up's `screened_coverage`. */
static inline __attribute__((always_inline)) sr_setup_result
classify_and_set_up(const sr_draw_context *context, const sr_screen_vertex *v0, const sr_screen_vertex *v1,
                    const sr_screen_vertex *v2, const float *const attributes[3], uint32_t primitive_id,
                    const unsigned *coverage, sr_triangle_setup *setup)
{
    // The bounding box of pixel centres first: a triangle between two rows or columns of centres
    // covers none and is dropped before any other work; then zero area and face culling.
    sr_pixel_rect bounds;
    sr_setup_result verdict = sr_raster_classify_triangle(context, v0, v1, v2, &bounds);
    if (verdict != SR_SETUP_OK)
        return verdict;
    set_up(context, v0, v1, v2, attributes, primitive_id, bounds, sr_raster_doubled_area(v0, v1, v2), coverage,
           setup);
    return SR_SETUP_OK;
}

sr_setup_result sr_raster_setup_triangle(const sr_draw_context *context, const sr_screen_vertex *v0,
                                         const sr_screen_vertex *v1, const sr_screen_vertex *v2,
                                         const float *const attributes[3], uint32_t primitive_id,
                                         sr_triangle_setup *setup)
{
    return classify_and_set_up(context, v0, v1, v2, attributes, primitive_id, NULL, setup);
}

sr_setup_result sr_raster_setup_covered(const sr_draw_context *context, const sr_screen_vertex *v0,
                                        const sr_screen_vertex *v1, const sr_screen_vertex *v2,
                                        const float *const attributes[3], uint32_t primitive_id, unsigned coverage,
                                        sr_triangle_setup *setup)
{
    return classify_and_set_up(context, v0, v1, v2, attributes, primitive_id, &coverage, setup);
}

void sr_raster_setup_screened(const sr_draw_context *context, const sr_screen_vertex *v0, const sr_screen_vertex *v1,
                              const sr_screen_vertex *v2, const float *const attributes[3], uint32_t primitive_id,
                              const sr_triangle_verdicts *screened, int lane, sr_triangle_setup *setup)
{
    const sr_pixel_rect bounds = {screened->min_x[lane], screened->min_y[lane], screened->max_x[lane],
                                  screened->max_y[lane]};
    const unsigned coverage = screened->covered[lane];
    set_up(context, v0, v1, v2, attributes, primitive_id, bounds, screened->area[lane], &coverage, setup);
}

uint32_t sr_blend_rgba8(sr_blend_mode mode, const float rgba[4], uint32_t destination)
{
    if ((unsigned)mode > SR_BLEND_ADDITIVE || !rgba)
        return destination;
    return sr_raster_blend(mode, rgba, destination);
}
