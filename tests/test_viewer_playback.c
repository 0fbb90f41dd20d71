/* test_viewer_playback.c — `softrast view RECORDING` as a person uses it, driven by scripts under
 * SDL's dummy video driver: the recordings are made here with softrast/record.h (a moving sphere,
 * a fixed line, a box outline, dots that appear at frame 10, a scene node that moves, messages at
 * frames 5, 12 and 30). Checked: the frame after each playback key, play in real time and its
 * loop range and speed, the timeline drawn where print-state says (handle, played part, message
 * ticks read back from the saved picture) and the mouse on it, clicks that pick the recorded item
 * or node computed here by an independent projection, the selection kept from frame to frame,
 * lists and colours turned off (their pixels gone from the picture), a saved frame equal to
 * `softrast replay` of the same frame and camera, overlays on the recorded scene, a recording
 * recognised by its magic whatever its name, a truncated and a damaged file, and a recording
 * that grows while it is shown. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <softrast/record.h>
#include <stb_image.h>
#include <time.h>

#include "debug_projection.h"
#include "run_program.h"

#define WIDTH 640
#define HEIGHT 360
#define FRAMES 40

static void init(void)
{
    setenv("SDL_VIDEODRIVER", "dummy", 0);
}

/* ---- the recording ---- */

/// The camera every frame is recorded with: eye (0, 0, 5) looking at the origin, fov 45.
static const double EYE[3] = {0.0, 0.0, 5.0}, TARGET[3] = {0.0, 0.0, 0.0}, UP[3] = {0.0, 1.0, 0.0};

static double sphere_x(int frame)
{
    return -1.0 + 0.02 * frame;
}
static double node_x(int frame)
{
    return 1.2 + 0.01 * frame;
}
static double dot_x(int frame)
{
    return 0.5 - 0.01 * frame;
}
#define SPHERE_Y (-0.6)
#define SPHERE_R 0.25
#define LINE_Y 0.8
#define DOT_Y (-0.9)
#define NODE_Y (-0.3)
#define NODE_HALF 0.3

/* The items of frame `f` into the two lists. */
static void fill_lists(int f, sr_debug_list *bodies, sr_debug_list *contacts)
{
    sr_debug_list_clear(bodies, NULL);
    sr_debug_list_clear(contacts, NULL);
    sr_debug_sphere(bodies, sr_vec3_make((float)sphere_x(f), (float)SPHERE_Y, 0.0f), (float)SPHERE_R,
                    sr_debug_style_color(SR_DEBUG_RED));
    sr_debug_line(bodies, sr_vec3_make(-1.2f, (float)LINE_Y, 0.0f), sr_vec3_make(-0.2f, (float)LINE_Y, 0.0f),
                  sr_debug_style_color(SR_DEBUG_GREEN));
    sr_debug_aabb(bodies, (sr_aabb){{0.15f, 0.45f, -0.15f}, {0.45f, 0.75f, 0.15f}},
                  sr_debug_style_color(SR_DEBUG_BLUE));
    if (f >= 10)
        sr_debug_dot(contacts, sr_vec3_make((float)dot_x(f), (float)DOT_Y, 0.0f), 10.0f,
                     sr_debug_style_color(SR_DEBUG_YELLOW));
}

/* Records `frames` frames into `path` (closed cleanly when `close`; otherwise the recorder is
 * returned open in *open_recorder with its lists and scene, for more frames). */
typedef struct live_recording {
    sr_recorder *recorder;
    sr_scene *scene;
    sr_node_id node;
    sr_debug_list *lists[2];
    int frames;
} live_recording;

static void record_frames(live_recording *live, int first, int count)
{
    sr_error err = {0};
    for (int f = first; f < first + count; f++) {
        if (f == 5)
            cr_assert_eq(sr_recorder_message(live->recorder, SR_RECORD_INFO, "five", &err), SR_OK, "%s", err.message);
        if (f == 12)
            cr_assert_eq(sr_recorder_message(live->recorder, SR_RECORD_WARNING, "twelve", &err), SR_OK);
        if (f == 30)
            cr_assert_eq(sr_recorder_message(live->recorder, SR_RECORD_ERROR, "thirty", &err), SR_OK);
        sr_transform t = sr_transform_identity();
        t.translation = sr_vec3_make((float)node_x(f), (float)NODE_Y, 0.0f);
        cr_assert_eq(sr_scene_set_transform(live->scene, live->node, t, &err), SR_OK);
        fill_lists(f, live->lists[0], live->lists[1]);
        cr_assert_eq(sr_recorder_frame(live->recorder, f / 60.0, live->lists, 2, live->scene, &err), SR_OK, "%s",
                     err.message);
    }
    live->frames = first + count;
}

static void start_recording(const char *path, live_recording *live)
{
    sr_error err = {0};
    *live = (live_recording){0};
    const char *names[2] = {"bodies", "contacts"};
    cr_assert_eq(sr_recorder_create(
                     path,
                     &(sr_recorder_desc){
                         .title = "playback test", .list_names = names, .list_name_count = 2, .keyframe_interval = 8},
                     &live->recorder, &err),
                 SR_OK, "%s", err.message);
    cr_assert_eq(sr_scene_create(&(sr_scene_desc){.name = "playback"}, &live->scene, &err), SR_OK);
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_box(sr_vec3_make((float)NODE_HALF, (float)NODE_HALF, (float)NODE_HALF), 1, &mesh, &err),
                 SR_OK);
    sr_mesh_id mesh_id;
    cr_assert_eq(sr_scene_add_mesh(live->scene, mesh, "crate", &mesh_id, &err), SR_OK);
    cr_assert_eq(
        sr_scene_add_node(live->scene,
                          &(sr_node_desc){.name = "crate", .transform = sr_transform_identity(), .mesh = mesh_id},
                          &live->node, &err),
        SR_OK);
    sr_camera camera = {.eye = sr_vec3_make((float)EYE[0], (float)EYE[1], (float)EYE[2]),
                        .target = sr_vec3_make(0.0f, 0.0f, 0.0f)};
    sr_scene_set_camera(live->scene, &camera);
    cr_assert_eq(sr_recorder_set_camera(live->recorder, &camera, &err), SR_OK);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(sr_debug_list_create(NULL, &live->lists[i], &err), SR_OK);
}

static void stop_recording(live_recording *live, bool close)
{
    sr_error err = {0};
    if (close)
        cr_assert_eq(sr_recorder_close(live->recorder, &err), SR_OK, "%s", err.message);
    else
        sr_recorder_destroy(live->recorder); // (also writes the index; a killed writer's file is cut below)
    for (int i = 0; i < 2; i++)
        sr_debug_list_destroy(live->lists[i]);
    sr_scene_destroy(live->scene);
}

/* The test recording of FRAMES frames, closed cleanly, at dir/NAME. */
static void make_recording(const char *dir, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    live_recording live;
    start_recording(path, &live);
    record_frames(&live, 0, FRAMES);
    stop_recording(&live, true);
}

/* ---- running the viewer ---- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* The JSON lines of a run's stdout, in order. */
static int json_lines(const char *text, cJSON **lines, int most)
{
    int count = 0;
    for (const char *p = text; *p && count < most;) {
        const char *end = strchr(p, '\n');
        cr_assert_not_null(end, "every line ends with a newline: %s", p);
        if (*p == '{') {
            size_t length = (size_t)(end - p);
            char *line = malloc(length + 1);
            memcpy(line, p, length);
            line[length] = '\0';
            lines[count] = cJSON_Parse(line);
            cr_assert_not_null(lines[count], "not JSON: %s", line);
            free(line);
            count++;
        }
        p = end + 1;
    }
    return count;
}

static void free_lines(cJSON **lines, int count)
{
    for (int i = 0; i < count; i++)
        cJSON_Delete(lines[i]);
}

/* `softrast view FILE --size 640x360 --script` of `script_text`. */
static run_result view_script(const char *dir, const char *file, const char *script_text)
{
    char script[128];
    snprintf(script, sizeof script, "%s/script.txt", dir);
    write_file(script, script_text);
    return run((const char *[]){"view", file, "--size", "640x360", "--script", script, NULL});
}

static const cJSON *recording_of(const cJSON *state)
{
    const cJSON *r = cJSON_GetObjectItem(state, "recording");
    cr_assert(cJSON_IsObject(r), "print-state has a recording object");
    return r;
}

static double number_of(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItem(object, key);
    cr_assert(cJSON_IsNumber(item), "no number '%s'", key);
    return item->valuedouble;
}

static bool flag_of(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItem(object, key);
    cr_assert(cJSON_IsBool(item), "no boolean '%s'", key);
    return cJSON_IsTrue(item);
}

static const char *string_of(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItem(object, key);
    cr_assert(cJSON_IsString(item), "no string '%s'", key);
    return item->valuestring;
}

static int frame_of(const cJSON *state)
{
    return (int)number_of(recording_of(state), "frame");
}

/* The independent view of the recorded camera. */
static test_view recorded_view(void)
{
    return test_view_make(EYE, TARGET, UP, 45.0, 0.1, 100.0, WIDTH, HEIGHT);
}

/* Where world point (x, y, z) lands, as script coordinates (the pixel whose centre is nearest). */
static void pixel_of(double x, double y, double z, int *px, int *py)
{
    test_view view = recorded_view();
    test_pixel p = test_project(&view, x, y, z);
    cr_assert(p.in_front);
    *px = (int)floor(p.x);
    *py = (int)floor(p.y);
}

typedef struct image {
    unsigned char *pixels;
    int width, height;
} image;

static image load_png(const char *path)
{
    image im = {0};
    int channels;
    im.pixels = stbi_load(path, &im.width, &im.height, &channels, 4);
    cr_assert_not_null(im.pixels, "cannot read %s", path);
    return im;
}

/* RGBA bytes of pixel (x, y) as an sr_rgba8 value (r in the low byte). */
static uint32_t pixel(const image *im, int x, int y)
{
    const unsigned char *p = im->pixels + 4 * ((size_t)y * (size_t)im->width + (size_t)x);
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static long count_colour(const image *im, uint32_t color)
{
    long count = 0;
    for (int y = 0; y < im->height; y++)
        for (int x = 0; x < im->width; x++)
            count += pixel(im, x, y) == color;
    return count;
}

/* ---- the tests ---- */

Test(playback, each_key_goes_to_the_frame_the_help_says, .init = init, .timeout = 120)
{
    char dir[64], file[128];
    make_temp_dir(dir);
    // Any name: the viewer knows a recording by its first bytes.
    make_recording(dir, "run.data", file, sizeof file);
    run_result r = view_script(dir, file,
                               "print-state\nkey Right\nprint-state\nkey Shift+Right\nprint-state\nkey Left\n"
                               "print-state\nkey Ctrl+Right\nprint-state\nkey Ctrl+Right\nprint-state\n"
                               "key Ctrl+Left\nprint-state\nkey End\nprint-state\nkey PageUp\nprint-state\n"
                               "key PageDown\nprint-state\nkey Home\nprint-state\nkey Left\nprint-state\n"
                               "key Shift+Left\nprint-state\nkey +\nkey +\nprint-state\nkey -\nprint-state\n"
                               "frame 17\nprint-state\nframe last\nprint-state\n");
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *states[32];
    int count = json_lines(r.out, states, 32);
    static const int expected[] = {0, 1, 11, 10, 12, 30, 12, 39, 0, 39, 0, 0, 0, 0, 0, 17, 39};
    const int n = (int)(sizeof expected / sizeof expected[0]);
    cr_assert_eq(count, n, "%s", r.out);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(frame_of(states[i]), expected[i], "state %d: frame %d, expected %d", i, frame_of(states[i]),
                     expected[i]);
        cr_assert(!flag_of(recording_of(states[i]), "playing"), "stepping never plays");
    }
    const cJSON *first = recording_of(states[0]);
    cr_assert_eq(number_of(first, "frames"), FRAMES);
    cr_assert_str_eq(string_of(first, "title"), "playback test");
    cr_assert(flag_of(first, "closed_cleanly") && !flag_of(first, "truncated") && flag_of(first, "has_scene"));
    cr_assert_float_eq(number_of(recording_of(states[2]), "time"), 11.0 / 60.0, 1e-9, "frame 11 at 11/60 s");
    cr_assert_eq(number_of(first, "message_count"), 3);
    cr_assert_eq(number_of(recording_of(states[13]), "speed"), 4.0, "+ + doubles twice");
    cr_assert_eq(number_of(recording_of(states[14]), "speed"), 2.0, "- halves");
    // The frame a message marks lists it.
    const cJSON *messages = cJSON_GetObjectItem(recording_of(states[4]), "messages");
    cr_assert_eq(cJSON_GetArraySize(messages), 1, "frame 12 has its message");
    cr_assert_str_eq(string_of(cJSON_GetArrayItem(messages, 0), "text"), "twelve");
    cr_assert_str_eq(string_of(cJSON_GetArrayItem(messages, 0), "level"), "warning");
    // The title says where the viewer is.
    cr_assert(strstr(string_of(states[15], "title"), "frame 17 / 39"), "%s", string_of(states[15], "title"));
    free_lines(states, count);
    remove_dir(dir);
}

Test(playback, play_follows_real_time_times_the_speed_and_loops_over_its_range, .init = init, .timeout = 120)
{
    char dir[64], file[128];
    make_temp_dir(dir);
    make_recording(dir, "run.rec", file, sizeof file);
    // 40 frames at 60 a second are 0.65 s: at 16x they take 41 ms, so 200 ms of play reach the end
    // however slow the machine (play follows the clock, skipping frames it has no time to draw).
    run_result r = view_script(dir, file,
                               "loop 5 9\nkey Space\nsleep 400\nprint-state\nkey Space\nprint-state\n"
                               "loop off\nkey +\nkey +\nkey +\nkey +\nframe 0\nkey Space\nsleep 200\nprint-state\n"
                               "key -\nkey -\nkey -\nkey -\nkey Space\nprint-state\nkey Space\n"
                               "frame 3\nkey L\nprint-state\nframe 8\nkey L\nprint-state\nkey L\nprint-state\n");
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *states[8];
    int count = json_lines(r.out, states, 8);
    cr_assert_eq(count, 7, "%s", r.out);
    const cJSON *looping = recording_of(states[0]);
    cr_assert(flag_of(looping, "playing"), "Space plays");
    int frame = frame_of(states[0]);
    cr_assert(frame >= 5 && frame <= 9, "play stays in the loop range 5-9: frame %d", frame);
    const cJSON *range = cJSON_GetObjectItem(looping, "loop");
    cr_assert(cJSON_GetArraySize(range) == 2 && cJSON_GetArrayItem(range, 0)->valueint == 5 &&
              cJSON_GetArrayItem(range, 1)->valueint == 9);
    cr_assert(!flag_of(recording_of(states[1]), "playing"), "Space pauses");
    cr_assert_eq(number_of(recording_of(states[2]), "speed"), 16.0);
    cr_assert_eq(frame_of(states[2]), FRAMES - 1, "at 16x play reached the last frame");
    cr_assert(!flag_of(recording_of(states[2]), "playing"), "and stopped there");
    // Space at the end starts again from the first frame.
    cr_assert(flag_of(recording_of(states[3]), "playing"));
    cr_assert_lt(frame_of(states[3]), FRAMES - 1, "play starts again from the start");
    // L marks, sets and clears the range.
    cr_assert_eq(number_of(recording_of(states[4]), "loop_mark"), 3);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(recording_of(states[4]), "loop")));
    range = cJSON_GetObjectItem(recording_of(states[5]), "loop");
    cr_assert(cJSON_GetArrayItem(range, 0)->valueint == 3 && cJSON_GetArrayItem(range, 1)->valueint == 8);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(recording_of(states[6]), "loop")), "a third L clears the range");
    free_lines(states, count);
    remove_dir(dir);
}

/* The track's x of frame f, as documented: from 8 to width - 8 px at text scale 1. */
static double track_x(const cJSON *bar, int f)
{
    double x0 = cJSON_GetArrayItem(bar, 0)->valuedouble, x1 = cJSON_GetArrayItem(bar, 2)->valuedouble;
    return x0 + (x1 - x0) * f / (FRAMES - 1);
}

Test(playback, the_timeline_is_drawn_at_the_bottom_and_the_mouse_scrubs_it, .init = init, .timeout = 120)
{
    char dir[64], file[128], script[1024];
    make_temp_dir(dir);
    make_recording(dir, "run.rec", file, sizeof file);
    snprintf(script, sizeof script, "frame 20\nsave %s/timeline.png\nprint-state\n", dir);
    run_result r = view_script(dir, file, script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *states[4];
    cr_assert_eq(json_lines(r.out, states, 4), 1, "%s", r.out);
    const cJSON *timeline = cJSON_GetObjectItem(recording_of(states[0]), "timeline");
    const cJSON *bar = cJSON_GetObjectItem(timeline, "bar");
    double x0 = cJSON_GetArrayItem(bar, 0)->valuedouble, y0 = cJSON_GetArrayItem(bar, 1)->valuedouble;
    double x1 = cJSON_GetArrayItem(bar, 2)->valuedouble, y1 = cJSON_GetArrayItem(bar, 3)->valuedouble;
    cr_assert(x0 == 8.0 && x1 == WIDTH - 8.0, "the track spans the frame: %g to %g", x0, x1);
    cr_assert(y0 >= HEIGHT - 40.0 && y1 <= HEIGHT && y1 > y0, "at the bottom: %g to %g", y0, y1);
    char path[160];
    snprintf(path, sizeof path, "%s/timeline.png", dir);
    image im = load_png(path);
    int mid = (int)floor(0.5 * (y0 + y1));
    // The handle at frame 20; the played part before it, the track after it.
    cr_assert_eq(pixel(&im, (int)floor(track_x(bar, 20)), mid), 0xffffffffu, "the handle is white at frame 20");
    uint32_t before = pixel(&im, (int)floor(track_x(bar, 10)), mid),
             after = pixel(&im, (int)floor(track_x(bar, 30)), mid);
    cr_assert_neq(before, after, "the part played is drawn apart from the rest");
    cr_assert_eq(after, pixel(&im, (int)floor(track_x(bar, 36)), mid), "the track after the handle is one colour");
    // The message ticks above the track, coloured by level: info at 5, warning at 12, error at 30.
    int tick_y = (int)floor(y0) - 3;
    uint32_t info = pixel(&im, (int)floor(track_x(bar, 5)), tick_y);
    uint32_t warning = pixel(&im, (int)floor(track_x(bar, 12)), tick_y);
    uint32_t error = pixel(&im, (int)floor(track_x(bar, 30)), tick_y);
    uint32_t none = pixel(&im, (int)floor(track_x(bar, 22)), tick_y);
    cr_assert(info != none && warning != none && error != none && info != warning && warning != error,
              "ticks %08x %08x %08x over %08x", info, warning, error, none);
    cr_assert_gt(error & 0xffu, 200u, "an error's tick is red: %08x", error);
    cr_assert_lt(error >> 8 & 0xffu, 128u, "an error's tick is red: %08x", error);
    stbi_image_free(im.pixels);

    // The mouse: a click on the track goes to its frame, a drag scrubs, Shift + drag sets the
    // loop range, the wheel over the timeline steps.
    snprintf(script, sizeof script,
             "click %d %d\nprint-state\ndrag %d %d %d %d\nprint-state\ndrag %d %d %d %d shift-left\nprint-state\n"
             "wheel 3 %d %d\nprint-state\nwheel -1 %d %d\nprint-state\n",
             (int)floor(track_x(bar, 25)), mid, (int)floor(track_x(bar, 25)), mid, (int)floor(track_x(bar, 35)), mid,
             (int)floor(track_x(bar, 5)), mid, (int)floor(track_x(bar, 15)), mid, 300, mid, 300, mid);
    r = view_script(dir, file, script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *after_states[8];
    int count = json_lines(r.out, after_states, 8);
    cr_assert_eq(count, 5, "%s", r.out);
    cr_assert_eq(frame_of(after_states[0]), 25, "a click on the track goes to its frame");
    cr_assert_eq(frame_of(after_states[1]), 35, "a drag scrubs to where it ends");
    const cJSON *range = cJSON_GetObjectItem(recording_of(after_states[2]), "loop");
    cr_assert(cJSON_IsArray(range) && cJSON_GetArrayItem(range, 0)->valueint == 5 &&
                  cJSON_GetArrayItem(range, 1)->valueint == 15,
              "Shift + drag sets the loop range");
    int here = frame_of(after_states[2]);
    cr_assert_eq(frame_of(after_states[3]), here + 3 > FRAMES - 1 ? FRAMES - 1 : here + 3, "the wheel steps");
    cr_assert_eq(frame_of(after_states[4]), frame_of(after_states[3]) - 1);
    cr_assert_str_eq(string_of(after_states[4], "camera"), string_of(after_states[0], "camera"),
                     "the mouse on the timeline never moves the camera");
    free_lines(after_states, count);
    free_lines(states, 1);
    remove_dir(dir);
}

static const cJSON *pick_item(const cJSON *pick)
{
    const cJSON *item = cJSON_GetObjectItem(pick, "item");
    cr_assert(cJSON_IsObject(item), "the pick has an item");
    return item;
}

Test(playback, a_click_picks_the_recorded_item_and_it_stays_selected_while_scrubbing, .init = init, .timeout = 120)
{
    char dir[64], file[128], script[2048];
    make_temp_dir(dir);
    make_recording(dir, "run.rec", file, sizeof file);
    int line_x, line_y, sphere_x0, sphere_y0, dot_x15, dot_y15, node_px, node_py;
    pixel_of(-0.7, LINE_Y, 0.0, &line_x, &line_y);
    // The sphere's XY circle, on its right, at frame 0.
    pixel_of(sphere_x(0) + SPHERE_R, SPHERE_Y, 0.0, &sphere_x0, &sphere_y0);
    pixel_of(dot_x(15), DOT_Y, 0.0, &dot_x15, &dot_y15);
    pixel_of(node_x(0), NODE_Y, NODE_HALF, &node_px, &node_py);
    snprintf(
        script, sizeof script,
        "click %d %d\nprint-pick\n"                                                                    // the line
        "click %d %d\nprint-pick\nkey Right\nkey Right\nkey Right\nprint-pick\nframe 39\nprint-pick\n" // the sphere
        "frame 15\nclick %d %d\nprint-pick\nframe 5\nprint-pick\nframe 20\nprint-pick\n"               // the dot
        "frame 0\nclick %d %d\nprint-pick\nframe 30\nprint-pick\nprint-state\n"                        // the node
        "click 600 30\nprint-pick\nframe 3\nclick %d %d\nkey C\nprint-pick\n",                         // nothing; C
        line_x, line_y, sphere_x0, sphere_y0, dot_x15, dot_y15, node_px, node_py, line_x, line_y);
    run_result r = view_script(dir, file, script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *picks[16];
    int count = json_lines(r.out, picks, 16);
    cr_assert_eq(count, 12, "%s", r.out);

    const cJSON *line = pick_item(picks[0]);
    cr_assert_str_eq(string_of(picks[0], "selected"), "item");
    cr_assert_str_eq(string_of(line, "kind"), "line");
    cr_assert_str_eq(string_of(line, "list_name"), "bodies");
    cr_assert(number_of(line, "list") == 0 && number_of(line, "index") == 1);
    const cJSON *at = cJSON_GetObjectItem(line, "position");
    cr_assert_float_eq(cJSON_GetArrayItem(at, 0)->valuedouble, -0.7, 1e-6, "the line's middle");
    cr_assert_float_eq(cJSON_GetArrayItem(at, 1)->valuedouble, LINE_Y, 1e-6);
    cr_assert_eq(number_of(picks[0], "frame"), 0);

    // The sphere, followed as it moves: frame 3, then 39.
    const int sphere_frames[3] = {0, 3, 39};
    for (int i = 0; i < 3; i++) {
        const cJSON *pick = picks[1 + i];
        const cJSON *sphere = pick_item(pick);
        cr_assert_str_eq(string_of(sphere, "kind"), "sphere");
        cr_assert(flag_of(pick, "here"), "the sphere is found at frame %d", sphere_frames[i]);
        cr_assert_eq(number_of(pick, "frame"), sphere_frames[i]);
        cr_assert_eq(number_of(pick, "picked_frame"), 0, "picked at frame 0");
        cr_assert_float_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(sphere, "position"), 0)->valuedouble,
                           sphere_x(sphere_frames[i]), 1e-5, "frame %d: its centre there", sphere_frames[i]);
        cr_assert(strstr(string_of(sphere, "description"), "radius 0.25"), "%s", string_of(sphere, "description"));
    }
    // The dot exists from frame 10 on: selected at 15, not there at 5, there again at 20.
    const cJSON *dot = pick_item(picks[4]);
    cr_assert_str_eq(string_of(dot, "kind"), "dot");
    cr_assert_str_eq(string_of(dot, "list_name"), "contacts");
    cr_assert(flag_of(picks[4], "here") && !flag_of(picks[5], "here") && flag_of(picks[6], "here"),
              "the selection waits out the frames without the dot");
    cr_assert_str_eq(string_of(picks[5], "selected"), "item", "and is kept meanwhile");
    cr_assert_float_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(pick_item(picks[6]), "position"), 0)->valuedouble,
                       dot_x(20), 1e-5);

    // The node: picked by the ray, then found at frame 30 where it moved 0.3 to the right.
    cr_assert_str_eq(string_of(picks[7], "selected"), "node");
    const cJSON *node = cJSON_GetObjectItem(picks[7], "node");
    cr_assert_str_eq(string_of(node, "name"), "crate");
    const cJSON *box0 = cJSON_GetArrayItem(cJSON_GetObjectItem(node, "box"), 0);
    const cJSON *box30 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(picks[8], "node"), "box"), 0);
    cr_assert_float_eq(cJSON_GetArrayItem(box0, 0)->valuedouble, node_x(0) - NODE_HALF, 1e-5);
    cr_assert_float_eq(cJSON_GetArrayItem(box30, 0)->valuedouble, node_x(30) - NODE_HALF, 1e-5,
                       "the node's box at frame 30");
    cr_assert(flag_of(picks[8], "here"));
    cr_assert_str_eq(string_of(recording_of(picks[9]), "selected"), "node");
    // Empty sky picks nothing; C clears a selection.
    cr_assert_str_eq(string_of(picks[10], "selected"), "none");
    cr_assert_str_eq(string_of(picks[11], "selected"), "none", "C clears the selection");
    free_lines(picks, count);
    remove_dir(dir);
}

Test(playback, lists_and_colours_turned_off_leave_the_picture, .init = init, .timeout = 120)
{
    char dir[64], file[128], script[2048];
    make_temp_dir(dir);
    make_recording(dir, "run.rec", file, sizeof file);
    // HUD off (no text over the items); frame 15 has every item.
    snprintf(script, sizeof script,
             "key U\nframe 15\nsave %s/all.png\nprint-state\nkey 1\nsave %s/no_bodies.png\nprint-state\nkey 0\n"
             "key Shift+1\nsave %s/no_red.png\nprint-state\nkey 0\nkey U\nkey K\nprint-state\n",
             dir, dir, dir);
    run_result r = view_script(dir, file, script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *states[8];
    int count = json_lines(r.out, states, 8);
    cr_assert_eq(count, 4, "%s", r.out);
    const cJSON *lists = cJSON_GetObjectItem(recording_of(states[0]), "lists");
    cr_assert_eq(cJSON_GetArraySize(lists), 2);
    cr_assert_str_eq(string_of(cJSON_GetArrayItem(lists, 0), "name"), "bodies");
    cr_assert_eq(number_of(cJSON_GetArrayItem(lists, 0), "items"), 3);
    cr_assert_eq(number_of(cJSON_GetArrayItem(lists, 1), "items"), 1);
    const cJSON *colours = cJSON_GetObjectItem(recording_of(states[0]), "colours");
    cr_assert_eq(cJSON_GetArraySize(colours), 4, "red, green, blue, yellow");
    char red[16];
    snprintf(red, sizeof red, "#%02x%02x%02x%02x", SR_DEBUG_RED & 0xffu, SR_DEBUG_RED >> 8 & 0xffu,
             SR_DEBUG_RED >> 16 & 0xffu, SR_DEBUG_RED >> 24);
    cr_assert_str_eq(string_of(cJSON_GetArrayItem(colours, 0), "colour"), red, "the first colour is the sphere's");
    cr_assert_eq(number_of(cJSON_GetArrayItem(colours, 0), "items"), 1, "one red item: the sphere");
    cr_assert(!flag_of(cJSON_GetArrayItem(cJSON_GetObjectItem(recording_of(states[1]), "lists"), 0), "shown"));
    // With the bodies hidden the legend keeps its colours in order, counting the shown lists only:
    // no red, green or blue item left, the yellow dot still there.
    const cJSON *colours_shown = cJSON_GetObjectItem(recording_of(states[1]), "colours");
    cr_assert_eq(cJSON_GetArraySize(colours_shown), 4);
    for (int c = 0; c < 4; c++)
        cr_assert_eq(number_of(cJSON_GetArrayItem(colours_shown, c), "items"), c == 3 ? 1 : 0, "colour %d", c);
    cr_assert(!flag_of(cJSON_GetArrayItem(cJSON_GetObjectItem(recording_of(states[2]), "colours"), 0), "shown"));
    cr_assert(flag_of(recording_of(states[3]), "legend"), "K shows the legend");

    char path[160];
    snprintf(path, sizeof path, "%s/all.png", dir);
    image all = load_png(path);
    snprintf(path, sizeof path, "%s/no_bodies.png", dir);
    image no_bodies = load_png(path);
    snprintf(path, sizeof path, "%s/no_red.png", dir);
    image no_red = load_png(path);
    long red_all = count_colour(&all, SR_DEBUG_RED), green_all = count_colour(&all, SR_DEBUG_GREEN);
    long yellow_all = count_colour(&all, SR_DEBUG_YELLOW);
    cr_assert(red_all > 50 && green_all > 50 && yellow_all > 20, "all drawn: %ld %ld %ld", red_all, green_all,
              yellow_all);
    cr_assert(count_colour(&no_bodies, SR_DEBUG_RED) == 0 && count_colour(&no_bodies, SR_DEBUG_GREEN) == 0,
              "list 1 off: its sphere and line are gone");
    cr_assert_eq(count_colour(&no_bodies, SR_DEBUG_YELLOW), yellow_all, "list 2's dot stays");
    cr_assert_eq(count_colour(&no_red, SR_DEBUG_RED), 0, "the red items are gone");
    cr_assert_eq(count_colour(&no_red, SR_DEBUG_GREEN), green_all, "the green line stays");
    stbi_image_free(all.pixels);
    stbi_image_free(no_bodies.pixels);
    stbi_image_free(no_red.pixels);

    // A click on the legend's row of list 2 hides it.
    const cJSON *rows = cJSON_GetObjectItem(cJSON_GetObjectItem(recording_of(states[3]), "timeline"), "legend_rows");
    cr_assert_eq(number_of(rows, "count"), 2 + 2 + 4, "lists: header and 2 rows; colours: header and 4 rows");
    double row_x = 0.5 * (cJSON_GetArrayItem(cJSON_GetObjectItem(rows, "x"), 0)->valuedouble +
                          cJSON_GetArrayItem(cJSON_GetObjectItem(rows, "x"), 1)->valuedouble);
    double row_y = number_of(rows, "top") + 2.5 * number_of(rows, "height");
    snprintf(script, sizeof script, "key K\nclick %d %d\nprint-state\n", (int)row_x, (int)row_y);
    r = view_script(dir, file, script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *clicked[2];
    cr_assert_eq(json_lines(r.out, clicked, 2), 1, "%s", r.out);
    const cJSON *after = cJSON_GetObjectItem(recording_of(clicked[0]), "lists");
    cr_assert(flag_of(cJSON_GetArrayItem(after, 0), "shown") && !flag_of(cJSON_GetArrayItem(after, 1), "shown"),
              "the row of list 2 toggled it");
    cr_assert_str_eq(string_of(recording_of(clicked[0]), "selected"), "none", "a click on the legend picks nothing");
    free_lines(clicked, 1);
    free_lines(states, count);
    remove_dir(dir);
}

/* Two PNG files have the same pixels; otherwise how many differ. */
static void expect_same_pixels(const char *a, const char *b)
{
    image x = load_png(a), y = load_png(b);
    cr_assert(x.width == y.width && x.height == y.height, "%s is %dx%d, %s %dx%d", a, x.width, x.height, b, y.width,
              y.height);
    long different = 0;
    for (int j = 0; j < x.height; j++)
        for (int i = 0; i < x.width; i++)
            different += pixel(&x, i, j) != pixel(&y, i, j);
    stbi_image_free(x.pixels);
    stbi_image_free(y.pixels);
    cr_assert_eq(different, 0, "%ld pixels differ between %s and %s (both kept)", different, a, b);
}

Test(playback, a_saved_frame_is_softrast_replays_picture_of_that_frame_and_camera, .init = init, .timeout = 180)
{
    char dir[64], file[128], script[1024];
    make_temp_dir(dir);
    make_recording(dir, "run.rec", file, sizeof file);
    // HUD off: the picture is the recording's alone. The recorded camera, then an orbit.
    snprintf(script, sizeof script,
             "key U\nframe 17\nsave %s/view_17.png\nprint-state\ndrag 300 150 340 170\nframe 26\n"
             "save %s/view_26.png\nprint-state\n",
             dir, dir);
    run_result r = view_script(dir, file, script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *states[2];
    cr_assert_eq(json_lines(r.out, states, 2), 2, "%s", r.out);
    char out[160], replayed[160], viewed[160];
    snprintf(out, sizeof out, "%s/replay_%%05d.png", dir);
    run_result replay = run((const char *[]){"replay", file, "--frames", "17:17", "--out", out, "--size", "640x360",
                                             "--camera", "recorded", NULL});
    cr_assert(replay.exited && replay.code == 0, "replay: %s", replay.err);
    snprintf(replayed, sizeof replayed, "%s/replay_00017.png", dir);
    snprintf(viewed, sizeof viewed, "%s/view_17.png", dir);
    expect_same_pixels(viewed, replayed);
    replay = run((const char *[]){"replay", file, "--frames", "26:26", "--out", out, "--size", "640x360", "--camera",
                                  string_of(states[1], "camera"), NULL});
    cr_assert(replay.exited && replay.code == 0, "replay: %s", replay.err);
    snprintf(replayed, sizeof replayed, "%s/replay_00026.png", dir);
    snprintf(viewed, sizeof viewed, "%s/view_26.png", dir);
    expect_same_pixels(viewed, replayed);
    free_lines(states, 2);
    remove_dir(dir);
}

Test(playback, overlays_and_the_debug_camera_work_on_the_recorded_scene, .init = init, .timeout = 120)
{
    char dir[64], file[128], script[1024];
    make_temp_dir(dir);
    make_recording(dir, "run.rec", file, sizeof file);
    snprintf(script, sizeof script,
             "key U\nframe 10\nsave %s/plain.png\nkey O\nsave %s/bounds.png\nkey F\ndrag 300 150 200 150\n"
             "print-state\nkey W\nkey B\nprint-state\n",
             dir, dir);
    run_result r = view_script(dir, file, script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *states[2];
    cr_assert_eq(json_lines(r.out, states, 2), 2, "%s", r.out);
    char path[160];
    snprintf(path, sizeof path, "%s/plain.png", dir);
    image plain = load_png(path);
    snprintf(path, sizeof path, "%s/bounds.png", dir);
    image bounds = load_png(path);
    // O draws the recorded node's world box in the bounds colour, around where the node is.
    int px, py;
    pixel_of(node_x(10) - NODE_HALF, NODE_Y + NODE_HALF, NODE_HALF, &px, &py);
    long near = 0;
    for (int y = py - 2; y <= py + 2; y++)
        for (int x = px - 2; x <= px + 2; x++)
            near += pixel(&bounds, x, y) == SR_OVERLAY_COLOR_BOUNDS;
    cr_assert_gt(near, 0, "the bounds overlay draws the recorded node's box corner near (%d, %d)", px, py);
    cr_assert_eq(count_colour(&plain, SR_OVERLAY_COLOR_BOUNDS), 0);
    stbi_image_free(plain.pixels);
    stbi_image_free(bounds.pixels);
    cr_assert(flag_of(states[0], "frozen"), "F freezes the culling camera on a recording");
    cr_assert(strstr(string_of(states[0], "overlays"), "frustum"));
    cr_assert(strstr(string_of(states[1], "overlays"), "wire") && strstr(string_of(states[1], "overlays"), "bvh"));
    free_lines(states, 2);
    remove_dir(dir);
}

Test(playback, a_truncated_recording_opens_with_its_readable_frames_and_a_damaged_one_is_refused, .init = init,
     .timeout = 120)
{
    char dir[64], file[128];
    make_temp_dir(dir);
    // A writer killed mid-run: its file cut in the middle of a record (no index, no trailer).
    snprintf(file, sizeof file, "%s/killed.rec", dir);
    live_recording live;
    start_recording(file, &live);
    record_frames(&live, 0, 20);
    long size_20 = file_size(file);
    record_frames(&live, 20, 5);
    long size_25 = file_size(file);
    stop_recording(&live, false);
    cr_assert_eq(truncate(file, size_20 + (size_25 - size_20) / 10), 0);
    run_result r = view_script(dir, file, "print-state\nkey End\nprint-state\n");
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *states[2];
    cr_assert_eq(json_lines(r.out, states, 2), 2, "%s", r.out);
    const cJSON *rec = recording_of(states[1]);
    cr_assert(!flag_of(rec, "closed_cleanly") && flag_of(rec, "truncated"));
    cr_assert_eq(number_of(rec, "frames"), 20, "the frames written before the cut");
    cr_assert_eq(frame_of(states[1]), 19);
    cr_assert(strstr(string_of(states[1], "hud"), "not closed"), "the HUD says so: %s", string_of(states[1], "hud"));
    free_lines(states, 2);

    // The magic and then nothing a recording has.
    char damaged[128];
    snprintf(damaged, sizeof damaged, "%s/damaged.bin", dir);
    write_file(damaged, SR_RECORD_MAGIC "this is not a recording's header, nor anything else");
    r = view_script(dir, damaged, "print-state\n");
    cr_assert(r.exited && r.code == 1, "exit %d: %s", r.code, r.err);
    cr_assert(strstr(r.err, damaged), "the error names the file: %s", r.err);
    cr_assert_eq(r.out[0], '\0', "nothing ran: %s", r.out);
    remove_dir(dir);
}

/* Starts `softrast view ARGS` without waiting; stdout and stderr into files in `dir`. */
static pid_t spawn_view(const char *dir, const char *const *args)
{
    const char *exe = getenv("SOFTRAST_EXE");
    cr_assert_not_null(exe);
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)exe;
    for (int i = 0; args[i]; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    char out[128], err[128];
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    cr_assert_eq(posix_spawn(&pid, exe, &actions, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
}

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
}

Test(playback, a_recording_that_grows_is_followed_from_its_last_frame, .init = init, .timeout = 120)
{
    char dir[64], file[128], script[256], out[160];
    make_temp_dir(dir);
    snprintf(file, sizeof file, "%s/live.rec", dir);
    live_recording live;
    start_recording(file, &live);
    record_frames(&live, 0, 10);
    // The viewer at the last frame; while it waits, 10 more frames are recorded.
    snprintf(script, sizeof script, "%s/script.txt", dir);
    write_file(script, "key End\nprint-state\nsleep 4000\nprint-state\n");
    pid_t pid = spawn_view(dir, (const char *[]){"view", file, "--size", "640x360", "--script", script, NULL});
    snprintf(out, sizeof out, "%s/stdout", dir);
    char text[262144] = "";
    for (int waited = 0; !strchr(text, '\n') && waited < 60000; waited += 50) {
        sleep_ms(50);
        read_text(out, text, sizeof text);
    }
    cr_assert(strchr(text, '\n'), "the viewer printed its first state");
    record_frames(&live, 10, 10);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    stop_recording(&live, true);
    read_text(out, text, sizeof text);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", text);
    cJSON *states[2];
    cr_assert_eq(json_lines(text, states, 2), 2, "%s", text);
    cr_assert_eq(number_of(recording_of(states[0]), "frames"), 10);
    cr_assert_eq(frame_of(states[0]), 9);
    cr_assert_eq(number_of(recording_of(states[1]), "frames"), 20, "read again as it grew");
    cr_assert_eq(frame_of(states[1]), 19, "at the last frame, the view follows the end");
    free_lines(states, 2);
    remove_dir(dir);
}
