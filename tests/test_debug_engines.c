/* test_debug_engines.c — the physics engines' examples (tests/examples/pile_bullet.cpp,
 * pile_box2d.cpp, through softrast/bullet_draw.hpp and box2d_draw.hpp) draw the bodies where
 * the engine's own transforms put them. Each example runs headless (no display) and writes PNG
 * frames with poses.txt beside them: the camera, and per frame every body's shape and transform
 * as the engine reports it. Here each box's corners and points along its edges (a sphere's great
 * circles, a circle's rim and axis line) are placed by those transforms and projected by
 * tests/debug_projection.h (double precision, from the camera's definition), and the body's
 * colour must be found within 1 px of each. The same check with the projection shifted by 3 px,
 * or with a field of view 6% off, must fail for nearly every body: the test sees such errors.
 * The examples' paths come from meson (SOFTRAST_PILE_BULLET, SOFTRAST_PILE_BOX2D); an engine
 * that is not installed is skipped with a message. */
#include <criterion/criterion.h>

#include "debug_projection.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_BODIES 64
#define MAX_CONTACTS 512
#define MAX_FRAMES 8

typedef enum { BOX, SPHERE, RECT, CIRCLE } shape_kind;

typedef struct body {
    shape_kind kind;
    uint32_t color;
    double size[3];  ///< box: half extents; sphere, circle: radius; rect: half width, half height
    double p[3];     ///< position
    double q[4];     ///< rotation (x, y, z, w); rect and circle: about +Z by their angle
} body;

typedef struct frame_poses {
    char png[64];
    body bodies[MAX_BODIES];
    int body_count;
    double contacts[MAX_CONTACTS][3];
    int contact_count;
} frame_poses;

typedef struct poses {
    double eye[3], target[3], up[3], fov, near_z, far_z;
    int width, height;
    frame_poses frames[MAX_FRAMES];
    int frame_count;
} poses;

/* ---- running an example ---- */

/* Runs `exe` with `args` (NULL-terminated, without the program name) in the environment `env`
 * (NULL: this process's), stderr into `err`; returns the exit status (-1 when killed by a
 * signal). */
static int run_example_in(const char *exe, const char *const *args, char *const *env, const char *dir, char *err,
                          size_t err_size)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)exe;
    for (int i = 0; args[i] && argc < 31; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    char err_path[256];
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int spawned = posix_spawn(&pid, exe, &actions, NULL, argv, env ? env : environ);
    posix_spawn_file_actions_destroy(&actions);
    cr_assert_eq(spawned, 0, "posix_spawn %s: %s", exe, strerror(spawned));
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    err[0] = '\0';
    FILE *f = fopen(err_path, "r");
    if (f) {
        size_t n = fread(err, 1, err_size - 1, f);
        err[n] = '\0';
        fclose(f);
    }
    remove(err_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run_example(const char *exe, const char *const *args, const char *dir, char *err, size_t err_size)
{
    return run_example_in(exe, args, NULL, dir, err, err_size);
}

/* The example's path from meson's environment, or NULL (the test is then skipped). */
static const char *example_path(const char *variable)
{
    const char *path = getenv(variable);
    return path && path[0] ? path : NULL;
}

static void remove_folder(const char *dir, const poses *p)
{
    char path[512];
    for (int f = 0; p && f < p->frame_count; f++) {
        snprintf(path, sizeof path, "%s/%s", dir, p->frames[f].png);
        remove(path);
    }
    snprintf(path, sizeof path, "%s/poses.txt", dir);
    remove(path);
    rmdir(dir);
}

/* ---- poses.txt ---- */

static void read_poses(const char *path, poses *p)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    memset(p, 0, sizeof *p);
    char line[512];
    bool camera = false;
    frame_poses *frame = NULL;
    while (fgets(line, sizeof line, f)) {
        body b = {0};
        unsigned color = 0;
        size_t id = 0;
        double angle = 0;
        if (line[0] == '#' || line[0] == '\n') {
            continue;
        } else if (strncmp(line, "camera ", 7) == 0) {
            cr_assert_eq(sscanf(line,
                                "camera eye %lf %lf %lf target %lf %lf %lf up %lf %lf %lf fov %lf near %lf far %lf "
                                "size %d %d",
                                &p->eye[0], &p->eye[1], &p->eye[2], &p->target[0], &p->target[1], &p->target[2],
                                &p->up[0], &p->up[1], &p->up[2], &p->fov, &p->near_z, &p->far_z, &p->width,
                                &p->height),
                         14, "%s", line);
            camera = true;
        } else if (strncmp(line, "frame ", 6) == 0) {
            cr_assert_lt(p->frame_count, MAX_FRAMES);
            frame = &p->frames[p->frame_count++];
            long number = 0;
            cr_assert_eq(sscanf(line, "frame %ld %63s", &number, frame->png), 2, "%s", line);
        } else if (strncmp(line, "contact ", 8) == 0) {
            cr_assert_not_null(frame);
            cr_assert_lt(frame->contact_count, MAX_CONTACTS);
            double *c = frame->contacts[frame->contact_count++];
            cr_assert_eq(sscanf(line, "contact %lf %lf %lf", &c[0], &c[1], &c[2]), 3, "%s", line);
        } else {
            cr_assert_not_null(frame, "%s", line);
            int fields = 0;
            if (sscanf(line, "box %zu %x", &id, &color) == 2) {
                b.kind = BOX;
                fields = sscanf(line, "box %zu %x %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &id, &color, &b.size[0],
                                &b.size[1], &b.size[2], &b.p[0], &b.p[1], &b.p[2], &b.q[0], &b.q[1], &b.q[2], &b.q[3]) == 12;
            } else if (sscanf(line, "sphere %zu %x", &id, &color) == 2) {
                b.kind = SPHERE;
                fields = sscanf(line, "sphere %zu %x %lf %lf %lf %lf %lf %lf %lf %lf", &id, &color, &b.size[0], &b.p[0],
                                &b.p[1], &b.p[2], &b.q[0], &b.q[1], &b.q[2], &b.q[3]) == 10;
            } else if (sscanf(line, "rect %zu %x", &id, &color) == 2) {
                b.kind = RECT;
                fields = sscanf(line, "rect %zu %x %lf %lf %lf %lf %lf", &id, &color, &b.size[0], &b.size[1], &b.p[0],
                                &b.p[1], &angle) == 7;
            } else if (sscanf(line, "circle %zu %x", &id, &color) == 2) {
                b.kind = CIRCLE;
                fields = sscanf(line, "circle %zu %x %lf %lf %lf %lf", &id, &color, &b.size[0], &b.p[0], &b.p[1],
                                &angle) == 6;
            }
            cr_assert(fields, "poses.txt: cannot read '%s'", line);
            if (b.kind == RECT || b.kind == CIRCLE) {
                b.q[2] = sin(angle / 2);
                b.q[3] = cos(angle / 2);
            }
            b.color = color;
            cr_assert_lt(frame->body_count, MAX_BODIES);
            frame->bodies[frame->body_count++] = b;
        }
    }
    fclose(f);
    cr_assert(camera, "%s has no camera line", path);
    cr_assert_gt(p->frame_count, 0, "%s has no frame", path);
}

/* ---- geometry: the bodies' points in the world, placed by the engine's transforms ---- */

/* p + q v q*, for a unit quaternion q (Hamilton product, written out). */
static void place(const body *b, const double local[3], double world[3])
{
    const double *q = b->q;
    double t[3] = {2 * (q[1] * local[2] - q[2] * local[1]), 2 * (q[2] * local[0] - q[0] * local[2]),
                   2 * (q[0] * local[1] - q[1] * local[0])};
    world[0] = b->p[0] + local[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    world[1] = b->p[1] + local[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    world[2] = b->p[2] + local[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

typedef struct sample {
    double world[3];
    bool corner;
} sample;

enum { MAX_SAMPLES = 1024 };

/* The points of a body that must be drawn: a box's 8 corners and 15 points along each of its 12
 * edges; a rectangle's 4 corners and its edges; a sphere's three great circles in its local
 * planes; a circle's rim and its axis line (Box2D's solid circle), which shows its rotation. */
static int body_samples(const body *b, sample *out)
{
    int n = 0;
    if (b->kind == BOX || b->kind == RECT) {
        int dims = b->kind == BOX ? 3 : 2, corners = 1 << dims;
        double h[3] = {b->size[0], b->size[1], b->kind == BOX ? b->size[2] : 0.0};
        for (int c = 0; c < corners; c++) {
            double local[3] = {c & 1 ? h[0] : -h[0], c & 2 ? h[1] : -h[1], c & 4 ? h[2] : (dims == 3 ? -h[2] : 0.0)};
            out[n].corner = true;
            place(b, local, out[n++].world);
            // Edges from this corner to the corners one bit higher on each axis.
            for (int axis = 0; axis < dims; axis++) {
                if (c & (1 << axis))
                    continue;
                for (int k = 1; k <= 15; k++) {
                    double t = (double)k / 16.0, edge[3] = {local[0], local[1], local[2]};
                    edge[axis] = -h[axis] + 2 * h[axis] * t;
                    out[n].corner = false;
                    place(b, edge, out[n++].world);
                }
            }
        }
    } else {
        int circles = b->kind == SPHERE ? 3 : 1;
        double r = b->size[0];
        for (int c = 0; c < circles; c++)
            for (int k = 0; k < 64; k++) {
                double a = 2 * M_PI * k / 64, local[3] = {0, 0, 0};
                local[c] = r * cos(a);
                local[(c + 1) % 3] = r * sin(a);
                out[n].corner = false;
                place(b, local, out[n++].world);
            }
        if (b->kind == CIRCLE)
            for (int k = 1; k < 10; k++) {
                double local[3] = {r * k / 10.0, 0, 0};
                out[n].corner = false;
                place(b, local, out[n++].world);
            }
    }
    return n;
}

/* ---- the check ---- */

typedef struct image {
    uint32_t *pixels;
    int width, height;
} image;

static uint32_t at(const image *im, int x, int y)
{
    return im->pixels[(size_t)y * (size_t)im->width + (size_t)x];
}

/* Whether the colour `color` is within 1 px of window point (x, y); near a contact point (whose
 * dot and normal are drawn over the bodies, on top) any colour but the background counts. */
static bool found(const image *im, double x, double y, uint32_t color, uint32_t background, bool near_contact)
{
    int cx = (int)floor(x), cy = (int)floor(y);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int px = cx + dx, py = cy + dy;
            if (px < 0 || py < 0 || px >= im->width || py >= im->height)
                continue;
            uint32_t c = at(im, px, py);
            if (c == color || (near_contact && c != background))
                return true;
        }
    return false;
}

typedef struct tally {
    int corners, corners_found, points, points_found;
    int bodies, bodies_matching; ///< bodies with at least 97% of their points found
} tally;

/* A body's samples projected: window positions (shifted), and whether each is on screen. */
typedef struct projected {
    double x[MAX_SAMPLES], y[MAX_SAMPLES];
    bool on_screen[MAX_SAMPLES], corner[MAX_SAMPLES];
    int count;
} projected;

static void project_body(const body *b, const test_view *view, double shift_x, double shift_y, const image *im,
                         projected *out)
{
    static sample samples[MAX_SAMPLES];
    out->count = body_samples(b, samples);
    for (int k = 0; k < out->count; k++) {
        test_pixel q = test_project(view, samples[k].world[0], samples[k].world[1], samples[k].world[2]);
        out->x[k] = q.x + shift_x;
        out->y[k] = q.y + shift_y;
        out->corner[k] = samples[k].corner;
        out->on_screen[k] = q.in_front && out->x[k] >= 1 && out->y[k] >= 1 && out->x[k] < im->width - 1 &&
                            out->y[k] < im->height - 1;
    }
}

/* Whether window point (x, y) lies within 1.5 px of the body's projected outline: a box's or
 * rectangle's edges between its projected corners, a circle's polylines of dense samples. */
static bool on_body(const projected *p, const body *b, double x, double y)
{
    if (b->kind == SPHERE || b->kind == CIRCLE) {
        for (int k = 0; k + 1 < p->count; k++)
            if (test_distance_to_segment(x, y, p->x[k], p->y[k], p->x[k + 1], p->y[k + 1]) < 1.5)
                return true;
        return false;
    }
    // body_samples lists each corner, then the points of the edges leaving it towards higher
    // coordinates: the corners are the samples marked as such, in the order of their bits.
    double cx[8], cy[8];
    int corners = 0;
    for (int k = 0; k < p->count && corners < 8; k++)
        if (p->corner[k]) {
            cx[corners] = p->x[k];
            cy[corners] = p->y[k];
            corners++;
        }
    for (int a = 0; a < corners; a++)
        for (int bit = 1; bit < corners; bit <<= 1)
            if (!(a & bit) && test_distance_to_segment(x, y, cx[a], cy[a], cx[a | bit], cy[a | bit]) < 1.5)
                return true;
    return false;
}

/* Checks every body of `frame` in `im`, projecting with `view` moved by (shift_x, shift_y) px. A
 * point is found when the body's colour is within 1 px; where another body's line passes within
 * 1.5 px (boxes resting on each other share edges: the one drawn last covers the other), that
 * body's colour counts too; near a contact point (its dot and normal are drawn on top) any colour
 * but the background does. */
static tally check_frame(const frame_poses *frame, const image *im, const test_view *view, double shift_x,
                         double shift_y)
{
    tally t = {0};
    uint32_t background = at(im, im->width - 1, im->height - 1);
    double contacts[MAX_CONTACTS][2];
    for (int c = 0; c < frame->contact_count; c++) {
        test_pixel q = test_project(view, frame->contacts[c][0], frame->contacts[c][1], frame->contacts[c][2]);
        contacts[c][0] = q.x + shift_x;
        contacts[c][1] = q.y + shift_y;
    }
    static projected bodies[MAX_BODIES];
    for (int i = 0; i < frame->body_count; i++)
        project_body(&frame->bodies[i], view, shift_x, shift_y, im, &bodies[i]);
    for (int i = 0; i < frame->body_count; i++) {
        const projected *p = &bodies[i];
        int total = 0, hits = 0;
        for (int k = 0; k < p->count; k++) {
            if (!p->on_screen[k])
                continue; // off screen: not counted
            double x = p->x[k], y = p->y[k];
            bool near_contact = false;
            for (int c = 0; c < frame->contact_count && !near_contact; c++)
                near_contact = hypot(x - contacts[c][0], y - contacts[c][1]) < 8.0;
            bool ok = found(im, x, y, frame->bodies[i].color, background, near_contact);
            for (int j = 0; j < frame->body_count && !ok; j++)
                ok = j != i && found(im, x, y, frame->bodies[j].color, background, false) &&
                     on_body(&bodies[j], &frame->bodies[j], x, y);
            total++;
            hits += ok;
            if (p->corner[k]) {
                t.corners++;
                t.corners_found += ok;
            } else {
                t.points++;
                t.points_found += ok;
            }
        }
        if (total > 0) {
            t.bodies++;
            t.bodies_matching += hits >= 0.97 * total;
        }
    }
    return t;
}

static image load_image(const char *path)
{
    image im;
    int channels = 0;
    unsigned char *bytes = stbi_load(path, &im.width, &im.height, &channels, 4);
    cr_assert_not_null(bytes, "%s: %s", path, stbi_failure_reason());
    im.pixels = malloc((size_t)im.width * (size_t)im.height * 4);
    for (size_t i = 0; i < (size_t)im.width * (size_t)im.height; i++)
        im.pixels[i] = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 | (uint32_t)bytes[4 * i + 2] << 16 |
                       (uint32_t)bytes[4 * i + 3] << 24;
    stbi_image_free(bytes);
    return im;
}

/* Runs the example headless and checks its frames. */
static void check_example(const char *variable, int min_bodies)
{
    const char *exe = example_path(variable);
    if (!exe)
        cr_skip_test("%s is not set: the engine is not installed (or -D%s=disabled)", variable,
                     strstr(variable, "BULLET") ? "bullet" : "box2d");
    char dir[64] = "/tmp/softrast_engines_XXXXXX", err[4096];
    cr_assert_not_null(mkdtemp(dir));
    const char *args[] = {"--headless", "--frames", "120", "--save-every", "40", "--out", dir, NULL};
    int status = run_example(exe, args, dir, err, sizeof err);
    cr_assert_eq(status, 0, "%s exited with %d: %s", exe, status, err);
    char path[512];
    snprintf(path, sizeof path, "%s/poses.txt", dir);
    static poses p;
    read_poses(path, &p);
    cr_assert_eq(p.frame_count, 3, "frames 40, 80, 120");
    test_view view = test_view_make(p.eye, p.target, p.up, p.fov, p.near_z, p.far_z, p.width, p.height);
    test_view wide = test_view_make(p.eye, p.target, p.up, p.fov * 1.06, p.near_z, p.far_z, p.width, p.height);
    for (int f = 0; f < p.frame_count; f++) {
        const frame_poses *frame = &p.frames[f];
        cr_assert_geq(frame->body_count, min_bodies);
        snprintf(path, sizeof path, "%s/%s", dir, frame->png);
        image im = load_image(path);
        cr_assert(im.width == p.width && im.height == p.height);
        tally t = check_frame(frame, &im, &view, 0, 0);
        cr_log_info("%s %s: corners %d/%d, edge and rim points %d/%d, bodies %d/%d, contacts %d", variable, frame->png,
                    t.corners_found, t.corners, t.points_found, t.points, t.bodies_matching, t.bodies,
                    frame->contact_count);
        cr_assert_eq(t.bodies, frame->body_count, "every body is on screen");
        cr_assert_eq(t.corners_found, t.corners, "%s: %d of %d corners drawn", frame->png, t.corners_found, t.corners);
        cr_assert_geq(t.points_found, 0.99 * t.points, "%s: %d of %d points drawn", frame->png, t.points_found,
                      t.points);
        cr_assert_eq(t.bodies_matching, t.bodies, "%s: %d of %d bodies drawn where the engine put them", frame->png,
                     t.bodies_matching, t.bodies);
        // A few pixels off, or a field of view 6% off: nearly every body fails.
        const double shifts[4][2] = {{3, 0}, {0, 3}, {-3, 0}, {0, -3}};
        for (int s = 0; s < 5; s++) {
            tally wrong = s < 4 ? check_frame(frame, &im, &view, shifts[s][0], shifts[s][1])
                                : check_frame(frame, &im, &wide, 0, 0);
            cr_log_info("  %s: %d of %d bodies match, %d of %d points", s < 4 ? "shifted 3 px" : "fov 6% wider",
                        wrong.bodies_matching, wrong.bodies, wrong.points_found + wrong.corners_found,
                        wrong.points + wrong.corners);
            cr_assert_leq(wrong.bodies_matching, 0.2 * wrong.bodies,
                          "%s: with %s, %d of %d bodies still match: the check cannot see that error", frame->png,
                          s < 4 ? "a 3-pixel shift" : "a field of view 6% wider", wrong.bodies_matching, wrong.bodies);
        }
        free(im.pixels);
    }
    remove_folder(dir, &p);
}

Test(debug_engines, bullet_frames_show_the_bodies_where_bullet_puts_them)
{
    check_example("SOFTRAST_PILE_BULLET", 28);
}

Test(debug_engines, box2d_frames_show_the_bodies_where_box2d_puts_them)
{
    check_example("SOFTRAST_PILE_BOX2D", 33);
}

/* The command line: a bad value names the option, exit 2, nothing written. */
Test(debug_engines, bad_arguments_are_named)
{
    const char *exe = example_path("SOFTRAST_PILE_BULLET");
    if (!exe)
        exe = example_path("SOFTRAST_PILE_BOX2D");
    if (!exe)
        cr_skip_test("no engine example was built");
    char dir[64] = "/tmp/softrast_engines_XXXXXX", err[4096];
    cr_assert_not_null(mkdtemp(dir));
    const struct {
        const char *args[6];
        const char *message;
    } cases[] = {
        {{"--headless", "--frames", "ten", NULL}, "--frames ten: expected a whole number"},
        {{"--headless", "--size", "0x10", NULL}, "--size 0x10: expected WIDTHxHEIGHT"},
        {{"--headless", "--bogus", "1", NULL}, "unknown option --bogus"},
        {{"--headless", "--frames", NULL}, "--frames: missing value"},
        {{"--save-every", "3", NULL}, "go with --headless"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int status = run_example(exe, cases[i].args, dir, err, sizeof err);
        cr_assert_eq(status, 2, "case %zu: exit %d (%s)", i, status, err);
        cr_assert(strstr(err, cases[i].message), "case %zu: '%s' does not say '%s'", i, err, cases[i].message);
    }
    // An output folder that cannot be made: a clear error, exit 1.
    const char *args[] = {"--headless", "--frames", "1", "--out", "/proc/softrast_no_such/dir", NULL};
    int status = run_example(exe, args, dir, err, sizeof err);
    cr_assert_eq(status, 1);
    cr_assert(strstr(err, "/proc/softrast_no_such/dir") && strstr(err, "cannot create"), "%s", err);
    rmdir(dir);
}

/* The window mode: the example runs in the embedded viewer (SDL's dummy driver here, no display)
 * for a bounded number of frames and ends cleanly; with no window possible and no bound it says
 * so at once instead of running unseen. */
Test(debug_engines, the_window_mode_runs_in_the_viewer_and_refuses_to_run_unseen)
{
    const char *variables[2] = {"SOFTRAST_PILE_BULLET", "SOFTRAST_PILE_BOX2D"};
    int ran = 0;
    for (int e = 0; e < 2; e++) {
        const char *exe = example_path(variables[e]);
        if (!exe)
            continue;
        ran++;
        char dir[64] = "/tmp/softrast_engines_XXXXXX", err[4096];
        cr_assert_not_null(mkdtemp(dir));
        char *const env[] = {"SDL_VIDEODRIVER=dummy", "PATH=/usr/bin:/bin", NULL};
        char shot[128];
        snprintf(shot, sizeof shot, "%s/shot.png", dir);
        const char *bounded[] = {"--frames", "60", "--size", "480x270", "--screenshot", shot, NULL};
        int status = run_example_in(exe, bounded, env, dir, err, sizeof err);
        cr_assert_eq(status, 0, "%s --frames 60: exit %d: %s", exe, status, err);
        // What the window showed at the end has the program's list: its contacts' yellow dots
        // (Bullet's contact colour (1, 1, 0), draw_contacts' (0.9, 0.9, 0.3)).
        image im = load_image(shot);
        int yellow = 0;
        for (size_t i = 0; i < (size_t)im.width * (size_t)im.height; i++) {
            uint32_t c = im.pixels[i];
            yellow += (c & 0xffu) >= 0xe0u && (c >> 8 & 0xffu) >= 0xe0u && (c >> 16 & 0xffu) <= 0x50u;
        }
        cr_assert_gt(yellow, 50, "%s: %d contact pixels in the window's frame", exe, yellow);
        free(im.pixels);
        remove(shot);
        const char *unbounded[] = {NULL};
        status = run_example_in(exe, unbounded, env, dir, err, sizeof err);
        cr_assert_eq(status, 1, "%s with no window and no --frames: exit %d", exe, status);
        cr_assert(strstr(err, "no window can open here") && strstr(err, "--headless"), "%s", err);
        rmdir(dir);
    }
    if (!ran)
        cr_skip_test("no engine example was built");
}
