/* test_viewer.c — the viewer (src/viewer, `softrast view`) as a person uses it, driven by scripts
 * under SDL's dummy video driver (tests/meson.build sets SDL_VIDEODRIVER): a click picks what
 * `softrast pick` picks for that pixel; a frame saved after orbiting and toggling overlays is
 * `softrast render`'s picture for the camera and overlay list print-state reports; every key of
 * the help does what the help says; a scene file that fails to reload keeps the old scene on
 * screen with the error; script errors name the file and line. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <signal.h>
#include <time.h>

#include "run_program.h"

#define DEMO_JSON SR_SOURCE_DIR "/assets/scenes/demo.json"

static void init(void)
{
    setenv("SDL_VIDEODRIVER", "dummy", 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* The JSON lines of a run's stdout, in order (other lines are skipped). */
static int json_lines(const char *text, cJSON **lines, int most)
{
    int count = 0;
    for (const char *p = text; *p && count < most;) {
        const char *end = strchr(p, '\n');
        cr_assert_not_null(end, "every line ends with a newline: %s", p);
        if (*p == '{') {
            char line[16384];
            size_t length = (size_t)(end - p);
            cr_assert_lt(length, sizeof line);
            memcpy(line, p, length);
            line[length] = '\0';
            lines[count] = cJSON_Parse(line);
            cr_assert_not_null(lines[count], "not JSON: %s", line);
            count++;
        }
        p = end + 1;
    }
    return count;
}

/* The lines of a run's stdout that start with '{', copied one by one into `lines`. */
static int raw_lines(const char *text, char lines[][2048], int most)
{
    int count = 0;
    for (const char *p = text; *p && count < most;) {
        const char *end = strchr(p, '\n');
        if (!end)
            break;
        if (*p == '{') {
            size_t length = (size_t)(end - p);
            cr_assert_lt(length, 2048);
            memcpy(lines[count], p, length);
            lines[count][length] = '\0';
            count++;
        }
        p = end + 1;
    }
    return count;
}

static const char *string_of(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItem(object, key);
    cr_assert(cJSON_IsString(item), "no string '%s'", key);
    return item->valuestring;
}

static bool flag_of(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItem(object, key);
    cr_assert(cJSON_IsBool(item), "no boolean '%s'", key);
    return cJSON_IsTrue(item);
}

/* Runs `softrast view SCENE --size SIZE --script SCRIPT_TEXT` (the text written to dir/script.txt). */
static run_result view_script(const char *dir, const char *scene, const char *size, const char *script_text)
{
    char script[128];
    snprintf(script, sizeof script, "%s/script.txt", dir);
    write_file(script, script_text);
    if (scene)
        return run((const char *[]){"view", scene, "--size", size, "--script", script, NULL});
    return run((const char *[]){"view", "--size", size, "--script", script, NULL});
}

/* Two files have the same bytes; otherwise the number of differing bytes is reported. */
static void expect_same_file(const char *a, const char *b)
{
    long size_a = file_size(a), size_b = file_size(b);
    cr_assert(size_a > 0 && size_a == size_b, "%s has %ld bytes, %s %ld", a, size_a, b, size_b);
    unsigned char *x = read_raw(a, size_a), *y = read_raw(b, size_b);
    long different = 0;
    for (long i = 0; i < size_a; i++)
        different += x[i] != y[i];
    free(x);
    free(y);
    cr_assert_eq(different, 0, "%ld bytes differ between %s and %s (both kept)", different, a, b);
}

Test(viewer, a_click_picks_what_softrast_pick_picks_for_that_pixel, .init = init, .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    // Three pixels with the scene's camera (a box, the ground, the sky), then one after an orbit.
    run_result r = view_script(dir, NULL, "640x360",
                               "click 320 200\nprint-pick\nclick 100 300\nprint-pick\nclick 3 2\nprint-pick\n"
                               "drag 300 150 360 170\nclick 250 210\nprint-pick\nprint-state\n");
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    static char lines[8][2048];
    cr_assert_eq(raw_lines(r.out, lines, 8), 5, "%s", r.out);
    const char *points[3] = {"320.5,200.5", "100.5,300.5", "3.5,2.5"};
    for (int i = 0; i < 3; i++) {
        run_result pick = run((const char *[]){"pick", "--size", "640x360", "--at", points[i], NULL});
        cr_assert(pick.exited && pick.code == 0, "%s", pick.err);
        cr_assert(strncmp(pick.out, lines[i], strlen(lines[i])) == 0 && pick.out[strlen(lines[i])] == '\n',
                  "viewer: %s\npick:   %s", lines[i], pick.out);
    }
    cr_assert(strstr(lines[0], "\"hit\": true") && strstr(lines[2], "\"hit\": false"), "%s\n%s", lines[0], lines[2]);
    cJSON *state = cJSON_Parse(lines[4]);
    cr_assert_not_null(state);
    run_result pick = run((const char *[]){"pick", "--size", "640x360", "--camera", string_of(state, "camera"), "--at",
                                           "250.5,210.5", NULL});
    cr_assert(pick.exited && pick.code == 0, "%s", pick.err);
    cr_assert(strncmp(pick.out, lines[3], strlen(lines[3])) == 0, "after the orbit:\nviewer: %s\npick:   %s", lines[3],
              pick.out);
    cJSON_Delete(state);
    remove_dir(dir);
}

Test(viewer, a_saved_frame_is_softrast_renders_picture_for_its_camera_and_overlays, .init = init, .timeout = 300)
{
    char dir[64];
    make_temp_dir(dir);
    char script[2048];
    // Orbit, zoom, pan both ways, turn overlays on, shift the BVH ranges, pick, HUD off (its
    // frame times differ from run to run), save; then freeze culling, orbit away and save again.
    snprintf(script, sizeof script,
             "drag 300 150 380 190\nwheel 2 320 180\ndrag 300 150 320 160 right\ndrag 300 150 290 150 shift-left\n"
             "key B\nkey O\nkey W\nkey N\nkey G\nkey X\nkey M\nkey ]\nkey T\nclick 330 200\nkey U\n"
             "save %s/viewer.bmp\nprint-state\n"
             "key T\nkey F\ndrag 300 150 200 120\nwheel -3\nsave %s/frozen.bmp\nprint-state\n",
             dir, dir);
    run_result r = view_script(dir, NULL, "640x360", script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *states[2];
    cr_assert_eq(json_lines(r.out, states, 2), 2, "%s", r.out);
    const char *overlays = string_of(states[0], "overlays");
    cr_assert(strstr(overlays, "bvh:1-4") && strstr(overlays, "mesh-bvh:1-6") && strstr(overlays, "heat") &&
                  strstr(overlays, "pick:330.5,200.5") && !strstr(overlays, "hud"),
              "%s", overlays);
    char out[128];
    snprintf(out, sizeof out, "%s/render.bmp", dir);
    run_result render = run((const char *[]){"render", "--size", "640x360", "--camera", string_of(states[0], "camera"),
                                             "--overlay", overlays, "--out", out, NULL});
    cr_assert(render.exited && render.code == 0, "%s", render.err);
    char viewer_bmp[128];
    snprintf(viewer_bmp, sizeof viewer_bmp, "%s/viewer.bmp", dir);
    expect_same_file(viewer_bmp, out);

    // Frozen: the view from the orbit's camera, culling and the frustum from the frozen one —
    // render's --debug-camera.
    cr_assert(flag_of(states[1], "frozen"));
    const char *cull = string_of(states[1], "cull_camera");
    cr_assert_str_eq(cull, string_of(states[0], "camera"), "F froze the camera of that moment");
    cr_assert_str_neq(string_of(states[1], "camera"), cull);
    cr_assert(strstr(string_of(states[1], "overlays"), "frustum"));
    render = run((const char *[]){"render", "--size", "640x360", "--camera", cull, "--debug-camera",
                                  string_of(states[1], "camera"), "--overlay", string_of(states[1], "overlays"),
                                  "--out", out, NULL});
    cr_assert(render.exited && render.code == 0, "%s", render.err);
    snprintf(viewer_bmp, sizeof viewer_bmp, "%s/frozen.bmp", dir);
    expect_same_file(viewer_bmp, out);
    cJSON_Delete(states[0]);
    cJSON_Delete(states[1]);
    remove_dir(dir);
}

/* One key of the help: its name in the help text, its SDL key name, and the state it changes. */
typedef struct key_case {
    const char *help;  ///< as the help lists it
    const char *key;   ///< SDL key name for the script
    const char *field; ///< print-state's "on" field it toggles (NULL: checked by hand below)
} key_case;

Test(viewer, every_key_of_the_help_does_what_it_says, .init = init, .timeout = 300)
{
    char dir[64];
    make_temp_dir(dir);
    char scene[128];
    snprintf(scene, sizeof scene, "%s/demo.json", dir);
    char *text = NULL;
    {
        FILE *f = fopen(DEMO_JSON, "rb");
        cr_assert_not_null(f);
        text = calloc(1, 65536);
        fread(text, 1, 65535, f);
        fclose(f);
    }
    write_file(scene, text);
    free(text);

    run_result help = run((const char *[]){"view", "--help", NULL});
    cr_assert(help.exited && help.code == 0);
    static const key_case toggles[] = {
        {"  B ", "B", "bvh"},        {"  M ", "M", "mesh_bvh"},       {"  O ", "O", "bounds"},
        {"  N ", "N", "normals"},    {"  W ", "W", "wire"},           {"  T ", "T", "heat"},
        {"  G ", "G", "grid"},       {"X   world axes", "X", "axes"}, {"  P ", "P", "pick"},
        {"  U or Tab", "U", "hud"},  {"  U or Tab", "Tab", "hud"},    {"  H or F1", "H", "help"},
        {"  H or F1", "F1", "help"},
    };
    const int toggle_count = (int)(sizeof toggles / sizeof toggles[0]);
    char script[8192] = "print-state\n";
    for (int i = 0; i < toggle_count; i++) {
        cr_assert(strstr(help.out, toggles[i].help), "the help lists '%s'", toggles[i].help);
        snprintf(script + strlen(script), sizeof script - strlen(script), "key %s\nprint-state\nkey %s\n",
                 toggles[i].key, toggles[i].key);
    }
    // [ and ]; F, an orbit while frozen, F again; Home; C after a click; S; R; then Esc ends the
    // script (the last print-state never runs).
    const char *others[] = {"  [ and ]",  "  F ",      "  Home",     "  C ",  "  S ",         "  R ",
                            "  Esc or Q", "left drag", "right drag", "wheel", "double-click", "click"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        cr_assert(strstr(help.out, others[i]), "the help lists '%s'", others[i]);
    strcat(script, "key ]\nkey ]\nprint-state\nkey [\nprint-state\nkey [\nkey [\nprint-state\n"
                   "key F\nprint-state\ndrag 300 150 360 150\nprint-state\nkey F\nprint-state\n"
                   "key Home\nprint-state\nclick 320 200\nprint-state\nkey C\nprint-state\n"
                   "key S\nprint-state\nkey R\nprint-state\n"
                   "double-click 320 200\nprint-state\nwheel 3 320 200\nprint-state\n"
                   "key Escape\nprint-state\n");
    run_result r = view_script(dir, scene, "640x360", script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    static cJSON *states[64];
    int count = json_lines(r.out, states, 64);
    int expected = 1 + toggle_count + 13;
    cr_assert_eq(count, expected, "%d states (Esc ends the script before the last one): %s", count, r.out);
    const cJSON *first = cJSON_GetObjectItem(states[0], "on");
    cr_assert(flag_of(first, "hud") && !flag_of(first, "bvh"), "the HUD alone is on at the start");
    for (int i = 0; i < toggle_count; i++) {
        const cJSON *on = cJSON_GetObjectItem(states[1 + i], "on");
        for (int k = 0; k < toggle_count; k++) {
            bool was = flag_of(first, toggles[k].field);
            bool now = flag_of(on, toggles[k].field);
            bool same_field = strcmp(toggles[k].field, toggles[i].field) == 0;
            cr_assert_eq(now, same_field ? !was : was, "key %s: '%s' is %d", toggles[i].key, toggles[k].field, now);
        }
    }
    cJSON **s = states + 1 + toggle_count;
    const cJSON *depths = cJSON_GetObjectItem(s[0], "bvh_depths");
    cr_assert(cJSON_GetArrayItem(depths, 0)->valueint == 2 && cJSON_GetArrayItem(depths, 1)->valueint == 5,
              "] ] shifts 0-3 to 2-5");
    depths = cJSON_GetObjectItem(s[0], "mesh_bvh_depths");
    cr_assert(cJSON_GetArrayItem(depths, 0)->valueint == 2 && cJSON_GetArrayItem(depths, 1)->valueint == 7);
    depths = cJSON_GetObjectItem(s[1], "bvh_depths");
    cr_assert(cJSON_GetArrayItem(depths, 0)->valueint == 1 && cJSON_GetArrayItem(depths, 1)->valueint == 4, "[");
    depths = cJSON_GetObjectItem(s[2], "bvh_depths");
    cr_assert(cJSON_GetArrayItem(depths, 0)->valueint == 0 && cJSON_GetArrayItem(depths, 1)->valueint == 3,
              "[ stops at depth 0");
    const char *home = string_of(states[0], "camera");
    cr_assert(flag_of(s[3], "frozen") && strcmp(string_of(s[3], "cull_camera"), home) == 0, "F freezes");
    cr_assert(strcmp(string_of(s[4], "cull_camera"), home) == 0 && strcmp(string_of(s[4], "camera"), home) != 0,
              "the frozen camera stays while the view orbits");
    cr_assert(!flag_of(s[5], "frozen") && cJSON_IsNull(cJSON_GetObjectItem(s[5], "cull_camera")), "F unfreezes");
    cr_assert_str_eq(string_of(s[6], "camera"), home, "Home resets the camera");
    cr_assert(flag_of(s[7], "picked") && !flag_of(s[8], "picked"), "a click picks, C clears it");
    const char *saved = string_of(s[9], "message");
    cr_assert(strncmp(saved, "saved ", 6) == 0 && strstr(saved, dir) && strstr(saved, ".bmp"),
              "S saves next to the scene file: %s", saved);
    cr_assert_gt(file_size(saved + 6), 1000, "%s", saved + 6);
    cr_assert(strstr(r.err, saved), "S says where on the terminal too: %s", r.err);
    cr_assert(strstr(string_of(s[10], "message"), "reloaded"), "R reloads: %s", string_of(s[10], "message"));
    cr_assert(flag_of(s[11], "picked") && strcmp(string_of(s[11], "camera"), home) != 0,
              "a double click picks and frames the object");
    const cJSON *orbit_before = cJSON_GetObjectItem(s[11], "orbit"), *orbit_after = cJSON_GetObjectItem(s[12], "orbit");
    cr_assert_lt(cJSON_GetObjectItem(orbit_after, "distance")->valuedouble,
                 cJSON_GetObjectItem(orbit_before, "distance")->valuedouble, "the wheel zooms in");
    for (int i = 0; i < count; i++)
        cJSON_Delete(states[i]);
    remove_dir(dir);
}

/* Starts `softrast view ARGS` without waiting; stdout and stderr go to files in `dir`. */
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

Test(viewer, a_scene_that_fails_to_reload_keeps_the_old_one_on_screen_with_the_error, .init = init, .timeout = 300)
{
    char dir[64];
    make_temp_dir(dir);
    char scene[128], script[128], before[128], after[128], reloaded[128];
    snprintf(scene, sizeof scene, "%s/scene.json", dir);
    snprintf(script, sizeof script, "%s/script.txt", dir);
    snprintf(before, sizeof before, "%s/before.bmp", dir);
    snprintf(after, sizeof after, "%s/after.bmp", dir);
    snprintf(reloaded, sizeof reloaded, "%s/reloaded.bmp", dir);
    const char *good = "{\"name\": \"one box\", \"camera\": {\"eye\": [0, 1, 4], \"target\": [0, 0, 0]},\n"
                       " \"meshes\": {\"box\": {\"primitive\": \"box\", \"size\": 1}},\n"
                       " \"nodes\": [{\"name\": \"box\", \"mesh\": \"box\"}]}\n";
    write_file(scene, good);
    // The test breaks the file while the viewer sleeps (the change is seen by the once-a-second
    // poll of its modification time), then R reloads it again by hand; finally the test mends it.
    char text[2048];
    snprintf(text, sizeof text,
             "key U\nsave %s\nprint-state\nsleep 2500\nprint-state\nkey R\nsave %s\nprint-state\nsleep 2500\n"
             "print-state\nsave %s\n",
             before, after, reloaded);
    write_file(script, text);
    pid_t pid = spawn_view(dir, (const char *[]){"view", scene, "--size", "320x200", "--script", script, NULL});
    for (int i = 0; i < 6000 && file_size(before) <= 0; i++)
        sleep_ms(10);
    cr_assert_gt(file_size(before), 0, "the viewer saved the first frame");
    sleep_ms(1200); // a later modification time than the load's, whatever the file system's resolution
    write_file(scene, "{\"name\": \"broken\", \"nodes\": [{\"mesh\": \"nothing\"}]}\n");
    // Mended once the script has pressed R and saved the frame showing the error.
    for (int i = 0; i < 6000 && file_size(after) <= 0; i++)
        sleep_ms(10);
    cr_assert_gt(file_size(after), 0, "the viewer saved the frame after R");
    sleep_ms(1200);
    write_file(scene, good);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "%s/stdout", dir);
    snprintf(err_path, sizeof err_path, "%s/stderr", dir);
    static char out[65536], err[65536];
    read_text(out_path, out, sizeof out);
    read_text(err_path, err, sizeof err);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit %d: %s", WEXITSTATUS(status), err);
    cJSON *states[4];
    cr_assert_eq(json_lines(out, states, 4), 4, "%s", out);
    cr_assert_str_eq(string_of(states[0], "scene"), "one box");
    cr_assert_str_eq(string_of(states[0], "load_error"), "");
    // The change on disk was noticed by itself: the error is shown, the old scene kept.
    for (int i = 1; i <= 2; i++) {
        cr_assert_str_eq(string_of(states[i], "scene"), "one box", "state %d: the old scene stays", i);
        cr_assert(flag_of(states[i], "loaded"));
        const char *error = string_of(states[i], "load_error");
        cr_assert(strstr(error, "scene.json") && strstr(error, "nodes[0].mesh"),
                  "state %d names the file and "
                  "the value: %s",
                  i, error);
    }
    cr_assert(strstr(err, "nodes[0].mesh"), "the error is on the terminal too: %s", err);
    // The frame after R is the old scene with the error over it: the same picture outside the
    // error's panel at the bottom.
    long size = file_size(before);
    cr_assert_eq(file_size(after), size);
    unsigned char *a = read_raw(before, size), *b = read_raw(after, size);
    // BMP rows are stored bottom first after a 54-byte header: the top half of the picture is
    // the second half of the pixel data.
    long header = 54, row = 320 * 3, differing_top = 0, differing_bottom = 0;
    for (long y = 0; y < 200; y++)
        for (long x = 0; x < row; x++) {
            bool differs = a[header + y * row + x] != b[header + y * row + x];
            if (y >= 100)
                differing_top += differs;
            else
                differing_bottom += differs;
        }
    free(a);
    free(b);
    cr_assert_eq(differing_top, 0, "the top of the frame (the old scene) is unchanged");
    cr_assert_gt(differing_bottom, 100, "the error is drawn at the bottom");
    // Mended: the next poll loads it again and the error goes.
    cr_assert_str_eq(string_of(states[3], "load_error"), "", "mended: %s", string_of(states[3], "load_error"));
    for (int i = 0; i < 4; i++)
        cJSON_Delete(states[i]);
    remove_dir(dir);
}

Test(viewer, script_errors_name_the_file_and_line, .init = init, .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    const struct {
        const char *script, *message;
    } cases[] = {
        {"click 1 1\n\n# comment\nfly 3\n", "script.txt:4: unknown command 'fly'"},
        {"click 1\n", "script.txt:1: click: expected 'click X Y'"},
        {"click 1 x\n", "script.txt:1: Y: 'x' is not a number"},
        {"click 900 10\n", "script.txt:1: X: 900 is outside"},
        {"wait 1\nkey NoSuchKey\n", "script.txt:2: key: unknown key name 'NoSuchKey'"},
        {"drag 1 1 2 2 thumb\n", "script.txt:1: drag: unknown button 'thumb'"},
        {"save /nonexistent_folder_softrast/x.bmp\n", "script.txt:1: save:"},
        {"wheel 1 2\n", "script.txt:1: wheel"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = view_script(dir, NULL, "320x200", cases[i].script);
        cr_assert(r.exited && r.code == 1, "case %zu: exit %d", i, r.code);
        cr_assert(strstr(r.err, cases[i].message), "case %zu: stderr does not say '%s': %s", i, cases[i].message,
                  r.err);
    }
    // A missing file is a failure (1), as render and pick say; a bad option a usage error (2).
    run_result r = run((const char *[]){"view", "/nonexistent_softrast.json", NULL});
    cr_assert(r.exited && r.code == 1 && strstr(r.err, "/nonexistent_softrast.json"), "%s", r.err);
    r = run((const char *[]){"view", "--size", "0x10", NULL});
    cr_assert(r.exited && r.code == 2 && strstr(r.err, "--size"), "%s", r.err);
    r = run((const char *[]){"view", "--script", "/nonexistent_script.txt", NULL});
    cr_assert(r.exited && r.code == 1 && strstr(r.err, "--script"), "%s", r.err);
    // The dummy driver shows no window: --probe says so (softrast.sh run then renders a file).
    r = run((const char *[]){"view", "--probe", NULL});
    cr_assert(r.exited && r.code == 1 && strstr(r.err, "shows no window"), "%s", r.err);
    remove_dir(dir);
}

Test(viewer, resize_follows_the_window_and_stats_are_reported, .init = init, .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    run_result r = view_script(dir, NULL, "320x200",
                               "print-state\nresize 400 300\nclick 200 150\nprint-state\n"
                               "wait 5\nprint-stats\n");
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *lines[3];
    cr_assert_eq(json_lines(r.out, lines, 3), 3, "%s", r.out);
    const cJSON *size = cJSON_GetObjectItem(lines[1], "size");
    cr_assert(cJSON_GetArrayItem(size, 0)->valueint == 400 && cJSON_GetArrayItem(size, 1)->valueint == 300);
    run_result pick = run((const char *[]){"pick", "--size", "400x300", "--at", "200.5,150.5", NULL});
    cr_assert(strstr(pick.out, "\"hit\": true"), "%s", pick.out);
    cr_assert_geq(cJSON_GetObjectItem(lines[2], "frames")->valueint, 7);
    cr_assert_gt(cJSON_GetObjectItem(lines[2], "median_frame_ms")->valuedouble, 0.0);
    for (int i = 0; i < 3; i++)
        cJSON_Delete(lines[i]);
    remove_dir(dir);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

Test(viewer, where_no_window_can_open_view_says_so_at_once_unless_hidden_or_scripted, .init = init, .timeout = 120)
{
    // SDL's dummy driver (the tests' own) shows no window: `softrast view` would wait for input
    // nobody can give. It exits 1 at once, saying why and what to do instead.
    double start = seconds_now();
    run_result r = run((const char *[]){"view", NULL});
    cr_assert(r.exited && r.code == 1, "exit %d: %s", r.code, r.err);
    cr_assert(strstr(r.err, "no window can open here") && strstr(r.err, "SDL_VIDEODRIVER=dummy") &&
                  strstr(r.err, "softrast render") && strstr(r.err, "--script"),
              "%s", r.err);
    r = run((const char *[]){"view", DEMO_JSON, "--size", "320x200", NULL});
    cr_assert(r.exited && r.code == 1 && strstr(r.err, "no window can open here"), "%s", r.err);
    cr_assert(strstr(r.err, "softrast render " DEMO_JSON), "the render command names the scene: %s", r.err);
    // No display at all (no DISPLAY, no WAYLAND_DISPLAY, no driver asked for): SDL falls back to a
    // driver that shows nothing, or has none; either way the same error at once.
    unsetenv("SDL_VIDEODRIVER");
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    r = run((const char *[]){"view", NULL});
    cr_assert(r.exited && r.code == 1 && strstr(r.err, "no window can open here"), "%s", r.err);
    cr_assert_lt(seconds_now() - start, 30.0, "three refusals took %.1f s", seconds_now() - start);
    // A hidden window with a script still runs there.
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    char dir[64];
    make_temp_dir(dir);
    r = view_script(dir, NULL, "320x200", "print-state\n");
    cr_assert(r.exited && r.code == 0 && strstr(r.out, "\"scene\": \"demo\""), "exit %d: %s %s", r.code, r.out, r.err);
    remove_dir(dir);
}
