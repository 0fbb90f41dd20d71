/* src/scene/scene_internal.h — the private layout of sr_scene, shared by scene.c (storage,
 * meshes, materials, nodes), scene_update.c (world transforms and boxes, the instance tree),
 * scene_render.c (culling, drawing, frames) and scene_pick.c. Never installed. */
#ifndef SR_SCENE_INTERNAL_H
#define SR_SCENE_INTERNAL_H

#include <softrast/bvh.h>
#include <softrast/bvh_dynamic.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>

/// "No node" in the index links of the hierarchy.
#define SCENE_NONE UINT32_MAX

/// Node flags.
enum {
    NODE_LIVE = 1u << 0,
    NODE_HIDDEN = 1u << 1,
    NODE_DIRTY_TRANSFORM = 1u << 2, ///< local transform (or parent) changed: subtree to recompute
    NODE_DIRTY_BOUNDS = 1u << 3,    ///< a descendant changed: subtree box to recompute
    NODE_PENDING = 1u << 4,         ///< listed in scene->pending
};

/// A range of a mesh's triangles drawn with one material (one draw call).
typedef struct scene_part {
    uint32_t first_triangle, triangle_count;
    sr_material_id material; ///< 0: the default material
} scene_part;

typedef struct scene_mesh {
    char *name;
    sr_mesh *mesh;
    sr_bvh *bvh;
    sr_shader_vertex *vertices;
    sr_aabb bounds; ///< mesh space
    scene_part *parts;
    uint32_t part_count;
} scene_mesh;

typedef struct scene_material {
    char *name;
    sr_material_desc desc; ///< resolved: name points at `name`, base colour filled in
    bool blended;          ///< opacity below 1
} scene_material;

typedef struct scene_node {
    char *name;
    uint32_t generation;
    uint32_t flags;
    uint32_t parent, first_child, last_child, next_sibling, previous_sibling;
    int depth;
    sr_transform transform;
    sr_mat4 world;
    sr_mat4 world_inverse; ///< for picking: world rays into mesh space
    sr_mat4 normal_matrix; ///< inverse transpose of world's 3x3 (picking normals)
    sr_aabb world_aabb, subtree_aabb;
    uint32_t mesh;          ///< sr_mesh_id.id
    uint32_t material;      ///< sr_material_id.id
    sr_dynamic_proxy proxy; ///< SR_DYNAMIC_PROXY_NULL until the first update (and without a mesh)
} scene_node;

struct sr_scene {
    char *name;
    sr_camera camera;
    sr_light light;
    uint32_t background;

    scene_mesh *meshes;
    uint32_t mesh_count, mesh_capacity;
    sr_texture **textures;
    char **texture_names;
    uint32_t texture_count, texture_capacity;
    scene_material *materials;
    uint32_t material_count, material_capacity;
    scene_material default_material;

    scene_node *nodes;
    uint32_t slot_count, slot_capacity, live_count;
    uint32_t first_root, last_root;
    uint32_t free_head; ///< free slots linked through next_sibling

    /// Nodes whose transform changed since the last update (NODE_PENDING marks membership).
    uint32_t *pending;
    uint32_t pending_count, pending_capacity;
    /// Nodes whose subtree box must be recomputed (NODE_DIRTY_BOUNDS marks membership), as keys
    /// (UINT32_MAX - depth) << 32 | index, so that sorting them puts children before parents.
    uint64_t *bounds_pending;
    uint32_t bounds_pending_count, bounds_pending_capacity;
    bool dirty; ///< anything waits for sr_scene_update

    sr_dynamic_tree *instances;
    float instance_margin;
    double bvh_build_ms;
    sr_progress_fn progress; ///< sr_scene_set_progress
    void *progress_user;
};

/// sr_scene_create_from_mesh with the BVH build reported to `progress` (sr_scene_set_progress).
sr_status sr_scene_create_from_mesh_reporting(sr_mesh *mesh, const char *name, sr_progress_fn progress, void *user,
                                              sr_scene **out, sr_error *err);

/// Grows `*array` (elements of `size` bytes) to hold at least `needed`, doubling. False when out
/// of memory (the array is unchanged).
bool sr_scene_grow(void **array, uint32_t *capacity, uint32_t needed, size_t size);

/// A copy of `text` through the allocator hook (NULL when out of memory); free with sr_free.
char *sr_scene_copy_string(const char *text);

/// The live node of a handle, or NULL.
scene_node *sr_scene_node_of(const sr_scene *scene, sr_node_id node);

/// Marks a node and its ancestors for a subtree-box update (scene.c). False when out of memory.
bool sr_scene_mark_bounds(sr_scene *scene, uint32_t index);

/// The material of a mesh part seen through a node (node override, part's own, or default).
const scene_material *sr_scene_resolve_material(const sr_scene *scene, const scene_node *node, const scene_part *part);

#endif
