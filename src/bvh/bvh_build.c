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
 * The split searches (binned SAH, object median, the two-primitive shortcut) and their
 * partitions are in bvh_build_split.c; the types both files share in bvh_build_internal.h.
 *
 * Knows nothing of raster or scene. */
#include "bvh_build_internal.h"
#include "bvh_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

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
        left_count = sr_bvh_build_partition_median(b, task, child_box, child_centroids);
    } else {
        split_choice choice =
            task->count == 2 ? sr_bvh_build_find_pair_split(b, task) : sr_bvh_build_find_sah_split(b, task);
        if (choice.axis < 0) {
            /* Every centroid coincides (identical or symmetric primitives): no plane separates
             * them, so keep a small set as a leaf and cut a large one in half as listed. */
            if (fits_leaf) {
                make_leaf(b, task);
                return false;
            }
            left_count = sr_bvh_build_partition_median(b, task, child_box, child_centroids);
        } else {
            /* SAH termination: a leaf costs its intersection steps, ceil(count / block) (see
             * build_settings.block_shift); a split costs one traversal step plus the
             * area-weighted intersection steps of the children. */
            const sr_bvh_node *node = &b->nodes[task->node];
            bounds box = {{node->min.x, node->min.y, node->min.z, 0.0f}, {node->max.x, node->max.y, node->max.z, 0.0f}};
            float area = half_area(&box);
            float split_cost =
                area > 0.0f ? b->settings.traversal_cost + choice.cost / area : b->settings.traversal_cost;
            const float leaf_cost = (float)sr_bvh_build_blocks(task->count, b->settings.block_shift);
            if (fits_leaf && split_cost >= leaf_cost) {
                make_leaf(b, task);
                return false;
            }
            left_count = task->count == 2
                             ? sr_bvh_build_partition_pair(b, task, choice.axis, child_box, child_centroids)
                             : sr_bvh_build_partition_sah(b, task, &choice, child_box, child_centroids);
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
    b->block_shift = 0; /* primitives tested one at a time; triangle trees set their packs' */
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

static size_t align_up(size_t value, size_t alignment)
{
    return (value + alignment - 1) / alignment * alignment;
}

/* Scratch for one build: the records, and the builder with its bins (heap, not stack). */
typedef struct scratch {
    builder *builder; /* with its bins and counts after it, in one block */
    build_record *records;
} scratch;

/* The builder is followed in its block by the bins and counts of bin_count bins per set and
 * axis (64-byte aligned, so that no bin straddles a cache line), all bins empty. */
static sr_status scratch_create(size_t count, int bin_count, scratch *s, sr_error *err)
{
    const size_t bins = (size_t)BIN_SETS * 3 * (size_t)bin_count;
    const size_t bins_offset = align_up(sizeof(builder), 64);
    const size_t counts_offset = bins_offset + bins * sizeof(bounds);
    s->builder = sr_alloc(64 + counts_offset + (size_t)BIN_SETS * (size_t)bin_count * 4 * sizeof(int32_t));
    s->records = sr_alloc_array(count > 0 ? count : 1, sizeof(build_record));
    if (!s->builder || !s->records) {
        sr_free(s->builder);
        sr_free(s->records);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_bvh_build: out of memory for %zu primitives", count);
    }
    sr_advise_huge_pages(s->records, (count > 0 ? count : 1) * sizeof(build_record));
    builder *b = s->builder;
    unsigned char *aligned = (unsigned char *)b + (64 - (uintptr_t)b % 64) % 64;
    b->records = s->records;
    b->bins = (bounds *)(void *)(aligned + bins_offset);
    b->bin_counts = (int32_t(*)[4])(void *)(aligned + counts_offset);
    for (size_t i = 0; i < bins; i++)
        b->bins[i] = bounds_empty();
    return SR_OK;
}

static void scratch_destroy(scratch *s)
{
    sr_free(s->builder);
    sr_free(s->records);
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
    sr_advise_huge_pages(block, size);
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
    b->settings.block_shift = SR_PACK_SHIFT; /* the leaves' triangles are tested a pack at a time */

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
