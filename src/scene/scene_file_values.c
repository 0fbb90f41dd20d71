/* src/scene/scene_file_values.c — the checked readers of the scene-file format
 * (scene_file_internal.h): every value is checked where it is read and a bad one fails the load
 * with the file and the JSON path of the value; unknown keys are errors too. Knows nothing of the
 * format's sections (scene_file.c). */
#include "scene_file_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- messages ---- */

sr_status sr_json_fail(loader *l, sr_status status, const char *at, const char *format, ...)
{
    char what[384];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    return sr_error_set(l->err, status, "%s: %s: %s", l->file, at, what);
}

void sr_json_warn(loader *l, const char *at, const char *what)
{
    if (!l->warning)
        return;
    char message[768];
    if (snprintf(message, sizeof message, "%s: %s: %s", l->file, at, what) >= (int)sizeof message)
        memcpy(message + sizeof message - 4, "...", 4); // cut: a warning is only ever shown
    l->warning(l->user, message);
}

/* Copies `count` strings one after the other into a JSON path, cut at PATH_SIZE - 1 bytes (a
 * path that long is only ever shown in a message). */
static void path_join(char out[PATH_SIZE], const char *const *parts, int count)
{
    size_t used = 0;
    for (int i = 0; i < count; i++) {
        size_t length = strlen(parts[i]);
        if (length > PATH_SIZE - 1 - used)
            length = PATH_SIZE - 1 - used;
        memmove(out + used, parts[i], length);
        used += length;
    }
    out[used] = '\0';
}

/* Appends ".key" or "[index]" to a JSON path. */
void sr_json_path_key(char out[PATH_SIZE], const char *at, const char *key)
{
    const char *parts[3] = {at, at[0] ? "." : "", key};
    path_join(out, parts, 3);
}

void sr_json_path_index(char out[PATH_SIZE], const char *at, int index)
{
    char number[16];
    snprintf(number, sizeof number, "[%d]", index);
    const char *parts[2] = {at, number};
    path_join(out, parts, 2);
}

const char *sr_json_type_name(const cJSON *item)
{
    if (cJSON_IsNumber(item))
        return "a number";
    if (cJSON_IsString(item))
        return "a string";
    if (cJSON_IsBool(item))
        return "a boolean";
    if (cJSON_IsNull(item))
        return "null";
    if (cJSON_IsArray(item))
        return "an array";
    return "an object";
}

/* ---- values ---- */

/* Every key of `object` must be one of `keys` (NULL-terminated), and appear once. */
sr_status sr_json_check_keys(loader *l, const cJSON *object, const char *at, const char *const *keys)
{
    for (const cJSON *item = object->child; item; item = item->next) {
        bool known = false;
        for (const char *const *k = keys; *k && !known; k++)
            known = strcmp(item->string, *k) == 0;
        char here[PATH_SIZE];
        sr_json_path_key(here, at, item->string);
        if (!known) {
            char list[256] = "";
            for (const char *const *k = keys; *k; k++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *k);
            }
            return sr_json_fail(l, SR_ERROR_PARSE, here, "unknown key (expected one of: %s)", list);
        }
        for (const cJSON *other = item->next; other; other = other->next)
            if (strcmp(other->string, item->string) == 0)
                return sr_json_fail(l, SR_ERROR_PARSE, here, "given twice");
    }
    return SR_OK;
}

sr_status sr_json_expect_object(loader *l, const cJSON *item, const char *at)
{
    return cJSON_IsObject(item)
               ? SR_OK
               : sr_json_fail(l, SR_ERROR_PARSE, at, "expected an object, found %s", sr_json_type_name(item));
}

sr_status sr_json_read_number(loader *l, const cJSON *item, const char *at, float *out)
{
    if (!cJSON_IsNumber(item))
        return sr_json_fail(l, SR_ERROR_PARSE, at, "expected a number, found %s", sr_json_type_name(item));
    double value = item->valuedouble;
    if (!isfinite(value) || fabs(value) > 1e30)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "number %g is out of range", value);
    *out = (float)value;
    return SR_OK;
}

/* A number in [low, high]. */
sr_status sr_json_read_ranged(loader *l, const cJSON *item, const char *at, double low, double high, float *out)
{
    sr_status status = sr_json_read_number(l, item, at, out);
    if (status == SR_OK && !(*out >= low && *out <= high))
        return sr_json_fail(l, SR_ERROR_PARSE, at, "%g is outside [%g, %g]", (double)*out, low, high);
    return status;
}

sr_status sr_json_read_positive(loader *l, const cJSON *item, const char *at, float *out)
{
    sr_status status = sr_json_read_number(l, item, at, out);
    if (status == SR_OK && !(*out > 0.0f))
        return sr_json_fail(l, SR_ERROR_PARSE, at, "%g must be positive", (double)*out);
    return status;
}

sr_status sr_json_read_int(loader *l, const cJSON *item, const char *at, int low, int high, int *out)
{
    if (!cJSON_IsNumber(item))
        return sr_json_fail(l, SR_ERROR_PARSE, at, "expected a whole number, found %s", sr_json_type_name(item));
    double value = item->valuedouble;
    if (!(value == floor(value)) || !(value >= low && value <= high))
        return sr_json_fail(l, SR_ERROR_PARSE, at, "expected a whole number in [%d, %d], found %g", low, high, value);
    *out = (int)value;
    return SR_OK;
}

sr_status sr_json_read_bool(loader *l, const cJSON *item, const char *at, bool *out)
{
    if (!cJSON_IsBool(item))
        return sr_json_fail(l, SR_ERROR_PARSE, at, "expected true or false, found %s", sr_json_type_name(item));
    *out = cJSON_IsTrue(item);
    return SR_OK;
}

sr_status sr_json_read_string(loader *l, const cJSON *item, const char *at, const char **out)
{
    if (!cJSON_IsString(item) || !item->valuestring)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "expected a string, found %s", sr_json_type_name(item));
    *out = item->valuestring;
    return SR_OK;
}

/* An array of `count` numbers. */
sr_status sr_json_read_numbers(loader *l, const cJSON *item, const char *at, int count, float *out)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != count)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "expected an array of %d numbers, found %s%s", count,
                            cJSON_IsArray(item) ? "one of a different size" : sr_json_type_name(item), "");
    int i = 0;
    for (const cJSON *element = item->child; element; element = element->next, i++) {
        char here[PATH_SIZE];
        sr_json_path_index(here, at, i);
        sr_status status = sr_json_read_number(l, element, here, &out[i]);
        if (status != SR_OK)
            return status;
    }
    return SR_OK;
}

sr_status sr_json_read_vec3(loader *l, const cJSON *item, const char *at, sr_vec3 *out)
{
    float v[3];
    sr_status status = sr_json_read_numbers(l, item, at, 3, v);
    if (status == SR_OK)
        *out = sr_vec3_make(v[0], v[1], v[2]);
    return status;
}

/* A colour: [r, g, b] or [r, g, b, a], components in [0, 1] (alpha 1 when not given). */
sr_status sr_json_read_color(loader *l, const cJSON *item, const char *at, sr_vec4 *out)
{
    int count = cJSON_IsArray(item) ? cJSON_GetArraySize(item) : 0;
    if (count != 3 && count != 4)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "expected a colour [r, g, b] or [r, g, b, a], found %s",
                            cJSON_IsArray(item) ? "an array of another size" : sr_json_type_name(item));
    float c[4] = {0, 0, 0, 1};
    sr_status status = sr_json_read_numbers(l, item, at, count, c);
    for (int k = 0; status == SR_OK && k < count; k++)
        if (!(c[k] >= 0.0f && c[k] <= 1.0f)) {
            char here[PATH_SIZE];
            sr_json_path_index(here, at, k);
            return sr_json_fail(l, SR_ERROR_PARSE, here, "colour component %g is outside [0, 1]", (double)c[k]);
        }
    if (status == SR_OK)
        *out = (sr_vec4){c[0], c[1], c[2], c[3]};
    return status;
}

/* One of `names` (NULL-terminated): its index. */
sr_status sr_json_read_choice(loader *l, const cJSON *item, const char *at, const char *const *names, int *out)
{
    const char *text = "";
    sr_status status = sr_json_read_string(l, item, at, &text);
    if (status != SR_OK)
        return status;
    char list[128] = "";
    for (int i = 0; names[i]; i++) {
        if (strcmp(text, names[i]) == 0) {
            *out = i;
            return SR_OK;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", names[i]);
    }
    return sr_json_fail(l, SR_ERROR_PARSE, at, "'%s' is not one of: %s", text, list);
}

/* ---- named tables ---- */

sr_status sr_json_table_add(loader *l, named_table *table, const char *name, uint32_t id, const char *at)
{
    for (uint32_t i = 0; i < table->count; i++)
        if (strcmp(table->items[i].name, name) == 0)
            return sr_json_fail(l, SR_ERROR_PARSE, at, "the name '%s' is used twice", name);
    if (!sr_scene_grow((void **)&table->items, &table->capacity, table->count + 1, sizeof *table->items))
        return sr_json_fail(l, SR_ERROR_OUT_OF_MEMORY, at, "out of memory");
    table->items[table->count++] = (named){name, id};
    return SR_OK;
}

/* The id of the thing called by the string `item`, with a message listing the names defined. */
sr_status sr_json_table_find(loader *l, const named_table *table, const char *kind, const cJSON *item, const char *at,
                             uint32_t *id)
{
    const char *name = "";
    sr_status status = sr_json_read_string(l, item, at, &name);
    if (status != SR_OK)
        return status;
    for (uint32_t i = 0; i < table->count; i++)
        if (strcmp(table->items[i].name, name) == 0) {
            *id = table->items[i].id;
            return SR_OK;
        }
    char list[256] = "";
    for (uint32_t i = 0; i < table->count; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", table->items[i].name);
    }
    return sr_json_fail(l, SR_ERROR_PARSE, at, "no %s called '%s' (defined: %s)", kind, name,
                        table->count ? list : "none");
}

/* `relative` resolved against the scene file's folder (absolute paths stay as they are). */
sr_status sr_json_resolve_path(loader *l, const char *relative, const char *at, char out[4096])
{
    if (relative[0] == '\0')
        return sr_json_fail(l, SR_ERROR_PARSE, at, "empty file name");
    int n = relative[0] == '/' ? snprintf(out, 4096, "%s", relative) : snprintf(out, 4096, "%s%s", l->folder, relative);
    if (n < 0 || n >= 4096)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "path too long");
    return SR_OK;
}
