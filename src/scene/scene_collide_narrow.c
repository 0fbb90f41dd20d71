/* src/scene/scene_collide_narrow.c — the narrowphase of the collision pass (scene_collide.c, whose
 * header comment explains the pass): each candidate pair's answer, kept from the pass that asked it
 * while neither shape moved, proved apart by a bound or the last normal, or asked again; and the
 * room for the answers. */
#include "scene_internal.h"

/* A lower bound of the distance from the separation of the shapes along `axis` (unit, from a
 * towards b): B's lowest point along it minus A's highest. */
static double separation_along(const sr_placed_shape *a, const sr_placed_shape *b, sr_dvec3 axis)
{
    double high_a = sr_dvec3_dot(sr_placed_support(a, axis), axis);
    double low_b = sr_dvec3_dot(sr_placed_support(b, sr_dvec3_negate(axis)), axis);
    return low_b - high_a;
}

/* Distances up to this are touching: 1e-7 of the largest coordinate of the two boxes, the
 * rounding of the float node transforms that place the shapes (0.1 in a file is 0.1 + 1.5e-9 as
 * a float: two shapes set to touch at 0.1 are that far apart). Each shape's part is found once a
 * pass (gather_broad): the larger of the two. */
static double touch_tolerance(const scene_broad *a, const scene_broad *b)
{
    return a->touch > b->touch ? a->touch : b->touch;
}

/* The answer of a query as the pass reports it: contact (hit, or apart by no more than the
 * rounding of the shapes' coordinates: touch), near (within the margin) or apart; the contact or
 * near pair is written to *contact only for those two states. */
static sr_pair_state make_answer(const sr_collide_result *r, sr_collide_status status, sr_node_id a, sr_node_id b,
                                 double touch, double margin, double *distance_out, sr_contact *contact)
{
    bool contact_state = r->hit || r->distance <= touch;
    const double distance = contact_state ? fmin(r->distance, 0.0) : r->distance;
    const sr_pair_state state = contact_state ? SR_PAIR_CONTACT : distance <= margin ? SR_PAIR_NEAR : SR_PAIR_APART;
    *distance_out = distance;
    if (state != SR_PAIR_APART)
        *contact = (sr_contact){.a = a,
                                .b = b,
                                .point = sr_dvec3_scale(sr_dvec3_add(r->point_a, r->point_b), 0.5),
                                .normal = r->normal,
                                .distance = distance,
                                .point_a = r->point_a,
                                .point_b = r->point_b,
                                .method = r->method,
                                .status = status,
                                .iterations = r->iterations};
    return state;
}

/* The narrowphase: each candidate's answer, the kept one while neither shape moved since it was
 * asked, a bound above the margin (kept or along the last normal), or a new query. A kept answer
 * is read where it is: the pair itself holds its state and whether it hit its cap, the dense
 * answer_distances its distance, and only a contact or near pair reads its sr_contact. The node
 * ids of a kept answer are the slots' generations now (a slot given another node has a new shape,
 * which the pass syncs, and a slot left without a shape drops its pairs). The arrays and counters
 * are read into locals (see walk_pairs). */
__attribute__((always_inline)) static inline void answer_candidates(sr_scene *scene, const sr_collision_desc *desc,
                                                                     uint32_t candidate_count, sr_collision *result,
                                                                     sr_collision_stats *stats, const bool kept_caps)
{
    struct sr_collision_storage *storage = result->storage;
    const double margin = scene->collide_margin;
    const uint32_t pass = scene->collide_pass;
    const sr_collide_options options = {.max_iterations = desc->max_iterations};
    const scene_broad *broad = scene->broad;
    const scene_mark *marks = scene->marks;
    const uint32_t *candidate = scene->candidates;
    scene_pair *pairs = scene->pairs;
    double *answer_distances = scene->answer_distances;
    sr_contact *answer_contacts = scene->answer_contacts;
    scene_bound *answer_bounds = scene->answer_bounds;
    const scene_shape *shapes = scene->shapes;
    sr_collision_pair *out_pairs = storage->pairs;
    sr_contact *out_contacts = storage->contacts, *out_near = storage->near;
    uint32_t contacts = 0, near = 0, rejects = 0, tests = 0, caps = 0;
    uint32_t capped_answers = scene->capped_answers;
    for (uint32_t c = 0; c < candidate_count; c++) {
        scene_pair *pair = &pairs[candidate[c]];
        sr_collision_pair *out = &out_pairs[c];
        uint32_t slot_a = (uint32_t)(pair->key >> 32), slot_b = (uint32_t)pair->key;
        const sr_node_id id_a = {slot_a, marks[slot_a].generation}, id_b = {slot_b, marks[slot_b].generation};
        if (pair->current) { // its answer, as it was asked
            if (kept_caps)
                caps += pair->capped;
        } else {
            const scene_broad *a = &broad[slot_a], *b = &broad[slot_b];
            const sr_placed_shape *world_a = &shapes[a->shape].placed, *world_b = &shapes[b->shape].placed;
            if (pair->answer) { // (a pair without one has neither a bound nor an axis)
                scene_bound *kept = &answer_bounds[pair->answer - 1];
                // The bound kept from an earlier pass, less how far both shapes have travelled
                // since (and their rounding's tolerance), when neither was remade since it was
                // measured.
                if (kept->checked_pass && kept->checked_pass >= a->reset_pass && kept->checked_pass >= b->reset_pass) {
                    double bound =
                        kept->reach - a->travel - b->travel - a->touch - b->touch - 1e-15 * (a->travel + b->travel);
                    if (bound > margin) {
                        *out = (sr_collision_pair){
                            .a = id_a, .b = id_b, .state = SR_PAIR_APART, .distance = bound, .bounded = true,
                            .index = UINT32_MAX};
                        rejects++;
                        continue;
                    }
                }
                if (kept->axis.x != 0.0f || kept->axis.y != 0.0f || kept->axis.z != 0.0f) {
                    double separation =
                        separation_along(world_a, world_b, sr_dvec3_normalize(sr_dvec3_from_vec3(kept->axis)));
                    kept->reach = separation + a->travel + b->travel;
                    kept->checked_pass = pass;
                    if (separation > margin) {
                        *out = (sr_collision_pair){
                            .a = id_a, .b = id_b, .state = SR_PAIR_APART, .distance = separation, .bounded = true,
                            .index = UINT32_MAX};
                        rejects++;
                        continue;
                    }
                }
            }
            sr_collide_result r;
            sr_collide_status status = sr_collide_placed_signed_distance(world_a, world_b, &options, &r);
            tests++;
            // Room was made before the loop (sr_scene_reserve_answers).
            if (pair->answer)
                capped_answers -= pair->capped;
            else
                pair->answer = 1 + (scene->free_answer_count ? scene->free_answers[--scene->free_answer_count]
                                                             : scene->answer_count++);
            scene_bound *kept = &answer_bounds[pair->answer - 1];
            kept->axis = sr_dvec3_to_vec3(r.normal);
            // A distance the query found exactly (not at its cap) bounds the next passes' too.
            kept->checked_pass = status == SR_COLLIDE_OK && !r.hit && r.distance > 0.0 ? pass : 0;
            kept->reach = r.distance + a->travel + b->travel;
            pair->state = (uint8_t)make_answer(&r, status, id_a, id_b, touch_tolerance(a, b), margin,
                                               &answer_distances[pair->answer - 1],
                                               &answer_contacts[pair->answer - 1]);
            pair->capped = status == SR_COLLIDE_ITERATION_CAP;
            capped_answers += status == SR_COLLIDE_ITERATION_CAP;
            caps += status == SR_COLLIDE_ITERATION_CAP;
            pair->current = true;
        }
        const uint32_t answer = pair->answer - 1;
        const sr_pair_state state = (sr_pair_state)pair->state;
        // One branch (apart or not) where the states come in no order a predictor learns.
        const bool is_contact = state == SR_PAIR_CONTACT, is_near = state == SR_PAIR_NEAR;
        *out = (sr_collision_pair){.a = id_a,
                                   .b = id_b,
                                   .state = state,
                                   .distance = answer_distances[answer],
                                   .index = is_contact ? contacts : is_near ? near : UINT32_MAX};
        if (is_contact || is_near)
            *(is_contact ? &out_contacts[contacts] : &out_near[near]) = answer_contacts[answer];
        contacts += is_contact;
        near += is_near;
    }
    result->pairs = storage->pairs;
    result->pair_count = candidate_count;
    result->contacts = storage->contacts;
    result->contact_count = contacts;
    result->near = storage->near;
    result->near_count = near;
    stats->reused += candidate_count - rejects - tests;
    stats->axis_rejects += rejects;
    stats->tests += tests;
    stats->iteration_caps += caps;
    scene->capped_answers = capped_answers;
    stats->contacts = contacts;
    stats->near = near;
}

/* Each candidate's answer (answer_candidates). A kept answer is read for its status only while
 * some kept answer hit its cap: the loop is inlined twice, with and without that read. */
void sr_scene_narrowphase(sr_scene *scene, const sr_collision_desc *desc, uint32_t candidate_count,
                          sr_collision *result, sr_collision_stats *stats)
{
    if (scene->capped_answers)
        answer_candidates(scene, desc, candidate_count, result, stats, true);
    else
        answer_candidates(scene, desc, candidate_count, result, stats, false);
}

/* Room for an answer for each of the `unanswered` candidates (those without one yet), beyond the
 * free ones, and for the free list to hold every answer. */
bool sr_scene_reserve_answers(sr_scene *scene, uint32_t unanswered)
{
    uint64_t wanted = (uint64_t)scene->answer_count +
                      (unanswered > scene->free_answer_count ? unanswered - scene->free_answer_count : 0);
    if (wanted <= scene->answer_capacity)
        return true;
    if (wanted > UINT32_MAX)
        return false;
    // The capacity is recorded only when all four grew (to the same capacity: the same doubling).
    uint32_t distance_capacity = scene->answer_capacity, contact_capacity = scene->answer_capacity,
             bound_capacity = scene->answer_capacity;
    if (!sr_scene_grow((void **)&scene->answer_distances, &distance_capacity, (uint32_t)wanted,
                       sizeof *scene->answer_distances) ||
        !sr_scene_grow((void **)&scene->answer_contacts, &contact_capacity, (uint32_t)wanted,
                       sizeof *scene->answer_contacts) ||
        !sr_scene_grow((void **)&scene->answer_bounds, &bound_capacity, (uint32_t)wanted, sizeof *scene->answer_bounds))
        return false;
    uint32_t capacity = distance_capacity < contact_capacity ? distance_capacity : contact_capacity;
    capacity = bound_capacity < capacity ? bound_capacity : capacity;
    uint32_t free_capacity = scene->answer_capacity;
    if (!sr_scene_grow((void **)&scene->free_answers, &free_capacity, capacity, sizeof *scene->free_answers))
        return false;
    scene->answer_capacity = capacity < free_capacity ? capacity : free_capacity;
    return true;
}
