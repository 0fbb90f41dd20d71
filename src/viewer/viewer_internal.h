/* viewer_internal.h — what the viewer's files share (private to src/viewer): the viewer struct,
 * the input handling (viewer_input.c), the frame and its pieces (viewer.c, viewer_draw.c), the
 * loading worker (viewer_load.c), the script player (viewer_script.c), picking debug items
 * (viewer_item_pick.c); a recording's playback has its own header (viewer_playback.h). */
#ifndef SR_VIEWER_INTERNAL_H
#define SR_VIEWER_INTERNAL_H

#include <softrast/record.h>
#include <softrast/viewer.h>

#include "viewer_playback.h"

#include <SDL.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define VIEWER_DEFAULT_WIDTH 1280
#define VIEWER_DEFAULT_HEIGHT 720
/// Frame times kept for the medians of sr_viewer_stats.
#define VIEWER_TIMES 256
/// Presentation times kept for the frames-per-second figure (one second's worth at most).
#define VIEWER_PRESENTS 512
/// A press and release this many drawable pixels apart (or less) is a click, not a drag.
#define VIEWER_CLICK_SLOP 3.0f
/// How long a HUD message stays, in milliseconds.
#define VIEWER_MESSAGE_MS 4000u
/// The initial depth windows of the BVH overlays (`[` and `]` shift them).
#define VIEWER_BVH_WINDOW 4
/// A recording's decoded frames kept by default (sr_viewer_desc.recording_cache_bytes).
#define VIEWER_RECORDING_CACHE_BYTES ((size_t)192 << 20)
#define VIEWER_MESH_BVH_WINDOW 6

/// A scene file loaded on a worker thread. The worker writes stage, fraction, done, scene and
/// error under `lock`; the viewer reads them under `lock` and joins the thread once done.
typedef struct viewer_load {
    pthread_t thread;
    pthread_mutex_t lock;
    bool running; ///< a thread was started and not joined yet
    bool done;    ///< the worker finished (scene or error set)
    bool cancel;  ///< the viewer asks the worker to stop (progress returns false)
    bool terminal_progress;
    bool reload; ///< a reload (the old scene stays shown meanwhile)
    char path[4096];
    char stage[256];
    double fraction;
    int bar_shown; ///< terminal bar: last percentage printed, -1 none
    sr_scene *scene;
    sr_error error;
    sr_model_view_desc model_view; ///< how a mesh is shown (set before the worker starts)
    /// The file is a recording (its magic, whatever its name): opened and brought to
    /// `recording_frame` (the last frame when `follow_end`) instead of loaded as a scene.
    sr_recording *recording;
    uint64_t recording_frame;
    bool follow_end;
    double open_ms; ///< how long the worker took (a recording that grows reloads by itself when short)
    bool quiet;     ///< a recording read again because it grew: no message
    size_t cache_bytes; ///< a recording's cache bound (sr_viewer_desc.recording_cache_bytes)
    /// An SDL event type the worker pushes when it is done, so that the viewer's loop, waiting
    /// for input, takes the result at once (0: none could be registered; the loop polls).
    Uint32 wake_event;
} viewer_load;

/// The frame's collision pass on a thread of its own (viewer_pass.c). The calling thread writes
/// scene, collision and requested, the pass thread status, err and running, both under `lock`;
/// the other fields are the calling thread's.
typedef struct viewer_pass {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    bool thread_started, thread_failed; ///< thread, lock and conditions exist / could not be made
    bool requested, running, quit;
    bool pending; ///< started and not yet finished (viewer_pass_finish)
    sr_scene *scene;
    sr_collision *collision;
    sr_status status;
    sr_error err;
} viewer_pass;

/// The state of the mouse between a press and its release.
typedef struct viewer_drag {
    int button;             ///< SDL_BUTTON_LEFT, ...; 0 when no button is down
    bool pan;               ///< right button or shift + left
    bool shift;             ///< shift was held at the press (a shift + click selects a second shape)
    float start_x, start_y; ///< drawable pixels
    float last_x, last_y;
    bool moved; ///< went past VIEWER_CLICK_SLOP: a drag, not a click
    bool timeline; ///< pressed on a recording's timeline or legend: the drag scrubs, no orbit
    /// ctrl + left: moves `node` (a selected shape); alt + left: turns it; otherwise the camera.
    enum { VIEWER_DRAG_CAMERA = 0, VIEWER_DRAG_MOVE, VIEWER_DRAG_ROTATE } mode;
    sr_node_id node;
} viewer_drag;

/// The id buffer and scratch list of item picking (viewer_item_pick.c), made at the first click.
typedef struct viewer_item_pick {
    sr_framebuffer *fb;
    sr_debug_list *scratch;
} viewer_item_pick;

/// A debug item found under a click: item `item` of list `list` of the lists given.
typedef struct viewer_item_hit {
    int list;
    size_t item;
    float distance_px; ///< from the click to the nearest pixel the item drew
} viewer_item_hit;

/// Whether item `item` of list `list` is drawn (hidden items are not picked).
typedef bool (*viewer_item_filter)(void *user, int list, size_t item);

/// What a selected pair shows: the scene, or the pair's trace as `softrast collide` draws it.
typedef enum viewer_pair_view {
    VIEWER_PAIR_SCENE = 0,
    VIEWER_PAIR_WORLD,     ///< the two shapes and the trace's world view
    VIEWER_PAIR_MINKOWSKI, ///< A - B, the origin and the trace's steps
    VIEWER_PAIR_BOTH,      ///< the two side by side
} viewer_pair_view;

/// The selected shapes (viewer_collide.c): A by a click, B by shift + click.
typedef struct viewer_pair {
    sr_node_id a, b;
    bool has_a, has_b;
    /// A shape moved or the selection changed since the answer was computed.
    bool changed;
    bool answered; ///< `result` is the pair's answer as the scene is now
    sr_collide_status status;
    sr_collide_result result; ///< sr_collide_signed_distance
    double query_us;          ///< its time
    viewer_pair_view view;
    int step; ///< the trace's step shown; -1: the last
    sr_debug_trace_kind kind; ///< the trace shown (G, E, T)
    /// The trace of `kind` for the shapes `traced_a` and `traced_b` (run again when they move).
    sr_debug_pair_trace trace;
    bool traced;
    sr_shape traced_a, traced_b;
} viewer_pair;

struct sr_viewer {
    sr_viewer_desc desc; ///< with defaults filled in; strings point into the copies below
    char title[256];
    char scene_path[4096]; ///< "" for none
    char save_folder[4096];

    SDL_Window *window;
    SDL_Renderer *sdl_renderer;
    SDL_Texture *texture;
    int texture_width, texture_height;
    Uint32 texture_format; ///< SDL_PIXELFORMAT_ARGB8888 or RGBA32 (viewer.c: texture_format)
    bool sdl_ready;        ///< SDL_InitSubSystem(VIDEO) succeeded (undone in destroy)

    sr_scene *scene; ///< shown (NULL while the first load runs or after it failed)
    bool owns_scene; ///< loaded (or made empty) by the viewer
    bool no_scene;   ///< opened with no scene: `scene` is an empty one of the viewer's own
    char scene_name[128];
    sr_renderer *renderer;
    sr_framebuffer *fb;
    sr_scene_frame *frame;
    sr_debug_list *list;     ///< the 3D overlays
    sr_debug_list *hud_list; ///< the HUD, legends and panels, drawn over the program's lists
    int threads;

    /* the cameras */
    sr_camera home; ///< the scene's camera (resolved): Home goes back to it
    /// The camera the orbit started from: `home`, or the program's (sr_viewer_set_camera). Its
    /// projection, field of view and clip planes are the view's.
    sr_camera base;
    sr_orbit orbit; ///< the view camera's eye and target (the mouse drives it)
    /// The orbit was moved since the last reset: until then the view is `base` itself, to the
    /// bit (the orbit's eye, recomputed from angles, may differ in the last digit).
    bool orbit_moved;
    bool frozen; ///< F: culling keeps `cull_camera`, the view is free
    sr_camera cull_camera;

    /* overlays */
    uint32_t overlays;                 ///< SR_OVERLAY_* bits the user turned on (SR_OVERLAY_PICK: show the pick)
    int bvh_first, bvh_last;           ///< instance BVH depths drawn
    int mesh_bvh_first, mesh_bvh_last; ///< mesh BVH depths drawn
    bool help;                         ///< H: the help panel
    /// The collision pass of the contacts, closest and pairs overlays (I, D, A), run in each frame
    /// drawn while one of them is on; NULL until then.
    sr_collision *collision;

    /* picking */
    bool has_pick;
    sr_pick_hit pick;
    float pick_x, pick_y; ///< drawable pixels of the click

    /* input */
    viewer_drag drag;
    bool shift_held, ctrl_held, alt_held;
    viewer_pair pair;
    float mouse_x, mouse_y; ///< last known mouse position, drawable pixels
    float scale_x, scale_y; ///< drawable pixels per window pixel

    /* the program's lists: drawn over the scene in this order, then `extra` */
    sr_debug_list *lists[SR_VIEWER_MAX_LISTS];
    int list_count;
    sr_debug_list *extra; ///< sr_viewer_frame's, kept until the next call
    /// What the last frame drew: each list and its generation (sr_debug_list_generation), so
    /// that a list refilled in place (or another list) draws a new frame.
    const sr_debug_list *drawn_lists[SR_VIEWER_MAX_LISTS + 1];
    uint64_t drawn_generations[SR_VIEWER_MAX_LISTS + 1];
    int drawn_count;
    char hud_text[2048]; ///< the program's HUD lines (sr_viewer_set_hud_text)

    /* frame pacing */
    bool dirty; ///< something changed: draw a frame
    bool quit;
    char message[512];
    bool message_is_error;
    uint32_t message_until; ///< SDL_GetTicks() when the message goes; 0 = stays
    uint32_t last_poll;     ///< SDL_GetTicks() of the last mtime poll
    uint32_t created_ticks; ///< SDL_GetTicks() at sr_viewer_create
    struct timespec scene_mtime;
    bool have_mtime;
    sr_error failure; ///< an error of sr_viewer_frame's own (rendering, SDL), reported once

    viewer_load load;
    viewer_pass pass;
    char load_error[512];
    viewer_playback *playback; ///< a recording is shown (NULL: a scene, or nothing)
    bool grew_said;            ///< told once that the recording grew and R reads it
    viewer_item_pick item_pick;

    /* statistics */
    uint64_t frames;
    double frame_ms[VIEWER_TIMES], render_ms[VIEWER_TIMES];
    uint32_t presents[VIEWER_PRESENTS]; ///< SDL_GetTicks() of recent presents (ring)
    uint64_t present_count;
    double last_frame_ms, last_render_ms;
    char title_shown[512]; ///< the window's title now (set only when it changes)
    char hud_shown[2048];  ///< the HUD's text in the last frame ("" with the HUD off; print-state)
    char notice_shown[256]; ///< the last slow-frame notice (viewer_notice_slow_frame; print-state)
};

/* viewer.c */
/// Tells the user `format` through desc.message (stdout or stderr by default) and the HUD (for
/// VIEWER_MESSAGE_MS).
void viewer_say(sr_viewer *viewer, bool is_error, const char *format, ...) __attribute__((format(printf, 3, 4)));
/// Whether the viewer shows a file it loaded itself (a scene or a recording): R and changes on
/// disk read it again.
bool viewer_owns_file(const sr_viewer *viewer);
/// The view camera: the orbit with the scene camera's projection.
sr_camera viewer_view_camera(const sr_viewer *viewer);
/// Handles every event on SDL's queue; waits up to `wait_ms` for the first one (0: no wait).
void viewer_pump(sr_viewer *viewer, int wait_ms);
/// What happens with time rather than input: a finished load, a changed scene file (polled once
/// a second), a message that expires.
void viewer_periodic(sr_viewer *viewer);
/// Notices what the program changed in its scene between frames: moved nodes (a redraw) and a
/// new camera (sr_scene_set_camera: the view follows it).
void viewer_watch_scene(sr_viewer *viewer);
/// The program's lists to draw, in order: the added ones, then sr_viewer_frame's `extra`
/// (unless it is one of them). `lists` has room for SR_VIEWER_MAX_LISTS + 1.
int viewer_program_lists(const sr_viewer *viewer, sr_debug_list **lists);
/// How many lists of the program's the viewer draws, with their items and the items they dropped
/// past their capacities since their last clear.
int viewer_lists_summary(const sr_viewer *viewer, size_t *items, size_t *dropped);
/// Whether the program's lists differ from those the last frame drew, or were refilled since.
bool viewer_lists_changed(const sr_viewer *viewer);
/// Draws and presents a frame when dirty, when a program's list changed, or when `force`; false
/// on an error (in viewer->failure).
bool viewer_draw_if_needed(sr_viewer *viewer, bool force);
/// Whether a load runs; finishes it (swap in the scene or keep the error) when it is done.
bool viewer_load_poll(sr_viewer *viewer);
/// Saves the current frame (drawn first when something changed) as `path`.
sr_status viewer_save(sr_viewer *viewer, const char *path, sr_error *err);
/// Sets the camera to the scene's (Home).
void viewer_reset_camera(sr_viewer *viewer);
/// The overlay list of the current state in `softrast render --overlay` syntax ("" for none).
void viewer_overlay_spec(const sr_viewer *viewer, char *out, size_t size);
/// A camera in `--camera` syntax, exact to the bit (%.9g).
void viewer_camera_spec(const sr_camera *camera, char *out, size_t size);

/* viewer_draw.c */
/// Draws the frame into viewer->fb: the scene, the program's lists, the overlays, the HUD, the
/// help panel and messages; or the loading screen. *render_ms: the time it took.
sr_status viewer_render(sr_viewer *viewer, double *render_ms, sr_error *err);
/// Draws "WHAT ..." centred over the frame in viewer->fb (the last one shown), for a frame that
/// will take long (the heat map): the caller presents it before starting that frame.
void viewer_notice_slow_frame(sr_viewer *viewer, const char *what);

/// Text in a dark box at (x, y) at text scale `scale`; returns the box's height.
float viewer_text_panel(sr_debug_list *list, float x, float y, const char *text, uint32_t color, uint32_t backdrop,
                        int scale);
/// Errors, messages (with the HUD) and the help panel, over everything else, at text scale `scale`.
void viewer_add_panels(const sr_viewer *viewer, sr_debug_list *list, int scale);

/* viewer_pairview.c */
/// A pair is selected and one of its trace views (M, G, E, T) is shown instead of the scene.
bool viewer_pair_view_shown(const sr_viewer *viewer);
/// Draws the trace view into viewer->fb (sr_debug_pair_picture, as `softrast collide` does), the
/// HUD's pair panel, the help and messages over it.
sr_status viewer_pair_render(sr_viewer *viewer, sr_error *err);
/// The keys that mean something else while a pair is selected (M, G, E, T, comma, period, Home
/// in a trace view); false when `key` is not one of them now.
bool viewer_pair_key(sr_viewer *viewer, SDL_Keycode key);
/// The camera of the trace view under drawable x (a ctrl or alt drag there moves the shape in
/// it) and that view's width; false when the scene is shown.
bool viewer_pair_view_camera(sr_viewer *viewer, float x, sr_camera *camera, int *width);
/// The trace shown: its query, the step shown (resolved: -1 when there are none) and their count.
const char *viewer_pair_trace_state(sr_viewer *viewer, int *step, int *steps);

/* viewer_input.c */
/// One event of SDL's queue (a person's or a script's): shown to the program's input filter
/// first, handled, and handed to the program's input callback when the viewer had no use for it.
void viewer_handle_event(sr_viewer *viewer, const SDL_Event *event);
/// Picks at drawable point (x, y) with the view camera, bringing the scene up to date first;
/// false when there is no scene (or the update failed).
bool viewer_pick_at(sr_viewer *viewer, float x, float y, sr_pick_hit *hit);

/* viewer_item_pick.c */
/// The item of `lists` (count of them, drawn in that order over the scene with the view camera)
/// drawn nearest frame pixel (x, y), within `radius` pixels, among those `shown` lets through
/// (NULL: all); false when none is.
bool viewer_pick_item(sr_viewer *viewer, sr_debug_list *const *lists, int count, viewer_item_filter shown, void *user,
                      float x, float y, float radius, viewer_item_hit *hit);
void viewer_item_pick_free(sr_viewer *viewer);
/// What the item is, short ("line", "sphere", ...).
const char *viewer_item_kind_name(sr_debug_item_kind kind);
/// Where the item is: a line's middle, a shape's centre, text's anchor (2D items: window pixels,
/// *is_2d set).
sr_vec3 viewer_item_position(const sr_debug_list *list, const sr_debug_item *item, bool *is_2d);
/// The item in words: kind, parameters, colour (lines of text).
void viewer_item_describe(const sr_debug_list *list, const sr_debug_item *item, char *out, size_t size);
/* viewer_collide.c */
/// Whether `node` is a live node of the shown scene with a collision shape.
bool viewer_pair_node_ok(const sr_viewer *viewer, sr_node_id node);
/// The node's name ("" for none).
const char *viewer_node_name(const sr_viewer *viewer, sr_node_id node);
/// Selects `node` as A (the pair starts again), or as B when `second` and A is set; false when
/// the node has no shape.
bool viewer_pair_select(sr_viewer *viewer, sr_node_id node, bool second);
void viewer_pair_clear(sr_viewer *viewer);
/// Both shapes of a pair are selected.
bool viewer_pair_selected(const sr_viewer *viewer);
/// The pair's shapes at their world poses now (the scene brought up to date); false without a pair.
bool viewer_pair_shapes(sr_viewer *viewer, sr_shape *a, sr_shape *b);
/// Computes the pair's answer for the scene as it is now (timed).
void viewer_pair_answer(sr_viewer *viewer);
/// The HUD's lines about the selection: names, distance or depth, normal, iterations, time.
size_t viewer_pair_hud(const sr_viewer *viewer, char *out, size_t size);
/// The selected shapes' wires and the pair's answer over the scene (seen by `camera`).
void viewer_pair_overlay(sr_viewer *viewer, sr_debug_list *list, const sr_camera *camera, int height);
/// Which selected shape a ctrl or alt drag starting at (x, y) takes: the one under the cursor,
/// else the last selected; false with nothing selected.
bool viewer_pair_grab(sr_viewer *viewer, float x, float y, sr_node_id *node);
/// The world displacement, in the view plane through `at`, of a drag from pixel (x0, y0) to
/// (x1, y1) of a width x height image seen by `camera`.
sr_dvec3 viewer_drag_displacement(const sr_camera *camera, int width, int height, sr_vec3 at, float x0, float y0,
                                  float x1, float y1);
/// Moves the node's shape by the drag's world displacement at its depth.
bool viewer_pair_move(sr_viewer *viewer, sr_node_id node, const sr_camera *camera, float x0, float y0, float x1,
                      float y1);
/// Turns the node's shape about its position: dx pixels about the view's up axis, dy about its
/// right axis.
bool viewer_pair_rotate(sr_viewer *viewer, sr_node_id node, const sr_camera *camera, float dx, float dy);
/// print-pair: the selected shapes' names and world poses and the pair's answer as one JSON line.
void viewer_pair_print(sr_viewer *viewer, FILE *out);

/* viewer_pass.c */
/// Brings the scene up to date and starts the collision pass over it into viewer->collision
/// (created first when NULL) on the pass thread (on this one when no thread can be started).
/// Until viewer_pass_finish only sr_scene_render may use the scene. Errors: those of the update,
/// out of memory for the collision result (no pass is then started).
sr_status viewer_pass_start(sr_viewer *viewer, sr_error *err);
/// Waits for the pass viewer_pass_start started (nothing when none) and returns its status.
sr_status viewer_pass_finish(sr_viewer *viewer, sr_error *err);
/// Waits for a pass still running and ends the pass thread.
void viewer_pass_stop(sr_viewer *viewer);

/* viewer_load.c */
/// Starts loading viewer->scene_path on the worker (`reload`: the shown scene stays meanwhile).
bool viewer_load_start(sr_viewer *viewer, bool reload);
/// Asks a running load to stop and waits for it; frees what it made.
void viewer_load_stop(sr_viewer *viewer);
/// The file's modification time; false when it cannot be read.
bool viewer_file_mtime(const char *path, struct timespec *mtime);

#endif
