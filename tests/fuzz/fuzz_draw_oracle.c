/* tests/fuzz/fuzz_draw_oracle.c — the independent model of sr_draw_triangles used by the draw fuzz
 * target (see fuzz_draw_oracle.h). Per triangle in submission order: skipped (index out of range,
 * non-finite position), rejected (all three corners beyond one plane of the view volume), unclipped
 * (exact fixed-point coverage) or clipped (homogeneous region); then per covered pixel the depth test,
 * the fragment function's behaviour and the depth write, with every undecidable outcome turned into
 * "unknown" for that pixel from then on. Knows nothing of src/raster/ beyond the public header. */
#include "fuzz_draw_oracle.h"

#include "fuzz_driver.h"
#include "raster_reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// The w plane: points with w below this are never drawn (the smallest w the pipeline projects).
#define W_MIN 1e-20f
/// Half-extent of the guard band in pixels (DESIGN.md: triangles leaving it are clipped); the exact
/// path is taken only well inside it.
#define GUARD_PIXELS 262144.0
/// Pixels closer than this to the outline of a clipped triangle are undecided: clipped vertices are
/// snapped to 1/256 pixel, which moves an edge by less than 0.003 pixels.
#define REGION_MARGIN 0.01

/* A fragment's or a stored depth: a value, how far off it may be, and whether it is known at all. */
typedef struct depth_value {
    double value;
    double tolerance; ///< 0: exactly value (a float)
    bool known;
} depth_value;

typedef enum outcome { FAILS = 0, PASSES, UNDECIDED } outcome;

static outcome depth_test(sr_depth_func func, depth_value fragment, depth_value stored)
{
    if (func == SR_DEPTH_ALWAYS)
        return PASSES;
    if (func == SR_DEPTH_NEVER)
        return FAILS;
    if (!fragment.known || !stored.known)
        return UNDECIDED;
    double difference = fragment.value - stored.value;
    if (fabs(difference) <= fragment.tolerance + stored.tolerance && (fragment.tolerance > 0 || stored.tolerance > 0))
        return UNDECIDED;
    bool pass;
    switch (func) {
    case SR_DEPTH_LESS:
        pass = difference < 0;
        break;
    case SR_DEPTH_LESS_EQUAL:
        pass = difference <= 0;
        break;
    case SR_DEPTH_GREATER:
        pass = difference > 0;
        break;
    case SR_DEPTH_GREATER_EQUAL:
        pass = difference >= 0;
        break;
    case SR_DEPTH_EQUAL:
        pass = difference == 0;
        break;
    default: // SR_DEPTH_NOT_EQUAL
        pass = difference != 0;
        break;
    }
    return pass ? PASSES : FAILS;
}

/* Everything the per-pixel step needs about the draw. */
typedef struct draw_model {
    const sr_draw_desc *desc;
    const draw_oracle_fragment *fragment;
    draw_oracle_prediction *out;
} draw_model;

/* The pixel's stored depth as a depth_value. */
static depth_value stored_at(const draw_oracle_prediction *out, size_t i)
{
    return (depth_value){out->depth[i], out->depth_tolerance[i], out->depth_known[i]};
}

static void store(draw_oracle_prediction *out, size_t i, depth_value value)
{
    out->depth[i] = value.value;
    out->depth_tolerance[i] = value.tolerance;
    out->depth_known[i] = value.known;
}

/* One fragment of a triangle at pixel i: `covered` 1 (certainly), or -1 (maybe); its interpolated
 * depth (clamped to [0, 1]). */
static void shade(const draw_model *model, size_t i, int covered, depth_value depth)
{
    draw_oracle_prediction *out = model->out;
    const sr_render_state *state = &model->desc->state;
    const draw_oracle_fragment *fragment = model->fragment;
    const bool late = model->desc->program->writes_depth;
    bool may_write = !state->no_depth_write && state->depth_func != SR_DEPTH_NEVER &&
                     fragment->discard != DRAW_ORACLE_DISCARD_ALL &&
                     !(late && fragment->written == DRAW_ORACLE_WRITES_NAN);
    if (covered < 0) {
        out->calls_known[i] = false;
        if (may_write)
            out->depth_known[i] = false;
        return;
    }
    // The depth tested (and written): the interpolated one, or with writes_depth what the fragment
    // function writes, clamped to [0, 1] (raster.h).
    depth_value tested = depth;
    if (late) {
        out->calls[i]++; // the late test runs after the fragment function
        if (fragment->written == DRAW_ORACLE_WRITES_NAN)
            return; // discarded
        if (fragment->written == DRAW_ORACLE_WRITES_CONSTANT) {
            float c = fragment->constant_depth;
            tested = (depth_value){c < 0.0f ? 0.0 : c > 1.0f ? 1.0 : c, 0.0, true};
        } else if (fragment->written == DRAW_ORACLE_WRITES_UNKNOWN) {
            tested.known = false;
        }
    }
    outcome result = depth_test(state->depth_func, tested, stored_at(out, i));
    if (result == UNDECIDED) {
        if (!late)
            out->calls_known[i] = false;
        if (may_write)
            out->depth_known[i] = false;
        return;
    }
    if (result == FAILS)
        return;
    if (!late)
        out->calls[i]++;
    if (!may_write)
        return;
    if (fragment->discard == DRAW_ORACLE_DISCARD_SOME)
        out->depth_known[i] = false;
    else
        store(out, i, tested);
}

/* Window position in 1/256 pixel of one coordinate, as the pipeline's float arithmetic rounds it
 * (clip * (1 / w) * s + s, s = 128 * side): false when float rounding could land on either side of
 * a rounding boundary. */
static bool snap(double ndc, double side, int64_t *out)
{
    double s = 128.0 * side, value = ndc * s + s;
    double error = 1e-6 * (fabs(value - s) + s) + 1e-9; // four float roundings, with room to spare
    double low = floor(value - error + 0.5), high = floor(value + error + 0.5);
    if (low != high || fabs(value) > 0x1p30)
        return false;
    *out = (int64_t)low;
    return true;
}

/* A triangle that needs no clipping, snapped exactly: coverage by the top-left rule, depth by
 * interpolation in double between the corners' window depths. */
static void shade_snapped(const draw_model *model, double clip[3][4], const int64_t x[3], const int64_t y[3])
{
    const int width = model->out->width, height = model->out->height;
    // Facing: counter-clockwise in NDC (y up) is clockwise in window coordinates (y down).
    int64_t area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
    if (area == 0)
        return;
    bool front = area < 0;
    sr_cull_mode cull = model->desc->state.cull;
    if ((cull == SR_CULL_BACK && !front) || (cull == SR_CULL_FRONT && front))
        return;
    double z[3];
    bool exact = true;
    for (int k = 0; k < 3; k++) {
        z[k] = clip[k][2] / clip[k][3];
        z[k] = z[k] < 0.0 ? 0.0 : z[k] > 1.0 ? 1.0 : z[k];
        exact = exact && clip[k][3] == 1.0 && clip[k][2] == clip[0][2];
    }
    // Barycentric weights as plane equations in pixels: lambda_k = (a_k px + b_k py + c_k) / area.
    double px_of[3], py_of[3];
    for (int k = 0; k < 3; k++) {
        px_of[k] = (double)x[k] / 256.0;
        py_of[k] = (double)y[k] / 256.0;
    }
    double twice = (px_of[1] - px_of[0]) * (py_of[2] - py_of[0]) - (py_of[1] - py_of[0]) * (px_of[2] - px_of[0]);
    // Depth plane gradient, and the size of the terms it is made of (the pipeline sets the plane up in
    // float: its rounding grows with them, over at most the triangle's box).
    double d1 = z[1] - z[0], d2 = z[2] - z[0];
    double ex1 = px_of[1] - px_of[0], ey1 = py_of[1] - py_of[0], ex2 = px_of[2] - px_of[0], ey2 = py_of[2] - py_of[0];
    double terms = (fabs(d1 * ey2) + fabs(d2 * ey1) + fabs(d1 * ex2) + fabs(d2 * ex1)) / fabs(twice);
    int64_t min_x = x[0], max_x = x[0], min_y = y[0], max_y = y[0];
    for (int k = 1; k < 3; k++) {
        min_x = x[k] < min_x ? x[k] : min_x;
        max_x = x[k] > max_x ? x[k] : max_x;
        min_y = y[k] < min_y ? y[k] : min_y;
        max_y = y[k] > max_y ? y[k] : max_y;
    }
    double extent = (double)(max_x - min_x + max_y - min_y) / 256.0 + 2.0;
    double tolerance = exact ? 0.0 : 4e-7 + 4e-6 * terms * extent;
    int first_x = (int)fmax(0.0, floor((double)min_x / 256.0)), last_x = (int)fmin(width - 1, (double)max_x / 256.0);
    int first_y = (int)fmax(0.0, floor((double)min_y / 256.0)), last_y = (int)fmin(height - 1, (double)max_y / 256.0);
    for (int py = first_y; py <= last_y; py++)
        for (int px = first_x; px <= last_x; px++) {
            if (!reference_fixed_covers(x, y, px, py))
                continue;
            double cx = px + 0.5, cy = py + 0.5;
            double w1 = ((cx - px_of[0]) * ey2 - (cy - py_of[0]) * ex2) / twice;
            double w2 = ((cy - py_of[0]) * ex1 - (cx - px_of[0]) * ey1) / twice;
            double depth = exact ? z[0] : z[0] + w1 * d1 + w2 * d2;
            depth = depth < 0.0 ? 0.0 : depth > 1.0 ? 1.0 : depth;
            shade(model, (size_t)py * (size_t)width + (size_t)px, 1, (depth_value){depth, tolerance, true});
        }
}

/* A triangle that is clipped (or could not be snapped for sure): the homogeneous region, pixels near
 * its outline undecided. `margin` adds the float error of unclipped corners far out. */
static void shade_region(const draw_model *model, double clip[3][4], double margin)
{
    const int width = model->out->width, height = model->out->height;
    reference_region region = reference_region_triangle(&clip[0][0], W_MIN);
    // Facing of the visible part (counter-clockwise in NDC = front); a region that covers a pixel
    // with the margin cannot have its orientation flipped by snapping. Unknown regions leave every
    // pixel undecided anyway.
    bool front = region.front > 0.0, solid = !region.unknown && !region.flat && !region.empty;
    sr_cull_mode cull = model->desc->state.cull;
    if (solid && ((cull == SR_CULL_BACK && !front) || (cull == SR_CULL_FRONT && front)))
        return;
    double slope = reference_region_depth_slope(&region, width, height);
    double tolerance = 1e-4 + region.depth_noise + slope * 4.0 * margin;
    for (int py = 0; py < height; py++)
        for (int px = 0; px < width; px++) {
            double cx = px + 0.5, cy = py + 0.5;
            int covered = reference_region_classify(&region, width, height, cx, cy, margin);
            if (covered == 0)
                continue;
            double depth = covered > 0 ? reference_region_depth(&region, width, height, cx, cy) : 0.0;
            shade(model, (size_t)py * (size_t)width + (size_t)px, covered, (depth_value){depth, tolerance, true});
        }
}

draw_oracle_prediction draw_oracle_predict(const sr_draw_desc *desc, const draw_oracle_fragment *fragment, int width,
                                           int height, const float *depth_before)
{
    size_t pixels = (size_t)width * (size_t)height;
    draw_oracle_prediction out = {width,
                                  height,
                                  calloc(pixels, sizeof(uint32_t)),
                                  malloc(pixels * sizeof(bool)),
                                  malloc(pixels * sizeof(double)),
                                  malloc(pixels * sizeof(double)),
                                  malloc(pixels * sizeof(bool))};
    FUZZ_CHECK(out.calls && out.calls_known && out.depth && out.depth_tolerance && out.depth_known, "out of memory");
    for (size_t i = 0; i < pixels; i++) {
        out.calls_known[i] = true;
        out.depth[i] = depth_before[i];
        out.depth_tolerance[i] = 0.0;
        out.depth_known[i] = true;
    }
    // Clip positions from the program's own vertex function (test code, not the pipeline).
    const sr_program *program = desc->program;
    float(*positions)[4] = malloc((desc->vertex_count + 1) * sizeof *positions);
    FUZZ_CHECK(positions, "out of memory");
    for (size_t v = 0; v < desc->vertex_count; v++) {
        float varyings[SR_MAX_VARYINGS + 4];
        float *clip = positions[v];
        clip[0] = clip[1] = clip[2] = 0.0f;
        clip[3] = 1.0f;
        program->vertex((const char *)desc->vertices + v * desc->vertex_stride, program->uniforms, clip, varyings);
    }
    const draw_model model = {desc, fragment, &out};
    size_t index_count = desc->indices || desc->index_count ? desc->index_count : desc->vertex_count;
    for (size_t t = 0; t < index_count / 3; t++) {
        double clip[3][4];
        bool usable = true;
        for (int k = 0; k < 3 && usable; k++) {
            size_t index = desc->indices ? desc->indices[3 * t + (size_t)k] : 3 * t + (size_t)k;
            usable = index < desc->vertex_count;
            for (int c = 0; c < 4 && usable; c++) {
                usable = isfinite(positions[index][c]);
                clip[k][c] = positions[index][c];
            }
        }
        if (!usable)
            continue; // skipped: nothing drawn
        // Entirely beyond one plane of the view volume: nothing drawn.
        bool beyond[7] = {true, true, true, true, true, true, true};
        bool unclipped = true;
        double farthest = 0.0; // largest window coordinate in pixels of a corner
        for (int k = 0; k < 3; k++) {
            const double *c = clip[k];
            bool out_of[7] = {c[3] < W_MIN, c[2]<0.0, c[2]> c[3], c[0]<-c[3], c[0]> c[3], c[1]<-c[3], c[1]> c[3]};
            for (int p = 0; p < 7; p++)
                beyond[p] = beyond[p] && out_of[p];
            if (out_of[0] || out_of[1] || out_of[2]) {
                unclipped = false;
                continue;
            }
            double window = fmax(fabs(c[0] / c[3]) * width, fabs(c[1] / c[3]) * height) * 0.5;
            unclipped = unclipped && window < 0.25 * GUARD_PIXELS;
            if (window < 2.0 * GUARD_PIXELS) // corners beyond the band are clipped away in double
                farthest = fmax(farthest, window);
        }
        bool rejected = false;
        for (int p = 0; p < 7; p++)
            rejected = rejected || beyond[p];
        if (rejected)
            continue;
        int64_t x[3], y[3];
        bool snapped = unclipped;
        for (int k = 0; k < 3 && snapped; k++)
            snapped = snap(clip[k][0] / clip[k][3], width, &x[k]) && snap(-clip[k][1] / clip[k][3], height, &y[k]);
        if (snapped)
            shade_snapped(&model, clip, x, y);
        else
            shade_region(&model, clip, REGION_MARGIN + 2e-6 * farthest);
    }
    free(positions);
    return out;
}

void draw_oracle_free(draw_oracle_prediction *prediction)
{
    free(prediction->calls);
    free(prediction->calls_known);
    free(prediction->depth);
    free(prediction->depth_tolerance);
    free(prediction->depth_known);
    memset(prediction, 0, sizeof *prediction);
}

void draw_oracle_check(const sr_draw_desc *desc, const draw_oracle_fragment *fragment, int width, int height,
                       const float *depth_before, const float *depth_after, const _Atomic uint32_t *calls)
{
    draw_oracle_prediction p = draw_oracle_predict(desc, fragment, width, height, depth_before);
    for (size_t i = 0; i < (size_t)width * (size_t)height; i++) {
        size_t x = i % (size_t)width, y = i / (size_t)width;
        uint32_t ran = atomic_load_explicit(&calls[i], memory_order_relaxed);
        FUZZ_CHECK(!p.calls_known[i] || ran == p.calls[i],
                   "pixel (%zu, %zu): the fragment function ran %u times, the oracle expects %u (depth func %d, cull "
                   "%d, depth before %a)",
                   x, y, ran, p.calls[i], (int)desc->state.depth_func, (int)desc->state.cull, (double)depth_before[i]);
        bool same = p.depth_tolerance[i] == 0.0 ? depth_after[i] == p.depth[i]
                                                : fabs(depth_after[i] - p.depth[i]) <= p.depth_tolerance[i];
        FUZZ_CHECK(!p.depth_known[i] || same,
                   "pixel (%zu, %zu): depth %a after the draw, the oracle expects %a +- %g (depth func %d, before %a)",
                   x, y, (double)depth_after[i], p.depth[i], p.depth_tolerance[i], (int)desc->state.depth_func,
                   (double)depth_before[i]);
    }
    draw_oracle_free(&p);
}
