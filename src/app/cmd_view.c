/* cmd_view.c — `softrast view`: the interactive viewer (softrast/viewer.h) over a scene file, a
 * mesh or the demo scene; with --script it replays input and exits (how the viewer is tested,
 * under SDL's offscreen driver), with --benchmark it measures frame rates, with --probe it only
 * says whether a window can be opened here (softrast.sh run uses it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <softrast/viewer.h>

#include "app_scene.h"
#include "args.h"
#include "commands.h"

#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast view [SCENE.json | MESH.obj] [--size WxH] [--threads N] [--script FILE]\n"
            "                     [--benchmark FRAMES] [--hidden] [--probe]\n"
            "\n"
            "Opens a window showing the scene (a scene file, a mesh as BENCH_SCENE.md's canonical\n"
            "scene, or the built-in demo scene when neither is given), rendered by softrast on the\n"
            "CPU. Orbit with the mouse, click things to see what the ray hit, turn the debug\n"
            "overlays on and off with the keys below. The window can be resized; a big file loads\n"
            "on a worker thread with its progress shown. The scene file is reloaded when it changes\n"
            "on disk (or with R); if it fails to load, the last scene that loaded stays on screen\n"
            "with the error.\n"
            "\n"
            "%s"
            "\n"
            "options:\n"
            "  --size WxH          window size in pixels, each side 1 to %d (default %dx%d)\n"
            "  --threads N         rendering threads, 1 to 64 (default: one per core)\n"
            "  --script FILE       replay FILE's input, then exit (no window needed with\n"
            "                      SDL_VIDEODRIVER=offscreen or dummy). One command per line,\n"
            "                      # comments; X Y are pixels of the rendered frame (origin top\n"
            "                      left), a click at X Y picks through the centre of pixel (X, Y),\n"
            "                      like 'softrast pick --at X+0.5,Y+0.5' with the same size and camera:\n"
            "                        click X Y              double-click X Y\n"
            "                        drag X1 Y1 X2 Y2 [left|right|middle|shift-left]\n"
            "                        wheel N [X Y]          N notches, positive zooms in\n"
            "                        key NAME               an SDL key name: B, Home, Tab, [, Escape\n"
            "                        resize W H             wait FRAMES (draw FRAMES frames)\n"
            "                        sleep MS               let MS milliseconds pass (the scene file\n"
            "                                               is watched meanwhile)\n"
            "                        save PATH              the frame as .bmp or .png\n"
            "                        print-pick             the last click's pick as JSON, the\n"
            "                                               fields of softrast pick\n"
            "                        print-state            JSON: scene, size, camera and cull_camera\n"
            "                                               (--camera syntax), overlays (--overlay\n"
            "                                               syntax), keys' states, message, load_error,\n"
            "                                               lists (an embedding program's: count,\n"
            "                                               items, dropped)\n"
            "                        print-stats            JSON: frames, frame times, fps\n"
            "                      A saved frame with the HUD off equals 'softrast render --camera C\n"
            "                      --overlay O' with C and O from print-state (frozen: --camera\n"
            "                      CULL --debug-camera C).\n"
            "  --benchmark FRAMES  draw FRAMES frames while turning the camera 1 degree a frame,\n"
            "                      print one JSON line (median frame time, fps), exit\n"
            "                      Messages (saved files, load errors) then go to stderr, so that\n"
            "                      stdout holds only the print-* lines.\n"
            "  --hidden            do not show the window (with --script or --benchmark)\n"
            "  --probe             exit 0 if a window can be opened here, 1 (with the reason) if not\n"
            "                      Without --hidden, --script or --benchmark, a viewer that cannot\n"
            "                      open a window (no display, SDL_VIDEODRIVER=offscreen or dummy)\n"
            "                      exits at once with status 1 and says why.\n"
            "  --help              this text\n"
            "\n"
            "S saves into the scene file's folder (the current folder for the demo scene), named\n"
            "softrast-YYYYMMDD-HHMMSS.bmp, and prints the path.\n",
            sr_viewer_help_text(), SR_MAX_IMAGE_SIDE, DEFAULT_WIDTH, DEFAULT_HEIGHT);
}

/* --benchmark: FRAMES redraws of a turning camera; medians of frame and render times. */
static int benchmark(sr_viewer *viewer, long frames, const char *scene_path)
{
    sr_error err = {0};
    // The first frame (and a load) before timing.
    while (sr_viewer_scene(viewer) == NULL && sr_viewer_load_error(viewer)[0] == '\0')
        if (!sr_viewer_frame(viewer, NULL, &err))
            break;
    if (!sr_viewer_scene(viewer)) {
        fprintf(stderr, "softrast view: %s\n", sr_viewer_load_error(viewer));
        return 1;
    }
    char script_path[] = "/tmp/softrast_benchmark_XXXXXX";
    int fd = mkstemp(script_path);
    FILE *script = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!script) {
        fprintf(stderr, "softrast view: cannot write the benchmark's script in /tmp\n");
        return 1;
    }
    // A drag of one pixel a frame is 0.4 degrees; 3 pixels a frame keeps every frame new.
    fprintf(script, "wait 1\n");
    for (long i = 0; i < frames; i++)
        fprintf(script, "drag 100 100 %d 100\n", i % 2 ? 90 : 110);
    fprintf(script, "print-stats\n");
    fclose(script);
    sr_status status = sr_viewer_run_script(viewer, script_path, stdout, &err);
    remove(script_path);
    if (status != SR_OK) {
        fprintf(stderr, "softrast view: %s\n", err.message);
        return 1;
    }
    (void)scene_path;
    return 0;
}

/* With --script or --benchmark stdout holds only their JSON lines: messages go to stderr. */
static void message_to_stderr(void *user, const char *text, bool is_error)
{
    (void)user;
    fprintf(stderr, "softrast view: %s%s\n", is_error ? "error: " : "", text);
}

int sr_cmd_view(int argc, char **argv)
{
    const char *scene_path = NULL, *script_path = NULL;
    int width = DEFAULT_WIDTH, height = DEFAULT_HEIGHT;
    long threads = 0, frames = 0;
    bool hidden = false;
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--probe") == 0) {
            char reason[512];
            bool ok = sr_viewer_probe(reason, sizeof reason);
            fprintf(ok ? stdout : stderr, "softrast view --probe: %s\n", reason);
            return ok ? 0 : 1;
        } else if (strcmp(arg, "--hidden") == 0) {
            hidden = true;
        } else if (strcmp(arg, "--size") == 0 || strcmp(arg, "--threads") == 0 || strcmp(arg, "--script") == 0 ||
                   strcmp(arg, "--benchmark") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error))
                goto fail;
            if (strcmp(arg, "--size") == 0) {
                if (!sr_args_parse_size("--size", value, SR_MAX_IMAGE_SIDE, &width, &height, error))
                    goto fail;
            } else if (strcmp(arg, "--threads") == 0) {
                if (!sr_args_parse_int("--threads", value, 1, 64, &threads, error))
                    goto fail;
            } else if (strcmp(arg, "--benchmark") == 0) {
                if (!sr_args_parse_int("--benchmark", value, 1, 1000000, &frames, error))
                    goto fail;
            } else {
                script_path = value;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast view --help)", arg);
            goto fail;
        } else if (scene_path) {
            snprintf(error, sizeof error, "more than one scene or mesh given ('%s' and '%s')", scene_path, arg);
            goto fail;
        } else {
            scene_path = arg;
        }
    }
    if (script_path && frames) {
        snprintf(error, sizeof error, "give --script or --benchmark, not both");
        goto fail;
    }
    // Files that cannot be read are refused before a window opens.
    struct stat info;
    if (scene_path && (stat(scene_path, &info) != 0 || !S_ISREG(info.st_mode))) {
        snprintf(error, sizeof error, "%s: %s", scene_path,
                 stat(scene_path, &info) != 0 ? "no such file" : "not a regular file");
        goto fail;
    }
    if (script_path && (stat(script_path, &info) != 0 || !S_ISREG(info.st_mode))) {
        snprintf(error, sizeof error, "--script: %s: %s", script_path,
                 stat(script_path, &info) != 0 ? "no such file" : "not a regular file");
        goto fail;
    }

    // Where no window can open, SDL falls back to a driver that shows nothing (offscreen,
    // dummy): a window nobody sees would wait for input forever. Say so at once, unless the
    // window was asked to be hidden or a script or benchmark drives it.
    char reason[512];
    if (!hidden && !script_path && !frames && !sr_viewer_probe(reason, sizeof reason)) {
        fprintf(stderr,
                "softrast view: no window can open here: %s.\n"
                "  'softrast render%s%s --out frame.png' draws the picture into a file; 'softrast view "
                "--script FILE' (or --hidden) runs the viewer without a window.\n",
                reason, scene_path ? " " : "", scene_path ? scene_path : "");
        return 1;
    }

    sr_error err = {0};
    // No scene file: the built-in demo scene, which this program owns (the viewer shows no
    // scene at all when given none).
    sr_scene *demo = NULL;
    if (!scene_path && sr_scene_create_demo(&demo, &err) != SR_OK) {
        fprintf(stderr, "softrast view: %s\n", err.message);
        return 1;
    }
    sr_viewer *viewer = NULL;
    sr_status status = sr_viewer_create(&(sr_viewer_desc){.title = "softrast view",
                                                          .width = width,
                                                          .height = height,
                                                          .threads = (int)threads,
                                                          .scene_path = scene_path,
                                                          .hidden = hidden,
                                                          .terminal_progress = true,
                                                          .message = script_path || frames ? message_to_stderr : NULL},
                                        demo, &viewer, &err);
    if (status != SR_OK) {
        fprintf(stderr, "softrast view: %s\n", err.message);
        sr_scene_destroy(demo);
        return 1;
    }
    int exit_status = 0;
    if (frames) {
        exit_status = benchmark(viewer, frames, scene_path);
    } else {
        status = script_path ? sr_viewer_run_script(viewer, script_path, stdout, &err) : sr_viewer_run(viewer, &err);
        if (status != SR_OK) {
            fprintf(stderr, "softrast view: %s\n", err.message[0] ? err.message : sr_status_name(status));
            exit_status = 1;
        }
    }
    sr_viewer_destroy(viewer); // before the demo scene it shows
    sr_scene_destroy(demo);
    return exit_status;

fail:
    fprintf(stderr, "softrast view: %s\n", error);
    return 2;
}
