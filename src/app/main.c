/* main.c — the `softrast` program: dispatches to the sub-commands (commands.h), prints the
 * overview (help), the version, and the benchmarks' list (bench --help). Exit statuses follow one
 * rule everywhere (args.h): 0 success, 1 failure, 2 usage error. */
#include <stdio.h>
#include <string.h>

#include <softrast/core.h>
#include <softrast/raster.h>

#include "args.h"
#include "commands.h"

#ifndef SR_VERSION
#error "SR_VERSION (the project's version) comes from src/app/meson.build"
#endif

static void print_usage(FILE *out)
{
    fprintf(out, "usage: softrast COMMAND [ARGS]\n"
                 "\n"
                 "commands:\n"
                 "  render [SCENE.json|MESH.obj] [--out FILE.bmp|.png] [--size WxH] [--camera SPEC]\n"
                 "         [--up y|z] [--shader NAME] [--overlay LIST] [--debug-camera SPEC] [--depth FILE]\n"
                 "         [--ids FILE] [--stats] [--no-culling] [--threads N] [--margin D]\n"
                 "                                          render a scene, a mesh or the demo scene to a file\n"
                 "  pick [SCENE.json|MESH.obj] [--size WxH] [--camera SPEC] [--up y|z]\n"
                 "       (--at X,Y ... | --points FILE) [--threads N]\n"
                 "                                          what is under pixels of that picture, as JSON lines\n"
                 "  view [SCENE.json|MESH.obj] [--size WxH] [--up y|z] [--threads N] [--script FILE]\n"
                 "       [--benchmark N]                    the interactive viewer (orbit, pick, overlays)\n"
                 "  raycast MESH.obj (--rays RAYS | --primary WxH) --out HITS [--any-hit] [--threads N]\n"
                 "                                          cast a batch of rays against a mesh\n"
                 "  collide --pairs FILE [--out FILE] [--query signed|distance|penetration|intersect|sat]\n"
                 "                                          collision queries on pairs of convex shapes, as JSON lines\n"
                 "  collide SCENE.json --pair A,B --query gjk|epa|sat [--step N] [--minkowski|--both] (--out FILE.png |\n"
                 "          --steps DIR)                    a query on two nodes' shapes drawn step by step\n"
                 "  bench raster MESH.obj [--runs N] [--size WxH] [--threads N]\n"
                 "  bench bvh MESH.obj [--runs N]\n"
                 "  bench scene [SCENE.json|MESH.obj] [--runs N] [--size WxH] [--threads N] [--camera SPEC]\n"
                 "              [--up y|z]\n"
                 "  bench collide --pairs FILE [--runs N]   benchmarks, one JSON line each\n"
                 "  help [COMMAND]                          this text, or a command's (as COMMAND --help)\n"
                 "  --version, -V                           the version\n"
                 "\n"
                 "A mesh opens as a model viewer shows it (a three-quarter view that fits it, a light that\n"
                 "turns with the camera, its vertex colours); --camera bench shows the benchmark scene the\n"
                 "bench commands measure instead. Run 'softrast COMMAND --help' for the options of a command.\n"
                 "SOFTRAST_ISA=sse2|avx2|avx512 caps the instruction set of the run-time chosen kernels (any\n"
                 "other value is an error). Exit status: 0 success, 1 failure (a file, the work), 2 usage\n"
                 "error (the command line).\n");
}

static void print_bench_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast bench raster MESH.obj [--runs N] [--size WxH] [--threads N]\n"
            "       softrast bench bvh MESH.obj [--runs N]\n"
            "       softrast bench scene [SCENE.json | MESH.obj] [--runs N] [--size WxH] [--threads N]\n"
            "                            [--camera SPEC] [--up y|z]\n"
            "       softrast bench collide --pairs FILE [--runs N]\n"
            "\n"
            "Benchmarks of the benchmark scene (a mesh normalised to [-1,1]^3 seen from (0,0,3) with a\n"
            "fixed light; 'softrast bench raster --help' describes it), each printing one JSON line:\n"
            "  raster   the frame time of its lambert render (clear + draw), --threads 1 to %d\n"
            "  bvh      BVH build time and quality, and its primary rays per second (one thread)\n"
            "  scene    a scene's stages: load, BVH builds, update, culling, frame, picks\n"
            "  collide  the collision queries over a pairs file: median ns per query by kind\n"
            "Run 'softrast bench NAME --help' for the options of each.\n",
            SR_MAX_THREADS);
}

/* Runs `command` with `argc` arguments (argv[0] is its name); -1 when there is no such command. */
static int dispatch(const char *command, int argc, char **argv)
{
    if (strcmp(command, "render") == 0)
        return sr_cmd_render(argc, argv);
    if (strcmp(command, "view") == 0)
        return sr_cmd_view(argc, argv);
    if (strcmp(command, "raycast") == 0)
        return sr_cmd_raycast(argc, argv);
    if (strcmp(command, "pick") == 0)
        return sr_cmd_pick(argc, argv);
    if (strcmp(command, "collide") == 0)
        return sr_cmd_collide(argc, argv);
    if (strcmp(command, "bench") == 0) {
        if (argc < 2) {
            fputs("softrast bench: missing benchmark name (raster, bvh, scene or collide; see softrast bench --help)\n", stderr);
            return SR_EXIT_USAGE;
        }
        if (sr_args_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
            print_bench_usage(stdout);
            return 0;
        }
        if (strcmp(argv[1], "raster") == 0)
            return sr_cmd_bench_raster(argc - 1, argv + 1);
        if (strcmp(argv[1], "bvh") == 0)
            return sr_cmd_bench_bvh(argc - 1, argv + 1);
        if (strcmp(argv[1], "scene") == 0)
            return sr_cmd_bench_scene(argc - 1, argv + 1);
        if (strcmp(argv[1], "collide") == 0)
            return sr_cmd_bench_collide(argc - 1, argv + 1);
        fprintf(stderr, "softrast bench: unknown benchmark '%s' (expected raster, bvh, scene or collide)\n", argv[1]);
        return SR_EXIT_USAGE;
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return SR_EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp(command, "--version") == 0 || strcmp(command, "-V") == 0 || strcmp(command, "version") == 0) {
        printf("softrast %s\n", SR_VERSION);
        return 0;
    }
    if (strcmp(command, "help") == 0 || sr_args_is_help(command)) {
        if (argc < 3) {
            print_usage(stdout);
            return 0;
        }
        // softrast help COMMAND [NAME]: that command's --help.
        char help[] = "--help";
        bool benchmark = argc > 3 && strcmp(argv[2], "bench") == 0;
        char *arguments[3] = {argv[2], benchmark ? argv[3] : help, help};
        int count = benchmark ? 3 : 2;
        int status = dispatch(argv[2], count, arguments);
        if (status >= 0)
            return status;
        fprintf(stderr, "softrast help: unknown command '%s'\n\n", argv[2]);
        print_usage(stderr);
        return SR_EXIT_USAGE;
    }
    sr_error err = {0};
    if (sr_isa_check_environment(&err) != SR_OK) { /* a mistyped limit would measure the wrong code */
        fprintf(stderr, "softrast: %s\n", err.message);
        return SR_EXIT_USAGE;
    }
    int status = dispatch(command, argc - 1, argv + 1);
    if (status >= 0)
        return status;
    fprintf(stderr, "softrast: unknown command '%s'\n\n", command);
    print_usage(stderr);
    return SR_EXIT_USAGE;
}
