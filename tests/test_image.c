/* test_image.c — framebuffer storage, image files and textures of src/raster/ (framebuffer.c,
 * image.c, texture.c). Files are checked by decoding them independently (stb_image, SDL_LoadBMP,
 * raw bytes), samples against a double-precision reference written here. Every test works in a
 * fresh mkdtemp folder removed afterwards. */
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

static char temp_dir[256];

static void make_temp_dir(void)
{
    snprintf(temp_dir, sizeof temp_dir, "/tmp/sr_test_image_XXXXXX");
    cr_assert_not_null(mkdtemp(temp_dir), "mkdtemp failed");
}

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *entry;
        while ((entry = readdir(dir))) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
                continue;
            char child[512];
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

TestSuite(image, .init = make_temp_dir, .fini = remove_temp_dir);

/* Path of `name` inside the test folder (a static buffer per call site is enough here). */
static const char *temp_path(char *buffer, size_t size, const char *name)
{
    snprintf(buffer, size, "%s/%s", temp_dir, name);
    return buffer;
}

/* Number of entries in `path` besides . and ..; their names are concatenated into `names`. */
static int count_entries(const char *path, char *names, size_t size)
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

static void assert_dir_holds(int expected, const char *context)
{
    char names[1024];
    int count = count_entries(temp_dir, names, sizeof names);
    cr_assert_eq(count, expected, "%s: folder holds %d entries (%s), expected %d", context, count, names, expected);
}

static unsigned char *read_whole_file(const char *path, size_t *size)
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

static void write_whole_file(const char *path, const void *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    cr_assert_not_null(file, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, size, file), size);
    fclose(file);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* Allocator (the library's hook, core.h) that succeeds `budget` times and then refuses, and
 * counts live blocks: a leak on an error path shows as a count that does not come back. */
typedef struct tracking_allocator {
    int budget;
    int live_blocks;
} tracking_allocator;

static void *tracking_allocate(size_t size, void *user)
{
    tracking_allocator *state = user;
    void *pointer = state->budget-- > 0 ? malloc(size) : NULL;
    state->live_blocks += pointer != NULL;
    return pointer;
}

static void *tracking_reallocate(void *pointer, size_t size, void *user)
{
    tracking_allocator *state = user;
    void *grown = state->budget-- > 0 ? realloc(pointer, size) : NULL;
    state->live_blocks += grown != NULL && pointer == NULL;
    return grown;
}

static void tracking_release(void *pointer, void *user)
{
    tracking_allocator *state = user;
    state->live_blocks -= pointer != NULL;
    free(pointer);
}

static void install_tracking_allocator(tracking_allocator *state)
{
    *state = (tracking_allocator){.budget = 1 << 30};
    sr_set_allocator(&(sr_allocator){tracking_allocate, tracking_reallocate, tracking_release, state});
}

/* ---- Pixel patterns ---------------------------------------------------------------------------- */

/* RGBA8 as raster.h defines it: bytes r, g, b, a in memory order, whatever the machine. */
static uint32_t pack(unsigned r, unsigned g, unsigned b, unsigned a)
{
    unsigned char bytes[4] = {(unsigned char)r, (unsigned char)g, (unsigned char)b, (unsigned char)a};
    uint32_t value;
    memcpy(&value, bytes, sizeof value);
    return value;
}

static unsigned byte_of(uint32_t rgba, int channel)
{
    unsigned char bytes[4];
    memcpy(bytes, &rgba, sizeof bytes);
    return bytes[channel];
}

/* Distinct per pixel ((r, g) = (x, y)), with blue and alpha varying too. */
static uint32_t pattern(int x, int y)
{
    return pack((unsigned)x & 0xff, (unsigned)y & 0xff, (unsigned)(x * 31 + y * 17 + 3) & 0xff,
                (unsigned)(x * 7 + y * 11 + 100) & 0xff);
}

static sr_framebuffer *make_pattern_framebuffer(int width, int height)
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

/* ---- BMP and PNG files ------------------------------------------------------------------------- */

Test(image, bmp_round_trip_and_header)
{
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int width = sizes[s][0], height = sizes[s][1];
        sr_framebuffer *fb = make_pattern_framebuffer(width, height);
        char path[512];
        temp_path(path, sizeof path, "frame.bmp");
        sr_error err = {0};
        cr_assert_eq(sr_framebuffer_save(fb, path, &err), SR_OK, "%s", err.message);

        // Header fields read from the bytes (BITMAPFILEHEADER + BITMAPINFOHEADER).
        size_t size;
        unsigned char *file = read_whole_file(path, &size);
        size_t row_size = ((size_t)width * 3 + 3) / 4 * 4;
        cr_assert_eq(size, 54 + row_size * (size_t)height, "%dx%d: file size %zu", width, height, size);
        cr_assert(file[0] == 'B' && file[1] == 'M');
        cr_assert_eq(le32(file + 2), size);
        cr_assert_eq(le32(file + 10), 54u);
        cr_assert_eq(le32(file + 14), 40u);
        cr_assert_eq(le32(file + 18), (uint32_t)width);
        cr_assert_eq(le32(file + 22), (uint32_t)height, "height must be positive (bottom-up)");
        cr_assert_eq(le16(file + 26), 1u);
        cr_assert_eq(le16(file + 28), 24u);
        cr_assert_eq(le32(file + 30), 0u, "BI_RGB");
        // Bottom-up, B G R order, zero padding: checked byte by byte, independently of any decoder.
        for (int row = 0; row < height; row++) {
            const unsigned char *p = file + 54 + (size_t)row * row_size;
            int y = height - 1 - row;
            for (int x = 0; x < width; x++) {
                uint32_t expected = pattern(x, y);
                cr_assert(p[3 * x] == byte_of(expected, 2) && p[3 * x + 1] == byte_of(expected, 1) &&
                              p[3 * x + 2] == byte_of(expected, 0),
                          "%dx%d: pixel (%d, %d) wrong in the file", width, height, x, y);
            }
            for (size_t pad = (size_t)width * 3; pad < row_size; pad++)
                cr_assert_eq(p[pad], 0);
        }
        free(file);

        // And stb_image decodes the same RGB.
        int w, h, channels;
        unsigned char *pixels = stbi_load(path, &w, &h, &channels, 3);
        cr_assert_not_null(pixels, "stb_image: %s", stbi_failure_reason());
        cr_assert(w == width && h == height);
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++)
                for (int c = 0; c < 3; c++)
                    cr_assert_eq(pixels[(y * width + x) * 3 + c], byte_of(pattern(x, y), c),
                                 "%dx%d: pixel (%d, %d) channel %d", width, height, x, y, c);
        stbi_image_free(pixels);
        sr_framebuffer_destroy(fb);
    }
}

Test(image, bmp_readable_by_sdl)
{
    sr_framebuffer *fb = make_pattern_framebuffer(37, 23);
    char path[512];
    temp_path(path, sizeof path, "sdl.BMP"); // upper-case extension is accepted too
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_save(fb, path, &err), SR_OK, "%s", err.message);

    SDL_Surface *loaded = SDL_LoadBMP(path);
    cr_assert_not_null(loaded, "SDL_LoadBMP: %s", SDL_GetError());
    SDL_Surface *rgba = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_RGBA32, 0);
    cr_assert_not_null(rgba, "SDL_ConvertSurfaceFormat: %s", SDL_GetError());
    cr_assert(rgba->w == 37 && rgba->h == 23);
    for (int y = 0; y < 23; y++) {
        const unsigned char *row = (const unsigned char *)rgba->pixels + (size_t)y * (size_t)rgba->pitch;
        for (int x = 0; x < 37; x++)
            for (int c = 0; c < 3; c++)
                cr_assert_eq(row[4 * x + c], byte_of(pattern(x, y), c), "pixel (%d, %d) channel %d", x, y, c);
    }
    SDL_FreeSurface(rgba);
    SDL_FreeSurface(loaded);
    sr_framebuffer_destroy(fb);
}

Test(image, png_round_trip)
{
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int width = sizes[s][0], height = sizes[s][1];
        sr_framebuffer *fb = make_pattern_framebuffer(width, height);
        char path[512];
        temp_path(path, sizeof path, s % 2 ? "frame.png" : "frame.PnG");
        sr_error err = {0};
        cr_assert_eq(sr_framebuffer_save(fb, path, &err), SR_OK, "%s", err.message);

        size_t size;
        unsigned char *file = read_whole_file(path, &size);
        cr_assert(size > 8 && memcmp(file, "\x89PNG\r\n\x1a\n", 8) == 0, "not a PNG signature");
        free(file);

        int w, h, channels;
        unsigned char *pixels = stbi_load(path, &w, &h, &channels, 4);
        cr_assert_not_null(pixels, "stb_image: %s", stbi_failure_reason());
        cr_assert(w == width && h == height && channels == 4);
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++)
                for (int c = 0; c < 4; c++)
                    cr_assert_eq(pixels[(y * width + x) * 4 + c], byte_of(pattern(x, y), c),
                                 "%dx%d: pixel (%d, %d) channel %d", width, height, x, y, c);
        stbi_image_free(pixels);
        sr_framebuffer_destroy(fb);
        remove(path);
    }
}

Test(image, image_save_honours_stride)
{
    // A 3x2 window of a 5-pixel-wide buffer: the extra pixels must not appear in the files.
    enum { WIDTH = 3, HEIGHT = 2, PITCH = 5 };
    uint32_t pixels[PITCH * HEIGHT];
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < PITCH; x++)
            pixels[y * PITCH + x] = pattern(x, y);
    const char *names[] = {"stride.bmp", "stride.png"};
    for (int n = 0; n < 2; n++) {
        char path[512];
        temp_path(path, sizeof path, names[n]);
        sr_error err = {0};
        cr_assert_eq(sr_image_save(path, WIDTH, HEIGHT, pixels, PITCH * 4, &err), SR_OK, "%s", err.message);
        int w, h, channels;
        unsigned char *decoded = stbi_load(path, &w, &h, &channels, 4);
        cr_assert_not_null(decoded);
        cr_assert(w == WIDTH && h == HEIGHT);
        for (int y = 0; y < HEIGHT; y++)
            for (int x = 0; x < WIDTH; x++)
                for (int c = 0; c < 3; c++)
                    cr_assert_eq(decoded[(y * WIDTH + x) * 4 + c], byte_of(pattern(x, y), c), "%s (%d, %d)", names[n],
                                 x, y);
        stbi_image_free(decoded);
    }
    sr_error err = {0};
    char path[512];
    cr_assert_eq(sr_image_save(temp_path(path, sizeof path, "a.bmp"), WIDTH, HEIGHT, pixels, WIDTH * 4 - 1, &err),
                 SR_ERROR_INVALID_ARGUMENT, "a stride below width * 4 is refused");
    cr_assert_eq(sr_image_save(path, 0, HEIGHT, pixels, PITCH * 4, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_image_save(path, WIDTH, HEIGHT, NULL, PITCH * 4, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_image_save(NULL, WIDTH, HEIGHT, pixels, PITCH * 4, &err), SR_ERROR_INVALID_ARGUMENT);
    assert_dir_holds(2, "after refused saves");
}

/* ---- Failed saves leave nothing behind --------------------------------------------------------- */

Test(image, unwritable_paths_fail_cleanly)
{
    tracking_allocator state;
    install_tracking_allocator(&state);
    sr_framebuffer *fb = make_pattern_framebuffer(5, 4);
    char regular_file[512], directory_target[512], path[512];
    write_whole_file(temp_path(regular_file, sizeof regular_file, "plain"), "x", 1);
    cr_assert_eq(mkdir(temp_path(directory_target, sizeof directory_target, "folder.bmp"), 0755), 0);

    // A folder that does not exist; a "folder" that is a regular file (tests run as root, so a
    // read-only folder would not stop them); a target that is a directory, which fails only at
    // the rename, after the temporary file was written.
    const char *names[] = {"missing/out.bmp", "missing/out.png", "plain/out.bmp", "plain/out.png", "folder.bmp"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        temp_path(path, sizeof path, names[n]);
        sr_error err = {0};
        cr_assert_eq(sr_framebuffer_save(fb, path, &err), SR_ERROR_IO, "%s: %s", path, err.message);
        cr_assert_not_null(strstr(err.message, path), "the message must name the path: %s", err.message);
        assert_dir_holds(2, path); // still only "plain" and "folder.bmp": no temporary file left
        cr_assert_eq(state.live_blocks, 3, "%s: memory leaked on the error path", path);
    }
    struct stat info;
    cr_assert(stat(directory_target, &info) == 0 && S_ISDIR(info.st_mode), "the directory target is untouched");
    char names_in_folder[256];
    cr_assert_eq(count_entries(directory_target, names_in_folder, sizeof names_in_folder), 0);

    sr_error err = {0};
    const float depth = 0.5f;
    cr_assert_eq(sr_file_write_atomic(temp_path(path, sizeof path, "missing/raw"), &depth, sizeof depth, &err),
                 SR_ERROR_IO);
    cr_assert_not_null(strstr(err.message, path), "%s", err.message);
    cr_assert_eq(sr_framebuffer_save_depth(fb, temp_path(path, sizeof path, "plain/depth.raw"), &err), SR_ERROR_IO);
    assert_dir_holds(2, "after raw saves");
    sr_framebuffer_destroy(fb);
    cr_assert_eq(state.live_blocks, 0);
    sr_set_allocator(NULL);
}

Test(image, bad_extensions_are_refused)
{
    sr_framebuffer *fb = make_pattern_framebuffer(3, 3);
    const char *names[] = {"out.jpg", "out", "out.bmp.txt", "out.bm", "out.pngx", "dir.bmp/noextension", ".bmpx"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        char path[512];
        temp_path(path, sizeof path, names[n]);
        sr_error err = {0};
        cr_assert_eq(sr_framebuffer_save(fb, path, &err), SR_ERROR_INVALID_ARGUMENT, "%s accepted", path);
        cr_assert_not_null(strstr(err.message, path), "the message must name the path: %s", err.message);
    }
    assert_dir_holds(0, "after refused extensions");
    sr_framebuffer_destroy(fb);
}

Test(image, existing_file_is_replaced_by_rename)
{
    char path[512];
    temp_path(path, sizeof path, "frame.bmp");
    write_whole_file(path, "old contents", 12);
    struct stat before, after;
    cr_assert_eq(stat(path, &before), 0);

    sr_framebuffer *fb = make_pattern_framebuffer(6, 2);
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_save(fb, path, &err), SR_OK, "%s", err.message);
    cr_assert_eq(stat(path, &after), 0);
    // A new inode proves a rename over the target, not a rewrite in place: while the temporary
    // file existed beside the old one, the two could not share an inode.
    cr_assert_neq(before.st_ino, after.st_ino, "the target was rewritten in place, not replaced");
    cr_assert_eq(after.st_size, 54 + 20 * 2);
    size_t size;
    unsigned char *file = read_whole_file(path, &size);
    cr_assert(file[0] == 'B' && file[1] == 'M');
    free(file);
    assert_dir_holds(1, "after the replace");
    sr_framebuffer_destroy(fb);
}

Test(image, file_write_atomic_writes_exact_bytes)
{
    char path[512];
    temp_path(path, sizeof path, "bytes.bin");
    unsigned char data[1000];
    for (int i = 0; i < 1000; i++)
        data[i] = (unsigned char)(i * 37 + 11);
    sr_error err = {0};
    cr_assert_eq(sr_file_write_atomic(path, data, sizeof data, &err), SR_OK, "%s", err.message);
    size_t size;
    unsigned char *file = read_whole_file(path, &size);
    cr_assert(size == sizeof data && memcmp(file, data, size) == 0);
    free(file);
    cr_assert_eq(sr_file_write_atomic(path, NULL, 0, &err), SR_OK, "an empty file is valid: %s", err.message);
    struct stat info;
    cr_assert(stat(path, &info) == 0 && info.st_size == 0);
    cr_assert_eq(sr_file_write_atomic(NULL, data, 1, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_file_write_atomic(path, NULL, 1, &err), SR_ERROR_INVALID_ARGUMENT);
    assert_dir_holds(1, "after writes");
}

/* ---- Raw depth and id files -------------------------------------------------------------------- */

Test(image, depth_and_ids_raw_files)
{
    enum { WIDTH = 5, HEIGHT = 3 };
    sr_framebuffer *fb = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){WIDTH, HEIGHT, true}, &fb, &err), SR_OK);
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            fb->depth[y * WIDTH + x] = 0.125f * (float)x - 3.5f * (float)y + 0.001f;
            fb->ids[y * WIDTH + x] = 0x01020304u * (uint32_t)(y + 1) + (uint32_t)x;
        }
    char depth_path[512], ids_path[512];
    temp_path(depth_path, sizeof depth_path, "depth.raw");
    temp_path(ids_path, sizeof ids_path, "ids.raw");
    cr_assert_eq(sr_framebuffer_save_depth(fb, depth_path, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_framebuffer_save_ids(fb, ids_path, &err), SR_OK, "%s", err.message);

    size_t depth_size, ids_size;
    unsigned char *depth_file = read_whole_file(depth_path, &depth_size);
    unsigned char *ids_file = read_whole_file(ids_path, &ids_size);
    cr_assert_eq(depth_size, (size_t)WIDTH * HEIGHT * 4);
    cr_assert_eq(ids_size, (size_t)WIDTH * HEIGHT * 4);
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            size_t offset = (size_t)(y * WIDTH + x) * 4; // top row first, little-endian words
            uint32_t bits = le32(depth_file + offset);
            float depth;
            memcpy(&depth, &bits, sizeof depth);
            cr_assert_eq(depth, 0.125f * (float)x - 3.5f * (float)y + 0.001f, "depth (%d, %d)", x, y);
            cr_assert_eq(le32(ids_file + offset), 0x01020304u * (uint32_t)(y + 1) + (uint32_t)x, "id (%d, %d)", x, y);
        }
    free(depth_file);
    free(ids_file);
    sr_framebuffer_destroy(fb);

    // Without an id buffer there is nothing to save.
    fb = make_pattern_framebuffer(2, 2);
    char path[512];
    cr_assert_eq(sr_framebuffer_save_ids(fb, temp_path(path, sizeof path, "none.raw"), &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_framebuffer_save_depth(NULL, path, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_framebuffer_save(NULL, path, &err), SR_ERROR_INVALID_ARGUMENT);
    assert_dir_holds(2, "after the raw files");
    sr_framebuffer_destroy(fb);
}

/* ---- Framebuffer storage ----------------------------------------------------------------------- */

static void assert_cleared(const sr_framebuffer *fb, uint32_t rgba, float depth, const char *context)
{
    for (int i = 0; i < fb->width * fb->height; i++) {
        cr_assert_eq(fb->color[i], rgba, "%s: colour of pixel %d", context, i);
        cr_assert_eq(memcmp(&fb->depth[i], &depth, sizeof depth), 0, "%s: depth of pixel %d = %g", context, i,
                     (double)fb->depth[i]);
        if (fb->ids)
            cr_assert_eq(fb->ids[i], SR_NO_ID, "%s: id of pixel %d", context, i);
    }
}

Test(image, framebuffer_create_and_clear)
{
    sr_framebuffer *fb = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){7, 5, true}, &fb, &err), SR_OK, "%s", err.message);
    cr_assert(fb->width == 7 && fb->height == 5 && fb->color && fb->depth && fb->ids);
    assert_cleared(fb, 0, 1.0f, "after create");

    // Values taking the memset path (equal bytes, +0.0) and the loop path (all others).
    sr_framebuffer_clear(fb, pack(0x10, 0x20, 0x30, 0x40), 0.25f);
    assert_cleared(fb, pack(0x10, 0x20, 0x30, 0x40), 0.25f, "clear to mixed values");
    for (int i = 0; i < 35; i++)
        fb->ids[i] = (uint32_t)i;
    sr_framebuffer_clear(fb, 0xffffffffu, 0.0f);
    assert_cleared(fb, 0xffffffffu, 0.0f, "clear to white and 0");
    sr_framebuffer_clear(fb, 0, -0.0f);
    assert_cleared(fb, 0, -0.0f, "clear to -0.0 keeps its sign bit");

    sr_framebuffer_clear(fb, pack(7, 1, 2, 7), 0.5f);
    assert_cleared(fb, pack(7, 1, 2, 7), 0.5f, "clear to equal outer bytes");
    sr_framebuffer_clear_color(fb, pack(1, 2, 3, 4));
    assert_cleared(fb, pack(1, 2, 3, 4), 0.5f, "clear_color leaves depth");
    sr_framebuffer_clear_depth(fb, 0.75f);
    assert_cleared(fb, pack(1, 2, 3, 4), 0.75f, "clear_depth leaves colour");
    sr_framebuffer_destroy(fb);

    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = 3, .height = 2}, &fb, &err), SR_OK);
    cr_assert_null(fb->ids, "no id buffer unless asked for");
    sr_framebuffer_clear(fb, 5, 0.5f);
    assert_cleared(fb, 5, 0.5f, "clear without ids");
    sr_framebuffer_destroy(fb);

    // The largest side is accepted (as a thin strip, to stay small).
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){SR_MAX_IMAGE_SIDE, 1, false}, &fb, &err), SR_OK);
    sr_framebuffer_destroy(fb);
    sr_framebuffer_destroy(NULL);
    sr_framebuffer_clear(NULL, 0, 1.0f); // safe no-ops
}

Test(image, framebuffer_resize)
{
    sr_framebuffer *fb = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){4, 4, true}, &fb, &err), SR_OK);
    sr_framebuffer_clear(fb, 77, 0.5f);
    cr_assert_eq(sr_framebuffer_resize(fb, 9, 3, &err), SR_OK, "%s", err.message);
    cr_assert(fb->width == 9 && fb->height == 3 && fb->ids);
    assert_cleared(fb, 0, 1.0f, "after resize");

    sr_framebuffer_clear(fb, 99, 0.25f);
    uint32_t *color = fb->color;
    cr_assert_eq(sr_framebuffer_resize(fb, 0, 3, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(err.message, "0x3"), "%s", err.message);
    cr_assert_eq(sr_framebuffer_resize(fb, 100000, 100000, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(fb->width == 9 && fb->height == 3 && fb->color == color, "a failed resize changes nothing");
    assert_cleared(fb, 99, 0.25f, "after failed resizes");
    cr_assert_eq(sr_framebuffer_resize(NULL, 2, 2, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_framebuffer_destroy(fb);
}

Test(image, framebuffer_refuses_bad_sizes_and_arguments)
{
    const struct {
        int width, height;
        const char *text;
    } bad[] = {{0, 0, "0x0"},
               {-1, 5, "-1x5"},
               {100000, 100000, "100000x100000"},
               {5, 0, "5x0"},
               {SR_MAX_IMAGE_SIDE + 1, 1, "16385x1"},
               {1, -2147483647 - 1, "1x-2147483648"}};
    for (size_t n = 0; n < sizeof bad / sizeof bad[0]; n++) {
        sr_framebuffer *fb = (sr_framebuffer *)&n; // must be overwritten with NULL
        sr_error err = {0};
        cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){bad[n].width, bad[n].height, true}, &fb, &err),
                     SR_ERROR_INVALID_ARGUMENT, "%s accepted", bad[n].text);
        cr_assert_null(fb);
        cr_assert_not_null(strstr(err.message, bad[n].text), "the message must name the size: %s", err.message);
    }
    sr_framebuffer *fb = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_create(NULL, &fb, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){2, 2, false}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){0, 2, false}, &fb, NULL), SR_ERROR_INVALID_ARGUMENT,
                 "a NULL error pointer is allowed");
}

Test(image, allocation_failures_are_reported)
{
    tracking_allocator state;
    install_tracking_allocator(&state);
    sr_error err = {0};
    // Each allocation of create refused in turn (struct, colour, depth, ids): an error, no leak,
    // never a crash.
    for (int budget = 0; budget < 4; budget++) {
        state.budget = budget;
        sr_framebuffer *fb = (sr_framebuffer *)&state;
        cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){64, 64, true}, &fb, &err), SR_ERROR_OUT_OF_MEMORY,
                     "budget %d: %s", budget, err.message);
        cr_assert_null(fb);
        cr_assert_eq(state.live_blocks, 0, "budget %d: %d blocks leaked", budget, state.live_blocks);
    }

    state.budget = 1 << 30;
    sr_framebuffer *fb = make_pattern_framebuffer(8, 8);
    cr_assert_eq(state.live_blocks, 3);
    for (int budget = 0; budget < 2; budget++) {
        state.budget = budget;
        cr_assert_eq(sr_framebuffer_resize(fb, 32, 32, &err), SR_ERROR_OUT_OF_MEMORY, "resize, budget %d", budget);
        cr_assert(fb->width == 8 && fb->height == 8 && fb->color[9] == pattern(1, 1),
                  "a failed resize changes nothing");
        cr_assert_eq(state.live_blocks, 3, "resize, budget %d: leak", budget);
    }
    state.budget = 1 << 30;
    cr_assert_eq(sr_framebuffer_resize(fb, 16, 4, &err), SR_OK);
    cr_assert_eq(state.live_blocks, 3, "a resize frees the old buffers");

    // Encoders: the file buffer (BMP) or output sink (PNG), then the temporary name.
    const char *names[] = {"oom.bmp", "oom.png"};
    for (int n = 0; n < 2; n++)
        for (int budget = 0; budget < 2; budget++) {
            char path[512];
            state.budget = budget;
            cr_assert_eq(sr_framebuffer_save(fb, temp_path(path, sizeof path, names[n]), &err), SR_ERROR_OUT_OF_MEMORY,
                         "%s, budget %d: %s", names[n], budget, err.message);
            cr_assert_eq(state.live_blocks, 3, "%s, budget %d: leak", names[n], budget);
        }
    assert_dir_holds(0, "after failed encodes");

    for (int budget = 0; budget < 2; budget++) {
        state.budget = budget;
        sr_texture *texture = (sr_texture *)&state;
        cr_assert_eq(sr_texture_create(&(sr_texture_desc){4, 4, NULL}, &texture, &err), SR_ERROR_OUT_OF_MEMORY);
        cr_assert_null(texture);
    }
    sr_framebuffer_destroy(fb);
    cr_assert_eq(state.live_blocks, 0);
    sr_set_allocator(NULL);
}

/* ---- Textures: creation and loading ------------------------------------------------------------ */

Test(image, texture_create_copies_or_zeroes)
{
    uint32_t texels[6];
    for (int i = 0; i < 6; i++)
        texels[i] = pattern(i, 2 * i);
    sr_texture *texture = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_texture_create(&(sr_texture_desc){3, 2, texels}, &texture, &err), SR_OK, "%s", err.message);
    texels[0] = 0; // the texture owns a copy
    cr_assert(texture->width == 3 && texture->height == 2 && texture->texels != texels);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(texture->texels[i], pattern(i, 2 * i));
    sr_texture_destroy(texture);

    cr_assert_eq(sr_texture_create(&(sr_texture_desc){.width = 5, .height = 4}, &texture, &err), SR_OK);
    for (int i = 0; i < 20; i++)
        cr_assert_eq(texture->texels[i], 0u);
    sr_texture_destroy(texture);
    sr_texture_destroy(NULL);

    texture = (sr_texture *)texels;
    cr_assert_eq(sr_texture_create(&(sr_texture_desc){0, 4, NULL}, &texture, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_null(texture);
    cr_assert_not_null(strstr(err.message, "0x4"), "%s", err.message);
    cr_assert_eq(sr_texture_create(&(sr_texture_desc){100000, 100000, NULL}, &texture, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_texture_create(NULL, &texture, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_texture_create(&(sr_texture_desc){1, 1, NULL}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
}

/* Smooth image for JPEG, whose loss on sharp edges would need a loose tolerance. */
static unsigned char smooth(int x, int y, int c)
{
    return (unsigned char)(40 + 4 * x + 3 * y + 30 * c);
}

Test(image, texture_load_formats)
{
    enum { WIDTH = 19, HEIGHT = 13 };
    unsigned char rgba[WIDTH * HEIGHT * 4], rgb[WIDTH * HEIGHT * 3], smooth_rgb[WIDTH * HEIGHT * 3];
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++)
            for (int c = 0; c < 4; c++) {
                unsigned char value = (unsigned char)byte_of(pattern(x, y), c);
                rgba[(y * WIDTH + x) * 4 + c] = value;
                if (c < 3) {
                    rgb[(y * WIDTH + x) * 3 + c] = value;
                    smooth_rgb[(y * WIDTH + x) * 3 + c] = smooth(x, y, c);
                }
            }
    char png[512], tga[512], bmp[512], jpg[512];
    cr_assert(stbi_write_png(temp_path(png, sizeof png, "t.png"), WIDTH, HEIGHT, 4, rgba, WIDTH * 4));
    cr_assert(stbi_write_tga(temp_path(tga, sizeof tga, "t.tga"), WIDTH, HEIGHT, 4, rgba));
    cr_assert(stbi_write_bmp(temp_path(bmp, sizeof bmp, "t.bmp"), WIDTH, HEIGHT, 3, rgb));
    cr_assert(stbi_write_jpg(temp_path(jpg, sizeof jpg, "t.jpg"), WIDTH, HEIGHT, 3, smooth_rgb, 95));

    const struct {
        const char *path;
        bool has_alpha, lossy;
    } files[] = {{png, true, false}, {tga, true, false}, {bmp, false, false}, {jpg, false, true}};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        sr_texture *texture = NULL;
        sr_error err = {0};
        cr_assert_eq(sr_texture_load(files[f].path, &texture, &err), SR_OK, "%s", err.message);
        cr_assert(texture->width == WIDTH && texture->height == HEIGHT, "%s", files[f].path);
        int worst = 0;
        for (int y = 0; y < HEIGHT; y++)
            for (int x = 0; x < WIDTH; x++)
                for (int c = 0; c < 4; c++) {
                    int expected = files[f].lossy                  ? (c < 3 ? smooth(x, y, c) : 255)
                                   : c == 3 && !files[f].has_alpha ? 255
                                                                   : (int)byte_of(pattern(x, y), c);
                    int actual = (int)byte_of(texture->texels[y * WIDTH + x], c);
                    int difference = abs(actual - expected);
                    worst = difference > worst ? difference : worst;
                    if (!files[f].lossy)
                        cr_assert_eq(actual, expected, "%s: texel (%d, %d) channel %d", files[f].path, x, y, c);
                }
        if (files[f].lossy)
            cr_assert_leq(worst, 8, "%s: JPEG error %d exceeds the tolerance", files[f].path, worst);
        sr_texture_destroy(texture);
    }

    // Our own encoders' output loads back too (rows top first, as the framebuffer stores them).
    sr_framebuffer *fb = make_pattern_framebuffer(WIDTH, HEIGHT);
    char own[512];
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_save(fb, temp_path(own, sizeof own, "own.png"), &err), SR_OK);
    sr_texture *texture = NULL;
    cr_assert_eq(sr_texture_load(own, &texture, &err), SR_OK, "%s", err.message);
    cr_assert_eq(memcmp(texture->texels, fb->color, sizeof(uint32_t) * WIDTH * HEIGHT), 0);
    sr_texture_destroy(texture);
    sr_framebuffer_destroy(fb);
}

Test(image, texture_load_errors_name_the_file)
{
    char missing[512], garbage[512], huge[512];
    temp_path(missing, sizeof missing, "missing.png");
    temp_path(garbage, sizeof garbage, "garbage.png");
    temp_path(huge, sizeof huge, "huge.bmp");
    write_whole_file(garbage, "this is not an image at all, just text", 38);
    // A valid BMP header announcing 20000 x 1 pixels (the pixels are not needed to refuse it).
    unsigned char header[54] = {'B', 'M'};
    header[10] = 54;
    header[14] = 40;
    header[18] = 20000 & 0xff, header[19] = 20000 >> 8;
    header[22] = 1;
    header[26] = 1;
    header[28] = 24;
    write_whole_file(huge, header, sizeof header);

    const struct {
        const char *path;
        sr_status status;
    } cases[] = {{missing, SR_ERROR_IO}, {garbage, SR_ERROR_PARSE}, {huge, SR_ERROR_UNSUPPORTED}};
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        sr_texture *texture = (sr_texture *)&n;
        sr_error err = {0};
        cr_assert_eq(sr_texture_load(cases[n].path, &texture, &err), cases[n].status, "%s: %s", cases[n].path,
                     err.message);
        cr_assert_null(texture);
        cr_assert_not_null(strstr(err.message, cases[n].path), "the message must name the file: %s", err.message);
    }
    sr_texture *texture = NULL;
    cr_assert_eq(sr_texture_load(NULL, &texture, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_texture_load(garbage, NULL, NULL), SR_ERROR_INVALID_ARGUMENT);
}

/* ---- Textures: files refused before decoding --------------------------------------------------- */

/* Loads `size` bytes written to `name`: the status, and on failure no texture and a message
 * naming the file (checked here for every refusal). */
static sr_status load_bytes(const char *name, const void *bytes, size_t size, sr_texture **texture, sr_error *err)
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
static void assert_every_truncation_refused(const char *name, const unsigned char *bytes, size_t size)
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

static void append_to_memory(void *context, void *data, int size)
{
    memory_file *file = context;
    cr_assert_leq(file->size + (size_t)size, sizeof file->bytes, "test image too large for its buffer");
    memcpy(file->bytes + file->size, data, (size_t)size);
    file->size += (size_t)size;
}

Test(image, texture_load_refuses_truncated_files)
{
    enum { WIDTH = 7, HEIGHT = 5 };
    unsigned char rgba[WIDTH * HEIGHT * 4], rgb[WIDTH * HEIGHT * 3];
    for (int i = 0; i < WIDTH * HEIGHT; i++)
        for (int c = 0; c < 4; c++) {
            unsigned char value = (unsigned char)byte_of(pattern(i % WIDTH, i / WIDTH), c);
            rgba[i * 4 + c] = value;
            if (c < 3)
                rgb[i * 3 + c] = (unsigned char)smooth(i % WIDTH, i / WIDTH, c);
        }
    memory_file file = {0};
    cr_assert(stbi_write_png_to_func(append_to_memory, &file, WIDTH, HEIGHT, 4, rgba, WIDTH * 4));
    assert_every_truncation_refused("t.png", file.bytes, file.size);

    // Uncompressed (image type 2) and run-length (type 10) TGA: the writer's switch is a global
    // of stb_image_write, set here in the test process only.
    for (int rle = 0; rle < 2; rle++) {
        stbi_write_tga_with_rle = rle;
        file.size = 0;
        cr_assert(stbi_write_tga_to_func(append_to_memory, &file, WIDTH, HEIGHT, 4, rgba));
        cr_assert_eq(file.bytes[2], rle ? 10 : 2, "TGA image type");
        assert_every_truncation_refused(rle ? "rle.tga" : "raw.tga", file.bytes, file.size);
    }
    stbi_write_tga_with_rle = 1;

    // 24-bit BMP with padded rows (7 * 3 = 21 bytes + 3), from our own encoder.
    sr_framebuffer *fb = make_pattern_framebuffer(WIDTH, HEIGHT);
    char path[512];
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_save(fb, temp_path(path, sizeof path, "t.bmp"), &err), SR_OK, "%s", err.message);
    sr_framebuffer_destroy(fb);
    size_t size;
    unsigned char *bmp = read_whole_file(path, &size);
    remove(path);
    assert_every_truncation_refused("t.bmp", bmp, size);
    free(bmp);

    file.size = 0;
    cr_assert(stbi_write_jpg_to_func(append_to_memory, &file, WIDTH, HEIGHT, 3, rgb, 90));
    assert_every_truncation_refused("t.jpg", file.bytes, file.size);
}

Test(image, texture_load_refuses_png_chunk_longer_than_the_file)
{
    // 113 bytes: IHDR (4x3 RGBA), then a chunk declaring 0x5e630038 (1.58 GB) bytes of IDAT,
    // for which stb_image 2.27 reserves memory before reading it.
    static const char hex[] = "89504e470d0a1a0a0000000d4948445200000004000000030806000000b4f454785e630038494441"
                              "54785e63e63608ad9ab566ffc527df3867af3b70f9294b00043c7932650a90f5e409c3ea0b5fa5ec"
                              "533ad75dfe21eb94deb3f11a0095531a6c17b790b60000000049454e44ae426082";
    unsigned char bytes[113];
    cr_assert_eq(strlen(hex), 2 * sizeof bytes);
    for (size_t i = 0; i < sizeof bytes; i++) {
        unsigned value;
        cr_assert_eq(sscanf(hex + 2 * i, "%2x", &value), 1);
        bytes[i] = (unsigned char)value;
    }
    sr_texture *texture;
    sr_error err = {0};
    cr_assert_eq(load_bytes("idat.png", bytes, sizeof bytes, &texture, &err), SR_ERROR_PARSE, "%s", err.message);
    cr_assert_not_null(strstr(err.message, "IDAT"), "the message must name the chunk: %s", err.message);
    cr_assert_not_null(strstr(err.message, "1583546424"), "the message must give the length: %s", err.message);

    // A chunk list that does not start with IHDR: the signature, then IEND.
    cr_assert_eq(load_bytes("iend.png", "\x89PNG\r\n\x1a\n\0\0\0\0IEND\xae\x42\x60\x82", 20, &texture, &err),
                 SR_ERROR_PARSE);
    cr_assert_not_null(strstr(err.message, "IHDR"), "%s", err.message);
}

/* ---- PNG image data: zlib's inflate before stb_image (src/raster/deflate.c) -------------------- */

/* The 4x3 grey image of these tests, as the scanlines the deflate data holds (filter byte 0,
 * then four samples): 10 20 30 40, the same row again, 7 7 7 7. */
enum { DEFLATE_WIDTH = 4, DEFLATE_HEIGHT = 3 };
static const unsigned char grey_rows[15] = {0, 10, 20, 30, 40, 0, 10, 20, 30, 40, 0, 7, 7, 7, 7};

/* A literal/length or distance symbol through a code of known lengths. */
static void put_symbol(png_bits *b, const uint8_t *lengths, int n, int symbol)
{
    uint32_t codes[288] = {0};
    png_canonical_codes(lengths, n, codes);
    cr_assert_gt(lengths[symbol], 0, "symbol %d has no code", symbol);
    png_bits_put_code(b, codes[symbol], lengths[symbol]);
}

/* The image with back-references in a fixed-Huffman block: row 2 copies row 1 (length 5 at
 * distance 5: distance symbol 4 with one extra bit 0), row 3 is a 7 then a copy of length 3 at
 * distance 1. */
static void put_fixed_block(png_bits *b, bool final)
{
    png_bits_put(b, final, 1);
    png_bits_put(b, 1, 2);
    for (int i = 0; i < 5; i++)
        png_bits_put_fixed_symbol(b, grey_rows[i]);
    png_bits_put_fixed_symbol(b, 259);
    png_bits_put_fixed_distance(b, 4);
    png_bits_put(b, 0, 1);
    png_bits_put_fixed_symbol(b, 0);
    png_bits_put_fixed_symbol(b, 7);
    png_bits_put_fixed_symbol(b, 257);
    png_bits_put_fixed_distance(b, 0);
    png_bits_put_fixed_symbol(b, 256);
}

/* A stored block of `size` bytes; `broken`: NLEN is not the complement of LEN. */
static void put_stored_block(png_bits *b, bool final, const unsigned char *data, size_t size, bool broken)
{
    png_bits_put(b, final, 1);
    png_bits_put(b, 0, 2);
    const unsigned char lengths[4] = {(unsigned char)size, (unsigned char)(size >> 8),
                                      (unsigned char)(~size ^ (broken ? 1u : 0u)), (unsigned char)(~size >> 8)};
    png_bits_put_bytes(b, lengths, sizeof lengths);
    png_bits_put_bytes(b, data, size);
}

/* The image in a dynamic block: literal/length lengths 3 for 0, 7, 10, 20, 30, 40 and 256,
 * 4 for 257 and 259 (a complete code, HLIT = 260); distance lengths 1 for symbols 0 and 4
 * (HDIST = 5); the code-length code uses 0, 3, 17 (two bits), 18 (three), 1, 4 (four). */
static void put_dynamic_block(png_bits *b)
{
    uint8_t lengths[260 + 5] = {0};
    const int short_codes[7] = {0, 7, 10, 20, 30, 40, 256};
    for (int i = 0; i < 7; i++)
        lengths[short_codes[i]] = 3;
    lengths[257] = lengths[259] = 4;
    uint8_t *distance_lengths = lengths + 260;
    distance_lengths[0] = distance_lengths[4] = 1;
    uint8_t length_code_lengths[19] = {0};
    length_code_lengths[0] = length_code_lengths[3] = length_code_lengths[17] = 2;
    length_code_lengths[18] = 3;
    length_code_lengths[1] = length_code_lengths[4] = 4;
    /* runs of zeros: 17 for 3..10 (extra = run - 3), 18 for 11..138 (extra = run - 11) */
    const png_length_symbol sequence[] = {{3, 0}, {17, 3}, {3, 0}, {0, 0},  {0, 0}, {3, 0},    {17, 6},
                                          {3, 0}, {17, 6}, {3, 0}, {17, 6}, {3, 0}, {18, 127}, {18, 66},
                                          {3, 0}, {4, 0},  {0, 0}, {4, 0},  {1, 0}, {17, 0},   {1, 0}};
    png_bits_put(b, 1, 1);
    png_bits_put(b, 2, 2);
    png_bits_put_dynamic_header(b, 260, 5, length_code_lengths, sequence, sizeof sequence / sizeof sequence[0]);
    for (int i = 0; i < 5; i++)
        put_symbol(b, lengths, 260, grey_rows[i]);
    put_symbol(b, lengths, 260, 259);
    put_symbol(b, distance_lengths, 5, 4);
    png_bits_put(b, 0, 1);
    put_symbol(b, lengths, 260, 0);
    put_symbol(b, lengths, 260, 7);
    put_symbol(b, lengths, 260, 257);
    put_symbol(b, distance_lengths, 5, 0);
    put_symbol(b, lengths, 260, 256);
}

Test(image, png_image_data_valid_streams_load_exactly)
{
    // Each stream holds grey_rows. stb_image decoding each file to those pixels is the
    // independent check that the hand-made stream is valid; sr_texture_load must accept it
    // and hold the same texels.
    enum { FIXED, STORED_SPLIT, DYNAMIC_SPLIT, STORED_THEN_FIXED, APPLE_RAW, CASES };
    const char *names[CASES] = {"fixed", "stored, two IDAT chunks", "dynamic, two IDAT chunks", "stored then fixed",
                                "CgBI raw deflate"};
    for (int c = 0; c < CASES; c++) {
        png_bits idat = {.size = 0};
        if (c != APPLE_RAW)
            png_bits_put_zlib_header(&idat);
        size_t split = 0;
        if (c == FIXED || c == APPLE_RAW) {
            put_fixed_block(&idat, true);
        } else if (c == STORED_SPLIT) {
            put_stored_block(&idat, true, grey_rows, sizeof grey_rows, false);
            split = 9; // inside the stored bytes
        } else if (c == DYNAMIC_SPLIT) {
            put_dynamic_block(&idat);
            split = 7; // inside the code lengths
        } else {
            // an empty non-final stored block, then the image
            put_stored_block(&idat, false, grey_rows, 0, false);
            put_fixed_block(&idat, true);
        }
        if (c != APPLE_RAW)
            png_bits_put_adler32(&idat, png_adler32(grey_rows, sizeof grey_rows));
        unsigned char file[4096 + 100];
        size_t size = png_make(file, DEFLATE_WIDTH, DEFLATE_HEIGHT, 0, &idat, split, c == APPLE_RAW);

        int width = 0, height = 0, channels = 0;
        unsigned char *reference = stbi_load_from_memory(file, (int)size, &width, &height, &channels, 4);
        cr_assert_not_null(reference, "%s: stb_image refuses the test's own stream: %s", names[c],
                           stbi_failure_reason());
        sr_texture *texture = NULL;
        sr_error err = {0};
        cr_assert_eq(load_bytes("deflate.png", file, size, &texture, &err), SR_OK, "%s: %s", names[c], err.message);
        cr_assert(texture->width == DEFLATE_WIDTH && texture->height == DEFLATE_HEIGHT, "%s", names[c]);
        for (int y = 0; y < DEFLATE_HEIGHT; y++)
            for (int x = 0; x < DEFLATE_WIDTH; x++) {
                const unsigned grey = grey_rows[y * 5 + 1 + x];
                uint32_t expected = pack(grey, grey, grey, 255), decoded;
                memcpy(&decoded, reference + 4 * (y * DEFLATE_WIDTH + x), sizeof decoded);
                cr_assert_eq(decoded, expected, "%s: stb_image decodes texel (%d, %d) as %08x", names[c], x, y,
                             decoded);
                cr_assert_eq(texture->texels[y * DEFLATE_WIDTH + x], expected, "%s: texel (%d, %d)", names[c], x, y);
            }
        stbi_image_free(reference);
        sr_texture_destroy(texture);
    }
}

/* A dynamic block header with the code-length code "0..15 in four bits" (complete, no repeat
 * symbols) and one length per symbol: `count` literal/length lengths of `value` (EOB's set to
 * `end_of_block`), then one distance code of length 1. */
static void put_uniform_dynamic_header(png_bits *b, int count, int value, int end_of_block)
{
    uint8_t length_code_lengths[19] = {0};
    memset(length_code_lengths, 4, 16);
    png_length_symbol sequence[300];
    for (int i = 0; i < count; i++)
        sequence[i] = (png_length_symbol){i == 256 ? end_of_block : value, 0};
    sequence[count] = (png_length_symbol){1, 0};
    png_bits_put(b, 1, 1);
    png_bits_put(b, 2, 2);
    png_bits_put_dynamic_header(b, count, 1, length_code_lengths, sequence, count + 1);
}

Test(image, png_image_data_refused_as_a_strict_inflate_refuses)
{
    // Streams zlib's inflate refuses (src/raster/deflate.c), each for one reason, each refused with
    // a message naming the file (load_bytes checks) and the reason. stb_image 2.27 decodes some
    // of them (symbols 286 and 287, truncated data, incomplete codes, 2^16 windows) and, for
    // distance symbols 30 and 31, from memory it never wrote (tests/test_fuzz.c).
    enum {
        LITERAL_286,
        LITERAL_287,
        DISTANCE_30,
        DISTANCE_31,
        TOO_FAR_BACK,
        TRUNCATED,
        BLOCK_TYPE_3,
        STORED_LENGTH,
        HEADER_CHECK,
        HEADER_METHOD,
        HEADER_WINDOW,
        HEADER_DICTIONARY,
        TOO_MANY_LITERALS,
        TOO_MANY_DISTANCES,
        INCOMPLETE,
        OVER_SUBSCRIBED,
        NO_END_OF_BLOCK,
        REPEAT_FIRST,
        INCOMPLETE_LENGTH_CODE,
        CASES
    };
    // zlib's messages (its inflate.c), but for the zlib header and the truncation (deflate.c)
    const char *phrases[CASES] = {"invalid literal/length code",
                                  "invalid literal/length code",
                                  "invalid distance code",
                                  "invalid distance code",
                                  "invalid distance too far back",
                                  "ends inside a deflate block",
                                  "invalid block type",
                                  "invalid stored block lengths",
                                  "check wrong",
                                  "method 7",
                                  "window 2^16",
                                  "preset dictionary",
                                  "too many length or distance symbols",
                                  "too many length or distance symbols",
                                  "invalid literal/lengths set",
                                  "invalid literal/lengths set",
                                  "invalid code -- missing end-of-block",
                                  "invalid bit length repeat",
                                  "invalid code lengths set"};
    for (int c = 0; c < CASES; c++) {
        png_bits idat = {.size = 0};
        static const unsigned char headers[4][2] = {{0x78, 0x9d}, {0x77, 0x09}, {0x88, 0x1c}, {0x78, 0x20}};
        if (c >= HEADER_CHECK && c <= HEADER_DICTIONARY) {
            png_bits_put_bytes(&idat, headers[c - HEADER_CHECK], 2);
            put_fixed_block(&idat, true);
        } else {
            png_bits_put_zlib_header(&idat);
        }
        if (c <= TOO_FAR_BACK) {
            png_bits_put(&idat, 1, 1);
            png_bits_put(&idat, 1, 2);
            png_bits_put_fixed_symbol(&idat, 0);
            if (c == LITERAL_286 || c == LITERAL_287) {
                png_bits_put_fixed_symbol(&idat, c == LITERAL_286 ? 286 : 287);
            } else {
                png_bits_put_fixed_symbol(&idat, 257); // length 3
                png_bits_put_fixed_distance(&idat, c == DISTANCE_30 ? 30 : c == DISTANCE_31 ? 31 : 1);
            }
            png_bits_put_fixed_symbol(&idat, 256);
        } else if (c == TRUNCATED) {
            put_fixed_block(&idat, true);
            idat.size = 2 + 4; // the zlib header and the first row's literals, no end of block
        } else if (c == BLOCK_TYPE_3) {
            png_bits_put(&idat, 1, 1);
            png_bits_put(&idat, 3, 2);
        } else if (c == STORED_LENGTH) {
            put_stored_block(&idat, true, grey_rows, sizeof grey_rows, true);
        } else if (c == TOO_MANY_LITERALS || c == TOO_MANY_DISTANCES) {
            uint8_t length_code_lengths[19] = {0};
            memset(length_code_lengths, 4, 16);
            png_bits_put(&idat, 1, 1);
            png_bits_put(&idat, 2, 2);
            png_bits_put_dynamic_header(&idat, c == TOO_MANY_LITERALS ? 287 : 257, c == TOO_MANY_LITERALS ? 1 : 31,
                                        length_code_lengths, NULL, 0);
        } else if (c == INCOMPLETE) {
            put_uniform_dynamic_header(&idat, 257, 9, 9); // 257 codes of 9 bits fill 257/512
        } else if (c == OVER_SUBSCRIBED) {
            put_uniform_dynamic_header(&idat, 257, 8, 8); // 257 codes of 8 bits need 257/256
        } else if (c == NO_END_OF_BLOCK) {
            put_uniform_dynamic_header(&idat, 257, 8, 0); // 256 literals fill the code, no 256
        } else if (c == REPEAT_FIRST) {
            uint8_t length_code_lengths[19] = {0};
            memset(length_code_lengths, 4, 15); // 0..14 in four bits, 15 and 16 in five
            length_code_lengths[15] = length_code_lengths[16] = 5;
            const png_length_symbol sequence[1] = {{16, 0}};
            png_bits_put(&idat, 1, 1);
            png_bits_put(&idat, 2, 2);
            png_bits_put_dynamic_header(&idat, 257, 1, length_code_lengths, sequence, 1);
        } else if (c == INCOMPLETE_LENGTH_CODE) {
            uint8_t length_code_lengths[19] = {0};
            memset(length_code_lengths, 5, 16); // 16 codes of 5 bits fill half the code
            png_bits_put(&idat, 1, 1);
            png_bits_put(&idat, 2, 2);
            png_bits_put_dynamic_header(&idat, 257, 1, length_code_lengths, NULL, 0);
        }
        if (c != TRUNCATED)
            png_bits_put_adler32(&idat, png_adler32(grey_rows, sizeof grey_rows));
        unsigned char file[4096 + 100];
        size_t size = png_make(file, DEFLATE_WIDTH, DEFLATE_HEIGHT, 0, &idat, 0, false);
        sr_texture *texture = NULL;
        sr_error err = {0};
        sr_status status = load_bytes("deflate.png", file, size, &texture, &err);
        cr_expect_eq(status, SR_ERROR_PARSE, "case %d (%s): %s", c, phrases[c],
                     status == SR_OK ? "loaded" : err.message);
        cr_expect(status == SR_OK || strstr(err.message, phrases[c]) != NULL, "case %d: the message must say %s: %s", c,
                  phrases[c], err.message);
        sr_texture_destroy(texture);
    }

    // No IDAT chunk at all.
    png_bits empty = {.size = 0};
    unsigned char file[128];
    size_t size = png_make(file, DEFLATE_WIDTH, DEFLATE_HEIGHT, 0, &empty, 0, false);
    size_t idat = 8 + 25; // drop the (empty) IDAT chunk: signature, IHDR, then IEND
    memmove(file + idat, file + idat + 12, size - idat - 12);
    sr_texture *texture = NULL;
    sr_error err = {0};
    cr_assert_eq(load_bytes("no-idat.png", file, size - 12, &texture, &err), SR_ERROR_PARSE);
    cr_assert_not_null(strstr(err.message, "no image data"), "%s", err.message);
}

Test(image, texture_load_refuses_other_formats_stb_decodes)
{
    // Each is a valid file that stb_image decodes (checked first), refused as unsupported with
    // its format named: raster.h lists PNG, JPG, TGA and BMP only.
    static const unsigned char ppm[] = "P6\n2 1\n255\n\x10\x20\x30\x40\x50\x60";
    static const unsigned char pgm[] = "P5\n2 2\n255\n\x10\x20\x30\x40";
    static const unsigned char gif[] = "GIF89a\x01\0\x01\0\x80\0\0\xff\xff\xff\0\0\0!\xf9\x04\x01\0\0\0\0,\0\0\0\0"
                                       "\x01\0\x01\0\0\x02\x02\x44\x01\0;";
    static const unsigned char hdr[] =
        "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 2\n\x80\x80\x80\x81\x40\x40\x40\x81";
    const struct {
        const char *name, *format;
        const unsigned char *bytes;
        size_t size;
        bool stb_decodes;
    } files[] = {
        {"t.ppm", "PPM", ppm, sizeof ppm - 1, true},
        {"t.pgm", "PGM", pgm, sizeof pgm - 1, true},
        {"ascii.ppm", "PPM", (const unsigned char *)"P3\n1 1\n255\n1 2 3\n", 17, false},
        {"t.gif", "GIF", gif, sizeof gif - 1, true},
        {"t.hdr", "HDR", hdr, sizeof hdr - 1, true},
        {"psd.png", "PSD", (const unsigned char *)"8BPS\0\x01", 6, false},
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        int width, height, channels;
        unsigned char *pixels =
            stbi_load_from_memory(files[f].bytes, (int)files[f].size, &width, &height, &channels, 4);
        cr_assert_eq(pixels != NULL, files[f].stb_decodes, "%s: stb_image %s", files[f].name,
                     pixels ? "decodes it" : stbi_failure_reason());
        stbi_image_free(pixels);
        sr_texture *texture;
        sr_error err = {0};
        cr_assert_eq(load_bytes(files[f].name, files[f].bytes, files[f].size, &texture, &err), SR_ERROR_UNSUPPORTED,
                     "%s: %s", files[f].name, err.message);
        cr_assert_not_null(strstr(err.message, files[f].format), "%s: the message must name the format: %s",
                           files[f].name, err.message);
    }

    // Not a regular file: an I/O error, not an attempt to read a folder.
    sr_texture *texture = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_texture_load(temp_dir, &texture, &err), SR_ERROR_IO, "%s", err.message);
    cr_assert_null(texture);
    cr_assert_not_null(strstr(err.message, temp_dir), "%s", err.message);
}

/* A BMP with a BITMAPINFOHEADER: `bits` per pixel, `palette_entries` BGRA entries (B = G = R =
 * 10 * entry + 5 for entry i), rows given top first as one value per pixel (an index, or for
 * 24 bits a packed 0xRRGGBB), stored bottom-up unless `top_down`. Returns the file size. */
static size_t make_bmp(unsigned char *file, int bits, int width, int height, int palette_entries,
                       const unsigned *values, bool top_down)
{
    size_t stride = ((size_t)width * (size_t)bits + 31) / 32 * 4;
    size_t offset = 54 + 4 * (size_t)palette_entries, size = offset + stride * (size_t)height;
    memset(file, 0, size);
    const uint32_t fields[][2] = {{2, (uint32_t)size},
                                  {10, (uint32_t)offset},
                                  {14, 40},
                                  {18, (uint32_t)width},
                                  {22, (uint32_t)(top_down ? -height : height)}};
    file[0] = 'B', file[1] = 'M';
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        for (int b = 0; b < 4; b++)
            file[fields[f][0] + (uint32_t)b] = (unsigned char)(fields[f][1] >> (8 * b));
    file[26] = 1, file[28] = (unsigned char)bits;
    for (int i = 0; i < palette_entries; i++)
        memset(file + 54 + 4 * i, 10 * i + 5, 3);
    for (int y = 0; y < height; y++) {
        unsigned char *row = file + offset + (size_t)(top_down ? y : height - 1 - y) * stride;
        for (int x = 0; x < width; x++) {
            unsigned value = values[y * width + x];
            if (bits == 24)
                row[3 * x] = (unsigned char)value, row[3 * x + 1] = (unsigned char)(value >> 8),
                        row[3 * x + 2] = (unsigned char)(value >> 16);
            else if (bits == 8)
                row[x] = (unsigned char)value;
            else if (bits == 4)
                row[x / 2] |= (unsigned char)(value << (x % 2 ? 0 : 4));
            else
                row[x / 8] |= (unsigned char)(value << (7 - x % 8));
        }
    }
    return size;
}

Test(image, texture_load_bmp_palettes_and_row_order)
{
    enum { WIDTH = 9, HEIGHT = 2 }; // odd widths leave unused index bits at each row's end
    const unsigned indices[WIDTH * HEIGHT] = {0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1};
    unsigned char file[1024];
    const int depths[] = {1, 4, 8};
    for (int d = 0; d < 3; d++) {
        int bits = depths[d];
        // A two-entry palette: every index is 0 or 1. The texels are the palette colours.
        size_t size = make_bmp(file, bits, WIDTH, HEIGHT, 2, indices, false);
        if (bits == 4)
            file[54 + 8 + WIDTH / 2] |= 0x0f; // the unused low nibble of a row's last byte is ignored
        sr_texture *texture;
        sr_error err = {0};
        cr_assert_eq(load_bytes("palette.bmp", file, size, &texture, &err), SR_OK, "%d bits: %s", bits, err.message);
        cr_assert(texture->width == WIDTH && texture->height == HEIGHT);
        for (int i = 0; i < WIDTH * HEIGHT; i++) {
            unsigned grey = 10 * indices[i] + 5;
            cr_assert_eq(texture->texels[i], pack(grey, grey, grey, 255), "%d bits: texel %d", bits, i);
        }
        sr_texture_destroy(texture);

        // One index past the two entries: stb_image would read its uninitialised palette array.
        unsigned bad[WIDTH * HEIGHT];
        memcpy(bad, indices, sizeof bad);
        bad[WIDTH + 4] = bits == 1 ? 1 : 2;
        size = make_bmp(file, bits, WIDTH, HEIGHT, bits == 1 ? 1 : 2, bad, false);
        cr_assert_eq(load_bytes("palette.bmp", file, size, &texture, &err), SR_ERROR_PARSE, "%d bits: %s", bits,
                     err.message);
        cr_assert_not_null(strstr(err.message, "palette"), "%s", err.message);
    }

    // Negative height: rows stored top first (it used to be refused as a size over the limit).
    const unsigned colours[2 * 3] = {0x102030, 0x405060, 0x708090, 0xa0b0c0, 0xd0e0f0, 0x0a0b0c};
    for (int top_down = 0; top_down < 2; top_down++) {
        size_t size = make_bmp(file, 24, 2, 3, 0, colours, top_down);
        sr_texture *texture;
        sr_error err = {0};
        cr_assert_eq(load_bytes("rows.bmp", file, size, &texture, &err), SR_OK, "top-down %d: %s", top_down,
                     err.message);
        cr_assert(texture->width == 2 && texture->height == 3);
        for (int i = 0; i < 6; i++)
            cr_assert_eq(texture->texels[i], pack(colours[i] >> 16, colours[i] >> 8 & 0xff, colours[i] & 0xff, 255),
                         "top-down %d: texel %d", top_down, i);
        sr_texture_destroy(texture);
    }
}

/* CRC-32 of PNG chunks (ISO 3309, as the PNG specification gives it), bit by bit. */
static uint32_t crc32_of(const unsigned char *bytes, size_t size)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < size; i++) {
        crc ^= bytes[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
    }
    return crc ^ 0xffffffffu;
}

static size_t put_be32(unsigned char *p, uint32_t value)
{
    for (int b = 0; b < 4; b++)
        p[b] = (unsigned char)(value >> (24 - 8 * b));
    return 4;
}

static size_t put_chunk(unsigned char *p, const char *type, const unsigned char *data, uint32_t length)
{
    put_be32(p, length);
    memcpy(p + 4, type, 4);
    if (length)
        memcpy(p + 8, data, length);
    put_be32(p + 8 + length, crc32_of(p + 4, 4 + (size_t)length));
    return 12 + (size_t)length;
}

Test(image, texture_load_png_palette_shorter_than_indices)
{
    // An indexed PNG, 4x1 at 8 bits, with a two-entry palette (red, green) and a tRNS alpha for
    // the first; the indices are 0, 1, 2 and 200. Entries the palette does not hold come out
    // opaque black (stb_image would take them from its uninitialised stack).
    unsigned char png[256], *p = png;
    memcpy(p, "\x89PNG\r\n\x1a\n", 8);
    p += 8;
    const unsigned char header[13] = {0, 0, 0, 4, 0, 0, 0, 1, 8, 3, 0, 0, 0};
    p += put_chunk(p, "IHDR", header, 13);
    const unsigned char palette[6] = {255, 0, 0, 0, 255, 0}, alpha[1] = {128};
    p += put_chunk(p, "PLTE", palette, 6);
    p += put_chunk(p, "tRNS", alpha, 1);
    // zlib (RFC 1950) holding one stored deflate block (RFC 1951 3.2.4): filter byte 0, indices.
    const unsigned char row[5] = {0, 0, 1, 2, 200};
    unsigned char zlib[2 + 5 + 5 + 4] = {0x78, 0x01, 0x01, 5, 0, 0xfa, 0xff};
    memcpy(zlib + 7, row, 5);
    uint32_t a = 1, b = 0; // Adler-32
    for (int i = 0; i < 5; i++)
        a = (a + row[i]) % 65521u, b = (b + a) % 65521u;
    put_be32(zlib + 12, b << 16 | a);
    p += put_chunk(p, "IDAT", zlib, sizeof zlib);
    p += put_chunk(p, "IEND", NULL, 0);

    sr_texture *texture;
    sr_error err = {0};
    cr_assert_eq(load_bytes("indexed.png", png, (size_t)(p - png), &texture, &err), SR_OK, "%s", err.message);
    cr_assert(texture->width == 4 && texture->height == 1);
    const uint32_t expected[4] = {pack(255, 0, 0, 128), pack(0, 255, 0, 255), pack(0, 0, 0, 255), pack(0, 0, 0, 255)};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(texture->texels[i], expected[i], "texel %d is %08x", i, texture->texels[i]);
    sr_texture_destroy(texture);
}

/* Offset of the first segment with `marker` in a JPEG (walking the segments from SOI), or 0. */
static size_t find_jpeg_segment(const unsigned char *bytes, size_t size, unsigned marker)
{
    for (size_t offset = 2; offset + 4 <= size && bytes[offset] == 0xff;
         offset += 2 + (size_t)(bytes[offset + 2] << 8 | bytes[offset + 3])) {
        if (bytes[offset + 1] == marker)
            return offset;
        if (bytes[offset + 1] == 0xda)
            break;
    }
    return 0;
}

Test(image, texture_load_jpeg_structure)
{
    enum { WIDTH = 16, HEIGHT = 8 };
    unsigned char rgb[WIDTH * HEIGHT * 3];
    for (int i = 0; i < WIDTH * HEIGHT; i++)
        for (int c = 0; c < 3; c++)
            rgb[i * 3 + c] = smooth(i % WIDTH, i / WIDTH, c);
    memory_file file = {0};
    cr_assert(stbi_write_jpg_to_func(append_to_memory, &file, WIDTH, HEIGHT, 3, rgb, 90));
    size_t sos = find_jpeg_segment(file.bytes, file.size, 0xda), dht = find_jpeg_segment(file.bytes, file.size, 0xc4);
    cr_assert(sos > 0 && dht > 0 && dht < sos, "the writer's layout changed");
    cr_assert_eq(file.bytes[sos + 4], 3, "one interleaved scan of three components expected");
    sr_texture *reference;
    sr_error err = {0};
    cr_assert_eq(load_bytes("t.jpg", file.bytes, file.size, &reference, &err), SR_OK, "%s", err.message);

    // Bytes after EOI are ignored (as by every decoder): same texels.
    memory_file changed = file;
    memcpy(changed.bytes + changed.size, "trailing", 8);
    changed.size += 8;
    sr_texture *texture;
    cr_assert_eq(load_bytes("trailing.jpg", changed.bytes, changed.size, &texture, &err), SR_OK, "%s", err.message);
    cr_assert_eq(memcmp(texture->texels, reference->texels, sizeof(uint32_t) * WIDTH * HEIGHT), 0);
    sr_texture_destroy(texture);
    sr_texture_destroy(reference);

    // The headers, then EOI: no scan at all, stb_image would return its uninitialised buffers.
    changed = file;
    memcpy(changed.bytes + sos, "\xff\xd9", 2);
    changed.size = sos + 2;
    cr_assert_eq(load_bytes("noscan.jpg", changed.bytes, changed.size, &texture, &err), SR_ERROR_PARSE);
    cr_assert_not_null(strstr(err.message, "no scan"), "%s", err.message);

    // The scan names component 1 only: components 2 and 3 would never be written.
    changed = file;
    changed.bytes[sos + 3] = 8; // segment length 6 + 2 * 1
    changed.bytes[sos + 4] = 1;
    memmove(changed.bytes + sos + 7, changed.bytes + sos + 11, file.size - sos - 11);
    changed.size -= 4;
    cr_assert_eq(load_bytes("onecomponent.jpg", changed.bytes, changed.size, &texture, &err), SR_ERROR_PARSE);
    cr_assert_not_null(strstr(err.message, "component 2"), "%s", err.message);

    // Without the Huffman tables (no DHT segment) the scan cannot be decoded defined.
    changed = file;
    size_t dht_size = 2 + (size_t)(file.bytes[dht + 2] << 8 | file.bytes[dht + 3]);
    memmove(changed.bytes + dht, changed.bytes + dht + dht_size, file.size - dht - dht_size);
    changed.size -= dht_size;
    cr_assert_eq(load_bytes("nohuffman.jpg", changed.bytes, changed.size, &texture, &err), SR_ERROR_PARSE);
    cr_assert_not_null(strstr(err.message, "Huffman"), "%s", err.message);
}

/* ---- Textures: sampling ------------------------------------------------------------------------ */

enum { TEX_W = 5, TEX_H = 3 };

static sr_texture *make_sample_texture(void)
{
    uint32_t texels[TEX_W * TEX_H];
    for (int j = 0; j < TEX_H; j++)
        for (int i = 0; i < TEX_W; i++)
            texels[j * TEX_W + i] = pack((unsigned)(i * 50 + 5), (unsigned)(j * 100 + 20), (unsigned)(i * j * 17 + 1),
                                         (unsigned)(255 - i * 13 - j * 40));
    sr_texture *texture = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_texture_create(&(sr_texture_desc){TEX_W, TEX_H, texels}, &texture, &err), SR_OK);
    return texture;
}

static double texel_channel(const sr_texture *texture, int i, int j, int c)
{
    return byte_of(texture->texels[j * texture->width + i], c) / 255.0;
}

/* Reference texel index along one axis, in integer arithmetic: Euclidean modulo or clamp. */
static int reference_index(long long i, int size, sr_wrap wrap)
{
    if (wrap == SR_WRAP_CLAMP)
        return i < 0 ? 0 : i >= size ? size - 1 : (int)i;
    return (int)(((i % size) + size) % size);
}

/* Reference sampler in double precision, written from the convention in raster.h (centre of
 * texel i at (i + 0.5) / size) without the library's reduction to [0, 1]. */
static void reference_sample(const sr_texture *texture, sr_sampler sampler, double u, double v, double out[4])
{
    double x = u * texture->width, y = v * texture->height;
    if (sampler.filter == SR_FILTER_NEAREST) {
        int i = reference_index((long long)floor(x), texture->width, sampler.wrap_u);
        int j = reference_index((long long)floor(y), texture->height, sampler.wrap_v);
        for (int c = 0; c < 4; c++)
            out[c] = texel_channel(texture, i, j, c);
        return;
    }
    double fx = floor(x - 0.5), fy = floor(y - 0.5);
    double ax = x - 0.5 - fx, ay = y - 0.5 - fy;
    int i0 = reference_index((long long)fx, texture->width, sampler.wrap_u);
    int i1 = reference_index((long long)fx + 1, texture->width, sampler.wrap_u);
    int j0 = reference_index((long long)fy, texture->height, sampler.wrap_v);
    int j1 = reference_index((long long)fy + 1, texture->height, sampler.wrap_v);
    for (int c = 0; c < 4; c++)
        out[c] = (1 - ax) * (1 - ay) * texel_channel(texture, i0, j0, c) +
                 ax * (1 - ay) * texel_channel(texture, i1, j0, c) + (1 - ax) * ay * texel_channel(texture, i0, j1, c) +
                 ax * ay * texel_channel(texture, i1, j1, c);
}

static void assert_sample(const sr_texture *texture, sr_sampler sampler, float u, float v, const double expected[4],
                          const char *context)
{
    float actual[4];
    sr_texture_sample(texture, &sampler, u, v, actual);
    for (int c = 0; c < 4; c++)
        cr_assert(fabs(actual[c] - expected[c]) < 1e-5, "%s at (%g, %g), channel %d: %g, expected %g", context,
                  (double)u, (double)v, c, (double)actual[c], expected[c]);
}

static void assert_sample_texel(const sr_texture *texture, sr_sampler sampler, float u, float v, int i, int j,
                                const char *context)
{
    double expected[4];
    for (int c = 0; c < 4; c++)
        expected[c] = texel_channel(texture, i, j, c);
    assert_sample(texture, sampler, u, v, expected, context);
}

Test(image, sample_at_texel_centres_is_exact)
{
    sr_texture *texture = make_sample_texture();
    for (int filter = 0; filter < 2; filter++)
        for (int wrap = 0; wrap < 2; wrap++)
            for (int j = 0; j < TEX_H; j++)
                for (int i = 0; i < TEX_W; i++) {
                    sr_sampler sampler = {(sr_filter)filter, (sr_wrap)wrap, (sr_wrap)wrap};
                    float u = ((float)i + 0.5f) / TEX_W, v = ((float)j + 0.5f) / TEX_H;
                    assert_sample_texel(texture, sampler, u, v, i, j, "texel centre");
                    // Nearest keeps the texel over its whole square (v = 0 is the top row).
                    if (filter == SR_FILTER_NEAREST)
                        assert_sample_texel(texture, sampler, ((float)i + 0.95f) / TEX_W, ((float)j + 0.05f) / TEX_H, i,
                                            j, "inside the texel");
                }
    sr_texture_destroy(texture);
}

Test(image, bilinear_matches_hand_computed_weights)
{
    sr_texture *texture = make_sample_texture();
    sr_sampler bilinear = {SR_FILTER_BILINEAR, SR_WRAP_REPEAT, SR_WRAP_REPEAT};

    // Midway between the centres of texels (1, 0), (2, 0), (1, 1), (2, 1): the plain average.
    double expected[4];
    for (int c = 0; c < 4; c++)
        expected[c] = (texel_channel(texture, 1, 0, c) + texel_channel(texture, 2, 0, c) +
                       texel_channel(texture, 1, 1, c) + texel_channel(texture, 2, 1, c)) /
                      4;
    assert_sample(texture, bilinear, 2.0f / TEX_W, 1.0f / TEX_H, expected, "midpoint");

    // A quarter of the way from texel (3, 1) to (4, 1) and 0.75 of the way down to (3, 2), (4, 2):
    // u = (3.5 + 0.25) / 5, v = (1.5 + 0.75) / 3.
    for (int c = 0; c < 4; c++)
        expected[c] = 0.75 * 0.25 * texel_channel(texture, 3, 1, c) + 0.25 * 0.25 * texel_channel(texture, 4, 1, c) +
                      0.75 * 0.75 * texel_channel(texture, 3, 2, c) + 0.25 * 0.75 * texel_channel(texture, 4, 2, c);
    assert_sample(texture, bilinear, 3.75f / TEX_W, 2.25f / TEX_H, expected, "weighted point");

    // Many points, every wrap mode, against the double-precision reference.
    unsigned seed = 12345;
    for (int n = 0; n < 4000; n++) {
        seed = seed * 1664525u + 1013904223u;
        float u = (float)(seed >> 8) / (float)(1u << 24) * 3.0f - 1.0f;
        seed = seed * 1664525u + 1013904223u;
        float v = (float)(seed >> 8) / (float)(1u << 24) * 3.0f - 1.0f;
        for (int mode = 0; mode < 8; mode++) {
            sr_sampler sampler = {(sr_filter)(mode & 1), (sr_wrap)(mode >> 1 & 1), (sr_wrap)(mode >> 2 & 1)};
            double reference[4];
            reference_sample(texture, sampler, u, v, reference);
            assert_sample(texture, sampler, u, v, reference, "random point");
        }
    }
    sr_texture_destroy(texture);
}

Test(image, wrap_modes_and_extreme_coordinates)
{
    sr_texture *texture = make_sample_texture();
    const sr_sampler nearest_repeat = {SR_FILTER_NEAREST, SR_WRAP_REPEAT, SR_WRAP_REPEAT};
    const sr_sampler nearest_clamp = {SR_FILTER_NEAREST, SR_WRAP_CLAMP, SR_WRAP_CLAMP};
    const sr_sampler bilinear_repeat = {SR_FILTER_BILINEAR, SR_WRAP_REPEAT, SR_WRAP_REPEAT};
    const sr_sampler bilinear_clamp = {SR_FILTER_BILINEAR, SR_WRAP_CLAMP, SR_WRAP_CLAMP};
    const float v_row1 = 1.5f / TEX_H; // centre of row 1

    // u = -0.25: repeat reads u = 0.75 (x = 3.75, texel 3), clamp the first column.
    assert_sample_texel(texture, nearest_repeat, -0.25f, v_row1, 3, 1, "repeat -0.25");
    assert_sample_texel(texture, nearest_clamp, -0.25f, v_row1, 0, 1, "clamp -0.25");
    // u = 1.25: repeat reads u = 0.25 (x = 1.25, texel 1), clamp the last column.
    assert_sample_texel(texture, nearest_repeat, 1.25f, v_row1, 1, 1, "repeat 1.25");
    assert_sample_texel(texture, nearest_clamp, 1.25f, v_row1, 4, 1, "clamp 1.25");
    assert_sample_texel(texture, bilinear_clamp, -0.25f, v_row1, 0, 1, "bilinear clamp -0.25");
    assert_sample_texel(texture, bilinear_clamp, 1.25f, v_row1, 4, 1, "bilinear clamp 1.25");

    double expected[4];
    // Bilinear repeat at u = -0.25 (x = 3.75): texels 3 and 4 weighted 0.75 and 0.25.
    for (int c = 0; c < 4; c++)
        expected[c] = 0.75 * texel_channel(texture, 3, 1, c) + 0.25 * texel_channel(texture, 4, 1, c);
    assert_sample(texture, bilinear_repeat, -0.25f, v_row1, expected, "bilinear repeat -0.25");
    // At the seam u = 0 repeat blends the last and the first column half and half.
    for (int c = 0; c < 4; c++)
        expected[c] = 0.5 * texel_channel(texture, 4, 1, c) + 0.5 * texel_channel(texture, 0, 1, c);
    assert_sample(texture, bilinear_repeat, 0.0f, v_row1, expected, "bilinear repeat seam");
    assert_sample(texture, bilinear_repeat, 1e7f, v_row1, expected, "bilinear repeat 1e7 (an integer)");

    // Large coordinates: 1e7 is an integer (same as 0); 2^20 + 0.25 is exact in float (same as 0.25).
    assert_sample_texel(texture, nearest_repeat, 1e7f, v_row1, 0, 1, "repeat 1e7");
    assert_sample_texel(texture, nearest_repeat, -1e7f, v_row1, 0, 1, "repeat -1e7");
    assert_sample_texel(texture, nearest_repeat, 1048576.25f, v_row1, 1, 1, "repeat 2^20 + 0.25");
    assert_sample_texel(texture, nearest_clamp, 1e7f, v_row1, 4, 1, "clamp 1e7");
    assert_sample_texel(texture, nearest_clamp, -1e7f, v_row1, 0, 1, "clamp -1e7");
    for (int c = 0; c < 4; c++)
        expected[c] = 0.25 * texel_channel(texture, 0, 1, c) + 0.75 * texel_channel(texture, 1, 1, c);
    assert_sample(texture, bilinear_repeat, 1048576.25f, v_row1, expected, "bilinear repeat 2^20 + 0.25");

    // Per-axis wrap: u repeats while v clamps.
    const sr_sampler mixed = {SR_FILTER_NEAREST, SR_WRAP_REPEAT, SR_WRAP_CLAMP};
    assert_sample_texel(texture, mixed, -0.25f, -0.25f, 3, 0, "mixed wrap");
    assert_sample_texel(texture, mixed, 1.25f, 1.25f, 1, 2, "mixed wrap");

    // Non-finite coordinates sample texel (0, 0); the most extreme finite ones stay in range.
    const float specials[] = {NAN, INFINITY, -INFINITY};
    for (int mode = 0; mode < 8; mode++) {
        sr_sampler sampler = {(sr_filter)(mode & 1), (sr_wrap)(mode >> 1 & 1), (sr_wrap)(mode >> 2 & 1)};
        for (int s = 0; s < 3; s++) {
            assert_sample_texel(texture, sampler, specials[s], 0.5f, 0, 0, "non-finite u");
            assert_sample_texel(texture, sampler, 0.5f, specials[s], 0, 0, "non-finite v");
        }
        // The reference cannot take huge values (its indices are integers): there they repeat to
        // 0 (floats that large are integers) or clamp to the edge (as +-1 does).
        const float extremes[] = {FLT_MAX, -FLT_MAX, 1e30f, -1e30f, FLT_MIN, -FLT_MIN, -1e-10f, 0x1.fffffep-1f};
        for (int e = 0; e < 8; e++) {
            double u = extremes[e];
            if (fabs(u) > 1e15)
                u = sampler.wrap_u == SR_WRAP_REPEAT ? 0.0 : u > 0 ? 1.0 : -1.0;
            double reference[4];
            reference_sample(texture, sampler, u, 0.5, reference);
            assert_sample(texture, sampler, extremes[e], 0.5f, reference, "extreme u");
        }
    }
    sr_texture_destroy(texture);
}

Test(image, bilinear_stays_in_unit_range)
{
    // A uniform texture of each byte value samples as that value / 255 everywhere (in particular
    // white as exactly 1, not 1.00000012), with every filter and wrap mode.
    for (unsigned value = 0; value < 256; value++) {
        uint32_t texels[6];
        for (int i = 0; i < 6; i++)
            texels[i] = pack(value, value, value, value);
        sr_texture texture = {3, 2, texels};
        unsigned seed = value + 1;
        for (int n = 0; n < 200; n++) {
            seed = seed * 1664525u + 1013904223u;
            float u = (float)(seed >> 8) / (float)(1u << 24) * 4.0f - 2.0f;
            seed = seed * 1664525u + 1013904223u;
            float v = (float)(seed >> 8) / (float)(1u << 24) * 4.0f - 2.0f;
            sr_sampler sampler = {SR_FILTER_BILINEAR, (sr_wrap)(n & 1), (sr_wrap)(n >> 1 & 1)};
            float rgba[4];
            sr_texture_sample(&texture, &sampler, u, v, rgba);
            for (int c = 0; c < 4; c++)
                cr_assert(rgba[c] <= 1.0f && fabs(rgba[c] - value / 255.0) < 1e-7, "value %u at (%g, %g): %.9g", value,
                          (double)u, (double)v, (double)rgba[c]);
        }
    }
    // Mixed texels: every sample in [0, 1].
    sr_texture *texture = make_sample_texture();
    sr_sampler bilinear = {SR_FILTER_BILINEAR, SR_WRAP_REPEAT, SR_WRAP_REPEAT};
    for (int n = 0; n < 10000; n++) {
        float rgba[4];
        sr_texture_sample(texture, &bilinear, (float)n * 0.0137f, (float)n * 0.0291f, rgba);
        for (int c = 0; c < 4; c++)
            cr_assert(rgba[c] >= 0.0f && rgba[c] <= 1.0f);
    }
    sr_texture_destroy(texture);
}

Test(image, devices_and_pipes_are_written_in_place_not_replaced)
{
    /* A FIFO stands in for a device such as /dev/null: the bytes must go through it and the node
     * must still be a FIFO afterwards (a rename over it would have replaced it by a file). */
    char dir[] = "/tmp/softrast-fifo-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    pid_t reader = fork();
    cr_assert(reader >= 0);
    if (reader == 0) {
        FILE *in = fopen(fifo, "rb");
        char buffer[16] = {0};
        size_t got = in ? fread(buffer, 1, sizeof buffer, in) : 0;
        _exit(got == 5 && memcmp(buffer, "hello", 5) == 0 ? 0 : 1);
    }
    sr_error err = {0};
    cr_assert_eq(sr_file_write_atomic(fifo, "hello", 5, &err), SR_OK, "%s", err.message);
    int status = 0;
    cr_assert_eq(waitpid(reader, &status, 0), reader);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reader did not get the bytes");
    struct stat info;
    cr_assert_eq(stat(fifo, &info), 0);
    cr_assert(S_ISFIFO(info.st_mode), "the FIFO was replaced");
    unlink(fifo);
    cr_assert_eq(rmdir(dir), 0, "something was left beside the FIFO");
}
