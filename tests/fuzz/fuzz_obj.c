/* tests/fuzz/fuzz_obj.c — fuzz target of the OBJ/MTL loader (src/scene/obj.c, obj_text.c,
 * obj_polygon.c, mtl.c) and of what a loaded mesh goes through next (sr_mesh_normalize in
 * src/scene/mesh.c).
 *
 * The bytes are the OBJ text, optionally followed by MTL_SEPARATOR and an MTL text that
 * read_mtl serves for every mtllib file name (textures are skipped: no file is ever opened). A
 * failure must be an error with a message naming the file and a line of it, and no mesh; every
 * warning names the OBJ or the MTL text and a line of it. A success is compared with an
 * independent reading of the same text (strtof per number, the index and vertex rules of
 * scene.h, the names of o/g/usemtl/newmtl): vertices per (v, vt, vn) triple, positions, uvs,
 * given normals and colours bit for bit; n - 2 triangles per face made of its corners, the fan
 * for strictly convex faces, and for every face the triangles' vector areas summing to the
 * polygon's (what ear clipping and the fan both keep); groups, parts and materials. Computed
 * normals are checked against area-weighted sums in double, a second load with skip_normals
 * must give the same triangles, and normalised positions must stay finite and inside [-1, 1].
 * Inputs starting with FUZZ_ALLOCATION_FAILURE_MARK run with failing allocations (only
 * SR_ERROR_OUT_OF_MEMORY may change). Knows nothing of the driver that calls it (libFuzzer or
 * fuzz_run). The independent reading is fuzz_obj_reference.c. */
#include "fuzz_obj_reference.h"
#include "fuzz_targets.h"

#include <softrast/scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits an input into the OBJ text and the MTL text. */
#define MTL_SEPARATOR "\n--mtl--\n"
#define OBJ_NAME "fuzz/scene.obj"

/* A copy of the text as the loader reads it: a UTF-8 byte order mark and line continuations
 * (a backslash before LF or CRLF) turned into blanks. NUL-terminated; NULL when the text holds a
 * NUL byte (the loader refuses it). */
static char *prepared_copy(const char *text, size_t length)
{
    if (memchr(text, '\0', length))
        return NULL;
    char *copy = malloc(length + 1);
    FUZZ_CHECK(copy, "out of memory");
    if (length)
        memcpy(copy, text, length);
    copy[length] = '\0';
    if (length >= 3 && memcmp(copy, "\xef\xbb\xbf", 3) == 0)
        memset(copy, ' ', 3);
    for (size_t i = 0; i + 1 < length; i++)
        if (copy[i] == '\\' && copy[i + 1] == '\n')
            copy[i] = copy[i + 1] = ' ';
        else if (copy[i] == '\\' && copy[i + 1] == '\r' && i + 2 < length && copy[i + 2] == '\n')
            copy[i] = copy[i + 1] = copy[i + 2] = ' ';
    return copy;
}

static size_t count_lines(const char *text, size_t length)
{
    size_t lines = 1;
    for (size_t i = 0; i < length; i++)
        lines += text[i] == '\n';
    return lines;
}

/* ------------------------------------------------------------------------------------------ */
/* Callbacks: the MTL text and the warnings                                                    */

typedef struct context {
    const char *mtl;
    size_t mtl_length;
    bool has_mtl;
    size_t obj_lines, mtl_lines;
    char last_path[4096]; /* the last path read_mtl was asked for */
    size_t warnings;
} context;

static const char *read_mtl(void *user, const char *path, size_t *length)
{
    context *c = user;
    FUZZ_CHECK(path && path[0], "read_mtl asked for an empty path");
    FUZZ_CHECK(strncmp(path, "fuzz/", 5) == 0 || path[0] == '/',
               "relative mtllib path '%s' not resolved against the folder of " OBJ_NAME, path);
    snprintf(c->last_path, sizeof c->last_path, "%s", path);
    if (!c->has_mtl)
        return NULL;
    *length = c->mtl_length;
    return c->mtl;
}

/* Whether `message` starts with `prefix`, ':', a line number in [1, lines] and ':'. */
static bool names_a_line(const char *message, const char *prefix, size_t lines)
{
    size_t length = strlen(prefix);
    if (strncmp(message, prefix, length) != 0 || message[length] != ':')
        return false;
    char *end;
    unsigned long long line = strtoull(message + length + 1, &end, 10);
    return end != message + length + 1 && *end == ':' && line >= 1 && line <= lines;
}

static void check_warning(void *user, const char *message)
{
    context *c = user;
    FUZZ_CHECK(message && message[0], "empty warning");
    FUZZ_CHECK(names_a_line(message, OBJ_NAME, c->obj_lines) ||
                   (c->last_path[0] && names_a_line(message, c->last_path, c->mtl_lines)),
               "warning '%s' names no line of the OBJ (%zu lines) or of '%s' (%zu lines)", message, c->obj_lines,
               c->last_path, c->mtl_lines);
    c->warnings++;
}

static bool same_bits(const float *a, const float *b, size_t count)
{
    return memcmp(a, b, count * sizeof(float)) == 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Comparisons                                                                                 */

/* The vertex of every corner by scene.h's rule: the `v` index when no corner has vt or vn,
 * else one vertex per distinct triple in order of first use (listed in *triples). */
static uint32_t *expected_vertices(const reference *r, bool *deduplicated, size_t *vertex_count, corner **triples)
{
    uint32_t *vertex = malloc((r->corner_count + 1) * sizeof *vertex);
    *triples = malloc((r->corner_count + 1) * sizeof **triples);
    FUZZ_CHECK(vertex && *triples, "out of memory");
    bool dedup = false;
    for (size_t i = 0; i < r->corner_count; i++)
        dedup |= r->corners[i].t != NONE || r->corners[i].n != NONE;
    *deduplicated = dedup;
    *vertex_count = dedup ? 0 : r->position_count;
    for (size_t i = 0; i < r->corner_count; i++) {
        if (!dedup) {
            vertex[i] = r->corners[i].v;
            continue;
        }
        const corner *c = &r->corners[i];
        size_t found = *vertex_count;
        for (size_t d = 0; d < *vertex_count && found == *vertex_count; d++)
            if ((*triples)[d].v == c->v && (*triples)[d].t == c->t && (*triples)[d].n == c->n)
                found = d;
        if (found == *vertex_count)
            (*triples)[(*vertex_count)++] = *c;
        vertex[i] = (uint32_t)found;
    }
    return vertex;
}

static void sub3(const sr_vec3 a, const sr_vec3 b, double out[3])
{
    out[0] = (double)a.x - b.x;
    out[1] = (double)a.y - b.y;
    out[2] = (double)a.z - b.z;
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double length3(const double a[3])
{
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* Whether the polygon is strictly convex, with a margin, in every projection the loader could
 * pick (the axes whose Newell component is within 10% of the largest). */
static bool strictly_convex(const sr_vec3 *p, size_t n)
{
    double normal[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        double a[3], b[3], c[3];
        sub3(p[i], p[0], a);
        sub3(p[(i + 1) % n], p[0], b);
        cross3(a, b, c);
        for (int k = 0; k < 3; k++)
            normal[k] += c[k];
    }
    double largest = fmax(fabs(normal[0]), fmax(fabs(normal[1]), fabs(normal[2])));
    if (!(largest > 0.0) || !isfinite(largest))
        return false;
    for (int axis = 0; axis < 3; axis++) {
        if (fabs(normal[axis]) < 0.9 * largest)
            continue;
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        double flip = normal[axis] > 0 ? 1.0 : -1.0;
        for (size_t i = 0; i < n; i++) {
            const float *a = &p[(i + n - 1) % n].x, *b = &p[i].x, *c = &p[(i + 1) % n].x;
            double e1[2] = {(double)b[u] - a[u], flip * ((double)b[v] - a[v])};
            double e2[2] = {(double)c[u] - b[u], flip * ((double)c[v] - b[v])};
            double turn = e1[0] * e2[1] - e1[1] * e2[0];
            double scale = sqrt(e1[0] * e1[0] + e1[1] * e1[1]) * sqrt(e2[0] * e2[0] + e2[1] * e2[1]);
            if (!(turn > 1e-6 * scale) || !isfinite(scale))
                return false;
        }
    }
    return true;
}

/* Triangles of face f against its corners: n - 2 of them, each made of the face's corner
 * vertices; exact order for triangles and the fan for strictly convex faces; and their vector
 * areas (relative to the first corner) summing to the polygon's Newell area. */
static void check_face_triangles(const sr_mesh *mesh, const uint32_t *corner_vertices, size_t n, size_t first_triangle,
                                 size_t face)
{
    const uint32_t *triangles = mesh->indices + 3 * first_triangle;
    for (size_t i = 0; i < 3 * (n - 2); i++) {
        bool member = false;
        for (size_t k = 0; k < n && !member; k++)
            member = triangles[i] == corner_vertices[k];
        FUZZ_CHECK(member, "face %zu: triangle %zu uses vertex %u, not one of its corners", face,
                   first_triangle + i / 3, triangles[i]);
    }
    sr_vec3 points[1024];
    bool small = n <= sizeof points / sizeof points[0];
    for (size_t k = 0; k < n && small; k++)
        points[k] = mesh->positions[corner_vertices[k]];
    if (n == 3 || (small && strictly_convex(points, n))) {
        for (size_t k = 1; k + 1 < n; k++) {
            const uint32_t *t = triangles + 3 * (k - 1);
            FUZZ_CHECK(t[0] == corner_vertices[0] && t[1] == corner_vertices[k] && t[2] == corner_vertices[k + 1],
                       "face %zu (%s, %zu corners): triangle %zu is (%u %u %u), the fan gives (%u %u %u)", face,
                       n == 3 ? "a triangle" : "strictly convex", n, first_triangle + k - 1, t[0], t[1], t[2],
                       corner_vertices[0], corner_vertices[k], corner_vertices[k + 1]);
        }
        return;
    }
    const sr_vec3 origin = mesh->positions[corner_vertices[0]];
    double polygon[3] = {0, 0, 0}, tiles[3] = {0, 0, 0}, scale = 0.0;
    for (size_t k = 0; k < n; k++) {
        double a[3], b[3], c[3];
        sub3(mesh->positions[corner_vertices[k]], origin, a);
        sub3(mesh->positions[corner_vertices[(k + 1) % n]], origin, b);
        cross3(a, b, c);
        scale += length3(a) * length3(b);
        for (int j = 0; j < 3; j++)
            polygon[j] += c[j];
    }
    for (size_t t = 0; t < n - 2; t++)
        for (int k = 0; k < 3; k++) {
            double a[3], b[3], c[3];
            sub3(mesh->positions[triangles[3 * t + (size_t)k]], origin, a);
            sub3(mesh->positions[triangles[3 * t + (size_t)(k + 1) % 3]], origin, b);
            cross3(a, b, c);
            scale += length3(a) * length3(b);
            for (int j = 0; j < 3; j++)
                tiles[j] += c[j];
        }
    double difference[3] = {polygon[0] - tiles[0], polygon[1] - tiles[1], polygon[2] - tiles[2]};
    FUZZ_CHECK(length3(difference) <= 1e-9 * scale,
               "face %zu (%zu corners): its triangles' vector area (%g %g %g) differs from the polygon's (%g %g %g)",
               face, n, tiles[0], tiles[1], tiles[2], polygon[0], polygon[1], polygon[2]);
}

/* Vertices, triangles, groups, materials and parts of the mesh against the reference. */
static void compare_with_reference(const sr_mesh *mesh, const reference *r, const context *c, const char *mtl_prepared,
                                   bool skip_normals)
{
    bool dedup;
    size_t vertex_count;
    corner *triples;
    uint32_t *vertex = expected_vertices(r, &dedup, &vertex_count, &triples);
    FUZZ_CHECK(mesh->vertex_count == vertex_count, "%zu vertices loaded, the rules of scene.h give %zu (%s)",
               mesh->vertex_count, vertex_count, dedup ? "one per (v, vt, vn) triple" : "the v lines");
    bool any_uv = false, any_normal = false;
    for (size_t i = 0; i < r->corner_count; i++) {
        any_uv |= r->corners[i].t != NONE;
        any_normal |= r->corners[i].n != NONE;
    }
    FUZZ_CHECK(!mesh->uvs == !any_uv, "uvs %s but %s corner has a vt", mesh->uvs ? "present" : "absent",
               any_uv ? "a" : "no");
    FUZZ_CHECK(!mesh->colors == !r->any_color, "colours %s but %s v line has them", mesh->colors ? "present" : "absent",
               r->any_color ? "a" : "no");
    FUZZ_CHECK(mesh->normals || (skip_normals && !any_normal), "no normals");
    FUZZ_CHECK(!(skip_normals && !any_normal && mesh->normals), "skip_normals without vn, yet normals");
    for (size_t v = 0; v < vertex_count; v++) {
        corner t = dedup ? triples[v] : (corner){(uint32_t)v, NONE, NONE};
        FUZZ_CHECK(same_bits(&mesh->positions[v].x, r->positions[t.v], 3),
                   "vertex %zu is (%g %g %g), its v line %u reads (%g %g %g)", v, (double)mesh->positions[v].x,
                   (double)mesh->positions[v].y, (double)mesh->positions[v].z, t.v + 1, (double)r->positions[t.v][0],
                   (double)r->positions[t.v][1], (double)r->positions[t.v][2]);
        if (mesh->uvs) {
            const float zero[2] = {0.0f, 0.0f};
            FUZZ_CHECK(same_bits(&mesh->uvs[v].x, t.t == NONE ? zero : r->uvs[t.t], 2),
                       "vertex %zu: uv (%g %g), expected (u, 1 - v) of vt %u", v, (double)mesh->uvs[v].x,
                       (double)mesh->uvs[v].y, t.t + 1);
        }
        if (t.n != NONE)
            FUZZ_CHECK(same_bits(&mesh->normals[v].x, r->normals[t.n], 3), "vertex %zu: normal differs from vn %u", v,
                       t.n + 1);
        else if (skip_normals && mesh->normals)
            FUZZ_CHECK(mesh->normals[v].x == 0.0f && mesh->normals[v].y == 0.0f && mesh->normals[v].z == 0.0f,
                       "skip_normals: vertex %zu without vn has a normal", v);
        if (mesh->colors)
            FUZZ_CHECK(same_bits(&mesh->colors[v].x, r->colors[t.v], 4), "vertex %zu: colour differs from v line %u", v,
                       t.v + 1);
    }

    FUZZ_CHECK(mesh->triangle_count == r->triangle_count, "%zu triangles loaded, the faces give %zu",
               mesh->triangle_count, r->triangle_count);
    for (size_t f = 0, t = 0; f < r->face_count; f++) {
        size_t start = r->face_starts[f], n = r->face_starts[f + 1] - start;
        check_face_triangles(mesh, vertex + start, n, t, f);
        t += n - 2;
    }

    FUZZ_CHECK(mesh->group_count == r->group_count, "%zu groups loaded, the o/g lines give %zu", mesh->group_count,
               r->group_count);
    for (size_t g = 0; g < r->group_count; g++) {
        const group_ref *e = &r->groups[g];
        const sr_mesh_group *got = &mesh->groups[g];
        FUZZ_CHECK(strlen(got->name) == e->name.length && memcmp(got->name, e->name.start, e->name.length) == 0 &&
                       got->first_triangle == e->first && got->triangle_count == e->count,
                   "group %zu is '%s' (%u, %u), expected '%.*s' (%zu, %zu)", g, got->name, got->first_triangle,
                   got->triangle_count, (int)e->name.length, e->name.start, e->first, e->count);
    }

    /* materials: every mtllib line serves the same MTL text, so its first definitions */
    reference materials = *r;
    materials.material_count = 0;
    materials.materials = malloc((c->mtl_length / 2 + 2) * sizeof *materials.materials);
    FUZZ_CHECK(materials.materials, "out of memory");
    if (r->any_mtllib && c->has_mtl && mtl_prepared)
        fuzz_obj_reference_read_materials(&materials, mtl_prepared, c->mtl_length / 2 + 2);
    FUZZ_CHECK(mesh->material_count == materials.material_count, "%zu materials loaded, the MTL defines %zu",
               mesh->material_count, materials.material_count);
    for (size_t m = 0; m < materials.material_count; m++) {
        const sr_mesh_material *got = &mesh->materials[m];
        name_ref e = materials.materials[m];
        FUZZ_CHECK(strlen(got->name) == e.length && memcmp(got->name, e.start, e.length) == 0,
                   "material %zu is '%s', expected '%.*s'", m, got->name, (int)e.length, e.start);
        FUZZ_CHECK(sr_vec3_is_finite(sr_vec4_xyz(got->base_color)) && isfinite(got->base_color.w),
                   "material %zu: base colour not finite", m);
        FUZZ_CHECK(got->texture == NULL, "skip_textures, yet material %zu has a texture", m);
    }

    /* parts: maximal runs of the faces' materials */
    size_t part = 0, run_first = 0;
    uint32_t run_material = SR_MESH_NO_MATERIAL;
    bool open = false;
    for (size_t f = 0, t = 0; f <= r->face_count; f++) {
        uint32_t material = SR_MESH_NO_MATERIAL;
        if (f < r->face_count && r->face_has_material[f])
            for (size_t m = 0; m < materials.material_count && material == SR_MESH_NO_MATERIAL; m++)
                if (same_name(materials.materials[m], r->face_materials[f]))
                    material = (uint32_t)m;
        if (open && (f == r->face_count || material != run_material)) {
            FUZZ_CHECK(part < mesh->part_count, "only %zu parts", mesh->part_count);
            const sr_mesh_range *got = &mesh->parts[part];
            FUZZ_CHECK(got->first_triangle == run_first && got->triangle_count == t - run_first &&
                           got->material == run_material,
                       "part %zu is (%u, %u, material %u), expected (%zu, %zu, material %u)", part, got->first_triangle,
                       got->triangle_count, got->material, run_first, t - run_first, run_material);
            part++;
            open = false;
        }
        if (f == r->face_count)
            break;
        if (!open) {
            open = true;
            run_first = t;
            run_material = material;
        }
        t += r->face_starts[f + 1] - r->face_starts[f] - 2;
    }
    FUZZ_CHECK(part == mesh->part_count, "%zu parts loaded, the usemtl runs give %zu", mesh->part_count, part);
    free(materials.materials);
    free(vertex);
    free(triples);
}

/* Computed normals against area-weighted sums in double (the benchmark scene's definition) over the
 * triangles using the vertex's position (`position_of`). Where the sum is well conditioned (no
 * heavy cancellation, no float overflow or underflow in its length), the normal must be its
 * direction; everywhere it must be finite and not longer than unit length by more than
 * rounding. `given[v]` marks vertices with a normal from the file (skipped). */
static void check_normals(const sr_mesh *mesh, const uint32_t *position_of, size_t position_count, const bool *given)
{
    FUZZ_CHECK(mesh->normals, "sr_obj_load returned SR_OK without normals");
    size_t n = position_count;
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
        double cross[3];
        cross3(e1, e2, cross);
        /* |e1| |e2| bounds the float cross product's rounding error (a few ulps of it), from
         * the face's own shape (slivers) and from cancellation between faces alike. */
        double edges = length3(e1) * length3(e2);
        for (int k = 0; k < 3; k++) {
            uint32_t p = position_of[tri[k]];
            for (int j = 0; j < 3; j++)
                sum[3 * p + (size_t)j] += cross[j];
            magnitude[p] += edges;
            degree[p]++;
        }
    }
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        if (given[v])
            continue;
        sr_vec3 normal = mesh->normals[v];
        FUZZ_CHECK(sr_vec3_is_finite(normal), "normal %zu is (%g %g %g)", v, (double)normal.x, (double)normal.y,
                   (double)normal.z);
        double length = sqrt((double)normal.x * normal.x + (double)normal.y * normal.y + (double)normal.z * normal.z);
        FUZZ_CHECK(length <= 1.5, "normal %zu has length %g", v, length);
        uint32_t p = position_of[v];
        const double *s = sum + 3 * p;
        double s_length = length3(s);
        bool conditioned = s_length >= 1e-2 * magnitude[p] && s_length > 1e-15 && s_length < 1e15;
        if (!conditioned)
            continue;
        double tolerance = 1e-4 * (double)(degree[p] + 1);
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

/* A failed load: an error with a message naming the OBJ (and a line of it when it is about the
 * text), and no mesh. */
static void check_failure(sr_status status, const sr_mesh *mesh, const sr_error *err, const context *c, bool failing)
{
    FUZZ_CHECK(mesh == NULL, "failed with %s but *out is not NULL", sr_status_name(status));
    FUZZ_CHECK(status == SR_ERROR_PARSE || (status == SR_ERROR_OUT_OF_MEMORY && failing && fuzz_allocation_failed()),
               "unexpected status %s: %s", sr_status_name(status), err->message);
    FUZZ_CHECK(err->status == status, "err.status %d differs from the returned %d", (int)err->status, (int)status);
    FUZZ_CHECK(memchr(err->message, '\0', sizeof err->message) && err->message[0] != '\0',
               "empty or unterminated error message");
    bool whole_file = strncmp(err->message, OBJ_NAME ": ", strlen(OBJ_NAME) + 2) == 0;
    FUZZ_CHECK(whole_file || names_a_line(err->message, OBJ_NAME, c->obj_lines) ||
                   (status == SR_ERROR_OUT_OF_MEMORY && c->last_path[0] &&
                    strncmp(err->message, c->last_path, strlen(c->last_path)) == 0),
               "error '%s' names neither " OBJ_NAME " nor one of its %zu lines", err->message, c->obj_lines);
}

static void check_input(const uint8_t *data, size_t size, bool failing)
{
    const char *text = data ? (const char *)data : "";
    context c = {0};
    size_t obj_length = size;
    for (size_t i = 0; i + strlen(MTL_SEPARATOR) <= size; i++)
        if (memcmp(text + i, MTL_SEPARATOR, strlen(MTL_SEPARATOR)) == 0) {
            obj_length = i;
            c.has_mtl = true;
            c.mtl = text + i + strlen(MTL_SEPARATOR);
            c.mtl_length = size - i - strlen(MTL_SEPARATOR);
            break;
        }
    c.obj_lines = count_lines(text, obj_length);
    c.mtl_lines = c.has_mtl ? count_lines(c.mtl, c.mtl_length) : 1;

    sr_error err;
    memset(&err, 0x5a, sizeof err); /* garbage: the library must fill it on failure */
    sr_mesh sentinel = {0};
    sr_mesh *mesh = &sentinel; /* must be overwritten (NULL on failure) */
    sr_obj_desc desc = {.text = text,
                        .length = obj_length,
                        .name = OBJ_NAME,
                        .warning = check_warning,
                        .read_mtl = read_mtl,
                        .user = &c,
                        .skip_textures = true};
    sr_status status = sr_obj_load(&desc, &mesh, &err);
    if (status != SR_OK) {
        check_failure(status, mesh, &err, &c, failing);
        return;
    }
    FUZZ_CHECK(mesh != NULL, "SR_OK without a mesh");
    FUZZ_CHECK(mesh->triangle_count >= 1, "SR_OK with no triangles (scene.h: 'no faces at all' is an error)");
    FUZZ_CHECK(mesh->positions && mesh->indices, "SR_OK with NULL arrays");
    for (size_t i = 0; i < 3 * mesh->triangle_count; i++)
        FUZZ_CHECK(mesh->indices[i] < mesh->vertex_count, "index %zu is %u but there are %zu vertices", i,
                   mesh->indices[i], mesh->vertex_count);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        FUZZ_CHECK(sr_vec3_is_finite(mesh->positions[v]), "vertex %zu is not finite", v);

    char *prepared = prepared_copy(text, obj_length);
    FUZZ_CHECK(prepared, "accepted an OBJ text with a NUL byte");
    char *mtl_prepared = c.has_mtl ? prepared_copy(c.mtl, c.mtl_length) : NULL;
    reference r;
    fuzz_obj_reference_read(&r, prepared, obj_length);
    compare_with_reference(mesh, &r, &c, mtl_prepared, false);

    /* computed normals where the file gives none */
    bool dedup;
    size_t vertex_count;
    corner *triples;
    uint32_t *vertex = expected_vertices(&r, &dedup, &vertex_count, &triples);
    uint32_t *position_of = malloc((vertex_count + 1) * sizeof *position_of);
    bool *given = calloc(vertex_count + 1, sizeof *given);
    FUZZ_CHECK(position_of && given, "out of memory");
    for (size_t v = 0; v < vertex_count; v++) {
        position_of[v] = dedup ? triples[v].v : (uint32_t)v;
        given[v] = dedup && triples[v].n != NONE;
    }
    check_normals(mesh, position_of, r.position_count, given);
    free(vertex);
    free(triples);
    free(position_of);
    free(given);

    /* skip_normals changes nothing but the normals */
    sr_mesh *plain = NULL;
    desc.skip_normals = true;
    c.last_path[0] = '\0';
    status = sr_obj_load(&desc, &plain, &err);
    if (status == SR_OK) {
        FUZZ_CHECK(plain->vertex_count == mesh->vertex_count && plain->triangle_count == mesh->triangle_count &&
                       memcmp(plain->indices, mesh->indices, 3 * mesh->triangle_count * sizeof *mesh->indices) == 0 &&
                       memcmp(plain->positions, mesh->positions, mesh->vertex_count * sizeof *mesh->positions) == 0,
                   "skip_normals changed the vertices or triangles");
        compare_with_reference(plain, &r, &c, mtl_prepared, true);
        sr_mesh_destroy(plain);
    } else {
        FUZZ_CHECK(status == SR_ERROR_OUT_OF_MEMORY && failing, "the second load failed: %s", err.message);
        FUZZ_CHECK(plain == NULL, "failed, yet a mesh");
    }
    fuzz_obj_reference_free(&r);
    free(prepared);
    free(mtl_prepared);

    sr_aabb before = sr_mesh_bounds(mesh);
    sr_mesh_normalize(mesh);
    check_normalized(mesh, before);
    sr_mesh_destroy(mesh);
}

static void add_seeds(fuzz_corpus *corpus)
{
    /* a triangle */
    fuzz_corpus_add_text(corpus, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    /* a cube: quads, comments, v/vt/vn corners in every form, groups, materials and their MTL */
    fuzz_corpus_add_text(corpus, "# cube\nmtllib cube.mtl\no cube\n"
                                 "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\n"
                                 "v -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
                                 "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\nvn 0 0 -1\n"
                                 "g sides\nusemtl red\ns 1\n"
                                 "f 1/1/1 4/4/1 3/3/1 2/2/1\nf 5/1 6/2 7/3 8/4\nf 1//1 2//1 6//1 5//1\n"
                                 "usemtl blue\ng top bottom\n"
                                 "f 2 3 7 6 # right\nf 3/-1/-2 4/-2/-1 8 7\nusemtl nothing\nf 4 1 5 8\n" MTL_SEPARATOR
                                 "newmtl red\nKd 1 0 0\nd 0.5\n\nnewmtl blue\nKd 0 0 1\nTr 0.25\n"
                                 "map_Kd -s 1 1 1 -clamp on tex\\blue.png\nnewmtl red\n");
    /* vertex colours, w, a uv-only mesh with vt u v w */
    fuzz_corpus_add_text(corpus, "v 0 0 0 1\nv 1 0 0 0.5 0.25 1\nv 0 1 0 1 1 1 0.5\nv 1 1 0\n"
                                 "vt 0 0 0\nvt 1\nvt 0.5 1\nf 1/1 2/2 3/3\nf 2/2 4/3 3/1\n");
    /* concave polygons: an L, a comb, a keyhole (a square with a hole and a bridge edge) */
    fuzz_corpus_add_text(corpus, "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nf 3 4 5 6 1 2\n"
                                 "v 0 0 1\nv 5 0 1\nv 5 3 1\nv 4 3 1\nv 4 1 1\nv 3 1 1\nv 3 3 1\nv 2 3 1\nv 2 1 1\n"
                                 "v 1 1 1\nv 1 3 1\nv 0 3 1\nf 7 8 9 10 11 12 13 14 15 16 17 18\n"
                                 "v 0 0 2\nv 4 0 2\nv 4 4 2\nv 0 4 2\nv 1 1 2\nv 1 3 2\nv 3 3 2\nv 3 1 2\n"
                                 "f 19 20 21 22 19 23 24 25 26 23\n");
    /* a concave quad in a tilted plane, wound clockwise, and a degenerate (collinear) one */
    fuzz_corpus_add_text(corpus, "v 0 0 0\nv 0.6 2 0.8\nv 0.3 0.5 0.4\nv -0.6 2 -0.8\nf 1 4 3 2\n"
                                 "v 1 1 1\nv 2 2 2\nv 3 3 3\nf 5 6 7 5\n");
    /* negative (relative) indices, a hexagon fan, CRLF line ends, tabs, a byte order mark */
    fuzz_corpus_add_text(corpus, "\xef\xbb\xbfv 0 0 0 1\r\nv\t1 0 0\r\nv 2 1 0 0.5 0.5 0.5 1\r\nv 1 2 0\r\n"
                                 "v 0 2 0\r\nv -1 1 0\r\nf -6 -5 -4 -3 -2 -1\r\nf 1 -1 +2\r\n");
    /* line continuations, no final newline, mtllib with several names, mtllib after g */
    fuzz_corpus_add_text(corpus, "g a\nmtllib a.mtl b c.mtl\nv 0 0 \\\n0\nv 1 0 0\\\r\nv 0 1 0\nusemtl m\n"
                                 "f 1 \\\n 2 3" MTL_SEPARATOR "newmtl m\r\nKd 0.5\r\nbad line\r\nd\nKd 1 x 2\n");
    /* number formats strtof accepts: exponents, hex floats, leading '+', no leading digit */
    fuzz_corpus_add_text(corpus, "v 1e3 -2.5E-2 +.5\nv 0x1p3 -0 1.\nv 3.4e38 -3.4e38 1e-45\nf 1 2 3\n"
                                 "l 1 2\np 3\n");
    /* numbers whose nearest double is a float midpoint (strtof decides) */
    fuzz_corpus_add_text(corpus, "v 8018204607651569e-20 16777217 8388609.5\nv 0.1 1e22 1e-22\n"
                                 "v 9007199254740993 0.3333333333333333 1e23\nf 1 2 3\n");
    /* errors: an unknown statement, an index out of range, a malformed number, a short face */
    fuzz_corpus_add_text(corpus, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n");
    fuzz_corpus_add_text(corpus, "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/2 2/1 3/1\n");
    fuzz_corpus_add_text(corpus, "v 0 0 nan\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    fuzz_corpus_add_text(corpus, "hello world\n");
    fuzz_corpus_add_text(corpus, "v 0 0 0\nf 1 1\n");
    /* vertices near FLT_MAX: sr_mesh_normalize's centre overflowed (regressions/
     * obj_normalize_near_flt_max) */
    fuzz_corpus_add_text(corpus, "v 3e38 3e38 3e38\nv 3e38 3e38 3e38\nv 3e38 3e38 3e38\nf 1 2 3\n");
    /* the cube with its MTL, and a quad, with allocation failures after 0, 1, 2, ... allocations */
    fuzz_corpus_add_failing(corpus, 1, 24);
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
    "v 1 0 0 0.5 0.5 0.5\n",
    "v 0 1 0 1 0 0 0.5\n",
    "f 1 2 3\n",
    "f -1 -2 -3\n",
    "f 1 2 3 4 5\n",
    "f 1 3 2 4 6 5\n",
    "f 1/1/1 2/2/2 3/3/3\n",
    "f 1//1 2//1 3//1\n",
    "f 1/1 2/2 3/3 4/4\n",
    "vt 0 0\n",
    "vt 0.5\n",
    "vt 1 1 0\n",
    "vn 0 0 1\n",
    "o name\n",
    "g group\n",
    "g\n",
    "s off\n",
    "usemtl red\n",
    "usemtl m\n",
    "mtllib a.mtl\n",
    "mtllib my file.mtl\n",
    "newmtl red\n",
    "newmtl m\n",
    "Kd 1 0 0\n",
    "Kd 0.5\n",
    "d 0.5\n",
    "Tr 0.25\n",
    "map_Kd -s 1 1 1 -o 0.5 -bm 2 -clamp on tex\\a b.png\n",
    "# comment\n",
    "\n",
    MTL_SEPARATOR,
    /* keywords and words */
    "v",
    "f",
    "vt",
    "vn",
    "o",
    "usemtl",
    "mtllib",
    "newmtl",
    "map_Kd",
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
    "16777217",
    "8018204607651569e-20",
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
    "1/",
    /* separators */
    "/",
    "//",
    " ",
    "\t",
    "\r\n",
    "\\\n",
    "\\\r\n",
    "\xef\xbb\xbf",
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
