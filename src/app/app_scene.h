/* app_scene.h — what the scene commands (render, pick, bench scene) share: the SCENE argument
 * (a scene file, a mesh, or the built-in demo scene), the --camera and --up options and the
 * camera they give, output-path checks, JSON printing and a clock. */
#ifndef SR_APP_SCENE_H
#define SR_APP_SCENE_H

#include <softrast/debug.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>

#include <stdbool.h>
#include <stdio.h>

#include "args.h"

/// What the SCENE argument was.
typedef enum sr_app_input {
    SR_APP_INPUT_DEMO = 0, ///< none given: the built-in demo scene
    SR_APP_INPUT_MESH,     ///< an OBJ file
    SR_APP_INPUT_SCENE,    ///< a .json scene file
} sr_app_input;

/// The camera --camera names.
typedef enum sr_app_camera_kind {
    SR_APP_CAMERA_DEFAULT = 0, ///< no keyword: the command's default camera (KEY=VALUE pairs over it)
    SR_APP_CAMERA_FIT,         ///< "fit": the model view's three-quarter view fitting everything drawn
    SR_APP_CAMERA_BENCH,       ///< "bench": the benchmark scene's camera (and, for a mesh, its light)
} sr_app_camera_kind;

/// The --camera and --up options as given.
typedef struct sr_app_view_options {
    const char *spec; ///< --camera's whole value (NULL: not given), for messages
    sr_app_camera_kind kind;
    const char *keys; ///< the KEY=VALUE pairs of --camera (NULL: none)
    char up;          ///< --up: 'y' or 'z'; 0 when not given
} sr_app_view_options;

/// Prints the --camera and --up lines of a scene command's --help (the keywords, the keys and
/// the default, which is the benchmark scene for a mesh when `bench_by_default`).
void sr_app_print_view_help(FILE *out, bool bench_by_default);

/// Reads --camera's value: "fit" or "bench", either alone or followed by ":KEY=VALUE...", or
/// KEY=VALUE pairs alone (the keys of sr_camera_parse). A key that no camera could take (a
/// malformed or unknown key, a non-positive fov) is a usage error here, before any file is read.
bool sr_app_parse_camera_option(const char *text, sr_app_view_options *view, char error[SR_ARGS_ERROR_SIZE]);
/// Reads --up's value: y or z (also +y, +z, Y, Z).
bool sr_app_parse_up_option(const char *text, sr_app_view_options *view, char error[SR_ARGS_ERROR_SIZE]);

/// Prints the description of the benchmark scene (what --camera bench and the bench commands
/// draw and cast).
void sr_app_print_bench_scene(FILE *out);

/// What to load and how to show it.
typedef struct sr_app_scene_desc {
    const char *command; ///< "softrast render": the prefix of warnings
    const char *path;    ///< the SCENE argument; NULL: the demo scene
    sr_app_view_options view;
    /// The benchmark commands: a mesh is the benchmark scene unless --camera fit (otherwise a
    /// mesh is shown as the model view unless --camera bench).
    bool bench_by_default;
    int width, height; ///< the image: the model view's aspect
    /// Colours p * 0.5 + 0.5 of the normalised positions for a mesh without vertex colours, so
    /// that --shader vertex_color shows something.
    bool position_colors;
} sr_app_scene_desc;

/// The loaded scene and the camera to draw and pick it with.
typedef struct sr_app_scene {
    sr_scene *scene; ///< free with sr_scene_destroy
    sr_app_input input;
    sr_camera camera;
    bool bench; ///< a mesh shown as the benchmark scene
} sr_app_scene;

/// Loads the scene of desc->path. Files ending in .json (any case) are scene files; anything
/// else is read as an OBJ mesh, normalised to [-1,1]^3 (box centre at the origin, largest extent
/// 2) with area-weighted vertex normals of the normalised mesh where the file has none, uvs by
/// planar projection u = (x + 1) / 2, v = (1 - y) / 2 where it has none (for the textured
/// shader), and shown as the model view (sr_scene_set_model_view with --up and the image's
/// aspect) or as the benchmark scene. The camera is then the one --camera asks for. Warnings
/// go to stderr as "COMMAND: warning: ...". On an error *usage_error says whether it is the
/// command line's (--camera or --up that do not fit this scene: exit 2) rather than a file's.
sr_status sr_app_load_scene(const sr_app_scene_desc *desc, sr_app_scene *out, bool *usage_error, sr_error *err);

/// How the scene's triangles are shaded, for the one-line summaries: the --shader (`shader` not
/// NULL), or the shaders of the materials the scene's instances draw with, e.g. "lambert",
/// "vertex_color_lit", "lambert + textured".
void sr_app_describe_shading(const sr_scene *scene, const sr_shader *shader, char *out, size_t size);

/// Whether the frame just rendered (sr_scene_render into a `width` x `height` image with `camera`,
/// results in `frame`) drew no triangle; if so, `why` says what a user would want to know:
/// nothing to draw, every instance outside the view, every triangle culled as a back face, or,
/// triangle by triangle, how many were outside the view, seen edge-on (no area on screen) or
/// too small to cover a pixel centre. frame_check.c.
bool sr_app_why_nothing_drawn(const sr_scene *scene, const sr_scene_frame *frame, const sr_camera *camera, int width,
                              int height, char *why, size_t size);

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

/// The overlays `desc` asks for over a rendered frame, as render and replay draw them: the heat
/// map replaces the colours first (with `threads` threads), then a debug list is filled (grown
/// and refilled once if it overflowed) and drawn with `view`, the camera the frame was drawn with.
sr_status sr_app_draw_overlays(const sr_scene *scene, const sr_scene_frame *frame, const sr_camera *view,
                               sr_overlay_desc *desc, int threads, sr_renderer *renderer, sr_framebuffer *fb,
                               sr_error *err);

#endif
