/* src/record/recorder.c — sr_recorder (softrast/record.h): the file's header at creation, one
 * frame per sr_recorder_frame (the definitions the scene needs, its STATE record, the FRAME
 * record of its lists) encoded into one buffer and handed to the kernel with one write, messages
 * at once, and at close the index and the trailer. The index is built in memory as frames are
 * written, with room reserved before each write so that nothing can fail after it. A failed
 * write cuts the file back to its last complete frame. */
#include "record_scene.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

struct sr_recorder {
    char *path;
    int fd;
    uint32_t keyframe_interval;
    uint64_t max_bytes;
    bool sync;
    /// Set by a failed write (or a frame past max_bytes): every later frame fails with this
    /// message. `broken`: the write failed, so the index is not written at close either.
    bool failed, broken;
    char failure[sizeof(((sr_error *)0)->message)];
    uint64_t offset; ///< bytes in the file
    uint64_t frames, keyframes, messages;
    sr_record_sizes sizes;
    uint64_t last_frame_bytes;
    rec_buffer out; ///< one frame's records
    rec_style_table styles;
    /// The index's parts, encoded as frames are written.
    rec_buffer index_frames, index_definitions, index_messages;
    uint64_t previous_frame_offset, previous_definition_offset, definition_count;
    size_t max_lists;
    bool camera_set;
    sr_camera camera;
    rec_scene_writer scene;
};

static sr_status write_all(sr_recorder *rec, const uint8_t *data, size_t size, sr_error *err)
{
    while (size) {
        ssize_t written = write(rec->fd, data, size);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return sr_error_set(err, SR_ERROR_IO, "%s: cannot write: %s", rec->path, strerror(errno));
        }
        data += written;
        size -= (size_t)written;
    }
    return SR_OK;
}

/* Writes `size` bytes of out at the end of the file; on failure the file is cut back to what it
 * was and the recorder refuses everything after. */
static sr_status append(sr_recorder *rec, const uint8_t *data, size_t size, bool limited, sr_error *err)
{
    if (limited && rec->max_bytes && (rec->offset + size + REC_TRAILER_SIZE > rec->max_bytes)) {
        // Nothing written: the file is whole, and its index still comes at close.
        sr_error_set(err, SR_ERROR_IO,
                     "%s: frame %llu would grow the recording past its limit of %llu bytes "
                     "(max_bytes); recording stopped",
                     rec->path, (unsigned long long)rec->frames, (unsigned long long)rec->max_bytes);
        rec->failed = true;
        snprintf(rec->failure, sizeof rec->failure, "%s", err ? err->message : "past max_bytes");
        rec_scene_write_failed(&rec->scene);
        return SR_ERROR_IO;
    }
    if (write_all(rec, data, size, err) == SR_OK) {
        if (rec->sync && fdatasync(rec->fd) != 0) {
            sr_error_set(err, SR_ERROR_IO, "%s: cannot sync: %s", rec->path, strerror(errno));
        } else {
            rec->offset += size;
            return SR_OK;
        }
    }
    // Whatever reached the file of this write is an incomplete record: cut it off, so that the
    // file ends with a complete frame.
    if (ftruncate(rec->fd, (off_t)rec->offset) != 0 || lseek(rec->fd, (off_t)rec->offset, SEEK_SET) < 0) {
        // The tail stays; a reader stops at it as at a crashed writer's.
    }
    rec->failed = rec->broken = true;
    snprintf(rec->failure, sizeof rec->failure, "%s", err ? err->message : "write failed");
    rec_scene_write_failed(&rec->scene);
    return SR_ERROR_IO;
}

static sr_status refuse(const sr_recorder *rec, sr_error *err)
{
    return sr_error_set(err, SR_ERROR_IO, "%s (the recording stopped; its frames so far are readable)", rec->failure);
}

/* The length of `text` kept when it is copied up to `max` bytes: cut before a UTF-8 sequence that
 * the limit would split, so that a long title, name or message stays valid UTF-8. */
static size_t kept_length(const char *text, size_t max)
{
    size_t length = strnlen(text, max);
    if (length == max && text[length] != '\0')
        while (length > 0 && ((unsigned char)text[length] & 0xc0u) == 0x80u)
            length--;
    return length;
}

sr_status sr_recorder_create(const char *path, const sr_recorder_desc *desc, sr_recorder **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recorder_create: out is NULL");
    *out = NULL;
    if (!path || !*path)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recorder_create: path is %s", path ? "empty" : "NULL");
    sr_recorder_desc d = desc ? *desc : (sr_recorder_desc){0};
    uint32_t interval = d.keyframe_interval ? d.keyframe_interval : REC_DEFAULT_KEYFRAME_INTERVAL;
    if (interval > REC_MAX_KEYFRAME_INTERVAL)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: keyframe_interval %u is over %u", path, interval,
                            REC_MAX_KEYFRAME_INTERVAL);
    if (d.list_name_count > REC_MAX_LIST_NAMES)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: %zu list names, more than %u", path, d.list_name_count,
                            REC_MAX_LIST_NAMES);
    if (d.list_name_count && !d.list_names)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: list_names is NULL with list_name_count %zu", path,
                            d.list_name_count);

    // The header: magic, version, payload (keyframe interval, title, list names), CRC.
    const char *title = d.title ? d.title : "";
    size_t title_length = kept_length(title, REC_MAX_TITLE);
    size_t size = REC_HEADER_FIXED + 4 + REC_VARINT_MAX + title_length + REC_VARINT_MAX + 4;
    for (size_t i = 0; i < d.list_name_count; i++)
        size += REC_VARINT_MAX + (d.list_names[i] ? kept_length(d.list_names[i], REC_MAX_LIST_NAME) : 0);

    sr_recorder *rec = sr_calloc(1, sizeof *rec);
    size_t path_length = strlen(path);
    if (rec)
        rec->path = sr_alloc(path_length + 1);
    if (!rec || !rec->path || !rec_buffer_reserve(&rec->out, size)) {
        if (rec)
            sr_free(rec->path);
        sr_free(rec);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory creating the recorder", path);
    }
    memcpy(rec->path, path, path_length + 1);
    rec->fd = -1;
    rec->keyframe_interval = interval;
    rec->max_bytes = d.max_bytes;
    rec->sync = d.sync;

    uint8_t *header = rec->out.data;
    memcpy(header, SR_RECORD_MAGIC, SR_RECORD_MAGIC_SIZE);
    uint8_t *p = rec_put_u16(header + SR_RECORD_MAGIC_SIZE, SR_RECORD_VERSION_MAJOR);
    p = rec_put_u16(p, SR_RECORD_VERSION_MINOR);
    uint8_t *length_at = p;
    p += 4;
    uint8_t *payload = p;
    p = rec_put_u32(p, interval);
    p = rec_put_string(p, title, title_length);
    p = rec_put_varint(p, d.list_name_count);
    for (size_t i = 0; i < d.list_name_count; i++) {
        const char *name = d.list_names[i] ? d.list_names[i] : "";
        p = rec_put_string(p, name, kept_length(name, REC_MAX_LIST_NAME));
    }
    rec_put_u32(length_at, (uint32_t)(p - payload));
    p = rec_put_u32(p, rec_crc32c(0, header + SR_RECORD_MAGIC_SIZE, (size_t)(p - header) - SR_RECORD_MAGIC_SIZE));
    size_t header_size = (size_t)(p - header);

    rec->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (rec->fd < 0) {
        sr_error_set(err, SR_ERROR_IO, "%s: cannot create: %s", path, strerror(errno));
        sr_recorder_destroy(rec);
        return SR_ERROR_IO;
    }
    if (append(rec, header, header_size, false, err) != SR_OK) {
        sr_recorder_destroy(rec);
        return SR_ERROR_IO;
    }
    rec->sizes.framing += header_size;
    *out = rec;
    return SR_OK;
}

sr_status sr_recorder_set_camera(sr_recorder *rec, const sr_camera *camera, sr_error *err)
{
    if (!rec)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recorder_set_camera: rec is NULL");
    if (!camera) {
        rec->camera_set = false;
        return SR_OK;
    }
    sr_camera resolved = sr_camera_resolve(camera);
    sr_status status = sr_camera_check(&resolved, err);
    if (status != SR_OK)
        return status;
    rec->camera = resolved;
    rec->camera_set = true;
    return SR_OK;
}

static sr_status out_of_memory(sr_recorder *rec, sr_error *err)
{
    rec_scene_write_failed(&rec->scene);
    return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory encoding frame %llu (nothing written)",
                        rec->path, (unsigned long long)rec->frames);
}

sr_status sr_recorder_frame(sr_recorder *rec, double time, sr_debug_list *const *lists, size_t list_count,
                            const sr_scene *scene, sr_error *err)
{
    if (!rec)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recorder_frame: rec is NULL");
    if (rec->failed)
        return refuse(rec, err);
    if (!isfinite(time))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: frame %llu: time %g is not finite", rec->path,
                            (unsigned long long)rec->frames, time);
    if (list_count && !lists)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: frame %llu: lists is NULL with list_count %zu",
                            rec->path, (unsigned long long)rec->frames, list_count);
    if (list_count > REC_MAX_LISTS)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: frame %llu: %zu lists, more than %u", rec->path,
                            (unsigned long long)rec->frames, list_count, REC_MAX_LISTS);

    sr_record_sizes sizes = {0};
    rec->out.size = 0;
    bool keyframe_due = rec->frames % rec->keyframe_interval == 0;
    rec_scene_written state;
    sr_status status = rec_scene_write(&rec->scene, scene, rec->camera_set ? &rec->camera : NULL, rec->frames,
                                       keyframe_due, &rec->out, &sizes, &state, err);
    if (status != SR_OK) {
        rec_scene_write_failed(&rec->scene);
        return status;
    }

    // The FRAME record: frame number, time, list count, then per list its item count, byte
    // length (both u32) and items.
    size_t bound = REC_RECORD_OVERHEAD + REC_VARINT_MAX + 8 + REC_VARINT_MAX;
    for (size_t i = 0; i < list_count; i++) {
        sr_debug_list_stats stats = sr_debug_list_get_stats(lists[i]);
        bound += 8 + rec_list_bound(&stats);
    }
    // Room for this frame's index entries, reserved now so that nothing fails once it is written.
    size_t definitions = rec->scene.new_definition_count;
    if (!rec_buffer_reserve(&rec->out, bound) || !rec_buffer_reserve(&rec->index_frames, 2 * REC_VARINT_MAX + 8 + 1) ||
        !rec_buffer_reserve(&rec->index_definitions, definitions * (1 + 3 * REC_VARINT_MAX)))
        return out_of_memory(rec, err);

    size_t frame_start = rec->out.size;
    uint8_t *record = rec->out.data + frame_start;
    uint8_t *p = record + REC_RECORD_HEAD;
    p = rec_put_varint(p, rec->frames);
    p = rec_put_f64(p, time);
    p = rec_put_varint(p, list_count);
    uint64_t item_bytes = 0;
    for (size_t i = 0; i < list_count; i++) {
        uint8_t *list_head = p;
        p += 8;
        uint64_t before = rec_sizes_sum(&sizes), encoded = 0;
        p = rec_list_encode(p, lists[i], &rec->styles, &sizes, &encoded);
        rec_put_u32(list_head, (uint32_t)encoded);
        rec_put_u32(list_head + 4, (uint32_t)(p - list_head - 8));
        item_bytes += rec_sizes_sum(&sizes) - before;
    }
    p = rec_record_finish(record, REC_FRAME, p);
    rec->out.size = (size_t)(p - rec->out.data);
    sizes.framing += (uint64_t)(rec->out.size - frame_start) - item_bytes;

    uint64_t base = rec->offset;
    status = append(rec, rec->out.data, rec->out.size, true, err);
    if (status != SR_OK)
        return status;

    // The index entries: definitions, then the frame (its first record, state or lists).
    for (size_t i = 0; i < definitions; i++) {
        const rec_definition *d = &rec->scene.new_definitions[i];
        uint64_t offset = base + d->offset;
        uint8_t *q = rec->index_definitions.data + rec->index_definitions.size;
        q = rec_put_u8(q, d->type);
        q = rec_put_varint(q, d->id);
        q = rec_put_varint(q, offset - rec->previous_definition_offset);
        q = rec_put_varint(q, d->size);
        rec->index_definitions.size = (size_t)(q - rec->index_definitions.data);
        rec->previous_definition_offset = offset;
    }
    rec->definition_count += definitions;
    rec->scene.new_definition_count = 0;
    uint64_t first = base + (state.state_size ? state.state_offset : frame_start);
    uint64_t length = base + rec->out.size - first;
    bool keyframe = state.state_size ? state.keyframe : !state.has_scene && !rec->scene.view.has_camera;
    uint8_t *q = rec->index_frames.data + rec->index_frames.size;
    q = rec_put_varint(q, first - rec->previous_frame_offset);
    q = rec_put_varint(q, length);
    q = rec_put_f64(q, time);
    q = rec_put_u8(q, (keyframe ? 1u : 0u) | (state.state_size ? 2u : 0u));
    rec->index_frames.size = (size_t)(q - rec->index_frames.data);
    rec->previous_frame_offset = first;

    rec->frames++;
    rec->keyframes += keyframe;
    rec->last_frame_bytes = length;
    if (list_count > rec->max_lists)
        rec->max_lists = list_count;
    rec_sizes_add(&rec->sizes, &sizes);
    return SR_OK;
}

sr_status sr_recorder_message(sr_recorder *rec, sr_record_level level, const char *text, sr_error *err)
{
    if (!rec || !text)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recorder_message: %s is NULL", rec ? "text" : "rec");
    if ((unsigned)level > SR_RECORD_ERROR)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: message level %d is not one of sr_record_level",
                            rec->path, (int)level);
    if (rec->failed)
        return refuse(rec, err);
    size_t length = kept_length(text, REC_MAX_MESSAGE);
    size_t bound = REC_RECORD_OVERHEAD + REC_VARINT_MAX + 1 + REC_VARINT_MAX + length;
    if (!rec_buffer_reserve(&rec->out, bound) ||
        !rec_buffer_reserve(&rec->index_messages, REC_VARINT_MAX + 1 + REC_VARINT_MAX + length))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory writing a message", rec->path);
    rec->out.size = 0;
    uint8_t *record = rec->out.data;
    uint8_t *p = record + REC_RECORD_HEAD;
    p = rec_put_varint(p, rec->frames);
    p = rec_put_u8(p, (uint32_t)level);
    p = rec_put_string(p, text, length);
    p = rec_record_finish(record, REC_MESSAGE, p);
    size_t size = (size_t)(p - record);
    sr_status status = append(rec, record, size, true, err);
    if (status != SR_OK)
        return status;
    uint8_t *q = rec->index_messages.data + rec->index_messages.size;
    q = rec_put_varint(q, rec->frames);
    q = rec_put_u8(q, (uint32_t)level);
    q = rec_put_string(q, text, length);
    rec->index_messages.size = (size_t)(q - rec->index_messages.data);
    rec->messages++;
    rec->sizes.messages += size;
    return SR_OK;
}

sr_recorder_stats sr_recorder_get_stats(const sr_recorder *rec)
{
    sr_recorder_stats stats = {0};
    if (!rec)
        return stats;
    stats.frames = rec->frames;
    stats.keyframes = rec->keyframes;
    stats.messages = rec->messages;
    stats.bytes = rec->sizes;
    stats.bytes.total = rec->offset;
    stats.last_frame_bytes = rec->last_frame_bytes;
    const rec_scene_writer *w = &rec->scene;
    stats.memory_bytes =
        sizeof *rec + rec->out.capacity + rec->index_frames.capacity + rec->index_definitions.capacity +
        rec->index_messages.capacity + w->node_capacity * sizeof *w->nodes + w->removed_capacity * sizeof *w->removed +
        w->changed_capacity * sizeof *w->changed + w->added_capacity * sizeof *w->added +
        (w->mesh_map_capacity + w->material_map_capacity + w->texture_map_capacity) * sizeof(uint32_t) +
        w->meshes_seen_capacity * sizeof *w->meshes_seen + w->new_definition_capacity * sizeof *w->new_definitions;
    return stats;
}

/* The INDEX record: frames, definitions, messages, the byte counts, the most lists a frame had. */
static sr_status write_index(sr_recorder *rec, sr_error *err)
{
    size_t bound = REC_RECORD_OVERHEAD + 3 * REC_VARINT_MAX + rec->index_frames.size + rec->index_definitions.size +
                   rec->index_messages.size + (2 * SR_DEBUG_ITEM_KIND_COUNT + 9) * REC_VARINT_MAX + REC_VARINT_MAX + 1 +
                   REC_TRAILER_SIZE;
    if (!rec_buffer_reserve(&rec->out, bound))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory writing the index", rec->path);
    rec->out.size = 0;
    uint8_t *record = rec->out.data;
    uint8_t *p = record + REC_RECORD_HEAD;
    p = rec_put_varint(p, rec->frames);
    rec_copy(p, rec->index_frames.data, rec->index_frames.size);
    p += rec->index_frames.size;
    p = rec_put_varint(p, rec->definition_count);
    rec_copy(p, rec->index_definitions.data, rec->index_definitions.size);
    p += rec->index_definitions.size;
    p = rec_put_varint(p, rec->messages);
    rec_copy(p, rec->index_messages.data, rec->index_messages.size);
    p += rec->index_messages.size;
    const sr_record_sizes *s = &rec->sizes;
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++)
        p = rec_put_varint(p, s->items[k]);
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++)
        p = rec_put_varint(p, s->item_counts[k]);
    const uint64_t rest[8] = {s->meshes, s->textures, s->materials,      s->nodes,
                              s->views,  s->messages, s->unsorted_items, s->framing};
    for (int k = 0; k < 8; k++)
        p = rec_put_varint(p, rest[k]);
    p = rec_put_varint(p, rec->max_lists);
    p = rec_put_u8(p, rec->scene.view.has_scene ? 1u : 0u);
    p = rec_put_varint(p, s->shapes); // format 1.1
    p = rec_record_finish(record, REC_INDEX, p);
    uint64_t index_offset = rec->offset;
    // The trailer.
    uint8_t *trailer = p;
    memcpy(p, REC_TRAILER_MAGIC, 8);
    p = rec_put_u64(p + 8, index_offset);
    p = rec_put_u64(p, rec->frames);
    p = rec_put_u32(p, 0);
    p = rec_put_u32(p, rec_crc32c(0, trailer, 28));
    size_t size = (size_t)(p - record);
    return append(rec, record, size, false, err);
}

sr_status sr_recorder_close(sr_recorder *rec, sr_error *err)
{
    if (!rec) {
        sr_error_clear(err);
        return SR_OK;
    }
    sr_status status = SR_OK;
    if (rec->fd >= 0) {
        if (rec->broken)
            status = refuse(rec, err);
        else
            status = write_index(rec, err);
        if (close(rec->fd) != 0 && status == SR_OK)
            status = sr_error_set(err, SR_ERROR_IO, "%s: cannot close: %s", rec->path, strerror(errno));
    }
    rec_buffer_free(&rec->out);
    rec_buffer_free(&rec->index_frames);
    rec_buffer_free(&rec->index_definitions);
    rec_buffer_free(&rec->index_messages);
    rec_scene_writer_free(&rec->scene);
    sr_free(rec->path);
    sr_free(rec);
    if (status == SR_OK)
        sr_error_clear(err);
    return status;
}

void sr_recorder_destroy(sr_recorder *rec)
{
    sr_recorder_close(rec, NULL);
}
