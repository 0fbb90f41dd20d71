/* cmd_replay.c — `softrast replay`: a recording (softrast/record.h) rendered headless, frame by
 * frame, to image files (the same pixels for any thread count), described (--info), or checked
 * record by record (--check, whose exit status tells clean, truncated and damaged apart, for CI).
 * --overlay draws render's overlays over each frame's recorded scene, the collision ones from a
 * collision pass over its recorded shapes.
 * Everything the user gives is checked before any frame is drawn. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/debug.h>
#include <softrast/raster.h>
#include <softrast/record.h>
#include <softrast/scene_collide.h>

#include "app_scene.h"
#include "args.h"
#include "commands.h"

#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720
/// --check's exit status for a recording that is readable but was not closed (a writer killed).
#define EXIT_TRUNCATED 3

typedef enum replay_camera { CAMERA_RECORDED = 0, CAMERA_FIT, CAMERA_SPEC } replay_camera;

typedef struct replay_options {
    const char *path;
    bool info, check;
    const char *frames; ///< --frames as given
    uint64_t first, last, step;
    bool last_given; ///< "A:" and "A" leave the end to the recording
    bool range_open; ///< "A:" (to the last frame)
    const char *out;
    int width, height;
    replay_camera camera;
    const char *camera_spec;
    long threads;
    const char *lists; ///< --lists NAME,... (NULL: all)
    const char *overlay; ///< --overlay LIST (render's syntax), NULL: none
    double margin;       ///< --margin D: the collision pass's near-pair margin (0: its default)
    bool margin_given;
} replay_options;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast replay RECORDING --frames A:B[:STEP] --out DIR/%%05d.png [--size WxH]\n"
            "                       [--camera recorded|fit|SPEC] [--lists NAME,...] [--threads N]\n"
            "                       [--overlay LIST] [--margin D]\n"
            "       softrast replay RECORDING --info\n"
            "       softrast replay RECORDING --check\n"
            "\n"
            "Plays a recording made with sr_recorder_* (softrast/record.h) without a display: renders\n"
            "its frames to image files as the recording program drew them (its scene, then its debug\n"
            "lists), describes it, or checks it. A recording whose writer was killed is read up to its\n"
            "last complete frame (a note on stderr says so).\n"
            "\n"
            "options:\n"
            "  --frames A:B[:STEP]  frames A to B, both included, every STEP-th (default 1); 'A' alone\n"
            "                 is one frame, 'A:' runs to the last frame. Frames count from 0\n"
            "  --out PATTERN  where each frame goes: a path with one integer conversion (%%d, %%05d,\n"
            "                 %%i) replaced by the frame's number, ending in .png or .bmp; its folder\n"
            "                 must exist. Each file is written under a temporary name and renamed\n"
            "  --size WxH     image size in pixels, each side 1 to %d (default %dx%d)\n"
            "  --camera recorded|fit|SPEC  the camera: the one recorded with each frame (the default;\n"
            "                 frames recorded without one are fitted), 'fit': one camera framing every\n"
            "                 frame of the range (a three-quarter view of the union of their bounds),\n"
            "                 or KEY=VALUE pairs (eye=X,Y,Z:target=X,Y,Z[:up=X,Y,Z][:fov=DEG][:near=N]\n"
            "                 [:far=F][:ortho=HEIGHT]) over the first frame's recorded or fitted camera\n"
            "  --lists NAMES  draw only these lists, by name or number, comma-separated (the names\n"
            "                 --info prints)\n"
            "  --threads N    rendering threads, 1 to %d (default 1); the images do not depend on N\n"
            "  --overlay LIST overlays over each frame's recorded scene, as softrast render --overlay\n"
            "                 draws them (bvh, bounds, wire, pick:X,Y, axes, grid, hud, ...): contacts,\n"
            "                 closest and pairs run the collision pass over the frame's recorded\n"
            "                 collision shapes (format 1.1), which answers as the program's did\n"
            "  --margin D     the collision pass's margin (render's --margin; default 0.1)\n"
            "  --info         print what the recording holds: frames, time span, lists, messages,\n"
            "                 bytes by kind, and whether its writer closed it cleanly\n"
            "  --check        read and check every record (checksums, every frame's lists and state,\n"
            "                 the index); print one line\n"
            "  --help         this text\n"
            "\n"
            "Exit status: 0 success (--check: clean), 1 a failure (a file, a frame that cannot be\n"
            "read; --check: damaged or unreadable), 2 a usage error, 3 (--check only) truncated but\n"
            "readable: the writer did not close the file, every complete frame reads back.\n",
            SR_MAX_IMAGE_SIDE, DEFAULT_WIDTH, DEFAULT_HEIGHT, SR_MAX_THREADS);
}

/* A frame number of --frames. */
static bool parse_frame(const char *text, size_t length, uint64_t *value)
{
    if (length == 0 || length > 19)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(text[i] - '0');
    }
    *value = v;
    return true;
}

static bool parse_frames(const char *text, replay_options *o, char error[SR_ARGS_ERROR_SIZE])
{
    const char *colon = strchr(text, ':');
    const char *second = colon ? strchr(colon + 1, ':') : NULL;
    bool ok;
    o->step = 1;
    if (!colon) {
        ok = parse_frame(text, strlen(text), &o->first);
        o->last = o->first;
        o->last_given = true;
    } else {
        ok = parse_frame(text, (size_t)(colon - text), &o->first);
        size_t length = second ? (size_t)(second - colon - 1) : strlen(colon + 1);
        if (length == 0) {
            o->range_open = true;
        } else {
            ok = ok && parse_frame(colon + 1, length, &o->last);
            o->last_given = true;
        }
        if (second)
            ok = ok && parse_frame(second + 1, strlen(second + 1), &o->step) && o->step > 0;
    }
    if (!ok) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "--frames: '%.400s' is not A:B[:STEP] (frame numbers from 0, STEP >= 1)",
                 text);
        return false;
    }
    if (o->last_given && o->last < o->first) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "--frames: '%.400s' ends before it starts", text);
        return false;
    }
    return true;
}

/* Checks --out: one integer conversion (flags 0 - + space, a width), any number of %%, an image
 * extension. */
static bool check_pattern(const char *pattern, char error[SR_ARGS_ERROR_SIZE])
{
    int conversions = 0;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        while (*p == '0' || *p == '-' || *p == '+' || *p == ' ')
            p++;
        int digits = 0;
        while (*p >= '0' && *p <= '9')
            p++, digits++;
        if ((*p != 'd' && *p != 'i') || digits > 2) {
            snprintf(error, SR_ARGS_ERROR_SIZE,
                     "--out: '%.400s' may hold only integer conversions such as %%05d (and %%%% for a %%)", pattern);
            return false;
        }
        conversions++;
    }
    if (conversions != 1) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "--out: '%.400s' needs exactly one %%d (or %%05d...) for the frame number",
                 pattern);
        return false;
    }
    if (!sr_args_has_extension(pattern, ".png") && !sr_args_has_extension(pattern, ".bmp")) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "--out: '%.400s' must end in .png or .bmp", pattern);
        return false;
    }
    return true;
}

/* The file of frame `frame`: the pattern with its conversion replaced (checked above). */
static void frame_path(const char *pattern, uint64_t frame, char *out, size_t size)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(out, size, pattern, (int)frame);
#pragma GCC diagnostic pop
}

static int parse_options(int argc, char **argv, replay_options *o)
{
    *o = (replay_options){.width = DEFAULT_WIDTH, .height = DEFAULT_HEIGHT, .threads = 1};
    char error[SR_ARGS_ERROR_SIZE] = "";
    bool size_given = false, camera_given = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (sr_args_is_help(arg)) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--info") == 0) {
            o->info = true;
        } else if (strcmp(arg, "--check") == 0) {
            o->check = true;
        } else if (strcmp(arg, "--frames") == 0 || strcmp(arg, "--out") == 0 || strcmp(arg, "--size") == 0 ||
                   strcmp(arg, "--camera") == 0 || strcmp(arg, "--threads") == 0 || strcmp(arg, "--lists") == 0 ||
                   strcmp(arg, "--overlay") == 0 || strcmp(arg, "--margin") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error))
                goto fail;
            if (strcmp(arg, "--frames") == 0) {
                o->frames = value;
                if (!parse_frames(value, o, error))
                    goto fail;
            } else if (strcmp(arg, "--out") == 0) {
                o->out = value;
            } else if (strcmp(arg, "--size") == 0) {
                size_given = true;
                if (!sr_args_parse_size("--size", value, SR_MAX_IMAGE_SIDE, &o->width, &o->height, error))
                    goto fail;
            } else if (strcmp(arg, "--camera") == 0) {
                camera_given = true;
                if (strcmp(value, "recorded") == 0) {
                    o->camera = CAMERA_RECORDED;
                } else if (strcmp(value, "fit") == 0) {
                    o->camera = CAMERA_FIT;
                } else {
                    sr_camera camera = sr_bench_camera();
                    sr_error camera_error = {0};
                    if (sr_camera_parse(value, &camera, &camera, &camera_error) != SR_OK) {
                        snprintf(error, sizeof error, "--camera: %.400s (or 'recorded', 'fit')", camera_error.message);
                        goto fail;
                    }
                    o->camera = CAMERA_SPEC;
                    o->camera_spec = value;
                }
            } else if (strcmp(arg, "--lists") == 0) {
                o->lists = value;
            } else if (strcmp(arg, "--overlay") == 0) {
                sr_overlay_desc overlay = {0};
                sr_error overlay_error = {0};
                if (sr_overlay_parse(value, &overlay, &overlay_error) != SR_OK) {
                    snprintf(error, sizeof error, "--overlay: %.400s", overlay_error.message);
                    goto fail;
                }
                o->overlay = value;
            } else if (strcmp(arg, "--margin") == 0) {
                char *end = NULL;
                o->margin = strtod(value, &end);
                o->margin_given = true;
                if (end == value || *end != '\0' || !isfinite(o->margin) || o->margin < 0.0 || o->margin > 1e9) {
                    snprintf(error, sizeof error, "--margin: '%.400s' is not a distance (a number from 0 to 1e9)",
                             value);
                    goto fail;
                }
            } else if (!sr_args_parse_int("--threads", value, 1, SR_MAX_THREADS, &o->threads, error)) {
                goto fail;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%.400s' (see softrast replay --help)", arg);
            goto fail;
        } else if (o->path) {
            snprintf(error, sizeof error, "more than one recording given ('%.400s' and '%.400s')", o->path, arg);
            goto fail;
        } else {
            o->path = arg;
        }
    }
    if (!o->path) {
        snprintf(error, sizeof error, "no recording given (see softrast replay --help)");
        goto fail;
    }
    if (o->info + o->check + (o->frames != NULL) != 1) {
        snprintf(error, sizeof error, "give one of --frames, --info and --check");
        goto fail;
    }
    if (!o->frames && (o->out || size_given || camera_given || o->lists || o->overlay || o->margin_given)) {
        snprintf(error, sizeof error, "--out, --size, --camera, --lists, --overlay and --margin go with --frames");
        goto fail;
    }
    if (o->frames && !o->out) {
        snprintf(error, sizeof error, "--frames needs --out DIR/%%05d.png");
        goto fail;
    }
    if (o->out) {
        if (!check_pattern(o->out, error))
            goto fail;
        char first[SR_ARGS_PATH_SIZE];
        frame_path(o->out, o->first, first, sizeof first);
        if (!sr_app_check_output_path("--out", first, error))
            goto fail;
    }
    return -1;
fail:
    fprintf(stderr, "softrast replay: %s\n", error);
    return SR_EXIT_USAGE;
}

static int fail(const char *message)
{
    fprintf(stderr, "softrast replay: %s\n", message);
    return SR_EXIT_FAILURE;
}

/* ---- --info ---- */

static void print_bytes_line(const char *kind, uint64_t bytes, uint64_t count, uint64_t total)
{
    if (!bytes)
        return;
    printf("  %-16s %12llu bytes %5.1f%%", kind, (unsigned long long)bytes, total ? 100.0 * bytes / total : 0.0);
    if (count)
        printf("  %10llu items, %.1f bytes each", (unsigned long long)count, (double)bytes / (double)count);
    printf("\n");
}

static void print_info(const sr_recording *rec)
{
    const sr_recording_info *info = sr_recording_get_info(rec);
    printf("recording: %s\n", info->title[0] ? info->title : "(no title)");
    printf("format:    %u.%u\n", info->version_major, info->version_minor);
    printf("closed:    %s\n",
           info->closed_cleanly ? "cleanly (index and trailer present)" : "no (the writer did not close it)");
    if (!info->closed_cleanly || info->truncated)
        printf("note:      %s\n", info->note);
    printf("frames:    %llu", (unsigned long long)info->frame_count);
    if (info->frame_count)
        printf(", times %g to %g (span %g)%s", info->first_time, info->last_time, info->last_time - info->first_time,
               info->times_increase ? "" : ", not increasing");
    printf(", a keyframe every %u\n", info->keyframe_interval);
    printf("scene:     %s\n", info->has_scene ? "yes (meshes, materials, node poses, collision shapes)" : "no (lists only)");
    printf("lists:     %zu", info->list_count);
    for (size_t i = 0; i < info->list_count; i++)
        printf("%s%zu '%s'", i ? ", " : " (", i, info->list_names[i]);
    printf("%s\n", info->list_count ? ")" : "");
    size_t count = 0;
    const sr_recording_message *messages = sr_recording_messages(rec, &count);
    printf("messages:  %zu\n", count);
    static const char *const levels[] = {"info", "warning", "error"};
    for (size_t i = 0; i < count && i < 20; i++)
        printf("  frame %llu (t %g) %s: %s\n", (unsigned long long)messages[i].frame, messages[i].time,
               levels[messages[i].level], messages[i].text);
    if (count > 20)
        printf("  ... and %zu more\n", count - 20);
    const sr_record_sizes *s = &info->bytes;
    printf("bytes:     %llu in the file%s\n", (unsigned long long)info->file_bytes,
           info->truncated ? " (some past the readable part)" : "");
    static const char *const kinds[SR_DEBUG_ITEM_KIND_COUNT] = {
        "lines",     "arrows",    "points", "dots",     "boxes",    "spheres", "oriented spheres",
        "capsules",  "cylinders", "cones",  "circles",  "frustums", "axes",    "grids",
        "triangles", "polylines", "texts",  "2d texts", "2d rects", "shapes"};
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++)
        print_bytes_line(kinds[k], s->items[k], s->item_counts[k], s->total);
    print_bytes_line("items (unsorted)", s->unsorted_items, 0, s->total);
    print_bytes_line("meshes", s->meshes, 0, s->total);
    print_bytes_line("textures", s->textures, 0, s->total);
    print_bytes_line("materials", s->materials, 0, s->total);
    print_bytes_line("nodes", s->nodes, 0, s->total);
    print_bytes_line("shapes", s->shapes, 0, s->total);
    print_bytes_line("views", s->views, 0, s->total);
    print_bytes_line("messages", s->messages, 0, s->total);
    print_bytes_line("framing", s->framing, 0, s->total);
    if (s->unsorted_items)
        printf("  (items are broken down by kind in a file closed cleanly; --check counts them here)\n");
    if (info->unknown_records)
        printf("skipped:   %llu records of a newer format version\n", (unsigned long long)info->unknown_records);
}

/* ---- --frames ---- */

/* --overlay over the current frame, drawn as `softrast render` draws it: over what
 * sr_recording_render drew (its scene's frame, with `camera`), the collision pass over the scene's
 * shapes when an item needs it, then the overlays' list drawn over the image. */
static sr_status draw_overlays(sr_recording *rec, const replay_options *o, const sr_camera *camera,
                               sr_renderer *renderer, sr_framebuffer *fb, const sr_scene_frame *scene_frame,
                               sr_collision *collision, double frame_ms, sr_error *err)
{
    const sr_recording_frame *frame = sr_recording_current(rec);
    if (!frame->scene)
        return SR_OK; // a frame without a scene: nothing to draw over (said once, before the frames)
    sr_overlay_desc desc = {.frame_ms = frame_ms};
    sr_status status = sr_overlay_parse(o->overlay, &desc, err);
    const uint32_t collision_items = SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS;
    if (status == SR_OK && (desc.items & (collision_items | SR_OVERLAY_HUD)) && sr_scene_shape_count(frame->scene)) {
        status = sr_scene_collide(frame->scene,
                                  &(sr_collision_desc){.margin = o->margin, .no_near = o->margin_given && o->margin == 0},
                                  collision, err);
        desc.collision = collision;
    }
    if (status == SR_OK)
        status = sr_app_draw_overlays(frame->scene, scene_frame, camera, &desc, (int)o->threads, renderer, fb, err);
    return status;
}

/* Which lists --lists shows; false (with a message) for a name that is not a list. */
static bool choose_lists(const char *text, const sr_recording_info *info, bool *shown, char *error, size_t size)
{
    for (size_t i = 0; i < info->list_count; i++)
        shown[i] = false;
    const char *p = text;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t length = comma ? (size_t)(comma - p) : strlen(p);
        bool found = false;
        for (size_t i = 0; i < info->list_count; i++) {
            char number[24];
            snprintf(number, sizeof number, "%zu", i);
            if ((strlen(info->list_names[i]) == length && strncmp(info->list_names[i], p, length) == 0) ||
                (strlen(number) == length && strncmp(number, p, length) == 0))
                shown[i] = found = true;
        }
        if (!found) {
            snprintf(error, size, "--lists: '%.*s' is not a list of this recording (see --info)", (int)length, p);
            return false;
        }
        p += length + (comma ? 1 : 0);
    }
    return true;
}

static int render_frames(sr_recording *rec, const replay_options *o)
{
    const sr_recording_info *info = sr_recording_get_info(rec);
    char message[SR_ARGS_ERROR_SIZE];
    if (info->frame_count == 0)
        return fail("the recording holds no frame");
    uint64_t last = o->range_open ? info->frame_count - 1 : o->last;
    if (o->first >= info->frame_count || last >= info->frame_count) {
        snprintf(message, sizeof message, "--frames %s: the recording has frames 0 to %llu", o->frames,
                 (unsigned long long)info->frame_count - 1);
        fprintf(stderr, "softrast replay: %s\n", message);
        return SR_EXIT_USAGE;
    }
    bool *shown = NULL;
    if (o->lists) {
        shown = calloc(info->list_count ? info->list_count : 1, sizeof *shown);
        if (!shown)
            return fail("out of memory");
        if (!choose_lists(o->lists, info, shown, message, sizeof message)) {
            free(shown);
            fprintf(stderr, "softrast replay: %s\n", message);
            return SR_EXIT_USAGE;
        }
    }
    sr_error err = {0};
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    sr_status status = sr_framebuffer_create(&(sr_framebuffer_desc){.width = o->width, .height = o->height}, &fb, &err);
    if (status == SR_OK)
        status = sr_renderer_create(&(sr_renderer_desc){.threads = (int)o->threads}, &renderer, &err);
    sr_scene_frame *scene_frame = NULL;
    sr_collision *collision = NULL;
    if (status == SR_OK && o->overlay) {
        status = sr_scene_frame_create(&scene_frame, &err);
        if (status == SR_OK)
            status = sr_collision_create(&collision, &err);
        if (!info->has_scene)
            fprintf(stderr, "softrast replay: warning: %s has no scene, so --overlay draws nothing\n", o->path);
    }
    sr_camera camera = {0};
    bool fixed_camera = o->camera != CAMERA_RECORDED;
    if (status == SR_OK && o->camera == CAMERA_FIT)
        status = sr_recording_fit_camera(rec, o->first, last, (float)o->width / (float)o->height, &camera, &err);
    if (status == SR_OK && o->camera == CAMERA_SPEC) {
        sr_recording_frame first;
        status = sr_recording_seek(rec, o->first, &first, &err);
        sr_camera base = first.has_camera ? first.camera
                                          : sr_camera_fit_box(sr_recording_frame_bounds(rec), sr_vec3_make(0, 1, 0),
                                                              (float)o->width / (float)o->height);
        if (status == SR_OK && sr_camera_parse(o->camera_spec, &base, &camera, &err) == SR_OK) {
            camera = sr_camera_resolve(&camera);
            status = sr_camera_check(&camera, &err);
        } else if (status == SR_OK) {
            status = err.status;
        }
    }
    double start = sr_app_now_ms();
    uint64_t written = 0;
    char path[SR_ARGS_PATH_SIZE];
    for (uint64_t f = o->first; status == SR_OK && f <= last; f += o->step) {
        status = sr_recording_seek(rec, f, NULL, &err);
        double frame_start = sr_app_now_ms();
        sr_camera used;
        if (status == SR_OK)
            status = sr_recording_render(rec, renderer, fb,
                                         &(sr_recording_render_desc){.camera = fixed_camera ? &camera : NULL,
                                                                     .lists_shown = shown,
                                                                     .scene_frame = scene_frame,
                                                                     .camera_used = &used},
                                         &err);
        if (status == SR_OK && o->overlay)
            status = draw_overlays(rec, o, &used, renderer, fb, scene_frame, collision, sr_app_now_ms() - frame_start,
                                   &err);
        if (status == SR_OK) {
            frame_path(o->out, f, path, sizeof path);
            status = sr_framebuffer_save(fb, path, &err);
        }
        if (status != SR_OK && strstr(err.message, "frame") == NULL) {
            char reason[sizeof err.message];
            snprintf(reason, sizeof reason, "%s", err.message);
            sr_error_set(&err, status, "frame %llu: %s", (unsigned long long)f, reason);
        }
        written += status == SR_OK;
        if (last - f < o->step)
            break;
    }
    double seconds = (sr_app_now_ms() - start) / 1000.0;
    sr_collision_destroy(collision);
    sr_scene_frame_destroy(scene_frame);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    free(shown);
    if (status != SR_OK)
        return fail(err.message);
    char first_path[SR_ARGS_PATH_SIZE];
    frame_path(o->out, o->first, first_path, sizeof first_path);
    printf("wrote %llu frame%s (%llu to %llu", (unsigned long long)written, written == 1 ? "" : "s",
           (unsigned long long)o->first, (unsigned long long)last);
    if (o->step > 1)
        printf(", every %llu", (unsigned long long)o->step);
    printf(") at %dx%d as %s ... in %.2f s\n", o->width, o->height, first_path, seconds);
    return 0;
}

int sr_cmd_replay(int argc, char **argv)
{
    replay_options o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed >= 0)
        return parsed;
    sr_error err = {0};
    if (o.check) {
        sr_recording_check_report report;
        if (sr_recording_check(o.path, NULL, &report, &err) != SR_OK)
            return fail(err.message);
        printf("%s: %s\n", o.path, report.message);
        return report.health == SR_RECORDING_CLEAN       ? 0
               : report.health == SR_RECORDING_TRUNCATED ? EXIT_TRUNCATED
                                                         : SR_EXIT_FAILURE;
    }
    sr_recording *rec = NULL;
    if (sr_recording_open(o.path, NULL, &rec, &err) != SR_OK)
        return fail(err.message);
    int status;
    if (o.info) {
        print_info(rec);
        status = 0;
    } else {
        const sr_recording_info *info = sr_recording_get_info(rec);
        if (!info->closed_cleanly || info->truncated)
            fprintf(stderr, "softrast replay: note: %s: %s\n", o.path, info->note);
        status = render_frames(rec, &o);
    }
    sr_recording_destroy(rec);
    return status;
}
