/* src/bvh/bvh_simd.h — the lane types of the wide-tree traversals (private to src/bvh/): f8, 8
 * floats (the 8 child boxes of a wide node, or 8 rays), f16, 16 floats (16 rays), f4, 4 floats
 * (the 4 triangles of a pack), and d4, 4 doubles (their edge functions). Each has an AVX / SSE
 * version and a portable one, and every version performs the same IEEE operation lane by lane,
 * so the answers, the order of the traversal and the counters do not depend on which one was
 * compiled:
 *  - min(a, b) is `a < b ? a : b` and max(a, b) is `a > b ? a : b`, the operand order of
 *    MINPS/MAXPS: the second operand wins when either is NaN or both are zeros;
 *  - comparisons are ordered (false for NaN) and return a bit mask, bit i for lane i;
 *  - no operation is fused: intrinsics are never contracted into FMA, and the portable version
 *    writes each operation as a separate statement. (Fused multiply-adds in the AVX2 box test
 *    were measured 1-3% faster, but the SSE2 and portable copies have no FMA: they would round
 *    differently and visit other nodes, and the margin's proof in bvh_query.c counts separate
 *    roundings.)
 * Defining SR_BVH_PORTABLE selects the portable versions on any machine: tests/meson.build
 * compiles the traversal a second time that way, and tests/test_bvh_wide.c checks that both
 * answer alike, counters included. */
#ifndef SR_BVH_SIMD_H
#define SR_BVH_SIMD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(SR_BVH_PORTABLE)
#define SR_BVH_SSE2 1
#include <emmintrin.h>
#endif
#if defined(__AVX__) && !defined(SR_BVH_PORTABLE)
#define SR_BVH_AVX 1
#include <immintrin.h>
#endif
#if defined(__AVX2__) && defined(__BMI2__) && !defined(SR_BVH_PORTABLE)
#define SR_BVH_AVX2 1
#endif
#if defined(__AVX512F__) && defined(__AVX512VL__) && !defined(SR_BVH_PORTABLE)
#define SR_BVH_AVX512 1
#endif

/* ---- f8: 8 floats ---- */
#if defined(SR_BVH_AVX)
typedef __m256 f8;
static inline f8 f8_load(const float *p)
{
    return _mm256_loadu_ps(p);
}
static inline void f8_store(float *p, f8 a)
{
    _mm256_storeu_ps(p, a);
}
static inline f8 f8_splat(float a)
{
    return _mm256_set1_ps(a);
}
static inline f8 f8_add(f8 a, f8 b)
{
    return _mm256_add_ps(a, b);
}
static inline f8 f8_sub(f8 a, f8 b)
{
    return _mm256_sub_ps(a, b);
}
static inline f8 f8_mul(f8 a, f8 b)
{
    return _mm256_mul_ps(a, b);
}
static inline f8 f8_min(f8 a, f8 b)
{
    return _mm256_min_ps(a, b);
}
static inline f8 f8_max(f8 a, f8 b)
{
    return _mm256_max_ps(a, b);
}
static inline f8 f8_abs(f8 a)
{
    return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a);
}
static inline unsigned f8_le(f8 a, f8 b)
{
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LE_OQ));
}
static inline unsigned f8_lt(f8 a, f8 b)
{
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LT_OQ));
}
static inline unsigned f8_gt(f8 a, f8 b)
{
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ));
}
/// `a` with lane `lane` (0..7) replaced by `value`. In registers: writing the lane to memory and
/// reading the vector back stalls on the failed store forwarding.
static inline f8 f8_replace_lane(f8 a, unsigned lane, float value)
{
#if defined(SR_BVH_AVX512)
    return _mm256_mask_broadcastss_ps(a, (__mmask8)(1u << lane), _mm_set_ss(value));
#else
    const __m256 which = _mm256_cmp_ps(_mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_ps((float)lane), _CMP_EQ_OQ);
    return _mm256_blendv_ps(a, _mm256_set1_ps(value), which);
#endif
}
/// Lane i of if_set where bit i of `mask` is set, of if_clear elsewhere.
static inline f8 f8_select(unsigned mask, f8 if_clear, f8 if_set)
{
#if defined(SR_BVH_AVX512)
    return _mm256_mask_blend_ps((__mmask8)mask, if_clear, if_set);
#elif defined(__AVX2__)
    const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i which = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)mask), bits), bits);
    return _mm256_blendv_ps(if_clear, if_set, _mm256_castsi256_ps(which));
#else
    float clear[8], set[8];
    _mm256_storeu_ps(clear, if_clear);
    _mm256_storeu_ps(set, if_set);
    for (int i = 0; i < 8; i++)
        clear[i] = mask >> i & 1u ? set[i] : clear[i];
    return _mm256_loadu_ps(clear);
#endif
}
/// Sixteen rows: lane i of out[k] is float k of the 16 floats (64 bytes) at records[i]. Loads
/// of 4 floats and in-register shuffles: scalar stores read back as vectors stall on store
/// forwarding, and a compiler's gathers are slow.
static inline void f8_load_transposed(const void *const records[8], f8 out[16])
{
    for (int part = 0; part < 4; part++) {
        __m256 x[4];
        for (int i = 0; i < 4; i++) {
            const __m128 lo = _mm_loadu_ps((const float *)records[i] + 4 * part);
            const __m128 hi = _mm_loadu_ps((const float *)records[i + 4] + 4 * part);
            x[i] = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
        }
        /* a 4x4 transpose in each 128-bit half */
        const __m256 t0 = _mm256_unpacklo_ps(x[0], x[1]), t1 = _mm256_unpackhi_ps(x[0], x[1]);
        const __m256 t2 = _mm256_unpacklo_ps(x[2], x[3]), t3 = _mm256_unpackhi_ps(x[2], x[3]);
        out[4 * part + 0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
        out[4 * part + 1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
        out[4 * part + 2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
        out[4 * part + 3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    }
}
#elif defined(SR_BVH_SSE2)
typedef struct f8 {
    __m128 lo, hi;
} f8;
static inline f8 f8_load(const float *p)
{
    return (f8){_mm_loadu_ps(p), _mm_loadu_ps(p + 4)};
}
static inline void f8_store(float *p, f8 a)
{
    _mm_storeu_ps(p, a.lo);
    _mm_storeu_ps(p + 4, a.hi);
}
static inline f8 f8_splat(float a)
{
    return (f8){_mm_set1_ps(a), _mm_set1_ps(a)};
}
#define SR_F8_BINARY(name, op)                                                                                         \
    static inline f8 name(f8 a, f8 b)                                                                                  \
    {                                                                                                                  \
        return (f8){op(a.lo, b.lo), op(a.hi, b.hi)};                                                                   \
    }
SR_F8_BINARY(f8_add, _mm_add_ps)
SR_F8_BINARY(f8_sub, _mm_sub_ps)
SR_F8_BINARY(f8_mul, _mm_mul_ps)
SR_F8_BINARY(f8_min, _mm_min_ps)
SR_F8_BINARY(f8_max, _mm_max_ps)
#undef SR_F8_BINARY
static inline f8 f8_abs(f8 a)
{
    const __m128 sign = _mm_set1_ps(-0.0f);
    return (f8){_mm_andnot_ps(sign, a.lo), _mm_andnot_ps(sign, a.hi)};
}
static inline unsigned f8_le(f8 a, f8 b)
{
    return (unsigned)(_mm_movemask_ps(_mm_cmple_ps(a.lo, b.lo)) | _mm_movemask_ps(_mm_cmple_ps(a.hi, b.hi)) << 4);
}
static inline unsigned f8_lt(f8 a, f8 b)
{
    return (unsigned)(_mm_movemask_ps(_mm_cmplt_ps(a.lo, b.lo)) | _mm_movemask_ps(_mm_cmplt_ps(a.hi, b.hi)) << 4);
}
static inline unsigned f8_gt(f8 a, f8 b)
{
    return (unsigned)(_mm_movemask_ps(_mm_cmpgt_ps(a.lo, b.lo)) | _mm_movemask_ps(_mm_cmpgt_ps(a.hi, b.hi)) << 4);
}
static inline f8 f8_replace_lane(f8 a, unsigned lane, float value)
{
    const __m128 index = _mm_set1_ps((float)lane), v = _mm_set1_ps(value);
    const __m128 lo = _mm_cmpeq_ps(_mm_setr_ps(0, 1, 2, 3), index), hi = _mm_cmpeq_ps(_mm_setr_ps(4, 5, 6, 7), index);
    return (f8){_mm_or_ps(_mm_andnot_ps(lo, a.lo), _mm_and_ps(lo, v)),
                _mm_or_ps(_mm_andnot_ps(hi, a.hi), _mm_and_ps(hi, v))};
}
static inline f8 f8_select(unsigned mask, f8 if_clear, f8 if_set)
{
    const __m128i bits = _mm_setr_epi32(1, 2, 4, 8);
    const __m128 lo = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32((int)(mask & 15u)), bits), bits));
    const __m128 hi = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32((int)(mask >> 4)), bits), bits));
    return (f8){_mm_or_ps(_mm_andnot_ps(lo, if_clear.lo), _mm_and_ps(lo, if_set.lo)),
                _mm_or_ps(_mm_andnot_ps(hi, if_clear.hi), _mm_and_ps(hi, if_set.hi))};
}
static inline void f8_load_transposed(const void *const records[8], f8 out[16])
{
    for (int part = 0; part < 4; part++) {
        for (int half = 0; half < 2; half++) {
            __m128 x[4];
            for (int i = 0; i < 4; i++)
                x[i] = _mm_loadu_ps((const float *)records[4 * half + i] + 4 * part);
            const __m128 t0 = _mm_unpacklo_ps(x[0], x[1]), t1 = _mm_unpackhi_ps(x[0], x[1]);
            const __m128 t2 = _mm_unpacklo_ps(x[2], x[3]), t3 = _mm_unpackhi_ps(x[2], x[3]);
            const __m128 rows[4] = {_mm_movelh_ps(t0, t2), _mm_movehl_ps(t2, t0), _mm_movelh_ps(t1, t3),
                                    _mm_movehl_ps(t3, t1)};
            for (int k = 0; k < 4; k++) {
                if (half == 0)
                    out[4 * part + k].lo = rows[k];
                else
                    out[4 * part + k].hi = rows[k];
            }
        }
    }
}
#else
typedef struct f8 {
    float lane[8];
} f8;
static inline f8 f8_load(const float *p)
{
    f8 r;
    memcpy(r.lane, p, sizeof r.lane);
    return r;
}
static inline void f8_store(float *p, f8 a)
{
    memcpy(p, a.lane, sizeof a.lane);
}
static inline f8 f8_splat(float a)
{
    return (f8){{a, a, a, a, a, a, a, a}};
}
#define SR_F8_LANES(name, expression)                                                                                  \
    static inline f8 name(f8 a, f8 b)                                                                                  \
    {                                                                                                                  \
        f8 r;                                                                                                          \
        for (int i = 0; i < 8; i++) {                                                                                  \
            const float x = a.lane[i], y = b.lane[i];                                                                  \
            r.lane[i] = expression;                                                                                    \
        }                                                                                                              \
        return r;                                                                                                      \
    }
SR_F8_LANES(f8_add, x + y)
SR_F8_LANES(f8_sub, x - y)
SR_F8_LANES(f8_mul, x *y)
SR_F8_LANES(f8_min, x < y ? x : y)
SR_F8_LANES(f8_max, x > y ? x : y)
#undef SR_F8_LANES
static inline f8 f8_abs(f8 a)
{
    f8 r;
    for (int i = 0; i < 8; i++)
        r.lane[i] = fabsf(a.lane[i]);
    return r;
}
#define SR_F8_COMPARE(name, op)                                                                                        \
    static inline unsigned name(f8 a, f8 b)                                                                            \
    {                                                                                                                  \
        unsigned mask = 0;                                                                                             \
        for (int i = 0; i < 8; i++)                                                                                    \
            mask |= (unsigned)(a.lane[i] op b.lane[i]) << i;                                                           \
        return mask;                                                                                                   \
    }
SR_F8_COMPARE(f8_le, <=)
SR_F8_COMPARE(f8_lt, <)
SR_F8_COMPARE(f8_gt, >)
#undef SR_F8_COMPARE
static inline f8 f8_replace_lane(f8 a, unsigned lane, float value)
{
    a.lane[lane] = value;
    return a;
}
static inline f8 f8_select(unsigned mask, f8 if_clear, f8 if_set)
{
    for (int i = 0; i < 8; i++)
        if (mask >> i & 1u)
            if_clear.lane[i] = if_set.lane[i];
    return if_clear;
}
static inline void f8_load_transposed(const void *const records[8], f8 out[16])
{
    for (int i = 0; i < 8; i++) {
        float record[16];
        memcpy(record, records[i], sizeof record);
        for (int k = 0; k < 16; k++)
            out[k].lane[i] = record[k];
    }
}
#endif

/* Shared by every f8 version. */
static inline f8 f8_negate(f8 a)
{
    return f8_sub(f8_splat(-0.0f), a); /* -0 - x: x with its sign flipped, exactly */
}
/// Bit i set where lane i of a > lane i of b and lane i of c < lane i of d.
static inline unsigned f8_gt_and_lt(f8 a, f8 b, f8 c, f8 d)
{
    return f8_gt(a, b) & f8_lt(c, d);
}
/// counters[i] += amount for each lane i of `mask`.
static inline void u8_add_masked(uint32_t counters[8], unsigned mask, uint32_t amount)
{
#if defined(SR_BVH_AVX512)
    const __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)counters);
    _mm256_storeu_si256((__m256i *)(void *)counters,
                        _mm256_mask_add_epi32(c, (__mmask8)mask, c, _mm256_set1_epi32((int)amount)));
#elif defined(__AVX2__) && !defined(SR_BVH_PORTABLE)
    const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i which = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)mask), bits), bits);
    const __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)counters);
    _mm256_storeu_si256((__m256i *)(void *)counters,
                        _mm256_add_epi32(c, _mm256_and_si256(which, _mm256_set1_epi32((int)amount))));
#else
    for (int i = 0; i < 8; i++)
        if (mask >> i & 1u)
            counters[i] += amount;
#endif
}

/* ---- f16: 16 floats (a packet of rays), with 16-bit lane masks ---- */
#if defined(SR_BVH_AVX512)
typedef __m512 f16;
static inline f16 f16_load(const float *p)
{
    return _mm512_loadu_ps(p);
}
static inline void f16_store(float *p, f16 a)
{
    _mm512_storeu_ps(p, a);
}
static inline f16 f16_splat(float a)
{
    return _mm512_set1_ps(a);
}
static inline f16 f16_add(f16 a, f16 b)
{
    return _mm512_add_ps(a, b);
}
static inline f16 f16_sub(f16 a, f16 b)
{
    return _mm512_sub_ps(a, b);
}
static inline f16 f16_mul(f16 a, f16 b)
{
    return _mm512_mul_ps(a, b);
}
static inline f16 f16_min(f16 a, f16 b)
{
    return _mm512_min_ps(a, b);
}
static inline f16 f16_max(f16 a, f16 b)
{
    return _mm512_max_ps(a, b);
}
static inline f16 f16_abs(f16 a)
{
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7fffffff)));
}
static inline f16 f16_negate(f16 a)
{
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_set1_epi32((int)0x80000000u)));
}
static inline unsigned f16_le(f16 a, f16 b)
{
    return (unsigned)_mm512_cmp_ps_mask(a, b, _CMP_LE_OQ);
}
static inline unsigned f16_lt(f16 a, f16 b)
{
    return (unsigned)_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
}
/// Bit i set where lane i of a > lane i of b and lane i of c < lane i of d.
static inline unsigned f16_gt_and_lt(f16 a, f16 b, f16 c, f16 d)
{
    return (unsigned)(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ) & _mm512_cmp_ps_mask(c, d, _CMP_LT_OQ));
}
/// The smallest lane among those of `mask` (+inf for none).
static inline float f16_min_of(unsigned mask, f16 a)
{
    return _mm512_mask_reduce_min_ps((__mmask16)mask, a);
}
/// Lane i of if_set where bit i of `mask` is set, of if_clear elsewhere.
static inline f16 f16_select(unsigned mask, f16 if_clear, f16 if_set)
{
    return _mm512_mask_blend_ps((__mmask16)mask, if_clear, if_set);
}
/// f8_load_transposed for 16 records.
static inline void f16_load_transposed(const void *const records[16], f16 out[16])
{
    f8 lo[16], hi[16];
    f8_load_transposed(records, lo);
    f8_load_transposed(records + 8, hi);
    for (int k = 0; k < 16; k++)
        out[k] = _mm512_castpd_ps(
            _mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo[k])), _mm256_castps_pd(hi[k]), 1));
}
/// `a` with lane `lane` (0..15) replaced by `value`.
static inline f16 f16_replace_lane(f16 a, unsigned lane, float value)
{
    return _mm512_mask_broadcastss_ps(a, (__mmask16)(1u << lane), _mm_set_ss(value));
}
/// counters[i] += amount for each lane i of `mask`.
static inline void u16_add_masked(uint32_t counters[16], unsigned mask, uint32_t amount)
{
    const __m512i c = _mm512_loadu_si512(counters);
    _mm512_storeu_si512(counters, _mm512_mask_add_epi32(c, (__mmask16)mask, c, _mm512_set1_epi32((int)amount)));
}
#else
typedef struct f16 {
    f8 lo, hi;
} f16;
static inline f16 f16_load(const float *p)
{
    return (f16){f8_load(p), f8_load(p + 8)};
}
static inline void f16_store(float *p, f16 a)
{
    f8_store(p, a.lo);
    f8_store(p + 8, a.hi);
}
static inline f16 f16_splat(float a)
{
    return (f16){f8_splat(a), f8_splat(a)};
}
#define SR_F16_BINARY(name, op)                                                                                        \
    static inline f16 name(f16 a, f16 b)                                                                               \
    {                                                                                                                  \
        return (f16){op(a.lo, b.lo), op(a.hi, b.hi)};                                                                  \
    }
SR_F16_BINARY(f16_add, f8_add)
SR_F16_BINARY(f16_sub, f8_sub)
SR_F16_BINARY(f16_mul, f8_mul)
SR_F16_BINARY(f16_min, f8_min)
SR_F16_BINARY(f16_max, f8_max)
#undef SR_F16_BINARY
static inline f16 f16_abs(f16 a)
{
    return (f16){f8_abs(a.lo), f8_abs(a.hi)};
}
static inline f16 f16_negate(f16 a)
{
    return f16_sub(f16_splat(-0.0f), a); /* -0 - x: the sign flipped, exactly (as xor) */
}
static inline unsigned f16_le(f16 a, f16 b)
{
    return f8_le(a.lo, b.lo) | f8_le(a.hi, b.hi) << 8;
}
static inline unsigned f16_lt(f16 a, f16 b)
{
    return f8_lt(a.lo, b.lo) | f8_lt(a.hi, b.hi) << 8;
}
static inline unsigned f16_gt_and_lt(f16 a, f16 b, f16 c, f16 d)
{
    return (f8_gt(a.lo, b.lo) & f8_lt(c.lo, d.lo)) | (f8_gt(a.hi, b.hi) & f8_lt(c.hi, d.hi)) << 8;
}
static inline void f16_load_transposed(const void *const records[16], f16 out[16])
{
    f8 lo[16], hi[16];
    f8_load_transposed(records, lo);
    f8_load_transposed(records + 8, hi);
    for (int k = 0; k < 16; k++)
        out[k] = (f16){lo[k], hi[k]};
}
static inline f16 f16_select(unsigned mask, f16 if_clear, f16 if_set)
{
    return (f16){f8_select(mask & 0xffu, if_clear.lo, if_set.lo), f8_select(mask >> 8, if_clear.hi, if_set.hi)};
}
static inline f16 f16_replace_lane(f16 a, unsigned lane, float value)
{
    if (lane < 8)
        a.lo = f8_replace_lane(a.lo, lane, value);
    else
        a.hi = f8_replace_lane(a.hi, lane - 8, value);
    return a;
}
static inline float f16_min_of(unsigned mask, f16 a)
{
    float lanes[16];
    f16_store(lanes, a);
    float m = INFINITY;
    for (int i = 0; i < 16; i++)
        if (mask >> i & 1u)
            m = lanes[i] < m ? lanes[i] : m;
    return m;
}
static inline void u16_add_masked(uint32_t counters[16], unsigned mask, uint32_t amount)
{
    for (int i = 0; i < 16; i++)
        if (mask >> i & 1u)
            counters[i] += amount;
}
#endif

/* ---- f4: 4 floats ---- */
#if defined(SR_BVH_SSE2)
typedef __m128 f4;
static inline f4 f4_load(const float *p)
{
    return _mm_loadu_ps(p);
}
static inline void f4_store(float *p, f4 a)
{
    _mm_storeu_ps(p, a);
}
static inline f4 f4_splat(float a)
{
    return _mm_set1_ps(a);
}
static inline f4 f4_add(f4 a, f4 b)
{
    return _mm_add_ps(a, b);
}
static inline f4 f4_sub(f4 a, f4 b)
{
    return _mm_sub_ps(a, b);
}
static inline f4 f4_mul(f4 a, f4 b)
{
    return _mm_mul_ps(a, b);
}
static inline f4 f4_min(f4 a, f4 b)
{
    return _mm_min_ps(a, b);
}
static inline f4 f4_max(f4 a, f4 b)
{
    return _mm_max_ps(a, b);
}
static inline f4 f4_abs(f4 a)
{
    return _mm_andnot_ps(_mm_set1_ps(-0.0f), a);
}
static inline f4 f4_negate(f4 a)
{
    return _mm_xor_ps(_mm_set1_ps(-0.0f), a);
}
/// Bit i set where lane i of a > lane i of b and lane i of c < lane i of d.
static inline unsigned f4_gt_and_lt(f4 a, f4 b, f4 c, f4 d)
{
    return (unsigned)_mm_movemask_ps(_mm_and_ps(_mm_cmpgt_ps(a, b), _mm_cmplt_ps(c, d)));
}
/// Bit i set where bit 31 of words[i] is.
static inline unsigned u4_top_bits(const uint32_t *words)
{
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(const void *)words)));
}
#else
typedef struct f4 {
    float lane[4];
} f4;
static inline f4 f4_load(const float *p)
{
    f4 r;
    memcpy(r.lane, p, sizeof r.lane);
    return r;
}
static inline void f4_store(float *p, f4 a)
{
    memcpy(p, a.lane, sizeof a.lane);
}
static inline f4 f4_splat(float a)
{
    return (f4){{a, a, a, a}};
}
#define SR_F4_LANES(name, expression)                                                                                  \
    static inline f4 name(f4 a, f4 b)                                                                                  \
    {                                                                                                                  \
        f4 r;                                                                                                          \
        for (int i = 0; i < 4; i++) {                                                                                  \
            const float x = a.lane[i], y = b.lane[i];                                                                  \
            r.lane[i] = expression;                                                                                    \
        }                                                                                                              \
        return r;                                                                                                      \
    }
SR_F4_LANES(f4_add, x + y)
SR_F4_LANES(f4_sub, x - y)
SR_F4_LANES(f4_mul, x *y)
SR_F4_LANES(f4_min, x < y ? x : y)
SR_F4_LANES(f4_max, x > y ? x : y)
#undef SR_F4_LANES
static inline f4 f4_abs(f4 a)
{
    f4 r;
    for (int i = 0; i < 4; i++)
        r.lane[i] = fabsf(a.lane[i]);
    return r;
}
static inline f4 f4_negate(f4 a)
{
    f4 r;
    for (int i = 0; i < 4; i++)
        r.lane[i] = -a.lane[i];
    return r;
}
static inline unsigned f4_gt_and_lt(f4 a, f4 b, f4 c, f4 d)
{
    unsigned mask = 0;
    for (int i = 0; i < 4; i++)
        mask |= (unsigned)(a.lane[i] > b.lane[i] && c.lane[i] < d.lane[i]) << i;
    return mask;
}
static inline unsigned u4_top_bits(const uint32_t *words)
{
    unsigned mask = 0;
    for (int i = 0; i < 4; i++)
        mask |= (words[i] >> 31) << i;
    return mask;
}
#endif

/* ---- d4: 4 doubles (the exact edge functions of the 4 triangles of a pack) ---- */
#if defined(SR_BVH_AVX)
typedef __m256d d4;
/// The 4 floats of `a` as doubles (exact).
static inline d4 d4_from_f4(f4 a)
{
    return _mm256_cvtps_pd(a);
}
static inline d4 d4_sub(d4 a, d4 b)
{
    return _mm256_sub_pd(a, b);
}
static inline d4 d4_mul(d4 a, d4 b)
{
    return _mm256_mul_pd(a, b);
}
static inline d4 d4_min(d4 a, d4 b)
{
    return _mm256_min_pd(a, b);
}
static inline d4 d4_max(d4 a, d4 b)
{
    return _mm256_max_pd(a, b);
}
/// Bit i set where lane i of a > 0 and lane i of b < 0.
static inline unsigned d4_positive_and_negative(d4 a, d4 b)
{
    const __m256d zero = _mm256_setzero_pd();
    return (unsigned)_mm256_movemask_pd(
        _mm256_and_pd(_mm256_cmp_pd(a, zero, _CMP_GT_OQ), _mm256_cmp_pd(b, zero, _CMP_LT_OQ)));
}
static inline void d4_store(double *p, d4 a)
{
    _mm256_storeu_pd(p, a);
}
#elif defined(SR_BVH_SSE2)
typedef struct d4 {
    __m128d low, high; /* lanes 0, 1 and 2, 3 */
} d4;
static inline d4 d4_from_f4(f4 a)
{
    return (d4){_mm_cvtps_pd(a), _mm_cvtps_pd(_mm_movehl_ps(a, a))};
}
static inline d4 d4_sub(d4 a, d4 b)
{
    return (d4){_mm_sub_pd(a.low, b.low), _mm_sub_pd(a.high, b.high)};
}
static inline d4 d4_mul(d4 a, d4 b)
{
    return (d4){_mm_mul_pd(a.low, b.low), _mm_mul_pd(a.high, b.high)};
}
static inline d4 d4_min(d4 a, d4 b)
{
    return (d4){_mm_min_pd(a.low, b.low), _mm_min_pd(a.high, b.high)};
}
static inline d4 d4_max(d4 a, d4 b)
{
    return (d4){_mm_max_pd(a.low, b.low), _mm_max_pd(a.high, b.high)};
}
static inline unsigned d4_positive_and_negative(d4 a, d4 b)
{
    const __m128d zero = _mm_setzero_pd();
    const unsigned low = (unsigned)_mm_movemask_pd(_mm_and_pd(_mm_cmpgt_pd(a.low, zero), _mm_cmplt_pd(b.low, zero)));
    const unsigned high =
        (unsigned)_mm_movemask_pd(_mm_and_pd(_mm_cmpgt_pd(a.high, zero), _mm_cmplt_pd(b.high, zero)));
    return low | high << 2;
}
static inline void d4_store(double *p, d4 a)
{
    _mm_storeu_pd(p, a.low);
    _mm_storeu_pd(p + 2, a.high);
}
#else
typedef struct d4 {
    double lane[4];
} d4;
static inline d4 d4_from_f4(f4 a)
{
    return (d4){{a.lane[0], a.lane[1], a.lane[2], a.lane[3]}};
}
#define SR_D4_LANES(name, expression)                                                                                  \
    static inline d4 name(d4 a, d4 b)                                                                                  \
    {                                                                                                                  \
        d4 r;                                                                                                          \
        for (int i = 0; i < 4; i++) {                                                                                  \
            const double x = a.lane[i], y = b.lane[i];                                                                 \
            r.lane[i] = expression;                                                                                    \
        }                                                                                                              \
        return r;                                                                                                      \
    }
SR_D4_LANES(d4_sub, x - y)
SR_D4_LANES(d4_mul, x *y)
SR_D4_LANES(d4_min, x < y ? x : y)
SR_D4_LANES(d4_max, x > y ? x : y)
#undef SR_D4_LANES
static inline unsigned d4_positive_and_negative(d4 a, d4 b)
{
    unsigned mask = 0;
    for (int i = 0; i < 4; i++)
        mask |= (unsigned)(a.lane[i] > 0.0 && b.lane[i] < 0.0) << i;
    return mask;
}
static inline void d4_store(double *p, d4 a)
{
    memcpy(p, a.lane, sizeof a.lane);
}
#endif

#endif
