/* mtl.c — Wavefront MTL material libraries for the OBJ loader (obj_internal.h): newmtl, Kd, d,
 * Tr and map_Kd (with its options skipped), texture paths resolved against the .mtl file's
 * folder and loaded through sr_texture_load. Everything that can go wrong in a material library
 * is a warning naming the .mtl file and line: the mesh still loads. Knows nothing of OBJ
 * statements. */
#include "obj_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NO_CURRENT UINT32_MAX              /* before the first newmtl */
#define DISCARDED_CURRENT (UINT32_MAX - 1) /* a material defined again: its statements are skipped */

/* Statements that carry nothing sr_mesh_material holds (colours and maps of other lighting terms,
 * PBR extensions); they are skipped without a warning. */
static const char *const ignored_statements[] = {
    "Ka",     "Ks",     "Ke",     "Ns",      "Ni",       "illum",    "Tf",    "sharpness", "map_Ka",
    "map_Ks", "map_Ke", "map_Ns", "map_d",   "map_bump", "map_Bump", "bump",  "disp",      "decal",
    "refl",   "Pr",     "Pm",     "Ps",      "Pc",       "Pcr",      "aniso", "anisor",    "norm",
    "map_Pr", "map_Pm", "map_Ps", "map_RMA", "map_ORM",  "map_Kn",   "Km",
};

static bool keyword_is(const char *keyword, size_t length, const char *name)
{
    return strlen(name) == length && memcmp(keyword, name, length) == 0;
}

static bool is_ignored(const char *keyword, size_t length)
{
    for (size_t i = 0; i < sizeof ignored_statements / sizeof ignored_statements[0]; i++)
        if (keyword_is(keyword, length, ignored_statements[i]))
            return true;
    return false;
}

typedef struct mtl_parser {
    sr_mtl_library *library;
    const sr_obj_desc *desc;
    const char *path; /* the .mtl file, in messages and as the base of texture paths */
    sr_obj_text *text;
    size_t line;
    uint32_t current; /* material being defined, NO_CURRENT or DISCARDED_CURRENT */
    bool current_has_d;
    sr_error *err;
} mtl_parser;

static size_t line_of(const mtl_parser *ps, const char *position)
{
    return sr_obj_text_line(ps->text, ps->line, position);
}

static sr_status out_of_memory(mtl_parser *ps)
{
    return sr_error_set(ps->err, SR_ERROR_OUT_OF_MEMORY, "%s:%zu: out of memory", ps->path, ps->line);
}

static sr_status start_material(mtl_parser *ps, const char *name, size_t length, const char *at)
{
    if (length == 0) {
        sr_obj_warn(ps->desc, "%s:%zu: newmtl without a name: the material is skipped", ps->path, line_of(ps, at));
        ps->current = DISCARDED_CURRENT;
        return SR_OK;
    }
    sr_mtl_library *library = ps->library;
    uint32_t index;
    bool added;
    if (!sr_obj_grow((void **)&library->materials, &library->capacity, library->count + 1, sizeof *library->materials))
        return out_of_memory(ps);
    /* texture_origins follows materials' capacity */
    char **origins = sr_realloc(library->texture_origins, library->capacity * sizeof *origins);
    if (!origins)
        return out_of_memory(ps);
    library->texture_origins = origins;
    if (sr_obj_names_intern(&library->names, name, length, &index, &added) != SR_OK)
        return out_of_memory(ps);
    if (!added) {
        sr_obj_warn(ps->desc, "%s:%zu: material '%.*s' is defined again: the first definition is kept", ps->path,
                    line_of(ps, at), (int)(length > 200 ? 200 : length), name);
        ps->current = DISCARDED_CURRENT;
        return SR_OK;
    }
    library->materials[index] =
        (sr_mesh_material){.name = library->names.names[index], .base_color = {0.8f, 0.8f, 0.8f, 1.0f}};
    library->texture_origins[index] = NULL;
    library->count = index + 1;
    ps->current = index;
    ps->current_has_d = false;
    return SR_OK;
}

/* Reads up to `capacity` numbers to the end of the statement; returns how many, or -1 (after a
 * warning) when a token is not a finite number or there are more. */
static int read_numbers(mtl_parser *ps, const char *p, float *values, int capacity, const char *keyword)
{
    int count = 0;
    for (;;) {
        p = sr_obj_skip_blanks(p);
        if (sr_obj_is_statement_end(*p))
            return count;
        const char *end;
        float value;
        if (count == capacity || sr_obj_parse_float(p, &end, &value) != SR_OBJ_NUMBER_OK) {
            size_t length = sr_obj_token_length(p);
            sr_obj_warn(ps->desc, "%s:%zu: %s: %s '%.*s': the statement is ignored", ps->path, line_of(ps, p), keyword,
                        count == capacity ? "too many numbers at" : "not a finite number",
                        (int)(length > 40 ? 40 : length), p);
            return -1;
        }
        values[count++] = value;
        p = end;
    }
}

/* map_Kd [options] file: the options of the MTL specification are skipped with their arguments. */
static sr_status read_texture(mtl_parser *ps, const char *p, const char *line_end)
{
    static const struct {
        const char *name;
        int arguments; /* -1: one to three numbers */
    } options[] = {{"-blendu", 1}, {"-blendv", 1}, {"-cc", 1},      {"-clamp", 1}, {"-bm", 1},
                   {"-boost", 1},  {"-texres", 1}, {"-imfchan", 1}, {"-type", 1},  {"-colorspace", 1},
                   {"-mm", 2},     {"-o", -1},     {"-s", -1},      {"-t", -1}};
    sr_mesh_material *material = &ps->library->materials[ps->current];
    for (;;) {
        p = sr_obj_skip_blanks(p);
        if (*p != '-' || p >= line_end)
            break;
        size_t length = sr_obj_token_length(p);
        int arguments = 0;
        bool known = false;
        for (size_t i = 0; i < sizeof options / sizeof options[0] && !known; i++)
            if (keyword_is(p, length, options[i].name)) {
                known = true;
                arguments = options[i].arguments;
            }
        if (!known) {
            /* a negative number or a name starting with '-': the file name begins here */
            break;
        }
        p += length;
        for (int k = 0; arguments < 0 ? k < 3 : k < arguments; k++) {
            const char *q = sr_obj_skip_blanks(p);
            if (q >= line_end)
                break;
            const char *end;
            float value;
            if (arguments < 0 && sr_obj_parse_float(q, &end, &value) != SR_OBJ_NUMBER_OK)
                break; /* -o, -s, -t take one to three numbers */
            p = q + sr_obj_token_length(q);
        }
    }
    p = sr_obj_skip_blanks(p);
    size_t length = p < line_end ? sr_obj_trim_length(p, (size_t)(line_end - p)) : 0;
    if (length == 0) {
        sr_obj_warn(ps->desc, "%s:%zu: map_Kd without a file name: ignored", ps->path, line_of(ps, p));
        return SR_OK;
    }
    char *path = sr_obj_resolve_path(ps->path, sr_obj_folder_length(ps->path), p, length);
    size_t origin_size = strlen(ps->path) + 24;
    char *origin = sr_alloc(origin_size);
    if (!path || !origin) {
        sr_free(path);
        sr_free(origin);
        return out_of_memory(ps);
    }
    snprintf(origin, origin_size, "%s:%zu", ps->path, line_of(ps, p));
    sr_free(material->texture_path);
    sr_free(ps->library->texture_origins[ps->current]);
    material->texture_path = path;
    ps->library->texture_origins[ps->current] = origin;
    return SR_OK;
}

static sr_status parse_statement(mtl_parser *ps, const char *p, const char *line_end)
{
    size_t length = sr_obj_token_length(p);
    const char *keyword = p;
    const char *rest = sr_obj_skip_blanks(p + length);
    size_t rest_length = rest < line_end ? sr_obj_trim_length(rest, (size_t)(line_end - rest)) : 0;
    if (keyword_is(keyword, length, "newmtl"))
        return start_material(ps, rest, rest_length, keyword);
    bool known = keyword_is(keyword, length, "Kd") || keyword_is(keyword, length, "d") ||
                 keyword_is(keyword, length, "Tr") || keyword_is(keyword, length, "map_Kd");
    if (!known) {
        if (!is_ignored(keyword, length))
            sr_obj_warn(ps->desc, "%s:%zu: unknown statement '%.*s': ignored", ps->path, line_of(ps, keyword),
                        (int)(length > 40 ? 40 : length), keyword);
        return SR_OK;
    }
    if (ps->current == NO_CURRENT) {
        sr_obj_warn(ps->desc, "%s:%zu: '%.*s' before any newmtl: ignored", ps->path, line_of(ps, keyword), (int)length,
                    keyword);
        return SR_OK;
    }
    if (ps->current == DISCARDED_CURRENT)
        return SR_OK;
    sr_mesh_material *material = &ps->library->materials[ps->current];
    float values[3];
    if (keyword_is(keyword, length, "Kd")) {
        if (keyword_is(rest, sr_obj_token_length(rest), "spectral") ||
            keyword_is(rest, sr_obj_token_length(rest), "xyz")) {
            sr_obj_warn(ps->desc, "%s:%zu: Kd %.*s is not supported: the colour stays the default", ps->path,
                        line_of(ps, rest), (int)sr_obj_token_length(rest), rest);
            return SR_OK;
        }
        int count = read_numbers(ps, rest, values, 3, "Kd");
        if (count == 1 || count == 3) {
            material->base_color.x = values[0];
            material->base_color.y = values[count == 3 ? 1 : 0];
            material->base_color.z = values[count == 3 ? 2 : 0];
        } else if (count >= 0) {
            sr_obj_warn(ps->desc, "%s:%zu: Kd needs 1 or 3 numbers, not %d: ignored", ps->path, line_of(ps, keyword),
                        count);
        }
    } else if (keyword_is(keyword, length, "d") || keyword_is(keyword, length, "Tr")) {
        bool dissolve = keyword[0] == 'd';
        if (dissolve && keyword_is(rest, sr_obj_token_length(rest), "-halo"))
            rest += 5;
        int count = read_numbers(ps, rest, values, 1, dissolve ? "d" : "Tr");
        if (count == 1) {
            /* d is opacity, Tr transparency; d wins when a material has both, whatever the order */
            if (dissolve) {
                material->base_color.w = values[0];
                ps->current_has_d = true;
            } else if (!ps->current_has_d) {
                material->base_color.w = 1.0f - values[0];
            }
        } else if (count == 0) {
            sr_obj_warn(ps->desc, "%s:%zu: %.*s without a number: ignored", ps->path, line_of(ps, keyword), (int)length,
                        keyword);
        }
    } else {
        return read_texture(ps, rest, line_end);
    }
    return SR_OK;
}

static sr_status parse(mtl_parser *ps)
{
    const char *p = ps->text->bytes + ps->text->start;
    ps->line = 0;
    while (*p) {
        ps->line++;
        p = sr_obj_skip_blanks(p);
        const char *line_end = strchr(p, '\n');
        if (!line_end)
            line_end = p + strlen(p);
        if (!sr_obj_is_statement_end(*p)) {
            sr_status status = parse_statement(ps, p, line_end);
            if (status != SR_OK)
                return status;
        }
        p = *line_end ? line_end + 1 : line_end;
    }
    return SR_OK;
}

/* Reads and parses the .mtl file `name` (resolved against the folder); *found says whether it
 * could be read. Unless `quiet`, a file that cannot be read is a warning. */
static sr_status read_library(sr_mtl_library *library, const sr_obj_desc *desc, const char *folder,
                              size_t folder_length, const char *name, size_t length, const char *origin, bool quiet,
                              bool *found, sr_error *err)
{
    *found = false;
    char *path = sr_obj_resolve_path(folder, folder_length, name, length);
    if (!path)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory", origin);
    sr_obj_text text;
    sr_error text_error = {0};
    sr_status status;
    if (desc->read_mtl) {
        size_t bytes_length = 0;
        const char *bytes = desc->read_mtl(desc->user, path, &bytes_length);
        status = bytes ? sr_obj_text_copy(bytes, bytes_length, path, &text, &text_error)
                       : sr_error_set(&text_error, SR_ERROR_IO, "%s: no such file", path);
    } else {
        status = sr_obj_text_read(path, &text, &text_error);
    }
    if (status == SR_ERROR_OUT_OF_MEMORY) {
        sr_free(path);
        return sr_error_set(err, status, "%s", text_error.message);
    }
    if (status != SR_OK) {
        if (!quiet || status == SR_ERROR_PARSE)
            sr_obj_warn(desc, "%s: material library not loaded: %s", origin, text_error.message);
        *found = status == SR_ERROR_PARSE; /* it exists, but is no text */
        sr_free(path);
        return SR_OK;
    }
    *found = true;
    mtl_parser ps = {.library = library, .desc = desc, .path = path, .text = &text, .current = NO_CURRENT, .err = err};
    status = parse(&ps);
    sr_obj_text_free(&text);
    sr_free(path);
    return status;
}

sr_status sr_mtl_library_read_statement(sr_mtl_library *library, const sr_obj_desc *desc, const char *folder,
                                        size_t folder_length, const char *files, size_t length, const char *origin,
                                        sr_error *err)
{
    if (length == 0) {
        sr_obj_warn(desc, "%s: mtllib without a file name: ignored", origin);
        return SR_OK;
    }
    bool has_blank = false;
    for (size_t i = 0; i < length && !has_blank; i++)
        has_blank = sr_obj_is_blank(files[i]);
    /* the whole rest of the line first: file names with blanks exist (exporters write them) */
    bool found;
    sr_status status =
        read_library(library, desc, folder, folder_length, files, length, origin, has_blank, &found, err);
    if (status != SR_OK || found || !has_blank)
        return status;
    for (size_t i = 0; i < length;) {
        while (i < length && sr_obj_is_blank(files[i]))
            i++;
        size_t start = i;
        while (i < length && !sr_obj_is_blank(files[i]))
            i++;
        if (i > start) {
            status = read_library(library, desc, folder, folder_length, files + start, i - start, origin, false, &found,
                                  err);
            if (status != SR_OK)
                return status;
        }
    }
    return SR_OK;
}

sr_status sr_mtl_library_load_textures(sr_mtl_library *library, const sr_obj_desc *desc, const bool *used,
                                       sr_error *err)
{
    if (desc->skip_textures)
        return SR_OK;
    for (size_t i = 0; i < library->count; i++) {
        sr_mesh_material *material = &library->materials[i];
        if (!used[i] || !material->texture_path)
            continue;
        sr_error texture_error = {0};
        sr_status status = sr_texture_load(material->texture_path, &material->texture, &texture_error);
        if (status == SR_ERROR_OUT_OF_MEMORY)
            return sr_error_set(err, status, "%s: %s", library->texture_origins[i], texture_error.message);
        if (status != SR_OK)
            sr_obj_warn(desc, "%s: texture of material '%s' not loaded: %s", library->texture_origins[i],
                        material->name, texture_error.message);
    }
    return SR_OK;
}

void sr_mtl_library_free(sr_mtl_library *library)
{
    /* material names belong to `names` until the mesh takes them */
    for (size_t i = 0; i < library->count; i++) {
        sr_free(library->materials[i].texture_path);
        sr_texture_destroy(library->materials[i].texture);
        sr_free(library->texture_origins[i]);
    }
    sr_free(library->materials);
    sr_free(library->texture_origins);
    sr_obj_names_free(&library->names);
    *library = (sr_mtl_library){0};
}
