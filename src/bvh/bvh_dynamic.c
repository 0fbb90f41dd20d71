/* src/bvh/bvh_dynamic.c — the dynamic AABB tree of softrast/bvh_dynamic.h.
 * One node pool (array + free list, grown only by insert/reserve, never during a query); leaves
 * are proxies and never move in the pool, so a proxy handle is a slot index plus the slot's
 * generation. Insertion: branch-and-bound search for the SAH-best sibling (Bittner et al. 2015),
 * then refit and rotations on the way up (Kopta et al. 2012, as in Box2D v3). Removal: refit with
 * an early exit. Queries: explicit stacks. Rebuild: top-down binned SAH over the leaves.
 * Knows nothing of raster, scene or the static BVH (softrast/bvh.h). */
#include <softrast/bvh_dynamic.h>

#include <float.h>
#include <math.h>
#include <string.h>

#define NULL_NODE (-1)
#define FREE_HEIGHT (-1)
#define DEFAULT_PROXY_CAPACITY 64
#define DEFAULT_MARGIN 0.1f
#define DEFAULT_DISPLACEMENT_MULTIPLIER 4.0f
/* Node indices are int32; 2^30 nodes of 48 bytes is already 48 GiB. */
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

/* Large trees outgrow the L2 cache, and traversals are chains of dependent node loads: fetching
 * nodes before they are examined overlaps their misses (measured: inserts into a 100k tree about
 * 1.5x faster; see also the frustum query's ring). */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)(address))
#endif
/* A 48-byte node straddles two cache lines at half of the pool's offsets (48 and 32 mod 64), and
 * the fields a traversal reads (box, children, height, generation) span the whole node: fetch the
 * lines of its first and last bytes (the same line for the other half, then a free duplicate). */
#define PREFETCH_NODE(pointer)                                                                                         \
    do {                                                                                                               \
        PREFETCH(pointer);                                                                                             \
        PREFETCH((const char *)(pointer) + sizeof(node) - 1);                                                          \
    } while (0)

typedef struct node {
    sr_aabb box; /* fat box for leaves, union of the children for interior nodes */
    union {
        int32_t child[2];   /* interior nodes */
        uint64_t user_data; /* leaves */
    } u;
    int32_t parent;      /* next free node while on the free list */
    int32_t height;      /* 0 leaf, 1 + max(children) interior, FREE_HEIGHT on the free list */
    uint32_t generation; /* bumped on every release, so stale handles mismatch; never 0 */
} node;

struct sr_dynamic_tree {
    node *nodes;
    int32_t capacity;
    int32_t root;
    int32_t free_list;
    int32_t free_count;
    int32_t proxy_count;
    float margin;
    float displacement_multiplier;
};

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

static inline bool box_contains(const sr_aabb *outer, const sr_aabb *inner)
{
    return outer->min.x <= inner->min.x && outer->min.y <= inner->min.y && outer->min.z <= inner->min.z &&
           inner->max.x <= outer->max.x && inner->max.y <= outer->max.y && inner->max.z <= outer->max.z;
}

static inline bool box_overlaps(const sr_aabb *a, const sr_aabb *b)
{
    return a->min.x <= b->max.x && b->min.x <= a->max.x && a->min.y <= b->max.y && b->min.y <= a->max.y &&
           a->min.z <= b->max.z && b->min.z <= a->max.z;
}

static inline bool box_equal(const sr_aabb *a, const sr_aabb *b)
{
    return a->min.x == b->min.x && a->min.y == b->min.y && a->min.z == b->min.z && a->max.x == b->max.x &&
           a->max.y == b->max.y && a->max.z == b->max.z;
}

static inline sr_aabb box_expand(sr_aabb b, float margin)
{
    return (sr_aabb){{b.min.x - margin, b.min.y - margin, b.min.z - margin},
                     {b.max.x + margin, b.max.y + margin, b.max.z + margin}};
}

/* Finite and min <= max on every axis (the negated comparisons also reject NaN). */
static bool box_is_valid(const sr_aabb *b)
{
    return sr_vec3_is_finite(b->min) && sr_vec3_is_finite(b->max) && b->min.x <= b->max.x && b->min.y <= b->max.y &&
           b->min.z <= b->max.z;
}

/* ---- node pool ---- */

static uint32_t next_generation(uint32_t generation)
{
    return generation == UINT32_MAX ? 1u : generation + 1u;
}

static sr_status grow_pool(sr_dynamic_tree *tree, int64_t min_capacity, sr_error *err)
{
    if (min_capacity <= tree->capacity)
        return SR_OK;
    if (min_capacity > MAX_NODE_CAPACITY)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_dynamic_tree: %lld nodes exceed the limit of %d",
                            (long long)min_capacity, MAX_NODE_CAPACITY);
    int64_t new_capacity = (int64_t)tree->capacity * 2;
    if (new_capacity < min_capacity)
        new_capacity = min_capacity;
    if (new_capacity > MAX_NODE_CAPACITY)
        new_capacity = MAX_NODE_CAPACITY;
    /* A failed reallocation leaves the old pool intact: the tree is unchanged. (No realloc of NULL:
     * the user's allocator hook need not accept it.) */
    size_t bytes = (size_t)new_capacity * sizeof(node);
    node *nodes = tree->nodes ? sr_realloc(tree->nodes, bytes) : sr_alloc(bytes);
    if (!nodes)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_dynamic_tree: cannot grow the node pool to %lld nodes",
                            (long long)new_capacity);
    /* Link the new slots so that the lowest index is handed out first. */
    for (int32_t i = (int32_t)new_capacity - 1; i >= tree->capacity; i--) {
        nodes[i] = (node){.parent = tree->free_list, .height = FREE_HEIGHT, .generation = 1};
        tree->free_list = i;
    }
    tree->free_count += (int32_t)new_capacity - tree->capacity;
    tree->nodes = nodes;
    tree->capacity = (int32_t)new_capacity;
    return SR_OK;
}

/* The caller guarantees a free node (grow_pool beforehand). */
static int32_t allocate_node(sr_dynamic_tree *tree)
{
    int32_t index = tree->free_list;
    node *n = &tree->nodes[index];
    tree->free_list = n->parent;
    tree->free_count--;
    n->parent = NULL_NODE;
    n->height = 0;
    n->u.child[0] = n->u.child[1] = NULL_NODE;
    return index;
}

static void release_node(sr_dynamic_tree *tree, int32_t index)
{
    node *n = &tree->nodes[index];
    n->height = FREE_HEIGHT;
    n->generation = next_generation(n->generation);
    n->parent = tree->free_list;
    tree->free_list = index;
    tree->free_count++;
}

static bool proxy_is_live(const sr_dynamic_tree *tree, sr_dynamic_proxy proxy)
{
    if (proxy.generation == 0 || proxy.index >= (uint32_t)tree->capacity)
        return false;
    const node *n = &tree->nodes[proxy.index];
    return n->height == 0 && n->generation == proxy.generation;
}

/* Recomputes an interior node's box and height from its children. */
static inline void refit_node(node *nodes, int32_t index)
{
    node *n = &nodes[index];
    const node *a = &nodes[n->u.child[0]], *b = &nodes[n->u.child[1]];
    n->box = box_union(&a->box, &b->box);
    n->height = 1 + (a->height > b->height ? a->height : b->height);
}

/* ---- insertion: branch-and-bound SAH sibling search (Bittner, Hapala, Havran 2015) ---- */

typedef struct candidate {
    int32_t node;       /* an interior node whose children are still to be examined */
    float induced_cost; /* growth of the areas of the node and its ancestors if the leaf goes below it */
} candidate;

/* The sibling S minimising the SAH cost of inserting `leaf_box` as S's new sibling: the area of
 * the new parent, SA(S u L), plus the area growth of all S's ancestors (the induced cost).
 * A subtree is pruned when its lower bound, induced cost + SA(L) (the new parent is at least as
 * large as the leaf), cannot beat the best cost found so far: the result is the exact optimum of
 * Bittner et al. Their best-first order is replaced by a depth-first one (continue into the child
 * with the lower bound, stack the other, as Box2D v3's greedy descent would go first): the same
 * optimum, found without the priority queue whose unpredictable sifts cost more than the nodes. */
static int32_t find_best_sibling(const sr_dynamic_tree *tree, const sr_aabb *leaf_box)
{
    const node *nodes = tree->nodes;
    const float leaf_area = box_area(leaf_box);
    const node *root = &nodes[tree->root];
    int32_t best = tree->root;
    float best_cost = union_area(&root->box, leaf_box);
    if (root->height == 0)
        return best;
    candidate stack[INSERT_STACK_SIZE];
    int size = 0;
    stack[size++] = (candidate){tree->root, best_cost - box_area(&root->box)};
    while (size > 0) {
        candidate c = stack[--size];
        int32_t index = c.node;
        float induced = c.induced_cost;
        while (induced + leaf_area < best_cost) {
            const node *n = &nodes[index];
            const node *first = &nodes[n->u.child[0]], *second = &nodes[n->u.child[1]];
            /* Both children as siblings: cost = their new parent's area + the growth above. */
            float direct_first = union_area(&first->box, leaf_box);
            float direct_second = union_area(&second->box, leaf_box);
            if (direct_first + induced < best_cost) {
                best_cost = direct_first + induced;
                best = n->u.child[0];
            }
            if (direct_second + induced < best_cost) {
                best_cost = direct_second + induced;
                best = n->u.child[1];
            }
            /* Below a child, the child's own growth adds to the induced cost. */
            float induced_first = first->height > 0 ? induced + direct_first - box_area(&first->box) : FLT_MAX;
            float induced_second = second->height > 0 ? induced + direct_second - box_area(&second->box) : FLT_MAX;
            int32_t next = n->u.child[0], other = n->u.child[1];
            if (induced_second < induced_first) {
                float swap = induced_first;
                induced_first = induced_second, induced_second = swap;
                next = n->u.child[1], other = n->u.child[0];
            }
            if (induced_second + leaf_area < best_cost && size < INSERT_STACK_SIZE) {
                stack[size++] = (candidate){other, induced_second};
                PREFETCH_NODE(&nodes[nodes[other].u.child[0]]);
                PREFETCH_NODE(&nodes[nodes[other].u.child[1]]);
            }
            if (induced_first == FLT_MAX)
                break;
            index = next;
            induced = induced_first;
            PREFETCH_NODE(&nodes[nodes[index].u.child[0]]);
            PREFETCH_NODE(&nodes[nodes[index].u.child[1]]);
        }
    }
    return best;
}

/* Exchanges the subtrees hanging at parent_a->child[slot_a] and parent_b->child[slot_b]. */
static void exchange_children(node *nodes, int32_t parent_a, int slot_a, int32_t parent_b, int slot_b)
{
    int32_t a = nodes[parent_a].u.child[slot_a];
    int32_t b = nodes[parent_b].u.child[slot_b];
    nodes[parent_a].u.child[slot_a] = b;
    nodes[parent_b].u.child[slot_b] = a;
    nodes[b].parent = parent_a;
    nodes[a].parent = parent_b;
}

/* Tree rotation at node A with children B, C (Kopta et al. 2012; Box2D v3's b2RotateNodes): try
 * exchanging a child of A with a grandchild on the other side, or two grandchildren across, and
 * apply the exchange that lowers the summed area of B and C the most (A's own box cannot change).
 * The children of A must be up to date; A's box and height are refitted by the caller. */
static bool rotate(sr_dynamic_tree *tree, int32_t a_index)
{
    node *nodes = tree->nodes;
    const node *a = &nodes[a_index];
    if (a->height < 2)
        return false;
    int32_t b_index = a->u.child[0], c_index = a->u.child[1];
    const node *b = &nodes[b_index], *c = &nodes[c_index];
    float area_b = box_area(&b->box), area_c = box_area(&c->box);

    /* Candidate moves, each as (parent_a, slot_a) <-> (parent_b, slot_b) and the area change. */
    float best_delta = 0.0f;
    int32_t best_parent_a = NULL_NODE, best_parent_b = NULL_NODE;
    int best_slot_a = 0, best_slot_b = 0;

    if (c->height > 0) {
        /* B <-> F or B <-> G (F, G children of C): C becomes B with the one left behind. */
        for (int slot = 0; slot < 2; slot++) {
            const node *kept = &nodes[c->u.child[1 - slot]];
            float delta = union_area(&b->box, &kept->box) - area_c;
            if (delta < best_delta) {
                best_delta = delta;
                best_parent_a = a_index, best_slot_a = 0, best_parent_b = c_index, best_slot_b = slot;
            }
        }
    }
    if (b->height > 0) {
        /* C <-> D or C <-> E (D, E children of B). */
        for (int slot = 0; slot < 2; slot++) {
            const node *kept = &nodes[b->u.child[1 - slot]];
            float delta = union_area(&c->box, &kept->box) - area_b;
            if (delta < best_delta) {
                best_delta = delta;
                best_parent_a = a_index, best_slot_a = 1, best_parent_b = b_index, best_slot_b = slot;
            }
        }
    }
    if (b->height > 0 && c->height > 0) {
        /* D <-> F or D <-> G; E <-> G and E <-> F give the same partitions. */
        const node *d = &nodes[b->u.child[0]], *e = &nodes[b->u.child[1]];
        for (int slot = 0; slot < 2; slot++) {
            const node *moved = &nodes[c->u.child[slot]], *kept = &nodes[c->u.child[1 - slot]];
            float delta = union_area(&moved->box, &e->box) + union_area(&d->box, &kept->box) - area_b - area_c;
            if (delta < best_delta) {
                best_delta = delta;
                best_parent_a = b_index, best_slot_a = 0, best_parent_b = c_index, best_slot_b = slot;
            }
        }
    }
    if (best_parent_a == NULL_NODE)
        return false;
    exchange_children(nodes, best_parent_a, best_slot_a, best_parent_b, best_slot_b);
    /* Refit the (at most two) children of A that changed. */
    if (best_parent_a != a_index)
        refit_node(nodes, best_parent_a);
    refit_node(nodes, best_parent_b);
    return true;
}

/* Links an allocated leaf (box set) into the tree; needs one free node for the new parent. */
static void insert_leaf(sr_dynamic_tree *tree, int32_t leaf)
{
    if (tree->root == NULL_NODE) {
        tree->root = leaf;
        tree->nodes[leaf].parent = NULL_NODE;
        return;
    }
    int32_t sibling = find_best_sibling(tree, &tree->nodes[leaf].box);
    int32_t new_parent = allocate_node(tree);
    node *nodes = tree->nodes;
    int32_t old_parent = nodes[sibling].parent;
    nodes[new_parent].parent = old_parent;
    nodes[new_parent].u.child[0] = sibling;
    nodes[new_parent].u.child[1] = leaf;
    if (old_parent == NULL_NODE)
        tree->root = new_parent;
    else
        nodes[old_parent].u.child[nodes[old_parent].u.child[0] == sibling ? 0 : 1] = new_parent;
    nodes[sibling].parent = new_parent;
    nodes[leaf].parent = new_parent;
    /* The ancestors grow by the leaf: refit them bottom-up, rotating at each (its children are final
     * when we reach it). Once a node comes out with its old box and height and no rotation, every
     * node above is as it was: stop there (their rotations were weighed when they last changed).
     * The early exit roughly halves the walk for a cost of ~1% in SAH quality (measured). */
    for (int32_t index = new_parent; index != NULL_NODE; index = nodes[index].parent) {
        sr_aabb old_box = nodes[index].box;
        int32_t old_height = nodes[index].height;
        bool rotated = rotate(tree, index);
        refit_node(nodes, index);
        if (!rotated && index != new_parent && old_height == nodes[index].height &&
            box_equal(&old_box, &nodes[index].box))
            break;
    }
}

/* Unlinks a leaf (left allocated); releases its parent node. */
static void remove_leaf(sr_dynamic_tree *tree, int32_t leaf)
{
    node *nodes = tree->nodes;
    if (leaf == tree->root) {
        tree->root = NULL_NODE;
        return;
    }
    int32_t parent = nodes[leaf].parent;
    int32_t grandparent = nodes[parent].parent;
    int32_t sibling = nodes[parent].u.child[nodes[parent].u.child[0] == leaf ? 1 : 0];
    release_node(tree, parent);
    nodes[leaf].parent = NULL_NODE;
    nodes[sibling].parent = grandparent;
    if (grandparent == NULL_NODE) {
        tree->root = sibling;
        return;
    }
    nodes[grandparent].u.child[nodes[grandparent].u.child[0] == parent ? 0 : 1] = sibling;
    /* Shrink the ancestors; once a node's box and height come out unchanged, so do all above. */
    for (int32_t index = grandparent; index != NULL_NODE; index = nodes[index].parent) {
        sr_aabb old_box = nodes[index].box;
        int32_t old_height = nodes[index].height;
        refit_node(nodes, index);
        if (old_height == nodes[index].height && box_equal(&old_box, &nodes[index].box))
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
    tree->root = NULL_NODE;
    tree->free_list = NULL_NODE;
    tree->margin = d.no_margin ? 0.0f : (d.margin > 0.0f ? d.margin : DEFAULT_MARGIN);
    tree->displacement_multiplier =
        d.displacement_multiplier > 0.0f ? d.displacement_multiplier : DEFAULT_DISPLACEMENT_MULTIPLIER;
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
    sr_free(tree->nodes);
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
    node *n = &tree->nodes[leaf];
    n->box = fat;
    n->u.user_data = user_data;
    n->height = 0;
    insert_leaf(tree, leaf);
    tree->proxy_count++;
    *out_proxy = (sr_dynamic_proxy){(uint32_t)leaf, tree->nodes[leaf].generation};
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

sr_status sr_dynamic_tree_move(sr_dynamic_tree *tree, sr_dynamic_proxy proxy, sr_aabb box, sr_vec3 displacement,
                               bool *out_changed, sr_error *err)
{
    if (out_changed)
        *out_changed = false;
    sr_status status = check_proxy(tree, proxy, "sr_dynamic_tree_move", err);
    if (status == SR_OK)
        status = check_box(&box, "sr_dynamic_tree_move", err);
    if (status != SR_OK)
        return status;
    if (!sr_vec3_is_finite(displacement))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_dynamic_tree_move: displacement is not finite");
    /* Box2D v2.4 MoveProxy: margin on every side, then the predicted motion on its side only. */
    sr_aabb fat = box_expand(box, tree->margin);
    sr_vec3 d = sr_vec3_scale(displacement, tree->displacement_multiplier);
    if (d.x < 0.0f)
        fat.min.x += d.x;
    else
        fat.max.x += d.x;
    if (d.y < 0.0f)
        fat.min.y += d.y;
    else
        fat.max.y += d.y;
    if (d.z < 0.0f)
        fat.min.z += d.z;
    else
        fat.max.z += d.z;
    if (!box_is_valid(&fat))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_dynamic_tree_move: box plus margin and displacement overflows");
    int32_t leaf = (int32_t)proxy.index;
    node *n = &tree->nodes[leaf];
    if (box_contains(&n->box, &box)) {
        /* Still covered; keep it unless the stored box is far larger than needed (a past
         * prediction that no longer holds), which would make queries report it needlessly. */
        sr_aabb huge = box_expand(fat, 4.0f * tree->margin);
        if (box_contains(&huge, &n->box))
            return SR_OK;
    }
    remove_leaf(tree, leaf);
    tree->nodes[leaf].box = fat;
    insert_leaf(tree, leaf); /* reuses the parent node remove_leaf released: never allocates */
    if (out_changed)
        *out_changed = true;
    return SR_OK;
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
    int32_t node;
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
    int64_t needed = tree->root == NULL_NODE ? 1 : (int64_t)tree->nodes[tree->root].height + 2;
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

static inline sr_dynamic_proxy leaf_proxy(const node *nodes, int32_t index)
{
    return (sr_dynamic_proxy){(uint32_t)index, nodes[index].generation};
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
    if (tree->root == NULL_NODE)
        return stats;
    query_stack stack;
    if ((stats.status = stack_init(&stack, tree, function, err)) != SR_OK)
        return stats;
    const node *nodes = tree->nodes;
    stack_push(&stack, (stack_entry){.node = tree->root});
    while (stack.size > 0) {
        int32_t index = stack.entries[--stack.size].node;
        const node *n = &nodes[index];
        stats.nodes_visited++;
        if (!box_overlaps(&n->box, &box))
            continue;
        if (n->height == 0) {
            stats.proxies_reported++;
            if (!fn(user, leaf_proxy(nodes, index), n->u.user_data)) {
                stats.stopped = true;
                break;
            }
        } else if (!stack_push(&stack, (stack_entry){.node = n->u.child[0]}) ||
                   !stack_push(&stack, (stack_entry){.node = n->u.child[1]})) {
            stack_release(&stack);
            return stack_overflow(stats, function, err);
        }
    }
    stack_release(&stack);
    return stats;
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
    if (tree->root == NULL_NODE)
        return stats;
    query_stack stack;
    if ((stats.status = stack_init(&stack, tree, function, err)) != SR_OK)
        return stats;
    const node *nodes = tree->nodes;
    const sr_vec3 c = sphere.centre;
    const float radius_squared = sphere.radius * sphere.radius;
    stack_push(&stack, (stack_entry){.node = tree->root});
    while (stack.size > 0) {
        int32_t index = stack.entries[--stack.size].node;
        const node *n = &nodes[index];
        stats.nodes_visited++;
        /* Arvo: squared distance from the centre to the box, axis by axis. */
        float dx = max_float(max_float(n->box.min.x - c.x, c.x - n->box.max.x), 0.0f);
        float dy = max_float(max_float(n->box.min.y - c.y, c.y - n->box.max.y), 0.0f);
        float dz = max_float(max_float(n->box.min.z - c.z, c.z - n->box.max.z), 0.0f);
        if (dx * dx + dy * dy + dz * dz > radius_squared)
            continue;
        if (n->height == 0) {
            stats.proxies_reported++;
            if (!fn(user, leaf_proxy(nodes, index), n->u.user_data)) {
                stats.stopped = true;
                break;
            }
        } else if (!stack_push(&stack, (stack_entry){.node = n->u.child[0]}) ||
                   !stack_push(&stack, (stack_entry){.node = n->u.child[1]})) {
            stack_release(&stack);
            return stack_overflow(stats, function, err);
        }
    }
    stack_release(&stack);
    return stats;
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
    if (tree->root == NULL_NODE)
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
    if (sr_ray_aabb(&current, &nodes[tree->root].box, &t_root, NULL))
        stack_push(&stack, (stack_entry){.node = tree->root, .u.t_entry = t_root});
    while (stack.size > 0) {
        stack_entry entry = stack.entries[--stack.size];
        if (entry.u.t_entry > current.tmax)
            continue; /* the ray was clipped since this node was pushed */
        const node *n = &nodes[entry.node];
        if (n->height == 0) {
            stats.proxies_reported++;
            float result = fn(user, &current, leaf_proxy(nodes, entry.node), n->u.user_data);
            if (!(result > tmin)) { /* 0, anything <= tmin, or NaN: stop (b2DynamicTree_RayCast) */
                stats.stopped = true;
                break;
            }
            if (result < current.tmax)
                current.tmax = result;
            continue;
        }
        /* Test both children now and push the nearer last, so it is visited first: a closest-hit
         * callback then clips the ray early and prunes the farther subtree. */
        int32_t first = n->u.child[0], second = n->u.child[1];
        float t_first = 0.0f, t_second = 0.0f;
        bool hit_first = sr_ray_aabb(&current, &nodes[first].box, &t_first, NULL);
        bool hit_second = sr_ray_aabb(&current, &nodes[second].box, &t_second, NULL);
        stats.nodes_visited += 2;
        if (hit_first && hit_second && t_first < t_second) {
            int32_t swap_node = first;
            first = second, second = swap_node;
            float swap_t = t_first;
            t_first = t_second, t_second = swap_t;
        }
        bool pushed = true;
        if (hit_first && hit_second)
            pushed = stack_push(&stack, (stack_entry){.node = first, .u.t_entry = t_first}) &&
                     stack_push(&stack, (stack_entry){.node = second, .u.t_entry = t_second});
        else if (hit_first)
            pushed = stack_push(&stack, (stack_entry){.node = first, .u.t_entry = t_first});
        else if (hit_second)
            pushed = stack_push(&stack, (stack_entry){.node = second, .u.t_entry = t_second});
        if (!pushed) {
            stack_release(&stack);
            return stack_overflow(stats, function, err);
        }
    }
    stack_release(&stack);
    return stats;
}

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
    sr_vec3 abs_normals[6];
    for (int i = 0; i < 6; i++) {
        planes[i] = frustum->planes[i];
        if (!sr_vec3_is_finite(planes[i].normal) || !isfinite(planes[i].d)) {
            stats.status = sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: plane %d is not finite", function, i);
            return stats;
        }
        abs_normals[i] = (sr_vec3){fabsf(planes[i].normal.x), fabsf(planes[i].normal.y), fabsf(planes[i].normal.z)};
    }
    if (tree->root == NULL_NODE)
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
    int32_t ring[INSIDE_RING_SIZE];
    uint32_t ring_head = 0, ring_tail = 0;
    stack_push(&stack, (stack_entry){.node = tree->root, .u.mask = ALL_PLANES});
    while (stack.size > 0 || ring_head != ring_tail) {
        stack_entry entry;
        if (ring_head != ring_tail && (stack.size == 0 || stack.entries[stack.size - 1].u.mask != 0))
            entry = (stack_entry){.node = ring[ring_head++ % INSIDE_RING_SIZE], .u.mask = 0};
        else
            entry = stack.entries[--stack.size];
        const node *n = &nodes[entry.node];
        uint32_t mask = entry.u.mask;
        stats.nodes_visited++;
        if (mask != 0) {
            /* Centre/half-extent form of the n-vertex/p-vertex test; a plane the box is wholly
             * inside of is dropped from the mask for the whole subtree (plane coherency). */
            sr_vec3 centre = {(n->box.min.x + n->box.max.x) * 0.5f, (n->box.min.y + n->box.max.y) * 0.5f,
                              (n->box.min.z + n->box.max.z) * 0.5f};
            sr_vec3 half = {(n->box.max.x - n->box.min.x) * 0.5f, (n->box.max.y - n->box.min.y) * 0.5f,
                            (n->box.max.z - n->box.min.z) * 0.5f};
            bool outside = false;
            for (int i = 0; i < 6; i++) {
                if (!(mask & (1u << i)))
                    continue;
                float distance = sr_vec3_dot(planes[i].normal, centre) + planes[i].d;
                float radius = sr_vec3_dot(abs_normals[i], half);
                if (distance + radius < 0.0f) {
                    outside = true;
                    break;
                }
                if (distance - radius >= 0.0f)
                    mask &= ~(1u << i);
            }
            if (outside)
                continue;
        }
        if (n->height == 0) {
            stats.proxies_reported++;
            if (!fn(user, leaf_proxy(nodes, entry.node), n->u.user_data, mask == 0 ? SR_INSIDE : SR_INTERSECTING)) {
                stats.stopped = true;
                break;
            }
        } else if (mask == 0) {
            for (int k = 0; k < 2; k++) {
                int32_t child = n->u.child[k];
                if (ring_tail - ring_head < INSIDE_RING_SIZE) {
                    ring[ring_tail++ % INSIDE_RING_SIZE] = child;
                    PREFETCH_NODE(&nodes[child]);
                } else if (!stack_push(&stack, (stack_entry){.node = child, .u.mask = 0})) {
                    stack_release(&stack);
                    return stack_overflow(stats, function, err);
                }
            }
        } else if (!stack_push(&stack, (stack_entry){.node = n->u.child[1], .u.mask = mask}) ||
                   !stack_push(&stack, (stack_entry){.node = n->u.child[0], .u.mask = mask})) {
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
    if (stats.status != SR_OK || tree->root == NULL_NODE)
        return stats;
    query_stack stack;
    if ((stats.status = stack_init(&stack, tree, function, err)) != SR_OK)
        return stats;
    const node *nodes = tree->nodes;
    stack_push(&stack, (stack_entry){.node = tree->root, .u.depth = 0});
    while (stack.size > 0) {
        stack_entry entry = stack.entries[--stack.size];
        const node *n = &nodes[entry.node];
        bool leaf = n->height == 0;
        sr_dynamic_tree_node_info info = {
            .box = n->box,
            .depth = entry.u.depth,
            .height = n->height,
            .is_leaf = leaf,
            .proxy = leaf ? leaf_proxy(nodes, entry.node) : SR_DYNAMIC_PROXY_NULL,
            .user_data = leaf ? n->u.user_data : 0,
        };
        stats.nodes_visited++;
        if (leaf)
            stats.proxies_reported++;
        if (!fn(user, &info)) {
            stats.stopped = true;
            break;
        }
        if (!leaf && (!stack_push(&stack, (stack_entry){.node = n->u.child[1], .u.depth = entry.u.depth + 1}) ||
                      !stack_push(&stack, (stack_entry){.node = n->u.child[0], .u.depth = entry.u.depth + 1}))) {
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
    if (tree->root == NULL_NODE)
        return stats;
    stats.height = tree->nodes[tree->root].height;
    /* Every allocated node is in the tree (validate checks it), so a scan of the pool suffices. */
    double root_area = box_area(&tree->nodes[tree->root].box);
    double sum = 0.0;
    for (int32_t i = 0; i < tree->capacity; i++)
        if (tree->nodes[i].height >= 0)
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
    /* Free list: in range, marked free, as long as free_count says (bounded walk: no cycles). */
    int32_t free_seen = 0;
    for (int32_t i = tree->free_list; i != NULL_NODE; i = nodes[i].parent) {
        if (i < 0 || i >= tree->capacity || free_seen > tree->capacity)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: free list holds bad index %d or loops", function,
                                i);
        if (nodes[i].height != FREE_HEIGHT)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d is on the free list but in use", function,
                                i);
        free_seen++;
    }
    if (free_seen != tree->free_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: free list has %d nodes, free_count says %d", function,
                            free_seen, tree->free_count);
    if (tree->root == NULL_NODE) {
        if (tree->proxy_count != 0 || tree->free_count != tree->capacity)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: empty tree with %d proxies and %d used nodes",
                                function, tree->proxy_count, tree->capacity - tree->free_count);
        return SR_OK;
    }
    if (tree->root < 0 || tree->root >= tree->capacity || nodes[tree->root].parent != NULL_NODE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: root %d is out of range or has a parent", function,
                            tree->root);
    /* Stackless depth-first walk (so validation never allocates, whatever the height): descend
     * through child[0] after checking that the children link back, climb through the parent
     * links to the next child[1]. Verified links make the climb retrace the descent, and the
     * count bounds the walk even if something is broken in a way the checks miss. */
    int32_t allocated = tree->capacity - tree->free_count;
    int32_t reached = 0, leaves = 0;
    int32_t index = tree->root;
    for (;;) {
        const node *n = &nodes[index];
        if (++reached > allocated)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: more nodes reached than the %d allocated",
                                function, allocated);
        if (n->height < 0)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: free node %d is in the tree", function, index);
        if (!box_is_valid(&n->box))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d has an invalid box", function, index);
        if (n->height > 0) {
            int32_t a = n->u.child[0], b = n->u.child[1];
            if (a < 0 || a >= tree->capacity || b < 0 || b >= tree->capacity || a == b)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d has bad children %d, %d", function,
                                    index, a, b);
            if (nodes[a].parent != index || nodes[b].parent != index)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                    "%s: children %d, %d of node %d do not link back to it (parents %d, %d)", function,
                                    a, b, index, nodes[a].parent, nodes[b].parent);
            if (nodes[a].height < 0 || nodes[b].height < 0)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d has a free child", function, index);
            int32_t height = 1 + (nodes[a].height > nodes[b].height ? nodes[a].height : nodes[b].height);
            if (n->height != height)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node %d has height %d, its children say %d",
                                    function, index, n->height, height);
            sr_aabb expected = box_union(&nodes[a].box, &nodes[b].box);
            if (!box_equal(&expected, &n->box))
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                    "%s: node %d's box is not the union of its children's boxes", function, index);
            index = a;
            continue;
        }
        if (n->generation == 0)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: leaf %d has generation 0", function, index);
        leaves++;
        /* Climb until we arrive from a first child; its sibling is next. */
        for (;;) {
            int32_t parent = nodes[index].parent;
            if (parent == NULL_NODE) {
                index = NULL_NODE;
                break;
            }
            if (nodes[parent].u.child[0] == index) {
                index = nodes[parent].u.child[1];
                break;
            }
            index = parent;
        }
        if (index == NULL_NODE)
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

static inline int bin_of(float centre, float lo, float scale, int bin_count)
{
    int b = (int)((centre - lo) * scale);
    return b < bin_count - 1 ? b : bin_count - 1;
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
    int32_t item_count = 0;
    for (int32_t i = 0; i < tree->capacity; i++) {
        if (nodes[i].height == 0) {
            const sr_aabb *box = &nodes[i].box;
            items[item_count++] = (build_item){
                {box->min.x, box->min.y, box->min.z},
                {box->max.x, box->max.y, box->max.z},
                {(box->min.x + box->max.x) * 0.5f, (box->min.y + box->max.y) * 0.5f, (box->min.z + box->max.z) * 0.5f},
                i,
            };
        } else if (nodes[i].height > 0)
            release_node(tree, i);
    }

    int32_t task_count = 0, interior_count = 0;
    tasks[task_count++] = (build_task){0, count, NULL_NODE, 0};
    while (task_count > 0) {
        build_task task = tasks[--task_count];
        int32_t index;
        if (task.end - task.begin == 1) {
            index = items[task.begin].node;
        } else {
            int32_t middle = split_binned_sah(items, task.begin, task.end);
            index = allocate_node(tree);
            nodes[index].height = 1; /* refitted below, bottom-up */
            order[interior_count++] = index;
            tasks[task_count++] = (build_task){middle, task.end, index, 1};
            tasks[task_count++] = (build_task){task.begin, middle, index, 0};
        }
        nodes[index].parent = task.parent;
        if (task.parent == NULL_NODE)
            tree->root = index;
        else
            nodes[task.parent].u.child[task.slot] = index;
    }
    /* Children were created after their parents: refit in reverse creation order. */
    for (int32_t i = interior_count - 1; i >= 0; i--)
        refit_node(nodes, order[i]);
    sr_free(memory);
    return SR_OK;
}
