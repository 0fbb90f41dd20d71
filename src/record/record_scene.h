/* src/record/record_scene.h — the scene side of a recording, shared by the writer
 * (record_scene_write.c: what changed in the program's scene since the last frame) and the
 * reader (record_scene_read.c: the recorded state at a frame, and the scene built from it).
 * Never installed. */
#ifndef SR_RECORD_SCENE_H
#define SR_RECORD_SCENE_H

#include "record_internal.h"

#include <softrast/scene_collide.h>

/// One node as recorded (the state both sides keep per source slot).
typedef struct rec_node {
    uint32_t generation; ///< the source handle's generation; 0: no live node in this slot
    uint32_t parent;     ///< the parent's slot + 1, 0 for a top-level node
    uint32_t mesh;       ///< stored mesh id (0: none)
    uint32_t material;   ///< stored material id (0: the mesh's own)
    bool hidden;
    uint32_t transform[10]; ///< the local sr_transform's floats' bits: translation, rotation, scale
    char *name;             ///< owned
    int depth;              ///< 0 for top-level nodes (the writer's; the reader recomputes it)
    uint8_t shape[REC_SHAPE_MAX]; ///< its collision shape's bytes (REC_SHAPE_MAX)
    uint8_t shape_size;           ///< 0: no shape
    bool mesh_from_shape;         ///< `mesh` is the one its program's scene made to draw its shape
    /// The writer's: the hull `shape` names, its fingerprint and stored id (a hull met again is
    /// not hashed against every hull written).
    const sr_hull *hull;
    uint64_t hull_hash;
    /// The writer's: the source node's sr_node_info.shape_version when `shape` was taken (the
    /// shape is looked at again only when that number changes).
    uint64_t shape_version;
} rec_node;

/// The retained view: camera, light, background, scene name.
typedef struct rec_view {
    bool has_camera;
    sr_camera camera;
    bool has_light;
    sr_light light;
    bool has_background;
    uint32_t background;
    bool has_scene; ///< a scene was recorded (the name below is its)
    char *scene_name;
} rec_view;

/// A definition record's place (the index's entries, and the writer's list of new ones).
typedef struct rec_definition {
    uint32_t type;         ///< REC_MESH, REC_TEXTURE, REC_MATERIAL
    uint32_t id;           ///< stored id
    uint64_t offset, size; ///< of the whole record
} rec_definition;

/// The transform's floats as the node's bits (rec_node.transform order).
void rec_transform_bits(const sr_transform *transform, uint32_t bits[10]);
sr_transform rec_bits_transform(const uint32_t bits[10]);

/* ---- writer (record_scene_write.c) ---- */

typedef struct rec_mesh_seen {
    uint64_t hash;
    uint32_t source; ///< source mesh id
    uint32_t stored; ///< its stored id
} rec_mesh_seen;

typedef struct rec_scene_writer {
    const sr_scene *scene; ///< the scene of the last frame that had one
    rec_node *nodes;       ///< per source slot
    uint32_t node_count, node_capacity;
    /// Source id -> stored id (0: not written yet), for meshes, materials, textures.
    uint32_t *mesh_stored, *material_stored, *texture_stored;
    uint32_t mesh_map_capacity, material_map_capacity, texture_map_capacity;
    uint32_t next_mesh, next_material, next_texture; ///< the next stored ids (from 1)
    rec_mesh_seen *meshes_seen;
    size_t meshes_seen_count, meshes_seen_capacity;
    rec_view view;
    bool view_known; ///< `view` holds what the file says (false: the next frame writes it all)
    bool reset;      ///< forget everything (after a failure): the next frame is a keyframe from scratch
    /// Scratch of a frame: slots removed, changed (slot << 16 | mask) and added (depth << 32 |
    /// slot, sorted so that parents come first).
    uint32_t *removed;
    uint64_t *changed, *added;
    size_t removed_capacity, changed_capacity, added_capacity;
    /// Slots whose shape entry goes into this frame's SHAPES section.
    uint32_t *shaped;
    size_t shaped_capacity;
    /// Hulls written (their payload after the id, to find an identical one), the next hull id.
    struct rec_hull_written *hulls;
    size_t hull_count, hull_capacity;
    uint32_t next_hull;
    /// Definitions written into this frame's buffer (offsets within it), and the ids they took.
    rec_definition *new_definitions;
    size_t new_definition_count, new_definition_capacity;
} rec_scene_writer;

void rec_scene_writer_free(rec_scene_writer *w);

/// What rec_scene_write did.
typedef struct rec_scene_written {
    size_t state_offset, state_size; ///< the STATE record in the buffer (size 0: none)
    bool keyframe;                   ///< it is a keyframe
    bool has_scene;                  ///< the recording has a scene (now or from before)
} rec_scene_written;

/// Appends to `out` the definition records of the meshes, materials and textures the scene's
/// nodes use that the file lacks, then the frame's STATE record when there is anything to
/// record: a keyframe when `keyframe_due` (or the scene changed, or after a failure), else the
/// changes since the last frame. `scene` may be NULL (the state stays as it was; a keyframe
/// repeats it); `camera` is the program's camera (sr_recorder_set_camera) or NULL. Sizes of
/// what it writes go to `sizes`. On failure (out of memory) `out` may hold a partial frame: the
/// caller drops it, and calls rec_scene_write_failed.
sr_status rec_scene_write(rec_scene_writer *w, const sr_scene *scene, const sr_camera *camera, uint64_t frame,
                          bool keyframe_due, rec_buffer *out, sr_record_sizes *sizes, rec_scene_written *written,
                          sr_error *err);
/// The frame rec_scene_write prepared was not written: forget the definitions it thought written
/// and start the next frame from scratch.
void rec_scene_write_failed(rec_scene_writer *w);

/* ---- reader (record_scene_read.c) ---- */

/// A node of the recorded state at the current frame (sorted by slot).
typedef struct rec_target {
    uint32_t slot;
    rec_node node;
} rec_target;

/// A node of the reconstructed scene (sorted by slot): which source node it stands for, its
/// handle, and what was last set on it.
typedef struct rec_built {
    uint32_t slot, generation;
    sr_node_id id;
    uint32_t transform[10];
    bool hidden;
    uint32_t material; ///< stored id
    uint8_t shape[REC_SHAPE_MAX]; ///< the shape set on it (shape_size 0: none)
    uint8_t shape_size;
} rec_built;

/// A definition loaded into the scene: stored id -> the scene's id.
typedef struct rec_loaded {
    uint32_t stored, id;
} rec_loaded;

/// The source node a node of the reconstructed scene stands for (by the scene's slot index).
typedef struct rec_source {
    uint32_t slot, generation; ///< generation 0: none
} rec_source;

/// Hands the payload of definition (`type`, stored `id`) to the scene reader: read from the file
/// and checked (valid until the next call). SR_ERROR_PARSE when the file has no such definition.
typedef sr_status (*rec_read_definition_fn)(void *user, uint32_t type, uint32_t id, const uint8_t **payload,
                                            size_t *size, sr_error *err);

typedef struct rec_scene_reader {
    rec_target *targets;
    size_t target_count, target_capacity;
    rec_view view;
    sr_scene *scene; ///< created at the first frame with a scene
    rec_built *built;
    size_t built_count, built_capacity;
    rec_source *source_of;
    size_t source_capacity;
    rec_loaded *meshes, *materials, *textures;
    size_t mesh_count, mesh_capacity, material_count, material_capacity, texture_count, texture_capacity;
    /// Hulls read from the file (owned; the scene's shapes point to them): stored id -> hull.
    struct rec_hull_loaded *hulls;
    size_t hull_count, hull_capacity;
    /// Scratch of an update: added targets (depth << 32 | index), the new built entries.
    uint64_t *order;
    size_t order_capacity;
    rec_built *fresh;
    size_t fresh_capacity;
    rec_read_definition_fn read;
    void *user;
} rec_scene_reader;

void rec_scene_reader_free(rec_scene_reader *r);
/// Empties the state (a keyframe starts from it); the scene is left for rec_scene_sync.
void rec_scene_reader_clear_state(rec_scene_reader *r);
/// Applies a STATE record's payload (of frame `frame`) to the state. SR_ERROR_PARSE (with `what`
/// saying what was wrong) or out of memory; the state is then undefined (clear it).
sr_status rec_state_apply(rec_scene_reader *r, const uint8_t *payload, size_t size, uint64_t frame, char *what,
                          size_t what_size);
/// Brings the reconstructed scene to the state: nodes removed, changed and added (loading the
/// meshes, materials and textures they use), camera, light and background. Errors: those of
/// reading definitions (SR_ERROR_PARSE names them), out of memory.
sr_status rec_scene_sync(rec_scene_reader *r, sr_error *err);
/// Memory the reader holds (its state and the scene's meshes and textures, roughly).
size_t rec_scene_reader_bytes(const rec_scene_reader *r);

/* ---- collision shapes (record_scene_shape.c) ---- */

/// The writer's side of a node: its shape now as bytes in n->shape (hulls it names written to `out`
/// the first time), and whether its recorded mesh is the one its scene made for the shape. Sets
/// *changed when either differs from what n held. Looks at the shape only when the node's
/// sr_node_info.shape_version differs from n's (a new node: n zeroed). Errors: out of memory.
sr_status rec_shape_note(rec_scene_writer *w, const sr_scene *scene, sr_node_id id, const sr_node_info *info,
                         rec_node *n, rec_buffer *out, sr_record_sizes *sizes, bool *changed, sr_error *err);
/// The node's own mesh: info->mesh unless that is the mesh the scene made to draw its shape.
bool rec_mesh_is_shape_mesh(const sr_scene *scene, sr_node_id id, const sr_node_info *info);
/// The most bytes the SHAPES section of `count` entries takes.
size_t rec_shapes_bound(size_t count);
/// Writes the SHAPES section of the slots w->shaped[0 .. count) (ascending). Returns the end.
uint8_t *rec_put_shapes(const rec_scene_writer *w, uint8_t *p, size_t count);
/// Forgets the hulls written (another scene, a failure).
void rec_shape_writer_forget(rec_scene_writer *w);

/// Applies a SHAPES section to the reader's state. SR_ERROR_PARSE with `what`.
sr_status rec_apply_shapes(rec_scene_reader *r, rec_cursor *c, char *what, size_t what_size);
/// Gives built node `b` the shape of `target` (removing it when the target has none), loading its
/// hull the first time. Errors: a hull's definition missing or damaged (SR_ERROR_PARSE), a shape
/// the scene refuses (SR_ERROR_PARSE naming the node), out of memory.
sr_status rec_shape_sync(rec_scene_reader *r, const rec_node *target, rec_built *b, sr_error *err);
/// Frees the hulls read.
void rec_shape_reader_free(rec_scene_reader *r);
/// Memory the hulls read hold, roughly.
size_t rec_shape_reader_bytes(const rec_scene_reader *r);
/// Checks a HULL definition's payload (what --check does for each). False with `why`.
bool rec_hull_check(const uint8_t *payload, size_t size, char *why, size_t why_size);

/// Writes a record's head (type, payload length) at `record` and its CRC after the payload,
/// which ends at `end`; returns the record's end.
uint8_t *rec_record_finish(uint8_t *record, uint32_t type, uint8_t *end);

#endif
