/* src/scene/scene_file_internal.h — what the two halves of the scene-file reader share:
 * scene_file_values.c (messages with JSON paths, the checked readers of numbers, vectors,
 * colours, names and choices, the tables of named things) and scene_file.c (the sections of the
 * format and the document). Never installed. */
#ifndef SR_SCENE_FILE_INTERNAL_H
#define SR_SCENE_FILE_INTERNAL_H

#include "scene_internal.h"

#include <cJSON.h>

/// Largest scene file read (a scene of 10,000 nodes written out is about 2 MB).
#define SCENE_FILE_MAX_BYTES ((size_t)256 << 20)
/// Deepest nesting of nodes' children accepted.
#define SCENE_MAX_DEPTH 64
/// Longest JSON path kept for messages (longer ones are cut).
#define PATH_SIZE 256
/// Most instances one "repeat" may make.
#define REPEAT_MAX 1000000

/// A named thing of the file (texture, material, mesh) and the scene id it became.
typedef struct named {
    const char *name; ///< points into the cJSON tree
    uint32_t id;
} named;

typedef struct named_table {
    named *items;
    uint32_t count, capacity;
} named_table;

typedef struct loader {
    sr_scene *scene;
    const char *file;  ///< for messages
    char folder[4096]; ///< the file's folder with a trailing '/', or "" for the current one
    sr_warning_fn warning;
    sr_progress_fn progress;
    void *user;
    sr_error *err;
    named_table textures, materials, meshes;
} loader;

/* ---- messages and JSON paths (scene_file_values.c) ---- */

/// Fails the load: "FILE: AT: what". Returns `status`.
sr_status sr_json_fail(loader *l, sr_status status, const char *at, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
/// Passes "FILE: AT: what" to the loader's warning callback (if any).
void sr_json_warn(loader *l, const char *at, const char *what);
/// `at` + ".key" / `at` + "[index]", cut at PATH_SIZE - 1 bytes.
void sr_json_path_key(char out[PATH_SIZE], const char *at, const char *key);
void sr_json_path_index(char out[PATH_SIZE], const char *at, int index);
/// "a number", "a string", ... for messages.
const char *sr_json_type_name(const cJSON *item);

/* ---- checked values (scene_file_values.c): each fails naming `at` ---- */

/// Every key of `object` is one of `keys` (NULL-terminated) and appears once.
sr_status sr_json_check_keys(loader *l, const cJSON *object, const char *at, const char *const *keys);
sr_status sr_json_expect_object(loader *l, const cJSON *item, const char *at);
sr_status sr_json_read_number(loader *l, const cJSON *item, const char *at, float *out);
sr_status sr_json_read_ranged(loader *l, const cJSON *item, const char *at, double low, double high, float *out);
sr_status sr_json_read_positive(loader *l, const cJSON *item, const char *at, float *out);
sr_status sr_json_read_int(loader *l, const cJSON *item, const char *at, int low, int high, int *out);
sr_status sr_json_read_bool(loader *l, const cJSON *item, const char *at, bool *out);
sr_status sr_json_read_string(loader *l, const cJSON *item, const char *at, const char **out);
sr_status sr_json_read_numbers(loader *l, const cJSON *item, const char *at, int count, float *out);
sr_status sr_json_read_vec3(loader *l, const cJSON *item, const char *at, sr_vec3 *out);
/// [r, g, b] or [r, g, b, a] in [0, 1] (alpha 1 when not given).
sr_status sr_json_read_color(loader *l, const cJSON *item, const char *at, sr_vec4 *out);
/// One of `names` (NULL-terminated): its index.
sr_status sr_json_read_choice(loader *l, const cJSON *item, const char *at, const char *const *names, int *out);

/* ---- named things and paths (scene_file_values.c) ---- */

sr_status sr_json_table_add(loader *l, named_table *table, const char *name, uint32_t id, const char *at);
/// The id of the thing the string `item` names, with a message listing the names defined.
sr_status sr_json_table_find(loader *l, const named_table *table, const char *kind, const cJSON *item, const char *at,
                             uint32_t *id);
/// `relative` resolved against the scene file's folder (absolute paths stay as they are).
sr_status sr_json_resolve_path(loader *l, const char *relative, const char *at, char out[4096]);

/* ---- nodes (scene_file_nodes.c) ---- */

/// The array of nodes at `at`, children of `parent` (SR_NODE_NULL: top level) at `depth`.
sr_status sr_scene_file_read_nodes(loader *l, const cJSON *item, const char *at, sr_node_id parent, int depth);

#endif
