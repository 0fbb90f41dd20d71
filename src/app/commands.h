/* commands.h — the sub-commands of the `softrast` program. Each takes the arguments after its
 * name (argv[0] is the sub-command name), prints errors to stderr and returns the exit status. */
#ifndef SR_APP_COMMANDS_H
#define SR_APP_COMMANDS_H

#include <stdio.h>

int sr_cmd_render(int argc, char **argv);       /* cmd_render.c */
int sr_cmd_bench_raster(int argc, char **argv); /* cmd_bench_raster.c: softrast bench raster */
int sr_cmd_bench_bvh(int argc, char **argv);    /* cmd_bench_bvh.c: softrast bench bvh */
int sr_cmd_raycast(int argc, char **argv);      /* cmd_raycast.c */
int sr_cmd_pick(int argc, char **argv);         /* cmd_pick.c */
int sr_cmd_bench_scene(int argc, char **argv);  /* cmd_bench_scene.c: softrast bench scene */
int sr_cmd_view(int argc, char **argv);         /* cmd_view.c */
int sr_cmd_collide(int argc, char **argv);      /* cmd_collide.c */
/* cmd_collide_steps.c: softrast collide SCENE.json --pair A,B --query gjk|epa|sat */
int sr_cmd_collide_steps(int argc, char **argv);
void sr_cmd_collide_steps_usage(FILE *out);
int sr_cmd_bench_collide(int argc, char **argv); /* cmd_bench_collide.c: softrast bench collide */
int sr_cmd_replay(int argc, char **argv);       /* cmd_replay.c */

/* cmd_raycast.c: CLOCK_MONOTONIC in seconds. */
double sr_cmd_seconds(void);

#endif
