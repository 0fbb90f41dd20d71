/* test_obj.c — the OBJ/MTL loader (src/scene/obj.c, obj_text.c, obj_polygon.c, mtl.c) through
 * sr_obj_load and its wrappers. Expected values are computed here independently: element
 * lists kept by the test, strtof for numbers, crossing-number point-in-polygon tests and
 * shoelace areas for triangulations, brute-force area-weighted normals in double. Tests that
 * need files write them into a fresh mkdtemp folder removed afterwards (the obj_files suite's
 * init and fini, here). This file: vertices, polygons, statements and errors; the program test_obj
 * also holds test_obj_materials.c (MTL libraries) and test_obj_input.c (numbers, allocation
 * failures, long warnings, progress); their helpers are in obj_test_helpers.h. */
#include <criterion/criterion.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image_write.h>

#include "obj_test_helpers.h"

/* ---- Temporary folder ---------------------------------------------------------------------- */

char temp_dir[256];

static void make_temp_dir(void)
{
    snprintf(temp_dir, sizeof temp_dir, "/tmp/sr_test_obj_XXXXXX");
    cr_assert_not_null(mkdtemp(temp_dir), "mkdtemp: %s", strerror(errno));
}

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *entry;
        while ((entry = readdir(dir))) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
                continue;
            char child[1024];
            snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
            remove_tree(child);
        }
        closedir(dir);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void remove_temp_dir(void)
{
    if (temp_dir[0])
        remove_tree(temp_dir);
}

/* ---- Vertices, uvs, normals, colours -------------------------------------------------------- */

Test(obj, fan_triangulation_in_file_order)
{
    /* a convex quad and a convex pentagon (a house) */
    sr_mesh *mesh = parse_ok("# quad and pentagon\n"
                             "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0.5 2 0\nv 0 1 0\n"
                             "f 1 2 3 5\n"
                             "f 1 2 3 4 5\n");
    cr_assert_eq(mesh->vertex_count, 5);
    cr_assert_eq(mesh->triangle_count, 2 + 3);
    const uint32_t expected[] = {0, 1, 2, 0, 2, 4, 0, 1, 2, 0, 2, 3, 0, 3, 4};
    for (int i = 0; i < 15; i++)
        cr_assert_eq(mesh->indices[i], expected[i], "index %d", i);
    cr_assert_float_eq(mesh->positions[3].y, 2.0f, 0.0f);
    sr_mesh_destroy(mesh);
}

Test(obj, without_vt_and_vn_the_vertices_are_the_v_lines)
{
    /* vertex 2 is used by no face and still kept, in file order */
    sr_mesh *mesh = parse_ok("v 1 2 3\nv 4 5 6\nv 7 8 9\nv 10 11 12\nf 4 1 2\nf -1 -4 -3\n");
    cr_assert_eq(mesh->vertex_count, 4);
    for (int v = 0; v < 4; v++)
        cr_assert(mesh->positions[v].x == (float)(3 * v + 1) && mesh->positions[v].z == (float)(3 * v + 3));
    const uint32_t expected[] = {3, 0, 1, 3, 0, 1};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(mesh->indices[i], expected[i]);
    cr_assert_null(mesh->normals, "sr_mesh_parse_obj computes no normals");
    cr_assert_null(mesh->uvs);
    cr_assert_null(mesh->colors);
    /* one part without a material, no groups, no materials */
    cr_assert_eq(mesh->part_count, 1);
    cr_assert(mesh->parts[0].first_triangle == 0 && mesh->parts[0].triangle_count == 2 &&
              mesh->parts[0].material == SR_MESH_NO_MATERIAL);
    cr_assert_eq(mesh->group_count, 0);
    cr_assert_eq(mesh->material_count, 0);
    sr_mesh_destroy(mesh);
}

Test(obj, vertex_colours_and_w)
{
    warnings w = {0};
    const char text[] = "v 0 0 0 0.5\n"           /* w ignored */
                        "v 1 0 0 0.25 0.5 0.75\n" /* colour, alpha 1 */
                        "v 0 1 0 1 0 0 0.5\n"     /* colour with alpha */
                        "v 0 0 1\n"               /* no colour: white */
                        "v 1 1 1 9 9\n"           /* 5 numbers: a warning, no colour */
                        "f 1 2 3\nf 1 3 4\nf 2 3 5\n";
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    sr_obj_desc desc = {
        .text = text, .length = strlen(text), .name = "colours.obj", .warning = collect_warning, .user = &w};
    cr_assert_eq(sr_obj_load(&desc, &mesh, &err), SR_OK, "%s", err.message);
    cr_assert_not_null(mesh->colors);
    const sr_vec4 expected[5] = {{1, 1, 1, 1}, {0.25f, 0.5f, 0.75f, 1}, {1, 0, 0, 0.5f}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    for (int v = 0; v < 5; v++)
        cr_assert(memcmp(&mesh->colors[v], &expected[v], sizeof expected[v]) == 0, "colour %d is (%g %g %g %g)", v,
                  (double)mesh->colors[v].x, (double)mesh->colors[v].y, (double)mesh->colors[v].z,
                  (double)mesh->colors[v].w);
    cr_assert_float_eq(mesh->positions[0].x, 0.0f, 0.0f);
    cr_assert_float_eq(mesh->positions[2].y, 1.0f, 0.0f);
    cr_assert_eq(w.count, 1);
    cr_assert(find_warning(&w, "colours.obj:5:", "5 numbers") >= 0, "%s", w.messages[0]);

    /* the built-in shaders' vertices take the mesh's colours over the given one */
    sr_shader_vertex *vertices = NULL;
    const float red[4] = {1, 0, 0, 1};
    cr_assert_eq(sr_mesh_create_shader_vertices(mesh, red, &vertices, &err), SR_OK);
    for (int v = 0; v < 5; v++)
        cr_assert(memcmp(vertices[v].color, &expected[v], sizeof vertices[v].color) == 0, "vertex %d", v);
    sr_free(vertices);
    sr_mesh_destroy(mesh);

    mesh = parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    cr_assert_eq(sr_mesh_create_shader_vertices(mesh, red, &vertices, &err), SR_OK);
    for (int v = 0; v < 3; v++)
        cr_assert(memcmp(vertices[v].color, red, sizeof red) == 0, "without colours the given colour is used");
    sr_free(vertices);
    sr_mesh_destroy(mesh);
}

/* A cube with per-face normals and a uv layout with seams, written with every corner form. */
static const float cube_positions[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                           {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
static const float cube_uvs[6][3] = {{0, 0, 0},    {0.25f, 0, 0}, {0.25f, 0.5f, 0},
                                     {0, 0.5f, 0}, {0.5f, 1, 0},  {0.75f, 0.125f, 0.5f}};
static const float cube_normals[6][3] = {{0, 0, -1}, {0, 0, 1}, {0, -1, 0}, {1, 0, 0}, {0, 1, 0}, {-1, 0, 0}};
/* per face: 4 corners of (v, vt, vn), 1-based, 0 = absent */
static const int cube_faces[6][4][3] = {
    {{1, 1, 1}, {4, 4, 1}, {3, 3, 1}, {2, 2, 1}}, {{5, 1, 2}, {6, 2, 2}, {7, 3, 2}, {8, 4, 2}},
    {{1, 0, 3}, {2, 0, 3}, {6, 0, 3}, {5, 0, 3}}, {{2, 5, 0}, {3, 6, 0}, {7, 5, 0}, {6, 6, 0}},
    {{3, 0, 0}, {4, 0, 0}, {8, 0, 0}, {7, 0, 0}}, {{4, 1, 6}, {1, 2, 6}, {5, 3, 6}, {8, 4, 6}},
};

Test(obj, corners_de_duplicated_per_triple_with_flipped_v)
{
    char text[4096];
    int length = 0;
    for (int v = 0; v < 8; v++)
        length += snprintf(text + length, sizeof text - (size_t)length, "v %g %g %g\n", (double)cube_positions[v][0],
                           (double)cube_positions[v][1], (double)cube_positions[v][2]);
    /* vt u v w, vt u v, vt u */
    for (int t = 0; t < 6; t++)
        length += snprintf(text + length, sizeof text - (size_t)length, t == 5 ? "vt %g %g %g\n" : "vt %g %g\n",
                           (double)cube_uvs[t][0], (double)cube_uvs[t][1], (double)cube_uvs[t][2]);
    for (int n = 0; n < 6; n++)
        length += snprintf(text + length, sizeof text - (size_t)length, "vn %g %g %g\n", (double)cube_normals[n][0],
                           (double)cube_normals[n][1], (double)cube_normals[n][2]);
    for (int f = 0; f < 6; f++) {
        length += snprintf(text + length, sizeof text - (size_t)length, "f");
        for (int k = 0; k < 4; k++) {
            const int *c = cube_faces[f][k];
            if (c[1] && c[2])
                length += snprintf(text + length, sizeof text - (size_t)length, " %d/%d/%d", c[0], c[1], c[2]);
            else if (c[1])
                length += snprintf(text + length, sizeof text - (size_t)length, " %d/%d", c[0], c[1]);
            else if (c[2])
                length += snprintf(text + length, sizeof text - (size_t)length, " %d//%d", c[0], c[2]);
            else
                length += snprintf(text + length, sizeof text - (size_t)length, " %d", c[0]);
        }
        length += snprintf(text + length, sizeof text - (size_t)length, "\n");
    }
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_obj_load(&(sr_obj_desc){.text = text, .length = (size_t)length, .skip_normals = true}, &mesh, &err),
                 SR_OK, "%s", err.message);
    /* distinct triples, counted here */
    int distinct[24][3], distinct_count = 0;
    for (int f = 0; f < 6; f++)
        for (int k = 0; k < 4; k++) {
            bool seen = false;
            for (int d = 0; d < distinct_count && !seen; d++)
                seen = memcmp(distinct[d], cube_faces[f][k], sizeof distinct[d]) == 0;
            if (!seen)
                memcpy(distinct[distinct_count++], cube_faces[f][k], sizeof distinct[0]);
        }
    cr_assert_eq(mesh->vertex_count, (size_t)distinct_count);
    cr_assert_eq(mesh->triangle_count, 12);
    cr_assert_not_null(mesh->uvs);
    cr_assert_not_null(mesh->normals, "the file gives normals");
    /* every corner of the fan (0 1 2), (0 2 3) of every face: its vertex holds its own v, vt, vn */
    uint32_t vertex_of_triple[24];
    for (int d = 0; d < distinct_count; d++)
        vertex_of_triple[d] = UINT32_MAX;
    const int fan[6] = {0, 1, 2, 0, 2, 3};
    for (int f = 0; f < 6; f++)
        for (int i = 0; i < 6; i++) {
            const int *c = cube_faces[f][fan[i]];
            uint32_t vertex = mesh->indices[6 * f + i];
            cr_assert_lt(vertex, mesh->vertex_count);
            const sr_vec3 p = mesh->positions[vertex];
            cr_assert(p.x == cube_positions[c[0] - 1][0] && p.y == cube_positions[c[0] - 1][1] &&
                          p.z == cube_positions[c[0] - 1][2],
                      "face %d corner %d: position", f, fan[i]);
            sr_vec2 uv = mesh->uvs[vertex];
            if (c[1])
                cr_assert(uv.x == cube_uvs[c[1] - 1][0] && uv.y == 1.0f - cube_uvs[c[1] - 1][1],
                          "face %d corner %d: uv (%g %g), expected (u, 1 - v)", f, fan[i], (double)uv.x, (double)uv.y);
            else
                cr_assert(uv.x == 0.0f && uv.y == 0.0f, "a corner without vt has uv (0, 0)");
            sr_vec3 n = mesh->normals[vertex];
            if (c[2])
                cr_assert(n.x == cube_normals[c[2] - 1][0] && n.y == cube_normals[c[2] - 1][1] &&
                              n.z == cube_normals[c[2] - 1][2],
                          "face %d corner %d: normal", f, fan[i]);
            else
                cr_assert(n.x == 0.0f && n.y == 0.0f && n.z == 0.0f, "skip_normals: missing normals stay zero");
            /* one vertex per triple, and different triples never share one */
            for (int d = 0; d < distinct_count; d++) {
                if (memcmp(distinct[d], c, sizeof distinct[d]) == 0) {
                    if (vertex_of_triple[d] == UINT32_MAX)
                        vertex_of_triple[d] = vertex;
                    cr_assert_eq(vertex_of_triple[d], vertex, "triple %d/%d/%d has two vertices", c[0], c[1], c[2]);
                } else {
                    cr_assert_neq(vertex_of_triple[d], vertex, "two triples share vertex %u", vertex);
                }
            }
        }
    sr_mesh_destroy(mesh);
}

Test(obj, negative_indices_count_back_per_element)
{
    sr_mesh *mesh = parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                             "vt 0.1 0.2\nvt 0.3 0.4\nvt 0.5 0.6\n"
                             "vn 1 0 0\nvn 0 1 0\n"
                             "f -3/-3/-2 -2/-2/-1 -1/-1/-2\n"
                             "v 5 5 5\nvt 0.9 0.8\n"
                             "f -4/-1 -3/-2 -1/-4\n");
    cr_assert_eq(mesh->triangle_count, 2);
    const float positions[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {5, 5, 5}};
    const float uvs[4][2] = {{0.1f, 0.2f}, {0.3f, 0.4f}, {0.5f, 0.6f}, {0.9f, 0.8f}};
    const float normals[2][3] = {{1, 0, 0}, {0, 1, 0}};
    /* (v, vt, vn) 0-based of the six corners; -1: absent */
    const int corners[6][3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 0}, {0, 3, -1}, {1, 2, -1}, {3, 0, -1}};
    for (int i = 0; i < 6; i++) {
        uint32_t v = mesh->indices[i];
        cr_assert(mesh->positions[v].x == positions[corners[i][0]][0] &&
                      mesh->positions[v].y == positions[corners[i][0]][1] &&
                      mesh->positions[v].z == positions[corners[i][0]][2],
                  "corner %d position", i);
        cr_assert(mesh->uvs[v].x == uvs[corners[i][1]][0] && mesh->uvs[v].y == 1.0f - uvs[corners[i][1]][1],
                  "corner %d uv", i);
        if (corners[i][2] >= 0)
            cr_assert(mesh->normals[v].x == normals[corners[i][2]][0] &&
                          mesh->normals[v].y == normals[corners[i][2]][1],
                      "corner %d normal", i);
    }
    sr_mesh_destroy(mesh);
}

/* Brute-force area-weighted normal of position `p` over the triangles (given as position
 * triples) in double. */
static void brute_force_normal(const float (*positions)[3], const int (*triangles)[3], int triangle_count, int p,
                               double normal[3])
{
    double sum[3] = {0, 0, 0};
    for (int t = 0; t < triangle_count; t++) {
        const float *a = positions[triangles[t][0]], *b = positions[triangles[t][1]], *c = positions[triangles[t][2]];
        if (triangles[t][0] != p && triangles[t][1] != p && triangles[t][2] != p)
            continue;
        double e1[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
        double e2[3] = {(double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2]};
        sum[0] += e1[1] * e2[2] - e1[2] * e2[1];
        sum[1] += e1[2] * e2[0] - e1[0] * e2[2];
        sum[2] += e1[0] * e2[1] - e1[1] * e2[0];
    }
    double length = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
    for (int k = 0; k < 3; k++)
        normal[k] = sum[k] / length;
}

Test(obj, missing_normals_are_computed_given_ones_kept)
{
    /* a tent of two faces with very different areas, a third face off the ridge */
    const float positions[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, -10}, {2, 3, 1}};
    const int triangles[3][3] = {{0, 1, 2}, {0, 2, 3}, {1, 4, 2}};
    const char plain[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 -10\nv 2 3 1\nf 1 2 3\nf 1 3 4\nf 2 5 3\n";
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_obj_load(&(sr_obj_desc){.text = plain, .length = strlen(plain)}, &mesh, &err), SR_OK, "%s",
                 err.message);
    cr_assert_not_null(mesh->normals, "sr_obj_load computes the normals the file lacks");
    cr_assert_eq(mesh->vertex_count, 5);
    for (int v = 0; v < 5; v++) {
        double expected[3];
        brute_force_normal(positions, triangles, 3, v, expected);
        cr_assert(fabs(mesh->normals[v].x - expected[0]) < 1e-6 && fabs(mesh->normals[v].y - expected[1]) < 1e-6 &&
                      fabs(mesh->normals[v].z - expected[2]) < 1e-6,
                  "vertex %d normal (%g %g %g), expected (%g %g %g)", v, (double)mesh->normals[v].x,
                  (double)mesh->normals[v].y, (double)mesh->normals[v].z, expected[0], expected[1], expected[2]);
    }
    sr_mesh_destroy(mesh);

    /* the same tent, one face with given normals (not unit length: used as given), the others
     * without: their corners get the sum over every triangle at their position, uv seams or not */
    const char mixed[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 -10\nv 2 3 1\nvn 0 0 2\nvt 0.5 0.5\n"
                         "f 1//1 2//1 3//1\nf 1/1 3 4\nf 2 5 3/1\n";
    cr_assert_eq(sr_obj_load(&(sr_obj_desc){.text = mixed, .length = strlen(mixed)}, &mesh, &err), SR_OK, "%s",
                 err.message);
    cr_assert_eq(mesh->triangle_count, 3);
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = mesh->indices[3 * t + k];
            int p = triangles[t][k];
            cr_assert(mesh->positions[v].x == positions[p][0] && mesh->positions[v].z == positions[p][2]);
            if (t == 0) {
                cr_assert(mesh->normals[v].x == 0.0f && mesh->normals[v].y == 0.0f && mesh->normals[v].z == 2.0f,
                          "a given normal is used as given");
            } else {
                double expected[3];
                brute_force_normal(positions, triangles, 3, p, expected);
                cr_assert(fabs(mesh->normals[v].x - expected[0]) < 1e-6 &&
                              fabs(mesh->normals[v].y - expected[1]) < 1e-6 &&
                              fabs(mesh->normals[v].z - expected[2]) < 1e-6,
                          "triangle %d corner %d", t, k);
            }
        }
    /* (1,-,1) (2,-,1) (3,-,1) (1,1,-) (3,-,-) (4,-,-) (2,-,-) (5,-,-) (3,1,-) */
    cr_assert_eq(mesh->vertex_count, 9);
    sr_mesh_destroy(mesh);
}

/* ---- Polygons ------------------------------------------------------------------------------ */

typedef struct point2 {
    double x, y;
} point2;

static double cross2(point2 o, point2 a, point2 b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* Crossing number (even-odd) test: bridge edges of keyhole polygons cancel out. */
static bool inside_polygon(const point2 *polygon, int count, point2 q)
{
    bool inside = false;
    for (int i = 0, j = count - 1; i < count; j = i++) {
        point2 a = polygon[i], b = polygon[j];
        if ((a.y > q.y) != (b.y > q.y) && q.x < (b.x - a.x) * (q.y - a.y) / (b.y - a.y) + a.x)
            inside = !inside;
    }
    return inside;
}

static double distance_to_segment(point2 q, point2 a, point2 b)
{
    double dx = b.x - a.x, dy = b.y - a.y, length2 = dx * dx + dy * dy;
    double t = length2 > 0 ? ((q.x - a.x) * dx + (q.y - a.y) * dy) / length2 : 0.0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    double ex = a.x + t * dx - q.x, ey = a.y + t * dy - q.y;
    return sqrt(ex * ex + ey * ey);
}

/* Loads the polygon (2D points embedded in 3D as origin + x e1 + y e2, corners in the order
 * start, start + 1, ...) followed by one triangle, and checks that its n - 2 triangles tile it:
 * every sample point inside the polygon lies in exactly one triangle, every point outside in
 * none, the areas sum to the polygon's and each triangle is wound as the polygon. */
static void check_tiling(const char *shape, const point2 *points, int count, int start, const float e1[3],
                         const float e2[3])
{
    point2 polygon[64];
    char text[8192];
    int length = 0;
    const float origin[3] = {0.5f, -2.0f, 3.0f};
    for (int i = 0; i < count; i++) {
        polygon[i] = points[(start + i) % count];
        float p[3];
        for (int k = 0; k < 3; k++)
            p[k] = origin[k] + (float)polygon[i].x * e1[k] + (float)polygon[i].y * e2[k];
        length += snprintf(text + length, sizeof text - (size_t)length, "v %.9g %.9g %.9g\n", (double)p[0],
                           (double)p[1], (double)p[2]);
    }
    length += snprintf(text + length, sizeof text - (size_t)length, "f");
    for (int i = 0; i < count; i++)
        length += snprintf(text + length, sizeof text - (size_t)length, " %d", i + 1);
    length += snprintf(text + length, sizeof text - (size_t)length, "\nf 1 2 3\n");
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_parse_obj(text, (size_t)length, "polygon.obj", &mesh, &err), SR_OK, "%s", err.message);
    cr_assert_eq(mesh->triangle_count, (size_t)count - 2 + 1, "%s: %zu triangles", shape, mesh->triangle_count);
    /* the face after the polygon is triangle n - 2, as written */
    cr_assert(mesh->indices[3 * (count - 2)] == 0 && mesh->indices[3 * (count - 2) + 1] == 1 &&
                  mesh->indices[3 * (count - 2) + 2] == 2,
              "%s: the next face moved", shape);

    double polygon_area = 0.0;
    point2 low = polygon[0], high = polygon[0];
    for (int i = 0; i < count; i++) {
        point2 a = polygon[i], b = polygon[(i + 1) % count];
        polygon_area += 0.5 * (a.x * b.y - b.x * a.y);
        low.x = fmin(low.x, a.x), low.y = fmin(low.y, a.y), high.x = fmax(high.x, a.x), high.y = fmax(high.y, a.y);
    }
    double sign = polygon_area > 0 ? 1.0 : -1.0, area_sum = 0.0;
    point2 triangles[64][3];
    for (int t = 0; t < count - 2; t++) {
        for (int k = 0; k < 3; k++) {
            uint32_t v = mesh->indices[3 * t + k];
            cr_assert_lt(v, (uint32_t)count, "%s: triangle %d uses vertex %u", shape, t, v);
            triangles[t][k] = polygon[v];
        }
        double area = 0.5 * cross2(triangles[t][0], triangles[t][1], triangles[t][2]);
        cr_assert_geq(sign * area, -1e-9, "%s (start %d): triangle %d is wound against the polygon", shape, start, t);
        area_sum += fabs(area);
    }
    cr_assert(fabs(area_sum - fabs(polygon_area)) < 1e-6 * fabs(polygon_area),
              "%s (start %d): triangles cover %.9g, the polygon %.9g", shape, start, area_sum, fabs(polygon_area));
    int samples = 0;
    for (int i = 0; i < 61; i++)
        for (int j = 0; j < 59; j++) {
            point2 q = {low.x + (high.x - low.x) * (i + 0.37) / 60.0, low.y + (high.y - low.y) * (j + 0.61) / 58.0};
            bool near_edge = false;
            for (int e = 0; e < count && !near_edge; e++)
                near_edge = distance_to_segment(q, polygon[e], polygon[(e + 1) % count]) < 1e-6;
            for (int t = 0; t < count - 2 && !near_edge; t++)
                for (int k = 0; k < 3 && !near_edge; k++)
                    near_edge = distance_to_segment(q, triangles[t][k], triangles[t][(k + 1) % 3]) < 1e-6;
            if (near_edge)
                continue;
            int covering = 0;
            for (int t = 0; t < count - 2; t++) {
                double a = cross2(triangles[t][0], triangles[t][1], q), b = cross2(triangles[t][1], triangles[t][2], q),
                       c = cross2(triangles[t][2], triangles[t][0], q);
                covering += (a > 0 && b > 0 && c > 0) || (a < 0 && b < 0 && c < 0);
            }
            bool inside = inside_polygon(polygon, count, q);
            cr_assert_eq(covering, inside ? 1 : 0, "%s (start %d): point (%g %g) %s the polygon is in %d triangles",
                         shape, start, q.x, q.y, inside ? "inside" : "outside", covering);
            samples += inside;
        }
    cr_assert_gt(samples, 100, "%s: too few samples inside", shape);
    sr_mesh_destroy(mesh);
}

Test(obj, concave_polygons_are_ear_clipped_into_tiles)
{
    const point2 l_shape[] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
    const point2 comb[] = {{0, 0}, {5, 0}, {5, 3}, {4, 3}, {4, 1}, {3, 1},
                           {3, 3}, {2, 3}, {2, 1}, {1, 1}, {1, 3}, {0, 3}};
    const point2 arrow[] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {1, 0.5}, {0, 1}}; /* collinear corners */
    const point2 spiral[] = {{0, 0},   {4, 0},     {4, 4},      {1, 4},      {1, 2},     {3, 2},     {3, 3},   {2, 3},
                             {2, 2.5}, {2.5, 2.5}, {2.5, 2.25}, {1.5, 2.25}, {1.5, 3.5}, {3.5, 3.5}, {3.5, 1}, {0, 1}};
    /* a square with a square hole, joined by a bridge edge walked both ways (CAD exporters) */
    const point2 keyhole[] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}, {1, 1}, {1, 3}, {3, 3}, {3, 1}, {1, 1}};
    point2 star[10];
    for (int i = 0; i < 10; i++) {
        double angle = 2.0 * M_PI * i / 10.0, radius = i % 2 ? 0.8 : 2.0;
        star[i] = (point2){radius * cos(angle), radius * sin(angle)};
    }
    const struct {
        const char *name;
        const point2 *points;
        int count;
    } shapes[] = {{"L", l_shape, 6},      {"comb", comb, 12}, {"arrow", arrow, 6},
                  {"spiral", spiral, 16}, {"star", star, 10}, {"keyhole", keyhole, 10}};
    /* in the XY plane; a tilted plane; the YZ plane seen from -x (the polygon wound clockwise) */
    const float planes[3][2][3] = {{{1, 0, 0}, {0, 1, 0}}, {{0.6f, 0, 0.8f}, {0, 1, 0}}, {{0, 0, 1}, {0, 1, 0}}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int plane = 0; plane < 3; plane++)
            for (int start = 0; start < shapes[s].count; start++)
                check_tiling(shapes[s].name, shapes[s].points, shapes[s].count, start, planes[plane][0],
                             planes[plane][1]);
}

Test(obj, degenerate_polygons_keep_the_fan)
{
    /* all corners on a line, and all at one point: no plane, the fan (0 k k+1) */
    sr_mesh *mesh = parse_ok("v 0 0 0\nv 1 1 1\nv 2 2 2\nv 3 3 3\nv 4 4 4\nf 1 2 3 4 5\nf 1 1 1 1\n");
    cr_assert_eq(mesh->triangle_count, 3 + 2);
    const uint32_t expected[] = {0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 15; i++)
        cr_assert_eq(mesh->indices[i], expected[i], "index %d", i);
    sr_mesh_destroy(mesh);
}

/* ---- Statements, groups, text forms --------------------------------------------------------- */

Test(obj, groups_keep_names_and_triangle_ranges)
{
    sr_mesh *mesh = parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
                             "f 1 2 3\n"            /* before any group: in none */
                             "o body\n"             /* no faces before the next g: dropped */
                             "g door  \n"           /* name trimmed */
                             "f 1 2 3\nf 1 2 4 3\n" /* a quad: 2 triangles */
                             "s 1\n"
                             "g wheel front left\n" /* several names: the whole rest */
                             "f 2 4 3\n"
                             "g\n" /* a bare g: named "" */
                             "f 1 2 3\n");
    cr_assert_eq(mesh->triangle_count, 6);
    cr_assert_eq(mesh->group_count, 3);
    const char *names[3] = {"door", "wheel front left", ""};
    const uint32_t first[3] = {1, 4, 5}, count[3] = {3, 1, 1};
    for (int g = 0; g < 3; g++) {
        cr_assert_str_eq(mesh->groups[g].name, names[g]);
        cr_assert_eq(mesh->groups[g].first_triangle, first[g], "group %d", g);
        cr_assert_eq(mesh->groups[g].triangle_count, count[g], "group %d", g);
    }
    sr_mesh_destroy(mesh);
}

Test(obj, ignored_statements_are_no_errors)
{
    sr_mesh *mesh = parse_ok("s off\ns 1\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvp 0.5 0.5\n"
                             "l 1 2 3\nl 1/1 2/2\np 1 2\np 99\n"
                             "cstype bspline\ndeg 3\ncurv 0 1 1 2\nparm u 0 1\nend\n"
                             "f 1 2 3\n");
    cr_assert_eq(mesh->triangle_count, 1);
    sr_mesh_destroy(mesh);
}

Test(obj, crlf_bom_continuations_and_no_final_newline)
{
    const char text[] = "\xef\xbb\xbf# exported on Windows\r\n"
                        "v 0 0 0\r\n"
                        "v 1 \\\r\n" /* continued with CRLF */
                        "  0 0\r\n"
                        "v 0 1 0\r\n"
                        "v 0 0 1\r\n"
                        "f 1 2 \\\n" /* continued with LF */
                        "3 4\r\n"
                        "f 1 2 4"; /* no final newline */
    sr_mesh *mesh = parse_ok(text);
    cr_assert_eq(mesh->vertex_count, 4);
    cr_assert_float_eq(mesh->positions[1].x, 1.0f, 0.0f);
    cr_assert_float_eq(mesh->positions[1].y, 0.0f, 0.0f);
    cr_assert_eq(mesh->triangle_count, 3);
    cr_assert_eq(mesh->indices[8], 3);
    sr_mesh_destroy(mesh);
    /* line numbers count the continued lines as the file does */
    parse_fails("v 0 0 0\nv 1 \\\n 0 0\nv 0 1 0\nf 1 2 x\n", "bad.obj:5:");
    parse_fails("\xef\xbb\xbfv 0 0 0\r\nv 1 \\\r\n 0 0\r\nv 0 1 \\\r\n oops\r\n", "bad.obj:5: malformed number 'oops'");
    parse_fails("\xef\xbb\xbfvx 1\r\n", "bad.obj:1: not an OBJ file: unknown statement 'vx'");
}

Test(obj, errors_name_file_line_and_problem)
{
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "bad.obj:4");
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "only 3 vertices");
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", "index 0");
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 -4 2\n", "bad.obj:4");
    parse_fails("v 0 0 0\nv 1 x 0\n", "bad.obj:2: malformed number 'x'");
    parse_fails("v 0 0 0\nv 1 1e999 0\n", "bad.obj:2");
    parse_fails("v 0 nan 0\n", "not finite");
    parse_fails("v 0 0\n", "fewer than 3 coordinates");
    parse_fails("v 0 0 0 1 2 3 4 5\n", "too many numbers");
    parse_fails("v 0 0 0\nv 1 0 0\nf 1 2\n", "fewer than 3 vertices");
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3a\n", "malformed face index");
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf 1 2 3/1/1/1\n", "bad.obj:6: malformed face index");
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999\n", "out of range");
    /* texture and normal indices: range, 0, form */
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n",
                "bad.obj:5: face index '2/2' refers to texture coordinate 2 but only 1 is defined");
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//-2 3//1\n", "refers to normal -2");
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//0 2//1 3//1\n", "bad.obj:5: face index 0");
    parse_fails("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/x 2 3\n", "malformed face index '1/x'");
    parse_fails("vt\n", "bad.obj:1: texture coordinate without numbers");
    parse_fails("vt 0 0 0 0\n", "more than 3 numbers");
    parse_fails("vt 0 x\n", "malformed number 'x'");
    parse_fails("vn 0 1\n", "normal has fewer than 3 numbers");
    parse_fails("vn 0 1 inf\n", "not finite");
    parse_fails("v 0 0 0\n", "no faces");
    parse_fails("", "no faces");
    parse_fails("hello world\n", "bad.obj:1: not an OBJ file: unknown statement 'hello'");
    const char png_like[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_neq(sr_mesh_parse_obj(png_like, sizeof png_like - 1, "image.png", &mesh, &err), SR_OK);
    cr_assert(strstr(err.message, "image.png"), "%s", err.message);
    cr_assert_null(mesh);
}

Test(obj, missing_file_and_null_arguments)
{
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_load_obj("/nonexistent/dir/none.obj", &mesh, &err), SR_ERROR_IO);
    cr_assert(strstr(err.message, "/nonexistent/dir/none.obj"), "%s", err.message);
    cr_assert_eq(sr_mesh_load_obj(NULL, &mesh, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_mesh_load_obj("x.obj", NULL, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_mesh_parse_obj(NULL, 0, "x", &mesh, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_mesh_load_obj("/", &mesh, &err), SR_ERROR_IO, "a folder: %s", err.message);
    /* A device never ends: refused before reading, not read until memory runs out. */
    cr_assert_eq(sr_mesh_load_obj("/dev/zero", &mesh, &err), SR_ERROR_IO, "%s", err.message);
    cr_assert(strstr(err.message, "/dev/zero: not a regular file"), "%s", err.message);
    cr_assert_eq(sr_obj_load(NULL, &mesh, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_obj_load(&(sr_obj_desc){0}, &mesh, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "neither path nor text"), "%s", err.message);
    cr_assert_eq(sr_obj_load(&(sr_obj_desc){.path = "x.obj"}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_null(mesh);
}

TestSuite(obj_files, .init = make_temp_dir, .fini = remove_temp_dir);

Test(obj_files, load_from_file_matches_parse)
{
    const char text[] = "v 0 0 0\nv 2 0 0\nv 0 3 0\nv 0 0 4\nf 1 2 3\nf 1 3 4 2\n";
    write_temp_file("mesh.obj", text);
    char path[1024];
    sr_mesh *loaded = NULL, *parsed = parse_ok(text);
    sr_error err = {0};
    cr_assert_eq(sr_mesh_load_obj(temp_path(path, sizeof path, "mesh.obj"), &loaded, &err), SR_OK, "%s", err.message);
    cr_assert_eq(loaded->triangle_count, 3);
    cr_assert_eq(loaded->vertex_count, 4);
    cr_assert_eq(memcmp(loaded->indices, parsed->indices, 9 * sizeof(uint32_t)), 0);
    cr_assert_eq(memcmp(loaded->positions, parsed->positions, 4 * sizeof(sr_vec3)), 0);
    cr_assert_null(loaded->normals, "sr_mesh_load_obj computes no normals");
    sr_mesh_destroy(loaded);
    sr_mesh_destroy(parsed);
}

#define MESH_DIR SR_SOURCE_DIR "/../shared/meshes"

Test(obj, shared_meshes_load_with_expected_triangle_counts)
{
    /* Skipped, with a message, when the folder of shared meshes is absent (it then reports as
     * skipped, never as passed); a mesh missing from a folder that is there fails. */
    struct stat info;
    if (stat(MESH_DIR, &info) != 0 || !S_ISDIR(info.st_mode))
        cr_skip_test("%s is absent: the checks over real meshes did not run", MESH_DIR);
    const char *names[] = {"bunny.obj", "teapot.obj", "dragon_res3.obj"};
    const size_t triangles[] = {3674, 992, 47794};
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", MESH_DIR, names[i]);
        cr_assert_eq(access(path, R_OK), 0, "%s: %s (the folder of shared meshes is there, this mesh is not)", path,
                     strerror(errno));
        sr_mesh *mesh = NULL;
        sr_error err = {0};
        cr_assert_eq(sr_mesh_load_obj(path, &mesh, &err), SR_OK, "%s", err.message);
        cr_assert_eq(mesh->triangle_count, triangles[i], "%s: %zu triangles", names[i], mesh->triangle_count);
        sr_mesh_destroy(mesh);
    }
}
