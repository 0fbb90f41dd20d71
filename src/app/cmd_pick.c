/* cmd_pick.c — `softrast pick`: what is under given pixels of the picture `softrast render`
 * makes with the same scene, size and camera, as one JSON object per point. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/scene.h>

#include "app_scene.h"
#include "args.h"
#include "commands.h"

#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720
/// Longest line of a --points file.
#define POINTS_LINE_MAX 4096

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast pick [SCENE.json | MESH.obj] [--size WxH] [--camera SPEC] [--up y|z]\n"
            "                     (--at X,Y [--at X,Y ...] | --points FILE) [--threads N]\n"
            "\n"
            "Prints what is under each point of the picture that 'softrast render' makes with the same\n"
            "scene (or mesh, or the demo scene when neither is given), --size, --camera and --up: one\n"
            "JSON object per point, one per line, in the order given. X, Y are window coordinates in\n"
            "pixels (origin top left, y down; the centre of pixel (i, j) is (i + 0.5, j + 0.5);\n"
            "fractions allowed). The ray is the one the rasteriser's pixel convention defines, so the\n"
            "triangle hit through a pixel centre is the one drawn there. A mesh is seen as render sees\n"
            "it: normalised to [-1,1]^3, from the three-quarter view that fits it (--camera fit), or as\n"
            "the benchmark scene with --camera bench (below).\n"
            "\n"
            "options:\n"
            "  --at X,Y       a point; repeat for more\n"
            "  --points FILE  points from a file, one 'X Y' per line (blank lines and # comments skipped)\n"
            "  --size WxH     image size, each side 1 to %d (default %dx%d)\n",
            SR_MAX_IMAGE_SIDE, DEFAULT_WIDTH, DEFAULT_HEIGHT);
    sr_app_print_view_help(out, false);
    fprintf(out,
            "  --threads N    pick on N threads, 1 to %d (default 1); the output does not depend on N\n"
            "  --help         this text\n"
            "\n"
            "Each line: {\"x\", \"y\", \"hit\": true|false, and on a hit \"node\": {\"index\", \"name\"},\n"
            "\"triangle\" (index in the node's mesh, file order after triangulation), \"t\" (distance\n"
            "from the eye in world units), \"position\" and \"normal\" (world space; the geometric\n"
            "normal, facing the ray), \"u\", \"v\" (barycentric weights of the triangle's second and\n"
            "third vertex); always \"nodes_visited\" (instance and mesh BVH nodes tested)}.\n"
            "Exit status: 0 done, 1 a file failed (the scene, the points), 2 a usage error.\n"
            "\n",
            SR_MAX_THREADS);
    sr_app_print_bench_scene(out);
}

typedef struct point_list {
    sr_vec2 *points;
    size_t count, capacity;
} point_list;

static bool add_point(point_list *list, float x, float y)
{
    if (list->count == list->capacity) {
        size_t grown = list->capacity ? list->capacity * 2 : 16;
        sr_vec2 *bigger = realloc(list->points, grown * sizeof *bigger);
        if (!bigger)
            return false;
        list->points = bigger;
        list->capacity = grown;
    }
    list->points[list->count++] = sr_vec2_make(x, y);
    return true;
}

/* "X,Y" (from --at) into two finite numbers. */
static bool parse_at(const char *text, float *x, float *y, char error[SR_ARGS_ERROR_SIZE])
{
    const char *comma = strchr(text, ',');
    char left[64];
    size_t length = comma ? (size_t)(comma - text) : 0;
    if (!comma || length == 0 || length >= sizeof left) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "--at: '%s' is not a point X,Y (e.g. 640.5,360.5)", text);
        return false;
    }
    memcpy(left, text, length);
    left[length] = '\0';
    return sr_args_parse_float("--at", left, x, error) && sr_args_parse_float("--at", comma + 1, y, error);
}

/* Reads a --points file: one "X Y" per line. */
static sr_status read_points(const char *path, point_list *list, sr_error *err)
{
    char *text = NULL;
    size_t length = 0;
    sr_status status = sr_file_read(path, (size_t)1 << 30, &text, &length, err);
    if (status != SR_OK)
        return status;
    int line = 1;
    for (char *p = text; status == SR_OK && p < text + length; line++) {
        char *end = memchr(p, '\n', (size_t)(text + length - p));
        if (!end)
            end = text + length;
        *end = '\0';
        char *comment = strchr(p, '#');
        if (comment)
            *comment = '\0';
        char *cursor = p;
        while (*cursor == ' ' || *cursor == '\t' || *cursor == '\r')
            cursor++;
        if (*cursor != '\0') {
            char *after_x = NULL, *after_y = NULL;
            errno = 0;
            float x = strtof(cursor, &after_x);
            float y = after_x != cursor ? strtof(after_x, &after_y) : 0.0f;
            char *rest = after_y;
            while (rest && (*rest == ' ' || *rest == '\t' || *rest == '\r'))
                rest++;
            if (after_x == cursor || !after_y || after_y == after_x || *rest != '\0' || !isfinite(x) || !isfinite(y))
                status = sr_error_set(err, SR_ERROR_PARSE, "%s:%d: expected two finite numbers 'X Y'", path, line);
            else if (!add_point(list, x, y))
                status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory for the points", path);
        }
        p = end + 1;
    }
    sr_free(text);
    return status;
}

static void print_vec3(sr_vec3 v)
{
    printf("[%.9g, %.9g, %.9g]", (double)v.x, (double)v.y, (double)v.z);
}

/* One JSON line per pick (the fields of --help). */
static void print_hit(const sr_scene *scene, sr_vec2 point, const sr_pick_hit *hit)
{
    printf("{\"x\": %.9g, \"y\": %.9g, \"hit\": %s", (double)point.x, (double)point.y, hit->hit ? "true" : "false");
    if (hit->hit) {
        sr_node_info info;
        const char *name = sr_scene_node(scene, hit->node, &info, NULL) == SR_OK ? info.name : "";
        printf(", \"node\": {\"index\": %u, \"name\": ", hit->node.index);
        sr_app_print_json_string(stdout, name);
        printf("}, \"triangle\": %u, \"t\": %.9g, \"position\": ", hit->triangle, (double)hit->t);
        print_vec3(hit->position);
        printf(", \"normal\": ");
        print_vec3(hit->normal);
        printf(", \"u\": %.9g, \"v\": %.9g", (double)hit->u, (double)hit->v);
    }
    printf(", \"nodes_visited\": %u}\n", hit->nodes_visited);
}

int sr_cmd_pick(int argc, char **argv)
{
    const char *scene_path = NULL, *points_path = NULL;
    sr_app_view_options view = {0};
    int width = DEFAULT_WIDTH, height = DEFAULT_HEIGHT;
    long threads = 1;
    point_list list = {0};
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (sr_args_is_help(arg)) {
            print_usage(stdout);
            free(list.points);
            return 0;
        } else if (strcmp(arg, "--at") == 0 || strcmp(arg, "--points") == 0 || strcmp(arg, "--size") == 0 ||
                   strcmp(arg, "--camera") == 0 || strcmp(arg, "--threads") == 0 || strcmp(arg, "--up") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error))
                goto usage_error;
            if (strcmp(arg, "--at") == 0) {
                float x, y;
                if (!parse_at(value, &x, &y, error))
                    goto usage_error;
                if (!add_point(&list, x, y)) {
                    snprintf(error, sizeof error, "out of memory for the points");
                    goto usage_error;
                }
            } else if (strcmp(arg, "--points") == 0) {
                points_path = value;
            } else if (strcmp(arg, "--camera") == 0) {
                if (!sr_app_parse_camera_option(value, &view, error))
                    goto usage_error;
            } else if (strcmp(arg, "--up") == 0) {
                if (!sr_app_parse_up_option(value, &view, error))
                    goto usage_error;
            } else if (strcmp(arg, "--threads") == 0) {
                if (!sr_args_parse_int("--threads", value, 1, SR_MAX_THREADS, &threads, error))
                    goto usage_error;
            } else if (!sr_args_parse_size("--size", value, SR_MAX_IMAGE_SIDE, &width, &height, error)) {
                goto usage_error;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast pick --help)", arg);
            goto usage_error;
        } else if (scene_path) {
            snprintf(error, sizeof error, "more than one scene or mesh given ('%s' and '%s')", scene_path, arg);
            goto usage_error;
        } else {
            scene_path = arg;
        }
    }
    if (points_path && list.count > 0) {
        snprintf(error, sizeof error, "give --at or --points, not both");
        goto usage_error;
    }
    if (!points_path && list.count == 0) {
        snprintf(error, sizeof error, "no points: give --at X,Y or --points FILE (see softrast pick --help)");
        goto usage_error;
    }

    sr_error err = {0};
    sr_app_scene loaded = {0};
    bool usage = false;
    sr_pick_hit *hits = NULL;
    sr_status status = points_path ? read_points(points_path, &list, &err) : SR_OK;
    if (status == SR_OK && list.count == 0)
        status = sr_error_set(&err, SR_ERROR_PARSE, "%s: no points in the file", points_path);
    for (size_t i = 0; status == SR_OK && i < list.count; i++) {
        sr_vec2 p = list.points[i];
        if (!(p.x >= 0.0f && p.x <= (float)width && p.y >= 0.0f && p.y <= (float)height)) {
            status = sr_error_set(&err, SR_ERROR_INVALID_ARGUMENT, "%s: point %zu (%g, %g) is outside the %dx%d image",
                                  points_path ? points_path : "--at", i + 1, (double)p.x, (double)p.y, width, height);
            usage = !points_path; // --at's value is the command line's; a file's points are the file's
        }
    }
    if (status == SR_OK)
        status = sr_app_load_scene(
            &(sr_app_scene_desc){
                .command = "softrast pick", .path = scene_path, .view = view, .width = width, .height = height},
            &loaded, &usage, &err);
    sr_scene *scene = loaded.scene;
    sr_camera camera = loaded.camera;
    if (status == SR_OK && !(hits = calloc(list.count, sizeof *hits)))
        status = sr_error_set(&err, SR_ERROR_OUT_OF_MEMORY, "out of memory for %zu picks", list.count);
    if (status == SR_OK)
        status = sr_scene_pick_many(scene, &camera, width, height, list.points, list.count, (int)threads, hits, &err);
    if (status == SR_OK)
        for (size_t i = 0; i < list.count; i++)
            print_hit(scene, list.points[i], &hits[i]);
    else
        fprintf(stderr, "softrast pick: %s\n", err.message[0] ? err.message : sr_status_name(status));
    free(hits);
    free(list.points);
    sr_scene_destroy(scene);
    return status == SR_OK ? 0 : usage ? SR_EXIT_USAGE : SR_EXIT_FAILURE;

usage_error:
    fprintf(stderr, "softrast pick: %s\n", error);
    free(list.points);
    return SR_EXIT_USAGE;
}
