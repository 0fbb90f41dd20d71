/* tests/test_obj_materials.c — the OBJ loader's materials: MTL libraries, parts and
 * textures, what is missing, bad MTL lines as warnings, libraries served from memory (part of the
 * program test_obj; helpers: obj_test_helpers.h). */
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

/* ---- Materials ----------------------------------------------------------------------------- */

static void assert_color(sr_vec4 got, float r, float g, float b, float a, const char *what)
{
    cr_assert(got.x == r && got.y == g && got.z == b && got.w == a, "%s: (%g %g %g %g), expected (%g %g %g %g)", what,
              (double)got.x, (double)got.y, (double)got.z, (double)got.w, (double)r, (double)g, (double)b, (double)a);
}

static void assert_parts(const sr_mesh *mesh, const sr_mesh_range *expected, size_t count)
{
    cr_assert_eq(mesh->part_count, count, "%zu parts, expected %zu", mesh->part_count, count);
    for (size_t i = 0; i < count; i++)
        cr_assert(mesh->parts[i].first_triangle == expected[i].first_triangle &&
                      mesh->parts[i].triangle_count == expected[i].triangle_count &&
                      mesh->parts[i].material == expected[i].material,
                  "part %zu is (%u %u %u), expected (%u %u %u)", i, mesh->parts[i].first_triangle,
                  mesh->parts[i].triangle_count, mesh->parts[i].material, expected[i].first_triangle,
                  expected[i].triangle_count, expected[i].material);
}

Test(obj_files, materials_parts_and_textures)
{
    write_temp_file("scene.obj", "# materials in a sub-folder, their texture in another\n"
                                 "mtllib mat/materials.mtl\n"
                                 "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                                 "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                                 "f 1 2 3\n"          /* t0: before any usemtl */
                                 "usemtl red\n"       /* line 12 */
                                 "f 1 2 3\nf 1 3 4\n" /* t1, t2 */
                                 "usemtl red\n"       /* the same material again: one part */
                                 "f 1 2 4\n"          /* t3 */
                                 "usemtl missing\n"   /* line 17: unknown, a warning */
                                 "f 1 2 3\n"          /* t4 */
                                 "usemtl textured\n"
                                 "f 1/1 2/2 3/3 4/4\n" /* t5, t6 */
                                 "usemtl glass\n"
                                 "g panes\n"
                                 "f 1 2 3\n"        /* t7 */
                                 "usemtl tr_only\n" /* no faces: no part */
                                 "usemtl red\n"
                                 "f 2 3 4\n"); /* t8 */
    write_temp_file("mat/materials.mtl",
                    "# made by hand\r\n"
                    "newmtl red\r\nKa 0 0 0\r\nKd 1 0 0\r\nKs 0.5 0.5 0.5\r\nNs 10\r\nillum 2\r\n\r\n"
                    "newmtl glass\nKd 0.5 0.5 1\nTr 0.9\nd 0.25\n\n"
                    "newmtl tr_only\nKd 0.2\nTr 0.3\n\n"
                    "newmtl textured\n"
                    "map_Kd -s 1 1 1 -o 0.5 0.5 -bm 2 -clamp on ..\\tex\\checker board.png\n");
    const uint8_t texels[2 * 2 * 4] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128};
    char png[1024];
    mkdir(temp_path(png, sizeof png, "tex"), 0700);
    cr_assert(stbi_write_png(temp_path(png, sizeof png, "tex/checker board.png"), 2, 2, 4, texels, 8));

    warnings w = {0};
    sr_mesh *mesh = load_temp("scene.obj", &w, false);
    cr_assert_eq(mesh->triangle_count, 9);
    cr_assert_eq(mesh->material_count, 4);
    const char *names[4] = {"red", "glass", "tr_only", "textured"};
    for (int m = 0; m < 4; m++)
        cr_assert_str_eq(mesh->materials[m].name, names[m]);
    assert_color(mesh->materials[0].base_color, 1, 0, 0, 1, "red");
    assert_color(mesh->materials[1].base_color, 0.5f, 0.5f, 1, 0.25f, "glass: d wins over Tr");
    assert_color(mesh->materials[2].base_color, 0.2f, 0.2f, 0.2f, 1.0f - 0.3f, "tr_only: alpha 1 - Tr, Kd grey");
    assert_color(mesh->materials[3].base_color, 0.8f, 0.8f, 0.8f, 1, "textured: default Kd");
    for (int m = 0; m < 3; m++)
        cr_assert(!mesh->materials[m].texture_path && !mesh->materials[m].texture, "material %d has no map_Kd", m);
    char expected_path[1024];
    snprintf(expected_path, sizeof expected_path, "%s/mat/../tex/checker board.png", temp_dir);
    cr_assert_str_eq(mesh->materials[3].texture_path, expected_path);
    const sr_texture *texture = mesh->materials[3].texture;
    cr_assert_not_null(texture, "the texture is loaded");
    cr_assert(texture->width == 2 && texture->height == 2);
    cr_assert_eq(memcmp(texture->texels, texels, sizeof texels), 0, "texels differ from the PNG's");

    const sr_mesh_range parts[] = {
        {0, 1, SR_MESH_NO_MATERIAL}, {1, 3, 0}, {4, 1, SR_MESH_NO_MATERIAL}, {5, 2, 3}, {7, 1, 1}, {8, 1, 0}};
    assert_parts(mesh, parts, sizeof parts / sizeof parts[0]);
    cr_assert_eq(mesh->group_count, 1);
    cr_assert(strcmp(mesh->groups[0].name, "panes") == 0 && mesh->groups[0].first_triangle == 7 &&
              mesh->groups[0].triangle_count == 2);
    cr_assert_eq(w.count, 1, "%d warnings", w.count);
    cr_assert(find_warning(&w, "scene.obj:17:", "'missing'") >= 0, "%s", w.messages[0]);
    sr_mesh_destroy(mesh);

    /* skip_textures: the path without the image, and no warning */
    warnings quiet = {0};
    mesh = load_temp("scene.obj", &quiet, true);
    cr_assert_str_eq(mesh->materials[3].texture_path, expected_path);
    cr_assert_null(mesh->materials[3].texture);
    sr_mesh_destroy(mesh);
}

Test(obj_files, mtllib_forms_and_what_is_missing)
{
    write_temp_file("scene.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                                 "g first\n"
                                 "mtllib a.mtl b.mtl\n"      /* several files on a line */
                                 "mtllib my materials.mtl\n" /* one file with a blank in its name */
                                 "mtllib gone.mtl c.mtl\n"   /* line 7: one missing */
                                 "usemtl A\nf 1 2 3\nusemtl B\nf 1 2 3\nusemtl Spaced\nf 1 2 3\n"
                                 "usemtl C\nf 1 2 3\nusemtl broken_texture\nf 1 2 3\n"
                                 "mtllib late.mtl\n" /* after the usemtl that names its material */
                                 "usemtl Late\nf 1 2 3\n");
    write_temp_file("a.mtl", "newmtl A\nKd 0 0 1\n");
    write_temp_file("b.mtl", "newmtl B\nKd 0 1 0\n\nnewmtl broken_texture\nmap_Kd nothere.png\n");
    write_temp_file("my materials.mtl", "newmtl Spaced\nKd 0.25 0.5 0.75\n");
    write_temp_file("c.mtl", "newmtl C\nd 0.5\n");
    write_temp_file("late.mtl", "newmtl Late\n");
    warnings w = {0};
    sr_mesh *mesh = load_temp("scene.obj", &w, false);
    cr_assert_eq(mesh->material_count, 6);
    const char *names[6] = {"A", "B", "broken_texture", "Spaced", "C", "Late"};
    for (int m = 0; m < 6; m++)
        cr_assert_str_eq(mesh->materials[m].name, names[m], "material %d", m);
    assert_color(mesh->materials[3].base_color, 0.25f, 0.5f, 0.75f, 1, "Spaced");
    assert_color(mesh->materials[4].base_color, 0.8f, 0.8f, 0.8f, 0.5f, "C");
    const sr_mesh_range parts[] = {{0, 1, 0}, {1, 1, 1}, {2, 1, 3}, {3, 1, 4}, {4, 1, 2}, {5, 1, 5}};
    assert_parts(mesh, parts, 6);
    cr_assert_not_null(mesh->materials[2].texture_path);
    cr_assert_null(mesh->materials[2].texture, "a texture that fails to load stays NULL");
    cr_assert_eq(w.count, 2, "%d warnings", w.count);
    cr_assert(find_warning(&w, "scene.obj:7: material library not loaded", "gone.mtl") >= 0);
    cr_assert(find_warning(&w, "b.mtl:5: texture of material 'broken_texture' not loaded", "nothere.png") >= 0);
    cr_assert_eq(mesh->group_count, 1);
    cr_assert_eq(mesh->groups[0].triangle_count, 6);
    sr_mesh_destroy(mesh);

    /* no .mtl at all: every usemtl is a warning, the mesh loads without materials */
    write_temp_file("alone.obj", "mtllib nowhere.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl X\nf 1 2 3\n");
    warnings alone = {0};
    mesh = load_temp("alone.obj", &alone, false);
    cr_assert_eq(mesh->material_count, 0);
    const sr_mesh_range none[] = {{0, 1, SR_MESH_NO_MATERIAL}};
    assert_parts(mesh, none, 1);
    cr_assert_eq(alone.count, 2);
    cr_assert(find_warning(&alone, "alone.obj:1: material library not loaded", "nowhere.mtl") >= 0);
    cr_assert(find_warning(&alone, "alone.obj:5: material 'X'", NULL) >= 0);
    sr_mesh_destroy(mesh);
}

Test(obj_files, bad_mtl_lines_are_warnings_naming_the_mtl_line)
{
    write_temp_file("scene.obj", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n");
    write_temp_file("bad.mtl", "Kd 1 0 0\n"             /* 1: before newmtl */
                               "newmtl m\n"             /* 2 */
                               "Kd 1 x 0\n"             /* 3: not a number */
                               "Kd 1 0\n"               /* 4: two numbers */
                               "Kd spectral file.rfl\n" /* 5: unsupported */
                               "frobnicate 1\n"         /* 6: unknown */
                               "d\n"                    /* 7: no number */
                               "map_Kd -s 1 1\n"        /* 8: options, no file */
                               "Kd 0.5\n"               /* 9: fine */
                               "newmtl m\n"             /* 10: defined again */
                               "Kd 0 0 0\n"             /* skipped with its material */
                               "newmtl\n"               /* 12: no name */
                               "Kd 0 0 0\n"
                               "Kd 1 2 3 4\n"); /* 14: its material is skipped: silent */
    warnings w = {0};
    sr_mesh *mesh = load_temp("scene.obj", &w, false);
    cr_assert_eq(mesh->material_count, 1);
    assert_color(mesh->materials[0].base_color, 0.5f, 0.5f, 0.5f, 1, "m");
    cr_assert_null(mesh->materials[0].texture_path);
    const char *expected[][2] = {{"bad.mtl:1:", "before any newmtl"},   {"bad.mtl:3:", "'x'"},
                                 {"bad.mtl:4:", "1 or 3 numbers"},      {"bad.mtl:5:", "not supported"},
                                 {"bad.mtl:6:", "unknown statement"},   {"bad.mtl:7:", "without a number"},
                                 {"bad.mtl:8:", "without a file name"}, {"bad.mtl:10:", "defined again"},
                                 {"bad.mtl:12:", "without a name"}};
    size_t count = sizeof expected / sizeof expected[0];
    cr_assert_eq(w.count, (int)count, "%d warnings", w.count);
    for (size_t i = 0; i < count; i++)
        cr_assert(find_warning(&w, expected[i][0], expected[i][1]) >= 0, "no warning '%s ... %s'", expected[i][0],
                  expected[i][1]);
    sr_mesh_destroy(mesh);
}

/* read_mtl: a table of in-memory files. */
typedef struct memory_files {
    const char *paths[4];
    const char *texts[4];
    size_t lengths[4];
    int count;
    char asked[8][256];
    int asked_count;
    warnings w;
} memory_files;

static const char *read_memory_file(void *user, const char *path, size_t *length)
{
    memory_files *files = user;
    if (files->asked_count < 8)
        snprintf(files->asked[files->asked_count++], sizeof files->asked[0], "%s", path);
    for (int i = 0; i < files->count; i++)
        if (strcmp(files->paths[i], path) == 0) {
            *length = files->lengths[i];
            return files->texts[i];
        }
    return NULL;
}

static void memory_warning(void *user, const char *message)
{
    collect_warning(&((memory_files *)user)->w, message);
}

Test(obj, read_mtl_serves_material_libraries_from_memory)
{
    static const char library[] = "newmtl shiny\nKd 0.1 0.2 0.3\nmap_Kd skin.png\n";
    static const char binary[] = "newmtl x\0junk";
    memory_files files = {.paths = {"models/lib.mtl", "models/sub/binary.mtl"},
                          .texts = {library, binary},
                          .lengths = {sizeof library - 1, sizeof binary - 1},
                          .count = 2};
    const char text[] = "mtllib lib.mtl\nmtllib sub\\binary.mtl\nmtllib absent.mtl\n"
                        "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl shiny\nf 1 2 3\n";
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    sr_obj_desc desc = {.text = text,
                        .length = strlen(text),
                        .name = "models/x.obj",
                        .warning = memory_warning,
                        .read_mtl = read_memory_file,
                        .user = &files,
                        .skip_textures = true};
    cr_assert_eq(sr_obj_load(&desc, &mesh, &err), SR_OK, "%s", err.message);
    print_warnings(&files.w);
    cr_assert_eq(files.asked_count, 3);
    cr_assert_str_eq(files.asked[0], "models/lib.mtl", "relative to the folder of desc.name");
    cr_assert_str_eq(files.asked[1], "models/sub/binary.mtl", "'\\' read as '/'");
    cr_assert_str_eq(files.asked[2], "models/absent.mtl");
    cr_assert_eq(mesh->material_count, 1);
    assert_color(mesh->materials[0].base_color, 0.1f, 0.2f, 0.3f, 1, "shiny");
    cr_assert_str_eq(mesh->materials[0].texture_path, "models/skin.png");
    cr_assert_eq(files.w.count, 2);
    cr_assert(find_warning(&files.w, "models/x.obj:2:", "binary data") >= 0);
    cr_assert(find_warning(&files.w, "models/x.obj:3:", "absent.mtl") >= 0);
    sr_mesh_destroy(mesh);
}
