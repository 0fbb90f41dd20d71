/* src/raster/line.c — sr_draw_lines: world-space segments transformed to clip space, clipped
 * against the view volume in homogeneous space (parametrically, Liang–Barsky style), and drawn
 * 1 to 4 pixels wide by stepping the major axis with pixel-centre sampling. Perspective-correct
 * colour, optional biased LESS_EQUAL depth test without depth writes, blending, polyline joints
 * drawn once. With threads, a first pass clips every segment into window space and sorts them
 * into units of rows, each then drawn by one thread, its segments in order. Each segment is
 * drawn by a loop specialised for its case (axis, depth test, bias, one colour), which gives the
 * pixels of the general per-pixel loop kept beside it.
 * Knows nothing of triangles or of the debug-draw lists that feed it. */
#include "raster_internal.h"

#include <math.h>
#include <string.h>

/* A clipped segment end in window space. */
typedef struct line_end {
    float x, y;     ///< window position in pixels
    float z;        ///< window depth
    float inv_w;    ///< 1 / w
    float color[4]; ///< colour / w
} line_end;

/// Pixels beyond the viewport's edges that the x/y clip planes of lines leave: clipping moves an
/// end, and a moved end inside the viewport would change the pixels drawn next to it (the
/// sample clamped to the new end, the pixels across a wide line). With the planes this far out
/// the visible pixels are those of the unclipped segment.
#define LINE_GUARD_PIXELS 8.0f

/* The guard band's half-extent in NDC units along an axis of `size` pixels. */
static float line_guard(int size)
{
    return 1.0f + 2.0f * LINE_GUARD_PIXELS / (float)size;
}

/* The viewport of a draw with its guard band's half-extents (two divisions), computed once per
 * draw rather than for each segment's clipping and each of its ends. */
typedef struct line_view {
    sr_viewport viewport;
    float guard_x, guard_y; ///< line_guard of the width and of the height
} line_view;

static float line_plane_distance(int plane, const float c[4], float guard_x, float guard_y)
{
    switch (plane) {
    case 0:
        return c[3] - SR_CLIP_W_EPSILON;
    case 1:
        return c[2]; // near: z >= 0
    case 2:
        return c[3] - c[2]; // far: z <= w
    case 3:
        return c[0] + guard_x * c[3]; // x >= -w, widened by the guard band
    case 4:
        return guard_x * c[3] - c[0];
    case 5:
        return c[1] + guard_y * c[3];
    default:
        return guard_y * c[3] - c[1];
    }
}

static bool make_end(const float clip[4], const float color[4], const line_view *view, line_end *end)
{
    const sr_viewport *viewport = &view->viewport;
    float inv_w = 1.0f / clip[3];
    /* A clipped end lies in the view volume up to the clipper's rounding, which is unbounded when
     * the clip parameter is subnormal (a segment from a point just behind the eye to one near
     * FLT_MAX): x / w came out as -3.6e14 (found by fuzz_draw). Clamp to the volume. */
    float ndc_x = clip[0] * inv_w, ndc_y = clip[1] * inv_w;
    const float guard_x = view->guard_x, guard_y = view->guard_y;
    ndc_x = ndc_x < -guard_x ? -guard_x : ndc_x > guard_x ? guard_x : ndc_x;
    ndc_y = ndc_y < -guard_y ? -guard_y : ndc_y > guard_y ? guard_y : ndc_y;
    end->x = (ndc_x + 1.0f) * 0.5f * (float)viewport->width;
    end->y = (1.0f - ndc_y) * 0.5f * (float)viewport->height;
    float z = clip[2] * inv_w;
    end->z = z < 0.0f ? 0.0f : z > 1.0f ? 1.0f : z;
    end->inv_w = inv_w;
    for (int k = 0; k < 4; k++)
        end->color[k] = color[k] * inv_w;
    return isfinite(end->x) && isfinite(end->y) && isfinite(inv_w);
}

/* A clipped segment ready to draw: its two window-space ends, the columns (rows) at its joints
 * that a neighbour of its polyline already draws, and the rows it can touch. */
typedef struct line_segment {
    line_end a, b;
    bool skip_a, skip_b; ///< do not draw the major-axis cell that contains end a (b)
    bool flat;           ///< every pixel that passes the depth test becomes flat_color (flat_color_of)
    int min_row, max_row;
    uint32_t flat_color;
} line_segment;

/* The depth buffer's change over one pixel across a line at `index` (the smaller of the two
 * one-sided differences, so that a silhouette next to the pixel does not count). */
static float depth_slope(const sr_framebuffer *fb, size_t index, int px, int py, bool x_major)
{
    const float *depth = fb->depth;
    float here = depth[index];
    bool has_before = x_major ? py > 0 : px > 0, has_after = x_major ? py + 1 < fb->height : px + 1 < fb->width;
    size_t step = x_major ? (size_t)fb->width : 1;
    float before = has_before ? fabsf(here - depth[index - step]) : INFINITY;
    float after = has_after ? fabsf(depth[index + step] - here) : INFINITY;
    float slope = before < after ? before : after;
    return slope < INFINITY ? slope : 0.0f;
}

static void plot(sr_framebuffer *fb, const sr_line_desc *desc, const line_segment *segment, const line_end *a,
                 const line_end *b, float t, int px, int py, bool x_major, uint64_t *written)
{
    size_t index = (size_t)py * (size_t)fb->width + (size_t)px;
    float z = a->z + (b->z - a->z) * t;
    if (desc->depth_test) {
        /* The line's point is up to half a pixel across from the pixel centre where the surface's
         * depth was stored: with a bias, the surface's own change over one pixel across the line
         * is allowed as well as the relative bias (glPolygonOffset's slope factor, measured
         * on the depth buffer). */
        float bias =
            desc->depth_bias > 0.0f ? desc->depth_bias * (1.0f - z) + depth_slope(fb, index, px, py, x_major) : 0.0f;
        if (!(z - bias <= fb->depth[index]))
            return;
    }
    if (segment->flat) {
        fb->color[index] = segment->flat_color;
        (*written)++;
        return;
    }
    float inv_w = a->inv_w + (b->inv_w - a->inv_w) * t;
    float w = 1.0f / inv_w, color[4];
    for (int k = 0; k < 4; k++)
        color[k] = (a->color[k] + (b->color[k] - a->color[k]) * t) * w;
    fb->color[index] = sr_raster_blend(desc->blend, color, fb->color[index]);
    (*written)++;
}

/* The pixel cell of a window coordinate, clamped into int range (the value is inside the
 * viewport up to clipping round-off, but a far-off value must not overflow the conversion). */
static int cell_of(float coordinate)
{
    float f = floorf(coordinate);
    return f < -2.0f ? -2 : f > (float)SR_MAX_IMAGE_SIDE + 1.0f ? SR_MAX_IMAGE_SIDE + 1 : (int)f;
}

/* How rasterize_segment walks a segment: the major axis stepped from `from` to `to`, one cell
 * (column or row) at a time, each cell sampled at its centre clamped to [major_a, major_b]. */
typedef struct line_walk {
    const line_end *from, *to;
    bool x_major;
    float major_a, major_b, inv_delta, minor_from, minor_delta;
    int first, last;        ///< the cells to walk, inside the framebuffer (and the rows drawn)
    int skip_one, skip_two; ///< cells a polyline neighbour draws (INT32_MIN: none)
    int low, high;          ///< the pixels across the line: minor + low .. minor + high
    int minor_size;
} line_walk;

static void walk_of(const sr_framebuffer *fb, const sr_line_desc *desc, const line_segment *segment, int top,
                    int bottom, line_walk *w)
{
    const line_end *a = &segment->a, *b = &segment->b;
    float dx = b->x - a->x, dy = b->y - a->y;
    bool x_major = fabsf(dx) >= fabsf(dy);
    // Step the major axis from the end with the smaller coordinate.
    float major_a = x_major ? a->x : a->y, major_b = x_major ? b->x : b->y;
    const line_end *from = a, *to = b;
    if (major_b < major_a) {
        from = b;
        to = a;
        float swap = major_a;
        major_a = major_b;
        major_b = swap;
    }
    w->from = from;
    w->to = to;
    w->x_major = x_major;
    // Cells a polyline neighbour draws: the ones holding the skipped ends.
    w->skip_one = segment->skip_a ? cell_of(x_major ? a->x : a->y) : INT32_MIN;
    w->skip_two = segment->skip_b ? cell_of(x_major ? b->x : b->y) : INT32_MIN;
    float major_delta = major_b - major_a;
    w->major_a = major_a;
    w->major_b = major_b;
    w->minor_from = x_major ? from->y : from->x;
    w->minor_delta = x_major ? to->y - from->y : to->x - from->x;
    int major_size = x_major ? fb->width : fb->height;
    w->minor_size = x_major ? fb->height : fb->width;
    float first_f = floorf(major_a), last_f = floorf(major_b);
    /* clamped in float before the conversion, which is undefined outside int's range */
    int first = first_f < 0.0f ? 0 : first_f > (float)major_size ? major_size : (int)first_f;
    int last = last_f > (float)(major_size - 1) ? major_size - 1 : last_f < -1.0f ? -1 : (int)last_f;
    if (!x_major) { // the cells are rows: only those of [top, bottom]
        first = first < top ? top : first;
        last = last > bottom ? bottom : last;
    }
    w->first = first;
    w->last = last;
    const int width = desc->width > 1 ? desc->width : 1;
    w->low = -(width - 1) / 2;
    w->high = width / 2;
    w->inv_delta = major_delta > 0.0f ? 1.0f / major_delta : 0.0f;
}

/* The line's minor coordinate at `cell` (floored; NaN when the walk is degenerate) and its
 * parameter t from `from` to `to`. Both loops below sample through this one expression, so that
 * they draw the same pixels. */
static inline float walk_minor(const line_walk *w, int cell, float *t)
{
    // Sample at the column's (row's) centre, clamped to the segment so that both ends' own pixels
    // are included.
    float at = (float)cell + 0.5f;
    at = at < w->major_a ? w->major_a : at > w->major_b ? w->major_b : at;
    *t = (at - w->major_a) * w->inv_delta;
    return floorf(w->minor_from + w->minor_delta * *t);
}

/* The general loop: any segment, every case decided per pixel (plot). The reference that
 * draw_cells must match pixel for pixel (tests/test_raster_lines.c draws through both). */
static void rasterize_general(sr_framebuffer *fb, const sr_line_desc *desc, const line_segment *segment,
                              const line_walk *w, int top, int bottom, uint64_t *written)
{
    const bool x_major = w->x_major;
    for (int cell = w->first; cell <= w->last; cell++) {
        if (cell == w->skip_one || cell == w->skip_two)
            continue;
        float t;
        float minor_f = walk_minor(w, cell, &t);
        if (!(minor_f >= -8.0f && minor_f < (float)w->minor_size + 8.0f))
            continue;
        int minor = (int)minor_f;
        for (int offset = w->low; offset <= w->high; offset++) {
            int m = minor + offset;
            if (m < 0 || m >= w->minor_size)
                continue;
            int px = x_major ? cell : m, py = x_major ? m : cell;
            if (py < top || py > bottom)
                continue;
            plot(fb, desc, segment, w->from, w->to, t, px, py, x_major, written);
        }
    }
}

/* True when the pixels across the line at `cell` reach the minor range [m_lo, m_hi] or have
 * passed it, the minor coordinate growing (`rising`) or shrinking along the walk. */
static inline bool walk_reached(const line_walk *w, int cell, int m_lo, int m_hi, bool rising)
{
    float t;
    float minor_f = walk_minor(w, cell, &t);
    return rising ? minor_f + (float)w->high >= (float)m_lo : minor_f + (float)w->low <= (float)m_hi;
}

/* The specialised loop: one case of the walk's axis, depth test, bias and flat colour fixed at
 * compile time (always inlined with constants), the pixels across the line clamped to the rows
 * and columns drawn before the loop, and the cells restricted to those whose pixels reach the rows
 * [m_lo, m_hi] of an x-major walk: the minor coordinate is monotonic along the walk (a clamp, a
 * subtraction, products by constants and a floor, each monotonic), so those cells are contiguous;
 * the first found by bisection, the loop left after the last. Same pixels as rasterize_general:
 * the same expressions in the same order, only the tests that cannot fail removed. */
static inline __attribute__((always_inline)) void draw_cells(sr_framebuffer *fb, const sr_line_desc *desc,
                                                             const line_segment *segment, const line_walk *w, int m_lo,
                                                             int m_hi, uint64_t *written, const bool x_major,
                                                             const bool depth_test, const bool biased, const bool flat)
{
    const line_end *a = w->from, *b = w->to;
    const float z_from = a->z, z_delta = b->z - a->z, depth_bias = desc->depth_bias;
    const size_t stride = (size_t)fb->width;
    const float guard_high = (float)w->minor_size + 8.0f;
    const bool rising = w->minor_delta >= 0.0f;
    int first = w->first, last = w->last;
    if (x_major && first <= last && !walk_reached(w, first, m_lo, m_hi, rising)) {
        // Bisection for the first cell that reaches the rows: reached(last + 1) stands for true.
        int lo = first, hi = last + 1; // reached(lo) false, reached(hi) true
        while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            if (walk_reached(w, mid, m_lo, m_hi, rising))
                hi = mid;
            else
                lo = mid;
        }
        first = hi;
    }
    uint64_t count = 0;
    for (int cell = first; cell <= last; cell++) {
        if (cell == w->skip_one || cell == w->skip_two)
            continue;
        float t;
        float minor_f = walk_minor(w, cell, &t);
        if (!(minor_f >= -8.0f && minor_f < guard_high))
            continue;
        int minor = (int)minor_f;
        int m_first = minor + w->low, m_last = minor + w->high;
        if (x_major && (rising ? m_first > m_hi : m_last < m_lo))
            break; // past the rows, as is every cell after it
        m_first = m_first < m_lo ? m_lo : m_first;
        m_last = m_last > m_hi ? m_hi : m_last;
        for (int m = m_first; m <= m_last; m++) {
            int px = x_major ? cell : m, py = x_major ? m : cell;
            size_t index = (size_t)py * stride + (size_t)px;
            if (depth_test) {
                float z = z_from + z_delta * t;
                /* A pixel that passes with the relative bias alone passes with the slope added as
                 * well (depth_slope is >= 0 and never NaN; a rounded sum and difference are
                 * monotonic), so its neighbours' depths are read only when it does not. */
                if (!(biased && z - depth_bias * (1.0f - z) <= fb->depth[index])) {
                    // As plot: the relative bias and the surface's slope (see there).
                    float bias = biased ? depth_bias * (1.0f - z) + depth_slope(fb, index, px, py, x_major) : 0.0f;
                    if (!(z - bias <= fb->depth[index]))
                        continue;
                }
            }
            if (flat) {
                fb->color[index] = segment->flat_color;
            } else {
                float inv_w = a->inv_w + (b->inv_w - a->inv_w) * t;
                float w_pixel = 1.0f / inv_w, color[4];
                for (int k = 0; k < 4; k++)
                    color[k] = (a->color[k] + (b->color[k] - a->color[k]) * t) * w_pixel;
                fb->color[index] = sr_raster_blend(desc->blend, color, fb->color[index]);
            }
            count++;
        }
    }
    *written += count;
}

#define DRAW_CELLS_CASE(x_major, depth_test, biased, flat)                                                             \
    case (x_major) | (depth_test) << 1 | (biased) << 2 | (flat) << 3:                                                  \
        draw_cells(fb, desc, segment, &w, m_lo, m_hi, written, x_major, depth_test, biased, flat);                     \
        break;

/* Draws a segment restricted to rows [top, bottom]. Every pixel depends only on the segment and
 * its own position, so any split into row ranges draws the same pixels. `general`: through
 * rasterize_general only (for tests). */
static void rasterize_segment(sr_framebuffer *fb, const sr_line_desc *desc, const line_segment *segment, int top,
                              int bottom, bool general, uint64_t *written)
{
    line_walk w;
    walk_of(fb, desc, segment, top, bottom, &w);
    /* A degenerate walk (a major extent whose inverse overflows, from window coordinates a
     * subnormal apart) samples NaN at some cells, which the bisection of draw_cells cannot order. */
    if (general || !isfinite(w.inv_delta)) {
        rasterize_general(fb, desc, segment, &w, top, bottom, written);
        return;
    }
    // The pixels across the line that may be drawn: inside the framebuffer and, x-major, the rows.
    int m_lo = 0, m_hi = w.minor_size - 1;
    if (w.x_major) {
        m_lo = top > 0 ? top : 0;
        m_hi = bottom < m_hi ? bottom : m_hi;
    }
    const bool depth_test = desc->depth_test, biased = depth_test && desc->depth_bias > 0.0f;
    switch ((int)w.x_major | (int)depth_test << 1 | (int)biased << 2 | (int)segment->flat << 3) {
        DRAW_CELLS_CASE(0, 0, 0, 0)
        DRAW_CELLS_CASE(1, 0, 0, 0)
        DRAW_CELLS_CASE(0, 1, 0, 0)
        DRAW_CELLS_CASE(1, 1, 0, 0)
        DRAW_CELLS_CASE(0, 1, 1, 0)
        DRAW_CELLS_CASE(1, 1, 1, 0)
        DRAW_CELLS_CASE(0, 0, 0, 1)
        DRAW_CELLS_CASE(1, 0, 0, 1)
        DRAW_CELLS_CASE(0, 1, 0, 1)
        DRAW_CELLS_CASE(1, 1, 0, 1)
        DRAW_CELLS_CASE(0, 1, 1, 1)
        DRAW_CELLS_CASE(1, 1, 1, 1)
    default:
        break; // biased without a depth test: not a combination that occurs
    }
}

/* The colour every pixel of a segment gets, when it is the same whatever the pixel: true when
 * both ends have one opaque colour on the 8-bit grid, blended by SR_BLEND_NONE or _ALPHA, and
 * their 1 / w differ by at most LINE_FLAT_W_RATIO. A pixel's colour is then the ends' colour up to
 * the rounding of its perspective interpolation ((c / w_a + (c / w_b - c / w_a) t) w), a relative
 * error of a few float ulps times the ratio of the 1 / w, under 0.01 of a byte step: blended
 * (opaque over anything: the colour itself) and rounded half up, it is exactly the bytes of the
 * colour, as sr_raster_blend makes them at an end. The per-pixel division, interpolation and
 * blend are then skipped; tests/test_raster_lines.c compares such lines with the same drawn by
 * the general path. */
#define LINE_FLAT_W_RATIO 16.0f

static bool flat_color_of(const sr_line_desc *desc, const float a[4], const float b[4], const line_segment *segment,
                          uint32_t *color)
{
    if (desc->blend != SR_BLEND_NONE && desc->blend != SR_BLEND_ALPHA)
        return false;
    if (memcmp(a, b, 4 * sizeof(float)) != 0 || a[3] != 1.0f)
        return false;
    for (int k = 0; k < 3; k++) {
        float byte = a[k] * 255.0f;
        if (!(byte >= 0.0f && byte <= 255.0f && fabsf(byte - nearbyintf(byte)) <= 0.01f))
            return false;
    }
    float near = fmaxf(segment->a.inv_w, segment->b.inv_w), far = fminf(segment->a.inv_w, segment->b.inv_w);
    if (!(far > 0.0f && near <= far * LINE_FLAT_W_RATIO))
        return false;
    *color = sr_raster_blend(desc->blend, a, 0);
    return true;
}

/* Transforms and clips segment i (vertices 2i, 2i + 1); false when nothing of it is visible
 * (*skipped set when a position is not finite). `entered` / `left` tell whether clipping moved
 * the first / second end. */
static bool prepare_segment(const sr_line_desc *desc, const line_view *view, size_t i, line_segment *out, bool *entered,
                            bool *left, bool *skipped)
{
    float clip[2][4], color[2][4];
    *skipped = false;
    for (int e = 0; e < 2; e++) {
        const sr_line_vertex *vertex = &desc->vertices[2 * i + (size_t)e];
        sr_vec4 c = sr_mat4_mul_vec4(desc->view_projection, sr_vec4_from_vec3(vertex->position, 1.0f));
        clip[e][0] = c.x;
        clip[e][1] = c.y;
        clip[e][2] = c.z;
        clip[e][3] = c.w;
        for (int k = 0; k < 4; k++)
            color[e][k] = vertex->color[k];
    }
    bool finite = true;
    for (int k = 0; k < 4; k++)
        finite = finite && isfinite(clip[0][k]) && isfinite(clip[1][k]);
    if (!finite) {
        *skipped = true;
        return false;
    }
    // Parametric clipping: keep t in [enter, leave] where every plane distance is >= 0.
    float enter = 0.0f, leave = 1.0f;
    const sr_viewport *viewport = &view->viewport;
    const float guard_x = view->guard_x, guard_y = view->guard_y;
    for (int plane = 0; plane < SR_CLIP_PLANE_COUNT; plane++) {
        float d0 = line_plane_distance(plane, clip[0], guard_x, guard_y),
              d1 = line_plane_distance(plane, clip[1], guard_x, guard_y);
        if (d0 < 0.0f && d1 < 0.0f)
            return false;
        else if (d0 < 0.0f)
            enter = fmaxf(enter, d0 / (d0 - d1));
        else if (d1 < 0.0f)
            leave = fminf(leave, d0 / (d0 - d1));
    }
    if (enter > leave)
        return false;
    float clipped[2][4], colors[2][4];
    for (int k = 0; k < 4; k++) {
        clipped[0][k] = clip[0][k] + (clip[1][k] - clip[0][k]) * enter;
        clipped[1][k] = clip[0][k] + (clip[1][k] - clip[0][k]) * leave;
        colors[0][k] = color[0][k] + (color[1][k] - color[0][k]) * enter;
        colors[1][k] = color[0][k] + (color[1][k] - color[0][k]) * leave;
    }
    if (!(clipped[0][3] > 0.0f && clipped[1][3] > 0.0f) || !make_end(clipped[0], colors[0], view, &out->a) ||
        !make_end(clipped[1], colors[1], view, &out->b)) {
        *skipped = true;
        return false;
    }
    *entered = enter > 0.0f;
    *left = leave < 1.0f;
    out->skip_a = out->skip_b = false;
    out->flat = flat_color_of(desc, color[0], color[1], out, &out->flat_color);
    // Rows the segment can reach, with the width across it (for the split between threads).
    const int width = desc->width > 1 ? desc->width : 1;
    float top = fminf(out->a.y, out->b.y), bottom = fmaxf(out->a.y, out->b.y);
    int first = cell_of(top) - width, last = cell_of(bottom) + width;
    out->min_row = first < 0 ? 0 : first;
    out->max_row = last >= viewport->height ? viewport->height - 1 : last;
    return true;
}

static bool same_position(sr_vec3 p, sr_vec3 q)
{
    return memcmp(&p, &q, sizeof p) == 0;
}

/* Units of rows claimed by the threads of a multi-threaded line draw, each with the indices of
 * the segments that reach it in draw order (unit u's are entries[offsets[u]] to
 * entries[offsets[u + 1] - 1]): a thread walks its unit's segments only, not every segment. */
typedef struct line_job {
    sr_framebuffer *fb;
    const sr_line_desc *desc;
    const line_segment *segments;
    const size_t *offsets;
    const uint32_t *entries;
    int unit_rows, units;
    unsigned unit_shift; ///< unit_rows is 1 << unit_shift
    bool general;        ///< sr_renderer.general_lines
    _Atomic int next_unit;
    uint64_t written[SR_MAX_THREADS];
} line_job;

/// Segments ahead of the one drawn that draw_line_units fetches.
#define LINE_PREFETCH 8

static void draw_line_units(void *data, int worker)
{
    line_job *job = data;
    uint64_t written = 0;
    for (;;) {
        int unit = atomic_fetch_add_explicit(&job->next_unit, 1, memory_order_relaxed);
        if (unit >= job->units)
            break;
        int top = unit * job->unit_rows, bottom = top + job->unit_rows - 1;
        size_t end = job->offsets[unit + 1];
        for (size_t e = job->offsets[unit]; e < end; e++) {
            // A unit's segments lie scattered over the draw's: fetched a few ahead (both cache
            // lines of one), or each one's first read waits on memory.
            if (e + LINE_PREFETCH < end) {
                const char *ahead = (const char *)&job->segments[job->entries[e + LINE_PREFETCH]];
                __builtin_prefetch(ahead);
                __builtin_prefetch(ahead + sizeof(line_segment) - 1);
            }
            rasterize_segment(job->fb, job->desc, &job->segments[job->entries[e]], top, bottom, job->general, &written);
        }
    }
    job->written[worker] = written;
}

/* The units of rows [min_row, max_row] (none when the segment reaches no row). The rows of a unit
 * are a power of two, the rows unsigned: a shift, not the integer division by the job's
 * unit_rows that the binning made three times per segment. */
static void segment_units(const line_segment *segment, unsigned shift, int *first, int *last)
{
    unsigned min_row = (unsigned)segment->min_row, max_row = (unsigned)segment->max_row;
    *first = (int)(min_row >> shift);
    *last = segment->max_row >= segment->min_row ? (int)(max_row >> shift) : *first - 1;
}

_Static_assert(SR_BAND_HEIGHT > 0 && (SR_BAND_HEIGHT & (SR_BAND_HEIGHT - 1)) == 0, "units of rows by a shift");

/// Units of rows per thread that a draw keeps at least when its units are made twice as tall.
#define LINE_UNITS_PER_WORKER 4

/* The rows of a unit, as a shift: SR_BAND_HEIGHT, or twice that while the frame still has
 * LINE_UNITS_PER_WORKER units per thread for the balance between them. A segment is set up again
 * in every unit it reaches (its walk, the bisection to the unit's first cell): with units of 64
 * rows, a 100,000-line frame at 1280x720 (segments of some 50 pixels) takes about 5% less CPU
 * time on 2 threads than with 32. */
static unsigned unit_shift_of(int height, int workers)
{
    unsigned shift = (unsigned)__builtin_ctz(SR_BAND_HEIGHT);
    return (height >> (shift + 1)) >= LINE_UNITS_PER_WORKER * workers ? shift + 1 : shift;
}

/* Sorts the `count` segments into the job's units, in the renderer's scratch memory after the
 * segments (which may move: *segments is updated). False when out of memory. */
static bool bin_segments(sr_renderer *renderer, line_segment **segments, size_t count, line_job *job)
{
    size_t entry_count = 0;
    for (size_t i = 0; i < count; i++) {
        int first, last;
        segment_units(&(*segments)[i], job->unit_shift, &first, &last);
        entry_count += (size_t)(last - first + 1);
    }
    // Segments, then units + 1 offsets, then the entries (each part aligned for its type).
    size_t offsets_at = (count * sizeof(line_segment) + sizeof(size_t) - 1) / sizeof(size_t) * sizeof(size_t);
    size_t entries_at = offsets_at + ((size_t)job->units + 1) * sizeof(size_t);
    if (entry_count > (SIZE_MAX - entries_at) / sizeof(uint32_t))
        return false;
    size_t needed = entries_at + entry_count * sizeof(uint32_t);
    if (needed > renderer->line_scratch_capacity) {
        void *grown = sr_realloc(renderer->line_scratch, needed);
        if (!grown)
            return false;
        renderer->line_scratch = grown;
        renderer->line_scratch_capacity = needed;
        *segments = grown;
    }
    uint8_t *scratch = renderer->line_scratch;
    size_t *offsets = (size_t *)(void *)(scratch + offsets_at);
    uint32_t *entries = (uint32_t *)(void *)(scratch + entries_at);
    memset(offsets, 0, ((size_t)job->units + 1) * sizeof(size_t));
    for (size_t i = 0; i < count; i++) {
        int first, last;
        segment_units(&(*segments)[i], job->unit_shift, &first, &last);
        for (int u = first; u <= last; u++)
            offsets[u + 1]++;
    }
    for (int u = 0; u < job->units; u++)
        offsets[u + 1] += offsets[u];
    // Filled through offsets[u], which then ends unit u: moved back by one unit afterwards.
    for (size_t i = 0; i < count; i++) {
        int first, last;
        segment_units(&(*segments)[i], job->unit_shift, &first, &last);
        for (int u = first; u <= last; u++)
            entries[offsets[u]++] = (uint32_t)i;
    }
    for (int u = job->units; u > 0; u--)
        offsets[u] = offsets[u - 1];
    offsets[0] = 0;
    job->segments = *segments;
    job->offsets = offsets;
    job->entries = entries;
    return true;
}

/* The most units of rows sr_renderer_reserve_lines plans for: a frame of 4,096 rows in units of
 * SR_BAND_HEIGHT. */
#define RESERVE_UNITS (4096 / SR_BAND_HEIGHT)

sr_status sr_renderer_reserve_lines(sr_renderer *renderer, size_t segments, sr_error *err)
{
    if (!renderer)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_renderer_reserve_lines: renderer is NULL");
    // bin_segments's layout: the segments, the units' offsets, then an entry per unit a segment
    // reaches (two each here).
    if (segments > (SIZE_MAX / 2 - 4096) / (sizeof(line_segment) + 2 * sizeof(uint32_t)))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_reserve_lines: %zu segments are too many",
                            segments);
    size_t offsets_at = (segments * sizeof(line_segment) + sizeof(size_t) - 1) / sizeof(size_t) * sizeof(size_t);
    size_t needed = offsets_at + (RESERVE_UNITS + 1) * sizeof(size_t) + 2 * segments * sizeof(uint32_t);
    if (needed <= renderer->line_scratch_capacity)
        return SR_OK;
    // A new block rather than a realloc: nothing of the old one is kept between draws.
    void *grown = sr_alloc(needed);
    if (!grown)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_reserve_lines: out of memory for %zu segments",
                            segments);
    memset(grown, 0, needed);
    sr_free(renderer->line_scratch);
    renderer->line_scratch = grown;
    renderer->line_scratch_capacity = needed;
    return SR_OK;
}

/* Segments per draw below which one thread draws them all. */
#define PARALLEL_MIN_SEGMENTS 64

sr_status sr_draw_lines(sr_renderer *renderer, sr_framebuffer *fb, const sr_line_desc *desc, sr_error *err)
{
    const sr_status invalid = SR_ERROR_INVALID_ARGUMENT;
    if (!renderer)
        return sr_error_set(err, invalid, "sr_draw_lines: renderer is NULL");
    sr_raster_batch_flush(renderer); // an open batch's triangles come before these lines
    sr_status status = sr_raster_check_framebuffer(fb, "sr_draw_lines", err);
    if (status != SR_OK)
        return status;
    if (!desc)
        return sr_error_set(err, invalid, "sr_draw_lines: desc is NULL");
    if (desc->vertex_count > 0 && !desc->vertices)
        return sr_error_set(err, invalid, "sr_draw_lines: desc->vertices is NULL but vertex_count is %zu",
                            desc->vertex_count);
    if (desc->vertex_count % 2 != 0)
        return sr_error_set(err, invalid, "sr_draw_lines: desc->vertex_count %zu is odd", desc->vertex_count);
    if ((unsigned)desc->blend > SR_BLEND_ADDITIVE)
        return sr_error_set(err, invalid, "sr_draw_lines: desc->blend %d is not an sr_blend_mode", (int)desc->blend);
    if (desc->width < 0 || desc->width > 4)
        return sr_error_set(err, invalid, "sr_draw_lines: desc->width %d is outside [0, 4]", desc->width);
    if (!(desc->depth_bias >= 0.0f) || !isfinite(desc->depth_bias))
        return sr_error_set(err, invalid, "sr_draw_lines: desc->depth_bias %g must be finite and >= 0",
                            (double)desc->depth_bias);

    sr_viewport viewport = sr_raster_viewport(fb->width, fb->height);
    const line_view view = {
        .viewport = viewport, .guard_x = line_guard(viewport.width), .guard_y = line_guard(viewport.height)};
    size_t count = desc->vertex_count / 2;
    if (count > SIZE_MAX / sizeof(line_segment))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_draw_lines: %zu segments are too many", count);
    size_t needed = count * sizeof(line_segment);
    if (needed > renderer->line_scratch_capacity) {
        void *grown = sr_realloc(renderer->line_scratch, needed);
        if (!grown)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_draw_lines: out of memory for %zu segments", count);
        renderer->line_scratch = grown;
        renderer->line_scratch_capacity = needed;
    }
    // Pass 1: clip every segment and find the joints of polylines.
    line_segment *segments = renderer->line_scratch;
    size_t kept = 0;
    uint64_t skipped = 0;
    bool previous_visible = false, previous_left = true;
    sr_vec3 previous_end = {0, 0, 0}, run_start = {0, 0, 0};
    size_t run_first = SIZE_MAX; // index in `segments` of the current polyline's first segment
    bool run_start_clean = false;
    for (size_t i = 0; i < count; i++) {
        sr_vec3 start = desc->vertices[2 * i].position, end = desc->vertices[2 * i + 1].position;
        bool continues = i > 0 && same_position(start, previous_end);
        bool entered = false, left = false, is_skipped = false;
        line_segment *segment = &segments[kept];
        bool visible = prepare_segment(desc, &view, i, segment, &entered, &left, &is_skipped);
        skipped += is_skipped;
        if (!continues) {
            run_start = start;
            run_first = visible ? kept : SIZE_MAX;
            run_start_clean = visible && !entered;
        }
        if (visible) {
            segment->skip_a = continues && previous_visible && !previous_left && !entered;
            // Closing the polyline: its first segment already drew the shared end.
            segment->skip_b = continues && same_position(end, run_start) && run_first != SIZE_MAX &&
                              run_first != kept && run_start_clean && !left;
            kept++;
        }
        previous_visible = visible;
        previous_left = left;
        previous_end = end;
    }
    // Pass 2: draw, in row units shared by the threads when there are enough segments.
    int workers = renderer->pool && kept >= PARALLEL_MIN_SEGMENTS ? renderer->threads : 1;
    uint64_t written = 0;
    if (workers > 1) {
        line_job job = {.fb = fb,
                        .desc = desc,
                        .unit_shift = unit_shift_of(fb->height, workers),
                        .general = renderer->general_lines};
        job.unit_rows = 1 << job.unit_shift;
        job.units = (fb->height + job.unit_rows - 1) / job.unit_rows;
        if (kept > UINT32_MAX || !bin_segments(renderer, &segments, kept, &job))
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_draw_lines: out of memory sorting %zu segments", kept);
        atomic_init(&job.next_unit, 0);
        sr_raster_run(renderer, workers, draw_line_units, &job);
        for (int w = 0; w < workers; w++)
            written += job.written[w];
    } else {
        for (size_t i = 0; i < kept; i++)
            rasterize_segment(fb, desc, &segments[i], 0, fb->height - 1, renderer->general_lines, &written);
    }
    renderer->stats.lines_in += desc->vertex_count / 2;
    renderer->stats.lines_skipped += skipped;
    renderer->stats.fragments_written += written;
    return SR_OK;
}
