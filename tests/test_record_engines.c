/* test_record_engines.c — the physics engines' examples (tests/examples/pile_bullet.cpp,
 * pile_box2d.cpp) record their runs with --record FILE, and the recording plays back frame for
 * frame what the run drew: each example runs headless, saving every frame as a PNG (what it drew
 * live: its debug list over its background, by its camera) while recording; `softrast replay`
 * then draws every recorded frame with the recorded camera, and each picture must equal the live
 * one pixel for pixel. `softrast view` shows the same pictures (HUD off) at a frame it is sent
 * to, the run's messages mark its timeline, and `softrast replay --check` finds the file clean.
 * The examples' paths come from meson (SOFTRAST_PILE_BULLET, SOFTRAST_PILE_BOX2D); an engine
 * that is not installed is skipped with a message. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <stb_image.h>

#include "run_program.h"

/* Under the sanitizers (several times slower) fewer frames. */
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

#define FRAMES (SANITIZED ? 12 : 45)

static void init(void)
{
    setenv("SDL_VIDEODRIVER", "dummy", 0);
}

/* Runs `exe` with `args` (NULL-terminated, without the program name); stdout and stderr into
 * `out` and `err`. Returns the exit status (-1 when killed by a signal). */
static int run_exe(const char *exe, const char *const *args, char *out, size_t out_size, char *err, size_t err_size)
{
    char capture[64];
    make_temp_dir(capture);
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "%s/stdout", capture);
    snprintf(err_path, sizeof err_path, "%s/stderr", capture);
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)exe;
    for (int i = 0; args[i] && argc < 31; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int spawned = posix_spawn(&pid, exe, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    cr_assert_eq(spawned, 0, "posix_spawn %s: %s", exe, strerror(spawned));
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    read_text(out_path, out, out_size);
    read_text(err_path, err, err_size);
    remove_dir(capture);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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

/* The number of pixels that differ between two PNG files of the same size. */
static long differing_pixels(const char *a, const char *b)
{
    image x = load_png(a), y = load_png(b);
    cr_assert(x.width == y.width && x.height == y.height, "%s is %dx%d, %s %dx%d", a, x.width, x.height, b, y.width,
              y.height);
    long different = 0;
    for (size_t i = 0; i < (size_t)x.width * (size_t)x.height; i++)
        different += memcmp(x.pixels + 4 * i, y.pixels + 4 * i, 4) != 0;
    stbi_image_free(x.pixels);
    stbi_image_free(y.pixels);
    return different;
}

/* Removes the folder's files (frames, recording, script) and the folder. */
static void clean(const char *dir)
{
    remove_dir(dir);
}

static void recorded_run_replays_frame_for_frame(const char *variable)
{
    const char *exe = getenv(variable);
    if (!exe || !exe[0])
        cr_skip_test("%s is not set: the engine is not installed (its example is not built)", variable);
    char dir[64], recording[128], frames[32], out[8192], err[8192];
    make_temp_dir(dir);
    snprintf(recording, sizeof recording, "%s/run.rec", dir);
    snprintf(frames, sizeof frames, "%d", FRAMES);
    int code = run_exe(exe,
                       (const char *[]){"--headless", "--frames", frames, "--save-every", "1", "--out", dir, "--record",
                                        recording, NULL},
                       out, sizeof out, err, sizeof err);
    cr_assert_eq(code, 0, "%s: exit %d: %s", exe, code, err);
    cr_assert(strstr(out, "recorded"), "the example says it recorded: %s", out);

    // Every recorded frame, drawn by softrast replay with the recorded camera: the live frame.
    char pattern[160], range[32];
    snprintf(pattern, sizeof pattern, "%s/replay_%%05d.png", dir);
    snprintf(range, sizeof range, "0:%d", FRAMES - 1);
    run_result replay = run((const char *[]){"replay", recording, "--frames", range, "--out", pattern, "--size",
                                             "640x360", "--camera", "recorded", NULL});
    cr_assert(replay.exited && replay.code == 0, "replay: exit %d: %s", replay.code, replay.err);
    for (int f = 0; f < FRAMES; f++) {
        char live[160], replayed[160];
        snprintf(live, sizeof live, "%s/frame_%04d.png", dir, f + 1); // recording frame f is the run's f + 1
        snprintf(replayed, sizeof replayed, "%s/replay_%05d.png", dir, f);
        long different = differing_pixels(live, replayed);
        cr_assert_eq(different, 0, "frame %d: %ld pixels differ between %s and %s (kept)", f, different, live,
                     replayed);
    }

    // The viewer at a frame, HUD off: the same picture; the run's messages on its timeline.
    char script[512], script_path[128], viewed[160], live[160];
    int frame = FRAMES * 2 / 3;
    snprintf(viewed, sizeof viewed, "%s/view.png", dir);
    snprintf(script, sizeof script, "key U\nframe %d\nsave %s\nprint-state\n", frame, viewed);
    snprintf(script_path, sizeof script_path, "%s/script.txt", dir);
    FILE *f = fopen(script_path, "w");
    cr_assert_not_null(f);
    fputs(script, f);
    fclose(f);
    run_result view = run((const char *[]){"view", recording, "--size", "640x360", "--script", script_path, NULL});
    cr_assert(view.exited && view.code == 0, "view: exit %d: %s", view.code, view.err);
    snprintf(live, sizeof live, "%s/frame_%04d.png", dir, frame + 1);
    long different = differing_pixels(live, viewed);
    cr_assert_eq(different, 0, "the viewer's frame %d: %ld pixels differ from %s (kept)", frame, different, live);
    cJSON *state = cJSON_Parse(view.out);
    cr_assert_not_null(state, "%s", view.out);
    const cJSON *rec = cJSON_GetObjectItem(state, "recording");
    cr_assert_eq(cJSON_GetObjectItem(rec, "frames")->valueint, FRAMES);
    cr_assert_geq(cJSON_GetObjectItem(rec, "message_count")->valueint, 1, "at least 'the pile dropped'");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(rec, "closed_cleanly")));
    cJSON_Delete(state);

    run_result check = run((const char *[]){"replay", recording, "--check", NULL});
    cr_assert(check.exited && check.code == 0, "--check: exit %d: %s%s", check.code, check.out, check.err);
    clean(dir);
}

Test(record_engines, a_recorded_bullet_run_replays_frame_for_frame, .init = init, .timeout = 300)
{
    recorded_run_replays_frame_for_frame("SOFTRAST_PILE_BULLET");
}

Test(record_engines, a_recorded_box2d_run_replays_frame_for_frame, .init = init, .timeout = 300)
{
    recorded_run_replays_frame_for_frame("SOFTRAST_PILE_BOX2D");
}

Test(record_engines, a_recording_that_cannot_be_written_is_an_error_naming_it, .init = init, .timeout = 60)
{
    const char *exe = getenv("SOFTRAST_PILE_BULLET");
    if (!exe || !exe[0])
        exe = getenv("SOFTRAST_PILE_BOX2D");
    if (!exe || !exe[0])
        cr_skip_test("no engine example is built");
    char dir[64], out[8192], err[8192];
    make_temp_dir(dir);
    int code = run_exe(exe,
                       (const char *[]){"--headless", "--frames", "2", "--out", dir, "--record",
                                        "/nonexistent-folder/run.rec", NULL},
                       out, sizeof out, err, sizeof err);
    cr_assert_eq(code, 1, "exit %d: %s", code, err);
    cr_assert(strstr(err, "--record") && strstr(err, "/nonexistent-folder/run.rec"), "%s", err);
    clean(dir);
}
