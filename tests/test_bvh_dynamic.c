/* tests/test_bvh_dynamic.c — the dynamic AABB tree (src/bvh/bvh_dynamic*.c) against brute force.
 * Every query is checked against an exhaustive loop over the live objects' fat boxes, computed in
 * double precision where rounding matters (cases within a small tolerance of a boundary are left
 * unjudged); the tree's quality against an independent full-sweep SAH build written here. This
 * file: random operations against brute force, with the tree's structure checked after each
 * step; the program test_bvh_dynamic also holds test_bvh_dynamic_handles.c (handles, bad input,
 * small cases) and test_bvh_dynamic_tree.c (ray callbacks, deep trees, insertion search,
 * frustums, rebuilds); their helpers are in bvh_dynamic_test_helpers.h. */
#include <criterion/criterion.h>

#include <softrast/bvh_dynamic.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_dynamic_test_helpers.h"

/* The tree's structure and SAH statistics against the node walk and the model. */
static double check_structure(const world *w, const sr_dynamic_tree *tree)
{
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    node_census *census = malloc(sizeof *census);
    cr_assert(census);
    double sah = census_sah(tree, census);
    sr_dynamic_tree_stats stats = sr_dynamic_tree_get_stats(tree);
    cr_assert_eq(stats.proxy_count, w->live_count);
    cr_assert_eq(census->leaves, w->live_count);
    cr_assert_eq(stats.node_count, 2 * w->live_count - 1);
    cr_assert_eq(census->nodes, 2 * w->live_count - 1);
    cr_assert_eq(stats.height, census->max_depth, "height %d, deepest leaf at depth %d", stats.height,
                 census->max_depth);
    cr_assert(fabs(stats.sah_cost - sah) <= 1e-6 * sah, "reported SAH %.9g, recomputed %.9g", stats.sah_cost, sah);
    for (int i = 0; i < MAX_OBJECTS; i++)
        cr_assert_eq(census->leaf_mark[i], w->objects[i].live ? 1 : 0, "object %d appears %d times as a leaf", i,
                     census->leaf_mark[i]);
    free(census);
    return sah;
}

static void check_random_operations(bool exact_insertion)
{
    world *w = calloc(1, sizeof *w);
    collector *c = calloc(1, sizeof *c);
    cr_assert(w && c);
    w->margin = 0.1f;
    w->multiplier = 4.0f;
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(
                     &(sr_dynamic_tree_desc){.initial_capacity = 16, .exact_insertion = exact_insertion}, &tree, &err),
                 SR_OK, "%s", err.message);
    rng r = {12345};
    for (int i = 0; i < 3000; i++)
        insert_object(w, tree, &r);

    int changed_count = 0, kept_count = 0;
    const int operations = 100000, check_every = 5000;
    for (int op = 1; op <= operations; op++) {
        int kind = rng_int(&r, 1000);
        if ((kind < 85 && w->live_count < 4000) || w->live_count < 2000) {
            insert_object(w, tree, &r);
        } else if (kind < 170 && w->live_count > 2000) {
            int k = random_live(w, &r);
            cr_assert_eq(sr_dynamic_tree_remove(tree, w->objects[k].proxy, &err), SR_OK, "%s", err.message);
            w->objects[k].live = false;
            w->live_count--;
        } else {
            int k = random_live(w, &r);
            object *o = &w->objects[k];
            sr_vec3 displacement;
            if (kind < 200) { /* teleport */
                sr_vec3 to = rng_vec3(&r, -WORLD, WORLD);
                displacement = sr_vec3_sub(to, o->centre);
            } else if (kind < 300) { /* fast object */
                displacement = rng_vec3(&r, -1.0f, 1.0f);
            } else { /* most: small per-step motion */
                displacement = rng_vec3(&r, -0.06f, 0.06f);
            }
            o->centre = sr_vec3_add(o->centre, displacement);
            sr_vec3 predicted = kind % 2 == 0 && kind >= 200 ? displacement : (sr_vec3){0, 0, 0};
            bool expected = model_move(w, o, predicted), changed = !expected;
            cr_assert_eq(sr_dynamic_tree_move(tree, o->proxy, tight_box(o), predicted, &changed, &err), SR_OK, "%s",
                         err.message);
            cr_assert_eq(changed, expected, "op %d: move of object %d changed=%d, rule says %d", op, k, changed,
                         expected);
            changed ? changed_count++ : kept_count++;
        }
        if (op % check_every == 0) {
            check_structure(w, tree);
            check_fat_boxes(w, tree);
            check_queries(w, tree, &r, c, 12);
        }
    }
    /* Both branches of the move rule were exercised. */
    cr_assert(changed_count > 1000 && kept_count > 1000, "moves: %d changed, %d kept", changed_count, kept_count);

    /* Quality: within 1.5x of a fresh full-sweep SAH build over the same fat boxes. */
    double tree_sah = check_structure(w, tree);
    double reference = reference_sah(w);
    cr_log_info("%s insertion, after %d operations: %d proxies, SAH %.2f, reference %.2f (%.3fx), height %d",
                exact_insertion ? "exact" : "greedy", operations, w->live_count, tree_sah, reference,
                tree_sah / reference, sr_dynamic_tree_get_stats(tree).height);
    cr_assert(tree_sah <= 1.5 * reference, "SAH %.3f vs reference %.3f", tree_sah, reference);

    /* Rebuild: same proxies and handles, valid, answers the same, cost close to the reference. */
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK, "%s", err.message);
    double rebuilt_sah = check_structure(w, tree);
    cr_log_info("rebuilt: SAH %.2f (%.3fx reference), height %d", rebuilt_sah, rebuilt_sah / reference,
                sr_dynamic_tree_get_stats(tree).height);
    cr_assert(rebuilt_sah <= 1.2 * reference && rebuilt_sah >= 0.8 * reference, "rebuilt SAH %.3f vs reference %.3f",
              rebuilt_sah, reference);
    check_fat_boxes(w, tree);
    check_queries(w, tree, &r, c, 12);

    /* And the tree keeps working after the rebuild. */
    for (int op = 0; op < 2000; op++) {
        int k = random_live(w, &r);
        object *o = &w->objects[k];
        o->centre = sr_vec3_add(o->centre, rng_vec3(&r, -0.5f, 0.5f));
        bool expected = model_move(w, o, (sr_vec3){0, 0, 0}), changed;
        cr_assert_eq(sr_dynamic_tree_move(tree, o->proxy, tight_box(o), (sr_vec3){0, 0, 0}, &changed, &err), SR_OK);
        cr_assert_eq(changed, expected);
    }
    check_structure(w, tree);
    check_queries(w, tree, &r, c, 4);
    sr_dynamic_tree_destroy(tree);
    free(w);
    free(c);
}

Test(bvh_dynamic, random_operations_match_brute_force, .timeout = 120)
{
    check_random_operations(false);
}

Test(bvh_dynamic, random_operations_match_brute_force_with_exact_insertion, .timeout = 120)
{
    check_random_operations(true);
}
