/* cmd_collide_steps.c — `softrast collide SCENE.json --pair A,B --query gjk|epa|sat ...`: one pair
 * of a scene's shapes, the query run with a trace, and the state after a step drawn into a PNG
 * (sr_debug_collide_trace), or every step into a folder. Every failure prints one message naming
 * the argument or file and leaves no output file (a --steps folder keeps only whole pictures). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <softrast/debug.h>
#include <softrast/raster.h>
#include <softrast/scene.h>

#include "app_scene.h"
#include "args.h"
#include "commands.h"

#define COMMAND "softrast collide"
#define BACKGROUND 0xff261e1au

static const char *const step_query_names[] = {"gjk", "epa", "sat", NULL};

typedef struct steps_options {
    const char *scene_path;
    const char *pair; ///< "A,B"
    char name_a[256], name_b[256];
    sr_debug_trace_kind query;
    bool query_given;
    int step; ///< -1: the last
    bool minkowski, both; ///< the Minkowski view; both views side by side
    const char *out_path, *steps_dir, *camera;
    int width, height;
    int max_iterations;
} steps_options;

void sr_cmd_collide_steps_usage(FILE *out)
{
    fputs("usage: softrast collide SCENE.json --pair A,B --query gjk|epa|sat [--step N] [--minkowski|--both]\n"
          "                        (--out FILE.png | --steps DIR) [--size WxH] [--camera SPEC]\n"
          "                        [--max-iterations N]\n"
          "\n"
          "Runs one collision query on the shapes of two nodes of a scene file (their \"shape\" keys)\n"
          "and draws the query's work after one of its steps, with a legend saying what every colour\n"
          "is: the two shapes (A orange, B blue), the support points on each, the current witnesses;\n"
          "with --minkowski the Minkowski difference A - B and the origin instead, where GJK's simplex,\n"
          "EPA's polytope and SAT's projected intervals live.\n"
          "\n"
          "options:\n"
          "  --pair A,B        the names of two different nodes that have shapes\n"
          "  --query Q         gjk: GJK distance (the simplex, the search direction, the support\n"
          "                    point, the closest point; pairs of spheres, capsules, points and\n"
          "                    segments, whose distance has a closed form, show GJK's intersection\n"
          "                    test); epa: the penetration depth's EPA (the\n"
          "                    polytope and the face it expands; only pairs with a cylinder or a cone\n"
          "                    whose cores overlap run it: polytopes are answered by SAT, spheres and\n"
          "                    capsules in closed form); sat: the separating-axis test of two\n"
          "                    polytopes without rounding (every axis tested, the two projected\n"
          "                    intervals, the best axis)\n"
          "  --step N          the step drawn, 0 for the first (default: the last, the answer)\n"
          "  --minkowski       the Minkowski view (A - B around the origin) instead of the world view\n"
          "  --both            the world view and the Minkowski view side by side, each half the image\n"
          "  --out FILE        the picture (.png or .bmp)\n"
          "  --steps DIR       every step as DIR/QUERY-NNN.png (the folder is made if absent)\n"
          "  --size WxH        image size (default 800x600)\n"
          "  --camera SPEC     eye=X,Y,Z:target=X,Y,Z[:up=..][:fov=DEG][:near=N][:far=F] over the\n"
          "                    default camera, which frames both shapes (or A - B and the origin)\n"
          "                    looking across the answer's normal\n"
          "  --max-iterations N  cap of each iterative stage, 1 to 100000 (default: 128)\n"
          "\n"
          "Prints the query's answer and the number of steps. Exit status 2 for a bad command line, 1\n"
          "when the scene, the pair or the step cannot be drawn (the message names which).\n",
          out);
}

/* Returns -1 to go on, otherwise the exit status. */
static int parse(int argc, char **argv, steps_options *o)
{
    *o = (steps_options){.step = -1, .width = 800, .height = 600};
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (sr_args_is_help(arg)) {
            sr_cmd_collide_steps_usage(stdout);
            return 0;
        }
        if (strcmp(arg, "--minkowski") == 0 || strcmp(arg, "--both") == 0) {
            *(arg[2] == 'm' ? &o->minkowski : &o->both) = true;
            continue;
        }
        static const char *const valued[] = {"--pair", "--query", "--step", "--out", "--steps",
                                             "--size", "--camera", "--max-iterations", NULL};
        int k = 0;
        while (valued[k] && strcmp(valued[k], arg) != 0)
            k++;
        if (!valued[k]) {
            if (arg[0] == '-' && arg[1] != '\0') {
                snprintf(error, sizeof error, "unknown option '%s' (see softrast collide --help)", arg);
                goto fail;
            }
            if (o->scene_path) {
                snprintf(error, sizeof error, "unexpected argument '%s' (one SCENE.json is read)", arg);
                goto fail;
            }
            o->scene_path = arg;
            continue;
        }
        if (!sr_args_take_value(argc, argv, &i, &value, error))
            goto fail;
        if (strcmp(arg, "--pair") == 0) {
            const char *comma = strchr(value, ',');
            size_t length_a = comma ? (size_t)(comma - value) : 0;
            if (!comma || length_a == 0 || comma[1] == '\0' || strchr(comma + 1, ',')) {
                snprintf(error, sizeof error, "--pair: '%s' is not two node names A,B", value);
                goto fail;
            }
            if (length_a >= sizeof o->name_a || strlen(comma + 1) >= sizeof o->name_b) {
                snprintf(error, sizeof error, "--pair: a node name is longer than 255 bytes");
                goto fail;
            }
            memcpy(o->name_a, value, length_a);
            o->name_a[length_a] = '\0';
            strcpy(o->name_b, comma + 1);
            if (strcmp(o->name_a, o->name_b) == 0) {
                snprintf(error, sizeof error, "--pair: '%s' names node '%s' twice (a pair is two nodes)", value,
                         o->name_a);
                goto fail;
            }
            o->pair = value;
        } else if (strcmp(arg, "--query") == 0) {
            int q = 0;
            while (step_query_names[q] && strcmp(step_query_names[q], value) != 0)
                q++;
            if (!step_query_names[q]) {
                snprintf(error, sizeof error, "--query: '%s' is not one of gjk, epa, sat (with a SCENE and --pair)",
                         value);
                goto fail;
            }
            o->query = (sr_debug_trace_kind)q;
            o->query_given = true;
        } else if (strcmp(arg, "--step") == 0) {
            long step = 0;
            if (!sr_args_parse_int("--step", value, 0, 1000000, &step, error))
                goto fail;
            o->step = (int)step;
        } else if (strcmp(arg, "--out") == 0) {
            if (!sr_app_check_output_path("--out", value, error))
                goto fail;
            if (!sr_args_has_extension(value, ".png") && !sr_args_has_extension(value, ".bmp")) {
                snprintf(error, sizeof error, "--out: '%s' does not end in .png or .bmp", value);
                goto fail;
            }
            o->out_path = value;
        } else if (strcmp(arg, "--steps") == 0) {
            if (value[0] == '\0') {
                snprintf(error, sizeof error, "--steps: empty folder name");
                goto fail;
            }
            o->steps_dir = value;
        } else if (strcmp(arg, "--size") == 0) {
            if (!sr_args_parse_size("--size", value, 8192, &o->width, &o->height, error))
                goto fail;
        } else if (strcmp(arg, "--camera") == 0) {
            sr_camera probe = sr_bench_camera();
            sr_error err = {0};
            if (sr_camera_parse(value, &probe, &probe, &err) != SR_OK) {
                snprintf(error, sizeof error, "--camera: %s", err.message);
                goto fail;
            }
            o->camera = value;
        } else {
            long cap = 0;
            if (!sr_args_parse_int("--max-iterations", value, 1, 100000, &cap, error))
                goto fail;
            o->max_iterations = (int)cap;
        }
    }
    if (!o->scene_path)
        snprintf(error, sizeof error, "missing SCENE.json (see softrast collide --help)");
    else if (!o->pair)
        snprintf(error, sizeof error, "missing --pair A,B (two node names of %s)", o->scene_path);
    else if (!o->query_given)
        snprintf(error, sizeof error, "missing --query gjk|epa|sat");
    else if (!o->out_path && !o->steps_dir)
        snprintf(error, sizeof error, "missing --out FILE.png or --steps DIR");
    else if (o->out_path && o->steps_dir)
        snprintf(error, sizeof error, "--out and --steps: give one (--steps writes every step)");
    else if (o->both && o->minkowski)
        snprintf(error, sizeof error, "--both and --minkowski: give one (--both shows the Minkowski view too)");
    else if (o->both && o->width < 2)
        snprintf(error, sizeof error, "--both: --size %dx%d is too narrow for two views", o->width, o->height);
    else if (o->steps_dir && o->step >= 0)
        snprintf(error, sizeof error, "--step and --steps: give one (--steps writes every step)");
    if (error[0])
        goto fail;
    return -1;
fail:
    fprintf(stderr, COMMAND ": %s\n", error);
    return SR_EXIT_USAGE;
}

/* ---- the pair ---- */

static bool node_shape(const sr_scene *scene, const steps_options *o, const char *name, sr_shape *out)
{
    sr_node_id node = sr_scene_find_node(scene, name);
    if (node.index == 0 && node.generation == 0) {
        fprintf(stderr, COMMAND ": %s: --pair: no node called '%s' (nodes with shapes:", o->scene_path, name);
        uint32_t count = sr_scene_shape_count(scene);
        for (uint32_t i = 0; i < count && i < 24; i++) {
            sr_node_info info;
            if (sr_scene_node(scene, sr_scene_shape_node(scene, i), &info, NULL) == SR_OK)
                fprintf(stderr, "%s %s", i ? "," : "", info.name);
        }
        fprintf(stderr, "%s)\n", count == 0 ? " none" : count > 24 ? ", ..." : "");
        return false;
    }
    sr_node_shape shape;
    if (sr_scene_node_shape(scene, node, &shape, NULL) != SR_OK) {
        fprintf(stderr, COMMAND ": %s: --pair: node '%s' has no \"shape\"\n", o->scene_path, name);
        return false;
    }
    *out = shape.world;
    return true;
}

/* ---- the picture (sr_debug_pair_picture: the viewer's pair views draw the same) ---- */

/* Draws `step` into `fb` and saves it as `path` ("": draw only, for the library's message). */
static bool draw_step(sr_framebuffer *fb, sr_renderer *renderer, const sr_shape *a, const sr_shape *b,
                      const sr_debug_pair_trace *t, const steps_options *o, int step, const char *path)
{
    sr_debug_pair_picture_desc desc = {
        .view = o->both ? SR_DEBUG_PAIR_BOTH : o->minkowski ? SR_DEBUG_PAIR_MINKOWSKI : SR_DEBUG_PAIR_WORLD,
        .step = step,
        .camera = o->camera};
    sr_error err = {0};
    if (sr_debug_pair_picture(renderer, fb, a, b, t, &desc, &err) != SR_OK) {
        if (step >= 0)
            fprintf(stderr, COMMAND ": %s: --pair %s --query %s --step %d: %s\n", o->scene_path, o->pair,
                    step_query_names[o->query], step, err.message);
        else
            fprintf(stderr, COMMAND ": %s: --pair %s --query %s: %s\n", o->scene_path, o->pair,
                    step_query_names[o->query], err.message);
        return false;
    }
    if (!path[0])
        return true;
    if (sr_framebuffer_save(fb, path, &err) != SR_OK) {
        fprintf(stderr, COMMAND ": %s\n", err.message);
        return false;
    }
    return true;
}

static bool make_folder(const char *path)
{
    struct stat info;
    if (stat(path, &info) == 0) {
        if (S_ISDIR(info.st_mode))
            return true;
        fprintf(stderr, COMMAND ": --steps: '%s' is a file, not a folder\n", path);
        return false;
    }
    if (mkdir(path, 0777) != 0) {
        fprintf(stderr, COMMAND ": --steps: cannot make folder '%s': %s\n", path, strerror(errno));
        return false;
    }
    return true;
}

static void print_answer(const steps_options *o, const sr_debug_pair_trace *t, size_t steps)
{
    const sr_collide_result *r = &t->result;
    printf(COMMAND ": %s,%s %s: %zu step%s; ", o->name_a, o->name_b, step_query_names[o->query], steps,
           steps == 1 ? "" : "s");
    if (t->boolean_gjk)
        printf("(the distance has a closed form for these shapes: the steps are those of GJK's intersection "
               "test) ");
    if (t->status == SR_COLLIDE_UNSUPPORTED)
        printf("not supported for these shapes\n");
    else if (r->hit && o->query == SR_DEBUG_TRACE_GJK)
        printf("overlap (GJK finds no depth: --query epa or sat)\n");
    else if (!r->hit)
        printf("apart, %s %.6g\n", o->query == SR_DEBUG_TRACE_SAT ? "separation" : "distance", r->distance);
    else
        printf("overlap, depth %.6g, normal (%.4f, %.4f, %.4f)\n", -r->distance, r->normal.x, r->normal.y,
               r->normal.z);
}

int sr_cmd_collide_steps(int argc, char **argv)
{
    steps_options o;
    int exit_status = parse(argc, argv, &o);
    if (exit_status >= 0)
        return exit_status;
    exit_status = SR_EXIT_FAILURE;
    sr_error err = {0};
    sr_scene *scene = NULL;
    sr_debug_pair_trace t;
    memset(&t, 0, sizeof t);
    sr_renderer *renderer = NULL;
    sr_framebuffer *fb = NULL;
    if (sr_scene_load(&(sr_scene_load_desc){.path = o.scene_path}, &scene, &err) != SR_OK) {
        fprintf(stderr, COMMAND ": %s\n", err.message);
        goto done;
    }
    sr_shape a, b;
    if (!node_shape(scene, &o, o.name_a, &a) || !node_shape(scene, &o, o.name_b, &b))
        goto done;
    if (sr_debug_pair_trace_run(&a, &b, o.query, o.max_iterations, &t, &err) != SR_OK) {
        fprintf(stderr, COMMAND ": %s\n", err.message);
        goto done;
    }
    size_t steps = sr_debug_trace_step_count(&t.trace, o.query);
    print_answer(&o, &t, steps);
    if (sr_renderer_create(&(sr_renderer_desc){0}, &renderer, &err) != SR_OK ||
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = o.width, .height = o.height}, &fb, &err) != SR_OK) {
        fprintf(stderr, COMMAND ": %s\n", err.message);
        goto done;
    }
    if (o.out_path) {
        if (!draw_step(fb, renderer, &a, &b, &t, &o, o.step, o.out_path))
            goto done;
        printf(COMMAND ": wrote %s\n", o.out_path);
    } else {
        if (steps == 0) { // the library's message says why
            draw_step(fb, renderer, &a, &b, &t, &o, -1, "");
            goto done;
        }
        if (!make_folder(o.steps_dir))
            goto done;
        for (size_t i = 0; i < steps; i++) {
            char path[SR_ARGS_PATH_SIZE + 32];
            snprintf(path, sizeof path, "%s/%s-%03zu.png", o.steps_dir, step_query_names[o.query], i);
            if (!draw_step(fb, renderer, &a, &b, &t, &o, (int)i, path))
                goto done;
        }
        printf(COMMAND ": wrote %zu pictures %s/%s-000.png to %s-%03zu.png\n", steps, o.steps_dir,
               step_query_names[o.query], step_query_names[o.query], steps - 1);
    }
    exit_status = 0;
done:
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_debug_pair_trace_free(&t);
    sr_scene_destroy(scene);
    return exit_status;
}
