/* src/record/record_internal.h — the recording format's pieces shared by the writer (recorder.c,
 * record_encode.c, record_scene_write.c) and the reader (recording.c, record_decode.c,
 * record_scene_read.c, record_check.c): record types and limits, little-endian byte output and
 * bounds-checked input, CRC-32C, the exact compact codec of transforms, and the item codec's
 * entry points. The format itself is described in docs (README, "Recording format"). Never
 * installed. */
#ifndef SR_RECORD_INTERNAL_H
#define SR_RECORD_INTERNAL_H

#include <softrast/record.h>

#include <stdlib.h>
#include <string.h>

/* ---- the file's layout ---- */

/// Header: magic (8), major (u16), minor (u16), payload length (u32), payload, CRC-32C (u32) of
/// everything after the magic.
#define REC_HEADER_FIXED 16u
/// Record: type (u8), payload length (u32), payload, CRC-32C (u32) of type, length and payload.
#define REC_RECORD_HEAD 5u
#define REC_RECORD_OVERHEAD 9u
/// Trailer (the file's last 32 bytes once closed): magic "\x89SRRIDX\n" (8), the INDEX record's
/// offset (u64), the frame count (u64), reserved (u32, 0), CRC-32C (u32) of the 28 bytes before it.
#define REC_TRAILER_SIZE 32u
#define REC_TRAILER_MAGIC "\x89SRRIDX\n"

/// Record types. A reader skips types it does not know (a newer minor version's).
enum {
    REC_FRAME = 1, ///< a frame's lists; the last record of a frame (its presence completes it)
    REC_STATE = 2, ///< a frame's retained-state changes (a keyframe: the whole state)
    REC_MESH = 3,  ///< a mesh definition (a mesh identical to one defined before reuses its id)
    // 4: reserved (never written)
    REC_TEXTURE = 5,  ///< a texture definition
    REC_MATERIAL = 6, ///< a material definition
    REC_MESSAGE = 7,  ///< a timeline message
    REC_INDEX = 8,    ///< the index (written at close, just before the trailer)
    /// A convex hull's tables (format 1.1; identical hulls stored once): the hull of a node's
    /// collision shape (REC_SECTION_SHAPES), read back exactly (sr_hull_create_from_view).
    REC_HULL = 9,
};

/// STATE record sections: tag (u8), payload length (varint), payload. Unknown tags are skipped.
enum {
    REC_SECTION_CAMERA = 1,     ///< u8 present; camera fields
    REC_SECTION_LIGHT = 2,      ///< light fields
    REC_SECTION_BACKGROUND = 3, ///< u32
    REC_SECTION_SCENE = 4,      ///< the scene's name (string); present: the frame has a scene
    REC_SECTION_REMOVED = 5,    ///< nodes removed: count, slot deltas
    REC_SECTION_ADDED = 6,      ///< nodes added: count, full nodes (parents first)
    REC_SECTION_CHANGED = 7,    ///< nodes changed: count, slot delta + mask + fields
    /// Nodes' collision shapes set, changed or removed (format 1.1; after ADDED, so it names
    /// nodes that exist): count, then per node slot delta, flags (REC_SHAPE_ENTRY_*), and with
    /// REC_SHAPE_ENTRY_SHAPE the shape's bytes (varint length, then rec_shape_encode's). A
    /// keyframe lists every node with a shape.
    REC_SECTION_SHAPES = 8,
};

/// A shape entry's flags.
enum {
    REC_SHAPE_ENTRY_SHAPE = 1u << 0, ///< the node has a shape (its bytes follow); else it has none
    /// The node's recorded mesh is the one the program's scene made to draw its shape (what a 1.0
    /// reader draws); a 1.1 reader makes it from the shape instead, and gives the node no mesh.
    REC_SHAPE_ENTRY_MESH_FROM_SHAPE = 1u << 1,
    REC_SHAPE_ENTRY_KNOWN = (1u << 2) - 1,
};

/// A shape's bytes: a head byte (type in bits 0-3, how it is drawn (sr_shape_draw, 1 to 3) in bits
/// 4-5, bit 6: a rounding follows), the rounding (f64), then by type: nothing (point), 2 or 3
/// points (segment, triangle: 3 f64 each), the radius (sphere), the half extents (box: 3 f64), the
/// radius and half height (capsule, cylinder, cone), the stored hull's id (varint; hull).
#define REC_SHAPE_MAX 88u
#define REC_SHAPE_ROUNDED 0x40u

/// STATE record flags.
enum {
    REC_STATE_KEYFRAME = 1u << 0, ///< the whole retained state: the reader starts from nothing
};

/// Node change mask bits (REC_SECTION_CHANGED): one per float of the transform (translation x y
/// z, rotation x y z w, scale x y z), then visibility and material.
enum {
    REC_NODE_TRANSFORM_BITS = 10,
    REC_NODE_HIDDEN = 1u << 10,   ///< the hidden flag flipped
    REC_NODE_MATERIAL = 1u << 11, ///< a new material (varint) follows
    REC_NODE_KNOWN_BITS = (1u << 12) - 1,
};

/// Limits that keep a reader's allocations bounded by what the file can hold.
#define REC_MAX_RECORD_PAYLOAD 0xffffffffu
#define REC_MAX_LISTS 65536u
#define REC_MAX_KEYFRAME_INTERVAL 65536u
#define REC_MAX_TITLE 1023u
/// A header's payload is at most this long (a 1.0 header: 67 KB at most; room for a newer minor's
/// fields): a reader never reads more for a header whatever its length field says.
#define REC_MAX_HEADER_PAYLOAD (1u << 20)
#define REC_MAX_LIST_NAME 255u
#define REC_MAX_LIST_NAMES 256u
#define REC_MAX_MESSAGE 4095u
#define REC_DEFAULT_KEYFRAME_INTERVAL 60u
#define REC_DEFAULT_CACHE_BYTES ((size_t)256 << 20)

/// The extension item tag (kind 31): varint length and payload, skipped by readers that do not
/// know its first byte (a sub-kind). Kinds 19 to 30 are invalid in version 1.0.
#define REC_ITEM_EXTENSION 31u

/* ---- memcpy and qsort that take empty (and then perhaps NULL) arrays: the C library's may not ---- */

static inline void rec_copy(void *to, const void *from, size_t size)
{
    if (size)
        memcpy(to, from, size);
}

static inline void rec_sort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *))
{
    if (count > 1)
        qsort(base, count, size, compare);
}

/* ---- output: a growable byte buffer written without checks after one reservation ---- */

typedef struct rec_buffer {
    uint8_t *data;
    size_t size, capacity;
} rec_buffer;

/// Makes room for `extra` more bytes (doubling). False when out of memory (unchanged).
bool rec_buffer_reserve(rec_buffer *buffer, size_t extra);

/// Grows `*array` (of `size`-byte elements) to hold at least `needed`: `first` elements at first,
/// then doubling; false (the array unchanged) when the size overflows or memory runs out.
bool rec_grow(void **array, size_t *capacity, size_t needed, size_t size, size_t first);
void rec_buffer_free(rec_buffer *buffer);

static inline uint8_t *rec_put_u8(uint8_t *p, uint32_t value)
{
    *p = (uint8_t)value;
    return p + 1;
}
/* The format is little-endian. On a little-endian host a value is stored with one memcpy (one
 * instruction); elsewhere byte by byte. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define REC_LITTLE_ENDIAN 1
#else
#define REC_LITTLE_ENDIAN 0
#endif

static inline uint8_t *rec_put_u16(uint8_t *p, uint32_t value)
{
    p[0] = (uint8_t)value;
    p[1] = (uint8_t)(value >> 8);
    return p + 2;
}
static inline uint8_t *rec_put_u32(uint8_t *p, uint32_t value)
{
#if REC_LITTLE_ENDIAN
    memcpy(p, &value, 4);
#else
    p[0] = (uint8_t)value;
    p[1] = (uint8_t)(value >> 8);
    p[2] = (uint8_t)(value >> 16);
    p[3] = (uint8_t)(value >> 24);
#endif
    return p + 4;
}
static inline uint8_t *rec_put_u64(uint8_t *p, uint64_t value)
{
    rec_put_u32(p, (uint32_t)value);
    return rec_put_u32(p + 4, (uint32_t)(value >> 32));
}
static inline uint32_t rec_float_bits(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}
static inline float rec_bits_float(uint32_t bits)
{
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}
static inline uint8_t *rec_put_f32(uint8_t *p, float value)
{
    return rec_put_u32(p, rec_float_bits(value));
}
static inline uint8_t *rec_put_f64(uint8_t *p, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return rec_put_u64(p, bits);
}
static inline uint8_t *rec_put_vec3(uint8_t *p, sr_vec3 v)
{
#if REC_LITTLE_ENDIAN
    memcpy(p, &v, 12); // three floats, no padding (sr_vec3 is float x, y, z)
    return p + 12;
#else
    p = rec_put_f32(p, v.x);
    p = rec_put_f32(p, v.y);
    return rec_put_f32(p, v.z);
#endif
}
/// Unsigned LEB128: 7 bits a byte, low bits first, at most 10 bytes.
static inline uint8_t *rec_put_varint(uint8_t *p, uint64_t value)
{
    while (value >= 0x80) {
        *p++ = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    *p++ = (uint8_t)value;
    return p;
}
#define REC_VARINT_MAX 10u
/// A string: varint length, then the bytes (no NUL).
static inline uint8_t *rec_put_string(uint8_t *p, const char *text, size_t length)
{
    p = rec_put_varint(p, length);
    if (length)
        memcpy(p, text, length);
    return p + length;
}

/* ---- input: a cursor over bytes already in memory; any overrun makes it bad, reads then give 0 ---- */

typedef struct rec_cursor {
    const uint8_t *p, *end;
    bool bad;
} rec_cursor;

static inline rec_cursor rec_cursor_make(const uint8_t *data, size_t size)
{
    rec_cursor c = {data, data + size, false};
    return c;
}
static inline size_t rec_left(const rec_cursor *c)
{
    return c->bad ? 0 : (size_t)(c->end - c->p);
}
/// `size` bytes, or NULL (and the cursor bad) when fewer are left.
static inline const uint8_t *rec_take(rec_cursor *c, size_t size)
{
    if (c->bad || (size_t)(c->end - c->p) < size) {
        c->bad = true;
        return NULL;
    }
    const uint8_t *at = c->p;
    c->p += size;
    return at;
}
static inline uint32_t rec_load_u32(const uint8_t *p)
{
#if REC_LITTLE_ENDIAN
    uint32_t value;
    memcpy(&value, p, 4);
    return value;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}
static inline uint64_t rec_load_u64(const uint8_t *p)
{
    return (uint64_t)rec_load_u32(p) | (uint64_t)rec_load_u32(p + 4) << 32;
}
static inline uint32_t rec_get_u8(rec_cursor *c)
{
    const uint8_t *p = rec_take(c, 1);
    return p ? p[0] : 0;
}
static inline uint32_t rec_get_u16(rec_cursor *c)
{
    const uint8_t *p = rec_take(c, 2);
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : 0;
}
static inline uint32_t rec_get_u32(rec_cursor *c)
{
    const uint8_t *p = rec_take(c, 4);
    return p ? rec_load_u32(p) : 0;
}
static inline uint64_t rec_get_u64(rec_cursor *c)
{
    const uint8_t *p = rec_take(c, 8);
    return p ? rec_load_u64(p) : 0;
}
static inline float rec_get_f32(rec_cursor *c)
{
    return rec_bits_float(rec_get_u32(c));
}
static inline double rec_get_f64(rec_cursor *c)
{
    uint64_t bits = rec_get_u64(c);
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}
static inline sr_vec3 rec_get_vec3(rec_cursor *c)
{
    sr_vec3 v = {0.0f, 0.0f, 0.0f};
    const uint8_t *p = rec_take(c, 12);
    if (p) {
        v.x = rec_bits_float(rec_load_u32(p));
        v.y = rec_bits_float(rec_load_u32(p + 4));
        v.z = rec_bits_float(rec_load_u32(p + 8));
    }
    return v;
}
/// A varint of at most 10 bytes whose value fits 64 bits; anything else makes the cursor bad.
static inline uint64_t rec_get_varint(rec_cursor *c)
{
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        const uint8_t *p = rec_take(c, 1);
        if (!p)
            return 0;
        if (shift == 63 && *p > 1) // the tenth byte holds bit 63 only
            break;
        value |= (uint64_t)(*p & 0x7f) << shift;
        if (!(*p & 0x80))
            return value;
    }
    c->bad = true;
    return 0;
}
/// A varint that must be at most `max` (else the cursor is bad and 0 is returned).
static inline uint64_t rec_get_count(rec_cursor *c, uint64_t max)
{
    uint64_t value = rec_get_varint(c);
    if (value > max) {
        c->bad = true;
        return 0;
    }
    return value;
}
/// A string's bytes (not NUL-terminated) and length; NULL when malformed or longer than `max`.
static inline const char *rec_get_string(rec_cursor *c, size_t max, size_t *length)
{
    size_t n = (size_t)rec_get_count(c, max);
    const uint8_t *p = rec_take(c, n);
    *length = p ? n : 0;
    return (const char *)p;
}

/* ---- CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, initial and final value ~0):
 *      the checksum of iSCSI, ext4 and SSE 4.2's crc32 instruction (record_crc.c) ---- */

/// CRC-32C of `size` bytes continuing from `crc` (0 to start). Hardware instructions where the
/// processor has them (three interleaved streams), a table otherwise; the same value either way.
uint32_t rec_crc32c(uint32_t crc, const void *data, size_t size);
/// The table-driven form alone (tests compare the two).
uint32_t rec_crc32c_portable(uint32_t crc, const void *data, size_t size);

/* ---- exact compact transforms (record_transform.c) ---- */

/// The most bytes rec_transform_encode writes.
#define REC_TRANSFORM_MAX (1u + 24u + 12u + 36u + 16u)
/// Writes `m` exactly: a flags byte, then (box != NULL) the box as its max alone when min ==
/// -max bit for bit, else both corners; the translation unless it is (+0, +0, +0); the 3x3 part as
/// nothing (the identity), or a quaternion's three smallest components and, for each of the nine
/// entries, its distance in units in the last place from the matrix the quaternion predicts,
/// in as many bits as that entry's magnitude needs (a rotation matrix of an engine in about 17
/// bytes instead of 36), or nine raw floats when that is not shorter; the last row unless it is
/// (0, 0, 0, 1). Returns the end.
uint8_t *rec_transform_encode(uint8_t *p, const sr_mat4 *m, const sr_aabb *box);
/// Reads what rec_transform_encode wrote (box NULL exactly when it was). False on malformed input.
bool rec_transform_decode(rec_cursor *c, sr_mat4 *m, sr_aabb *box);

/* ---- items (record_encode.c, record_decode.c) ---- */

/// What the encoder of one list keeps between items: the previous style and line end, and the
/// table of recent styles. Reset at the start of every list.
#define REC_STYLE_SLOTS 240u
#define REC_STYLE_LITERAL 255u
typedef struct rec_style_table {
    uint32_t color[REC_STYLE_SLOTS];
    uint8_t packed[REC_STYLE_SLOTS]; ///< (width - 1) | on_top << 2 | 0x80 when the slot is used
} rec_style_table;

/// The slot of a style in rec_style_table (both sides compute it alike).
static inline uint32_t rec_style_slot(uint32_t color, uint32_t packed)
{
    uint32_t h = (color ^ packed << 24 ^ packed) * 0x9e3779b1u;
    return (uint32_t)(((uint64_t)(h >> 8) * REC_STYLE_SLOTS) >> 24);
}

/// The most bytes one list of `stats` encodes to (items, points, text).
size_t rec_list_bound(const sr_debug_list_stats *stats);
/// Encodes the items of `list` (may be NULL: no items) at `p`, which has room for
/// rec_list_bound; adds each item's bytes and count to `sizes` (may be NULL) and sets *encoded to
/// the number of items written. Returns the end. `styles` is scratch (reset here).
uint8_t *rec_list_encode(uint8_t *p, const sr_debug_list *list, rec_style_table *styles, sr_record_sizes *sizes,
                         uint64_t *encoded);

/// Scratch of the decoder: a polyline's points and a text's bytes, grown as needed.
typedef struct rec_decode_scratch {
    sr_vec3 *points;
    size_t point_capacity;
    char *text;
    size_t text_capacity;
    rec_style_table styles;
} rec_decode_scratch;
void rec_decode_scratch_free(rec_decode_scratch *scratch);

/// Decodes `item_count` items from `c` (a list's bytes, exactly) and appends them to `list`
/// (sr_debug_list_append; NULL: only checked), adding their bytes and counts to `sizes` (may be
/// NULL). Errors: SR_ERROR_PARSE with `what` ("frame 12, list 0, item 345: ...") filled, or out
/// of memory.
sr_status rec_list_decode(rec_cursor *c, uint64_t item_count, sr_debug_list *list, rec_decode_scratch *scratch,
                          sr_record_sizes *sizes, char *what, size_t what_size);

/* ---- shared small things (record_format.c) ---- */

/// The header's payload as read: title, keyframe interval, list names.
typedef struct rec_header {
    uint32_t major, minor;
    uint32_t keyframe_interval;
    char *title;
    char **list_names;
    size_t list_name_count;
    uint64_t size; ///< bytes of the header, magic to CRC inclusive
} rec_header;
void rec_header_free(rec_header *header);
/// Parses the header at the start of `data` (`size` bytes available, at least REC_HEADER_FIXED
/// unless the file is shorter). Errors name `path`: not a recording, a newer major version, a
/// bad checksum or length.
sr_status rec_header_parse(const char *path, const uint8_t *data, size_t size, uint64_t file_size, rec_header *out,
                           sr_error *err);

/// Adds b's counts to a's.
void rec_sizes_add(sr_record_sizes *a, const sr_record_sizes *b);
/// The sum of every field but `total`.
uint64_t rec_sizes_sum(const sr_record_sizes *sizes);
/// The names of the byte kinds, for --info ("line", "box", ..., "meshes", "framing").
const char *rec_item_kind_name(sr_debug_item_kind kind);

/// The default point sizes of sr_debug_point and sr_debug_dot (stored as one flag bit).
#define REC_POINT_DEFAULT_SIZE 8.0f
#define REC_DOT_DEFAULT_SIZE 6.0f

#endif
