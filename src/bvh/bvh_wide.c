/* src/bvh/bvh_wide.c — collapses the binary SAH tree into the wide tree that the ray queries walk
 * (bvh_internal.h): nodes of up to 8 children, leaves of 4-triangle packs.
 *
 * The collapse (Wald, Benthin & Boulos 2008; Embree's BVH4/BVH8 from a binary tree): a wide
 * node starts with the two children of a binary node and, while it has fewer than 8, replaces
 * the child of largest surface area that is not a leaf by that child's two children. The
 * children that remain are its children: each one's box is the box of a binary node, so the
 * wide tree tests only boxes that the binary tree has, and fewer of them. A child becomes a leaf
 * when it is a binary leaf or when its whole binary subtree holds at most LEAF_TRIANGLES
 * triangles (one pack): their slots are contiguous, and testing the 4 lanes of one pack costs
 * about what testing one triangle does, so a subtree of 2-4 small leaves would only add box
 * tests. Each node also gets its children's push order for the 8 ray octants.
 *
 * Layout: one array of 32-byte units, depth first. A node is followed by the packs of its leaf
 * children (in slot order, a leaf's packs contiguous, a pack's unused lanes repeating its last
 * triangle, flagged: SR_PACK_FLAG), so the traversal finds a leaf next to its parent in memory;
 * nodes start on 64-byte boundaries. Box trees get the same nodes, with leaves that name their
 * binary leaf.
 *
 * Deterministic (no threads, no addresses in decisions, padding zeroed) and linear in the size
 * of the tree: one pass over the binary nodes for the subtree sizes, one collapse step per wide
 * node. Knows nothing of raster or scene. */
#include "bvh_leaf.h" /* bit_count, and the lanes of bvh_simd.h */

#include <string.h>

/* A binary subtree of at most this many triangles becomes one leaf (one pack). */
#define LEAF_TRIANGLES SR_PACK_WIDTH

/* Per binary node: its subtree's primitives and first slot (slots of a subtree are contiguous). */
typedef struct subtree {
    uint32_t count, first_slot;
} subtree;

typedef struct collapse {
    const sr_bvh *bvh;
    const subtree *subtrees;
    unsigned char *units; /* NULL: count the units only (the sizing pass) */
    size_t unit_count, node_count, pack_count;
} collapse;

static float half_area(const sr_bvh_node *node)
{
    const float dx = node->max.x - node->min.x, dy = node->max.y - node->min.y, dz = node->max.z - node->min.z;
    return dx * dy + dy * dz + dz * dx;
}

static bool becomes_leaf(const collapse *c, uint32_t index)
{
    return c->bvh->nodes[index].count > 0 || (c->bvh->triangles && c->subtrees[index].count <= LEAF_TRIANGLES);
}

/* The leaf reference of binary node `index`, whose subtree is one leaf of the wide tree; its
 * packs go at the end of the units. */
static uint32_t emit_leaf(collapse *c, uint32_t index)
{
    const sr_bvh *bvh = c->bvh;
    if (!bvh->triangles)
        return SR_WIDE_LEAF | index;
    const uint32_t first = c->subtrees[index].first_slot, count = c->subtrees[index].count;
    const uint32_t unit = (uint32_t)c->unit_count;
    if (!c->units) {
        const size_t packs = (count + SR_PACK_WIDTH - 1) / SR_PACK_WIDTH;
        c->unit_count += packs * (sizeof(sr_triangle_pack) / SR_WIDE_UNIT);
        c->pack_count += packs;
        return SR_WIDE_LEAF | unit;
    }
    for (uint32_t start = 0; start < count; start += SR_PACK_WIDTH) {
        sr_triangle_pack *pack = (sr_triangle_pack *)(void *)(c->units + c->unit_count * SR_WIDE_UNIT);
        c->unit_count += sizeof(sr_triangle_pack) / SR_WIDE_UNIT;
        c->pack_count++;
        const float *v[SR_PACK_WIDTH];
        for (uint32_t lane = 0; lane < SR_PACK_WIDTH; lane++) {
            const bool real = start + lane < count;
            const uint32_t slot = first + (real ? start + lane : count - 1);
            v[lane] = &bvh->triangles[9 * (size_t)slot];
            pack->primitive[lane] = bvh->primitive_indices[slot] | (real ? 0u : SR_PACK_FLAG);
        }
        /* row by row: each row of the pack written at once, in order */
        for (int k = 0; k < 3; k++)
            for (int axis = 0; axis < 3; axis++)
                for (uint32_t lane = 0; lane < SR_PACK_WIDTH; lane++)
                    pack->v[k][axis][lane] = v[lane][3 * k + axis];
        if (start + SR_PACK_WIDTH < count)
            pack->primitive[0] |= SR_PACK_FLAG;
    }
    return SR_WIDE_LEAF | unit;
}

/* The push order of every ray octant (sr_wide_node.order): children sorted by the position of
 * their box's centre along the octant's diagonal, farthest first, empty slots before all; equal
 * positions in slot order. The opposite octant's diagonal is the negated one, so its order is
 * the reverse (empty slots kept first): 4 sorts make the 8 orders. Each sort ranks the keys by
 * counting the smaller ones (8 lanes at once), without the branches of a comparison sort.
 *
 * The keys are sums of half bounds, min/2 + max/2: finite for finite boxes, and a sum of finite
 * terms may overflow to an infinity but never becomes NaN. (With min + max, a box at -FLT_MAX
 * gave -inf on two axes and x - y gave inf - inf = NaN; a NaN key, ordered against nothing, took
 * another child's rank, and that child was never pushed.) Halving is exact above the
 * subnormals, so every other box keeps the order min + max gave it. */
static void set_child_order(sr_wide_node *node, int count)
{
    float centre[3][SR_WIDE_WIDTH];
    for (int axis = 0; axis < 3; axis++)
        for (int i = 0; i < SR_WIDE_WIDTH; i++)
            centre[axis][i] =
                i < count ? 0.5f * node->bounds[2 * axis][i] + 0.5f * node->bounds[2 * axis + 1][i] : 0.0f;
    for (int p = 0; p < SR_WIDE_WIDTH; p++)
        node->order[p] = 0;
    const int empty = SR_WIDE_WIDTH - count;
    const unsigned real = (1u << count) - 1u;
    for (unsigned octant = 0; octant < 4; octant++) {
        /* octant bits: 1/d.x < 0, 1/d.y < 0 (1/d.z >= 0 here; octant + 4 is the opposite of 3 - octant) */
        const float sx = octant & 1u ? -1.0f : 1.0f, sy = octant & 2u ? -1.0f : 1.0f;
        float key[SR_WIDE_WIDTH];
        for (int i = 0; i < SR_WIDE_WIDTH; i++)
            key[i] = sx * centre[0][i] + sy * centre[1][i] + centre[2][i];
        const f8 keys = f8_load(key);
        int slots[SR_WIDE_WIDTH];
        for (int i = 0; i < count; i++) {
            /* rank: the keys before it (smaller, or equal in a lower slot) */
            const f8 mine = f8_splat(key[i]);
            const unsigned smaller = f8_lt(keys, mine), equal = f8_le(keys, mine) & ~smaller;
            const unsigned before = (smaller | (equal & ((1u << i) - 1u))) & real;
            slots[bit_count(before)] = i;
        }
        const unsigned opposite = 7u - octant;
        for (int p = 0; p < empty; p++) {
            node->order[p] |= (uint32_t)(count + p) << (3 * octant);
            node->order[p] |= (uint32_t)(count + p) << (3 * opposite);
        }
        for (int k = 0; k < count; k++) {
            /* position empty + k: this octant's k-th farthest, the opposite's k-th nearest */
            node->order[empty + k] |= (uint32_t)slots[count - 1 - k] << (3 * octant);
            node->order[empty + k] |= (uint32_t)slots[k] << (3 * opposite);
        }
    }
    node->order[0] |= (uint32_t)count << 24;
}

/* The collapse walks the binary tree from parents to children, whose pairs lie anywhere in a
 * large tree: fetching the children of a new candidate as soon as it is known overlaps those
 * cache misses with the work on the others (measured: the collapse of a 764,704-triangle tree
 * in 3/4 of the time). */
static inline void prefetch_children(const collapse *c, uint32_t index)
{
#if defined(__GNUC__)
    const sr_bvh_node *node = &c->bvh->nodes[index];
    if (node->count == 0) {
        __builtin_prefetch(&c->bvh->nodes[node->first]);
        __builtin_prefetch(&c->subtrees[node->first]);
    }
#else
    (void)c;
    (void)index;
#endif
}

/* A binary node to become a wide node, and where its reference goes (the root has none). */
typedef struct collapse_task {
    uint32_t binary;
    uint32_t parent_unit, slot;
} collapse_task;

#define NO_PARENT 0xffffffffu

/* Makes a wide node from binary node `task.binary` at the end of the units, followed by the
 * packs of its leaf children; pushes the children that are wide nodes. */
static void collapse_node(collapse *c, collapse_task task, collapse_task *stack, int *top)
{
    const sr_bvh_node *nodes = c->bvh->nodes;
    uint32_t children[SR_WIDE_WIDTH];
    float areas[SR_WIDE_WIDTH];
    int count;
    if (nodes[task.binary].count > 0) { /* the root of a tree that is one leaf */
        children[0] = task.binary;
        count = 1;
    } else {
        const uint32_t left = nodes[task.binary].first;
        children[0] = left;
        children[1] = left + 1;
        areas[0] = half_area(&nodes[left]);
        areas[1] = half_area(&nodes[left + 1]);
        count = 2;
        prefetch_children(c, left);
        prefetch_children(c, left + 1);
        while (count < SR_WIDE_WIDTH) {
            /* open the largest child that is not a leaf (the first of equal ones) */
            int open = -1;
            float open_area = -1.0f;
            for (int i = 0; i < count; i++) {
                if (!becomes_leaf(c, children[i]) && areas[i] > open_area) {
                    open = i;
                    open_area = areas[i];
                }
            }
            if (open < 0)
                break;
            const uint32_t first = nodes[children[open]].first;
            children[open] = first;
            areas[open] = half_area(&nodes[first]);
            children[count] = first + 1;
            areas[count] = half_area(&nodes[first + 1]);
            count++;
            prefetch_children(c, first);
            prefetch_children(c, first + 1);
        }
    }
    if (c->unit_count & 1u) { /* nodes on 64-byte boundaries; the padding is zero (determinism) */
        if (c->units)
            memset(c->units + c->unit_count * SR_WIDE_UNIT, 0, SR_WIDE_UNIT);
        c->unit_count++;
    }
    const uint32_t unit = (uint32_t)c->unit_count;
    if (!c->units) {
        c->unit_count += sizeof(sr_wide_node) / SR_WIDE_UNIT;
        c->node_count++;
        for (int i = count - 1; i >= 0; i--)
            if (becomes_leaf(c, children[i]))
                emit_leaf(c, children[i]);
            else
                stack[(*top)++] = (collapse_task){children[i], unit, (uint32_t)i};
        return;
    }
    sr_wide_node *node = (sr_wide_node *)(void *)(c->units + c->unit_count * SR_WIDE_UNIT);
    c->unit_count += sizeof(sr_wide_node) / SR_WIDE_UNIT;
    c->node_count++;
    if (task.parent_unit != NO_PARENT)
        ((sr_wide_node *)(void *)(c->units + (size_t)task.parent_unit * SR_WIDE_UNIT))->child[task.slot] = unit;
    for (int i = 0; i < SR_WIDE_WIDTH; i++) {
        for (int axis = 0; axis < 3; axis++) {
            node->bounds[2 * axis][i] = INFINITY;
            node->bounds[2 * axis + 1][i] = -INFINITY;
        }
        node->child[i] = 0;
    }
    for (int i = 0; i < count; i++) {
        const sr_bvh_node *child = &nodes[children[i]];
        const float min[3] = {child->min.x, child->min.y, child->min.z};
        const float max[3] = {child->max.x, child->max.y, child->max.z};
        for (int axis = 0; axis < 3; axis++) {
            node->bounds[2 * axis][i] = min[axis];
            node->bounds[2 * axis + 1][i] = max[axis];
        }
    }
    set_child_order(node, count);
    /* the leaves' packs right after the node; the wide children later, their references filled
     * in when they are made */
    for (int i = count - 1; i >= 0; i--) {
        if (becomes_leaf(c, children[i]))
            node->child[i] = emit_leaf(c, children[i]);
        else
            stack[(*top)++] = (collapse_task){children[i], unit, (uint32_t)i};
    }
}

/* The whole collapse, depth first from the root; each wide level leaves at most 7 siblings
 * waiting, over at most SR_BVH_MAX_DEPTH levels (a wide level takes at least one binary level). */
static void collapse_all(collapse *c)
{
    collapse_task stack[SR_WIDE_WIDTH * (SR_BVH_MAX_DEPTH + 1)];
    int top = 0;
    stack[top++] = (collapse_task){0, NO_PARENT, 0};
    while (top > 0) {
        collapse_task task = stack[--top];
        collapse_node(c, task, stack, &top);
    }
}

/* Wide trees whose bound is below this get the sizing pass (see sr_bvh_wide_build). */
#define SIZING_PASS_MAX ((size_t)4 << 20)

/* A 64-byte aligned array inside a block from sr_alloc (64 bytes of slack). */
static unsigned char *align_64(void *block)
{
    return (unsigned char *)block + (64 - (uintptr_t)block % 64) % 64;
}

sr_status sr_bvh_wide_build(sr_bvh *bvh, sr_error *err)
{
    bvh->wide = NULL;
    if (bvh->primitive_count == 0)
        return SR_OK;
    const sr_bvh_node *nodes = bvh->nodes;
    const size_t n = bvh->node_count;
    subtree *subtrees = sr_alloc_array(n, sizeof *subtrees);
    sr_bvh_wide *wide = sr_calloc(1, sizeof *wide);
    if (!subtrees || !wide) {
        sr_free(subtrees);
        sr_free(wide);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_bvh_build: out of memory for the wide tree");
    }
    /* Subtree sizes, bottom-up: children always have larger indices than their parent. */
    size_t leaves = 0, pack_bound = 0;
    for (size_t i = n; i-- > 0;) {
        if (i == 1 && n > 1) { /* the padding node */
            subtrees[i] = (subtree){0, 0};
            continue;
        }
        if (nodes[i].count > 0) {
            subtrees[i] = (subtree){nodes[i].count, nodes[i].first};
            leaves++;
            pack_bound += (nodes[i].count + SR_PACK_WIDTH - 1) / SR_PACK_WIDTH;
        } else {
            const subtree left = subtrees[nodes[i].first], right = subtrees[nodes[i].first + 1];
            subtrees[i] = (subtree){left.count + right.count, left.first_slot};
        }
    }
    /* Every wide node but a lone root has at least two children, each a different binary
     * leaf or subtree: there are fewer wide nodes than binary leaves. Merged leaves take fewer
     * packs than their binary leaves did. A node takes at most 9 units with its alignment. */
    const size_t unit_bound = 9 * leaves + (bvh->triangles ? 5 * pack_bound : 0) + 2;
    collapse c = {.bvh = bvh, .subtrees = subtrees};
    /* Small trees get a sizing pass (the collapse without writing, cheap while the binary tree
     * sits in the caches) and a block of exactly their size; large ones the bound, trimmed
     * afterwards, and huge pages. Measured: a block of the same size every time lets the C
     * library give a tree rebuilt in a loop the pages of the previous one, without page
     * faults (148 faults per build of the 3,674-triangle bunny down to ~70); on large trees a
     * second pass over the binary tree costs more than the faults of huge pages. */
    const bool sized = unit_bound * SR_WIDE_UNIT < SIZING_PASS_MAX;
    if (sized)
        collapse_all(&c);
    const size_t unit_count = sized ? c.unit_count : unit_bound;
    const size_t bytes = unit_count * SR_WIDE_UNIT + 64;
    wide->block = sr_alloc(bytes);
    if (!wide->block) {
        sr_free(subtrees);
        sr_free(wide);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_bvh_build: out of memory for the wide tree");
    }
    if (!sized)
        sr_advise_huge_pages(wide->block, bytes);
    c = (collapse){.bvh = bvh, .subtrees = subtrees, .units = align_64(wide->block)};
    collapse_all(&c);
    sr_free(subtrees);
    wide->unit_count = c.unit_count;
    wide->node_count = c.node_count;
    wide->pack_count = c.pack_count;
    if (!sized) {
        /* give back the unused tail; slide the units to the new alignment if the block moved */
        const size_t used = wide->unit_count * SR_WIDE_UNIT;
        const size_t offset = (size_t)(c.units - (unsigned char *)wide->block);
        unsigned char *moved = sr_realloc(wide->block, used + 64);
        if (moved) {
            unsigned char *aligned = align_64(moved);
            if (aligned != moved + offset)
                memmove(aligned, moved + offset, used);
            wide->block = moved;
            c.units = aligned;
        }
    }
    wide->units = c.units;
    bvh->wide = wide;
    return SR_OK;
}

void sr_bvh_wide_destroy(sr_bvh_wide *wide)
{
    if (!wide)
        return;
    sr_free(wide->block);
    sr_free(wide);
}

size_t sr_bvh_wide_bytes(const sr_bvh *bvh)
{
    if (!bvh || !bvh->wide)
        return 0;
    return bvh->wide->unit_count * SR_WIDE_UNIT;
}
