/* tests/test_bvh_dynamic_tree.c — the dynamic AABB tree's ray callback contract, degenerate
 * deep trees and allocation failures, the insertion search against the SAH-optimal sibling,
 * frustums accepting whole subtrees, and rebuilds (part of the program test_bvh_dynamic; helpers:
 * bvh_dynamic_test_helpers.h). */
#include <criterion/criterion.h>

#include <softrast/bvh_dynamic.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_dynamic_test_helpers.h"

/* ---- ray callback contract ---- */

typedef struct ray_log {
    int calls;
    float stop_value;
    float tmax_seen[64];
} ray_log;

static float stop_at_first(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy, (void)user_data;
    ray_log *log = user;
    log->tmax_seen[log->calls++ % 64] = ray->tmax;
    return log->stop_value;
}

static float clip_at_entry(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy;
    ray_log *log = user;
    log->tmax_seen[log->calls++ % 64] = ray->tmax;
    /* Box k spans x in [2k, 2k + 1] (fat: from 2k - 0.1); the ray starts at x = -5 along +x. */
    float t = (float)(2 * user_data) + 4.9f;
    return t < ray->tmax ? t : ray->tmax;
}

Test(bvh_dynamic, ray_callback_clips_and_stops)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_OK);
    /* A row of 20 unit boxes along +x, inserted in a scrambled order. */
    for (int i = 0; i < 20; i++) {
        int k = (i * 7) % 20;
        sr_dynamic_proxy p;
        cr_assert_eq(
            sr_dynamic_tree_insert(tree, (sr_aabb){{2.0f * k, 0, 0}, {2.0f * k + 1, 1, 1}}, (uint64_t)k, &p, &err),
            SR_OK);
    }
    sr_ray ray = make_ray((sr_vec3){-5.0f, 0.5f, 0.5f}, (sr_vec3){1, 0, 0}, 0.0f, 1000.0f);
    /* Without clipping every box is a candidate. */
    ray_log log = {.stop_value = 1000.0f};
    sr_dynamic_tree_query_stats s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(s.status, SR_OK);
    cr_assert_eq(log.calls, 20);
    cr_assert_eq(s.proxies_reported, 20);
    cr_assert(!s.stopped);
    /* 0 stops after the first candidate. */
    log = (ray_log){.stop_value = 0.0f};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(s.status, SR_OK);
    cr_assert_eq(log.calls, 1);
    cr_assert(s.stopped);
    /* NaN stops too. */
    log = (ray_log){.stop_value = NAN};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(log.calls, 1);
    cr_assert(s.stopped);
    /* Clipping at each hit: the nearer child is visited first, so the nearest box (k = 0) comes
     * first and, once the ray is clipped at its entry, no other box is entered before tmax. */
    log = (ray_log){0};
    s = sr_dynamic_tree_ray_cast(tree, &ray, clip_at_entry, &log, &err);
    cr_assert_eq(s.status, SR_OK);
    cr_assert(!s.stopped);
    cr_assert_eq(log.calls, 1, "ordered traversal: %d candidates after clipping at the nearest", log.calls);
    cr_assert_eq(log.tmax_seen[0], 1000.0f);
    /* A ray starting past box 12 reports boxes 13..19 only (tmin clips the start). */
    ray = make_ray((sr_vec3){-5.0f, 0.5f, 0.5f}, (sr_vec3){1, 0, 0}, 5.0f + 25.2f, 1000.0f);
    log = (ray_log){.stop_value = 1000.0f};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(log.calls, 7);
    /* A ray with tmin == tmax (a point at t = 7.5, x = 2.5, inside box 1 only): returning ray->tmax
     * goes on (the "continue" rule wins over "<= tmin stops"); NaN stops. */
    ray = make_ray((sr_vec3){-5.0f, 0.5f, 0.5f}, (sr_vec3){1, 0, 0}, 7.5f, 7.5f);
    log = (ray_log){.stop_value = 7.5f};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(s.status, SR_OK);
    cr_assert_eq(log.calls, 1, "%d boxes contain the point", log.calls);
    cr_assert(!s.stopped);
    log = (ray_log){.stop_value = NAN};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert(s.stopped && log.calls == 1);
    sr_dynamic_tree_destroy(tree);
}

/* ---- degenerate deep trees and allocation failures ---- */

typedef struct failing_allocator {
    int remaining; /* allocations still allowed; < 0: unlimited */
    int refused;
} failing_allocator;

static void *failing_allocate(size_t size, void *user)
{
    failing_allocator *f = user;
    if (f->remaining == 0) {
        f->refused++;
        return NULL;
    }
    if (f->remaining > 0)
        f->remaining--;
    return malloc(size);
}

static void *failing_reallocate(void *pointer, size_t size, void *user)
{
    failing_allocator *f = user;
    if (f->remaining == 0) {
        f->refused++;
        return NULL;
    }
    if (f->remaining > 0)
        f->remaining--;
    return realloc(pointer, size);
}

static void failing_release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

typedef struct nested_count {
    int count;
    bool seen[1000];
} nested_count;

static bool count_nested(void *user, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy;
    nested_count *n = user;
    n->count++;
    if (user_data < 1000)
        n->seen[user_data] = true;
    return true;
}

Test(bvh_dynamic, deep_trees_and_allocation_failures)
{
    failing_allocator hook = {.remaining = -1};
    sr_set_allocator(&(sr_allocator){failing_allocate, failing_reallocate, failing_release, &hook});
    sr_error err;
    sr_dynamic_tree *tree = NULL;

    /* Creation fails cleanly. */
    hook.remaining = 0;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_ERROR_OUT_OF_MEMORY);
    cr_assert_null(tree);
    hook.remaining = 1; /* the tree struct, but not its pool */
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_ERROR_OUT_OF_MEMORY);
    cr_assert_null(tree);

    /* Nested boxes, each containing all earlier ones: SAH insertion puts each new box beside the
     * root and no rotation helps, so the tree is a chain far taller than the fixed query stack. */
    hook.remaining = -1;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.initial_capacity = 4}, &tree, &err), SR_OK);
    const int n = 600;
    sr_dynamic_proxy proxies[600];
    for (int i = 0; i < n; i++) {
        float h = 1.0f + (float)i;
        cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{-h, -h, -h}, {h, h, h}}, (uint64_t)i, &proxies[i], &err),
                     SR_OK, "%s", err.message);
    }
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    sr_dynamic_tree_stats stats = sr_dynamic_tree_get_stats(tree);
    cr_assert(stats.height > 300, "height %d", stats.height);

    /* Queries on the tall tree allocate their stack once and answer like brute force: a box around
     * the point (0, 0, k + 1.05) overlaps fat boxes (half size i + 1 + 0.1) with i >= k. */
    for (int k = 0; k < n; k += 37) {
        nested_count found = {0};
        float z = (float)k + 1.05f;
        sr_dynamic_tree_query_stats s =
            sr_dynamic_tree_query_aabb(tree, (sr_aabb){{0, 0, z}, {0, 0, z}}, count_nested, &found, &err);
        cr_assert_eq(s.status, SR_OK, "%s", err.message);
        cr_assert_eq(found.count, n - k, "k %d: %d found", k, found.count);
        for (int i = 0; i < n; i++)
            cr_assert_eq(found.seen[i], i >= k);
    }

    /* With the allocator refusing, that stack cannot be had: reported, nothing visited. */
    hook.remaining = 0;
    nested_count found = {0};
    sr_dynamic_tree_query_stats s =
        sr_dynamic_tree_query_aabb(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, count_nested, &found, &err);
    cr_assert_eq(s.status, SR_ERROR_OUT_OF_MEMORY);
    cr_assert_eq(err.status, SR_ERROR_OUT_OF_MEMORY);
    cr_assert_eq(found.count, 0);
    /* Rebuild needs temporary memory: refused, and the tree is unchanged. */
    double sah_before = sr_dynamic_tree_get_stats(tree).sah_cost;
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_ERROR_OUT_OF_MEMORY);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).sah_cost, sah_before);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).height, stats.height);

    /* Inserting until the pool must grow: refused with OUT_OF_MEMORY, the tree stays valid. */
    int inserted = 0;
    sr_status status = SR_OK;
    while (status == SR_OK && inserted < 100000) {
        sr_dynamic_proxy p;
        float h = 2000.0f + (float)inserted;
        status =
            sr_dynamic_tree_insert(tree, (sr_aabb){{h, 0, 0}, {h + 1, 1, 1}}, 5000u + (uint64_t)inserted, &p, &err);
        if (status == SR_OK)
            inserted++;
    }
    cr_assert_eq(status, SR_ERROR_OUT_OF_MEMORY, "%s", err.message);
    cr_assert(hook.refused > 0);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).proxy_count, n + inserted);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    /* Moves and removes never allocate, so they still work. */
    bool changed;
    cr_assert_eq(sr_dynamic_tree_move(tree, proxies[10], (sr_aabb){{50, 50, 50}, {51, 51, 51}}, (sr_vec3){0, 0, 0},
                                      &changed, &err),
                 SR_OK, "%s", err.message);
    cr_assert(changed);
    cr_assert_eq(sr_dynamic_tree_remove(tree, proxies[20], &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);

    /* Memory back: everything works again, rebuild flattens the chain. */
    hook.remaining = -1;
    sr_dynamic_proxy p;
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{-1, -1, -1}, {1, 1, 1}}, 9999, &p, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    cr_assert(sr_dynamic_tree_proxy_is_valid(tree, proxies[0]) && sr_dynamic_tree_proxy_is_valid(tree, p));
    cr_assert(!sr_dynamic_tree_proxy_is_valid(tree, proxies[20]));
    sr_dynamic_tree_destroy(tree);
    sr_set_allocator(NULL);
}

/* ---- the insertion search: the SAH-optimal sibling, or the greedy descent's ---- */

typedef struct tree_copy {
    int count;
    int parent[1200];
    int child[1200][2]; /* -1 for leaves */
    sr_aabb box[1200];
    int path[1200]; /* path[depth]: the last node seen at that depth (pre-order) */
} tree_copy;

static bool copy_node(void *user, const sr_dynamic_tree_node_info *n)
{
    tree_copy *t = user;
    cr_assert(t->count < 1200 && n->depth < 1200);
    int self = t->count, parent = n->depth == 0 ? -1 : t->path[n->depth - 1];
    t->parent[self] = parent;
    t->child[self][0] = t->child[self][1] = -1;
    if (parent >= 0)
        t->child[parent][t->child[parent][0] < 0 ? 0 : 1] = self; /* pre-order: child[0] comes first */
    t->box[self] = n->box;
    t->path[n->depth] = self;
    t->count++;
    return true;
}

static double union_half_area(sr_aabb a, sr_aabb b)
{
    double lo[3] = {fmin(a.min.x, b.min.x), fmin(a.min.y, b.min.y), fmin(a.min.z, b.min.z)};
    double hi[3] = {fmax(a.max.x, b.max.x), fmax(a.max.y, b.max.y), fmax(a.max.z, b.max.z)};
    return half_area(lo, hi);
}

/* The insertion cost of L as the sibling of node s: SA(s u L) + the growth of s's ancestors. */
static double sibling_cost(const tree_copy *t, int s, sr_aabb leaf)
{
    double cost = union_half_area(t->box[s], leaf);
    for (int a = t->parent[s]; a >= 0; a = t->parent[a])
        cost += union_half_area(t->box[a], leaf) - box_half_area(t->box[a]);
    return cost;
}

/* Box2D v3's greedy descent, written from its description in double precision: weigh both
 * children, go on into the one whose subtree grows least while its lower bound (its induced cost
 * + SA(L)) can beat the best cost seen. Costs come from sibling_cost, not from running sums. */
static double greedy_cost(const tree_copy *t, sr_aabb leaf)
{
    double leaf_area = box_half_area(leaf), best = sibling_cost(t, 0, leaf);
    int node = 0;
    while (t->child[node][0] >= 0 && sibling_cost(t, node, leaf) - box_half_area(t->box[node]) + leaf_area < best) {
        int near = -1;
        double near_induced = INFINITY;
        for (int k = 0; k < 2; k++) {
            int c = t->child[node][k];
            double cost = sibling_cost(t, c, leaf);
            best = fmin(best, cost);
            double induced = t->child[c][0] >= 0 ? cost - box_half_area(t->box[c]) : INFINITY;
            if (induced < near_induced)
                near = c, near_induced = induced;
        }
        if (near < 0)
            break;
        node = near;
    }
    return best;
}

/* Inserting leaf L as the sibling of node S adds SA(L) + SA(S u L) + the growth of S's ancestors
 * to the summed node areas; rotations afterwards only lower the sum. So after each insertion the
 * sum must not exceed before + SA(L) + the cost of the sibling the search should find: the
 * minimum over all S by brute force over every node of a copy of the tree (exact insertion), or
 * the greedy descent's choice recomputed on the copy (whose sibling can never beat the optimum,
 * and must miss it now and then for the exact test to mean anything). */
static void check_insertion_search(bool exact)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(
        sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true, .exact_insertion = exact}, &tree, &err),
        SR_OK);
    tree_copy *copy = malloc(sizeof *copy);
    node_census *census = malloc(sizeof *census);
    cr_assert(copy && census);
    rng r = {777};
    int improved_by_rotations = 0, greedy_missed_optimum = 0;
    double excess_sum = 0.0;
    for (int i = 0; i < 600; i++) {
        sr_vec3 centre = rng_vec3(&r, -20.0f, 20.0f), half = rng_vec3(&r, 0.1f, i % 17 == 0 ? 6.0f : 1.5f);
        sr_aabb leaf = {sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
        copy->count = 0;
        sr_dynamic_tree_visit_nodes(tree, copy_node, copy, &err);
        double before = 0.0, optimum = INFINITY;
        for (int s = 0; s < copy->count; s++) {
            before += box_half_area(copy->box[s]);
            optimum = fmin(optimum, sibling_cost(copy, s, leaf));
        }
        double greedy = copy->count > 0 ? greedy_cost(copy, leaf) : INFINITY;
        sr_dynamic_proxy p;
        cr_assert_eq(sr_dynamic_tree_insert(tree, leaf, (uint64_t)i, &p, &err), SR_OK);
        if (copy->count == 0)
            continue;
        cr_assert(greedy >= optimum * (1.0 - 1e-9), "insert %d: greedy %.9g below the optimum %.9g", i, greedy,
                  optimum);
        greedy_missed_optimum += greedy > optimum * (1.0 + 1e-6);
        excess_sum += (greedy - optimum) / before; /* the extra area, against the tree's total */
        census_sah(tree, census);
        double bound = before + box_half_area(leaf) + (exact ? optimum : greedy);
        cr_assert(census->area_sum <= bound * (1.0 + 1e-5), "insert %d: area sum %.6f above the %s search's %.6f", i,
                  census->area_sum, exact ? "exact" : "greedy", bound);
        if (census->area_sum < bound * (1.0 - 1e-4))
            improved_by_rotations++;
    }
    /* Without rotations the sum would equal the bound every time. */
    cr_log_info("%s insertion: rotations lowered the area sum below the search's bound in %d of 600 inserts; the "
                "greedy descent missed the optimum in %d, adding %.4f%% of the summed areas on average",
                exact ? "exact" : "greedy", improved_by_rotations, greedy_missed_optimum, 100.0 * excess_sum / 599);
    cr_assert(improved_by_rotations >= 30, "rotations helped in only %d inserts", improved_by_rotations);
    cr_assert(greedy_missed_optimum > 0, "the greedy descent always found the optimum: the exact test proves nothing");
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    free(copy);
    free(census);
    sr_dynamic_tree_destroy(tree);
}

Test(bvh_dynamic, exact_insertion_finds_the_sah_optimal_sibling)
{
    check_insertion_search(true);
}

Test(bvh_dynamic, greedy_insertion_finds_the_descents_sibling)
{
    check_insertion_search(false);
}

/* ---- frustum: subtrees inside are accepted wholesale ---- */

static bool stop_after_ten(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    (void)proxy, (void)user_data, (void)containment;
    return ++*(int *)user < 10;
}

Test(bvh_dynamic, frustum_around_everything_accepts_all_wholesale)
{
    /* The root is inside: every proxy is reported once, as SR_INSIDE, every node is walked once
     * and no box below the root is tested. Large enough that the walk overflows its prefetch ring. */
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_OK);
    world *w = calloc(1, sizeof *w);
    collector *c = calloc(1, sizeof *c);
    cr_assert(w && c);
    w->margin = 0.1f;
    rng r = {99};
    for (int i = 0; i < 5000; i++)
        insert_object(w, tree, &r);
    sr_frustum everything = {{{{1, 0, 0}, 1000},
                              {{-1, 0, 0}, 1000},
                              {{0, 1, 0}, 1000},
                              {{0, -1, 0}, 1000},
                              {{0, 0, 1}, 1000},
                              {{0, 0, -1}, 1000}}};
    collector_reset(c, tree, w);
    sr_dynamic_tree_query_stats s = sr_dynamic_tree_query_frustum(tree, &everything, collect_frustum, c, &err);
    cr_assert_eq(s.status, SR_OK, "%s", err.message);
    check_no_extras(c);
    cr_assert_eq(c->count, 5000);
    cr_assert_eq(s.nodes_visited, 2 * 5000 - 1);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (w->objects[i].live)
            cr_assert(c->mark[i] && c->containment[i] == SR_INSIDE, "object %d", i);

    /* A half-space frustum (x >= 0): the same set as brute force, INSIDE exactly for boxes wholly
     * on the positive side. */
    sr_frustum half_space = everything;
    half_space.planes[0] = (sr_plane){{1, 0, 0}, 0};
    collector_reset(c, tree, w);
    s = sr_dynamic_tree_query_frustum(tree, &half_space, collect_frustum, c, &err);
    cr_assert_eq(s.status, SR_OK, "%s", err.message);
    check_no_extras(c);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        const object *o = &w->objects[i];
        bool expected = o->live && o->fat.max.x >= 0.0f;
        cr_assert_eq(c->mark[i] != 0, expected, "object %d", i);
        if (expected)
            cr_assert_eq(c->containment[i], o->fat.min.x >= 0.0f ? SR_INSIDE : SR_INTERSECTING, "object %d", i);
    }
    /* Stopping early works in the wholesale walk too. */
    int calls = 0;
    s = sr_dynamic_tree_query_frustum(tree, &everything, stop_after_ten, &calls, &err);
    cr_assert_eq(calls, 10);
    cr_assert(s.stopped);
    free(w);
    free(c);
    sr_dynamic_tree_destroy(tree);
}

typedef struct line_walk {
    sr_aabb leaves[600];
    int leaf_count;
    long long contained_sum; /* over interior nodes: leaves whose boxes lie in the node's box */
    long long depth_sum;     /* over leaves: their depth (= the number of their ancestors) */
} line_walk;

static bool gather_leaves(void *user, const sr_dynamic_tree_node_info *node)
{
    line_walk *walk = user;
    if (node->is_leaf && walk->leaf_count < 600)
        walk->leaves[walk->leaf_count++] = node->box;
    return true;
}

static bool sum_containment(void *user, const sr_dynamic_tree_node_info *node)
{
    line_walk *walk = user;
    if (node->is_leaf) {
        walk->depth_sum += node->depth;
        return true;
    }
    for (int i = 0; i < walk->leaf_count; i++) {
        const sr_aabb *b = &walk->leaves[i];
        walk->contained_sum += node->box.min.x <= b->min.x && b->max.x <= node->box.max.x;
    }
    return true;
}

Test(bvh_dynamic, rebuild_partitions_separated_boxes_cleanly)
{
    /* Unit boxes on the x axis, 2 units apart, inserted in a shuffled order: every split of a correct
     * binned build separates the children along x, so an interior node's box holds exactly the
     * leaves of its subtree. Summed over interior nodes that is the summed depth of the leaves
     * (brute force on both sides); a partition that interleaved the halves would make it larger. */
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true}, &tree, &err), SR_OK);
    rng r = {4242};
    int slots[600];
    for (int i = 0; i < 600; i++)
        slots[i] = i;
    for (int i = 599; i > 0; i--) {
        int j = (int)(rng_next(&r) % (uint64_t)(i + 1));
        int swap = slots[i];
        slots[i] = slots[j];
        slots[j] = swap;
    }
    for (int i = 0; i < 600; i++) {
        float x = 2.0f * (float)slots[i];
        sr_dynamic_proxy p;
        cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{x, 0, 0}, {x + 1, 1, 1}}, (uint64_t)i, &p, &err), SR_OK);
    }
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    line_walk *walk = calloc(1, sizeof *walk);
    cr_assert(walk);
    cr_assert_eq(sr_dynamic_tree_visit_nodes(tree, gather_leaves, walk, &err).status, SR_OK);
    cr_assert_eq(walk->leaf_count, 600);
    cr_assert_eq(sr_dynamic_tree_visit_nodes(tree, sum_containment, walk, &err).status, SR_OK);
    cr_assert_eq(walk->contained_sum, walk->depth_sum, "interior boxes hold %lld leaves, leaf depths sum to %lld",
                 walk->contained_sum, walk->depth_sum);
    /* Balanced by the SAH on equal boxes: height within one of log2(600) rounded up. */
    cr_assert_leq(sr_dynamic_tree_get_stats(tree).height, 11);
    free(walk);
    sr_dynamic_tree_destroy(tree);
}
