/* obj_text.c — the text side of the OBJ and MTL loaders (obj_internal.h): files read in one go,
 * line continuations and line numbers, strtof's fallback for numbers, a table of names,
 * warnings and paths. Knows nothing of OBJ or MTL statements. */
#include "obj_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool sr_obj_grow(void **array, size_t *capacity, size_t needed, size_t element_size)
{
    if (needed <= *capacity)
        return true;
    size_t capacity_new = *capacity ? *capacity : 256;
    while (capacity_new < needed) {
        if (capacity_new > SIZE_MAX / 2)
            return false;
        capacity_new *= 2;
    }
    if (capacity_new > SIZE_MAX / element_size)
        return false;
    void *array_new = sr_realloc(*array, capacity_new * element_size);
    if (!array_new)
        return false;
    *array = array_new;
    *capacity = capacity_new;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Texts                                                                                       */

/* Refuses NUL bytes, skips a byte order mark and blanks the line continuations in place. */
static sr_status prepare(sr_obj_text *text, const char *name, sr_error *err)
{
    const char *nul = memchr(text->bytes, '\0', text->length);
    if (nul)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: binary data (a NUL byte at offset %zu): not a text file", name,
                            (size_t)(nul - text->bytes));
    if (text->length >= 3 && memcmp(text->bytes, "\xef\xbb\xbf", 3) == 0)
        text->start = 3;
    size_t capacity = 0;
    for (char *p = memchr(text->bytes, '\\', text->length); p;) {
        size_t blanked = p[1] == '\n' ? 2 : (p[1] == '\r' && p[2] == '\n' ? 3 : 0);
        if (blanked) {
            if (!sr_obj_grow((void **)&text->joins, &capacity, text->join_count + 1, sizeof *text->joins))
                return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
            text->joins[text->join_count++] = (size_t)(p - text->bytes) + blanked - 1;
            memset(p, ' ', blanked);
        }
        p += blanked ? blanked : 1;
        size_t rest = text->length - (size_t)(p - text->bytes);
        p = rest ? memchr(p, '\\', rest) : NULL;
    }
    return SR_OK;
}

sr_status sr_obj_text_copy(const char *bytes, size_t length, const char *name, sr_obj_text *text, sr_error *err)
{
    *text = (sr_obj_text){0};
    if (length > SR_OBJ_MAX_BYTES)
        return sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: larger than %zu bytes, the OBJ size limit", name,
                            SR_OBJ_MAX_BYTES);
    text->bytes = sr_alloc(length + 1);
    if (!text->bytes)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
    if (length)
        memcpy(text->bytes, bytes, length);
    text->bytes[length] = '\0';
    text->length = length;
    sr_status status = prepare(text, name, err);
    if (status != SR_OK)
        sr_obj_text_free(text);
    return status;
}

sr_status sr_obj_text_read(const char *path, sr_obj_text *text, sr_error *err)
{
    *text = (sr_obj_text){0};
    /* Only regular files (sr_file_read refuses devices and pipes, which could be read until
     * memory runs out), in one read of the size the file has. */
    char *bytes = NULL;
    size_t length = 0;
    sr_status status = sr_file_read(path, SR_OBJ_MAX_BYTES, &bytes, &length, err);
    if (status != SR_OK)
        return status;
    text->bytes = bytes;
    text->length = length;
    status = prepare(text, path, err);
    if (status != SR_OK)
        sr_obj_text_free(text);
    return status;
}

void sr_obj_text_free(sr_obj_text *text)
{
    sr_free(text->bytes);
    sr_free(text->joins);
    *text = (sr_obj_text){0};
}

size_t sr_obj_text_line(const sr_obj_text *text, size_t logical_line, const char *position)
{
    /* joins before `position`: binary search in the ascending offsets */
    size_t offset = (size_t)(position - text->bytes), low = 0, high = text->join_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (text->joins[middle] < offset)
            low = middle + 1;
        else
            high = middle;
    }
    return logical_line + low;
}

/* ------------------------------------------------------------------------------------------ */
/* Numbers                                                                                     */

sr_obj_number sr_obj_parse_float_slow(const char *p, const char **end, float *value)
{
    size_t length = sr_obj_token_length(p);
    *end = p + length;
    char *parsed = NULL;
    float result = strtof(p, &parsed);
    if (parsed == p || parsed != p + length)
        return SR_OBJ_NUMBER_MALFORMED;
    if (!isfinite(result))
        return SR_OBJ_NUMBER_NOT_FINITE;
    *value = result;
    return SR_OBJ_NUMBER_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Names                                                                                       */

static uint32_t hash_name(const char *name, size_t length)
{
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < length; i++)
        hash = (hash ^ (uint8_t)name[i]) * 16777619u;
    return hash;
}

static bool name_equals(const char *stored, const char *name, size_t length)
{
    return stored && strncmp(stored, name, length) == 0 && stored[length] == '\0';
}

uint32_t sr_obj_names_find(const sr_obj_names *names, const char *name, size_t length)
{
    if (names->slot_count == 0)
        return UINT32_MAX;
    size_t mask = names->slot_count - 1;
    for (size_t slot = hash_name(name, length) & mask;; slot = (slot + 1) & mask) {
        uint32_t entry = names->slots[slot];
        if (entry == 0)
            return UINT32_MAX;
        if (name_equals(names->names[entry - 1], name, length))
            return entry - 1;
    }
}

static void insert_slot(uint32_t *slots, size_t slot_count, uint32_t hash, uint32_t entry)
{
    size_t mask = slot_count - 1;
    size_t slot = hash & mask;
    while (slots[slot] != 0)
        slot = (slot + 1) & mask;
    slots[slot] = entry;
}

sr_status sr_obj_names_intern(sr_obj_names *names, const char *name, size_t length, uint32_t *index, bool *added)
{
    *added = false;
    *index = sr_obj_names_find(names, name, length);
    if (*index != UINT32_MAX)
        return SR_OK;
    if (names->count >= UINT32_MAX - 1)
        return SR_ERROR_OUT_OF_MEMORY;
    /* keep the table at most half full */
    if (2 * (names->count + 1) > names->slot_count) {
        size_t slot_count = names->slot_count ? 2 * names->slot_count : 16;
        uint32_t *slots = sr_calloc(slot_count, sizeof *slots);
        if (!slots)
            return SR_ERROR_OUT_OF_MEMORY;
        for (size_t i = 0; i < names->count; i++)
            insert_slot(slots, slot_count, hash_name(names->names[i], strlen(names->names[i])), (uint32_t)i + 1);
        sr_free(names->slots);
        names->slots = slots;
        names->slot_count = slot_count;
    }
    if (!sr_obj_grow((void **)&names->names, &names->capacity, names->count + 1, sizeof *names->names))
        return SR_ERROR_OUT_OF_MEMORY;
    char *copy = sr_obj_copy_string(name, length);
    if (!copy)
        return SR_ERROR_OUT_OF_MEMORY;
    names->names[names->count] = copy;
    insert_slot(names->slots, names->slot_count, hash_name(name, length), (uint32_t)names->count + 1);
    *index = (uint32_t)names->count++;
    *added = true;
    return SR_OK;
}

void sr_obj_names_free(sr_obj_names *names)
{
    for (size_t i = 0; i < names->count; i++)
        sr_free(names->names[i]);
    sr_free(names->names);
    sr_free(names->slots);
    *names = (sr_obj_names){0};
}

/* ------------------------------------------------------------------------------------------ */
/* Warnings, paths, strings                                                                    */

void sr_obj_warn(const sr_obj_desc *desc, const char *format, ...)
{
    if (!desc->warning)
        return;
    char message[8192]; /* room for two paths of PATH_MAX (4096) bytes: the .mtl and a texture */
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, sizeof message, format, arguments);
    va_end(arguments);
    desc->warning(desc->user, message);
}

size_t sr_obj_folder_length(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

char *sr_obj_resolve_path(const char *folder, size_t folder_length, const char *relative, size_t length)
{
    bool absolute = length > 0 && (relative[0] == '/' || relative[0] == '\\');
    size_t prefix = absolute ? 0 : folder_length;
    if (length > SIZE_MAX - prefix - 1)
        return NULL;
    char *path = sr_alloc(prefix + length + 1);
    if (!path)
        return NULL;
    memcpy(path, folder, prefix);
    for (size_t i = 0; i < length; i++)
        path[prefix + i] = relative[i] == '\\' ? '/' : relative[i];
    path[prefix + length] = '\0';
    return path;
}

char *sr_obj_copy_string(const char *text, size_t length)
{
    char *copy = sr_alloc(length + 1);
    if (copy) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

size_t sr_obj_trim_length(const char *text, size_t length)
{
    while (length > 0 && sr_obj_is_blank(text[length - 1]))
        length--;
    return length;
}
