/* tests/test_image_texture.c — textures of src/raster/texture.c: creation, loading, files
 * refused before decoding, and sampling against a double-precision reference (part of the program
 * test_image; helpers: image_test_helpers.h). */
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
