/* src/raster/deflate.c — the validating walk of deflate streams (deflate.h): every block is
 * decoded as RFC 1951 describes it, counting the output instead of writing it, and the first
 * thing a strict decoder refuses stops the walk with a reason.
 *
 * Why: Debian's stb_image 2.27 takes the invalid distance symbols 30 and 31 as distance 0 and
 * copies output bytes that were never written, so a corrupt PNG decodes partly from
 * uninitialised heap memory (different texels on every load). Its other leniencies (symbols
 * 286 and 287 as zero-length copies, zeros read past the end of the data, incomplete codes)
 * are deterministic, but a decoder that refuses them all is simpler to trust than a list of
 * what is harmless; libpng (through zlib) refuses the same streams.
 *
 * Huffman codes are decoded through a table of the first FAST_BITS bits, longer codes by the
 * canonical walk of RFC 1951 3.2.2 (codes of each length are consecutive integers). Part of
 * raster; knows nothing of images. */
#include "deflate.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_CODE_BITS 15
#define FAST_BITS 9
#define LITERAL_LENGTH_SYMBOLS 288 /* 286 valid ones + 2 the fixed code assigns */
#define DISTANCE_SYMBOLS 32        /* 30 valid ones + 2 the fixed code assigns */
#define CODE_LENGTH_SYMBOLS 19
#define END_OF_BLOCK 256

/* ---- bits ---- */

/* Bits are read from the least significant end of each byte (RFC 1951 3.1.1). */
typedef struct bit_reader {
    const unsigned char *data;
    size_t size, position; /* position: the next byte to buffer */
    uint64_t bits;         /* buffered bits, the next one lowest */
    int count;             /* number of buffered bits */
} bit_reader;

static void refill(bit_reader *r)
{
    while (r->count <= 56 && r->position < r->size) {
        r->bits |= (uint64_t)r->data[r->position++] << r->count;
        r->count += 8;
    }
}

/* The offset of the byte holding the next unread bit, for messages. */
static size_t reader_offset(const bit_reader *r)
{
    return r->position - (size_t)(r->count / 8) - (r->count % 8 != 0);
}

/* Reads n <= 16 bits; false if the data ends first. */
static bool read_bits(bit_reader *r, int n, uint32_t *value)
{
    if (r->count < n)
        refill(r);
    if (r->count < n)
        return false;
    *value = (uint32_t)(r->bits & ((1u << n) - 1u));
    r->bits >>= n;
    r->count -= n;
    return true;
}

/* ---- Huffman codes ---- */

typedef struct huffman {
    uint16_t count[MAX_CODE_BITS + 1];        /* codes of each length */
    uint16_t symbols[LITERAL_LENGTH_SYMBOLS]; /* in code order: by length, then by symbol */
    /* the next FAST_BITS bits (as read) -> length << 9 | symbol, 0 where the code is longer
     * (or unassigned) */
    uint16_t fast[1u << FAST_BITS];
} huffman;

typedef enum code_kind { CODE_LENGTHS, CODE_LITERALS, CODE_DISTANCES } code_kind;

/* Builds the canonical code of `lengths` (RFC 1951 3.2.2). Refuses over-subscribed lengths and
 * incomplete ones, except (as zlib does) a literal/length or distance code with a single code
 * of one bit, and a code without any symbol, which fails when a symbol is decoded. */
static bool huffman_build(huffman *h, const uint8_t *lengths, int n, code_kind kind)
{
    memset(h->count, 0, sizeof h->count);
    for (int i = 0; i < n; i++)
        h->count[lengths[i]]++;
    int total = n - h->count[0];
    h->count[0] = 0;
    int left = 1; /* codes still available at the current length */
    for (int length = 1; length <= MAX_CODE_BITS; length++) {
        left = 2 * left - h->count[length];
        if (left < 0)
            return false; /* over-subscribed */
    }
    if (left > 0 && total > 0 && !(kind != CODE_LENGTHS && total == 1 && h->count[1] == 1))
        return false; /* incomplete */
    uint16_t offsets[MAX_CODE_BITS + 2];
    offsets[1] = 0;
    for (int length = 1; length <= MAX_CODE_BITS; length++)
        offsets[length + 1] = (uint16_t)(offsets[length] + h->count[length]);
    for (int i = 0; i < n; i++)
        if (lengths[i] != 0)
            h->symbols[offsets[lengths[i]]++] = (uint16_t)i;
    /* The fast table: each code of up to FAST_BITS bits, reversed (codes are sent from their
     * most significant bit), fills every entry whose low bits it is. */
    memset(h->fast, 0, sizeof h->fast);
    uint32_t code = 0;
    int index = 0;
    for (int length = 1; length <= FAST_BITS; length++, code <<= 1) {
        for (int k = 0; k < h->count[length]; k++, code++, index++) {
            uint32_t reversed = 0;
            for (int bit = 0; bit < length; bit++)
                reversed |= (code >> bit & 1u) << (length - 1 - bit);
            for (uint32_t entry = reversed; entry < (1u << FAST_BITS); entry += 1u << length)
                h->fast[entry] = (uint16_t)(length << 9 | h->symbols[index]);
        }
    }
    return true;
}

typedef enum decode_result { DECODED, DECODE_TRUNCATED, DECODE_INVALID } decode_result;

static decode_result huffman_decode(bit_reader *r, const huffman *h, int *symbol)
{
    if (r->count < MAX_CODE_BITS)
        refill(r);
    const uint32_t peek = (uint32_t)r->bits; /* missing bits read as zeros: checked below */
    const uint16_t entry = h->fast[peek & ((1u << FAST_BITS) - 1u)];
    if (entry != 0) {
        const int length = entry >> 9;
        if (length > r->count)
            return DECODE_TRUNCATED;
        r->bits >>= length;
        r->count -= length;
        *symbol = entry & 511;
        return DECODED;
    }
    /* Canonical walk: `first` is the first code of the current length, `index` the position of
     * its symbol in h->symbols. */
    int code = 0, first = 0, index = 0;
    for (int length = 1; length <= MAX_CODE_BITS; length++) {
        if (length > r->count)
            return DECODE_TRUNCATED;
        code |= (int)(peek >> (length - 1) & 1u);
        const int count = h->count[length];
        if (code - first < count) {
            r->bits >>= length;
            r->count -= length;
            *symbol = h->symbols[index + code - first];
            return DECODED;
        }
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    return DECODE_INVALID;
}

/* ---- the stream ---- */

typedef struct walk {
    bit_reader reader;
    size_t produced; /* output bytes so far (only counted) */
    char *reason;
    size_t reason_size;
} walk;

static bool fail(walk *w, const char *what)
{
    snprintf(w->reason, w->reason_size, "%s (deflate data byte %zu)", what, reader_offset(&w->reader));
    return false;
}

static bool truncated(walk *w)
{
    snprintf(w->reason, w->reason_size, "ends inside a deflate block (%zu bytes)", w->reader.size);
    return false;
}

/* Base and extra bits of length symbols 257 + i and distance symbols i (RFC 1951 3.2.5): the
 * extra bits grow by one every four (lengths, from the ninth) or two (distances, from the
 * fifth) symbols, and each base follows the last value of the previous symbol; symbol 285 is
 * the length 258 alone. */
static int length_extra_bits(int i)
{
    return i < 8 || i == 28 ? 0 : (i - 4) / 4;
}

static int distance_extra_bits(int i)
{
    return i < 4 ? 0 : (i - 2) / 2;
}

static bool decode_block(walk *w, const huffman *literals, const huffman *distances)
{
    int length_base[29], distance_base[30];
    length_base[0] = 3;
    for (int i = 1; i < 29; i++)
        length_base[i] = length_base[i - 1] + (1 << length_extra_bits(i - 1));
    length_base[28] = 258;
    distance_base[0] = 1;
    for (int i = 1; i < 30; i++)
        distance_base[i] = distance_base[i - 1] + (1 << distance_extra_bits(i - 1));

    for (;;) {
        int symbol;
        decode_result result = huffman_decode(&w->reader, literals, &symbol);
        if (result == DECODE_TRUNCATED)
            return truncated(w);
        if (result == DECODE_INVALID)
            return fail(w, "holds a literal/length code its table does not define");
        if (symbol < END_OF_BLOCK) {
            w->produced++;
            continue;
        }
        if (symbol == END_OF_BLOCK)
            return true;
        if (symbol > 285)
            return fail(w, symbol == 286 ? "uses the invalid literal/length symbol 286"
                                         : "uses the invalid literal/length symbol 287");
        uint32_t extra;
        const int length_index = symbol - 257;
        if (!read_bits(&w->reader, length_extra_bits(length_index), &extra))
            return truncated(w);
        const size_t length = (size_t)length_base[length_index] + extra;
        result = huffman_decode(&w->reader, distances, &symbol);
        if (result == DECODE_TRUNCATED)
            return truncated(w);
        if (result == DECODE_INVALID)
            return fail(w, "holds a distance code its table does not define");
        if (symbol >= 30)
            return fail(w,
                        symbol == 30 ? "uses the invalid distance symbol 30" : "uses the invalid distance symbol 31");
        if (!read_bits(&w->reader, distance_extra_bits(symbol), &extra))
            return truncated(w);
        const size_t distance = (size_t)distance_base[symbol] + extra;
        if (distance > w->produced)
            return fail(w, "copies from before the start of the data (distance too far back)");
        w->produced += length;
    }
}

static bool fixed_block(walk *w)
{
    /* RFC 1951 3.2.6 */
    uint8_t lengths[LITERAL_LENGTH_SYMBOLS + DISTANCE_SYMBOLS];
    for (int i = 0; i < LITERAL_LENGTH_SYMBOLS; i++)
        lengths[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    memset(lengths + LITERAL_LENGTH_SYMBOLS, 5, DISTANCE_SYMBOLS);
    huffman literals, distances;
    huffman_build(&literals, lengths, LITERAL_LENGTH_SYMBOLS, CODE_LITERALS);
    huffman_build(&distances, lengths + LITERAL_LENGTH_SYMBOLS, DISTANCE_SYMBOLS, CODE_DISTANCES);
    return decode_block(w, &literals, &distances);
}

static bool dynamic_block(walk *w)
{
    /* RFC 1951 3.2.7 */
    uint32_t literal_count, distance_count, length_code_count;
    if (!read_bits(&w->reader, 5, &literal_count) || !read_bits(&w->reader, 5, &distance_count) ||
        !read_bits(&w->reader, 4, &length_code_count))
        return truncated(w);
    literal_count += 257;
    distance_count += 1;
    length_code_count += 4;
    if (literal_count > 286)
        return fail(w, "declares more than 286 literal/length codes");
    if (distance_count > 30)
        return fail(w, "declares more than 30 distance codes");
    static const uint8_t order[CODE_LENGTH_SYMBOLS] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                       11, 4,  12, 3, 13, 2, 14, 1, 15};
    uint8_t code_lengths[CODE_LENGTH_SYMBOLS] = {0};
    for (uint32_t i = 0; i < length_code_count; i++) {
        uint32_t length;
        if (!read_bits(&w->reader, 3, &length))
            return truncated(w);
        code_lengths[order[i]] = (uint8_t)length;
    }
    huffman length_code;
    if (!huffman_build(&length_code, code_lengths, CODE_LENGTH_SYMBOLS, CODE_LENGTHS))
        return fail(w, "has an over-subscribed or incomplete code-length code");

    uint8_t lengths[286 + 30];
    const uint32_t total = literal_count + distance_count;
    for (uint32_t n = 0; n < total;) {
        int symbol;
        decode_result result = huffman_decode(&w->reader, &length_code, &symbol);
        if (result == DECODE_TRUNCATED)
            return truncated(w);
        if (result == DECODE_INVALID)
            return fail(w, "holds a code-length code its table does not define");
        if (symbol < 16) {
            lengths[n++] = (uint8_t)symbol;
            continue;
        }
        /* 16: the previous length 3-6 times; 17: zero 3-10 times; 18: zero 11-138 times */
        uint32_t repeat;
        const int extra_bits = symbol == 16 ? 2 : symbol == 17 ? 3 : 7;
        if (!read_bits(&w->reader, extra_bits, &repeat))
            return truncated(w);
        repeat += symbol == 18 ? 11 : 3;
        if (symbol == 16 && n == 0)
            return fail(w, "repeats a code length before the first one");
        if (repeat > total - n)
            return fail(w, "repeats code lengths past the declared codes");
        const uint8_t value = symbol == 16 ? lengths[n - 1] : 0;
        memset(lengths + n, value, repeat);
        n += repeat;
    }
    if (lengths[END_OF_BLOCK] == 0)
        return fail(w, "has no end-of-block code");
    huffman literals, distances;
    if (!huffman_build(&literals, lengths, (int)literal_count, CODE_LITERALS))
        return fail(w, "has an over-subscribed or incomplete literal/length code");
    if (!huffman_build(&distances, lengths + literal_count, (int)distance_count, CODE_DISTANCES))
        return fail(w, "has an over-subscribed or incomplete distance code");
    return decode_block(w, &literals, &distances);
}

static bool stored_block(walk *w)
{
    /* RFC 1951 3.2.4: skip to a byte boundary, LEN and its complement NLEN, LEN bytes */
    bit_reader *r = &w->reader;
    r->bits >>= r->count % 8;
    r->count -= r->count % 8;
    uint32_t length, complement;
    if (!read_bits(r, 16, &length) || !read_bits(r, 16, &complement))
        return truncated(w);
    if ((length ^ 0xffffu) != complement)
        return fail(w, "has a stored block whose length check fails");
    w->produced += length;
    const uint32_t buffered = (uint32_t)r->count / 8;
    if (length < buffered) {
        r->bits >>= 8 * length;
        r->count -= (int)(8 * length);
        return true;
    }
    length -= buffered;
    r->bits = 0;
    r->count = 0;
    if (r->size - r->position < length)
        return truncated(w);
    r->position += length;
    return true;
}

bool sr_raster_deflate_check(const unsigned char *data, size_t size, bool zlib_header, char *reason, size_t reason_size)
{
    walk w = {.reader = {.data = data, .size = size}, .reason = reason, .reason_size = reason_size};
    if (zlib_header) {
        /* RFC 1950 2.2: CMF (method, window), FLG (check bits, preset dictionary, level) */
        if (size < 2) {
            snprintf(reason, reason_size, "is too short for a zlib header (%zu bytes)", size);
            return false;
        }
        const unsigned method = data[0] & 15u, window = data[0] >> 4;
        if (method != 8 || window > 7 || ((unsigned)data[0] << 8 | data[1]) % 31 != 0 || (data[1] & 32u) != 0) {
            snprintf(reason, reason_size,
                     "has an invalid zlib header (bytes %02x %02x: method %u, window 2^%u, check %s, %s)", data[0],
                     data[1], method, window + 8, ((unsigned)data[0] << 8 | data[1]) % 31 == 0 ? "ok" : "wrong",
                     data[1] & 32u ? "preset dictionary" : "no preset dictionary");
            return false;
        }
        w.reader.position = 2;
    }
    for (bool final = false; !final;) {
        uint32_t last, type;
        if (!read_bits(&w.reader, 1, &last) || !read_bits(&w.reader, 2, &type))
            return truncated(&w);
        final = last != 0;
        bool valid = type == 0   ? stored_block(&w)
                     : type == 1 ? fixed_block(&w)
                     : type == 2 ? dynamic_block(&w)
                                 : fail(&w, "has a block of the reserved type 3");
        if (!valid)
            return false;
    }
    return true;
}
