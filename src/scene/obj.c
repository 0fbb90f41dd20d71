/* obj.c — Wavefront OBJ loading into an sr_mesh (softrast/scene.h): positions and faces,
 * fan-triangulated in file order. Every malformed input is an error naming the file and line. */
#include <softrast/scene.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Larger OBJ files (about 25 million triangles) are refused rather than read. */
#define SR_OBJ_MAX_BYTES ((size_t)1 << 30)

/* Statements of the OBJ format that carry nothing a triangle mesh needs; they are skipped.
 * Anything else is an error, so that a file that is not OBJ is reported as such. */
static const char *const ignored_statements[] = {
    "vt",     "vn",         "vp",        "l",     "p",     "o",     "g",        "s",        "mg",   "usemtl",
    "mtllib", "cstype",     "deg",       "bmat",  "step",  "curv",  "curv2",    "surf",     "parm", "trim",
    "hole",   "scrv",       "sp",        "end",   "con",   "bevel", "c_interp", "d_interp", "lod",  "maplib",
    "usemap", "shadow_obj", "trace_obj", "ctech", "stech", "call",  "csh",
};

typedef struct parser {
    const char *name;
    size_t line;
    sr_error *err;
    sr_vec3 *positions;
    size_t vertex_count, vertex_capacity;
    uint32_t *indices;
    size_t index_count, index_capacity;
    uint32_t *face; /* position indices of the current face */
    size_t face_capacity;
} parser;

static bool grow(void **array, size_t *capacity, size_t needed, size_t element_size)
{
    if (needed <= *capacity)
        return true;
    size_t capacity_new = *capacity ? *capacity : 1024;
    while (capacity_new < needed)
        capacity_new *= 2;
    if (capacity_new > SIZE_MAX / element_size)
        return false;
    void *array_new = sr_realloc(*array, capacity_new * element_size);
    if (!array_new)
        return false;
    *array = array_new;
    *capacity = capacity_new;
    return true;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static const char *skip_blanks(const char *p)
{
    while (is_blank(*p))
        p++;
    return p;
}

static sr_status fail(parser *ps, sr_status status, const char *what, const char *token, size_t token_length)
{
    if (token)
        return sr_error_set(ps->err, status, "%s:%zu: %s '%.*s'", ps->name, ps->line, what,
                            (int)(token_length > 40 ? 40 : token_length), token);
    return sr_error_set(ps->err, status, "%s:%zu: %s", ps->name, ps->line, what);
}

static size_t token_length(const char *p)
{
    size_t n = 0;
    while (p[n] && p[n] != '\n' && !is_blank(p[n]))
        n++;
    return n;
}

static sr_status parse_vertex(parser *ps, const char **cursor)
{
    const char *p = *cursor;
    float xyz[3];
    int count = 0;
    for (;;) {
        p = skip_blanks(p);
        if (*p == '\n' || *p == '\0' || *p == '#')
            break;
        char *end = NULL;
        float value = strtof(p, &end);
        size_t length = token_length(p);
        if (end == p || (size_t)(end - p) != length)
            return fail(ps, SR_ERROR_PARSE, "malformed number", p, length);
        if (!isfinite(value))
            return fail(ps, SR_ERROR_PARSE, "coordinate is not finite", p, length);
        if (count < 3)
            xyz[count] = value;
        count++;
        p = end;
    }
    /* v x y z, an optional w, or the common x y z r g b colour extension. */
    if (count < 3 || count > 7)
        return fail(ps, SR_ERROR_PARSE,
                    count < 3 ? "vertex has fewer than 3 coordinates" : "vertex has too many numbers", NULL, 0);
    if (ps->vertex_count >= UINT32_MAX)
        return fail(ps, SR_ERROR_PARSE, "too many vertices for 32-bit indices", NULL, 0);
    if (!grow((void **)&ps->positions, &ps->vertex_capacity, ps->vertex_count + 1, sizeof *ps->positions))
        return fail(ps, SR_ERROR_OUT_OF_MEMORY, "out of memory", NULL, 0);
    ps->positions[ps->vertex_count++] = (sr_vec3){xyz[0], xyz[1], xyz[2]};
    *cursor = p;
    return SR_OK;
}

/* Reads one face corner "v", "v/vt", "v//vn" or "v/vt/vn" and returns the position index. */
static sr_status parse_corner(parser *ps, const char *p, size_t length, uint32_t *index)
{
    const char *q = p;
    bool negative = false;
    if (*q == '-' || *q == '+')
        negative = *q++ == '-';
    if (*q < '0' || *q > '9')
        return fail(ps, SR_ERROR_PARSE, "malformed face index", p, length);
    uint64_t value = 0;
    while (*q >= '0' && *q <= '9') {
        value = value * 10 + (uint64_t)(*q++ - '0');
        if (value > UINT32_MAX)
            return fail(ps, SR_ERROR_PARSE, "face index out of range", p, length);
    }
    /* texture and normal indices are checked for form only */
    for (int slash = 0; slash < 2 && *q == '/'; slash++) {
        q++;
        if (*q == '-' || *q == '+')
            q++;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if ((size_t)(q - p) != length)
        return fail(ps, SR_ERROR_PARSE, "malformed face index", p, length);
    if (value == 0)
        return fail(ps, SR_ERROR_PARSE, "face index 0 (OBJ indices start at 1)", p, length);
    if (value > ps->vertex_count)
        return sr_error_set(ps->err, SR_ERROR_PARSE,
                            "%s:%zu: face index '%.*s' refers to vertex %s%llu but only %zu vertices are defined "
                            "before this line",
                            ps->name, ps->line, (int)(length > 40 ? 40 : length), p, negative ? "-" : "",
                            (unsigned long long)value, ps->vertex_count);
    *index = negative ? (uint32_t)(ps->vertex_count - value) : (uint32_t)(value - 1);
    return SR_OK;
}

static sr_status parse_face(parser *ps, const char **cursor)
{
    const char *p = *cursor;
    size_t corners = 0;
    for (;;) {
        p = skip_blanks(p);
        if (*p == '\n' || *p == '\0' || *p == '#')
            break;
        size_t length = token_length(p);
        if (!grow((void **)&ps->face, &ps->face_capacity, corners + 1, sizeof *ps->face))
            return fail(ps, SR_ERROR_OUT_OF_MEMORY, "out of memory", NULL, 0);
        sr_status status = parse_corner(ps, p, length, &ps->face[corners]);
        if (status != SR_OK)
            return status;
        corners++;
        p += length;
    }
    if (corners < 3)
        return fail(ps, SR_ERROR_PARSE, "face has fewer than 3 vertices", NULL, 0);
    size_t triangles = corners - 2;
    if (ps->index_count / 3 + triangles > UINT32_MAX / 3)
        return fail(ps, SR_ERROR_PARSE, "too many triangles", NULL, 0);
    if (!grow((void **)&ps->indices, &ps->index_capacity, ps->index_count + 3 * triangles, sizeof *ps->indices))
        return fail(ps, SR_ERROR_OUT_OF_MEMORY, "out of memory", NULL, 0);
    /* fan triangulation: (0, k, k + 1), in file order (BENCH_SCENE.md) */
    for (size_t k = 1; k + 1 < corners; k++) {
        ps->indices[ps->index_count++] = ps->face[0];
        ps->indices[ps->index_count++] = ps->face[k];
        ps->indices[ps->index_count++] = ps->face[k + 1];
    }
    *cursor = p;
    return SR_OK;
}

static bool is_ignored(const char *keyword, size_t length)
{
    for (size_t i = 0; i < sizeof ignored_statements / sizeof ignored_statements[0]; i++)
        if (strlen(ignored_statements[i]) == length && memcmp(ignored_statements[i], keyword, length) == 0)
            return true;
    return false;
}

/* text must be NUL-terminated at text[length]. */
static sr_status parse(parser *ps, const char *text, size_t length)
{
    if (memchr(text, '\0', length))
        return sr_error_set(ps->err, SR_ERROR_PARSE, "%s: binary data (a NUL byte at offset %zu): not an OBJ text file",
                            ps->name, (size_t)((const char *)memchr(text, '\0', length) - text));
    const char *p = text;
    ps->line = 0;
    while (*p) {
        ps->line++;
        p = skip_blanks(p);
        size_t length_keyword = token_length(p);
        sr_status status = SR_OK;
        if (*p == '#' || *p == '\n' || length_keyword == 0) {
            /* comment or empty line */
        } else if (length_keyword == 1 && p[0] == 'v') {
            p += 1;
            status = parse_vertex(ps, &p);
        } else if (length_keyword == 1 && p[0] == 'f') {
            p += 1;
            status = parse_face(ps, &p);
        } else if (!is_ignored(p, length_keyword)) {
            return fail(ps, SR_ERROR_PARSE, "not an OBJ file: unknown statement", p, length_keyword);
        }
        if (status != SR_OK)
            return status;
        /* the rest of the line: a comment, or the arguments of an ignored statement */
        const char *newline = strchr(p, '\n');
        p = newline ? newline + 1 : p + strlen(p);
    }
    if (ps->index_count == 0)
        return sr_error_set(ps->err, SR_ERROR_PARSE, "%s: no faces: an OBJ mesh needs at least one 'f' line", ps->name);
    return SR_OK;
}

static sr_status parse_terminated(const char *text, size_t length, const char *name, sr_mesh **out, sr_error *err)
{
    parser ps = {.name = name, .err = err};
    sr_status status = parse(&ps, text, length);
    sr_mesh *mesh = NULL;
    if (status == SR_OK) {
        mesh = sr_calloc(1, sizeof *mesh);
        if (!mesh) {
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
        } else {
            mesh->positions = ps.positions;
            mesh->vertex_count = ps.vertex_count;
            mesh->indices = ps.indices;
            mesh->triangle_count = ps.index_count / 3;
            ps.positions = NULL;
            ps.indices = NULL;
        }
    }
    sr_free(ps.positions);
    sr_free(ps.indices);
    sr_free(ps.face);
    *out = mesh;
    return status;
}

sr_status sr_mesh_parse_obj(const char *text, size_t length, const char *name, sr_mesh **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_parse_obj: out is NULL");
    *out = NULL;
    if (!name)
        name = "<memory>";
    if (!text)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: text is NULL", name);
    char *copy = sr_alloc(length + 1);
    if (!copy)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
    memcpy(copy, text, length);
    copy[length] = '\0';
    sr_status status = parse_terminated(copy, length, name, out, err);
    sr_free(copy);
    return status;
}

sr_status sr_mesh_load_obj(const char *path, sr_mesh **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_load_obj: out is NULL");
    *out = NULL;
    if (!path)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_load_obj: path is NULL");
    FILE *file = fopen(path, "rb");
    if (!file)
        return sr_error_set(err, SR_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    /* Only regular files: a device such as /dev/zero or a never-ending pipe would otherwise be
     * read until memory runs out. */
    struct stat info;
    if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
        fclose(file);
        return sr_error_set(err, SR_ERROR_IO, "%s: not a regular file", path);
    }
    char *text = NULL;
    size_t length = 0, capacity = 0;
    sr_status status = SR_OK;
    for (;;) {
        if (length > SR_OBJ_MAX_BYTES) {
            status = sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: larger than %llu bytes, the OBJ size limit", path,
                                  (unsigned long long)SR_OBJ_MAX_BYTES);
            break;
        }
        if (!grow((void **)&text, &capacity, length + 65536 + 1, 1)) {
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory reading the file", path);
            break;
        }
        size_t got = fread(text + length, 1, capacity - length - 1, file);
        length += got;
        if (got == 0) {
            if (ferror(file))
                status = sr_error_set(err, SR_ERROR_IO, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
    fclose(file);
    if (status == SR_OK) {
        text[length] = '\0';
        status = parse_terminated(text, length, path, out, err);
    }
    sr_free(text);
    return status;
}

/* First step of the OBJ/MTL loader: the API of scene.h over the positions-and-faces parser;
 * the rest of sr_obj_desc (materials, groups, uvs, normals, warnings) follows. */
sr_status sr_obj_load(const sr_obj_desc *desc, sr_mesh **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_obj_load: out is NULL");
    *out = NULL;
    if (!desc)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_obj_load: desc is NULL");
    sr_status status = desc->path ? sr_mesh_load_obj(desc->path, out, err)
                                  : sr_mesh_parse_obj(desc->text, desc->length, desc->name, out, err);
    if (status == SR_OK && !desc->skip_normals && !(*out)->normals)
        status = sr_mesh_compute_normals(*out, err);
    if (status != SR_OK) {
        sr_mesh_destroy(*out);
        *out = NULL;
    }
    return status;
}
