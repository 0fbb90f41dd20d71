/* src/raster/fill_lanes.h — the vector operations of fill.c over the SR_BLOCK_LANES = 8 lanes of a
 * 4 x 2 block (lane k: column k % 4, row k / 4): one AVX2 register, two SSE2 registers (lanes 0-3
 * and 4-7), or plain C loops (SR_FILL_PORTABLE, or no SSE2). Every operation is the IEEE
 * operation of the scalar code on each lane (min and max as SSE's minps / maxps: the second
 * operand when either is NaN, which is what the scalar `a < b ? a : b` does), so the three forms
 * give the same bits. Private to fill.c; knows nothing of the pipeline. */
#ifndef SR_FILL_LANES_H
#define SR_FILL_LANES_H

#include <softrast/raster.h>

#include <stdint.h>

#if !defined(SR_FILL_PORTABLE) && defined(__AVX2__)
#define LANES_AVX2 1
#include <immintrin.h>
#elif !defined(SR_FILL_PORTABLE) && defined(__SSE2__)
#define LANES_SSE2 1
#include <emmintrin.h>
#endif

#define LANES SR_BLOCK_LANES
#define LANES_ALL 0xffu

/* Per-lane constants: the lane's column and row in its block, and its pixel centre's offsets. */
static SR_BLOCK_ALIGNED const float lane_column[LANES] = {0, 1, 2, 3, 0, 1, 2, 3};
static SR_BLOCK_ALIGNED const float lane_row[LANES] = {0, 0, 0, 0, 1, 1, 1, 1};
static SR_BLOCK_ALIGNED const float lane_centre_x[LANES] = {0.5f, 1.5f, 2.5f, 3.5f, 0.5f, 1.5f, 2.5f, 3.5f};
static SR_BLOCK_ALIGNED const float lane_centre_y[LANES] = {0.5f, 0.5f, 0.5f, 0.5f, 1.5f, 1.5f, 1.5f, 1.5f};

#if defined(LANES_AVX2)

typedef __m256 lanes_float;
typedef __m256i lanes_int;

static inline lanes_float lf_load(const float *p)
{
    return _mm256_load_ps(p);
}
static inline void lf_store(float *p, lanes_float a)
{
    _mm256_store_ps(p, a);
}
static inline lanes_float lf_set(float a)
{
    return _mm256_set1_ps(a);
}
static inline lanes_float lf_add(lanes_float a, lanes_float b)
{
    return _mm256_add_ps(a, b);
}
static inline lanes_float lf_sub(lanes_float a, lanes_float b)
{
    return _mm256_sub_ps(a, b);
}
static inline lanes_float lf_mul(lanes_float a, lanes_float b)
{
    return _mm256_mul_ps(a, b);
}
static inline lanes_float lf_div(lanes_float a, lanes_float b)
{
    return _mm256_div_ps(a, b);
}
static inline lanes_float lf_max(lanes_float a, lanes_float b)
{
    return _mm256_max_ps(a, b);
}
static inline lanes_float lf_min(lanes_float a, lanes_float b)
{
    return _mm256_min_ps(a, b);
}
/* Lanes 0-3 from row0[0..3], lanes 4-7 from row1[0..3]. */
static inline lanes_float lf_load_rows(const float *row0, const float *row1)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(row0)), _mm_loadu_ps(row1), 1);
}
static inline void lf_store_rows(float *row0, float *row1, lanes_float a)
{
    _mm_storeu_ps(row0, _mm256_castps256_ps128(a));
    _mm_storeu_ps(row1, _mm256_extractf128_ps(a, 1));
}
static inline unsigned lf_bits(lanes_float m)
{
    return (unsigned)_mm256_movemask_ps(m);
}
static inline unsigned lf_less(lanes_float a, lanes_float b)
{
    return lf_bits(_mm256_cmp_ps(a, b, _CMP_LT_OQ));
}
static inline unsigned lf_less_equal(lanes_float a, lanes_float b)
{
    return lf_bits(_mm256_cmp_ps(a, b, _CMP_LE_OQ));
}
static inline unsigned lf_equal(lanes_float a, lanes_float b)
{
    return lf_bits(_mm256_cmp_ps(a, b, _CMP_EQ_OQ));
}
static inline unsigned lf_not_equal(lanes_float a, lanes_float b)
{
    return lf_bits(_mm256_cmp_ps(a, b, _CMP_NEQ_UQ));
}
static inline unsigned lf_nan(lanes_float a)
{
    return lf_bits(_mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}
/* Lane k's bit of `bits` as a full lane (all ones or zeros). */
static inline __m256i lane_select_mask(unsigned bits)
{
    const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)bits), lane_bit), lane_bit);
}
static inline lanes_float lf_select(unsigned bits, lanes_float a, lanes_float b)
{
    return _mm256_blendv_ps(b, a, _mm256_castsi256_ps(lane_select_mask(bits)));
}
/* Truncation towards zero (values in range), and int to float. */
static inline lanes_int lf_truncate(lanes_float a)
{
    return _mm256_cvttps_epi32(a);
}
static inline lanes_float li_to_float(lanes_int a)
{
    return _mm256_cvtepi32_ps(a);
}

static inline lanes_int li_set(uint32_t a)
{
    return _mm256_set1_epi32((int)a);
}
static inline lanes_int li_or(lanes_int a, lanes_int b)
{
    return _mm256_or_si256(a, b);
}
static inline lanes_int li_byte(lanes_int a, int byte)
{
    return _mm256_and_si256(_mm256_srli_epi32(a, 8 * byte), _mm256_set1_epi32(0xff));
}
static inline lanes_int li_shift_left(lanes_int a, int bits)
{
    return _mm256_slli_epi32(a, bits);
}
static inline lanes_int li_load_rows(const uint32_t *row0, const uint32_t *row1)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)row0)),
                                   _mm_loadu_si128((const __m128i *)row1), 1);
}
static inline void li_store_rows(uint32_t *row0, uint32_t *row1, lanes_int a)
{
    _mm_storeu_si128((__m128i *)row0, _mm256_castsi256_si128(a));
    _mm_storeu_si128((__m128i *)row1, _mm256_extracti128_si256(a, 1));
}
static inline void li_store(uint32_t *p, lanes_int a)
{
    _mm256_store_si256((__m256i *)p, a);
}
static inline lanes_int li_load(const uint32_t *p)
{
    return _mm256_load_si256((const __m256i *)p);
}
static inline lanes_int li_select(unsigned bits, lanes_int a, lanes_int b)
{
    return _mm256_blendv_epi8(b, a, lane_select_mask(bits));
}

/* Lanes where all three edge functions (edge[k] + offset[k * LANES + lane]) are >= 0. */
static inline unsigned lanes_inside32(const int32_t edge[3], const int32_t *offset)
{
    __m256i e0 = _mm256_add_epi32(_mm256_set1_epi32(edge[0]), _mm256_load_si256((const __m256i *)offset));
    __m256i e1 = _mm256_add_epi32(_mm256_set1_epi32(edge[1]), _mm256_load_si256((const __m256i *)(offset + LANES)));
    __m256i e2 = _mm256_add_epi32(_mm256_set1_epi32(edge[2]), _mm256_load_si256((const __m256i *)(offset + 2 * LANES)));
    __m256i any = _mm256_or_si256(_mm256_or_si256(e0, e1), e2);
    return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(any)) ^ LANES_ALL;
}
static inline unsigned lanes_inside64(const int64_t edge[3], const int64_t *offset)
{
    unsigned outside = 0;
    for (int half = 0; half < 2; half++) {
        __m256i any = _mm256_setzero_si256();
        for (int k = 0; k < 3; k++)
            any = _mm256_or_si256(
                any, _mm256_add_epi64(_mm256_set1_epi64x(edge[k]),
                                      _mm256_load_si256((const __m256i *)(offset + k * LANES + 4 * half))));
        outside |= (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(any)) << (4 * half);
    }
    return outside ^ LANES_ALL;
}

#elif defined(LANES_SSE2)

typedef struct lanes_float {
    __m128 row0, row1;
} lanes_float;
typedef struct lanes_int {
    __m128i row0, row1;
} lanes_int;

#define LANES_SSE_2(op, a, b) ((lanes_float){op((a).row0, (b).row0), op((a).row1, (b).row1)})
static inline lanes_float lf_load(const float *p)
{
    return (lanes_float){_mm_load_ps(p), _mm_load_ps(p + 4)};
}
static inline void lf_store(float *p, lanes_float a)
{
    _mm_store_ps(p, a.row0);
    _mm_store_ps(p + 4, a.row1);
}
static inline lanes_float lf_set(float a)
{
    return (lanes_float){_mm_set1_ps(a), _mm_set1_ps(a)};
}
static inline lanes_float lf_add(lanes_float a, lanes_float b)
{
    return LANES_SSE_2(_mm_add_ps, a, b);
}
static inline lanes_float lf_sub(lanes_float a, lanes_float b)
{
    return LANES_SSE_2(_mm_sub_ps, a, b);
}
static inline lanes_float lf_mul(lanes_float a, lanes_float b)
{
    return LANES_SSE_2(_mm_mul_ps, a, b);
}
static inline lanes_float lf_div(lanes_float a, lanes_float b)
{
    return LANES_SSE_2(_mm_div_ps, a, b);
}
static inline lanes_float lf_max(lanes_float a, lanes_float b)
{
    return LANES_SSE_2(_mm_max_ps, a, b);
}
static inline lanes_float lf_min(lanes_float a, lanes_float b)
{
    return LANES_SSE_2(_mm_min_ps, a, b);
}
static inline lanes_float lf_load_rows(const float *row0, const float *row1)
{
    return (lanes_float){_mm_loadu_ps(row0), _mm_loadu_ps(row1)};
}
static inline void lf_store_rows(float *row0, float *row1, lanes_float a)
{
    _mm_storeu_ps(row0, a.row0);
    _mm_storeu_ps(row1, a.row1);
}
static inline unsigned lf_bits(lanes_float m)
{
    return (unsigned)_mm_movemask_ps(m.row0) | (unsigned)_mm_movemask_ps(m.row1) << 4;
}
static inline unsigned lf_less(lanes_float a, lanes_float b)
{
    return lf_bits(LANES_SSE_2(_mm_cmplt_ps, a, b));
}
static inline unsigned lf_less_equal(lanes_float a, lanes_float b)
{
    return lf_bits(LANES_SSE_2(_mm_cmple_ps, a, b));
}
static inline unsigned lf_equal(lanes_float a, lanes_float b)
{
    return lf_bits(LANES_SSE_2(_mm_cmpeq_ps, a, b));
}
static inline unsigned lf_not_equal(lanes_float a, lanes_float b)
{
    return lf_bits(LANES_SSE_2(_mm_cmpneq_ps, a, b));
}
static inline unsigned lf_nan(lanes_float a)
{
    return lf_bits(LANES_SSE_2(_mm_cmpunord_ps, a, a));
}
#undef LANES_SSE_2
static inline lanes_int lane_select_mask(unsigned bits)
{
    const __m128i bit0 = _mm_setr_epi32(1, 2, 4, 8), bit1 = _mm_setr_epi32(16, 32, 64, 128);
    const __m128i all = _mm_set1_epi32((int)bits);
    return (lanes_int){_mm_cmpeq_epi32(_mm_and_si128(all, bit0), bit0),
                       _mm_cmpeq_epi32(_mm_and_si128(all, bit1), bit1)};
}
static inline __m128i select_128(__m128i mask, __m128i a, __m128i b)
{
    return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
}
static inline lanes_float lf_select(unsigned bits, lanes_float a, lanes_float b)
{
    lanes_int m = lane_select_mask(bits);
    return (lanes_float){
        _mm_castsi128_ps(select_128(m.row0, _mm_castps_si128(a.row0), _mm_castps_si128(b.row0))),
        _mm_castsi128_ps(select_128(m.row1, _mm_castps_si128(a.row1), _mm_castps_si128(b.row1))),
    };
}
static inline lanes_int lf_truncate(lanes_float a)
{
    return (lanes_int){_mm_cvttps_epi32(a.row0), _mm_cvttps_epi32(a.row1)};
}
static inline lanes_float li_to_float(lanes_int a)
{
    return (lanes_float){_mm_cvtepi32_ps(a.row0), _mm_cvtepi32_ps(a.row1)};
}

static inline lanes_int li_set(uint32_t a)
{
    return (lanes_int){_mm_set1_epi32((int)a), _mm_set1_epi32((int)a)};
}
static inline lanes_int li_or(lanes_int a, lanes_int b)
{
    return (lanes_int){_mm_or_si128(a.row0, b.row0), _mm_or_si128(a.row1, b.row1)};
}
static inline lanes_int li_byte(lanes_int a, int byte)
{
    const __m128i low = _mm_set1_epi32(0xff);
    return (lanes_int){_mm_and_si128(_mm_srli_epi32(a.row0, 8 * byte), low),
                       _mm_and_si128(_mm_srli_epi32(a.row1, 8 * byte), low)};
}
static inline lanes_int li_shift_left(lanes_int a, int bits)
{
    return (lanes_int){_mm_slli_epi32(a.row0, bits), _mm_slli_epi32(a.row1, bits)};
}
static inline lanes_int li_load_rows(const uint32_t *row0, const uint32_t *row1)
{
    return (lanes_int){_mm_loadu_si128((const __m128i *)row0), _mm_loadu_si128((const __m128i *)row1)};
}
static inline void li_store_rows(uint32_t *row0, uint32_t *row1, lanes_int a)
{
    _mm_storeu_si128((__m128i *)row0, a.row0);
    _mm_storeu_si128((__m128i *)row1, a.row1);
}
static inline void li_store(uint32_t *p, lanes_int a)
{
    li_store_rows(p, p + 4, a);
}
static inline lanes_int li_load(const uint32_t *p)
{
    return li_load_rows(p, p + 4);
}
static inline lanes_int li_select(unsigned bits, lanes_int a, lanes_int b)
{
    lanes_int m = lane_select_mask(bits);
    return (lanes_int){select_128(m.row0, a.row0, b.row0), select_128(m.row1, a.row1, b.row1)};
}

static inline unsigned lanes_inside32(const int32_t edge[3], const int32_t *offset)
{
    unsigned outside = 0;
    for (int half = 0; half < 2; half++) {
        __m128i any = _mm_setzero_si128();
        for (int k = 0; k < 3; k++)
            any = _mm_or_si128(any, _mm_add_epi32(_mm_set1_epi32(edge[k]),
                                                  _mm_load_si128((const __m128i *)(offset + k * LANES + 4 * half))));
        outside |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(any)) << (4 * half);
    }
    return outside ^ LANES_ALL;
}
static inline unsigned lanes_inside64(const int64_t edge[3], const int64_t *offset)
{
    unsigned outside = 0;
    for (int pair = 0; pair < 4; pair++) {
        __m128i any = _mm_setzero_si128();
        for (int k = 0; k < 3; k++)
            any = _mm_or_si128(any, _mm_add_epi64(_mm_set1_epi64x(edge[k]),
                                                  _mm_load_si128((const __m128i *)(offset + k * LANES + 2 * pair))));
        outside |= (unsigned)_mm_movemask_pd(_mm_castsi128_pd(any)) << (2 * pair);
    }
    return outside ^ LANES_ALL;
}

#else /* portable */

typedef struct lanes_float {
    float lane[LANES];
} lanes_float;
typedef struct lanes_int {
    uint32_t lane[LANES];
} lanes_int;

static inline lanes_float lf_load(const float *p)
{
    lanes_float r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = p[k];
    return r;
}
static inline void lf_store(float *p, lanes_float a)
{
    for (int k = 0; k < LANES; k++)
        p[k] = a.lane[k];
}
static inline lanes_float lf_set(float a)
{
    lanes_float r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = a;
    return r;
}
#define LANES_BINARY(name, expression)                                                                                 \
    static inline lanes_float name(lanes_float a, lanes_float b)                                                       \
    {                                                                                                                  \
        lanes_float r;                                                                                                 \
        for (int k = 0; k < LANES; k++)                                                                                \
            r.lane[k] = (expression);                                                                                  \
        return r;                                                                                                      \
    }
LANES_BINARY(lf_add, a.lane[k] + b.lane[k])
LANES_BINARY(lf_sub, a.lane[k] - b.lane[k])
LANES_BINARY(lf_mul, a.lane[k] * b.lane[k])
LANES_BINARY(lf_div, a.lane[k] / b.lane[k])
LANES_BINARY(lf_max, a.lane[k] > b.lane[k] ? a.lane[k] : b.lane[k])
LANES_BINARY(lf_min, a.lane[k] < b.lane[k] ? a.lane[k] : b.lane[k])
#undef LANES_BINARY
static inline lanes_float lf_load_rows(const float *row0, const float *row1)
{
    lanes_float r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = k < 4 ? row0[k] : row1[k - 4];
    return r;
}
static inline void lf_store_rows(float *row0, float *row1, lanes_float a)
{
    for (int k = 0; k < LANES; k++)
        *(k < 4 ? row0 + k : row1 + (k - 4)) = a.lane[k];
}
#define LANES_COMPARE(name, expression)                                                                                \
    static inline unsigned name(lanes_float a, lanes_float b)                                                          \
    {                                                                                                                  \
        unsigned bits = 0;                                                                                             \
        for (int k = 0; k < LANES; k++)                                                                                \
            bits |= (unsigned)(expression) << k;                                                                       \
        return bits;                                                                                                   \
    }
LANES_COMPARE(lf_less, a.lane[k] < b.lane[k])
LANES_COMPARE(lf_less_equal, a.lane[k] <= b.lane[k])
LANES_COMPARE(lf_equal, a.lane[k] == b.lane[k])
LANES_COMPARE(lf_not_equal, a.lane[k] != b.lane[k])
#undef LANES_COMPARE
static inline unsigned lf_nan(lanes_float a)
{
    unsigned bits = 0;
    for (int k = 0; k < LANES; k++)
        bits |= (unsigned)(a.lane[k] != a.lane[k]) << k;
    return bits;
}
static inline lanes_float lf_select(unsigned bits, lanes_float a, lanes_float b)
{
    lanes_float r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = bits >> k & 1u ? a.lane[k] : b.lane[k];
    return r;
}
static inline lanes_int lf_truncate(lanes_float a)
{
    lanes_int r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = (uint32_t)(int32_t)a.lane[k];
    return r;
}
static inline lanes_float li_to_float(lanes_int a)
{
    lanes_float r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = (float)(int32_t)a.lane[k];
    return r;
}
static inline lanes_int li_set(uint32_t a)
{
    lanes_int r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = a;
    return r;
}
static inline lanes_int li_or(lanes_int a, lanes_int b)
{
    lanes_int r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = a.lane[k] | b.lane[k];
    return r;
}
static inline lanes_int li_byte(lanes_int a, int byte)
{
    lanes_int r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = a.lane[k] >> (8 * byte) & 0xffu;
    return r;
}
static inline lanes_int li_shift_left(lanes_int a, int bits)
{
    lanes_int r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = a.lane[k] << bits;
    return r;
}
static inline lanes_int li_load_rows(const uint32_t *row0, const uint32_t *row1)
{
    lanes_int r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = k < 4 ? row0[k] : row1[k - 4];
    return r;
}
static inline void li_store_rows(uint32_t *row0, uint32_t *row1, lanes_int a)
{
    for (int k = 0; k < LANES; k++)
        *(k < 4 ? row0 + k : row1 + (k - 4)) = a.lane[k];
}
static inline void li_store(uint32_t *p, lanes_int a)
{
    for (int k = 0; k < LANES; k++)
        p[k] = a.lane[k];
}
static inline lanes_int li_load(const uint32_t *p)
{
    lanes_int r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = p[k];
    return r;
}
static inline lanes_int li_select(unsigned bits, lanes_int a, lanes_int b)
{
    lanes_int r;
    for (int k = 0; k < LANES; k++)
        r.lane[k] = bits >> k & 1u ? a.lane[k] : b.lane[k];
    return r;
}
static inline unsigned lanes_inside32(const int32_t edge[3], const int32_t *offset)
{
    unsigned bits = 0;
    for (int k = 0; k < LANES; k++) {
        int32_t any = (edge[0] + offset[k]) | (edge[1] + offset[LANES + k]) | (edge[2] + offset[2 * LANES + k]);
        bits |= (unsigned)(any >= 0) << k;
    }
    return bits;
}
static inline unsigned lanes_inside64(const int64_t edge[3], const int64_t *offset)
{
    unsigned bits = 0;
    for (int k = 0; k < LANES; k++) {
        int64_t any = (edge[0] + offset[k]) | (edge[1] + offset[LANES + k]) | (edge[2] + offset[2 * LANES + k]);
        bits |= (unsigned)(any >= 0) << k;
    }
    return bits;
}

#endif

/* Clamp to [0, 1] with NaN as 0 (maxps returns its second operand when the first is NaN). */
static inline lanes_float lf_clamp_unit(lanes_float a)
{
    return lf_min(lf_max(a, lf_set(0.0f)), lf_set(1.0f));
}

#endif
