/* tests/png_builder.h — hand-made PNG files for the tests of sr_texture_load's checks
 * (tests/test_image.c, tests/test_fuzz.c): a bit writer for deflate streams (RFC 1951), the
 * codes of the fixed Huffman block, and a PNG container (ISO 15948) around one IDAT chunk, with
 * real CRCs. Written from the specifications; header-only, static functions, test code. */
#ifndef SR_TESTS_PNG_BUILDER_H
#define SR_TESTS_PNG_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/// A deflate stream being written: bits fill each byte from its least significant end.
typedef struct png_bits {
    unsigned char bytes[4096];
    size_t size; /* bytes begun */
    int used;    /* bits used in the last byte, 0..7 (0: none begun) */
} png_bits;

/// `count` bits of `value`, least significant first (header fields, extra bits).
static inline void png_bits_put(png_bits *b, uint32_t value, int count)
{
    for (int i = 0; i < count; i++) {
        if (b->used == 0)
            b->bytes[b->size++] = 0;
        b->bytes[b->size - 1] |= (unsigned char)((value >> i & 1u) << b->used);
        b->used = (b->used + 1) % 8;
    }
}

/// A Huffman code of `length` bits, most significant bit first (RFC 1951 3.1.1).
static inline void png_bits_put_code(png_bits *b, uint32_t code, int length)
{
    for (int i = length - 1; i >= 0; i--)
        png_bits_put(b, code >> i & 1u, 1);
}

/// Whole bytes after the bits written so far (stored-block data, the Adler-32 trailer).
static inline void png_bits_put_bytes(png_bits *b, const void *bytes, size_t count)
{
    b->used = 0;
    memcpy(b->bytes + b->size, bytes, count);
    b->size += count;
}

/// Literal/length symbol 0..287 in the fixed code (RFC 1951 3.2.6).
static inline void png_bits_put_fixed_symbol(png_bits *b, int symbol)
{
    if (symbol < 144)
        png_bits_put_code(b, 0x30u + (uint32_t)symbol, 8);
    else if (symbol < 256)
        png_bits_put_code(b, 0x190u + (uint32_t)(symbol - 144), 9);
    else if (symbol < 280)
        png_bits_put_code(b, (uint32_t)(symbol - 256), 7);
    else
        png_bits_put_code(b, 0xc0u + (uint32_t)(symbol - 280), 8);
}

/// Distance symbol 0..31 in the fixed code: five bits, its own value.
static inline void png_bits_put_fixed_distance(png_bits *b, int symbol)
{
    png_bits_put_code(b, (uint32_t)symbol, 5);
}

/// Canonical Huffman codes of `lengths` (RFC 1951 3.2.2): codes of one length are consecutive
/// in symbol order, each length's first code follows the last code of the previous length.
static inline void png_canonical_codes(const uint8_t *lengths, int n, uint32_t *codes)
{
    uint32_t next = 0;
    for (int length = 1; length <= 15; length++) {
        for (int symbol = 0; symbol < n; symbol++)
            if (lengths[symbol] == length)
                codes[symbol] = next++;
        next <<= 1;
    }
}

/// One symbol of a dynamic block's code-length sequence and the value of its extra bits
/// (16: 2 bits, 17: 3 bits, 18: 7 bits; none for 0..15).
typedef struct png_length_symbol {
    int symbol;
    uint32_t extra;
} png_length_symbol;

/// The header of a dynamic block after BFINAL/BTYPE (RFC 1951 3.2.7): `literal_count` - 257,
/// `distance_count` - 1, all 19 code-length code lengths (3 bits each, in the RFC's order),
/// then `sequence` written with that code. The counts are written as given, valid or not.
static inline void png_bits_put_dynamic_header(png_bits *b, int literal_count, int distance_count,
                                               const uint8_t length_code_lengths[19], const png_length_symbol *sequence,
                                               int sequence_count)
{
    static const int order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    png_bits_put(b, (uint32_t)(literal_count - 257), 5);
    png_bits_put(b, (uint32_t)(distance_count - 1), 5);
    png_bits_put(b, 19 - 4, 4);
    for (int i = 0; i < 19; i++)
        png_bits_put(b, length_code_lengths[order[i]], 3);
    uint32_t codes[19] = {0};
    png_canonical_codes(length_code_lengths, 19, codes);
    for (int i = 0; i < sequence_count; i++) {
        const int symbol = sequence[i].symbol;
        png_bits_put_code(b, codes[symbol], length_code_lengths[symbol]);
        if (symbol >= 16)
            png_bits_put(b, sequence[i].extra, symbol == 16 ? 2 : symbol == 17 ? 3 : 7);
    }
}

/// The zlib header of a 32 KiB window, default level (RFC 1950: 0x78 0x9c passes the check).
static inline void png_bits_put_zlib_header(png_bits *b)
{
    png_bits_put(b, 0x78, 8);
    png_bits_put(b, 0x9c, 8);
}

/// Adler-32 of `size` bytes (RFC 1950 8.2).
static inline uint32_t png_adler32(const unsigned char *data, size_t size)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < size; i++) {
        a = (a + data[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return b << 16 | a;
}

/// The big-endian Adler-32 trailer of the zlib stream.
static inline void png_bits_put_adler32(png_bits *b, uint32_t adler)
{
    const unsigned char bytes[4] = {(unsigned char)(adler >> 24), (unsigned char)(adler >> 16),
                                    (unsigned char)(adler >> 8), (unsigned char)adler};
    png_bits_put_bytes(b, bytes, 4);
}

static inline uint32_t png_crc32(const unsigned char *data, size_t size)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < size; i++) {
        crc ^= data[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1u ? crc >> 1 ^ 0xedb88320u : crc >> 1; /* ISO 15948 annex D */
    }
    return crc ^ 0xffffffffu;
}

static inline void png_put32(unsigned char *p, uint32_t value)
{
    p[0] = (unsigned char)(value >> 24), p[1] = (unsigned char)(value >> 16);
    p[2] = (unsigned char)(value >> 8), p[3] = (unsigned char)value;
}

/* Appends a chunk at `*size`. */
static inline void png_put_chunk(unsigned char *file, size_t *size, const char type[4], const void *data, size_t length)
{
    unsigned char *chunk = file + *size;
    png_put32(chunk, (uint32_t)length);
    memcpy(chunk + 4, type, 4);
    if (length > 0)
        memcpy(chunk + 8, data, length);
    png_put32(chunk + 8 + length, png_crc32(chunk + 4, 4 + length));
    *size += 12 + length;
}

/// A PNG of `width` x `height` pixels, 8 bits per sample, colour type 0 (grey) or 6 (RGBA),
/// whose IDAT data is `idat` (the zlib stream): one chunk, or two split at byte `split` with a
/// tEXt chunk between them when 0 < split < idat->size. `apple`: Apple's CgBI chunk first
/// (whose image data is a raw deflate stream, without the zlib header). Returns its size;
/// `file` needs idat->size + 100 bytes.
static inline size_t png_make(unsigned char *file, int width, int height, int colour_type, const png_bits *idat,
                              size_t split, bool apple)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(file, signature, 8);
    size_t size = 8;
    if (apple)
        png_put_chunk(file, &size, "CgBI", "\x50\x00\x20\x02", 4);
    unsigned char header[13] = {0};
    png_put32(header, (uint32_t)width);
    png_put32(header + 4, (uint32_t)height);
    header[8] = 8;
    header[9] = (unsigned char)colour_type;
    png_put_chunk(file, &size, "IHDR", header, sizeof header);
    if (split > 0 && split < idat->size) {
        png_put_chunk(file, &size, "IDAT", idat->bytes, split);
        png_put_chunk(file, &size, "tEXt", "Comment\0between", 15);
        png_put_chunk(file, &size, "IDAT", idat->bytes + split, idat->size - split);
    } else {
        png_put_chunk(file, &size, "IDAT", idat->bytes, idat->size);
    }
    png_put_chunk(file, &size, "IEND", NULL, 0);
    return size;
}

#endif
