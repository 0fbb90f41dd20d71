/* obj.c — Wavefront OBJ loading into an sr_mesh (softrast/scene.h): the statements of the
 * format, vertices de-duplicated per (v, vt, vn) triple, faces triangulated in file order,
 * groups, material switches resolved against the .mtl files (mtl.c), and the mesh assembled at
 * the end. Malformed OBJ input is an error naming the file and line; everything about materials
 * is a warning. The text is read in one go and parsed in place, without allocating per line
 * (obj_text.c has the numbers and files, obj_polygon.c the triangulation, obj_mesh.c the
 * assembly of the mesh from what was read). */
#include "obj_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE SR_OBJ_NONE

/* Polygons with more corners are fan-triangulated without looking at their shape (with a
 * warning): ear clipping costs O(n^2) per polygon and more in unlucky shapes. */
#define MAX_EAR_CLIPPED_CORNERS 1024

/* Statements of the OBJ format that carry nothing a triangle mesh needs; they are skipped.
 * Anything else is an error, so that a file that is not OBJ is reported as such. */
static const char *const ignored_statements[] = {
    "vp",   "l",      "p",      "s",          "mg",        "cstype", "deg",   "bmat", "step",  "curv",     "curv2",
    "surf", "parm",   "trim",   "hole",       "scrv",      "sp",     "end",   "con",  "bevel", "c_interp", "d_interp",
    "lod",  "maplib", "usemap", "shadow_obj", "trace_obj", "ctech",  "stech", "call", "csh",
};

static size_t line_of(const sr_obj_parser *ps, const char *position)
{
    return sr_obj_text_line(&ps->text, ps->line, position);
}

static sr_status fail(const sr_obj_parser *ps, const char *at, sr_status status, const char *what, const char *token,
                      size_t token_length)
{
    if (token)
        return sr_error_set(ps->err, status, "%s:%zu: %s '%.*s'", ps->name, line_of(ps, at), what,
                            (int)(token_length > 40 ? 40 : token_length), token);
    return sr_error_set(ps->err, status, "%s:%zu: %s", ps->name, line_of(ps, at), what);
}

static sr_status out_of_memory(const sr_obj_parser *ps, const char *at)
{
    return fail(ps, at, SR_ERROR_OUT_OF_MEMORY, "out of memory", NULL, 0);
}

static bool keyword_is(const char *keyword, size_t length, const char *name)
{
    return strlen(name) == length && memcmp(keyword, name, length) == 0;
}

/* The rest of the statement after the keyword, blanks trimmed on both sides. */
static const char *statement_rest(const char *p, size_t *length)
{
    p = sr_obj_skip_blanks(p);
    const char *end = strchr(p, '\n');
    *length = sr_obj_trim_length(p, end ? (size_t)(end - p) : strlen(p));
    return p;
}

/* ------------------------------------------------------------------------------------------ */
/* v, vt, vn                                                                                   */

/* Reads up to `capacity` numbers to the end of the statement into values; *count is how many.
 * Inlined into the v, vt and vn statements, where the loader spends most of its time. */
static inline __attribute__((always_inline)) sr_status
read_numbers(sr_obj_parser *ps, const char **cursor, float *values, int capacity, int *count, const char *too_many)
{
    const char *p = *cursor;
    int n = 0;
    for (;;) {
        p = sr_obj_skip_blanks(p);
        if (sr_obj_is_statement_end(*p))
            break;
        if (n == capacity)
            return fail(ps, p, SR_ERROR_PARSE, too_many, NULL, 0);
        const char *end;
        sr_obj_number result = sr_obj_parse_float(p, &end, &values[n]);
        if (result != SR_OBJ_NUMBER_OK)
            return fail(ps, p, SR_ERROR_PARSE,
                        result == SR_OBJ_NUMBER_MALFORMED ? "malformed number" : "coordinate is not finite", p,
                        (size_t)(end - p));
        n++;
        p = end;
    }
    *count = n;
    *cursor = p;
    return SR_OK;
}

static sr_status parse_vertex(sr_obj_parser *ps, const char **cursor)
{
    const char *at = *cursor;
    float values[7];
    int count = 0;
    sr_status status = read_numbers(ps, cursor, values, 7, &count, "vertex has too many numbers");
    if (status != SR_OK)
        return status;
    if (count < 3)
        return fail(ps, at, SR_ERROR_PARSE, "vertex has fewer than 3 coordinates", NULL, 0);
    if (ps->position_count >= UINT32_MAX - 1)
        return fail(ps, at, SR_ERROR_PARSE, "too many vertices for 32-bit indices", NULL, 0);
    size_t index = ps->position_count;
    if (!sr_obj_grow((void **)&ps->positions, &ps->position_capacity, index + 1, sizeof *ps->positions))
        return out_of_memory(ps, at);
    ps->positions[index] = (sr_vec3){values[0], values[1], values[2]};
    if (!sr_obj_grow((void **)&ps->first_vertex, &ps->first_vertex_capacity, index + 1, sizeof *ps->first_vertex))
        return out_of_memory(ps, at);
    ps->first_vertex[index] = NONE;
    /* x y z, x y z w, x y z r g b or x y z r g b a */
    if (count == 5)
        sr_obj_warn(ps->desc, "%s:%zu: vertex with 5 numbers (x y z w or x y z r g b expected): the last 2 ignored",
                    ps->name, line_of(ps, at));
    if (count >= 6 && !ps->colors) {
        if (!sr_obj_grow((void **)&ps->colors, &ps->color_capacity, index + 1, sizeof *ps->colors))
            return out_of_memory(ps, at);
        for (size_t i = 0; i < index; i++)
            ps->colors[i] = (sr_vec4){1.0f, 1.0f, 1.0f, 1.0f};
    }
    if (ps->colors) {
        if (!sr_obj_grow((void **)&ps->colors, &ps->color_capacity, index + 1, sizeof *ps->colors))
            return out_of_memory(ps, at);
        ps->colors[index] = count >= 6 ? (sr_vec4){values[3], values[4], values[5], count == 7 ? values[6] : 1.0f}
                                       : (sr_vec4){1.0f, 1.0f, 1.0f, 1.0f};
    }
    ps->position_count = index + 1;
    return SR_OK;
}

static sr_status parse_uv(sr_obj_parser *ps, const char **cursor)
{
    const char *at = *cursor;
    float values[3] = {0.0f, 0.0f, 0.0f};
    int count = 0;
    sr_status status = read_numbers(ps, cursor, values, 3, &count, "texture coordinate has more than 3 numbers");
    if (status != SR_OK)
        return status;
    if (count < 1)
        return fail(ps, at, SR_ERROR_PARSE, "texture coordinate without numbers", NULL, 0);
    if (ps->uv_count >= UINT32_MAX - 1)
        return fail(ps, at, SR_ERROR_PARSE, "too many texture coordinates for 32-bit indices", NULL, 0);
    if (!sr_obj_grow((void **)&ps->uvs, &ps->uv_capacity, ps->uv_count + 1, sizeof *ps->uvs))
        return out_of_memory(ps, at);
    /* OBJ's v grows upwards, softrast's texture v downwards (raster.h) */
    ps->uvs[ps->uv_count++] = (sr_vec2){values[0], 1.0f - values[1]};
    return SR_OK;
}

static sr_status parse_normal(sr_obj_parser *ps, const char **cursor)
{
    const char *at = *cursor;
    float values[3];
    int count = 0;
    sr_status status = read_numbers(ps, cursor, values, 3, &count, "normal has more than 3 numbers");
    if (status != SR_OK)
        return status;
    if (count < 3)
        return fail(ps, at, SR_ERROR_PARSE, "normal has fewer than 3 numbers", NULL, 0);
    if (ps->normal_count >= UINT32_MAX - 1)
        return fail(ps, at, SR_ERROR_PARSE, "too many normals for 32-bit indices", NULL, 0);
    if (!sr_obj_grow((void **)&ps->normals, &ps->normal_capacity, ps->normal_count + 1, sizeof *ps->normals))
        return out_of_memory(ps, at);
    ps->normals[ps->normal_count++] = (sr_vec3){values[0], values[1], values[2]};
    return SR_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* f                                                                                           */

/* The vertex of the triple (position, uv, normal), made when new. */
static sr_status vertex_of(sr_obj_parser *ps, const char *at, uint32_t position, uint32_t uv, uint32_t normal,
                           uint32_t *vertex)
{
    for (uint32_t v = ps->first_vertex[position]; v != NONE; v = ps->vertices[v].next)
        if (ps->vertices[v].uv == uv && ps->vertices[v].normal == normal) {
            *vertex = v;
            return SR_OK;
        }
    if (ps->vertex_count >= UINT32_MAX - 1)
        return fail(ps, at, SR_ERROR_PARSE, "too many distinct vertices for 32-bit indices", NULL, 0);
    if (!sr_obj_grow((void **)&ps->vertices, &ps->vertex_capacity, ps->vertex_count + 1, sizeof *ps->vertices))
        return out_of_memory(ps, at);
    uint32_t index = (uint32_t)ps->vertex_count++;
    ps->vertices[index] = (sr_obj_vertex){position, uv, normal, ps->first_vertex[position]};
    ps->first_vertex[position] = index;
    ps->any_missing_normal |= normal == NONE;
    *vertex = index;
    return SR_OK;
}

/* The first corner with a vt or vn: from now on vertices are (v, vt, vn) triples, and the
 * positions used so far become the vertices of (v, none, none), numbered as they were first
 * used (first_vertex has counted them in corner order). */
static sr_status start_deduplication(sr_obj_parser *ps, const char *at, size_t corners)
{
    ps->deduplicate = true;
    ps->any_missing_normal = ps->vertex_count > 0;
    if (!sr_obj_grow((void **)&ps->vertices, &ps->vertex_capacity, ps->vertex_count + 1, sizeof *ps->vertices))
        return out_of_memory(ps, at);
    for (size_t p = 0; p < ps->position_count; p++) {
        uint32_t v = ps->first_vertex[p];
        if (v != NONE)
            ps->vertices[v] = (sr_obj_vertex){(uint32_t)p, NONE, NONE, NONE};
    }
    for (size_t i = 0; i < ps->index_count; i++)
        ps->indices[i] = ps->first_vertex[ps->indices[i]];
    for (size_t k = 0; k < corners; k++)
        ps->corner_vertices[k] = ps->first_vertex[ps->corner_positions[k]];
    return SR_OK;
}

/* The error of a face corner's index (out of line: only failures measure the token). */
static sr_status __attribute__((noinline, cold))
index_error(const sr_obj_parser *ps, const char *token, const char *what, uint64_t value, bool negative, size_t count,
            const char *singular, const char *plural)
{
    size_t length = sr_obj_token_length(token);
    if (what)
        return fail(ps, token, SR_ERROR_PARSE, what, token, length);
    return sr_error_set(ps->err, SR_ERROR_PARSE,
                        "%s:%zu: face index '%.*s' refers to %s %s%llu but only %zu %s defined before this line",
                        ps->name, line_of(ps, token), (int)(length > 40 ? 40 : length), token, singular,
                        negative ? "-" : "", (unsigned long long)value, count,
                        count == 1 ? (strcmp(singular, "vertex") == 0 ? "vertex is" : "is")
                                   : (strcmp(plural, "vertices") == 0 ? "vertices are" : "are"));
}

/* One index of the corner `token` at *cursor: [+-]digits, 1-based or (negative) counted back
 * from the last of `count` elements defined so far. Inlined: it runs for every corner. */
static inline __attribute__((always_inline)) sr_status parse_index(const sr_obj_parser *ps, const char **cursor,
                                                                   const char *token, size_t count,
                                                                   const char *singular, const char *plural,
                                                                   uint32_t *index)
{
    const char *q = *cursor;
    bool negative = *q == '-';
    if (*q == '-' || *q == '+')
        q++;
    if ((unsigned)(*q - '0') >= 10)
        return index_error(ps, token, "malformed face index", 0, negative, count, singular, plural);
    uint64_t value = 0;
    while ((unsigned)(*q - '0') < 10) {
        value = value * 10 + (uint64_t)(*q++ - '0');
        if (value > UINT32_MAX)
            return index_error(ps, token, "face index out of range", value, negative, count, singular, plural);
    }
    if (value == 0 || value > count)
        return index_error(ps, token, value == 0 ? "face index 0 (OBJ indices start at 1)" : NULL, value, negative,
                           count, singular, plural);
    *index = negative ? (uint32_t)(count - value) : (uint32_t)(value - 1);
    *cursor = q;
    return SR_OK;
}

static sr_status add_corner_room(sr_obj_parser *ps, const char *at, size_t corners)
{
    if (corners < ps->corner_capacity)
        return SR_OK;
    size_t capacity = ps->corner_capacity;
    if (!sr_obj_grow((void **)&ps->corner_vertices, &capacity, corners + 1, sizeof *ps->corner_vertices))
        return out_of_memory(ps, at);
    capacity = ps->corner_capacity;
    if (!sr_obj_grow((void **)&ps->corner_positions, &capacity, corners + 1, sizeof *ps->corner_positions))
        return out_of_memory(ps, at);
    ps->corner_capacity = capacity;
    return SR_OK;
}

/* Triangulates the polygon of the face's corners (more than 3) into corner_triangles. */
static sr_status triangulate(sr_obj_parser *ps, const char *at, size_t corners)
{
    if (!sr_obj_grow((void **)&ps->corner_points, &ps->point_capacity, corners, sizeof *ps->corner_points) ||
        !sr_obj_grow((void **)&ps->corner_triangles, &ps->corner_triangle_capacity, 3 * (corners - 2),
                     sizeof *ps->corner_triangles))
        return out_of_memory(ps, at);
    if (corners > MAX_EAR_CLIPPED_CORNERS) {
        sr_obj_warn(ps->desc, "%s:%zu: face with %zu corners: fan-triangulated without a concavity test", ps->name,
                    line_of(ps, at), corners);
        for (size_t k = 1; k + 1 < corners; k++) {
            uint32_t *t = ps->corner_triangles + 3 * (k - 1);
            t[0] = 0;
            t[1] = (uint32_t)k;
            t[2] = (uint32_t)(k + 1);
        }
        return SR_OK;
    }
    if (!sr_obj_polygon_reserve(&ps->polygon, corners))
        return out_of_memory(ps, at);
    for (size_t k = 0; k < corners; k++)
        ps->corner_points[k] = ps->positions[ps->corner_positions[k]];
    sr_obj_triangulate(ps->corner_points, corners, &ps->polygon, ps->corner_triangles);
    return SR_OK;
}

static sr_status parse_face(sr_obj_parser *ps, const char **cursor)
{
    const char *p = *cursor, *at = p;
    size_t corners = 0;
    for (;;) {
        p = sr_obj_skip_blanks(p);
        if (sr_obj_is_statement_end(*p))
            break;
        sr_status status = add_corner_room(ps, p, corners);
        if (status != SR_OK)
            return status;
        const char *token = p, *q = p;
        uint32_t position = 0, uv = NONE, normal = NONE;
        status = parse_index(ps, &q, token, ps->position_count, "vertex", "vertices", &position);
        if (status == SR_OK && *q == '/') {
            q++;
            if (*q != '/' && !sr_obj_is_token_end(*q))
                status = parse_index(ps, &q, token, ps->uv_count, "texture coordinate", "texture coordinates", &uv);
            if (status == SR_OK && *q == '/') {
                q++;
                if (!sr_obj_is_token_end(*q))
                    status = parse_index(ps, &q, token, ps->normal_count, "normal", "normals", &normal);
            }
        }
        if (status != SR_OK)
            return status;
        if (!sr_obj_is_token_end(*q))
            return index_error(ps, token, "malformed face index", 0, false, 0, NULL, NULL);
        ps->corner_positions[corners] = position;
        if (!ps->deduplicate && (uv != NONE || normal != NONE)) {
            status = start_deduplication(ps, token, corners);
            if (status != SR_OK)
                return status;
        }
        if (ps->deduplicate) {
            status = vertex_of(ps, token, position, uv, normal, &ps->corner_vertices[corners]);
            if (status != SR_OK)
                return status;
            ps->any_uv |= uv != NONE;
            ps->any_normal |= normal != NONE;
        } else {
            /* count the positions in order of first use, in case a later corner has a vt or vn */
            if (ps->first_vertex[position] == NONE)
                ps->first_vertex[position] = (uint32_t)ps->vertex_count++;
            ps->corner_vertices[corners] = position;
        }
        corners++;
        p = q;
    }
    if (corners < 3)
        return fail(ps, at, SR_ERROR_PARSE, "face has fewer than 3 vertices", NULL, 0);
    size_t triangles = corners - 2;
    if (ps->index_count / 3 + triangles > UINT32_MAX / 3)
        return fail(ps, at, SR_ERROR_PARSE, "too many triangles", NULL, 0);
    if (!sr_obj_grow((void **)&ps->indices, &ps->index_capacity, ps->index_count + 3 * triangles, sizeof *ps->indices))
        return out_of_memory(ps, at);
    uint32_t *out = ps->indices + ps->index_count;
    const uint32_t *vertices = ps->corner_vertices;
    if (corners == 3) {
        out[0] = vertices[0];
        out[1] = vertices[1];
        out[2] = vertices[2];
    } else {
        sr_status status = triangulate(ps, at, corners);
        if (status != SR_OK)
            return status;
        for (size_t i = 0; i < 3 * triangles; i++)
            out[i] = vertices[ps->corner_triangles[i]];
    }
    ps->index_count += 3 * triangles;
    *cursor = p;
    return SR_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* o, g, usemtl, mtllib                                                                        */

static void close_group(sr_obj_parser *ps)
{
    if (!ps->group_open)
        return;
    sr_mesh_group *group = &ps->groups[ps->group_count - 1];
    group->triangle_count = (uint32_t)(ps->index_count / 3) - group->first_triangle;
    if (group->triangle_count == 0) {
        /* a group without faces (`g default` before the vertices, `o` then `g`): dropped */
        sr_free(group->name);
        ps->group_count--;
    }
    ps->group_open = false;
}

static sr_status open_group(sr_obj_parser *ps, const char *at, const char *name, size_t length)
{
    close_group(ps);
    if (!sr_obj_grow((void **)&ps->groups, &ps->group_capacity, ps->group_count + 1, sizeof *ps->groups))
        return out_of_memory(ps, at);
    char *copy = sr_obj_copy_string(name, length);
    if (!copy)
        return out_of_memory(ps, at);
    ps->groups[ps->group_count++] = (sr_mesh_group){copy, (uint32_t)(ps->index_count / 3), 0};
    ps->group_open = true;
    return SR_OK;
}

static sr_status use_material(sr_obj_parser *ps, const char *at, const char *name, size_t length)
{
    uint32_t index = NONE;
    if (length == 0) {
        sr_obj_warn(ps->desc, "%s:%zu: usemtl without a name: the faces that follow have no material", ps->name,
                    line_of(ps, at));
    } else {
        bool added;
        if (sr_obj_names_intern(&ps->usemtl_names, name, length, &index, &added) != SR_OK)
            return out_of_memory(ps, at);
        if (added) {
            if (!sr_obj_grow((void **)&ps->usemtl_lines, &ps->usemtl_line_capacity, index + 1,
                             sizeof *ps->usemtl_lines))
                return out_of_memory(ps, at);
            ps->usemtl_lines[index] = line_of(ps, at);
        }
    }
    if (index == ps->current_name)
        return SR_OK;
    if (!sr_obj_grow((void **)&ps->switches, &ps->switch_capacity, ps->switch_count + 1, sizeof *ps->switches))
        return out_of_memory(ps, at);
    ps->switches[ps->switch_count++] = (sr_obj_material_switch){(uint32_t)(ps->index_count / 3), index};
    ps->current_name = index;
    return SR_OK;
}

static sr_status read_material_libraries(sr_obj_parser *ps, const char *at, const char *files, size_t length)
{
    char origin[4200]; /* PATH_MAX (4096) and a line number */
    snprintf(origin, sizeof origin, "%.4096s:%zu", ps->name, line_of(ps, at));
    return sr_mtl_library_read_statement(&ps->library, ps->desc, ps->name, ps->folder_length, files, length, origin,
                                         ps->err);
}

static bool is_ignored(const char *keyword, size_t length)
{
    for (size_t i = 0; i < sizeof ignored_statements / sizeof ignored_statements[0]; i++)
        if (keyword_is(keyword, length, ignored_statements[i]))
            return true;
    return false;
}

/* Statements other than v, vt, vn and f. */
static sr_status parse_other(sr_obj_parser *ps, const char *p)
{
    size_t length = sr_obj_token_length(p);
    size_t rest_length;
    const char *rest = statement_rest(p + length, &rest_length);
    if (keyword_is(p, length, "o") || keyword_is(p, length, "g"))
        return open_group(ps, p, rest, rest_length);
    if (keyword_is(p, length, "usemtl"))
        return use_material(ps, p, rest, rest_length);
    if (keyword_is(p, length, "mtllib"))
        return read_material_libraries(ps, p, rest, rest_length);
    if (is_ignored(p, length))
        return SR_OK;
    return fail(ps, p, SR_ERROR_PARSE, "not an OBJ file: unknown statement", p, length);
}

/* Bytes of text between two progress reports (sr_obj_desc.progress). */
#define PROGRESS_STEP ((size_t)4 << 20)

/* Reports the fraction of the text read; SR_ERROR_CANCELLED when the callback says stop. */
static sr_status report_progress(sr_obj_parser *ps, size_t offset)
{
    char stage[300];
    const char *slash = strrchr(ps->name, '/');
    snprintf(stage, sizeof stage, "reading %.200s", slash ? slash + 1 : ps->name);
    double fraction = ps->text.length > 0 ? (double)offset / (double)ps->text.length : 1.0;
    if (!ps->desc->progress(ps->desc->user, stage, fraction > 1.0 ? 1.0 : fraction))
        return sr_error_set(ps->err, SR_ERROR_CANCELLED, "%s: loading cancelled", ps->name);
    return SR_OK;
}

static sr_status parse(sr_obj_parser *ps)
{
    const char *p = ps->text.bytes + ps->text.start;
    const char *next_report = ps->desc->progress ? p : NULL;
    ps->line = 0;
    while (*p) {
        if (next_report && p >= next_report) {
            sr_status status = report_progress(ps, (size_t)(p - ps->text.bytes));
            if (status != SR_OK)
                return status;
            next_report = (size_t)(ps->text.bytes + ps->text.length - p) > PROGRESS_STEP
                              ? p + PROGRESS_STEP
                              : ps->text.bytes + ps->text.length;
        }
        ps->line++;
        p = sr_obj_skip_blanks(p);
        sr_status status = SR_OK;
        if (p[0] == 'v' && sr_obj_is_token_end(p[1])) {
            p += 1;
            status = parse_vertex(ps, &p);
        } else if (p[0] == 'f' && sr_obj_is_token_end(p[1])) {
            p += 1;
            status = parse_face(ps, &p);
        } else if (p[0] == 'v' && p[1] == 't' && sr_obj_is_token_end(p[2])) {
            p += 2;
            status = parse_uv(ps, &p);
        } else if (p[0] == 'v' && p[1] == 'n' && sr_obj_is_token_end(p[2])) {
            p += 2;
            status = parse_normal(ps, &p);
        } else if (!sr_obj_is_statement_end(p[0])) {
            status = parse_other(ps, p);
        }
        if (status != SR_OK)
            return status;
        /* the rest of the line: a comment, or the arguments of a statement read as a whole */
        if (*p == '\n') {
            p++;
        } else if (*p) {
            const char *newline = strchr(p, '\n');
            p = newline ? newline + 1 : p + strlen(p);
        }
    }
    if (next_report) {
        sr_status status = report_progress(ps, ps->text.length);
        if (status != SR_OK)
            return status;
    }
    close_group(ps);
    if (ps->index_count == 0)
        return sr_error_set(ps->err, SR_ERROR_PARSE, "%s: no faces: an OBJ mesh needs at least one 'f' line", ps->name);
    return SR_OK;
}

static void parser_free(sr_obj_parser *ps)
{
    sr_obj_text_free(&ps->text);
    sr_free(ps->positions);
    sr_free(ps->colors);
    sr_free(ps->uvs);
    sr_free(ps->normals);
    sr_free(ps->indices);
    sr_free(ps->first_vertex);
    sr_free(ps->vertices);
    sr_free(ps->corner_vertices);
    sr_free(ps->corner_positions);
    sr_free(ps->corner_points);
    sr_free(ps->corner_triangles);
    sr_obj_polygon_free(&ps->polygon);
    sr_obj_names_free(&ps->usemtl_names);
    sr_free(ps->usemtl_lines);
    sr_free(ps->switches);
    sr_mtl_library_free(&ps->library);
    for (size_t i = 0; i < ps->group_count; i++)
        sr_free(ps->groups[i].name);
    sr_free(ps->groups);
}

sr_status sr_obj_load(const sr_obj_desc *desc, sr_mesh **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_obj_load: out is NULL");
    *out = NULL;
    if (!desc)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_obj_load: desc is NULL");
    if (!desc->path && !desc->text)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_obj_load: neither path nor text is given");
    sr_obj_parser ps = {.desc = desc, .err = err, .current_name = NONE};
    ps.name = desc->path ? desc->path : (desc->name ? desc->name : "<memory>");
    ps.folder_length = sr_obj_folder_length(ps.name);
    sr_status status = desc->path ? sr_obj_text_read(desc->path, &ps.text, err)
                                  : sr_obj_text_copy(desc->text, desc->length, ps.name, &ps.text, err);
    if (status == SR_OK)
        status = parse(&ps);
    /* the text is no longer needed: give its memory back before the mesh is assembled */
    sr_obj_text_free(&ps.text);
    if (status == SR_OK)
        status = sr_obj_build_mesh(&ps, out);
    parser_free(&ps);
    return status;
}

sr_status sr_mesh_parse_obj(const char *text, size_t length, const char *name, sr_mesh **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_parse_obj: out is NULL");
    *out = NULL;
    if (!text)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: text is NULL", name ? name : "<memory>");
    return sr_obj_load(&(sr_obj_desc){.text = text, .length = length, .name = name, .skip_normals = true}, out, err);
}

sr_status sr_mesh_load_obj(const char *path, sr_mesh **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_load_obj: out is NULL");
    *out = NULL;
    if (!path)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_load_obj: path is NULL");
    return sr_obj_load(&(sr_obj_desc){.path = path, .skip_normals = true}, out, err);
}
