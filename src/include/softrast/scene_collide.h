/* softrast/scene_collide.h — collision shapes on scene nodes (src/scene/scene_shape.c,
 * shape_mesh.c), the collision pass over them (scene_collide.c) and pairs files (pair_file.c,
 * shape_json.c). Included by softrast/scene.h; may be included alone. Knows nothing of SDL. */
#ifndef SOFTRAST_SCENE_COLLIDE_H
#define SOFTRAST_SCENE_COLLIDE_H

#include <softrast/collide.h>
#include <softrast/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Collision shapes on nodes (src/scene/scene_shape.c, shape_mesh.c) and the collision pass     */
/* over them (scene_collide.c)                                                                 */

/// How a node's shape is drawn.
typedef enum sr_shape_draw {
    /// SR_SHAPE_DRAW_SOLID for a node without a mesh of its own, SR_SHAPE_DRAW_NONE for one with
    /// a mesh (the mesh is drawn; the shape is its collision proxy).
    SR_SHAPE_DRAW_DEFAULT = 0,
    /// A mesh the scene makes from the shape (sr_mesh_create_shape), drawn with the node's
    /// material (back faces culled: the mesh is closed and wound outwards). Only for nodes without
    /// a mesh of their own.
    SR_SHAPE_DRAW_SOLID,
    /// The shape's edges as lines in the colour of the node's material (alone, or over the node's
    /// own mesh), depth-tested against the scene. Picking still hits the shape's surface, so a
    /// click inside the outline selects it.
    SR_SHAPE_DRAW_WIRE,
    SR_SHAPE_DRAW_NONE, ///< not drawn and not picked: a collision proxy only
} sr_shape_draw;

/// A collision shape for a node. The node's world transform places it: the shape's own pose
/// must be zero or the identity, and the node (and every ancestor) takes no scale.
typedef struct sr_node_shape_desc {
    /// Type and sizes (softrast/collide.h), in the node's frame. For a hull give one of: `hull`
    /// (the caller's, which must outlive the node's use of it), `hull_points` or `hull_mesh`.
    sr_shape shape;
    /// The hull of these points (copied; the scene builds and owns the hull; 1 or more finite
    /// points, duplicates and inside points allowed).
    const sr_dvec3 *hull_points;
    size_t hull_point_count;
    /// The hull of this scene mesh's vertices, in the mesh's frame, built once per mesh and
    /// shared by every node that asks for it: a convex proxy that wraps the mesh exactly.
    sr_mesh_id hull_mesh;
    sr_shape_draw draw;
} sr_node_shape_desc;

/// What the scene knows of a node's shape.
typedef struct sr_node_shape {
    sr_shape local; ///< in the node's frame (identity pose); a hull's `hull` valid while the node keeps it
    /// The shape at the node's world pose, computed in double from the local transforms (so exact
    /// to double rounding, not to the float world matrix) by the last sr_scene_update.
    sr_shape world;
    sr_dbox world_bounds; ///< sr_shape_bounds(&world)
    sr_shape_draw draw;   ///< resolved: never SR_SHAPE_DRAW_DEFAULT
    /// The mesh the scene made from the shape to draw it (solid, or whose edges the wire draws);
    /// 0 for SR_SHAPE_DRAW_NONE. Shared by the nodes whose shapes are equal; made anew when the
    /// shape changes.
    sr_mesh_id mesh;
} sr_node_shape;

/// Gives the node a collision shape (replacing any it had), or removes it (desc NULL). The
/// scene copies what it needs; with SR_SHAPE_DRAW_SOLID or _WIRE it makes (or shares) a mesh of
/// the shape, which the node then draws and picks through (sr_node_info.mesh, when the node has
/// no mesh of its own). The shape's world pose follows the node from the next sr_scene_update.
/// Errors (SR_ERROR_INVALID_ARGUMENT, the message naming the node and the field; the node keeps
/// its previous shape): a stale node; a shape that fails sr_shape_validate; a pose that is not
/// the identity; a node or an ancestor with a scale other than 1 ("node 'box': a node with a
/// shape takes no scale, but ancestor 'group' has scale (2, 2, 2)"); a hull with none or more
/// than one of hull, hull_points and hull_mesh, or points not finite; a bad mesh id;
/// SR_SHAPE_DRAW_SOLID on a node with a mesh of its own; an unknown draw value; out of memory.
sr_status sr_scene_set_node_shape(sr_scene *scene, sr_node_id node, const sr_node_shape_desc *desc, sr_error *err);
/// The node's shape. Errors: a stale node, a node without a shape, NULL out.
sr_status sr_scene_node_shape(const sr_scene *scene, sr_node_id node, sr_node_shape *out, sr_error *err);
/// Nodes with a shape, and the i-th of them (i < sr_scene_shape_count; SR_NODE_NULL past the
/// end): the order shapes were given in, except that removing one moves the last into its place.
uint32_t sr_scene_shape_count(const sr_scene *scene);
sr_node_id sr_scene_shape_node(const sr_scene *scene, uint32_t i);

/// A triangle mesh of `shape` in its own frame (its pose is not applied), closed and wound
/// counter-clockwise seen from outside, with normals (smooth across edges of less than 30
/// degrees, so curved sides shade smoothly and a box's faces stay flat) and no uvs: the convex
/// hull of the shape's core points (a box's corners, 24 points around a cylinder's rims, a
/// cone's base rim and apex, a hull's vertices) summed with a 16 x 8 polyhedral sphere of the
/// shape's radius and rounding, so that every vertex lies on the shape's surface. A flat shape
/// (a triangle, a box of zero height) is its two faces back to back. A shape without volume
/// or area (a point, a segment, and anything else of radius and rounding 0) gets the marker
/// it is seen by: a sphere of radius 0.05 around a point, a capsule of radius min(0.05, length
/// / 10) around a segment. Errors: a shape that fails sr_shape_validate, out of memory.
sr_status sr_mesh_create_shape(const sr_shape *shape, sr_mesh **out, sr_error *err);

/// The dynamic tree of the shapes (user data: the node's slot index): each shape's exact world
/// box (sr_shape_bounds) grown by half the last sr_scene_collide's margin, fattened by the
/// scene's shape_margin. Current after sr_scene_collide. Read-only, for queries and overlays.
const sr_dynamic_tree *sr_scene_shape_tree(const sr_scene *scene);

/// What the narrowphase found for a pair.
typedef enum sr_pair_state {
    SR_PAIR_APART = 0, ///< farther apart than the margin
    SR_PAIR_NEAR,      ///< apart, within the margin: closest points in `near`
    SR_PAIR_CONTACT,   ///< touching or penetrating: a contact in `contacts`
} sr_pair_state;

/// A candidate pair of the broadphase: two shapes whose exact world boxes come within the margin
/// of each other (box_a grown by the margin overlaps box_b).
typedef struct sr_collision_pair {
    sr_node_id a, b; ///< a.index < b.index
    sr_pair_state state;
    /// The signed distance the query found (<= 0 for contacts), or, when `bounded`, a lower bound
    /// greater than the margin, which proved them apart without a query: the separation along the
    /// axis that separated the pair last pass, or a bound an earlier pass found less the distance
    /// both shapes may have travelled since.
    double distance;
    bool bounded;
    uint32_t index; ///< in `contacts` (CONTACT) or `near` (NEAR); UINT32_MAX when apart
} sr_collision_pair;

/// A contact (touching or penetrating pair) or a near pair: sr_collide_signed_distance's answer
/// for the pair's world shapes, A the node of lower index.
typedef struct sr_contact {
    sr_node_id a, b;
    /// The contact point: half-way between the witnesses (for a contact the middle of the
    /// overlap along the normal, for a near pair the middle of the gap).
    sr_dvec3 point;
    sr_dvec3 normal; ///< unit, from A towards B (move B by depth * normal to separate them)
    /// Signed distance: <= 0 for contacts (the depth is -distance), > 0 for near pairs.
    double distance;
    /// Witnesses: the deepest points of A in B and of B in A for contacts (point_a - point_b =
    /// depth * normal), the closest points for near pairs.
    sr_dvec3 point_a, point_b;
    sr_collide_method method;
    sr_collide_status status; ///< SR_COLLIDE_ITERATION_CAP flags a best-effort answer
    int iterations;
} sr_contact;

/// Counters and times of one pass.
typedef struct sr_collision_stats {
    uint32_t shapes;        ///< shapes in the scene
    uint32_t shapes_moved;  ///< shapes whose world box was brought up to date
    uint32_t proxies_moved; ///< of them, those whose fat box changed (they queried the tree)
    uint32_t pairs_cached;  ///< pairs whose fat boxes overlap, kept from pass to pass
    uint32_t pairs;         ///< candidate pairs (exact boxes within the margin)
    uint32_t filtered;      ///< candidates the filter callback dropped (not in `pairs`)
    /// Candidates proved apart without a query: by last pass's separating axis, or by a bound of
    /// an earlier pass less both shapes' travel since (sr_collision_pair.bounded).
    uint32_t axis_rejects;
    uint32_t tests;         ///< convex queries run (sr_collide_signed_distance)
    /// Candidates neither of whose shapes moved (nor the margin or max_iterations changed) since
    /// their last query: that query's answer again, without running it (it would be the same).
    uint32_t reused;
    uint32_t contacts, near;
    uint32_t iteration_caps; ///< queries that hit their iteration cap (their answer is flagged)
    /// Broadphase: world boxes, tree moves and queries, pair cache upkeep, box tests; narrowphase:
    /// the axis tests and queries. Milliseconds of the calling thread's wall clock.
    double broadphase_ms, narrowphase_ms;
} sr_collision_stats;

/// The results of sr_scene_collide, owned by the caller and reused from pass to pass: its arrays
/// grow (before a pass's loops, never inside them) and never shrink, so a pass over a scene of
/// the same size allocates nothing. Pairs, contacts and near pairs come sorted by (a.index,
/// b.index). Pointers valid until the next pass or sr_collision_destroy. Read-only to callers.
typedef struct sr_collision {
    const sr_collision_pair *pairs;
    size_t pair_count;
    const sr_contact *contacts;
    size_t contact_count;
    const sr_contact *near;
    size_t near_count;
    double margin; ///< the margin the pass used
    sr_collision_stats stats;
    struct sr_collision_storage *storage; ///< private
} sr_collision;

sr_status sr_collision_create(sr_collision **out, sr_error *err);
void sr_collision_destroy(sr_collision *collision);

/// The margin of near pairs when sr_collision_desc.margin is 0, in world units.
#define SR_COLLISION_DEFAULT_MARGIN 0.1

/// How a pass runs. Zero means default.
typedef struct sr_collision_desc {
    double margin; ///< pairs apart by at most this are near pairs; 0: SR_COLLISION_DEFAULT_MARGIN
    bool no_near;  ///< margin 0: report contacts only
    int max_iterations; ///< each query's cap (sr_collide_options); 0: the queries' default
    /// NULL, or called for each candidate pair: false drops it (engines' collision filters:
    /// layers, a body's own parts). Called on the calling thread, in pair order.
    bool (*filter)(void *user, sr_node_id a, sr_node_id b);
    void *user;
} sr_collision_desc;

/// The collision pass over the scene's shapes (hidden nodes included: hiding is for drawing).
/// Broadphase: the world boxes of shapes that moved since the last pass are brought up to date
/// in the shape tree (sr_dynamic_tree_move: fat boxes absorb small motions); shapes whose fat
/// box changed query the tree for the pairs whose fat boxes overlap, which the scene keeps from
/// pass to pass (Box2D's pair management); each kept pair whose exact boxes come within the
/// margin is a candidate. Narrowphase: a candidate neither of whose shapes moved since its last
/// query (with the same margin and max_iterations) gets that answer again (stats.reused); one that
/// the separating axis of its last query still separates by more than the margin is apart without
/// a query; the others get
/// sr_collide_signed_distance on their world shapes, which makes them contacts (distance <= 0,
/// or touching: apart by at most 1e-7 of the largest coordinate of the two shapes' boxes, the
/// rounding of the float node transforms that place them; reported with distance 0), near pairs
/// (within the margin) or apart. `desc` may be NULL. The scene must be
/// up to date (sr_scene_update). Single-threaded; nothing may change the scene meanwhile (the
/// pass updates its shape tree and pair cache), but sr_scene_render and the const functions may
/// read it on other threads (the viewer draws the scene while the pass runs). Errors: NULL scene or result, a scene waiting for an
/// update, a bad margin (negative, not finite) or max_iterations, out of memory (the result is
/// then empty; the scene stays consistent).
sr_status sr_scene_collide(sr_scene *scene, const sr_collision_desc *desc, sr_collision *result, sr_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Pairs files (src/scene/pair_file.c, shape_json.c): pairs of convex shapes for the collision
 * queries of softrast/collide.h, one JSON object per line:
 *   {"id": 7, "a": SHAPE, "b": SHAPE}
 * SHAPE: {"type": "sphere", "radius": r}, {"type": "box", "half_extents": [x, y, z]},
 * {"type": "capsule" | "cylinder" | "cone", "radius": r, "half_height": h}, {"type": "hull",
 * "points": [[x, y, z], ...]}, {"type": "point"}, {"type": "segment" | "triangle", "points": [2 or
 * 3 points]}, each with optional "position": [x, y, z], "rotation": [x, y, z, w] (world =
 * rotation * local + position; normalised when within 1e-3 of unit, refused otherwise) and
 * "rounding": r. Blank lines and lines whose first character is '#' are skipped. */

/// One shape of a pairs file, and the points the file gave it (a hull's as written, duplicates
/// and inside points included: the hull is made from them).
typedef struct sr_pair_shape {
    sr_shape shape;         ///< a hull shape points to a hull the set owns
    const sr_dvec3 *points; ///< a segment's, triangle's or hull's points; NULL for other types
    size_t point_count;
} sr_pair_shape;

/// One pair of a pairs file.
typedef struct sr_pair {
    long long id;  ///< as written (a whole number within +-2^53; not necessarily unique)
    sr_pair_shape a, b;
    unsigned line; ///< of the file, from 1
} sr_pair;

/// The pairs of a file, in file order. Owns its hulls and points; free with sr_pair_set_destroy.
typedef struct sr_pair_set {
    sr_pair *pairs;
    size_t count;
    struct sr_pair_set_storage *storage; ///< private
} sr_pair_set;

/// Reads a pairs file. Errors name the file, the line and the JSON path of the bad value
/// ("pairs.jsonl:7: a.radius: -1 is negative (a size must be >= 0)"): malformed JSON, a missing,
/// unknown or repeated key, a wrong type, an unknown shape type, NaN or a value beyond 1e15, a
/// negative size, a hull of no points, a rotation that is not a unit quaternion. SR_ERROR_IO when
/// the file cannot be read. Nothing is kept on failure.
sr_status sr_pair_set_load(const char *path, sr_pair_set **out, sr_error *err);
/// The same from `size` bytes of text; `name` stands for the file in messages.
sr_status sr_pair_set_parse(const char *text, size_t size, const char *name, sr_pair_set **out, sr_error *err);
void sr_pair_set_destroy(sr_pair_set *set);

#ifdef __cplusplus
}
#endif
#endif
