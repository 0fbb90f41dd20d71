/* tests/test_image_decode.c — texture files that stb_image would decode from memory it
 * never wrote, or decodes although the formats raster.h lists do not include them: PNG image data
 * checked by zlib's inflate (src/raster/deflate.c), other formats refused, BMP and PNG palettes,
 * JPEG structure (part of the program test_image; helpers: image_test_helpers.h). */
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
