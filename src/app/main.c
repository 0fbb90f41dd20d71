/* main.c — the `softrast` program: dispatches to the sub-commands (commands.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static void print_usage(FILE *out)
{
    fputs("usage: softrast COMMAND [ARGS]\n"
          "\n"
          "commands:\n"
          "  render [MESH.obj] [--out FILE.bmp|.png] [--size WxH] [--shader NAME]\n"
          "         [--depth FILE] [--ids FILE]      render a mesh (or the demo scene) to a file\n"
          "  raycast MESH.obj (--rays RAYS | --primary WxH) --out HITS [--any-hit] [--threads N]\n"
          "                                          cast a batch of rays against a mesh\n"
          "  bench raster MESH.obj [--runs N] [--size WxH] [--threads N]\n"
          "  bench bvh MESH.obj [--runs N]           benchmarks, one JSON line each\n"
          "  help                                    this text\n"
          "\n"
          "Run 'softrast COMMAND --help' for the options of a command.\n",
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
    if (strcmp(command, "render") == 0)
        return sr_cmd_render(argc - 1, argv + 1);
    if (strcmp(command, "raycast") == 0)
        return sr_cmd_raycast(argc - 1, argv + 1);
    if (strcmp(command, "bench") == 0) {
        if (argc < 3) {
            fputs("softrast bench: missing benchmark name (raster or bvh)\n", stderr);
            return 2;
        }
        if (strcmp(argv[2], "raster") == 0)
            return sr_cmd_bench_raster(argc - 2, argv + 2);
        if (strcmp(argv[2], "bvh") == 0)
            return sr_cmd_bench_bvh(argc - 2, argv + 2);
        fprintf(stderr, "softrast bench: unknown benchmark '%s' (expected raster or bvh)\n", argv[2]);
        return 2;
    }
    fprintf(stderr, "softrast: unknown command '%s'\n\n", command);
    print_usage(stderr);
    return 2;
}
