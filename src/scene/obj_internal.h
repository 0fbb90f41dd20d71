/* src/scene/obj_internal.h — what the OBJ loader's files share: obj.c (statements, vertices,
 * faces, the mesh), obj_text.c (reading files, numbers, line numbers, names, warnings),
 * obj_polygon.c (triangulating polygons) and mtl.c (materials). Never installed. */
#ifndef SR_OBJ_INTERNAL_H
#define SR_OBJ_INTERNAL_H

#include <softrast/scene.h>

#include <float.h>
#include <stdint.h>
#include <string.h>

/// Larger OBJ and MTL files (an OBJ of about 25 million triangles) are refused rather than read.
#define SR_OBJ_MAX_BYTES ((size_t)1 << 30)

/* ------------------------------------------------------------------------------------------ */
/* Texts                                                                                       */

/// A text being parsed: owned bytes, NUL-terminated at bytes[length], with its line
/// continuations (a `\` before a line end) blanked out in place. Lines are counted in the
/// parsers; `joins` turns a count of logical lines back into the file's own line numbers.
typedef struct sr_obj_text {
    char *bytes;
    size_t length;
    size_t start;      ///< offset of the first statement: 3 after a UTF-8 byte order mark, else 0
    size_t *joins;     ///< offsets of the blanked line ends, ascending
    size_t join_count; ///< number of continuations
} sr_obj_text;

/// Reads the regular file at `path` in one go (SR_ERROR_IO: cannot open or read, not a regular
/// file; SR_ERROR_UNSUPPORTED: over SR_OBJ_MAX_BYTES), then prepares it as below.
sr_status sr_obj_text_read(const char *path, sr_obj_text *text, sr_error *err);
/// Copies `length` bytes of memory, then prepares them: SR_ERROR_PARSE for a NUL byte (binary
/// data), byte order mark skipped, continuations blanked. Messages name `name`.
sr_status sr_obj_text_copy(const char *bytes, size_t length, const char *name, sr_obj_text *text, sr_error *err);
void sr_obj_text_free(sr_obj_text *text);
/// The file's line number of `position`, which lies on the parser's `logical_line`-th line
/// (1-based, counting continued lines once).
size_t sr_obj_text_line(const sr_obj_text *text, size_t logical_line, const char *position);

/* ------------------------------------------------------------------------------------------ */
/* Tokens and numbers                                                                          */

/// Whether `c` separates tokens on a line (newlines and NUL end the line as well).
static inline bool sr_obj_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/// Whether `c` ends a token: a blank, a newline or the NUL after the text.
static inline bool sr_obj_is_token_end(char c)
{
    return sr_obj_is_blank(c) || c == '\n' || c == '\0';
}

static inline const char *sr_obj_skip_blanks(const char *p)
{
    while (sr_obj_is_blank(*p))
        p++;
    return p;
}

/// Whether `p` (after blanks) is at the end of a statement: a newline, the end, or a comment.
static inline bool sr_obj_is_statement_end(char c)
{
    return c == '\n' || c == '\0' || c == '#';
}

static inline size_t sr_obj_token_length(const char *p)
{
    size_t n = 0;
    while (!sr_obj_is_token_end(p[n]))
        n++;
    return n;
}

typedef enum sr_obj_number {
    SR_OBJ_NUMBER_OK = 0,
    SR_OBJ_NUMBER_MALFORMED,  ///< the token is not a whole number in strtof's syntax
    SR_OBJ_NUMBER_NOT_FINITE, ///< it is, but an infinity or NaN (or overflows)
} sr_obj_number;

/// strtof over the token at `p`: what the fast path of sr_obj_parse_float leaves to the C library.
sr_obj_number sr_obj_parse_float_slow(const char *p, const char **end, float *value);

/// Reads the token at `p` (not a blank; up to the next blank, newline or NUL) as a float,
/// rounded exactly as strtof rounds it (to nearest), and sets *end to the end of the token.
/// Decimal numbers whose significant digits fit 19 digits take an exact fast path (Clinger's):
/// a mantissa below 2^24 and a power of ten up to 10^10, both exact in float, need one float
/// multiplication or division, which IEEE 754 rounds correctly; a mantissa below 2^53 with a
/// power up to 10^22 (exact in double) gives the correctly rounded double, whose rounding to
/// float is the correct one unless the double lies exactly halfway between two floats, where the
/// first rounding may have crossed the midpoint. Everything else (more digits, larger exponents,
/// midpoints, hexadecimal, inf, nan) goes to strtof.
static inline sr_obj_number sr_obj_parse_float(const char *p, const char **end, float *value)
{
#if FLT_EVAL_METHOD != 0
    /* float arithmetic carried out in wider types would round twice: strtof only */
    return sr_obj_parse_float_slow(p, end, value);
#else
    static const float powers_float[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    static const double powers_double[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *q = p;
    bool negative = *q == '-';
    if (*q == '-' || *q == '+')
        q++;
    uint64_t mantissa = 0;
    int digits = 0;   /* significant digits in mantissa */
    int exponent = 0; /* value = mantissa * 10^exponent */
    bool any_digit = false;
    while (*q == '0') {
        q++;
        any_digit = true;
    }
    while ((unsigned)(*q - '0') < 10) {
        if (digits >= 19)
            return sr_obj_parse_float_slow(p, end, value);
        mantissa = mantissa * 10 + (uint64_t)(*q - '0');
        digits++;
        any_digit = true;
        q++;
    }
    if (*q == '.') {
        q++;
        if (digits == 0)
            while (*q == '0') {
                q++;
                exponent--;
                any_digit = true;
            }
        while ((unsigned)(*q - '0') < 10) {
            if (digits >= 19)
                return sr_obj_parse_float_slow(p, end, value);
            mantissa = mantissa * 10 + (uint64_t)(*q - '0');
            digits++;
            exponent--;
            any_digit = true;
            q++;
        }
    }
    if (!any_digit)
        return sr_obj_parse_float_slow(p, end, value);
    if (*q == 'e' || *q == 'E') {
        const char *e = q + 1;
        bool exponent_negative = *e == '-';
        if (*e == '-' || *e == '+')
            e++;
        if ((unsigned)(*e - '0') >= 10)
            return sr_obj_parse_float_slow(p, end, value);
        int written = 0;
        while ((unsigned)(*e - '0') < 10) {
            if (written < 100000) /* saturate: anything this large goes to strtof below */
                written = written * 10 + (*e - '0');
            e++;
        }
        exponent += exponent_negative ? -written : written;
        q = e;
    }
    if (!sr_obj_is_token_end(*q))
        return sr_obj_parse_float_slow(p, end, value);
    float result;
    if (mantissa == 0) {
        result = 0.0f;
    } else if (mantissa < ((uint64_t)1 << 24) && exponent >= -10 && exponent <= 10) {
        float m = (float)mantissa;
        result = exponent < 0 ? m / powers_float[-exponent] : m * powers_float[exponent];
    } else if (mantissa < ((uint64_t)1 << 53) && exponent >= -22 && exponent <= 22) {
        double m = (double)mantissa;
        double d = exponent < 0 ? m / powers_double[-exponent] : m * powers_double[exponent];
        /* d lies in [1e-22, 2^53 * 1e22], where floats are normal: a float midpoint has the
         * 29 bits below float precision equal to 1000...0 in binary. */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        if ((bits & (((uint64_t)1 << 29) - 1)) == ((uint64_t)1 << 28))
            return sr_obj_parse_float_slow(p, end, value);
        result = (float)d;
    } else {
        return sr_obj_parse_float_slow(p, end, value);
    }
    *value = negative ? -result : result;
    *end = q;
    return SR_OBJ_NUMBER_OK;
#endif
}

/* ------------------------------------------------------------------------------------------ */
/* Names                                                                                       */

/// Distinct strings numbered in order of insertion, found in constant time (open addressing on
/// an FNV-1a hash). Zero-initialise; free with sr_obj_names_free.
typedef struct sr_obj_names {
    char **names; ///< NUL-terminated copies, owned (an entry may be taken, leaving NULL)
    size_t count, capacity;
    uint32_t *slots; ///< index + 1 of the name in each slot, 0 for an empty slot
    size_t slot_count;
} sr_obj_names;

/// Index of name[0 .. length) or UINT32_MAX when absent.
uint32_t sr_obj_names_find(const sr_obj_names *names, const char *name, size_t length);
/// Index of name[0 .. length), added when absent (*added says which). Errors: out of memory.
sr_status sr_obj_names_intern(sr_obj_names *names, const char *name, size_t length, uint32_t *index, bool *added);
void sr_obj_names_free(sr_obj_names *names);

/* ------------------------------------------------------------------------------------------ */
/* Warnings, paths, memory                                                                     */

/// Formats a warning and passes it to desc->warning (nothing when that is NULL).
void sr_obj_warn(const sr_obj_desc *desc, const char *format, ...) __attribute__((format(printf, 2, 3)));

/// Length of the folder part of `path` including its last '/' (0 when it has none).
size_t sr_obj_folder_length(const char *path);
/// A new string (sr_free): relative[0 .. length) with '\' read as '/', prefixed with
/// folder[0 .. folder_length) unless it is absolute. NULL when out of memory.
char *sr_obj_resolve_path(const char *folder, size_t folder_length, const char *relative, size_t length);
/// A new NUL-terminated copy of text[0 .. length) (sr_free), NULL when out of memory.
char *sr_obj_copy_string(const char *text, size_t length);
/// The length of text[0 .. length) without trailing blanks.
size_t sr_obj_trim_length(const char *text, size_t length);

/// Grows *array (element_size bytes each) to hold at least `needed` elements, doubling.
bool sr_obj_grow(void **array, size_t *capacity, size_t needed, size_t element_size);

/* ------------------------------------------------------------------------------------------ */
/* Polygons (obj_polygon.c)                                                                    */

/// Scratch memory of sr_obj_triangulate, reused from face to face. Zero-initialise; free with
/// sr_obj_polygon_free.
typedef struct sr_obj_polygon {
    double *x, *y;
    uint32_t *previous, *next;
    size_t capacity;
} sr_obj_polygon;

/// Makes room for polygons of `corners` corners. Errors: out of memory (false).
bool sr_obj_polygon_reserve(sr_obj_polygon *polygon, size_t corners);
void sr_obj_polygon_free(sr_obj_polygon *polygon);

/// Triangulates the polygon of `count` >= 3 corners at points[0 .. count) into count - 2
/// triangles of corner numbers (0 .. count - 1), written to triangles[0 .. 3 (count - 2)], each
/// wound as the polygon is. Convex and degenerate polygons give the fan (0 1 2), (0 2 3), ...;
/// concave ones are ear-clipped in the plane of their Newell normal, so that the triangles tile
/// the polygon. Returns whether the polygon was concave. `polygon` must hold `count` corners.
bool sr_obj_triangulate(const sr_vec3 *points, size_t count, sr_obj_polygon *polygon, uint32_t *triangles);

/* ------------------------------------------------------------------------------------------ */
/* Materials (mtl.c)                                                                           */

/// The materials of the .mtl files read so far, in order of definition. Zero-initialise; free
/// with sr_mtl_library_free.
typedef struct sr_mtl_library {
    sr_mesh_material *materials;
    char **texture_origins; ///< per material: "file:line" of its map_Kd (for warnings), or NULL
    size_t count, capacity;
    sr_obj_names names; ///< material names, same numbering as `materials`
} sr_mtl_library;

/// Reads the files of one `mtllib` statement: `files` (length bytes, blanks trimmed) is one file
/// name when a file of that whole name exists, else blank-separated names. Relative names are
/// resolved against folder[0 .. folder_length). A file that cannot be read or a malformed line
/// is a warning naming `origin` ("file.obj:line") or the .mtl file and line. Errors: out of memory.
sr_status sr_mtl_library_read_statement(sr_mtl_library *library, const sr_obj_desc *desc, const char *folder,
                                        size_t folder_length, const char *files, size_t length, const char *origin,
                                        sr_error *err);
/// Loads map_Kd of every material i with used[i] (unless desc->skip_textures). A texture that
/// fails to load is a warning. Errors: out of memory.
sr_status sr_mtl_library_load_textures(sr_mtl_library *library, const sr_obj_desc *desc, const bool *used,
                                       sr_error *err);
void sr_mtl_library_free(sr_mtl_library *library);

/* ---- the parser's state (obj.c reads the text, obj_mesh.c assembles the mesh) ---- */

/// No index: a corner without vt or vn, triangles before any usemtl.
#define SR_OBJ_NONE UINT32_MAX

/* A vertex of the mesh while de-duplicating: the triple it stands for and the next vertex made
 * from the same position (a chain per position, usually one or two long). */
typedef struct sr_obj_vertex {
    uint32_t position, uv, normal;
    uint32_t next;
} sr_obj_vertex;

/* From first_triangle on, triangles use the material named `name` (an index into the usemtl
 * names, or SR_OBJ_NONE). */
typedef struct sr_obj_material_switch {
    uint32_t first_triangle, name;
} sr_obj_material_switch;

/// The state of one OBJ text being read (obj.c), then assembled into a mesh (obj_mesh.c).
typedef struct sr_obj_parser {
    const sr_obj_desc *desc;
    const char *name;     /* in messages */
    size_t folder_length; /* of `name`: the base of relative mtllib paths */
    sr_obj_text text;
    size_t line; /* logical line (continued lines count once) */
    sr_error *err;

    /* the elements in file order */
    sr_vec3 *positions;
    size_t position_count, position_capacity;
    sr_vec4 *colors; /* per position; NULL until a `v` with a colour */
    size_t color_capacity;
    sr_vec2 *uvs;
    size_t uv_count, uv_capacity;
    sr_vec3 *normals;
    size_t normal_count, normal_capacity;

    /* triangles: position indices, or vertex indices once `deduplicate` */
    uint32_t *indices;
    size_t index_count, index_capacity;
    bool deduplicate; /* a corner had a vt or vn */
    bool any_uv, any_normal, any_missing_normal;
    /* per position: the head of its vertex chain; before `deduplicate`, the number of the
     * position in order of first use (vertex_count counting them) */
    uint32_t *first_vertex;
    size_t first_vertex_capacity;
    sr_obj_vertex *vertices;
    size_t vertex_count, vertex_capacity;

    /* the face being read */
    uint32_t *corner_vertices, *corner_positions;
    size_t corner_capacity;
    sr_vec3 *corner_points;
    size_t point_capacity;
    uint32_t *corner_triangles;
    size_t corner_triangle_capacity;
    sr_obj_polygon polygon;

    /* materials */
    sr_obj_names usemtl_names;
    size_t *usemtl_lines; /* line of each name's first usemtl */
    size_t usemtl_line_capacity;
    sr_obj_material_switch *switches;
    size_t switch_count, switch_capacity;
    uint32_t current_name;
    sr_mtl_library library;

    /* groups; the last one is open while `group_open` */
    sr_mesh_group *groups;
    size_t group_count, group_capacity;
    bool group_open;
} sr_obj_parser;

/// Assembles the mesh from what `ps` has read: takes its indices, positions, colours, materials
/// and groups (set to NULL in `ps`), loads the textures of the materials in use. Errors: out of
/// memory, texture loading (sr_mtl_library_load_textures). *out is set only on success.
sr_status sr_obj_build_mesh(sr_obj_parser *ps, sr_mesh **out);

#endif
