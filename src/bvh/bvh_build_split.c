/* src/bvh/bvh_build_split.c — the split searches of the static BVH build: binned SAH (Wald 2007)
 * and its partition, their shortcut for two-primitive nodes, and the object median with its
 * quickselect. bvh_build.c runs the build loop and calls them once per node. Each works on one
 * node's range of build records (bvh_build_internal.h), reorders it in place and returns what
 * the build loop needs to make the two children: their boxes and centroid bounds.
 *
 * The binning, the sweeps and the partitions are the build's hot loops. Their leaf helpers are
 * static inline, here or in bvh_build_internal.h, so that they are inlined into those loops;
 * only the five sr_bvh_build_ entry points are called from the other file, once per node.
 * Every choice depends only on the records' contents and order, never on the instruction set.
 *
 * Knows nothing of the node array, of the build's input and output, of raster or scene. */
#include "bvh_build_internal.h"

#include <math.h>
#include <stdint.h>

/* A record's box (lane 3 zeroed) and centroid. Every pass computes the centroid this one way,
 * so the bin a primitive falls in during binning is the bin the partition sends it by. */
static inline void record_load(const build_record *record, v4 *min, v4 *max, v4 *centroid)
{
    *min = v4_xyz(v4_load(record->min));
    *max = v4_load(record->max);
    *centroid = v4_mul(v4_add(*min, *max), v4_splat(0.5f));
}

static inline void centroid_bins(const bin_transform *transform, v4 centroid, int bins[4])
{
    /* clamped before truncation: for x >= 0, trunc(min(x, last)) = min(trunc(x), last) */
    v4 position = v4_mul(v4_sub(centroid, transform->origin), transform->scale);
    v4_truncate(v4_min(position, transform->last_bin), bins);
}

static inline void bin_add(bounds *bin, int32_t *count, v4 min, v4 max)
{
    v4_store(bin->min, v4_min(min, v4_load(bin->min)));
    v4_store(bin->max, v4_max(max, v4_load(bin->max)));
    (*count)++;
}

/* ---- the sweeps: the three axes side by side, lane a for axis a ---- */

/* Four int32 lanes: a bin's counts of the three axes and their running sums. */
#if defined(__SSE2__)
typedef __m128i v4i;
static inline v4i v4i_load(const int32_t *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}
static inline void v4i_store(int32_t *p, v4i a)
{
    _mm_storeu_si128((__m128i *)(void *)p, a);
}
static inline v4i v4i_zero(void)
{
    return _mm_setzero_si128();
}
static inline v4i v4i_add(v4i a, v4i b)
{
    return _mm_add_epi32(a, b);
}
/* the conversion of (float)count, lane by lane (CVTDQ2PS rounds as CVTSI2SS does) */
static inline v4 v4i_to_float(v4i a)
{
    return _mm_cvtepi32_ps(a);
}
/* ceil(count / 2^shift), lane by lane */
static inline v4i v4i_blocks(v4i a, int shift)
{
    return _mm_srl_epi32(_mm_add_epi32(a, _mm_set1_epi32((1 << shift) - 1)), _mm_cvtsi32_si128(shift));
}
/* Half areas of three boxes given by their extents d[axis] = (dx, dy, dz, -): lane a is
 * dx dy + dy dz + dz dx of d[a], the very operations of half_area_v4 in the same order. The
 * extents are transposed into x, y and z vectors first. */
static inline v4 half_areas(const v4 d[3])
{
    const __m128 xy01 = _mm_unpacklo_ps(d[0], d[1]), xy22 = _mm_unpacklo_ps(d[2], d[2]);
    const __m128 zw01 = _mm_unpackhi_ps(d[0], d[1]), zw22 = _mm_unpackhi_ps(d[2], d[2]);
    const __m128 dx = _mm_movelh_ps(xy01, xy22), dy = _mm_movehl_ps(xy22, xy01), dz = _mm_movelh_ps(zw01, zw22);
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dy), _mm_mul_ps(dy, dz)), _mm_mul_ps(dz, dx));
}
/* Per lane, the lowest cost so far and its bin: a cost replaces the best one only when it is
 * lower (NaN never is), so each lane keeps the first of equal costs, as the scalar sweep did. */
typedef struct best_lanes {
    __m128 cost;
    __m128i bin;
} best_lanes;
static inline best_lanes best_lanes_start(void)
{
    return (best_lanes){_mm_set1_ps(INFINITY), _mm_setzero_si128()};
}
static inline void best_lanes_update(best_lanes *best, v4 cost, int bin)
{
    const __m128 lower = _mm_cmplt_ps(cost, best->cost);
    best->cost = _mm_min_ps(cost, best->cost);
    best->bin = _mm_or_si128(_mm_and_si128(_mm_castps_si128(lower), _mm_set1_epi32(bin)),
                             _mm_andnot_si128(_mm_castps_si128(lower), best->bin));
}
static inline void best_lanes_get(const best_lanes *best, float cost[4], int32_t bin[4])
{
    _mm_storeu_ps(cost, best->cost);
    v4i_store(bin, best->bin);
}
#else
typedef struct v4i {
    int32_t lane[4];
} v4i;
static inline v4i v4i_load(const int32_t *p)
{
    return (v4i){{p[0], p[1], p[2], p[3]}};
}
static inline void v4i_store(int32_t *p, v4i a)
{
    memcpy(p, a.lane, sizeof a.lane);
}
static inline v4i v4i_zero(void)
{
    return (v4i){{0, 0, 0, 0}};
}
static inline v4i v4i_add(v4i a, v4i b)
{
    return (v4i){{a.lane[0] + b.lane[0], a.lane[1] + b.lane[1], a.lane[2] + b.lane[2], a.lane[3] + b.lane[3]}};
}
static inline v4 v4i_to_float(v4i a)
{
    return (v4){{(float)a.lane[0], (float)a.lane[1], (float)a.lane[2], (float)a.lane[3]}};
}
static inline v4i v4i_blocks(v4i a, int shift)
{
    v4i r;
    for (int k = 0; k < 4; k++)
        r.lane[k] = (int32_t)(((uint32_t)a.lane[k] + ((1u << shift) - 1u)) >> shift);
    return r;
}
static inline v4 half_areas(const v4 d[3])
{
    v4 r = {{0.0f, 0.0f, 0.0f, 0.0f}};
    for (int a = 0; a < 3; a++) {
        const float *e = d[a].lane;
        r.lane[a] = e[0] * e[1] + e[1] * e[2] + e[2] * e[0];
    }
    return r;
}
typedef struct best_lanes {
    float cost[4];
    int32_t bin[4];
} best_lanes;
static inline best_lanes best_lanes_start(void)
{
    return (best_lanes){{INFINITY, INFINITY, INFINITY, INFINITY}, {0, 0, 0, 0}};
}
static inline void best_lanes_update(best_lanes *best, v4 cost, int bin)
{
    for (int a = 0; a < 4; a++) {
        if (cost.lane[a] < best->cost[a]) {
            best->cost[a] = cost.lane[a];
            best->bin[a] = bin;
        }
    }
}
static inline void best_lanes_get(const best_lanes *best, float cost[4], int32_t bin[4])
{
    memcpy(cost, best->cost, sizeof best->cost);
    memcpy(bin, best->bin, sizeof best->bin);
}
#endif

/* Binned SAH (Wald 2007, "On fast construction of SAH-based bounding volume hierarchies"):
 * primitives are binned by centroid along all three axes in one pass, then each bin boundary
 * is evaluated with prefix and suffix sweeps. Ties keep the first candidate evaluated (x before
 * y before z, high boundaries before low ones), so the choice is deterministic. */
split_choice sr_bvh_build_find_sah_split(builder *b, const build_task *restrict task)
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
        for (int i = 0; i < bin_count; i++)
            v4i_store(builder_counts(b, set)[i], v4i_zero());

    /* Neighbouring primitives mostly fall into the same bins (meshes list nearby triangles
     * together, and deeper nodes hold ever smaller regions), so with one set of bins each
     * update would wait for the previous one's store to be forwarded back. Alternate
     * primitives go to two sets, which halves those chains; min, max and counts merge exactly
     * in any order, so the bins (and the tree) are the same as with one set. */
    const build_record *records = b->records + task->first;
    bounds *const all_bins = b->bins;
    int32_t(*const all_counts)[4] = b->bin_counts;
    const size_t stride = (size_t)b->settings.bin_count; /* between axes; 3 * stride between sets */
    for (uint32_t i = 0; i < task->count; i++) {
        const size_t set = i & (uint32_t)(sets - 1);
        v4 min, max, centroid;
        record_load(&records[i], &min, &max, &centroid);
        int bins[4];
        centroid_bins(&transform, centroid, bins);
        /* written out per axis so that the bin numbers stay in registers */
        bounds *set_bins = all_bins + 3 * stride * set;
        int32_t(*set_counts)[4] = all_counts + stride * set;
        bin_add(&set_bins[bins[0]], &set_counts[bins[0]][0], min, max);
        bin_add(&set_bins[stride + (size_t)bins[1]], &set_counts[bins[1]][1], min, max);
        bin_add(&set_bins[2 * stride + (size_t)bins[2]], &set_counts[bins[2]][2], min, max);
    }
    /* Every axis is merged and swept, active or not: an inactive one has everything in bin 0,
     * so each of its boundaries has an empty side and costs NaN (0 * inf), never chosen. */
    for (int set = 1; set < sets; set++) {
        for (int axis = 0; axis < 3; axis++) {
            for (int i = 0; i < bin_count; i++) {
                bounds *target = &builder_bins(b, 0, axis)[i], *source = &builder_bins(b, set, axis)[i];
                v4_store(target->min, v4_min(v4_load(source->min), v4_load(target->min)));
                v4_store(target->max, v4_max(v4_load(source->max), v4_load(target->max)));
                *source = bounds_empty();
            }
        }
        for (int i = 0; i < bin_count; i++)
            v4i_store(b->bin_counts[i], v4i_add(v4i_load(b->bin_counts[i]), v4i_load(builder_counts(b, set)[i])));
    }

    /* Sweeps without branches on the counts: bin 0 holds the smallest centroid and the last
     * bin the largest, so every boundary has primitives on both sides, and empty bins (empty
     * boxes) leave the running boxes unchanged. The three axes go side by side: each keeps its
     * running box, and their areas, counts and costs are computed in the lanes of one vector
     * (half_areas), with the operations the scalar sweep did per axis. */
    bounds *const bins[3] = {builder_bins(b, 0, 0), builder_bins(b, 0, 1), builder_bins(b, 0, 2)};
    int32_t(*counts)[4] = b->bin_counts;
    /* left_cost[i][a]: children cost of the primitives in bins 0..i of axis a (their area
     * times their count in blocks, build_settings.block_shift); cost[i][a] the cost of the
     * boundary below bin i */
    _Alignas(16) float left_cost[MAX_BIN_COUNT][4];
    const int shift = b->settings.block_shift;
    best_lanes lanes = best_lanes_start();
    {
        bounds_v4 left[3] = {bounds_v4_empty(), bounds_v4_empty(), bounds_v4_empty()};
        /* counts fit int32 (MAX_PRIMITIVES) */
        v4i left_count = v4i_zero();
        for (int i = 0; i < bin_count - 1; i++) {
            v4 extent[3];
            for (int axis = 0; axis < 3; axis++) {
                bounds_v4_grow(&left[axis], v4_load(bins[axis][i].min), v4_load(bins[axis][i].max));
                extent[axis] = v4_sub(left[axis].max, left[axis].min);
            }
            left_count = v4i_add(left_count, v4i_load(counts[i]));
            v4_store(left_cost[i], v4_mul(half_areas(extent), v4i_to_float(v4i_blocks(left_count, shift))));
        }
    }
    {
        bounds_v4 right[3] = {bounds_v4_empty(), bounds_v4_empty(), bounds_v4_empty()};
        v4i right_count = v4i_zero();
        for (int i = bin_count - 1; i >= 1; i--) {
            v4 extent[3];
            for (int axis = 0; axis < 3; axis++) {
                bounds_v4_grow(&right[axis], v4_load(bins[axis][i].min), v4_load(bins[axis][i].max));
                extent[axis] = v4_sub(right[axis].max, right[axis].min);
            }
            right_count = v4i_add(right_count, v4i_load(counts[i]));
            /* NaN (0 * inf) if a side were empty: never chosen */
            const v4 cost = v4_add(v4_load(left_cost[i - 1]),
                                   v4_mul(half_areas(extent), v4i_to_float(v4i_blocks(right_count, shift))));
            best_lanes_update(&lanes, cost, i);
        }
    }
    /* Ties keep the first candidate met: x before y before z, high boundaries first (each
     * lane kept its first lowest cost). */
    float lane_cost[4];
    int32_t lane_bin[4];
    best_lanes_get(&lanes, lane_cost, lane_bin);
    for (int axis = 0; axis < 3; axis++) {
        if (active[axis] && lane_cost[axis] < best.cost) {
            best.axis = axis;
            best.bin = lane_bin[axis];
            best.cost = lane_cost[axis];
        }
    }
    /* The children's boxes: the running boxes of the chosen boundary, grown again in the order
     * of the sweeps (min and max of equal zeros of opposite signs depend on the order). */
    if (best.axis >= 0) {
        bounds *axis_bins = bins[best.axis];
        bounds_v4 left = bounds_v4_empty(), right = bounds_v4_empty();
        for (int i = 0; i < best.bin; i++) {
            bounds_v4_grow(&left, v4_load(axis_bins[i].min), v4_load(axis_bins[i].max));
            axis_bins[i] = bounds_empty();
        }
        for (int i = bin_count - 1; i >= best.bin; i--) {
            bounds_v4_grow(&right, v4_load(axis_bins[i].min), v4_load(axis_bins[i].max));
            axis_bins[i] = bounds_empty();
        }
        best.child_box[0] = left;
        best.child_box[1] = right;
    }
    /* the bins are left empty for the next node */
    for (int axis = 0; axis < 3; axis++)
        if (axis != best.axis)
            for (int i = 0; i < bin_count; i++)
                bins[axis][i] = bounds_empty();
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
uint32_t sr_bvh_build_partition_sah(builder *b, const build_task *task, const split_choice *restrict choice,
                                    bounds child_box[2], bounds child_centroids[2])
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
uint32_t sr_bvh_build_partition_median(builder *b, const build_task *task, bounds child_box[2],
                                       bounds child_centroids[2])
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
split_choice sr_bvh_build_find_pair_split(const builder *b, const build_task *task)
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
uint32_t sr_bvh_build_partition_pair(builder *b, const build_task *task, int axis, bounds child_box[2],
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
