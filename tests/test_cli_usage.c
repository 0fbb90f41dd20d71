/* test_cli_usage.c — the rules every `softrast` command follows, checked across all of them: one
 * exit-status rule (0 success, 1 a failure of a file or of the work, 2 a usage error, with one
 * line on stderr naming what was wrong), --version against meson.build's project version, a
 * working --help for every command (`bench --help` and `help COMMAND` included) that names no
 * file the repository lacks, and the same --threads limit (SR_MAX_THREADS) everywhere. */
#include <criterion/criterion.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/raster.h>

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

/* A folder with a small mesh, a scene file with no nodes and a file that is not an OBJ. */
typedef struct fixture {
    char dir[64], mesh[128], scene[128], notes[128], out[160], missing[128];
} fixture;

static fixture make_fixture(void)
{
    fixture f;
    make_temp_dir(f.dir);
    snprintf(f.mesh, sizeof f.mesh, "%s/mesh.obj", f.dir);
    snprintf(f.scene, sizeof f.scene, "%s/scene.json", f.dir);
    snprintf(f.notes, sizeof f.notes, "%s/notes.obj", f.dir);
    snprintf(f.out, sizeof f.out, "%s/out.png", f.dir);
    snprintf(f.missing, sizeof f.missing, "%s/missing.obj", f.dir);
    FILE *file = fopen(f.mesh, "w");
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n", file);
    fclose(file);
    file = fopen(f.scene, "w");
    fputs("{\"nodes\": []}\n", file);
    fclose(file);
    file = fopen(f.notes, "w");
    fputs("these are notes, not a mesh\n", file);
    fclose(file);
    return f;
}

/* Runs `args`; the exit status must be `code` and stderr one line containing `expected`. */
static int exit_cases;

static void expect_exit(const char *const *args, int code, const char *expected)
{
    if (SANITIZED && exit_cases++ % 3 != 0)
        return; // a third of the cases under the sanitizers
    run_result r = run(args);
    char command[256] = "";
    for (int i = 0; args[i] && strlen(command) < 200; i++)
        snprintf(command + strlen(command), sizeof command - strlen(command), "%s ", args[i]);
    cr_assert(r.exited, "%s: killed by signal %d", command, r.signal);
    cr_assert_eq(r.code, code, "%s: exit %d, expected %d; stderr: %s", command, r.code, code, r.err);
    cr_assert(strstr(r.err, expected), "%s: stderr does not say '%s': %s", command, expected, r.err);
    // One line naming what was wrong (the usage text itself only for a missing or unknown command).
    if (code == 2 && !strstr(r.err, "usage:"))
        cr_assert(strchr(r.err, '\n') == strrchr(r.err, '\n'), "%s: more than one line: %s", command, r.err);
}

Test(exit_status, usage_errors_exit_2_and_failures_exit_1, .timeout = 120)
{
    fixture f = make_fixture();
    // Usage errors: the command line is wrong, whatever the files say.
    expect_exit((const char *[]){NULL}, 2, "usage:");
    expect_exit((const char *[]){"paint", NULL}, 2, "unknown command 'paint'");
    expect_exit((const char *[]){"render", f.mesh, "--frobnicate", NULL}, 2, "--frobnicate");
    expect_exit((const char *[]){"render", f.mesh, "--size", "0x0", NULL}, 2, "--size");
    expect_exit((const char *[]){"render", f.mesh, "--camera", "sideways", NULL}, 2, "sideways");
    expect_exit((const char *[]){"render", f.mesh, "--camera", "fit:fov=0", NULL}, 2, "fov");
    // Well formed but not for this scene (the fitted camera looks at the origin): still usage.
    expect_exit((const char *[]){"render", f.mesh, "--camera", "fit:eye=0,0,0", "--out", f.out, NULL}, 2, "same point");
    expect_exit((const char *[]){"render", f.mesh, "--camera", "bench", "--up", "z", "--out", f.out, NULL}, 2, "--up");
    expect_exit((const char *[]){"render", f.scene, "--up", "z", "--out", f.out, NULL}, 2, "--up");
    expect_exit((const char *[]){"render", f.mesh, "--up", "x", NULL}, 2, "--up: 'x'");
    expect_exit((const char *[]){"render", f.mesh, "--debug-camera", "bench", NULL}, 2, "--debug-camera");
    expect_exit((const char *[]){"pick", f.mesh, NULL}, 2, "no points");
    expect_exit((const char *[]){"pick", f.mesh, "--at", "5000,1", NULL}, 2, "--at: point 1");
    expect_exit((const char *[]){"pick", f.mesh, "--at", "1,1", "--camera", "fit:zoom=2", NULL}, 2, "zoom");
    expect_exit((const char *[]){"view", f.scene, "--up", "z", NULL}, 2, "--up");
    expect_exit((const char *[]){"view", "--size", "1x0", NULL}, 2, "--size");
    expect_exit((const char *[]){"raycast", f.mesh, "--out", f.out, NULL}, 2, "--rays");
    expect_exit((const char *[]){"bench", NULL}, 2, "missing benchmark name");
    expect_exit((const char *[]){"bench", "paint", NULL}, 2, "unknown benchmark 'paint'");
    expect_exit((const char *[]){"bench", "raster", NULL}, 2, "MESH.obj");
    expect_exit((const char *[]){"bench", "bvh", f.mesh, "--runs", "0", NULL}, 2, "--runs");
    expect_exit((const char *[]){"bench", "scene", f.mesh, "--up", "z", NULL}, 2, "--up");
    expect_exit((const char *[]){"bench", "scene", "--camera", "eye=1", NULL}, 2, "eye");
    // Failures: a file that is missing or not what it should be.
    expect_exit((const char *[]){"render", f.missing, "--out", f.out, NULL}, 1, "missing.obj");
    expect_exit((const char *[]){"render", f.notes, "--out", f.out, NULL}, 1, "notes.obj");
    expect_exit((const char *[]){"pick", f.missing, "--at", "1,1", NULL}, 1, "missing.obj");
    expect_exit((const char *[]){"pick", f.mesh, "--points", f.missing, NULL}, 1, "missing.obj");
    expect_exit((const char *[]){"view", f.missing, NULL}, 1, "missing.obj");
    expect_exit((const char *[]){"view", "--script", f.missing, NULL}, 1, "missing.obj");
    expect_exit((const char *[]){"raycast", f.missing, "--primary", "8x8", "--out", f.out, NULL}, 1, "missing.obj");
    expect_exit((const char *[]){"bench", "raster", f.missing, NULL}, 1, "missing.obj");
    expect_exit((const char *[]){"bench", "bvh", f.missing, NULL}, 1, "missing.obj");
    expect_exit((const char *[]){"bench", "scene", f.missing, "--runs", "1", NULL}, 1, "missing.obj");
    cr_assert_eq(count_entries(f.dir), 3, "an output was left behind");
    remove_dir(f.dir);
}

/* --threads takes 1 to SR_MAX_THREADS in every command that has it. */
Test(threads, every_command_takes_the_same_range, .timeout = 120)
{
    fixture f = make_fixture();
    char limit[16], past[16], range[64];
    snprintf(limit, sizeof limit, "%d", SR_MAX_THREADS);
    snprintf(past, sizeof past, "%d", SR_MAX_THREADS + 1);
    snprintf(range, sizeof range, "out of range [1, %d]", SR_MAX_THREADS);
    const char *const commands[][8] = {
        {"render", f.mesh, "--size", "16x16", "--out", f.out},
        {"pick", f.mesh, "--size", "16x16", "--at", "8,8"},
        {"raycast", f.mesh, "--primary", "16x16", "--out", f.out},
        {"bench", "raster", f.mesh, "--size", "16x16", "--runs", "1"},
        {"bench", "scene", f.mesh, "--size", "16x16", "--runs", "1"},
        {"view", f.mesh, "--size", "16x16", "--hidden", "--benchmark", "1"},
    };
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        const char *args[12];
        int n = 0;
        for (; n < 8 && commands[c][n]; n++)
            args[n] = commands[c][n];
        args[n] = "--threads", args[n + 1] = past, args[n + 2] = NULL;
        expect_exit(args, 2, range);
        // The limit itself is accepted (the commands that draw or cast little: the benchmarks'
        // and the viewer's runs would only repeat the same parsing, slowly under sanitizers).
        run_result r;
        if (c < 3) {
            args[n + 1] = limit;
            r = run(args);
            cr_assert(r.exited && r.code == 0, "%s --threads %s: exit %d: %s", args[0], limit, r.code, r.err);
        }
        if (SANITIZED)
            continue;
        // The help says the same range.
        const char *help[4] = {args[0], strcmp(args[0], "bench") == 0 ? args[1] : "--help", "--help", NULL};
        if (strcmp(args[0], "bench") != 0)
            help[2] = NULL;
        r = run(help);
        char said[32];
        snprintf(said, sizeof said, "1 to %d", SR_MAX_THREADS);
        cr_assert(r.code == 0 && strstr(r.out, said), "%s --help does not say '%s'", args[0], said);
    }
    remove_dir(f.dir);
}

/* meson.build's project version, read here from the file. */
static void project_version(char *version, size_t size)
{
    char text[8192];
    read_text(SR_SOURCE_DIR "/meson.build", text, sizeof text);
    const char *at = strstr(text, " version :"); // project()'s, not meson_version's
    cr_assert_not_null(at, "meson.build has no version");
    at = strchr(at, '\'');
    cr_assert_not_null(at);
    const char *end = strchr(at + 1, '\'');
    snprintf(version, size, "%.*s", (int)(end - at - 1), at + 1);
}

Test(version, is_meson_projects)
{
    char version[64], expected[128];
    project_version(version, sizeof version);
    snprintf(expected, sizeof expected, "softrast %s\n", version);
    const char *forms[] = {"--version", "-V", "version"};
    for (size_t i = 0; i < 3; i++) {
        run_result r = run((const char *[]){forms[i], NULL});
        cr_assert(r.exited && r.code == 0, "%s: exit %d", forms[i], r.code);
        cr_assert_str_eq(r.out, expected, "%s", forms[i]);
    }
    run_result r = run((const char *[]){"help", NULL});
    cr_assert(strstr(r.out, "--version"), "the overview names --version");
}

/* Every command's --help works and is the same as `softrast help COMMAND`; it states the exit
 * statuses; no help text names a file the repository does not have (the README's benchmark scene is not in a
 * user's clone: the benchmark scene is described in the text). */
Test(help, every_command_has_one_and_names_only_files_that_exist, .timeout = 60)
{
    const char *const commands[][4] = {{"render"},          {"pick"},         {"view"},          {"raycast"}, {"bench"},
                                       {"bench", "raster"}, {"bench", "bvh"}, {"bench", "scene"}};
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        const char *args[4] = {commands[c][0], commands[c][1] ? commands[c][1] : "--help",
                               commands[c][1] ? "--help" : NULL, NULL};
        run_result r = run(args);
        cr_assert(r.exited && r.code == 0, "%s %s --help: exit %d: %s", args[0], args[1], r.code, r.err);
        cr_assert(strncmp(r.out, "usage: softrast ", 16) == 0, "%s", r.out);
        if (!SANITIZED) {
            const char *via_help[4] = {"help", commands[c][0], commands[c][1], NULL};
            run_result h = run(via_help);
            cr_assert(h.exited && h.code == 0 && strcmp(h.out, r.out) == 0, "softrast help %s differs from --help",
                      commands[c][0]);
        }
        if (commands[c][1] || strcmp(commands[c][0], "bench") != 0)
            cr_assert(strstr(r.out, "Exit status: 0") || strstr(r.out, "exit status"),
                      "%s %s --help does not state the exit statuses", args[0], args[1]);
        cr_assert_null(strstr(r.out, "BENCH_SCENE"), "%s --help points to the README's benchmark scene", args[0]);
        // Every NAME.md or path/NAME.ext the text mentions exists in the source tree.
        for (const char *p = r.out; (p = strstr(p, ".md")) != NULL; p += 3) {
            const char *start = p;
            while (start > r.out && (isalnum((unsigned char)start[-1]) || strchr("_-/.", start[-1])))
                start--;
            char path[512];
            snprintf(path, sizeof path, "%s/%.*s.md", SR_SOURCE_DIR, (int)(p - start), start);
            cr_assert(access(path, F_OK) == 0, "%s --help names %.*s.md, which the repository lacks", args[0],
                      (int)(p - start), start);
        }
    }
    run_result r = run((const char *[]){"bench", "--help", NULL});
    cr_assert(strstr(r.out, "raster") && strstr(r.out, "bvh") && strstr(r.out, "scene"), "%s", r.out);
    // Every scene command describes the benchmark scene it can draw.
    const char *scene_commands[][4] = {{"render", "--help"}, {"pick", "--help"}, {"bench", "scene", "--help"}};
    for (size_t c = 0; c < 3; c++) {
        r = run(scene_commands[c]);
        cr_assert(strstr(r.out, "--camera SPEC") && strstr(r.out, "The benchmark scene") && strstr(r.out, "(0,0,3)"),
                  "%s --help does not describe --camera bench", scene_commands[c][0]);
    }
}
