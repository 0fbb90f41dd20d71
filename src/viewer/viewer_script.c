/* viewer_script.c — scripted input (sr_viewer_run_script): each line of a script becomes the SDL
 * events a person's hand would make (mouse motion, button presses and releases, wheel notches,
 * key presses), pushed on SDL's queue and handled by the viewer's own loop, so that a script
 * tests exactly what a person uses; print-pick, print-state and print-stats write JSON lines. */
#include "viewer_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// Longest script line.
#define LINE_MAX_BYTES 4096
/// Mouse motion events a drag is cut into.
#define DRAG_STEPS 16

typedef struct script {
    sr_viewer *viewer;
    const char *path;
    int line;
    FILE *out;
    sr_error *err;
} script;

static sr_status script_error(script *s, const char *format, ...) __attribute__((format(printf, 2, 3)));
static sr_status script_error(script *s, const char *format, ...)
{
    char what[400];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    return sr_error_set(s->err, SR_ERROR_PARSE, "%s:%d: %s", s->path, s->line, what);
}

/* ---- events ---- */

static Uint32 window_id(const sr_viewer *viewer)
{
    return SDL_GetWindowID(viewer->window);
}

/* Frame pixel (x, y) of the rendered image to the window coordinate whose centre maps to it. */
static void to_window(const sr_viewer *viewer, float x, float y, int *wx, int *wy)
{
    *wx = (int)floorf(x / viewer->scale_x);
    *wy = (int)floorf(y / viewer->scale_y);
}

static void push(const SDL_Event *event)
{
    SDL_Event copy = *event;
    SDL_PushEvent(&copy);
}

static void push_motion(sr_viewer *viewer, int x, int y, Uint32 state)
{
    push(&(SDL_Event){.motion = {.type = SDL_MOUSEMOTION,
                                 .timestamp = SDL_GetTicks(),
                                 .windowID = window_id(viewer),
                                 .state = state,
                                 .x = x,
                                 .y = y}});
}

static void push_button(sr_viewer *viewer, Uint32 type, Uint8 button, Uint8 clicks, int x, int y)
{
    push(&(SDL_Event){.button = {.type = type,
                                 .timestamp = SDL_GetTicks(),
                                 .windowID = window_id(viewer),
                                 .button = button,
                                 .state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED,
                                 .clicks = clicks,
                                 .x = x,
                                 .y = y}});
}

static void push_key(sr_viewer *viewer, Uint32 type, SDL_Keycode key, Uint16 modifiers)
{
    push(&(SDL_Event){.key = {.type = type,
                              .timestamp = SDL_GetTicks(),
                              .windowID = window_id(viewer),
                              .state = type == SDL_KEYDOWN ? SDL_PRESSED : SDL_RELEASED,
                              .keysym = {.scancode = SDL_GetScancodeFromKey(key), .sym = key, .mod = modifiers}}});
}

/* Handles what was pushed, finishes a load and draws, as the loop does between inputs. */
static void settle(sr_viewer *viewer)
{
    viewer_pump(viewer, 0);
    while (viewer_load_poll(viewer) && !viewer->quit) {
        viewer_draw_if_needed(viewer, false);
        viewer_pump(viewer, 20);
    }
    viewer_draw_if_needed(viewer, false);
}

/* ---- printing ---- */

static void print_json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void print_vec3(FILE *out, sr_vec3 v)
{
    fprintf(out, "[%.9g, %.9g, %.9g]", (double)v.x, (double)v.y, (double)v.z);
}

/* The fields of `softrast pick` (cmd_pick.c), for the last click. */
static void print_pick(const sr_viewer *viewer, FILE *out)
{
    if (viewer->playback && viewer->playback->has_frame) {
        viewer_playback_print_pick(viewer, out); // the selection, item or node, at the frame shown
        return;
    }
    if (!viewer->has_pick) {
        fputs("{\"hit\": false, \"picked\": false}\n", out);
        return;
    }
    const sr_pick_hit *hit = &viewer->pick;
    fprintf(out, "{\"x\": %.9g, \"y\": %.9g, \"hit\": %s", (double)viewer->pick_x, (double)viewer->pick_y,
            hit->hit ? "true" : "false");
    if (hit->hit) {
        sr_node_info info;
        const char *name = sr_scene_node(viewer->scene, hit->node, &info, NULL) == SR_OK ? info.name : "";
        fprintf(out, ", \"node\": {\"index\": %u, \"name\": ", hit->node.index);
        print_json_string(out, name);
        fprintf(out, "}, \"triangle\": %u, \"t\": %.9g, \"position\": ", hit->triangle, (double)hit->t);
        print_vec3(out, hit->position);
        fprintf(out, ", \"normal\": ");
        print_vec3(out, hit->normal);
        fprintf(out, ", \"u\": %.9g, \"v\": %.9g", (double)hit->u, (double)hit->v);
    }
    fprintf(out, ", \"nodes_visited\": %u}\n", hit->nodes_visited);
}

static void print_stats(const sr_viewer *viewer, FILE *out)
{
    sr_viewer_stats stats = sr_viewer_get_stats(viewer);
    SDL_RendererInfo info = {0};
    SDL_GetRendererInfo(viewer->sdl_renderer, &info);
    const char *driver = SDL_GetCurrentVideoDriver();
    fprintf(out, "{\"scene\": ");
    print_json_string(out, viewer->scene_name);
    fprintf(out, ", \"video_driver\": \"%s\", \"sdl_renderer\": \"%s\", ", driver ? driver : "?",
            info.name ? info.name : "?");
    fprintf(out,
            "\"frames\": %llu, \"size\": [%d, %d], \"threads\": %d, \"last_frame_ms\": %.4f, \"median_frame_ms\": "
            "%.4f, \"median_render_ms\": %.4f, \"median_fps\": %.2f, \"fps\": %.2f}\n",
            (unsigned long long)stats.frames, viewer->fb->width, viewer->fb->height, viewer->threads,
            stats.last_frame_ms, stats.median_frame_ms, stats.median_render_ms,
            stats.median_frame_ms > 0.0 ? 1000.0 / stats.median_frame_ms : 0.0, stats.fps);
}

static void print_state(const sr_viewer *viewer, FILE *out)
{
    char text[1024];
    fputs("{\"scene\": ", out);
    print_json_string(out, viewer->scene_name);
    fputs(", \"scene_path\": ", out);
    if (viewer->scene_path[0])
        print_json_string(out, viewer->scene_path);
    else
        fputs("null", out);
    fprintf(out, ", \"loaded\": %s, \"size\": [%d, %d], \"camera\": ", viewer->scene ? "true" : "false",
            viewer->fb->width, viewer->fb->height);
    sr_camera view = viewer_view_camera(viewer);
    viewer_camera_spec(&view, text, sizeof text);
    print_json_string(out, text);
    fprintf(out,
            ", \"orbit\": {\"target\": [%.9g, %.9g, %.9g], \"distance\": %.9g, \"yaw\": %.9g, \"pitch\": %.9g}"
            ", \"frozen\": %s, \"cull_camera\": ",
            (double)viewer->orbit.target.x, (double)viewer->orbit.target.y, (double)viewer->orbit.target.z,
            (double)viewer->orbit.distance, (double)viewer->orbit.yaw_degrees, (double)viewer->orbit.pitch_degrees,
            viewer->frozen ? "true" : "false");
    if (viewer->frozen) {
        viewer_camera_spec(&viewer->cull_camera, text, sizeof text);
        print_json_string(out, text);
    } else {
        fputs("null", out);
    }
    viewer_overlay_spec(viewer, text, sizeof text);
    fputs(", \"overlays\": ", out);
    print_json_string(out, text);
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{SR_OVERLAY_BVH, "bvh"},         {SR_OVERLAY_MESH_BVH, "mesh_bvh"}, {SR_OVERLAY_BOUNDS, "bounds"},
                 {SR_OVERLAY_NORMALS, "normals"}, {SR_OVERLAY_WIRE, "wire"},         {SR_OVERLAY_PICK, "pick"},
                 {SR_OVERLAY_HEAT, "heat"},       {SR_OVERLAY_AXES, "axes"},         {SR_OVERLAY_GRID, "grid"},
                 {SR_OVERLAY_CONTACTS, "contacts"}, {SR_OVERLAY_CLOSEST, "closest"}, {SR_OVERLAY_PAIRS, "pairs"},
                 {SR_OVERLAY_HUD, "hud"}};
    fputs(", \"on\": {", out);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        fprintf(out, "%s\"%s\": %s", i ? ", " : "", names[i].name, viewer->overlays & names[i].bit ? "true" : "false");
    fprintf(out, ", \"help\": %s}", viewer->help ? "true" : "false");
    fprintf(out, ", \"bvh_depths\": [%d, %d], \"mesh_bvh_depths\": [%d, %d], \"picked\": %s, \"message\": ",
            viewer->bvh_first, viewer->bvh_last, viewer->mesh_bvh_first, viewer->mesh_bvh_last,
            viewer->has_pick ? "true" : "false");
    print_json_string(out, viewer->message);
    fputs(", \"load_error\": ", out);
    print_json_string(out, viewer->load_error);
    size_t items, dropped;
    int lists = viewer_lists_summary(viewer, &items, &dropped);
    fprintf(out, ", \"lists\": {\"count\": %d, \"items\": %zu, \"dropped\": %zu}", lists, items, dropped);
    fputs(", \"title\": ", out);
    print_json_string(out, viewer->title_shown);
    fputs(", \"hud\": ", out);
    print_json_string(out, viewer->hud_shown);
    fputs(", \"notice\": ", out);
    print_json_string(out, viewer->notice_shown);
    fputs(", \"recording\": ", out);
    viewer_playback_print_state(viewer, out);
    sr_viewer_stats stats = sr_viewer_get_stats(viewer);
    fprintf(out, ", \"frames\": %llu, \"median_frame_ms\": %.4f, \"fps\": %.2f}\n", (unsigned long long)stats.frames,
            stats.median_frame_ms, stats.fps);
}

/* ---- parsing ---- */

/* Splits `line` into blank-separated words (in place). */
static int split(char *line, char **words, int most)
{
    int count = 0;
    char *p = line;
    while (*p && count < most) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (!*p)
            break;
        words[count++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        if (*p)
            *p++ = '\0';
    }
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return *p ? most + 1 : count;
}

static sr_status read_number(script *s, const char *word, const char *what, double low, double high, double *out)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(word, &end);
    if (end == word || *end != '\0' || errno == ERANGE || !isfinite(value))
        return script_error(s, "%s: '%s' is not a number", what, word);
    if (value < low || value > high)
        return script_error(s, "%s: %s is outside %g to %g", what, word, low, high);
    *out = value;
    return SR_OK;
}

static sr_status expect_words(script *s, const char *command, int count, int low, int high, const char *usage)
{
    if (count < low || count > high)
        return script_error(s, "%s: expected '%s'", command, usage);
    return SR_OK;
}

/* A point of the rendered frame, inside it. */
static sr_status read_point(script *s, char **words, double *x, double *y)
{
    const sr_viewer *viewer = s->viewer;
    sr_status status = read_number(s, words[0], "X", 0.0, (double)viewer->fb->width - 1e-3, x);
    if (status == SR_OK)
        status = read_number(s, words[1], "Y", 0.0, (double)viewer->fb->height - 1e-3, y);
    return status;
}

static sr_status do_click(script *s, char **words, int count, Uint8 clicks)
{
    sr_status status =
        expect_words(s, words[0], count, 3, clicks == 2 ? 3 : 4,
                     clicks == 2 ? "double-click X Y" : "click X Y' or 'click X Y shift");
    double x, y;
    if (status == SR_OK)
        status = read_point(s, words + 1, &x, &y);
    if (status == SR_OK && count == 4 && strcmp(words[3], "shift") != 0)
        status = script_error(s, "click: unknown modifier '%s' (shift)", words[3]);
    if (status != SR_OK)
        return status;
    bool shift = count == 4;
    int wx, wy;
    to_window(s->viewer, (float)x, (float)y, &wx, &wy);
    if (shift)
        push_key(s->viewer, SDL_KEYDOWN, SDLK_LSHIFT, KMOD_LSHIFT);
    push_motion(s->viewer, wx, wy, 0);
    for (Uint8 c = 1; c <= clicks; c++) {
        push_button(s->viewer, SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, c, wx, wy);
        push_button(s->viewer, SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, c, wx, wy);
        if (c < clicks)
            settle(s->viewer);
    }
    if (shift)
        push_key(s->viewer, SDL_KEYUP, SDLK_LSHIFT, KMOD_NONE);
    return SR_OK;
}

static sr_status do_drag(script *s, char **words, int count)
{
    sr_status status =
        expect_words(s, "drag", count, 5, 6, "drag X1 Y1 X2 Y2 [left|right|middle|shift-left|ctrl-left|alt-left]");
    double x1, y1, x2, y2;
    if (status == SR_OK)
        status = read_point(s, words + 1, &x1, &y1);
    if (status == SR_OK)
        status = read_point(s, words + 3, &x2, &y2);
    if (status != SR_OK)
        return status;
    Uint8 button = SDL_BUTTON_LEFT;
    bool shift = false;
    SDL_Keycode modifier = SDLK_UNKNOWN;
    if (count == 6) {
        if (strcmp(words[5], "left") == 0)
            button = SDL_BUTTON_LEFT;
        else if (strcmp(words[5], "right") == 0)
            button = SDL_BUTTON_RIGHT;
        else if (strcmp(words[5], "middle") == 0)
            button = SDL_BUTTON_MIDDLE;
        else if (strcmp(words[5], "shift-left") == 0)
            shift = true;
        else if (strcmp(words[5], "ctrl-left") == 0)
            modifier = SDLK_LCTRL;
        else if (strcmp(words[5], "alt-left") == 0)
            modifier = SDLK_LALT;
        else
            return script_error(s,
                                "drag: unknown button '%s' (left, right, middle, shift-left, ctrl-left or alt-left)",
                                words[5]);
    }
    if (shift)
        modifier = SDLK_LSHIFT;
    sr_viewer *viewer = s->viewer;
    int wx1, wy1, wx2, wy2;
    to_window(viewer, (float)x1, (float)y1, &wx1, &wy1);
    to_window(viewer, (float)x2, (float)y2, &wx2, &wy2);
    Uint16 modifier_bit = modifier == SDLK_LCTRL ? KMOD_LCTRL : modifier == SDLK_LALT ? KMOD_LALT : KMOD_LSHIFT;
    if (modifier != SDLK_UNKNOWN)
        push_key(viewer, SDL_KEYDOWN, modifier, modifier_bit);
    push_motion(viewer, wx1, wy1, 0);
    push_button(viewer, SDL_MOUSEBUTTONDOWN, button, 1, wx1, wy1);
    for (int i = 1; i <= DRAG_STEPS; i++)
        push_motion(viewer, wx1 + (wx2 - wx1) * i / DRAG_STEPS, wy1 + (wy2 - wy1) * i / DRAG_STEPS, SDL_BUTTON(button));
    push_button(viewer, SDL_MOUSEBUTTONUP, button, 1, wx2, wy2);
    if (modifier != SDLK_UNKNOWN)
        push_key(viewer, SDL_KEYUP, modifier, KMOD_NONE);
    return SR_OK;
}

static sr_status do_wheel(script *s, char **words, int count)
{
    sr_status status = expect_words(s, "wheel", count, 2, 4, "wheel N [X Y]");
    double notches = 0.0, x = s->viewer->mouse_x, y = s->viewer->mouse_y;
    if (status == SR_OK)
        status = read_number(s, words[1], "wheel N", -100.0, 100.0, &notches);
    if (status == SR_OK && count == 3)
        return script_error(s, "wheel: expected 'wheel N [X Y]' (both X and Y, or neither)");
    if (status == SR_OK && count == 4)
        status = read_point(s, words + 2, &x, &y);
    if (status != SR_OK)
        return status;
    if (count == 2 && s->viewer->mouse_x == 0.0f && s->viewer->mouse_y == 0.0f) {
        x = s->viewer->fb->width * 0.5;
        y = s->viewer->fb->height * 0.5;
    }
    int wx, wy;
    to_window(s->viewer, (float)x, (float)y, &wx, &wy);
    push_motion(s->viewer, wx, wy, 0);
    push(&(SDL_Event){.wheel = {.type = SDL_MOUSEWHEEL,
                                .timestamp = SDL_GetTicks(),
                                .windowID = window_id(s->viewer),
                                .y = (Sint32)lround(notches),
                                .preciseY = (float)notches,
                                .direction = SDL_MOUSEWHEEL_NORMAL,
                                .mouseX = wx,
                                .mouseY = wy}});
    return SR_OK;
}

/* The modifier keys a script's key name may start with ("Shift+Left", "ctrl+Right"). */
static const struct {
    const char *prefix;
    SDL_Keycode key;
    Uint16 modifier;
} modifier_keys[] = {{"shift+", SDLK_LSHIFT, KMOD_LSHIFT}, {"ctrl+", SDLK_LCTRL, KMOD_LCTRL}, {"alt+", SDLK_LALT, KMOD_LALT}};
enum { MODIFIER_KEYS = sizeof modifier_keys / sizeof modifier_keys[0] };

static sr_status do_key(script *s, char **words, int count, const char *rest)
{
    if (count < 2)
        return script_error(s, "key: expected 'key [Shift+|Ctrl+|Alt+]NAME' (an SDL key name: B, Home, Tab, [, "
                               "Escape, ...)");
    (void)words;
    // Modifiers first: held down around the key, as a hand does ("key +" is the plus key itself).
    bool held[MODIFIER_KEYS] = {false};
    Uint16 modifiers = KMOD_NONE;
    const char *name = rest;
    for (bool again = true; again;) {
        again = false;
        for (int i = 0; i < MODIFIER_KEYS; i++) {
            size_t n = strlen(modifier_keys[i].prefix);
            if (strncasecmp(name, modifier_keys[i].prefix, n) == 0 && name[n] != '\0' && !held[i]) {
                held[i] = true;
                modifiers |= modifier_keys[i].modifier;
                name += n;
                again = true;
            }
        }
    }
    // Key names may contain blanks ("Left Shift", "Page Up"): the rest of the line is the name.
    SDL_Keycode key = SDL_GetKeyFromName(name);
    if (key == SDLK_UNKNOWN)
        return script_error(s, "key: unknown key name '%s' (SDL key names: B, Home, Tab, [, Escape, Left, ...)", name);
    Uint16 down = KMOD_NONE;
    for (int i = 0; i < MODIFIER_KEYS; i++)
        if (held[i]) {
            down |= modifier_keys[i].modifier;
            push_key(s->viewer, SDL_KEYDOWN, modifier_keys[i].key, down);
        }
    push_key(s->viewer, SDL_KEYDOWN, key, modifiers);
    push_key(s->viewer, SDL_KEYUP, key, modifiers);
    for (int i = MODIFIER_KEYS - 1; i >= 0; i--)
        if (held[i]) {
            down &= (Uint16)~modifier_keys[i].modifier;
            push_key(s->viewer, SDL_KEYUP, modifier_keys[i].key, down);
        }
    return SR_OK;
}

static sr_status do_resize(script *s, char **words, int count)
{
    sr_status status = expect_words(s, "resize", count, 3, 3, "resize W H");
    double width, height;
    if (status == SR_OK)
        status = read_number(s, words[1], "W", 1.0, SR_MAX_IMAGE_SIDE, &width);
    if (status == SR_OK)
        status = read_number(s, words[2], "H", 1.0, SR_MAX_IMAGE_SIDE, &height);
    if (status == SR_OK && (width != floor(width) || height != floor(height)))
        status = script_error(s, "resize: W and H are whole pixels");
    if (status != SR_OK)
        return status;
    // The frame's size: window units are drawable pixels over the display's scale.
    SDL_SetWindowSize(s->viewer->window, (int)lround(width / s->viewer->scale_x),
                      (int)lround(height / s->viewer->scale_y));
    s->viewer->dirty = true;
    return SR_OK;
}

/* A recording's lines: "frame N" (or first, last) goes to a frame as the timeline would;
 * "loop A B" loops over frames A to B, "loop off" stops looping. */
static sr_status do_recording_line(script *s, char **words, int count)
{
    sr_viewer *viewer = s->viewer;
    viewer_playback *p = viewer->playback;
    const char *command = words[0];
    bool is_frame = strcmp(command, "frame") == 0;
    sr_status status = is_frame ? expect_words(s, command, count, 2, 2, "frame N|first|last")
                                : expect_words(s, command, count, 2, 3, "loop A B | loop off");
    if (status != SR_OK)
        return status;
    if (!p || !p->info)
        return script_error(s, "%s: the viewer shows no recording", command);
    if (p->info->frame_count == 0)
        return script_error(s, "%s: the recording has no frame yet", command);
    double last = (double)(p->info->frame_count - 1), first = 0.0, second = 0.0;
    if (is_frame) {
        if (strcmp(words[1], "first") == 0)
            first = 0.0;
        else if (strcmp(words[1], "last") == 0)
            first = last;
        else if ((status = read_number(s, words[1], "frame N", 0.0, last, &first)) != SR_OK)
            return status;
        if (first != floor(first))
            return script_error(s, "frame: N is a whole frame number");
        p->playing = false;
        if (!viewer_playback_seek(viewer, (uint64_t)first))
            return script_error(s, "frame %s: %s", words[1], p->seek_error);
        return SR_OK;
    }
    if (count == 2) {
        if (strcmp(words[1], "off") != 0)
            return script_error(s, "loop: expected 'loop A B' or 'loop off'");
        viewer_playback_set_loop(viewer, false, 0, 0);
        return SR_OK;
    }
    if ((status = read_number(s, words[1], "loop A", 0.0, last, &first)) != SR_OK ||
        (status = read_number(s, words[2], "loop B", 0.0, last, &second)) != SR_OK)
        return status;
    if (first != floor(first) || second != floor(second))
        return script_error(s, "loop: A and B are whole frame numbers");
    viewer_playback_set_loop(viewer, true, (uint64_t)first, (uint64_t)second);
    return SR_OK;
}

/* select A [B]: the shapes of nodes A (and B) as a click (and a shift + click) would select them. */
static sr_status do_select(script *s, char **words, int count)
{
    sr_status status = expect_words(s, "select", count, 2, 3, "select NODE [NODE2]");
    if (status != SR_OK)
        return status;
    sr_viewer *viewer = s->viewer;
    sr_node_id nodes[2];
    for (int i = 1; i < count; i++) {
        nodes[i - 1] = sr_scene_find_node(viewer->scene, words[i]);
        if (!sr_scene_node_is_valid(viewer->scene, nodes[i - 1]))
            return script_error(s, "select: no node called '%s' in the scene", words[i]);
        if (!viewer_pair_node_ok(viewer, nodes[i - 1]))
            return script_error(s, "select: node '%s' has no collision shape", words[i]);
    }
    if (count == 3 && strcmp(words[1], words[2]) == 0)
        return script_error(s, "select: '%s' twice (a pair is two nodes)", words[1]);
    viewer_pair_select(viewer, nodes[0], false);
    if (count == 3)
        viewer_pair_select(viewer, nodes[1], true);
    return SR_OK;
}

static sr_status run_line(script *s, char *line)
{
    char *start = line;
    while (*start == ' ' || *start == '\t')
        start++;
    bool is_key = strncmp(start, "key", 3) == 0 && (start[3] == ' ' || start[3] == '\t');
    // A '#' at the start of the line or after a blank starts a comment, except as the key name
    // of "key #".
    char *name = is_key ? start + 4 : NULL;
    while (name && (*name == ' ' || *name == '\t'))
        name++;
    for (char *p = start; *p; p++)
        if (*p == '#' && (p == start || p[-1] == ' ' || p[-1] == '\t') && p != name) {
            *p = '\0';
            break;
        }
    char rest_of_key[LINE_MAX_BYTES] = "";
    if (is_key) {
        snprintf(rest_of_key, sizeof rest_of_key, "%s", name);
        size_t n = strlen(rest_of_key);
        while (n > 0 && (rest_of_key[n - 1] == ' ' || rest_of_key[n - 1] == '\t' || rest_of_key[n - 1] == '\r'))
            rest_of_key[--n] = '\0';
    }
    char *words[8];
    int count = split(line, words, 7);
    if (count == 0)
        return SR_OK;
    const char *command = words[0];
    sr_viewer *viewer = s->viewer;
    settle(viewer); // what the last line started is done before this one runs
    if (viewer->quit)
        return SR_OK;
    if (count > 7 && strcmp(command, "key") != 0)
        return script_error(s, "%s: too many words", command);
    sr_status status = SR_OK;
    if (strcmp(command, "click") == 0) {
        status = do_click(s, words, count, 1);
    } else if (strcmp(command, "double-click") == 0) {
        status = do_click(s, words, count, 2);
    } else if (strcmp(command, "drag") == 0) {
        status = do_drag(s, words, count);
    } else if (strcmp(command, "wheel") == 0) {
        status = do_wheel(s, words, count);
    } else if (strcmp(command, "key") == 0) {
        status = do_key(s, words, count, rest_of_key);
    } else if (strcmp(command, "resize") == 0) {
        status = do_resize(s, words, count);
    } else if (strcmp(command, "wait") == 0) {
        double frames = 0;
        status = expect_words(s, command, count, 2, 2, "wait FRAMES");
        if (status == SR_OK)
            status = read_number(s, words[1], "FRAMES", 0.0, 1e6, &frames);
        for (long i = 0; status == SR_OK && i < (long)frames && !viewer->quit; i++) {
            viewer_pump(viewer, 0);
            viewer_load_poll(viewer);
            if (!viewer_draw_if_needed(viewer, true))
                return *s->err = viewer->failure, viewer->failure.status;
        }
    } else if (strcmp(command, "sleep") == 0) {
        double ms = 0;
        status = expect_words(s, command, count, 2, 2, "sleep MS");
        if (status == SR_OK)
            status = read_number(s, words[1], "MS", 0.0, 600000.0, &ms);
        // Wall-clock time passing as it does for a person: events, loads, the scene file's
        // modification-time poll and message expiry all go on meanwhile.
        uint32_t until = SDL_GetTicks() + (uint32_t)ms;
        while (status == SR_OK && !viewer->quit && (int32_t)(SDL_GetTicks() - until) < 0) {
            viewer_periodic(viewer);
            if (!viewer_draw_if_needed(viewer, false))
                return *s->err = viewer->failure, viewer->failure.status;
            int left = (int32_t)(until - SDL_GetTicks());
            viewer_pump(viewer, left < 1 ? 1 : left < 20 ? left : 20);
        }
    } else if (strcmp(command, "frame") == 0 || strcmp(command, "loop") == 0) {
        status = do_recording_line(s, words, count);
    } else if (strcmp(command, "select") == 0) {
        status = do_select(s, words, count);
    } else if (strcmp(command, "deselect") == 0) {
        status = expect_words(s, command, count, 1, 1, "deselect");
        if (status == SR_OK)
            viewer_pair_clear(viewer);
    } else if (strcmp(command, "save") == 0) {
        status = expect_words(s, command, count, 2, 2, "save PATH");
        if (status == SR_OK) {
            sr_error save_error = {0};
            if (viewer_save(viewer, words[1], &save_error) != SR_OK)
                status = script_error(s, "save: %s", save_error.message);
        }
    } else if (strcmp(command, "print-pair") == 0) {
        status = expect_words(s, command, count, 1, 1, command);
        if (status == SR_OK) {
            viewer_draw_if_needed(viewer, false); // the answer of what is shown
            viewer_pair_print(viewer, s->out);
            fflush(s->out);
        }
    } else if (strcmp(command, "print-pick") == 0 || strcmp(command, "print-state") == 0 ||
               strcmp(command, "print-stats") == 0) {
        status = expect_words(s, command, count, 1, 1, command);
        if (status == SR_OK) {
            if (strcmp(command, "print-pick") == 0)
                print_pick(viewer, s->out);
            else if (strcmp(command, "print-state") == 0)
                print_state(viewer, s->out);
            else
                print_stats(viewer, s->out);
            fflush(s->out);
        }
    } else {
        status = script_error(s,
                              "unknown command '%s' (click, double-click, drag, wheel, key, resize, wait, sleep, "
                              "select, deselect, save, print-pick, print-state, print-stats, print-pair; "
                              "recordings: frame, loop)",
                              command);
    }
    if (status == SR_OK)
        settle(viewer);
    return status;
}

sr_status sr_viewer_run_script(sr_viewer *viewer, const char *path, FILE *out, sr_error *err)
{
    SDL_assert(viewer && path);
    char *text = NULL;
    size_t length = 0;
    sr_status status = sr_file_read(path, (size_t)64 << 20, &text, &length, err);
    if (status != SR_OK)
        return status;
    script s = {.viewer = viewer, .path = path, .out = out ? out : stdout, .err = err};
    // The scene (or its load error) first: the script acts on what a person would see.
    settle(viewer);
    if (!viewer->scene)
        status = sr_error_set(err, SR_ERROR_IO, "%s", viewer->load_error[0] ? viewer->load_error : "no scene");
    char *p = text;
    while (status == SR_OK && p < text + length && !viewer->quit) {
        s.line++;
        char *end = memchr(p, '\n', (size_t)(text + length - p));
        if (!end)
            end = text + length;
        *end = '\0';
        if ((size_t)(end - p) >= LINE_MAX_BYTES)
            status = script_error(&s, "line longer than %d bytes", LINE_MAX_BYTES);
        else if (memchr(p, '\0', (size_t)(end - p)))
            status = script_error(&s, "NUL byte in the line");
        else
            status = run_line(&s, p);
        p = end + 1;
    }
    if (status == SR_OK && viewer->failure.status != SR_OK) {
        if (err)
            *err = viewer->failure;
        status = viewer->failure.status;
    }
    sr_free(text);
    return status;
}
