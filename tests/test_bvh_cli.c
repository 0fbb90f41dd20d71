/* tests/test_bvh_cli.c — the `softrast raycast` and `softrast bench bvh` commands
 * ($SOFTRAST_EXE) against brute force and their error handling (part of the program test_bvh;
 * helpers: bvh_test_helpers.h). */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <softrast/bvh.h>
#include <softrast/raster.h>
#include <softrast/scene.h>

#define MESH_DIR SR_SOURCE_DIR "/../shared/meshes"

#include "test_rng.h" /* rng, rng_range, rng_in_box, rng_direction */

/* draw_order_note: see test_rng.h. Where a call used to take two draws, they are now drawn in
 * gcc's order, so that the data the tests were tuned on stays the same. */

#include "bvh_test_helpers.h"

/* ================================================================================================ */
/* The raycast and bench bvh commands                                                               */

typedef struct command_result {
    int status;
    char out[4096];
    char err[4096];
} command_result;

static void read_small_file(const char *path, char *buffer, size_t size)
{
    buffer[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buffer, 1, size - 1, f);
    buffer[n] = '\0';
    fclose(f);
}

/* Runs the softrast program with `arguments` (already shell-quoted where needed) in `folder`. */
static command_result run_softrast(const char *folder, const char *arguments)
{
    const char *exe = getenv("SOFTRAST_EXE");
    cr_assert_not_null(exe, "SOFTRAST_EXE is not set (run through meson test)");
    char command[4096], out_path[600], err_path[600];
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", folder);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", folder);
    snprintf(command, sizeof command, "cd '%s' && '%s' %s > '%s' 2> '%s'", folder, exe, arguments, out_path, err_path);
    command_result result;
    int raw = system(command);
    result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    read_small_file(out_path, result.out, sizeof result.out);
    read_small_file(err_path, result.err, sizeof result.err);
    return result;
}

static void make_folder(char *folder, size_t size)
{
    snprintf(folder, size, "/tmp/test_bvh_XXXXXX");
    cr_assert_not_null(mkdtemp(folder), "mkdtemp: %s", strerror(errno));
}

static void remove_folder(const char *folder)
{
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    cr_assert_eq(system(command), 0);
}

/* Writes a mesh as OBJ (with one quad and one pentagon, which the loader fan-triangulates). */
static void write_obj(const char *path, const sr_mesh *mesh)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        fprintf(f, "v %.9g %.9g %.9g\n", (double)mesh->positions[v].x, (double)mesh->positions[v].y,
                (double)mesh->positions[v].z);
    for (size_t t = 0; t < mesh->triangle_count; t++)
        fprintf(f, "f %u %u %u\n", mesh->indices[3 * t] + 1, mesh->indices[3 * t + 1] + 1,
                mesh->indices[3 * t + 2] + 1);
    fprintf(f, "f 1 2 3 4\nf 4 5 6 7 8\n");
    fclose(f);
}

static void put_f32(FILE *f, float value)
{
    unsigned char bytes[4];
    uint32_t bits;
    memcpy(&bits, &value, 4);
    for (int i = 0; i < 4; i++)
        bytes[i] = (unsigned char)(bits >> (8 * i));
    fwrite(bytes, 1, 4, f);
}

static uint32_t get_u32(const unsigned char *bytes)
{
    return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

static float get_f32(const unsigned char *bytes)
{
    uint32_t bits = get_u32(bytes);
    float value;
    memcpy(&value, &bits, 4);
    return value;
}

static unsigned char *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc(length > 0 ? (size_t)length : 1);
    *size = fread(data, 1, (size_t)length, f);
    fclose(f);
    return data;
}

static bool file_exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0;
}

Test(bvh_cli, raycast_matches_brute_force, .timeout = 120)
{
    char folder[64], path[256];
    make_folder(folder, sizeof folder);
    sr_mesh *source = random_triangles(3000, 61);
    snprintf(path, sizeof path, "%s/mesh.obj", folder);
    write_obj(path, source);
    sr_mesh_destroy(source);
    sr_mesh *mesh = NULL; /* as the program reads it (the same float parsing) */
    cr_assert_eq(sr_mesh_load_obj(path, &mesh, NULL), SR_OK);
    cr_assert_eq(mesh->triangle_count, 3000 + 2 + 3);

    enum { RAYS = 2000 };
    sr_ray rays[RAYS];
    rng r = {62};
    snprintf(path, sizeof path, "%s/rays.bin", folder);
    FILE *f = fopen(path, "wb");
    for (int i = 0; i < RAYS; i++) {
        sr_ray ray = random_ray(&r, mesh, sr_mesh_bounds(mesh));
        if (i % 97 == 0)
            ray.origin.x = NAN;
        float values[8] = {ray.origin.x,    ray.origin.y,    ray.origin.z, ray.direction.x,
                           ray.direction.y, ray.direction.z, ray.tmin,     ray.tmax};
        for (int k = 0; k < 8; k++)
            put_f32(f, values[k]);
        rays[i] = sr_ray_make(ray.origin, ray.direction, ray.tmin, ray.tmax);
    }
    fclose(f);

    command_result result = run_softrast(folder, "raycast mesh.obj --rays rays.bin --out hits.bin");
    cr_assert_eq(result.status, 0, "%s", result.err);
    cr_assert(strstr(result.out, "2000 rays"), "%s", result.out);
    size_t size = 0;
    snprintf(path, sizeof path, "%s/hits.bin", folder);
    unsigned char *hits = read_whole(path, &size);
    cr_assert_eq(size, (size_t)RAYS * 16);
    int hit_count = 0;
    for (int i = 0; i < RAYS; i++) {
        const unsigned char *record = hits + 16 * i;
        float t = get_f32(record);
        uint32_t triangle = get_u32(record + 4);
        brute_hit expected = brute_closest(mesh, &rays[i]);
        cr_assert_eq(triangle != SR_BVH_NO_HIT, expected.hit, "ray %d", i);
        if (!expected.hit) {
            cr_assert(isinf(t) && t > 0);
            continue;
        }
        hit_count++;
        cr_assert_eq(t, expected.t, "ray %d: t %.9g, brute force %.9g", i, (double)t, (double)expected.t);
        sr_triangle_hit own;
        cr_assert(sr_ray_triangle(&rays[i], mesh_vertex(mesh, triangle, 0), mesh_vertex(mesh, triangle, 1),
                                  mesh_vertex(mesh, triangle, 2), &own));
        cr_assert(own.t == t && own.u == get_f32(record + 8) && own.v == get_f32(record + 12), "ray %d", i);
    }
    cr_assert_gt(hit_count, RAYS / 5);
    char expected_line[64];
    snprintf(expected_line, sizeof expected_line, "%d hits", hit_count);
    cr_assert(strstr(result.out, expected_line), "%s", result.out);

    /* --threads: the same bytes */
    result = run_softrast(folder, "raycast mesh.obj --rays rays.bin --out hits3.bin --threads 3");
    cr_assert_eq(result.status, 0, "%s", result.err);
    size_t size3 = 0;
    snprintf(path, sizeof path, "%s/hits3.bin", folder);
    unsigned char *hits3 = read_whole(path, &size3);
    cr_assert(size3 == size && memcmp(hits, hits3, size) == 0);

    /* --any-hit: same hit/miss, and a triangle really hit in range */
    result = run_softrast(folder, "raycast mesh.obj --rays rays.bin --out any.bin --any-hit --threads 2");
    cr_assert_eq(result.status, 0, "%s", result.err);
    snprintf(path, sizeof path, "%s/any.bin", folder);
    unsigned char *any = read_whole(path, &size3);
    cr_assert_eq(size3, size);
    for (int i = 0; i < RAYS; i++) {
        uint32_t triangle = get_u32(any + 16 * i + 4);
        cr_assert_eq(triangle != SR_BVH_NO_HIT, get_u32(hits + 16 * i + 4) != SR_BVH_NO_HIT);
        if (triangle != SR_BVH_NO_HIT) {
            sr_triangle_hit own;
            cr_assert(sr_ray_triangle(&rays[i], mesh_vertex(mesh, triangle, 0), mesh_vertex(mesh, triangle, 1),
                                      mesh_vertex(mesh, triangle, 2), &own));
            cr_assert_eq(own.t, get_f32(any + 16 * i));
        }
    }
    free(any);
    free(hits);
    free(hits3);
    sr_mesh_destroy(mesh);
    remove_folder(folder);
}

Test(bvh_cli, raycast_primary_rays)
{
    char folder[64], path[256];
    make_folder(folder, sizeof folder);
    sr_mesh *sphere = NULL;
    cr_assert_eq(sr_mesh_create_sphere(5.0f, 32, 16, &sphere, NULL), SR_OK); /* normalised by the command */
    snprintf(path, sizeof path, "%s/sphere.obj", folder);
    write_obj(path, sphere);
    sr_mesh_destroy(sphere);
    command_result result = run_softrast(folder, "raycast sphere.obj --primary 64x36 --out hits.bin");
    cr_assert_eq(result.status, 0, "%s", result.err);
    size_t size = 0;
    snprintf(path, sizeof path, "%s/hits.bin", folder);
    unsigned char *hits = read_whole(path, &size);
    cr_assert_eq(size, 64 * 36 * 16);
    /* the unit sphere seen from (0, 0, 3): the centre pixel hits at distance ~2, corners miss */
    const unsigned char *centre = hits + 16 * (18 * 64 + 32);
    cr_assert_neq(get_u32(centre + 4), SR_BVH_NO_HIT);
    cr_assert_float_eq(get_f32(centre), 2.0f, 0.01f);
    cr_assert_eq(get_u32(hits + 4), SR_BVH_NO_HIT);
    cr_assert(isinf(get_f32(hits)));
    free(hits);
    remove_folder(folder);
}

Test(bvh_cli, raycast_rejects_bad_arguments_and_leaves_no_file)
{
    char folder[64], path[256];
    make_folder(folder, sizeof folder);
    sr_mesh *mesh = random_triangles(10, 63);
    snprintf(path, sizeof path, "%s/mesh.obj", folder);
    write_obj(path, mesh);
    sr_mesh_destroy(mesh);
    snprintf(path, sizeof path, "%s/rays33.bin", folder);
    FILE *f = fopen(path, "wb");
    for (int i = 0; i < 33; i++)
        fputc(0, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/rays32.bin", folder);
    f = fopen(path, "wb");
    for (int i = 0; i < 8; i++)
        put_f32(f, i == 5 ? 1.0f : (i == 7 ? INFINITY : 0.0f));
    fclose(f);
    struct {
        const char *arguments;
        const char *message; /* a part of the message */
    } cases[] = {
        {"raycast missing.obj --rays rays32.bin --out hits.bin", "missing.obj"},
        {"raycast mesh.obj --rays missing.bin --out hits.bin", "missing.bin"},
        {"raycast mesh.obj --rays rays33.bin --out hits.bin", "33"},
        {"raycast mesh.obj --rays rays33.bin --out hits.bin", "rays33.bin"},
        {"raycast mesh.obj --rays rays32.bin --out hits.bin --threads 0", "--threads"},
        {"raycast mesh.obj --rays rays32.bin --out hits.bin --threads many", "--threads"},
        {"raycast mesh.obj --rays rays32.bin --out hits.bin --threads", "--threads"},
        {"raycast mesh.obj --rays rays32.bin", "--out"},
        {"raycast mesh.obj --out hits.bin", "--rays"},
        {"raycast mesh.obj --rays rays32.bin --primary 8x8 --out hits.bin", "--primary"},
        {"raycast mesh.obj --primary 0x8 --out hits.bin", "--primary"},
        {"raycast mesh.obj --rays rays32.bin --out hits.bin --bogus", "--bogus"},
        {"raycast --rays rays32.bin --out hits.bin", "MESH"},
        {"raycast mesh.obj --rays rays32.bin --out no/such/folder/hits.bin", "hits.bin"},
        {"bench bvh missing.obj", "missing.obj"},
        {"bench bvh mesh.obj --runs 0", "--runs"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        command_result result = run_softrast(folder, cases[i].arguments);
        cr_assert_neq(result.status, 0, "'%s' succeeded", cases[i].arguments);
        cr_assert(strstr(result.err, cases[i].message), "'%s': message '%s' does not name '%s'", cases[i].arguments,
                  result.err, cases[i].message);
        snprintf(path, sizeof path, "%s/hits.bin", folder);
        cr_assert_not(file_exists(path), "'%s' left hits.bin behind", cases[i].arguments);
    }
    /* and the valid one-ray file works */
    command_result result = run_softrast(folder, "raycast mesh.obj --rays rays32.bin --out hits.bin");
    cr_assert_eq(result.status, 0, "%s", result.err);
    cr_assert(file_exists(path));
    remove_folder(folder);
}

Test(bvh_cli, bench_bvh_prints_one_json_line, .timeout = 120)
{
    char folder[64], path[256];
    make_folder(folder, sizeof folder);
    sr_mesh *sphere = NULL;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 24, 12, &sphere, NULL), SR_OK);
    snprintf(path, sizeof path, "%s/we\"ird.obj", folder);
    write_obj(path, sphere);
    size_t triangles = sphere->triangle_count + 5;
    sr_mesh_destroy(sphere);
    command_result result = run_softrast(folder, "bench bvh 'we\"ird.obj' --runs 2");
    cr_assert_eq(result.status, 0, "%s", result.err);
    cr_assert_eq(strchr(result.out, '\n'), result.out + strlen(result.out) - 1, "one line: %s", result.out);
    cJSON *json = cJSON_Parse(result.out);
    cr_assert_not_null(json, "not JSON: %s", result.out);
    cr_assert_str_eq(cJSON_GetObjectItem(json, "mesh")->valuestring, "we\"ird.obj");
    cr_assert_eq((size_t)cJSON_GetObjectItem(json, "triangles")->valuedouble, triangles);
    cJSON *build = cJSON_GetObjectItem(json, "build_ms");
    double median = cJSON_GetObjectItem(build, "median")->valuedouble;
    cr_assert(cJSON_GetObjectItem(build, "min")->valuedouble <= median &&
              median <= cJSON_GetObjectItem(build, "max")->valuedouble);
    const char *keys[] = {
        "nodes", "leaves",     "max_depth", "sah_cost", "wide_nodes",        "packs", "bytes_per_triangle",
        "rays",  "rays_per_s", "hits",      "mean_t",   "triangle_index_sum"};
    for (int i = 0; i < 12; i++)
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(json, keys[i])), "key %s", keys[i]);
    cr_assert_eq(cJSON_GetObjectItem(json, "rays")->valuedouble, 1280.0 * 720.0);
    double nodes = cJSON_GetObjectItem(json, "nodes")->valuedouble,
           leaves = cJSON_GetObjectItem(json, "leaves")->valuedouble;
    cr_assert_eq(nodes, 2 * leaves - 1);
    /* the wide tree: fewer nodes than the binary one; packs of at most 4 triangles hold every
     * leaf's triangles (at least one per leaf) */
    double wide_nodes = cJSON_GetObjectItem(json, "wide_nodes")->valuedouble;
    cr_assert(wide_nodes >= 1 && wide_nodes < nodes, "wide nodes %g, binary %g", wide_nodes, nodes);
    cr_assert_geq(4 * cJSON_GetObjectItem(json, "packs")->valuedouble, leaves);
    cr_assert_gt(cJSON_GetObjectItem(json, "bytes_per_triangle")->valuedouble, 40.0);
    /* the unit sphere at distance 3: hits start at t ~ 2 */
    double mean_t = cJSON_GetObjectItem(json, "mean_t")->valuedouble;
    cr_assert(mean_t > 2.0 && mean_t < 2.5, "mean_t %g", mean_t);
    cr_assert_gt(cJSON_GetObjectItem(json, "hits")->valuedouble, 1000);
    cJSON_Delete(json);
    remove_folder(folder);
}
