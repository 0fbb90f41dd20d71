/* softrast/viewer.h — the interactive viewer as a library: an SDL2 window showing a scene drawn
 * by softrast (the framebuffer streamed to a texture), orbit/pan/zoom with the mouse, click to
 * pick, keys for the debug overlays, a frozen culling camera, saving frames, reloading the scene
 * file, and scripted input for tests. The `softrast view` command is sr_viewer_run over it; a
 * program embeds the same window by calling sr_viewer_frame once per pass of its own loop.
 * The only module (with the program) that links SDL2; knows nothing of the command line.
 *
 * Threads: every function must be called from the thread that created the viewer (SDL's video
 * functions belong to one thread). The viewer loads scene files on a worker thread of its own.
 */
#ifndef SOFTRAST_VIEWER_H
#define SOFTRAST_VIEWER_H

#include <stdio.h>

#include <softrast/core.h>
#include <softrast/debug.h>
#include <softrast/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An open viewer window. Create with sr_viewer_create, free with sr_viewer_destroy.
typedef struct sr_viewer sr_viewer;

/// How a viewer is opened. Zero fields take their defaults.
typedef struct sr_viewer_desc {
    const char *title; ///< window title prefix; NULL = "softrast"
    int width, height; ///< window size in screen units (pixels, except on high-DPI screens); 0 = 1280 x 720.
                       ///< The frame is rendered at the window's drawable size, in pixels.
    int threads;       ///< rendering threads, 1 to SR_MAX_THREADS; 0 = one per core (at most 64)
    /// The scene file (.json) or mesh (.obj) shown. With a NULL `scene` given to sr_viewer_create
    /// the viewer loads it itself (on a worker thread, showing progress), owns it, reloads it on
    /// R and whenever the file changes on disk (its modification time is polled once a second).
    /// S saves frames into this file's folder. NULL: the scene passed to sr_viewer_create, or the
    /// built-in demo scene; frames are then saved into the current folder. Copied.
    const char *scene_path;
    /// For a mesh (.obj) scene_path: the world's up of the model view it opens with (zero: +Y;
    /// sr_scene_set_model_view), e.g. +Z for Z-up files.
    sr_vec3 up;
    bool hidden;            ///< do not show the window (tests, benchmarks); everything else works
    bool terminal_progress; ///< print a progress bar on stderr while a scene loads (when it is a terminal)
    /// Receives what the viewer tells the user besides the window ("saved frame.bmp", load errors),
    /// one line without a newline. NULL: printed on stdout (errors on stderr).
    void (*message)(void *user, const char *text, bool is_error);
    void *user; ///< passed to `message`
} sr_viewer_desc;

/// Opens the window over `scene`, which the viewer does not own: the program keeps it alive
/// until sr_viewer_destroy, may change it between frames (sr_scene_set_transform, nodes added
/// or removed) and then calls sr_viewer_request_redraw. With `scene` NULL the viewer shows (and
/// owns) desc->scene_path, or the built-in demo scene when that is NULL too. The first frame is
/// drawn by the first sr_viewer_frame (or sr_viewer_run). Free with sr_viewer_destroy.
/// Errors: SDL cannot open a window (the message has SDL's reason), a bad desc, out of memory.
/// A scene file that fails to load is not an error here: the window shows the error (and
/// `message` receives it); sr_viewer_load_error tells it.
sr_status sr_viewer_create(const sr_viewer_desc *desc, sr_scene *scene, sr_viewer **out, sr_error *err);
/// Closes the window and frees the viewer and what it owns (the scenes it loaded; never the
/// program's scene). Waits for a load in progress to stop. NULL is fine.
void sr_viewer_destroy(sr_viewer *viewer);

/// One pass of the viewer: handles the pending input (without waiting), then draws and presents
/// a frame if anything changed (camera, overlays, window size, a pick, a finished load, the
/// program's sr_viewer_request_redraw, or a different `extra`). `extra` (may be NULL; not kept)
/// is the program's own debug list (its physics' contacts, say), drawn over the frame after the
/// overlays with the view camera. When nothing needs drawing the call waits for input for up to
/// 16 ms, so a loop around it never spins. Returns false when the user closed the window (or
/// pressed Esc or Q), or on an error (then `err` is filled; err->status says which).
bool sr_viewer_frame(sr_viewer *viewer, sr_debug_list *extra, sr_error *err);

/// Asks for a new frame at the next sr_viewer_frame (the scene changed under the viewer).
void sr_viewer_request_redraw(sr_viewer *viewer);

/// The last pick made by a click (false and *hit untouched when there is none, or after the
/// scene was reloaded). The hit is what sr_scene_pick gave for the click's pixel centre.
bool sr_viewer_last_pick(const sr_viewer *viewer, sr_pick_hit *hit);
/// The camera the view is drawn with (resolved; the orbit the mouse drives).
sr_camera sr_viewer_camera(const sr_viewer *viewer);
/// The scene shown: the program's, or the one the viewer loaded (NULL while the first load of
/// desc->scene_path runs or after it failed). Valid until the next sr_viewer_frame.
sr_scene *sr_viewer_scene(const sr_viewer *viewer);
/// The message of the last failed load of desc->scene_path ("" when it loaded).
const char *sr_viewer_load_error(const sr_viewer *viewer);

/// The `softrast view` loop: waits for input (no CPU is used while nothing happens), handles
/// it and redraws on change, until the user quits. Errors: those of sr_viewer_frame.
sr_status sr_viewer_run(sr_viewer *viewer, sr_error *err);

/// Replays the script at `path` through the same event handling as a person's input (each line
/// becomes SDL events pushed on SDL's queue and handled by the viewer's loop), then returns.
/// Lines (blank lines and `#` comments skipped; coordinates are pixels of the rendered frame,
/// a click at X Y picks through the centre of pixel (X, Y)):
///   click X Y | double-click X Y | drag X1 Y1 X2 Y2 [left|right|middle|shift-left]
///   wheel N [X Y] (N notches, positive towards the scene; at X Y or the last mouse position)
///   key NAME (an SDL key name: B, Home, Tab, [, Escape, ...) | resize W H
///   wait FRAMES (draws FRAMES frames) | sleep MS (lets MS milliseconds of wall-clock time pass,
///   handling events: the scene file's changes are noticed meanwhile)
///   save PATH (.bmp or .png) | print-pick | print-state | print-stats
/// print-* write one JSON line to `out` (see the README). Before each line the viewer finishes
/// what is pending (a load, a redraw). Errors name the file and line ("s.txt:3: ..."); a key or
/// a load error the user would see in the window is not a script error. An Esc/Q key or a closed
/// window ends the script early (SR_OK).
sr_status sr_viewer_run_script(sr_viewer *viewer, const char *path, FILE *out, sr_error *err);

/// Frame-time statistics since the viewer was created (frames drawn by sr_viewer_frame).
typedef struct sr_viewer_stats {
    uint64_t frames;         ///< frames drawn and presented
    double last_frame_ms;    ///< render + overlays + texture upload + present of the last one
    double median_frame_ms;  ///< over the last (up to) 256 frames
    double median_render_ms; ///< the softrast part only (scene, overlays), same frames
    double fps;              ///< frames presented in the last second of wall-clock time
} sr_viewer_stats;
sr_viewer_stats sr_viewer_get_stats(const sr_viewer *viewer);

/// The mouse and key bindings, as the help panel (H) shows them and `softrast view --help` prints
/// them: lines of "  KEY  what it does". A constant string.
const char *sr_viewer_help_text(void);

/// Whether a window can be opened here: initialises SDL's video, opens a hidden 64 x 64 window
/// with a renderer, and closes it. False (with the reason in `reason`, `size` bytes) when there
/// is no display, or the video driver is one that shows nothing (offscreen, dummy).
bool sr_viewer_probe(char *reason, size_t size);

#ifdef __cplusplus
}
#endif
#endif
