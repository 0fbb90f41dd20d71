/* src/raster/deflate.c — the check of a PNG's deflate stream (deflate.h) by zlib's own inflate,
 * its output thrown away.
 *
 * Why: Debian's stb_image 2.27 takes the invalid distance symbols 30 and 31 as distance 0 and
 * copies output bytes that were never written, so a corrupt PNG decodes partly from
 * uninitialised heap memory (different texels on every load). Its other leniencies (symbols
 * 286 and 287 as zero-length copies, zeros read past the end of the data, incomplete codes)
 * are deterministic, but a decoder that refuses them all is simpler to trust than a list of
 * what is harmless: zlib's inflate is the decoder libpng uses, and refuses them all.
 *
 * The zlib header (RFC 1950) is checked here, so that its message says which field is wrong;
 * the deflate data after it goes through a raw inflate (no header, no Adler-32 check: stb_image
 * reads neither, and a stream that ends right after its final block decodes the same). zlib
 * allocates through the library's allocator hook (core.h). Part of raster; knows nothing of
 * images. */
#include "deflate.h"

#include <stdint.h>
#include <stdio.h>

#include <zlib.h>

static voidpf zlib_allocate(voidpf opaque, uInt items, uInt size)
{
    (void)opaque;
    return sr_alloc_array(items, size);
}

static void zlib_release(voidpf opaque, voidpf address)
{
    (void)opaque;
    sr_free(address);
}

static sr_status refuse(char *reason, size_t reason_size, const char *what, size_t offset)
{
    snprintf(reason, reason_size, "is refused by zlib's inflate: %s (deflate data byte %zu)", what, offset);
    return SR_ERROR_PARSE;
}

sr_status sr_raster_deflate_check(const unsigned char *data, size_t size, bool zlib_header, char *reason,
                                  size_t reason_size)
{
    size_t start = 0;
    if (zlib_header) {
        /* RFC 1950 2.2: CMF (method, window), FLG (check bits, preset dictionary, level) */
        if (size < 2) {
            snprintf(reason, reason_size, "is too short for a zlib header (%zu bytes)", size);
            return SR_ERROR_PARSE;
        }
        const unsigned method = data[0] & 15u, window = data[0] >> 4;
        if (method != 8 || window > 7 || ((unsigned)data[0] << 8 | data[1]) % 31 != 0 || (data[1] & 32u) != 0) {
            snprintf(reason, reason_size,
                     "has an invalid zlib header (bytes %02x %02x: method %u, window 2^%u, check %s, %s)", data[0],
                     data[1], method, window + 8, ((unsigned)data[0] << 8 | data[1]) % 31 == 0 ? "ok" : "wrong",
                     data[1] & 32u ? "preset dictionary" : "no preset dictionary");
            return SR_ERROR_PARSE;
        }
        start = 2;
    }

    z_stream stream = {.zalloc = zlib_allocate, .zfree = zlib_release};
    /* -15: raw deflate data, windows up to 32 KiB (every distance RFC 1951 can code) */
    int result = inflateInit2(&stream, -15);
    if (result != Z_OK) {
        /* Z_MEM_ERROR, or Z_VERSION_ERROR: a zlib library other than the headers' */
        snprintf(reason, reason_size, "could not be checked: %s",
                 result == Z_MEM_ERROR ? "out of memory" : "zlib's inflateInit2 failed (library version?)");
        return result == Z_MEM_ERROR ? SR_ERROR_OUT_OF_MEMORY : SR_ERROR_UNSUPPORTED;
    }
    unsigned char discarded[16384];
    const unsigned char *next = data + start;
    size_t left = size - start;
    sr_status status = SR_OK;
    for (;;) {
        /* avail_in is an unsigned int: feed larger streams in parts */
        if (stream.avail_in == 0 && left > 0) {
            stream.next_in = (Bytef *)(uintptr_t)next; /* zlib's API is not const; it only reads */
            stream.avail_in = left > (1u << 30) ? 1u << 30 : (uInt)left;
            next += stream.avail_in;
            left -= stream.avail_in;
        }
        stream.next_out = discarded;
        stream.avail_out = sizeof discarded;
        result = inflate(&stream, Z_NO_FLUSH);
        if (result == Z_STREAM_END)
            break;
        if (result == Z_DATA_ERROR) {
            status = refuse(reason, reason_size, stream.msg ? stream.msg : "invalid data", start + stream.total_in);
            break;
        }
        if (result == Z_MEM_ERROR) {
            snprintf(reason, reason_size, "could not be checked: out of memory");
            status = SR_ERROR_OUT_OF_MEMORY;
            break;
        }
        /* Z_OK with output room left, or Z_BUF_ERROR (no progress): every byte was read and the
         * final block has not ended */
        if ((result == Z_BUF_ERROR || stream.avail_out > 0) && stream.avail_in == 0 && left == 0) {
            snprintf(reason, reason_size, "ends inside a deflate block (%zu bytes)", size);
            status = SR_ERROR_PARSE;
            break;
        }
        if (result != Z_OK && result != Z_BUF_ERROR) {
            snprintf(reason, reason_size, "could not be checked: zlib's inflate returned %d", result);
            status = SR_ERROR_UNSUPPORTED;
            break;
        }
    }
    inflateEnd(&stream);
    return status;
}
