/* tests/fuzz/fuzz_texture.c — fuzz target of textures (src/raster/texture.c): creation from
 * raw texels, loading image files through stb_image, and sampling with raw sampler values and
 * raw coordinates (NaN, infinities, huge values).
 *
 * raster.h has no in-memory loader, so the "file" mode writes the bytes to a temporary file
 * once per input and loads it with sr_texture_load. A loaded texture must have the size and
 * exactly the pixels stb_image decodes from the same bytes, for every format (sr_texture_load
 * refuses the files stb 2.27 would decode from uninitialised memory, so both decodes are
 * defined: palette entries an indexed PNG lacks are opaque black in the texture, and PNG image
 * data that a strict inflate refuses, such as the invalid distance symbols 30 and 31 that stb
 * copies never-written bytes for, is refused). A size over SR_MAX_IMAGE_SIDE must be refused
 * before decoding. Samples must be finite and in [0, 1]; nearest sampling must return one of
 * the texels exactly (texel (0, 0) for NaN coordinates), bilinear a value between the smallest
 * and largest texel of each channel. Inputs starting with FUZZ_ALLOCATION_FAILURE_MARK run with
 * failing allocations. Knows nothing of the driver that calls it. */
#include "fuzz_targets.h"

#include <softrast/raster.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stb_image.h>
#include <stb_image_write.h>

/* Images declaring more pixels than this are not decoded by the target: the size is valid (up
 * to SR_MAX_IMAGE_SIDE squared), but stb_image would allocate and fill up to 1 GiB for a few
 * bytes of header, which makes an iteration take seconds. */
#define LARGEST_DECODED_PIXELS (512 * 512)

/* Writes the bytes to a fresh temporary file; returns false (and skips the input) if the
 * system cannot, which is no fault of the library. */
static bool write_temporary(const uint8_t *data, size_t size, char path[64])
{
    const char *folder = getenv("TMPDIR");
    if (!folder || strlen(folder) > 32)
        folder = "/tmp";
    snprintf(path, 64, "%s/softrast-fuzz-XXXXXX", folder);
    int fd = mkstemp(path);
    if (fd < 0)
        return false;
    size_t done = 0;
    while (done < size) {
        ssize_t written = write(fd, data + done, size - done);
        if (written <= 0) {
            close(fd);
            unlink(path);
            return false;
        }
        done += (size_t)written;
    }
    close(fd);
    return true;
}

/* Whether the bytes are an indexed PNG (colour type 3 in an IHDR that comes first, which
 * sr_texture_load requires of a PNG it accepts). */
static bool is_indexed_png(const uint8_t *data, size_t size)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    return size > 25 && memcmp(data, signature, 8) == 0 && memcmp(data + 12, "IHDR", 4) == 0 && data[25] == 3;
}

static sr_texture *load_from_bytes(const uint8_t *data, size_t size)
{
    int width = 0, height = 0, channels = 0;
    bool known = size <= 0x7fffffff && stbi_info_from_memory(data, (int)size, &width, &height, &channels);
    bool too_large = known && (width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE);
    if (known && !too_large && (size_t)width * (size_t)height > LARGEST_DECODED_PIXELS)
        return NULL;
    char path[64];
    if (!write_temporary(data, size, path))
        return NULL;
    sr_texture sentinel = {0};
    sr_texture *texture = &sentinel; /* must be overwritten */
    sr_error err = {0};
    sr_status status = sr_texture_load(path, &texture, &err);
    unlink(path);
    if (status != SR_OK) {
        FUZZ_CHECK(texture == NULL, "failed load left *out set");
        FUZZ_CHECK(status == SR_ERROR_PARSE || status == SR_ERROR_UNSUPPORTED ||
                       (status == SR_ERROR_OUT_OF_MEMORY && fuzz_allocation_failed()),
                   "unexpected status %s: %s", sr_status_name(status), err.message);
        FUZZ_CHECK(err.message[0] != '\0', "error without a message");
        return NULL;
    }
    FUZZ_CHECK(!too_large, "a %dx%d image was loaded, over the %d limit", width, height, SR_MAX_IMAGE_SIDE);
    FUZZ_CHECK(texture && texture->texels, "SR_OK without texels");
    FUZZ_CHECK(texture->width >= 1 && texture->height >= 1 && texture->width <= SR_MAX_IMAGE_SIDE &&
                   texture->height <= SR_MAX_IMAGE_SIDE,
               "loaded texture is %dx%d", texture->width, texture->height);
    /* The same bytes through stb_image directly: the texture must hold exactly those pixels. */
    int ref_width = 0, ref_height = 0, ref_channels = 0;
    unsigned char *pixels = stbi_load_from_memory(data, (int)size, &ref_width, &ref_height, &ref_channels, 4);
    FUZZ_CHECK(pixels != NULL, "sr_texture_load accepted a file stb_image refuses: %s", stbi_failure_reason());
    FUZZ_CHECK(ref_width == texture->width && ref_height == texture->height, "loaded %dx%d, stb_image says %dx%d",
               texture->width, texture->height, ref_width, ref_height);
    /* An indexed PNG whose palette lacks entries its pixels use: sr_texture_load completes the
     * palette with opaque black, stb_image reads its own uninitialised stack there. */
    bool indexed = is_indexed_png(data, size);
    static const uint8_t opaque_black[4] = {0, 0, 0, 255};
    for (size_t i = 0; i < (size_t)ref_width * (size_t)ref_height; i++) {
        uint32_t expected;
        memcpy(&expected, pixels + 4 * i, sizeof expected);
        FUZZ_CHECK(texture->texels[i] == expected || (indexed && memcmp(&texture->texels[i], opaque_black, 4) == 0),
                   "texel %zu is %08x, stb_image decodes %08x", i, texture->texels[i], expected);
    }
    stbi_image_free(pixels);
    return texture;
}

static sr_texture *create_from_bytes(fuzz_reader *r)
{
    uint8_t width_code = fuzz_read_u8(r), height_code = fuzz_read_u8(r);
    int width = width_code == 0      ? 0
                : width_code == 0xff ? SR_MAX_IMAGE_SIDE + 1
                : width_code == 0xfe ? -5
                                     : 1 + width_code % 8;
    int height = height_code == 0 ? 0 : height_code == 0xff ? SR_MAX_IMAGE_SIDE + 1 : 1 + height_code % 8;
    bool valid = width >= 1 && height >= 1 && width <= SR_MAX_IMAGE_SIDE && height <= SR_MAX_IMAGE_SIDE;
    bool zeroed = fuzz_read_u8(r) % 4 == 0;
    uint32_t texels[64];
    for (int i = 0; i < 64; i++)
        texels[i] = i < (valid ? width * height : 0) && !zeroed ? fuzz_read_u32(r) : 0;
    sr_texture *texture = NULL;
    sr_error err = {0};
    sr_status status = sr_texture_create(&(sr_texture_desc){width, height, zeroed ? NULL : texels}, &texture, &err);
    if (!valid) {
        FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT && !texture, "texture %dx%d gave %s", width, height,
                   sr_status_name(status));
        return NULL;
    }
    if (status == SR_ERROR_OUT_OF_MEMORY && fuzz_allocation_failed()) {
        FUZZ_CHECK(!texture, "a texture that ran out of memory was returned");
        return NULL;
    }
    FUZZ_CHECK(status == SR_OK && texture, "texture %dx%d failed: %s", width, height, err.message);
    FUZZ_CHECK(texture->width == width && texture->height == height, "created %dx%d, asked %dx%d", texture->width,
               texture->height, width, height);
    FUZZ_CHECK(memcmp(texture->texels, texels, (size_t)(width * height) * sizeof *texels) == 0,
               "created texels differ from the given ones");
    return texture;
}

static void check_sample(const sr_texture *texture, const sr_sampler *sampler, float u, float v)
{
    float rgba[4] = {NAN, NAN, NAN, NAN};
    sr_texture_sample(texture, sampler, u, v, rgba);
    for (int c = 0; c < 4; c++)
        FUZZ_CHECK(rgba[c] >= 0.0f && rgba[c] <= 1.0f, "sample at (%g, %g) channel %d is %.9g", (double)u, (double)v, c,
                   (double)rgba[c]);
    size_t count = (size_t)texture->width * (size_t)texture->height;
    if (count > 4096)
        return; /* the exhaustive comparisons below are for small textures */
    /* raster.h does not say what out-of-range sampler values mean: only the range is checked */
    if (sampler && ((unsigned)sampler->filter > SR_FILTER_BILINEAR || (unsigned)sampler->wrap_u > SR_WRAP_CLAMP ||
                    (unsigned)sampler->wrap_v > SR_WRAP_CLAMP))
        return;
    bool nearest = !sampler || sampler->filter == SR_FILTER_NEAREST;
    bool has_nan = isnan(u) || isnan(v);
    if (!has_nan && (isinf(u) || isinf(v)))
        return; /* raster.h promises nothing but the range for infinite coordinates */
    if (has_nan || nearest) {
        /* nearest: exactly one texel; NaN coordinates: texel (0, 0) (raster.h) */
        size_t end = has_nan ? 1 : count;
        bool found = false;
        for (size_t i = 0; i < end && !found; i++) {
            uint32_t t = texture->texels[i];
            found = true;
            for (int c = 0; c < 4; c++)
                found = found && fabsf(rgba[c] - (float)(t >> (8 * c) & 0xffu) / 255.0f) <= 1e-6f;
        }
        FUZZ_CHECK(found, "nearest sample at (%g, %g) = (%g %g %g %g) is not %s", (double)u, (double)v, (double)rgba[0],
                   (double)rgba[1], (double)rgba[2], (double)rgba[3],
                   has_nan ? "texel (0, 0)" : "a texel of the texture");
        return;
    }
    for (int c = 0; c < 4; c++) {
        unsigned low = 255, high = 0;
        for (size_t i = 0; i < count; i++) {
            unsigned value = texture->texels[i] >> (8 * c) & 0xffu;
            low = value < low ? value : low;
            high = value > high ? value : high;
        }
        FUZZ_CHECK(rgba[c] >= (float)low / 255.0f - 1e-6f && rgba[c] <= (float)high / 255.0f + 1e-6f,
                   "bilinear sample at (%g, %g) channel %d is %g outside the texels' [%u, %u] / 255", (double)u,
                   (double)v, c, (double)rgba[c], low, high);
    }
}

static void run_input(const uint8_t *data, size_t size);

int fuzz_texture_test_one_input(const uint8_t *data, size_t size)
{
    fuzz_reader prefix = fuzz_reader_make(data, size);
    fuzz_allocation_failures_begin(&prefix);
    run_input(data ? data + prefix.offset : data, size - prefix.offset);
    fuzz_allocation_failures_end();
    return 0;
}

static void run_input(const uint8_t *data, size_t size)
{
    fuzz_reader r = fuzz_reader_make(data, size);
    uint8_t mode = fuzz_read_u8(&r);
    sr_texture *texture = NULL;
    if (mode % 2 == 1) {
        /* file mode: byte 1 is the number of samples, the rest is the image file */
        uint8_t samples = fuzz_read_u8(&r);
        texture = load_from_bytes(data + r.offset, size - r.offset);
        if (!texture)
            return;
        /* samples come from a reader over the file bytes, so both vary together */
        fuzz_reader coordinates = fuzz_reader_make(data, size);
        for (int i = 0; i < samples % 16; i++) {
            sr_sampler sampler = {(sr_filter)fuzz_read_enum(&coordinates, 2), (sr_wrap)fuzz_read_enum(&coordinates, 2),
                                  (sr_wrap)fuzz_read_enum(&coordinates, 2)};
            check_sample(texture, &sampler, fuzz_read_float(&coordinates), fuzz_read_float(&coordinates));
        }
        sr_texture_destroy(texture);
        return;
    }
    texture = create_from_bytes(&r);
    /* NULL texture and NULL sampler are documented as safe: transparent black / defaults */
    float rgba[4];
    sr_texture_sample(NULL, NULL, fuzz_read_float(&r), 0.5f, rgba);
    FUZZ_CHECK(rgba[0] == 0.0f && rgba[1] == 0.0f && rgba[2] == 0.0f && rgba[3] == 0.0f,
               "sampling no texture is not transparent black");
    if (!texture)
        return;
    while (!fuzz_reader_done(&r)) {
        uint8_t which = fuzz_read_u8(&r);
        sr_sampler sampler = {(sr_filter)fuzz_read_enum(&r, 2), (sr_wrap)fuzz_read_enum(&r, 2),
                              (sr_wrap)fuzz_read_enum(&r, 2)};
        float u = fuzz_read_float(&r), v = fuzz_read_float(&r);
        check_sample(texture, which % 8 == 0 ? NULL : &sampler, u, v);
    }
    sr_texture_destroy(texture);
    return;
}

/* ------------------------------------------------------------------------------------------ */
/* Seeds: small images in every format sr_texture_load names, written in code                  */

typedef struct byte_buffer {
    uint8_t bytes[4096];
    size_t size;
} byte_buffer;

static void append(void *context, void *data, int size)
{
    byte_buffer *buffer = context;
    size_t count = (size_t)size;
    if (count > sizeof buffer->bytes - buffer->size)
        count = sizeof buffer->bytes - buffer->size;
    memcpy(buffer->bytes + buffer->size, data, count);
    buffer->size += count;
}

static void add_seeds(fuzz_corpus *corpus)
{
    /* 4x3 RGBA image with varied alpha */
    uint8_t pixels[4 * 3 * 4];
    for (int i = 0; i < 4 * 3 * 4; i++)
        pixels[i] = (uint8_t)(i * 37 + 11);
    for (int format = 0; format < 5; format++) {
        byte_buffer buffer = {.size = 2};
        buffer.bytes[0] = 1;  /* file mode */
        buffer.bytes[1] = 12; /* 12 samples */
        switch (format) {
        case 0:
            stbi_write_png_to_func(append, &buffer, 4, 3, 4, pixels, 16);
            break;
        case 1:
            stbi_write_bmp_to_func(append, &buffer, 4, 3, 3, pixels);
            break;
        case 2:
            stbi_write_tga_to_func(append, &buffer, 4, 3, 4, pixels);
            break;
        case 3:
            stbi_write_jpg_to_func(append, &buffer, 4, 3, 3, pixels, 90);
            break;
        default:
            stbi_write_png_to_func(append, &buffer, 2, 2, 1, pixels, 2);
            break; /* grey */
        }
        fuzz_corpus_add(corpus, buffer.bytes, buffer.size);
    }
    /* A binary PPM whose header declares a side over the limit: must be refused, not decoded. */
    const char large[] = "\x01\x04P6\n16385 1\n255\n\x10\x20\x30";
    fuzz_corpus_add(corpus, large, sizeof large - 1);
    /* Created textures: 3x2 texels, then samples with raw floats. */
    uint8_t created[] = {
        0,    2,    1,    1, /* mode, width 3, height 2, not zeroed */
        0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0x10, 0x20, 0x30, 0x40,
        0x80, 0x80, 0x80, 0x80, 0x01, 0x02, 0x03, 0x04, 0xfe, 0xfd, 0xfc, 0xfb, /* 6 texels */
        2,    0,                                                                /* NULL-texture probe: u = 0 */
        1,    1,    1,    0,    2,    6,    2,    8,                      /* bilinear clamp/repeat, u NaN, v +inf */
        1,    0,    0,    0,    1,    16,   3,    0x80, 0x00,             /* nearest repeat, u 0.5, v 0.5 */
        1,    1,    1,    1,    2,    10,   2,    12,                     /* bilinear clamp, u FLT_MAX, v FLT_MIN */
        0,    0,    0,    0,    0,    0x00, 0x00, 0x80, 0x4b, 1,    0xc0, /* NULL sampler, u 2^24, v -2 */
    };
    fuzz_corpus_add(corpus, created, sizeof created);
    /* both again with allocation failures after 0 and 1 allocations */
    const size_t created_index = corpus->count - 1;
    fuzz_corpus_add_failing(corpus, 0, 2);
    fuzz_corpus_add_failing(corpus, created_index, 2);
}

const fuzz_target fuzz_target_texture = {
    .name = "texture",
    .test_one_input = fuzz_texture_test_one_input,
    .add_seeds = add_seeds,
    .tokens = NULL,
    .token_count = 0,
    .max_size = 4096,
};
