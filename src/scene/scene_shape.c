/* src/scene/scene_shape.c — collision shapes on scene nodes (softrast/scene.h:
 * sr_scene_set_node_shape and the readers): the checks (a shape takes no scale, its pose is its
 * node's), the hulls a scene builds (of given points, of a mesh's vertices), the shapes' world
 * poses after each update, and the meshes that draw them: made by shape_mesh.c, shared by the
 * nodes whose shapes are equal (a hash table keyed by the shape), and remade in place for another
 * shape once no node draws them (so editing shapes does not grow the scene). The collision pass
 * over these shapes is scene_collide.c. Knows nothing of drawing or files. */
#include "scene_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- the table of shape meshes ---- */

#define TABLE_EMPTY 0u
#define TABLE_DELETED UINT32_MAX

/* The fields of `shape` its type reads, with the others zero and -0 made +0, at the identity pose:
 * equal shapes give equal keys, bit for bit. */
static sr_shape shape_key(const sr_shape *shape)
{
    sr_shape key;
    memset(&key, 0, sizeof key);
    key.type = shape->type;
    key.pose.rotation = sr_dquat_identity();
    key.rounding = shape->rounding + 0.0;
    switch (shape->type) {
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
        for (int k = 0; k < (shape->type == SR_SHAPE_SEGMENT ? 2 : 3); k++)
            key.points[k] = sr_dvec3_make(shape->points[k].x + 0.0, shape->points[k].y + 0.0, shape->points[k].z + 0.0);
        break;
    case SR_SHAPE_SPHERE:
        key.radius = shape->radius + 0.0;
        break;
    case SR_SHAPE_BOX:
        key.half_extents =
            sr_dvec3_make(shape->half_extents.x + 0.0, shape->half_extents.y + 0.0, shape->half_extents.z + 0.0);
        break;
    case SR_SHAPE_CAPSULE:
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        key.radius = shape->radius + 0.0;
        key.half_height = shape->half_height + 0.0;
        break;
    case SR_SHAPE_HULL:
        key.hull = shape->hull;
        break;
    default:
        break;
    }
    return key;
}

static bool same_key(const sr_shape *a, const sr_shape *b)
{
    if (a->type != b->type || a->rounding != b->rounding || a->radius != b->radius ||
        a->half_height != b->half_height || a->hull != b->hull)
        return false;
    const double x[12] = {a->half_extents.x, a->half_extents.y, a->half_extents.z, a->points[0].x, a->points[0].y,
                          a->points[0].z,    a->points[1].x,    a->points[1].y,    a->points[1].z, a->points[2].x,
                          a->points[2].y,    a->points[2].z};
    const double y[12] = {b->half_extents.x, b->half_extents.y, b->half_extents.z, b->points[0].x, b->points[0].y,
                          b->points[0].z,    b->points[1].x,    b->points[1].y,    b->points[1].z, b->points[2].x,
                          b->points[2].y,    b->points[2].z};
    for (int k = 0; k < 12; k++)
        if (x[k] != y[k])
            return false;
    return true;
}

/* FNV-1a over the key's values (never its padding). */
static uint64_t hash_key(const sr_shape *key)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const double values[16] = {(double)key->type,  key->rounding,    key->radius,      key->half_height,
                               key->half_extents.x, key->half_extents.y, key->half_extents.z, key->points[0].x,
                               key->points[0].y,   key->points[0].z, key->points[1].x, key->points[1].y,
                               key->points[1].z,   key->points[2].x, key->points[2].y, key->points[2].z};
    for (int k = 0; k < 16; k++) {
        uint64_t bits;
        memcpy(&bits, &values[k], sizeof bits);
        for (int b = 0; b < 8; b++) {
            h ^= (bits >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ull;
        }
    }
    uintptr_t hull = (uintptr_t)key->hull;
    for (int b = 0; b < (int)sizeof hull; b++) {
        h ^= (hull >> (8 * b)) & 0xffu;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The table's slot holding mesh `id` for `key`, or where it would go (the first free slot met). */
static uint32_t table_find(const sr_scene *scene, const sr_shape *key, uint32_t *free_slot)
{
    uint32_t mask = scene->shape_mesh_table_capacity - 1, slot = (uint32_t)hash_key(key) & mask;
    *free_slot = UINT32_MAX;
    for (uint32_t probe = 0; probe <= mask; probe++, slot = (slot + 1) & mask) {
        uint32_t id = scene->shape_mesh_table[slot];
        if (id == TABLE_EMPTY) {
            if (*free_slot == UINT32_MAX)
                *free_slot = slot;
            return UINT32_MAX;
        }
        if (id == TABLE_DELETED) {
            if (*free_slot == UINT32_MAX)
                *free_slot = slot;
            continue;
        }
        if (same_key(&scene->meshes[id - 1].shape_key, key))
            return slot;
    }
    return UINT32_MAX;
}

/* Room for one more entry: the table stays at most half full (deleted slots counted). */
static bool table_reserve(sr_scene *scene)
{
    if (scene->shape_mesh_table_capacity && 2 * (scene->shape_mesh_table_used + 1) <= scene->shape_mesh_table_capacity)
        return true;
    uint32_t capacity = scene->shape_mesh_table_capacity ? scene->shape_mesh_table_capacity : 64;
    while (2 * (scene->shape_mesh_count + 1) > capacity / 2)
        capacity *= 2;
    uint32_t *table = sr_calloc(capacity, sizeof *table);
    if (!table)
        return false;
    uint32_t *old = scene->shape_mesh_table, old_capacity = scene->shape_mesh_table_capacity;
    scene->shape_mesh_table = table;
    scene->shape_mesh_table_capacity = capacity;
    scene->shape_mesh_table_used = 0;
    for (uint32_t i = 0; i < old_capacity; i++)
        if (old[i] != TABLE_EMPTY && old[i] != TABLE_DELETED) {
            uint32_t free_slot;
            table_find(scene, &scene->meshes[old[i] - 1].shape_key, &free_slot);
            table[free_slot] = old[i];
            scene->shape_mesh_table_used++;
        }
    sr_free(old);
    return true;
}

static void table_remove(sr_scene *scene, uint32_t id)
{
    uint32_t free_slot, slot = table_find(scene, &scene->meshes[id - 1].shape_key, &free_slot);
    if (slot != UINT32_MAX)
        scene->shape_mesh_table[slot] = TABLE_DELETED; // still counted as used until the next rehash
}

/* ---- shape meshes: shared, counted, remade when idle ---- */

/* A shape mesh no node draws (users 0), or 0. */
static uint32_t idle_shape_mesh(const sr_scene *scene)
{
    for (uint32_t i = scene->idle_count; i > 0; i--) {
        uint32_t id = scene->idle_meshes[i - 1];
        if (scene->meshes[id - 1].users == 0)
            return id;
    }
    return 0;
}

/* Drops from the idle list the meshes that have users again (they were taken from the cache). */
static void prune_idle(sr_scene *scene)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < scene->idle_count; i++) {
        uint32_t id = scene->idle_meshes[i];
        if (scene->meshes[id - 1].users == 0)
            scene->idle_meshes[kept++] = id;
        else
            scene->meshes[id - 1].idle = false;
    }
    scene->idle_count = kept;
}

/* The id of a mesh drawing `local` (found in the table or made), with one more user. */
static sr_status acquire_shape_mesh(sr_scene *scene, const sr_shape *local, const char *node_name, uint32_t *out,
                                    sr_error *err)
{
    sr_shape key = shape_key(local);
    if (!table_reserve(scene))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "node '%s': out of memory for its shape's mesh", node_name);
    uint32_t free_slot, slot = table_find(scene, &key, &free_slot);
    if (slot != UINT32_MAX) {
        *out = scene->shape_mesh_table[slot];
        scene->meshes[*out - 1].users++;
        return SR_OK;
    }
    prune_idle(scene);
    uint32_t reuse = idle_shape_mesh(scene);
    if (!reuse && (scene->mesh_count == UINT32_MAX - 1 || !sr_scene_grow((void **)&scene->meshes,
                                                                        &scene->mesh_capacity, scene->mesh_count + 1,
                                                                        sizeof *scene->meshes)))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "node '%s': out of memory for its shape's mesh", node_name);
    sr_mesh *mesh = NULL;
    sr_vec3 *wire = NULL;
    uint32_t wire_count = 0;
    sr_error cause = {0};
    sr_status status = sr_shape_tessellate(local, &mesh, &wire, &wire_count, &cause);
    if (status != SR_OK)
        return sr_error_set(err, status, "node '%s': shape: %s", node_name, cause.message);
    char name[192];
    snprintf(name, sizeof name, "%s shape of '%.150s'", sr_shape_type_name(local->type), node_name);
    scene_mesh m;
    status = sr_scene_build_mesh(scene, mesh, name, &m, err);
    if (status != SR_OK) {
        sr_mesh_destroy(mesh);
        sr_free(wire);
        return status;
    }
    m.shape_mesh = true;
    m.users = 1;
    m.shape_key = key;
    m.wire = wire;
    m.wire_count = wire_count;
    if (reuse) {
        table_remove(scene, reuse);
        scene->idle_count--; // prune_idle left only idle meshes; the reused one is the last
        sr_scene_release_mesh(&scene->meshes[reuse - 1]);
        scene->meshes[reuse - 1] = m;
        *out = reuse;
    } else {
        scene->meshes[scene->mesh_count++] = m;
        scene->shape_mesh_count++;
        *out = scene->mesh_count;
    }
    table_find(scene, &key, &free_slot);
    if (scene->shape_mesh_table[free_slot] == TABLE_EMPTY)
        scene->shape_mesh_table_used++;
    scene->shape_mesh_table[free_slot] = *out;
    return SR_OK;
}

/* One user fewer; at none the mesh waits in the table (and the idle list) for reuse. */
static void release_shape_mesh(sr_scene *scene, uint32_t id)
{
    if (id == 0)
        return;
    scene_mesh *m = &scene->meshes[id - 1];
    if (--m->users > 0 || m->idle)
        return;
    // The idle list holds at most every shape mesh: its room was made when the mesh was.
    if (sr_scene_grow((void **)&scene->idle_meshes, &scene->idle_capacity, scene->idle_count + 1,
                      sizeof *scene->idle_meshes)) {
        scene->idle_meshes[scene->idle_count++] = id;
        m->idle = true;
    } // out of memory: the mesh stays cached but is not remade for another shape
}

/* ---- hulls the scene builds ---- */

/* The hull of mesh `id`'s vertices (made once). */
static sr_status mesh_hull(sr_scene *scene, uint32_t id, const char *node_name, const sr_hull **out, sr_error *err)
{
    if (id == 0 || id > scene->mesh_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s': shape: hull_mesh %u does not exist", node_name,
                            id);
    scene_mesh *m = &scene->meshes[id - 1];
    if (m->shape_mesh)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "node '%s': shape: hull_mesh %u is a mesh the scene made to draw a shape", node_name, id);
    if (!m->hull) {
        if (m->mesh->vertex_count == 0)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                "node '%s': shape: mesh '%s' has no vertices (a hull needs at least one point)",
                                node_name, m->name);
        sr_dvec3 *points = sr_alloc_array(m->mesh->vertex_count, sizeof *points);
        if (!points)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "node '%s': out of memory for the hull of mesh '%s'",
                                node_name, m->name);
        for (size_t i = 0; i < m->mesh->vertex_count; i++)
            points[i] = sr_dvec3_from_vec3(m->mesh->positions[i]);
        sr_error cause = {0};
        sr_status status = sr_hull_create(points, m->mesh->vertex_count, &m->hull, &cause);
        sr_free(points);
        if (status != SR_OK)
            return sr_error_set(err, status, "node '%s': shape: the hull of mesh '%s': %s", node_name, m->name,
                                cause.message);
    }
    *out = m->hull;
    return SR_OK;
}

/* ---- checks ---- */

static bool pose_is_identity(sr_pose pose)
{
    sr_dquat q = pose.rotation;
    bool zero = q.x == 0.0 && q.y == 0.0 && q.z == 0.0 && (q.w == 0.0 || q.w == 1.0);
    return zero && pose.position.x == 0.0 && pose.position.y == 0.0 && pose.position.z == 0.0;
}

/* The node and its ancestors take no scale. */
static sr_status check_no_scale(const sr_scene *scene, uint32_t index, sr_error *err)
{
    const char *name = scene->nodes[index].name;
    for (uint32_t a = index; a != SCENE_NONE; a = scene->nodes[a].parent) {
        sr_vec3 s = scene->nodes[a].transform.scale;
        if (!sr_scene_scale_is_one(s)) {
            if (a == index)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                    "node '%s': a node with a shape takes no scale, but its transform has scale "
                                    "(%g, %g, %g)",
                                    name, (double)s.x, (double)s.y, (double)s.z);
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                "node '%s': a node with a shape takes no scale, but its ancestor '%s' has scale (%g, "
                                "%g, %g)",
                                name, scene->nodes[a].name, (double)s.x, (double)s.y, (double)s.z);
        }
    }
    return SR_OK;
}

/* The local shape of `desc` (pose identity) with its hull found or built (*owned: a hull to free
 * with the shape). */
static sr_status make_local(sr_scene *scene, const char *name, const sr_node_shape_desc *desc, sr_shape *local,
                            sr_hull **owned, sr_error *err)
{
    *owned = NULL;
    *local = desc->shape;
    if (!pose_is_identity(desc->shape.pose))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "node '%s': shape: its pose must be the identity (the node's transform places it)", name);
    local->pose = sr_pose_identity();
    bool is_hull = desc->shape.type == SR_SHAPE_HULL;
    int sources = (desc->shape.hull != NULL) + (desc->hull_points != NULL || desc->hull_point_count != 0) +
                  (desc->hull_mesh.id != 0);
    if (!is_hull && sources)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "node '%s': shape: hull, hull_points and hull_mesh are for hulls, not a %s", name,
                            sr_shape_type_name(desc->shape.type));
    if (is_hull && sources != 1)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "node '%s': shape: a hull needs one of hull, hull_points and hull_mesh (%d given)", name,
                            sources);
    if (is_hull && (desc->hull_points || desc->hull_point_count)) {
        if (!desc->hull_points || desc->hull_point_count == 0)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                "node '%s': shape: hull_points %s (a hull needs at least one point)", name,
                                desc->hull_points ? "has a count of 0" : "is NULL");
        sr_error cause = {0};
        sr_status status = sr_hull_create(desc->hull_points, desc->hull_point_count, owned, &cause);
        if (status != SR_OK)
            return sr_error_set(err, status, "node '%s': shape: hull_points: %s", name, cause.message);
        local->hull = *owned;
    } else if (is_hull && desc->hull_mesh.id) {
        sr_status status = mesh_hull(scene, desc->hull_mesh.id, name, &local->hull, err);
        if (status != SR_OK)
            return status;
    }
    sr_error cause = {0};
    if (sr_shape_validate(local, &cause) != SR_OK) {
        sr_hull_destroy(*owned);
        *owned = NULL;
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s': shape: %s", name, cause.message);
    }
    return SR_OK;
}

/* ---- attaching and releasing ---- */

/* Where the node's mesh, wire and flags come from, for its shape drawn as `draw` with `mesh`. */
static void set_drawing(scene_node *n, sr_shape_draw draw, uint32_t mesh)
{
    n->flags &= ~(uint32_t)NODE_WIRE_ONLY;
    n->wire_mesh = 0;
    n->mesh = n->own_mesh;
    if (draw == SR_SHAPE_DRAW_WIRE)
        n->wire_mesh = mesh;
    if (n->own_mesh == 0 && (draw == SR_SHAPE_DRAW_SOLID || draw == SR_SHAPE_DRAW_WIRE))
        n->mesh = mesh;
    if (n->own_mesh == 0 && draw == SR_SHAPE_DRAW_WIRE)
        n->flags |= NODE_WIRE_ONLY;
}

/* Marks the shape for the next pass (its world box and tree proxy). */
static bool list_dirty(sr_scene *scene, scene_shape *shape)
{
    if (shape->dirty)
        return true;
    if (!sr_scene_grow((void **)&scene->shape_dirty, &scene->shape_dirty_capacity, scene->shape_dirty_count + 1,
                       sizeof *scene->shape_dirty))
        return false;
    scene->shape_dirty[scene->shape_dirty_count++] = shape->node;
    shape->dirty = true;
    return true;
}

/* Takes the shape out of the dense array (the last moves into its place) and the tree. */
static void remove_shape(sr_scene *scene, uint32_t index)
{
    scene_node *n = &scene->nodes[index];
    uint32_t at = n->shape - 1;
    scene_shape *shape = &scene->shapes[at];
    release_shape_mesh(scene, shape->mesh);
    sr_hull_destroy(shape->owned_hull);
    if (shape->proxy.generation)
        sr_dynamic_tree_remove(scene->shape_tree, shape->proxy, NULL);
    // A dirty entry for this slot is skipped by the pass (the node has no shape, or another one).
    uint32_t last = scene->shape_count - 1;
    if (at != last) {
        scene->shapes[at] = scene->shapes[last];
        scene->nodes[scene->shapes[at].node].shape = at + 1;
    }
    scene->shape_count--;
    n->shape = 0;
    set_drawing(n, SR_SHAPE_DRAW_NONE, 0);
}

void sr_scene_free_node_shape(sr_scene *scene, uint32_t index)
{
    remove_shape(scene, index);
}

sr_status sr_scene_attach_shape(sr_scene *scene, uint32_t index, const sr_node_shape_desc *desc, sr_error *err)
{
    scene_node *n = &scene->nodes[index];
    const char *name = n->name;
    if (!desc) {
        if (!n->shape)
            return SR_OK;
        if (!sr_scene_mark_moved(scene, index)) // its drawing changes
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "node '%s': out of memory", name);
        remove_shape(scene, index);
        for (uint32_t a = index; a != SCENE_NONE; a = scene->nodes[a].parent)
            scene->nodes[a].shapes_below--;
        scene->nodes[index].shape_version = ++scene->shape_versions;
        return SR_OK;
    }
    if ((unsigned)desc->draw > SR_SHAPE_DRAW_NONE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s': shape: draw %d is not an sr_shape_draw", name,
                            (int)desc->draw);
    sr_shape_draw draw = desc->draw;
    if (draw == SR_SHAPE_DRAW_DEFAULT)
        draw = n->own_mesh ? SR_SHAPE_DRAW_NONE : SR_SHAPE_DRAW_SOLID;
    if (draw == SR_SHAPE_DRAW_SOLID && n->own_mesh)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "node '%s': shape: drawn solid, but the node draws a mesh of its own (draw the shape as "
                            "a wire over it, or not at all)",
                            name);
    sr_status status = check_no_scale(scene, index, err);
    if (status != SR_OK)
        return status;
    // Room first, so that nothing can fail once the shape is made.
    bool fresh = n->shape == 0;
    if ((fresh && !sr_scene_grow((void **)&scene->shapes, &scene->shape_capacity, scene->shape_count + 1,
                                 sizeof *scene->shapes)) ||
        !sr_scene_grow((void **)&scene->shape_dirty, &scene->shape_dirty_capacity, scene->shape_dirty_count + 1,
                       sizeof *scene->shape_dirty) ||
        !sr_scene_mark_moved(scene, index))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "node '%s': out of memory for its shape", name);
    sr_shape local;
    sr_hull *owned = NULL;
    if ((status = make_local(scene, name, desc, &local, &owned, err)) != SR_OK)
        return status;
    uint32_t mesh = 0;
    if (draw != SR_SHAPE_DRAW_NONE && (status = acquire_shape_mesh(scene, &local, name, &mesh, err)) != SR_OK) {
        sr_hull_destroy(owned);
        return status;
    }
    n = &scene->nodes[index];
    scene_shape *shape;
    if (fresh) {
        shape = &scene->shapes[scene->shape_count++];
        *shape = (scene_shape){.node = index, .proxy = SR_DYNAMIC_PROXY_NULL};
        n->shape = scene->shape_count;
        for (uint32_t a = index; a != SCENE_NONE; a = scene->nodes[a].parent)
            scene->nodes[a].shapes_below++;
    } else {
        shape = &scene->shapes[n->shape - 1];
        release_shape_mesh(scene, shape->mesh);
        sr_hull_destroy(shape->owned_hull);
    }
    shape->local = local;
    shape->reshaped = true; // the collision pass's travel bounds start again
    shape->owned_hull = owned;
    shape->draw = draw;
    shape->mesh = mesh;
    shape->world = local;
    shape->world.pose = n->world_pose;
    list_dirty(scene, shape); // cannot fail: room was made above
    set_drawing(n, draw, mesh);
    n->shape_version = ++scene->shape_versions;
    return SR_OK;
}

bool sr_scene_shape_moved(sr_scene *scene, uint32_t index)
{
    scene_shape *shape = &scene->shapes[scene->nodes[index].shape - 1];
    shape->world.pose = scene->nodes[index].world_pose;
    return list_dirty(scene, shape);
}

void sr_scene_destroy_shapes(sr_scene *scene)
{
    for (uint32_t i = 0; i < scene->shape_count; i++)
        sr_hull_destroy(scene->shapes[i].owned_hull);
    sr_free(scene->shapes);
    sr_free(scene->shape_mesh_table);
    sr_free(scene->idle_meshes);
    sr_free(scene->shape_dirty);
    sr_free(scene->pairs);
    sr_free(scene->pairs_scratch);
    sr_free(scene->new_pairs);
    sr_free(scene->candidates);
    sr_free(scene->broad);
    sr_free(scene->marks);
    sr_free(scene->answer_distances);
    sr_free(scene->answer_contacts);
    sr_free(scene->answer_bounds);
    sr_free(scene->free_answers);
    sr_free(scene->moved);
    sr_dynamic_tree_destroy(scene->shape_tree);
}

/* ---- the public API ---- */

static sr_status stale(sr_error *err, const char *function, sr_node_id node)
{
    return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: node handle (%u, %u) is stale or invalid", function,
                        node.index, node.generation);
}

sr_status sr_scene_set_node_shape(sr_scene *scene, sr_node_id node, const sr_node_shape_desc *desc, sr_error *err)
{
    if (!sr_scene_node_of(scene, node))
        return stale(err, "sr_scene_set_node_shape", node);
    return sr_scene_attach_shape(scene, node.index, desc, err);
}

sr_status sr_scene_node_shape(const sr_scene *scene, sr_node_id node, sr_node_shape *out, sr_error *err)
{
    const scene_node *n = sr_scene_node_of(scene, node);
    if (!n)
        return stale(err, "sr_scene_node_shape", node);
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_node_shape: out is NULL");
    if (!n->shape)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "node '%s' has no shape", n->name);
    const scene_shape *shape = &scene->shapes[n->shape - 1];
    *out = (sr_node_shape){.local = shape->local,
                           .world = shape->world,
                           .world_bounds = sr_shape_bounds(&shape->world),
                           .draw = shape->draw,
                           .mesh = {shape->mesh}};
    return SR_OK;
}

uint32_t sr_scene_shape_count(const sr_scene *scene)
{
    return scene ? scene->shape_count : 0;
}

sr_node_id sr_scene_shape_node(const sr_scene *scene, uint32_t i)
{
    if (!scene || i >= scene->shape_count)
        return SR_NODE_NULL;
    uint32_t slot = scene->shapes[i].node;
    return (sr_node_id){slot, scene->nodes[slot].generation};
}

const sr_dynamic_tree *sr_scene_shape_tree(const sr_scene *scene)
{
    return scene ? scene->shape_tree : NULL;
}
