/* tests/fuzz/fuzz_obj.c — fuzz target of the OBJ parser (src/scene/obj.c) and of what a loaded
 * mesh goes through next (sr_mesh_compute_normals, sr_mesh_normalize in src/scene/mesh.c).
 *
 * The bytes are the OBJ text. A failure must be an error with a message and no mesh; a success
 * is compared with an independent reading of the same text (strtof per coordinate, the face
 * index rules of scene.h, fan triangulation), then normals are checked against area-weighted
 * sums in double and normalised positions must stay finite and inside [-1, 1]. Inputs starting
 * with FUZZ_ALLOCATION_FAILURE_MARK run with failing allocations (only SR_ERROR_OUT_OF_MEMORY may
 * change). Knows nothing of the driver that calls it (libFuzzer or fuzz_run). */
#include "fuzz_targets.h"

#include <softrast/scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* A token of a line: [start, start + length). */
typedef struct token {
    const char *start;
    size_t length;
} token;

/* Splits the line [line, end) into blank-separated tokens; stops (after the keyword) at a token
 * starting with '#', which opens a comment. Returns the number of tokens stored (<= capacity). */
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

/* Position index of a face corner "i", "i/t", "i//n" or "i/t/n" by the rules of scene.h. */
static uint32_t corner_index(const token *corner, size_t vertices_before)
{
    const char *p = corner->start;
    bool negative = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    uint64_t value = 0;
    while (*p >= '0' && *p <= '9' && value <= UINT32_MAX)
        value = value * 10 + (uint64_t)(*p++ - '0');
    FUZZ_CHECK(value >= 1 && value <= vertices_before, "accepted face corner '%.*s' with %zu vertices defined",
               (int)corner->length, corner->start, vertices_before);
    return negative ? (uint32_t)(vertices_before - value) : (uint32_t)(value - 1);
}

/* Re-reads the text that sr_mesh_parse_obj accepted and compares every vertex and triangle.
 * `text` is NUL-terminated (the parser refuses NUL bytes, so there are none inside). */
static void compare_with_reference(const char *text, size_t length, const sr_mesh *mesh)
{
    const char *end_of_text = text + length;
    token *tokens = malloc((length / 2 + 2) * sizeof *tokens);
    uint32_t *face = malloc((length / 2 + 2) * sizeof *face);
    char *scratch = malloc(length + 1);
    FUZZ_CHECK(tokens && face && scratch, "out of memory in the reference reader");
    size_t vertices = 0, triangles = 0;
    for (const char *line = text; line < end_of_text;) {
        const char *line_end = memchr(line, '\n', (size_t)(end_of_text - line));
        if (!line_end)
            line_end = end_of_text;
        size_t count = split_line(line, line_end, tokens, length / 2 + 2);
        if (count > 0 && tokens[0].length == 1 && tokens[0].start[0] == 'v') {
            FUZZ_CHECK(count >= 4, "accepted a vertex line with %zu numbers", count - 1);
            FUZZ_CHECK(vertices < mesh->vertex_count, "more 'v' lines than the %zu vertices loaded",
                       mesh->vertex_count);
            float xyz[3];
            for (int k = 0; k < 3; k++) {
                memcpy(scratch, tokens[1 + k].start, tokens[1 + k].length);
                scratch[tokens[1 + k].length] = '\0';
                xyz[k] = strtof(scratch, NULL);
            }
            sr_vec3 loaded = mesh->positions[vertices];
            FUZZ_CHECK(memcmp(&loaded.x, &xyz[0], sizeof(float)) == 0 &&
                           memcmp(&loaded.y, &xyz[1], sizeof(float)) == 0 &&
                           memcmp(&loaded.z, &xyz[2], sizeof(float)) == 0,
                       "vertex %zu loaded as (%g %g %g), strtof reads (%g %g %g)", vertices, (double)loaded.x,
                       (double)loaded.y, (double)loaded.z, (double)xyz[0], (double)xyz[1], (double)xyz[2]);
            vertices++;
        } else if (count > 0 && tokens[0].length == 1 && tokens[0].start[0] == 'f') {
            size_t corners = count - 1;
            FUZZ_CHECK(corners >= 3, "accepted a face with %zu corners", corners);
            for (size_t k = 0; k < corners; k++)
                face[k] = corner_index(&tokens[1 + k], vertices);
            for (size_t k = 1; k + 1 < corners; k++) {
                FUZZ_CHECK(triangles < mesh->triangle_count, "more triangles in the text than the %zu loaded",
                           mesh->triangle_count);
                const uint32_t *loaded = mesh->indices + 3 * triangles;
                FUZZ_CHECK(loaded[0] == face[0] && loaded[1] == face[k] && loaded[2] == face[k + 1],
                           "triangle %zu loaded as (%u %u %u), the fan of its face gives (%u %u %u)", triangles,
                           loaded[0], loaded[1], loaded[2], face[0], face[k], face[k + 1]);
                triangles++;
            }
        }
        line = line_end + 1;
    }
    FUZZ_CHECK(vertices == mesh->vertex_count, "%zu 'v' lines but %zu vertices loaded", vertices, mesh->vertex_count);
    FUZZ_CHECK(triangles == mesh->triangle_count, "%zu triangles in the text but %zu loaded", triangles,
               mesh->triangle_count);
    free(tokens);
    free(face);
    free(scratch);
}

/* Normals against area-weighted sums recomputed in double (BENCH_SCENE.md's definition). Where
 * the sum is well conditioned (no heavy cancellation, no float overflow or underflow in its
 * length), the normal must be its direction; everywhere it must be finite and not longer than
 * unit length by more than rounding. */
static void check_normals(const sr_mesh *mesh)
{
    FUZZ_CHECK(mesh->normals, "sr_mesh_compute_normals returned SR_OK without normals");
    size_t n = mesh->vertex_count;
    double *sum = calloc(3 * n + 1, sizeof *sum);
    double *magnitude = calloc(n + 1, sizeof *magnitude);
    size_t *degree = calloc(n + 1, sizeof *degree);
    FUZZ_CHECK(sum && magnitude && degree, "out of memory");
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        const uint32_t *tri = mesh->indices + 3 * t;
        sr_vec3 a = mesh->positions[tri[0]], b = mesh->positions[tri[1]], c = mesh->positions[tri[2]];
        /* The library skips faces whose float cross product is not finite; so does the reference. */
        if (!sr_vec3_is_finite(sr_vec3_cross(sr_vec3_sub(b, a), sr_vec3_sub(c, a))))
            continue;
        double e1[3] = {(double)b.x - a.x, (double)b.y - a.y, (double)b.z - a.z};
        double e2[3] = {(double)c.x - a.x, (double)c.y - a.y, (double)c.z - a.z};
        double cross[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        /* |e1| |e2| bounds the float cross product's rounding error (a few ulps of it), from
         * the face's own shape (slivers) and from cancellation between faces alike. */
        double edges =
            sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]) * sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 3; j++)
                sum[3 * tri[k] + (size_t)j] += cross[j];
            magnitude[tri[k]] += edges;
            degree[tri[k]]++;
        }
    }
    for (size_t v = 0; v < n; v++) {
        sr_vec3 normal = mesh->normals[v];
        FUZZ_CHECK(sr_vec3_is_finite(normal), "normal %zu is (%g %g %g)", v, (double)normal.x, (double)normal.y,
                   (double)normal.z);
        double length = sqrt((double)normal.x * normal.x + (double)normal.y * normal.y + (double)normal.z * normal.z);
        FUZZ_CHECK(length <= 1.5, "normal %zu has length %g", v, length);
        const double *s = sum + 3 * v;
        double s_length = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        bool conditioned = s_length >= 1e-2 * magnitude[v] && s_length > 1e-15 && s_length < 1e15;
        if (!conditioned)
            continue;
        double tolerance = 1e-4 * (double)(degree[v] + 1);
        double dx = normal.x - s[0] / s_length, dy = normal.y - s[1] / s_length, dz = normal.z - s[2] / s_length;
        FUZZ_CHECK(sqrt(dx * dx + dy * dy + dz * dz) <= tolerance,
                   "normal %zu is (%.9g %.9g %.9g), the area-weighted sum points along (%.9g %.9g %.9g)", v,
                   (double)normal.x, (double)normal.y, (double)normal.z, s[0] / s_length, s[1] / s_length,
                   s[2] / s_length);
    }
    free(sum);
    free(magnitude);
    free(degree);
}

/* sr_mesh_normalize: the box centre goes to the origin and the largest extent becomes 2, so
 * every coordinate must stay finite and, when the extent is a usable number (not overflowing,
 * not lost in the rounding of the coordinates' magnitude), within [-1, 1] up to rounding. */
static void check_normalized(const sr_mesh *mesh, sr_aabb before)
{
    sr_vec3 extent = sr_vec3_sub(before.max, before.min);
    float largest = fmaxf(extent.x, fmaxf(extent.y, extent.z));
    float magnitude =
        fmaxf(fmaxf(fmaxf(fabsf(before.min.x), fabsf(before.max.x)), fmaxf(fabsf(before.min.y), fabsf(before.max.y))),
              fmaxf(fabsf(before.min.z), fabsf(before.max.z)));
    bool bounded = largest > 0.0f && isfinite(largest) && largest >= 1e-3f * magnitude;
    /* Also near FLT_MAX and for subnormal extents (regressions/obj_normalize_near_flt_max,
     * obj_normalize_subnormal_extent). */
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        sr_vec3 p = mesh->positions[v];
        FUZZ_CHECK(sr_vec3_is_finite(p),
                   "after sr_mesh_normalize vertex %zu is (%g %g %g); bounds were (%g %g %g) .. (%g %g %g)", v,
                   (double)p.x, (double)p.y, (double)p.z, (double)before.min.x, (double)before.min.y,
                   (double)before.min.z, (double)before.max.x, (double)before.max.y, (double)before.max.z);
        if (bounded)
            FUZZ_CHECK(fabsf(p.x) <= 1.001f && fabsf(p.y) <= 1.001f && fabsf(p.z) <= 1.001f,
                       "after sr_mesh_normalize vertex %zu is (%g %g %g), outside [-1, 1]", v, (double)p.x, (double)p.y,
                       (double)p.z);
    }
}

static void check_input(const uint8_t *data, size_t size, bool failing);

int fuzz_obj_test_one_input(const uint8_t *data, size_t size)
{
    fuzz_reader prefix = fuzz_reader_make(data, size);
    bool failing = fuzz_allocation_failures_begin(&prefix);
    data = data ? data + prefix.offset : data;
    size -= prefix.offset;
    check_input(data, size, failing);
    fuzz_allocation_failures_end();
    return 0;
}

static void check_input(const uint8_t *data, size_t size, bool failing)
{
    sr_error err;
    memset(&err, 0x5a, sizeof err); /* garbage: the library must fill it on failure */
    sr_mesh sentinel = {0};
    sr_mesh *mesh = &sentinel; /* must be overwritten (NULL on failure) */
    const char *text = data ? (const char *)data : "";
    sr_status status = sr_mesh_parse_obj(text, size, "fuzz.obj", &mesh, &err);
    if (status != SR_OK) {
        FUZZ_CHECK(mesh == NULL, "failed with %s but *out is not NULL", sr_status_name(status));
        FUZZ_CHECK(status == SR_ERROR_PARSE ||
                       (status == SR_ERROR_OUT_OF_MEMORY && failing && fuzz_allocation_failed()),
                   "unexpected status %s: %s", sr_status_name(status), err.message);
        FUZZ_CHECK(err.status == status, "err.status %d differs from the returned %d", (int)err.status, (int)status);
        FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) && err.message[0] != '\0',
                   "empty or unterminated error message");
        return;
    }
    FUZZ_CHECK(mesh != NULL, "SR_OK without a mesh");
    FUZZ_CHECK(mesh->triangle_count >= 1, "SR_OK with no triangles (scene.h: 'no triangles at all' is an error)");
    FUZZ_CHECK(mesh->positions && mesh->indices, "SR_OK with NULL arrays");
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        FUZZ_CHECK(mesh->indices[i] < mesh->vertex_count, "index %zu is %u but there are %zu vertices", i,
                   mesh->indices[i], mesh->vertex_count);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        FUZZ_CHECK(sr_vec3_is_finite(mesh->positions[v]), "vertex %zu is not finite", v);

    /* The reference reader needs a terminated copy of the text. */
    char *terminated = malloc(size + 1);
    FUZZ_CHECK(terminated, "out of memory");
    if (size)
        memcpy(terminated, data, size);
    terminated[size] = '\0';
    compare_with_reference(terminated, size, mesh);
    free(terminated);

    status = sr_mesh_compute_normals(mesh, &err);
    if (status == SR_ERROR_OUT_OF_MEMORY && failing && fuzz_allocation_failed()) {
        FUZZ_CHECK(mesh->normals == NULL, "failed sr_mesh_compute_normals left normals behind");
        sr_mesh_destroy(mesh);
        return;
    }
    FUZZ_CHECK(status == SR_OK, "sr_mesh_compute_normals failed: %s", err.message);
    check_normals(mesh);

    sr_aabb before = sr_mesh_bounds(mesh);
    sr_mesh_normalize(mesh);
    check_normalized(mesh, before);
    sr_mesh_destroy(mesh);
}

static void add_seeds(fuzz_corpus *corpus)
{
    /* a triangle */
    fuzz_corpus_add_text(corpus, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    /* a cube: quads, comments, v/vt/vn corners, groups and materials */
    fuzz_corpus_add_text(corpus, "# cube\nmtllib cube.mtl\no cube\n"
                                 "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\n"
                                 "v -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
                                 "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n"
                                 "g sides\nusemtl red\ns 1\n"
                                 "f 1/1/1 4/4/1 3/3/1 2/2/1\nf 5/1 6/2 7/3 8/4\nf 1//1 2//1 6//1 5//1\n"
                                 "f 2 3 7 6 # right\nf 3 4 8 7\nf 4 1 5 8\n");
    /* negative (relative) indices, a hexagon fan, CRLF line ends, tabs, w and colour columns */
    fuzz_corpus_add_text(corpus, "v 0 0 0 1\r\nv\t1 0 0\r\nv 2 1 0 0.5 0.5 0.5 1\r\nv 1 2 0\r\nv 0 2 0\r\n"
                                 "v -1 1 0\r\nf -6 -5 -4 -3 -2 -1\r\nf 1 -1 +2\r\n");
    /* number formats strtof accepts: exponents, hex floats, leading '+', no leading digit */
    fuzz_corpus_add_text(corpus, "v 1e3 -2.5E-2 +.5\nv 0x1p3 -0 1.\nv 3.4e38 -3.4e38 1e-45\nf 1 2 3\n"
                                 "l 1 2\np 3\n");
    /* errors: an unknown statement, an index out of range, a malformed number, a short face */
    fuzz_corpus_add_text(corpus, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n");
    fuzz_corpus_add_text(corpus, "v 0 0 nan\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    fuzz_corpus_add_text(corpus, "hello world\n");
    fuzz_corpus_add_text(corpus, "v 0 0 0\nf 1 1\n");
    /* vertices near FLT_MAX: sr_mesh_normalize's centre overflowed (regressions/
     * obj_normalize_near_flt_max) */
    fuzz_corpus_add_text(corpus, "v 3e38 3e38 3e38\nv 3e38 3e38 3e38\nv 3e38 3e38 3e38\nf 1 2 3\n");
    /* the cube again with allocation failures after 0, 1 and 2 allocations */
    for (uint8_t allowed = 0; allowed < 3; allowed++) {
        char text[96];
        int length = snprintf(text, sizeof text, "%c%cv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 4 3\n",
                              FUZZ_ALLOCATION_FAILURE_MARK, allowed);
        fuzz_corpus_add(corpus, text, (size_t)length);
    }
    /* tiny triangles: normals from subnormal cross products */
    fuzz_corpus_add_text(corpus, "v 0 0 0\nv 1e-11 0 0\nv 0 1e-11 0\nf 1 2 3\n");
}

static const char *const obj_tokens[] = {
    /* whole statements */
    "v 0 0 0\n",
    "v 1 2 3\n",
    "v -1 0.5 1e-3\n",
    "v 1e-20 1e-20 1e-20\n",
    "v 3e38 -3e38 0\n",
    "v 1 1 1 1\n",
    "f 1 2 3\n",
    "f -1 -2 -3\n",
    "f 1 2 3 4 5\n",
    "f 1/1/1 2/2/2 3/3/3\n",
    "f 1//1 2//1 3//1\n",
    "vt 0 0\n",
    "vn 0 0 1\n",
    "o name\n",
    "g group\n",
    "s off\n",
    "usemtl red\n",
    "# comment\n",
    "\n",
    /* keywords and words */
    "v",
    "f",
    "vt",
    "vn",
    "o",
    "usemtl",
    "#",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-2",
    "+1",
    "-0",
    "0.5",
    "1e-45",
    "3.4e38",
    "-3.4e38",
    "1e38",
    "1e999",
    "nan",
    "inf",
    "-nan",
    "infinity",
    "0x1p-149",
    "4294967295",
    "4294967296",
    "-2147483648",
    "1/1/1",
    "1//1",
    "1/1",
    /* separators */
    "/",
    "//",
    " ",
    "\t",
    "\r\n",
    ".",
    "e",
};

const fuzz_target fuzz_target_obj = {
    .name = "obj",
    .test_one_input = fuzz_obj_test_one_input,
    .add_seeds = add_seeds,
    .tokens = obj_tokens,
    .token_count = sizeof obj_tokens / sizeof obj_tokens[0],
    .max_size = 2048,
};
