/* src/record/record_transform.c — the exact compact codec of the transforms of debug boxes and
 * axes (an sr_mat4 and, for boxes, their sr_aabb).
 *
 * Engines hand their boxes over as matrices (Bullet's btTransform basis, Jolt's Mat44), which a
 * recording must give back bit for bit: a replayed frame is pixel-identical to the live one.
 * Nine floats of a rotation hold three degrees of freedom, so the rotation is stored as a
 * quaternion's three smallest components (fixed point; the fourth follows from unit length), and
 * each of the nine entries as its distance, in units in the last place, from the matrix that
 * quaternion predicts. The predictor is computed in double from the stored numbers, the same way
 * on both sides, so it need not be exact, only deterministic (the build has -ffp-contract=off).
 * The distance of an entry is about 1e-7 in absolute terms whatever its size, so in units in the
 * last place it grows as the entry shrinks: it is written as a Rice code whose parameter comes
 * from the predicted entry's exponent, which the reader knows too (a rotation of an engine in
 * about 17 bytes instead of 36; a wild entry is escaped to its raw bits, and a matrix for which
 * this is not shorter is stored raw). Identity rotations, zero translations, the last row
 * (0, 0, 0, 1) and boxes whose min is -max cost a flag bit each. */
#include "record_internal.h"

#include <math.h>

/* Flags byte. */
enum {
    ROTATION_IDENTITY = 0,
    ROTATION_PREDICTED = 1,
    ROTATION_RAW = 2,
    ROTATION_MASK = 3,
    HAS_TRANSLATION = 1u << 2,
    HAS_LAST_ROW = 1u << 3,
    DROPPED_SHIFT = 4, ///< 2 bits: the quaternion component not stored (x, y, z, w)
    BOX_SYMMETRIC = 1u << 6,
    FLAGS_RESERVED = 1u << 7,
};

/* The 3x3 part's entries in storage order: row i, column j at m[4 j + i], row by row. */
static const uint8_t rotation_entry[9] = {0, 4, 8, 1, 5, 9, 2, 6, 10};

static const uint32_t one_bits = 0x3f800000u;

/* An order-preserving key of a float's bits (the radix sort's): negative floats have every bit
 * flipped, others the sign bit; -0 and +0 are neighbours. A bijection of 32-bit patterns. */
static inline uint32_t float_key(uint32_t bits)
{
    return bits ^ (bits & 0x80000000u ? 0xffffffffu : 0x80000000u);
}
static inline uint32_t key_float(uint32_t key)
{
    return key & 0x80000000u ? key ^ 0x80000000u : ~key;
}

/* The Rice parameter of an entry's residual, from the predicted entry's bits (both sides know
 * them). The residual of an entry is about 1e-7 in absolute terms whatever its size (the
 * engine's own rounding), so in units in the last place it doubles each time the entry halves:
 * k grows by one per binade below [0.5, 1), where it is 0 (measured over Bullet's and softrast's
 * rotation matrices: half the entries of [0.5, 1) are exact, most of the rest one unit off; k = 0
 * there gives 17.1 bytes a rotation with the flags, k = 1 gives 17.4, the fixed widths tried
 * before 17.9). Zeros, denormals and non-finite values take k = 0. */
static inline unsigned rice_parameter(uint32_t predicted)
{
    int biased = (int)(predicted >> 23 & 0xff);
    if (biased == 0 || biased == 0xff)
        return 0;
    int k = 126 - biased; // [0.5, 1): 0
    return k < 0 ? 0u : k > 24 ? 24u : (unsigned)k;
}

/* A residual whose quotient reaches this many ones is escaped: the ones, then the entry's 32 bits. */
#define RICE_ESCAPE 16u

/* The stored components are fixed-point numbers of 31 fraction bits: far finer than a float's
 * near +-0.7 (a float's rounding alone would put the predicted entries ~1e-7 off), so that the
 * residuals are the matrix's own rounding. */
#define QUATERNION_SCALE 2147483648.0

/* The quaternion's full form from the three stored components, the dropped one from unit length. */
static void rebuild_quaternion(const int32_t stored[3], unsigned dropped, double q[4])
{
    double sum = 0.0;
    for (unsigned i = 0, k = 0; i < 4; i++) {
        if (i == dropped)
            continue;
        q[i] = (double)stored[k++] / QUATERNION_SCALE;
        sum += q[i] * q[i];
    }
    double rest = 1.0 - sum;
    q[dropped] = rest > 0.0 ? sqrt(rest) : 0.0; // NaN (a damaged file) gives 0 too
}

/* The rotation matrix of q (normalised on the way), as floats in storage order. */
static void predict_rotation(const double q[4], uint32_t out[9])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double n = x * x + y * y + z * z + w * w;
    double s = n > 0.0 ? 2.0 / n : 0.0;
    double r[9] = {
        1.0 - s * (y * y + z * z), s * (x * y - w * z),       s * (x * z + w * y),
        s * (x * y + w * z),       1.0 - s * (x * x + z * z), s * (y * z - w * x),
        s * (x * z - w * y),       s * (y * z + w * x),       1.0 - s * (x * x + y * y),
    };
    for (int i = 0; i < 9; i++)
        out[i] = rec_float_bits((float)r[i]);
}

/* A unit quaternion of the rotation part (Shepperd's method, in double); false when the entries
 * are not finite. Only the writer needs it, so it need not be reproducible. */
static bool extract_quaternion(const double r[9], double q[4])
{
    for (int i = 0; i < 9; i++)
        if (!isfinite(r[i]))
            return false;
    double r00 = r[0], r01 = r[1], r02 = r[2], r10 = r[3], r11 = r[4], r12 = r[5], r20 = r[6], r21 = r[7], r22 = r[8];
    double trace = r00 + r11 + r22;
    if (trace > 0.0) {
        double s = sqrt(trace + 1.0) * 2.0;
        q[3] = 0.25 * s, q[0] = (r21 - r12) / s, q[1] = (r02 - r20) / s, q[2] = (r10 - r01) / s;
    } else if (r00 > r11 && r00 > r22) {
        double s = sqrt(1.0 + r00 - r11 - r22) * 2.0;
        q[0] = 0.25 * s, q[3] = (r21 - r12) / s, q[1] = (r01 + r10) / s, q[2] = (r02 + r20) / s;
    } else if (r11 > r22) {
        double s = sqrt(1.0 + r11 - r00 - r22) * 2.0;
        q[1] = 0.25 * s, q[3] = (r02 - r20) / s, q[0] = (r01 + r10) / s, q[2] = (r12 + r21) / s;
    } else {
        double s = sqrt(1.0 + r22 - r00 - r11) * 2.0;
        q[2] = 0.25 * s, q[3] = (r10 - r01) / s, q[0] = (r02 + r20) / s, q[1] = (r12 + r21) / s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.0) || !isfinite(n))
        return false;
    for (int i = 0; i < 4; i++)
        q[i] /= n;
    return true;
}

/* Appends `count` bits of `value` to a little-endian bit stream. */
typedef struct bit_writer {
    uint8_t *p;
    uint64_t accumulator;
    unsigned bits;
} bit_writer;

static inline void put_bits(bit_writer *w, uint32_t value, unsigned count)
{
    w->accumulator |= (uint64_t)(value & ((1u << count) - 1u)) << w->bits; // count <= 24
    w->bits += count;
    while (w->bits >= 8) {
        *w->p++ = (uint8_t)w->accumulator;
        w->accumulator >>= 8;
        w->bits -= 8;
    }
}

static inline uint64_t zigzag(int64_t value)
{
    return ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
}

static inline int64_t unzigzag(uint64_t value)
{
    return (int64_t)(value >> 1) ^ -(int64_t)(value & 1);
}

/* Writes the predicted form of the rotation `entries` (storage order) into `p` when it is shorter
 * than nine raw floats; returns the end, or NULL when the raw form is better. *dropped receives
 * the component left out. */
static uint8_t *encode_predicted(uint8_t *p, const uint32_t entries[9], unsigned *dropped)
{
    double r[9], q[4];
    for (int i = 0; i < 9; i++)
        r[i] = (double)rec_bits_float(entries[i]);
    if (!extract_quaternion(r, q))
        return NULL;
    unsigned largest = 0;
    for (unsigned i = 1; i < 4; i++)
        if (fabs(q[i]) > fabs(q[largest]))
            largest = i;
    int32_t stored[3];
    for (unsigned i = 0, k = 0; i < 4; i++)
        if (i != largest) // the dropped one is kept positive; the others are below 1/sqrt(2) in magnitude
            stored[k++] = (int32_t)lrint((q[largest] < 0.0 ? -q[i] : q[i]) * QUATERNION_SCALE);
    double rebuilt[4];
    rebuild_quaternion(stored, largest, rebuilt);
    uint32_t predicted[9];
    predict_rotation(rebuilt, predicted);

    // Each residual as the Rice code of its zigzag value: the quotient in unary (ones, then a
    // zero), then k low bits; a large one escaped.
    uint64_t value[9];
    unsigned k[9], total_bits = 0;
    for (int i = 0; i < 9; i++) {
        value[i] = zigzag((int64_t)float_key(entries[i]) - (int64_t)float_key(predicted[i]));
        k[i] = rice_parameter(predicted[i]);
        uint64_t quotient = value[i] >> k[i];
        total_bits += quotient < RICE_ESCAPE ? (unsigned)quotient + 1 + k[i] : RICE_ESCAPE + 32;
    }
    if (12u + (total_bits + 7u) / 8u >= 36u)
        return NULL;

    for (int j = 0; j < 3; j++)
        p = rec_put_u32(p, (uint32_t)stored[j]);
    bit_writer w = {p, 0, 0};
    for (int i = 0; i < 9; i++) {
        uint64_t quotient = value[i] >> k[i];
        if (quotient >= RICE_ESCAPE) {
            put_bits(&w, (1u << RICE_ESCAPE) - 1, RICE_ESCAPE);
            put_bits(&w, entries[i] & 0xffffu, 16);
            put_bits(&w, entries[i] >> 16, 16);
            continue;
        }
        put_bits(&w, (1u << quotient) - 1, (unsigned)quotient + 1); // quotient ones, then a zero
        if (k[i])
            put_bits(&w, (uint32_t)(value[i] & ((1u << k[i]) - 1)), k[i]);
    }
    if (w.bits)
        put_bits(&w, 0, 8 - w.bits);
    p = w.p;
    *dropped = largest;
    return p;
}

uint8_t *rec_transform_encode(uint8_t *p, const sr_mat4 *m, const sr_aabb *box)
{
    uint32_t bits[16];
    memcpy(bits, m->m, sizeof bits);
    uint32_t entries[9];
    bool identity = true;
    for (int i = 0; i < 9; i++) {
        entries[i] = bits[rotation_entry[i]];
        identity = identity && entries[i] == (i % 4 == 0 ? one_bits : 0u);
    }
    bool translation = bits[12] || bits[13] || bits[14];
    bool last_row = bits[3] || bits[7] || bits[11] || bits[15] != one_bits;
    bool symmetric = false;
    if (box) {
        symmetric = rec_float_bits(box->min.x) == (rec_float_bits(box->max.x) ^ 0x80000000u) &&
                    rec_float_bits(box->min.y) == (rec_float_bits(box->max.y) ^ 0x80000000u) &&
                    rec_float_bits(box->min.z) == (rec_float_bits(box->max.z) ^ 0x80000000u);
    }
    uint8_t *flags = p++;
    if (box) {
        if (!symmetric)
            p = rec_put_vec3(p, box->min);
        p = rec_put_vec3(p, box->max);
    }
    if (translation)
        for (int i = 12; i < 15; i++)
            p = rec_put_u32(p, bits[i]);
    unsigned mode = ROTATION_IDENTITY, dropped = 0;
    if (!identity) {
        uint8_t *end = encode_predicted(p, entries, &dropped);
        if (end) {
            mode = ROTATION_PREDICTED;
            p = end;
        } else {
            mode = ROTATION_RAW;
            for (int i = 0; i < 9; i++)
                p = rec_put_u32(p, entries[i]);
        }
    }
    if (last_row) {
        p = rec_put_u32(p, bits[3]);
        p = rec_put_u32(p, bits[7]);
        p = rec_put_u32(p, bits[11]);
        p = rec_put_u32(p, bits[15]);
    }
    *flags = (uint8_t)(mode | (translation ? HAS_TRANSLATION : 0u) | (last_row ? HAS_LAST_ROW : 0u) |
                       dropped << DROPPED_SHIFT | (symmetric ? BOX_SYMMETRIC : 0u));
    return p;
}

/* Reads the bit stream of the residual codes. */
typedef struct bit_reader {
    rec_cursor *c;
    uint64_t accumulator;
    unsigned bits;
} bit_reader;

static inline uint32_t get_bits(bit_reader *r, unsigned count)
{
    while (r->bits < count) {
        r->accumulator |= (uint64_t)rec_get_u8(r->c) << r->bits;
        r->bits += 8;
    }
    uint32_t value = (uint32_t)(r->accumulator & ((1u << count) - 1u));
    r->accumulator >>= count;
    r->bits -= count;
    return value;
}

static bool decode_predicted(rec_cursor *c, unsigned dropped, uint32_t entries[9])
{
    int32_t stored[3];
    for (int k = 0; k < 3; k++)
        stored[k] = (int32_t)rec_get_u32(c);
    double q[4];
    rebuild_quaternion(stored, dropped, q);
    uint32_t predicted[9];
    predict_rotation(q, predicted);
    bit_reader r = {c, 0, 0};
    for (int i = 0; i < 9; i++) {
        unsigned quotient = 0;
        while (quotient < RICE_ESCAPE && get_bits(&r, 1))
            quotient++;
        if (quotient == RICE_ESCAPE) {
            uint32_t low = get_bits(&r, 16);
            entries[i] = low | get_bits(&r, 16) << 16;
            continue;
        }
        unsigned k = rice_parameter(predicted[i]);
        uint64_t value = (uint64_t)quotient << k | (k ? get_bits(&r, k) : 0u);
        int64_t key = (int64_t)float_key(predicted[i]) + unzigzag(value);
        if (key < 0 || key > (int64_t)UINT32_MAX)
            return false;
        entries[i] = key_float((uint32_t)key);
    }
    return !c->bad;
}

bool rec_transform_decode(rec_cursor *c, sr_mat4 *m, sr_aabb *box)
{
    uint32_t flags = rec_get_u8(c);
    unsigned mode = flags & ROTATION_MASK;
    if (c->bad || (flags & FLAGS_RESERVED) || mode > ROTATION_RAW || (!box && (flags & BOX_SYMMETRIC)))
        return false;
    if (box) {
        if (flags & BOX_SYMMETRIC) {
            box->max = rec_get_vec3(c);
            box->min = (sr_vec3){rec_bits_float(rec_float_bits(box->max.x) ^ 0x80000000u),
                                 rec_bits_float(rec_float_bits(box->max.y) ^ 0x80000000u),
                                 rec_bits_float(rec_float_bits(box->max.z) ^ 0x80000000u)};
        } else {
            box->min = rec_get_vec3(c);
            box->max = rec_get_vec3(c);
        }
    }
    uint32_t bits[16] = {one_bits, 0, 0, 0, 0, one_bits, 0, 0, 0, 0, one_bits, 0, 0, 0, 0, one_bits};
    if (flags & HAS_TRANSLATION)
        for (int i = 12; i < 15; i++)
            bits[i] = rec_get_u32(c);
    if (mode != ROTATION_IDENTITY) {
        uint32_t entries[9];
        if (mode == ROTATION_PREDICTED) {
            if (!decode_predicted(c, flags >> DROPPED_SHIFT & 3u, entries))
                return false;
        } else {
            for (int i = 0; i < 9; i++)
                entries[i] = rec_get_u32(c);
        }
        for (int i = 0; i < 9; i++)
            bits[rotation_entry[i]] = entries[i];
    }
    if (flags & HAS_LAST_ROW) {
        bits[3] = rec_get_u32(c);
        bits[7] = rec_get_u32(c);
        bits[11] = rec_get_u32(c);
        bits[15] = rec_get_u32(c);
    }
    memcpy(m->m, bits, sizeof bits);
    return !c->bad;
}
