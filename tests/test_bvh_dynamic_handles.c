/* tests/test_bvh_dynamic_handles.c — the dynamic AABB tree's handles (stale and invalid ones
 * detected, also when slots are reused), refused boxes and arguments, empty trees and small
 * cases, the fat box rule of moves (part of the program test_bvh_dynamic; helpers:
 * bvh_dynamic_test_helpers.h). */
#include <criterion/criterion.h>

#include <softrast/bvh_dynamic.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_dynamic_test_helpers.h"

/* ---- handles ---- */

Test(bvh_dynamic, stale_and_invalid_handles_are_detected)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_OK);
    sr_aabb box = {{0, 0, 0}, {1, 1, 1}};
    sr_dynamic_proxy a, b, c;
    cr_assert_eq(sr_dynamic_tree_insert(tree, box, 1, &a, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(tree, box, 2, &b, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(tree, box, 3, &c, &err), SR_OK);

    /* Brute force over a window of the handle space: exactly the three live handles are valid. */
    int capacity = sr_dynamic_tree_get_stats(tree).node_capacity;
    for (uint32_t index = 0; index < (uint32_t)capacity + 4; index++) {
        for (uint32_t generation = 0; generation < 4; generation++) {
            sr_dynamic_proxy p = {index, generation};
            bool live = (index == a.index && generation == a.generation) ||
                        (index == b.index && generation == b.generation) ||
                        (index == c.index && generation == c.generation);
            cr_assert_eq(sr_dynamic_tree_proxy_is_valid(tree, p), live, "handle (%u, %u)", index, generation);
            if (live)
                continue;
            cr_assert_eq(sr_dynamic_tree_get(tree, p, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(sr_dynamic_tree_move(tree, p, box, (sr_vec3){0, 0, 0}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(sr_dynamic_tree_remove(tree, p, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert(strstr(err.message, "stale or invalid") != NULL, "message: %s", err.message);
        }
    }
    sr_dynamic_proxy far_out = {UINT32_MAX, 1};
    cr_assert_eq(sr_dynamic_tree_remove(tree, far_out, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_remove(tree, SR_DYNAMIC_PROXY_NULL, &err), SR_ERROR_INVALID_ARGUMENT);

    /* A removed handle is stale, also after its slot is reused by a new proxy. */
    cr_assert_eq(sr_dynamic_tree_remove(tree, b, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_remove(tree, b, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_dynamic_proxy d;
    for (int i = 0; i < 8; i++) { /* churn so that b's slot is handed out again */
        cr_assert_eq(sr_dynamic_tree_insert(tree, box, 4, &d, &err), SR_OK);
        if (d.index == b.index)
            break;
        cr_assert_eq(sr_dynamic_tree_remove(tree, d, &err), SR_OK);
    }
    cr_assert_eq(d.index, b.index, "the freed slot was not reused");
    cr_assert_neq(d.generation, b.generation);
    cr_assert_eq(sr_dynamic_tree_move(tree, b, box, (sr_vec3){0, 0, 0}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_get(tree, b, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    uint64_t user_data = 0;
    cr_assert_eq(sr_dynamic_tree_get(tree, d, NULL, &user_data, &err), SR_OK);
    cr_assert_eq(user_data, 4u);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).proxy_count, 3);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);

    /* Handles survive a rebuild. */
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK);
    cr_assert(sr_dynamic_tree_proxy_is_valid(tree, a) && sr_dynamic_tree_proxy_is_valid(tree, c) &&
              sr_dynamic_tree_proxy_is_valid(tree, d));
    cr_assert(!sr_dynamic_tree_proxy_is_valid(tree, b));

    /* NULL tree. */
    cr_assert(!sr_dynamic_tree_proxy_is_valid(NULL, a));
    cr_assert_eq(sr_dynamic_tree_remove(NULL, a, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_move(NULL, a, box, (sr_vec3){0, 0, 0}, NULL, NULL), SR_ERROR_INVALID_ARGUMENT);
    sr_dynamic_tree_destroy(tree);
    sr_dynamic_tree_destroy(NULL);
}

Test(bvh_dynamic, handles_stay_stale_when_slots_are_reused)
{
    /* Churn until every slot has served as leaf, internal node and free slot several times, keeping
     * every handle ever issued. Then brute force over every slot and a window of generations that
     * covers all issued ones: exactly the live handles are valid, and stale handles (also those
     * whose slot is now an internal node) are refused by every function taking a handle. */
    enum { ISSUED = 6000, LIVE = 150 };
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.initial_capacity = 8}, &tree, &err), SR_OK);
    sr_dynamic_proxy *issued = malloc(sizeof *issued * ISSUED);
    bool *live = calloc(ISSUED, sizeof *live);
    cr_assert(issued && live);
    rng r = {4242};
    int issued_count = 0, live_count = 0;
    uint32_t max_generation = 0;
    while (issued_count < ISSUED) {
        if (live_count < LIVE || rng_int(&r, 2) == 0) {
            sr_vec3 centre = rng_vec3(&r, -30.0f, 30.0f), half = rng_vec3(&r, 0.1f, 2.0f);
            sr_aabb box = {sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
            cr_assert_eq(sr_dynamic_tree_insert(tree, box, (uint64_t)issued_count, &issued[issued_count], &err), SR_OK);
            cr_assert(issued[issued_count].generation != 0);
            if (issued[issued_count].generation > max_generation)
                max_generation = issued[issued_count].generation;
            live[issued_count++] = true;
            live_count++;
        } else {
            int k = rng_int(&r, issued_count);
            while (!live[k])
                k = (k + 1) % issued_count;
            if (rng_int(&r, 3) == 0) { /* a move that reinserts: the slot keeps its proxy */
                sr_vec3 centre = rng_vec3(&r, -30.0f, 30.0f);
                bool changed;
                cr_assert_eq(sr_dynamic_tree_move(tree, issued[k],
                                                  (sr_aabb){centre, sr_vec3_add(centre, (sr_vec3){1, 1, 1})},
                                                  (sr_vec3){0, 0, 0}, &changed, &err),
                             SR_OK);
            } else {
                cr_assert_eq(sr_dynamic_tree_remove(tree, issued[k], &err), SR_OK);
                live[k] = false;
                live_count--;
            }
        }
    }
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    cr_assert(max_generation > 8, "slots were not reused often enough (max generation %u)", max_generation);

    /* A slot holds at most one live proxy: its generation per slot (0: none). */
    int capacity = sr_dynamic_tree_get_stats(tree).node_capacity;
    uint32_t *live_generation = calloc((size_t)capacity, sizeof *live_generation);
    cr_assert(live_generation);
    for (int k = 0; k < issued_count; k++) {
        cr_assert(issued[k].index < (uint32_t)capacity);
        if (live[k]) {
            cr_assert_eq(live_generation[issued[k].index], 0u, "two live proxies in slot %u", issued[k].index);
            live_generation[issued[k].index] = issued[k].generation;
        }
    }
    int valid_seen = 0;
    sr_aabb box = {{0, 0, 0}, {1, 1, 1}};
    for (uint32_t index = 0; index < (uint32_t)capacity; index++) {
        for (uint32_t generation = 0; generation <= max_generation + 2; generation++) {
            sr_dynamic_proxy p = {index, generation};
            bool expected = generation != 0 && live_generation[index] == generation;
            cr_assert_eq(sr_dynamic_tree_proxy_is_valid(tree, p), expected, "handle (%u, %u)", index, generation);
            valid_seen += expected;
            if (expected)
                continue;
            cr_assert_eq(sr_dynamic_tree_get(tree, p, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(sr_dynamic_tree_move(tree, p, box, (sr_vec3){0, 0, 0}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(sr_dynamic_tree_remove(tree, p, &err), SR_ERROR_INVALID_ARGUMENT);
        }
    }
    cr_assert_eq(valid_seen, live_count);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).proxy_count, live_count);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    free(live_generation);
    free(issued);
    free(live);
    sr_dynamic_tree_destroy(tree);
}

Test(bvh_dynamic, bad_boxes_and_arguments_are_refused)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_OK);
    sr_dynamic_proxy p, q;
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 7, &p, &err), SR_OK);
    const sr_aabb bad[] = {
        {{NAN, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {1, NAN, 1}},       {{1, 0, 0}, {0, 1, 1}},
        {{0, 0, 2}, {1, 1, 1}},   {{-INFINITY, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {INFINITY, 1, 1}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        q = (sr_dynamic_proxy){9, 9};
        cr_assert_eq(sr_dynamic_tree_insert(tree, bad[i], 0, &q, &err), SR_ERROR_INVALID_ARGUMENT, "box %zu", i);
        cr_assert_eq(q.generation, 0u, "a refused insert returns the null handle");
        cr_assert_eq(sr_dynamic_tree_move(tree, p, bad[i], (sr_vec3){0, 0, 0}, NULL, &err), SR_ERROR_INVALID_ARGUMENT,
                     "box %zu", i);
    }
    cr_assert_eq(sr_dynamic_tree_move(tree, p, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, (sr_vec3){NAN, 0, 0}, NULL, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, NULL, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_insert(NULL, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, &q, &err), SR_ERROR_INVALID_ARGUMENT);
    /* Nothing changed: one proxy, its box the original fat box. */
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).proxy_count, 1);
    sr_aabb fat;
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_float_eq(fat.min.x, -0.1f, 1e-6f);
    cr_assert_float_eq(fat.max.z, 1.1f, 1e-6f);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);

    /* Finite boxes whose fat box overflows to infinity are refused too. */
    sr_dynamic_tree *huge_margin;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = 1e38f}, &huge_margin, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(huge_margin, (sr_aabb){{0, 0, 0}, {FLT_MAX, 1, 1}}, 0, &q, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_get_stats(huge_margin).proxy_count, 0);
    sr_dynamic_tree_destroy(huge_margin);

    /* Queries refuse NULL callbacks and NaN shapes. */
    cr_assert_eq(sr_dynamic_tree_query_aabb(tree, fat, NULL, NULL, &err).status, SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(
        sr_dynamic_tree_query_aabb(tree, (sr_aabb){{NAN, 0, 0}, {1, 1, 1}}, collect_overlap, NULL, &err).status,
        SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_query_sphere(tree, (sr_sphere){{0, 0, 0}, -1.0f}, collect_overlap, NULL, &err).status,
                 SR_ERROR_INVALID_ARGUMENT);
    sr_ray bad_ray = make_ray((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, 1.0f, 0.0f);
    cr_assert_eq(sr_dynamic_tree_ray_cast(tree, &bad_ray, collect_ray, NULL, &err).status, SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_ray_cast(tree, NULL, collect_ray, NULL, &err).status, SR_ERROR_INVALID_ARGUMENT);
    sr_frustum nan_frustum = {{{{NAN, 0, 0}, 0}}};
    cr_assert_eq(sr_dynamic_tree_query_frustum(tree, &nan_frustum, collect_frustum, NULL, &err).status,
                 SR_ERROR_INVALID_ARGUMENT);

    /* Bad descriptions. */
    sr_dynamic_tree *other = tree; /* any non-NULL value: a failed create must reset it */
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = -1.0f}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_null(other);
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = NAN}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.initial_capacity = -5}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.displacement_multiplier = INFINITY}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_create(NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_reserve(tree, -1, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_dynamic_tree_destroy(tree);
}

/* ---- empty trees and small cases ---- */

static bool never_called_overlap(void *user, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy, (void)user_data;
    (*(int *)user)++;
    return true;
}
static float never_called_ray(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy, (void)user_data;
    (*(int *)user)++;
    return ray->tmax;
}
static bool never_called_frustum(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment c)
{
    (void)proxy, (void)user_data, (void)c;
    (*(int *)user)++;
    return true;
}
static bool never_called_node(void *user, const sr_dynamic_tree_node_info *n)
{
    (void)n;
    (*(int *)user)++;
    return true;
}

static void check_empty(const sr_dynamic_tree *tree)
{
    int calls = 0;
    sr_error err;
    sr_aabb everything = {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}};
    sr_dynamic_tree_query_stats s[5];
    s[0] = sr_dynamic_tree_query_aabb(tree, everything, never_called_overlap, &calls, &err);
    s[1] = sr_dynamic_tree_query_sphere(tree, (sr_sphere){{0, 0, 0}, 1e30f}, never_called_overlap, &calls, &err);
    sr_ray ray = make_ray((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, 0.0f, INFINITY);
    s[2] = sr_dynamic_tree_ray_cast(tree, &ray, never_called_ray, &calls, &err);
    sr_frustum all = {{{{1, 0, 0}, 1e30f},
                       {{-1, 0, 0}, 1e30f},
                       {{0, 1, 0}, 1e30f},
                       {{0, -1, 0}, 1e30f},
                       {{0, 0, 1}, 1e30f},
                       {{0, 0, -1}, 1e30f}}};
    s[3] = sr_dynamic_tree_query_frustum(tree, &all, never_called_frustum, &calls, &err);
    s[4] = sr_dynamic_tree_visit_nodes(tree, never_called_node, &calls, &err);
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(s[i].status, SR_OK);
        cr_assert_eq(s[i].nodes_visited, 0);
        cr_assert_eq(s[i].proxies_reported, 0);
    }
    cr_assert_eq(calls, 0);
    sr_dynamic_tree_stats stats = sr_dynamic_tree_get_stats(tree);
    cr_assert_eq(stats.proxy_count, 0);
    cr_assert_eq(stats.node_count, 0);
    cr_assert_eq(stats.height, 0);
    cr_assert_eq(stats.sah_cost, 0.0);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
}

Test(bvh_dynamic, empty_tree_answers_nothing)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){0}, &tree, &err), SR_OK);
    check_empty(tree);
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK);
    check_empty(tree);
    /* Emptied again after use. */
    sr_dynamic_proxy p[3];
    for (int i = 0; i < 3; i++)
        cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{i, 0, 0}, {i + 1.0f, 1, 1}}, (uint64_t)i, &p[i], &err),
                     SR_OK);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(sr_dynamic_tree_remove(tree, p[i], &err), SR_OK);
    check_empty(tree);
    sr_dynamic_tree_destroy(tree);
}

Test(bvh_dynamic, move_follows_the_fat_box_rule)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(
        sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = 0.5f, .displacement_multiplier = 2.0f}, &tree, &err),
        SR_OK);
    sr_dynamic_proxy p, other;
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, &p, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{5, 5, 5}, {6, 6, 6}}, 1, &other, &err), SR_OK);
    bool changed = true;
    sr_aabb fat;
    /* Inside the fat box [-0.5, 1.5]: the tree is left alone. */
    cr_assert_eq(
        sr_dynamic_tree_move(tree, p, (sr_aabb){{0.4f, 0, 0}, {1.4f, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err),
        SR_OK);
    cr_assert(!changed);
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_eq(fat.min.x, -0.5f);
    cr_assert_eq(fat.max.x, 1.5f);
    /* Leaving it: new fat box around the new box, extended by 2 x displacement along +x. */
    cr_assert_eq(sr_dynamic_tree_move(tree, p, (sr_aabb){{1, 0, 0}, {2, 1, 1}}, (sr_vec3){0.25f, 0, 0}, &changed, &err),
                 SR_OK);
    cr_assert(changed);
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_float_eq(fat.min.x, 0.5f, 1e-6f);
    cr_assert_float_eq(fat.max.x, 3.0f, 1e-6f);
    cr_assert_float_eq(fat.min.y, -0.5f, 1e-6f);
    cr_assert_float_eq(fat.max.y, 1.5f, 1e-6f);
    /* Negative displacement extends the min side. */
    cr_assert_eq(sr_dynamic_tree_move(tree, p, (sr_aabb){{-3, 0, 0}, {-2, 1, 1}}, (sr_vec3){0, -1, 0}, &changed, &err),
                 SR_OK);
    cr_assert(changed);
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_float_eq(fat.min.y, -2.5f, 1e-6f);
    cr_assert_float_eq(fat.max.y, 1.5f, 1e-6f);
    /* Still covered, and the stale prediction leaves at most 4 x margin = 2 units of slack beyond
     * the new fat box (y from -2.5 = -0.5 - 2): kept. */
    cr_assert_eq(sr_dynamic_tree_move(tree, p, (sr_aabb){{-3, 0, 0}, {-2, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err),
                 SR_OK);
    cr_assert(!changed);
    /* Still covered but the slack exceeds 4 x margin (y min 0.1 - 0.5 - 2 = -2.4 > -2.5): the
     * needlessly large fat box is replaced by a fresh one. */
    cr_assert_eq(
        sr_dynamic_tree_move(tree, p, (sr_aabb){{-3, 0.1f, 0}, {-2, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err), SR_OK);
    cr_assert(changed);
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_float_eq(fat.min.y, -0.4f, 1e-6f);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);

    /* no_margin: fat boxes are the boxes; any change reinserts. */
    sr_dynamic_tree *exact;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true}, &exact, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(exact, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, &p, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_get(exact, p, &fat, NULL, &err), SR_OK);
    cr_assert_eq(fat.min.x, 0.0f);
    cr_assert_eq(fat.max.x, 1.0f);
    cr_assert_eq(sr_dynamic_tree_move(exact, p, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err),
                 SR_OK);
    cr_assert(!changed);
    cr_assert_eq(sr_dynamic_tree_move(exact, p, (sr_aabb){{0, 0, 0}, {0.5f, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err),
                 SR_OK);
    cr_assert(changed);
    sr_dynamic_tree_destroy(exact);
    sr_dynamic_tree_destroy(tree);
}
