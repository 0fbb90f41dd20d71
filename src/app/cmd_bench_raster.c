/* cmd_bench_raster.c — not written yet. */
#include <stdio.h>

#include "commands.h"

int sr_cmd_bench_raster(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "softrast: %s is not implemented yet\n", argv[0]);
    return 1;
}
