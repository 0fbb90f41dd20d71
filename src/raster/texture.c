/* texture.c — RGBA8 textures: creation, loading through stb_image, and sampling with nearest or
 * bilinear filtering and repeat/clamp wrapping (softrast/raster.h).
 * Knows nothing of shaders or scenes: a shader calls sr_texture_sample per fragment. */
#include <softrast/raster.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

// Debian's libstb already holds the implementation: include the declarations only (STYLE.md).
#include <stb_image.h>

#include "deflate.h"

sr_status sr_texture_create(const sr_texture_desc *desc, sr_texture **out, sr_error *err)
{
    if (out)
        *out = NULL;
    if (!desc || !out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_texture_create: %s is NULL", !desc ? "desc" : "out");
    int width = desc->width, height = desc->height;
    if (width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "texture size %dx%d: each side must be in [1, %d]", width,
                            height, SR_MAX_IMAGE_SIDE);

    size_t count = (size_t)width * (size_t)height;
    sr_texture *texture = sr_alloc(sizeof *texture);
    uint32_t *texels = desc->texels ? sr_alloc_array(count, sizeof *texels) : sr_calloc(count, sizeof *texels);
    if (!texture || !texels) {
        sr_free(texture);
        sr_free(texels);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "texture %dx%d: out of memory", width, height);
    }
    if (desc->texels)
        memcpy(texels, desc->texels, count * sizeof *texels);
    *texture = (sr_texture){width, height, texels};
    *out = texture;
    return SR_OK;
}

/* ---- Loading: the file is read into memory, its format identified and its structure checked
 * before stb_image decodes it ------------------------------------------------------------------
 *
 * Why the checks: Debian's stb_image 2.27 trusts a file's structure. Its TGA (and PNM) loaders
 * ignore short reads and return texels that were never written; its BMP loader reads palette
 * entries the file does not hold from an uninitialised stack array; its PNG loader reserves
 * memory for a chunk length before reading the chunk (a 113-byte file can make it allocate
 * 1.58 GB) and expands palette indices past the PLTE entries from uninitialised stack memory;
 * its JPEG loader decodes components that no scan covers, and Huffman or quantisation tables
 * that no segment defined, from uninitialised heap memory. The checks below refuse (or, for
 * the PNG palette, make defined) every such case found by reading stb_image 2.27 and by
 * fuzzing, so that an accepted file decodes to the same texels every time. Its inflate also
 * takes the invalid deflate distance symbols 30 and 31 (RFC 1951 3.2.6) as distance 0 and
 * copies bytes of its output buffer that were never written, so a PNG whose image data uses
 * them decoded partly from uninitialised heap memory: the PNG's deflate stream is inflated by
 * zlib first (deflate.c), which refuses that and every other invalid stream.
 *
 * What remains: a JPEG's damaged Huffman data that stb_image decodes without error cannot be
 * detected without a second decoder; stb then reads zeros past the end of the data it was
 * given, so the texels are wrong but deterministic. */

/* Files over 1 GiB are refused before reading: the largest texture (SR_MAX_IMAGE_SIDE squared
 * RGBA8 texels) is 1 GiB, stbi_load_from_memory takes an int length, and reading a file of
 * arbitrary size into memory would let any path exhaust it. */
#define LARGEST_FILE_BYTES ((size_t)1 << 30)
/* Spare bytes after the file contents: room to complete a PNG palette to 256 RGB entries. */
#define SPARE_BYTES (256 * 3)

/* The formats stb_image 2.27 decodes, in the order its loader tries them (stbi__load_main). */
typedef enum image_format {
    FORMAT_UNKNOWN = 0,
    FORMAT_PNG,
    FORMAT_BMP,
    FORMAT_GIF,
    FORMAT_PSD,
    FORMAT_PIC,
    FORMAT_JPEG,
    FORMAT_PNM,
    FORMAT_HDR,
    FORMAT_TGA,
} image_format;

static const char *format_name(image_format format)
{
    switch (format) {
    case FORMAT_PNG:
        return "PNG";
    case FORMAT_BMP:
        return "BMP";
    case FORMAT_GIF:
        return "GIF";
    case FORMAT_PSD:
        return "PSD (Photoshop)";
    case FORMAT_PIC:
        return "PIC (Softimage)";
    case FORMAT_JPEG:
        return "JPEG";
    case FORMAT_PNM:
        return "PNM (PPM/PGM/PBM)";
    case FORMAT_HDR:
        return "HDR (Radiance)";
    case FORMAT_TGA:
        return "TGA";
    default:
        return "unknown";
    }
}

/* Byte `i` of the file, 0 past its end: stb_image's detection reads zeros there too, and the
 * detection below must name the format stb_image would decode. */
static unsigned byte_at(const unsigned char *data, size_t size, size_t i)
{
    return i < size ? data[i] : 0u;
}

static uint32_t le16_at(const unsigned char *data, size_t size, size_t i)
{
    return byte_at(data, size, i) | byte_at(data, size, i + 1) << 8;
}

static uint32_t le32_at(const unsigned char *data, size_t size, size_t i)
{
    return le16_at(data, size, i) | le16_at(data, size, i + 2) << 16;
}

static uint32_t be16(const unsigned char *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool starts_with(const unsigned char *data, size_t size, size_t offset, const char *magic)
{
    size_t length = strlen(magic);
    return size >= offset + length && memcmp(data + offset, magic, length) == 0;
}

/* stb_image's TGA test (stbi__tga_test), which accepts any file whose header fields are in range. */
static bool looks_like_tga(const unsigned char *data, size_t size)
{
    unsigned colour_map_type = byte_at(data, size, 1), image_type = byte_at(data, size, 2);
    unsigned bits = byte_at(data, size, 16);
    if (colour_map_type > 1)
        return false;
    if (colour_map_type == 1) {
        unsigned entry_bits = byte_at(data, size, 7);
        if ((image_type != 1 && image_type != 9) ||
            (entry_bits != 8 && entry_bits != 15 && entry_bits != 16 && entry_bits != 24 && entry_bits != 32) ||
            (bits != 8 && bits != 16))
            return false;
    } else if (image_type != 2 && image_type != 3 && image_type != 10 && image_type != 11) {
        return false;
    }
    return le16_at(data, size, 12) >= 1 && le16_at(data, size, 14) >= 1 &&
           (bits == 8 || bits == 15 || bits == 16 || bits == 24 || bits == 32);
}

/* The format stb_image would decode these bytes as: its tests, in its order. Netpbm files are
 * named whatever their variant ('P1' to 'P7'; stb decodes P5 and P6) so that the refusal says
 * what they are. */
static image_format detect_format(const unsigned char *data, size_t size)
{
    static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size >= 8 && memcmp(data, png_signature, 8) == 0)
        return FORMAT_PNG;
    uint32_t bmp_header_size = le32_at(data, size, 14);
    if (starts_with(data, size, 0, "BM") && (bmp_header_size == 12 || bmp_header_size == 40 || bmp_header_size == 56 ||
                                             bmp_header_size == 108 || bmp_header_size == 124))
        return FORMAT_BMP;
    if (starts_with(data, size, 0, "GIF87a") || starts_with(data, size, 0, "GIF89a"))
        return FORMAT_GIF;
    if (starts_with(data, size, 0, "8BPS"))
        return FORMAT_PSD;
    if (starts_with(data, size, 0, "\x53\x80\xf6\x34") && starts_with(data, size, 88, "PICT"))
        return FORMAT_PIC;
    // JPEG: a marker is 0xff, any number of 0xff fill bytes, then its code (ITU T.81 B.1.1.2).
    size_t i = 0;
    while (byte_at(data, size, i) == 0xff)
        i++;
    if (i > 0 && byte_at(data, size, i) == 0xd8)
        return FORMAT_JPEG;
    if (byte_at(data, size, 0) == 'P' && byte_at(data, size, 1) >= '1' && byte_at(data, size, 1) <= '7')
        return FORMAT_PNM;
    if (starts_with(data, size, 0, "#?RADIANCE\n") || starts_with(data, size, 0, "#?RGBE\n"))
        return FORMAT_HDR;
    if (looks_like_tga(data, size))
        return FORMAT_TGA;
    return FORMAT_UNKNOWN;
}

/* A PNG chunk type for messages: its four letters, anything else as '?'. */
static void chunk_type_text(const unsigned char *type, char text[5])
{
    for (int i = 0; i < 4; i++)
        text[i] = (type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= 'a' && type[i] <= 'z') ? (char)type[i] : '?';
    text[4] = '\0';
}

/* The image data of a PNG whose chunk list check_png has walked: the IDAT chunks' data, joined
 * in file order as stb_image joins them, must be a valid zlib stream (a raw deflate stream in
 * Apple's CgBI files, which stb_image then inflates without the zlib header). */
static sr_status check_png_image_data(const char *path, const unsigned char *data, sr_error *err)
{
    size_t total = 0;
    bool apple = false;
    for (size_t offset = 8; memcmp(data + offset + 4, "IEND", 4) != 0; offset += 12 + (size_t)be32(data + offset)) {
        if (memcmp(data + offset + 4, "IDAT", 4) == 0)
            total += be32(data + offset);
        apple = apple || memcmp(data + offset + 4, "CgBI", 4) == 0;
    }
    if (total == 0)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed PNG: no image data (IDAT chunk) before IEND", path);
    unsigned char *joined = sr_alloc(total);
    if (!joined)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes of PNG image data", path,
                            total);
    size_t at = 0;
    for (size_t offset = 8; memcmp(data + offset + 4, "IEND", 4) != 0; offset += 12 + (size_t)be32(data + offset)) {
        if (memcmp(data + offset + 4, "IDAT", 4) == 0) {
            memcpy(joined + at, data + offset + 8, be32(data + offset));
            at += be32(data + offset);
        }
    }
    char reason[160];
    sr_status status = sr_raster_deflate_check(joined, total, !apple, reason, sizeof reason);
    sr_free(joined);
    if (status == SR_ERROR_PARSE)
        return sr_error_set(err, status, "%s: malformed PNG: the image data (IDAT) %s", path, reason);
    if (status != SR_OK)
        return sr_error_set(err, status, "%s: the PNG's image data (IDAT) %s", path, reason);
    return SR_OK;
}

/* PNG (ISO 15948): the chunk list must hold IHDR first (after Apple's CgBI chunk, which
 * stb_image understands) and IEND, and every chunk must fit in the file, and the image data
 * must be a valid zlib stream (check_png_image_data). An indexed image
 * whose PLTE holds fewer entries than its bit depth can address gets the missing entries as
 * opaque black, written into the buffer (SPARE_BYTES of room after `*size`): stb_image expands
 * such indices from its own uninitialised stack array, and an index no entry covers is an
 * error the compressed data hides. stb_image does not check chunk CRCs, so the grown PLTE
 * keeps its old one. */
static sr_status check_png(const char *path, unsigned char *data, size_t *size, sr_error *err)
{
    size_t offset = 8, palette_offset = 0;
    unsigned depth = 0, colour_type = 0;
    bool header_seen = false;
    for (int index = 0;; index++) {
        if (*size - offset < 12)
            return sr_error_set(err, SR_ERROR_PARSE,
                                "%s: truncated PNG: the file ends at byte %zu, before an IEND chunk", path, *size);
        uint32_t length = be32(data + offset);
        const unsigned char *type = data + offset + 4;
        char name[5];
        chunk_type_text(type, name);
        if (length > *size - offset - 12)
            return sr_error_set(err, SR_ERROR_PARSE,
                                "%s: truncated PNG: chunk %s at byte %zu declares %u bytes of data, the file holds %zu "
                                "after its header",
                                path, name, offset, length, *size - offset - 12);
        bool is_header = memcmp(type, "IHDR", 4) == 0;
        if (!header_seen && !is_header && !(index == 0 && memcmp(type, "CgBI", 4) == 0))
            return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed PNG: chunk %s at byte %zu comes before IHDR", path,
                                name, offset);
        if (is_header && !header_seen) {
            if (length != 13)
                return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed PNG: IHDR holds %u bytes, not 13", path,
                                    length);
            depth = data[offset + 16];
            colour_type = data[offset + 17];
            header_seen = true;
        } else if (memcmp(type, "PLTE", 4) == 0 && palette_offset == 0) {
            palette_offset = offset;
        } else if (memcmp(type, "IEND", 4) == 0) {
            break;
        }
        offset += 12 + (size_t)length;
    }
    sr_status status = check_png_image_data(path, data, err);
    if (status != SR_OK)
        return status;

    // Colour type 3 is indexed; stb_image itself refuses palettes of other sizes or depths.
    if (colour_type != 3 || palette_offset == 0 || (depth != 1 && depth != 2 && depth != 4 && depth != 8))
        return SR_OK;
    uint32_t palette_bytes = be32(data + palette_offset);
    uint32_t needed_bytes = 3u << depth;
    if (palette_bytes % 3 != 0 || palette_bytes >= needed_bytes)
        return SR_OK;
    size_t extra = needed_bytes - palette_bytes; // <= SPARE_BYTES: depth <= 8
    size_t end = palette_offset + 8 + palette_bytes;
    memmove(data + end + extra, data + end, *size - end);
    memset(data + end, 0, extra);
    data[palette_offset] = (unsigned char)(needed_bytes >> 24);
    data[palette_offset + 1] = (unsigned char)(needed_bytes >> 16);
    data[palette_offset + 2] = (unsigned char)(needed_bytes >> 8);
    data[palette_offset + 3] = (unsigned char)needed_bytes;
    *size += extra;
    return SR_OK;
}

/* BMP (uncompressed, as stb_image reads it in stbi__bmp_load): the rows, each padded to four
 * bytes, must fit after the pixel data offset; for 1, 4 and 8 bits per pixel every index must
 * address an entry of the palette stb_image reads, whose size it derives from the offset. */
static sr_status check_bmp(const char *path, const unsigned char *data, size_t size, int width, int height,
                           sr_error *err)
{
    uint32_t offset = le32_at(data, size, 10), header_size = le32_at(data, size, 14);
    bool os2 = header_size == 12; // BITMAPCOREHEADER: 16-bit sizes, no compression field
    unsigned bits = os2 ? le16_at(data, size, 24) : le16_at(data, size, 28);
    uint32_t compression = os2 ? 0 : le32_at(data, size, 30);
    size_t header_end = 14 + (size_t)header_size + (!os2 && header_size < 108 && compression == 3 ? 12 : 0);
    if (size < header_end)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: truncated BMP: %zu bytes, the header needs %zu", path, size,
                            header_end);
    if (compression != 0 && compression != 3)
        return sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: BMP compression %u is not supported (uncompressed only)",
                            path, compression);
    if (bits != 1 && bits != 4 && bits != 8 && bits != 16 && bits != 24 && bits != 32)
        return sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: BMP with %u bits per pixel is not supported", path, bits);
    if (offset < header_end || offset > size)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed BMP: pixel data offset %u outside [%zu, %zu]", path,
                            offset, header_end, size);

    uint64_t row_bytes = ((uint64_t)width * bits + 7) / 8;
    uint64_t stride = (row_bytes + 3) / 4 * 4;
    uint64_t needed = (uint64_t)offset + stride * (uint64_t)height;
    if (needed > size)
        return sr_error_set(err, SR_ERROR_PARSE,
                            "%s: truncated BMP: %dx%d pixels at %u bits need %llu bytes, the file holds %zu", path,
                            width, height, bits, (unsigned long long)needed, size);
    if (bits > 8)
        return SR_OK;

    // stbi__bmp_load's palette size: the bytes between the header and the pixels, in 4-byte
    // entries (3-byte ones for OS/2, computed as stb does, from 24 header bytes instead of 12).
    int64_t palette_entries = os2 ? ((int64_t)offset - 38) / 3 : ((int64_t)offset - 14 - header_size) / 4;
    if (palette_entries < 1 || palette_entries > 256)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed BMP: %u bits per pixel with a palette of %lld entries",
                            path, bits, (long long)palette_entries);
    if (palette_entries >= 1 << bits)
        return SR_OK;
    for (int y = 0; y < height; y++) {
        const unsigned char *row = data + offset + (size_t)y * (size_t)stride;
        for (int x = 0; x < width; x++) {
            unsigned index = bits == 8   ? row[x]
                             : bits == 4 ? (unsigned)(row[x / 2] >> (x % 2 ? 0 : 4)) & 15u
                                         : (unsigned)(row[x / 8] >> (7 - x % 8)) & 1u;
            if (index >= palette_entries)
                return sr_error_set(err, SR_ERROR_PARSE,
                                    "%s: malformed BMP: pixel %d of stored row %d uses palette entry %u, the palette "
                                    "holds %lld",
                                    path, x, y, index, (long long)palette_entries);
        }
    }
    return SR_OK;
}

/* TGA (Truevision TGA 2.0, as stbi__tga_load reads it): after the 18-byte header, the image ID
 * and the colour map (which stb_image reads after skipping "first entry index" bytes), the
 * pixels must all be in the file: width * height of them uncompressed (types 1, 2, 3); for the
 * run-length types (9, 10, 11) the packets are walked, since stb_image would read zeros past
 * the end and return a partly black image as a success. */
static sr_status check_tga(const char *path, const unsigned char *data, size_t size, sr_error *err)
{
    if (size < 18)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: truncated TGA: %zu bytes, the header needs 18", path, size);
    unsigned id_length = data[0], colour_map_type = data[1], image_type = data[2], bits = data[16];
    uint64_t width = le16_at(data, size, 12), height = le16_at(data, size, 14);
    uint64_t start = 18 + (uint64_t)id_length;
    if (colour_map_type == 1)
        start += le16_at(data, size, 3) + (uint64_t)le16_at(data, size, 5) * ((data[7] + 7u) / 8u);
    uint64_t pixel_bytes = (bits + 7u) / 8u, pixels = width * height;
    if (image_type < 8) {
        uint64_t needed = start + pixels * pixel_bytes;
        if (needed > size)
            return sr_error_set(err, SR_ERROR_PARSE,
                                "%s: truncated TGA: %llux%llu pixels at %u bits need %llu bytes, the file holds %zu",
                                path, (unsigned long long)width, (unsigned long long)height, bits,
                                (unsigned long long)needed, size);
        return SR_OK;
    }
    // Each packet: a header byte (bit 7: repeat, bits 0-6: count - 1), then one pixel (repeat)
    // or count pixels (raw). stb_image stops at width * height pixels, even inside a packet.
    uint64_t position = start, done = 0;
    while (done < pixels) {
        if (position >= size)
            return sr_error_set(err, SR_ERROR_PARSE,
                                "%s: truncated TGA: the run-length data ends after %llu of %llu pixels", path,
                                (unsigned long long)done, (unsigned long long)pixels);
        unsigned packet = data[position++];
        uint64_t count = 1 + (packet & 127u);
        if (count > pixels - done)
            count = pixels - done;
        position += (packet & 128u ? 1 : count) * pixel_bytes;
        if (position > size)
            return sr_error_set(err, SR_ERROR_PARSE,
                                "%s: truncated TGA: the run-length data ends inside a packet after %llu of %llu "
                                "pixels",
                                path, (unsigned long long)done, (unsigned long long)pixels);
        done += count;
    }
    return SR_OK;
}

/* JPEG (ITU T.81, baseline and progressive as stb_image decodes them): the segments are walked
 * from SOI to EOI, the entropy-coded data of each scan skipped to the next marker. Refused: a
 * file without EOI (truncated), a scan before the frame header, a scan using a Huffman or
 * quantisation table no segment defined before it, and a frame component no scan decodes
 * (no DC-first scan, for progressive files): stb_image would decode each of those from
 * uninitialised memory. Data after EOI is ignored, as by stb_image. */
static sr_status check_jpeg(const char *path, const unsigned char *data, size_t size, sr_error *err)
{
    enum { MAX_COMPONENTS = 4 }; // stb_image decodes 1, 3 or 4
    unsigned component_ids[MAX_COMPONENTS] = {0}, component_tables[MAX_COMPONENTS] = {0};
    bool decoded[MAX_COMPONENTS] = {false};
    bool dc_tables[4] = {false}, ac_tables[4] = {false}, quantisation_tables[4] = {false};
    int component_count = 0;
    bool progressive = false, scanned = false;

    size_t position = 0;
    while (data[position] == 0xff) // detect_format found SOI after the fill bytes
        position++;
    position++;
    for (;;) {
        if (position >= size || data[position] != 0xff) {
            if (position >= size)
                return sr_error_set(err, SR_ERROR_PARSE, "%s: truncated JPEG: the file ends before its EOI marker",
                                    path);
            return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed JPEG: byte %zu is 0x%02x, a marker was expected",
                                path, position, data[position]);
        }
        while (position < size && data[position] == 0xff)
            position++;
        if (position >= size)
            return sr_error_set(err, SR_ERROR_PARSE, "%s: truncated JPEG: the file ends before its EOI marker", path);
        unsigned marker = data[position++];
        if (marker == 0xd9) // EOI
            break;
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd8))
            return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed JPEG: marker 0x%02x at byte %zu out of place", path,
                                marker, position - 1);
        if (size - position < 2 || be16(data + position) < 2 || be16(data + position) > size - position)
            return sr_error_set(err, SR_ERROR_PARSE, "%s: truncated JPEG: segment 0x%02x at byte %zu does not fit",
                                path, marker, position - 1);
        const unsigned char *segment = data + position + 2;
        size_t length = be16(data + position) - 2;
        position += 2 + length;

        if (marker >= 0xc3 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc)
            return sr_error_set(err, SR_ERROR_UNSUPPORTED,
                                "%s: JPEG coding process SOF%u (lossless, hierarchical or arithmetic) is not supported",
                                path, marker - 0xc0);
        if (marker == 0xc0 || marker == 0xc1 || marker == 0xc2) { // SOF0, SOF1, SOF2
            if (component_count > 0)
                return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed JPEG: a second frame header", path);
            int count = length >= 6 ? segment[5] : 0;
            if (count < 1 || count > MAX_COMPONENTS || length < 6 + 3 * (size_t)count)
                return sr_error_set(err, SR_ERROR_PARSE,
                                    "%s: malformed JPEG: frame header with %d components in %zu bytes", path, count,
                                    length);
            for (int c = 0; c < count; c++) {
                component_ids[c] = segment[6 + 3 * c];
                component_tables[c] = segment[8 + 3 * c] & 3u; // stb_image refuses Tq > 3
            }
            component_count = count;
            progressive = marker == 0xc2;
        } else if (marker == 0xc4) { // DHT: classes and identifiers, 16 code counts, the values
            for (size_t i = 0; i < length;) {
                size_t values = 0;
                for (size_t k = 1; k <= 16 && i + k < length; k++)
                    values += segment[i + k];
                if (length - i < 17 || length - i - 17 < values)
                    return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed JPEG: Huffman table overruns its segment",
                                        path);
                unsigned table_class = segment[i] >> 4, table = segment[i] & 15u;
                if (table_class <= 1 && table <= 3)
                    (table_class ? ac_tables : dc_tables)[table] = true;
                i += 17 + values;
            }
        } else if (marker == 0xdb) { // DQT: precision and identifier, 64 entries of 8 or 16 bits
            for (size_t i = 0; i < length;) {
                size_t entry = 1 + (segment[i] >> 4 ? 128 : 64);
                if (length - i < entry)
                    return sr_error_set(err, SR_ERROR_PARSE,
                                        "%s: malformed JPEG: quantisation table overruns its segment", path);
                if ((segment[i] & 15u) <= 3)
                    quantisation_tables[segment[i] & 15u] = true;
                i += entry;
            }
        } else if (marker == 0xda) { // SOS
            if (component_count == 0)
                return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed JPEG: a scan before the frame header", path);
            size_t count = length >= 1 ? segment[0] : 0;
            if (count < 1 || length < 4 + 2 * count)
                return sr_error_set(err, SR_ERROR_PARSE,
                                    "%s: malformed JPEG: scan header with %zu components in %zu bytes", path, count,
                                    length);
            unsigned spectral_start = segment[1 + 2 * count], approximation_high = segment[3 + 2 * count] >> 4;
            // Progressive scans use the DC table (first DC scan) or the AC table (AC scans) only.
            bool uses_dc = !progressive || (spectral_start == 0 && approximation_high == 0);
            bool uses_ac = !progressive || spectral_start > 0;
            for (size_t s = 0; s < count; s++) {
                unsigned id = segment[1 + 2 * s], dc = segment[2 + 2 * s] >> 4, ac = segment[2 + 2 * s] & 15u;
                int c = 0;
                while (c < component_count && component_ids[c] != id)
                    c++;
                if (c == component_count)
                    return sr_error_set(err, SR_ERROR_PARSE,
                                        "%s: malformed JPEG: a scan names component %u, not in the frame", path, id);
                if ((uses_dc && (dc > 3 || !dc_tables[dc])) || (uses_ac && (ac > 3 || !ac_tables[ac])))
                    return sr_error_set(err, SR_ERROR_PARSE,
                                        "%s: malformed JPEG: a scan of component %u uses an undefined Huffman table",
                                        path, id);
                if (!progressive && !quantisation_tables[component_tables[c]])
                    return sr_error_set(err, SR_ERROR_PARSE,
                                        "%s: malformed JPEG: component %u uses undefined quantisation table %u", path,
                                        id, component_tables[c]);
                // A progressive component is written whole by its first DC scan only.
                decoded[c] = decoded[c] || !progressive || (spectral_start == 0 && approximation_high == 0);
            }
            scanned = true;
            // The entropy-coded data ends at the first marker that is not a stuffed 0xff 0x00 or
            // a restart marker (T.81 B.1.1.5, F.1.2.3).
            while (position < size) {
                if (data[position] != 0xff) {
                    position++;
                } else if (position + 1 < size &&
                           (data[position + 1] == 0 || (data[position + 1] >= 0xd0 && data[position + 1] <= 0xd7))) {
                    position += 2;
                } else if (position + 1 < size && data[position + 1] == 0xff) {
                    position++;
                } else {
                    break;
                }
            }
        }
    }
    if (!scanned)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed JPEG: no scan before EOI", path);
    for (int c = 0; c < component_count; c++) {
        if (!decoded[c])
            return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed JPEG: no scan decodes component %u%s", path,
                                component_ids[c], progressive ? " (no first DC scan)" : "");
        if (!quantisation_tables[component_tables[c]])
            return sr_error_set(err, SR_ERROR_PARSE,
                                "%s: malformed JPEG: component %u uses undefined quantisation table %u", path,
                                component_ids[c], component_tables[c]);
    }
    return SR_OK;
}

/* Reads the whole file into a buffer from the library's allocator, SPARE_BYTES longer than
 * the file (for check_png). */
static sr_status read_file(const char *path, unsigned char **out, size_t *out_size, sr_error *err)
{
    // Opening the file ourselves separates "cannot read" (I/O, errno) from "not an image" (parse).
    FILE *file = fopen(path, "rb");
    if (!file) {
        int code = errno;
        char reason[128]; // strerror_r: plain strerror may share its buffer between threads
        if (strerror_r(code, reason, sizeof reason) != 0)
            snprintf(reason, sizeof reason, "error %d", code);
        return sr_error_set(err, SR_ERROR_IO, "%s: cannot open: %s", path, reason);
    }
    struct stat info;
    sr_status status = SR_OK;
    unsigned char *data = NULL;
    size_t size = 0;
    if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
        status = sr_error_set(err, SR_ERROR_IO, "%s: not a regular file", path);
    } else if ((uintmax_t)info.st_size > LARGEST_FILE_BYTES) {
        status = sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: %jd bytes exceed the %zu-byte limit for image files",
                              path, (intmax_t)info.st_size, LARGEST_FILE_BYTES);
    } else {
        size = (size_t)info.st_size;
        data = sr_alloc(size + SPARE_BYTES);
        if (!data)
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, size);
        else if (fread(data, 1, size, file) != size || getc(file) != EOF)
            status = sr_error_set(err, SR_ERROR_IO, "%s: read failed or the file changed size while read", path);
    }
    fclose(file);
    if (status != SR_OK) {
        sr_free(data);
        return status;
    }
    *out = data;
    *out_size = size;
    return SR_OK;
}

/* stb_image's (thread-local) reason for its last failure, never NULL. */
static const char *failure_reason(void)
{
    const char *reason = stbi_failure_reason();
    return reason ? reason : "unknown reason";
}

/* Checks and decodes the file's bytes (which check_png may complete, within SPARE_BYTES). */
static sr_status load_from_memory(const char *path, unsigned char *data, size_t size, sr_texture **out, sr_error *err)
{
    image_format format = detect_format(data, size);
    if (format == FORMAT_UNKNOWN)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: not a PNG, JPG, TGA or BMP image (%zu bytes)", path, size);
    if (format != FORMAT_PNG && format != FORMAT_JPEG && format != FORMAT_TGA && format != FORMAT_BMP)
        return sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: %s images are not supported (PNG, JPG, TGA and BMP are)",
                            path, format_name(format));

    // The chunk and segment walks first: they need nothing from the header, and name what is
    // wrong better than stbi_info would (a PNG without IHDR is "unknown image type" to it).
    sr_status status = format == FORMAT_PNG    ? check_png(path, data, &size, err)
                       : format == FORMAT_JPEG ? check_jpeg(path, data, size, err)
                                               : SR_OK;
    if (status != SR_OK)
        return status;
    // Then the size alone, so that an absurd one is refused before stb_image allocates for it.
    int width, height, channels;
    if (!stbi_info_from_memory(data, (int)size, &width, &height, &channels))
        return sr_error_set(err, SR_ERROR_PARSE, "%s: not a readable %s image: %s", path, format_name(format),
                            failure_reason());
    // A negative BMP height means rows stored top first; stbi_info passes it on as it is.
    if (format == FORMAT_BMP && height < 0)
        height = height == INT_MIN ? INT_MAX : -height;
    if (width < 1 || height < 1)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: malformed %s image: size %dx%d", path, format_name(format), width,
                            height);
    if (width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: image size %dx%d exceeds the %d pixel limit", path, width,
                            height, SR_MAX_IMAGE_SIDE);
    status = format == FORMAT_BMP   ? check_bmp(path, data, size, width, height, err)
             : format == FORMAT_TGA ? check_tga(path, data, size, err)
                                    : SR_OK;
    if (status != SR_OK)
        return status;

    // 4 channels requested: stb_image converts grey, grey+alpha and RGB to RGBA8 (byte order
    // r, g, b, a, as sr_rgba8), rows top first, as the texture layout wants.
    unsigned char *pixels = stbi_load_from_memory(data, (int)size, &width, &height, &channels, 4);
    if (!pixels)
        return sr_error_set(err, SR_ERROR_PARSE, "%s: cannot decode the %s image: %s", path, format_name(format),
                            failure_reason());
    // Copied so that the texels come from the library's allocator, as sr_texture_destroy expects.
    sr_texture_desc desc = {width, height, (const uint32_t *)(const void *)pixels};
    status = sr_texture_create(&desc, out, err);
    stbi_image_free(pixels);
    return status;
}

sr_status sr_texture_load(const char *path, sr_texture **out, sr_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_texture_load: %s is NULL", !path ? "path" : "out");
    unsigned char *data = NULL;
    size_t size = 0;
    sr_status status = read_file(path, &data, &size, err);
    if (status != SR_OK)
        return status;
    status = load_from_memory(path, data, size, out, err);
    sr_free(data);
    return status;
}

void sr_texture_destroy(sr_texture *texture)
{
    if (!texture)
        return;
    sr_free(texture->texels);
    sr_free(texture);
}

/* Maps a coordinate to [0, 1] per the wrap mode, before any scaling by the texture size, so that
 * huge coordinates never reach an int conversion (floats beyond 2^24 are integers, so they
 * repeat to 0). Clamp saturates, which selects the same texels as clamping indices: beyond the
 * outer texel centres clamp-to-edge filtering sees only the edge texel. */
static float wrap_coordinate(float u, sr_wrap wrap)
{
    if (wrap == SR_WRAP_CLAMP)
        return u < 0.0f ? 0.0f : u > 1.0f ? 1.0f : u;
    // u - floor(u) is exact except for u in (-1, 0), where it may round up to 1.0; the float just
    // below 1 keeps such a u on the last texel, where it belongs.
    float fraction = u - floorf(u);
    return fraction < 1.0f ? fraction : 0x1.fffffep-1f;
}

/* Brings an index in [-1, size] back into [0, size - 1]: one period for repeat, the edge for clamp. */
static int wrap_index(int i, int size, sr_wrap wrap)
{
    if (i < 0)
        return wrap == SR_WRAP_CLAMP ? 0 : i + size;
    if (i >= size)
        return wrap == SR_WRAP_CLAMP ? size - 1 : i - size;
    return i;
}

static void unpack(uint32_t texel, float scale, float rgba[4])
{
    rgba[0] = (float)(texel & 0xffu) * scale;
    rgba[1] = (float)(texel >> 8 & 0xffu) * scale;
    rgba[2] = (float)(texel >> 16 & 0xffu) * scale;
    rgba[3] = (float)(texel >> 24) * scale;
}

void sr_texture_sample(const sr_texture *texture, const sr_sampler *sampler, float u, float v, float rgba[4])
{
    static const sr_sampler default_sampler = {0};
    if (!texture || !texture->texels) {
        rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0.0f; // "skipped safely": transparent black
        return;
    }
    if (!sampler)
        sampler = &default_sampler;
    const int width = texture->width, height = texture->height;
    const uint32_t *texels = texture->texels;
    const float to_unit = 1.0f / 255.0f;

    // Non-finite coordinates (a degenerate triangle's varyings) sample texel (0, 0), the contract.
    if (!isfinite(u) || !isfinite(v)) {
        unpack(texels[0], to_unit, rgba);
        return;
    }
    // Texel (i, j) covers [i, i + 1) x [j, j + 1) in texel space x = u * width, y = v * height:
    // its centre is at (i + 0.5) / width in u (raster.h). After wrapping, x is in [0, width].
    float x = wrap_coordinate(u, sampler->wrap_u) * (float)width;
    float y = wrap_coordinate(v, sampler->wrap_v) * (float)height;

    if (sampler->filter != SR_FILTER_BILINEAR) {
        int i = wrap_index((int)x, width, sampler->wrap_u);
        int j = wrap_index((int)y, height, sampler->wrap_v);
        unpack(texels[(size_t)j * (size_t)width + (size_t)i], to_unit, rgba);
        return;
    }

    // Bilinear: the four texel centres around (x, y) are at i0 + 0.5 and i0 + 1.5 with
    // i0 = floor(x - 0.5); the weights are the distances to the opposite centres. Each of the four
    // indices is wrapped on its own, so repeat blends across the seam and clamp holds the edge.
    float sx = x - 0.5f, sy = y - 0.5f;
    float fx = floorf(sx), fy = floorf(sy);
    float ax = sx - fx, ay = sy - fy; // weights of the second column and row
    int i0 = wrap_index((int)fx, width, sampler->wrap_u), i1 = wrap_index((int)fx + 1, width, sampler->wrap_u);
    int j0 = wrap_index((int)fy, height, sampler->wrap_v), j1 = wrap_index((int)fy + 1, height, sampler->wrap_v);
    const uint32_t *row0 = texels + (size_t)j0 * (size_t)width;
    const uint32_t *row1 = texels + (size_t)j1 * (size_t)width;

    float c00[4], c10[4], c01[4], c11[4];
    unpack(row0[i0], 1.0f, c00);
    unpack(row0[i1], 1.0f, c10);
    unpack(row1[i0], 1.0f, c01);
    unpack(row1[i1], 1.0f, c11);
    // Two nested lerps a + (b - a) * t rather than four weights: the weights' products need not
    // sum to exactly 1, and made a white texture sample as 1.00000012. A lerp between equal
    // bytes returns them exactly (so a uniform area samples exactly as nearest does), and a lerp
    // between bytes stays between them (b - a is exact, the rounding is monotonic). The second
    // lerp's difference of two rounded values may round up by half an ulp, hence the final
    // clamp to 1; nothing is below 0.
    for (int c = 0; c < 4; c++) {
        float top = c00[c] + (c10[c] - c00[c]) * ax;
        float bottom = c01[c] + (c11[c] - c01[c]) * ax;
        float value = (top + (bottom - top) * ay) * to_unit;
        rgba[c] = value < 1.0f ? value : 1.0f;
    }
}
