/* src/record/recording.c — opening a recording (softrast/record.h): its header, then its index
 * through the trailer (one read at the end of the file), or, when the writer never closed the
 * file (or the index is damaged), a scan of the records from the start: each record's head and
 * first bytes are read (never the lists themselves), the scan stopping at the first record that
 * the file does not hold whole, and the last frame's records are checked whole. Also the
 * queries of what was opened: info, frame times, keyframes, messages. Playback is
 * record_playback.c. */
#include "record_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens `path` for reading without waiting: a FIFO with no writer would block open() forever (a
 * reader only reads regular files, which O_NONBLOCK does not affect). */
static int open_for_reading(const char *path)
{
    return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

bool sr_recording_probe(const char *path)
{
    int fd = path ? open_for_reading(path) : -1;
    if (fd < 0)
        return false;
    char magic[SR_RECORD_MAGIC_SIZE];
    struct stat st;
    bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic &&
                memcmp(magic, SR_RECORD_MAGIC, sizeof magic) == 0;
    close(fd);
    return same;
}

static bool grow(void **array, size_t *capacity, size_t needed, size_t size)
{
    return rec_grow(array, capacity, needed, size, 256);
}

sr_status rec_read_at(sr_recording *rec, uint64_t offset, size_t size, uint8_t **buffer, size_t *capacity,
                      sr_error *err)
{
    if (size > *capacity) {
        uint8_t *grown = sr_realloc(*buffer, size);
        if (!grown)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory reading %zu bytes", rec->path, size);
        *buffer = grown;
        *capacity = size;
    }
    size_t done = 0;
    while (done < size) {
        ssize_t got = pread(rec->fd, *buffer + done, size - done, (off_t)(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return sr_error_set(err, SR_ERROR_IO, "%s: cannot read %zu bytes at offset %llu: %s", rec->path, size,
                                (unsigned long long)offset, got < 0 ? strerror(errno) : "the file is shorter");
        done += (size_t)got;
    }
    rec->stats.bytes_read += size;
    return SR_OK;
}

bool rec_record_check(const uint8_t *data, size_t size, uint32_t *type, const uint8_t **payload, uint32_t *payload_size,
                      char *why, size_t why_size)
{
    if (size < REC_RECORD_OVERHEAD) {
        snprintf(why, why_size, "%zu bytes, fewer than a record's head and checksum", size);
        return false;
    }
    uint32_t length = rec_load_u32(data + 1);
    if ((uint64_t)length + REC_RECORD_OVERHEAD > size) {
        snprintf(why, why_size, "a record of %llu bytes where %zu remain",
                 (unsigned long long)length + REC_RECORD_OVERHEAD, size);
        return false;
    }
    uint32_t stored = rec_load_u32(data + REC_RECORD_HEAD + length);
    if (rec_crc32c(0, data, REC_RECORD_HEAD + (size_t)length) != stored) {
        snprintf(why, why_size, "the checksum of a record of type %u does not match", data[0]);
        return false;
    }
    *type = data[0];
    *payload = data + REC_RECORD_HEAD;
    *payload_size = length;
    return true;
}

/* ---- building the tables ---- */

typedef struct tables {
    size_t frame_capacity, definition_capacity, message_capacity, text_size, text_capacity;
} tables;

static bool add_frame(sr_recording *rec, tables *t, rec_frame_entry entry)
{
    if (!grow((void **)&rec->frames, &t->frame_capacity, (size_t)rec->frame_count + 1, sizeof *rec->frames))
        return false;
    rec->frames[rec->frame_count++] = entry;
    if (entry.flags & REC_ENTRY_STATE)
        rec->has_state = true;
    return true;
}

static bool add_definition(sr_recording *rec, tables *t, rec_definition definition)
{
    if (!grow((void **)&rec->definitions, &t->definition_capacity, rec->definition_count + 1, sizeof *rec->definitions))
        return false;
    rec->definitions[rec->definition_count++] = definition;
    return true;
}

/* Messages keep their text's offset in `text` as the pointer until fix_messages. */
static bool add_message(sr_recording *rec, tables *t, uint64_t frame, uint32_t level, const char *text, size_t length)
{
    if (!grow((void **)&rec->messages, &t->message_capacity, rec->message_count + 1, sizeof *rec->messages) ||
        !grow((void **)&rec->message_text, &t->text_capacity, t->text_size + length + 1, 1))
        return false;
    memcpy(rec->message_text + t->text_size, text, length);
    rec->message_text[t->text_size + length] = '\0';
    rec->messages[rec->message_count++] =
        (sr_recording_message){frame, 0.0, (sr_record_level)level, (const char *)(uintptr_t)t->text_size};
    t->text_size += length + 1;
    return true;
}

static int compare_definitions(const void *a, const void *b)
{
    const rec_definition *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Pointers from offsets, frames clamped to the last one, times; the definitions sorted. */
static void finish_tables(sr_recording *rec)
{
    for (size_t i = 0; i < rec->message_count; i++) {
        sr_recording_message *m = &rec->messages[i];
        m->text = rec->message_text + (uintptr_t)m->text;
        if (rec->frame_count && m->frame >= rec->frame_count)
            m->frame = rec->frame_count - 1;
        m->time = rec->frame_count ? rec->frames[m->frame].time : 0.0;
    }
    rec_sort(rec->definitions, rec->definition_count, sizeof *rec->definitions, compare_definitions);
}

/* ---- the index ---- */

/* Reads the trailer and the index; false (with the reason in `why`) when there is none or it
 * does not hold together, and the caller scans. */
static bool read_index(sr_recording *rec, tables *t, char *why, size_t why_size, sr_status *failure, sr_error *err)
{
    *failure = SR_OK;
    uint64_t start = rec->header.size;
    if (rec->file_size < start + REC_TRAILER_SIZE + REC_RECORD_OVERHEAD) {
        snprintf(why, why_size, "no index");
        return false;
    }
    uint8_t trailer[REC_TRAILER_SIZE];
    uint8_t *buffer = rec->buffer;
    if ((*failure = rec_read_at(rec, rec->file_size - REC_TRAILER_SIZE, REC_TRAILER_SIZE, &rec->buffer,
                                &rec->buffer_capacity, err)) != SR_OK)
        return false;
    (void)buffer;
    memcpy(trailer, rec->buffer, sizeof trailer);
    if (memcmp(trailer, REC_TRAILER_MAGIC, 8) != 0) {
        snprintf(why, why_size, "no index (the writer did not close the file)");
        return false;
    }
    uint64_t index_offset = rec_load_u64(trailer + 8), frames = rec_load_u64(trailer + 16);
    if (rec_crc32c(0, trailer, 28) != rec_load_u32(trailer + 28) || index_offset < start ||
        index_offset > rec->file_size - REC_TRAILER_SIZE - REC_RECORD_OVERHEAD) {
        snprintf(why, why_size, "the trailer is damaged");
        return false;
    }
    size_t size = (size_t)(rec->file_size - REC_TRAILER_SIZE - index_offset);
    if ((*failure = rec_read_at(rec, index_offset, size, &rec->buffer, &rec->buffer_capacity, err)) != SR_OK)
        return false;
    uint32_t type, length;
    const uint8_t *payload;
    if (!rec_record_check(rec->buffer, size, &type, &payload, &length, why, why_size) || type != REC_INDEX ||
        length + REC_RECORD_OVERHEAD != size) {
        snprintf(why, why_size, "the index is damaged");
        return false;
    }
    rec_cursor c = rec_cursor_make(payload, length);
    uint64_t count = rec_get_count(&c, rec_left(&c) / 11);
    if (c.bad || count != frames) {
        snprintf(why, why_size, "the index disagrees with the trailer");
        return false;
    }
    uint64_t offset = 0, end = start;
    for (uint64_t i = 0; i < count; i++) {
        offset += rec_get_varint(&c);
        uint64_t frame_length = rec_get_varint(&c);
        double time = rec_get_f64(&c);
        uint32_t flags = rec_get_u8(&c) & (REC_ENTRY_KEYFRAME | REC_ENTRY_STATE);
        if (c.bad || offset < end || frame_length < REC_RECORD_OVERHEAD || frame_length > UINT32_MAX ||
            frame_length > index_offset - offset || !isfinite(time)) {
            snprintf(why, why_size, "the index's frame %llu is damaged", (unsigned long long)i);
            return false;
        }
        if (!add_frame(rec, t, (rec_frame_entry){offset, time, (uint32_t)frame_length, flags})) {
            *failure = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory reading the index", rec->path);
            return false;
        }
        end = offset + frame_length;
    }
    uint64_t definitions = rec_get_count(&c, rec_left(&c) / 4);
    offset = 0;
    for (uint64_t i = 0; i < definitions; i++) {
        uint32_t definition_type = rec_get_u8(&c);
        uint64_t id = rec_get_varint(&c);
        offset += rec_get_varint(&c);
        uint64_t definition_size = rec_get_varint(&c);
        if (c.bad || id == 0 || id > UINT32_MAX || offset < start || definition_size < REC_RECORD_OVERHEAD ||
            definition_size > index_offset - offset) {
            snprintf(why, why_size, "the index's definition %llu is damaged", (unsigned long long)i);
            return false;
        }
        if (!add_definition(rec, t, (rec_definition){definition_type, (uint32_t)id, offset, definition_size})) {
            *failure = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory reading the index", rec->path);
            return false;
        }
    }
    uint64_t messages = rec_get_count(&c, rec_left(&c) / 3);
    for (uint64_t i = 0; i < messages; i++) {
        uint64_t frame = rec_get_varint(&c);
        uint32_t level = rec_get_u8(&c);
        size_t text_length = 0;
        const char *text = rec_get_string(&c, REC_MAX_MESSAGE, &text_length);
        if (c.bad || !text || level > SR_RECORD_ERROR || memchr(text, '\0', text_length)) {
            snprintf(why, why_size, "the index's message %llu is damaged", (unsigned long long)i);
            return false;
        }
        if (!add_message(rec, t, frame, level, text, text_length)) {
            *failure = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory reading the index", rec->path);
            return false;
        }
    }
    sr_record_sizes *s = &rec->info.bytes;
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++)
        s->items[k] = rec_get_varint(&c);
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++)
        s->item_counts[k] = rec_get_varint(&c);
    uint64_t *rest[8] = {&s->meshes, &s->textures, &s->materials,      &s->nodes,
                         &s->views,  &s->messages, &s->unsorted_items, &s->framing};
    for (int k = 0; k < 8; k++)
        *rest[k] = rec_get_varint(&c);
    uint64_t lists = rec_get_count(&c, REC_MAX_LISTS);
    uint32_t flags = rec_get_u8(&c);
    if (rec_left(&c)) // format 1.1: the shapes' bytes (a 1.0 index ends before)
        s->shapes = rec_get_varint(&c);
    if (c.bad) {
        snprintf(why, why_size, "the index's totals are damaged");
        return false;
    }
    s->framing += size + REC_TRAILER_SIZE; // the index and trailer count as framing
    s->total = rec->file_size;
    rec->info.list_count = (size_t)lists;
    rec->info.has_scene = flags & 1u;
    return true;
}

/* Forgets what a failed index read put in the tables. */
static void clear_tables(sr_recording *rec, tables *t)
{
    rec->frame_count = 0;
    rec->definition_count = 0;
    rec->message_count = 0;
    rec->has_state = false;
    t->text_size = 0;
    rec->info.bytes = (sr_record_sizes){0};
    rec->info.list_count = 0;
    rec->info.has_scene = false;
}

/* ---- the scan ---- */

/* Checks that frame `i`'s records (state, then frame) are whole and valid. */
static bool frame_records_valid(sr_recording *rec, uint64_t i, sr_status *failure, sr_error *err)
{
    const rec_frame_entry *e = &rec->frames[i];
    if ((*failure = rec_read_at(rec, e->offset, e->length, &rec->buffer, &rec->buffer_capacity, err)) != SR_OK)
        return false;
    size_t at = 0;
    char why[128];
    while (at < e->length) {
        uint32_t type, length;
        const uint8_t *payload;
        if (!rec_record_check(rec->buffer + at, e->length - at, &type, &payload, &length, why, sizeof why))
            return false;
        at += REC_RECORD_OVERHEAD + length;
    }
    return true;
}

static sr_status scan(sr_recording *rec, tables *t, const sr_recording_desc *desc, const char *reason, sr_error *err)
{
    sr_record_sizes *s = &rec->info.bytes;
    s->framing = rec->header.size;
    uint64_t offset = rec->header.size;
    uint64_t state_offset = 0;
    bool pending_state = false, pending_keyframe = false;
    char stop[256] = "";
    char stage[300];
    snprintf(stage, sizeof stage, "scanning %s", rec->path);
    if (desc && desc->progress && !desc->progress(desc->user, stage, 0.0))
        return sr_error_set(err, SR_ERROR_CANCELLED, "%s: opening cancelled", rec->path);
    uint64_t reported = offset;

    while (offset < rec->file_size) {
        uint64_t left = rec->file_size - offset;
        if (left < REC_RECORD_OVERHEAD) {
            snprintf(stop, sizeof stop, "%llu bytes at offset %llu are a cut record", (unsigned long long)left,
                     (unsigned long long)offset);
            break;
        }
        size_t prefix = left < 64 ? (size_t)left : 64;
        sr_status status = rec_read_at(rec, offset, prefix, &rec->buffer, &rec->buffer_capacity, err);
        if (status != SR_OK)
            return status;
        const uint8_t *b = rec->buffer;
        uint32_t type = b[0];
        uint64_t length = rec_load_u32(b + 1), total = length + REC_RECORD_OVERHEAD;
        if (total > left) {
            snprintf(stop, sizeof stop, "%llu bytes at offset %llu are an incomplete record (of %llu bytes)",
                     (unsigned long long)left, (unsigned long long)offset, (unsigned long long)total);
            break;
        }
        rec_cursor c = rec_cursor_make(b + REC_RECORD_HEAD, prefix - REC_RECORD_HEAD);
        bool ok = true;
        if (type == REC_FRAME) {
            uint64_t frame = rec_get_varint(&c);
            double time = rec_get_f64(&c);
            uint64_t lists = rec_get_varint(&c);
            ok = !c.bad && frame == rec->frame_count && isfinite(time) && lists <= REC_MAX_LISTS;
            if (ok) {
                uint64_t first = pending_state ? state_offset : offset;
                uint32_t flags = pending_state ? REC_ENTRY_STATE | (pending_keyframe ? REC_ENTRY_KEYFRAME : 0u)
                                               : (rec->has_state ? 0u : REC_ENTRY_KEYFRAME);
                if (offset + total - first > UINT32_MAX ||
                    !add_frame(rec, t, (rec_frame_entry){first, time, (uint32_t)(offset + total - first), flags}))
                    return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory scanning", rec->path);
                if (lists > rec->info.list_count)
                    rec->info.list_count = (size_t)lists;
                s->framing += REC_RECORD_OVERHEAD;
                s->unsorted_items += length;
                pending_state = false;
            }
        } else if (type == REC_STATE) {
            uint64_t frame = rec_get_varint(&c);
            uint32_t flags = rec_get_u8(&c);
            ok = !c.bad && frame == rec->frame_count && !pending_state;
            if (ok) {
                pending_state = true;
                pending_keyframe = flags & REC_STATE_KEYFRAME;
                state_offset = offset;
                s->framing += REC_RECORD_OVERHEAD;
                s->nodes += length;
            }
        } else if (type == REC_MESH || type == REC_TEXTURE || type == REC_MATERIAL || type == REC_HULL) {
            uint64_t id = rec_get_varint(&c);
            ok = !c.bad && id && id <= UINT32_MAX;
            if (ok && !add_definition(rec, t, (rec_definition){type, (uint32_t)id, offset, total}))
                return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory scanning", rec->path);
            uint64_t *bucket = type == REC_MESH      ? &s->meshes
                               : type == REC_TEXTURE ? &s->textures
                               : type == REC_HULL    ? &s->shapes
                                                     : &s->materials;
            *bucket += ok ? total : 0;
        } else if (type == REC_MESSAGE) {
            status = rec_read_at(rec, offset, (size_t)total, &rec->buffer, &rec->buffer_capacity, err);
            if (status != SR_OK)
                return status;
            uint32_t record_type, payload_size;
            const uint8_t *payload;
            char why[128];
            ok = rec_record_check(rec->buffer, (size_t)total, &record_type, &payload, &payload_size, why, sizeof why);
            if (ok) {
                rec_cursor m = rec_cursor_make(payload, payload_size);
                uint64_t frame = rec_get_varint(&m);
                uint32_t level = rec_get_u8(&m);
                size_t text_length = 0;
                const char *text = rec_get_string(&m, REC_MAX_MESSAGE, &text_length);
                ok = !m.bad && text && level <= SR_RECORD_ERROR && !memchr(text, '\0', text_length);
                if (ok && !add_message(rec, t, frame, level, text, text_length))
                    return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory scanning", rec->path);
                s->messages += ok ? total : 0;
            }
        } else if (type == REC_INDEX) {
            snprintf(stop, sizeof stop, "an index at offset %llu without a valid trailer", (unsigned long long)offset);
            break;
        } else {
            rec->info.unknown_records++; // a newer minor version's record: skipped
            s->framing += total;
        }
        if (!ok) {
            snprintf(stop, sizeof stop, "the record at offset %llu (type %u, %llu bytes) is damaged",
                     (unsigned long long)offset, type, (unsigned long long)total);
            break;
        }
        offset += total;
        if (desc && desc->progress && offset - reported > ((uint64_t)64 << 20)) {
            reported = offset;
            if (!desc->progress(desc->user, stage, (double)offset / (double)rec->file_size))
                return sr_error_set(err, SR_ERROR_CANCELLED, "%s: opening cancelled", rec->path);
        }
    }
    uint64_t readable = offset;
    if (pending_state) {
        // A state record whose frame never came: the writer died between the two.
        readable = state_offset;
        if (!stop[0])
            snprintf(stop, sizeof stop, "the frame at offset %llu lacks its lists", (unsigned long long)state_offset);
    }
    // The records were not checked whole on the way: the last frame is (a killed writer's last
    // write is the one that may be torn), dropping frames until one is valid.
    uint64_t dropped = 0;
    while (rec->frame_count) {
        sr_status failure = SR_OK;
        if (frame_records_valid(rec, rec->frame_count - 1, &failure, err))
            break;
        if (failure != SR_OK)
            return failure;
        readable = rec->frames[rec->frame_count - 1].offset;
        rec->frame_count--;
        dropped++;
    }
    if (dropped && !stop[0])
        snprintf(stop, sizeof stop, "the last frame's records are damaged");
    rec->info.readable_bytes = readable;
    rec->info.truncated = readable < rec->file_size;
    s->total = rec_sizes_sum(s);
    if (rec->info.truncated)
        snprintf(rec->note, sizeof rec->note, "%s: scanned %llu frames; %s; %llu bytes from offset %llu are ignored",
                 reason, (unsigned long long)rec->frame_count, stop, (unsigned long long)(rec->file_size - readable),
                 (unsigned long long)readable);
    else
        snprintf(rec->note, sizeof rec->note, "%s: scanned %llu frames, every record complete", reason,
                 (unsigned long long)rec->frame_count);
    if (desc && desc->progress && !desc->progress(desc->user, stage, 1.0))
        return sr_error_set(err, SR_ERROR_CANCELLED, "%s: opening cancelled", rec->path);
    return SR_OK;
}

/* ---- opening ---- */

static sr_status read_header(sr_recording *rec, sr_error *err)
{
    size_t first = rec->file_size < REC_HEADER_FIXED ? (size_t)rec->file_size : REC_HEADER_FIXED;
    sr_status status = rec_read_at(rec, 0, first, &rec->buffer, &rec->buffer_capacity, err);
    if (status != SR_OK)
        return status;
    size_t size = first;
    if (first == REC_HEADER_FIXED && memcmp(rec->buffer, SR_RECORD_MAGIC, SR_RECORD_MAGIC_SIZE) == 0) {
        uint32_t length = rec_load_u32(rec->buffer + 12);
        uint64_t needed = (uint64_t)REC_HEADER_FIXED + length + 4;
        if (needed <= rec->file_size && length <= REC_MAX_HEADER_PAYLOAD) {
            status = rec_read_at(rec, 0, (size_t)needed, &rec->buffer, &rec->buffer_capacity, err);
            if (status != SR_OK)
                return status;
            size = (size_t)needed;
        }
    }
    return rec_header_parse(rec->path, rec->buffer, size, rec->file_size, &rec->header, err);
}

static sr_status make_list_names(sr_recording *rec)
{
    size_t count = rec->info.list_count;
    if (count < rec->header.list_name_count)
        count = rec->info.list_count = rec->header.list_name_count;
    rec->list_names = count ? sr_calloc(count, sizeof *rec->list_names) : NULL;
    if (count && !rec->list_names)
        return SR_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < count; i++) {
        char made[32];
        const char *name = i < rec->header.list_name_count ? rec->header.list_names[i] : made;
        snprintf(made, sizeof made, "list %zu", i);
        size_t length = strlen(name);
        rec->list_names[i] = sr_alloc(length + 1);
        if (!rec->list_names[i])
            return SR_ERROR_OUT_OF_MEMORY;
        memcpy(rec->list_names[i], name, length + 1);
    }
    rec->info.list_names = (const char *const *)rec->list_names;
    return SR_OK;
}

sr_status rec_open(const char *path, const sr_recording_desc *desc, bool verify, sr_recording **out, sr_error *err)
{
    (void)verify;
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recording_open: out is NULL");
    *out = NULL;
    if (!path)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recording_open: path is NULL");
    sr_recording *rec = sr_calloc(1, sizeof *rec);
    size_t path_length = strlen(path);
    if (rec)
        rec->path = sr_alloc(path_length + 1);
    if (!rec || !rec->path) {
        sr_free(rec);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory opening the recording", path);
    }
    memcpy(rec->path, path, path_length + 1);
    rec->cache_limit = desc && desc->cache_bytes ? desc->cache_bytes : REC_DEFAULT_CACHE_BYTES;
    rec->stats.limit = rec->cache_limit;
    rec->scene.read = rec_read_definition;
    rec->scene.user = rec;
    rec->fd = open_for_reading(path);
    struct stat st;
    sr_status status = SR_OK;
    if (rec->fd < 0)
        status = sr_error_set(err, SR_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    else if (fstat(rec->fd, &st) != 0)
        status = sr_error_set(err, SR_ERROR_IO, "%s: cannot read its size: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        status = sr_error_set(err, SR_ERROR_IO, "%s: not a regular file", path);
    if (status == SR_OK) {
        rec->file_size = (uint64_t)st.st_size;
        status = read_header(rec, err);
    }
    tables t = {0};
    if (status == SR_OK) {
        char why[160] = "";
        sr_status failure;
        if (read_index(rec, &t, why, sizeof why, &failure, err)) {
            rec->info.closed_cleanly = true;
            rec->info.readable_bytes = rec->file_size;
            snprintf(rec->note, sizeof rec->note, "closed cleanly: %llu frames, read from its index",
                     (unsigned long long)rec->frame_count);
        } else if (failure != SR_OK) {
            status = failure;
        } else {
            clear_tables(rec, &t);
            status = scan(rec, &t, desc, why, err);
        }
    }
    if (status == SR_OK) {
        finish_tables(rec);
        if (make_list_names(rec) != SR_OK)
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory opening the recording", path);
    }
    if (status != SR_OK) {
        sr_recording_destroy(rec);
        return status;
    }
    sr_recording_info *info = &rec->info;
    info->version_major = rec->header.major;
    info->version_minor = rec->header.minor;
    info->title = rec->header.title;
    info->frame_count = rec->frame_count;
    info->keyframe_interval = rec->header.keyframe_interval;
    info->message_count = rec->message_count;
    info->file_bytes = rec->file_size;
    info->note = rec->note;
    info->has_scene = info->has_scene || rec->has_state;
    info->times_increase = true;
    if (rec->frame_count) {
        info->first_time = rec->frames[0].time;
        info->last_time = rec->frames[rec->frame_count - 1].time;
        for (uint64_t i = 1; i < rec->frame_count; i++)
            if (rec->frames[i].time < rec->frames[i - 1].time)
                info->times_increase = false;
    }
    rec->current.lists = NULL;
    rec->current.list_names = info->list_names;
    *out = rec;
    sr_error_clear(err);
    return SR_OK;
}

sr_status sr_recording_open(const char *path, const sr_recording_desc *desc, sr_recording **out, sr_error *err)
{
    return rec_open(path, desc, false, out, err);
}

void sr_recording_destroy(sr_recording *rec)
{
    if (!rec)
        return;
    if (rec->fd >= 0)
        close(rec->fd);
    rec_cache_free(rec);
    rec_scene_reader_free(&rec->scene);
    rec_decode_scratch_free(&rec->scratch);
    rec_header_free(&rec->header);
    for (size_t i = 0; rec->list_names && i < rec->info.list_count; i++)
        sr_free(rec->list_names[i]);
    sr_free(rec->list_names);
    sr_free(rec->frames);
    sr_free(rec->definitions);
    sr_free(rec->messages);
    sr_free(rec->message_text);
    sr_free(rec->buffer);
    sr_free(rec->definition_buffer);
    sr_free(rec->path);
    sr_free(rec);
}

sr_status rec_read_definition(void *user, uint32_t type, uint32_t id, const uint8_t **payload, size_t *size,
                              sr_error *err)
{
    sr_recording *rec = user;
    rec_definition key = {type, id, 0, 0};
    const rec_definition *d = rec->definition_count ? bsearch(&key, rec->definitions, rec->definition_count,
                                                              sizeof *rec->definitions, compare_definitions)
                                                    : NULL;
    static const char *const names[] = {"", "", "", "mesh", "", "texture", "material", "", "", "hull"};
    const char *name = type < sizeof names / sizeof *names ? names[type] : "definition";
    if (!d)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: %s %u is used but never defined (a damaged file)", rec->path,
                            name, id);
    sr_status status =
        rec_read_at(rec, d->offset, (size_t)d->size, &rec->definition_buffer, &rec->definition_capacity, err);
    if (status != SR_OK)
        return status;
    uint32_t record_type, length;
    char why[128];
    if (!rec_record_check(rec->definition_buffer, (size_t)d->size, &record_type, payload, &length, why, sizeof why) ||
        record_type != type || length + REC_RECORD_OVERHEAD != d->size)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: the definition of %s %u at offset %llu is damaged (%s)",
                            rec->path, name, id, (unsigned long long)d->offset, why);
    *size = length;
    return SR_OK;
}

/* ---- queries ---- */

const sr_recording_info *sr_recording_get_info(const sr_recording *rec)
{
    return rec ? &rec->info : NULL;
}

double sr_recording_frame_time(const sr_recording *rec, uint64_t frame)
{
    return rec && frame < rec->frame_count ? rec->frames[frame].time : NAN;
}

uint64_t sr_recording_frame_at_time(const sr_recording *rec, double time)
{
    if (!rec || rec->frame_count == 0 || !(time >= rec->frames[0].time) || isnan(time))
        return 0;
    if (rec->info.times_increase) {
        // The last frame whose time is at most `time`.
        uint64_t low = 0, high = rec->frame_count;
        while (high - low > 1) {
            uint64_t middle = low + (high - low) / 2;
            if (rec->frames[middle].time <= time)
                low = middle;
            else
                high = middle;
        }
        return low;
    }
    uint64_t best = 0;
    for (uint64_t i = 1; i < rec->frame_count; i++)
        if (fabs(rec->frames[i].time - time) < fabs(rec->frames[best].time - time))
            best = i;
    return best;
}

bool sr_recording_frame_is_keyframe(const sr_recording *rec, uint64_t frame)
{
    return rec && frame < rec->frame_count && (rec->frames[frame].flags & REC_ENTRY_KEYFRAME);
}

const sr_recording_message *sr_recording_messages(const sr_recording *rec, size_t *count)
{
    if (count)
        *count = rec ? rec->message_count : 0;
    return rec && rec->message_count ? rec->messages : NULL;
}
