/* src/raster/tiles.c — the triangle stage of multi-threaded draws. The triangles are first
 * sorted ("binned") into the square screen tiles their pixel bounds touch, in chunks of
 * consecutive triangles that the workers claim from a shared counter: each chunk writes, per
 * tile, the indices of its triangles in submission order (a counting sort: count per tile,
 * reserve the chunk's block of entries, fill). The sorting screens its triangles in batches as
 * one-thread draws do (triangle_batch.c): those that draw nothing are counted and dropped, those
 * found drawing are sorted by the batch's bounds, and a triangle within one block keeps the
 * batch's coverage (renderer->coverage), which its tiles' setup then does not compute again.
 * Then the workers claim tiles one at a time and draw
 * each tile's triangles, chunk after chunk, restricted to the tile's pixels. Every pixel thus
 * sees its triangles in the single-threaded order, and every per-pixel value depends on the
 * triangle and the pixel alone (triangle.c), so the image is the single-threaded one bit for bit
 * whatever the number of threads; large triangles are split between threads like small ones.
 * Knows nothing of vertex processing (pipeline.c) or of the per-pixel code (triangle.c). */
#include "raster_internal.h"

#include <string.h>

/* A triangle's rectangle of tiles packed in 32 bits: first column | first row << 8 | last column
 * << 16 | last row << 24 (SR_MAX_TILES_PER_SIDE = 256). SPAN_NONE (first column 255 > last 0)
 * marks a triangle that draws nothing. */
#define SPAN_NONE 0xffu
/* offsets[0] of a chunk whose entries did not fit: its tiles look through its spans instead. */
#define CHUNK_OVERFLOW UINT32_MAX
/* Entries the arena grows to at most (64 MiB), unless a draw has more than a quarter as many
 * triangles. */
#define MAX_ENTRIES ((size_t)1 << 24)

static inline uint32_t pack_span(int first_column, int first_row, int last_column, int last_row)
{
    return (uint32_t)first_column | (uint32_t)first_row << 8 | (uint32_t)last_column << 16 | (uint32_t)last_row << 24;
}

static sr_tile_grid grid_of(int width, int height, int shift)
{
    sr_tile_grid grid = {.size = 1 << shift, .shift = shift};
    grid.columns = (width + grid.size - 1) >> shift;
    grid.rows = (height + grid.size - 1) >> shift;
    grid.count = grid.columns * grid.rows;
    return grid;
}

static bool grid_fits(const sr_tile_grid *grid)
{
    return grid->columns <= SR_MAX_TILES_PER_SIDE && grid->rows <= SR_MAX_TILES_PER_SIDE && grid->count <= SR_MAX_TILES;
}

sr_tile_grid sr_raster_tile_grid(int width, int height, int workers)
{
    int shift = 0, smallest = 0;
    while (1 << shift < SR_TILE_SIZE)
        shift++;
    while (1 << smallest < SR_MIN_TILE_SIZE)
        smallest++;
    sr_tile_grid grid = grid_of(width, height, shift);
    // Smaller tiles while there are too few for the threads (and the smaller grid still fits)...
    while (shift > smallest && grid.count < SR_TILES_PER_WORKER * workers) {
        sr_tile_grid finer = grid_of(width, height, shift - 1);
        if (!grid_fits(&finer))
            break;
        grid = finer;
        shift--;
    }
    // ... larger ones while the grid does not fit.
    while (!grid_fits(&grid))
        grid = grid_of(width, height, ++shift);
    return grid;
}

/* Grows `*array` (of `*capacity` elements of `size` bytes) to hold `needed`. */
static bool grow(void **array, size_t *capacity, size_t needed, size_t size)
{
    if (needed <= *capacity)
        return true;
    if (needed > SIZE_MAX / size)
        return false;
    void *grown = sr_realloc(*array, needed * size);
    if (!grown)
        return false;
    *array = grown;
    *capacity = needed;
    return true;
}

sr_status sr_raster_reserve_tiles(sr_renderer *renderer, size_t triangle_count, uint64_t chunks,
                                  const sr_tile_grid *grid, sr_error *err)
{
    // Entries: what the last draw needed, and at least one per triangle and a few per tile (most
    // triangles of a large mesh touch one tile), but not without bound: a draw of many triangles
    // that each cover much of the screen would want one entry per tile each, and draws the
    // chunks that find no room from their spans instead (the work per triangle is large there
    // anyway). Offsets stay below CHUNK_OVERFLOW.
    size_t entries = triangle_count + triangle_count / 4 + 4 * (size_t)grid->count;
    size_t most = MAX_ENTRIES > 4 * triangle_count ? MAX_ENTRIES : 4 * triangle_count;
    size_t wanted = renderer->entries_wanted < most ? renderer->entries_wanted : most;
    entries = wanted > entries ? wanted : entries;
    entries = entries < (size_t)CHUNK_OVERFLOW - 1 ? entries : (size_t)CHUNK_OVERFLOW - 1;
    void *spans = renderer->spans, *offsets = renderer->offsets, *entry_array = renderer->entries;
    bool ok = grow(&spans, &renderer->span_capacity, triangle_count, sizeof(uint32_t));
    renderer->spans = spans;
    void *coverage = renderer->coverage;
    ok = ok && grow(&coverage, &renderer->coverage_capacity, triangle_count, sizeof(uint8_t));
    renderer->coverage = coverage;
    ok = ok && chunks <= SIZE_MAX / ((size_t)grid->count + 1) &&
         grow(&offsets, &renderer->offset_capacity, (size_t)chunks * ((size_t)grid->count + 1), sizeof(uint32_t));
    renderer->offsets = offsets;
    ok = ok && grow(&entry_array, &renderer->entry_capacity, entries, sizeof(uint32_t));
    renderer->entries = entry_array;
    if (!ok)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY,
                            "sr_draw_triangles: out of memory for the bins of %zu triangles", triangle_count);
    return SR_OK;
}

/* Triangle t's span of tiles (spans[t]) from its pixel bounds, and its count in each of them.
 * Returns the number of tiles it touches. */
static inline uint64_t bin_bounds(const sr_draw_job *job, size_t t, sr_pixel_rect bounds, uint32_t *counts)
{
    const sr_tile_grid grid = job->grid;
    int first_column = bounds.min_x >> grid.shift, last_column = bounds.max_x >> grid.shift;
    int first_row = bounds.min_y >> grid.shift, last_row = bounds.max_y >> grid.shift;
    job->renderer->spans[t] = pack_span(first_column, first_row, last_column, last_row);
    if (first_column == last_column && first_row == last_row) { /* most triangles of a large mesh */
        counts[first_row * grid.columns + first_column]++;
        return 1;
    }
    for (int row = first_row; row <= last_row; row++)
        for (int column = first_column; column <= last_column; column++)
            counts[row * grid.columns + column]++;
    return (uint64_t)(last_row - first_row + 1) * (uint64_t)(last_column - first_column + 1);
}

bool sr_raster_triangle_bounds(const sr_draw_source *source, size_t t, sr_pixel_rect *bounds, sr_raster_stats *stats)
{
    const sr_draw_desc *desc = source->desc;
    const sr_draw_context *context = &source->context;
    const sr_screen_vertex *screen = source->screen;
    size_t index[3];
    if (!sr_raster_triangle_indices(desc, t, index)) {
        stats->triangles_skipped++;
        return false;
    }
    const sr_screen_vertex *v0 = &screen[index[0]], *v1 = &screen[index[1]], *v2 = &screen[index[2]];
    uint32_t any = v0->flags | v1->flags | v2->flags;
    if (any & SR_VERTEX_NONFINITE) {
        stats->triangles_skipped++;
        return false;
    }
    if (v0->flags & v1->flags & v2->flags & SR_REJECT_MASK) {
        stats->triangles_culled++;
        return false;
    }
    if (any & SR_CLIP_MASK) {
        // Clipped here once to find the pieces' bounds (and again, per tile, to draw them).
        bool backfacing;
        bool drawn = sr_raster_draw_clipped(source, index, any & SR_CLIP_MASK, desc->primitive_id_base + (uint32_t)t,
                                            NULL, NULL, bounds, &backfacing);
        stats->triangles_clipped++;
        stats->triangles_rasterized += drawn;
        stats->triangles_culled += !drawn;
        stats->triangles_backfacing += backfacing;
        return drawn;
    }
    // Setup's own verdict: a triangle sorted into tiles always reaches the rasteriser.
    sr_setup_result verdict = sr_raster_classify_triangle(context, v0, v1, v2, bounds);
    if (verdict != SR_SETUP_OK) {
        stats->triangles_culled++;
        stats->triangles_backfacing += verdict == SR_SETUP_BACKFACE;
        return false;
    }
    stats->triangles_rasterized++;
    return true;
}

/* Pass 1 of bin_chunk for triangle t, which the screening left undecided: its verdict and
 * statistics, its span of tiles and its count in each of them (bin_bounds). Returns the number
 * of tiles it touches. */
static uint64_t bin_one(sr_draw_job *job, size_t t, uint32_t *counts, sr_raster_stats *stats)
{
    sr_pixel_rect bounds;
    return sr_raster_triangle_bounds(&job->source, t, &bounds, stats) ? bin_bounds(job, t, bounds, counts) : 0;
}

/* Sorts one chunk of triangles into tiles and keeps the statistics of each of its triangles
 * (every triangle is examined here once; the tiles only draw). */
static void bin_chunk(sr_draw_job *job, uint64_t chunk, sr_raster_stats *stats)
{
    sr_renderer *renderer = job->renderer;
    uint32_t *spans = renderer->spans;
    const sr_tile_grid grid = job->grid;
    uint32_t *offsets = renderer->offsets + (size_t)chunk * ((size_t)grid.count + 1);
    // Pass 1: counts per tile in offsets[1 + tile].
    memset(offsets, 0, ((size_t)grid.count + 1) * sizeof *offsets);
    uint32_t *counts = offsets + 1;
    const size_t first = (size_t)chunk * job->bin_chunk;
    const size_t end = first + job->bin_chunk < job->triangle_count ? first + job->bin_chunk : job->triangle_count;
    uint64_t total = 0;
    // Screened in batches as one-thread draws are (pipeline.c): a triangle that draws nothing
    // is counted and never sorted into a tile.
    sr_triangle_verdicts verdicts;
    for (size_t t = first; t < end; t++) {
        const size_t lane = (t - first) % SR_TRIANGLE_BATCH;
        if (lane == 0 && end - t >= SR_TRIANGLE_BATCH)
            sr_raster_screen_triangles(&job->source, t, &verdicts);
        else if (lane == 0)
            for (int i = 0; i < SR_TRIANGLE_BATCH; i++)
                verdicts.verdict[i] = SR_BATCH_SCALAR;
        const int verdict = verdicts.verdict[lane];
        if (verdict == SR_BATCH_DRAW) {
            /* setup's verdict and bounds are the batch's */
            stats->triangles_rasterized++;
            const sr_pixel_rect bounds = {verdicts.min_x[lane], verdicts.min_y[lane], verdicts.max_x[lane],
                                          verdicts.max_y[lane]};
            _Static_assert(SR_BLOCK_WIDTH * SR_BLOCK_HEIGHT <= 8, "one block's coverage fits a byte");
            renderer->coverage[t] = (uint8_t)verdicts.covered[lane];
            total += bin_bounds(job, t, bounds, counts);
            continue;
        }
        renderer->coverage[t] = 0;
        spans[t] = SPAN_NONE;
        if (sr_raster_count_screened(verdict, stats))
            continue;
        total += bin_one(job, t, counts, stats);
    }
    // The chunk's block of entries; a chunk that finds no room draws from its spans.
    uint64_t base = atomic_fetch_add_explicit(&job->entries_used, total, memory_order_relaxed);
    if (base + total > renderer->entry_capacity) {
        offsets[0] = CHUNK_OVERFLOW;
        return;
    }
    // Pass 2: offsets[1 + tile] becomes the start of the tile's entries, then (advanced by each
    // entry written) their end, which is the start of tile + 1: tile k's entries are
    // [offsets[k], offsets[k + 1]).
    uint32_t running = (uint32_t)base;
    offsets[0] = running;
    for (int tile = 0; tile < grid.count; tile++) {
        uint32_t count = counts[tile];
        counts[tile] = running;
        running += count;
    }
    uint32_t *entries = renderer->entries;
    for (size_t t = first; t < end; t++) {
        uint32_t span = spans[t];
        if (span == SPAN_NONE)
            continue;
        int first_column = (int)(span & 0xffu), first_row = (int)(span >> 8 & 0xffu);
        int last_column = (int)(span >> 16 & 0xffu), last_row = (int)(span >> 24);
        for (int row = first_row; row <= last_row; row++)
            for (int column = first_column; column <= last_column; column++)
                entries[counts[row * grid.columns + column]++] = (uint32_t)t;
    }
}

void sr_raster_draw_in_rect(const sr_draw_source *source, size_t t, const sr_pixel_rect *rect,
                            sr_fragment_counters *counters)
{
    const sr_draw_desc *desc = source->desc;
    const sr_screen_vertex *screen = source->screen;
    size_t index[3];
    sr_raster_triangle_indices(desc, t, index);
    uint32_t planes = (screen[index[0]].flags | screen[index[1]].flags | screen[index[2]].flags) & SR_CLIP_MASK;
    uint32_t primitive_id = desc->primitive_id_base + (uint32_t)t;
    if (planes) {
        sr_pixel_rect bounds;
        bool backfacing;
        sr_raster_draw_clipped(source, index, planes, primitive_id, rect, counters, &bounds, &backfacing);
    } else {
        sr_raster_draw_unclipped(source, index, primitive_id, *rect, counters, NULL, 0, source->coverage[t]);
    }
}

/* Entries ahead of the one drawn whose indices, and whose vertices, are prefetched. */
#define PREFETCH_INDICES 8
#define PREFETCH_VERTICES 4

static inline void prefetch_indices(const sr_draw_job *job, size_t t)
{
    if (job->source.desc->indices)
        __builtin_prefetch(job->source.desc->indices + 3 * t);
}

static inline void prefetch_vertices(const sr_draw_job *job, size_t t)
{
    size_t index[3];
    sr_raster_triangle_indices(job->source.desc, t, index);
    const size_t stride = (size_t)SR_ATTRIBUTE_SLOTS_FOR(job->source.context.varying_count);
    for (int k = 0; k < 3; k++) {
        __builtin_prefetch(job->source.screen + index[k]);
        __builtin_prefetch(job->source.varyings + index[k] * stride);
    }
}

/* Draws every triangle that touches tile `tile`, in submission order. */
static void draw_tile(const sr_draw_job *job, int tile, sr_fragment_counters *counters)
{
    const sr_tile_grid grid = job->grid;
    const int column = tile % grid.columns, row = tile / grid.columns;
    const int min_x = column * grid.size, min_y = row * grid.size;
    const int max_x = min_x + grid.size - 1, max_y = min_y + grid.size - 1;
    const sr_pixel_rect rect = {
        min_x, min_y, max_x < job->source.context.viewport.width ? max_x : job->source.context.viewport.width - 1,
        max_y < job->source.context.viewport.height ? max_y : job->source.context.viewport.height - 1};
    const uint32_t *entries = job->renderer->entries;
    const uint32_t *spans = job->renderer->spans;
    for (uint64_t chunk = 0; chunk < job->bin_chunks; chunk++) {
        const uint32_t *offsets = job->renderer->offsets + (size_t)chunk * ((size_t)grid.count + 1);
        if (offsets[0] != CHUNK_OVERFLOW) {
            const uint32_t end = offsets[tile + 1];
            for (uint32_t e = offsets[tile]; e < end; e++) {
                // A tile's triangles lie scattered over a large mesh's arrays: fetch the indices
                // PREFETCH_INDICES entries ahead and, once they have arrived, the vertices
                // PREFETCH_VERTICES entries ahead.
                if (e + PREFETCH_INDICES < end)
                    prefetch_indices(job, entries[e + PREFETCH_INDICES]);
                if (e + PREFETCH_VERTICES < end)
                    prefetch_vertices(job, entries[e + PREFETCH_VERTICES]);
                sr_raster_draw_in_rect(&job->source, entries[e], &rect, counters);
            }
            continue;
        }
        const size_t first = (size_t)chunk * job->bin_chunk;
        const size_t end = first + job->bin_chunk < job->triangle_count ? first + job->bin_chunk : job->triangle_count;
        for (size_t t = first; t < end; t++) {
            uint32_t span = spans[t];
            // SPAN_NONE has first column 255 and last column 0: never inside.
            if (column >= (int)(span & 0xffu) && column <= (int)(span >> 16 & 0xffu) &&
                row >= (int)(span >> 8 & 0xffu) && row <= (int)(span >> 24))
                sr_raster_draw_in_rect(&job->source, t, &rect, counters);
        }
    }
}

void sr_raster_draw_tiles(sr_draw_job *job, int worker, sr_raster_stats *stats, sr_fragment_counters *counters)
{
    for (;;) {
        uint64_t chunk = atomic_fetch_add_explicit(&job->bin_next, 1, memory_order_relaxed);
        if (chunk >= job->bin_chunks)
            break;
        bin_chunk(job, chunk, stats);
        sr_raster_finish_chunk(job, &job->bin_done, job->bin_chunks);
    }
    sr_raster_wait_phase(job, &job->bin_done, job->bin_chunks);
    // Each worker draws its home tiles (the rows it cleared), then takes what is left of the
    // others'. Within a worker's rows, tiles are handed out column by column: threads that draw
    // in the same rows at the same time (stealing) then work one above the other and share no
    // cache line of the framebuffer (side by side, a row's line at their border would bounce
    // between the cores whenever the rows do not start on a line).
    const int workers = job->workers;
    for (int k = 0; k < workers; k++) {
        const int owner = (worker + k) % workers;
        int first_row, end_row;
        sr_raster_home_rows(&job->grid, workers, owner, &first_row, &end_row);
        const int rows = end_row - first_row;
        const uint64_t count = (uint64_t)rows * (uint64_t)job->grid.columns;
        for (;;) {
            uint64_t claimed = atomic_fetch_add_explicit(&job->tile_next[owner].claimed, 1, memory_order_relaxed);
            if (claimed >= count)
                break;
            int column = (int)(claimed / (uint64_t)rows), row = first_row + (int)(claimed % (uint64_t)rows);
            draw_tile(job, row * job->grid.columns + column, counters);
        }
    }
}
