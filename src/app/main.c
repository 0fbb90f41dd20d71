/* main.c — the `softrast` program: dispatches to the sub-commands (commands.h). */
#include <stdio.h>
#include <string.h>

#include <softrast/core.h>

#include "commands.h"

static void print_usage(FILE *out)
{
    fputs("usage: softrast COMMAND [ARGS]\n"
          "\n"
          "commands:\n"
          "  render [SCENE.json|MESH.obj] [--out FILE.bmp|.png] [--size WxH] [--camera SPEC]\n"
          "         [--shader NAME] [--overlay LIST] [--debug-camera SPEC] [--depth FILE]\n"
          "         [--ids FILE] [--stats] [--no-culling] [--threads N]\n"
          "                                          render a scene, a mesh or the demo scene to a file\n"
          "  pick [SCENE.json|MESH.obj] [--size WxH] [--camera SPEC] (--at X,Y ... | --points FILE)\n"
          "       [--threads N]                      what is under pixels of that picture, as JSON lines\n"
          "  view [SCENE.json|MESH.obj] [--size WxH] [--threads N] [--script FILE] [--benchmark N]\n"
          "                                          the interactive viewer (orbit, pick, overlays)\n"
          "  raycast MESH.obj (--rays RAYS | --primary WxH) --out HITS [--any-hit] [--threads N]\n"
          "                                          cast a batch of rays against a mesh\n"
          "  collide --pairs FILE [--out FILE] [--query signed|distance|penetration|intersect|sat]\n"
          "                                          collision queries on pairs of convex shapes, as JSON lines\n"
          "  bench raster MESH.obj [--runs N] [--size WxH] [--threads N]\n"
          "  bench bvh MESH.obj [--runs N]\n"
          "  bench scene [SCENE.json|MESH.obj] [--runs N] [--size WxH] [--threads N] [--camera SPEC]\n"
          "  bench collide --pairs FILE [--runs N]\n"
          "                                          benchmarks, one JSON line each\n"
          "  help                                    this text\n"
          "\n"
          "Run 'softrast COMMAND --help' for the options of a command. SOFTRAST_ISA=sse2|avx2|avx512\n"
          "caps the instruction set of the run-time chosen kernels (any other value is an error).\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const char *command = argv[1];
    if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0) {
        print_usage(stdout);
        return 0;
    }
    sr_error err = {0};
    if (sr_isa_check_environment(&err) != SR_OK) { /* a mistyped limit would measure the wrong code */
        fprintf(stderr, "softrast: %s\n", err.message);
        return 2;
    }
    if (strcmp(command, "render") == 0)
        return sr_cmd_render(argc - 1, argv + 1);
    if (strcmp(command, "view") == 0)
        return sr_cmd_view(argc - 1, argv + 1);
    if (strcmp(command, "raycast") == 0)
        return sr_cmd_raycast(argc - 1, argv + 1);
    if (strcmp(command, "pick") == 0)
        return sr_cmd_pick(argc - 1, argv + 1);
    if (strcmp(command, "collide") == 0)
        return sr_cmd_collide(argc - 1, argv + 1);
    if (strcmp(command, "bench") == 0) {
        if (argc < 3) {
            fputs("softrast bench: missing benchmark name (raster, bvh, scene or collide)\n", stderr);
            return 2;
        }
        if (strcmp(argv[2], "raster") == 0)
            return sr_cmd_bench_raster(argc - 2, argv + 2);
        if (strcmp(argv[2], "bvh") == 0)
            return sr_cmd_bench_bvh(argc - 2, argv + 2);
        if (strcmp(argv[2], "scene") == 0)
            return sr_cmd_bench_scene(argc - 2, argv + 2);
        if (strcmp(argv[2], "collide") == 0)
            return sr_cmd_bench_collide(argc - 2, argv + 2);
        fprintf(stderr, "softrast bench: unknown benchmark '%s' (expected raster, bvh, scene or collide)\n", argv[2]);
        return 2;
    }
    fprintf(stderr, "softrast: unknown command '%s'\n\n", command);
    print_usage(stderr);
    return 2;
}
