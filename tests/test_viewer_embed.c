/* test_viewer_embed.c — the viewer embedded in a program (softrast/viewer.h), driven from code in
 * this process under SDL's dummy video driver (tests/meson.build sets SDL_VIDEODRIVER): a frame
 * saved from code, by the S key and by a script shows the program's list; a list refilled in
 * place is drawn on the next frame (and an unchanged one draws nothing); the program's keys
 * reach its callbacks, and its filter takes keys from the viewer; a click picks while the program
 * moves nodes every frame; a camera set from code is exactly `softrast render --camera`'s view;
 * with no scene only the program's list (and the grid when asked) is drawn. Where the list's
 * lines must be, the test projects their points itself (in double, from the camera's eye,
 * target, up and field of view), not through the library's matrices. */
#include <criterion/criterion.h>

#include <SDL.h>
#include <math.h>
#include <softrast/softrast.h>
#include <stb_image.h>
#include <stdio.h>
#include <string.h>

#include "run_program.h"

#define WIDTH 320
#define HEIGHT 200
/// The program's colour: pure magenta, opaque (r = b = 255), found nowhere in the demo scene.
#define PROGRAM_COLOR 0xffff00ffu

static void init(void)
{
    setenv("SDL_VIDEODRIVER", "dummy", 0);
}

/* ---- what the program is told ---- */

typedef struct program {
    char saved[4096]; ///< the last "saved PATH" message
    sr_viewer_event events[64];
    char key_names[64][32];
    int event_count;
    int filtered_keys; ///< 'b' presses and releases the filter took
} program;

static void on_message(void *user, const char *text, bool is_error)
{
    program *p = user;
    cr_assert(!is_error, "the viewer reported an error: %s", text);
    if (strncmp(text, "saved ", 6) == 0)
        snprintf(p->saved, sizeof p->saved, "%s", text + 6);
}

static bool on_input(void *user, const sr_viewer_event *event)
{
    program *p = user;
    // Window events (shown, size, focus) come as the window opens: the test counts the input.
    if (event->type != SR_VIEWER_EVENT_OTHER && p->event_count < 64) {
        p->events[p->event_count] = *event;
        snprintf(p->key_names[p->event_count], sizeof p->key_names[0], "%s", event->key_name ? event->key_name : "");
        p->event_count++;
    }
    return false;
}

static bool take_b(void *user, const sr_viewer_event *event)
{
    program *p = user;
    bool is_b = (event->type == SR_VIEWER_EVENT_KEY_DOWN || event->type == SR_VIEWER_EVENT_KEY_UP) && event->key == 'b';
    p->filtered_keys += is_b;
    return is_b;
}

static sr_viewer *open_viewer(sr_scene *scene, program *p, const char *save_folder)
{
    sr_viewer_desc desc = {.title = "test_viewer_embed",
                           .width = WIDTH,
                           .height = HEIGHT,
                           .threads = 2,
                           .hidden = true,
                           .save_folder = save_folder,
                           .message = on_message,
                           .input = on_input,
                           .user = p};
    sr_viewer *viewer = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_viewer_create(&desc, scene, &viewer, &err), SR_OK, "%s", err.message);
    const sr_framebuffer *fb = sr_viewer_framebuffer(viewer);
    cr_assert(fb->width == WIDTH && fb->height == HEIGHT, "the frame is %dx%d", fb->width, fb->height);
    return viewer;
}

static void frame(sr_viewer *viewer, sr_debug_list *extra)
{
    sr_error err = {0};
    cr_assert(sr_viewer_frame(viewer, extra, &err), "sr_viewer_frame: %s", err.message);
}

static sr_scene *demo_scene(void)
{
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_create_demo(&scene, &err), SR_OK, "%s", err.message);
    return scene;
}

/* ---- input as a person's hand makes it (window coordinates: the dummy driver's scale is 1) ---- */

static void push_key(SDL_Keycode key)
{
    SDL_Event down = {.key = {.type = SDL_KEYDOWN,
                              .state = SDL_PRESSED,
                              .keysym = {.scancode = SDL_GetScancodeFromKey(key), .sym = key}}};
    SDL_Event up = down;
    up.key.type = SDL_KEYUP;
    up.key.state = SDL_RELEASED;
    SDL_PushEvent(&down);
    SDL_PushEvent(&up);
}

static void push_motion(int x, int y)
{
    SDL_Event motion = {.motion = {.type = SDL_MOUSEMOTION, .x = x, .y = y}};
    SDL_PushEvent(&motion);
}

static void push_button(Uint32 type, Uint8 button, int x, int y)
{
    SDL_Event event = {.button = {.type = type,
                                  .button = button,
                                  .state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED,
                                  .clicks = 1,
                                  .x = x,
                                  .y = y}};
    SDL_PushEvent(&event);
}

static void push_click(int x, int y)
{
    push_motion(x, y);
    push_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, x, y);
    push_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, x, y);
}

/* ---- where a world point lands: an independent projection ---- */

/* The pixel coordinates (x right, y down, pixel (i, j) covering [i, i + 1) x [j, j + 1)) of world
 * point p seen by a perspective look-at camera in a WIDTH x HEIGHT frame. */
static void project(sr_camera camera, sr_vec3 p, double *x, double *y)
{
    double eye[3] = {camera.eye.x, camera.eye.y, camera.eye.z};
    double f[3] = {camera.target.x - eye[0], camera.target.y - eye[1], camera.target.z - eye[2]};
    double up[3] = {camera.up.x, camera.up.y, camera.up.z};
    if (up[0] == 0.0 && up[1] == 0.0 && up[2] == 0.0)
        up[1] = 1.0;
    double length = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int k = 0; k < 3; k++)
        f[k] /= length;
    double s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
    length = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int k = 0; k < 3; k++)
        s[k] /= length;
    double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
    double d[3] = {p.x - eye[0], p.y - eye[1], p.z - eye[2]};
    double right = d[0] * s[0] + d[1] * s[1] + d[2] * s[2];
    double above = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
    double ahead = d[0] * f[0] + d[1] * f[1] + d[2] * f[2];
    double fov = camera.fov_y_degrees > 0.0f ? camera.fov_y_degrees : 45.0;
    double half_height = tan(fov * M_PI / 360.0);
    double ndc_x = right / (ahead * half_height * (double)WIDTH / (double)HEIGHT);
    double ndc_y = above / (ahead * half_height);
    *x = (ndc_x + 1.0) * 0.5 * WIDTH;
    *y = (1.0 - ndc_y) * 0.5 * HEIGHT;
}

/* The pixel (x, y) of an RGBA image, as an sr_rgba8 value. */
static uint32_t pixel(const unsigned char *rgba, int width, int x, int y)
{
    const unsigned char *p = rgba + ((size_t)y * (size_t)width + (size_t)x) * 4;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The program's line: across the demo's objects, below the HUD, drawn on top three pixels wide. */
static const sr_vec3 line_a = {-1.6f, 0.3f, 0.4f}, line_b = {1.6f, 0.3f, 0.4f};

static void fill_line(sr_debug_list *list, sr_vec3 a, sr_vec3 b)
{
    sr_error err = {0};
    cr_assert_eq(sr_debug_list_clear(list, &err), SR_OK, "%s", err.message);
    sr_debug_line(list, a, b, SR_LITERAL(sr_debug_style){PROGRAM_COLOR, 3, true});
}

/* How many of nine points along a-b (projected with `camera`) show the program's colour in an
 * RGBA image (the pixel under each point). */
static int line_points_shown(const unsigned char *rgba, sr_camera camera, sr_vec3 a, sr_vec3 b)
{
    int shown = 0;
    for (int i = 1; i <= 9; i++) {
        double x, y;
        project(camera, sr_vec3_lerp(a, b, (float)i / 10.0f), &x, &y);
        cr_assert(x >= 0.0 && x < WIDTH && y >= 0.0 && y < HEIGHT, "point %d projects outside: %g, %g", i, x, y);
        shown += pixel(rgba, WIDTH, (int)x, (int)y) == PROGRAM_COLOR;
    }
    return shown;
}

/* The same in the viewer's last frame. */
static int line_points_in_frame(const sr_viewer *viewer, sr_vec3 a, sr_vec3 b)
{
    const sr_framebuffer *fb = sr_viewer_framebuffer(viewer);
    return line_points_shown((const unsigned char *)fb->color, sr_viewer_camera(viewer), a, b);
}

/* The same in a saved image file. */
static int line_points_in_file(const char *path, sr_camera camera, sr_vec3 a, sr_vec3 b)
{
    int w = 0, h = 0, channels = 0;
    unsigned char *rgba = stbi_load(path, &w, &h, &channels, 4);
    cr_assert_not_null(rgba, "cannot read %s: %s", path, stbi_failure_reason());
    cr_assert(w == WIDTH && h == HEIGHT, "%s is %dx%d", path, w, h);
    int shown = line_points_shown(rgba, camera, a, b);
    stbi_image_free(rgba);
    return shown;
}

Test(viewer_embed, a_frame_saved_from_code_by_the_s_key_and_by_a_script_shows_the_programs_list, .init = init,
     .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    static program p;
    sr_scene *scene = demo_scene();
    sr_viewer *viewer = open_viewer(scene, &p, dir);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &list, NULL), SR_OK);
    fill_line(list, line_a, line_b);
    frame(viewer, list);
    sr_camera camera = sr_viewer_camera(viewer);
    cr_assert_eq(line_points_in_frame(viewer, line_a, line_b), 9, "the frame shows the program's line");

    // S with a redraw pending (U turns the HUD off): the frame without the list.
    push_key(SDLK_u);
    push_key(SDLK_s);
    frame(viewer, list);
    cr_assert(p.saved[0], "S said where it saved");
    cr_assert(strncmp(p.saved, dir, strlen(dir)) == 0, "S saves into desc.save_folder: %s", p.saved);
    cr_assert_eq(line_points_in_file(p.saved, camera, line_a, line_b), 9, "S's frame %s shows the line", p.saved);
    cr_assert_eq(line_points_in_frame(viewer, line_a, line_b), 9, "and the window still does");

    // From code, with a change pending (the grid turned on).
    char path[128];
    snprintf(path, sizeof path, "%s/from_code.png", dir);
    sr_viewer_set_overlays(viewer, SR_OVERLAY_GRID);
    sr_error err = {0};
    cr_assert_eq(sr_viewer_save_frame(viewer, path, &err), SR_OK, "%s", err.message);
    cr_assert_eq(line_points_in_file(path, camera, line_a, line_b), 9, "the frame saved from code shows the line");

    // A script doing `key U` then `save` (the issue's own case), and a list added for good.
    sr_debug_list *added = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &added, NULL), SR_OK);
    sr_vec3 added_a = {-1.6f, 0.1f, 0.6f}, added_b = {1.6f, 0.1f, 0.6f};
    fill_line(added, added_a, added_b);
    cr_assert_eq(sr_viewer_add_list(viewer, added, &err), SR_OK, "%s", err.message);
    char script[128], scripted[128];
    snprintf(script, sizeof script, "%s/script.txt", dir);
    snprintf(scripted, sizeof scripted, "%s/scripted.bmp", dir);
    FILE *f = fopen(script, "w");
    cr_assert_not_null(f);
    fprintf(f, "key U\nsave %s\n", scripted);
    fclose(f);
    cr_assert_eq(sr_viewer_run_script(viewer, script, stdout, &err), SR_OK, "%s", err.message);
    cr_assert_eq(line_points_in_file(scripted, camera, line_a, line_b), 9, "the script's frame shows the line");
    cr_assert_eq(line_points_in_file(scripted, camera, added_a, added_b), 9, "and the added list");

    // Removed: the next frame is without it.
    sr_viewer_remove_list(viewer, added);
    frame(viewer, list);
    cr_assert_eq(line_points_in_frame(viewer, added_a, added_b), 0, "a removed list is not drawn");
    cr_assert_eq(line_points_in_frame(viewer, line_a, line_b), 9);

    sr_viewer_destroy(viewer);
    sr_debug_list_destroy(added);
    sr_debug_list_destroy(list);
    sr_scene_destroy(scene);
    remove_dir(dir);
}

/* print-state's "lists" object for the viewer now (a one-line script run from code). */
static const char *print_state_lists(sr_viewer *viewer)
{
    static char text[16384], lists[256];
    char dir[64], script[128];
    make_temp_dir(dir);
    snprintf(script, sizeof script, "%s/state.txt", dir);
    FILE *f = fopen(script, "w");
    cr_assert_not_null(f);
    fputs("print-state\n", f);
    fclose(f);
    FILE *out = tmpfile();
    cr_assert_not_null(out);
    sr_error err = {0};
    cr_assert_eq(sr_viewer_run_script(viewer, script, out, &err), SR_OK, "%s", err.message);
    rewind(out);
    size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    fclose(out);
    remove_dir(dir);
    const char *start = strstr(text, "\"lists\": ");
    cr_assert_not_null(start, "%s", text);
    start += strlen("\"lists\": ");
    const char *end = strchr(start, '}');
    cr_assert_not_null(end);
    snprintf(lists, sizeof lists, "%.*s", (int)(end - start + 1), start);
    return lists;
}

Test(viewer_embed, a_list_refilled_in_place_is_drawn_on_the_next_frame, .init = init, .timeout = 120)
{
    static program p;
    sr_viewer *viewer = open_viewer(NULL, &p, NULL);
    sr_viewer_set_overlays(viewer, 0);
    sr_camera camera = sr_camera_look_at(sr_vec3_make(0.0f, 1.0f, 5.0f), sr_vec3_make(0.0f, 0.0f, 0.0f));
    sr_error err = {0};
    cr_assert_eq(sr_viewer_set_camera(viewer, &camera, &err), SR_OK, "%s", err.message);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &list, NULL), SR_OK);
    sr_vec3 high_a = {-1.5f, 0.8f, 0.0f}, high_b = {1.5f, 0.8f, 0.0f};
    sr_vec3 low_a = {-1.5f, -0.8f, 0.0f}, low_b = {1.5f, -0.8f, 0.0f};
    fill_line(list, high_a, high_b);
    frame(viewer, list);
    uint64_t frames = sr_viewer_get_stats(viewer).frames;
    cr_assert_eq(line_points_in_frame(viewer, high_a, high_b), 9);

    // Nothing changed: no new frame.
    frame(viewer, list);
    frame(viewer, list);
    cr_assert_eq(sr_viewer_get_stats(viewer).frames, frames, "an unchanged list draws no new frame");

    // Cleared and refilled in place, the same pointer: drawn at once, no other call.
    for (int step = 0; step < 4; step++) {
        bool high = step % 2 == 1;
        fill_line(list, high ? high_a : low_a, high ? high_b : low_b);
        frame(viewer, list);
        cr_assert_eq(sr_viewer_get_stats(viewer).frames, frames + (uint64_t)step + 1, "step %d drew a frame", step);
        cr_assert_eq(line_points_in_frame(viewer, high ? high_a : low_a, high ? high_b : low_b), 9,
                     "step %d: the refilled line is drawn", step);
        cr_assert_eq(line_points_in_frame(viewer, high ? low_a : high_a, high ? low_b : high_b), 0,
                     "step %d: the old line is gone", step);
    }
    // The same for a list added once and refilled, under the calls without `extra`.
    sr_debug_list *added = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &added, NULL), SR_OK);
    cr_assert_eq(sr_viewer_add_list(viewer, added, &err), SR_OK, "%s", err.message);
    frame(viewer, NULL);
    cr_assert_eq(line_points_in_frame(viewer, low_a, low_b), 0, "sr_viewer_frame's extra is per call");
    fill_line(added, low_a, low_b);
    frame(viewer, NULL);
    cr_assert_eq(line_points_in_frame(viewer, low_a, low_b), 9, "a refilled added list is drawn");
    cr_assert_eq(sr_viewer_add_list(viewer, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_viewer_remove_list(viewer, added);

    // A list too small for a step drops items; the HUD and print-state say how many, until the
    // next clear grows it.
    sr_debug_list *small = NULL;
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = 2}, &small, NULL), SR_OK);
    for (int i = 0; i < 5; i++)
        sr_debug_line(small, low_a, high_b, SR_LITERAL(sr_debug_style){PROGRAM_COLOR, 1, true});
    frame(viewer, small);
    cr_assert_str_eq(print_state_lists(viewer), "{\"count\": 1, \"items\": 2, \"dropped\": 3}");
    cr_assert_eq(sr_debug_list_clear(small, &err), SR_OK, "%s", err.message);
    for (int i = 0; i < 5; i++)
        sr_debug_line(small, low_a, high_b, SR_LITERAL(sr_debug_style){PROGRAM_COLOR, 1, true});
    frame(viewer, small);
    cr_assert_str_eq(print_state_lists(viewer), "{\"count\": 1, \"items\": 5, \"dropped\": 0}");
    sr_viewer_destroy(viewer);
    sr_debug_list_destroy(small);
    sr_debug_list_destroy(added);
    sr_debug_list_destroy(list);
}

Test(viewer_embed, the_programs_keys_reach_it_and_its_filter_takes_keys_from_the_viewer, .init = init, .timeout = 120)
{
    static program p;
    sr_viewer_desc desc = {.width = WIDTH, .height = HEIGHT, .hidden = true, .input = on_input, .user = &p};
    desc.input_filter = take_b;
    sr_viewer *viewer = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_viewer_create(&desc, NULL, &viewer, &err), SR_OK, "%s", err.message);
    frame(viewer, NULL);
    p.event_count = 0;
    uint32_t overlays = sr_viewer_overlays(viewer);
    cr_assert_eq(overlays, (uint32_t)SR_OVERLAY_HUD, "a new viewer shows the HUD alone");

    push_key(SDLK_k);                                        // no binding: the program's
    push_key(SDLK_b);                                        // the viewer's BVH key, taken by the filter
    push_key(SDLK_g);                                        // the viewer's grid key: not the program's
    push_motion(40, 30);                                     // hovering: the program's
    push_button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_X1, 41, 31); // a side button: the program's
    push_button(SDL_MOUSEBUTTONUP, SDL_BUTTON_X1, 41, 31);
    frame(viewer, NULL);
    cr_assert_eq(p.filtered_keys, 2, "the filter saw b's press and release");
    cr_assert_eq(sr_viewer_overlays(viewer), overlays ^ (uint32_t)SR_OVERLAY_GRID,
                 "G toggled the grid, B (taken) did not toggle the BVH");
    cr_assert_eq(p.event_count, 5, "k down and up, the motion, the side button's press and release: %d", p.event_count);
    cr_assert(p.events[0].type == SR_VIEWER_EVENT_KEY_DOWN && p.events[0].key == 'k' &&
              strcmp(p.key_names[0], "K") == 0 && !p.events[0].repeat);
    cr_assert(p.events[1].type == SR_VIEWER_EVENT_KEY_UP && p.events[1].key == 'k');
    cr_assert(p.events[2].type == SR_VIEWER_EVENT_MOUSE_MOVE && p.events[2].x == 40.5f && p.events[2].y == 30.5f,
              "motion at frame pixel centre (40.5, 30.5): %g, %g", (double)p.events[2].x, (double)p.events[2].y);
    cr_assert(p.events[3].type == SR_VIEWER_EVENT_MOUSE_DOWN && p.events[3].button == SDL_BUTTON_X1 &&
              p.events[3].x == 41.5f && p.events[4].type == SR_VIEWER_EVENT_MOUSE_UP);
    for (int i = 0; i < p.event_count; i++)
        cr_assert_not_null(p.events[i].sdl_event);

    // A script's key is a key like any other.
    char dir[64];
    make_temp_dir(dir);
    char script[128];
    snprintf(script, sizeof script, "%s/script.txt", dir);
    FILE *f = fopen(script, "w");
    cr_assert_not_null(f);
    fputs("key Space\nkey F5\n", f);
    fclose(f);
    p.event_count = 0;
    cr_assert_eq(sr_viewer_run_script(viewer, script, stdout, &err), SR_OK, "%s", err.message);
    cr_assert_eq(p.event_count, 4, "%d events", p.event_count);
    cr_assert(p.events[0].key == ' ' && strcmp(p.key_names[0], "Space") == 0);
    cr_assert(p.events[2].key == SDLK_F5 && strcmp(p.key_names[2], "F5") == 0);
    remove_dir(dir);
    sr_viewer_destroy(viewer);
}

Test(viewer_embed, a_click_picks_while_the_program_moves_nodes_every_frame, .init = init, .timeout = 120)
{
    // The program's scene: a ground and a box it moves every frame (the README's embedding).
    sr_scene *scene = NULL;
    sr_mesh *ground = NULL, *box = NULL;
    sr_mesh_id ground_mesh, box_mesh;
    sr_node_id ground_node, box_node;
    sr_error err = {0};
    cr_assert(!sr_scene_create(NULL, &scene, &err) && !sr_mesh_create_plane(20.0f, 1, 1.0f, &ground, &err) &&
                  !sr_scene_add_mesh(scene, ground, "ground", &ground_mesh, &err) &&
                  !sr_mesh_create_box(sr_vec3_splat(0.5f), 1, &box, &err) &&
                  !sr_scene_add_mesh(scene, box, "box", &box_mesh, &err),
              "%s", err.message);
    sr_node_desc node = {.name = "ground", .mesh = ground_mesh};
    cr_assert_eq(sr_scene_add_node(scene, &node, &ground_node, &err), SR_OK, "%s", err.message);
    node = (sr_node_desc){.name = "box", .mesh = box_mesh};
    cr_assert_eq(sr_scene_add_node(scene, &node, &box_node, &err), SR_OK, "%s", err.message);
    sr_camera camera = sr_camera_look_at(sr_vec3_make(0.0f, 1.5f, 6.0f), sr_vec3_make(0.0f, 0.5f, 0.0f));
    sr_scene_set_camera(scene, &camera);
    static program p;
    sr_viewer *viewer = open_viewer(scene, &p, NULL);
    int picks = 0;
    for (int step = 0; step < 12; step++) {
        // The program's step: the box moves 0.25 along x (past the instance tree's margin).
        float x = -1.5f + 0.25f * (float)step;
        sr_transform t = {.translation = {x, 0.5f, 0.0f}};
        cr_assert_eq(sr_scene_set_transform(scene, box_node, t, &err), SR_OK, "%s", err.message);
        if (step % 3 == 2) {
            // A click on the middle of the box's front face where it is now.
            double px, py;
            project(camera, sr_vec3_make(x, 0.5f, 0.5f), &px, &py);
            push_click((int)px, (int)py);
        }
        frame(viewer, NULL);
        sr_pick_hit hit;
        if (step % 3 == 2) {
            cr_assert(sr_viewer_last_pick(viewer, &hit), "step %d: the click picked", step);
            cr_assert(hit.hit && hit.node.index == box_node.index && hit.node.generation == box_node.generation,
                      "step %d: the click hit the box (node %u)", step, hit.node.index);
            cr_assert(fabsf(hit.position.z - 0.5f) < 1e-3f && fabsf(hit.position.x - x) < 0.05f &&
                          fabsf(hit.position.y - 0.5f) < 0.05f,
                      "step %d: on the box's front face where the program put it: %g %g %g (box at x %g)", step,
                      (double)hit.position.x, (double)hit.position.y, (double)hit.position.z, (double)x);
            picks++;
        }
    }
    cr_assert_eq(picks, 4);
    sr_viewer_destroy(viewer);
    sr_scene_destroy(scene);
}

Test(viewer_embed, a_camera_set_from_code_is_the_view_softrast_render_draws_for_it, .init = init, .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    static program p;
    sr_scene *scene = demo_scene();
    sr_viewer *viewer = open_viewer(scene, &p, dir);
    sr_viewer_set_overlays(viewer, 0); // no HUD (its frame times differ from run to run)
    frame(viewer, NULL);
    sr_camera camera = sr_camera_look_at(sr_vec3_make(2.5f, 1.75f, 3.25f), sr_vec3_make(0.25f, 0.4f, -0.1f));
    camera.fov_y_degrees = 52.5f;
    camera.near_z = 0.2f;
    sr_error err = {0};
    cr_assert_eq(sr_viewer_set_camera(viewer, &camera, &err), SR_OK, "%s", err.message);
    sr_camera now = sr_viewer_camera(viewer), resolved = sr_camera_resolve(&camera);
    cr_assert(memcmp(&now, &resolved, sizeof now) == 0, "sr_viewer_camera gives back the camera set, exactly");
    char saved[128], rendered[128];
    snprintf(saved, sizeof saved, "%s/viewer.bmp", dir);
    snprintf(rendered, sizeof rendered, "%s/render.bmp", dir);
    cr_assert_eq(sr_viewer_save_frame(viewer, saved, &err), SR_OK, "%s", err.message);
    run_result r =
        run((const char *[]){"render", "--size", "320x200", "--camera",
                             "eye=2.5,1.75,3.25:target=0.25,0.4,-0.1:fov=52.5:near=0.2", "--out", rendered, NULL});
    cr_assert(r.exited && r.code == 0, "%s", r.err);
    long size = file_size(saved);
    cr_assert(size > 0 && size == file_size(rendered), "%ld and %ld bytes", size, file_size(rendered));
    unsigned char *a = read_raw(saved, size), *b = read_raw(rendered, size);
    long different = 0;
    for (long i = 0; i < size; i++)
        different += a[i] != b[i];
    free(a);
    free(b);
    cr_assert_eq(different, 0, "%ld bytes differ between the viewer's frame and softrast render's", different);

    // An invalid camera is refused, naming what is wrong, and the view stays.
    sr_camera bad = camera;
    bad.target = bad.eye;
    cr_assert_eq(sr_viewer_set_camera(viewer, &bad, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "eye") || strstr(err.message, "target"), "%s", err.message);
    now = sr_viewer_camera(viewer);
    cr_assert(memcmp(&now, &resolved, sizeof now) == 0, "the view stayed");

    // The program's sr_scene_set_camera is followed; Home goes back to it.
    sr_camera scene_camera = sr_camera_look_at(sr_vec3_make(-3.0f, 2.0f, 2.0f), sr_vec3_make(0.0f, 0.3f, 0.0f));
    sr_scene_set_camera(scene, &scene_camera);
    frame(viewer, NULL);
    now = sr_viewer_camera(viewer);
    resolved = sr_camera_resolve(&scene_camera);
    cr_assert(memcmp(&now, &resolved, sizeof now) == 0, "the view follows the scene's new camera");
    cr_assert_eq(sr_viewer_set_camera(viewer, &camera, &err), SR_OK);
    push_key(SDLK_HOME);
    frame(viewer, NULL);
    now = sr_viewer_camera(viewer);
    cr_assert(memcmp(&now, &resolved, sizeof now) == 0, "Home goes back to the scene's camera");
    sr_viewer_destroy(viewer);
    sr_scene_destroy(scene);
    remove_dir(dir);
}

Test(viewer_embed, with_no_scene_only_the_programs_list_is_drawn, .init = init, .timeout = 120)
{
    static program p;
    sr_viewer *viewer = open_viewer(NULL, &p, NULL);
    cr_assert_null(sr_viewer_scene(viewer), "no scene");
    sr_viewer_set_overlays(viewer, 0);
    sr_camera camera = sr_camera_look_at(sr_vec3_make(0.0f, 1.0f, 5.0f), sr_vec3_make(0.0f, 0.0f, 0.0f));
    sr_error err = {0};
    cr_assert_eq(sr_viewer_set_camera(viewer, &camera, &err), SR_OK, "%s", err.message);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &list, NULL), SR_OK);
    sr_vec3 a = {-1.5f, 0.0f, 0.0f}, b = {1.5f, 0.0f, 0.0f};
    fill_line(list, a, b);
    frame(viewer, list);
    cr_assert_eq(line_points_in_frame(viewer, a, b), 9);
    // Every other pixel is the background: no demo scene under the program's line.
    const sr_framebuffer *fb = sr_viewer_framebuffer(viewer);
    long line = 0, other = 0;
    for (long i = 0; i < (long)WIDTH * HEIGHT; i++) {
        if (fb->color[i] == PROGRAM_COLOR)
            line++;
        else if (fb->color[i] != SR_BENCH_SCENE_BACKGROUND)
            other++;
    }
    cr_assert_gt(line, 3 * 100, "the line's pixels");
    cr_assert_eq(other, 0, "%ld pixels are neither the line nor the background", other);
    // The grid on request: pixels of its colour appear, the line stays.
    sr_viewer_set_overlays(viewer, SR_OVERLAY_GRID);
    frame(viewer, list);
    other = 0;
    for (long i = 0; i < (long)WIDTH * HEIGHT; i++)
        other += fb->color[i] != PROGRAM_COLOR && fb->color[i] != SR_BENCH_SCENE_BACKGROUND;
    cr_assert_gt(other, 500, "the grid is drawn");
    cr_assert_eq(line_points_in_frame(viewer, a, b), 9);
    // With no scene, Home goes back to the program's camera.
    SDL_Event drag[3] = {
        {.button = {.type = SDL_MOUSEBUTTONDOWN, .button = SDL_BUTTON_LEFT, .clicks = 1, .x = 100, .y = 100}},
        {.motion = {.type = SDL_MOUSEMOTION, .state = SDL_BUTTON_LMASK, .x = 140, .y = 110}},
        {.button = {.type = SDL_MOUSEBUTTONUP, .button = SDL_BUTTON_LEFT, .clicks = 1, .x = 140, .y = 110}}};
    for (int i = 0; i < 3; i++)
        SDL_PushEvent(&drag[i]);
    frame(viewer, list);
    sr_camera orbited = sr_viewer_camera(viewer), resolved = sr_camera_resolve(&camera);
    cr_assert(memcmp(&orbited, &resolved, sizeof orbited) != 0, "the drag orbited");
    push_key(SDLK_HOME);
    frame(viewer, list);
    sr_camera home = sr_viewer_camera(viewer);
    cr_assert(memcmp(&home, &resolved, sizeof home) == 0, "Home is the program's camera");
    sr_viewer_destroy(viewer);
    sr_debug_list_destroy(list);
}

Test(viewer_embed, the_overlays_depths_and_hud_lines_are_set_from_code, .init = init, .timeout = 120)
{
    static program p;
    sr_scene *scene = demo_scene();
    sr_viewer *viewer = open_viewer(scene, &p, NULL);
    sr_viewer_set_overlays(viewer, SR_OVERLAY_BOUNDS | SR_OVERLAY_FRUSTUM | SR_OVERLAY_HUD | (1u << 30));
    cr_assert_eq(sr_viewer_overlays(viewer), (uint32_t)(SR_OVERLAY_BOUNDS | SR_OVERLAY_HUD),
                 "the frustum (F's) and unknown bits are not taken");
    sr_error err = {0};
    cr_assert_eq(sr_viewer_set_bvh_depths(viewer, 1, 3, 0, 9, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_viewer_set_bvh_depths(viewer, 2, 1, 0, 9, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "instance tree depths 2-1"), "%s", err.message);
    cr_assert_eq(sr_viewer_set_bvh_depths(viewer, 0, 3, -1, 9, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "mesh BVH depths -1-9"), "%s", err.message);
    // The program's HUD lines: two more lines of text in the HUD, whose box reaches 20 pixels (two
    // lines of the 10-pixel font) further down than without them. The box's bottom is the lowest
    // row that differs from the frame with the HUD off.
    const sr_framebuffer *fb = sr_viewer_framebuffer(viewer);
    size_t bytes = (size_t)WIDTH * HEIGHT * sizeof(uint32_t);
    uint32_t *without_hud = malloc(bytes), *hud = malloc(bytes);
    cr_assert(without_hud && hud);
    frame(viewer, NULL);
    memcpy(hud, fb->color, bytes);
    sr_viewer_set_overlays(viewer, SR_OVERLAY_BOUNDS);
    frame(viewer, NULL);
    memcpy(without_hud, fb->color, bytes);
    sr_viewer_set_overlays(viewer, SR_OVERLAY_BOUNDS | SR_OVERLAY_HUD);
    sr_viewer_set_hud_text(viewer, "step 120: 27 bodies\n5 contacts");
    frame(viewer, NULL);
    int bottom = -1, bottom_with_lines = -1;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            if (hud[y * WIDTH + x] != without_hud[y * WIDTH + x])
                bottom = y;
            if (fb->color[y * WIDTH + x] != without_hud[y * WIDTH + x])
                bottom_with_lines = y;
        }
    free(hud);
    free(without_hud);
    cr_assert(bottom > 0 && bottom < HEIGHT / 2, "the HUD is at the top (bottom row %d)", bottom);
    cr_assert_eq(bottom_with_lines - bottom, 20,
                 "the HUD's box ends at row %d with the program's two lines, %d without", bottom_with_lines, bottom);
    sr_viewer_destroy(viewer);
    sr_scene_destroy(scene);
}
