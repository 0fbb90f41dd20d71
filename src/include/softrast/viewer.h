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

/// Kinds of input event a program is handed (sr_viewer_desc.input and input_filter).
typedef enum sr_viewer_event_type {
    SR_VIEWER_EVENT_OTHER = 0,  ///< any other SDL event (window, text input, game controller...): see sdl_event
    SR_VIEWER_EVENT_KEY_DOWN,   ///< a key pressed (or repeated while held: `repeat`)
    SR_VIEWER_EVENT_KEY_UP,     ///< a key released
    SR_VIEWER_EVENT_MOUSE_DOWN, ///< a mouse button pressed
    SR_VIEWER_EVENT_MOUSE_UP,   ///< a mouse button released
    SR_VIEWER_EVENT_MOUSE_MOVE, ///< the mouse moved
    SR_VIEWER_EVENT_WHEEL,      ///< the wheel turned
    SR_VIEWER_EVENT_QUIT,       ///< the window's close button, or the system asks the program to end
} sr_viewer_event_type;

/// One input event, as the viewer hands it to the program. Positions are pixels of the rendered
/// frame (origin top left, the pixel convention of picking), whatever the screen's scale.
typedef struct sr_viewer_event {
    sr_viewer_event_type type;
    /// Keys: the SDL_Keycode (layout dependent). Printable keys are their lower-case character,
    /// so `event->key == 'k'` or `== ' '` needs no SDL header; others are SDLK_* of <SDL.h>.
    int32_t key;
    int32_t scancode;      ///< keys: the SDL_Scancode (the key's physical place)
    const char *key_name;  ///< keys: SDL's name of the key ("K", "Space", "Left"); valid during the call
    bool repeat;           ///< key down: an automatic repeat while the key is held
    uint32_t modifiers;    ///< keys and mouse: the SDL_Keymod bits held (KMOD_SHIFT, KMOD_CTRL, ...)
    int button;            ///< mouse down and up: 1 left, 2 middle, 3 right, 4 and 5 the side buttons
    int clicks;            ///< mouse down and up: 1 for a single click, 2 for a double click
    float x, y;            ///< mouse events and wheel: the pointer's position in frame pixels
    float wheel;           ///< wheel: notches, positive away from the user (the viewer zooms in)
    const void *sdl_event; ///< the SDL_Event itself (cast to `const SDL_Event *`); valid during the call
} sr_viewer_event;

/// A program's input callback. For `input_filter`: return true to take the event (the viewer
/// then ignores it), false to let the viewer handle it. For `input`: the return value is ignored.
/// Called on the viewer's thread from within sr_viewer_frame (or sr_viewer_run, a script): it may
/// call the viewer's setters and sr_viewer_save_frame, not sr_viewer_frame, sr_viewer_run,
/// sr_viewer_run_script or sr_viewer_destroy.
typedef bool (*sr_viewer_input_fn)(void *user, const sr_viewer_event *event);

/// How a viewer is opened. Zero fields take their defaults.
typedef struct sr_viewer_desc {
    const char *title; ///< window title prefix; NULL = "softrast"
    int width, height; ///< window size in screen units (pixels, except on high-DPI screens); 0 = 1280 x 720.
                       ///< The frame is rendered at the window's drawable size, in pixels.
    int threads;       ///< rendering threads, 1 to SR_MAX_THREADS; 0 = one per core (at most 64)
    /// The scene file (.json), mesh (.obj) or recording (softrast/record.h, known by its first bytes)
    /// shown. With a NULL `scene` given to sr_viewer_create
    /// the viewer loads it itself (on a worker thread, showing progress), owns it, reloads it on
    /// R and whenever the file changes on disk (its modification time is polled once a second).
    /// NULL: the scene passed to sr_viewer_create, or none at all (the program's lists alone).
    /// Copied.
    const char *scene_path;
    /// The folder S saves frames into; NULL: scene_path's folder, or the current folder. Copied.
    const char *save_folder;
    /// For a mesh (.obj) scene_path: the world's up of the model view it opens with (zero: +Y;
    /// sr_scene_set_model_view), e.g. +Z for Z-up files.
    sr_vec3 up;
    bool hidden;            ///< do not show the window (tests, benchmarks); everything else works
    bool terminal_progress; ///< print a progress bar on stderr while a scene loads (when it is a terminal)
    /// Receives what the viewer tells the user besides the window ("saved frame.bmp", load errors),
    /// one line without a newline. NULL: printed on stdout (errors on stderr).
    void (*message)(void *user, const char *text, bool is_error);
    /// Sees every input event before the viewer does (keys, mouse, wheel, window, quit): true
    /// takes it from the viewer. NULL: the viewer handles everything it has a use for.
    sr_viewer_input_fn input_filter;
    /// Handed the input the viewer has no use for (after input_filter let it through): keys
    /// without a binding in sr_viewer_help_text (both their presses and releases; the shift keys
    /// too, which the viewer only watches), mouse motion while no button drags, buttons other
    /// than left, middle and right, and every other event but quit. NULL: dropped.
    sr_viewer_input_fn input;
    void *user; ///< passed to `message`, `input_filter` and `input`
    /// A recording's decoded frames the viewer keeps (sr_recording_desc.cache_bytes); 0 = 192
    /// MiB, which with the frame shown, the framebuffers and the lists keeps a 1280 x 720 viewer
    /// within 256 MiB whatever the file's size.
    size_t recording_cache_bytes;
} sr_viewer_desc;

/// Opens the window over `scene`, which the viewer does not own: the program keeps it alive
/// until sr_viewer_destroy and may change it between frames (nodes moved, added or removed,
/// its camera set): the next sr_viewer_frame notices moved nodes and a new camera by itself
/// (the view then follows sr_scene_set_camera); other changes (materials, light) need
/// sr_viewer_request_redraw. The viewer brings the scene up to date (sr_scene_update) when it
/// draws and when a click picks, so a click picks the nodes where the program just put them.
/// With `scene` NULL the viewer shows (and owns) desc->scene_path; with that NULL too, no scene:
/// only the program's lists (and the grid, axes or HUD when turned on), seen by the benchmark scene's
/// camera until sr_viewer_set_camera. The first frame is drawn by the first sr_viewer_frame (or
/// sr_viewer_run). Free with sr_viewer_destroy.
/// Errors: SDL cannot open a window (the message has SDL's reason), a bad desc, out of memory.
/// A scene file that fails to load is not an error here: the window shows the error (and
/// `message` receives it); sr_viewer_load_error tells it.
sr_status sr_viewer_create(const sr_viewer_desc *desc, sr_scene *scene, sr_viewer **out, sr_error *err);
/// Closes the window and frees the viewer and what it owns (the scenes it loaded; never the
/// program's scene or lists). Waits for a load in progress to stop. NULL is fine.
void sr_viewer_destroy(sr_viewer *viewer);

/// One pass of the viewer: handles the pending input (without waiting), then draws and presents
/// a frame if anything changed (camera, overlays, window size, a pick, a finished load, nodes
/// moved or the camera set in the program's scene, a list the viewer draws changed
/// (sr_debug_list_generation), or sr_viewer_request_redraw). `extra` (may be NULL) is the
/// program's debug list of this frame (its physics' contacts, say), drawn with the view camera
/// over the scene after the lists of sr_viewer_add_list and under the viewer's overlays and HUD.
/// The viewer keeps the pointer until the next sr_viewer_frame (or sr_viewer_remove_list of it):
/// a frame saved in between (sr_viewer_save_frame, the S key, a script) shows it, and a list
/// cleared and refilled in place is drawn again without any other call. When nothing needs
/// drawing the call waits for input for up to 16 ms, so a loop around it never spins. Returns
/// false when the user closed the window (or pressed Esc or Q), or on an error (then `err` is
/// filled; err->status says which).
bool sr_viewer_frame(sr_viewer *viewer, sr_debug_list *extra, sr_error *err);

/// Asks for a new frame at the next sr_viewer_frame (the scene changed under the viewer in a way
/// it does not notice by itself: materials, light, background).
void sr_viewer_request_redraw(sr_viewer *viewer);

/// Most lists sr_viewer_add_list keeps.
#define SR_VIEWER_MAX_LISTS 16

/// Draws `list` on every frame from now on (also under sr_viewer_run and scripts), before the
/// `extra` list of sr_viewer_frame, in the order added; a change to its contents
/// (sr_debug_list_generation) redraws. The viewer does not own it: remove it before destroying
/// it. Adding a list twice is a no-op. Errors: NULL list, more than SR_VIEWER_MAX_LISTS lists.
sr_status sr_viewer_add_list(sr_viewer *viewer, sr_debug_list *list, sr_error *err);
/// Stops drawing `list` (added, or the `extra` of the last sr_viewer_frame); the next frame is
/// drawn without it. A list the viewer does not draw is ignored.
void sr_viewer_remove_list(sr_viewer *viewer, const sr_debug_list *list);

/// Saves what the window shows as `path` (.bmp or .png, by the extension; written to a
/// temporary name and renamed): the frame of the current state, drawn first if anything changed
/// since the last one, with the program's lists. Errors: those of sr_framebuffer_save and of
/// drawing.
sr_status sr_viewer_save_frame(sr_viewer *viewer, const char *path, sr_error *err);
/// The last frame drawn (its size is the window's drawable size): read only, valid until the
/// next call that draws (sr_viewer_frame, sr_viewer_save_frame, sr_viewer_run, scripts).
const sr_framebuffer *sr_viewer_framebuffer(const sr_viewer *viewer);

/// The camera the view is drawn with (resolved; the orbit the mouse drives).
sr_camera sr_viewer_camera(const sr_viewer *viewer);
/// Makes `camera` the view camera, exactly (a saved frame equals `softrast render --camera` of
/// it); the mouse then orbits, pans and zooms from there (about +Y). Home still returns to the
/// scene's camera; with no scene, to this one. The next sr_viewer_frame draws it. Errors: an
/// invalid camera (sr_camera_check's message), leaving the view unchanged.
sr_status sr_viewer_set_camera(sr_viewer *viewer, const sr_camera *camera, sr_error *err);

/// The overlays shown: SR_OVERLAY_* bits of softrast/debug.h (BVH, MESH_BVH, BOUNDS, NORMALS,
/// WIRE, PICK, HEAT, AXES, GRID, HUD, and CONTACTS, CLOSEST, PAIRS: the collision pass over the
/// scene's shapes, run in each frame drawn while one of these is on), as the keys of
/// sr_viewer_help_text toggle them. A new viewer shows the HUD alone.
uint32_t sr_viewer_overlays(const sr_viewer *viewer);
/// Shows exactly the overlays `items` (SR_OVERLAY_* bits; SR_OVERLAY_FRUSTUM is ignored: it shows
/// with the frozen culling camera of the F key; SR_OVERLAY_PICK shows only when there is a pick).
void sr_viewer_set_overlays(sr_viewer *viewer, uint32_t items);
/// The depth ranges of the BVH overlays ([ and ] shift them): instance tree depths first to
/// last (0 is the root) and mesh BVH depths mesh_first to mesh_last. Errors: a negative depth,
/// last below first, a range deeper than 255.
sr_status sr_viewer_set_bvh_depths(sr_viewer *viewer, int first, int last, int mesh_first, int mesh_last,
                                   sr_error *err);
/// Lines of the program's own added to the HUD (its step count, bodies, contacts), shown under
/// the viewer's while the HUD is on; NULL or "" for none. Copied (up to 2047 bytes).
void sr_viewer_set_hud_text(sr_viewer *viewer, const char *text);

/// The last pick made by a click (false and *hit untouched when there is none, or after the
/// scene was reloaded). The hit is what sr_scene_pick gave for the click's pixel centre.
bool sr_viewer_last_pick(const sr_viewer *viewer, sr_pick_hit *hit);
/// The scene shown: the program's, or the one the viewer loaded (NULL while the first load of
/// desc->scene_path runs or after it failed, and with no scene). Valid until the next
/// sr_viewer_frame.
sr_scene *sr_viewer_scene(const sr_viewer *viewer);
/// The message of the last failed load of desc->scene_path ("" when it loaded).
const char *sr_viewer_load_error(const sr_viewer *viewer);

/* ---- recordings (softrast/record.h) ---- */

/// Where a recording's playback is (sr_viewer_get_playback). A viewer shows a recording when
/// desc->scene_path is one (a file that starts with SR_RECORD_MAGIC, whatever its name): its
/// frames' lists and scene, with a timeline and the playback keys of sr_viewer_help_text.
typedef struct sr_viewer_playback {
    bool recording;       ///< a recording is shown (false: the rest is zero)
    uint64_t frame;       ///< the frame shown (0-based)
    uint64_t frame_count; ///< readable frames of the file
    double time;          ///< the frame's recorded time
    bool playing;
    double speed;         ///< times real time: 1/16 to 16
    bool loop;            ///< play loops over frames loop_first to loop_last
    uint64_t loop_first, loop_last;
} sr_viewer_playback;
sr_viewer_playback sr_viewer_get_playback(const sr_viewer *viewer);
/// Shows frame `frame` of the recording (clamped to its last frame; play goes on from there
/// when playing). The next sr_viewer_frame draws it. Errors: no recording shown (yet: the first
/// sr_viewer_frame opens it), a frame that cannot be read (the message names the file and frame).
sr_status sr_viewer_seek(sr_viewer *viewer, uint64_t frame, sr_error *err);
/// Starts or stops play (as Space does). Nothing without a recording.
void sr_viewer_play(sr_viewer *viewer, bool play);

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
