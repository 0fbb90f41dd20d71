/* viewer_input.c — a person's (or a script's) input to the viewer: mouse drags orbit and pan the
 * camera (sr_orbit_rotate, sr_orbit_pan), the wheel zooms about the point under the cursor
 * (sr_orbit_zoom), a click picks (sr_scene_pick through the pixel convention), a double click
 * frames the object (sr_orbit_frame), and the keys of the help text toggle overlays and modes.
 * Window coordinates are mapped to drawable pixels first, so picks hit what is drawn there on
 * high-DPI screens too. */
#include "viewer_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/// Degrees the camera turns per drawable pixel dragged.
#define ORBIT_DEGREES_PER_PIXEL 0.4f
/// Distance factor per wheel notch (towards the scene).
#define ZOOM_PER_NOTCH 0.85f

/* The bindings, in the order the help shows them. The overlay keys toggle `bit`. */
typedef enum key_action {
    ACTION_OVERLAY = 0,
    ACTION_HELP,
    ACTION_DEEPER,
    ACTION_SHALLOWER,
    ACTION_FREEZE,
    ACTION_HOME,
    ACTION_SAVE,
    ACTION_RELOAD,
    ACTION_CLEAR_PICK,
    ACTION_VIEW,
    ACTION_QUIT,
} key_action;

typedef struct key_binding {
    SDL_Keycode key;
    key_action action;
    uint32_t bit;
} key_binding;

static const key_binding bindings[] = {
    {SDLK_b, ACTION_OVERLAY, SR_OVERLAY_BVH},
    {SDLK_m, ACTION_OVERLAY, SR_OVERLAY_MESH_BVH},
    {SDLK_o, ACTION_OVERLAY, SR_OVERLAY_BOUNDS},
    {SDLK_n, ACTION_OVERLAY, SR_OVERLAY_NORMALS},
    {SDLK_w, ACTION_OVERLAY, SR_OVERLAY_WIRE},
    {SDLK_t, ACTION_OVERLAY, SR_OVERLAY_HEAT},
    {SDLK_g, ACTION_OVERLAY, SR_OVERLAY_GRID},
    {SDLK_x, ACTION_OVERLAY, SR_OVERLAY_AXES},
    {SDLK_p, ACTION_OVERLAY, SR_OVERLAY_PICK},
    {SDLK_i, ACTION_OVERLAY, SR_OVERLAY_CONTACTS},
    {SDLK_d, ACTION_OVERLAY, SR_OVERLAY_CLOSEST},
    {SDLK_a, ACTION_OVERLAY, SR_OVERLAY_PAIRS},
    {SDLK_u, ACTION_OVERLAY, SR_OVERLAY_HUD},
    {SDLK_TAB, ACTION_OVERLAY, SR_OVERLAY_HUD},
    {SDLK_h, ACTION_HELP, 0},
    {SDLK_F1, ACTION_HELP, 0},
    {SDLK_RIGHTBRACKET, ACTION_DEEPER, 0},
    {SDLK_LEFTBRACKET, ACTION_SHALLOWER, 0},
    {SDLK_f, ACTION_FREEZE, 0},
    {SDLK_HOME, ACTION_HOME, 0},
    {SDLK_s, ACTION_SAVE, 0},
    {SDLK_r, ACTION_RELOAD, 0},
    {SDLK_c, ACTION_CLEAR_PICK, 0},
    {SDLK_v, ACTION_VIEW, 0},
    {SDLK_ESCAPE, ACTION_QUIT, 0},
    {SDLK_q, ACTION_QUIT, 0},
};

static const char help_mouse[] = "mouse:\n"
           "  left drag           orbit around the target\n"
           "  right drag          pan (also shift + left drag, or middle drag)\n"
           "  wheel               zoom towards the point under the cursor (the target\n"
           "                      when nothing is there)\n"
           "  click               pick: the HUD shows node, triangle, t, position, normal;\n"
           "                      the ray, hit and the picked instance's box are drawn;\n"
           "                      a node with a collision shape is selected (orange wire)\n"
           "  shift + click       select a second shape (blue wire): the pair's distance or\n"
           "                      depth, normal, iterations and query time show in the HUD\n"
           "                      and over the scene, following every change\n"
           "  ctrl + left drag    move the selected shape (the one under the cursor, else the\n"
           "                      last selected) in the view plane through its centre\n"
           "  alt + left drag     turn it about the view's up (drag across) and right (drag\n"
           "                      up and down) axes\n"
           "  double-click        frame the clicked object\n"
           ;
static const char help_keys[] = "keys while a pair is selected (M, G, T then mean these, not the overlays):\n"
           "  G  E  T             the GJK, EPA or SAT trace of the pair, drawn instead of the\n"
           "                      scene, the picture of the command softrast collide;\n"
           "                      the same key again: back to the scene\n"
           "  M                   cycle the trace's world view, Minkowski view (A - B and the\n"
           "                      origin) and both side by side\n"
           "  , and .             step back and forth through the trace's iterations\n"
           "  Home                (in a trace) the last step: the answer\n"
           "keys (overlays on/off):\n"
           "  B                   instance BVH boxes (coloured by depth)\n"
           "  M                   mesh BVH boxes of the drawn instances\n"
           "  O                   bounds: each drawn instance's world box\n"
           "  N                   vertex normals\n"
           "  W                   wireframe\n"
           "  T                   heat map: BVH nodes each pixel's pick visited\n"
           "  G                   ground grid          X   world axes\n"
           "  P                   the last pick's ray and hit (on after a click)\n"
           "  U or Tab            HUD (statistics, frame time, pick; a recording's\n"
           "                      timeline)\n"
           "  I                   contacts: each touching or penetrating pair of shapes,\n"
           "                      its contact point, normal and depth\n"
           "  D                   closest: pairs apart by less than the margin, the segment\n"
           "                      between their closest points and the distance\n"
           "  A                   pairs: the broadphase's candidate pairs, coloured by what\n"
           "                      the narrowphase found (I, D, A run the collision pass over\n"
           "                      the scene's shapes in every frame while one is on; the HUD\n"
           "                      counts pairs, tests, contacts and their times)\n"
           "keys:\n"
           "  [ and ]             shift the drawn BVH depth ranges one level shallower /\n"
           "                      deeper, keeping their width (instance BVH 0-3 and mesh\n"
           "                      BVH 0-5 at first; the instance range starts at 0 at the\n"
           "                      shallowest and at the tree's deepest level at the deepest)\n"
           "  F                   freeze the culling camera: culling keeps it, its frustum\n"
           "                      and the culled instances are drawn, you orbit freely;\n"
           "                      F again follows the view again\n"
           "  Home or V           reset the camera to the scene's (in a recording: V, the\n"
           "                      recorded camera; Home is the first frame)\n"
           "  S                   save the frame as BMP next to the scene file\n"
           "  R                   reload the scene file (also when it changes on disk)\n"
           "  C                   clear the pick and the selected shapes\n"
           "  H or F1             this help\n"
           "  Esc or Q            quit\n"
           ;
static const char help_recordings[] = "recordings (softrast view FILE.rec; the timeline is at the bottom):\n"
           "  Space               play / pause (in real time times the speed)\n"
           "  Right / Left        next / previous frame (held: keeps stepping)\n"
           "  Shift+Right / Left  10 frames on / back\n"
           "  Page Down / Up      100 frames on / back\n"
           "  Ctrl+Right / Left   the next / previous message's frame\n"
           "  Home / End          first / last frame\n"
           "  + / -               speed x2 / x1/2 (1/16x to 16x)\n"
           "  L                   loop: marks the range's first frame, then its last (play\n"
           "                      then loops over it), then clears it; or Shift + drag on\n"
           "                      the timeline\n"
           "  click or drag on    go to that frame, scrub; the wheel over it steps frames\n"
           "  the timeline\n"
           "  click               pick the recorded item drawn there (or the node): the\n"
           "                      HUD says what it is, where, at which frame; it stays\n"
           "                      selected from frame to frame\n"
           "  1 to 9, 0           show / hide recorded list 1 to 9; 0 shows everything\n"
           "  Shift+1 to 9        show / hide the legend's colour 1 to 9\n"
           "  K                   legend: the lists and colours with their counts (click\n"
           "                      a row to show / hide it)\n";

/* The help in three literals (each within the 4,095 characters C17 compilers must take), joined
 * once. */
const char *sr_viewer_help_text(void)
{
    static char text[sizeof help_mouse + sizeof help_keys + sizeof help_recordings];
    if (!text[0])
        snprintf(text, sizeof text, "%s%s%s", help_mouse, help_keys, help_recordings);
    return text;
}

bool viewer_pick_at(sr_viewer *viewer, float x, float y, sr_pick_hit *hit)
{
    if (!viewer->scene)
        return false;
    // A program that moves its nodes every step leaves the scene needing an update whenever
    // input arrives: bring it up to date (as the frame about to be drawn would), so that the
    // click picks the nodes where they are drawn next.
    if (sr_scene_needs_update(viewer->scene) && sr_scene_update(viewer->scene, NULL, NULL) != SR_OK)
        return false;
    sr_camera view = viewer_view_camera(viewer);
    return sr_scene_pick(viewer->scene, &view, viewer->fb->width, viewer->fb->height, x, y, hit, NULL) == SR_OK;
}

/* Window coordinates (SDL's mouse events) to drawable pixels. */
static void to_drawable(const sr_viewer *viewer, int x, int y, float *out_x, float *out_y)
{
    *out_x = ((float)x + 0.5f) * viewer->scale_x;
    *out_y = ((float)y + 0.5f) * viewer->scale_y;
}

static void click(sr_viewer *viewer, float x, float y, bool shift)
{
    if (viewer_pair_view_shown(viewer)) {
        // The scene is not on screen: a click there would pick what cannot be seen.
        viewer_say(viewer, false, "a trace is shown: its key (G, E or T) again shows the scene to click in");
        return;
    }
    if (viewer->playback) {
        viewer_playback_click(viewer, x, y); // a recorded item first, else the node
        return;
    }
    sr_pick_hit hit;
    if (!viewer_pick_at(viewer, x, y, &hit))
        return;
    // A shape selects it (shift: the pair's second); anything else ends the selection.
    if (!(hit.hit && viewer_pair_select(viewer, hit.node, shift)) && !shift && viewer->pair.has_a)
        viewer_pair_clear(viewer);
    viewer->pick = hit;
    viewer->has_pick = true;
    viewer->pick_x = x;
    viewer->pick_y = y;
    viewer->overlays |= SR_OVERLAY_PICK;
    viewer->dirty = true;
}

static void frame_object(sr_viewer *viewer, float x, float y)
{
    sr_pick_hit hit;
    sr_node_info info;
    if (!viewer_pick_at(viewer, x, y, &hit) || !hit.hit || sr_scene_node(viewer->scene, hit.node, &info, NULL) != SR_OK)
        return;
    sr_orbit_frame(&viewer->orbit, info.world_aabb, &viewer->base,
                   (float)viewer->fb->width / (float)viewer->fb->height);
    viewer->orbit_moved = true;
    viewer->dirty = true;
}

/* Wheel notches, positive away from the user. */
static float wheel_notches(const SDL_MouseWheelEvent *wheel)
{
    float notches = wheel->preciseY != 0.0f ? wheel->preciseY : (float)wheel->y;
    return wheel->direction == SDL_MOUSEWHEEL_FLIPPED ? -notches : notches;
}

static void zoom(sr_viewer *viewer, float notches, float x, float y)
{
    if (notches == 0.0f || !viewer->scene)
        return;
    if (viewer->playback && viewer_timeline_contains(viewer, x, y)) {
        // Over the timeline the wheel steps frames: away from the user goes forward.
        viewer_playback *p = viewer->playback;
        if (p->has_frame) {
            long step = lroundf(notches);
            step = step == 0 ? (notches > 0.0f ? 1 : -1) : step;
            long target = (long)p->frame.index + step;
            p->playing = false;
            viewer_playback_seek(viewer, target < 0 ? 0 : (uint64_t)target);
            viewer->dirty = true;
        }
        return;
    }
    sr_pick_hit hit;
    bool on_something = viewer_pick_at(viewer, x, y, &hit) && hit.hit;
    float factor = powf(ZOOM_PER_NOTCH, notches);
    float distance = viewer->orbit.distance;
    sr_orbit_zoom(&viewer->orbit, factor, on_something ? &hit.position : NULL);
    // An orthographic view's size is its height, not its distance: scale it alike, so that the
    // wheel zooms there too (about the same point).
    if (viewer->base.projection == SR_PROJECTION_ORTHOGRAPHIC && viewer->orbit.distance != distance)
        viewer->base.height *= factor;
    viewer->orbit_moved = true;
    viewer->dirty = true;
}

/* The tree's deepest level, for clamping the instance BVH range. */
static int instance_tree_height(const sr_viewer *viewer)
{
    if (!viewer->scene)
        return 0;
    int height = sr_dynamic_tree_get_stats(sr_scene_instance_tree(viewer->scene)).height;
    return height > 0 ? height : 0;
}

static void shift_ranges(sr_viewer *viewer, int step)
{
    int deepest = instance_tree_height(viewer);
    if (viewer->bvh_first + step >= 0 && viewer->bvh_first + step <= deepest) {
        viewer->bvh_first += step;
        viewer->bvh_last += step;
    }
    if (viewer->mesh_bvh_first + step >= 0 && viewer->mesh_bvh_last + step <= 255) {
        viewer->mesh_bvh_first += step;
        viewer->mesh_bvh_last += step;
    }
    viewer_say(viewer, false, "BVH depths %d-%d, mesh BVH depths %d-%d", viewer->bvh_first, viewer->bvh_last,
               viewer->mesh_bvh_first, viewer->mesh_bvh_last);
}

/* S: a timestamped BMP in the save folder, never over an existing file. */
static void save_frame(sr_viewer *viewer)
{
    time_t now = time(NULL);
    struct tm local;
    localtime_r(&now, &local);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    char path[4200];
    for (int n = 1; n < 100; n++) {
        if (n == 1)
            snprintf(path, sizeof path, "%s/softrast-%s.bmp", viewer->save_folder, stamp);
        else
            snprintf(path, sizeof path, "%s/softrast-%s-%d.bmp", viewer->save_folder, stamp, n);
        FILE *existing = fopen(path, "rb");
        if (!existing)
            break;
        fclose(existing);
    }
    sr_error err = {0};
    if (viewer_save(viewer, path, &err) == SR_OK)
        viewer_say(viewer, false, "saved %s", path);
    else
        viewer_say(viewer, true, "%s", err.message[0] ? err.message : "cannot save the frame");
}

/* The keys of the help's "recordings" section. */
static bool playback_key(SDL_Keycode key)
{
    switch (key) {
    case SDLK_SPACE:
    case SDLK_RIGHT:
    case SDLK_LEFT:
    case SDLK_PAGEDOWN:
    case SDLK_PAGEUP:
    case SDLK_HOME:
    case SDLK_END:
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
    case SDLK_l:
    case SDLK_k:
    case SDLK_v:
        return true;
    default:
        return key >= SDLK_0 && key <= SDLK_9;
    }
}

/* Keys that act again while held (a person holds an arrow to walk through the frames). */
static bool repeats(SDL_Keycode key)
{
    return key == SDLK_RIGHT || key == SDLK_LEFT || key == SDLK_PAGEDOWN || key == SDLK_PAGEUP;
}

static const key_binding *find_binding(SDL_Keycode key)
{
    for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++)
        if (bindings[i].key == key)
            return &bindings[i];
    return NULL;
}

static void handle_key(sr_viewer *viewer, const key_binding *binding)
{
    viewer->dirty = true;
    switch (binding->action) {
    case ACTION_OVERLAY:
        viewer->overlays ^= binding->bit;
        break;
    case ACTION_HELP:
        viewer->help = !viewer->help;
        break;
    case ACTION_DEEPER:
        shift_ranges(viewer, 1);
        break;
    case ACTION_SHALLOWER:
        shift_ranges(viewer, -1);
        break;
    case ACTION_FREEZE:
        viewer->frozen = !viewer->frozen;
        if (viewer->frozen)
            viewer->cull_camera = viewer_view_camera(viewer);
        viewer_say(viewer, false,
                   viewer->frozen ? "culling camera frozen: orbit to see what it culls (F: unfreeze)"
                                  : "culling follows the view again");
        break;
    case ACTION_HOME:
    case ACTION_VIEW:
        viewer_reset_camera(viewer);
        break;
    case ACTION_SAVE:
        save_frame(viewer);
        break;
    case ACTION_RELOAD:
        if (!viewer_owns_file(viewer))
            viewer_say(viewer, false, "R: nothing to reload (%s)",
                       viewer->scene_path[0] ? "the program's own scene" : "no scene file");
        else if (viewer_load_start(viewer, viewer->scene != NULL))
            viewer_say(viewer, false, "reloading %s ...", viewer->scene_path);
        break;
    case ACTION_CLEAR_PICK:
        if (viewer->pair.has_a)
            viewer_pair_clear(viewer);
        viewer->has_pick = false;
        viewer->overlays &= ~(uint32_t)SR_OVERLAY_PICK;
        viewer_playback_clear_selection(viewer);
        break;
    case ACTION_QUIT:
        viewer->quit = true;
        break;
    }
}

static void handle_motion(sr_viewer *viewer, float x, float y)
{
    viewer_drag *drag = &viewer->drag;
    viewer->mouse_x = x;
    viewer->mouse_y = y;
    if (drag->button == 0 || !viewer->fb)
        return;
    if (drag->timeline) {
        viewer_timeline_drag(viewer, x, y);
        return;
    }
    if (!drag->moved && fabsf(x - drag->start_x) + fabsf(y - drag->start_y) > VIEWER_CLICK_SLOP)
        drag->moved = true;
    if (!drag->moved)
        return;
    float dx = x - drag->last_x, dy = y - drag->last_y;
    drag->last_x = x;
    drag->last_y = y;
    if (dx == 0.0f && dy == 0.0f)
        return;
    if (drag->mode == VIEWER_DRAG_MOVE || drag->mode == VIEWER_DRAG_ROTATE) {
        // In a trace view, the camera of the view under the cursor.
        sr_camera view = viewer_view_camera(viewer);
        int width;
        viewer_pair_view_camera(viewer, x, &view, &width);
        if (drag->mode == VIEWER_DRAG_MOVE)
            viewer_pair_move(viewer, drag->node, &view, x - dx, y - dy, x, y);
        else
            viewer_pair_rotate(viewer, drag->node, &view, dx, dy);
        return;
    }
    if (drag->pan)
        sr_orbit_pan(&viewer->orbit, &viewer->base, viewer->fb->width, viewer->fb->height, dx, dy);
    else
        // Grabbing the scene: dragging right turns it right (the eye goes left), down tilts it
        // towards the viewer (the eye goes up).
        sr_orbit_rotate(&viewer->orbit, -dx * ORBIT_DEGREES_PER_PIXEL, dy * ORBIT_DEGREES_PER_PIXEL);
    viewer->orbit_moved = true;
    viewer->dirty = true;
}

static void handle_press(sr_viewer *viewer, const SDL_MouseButtonEvent *button)
{
    float x, y;
    to_drawable(viewer, button->x, button->y, &x, &y);
    if (button->clicks >= 2 && button->button == SDL_BUTTON_LEFT &&
        !(viewer->playback && viewer_timeline_contains(viewer, x, y))) {
        frame_object(viewer, x, y);
        viewer->drag = (viewer_drag){0};
        return;
    }
    if (viewer->drag.button != 0)
        return; // a second button during a drag is ignored
    SDL_Keymod mods = SDL_GetModState();
    bool shift = viewer->shift_held || (mods & KMOD_SHIFT);
    bool ctrl = viewer->ctrl_held || (mods & KMOD_CTRL), alt = viewer->alt_held || (mods & KMOD_ALT);
    if (viewer->playback && button->button == SDL_BUTTON_LEFT && viewer_timeline_press(viewer, x, y, shift)) {
        // The timeline (or the legend) took it: the drag scrubs, the release picks nothing.
        viewer->drag = (viewer_drag){.button = button->button, .timeline = true, .start_x = x, .start_y = y,
                                     .last_x = x, .last_y = y};
        return;
    }
    viewer->drag = (viewer_drag){.button = button->button,
                                 .pan = button->button != SDL_BUTTON_LEFT || shift,
                                 .shift = shift,
                                 .start_x = x,
                                 .start_y = y,
                                 .last_x = x,
                                 .last_y = y};
    // ctrl or alt + left drag: the selected shape moves or turns (nothing selected: the camera).
    if (button->button == SDL_BUTTON_LEFT && (ctrl || alt) && viewer_pair_grab(viewer, x, y, &viewer->drag.node))
        viewer->drag.mode = ctrl ? VIEWER_DRAG_MOVE : VIEWER_DRAG_ROTATE;
}

static void handle_release(sr_viewer *viewer, const SDL_MouseButtonEvent *button)
{
    if (viewer->drag.button != button->button)
        return;
    float x, y;
    to_drawable(viewer, button->x, button->y, &x, &y);
    if (viewer->drag.timeline) {
        viewer->drag = (viewer_drag){0};
        viewer_timeline_release(viewer, x, y);
        return;
    }
    handle_motion(viewer, x, y);
    bool was_click = !viewer->drag.moved && button->button == SDL_BUTTON_LEFT;
    float press_x = viewer->drag.start_x, press_y = viewer->drag.start_y;
    bool shift = viewer->drag.shift;
    viewer->drag = (viewer_drag){0};
    if (was_click)
        click(viewer, press_x, press_y, shift); // where the button went down: what the user aimed at
}

/* Handles one event; false when the viewer has no use for it (the program's `input` gets it). */
static bool handle(sr_viewer *viewer, const SDL_Event *event)
{
    switch (event->type) {
    case SDL_QUIT:
        viewer->quit = true;
        return true;
    case SDL_WINDOWEVENT:
        if (event->window.event == SDL_WINDOWEVENT_CLOSE) {
            viewer->quit = true;
            return true;
        }
        // Resized, exposed, shown, restored: draw again (the size is checked before drawing).
        // The program may want to know too.
        viewer->dirty = true;
        return false;
    case SDL_KEYDOWN:
    case SDL_KEYUP: {
        SDL_Keycode key = event->key.keysym.sym;
        if (key == SDLK_LSHIFT || key == SDLK_RSHIFT || key == SDLK_LCTRL || key == SDLK_RCTRL ||
            key == SDLK_LALT || key == SDLK_RALT) {
            bool down = event->type == SDL_KEYDOWN;
            if (key == SDLK_LSHIFT || key == SDLK_RSHIFT)
                viewer->shift_held = down;
            else if (key == SDLK_LCTRL || key == SDLK_RCTRL)
                viewer->ctrl_held = down;
            else
                viewer->alt_held = down;
            return false; // watched, not used: the program sees the modifier keys too
        }
        // A recording's keys first (Home is its first frame there), held ones repeating.
        if (viewer->playback && (event->type == SDL_KEYUP || !event->key.repeat || repeats(key)) &&
            playback_key(key)) {
            if (event->type == SDL_KEYDOWN)
                viewer_playback_key(viewer, key, event->key.keysym.mod);
            return true;
        }
        // While a pair is selected, M, G, E, T, comma, period (and Home in a trace view) are its.
        if (event->type == SDL_KEYDOWN && (!event->key.repeat || key == SDLK_COMMA || key == SDLK_PERIOD) &&
            viewer_pair_key(viewer, key))
            return true;
        const key_binding *binding = find_binding(key);
        if (!binding)
            return false;
        if (event->type == SDL_KEYDOWN && !event->key.repeat)
            handle_key(viewer, binding);
        else if (event->type == SDL_KEYDOWN && (key == SDLK_LEFTBRACKET || key == SDLK_RIGHTBRACKET))
            handle_key(viewer, binding); // holding [ or ] walks through the levels
        return true;
    }
    case SDL_MOUSEMOTION: {
        float x, y;
        to_drawable(viewer, event->motion.x, event->motion.y, &x, &y);
        bool dragging = viewer->drag.button != 0;
        handle_motion(viewer, x, y);
        return dragging;
    }
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        if (event->button.button != SDL_BUTTON_LEFT && event->button.button != SDL_BUTTON_MIDDLE &&
            event->button.button != SDL_BUTTON_RIGHT)
            return false;
        if (event->type == SDL_MOUSEBUTTONDOWN)
            handle_press(viewer, &event->button);
        else
            handle_release(viewer, &event->button);
        return true;
    case SDL_MOUSEWHEEL: {
        float x, y;
        to_drawable(viewer, event->wheel.mouseX, event->wheel.mouseY, &x, &y);
        zoom(viewer, wheel_notches(&event->wheel), x, y);
        return true;
    }
    default:
        return false;
    }
}

/* The program's view of an SDL event. */
static sr_viewer_event program_event(const sr_viewer *viewer, const SDL_Event *event)
{
    sr_viewer_event e = {.type = SR_VIEWER_EVENT_OTHER, .sdl_event = event};
    switch (event->type) {
    case SDL_QUIT:
        e.type = SR_VIEWER_EVENT_QUIT;
        break;
    case SDL_WINDOWEVENT:
        if (event->window.event == SDL_WINDOWEVENT_CLOSE)
            e.type = SR_VIEWER_EVENT_QUIT;
        break;
    case SDL_KEYDOWN:
    case SDL_KEYUP:
        e.type = event->type == SDL_KEYDOWN ? SR_VIEWER_EVENT_KEY_DOWN : SR_VIEWER_EVENT_KEY_UP;
        e.key = event->key.keysym.sym;
        e.scancode = event->key.keysym.scancode;
        e.key_name = SDL_GetKeyName(event->key.keysym.sym);
        e.repeat = event->key.repeat != 0;
        e.modifiers = event->key.keysym.mod;
        break;
    case SDL_MOUSEMOTION:
        e.type = SR_VIEWER_EVENT_MOUSE_MOVE;
        to_drawable(viewer, event->motion.x, event->motion.y, &e.x, &e.y);
        e.modifiers = SDL_GetModState();
        break;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        e.type = event->type == SDL_MOUSEBUTTONDOWN ? SR_VIEWER_EVENT_MOUSE_DOWN : SR_VIEWER_EVENT_MOUSE_UP;
        e.button = event->button.button;
        e.clicks = event->button.clicks;
        to_drawable(viewer, event->button.x, event->button.y, &e.x, &e.y);
        e.modifiers = SDL_GetModState();
        break;
    case SDL_MOUSEWHEEL:
        e.type = SR_VIEWER_EVENT_WHEEL;
        e.wheel = wheel_notches(&event->wheel);
        to_drawable(viewer, event->wheel.mouseX, event->wheel.mouseY, &e.x, &e.y);
        e.modifiers = SDL_GetModState();
        break;
    default:
        break;
    }
    return e;
}

void viewer_handle_event(sr_viewer *viewer, const SDL_Event *event)
{
    if (viewer->load.wake_event && event->type == viewer->load.wake_event)
        return; // the viewer's own: the loader is done, the loop goes on to take its result
    const sr_viewer_desc *desc = &viewer->desc;
    sr_viewer_event handed = {.type = SR_VIEWER_EVENT_OTHER};
    if (desc->input_filter || desc->input)
        handed = program_event(viewer, event);
    if (desc->input_filter && desc->input_filter(desc->user, &handed))
        return;
    bool used = handle(viewer, event);
    if (!used && desc->input && event->type != SDL_QUIT)
        desc->input(desc->user, &handed);
}
