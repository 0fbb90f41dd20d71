/* cmd_collide.c — `softrast collide`: answers convex collision queries (softrast/collide.h) for
 * pairs of shapes in bulk, one JSON line per pair in input order. The pairs come from a pairs file
 * (softrast/scene.h, sr_pair_set_load); the answering and the output do not depend on where the
 * pairs come from, so that a scene's shapes can be a source too. Every failure prints one message
 * naming the argument, file or line, and leaves no output file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/collide.h>
#include <softrast/raster.h>
#include <softrast/scene.h>

#include "args.h"
#include "commands.h"

typedef enum query_kind { QUERY_SIGNED = 0, QUERY_DISTANCE, QUERY_PENETRATION, QUERY_INTERSECT, QUERY_SAT } query_kind;

static const char *const query_names[] = {"signed", "distance", "penetration", "intersect", "sat", NULL};

typedef struct collide_options {
    const char *pairs_path;
    const char *out_path; ///< NULL: standard output
    query_kind query;
    int max_iterations; ///< 0: the library's default
} collide_options;

/// One pair to answer: its id and its two shapes (world poses).
typedef struct collide_item {
    long long id;
    const sr_shape *a, *b;
} collide_item;

static void print_usage(FILE *out)
{
    fputs("usage: softrast collide --pairs FILE [--out FILE] [--query QUERY] [--max-iterations N]\n"
          "       softrast collide SCENE.json --pair A,B --query gjk|epa|sat [--step N] [--minkowski]\n"
          "                        (--out FILE.png | --steps DIR) [--size WxH] [--camera SPEC]\n"
          "\n"
          "Answers a collision query for every pair of convex shapes of a pairs file, one JSON line per\n"
          "pair in the file's order.\n"
          "\n"
          "options:\n"
          "  --pairs FILE          pairs of shapes, one per line: {\"id\":7,\"a\":SHAPE,\"b\":SHAPE}, SHAPE\n"
          "                        one of {\"type\":\"sphere\",\"radius\":r}, {\"type\":\"box\",\"half_extents\":\n"
          "                        [x,y,z]}, "
          "{\"type\":\"capsule\"|\"cylinder\"|\"cone\",\"radius\":r,\"half_height\":h},\n"
          "                        {\"type\":\"hull\",\"points\":[[x,y,z],...]}, {\"type\":\"point\"},\n"
          "                        {\"type\":\"segment\"|\"triangle\",\"points\":[...]}, each with optional\n"
          "                        \"position\":[x,y,z], \"rotation\":[x,y,z,w] and \"rounding\":r; lines\n"
          "                        starting with # are comments\n"
          "  --out FILE            write the answers there (written whole or not at all) instead of to\n"
          "                        standard output, and print a summary\n"
          "  --query QUERY         signed (default): distance when apart, depth when penetrating;\n"
          "                        distance: GJK distance, an overlap answers 0 and a common point;\n"
          "                        penetration: as signed, by EPA or SAT where exact;\n"
          "                        intersect: only whether they overlap, and a separating axis if not;\n"
          "                        sat: separating axes of two polytopes (points, segments, triangles,\n"
          "                        boxes, hulls; not rounded)\n"
          "  --max-iterations N    cap of each iterative stage, 1 to 100000 (default: the library's, 128)\n"
          "  --help                this text (the SCENE form: softrast collide SCENE.json --help)\n"
          "\n"
          "Output, world coordinates, numbers that read back to the same doubles:\n"
          "  apart        {\"id\":7,\"hit\":false,\"dist\":d,\"pa\":[x,y,z],\"pb\":[x,y,z]}  (closest points on A, B)\n"
          "  penetrating  {\"id\":7,\"hit\":true,\"depth\":d,\"normal\":[x,y,z],\"pa\":[...],\"pb\":[...]}\n"
          "               (unit normal from A to B: moving B by depth * normal makes them touch; pa the\n"
          "               deepest point of A in B, pb of B in A)\n"
          "  intersect    {\"id\":7,\"hit\":true} or {\"id\":7,\"hit\":false,\"axis\":[x,y,z]}\n"
          "  sat, apart   {\"id\":7,\"hit\":false,\"separation\":s,\"normal\":[x,y,z]}\n"
          "A query that hit its iteration cap adds \"status\":\"iteration_cap\"; a query that does not apply\n"
          "(sat of a sphere) answers {\"id\":7,\"status\":\"unsupported\"}.\n",
          out);
}

/* Returns -1 to go on, otherwise the exit status (0 after --help). */
static int parse_options(int argc, char **argv, collide_options *o)
{
    *o = (collide_options){.query = QUERY_SIGNED};
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--pairs") == 0 || strcmp(arg, "--out") == 0 || strcmp(arg, "--query") == 0 ||
                   strcmp(arg, "--max-iterations") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error))
                goto fail;
            if (strcmp(arg, "--pairs") == 0) {
                o->pairs_path = value;
            } else if (strcmp(arg, "--out") == 0) {
                if (value[0] == '\0') {
                    snprintf(error, sizeof error, "--out: empty file name");
                    goto fail;
                }
                o->out_path = value;
            } else if (strcmp(arg, "--query") == 0) {
                int k = 0;
                while (query_names[k] && strcmp(query_names[k], value) != 0)
                    k++;
                if (!query_names[k]) {
                    snprintf(error, sizeof error,
                             "--query: '%s' is not one of signed, distance, penetration, intersect, sat", value);
                    goto fail;
                }
                o->query = (query_kind)k;
            } else {
                long cap = 0;
                if (!sr_args_parse_int("--max-iterations", value, 1, 100000, &cap, error))
                    goto fail;
                o->max_iterations = (int)cap;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast collide --help)", arg);
            goto fail;
        } else {
            snprintf(error, sizeof error, "unexpected argument '%s' (pairs are given with --pairs FILE)", arg);
            goto fail;
        }
    }
    if (!o->pairs_path) {
        snprintf(error, sizeof error, "missing --pairs FILE (see softrast collide --help)");
        goto fail;
    }
    return -1;
fail:
    fprintf(stderr, "softrast collide: %s\n", error);
    return 2;
}

/* ---- output ---- */

/* A number that reads back to the same double (JSON has no NaN or infinity: null). */
static void print_number(FILE *out, double value)
{
    if (isfinite(value))
        fprintf(out, "%.17g", value);
    else
        fputs("null", out);
}

static void print_vector(FILE *out, const char *key, sr_dvec3 v)
{
    fprintf(out, ",\"%s\":[", key);
    print_number(out, v.x);
    fputc(',', out);
    print_number(out, v.y);
    fputc(',', out);
    print_number(out, v.z);
    fputc(']', out);
}

static void print_result(FILE *out, const sr_collide_result *r, bool overlap_as_zero)
{
    fprintf(out, ",\"hit\":%s", r->hit ? "true" : "false");
    if (!r->hit || overlap_as_zero) {
        fputs(",\"dist\":", out);
        print_number(out, r->hit ? 0.0 : r->distance);
    } else {
        fputs(",\"depth\":", out);
        print_number(out, -r->distance);
        print_vector(out, "normal", r->normal);
    }
    print_vector(out, "pa", r->point_a);
    print_vector(out, "pb", r->point_b);
}

/* Answers one pair as one line; returns whether they overlap (or touch). */
static bool answer(FILE *out, const collide_item *item, query_kind query, const sr_collide_options *options)
{
    sr_collide_result r;
    memset(&r, 0, sizeof r);
    sr_collide_status status = SR_COLLIDE_OK;
    fprintf(out, "{\"id\":%lld", item->id);
    switch (query) {
    case QUERY_INTERSECT: {
        sr_dvec3 axis = {0, 0, 0};
        bool hit = false;
        status = sr_collide_intersect(item->a, item->b, &axis, options, &hit);
        r.hit = hit;
        if (status != SR_COLLIDE_UNSUPPORTED) {
            fprintf(out, ",\"hit\":%s", hit ? "true" : "false");
            if (!hit)
                print_vector(out, "axis", axis);
        }
        break;
    }
    case QUERY_DISTANCE:
        status = sr_collide_distance(item->a, item->b, options, &r);
        if (status != SR_COLLIDE_UNSUPPORTED)
            print_result(out, &r, true);
        break;
    case QUERY_PENETRATION:
        status = sr_collide_penetration(item->a, item->b, options, &r);
        if (status != SR_COLLIDE_UNSUPPORTED)
            print_result(out, &r, false);
        break;
    case QUERY_SAT:
        status = sr_collide_sat(item->a, item->b, options, &r);
        if (status == SR_COLLIDE_UNSUPPORTED)
            break;
        if (r.hit) {
            print_result(out, &r, false);
        } else {
            fputs(",\"hit\":false,\"separation\":", out);
            print_number(out, r.distance);
            print_vector(out, "normal", r.normal);
        }
        break;
    default:
        status = sr_collide_signed_distance(item->a, item->b, options, &r);
        if (status != SR_COLLIDE_UNSUPPORTED)
            print_result(out, &r, false);
        break;
    }
    static const char *const status_names[] = {"ok", "iteration_cap", "invalid_shape", "unsupported"};
    if (status != SR_COLLIDE_OK)
        fprintf(out, ",\"status\":\"%s\"", (unsigned)status < 4 ? status_names[status] : "unknown");
    fputs("}\n", out);
    return status != SR_COLLIDE_UNSUPPORTED && r.hit;
}

/* Answers every item into `out`; returns the number of hits. */
static size_t answer_all(FILE *out, const collide_item *items, size_t count, const collide_options *o)
{
    sr_collide_options options = {.max_iterations = o->max_iterations};
    size_t hits = 0;
    for (size_t i = 0; i < count; i++)
        hits += answer(out, &items[i], o->query, &options);
    return hits;
}

int sr_cmd_collide(int argc, char **argv)
{
    // A SCENE argument or an option only that form has: one pair of a scene's shapes, step by step
    // (cmd_collide_steps.c).
    for (int i = 1; i < argc; i++) {
        static const char *const scene_only[] = {"--pair", "--step", "--steps", "--minkowski", "--both", "--camera",
                                                 "--size"};
        bool scene_option = false;
        for (size_t k = 0; k < sizeof scene_only / sizeof scene_only[0]; k++)
            scene_option |= strcmp(argv[i], scene_only[k]) == 0;
        if (scene_option || (i == 1 && argv[i][0] != '-'))
            return sr_cmd_collide_steps(argc, argv);
    }
    collide_options o;
    int exit_status = parse_options(argc, argv, &o);
    if (exit_status >= 0)
        return exit_status;
    exit_status = 1;
    sr_error err = {0};
    sr_pair_set *set = NULL;
    collide_item *items = NULL;
    char *text = NULL;
    size_t text_size = 0;
    FILE *memory = NULL;
    if (sr_pair_set_load(o.pairs_path, &set, &err) != SR_OK) {
        fprintf(stderr, "softrast collide: %s\n", err.message);
        goto done;
    }
    items = malloc((set->count ? set->count : 1) * sizeof *items);
    if (!items) {
        fprintf(stderr, "softrast collide: out of memory for %zu pairs\n", set->count);
        goto done;
    }
    for (size_t i = 0; i < set->count; i++)
        items[i] = (collide_item){set->pairs[i].id, &set->pairs[i].a.shape, &set->pairs[i].b.shape};
    if (!o.out_path) {
        answer_all(stdout, items, set->count, &o);
        exit_status = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
        if (exit_status)
            fputs("softrast collide: cannot write to standard output\n", stderr);
        goto done;
    }
    /* To a file: made whole in memory, then written under a temporary name and renamed. */
    memory = open_memstream(&text, &text_size);
    if (!memory) {
        fputs("softrast collide: out of memory for the output\n", stderr);
        goto done;
    }
    double start = sr_cmd_seconds();
    size_t hits = answer_all(memory, items, set->count, &o);
    double seconds = sr_cmd_seconds() - start;
    bool written = fclose(memory) == 0;
    memory = NULL;
    if (!written) {
        fputs("softrast collide: out of memory for the output\n", stderr);
        goto done;
    }
    if (sr_file_write_atomic(o.out_path, text, text_size, &err) != SR_OK) {
        fprintf(stderr, "softrast collide: --out: %s\n", err.message);
        goto done;
    }
    printf("softrast collide: %zu pairs, %zu hit, %s query, %.6f s\n", set->count, hits, query_names[o.query], seconds);
    exit_status = 0;
done:
    if (memory)
        fclose(memory);
    free(text);
    free(items);
    sr_pair_set_destroy(set);
    return exit_status;
}
