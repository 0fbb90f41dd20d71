/* src/scene/scene_node.c — the node hierarchy of a scene (softrast/scene.h): local transforms
 * (T R S, Euler angles), nodes with generation-checked handles, their links (parent, children,
 * siblings) and the marks that tell sr_scene_update (scene_update.c) what changed. Knows nothing
 * of drawing, picking or files. */
#include "scene_internal.h"

#include <string.h>

/* ---- transforms ---- */

sr_transform sr_transform_identity(void)
{
    return (sr_transform){{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}, {1.0f, 1.0f, 1.0f}};
}

/* The transform with its zero defaults applied. */
static sr_transform resolve_transform(sr_transform t)
{
    if (t.rotation.x == 0.0f && t.rotation.y == 0.0f && t.rotation.z == 0.0f && t.rotation.w == 0.0f)
        t.rotation = sr_quat_identity();
    if (t.scale.x == 0.0f && t.scale.y == 0.0f && t.scale.z == 0.0f)
        t.scale = sr_vec3_splat(1.0f);
    return t;
}

sr_mat4 sr_transform_matrix(sr_transform transform)
{
    sr_transform t = resolve_transform(transform);
    sr_mat4 m = sr_quat_to_mat4(sr_quat_normalize(t.rotation));
    for (int column = 0; column < 3; column++) {
        float s = column == 0 ? t.scale.x : column == 1 ? t.scale.y : t.scale.z;
        for (int row = 0; row < 3; row++)
            m.m[column * 4 + row] *= s;
    }
    m.m[12] = t.translation.x;
    m.m[13] = t.translation.y;
    m.m[14] = t.translation.z;
    return m;
}

sr_quat sr_quat_from_euler_degrees(sr_vec3 degrees)
{
    const float to_radians = SR_PI / 180.0f;
    sr_quat x = sr_quat_from_axis_angle(sr_vec3_make(1.0f, 0.0f, 0.0f), degrees.x * to_radians);
    sr_quat y = sr_quat_from_axis_angle(sr_vec3_make(0.0f, 1.0f, 0.0f), degrees.y * to_radians);
    sr_quat z = sr_quat_from_axis_angle(sr_vec3_make(0.0f, 0.0f, 1.0f), degrees.z * to_radians);
    return sr_quat_normalize(sr_quat_mul(z, sr_quat_mul(y, x)));
}

static sr_status check_transform(const char *label, sr_transform t, sr_error *err)
{
    t = resolve_transform(t);
    if (!sr_vec3_is_finite(t.translation))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s': translation is not finite", label);
    sr_quat q = t.rotation;
    float q_length = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(q_length > 0.0f) || !isfinite(q_length))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s': rotation (%g, %g, %g, %g) is not a rotation",
                            label, (double)q.x, (double)q.y, (double)q.z, (double)q.w);
    if (!sr_vec3_is_finite(t.scale) || t.scale.x == 0.0f || t.scale.y == 0.0f || t.scale.z == 0.0f)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "node '%s': scale (%g, %g, %g) must be finite with no zero component", label,
                            (double)t.scale.x, (double)t.scale.y, (double)t.scale.z);
    return SR_OK;
}

/* ---- nodes ---- */

scene_node *sr_scene_node_of(const sr_scene *scene, sr_node_id node)
{
    if (!scene || node.generation == 0 || node.index >= scene->slot_count)
        return NULL;
    scene_node *n = &scene->nodes[node.index];
    return (n->flags & NODE_LIVE) && n->generation == node.generation ? n : NULL;
}

bool sr_scene_node_is_valid(const sr_scene *scene, sr_node_id node)
{
    return sr_scene_node_of(scene, node) != NULL;
}

static sr_node_id handle_of(const sr_scene *scene, uint32_t index)
{
    return (sr_node_id){index, scene->nodes[index].generation};
}

static sr_status stale(sr_error *err, const char *function, sr_node_id node)
{
    return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node handle (%u, %u) is stale or invalid", function,
                        node.index, node.generation);
}

/* Lists a node for the next update (once). False when out of memory. */
bool sr_scene_mark_moved(sr_scene *scene, uint32_t index)
{
    scene_node *n = &scene->nodes[index];
    scene->dirty = true;
    n->flags |= NODE_DIRTY_TRANSFORM;
    if (n->flags & NODE_PENDING)
        return true;
    if (!sr_scene_grow((void **)&scene->pending, &scene->pending_capacity, scene->pending_count + 1,
                       sizeof *scene->pending))
        return false;
    n->flags |= NODE_PENDING;
    scene->pending[scene->pending_count++] = index;
    return true;
}

sr_status sr_scene_add_node(sr_scene *scene, const sr_node_desc *desc, sr_node_id *out, sr_error *err)
{
    if (out)
        *out = SR_NODE_NULL;
    if (!scene || !desc)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_add_node: %s is NULL", scene ? "desc" : "scene");
    const char *label = desc->name ? desc->name : "";
    scene_node *parent = NULL;
    if (desc->parent.index != 0 || desc->parent.generation != 0) {
        parent = sr_scene_node_of(scene, desc->parent);
        if (!parent)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s': parent handle (%u, %u) is stale or invalid",
                                label, desc->parent.index, desc->parent.generation);
    }
    if (desc->mesh.id > scene->mesh_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s': mesh id %u does not exist", label,
                            desc->mesh.id);
    if (desc->mesh.id && scene->meshes[desc->mesh.id - 1].shape_mesh)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "node '%s': mesh id %u is a mesh the scene made to draw a shape (give the node that "
                            "shape instead)",
                            label, desc->mesh.id);
    if (desc->material.id > scene->material_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s': material id %u does not exist", label,
                            desc->material.id);
    sr_status status = check_transform(label, desc->transform, err);
    if (status != SR_OK)
        return status;
    uint32_t parent_index = parent ? desc->parent.index : SCENE_NONE;

    char *name = sr_scene_copy_string(label);
    // Room in the pending list first, so that nothing below can fail after the node is linked.
    bool room = name && sr_scene_grow((void **)&scene->pending, &scene->pending_capacity, scene->pending_count + 1,
                                      sizeof *scene->pending);
    uint32_t index = scene->free_head;
    if (room && index == SCENE_NONE) {
        room = scene->slot_count < UINT32_MAX - 1 && sr_scene_grow((void **)&scene->nodes, &scene->slot_capacity,
                                                                   scene->slot_count + 1, sizeof *scene->nodes);
        if (room) {
            index = scene->slot_count++;
            scene->nodes[index] = (scene_node){.generation = 0};
        }
    } else if (room) {
        scene->free_head = scene->nodes[index].next_sibling;
    }
    if (!room) {
        sr_free(name);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_add_node: out of memory for node '%s'", label);
    }
    if (parent)
        parent = &scene->nodes[parent_index]; // the node array may have moved
    scene_node *n = &scene->nodes[index];
    uint32_t generation = n->generation + 1;
    if (generation == 0)
        generation = 1; // wrapped after 2^32 reuses of this slot
    *n = (scene_node){
        .name = name,
        .generation = generation,
        .flags = NODE_LIVE | (desc->hidden ? NODE_HIDDEN : 0u),
        .parent = parent_index,
        .first_child = SCENE_NONE,
        .last_child = SCENE_NONE,
        .next_sibling = SCENE_NONE,
        .previous_sibling = SCENE_NONE,
        .depth = parent ? parent->depth + 1 : 0,
        .transform = resolve_transform(desc->transform),
        .world = sr_mat4_identity(),
        .world_inverse = sr_mat4_identity(),
        .normal_matrix = sr_mat4_identity(),
        .world_aabb = sr_aabb_empty(),
        .subtree_aabb = sr_aabb_empty(),
        .mesh = desc->mesh.id,
        .own_mesh = desc->mesh.id,
        .material = desc->material.id,
        .proxy = SR_DYNAMIC_PROXY_NULL,
        .world_pose = sr_pose_identity(),
    };
    // Link as the last child (or the last top-level node).
    uint32_t *first = parent ? &parent->first_child : &scene->first_root;
    uint32_t *last = parent ? &parent->last_child : &scene->last_root;
    n->previous_sibling = *last;
    if (*last != SCENE_NONE)
        scene->nodes[*last].next_sibling = index;
    else
        *first = index;
    *last = index;
    scene->live_count++;
    sr_scene_mark_moved(scene, index); // cannot fail: room was made above
    if (desc->shape) {
        sr_status shaped = sr_scene_attach_shape(scene, index, desc->shape, err);
        if (shaped != SR_OK) {
            sr_scene_remove_node(scene, handle_of(scene, index), NULL);
            return shaped;
        }
    }
    if (out)
        *out = handle_of(scene, index);
    return SR_OK;
}

/* Stops at a node already marked: its ancestors are then marked too. */
bool sr_scene_mark_bounds(sr_scene *scene, uint32_t index)
{
    for (; index != SCENE_NONE; index = scene->nodes[index].parent) {
        scene_node *n = &scene->nodes[index];
        if (n->flags & NODE_DIRTY_BOUNDS)
            return true;
        if (!sr_scene_grow((void **)&scene->bounds_pending, &scene->bounds_pending_capacity,
                           scene->bounds_pending_count + 1, sizeof *scene->bounds_pending))
            return false;
        n->flags |= NODE_DIRTY_BOUNDS;
        scene->bounds_pending[scene->bounds_pending_count++] =
            (uint64_t)(UINT32_MAX - (uint32_t)n->depth) << 32 | index;
        scene->dirty = true;
    }
    return true;
}

sr_status sr_scene_remove_node(sr_scene *scene, sr_node_id node, sr_error *err)
{
    scene_node *n = sr_scene_node_of(scene, node);
    if (!n)
        return stale(err, "sr_scene_remove_node", node);
    uint32_t index = node.index, parent = n->parent;
    // Room to mark the parent chain first, so that the removal itself cannot fail halfway.
    if (parent != SCENE_NONE &&
        !sr_scene_grow((void **)&scene->bounds_pending, &scene->bounds_pending_capacity,
                       scene->bounds_pending_count + (uint32_t)n->depth + 1, sizeof *scene->bounds_pending))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_remove_node: out of memory");
    for (uint32_t a = parent; a != SCENE_NONE; a = scene->nodes[a].parent)
        scene->nodes[a].shapes_below -= n->shapes_below;
    // Unlink from the parent's children (or the top level).
    uint32_t *first = parent != SCENE_NONE ? &scene->nodes[parent].first_child : &scene->first_root;
    uint32_t *last = parent != SCENE_NONE ? &scene->nodes[parent].last_child : &scene->last_root;
    if (n->previous_sibling != SCENE_NONE)
        scene->nodes[n->previous_sibling].next_sibling = n->next_sibling;
    else
        *first = n->next_sibling;
    if (n->next_sibling != SCENE_NONE)
        scene->nodes[n->next_sibling].previous_sibling = n->previous_sibling;
    else
        *last = n->previous_sibling;
    // Free the subtree, pre-order without a stack (the links of a node are read before it is
    // freed; freeing overwrites next_sibling with the free list).
    uint32_t current = index;
    while (current != SCENE_NONE) {
        scene_node *c = &scene->nodes[current];
        uint32_t next;
        if (c->first_child != SCENE_NONE) {
            next = c->first_child;
            c->first_child = SCENE_NONE; // visited: do not descend again when climbing back
        } else {
            // Leaf (or all children freed): free it, then go to its next sibling or back up.
            next = current == index ? SCENE_NONE : c->next_sibling;
            if (next == SCENE_NONE && current != index)
                next = c->parent;
            if (c->proxy.generation != 0)
                sr_dynamic_tree_remove(scene->instances, c->proxy, NULL);
            if (c->shape)
                sr_scene_free_node_shape(scene, current);
            sr_free(c->name);
            uint32_t generation = c->generation;
            *c = (scene_node){.generation = generation, .next_sibling = scene->free_head};
            scene->free_head = current;
            scene->live_count--;
            // Climbing back to a parent whose children are all freed: it is a leaf now.
        }
        current = next;
    }
    if (parent != SCENE_NONE)
        sr_scene_mark_bounds(scene, parent); // cannot fail: room was made above
    scene->dirty = true;
    return SR_OK;
}

sr_status sr_scene_set_transform(sr_scene *scene, sr_node_id node, sr_transform transform, sr_error *err)
{
    scene_node *n = sr_scene_node_of(scene, node);
    if (!n)
        return stale(err, "sr_scene_set_transform", node);
    sr_status status = check_transform(n->name, transform, err);
    if (status != SR_OK)
        return status;
    sr_vec3 scale = resolve_transform(transform).scale;
    if (n->shapes_below > 0 && !sr_scene_scale_is_one(scale))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "node '%s': a scale of (%g, %g, %g), but %s has a shape and shapes take no scale", n->name,
                            (double)scale.x, (double)scale.y, (double)scale.z,
                            n->shape ? "the node" : "a node below it");
    if (!sr_scene_mark_moved(scene, node.index))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_set_transform: out of memory");
    n->transform = resolve_transform(transform);
    return SR_OK;
}

sr_status sr_scene_set_hidden(sr_scene *scene, sr_node_id node, bool hidden, sr_error *err)
{
    scene_node *n = sr_scene_node_of(scene, node);
    if (!n)
        return stale(err, "sr_scene_set_hidden", node);
    n->flags = hidden ? n->flags | NODE_HIDDEN : n->flags & ~(uint32_t)NODE_HIDDEN;
    return SR_OK;
}

sr_status sr_scene_set_node_material(sr_scene *scene, sr_node_id node, sr_material_id material, sr_error *err)
{
    scene_node *n = sr_scene_node_of(scene, node);
    if (!n)
        return stale(err, "sr_scene_set_node_material", node);
    if (material.id > scene->material_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s': material id %u does not exist", n->name,
                            material.id);
    n->material = material.id;
    return SR_OK;
}

sr_status sr_scene_node(const sr_scene *scene, sr_node_id node, sr_node_info *out, sr_error *err)
{
    const scene_node *n = sr_scene_node_of(scene, node);
    if (!n)
        return stale(err, "sr_scene_node", node);
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_node: out is NULL");
    *out = (sr_node_info){
        .name = n->name,
        .parent = n->parent == SCENE_NONE ? SR_NODE_NULL : handle_of(scene, n->parent),
        .transform = n->transform,
        .world = n->world,
        .world_aabb = n->world_aabb,
        .subtree_aabb = n->subtree_aabb,
        .mesh = {n->mesh},
        .material = {n->material},
        .hidden = (n->flags & NODE_HIDDEN) != 0,
        .has_shape = n->shape != 0,
        .shape_version = n->shape_version,
        .depth = n->depth,
    };
    return SR_OK;
}

uint32_t sr_scene_node_slots(const sr_scene *scene)
{
    return scene ? scene->slot_count : 0;
}

sr_node_id sr_scene_node_at(const sr_scene *scene, uint32_t index)
{
    if (!scene || index >= scene->slot_count || !(scene->nodes[index].flags & NODE_LIVE))
        return SR_NODE_NULL;
    return handle_of(scene, index);
}

uint32_t sr_scene_node_count(const sr_scene *scene)
{
    return scene ? scene->live_count : 0;
}

sr_node_id sr_scene_find_node(const sr_scene *scene, const char *name)
{
    for (uint32_t i = 0; scene && name && i < scene->slot_count; i++)
        if ((scene->nodes[i].flags & NODE_LIVE) && strcmp(scene->nodes[i].name, name) == 0)
            return handle_of(scene, i);
    return SR_NODE_NULL;
}

sr_node_id sr_scene_first_child(const sr_scene *scene, sr_node_id node)
{
    if (!scene)
        return SR_NODE_NULL;
    uint32_t child;
    if (node.index == 0 && node.generation == 0) {
        child = scene->first_root;
    } else {
        const scene_node *n = sr_scene_node_of(scene, node);
        child = n ? n->first_child : SCENE_NONE;
    }
    return child == SCENE_NONE ? SR_NODE_NULL : handle_of(scene, child);
}

sr_node_id sr_scene_next_sibling(const sr_scene *scene, sr_node_id node)
{
    const scene_node *n = sr_scene_node_of(scene, node);
    return !n || n->next_sibling == SCENE_NONE ? SR_NODE_NULL : handle_of(scene, n->next_sibling);
}
