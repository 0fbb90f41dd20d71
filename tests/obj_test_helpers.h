/* tests/obj_test_helpers.h — what the OBJ/MTL loader's tests (tests/test_obj*.c) share: warnings collected
 * from the loader's callback, files in the suite's temporary folder, loading them. Header-only,
 * for tests. */
#ifndef SR_TESTS_OBJ_TEST_HELPERS_H
#define SR_TESTS_OBJ_TEST_HELPERS_H

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

/* ---- Helpers ------------------------------------------------------------------------------- */

static inline sr_mesh *parse_ok(const char *text)
{
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    sr_status status = sr_mesh_parse_obj(text, strlen(text), "test.obj", &mesh, &err);
    cr_assert_eq(status, SR_OK, "parse failed: %s", err.message);
    cr_assert_not_null(mesh);
    return mesh;
}

static inline void parse_fails(const char *text, const char *expected_fragment)
{
    sr_mesh *mesh = (sr_mesh *)1;
    sr_error err = {0};
    sr_status status = sr_mesh_parse_obj(text, strlen(text), "bad.obj", &mesh, &err);
    cr_assert_neq(status, SR_OK, "accepted: %s", text);
    cr_assert_null(mesh);
    cr_assert(strstr(err.message, expected_fragment), "message '%s' lacks '%s' (input %s)", err.message,
              expected_fragment, text);
}

/* Warnings collected by the loader's callback. */
typedef struct warnings {
    char messages[64][600];
    int count;
} warnings;

static inline void collect_warning(void *user, const char *message)
{
    warnings *w = user;
    if (w->count < 64)
        snprintf(w->messages[w->count], sizeof w->messages[0], "%s", message);
    w->count++;
}

/* The index of the first warning containing both fragments, or -1. */
static inline int find_warning(const warnings *w, const char *fragment, const char *other)
{
    for (int i = 0; i < w->count && i < 64; i++)
        if (strstr(w->messages[i], fragment) && (!other || strstr(w->messages[i], other)))
            return i;
    return -1;
}

static inline void print_warnings(const warnings *w)
{
    for (int i = 0; i < w->count && i < 64; i++)
        cr_log_info("warning: %s", w->messages[i]);
}

static inline bool same_float(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The fresh folder of the test running now: made by the obj_files suite's init and removed by
 * its fini (test_obj.c, where the folder's functions are). */
extern char temp_dir[256];

static inline const char *temp_path(char *buffer, size_t size, const char *name)
{
    snprintf(buffer, size, "%s/%s", temp_dir, name);
    return buffer;
}

/* Writes `text` to `name` inside the test folder, making its sub-folder when it has one. */
static inline void write_temp_file(const char *name, const char *text)
{
    char path[1024];
    temp_path(path, sizeof path, name);
    char *slash = strrchr(path, '/');
    if (slash && slash > path + strlen(temp_dir)) {
        *slash = '\0';
        mkdir(path, 0700);
        *slash = '/';
    }
    FILE *file = fopen(path, "wb");
    cr_assert_not_null(file, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(text, 1, strlen(text), file), strlen(text));
    fclose(file);
}

static inline sr_mesh *load_temp(const char *name, warnings *w, bool skip_textures)
{
    char path[1024];
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    sr_obj_desc desc = {.path = temp_path(path, sizeof path, name),
                        .warning = collect_warning,
                        .user = w,
                        .skip_textures = skip_textures};
    sr_status status = sr_obj_load(&desc, &mesh, &err);
    print_warnings(w);
    cr_assert_eq(status, SR_OK, "%s", err.message);
    return mesh;
}

#endif
