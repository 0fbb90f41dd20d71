/* src/raster/pipeline.c — the renderer (scratch memory, statistics, worker threads) and
 * sr_draw_triangles: argument validation, vertex processing through the post-transform cache
 * (the vertex function runs once per referenced vertex per draw), primitive assembly, trivial
 * rejection, and the hand-off of each triangle to clipping (clip.c) and setup/rasterisation
 * (triangle.c). With several threads, vertices are split into ranges and the screen into bands
 * of rows (SR_BAND_HEIGHT) dealt round-robin; every thread walks all triangles in order, so the
 * image is the single-threaded one bit for bit. Knows nothing of scenes, meshes or files. */
#include "raster_internal.h"

#include <string.h>

/// How many triangles ahead the triangle loop prefetches framebuffer rows.
#define PREFETCH_DISTANCE 2

static void *worker_main(void *argument)
{
    struct sr_worker_start *start = argument;
    sr_worker_pool *pool = start->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (pool->generation == seen && !pool->quit)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->quit)
            break;
        seen = pool->generation;
        void (*job)(void *, int) = pool->job;
        void *data = pool->data;
        pthread_mutex_unlock(&pool->lock);
        job(data, start->index);
        pthread_mutex_lock(&pool->lock);
        if (--pool->pending == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* Stops and joins the first `started` workers and frees the pool. */
static void pool_destroy(sr_worker_pool *pool, int started)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->quit = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < started; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    sr_free(pool);
}

static sr_status pool_create(int count, sr_worker_pool **out, sr_error *err)
{
    sr_worker_pool *pool = sr_calloc(1, sizeof *pool);
    if (!pool)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: out of memory");
    pool->count = count;
    if (pthread_mutex_init(&pool->lock, NULL) != 0) {
        sr_free(pool);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: cannot create a mutex");
    }
    if (pthread_cond_init(&pool->wake, NULL) != 0) {
        pthread_mutex_destroy(&pool->lock);
        sr_free(pool);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: cannot create a condition variable");
    }
    if (pthread_cond_init(&pool->done, NULL) != 0) {
        pthread_cond_destroy(&pool->wake);
        pthread_mutex_destroy(&pool->lock);
        sr_free(pool);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: cannot create a condition variable");
    }
    for (int i = 0; i < count; i++) {
        pool->starts[i] = (struct sr_worker_start){pool, i + 1};
        if (pthread_create(&pool->threads[i], NULL, worker_main, &pool->starts[i]) != 0) {
            pool_destroy(pool, i);
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: cannot start worker thread %d of %d",
                                i + 1, count);
        }
    }
    *out = pool;
    return SR_OK;
}

/* Runs job(data, worker) on every worker, the calling thread being worker 0, and waits. */
static void pool_run(sr_worker_pool *pool, void (*job)(void *, int), void *data)
{
    pthread_mutex_lock(&pool->lock);
    pool->job = job;
    pool->data = data;
    pool->pending = pool->count;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    job(data, 0);
    pthread_mutex_lock(&pool->lock);
    while (pool->pending > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}

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
    if (renderer->threads > 1) {
        sr_status status = pool_create(renderer->threads - 1, &renderer->pool, err);
        if (status != SR_OK) {
            sr_free(renderer);
            return status;
        }
    }
    *out = renderer;
    return SR_OK;
}

void sr_renderer_destroy(sr_renderer *renderer)
{
    if (!renderer)
        return;
    if (renderer->pool)
        pool_destroy(renderer->pool, renderer->pool->count);
    sr_free(renderer->clip);
    sr_free(renderer->screen);
    sr_free(renderer->varyings);
    sr_free(renderer->stamps);
    sr_free(renderer);
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
    if (!program->fragment)
        return sr_error_set(err, invalid, "sr_draw_triangles: program \"%s\": fragment function is NULL", name);
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

/* One draw as a job for the workers: vertex processing over a vertex range, then every worker
 * walks all triangles and draws those parts that fall in its bands. */
typedef struct draw_job {
    sr_renderer *renderer;
    const sr_draw_desc *desc;
    sr_draw_context context;
    size_t triangle_count;
    size_t vertex_first, vertex_end; ///< vertices to transform (those marked, when indexed)
    int workers;
    struct {
        sr_raster_stats stats;
        sr_fragment_counters counters;
        char padding[64]; ///< keeps workers' counters on separate cache lines
    } result[SR_MAX_THREADS];
} draw_job;

/* Marks the vertices the draw references (stamps) and finds the range to transform. Runs on the
 * calling thread before the workers start. */
static void mark_vertices(draw_job *job, size_t index_count)
{
    sr_renderer *renderer = job->renderer;
    const sr_draw_desc *desc = job->desc;
    size_t vertex_count = desc->vertex_count;
    job->vertex_first = 0;
    job->vertex_end = index_count < vertex_count && !desc->indices ? index_count : vertex_count;
    if (!desc->indices)
        return;
    if (++renderer->stamp == 0) {
        // The stamp wrapped around: forget every old mark once every 2^32 draws.
        if (renderer->stamps)
            memset(renderer->stamps, 0, renderer->capacity * sizeof *renderer->stamps);
        renderer->stamp = 1;
    }
    uint32_t stamp = renderer->stamp;
    uint32_t *stamps = renderer->stamps;
    size_t low = SIZE_MAX, high = 0;
    for (size_t i = 0; i < index_count; i++) {
        size_t index = desc->indices[i];
        if (index < vertex_count) {
            stamps[index] = stamp;
            low = index < low ? index : low;
            high = index > high ? index : high;
        }
    }
    job->vertex_first = low == SIZE_MAX ? 0 : low;
    job->vertex_end = low == SIZE_MAX ? 0 : high + 1;
}

/* Runs the vertex function once for every referenced vertex of this worker's share of the range,
 * and classifies/projects each result once: triangles then only read the cache. */
static void transform_vertices(void *data, int worker)
{
    draw_job *job = data;
    sr_renderer *renderer = job->renderer;
    const sr_draw_desc *desc = job->desc;
    const sr_program *program = desc->program;
    int varying_count = program->varying_count;
    size_t stride = (size_t)SR_ATTRIBUTE_SLOTS_FOR(varying_count);
    const char *vertices = desc->vertices;
    size_t span = job->vertex_end - job->vertex_first;
    size_t first = job->vertex_first + span * (size_t)worker / (size_t)job->workers;
    size_t end = job->vertex_first + span * (size_t)(worker + 1) / (size_t)job->workers;
    for (size_t v = first; v < end; v++) {
        if (desc->indices && renderer->stamps[v] != renderer->stamp)
            continue;
        float *clip = renderer->clip[v];
        clip[0] = clip[1] = clip[2] = 0.0f;
        clip[3] = 1.0f;
        float *varyings = renderer->varyings + v * stride;
        program->vertex(vertices + v * desc->vertex_stride, program->uniforms, clip, varyings);
        for (int i = varying_count; i < (int)stride; i++)
            varyings[i] = 0.0f;
        renderer->screen[v] = sr_raster_project(clip, &job->context.viewport);
    }
}

/* First band at or after band `band` that belongs to `worker`. */
static int first_owned_band(int band, int worker, int workers)
{
    return band + ((worker - band % workers) % workers + workers) % workers;
}

/* Rasterises a set-up triangle over the bands of `worker` (everything with one worker). */
static void fill_owned(const sr_draw_context *context, const sr_triangle_setup *setup, int worker, int workers,
                       sr_fragment_counters *counters)
{
    int width = context->viewport.width, height = context->viewport.height;
    if (workers == 1) {
        sr_raster_fill_triangle(context, setup, (sr_pixel_rect){0, 0, width - 1, height - 1}, counters);
        return;
    }
    int last = setup->bounds.max_y / SR_BAND_HEIGHT;
    for (int band = first_owned_band(setup->bounds.min_y / SR_BAND_HEIGHT, worker, workers); band <= last;
         band += workers) {
        int top = band * SR_BAND_HEIGHT,
            bottom = top + SR_BAND_HEIGHT - 1 < height ? top + SR_BAND_HEIGHT - 1 : height - 1;
        sr_raster_fill_triangle(context, setup, (sr_pixel_rect){0, top, width - 1, bottom}, counters);
    }
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

/* Clips a triangle against the planes its vertices are outside of, fan-triangulates the convex
 * result and rasterises each piece. Returns true when any piece reached the rasteriser. */
static bool draw_clipped(const sr_renderer *renderer, const sr_draw_context *context, const size_t index[3],
                         uint32_t planes, uint32_t primitive_id, int worker, int workers,
                         sr_fragment_counters *counters)
{
    sr_clip_vertex polygon[SR_CLIP_MAX_VERTICES];
    float scratch[SR_ATTRIBUTE_SLOTS];
    size_t stride = (size_t)SR_ATTRIBUTE_SLOTS_FOR(context->varying_count);
    int slots = SR_ATTRIBUTE_SLOTS_FOR(context->attribute_count);
    for (int k = 0; k < 3; k++) {
        for (int c = 0; c < 4; c++)
            polygon[k].clip[c] = renderer->clip[index[k]][c];
        polygon[k].corner = k;
        const float *attributes = vertex_attributes(context, renderer->varyings + index[k] * stride, k, scratch);
        memcpy(polygon[k].attributes, attributes, (size_t)slots * sizeof(float));
    }
    // The zero padding is interpolated along (it stays zero).
    int count = sr_raster_clip_polygon(polygon, 3, planes, slots, &context->viewport);
    sr_screen_vertex screen[SR_CLIP_MAX_VERTICES];
    for (int k = 0; k < count; k++) {
        // A corner that needed no clipping keeps the cache's projection, bit for bit the one its
        // unclipped neighbours use; only new (or borderline) vertices are projected here.
        int corner = polygon[k].corner;
        if (corner >= 0 && !(renderer->screen[index[corner]].flags & SR_CLIP_MASK))
            screen[k] = renderer->screen[index[corner]];
        else if (!sr_raster_project_clipped(polygon[k].clip, &context->viewport, &screen[k]))
            return false;
    }
    bool drawn = false;
    sr_triangle_setup setup;
    for (int k = 1; k + 1 < count; k++) {
        const float *const attributes[3] = {polygon[0].attributes, polygon[k].attributes, polygon[k + 1].attributes};
        if (sr_raster_setup_triangle(context, &screen[0], &screen[k], &screen[k + 1], attributes, primitive_id,
                                     &setup) == SR_SETUP_OK) {
            fill_owned(context, &setup, worker, workers, counters);
            drawn = true;
        }
    }
    return drawn;
}

/* The triangle loop of one worker: every worker walks all triangles in submission order and draws
 * their parts in its own bands, so each pixel sees the triangles in the order of a single thread.
 * Triangle counters are kept by one worker per triangle: the owner of the band of its first row
 * (worker 0 for triangles rejected before their rows are known). */
static void draw_triangles(void *data, int worker)
{
    draw_job *job = data;
    const sr_renderer *renderer = job->renderer;
    const sr_draw_desc *desc = job->desc;
    const sr_draw_context *context = &job->context;
    const int workers = job->workers;
    const bool first_worker = worker == 0;
    sr_raster_stats stats = {0};
    sr_fragment_counters counters = {0, 0};
    const size_t vertex_count = desc->vertex_count;
    const size_t varying_stride = (size_t)SR_ATTRIBUTE_SLOTS_FOR(desc->program->varying_count);
    const uint32_t *indices = desc->indices;
    const sr_screen_vertex *screen = renderer->screen;
    const size_t triangle_count = job->triangle_count;
    sr_triangle_setup setup;
    float scratch[3][SR_ATTRIBUTE_SLOTS];
    for (size_t t = 0; t < triangle_count; t++) {
        size_t ahead = t + PREFETCH_DISTANCE;
        if (workers == 1 && ahead < triangle_count) {
            size_t a = indices ? indices[3 * ahead] : 3 * ahead, b = indices ? indices[3 * ahead + 1] : 3 * ahead + 1;
            size_t c = indices ? indices[3 * ahead + 2] : 3 * ahead + 2;
            if (a < vertex_count && b < vertex_count && c < vertex_count)
                sr_raster_prefetch_triangle(context, &screen[a], &screen[b], &screen[c]);
        }
        size_t index[3];
        if (indices) {
            index[0] = indices[3 * t];
            index[1] = indices[3 * t + 1];
            index[2] = indices[3 * t + 2];
        } else {
            index[0] = 3 * t;
            index[1] = 3 * t + 1;
            index[2] = 3 * t + 2;
        }
        if (index[0] >= vertex_count || index[1] >= vertex_count || index[2] >= vertex_count) {
            stats.triangles_skipped += first_worker;
            continue;
        }
        const sr_screen_vertex *v0 = &screen[index[0]], *v1 = &screen[index[1]], *v2 = &screen[index[2]];
        uint32_t any = v0->flags | v1->flags | v2->flags;
        uint32_t all_flags = v0->flags & v1->flags & v2->flags;
        if (any & SR_VERTEX_NONFINITE) {
            stats.triangles_skipped += first_worker;
            continue;
        }
        if (all_flags & SR_REJECT_MASK) {
            // Entirely on the outer side of one plane of the view volume.
            stats.triangles_culled += first_worker;
            continue;
        }
        uint32_t primitive_id = desc->primitive_id_base + (uint32_t)t;
        if (any & SR_CLIP_MASK) {
            // Rare: every worker clips (deterministically) and draws the pieces in its bands.
            bool drawn =
                draw_clipped(renderer, context, index, any & SR_CLIP_MASK, primitive_id, worker, workers, &counters);
            stats.triangles_clipped += first_worker;
            stats.triangles_rasterized += first_worker && drawn;
            stats.triangles_culled += first_worker && !drawn;
            continue;
        }
        bool owner = true;
        if (workers > 1) {
            // Skip triangles that touch none of this worker's bands before any set-up work.
            int min_y, max_y;
            sr_raster_pixel_rows(v0, v1, v2, context->viewport.height, &min_y, &max_y);
            if (min_y > max_y) {
                stats.triangles_culled += first_worker;
                continue;
            }
            int first_band = min_y / SR_BAND_HEIGHT;
            owner = first_band % workers == worker;
            if (!owner && first_owned_band(first_band, worker, workers) > max_y / SR_BAND_HEIGHT)
                continue;
        }
        const float *const attributes[3] = {
            vertex_attributes(context, renderer->varyings + index[0] * varying_stride, 0, scratch[0]),
            vertex_attributes(context, renderer->varyings + index[1] * varying_stride, 1, scratch[1]),
            vertex_attributes(context, renderer->varyings + index[2] * varying_stride, 2, scratch[2]),
        };
        if (sr_raster_setup_triangle(context, v0, v1, v2, attributes, primitive_id, &setup) != SR_SETUP_OK) {
            stats.triangles_culled += owner;
            continue;
        }
        fill_owned(context, &setup, worker, workers, &counters);
        stats.triangles_rasterized += owner;
    }
    job->result[worker].stats = stats;
    job->result[worker].counters = counters;
}

/// Draws smaller than this many triangles stay on the calling thread (waking workers costs more).
#define PARALLEL_MIN_TRIANGLES 256

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

    draw_job job;
    job.renderer = renderer;
    job.desc = desc;
    job.context = (sr_draw_context){
        .fb = fb,
        .viewport = sr_raster_viewport(fb->width, fb->height),
        .fragment = program->fragment,
        .uniforms = program->uniforms,
        .varying_count = program->varying_count,
        .attribute_count = program->varying_count + (program->uses_barycentrics ? 3 : 0),
        .barycentrics = program->uses_barycentrics,
        .late_depth = program->writes_depth,
        .state = desc->state,
    };
    job.triangle_count = index_count / 3;
    job.workers = renderer->pool && job.triangle_count >= PARALLEL_MIN_TRIANGLES ? renderer->threads : 1;
    mark_vertices(&job, index_count);
    if (job.workers > 1) {
        pool_run(renderer->pool, transform_vertices, &job);
        pool_run(renderer->pool, draw_triangles, &job);
    } else {
        transform_vertices(&job, 0);
        draw_triangles(&job, 0);
    }

    sr_raster_stats *total = &renderer->stats;
    total->triangles_in += job.triangle_count;
    for (int w = 0; w < job.workers; w++) {
        const sr_raster_stats *stats = &job.result[w].stats;
        total->triangles_culled += stats->triangles_culled;
        total->triangles_clipped += stats->triangles_clipped;
        total->triangles_skipped += stats->triangles_skipped;
        total->triangles_rasterized += stats->triangles_rasterized;
        total->fragments_shaded += job.result[w].counters.shaded;
        total->fragments_written += job.result[w].counters.written;
    }
    return SR_OK;
}
