/* cmd_render.c — not written yet. */
#include <stdio.h>

#include "commands.h"

int sr_cmd_render(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "softrast: %s is not implemented yet\n", argv[0]);
    return 1;
}
