/* src/bvh/bvh_build.c — builds the static BVH (softrast/bvh.h): binned SAH (or object median)
 * over triangles or boxes into a flat array of 32-byte nodes with adjacent siblings.
 *
 * The tree keeps, per leaf slot, the triangle's three vertices (not v0 and two edges): geom's
 * watertight sr_ray_triangle works on vertices (each is moved into the ray's space on its own,
 * which is what makes shared edges agree), so the traversal calls it on exactly the floats a
 * brute-force loop would, and the box of a slot is exact for the overlap queries.
 *
 * The build works on 32-byte primitive records (box + user index) that are partitioned in
 * place, so every pass over a node's primitives reads memory sequentially. It is iterative with
 * a fixed stack and allocates nothing per node: one scratch block (records and an upper bound
 * of nodes) and one final block. Everything is single-threaded and depends only on the input,
 * so the same input always gives byte-identical arrays.
 *
 * Knows nothing of raster or scene. */
#include "bvh_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

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
} build_settings;

typedef struct builder {
    build_settings settings;
    build_record *records;
    sr_bvh_node *nodes;
    uint32_t node_count;
    int max_depth;
    /* SAH bins per axis: the box of the primitives whose centroid falls in the bin. Two sets,
     * filled by alternate primitives and merged before the sweep (see find_sah_split). */
    _Alignas(16) bounds bins[BIN_SETS][3][MAX_BIN_COUNT]; /* no access straddles a cache line */
    uint32_t bin_counts[BIN_SETS][3][MAX_BIN_COUNT];
} builder;

static bounds bounds_empty(void)
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

/* Appends the record of primitive `index` with box [min, max] (lane 3 of both 0) and grows the
 * root's box and centroid bounds from registers: reloading the record just written, in pieces,
 * would stall on store forwarding. */
static inline void add_record_v4(build_record *record, v4 min, v4 max, uint32_t index, bounds_v4 *root_box,
                                 bounds_v4 *root_centroids)
{
    v4_store(record->min, min);
    memcpy(&record->min[3], &index, sizeof index);
    v4_store(record->max, max);
    const v4 centroid = v4_mul(v4_add(min, max), v4_splat(0.5f));
    bounds_v4_grow(root_box, min, max);
    bounds_v4_grow(root_centroids, centroid, centroid);
}

/* add_record_v4 from floats (the box builder). */
static inline void add_record(build_record *record, const float low[3], const float high[3], uint32_t index,
                              bounds_v4 *root_box, bounds_v4 *root_centroids)
{
    add_record_v4(record, v4_make(low[0], low[1], low[2]), v4_make(high[0], high[1], high[2]), index, root_box,
                  root_centroids);
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

/* A record's box (lane 3 zeroed) and centroid. Every pass computes the centroid this one way,
 * so the bin a primitive falls in during binning is the bin the partition sends it by. */
static inline void record_load(const build_record *record, v4 *min, v4 *max, v4 *centroid)
{
    *min = v4_xyz(v4_load(record->min));
    *max = v4_load(record->max);
    *centroid = v4_mul(v4_add(*min, *max), v4_splat(0.5f));
}

static void set_node_box(sr_bvh_node *node, const bounds *box)
{
    node->min = (sr_vec3){box->min[0], box->min[1], box->min[2]};
    node->max = (sr_vec3){box->max[0], box->max[1], box->max[2]};
}

static int ceil_log2(uint32_t n)
{
    int bits = 0;
    while (bits < 32 && ((uint64_t)1 << bits) < n)
        bits++;
    return bits;
}

/* ---- the split searches ---- */

/* Binning transform of a node: bin = (centroid - origin) * scale, truncated. `scale` is finite
 * and centroids lie in the node's centroid bounds, so the product is in [0, bin_count]; the
 * clamp puts the maximum into the last bin. Inactive axes have scale 0 (everything in bin 0). */
typedef struct bin_transform {
    v4 origin, scale;
    v4 last_bin; /* bin_count - 1 in every lane */
} bin_transform;

static inline void centroid_bins(const bin_transform *transform, v4 centroid, int bins[4])
{
    /* clamped before truncation: for x >= 0, trunc(min(x, last)) = min(trunc(x), last) */
    v4 position = v4_mul(v4_sub(centroid, transform->origin), transform->scale);
    v4_truncate(v4_min(position, transform->last_bin), bins);
}

static inline void bin_add(bounds *bin, uint32_t *count, v4 min, v4 max)
{
    v4_store(bin->min, v4_min(min, v4_load(bin->min)));
    v4_store(bin->max, v4_max(max, v4_load(bin->max)));
    (*count)++;
}

typedef struct split_choice {
    int axis;   /* -1: no split found */
    int bin;    /* SAH: primitives of bins < bin go left */
    float cost; /* SAH: sum of half_area * count over both children */
    bin_transform transform;
    /* SAH: the children's boxes, unions of their bins' boxes (which hold the primitives' exact
     * boxes), so the partition need not compute them again */
    bounds_v4 child_box[2];
} split_choice;

/* Binned SAH (Wald 2007, "On fast construction of SAH-based bounding volume hierarchies"):
 * primitives are binned by centroid along all three axes in one pass, then each bin boundary
 * is evaluated with prefix and suffix sweeps. Ties keep the first candidate evaluated (x before
 * y before z, high boundaries before low ones), so the choice is deterministic. */
static split_choice find_sah_split(builder *b, const build_task *task)
{
    split_choice best = {.axis = -1, .cost = INFINITY};
    /* A small node gets fewer bins: as many as it has primitives from 32 down, half as many
     * below (at least 4). On bunny, dragon_res3 and a 1M-triangle sphere this leaves the SAH
     * cost within 0.1% of full binning (dragon_res3: 37.0566 against 37.0573) and makes the
     * build 20-30% faster, the fixed cost of sweeping mostly empty bins being gone. */
    const int configured = b->settings.bin_count;
    int wanted = task->count < 32 ? (int)task->count / 2 : (int)task->count;
    if (wanted < 4)
        wanted = 4;
    const int bin_count = wanted < configured ? wanted : configured;
    float origin[3], scale[3];
    bool active[3];
    for (int axis = 0; axis < 3; axis++) {
        float extent = task->centroids.max[axis] - task->centroids.min[axis];
        origin[axis] = task->centroids.min[axis];
        scale[axis] = extent > 0.0f ? (float)bin_count / extent : 0.0f;
        active[axis] = extent > 0.0f && isfinite(scale[axis]);
        if (!active[axis])
            scale[axis] = 0.0f;
    }
    if (!active[0] && !active[1] && !active[2])
        return best;
    bin_transform transform = {v4_make(origin[0], origin[1], origin[2]), v4_make(scale[0], scale[1], scale[2]),
                               v4_splat((float)(bin_count - 1))};
    /* Bin boxes are empty on entry: the sweeps below reset every bin they consumed. */
    const int sets = task->count >= TWO_BIN_SETS_MIN ? 2 : 1;
    for (int set = 0; set < sets; set++)
        for (int axis = 0; axis < 3; axis++)
            for (int i = 0; i < bin_count; i++)
                b->bin_counts[set][axis][i] = 0;

    /* Neighbouring primitives mostly fall into the same bins (meshes list nearby triangles
     * together, and deeper nodes hold ever smaller regions), so with one set of bins each
     * update would wait for the previous one's store to be forwarded back. Alternate
     * primitives go to two sets, which halves those chains; min, max and counts merge exactly
     * in any order, so the bins (and the tree) are the same as with one set. */
    const build_record *records = b->records + task->first;
    for (uint32_t i = 0; i < task->count; i++) {
        const int set = (int)(i & (uint32_t)(sets - 1));
        v4 min, max, centroid;
        record_load(&records[i], &min, &max, &centroid);
        int bins[4];
        centroid_bins(&transform, centroid, bins);
        /* written out per axis so that the bin numbers stay in registers */
        bin_add(&b->bins[set][0][bins[0]], &b->bin_counts[set][0][bins[0]], min, max);
        bin_add(&b->bins[set][1][bins[1]], &b->bin_counts[set][1][bins[1]], min, max);
        bin_add(&b->bins[set][2][bins[2]], &b->bin_counts[set][2][bins[2]], min, max);
    }
    for (int axis = 0; axis < 3; axis++) {
        if (!active[axis])
            continue;
        for (int set = 1; set < sets; set++) {
            for (int i = 0; i < bin_count; i++) {
                bounds *target = &b->bins[0][axis][i], *source = &b->bins[set][axis][i];
                v4_store(target->min, v4_min(v4_load(source->min), v4_load(target->min)));
                v4_store(target->max, v4_max(v4_load(source->max), v4_load(target->max)));
                b->bin_counts[0][axis][i] += b->bin_counts[set][axis][i];
                *source = bounds_empty();
            }
        }
    }

    /* Sweeps without branches on the counts: bin 0 holds the smallest centroid and the last
     * bin the largest, so every boundary has primitives on both sides, and empty bins (empty
     * boxes) leave the running boxes unchanged. Consumed bins are reset to empty boxes. */
    float left_cost[MAX_BIN_COUNT];
    bounds_v4 left_box[MAX_BIN_COUNT];
    for (int axis = 0; axis < 3; axis++) {
        bounds *bins = b->bins[0][axis];
        const uint32_t *counts = b->bin_counts[0][axis];
        if (!active[axis]) {
            /* scale 0 put everything in bin 0 of each set */
            for (int set = 0; set < sets; set++)
                b->bins[set][axis][0] = bounds_empty();
            continue;
        }
        bounds_v4 left = bounds_v4_empty();
        /* counts fit int32 (MAX_PRIMITIVES): the conversion to float is then one instruction */
        int32_t left_count = 0;
        /* left_cost[i]: children cost of the primitives in bins 0..i, left_box[i] their box */
        for (int i = 0; i < bin_count - 1; i++) {
            bounds_v4_grow(&left, v4_load(bins[i].min), v4_load(bins[i].max));
            left_count += (int32_t)counts[i];
            left_cost[i] = half_area_v4(left) * (float)left_count;
            left_box[i] = left;
        }
        bounds_v4 right = bounds_v4_empty();
        int32_t right_count = 0;
        for (int i = bin_count - 1; i >= 1; i--) {
            bounds_v4_grow(&right, v4_load(bins[i].min), v4_load(bins[i].max));
            right_count += (int32_t)counts[i];
            bins[i] = bounds_empty();
            /* NaN (0 * inf) if a side were empty: never chosen */
            float cost = left_cost[i - 1] + half_area_v4(right) * (float)right_count;
            /* Ties keep the first candidate met: x before y before z, high boundaries first. */
            if (cost < best.cost) {
                best.axis = axis;
                best.bin = i;
                best.cost = cost;
                best.child_box[0] = left_box[i - 1];
                best.child_box[1] = right;
            }
        }
        bins[0] = bounds_empty();
    }
    best.transform = transform;
    return best;
}

static inline void swap_records(build_record *a, build_record *b)
{
    build_record swap = *a;
    *a = *b;
    *b = swap;
}

/* A node's partition test: bin < k exactly when (centroid - origin) * scale < k. The position is
 * >= 0, and the clamp to the last bin (>= k) and the truncation cannot move it across the integer
 * k, so the test needs neither the clamp nor the conversion of the binning pass and gives the
 * same answer for every primitive. */
static inline bool goes_left(const split_choice *choice, v4 boundary, v4 centroid)
{
    const v4 position = v4_mul(v4_sub(centroid, choice->transform.origin), choice->transform.scale);
    return (v4_less_mask(position, boundary) >> choice->axis) & 1;
}

/* Above this many records (1 MiB) a node's range is out of the first cache levels and the
 * partition is bound by memory traffic: the branching version, which moves only the records on
 * the wrong side, is faster there than the branch-free one, which moves every record. Measured
 * on the 874,800-triangle sphere. */
#define BRANCH_FREE_PARTITION_MAX 32768u

/* Moves the primitives of bins < choice->bin to the front of the task's range and computes both
 * children's centroid bounds on the way (their boxes come from the bins). Returns the number on
 * the left.
 * Small ranges: a branch-free Lomuto partition (every record is swapped with the first slot
 * after the left part, which grows by one when the record goes left). Which side a primitive
 * goes to is close to random in the order the records are in, so a branch on it is
 * mispredicted about once per two records; here the side only selects values. Large ranges:
 * Hoare-style with a branch, each record classified once. The bins and the side of each
 * primitive do not depend on the order, so the two only order the slots inside a leaf
 * differently, never a node box. */
static uint32_t partition_sah(builder *b, const build_task *task, const split_choice *choice, bounds child_box[2],
                              bounds child_centroids[2])
{
    build_record *records = b->records;
    bounds_v4 centroids[2] = {bounds_v4_empty(), bounds_v4_empty()};
    const v4 boundary = v4_splat((float)choice->bin);
    uint32_t left_end = task->first; /* [first, left_end) went left */
    uint32_t end = task->first + task->count;
    if (task->count <= BRANCH_FREE_PARTITION_MAX) {
        const bounds_v4 empty = bounds_v4_empty();
        for (uint32_t i = task->first; i < end; i++) { /* [left_end, i) went right */
            const v4 raw_min = v4_load(records[i].min), max = v4_load(records[i].max);
            /* the centroid of record_load; raw_min keeps the index for the move */
            const v4 centroid = v4_mul(v4_add(v4_xyz(raw_min), max), v4_splat(0.5f));
            const bool left = goes_left(choice, boundary, centroid);
            v4_store(records[i].min, v4_load(records[left_end].min));
            v4_store(records[i].max, v4_load(records[left_end].max));
            v4_store(records[left_end].min, raw_min);
            v4_store(records[left_end].max, max);
            left_end += left;
            const v4 mask = v4_mask(left);
            bounds_v4_grow(&centroids[0], v4_select(mask, centroid, empty.min), v4_select(mask, centroid, empty.max));
            bounds_v4_grow(&centroids[1], v4_select(mask, empty.min, centroid), v4_select(mask, empty.max, centroid));
        }
    } else {
        while (left_end < end) { /* [left_end, end) unclassified */
            v4 min, max, centroid;
            record_load(&records[left_end], &min, &max, &centroid);
            if (goes_left(choice, boundary, centroid)) {
                bounds_v4_grow(&centroids[0], centroid, centroid);
                left_end++;
            } else {
                end--;
                bounds_v4_grow(&centroids[1], centroid, centroid);
                swap_records(&records[left_end], &records[end]);
            }
        }
    }
    for (int side = 0; side < 2; side++) {
        child_box[side] = bounds_from_v4(choice->child_box[side]);
        child_centroids[side] = bounds_from_v4(centroids[side]);
    }
    return left_end - task->first;
}

/* Strict order for the object median: centroid coordinate, then user index, so that equal
 * coordinates still give one deterministic order. */
static inline bool record_before(const build_record *a, const build_record *b, int axis)
{
    float ca = a->min[axis] + a->max[axis], cb = b->min[axis] + b->max[axis];
    return ca < cb || (ca == cb && record_index(a) < record_index(b));
}

/* Hoare's quickselect with a median-of-three pivot: afterwards records[k] is in its sorted
 * place, everything before it is before it and everything after is after it. */
static void select_nth(build_record *records, uint32_t count, uint32_t k, int axis)
{
    uint32_t low = 0, high = count - 1;
    while (high > low) {
        uint32_t middle = low + (high - low) / 2;
        if (record_before(&records[middle], &records[low], axis))
            swap_records(&records[middle], &records[low]);
        if (record_before(&records[high], &records[low], axis))
            swap_records(&records[high], &records[low]);
        if (record_before(&records[high], &records[middle], axis))
            swap_records(&records[high], &records[middle]);
        /* now low <= middle <= high; the pivot (a copy) goes to high - 1 as a sentinel */
        if (high - low < 3)
            return;
        swap_records(&records[middle], &records[high - 1]);
        build_record pivot = records[high - 1];
        uint32_t i = low, j = high - 1;
        for (;;) {
            while (record_before(&records[++i], &pivot, axis)) {
            }
            while (record_before(&pivot, &records[--j], axis)) {
            }
            if (i >= j)
                break;
            swap_records(&records[i], &records[j]);
        }
        swap_records(&records[i], &records[high - 1]);
        if (i == k)
            return;
        if (k < i)
            high = i - 1;
        else
            low = i + 1;
    }
}

static void range_bounds(const build_record *records, uint32_t count, bounds *box, bounds *centroids)
{
    bounds_v4 box_v4 = bounds_v4_empty(), centroids_v4 = bounds_v4_empty();
    for (uint32_t i = 0; i < count; i++) {
        v4 min, max, centroid;
        record_load(&records[i], &min, &max, &centroid);
        bounds_v4_grow(&box_v4, min, max);
        bounds_v4_grow(&centroids_v4, centroid, centroid);
    }
    *box = bounds_from_v4(box_v4);
    *centroids = bounds_from_v4(centroids_v4);
}

/* Object-median split along the longest centroid axis (or of the list as it is when every
 * centroid coincides); returns the number on the left. */
static uint32_t partition_median(builder *b, const build_task *task, bounds child_box[2], bounds child_centroids[2])
{
    build_record *records = b->records + task->first;
    int axis = 0;
    float longest = -1.0f;
    for (int a = 0; a < 3; a++) {
        float extent = task->centroids.max[a] - task->centroids.min[a];
        if (extent > longest) {
            longest = extent;
            axis = a;
        }
    }
    uint32_t left_count = task->count / 2;
    if (longest > 0.0f)
        select_nth(records, task->count, left_count, axis);
    range_bounds(records, left_count, &child_box[0], &child_centroids[0]);
    range_bounds(records + left_count, task->count - left_count, &child_box[1], &child_centroids[1]);
    return left_count;
}

/* The binned search's answer for two primitives, without the bins: the first axis on which
 * their centroids differ (each centroid lands in its own end bin there, and every axis where
 * they differ costs the same), cost = the sum of their areas. Two-primitive nodes are a large
 * share of all nodes, so this saves a noticeable part of the build. */
static split_choice find_pair_split(const builder *b, const build_task *task)
{
    split_choice best = {.axis = -1, .cost = INFINITY};
    const build_record *records = b->records + task->first;
    v4 min[2], max[2], centroid[2];
    float c[2][4];
    for (int i = 0; i < 2; i++) {
        record_load(&records[i], &min[i], &max[i], &centroid[i]);
        v4_store(c[i], centroid[i]);
    }
    for (int axis = 0; axis < 3 && best.axis < 0; axis++)
        if (c[0][axis] != c[1][axis])
            best.axis = axis;
    if (best.axis >= 0)
        best.cost = half_area_v4((bounds_v4){min[0], max[0]}) * 1.0f + half_area_v4((bounds_v4){min[1], max[1]}) * 1.0f;
    return best;
}

/* Orders two primitives by centroid along the chosen axis (the smaller goes left). */
static uint32_t partition_pair(builder *b, const build_task *task, int axis, bounds child_box[2],
                               bounds child_centroids[2])
{
    build_record *records = b->records + task->first;
    float c[2][4];
    for (int i = 0; i < 2; i++) {
        v4 min, max, centroid;
        record_load(&records[i], &min, &max, &centroid);
        v4_store(c[i], centroid);
    }
    if (c[0][axis] > c[1][axis]) {
        build_record swap = records[0];
        records[0] = records[1];
        records[1] = swap;
    }
    for (int i = 0; i < 2; i++)
        range_bounds(&records[i], 1, &child_box[i], &child_centroids[i]);
    return 1;
}

/* ---- the build loop ---- */

static void make_leaf(builder *b, const build_task *task)
{
    b->nodes[task->node].first = task->first;
    b->nodes[task->node].count = task->count;
    if (task->depth > b->max_depth)
        b->max_depth = task->depth;
}

/* Splits the task's node (or makes it a leaf). Returns false for a leaf; otherwise fills the two
 * child tasks. */
static bool split_node(builder *b, const build_task *task, build_task children[2])
{
    if (task->count <= 1) {
        make_leaf(b, task);
        return false;
    }
    bool fits_leaf = task->count <= b->settings.max_leaf_size;
    bounds child_box[2], child_centroids[2];
    uint32_t left_count;
    /* Median splits halve the count, so from depth d a range of n primitives ends in leaves by
     * depth d + ceil(log2 n): switching to them in time keeps every leaf above SR_BVH_MAX_DEPTH
     * whatever the SAH would have done with a pathological distribution. */
    bool near_depth_limit = task->depth + ceil_log2(task->count) >= SR_BVH_MAX_DEPTH - 2;
    if (b->settings.split == SR_BVH_SPLIT_MEDIAN || near_depth_limit) {
        if (fits_leaf) {
            make_leaf(b, task);
            return false;
        }
        left_count = partition_median(b, task, child_box, child_centroids);
    } else {
        split_choice choice = task->count == 2 ? find_pair_split(b, task) : find_sah_split(b, task);
        if (choice.axis < 0) {
            /* Every centroid coincides (identical or symmetric primitives): no plane separates
             * them, so keep a small set as a leaf and cut a large one in half as listed. */
            if (fits_leaf) {
                make_leaf(b, task);
                return false;
            }
            left_count = partition_median(b, task, child_box, child_centroids);
        } else {
            /* SAH termination: a leaf costs count intersections; a split costs one traversal
             * step plus the area-weighted intersections of the children. */
            const sr_bvh_node *node = &b->nodes[task->node];
            bounds box = {{node->min.x, node->min.y, node->min.z, 0.0f}, {node->max.x, node->max.y, node->max.z, 0.0f}};
            float area = half_area(&box);
            float split_cost =
                area > 0.0f ? b->settings.traversal_cost + choice.cost / area : b->settings.traversal_cost;
            if (fits_leaf && split_cost >= (float)task->count) {
                make_leaf(b, task);
                return false;
            }
            left_count = task->count == 2 ? partition_pair(b, task, choice.axis, child_box, child_centroids)
                                          : partition_sah(b, task, &choice, child_box, child_centroids);
        }
    }

    uint32_t left = b->node_count;
    b->node_count += 2;
    b->nodes[task->node].first = left;
    b->nodes[task->node].count = 0;
    for (int side = 0; side < 2; side++) {
        set_node_box(&b->nodes[left + side], &child_box[side]);
        children[side] = (build_task){
            .node = left + (uint32_t)side,
            .first = side == 0 ? task->first : task->first + left_count,
            .count = side == 0 ? left_count : task->count - left_count,
            .depth = task->depth + 1,
            .centroids = child_centroids[side],
        };
    }
    return true;
}

/* Depth-first build with an explicit stack. The larger child is pushed and the smaller one
 * processed next, so every stacked task has a sibling on the current path at most half its
 * parent's size: the stack never holds more than log2(n) + 1 <= 33 tasks. */
static void build_tree(builder *b, uint32_t count, bounds root_box, bounds root_centroids)
{
    b->node_count = 1;
    set_node_box(&b->nodes[0], &root_box);
    b->nodes[0].first = 0;
    b->nodes[0].count = count;
    b->max_depth = 0;
    if (count == 0)
        return;
    /* Node 1 is padding: children are allocated in pairs from index 2 on, so with a 64-byte
     * aligned array every sibling pair shares one cache line (a traversal step reads both). */
    b->nodes[1] = (sr_bvh_node){.min = {INFINITY, INFINITY, INFINITY}, .max = {-INFINITY, -INFINITY, -INFINITY}};
    b->node_count = 2;

    build_task stack[40];
    int top = 0;
    build_task task = {.node = 0, .first = 0, .count = count, .depth = 0, .centroids = root_centroids};
    for (;;) {
        build_task children[2];
        if (split_node(b, &task, children)) {
            int larger = children[1].count > children[0].count ? 1 : 0;
            stack[top++] = children[larger];
            task = children[1 - larger];
            continue;
        }
        if (top == 0)
            break;
        task = stack[--top];
    }
    if (b->node_count == 2)
        b->node_count = 1; /* the root is the only leaf: no padding needed */
}

/* ---- statistics ---- */

static double node_half_area(const sr_bvh_node *node)
{
    double dx = (double)node->max.x - node->min.x, dy = (double)node->max.y - node->min.y,
           dz = (double)node->max.z - node->min.z;
    return dx * dy + dy * dz + dz * dx;
}

static void compute_stats(sr_bvh *bvh, int max_depth)
{
    sr_bvh_stats *stats = &bvh->stats;
    stats->node_count = bvh->node_count > 1 ? bvh->node_count - 1 : 1;
    stats->leaf_count = 0;
    stats->max_depth = max_depth;
    stats->sah_cost = 0.0;
    if (bvh->primitive_count == 0)
        return;
    double root_area = node_half_area(&bvh->nodes[0]);
    for (size_t i = 0; i < bvh->node_count; i++) {
        if (i == 1)
            continue;
        const sr_bvh_node *node = &bvh->nodes[i];
        double ratio = root_area > 0.0 ? node_half_area(node) / root_area : 1.0;
        if (node->count > 0) {
            stats->leaf_count++;
            stats->sah_cost += ratio * node->count;
        } else {
            stats->sah_cost += ratio;
        }
    }
}

/* ---- input and output ---- */

static sr_status check_desc(const sr_bvh_desc *desc, build_settings *b, sr_error *err)
{
    sr_bvh_desc defaults = {0};
    if (!desc)
        desc = &defaults;
    b->split = desc->split == SR_BVH_SPLIT_DEFAULT ? SR_BVH_SPLIT_SAH : desc->split;
    if (b->split != SR_BVH_SPLIT_SAH && b->split != SR_BVH_SPLIT_MEDIAN)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bvh_desc.split: unknown value %d", (int)desc->split);
    /* SR_BVH_DEFAULT_BIN_COUNT = 16, measured (SAH cost for bunny / dragon_res3 / a 1M-triangle
     * bumpy sphere; build instructions counted by cachegrind on dragon_res3): 8 bins give
     * 25.47 / 37.99 / 47.32 with 6% fewer instructions than 16 bins' 25.21 / 37.06 / 46.68;
     * 32 bins give 24.98 / 36.56 / 46.48 for 6% more, 64 bins 36.50 on dragon_res3 for 13%
     * more. 16 stays within 1.3% of the 32-bin cost at the lower build time. */
    b->bin_count = desc->bin_count == 0 ? SR_BVH_DEFAULT_BIN_COUNT : desc->bin_count;
    if (b->bin_count < 2 || b->bin_count > MAX_BIN_COUNT)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bvh_desc.bin_count: %d is outside [2, %d]",
                            desc->bin_count, MAX_BIN_COUNT);
    int leaf = desc->max_leaf_size == 0 ? DEFAULT_MAX_LEAF_SIZE : desc->max_leaf_size;
    if (leaf < 1 || leaf > MAX_LEAF_SIZE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bvh_desc.max_leaf_size: %d is outside [1, %d]",
                            desc->max_leaf_size, MAX_LEAF_SIZE);
    b->max_leaf_size = (uint32_t)leaf;
    b->traversal_cost = desc->traversal_cost == 0.0f ? 1.0f : desc->traversal_cost;
    if (!(b->traversal_cost > 0.0f) || !isfinite(b->traversal_cost))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bvh_desc.traversal_cost: %g is not a positive number",
                            (double)desc->traversal_cost);
    return SR_OK;
}

static inline bool finite3(const float *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* Scratch for one build: the records and the node array at its upper bound (2 per primitive
 * with the padding node). The builder itself holds the bins (24 KiB): heap, not stack. */
/* Asks the kernel for transparent huge pages over the 2 MiB-aligned interior of a large block
 * (Linux, THP in "madvise" mode). A large tree spans tens of megabytes that every ray walks at
 * random: with 4 KiB pages nearly every deep node costs a TLB miss, and the build page-faults
 * every 4 KiB. Only advice: the block stays the allocator's, nothing changes if it is refused. */
void sr_bvh_advise_huge_pages(void *block, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (size < 2 * huge)
        return;
    uintptr_t start = ((uintptr_t)block + huge - 1) & ~(huge - 1);
    uintptr_t end = ((uintptr_t)block + size) & ~(huge - 1);
    if (end > start)
        madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)block;
    (void)size;
#endif
}

typedef struct scratch {
    builder *builder;
    build_record *records;
} scratch;

/* Bins from bin_count on are never used: only the first bin_count per set and axis are made
 * empty (all 256 of them were 48 KiB of stores per build, a few percent of a small build). */
static sr_status scratch_create(size_t count, int bin_count, scratch *s, sr_error *err)
{
    s->builder = sr_alloc(sizeof(builder));
    s->records = sr_alloc_array(count > 0 ? count : 1, sizeof(build_record));
    if (!s->builder || !s->records) {
        sr_free(s->builder);
        sr_free(s->records);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_bvh_build: out of memory for %zu primitives", count);
    }
    sr_bvh_advise_huge_pages(s->records, (count > 0 ? count : 1) * sizeof(build_record));
    s->builder->records = s->records;
    for (int set = 0; set < BIN_SETS; set++)
        for (int axis = 0; axis < 3; axis++)
            for (int i = 0; i < bin_count; i++)
                s->builder->bins[set][axis][i] = bounds_empty();
    return SR_OK;
}

static void scratch_destroy(scratch *s)
{
    sr_free(s->builder);
    sr_free(s->records);
}

static size_t align_up(size_t value, size_t alignment)
{
    return (value + alignment - 1) / alignment * alignment;
}

/* The tree's single block: slot indices, then the per-slot triangle vertices or boxes, then the
 * nodes, 64-byte aligned. The nodes are built in place at their upper bound (2 per primitive
 * with the padding node) and the block is trimmed afterwards: the unused tail is never
 * touched, and no second node array has to be filled and copied. */
static size_t nodes_region_offset(uint32_t primitive_count, size_t per_slot_bytes)
{
    size_t data_offset = align_up((size_t)primitive_count * sizeof(uint32_t), 64);
    return align_up(data_offset + (size_t)primitive_count * per_slot_bytes, 64);
}

static sr_bvh_node *align_nodes(unsigned char *block, size_t region_offset)
{
    unsigned char *region = block + region_offset;
    return (sr_bvh_node *)(region + (64 - (uintptr_t)region % 64) % 64);
}

static sr_status tree_allocate(uint32_t primitive_count, size_t per_slot_bytes, sr_bvh **out, void **slot_data,
                               sr_error *err)
{
    size_t capacity = 2 * (size_t)primitive_count + 2;
    size_t region = nodes_region_offset(primitive_count, per_slot_bytes);
    sr_bvh *bvh = sr_calloc(1, sizeof(sr_bvh));
    size_t size = region + 64 + capacity * sizeof(sr_bvh_node);
    unsigned char *block = sr_alloc(size);
    if (!bvh || !block) {
        sr_free(bvh);
        sr_free(block);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_bvh_build: out of memory for %u primitives",
                            primitive_count);
    }
    sr_bvh_advise_huge_pages(block, size);
    bvh->allocation = block;
    bvh->primitive_indices = (uint32_t *)block;
    bvh->primitive_count = primitive_count;
    bvh->nodes = align_nodes(block, region);
    *slot_data = block + align_up((size_t)primitive_count * sizeof(uint32_t), 64);
    *out = bvh;
    return SR_OK;
}

/* Gives the unused node capacity back. If the allocator moves the block, the nodes may have to
 * slide to the new 64-byte boundary (the 64 spare bytes leave room). A failed shrink keeps the
 * larger block, which is still valid. */
static void tree_trim(sr_bvh *bvh, size_t per_slot_bytes)
{
    unsigned char *block = bvh->allocation;
    size_t region = nodes_region_offset((uint32_t)bvh->primitive_count, per_slot_bytes);
    size_t nodes_offset = (size_t)((unsigned char *)bvh->nodes - block);
    size_t nodes_bytes = bvh->node_count * sizeof(sr_bvh_node);
    unsigned char *moved = sr_realloc(block, region + 64 + nodes_bytes);
    if (!moved || moved == block)
        return;
    sr_bvh_node *nodes = align_nodes(moved, region);
    if ((unsigned char *)nodes != moved + nodes_offset)
        memmove(nodes, moved + nodes_offset, nodes_bytes);
    ptrdiff_t shift = moved - block;
    bvh->allocation = moved;
    bvh->nodes = nodes;
    bvh->primitive_indices = (uint32_t *)moved;
    if (bvh->triangles)
        bvh->triangles = (float *)((unsigned char *)bvh->triangles + shift);
    if (bvh->boxes)
        bvh->boxes = (sr_aabb *)((unsigned char *)bvh->boxes + shift);
}

/* The part both builders share once their `kept` records are made: allocates the tree (slot
 * data of per_slot_bytes per slot, returned in *slot_data for the caller to fill), builds it and
 * fills the slots' primitive indices. On failure the scratch is freed. */
static sr_status build_over_records(scratch *s, uint32_t kept, size_t per_slot_bytes, bounds_v4 root_box,
                                    bounds_v4 root_centroids, sr_bvh **out, void **slot_data, sr_error *err)
{
    sr_bvh *bvh = NULL;
    sr_status status = tree_allocate(kept, per_slot_bytes, &bvh, slot_data, err);
    if (status != SR_OK) {
        scratch_destroy(s);
        return status;
    }
    builder *b = s->builder;
    b->nodes = bvh->nodes;
    build_tree(b, kept, bounds_from_v4(root_box), bounds_from_v4(root_centroids));
    bvh->node_count = b->node_count;
    for (uint32_t slot = 0; slot < kept; slot++)
        bvh->primitive_indices[slot] = record_index(&s->records[slot]);
    *out = bvh;
    return SR_OK;
}

/* After the caller filled the slot data: statistics, the unused node capacity given back, the
 * scratch freed and the wide tree built. `count` is the number of primitives given to the
 * build. On failure (out of memory for the wide tree) the tree is destroyed. */
static sr_status finish_tree(scratch *s, sr_bvh *bvh, size_t count, size_t per_slot_bytes, sr_error *err)
{
    bvh->stats.primitive_count = bvh->primitive_count;
    bvh->stats.skipped_count = count - bvh->primitive_count;
    tree_trim(bvh, per_slot_bytes);
    compute_stats(bvh, s->builder->max_depth);
    scratch_destroy(s);
    sr_status status = sr_bvh_wide_build(bvh, err);
    if (status != SR_OK) {
        sr_bvh_destroy(bvh);
        return status;
    }
    bvh->stats.wide_node_count = bvh->wide ? bvh->wide->node_count : 0;
    bvh->stats.pack_count = bvh->wide ? bvh->wide->pack_count : 0;
    bvh->stats.bytes = bvh->node_count * sizeof(sr_bvh_node) +
                       bvh->primitive_count * (sizeof(uint32_t) + per_slot_bytes) + sr_bvh_wide_bytes(bvh);
    return SR_OK;
}

static const float *vertex_at(const sr_bvh_triangles *input, size_t stride, size_t vertex)
{
    return (const float *)((const char *)input->positions + vertex * stride);
}

/* Fills the three vertex numbers of a triangle; returns the corner (0..2) of the first one out
 * of range, or -1 when all are valid. */
static int triangle_vertices(const sr_bvh_triangles *input, size_t triangle, size_t vertices[3])
{
    for (size_t k = 0; k < 3; k++)
        vertices[k] = input->indices ? input->indices[3 * triangle + k] : 3 * triangle + k;
    for (int k = 0; k < 3; k++)
        if (vertices[k] >= input->vertex_count)
            return k;
    return -1;
}

sr_status sr_bvh_build_triangles(const sr_bvh_desc *desc, const sr_bvh_triangles *triangles, sr_bvh **out,
                                 sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bvh_build_triangles: out is NULL");
    *out = NULL;
    if (!triangles)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bvh_build_triangles: triangles is NULL");
    build_settings settings;
    sr_status status = check_desc(desc, &settings, err);
    if (status != SR_OK)
        return status;
    size_t count = triangles->triangle_count;
    if (count > MAX_PRIMITIVES)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_bvh_build_triangles: %zu triangles is more than the %u a tree can hold", count,
                            MAX_PRIMITIVES);
    if (count > 0 && !triangles->positions)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bvh_build_triangles: positions is NULL");
    size_t stride = triangles->position_stride ? triangles->position_stride : 3 * sizeof(float);
    if (stride < 3 * sizeof(float) || stride % sizeof(float) != 0)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_bvh_build_triangles: position_stride %zu is not a multiple of 4 of at least 12",
                            triangles->position_stride);

    scratch s;
    status = scratch_create(count, settings.bin_count, &s, err);
    if (status != SR_OK)
        return status;
    builder *b = s.builder;
    b->settings = settings;

    bounds_v4 root_box = bounds_v4_empty(), root_centroids = bounds_v4_empty();
    uint32_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        size_t vertices[3];
        int bad_corner = triangle_vertices(triangles, i, vertices);
        if (bad_corner >= 0) {
            scratch_destroy(&s);
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                "sr_bvh_build_triangles: triangle %zu uses vertex %zu but there are %zu vertices", i,
                                vertices[bad_corner], triangles->vertex_count);
        }
        const float *v0 = vertex_at(triangles, stride, vertices[0]);
        const float *v1 = vertex_at(triangles, stride, vertices[1]);
        const float *v2 = vertex_at(triangles, stride, vertices[2]);
        const v4 a = v4_make(v0[0], v0[1], v0[2]), b3 = v4_make(v1[0], v1[1], v1[2]), c = v4_make(v2[0], v2[1], v2[2]);
        /* x * 0 is 0 for every finite x and NaN for infinities and NaN */
        const v4 zero = v4_splat(0.0f);
        if (v4_any_nonzero(v4_add(v4_add(v4_mul(a, zero), v4_mul(b3, zero)), v4_mul(c, zero))))
            continue; /* never hit by a ray or found by an overlap query: leave it out, counted */
        add_record_v4(&s.records[kept++], v4_min(c, v4_min(a, b3)), v4_max(c, v4_max(a, b3)), (uint32_t)i, &root_box,
                      &root_centroids);
    }

    sr_bvh *bvh = NULL;
    void *slot_data = NULL;
    status = build_over_records(&s, kept, 9 * sizeof(float), root_box, root_centroids, &bvh, &slot_data, err);
    if (status != SR_OK)
        return status;
    bvh->triangles = slot_data;
    for (uint32_t slot = 0; slot < kept; slot++) {
        size_t vertices[3];
        triangle_vertices(triangles, bvh->primitive_indices[slot], vertices);
        for (int k = 0; k < 3; k++)
            memcpy(&bvh->triangles[9 * (size_t)slot + 3 * (size_t)k], vertex_at(triangles, stride, vertices[k]),
                   3 * sizeof(float));
    }
    status = finish_tree(&s, bvh, count, 9 * sizeof(float), err);
    if (status != SR_OK)
        return status;
    *out = bvh;
    return SR_OK;
}

sr_status sr_bvh_build_boxes(const sr_bvh_desc *desc, const sr_aabb *boxes, size_t count, sr_bvh **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bvh_build_boxes: out is NULL");
    *out = NULL;
    if (count > 0 && !boxes)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bvh_build_boxes: boxes is NULL");
    build_settings settings;
    sr_status status = check_desc(desc, &settings, err);
    if (status != SR_OK)
        return status;
    if (count > MAX_PRIMITIVES)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_bvh_build_boxes: %zu boxes is more than the %u a tree can hold", count, MAX_PRIMITIVES);
    scratch s;
    status = scratch_create(count, settings.bin_count, &s, err);
    if (status != SR_OK)
        return status;
    builder *b = s.builder;
    b->settings = settings;

    bounds_v4 root_box = bounds_v4_empty(), root_centroids = bounds_v4_empty();
    uint32_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        float min[3] = {boxes[i].min.x, boxes[i].min.y, boxes[i].min.z};
        float max[3] = {boxes[i].max.x, boxes[i].max.y, boxes[i].max.z};
        if (!finite3(min) || !finite3(max) || min[0] > max[0] || min[1] > max[1] || min[2] > max[2])
            continue; /* empty or unbounded: overlaps nothing usable, left out and counted */
        add_record(&s.records[kept++], min, max, (uint32_t)i, &root_box, &root_centroids);
    }

    sr_bvh *bvh = NULL;
    void *slot_data = NULL;
    status = build_over_records(&s, kept, sizeof(sr_aabb), root_box, root_centroids, &bvh, &slot_data, err);
    if (status != SR_OK)
        return status;
    bvh->boxes = slot_data;
    for (uint32_t slot = 0; slot < kept; slot++)
        bvh->boxes[slot] = boxes[bvh->primitive_indices[slot]];
    status = finish_tree(&s, bvh, count, sizeof(sr_aabb), err);
    if (status != SR_OK)
        return status;
    *out = bvh;
    return SR_OK;
}

void sr_bvh_destroy(sr_bvh *bvh)
{
    if (!bvh)
        return;
    sr_bvh_wide_destroy(bvh->wide);
    sr_free(bvh->allocation);
    sr_free(bvh);
}
