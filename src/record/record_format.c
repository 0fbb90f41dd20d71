/* src/record/record_format.c — the pieces of the format both sides use: the growable output
 * buffer, the file header (written by the recorder, parsed by the reader and the checker), and
 * the byte-count helpers. */
#include "record_internal.h"

#include <stdio.h>

bool rec_grow(void **array, size_t *capacity, size_t needed, size_t size, size_t first)
{
    if (needed <= *capacity)
        return true;
    size_t wanted = *capacity ? *capacity * 2 : first;
    if (wanted < needed)
        wanted = needed;
    if (wanted > SIZE_MAX / size)
        return false;
    void *grown = sr_realloc(*array, wanted * size);
    if (!grown)
        return false;
    *array = grown;
    *capacity = wanted;
    return true;
}

bool rec_buffer_reserve(rec_buffer *buffer, size_t extra)
{
    if (extra <= buffer->capacity - buffer->size)
        return true;
    if (extra > SIZE_MAX / 2 - buffer->size)
        return false;
    size_t wanted = buffer->capacity ? buffer->capacity : 4096;
    while (wanted - buffer->size < extra)
        wanted *= 2;
    uint8_t *grown = sr_realloc(buffer->data, wanted);
    if (!grown)
        return false;
    buffer->data = grown;
    buffer->capacity = wanted;
    return true;
}

void rec_buffer_free(rec_buffer *buffer)
{
    sr_free(buffer->data);
    *buffer = (rec_buffer){0};
}

void rec_header_free(rec_header *header)
{
    if (!header)
        return;
    sr_free(header->title);
    for (size_t i = 0; i < header->list_name_count; i++)
        sr_free(header->list_names[i]);
    sr_free(header->list_names);
    *header = (rec_header){0};
}

static char *copy_bytes(const char *bytes, size_t length)
{
    char *copy = sr_alloc(length + 1);
    if (copy) {
        if (length)
            memcpy(copy, bytes, length);
        copy[length] = '\0';
    }
    return copy;
}

sr_status rec_header_parse(const char *path, const uint8_t *data, size_t size, uint64_t file_size, rec_header *out,
                           sr_error *err)
{
    *out = (rec_header){0};
    if (size < SR_RECORD_MAGIC_SIZE || memcmp(data, SR_RECORD_MAGIC, SR_RECORD_MAGIC_SIZE) != 0)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: not a softrast recording (its first bytes are not the magic)",
                            path);
    if (size < REC_HEADER_FIXED)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: the header is cut short (%llu bytes in the file)", path,
                            (unsigned long long)file_size);
    rec_cursor c = rec_cursor_make(data + SR_RECORD_MAGIC_SIZE, size - SR_RECORD_MAGIC_SIZE);
    uint32_t major = rec_get_u16(&c), minor = rec_get_u16(&c), length = rec_get_u32(&c);
    if (major > SR_RECORD_VERSION_MAJOR)
        return sr_error_set(
            err, SR_ERROR_UNSUPPORTED,
            "%s: written in recording format %u.%u, newer than this build reads (%d.x): update softrast", path, major,
            minor, SR_RECORD_VERSION_MAJOR);
    if (major == 0)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: format version 0.%u does not exist (a damaged header)", path,
                            minor);
    uint64_t needed = (uint64_t)REC_HEADER_FIXED + length + 4u;
    if (length > REC_MAX_HEADER_PAYLOAD)
        return sr_error_set(err, SR_ERROR_PARSE,
                            "%s: the header announces %u bytes, more than a header holds (%u at most)", path, length,
                            REC_MAX_HEADER_PAYLOAD);
    if (needed > file_size)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: the header announces %u bytes, more than the file holds", path,
                            length);
    if (needed > size)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: the header (%llu bytes) was not read whole", path,
                            (unsigned long long)needed);
    uint32_t stored = rec_load_u32(data + REC_HEADER_FIXED + length);
    uint32_t computed = rec_crc32c(0, data + SR_RECORD_MAGIC_SIZE, REC_HEADER_FIXED - SR_RECORD_MAGIC_SIZE + length);
    if (stored != computed)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: the header's checksum does not match (a damaged file)", path);

    rec_cursor p = rec_cursor_make(data + REC_HEADER_FIXED, length);
    out->major = major;
    out->minor = minor;
    out->size = needed;
    out->keyframe_interval = rec_get_u32(&p);
    size_t title_length = 0;
    const char *title = rec_get_string(&p, REC_MAX_TITLE, &title_length);
    size_t names = (size_t)rec_get_count(&p, REC_MAX_LIST_NAMES);
    if (p.bad || !title || out->keyframe_interval == 0 || out->keyframe_interval > REC_MAX_KEYFRAME_INTERVAL) {
        rec_header_free(out);
        return sr_error_set(err, SR_ERROR_PARSE, "%s: the header's fields are malformed", path);
    }
    out->title = copy_bytes(title, title_length);
    out->list_names = names ? sr_calloc(names, sizeof *out->list_names) : NULL;
    bool ok = out->title && (names == 0 || out->list_names);
    for (size_t i = 0; ok && i < names; i++) {
        size_t name_length = 0;
        const char *name = rec_get_string(&p, REC_MAX_LIST_NAME, &name_length);
        if (!name) {
            rec_header_free(out);
            return sr_error_set(err, SR_ERROR_PARSE, "%s: the header's list name %zu is malformed", path, i);
        }
        out->list_names[i] = copy_bytes(name, name_length);
        ok = out->list_names[i] != NULL;
        out->list_name_count = i + 1;
    }
    if (!ok) {
        rec_header_free(out);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory reading the header", path);
    }
    // Bytes after the known fields are a newer minor version's: ignored.
    return SR_OK;
}

void rec_sizes_add(sr_record_sizes *a, const sr_record_sizes *b)
{
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++) {
        a->items[k] += b->items[k];
        a->item_counts[k] += b->item_counts[k];
    }
    a->meshes += b->meshes;
    a->textures += b->textures;
    a->materials += b->materials;
    a->shapes += b->shapes;
    a->nodes += b->nodes;
    a->views += b->views;
    a->messages += b->messages;
    a->unsorted_items += b->unsorted_items;
    a->framing += b->framing;
    a->total += b->total;
}

uint64_t rec_sizes_sum(const sr_record_sizes *sizes)
{
    uint64_t sum = sizes->meshes + sizes->textures + sizes->materials + sizes->shapes + sizes->nodes + sizes->views + sizes->messages +
                   sizes->unsorted_items + sizes->framing;
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++)
        sum += sizes->items[k];
    return sum;
}
