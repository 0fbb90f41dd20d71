/* src/scene/shape_json.c — a convex shape from a JSON object (shape_json.h): the SHAPE of pairs
 * files (pair_file.c) and, later, of scene files. Types and their fields:
 *   point                          (nothing)
 *   segment, triangle              "points": 2 or 3 points
 *   sphere                         "radius"
 *   box                            "half_extents": [x, y, z]
 *   capsule, cylinder, cone        "radius", "half_height"
 *   hull                           "points": 1 or more points (duplicates, interior points allowed)
 * and for every type "position" [x, y, z], "rotation" [x, y, z, w] (normalised when within 1e-3
 * of unit, refused otherwise) and "rounding" (>= 0), all optional. Unknown or repeated keys,
 * missing fields, wrong types, NaN, sizes below 0 and values beyond 1e15 are errors naming the
 * JSON path of the value. */
#include "shape_json.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Longest JSON path kept for messages. */
#define PATH_SIZE 128

sr_status sr_json_place_fail(const sr_json_place *place, sr_status status, const char *at, const char *format, ...)
{
    char what[320];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    return sr_error_set(place->err, status, "%s: %s: %s", place->where, at, what);
}

/* A path cut at PATH_SIZE - 1 bytes is only ever shown in a message. */
static void path_key(char out[PATH_SIZE], const char *at, const char *key)
{
    if (snprintf(out, PATH_SIZE, "%s%s%s", at, at[0] ? "." : "", key) >= PATH_SIZE)
        out[PATH_SIZE - 1] = '\0';
}

static void path_index(char out[PATH_SIZE], const char *at, size_t index)
{
    if (snprintf(out, PATH_SIZE, "%s[%zu]", at, index) >= PATH_SIZE)
        out[PATH_SIZE - 1] = '\0';
}

static const char *type_name(const cJSON *item)
{
    if (!item)
        return "nothing";
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

sr_status sr_json_place_check_keys(const sr_json_place *place, const cJSON *object, const char *at,
                                   const char *const *keys)
{
    for (const cJSON *item = object->child; item; item = item->next) {
        char here[PATH_SIZE];
        path_key(here, at, item->string ? item->string : "");
        bool known = false;
        for (const char *const *k = keys; *k && !known; k++)
            known = item->string && strcmp(item->string, *k) == 0;
        if (!known) {
            char list[200] = "";
            for (const char *const *k = keys; *k; k++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *k);
            }
            return sr_json_place_fail(place, SR_ERROR_PARSE, here, "unknown key (expected %s%s)",
                                      list[0] ? "one of: " : "none", list);
        }
        for (const cJSON *other = item->next; other; other = other->next)
            if (other->string && strcmp(other->string, item->string) == 0)
                return sr_json_place_fail(place, SR_ERROR_PARSE, here, "given twice");
    }
    return SR_OK;
}

sr_status sr_json_place_read_number(const sr_json_place *place, const cJSON *item, const char *at, double *out)
{
    if (!cJSON_IsNumber(item))
        return sr_json_place_fail(place, SR_ERROR_PARSE, at, "expected a number, found %s", type_name(item));
    double value = item->valuedouble;
    if (!isfinite(value) || fabs(value) > SR_SHAPE_JSON_MAX_VALUE)
        return sr_json_place_fail(place, SR_ERROR_PARSE, at, "%g is outside [-1e15, 1e15]", value);
    *out = value;
    return SR_OK;
}

static sr_status read_size(const sr_json_place *place, const cJSON *item, const char *at, double *out)
{
    sr_status status = sr_json_place_read_number(place, item, at, out);
    if (status == SR_OK && *out < 0.0)
        return sr_json_place_fail(place, SR_ERROR_PARSE, at, "%.17g is negative (a size must be >= 0)", *out);
    return status;
}

/* An array of exactly `count` numbers. */
static sr_status read_numbers(const sr_json_place *place, const cJSON *item, const char *at, int count, double *out)
{
    if (!cJSON_IsArray(item))
        return sr_json_place_fail(place, SR_ERROR_PARSE, at, "expected an array of %d numbers, found %s", count,
                                  type_name(item));
    int size = cJSON_GetArraySize(item);
    if (size != count)
        return sr_json_place_fail(place, SR_ERROR_PARSE, at, "expected %d numbers, found %d", count, size);
    int i = 0;
    for (const cJSON *element = item->child; element; element = element->next, i++) {
        char here[PATH_SIZE];
        path_index(here, at, (size_t)i);
        sr_status status = sr_json_place_read_number(place, element, here, &out[i]);
        if (status != SR_OK)
            return status;
    }
    return SR_OK;
}

static sr_status read_vector(const sr_json_place *place, const cJSON *item, const char *at, sr_dvec3 *out)
{
    double v[3];
    sr_status status = read_numbers(place, item, at, 3, v);
    if (status == SR_OK)
        *out = (sr_dvec3){v[0], v[1], v[2]};
    return status;
}

/* A unit quaternion [x, y, z, w]: kept as written when its length is 1 to rounding (so that a
 * file written with %.17g reads back the same bits), normalised when within 1e-3 of 1. */
static sr_status read_rotation(const sr_json_place *place, const cJSON *item, const char *at, sr_dquat *out)
{
    double q[4];
    sr_status status = read_numbers(place, item, at, 4, q);
    if (status != SR_OK)
        return status;
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(length - 1.0) <= 1e-3))
        return sr_json_place_fail(place, SR_ERROR_PARSE, at,
                                  "not a unit quaternion [x, y, z, w] (length %.17g; allowed 1 +- 1e-3)", length);
    if (fabs(length - 1.0) > 4.0 * DBL_EPSILON)
        for (int k = 0; k < 4; k++)
            q[k] /= length;
    *out = (sr_dquat){q[0], q[1], q[2], q[3]};
    return SR_OK;
}

/* The array of points at `at`: exactly `count` of them, or at least 1 when count is 0. */
static sr_status read_points(const sr_json_place *place, const cJSON *item, const char *at, size_t count,
                             sr_shape_json *out)
{
    if (!cJSON_IsArray(item))
        return sr_json_place_fail(place, SR_ERROR_PARSE, at, "expected an array of points [x, y, z], found %s",
                                  type_name(item));
    size_t size = 0;
    for (const cJSON *element = item->child; element; element = element->next)
        size++;
    if (count ? size != count : size == 0)
        return count ? sr_json_place_fail(place, SR_ERROR_PARSE, at, "expected %zu points, found %zu", count, size)
                     : sr_json_place_fail(place, SR_ERROR_PARSE, at, "a hull needs at least one point, found none");
    if (size > SR_SHAPE_JSON_MAX_POINTS)
        return sr_json_place_fail(place, SR_ERROR_PARSE, at, "%zu points: more than the %zu allowed", size,
                                  SR_SHAPE_JSON_MAX_POINTS);
    out->points = sr_alloc_array(size, sizeof *out->points);
    if (!out->points)
        return sr_json_place_fail(place, SR_ERROR_OUT_OF_MEMORY, at, "out of memory for %zu points", size);
    out->point_count = size;
    size_t i = 0;
    for (const cJSON *element = item->child; element; element = element->next, i++) {
        char here[PATH_SIZE];
        path_index(here, at, i);
        sr_status status = read_vector(place, element, here, &out->points[i]);
        if (status != SR_OK)
            return status;
    }
    return SR_OK;
}

typedef struct type_fields {
    const char *name;
    sr_shape_type type;
    const char *const keys[8]; /* NULL-terminated: the type's own and the common ones */
} type_fields;

static const type_fields types[] = {
    {"point", SR_SHAPE_POINT, {"type", "position", "rotation", "rounding", NULL}},
    {"segment", SR_SHAPE_SEGMENT, {"type", "points", "position", "rotation", "rounding", NULL}},
    {"triangle", SR_SHAPE_TRIANGLE, {"type", "points", "position", "rotation", "rounding", NULL}},
    {"sphere", SR_SHAPE_SPHERE, {"type", "radius", "position", "rotation", "rounding", NULL}},
    {"box", SR_SHAPE_BOX, {"type", "half_extents", "position", "rotation", "rounding", NULL}},
    {"capsule", SR_SHAPE_CAPSULE, {"type", "radius", "half_height", "position", "rotation", "rounding", NULL}},
    {"cylinder", SR_SHAPE_CYLINDER, {"type", "radius", "half_height", "position", "rotation", "rounding", NULL}},
    {"cone", SR_SHAPE_CONE, {"type", "radius", "half_height", "position", "rotation", "rounding", NULL}},
    {"hull", SR_SHAPE_HULL, {"type", "points", "position", "rotation", "rounding", NULL}},
};

/* The field `key` the type needs, or a message saying it is missing. */
static sr_status need(const sr_json_place *place, const cJSON *object, const char *at, const char *key,
                      const cJSON **out)
{
    *out = cJSON_GetObjectItemCaseSensitive(object, key);
    if (*out)
        return SR_OK;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(object, "type");
    char here[PATH_SIZE];
    path_key(here, at, key);
    return sr_json_place_fail(place, SR_ERROR_PARSE, here, "missing (a %s needs it)", type->valuestring);
}

/* The keys of `fields` for a shape of `kind` (NULL-terminated, into `out`). */
static void keys_for(const type_fields *fields, sr_shape_json_kind kind, const char *out[10])
{
    int n = 0;
    for (const char *const *k = fields->keys; *k; k++)
        if (kind == SR_SHAPE_JSON_PAIR || (strcmp(*k, "position") != 0 && strcmp(*k, "rotation") != 0))
            out[n++] = *k;
    if (kind == SR_SHAPE_JSON_SCENE && fields->type == SR_SHAPE_HULL)
        out[n++] = "mesh";
    out[n] = NULL;
}

static sr_status read_fields(const sr_json_place *place, const cJSON *item, const char *at, sr_shape_json_kind kind,
                             sr_shape_json *out)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(item, "type");
    char here[PATH_SIZE];
    path_key(here, at, "type");
    if (!type)
        return sr_json_place_fail(
            place, SR_ERROR_PARSE, here,
            "missing (one of point, segment, triangle, sphere, box, capsule, cylinder, cone, hull)");
    if (!cJSON_IsString(type) || !type->valuestring)
        return sr_json_place_fail(place, SR_ERROR_PARSE, here, "expected a string, found %s", type_name(type));
    const type_fields *fields = NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0] && !fields; i++)
        if (strcmp(types[i].name, type->valuestring) == 0)
            fields = &types[i];
    if (!fields)
        return sr_json_place_fail(
            place, SR_ERROR_PARSE, here,
            "unknown type '%.40s' (expected one of: point, segment, triangle, sphere, box, capsule, "
            "cylinder, cone, hull)",
            type->valuestring);
    if (kind == SR_SHAPE_JSON_SCENE)
        for (int k = 0; k < 2; k++) {
            const char *key = k ? "rotation" : "position";
            if (cJSON_GetObjectItemCaseSensitive(item, key)) {
                path_key(here, at, key);
                return sr_json_place_fail(place, SR_ERROR_PARSE, here,
                                          "a node's shape is placed by the node's transform (give the node a "
                                          "\"transform\", or put the shape on a child node)");
            }
        }
    const char *keys[10];
    keys_for(fields, kind, keys);
    sr_status status = sr_json_place_check_keys(place, item, at, keys);
    if (status != SR_OK)
        return status;

    sr_shape *shape = &out->shape;
    shape->type = fields->type;
    shape->pose.rotation = (sr_dquat){0, 0, 0, 1};
    const cJSON *value = NULL;
    switch (fields->type) {
    case SR_SHAPE_POINT:
        break;
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
    case SR_SHAPE_HULL: {
        size_t count = fields->type == SR_SHAPE_SEGMENT ? 2 : (fields->type == SR_SHAPE_TRIANGLE ? 3 : 0);
        if (kind == SR_SHAPE_JSON_SCENE && fields->type == SR_SHAPE_HULL) {
            const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(item, "mesh");
            const cJSON *points = cJSON_GetObjectItemCaseSensitive(item, "points");
            if (!mesh == !points) {
                path_key(here, at, "points");
                return sr_json_place_fail(place, SR_ERROR_PARSE, at,
                                          "a hull needs either \"points\" or \"mesh\" (the hull of a mesh's "
                                          "vertices)%s",
                                          mesh ? ", not both" : "");
            }
            if (mesh) {
                path_key(out->mesh_at, at, "mesh");
                if (!cJSON_IsString(mesh) || !mesh->valuestring)
                    return sr_json_place_fail(place, SR_ERROR_PARSE, out->mesh_at,
                                              "expected the name of a mesh, found %s", type_name(mesh));
                out->mesh_name = mesh->valuestring;
                break;
            }
        }
        path_key(here, at, "points");
        if ((status = need(place, item, at, "points", &value)) != SR_OK ||
            (status = read_points(place, value, here, count, out)) != SR_OK)
            return status;
        for (size_t i = 0; i < count; i++)
            shape->points[i] = out->points[i];
        break;
    }
    case SR_SHAPE_SPHERE:
        path_key(here, at, "radius");
        if ((status = need(place, item, at, "radius", &value)) != SR_OK ||
            (status = read_size(place, value, here, &shape->radius)) != SR_OK)
            return status;
        break;
    case SR_SHAPE_BOX: {
        path_key(here, at, "half_extents");
        if ((status = need(place, item, at, "half_extents", &value)) != SR_OK ||
            (status = read_vector(place, value, here, &shape->half_extents)) != SR_OK)
            return status;
        const double h[3] = {shape->half_extents.x, shape->half_extents.y, shape->half_extents.z};
        for (int k = 0; k < 3; k++)
            if (h[k] < 0.0) {
                char there[PATH_SIZE];
                path_index(there, here, (size_t)k);
                return sr_json_place_fail(place, SR_ERROR_PARSE, there, "%.17g is negative (a size must be >= 0)",
                                          h[k]);
            }
        break;
    }
    default: /* capsule, cylinder, cone */
        path_key(here, at, "radius");
        if ((status = need(place, item, at, "radius", &value)) != SR_OK ||
            (status = read_size(place, value, here, &shape->radius)) != SR_OK)
            return status;
        path_key(here, at, "half_height");
        if ((status = need(place, item, at, "half_height", &value)) != SR_OK ||
            (status = read_size(place, value, here, &shape->half_height)) != SR_OK)
            return status;
        break;
    }
    if ((value = cJSON_GetObjectItemCaseSensitive(item, "position"))) {
        path_key(here, at, "position");
        if ((status = read_vector(place, value, here, &shape->pose.position)) != SR_OK)
            return status;
    }
    if ((value = cJSON_GetObjectItemCaseSensitive(item, "rotation"))) {
        path_key(here, at, "rotation");
        if ((status = read_rotation(place, value, here, &shape->pose.rotation)) != SR_OK)
            return status;
    }
    if ((value = cJSON_GetObjectItemCaseSensitive(item, "rounding"))) {
        path_key(here, at, "rounding");
        if ((status = read_size(place, value, here, &shape->rounding)) != SR_OK)
            return status;
    }
    return SR_OK;
}

sr_status sr_shape_json_read(const sr_json_place *place, const cJSON *item, const char *at, sr_shape_json *out)
{
    return sr_shape_json_read_kind(place, item, at, SR_SHAPE_JSON_PAIR, out);
}

sr_status sr_shape_json_read_kind(const sr_json_place *place, const cJSON *item, const char *at,
                                  sr_shape_json_kind kind, sr_shape_json *out)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(item))
        return sr_json_place_fail(place, SR_ERROR_PARSE, at, "expected a shape object {\"type\": ...}, found %s",
                                  type_name(item));
    sr_status status = read_fields(place, item, at, kind, out);
    if (status != SR_OK)
        sr_shape_json_release(out);
    if (status != SR_OK || kind == SR_SHAPE_JSON_SCENE)
        return status;
    if (out->shape.type == SR_SHAPE_HULL) {
        sr_error cause = {0};
        char here[PATH_SIZE];
        path_key(here, at, "points");
        if (sr_hull_create(out->points, out->point_count, &out->hull, &cause) != SR_OK)
            status = sr_json_place_fail(place, cause.status, here, "%s", cause.message);
        out->shape.hull = out->hull;
    }
    if (status == SR_OK) {
        sr_error cause = {0};
        if (sr_shape_validate(&out->shape, &cause) != SR_OK)
            status = sr_json_place_fail(place, SR_ERROR_PARSE, at, "%s", cause.message);
    }
    if (status != SR_OK)
        sr_shape_json_release(out);
    return status;
}

void sr_shape_json_release(sr_shape_json *shape)
{
    if (shape->hull)
        sr_hull_destroy(shape->hull);
    sr_free(shape->points);
    memset(shape, 0, sizeof *shape);
}
