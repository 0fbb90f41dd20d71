/* engine_example.hpp — what the physics engines' example programs (pile_bullet.cpp,
 * pile_box2d.cpp) share: their command line, the headless loop that renders each frame into a
 * framebuffer and saves PNG frames with the bodies' poses beside them, and the window loop that
 * shows the same frames in softrast's embedded viewer (sr_viewer_*). An example is a class
 * deriving from engine_example; its main() is one call of engine_example_main.
 *
 *   PROGRAM [--headless] [--frames N] [--save-every K] [--out DIR] [--size WxH] [--threads N]
 *           [--screenshot FILE] [--record FILE]
 *
 * Window (the default): the pile falls in a window; Space pauses, N steps one frame while
 * paused, R drops the pile again; the viewer's own keys and mouse work as in `softrast view`
 * (H lists them). Ends when the window closes or after --frames; --screenshot FILE then saves
 * what the window shows (sr_viewer_save_frame).
 * Headless (--headless, no display needed): runs --frames frames (default 120), writes every
 * K-th frame (--save-every; default: the last one only) as DIR/frame_NNNN.png (--out, default
 * the current folder) and DIR/poses.txt: the camera, then per saved frame each body's shape and
 * pose as the engine reports it, and the contact points, so that a test can project them
 * independently (tests/test_debug_engines.c).
 * --record FILE (either way) records the run with softrast/record.h: every frame's debug list
 * ("world"; the headless frames' HUD line in a list "hud" of its own, which a viewer can hide)
 * and an empty scene that holds the camera and the background, so that `softrast replay FILE`
 * draws the frames the run drew, and messages that mark the timeline (the pile dropped, the
 * first contact, the pile at rest). Recording frame i is the run's frame i + 1 (the state after
 * i + 1 steps), at time (i + 1) / 60 s. */
#ifndef SR_ENGINE_EXAMPLE_HPP
#define SR_ENGINE_EXAMPLE_HPP

#include <softrast/debug.h>
#include <softrast/record.h>
#include <softrast/viewer.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>

/// One example: an engine's world, reset, stepped, drawn into a list and described as poses.
class engine_example {
public:
    virtual ~engine_example() {}
    /// The program's name (messages, window title).
    virtual const char *name() const = 0;
    /// The camera the frames are seen by.
    virtual sr_camera camera() const = 0;
    /// Builds (or rebuilds) the pile at its starting positions.
    virtual void reset() = 0;
    /// Advances the world by one frame (1/60 s).
    virtual void step() = 0;
    /// Empties `list` and fills it with the world's debug drawing (the engine's own call).
    virtual void draw(sr_debug_list *list) = 0;
    /// Writes one line per body ("box ...", "sphere ...", "rect ...", "circle ...") and per
    /// contact point ("contact X Y Z") of the current state.
    virtual void write_poses(FILE *out) const = 0;
    /// A line of text for the HUD (bodies, contacts, step).
    virtual std::string status() const = 0;
    /// The viewer's overlays in the window (SR_OVERLAY_* bits): the HUD and a ground grid.
    virtual uint32_t overlays() const { return SR_OVERLAY_HUD | SR_OVERLAY_GRID; }
    /// Contact points touching now (the recording marks the first one); -1: not known.
    virtual int contacts() const { return -1; }
    /// Dynamic bodies awake now (the recording marks when the pile comes to rest); -1: not known.
    virtual int bodies_awake() const { return -1; }
    /// The background the frames are cleared to.
    uint32_t background() const { return sr_rgba8(0.11f, 0.12f, 0.14f, 1.0f); }
};

/// The command line.
struct engine_example_options {
    bool headless = false;
    long frames = -1;     ///< -1: 120 headless, no limit in a window
    long save_every = 0;  ///< 0: the last frame only
    std::string out_dir = ".";
    int width = 640, height = 360;
    int threads = 0;
    std::string screenshot; ///< window: save what it shows when the run ends
    std::string record;     ///< record the run into this file (softrast/record.h)
};

/// An 8-bit RGBA colour from floats in [0, 1], as written in poses.txt (r in the low byte): the
/// example's own rounding, independent of softrast's sr_rgba8.
inline unsigned engine_example_rgba8(float r, float g, float b, float a)
{
    const float c[4] = {r, g, b, a};
    unsigned out = 0;
    for (int k = 0; k < 4; k++) {
        float v = c[k] <= 0.0f ? 0.0f : c[k] >= 1.0f ? 255.0f : c[k] * 255.0f + 0.5f;
        out |= (unsigned)v << (8 * k);
    }
    return out;
}

namespace engine_example_detail {

inline void usage(const char *program, FILE *to)
{
    std::fprintf(to,
                 "usage: %s [--headless] [--frames N] [--save-every K] [--out DIR] [--size WxH] [--threads N]\n"
                 "       [--screenshot FILE] [--record FILE]\n"
                 "  a pile of bodies falling on the ground, drawn by softrast through the engine's debug drawer\n"
                 "  window (default): Space pauses, N steps one frame while paused, R drops the pile again\n"
                 "  --headless       no window: render into PNG frames (DIR/frame_NNNN.png) and DIR/poses.txt\n"
                 "  --frames N       frames to run (headless: 120 by default; window: until closed)\n"
                 "  --save-every K   headless: save every K-th frame (default: the last one only)\n"
                 "  --out DIR        headless: the folder for frames and poses (default: .), created if absent\n"
                 "  --size WxH       frame size in pixels (default 640x360)\n"
                 "  --threads N      rendering threads (default: one per core)\n"
                 "  --screenshot F   window: save what the window shows when the run ends (.png or .bmp)\n"
                 "  --record FILE    record the run (each frame's debug drawing, camera, background and\n"
                 "                   messages) for 'softrast view FILE' and 'softrast replay FILE'\n",
                 program);
}

/* A whole number in [low, high] from `text`, or false. */
inline bool parse_long(const char *text, long low, long high, long *out)
{
    char *end = nullptr;
    errno = 0;
    long value = std::strtol(text, &end, 10);
    if (errno || end == text || *end || value < low || value > high)
        return false;
    *out = value;
    return true;
}

/* Parses argv; returns -1 to go on, else the exit status (0 after --help, 2 after an error). */
inline int parse(int argc, char **argv, const char *program, engine_example_options *o)
{
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
        long number = 0;
        if (arg == "--help" || arg == "-h") {
            usage(program, stdout);
            return 0;
        } else if (arg == "--headless") {
            o->headless = true;
            continue;
        } else if (!value) {
            std::fprintf(stderr, "%s: %s: missing value (or unknown option); --help lists them\n", program, argv[i]);
            return 2;
        } else if (arg == "--frames" || arg == "--save-every" || arg == "--threads") {
            long high = arg == "--threads" ? SR_MAX_THREADS : 100000000L;
            if (!parse_long(value, arg == "--frames" ? 0 : 1, high, &number)) {
                std::fprintf(stderr, "%s: %s %s: expected a whole number from %d to %ld\n", program, argv[i], value,
                             arg == "--frames" ? 0 : 1, high);
                return 2;
            }
            if (arg == "--frames")
                o->frames = number;
            else if (arg == "--save-every")
                o->save_every = number;
            else
                o->threads = (int)number;
        } else if (arg == "--out") {
            o->out_dir = value;
        } else if (arg == "--screenshot") {
            o->screenshot = value;
        } else if (arg == "--record") {
            o->record = value;
        } else if (arg == "--size") {
            int w = 0, h = 0;
            char tail = 0;
            if (std::sscanf(value, "%dx%d%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > 8192 || h > 8192) {
                std::fprintf(stderr, "%s: --size %s: expected WIDTHxHEIGHT, each from 16 to 8192 (e.g. 640x360)\n",
                             program, value);
                return 2;
            }
            o->width = w;
            o->height = h;
        } else {
            std::fprintf(stderr, "%s: unknown option %s; --help lists them\n", program, argv[i]);
            return 2;
        }
        i++;
    }
    if (!o->headless && (o->save_every || o->out_dir != ".")) {
        std::fprintf(stderr, "%s: --save-every and --out go with --headless\n", program);
        return 2;
    }
    if (o->headless && !o->screenshot.empty()) {
        std::fprintf(stderr, "%s: --screenshot goes with the window (headless, every frame is saved by --out)\n",
                     program);
        return 2;
    }
    return -1;
}

/* A run recorded with softrast/record.h: an empty scene that holds the camera and background,
 * one list, and the messages that mark the timeline. */
class run_recorder {
public:
    ~run_recorder()
    {
        sr_recorder_destroy(recorder_);
        sr_scene_destroy(scene_);
    }

    /// Creates the file; false (with the message printed) when it cannot be.
    bool open(const engine_example &example, const std::string &path)
    {
        path_ = path;
        program_ = example.name();
        sr_error err = {};
        sr_scene_desc scene_desc = {};
        scene_desc.name = example.name();
        const char *names[2] = {"world", "hud"};
        std::string title = std::string(example.name()) + ": a pile falling (softrast's engine example)";
        sr_recorder_desc desc = {};
        desc.title = title.c_str();
        desc.list_names = names;
        desc.list_name_count = 2;
        if (sr_scene_create(&scene_desc, &scene_, &err) != SR_OK ||
            sr_recorder_create(path.c_str(), &desc, &recorder_, &err) != SR_OK)
            return fail(err);
        sr_camera camera = example.camera();
        sr_scene_set_camera(scene_, &camera);
        sr_scene_set_background(scene_, example.background());
        return true;
    }

    /// A message marking the next frame recorded.
    bool message(sr_record_level level, const std::string &text)
    {
        sr_error err = {};
        return sr_recorder_message(recorder_, level, text.c_str(), &err) == SR_OK || fail(err);
    }

    /// The pile was (re)built: the next frames start a new drop.
    bool dropped(const engine_example &example, const std::string &how)
    {
        contacts_ = 0;
        at_rest_ = false;
        return message(SR_RECORD_INFO, std::string(example.name()) + ": " + how);
    }

    /// Records the frame after the world's latest step, drawn into `list` (and the headless
    /// frames' HUD line into `hud`, NULL in a window), with the messages its state calls for
    /// first.
    bool frame(const engine_example &example, sr_debug_list *list, sr_debug_list *hud)
    {
        int contacts = example.contacts(), awake = example.bodies_awake();
        if (contacts > 0 && contacts_ == 0 &&
            !message(SR_RECORD_INFO, "first contact (" + std::to_string(contacts) + " points)"))
            return false;
        if (contacts >= 0)
            contacts_ = contacts;
        if (awake == 0 && !at_rest_ && !message(SR_RECORD_INFO, "the pile is at rest: every body asleep"))
            return false;
        at_rest_ = awake == 0;
        sr_error err = {};
        steps_++;
        sr_debug_list *lists[2] = {list, hud};
        return sr_recorder_frame(recorder_, (double)steps_ / 60.0, lists, 2, scene_, &err) == SR_OK || fail(err);
    }

    /// Writes the index and closes the file.
    bool close()
    {
        sr_error err = {};
        sr_recorder *recorder = recorder_;
        recorder_ = nullptr;
        if (sr_recorder_close(recorder, &err) != SR_OK)
            return fail(err);
        std::printf("%s: recorded %ld frames into %s\n", program_.c_str(), steps_, path_.c_str());
        return true;
    }

private:
    bool fail(const sr_error &err)
    {
        std::fprintf(stderr, "%s: --record %s: %s\n", program_.c_str(), path_.c_str(), err.message);
        return false;
    }

    sr_recorder *recorder_ = nullptr;
    sr_scene *scene_ = nullptr;
    std::string path_, program_;
    long steps_ = 0;
    int contacts_ = 0;
    bool at_rest_ = false;
};

/* The HUD line of a frame. */
inline std::string hud(const engine_example &example, long frame)
{
    return std::string(example.name()) + "  frame " + std::to_string(frame) + "  " + example.status();
}

inline int headless(engine_example &example, const engine_example_options &o)
{
    const char *program = example.name();
    if (mkdir(o.out_dir.c_str(), 0777) != 0 && errno != EEXIST) {
        std::fprintf(stderr, "%s: --out %s: cannot create the folder: %s\n", program, o.out_dir.c_str(),
                     std::strerror(errno));
        return 1;
    }
    sr_error err = {};
    sr_framebuffer *fb = nullptr;
    sr_renderer *renderer = nullptr;
    sr_debug_list *list = nullptr, *hud_list = nullptr;
    sr_framebuffer_desc fb_desc = {};
    fb_desc.width = o.width;
    fb_desc.height = o.height;
    sr_renderer_desc renderer_desc = {};
    renderer_desc.threads = o.threads;
    if (sr_framebuffer_create(&fb_desc, &fb, &err) != SR_OK ||
        sr_renderer_create(&renderer_desc, &renderer, &err) != SR_OK ||
        sr_debug_list_create(nullptr, &list, &err) != SR_OK || sr_debug_list_create(nullptr, &hud_list, &err) != SR_OK) {
        std::fprintf(stderr, "%s: %s\n", program, err.message);
        sr_debug_list_destroy(list);
        sr_framebuffer_destroy(fb);
        sr_renderer_destroy(renderer);
        return 1;
    }
    // poses.txt is written under a temporary name and renamed at the end: never half-written.
    std::string poses_path = o.out_dir + "/poses.txt", poses_temp = poses_path + ".tmp";
    FILE *poses = std::fopen(poses_temp.c_str(), "w");
    if (!poses) {
        std::fprintf(stderr, "%s: %s: %s\n", program, poses_temp.c_str(), std::strerror(errno));
        sr_debug_list_destroy(list);
        sr_debug_list_destroy(hud_list);
        sr_renderer_destroy(renderer);
        sr_framebuffer_destroy(fb);
        return 1;
    }
    sr_camera camera = example.camera();
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, o.width, o.height, &view, &projection);
    sr_mat4 view_projection = sr_mat4_mul(projection, view);
    std::fprintf(poses, "# %s: the camera, then per saved frame its bodies and contacts as the engine reports them\n",
                 program);
    std::fprintf(poses, "camera eye %.9g %.9g %.9g target %.9g %.9g %.9g up %.9g %.9g %.9g fov %.9g near %.9g far %.9g size %d %d\n",
                 (double)camera.eye.x, (double)camera.eye.y, (double)camera.eye.z, (double)camera.target.x,
                 (double)camera.target.y, (double)camera.target.z, (double)camera.up.x, (double)camera.up.y,
                 (double)camera.up.z, (double)camera.fov_y_degrees, (double)camera.near_z, (double)camera.far_z,
                 o.width, o.height);
    long frames = o.frames < 0 ? 120 : o.frames;
    int status = 0;
    example.reset();
    run_recorder recorder;
    bool recording = !o.record.empty();
    if (recording && (!recorder.open(example, o.record) || !recorder.dropped(example, "the pile dropped")))
        status = 1;
    for (long frame = 1; frame <= frames && status == 0; frame++) {
        example.step();
        bool save = o.save_every ? frame % o.save_every == 0 : frame == frames;
        if (!save && !recording)
            continue;
        // The world, and over it the frame's line of text (a list of its own: a recording's
        // "hud" category, which the viewer can hide).
        example.draw(list);
        sr_debug_list_clear(hud_list, nullptr);
        sr_debug_text_2d(hud_list, 8, 8, hud(example, frame).c_str(), sr_debug_style_make(SR_DEBUG_WHITE, 1, true));
        if (recording && !recorder.frame(example, list, hud_list)) {
            status = 1;
            break;
        }
        if (!save)
            continue;
        char name[64];
        std::snprintf(name, sizeof name, "frame_%04ld.png", frame);
        std::string path = o.out_dir + "/" + name;
        sr_renderer_clear(renderer, fb, sr_rgba8(0.11f, 0.12f, 0.14f, 1.0f), 1.0f);
        if (sr_debug_draw(list, renderer, fb, view_projection, &err) != SR_OK ||
            sr_debug_draw(hud_list, renderer, fb, view_projection, &err) != SR_OK ||
            sr_framebuffer_save(fb, path.c_str(), &err) != SR_OK) {
            std::fprintf(stderr, "%s: %s\n", program, err.message);
            status = 1;
            break;
        }
        sr_debug_list_stats stats = sr_debug_list_get_stats(list);
        if (stats.items_dropped)
            std::fprintf(stderr, "%s: frame %ld: %zu debug items past the list's capacity were dropped\n", program,
                         frame, stats.items_dropped);
        std::fprintf(poses, "frame %ld %s\n", frame, name);
        example.write_poses(poses);
        std::printf("%s: wrote %s\n", program, path.c_str());
    }
    if (recording && status == 0 && !recorder.close())
        status = 1;
    if (std::fclose(poses) != 0 && status == 0) {
        std::fprintf(stderr, "%s: %s: %s\n", program, poses_temp.c_str(), std::strerror(errno));
        status = 1;
    }
    if (status == 0 && std::rename(poses_temp.c_str(), poses_path.c_str()) != 0) {
        std::fprintf(stderr, "%s: %s: %s\n", program, poses_path.c_str(), std::strerror(errno));
        status = 1;
    }
    if (status != 0)
        std::remove(poses_temp.c_str());
    sr_debug_list_destroy(list);
    sr_debug_list_destroy(hud_list);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    return status;
}

/* The window's keys the program takes (the viewer has no use for them). */
struct window_keys {
    bool paused = false, step_once = false, reset = false;
};

inline bool on_input(void *user, const sr_viewer_event *event)
{
    window_keys *keys = static_cast<window_keys *>(user);
    if (event->type != SR_VIEWER_EVENT_KEY_DOWN || event->repeat)
        return false;
    if (event->key == ' ')
        keys->paused = !keys->paused;
    else if (event->key == 'n')
        keys->step_once = true;
    else if (event->key == 'r')
        keys->reset = true;
    else
        return false;
    return true;
}

inline int window(engine_example &example, const engine_example_options &o)
{
    const char *program = example.name();
    // Where no window can open, SDL falls back to a driver that shows nothing: an endless run
    // nobody sees. Say so at once, as `softrast view` does, unless --frames bounds the run.
    char reason[512];
    if (o.frames < 0 && !sr_viewer_probe(reason, sizeof reason)) {
        std::fprintf(stderr,
                     "%s: no window can open here: %s.\n"
                     "  '%s --headless --out DIR' renders the frames into PNG files instead.\n",
                     program, reason, program);
        return 1;
    }
    sr_error err = {};
    window_keys keys;
    sr_viewer_desc desc = {};
    desc.title = program;
    desc.width = o.width;
    desc.height = o.height;
    desc.threads = o.threads;
    desc.input_filter = on_input;
    desc.user = &keys;
    sr_viewer *viewer = nullptr;
    sr_debug_list *list = nullptr;
    sr_camera camera = example.camera();
    if (sr_debug_list_create(nullptr, &list, &err) != SR_OK ||
        sr_viewer_create(&desc, nullptr, &viewer, &err) != SR_OK ||
        sr_viewer_set_camera(viewer, &camera, &err) != SR_OK) {
        std::fprintf(stderr, "%s: %s (--headless renders without a window)\n", program, err.message);
        sr_viewer_destroy(viewer);
        sr_debug_list_destroy(list);
        return 1;
    }
    sr_viewer_set_overlays(viewer, example.overlays());
    example.reset();
    int status = 0;
    run_recorder recorder;
    bool recording = !o.record.empty();
    if (recording && (!recorder.open(example, o.record) || !recorder.dropped(example, "the pile dropped")))
        status = 1;
    bool changed = true, was_paused = false;
    for (long frame = 0; status == 0 && (o.frames < 0 || frame < o.frames);) {
        if (keys.reset) {
            example.reset();
            keys.reset = false;
            frame = 0;
            changed = true;
            if (recording && !recorder.dropped(example, "the pile dropped again (R)")) {
                status = 1;
                break;
            }
        }
        bool stepped = false;
        if (!keys.paused || keys.step_once) {
            example.step();
            frame++;
            keys.step_once = false;
            changed = true;
            stepped = true;
        }
        // Refilled only when the world moved: a paused pile leaves the list (and its generation)
        // alone, so the viewer draws nothing new and waits for input.
        if (changed || was_paused != keys.paused) {
            example.draw(list);
            // What the window shows of the world each step (the viewer's HUD is not the program's).
            if (stepped && recording && !recorder.frame(example, list, nullptr)) {
                status = 1;
                break;
            }
            std::string text = hud(example, frame) + (keys.paused ? "  (paused: Space resumes, N steps)" : "");
            sr_viewer_set_hud_text(viewer, text.c_str());
            changed = false;
            was_paused = keys.paused;
        }
        if (!sr_viewer_frame(viewer, list, &err)) {
            if (err.status != SR_OK) {
                std::fprintf(stderr, "%s: %s\n", program, err.message);
                status = 1;
            }
            break;
        }
    }
    if (recording && status == 0 && !recorder.close())
        status = 1;
    if (status == 0 && !o.screenshot.empty()) {
        if (sr_viewer_save_frame(viewer, o.screenshot.c_str(), &err) != SR_OK) {
            std::fprintf(stderr, "%s: --screenshot: %s\n", program, err.message);
            status = 1;
        } else {
            std::printf("%s: wrote %s\n", program, o.screenshot.c_str());
        }
    }
    sr_viewer_destroy(viewer);
    sr_debug_list_destroy(list);
    return status;
}

} // namespace engine_example_detail

/// The whole program: parses the command line and runs the example headless or in a window.
inline int engine_example_main(int argc, char **argv, engine_example &example)
{
    engine_example_options o;
    int code = engine_example_detail::parse(argc, argv, example.name(), &o);
    if (code >= 0)
        return code;
    return o.headless ? engine_example_detail::headless(example, o) : engine_example_detail::window(example, o);
}

#endif
