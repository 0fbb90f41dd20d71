/* src/raster/raster_internal.h — private state of the drawing pipeline, shared by pipeline.c
 * (validation, vertex processing, primitive assembly), clip.c (homogeneous clipping),
 * triangle.c (setup and rasterisation) and line.c. Never installed; knows nothing of scenes.
 *
 * The split that a tiled multi-threaded renderer needs is already here: a triangle is turned
 * once into an sr_triangle_setup (fixed-point edge functions and plane equations, independent of
 * any tile), and sr_raster_fill_triangle rasterises that setup restricted to a pixel rectangle.
 * Every per-pixel value is computed from the setup and the pixel's coordinates alone (never
 * accumulated across pixels in floating point), so any split into rectangles gives the same
 * image bit for bit. */
#ifndef SR_RASTER_INTERNAL_H
#define SR_RASTER_INTERNAL_H

#include <softrast/raster.h>

#include <stdatomic.h>
#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h> /* sr_raster_clamp_unit */
#endif

/// Sub-pixel precision of window coordinates: 8 bits (DESIGN.md).
#define SR_SUBPIXEL_BITS 8
#define SR_SUBPIXEL_ONE (1 << SR_SUBPIXEL_BITS)

/// Half-extent of the guard band in pixels around the viewport centre. Window coordinates of
/// vertices inside it are below 2^18 + 2^13 (SR_MAX_IMAGE_SIDE / 2) < 2^19 pixels, i.e. 2^27 in
/// fixed point: edge-function differences are < 2^28, their products < 2^56 and the sums of two
/// products < 2^57, well inside int64. Triangles leaving the band are clipped against it.
#define SR_GUARD_BAND_PIXELS 262144.0f
/// Fixed-point window coordinates are clamped to this magnitude before conversion (only
/// clipping round-off can get past the guard band, by far less than this margin).
#define SR_FIXED_LIMIT 134217728.0f /* 2^27 */

/// Vertices with w below this are outside the "w plane": the only points that pass the near and
/// far planes with w <= 0 have w == 0, and they must never reach the perspective divide.
#define SR_CLIP_W_EPSILON 1e-20f

/// Per-vertex classification bits (sr_raster_classify).
enum {
    SR_CLIP_W = 1u << 0,            ///< w < SR_CLIP_W_EPSILON
    SR_CLIP_NEAR = 1u << 1,         ///< z < 0
    SR_CLIP_FAR = 1u << 2,          ///< z > w
    SR_CLIP_GUARD_LEFT = 1u << 3,   ///< x < -guard_x * w
    SR_CLIP_GUARD_RIGHT = 1u << 4,  ///< x > guard_x * w
    SR_CLIP_GUARD_BOTTOM = 1u << 5, ///< y < -guard_y * w
    SR_CLIP_GUARD_TOP = 1u << 6,    ///< y > guard_y * w
    SR_OUT_LEFT = 1u << 7,          ///< x < -w: outside the view volume (trivial reject only)
    SR_OUT_RIGHT = 1u << 8,
    SR_OUT_BOTTOM = 1u << 9,
    SR_OUT_TOP = 1u << 10,
    SR_VERTEX_NONFINITE = 1u << 11, ///< a clip coordinate is NaN or infinite
};
#define SR_CLIP_PLANE_COUNT 7
#define SR_CLIP_MASK 0x7fu
/// A triangle whose three vertices share one of these bits is entirely invisible.
#define SR_REJECT_MASK                                                                                                 \
    (SR_CLIP_W | SR_CLIP_NEAR | SR_CLIP_FAR | SR_OUT_LEFT | SR_OUT_RIGHT | SR_OUT_BOTTOM | SR_OUT_TOP)

/// Attributes carried per vertex: the program's varyings, then (when the program uses them) the
/// three barycentric weights of the original triangle, so that clipping interpolates them too.
#define SR_MAX_ATTRIBUTES (SR_MAX_VARYINGS + 3)
/// Plane arrays are padded to a multiple of 4 (with zeros) so that per-pixel interpolation runs
/// in whole 4-wide groups.
#define SR_ATTRIBUTE_SLOTS ((SR_MAX_ATTRIBUTES + 3) & ~3)
/// Planes of a triangle setup: the attribute slots, then depth and 1 / w.
#define SR_PLANE_ATTRIBUTES 0
#define SR_PLANE_DEPTH SR_ATTRIBUTE_SLOTS
#define SR_PLANE_INV_W (SR_ATTRIBUTE_SLOTS + 1)
#define SR_PLANE_SLOTS (SR_ATTRIBUTE_SLOTS + 4)
/// Attribute slots in use for `count` attributes (a multiple of 4); the padding is zero
/// everywhere attributes are stored (vertex cache, clipper, setup).
#define SR_ATTRIBUTE_SLOTS_FOR(count) (((count) + 3) & ~3)

/// A vertex after the perspective divide and the viewport transform.
typedef struct sr_screen_vertex {
    int32_t x, y;   ///< window position in 24.8 fixed point (y down)
    float z;        ///< window depth z / w
    float inv_w;    ///< 1 / w
    uint32_t flags; ///< SR_CLIP_* / SR_OUT_* / SR_VERTEX_NONFINITE
} sr_screen_vertex;

/// Viewport constants of one draw.
typedef struct sr_viewport {
    int width, height;
    float scale_x, scale_y; ///< fixed-point units per NDC unit (128 * width, 128 * height)
    float guard_x, guard_y; ///< guard band half-extent in NDC units
} sr_viewport;

sr_viewport sr_raster_viewport(int width, int height);

/// Signed distance-like value of a clip-space point to clip plane `plane` (bit index of an
/// SR_CLIP_* flag); the point is inside when the value is >= 0. Classification and clipping
/// both use this function, so they can never disagree.
static inline float sr_raster_plane_distance(int plane, const float clip[4], const sr_viewport *viewport)
{
    switch (plane) {
    case 0:
        return clip[3] - SR_CLIP_W_EPSILON;
    case 1:
        return clip[2];
    case 2:
        return clip[3] - clip[2];
    case 3:
        return clip[0] + viewport->guard_x * clip[3];
    case 4:
        return viewport->guard_x * clip[3] - clip[0];
    case 5:
        return clip[1] + viewport->guard_y * clip[3];
    default:
        return viewport->guard_y * clip[3] - clip[1];
    }
}

/// Classifies a clip-space position and, when it needs no clipping, projects it.
sr_screen_vertex sr_raster_project(const float clip[4], const sr_viewport *viewport);
/// Projects, in double precision, a vertex produced by clipping (no classification: the clipper
/// already kept it inside the planes). Returns false when the result is not finite.
bool sr_raster_project_clipped(const double clip[4], const sr_viewport *viewport, sr_screen_vertex *out);

/// A vertex of a polygon being clipped. Positions are clipped in double precision: vertices far
/// outside the guard band (1e6 and more) would otherwise move the visible part of a clipped edge
/// by a sizeable fraction of a pixel.
typedef struct sr_clip_vertex {
    double clip[4];
    float attributes[SR_ATTRIBUTE_SLOTS];
    int corner; ///< 0..2: an unchanged corner of the original triangle; -1: made by clipping
} sr_clip_vertex;

/// Each clip plane adds at most one vertex to a convex polygon.
#define SR_CLIP_MAX_VERTICES (3 + SR_CLIP_PLANE_COUNT)

/// Clips the convex polygon `polygon[0 .. count-1]` (in place; room for SR_CLIP_MAX_VERTICES)
/// against every plane whose bit is set in `planes`, in a fixed order, with the distances of
/// sr_raster_plane_distance evaluated in double. New vertices on an edge are computed from the
/// edge's end nearer to the plane (the inside end on a tie) towards the other: accurate whichever
/// end is huge, and independent of the direction a triangle walks the edge, so an edge shared by two
/// triangles is cut at the same point in both (watertight clipping). Returns the new count (0 when
/// nothing is left).
int sr_raster_clip_polygon(sr_clip_vertex *polygon, int count, uint32_t planes, int attribute_count,
                           const sr_viewport *viewport);

/// A pixel rectangle, bounds inclusive.
typedef struct sr_pixel_rect {
    int min_x, min_y, max_x, max_y;
} sr_pixel_rect;

/// Per-triangle setup: everything rasterisation needs, independent of the tile being drawn.
typedef struct sr_triangle_setup {
    sr_pixel_rect bounds; ///< pixels whose centres may be covered (clamped to the viewport)
    /// Edge functions at the centre of pixel (bounds.min_x, bounds.min_y), fill-rule bias folded
    /// in (a pixel is covered when all three are >= 0), and their steps per pixel in x and y.
    int64_t edge_origin[3], edge_step_x[3], edge_step_y[3];
    /// Plane equations value(x, y) = origin + step_x * (x - ref_x) + step_y * (y - ref_y) with
    /// (x, y) pixel centres and (ref_x, ref_y) the centre of pixel (bounds.min_x, bounds.min_y).
    /// Planes from SR_PLANE_ATTRIBUTES are the attributes / w (perspective-correct), padded with
    /// zero planes to a multiple of 4; SR_PLANE_DEPTH is the window depth (linear in screen
    /// space), SR_PLANE_INV_W is 1 / w.
    float plane_origin[SR_PLANE_SLOTS];
    float plane_step_x[SR_PLANE_SLOTS];
    float plane_step_y[SR_PLANE_SLOTS];
    uint32_t primitive_id;
    bool front_facing;
    /// The vertices span less than SR_SMALL_TRIANGLE pixels in x and y: edge functions then fit
    /// in int32 over the whole bounds (differences < 2^14, products and sums < 2^30), which the
    /// small-triangle path uses to test 4 pixels per instruction.
    bool small;
    /// The triangle covers no pixel centre of its bounds (found by setup for triangles whose
    /// bounds fit in one block; the planes are then left unset and the fill does nothing).
    bool empty;
    /// For triangles whose bounds fit in one block (SR_BLOCK_WIDTH x SR_BLOCK_HEIGHT) from their
    /// top-left pixel, the pixels covered in that block (lane k: column k % SR_BLOCK_WIDTH, row
    /// k / SR_BLOCK_WIDTH); 0 for every other triangle.
    unsigned tiny_mask;
} sr_triangle_setup;

#define SR_SMALL_TRIANGLE 64

typedef struct sr_draw_context sr_draw_context;
typedef struct sr_triangle_batch sr_triangle_batch;
typedef struct sr_triangle_verdicts sr_triangle_verdicts;

/// Counters kept by the per-pixel code and added to the renderer's statistics per draw.
typedef struct sr_fragment_counters {
    uint64_t shaded, written;
} sr_fragment_counters;

/// Rasterises a set-up triangle, restricted to `rect` (inclusive pixel bounds, inside the
/// framebuffer), in 4x2 blocks (fill.c). Reads and writes framebuffer pixels inside `rect` only,
/// so threads may fill disjoint rectangles of one framebuffer at the same time.
typedef void (*sr_fill_fn)(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect rect,
                           sr_fragment_counters *counters);
/// The two variants of fill.c, with the same results bit for bit: the native one (the build's
/// vector instructions: AVX2 or SSE2) and the portable one (plain C, fill_portable.c).
void sr_raster_fill_triangle_native(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect rect,
                                    sr_fragment_counters *counters);
void sr_raster_fill_triangle_portable(const sr_draw_context *context, const sr_triangle_setup *setup,
                                      sr_pixel_rect rect, sr_fragment_counters *counters);
/// The AVX2 and AVX-512 variants (fill_avx2.c, fill_avx512.c), in builds that dispatch at run
/// time (SR_ISA_DISPATCH).
void sr_raster_fill_triangle_avx2(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect rect,
                                  sr_fragment_counters *counters);
void sr_raster_fill_triangle_avx512(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect rect,
                                    sr_fragment_counters *counters);
/// The variant for `isa` (softrast/core.h): native for SR_ISA_BUILD, the AVX2 or AVX-512 one
/// where the build has it and the processor runs it, NULL otherwise.
sr_fill_fn sr_raster_fill_for(sr_isa isa);

/// Everything about one draw that the per-pixel code reads.
struct sr_draw_context {
    sr_framebuffer *fb;
    sr_viewport viewport;
    sr_fill_fn fill; ///< the variant of fill.c that draws
    /// the variant of triangle_batch.c that screens the triangles of one-thread draws
    void (*screen_batch)(const sr_draw_context *context, const sr_triangle_batch *in, sr_triangle_verdicts *out);
    sr_fragment_fn fragment;
    sr_fragment_block_fn fragment_block; ///< NULL: `fragment` is called per lane
    const void *uniforms;
    int varying_count;
    int attribute_count; ///< varying_count (+ 3 with barycentrics)
    bool barycentrics;
    bool late_depth; ///< the program writes depth: test after the fragment function
    sr_render_state state;
};

/// Result of triangle setup.
typedef enum sr_setup_result {
    SR_SETUP_OK = 0,
    SR_SETUP_CULLED,   ///< zero area
    SR_SETUP_BACKFACE, ///< removed by face culling (sr_render_state.cull)
    SR_SETUP_NO_PIXEL, ///< covers no pixel centre of the viewport
} sr_setup_result;

/// The pixels whose centres (px * 256 + 128 in fixed point) lie inside the triangle's fixed-point
/// bounding box, clamped to the viewport; false when there are none (a triangle between two rows
/// or columns of centres). Triangle setup and the sorting into tiles share this arithmetic.
static inline bool sr_raster_pixel_bounds(const sr_screen_vertex *v0, const sr_screen_vertex *v1,
                                          const sr_screen_vertex *v2, const sr_viewport *viewport,
                                          sr_pixel_rect *bounds)
{
    int32_t low_x = v0->x < v1->x ? v0->x : v1->x, high_x = v0->x > v1->x ? v0->x : v1->x;
    int32_t low_y = v0->y < v1->y ? v0->y : v1->y, high_y = v0->y > v1->y ? v0->y : v1->y;
    low_x = low_x < v2->x ? low_x : v2->x;
    high_x = high_x > v2->x ? high_x : v2->x;
    low_y = low_y < v2->y ? low_y : v2->y;
    high_y = high_y > v2->y ? high_y : v2->y;
    int min_x = (low_x + (SR_SUBPIXEL_ONE / 2 - 1)) >> SR_SUBPIXEL_BITS;
    int max_x = (high_x - SR_SUBPIXEL_ONE / 2) >> SR_SUBPIXEL_BITS;
    int min_y = (low_y + (SR_SUBPIXEL_ONE / 2 - 1)) >> SR_SUBPIXEL_BITS;
    int max_y = (high_y - SR_SUBPIXEL_ONE / 2) >> SR_SUBPIXEL_BITS;
    bounds->min_x = min_x < 0 ? 0 : min_x;
    bounds->min_y = min_y < 0 ? 0 : min_y;
    bounds->max_x = max_x >= viewport->width ? viewport->width - 1 : max_x;
    bounds->max_y = max_y >= viewport->height ? viewport->height - 1 : max_y;
    return bounds->min_x <= bounds->max_x && bounds->min_y <= bounds->max_y;
}

/// Twice the signed area of the triangle in 1/256 pixel units, computed with y down. Flipping y
/// flips the sign, so a triangle counter-clockwise in NDC (y up) — a front face (DESIGN.md) — has
/// a negative value.
static inline int64_t sr_raster_doubled_area(const sr_screen_vertex *v0, const sr_screen_vertex *v1,
                                             const sr_screen_vertex *v2)
{
    return ((int64_t)v1->x - v0->x) * ((int64_t)v2->y - v0->y) - ((int64_t)v1->y - v0->y) * ((int64_t)v2->x - v0->x);
}

/// The verdict of sr_raster_setup_triangle without the setup (the same tests in the same order),
/// and the pixel bounds when it is SR_SETUP_OK.
static inline sr_setup_result sr_raster_classify_triangle(const sr_draw_context *context, const sr_screen_vertex *v0,
                                                          const sr_screen_vertex *v1, const sr_screen_vertex *v2,
                                                          sr_pixel_rect *bounds)
{
    if (!sr_raster_pixel_bounds(v0, v1, v2, &context->viewport, bounds))
        return SR_SETUP_NO_PIXEL;
    int64_t area = sr_raster_doubled_area(v0, v1, v2);
    if (area == 0)
        return SR_SETUP_CULLED;
    bool front = area < 0;
    if ((context->state.cull == SR_CULL_BACK && !front) || (context->state.cull == SR_CULL_FRONT && front))
        return SR_SETUP_BACKFACE;
    return SR_SETUP_OK;
}

/// Sets up the triangle (v0, v1, v2) whose attributes / w are not yet applied: `attributes[i]`
/// points at vertex i's attributes, SR_ATTRIBUTE_SLOTS_FOR(attribute_count) floats with zero
/// padding. Decides facing (front = counter-clockwise
/// in NDC) and culling, and orders the vertices so that covered pixels have positive edge
/// functions.
sr_setup_result sr_raster_setup_triangle(const sr_draw_context *context, const sr_screen_vertex *v0,
                                         const sr_screen_vertex *v1, const sr_screen_vertex *v2,
                                         const float *const attributes[3], uint32_t primitive_id,
                                         sr_triangle_setup *setup);

/// The setup sr_raster_setup_triangle makes of a triangle that sr_raster_screen_batch found
/// SR_BATCH_DRAW (lane `lane` of `screened`), without repeating the batch's steps: its bounds,
/// area and one block's coverage are taken from the batch. The same setup bit for bit.
void sr_raster_setup_screened(const sr_draw_context *context, const sr_screen_vertex *v0, const sr_screen_vertex *v1,
                              const sr_screen_vertex *v2, const float *const attributes[3], uint32_t primitive_id,
                              const sr_triangle_verdicts *screened, int lane, sr_triangle_setup *setup);

/// sr_raster_setup_triangle for a triangle that sr_raster_screen_batch found SR_BATCH_DRAW with
/// one block's coverage `coverage` (not 0: its bounds fit in one block), kept from the batch by
/// the sorting into tiles: the bounds and area are found again, the coverage is not. The same
/// setup bit for bit.
sr_setup_result sr_raster_setup_covered(const sr_draw_context *context, const sr_screen_vertex *v0,
                                        const sr_screen_vertex *v1, const sr_screen_vertex *v2,
                                        const float *const attributes[3], uint32_t primitive_id, unsigned coverage,
                                        sr_triangle_setup *setup);

/// Rasterises a set-up triangle restricted to `rect` with the draw's variant of fill.c.
static inline void sr_raster_fill_triangle(const sr_draw_context *context, const sr_triangle_setup *setup,
                                           sr_pixel_rect rect, sr_fragment_counters *counters)
{
    if (!setup->empty)
        context->fill(context, setup, rect, counters);
}

/// Triangles screened at once by sr_raster_screen_batch.
#define SR_TRIANGLE_BATCH 16

/// The input of sr_raster_screen_batch: per triangle (lane), its vertices' fixed-point
/// positions, the OR and the AND of their flags, and whether its indices are valid (lanes with
/// invalid indices hold zeros).
struct sr_triangle_batch {
    SR_BLOCK_ALIGNED int32_t x[3][SR_TRIANGLE_BATCH], y[3][SR_TRIANGLE_BATCH];
    SR_BLOCK_ALIGNED uint32_t flags_any[SR_TRIANGLE_BATCH], flags_all[SR_TRIANGLE_BATCH];
    SR_BLOCK_ALIGNED int32_t valid[SR_TRIANGLE_BATCH];
};

/// What sr_raster_screen_batch decided for a triangle.
enum {
    SR_BATCH_SCALAR,    ///< undecided: the one-triangle path (clipping, invalid, large, ...)
    SR_BATCH_NO_PIXEL,  ///< setup's SR_SETUP_NO_PIXEL
    SR_BATCH_ZERO_AREA, ///< setup's SR_SETUP_CULLED
    SR_BATCH_BACKFACE,  ///< setup's SR_SETUP_BACKFACE
    SR_BATCH_EMPTY,     ///< SR_SETUP_OK, but its bounds fit in one block and it covers no pixel centre
    SR_BATCH_DRAW,      ///< SR_SETUP_OK with pixels to draw: the one-triangle path
};

struct sr_triangle_verdicts {
    SR_BLOCK_ALIGNED int32_t verdict[SR_TRIANGLE_BATCH];
    /// For SR_BATCH_DRAW lanes (unspecified in others): setup's pixel bounds, doubled area
    /// (sr_raster_doubled_area, which fits int32 for these small triangles) and, for a triangle
    /// whose bounds fit in one block, its coverage (sr_triangle_setup.tiny_mask; 0 otherwise).
    SR_BLOCK_ALIGNED int32_t min_x[SR_TRIANGLE_BATCH], min_y[SR_TRIANGLE_BATCH];
    SR_BLOCK_ALIGNED int32_t max_x[SR_TRIANGLE_BATCH], max_y[SR_TRIANGLE_BATCH];
    SR_BLOCK_ALIGNED int32_t area[SR_TRIANGLE_BATCH];
    SR_BLOCK_ALIGNED uint32_t covered[SR_TRIANGLE_BATCH];
};

/// The verdicts of setup (triangle.c) for a batch of triangles that need no clipping: per
/// lane, an SR_BATCH_* value. Variants per instruction set, like fill.c's.
typedef void (*sr_screen_batch_fn)(const sr_draw_context *context, const sr_triangle_batch *in,
                                   sr_triangle_verdicts *out);
void sr_raster_screen_batch_native(const sr_draw_context *context, const sr_triangle_batch *in,
                                   sr_triangle_verdicts *out);
void sr_raster_screen_batch_avx2(const sr_draw_context *context, const sr_triangle_batch *in,
                                 sr_triangle_verdicts *out);
void sr_raster_screen_batch_avx512(const sr_draw_context *context, const sr_triangle_batch *in,
                                   sr_triangle_verdicts *out);
/// The variant for `isa`, as sr_raster_fill_for chooses fill.c's (NULL where there is none).
sr_screen_batch_fn sr_raster_screen_batch_for(sr_isa isa);

/* Clamp to [0, 1] with NaN as 0, branch-free (compilers turn the portable form into branches). */
static inline float sr_raster_clamp_unit(float value)
{
#if defined(__SSE2__)
    // maxss returns its second operand when the first is NaN.
    return _mm_cvtss_f32(_mm_min_ss(_mm_max_ss(_mm_set_ss(value), _mm_setzero_ps()), _mm_set_ss(1.0f)));
#else
    value = value > 0.0f ? value : 0.0f;
    return value < 1.0f ? value : 1.0f;
#endif
}

/// Blends the fragment colour `rgba` (each component clamped to [0, 1], NaN as 0) over the
/// stored RGBA8 pixel `destination` (see the rounding rule in raster.h, sr_blend_mode). Inline:
/// the line rasteriser blends every pixel through it (an out-of-line call was 17% of drawing a
/// frame of 100,000 lines).
static inline uint32_t sr_raster_blend(sr_blend_mode mode, const float rgba[4], uint32_t destination)
{
    float alpha = sr_raster_clamp_unit(rgba[3]);
    uint32_t result = 0;
    for (int c = 0; c < 4; c++) {
        float source = (c == 3 ? alpha : sr_raster_clamp_unit(rgba[c])) * 255.0f;
        float stored = (float)((destination >> (8 * c)) & 0xffu);
        float value;
        if (mode == SR_BLEND_ALPHA) // alpha itself composes "over": 255 a + d (1 - a)
            value = (c == 3 ? 255.0f : source) * alpha + stored * (1.0f - alpha);
        else if (mode == SR_BLEND_ADDITIVE)
            value = stored + source * alpha;
        else
            value = source;
        // Round half up, saturate.
        value += 0.5f;
        uint32_t byte = value >= 255.0f ? 255u : (uint32_t)value;
        result |= byte << (8 * c);
    }
    return result;
}

/// Clears rows first_row .. end_row - 1 as sr_framebuffer_clear clears them all (framebuffer.c).
void sr_raster_clear_rows(sr_framebuffer *fb, uint32_t rgba, float depth, int first_row, int end_row);

/// Checks that `fb` is usable for drawing: non-NULL buffers, sides in [1, SR_MAX_IMAGE_SIDE].
sr_status sr_raster_check_framebuffer(const sr_framebuffer *fb, const char *function, sr_error *err);

/// Rows per unit of work of a multi-threaded line draw (line.c; twice as many when the frame has
/// enough units for its threads): each thread takes a unit at a time and draws every segment
/// that reaches it, in order, restricted to its rows.
#define SR_BAND_HEIGHT 32

/// Sides of the square screen tiles of multi-threaded triangle draws (tiles.c), in pixels: powers
/// of two and multiples of the 8x8 blocks, so that a tile sees whole blocks. A draw starts from
/// SR_TILE_SIZE and halves it, down to SR_MIN_TILE_SIZE, while there are fewer than
/// SR_TILES_PER_WORKER tiles per thread (for the balance between threads; larger tiles cost less
/// per triangle: fewer tiles per triangle, longer runs of neighbouring triangles per tile: with
/// two threads at 1280x720, 128-pixel tiles beat 64-pixel ones on every benchmark mesh, by 1 to
/// 7%). Framebuffers too large for SR_MAX_TILES tiles, or SR_MAX_TILES_PER_SIDE along a side, get
/// larger tiles.
#define SR_TILE_SIZE 128
#define SR_MIN_TILE_SIZE 32
#define SR_TILES_PER_WORKER 16
#define SR_MAX_TILES 4096
#define SR_MAX_TILES_PER_SIDE 256

/// Worker threads of a renderer created with threads > 1 (pool.c): the calling thread runs as
/// worker 0 of each job, the `count` threads as workers 1..count, each of which joins the job only
/// if it gets there before the caller has finished its own share. Threads that wait (workers for
/// the next job, the caller for the workers inside the job, anyone for a phase of a job) spin
/// briefly on atomics before sleeping on a condition variable: waking a sleeping thread costs tens
/// of microseconds on an idle machine and milliseconds on a busy one.
typedef struct sr_worker_pool sr_worker_pool;

/// Starts `count` worker threads (1 .. SR_MAX_THREADS - 1). Free with sr_pool_destroy.
sr_status sr_pool_create(int count, sr_worker_pool **out, sr_error *err);
/// Stops and joins the workers and frees the pool (NULL: nothing).
void sr_pool_destroy(sr_worker_pool *pool);
/// Offers job(data, worker) to the workers 1..count; the caller then runs its own share as worker
/// 0 and calls sr_pool_finish, which closes the job and returns once every worker that joined it
/// has left. A job must therefore be complete whichever workers join (work shared through atomic
/// counters; results of workers that did not join left as the caller initialised them).
void sr_pool_start(sr_worker_pool *pool, void (*job)(void *data, int worker), void *data);
void sr_pool_finish(sr_worker_pool *pool);
/// Inside a job: waits until *value == target (spinning, then sleeping). Whoever makes the value
/// reach the target calls sr_pool_announce afterwards, so that a sleeper cannot miss it.
void sr_pool_wait(sr_worker_pool *pool, const _Atomic uint64_t *value, uint64_t target);
void sr_pool_announce(sr_worker_pool *pool);

/// What the waiting threads of a pool have done so far (for tests: an idle pool's numbers stand
/// still, with every worker asleep).
typedef struct sr_pool_activity {
    uint64_t spins;   ///< rounds of SPIN_ROUNDS pause instructions
    uint64_t wakeups; ///< returns from sleeping on a condition variable
    int sleeping;     ///< workers asleep waiting for a job
} sr_pool_activity;
sr_pool_activity sr_pool_read_activity(sr_worker_pool *pool);

struct sr_renderer {
    int threads;
    /// Draw with the portable variant of fill.c instead of the native one (for tests that compare
    /// the two; false after sr_renderer_create).
    bool portable_fill;
    /// The variant of fill.c that draws unless portable_fill is set: sr_raster_fill_for(sr_isa_active())
    /// after sr_renderer_create; tests set others to compare them.
    sr_fill_fn fill;
    /// Draw lines through line.c's general per-pixel loop instead of its specialised ones (for
    /// tests that compare the two; false after sr_renderer_create).
    bool general_lines;
    /// The variant of triangle_batch.c: sr_raster_screen_batch_for(sr_isa_active()) after
    /// sr_renderer_create; tests set others to compare them.
    sr_screen_batch_fn screen_batch;
    sr_worker_pool *pool; ///< NULL when threads == 1
    sr_raster_stats stats;
    /// Post-transform vertex cache, indexed by the draw's vertex index: grown at the start of a
    /// draw when it needs more room, never inside the triangle loop.
    size_t capacity;          ///< vertices that clip / screen / stamps can hold
    size_t varying_capacity;  ///< floats that `varyings` can hold
    float (*clip)[4];         ///< clip-space positions
    sr_screen_vertex *screen; ///< classification and window position
    float *varyings;          ///< SR_ATTRIBUTE_SLOTS_FOR(varying_count) floats per vertex
    uint32_t *stamps;         ///< stamps[i] == stamp: vertex i is referenced by this draw
    uint32_t stamp;
    /// Multi-threaded draws only (tiles.c), grown at the start of a draw: per triangle the
    /// rectangle of tiles it touches (`spans`); per chunk of triangles, tile_count + 1 offsets into
    /// `entries` (`offsets`); the entries, indices of triangles sorted by chunk, then tile.
    size_t span_capacity, coverage_capacity, offset_capacity, entry_capacity;
    size_t entries_wanted; ///< entries the last multi-threaded draw needed (the next one grows to it)
    uint32_t *spans;
    /// Per triangle, the one block's coverage that the screening found (sr_triangle_verdicts.covered)
    /// for an SR_BATCH_DRAW triangle whose bounds fit in one block; 0 for every other triangle.
    uint8_t *coverage;
    uint32_t *offsets;
    uint32_t *entries;
    /// sr_draw_lines: the clipped window-space segments of a draw (line.c), grown at its start.
    void *line_scratch;
    size_t line_scratch_capacity; ///< bytes
    /// The draws between sr_renderer_begin_batch and sr_renderer_end_batch (batch.c); NULL until
    /// the first batch of a renderer with worker threads.
    struct sr_draw_batch *batch;
};

/// The screen tiles of a multi-threaded draw: `size` = 1 << `shift` pixels square (the last
/// column and row may be cut), `columns` x `rows` of them, numbered row by row.
typedef struct sr_tile_grid {
    int size, shift, columns, rows, count;
} sr_tile_grid;

/// One draw as a job for the workers (pipeline.c runs it, tiles.c sorts and draws its triangles
/// when there are several workers). The phases are cut into chunks that the workers claim from
/// shared counters, so a worker that wakes up late finds the work done instead of delaying
/// everyone; a worker starts a phase once every chunk of the previous one is finished.
/// What the triangle stage reads of one draw: its description, its context, and its vertices
/// after the vertex stage (indexed by the draw's vertex indices) — the renderer's cache for a draw
/// drawn at once, a batch's arrays for a batched one (batch.c).
typedef struct sr_draw_source {
    const sr_draw_desc *desc;
    sr_draw_context context;
    float (*clip)[4];         ///< clip-space positions
    sr_screen_vertex *screen; ///< classification and window position
    float *varyings;          ///< SR_ATTRIBUTE_SLOTS_FOR(varying_count) floats per vertex
    /// Per triangle of the draw, the one block's coverage kept by the sorting into tiles
    /// (sr_renderer.coverage); NULL for one-thread draws, which do not sort.
    uint8_t *coverage;
} sr_draw_source;

typedef struct sr_draw_job {
    sr_renderer *renderer;
    sr_draw_source source;
    size_t index_count, triangle_count;
    int workers;
    sr_tile_grid grid;
    size_t bin_chunk;    ///< triangles per chunk of the sorting into tiles
    uint64_t bin_chunks; ///< chunks of the draw
    /// The counters every worker writes, on cache lines of their own: the fields above are read
    /// by every pixel of the draw.
    _Alignas(64) _Atomic uint64_t mark_next, mark_done; ///< chunks of indices claimed / finished
    _Atomic uint64_t low, high;                         ///< smallest and largest referenced index (high + 1)
    _Atomic uint64_t transform_next, transform_done;
    _Atomic uint64_t bin_next, bin_done; ///< chunks of triangles sorted into tiles
    _Atomic uint64_t entries_used;       ///< entries handed out to the chunks (may exceed the capacity)
    /// Tiles claimed from each worker's home tiles (sr_raster_home_rows), each on a line of its own.
    struct {
        _Alignas(64) _Atomic uint64_t claimed;
    } tile_next[SR_MAX_THREADS];
    struct {
        _Alignas(64) sr_raster_stats stats;
        sr_fragment_counters counters;
    } result[SR_MAX_THREADS];
} sr_draw_job;

/// The vertex indices of triangle t of a draw; false when one is out of range.
static inline bool sr_raster_triangle_indices(const sr_draw_desc *desc, size_t t, size_t index[3])
{
    if (desc->indices) {
        index[0] = desc->indices[3 * t];
        index[1] = desc->indices[3 * t + 1];
        index[2] = desc->indices[3 * t + 2];
    } else {
        index[0] = 3 * t;
        index[1] = 3 * t + 1;
        index[2] = 3 * t + 2;
    }
    const size_t vertex_count = desc->vertex_count;
    return index[0] < vertex_count && index[1] < vertex_count && index[2] < vertex_count;
}

/// Screens triangles first .. first + SR_TRIANGLE_BATCH - 1 of the draw (all must exist) with
/// the draw's variant of triangle_batch.c.
void sr_raster_screen_triangles(const sr_draw_source *source, size_t first, sr_triangle_verdicts *verdicts);
/// Counts a triangle that the screening decided in `stats` as the one-triangle path would and
/// returns true; false for SR_BATCH_SCALAR and SR_BATCH_DRAW (the one-triangle path's to do).
static inline bool sr_raster_count_screened(int verdict, sr_raster_stats *stats)
{
    switch (verdict) {
    case SR_BATCH_NO_PIXEL:
    case SR_BATCH_ZERO_AREA:
        stats->triangles_culled++;
        return true;
    case SR_BATCH_BACKFACE:
        stats->triangles_culled++;
        stats->triangles_backfacing++;
        return true;
    case SR_BATCH_EMPTY:
        stats->triangles_rasterized++;
        return true;
    default:
        return false;
    }
}

/// Waits (with several workers) until `*done` chunks of a phase reach `total`.
void sr_raster_wait_phase(const sr_draw_job *job, const _Atomic uint64_t *done, uint64_t total);
/// Marks a chunk of a phase as finished; the worker finishing the last one wakes those that sleep.
void sr_raster_finish_chunk(const sr_draw_job *job, _Atomic uint64_t *done, uint64_t total);

/// Clips a triangle of the draw (vertex indices `index`) against the planes its vertices are
/// outside of and fan-triangulates the convex result. With `rect`, rasterises each piece
/// restricted to it; without, only finds the pixels the pieces' bounds cover (`bounds`, empty:
/// min_x > max_x, when none). Returns true when any piece reached the rasteriser; *backfacing
/// when the pieces were removed by face culling.
bool sr_raster_draw_clipped(const sr_draw_source *source, const size_t index[3], uint32_t planes, uint32_t primitive_id,
                            const sr_pixel_rect *rect, sr_fragment_counters *counters, sr_pixel_rect *bounds,
                            bool *backfacing);
/// Sets up an unclipped triangle of the draw and rasterises it restricted to `rect`; the set-up's
/// verdict (SR_SETUP_OK when it reached the rasteriser). With `screened`, a triangle the batch
/// found SR_BATCH_DRAW in lane `lane`, set up with sr_raster_setup_screened; else with a
/// `coverage` other than 0, one set up with sr_raster_setup_covered.
sr_setup_result sr_raster_draw_unclipped(const sr_draw_source *source, const size_t index[3], uint32_t primitive_id,
                                         sr_pixel_rect rect, sr_fragment_counters *counters,
                                         const sr_triangle_verdicts *screened, int lane, unsigned coverage);

/// Whether triangle t of a draw (a sorting into tiles left it undecided by the screening) reaches
/// the rasteriser, counting its statistics as a one-thread draw does, and then the pixel bounds
/// of what it draws (of its clipped pieces, for a clipped triangle).
bool sr_raster_triangle_bounds(const sr_draw_source *source, size_t t, sr_pixel_rect *bounds, sr_raster_stats *stats);
/// Draws triangle t of a draw restricted to `rect` (a triangle the sorting into tiles kept; its
/// coverage is source->coverage[t]).
void sr_raster_draw_in_rect(const sr_draw_source *source, size_t t, const sr_pixel_rect *rect,
                            sr_fragment_counters *counters);

/// The tiles of a framebuffer of the given size for a draw with `workers` threads.
sr_tile_grid sr_raster_tile_grid(int width, int height, int workers);
/// Grows the renderer's spans, offsets and entries for a draw of `triangle_count` triangles cut
/// into `chunks` chunks over `grid` (between draws; on failure the old arrays stay valid).
sr_status sr_raster_reserve_tiles(sr_renderer *renderer, size_t triangle_count, uint64_t chunks,
                                  const sr_tile_grid *grid, sr_error *err);
/// The home tiles of worker `worker` of `workers`: the tile rows [*first, *end) of `grid`, a
/// contiguous share of them (empty when there are more workers than rows). A worker draws its
/// home tiles first and clears their pixel rows first (sr_renderer_clear), so that the lines it
/// writes stay in its core's cache from frame to frame.
static inline void sr_raster_home_rows(const sr_tile_grid *grid, int workers, int worker, int *first, int *end)
{
    *first = (int)((int64_t)grid->rows * worker / workers);
    *end = (int)((int64_t)grid->rows * (worker + 1) / workers);
}
/// The multi-threaded triangle stage of a draw, run by every worker after the vertex stage: sorts
/// the triangles into the tiles they touch (counting the triangles' statistics), then draws tiles
/// claimed one at a time, its home tiles first, then what is left of the others', until none is
/// left.
void sr_raster_draw_tiles(sr_draw_job *job, int worker, sr_raster_stats *stats, sr_fragment_counters *counters);

/// The vertex stage of a draw (marking the referenced vertices, running the vertex function on
/// them, classifying and projecting them into job->source's arrays), by the job's workers.
void sr_raster_vertex_stage(sr_draw_job *job);

/// Adds a draw's triangle statistics and fragment counters to `total`.
static inline void sr_raster_add_stats(sr_raster_stats *total, const sr_raster_stats *stats,
                                       const sr_fragment_counters *counters)
{
    total->triangles_culled += stats->triangles_culled;
    total->triangles_backfacing += stats->triangles_backfacing;
    total->triangles_clipped += stats->triangles_clipped;
    total->triangles_skipped += stats->triangles_skipped;
    total->triangles_rasterized += stats->triangles_rasterized;
    total->fragments_shaded += counters->shaded;
    total->fragments_written += counters->written;
}

/// Batches of draws (batch.c): while a batch is open, sr_draw_triangles hands it the small draws
/// into its framebuffer. Each one's vertex stage and sorting into tiles run at once, on the
/// calling thread; their pixels wait for sr_raster_batch_flush, which draws the tiles of every
/// draw of the batch at once with all the renderer's threads, each tile's triangles in submission
/// order (the image is the one of the draws made one by one, bit for bit).
typedef struct sr_draw_batch sr_draw_batch;
/// Whether the batch is open (between sr_renderer_begin_batch and sr_renderer_end_batch).
bool sr_raster_batch_open(const sr_draw_batch *batch);
/// Whether an open batch takes a draw of `triangle_count` triangles over `vertex_count` vertices
/// into `fb` (small draws into the batch's framebuffer).
bool sr_raster_batch_takes(const sr_draw_batch *batch, const sr_framebuffer *fb, size_t triangle_count,
                           size_t vertex_count);
/// Runs the vertex stage of `job` (set up for one worker) into the batch's arrays, sorts its
/// triangles into the batch's tiles and counts their statistics. False (nothing done) when the
/// batch cannot grow to hold it: the caller then draws the batch and the draw itself.
bool sr_raster_batch_add(sr_draw_batch *batch, sr_draw_job *job);
/// Draws every draw the renderer's batch holds (nothing when there is none) and empties it; the
/// batch stays open.
void sr_raster_batch_flush(sr_renderer *renderer);
/// Frees a batch (NULL: nothing); draws it still holds are dropped.
void sr_raster_batch_destroy(sr_draw_batch *batch);

/// Runs `job(data, worker)` on the calling thread (worker 0) and, when `workers` > 1 and the
/// renderer has a pool, on every pool thread too (workers 1..threads - 1), and returns when all
/// have finished. Jobs share their work through atomic counters in `data`.
void sr_raster_run(sr_renderer *renderer, int workers, void (*job)(void *data, int worker), void *data);

#endif
