/* src/scene/scene_update.c — sr_scene_update: world transforms top-down, world and subtree boxes
 * bottom-up, and the instance tree's proxies, recomputed only where something changed (the
 * pending list of nodes whose local transform changed, and the nodes marked for a subtree-box
 * update). Knows nothing of drawing or picking. */
#include "scene_internal.h"

#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The world box of a node's mesh: the mesh box mapped by the world matrix (Arvo), widened by a
 * few ulps of its coordinates so that the float rounding of the mapping can never make it
 * smaller than the box of the transformed vertices (culling must never drop a visible instance). */
static sr_aabb world_box(const sr_scene *scene, const scene_node *n)
{
    if (n->mesh == 0)
        return sr_aabb_empty();
    sr_aabb box = sr_aabb_transform(scene->meshes[n->mesh - 1].bounds, n->world);
    if (sr_aabb_is_empty(box))
        return box;
    float largest = 0.0f;
    const float values[6] = {box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z};
    for (int k = 0; k < 6; k++)
        largest = fmaxf(largest, fabsf(values[k]));
    return sr_aabb_expand(box, largest * 0x1p-20f);
}

/* The world box of a node's shape wire drawn over its own mesh, merged into its world box. */
static sr_aabb with_wire_box(const sr_scene *scene, const scene_node *n, sr_aabb box)
{
    if (n->wire_mesh == 0 || n->wire_mesh == n->mesh)
        return box;
    scene_node wire = *n;
    wire.mesh = n->wire_mesh;
    return sr_aabb_merge(box, world_box(scene, &wire));
}

/* The rigid part of the local transform (translation, rotation) composed with the parent's world
 * pose, in double: shapes are placed exactly by their poses, not through float matrices. */
static sr_pose world_pose(const sr_scene *scene, const scene_node *n)
{
    sr_quat q = sr_quat_normalize(n->transform.rotation);
    sr_dquat rotation = sr_dquat_from_quat(q);
    double length = sqrt(rotation.x * rotation.x + rotation.y * rotation.y + rotation.z * rotation.z +
                         rotation.w * rotation.w);
    rotation = (sr_dquat){rotation.x / length, rotation.y / length, rotation.z / length, rotation.w / length};
    sr_pose local = {sr_dvec3_from_vec3(n->transform.translation), rotation};
    if (n->parent == SCENE_NONE)
        return local;
    sr_pose parent = scene->nodes[n->parent].world_pose;
    sr_dquat composed = sr_dquat_mul(parent.rotation, local.rotation);
    length = sqrt(composed.x * composed.x + composed.y * composed.y + composed.z * composed.z + composed.w * composed.w);
    return (sr_pose){sr_dvec3_add(parent.position, sr_dquat_rotate(parent.rotation, local.position)),
                     {composed.x / length, composed.y / length, composed.z / length, composed.w / length}};
}

/* Recomputes one node's world transform, inverse, normal matrix, world box and proxy. */
static sr_status update_node(sr_scene *scene, uint32_t index, sr_scene_update_stats *stats, sr_error *err)
{
    scene_node *n = &scene->nodes[index];
    sr_mat4 local = sr_transform_matrix(n->transform);
    n->world = n->parent == SCENE_NONE ? local : sr_mat4_mul(scene->nodes[n->parent].world, local);
    n->world_pose = world_pose(scene, n);
    if (n->shape && !sr_scene_shape_moved(scene, index))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_update: out of memory");
    if (!sr_mat4_inverse(n->world, &n->world_inverse))
        n->world_inverse = sr_mat4_identity();
    n->normal_matrix = sr_mat4_transpose(n->world_inverse);
    sr_aabb previous = n->world_aabb;
    n->world_aabb = with_wire_box(scene, n, world_box(scene, n));
    n->flags &= ~(uint32_t)NODE_DIRTY_TRANSFORM;
    stats->transforms_updated++;
    if (n->mesh == 0 || sr_aabb_is_empty(n->world_aabb)) {
        // Nothing to draw (or no longer: a shape taken away): out of the instance tree.
        if (n->proxy.generation != 0)
            sr_dynamic_tree_remove(scene->instances, n->proxy, NULL);
        n->proxy = SR_DYNAMIC_PROXY_NULL;
        return SR_OK;
    }
    if (n->proxy.generation == 0) {
        sr_status status = sr_dynamic_tree_insert(scene->instances, n->world_aabb, index, &n->proxy, NULL);
        if (status == SR_ERROR_INVALID_ARGUMENT) {
            n->proxy = SR_DYNAMIC_PROXY_NULL; // no room for the margin in float: left out (below)
            return SR_OK;
        }
        if (status != SR_OK)
            return sr_error_set(err, status, "sr_scene_update: out of memory for node %u's box", index);
        stats->proxies_moved++;
        return SR_OK;
    }
    sr_vec3 displacement = sr_aabb_is_empty(previous)
                               ? sr_vec3_splat(0.0f)
                               : sr_vec3_sub(sr_aabb_centre(n->world_aabb), sr_aabb_centre(previous));
    if (!sr_vec3_is_finite(displacement))
        displacement = sr_vec3_splat(0.0f);
    bool changed = false;
    sr_status status = sr_dynamic_tree_move(scene->instances, n->proxy, n->world_aabb, displacement, &changed, NULL);
    if (status == SR_ERROR_INVALID_ARGUMENT) {
        // A box near the float range: its fat box plus the predicted displacement overflows. The
        // displacement is only a hint; without it, or with no room even for the margin, the node
        // leaves the tree (nothing within the float range can see it), as an empty one does.
        status = sr_dynamic_tree_move(scene->instances, n->proxy, n->world_aabb, sr_vec3_splat(0.0f), &changed, NULL);
        if (status == SR_ERROR_INVALID_ARGUMENT) {
            sr_dynamic_tree_remove(scene->instances, n->proxy, NULL);
            n->proxy = SR_DYNAMIC_PROXY_NULL;
            stats->proxies_moved++;
            return SR_OK;
        }
    }
    if (status != SR_OK)
        return sr_error_set(err, status, "sr_scene_update: the instance tree refused node %u's box", index);
    stats->proxies_moved += changed;
    return status;
}

/* Recomputes the subtree of `root` top-down (transforms, world boxes) and bottom-up (subtree
 * boxes), walking the child and sibling links without a stack. */
static sr_status update_subtree(sr_scene *scene, uint32_t root, sr_scene_update_stats *stats, sr_error *err)
{
    uint32_t current = root;
    for (;;) {
        sr_status status = update_node(scene, current, stats, err);
        if (status != SR_OK)
            return status;
        scene_node *n = &scene->nodes[current];
        n->subtree_aabb = n->world_aabb;
        if (n->first_child != SCENE_NONE) {
            current = n->first_child;
            continue;
        }
        // Leaving `current` for good: fold its subtree box into its parent, then climb until a
        // node with a next sibling (folding each finished node on the way).
        for (;;) {
            scene_node *done = &scene->nodes[current];
            stats->bounds_updated++;
            done->flags &= ~(uint32_t)NODE_DIRTY_BOUNDS;
            if (current == root)
                return SR_OK;
            scene_node *parent = &scene->nodes[done->parent];
            parent->subtree_aabb = sr_aabb_merge(parent->subtree_aabb, done->subtree_aabb);
            if (done->next_sibling != SCENE_NONE) {
                current = done->next_sibling;
                break;
            }
            current = done->parent;
        }
    }
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t ka = *(const uint64_t *)a, kb = *(const uint64_t *)b;
    return (ka > kb) - (ka < kb);
}

sr_status sr_scene_update(sr_scene *scene, sr_scene_update_stats *stats, sr_error *err)
{
    sr_scene_update_stats local = {0};
    if (!stats)
        stats = &local;
    *stats = (sr_scene_update_stats){0};
    if (!scene)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_update: scene is NULL");
    if (!scene->dirty)
        return SR_OK;
    double start = now_ms();
    // 1. Subtrees of nodes whose transform changed, unless an ancestor's subtree covers them.
    for (uint32_t i = 0; i < scene->pending_count; i++) {
        uint32_t index = scene->pending[i];
        scene_node *n = &scene->nodes[index];
        n->flags &= ~(uint32_t)NODE_PENDING;
        if (!(n->flags & NODE_LIVE) || !(n->flags & NODE_DIRTY_TRANSFORM))
            continue;
        bool covered = false;
        for (uint32_t a = n->parent; a != SCENE_NONE && !covered; a = scene->nodes[a].parent)
            covered = (scene->nodes[a].flags & NODE_DIRTY_TRANSFORM) != 0;
        if (covered)
            continue; // the ancestor's pass (later in the list) recomputes this subtree
        sr_status status = update_subtree(scene, index, stats, err);
        if (status == SR_OK && n->parent != SCENE_NONE && !sr_scene_mark_bounds(scene, n->parent))
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_update: out of memory");
        if (status != SR_OK) {
            // Keep the rest listed so that the next update retries it.
            uint32_t kept = 0;
            for (uint32_t j = i; j < scene->pending_count; j++)
                if (scene->nodes[scene->pending[j]].flags & NODE_LIVE) {
                    scene->nodes[scene->pending[j]].flags |= NODE_PENDING;
                    scene->pending[kept++] = scene->pending[j];
                }
            scene->pending_count = kept;
            stats->ms = now_ms() - start;
            return status;
        }
    }
    scene->pending_count = 0;
    // 2. Subtree boxes of the ancestors, deepest first so that children are done before parents.
    // Keys are (UINT32_MAX - depth) << 32 | index: ascending order is deepest first.
    if (scene->bounds_pending_count > 1)
        qsort(scene->bounds_pending, scene->bounds_pending_count, sizeof *scene->bounds_pending, compare_keys);
    for (uint32_t i = 0; i < scene->bounds_pending_count; i++) {
        scene_node *n = &scene->nodes[(uint32_t)scene->bounds_pending[i]];
        if (!(n->flags & NODE_LIVE) || !(n->flags & NODE_DIRTY_BOUNDS))
            continue;
        sr_aabb box = n->world_aabb;
        for (uint32_t c = n->first_child; c != SCENE_NONE; c = scene->nodes[c].next_sibling)
            box = sr_aabb_merge(box, scene->nodes[c].subtree_aabb);
        n->subtree_aabb = box;
        n->flags &= ~(uint32_t)NODE_DIRTY_BOUNDS;
        stats->bounds_updated++;
    }
    scene->bounds_pending_count = 0;
    scene->dirty = false;
    stats->ms = now_ms() - start;
    return SR_OK;
}
