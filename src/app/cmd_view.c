/* cmd_view.c — `softrast view`: the interactive viewer (softrast/viewer.h) over a scene file, a
 * mesh or the demo scene; with --script it replays input and exits (how the viewer is tested,
 * under SDL's offscreen driver), with --benchmark it measures frame rates, with --probe it only
 * says whether a window can be opened here (softrast.sh run uses it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <softrast/record.h>
#include <softrast/viewer.h>

#include "app_scene.h"
#include "args.h"
#include "commands.h"

#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast view [SCENE.json | MESH.obj | RECORDING] [--size WxH] [--up y|z] [--threads N]\n"
            "                     [--script FILE] [--benchmark FRAMES] [--hidden] [--probe]\n"
            "\n"
            "Opens a window showing the scene (a scene file, a mesh, or the built-in demo scene when\n"
            "neither is given), rendered by softrast on the CPU. A mesh opens as 'softrast render'\n"
            "shows it: normalised to [-1,1]^3, from a three-quarter view that fits it, lit by a light\n"
            "that turns with the camera, with its vertex colours. Orbit with the mouse, click things\n"
            "to see what the ray hit, turn the debug overlays on and off with the keys below. The\n"
            "window can be resized; a big file loads on a worker thread with its progress shown. The\n"
            "scene file is reloaded when it changes on disk (or with R); if it fails to load, the last\n"
            "scene that loaded stays on screen with the error.\n"
            "A recording (softrast/record.h; known by its first bytes, whatever its name) plays with a\n"
            "timeline at the bottom: its frames' debug lists and recorded scene, with every overlay and\n"
            "the keys of the 'recordings' section below; a recording still being written is read again\n"
            "as it grows (from its last frame, the view follows the end).\n"
            "\n"
            "%s"
            "\n"
            "options:\n"
            "  --size WxH          window size in pixels, each side 1 to %d (default %dx%d)\n"
            "  --up y|z            a mesh's up axis (default y; z for Z-up files such as CAD and\n"
            "                      Blender exports): the view orbits about it and keeps it up\n"
            "  --threads N         rendering threads, 1 to %d (default: one per core)\n",
            sr_viewer_help_text(), SR_MAX_IMAGE_SIDE, DEFAULT_WIDTH, DEFAULT_HEIGHT, SR_MAX_THREADS);
    // Three calls: ISO C limits one string literal to 4095 characters.
    fputs("  --script FILE       replay FILE's input, then exit (no window needed with\n"
            "                      SDL_VIDEODRIVER=offscreen or dummy). One command per line,\n"
            "                      # comments; X Y are pixels of the rendered frame (origin top\n"
            "                      left), a click at X Y picks through the centre of pixel (X, Y),\n"
            "                      like 'softrast pick --at X+0.5,Y+0.5' with the same size and camera:\n"
            "                        click X Y [shift]      double-click X Y\n"
            "                        drag X1 Y1 X2 Y2 [left|right|middle|shift-left|\n"
            "                                          ctrl-left|alt-left]\n"
            "                        select A [B]           select node A's shape (and B's: a pair)\n"
            "                        deselect               as C does for the selection\n"
            "                        wheel N [X Y]          N notches, positive zooms in\n"
            "                        key NAME               an SDL key name: B, Home, Tab, [, Escape,\n"
            "                                               Left, PageUp; held modifiers first:\n"
            "                                               Shift+Right, Ctrl+Left, Alt+...\n"
            "                        resize W H             wait FRAMES (draw FRAMES frames)\n"
            "                        sleep MS               let MS milliseconds pass (the scene file\n"
            "                                               is watched meanwhile)\n"
            "                        save PATH              the frame as .bmp or .png\n"
            "                        print-pick             the last click's pick as JSON, the\n"
            "                                               fields of softrast pick\n"
            "                        print-state            JSON: scene, size, camera and cull_camera\n"
            "                                               (--camera syntax), overlays (--overlay\n"
            "                                               syntax), keys' states, message, load_error,\n"
            "                                               the window's title, the HUD's text, the\n"
            "                                               last 'computing ...' notice of a slow frame,\n"
            "                                               lists (an embedding program's: count,\n"
            "                                               items, dropped)\n"
            "                        print-stats            JSON: frames, frame times, fps\n",
          out);
    fputs("                        print-pair             JSON: the selected shapes' names and world\n"
            "                                               poses, the pair's answer (distance,\n"
            "                                               normal, witness points, iterations, time)\n"
            "                      and for a recording:\n"
            "                        frame N|first|last     go to frame N (0-based), as the timeline does\n"
            "                        loop A B | loop off    play loops over frames A to B / stops looping\n"
            "                      print-state's \"recording\" then has the frame, time, play state,\n"
            "                      speed, loop, lists and colours shown, the frame's messages, where\n"
            "                      the timeline and the legend are, and what is selected; print-pick\n"
            "                      prints the selection (item or node) at the frame shown.\n"
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
            "softrast-YYYYMMDD-HHMMSS.bmp, and prints the path. The HUD (U) shows the scene, the\n"
            "frame's time (and the frame rate while frames follow each other), what was drawn and the\n"
            "last pick; its text grows with the window. The title shows the scene and what the\n"
            "viewer is doing (loading, computing the heat map).\n"
            "Exit status: 0 closed, 1 a file or the window failed, 2 a usage error.\n",
          out);
}

/* --benchmark: FRAMES redraws of a turning camera; medians of frame and render times. */
static int benchmark(sr_viewer *viewer, long frames, const char *scene_path, int width, int height)
{
    sr_error err = {0};
    // The first frame (and a load) before timing.
    while (sr_viewer_scene(viewer) == NULL && sr_viewer_load_error(viewer)[0] == '\0')
        if (!sr_viewer_frame(viewer, NULL, &err))
            break;
    if (!sr_viewer_scene(viewer)) {
        fprintf(stderr, "softrast view: %s\n", sr_viewer_load_error(viewer));
        return SR_EXIT_FAILURE;
    }
    char script_path[] = "/tmp/softrast_benchmark_XXXXXX";
    int fd = mkstemp(script_path);
    FILE *script = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!script) {
        fprintf(stderr, "softrast view: cannot write the benchmark's script in /tmp\n");
        return SR_EXIT_FAILURE;
    }
    // A drag of one pixel a frame is 0.4 degrees; 3 pixels a frame keeps every frame new. From
    // (100, 100), 10 pixels either way, unless the window is too small for that.
    int x = width / 2 < 100 ? width / 2 : 100, y = height / 2 < 100 ? height / 2 : 100;
    int swing = x < 10 ? x : 10;
    swing = width - 1 - x < swing ? width - 1 - x : swing;
    fprintf(script, "wait 1\n");
    for (long i = 0; i < frames; i++)
        fprintf(script, "drag %d %d %d %d\n", x, y, i % 2 ? x - swing : x + swing, y);
    fprintf(script, "print-stats\n");
    fclose(script);
    sr_status status = sr_viewer_run_script(viewer, script_path, stdout, &err);
    remove(script_path);
    if (status != SR_OK) {
        fprintf(stderr, "softrast view: %s\n", err.message);
        return SR_EXIT_FAILURE;
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
    sr_app_view_options view = {0};
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (sr_args_is_help(arg)) {
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
                   strcmp(arg, "--benchmark") == 0 || strcmp(arg, "--up") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error))
                goto fail;
            if (strcmp(arg, "--size") == 0) {
                if (!sr_args_parse_size("--size", value, SR_MAX_IMAGE_SIDE, &width, &height, error))
                    goto fail;
            } else if (strcmp(arg, "--threads") == 0) {
                if (!sr_args_parse_int("--threads", value, 1, SR_MAX_THREADS, &threads, error))
                    goto fail;
            } else if (strcmp(arg, "--up") == 0) {
                if (!sr_app_parse_up_option(value, &view, error))
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
    if (view.up && (!scene_path || sr_args_has_extension(scene_path, ".json") || sr_recording_probe(scene_path))) {
        snprintf(error, sizeof error, "--up %c: a scene or recording keeps its own camera; --up applies to meshes",
                 view.up);
        goto fail;
    }
    // Files that cannot be read are refused before a window opens (a failure, not a usage error:
    // exit 1 as render and pick give for the same file).
    struct stat info;
    if (scene_path && (stat(scene_path, &info) != 0 || !S_ISREG(info.st_mode))) {
        fprintf(stderr, "softrast view: %s: %s\n", scene_path,
                stat(scene_path, &info) != 0 ? "no such file" : "not a regular file");
        return SR_EXIT_FAILURE;
    }
    if (script_path && (stat(script_path, &info) != 0 || !S_ISREG(info.st_mode))) {
        fprintf(stderr, "softrast view: --script: %s: %s\n", script_path,
                stat(script_path, &info) != 0 ? "no such file" : "not a regular file");
        return SR_EXIT_FAILURE;
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
        return SR_EXIT_FAILURE;
    }

    sr_error err = {0};
    // No scene file: the built-in demo scene, which this program owns (the viewer shows no
    // scene at all when given none).
    sr_scene *demo = NULL;
    if (!scene_path && sr_scene_create_demo(&demo, &err) != SR_OK) {
        fprintf(stderr, "softrast view: %s\n", err.message);
        return SR_EXIT_FAILURE;
    }
    sr_viewer *viewer = NULL;
    const sr_vec3 up = view.up == 'z' ? sr_vec3_make(0.0f, 0.0f, 1.0f) : sr_vec3_make(0.0f, 0.0f, 0.0f);
    sr_status status = sr_viewer_create(&(sr_viewer_desc){.title = "softrast view",
                                                          .width = width,
                                                          .height = height,
                                                          .threads = (int)threads,
                                                          .scene_path = scene_path,
                                                          .up = up,
                                                          .hidden = hidden,
                                                          .terminal_progress = true,
                                                          .message = script_path || frames ? message_to_stderr : NULL},
                                        demo, &viewer, &err);
    if (status != SR_OK) {
        fprintf(stderr, "softrast view: %s\n", err.message);
        sr_scene_destroy(demo);
        return SR_EXIT_FAILURE;
    }
    int exit_status = 0;
    if (frames) {
        exit_status = benchmark(viewer, frames, scene_path, width, height);
    } else {
        status = script_path ? sr_viewer_run_script(viewer, script_path, stdout, &err) : sr_viewer_run(viewer, &err);
        if (status != SR_OK) {
            fprintf(stderr, "softrast view: %s\n", err.message[0] ? err.message : sr_status_name(status));
            exit_status = SR_EXIT_FAILURE;
        }
    }
    sr_viewer_destroy(viewer); // before the demo scene it shows
    sr_scene_destroy(demo);
    return exit_status;

fail:
    fprintf(stderr, "softrast view: %s\n", error);
    return SR_EXIT_USAGE;
}
