/* tests/test_obj_input.c — the OBJ loader's numbers (rounded exactly as strtof),
 * allocation failures, long warnings and huge faces, and its progress reports (part of the
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

/* ---- Numbers ------------------------------------------------------------------------------- */

/* A small deterministic generator (xorshift64*), so that failures reproduce. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ull;
}

/* Appends a random number string: a random float printed at some precision, a random digit
 * string with or without a fraction and an exponent, or a float midpoint. */
static int random_number(uint64_t *state, char *out, size_t size)
{
    uint64_t r = next_random(state);
    switch (r % 6) {
    case 0: { /* a random finite float, printed with 1 to 12 significant digits */
        uint32_t bits = (uint32_t)(next_random(state) >> 32);
        float f;
        memcpy(&f, &bits, sizeof f);
        if (!isfinite(f))
            f = 1.5f;
        int digits = 1 + (int)(next_random(state) % 12);
        return snprintf(out, size, (r >> 8) % 2 ? "%.*g" : "%.*e", digits, (double)f);
    }
    case 1: { /* a float of mesh-like magnitude, printed as %f does */
        double f = ((double)(next_random(state) % 2000001) - 1000000.0) / 1000.0 *
                   pow(10.0, (double)(next_random(state) % 7) - 3.0);
        return snprintf(out, size, "%.*f", (int)(next_random(state) % 10), f);
    }
    case 2:
    case 3: { /* digits: sign, integer part, fraction, exponent */
        int n = 0;
        uint64_t shape = next_random(state);
        if (shape % 3 == 0)
            out[n++] = shape % 2 ? '-' : '+';
        int integer_digits = (int)(next_random(state) % 22), fraction_digits = (int)(next_random(state) % 22);
        if (integer_digits == 0 && fraction_digits == 0)
            integer_digits = 1;
        for (int i = 0; i < integer_digits; i++)
            out[n++] = (char)('0' + next_random(state) % (i == 0 && (shape >> 4) % 2 ? 3 : 10));
        if (fraction_digits || (shape >> 5) % 4 == 0) {
            out[n++] = '.';
            for (int i = 0; i < fraction_digits; i++)
                out[n++] = (char)('0' + next_random(state) % 10);
        }
        if ((shape >> 8) % 3 == 0)
            n += snprintf(out + n, size - (size_t)n, "%c%d", (shape >> 10) % 2 ? 'e' : 'E',
                          (int)(next_random(state) % 90) - 45);
        out[n] = '\0';
        return n;
    }
    case 4: { /* midpoints between floats at integers and halves (the double path's ties) */
        uint64_t k = (1u << 24) + next_random(state) % (1u << 25);
        return (r >> 8) % 2 ? snprintf(out, size, "%llu", (unsigned long long)(2 * k + 1))
                            : snprintf(out, size, "%llu.5", (unsigned long long)(k / 2 + (1u << 23)));
    }
    default: { /* a random float's neighbours' midpoint, printed exactly (up to ~60 digits) */
        uint32_t bits = (uint32_t)(next_random(state) >> 33) | 0x00800000u;
        float f;
        memcpy(&f, &bits, sizeof f);
        double midpoint = ((double)f + (double)nextafterf(f, INFINITY)) / 2.0;
        return snprintf(out, size, "%.*g", 9 + (int)(next_random(state) % 60), midpoint);
    }
    }
}

Test(obj, numbers_round_exactly_as_strtof)
{
    static const char *const edge_cases[] = {
        "0", "-0", "+0.0", "0.0000", "00000001.5000000000000000000000000000", ".5", "5.", "-.25e1", "1e+5", "1E-5",
        "16777216", "16777217", "16777218", "16777219", "33554433", "33554434", "8388609.5", "8388610.5", "0.1", "0.2",
        "0.3", "1e10", "1e11", "1e-10", "1e-11", "1e22", "1e23", "1e-22", "1e-23", "9007199254740993",
        "9007199254740992", "3.4028235e38", "3.40282347e+38", "3.4028234e38", "1.17549435e-38", "1.1754942e-38",
        "1.4e-45", "7.0064923e-46", "7.0064924e-46", "1e-50", "0e1000", "0.000000000000000000000000000001",
        "123456789012345678901234567890", "0x1.8p1", "0X10", "1234567.0", "0.3333333333333333",
        "2.7182818284590452353602874713527", "4.9406564584124654e-324",
        "0.0000000000000000000000000000000000000000000014012984643248170709", "100000000000000000000000",
        /* 16 digits whose correctly rounded double is a float midpoint while the number is not
         * (found with exact rational arithmetic): rounding that double to float rounds twice */
        "8018204607651569e-20", "8936433587223292e-18", "3690764424391091e-18", "4027065038681030e-15",
        "5158811378479004e-14", "2617321933939820e-20", "3168301045661792e-19", "8571127895265818e-18",
        "7882147654891014e-17", "6531453982461244e-19", "3880323290824890e-15", "4843076312681660e-19"};
    size_t count = 0;
    float *expected = malloc(3 * 40000 * sizeof *expected);
    cr_assert_not_null(expected);
    uint64_t state = 0x9e3779b97f4a7c15ull;
    char *big = malloc(4u << 20);
    cr_assert_not_null(big);
    size_t total = 0;
    size_t edge_count = sizeof edge_cases / sizeof edge_cases[0];
    while (count < 3 * 40000) {
        char number[128];
        if (count < edge_count)
            snprintf(number, sizeof number, "%s", edge_cases[count]);
        else
            random_number(&state, number, sizeof number);
        float value = strtof(number, NULL);
        if (!isfinite(value))
            continue; /* overflow: an error, checked elsewhere */
        if (count % 3 == 0)
            total += (size_t)snprintf(big + total, (4u << 20) - total, "v");
        total += (size_t)snprintf(big + total, (4u << 20) - total, " %s", number);
        if (count % 3 == 2)
            total += (size_t)snprintf(big + total, (4u << 20) - total, "\n");
        expected[count++] = value;
    }
    total += (size_t)snprintf(big + total, (4u << 20) - total, "f 1 2 3\n");
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_parse_obj(big, total, "numbers.obj", &mesh, &err), SR_OK, "%s", err.message);
    cr_assert_eq(mesh->vertex_count, count / 3);
    size_t mismatches = 0;
    for (size_t i = 0; i < count; i++) {
        float got = (&mesh->positions[i / 3].x)[i % 3];
        if (!same_float(got, expected[i])) {
            /* find the string again for the message */
            const char *line = big;
            for (size_t l = 0; l < i / 3; l++)
                line = strchr(line, '\n') + 1;
            if (mismatches++ < 10)
                cr_log_error("number %zu of line '%.*s': read %a, strtof %a", i % 3, (int)(strchr(line, '\n') - line),
                             line, (double)got, (double)expected[i]);
        }
    }
    cr_assert_eq(mismatches, 0, "%zu of %zu numbers differ from strtof", mismatches, count);
    sr_mesh_destroy(mesh);
    free(expected);
    free(big);
    /* what strtof does not read whole is malformed */
    const char *malformed[] = {"1e", "1.5.5", "--1", "1e+", "+", "-", ".", "e5", "1,5", "0x", "1f", "١"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        char line[64];
        snprintf(line, sizeof line, "v 0 %s 0\n", malformed[i]);
        parse_fails(line, "bad.obj:1: malformed number");
    }
}

/* ---- Allocation failures ------------------------------------------------------------------- */

typedef struct failing_allocator {
    size_t allowed, made;
    bool refused;
} failing_allocator;

static void *failing_allocate(size_t size, void *user)
{
    failing_allocator *a = user;
    if (a->made++ >= a->allowed) {
        a->refused = true;
        return NULL;
    }
    return malloc(size);
}

static void *failing_reallocate(void *pointer, size_t size, void *user)
{
    failing_allocator *a = user;
    if (a->made++ >= a->allowed) {
        a->refused = true;
        return NULL;
    }
    return realloc(pointer, size);
}

static void release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

Test(obj_files, every_allocation_failure_is_an_error_without_a_mesh)
{
    /* vt/vn (the switch to triples), a concave face, groups, materials with a texture */
    write_temp_file("scene.obj", "mtllib scene.mtl\nv 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0 1 0 0\n"
                                 "f 3 4 5 6 1 2\ng a\nusemtl m\nvt 0 0\nvn 0 0 1\nf 1/1/1 2/1/1 3/1/1\n"
                                 "o b\nusemtl n\nf 1//1 3 4/1\n");
    write_temp_file("scene.mtl", "newmtl m\nKd 1 0 0\nmap_Kd t.png\nnewmtl n\nd 0.5\n");
    const uint8_t texels[4] = {1, 2, 3, 4};
    char path[1024];
    cr_assert(stbi_write_png(temp_path(path, sizeof path, "t.png"), 1, 1, 4, texels, 4));
    temp_path(path, sizeof path, "scene.obj");
    size_t allowed = 0;
    for (;; allowed++) {
        failing_allocator a = {.allowed = allowed};
        sr_set_allocator(&(sr_allocator){failing_allocate, failing_reallocate, release, &a});
        sr_mesh *mesh = (sr_mesh *)1;
        sr_error err = {0};
        sr_status status = sr_obj_load(&(sr_obj_desc){.path = path}, &mesh, &err);
        sr_set_allocator(NULL);
        if (status == SR_OK) {
            /* a refused shrink of an array to its size is harmless; anything else must fail */
            cr_assert_eq(mesh->triangle_count, 6);
            cr_assert(mesh->material_count == 2 && mesh->part_count == 3 && mesh->group_count == 2);
            cr_assert_not_null(mesh->materials[0].texture, "after %zu allocations", allowed);
            cr_assert(mesh->normals && mesh->uvs && mesh->colors);
            sr_mesh_destroy(mesh);
            if (!a.refused)
                break;
            continue;
        }
        cr_assert_eq(status, SR_ERROR_OUT_OF_MEMORY, "after %zu allocations: %s", allowed, err.message);
        cr_assert_null(mesh);
        cr_assert(err.message[0], "no message");
        cr_assert_lt(allowed, 10000);
    }
    cr_log_info("the load succeeds from %zu allocations on", allowed);
}

/* Keeps the last warning whole, whatever its length. */
static void keep_last_warning(void *user, const char *message)
{
    char **last = user;
    free(*last);
    *last = strdup(message);
}

static const char *serve_one_mtl(void *user, const char *path, size_t *length)
{
    (void)user;
    (void)path;
    static const char text[] = "newmtl m\nfrobnicate 1\n";
    *length = sizeof text - 1;
    return text;
}

Test(obj, warnings_keep_the_line_number_after_long_paths)
{
    /* a folder name of 3000 bytes (PATH_MAX is 4096): the .mtl warning still names its line */
    char name[3100];
    memset(name, 'a', 3000);
    memcpy(name + 3000, "/x.obj", 7);
    const char text[] = "mtllib lib.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    char *last = NULL;
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    sr_obj_desc desc = {.text = text,
                        .length = strlen(text),
                        .name = name,
                        .warning = keep_last_warning,
                        .read_mtl = serve_one_mtl,
                        .user = &last};
    cr_assert_eq(sr_obj_load(&desc, &mesh, &err), SR_OK, "%s", err.message);
    cr_assert_not_null(last);
    char expected[3100];
    memcpy(expected, name, 3001);
    memcpy(expected + 3001, "lib.mtl:2: unknown statement", 29);
    cr_assert(strncmp(last, expected, strlen(expected)) == 0, "warning '%.60s...%s'", last,
              last + (strlen(last) > 60 ? strlen(last) - 60 : 0));
    free(last);
    sr_mesh_destroy(mesh);
}

Test(obj, faces_of_over_1024_corners_keep_the_fan_with_a_warning)
{
    /* a star of 1100 corners: concave, yet too large to ear-clip; still n - 2 triangles */
    enum { CORNERS = 1100 };
    size_t capacity = CORNERS * 48 + 64;
    char *text = malloc(capacity);
    cr_assert_not_null(text);
    size_t length = 0;
    for (int i = 0; i < CORNERS; i++) {
        double angle = 2.0 * M_PI * i / CORNERS, radius = i % 2 ? 1.0 : 2.0;
        length += (size_t)snprintf(text + length, capacity - length, "v %.6f %.6f 0\n", radius * cos(angle),
                                   radius * sin(angle));
    }
    length += (size_t)snprintf(text + length, capacity - length, "f");
    for (int i = 0; i < CORNERS; i++)
        length += (size_t)snprintf(text + length, capacity - length, " %d", i + 1);
    length += (size_t)snprintf(text + length, capacity - length, "\n");
    warnings w = {0};
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    sr_obj_desc desc = {.text = text, .length = length, .name = "star.obj", .warning = collect_warning, .user = &w};
    cr_assert_eq(sr_obj_load(&desc, &mesh, &err), SR_OK, "%s", err.message);
    cr_assert_eq(mesh->triangle_count, CORNERS - 2);
    for (uint32_t k = 1; k + 1 < CORNERS; k++)
        cr_assert(mesh->indices[3 * (k - 1)] == 0 && mesh->indices[3 * (k - 1) + 1] == k &&
                      mesh->indices[3 * (k - 1) + 2] == k + 1,
                  "triangle %u is not the fan's", k - 1);
    cr_assert_eq(w.count, 1);
    cr_assert(find_warning(&w, "star.obj:1101:", "1100 corners") >= 0, "%s", w.messages[0]);
    sr_mesh_destroy(mesh);
    free(text);
}

/* ---- progress (sr_obj_desc.progress) ---- */

typedef struct progress_log {
    int calls;
    int stop_at; ///< the call (1-based) that returns false; 0 never
    char first_stage[128];
    double fractions[64];
} progress_log;

static bool log_progress(void *user, const char *stage, double fraction)
{
    progress_log *log = user;
    if (log->calls == 0)
        snprintf(log->first_stage, sizeof log->first_stage, "%s", stage);
    if (log->calls < 64)
        log->fractions[log->calls] = fraction;
    log->calls++;
    return log->stop_at == 0 || log->calls < log->stop_at;
}

/* An OBJ text of about `megabytes` MiB: a strip of quads. */
static char *big_obj(size_t megabytes, size_t *length)
{
    size_t capacity = (megabytes << 20) + 4096, used = 0;
    char *text = malloc(capacity);
    cr_assert_not_null(text);
    for (int i = 0; used < (megabytes << 20); i++) {
        used += (size_t)snprintf(text + used, capacity - used, "v %d 0 0\nv %d 1 0\n", i, i);
        if (i > 0)
            used += (size_t)snprintf(text + used, capacity - used, "f %d %d %d %d\n", 2 * i - 1, 2 * i + 1, 2 * i + 2,
                                     2 * i);
    }
    *length = used;
    return text;
}

Test(obj_progress, reports_from_zero_to_one_every_four_mebibytes)
{
    size_t length;
    char *text = big_obj(9, &length);
    progress_log log = {0};
    sr_mesh *mesh = NULL;
    sr_error err;
    cr_assert_eq(sr_obj_load(
                     &(sr_obj_desc){
                         .text = text, .length = length, .name = "dir/big.obj", .progress = log_progress, .user = &log},
                     &mesh, &err),
                 SR_OK, "%s", err.message);
    // At the start, after 4 and 8 MiB, at the end.
    cr_assert_eq(log.calls, 4, "%d calls", log.calls);
    cr_assert_str_eq(log.first_stage, "reading big.obj");
    cr_assert_eq(log.fractions[0], 0.0);
    cr_assert_eq(log.fractions[log.calls - 1], 1.0);
    for (int i = 1; i < log.calls; i++)
        cr_assert_gt(log.fractions[i], log.fractions[i - 1]);
    cr_assert_float_eq(log.fractions[1], (double)(4 << 20) / (double)length, 1e-4);
    sr_mesh_destroy(mesh);
    // A small file: the start and the end only.
    log = (progress_log){0};
    cr_assert_eq(sr_obj_load(&(sr_obj_desc){.text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
                                            .length = 32,
                                            .progress = log_progress,
                                            .user = &log},
                             &mesh, &err),
                 SR_OK, "%s", err.message);
    cr_assert_eq(log.calls, 2);
    sr_mesh_destroy(mesh);
    free(text);
}

Test(obj_progress, false_from_the_callback_cancels_the_load)
{
    size_t length;
    char *text = big_obj(5, &length);
    progress_log log = {.stop_at = 2};
    sr_mesh *mesh = (sr_mesh *)1;
    sr_error err;
    cr_assert_eq(
        sr_obj_load(
            &(sr_obj_desc){.text = text, .length = length, .name = "big.obj", .progress = log_progress, .user = &log},
            &mesh, &err),
        SR_ERROR_CANCELLED);
    cr_assert_null(mesh);
    cr_assert(strstr(err.message, "big.obj") && strstr(err.message, "cancelled"), "%s", err.message);
    cr_assert_eq(log.calls, 2, "nothing is reported after the stop");
    free(text);
}
