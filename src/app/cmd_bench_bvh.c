/* cmd_bench_bvh.c — `softrast bench bvh`: BVH build time and quality and primary-ray throughput
 * on the benchmark scene (app_scene.c describes it), printed as one JSON line. Single-threaded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/bvh.h>
#include <softrast/scene.h>

#include "app_scene.h"
#include "args.h"
#include "commands.h"

#define DEFAULT_RUNS 5
#define MAX_RUNS 1000
#define WIDTH 1280
#define HEIGHT 720

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast bench bvh MESH.obj [--runs N]\n"
            "\n"
            "Loads MESH.obj, normalises it to [-1,1]^3 as the benchmark scene does, builds its BVH once\n"
            "to warm up and then N times, and casts the scene's %dx%d primary rays (closest hit, one\n"
            "thread) once per run. Prints one JSON line: build_ms (median, min, max), the tree's nodes,\n"
            "leaves, max_depth and SAH cost (the sum over interior nodes of SA(node) / SA(root) plus the\n"
            "sum over leaves of SA(leaf) / SA(root) times its triangles), rays, rays_per_s (median),\n"
            "hits, mean_t (unit-length directions) and the sum of the hit triangle indices (file order\n"
            "after fan triangulation).\n"
            "\n"
            "options:\n"
            "  --runs N   timed runs, 1 to %d (default %d)\n"
            "  --help     this text\n"
            "\n"
            "Exit status: 0 done, 1 the mesh or the work failed, 2 a usage error.\n"
            "\n",
            WIDTH, HEIGHT, MAX_RUNS, DEFAULT_RUNS);
    sr_app_print_bench_scene(out);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* Median of a sorted array (mean of the middle two for an even count). */
static double median_sorted(const double *values, int count)
{
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* `text` as a JSON string (RFC 8259: quotes, backslashes and control characters escaped). */
static void print_json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    putchar('"');
}

int sr_cmd_bench_bvh(int argc, char **argv)
{
    const char *mesh_path = NULL;
    long runs = DEFAULT_RUNS;
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        if (sr_args_is_help(argv[i])) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--runs") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error) ||
                !sr_args_parse_int("--runs", value, 1, MAX_RUNS, &runs, error))
                goto usage_error;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast bench bvh --help)", argv[i]);
            goto usage_error;
        } else if (mesh_path) {
            snprintf(error, sizeof error, "more than one mesh given ('%s' and '%s')", mesh_path, argv[i]);
            goto usage_error;
        } else {
            mesh_path = argv[i];
        }
    }
    if (!mesh_path) {
        snprintf(error, sizeof error, "missing MESH.obj (see softrast bench bvh --help)");
        goto usage_error;
    }

    int exit_status = SR_EXIT_FAILURE;
    sr_error err = {0};
    sr_mesh *mesh = NULL;
    sr_bvh *bvh = NULL;
    size_t ray_count = (size_t)WIDTH * HEIGHT;
    sr_ray *rays = malloc(ray_count * sizeof(sr_ray));
    double *build_ms = malloc((size_t)runs * sizeof(double));
    double *rays_per_s = malloc((size_t)runs * sizeof(double));
    if (!rays || !build_ms || !rays_per_s) {
        fputs("softrast bench bvh: out of memory\n", stderr);
        goto done;
    }
    if (sr_mesh_load_obj(mesh_path, &mesh, &err) != SR_OK) {
        fprintf(stderr, "softrast bench bvh: %s\n", err.message);
        goto done;
    }
    sr_mesh_normalize(mesh);
    sr_bench_scene_primary_rays(WIDTH, HEIGHT, rays);
    sr_bvh_triangles input = {.positions = &mesh->positions[0].x,
                              .position_stride = sizeof(sr_vec3),
                              .vertex_count = mesh->vertex_count,
                              .indices = mesh->indices,
                              .triangle_count = mesh->triangle_count};

    size_t hits = 0;
    double t_sum = 0.0;
    unsigned long long index_sum = 0;
    for (long run = -1; run < runs; run++) { /* run -1 is the warm-up */
        sr_bvh_destroy(bvh);
        bvh = NULL;
        double start = sr_cmd_seconds();
        if (sr_bvh_build_triangles(NULL, &input, &bvh, &err) != SR_OK) {
            fprintf(stderr, "softrast bench bvh: %s: %s\n", mesh_path, err.message);
            goto done;
        }
        double built = sr_cmd_seconds();
        hits = 0;
        t_sum = 0.0;
        index_sum = 0;
        for (size_t i = 0; i < ray_count; i++) {
            sr_bvh_hit hit;
            if (sr_bvh_query_ray(bvh, &rays[i], &hit)) {
                hits++;
                t_sum += hit.t;
                index_sum += hit.primitive;
            }
        }
        double cast = sr_cmd_seconds();
        if (run >= 0) {
            build_ms[run] = (built - start) * 1e3;
            rays_per_s[run] = cast > built ? (double)ray_count / (cast - built) : 0.0;
        }
    }
    qsort(build_ms, (size_t)runs, sizeof(double), compare_doubles);
    qsort(rays_per_s, (size_t)runs, sizeof(double), compare_doubles);

    const sr_bvh_stats *stats = &bvh->stats;
    printf("{\"mesh\": ");
    print_json_string(mesh_path);
    printf(", \"triangles\": %zu, \"build_ms\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}, \"nodes\": %zu, "
           "\"leaves\": %zu, \"max_depth\": %d, \"sah_cost\": %.4f, \"wide_nodes\": %zu, \"packs\": %zu, "
           "\"bytes_per_triangle\": %.1f, \"rays\": %zu, \"rays_per_s\": %.0f, "
           "\"hits\": %zu, \"mean_t\": %.6f, \"triangle_index_sum\": %llu, \"isa\": \"%s\"}\n",
           mesh->triangle_count, median_sorted(build_ms, (int)runs), build_ms[0], build_ms[runs - 1], stats->node_count,
           stats->leaf_count, stats->max_depth, stats->sah_cost, stats->wide_node_count, stats->pack_count,
           mesh->triangle_count > 0 ? (double)stats->bytes / (double)mesh->triangle_count : 0.0, ray_count,
           median_sorted(rays_per_s, (int)runs), hits, hits > 0 ? t_sum / (double)hits : 0.0, index_sum,
           sr_isa_name(sr_isa_active()));
    exit_status = 0;
done:
    free(rays);
    free(build_ms);
    free(rays_per_s);
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(mesh);
    return exit_status;
usage_error:
    fprintf(stderr, "softrast bench bvh: %s\n", error);
    return SR_EXIT_USAGE;
}
