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
} sr_triangle_setup;

#define SR_SMALL_TRIANGLE 64

/// Everything about one draw that the per-pixel code reads.
typedef struct sr_draw_context {
    sr_framebuffer *fb;
    sr_viewport viewport;
    sr_fragment_fn fragment;
    const void *uniforms;
    int varying_count;
    int attribute_count; ///< varying_count (+ 3 with barycentrics)
    bool barycentrics;
    bool late_depth; ///< the program writes depth: test after the fragment function
    sr_render_state state;
} sr_draw_context;

/// Counters kept by the per-pixel code and added to the renderer's statistics per draw.
typedef struct sr_fragment_counters {
    uint64_t shaded, written;
} sr_fragment_counters;

/// Result of triangle setup.
typedef enum sr_setup_result {
    SR_SETUP_OK = 0,
    SR_SETUP_CULLED,   ///< zero area
    SR_SETUP_BACKFACE, ///< removed by face culling (sr_render_state.cull)
    SR_SETUP_NO_PIXEL, ///< covers no pixel centre of the viewport
} sr_setup_result;

/// Sets up the triangle (v0, v1, v2) whose attributes / w are not yet applied: `attributes[i]`
/// points at vertex i's attributes, SR_ATTRIBUTE_SLOTS_FOR(attribute_count) floats with zero
/// padding. Decides facing (front = counter-clockwise
/// in NDC) and culling, and orders the vertices so that covered pixels have positive edge
/// functions.
sr_setup_result sr_raster_setup_triangle(const sr_draw_context *context, const sr_screen_vertex *v0,
                                         const sr_screen_vertex *v1, const sr_screen_vertex *v2,
                                         const float *const attributes[3], uint32_t primitive_id,
                                         sr_triangle_setup *setup);

/// Starts fetching the first rows of depth and colour that an unclipped triangle will touch
/// (a hint only; the triangle loop calls it a few triangles ahead, so that the framebuffer lines
/// arrive while earlier triangles are drawn).
void sr_raster_prefetch_triangle(const sr_draw_context *context, const sr_screen_vertex *v0, const sr_screen_vertex *v1,
                                 const sr_screen_vertex *v2);

/// Rasterises a set-up triangle, restricted to `rect` (inclusive pixel bounds, inside the
/// framebuffer). Reads and writes framebuffer pixels inside `rect` only, so threads may fill
/// disjoint rectangles of one framebuffer at the same time.
void sr_raster_fill_triangle(const sr_draw_context *context, const sr_triangle_setup *setup, sr_pixel_rect rect,
                             sr_fragment_counters *counters);

/// Blends the fragment colour `rgba` (each component clamped to [0, 1], NaN as 0) over the
/// stored RGBA8 pixel `destination` (see the rounding rule in raster.h, sr_blend_mode).
uint32_t sr_raster_blend(sr_blend_mode mode, const float rgba[4], uint32_t destination);

/// Checks that `fb` is usable for drawing: non-NULL buffers, sides in [1, SR_MAX_IMAGE_SIDE].
sr_status sr_raster_check_framebuffer(const sr_framebuffer *fb, const char *function, sr_error *err);

/// The drawing context (public type sr_renderer).
/// Rows per unit of work of the multi-threaded renderer (more when a framebuffer would need over
/// SR_MAX_UNITS units). Triangles are first sorted into the units they touch; then each thread
/// takes a unit at a time and draws its triangles, in submission order, restricted to its rows.
/// A multiple of the 8-row blocks, so each unit sees whole blocks.
#define SR_BAND_HEIGHT 32
/// Most units of rows in a draw (one bit each in a 64-bit mask).
#define SR_MAX_UNITS 64
/// Triangles per chunk of the sorting into units (one unit mask per chunk).
#define SR_BIN_CHUNK 1024

/// Worker threads of a renderer created with threads > 1 (pool.c): the calling thread runs as
/// worker 0 of each job, the `count` threads as workers 1..count. Threads that wait (workers for
/// the next job, the caller for the end of one, anyone for a phase of a job) spin briefly on
/// atomics before sleeping on a condition variable: waking a sleeping thread costs tens of
/// microseconds on an idle machine and milliseconds on a busy one.
typedef struct sr_worker_pool sr_worker_pool;

/// Starts `count` worker threads (1 .. SR_MAX_THREADS - 1). Free with sr_pool_destroy.
sr_status sr_pool_create(int count, sr_worker_pool **out, sr_error *err);
/// Stops and joins the workers and frees the pool (NULL: nothing).
void sr_pool_destroy(sr_worker_pool *pool);
/// Starts job(data, worker) on the workers 1..count; the caller then runs its own share as worker
/// 0 and calls sr_pool_finish, which returns once every worker has finished the job.
void sr_pool_start(sr_worker_pool *pool, void (*job)(void *data, int worker), void *data);
void sr_pool_finish(sr_worker_pool *pool);
/// Inside a job: waits until *value == target (spinning, then sleeping). Whoever makes the value
/// reach the target calls sr_pool_announce afterwards, so that a sleeper cannot miss it.
void sr_pool_wait(sr_worker_pool *pool, const _Atomic uint64_t *value, uint64_t target);
void sr_pool_announce(sr_worker_pool *pool);

/// Finds the rows of pixel centres a triangle's bounding box covers, clamped to the viewport
/// (min_y > max_y when it covers none); the same arithmetic as triangle setup.
static inline void sr_raster_pixel_rows(const sr_screen_vertex *v0, const sr_screen_vertex *v1,
                                        const sr_screen_vertex *v2, int height, int *min_y, int *max_y)
{
    int32_t low = v0->y < v1->y ? v0->y : v1->y, high = v0->y > v1->y ? v0->y : v1->y;
    low = low < v2->y ? low : v2->y;
    high = high > v2->y ? high : v2->y;
    int first = (low + (SR_SUBPIXEL_ONE / 2 - 1)) >> SR_SUBPIXEL_BITS;
    int last = (high - SR_SUBPIXEL_ONE / 2) >> SR_SUBPIXEL_BITS;
    *min_y = first < 0 ? 0 : first;
    *max_y = last >= height ? height - 1 : last;
}

struct sr_renderer {
    int threads;
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
    /// Multi-threaded draws only (see pipeline.c): per triangle the range of units of rows it
    /// touches, per SR_BIN_CHUNK triangles the mask of units any of them touches. Grown at the
    /// start of a draw.
    size_t span_capacity, chunk_capacity;
    uint32_t *spans;
    uint64_t *chunk_units;
    /// sr_draw_lines: the clipped window-space segments of a draw (line.c), grown at its start.
    void *line_scratch;
    size_t line_scratch_capacity; ///< bytes
};

/// Runs `job(data, worker)` on the calling thread (worker 0) and, when `workers` > 1 and the
/// renderer has a pool, on every pool thread too (workers 1..threads - 1), and returns when all
/// have finished. Jobs share their work through atomic counters in `data`.
void sr_raster_run(sr_renderer *renderer, int workers, void (*job)(void *data, int worker), void *data);

#endif
