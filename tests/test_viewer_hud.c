/* test_viewer_hud.c — what the viewer tells a person besides the picture, run as `softrast view
 * --script` under SDL's dummy video driver: the HUD's text grows with the window (measured on
 * saved frames with the HUD on and off), stays clear of the model at small sizes, shows one
 * frame time, a frame rate only while frames follow each other, and the pick once (print-state's
 * "hud"); the window's title follows the scene (loaded, frozen, reload failed) without waiting
 * for input; a heat-map frame is announced before it is computed. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <stb_image.h>

#include "run_program.h"

/* Under the sanitizers (several times slower) some cases are left to the release run. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

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

/* A unit cube: its corners lie on its bounding sphere, so it reaches as far towards the image's
 * corners as any model the fit frames. */
static void write_cube(const char *path)
{
    write_file(path, "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
                     "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 4 8 7 3\nf 1 5 8 4\nf 2 3 7 6\n");
}

/* Runs `softrast view SCENE --size SIZE --script TEXT`; the run must succeed. */
static run_result view_script(const char *dir, const char *scene, const char *size, const char *text)
{
    char script[128];
    snprintf(script, sizeof script, "%s/script.txt", dir);
    write_file(script, text);
    run_result r = run((const char *[]){"view", scene, "--size", size, "--script", script, NULL});
    cr_assert(r.exited && r.code == 0, "view %s: exit %d: %s", size, r.code, r.err);
    return r;
}

/* The print-state lines of a run, parsed. */
static int states_of(const run_result *r, cJSON **states, int most)
{
    int count = 0;
    for (const char *p = r->out; *p && count < most;) {
        const char *end = strchr(p, '\n');
        cr_assert_not_null(end);
        if (*p == '{') {
            char line[16384];
            size_t length = (size_t)(end - p);
            cr_assert_lt(length, sizeof line);
            memcpy(line, p, length);
            line[length] = '\0';
            states[count] = cJSON_Parse(line);
            cr_assert_not_null(states[count], "not JSON: %s", line);
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

static int count_of(const char *text, const char *part)
{
    int count = 0;
    for (const char *p = strstr(text, part); p; p = strstr(p + 1, part))
        count++;
    return count;
}

typedef struct box {
    int x0, y0, x1, y1; ///< inclusive; x1 < x0 when empty
} box;

/* The box of the pixels that differ between two RGBA images of the same size. */
static box difference(const unsigned char *a, const unsigned char *b, int width, int height)
{
    box d = {width, height, -1, -1};
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            if (memcmp(a + 4 * (y * width + x), b + 4 * (y * width + x), 3) != 0) {
                d.x0 = x < d.x0 ? x : d.x0, d.x1 = x > d.x1 ? x : d.x1;
                d.y0 = y < d.y0 ? y : d.y0, d.y1 = y > d.y1 ? y : d.y1;
            }
    return d;
}

static unsigned char *load(const char *path, int width, int height)
{
    int w, h, n;
    unsigned char *pixels = stbi_load(path, &w, &h, &n, 4);
    cr_assert_not_null(pixels, "cannot read %s", path);
    cr_assert(w == width && h == height, "%s is %dx%d", path, w, h);
    return pixels;
}

/* The HUD's box (where frames with it on and off differ) at three window sizes: its height
 * grows in proportion to the text scale, 1 at 640x360, 2 at 1280x720 and 3 at 1920x1080, and
 * at 1280x720 a line of text is 20 pixels high (it was 10). */
Test(hud, its_text_grows_with_the_window, .init = init, .timeout = 120)
{
    char dir[64], mesh[128];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/cube.obj", dir);
    write_cube(mesh);
    const struct {
        const char *size;
        int width, height, scale;
    } sizes[] = {{"640x360", 640, 360, 1}, {"1280x720", 1280, 720, 2}, {"1920x1080", 1920, 1080, 3}};
    int unit = 0;
    for (int i = 0; i < (SANITIZED ? 2 : 3); i++) {
        char script[512];
        snprintf(script, sizeof script, "wait 2\nsave %s/on.png\nkey U\nsave %s/off.png\nprint-state\n", dir, dir);
        run_result r = view_script(dir, mesh, sizes[i].size, script);
        cJSON *state;
        cr_assert_eq(states_of(&r, &state, 1), 1);
        cr_assert_str_eq(string_of(state, "hud"), "", "the HUD is off");
        cJSON_Delete(state);
        char on[128], off[128];
        snprintf(on, sizeof on, "%s/on.png", dir);
        snprintf(off, sizeof off, "%s/off.png", dir);
        unsigned char *a = load(on, sizes[i].width, sizes[i].height), *b = load(off, sizes[i].width, sizes[i].height);
        box hud = difference(a, b, sizes[i].width, sizes[i].height);
        stbi_image_free(a);
        stbi_image_free(b);
        int height = hud.y1 - hud.y0 + 1;
        cr_assert(hud.x1 >= 0 && hud.x0 < sizes[i].width / 4 && hud.y0 < sizes[i].height / 8,
                  "%s: no HUD at the top left", sizes[i].size);
        if (i == 0) {
            // 7 lines of 10 pixels (name, frame, instances, triangles, fragments, draw calls, H: help)
            // and a margin.
            cr_assert(height >= 70 && height <= 100, "640x360: a HUD of %d pixels", height);
            unit = height;
        } else {
            cr_assert_eq(height, sizes[i].scale * unit, "%s: HUD %d pixels high, expected %d x %d", sizes[i].size,
                         height, sizes[i].scale, unit);
        }
    }
    remove_dir(dir);
}

/* At 800x500, 1280x720 and 1920x1080, with a pick shown, the HUD's box covers no pixel of the
 * model (the cube framed by the model view, whose corners reach as far as any model's). */
Test(hud, it_stays_clear_of_the_model, .init = init, .timeout = 120)
{
    char dir[64], mesh[128];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/cube.obj", dir);
    write_cube(mesh);
    const struct {
        const char *size;
        int width, height;
    } sizes[] = {{"800x500", 800, 500}, {"1280x720", 1280, 720}, {"1920x1080", 1920, 1080}};
    for (int i = 0; i < (SANITIZED ? 1 : 3); i++) {
        char script[512], on[128], off[128];
        snprintf(on, sizeof on, "%s/on.png", dir);
        snprintf(off, sizeof off, "%s/off.png", dir);
        snprintf(script, sizeof script, "wait 2\nclick %d %d\nsave %s\nkey U\nsave %s\nprint-state\n",
                 sizes[i].width / 2, sizes[i].height / 2, on, off);
        run_result r = view_script(dir, mesh, sizes[i].size, script);
        cJSON *state;
        cr_assert_eq(states_of(&r, &state, 1), 1);
        cJSON_Delete(state);
        int w = sizes[i].width, h = sizes[i].height;
        unsigned char *a = load(on, w, h), *b = load(off, w, h);
        box hud = difference(a, b, w, h);
        int covered = 0;
        for (int y = hud.y0; y <= hud.y1; y++)
            for (int x = hud.x0; x <= hud.x1; x++) {
                const unsigned char *p = b + 4 * (y * w + x);
                covered += !(p[0] == 26 && p[1] == 26 && p[2] == 26); // the model or its overlays
            }
        cr_assert_eq(covered, 0, "%s: the HUD (%d, %d) - (%d, %d) covers %d pixels of the model", sizes[i].size, hud.x0,
                     hud.y0, hud.x1, hud.y1, covered);
        stbi_image_free(a);
        stbi_image_free(b);
    }
    remove_dir(dir);
}

/* One frame time; the pick once (its triangle as print-pick reports it); a frame rate while
 * frames follow each other (a drag), none for a frame drawn after a pause. */
Test(hud, each_fact_once_and_a_rate_only_while_frames_follow, .init = init, .timeout = 120)
{
    char dir[64], mesh[128];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/cube.obj", dir);
    write_cube(mesh);
    run_result r = view_script(dir, mesh, "640x360",
                               "wait 3\ndrag 300 180 340 180\ndrag 340 180 300 180\nclick 320 180\nwait 2\nprint-pick\n"
                               "print-state\nsleep 700\nkey X\nprint-state\n");
    cJSON *lines[3];
    cr_assert_eq(states_of(&r, lines, 3), 3, "%s", r.out);
    const cJSON *triangle = cJSON_GetObjectItem(lines[0], "triangle");
    cr_assert(cJSON_IsNumber(triangle), "the click hit the cube: %s", r.out);
    const char *moving = string_of(lines[1], "hud"), *still = string_of(lines[2], "hud");
    char want[64];
    snprintf(want, sizeof want, "triangle %d,", triangle->valueint);
    cr_assert_eq(count_of(moving, want), 1, "the pick's triangle once: %s", moving);
    cr_assert_eq(count_of(moving, "pick"), 1, "the pick once: %s", moving);
    cr_assert_eq(count_of(moving, " ms"), 1, "one frame time: %s", moving);
    cr_assert_eq(count_of(moving, " fps"), 1, "a rate while frames follow each other: %s", moving);
    cr_assert_eq(count_of(still, " ms"), 1, "one frame time: %s", still);
    cr_assert_eq(count_of(still, "fps"), 0, "no rate for a frame after a pause: %s", still);
    // Every line short enough to keep the box narrow (26 characters at most).
    for (const char *line = moving; *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        cr_assert_leq(length, 26, "a long line: %.*s", (int)length, line);
        line = end ? end + 1 : line + length;
    }
    for (int i = 0; i < 3; i++)
        cJSON_Delete(lines[i]);
    remove_dir(dir);
}

/* The title names the scene as soon as it is loaded (it stayed at "loading" until the first
 * input) and says when the culling camera is frozen. */
Test(title, follows_the_scene, .init = init, .timeout = 120)
{
    char dir[64], mesh[128];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/cube.obj", dir);
    write_cube(mesh);
    run_result r = view_script(dir, mesh, "320x200", "print-state\nkey F\nprint-state\nkey F\nprint-state\n");
    cJSON *states[3];
    cr_assert_eq(states_of(&r, states, 3), 3, "%s", r.out);
    cr_assert_str_eq(string_of(states[0], "title"), "softrast view - cube");
    cr_assert_str_eq(string_of(states[1], "title"), "softrast view - cube - culling frozen");
    cr_assert_str_eq(string_of(states[2], "title"), "softrast view - cube");
    for (int i = 0; i < 3; i++)
        cJSON_Delete(states[i]);
    remove_dir(dir);
}

/* A heat-map frame (a pick per pixel: seconds at large sizes) is announced over the last frame
 * before it is computed; the title comes back to the scene's name after it. */
Test(notice, a_slow_frame_is_announced, .init = init, .timeout = 120)
{
    char dir[64], mesh[128];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/cube.obj", dir);
    write_cube(mesh);
    run_result r = view_script(dir, mesh, "320x200", "wait 2\nprint-state\nkey T\nwait 1\nprint-state\n");
    cJSON *states[2];
    cr_assert_eq(states_of(&r, states, 2), 2, "%s", r.out);
    cr_assert_str_eq(string_of(states[0], "notice"), "", "no notice before the heat map");
    cr_assert_str_eq(string_of(states[1], "notice"), "computing the heat map (320 x 200 picks; T turns it off) ...");
    cr_assert_str_eq(string_of(states[1], "title"), "softrast view - cube");
    cJSON_Delete(states[0]);
    cJSON_Delete(states[1]);
    remove_dir(dir);
}
