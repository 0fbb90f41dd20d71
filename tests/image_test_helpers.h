/* tests/image_test_helpers.h — what the tests of framebuffers, image files and textures (tests/test_image*.c)
 * share: a fresh temporary folder per test, file helpers, an allocator that counts and refuses,
 * pixel patterns. Header-only, for tests. */
#ifndef SR_TESTS_IMAGE_TEST_HELPERS_H
#define SR_TESTS_IMAGE_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <softrast/raster.h>

#include <SDL.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stb_image.h>
#include <stb_image_write.h>

#include "png_builder.h"

/* ---- Temporary folder and file helpers (test process only) ----------------------------------- */

/* The fresh folder of the test running now: made by the suite's init and removed by its fini
 * (test_image.c, where the suite is declared). */
extern char temp_dir[256];

/* Path of `name` inside the test folder (a static buffer per call site is enough here). */
static inline const char *temp_path(char *buffer, size_t size, const char *name)
{
    snprintf(buffer, size, "%s/%s", temp_dir, name);
    return buffer;
}

/* Number of entries in `path` besides . and ..; their names are concatenated into `names`. */
static inline int count_entries(const char *path, char *names, size_t size)
{
    DIR *dir = opendir(path);
    cr_assert_not_null(dir, "cannot open %s", path);
    int count = 0;
    names[0] = '\0';
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        count++;
        strncat(names, entry->d_name, size - strlen(names) - 2);
        strcat(names, " ");
    }
    closedir(dir);
    return count;
}

static inline void assert_dir_holds(int expected, const char *context)
{
    char names[1024];
    int count = count_entries(temp_dir, names, sizeof names);
    cr_assert_eq(count, expected, "%s: folder holds %d entries (%s), expected %d", context, count, names, expected);
}

static inline unsigned char *read_whole_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    cr_assert_not_null(file, "cannot open %s", path);
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)length + 1);
    cr_assert_eq(fread(data, 1, (size_t)length, file), (size_t)length);
    fclose(file);
    *size = (size_t)length;
    return data;
}

static inline void write_whole_file(const char *path, const void *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    cr_assert_not_null(file, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, size, file), size);
    fclose(file);
}

static inline uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* Allocator (the library's hook, core.h) that succeeds `budget` times and then refuses, and
 * counts live blocks: a leak on an error path shows as a count that does not come back. */
typedef struct tracking_allocator {
    int budget;
    int live_blocks;
} tracking_allocator;

static inline void *tracking_allocate(size_t size, void *user)
{
    tracking_allocator *state = user;
    void *pointer = state->budget-- > 0 ? malloc(size) : NULL;
    state->live_blocks += pointer != NULL;
    return pointer;
}

static inline void *tracking_reallocate(void *pointer, size_t size, void *user)
{
    tracking_allocator *state = user;
    void *grown = state->budget-- > 0 ? realloc(pointer, size) : NULL;
    state->live_blocks += grown != NULL && pointer == NULL;
    return grown;
}

static inline void tracking_release(void *pointer, void *user)
{
    tracking_allocator *state = user;
    state->live_blocks -= pointer != NULL;
    free(pointer);
}

static inline void install_tracking_allocator(tracking_allocator *state)
{
    *state = (tracking_allocator){.budget = 1 << 30};
    sr_set_allocator(&(sr_allocator){tracking_allocate, tracking_reallocate, tracking_release, state});
}

/* ---- Pixel patterns ---------------------------------------------------------------------------- */

/* RGBA8 as raster.h defines it: bytes r, g, b, a in memory order, whatever the machine. */
static inline uint32_t pack(unsigned r, unsigned g, unsigned b, unsigned a)
{
    unsigned char bytes[4] = {(unsigned char)r, (unsigned char)g, (unsigned char)b, (unsigned char)a};
    uint32_t value;
    memcpy(&value, bytes, sizeof value);
    return value;
}

static inline unsigned byte_of(uint32_t rgba, int channel)
{
    unsigned char bytes[4];
    memcpy(bytes, &rgba, sizeof bytes);
    return bytes[channel];
}

/* Distinct per pixel ((r, g) = (x, y)), with blue and alpha varying too. */
static inline uint32_t pattern(int x, int y)
{
    return pack((unsigned)x & 0xff, (unsigned)y & 0xff, (unsigned)(x * 31 + y * 17 + 3) & 0xff,
                (unsigned)(x * 7 + y * 11 + 100) & 0xff);
}

static inline sr_framebuffer *make_pattern_framebuffer(int width, int height)
{
    sr_framebuffer *fb = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){width, height, false}, &fb, &err), SR_OK, "%s",
                 err.message);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            fb->color[y * width + x] = pattern(x, y);
    return fb;
}

static const int sizes[][2] = {{37, 23}, {1, 1}, {4, 3}, {2, 5}, {5, 2}};

/* Smooth image for JPEG, whose loss on sharp edges would need a loose tolerance. */
static inline unsigned char smooth(int x, int y, int c)
{
    return (unsigned char)(40 + 4 * x + 3 * y + 30 * c);
}

/* Loads `size` bytes written to `name`: the status, and on failure no texture and a message
 * naming the file (checked here for every refusal). */
static inline sr_status load_bytes(const char *name, const void *bytes, size_t size, sr_texture **texture,
                                   sr_error *err)
{
    char path[512];
    temp_path(path, sizeof path, name);
    write_whole_file(path, bytes, size);
    *texture = (sr_texture *)err; // must be overwritten
    sr_status status = sr_texture_load(path, texture, err);
    if (status != SR_OK) {
        cr_assert_null(*texture, "%s: a failed load left a texture", name);
        cr_assert_not_null(strstr(err->message, path), "the message must name the file: %s", err->message);
    }
    remove(path);
    return status;
}

/* Asserts that the bytes load, and that every shorter prefix of them is refused as malformed. */
static inline void assert_every_truncation_refused(const char *name, const unsigned char *bytes, size_t size)
{
    sr_texture *texture = NULL;
    sr_error err = {0};
    cr_assert_eq(load_bytes(name, bytes, size, &texture, &err), SR_OK, "%s: the whole file: %s", name, err.message);
    sr_texture_destroy(texture);
    for (size_t length = 0; length < size; length++) {
        sr_status status = load_bytes(name, bytes, length, &texture, &err);
        cr_assert_eq(status, SR_ERROR_PARSE, "%s cut to %zu of %zu bytes: %s (%s)", name, length, size,
                     sr_status_name(status), err.message);
    }
}

typedef struct memory_file {
    unsigned char bytes[8192];
    size_t size;
} memory_file;

static inline void append_to_memory(void *context, void *data, int size)
{
    memory_file *file = context;
    cr_assert_leq(file->size + (size_t)size, sizeof file->bytes, "test image too large for its buffer");
    memcpy(file->bytes + file->size, data, (size_t)size);
    file->size += (size_t)size;
}

#endif
