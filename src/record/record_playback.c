/* src/record/record_playback.c — seeking a recording (softrast/record.h): the state at a frame
 * (from the current state when going forward without passing a keyframe, otherwise from the
 * nearest keyframe at or before it; only STATE records are read for the frames in between, never
 * their lists) and the frame's lists from a bounded cache of decoded frames (least recently used
 * first out; evicted lists are kept in a pool for reuse while memory allows, and a frame decodes
 * into the pooled lists that fit it best, so a warm playback or seek allocates nothing). The
 * cached lists share one draw scratch (a frame is drawn at a time), and while the cache is below
 * its bound, sr_recording_prepare puts a spare list, its memory touched, in the pool for the next
 * frame read from the file (a viewer calls it while idle). */
#include "record_reader.h"

#include <stdio.h>

size_t rec_list_memory(const sr_debug_list *list)
{
    sr_debug_list_stats s = sr_debug_list_get_stats(list);
    return sizeof(sr_debug_item) * s.item_capacity + sizeof(sr_vec3) * s.point_capacity + s.text_byte_capacity +
           s.scratch_bytes;
}

static void destroy_entry(rec_cache_entry *e)
{
    for (size_t i = 0; i < e->list_capacity; i++)
        sr_debug_list_destroy(e->lists[i]);
    sr_free(e->lists);
    *e = (rec_cache_entry){0};
}

void rec_cache_free(sr_recording *rec)
{
    for (size_t i = 0; i < rec->cache_count; i++)
        destroy_entry(&rec->cache[i]);
    sr_free(rec->cache);
    for (size_t i = 0; i < rec->pool_count; i++)
        sr_debug_list_destroy(rec->pool[i]);
    sr_free(rec->pool);
    sr_debug_scratch_destroy(rec->draw_scratch); // after the lists drawn in it
    rec->cache = NULL;
    rec->pool = NULL;
    rec->draw_scratch = NULL;
    rec->cache_count = rec->cache_capacity = rec->pool_count = rec->pool_capacity = 0;
}

static size_t buffers_bytes(const sr_recording *rec)
{
    return rec->buffer_capacity + rec->definition_capacity + rec->scratch.point_capacity * sizeof(sr_vec3) +
           rec->scratch.text_capacity + sr_debug_scratch_bytes(rec->draw_scratch);
}

/* The memory the bound covers: the cached frames' lists, the pooled lists, the read buffers. */
static size_t cache_total(const sr_recording *rec)
{
    size_t total = rec->pool_bytes + buffers_bytes(rec);
    for (size_t i = 0; i < rec->cache_count; i++)
        total += rec->cache[i].bytes;
    return total;
}

static void pool_push(sr_recording *rec, sr_debug_list *list)
{
    if (rec->pool_count == rec->pool_capacity) {
        size_t wanted = rec->pool_capacity ? rec->pool_capacity * 2 : 16;
        sr_debug_list **grown = sr_realloc(rec->pool, wanted * sizeof *grown);
        if (!grown) {
            sr_debug_list_destroy(list);
            return;
        }
        rec->pool = grown;
        rec->pool_capacity = wanted;
    }
    rec->pool[rec->pool_count++] = list;
    rec->pool_bytes += rec_list_memory(list);
}

/* Removes cache entry `index`: its lists to the pool (for the next frame decoded) or freed. */
static void drop_entry(sr_recording *rec, size_t index, bool to_pool)
{
    rec_cache_entry *e = &rec->cache[index];
    for (size_t i = 0; i < e->list_capacity; i++)
        if (e->lists[i]) {
            if (to_pool)
                pool_push(rec, e->lists[i]);
            else
                sr_debug_list_destroy(e->lists[i]);
        }
    sr_free(e->lists);
    rec->cache[index] = rec->cache[--rec->cache_count];
}

static size_t least_recent(const sr_recording *rec, size_t keep)
{
    size_t oldest = SIZE_MAX;
    for (size_t i = 0; i < rec->cache_count; i++)
        if (i != keep && (oldest == SIZE_MAX || rec->cache[i].last_use < rec->cache[oldest].last_use))
            oldest = i;
    return oldest;
}

/* Drops the least recently used frames (never `keep_frame`, the frame being handed out) until
 * the frames kept, with `demand` bytes more for a frame about to be decoded, fit the bound: their
 * lists go to the pool (`to_pool`: for that frame to decode into) or are freed. */
static void evict(sr_recording *rec, size_t demand, uint64_t keep_frame, bool to_pool)
{
    while (cache_total(rec) - rec->pool_bytes + demand > rec->cache_limit) {
        size_t keep = SIZE_MAX;
        for (size_t i = 0; i < rec->cache_count; i++)
            if (rec->cache[i].frame == keep_frame)
                keep = i;
        size_t oldest = least_recent(rec, keep);
        if (oldest == SIZE_MAX)
            break;
        drop_entry(rec, oldest, to_pool);
        rec->stats.evictions++;
    }
}

/* Frees memory until the cache is within its bound: pooled lists first, then the least recently
 * used frames (never `keep_frame`). */
static void trim(sr_recording *rec, uint64_t keep_frame)
{
    while (rec->pool_count && cache_total(rec) > rec->cache_limit) {
        sr_debug_list *list = rec->pool[--rec->pool_count];
        rec->pool_bytes -= rec_list_memory(list);
        sr_debug_list_destroy(list);
    }
    evict(rec, 0, keep_frame, false);
}

/* The memory a list made for `items` lines holds (make_list's capacities; its segments are made in
 * the shared draw scratch). */
static size_t list_memory_for(size_t items)
{
    size_t capacity = items ? items : 16;
    return capacity * sizeof(sr_debug_item) + 16 * sizeof(sr_vec3) + 256;
}

/* Whether a pooled list suits a list of `items` items: room for them and a segment each (a list
 * of lines decodes in one pass), and not much more (a small frame does not take a big frame's
 * memory, which the next big frame would then allocate afresh). */
static bool list_fits(const sr_debug_list *list, uint32_t items)
{
    sr_debug_list_stats s = sr_debug_list_get_stats(list);
    return s.item_capacity >= items && s.segment_capacity >= items && s.item_capacity <= 2 * (size_t)items + 4096;
}

/* A new list with room for `items` items and a segment each (a list of lines fits at once; shapes
 * grow it at a second pass), drawn in the shared scratch; its pages written when `touched`. */
static sr_debug_list *make_list(sr_recording *rec, size_t items, bool touched, sr_error *err)
{
    if (!rec->draw_scratch && sr_debug_scratch_create(&rec->draw_scratch, err) != SR_OK)
        return NULL;
    size_t capacity = items ? items : 16;
    sr_debug_list *list = NULL;
    sr_debug_list_create(&(sr_debug_list_desc){.segment_capacity = capacity,
                                               .text_capacity = 4,
                                               .text_bytes = 256,
                                               .item_capacity = capacity,
                                               .triangle_capacity = 16,
                                               .point_capacity = 16,
                                               .scratch = rec->draw_scratch,
                                               .touch_memory = touched},
                         &list, err);
    return list;
}

/* An empty list for `items` items: the pool's best fitting one (memory touched before: no page
 * faults, one decoding pass), else a new one with room for that many items and a segment each (a
 * list of lines fits at once; shapes grow it at a second pass). */
static sr_debug_list *take_list(sr_recording *rec, uint32_t items, sr_error *err)
{
    size_t best = SIZE_MAX, best_capacity = 0;
    for (size_t i = 0; i < rec->pool_count; i++) {
        if (!list_fits(rec->pool[i], items))
            continue;
        size_t capacity = sr_debug_list_get_stats(rec->pool[i]).item_capacity;
        if (best == SIZE_MAX || capacity < best_capacity) {
            best = i;
            best_capacity = capacity;
        }
    }
    if (best != SIZE_MAX) {
        sr_debug_list *list = rec->pool[best];
        rec->pool[best] = rec->pool[--rec->pool_count];
        rec->pool_bytes -= rec_list_memory(list);
        return list;
    }
    return make_list(rec, items, false, err);
}

/* What the lists of a FRAME payload will hold once decoded, from their item counts (as lines:
 * shapes ask for more at their second pass); 0 for a malformed payload (decode_lists says why).
 * The most items of one list in *largest_list (when not NULL). */
static size_t frame_demand(const uint8_t *payload, size_t size, size_t *largest_list)
{
    rec_cursor c = rec_cursor_make(payload, size);
    rec_get_varint(&c);
    rec_get_f64(&c);
    size_t count = (size_t)rec_get_count(&c, rec_left(&c) / 8 < REC_MAX_LISTS ? rec_left(&c) / 8 : REC_MAX_LISTS);
    size_t demand = 0, largest = 0;
    for (size_t i = 0; i < count && !c.bad; i++) {
        uint32_t items = rec_get_u32(&c), bytes = rec_get_u32(&c);
        rec_take(&c, bytes);
        items = items > bytes ? 0 : items;
        demand += list_memory_for(items);
        largest = items > largest ? items : largest;
    }
    if (largest_list)
        *largest_list = c.bad ? 0 : largest;
    return c.bad ? 0 : demand;
}

/* Decodes the FRAME record's lists of `frame` into cache entry `e`. */
static sr_status decode_lists(sr_recording *rec, uint64_t frame, rec_cache_entry *e, const uint8_t *payload,
                              size_t size, sr_error *err)
{
    rec_cursor c = rec_cursor_make(payload, size);
    uint64_t recorded = rec_get_varint(&c);
    double time = rec_get_f64(&c);
    size_t count = (size_t)rec_get_count(&c, rec_left(&c) / 8 < REC_MAX_LISTS ? rec_left(&c) / 8 : REC_MAX_LISTS);
    (void)time;
    if (c.bad || recorded != frame)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: frame %llu: its record is malformed (it says frame %llu)",
                            rec->path, (unsigned long long)frame, (unsigned long long)recorded);
    if (count > e->list_capacity) {
        sr_debug_list **grown = sr_realloc(e->lists, count * sizeof *grown);
        if (!grown)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory decoding frame %llu", rec->path,
                                (unsigned long long)frame);
        memset(grown + e->list_capacity, 0, (count - e->list_capacity) * sizeof *grown);
        e->lists = grown;
        e->list_capacity = count;
    }
    e->list_count = count;
    // What a frame may ask of memory: a list's items can ask for many segments (a grid of 4096
    // divisions, from 25 bytes), so the demand is checked before the lists grow to it.
    size_t budget = rec->cache_limit > 256 * size ? rec->cache_limit : 256 * size;
    size_t asked = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t items = rec_get_u32(&c), bytes = rec_get_u32(&c);
        const uint8_t *list_bytes = rec_take(&c, bytes);
        if (!list_bytes)
            return sr_error_set(err, SR_ERROR_PARSE, "%s: frame %llu: list %zu is cut short", rec->path,
                                (unsigned long long)frame, i);
        // A list's items: its claim is checked against its bytes (an item takes one at least).
        if (items > bytes)
            return sr_error_set(err, SR_ERROR_PARSE, "%s: frame %llu: list %zu claims %u items in %u bytes", rec->path,
                                (unsigned long long)frame, i, items, bytes);
        if (!e->lists[i] && !(e->lists[i] = take_list(rec, items, err)))
            return SR_ERROR_OUT_OF_MEMORY;
        if (items > rec->largest_list_items)
            rec->largest_list_items = items;
        sr_debug_list *list = e->lists[i];
        for (int pass = 0; pass < 2; pass++) {
            sr_status status = sr_debug_list_clear(list, err);
            rec_cursor items_cursor = rec_cursor_make(list_bytes, bytes);
            char what[256];
            if (status == SR_OK)
                status = rec_list_decode(&items_cursor, items, list, &rec->scratch, NULL, what, sizeof what);
            if (status == SR_OK && rec_left(&items_cursor))
                snprintf(what, sizeof what, "%zu bytes follow its items", rec_left(&items_cursor)),
                    status = SR_ERROR_PARSE;
            if (status != SR_OK) {
                return status == SR_ERROR_PARSE ? sr_error_set(err, SR_ERROR_PARSE, "%s: frame %llu, list %zu: %s",
                                                               rec->path, (unsigned long long)frame, i, what)
                                                : status;
            }
            sr_debug_list_stats s = sr_debug_list_get_stats(list);
            if (!s.items_dropped && !s.segments_dropped && !s.texts_dropped)
                break;
            // Some items did not fit: the clear of the next pass grows the list to what they ask.
            size_t segments = s.segments + s.segments_dropped, items_asked = s.items + s.items_dropped;
            asked += items_asked * sizeof(sr_debug_item) + segments * 5 * sizeof(sr_line_vertex) + 2 * (size_t)bytes;
            if (asked > budget || pass == 1) {
                return sr_error_set(err, SR_ERROR_UNSUPPORTED,
                                    "%s: frame %llu, list %zu asks for %zu MiB to draw %zu items, more than the "
                                    "cache's bound (%zu MiB; sr_recording_desc.cache_bytes)",
                                    rec->path, (unsigned long long)frame, i, asked >> 20, items_asked, budget >> 20);
            }
        }
    }
    if (rec_left(&c))
        return sr_error_set(err, SR_ERROR_PARSE, "%s: frame %llu: %zu bytes follow its lists", rec->path,
                            (unsigned long long)frame, rec_left(&c));
    e->bytes = 0;
    for (size_t i = 0; i < count; i++)
        e->bytes += rec_list_memory(e->lists[i]);
    return SR_OK;
}

/* Reads frame `frame`'s records; hands out its STATE payload (NULL when it has none) and its
 * FRAME payload. */
static sr_status read_frame(sr_recording *rec, uint64_t frame, bool want_lists, const uint8_t **state,
                            uint32_t *state_size, const uint8_t **lists, uint32_t *lists_size, sr_error *err)
{
    const rec_frame_entry *e = &rec->frames[frame];
    size_t span = e->length;
    *state = *lists = NULL;
    *state_size = *lists_size = 0;
    if (!want_lists && (e->flags & REC_ENTRY_STATE)) {
        // The state record alone: its length from its head.
        sr_status status = rec_read_at(rec, e->offset, REC_RECORD_HEAD, &rec->buffer, &rec->buffer_capacity, err);
        if (status != SR_OK)
            return status;
        uint64_t length = (uint64_t)rec_load_u32(rec->buffer + 1) + REC_RECORD_OVERHEAD;
        span = length < e->length ? (size_t)length : e->length;
    }
    sr_status status = rec_read_at(rec, e->offset, span, &rec->buffer, &rec->buffer_capacity, err);
    if (status != SR_OK)
        return status;
    size_t at = 0;
    while (at < span) {
        uint32_t type, size;
        const uint8_t *payload;
        char why[128];
        if (!rec_record_check(rec->buffer + at, span - at, &type, &payload, &size, why, sizeof why))
            return sr_error_set(err, SR_ERROR_PARSE, "%s: frame %llu at offset %llu: %s", rec->path,
                                (unsigned long long)frame, (unsigned long long)(e->offset + at), why);
        if (type == REC_STATE && at == 0) {
            *state = payload;
            *state_size = size;
        } else if (type == REC_FRAME) {
            *lists = payload;
            *lists_size = size;
        } // other types inside a frame's span: a newer minor version's, skipped
        at += REC_RECORD_OVERHEAD + size;
    }
    if (((e->flags & REC_ENTRY_STATE) && !*state) || (want_lists && !*lists))
        return sr_error_set(err, SR_ERROR_PARSE,
                            "%s: frame %llu at offset %llu: its records are not where the index "
                            "says",
                            rec->path, (unsigned long long)frame, (unsigned long long)e->offset);
    return SR_OK;
}

/* Brings the state to `frame`. */
static sr_status seek_state(sr_recording *rec, uint64_t frame, uint32_t *decoded, sr_error *err)
{
    if (rec->state_valid && rec->state_frame == frame)
        return SR_OK;
    uint64_t start;
    uint64_t keyframe = frame;
    while (keyframe > 0 && !(rec->frames[keyframe].flags & REC_ENTRY_KEYFRAME))
        keyframe--;
    if (rec->state_valid && rec->state_frame < frame && rec->state_frame >= keyframe) {
        start = rec->state_frame + 1; // forward, no keyframe in between: the changes since
    } else {
        start = keyframe;
        rec_scene_reader_clear_state(&rec->scene);
    }
    rec->state_valid = false;
    for (uint64_t f = start; f <= frame; f++) {
        const rec_frame_entry *e = &rec->frames[f];
        if ((e->flags & REC_ENTRY_KEYFRAME) && !(e->flags & REC_ENTRY_STATE))
            rec_scene_reader_clear_state(&rec->scene); // nothing retained at this frame
        if (!(e->flags & REC_ENTRY_STATE))
            continue;
        const uint8_t *state, *lists;
        uint32_t state_size, lists_size;
        sr_status status = read_frame(rec, f, false, &state, &state_size, &lists, &lists_size, err);
        if (status != SR_OK)
            return status;
        char what[256];
        status = rec_state_apply(&rec->scene, state, state_size, f, what, sizeof what);
        if (status != SR_OK) {
            rec_scene_reader_clear_state(&rec->scene);
            return status == SR_ERROR_PARSE
                       ? sr_error_set(err, SR_ERROR_PARSE, "%s: frame %llu at offset %llu: %s", rec->path,
                                      (unsigned long long)f, (unsigned long long)e->offset, what)
                       : sr_error_set(err, status, "%s: frame %llu: %s", rec->path, (unsigned long long)f, what);
        }
        (*decoded)++;
    }
    sr_status status = rec_scene_sync(&rec->scene, err);
    if (status != SR_OK) {
        rec_scene_reader_clear_state(&rec->scene);
        if (status == SR_ERROR_PARSE && err) {
            char reason[sizeof err->message];
            snprintf(reason, sizeof reason, "%s", err->message);
            sr_error_set(err, SR_ERROR_PARSE, "%s: frame %llu: %s", rec->path, (unsigned long long)frame, reason);
        }
        return status;
    }
    // Updated here, so that the frame's scene is ready to pick and to frame (sr_scene_bounds).
    if (rec->scene.scene && (status = sr_scene_update(rec->scene.scene, NULL, err)) != SR_OK)
        return status;
    rec->state_valid = true;
    rec->state_frame = frame;
    return SR_OK;
}

static ptrdiff_t find_cached(const sr_recording *rec, uint64_t frame)
{
    for (size_t i = 0; i < rec->cache_count; i++)
        if (rec->cache[i].frame == frame)
            return (ptrdiff_t)i;
    return -1;
}

sr_status sr_recording_seek(sr_recording *rec, uint64_t frame, sr_recording_frame *out, sr_error *err)
{
    if (!rec)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recording_seek: rec is NULL");
    if (frame >= rec->frame_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: frame %llu does not exist (%llu frames)", rec->path,
                            (unsigned long long)frame, (unsigned long long)rec->frame_count);
    uint32_t decoded = 0;
    sr_status status = SR_OK;
    if (rec->has_state)
        status = seek_state(rec, frame, &decoded, err);
    if (status != SR_OK)
        return status;

    ptrdiff_t at = find_cached(rec, frame);
    if (at >= 0) {
        rec->stats.hits++;
    } else {
        rec->stats.misses++;
        const uint8_t *state, *lists;
        uint32_t state_size, lists_size;
        status = read_frame(rec, frame, true, &state, &state_size, &lists, &lists_size, err);
        if (status != SR_OK)
            return status;
        if (rec->cache_count == rec->cache_capacity) {
            size_t wanted = rec->cache_capacity ? rec->cache_capacity * 2 : 16;
            rec_cache_entry *grown = sr_realloc(rec->cache, wanted * sizeof *grown);
            if (!grown)
                return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory for the cache", rec->path);
            rec->cache = grown;
            rec->cache_capacity = wanted;
        }
        // A full cache hands its least recently used frames' lists to the new one (through the
        // pool) until the frames kept and the new one fit the bound, so that a seek in a warm cache
        // reuses memory touched before instead of allocating (each fresh page is a page fault).
        evict(rec, frame_demand(lists, lists_size, NULL), UINT64_MAX, true);
        at = (ptrdiff_t)rec->cache_count;
        rec_cache_entry *e = &rec->cache[rec->cache_count++];
        *e = (rec_cache_entry){.frame = frame, .record_bytes = rec->frames[frame].length};
        status = decode_lists(rec, frame, e, lists, lists_size, err);
        if (status != SR_OK) {
            drop_entry(rec, (size_t)at, true); // the frame is not cached; its lists are pooled
            trim(rec, UINT64_MAX);
            return status;
        }
        decoded++;
    }
    rec->cache[at].last_use = ++rec->seeks;
    trim(rec, frame);
    at = find_cached(rec, frame);
    rec_cache_entry *e = &rec->cache[at];

    sr_recording_frame *f = &rec->current;
    const rec_frame_entry *entry = &rec->frames[frame];
    f->index = frame;
    f->time = entry->time;
    f->keyframe = entry->flags & REC_ENTRY_KEYFRAME;
    f->scene = rec->scene.scene;
    f->has_camera = rec->scene.view.has_camera;
    f->camera = rec->scene.view.camera;
    f->lists = (sr_debug_list *const *)e->lists;
    f->list_count = e->list_count;
    f->list_names = rec->info.list_names;
    f->record_bytes = entry->length;
    f->frames_decoded = decoded;
    // The frame's messages: they are in frame order.
    size_t first = 0;
    while (first < rec->message_count && rec->messages[first].frame < frame)
        first++;
    size_t last = first;
    while (last < rec->message_count && rec->messages[last].frame == frame)
        last++;
    f->message_first = first;
    f->message_count = last - first;
    rec->has_current = true;
    rec->current_frame = frame;
    if (out)
        *out = *f;
    sr_error_clear(err);
    return SR_OK;
}

/* The file's largest frame (its records' bytes) read once, while it fits the bound: the read
 * buffer grown to it (the kernel writes its pages) and its largest list's items learnt, the size
 * of the spares (a first visit to it then finds both ready). False when nothing was done. */
static bool read_largest_frame(sr_recording *rec)
{
    rec->largest_frame_read = true;
    uint64_t largest = 0;
    for (uint64_t f = 1; f < rec->frame_count; f++)
        if (rec->frames[f].length > rec->frames[largest].length)
            largest = f;
    size_t length = rec->frames[largest].length;
    if (length > rec->buffer_capacity && cache_total(rec) - rec->buffer_capacity + length > rec->cache_limit)
        return false; // it would not fit: the spares take the largest list decoded
    const uint8_t *state, *lists;
    uint32_t state_size, lists_size;
    if (read_frame(rec, largest, true, &state, &state_size, &lists, &lists_size, NULL) != SR_OK)
        return false; // a damaged frame: its seek will say so
    size_t items;
    frame_demand(lists, lists_size, &items);
    if (items > rec->largest_list_items)
        rec->largest_list_items = items;
    return true;
}

bool sr_recording_prepare(sr_recording *rec)
{
    if (!rec || !rec->has_current || rec->cache_count >= rec->frame_count)
        return false;
    if (!rec->largest_frame_read && read_largest_frame(rec))
        return true;
    size_t items = rec->largest_list_items;
    if (items == 0)
        return false;
    for (size_t i = 0; i < rec->pool_count; i++)
        if (list_fits(rec->pool[i], (uint32_t)items))
            return false; // a spare is ready
    // The spare, and what the shared draw scratch grows by for it (a segment a line, at most).
    size_t scratch = sr_debug_scratch_bytes(rec->draw_scratch),
           scratch_needed = (2 * items + 3 * 16) * sizeof(sr_line_vertex);
    size_t demand = list_memory_for(items) + (scratch_needed > scratch ? scratch_needed - scratch : 0);
    if (cache_total(rec) + demand > rec->cache_limit)
        return false; // the cache is full: frames decode into the memory of those they drop
    sr_debug_list *list = make_list(rec, items, true, NULL);
    if (!list)
        return false;
    size_t pooled = rec->pool_count;
    pool_push(rec, list);
    if (rec->pool_count == pooled) // out of memory for the pool's array: the list was freed
        return false;
    if (cache_total(rec) > rec->cache_limit) { // larger than foreseen: not kept
        rec->pool_bytes -= rec_list_memory(list);
        rec->pool_count--;
        sr_debug_list_destroy(list);
        return false;
    }
    rec->stats.spares++;
    return true;
}

const sr_recording_frame *sr_recording_current(const sr_recording *rec)
{
    return rec ? &rec->current : NULL;
}

sr_node_id sr_recording_source_node(const sr_recording *rec, sr_node_id node)
{
    if (!rec || !rec->scene.scene || !sr_scene_node_is_valid(rec->scene.scene, node) ||
        node.index >= rec->scene.source_capacity)
        return SR_NODE_NULL;
    rec_source s = rec->scene.source_of[node.index];
    return s.generation ? (sr_node_id){s.slot, s.generation} : SR_NODE_NULL;
}

sr_node_id sr_recording_node_of_source(const sr_recording *rec, sr_node_id source)
{
    if (!rec || source.generation == 0)
        return SR_NODE_NULL;
    const rec_scene_reader *r = &rec->scene;
    size_t low = 0, high = r->built_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (r->built[middle].slot < source.index)
            low = middle + 1;
        else
            high = middle;
    }
    if (low < r->built_count && r->built[low].slot == source.index && r->built[low].generation == source.generation)
        return r->built[low].id;
    return SR_NODE_NULL;
}

sr_recording_cache_stats sr_recording_get_cache_stats(const sr_recording *rec)
{
    if (!rec)
        return (sr_recording_cache_stats){0};
    sr_recording_cache_stats s = rec->stats;
    s.bytes = cache_total(rec);
    s.pooled_bytes = rec->pool_bytes;
    s.draw_segments = sr_debug_scratch_segments(rec->draw_scratch);
    s.limit = rec->cache_limit;
    s.frames = rec->cache_count;
    s.scene_bytes = rec_scene_reader_bytes(&rec->scene);
    return s;
}
