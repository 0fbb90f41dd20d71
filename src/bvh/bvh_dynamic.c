/* src/bvh/bvh_dynamic.c — the dynamic AABB tree of softrast/bvh_dynamic.h.
 * One node pool (one allocation, grown only by insert/reserve, never during a query) split by
 * use: the hot part every descent and query reads (box and child references, 32 bytes: two nodes
 * per cache line), the links that the walks back up read (parent and height, 8 bytes), and the
 * slots' generations (4 bytes). A child reference carries a leaf bit, so a descent knows a leaf
 * without reading more than its box, and a leaf's hot node holds the user data in place of the
 * child references. (Against one 48-byte node per slot, measured on 100k objects: frustum culling
 * ~1.15x and moves that reinsert ~1.1x faster, removal ~5% slower, inserts the same.)
 * Leaves are proxies and never move in the pool, so a proxy handle is a slot index plus the slot's
 * generation.
 * Insertion: greedy SAH descent for the new leaf's sibling (Box2D v3), or on request the exact
 * branch-and-bound search (Bittner et al. 2015), then refit and rotations on the way up (Kopta et al. 2012, as in Box2D
 * v3). Removal: refit with an early exit. Queries: explicit stacks. Rebuild: top-down binned SAH over the leaves. Knows
 * nothing of raster, scene or the static BVH (softrast/bvh.h). */
#include <softrast/bvh_dynamic.h>

#include <float.h>
#include <math.h>
#include <string.h>

#define NULL_NODE (-1) /* no node: the root's parent, the end of the free list */
#define NULL_REF UINT32_MAX
#define LEAF_BIT 0x80000000u
#define FREE_HEIGHT (-1)
#define DEFAULT_PROXY_CAPACITY 64
#define DEFAULT_MARGIN 0.1f
#define DEFAULT_DISPLACEMENT_MULTIPLIER 4.0f
/* Node indices are below 2^30, so a reference's leaf bit (bit 31) never meets an index bit, and
 * 2^30 slots of 44 bytes are already 44 GiB. */
#define MAX_NODE_CAPACITY (1 << 30)
#define MAX_PROXY_CAPACITY (MAX_NODE_CAPACITY / 2)
/* A depth-first traversal never holds more than height + 1 entries (one pending sibling per level
 * plus the pair just pushed), so 256 fixed entries serve any tree up to height 254 without
 * allocating; taller (degenerate) trees get one allocation per query. */
#define QUERY_STACK_SIZE 256
/* Postponed subtrees of the branch-and-bound sibling search: at most one per level. A tree taller
 * than this (a degenerate chain) drops the deepest postponed subtrees: the insertion stays
 * correct, only possibly less than optimal. */
#define INSERT_STACK_SIZE 256
#define REBUILD_BIN_COUNT 16
#define ALL_PLANES 0x3Fu
#define INSIDE_RING_SIZE 256u
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

/* ---- node pool ---- */

static sr_status grow_pool(sr_dynamic_tree *tree, int64_t min_capacity, sr_error *err)
{
    if (min_capacity <= tree->capacity)
        return SR_OK;
    if (min_capacity > MAX_NODE_CAPACITY)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_dynamic_tree: %lld nodes exceed the limit of %d",
                            (long long)min_capacity, MAX_NODE_CAPACITY);
    int64_t new_capacity = (int64_t)tree->capacity * 2 + 2; /* + 2: see the moves below */
    if (new_capacity < min_capacity)
        new_capacity = min_capacity;
    if (new_capacity > MAX_NODE_CAPACITY)
        new_capacity = MAX_NODE_CAPACITY;
    if (new_capacity < tree->capacity + 2) /* near the limit */
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_dynamic_tree: the node pool is at its limit of %d nodes",
                            MAX_NODE_CAPACITY);
    /* One block for the three arrays, the hot nodes aligned to a cache line (the allocator hook
     * promises no more than malloc's alignment). Reallocated, so that a large pool is remapped
     * rather than copied; a failed reallocation leaves the old pool intact: the tree is unchanged.
     * (No realloc of NULL: the user's allocator hook need not accept it.) */
    size_t count = (size_t)new_capacity, old = (size_t)tree->capacity;
    const size_t slot_bytes = sizeof(node) + sizeof(node_link) + sizeof(uint32_t);
    if (count > (SIZE_MAX - CACHE_LINE) / slot_bytes)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY,
                            "sr_dynamic_tree: a pool of %lld nodes exceeds the address space", (long long)new_capacity);
    size_t bytes = CACHE_LINE - 1 + count * slot_bytes;
    size_t old_offset = tree->pool ? (size_t)((char *)tree->nodes - (char *)tree->pool) : 0;
    char *pool = tree->pool ? sr_realloc(tree->pool, bytes) : sr_alloc(bytes);
    if (!pool)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_dynamic_tree: cannot grow the node pool to %lld nodes",
                            (long long)new_capacity);
    size_t offset = (size_t)(-(uintptr_t)pool & (CACHE_LINE - 1));
    node *nodes = (node *)(pool + offset);
    node_link *links = (node_link *)(nodes + count);
    uint32_t *generations = (uint32_t *)(links + count);
    if (old > 0) {
        /* The old arrays lie at old_offset with the old capacity's spacing. The links and the
         * generations move up (the pool grows by at least two slots, 64 bytes of hot nodes, more
         * than the alignment can shift by), the last array first, so that none overwrites one
         * still to be moved; the hot nodes then move by less than a cache line, if at all. */
        char *old_nodes = pool + old_offset;
        memmove(generations, old_nodes + old * (sizeof(node) + sizeof(node_link)), old * sizeof(uint32_t));
        memmove(links, old_nodes + old * sizeof(node), old * sizeof(node_link));
        if (offset != old_offset)
            memmove(nodes, old_nodes, old * sizeof(node));
    }
    memset(nodes + old, 0, (count - old) * sizeof(node));
    memset(generations + old, 0, (count - old) * sizeof(uint32_t));
    /* Link the new slots so that the lowest index is handed out first. */
    for (int32_t i = (int32_t)new_capacity - 1; i >= tree->capacity; i--) {
        links[i] = (node_link){.parent = tree->free_list, .height = FREE_HEIGHT};
        tree->free_list = i;
    }
    tree->pool = pool;
    tree->nodes = nodes;
    tree->links = links;
    tree->generations = generations;
    tree->free_count += (int32_t)new_capacity - tree->capacity;
    tree->capacity = (int32_t)new_capacity;
    return SR_OK;
}

/* The caller guarantees a free node (grow_pool beforehand). */
static int32_t allocate_node(sr_dynamic_tree *tree)
{
    int32_t index = tree->free_list;
    tree->free_list = tree->links[index].parent;
    tree->free_count--;
    tree->links[index] = (node_link){.parent = NULL_NODE, .height = 0};
    return index;
}

static void release_node(sr_dynamic_tree *tree, int32_t index)
{
    tree->links[index] = (node_link){.parent = tree->free_list, .height = FREE_HEIGHT};
    tree->generations[index] += tree->generations[index] & 1u; /* a leaf's odd value becomes even */
    tree->free_list = index;
    tree->free_count++;
}

static inline bool proxy_is_live(const sr_dynamic_tree *tree, sr_dynamic_proxy proxy)
{
    return proxy.index < (uint32_t)tree->capacity && (proxy.generation & 1u) &&
           tree->generations[proxy.index] == proxy.generation;
}

/* Leaves keep height 0 in their links too: one load, no branch on the leaf bit. */
static inline int32_t height_of(const sr_dynamic_tree *tree, uint32_t ref)
{
    return tree->links[ref_index(ref)].height;
}

/* Recomputes an interior node's box and height from its children. */
static inline void refit_node(sr_dynamic_tree *tree, int32_t index)
{
    node *n = &tree->nodes[index];
    uint32_t a = n->u.child[0], b = n->u.child[1];
    n->box = box_union(&tree->nodes[ref_index(a)].box, &tree->nodes[ref_index(b)].box);
    int32_t height_a = height_of(tree, a), height_b = height_of(tree, b);
    tree->links[index].height = 1 + (height_a > height_b ? height_a : height_b);
}

/* ---- four surface areas at once ----
 * The insertion search and the rotations weigh many candidate boxes, each the union of two nodes'
 * boxes or a node's own box. With SSE a box is two vectors (min, max; lane 3 unused), four
 * extents are transposed so that one multiply-add sequence yields four half areas. The scalar
 * version rounds the same operations in the same order ((x y + y z) + z x; min/max as
 * `a < b ? a : b` / `a > b ? a : b`, like MINPS/MAXPS), so the tree does not depend on which one
 * was compiled. */
#if defined(__SSE2__)
#include <emmintrin.h>

typedef struct vbox {
    __m128 min, max;
} vbox;

typedef __m128 extent; /* max - min per axis; lane 3 unused */

/* A hot node's box. The second load starts at min.z so that every lane holds a coordinate: the
 * child references after the box, read as floats, could be denormals, slow in arithmetic. */
static inline vbox load_box(const node *n)
{
    __m128 shifted = _mm_loadu_ps(&n->box.min.z); /* min.z, max.x, max.y, max.z */
    return (vbox){_mm_loadu_ps(&n->box.min.x), _mm_shuffle_ps(shifted, shifted, _MM_SHUFFLE(0, 3, 2, 1))};
}

static inline vbox vbox_from_aabb(const sr_aabb *b)
{
    return (vbox){_mm_setr_ps(b->min.x, b->min.y, b->min.z, 0.0f), _mm_setr_ps(b->max.x, b->max.y, b->max.z, 0.0f)};
}

static inline extent own_extent(vbox a)
{
    return _mm_sub_ps(a.max, a.min);
}

static inline extent union_extent(vbox a, vbox b)
{
    return _mm_sub_ps(_mm_max_ps(a.max, b.max), _mm_min_ps(a.min, b.min));
}

/* out[k] = half area of extent k. */
static inline void four_areas(extent e0, extent e1, extent e2, extent e3, float out[4])
{
    __m128 low01 = _mm_unpacklo_ps(e0, e1), low23 = _mm_unpacklo_ps(e2, e3);
    __m128 high01 = _mm_unpackhi_ps(e0, e1), high23 = _mm_unpackhi_ps(e2, e3);
    __m128 x = _mm_movelh_ps(low01, low23), y = _mm_movehl_ps(low23, low01), z = _mm_movelh_ps(high01, high23);
    _mm_storeu_ps(out, _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, y), _mm_mul_ps(y, z)), _mm_mul_ps(z, x)));
}
#else
typedef sr_aabb vbox;
typedef sr_aabb extent; /* the box itself: its area is computed from it */

static inline vbox load_box(const node *n)
{
    return n->box;
}

static inline vbox vbox_from_aabb(const sr_aabb *b)
{
    return *b;
}

static inline extent own_extent(vbox a)
{
    return a;
}

static inline extent union_extent(vbox a, vbox b)
{
    return box_union(&a, &b);
}

static inline void four_areas(extent e0, extent e1, extent e2, extent e3, float out[4])
{
    out[0] = box_area(&e0), out[1] = box_area(&e1), out[2] = box_area(&e2), out[3] = box_area(&e3);
}
#endif

/* ---- insertion: branch-and-bound SAH sibling search (Bittner, Hapala, Havran 2015) ---- */

typedef struct candidate {
    int32_t node;       /* an interior node whose children are still to be examined */
    float induced_cost; /* growth of the areas of the node and its ancestors if the leaf goes below it */
} candidate;

/* The index of child `slot` of the node `n` referenced by `ref`, or n's own index for a leaf. */
static inline int32_t grandchild_index(const node *n, uint32_t ref, int slot)
{
    return ref_index(ref_is_leaf(ref) ? ref : n->u.child[slot]);
}

/* A sibling S for inserting `leaf_box` by the SAH cost of the insertion: the area of the new
 * parent, SA(S u L), plus the area growth of all S's ancestors (the induced cost).
 * The descent: from the root, weigh both children as siblings, then go on into the child with the
 * lower induced cost while its lower bound, induced cost + SA(L) (the new parent is at least as
 * large as the leaf), can still beat the best cost found so far (Box2D v3's b2FindBestSibling).
 * With `exact_insertion`, the other child is stacked too, and popped while its lower bound can
 * beat the best: the result is the exact optimum of Bittner et al., whose best-first order is
 * replaced by this depth-first one (the same optimum, without the priority queue whose
 * unpredictable sifts cost more than the nodes). Measured on 100k boxes: the stacked subtrees
 * make the search visit ~23 nodes instead of ~17 and the insert ~1.5x slower, for a ~7% lower
 * SAH cost. The children's four areas come from one vector computation (four_areas). The search
 * keeps no path: the caller reads the sibling's parent link, so the loop carries nothing but the
 * best reference and cost (measured: tracking the parent here costs ~10% of the search).
 * Returns S's reference. */
static uint32_t find_best_sibling(const sr_dynamic_tree *tree, const sr_aabb *leaf_box)
{
    const int stack_limit = tree->exact_insertion ? INSERT_STACK_SIZE : 0; /* 0: nothing is stacked */
    const node *nodes = tree->nodes;
    const float leaf_area = box_area(leaf_box);
    const vbox leaf = vbox_from_aabb(leaf_box);
    uint32_t best = tree->root;
    const node *root = &nodes[ref_index(best)];
    float best_cost = union_area(&root->box, leaf_box);
    if (ref_is_leaf(best))
        return best;
    candidate stack[INSERT_STACK_SIZE];
    int size = 0;
    stack[size++] = (candidate){ref_index(best), best_cost - box_area(&root->box)};
    while (size > 0) {
        size--;
        int32_t index = stack[size].node;
        float induced = stack[size].induced_cost;
        while (induced + leaf_area < best_cost) {
            const node *n = &nodes[index];
            uint32_t ref0 = n->u.child[0], ref1 = n->u.child[1];
            const node *a = &nodes[ref_index(ref0)], *b = &nodes[ref_index(ref1)];
            /* Both children as siblings: cost = their new parent's area + the growth above. */
            vbox box_a = load_box(a), box_b = load_box(b);
            float area[4]; /* SA(a u L), SA(b u L), SA(a), SA(b) */
            four_areas(union_extent(box_a, leaf), union_extent(box_b, leaf), own_extent(box_a), own_extent(box_b),
                       area);
            float cost0 = induced + area[0];
            float cost1 = induced + area[1];
            if (cost0 < best_cost)
                best_cost = cost0, best = ref0;
            if (cost1 < best_cost)
                best_cost = cost1, best = ref1;
            /* Below a child, the child's own growth adds to the induced cost. */
            float induced0 = ref_is_leaf(ref0) ? INFINITY : cost0 - area[2];
            float induced1 = ref_is_leaf(ref1) ? INFINITY : cost1 - area[3];
            bool swap = induced1 < induced0;
            uint32_t near = swap ? ref1 : ref0, far = swap ? ref0 : ref1;
            float induced_near = swap ? induced1 : induced0, induced_far = swap ? induced0 : induced1;
            if (induced_far + leaf_area < best_cost && size < stack_limit)
                stack[size++] = (candidate){ref_index(far), induced_far};
            /* The other child's children: the search may come back to them, and the rotations
             * on the way up after the insertion weigh them. */
            PREFETCH(&tree->links[ref_index(far)]); /* its height, for the refits on the way up */
            if (!ref_is_leaf(far)) {
                const node *f = &nodes[ref_index(far)];
                PREFETCH(&nodes[ref_index(f->u.child[0])]);
                PREFETCH(&nodes[ref_index(f->u.child[1])]);
            }
            if (induced_near == INFINITY) /* both children are leaves */
                break;
            index = ref_index(near);
            induced = induced_near;
            PREFETCH(&tree->links[index]); /* the walk back up reads the path's parent links */
            const node *m = &nodes[index];
            PREFETCH(&nodes[ref_index(m->u.child[0])]);
            PREFETCH(&nodes[ref_index(m->u.child[1])]);
        }
    }
    return best;
}

/* Exchanges the subtrees hanging at parent_a->child[slot_a] and parent_b->child[slot_b]. */
static void exchange_children(sr_dynamic_tree *tree, int32_t parent_a, int slot_a, int32_t parent_b, int slot_b)
{
    node *nodes = tree->nodes;
    uint32_t a = nodes[parent_a].u.child[slot_a];
    uint32_t b = nodes[parent_b].u.child[slot_b];
    nodes[parent_a].u.child[slot_a] = b;
    nodes[parent_b].u.child[slot_b] = a;
    tree->links[ref_index(b)].parent = parent_a;
    tree->links[ref_index(a)].parent = parent_b;
}

/* Tree rotation at node A with children B, C (Kopta et al. 2012; Box2D v3's b2RotateNodes): try
 * exchanging a child of A with a grandchild on the other side, or two grandchildren across, and
 * apply the exchange that lowers the summed area of B and C the most (A's own box cannot change).
 * The children of A must be up to date; A's box and height are refitted by the caller. */
static bool rotate(sr_dynamic_tree *tree, int32_t a_index)
{
    const node *nodes = tree->nodes;
    const node *a = &nodes[a_index];
    uint32_t b_ref = a->u.child[0], c_ref = a->u.child[1];
    bool b_interior = !ref_is_leaf(b_ref), c_interior = !ref_is_leaf(c_ref);
    if (!b_interior && !c_interior)
        return false;
    int32_t b_index = ref_index(b_ref), c_index = ref_index(c_ref);
    const node *b_node = &nodes[b_index], *c_node = &nodes[c_index];
    /* D, E children of B; F, G children of C. A leaf stands in for its own missing children: the
     * moves that would need them are discarded below. */
    vbox b = load_box(b_node), c = load_box(c_node);
    vbox d = load_box(&nodes[grandchild_index(b_node, b_ref, 0)]);
    vbox e = load_box(&nodes[grandchild_index(b_node, b_ref, 1)]);
    vbox f = load_box(&nodes[grandchild_index(c_node, c_ref, 0)]);
    vbox g = load_box(&nodes[grandchild_index(c_node, c_ref, 1)]);
    float area[12];
    four_areas(own_extent(b), own_extent(c), union_extent(b, g), union_extent(b, f), area);
    four_areas(union_extent(c, e), union_extent(c, d), union_extent(f, e), union_extent(d, g), area + 4);
    four_areas(union_extent(g, e), union_extent(d, f), own_extent(b), own_extent(c), area + 8); /* 10, 11 unused */
    const float area_b = area[0], area_c = area[1];
    /* The six moves in a fixed order, each as (parent_a, slot_a) <-> (parent_b, slot_b) and the
     * change of SA(B) + SA(C): B <-> F and B <-> G (C becomes B with the one left behind), C <-> D
     * and C <-> E, D <-> F and D <-> G (E <-> G and E <-> F give the same partitions). */
    const float delta[6] = {
        area[2] - area_c,
        area[3] - area_c,
        area[4] - area_b,
        area[5] - area_b,
        area[6] + area[7] - area_b - area_c,
        area[8] + area[9] - area_b - area_c,
    };
    const bool possible[6] = {
        c_interior, c_interior, b_interior, b_interior, b_interior && c_interior, b_interior && c_interior};
    const int32_t parent_a[6] = {a_index, a_index, a_index, a_index, b_index, b_index};
    const int slot_a[6] = {0, 0, 1, 1, 0, 0};
    const int32_t parent_b[6] = {c_index, c_index, b_index, b_index, c_index, c_index};
    const int slot_b[6] = {0, 1, 0, 1, 0, 1};
    float best_delta = 0.0f;
    int best = -1;
    for (int k = 0; k < 6; k++) {
        bool better = possible[k] & (delta[k] < best_delta);
        best_delta = better ? delta[k] : best_delta;
        best = better ? k : best;
    }
    if (best < 0)
        return false;
    exchange_children(tree, parent_a[best], slot_a[best], parent_b[best], slot_b[best]);
    /* Refit the (at most two) children of A that changed. */
    if (parent_a[best] != a_index)
        refit_node(tree, parent_a[best]);
    refit_node(tree, parent_b[best]);
    return true;
}

/* Replaces the reference `old_child` in the children of `parent` (or the root) by `new_child`. */
static inline void replace_child(sr_dynamic_tree *tree, int32_t parent, uint32_t old_child, uint32_t new_child)
{
    if (parent == NULL_NODE) {
        tree->root = new_child;
        return;
    }
    node *p = &tree->nodes[parent];
    p->u.child[p->u.child[0] == old_child ? 0 : 1] = new_child;
}

/* Links an allocated leaf (box set) into the tree; needs one free node for the new parent. */
static void insert_leaf(sr_dynamic_tree *tree, int32_t leaf)
{
    if (tree->root == NULL_REF) {
        tree->root = leaf_ref(leaf);
        tree->links[leaf].parent = NULL_NODE;
        return;
    }
    uint32_t sibling = find_best_sibling(tree, &tree->nodes[leaf].box);
    int32_t old_parent = tree->links[ref_index(sibling)].parent;
    int32_t new_parent = allocate_node(tree);
    node *nodes = tree->nodes;
    node_link *links = tree->links;
    node *p = &nodes[new_parent];
    p->box = box_union(&nodes[ref_index(sibling)].box, &nodes[leaf].box);
    p->u.child[0] = sibling;
    p->u.child[1] = leaf_ref(leaf);
    links[new_parent] = (node_link){.parent = old_parent, .height = 1 + height_of(tree, sibling)};
    replace_child(tree, old_parent, sibling, (uint32_t)new_parent);
    links[ref_index(sibling)].parent = new_parent;
    links[leaf].parent = new_parent;
    /* Walk up: an ancestor whose box does not yet hold the leaf's grows by it; refit it and weigh
     * a rotation there (its children are final when we reach it). From the first ancestor that
     * already held the leaf's box, no box changes any more: only heights may, and once a height
     * comes out unchanged, every node above is as it was (their rotations were weighed when they
     * last changed). Not rotating where the box held the leaf makes inserts into a 100k tree ~15%
     * faster for a 0.2% higher SAH cost (measured). */
    const sr_aabb leaf_box = nodes[leaf].box;
    for (int32_t index = new_parent; index != NULL_NODE; index = links[index].parent) {
        int32_t old_height = links[index].height;
        if (index == new_parent || !box_contains(&nodes[index].box, &leaf_box)) {
            rotate(tree, index);
            refit_node(tree, index);
            continue;
        }
        /* The node's box holds the leaf's, so it is unchanged (it is the union of the boxes of
         * the leaves below, whatever their arrangement); only its height can change. */
        const node *n = &nodes[index];
        int32_t height_a = height_of(tree, n->u.child[0]), height_b = height_of(tree, n->u.child[1]);
        links[index].height = 1 + (height_a > height_b ? height_a : height_b);
        if (links[index].height == old_height)
            break;
    }
}

/* Unlinks a leaf (left allocated); releases its parent node. */
static void remove_leaf(sr_dynamic_tree *tree, int32_t leaf)
{
    node *nodes = tree->nodes;
    node_link *links = tree->links;
    if (tree->root == leaf_ref(leaf)) {
        tree->root = NULL_REF;
        return;
    }
    int32_t parent = links[leaf].parent;
    int32_t grandparent = links[parent].parent;
    const node *p = &nodes[parent];
    uint32_t sibling = p->u.child[p->u.child[0] == leaf_ref(leaf) ? 1 : 0];
    release_node(tree, parent);
    links[leaf].parent = NULL_NODE;
    links[ref_index(sibling)].parent = grandparent;
    replace_child(tree, grandparent, (uint32_t)parent, sibling);
    /* Shrink the ancestors; once a node's box and height come out unchanged, so do all above. */
    for (int32_t index = grandparent; index != NULL_NODE; index = links[index].parent) {
        sr_aabb old_box = nodes[index].box;
        int32_t old_height = links[index].height;
        refit_node(tree, index);
        if (old_height == links[index].height && box_equal(&old_box, &nodes[index].box))
            break;
    }
}

/* ---- create / destroy / modify ---- */

sr_status sr_dynamic_tree_create(const sr_dynamic_tree_desc *desc, sr_dynamic_tree **out_tree, sr_error *err)
{
    if (!out_tree)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_dynamic_tree_create: out_tree is NULL");
    *out_tree = NULL;
    sr_dynamic_tree_desc d = desc ? *desc : (sr_dynamic_tree_desc){0};
    if (d.initial_capacity < 0 || d.initial_capacity > MAX_PROXY_CAPACITY)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_dynamic_tree_create: initial_capacity %d is outside [0, %d]", d.initial_capacity,
                            MAX_PROXY_CAPACITY);
    if (!isfinite(d.margin) || d.margin < 0.0f)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_dynamic_tree_create: margin %g is not a finite value >= 0", (double)d.margin);
    if (!isfinite(d.displacement_multiplier) || d.displacement_multiplier < 0.0f)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_dynamic_tree_create: displacement_multiplier %g is not a finite value >= 0",
                            (double)d.displacement_multiplier);
    sr_dynamic_tree *tree = sr_calloc(1, sizeof *tree);
    if (!tree)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_dynamic_tree_create: cannot allocate the tree");
    tree->root = NULL_REF;
    tree->free_list = NULL_NODE;
    tree->margin = d.no_margin ? 0.0f : (d.margin > 0.0f ? d.margin : DEFAULT_MARGIN);
    tree->displacement_multiplier =
        d.displacement_multiplier > 0.0f ? d.displacement_multiplier : DEFAULT_DISPLACEMENT_MULTIPLIER;
    tree->exact_insertion = d.exact_insertion;
    int64_t proxies = d.initial_capacity > 0 ? d.initial_capacity : DEFAULT_PROXY_CAPACITY;
    sr_status status = grow_pool(tree, 2 * proxies, err);
    if (status != SR_OK) {
        sr_free(tree);
        return status;
    }
    *out_tree = tree;
    return SR_OK;
}

void sr_dynamic_tree_destroy(sr_dynamic_tree *tree)
{
    if (!tree)
        return;
    sr_free(tree->pool);
    sr_free(tree);
}

sr_status sr_dynamic_tree_reserve(sr_dynamic_tree *tree, int proxy_count, sr_error *err)
{
    if (!tree)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_dynamic_tree_reserve: tree is NULL");
    if (proxy_count < 0 || proxy_count > MAX_PROXY_CAPACITY)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_dynamic_tree_reserve: proxy_count %d is outside [0, %d]", proxy_count,
                            MAX_PROXY_CAPACITY);
    /* A tree of n proxies uses 2n - 1 nodes. */
    return grow_pool(tree, 2 * (int64_t)proxy_count, err);
}

static sr_status check_box(const sr_aabb *box, const char *function, sr_error *err)
{
    if (!box_is_valid(box))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "%s: box min (%g, %g, %g) max (%g, %g, %g) is not finite or has min > max", function,
                            (double)box->min.x, (double)box->min.y, (double)box->min.z, (double)box->max.x,
                            (double)box->max.y, (double)box->max.z);
    return SR_OK;
}

static sr_status check_proxy(const sr_dynamic_tree *tree, sr_dynamic_proxy proxy, const char *function, sr_error *err)
{
    if (!tree)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: tree is NULL", function);
    if (!proxy_is_live(tree, proxy))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "%s: proxy (index %u, generation %u) is stale or invalid (pool of %d nodes)", function,
                            proxy.index, proxy.generation, tree->capacity);
    return SR_OK;
}

sr_status sr_dynamic_tree_insert(sr_dynamic_tree *tree, sr_aabb box, uint64_t user_data, sr_dynamic_proxy *out_proxy,
                                 sr_error *err)
{
    if (!tree || !out_proxy)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_dynamic_tree_insert: %s is NULL",
                            !tree ? "tree" : "out_proxy");
    *out_proxy = SR_DYNAMIC_PROXY_NULL;
    sr_status status = check_box(&box, "sr_dynamic_tree_insert", err);
    if (status != SR_OK)
        return status;
    sr_aabb fat = box_expand(box, tree->margin);
    if (!box_is_valid(&fat))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_dynamic_tree_insert: box plus margin overflows");
    /* A leaf and, unless the tree is empty, a new parent: allocate both before touching the tree. */
    if (tree->free_count < 2) {
        status = grow_pool(tree, (int64_t)tree->capacity + 2, err);
        if (status != SR_OK)
            return status;
    }
    int32_t leaf = allocate_node(tree);
    tree->generations[leaf]++; /* even (free) to odd (live leaf) */
    node *n = &tree->nodes[leaf];
    n->box = fat;
    n->u.user_data = user_data;
    insert_leaf(tree, leaf);
    tree->proxy_count++;
    *out_proxy = (sr_dynamic_proxy){(uint32_t)leaf, tree->generations[leaf]};
    return SR_OK;
}

sr_status sr_dynamic_tree_remove(sr_dynamic_tree *tree, sr_dynamic_proxy proxy, sr_error *err)
{
    sr_status status = check_proxy(tree, proxy, "sr_dynamic_tree_remove", err);
    if (status != SR_OK)
        return status;
    remove_leaf(tree, (int32_t)proxy.index);
    release_node(tree, (int32_t)proxy.index);
    tree->proxy_count--;
    return SR_OK;
}

/* The slow path of sr_dynamic_tree_move's argument check: which argument was wrong. */
static sr_status move_argument_error(const sr_aabb *box, sr_vec3 displacement, sr_error *err)
{
    sr_status status = check_box(box, "sr_dynamic_tree_move", err);
    if (status != SR_OK)
        return status;
    if (!sr_vec3_is_finite(displacement))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_dynamic_tree_move: displacement is not finite");
    return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                        "sr_dynamic_tree_move: box plus margin and displacement overflows");
}

/* The quick answer of sr_dynamic_tree_move for the common case: valid arguments and a stored fat
 * box that still covers the tight box without being far too large. False means "take the full
 * path" (which checks the arguments again and reports what was wrong). The SSE version computes
 * the same fat box with the same roundings as the full path. */
#if defined(__SSE2__)
static inline bool move_keeps_fat_box(const sr_dynamic_tree *tree, const node *leaf, const sr_aabb *box,
                                      sr_vec3 displacement)
{
    const __m128 zero = _mm_setzero_ps(), margin = _mm_set1_ps(tree->margin);
    const __m128 magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF)), largest = _mm_set1_ps(FLT_MAX);
    __m128 d = _mm_mul_ps(_mm_setr_ps(displacement.x, displacement.y, displacement.z, 0.0f),
                          _mm_set1_ps(tree->displacement_multiplier));
    vbox tight = {_mm_loadu_ps(&box->min.x), _mm_setzero_ps()};
    __m128 shifted = _mm_loadu_ps(&box->min.z);
    tight.max = _mm_shuffle_ps(shifted, shifted, _MM_SHUFFLE(0, 3, 2, 1));
    /* Margin on every side, then the predicted motion on its side (NaN goes to the max side). */
    vbox fat = {_mm_add_ps(_mm_sub_ps(tight.min, margin), _mm_min_ps(d, zero)),
                _mm_add_ps(_mm_add_ps(tight.max, margin), _mm_max_ps(zero, d))};
    vbox stored = load_box(leaf);
    __m128 huge_margin = _mm_mul_ps(_mm_set1_ps(4.0f), margin);
    __m128 ok = _mm_and_ps(_mm_cmple_ps(_mm_and_ps(fat.min, magnitude), largest),
                           _mm_cmple_ps(_mm_and_ps(fat.max, magnitude), largest));
    ok = _mm_and_ps(ok, _mm_cmple_ps(tight.min, tight.max));
    ok = _mm_and_ps(ok, _mm_and_ps(_mm_cmple_ps(stored.min, tight.min), _mm_cmple_ps(tight.max, stored.max)));
    ok = _mm_and_ps(ok, _mm_and_ps(_mm_cmple_ps(_mm_sub_ps(fat.min, huge_margin), stored.min),
                                   _mm_cmple_ps(stored.max, _mm_add_ps(fat.max, huge_margin))));
    return (_mm_movemask_ps(ok) & 7) == 7;
}
#else
static inline bool move_keeps_fat_box(const sr_dynamic_tree *tree, const node *leaf, const sr_aabb *box,
                                      sr_vec3 displacement)
{
    (void)tree, (void)leaf, (void)box, (void)displacement;
    return false; /* the full path decides */
}
#endif

/* sr_dynamic_tree_move past the quick answer: a separate function, so that the quick path
 * needs no registers saved and no stack frame. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static sr_status
move_proxy(sr_dynamic_tree *tree, int32_t leaf, const sr_aabb *box_pointer, sr_vec3 displacement, bool *out_changed,
           sr_error *err)
{
    const sr_aabb box = *box_pointer;
    /* Box2D v2.4 MoveProxy: margin on every side, then the predicted motion on its side only. */
    const float margin = tree->margin;
    sr_vec3 d = sr_vec3_scale(displacement, tree->displacement_multiplier);
    sr_aabb fat = {{box.min.x - margin + (d.x < 0.0f ? d.x : 0.0f), box.min.y - margin + (d.y < 0.0f ? d.y : 0.0f),
                    box.min.z - margin + (d.z < 0.0f ? d.z : 0.0f)},
                   {box.max.x + margin + (d.x < 0.0f ? 0.0f : d.x), box.max.y + margin + (d.y < 0.0f ? 0.0f : d.y),
                    box.max.z + margin + (d.z < 0.0f ? 0.0f : d.z)}};
    /* One test for all arguments: an infinite or NaN box or displacement makes the fat box
     * non-finite (the multiplier is > 0), so a finite fat box and an ordered tight box (NaN
     * compares false) mean valid arguments. The error path finds out which one was wrong. */
    if (!(box_is_valid(&fat) & (box.min.x <= box.max.x) & (box.min.y <= box.max.y) & (box.min.z <= box.max.z)))
        return move_argument_error(&box, displacement, err);
    const sr_aabb *stored = &tree->nodes[leaf].box;
    /* Still covered: keep it unless the stored box is far larger than needed (a past prediction
     * that no longer holds), which would make queries report it needlessly. */
    if (box_contains(stored, &box)) {
        sr_aabb huge = box_expand(fat, 4.0f * margin);
        if (box_contains(&huge, stored))
            return SR_OK;
    }
    remove_leaf(tree, leaf);
    tree->nodes[leaf].box = fat;
    insert_leaf(tree, leaf); /* reuses the parent node remove_leaf released: never allocates */
    if (out_changed)
        *out_changed = true;
    return SR_OK;
}

sr_status sr_dynamic_tree_move(sr_dynamic_tree *tree, sr_dynamic_proxy proxy, sr_aabb box, sr_vec3 displacement,
                               bool *out_changed, sr_error *err)
{
    if (out_changed)
        *out_changed = false;
    if (!tree || !proxy_is_live(tree, proxy))
        return check_proxy(tree, proxy, "sr_dynamic_tree_move", err);
    if (move_keeps_fat_box(tree, &tree->nodes[proxy.index], &box, displacement))
        return SR_OK;
    return move_proxy(tree, (int32_t)proxy.index, &box, displacement, out_changed, err);
}

bool sr_dynamic_tree_proxy_is_valid(const sr_dynamic_tree *tree, sr_dynamic_proxy proxy)
{
    return tree && proxy_is_live(tree, proxy);
}

sr_status sr_dynamic_tree_get(const sr_dynamic_tree *tree, sr_dynamic_proxy proxy, sr_aabb *out_fat_box,
                              uint64_t *out_user_data, sr_error *err)
{
    sr_status status = check_proxy(tree, proxy, "sr_dynamic_tree_get", err);
    if (status != SR_OK)
        return status;
    const node *n = &tree->nodes[proxy.index];
    if (out_fat_box)
        *out_fat_box = n->box;
    if (out_user_data)
        *out_user_data = n->u.user_data;
    return SR_OK;
}

/* ---- queries ---- */

typedef struct stack_entry {
    uint32_t ref;
    union {
        float t_entry; /* ray: where the ray enters the node's box */
        uint32_t mask; /* frustum: planes still to test (0: inside all) */
        int32_t depth; /* node walk */
    } u;
} stack_entry;

typedef struct query_stack {
    stack_entry *entries;
    int capacity;
    int size;
    stack_entry fixed[QUERY_STACK_SIZE];
} query_stack;

/* Sizes the stack for the tree's height (see QUERY_STACK_SIZE); allocates only for tall trees. */
static sr_status stack_init(query_stack *stack, const sr_dynamic_tree *tree, const char *function, sr_error *err)
{
    stack->size = 0;
    stack->entries = stack->fixed;
    stack->capacity = QUERY_STACK_SIZE;
    int64_t needed = tree->root == NULL_REF ? 1 : (int64_t)height_of(tree, tree->root) + 2;
    if (needed > QUERY_STACK_SIZE) {
        stack->entries = sr_alloc_array((size_t)needed, sizeof(stack_entry));
        if (!stack->entries)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a traversal stack of %lld entries",
                                function, (long long)needed);
        stack->capacity = (int)needed;
    }
    return SR_OK;
}

static void stack_release(query_stack *stack)
{
    if (stack->entries != stack->fixed)
        sr_free(stack->entries);
}

/* Never overflows: a full stack means the stored heights are wrong (a corrupted tree). The check
 * costs one predictable branch and turns memory corruption into a reported error. */
static inline bool stack_push(query_stack *stack, stack_entry entry)
{
    if (stack->size == stack->capacity)
        return false;
    stack->entries[stack->size++] = entry;
    return true;
}

static sr_dynamic_tree_query_stats stack_overflow(sr_dynamic_tree_query_stats stats, const char *function,
                                                  sr_error *err)
{
    stats.status =
        sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                     "%s: traversal stack overflow: node heights are inconsistent (corrupted tree)", function);
    return stats;
}

static inline sr_dynamic_proxy leaf_proxy(const sr_dynamic_tree *tree, int32_t index)
{
    return (sr_dynamic_proxy){(uint32_t)index, tree->generations[index]};
}

static sr_dynamic_tree_query_stats begin_query(const sr_dynamic_tree *tree, bool has_callback, const char *function,
                                               sr_error *err)
{
    sr_dynamic_tree_query_stats stats = {0};
    if (!tree || !has_callback)
        stats.status =
            sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", function, !tree ? "tree" : "callback");
    return stats;
}

/* The shape of an overlap query: a box, or a sphere (centre and squared radius). */
typedef struct overlap_shape {
    bool is_sphere;
    sr_aabb box;
    sr_vec3 centre;
    float radius_squared;
} overlap_shape;

static inline bool shape_overlaps(const overlap_shape *shape, const sr_aabb *box)
{
    if (!shape->is_sphere)
        return box_overlaps(box, &shape->box);
    /* Arvo: squared distance from the centre to the box, axis by axis. */
    const sr_vec3 c = shape->centre;
    float dx = max_float(max_float(box->min.x - c.x, c.x - box->max.x), 0.0f);
    float dy = max_float(max_float(box->min.y - c.y, c.y - box->max.y), 0.0f);
    float dz = max_float(max_float(box->min.z - c.z, c.z - box->max.z), 0.0f);
    return dx * dx + dy * dy + dz * dz <= shape->radius_squared;
}

/* The walk of the box and sphere queries (arguments already checked): every leaf whose fat box
 * overlaps the shape goes to `fn`, depth first, until `fn` returns false. */
static sr_dynamic_tree_query_stats overlap_walk(const sr_dynamic_tree *tree, const overlap_shape *shape,
                                                sr_dynamic_tree_overlap_fn fn, void *user, const char *function,
                                                sr_dynamic_tree_query_stats stats, sr_error *err)
{
    if (tree->root == NULL_REF)
        return stats;
    query_stack stack;
    if ((stats.status = stack_init(&stack, tree, function, err)) != SR_OK)
        return stats;
    const node *nodes = tree->nodes;
    stack_push(&stack, (stack_entry){.ref = tree->root});
    while (stack.size > 0) {
        uint32_t ref = stack.entries[--stack.size].ref;
        const node *n = &nodes[ref_index(ref)];
        stats.nodes_visited++;
        if (!shape_overlaps(shape, &n->box))
            continue;
        if (ref_is_leaf(ref)) {
            stats.proxies_reported++;
            if (!fn(user, leaf_proxy(tree, ref_index(ref)), n->u.user_data)) {
                stats.stopped = true;
                break;
            }
        } else if (!stack_push(&stack, (stack_entry){.ref = n->u.child[0]}) ||
                   !stack_push(&stack, (stack_entry){.ref = n->u.child[1]})) {
            stack_release(&stack);
            return stack_overflow(stats, function, err);
        }
    }
    stack_release(&stack);
    return stats;
}

sr_dynamic_tree_query_stats sr_dynamic_tree_query_aabb(const sr_dynamic_tree *tree, sr_aabb box,
                                                       sr_dynamic_tree_overlap_fn fn, void *user, sr_error *err)
{
    static const char function[] = "sr_dynamic_tree_query_aabb";
    sr_dynamic_tree_query_stats stats = begin_query(tree, fn != NULL, function, err);
    if (stats.status != SR_OK)
        return stats;
    /* Infinite bounds are a fine query (everything on one side); only NaN is meaningless. */
    if (isnan(box.min.x) || isnan(box.min.y) || isnan(box.min.z) || isnan(box.max.x) || isnan(box.max.y) ||
        isnan(box.max.z)) {
        stats.status = sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: query box has NaN coordinates", function);
        return stats;
    }
    const overlap_shape shape = {.is_sphere = false, .box = box};
    return overlap_walk(tree, &shape, fn, user, function, stats, err);
}

sr_dynamic_tree_query_stats sr_dynamic_tree_query_sphere(const sr_dynamic_tree *tree, sr_sphere sphere,
                                                         sr_dynamic_tree_overlap_fn fn, void *user, sr_error *err)
{
    static const char function[] = "sr_dynamic_tree_query_sphere";
    sr_dynamic_tree_query_stats stats = begin_query(tree, fn != NULL, function, err);
    if (stats.status != SR_OK)
        return stats;
    if (!sr_vec3_is_finite(sphere.centre) || !(sphere.radius >= 0.0f) || isinf(sphere.radius)) {
        stats.status = sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                    "%s: sphere needs a finite centre and a finite radius >= 0 (radius %g)", function,
                                    (double)sphere.radius);
        return stats;
    }
    const overlap_shape shape = {
        .is_sphere = true, .centre = sphere.centre, .radius_squared = sphere.radius * sphere.radius};
    return overlap_walk(tree, &shape, fn, user, function, stats, err);
}

sr_dynamic_tree_query_stats sr_dynamic_tree_ray_cast(const sr_dynamic_tree *tree, const sr_ray *ray,
                                                     sr_dynamic_tree_ray_fn fn, void *user, sr_error *err)
{
    static const char function[] = "sr_dynamic_tree_ray_cast";
    sr_dynamic_tree_query_stats stats = begin_query(tree, fn != NULL, function, err);
    if (stats.status != SR_OK)
        return stats;
    if (!ray) {
        stats.status = sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: ray is NULL", function);
        return stats;
    }
    if (!sr_vec3_is_finite(ray->origin) || !sr_vec3_is_finite(ray->direction) || isnan(ray->tmin) || isnan(ray->tmax) ||
        !(ray->tmin <= ray->tmax)) {
        stats.status = sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                    "%s: ray needs a finite origin and direction and tmin <= tmax (tmin %g, tmax %g)",
                                    function, (double)ray->tmin, (double)ray->tmax);
        return stats;
    }
    if (tree->root == NULL_REF)
        return stats;
    query_stack stack;
    if ((stats.status = stack_init(&stack, tree, function, err)) != SR_OK)
        return stats;
    const node *nodes = tree->nodes;
    /* A local copy whose tmax follows the clipping; sr_ray_aabb (geom.h, inlined) reads it, so
     * boxes are closed and grazing rays hit exactly as for every other ray/box test of softrast. */
    sr_ray current = *ray;
    current.inv_direction = (sr_vec3){1.0f / ray->direction.x, 1.0f / ray->direction.y, 1.0f / ray->direction.z};
    const float tmin = ray->tmin;
    float t_root;
    stats.nodes_visited++;
    if (sr_ray_aabb(&current, &nodes[ref_index(tree->root)].box, &t_root, NULL))
        stack_push(&stack, (stack_entry){.ref = tree->root, .u.t_entry = t_root});
    while (stack.size > 0) {
        stack_entry entry = stack.entries[--stack.size];
        if (entry.u.t_entry > current.tmax)
            continue; /* the ray was clipped since this node was pushed */
        const node *n = &nodes[ref_index(entry.ref)];
        if (ref_is_leaf(entry.ref)) {
            stats.proxies_reported++;
            float result = fn(user, &current, leaf_proxy(tree, ref_index(entry.ref)), n->u.user_data);
            if (result >= current.tmax) /* go on unchanged; checked first, so that returning ray->tmax */
                continue;               /* goes on also for a ray with tmin == tmax */
            if (!(result > tmin)) {     /* 0, anything <= tmin, or NaN: stop (b2DynamicTree_RayCast) */
                stats.stopped = true;
                break;
            }
            current.tmax = result;
            continue;
        }
        /* Test both children now and push the nearer last, so it is visited first: a closest-hit
         * callback then clips the ray early and prunes the farther subtree. */
        uint32_t first = n->u.child[0], second = n->u.child[1];
        float t_first = 0.0f, t_second = 0.0f;
        bool hit_first = sr_ray_aabb(&current, &nodes[ref_index(first)].box, &t_first, NULL);
        bool hit_second = sr_ray_aabb(&current, &nodes[ref_index(second)].box, &t_second, NULL);
        stats.nodes_visited += 2;
        if (hit_first && hit_second && t_first < t_second) {
            uint32_t swap_ref = first;
            first = second, second = swap_ref;
            float swap_t = t_first;
            t_first = t_second, t_second = swap_t;
        }
        bool pushed = true;
        if (hit_first && hit_second)
            pushed = stack_push(&stack, (stack_entry){.ref = first, .u.t_entry = t_first}) &&
                     stack_push(&stack, (stack_entry){.ref = second, .u.t_entry = t_second});
        else if (hit_first)
            pushed = stack_push(&stack, (stack_entry){.ref = first, .u.t_entry = t_first});
        else if (hit_second)
            pushed = stack_push(&stack, (stack_entry){.ref = second, .u.t_entry = t_second});
        if (!pushed) {
            stack_release(&stack);
            return stack_overflow(stats, function, err);
        }
    }
    stack_release(&stack);
    return stats;
}

/* The six planes' test of one box: the corners test of sr_frustum_test_aabb, with the same
 * roundings. Per plane the p-vertex (the corner furthest along the normal) decides "outside", the
 * n-vertex "inside". Per axis, normal * (p-vertex coordinate) is the larger of normal * min and
 * normal * max (the product sr_frustum_test_aabb takes; for a zero normal component the same
 * value, up to the sign of a zero that the sums cannot see), summed in sr_vec3_dot's order. A
 * leaf follows sr_frustum_test_aabb, where NaN (inf - inf from huge normals and coordinates)
 * counts as outside; an interior node is dropped only when it is outside for certain, so that an
 * overflow in its larger box never hides a leaf. Returns the planes the box is outside of, and
 * in *inside those it is wholly inside of. (A centre/half-extent form cancels catastrophically
 * for large boxes: a box far larger than its distance to a plane came out inside it, and could
 * as well come out outside; found by fuzz_dynamic.) */
#if defined(__SSE2__)
typedef struct frustum_lanes {
    __m128 nx[2], ny[2], nz[2], d[2]; /* planes 0-3, then 4-5 and two planes 0 >= 0 */
} frustum_lanes;

static void frustum_lanes_make(const sr_plane planes[6], frustum_lanes *f)
{
    float nx[8] = {0}, ny[8] = {0}, nz[8] = {0}, d[8] = {0};
    for (int i = 0; i < 6; i++)
        nx[i] = planes[i].normal.x, ny[i] = planes[i].normal.y, nz[i] = planes[i].normal.z, d[i] = planes[i].d;
    for (int h = 0; h < 2; h++) {
        f->nx[h] = _mm_loadu_ps(nx + 4 * h);
        f->ny[h] = _mm_loadu_ps(ny + 4 * h);
        f->nz[h] = _mm_loadu_ps(nz + 4 * h);
        f->d[h] = _mm_loadu_ps(d + 4 * h);
    }
}

static inline uint32_t frustum_test(const frustum_lanes *f, const sr_aabb *box, bool leaf, uint32_t *inside)
{
    const __m128 min_x = _mm_set1_ps(box->min.x), min_y = _mm_set1_ps(box->min.y), min_z = _mm_set1_ps(box->min.z);
    const __m128 max_x = _mm_set1_ps(box->max.x), max_y = _mm_set1_ps(box->max.y), max_z = _mm_set1_ps(box->max.z);
    const __m128 zero = _mm_setzero_ps();
    uint32_t outside_bits = 0, inside_bits = 0;
    for (int h = 0; h < 2; h++) {
        const __m128 ax = _mm_mul_ps(f->nx[h], min_x), bx = _mm_mul_ps(f->nx[h], max_x);
        const __m128 ay = _mm_mul_ps(f->ny[h], min_y), by = _mm_mul_ps(f->ny[h], max_y);
        const __m128 az = _mm_mul_ps(f->nz[h], min_z), bz = _mm_mul_ps(f->nz[h], max_z);
        /* MAXPS(a, b) is a > b ? a : b, MINPS(a, b) a < b ? a : b: max_float and min_float */
        const __m128 far =
            _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_max_ps(ax, bx), _mm_max_ps(ay, by)), _mm_max_ps(az, bz)), f->d[h]);
        const __m128 near =
            _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_min_ps(ax, bx), _mm_min_ps(ay, by)), _mm_min_ps(az, bz)), f->d[h]);
        const __m128 out = leaf ? _mm_cmpnge_ps(far, zero) : _mm_cmplt_ps(far, zero);
        outside_bits |= (uint32_t)_mm_movemask_ps(out) << (4 * h);
        inside_bits |= (uint32_t)_mm_movemask_ps(_mm_cmpge_ps(near, zero)) << (4 * h);
    }
    *inside = inside_bits;
    return outside_bits;
}
#else
typedef struct frustum_lanes {
    sr_plane planes[6];
} frustum_lanes;

static void frustum_lanes_make(const sr_plane planes[6], frustum_lanes *f)
{
    memcpy(f->planes, planes, sizeof f->planes);
}

static inline uint32_t frustum_test(const frustum_lanes *f, const sr_aabb *box, bool leaf, uint32_t *inside)
{
    uint32_t outside_bits = 0, inside_bits = 0;
    for (int i = 0; i < 6; i++) {
        const sr_vec3 normal = f->planes[i].normal;
        const float ax = normal.x * box->min.x, bx = normal.x * box->max.x;
        const float ay = normal.y * box->min.y, by = normal.y * box->max.y;
        const float az = normal.z * box->min.z, bz = normal.z * box->max.z;
        const float far = max_float(ax, bx) + max_float(ay, by) + max_float(az, bz) + f->planes[i].d;
        const float near = min_float(ax, bx) + min_float(ay, by) + min_float(az, bz) + f->planes[i].d;
        outside_bits |= (uint32_t)(leaf ? !(far >= 0.0f) : far < 0.0f) << i;
        inside_bits |= (uint32_t)(near >= 0.0f) << i;
    }
    *inside = inside_bits;
    return outside_bits;
}
#endif

sr_dynamic_tree_query_stats sr_dynamic_tree_query_frustum(const sr_dynamic_tree *tree, const sr_frustum *frustum,
                                                          sr_dynamic_tree_frustum_fn fn, void *user, sr_error *err)
{
    static const char function[] = "sr_dynamic_tree_query_frustum";
    sr_dynamic_tree_query_stats stats = begin_query(tree, fn != NULL, function, err);
    if (stats.status != SR_OK)
        return stats;
    if (!frustum) {
        stats.status = sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: frustum is NULL", function);
        return stats;
    }
    sr_plane planes[6];
    for (int i = 0; i < 6; i++) {
        planes[i] = frustum->planes[i];
        if (!sr_vec3_is_finite(planes[i].normal) || !isfinite(planes[i].d)) {
            stats.status = sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: plane %d is not finite", function, i);
            return stats;
        }
    }
    frustum_lanes lanes;
    frustum_lanes_make(planes, &lanes);
    if (tree->root == NULL_REF)
        return stats;
    query_stack stack;
    if ((stats.status = stack_init(&stack, tree, function, err)) != SR_OK)
        return stats;
    const node *nodes = tree->nodes;
    /* Subtrees found inside are walked through a FIFO ring instead of the stack: their order does
     * not matter, and a node entering the ring is prefetched ~INSIDE_RING_SIZE nodes before it is read,
     * where a depth-first walk would wait on one dependent load after another (measured ~1.4x
     * faster culling of a 100k tree). When the ring is full, children spill onto the stack with
     * mask 0 (only spilled entries have mask 0 there) and are drained depth-first before the ring
     * is read again, so the stack never holds more than height + 2 entries. */
    uint32_t ring[INSIDE_RING_SIZE];
    uint32_t ring_head = 0, ring_tail = 0;
    stack_push(&stack, (stack_entry){.ref = tree->root, .u.mask = ALL_PLANES});
    while (stack.size > 0 || ring_head != ring_tail) {
        stack_entry entry;
        if (ring_head != ring_tail && (stack.size == 0 || stack.entries[stack.size - 1].u.mask != 0))
            entry = (stack_entry){.ref = ring[ring_head++ % INSIDE_RING_SIZE], .u.mask = 0};
        else
            entry = stack.entries[--stack.size];
        int32_t index = ref_index(entry.ref);
        const node *n = &nodes[index];
        uint32_t mask = entry.u.mask;
        stats.nodes_visited++;
        if (mask != 0) {
            /* Planes the box is wholly inside of are dropped from the mask for the whole subtree
             * (plane coherency). */
            uint32_t inside;
            const bool outside = (frustum_test(&lanes, &n->box, ref_is_leaf(entry.ref), &inside) & mask) != 0;
            mask &= ~inside;
            if (outside)
                continue;
        }
        if (ref_is_leaf(entry.ref)) {
            stats.proxies_reported++;
            if (!fn(user, leaf_proxy(tree, index), n->u.user_data, mask == 0 ? SR_INSIDE : SR_INTERSECTING)) {
                stats.stopped = true;
                break;
            }
        } else if (mask == 0) {
            for (int k = 0; k < 2; k++) {
                uint32_t child = n->u.child[k];
                if (ring_tail - ring_head < INSIDE_RING_SIZE) {
                    ring[ring_tail++ % INSIDE_RING_SIZE] = child;
                    PREFETCH(&nodes[ref_index(child)]);
                } else if (!stack_push(&stack, (stack_entry){.ref = child, .u.mask = 0})) {
                    stack_release(&stack);
                    return stack_overflow(stats, function, err);
                }
            }
        } else if (!stack_push(&stack, (stack_entry){.ref = n->u.child[1], .u.mask = mask}) ||
                   !stack_push(&stack, (stack_entry){.ref = n->u.child[0], .u.mask = mask})) {
            stack_release(&stack);
            return stack_overflow(stats, function, err);
        }
    }
    stack_release(&stack);
    return stats;
}

sr_dynamic_tree_query_stats sr_dynamic_tree_visit_nodes(const sr_dynamic_tree *tree, sr_dynamic_tree_node_fn fn,
                                                        void *user, sr_error *err)
{
    static const char function[] = "sr_dynamic_tree_visit_nodes";
    sr_dynamic_tree_query_stats stats = begin_query(tree, fn != NULL, function, err);
    if (stats.status != SR_OK || tree->root == NULL_REF)
        return stats;
    query_stack stack;
    if ((stats.status = stack_init(&stack, tree, function, err)) != SR_OK)
        return stats;
    const node *nodes = tree->nodes;
    stack_push(&stack, (stack_entry){.ref = tree->root, .u.depth = 0});
    while (stack.size > 0) {
        stack_entry entry = stack.entries[--stack.size];
        int32_t index = ref_index(entry.ref);
        const node *n = &nodes[index];
        bool leaf = ref_is_leaf(entry.ref);
        sr_dynamic_tree_node_info info = {
            .box = n->box,
            .depth = entry.u.depth,
            .height = tree->links[index].height,
            .is_leaf = leaf,
            .proxy = leaf ? leaf_proxy(tree, index) : SR_DYNAMIC_PROXY_NULL,
            .user_data = leaf ? n->u.user_data : 0,
        };
        stats.nodes_visited++;
        if (leaf)
            stats.proxies_reported++;
        if (!fn(user, &info)) {
            stats.stopped = true;
            break;
        }
        if (!leaf && (!stack_push(&stack, (stack_entry){.ref = n->u.child[1], .u.depth = entry.u.depth + 1}) ||
                      !stack_push(&stack, (stack_entry){.ref = n->u.child[0], .u.depth = entry.u.depth + 1}))) {
            stack_release(&stack);
            return stack_overflow(stats, function, err);
        }
    }
    stack_release(&stack);
    return stats;
}

/* ---- statistics and validation ---- */

sr_dynamic_tree_stats sr_dynamic_tree_get_stats(const sr_dynamic_tree *tree)
{
    sr_dynamic_tree_stats stats = {0};
    if (!tree)
        return stats;
    stats.proxy_count = tree->proxy_count;
    stats.node_capacity = tree->capacity;
    stats.node_count = tree->capacity - tree->free_count;
    if (tree->root == NULL_REF)
        return stats;
    stats.height = height_of(tree, tree->root);
    /* Every allocated node is in the tree (validate checks it), so a scan of the pool suffices. */
    double root_area = box_area(&tree->nodes[ref_index(tree->root)].box);
    double sum = 0.0;
    for (int32_t i = 0; i < tree->capacity; i++)
        if (tree->links[i].height >= 0)
            sum += root_area > 0.0 ? box_area(&tree->nodes[i].box) / root_area : 1.0;
    stats.sah_cost = sum;
    return stats;
}

sr_status sr_dynamic_tree_validate(const sr_dynamic_tree *tree, sr_error *err)
{
    static const char function[] = "sr_dynamic_tree_validate";
    if (!tree)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: tree is NULL", function);
    const node *nodes = tree->nodes;
    const node_link *links = tree->links;
    /* Free list: in range, marked free with an even generation, as long as free_count says
     * (bounded walk: no cycles). */
    int32_t free_seen = 0;
    for (int32_t i = tree->free_list; i != NULL_NODE; i = links[i].parent) {
        if (i < 0 || i >= tree->capacity || free_seen > tree->capacity)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: free list holds bad index %d or loops", function,
                                i);
        if (links[i].height != FREE_HEIGHT || (tree->generations[i] & 1u))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d is on the free list but in use", function,
                                i);
        free_seen++;
    }
    if (free_seen != tree->free_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: free list has %d nodes, free_count says %d", function,
                            free_seen, tree->free_count);
    if (tree->root == NULL_REF) {
        if (tree->proxy_count != 0 || tree->free_count != tree->capacity)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: empty tree with %d proxies and %d used nodes",
                                function, tree->proxy_count, tree->capacity - tree->free_count);
        return SR_OK;
    }
    int32_t root = ref_index(tree->root);
    if (root >= tree->capacity || links[root].parent != NULL_NODE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: root %d is out of range or has a parent", function,
                            root);
    /* Stackless depth-first walk (so validation never allocates, whatever the height): descend
     * through child[0] after checking that the children link back, climb through the parent
     * links to the next child[1]. Verified links make the climb retrace the descent, and the
     * count bounds the walk even if something is broken in a way the checks miss. */
    int32_t allocated = tree->capacity - tree->free_count;
    int32_t reached = 0, leaves = 0;
    uint32_t ref = tree->root;
    for (;;) {
        int32_t index = ref_index(ref);
        const node *n = &nodes[index];
        if (++reached > allocated)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: more nodes reached than the %d allocated",
                                function, allocated);
        if (links[index].height < 0)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: free node %d is in the tree", function, index);
        if ((links[index].height == 0) != ref_is_leaf(ref))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d of height %d is referenced as a %s",
                                function, index, links[index].height, ref_is_leaf(ref) ? "leaf" : "interior node");
        if (!box_is_valid(&n->box))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d has an invalid box", function, index);
        if (!ref_is_leaf(ref)) {
            uint32_t a = n->u.child[0], b = n->u.child[1];
            int32_t ia = ref_index(a), ib = ref_index(b);
            if (ia >= tree->capacity || ib >= tree->capacity || ia == ib)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d has bad children %d, %d", function,
                                    index, ia, ib);
            if (links[ia].parent != index || links[ib].parent != index)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                    "%s: children %d, %d of node %d do not link back to it (parents %d, %d)", function,
                                    ia, ib, index, links[ia].parent, links[ib].parent);
            if (links[ia].height < 0 || links[ib].height < 0)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d has a free child", function, index);
            int32_t height = 1 + (links[ia].height > links[ib].height ? links[ia].height : links[ib].height);
            if (links[index].height != height)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d has height %d, its children say %d",
                                    function, index, links[index].height, height);
            sr_aabb expected = box_union(&nodes[ia].box, &nodes[ib].box);
            if (!box_equal(&expected, &n->box))
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                    "%s: node %d's box is not the union of its children's boxes", function, index);
            if (tree->generations[index] & 1u)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: interior node %d has a leaf's generation",
                                    function, index);
            ref = a;
            continue;
        }
        if (!(tree->generations[index] & 1u))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: leaf %d has a generation that is not live",
                                function, index);
        leaves++;
        /* Climb until we arrive from a first child; its sibling is next. */
        for (;;) {
            int32_t parent = links[ref_index(ref)].parent;
            if (parent == NULL_NODE) {
                ref = NULL_REF;
                break;
            }
            if (nodes[parent].u.child[0] == ref) {
                ref = nodes[parent].u.child[1];
                break;
            }
            ref = (uint32_t)parent;
        }
        if (ref == NULL_REF)
            break;
    }
    if (leaves != tree->proxy_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: %d leaves reached, proxy_count says %d", function,
                            leaves, tree->proxy_count);
    if (reached != allocated || reached != 2 * leaves - 1)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "%s: %d nodes reached from the root, %d allocated, %d leaves", function, reached, allocated,
                            leaves);
    return SR_OK;
}

/* ---- rebuild: top-down binned SAH (Wald 2007) over the leaves' fat boxes ---- */

typedef struct build_item {
    float lo[3], hi[3]; /* the leaf's fat box */
    float centre[3];
    int32_t node;
} build_item;

typedef struct build_task {
    int32_t begin, end, parent, slot;
} build_task;

typedef struct build_bin {
    float lo[3], hi[3];
    int32_t count;
} build_bin;

static inline float half_area_of(const float lo[3], const float hi[3])
{
    float x = hi[0] - lo[0], y = hi[1] - lo[1], z = hi[2] - lo[2];
    return x * y + y * z + z * x;
}

/* Clamped to [0, bin_count - 1] before the conversion, which is undefined out of int's range:
 * a subnormal centroid extent makes the scale infinite and (centre - lo) * scale NaN (0 * inf) or
 * huge (found by fuzz_dynamic: the rebuild read bins[INT_MIN]). NaN goes to bin 0 (max_float(NaN, 0)
 * is 0). */
static inline int bin_of(float centre, float lo, float scale, int bin_count)
{
    const float f = (centre - lo) * scale;
    const float last = (float)(bin_count - 1);
    /* max then min, as MAXSS/MINSS (no branch: the partition below relies on that) */
    return (int)min_float(max_float(f, 0.0f), last);
}

/* Splits items[begin, end) (at least two) at the cheapest of the (bins - 1) binned SAH planes
 * (cost = left count x left area + right count x right area) across the axis of largest centroid
 * extent, and returns the first index of the right half; the middle when all centroids coincide.
 * One axis, as in Box2D v3's rebuild: three times less work than binning all three for an SAH cost
 * about 2% higher. Ranges of fewer than REBUILD_BIN_COUNT items use one bin per item (most nodes
 * are small, and their fixed per-bin work would otherwise dominate the build). */
static int32_t split_binned_sah(build_item *items, int32_t begin, int32_t end)
{
    if (end - begin == 2)
        return begin + 1;
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (int32_t i = begin; i < end; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = min_float(lo[a], items[i].centre[a]);
            hi[a] = max_float(hi[a], items[i].centre[a]);
        }
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (hi[a] - lo[a] > hi[axis] - lo[axis])
            axis = a;
    if (!(hi[axis] > lo[axis]))
        return begin + (end - begin) / 2;
    const int bin_count = end - begin < REBUILD_BIN_COUNT ? (int)(end - begin) : REBUILD_BIN_COUNT;
    const float axis_lo = lo[axis], scale = (float)bin_count / (hi[axis] - lo[axis]);
    build_bin bins[REBUILD_BIN_COUNT];
    for (int b = 0; b < bin_count; b++)
        bins[b] = (build_bin){{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}, 0};
    for (int32_t i = begin; i < end; i++) {
        const build_item *item = &items[i];
        build_bin *bin = &bins[bin_of(item->centre[axis], axis_lo, scale, bin_count)];
        bin->count++;
        for (int k = 0; k < 3; k++) {
            bin->lo[k] = min_float(bin->lo[k], item->lo[k]);
            bin->hi[k] = max_float(bin->hi[k], item->hi[k]);
        }
    }
    /* Sweep from the right for the right-hand areas, then from the left for the costs. */
    float right_area[REBUILD_BIN_COUNT];
    int32_t right_count[REBUILD_BIN_COUNT];
    float box_lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, box_hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    int32_t count = 0;
    for (int b = bin_count - 1; b > 0; b--) {
        for (int k = 0; k < 3; k++) {
            box_lo[k] = min_float(box_lo[k], bins[b].lo[k]);
            box_hi[k] = max_float(box_hi[k], bins[b].hi[k]);
        }
        count += bins[b].count;
        right_area[b] = count > 0 ? half_area_of(box_lo, box_hi) : 0.0f;
        right_count[b] = count;
    }
    for (int k = 0; k < 3; k++)
        box_lo[k] = FLT_MAX, box_hi[k] = -FLT_MAX;
    count = 0;
    float best_cost = FLT_MAX;
    int best_bin = -1;
    for (int b = 0; b < bin_count - 1; b++) {
        for (int k = 0; k < 3; k++) {
            box_lo[k] = min_float(box_lo[k], bins[b].lo[k]);
            box_hi[k] = max_float(box_hi[k], bins[b].hi[k]);
        }
        count += bins[b].count;
        if (count == 0 || right_count[b + 1] == 0)
            continue;
        float cost = (float)count * half_area_of(box_lo, box_hi) + (float)right_count[b + 1] * right_area[b + 1];
        if (cost < best_cost) {
            best_cost = cost;
            best_bin = b;
        }
    }
    if (best_bin < 0) /* every centroid in one bin (extent at the float resolution) */
        return begin + (end - begin) / 2;
    /* The same bin_of as above on the same values: both halves are non-empty. Branch-free Lomuto
     * partition: every item is exchanged with the first right-hand one and the boundary advances
     * only for left-hand items, which keeps [begin, left) left and [left, i] right. The side of an
     * item is a coin toss for the branch predictor: the branching partition mispredicted about half
     * the items, and the branch-free one makes the whole rebuild ~25% faster (measured). */
    int32_t left = begin;
    for (int32_t i = begin; i < end; i++) {
        bool goes_left = bin_of(items[i].centre[axis], axis_lo, scale, bin_count) <= best_bin;
        build_item swap = items[i];
        items[i] = items[left];
        items[left] = swap;
        left += goes_left;
    }
    return left;
}

sr_status sr_dynamic_tree_rebuild(sr_dynamic_tree *tree, sr_error *err)
{
    if (!tree)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_dynamic_tree_rebuild: tree is NULL");
    int32_t count = tree->proxy_count;
    if (count < 2)
        return SR_OK;
    /* All temporary memory first, so that a failure leaves the tree untouched. */
    size_t items_size = (size_t)count * sizeof(build_item);
    size_t tasks_size = (size_t)count * sizeof(build_task);
    size_t order_size = (size_t)count * sizeof(int32_t);
    char *memory = sr_alloc(items_size + tasks_size + order_size);
    if (!memory)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY,
                            "sr_dynamic_tree_rebuild: cannot allocate temporary memory for %d proxies", count);
    build_item *items = (build_item *)memory;
    build_task *tasks = (build_task *)(memory + items_size);
    int32_t *order = (int32_t *)(memory + items_size + tasks_size);

    /* Gather the leaves and release every interior node (count - 1 of them, exactly what the new
     * tree needs, so allocate_node below never runs dry). */
    node *nodes = tree->nodes;
    node_link *links = tree->links;
    int32_t item_count = 0;
    for (int32_t i = 0; i < tree->capacity; i++) {
        if (links[i].height == 0) {
            const sr_aabb *box = &nodes[i].box;
            items[item_count++] = (build_item){
                {box->min.x, box->min.y, box->min.z},
                {box->max.x, box->max.y, box->max.z},
                /* halved first: (min + max) overflows for boxes near FLT_MAX */
                {box->min.x * 0.5f + box->max.x * 0.5f, box->min.y * 0.5f + box->max.y * 0.5f,
                 box->min.z * 0.5f + box->max.z * 0.5f},
                i,
            };
        } else if (links[i].height > 0)
            release_node(tree, i);
    }

    int32_t task_count = 0, interior_count = 0;
    tasks[task_count++] = (build_task){0, count, NULL_NODE, 0};
    while (task_count > 0) {
        build_task task = tasks[--task_count];
        int32_t index;
        uint32_t ref;
        if (task.end - task.begin == 1) {
            index = items[task.begin].node;
            ref = leaf_ref(index);
        } else {
            int32_t middle = split_binned_sah(items, task.begin, task.end);
            index = allocate_node(tree);
            ref = (uint32_t)index;
            links[index].height = 1; /* refitted below, bottom-up */
            order[interior_count++] = index;
            tasks[task_count++] = (build_task){middle, task.end, index, 1};
            tasks[task_count++] = (build_task){task.begin, middle, index, 0};
        }
        links[index].parent = task.parent;
        if (task.parent == NULL_NODE)
            tree->root = ref;
        else
            nodes[task.parent].u.child[task.slot] = ref;
    }
    /* Children were created after their parents: refit in reverse creation order. */
    for (int32_t i = interior_count - 1; i >= 0; i--)
        refit_node(tree, order[i]);
    sr_free(memory);
    return SR_OK;
}
