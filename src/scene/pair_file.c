/* src/scene/pair_file.c — pairs files (softrast/scene.h: sr_pair_set_load): JSON lines
 * {"id": ID, "a": SHAPE, "b": SHAPE}, one pair of convex shapes per line, for `softrast collide`
 * and its benchmark. Blank lines and lines starting with '#' (comments) are skipped. SHAPE objects
 * are read by shape_json.c. Every malformed line stops the load with the file, the line and the
 * JSON path of the value ("pairs.jsonl:7: a.radius: -1 is negative ..."). */
#include "shape_json.h"

#include <softrast/scene.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/// Largest pairs file read.
#define PAIR_FILE_MAX_BYTES ((size_t)1 << 30)
/// Largest id: every integer up to it is a double exactly.
#define MAX_ID 9007199254740992.0

/* What a set owns besides its pairs: the shapes' points and hulls, two per pair. */
struct sr_pair_set_storage {
    sr_shape_json *shapes;
};

static sr_status read_id(const sr_json_place *place, const cJSON *item, long long *out)
{
    if (!cJSON_IsNumber(item))
        return sr_json_place_fail(place, SR_ERROR_PARSE, "id", "expected a whole number, found %s",
                                  cJSON_IsString(item) ? "a string" : "another value");
    double value = item->valuedouble;
    if (!(value == floor(value)) || !(fabs(value) <= MAX_ID))
        return sr_json_place_fail(place, SR_ERROR_PARSE, "id", "expected a whole number within +-2^53, found %.17g",
                                  value);
    *out = (long long)value;
    return SR_OK;
}

/* One pair from the JSON object of a line. */
static sr_status read_pair(const sr_json_place *place, const cJSON *root, sr_pair *pair, sr_shape_json shapes[2])
{
    static const char *const keys[] = {"id", "a", "b", NULL};
    if (!cJSON_IsObject(root))
        return sr_error_set(place->err, SR_ERROR_PARSE, "%s: expected an object {\"id\": ..., \"a\": ..., \"b\": ...}",
                            place->where);
    sr_status status = sr_json_place_check_keys(place, root, "", keys);
    if (status != SR_OK)
        return status;
    for (int k = 0; k < 3; k++) {
        if (!cJSON_GetObjectItemCaseSensitive(root, keys[k]))
            return sr_json_place_fail(place, SR_ERROR_PARSE, keys[k],
                                      "missing (a pair is {\"id\": ..., \"a\": SHAPE, \"b\": SHAPE})");
    }
    if ((status = read_id(place, cJSON_GetObjectItemCaseSensitive(root, "id"), &pair->id)) != SR_OK)
        return status;
    if ((status = sr_shape_json_read(place, cJSON_GetObjectItemCaseSensitive(root, "a"), "a", &shapes[0])) != SR_OK)
        return status;
    if ((status = sr_shape_json_read(place, cJSON_GetObjectItemCaseSensitive(root, "b"), "b", &shapes[1])) != SR_OK) {
        sr_shape_json_release(&shapes[0]);
        return status;
    }
    for (int k = 0; k < 2; k++) {
        sr_pair_shape *side = k ? &pair->b : &pair->a;
        side->shape = shapes[k].shape;
        side->points = shapes[k].points;
        side->point_count = shapes[k].point_count;
    }
    return SR_OK;
}

/* Room for one more pair. */
static bool grow(sr_pair_set *set, size_t *capacity)
{
    if (set->count < *capacity)
        return true;
    size_t wanted = *capacity ? 2 * *capacity : 64;
    sr_pair *pairs = sr_realloc(set->pairs, wanted * sizeof *pairs);
    if (!pairs)
        return false;
    set->pairs = pairs;
    sr_shape_json *shapes = sr_realloc(set->storage->shapes, wanted * 2 * sizeof *shapes);
    if (!shapes)
        return false;
    set->storage->shapes = shapes; /* what they own is on the heap: the pairs' pointers stay valid */
    *capacity = wanted;
    return true;
}

/* A line with its syntax error: "FILE:LINE:COLUMN: malformed JSON near '...'". */
static sr_status syntax_error(const char *name, unsigned line, const char *text, size_t length, const char *end,
                              sr_error *err)
{
    if (!end || end < text || end > text + length)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s:%u: out of memory parsing the JSON", name, line);
    char near[24] = "";
    size_t left = (size_t)(text + length - end), take = left < 16 ? left : 16;
    for (size_t i = 0; i < take; i++)
        near[i] = (unsigned char)end[i] < 32 || (unsigned char)end[i] > 126 ? '?' : end[i];
    if (left == 0)
        return sr_error_set(err, SR_ERROR_PARSE, "%s:%u:%zu: malformed JSON (the line ends early)", name, line,
                            (size_t)(end - text) + 1);
    return sr_error_set(err, SR_ERROR_PARSE, "%s:%u:%zu: malformed JSON near '%s'", name, line,
                        (size_t)(end - text) + 1, near);
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

sr_status sr_pair_set_parse(const char *text, size_t size, const char *name, sr_pair_set **out, sr_error *err)
{
    *out = NULL;
    if (!name)
        name = "pairs";
    sr_pair_set *set = sr_calloc(1, sizeof *set);
    struct sr_pair_set_storage *storage = sr_calloc(1, sizeof *storage);
    if (!set || !storage) {
        sr_free(set);
        sr_free(storage);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
    }
    set->storage = storage;
    size_t capacity = 0;
    unsigned line = 0;
    sr_status status = SR_OK;
    for (size_t start = 0; start < size && status == SR_OK;) {
        const char *begin = text + start;
        const char *newline = memchr(begin, '\n', size - start);
        size_t length = newline ? (size_t)(newline - begin) : size - start;
        start += length + 1;
        line++;
        size_t first = 0;
        while (first < length && blank(begin[first]))
            first++;
        if (first == length || begin[first] == '#')
            continue; /* blank, or a comment */
        if (memchr(begin, '\0', length)) {
            status = sr_error_set(err, SR_ERROR_PARSE, "%s:%u: a NUL byte in the line", name, line);
            break;
        }
        char where[300];
        snprintf(where, sizeof where, "%.280s:%u", name, line);
        sr_json_place place = {where, err};
        const char *end = NULL;
        cJSON *root = cJSON_ParseWithLengthOpts(begin, length, &end, false);
        if (!root) {
            status = syntax_error(name, line, begin, length, end, err);
            break;
        }
        for (const char *p = end; p < begin + length && status == SR_OK; p++)
            if (!blank(*p))
                status =
                    sr_error_set(err, SR_ERROR_PARSE, "%s:%u:%zu: text after the pair's object (one pair per line)",
                                 name, line, (size_t)(p - begin) + 1);
        if (status == SR_OK && !grow(set, &capacity))
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s:%u: out of memory", name, line);
        if (status == SR_OK) {
            sr_pair *pair = &set->pairs[set->count];
            memset(pair, 0, sizeof *pair);
            pair->line = line;
            status = read_pair(&place, root, pair, &storage->shapes[2 * set->count]);
            if (status == SR_OK)
                set->count++;
        }
        cJSON_Delete(root);
    }
    if (status != SR_OK) {
        sr_pair_set_destroy(set);
        return status;
    }
    *out = set;
    return SR_OK;
}

sr_status sr_pair_set_load(const char *path, sr_pair_set **out, sr_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t size = 0;
    sr_status status = sr_file_read(path, PAIR_FILE_MAX_BYTES, &text, &size, err);
    if (status != SR_OK)
        return status;
    status = sr_pair_set_parse(text, size, path, out, err);
    sr_free(text);
    return status;
}

void sr_pair_set_destroy(sr_pair_set *set)
{
    if (!set)
        return;
    if (set->storage) {
        for (size_t i = 0; i < 2 * set->count; i++)
            sr_shape_json_release(&set->storage->shapes[i]);
        sr_free(set->storage->shapes);
        sr_free(set->storage);
    }
    sr_free(set->pairs);
    sr_free(set);
}
