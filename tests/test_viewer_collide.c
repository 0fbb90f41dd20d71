/* test_viewer_collide.c — a pair of shapes in the viewer (src/viewer/viewer_collide.c), driven by
 * scripts under SDL's dummy video driver: click and shift + click select the shapes that an
 * independent projection of their centres puts under the cursor; the pair's answer is the
 * distance an analytic sphere-capsule computation gives; ctrl + drag moves the shape by the
 * drag's world displacement at its depth (computed here from the camera's eye, target, up and
 * field of view), alt + drag turns it about the view's up axis by 0.5 degree per pixel; the HUD
 * says it; C clears it; script errors name the line. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <math.h>

#include "run_program.h"

#define PILE_JSON SR_SOURCE_DIR "/assets/scenes/pile.json"
#define STEPS_JSON SR_SOURCE_DIR "/assets/scenes/steps.json"

static void init(void)
{
    setenv("SDL_VIDEODRIVER", "dummy", 0);
}

static run_result view_script_sized(const char *dir, const char *scene, const char *size, const char *text)
{
    char script[128];
    snprintf(script, sizeof script, "%s/script.txt", dir);
    FILE *f = fopen(script, "wb");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return run((const char *[]){"view", scene, "--size", size, "--script", script, NULL});
}

static run_result view_script(const char *dir, const char *scene, const char *text)
{
    return view_script_sized(dir, scene, "800x600", text);
}

static int json_lines(const char *text, cJSON **lines, int most)
{
    int count = 0;
    for (const char *p = text; *p && count < most;) {
        const char *end = strchr(p, '\n');
        cr_assert_not_null(end);
        if (*p == '{') {
            char *line = strndup(p, (size_t)(end - p));
            lines[count] = cJSON_Parse(line);
            cr_assert_not_null(lines[count], "not JSON: %s", line);
            free(line);
            count++;
        }
        p = end + 1;
    }
    return count;
}

typedef struct vec {
    double x, y, z;
} vec;

static vec sub(vec a, vec b)
{
    return (vec){a.x - b.x, a.y - b.y, a.z - b.z};
}
static vec add(vec a, vec b)
{
    return (vec){a.x + b.x, a.y + b.y, a.z + b.z};
}
static vec scale(vec a, double s)
{
    return (vec){a.x * s, a.y * s, a.z * s};
}
static double dot(vec a, vec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static vec cross(vec a, vec b)
{
    return (vec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static vec unit(vec a)
{
    return scale(a, 1.0 / sqrt(dot(a, a)));
}

static vec vec_of(const cJSON *object, const char *key)
{
    const cJSON *a = cJSON_GetObjectItem(object, key);
    cr_assert(cJSON_IsArray(a) && cJSON_GetArraySize(a) >= 3, "no vector '%s'", key);
    return (vec){cJSON_GetArrayItem(a, 0)->valuedouble, cJSON_GetArrayItem(a, 1)->valuedouble,
                 cJSON_GetArrayItem(a, 2)->valuedouble};
}

static void quat_of(const cJSON *object, double q[4])
{
    const cJSON *a = cJSON_GetObjectItem(object, "rotation");
    for (int i = 0; i < 4; i++)
        q[i] = cJSON_GetArrayItem(a, i)->valuedouble;
}

/* Rotates v by the unit quaternion q (x, y, z, w), written out as the rotation matrix. */
static vec rotate(const double q[4], vec v)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    return (vec){(1 - 2 * (y * y + z * z)) * v.x + 2 * (x * y - z * w) * v.y + 2 * (x * z + y * w) * v.z,
                 2 * (x * y + z * w) * v.x + (1 - 2 * (x * x + z * z)) * v.y + 2 * (y * z - x * w) * v.z,
                 2 * (x * z - y * w) * v.x + 2 * (y * z + x * w) * v.y + (1 - 2 * (x * x + y * y)) * v.z};
}

/* The view camera print-state reports ("eye=...:target=...:up=...:near=..:far=..:fov=.."). */
typedef struct camera {
    vec eye, forward, right, up;
    double tan_half_fov;
} camera;

static camera camera_of(const cJSON *state)
{
    const char *spec = cJSON_GetObjectItem(state, "camera")->valuestring;
    vec eye, target, up;
    double near_z, far_z, fov;
    int n = sscanf(spec, "eye=%lf,%lf,%lf:target=%lf,%lf,%lf:up=%lf,%lf,%lf:near=%lf:far=%lf:fov=%lf", &eye.x, &eye.y,
                   &eye.z, &target.x, &target.y, &target.z, &up.x, &up.y, &up.z, &near_z, &far_z, &fov);
    cr_assert_eq(n, 12, "camera '%s'", spec);
    camera c = {.eye = eye, .forward = unit(sub(target, eye)), .tan_half_fov = tan(fov * M_PI / 360.0)};
    c.right = unit(cross(c.forward, up));
    c.up = cross(c.right, c.forward);
    return c;
}

/* The pixel (800x600, pixel centres at +0.5) where the camera sees world point p. */
static void project(const camera *c, vec p, double *x, double *y)
{
    vec v = sub(p, c->eye);
    double depth = dot(v, c->forward), half_h = depth * c->tan_half_fov, half_w = half_h * 800.0 / 600.0;
    *x = (dot(v, c->right) / half_w + 1.0) * 400.0;
    *y = (1.0 - dot(v, c->up) / half_h) * 300.0;
}

/* Distance from point p to segment a-b. */
static double point_segment(vec p, vec a, vec b)
{
    vec ab = sub(b, a);
    double t = dot(sub(p, a), ab) / dot(ab, ab);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return sqrt(dot(sub(p, add(a, scale(ab, t))), sub(p, add(a, scale(ab, t)))));
}

/* The ball (sphere, radius 0.45) and the pill (capsule, radius 0.25, half height 0.5 along its
 * local z) of pile.json: their signed distance from the poses print-pair reports. */
static double ball_pill_distance(const cJSON *pair)
{
    const cJSON *a = cJSON_GetObjectItem(pair, "a"), *b = cJSON_GetObjectItem(pair, "b");
    double q[4];
    quat_of(b, q);
    vec axis = rotate(q, (vec){0, 0, 0.5}), centre = vec_of(b, "position");
    return point_segment(vec_of(a, "position"), sub(centre, axis), add(centre, axis)) - 0.45 - 0.25;
}

static const char *name_of(const cJSON *pair, const char *which)
{
    const cJSON *shape = cJSON_GetObjectItem(pair, which);
    return cJSON_IsObject(shape) ? cJSON_GetObjectItem(shape, "name")->valuestring : NULL;
}

Test(viewer_collide, clicks_select_the_shapes_under_the_cursor_and_the_answer_is_the_pairs, .init = init,
     .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    // The camera first, then clicks at the projections of the ball's and the pill's centres.
    run_result r = view_script(dir, PILE_JSON, "print-state\nprint-pair\n");
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *lines[8];
    cr_assert_eq(json_lines(r.out, lines, 8), 2);
    camera c = camera_of(lines[0]);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(lines[1], "a")), "nothing is selected at first");
    double bx, by, px, py;
    project(&c, (vec){-0.45, 0.42, 0.35}, &bx, &by);
    project(&c, (vec){0.55, 0.25, 0.9}, &px, &py);
    cJSON_Delete(lines[0]);
    cJSON_Delete(lines[1]);
    char script[512];
    snprintf(script, sizeof script,
             "click %.0f %.0f\nprint-pair\nclick %.0f %.0f shift\nprint-pair\nprint-state\nkey C\nprint-pair\n"
             "select pill ball\nprint-pair\nclick 5 5\nprint-pair\n",
             floor(bx), floor(by), floor(px), floor(py));
    r = view_script(dir, PILE_JSON, script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cr_assert_eq(json_lines(r.out, lines, 8), 6, "%s", r.out);
    cr_assert_str_eq(name_of(lines[0], "a"), "ball");
    cr_assert_null(name_of(lines[0], "b"), "one click selects one shape");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(lines[0], "answer")));
    cr_assert_str_eq(name_of(lines[1], "a"), "ball");
    cr_assert_str_eq(name_of(lines[1], "b"), "pill", "shift + click selects the second");
    const cJSON *answer = cJSON_GetObjectItem(lines[1], "answer");
    double distance = cJSON_GetObjectItem(answer, "distance")->valuedouble;
    cr_assert_float_eq(distance, ball_pill_distance(lines[1]), 1e-6, "distance %.9g", distance);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(answer, "hit")) == (distance <= 0));
    const char *hud = cJSON_GetObjectItem(lines[2], "hud")->valuestring;
    char expected[128];
    snprintf(expected, sizeof expected, "pair: ball, pill\n%s %.6g",
             distance < 0 ? "penetrating, depth" : "apart, distance", fabs(distance));
    cr_assert(strstr(hud, expected) && strstr(hud, "normal (") && strstr(hud, " us"), "the HUD says '%s': %s", expected,
              hud);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(lines[3], "a")), "C clears the selection");
    cr_assert_str_eq(name_of(lines[4], "a"), "pill");
    cr_assert_str_eq(name_of(lines[4], "b"), "ball", "select A B");
    cr_assert_float_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(lines[4], "answer"), "distance")->valuedouble, distance,
                       1e-9, "the same pair the other way round");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(lines[5], "a")), "a click on no shape (the sky) ends the selection");
    for (int i = 0; i < 6; i++)
        cJSON_Delete(lines[i]);
    remove_dir(dir);
}

Test(viewer_collide, ctrl_drag_moves_the_shape_by_the_drags_world_displacement_alt_drag_turns_it, .init = init,
     .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    // Far from any shape (the drag takes the last selected, the pill), in two pieces, then a turn.
    run_result r = view_script(dir, PILE_JSON,
                               "select ball pill\nprint-state\nprint-pair\ndrag 700 500 780 460 ctrl-left\n"
                               "drag 700 500 690 530 ctrl-left\nprint-pair\ndrag 600 100 650 100 alt-left\nprint-pair\n"
                               "print-state\n");
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *lines[8];
    cr_assert_eq(json_lines(r.out, lines, 8), 5, "%s", r.out);
    camera c = camera_of(lines[0]);
    const cJSON *before = cJSON_GetObjectItem(lines[1], "b"), *after = cJSON_GetObjectItem(lines[2], "b");
    vec p0 = vec_of(before, "position"), p1 = vec_of(after, "position");
    // 70 pixels right and 10 up in all, at the pill's depth: a pixel there is 2 d tan(fov / 2) / 600.
    double pixel = 2.0 * dot(sub(p0, c.eye), c.forward) * c.tan_half_fov / 600.0;
    vec expected = add(p0, add(scale(c.right, 70.0 * pixel), scale(c.up, 10.0 * pixel)));
    cr_assert(fabs(p1.x - expected.x) < 1e-4 && fabs(p1.y - expected.y) < 1e-4 && fabs(p1.z - expected.z) < 1e-4,
              "moved to (%g, %g, %g), expected (%g, %g, %g)", p1.x, p1.y, p1.z, expected.x, expected.y, expected.z);
    cr_assert_float_eq(dot(sub(p1, c.eye), c.forward), dot(sub(p0, c.eye), c.forward), 1e-5,
                       "in the view plane: depth %.9g, was %.9g", dot(sub(p1, c.eye), c.forward),
                       dot(sub(p0, c.eye), c.forward));
    vec a0 = vec_of(cJSON_GetObjectItem(lines[1], "a"), "position"),
        a1 = vec_of(cJSON_GetObjectItem(lines[2], "a"), "position");
    cr_assert(a0.x == a1.x && a0.y == a1.y && a0.z == a1.z, "the other shape stays");
    cr_assert_float_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(lines[2], "answer"), "distance")->valuedouble,
                       ball_pill_distance(lines[2]), 1e-6, "the answer follows the move");
    // alt + 50 pixels across: 25 degrees about the view's up axis, about the shape's own centre.
    const cJSON *turned = cJSON_GetObjectItem(lines[3], "b");
    double q0[4], q1[4];
    quat_of(after, q0);
    quat_of(turned, q1);
    vec p2 = vec_of(turned, "position");
    cr_assert(fabs(p2.x - p1.x) < 1e-6 && fabs(p2.y - p1.y) < 1e-6 && fabs(p2.z - p1.z) < 1e-6, "it turns in place");
    for (int k = 0; k < 3; k++) {
        vec e = {k == 0, k == 1, k == 2};
        vec got = rotate(q1, e), before_turn = rotate(q0, e);
        // Rodrigues: the old axis turned 25 degrees about the view's up axis.
        double angle = 25.0 * M_PI / 180.0;
        vec want = add(add(scale(before_turn, cos(angle)), scale(cross(c.up, before_turn), sin(angle))),
                       scale(c.up, dot(c.up, before_turn) * (1 - cos(angle))));
        cr_assert(fabs(got.x - want.x) < 1e-5 && fabs(got.y - want.y) < 1e-5 && fabs(got.z - want.z) < 1e-5,
                  "local axis %d: (%g, %g, %g), expected (%g, %g, %g)", k, got.x, got.y, got.z, want.x, want.y, want.z);
    }
    cr_assert_float_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(lines[3], "answer"), "distance")->valuedouble,
                       ball_pill_distance(lines[3]), 1e-6, "the answer follows the turn");
    cr_assert_str_eq(cJSON_GetObjectItem(lines[4], "camera")->valuestring,
                     cJSON_GetObjectItem(lines[0], "camera")->valuestring, "the camera stays");
    for (int i = 0; i < 5; i++)
        cJSON_Delete(lines[i]);
    remove_dir(dir);
}

Test(viewer_collide, script_errors_name_the_line, .init = init, .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    static const struct {
        const char *script, *message;
    } cases[] = {
        {"select nobody\n", "script.txt:1: select: no node called 'nobody'"},
        {"print-pair\nselect empty\n", "script.txt:2: select: node 'empty' has no collision shape"},
        {"select rock rock\n", "script.txt:1: select: 'rock' twice"},
        {"select\n", "script.txt:1: select: expected 'select NODE [NODE2]'"},
        {"drag 1 1 9 9 meta-left\n", "unknown button 'meta-left'"},
        {"click 1 1 ctrl\n", "click: unknown modifier 'ctrl'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = view_script(dir, STEPS_JSON, cases[i].script);
        cr_assert(r.exited && r.code != 0, "'%s' fails", cases[i].script);
        cr_assert(strstr(r.err, cases[i].message), "'%s': %s", cases[i].script, r.err);
    }
    remove_dir(dir);
}

/* Two files have the same bytes. */
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
    cr_assert_eq(different, 0, "%ld bytes differ between %s and %s", different, a, b);
}

/// The size of the pictures compared (small: PNG encoding is most of their time).
#define PICTURE "400x300"

/* `softrast collide steps.json --pair PAIR --query QUERY EXTRA... --out OUT`; returns its step count. */
static int collide(const char *pair, const char *query, const char *extra1, const char *extra2, const char *out)
{
    const char *args[16] = {"collide", STEPS_JSON, "--pair", pair, "--query", query, "--out", out, "--size", PICTURE};
    int n = 10;
    if (extra1)
        args[n++] = extra1;
    if (extra2)
        args[n++] = extra2;
    args[n] = NULL;
    run_result r = run(args);
    cr_assert(r.exited && r.code == 0, "softrast collide %s %s: %s", pair, query, r.err);
    const char *steps = strstr(r.out, " steps;");
    cr_assert_not_null(steps, "%s", r.out);
    while (steps > r.out && steps[-1] >= '0' && steps[-1] <= '9')
        steps--;
    return atoi(steps);
}

Test(viewer_collide, trace_views_save_softrast_collides_pictures_of_the_same_state, .init = init, .timeout = 300)
{
    char dir[64];
    make_temp_dir(dir);
    char script[2048];
    // The HUD off (its panel is the viewer's own); GJK world, Minkowski, both one step back; SAT's
    // first step both; EPA of the drum and the block in the world view at its last step.
    snprintf(script, sizeof script,
             "select rock gem\nkey U\nkey G\nsave %s/v-gjk.png\nkey M\nsave %s/v-gjk-m.png\nkey M\nkey ,\n"
             "save %s/v-gjk-both-1.png\nkey T\nkey ,\nkey ,\nkey ,\nkey .\nprint-pair\nsave %s/v-sat-both.png\n"
             "select drum block\nkey E\nprint-pair\nsave %s/v-epa.png\n",
             dir, dir, dir, dir, dir);
    run_result r = view_script_sized(dir, STEPS_JSON, PICTURE, script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *lines[4];
    cr_assert_eq(json_lines(r.out, lines, 4), 2, "%s", r.out);
    char a[128], b[128], step[16];
    snprintf(a, sizeof a, "%s/c-gjk.png", dir);
    int gjk_steps = collide("rock,gem", "gjk", NULL, NULL, a);
    snprintf(b, sizeof b, "%s/v-gjk.png", dir);
    expect_same_file(a, b);
    snprintf(a, sizeof a, "%s/c-gjk-m.png", dir);
    collide("rock,gem", "gjk", "--minkowski", NULL, a);
    snprintf(b, sizeof b, "%s/v-gjk-m.png", dir);
    expect_same_file(a, b);
    cr_assert_gt(gjk_steps, 1);
    snprintf(step, sizeof step, "%d", gjk_steps - 2);
    snprintf(a, sizeof a, "%s/c-gjk-both-1.png", dir);
    run_result c = run((const char *[]){"collide", STEPS_JSON, "--pair", "rock,gem", "--query", "gjk", "--both",
                                        "--step", step, "--out", a, "--size", PICTURE, NULL});
    cr_assert(c.exited && c.code == 0, "%s", c.err);
    snprintf(b, sizeof b, "%s/v-gjk-both-1.png", dir);
    expect_same_file(a, b);
    // SAT: three steps back from the last and one forward; print-pair says which.
    const cJSON *sat_step = cJSON_GetObjectItem(lines[0], "step"), *sat_steps = cJSON_GetObjectItem(lines[0], "steps");
    cr_assert_str_eq(cJSON_GetObjectItem(lines[0], "query")->valuestring, "sat");
    cr_assert_str_eq(cJSON_GetObjectItem(lines[0], "view")->valuestring, "both");
    snprintf(a, sizeof a, "%s/c-sat.png", dir);
    cr_assert_eq(collide("rock,gem", "sat", NULL, NULL, a), sat_steps->valueint, "the command's SAT step count");
    cr_assert_eq(sat_step->valueint, sat_steps->valueint - 3, ", , , . from the last");
    snprintf(step, sizeof step, "%d", sat_step->valueint);
    run_result d = run((const char *[]){"collide", STEPS_JSON, "--pair", "rock,gem", "--query", "sat", "--both",
                                        "--step", step, "--out", a, "--size", PICTURE, NULL});
    cr_assert(d.exited && d.code == 0, "%s", d.err);
    snprintf(b, sizeof b, "%s/v-sat-both.png", dir);
    expect_same_file(a, b);
    // A new pair starts in the scene: E opens the world view at the last step.
    cr_assert_str_eq(cJSON_GetObjectItem(lines[1], "view")->valuestring, "world");
    snprintf(a, sizeof a, "%s/c-epa.png", dir);
    cr_assert_eq(collide("drum,block", "epa", NULL, NULL, a), cJSON_GetObjectItem(lines[1], "steps")->valueint);
    snprintf(b, sizeof b, "%s/v-epa.png", dir);
    expect_same_file(a, b);
    for (int i = 0; i < 2; i++)
        cJSON_Delete(lines[i]);
    remove_dir(dir);
}

Test(viewer_collide, keys_step_through_the_trace_and_cycle_the_views_only_with_a_pair, .init = init, .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    // M without a pair is the mesh BVH overlay (a click in a trace view picks nothing); with one it cycles the views; G on the GJK trace
    // is the scene again, and again the trace; , stops at 0 and . at the last; Home is the last; moving a shape runs the
    // trace again.
    run_result r = view_script(dir, STEPS_JSON,
                               "select rock\nkey M\nprint-state\nkey M\nselect rock gem\nprint-pair\nkey M\nprint-pair\n"
                               "key M\nprint-pair\nkey M\nprint-pair\nkey G\nprint-pair\nkey G\nprint-pair\n"
                               "key ,\nkey ,\nkey ,\nkey ,\nkey ,\nprint-pair\nkey .\nprint-pair\nkey .\nkey .\nkey .\n"
                               "key .\nprint-pair\nkey ,\nkey ,\nkey Home\nprint-pair\nprint-state\n"
                               "drag 400 300 300 300 ctrl-left\nprint-pair\nclick 5 5\nprint-pair\n");
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *lines[16];
    int count = json_lines(r.out, lines, 16);
    cr_assert_eq(count, 14, "%s", r.out);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(lines[0], "on"), "mesh_bvh")),
              "M with one shape selected toggles the mesh BVH");
    static const char *const views[] = {"scene", "minkowski", "both", "world", "scene"};
    for (int i = 0; i < 5; i++)
        cr_assert_str_eq(cJSON_GetObjectItem(lines[1 + i], "view")->valuestring, views[i], "line %d", i + 1);
    cr_assert_str_eq(cJSON_GetObjectItem(lines[6], "view")->valuestring, "world", "G from the scene: the world view");
    int steps = cJSON_GetObjectItem(lines[7], "steps")->valueint;
    cr_assert(steps >= 2 && steps <= 4, "rock, gem: %d GJK steps", steps);
    cr_assert_eq(cJSON_GetObjectItem(lines[7], "step")->valueint, 0, "five , from the last stop at 0");
    cr_assert_eq(cJSON_GetObjectItem(lines[8], "step")->valueint, 1);
    cr_assert_eq(cJSON_GetObjectItem(lines[9], "step")->valueint, steps - 1, ". stops at the last");
    cr_assert_eq(cJSON_GetObjectItem(lines[10], "step")->valueint, steps - 1, "Home: the last");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(lines[11], "on"), "mesh_bvh")),
              "M with a pair leaves the mesh BVH off, as the second M without a pair left it");
    double before = cJSON_GetObjectItem(cJSON_GetObjectItem(lines[10], "answer"), "distance")->valuedouble;
    double after = cJSON_GetObjectItem(cJSON_GetObjectItem(lines[12], "answer"), "distance")->valuedouble;
    cr_assert_lt(after, before - 0.05, "a drag in the trace view moves the gem towards the rock: %g, %g", before,
                 after);
    cr_assert_str_eq(cJSON_GetObjectItem(lines[12], "view")->valuestring, "world");
    cr_assert_str_eq(name_of(lines[13], "b"), "gem", "a click in a trace view (no scene shown) keeps the pair");
    for (int i = 0; i < count; i++)
        cJSON_Delete(lines[i]);
    remove_dir(dir);
}

Test(viewer_collide, contacts_closest_and_pairs_keys_draw_softrast_renders_collision_overlays, .init = init,
     .timeout = 120)
{
    char dir[64];
    make_temp_dir(dir);
    char script[512];
    snprintf(script, sizeof script,
             "print-state\nkey I\nprint-state\nkey D\nkey A\nkey U\nsave %s/viewer.bmp\nprint-state\nkey U\nkey I\n"
             "key D\nkey A\nprint-state\n",
             dir);
    run_result r = view_script_sized(dir, PILE_JSON, "640x360", script);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *states[4];
    cr_assert_eq(json_lines(r.out, states, 4), 4, "%s", r.out);
    const char *hud = cJSON_GetObjectItem(states[0], "hud")->valuestring;
    cr_assert_null(strstr(hud, "collide "), "no collision pass without its overlays: %s", hud);
    const cJSON *on = cJSON_GetObjectItem(states[1], "on");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(on, "contacts")) && cJSON_IsFalse(cJSON_GetObjectItem(on, "closest")));
    hud = cJSON_GetObjectItem(states[1], "hud")->valuestring;
    cr_assert(strstr(hud, "collide 13 shapes") && strstr(hud, " contacts, "), "the HUD counts the pass: %s", hud);
    const char *overlays = cJSON_GetObjectItem(states[2], "overlays")->valuestring;
    cr_assert_str_eq(overlays, "contacts,closest,pairs");
    char out[128], viewer_bmp[128];
    snprintf(out, sizeof out, "%s/render.bmp", dir);
    snprintf(viewer_bmp, sizeof viewer_bmp, "%s/viewer.bmp", dir);
    run_result render = run((const char *[]){"render", PILE_JSON, "--size", "640x360", "--camera",
                                             cJSON_GetObjectItem(states[2], "camera")->valuestring, "--overlay",
                                             overlays, "--out", out, NULL});
    cr_assert(render.exited && render.code == 0, "%s", render.err);
    expect_same_file(viewer_bmp, out);
    cr_assert_str_eq(cJSON_GetObjectItem(states[3], "overlays")->valuestring, "hud", "I, D, A again: off");
    for (int i = 0; i < 4; i++)
        cJSON_Delete(states[i]);
    remove_dir(dir);
}
