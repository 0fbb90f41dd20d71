/* tests/test_bvh_dynamic_rotations.c — the dynamic tree's insertions and rotations
 * (src/bvh/bvh_dynamic.c) against an independent model in double precision. Before every insert
 * (and every move that reinserts), the tree is copied through sr_dynamic_tree_visit_nodes; the
 * model applies to the copy what bvh_dynamic.h and Kopta et al. 2012 describe — the SAH sibling
 * (greedy descent or exact optimum), the new parent, then on the way up, at every node whose box
 * grows, the one of the six rotations that lowers the tree's summed node area (its SAH cost) the
 * most, none when none lowers it — and the tree must come out node for node as the model's. A
 * decision of the model closer to a tie than float rounding can separate is not judged (that
 * operation is skipped; the next one starts from a fresh copy). Each of the six rotations must be
 * chosen by the model a good number of times in judged operations, so that a tree that never
 * applies one of them fails. */
#include <criterion/criterion.h>

#include <softrast/bvh_dynamic.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic random numbers (SplitMix64) ---- */

typedef struct rng {
    uint64_t state;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float rng_float(rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0));
}

static sr_vec3 rng_vec3(rng *r, float lo, float hi)
{
    return (sr_vec3){rng_float(r, lo, hi), rng_float(r, lo, hi), rng_float(r, lo, hi)};
}

/* ---- the model: a copy of the tree ---- */

#define MAX_LEAVES 700
#define MAX_NODES (2 * MAX_LEAVES)
#define MOVE_COUNT 6

typedef struct model_node {
    int child[2]; /* -1 for leaves */
    int parent;   /* -1 at the root */
    sr_aabb box;
    uint64_t user_data;
    bool removed; /* no longer in the tree (the model never reuses its slot) */
} model_node;

typedef struct model {
    int count, root;
    model_node nodes[MAX_NODES];
    int path[MAX_NODES]; /* while copying: the last node seen at each depth */
    /* what the model did in the operation being simulated */
    int moves[MOVE_COUNT];
    double closest_call; /* the smallest margin of any decision, relative to its tolerance */
} model;

static bool copy_node(void *user, const sr_dynamic_tree_node_info *info)
{
    model *m = user;
    cr_assert(m->count < MAX_NODES && info->depth < MAX_NODES);
    int self = m->count++, parent = info->depth == 0 ? -1 : m->path[info->depth - 1];
    m->nodes[self] = (model_node){
        .child = {-1, -1}, .parent = parent, .box = info->box, .user_data = info->is_leaf ? info->user_data : 0};
    if (parent >= 0) /* pre-order, child[0] first */
        m->nodes[parent].child[m->nodes[parent].child[0] < 0 ? 0 : 1] = self;
    else
        m->root = self;
    m->path[info->depth] = self;
    return true;
}

static void copy_tree(const sr_dynamic_tree *tree, model *m)
{
    m->count = 0;
    m->root = -1;
    sr_error err;
    sr_dynamic_tree_query_stats s = sr_dynamic_tree_visit_nodes(tree, copy_node, m, &err);
    cr_assert_eq(s.status, SR_OK, "%s", err.message);
}

static bool is_leaf(const model *m, int n)
{
    return m->nodes[n].child[0] < 0;
}

static double half_area(sr_aabb b)
{
    double x = (double)b.max.x - b.min.x, y = (double)b.max.y - b.min.y, z = (double)b.max.z - b.min.z;
    return x * y + y * z + z * x;
}

static sr_aabb box_union(sr_aabb a, sr_aabb b)
{
    return (sr_aabb){{fminf(a.min.x, b.min.x), fminf(a.min.y, b.min.y), fminf(a.min.z, b.min.z)},
                     {fmaxf(a.max.x, b.max.x), fmaxf(a.max.y, b.max.y), fmaxf(a.max.z, b.max.z)}};
}

static double union_area(sr_aabb a, sr_aabb b)
{
    return half_area(box_union(a, b));
}

static bool box_contains(sr_aabb outer, sr_aabb inner)
{
    return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && outer.min.z <= inner.min.z &&
           inner.max.x <= outer.max.x && inner.max.y <= outer.max.y && inner.max.z <= outer.max.z;
}

/* Records how close a decision a < b came to going the other way, against the tolerance within
 * which float rounding could decide it differently. Exact ties are not near calls: in this model
 * they come from the same boxes (a union equal to a box already there; no move found, compared
 * with no move), whose float areas tie exactly too, and the strict comparisons break them alike. */
static void decide(model *m, double a, double b, double tolerance)
{
    if (a == b)
        return;
    double margin = fabs(a - b) / tolerance;
    if (margin < m->closest_call)
        m->closest_call = margin;
}

/* SA(s u L) plus the growth of the areas of s's ancestors: the insertion cost of L beside s. */
static double sibling_cost(const model *m, int s, sr_aabb leaf)
{
    double cost = union_area(m->nodes[s].box, leaf);
    for (int a = m->nodes[s].parent; a >= 0; a = m->nodes[a].parent)
        cost += union_area(m->nodes[a].box, leaf) - half_area(m->nodes[a].box);
    return cost;
}

/* The exact insertion's sibling: the minimum cost over every node (brute force). */
static int exact_sibling(model *m, sr_aabb leaf, double tolerance)
{
    int best = -1;
    double best_cost = INFINITY, second = INFINITY;
    for (int s = 0; s < m->count; s++) {
        if (m->nodes[s].removed)
            continue;
        double cost = sibling_cost(m, s, leaf);
        if (cost < best_cost)
            second = best_cost, best_cost = cost, best = s;
        else if (cost < second)
            second = cost;
    }
    if (second < INFINITY)
        decide(m, best_cost, second, tolerance);
    return best;
}

/* The greedy descent of bvh_dynamic.h (Box2D v3's): from the root, weigh both children as
 * siblings (the first child first, a later one replacing the best only when strictly cheaper), go
 * on into the interior child whose subtree grows least (the first on a tie) while its lower
 * bound, its induced cost + SA(L), is below the best cost seen. */
static int greedy_sibling(model *m, sr_aabb leaf, double tolerance)
{
    double leaf_area = half_area(leaf);
    int best = m->root, node = m->root;
    double best_cost = sibling_cost(m, node, leaf);
    if (is_leaf(m, node))
        return best;
    double induced = best_cost - half_area(m->nodes[node].box);
    for (;;) {
        decide(m, induced + leaf_area, best_cost, tolerance);
        if (!(induced + leaf_area < best_cost))
            break;
        double child_induced[2];
        for (int k = 0; k < 2; k++) {
            int c = m->nodes[node].child[k];
            double cost = sibling_cost(m, c, leaf);
            decide(m, cost, best_cost, tolerance);
            if (cost < best_cost)
                best_cost = cost, best = c;
            child_induced[k] = is_leaf(m, c) ? INFINITY : cost - half_area(m->nodes[c].box);
        }
        if (child_induced[0] < INFINITY && child_induced[1] < INFINITY)
            decide(m, child_induced[1], child_induced[0], tolerance);
        int near = child_induced[1] < child_induced[0] ? 1 : 0;
        if (child_induced[near] == INFINITY)
            break;
        node = m->nodes[node].child[near];
        induced = child_induced[near];
    }
    return best;
}

static void refit(model *m, int n)
{
    m->nodes[n].box = box_union(m->nodes[m->nodes[n].child[0]].box, m->nodes[m->nodes[n].child[1]].box);
}

/* Exchanges the subtrees at child slot sa of node pa and slot sb of node pb. */
static void exchange(model *m, int pa, int sa, int pb, int sb)
{
    int a = m->nodes[pa].child[sa], b = m->nodes[pb].child[sb];
    m->nodes[pa].child[sa] = b;
    m->nodes[pb].child[sb] = a;
    m->nodes[b].parent = pa;
    m->nodes[a].parent = pb;
}

/* A rotation at node A, whose children are B and C (D, E the children of B; F, G those of C), is
 * an exchange of two subtrees below A (Kopta et al. 2012): a child of A with a grandchild on the
 * other side, or a grandchild with a grandchild across. In the order the code weighs them:
 *   0: B <-> F   1: B <-> G   2: C <-> D   3: C <-> E   4: D <-> F   5: D <-> G
 * (E <-> G and E <-> F give the same partitions as 4 and 5). Each is given as the exchange of
 * (node, slot) pairs. A move needs the children of the node it takes grandchildren from. */
typedef struct rotation {
    int parent_a, slot_a, parent_b, slot_b;
    bool possible;
} rotation;

static void list_rotations(const model *m, int a, rotation out[MOVE_COUNT])
{
    int b = m->nodes[a].child[0], c = m->nodes[a].child[1];
    bool b_interior = !is_leaf(m, b), c_interior = !is_leaf(m, c);
    out[0] = (rotation){a, 0, c, 0, c_interior};
    out[1] = (rotation){a, 0, c, 1, c_interior};
    out[2] = (rotation){a, 1, b, 0, b_interior};
    out[3] = (rotation){a, 1, b, 1, b_interior};
    out[4] = (rotation){b, 0, c, 0, b_interior && c_interior};
    out[5] = (rotation){b, 0, c, 1, b_interior && c_interior};
}

/* The summed areas of the nodes of A's subtree but A (A's box cannot change): the part of the
 * tree's SAH sum that a rotation at A can change. Recomputed over the whole subtree from scratch. */
static double subtree_area(const model *m, int n)
{
    return is_leaf(m, n) ? half_area(m->nodes[n].box)
                         : half_area(m->nodes[n].box) + subtree_area(m, m->nodes[n].child[0]) +
                               subtree_area(m, m->nodes[n].child[1]);
}

static void refit_upwards_to(model *m, int from, int stop)
{
    for (int n = from; n != stop && n >= 0; n = m->nodes[n].parent)
        refit(m, n);
}

/* The rotation rule at A: apply the move that lowers the tree's summed node area the most, none
 * if none lowers it (on a tie the first). Each move's effect is measured by applying it to the
 * model, refitting the nodes below A whose boxes it changes and summing the areas of A's subtree,
 * then undoing it: no formula of the code is reused. */
static void rotate(model *m, int a)
{
    if (is_leaf(m, m->nodes[a].child[0]) && is_leaf(m, m->nodes[a].child[1]))
        return;
    rotation moves[MOVE_COUNT];
    list_rotations(m, a, moves);
    double before = subtree_area(m, a), change[MOVE_COUNT];
    sr_aabb kept[2];
    for (int k = 0; k < MOVE_COUNT; k++) {
        const rotation *r = &moves[k];
        if (!r->possible)
            continue;
        kept[0] = m->nodes[r->parent_a].box, kept[1] = m->nodes[r->parent_b].box;
        exchange(m, r->parent_a, r->slot_a, r->parent_b, r->slot_b);
        refit_upwards_to(m, r->parent_a, a);
        refit_upwards_to(m, r->parent_b, a);
        change[k] = subtree_area(m, a) - before;
        exchange(m, r->parent_a, r->slot_a, r->parent_b, r->slot_b); /* undo */
        m->nodes[r->parent_a].box = kept[0], m->nodes[r->parent_b].box = kept[1];
    }
    int best = -1;
    double best_change = 0.0;
    const double tolerance = 1e-5 * before;
    for (int k = 0; k < MOVE_COUNT; k++)
        if (moves[k].possible && change[k] < best_change)
            best_change = change[k], best = k;
    /* Rounding must not be able to reorder the chosen move with any other, nor with no move. */
    decide(m, best_change, 0.0, tolerance);
    for (int k = 0; k < MOVE_COUNT; k++)
        if (moves[k].possible && k != best)
            decide(m, change[k], best_change, tolerance);
    if (best < 0)
        return;
    m->moves[best]++;
    const rotation *r = &moves[best];
    exchange(m, r->parent_a, r->slot_a, r->parent_b, r->slot_b);
    refit_upwards_to(m, r->parent_a, a);
    refit_upwards_to(m, r->parent_b, a);
}

/* Insertion as bvh_dynamic.h describes it: a new parent takes the sibling's place (the sibling
 * its first child, the leaf its second), then from the new parent upwards every node whose box
 * did not already hold the leaf's box is rotated and refitted; the first node that held it ends
 * the walk (no box above changes). */
static void model_insert(model *m, sr_aabb leaf_box, uint64_t user_data, bool exact)
{
    cr_assert(m->count + 2 <= MAX_NODES);
    int sibling = -1;
    if (m->root >= 0) {
        double tolerance = 1e-5 * union_area(m->nodes[m->root].box, leaf_box);
        sibling = exact ? exact_sibling(m, leaf_box, tolerance) : greedy_sibling(m, leaf_box, tolerance);
    }
    int leaf = m->count++;
    m->nodes[leaf] = (model_node){.child = {-1, -1}, .parent = -1, .box = leaf_box, .user_data = user_data};
    if (sibling < 0) {
        m->root = leaf;
        return;
    }
    int parent = m->count++, old_parent = m->nodes[sibling].parent;
    m->nodes[parent] =
        (model_node){.child = {sibling, leaf}, .parent = old_parent, .box = box_union(m->nodes[sibling].box, leaf_box)};
    if (old_parent < 0)
        m->root = parent;
    else
        m->nodes[old_parent].child[m->nodes[old_parent].child[0] == sibling ? 0 : 1] = parent;
    m->nodes[sibling].parent = parent;
    m->nodes[leaf].parent = parent;
    for (int n = parent; n >= 0; n = m->nodes[n].parent) {
        if (n != parent && box_contains(m->nodes[n].box, leaf_box))
            break;
        rotate(m, n);
        refit(m, n);
    }
}

/* Removal: the leaf's sibling takes its parent's place, the ancestors are refitted. */
static void model_remove(model *m, uint64_t user_data)
{
    int leaf = -1;
    for (int n = 0; n < m->count && leaf < 0; n++)
        if (!m->nodes[n].removed && is_leaf(m, n) && m->nodes[n].user_data == user_data)
            leaf = n;
    cr_assert(leaf >= 0);
    int parent = m->nodes[leaf].parent;
    m->nodes[leaf].removed = true;
    if (parent < 0) {
        m->root = -1;
        return;
    }
    int grandparent = m->nodes[parent].parent;
    int sibling = m->nodes[parent].child[m->nodes[parent].child[0] == leaf ? 1 : 0];
    m->nodes[sibling].parent = grandparent;
    if (grandparent < 0)
        m->root = sibling;
    else
        m->nodes[grandparent].child[m->nodes[grandparent].child[0] == parent ? 0 : 1] = sibling;
    m->nodes[leaf].removed = m->nodes[parent].removed = true;
    refit_upwards_to(m, grandparent, -1);
}

/* ---- comparing the tree with the model ---- */

typedef struct flat_node {
    int depth;
    bool leaf;
    uint64_t user_data;
    sr_aabb box;
} flat_node;

typedef struct flat_tree {
    int count;
    flat_node nodes[MAX_NODES];
} flat_tree;

static bool flatten_visit(void *user, const sr_dynamic_tree_node_info *info)
{
    flat_tree *f = user;
    cr_assert(f->count < MAX_NODES);
    f->nodes[f->count++] = (flat_node){info->depth, info->is_leaf, info->is_leaf ? info->user_data : 0, info->box};
    return true;
}

static void flatten_model(const model *m, int n, int depth, flat_tree *f)
{
    cr_assert(f->count < MAX_NODES);
    f->nodes[f->count++] =
        (flat_node){depth, is_leaf(m, n), is_leaf(m, n) ? m->nodes[n].user_data : 0, m->nodes[n].box};
    if (!is_leaf(m, n)) {
        flatten_model(m, m->nodes[n].child[0], depth + 1, f);
        flatten_model(m, m->nodes[n].child[1], depth + 1, f);
    }
}

static bool same_box(sr_aabb a, sr_aabb b)
{
    return a.min.x == b.min.x && a.min.y == b.min.y && a.min.z == b.min.z && a.max.x == b.max.x && a.max.y == b.max.y &&
           a.max.z == b.max.z;
}

/* The tree, in pre-order with child 0 first, node for node as the model. */
static void check_tree_is_model(const sr_dynamic_tree *tree, const model *m, flat_tree *got, flat_tree *want,
                                const char *operation, int number)
{
    got->count = want->count = 0;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_visit_nodes(tree, flatten_visit, got, &err).status, SR_OK, "%s", err.message);
    if (m->root >= 0)
        flatten_model(m, m->root, 0, want);
    cr_assert_eq(got->count, want->count, "%s %d: %d nodes, the model has %d", operation, number, got->count,
                 want->count);
    for (int i = 0; i < got->count; i++) {
        const flat_node *g = &got->nodes[i], *w = &want->nodes[i];
        cr_assert(g->depth == w->depth && g->leaf == w->leaf && g->user_data == w->user_data &&
                      same_box(g->box, w->box),
                  "%s %d: node %d of the pre-order differs from the model's (depth %d/%d, leaf %d/%d, proxy %llu/%llu; "
                  "the model rotated with moves %d %d %d %d %d %d)",
                  operation, number, i, g->depth, w->depth, g->leaf, w->leaf, (unsigned long long)g->user_data,
                  (unsigned long long)w->user_data, m->moves[0], m->moves[1], m->moves[2], m->moves[3], m->moves[4],
                  m->moves[5]);
    }
}

/* ---- the test ---- */

static sr_aabb random_box(rng *r, int i)
{
    /* Mostly small boxes, some large and some long ones, so that every rotation finds work. */
    sr_vec3 centre = rng_vec3(r, -20.0f, 20.0f), half = rng_vec3(r, 0.1f, i % 17 == 0 ? 6.0f : 1.5f);
    if (i % 11 == 0)
        (&half.x)[i % 3] *= 8.0f;
    return (sr_aabb){sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
}

static void check_against_model(bool exact, uint64_t seed)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(
        sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true, .exact_insertion = exact}, &tree, &err),
        SR_OK, "%s", err.message);
    model *m = malloc(sizeof *m);
    flat_tree *got = malloc(sizeof *got), *want = malloc(sizeof *want);
    sr_dynamic_proxy *proxies = malloc(MAX_LEAVES * sizeof *proxies);
    cr_assert(m && got && want && proxies);
    rng r = {seed};
    const int inserts = 600, moves = 400;
    int judged = 0, skipped = 0, total[MOVE_COUNT] = {0};
    for (int op = 0; op < inserts + moves; op++) {
        copy_tree(tree, m);
        memset(m->moves, 0, sizeof m->moves);
        m->closest_call = INFINITY;
        sr_aabb box = random_box(&r, op);
        int user;
        if (op < inserts) {
            user = op;
            model_insert(m, box, (uint64_t)user, exact);
            cr_assert_eq(sr_dynamic_tree_insert(tree, box, (uint64_t)user, &proxies[user], &err), SR_OK, "%s",
                         err.message);
        } else { /* a move far enough to reinsert: removal, then the same insertion */
            user = (int)(rng_next(&r) % (uint64_t)inserts);
            model_remove(m, (uint64_t)user);
            model_insert(m, box, (uint64_t)user, exact);
            bool changed = false;
            cr_assert_eq(sr_dynamic_tree_move(tree, proxies[user], box, (sr_vec3){0, 0, 0}, &changed, &err), SR_OK,
                         "%s", err.message);
            cr_assert(changed, "move %d was not a reinsertion", op);
        }
        cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
        if (m->closest_call < 1.0) { /* a near tie: rounding may decide either way */
            skipped++;
            continue;
        }
        check_tree_is_model(tree, m, got, want, op < inserts ? "insert" : "move", op);
        judged++;
        for (int k = 0; k < MOVE_COUNT; k++)
            total[k] += m->moves[k];
    }
    cr_log_info("%s insertion: %d operations judged, %d near ties skipped; rotations by move: %d %d %d %d %d %d",
                exact ? "exact" : "greedy", judged, skipped, total[0], total[1], total[2], total[3], total[4],
                total[5]);
    cr_assert_geq(judged, (inserts + moves) * 9 / 10, "only %d of %d operations judged", judged, inserts + moves);
    for (int k = 0; k < MOVE_COUNT; k++)
        cr_assert_geq(total[k], 20, "move %d chosen only %d times: its test proves little", k, total[k]);
    free(proxies);
    free(want);
    free(got);
    free(m);
    sr_dynamic_tree_destroy(tree);
}

Test(rotations, greedy_insertions_and_reinsertions_match_the_model)
{
    check_against_model(false, 4242);
}

Test(rotations, exact_insertions_and_reinsertions_match_the_model)
{
    check_against_model(true, 9001);
}

/* A rotation that leaves the summed area unchanged is not applied ("lowers" is strict). Leaves F
 * and G, then B with exactly the box of their parent: the sibling is that parent (nothing below it
 * can be cheaper: B's own area, the lower bound, already equals its cost), and at the new parent
 * both rotations possible there (B with F, B with G) keep every area as it is: the tree stays
 * ((F, G), B). Also in the other insertion order of F and G, and with exact insertion. */
Test(rotations, moves_that_gain_nothing_are_not_applied)
{
    const sr_aabb f = {{0, 0, 0}, {1, 1, 1}}, g = {{2, 0, 0}, {3, 1, 1}}, b = {{0, 0, 0}, {3, 1, 1}};
    for (int exact = 0; exact < 2; exact++)
        for (int order = 0; order < 2; order++) {
            sr_dynamic_tree *tree;
            sr_error err;
            cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true, .exact_insertion = exact},
                                                &tree, &err),
                         SR_OK);
            sr_dynamic_proxy p;
            cr_assert_eq(sr_dynamic_tree_insert(tree, order ? g : f, 0, &p, &err), SR_OK);
            cr_assert_eq(sr_dynamic_tree_insert(tree, order ? f : g, 1, &p, &err), SR_OK);
            cr_assert_eq(sr_dynamic_tree_insert(tree, b, 2, &p, &err), SR_OK);
            flat_tree *got = malloc(sizeof *got);
            cr_assert_not_null(got);
            got->count = 0;
            sr_dynamic_tree_visit_nodes(tree, flatten_visit, got, &err);
            /* pre-order: root, (F, G), F, G, B */
            const int depth[5] = {0, 1, 2, 2, 1};
            const int proxy[5] = {-1, -1, 0, 1, 2};
            cr_assert_eq(got->count, 5);
            for (int i = 0; i < 5; i++) {
                cr_assert_eq(got->nodes[i].depth, depth[i], "exact %d order %d: node %d at depth %d", exact, order, i,
                             got->nodes[i].depth);
                cr_assert_eq(got->nodes[i].leaf, proxy[i] >= 0, "exact %d order %d: node %d", exact, order, i);
                if (proxy[i] >= 0)
                    cr_assert_eq(got->nodes[i].user_data, (uint64_t)proxy[i], "exact %d order %d: node %d holds %llu",
                                 exact, order, i, (unsigned long long)got->nodes[i].user_data);
            }
            free(got);
            sr_dynamic_tree_destroy(tree);
        }
}
