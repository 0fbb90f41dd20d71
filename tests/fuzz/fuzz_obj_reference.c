/* tests/fuzz/fuzz_obj_reference.c — the independent reading of an OBJ text for the OBJ fuzz
 * target (fuzz_obj_reference.h): blank-separated tokens, strtof per number, indices resolved by
 * scene.h's rules, groups and material names as the text gives them. */
#include "fuzz_obj_reference.h"
#include "fuzz_targets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct token {
    const char *start;
    size_t length;
} token;

/* Splits [line, end) into blank-separated tokens; stops at a token starting with '#' after the
 * keyword (a comment). Returns the number of tokens stored (<= capacity). */
static size_t split_line(const char *line, const char *end, token *tokens, size_t capacity)
{
    size_t count = 0;
    const char *p = line;
    for (;;) {
        while (p < end && is_blank(*p))
            p++;
        if (p == end || (*p == '#' && count > 0))
            break;
        const char *start = p;
        while (p < end && !is_blank(*p))
            p++;
        if (count < capacity)
            tokens[count] = (token){start, (size_t)(p - start)};
        count++;
    }
    return count < capacity ? count : capacity;
}

/* The rest of the line after the keyword token, blanks trimmed on both sides. */
static name_ref rest_of_line(const token *keyword, const char *end)
{
    const char *p = keyword->start + keyword->length;
    while (p < end && is_blank(*p))
        p++;
    const char *q = end;
    while (q > p && is_blank(q[-1]))
        q--;
    return (name_ref){p, (size_t)(q - p)};
}

static bool token_is(const token *t, const char *word)
{
    return t->length == strlen(word) && memcmp(t->start, word, t->length) == 0;
}

static float read_float(const token *t)
{
    char *buffer = malloc(t->length + 1);
    FUZZ_CHECK(buffer, "out of memory");
    memcpy(buffer, t->start, t->length);
    buffer[t->length] = '\0';
    char *end;
    float value = strtof(buffer, &end);
    FUZZ_CHECK(*end == '\0' && end != buffer && isfinite(value), "accepted the number '%s'", buffer);
    free(buffer);
    return value;
}

/* One index of a corner: [+-]digits at *p, resolved against `count` elements; *p moves on.
 * Returns NONE for an empty component. */
static uint32_t read_index(const char **p, const char *end, size_t count, const token *t)
{
    const char *q = *p;
    if (q == end || *q == '/')
        return NONE;
    bool negative = *q == '-';
    if (*q == '-' || *q == '+')
        q++;
    uint64_t value = 0;
    while (q < end && *q >= '0' && *q <= '9' && value <= UINT32_MAX)
        value = value * 10 + (uint64_t)(*q++ - '0');
    FUZZ_CHECK(value >= 1 && value <= count, "accepted face corner '%.*s' with %zu elements defined", (int)t->length,
               t->start, count);
    *p = q;
    return negative ? (uint32_t)(count - value) : (uint32_t)(value - 1);
}

static corner read_corner(const token *t, const reference *r)
{
    const char *p = t->start, *end = t->start + t->length;
    corner c = {read_index(&p, end, r->position_count, t), NONE, NONE};
    FUZZ_CHECK(c.v != NONE, "accepted a corner without a vertex index");
    if (p < end && *p == '/') {
        p++;
        c.t = read_index(&p, end, r->uv_count, t);
        if (p < end && *p == '/') {
            p++;
            c.n = read_index(&p, end, r->normal_count, t);
        }
    }
    FUZZ_CHECK(p == end, "accepted the malformed corner '%.*s'", (int)t->length, t->start);
    return c;
}

static void close_group(reference *r)
{
    if (!r->group_open)
        return;
    group_ref *g = &r->groups[r->group_count - 1];
    g->count = r->triangle_count - g->first;
    if (g->count == 0)
        r->group_count--;
    r->group_open = false;
}

/* newmtl names of the MTL text, first definitions, in order. */
void fuzz_obj_reference_read_materials(reference *r, const char *mtl, size_t capacity)
{
    for (const char *line = mtl; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        token tokens[1];
        if (split_line(line, end, tokens, 1) == 1 && token_is(&tokens[0], "newmtl")) {
            name_ref name = rest_of_line(&tokens[0], end);
            bool seen = name.length == 0;
            for (size_t m = 0; m < r->material_count && !seen; m++)
                seen = same_name(r->materials[m], name);
            if (!seen) {
                FUZZ_CHECK(r->material_count < capacity, "too many materials");
                r->materials[r->material_count++] = name;
            }
        }
        line = *end ? end + 1 : end;
    }
}

/* Reads the prepared OBJ text (which sr_obj_load accepted) into r. */
void fuzz_obj_reference_read(reference *r, const char *text, size_t length)
{
    size_t capacity = length / 2 + 2;
    memset(r, 0, sizeof *r);
    r->positions = malloc(capacity * sizeof *r->positions);
    r->colors = malloc(capacity * sizeof *r->colors);
    r->uvs = malloc(capacity * sizeof *r->uvs);
    r->normals = malloc(capacity * sizeof *r->normals);
    r->corners = malloc(capacity * sizeof *r->corners);
    r->face_starts = malloc((capacity + 1) * sizeof *r->face_starts);
    r->face_materials = malloc(capacity * sizeof *r->face_materials);
    r->face_has_material = malloc(capacity * sizeof *r->face_has_material);
    r->groups = malloc(capacity * sizeof *r->groups);
    r->materials = malloc(capacity * sizeof *r->materials);
    token *tokens = malloc(capacity * sizeof *tokens);
    FUZZ_CHECK(r->positions && r->colors && r->uvs && r->normals && r->corners && r->face_starts && r->face_materials &&
                   r->face_has_material && r->groups && r->materials && tokens,
               "out of memory in the reference reader");
    name_ref material = {NULL, 0};
    bool has_material = false;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        size_t count = split_line(line, end, tokens, capacity);
        if (count > 0 && token_is(&tokens[0], "v")) {
            FUZZ_CHECK(count >= 4 && count <= 8, "accepted a vertex line with %zu numbers", count - 1);
            float *p = r->positions[r->position_count], *c = r->colors[r->position_count];
            for (int k = 0; k < 3; k++)
                p[k] = read_float(&tokens[1 + k]);
            for (size_t k = 4; k < count; k++)
                (void)read_float(&tokens[k]);
            bool colored = count >= 7;
            c[0] = colored ? read_float(&tokens[4]) : 1.0f;
            c[1] = colored ? read_float(&tokens[5]) : 1.0f;
            c[2] = colored ? read_float(&tokens[6]) : 1.0f;
            c[3] = count == 8 ? read_float(&tokens[7]) : 1.0f;
            r->any_color |= colored;
            r->position_count++;
        } else if (count > 0 && token_is(&tokens[0], "vt")) {
            FUZZ_CHECK(count >= 2 && count <= 4, "accepted a vt line with %zu numbers", count - 1);
            float u = read_float(&tokens[1]), v = count >= 3 ? read_float(&tokens[2]) : 0.0f;
            if (count == 4)
                (void)read_float(&tokens[3]);
            r->uvs[r->uv_count][0] = u;
            r->uvs[r->uv_count][1] = 1.0f - v;
            r->uv_count++;
        } else if (count > 0 && token_is(&tokens[0], "vn")) {
            FUZZ_CHECK(count == 4, "accepted a vn line with %zu numbers", count - 1);
            for (int k = 0; k < 3; k++)
                r->normals[r->normal_count][k] = read_float(&tokens[1 + k]);
            r->normal_count++;
        } else if (count > 0 && token_is(&tokens[0], "f")) {
            FUZZ_CHECK(count >= 4, "accepted a face with %zu corners", count - 1);
            r->face_starts[r->face_count] = r->corner_count;
            for (size_t k = 1; k < count; k++)
                r->corners[r->corner_count++] = read_corner(&tokens[k], r);
            r->face_materials[r->face_count] = material;
            r->face_has_material[r->face_count] = has_material;
            r->face_count++;
            r->triangle_count += count - 3;
        } else if (count > 0 && (token_is(&tokens[0], "o") || token_is(&tokens[0], "g"))) {
            close_group(r);
            r->groups[r->group_count++] = (group_ref){rest_of_line(&tokens[0], end), r->triangle_count, 0};
            r->group_open = true;
        } else if (count > 0 && token_is(&tokens[0], "usemtl")) {
            material = rest_of_line(&tokens[0], end);
            has_material = material.length > 0;
        } else if (count > 0 && token_is(&tokens[0], "mtllib")) {
            r->any_mtllib |= rest_of_line(&tokens[0], end).length > 0;
        }
        line = *end ? end + 1 : end;
    }
    r->face_starts[r->face_count] = r->corner_count;
    close_group(r);
    free(tokens);
}

void fuzz_obj_reference_free(reference *r)
{
    free(r->positions);
    free(r->colors);
    free(r->uvs);
    free(r->normals);
    free(r->corners);
    free(r->face_starts);
    free(r->face_materials);
    free(r->face_has_material);
    free(r->groups);
    free(r->materials);
}
