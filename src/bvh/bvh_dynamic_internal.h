/* src/bvh/bvh_dynamic_internal.h — private to the dynamic AABB tree of softrast/bvh_dynamic.h,
 * shared by its three files: bvh_dynamic.c (creation, the node pool, insert, remove, move),
 * bvh_dynamic_query.c (the queries) and bvh_dynamic_rebuild.c (statistics, validation, rebuild).
 * Holds the tree and its node layout, node references, the small box helpers and the node
 * operations the files share (free list, heights, refits). Never installed.
 *
 * One node pool (one allocation, grown only by insert/reserve, never during a query) split by
 * use: the hot part every descent and query reads (box and child references, 32 bytes: two nodes
 * per cache line), the links that the walks back up read (parent and height, 8 bytes), and the
 * slots' generations (4 bytes). A child reference carries a leaf bit, so a descent knows a leaf
 * without reading more than its box, and a leaf's hot node holds the user data in place of the
 * child references. (Against one 48-byte node per slot, measured on 100k objects: frustum culling
 * ~1.15x and moves that reinsert ~1.1x faster, removal ~5% slower, inserts the same.)
 * Leaves are proxies and never move in the pool, so a proxy handle is a slot index plus the slot's
 * generation.
 *
 * Every function here is static inline, so that the hot loops inline them as they did when the
 * tree was one file. The references and box helpers keep the short names of file-local helpers
 * (like those of bvh_slab.h); the node operations, which act on the tree, are named
 * sr_dynamic_node_*. Knows nothing of raster, scene or the static BVH (softrast/bvh.h). */
#ifndef SR_BVH_DYNAMIC_INTERNAL_H
#define SR_BVH_DYNAMIC_INTERNAL_H

#include <softrast/bvh_dynamic.h>

#include <float.h>
#include <math.h>

#define NULL_NODE (-1) /* no node: the root's parent, the end of the free list */
#define NULL_REF UINT32_MAX
#define LEAF_BIT 0x80000000u
#define FREE_HEIGHT (-1)
#define CACHE_LINE 64

/* Large trees outgrow the L2 cache, and traversals are chains of dependent node loads: fetching
 * nodes before they are examined overlaps their misses (measured: inserts into a 100k tree about
 * 1.3x faster; see also the frustum query's ring). A hot node is 32 bytes at a 32-byte-aligned
 * address, so one prefetch brings all of it. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)(address))
#endif

/* The part of a node that descents and queries read. */
typedef struct node {
    sr_aabb box; /* fat box for leaves, union of the children for interior nodes */
    union {
        uint32_t child[2];  /* interior nodes: references (see ref_is_leaf) */
        uint64_t user_data; /* leaves */
    } u;
} node;

/* The part that the walks back up (refits, rotations, removal) and the free list use. */
typedef struct node_link {
    int32_t parent; /* NULL_NODE at the root; next free slot while on the free list */
    int32_t height; /* 0 leaf, 1 + max(children) interior, FREE_HEIGHT on the free list */
} node_link;

/* Generations: a slot's generation is odd exactly while the slot is a live leaf. It is bumped when
 * a slot becomes a leaf and when that leaf is released (interior use leaves it alone), so every
 * leaf allocation of a slot gets a new odd value, handles carry odd values, and a stale handle
 * mismatches — also when the slot has meanwhile become an interior node (its generation is then
 * even), which makes the one comparison a full liveness check. */

struct sr_dynamic_tree {
    node *nodes;           /* CACHE_LINE-aligned within `pool` */
    node_link *links;      /* follows nodes in `pool` */
    uint32_t *generations; /* follows links in `pool` */
    void *pool;            /* the one allocation holding the three arrays */
    int32_t capacity;
    uint32_t root; /* reference, NULL_REF when empty */
    int32_t free_list;
    int32_t free_count;
    int32_t proxy_count;
    float margin;
    float displacement_multiplier;
    bool exact_insertion; /* branch and bound instead of the greedy descent (see find_best_sibling) */
};

_Static_assert(sizeof(node) == 32, "a hot node must be half a cache line");

/* ---- references: a node index with bit 31 set for leaves ---- */

static inline bool ref_is_leaf(uint32_t ref)
{
    return (ref & LEAF_BIT) != 0;
}

static inline int32_t ref_index(uint32_t ref)
{
    return (int32_t)(ref & ~LEAF_BIT);
}

static inline uint32_t leaf_ref(int32_t index)
{
    return (uint32_t)index | LEAF_BIT;
}

/* ---- small box helpers, inlined in the hot loops (the tree's boxes are always finite) ---- */

static inline float min_float(float a, float b)
{
    return a < b ? a : b;
}
static inline float max_float(float a, float b)
{
    return a > b ? a : b;
}

static inline sr_aabb box_union(const sr_aabb *a, const sr_aabb *b)
{
    return (sr_aabb){{min_float(a->min.x, b->min.x), min_float(a->min.y, b->min.y), min_float(a->min.z, b->min.z)},
                     {max_float(a->max.x, b->max.x), max_float(a->max.y, b->max.y), max_float(a->max.z, b->max.z)}};
}

/* Half the surface area: SAH costs are ratios, so the factor 2 never matters. */
static inline float box_area(const sr_aabb *b)
{
    float x = b->max.x - b->min.x, y = b->max.y - b->min.y, z = b->max.z - b->min.z;
    return x * y + y * z + z * x;
}

static inline float union_area(const sr_aabb *a, const sr_aabb *b)
{
    sr_aabb u = box_union(a, b);
    return box_area(&u);
}

/* Non-short-circuit forms (& instead of &&): one branch for the whole test instead of six
 * unpredictable ones. */
static inline bool box_contains(const sr_aabb *outer, const sr_aabb *inner)
{
    return (outer->min.x <= inner->min.x) & (outer->min.y <= inner->min.y) & (outer->min.z <= inner->min.z) &
           (inner->max.x <= outer->max.x) & (inner->max.y <= outer->max.y) & (inner->max.z <= outer->max.z);
}

static inline bool box_overlaps(const sr_aabb *a, const sr_aabb *b)
{
    return (a->min.x <= b->max.x) & (b->min.x <= a->max.x) & (a->min.y <= b->max.y) & (b->min.y <= a->max.y) &
           (a->min.z <= b->max.z) & (b->min.z <= a->max.z);
}

static inline bool box_equal(const sr_aabb *a, const sr_aabb *b)
{
    return (a->min.x == b->min.x) & (a->min.y == b->min.y) & (a->min.z == b->min.z) & (a->max.x == b->max.x) &
           (a->max.y == b->max.y) & (a->max.z == b->max.z);
}

static inline sr_aabb box_expand(sr_aabb b, float margin)
{
    return (sr_aabb){{b.min.x - margin, b.min.y - margin, b.min.z - margin},
                     {b.max.x + margin, b.max.y + margin, b.max.z + margin}};
}

/* int like the comparisons it is combined with: box_is_valid joins them with a branch-free `&`,
 * which clang (-Wbitwise-instead-of-logical, an error with -Werror) refuses for bool operands. */
static inline int float_is_finite(float x)
{
    return fabsf(x) <= FLT_MAX; /* 0 for infinities and NaN */
}

/* Finite and min <= max on every axis (the comparisons are false for NaN). Bitwise & of ints on
 * purpose: nine tests without a branch each (clang's -Wbitwise-instead-of-logical asks for int
 * operands to tell that from a mistyped &&). */
static inline bool box_is_valid(const sr_aabb *b)
{
    const int finite = (int)float_is_finite(b->min.x) & (int)float_is_finite(b->min.y) &
                       (int)float_is_finite(b->min.z) & (int)float_is_finite(b->max.x) &
                       (int)float_is_finite(b->max.y) & (int)float_is_finite(b->max.z);
    const int ordered = (int)(b->min.x <= b->max.x) & (int)(b->min.y <= b->max.y) & (int)(b->min.z <= b->max.z);
    return (finite & ordered) != 0;
}

/* ---- node operations: the free list, heights, refits ---- */

/// Takes the first slot of the free list. The caller guarantees a free node (grow_pool beforehand).
static inline int32_t sr_dynamic_node_allocate(sr_dynamic_tree *tree)
{
    int32_t index = tree->free_list;
    tree->free_list = tree->links[index].parent;
    tree->free_count--;
    tree->links[index] = (node_link){.parent = NULL_NODE, .height = 0};
    return index;
}

/// Puts a slot back on the free list; a leaf's odd generation becomes even: its handles go stale.
static inline void sr_dynamic_node_release(sr_dynamic_tree *tree, int32_t index)
{
    tree->links[index] = (node_link){.parent = tree->free_list, .height = FREE_HEIGHT};
    tree->generations[index] += tree->generations[index] & 1u; /* a leaf's odd value becomes even */
    tree->free_list = index;
    tree->free_count++;
}

/// The height of the node `ref` refers to. Leaves keep height 0 in their links too: one load, no
/// branch on the leaf bit.
static inline int32_t sr_dynamic_node_height(const sr_dynamic_tree *tree, uint32_t ref)
{
    return tree->links[ref_index(ref)].height;
}

/// Recomputes an interior node's box and height from its children.
static inline void sr_dynamic_node_refit(sr_dynamic_tree *tree, int32_t index)
{
    node *n = &tree->nodes[index];
    uint32_t a = n->u.child[0], b = n->u.child[1];
    n->box = box_union(&tree->nodes[ref_index(a)].box, &tree->nodes[ref_index(b)].box);
    int32_t height_a = sr_dynamic_node_height(tree, a), height_b = sr_dynamic_node_height(tree, b);
    tree->links[index].height = 1 + (height_a > height_b ? height_a : height_b);
}

#endif
