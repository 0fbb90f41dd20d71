/* bench_obj.c — OBJ loading time of softrast (sr_obj_load) next to tinyobjloader (Debian's
 * libtinyobjloader-dev, LoadObj with triangulation), side by side in one process: every round
 * loads each file with both, in alternating order, so that the speed changes of a shared machine
 * hit both alike; the ratio printed is the median of the per-round ratios. Built only where
 * tinyobjloader and a C++ compiler are installed; never run by `meson test`.
 *
 *   build/tests/bench/bench_obj MESH.obj [--runs N] [--skip-normals]
 *
 * softrast's load is sr_obj_load with the default desc: the file read, parsed, vertices
 * de-duplicated where the file has vt/vn, polygons triangulated, materials resolved and the
 * missing normals computed (area-weighted) — more than tinyobjloader does, which computes no
 * normals; --skip-normals leaves them out (as sr_mesh_load_obj does). Both read the file from the
 * page cache after a warm-up round. Prints one JSON line: the medians in milliseconds, the ratio
 * (softrast / tinyobjloader, below 1: softrast is faster) and both triangle counts, which must
 * agree (the program fails otherwise). */
#include <softrast/scene.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool bench_obj_tinyobjloader_load(const char *path, size_t *triangles, size_t *vertices);

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* Median of `count` values (sorted in place). */
static double median_of(double *values, int count)
{
    qsort(values, (size_t)count, sizeof(double), compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* `text` as a JSON string (quotes, backslashes and control characters escaped). */
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

static void count_warning(void *user, const char *message)
{
    (void)message;
    (*(size_t *)user)++;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int runs = 11;
    bool skip_normals = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            char *end;
            long value = strtol(argv[++i], &end, 10);
            if (*end != '\0' || value < 1 || value > 1000) {
                fprintf(stderr, "bench_obj: --runs: '%s' is not a whole number in [1, 1000]\n", argv[i]);
                return 2;
            }
            runs = (int)value;
        } else if (strcmp(argv[i], "--skip-normals") == 0) {
            skip_normals = true;
        } else if (argv[i][0] == '-' || path) {
            fprintf(stderr, "usage: bench_obj MESH.obj [--runs N] [--skip-normals]\n");
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "usage: bench_obj MESH.obj [--runs N] [--skip-normals]\n");
        return 2;
    }
    double *ours = malloc((size_t)runs * sizeof(double));
    double *theirs = malloc((size_t)runs * sizeof(double));
    double *ratio = malloc((size_t)runs * sizeof(double));
    if (!ours || !theirs || !ratio) {
        fputs("bench_obj: out of memory\n", stderr);
        return 1;
    }
    size_t our_triangles = 0, our_vertices = 0, their_triangles = 0, their_vertices = 0, warnings = 0;
    /* round -1 is the warm-up (page cache, allocator) */
    for (int run = -1; run < runs; run++) {
        double our_ms = 0.0, their_ms = 0.0;
        for (int turn = 0; turn < 2; turn++) {
            bool softrast_turn = (turn == 0) == (run % 2 == 0);
            double start = seconds();
            if (softrast_turn) {
                sr_mesh *mesh = NULL;
                sr_error err = {0};
                warnings = 0;
                sr_obj_desc desc = {
                    .path = path, .warning = count_warning, .user = &warnings, .skip_normals = skip_normals};
                if (sr_obj_load(&desc, &mesh, &err) != SR_OK) {
                    fprintf(stderr, "bench_obj: %s\n", err.message);
                    return 1;
                }
                our_ms = (seconds() - start) * 1e3;
                our_triangles = mesh->triangle_count;
                our_vertices = mesh->vertex_count;
                sr_mesh_destroy(mesh);
            } else {
                if (!bench_obj_tinyobjloader_load(path, &their_triangles, &their_vertices))
                    return 1;
                their_ms = (seconds() - start) * 1e3;
            }
        }
        if (run >= 0) {
            ours[run] = our_ms;
            theirs[run] = their_ms;
            ratio[run] = our_ms / their_ms;
        }
    }
    if (our_triangles != their_triangles) {
        fprintf(stderr, "bench_obj: %s: softrast reads %zu triangles, tinyobjloader %zu\n", path, our_triangles,
                their_triangles);
        return 1;
    }
    printf("{\"bench\": \"obj_load\", \"mesh\": ");
    print_json_string(path);
    printf(", \"runs\": %d, \"skip_normals\": %s, \"triangles\": {\"softrast\": %zu, \"tinyobjloader\": %zu}, "
           "\"vertices\": {\"softrast\": %zu, \"tinyobjloader\": %zu}, \"softrast_warnings\": %zu, "
           "\"softrast_ms\": %.2f, \"tinyobjloader_ms\": %.2f, \"ratio\": %.3f}\n",
           runs, skip_normals ? "true" : "false", our_triangles, their_triangles, our_vertices, their_vertices,
           warnings, median_of(ours, runs), median_of(theirs, runs), median_of(ratio, runs));
    free(ours);
    free(theirs);
    free(ratio);
    return 0;
}
