/* src/raster/deflate.h — the check of zlib (RFC 1950) and deflate (RFC 1951) streams by zlib's
 * inflate, private to raster: texture.c runs it over a PNG's image data before stb_image
 * inflates it. Never installed; knows nothing of images beyond the bytes. */
#ifndef SR_RASTER_DEFLATE_H
#define SR_RASTER_DEFLATE_H

#include <softrast/core.h>

#include <stdbool.h>
#include <stddef.h>

/// Inflates the stream with zlib, throwing the output away, and reports whether it is valid by
/// RFC 1951 (and, with `zlib_header`, starts with a valid RFC 1950 header: method 8, window
/// <= 32 KiB, header check, no preset dictionary) to the end of its final block: SR_OK, or
/// SR_ERROR_PARSE with what is wrong written to `reason` (NUL-terminated, cut to `reason_size`)
/// as a phrase: the header's fields, "ends inside a deflate block", or zlib's message ("invalid
/// distance code", "invalid block type", ...) with the byte offset within `data` where inflate
/// stopped. zlib refuses reserved block type 3, a stored block whose length check fails, more
/// than 286 literal/length or 30 distance codes, code lengths that over-subscribe a code or
/// leave it incomplete (except a distance code with one symbol or none, and a literal/length
/// code with one symbol), a repeat with no previous length or past the declared counts, no
/// end-of-block code, a code the tables do not hold, the literal/length symbols 286 and 287 and
/// the distance symbols 30 and 31 (RFC 1951 3.2.6: they "will never actually occur"), a distance
/// reaching before the start of the output. The checksum after the final block is not read.
/// SR_ERROR_OUT_OF_MEMORY when zlib's state (about 40 KiB, through sr_alloc) cannot be
/// allocated. Reads only `data`; thread-safe.
sr_status sr_raster_deflate_check(const unsigned char *data, size_t size, bool zlib_header, char *reason,
                                  size_t reason_size);

#endif
