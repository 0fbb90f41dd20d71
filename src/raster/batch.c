/* src/raster/batch.c — batches of draws (sr_renderer_begin_batch, sr_renderer_end_batch). A frame
 * of many small draws (a thousand shapes of a hundred triangles each) cannot be shared between
 * threads draw by draw: each draw touches a few tiles, and waking the workers costs more than
 * its pixels. A batch takes such draws as they come: runs the vertex stage of each at once, on
 * the calling thread, into arrays of its own (so the caller's vertices and indices are free
 * again when the call returns), screens and sorts its triangles into the screen tiles as a
 * multi-threaded draw does (tiles.c), and keeps one record per triangle that draws: its draw,
 * its index and its span of tiles. At the batch's end (or before anything else touches the
 * framebuffer: a draw the batch does not take, a clear, a line draw) every tile's records are
 * listed in submission order and the renderer's threads draw the tiles, each its triangles in
 * that order, restricted to the tile. A pixel thus sees the triangles of every draw in the order
 * they were submitted, and every per-pixel value depends on the triangle and the pixel alone
 * (triangle.c): the image, depth, ids and statistics are those of the draws made one by one, bit
 * for bit. The arrays grow between draws, never while the tiles are drawn. Knows nothing of what
 * is drawn. */
#include "raster_internal.h"

#include <string.h>

/// Draws of more triangles or vertices than these are drawn at once (after the batch's): they
/// share their own tiles between the threads, and a batch would copy a large mesh's vertices.
#define BATCH_MAX_DRAW_TRIANGLES 4096
#define BATCH_MAX_DRAW_VERTICES 65536
/// A batch holding this many tile entries, or whose next draw would bring its vertices past
/// BATCH_MAX_VERTICES, draws what it holds before it takes more (entries, triangle records and
/// draws are numbered in 32 bits; the vertices bound the batch's memory).
#define BATCH_MAX_ENTRIES ((uint64_t)1 << 26)
#define BATCH_MAX_VERTICES ((size_t)1 << 22)
/// Batches of fewer triangles are drawn by the calling thread alone (waking workers costs more).
#define BATCH_PARALLEL_MIN_TRIANGLES 256

/* A triangle's rectangle of tiles packed as tiles.c packs it (first column | first row << 8 |
 * last column << 16 | last row << 24). */
static inline uint32_t pack_span(int first_column, int first_row, int last_column, int last_row)
{
    return (uint32_t)first_column | (uint32_t)first_row << 8 | (uint32_t)last_column << 16 | (uint32_t)last_row << 24;
}

/// A draw of the batch: the caller's description and context, its arrays as offsets into the
/// batch's (which move as they grow), made into an sr_draw_source when the batch is drawn.
typedef struct batched_draw {
    sr_draw_desc desc; ///< vertices and program NULL (used up by the vertex stage); indices: see below
    sr_draw_context context;
    size_t vertex_base;   ///< its vertex 0 in clip / screen
    size_t varying_base;  ///< its vertex 0's varyings
    size_t index_base;    ///< its indices' copy (when desc.indices was not NULL)
    size_t triangle_base; ///< its triangle 0's coverage
} batched_draw;

/// A triangle of the batch that draws.
typedef struct batched_triangle {
    uint32_t draw, triangle, span;
} batched_triangle;

struct sr_draw_batch {
    bool open;
    sr_framebuffer *fb;
    sr_tile_grid grid;
    batched_draw *draws;
    sr_draw_source *sources; ///< one per draw, filled at flush
    size_t draw_count, draw_capacity, source_capacity;
    float (*clip)[4];
    sr_screen_vertex *screen;
    size_t vertex_count, clip_capacity, screen_capacity;
    float *varyings;
    size_t varying_count, varying_capacity;
    uint32_t *indices;
    size_t index_count, index_capacity;
    uint8_t *coverage; ///< per triangle of every draw, as sr_renderer.coverage
    size_t coverage_count, coverage_capacity;
    batched_triangle *triangles;
    size_t triangle_count, triangle_capacity;
    uint64_t entry_count; ///< tiles touched, summed over the triangles
    uint32_t *entries;    ///< record indices sorted by tile (entry_capacity of them)
    size_t entry_capacity;
    uint32_t *offsets; ///< grid.count + 1: tile k's entries are [offsets[k], offsets[k + 1])
    size_t offset_capacity;
};

/* Grows `*array` (of `*capacity` elements of `size` bytes) to hold `needed`, doubling. */
static bool grow(void **array, size_t *capacity, size_t needed, size_t size)
{
    if (needed <= *capacity)
        return true;
    size_t wanted = *capacity * 2 > needed ? *capacity * 2 : needed;
    if (wanted > SIZE_MAX / size)
        return false;
    void *grown = sr_realloc(*array, wanted * size);
    if (!grown)
        return false;
    *array = grown;
    *capacity = wanted;
    return true;
}

sr_status sr_renderer_begin_batch(sr_renderer *renderer, sr_framebuffer *fb, sr_error *err)
{
    if (!renderer)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_renderer_begin_batch: renderer is NULL");
    sr_status status = sr_raster_check_framebuffer(fb, "sr_renderer_begin_batch", err);
    if (status != SR_OK)
        return status;
    // What an open batch holds goes first (into its own framebuffer).
    sr_raster_batch_flush(renderer);
    if (renderer->threads < 2)
        return SR_OK; // one thread draws the draws one by one as fast
    if (!renderer->batch) {
        renderer->batch = sr_calloc(1, sizeof *renderer->batch);
        if (!renderer->batch)
            return SR_OK; // without a batch every draw is drawn at once: the same pictures
    }
    sr_draw_batch *batch = renderer->batch;
    batch->open = true;
    batch->fb = fb;
    batch->grid = sr_raster_tile_grid(fb->width, fb->height, renderer->threads);
    return SR_OK;
}

sr_status sr_renderer_end_batch(sr_renderer *renderer, sr_error *err)
{
    if (!renderer)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_renderer_end_batch: renderer is NULL");
    sr_raster_batch_flush(renderer);
    if (renderer->batch) {
        renderer->batch->open = false;
        renderer->batch->fb = NULL;
    }
    return SR_OK;
}

bool sr_raster_batch_open(const sr_draw_batch *batch)
{
    return batch && batch->open;
}

bool sr_raster_batch_takes(const sr_draw_batch *batch, const sr_framebuffer *fb, size_t triangle_count,
                           size_t vertex_count)
{
    return batch->open && fb == batch->fb && triangle_count <= BATCH_MAX_DRAW_TRIANGLES &&
           vertex_count <= BATCH_MAX_DRAW_VERTICES;
}

/* The tiles of `bounds` as a span; adds their number to the batch's entries. */
static uint32_t span_of(sr_draw_batch *batch, sr_pixel_rect bounds)
{
    const int shift = batch->grid.shift;
    int first_column = bounds.min_x >> shift, last_column = bounds.max_x >> shift;
    int first_row = bounds.min_y >> shift, last_row = bounds.max_y >> shift;
    batch->entry_count += (uint64_t)(last_row - first_row + 1) * (uint64_t)(last_column - first_column + 1);
    return pack_span(first_column, first_row, last_column, last_row);
}

bool sr_raster_batch_add(sr_draw_batch *batch, sr_draw_job *job)
{
    const sr_draw_desc *desc = job->source.desc;
    const size_t vertex_count = desc->vertex_count, triangle_count = job->triangle_count;
    const size_t stride = (size_t)SR_ATTRIBUTE_SLOTS_FOR(job->source.context.varying_count);
    const size_t index_count = desc->indices ? job->index_count : 0;
    // A full batch is drawn before it takes more.
    if (batch->entry_count >= BATCH_MAX_ENTRIES || batch->vertex_count + vertex_count > BATCH_MAX_VERTICES)
        sr_raster_batch_flush(job->renderer);
    // Room for the draw first (nothing is changed when some array cannot grow; those that grew
    // keep their room for the next draws).
    void *draws = batch->draws, *sources = batch->sources, *clip = batch->clip, *screen = batch->screen,
         *varyings = batch->varyings, *indices = batch->indices, *coverage = batch->coverage,
         *triangles = batch->triangles;
    bool ok = grow(&draws, &batch->draw_capacity, batch->draw_count + 1, sizeof *batch->draws);
    batch->draws = draws;
    ok = ok && grow(&sources, &batch->source_capacity, batch->draw_count + 1, sizeof *batch->sources);
    batch->sources = sources;
    ok = ok && grow(&clip, &batch->clip_capacity, batch->vertex_count + vertex_count, sizeof *batch->clip);
    batch->clip = clip;
    ok = ok && grow(&screen, &batch->screen_capacity, batch->vertex_count + vertex_count, sizeof *batch->screen);
    batch->screen = screen;
    ok = ok && grow(&varyings, &batch->varying_capacity, batch->varying_count + vertex_count * stride,
                    sizeof *batch->varyings);
    batch->varyings = varyings;
    ok = ok && grow(&indices, &batch->index_capacity, batch->index_count + index_count, sizeof *batch->indices);
    batch->indices = indices;
    ok = ok &&
         grow(&coverage, &batch->coverage_capacity, batch->coverage_count + triangle_count, sizeof *batch->coverage);
    batch->coverage = coverage;
    ok = ok &&
         grow(&triangles, &batch->triangle_capacity, batch->triangle_count + triangle_count, sizeof *batch->triangles);
    batch->triangles = triangles;
    if (!ok)
        return false;

    batched_draw *draw = &batch->draws[batch->draw_count];
    draw->context = job->source.context;
    draw->vertex_base = batch->vertex_count;
    draw->varying_base = batch->varying_count;
    draw->index_base = batch->index_count;
    draw->triangle_base = batch->coverage_count;
    job->source.clip = batch->clip + draw->vertex_base;
    job->source.screen = batch->screen + draw->vertex_base;
    job->source.varyings = batch->varyings + draw->varying_base;
    job->source.coverage = batch->coverage + draw->triangle_base;
    sr_raster_vertex_stage(job);

    // The draw as the tiles will read it: its indices copied, what the vertex stage used dropped.
    draw->desc = *desc;
    draw->desc.vertices = NULL;
    draw->desc.program = NULL;
    if (desc->indices) {
        memcpy(batch->indices + draw->index_base, desc->indices, index_count * sizeof *batch->indices);
        draw->desc.indices = batch->indices + draw->index_base;
    }
    job->source.desc = &draw->desc;

    // The sorting into tiles of tiles.c (bin_chunk): screened in batches of triangles, those that
    // draw nothing counted and dropped.
    const sr_draw_source *source = &job->source;
    const uint32_t draw_index = (uint32_t)batch->draw_count;
    sr_raster_stats stats = {0};
    sr_triangle_verdicts verdicts;
    for (size_t t = 0; t < triangle_count; t++) {
        const size_t lane = t % SR_TRIANGLE_BATCH;
        if (lane == 0 && triangle_count - t >= SR_TRIANGLE_BATCH)
            sr_raster_screen_triangles(source, t, &verdicts);
        else if (lane == 0)
            for (int i = 0; i < SR_TRIANGLE_BATCH; i++)
                verdicts.verdict[i] = SR_BATCH_SCALAR;
        const int verdict = verdicts.verdict[lane];
        sr_pixel_rect bounds;
        source->coverage[t] = 0;
        if (verdict == SR_BATCH_DRAW) {
            stats.triangles_rasterized++;
            bounds =
                (sr_pixel_rect){verdicts.min_x[lane], verdicts.min_y[lane], verdicts.max_x[lane], verdicts.max_y[lane]};
            source->coverage[t] = (uint8_t)verdicts.covered[lane];
        } else if (sr_raster_count_screened(verdict, &stats) ||
                   !sr_raster_triangle_bounds(source, t, &bounds, &stats)) {
            continue;
        }
        batch->triangles[batch->triangle_count++] =
            (batched_triangle){.draw = draw_index, .triangle = (uint32_t)t, .span = span_of(batch, bounds)};
    }
    batch->draw_count++;
    batch->vertex_count += vertex_count;
    batch->varying_count += vertex_count * stride;
    batch->index_count += index_count;
    batch->coverage_count += triangle_count;
    sr_renderer *renderer = job->renderer;
    renderer->stats.triangles_in += triangle_count;
    const sr_fragment_counters none = {0, 0};
    sr_raster_add_stats(&renderer->stats, &stats, &none);
    return true;
}

/// The drawing of a batch's tiles by the renderer's threads.
typedef struct flush_job {
    const sr_draw_batch *batch;
    int workers;
    /// Tiles claimed from each worker's home tiles (sr_raster_home_rows), each on a line of its own.
    struct {
        _Alignas(64) _Atomic uint64_t claimed;
    } tile_next[SR_MAX_THREADS];
    struct {
        _Alignas(64) sr_fragment_counters counters;
    } result[SR_MAX_THREADS];
} flush_job;

/* Draws tile `tile`'s triangles in submission order. */
static void draw_tile(const sr_draw_batch *batch, int tile, sr_fragment_counters *counters)
{
    const sr_tile_grid grid = batch->grid;
    const int column = tile % grid.columns, row = tile / grid.columns;
    const int min_x = column * grid.size, min_y = row * grid.size;
    const int max_x = min_x + grid.size - 1, max_y = min_y + grid.size - 1;
    const sr_pixel_rect rect = {min_x, min_y, max_x < batch->fb->width ? max_x : batch->fb->width - 1,
                                max_y < batch->fb->height ? max_y : batch->fb->height - 1};
    for (uint32_t e = batch->offsets[tile]; e < batch->offsets[tile + 1]; e++) {
        const batched_triangle *record = &batch->triangles[batch->entries[e]];
        sr_raster_draw_in_rect(&batch->sources[record->draw], record->triangle, &rect, counters);
    }
}

/* Every worker: its home tiles (those whose rows it cleared), then what is left of the others',
 * as multi-threaded draws share them (tiles.c). */
static void draw_tiles(void *data, int worker)
{
    flush_job *job = data;
    const sr_tile_grid *grid = &job->batch->grid;
    sr_fragment_counters counters = {0, 0};
    for (int k = 0; k < job->workers; k++) {
        const int owner = (worker + k) % job->workers;
        int first_row, end_row;
        sr_raster_home_rows(grid, job->workers, owner, &first_row, &end_row);
        const int rows = end_row - first_row;
        const uint64_t count = (uint64_t)rows * (uint64_t)grid->columns;
        for (;;) {
            uint64_t claimed = atomic_fetch_add_explicit(&job->tile_next[owner].claimed, 1, memory_order_relaxed);
            if (claimed >= count)
                break;
            int column = (int)(claimed / (uint64_t)rows), row = first_row + (int)(claimed % (uint64_t)rows);
            draw_tile(job->batch, row * grid->columns + column, &counters);
        }
    }
    job->result[worker].counters = counters;
}

/* The sources of the batch's draws, pointing into its arrays as they are now. */
static void make_sources(sr_draw_batch *batch)
{
    for (size_t d = 0; d < batch->draw_count; d++) {
        batched_draw *draw = &batch->draws[d];
        if (draw->desc.indices)
            draw->desc.indices = batch->indices + draw->index_base;
        batch->sources[d] = (sr_draw_source){
            .desc = &draw->desc,
            .context = draw->context,
            .clip = batch->clip + draw->vertex_base,
            .screen = batch->screen + draw->vertex_base,
            .varyings = batch->varyings + draw->varying_base,
            .coverage = batch->coverage + draw->triangle_base,
        };
    }
}

/* Lists each tile's records in submission order (a counting sort). False when the lists do not
 * fit in memory. */
static bool sort_into_tiles(sr_draw_batch *batch)
{
    const sr_tile_grid grid = batch->grid;
    void *offsets = batch->offsets, *entries = batch->entries;
    bool ok = grow(&offsets, &batch->offset_capacity, (size_t)grid.count + 1, sizeof *batch->offsets);
    batch->offsets = offsets;
    ok = ok && batch->entry_count <= SIZE_MAX &&
         grow(&entries, &batch->entry_capacity, (size_t)batch->entry_count, sizeof *batch->entries);
    batch->entries = entries;
    if (!ok)
        return false;
    uint32_t *counts = batch->offsets + 1;
    memset(batch->offsets, 0, ((size_t)grid.count + 1) * sizeof *batch->offsets);
    for (size_t i = 0; i < batch->triangle_count; i++) {
        const uint32_t span = batch->triangles[i].span;
        const int first_column = (int)(span & 0xffu), first_row = (int)(span >> 8 & 0xffu);
        const int last_column = (int)(span >> 16 & 0xffu), last_row = (int)(span >> 24);
        for (int row = first_row; row <= last_row; row++)
            for (int column = first_column; column <= last_column; column++)
                counts[row * grid.columns + column]++;
    }
    // counts[tile] becomes the start of the tile's entries, then (advanced by each entry written)
    // their end, which is the start of tile + 1.
    uint32_t running = 0;
    for (int tile = 0; tile < grid.count; tile++) {
        const uint32_t count = counts[tile];
        counts[tile] = running;
        running += count;
    }
    for (size_t i = 0; i < batch->triangle_count; i++) {
        const uint32_t span = batch->triangles[i].span;
        const int first_column = (int)(span & 0xffu), first_row = (int)(span >> 8 & 0xffu);
        const int last_column = (int)(span >> 16 & 0xffu), last_row = (int)(span >> 24);
        for (int row = first_row; row <= last_row; row++)
            for (int column = first_column; column <= last_column; column++)
                batch->entries[counts[row * grid.columns + column]++] = (uint32_t)i;
    }
    batch->offsets[0] = 0;
    return true;
}

void sr_raster_batch_flush(sr_renderer *renderer)
{
    sr_draw_batch *batch = renderer ? renderer->batch : NULL;
    if (!batch || batch->draw_count == 0)
        return;
    make_sources(batch);
    sr_fragment_counters total = {0, 0};
    if (sort_into_tiles(batch)) {
        flush_job job = {.batch = batch};
        job.workers = batch->triangle_count >= BATCH_PARALLEL_MIN_TRIANGLES ? renderer->threads : 1;
        for (int w = 0; w < SR_MAX_THREADS; w++)
            atomic_init(&job.tile_next[w].claimed, 0);
        // Workers that do not join leave their counters as they are here.
        memset(job.result, 0, sizeof job.result[0] * (size_t)job.workers);
        sr_raster_run(renderer, job.workers, draw_tiles, &job);
        for (int w = 0; w < job.workers; w++) {
            total.shaded += job.result[w].counters.shaded;
            total.written += job.result[w].counters.written;
        }
    } else {
        // No room for the tiles' lists: the triangles one after the other over the whole
        // framebuffer, on this thread (the same pixels).
        const sr_pixel_rect whole = {0, 0, batch->fb->width - 1, batch->fb->height - 1};
        for (size_t i = 0; i < batch->triangle_count; i++) {
            const batched_triangle *record = &batch->triangles[i];
            sr_raster_draw_in_rect(&batch->sources[record->draw], record->triangle, &whole, &total);
        }
    }
    renderer->stats.fragments_shaded += total.shaded;
    renderer->stats.fragments_written += total.written;
    batch->draw_count = batch->vertex_count = batch->varying_count = batch->index_count = 0;
    batch->coverage_count = batch->triangle_count = 0;
    batch->entry_count = 0;
}

void sr_raster_batch_destroy(sr_draw_batch *batch)
{
    if (!batch)
        return;
    sr_free(batch->draws);
    sr_free(batch->sources);
    sr_free(batch->clip);
    sr_free(batch->screen);
    sr_free(batch->varyings);
    sr_free(batch->indices);
    sr_free(batch->coverage);
    sr_free(batch->triangles);
    sr_free(batch->entries);
    sr_free(batch->offsets);
    sr_free(batch);
}
