/* tests/test_record_cache.c — the recording reader's bounded cache of decoded frames
 * (src/record/record_playback.c): it stays within its bound over frames of 20,000 lines; once full,
 * a frame is decoded into the memory of the frames it drops (an allocator hook counts every
 * request); a big frame replays the same on any thread count; while it fills, a first visit decodes
 * into a spare made before (sr_recording_prepare), the largest frame's too; the cached frames share
 * one draw scratch; spares count against the bound. (Seeks and damaged files: test_record_files.c.) */
#include "record_test_helpers.h"

/* Seeks `index` with the library's allocations watched (alloc_watch.h). */
static sr_status seek_watched(sr_recording *recording, uint64_t index, sr_recording_frame *frame, watch *w)
{
    *w = (watch){.limit = SIZE_MAX};
    sr_set_allocator(&(sr_allocator){watch_allocate, watch_reallocate, watch_release, w});
    sr_status status = sr_recording_seek(recording, index, frame, NULL);
    sr_set_allocator(NULL);
    return status;
}

Test(record_cache, the_cache_stays_within_its_bound, .timeout = 120)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/big.srrec", folder);
    // Frames of 20,000 lines (half a megabyte in the file, a few megabytes decoded).
    enum { FRAMES = 30, LINES = 20000 };
    sr_debug_list *list = NULL;
    cr_assert_eq(
        sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = LINES, .segment_capacity = LINES}, &list, NULL),
        SR_OK);
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, NULL), SR_OK);
    rng r = {5};
    for (int f = 0; f < FRAMES; f++) {
        sr_debug_list_clear(list, NULL);
        // Frames of different sizes: a big frame after small ones takes the cache past its bound
        // (what the seek evicts beforehand is sized for a frame like the last one).
        int lines = f % 4 == 3 ? LINES : LINES / 8;
        for (int i = 0; i < lines; i++)
            sr_debug_line(list, rng_in_box(&r, (sr_aabb){{-9, -9, -9}, {9, 9, 9}}), sr_vec3_make((float)f, 0, 0),
                          sr_debug_style_color(SR_DEBUG_GREEN));
        cr_assert_eq(sr_recorder_frame(rec, f, &list, 1, NULL, NULL), SR_OK);
    }
    sr_recorder_destroy(rec);
    sr_debug_list_destroy(list);
    const size_t limit = 16u << 20;
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, &(sr_recording_desc){.cache_bytes = limit}, &recording, NULL), SR_OK);
    size_t largest = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f < FRAMES; f++) {
            sr_recording_frame frame;
            cr_assert_eq(sr_recording_seek(recording, (uint64_t)(pass ? FRAMES - 1 - f : f), &frame, NULL), SR_OK);
            sr_recording_cache_stats stats = sr_recording_get_cache_stats(recording);
            cr_assert_leq(stats.bytes, limit, "%zu bytes held, bound %zu", stats.bytes, limit);
            if (stats.bytes > largest)
                largest = stats.bytes;
        }
    sr_recording_cache_stats stats = sr_recording_get_cache_stats(recording);
    cr_assert_gt(stats.evictions, 0);
    cr_assert_gt(stats.frames, 1, "the cache held only the current frame");
    // The last frames played are still cached: playing them again reads nothing.
    uint64_t misses = stats.misses;
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 0, &frame, NULL), SR_OK);
    cr_assert_eq(frame.frames_decoded, 0);
    cr_assert_eq(sr_recording_get_cache_stats(recording).misses, misses);
    cr_log_info("cache: at most %zu bytes of %zu, %zu frames held", largest, limit, stats.frames);
    sr_recording_destroy(recording);
    temp_folder_remove(folder);
}

Test(record_cache, a_full_cache_decodes_a_frame_into_the_memory_of_the_frames_it_drops, .timeout = 120)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/reuse.srrec", folder);
    // Frames of 20,000 lines: each decoded frame holds about 3 MB (its items' array 2 MB).
    enum { FRAMES = 16, LINES = 20000 };
    sr_debug_list *list = NULL;
    cr_assert_eq(
        sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = LINES, .segment_capacity = LINES}, &list, NULL),
        SR_OK);
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, NULL), SR_OK);
    for (int f = 0; f < FRAMES; f++) {
        sr_debug_list_clear(list, NULL);
        for (int i = 0; i < LINES; i++)
            sr_debug_line(list, sr_vec3_make((float)f, (float)i, 0.0f), sr_vec3_make((float)f, (float)i, 1.0f),
                          sr_debug_style_color(SR_DEBUG_GREEN));
        cr_assert_eq(sr_recorder_frame(rec, f, &list, 1, NULL, NULL), SR_OK);
    }
    sr_recorder_destroy(rec);
    sr_debug_list_destroy(list);
    // A bound of about four such frames: the fifth frame onwards finds the cache full.
    const size_t limit = 12u << 20;
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, &(sr_recording_desc){.cache_bytes = limit}, &recording, NULL), SR_OK);
    sr_recording_frame frame;
    for (int f = 0; f < FRAMES / 2; f++)
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, NULL), SR_OK);
    // Every later frame is a first visit: its lists are those of the least recently used frame
    // dropped for it, not memory asked of the allocator (each new page of it a page fault).
    watch w = {.limit = SIZE_MAX};
    sr_set_allocator(&(sr_allocator){watch_allocate, watch_reallocate, watch_release, &w});
    uint64_t misses = sr_recording_get_cache_stats(recording).misses;
    for (int f = FRAMES / 2; f < FRAMES; f++) {
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, NULL), SR_OK);
        cr_assert_eq(frame.list_count, 1);
        size_t count = 0;
        const sr_debug_item *items = sr_debug_list_items(frame.lists[0], &count);
        cr_assert_eq(count, LINES, "frame %d: %zu items", f, count);
        for (int i = 0; i < LINES; i += 997)
            cr_assert(items[i].line.a.x == (float)f && items[i].line.a.y == (float)i && items[i].line.b.z == 1.0f,
                      "frame %d, item %d", f, i);
        cr_assert_leq(sr_recording_get_cache_stats(recording).bytes, limit);
    }
    sr_set_allocator(NULL);
    cr_assert_eq(sr_recording_get_cache_stats(recording).misses, misses + FRAMES / 2, "each seek was a first visit");
    cr_assert_lt(w.largest, (size_t)LINES * sizeof(sr_debug_item) / 2, "a seek asked the allocator for %zu bytes",
                 w.largest);
    sr_recording_destroy(recording);
    temp_folder_remove(folder);
}

/* `softrast replay` renders identically for any thread count: a 1280x720 frame of lines of every
 * width and style (2 threads share them out in units of 64 rows, 3 threads in units of 32). */
Test(record_cache, a_big_frame_replays_the_same_on_any_thread_count, .timeout = 120)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/threads.srrec", folder);
    enum { LINES = 20000, WIDTH = 1280, HEIGHT = 720 };
    sr_debug_list *list = NULL;
    cr_assert_eq(
        sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = LINES, .segment_capacity = LINES}, &list, NULL),
        SR_OK);
    rng r = {23};
    for (int i = 0; i < LINES; i++) {
        sr_vec3 a = rng_in_box(&r, (sr_aabb){{-1, -1, -1}, {1, 1, 1}});
        sr_vec3 b = sr_vec3_add(a, sr_vec3_scale(rng_direction(&r), rng_range(&r, 0.01f, 0.5f)));
        sr_debug_line_gradient(list, a, b, random_style(&r), i % 5 ? SR_DEBUG_GREEN : rng_next(&r));
    }
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, NULL), SR_OK);
    sr_camera camera = sr_camera_look_at(sr_vec3_make(0.0f, 0.5f, 3.2f), sr_vec3_make(0.0f, 0.0f, 0.0f));
    cr_assert_eq(sr_recorder_set_camera(rec, &camera, NULL), SR_OK);
    cr_assert_eq(sr_recorder_frame(rec, 0.0, &list, 1, NULL, NULL), SR_OK);
    sr_recorder_destroy(rec);
    sr_debug_list_destroy(list);
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, NULL), SR_OK);
    cr_assert_eq(sr_recording_seek(recording, 0, NULL, NULL), SR_OK);
    uint32_t *reference = malloc((size_t)WIDTH * HEIGHT * 4);
    for (int threads = 1; threads <= 3; threads++) {
        sr_framebuffer *fb = NULL;
        sr_renderer *renderer = NULL;
        cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = WIDTH, .height = HEIGHT}, &fb, NULL), SR_OK);
        cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &renderer, NULL), SR_OK);
        cr_assert_eq(sr_recording_render(recording, renderer, fb, NULL, NULL), SR_OK);
        if (threads == 1)
            memcpy(reference, fb->color, (size_t)WIDTH * HEIGHT * 4);
        cr_assert(memcmp(fb->color, reference, (size_t)WIDTH * HEIGHT * 4) == 0, "%d threads: not 1 thread's frame",
                  threads);
        sr_renderer_destroy(renderer);
        sr_framebuffer_destroy(fb);
    }
    free(reference);
    sr_recording_destroy(recording);
    temp_folder_remove(folder);
}

/* ---- spares and the shared draw scratch ---- */

/* A recording of `frames` frames of `lines` lines, line i of frame f from (f, i / 100, 0) to
 * (f + 1, i / 100, 1): each line says where it belongs. */
static void record_numbered_lines(const char *path, int frames, int lines)
{
    sr_debug_list *list = NULL;
    cr_assert_eq(
        sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = (size_t)lines, .segment_capacity = (size_t)lines},
                             &list, NULL),
        SR_OK);
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, NULL), SR_OK);
    for (int f = 0; f < frames; f++) {
        sr_debug_list_clear(list, NULL);
        for (int i = 0; i < lines; i++)
            sr_debug_line(list, sr_vec3_make((float)f, (float)i / 100.0f, 0.0f),
                          sr_vec3_make((float)f + 1.0f, (float)i / 100.0f, 1.0f), sr_debug_style_color(SR_DEBUG_GREEN));
        cr_assert_eq(sr_recorder_frame(rec, f, &list, 1, NULL, NULL), SR_OK);
    }
    sr_recorder_destroy(rec);
    sr_debug_list_destroy(list);
}

static void assert_numbered_lines(const sr_recording_frame *frame, int f, int lines)
{
    cr_assert_eq(frame->index, (uint64_t)f);
    cr_assert_eq(frame->list_count, 1);
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(frame->lists[0], &count);
    cr_assert_eq(count, (size_t)lines, "frame %d: %zu items", f, count);
    for (int i = 0; i < lines; i++)
        cr_assert(items[i].kind == SR_DEBUG_ITEM_LINE && items[i].line.a.x == (float)f &&
                      items[i].line.a.y == (float)i / 100.0f && items[i].line.b.z == 1.0f,
                  "frame %d, item %d", f, i);
}

/* While the cache fills, each frame read from the file is new memory (a page fault a page);
 * sr_recording_prepare makes that memory beforehand (in a viewer's idle time), so that a first
 * visit asks the allocator for nothing, as it does once the cache is full. */
Test(record_cache, a_first_visit_while_the_cache_fills_decodes_into_a_spare_made_before, .timeout = 120)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/spares.srrec", folder);
    enum { FRAMES = 8, LINES = 20000 };
    record_numbered_lines(path, FRAMES, LINES);
    const size_t limit = 64u << 20; // every frame fits: the cache never drops one
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, &(sr_recording_desc){.cache_bytes = limit}, &recording, NULL), SR_OK);
    cr_assert_not(sr_recording_prepare(recording), "no frame sought yet");
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 0, &frame, NULL), SR_OK);
    for (int f = 1; f < FRAMES; f++) {
        // Called until it has nothing to do, as a viewer does while idle: one spare at a time
        // (the first call also reads the file's largest frame).
        int calls = 0;
        while (sr_recording_prepare(recording))
            cr_assert_leq(++calls, 2, "frame %d: a second spare while one is ready", f);
        cr_assert_geq(calls, 1, "frame %d: no spare made", f);
        sr_recording_cache_stats stats = sr_recording_get_cache_stats(recording);
        cr_assert_geq(stats.pooled_bytes, (size_t)LINES * sizeof(sr_debug_item));
        cr_assert_leq(stats.bytes, limit);
        watch w;
        sr_status status = seek_watched(recording, (uint64_t)f, &frame, &w);
        cr_assert_eq(status, SR_OK);
        cr_assert_eq(frame.frames_decoded, 1, "frame %d: a first visit", f);
        cr_assert_lt(w.largest, (size_t)LINES * sizeof(sr_debug_item) / 2, "frame %d: the seek asked for %zu bytes", f,
                     w.largest);
        assert_numbered_lines(&frame, f, LINES);
        stats = sr_recording_get_cache_stats(recording);
        cr_assert_eq(stats.evictions, 0);
        cr_assert_eq(stats.frames, (size_t)f + 1);
        cr_assert_eq(stats.pooled_bytes, 0u, "frame %d: the spare was not used", f);
    }
    // Every frame cached: nothing to prepare for.
    cr_assert_not(sr_recording_prepare(recording));
    cr_assert_eq(sr_recording_get_cache_stats(recording).spares, FRAMES - 1);
    // Frames seen again come from the cache, unchanged.
    uint64_t misses = sr_recording_get_cache_stats(recording).misses;
    for (int f = FRAMES - 1; f >= 0; f -= 3) {
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, NULL), SR_OK);
        assert_numbered_lines(&frame, f, LINES);
    }
    cr_assert_eq(sr_recording_get_cache_stats(recording).misses, misses);
    sr_recording_destroy(recording);

    // Without a spare, the same first visit asks for its items' memory: what the hook sees above.
    cr_assert_eq(sr_recording_open(path, &(sr_recording_desc){.cache_bytes = limit}, &recording, NULL), SR_OK);
    cr_assert_eq(sr_recording_seek(recording, 0, &frame, NULL), SR_OK);
    watch w;
    sr_status status = seek_watched(recording, 1, &frame, &w);
    cr_assert_eq(status, SR_OK);
    cr_assert_geq(w.largest, (size_t)LINES * sizeof(sr_debug_item));
    sr_recording_destroy(recording);
    temp_folder_remove(folder);
}

/* The file's largest frame is known from the index before it is sought: its first visit, after
 * a viewer's idle time, finds its list and its read buffer ready. */
Test(record_cache, a_first_visit_to_the_largest_frame_finds_its_memory_ready, .timeout = 120)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/largest.srrec", folder);
    enum { FRAMES = 12, BIG = 7, LINES = 20000, SMALL_LINES = 100 };
    sr_debug_list *list = NULL;
    cr_assert_eq(
        sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = LINES, .segment_capacity = LINES}, &list, NULL),
        SR_OK);
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, NULL), SR_OK);
    for (int f = 0; f < FRAMES; f++) {
        sr_debug_list_clear(list, NULL);
        for (int i = 0; i < (f == BIG ? LINES : SMALL_LINES); i++)
            sr_debug_line(list, sr_vec3_make((float)f, (float)i / 100.0f, 0.0f),
                          sr_vec3_make((float)f + 1.0f, (float)i / 100.0f, 1.0f), sr_debug_style_color(SR_DEBUG_GREEN));
        cr_assert_eq(sr_recorder_frame(rec, f, &list, 1, NULL, NULL), SR_OK);
    }
    sr_recorder_destroy(rec);
    sr_debug_list_destroy(list);
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, &(sr_recording_desc){.cache_bytes = 64u << 20}, &recording, NULL), SR_OK);
    sr_recording_frame frame;
    for (int f = 0; f < 3; f++)
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, NULL), SR_OK);
    int calls = 0;
    while (sr_recording_prepare(recording))
        cr_assert_leq(++calls, 3);
    cr_assert_geq(sr_recording_get_cache_stats(recording).pooled_bytes, (size_t)LINES * sizeof(sr_debug_item));
    watch w;
    sr_status status = seek_watched(recording, BIG, &frame, &w);
    cr_assert_eq(status, SR_OK);
    assert_numbered_lines(&frame, BIG, LINES);
    // Neither the list (2 MB) nor the record read (some 400 kB) asked the allocator for memory.
    cr_assert_lt(w.largest, (size_t)64 << 10, "the seek asked for %zu bytes", w.largest);
    cr_assert_eq(sr_recording_get_cache_stats(recording).pooled_bytes, 0u);
    sr_recording_destroy(recording);
    temp_folder_remove(folder);
}

/* A cached frame holds its items, not the segments they are drawn with: the frames share one draw
 * scratch, and draw as a list with its own does, whichever frame the scratch drew before. */
Test(record_cache, the_cached_frames_share_one_draw_scratch, .timeout = 120)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/scratch.srrec", folder);
    enum { FRAMES = 3, LINES = 20000, WIDTH = 320, HEIGHT = 240 };
    record_numbered_lines(path, FRAMES, LINES);
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, &(sr_recording_desc){.cache_bytes = 64u << 20}, &recording, NULL), SR_OK);
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 0, &frame, NULL), SR_OK);
    size_t one = sr_recording_get_cache_stats(recording).bytes;
    cr_assert_eq(sr_recording_seek(recording, 1, &frame, NULL), SR_OK);
    size_t two = sr_recording_get_cache_stats(recording).bytes;
    cr_assert_eq(sr_debug_list_get_stats(frame.lists[0]).scratch_bytes, 0u);
    // The second frame: its items (104 bytes a line), not its segments' two line vertices (56).
    cr_assert_geq(two - one, (size_t)LINES * sizeof(sr_debug_item));
    cr_assert_lt(two - one, (size_t)LINES * (sizeof(sr_debug_item) + sizeof(sr_line_vertex)),
                 "the second frame took %zu bytes", two - one);

    // Frame 1 drawn after frame 2 (the scratch holds frame 2's segments) is frame 1 drawn from a
    // list of its own lines with its own scratch.
    sr_framebuffer *fb = NULL, *reference = NULL;
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = WIDTH, .height = HEIGHT}, &fb, NULL), SR_OK);
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = WIDTH, .height = HEIGHT}, &reference, NULL),
                 SR_OK);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = 2}, &renderer, NULL), SR_OK);
    cr_assert_eq(sr_recording_seek(recording, 2, &frame, NULL), SR_OK);
    cr_assert_eq(sr_recording_render(recording, renderer, fb, NULL, NULL), SR_OK);
    uint64_t misses = sr_recording_get_cache_stats(recording).misses;
    cr_assert_eq(sr_recording_seek(recording, 1, &frame, NULL), SR_OK);
    cr_assert_eq(sr_recording_get_cache_stats(recording).misses, misses, "frame 1 is cached");
    sr_camera camera;
    cr_assert_eq(
        sr_recording_render(recording, renderer, fb, &(sr_recording_render_desc){.camera_used = &camera}, NULL), SR_OK);
    sr_debug_list *own = NULL;
    cr_assert_eq(
        sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = LINES, .segment_capacity = LINES}, &own, NULL),
        SR_OK);
    for (int i = 0; i < LINES; i++)
        sr_debug_line(own, sr_vec3_make(1.0f, (float)i / 100.0f, 0.0f), sr_vec3_make(2.0f, (float)i / 100.0f, 1.0f),
                      sr_debug_style_color(SR_DEBUG_GREEN));
    cr_assert_gt(sr_debug_list_get_stats(own).scratch_bytes, 0u);
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, WIDTH, HEIGHT, &view, &projection);
    sr_renderer_clear(renderer, reference, SR_BENCH_SCENE_BACKGROUND, 1.0f);
    cr_assert_eq(sr_debug_draw(own, renderer, reference, sr_mat4_mul(projection, view), NULL), SR_OK);
    size_t differ = 0, lit = 0;
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++) {
        differ += fb->color[i] != reference->color[i];
        lit += reference->color[i] != reference->color[0];
    }
    cr_assert_eq(differ, 0u, "%zu pixels differ", differ);
    cr_assert_gt(lit, 100u, "the lines are not in view");
    sr_debug_list_destroy(own);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_framebuffer_destroy(reference);
    sr_recording_destroy(recording);
    temp_folder_remove(folder);
}

/* Spares count against the bound: they are made only while they fit, the cache never holds more
 * than its bound, and a recording whose frames are all cached gets none. */
Test(record_cache, spares_count_against_the_bound, .timeout = 120)
{
    char folder[256], path[300], small_path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/bound.srrec", folder);
    snprintf(small_path, sizeof small_path, "%s/small.srrec", folder);
    enum { FRAMES = 12, LINES = 20000 };
    record_numbered_lines(path, FRAMES, LINES);
    const size_t limit = 9u << 20; // some three frames of 2 MB, with the read buffers and the scratch
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, &(sr_recording_desc){.cache_bytes = limit}, &recording, NULL), SR_OK);
    int refused = 0;
    for (int f = 0; f < FRAMES; f++) {
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, NULL), SR_OK);
        assert_numbered_lines(&frame, f, LINES);
        cr_assert_leq(sr_recording_get_cache_stats(recording).bytes, limit, "frame %d", f);
        uint64_t spares = sr_recording_get_cache_stats(recording).spares;
        int calls = 0;
        while (sr_recording_prepare(recording)) {
            cr_assert_leq(sr_recording_get_cache_stats(recording).bytes, limit, "frame %d", f);
            cr_assert_leq(++calls, 2, "frame %d: prepared more than one spare", f); // the first: the largest frame
        }
        uint64_t made = sr_recording_get_cache_stats(recording).spares - spares;
        cr_assert_leq(made, 1, "frame %d: more than one spare", f);
        refused += made == 0;
    }
    sr_recording_cache_stats stats = sr_recording_get_cache_stats(recording);
    cr_assert_gt(stats.spares, 0);
    cr_assert_gt(refused, 0, "a spare was made whatever the cache held");
    cr_assert_gt(stats.evictions, 0);
    sr_recording_destroy(recording);

    // A small recording: once every frame is cached, nothing more is made.
    enum { SMALL_FRAMES = 3, SMALL_LINES = 100 };
    record_numbered_lines(small_path, SMALL_FRAMES, SMALL_LINES);
    cr_assert_eq(sr_recording_open(small_path, NULL, &recording, NULL), SR_OK);
    for (int f = 0; f < SMALL_FRAMES; f++) {
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, NULL), SR_OK);
        assert_numbered_lines(&frame, f, SMALL_LINES);
        sr_recording_prepare(recording);
    }
    cr_assert_not(sr_recording_prepare(recording));
    stats = sr_recording_get_cache_stats(recording);
    cr_assert_eq(stats.pooled_bytes, 0u);
    cr_assert_lt(stats.bytes, (size_t)1 << 20, "%zu bytes for %d frames of %d lines", stats.bytes, SMALL_FRAMES,
                 SMALL_LINES);
    sr_recording_destroy(recording);
    temp_folder_remove(folder);
}

/* Random seeks with spares made between them, in a cache that drops frames, hand out the frames
 * recorded: every kind of item, exactly. */
Test(record_cache, seeks_with_spares_give_the_recorded_frames, .timeout = 120)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/kinds.srrec", folder);
    enum { FRAMES = 40 };
    sr_debug_list *lists[2] = {new_list(), new_list()};
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, NULL), SR_OK);
    for (int f = 0; f < FRAMES; f++) {
        frame_lists(lists, f);
        cr_assert_eq(sr_recorder_frame(rec, f, lists, 2, NULL, NULL), SR_OK);
    }
    sr_recorder_destroy(rec);
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, &(sr_recording_desc){.cache_bytes = 1u << 20}, &recording, NULL), SR_OK);
    rng r = {41};
    for (int i = 0; i < 120; i++) {
        int f = (int)(rng_next(&r) % FRAMES);
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, NULL), SR_OK);
        frame_lists(lists, f);
        cr_assert_eq(frame.list_count, 2);
        char where[64];
        for (int l = 0; l < 2; l++) {
            snprintf(where, sizeof where, "seek %d, frame %d, list %d", i, f, l);
            assert_same_list(lists[l], frame.lists[l], where);
        }
        if (i % 3)
            sr_recording_prepare(recording);
        sr_recording_cache_stats stats = sr_recording_get_cache_stats(recording);
        cr_assert_leq(stats.bytes, 1u << 20, "seek %d: %zu bytes, %zu pooled, %zu frames", i, stats.bytes,
                      stats.pooled_bytes, stats.frames);
    }
    sr_recording_cache_stats stats = sr_recording_get_cache_stats(recording);
    cr_assert_gt(stats.spares, 0);
    cr_assert_gt(stats.evictions, 0);
    sr_recording_destroy(recording);
    sr_debug_list_destroy(lists[0]);
    sr_debug_list_destroy(lists[1]);
    temp_folder_remove(folder);
}
