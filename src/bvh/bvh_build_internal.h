/* src/bvh/bvh_build_internal.h — private to the static BVH build (bvh_build.c, the build loop
 * and its input and output; bvh_build_split.c, the split searches): the four-lane vectors both
 * run on, the 32-byte build records, the bounds, the builder with its SAH bins, the task of one
 * node and the split a search chooses. Never installed, not included outside these two files.
 *
 * Knows nothing of the tree's queries, of the wide tree, of raster or scene. */
#ifndef SR_BVH_BUILD_INTERNAL_H
#define SR_BVH_BUILD_INTERNAL_H

#include <softrast/bvh.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- four-lane vectors: SSE where the target has it, a plain loop elsewhere ----
 * The hot loops handle a box as two 4-lane vectors (x, y, z and an unused lane). Both versions
 * perform the same IEEE operations lane by lane (min/max are `a < b ? a : b` / `a > b ? a : b`,
 * as MINPS/MAXPS), so the tree does not depend on which one was compiled. */
#if defined(__SSE2__)
#include <emmintrin.h>
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif
typedef __m128 v4;
static inline v4 v4_load(const float *p)
{
    return _mm_loadu_ps(p);
}
static inline void v4_store(float *p, v4 a)
{
    _mm_storeu_ps(p, a);
}
static inline v4 v4_splat(float a)
{
    return _mm_set1_ps(a);
}
static inline v4 v4_make(float x, float y, float z)
{
    return _mm_setr_ps(x, y, z, 0.0f);
}
static inline v4 v4_add(v4 a, v4 b)
{
    return _mm_add_ps(a, b);
}
static inline v4 v4_sub(v4 a, v4 b)
{
    return _mm_sub_ps(a, b);
}
static inline v4 v4_mul(v4 a, v4 b)
{
    return _mm_mul_ps(a, b);
}
static inline v4 v4_min(v4 a, v4 b)
{
    return _mm_min_ps(a, b);
}
static inline v4 v4_max(v4 a, v4 b)
{
    return _mm_max_ps(a, b);
}
/* Lanes x, y, z kept, the fourth zeroed. */
static inline v4 v4_xyz(v4 a)
{
    return _mm_and_ps(a, _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0)));
}
/* Truncation toward zero of lanes x, y, z (which the caller keeps in int range), taken out of the
 * register lane by lane: a store and three reloads would wait on store forwarding. */
static inline void v4_truncate(v4 a, int out[4])
{
    const __m128i truncated = _mm_cvttps_epi32(a);
    out[0] = _mm_cvtsi128_si32(truncated);
    out[1] = _mm_cvtsi128_si32(_mm_shuffle_epi32(truncated, _MM_SHUFFLE(1, 1, 1, 1)));
    out[2] = _mm_cvtsi128_si32(_mm_shuffle_epi32(truncated, _MM_SHUFFLE(2, 2, 2, 2)));
    out[3] = 0;
}
/* All lanes set when `condition` is true, all clear otherwise. */
static inline v4 v4_mask(bool condition)
{
    return _mm_castsi128_ps(_mm_set1_epi32(-(int)condition));
}
/* Lanes of a where `mask` is set, of b elsewhere. */
static inline v4 v4_select(v4 mask, v4 a, v4 b)
{
#if defined(__SSE4_1__)
    return _mm_blendv_ps(b, a, mask);
#else
    return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b));
#endif
}
/* Bit i set where lane i of a < lane i of b. */
static inline int v4_less_mask(v4 a, v4 b)
{
    return _mm_movemask_ps(_mm_cmplt_ps(a, b));
}
/* Whether some lane is not equal to 0 (NaN counts as not equal). */
static inline bool v4_any_nonzero(v4 a)
{
    return _mm_movemask_ps(_mm_cmpneq_ps(a, _mm_setzero_ps())) != 0;
}
#else
typedef struct v4 {
    float lane[4];
} v4;
static inline v4 v4_load(const float *p)
{
    return (v4){{p[0], p[1], p[2], p[3]}};
}
static inline void v4_store(float *p, v4 a)
{
    memcpy(p, a.lane, sizeof a.lane);
}
static inline v4 v4_splat(float a)
{
    return (v4){{a, a, a, a}};
}
static inline v4 v4_make(float x, float y, float z)
{
    return (v4){{x, y, z, 0.0f}};
}
#define V4_LANES(expression)                                                                                           \
    v4 r;                                                                                                              \
    for (int i = 0; i < 4; i++)                                                                                        \
        r.lane[i] = expression;                                                                                        \
    return r
static inline v4 v4_add(v4 a, v4 b)
{
    V4_LANES(a.lane[i] + b.lane[i]);
}
static inline v4 v4_sub(v4 a, v4 b)
{
    V4_LANES(a.lane[i] - b.lane[i]);
}
static inline v4 v4_mul(v4 a, v4 b)
{
    V4_LANES(a.lane[i] * b.lane[i]);
}
static inline v4 v4_min(v4 a, v4 b)
{
    V4_LANES(a.lane[i] < b.lane[i] ? a.lane[i] : b.lane[i]);
}
static inline v4 v4_max(v4 a, v4 b)
{
    V4_LANES(a.lane[i] > b.lane[i] ? a.lane[i] : b.lane[i]);
}
static inline v4 v4_xyz(v4 a)
{
    V4_LANES(i < 3 ? a.lane[i] : 0.0f);
}
#undef V4_LANES
static inline void v4_truncate(v4 a, int out[4])
{
    for (int i = 0; i < 3; i++)
        out[i] = (int)a.lane[i];
    out[3] = 0;
}
/* The scalar version carries the condition itself in lane 0 of the mask. */
static inline v4 v4_mask(bool condition)
{
    return (v4){{condition ? 1.0f : 0.0f, 0.0f, 0.0f, 0.0f}};
}
static inline v4 v4_select(v4 mask, v4 a, v4 b)
{
    return mask.lane[0] != 0.0f ? a : b;
}
static inline int v4_less_mask(v4 a, v4 b)
{
    int mask = 0;
    for (int i = 0; i < 4; i++)
        mask |= (a.lane[i] < b.lane[i] ? 1 : 0) << i;
    return mask;
}
static inline bool v4_any_nonzero(v4 a)
{
    return !(a.lane[0] == 0.0f && a.lane[1] == 0.0f && a.lane[2] == 0.0f && a.lane[3] == 0.0f);
}
#endif

/* A primitive during the build: its box and its index in the caller's numbering. The index is
 * stored as the bits of min[3] (record_index; masked off before any arithmetic, so it is never
 * used as a float); max[3] is 0. 32 bytes: two vector loads. */
typedef struct build_record {
    float min[4];
    float max[4];
} build_record;

static inline uint32_t record_index(const build_record *record)
{
    uint32_t index;
    memcpy(&index, &record->min[3], sizeof index);
    return index;
}

/* Box or centroid bounds; lane 3 is unused. */
typedef struct bounds {
    float min[4], max[4];
} bounds;

/* A node whose primitives are assigned but not yet split. */
typedef struct build_task {
    uint32_t node;
    uint32_t first, count;
    int depth;
    bounds centroids;
} build_task;

#define MAX_BIN_COUNT 256
#define BIN_SETS 2
/* Nodes of fewer primitives use one set of bins: merging a second costs more than the
 * store-forwarding waits it saves. */
#define TWO_BIN_SETS_MIN 64u
#define DEFAULT_MAX_LEAF_SIZE 8
#define MAX_LEAF_SIZE 255
/* Node and slot indices are uint32 and a tree of n primitives has up to 2n nodes. */
#define MAX_PRIMITIVES 0x7fffffffu

/* The desc with its defaults filled in. */
typedef struct build_settings {
    sr_bvh_split split;
    int bin_count;
    uint32_t max_leaf_size;
    float traversal_cost;
    /* The SAH counts a node's primitives in blocks of 2^block_shift, as its leaves are tested:
     * triangle trees test packs of SR_PACK_WIDTH triangles at once (bvh_leaf.c), so a leaf of
     * 5 triangles costs as much as one of 8 and one of 1 as much as one of 4 (Embree's SAH
     * block size). Box trees call the caller's test per primitive: blocks of 1. */
    int block_shift;
} build_settings;

/* ceil(count / 2^shift) */
static inline uint32_t sr_bvh_build_blocks(uint32_t count, int shift)
{
    return (uint32_t)(((uint64_t)count + ((1u << shift) - 1u)) >> shift);
}

typedef struct builder {
    build_settings settings;
    build_record *records;
    sr_bvh_node *nodes;
    uint32_t node_count;
    int max_depth;
    /* SAH bins per axis: the box of the primitives whose centroid falls in the bin. Two sets,
     * filled by alternate primitives and merged before the sweep (see sr_bvh_build_find_sah_split).
     * bins[(set * 3 + axis) * settings.bin_count + bin] (builder_bins), only as many as the
     * configured bin count: the few KiB a build touches, not the 48 KiB of 256 per axis. */
    bounds *bins;
    /* per set and bin, the counts of the three axes side by side (lane 3 unused), so that the
     * sweeps read a bin's counts of all axes in one load: bin_counts[set * settings.bin_count + bin] */
    int32_t (*bin_counts)[4];
} builder;

/* The bins of one set and axis. */
static inline bounds *builder_bins(const builder *b, int set, int axis)
{
    return b->bins + ((size_t)set * 3 + (size_t)axis) * (size_t)b->settings.bin_count;
}

/* The counts of one set. */
static inline int32_t (*builder_counts(const builder *b, int set))[4]
{
    return b->bin_counts + (size_t)set * (size_t)b->settings.bin_count;
}

static inline bounds bounds_empty(void)
{
    return (bounds){{INFINITY, INFINITY, INFINITY, 0.0f}, {-INFINITY, -INFINITY, -INFINITY, 0.0f}};
}

/* Accumulates boxes or points in registers. */
typedef struct bounds_v4 {
    v4 min, max;
} bounds_v4;

static inline bounds_v4 bounds_v4_empty(void)
{
    return (bounds_v4){v4_make(INFINITY, INFINITY, INFINITY), v4_make(-INFINITY, -INFINITY, -INFINITY)};
}

static inline void bounds_v4_grow(bounds_v4 *b, v4 min, v4 max)
{
    b->min = v4_min(min, b->min);
    b->max = v4_max(max, b->max);
}

static inline bounds bounds_from_v4(bounds_v4 b)
{
    bounds out;
    v4_store(out.min, v4_xyz(b.min));
    v4_store(out.max, v4_xyz(b.max));
    return out;
}

/* Half the surface area: the SAH only compares ratios of areas. */
static inline float half_area(const bounds *b)
{
    float dx = b->max[0] - b->min[0], dy = b->max[1] - b->min[1], dz = b->max[2] - b->min[2];
    return dx * dy + dy * dz + dz * dx;
}

#if defined(__SSE2__)
/* dx dy + dy dz + dz dx with the products side by side: (dx, dy, dz) * (dy, dz, dx), then the sum
 * of the three lanes in the same order as the scalar version. */
static inline float half_area_v4(bounds_v4 b)
{
    const __m128 d = _mm_sub_ps(b.max, b.min);
    const __m128 products = _mm_mul_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(3, 0, 2, 1)));
    const __m128 xy_plus_yz = _mm_add_ss(products, _mm_shuffle_ps(products, products, _MM_SHUFFLE(1, 1, 1, 1)));
    return _mm_cvtss_f32(_mm_add_ss(xy_plus_yz, _mm_movehl_ps(products, products)));
}
#else
static inline float half_area_v4(bounds_v4 b)
{
    float d[4];
    v4_store(d, v4_sub(b.max, b.min));
    return d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
}
#endif

/* Binning transform of a node: bin = (centroid - origin) * scale, truncated. `scale` is finite
 * and centroids lie in the node's centroid bounds, so the product is in [0, bin_count]; the
 * clamp puts the maximum into the last bin. Inactive axes have scale 0 (everything in bin 0). */
typedef struct bin_transform {
    v4 origin, scale;
    v4 last_bin; /* bin_count - 1 in every lane */
} bin_transform;

typedef struct split_choice {
    int axis;   /* -1: no split found */
    int bin;    /* SAH: primitives of bins < bin go left */
    float cost; /* SAH: sum of half_area * count over both children */
    bin_transform transform;
    /* SAH: the children's boxes, unions of their bins' boxes (which hold the primitives' exact
     * boxes), so the partition need not compute them again */
    bounds_v4 child_box[2];
} split_choice;

/* ---- the split searches (bvh_build_split.c) ----
 * Each reads the task's records in b->records[task->first, task->first + task->count); the
 * partitions reorder them in place and fill both children's boxes and centroid bounds.
 * `restrict` says what the compiler proved when these were static in bvh_build.c and inlined
 * into the build loop: nothing writes the task or the choice during the call. Without it the
 * stores to the bins and records might alias them, and the hot loops reload the loop bound and
 * the binning transform per primitive (cachegrind, dragon_res3: 3% more instructions in the build). */

/// The binned SAH split of a task of at least 3 primitives: .axis -1 when no plane separates
/// the centroids. The bin boxes are empty on entry and on return.
split_choice sr_bvh_build_find_sah_split(builder *b, const build_task *restrict task);

/// The answer of sr_bvh_build_find_sah_split for a task of exactly 2 primitives, without the bins.
split_choice sr_bvh_build_find_pair_split(const builder *b, const build_task *task);

/// Moves the primitives of the bins below choice->bin to the front of the range (choice from
/// sr_bvh_build_find_sah_split); returns the number on the left.
uint32_t sr_bvh_build_partition_sah(builder *b, const build_task *task, const split_choice *restrict choice,
                                    bounds child_box[2], bounds child_centroids[2]);

/// Orders the 2 primitives of the task along `axis` (from sr_bvh_build_find_pair_split); returns 1.
uint32_t sr_bvh_build_partition_pair(builder *b, const build_task *task, int axis, bounds child_box[2],
                                     bounds child_centroids[2]);

/// Object-median split along the longest centroid axis; returns the number on the left.
uint32_t sr_bvh_build_partition_median(builder *b, const build_task *task, bounds child_box[2],
                                       bounds child_centroids[2]);

#endif
