/* tests/fuzz/fuzz_draw_oracle.h — an independent model of one sr_draw_triangles call for the draw
 * fuzz target (fuzz_draw.c): from the draw's description and the depth buffer before it, which pixels
 * run the fragment function how many times, and what the depth buffer holds after it. Written from
 * DESIGN.md and raster.h, not from src/raster/: triangles that need no clipping are snapped to 24.8
 * fixed point in double (when the pipeline's float rounding cannot go either way) and covered by the
 * top-left rule of tests/raster_reference.h; the others are covered by the homogeneous regions of the
 * same header (clipped against the w, near and far planes, with a margin). Depth is interpolated in
 * double and compared with a tolerance, exactly where it is known bit for bit (a constant-depth
 * triangle with w = 1). What cannot be decided is marked unknown and never compared. */
#ifndef SR_FUZZ_DRAW_DRAW_ORACLE_H
#define SR_FUZZ_DRAW_DRAW_ORACLE_H

#include <softrast/raster.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/// What the program's fragment function writes as depth (with sr_program.writes_depth).
typedef enum draw_oracle_written_depth {
    DRAW_ORACLE_WRITES_INPUT = 0, ///< the interpolated depth it was given
    DRAW_ORACLE_WRITES_CONSTANT,  ///< draw_oracle_fragment.constant_depth (clamped to [0, 1] by the pipeline)
    DRAW_ORACLE_WRITES_NAN,       ///< NaN: every fragment is discarded
    DRAW_ORACLE_WRITES_UNKNOWN,   ///< something the oracle does not model (an interpolated varying)
} draw_oracle_written_depth;

/// Which fragments the program's fragment function discards.
typedef enum draw_oracle_discard {
    DRAW_ORACLE_DISCARD_NONE = 0,
    DRAW_ORACLE_DISCARD_ALL,
    DRAW_ORACLE_DISCARD_SOME
} draw_oracle_discard;

/// The fragment function's behaviour, as far as calls and depth go.
typedef struct draw_oracle_fragment {
    draw_oracle_written_depth written;
    float constant_depth;
    draw_oracle_discard discard;
} draw_oracle_fragment;

/// The prediction of one draw: per pixel (row-major, top row first) the fragment function calls and
/// the depth after the draw, each only where known.
typedef struct draw_oracle_prediction {
    int width, height;
    uint32_t *calls;
    bool *calls_known;
    double *depth;
    double *depth_tolerance; ///< the stored depth is depth[i] +- depth_tolerance[i]; 0 = exactly
    bool *depth_known;
} draw_oracle_prediction;

/// Predicts the draw `desc` (valid: sr_draw_triangles returns SR_OK for it) into a framebuffer of
/// `width` x `height` pixels whose depth buffer is `depth_before`. Runs the program's vertex function
/// on every vertex (it must have no side effects). Free with draw_oracle_free.
draw_oracle_prediction draw_oracle_predict(const sr_draw_desc *desc, const draw_oracle_fragment *fragment, int width,
                                           int height, const float *depth_before);
void draw_oracle_free(draw_oracle_prediction *prediction);

/// Predicts the draw as draw_oracle_predict and compares it with what it did: `calls[i]` fragment
/// function calls at pixel i and the depth buffer `depth_after`; a difference is a failed FUZZ_CHECK
/// naming the pixel.
void draw_oracle_check(const sr_draw_desc *desc, const draw_oracle_fragment *fragment, int width, int height,
                       const float *depth_before, const float *depth_after, const _Atomic uint32_t *calls);

#endif
