/* test_scene_collide.c — the collision pass over a scene's shapes (src/scene/scene_collide.c,
 * sr_scene_collide): over frames of random scenes whose shapes move a little, jump, appear,
 * disappear and change, the candidate pairs equal a brute-force test of every pair's exact boxes,
 * and each pair's state, contact and closest points equal sr_collide_signed_distance called on
 * that pair alone; pairs the cached axis proved apart really are apart. Also: analytic answers for
 * spheres, the filter, the margin, the result reused without allocating, and bad arguments. */
#include <criterion/criterion.h>
#include <softrast/collide.h>
#include <softrast/scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_watch.h"
#include "test_budget.h"
#include "test_rng.h" // xorshift64*, the same draws with every compiler

/* ---- a random scene of shapes ---- */

typedef struct world {
    sr_scene *scene;
    sr_collision *result;
    sr_hull *hulls[3];
    sr_node_id groups[2]; ///< unscaled parents that move their children
    rng rng;
} world;

static double uniform(world *w, double low, double high)
{
    return low + (high - low) * ((double)rng_next(&w->rng) / 4294967296.0);
}

/* Three draws in order (an initialiser list is evaluated left to right; arguments are not). */
static sr_vec3 random_vec(world *w, double low, double high)
{
    const double v[3] = {uniform(w, low, high), uniform(w, low, high), uniform(w, low, high)};
    return sr_vec3_make((float)v[0], (float)v[1], (float)v[2]);
}

static sr_quat random_rotation(world *w)
{
    sr_vec3 axis = random_vec(w, -1, 1);
    if (sr_vec3_length(axis) < 0.1f)
        axis = sr_vec3_make(0, 0, 1);
    return sr_quat_from_axis_angle(sr_vec3_normalize(axis), (float)uniform(w, -3.1, 3.1));
}

/* A shape of each type in turn (kind % 9), sizes 0.1 to 0.6, some rounded. */
static sr_shape random_shape(world *w, int kind)
{
    double r = uniform(w, 0.1, 0.5), h = uniform(w, 0.05, 0.6);
    sr_dvec3 p[3];
    for (int i = 0; i < 3; i++)
        p[i] = (sr_dvec3){uniform(w, -0.5, 0.5), uniform(w, -0.5, 0.5), uniform(w, -0.5, 0.5)};
    sr_shape shape;
    switch (kind % 9) {
    case 0:
        shape = sr_shape_sphere(r);
        break;
    case 1:
        shape = sr_shape_box((sr_dvec3){r, h, uniform(w, 0.1, 0.5)});
        break;
    case 2:
        shape = sr_shape_capsule(r, h);
        break;
    case 3:
        shape = sr_shape_cylinder(r, h);
        break;
    case 4:
        shape = sr_shape_cone(r, h);
        break;
    case 5:
        shape = sr_shape_hull(w->hulls[(int)uniform(w, 0, 2.999)]);
        break;
    case 6:
        shape = sr_shape_triangle(p[0], p[1], p[2]);
        break;
    case 7:
        shape = sr_shape_segment(p[0], p[1]);
        break;
    default:
        shape = sr_shape_point();
        shape.rounding = r;
        break;
    }
    if (kind % 9 != 8 && uniform(w, 0, 1) < 0.3)
        shape.rounding = uniform(w, 0.0, 0.1);
    return shape;
}

static sr_transform random_place(world *w, double extent)
{
    sr_transform t = sr_transform_identity();
    t.translation = random_vec(w, -extent, extent);
    t.rotation = random_rotation(w);
    return t;
}

static sr_node_id add_shape(world *w, int kind, double extent)
{
    sr_node_shape_desc shape = {.shape = random_shape(w, kind), .draw = SR_SHAPE_DRAW_NONE};
    sr_node_id parent = uniform(w, 0, 1) < 0.2 ? w->groups[kind & 1] : SR_NODE_NULL;
    sr_node_id id;
    sr_error err = {0};
    cr_assert_eq(
        sr_scene_add_node(
            w->scene,
            &(sr_node_desc){.name = "s", .parent = parent, .transform = random_place(w, extent), .shape = &shape}, &id,
            &err),
        SR_OK, "%s", err.message);
    return id;
}

static void world_init(world *w, uint64_t seed)
{
    *w = (world){.rng = {seed * 0x9E3779B97F4A7C15ull + 1}};
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(NULL, &w->scene, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_collision_create(&w->result, &err), SR_OK, "%s", err.message);
    for (int h = 0; h < 3; h++) {
        sr_dvec3 points[12];
        int count = 4 + 4 * h;
        for (int i = 0; i < count; i++)
            points[i] = (sr_dvec3){uniform(w, -0.5, 0.5), uniform(w, -0.5, 0.5), uniform(w, -0.5, 0.5)};
        cr_assert_eq(sr_hull_create(points, (size_t)count, &w->hulls[h], &err), SR_OK, "%s", err.message);
    }
    for (int g = 0; g < 2; g++)
        cr_assert_eq(sr_scene_add_node(w->scene, &(sr_node_desc){.name = "group", .transform = random_place(w, 1)},
                                       &w->groups[g], &err),
                     SR_OK, "%s", err.message);
}

static void world_free(world *w)
{
    sr_collision_destroy(w->result);
    sr_scene_destroy(w->scene); // before the hulls its shapes point to
    for (int h = 0; h < 3; h++)
        sr_hull_destroy(w->hulls[h]);
}

static void update_and_collide(world *w, const sr_collision_desc *desc)
{
    sr_error err = {0};
    cr_assert_eq(sr_scene_update(w->scene, NULL, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_scene_collide(w->scene, desc, w->result, &err), SR_OK, "%s", err.message);
}

/* ---- the brute force ---- */

static bool boxes_within(sr_dbox a, sr_dbox b, double margin)
{
    return a.min.x - margin <= b.max.x && b.min.x <= a.max.x + margin && a.min.y - margin <= b.max.y &&
           b.min.y <= a.max.y + margin && a.min.z - margin <= b.max.z && b.min.z <= a.max.z + margin;
}

static int by_index(const void *x, const void *y)
{
    const sr_node_id *a = x, *b = y;
    return (a->index > b->index) - (a->index < b->index);
}

static bool drop_odd_sums(void *user, sr_node_id a, sr_node_id b)
{
    (*(int *)user)++;
    return (a.index + b.index) % 2 == 0;
}

/* The shape tree's leaves (fat boxes), for the count of pairs whose fat boxes overlap. */
typedef struct leaves {
    sr_aabb boxes[1024];
    uint32_t count;
} leaves;

static bool collect_leaf(void *user, const sr_dynamic_tree_node_info *node)
{
    leaves *l = user;
    if (node->is_leaf) {
        cr_assert(l->count < 1024);
        l->boxes[l->count++] = node->box;
    }
    return true;
}

/* Checks the last pass against every pair tested alone, and its kept pairs against every pair of
 * fat boxes. */
static void check_pass(world *w, const sr_collision_desc *desc)
{
    const sr_collision *c = w->result;
    uint32_t count = sr_scene_shape_count(w->scene);
    sr_node_id *nodes = malloc((count + 1) * sizeof *nodes);
    sr_node_shape *shapes = malloc((count + 1) * sizeof *shapes);
    for (uint32_t i = 0; i < count; i++)
        nodes[i] = sr_scene_shape_node(w->scene, i);
    qsort(nodes, count, sizeof *nodes, by_index);
    for (uint32_t i = 0; i < count; i++) {
        cr_assert_eq(sr_scene_node_shape(w->scene, nodes[i], &shapes[i], NULL), SR_OK);
        // The shape sits at the node's world pose (float matrix vs the double pose).
        sr_node_info info;
        cr_assert_eq(sr_scene_node(w->scene, nodes[i], &info, NULL), SR_OK);
        const sr_dvec3 p = shapes[i].world.pose.position;
        cr_assert(fabs(p.x - info.world.m[12]) < 1e-5 && fabs(p.y - info.world.m[13]) < 1e-5 &&
                      fabs(p.z - info.world.m[14]) < 1e-5,
                  "shape of node %u at (%g, %g, %g), node at (%g, %g, %g)", nodes[i].index, p.x, p.y, p.z,
                  (double)info.world.m[12], (double)info.world.m[13], (double)info.world.m[14]);
        sr_dbox box = sr_shape_bounds(&shapes[i].world);
        cr_assert(memcmp(&box, &shapes[i].world_bounds, sizeof box) == 0, "node %u: world_bounds is not the shape's",
                  nodes[i].index);
    }
    double margin = desc && desc->no_near ? 0.0 : desc && desc->margin > 0 ? desc->margin : SR_COLLISION_DEFAULT_MARGIN;
    cr_assert_eq(c->margin, margin);
    cr_assert_eq(c->stats.shapes, count);
    size_t k = 0, contacts = 0, near = 0;
    uint32_t tests = 0, rejects = 0;
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t j = i + 1; j < count; j++) {
            if (!boxes_within(shapes[i].world_bounds, shapes[j].world_bounds, margin))
                continue;
            if (desc && desc->filter) {
                int calls = 0;
                if (!drop_odd_sums(&calls, nodes[i], nodes[j]))
                    continue;
            }
            cr_assert(k < c->pair_count, "the pass misses pair (%u, %u) and those after it", nodes[i].index,
                      nodes[j].index);
            const sr_collision_pair *pair = &c->pairs[k++];
            cr_assert(pair->a.index == nodes[i].index && pair->b.index == nodes[j].index &&
                          pair->a.generation == nodes[i].generation && pair->b.generation == nodes[j].generation,
                      "pair %zu is (%u, %u), the brute force says (%u, %u)", k - 1, pair->a.index, pair->b.index,
                      nodes[i].index, nodes[j].index);
            sr_collide_result r;
            sr_collide_signed_distance(&shapes[i].world, &shapes[j].world, NULL, &r);
            double largest = 0.0;
            const sr_dbox *boxes[2] = {&shapes[i].world_bounds, &shapes[j].world_bounds};
            for (int b = 0; b < 2; b++) {
                const double *v = &boxes[b]->min.x, *u = &boxes[b]->max.x;
                for (int a = 0; a < 3; a++)
                    largest = fmax(largest, fmax(fabs(v[a]), fabs(u[a])));
            }
            bool contact = r.hit || r.distance <= 1e-7 * largest;
            sr_pair_state expected = contact ? SR_PAIR_CONTACT : r.distance <= margin ? SR_PAIR_NEAR : SR_PAIR_APART;
            cr_assert_eq(pair->state, expected, "pair (%u, %u): state %d, alone %d (distance %.17g)", pair->a.index,
                         pair->b.index, pair->state, expected, r.distance);
            if (pair->bounded) {
                rejects++;
                cr_assert(pair->distance > margin && pair->distance <= r.distance + 1e-9 * fmax(1.0, largest),
                          "pair (%u, %u): bound %.17g, distance %.17g", pair->a.index, pair->b.index, pair->distance,
                          r.distance);
                continue;
            }
            tests++;
            if (expected == SR_PAIR_APART) {
                cr_assert_eq(pair->distance, r.distance);
                cr_assert_eq(pair->index, UINT32_MAX);
                continue;
            }
            const sr_contact *answer = contact ? &c->contacts[contacts] : &c->near[near];
            cr_assert_eq(pair->index, contact ? contacts : near);
            contact ? contacts++ : near++;
            cr_assert(answer->a.index == pair->a.index && answer->b.index == pair->b.index);
            double distance = contact ? fmin(r.distance, 0.0) : r.distance;
            cr_assert_eq(answer->distance, distance, "pair (%u, %u): %.17g alone %.17g", pair->a.index, pair->b.index,
                         answer->distance, distance);
            cr_assert_eq(pair->distance, distance);
            cr_assert(memcmp(&answer->normal, &r.normal, sizeof r.normal) == 0);
            cr_assert(memcmp(&answer->point_a, &r.point_a, sizeof r.point_a) == 0);
            cr_assert(memcmp(&answer->point_b, &r.point_b, sizeof r.point_b) == 0);
            cr_assert(fabs(answer->point.x - 0.5 * (r.point_a.x + r.point_b.x)) <= 1e-12 * fmax(1.0, largest));
        }
    cr_assert_eq(c->pair_count, k, "the pass has %zu pairs, the brute force %zu", c->pair_count, k);
    cr_assert_eq(c->contact_count, contacts);
    cr_assert_eq(c->near_count, near);
    cr_assert_eq(c->stats.pairs, k);
    cr_assert_eq(c->stats.tests + c->stats.reused, tests);
    cr_assert_eq(c->stats.axis_rejects, rejects);
    cr_assert_eq(c->stats.contacts, contacts);
    cr_assert_eq(c->stats.near, near);
    // The kept pairs are exactly those whose fat boxes overlap now (a pair whose shapes moved apart
    // is dropped, whichever of them moved, in this pass or in one before).
    static leaves tree_leaves;
    tree_leaves.count = 0;
    cr_assert_eq(sr_dynamic_tree_visit_nodes(sr_scene_shape_tree(w->scene), collect_leaf, &tree_leaves, NULL).status,
                 SR_OK);
    cr_assert_eq(tree_leaves.count, count);
    uint32_t overlapping = 0;
    for (uint32_t i = 0; i < tree_leaves.count; i++)
        for (uint32_t j = i + 1; j < tree_leaves.count; j++) {
            sr_aabb a = tree_leaves.boxes[i], b = tree_leaves.boxes[j];
            overlapping += a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y &&
                           a.min.z <= b.max.z && b.min.z <= a.max.z;
        }
    cr_assert_eq(c->stats.pairs_cached, overlapping, "%u pairs kept, %u pairs of fat boxes overlap",
                 c->stats.pairs_cached, overlapping);
    free(nodes);
    free(shapes);
}

/* Moves most shapes a little, some far; removes some, adds some, reshapes one, moves a group. */
static void step(world *w, int frame)
{
    sr_error err = {0};
    uint32_t count = sr_scene_shape_count(w->scene);
    for (uint32_t i = 0; i < count; i++) {
        sr_node_id node = sr_scene_shape_node(w->scene, i);
        sr_node_info info;
        cr_assert_eq(sr_scene_node(w->scene, node, &info, NULL), SR_OK);
        sr_transform t = info.transform;
        double u = uniform(w, 0, 1);
        if (u < 0.5) {
            t.translation = sr_vec3_add(t.translation, random_vec(w, -0.04, 0.04));
            float angle = (float)uniform(w, -0.1, 0.1);
            t.rotation =
                sr_quat_normalize(sr_quat_mul(t.rotation, sr_quat_from_axis_angle(sr_vec3_make(0, 1, 0), angle)));
        } else if (u < 0.55) {
            t = random_place(w, 3.0);
        } else {
            continue;
        }
        cr_assert_eq(sr_scene_set_transform(w->scene, node, t, &err), SR_OK, "%s", err.message);
    }
    for (int r = 0; r < 2 && sr_scene_shape_count(w->scene) > 2; r++) {
        sr_node_id node = sr_scene_shape_node(w->scene, (uint32_t)uniform(w, 0, sr_scene_shape_count(w->scene) - 0.5));
        cr_assert_eq(sr_scene_remove_node(w->scene, node, &err), SR_OK, "%s", err.message);
    }
    for (int a = 0; a < 3; a++)
        add_shape(w, frame * 3 + a, 3.0);
    sr_node_id node = sr_scene_shape_node(w->scene, (uint32_t)uniform(w, 0, sr_scene_shape_count(w->scene) - 0.5));
    sr_node_shape_desc shape = {.shape = random_shape(w, frame), .draw = SR_SHAPE_DRAW_NONE};
    cr_assert_eq(sr_scene_set_node_shape(w->scene, node, &shape, &err), SR_OK, "%s", err.message);
    sr_transform t = random_place(w, 0.2);
    cr_assert_eq(sr_scene_set_transform(w->scene, w->groups[frame & 1], t, &err), SR_OK, "%s", err.message);
}

Test(scene_collide, pairs_and_contacts_equal_the_brute_force_over_moving_frames)
{
    const int shapes = SR_TEST_COUNT(240, 60), frames = SR_TEST_COUNT(10, 4);
    for (uint64_t seed = 1; seed <= 2; seed++) {
        world w;
        world_init(&w, seed);
        // Dense enough for contacts, near pairs and apart candidates of every kind of pair.
        double extent = seed == 1 ? 3.0 : 1.5;
        for (int i = 0; i < shapes; i++)
            add_shape(&w, i, extent);
        size_t contacts = 0, near = 0, rejects = 0, apart = 0, reused = 0;
        for (int frame = 0; frame < frames; frame++) {
            int calls = 0;
            // The margin changes on one frame (every box is made anew), a filter on another,
            // contacts only on a third.
            sr_collision_desc desc = {.margin = frame == 3 ? 0.25 : 0.0};
            if (frame == 2) {
                desc.filter = drop_odd_sums;
                desc.user = &calls;
            }
            if (frame == 4)
                desc.no_near = true;
            update_and_collide(&w, &desc);
            check_pass(&w, &desc);
            if (frame == 2)
                cr_assert_eq((uint32_t)calls, w.result->stats.pairs + w.result->stats.filtered);
            contacts += w.result->contact_count;
            near += w.result->near_count;
            rejects += w.result->stats.axis_rejects;
            apart += w.result->pair_count - w.result->contact_count - w.result->near_count;
            // The same scene again: the same answers, none asked again (nothing moved).
            update_and_collide(&w, &desc);
            check_pass(&w, &desc);
            cr_assert_eq(w.result->stats.tests, 0, "frame %d: %u queries over a scene that did not move", frame,
                         w.result->stats.tests);
            reused += w.result->stats.reused;
            step(&w, frame);
        }
        cr_assert(contacts > 20 && near > 10 && apart > 10, "seed %llu: %zu contacts, %zu near, %zu apart: too few",
                  (unsigned long long)seed, contacts, near, apart);
        cr_assert(rejects > 0, "no pair was proved apart by its cached axis");
        cr_assert(reused > 0, "no answer was reused");
        world_free(&w);
    }
}

/* Shapes taken away while every other shape rests (the node removed, or only its shape; the slot
 * not given to another node; sometimes with a shape added at a new slot, so that the tree holds as
 * many shapes as before): their pairs leave the pass at once, though the pass looks closely only
 * at pairs with a shape that moved, and the still pairs keep their answers. */
Test(scene_collide, a_removed_shape_leaves_the_pairs_of_its_still_partners)
{
    world w;
    world_init(&w, 7);
    sr_node_id nodes[24];
    for (int i = 0; i < 24; i++)
        nodes[i] = add_shape(&w, i, 1.0);
    update_and_collide(&w, NULL);
    check_pass(&w, NULL);
    size_t left = 0; // the removed shapes' pairs
    sr_error err = {0};
    for (int i = 0; i < 24; i += 5) {
        for (size_t k = 0; k < w.result->pair_count; k++)
            left += w.result->pairs[k].a.index == nodes[i].index || w.result->pairs[k].b.index == nodes[i].index;
        if (i % 3 == 0) // a shape added at a new slot in the same pass: the tree holds as many as before
            add_shape(&w, i, 1.0);
        if (i % 2)
            cr_assert_eq(sr_scene_remove_node(w.scene, nodes[i], &err), SR_OK, "%s", err.message);
        else
            cr_assert_eq(sr_scene_set_node_shape(w.scene, nodes[i], NULL, &err), SR_OK, "%s", err.message);
        update_and_collide(&w, NULL);
        check_pass(&w, NULL);
        update_and_collide(&w, NULL);
        check_pass(&w, NULL);
    }
    cr_assert_gt(left, 0, "the removed shapes were in no pair");
    world_free(&w);
}

/* A node removed and another made in the same update take the same slot (a new generation) among
 * shapes at rest: the pass reports the new node's pairs under its new handle, and its still
 * partners' other pairs keep their answers. */
Test(scene_collide, a_slot_given_to_a_new_node_reports_its_new_handle)
{
    world w;
    world_init(&w, 5);
    sr_node_id nodes[30];
    for (int i = 0; i < 30; i++)
        nodes[i] = add_shape(&w, i, 1.0);
    update_and_collide(&w, NULL);
    sr_error err = {0};
    for (int i = 0; i < 30; i += 4) {
        cr_assert_eq(sr_scene_remove_node(w.scene, nodes[i], &err), SR_OK, "%s", err.message);
        sr_node_id again = add_shape(&w, i + 1, 1.0);
        cr_assert_eq(again.index, nodes[i].index, "the new node took another slot");
        cr_assert_neq(again.generation, nodes[i].generation);
        update_and_collide(&w, NULL);
        check_pass(&w, NULL);
        cr_assert_gt(w.result->stats.reused, 0, "no still pair kept its answer");
        update_and_collide(&w, NULL);
        check_pass(&w, NULL);
    }
    world_free(&w);
}

/* One shape sweeps through shapes at rest, a pass per step, and comes back to where it started:
 * its pairs appear and part (the answers of those that part are given to those that appear), the
 * still pairs keep theirs, and only its own pairs are asked again. */
Test(scene_collide, a_shape_sweeping_through_still_shapes_and_back)
{
    world w;
    world_init(&w, 9);
    for (int i = 0; i < 80; i++)
        add_shape(&w, i, 1.5);
    sr_node_id mover = add_shape(&w, 1, 1.5);
    update_and_collide(&w, NULL);
    sr_node_info info;
    cr_assert_eq(sr_scene_node(w.scene, mover, &info, NULL), SR_OK);
    const sr_transform start = info.transform;
    sr_error err = {0};
    uint32_t partners_seen = 0;
    for (int k = 0; k <= 24; k++) {
        sr_transform t = start;
        t.translation.x = k == 24 ? start.translation.x : -1.8f + 0.15f * (float)k;
        cr_assert_eq(sr_scene_set_transform(w.scene, mover, t, &err), SR_OK, "%s", err.message);
        update_and_collide(&w, NULL);
        check_pass(&w, NULL);
        uint32_t own = 0;
        for (size_t p = 0; p < w.result->pair_count; p++)
            own += w.result->pairs[p].a.index == mover.index || w.result->pairs[p].b.index == mover.index;
        cr_assert_leq(w.result->stats.tests + w.result->stats.axis_rejects, own, "step %d: pairs without the mover asked",
                      k);
        cr_assert_eq(w.result->stats.reused + w.result->stats.tests + w.result->stats.axis_rejects,
                     w.result->pair_count);
        partners_seen += own;
    }
    cr_assert_gt(partners_seen, 20, "the sweep met too few shapes");
    world_free(&w);
}

/* With a cap of 2 iterations many queries hit it: each pass counts, among its candidates that got
 * an answer (not proved apart by a bound), those whose query alone hits the cap, whether the pass
 * asked it again or reused it; and each contact or near pair carries the cap's status. */
Test(scene_collide, iteration_caps_are_counted_for_asked_and_reused_answers)
{
    world w;
    world_init(&w, 11);
    for (int i = 0; i < 60; i++)
        add_shape(&w, i, 1.2);
    const sr_collision_desc desc = {.max_iterations = 2};
    const sr_collide_options options = {.max_iterations = 2};
    uint32_t seen = 0;
    for (int frame = 0; frame < 6; frame++) {
        update_and_collide(&w, &desc);
        const sr_collision *c = w.result;
        uint32_t expected = 0;
        for (size_t k = 0; k < c->pair_count; k++) {
            const sr_collision_pair *pair = &c->pairs[k];
            if (pair->bounded)
                continue;
            sr_node_shape a, b;
            cr_assert_eq(sr_scene_node_shape(w.scene, pair->a, &a, NULL), SR_OK);
            cr_assert_eq(sr_scene_node_shape(w.scene, pair->b, &b, NULL), SR_OK);
            sr_collide_result r;
            sr_collide_status status = sr_collide_signed_distance(&a.world, &b.world, &options, &r);
            expected += status == SR_COLLIDE_ITERATION_CAP;
            if (pair->state != SR_PAIR_APART) {
                const sr_contact *contact = pair->state == SR_PAIR_CONTACT ? &c->contacts[pair->index] : &c->near[pair->index];
                cr_assert_eq(contact->status, status, "frame %d, pair (%u, %u)", frame, pair->a.index, pair->b.index);
            }
        }
        cr_assert_eq(c->stats.iteration_caps, expected, "frame %d: %u capped, the queries alone %u", frame,
                     c->stats.iteration_caps, expected);
        seen += expected;
        if (frame % 2 == 1) // every other pass over a scene that did not move: the answers reused
            step(&w, frame);
    }
    cr_assert_gt(seen, 0, "no query hit the cap of 2 iterations");
    world_free(&w);
}

/* A box spinning while it closes in on a ball along a diagonal (their boxes come within the margin
 * long before the shapes do): the pass proves the pair apart from
 * bounds it kept while the shapes moved (each shape's travel, rotation included, taken off), and
 * each pass's state equals the query's alone, up to the pass where they touch. */
Test(scene_collide, a_spinning_shape_closing_in_is_never_proved_apart_too_long)
{
    sr_scene *scene = NULL;
    sr_collision *result = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(NULL, &scene, &err), SR_OK);
    cr_assert_eq(sr_collision_create(&result, &err), SR_OK);
    sr_node_shape_desc ball = {.shape = sr_shape_sphere(0.5), .draw = SR_SHAPE_DRAW_NONE};
    sr_node_shape_desc box = {.shape = sr_shape_box((sr_dvec3){0.35, 0.2, 0.25}), .draw = SR_SHAPE_DRAW_NONE};
    sr_node_id a, b;
    cr_assert_eq(sr_scene_add_node(scene, &(sr_node_desc){.name = "ball", .shape = &ball}, &a, &err), SR_OK);
    cr_assert_eq(sr_scene_add_node(scene, &(sr_node_desc){.name = "box", .shape = &box}, &b, &err), SR_OK);
    const sr_collision_desc desc = {.margin = 0.3};
    int bounded = 0, frame = 0;
    bool touched = false;
    for (; frame < 600 && !touched; frame++) {
        sr_transform t = sr_transform_identity();
        float along = 1.6f - 0.003f * (float)frame;
        t.translation = sr_vec3_make(along, along, along);
        t.rotation = sr_quat_from_axis_angle(sr_vec3_normalize(sr_vec3_make(1, 2, 3)), 0.04f * (float)frame);
        cr_assert_eq(sr_scene_set_transform(scene, b, t, &err), SR_OK);
        cr_assert_eq(sr_scene_update(scene, NULL, &err), SR_OK);
        cr_assert_eq(sr_scene_collide(scene, &desc, result, &err), SR_OK, "%s", err.message);
        sr_node_shape sa, sb;
        cr_assert_eq(sr_scene_node_shape(scene, a, &sa, &err), SR_OK);
        cr_assert_eq(sr_scene_node_shape(scene, b, &sb, &err), SR_OK);
        sr_collide_result alone;
        sr_collide_signed_distance(&sa.world, &sb.world, NULL, &alone);
        if (result->pair_count == 0) {
            cr_assert(alone.distance > desc.margin, "frame %d: no candidate at distance %g", frame, alone.distance);
            continue;
        }
        const sr_collision_pair *pair = &result->pairs[0];
        sr_pair_state expected = alone.hit || alone.distance <= 1e-6 ? SR_PAIR_CONTACT
                                 : alone.distance <= desc.margin     ? SR_PAIR_NEAR
                                                                     : SR_PAIR_APART;
        cr_assert_eq(pair->state, expected, "frame %d: state %d, alone %d (distance %.17g)", frame, pair->state,
                     expected, alone.distance);
        if (pair->bounded) {
            bounded++;
            cr_assert(pair->distance > desc.margin && pair->distance <= alone.distance + 1e-12,
                      "frame %d: bound %.17g, distance %.17g", frame, pair->distance, alone.distance);
        }
        touched = expected == SR_PAIR_CONTACT;
    }
    cr_assert(touched, "the box never reached the ball");
    cr_assert(bounded >= 50, "the pair was proved apart on %d passes only", bounded);
    sr_collision_destroy(result);
    sr_scene_destroy(scene);
}

/* Two unit spheres 1.5 apart overlap by 0.5; a third 0.05 beyond the first is near; one whose
 * box overlaps the first's box diagonally is apart; a far one is no candidate. */
Test(scene_collide, spheres_give_their_analytic_answers)
{
    sr_scene *scene = NULL;
    sr_collision *result = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(NULL, &scene, &err), SR_OK);
    cr_assert_eq(sr_collision_create(&result, &err), SR_OK);
    const struct {
        sr_vec3 at;
        double radius;
    } balls[] = {{{0, 0, 0}, 1.0}, {{1.5f, 0, 0}, 1.0}, {{0, 0, 1.55f}, 0.5}, {{-1.5f, -1.5f, 0}, 1.0}, {{9, 9, 9}, 1}};
    sr_node_id ids[5];
    for (int i = 0; i < 5; i++) {
        sr_transform t = sr_transform_identity();
        t.translation = balls[i].at;
        sr_node_shape_desc shape = {.shape = sr_shape_sphere(balls[i].radius)};
        cr_assert_eq(
            sr_scene_add_node(scene, &(sr_node_desc){.name = "ball", .transform = t, .shape = &shape}, &ids[i], &err),
            SR_OK, "%s", err.message);
    }
    cr_assert_eq(sr_scene_collide(scene, NULL, result, &err), SR_ERROR_INVALID_ARGUMENT, "a scene not updated");
    cr_assert(strstr(err.message, "sr_scene_update"), "%s", err.message);
    cr_assert_eq(sr_scene_update(scene, NULL, &err), SR_OK);
    cr_assert_eq(sr_scene_collide(scene, NULL, result, &err), SR_OK, "%s", err.message);
    // Candidates in pair order: (0, 1) overlap, (0, 2) 0.05 apart, (0, 3) whose boxes overlap at a
    // corner, (1, 2) and (2, 3) whose boxes touch on one axis and are 0.05 apart on another.
    cr_assert_eq(result->pair_count, 5);
    const uint32_t expected[5][3] = {{0, 1, SR_PAIR_CONTACT},
                                     {0, 2, SR_PAIR_NEAR},
                                     {0, 3, SR_PAIR_APART},
                                     {1, 2, SR_PAIR_APART},
                                     {2, 3, SR_PAIR_APART}};
    for (int i = 0; i < 5; i++)
        cr_assert(result->pairs[i].a.index == ids[expected[i][0]].index &&
                      result->pairs[i].b.index == ids[expected[i][1]].index &&
                      result->pairs[i].state == (sr_pair_state)expected[i][2],
                  "pair %d is (%u, %u) state %d", i, result->pairs[i].a.index, result->pairs[i].b.index,
                  result->pairs[i].state);
    cr_assert_eq(result->contact_count, 1);
    const sr_contact *c = &result->contacts[0];
    cr_assert(c->a.index == ids[0].index && c->b.index == ids[1].index);
    cr_assert_float_eq(c->distance, -0.5, 1e-12);
    cr_assert_float_eq(c->normal.x, 1.0, 1e-12);
    cr_assert_float_eq(c->point.x, 0.75, 1e-12);
    cr_assert_eq(result->near_count, 1);
    const sr_contact *n = &result->near[0];
    cr_assert(n->a.index == ids[0].index && n->b.index == ids[2].index);
    cr_assert_float_eq(n->distance, 0.05, 1e-6); // 1.55 as a float
    cr_assert_float_eq(n->point_a.z, 1.0, 1e-12);
    cr_assert_float_eq(n->point_b.z, 1.05, 1e-6);
    const sr_collision_pair *apart = &result->pairs[2];
    cr_assert(apart->a.index == ids[0].index && apart->b.index == ids[3].index);
    cr_assert_eq(apart->state, SR_PAIR_APART);
    cr_assert_float_eq(apart->distance, sqrt(4.5) - 2.0, 1e-6);
    cr_assert_float_eq(result->pairs[3].distance, sqrt(1.5 * 1.5 + 1.55 * 1.55) - 1.5, 1e-6);
    // A margin of 0.01 leaves only the boxes that overlap; the near pair is no longer near.
    cr_assert_eq(sr_scene_collide(scene, &(sr_collision_desc){.margin = 0.01}, result, &err), SR_OK);
    cr_assert_eq(result->pair_count, 2);
    cr_assert(result->pairs[1].a.index == ids[0].index && result->pairs[1].b.index == ids[3].index);
    cr_assert_eq(result->near_count, 0);
    cr_assert_eq(result->contact_count, 1);
    // Bad arguments.
    cr_assert_eq(sr_scene_collide(scene, &(sr_collision_desc){.margin = -1}, result, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "margin"), "%s", err.message);
    cr_assert_eq(sr_scene_collide(scene, &(sr_collision_desc){.margin = NAN}, result, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_scene_collide(scene, &(sr_collision_desc){.max_iterations = -3}, result, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(result->pair_count, 0, "a failed pass leaves an empty result");
    cr_assert_eq(sr_scene_collide(NULL, NULL, result, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_scene_collide(scene, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_collision_destroy(result);
    sr_scene_destroy(scene);
}

/* ---- the result reused without allocating ---- */

Test(scene_collide, a_pass_over_shapes_moving_a_little_allocates_nothing)
{
    watch counter = {.limit = SIZE_MAX};
    sr_set_allocator(&(sr_allocator){watch_allocate, watch_reallocate, watch_release, &counter});
    world w;
    world_init(&w, 7);
    for (int i = 0; i < 200; i++)
        add_shape(&w, i, 2.0);
    update_and_collide(&w, NULL);
    for (int frame = 0; frame < 3; frame++) {
        // Everything moves by less than the fat boxes absorb (0.1), so the tree and the pairs hold.
        for (uint32_t i = 0; i < sr_scene_shape_count(w.scene); i++) {
            sr_node_id node = sr_scene_shape_node(w.scene, i);
            sr_node_info info;
            cr_assert_eq(sr_scene_node(w.scene, node, &info, NULL), SR_OK);
            sr_transform t = info.transform;
            t.translation.x += frame % 2 ? -0.01f : 0.01f;
            cr_assert_eq(sr_scene_set_transform(w.scene, node, t, NULL), SR_OK);
        }
        sr_error err = {0};
        cr_assert_eq(sr_scene_update(w.scene, NULL, &err), SR_OK, "%s", err.message);
        size_t before = counter.allocations;
        cr_assert_eq(sr_scene_collide(w.scene, NULL, w.result, &err), SR_OK, "%s", err.message);
        cr_assert_eq(counter.allocations, before, "frame %d: the pass allocated %zu times", frame,
                     counter.allocations - before);
        cr_assert_gt(w.result->stats.shapes_moved, 0);
    }
    world_free(&w);
    sr_set_allocator(NULL);
}

/* ---- a pass that runs out of memory ---- */

typedef struct budget {
    int left; ///< allocations that succeed; below 0: every one does
} budget;

static void *budget_allocate(size_t size, void *user)
{
    budget *b = user;
    if (b->left == 0)
        return NULL;
    if (b->left > 0)
        b->left--;
    return malloc(size);
}

static void *budget_reallocate(void *pointer, size_t size, void *user)
{
    budget *b = user;
    if (b->left == 0)
        return NULL;
    if (b->left > 0)
        b->left--;
    return realloc(pointer, size);
}

/* Shapes jump and shapes are added, and the pass's allocations fail after 0, 1, 2... successes:
 * whichever stage fails, once the scene is updated again (nothing new), the next pass equals the
 * brute force, and keeps exactly the pairs whose fat boxes overlap (the shapes synced by the failed
 * pass included). */
Test(scene_collide, the_pass_after_one_that_ran_out_of_memory_equals_the_brute_force)
{
    budget allowed = {-1};
    sr_set_allocator(&(sr_allocator){budget_allocate, budget_reallocate, watch_release, &allowed});
    bool passed = false;
    int failures = 0;
    for (int successes = 0; successes < 64 && !passed; successes++) {
        world w;
        world_init(&w, 21);
        for (int i = 0; i < 120; i++)
            add_shape(&w, i, 2.0);
        update_and_collide(&w, NULL);
        for (uint32_t i = 0; i < sr_scene_shape_count(w.scene); i += 3) {
            sr_node_id node = sr_scene_shape_node(w.scene, i);
            cr_assert_eq(sr_scene_set_transform(w.scene, node, random_place(&w, 2.0), NULL), SR_OK);
        }
        for (int i = 0; i < 120; i++)
            add_shape(&w, 200 + i, 2.0);
        sr_error err = {0};
        cr_assert_eq(sr_scene_update(w.scene, NULL, &err), SR_OK, "%s", err.message);
        allowed.left = successes;
        sr_status status = sr_scene_collide(w.scene, NULL, w.result, &err);
        allowed.left = -1;
        if (status == SR_OK) {
            passed = true;
        } else {
            cr_assert_eq(status, SR_ERROR_OUT_OF_MEMORY, "%s", err.message);
            cr_assert_eq(w.result->pair_count, 0);
            failures++;
            update_and_collide(&w, NULL);
        }
        check_pass(&w, NULL);
        world_free(&w);
    }
    sr_set_allocator(NULL);
    cr_assert(passed, "the pass never got enough memory");
    cr_assert_gt(failures, 2);
}
