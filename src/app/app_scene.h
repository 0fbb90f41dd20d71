/* app_scene.h — what the scene commands (render, pick, bench scene) share: the SCENE argument
 * (a scene file, a mesh, or the built-in demo scene), the --camera option, output-path checks,
 * JSON printing and a clock. */
#ifndef SR_APP_SCENE_H
#define SR_APP_SCENE_H

#include <softrast/scene.h>
#include <softrast/shaders.h>

#include <stdbool.h>
#include <stdio.h>

#include "args.h"

/// What the SCENE argument was.
typedef enum sr_app_input {
    SR_APP_INPUT_DEMO = 0, ///< none given: the built-in demo scene
    SR_APP_INPUT_MESH,     ///< an OBJ file: BENCH_SCENE.md's canonical scene of it
    SR_APP_INPUT_SCENE,    ///< a .json scene file
} sr_app_input;

/// Loads the scene of `path` (NULL: the demo scene). Files ending in .json (any case) are scene
/// files; anything else is read as an OBJ mesh, normalised as BENCH_SCENE.md says, with uvs by
/// planar projection u = (x + 1) / 2, v = (1 - y) / 2 where the file has none and colours
/// p * 0.5 + 0.5 where it has none (so that the textured and vertex_color shaders show
/// something). Warnings go to stderr as "COMMAND: warning: ...".
sr_status sr_app_load_scene(const char *command, const char *path, sr_scene **out, sr_app_input *input, sr_error *err);

/// Checks that `path` can become a file (its folder exists and is writable, it is not a folder).
bool sr_app_check_output_path(const char *option, const char *path, char error[SR_ARGS_ERROR_SIZE]);

/// Removes an output this run wrote, but only a regular file (never a device or a pipe).
void sr_app_remove_written(const char *path);

/// Prints `text` as a JSON string (quotes and escapes) to `out`.
void sr_app_print_json_string(FILE *out, const char *text);

/// CLOCK_MONOTONIC in milliseconds.
double sr_app_now_ms(void);

/// The checker texture the mesh form of the commands maps with the textured shader (8 x 8
/// squares, white and 0.3 grey). Free with sr_texture_destroy.
sr_status sr_app_checker_texture(sr_texture **out, sr_error *err);

#endif
