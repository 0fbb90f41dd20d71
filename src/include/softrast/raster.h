/* softrast/raster.h — the rasterization pipeline: framebuffer, programs (C-function shaders),
 * indexed triangle and 3D line drawing, textures and image files.
 * Knows nothing of scenes or BVHs.
 *
 * Conventions (DESIGN.md): clip space x, y in [-w, w], z in [0, w]; screen origin top-left,
 * y down, pixel centres at (x + 0.5, y + 0.5); window depth = z / w in [0, 1], cleared to 1.0,
 * default test LESS; front faces are counter-clockwise in normalised device coordinates
 * (y up); fixed-point edge functions with 8 sub-pixel bits and the top-left fill rule. */
#ifndef SOFTRAST_RASTER_H
#define SOFTRAST_RASTER_H

#include <softrast/core.h>
#include <softrast/math.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Maximum number of float varyings a vertex function may write.
#define SR_MAX_VARYINGS 16
/// Largest accepted framebuffer or texture side, in pixels.
#define SR_MAX_IMAGE_SIDE 16384
/// Value of the id buffer where no triangle was drawn.
#define SR_NO_ID 0xffffffffu

/// Packs a colour (components in [0, 1], clamped) as RGBA8: bytes r, g, b, a in memory order,
/// i.e. the uint32 value a << 24 | b << 16 | g << 8 | r on little-endian machines.
static inline uint32_t sr_rgba8(float r, float g, float b, float a)
{
#define SR_TO_BYTE(c) ((uint32_t)((c) <= 0.0f ? 0.0f : (c) >= 1.0f ? 255.0f : (c) * 255.0f + 0.5f))
    return SR_TO_BYTE(r) | SR_TO_BYTE(g) << 8 | SR_TO_BYTE(b) << 16 | SR_TO_BYTE(a) << 24;
#undef SR_TO_BYTE
}

/* ------------------------------------------------------------------------------------------ */
/* Framebuffer                                                                                 */

/// Colour (RGBA8, see sr_rgba8), depth (float32, window depth in [0, 1]) and an optional id
/// buffer (uint32 per pixel, the primitive id of the triangle that wrote the pixel's colour).
/// Rows are stored top row first, `width` pixels per row with no padding. Fields are read-only
/// for callers: change them through the functions below.
typedef struct sr_framebuffer {
    int width, height;
    uint32_t *color;
    float *depth;
    uint32_t *ids; ///< NULL unless created with `.ids = true`
} sr_framebuffer;

typedef struct sr_framebuffer_desc {
    int width, height; ///< both in [1, SR_MAX_IMAGE_SIDE]
    bool ids;          ///< also allocate an id buffer (cleared to SR_NO_ID)
} sr_framebuffer_desc;

/// Creates a framebuffer cleared to colour 0 (transparent black), depth 1.0, ids SR_NO_ID.
/// Free with sr_framebuffer_destroy. Errors: size out of range, out of memory.
sr_status sr_framebuffer_create(const sr_framebuffer_desc *desc, sr_framebuffer **out, sr_error *err);
void sr_framebuffer_destroy(sr_framebuffer *fb);
/// Reallocates to a new size (contents cleared as at creation). On error the framebuffer is
/// unchanged.
sr_status sr_framebuffer_resize(sr_framebuffer *fb, int width, int height, sr_error *err);
/// Clears colour to `rgba` (see sr_rgba8), depth to `depth` and ids to SR_NO_ID.
void sr_framebuffer_clear(sr_framebuffer *fb, uint32_t rgba, float depth);
void sr_framebuffer_clear_color(sr_framebuffer *fb, uint32_t rgba);
void sr_framebuffer_clear_depth(sr_framebuffer *fb, float depth);

/// Saves the colour buffer as BMP (24-bit, alpha dropped) or PNG (RGBA), chosen by the
/// extension of `path` (.bmp / .png, case-insensitive; anything else is an error). The file is
/// written under a temporary name in the same folder and renamed, so a failed save leaves no
/// file and never a half-written one.
sr_status sr_framebuffer_save(const sr_framebuffer *fb, const char *path, sr_error *err);
/// Saves the depth buffer as raw little-endian float32 per pixel, top row first.
sr_status sr_framebuffer_save_depth(const sr_framebuffer *fb, const char *path, sr_error *err);
/// Saves the id buffer as raw little-endian uint32 per pixel, top row first (error if none).
sr_status sr_framebuffer_save_ids(const sr_framebuffer *fb, const char *path, sr_error *err);

/// Writes `size` bytes to `path` through a temporary file and a rename (no partial files).
sr_status sr_file_write_atomic(const char *path, const void *data, size_t size, sr_error *err);

/// Saves RGBA8 pixels (`width` x `height`, rows top first, `stride_bytes` apart) as BMP or PNG by
/// extension, atomically as sr_framebuffer_save.
sr_status sr_image_save(const char *path, int width, int height, const uint32_t *rgba, size_t stride_bytes,
                        sr_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Textures                                                                                    */

/// RGBA8 texels, top row of the image first. Texture coordinates: u grows to the right, v grows
/// downwards (v = 0 is the top edge of the image, as stored in the file); texel (i, j) has its
/// centre at ((i + 0.5) / width, (j + 0.5) / height).
typedef struct sr_texture {
    int width, height;
    uint32_t *texels;
} sr_texture;

typedef struct sr_texture_desc {
    int width, height;      ///< both in [1, SR_MAX_IMAGE_SIDE]
    const uint32_t *texels; ///< optional: copied (width * height RGBA8 values); NULL = zeroed
} sr_texture_desc;

sr_status sr_texture_create(const sr_texture_desc *desc, sr_texture **out, sr_error *err);
/// Loads PNG, JPG, TGA or BMP through stb_image (converted to RGBA8). Free with
/// sr_texture_destroy. Errors name the file and what is wrong: SR_ERROR_IO (cannot open or
/// read), SR_ERROR_UNSUPPORTED (another format stb_image knows, such as PPM or GIF; a side over
/// SR_MAX_IMAGE_SIDE; a file over 1 GiB), SR_ERROR_PARSE (malformed or truncated: the file's
/// structure is checked before decoding, and a PNG's compressed image data is checked as a
/// strict inflate would, since stb_image 2.27 decodes some invalid deflate data from memory it
/// never wrote). SR_ERROR_OUT_OF_MEMORY names the file too.
sr_status sr_texture_load(const char *path, sr_texture **out, sr_error *err);
void sr_texture_destroy(sr_texture *texture);

typedef enum sr_filter { SR_FILTER_NEAREST = 0, SR_FILTER_BILINEAR } sr_filter;
typedef enum sr_wrap { SR_WRAP_REPEAT = 0, SR_WRAP_CLAMP } sr_wrap;

typedef struct sr_sampler {
    sr_filter filter;
    sr_wrap wrap_u, wrap_v;
} sr_sampler;

/// Samples the texture at (u, v) and writes RGBA in [0, 1] to `rgba`. NaN coordinates sample
/// texel (0, 0). Thread-safe (reads only).
void sr_texture_sample(const sr_texture *texture, const sr_sampler *sampler, float u, float v, float rgba[4]);

/* ------------------------------------------------------------------------------------------ */
/* Programs: shaders are C functions                                                           */

/// Vertex function: reads one vertex (`vertex` points at the caller's vertex, `stride` bytes
/// apart) and the program's uniforms; writes the clip-space position and `varying_count` floats.
/// Must be thread-safe (it may be called from several threads at once).
typedef void (*sr_vertex_fn)(const void *vertex, const void *uniforms, float clip[4], float *varyings);

/// What a fragment function is told about the fragment.
typedef struct sr_fragment_in {
    float x, y;              ///< window position of the pixel centre (x + 0.5, y + 0.5)
    float depth;             ///< interpolated window depth in [0, 1]
    const float *varyings;   ///< perspective-correct interpolated varyings
    const float *barycentric; ///< perspective-correct weights of the triangle's 3 vertices
                              ///< (only when the program sets uses_barycentrics, else NULL)
    uint32_t primitive_id;   ///< primitive_id_base + index of the triangle in the draw
    bool front_facing;
} sr_fragment_in;

/// What a fragment function writes.
typedef struct sr_fragment_out {
    float color[4]; ///< RGBA, [0, 1]; preset to (0, 0, 0, 1)
    float depth;    ///< preset to the interpolated depth; read back only if writes_depth
} sr_fragment_out;

/// Fragment function, one fragment at a time: returns false to discard the fragment. Must be
/// thread-safe. The pipeline shades in blocks (sr_fragment_block_fn) and calls this function
/// once per fragment of a block, which is the slower path: a program whose fragment function is
/// worth speeding up gives it a block form too.
typedef bool (*sr_fragment_fn)(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out);

/// Pixels of the blocks that the pipeline shades together: 4 x 2 pixels, lane k being pixel
/// (x0 + k % 4, y0 + k / 4) of the block whose top-left pixel is (x0, y0). Blocks start where a
/// triangle's pixels do (the top-left pixel of its bounds, or a multiple of 4 and 2 inside large
/// triangles), not on a fixed grid: blocks of neighbouring triangles may overlap, those of one
/// triangle never do. Eight lanes are one AVX vector or two SSE / NEON vectors of floats.
#define SR_BLOCK_WIDTH 4
#define SR_BLOCK_HEIGHT 2
#define SR_BLOCK_LANES (SR_BLOCK_WIDTH * SR_BLOCK_HEIGHT)

/// The blocks' arrays are aligned to 32 bytes (aligned vector loads of 8 floats).
#if defined(__cplusplus)
#define SR_BLOCK_ALIGNED alignas(32)
#else
#define SR_BLOCK_ALIGNED _Alignas(32)
#endif

/// What a block fragment function is told: up to SR_BLOCK_LANES fragments of one triangle, in
/// structure-of-arrays form (array[lane]). Only the lanes whose bit is set in `mask` are
/// fragments; the other lanes hold unspecified values (values extrapolated outside the triangle,
/// possibly infinite or NaN): a function may compute on them (whole vectors), but their results
/// are ignored. Every value of a lane is the very value sr_fragment_in would hold for that
/// fragment, bit for bit.
typedef struct sr_fragment_block_in {
    SR_BLOCK_ALIGNED float x[SR_BLOCK_LANES]; ///< pixel centres, as sr_fragment_in.x (every lane)
    SR_BLOCK_ALIGNED float y[SR_BLOCK_LANES];
    SR_BLOCK_ALIGNED float depth[SR_BLOCK_LANES]; ///< interpolated window depth in [0, 1]
    /// varyings[i][k]: varying i of lane k, perspective-correct (varying_count rows, aligned)
    const float (*varyings)[SR_BLOCK_LANES];
    /// barycentric[i][k]: weight of the triangle's vertex i at lane k (3 rows; only when the
    /// program sets uses_barycentrics, else NULL)
    const float (*barycentric)[SR_BLOCK_LANES];
    uint32_t mask;         ///< bit k set: lane k is a fragment to shade (never 0)
    uint32_t primitive_id; ///< the same for every lane: primitive_id_base + triangle index
    bool front_facing;
} sr_fragment_block_in;

/// What a block fragment function writes, per lane (structure of arrays).
typedef struct sr_fragment_block_out {
    SR_BLOCK_ALIGNED float color[4][SR_BLOCK_LANES]; ///< color[c][k]: channel c (RGBA, [0, 1]) of
                                                     ///< lane k; preset to (0, 0, 0, 1)
    SR_BLOCK_ALIGNED float depth[SR_BLOCK_LANES];    ///< preset to in->depth; read back only if
                                                     ///< writes_depth
} sr_fragment_block_out;

/// Block fragment function: shades the lanes of in->mask and returns the lanes to keep (a
/// lane's bit cleared discards it; bits outside in->mask are ignored). Must be thread-safe
/// (several threads shade blocks at once). A lane's outputs must depend on that lane's inputs
/// and the uniforms only, never on the other lanes or on which lanes are in the mask (the mask
/// depends on the depth buffer): the image is then the same as with one fragment at a time.
typedef uint32_t (*sr_fragment_block_fn)(const sr_fragment_block_in *in, const void *uniforms,
                                         sr_fragment_block_out *out);

/// A program bundles a vertex and a fragment function with its varying count and uniforms.
/// It sets `fragment`, `fragment_block` or both. With `fragment_block` the pipeline shades a
/// block per call (the fast path; every built-in program has one); with `fragment` only, it calls
/// `fragment` for each fragment of the block (the slower path, for programs written one fragment
/// at a time). When both are set the pipeline uses `fragment_block`, and the two must give the
/// same results (colour, depth, discards) bit for bit, as the built-ins' do.
typedef struct sr_program {
    const char *name;
    sr_vertex_fn vertex;
    sr_fragment_fn fragment;             ///< one fragment at a time; NULL if fragment_block is set
    sr_fragment_block_fn fragment_block; ///< a block at a time; NULL if fragment is set
    int varying_count;        ///< 0 .. SR_MAX_VARYINGS
    const void *uniforms;     ///< passed to both functions; owned by the caller
    bool writes_depth;        ///< disables the early depth test
    bool uses_barycentrics;   ///< fill sr_fragment_in.barycentric / sr_fragment_block_in.barycentric
    size_t vertex_size;       ///< bytes `vertex` reads per vertex; a draw whose vertex_stride is
                              ///< smaller is refused. 0 = not declared (only stride 0 is refused)
} sr_program;

/* ------------------------------------------------------------------------------------------ */
/* Render state and drawing                                                                    */

typedef enum sr_cull_mode { SR_CULL_NONE = 0, SR_CULL_BACK, SR_CULL_FRONT } sr_cull_mode;

typedef enum sr_depth_func {
    SR_DEPTH_LESS = 0, ///< default
    SR_DEPTH_LESS_EQUAL,
    SR_DEPTH_GREATER,
    SR_DEPTH_GREATER_EQUAL,
    SR_DEPTH_EQUAL,
    SR_DEPTH_NOT_EQUAL,
    SR_DEPTH_ALWAYS, ///< no test
    SR_DEPTH_NEVER,
} sr_depth_func;

/// Blending on RGBA8. With s the source component clamped to [0, 1] (NaN as 0) times 255 (for
/// the alpha channel s = 255 a), a the clamped source alpha and d the stored byte, the stored
/// result is floor(v + 0.5) saturated to 255, where v is:
typedef enum sr_blend_mode {
    SR_BLEND_NONE = 0,  ///< replace: v = s
    /// colour channels v = s * a + d * (1 - a); alpha v = 255 a + d * (1 - a) (Porter-Duff
    /// "over": blending over an opaque pixel leaves it opaque, so saved PNGs have no holes)
    SR_BLEND_ALPHA,
    SR_BLEND_ADDITIVE,  ///< v = d + s * a (saturating), all four channels
} sr_blend_mode;

/// The blend of sr_blend_mode applied to one RGBA8 pixel: `rgba` (components clamped to [0, 1],
/// NaN as 0) over `destination`, with the rounding above. For code that writes pixels itself
/// (text, filled rectangles) and must blend exactly as the pipeline does.
uint32_t sr_blend_rgba8(sr_blend_mode mode, const float rgba[4], uint32_t destination);

/// Zero-initialised state = no culling, depth test LESS, depth writes on, no blending.
typedef struct sr_render_state {
    sr_cull_mode cull;
    sr_depth_func depth_func;
    bool no_depth_write; ///< depth write mask off
    sr_blend_mode blend;
} sr_render_state;

/// One draw of an indexed triangle list over a user vertex array.
typedef struct sr_draw_desc {
    const void *vertices;   ///< vertex_count vertices, vertex_stride bytes apart
    size_t vertex_count;
    size_t vertex_stride;
    const uint32_t *indices; ///< 3 per triangle; NULL = non-indexed (0, 1, 2, ...)
    size_t index_count;      ///< multiple of 3 (a trailing partial triangle is an error); with
                             ///< indices NULL, 0 means vertex_count
    const sr_program *program;
    sr_render_state state;
    uint32_t primitive_id_base; ///< added to the triangle index for sr_fragment_in and ids
} sr_draw_desc;

/// Counters of the draws since the last sr_renderer_reset_stats.
typedef struct sr_raster_stats {
    uint64_t triangles_in;       ///< triangles submitted
    uint64_t triangles_culled;   ///< dropped by face culling or zero area, outside the view
                                 ///< volume, clipped away or covering no pixel centre
    uint64_t triangles_backfacing; ///< of triangles_culled: removed by face culling
    uint64_t triangles_clipped;  ///< that went through homogeneous clipping
    uint64_t triangles_skipped;  ///< skipped: index out of range or non-finite position
    uint64_t triangles_rasterized;
    uint64_t fragments_shaded;   ///< fragments that reached the fragment function (calls of
                                 ///< `fragment`; lanes in the masks given to `fragment_block`)
    uint64_t fragments_written;  ///< colour writes
    uint64_t lines_in;
    uint64_t lines_skipped;      ///< segments with a non-finite clip position
} sr_raster_stats;

/// Largest sr_renderer_desc.threads.
#define SR_MAX_THREADS 64

typedef struct sr_renderer_desc {
    /// 0 or 1 = render on the calling thread. N > 1: the renderer owns N - 1 worker threads; the
    /// calling thread and the workers split draws of 256 triangles or more, and batches of smaller
    /// ones (sr_renderer_begin_batch), into square screen tiles (each tile drawn by one thread,
    /// its triangles in submission order; large triangles are split between tiles like small
    /// ones), so the image, depth, ids and statistics are
    /// bit-identical to the single-threaded ones. Between frames the workers sleep: an idle
    /// renderer uses no CPU. Program functions must then be thread-safe. At most SR_MAX_THREADS.
    int threads;
} sr_renderer_desc;

/// The drawing context: scratch memory (post-transform vertex cache, clip buffers), statistics.
/// One renderer per thread that draws; it owns no framebuffer.
typedef struct sr_renderer sr_renderer;

/// `desc` may be NULL (defaults). Free with sr_renderer_destroy. Not thread-safe: one renderer
/// per drawing thread.
sr_status sr_renderer_create(const sr_renderer_desc *desc, sr_renderer **out, sr_error *err);
void sr_renderer_destroy(sr_renderer *renderer);
sr_raster_stats sr_renderer_stats(const sr_renderer *renderer);
/// Clears `fb` exactly as sr_framebuffer_clear does, with the renderer's threads (each clears
/// whole rows). Starting a frame with it also wakes worker threads that slept since the last
/// frame, so that they are running when the first draw needs them. NULL arguments: nothing.
void sr_renderer_clear(sr_renderer *renderer, sr_framebuffer *fb, uint32_t rgba, float depth);
void sr_renderer_reset_stats(sr_renderer *renderer);

/// Draws an indexed triangle list into `fb`. Triangles with an index out of range or a
/// non-finite clip position are skipped (counted in triangles_skipped), never a crash.
/// The vertex function runs once per vertex the draw references (post-transform cache of
/// vertex_count entries in the renderer, grown between draws). When the program does not write
/// depth, the depth test runs before the fragment function (early test); otherwise after it, on
/// the written depth clamped to [0, 1] (NaN discards). Depth, colour and id are written only for
/// fragments that pass the test and are not discarded; depth only without no_depth_write.
/// Errors: NULL arguments, framebuffer with NULL buffers or a side outside
/// [1, SR_MAX_IMAGE_SIDE], stride smaller than needed, varying_count out of range, enum out of
/// range, index_count not a multiple of 3, out of memory.
sr_status sr_draw_triangles(sr_renderer *renderer, sr_framebuffer *fb, const sr_draw_desc *desc, sr_error *err);

/// Starts a batch of draws into `fb`: until sr_renderer_end_batch, sr_draw_triangles takes the
/// small draws into `fb` (up to 4,096 triangles and 65,536 vertices each) without drawing their
/// pixels: it runs their vertex stage and sorts their triangles into screen tiles at once, on the
/// calling thread, and sr_renderer_end_batch draws the tiles of all of them with the renderer's
/// threads (a frame of a thousand small draws is then shared between the threads, which one
/// draw of a few tiles cannot be). The pixels, depth, ids and statistics are bit for bit those of
/// the same draws made without a batch. Contract while a batch is open: each batched draw's
/// `program->uniforms` (and what they point to: textures) must stay valid and unchanged until the
/// batch is drawn — its vertices and indices are read during the sr_draw_triangles call only;
/// the framebuffer holds the batched draws' pixels only once the batch is drawn: at
/// sr_renderer_end_batch, or before any other drawing call on the renderer (a draw the batch does
/// not take, sr_draw_lines, sr_renderer_clear, a new sr_renderer_begin_batch), which draws the
/// batch first so that everything reaches the pixels in call order. sr_renderer_stats counts a
/// batched draw's triangles at once and its fragments when it is drawn. On a renderer without
/// worker threads there is nothing to share: the draws are made at once. Errors: NULL renderer,
/// framebuffer with NULL buffers or a side outside [1, SR_MAX_IMAGE_SIDE].
sr_status sr_renderer_begin_batch(sr_renderer *renderer, sr_framebuffer *fb, sr_error *err);
/// Draws the open batch's draws (see sr_renderer_begin_batch) and closes it; without an open
/// batch, nothing. Errors: NULL renderer.
sr_status sr_renderer_end_batch(sr_renderer *renderer, sr_error *err);

/// One end of a 3D line segment.
typedef struct sr_line_vertex {
    sr_vec3 position; ///< world space (transformed by sr_line_desc.view_projection)
    float color[4];   ///< RGBA in [0, 1], interpolated along the segment
} sr_line_vertex;

/// Pairs of vertices (0-1, 2-3, ...) drawn as segments `width` pixels wide, clipped in
/// homogeneous space against the near and far planes and the viewport. Along its major axis a
/// segment covers every pixel column (row) that contains a point of it, both ends included; in
/// each, the pixel containing the segment's point at the column's (row's) centre, clamped to
/// the segment, and for wider lines the width - 1 next pixels across (offsets -(w-1)/2 to w/2).
/// A segment that starts exactly where the previous one ended (the same position bits, that end
/// unclipped in both) continues a polyline: its column (row) at the joint is not drawn again,
/// and a segment that ends exactly where its polyline's first segment started closes it the
/// same way, so no joint pixel is written twice. Colour is interpolated perspective-correctly,
/// depth linearly in screen space. Lines never write depth or ids. With several threads the
/// rows are split between them and every pixel sees the segments in order: the image does not
/// depend on the thread count. Errors: NULL arguments, odd vertex_count, bad blend mode, width
/// outside [0, 4], negative or non-finite depth bias; segments with a non-finite position are
/// skipped (lines_skipped).
typedef struct sr_line_desc {
    const sr_line_vertex *vertices;
    size_t vertex_count;      ///< even
    sr_mat4 view_projection;  ///< world to clip
    bool depth_test;          ///< test (LESS_EQUAL) against the depth buffer; never writes depth
    sr_blend_mode blend;
    int width;                ///< pixels, 1 to 4; 0 means 1
    /// With depth_test: a point at window depth z is tested as z - depth_bias * (1 - z) - s, as if
    /// nearer by that fraction of its view distance (1 - z shrinks as 1 / distance under
    /// perspective), where s is the depth buffer's change over one pixel across the line (the
    /// smaller of the two neighbours' differences: a surface's slope, not a silhouette's step),
    /// since the line's point lies up to half a pixel from the centre where the surface's depth
    /// was stored. 0: no bias (and no slope term).
    float depth_bias;
} sr_line_desc;

sr_status sr_draw_lines(sr_renderer *renderer, sr_framebuffer *fb, const sr_line_desc *desc, sr_error *err);

/// Makes the renderer's line memory ready for draws of up to `segments` segments (sr_draw_lines:
/// the clipped segments, and their sorting into rows of a frame of up to 4,096 rows when each
/// segment reaches at most two units of rows), every page of it written now, so that the first
/// such draw neither grows it nor waits for the system to hand out fresh memory (a viewer's idle
/// time before a large frame: 100,000 segments take about 8 MB). Never shrinks it; a draw that
/// needs more still grows it. Errors: NULL renderer, out of memory (the memory is then as before).
sr_status sr_renderer_reserve_lines(sr_renderer *renderer, size_t segments, sr_error *err);

#ifdef __cplusplus
}
#endif
#endif
