/* src/scene/scene_collide.c — the collision pass over a scene's shapes (softrast/scene.h:
 * sr_scene_collide, sr_collision).
 *
 * Broadphase, as Box2D's (b2BroadPhase: move buffer, pair set) learned it from Erin Catto's
 * dynamic tree: every shape has a proxy in a dynamic AABB tree whose fat box absorbs small
 * motions; only shapes whose fat box had to change query the tree, and the pairs whose fat boxes
 * overlap are kept from pass to pass (here a sorted array, so that the results come in pair
 * order whatever the history). A kept pair is a candidate when the shapes' exact boxes come within
 * the margin of each other. The tree's boxes are the exact boxes grown by half the margin, so a
 * pair within the margin always has overlapping fat boxes.
 *
 * Narrowphase (scene_collide_narrow.c): each candidate keeps the normal of its last query. A
 * normal that still separates the shapes by more than the margin proves them apart (a separating
 * axis gives a lower bound of the distance), which costs two support points, as Bullet's and
 * Jolt's cached separating axes do. Cheaper still, the lower bound a pair had (that separation, or
 * the distance its query found) stays one in later passes once the distance both shapes may have
 * travelled since is taken off: each shape sums, pass by pass, its translation plus its rotation's
 * chord times the radius of its box (every support value of it moved by no more), and a pair whose
 * bound minus both sums still exceeds the margin is proved apart without touching its shapes
 * (conservative advancement's bound, as used for time of impact); a shape made anew starts its sum
 * again. A candidate neither of whose shapes moved since its last query gets that query's answer
 * again (the query is deterministic: it would answer the same), so a pile at rest costs only its
 * broadphase; otherwise sr_collide_placed_signed_distance answers (each shape placed once when the
 * pass syncs it: the same bits as sr_collide_signed_distance): contact (distance <= 0, or
 * touching: apart by at most 1e-7 of the largest coordinate of the pair's boxes, the rounding of
 * float transforms), near (within the margin) or apart.
 *
 * Allocation: the arrays grow between the stages, to what the stage will need, never inside a
 * loop (except the tree queries' new pairs, which double when a query finds more than ever). */
#include "scene_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

sr_status sr_collision_create(sr_collision **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_collision_create: out is NULL");
    sr_collision *collision = sr_calloc(1, sizeof *collision);
    struct sr_collision_storage *storage = sr_calloc(1, sizeof *storage);
    if (!collision || !storage) {
        sr_free(collision);
        sr_free(storage);
        *out = NULL;
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_collision_create: out of memory");
    }
    collision->storage = storage;
    *out = collision;
    return SR_OK;
}

void sr_collision_destroy(sr_collision *collision)
{
    if (!collision)
        return;
    if (collision->storage) {
        sr_free(collision->storage->pairs);
        sr_free(collision->storage->contacts);
        sr_free(collision->storage->near);
        sr_free(collision->storage);
    }
    sr_free(collision);
}

/* Room for `count` pairs, contacts and near pairs. */
static bool reserve_results(struct sr_collision_storage *storage, size_t count)
{
    if (count <= storage->capacity)
        return true;
    size_t capacity = storage->capacity ? storage->capacity : 64;
    while (capacity < count)
        capacity *= 2;
    sr_collision_pair *pairs = sr_realloc(storage->pairs, capacity * sizeof *pairs);
    if (pairs)
        storage->pairs = pairs;
    sr_contact *contacts = pairs ? sr_realloc(storage->contacts, capacity * sizeof *contacts) : NULL;
    if (contacts)
        storage->contacts = contacts;
    sr_contact *near = contacts ? sr_realloc(storage->near, capacity * sizeof *near) : NULL;
    if (near)
        storage->near = near;
    if (!near)
        return false; // the arrays that grew keep their old capacity as far as anyone knows
    storage->capacity = capacity;
    return true;
}

/* ---- broadphase ---- */

static uint64_t pair_key(uint32_t a, uint32_t b)
{
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

static const scene_shape *shape_of_slot(const sr_scene *scene, uint32_t slot)
{
    if (slot >= scene->slot_count)
        return NULL;
    const scene_node *n = &scene->nodes[slot];
    return (n->flags & NODE_LIVE) && n->shape ? &scene->shapes[n->shape - 1] : NULL;
}

static sr_aabb grown_box(sr_dbox box, double by)
{
    return sr_dbox_to_aabb(
        (sr_dbox){{box.min.x - by, box.min.y - by, box.min.z - by}, {box.max.x + by, box.max.y + by, box.max.z + by}});
}

/* A unit quaternion for a pose's rotation (all zeros: the identity). */
static sr_dquat unit_rotation(sr_dquat q)
{
    double length = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(length > 0.0))
        return (sr_dquat){0.0, 0.0, 0.0, 1.0};
    return (sr_dquat){q.x / length, q.y / length, q.z / length, q.w / length};
}

/* How far any point of a shape can have gone from `from` to `to`, its points within `reach` of
 * its position: the translation, plus the rotation's largest displacement of a point at distance
 * reach, 2 sin(angle / 2) reach, where cos(angle / 2) = |q_from . q_to| (with 1e-7 for the
 * rounding of that cosine near 1). So every support value of the shape changed by at most this. */
static double motion_bound(sr_pose from, sr_pose to, double reach)
{
    sr_dquat p = unit_rotation(from.rotation), q = unit_rotation(to.rotation);
    double c = fmin(1.0, fabs(p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w));
    double chord = 2.0 * sqrt(fmax(0.0, 1.0 - c * c)) + 1e-7;
    return sr_dvec3_length(sr_dvec3_sub(to.position, from.position)) + chord * reach;
}

/* The largest distance from `centre` to a point of `box`. */
static double box_reach(sr_dbox box, sr_dvec3 centre)
{
    double x = fmax(fabs(box.min.x - centre.x), fabs(box.max.x - centre.x));
    double y = fmax(fabs(box.min.y - centre.y), fabs(box.max.y - centre.y));
    double z = fmax(fabs(box.min.z - centre.z), fabs(box.max.z - centre.z));
    return sqrt(x * x + y * y + z * z);
}

/* The largest magnitude of a box's coordinates (plain comparisons: the coordinates are finite). */
static double largest_coordinate(sr_dbox box)
{
    const double values[6] = {box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z};
    double largest = 0.0;
    for (int k = 0; k < 6; k++) {
        double v = fabs(values[k]);
        largest = v > largest ? v : largest;
    }
    return largest;
}

/* Brings the dirty shapes' exact boxes and tree proxies up to date; lists those whose fat box
 * changed in scene->moved. Each shape's travel grows by how far it moved (motion_bound; its points
 * are within its box), or starts again when the shape is new or has another geometry. */
static sr_status sync_shapes(sr_scene *scene, sr_collision_stats *stats, sr_error *err)
{
    if (!sr_scene_grow((void **)&scene->moved, &scene->moved_capacity, scene->shape_dirty_count, sizeof *scene->moved))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_collide: out of memory");
    scene->moved_count = 0;
    scene->inserted_shapes = 0;
    const double half_margin = 0.5 * scene->collide_margin;
    uint32_t done = 0;
    for (; done < scene->shape_dirty_count; done++) {
        uint32_t slot = scene->shape_dirty[done];
        const scene_shape *found = shape_of_slot(scene, slot);
        if (!found || !found->dirty)
            continue; // removed since, or listed twice
        scene_shape *shape = &scene->shapes[scene->nodes[slot].shape - 1];
        stats->shapes_moved++;
        sr_dbox previous = shape->bounds;
        sr_shape_place(&shape->world, &shape->placed);
        shape->bounds = sr_placed_bounds(&shape->placed);
        shape->touch = 1e-7 * largest_coordinate(shape->bounds);
        sr_aabb box = grown_box(shape->bounds, half_margin);
        sr_status status;
        bool changed = true;
        if (shape->proxy.generation == 0) {
            status = sr_dynamic_tree_insert(scene->shape_tree, box, slot, &shape->proxy, err);
            scene->inserted_shapes += status == SR_OK;
        } else {
            sr_vec3 displacement = sr_vec3_make(
                (float)(0.5 * (shape->bounds.min.x + shape->bounds.max.x - previous.min.x - previous.max.x)),
                (float)(0.5 * (shape->bounds.min.y + shape->bounds.max.y - previous.min.y - previous.max.y)),
                (float)(0.5 * (shape->bounds.min.z + shape->bounds.max.z - previous.min.z - previous.max.z)));
            if (!sr_vec3_is_finite(displacement))
                displacement = sr_vec3_splat(0.0f);
            status = sr_dynamic_tree_move(scene->shape_tree, shape->proxy, box, displacement, &changed, err);
        }
        if (status != SR_OK) {
            // Keep the rest listed for the next pass.
            memmove(scene->shape_dirty, scene->shape_dirty + done,
                    (scene->shape_dirty_count - done) * sizeof *scene->shape_dirty);
            scene->shape_dirty_count -= done;
            return status;
        }
        if (shape->reshaped || shape->reset_pass == 0) {
            shape->travel = 0.0;
            shape->reset_pass = scene->collide_pass;
            shape->reshaped = false;
        } else {
            shape->travel += motion_bound(shape->synced_pose, shape->world.pose,
                                          box_reach(shape->bounds, shape->world.pose.position));
        }
        shape->synced_pose = shape->world.pose;
        shape->dirty = false;
        shape->moved_pass = scene->collide_pass;
        if (changed) {
            sr_dynamic_tree_get(scene->shape_tree, shape->proxy, &shape->fat, NULL, NULL);
            shape->fat_pass = scene->collide_pass;
            scene->moved[scene->moved_count++] = slot;
        }
    }
    scene->shape_dirty_count = 0;
    stats->proxies_moved = scene->moved_count;
    return SR_OK;
}

/* Copies what the pairs read of each live shape into scene->marks and scene->broad, by slot: every
 * kept pair looks its shapes up in marks (8 bytes a slot: whether it moved, its generation), the
 * pairs with a moved shape in broad, an array a eighth the size of the shapes' (which is read in
 * order here, once per shape, rather than at random twice per pair). A shape the pass did not sync,
 * copied to the same place at the last pass, only gets this pass's stamp: nothing else of it
 * changes but when the pass syncs it (a node made anew at a slot has a new shape, which the pass
 * syncs). Then every slot without a live shape (its shape removed, or none ever) counts as moved
 * in this pass, so that find_candidates, which looks closer only at pairs with a moved shape,
 * drops its pairs. */
static sr_status gather_broad(sr_scene *scene, sr_error *err)
{
    // Both arrays grow by the same doubling from the same capacity (marks first: when broad
    // cannot grow, the capacity stays the old one for both, and marks is sized again next time).
    uint32_t old_capacity = scene->broad_capacity, mark_capacity = old_capacity;
    if (!sr_scene_grow((void **)&scene->marks, &mark_capacity, scene->slot_count, sizeof *scene->marks) ||
        !sr_scene_grow((void **)&scene->broad, &scene->broad_capacity, scene->slot_count, sizeof *scene->broad))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_collide: out of memory");
    scene_broad *broad = scene->broad;
    scene_mark *marks = scene->marks;
    for (uint32_t i = old_capacity; i < scene->broad_capacity; i++) {
        broad[i].pass = 0; // never a pass's number: passes start at 1
        marks[i] = (scene_mark){0};
    }
    const uint32_t pass = scene->collide_pass;
    const scene_shape *shapes = scene->shapes;
    uint32_t gathered = 0;
    for (uint32_t i = 0; i < scene->shape_count; i++) {
        const scene_shape *shape = &shapes[i];
        if (!shape->proxy.generation)
            continue; // not in the tree: in no pair
        gathered++;
        scene_broad *b = &broad[shape->node];
        if (shape->moved_pass != pass && b->pass == pass - 1 && b->shape == i) {
            b->pass = pass;
            continue;
        }
        marks[shape->node] =
            (scene_mark){.moved_pass = shape->moved_pass, .generation = scene->nodes[shape->node].generation};
        *b = (scene_broad){.pass = pass,
                           .shape = i,
                           .reset_pass = shape->reset_pass,
                           .fat_pass = shape->fat_pass,
                           .fat = shape->fat,
                           .touch = shape->touch,
                           .travel = shape->travel,
                           .bounds = shape->bounds};
    }
    // Shapes left the tree since the last pass (removed, or given another slot) unless the tree
    // holds those of the last pass and the new ones.
    if (gathered != scene->gathered_shapes + scene->inserted_shapes)
        for (uint32_t slot = 0; slot < scene->slot_count; slot++)
            if (broad[slot].pass != pass)
                marks[slot].moved_pass = pass;
    scene->gathered_shapes = gathered;
    return SR_OK;
}

typedef struct query_context {
    sr_scene *scene;
    uint32_t self;
    bool out_of_memory;
} query_context;

static bool collect_pair(void *user, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy;
    query_context *c = user;
    uint32_t other = (uint32_t)user_data;
    if (other == c->self)
        return true;
    sr_scene *scene = c->scene;
    if (!sr_scene_grow((void **)&scene->new_pairs, &scene->new_pair_capacity, scene->new_pair_count + 1,
                       sizeof *scene->new_pairs)) {
        c->out_of_memory = true;
        return false;
    }
    scene->new_pairs[scene->new_pair_count++] = pair_key(c->self, other);
    return true;
}

/* LSD radix sort of 64-bit keys, 11 bits a pass, skipping the passes where every key has the
 * same digit (slot numbers below 2^21 leave most high digits zero). */
#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
static void sort_keys(uint64_t *keys, uint64_t *scratch, uint32_t count)
{
    uint64_t *from = keys, *to = scratch;
    for (int shift = 0; shift < 64; shift += RADIX_BITS) {
        uint32_t histogram[RADIX_SIZE + 1];
        memset(histogram, 0, sizeof histogram);
        for (uint32_t i = 0; i < count; i++)
            histogram[((from[i] >> shift) & (RADIX_SIZE - 1)) + 1]++;
        if (histogram[((from[0] >> shift) & (RADIX_SIZE - 1)) + 1] == count)
            continue;
        for (uint32_t d = 0; d < RADIX_SIZE; d++)
            histogram[d + 1] += histogram[d];
        for (uint32_t i = 0; i < count; i++)
            to[histogram[(from[i] >> shift) & (RADIX_SIZE - 1)]++] = from[i];
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != keys)
        memcpy(keys, from, count * sizeof *keys);
}

/* The moved shapes' fat boxes query the tree; the pairs found that are not kept yet join the
 * sorted pair array (merged in order). */
static sr_status find_new_pairs(sr_scene *scene, sr_error *err)
{
    scene->new_pair_count = 0;
    for (uint32_t i = 0; i < scene->moved_count; i++) {
        uint32_t slot = scene->moved[i];
        query_context context = {scene, slot, false};
        const scene_shape *shape = &scene->shapes[scene->nodes[slot].shape - 1];
        sr_dynamic_tree_query_stats query =
            sr_dynamic_tree_query_aabb(scene->shape_tree, shape->fat, collect_pair, &context, err);
        if (context.out_of_memory)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_collide: out of memory for new pairs");
        if (query.status != SR_OK)
            return query.status;
    }
    uint32_t count = scene->new_pair_count;
    if (count == 0)
        return SR_OK;
    // Scratch for the sort and the merge: the new keys' room doubles as the sort's other buffer.
    if (!sr_scene_grow((void **)&scene->new_pairs, &scene->new_pair_capacity, 2 * count, sizeof *scene->new_pairs) ||
        !sr_scene_grow((void **)&scene->pairs_scratch, &scene->pairs_scratch_capacity, scene->pair_count + count,
                       sizeof *scene->pairs_scratch))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_collide: out of memory for %u new pairs", count);
    uint64_t *keys = scene->new_pairs;
    if (count > 64) {
        sort_keys(keys, keys + count, count);
    } else { // insertion sort: a few keys a pass in steady motion
        for (uint32_t i = 1; i < count; i++) {
            uint64_t key = keys[i];
            uint32_t j = i;
            for (; j > 0 && keys[j - 1] > key; j--)
                keys[j] = keys[j - 1];
            keys[j] = key;
        }
    }
    // Merge the kept pairs and the new keys (unique, not yet kept) into the scratch array.
    const scene_pair *kept = scene->pairs;
    scene_pair *merged = scene->pairs_scratch;
    uint32_t a = 0, b = 0, n = 0;
    while (a < scene->pair_count || b < count) {
        if (b < count && b > 0 && keys[b] == keys[b - 1]) {
            b++;
            continue;
        }
        if (b == count || (a < scene->pair_count && kept[a].key < keys[b])) {
            merged[n++] = kept[a++];
        } else if (a < scene->pair_count && kept[a].key == keys[b]) {
            merged[n++] = kept[a++];
            b++;
        } else {
            merged[n++] = (scene_pair){.key = keys[b++]};
        }
    }
    scene_pair *swap = scene->pairs;
    uint32_t swap_capacity = scene->pair_capacity;
    scene->pairs = scene->pairs_scratch;
    scene->pair_capacity = scene->pairs_scratch_capacity;
    scene->pairs_scratch = swap;
    scene->pairs_scratch_capacity = swap_capacity;
    scene->pair_count = n;
    return SR_OK;
}

static bool fat_overlap(sr_aabb a, sr_aabb b)
{
    return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y && a.min.z <= b.max.z &&
           b.min.z <= a.max.z;
}

/* The exact boxes come within `margin` of each other: box a grown by the margin overlaps box b. */
static bool boxes_within(sr_dbox a, sr_dbox b, double margin)
{
    return a.min.x - margin <= b.max.x && b.min.x <= a.max.x + margin && a.min.y - margin <= b.max.y &&
           b.min.y <= a.max.y + margin && a.min.z - margin <= b.max.z && b.min.z <= a.max.z + margin;
}

/* What find_candidates counts. */
typedef struct pair_walk {
    uint32_t kept, candidates, unanswered, filtered, free_count;
    uint32_t capped_freed; ///< the answers freed whose query hit its cap
} pair_walk;

/* find_candidates' loop over the kept pairs; inlined twice, with the pass's filter and with none
 * (which leaves the loop without a call, so its counters stay in registers). */
__attribute__((always_inline)) static inline pair_walk walk_pairs(sr_scene *scene, bool (*filter)(void *, sr_node_id,
                                                                                                  sr_node_id),
                                                                  void *user)
{
    const double margin = scene->collide_margin;
    const uint32_t pass = scene->collide_pass, pair_count = scene->pair_count;
    const scene_broad *broad = scene->broad;
    const scene_mark *marks = scene->marks;
    scene_pair *pairs = scene->pairs;
    uint32_t *next = scene->candidates, *free_answers = scene->free_answers;
    uint32_t free_count = scene->free_answer_count;
    uint32_t kept = 0, unanswered = 0, filtered = 0, capped_freed = 0;
    // The pairs come sorted by slot_a: its mark is looked up once for all its pairs.
    uint32_t last_a = UINT32_MAX;
    bool a_moved = false;
    for (uint32_t i = 0; i < pair_count; i++) {
        scene_pair *pair = &pairs[i];
        uint32_t slot_a = (uint32_t)(pair->key >> 32), slot_b = (uint32_t)pair->key;
        if (slot_a != last_a) {
            last_a = slot_a;
            a_moved = marks[slot_a].moved_pass == pass;
        }
        if (a_moved || marks[slot_b].moved_pass == pass) { // (a slot without a live shape counts as moved)
            const scene_broad *a = &broad[slot_a], *b = &broad[slot_b];
            // Fat boxes that kept their place still overlap: only one that changed is tested.
            if (a->pass != pass || b->pass != pass ||
                ((a->fat_pass == pass || b->fat_pass == pass) && !fat_overlap(a->fat, b->fat))) {
                if (pair->answer) { // room: free_answers has answer_capacity entries
                    free_answers[free_count++] = pair->answer - 1;
                    capped_freed += pair->capped;
                }
                continue;
            }
            pair->within = boxes_within(a->bounds, b->bounds, margin);
            pair->current = false;
        }
        if (kept != i) { // most pairs stay where they are
            pairs[kept] = *pair;
            pair = &pairs[kept];
        }
        if (filter) {
            if (pair->within) {
                if (!filter(user, (sr_node_id){slot_a, marks[slot_a].generation},
                            (sr_node_id){slot_b, marks[slot_b].generation})) {
                    filtered++;
                } else {
                    *next++ = kept;
                    unanswered += pair->answer == 0;
                }
            }
        } else { // without a branch: half the pairs are candidates, in no order a predictor learns
            *next = kept; // (room: next - candidates <= kept < pair_count)
            next += pair->within;
            unanswered += pair->within & (pair->answer == 0);
        }
        kept++;
    }
    return (pair_walk){kept, (uint32_t)(next - scene->candidates), unanswered, filtered, free_count, capped_freed};
}

/* Drops the kept pairs whose fat boxes no longer overlap (or whose nodes lost their shapes) and
 * lists the candidates. A pair neither of whose shapes was synced this pass keeps its fat boxes'
 * overlap and whether its exact boxes are within the margin: the last pass tested (or kept) both
 * on the same boxes (a new pair always has a moved shape, a new margin syncs every shape, and a
 * pass that fails after syncing forgets every pair: forget_pairs); a pair whose shapes were synced
 * but whose fat boxes both stayed in place (fat_pass; a new pair's moved shape has a new fat box)
 * keeps their overlap. Every slot of a kept pair is
 * below scene->slot_count, which never shrinks, and so within scene->broad (gather_broad). The
 * arrays and counters are read into locals: the stores through the pairs would make the compiler
 * load them again for every pair. */
static sr_status find_candidates(sr_scene *scene, const sr_collision_desc *desc, sr_collision_stats *stats,
                                 uint32_t *candidate_count, uint32_t *unanswered_count, sr_error *err)
{
    if (!sr_scene_grow((void **)&scene->candidates, &scene->candidate_capacity, scene->pair_count,
                       sizeof *scene->candidates))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_collide: out of memory");
    pair_walk walk = desc->filter ? walk_pairs(scene, desc->filter, desc->user) : walk_pairs(scene, NULL, NULL);
    scene->free_answer_count = walk.free_count;
    scene->capped_answers -= walk.capped_freed;
    scene->pair_count = walk.kept;
    stats->filtered += walk.filtered;
    *candidate_count = walk.candidates;
    *unanswered_count = walk.unanswered;
    return SR_OK;
}

/* ---- the pass ---- */

/* After a pass that failed once shapes were synced: some moved shapes may have new pairs that were
 * never looked for, and kept pairs whose boxes were never tested again. Everything the passes
 * keep is dropped (the tree, the pairs and their answers), so that the next pass starts as the
 * first one did: every shape inserted anew queries the tree. */
static void forget_pairs(sr_scene *scene)
{
    sr_dynamic_tree_destroy(scene->shape_tree);
    scene->shape_tree = NULL;
    for (uint32_t i = 0; i < scene->shape_count; i++)
        scene->shapes[i].proxy = SR_DYNAMIC_PROXY_NULL;
    scene->pair_count = 0;
    scene->answer_count = 0;
    scene->free_answer_count = 0;
    scene->capped_answers = 0;
    scene->gathered_shapes = UINT32_MAX; // unknown: gather_broad looks for slots without a shape
    scene->collide_margin = NAN; // every shape is synced again (as for a new margin)
}

static void clear_result(sr_collision *result)
{
    result->pairs = result->storage->pairs;
    result->contacts = result->storage->contacts;
    result->near = result->storage->near;
    result->pair_count = result->contact_count = result->near_count = 0;
    result->stats = (sr_collision_stats){0};
}

sr_status sr_scene_collide(sr_scene *scene, const sr_collision_desc *desc, sr_collision *result, sr_error *err)
{
    if (!scene || !result || !result->storage)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_collide: %s is NULL", scene ? "result" : "scene");
    clear_result(result);
    const sr_collision_desc defaults = {0};
    if (!desc)
        desc = &defaults;
    if (!(desc->margin >= 0.0) || !isfinite(desc->margin))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_collide: margin %g must be finite and >= 0",
                            desc->margin);
    if (desc->max_iterations < 0)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_collide: max_iterations %d is negative",
                            desc->max_iterations);
    if (scene->dirty)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_scene_collide: the scene has edits waiting for sr_scene_update");
    double margin = desc->no_near ? 0.0 : desc->margin > 0.0 ? desc->margin : SR_COLLISION_DEFAULT_MARGIN;
    result->margin = margin;
    sr_collision_stats stats = {.shapes = scene->shape_count};
    double start = now_ms();
    sr_status status = SR_OK;
    if (!scene->shape_tree)
        status =
            sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = scene->shape_margin}, &scene->shape_tree, err);
    scene->collide_pass++;
    if (status == SR_OK && (margin != scene->collide_margin || desc->max_iterations != scene->collide_max_iterations)) {
        // The tree's boxes carry half the margin: every shape's box is made anew (and with another
        // cap, every query is asked again).
        if (!sr_scene_grow((void **)&scene->shape_dirty, &scene->shape_dirty_capacity,
                           scene->shape_dirty_count + scene->shape_count, sizeof *scene->shape_dirty))
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_collide: out of memory");
        for (uint32_t i = 0; i < scene->shape_count; i++)
            if (!scene->shapes[i].dirty) {
                scene->shapes[i].dirty = true;
                scene->shape_dirty[scene->shape_dirty_count++] = scene->shapes[i].node;
            }
        scene->collide_margin = margin;
        scene->collide_max_iterations = desc->max_iterations;
    }
    if (status == SR_OK)
        status = sync_shapes(scene, &stats, err);
    if (status == SR_OK)
        status = gather_broad(scene, err);
    if (status == SR_OK)
        status = find_new_pairs(scene, err);
    uint32_t candidates = 0, unanswered = 0;
    if (status == SR_OK)
        status = find_candidates(scene, desc, &stats, &candidates, &unanswered, err);
    stats.pairs_cached = scene->pair_count;
    if (status == SR_OK && (!reserve_results(result->storage, candidates) || !sr_scene_reserve_answers(scene, unanswered)))
        status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_collide: out of memory for %u pairs", candidates);
    stats.pairs = candidates;
    double middle = now_ms();
    stats.broadphase_ms = middle - start;
    if (status != SR_OK) {
        forget_pairs(scene);
        clear_result(result);
        return status;
    }
    sr_scene_narrowphase(scene, desc, candidates, result, &stats);
    stats.narrowphase_ms = now_ms() - middle;
    result->stats = stats;
    return SR_OK;
}
