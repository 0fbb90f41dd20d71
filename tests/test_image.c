/* test_image.c — framebuffer storage, image files and textures of src/raster/ (framebuffer.c,
 * image.c, texture.c). Files are checked by decoding them independently (stb_image, SDL_LoadBMP,
 * raw bytes), samples against a double-precision reference written here. Every test works in a
 * fresh mkdtemp folder removed afterwards (the suite's init and fini, here). This file: BMP, PNG
 * and raw files, failed saves, framebuffer storage; the program test_image also holds
 * test_image_texture.c (texture creation, loading, sampling) and test_image_decode.c (files stb_image
 * must not decode as they are); their helpers are in image_test_helpers.h. */
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

#include "image_test_helpers.h"

char temp_dir[256];

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
