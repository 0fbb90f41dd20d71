/* src/scene/scene_internal.h — the private layout of sr_scene, shared by scene.c (storage,
 * meshes, materials, nodes), scene_update.c (world transforms and boxes, the instance tree),
 * scene_render.c (culling, drawing, frames), scene_pick.c, scene_shape.c (collision shapes on
 * nodes and the meshes that draw them), scene_collide.c and scene_collide_narrow.c (the
 * collision pass). Never installed. */
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
    NODE_WIRE_ONLY = 1u << 5,       ///< `mesh` is a shape's, picked and culled but drawn as its wire
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
    sr_hull *hull; ///< the hull of its vertices, made on the first hull_mesh request (NULL until then)
    /* Meshes the scene made to draw shapes (scene_shape.c): */
    bool shape_mesh;
    uint32_t users;      ///< nodes drawing it; at 0 it waits in the cache, and may be remade for another shape
    sr_shape shape_key;  ///< the local shape it was made from (identity pose)
    sr_vec3 *wire;       ///< the shape's edges: wire_count segments, 2 points each, mesh space
    uint32_t wire_count;
    bool idle;           ///< listed in scene->idle_meshes
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
    uint32_t mesh;          ///< sr_mesh_id.id drawn and picked: own_mesh, or its shape's mesh
    uint32_t own_mesh;      ///< the mesh it was given (sr_node_desc.mesh)
    uint32_t wire_mesh;     ///< a shape mesh whose wire is drawn (0: none)
    uint32_t material;      ///< sr_material_id.id
    sr_dynamic_proxy proxy; ///< SR_DYNAMIC_PROXY_NULL until the first update (and without a mesh)
    sr_pose world_pose;     ///< the rigid part of `world` in double (meaningful where no scale is)
    uint32_t shape;         ///< index + 1 in scene->shapes; 0: no shape
    uint32_t shapes_below;  ///< nodes with a shape in its subtree, itself included
    uint64_t shape_version; ///< sr_node_info.shape_version: 0 until a shape is set or removed
} scene_node;

/// A node's collision shape (scene_shape.c) and its broadphase state (scene_collide.c).
typedef struct scene_shape {
    /* What the collision pass reads of every shape at every pass (gather_broad) comes first. */
    uint32_t node;          ///< slot of its node
    uint32_t moved_pass;    ///< the pass (scene->collide_pass) that last brought its world box up to date
    uint32_t fat_pass;      ///< the pass that last changed its fat box (inserted it, or moved it out)
    sr_dynamic_proxy proxy; ///< in scene->shape_tree; SR_DYNAMIC_PROXY_NULL until the first pass
    bool dirty;             ///< world pose changed since the last pass (listed in shape_dirty)
    bool reshaped;          ///< given another geometry since the last pass (travel starts again)
    sr_shape local;         ///< identity pose
    sr_hull *owned_hull;    ///< made from hull_points (freed with the shape); NULL otherwise
    sr_shape world;         ///< at the node's world pose (sr_scene_update)
    sr_shape_draw draw;     ///< resolved
    uint32_t mesh;          ///< the shape mesh drawing it, 0: none
    sr_dbox bounds;         ///< exact world box at the last pass
    sr_aabb fat;            ///< its fat box in the tree
    /* How far the shape has travelled (scene_collide.c): a bound of how much any support value
     * of it has changed, summed over the passes since reset_pass, in which it was new or given
     * another geometry (sr_scene_attach_shape sets `reshaped`); synced_pose the world pose at the
     * last pass. */
    sr_pose synced_pose;
    double travel;
    uint32_t reset_pass;
    /// 1e-7 of the largest coordinate of bounds (scene_collide.c: touch_tolerance), found with it.
    double touch;
    /// `world` placed for the queries (sr_shape_place), made when the pass brings its box up to
    /// date (moved_pass).
    sr_placed_shape placed;
} scene_shape;

/// What the collision pass reads of a shape for the pairs with a moved shape, by node slot, copied
/// from scene->shapes at each pass (scene_collide.c): 128 bytes where a scene_shape is near 900, so
/// that the pairs' lookups stay in cache. What those pairs read comes first, in one 64-byte line;
/// the exact box after it. Valid only where `pass` is the current pass.
typedef struct scene_broad {
    uint32_t pass;       ///< the pass that copied it
    uint32_t shape;      ///< index in scene->shapes
    uint32_t reset_pass; ///< scene_shape.reset_pass
    uint32_t fat_pass;   ///< scene_shape.fat_pass
    sr_aabb fat;
    double touch;        ///< scene_shape.touch
    double travel;       ///< scene_shape.travel
    sr_dbox bounds;      ///< scene_shape.bounds
    uint8_t unused[24];  ///< to 128 bytes: a slot's entry is at slot * 128, a shift
} scene_broad;
_Static_assert(sizeof(scene_broad) == 128, "scene_broad: two 64-byte lines");

/// What every kept pair reads of each of its slots, by slot (scene_collide.c: gather_broad): 8
/// bytes, so that the whole array (80 KB for 10,000 slots) stays in cache while the pairs look
/// their second slot up at random.
typedef struct scene_mark {
    uint32_t moved_pass; ///< scene_shape.moved_pass; the pass itself for a slot without a live shape
    uint32_t generation; ///< of the node
} scene_mark;

/// A pair of shapes whose fat boxes overlapped when last seen (scene_collide.c): 16 bytes, what
/// every pass reads of every kept pair. What only a pair with a moved shape reads (its last normal
/// and distance bound) is with its answer (scene_bound).
typedef struct scene_pair {
    uint64_t key;    ///< slot_a << 32 | slot_b, slot_a < slot_b
    uint32_t answer; ///< 1 + index in answer_bounds, answer_distances and answer_contacts; 0: none
    /// The shapes' exact boxes came within the margin when last tested (the pair was a candidate,
    /// filter aside); still true while neither shape moves (scene_collide.c: find_candidates).
    bool within;
    /// `answer` was asked after both shapes' last move: the query would answer it again. Set by
    /// the query, cleared by every pass that syncs either shape (find_candidates).
    bool current;
    uint8_t state; ///< the sr_pair_state its last query gave (with `answer`)
    bool capped;   ///< its last query hit its iteration cap (with `answer`)
} scene_pair;
_Static_assert(sizeof(scene_pair) == 16, "scene_pair: 16 bytes");

/// What a pair with an answer keeps to prove itself apart without a query (scene_collide.c): a
/// pair without one has neither.
typedef struct scene_bound {
    sr_vec3 axis; ///< the normal of its last query (from a towards b); zero: none
    /// A lower bound of the distance measured in pass checked_pass (0: none), plus both shapes'
    /// travel then: the bound now is reach minus their travel now (scene_collide.c).
    uint32_t checked_pass;
    double reach;
} scene_bound;

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

    /* Collision shapes (scene_shape.c) and the collision pass (scene_collide.c). */
    scene_shape *shapes;
    uint32_t shape_count, shape_capacity;
    uint64_t shape_versions;    ///< the last shape_version given to a node (never given twice)
    uint32_t *shape_mesh_table; ///< open addressing: shape mesh ids by their shape (0 empty, UINT32_MAX deleted)
    uint32_t shape_mesh_table_capacity, shape_mesh_table_used;
    uint32_t shape_mesh_count;  ///< meshes made for shapes
    uint32_t *idle_meshes;      ///< shape meshes that had no user when last looked at (may have again)
    uint32_t idle_count, idle_capacity;
    uint32_t *shape_dirty;      ///< slots of shape nodes whose world pose changed since the last pass
    uint32_t shape_dirty_count, shape_dirty_capacity;
    sr_dynamic_tree *shape_tree; ///< made by the first pass
    float shape_margin;
    double collide_margin;       ///< the margin the tree's boxes were grown by (half of it on each side)
    scene_pair *pairs;           ///< pairs whose fat boxes overlap, sorted by key
    uint32_t pair_count, pair_capacity;
    scene_pair *pairs_scratch;   ///< the merge's other buffer
    uint32_t pairs_scratch_capacity;
    uint64_t *new_pairs;         ///< keys the moved proxies' queries found
    uint32_t new_pair_count, new_pair_capacity;
    uint32_t *moved;             ///< slots of shapes whose fat box changed in this pass
    uint32_t moved_count, moved_capacity;
    scene_broad *broad;          ///< by slot: the live shapes' broadphase data (scene_broad)
    scene_mark *marks;           ///< by slot: whether it moved, its generation (scene_mark)
    uint32_t broad_capacity;     ///< of broad and of marks
    uint32_t inserted_shapes;    ///< shapes the pass put in the tree (sync_shapes)
    uint32_t gathered_shapes;    ///< shapes in the tree at the last pass (gather_broad); UINT32_MAX: unknown
    uint32_t *candidates;        ///< indices in `pairs` of this pass's candidates
    uint32_t candidate_capacity;
    /// The pairs' last answers (scene_pair.answer), reported again while neither shape moves
    /// (scene_pair.current): the query's distance, and for a contact or near pair its sr_contact
    /// (node ids as asked). Split so that the reused pairs apart read 8 bytes at random, not 144.
    double *answer_distances;
    sr_contact *answer_contacts;
    scene_bound *answer_bounds; ///< the pairs' axes and distance bounds (scene_bound)
    uint32_t answer_count, answer_capacity;
    uint32_t *free_answers;      ///< indices in `answers` no pair uses; capacity: answer_capacity
    uint32_t free_answer_count;
    uint32_t capped_answers;     ///< answers pairs use whose query hit its iteration cap
    uint32_t collide_pass;       ///< passes run (the first is 1)
    int collide_max_iterations;  ///< the last pass's sr_collision_desc.max_iterations
    double bvh_build_ms;
    sr_progress_fn progress; ///< sr_scene_set_progress
    void *progress_user;
};

/// An sr_collision's result arrays (scene_collide.c), each of `capacity` entries.
struct sr_collision_storage {
    sr_collision_pair *pairs;
    sr_contact *contacts, *near;
    size_t capacity; ///< of each array
};

/// The narrowphase of sr_scene_collide over the pass's `candidate_count` candidates
/// (scene->candidates) into `result`, whose arrays have room for them (scene_collide_narrow.c).
void sr_scene_narrowphase(sr_scene *scene, const sr_collision_desc *desc, uint32_t candidate_count,
                          sr_collision *result, sr_collision_stats *stats);

/// Room for an answer for each of `unanswered` candidates without one (scene_collide_narrow.c).
bool sr_scene_reserve_answers(sr_scene *scene, uint32_t unanswered);

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

/// Lists a node for the next update (its transform, world box and proxy are recomputed). False
/// when out of memory.
bool sr_scene_mark_moved(sr_scene *scene, uint32_t index);

/// Builds what the scene keeps of a mesh (normals if missing, shader vertices, triangle BVH,
/// parts) into *out. The mesh is not freed on failure. (scene.c)
sr_status sr_scene_build_mesh(sr_scene *scene, sr_mesh *mesh, const char *name, scene_mesh *out, sr_error *err);
/// Frees what sr_scene_build_mesh made and the mesh (not the name's owner: frees `name` too).
void sr_scene_release_mesh(scene_mesh *m);

/* ---- shapes (scene_shape.c) ---- */

/// Shapes take no scale: a scale within 1e-6 of 1 on every axis counts as none.
static inline bool sr_scene_scale_is_one(sr_vec3 scale)
{
    return fabsf(scale.x - 1.0f) <= 1e-6f && fabsf(scale.y - 1.0f) <= 1e-6f && fabsf(scale.z - 1.0f) <= 1e-6f;
}

/// Gives node `index` the shape of `desc` (NULL: removes it), checking everything first.
sr_status sr_scene_attach_shape(sr_scene *scene, uint32_t index, const sr_node_shape_desc *desc, sr_error *err);
/// Releases a node's shape while its node is being freed (no checks, no marks).
void sr_scene_free_node_shape(sr_scene *scene, uint32_t index);
/// The node's world pose changed (sr_scene_update): its shape's world shape follows. False when
/// out of memory (listing it for the next pass).
bool sr_scene_shape_moved(sr_scene *scene, uint32_t index);
/// The tessellation of a shape (shape_mesh.c): the mesh and its wire (segments as point pairs,
/// *wire_count of them; free with sr_free).
sr_status sr_shape_tessellate(const sr_shape *shape, sr_mesh **mesh, sr_vec3 **wire, uint32_t *wire_count,
                              sr_error *err);
/// Frees the scene's shape storage (sr_scene_destroy).
void sr_scene_destroy_shapes(sr_scene *scene);

/// The material of a mesh part seen through a node (node override, part's own, or default).
const scene_material *sr_scene_resolve_material(const sr_scene *scene, const scene_node *node, const scene_part *part);

#endif
