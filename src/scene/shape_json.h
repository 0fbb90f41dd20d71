/* src/scene/shape_json.h — reading a convex shape from a JSON object (the SHAPE of pairs files,
 * and of scene files later): {"type": ..., "position": [x,y,z], "rotation": [x,y,z,w],
 * "rounding": r} with the fields of its type (scene files: without the pose, and a hull may be
 * the hull of a mesh's vertices). Every value is checked where it is read; a bad one
 * fails with "WHERE: PATH: what" (WHERE the file and line, PATH the JSON path of the value).
 * Never installed. */
#ifndef SR_SCENE_SHAPE_JSON_H
#define SR_SCENE_SHAPE_JSON_H

#include <softrast/collide.h>
#include <softrast/core.h>

#include <cJSON.h>

/// Most points a hull of a file may have.
#define SR_SHAPE_JSON_MAX_POINTS ((size_t)1 << 20)
/// Largest magnitude of a coordinate or size (beyond it the queries' arithmetic would overflow
/// or lose every digit of a shape's size).
#define SR_SHAPE_JSON_MAX_VALUE 1e15

/// Where values are read, for messages.
typedef struct sr_json_place {
    const char *where; ///< "pairs.jsonl:7", "scene.json"
    sr_error *err;
} sr_json_place;

/// A shape read from JSON and what it owns.
typedef struct sr_shape_json {
    sr_shape shape;   ///< a hull shape points to `hull`
    sr_dvec3 *points; ///< the "points" of a segment, triangle or hull as written (sr_alloc'd), or NULL
    size_t point_count;
    sr_hull *hull; ///< made from the points for a hull, or NULL (always NULL for scene shapes)
    /// Scene shapes: the mesh named by a hull's "mesh" (points into the cJSON tree), or NULL;
    /// `mesh_at` its JSON path.
    const char *mesh_name;
    char mesh_at[128];
} sr_shape_json;

/// How a SHAPE is read.
typedef enum sr_shape_json_kind {
    SR_SHAPE_JSON_PAIR = 0, ///< pairs files: "position" and "rotation" allowed, the hull built
    /// scene files: no "position" or "rotation" (the node places the shape), a hull's points given
    /// by "points" or "mesh" (a mesh's name) and not built (the scene builds it), the shape not
    /// validated (the scene does)
    SR_SHAPE_JSON_SCENE,
} sr_shape_json_kind;

/// Fails with "WHERE: AT: what". Returns `status`.
sr_status sr_json_place_fail(const sr_json_place *place, sr_status status, const char *at, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
/// Every key of `object` is one of `keys` (NULL-terminated) and appears once.
sr_status sr_json_place_check_keys(const sr_json_place *place, const cJSON *object, const char *at,
                                   const char *const *keys);
/// A finite number of magnitude at most SR_SHAPE_JSON_MAX_VALUE.
sr_status sr_json_place_read_number(const sr_json_place *place, const cJSON *item, const char *at, double *out);

/// Reads the SHAPE object `item` (at JSON path `at`) into `out`, building its hull. On failure
/// nothing is kept (out is zeroed). Free what it owns with sr_shape_json_release.
sr_status sr_shape_json_read(const sr_json_place *place, const cJSON *item, const char *at, sr_shape_json *out);
/// The same for `kind`.
sr_status sr_shape_json_read_kind(const sr_json_place *place, const cJSON *item, const char *at,
                                  sr_shape_json_kind kind, sr_shape_json *out);
void sr_shape_json_release(sr_shape_json *shape);

#endif
