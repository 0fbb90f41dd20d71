/* test_cli_render_collide.c — `softrast render` with the collision pass as a user runs it: the
 * counts of --stats against the library's own pass over the same scene file, --margin, the
 * collision overlays drawn into the image, and the error paths (a bad --margin, a scene without
 * shapes). */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <softrast/scene.h>

#include "run_program.h"

#define PILE SR_SOURCE_DIR "/assets/scenes/pile.json"

/* The library's pass over the pile with `margin` (negative: contacts only). */
static sr_collision_stats library_pass(double margin)
{
    sr_scene *scene = NULL;
    sr_collision *collision = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = PILE}, &scene, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_collision_create(&collision, NULL), SR_OK);
    sr_collision_desc desc = {.margin = margin > 0 ? margin : 0, .no_near = margin < 0};
    cr_assert_eq(sr_scene_collide(scene, &desc, collision, &err), SR_OK, "%s", err.message);
    sr_collision_stats stats = collision->stats;
    sr_collision_destroy(collision);
    sr_scene_destroy(scene);
    return stats;
}

static double number(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    cr_assert(cJSON_IsNumber(item), "no number '%s'", key);
    return item->valuedouble;
}

/* Runs render with --stats and the extra arguments; returns the "collision" object's counts. */
static void expect_counts(const char *margin, double library_margin)
{
    char dir[64], out[128];
    make_temp_dir(dir);
    snprintf(out, sizeof out, "%s/pile.png", dir);
    const char *args[16] = {"render", PILE, "--size", "160x90", "--out", out, "--stats"};
    int n = 7;
    if (margin) {
        args[n++] = "--margin";
        args[n++] = margin;
    }
    args[n] = NULL;
    run_result r = run(args);
    cr_assert(r.exited && r.code == 0, "render failed: %s", r.err);
    cJSON *json = cJSON_Parse(r.out);
    cr_assert_not_null(json, "not JSON: %s", r.out);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(json, "collision");
    cr_assert(cJSON_IsObject(c), "no \"collision\" in %s", r.out);
    sr_collision_stats expected = library_pass(library_margin);
    cr_assert_eq(number(c, "shapes"), expected.shapes);
    cr_assert_eq(number(c, "pairs"), expected.pairs);
    cr_assert_eq(number(c, "tests"), expected.tests);
    cr_assert_eq(number(c, "contacts"), expected.contacts);
    cr_assert_eq(number(c, "near"), expected.near);
    cr_assert_eq(number(c, "margin"), library_margin < 0 ? 0.0 : library_margin > 0 ? library_margin : 0.1);
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(c, "ms");
    cr_assert(number(ms, "broadphase") >= 0 && number(ms, "narrowphase") >= 0);
    cJSON_Delete(json);
    remove_dir(dir);
}

Test(cli_render_collide, stats_count_what_the_library_pass_finds)
{
    expect_counts(NULL, 0.0);
    expect_counts("0.25", 0.25);
    expect_counts("0", -1.0);
    sr_collision_stats stats = library_pass(0.0);
    cr_assert_gt(stats.contacts, 3, "pile.json is meant to have contacts");
    cr_assert_gt(stats.near, 2, "pile.json is meant to have near pairs");
}

Test(cli_render_collide, the_overlays_draw_over_the_frame)
{
    char dir[64], plain[128], overlaid[128];
    make_temp_dir(dir);
    snprintf(plain, sizeof plain, "%s/plain.bmp", dir);
    snprintf(overlaid, sizeof overlaid, "%s/overlaid.bmp", dir);
    run_result r = run((const char *[]){"render", PILE, "--size", "320x180", "--out", plain, NULL});
    cr_assert(r.exited && r.code == 0, "%s", r.err);
    r = run((const char *[]){"render", PILE, "--size", "320x180", "--out", overlaid, "--overlay",
                             "contacts,closest,pairs,hud", NULL});
    cr_assert(r.exited && r.code == 0, "%s", r.err);
    long size = file_size(plain);
    cr_assert_eq(size, file_size(overlaid));
    unsigned char *a = read_raw(plain, size), *b = read_raw(overlaid, size);
    long different = 0;
    for (long i = 0; i < size; i++)
        different += a[i] != b[i];
    cr_assert_gt(different, 2000, "the overlays changed only %ld bytes", different);
    free(a);
    free(b);
    remove_dir(dir);
}

Test(cli_render_collide, bad_margins_and_scenes_without_shapes_are_reported)
{
    char dir[64], out[128];
    make_temp_dir(dir);
    snprintf(out, sizeof out, "%s/x.png", dir);
    const char *bad[] = {"-1", "abc", "nan", "1e30", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        run_result r = run((const char *[]){"render", PILE, "--out", out, "--margin", bad[i], NULL});
        cr_assert(r.exited && r.code == 2, "--margin '%s': exit %d", bad[i], r.code);
        cr_assert(strstr(r.err, "--margin"), "--margin '%s': %s", bad[i], r.err);
        cr_assert_eq(count_entries(dir), 0, "an image was written");
    }
    // The demo scene has no shapes: the image is written, with a warning saying why the
    // collision overlays are empty.
    run_result r = run((const char *[]){"render", "--size", "64x36", "--out", out, "--overlay", "contacts", NULL});
    cr_assert(r.exited && r.code == 0, "%s", r.err);
    cr_assert(strstr(r.err, "no collision shapes"), "no warning: %s", r.err);
    remove_dir(dir);
}
