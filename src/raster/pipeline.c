/* src/raster/pipeline.c — the renderer (scratch memory, statistics, worker threads of pool.c) and
 * sr_draw_triangles: argument validation, vertex processing through the post-transform cache
 * (the vertex function runs once per referenced vertex per draw), primitive assembly, trivial
 * rejection, and the hand-off of each triangle to clipping (clip.c) and setup/rasterisation
 * (triangle.c). With several threads, the vertex stage is cut into chunks claimed from shared
 * counters and the triangles go to tiles.c, which sorts them into screen tiles and hands out the
 * tiles; the image is the single-threaded one bit for bit. Knows nothing of scenes, meshes or
 * files. */
#include "raster_internal.h"

#include <string.h>

sr_status sr_renderer_create(const sr_renderer_desc *desc, sr_renderer **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_renderer_create: out is NULL");
    *out = NULL;
    int threads = desc ? desc->threads : 0;
    if (threads < 0 || threads > SR_MAX_THREADS)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_renderer_create: desc->threads %d is outside [0, %d]",
                            threads, SR_MAX_THREADS);
    sr_renderer *renderer = sr_calloc(1, sizeof *renderer);
    if (!renderer)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: out of memory");
    renderer->threads = threads > 1 ? threads : 1;
    renderer->fill = sr_raster_fill_for(sr_isa_active());
    renderer->screen_batch = sr_raster_screen_batch_for(sr_isa_active());
    if (renderer->threads > 1) {
        sr_status status = sr_pool_create(renderer->threads - 1, &renderer->pool, err);
        if (status != SR_OK) {
            sr_free(renderer);
            return status;
        }
    }
    *out = renderer;
    return SR_OK;
}

sr_fill_fn sr_raster_fill_for(sr_isa isa)
{
    if (isa == SR_ISA_BUILD)
        return sr_raster_fill_triangle_native;
#if defined(SR_ISA_DISPATCH)
    if (isa == SR_ISA_AVX2 && sr_isa_available(SR_ISA_AVX2))
        return sr_raster_fill_triangle_avx2;
    if (isa == SR_ISA_AVX512 && sr_isa_available(SR_ISA_AVX512))
        return sr_raster_fill_triangle_avx512;
#endif
    return NULL;
}

sr_screen_batch_fn sr_raster_screen_batch_for(sr_isa isa)
{
    if (isa == SR_ISA_BUILD)
        return sr_raster_screen_batch_native;
#if defined(SR_ISA_DISPATCH)
    if (isa == SR_ISA_AVX2 && sr_isa_available(SR_ISA_AVX2))
        return sr_raster_screen_batch_avx2;
    if (isa == SR_ISA_AVX512 && sr_isa_available(SR_ISA_AVX512))
        return sr_raster_screen_batch_avx512;
#endif
    return NULL;
}

void sr_renderer_destroy(sr_renderer *renderer)
{
    if (!renderer)
        return;
    if (renderer->pool)
        sr_pool_destroy(renderer->pool);
    sr_free(renderer->clip);
    sr_free(renderer->screen);
    sr_free(renderer->varyings);
    sr_free(renderer->stamps);
    sr_free(renderer->spans);
    sr_free(renderer->coverage);
    sr_free(renderer->offsets);
    sr_free(renderer->entries);
    sr_free(renderer->line_scratch);
    sr_raster_batch_destroy(renderer->batch);
    sr_free(renderer);
}

void sr_raster_run(sr_renderer *renderer, int workers, void (*job)(void *data, int worker), void *data)
{
    if (workers > 1 && renderer->pool) {
        sr_pool_start(renderer->pool, job, data);
        job(data, 0);
        sr_pool_finish(renderer->pool);
    } else {
        job(data, 0);
    }
}

/* A clear shared between threads: bands of rows in each thread's home rows (the rows of its home
 * tiles, sr_raster_home_rows), its own first, then what is left of the others' (a worker that
 * wakes late). A thread thus clears the rows it will draw first, the same ones every frame, and
 * a line stays in the cache of the core that wrote it last: bands claimed in turn from one
 * counter went to either core and pulled half the framebuffer from one core's cache to the
 * other's at each clear and draw. */
typedef struct clear_job {
    sr_framebuffer *fb;
    uint32_t rgba;
    float depth;
    int band_rows, workers;
    struct {
        _Alignas(64) _Atomic int next; ///< next band of the range
        int first_row, end_row;        ///< its pixel rows
    } range[SR_MAX_THREADS];
} clear_job;

static void clear_bands(void *data, int worker)
{
    clear_job *job = data;
    for (int k = 0; k < job->workers; k++) {
        const int owner = (worker + k) % job->workers;
        for (;;) {
            int band = atomic_fetch_add_explicit(&job->range[owner].next, 1, memory_order_relaxed);
            int first = job->range[owner].first_row + band * job->band_rows;
            if (first >= job->range[owner].end_row)
                break;
            int end = first + job->band_rows < job->range[owner].end_row ? first + job->band_rows
                                                                          : job->range[owner].end_row;
            sr_raster_clear_rows(job->fb, job->rgba, job->depth, first, end);
        }
    }
}

/// Framebuffers smaller than this many pixels are cleared by the calling thread alone.
#define PARALLEL_MIN_CLEAR_PIXELS 65536
/// Pixels per band of a shared clear (whole rows; 64 KiB of colour).
#define CLEAR_BAND_PIXELS 16384

void sr_renderer_clear(sr_renderer *renderer, sr_framebuffer *fb, uint32_t rgba, float depth)
{
    if (!renderer || !fb || !fb->color || !fb->depth || fb->width < 1 || fb->height < 1)
        return;
    sr_raster_batch_flush(renderer); // the batch's draws come before the clear
    size_t pixels = (size_t)fb->width * (size_t)fb->height;
    int band_rows = CLEAR_BAND_PIXELS / fb->width > 0 ? CLEAR_BAND_PIXELS / fb->width : 1;
    clear_job job = {.fb = fb, .rgba = rgba, .depth = depth, .band_rows = band_rows};
    job.workers = pixels >= PARALLEL_MIN_CLEAR_PIXELS ? renderer->threads : 1;
    // the home rows of the tiles of a draw on this many threads
    const sr_tile_grid grid = sr_raster_tile_grid(fb->width, fb->height, job.workers);
    for (int w = 0; w < job.workers; w++) {
        int first_tile_row, end_tile_row;
        sr_raster_home_rows(&grid, job.workers, w, &first_tile_row, &end_tile_row);
        atomic_init(&job.range[w].next, 0);
        job.range[w].first_row = first_tile_row * grid.size < fb->height ? first_tile_row * grid.size : fb->height;
        job.range[w].end_row = end_tile_row * grid.size < fb->height ? end_tile_row * grid.size : fb->height;
    }
    sr_raster_run(renderer, job.workers, clear_bands, &job);
}

sr_raster_stats sr_renderer_stats(const sr_renderer *renderer)
{
    sr_raster_stats none = {0};
    return renderer ? renderer->stats : none;
}

void sr_renderer_reset_stats(sr_renderer *renderer)
{
    if (renderer)
        memset(&renderer->stats, 0, sizeof renderer->stats);
}

sr_status sr_raster_check_framebuffer(const sr_framebuffer *fb, const char *function, sr_error *err)
{
    if (!fb)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: fb is NULL", function);
    if (fb->width < 1 || fb->width > SR_MAX_IMAGE_SIDE || fb->height < 1 || fb->height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: fb size %dx%d is outside [1, %d]", function, fb->width,
                            fb->height, SR_MAX_IMAGE_SIDE);
    if (!fb->color || !fb->depth)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: fb->%s is NULL", function,
                            fb->color ? "depth" : "color");
    return SR_OK;
}

/* Grows the post-transform cache to `vertex_count` vertices of `varying_count` floats. Runs at
 * the start of a draw, never inside the triangle loop; on failure the old arrays stay valid. */
static sr_status reserve_cache(sr_renderer *renderer, size_t vertex_count, int varying_count, sr_error *err)
{
    const size_t largest = sizeof(sr_screen_vertex) > sizeof(float[4]) ? sizeof(sr_screen_vertex) : sizeof(float[4]);
    if (vertex_count > SIZE_MAX / largest / 2 || vertex_count > SIZE_MAX / sizeof(float) / 2 / SR_ATTRIBUTE_SLOTS)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY,
                            "sr_draw_triangles: vertex cache for %zu vertices is too large", vertex_count);
    if (vertex_count > renderer->capacity) {
        size_t capacity = renderer->capacity * 2 > vertex_count ? renderer->capacity * 2 : vertex_count;
        float(*clip)[4] = sr_realloc(renderer->clip, capacity * sizeof *clip);
        if (clip)
            renderer->clip = clip;
        sr_screen_vertex *screen = clip ? sr_realloc(renderer->screen, capacity * sizeof *screen) : NULL;
        if (screen)
            renderer->screen = screen;
        uint32_t *stamps = screen ? sr_realloc(renderer->stamps, capacity * sizeof *stamps) : NULL;
        if (!stamps)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY,
                                "sr_draw_triangles: out of memory for the vertex cache (%zu vertices)", vertex_count);
        // New entries must not look referenced by the current stamp.
        memset(stamps + renderer->capacity, 0, (capacity - renderer->capacity) * sizeof *stamps);
        renderer->stamps = stamps;
        renderer->capacity = capacity;
    }
    // At least one float, so that the varyings pointer is never NULL (even with none to store).
    size_t floats = vertex_count * (size_t)SR_ATTRIBUTE_SLOTS_FOR(varying_count);
    floats = floats ? floats : 1;
    if (floats > renderer->varying_capacity) {
        size_t capacity = renderer->varying_capacity * 2 > floats ? renderer->varying_capacity * 2 : floats;
        float *varyings = sr_realloc(renderer->varyings, capacity * sizeof *varyings);
        if (!varyings)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY,
                                "sr_draw_triangles: out of memory for the varyings of %zu vertices", vertex_count);
        renderer->varyings = varyings;
        renderer->varying_capacity = capacity;
    }
    return SR_OK;
}

static sr_status check_draw(const sr_renderer *renderer, const sr_framebuffer *fb, const sr_draw_desc *desc,
                            size_t *index_count, sr_error *err)
{
    const sr_status invalid = SR_ERROR_INVALID_ARGUMENT;
    if (!renderer)
        return sr_error_set(err, invalid, "sr_draw_triangles: renderer is NULL");
    sr_status status = sr_raster_check_framebuffer(fb, "sr_draw_triangles", err);
    if (status != SR_OK)
        return status;
    if (!desc)
        return sr_error_set(err, invalid, "sr_draw_triangles: desc is NULL");
    const sr_program *program = desc->program;
    if (!program)
        return sr_error_set(err, invalid, "sr_draw_triangles: desc->program is NULL");
    const char *name = program->name ? program->name : "(unnamed)";
    if (!program->vertex)
        return sr_error_set(err, invalid, "sr_draw_triangles: program \"%s\": vertex function is NULL", name);
    if (!program->fragment && !program->fragment_block)
        return sr_error_set(
            err, invalid,
            "sr_draw_triangles: program \"%s\": no fragment function (fragment and fragment_block are NULL)", name);
    if (program->varying_count < 0 || program->varying_count > SR_MAX_VARYINGS)
        return sr_error_set(err, invalid, "sr_draw_triangles: program \"%s\": varying_count %d is outside [0, %d]",
                            name, program->varying_count, SR_MAX_VARYINGS);
    if ((unsigned)desc->state.cull > SR_CULL_FRONT)
        return sr_error_set(err, invalid, "sr_draw_triangles: desc->state.cull %d is not an sr_cull_mode",
                            (int)desc->state.cull);
    if ((unsigned)desc->state.depth_func > SR_DEPTH_NEVER)
        return sr_error_set(err, invalid, "sr_draw_triangles: desc->state.depth_func %d is not an sr_depth_func",
                            (int)desc->state.depth_func);
    if ((unsigned)desc->state.blend > SR_BLEND_ADDITIVE)
        return sr_error_set(err, invalid, "sr_draw_triangles: desc->state.blend %d is not an sr_blend_mode",
                            (int)desc->state.blend);
    if (desc->vertex_count > 0 && !desc->vertices)
        return sr_error_set(err, invalid, "sr_draw_triangles: desc->vertices is NULL but vertex_count is %zu",
                            desc->vertex_count);
    if (desc->vertex_count > 1 && desc->vertex_stride == 0)
        return sr_error_set(err, invalid, "sr_draw_triangles: desc->vertex_stride is 0 for %zu vertices",
                            desc->vertex_count);
    if (desc->vertex_stride < program->vertex_size)
        return sr_error_set(err, invalid,
                            "sr_draw_triangles: desc->vertex_stride %zu is smaller than program \"%s\"'s "
                            "vertex_size %zu",
                            desc->vertex_stride, name, program->vertex_size);
    if (desc->vertex_stride > 0 && desc->vertex_count > SIZE_MAX / desc->vertex_stride)
        return sr_error_set(err, invalid, "sr_draw_triangles: desc->vertex_count %zu * vertex_stride %zu overflows",
                            desc->vertex_count, desc->vertex_stride);
    *index_count = desc->indices || desc->index_count ? desc->index_count : desc->vertex_count;
    if (*index_count % 3 != 0)
        return sr_error_set(err, invalid, "sr_draw_triangles: desc->index_count %zu is not a multiple of 3",
                            *index_count);
    return SR_OK;
}

/// Indices marked per claim of the first phase of a draw.
#define MARK_CHUNK (3 * 16384)
/// Vertices transformed per claim of the second: a few claims per worker, of 256 to 2048
/// vertices (a small mesh's vertices, the teapot's 530, are then shared between the threads too).
#define TRANSFORM_CHUNK_MIN 256
#define TRANSFORM_CHUNK_MAX 2048

static uint64_t chunk_count(uint64_t items, uint64_t chunk)
{
    return (items + chunk - 1) / chunk;
}

/* Lowers *value to `candidate` (raise with `raise`) unless it is already beyond it. */
static void atomic_extend(_Atomic uint64_t *value, uint64_t candidate, bool raise)
{
    uint64_t current = atomic_load_explicit(value, memory_order_relaxed);
    while (raise ? candidate > current : candidate < current)
        if (atomic_compare_exchange_weak_explicit(value, &current, candidate, memory_order_relaxed,
                                                  memory_order_relaxed))
            break;
}

void sr_raster_wait_phase(const sr_draw_job *job, const _Atomic uint64_t *done, uint64_t total)
{
    if (job->workers > 1)
        sr_pool_wait(job->renderer->pool, done, total);
}

void sr_raster_finish_chunk(const sr_draw_job *job, _Atomic uint64_t *done, uint64_t total)
{
    if (atomic_fetch_add_explicit(done, 1, memory_order_acq_rel) + 1 == total && job->workers > 1)
        sr_pool_announce(job->renderer->pool);
}

/* Phase 1: marks the vertices the draw references (stamps) and finds the range to transform.
 * Several workers may store the same stamp into one entry: the stores are atomic (relaxed; the
 * end of the phase orders them before every read). */
static void mark_vertices(sr_draw_job *job)
{
    const sr_draw_desc *desc = job->source.desc;
    const uint32_t *indices = desc->indices;
    const size_t vertex_count = desc->vertex_count;
    uint32_t *stamps = job->renderer->stamps;
    const uint32_t stamp = job->renderer->stamp;
    const uint64_t total = chunk_count(job->index_count, MARK_CHUNK);
    for (;;) {
        uint64_t chunk = atomic_fetch_add_explicit(&job->mark_next, 1, memory_order_relaxed);
        if (chunk >= total)
            break;
        size_t first = (size_t)chunk * MARK_CHUNK;
        size_t end = first + MARK_CHUNK < job->index_count ? first + MARK_CHUNK : job->index_count;
        size_t low = SIZE_MAX, high = 0;
        for (size_t i = first; i < end; i++) {
            size_t index = indices[i];
            if (index < vertex_count) {
                __atomic_store_n(&stamps[index], stamp, __ATOMIC_RELAXED);
                low = index < low ? index : low;
                high = index > high ? index : high;
            }
        }
        if (low != SIZE_MAX) {
            atomic_extend(&job->low, low, false);
            atomic_extend(&job->high, (uint64_t)high + 1, true);
        }
        sr_raster_finish_chunk(job, &job->mark_done, total);
    }
    sr_raster_wait_phase(job, &job->mark_done, total);
}

/* Phase 2: runs the vertex function once for every referenced vertex, and classifies/projects
 * each result once: triangles then only read the cache. */
static void transform_vertices(sr_draw_job *job)
{
    sr_renderer *renderer = job->renderer;
    const sr_draw_desc *desc = job->source.desc;
    const sr_program *program = desc->program;
    int varying_count = program->varying_count;
    size_t stride = (size_t)SR_ATTRIBUTE_SLOTS_FOR(varying_count);
    const char *vertices = desc->vertices;
    size_t low = (size_t)atomic_load_explicit(&job->low, memory_order_relaxed);
    size_t high = (size_t)atomic_load_explicit(&job->high, memory_order_relaxed);
    if (!desc->indices) {
        low = 0;
        high = job->index_count < desc->vertex_count ? job->index_count : desc->vertex_count;
    }
    size_t chunk_size = high > low ? (high - low) / ((size_t)job->workers * 4) : 0;
    chunk_size = chunk_size < TRANSFORM_CHUNK_MIN   ? TRANSFORM_CHUNK_MIN
                 : chunk_size > TRANSFORM_CHUNK_MAX ? TRANSFORM_CHUNK_MAX
                                                    : chunk_size;
    const uint64_t total = high > low ? chunk_count(high - low, chunk_size) : 0;
    for (;;) {
        uint64_t chunk = atomic_fetch_add_explicit(&job->transform_next, 1, memory_order_relaxed);
        if (chunk >= total)
            break;
        size_t first = low + (size_t)chunk * chunk_size;
        size_t end = first + chunk_size < high ? first + chunk_size : high;
        for (size_t v = first; v < end; v++) {
            if (desc->indices && renderer->stamps[v] != renderer->stamp)
                continue;
            float *clip = job->source.clip[v];
            clip[0] = clip[1] = clip[2] = 0.0f;
            clip[3] = 1.0f;
            float *varyings = job->source.varyings + v * stride;
            program->vertex(vertices + v * desc->vertex_stride, program->uniforms, clip, varyings);
            for (int i = varying_count; i < (int)stride; i++)
                varyings[i] = 0.0f;
            job->source.screen[v] = sr_raster_project(clip, &job->source.context.viewport);
        }
        sr_raster_finish_chunk(job, &job->transform_done, total);
    }
    sr_raster_wait_phase(job, &job->transform_done, total);
}

/* Attributes of a cache vertex for the rasteriser: its varyings, followed (with barycentrics)
 * by the weights of corner `corner` of the original triangle. */
static const float *vertex_attributes(const sr_draw_context *context, const float *varyings, int corner,
                                      float scratch[SR_ATTRIBUTE_SLOTS])
{
    if (!context->barycentrics)
        return varyings;
    memcpy(scratch, varyings, (size_t)context->varying_count * sizeof(float));
    for (int k = context->varying_count; k < SR_ATTRIBUTE_SLOTS_FOR(context->attribute_count); k++)
        scratch[k] = k == context->varying_count + corner ? 1.0f : 0.0f;
    return scratch;
}

bool sr_raster_draw_clipped(const sr_draw_source *source, const size_t index[3], uint32_t planes, uint32_t primitive_id,
                            const sr_pixel_rect *rect, sr_fragment_counters *counters, sr_pixel_rect *bounds,
                            bool *backfacing)
{
    const sr_draw_context *context = &source->context;
    *backfacing = false;
    sr_clip_vertex polygon[SR_CLIP_MAX_VERTICES];
    float scratch[SR_ATTRIBUTE_SLOTS];
    size_t stride = (size_t)SR_ATTRIBUTE_SLOTS_FOR(context->varying_count);
    int slots = SR_ATTRIBUTE_SLOTS_FOR(context->attribute_count);
    *bounds = (sr_pixel_rect){context->viewport.width, context->viewport.height, -1, -1};
    for (int k = 0; k < 3; k++) {
        for (int c = 0; c < 4; c++)
            polygon[k].clip[c] = source->clip[index[k]][c];
        polygon[k].corner = k;
        const float *attributes = vertex_attributes(context, source->varyings + index[k] * stride, k, scratch);
        memcpy(polygon[k].attributes, attributes, (size_t)slots * sizeof(float));
    }
    // The zero padding is interpolated along (it stays zero).
    int count = sr_raster_clip_polygon(polygon, 3, planes, slots, &context->viewport);
    sr_screen_vertex screen[SR_CLIP_MAX_VERTICES];
    for (int k = 0; k < count; k++) {
        // A corner that needed no clipping keeps the cache's projection, bit for bit the one its
        // unclipped neighbours use; only new (or borderline) vertices are projected here.
        int corner = polygon[k].corner;
        if (corner >= 0 && !(source->screen[index[corner]].flags & SR_CLIP_MASK))
            screen[k] = source->screen[index[corner]];
        else if (!sr_raster_project_clipped(polygon[k].clip, &context->viewport, &screen[k]))
            return false;
    }
    bool drawn = false;
    sr_triangle_setup setup;
    for (int k = 1; k + 1 < count; k++) {
        const float *const attributes[3] = {polygon[0].attributes, polygon[k].attributes, polygon[k + 1].attributes};
        // Without a rectangle only the verdict and the bounds are needed: setup's first tests.
        sr_pixel_rect piece;
        sr_setup_result result =
            rect ? sr_raster_setup_triangle(context, &screen[0], &screen[k], &screen[k + 1], attributes, primitive_id,
                                            &setup)
                 : sr_raster_classify_triangle(context, &screen[0], &screen[k], &screen[k + 1], &piece);
        // The pieces of one triangle share its facing; zero-area pieces say nothing about it.
        *backfacing = *backfacing || result == SR_SETUP_BACKFACE;
        if (result == SR_SETUP_OK) {
            if (rect) {
                sr_raster_fill_triangle(context, &setup, *rect, counters);
                piece = setup.bounds;
            }
            bounds->min_x = piece.min_x < bounds->min_x ? piece.min_x : bounds->min_x;
            bounds->min_y = piece.min_y < bounds->min_y ? piece.min_y : bounds->min_y;
            bounds->max_x = piece.max_x > bounds->max_x ? piece.max_x : bounds->max_x;
            bounds->max_y = piece.max_y > bounds->max_y ? piece.max_y : bounds->max_y;
            drawn = true;
        }
    }
    *backfacing = *backfacing && !drawn;
    return drawn;
}

sr_setup_result sr_raster_draw_unclipped(const sr_draw_source *source, const size_t index[3], uint32_t primitive_id,
                                         sr_pixel_rect rect, sr_fragment_counters *counters,
                                         const sr_triangle_verdicts *screened, int lane, unsigned coverage)
{
    const sr_draw_context *context = &source->context;
    const size_t stride = (size_t)SR_ATTRIBUTE_SLOTS_FOR(context->varying_count);
    const sr_screen_vertex *screen = source->screen;
    float scratch[3][SR_ATTRIBUTE_SLOTS];
    const float *const attributes[3] = {
        vertex_attributes(context, source->varyings + index[0] * stride, 0, scratch[0]),
        vertex_attributes(context, source->varyings + index[1] * stride, 1, scratch[1]),
        vertex_attributes(context, source->varyings + index[2] * stride, 2, scratch[2]),
    };
    sr_triangle_setup setup;
    sr_setup_result result = SR_SETUP_OK;
    if (screened)
        sr_raster_setup_screened(context, &screen[index[0]], &screen[index[1]], &screen[index[2]], attributes,
                                 primitive_id, screened, lane, &setup);
    else if (coverage)
        result = sr_raster_setup_covered(context, &screen[index[0]], &screen[index[1]], &screen[index[2]], attributes,
                                         primitive_id, coverage, &setup);
    else
        result = sr_raster_setup_triangle(context, &screen[index[0]], &screen[index[1]], &screen[index[2]], attributes,
                                          primitive_id, &setup);
    if (result == SR_SETUP_OK)
        sr_raster_fill_triangle(context, &setup, rect, counters);
    return result;
}

/* One triangle of a one-thread draw, by the one-triangle path. */
static void draw_one_triangle(const sr_draw_source *source, size_t t, const sr_pixel_rect *viewport,
                              sr_raster_stats *stats, sr_fragment_counters *counters)
{
    const sr_draw_desc *desc = source->desc;
    const sr_screen_vertex *screen = source->screen;
    size_t index[3];
    if (!sr_raster_triangle_indices(desc, t, index)) {
        stats->triangles_skipped++;
        return;
    }
    uint32_t any = screen[index[0]].flags | screen[index[1]].flags | screen[index[2]].flags;
    uint32_t all = screen[index[0]].flags & screen[index[1]].flags & screen[index[2]].flags;
    if (any & SR_VERTEX_NONFINITE) {
        stats->triangles_skipped++;
        return;
    }
    if (all & SR_REJECT_MASK) {
        // Entirely on the outer side of one plane of the view volume.
        stats->triangles_culled++;
        return;
    }
    uint32_t primitive_id = desc->primitive_id_base + (uint32_t)t;
    bool drawn, backfacing;
    if (any & SR_CLIP_MASK) {
        sr_pixel_rect bounds;
        drawn = sr_raster_draw_clipped(source, index, any & SR_CLIP_MASK, primitive_id, viewport, counters, &bounds,
                                       &backfacing);
        stats->triangles_clipped++;
    } else {
        sr_setup_result result = sr_raster_draw_unclipped(source, index, primitive_id, *viewport, counters, NULL, 0, 0);
        drawn = result == SR_SETUP_OK;
        backfacing = result == SR_SETUP_BACKFACE;
    }
    stats->triangles_rasterized += drawn;
    stats->triangles_culled += !drawn;
    stats->triangles_backfacing += backfacing;
}

void sr_raster_screen_triangles(const sr_draw_source *source, size_t first, sr_triangle_verdicts *verdicts)
{
    static const sr_screen_vertex no_vertex = {0}; /* read for a triangle with an invalid index */
    const sr_draw_desc *desc = source->desc;
    const sr_screen_vertex *screen = source->screen;
    sr_triangle_batch batch;
    for (int i = 0; i < SR_TRIANGLE_BATCH; i++) {
        size_t index[3];
        const bool valid = sr_raster_triangle_indices(desc, first + (size_t)i, index);
        batch.valid[i] = valid;
        uint32_t any = 0, all = UINT32_MAX;
        for (int k = 0; k < 3; k++) {
            const sr_screen_vertex *v = valid ? &screen[index[k]] : &no_vertex;
            batch.x[k][i] = v->x;
            batch.y[k][i] = v->y;
            any |= v->flags;
            all &= v->flags;
        }
        batch.flags_any[i] = any;
        batch.flags_all[i] = all;
    }
    source->context.screen_batch(&source->context, &batch, verdicts);
}

/* Phase 3 with one thread: every triangle in submission order over the whole viewport. The
 * triangles are screened SR_TRIANGLE_BATCH at a time (triangle_batch.c): those that draw no
 * pixel are counted and done, the others go through the one-triangle path in order. */
static void draw_triangles(const sr_draw_job *job, sr_raster_stats *stats, sr_fragment_counters *counters)
{
    const sr_draw_source *source = &job->source;
    const sr_draw_context *context = &source->context;
    const size_t triangle_count = job->triangle_count;
    const sr_pixel_rect viewport = {0, 0, context->viewport.width - 1, context->viewport.height - 1};
    size_t t = 0;
    for (; t + SR_TRIANGLE_BATCH <= triangle_count; t += SR_TRIANGLE_BATCH) {
        sr_triangle_verdicts verdicts;
        sr_raster_screen_triangles(source, t, &verdicts);
        for (int i = 0; i < SR_TRIANGLE_BATCH; i++) {
            if (sr_raster_count_screened(verdicts.verdict[i], stats))
                continue;
            if (verdicts.verdict[i] == SR_BATCH_DRAW) {
                // set up without repeating the batch's steps (valid indices, no clipping)
                size_t index[3];
                sr_raster_triangle_indices(source->desc, t + (size_t)i, index);
                sr_raster_draw_unclipped(source, index, source->desc->primitive_id_base + (uint32_t)(t + (size_t)i),
                                         viewport, counters, &verdicts, i, 0);
                stats->triangles_rasterized++;
            } else {
                draw_one_triangle(source, t + (size_t)i, &viewport, stats, counters);
            }
        }
    }
    for (; t < triangle_count; t++)
        draw_one_triangle(source, t, &viewport, stats, counters);
}

void sr_raster_vertex_stage(sr_draw_job *job)
{
    if (job->source.desc->indices)
        mark_vertices(job);
    transform_vertices(job);
}

/// Draws smaller than this many triangles stay on the calling thread (waking workers costs more)
/// unless a batch takes them.
#define PARALLEL_MIN_TRIANGLES 256

/* The whole draw, run by every worker (worker 0 is the calling thread). */
static void run_draw(void *data, int worker)
{
    sr_draw_job *job = data;
    sr_raster_vertex_stage(job);
    sr_raster_stats stats = {0};
    sr_fragment_counters counters = {0, 0};
    if (job->workers > 1) {
        sr_raster_draw_tiles(job, worker, &stats, &counters);
    } else {
        draw_triangles(job, &stats, &counters);
    }
    job->result[worker].stats = stats;
    job->result[worker].counters = counters;
}

/* A job for the draw `desc` (checked) into `fb` on `workers` threads, its vertices in the
 * renderer's cache; the next stamp for its marks. */
static void init_job(sr_draw_job *job, sr_renderer *renderer, sr_framebuffer *fb, const sr_draw_desc *desc,
                     size_t index_count, int workers)
{
    const sr_program *program = desc->program;
    job->renderer = renderer;
    job->source = (sr_draw_source){
        .desc = desc,
        .context =
            {
                .fb = fb,
                .viewport = sr_raster_viewport(fb->width, fb->height),
                .fill = renderer->portable_fill ? sr_raster_fill_triangle_portable : renderer->fill,
                .screen_batch = renderer->screen_batch,
                .fragment = program->fragment,
                .fragment_block = program->fragment_block,
                .uniforms = program->uniforms,
                .varying_count = program->varying_count,
                .attribute_count = program->varying_count + (program->uses_barycentrics ? 3 : 0),
                .barycentrics = program->uses_barycentrics,
                .late_depth = program->writes_depth,
                .state = desc->state,
            },
        .clip = renderer->clip,
        .screen = renderer->screen,
        .varyings = renderer->varyings,
        .coverage = renderer->coverage,
    };
    job->index_count = index_count;
    job->triangle_count = index_count / 3;
    job->workers = workers;
    atomic_init(&job->mark_next, 0);
    atomic_init(&job->mark_done, 0);
    atomic_init(&job->low, UINT64_MAX);
    atomic_init(&job->high, 0);
    atomic_init(&job->transform_next, 0);
    atomic_init(&job->transform_done, 0);
    atomic_init(&job->bin_next, 0);
    atomic_init(&job->bin_done, 0);
    // Workers that do not join the job leave their results as they are here.
    memset(job->result, 0, sizeof job->result[0] * (size_t)workers);
    atomic_init(&job->entries_used, 0);
    for (int w = 0; w < SR_MAX_THREADS; w++)
        atomic_init(&job->tile_next[w].claimed, 0);
    if (desc->indices && ++renderer->stamp == 0) {
        // The stamp wrapped around: forget every old mark once every 2^32 draws.
        if (renderer->stamps)
            memset(renderer->stamps, 0, renderer->capacity * sizeof *renderer->stamps);
        renderer->stamp = 1;
    }
}

sr_status sr_draw_triangles(sr_renderer *renderer, sr_framebuffer *fb, const sr_draw_desc *desc, sr_error *err)
{
    size_t index_count = 0;
    sr_status status = check_draw(renderer, fb, desc, &index_count, err);
    if (status != SR_OK)
        return status;
    const sr_program *program = desc->program;
    status = reserve_cache(renderer, desc->vertex_count, program->varying_count, err);
    if (status != SR_OK)
        return status;

    sr_draw_job job;
    const size_t triangle_count = index_count / 3;
    if (renderer->batch && sr_raster_batch_open(renderer->batch)) {
        // A batch takes the draw (its vertex stage and sorting into tiles now, its pixels at the
        // batch's end), or draws what it holds first: draws reach each pixel in submission order.
        if (sr_raster_batch_takes(renderer->batch, fb, triangle_count, desc->vertex_count)) {
            init_job(&job, renderer, fb, desc, index_count, 1);
            if (sr_raster_batch_add(renderer->batch, &job))
                return SR_OK;
        }
        sr_raster_batch_flush(renderer);
    }
    // (Tiles hold triangle indices in 32 bits.)
    const int workers = renderer->pool && triangle_count >= PARALLEL_MIN_TRIANGLES && triangle_count <= UINT32_MAX
                            ? renderer->threads
                            : 1;
    init_job(&job, renderer, fb, desc, index_count, workers);
    if (job.workers > 1) {
        // Chunks of the sorting into tiles: a few per worker (fewer chunks, fewer offsets for each
        // tile to look through), of 256 to 65536 triangles (a draw of a thousand triangles is
        // then sorted by both threads too).
        job.grid = sr_raster_tile_grid(fb->width, fb->height, job.workers);
        size_t chunk = job.triangle_count / ((size_t)job.workers * 4);
        job.bin_chunk = chunk < 256 ? 256 : chunk > 65536 ? 65536 : chunk;
        job.bin_chunks = chunk_count(job.triangle_count, job.bin_chunk);
        status = sr_raster_reserve_tiles(renderer, job.triangle_count, job.bin_chunks, &job.grid, err);
        if (status != SR_OK)
            return status;
        job.source.coverage = renderer->coverage;
    }
    if (job.workers > 1) {
        // The workers wake up while this thread already marks and transforms vertices.
        sr_pool_start(renderer->pool, run_draw, &job);
        run_draw(&job, 0);
        sr_pool_finish(renderer->pool);
    } else {
        run_draw(&job, 0);
    }

    if (job.workers > 1) {
        // A draw whose entries did not all fit drew some chunks without them; the next has room.
        uint64_t used = atomic_load_explicit(&job.entries_used, memory_order_relaxed);
        renderer->entries_wanted = used > renderer->entries_wanted ? (size_t)used : renderer->entries_wanted;
    }
    sr_raster_stats *total = &renderer->stats;
    total->triangles_in += job.triangle_count;
    for (int w = 0; w < job.workers; w++)
        sr_raster_add_stats(total, &job.result[w].stats, &job.result[w].counters);
    return SR_OK;
}
