/* cmd_raycast.c — `softrast raycast`: casts a batch of rays (from a file, or the benchmark
 * scene's primary rays) against a mesh through the static BVH and writes one hit record per ray.
 * Also home of the primary-ray generator shared with `softrast bench bvh` (commands.h).
 * Every failure prints one message naming the argument or file and leaves no output file. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <softrast/bvh.h>
#include <softrast/raster.h>
#include <softrast/scene.h>

#include "args.h"
#include "commands.h"

#define RAY_RECORD_BYTES 32 /* origin xyz, direction xyz, tmin, tmax: little-endian float32 */
#define HIT_RECORD_BYTES 16 /* t, triangle index (uint32), u, v */

typedef struct raycast_options {
    const char *mesh_path;
    const char *rays_path; ///< NULL with --primary
    const char *out_path;
    int width, height; ///< --primary size; 0 with --rays
    bool any_hit;
    int threads;
} raycast_options;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast raycast MESH.obj --rays RAYS --out HITS [--any-hit] [--threads N]\n"
            "       softrast raycast MESH.obj --primary WxH --out HITS [--any-hit] [--threads N]\n"
            "\n"
            "Casts rays against the triangles of MESH.obj (fan-triangulated, file order) through a BVH.\n"
            "\n"
            "options:\n"
            "  --rays RAYS     rays to cast against the mesh as it is in the file: 32 bytes per ray,\n"
            "                  little-endian float32 origin xyz, direction xyz (any non-zero length;\n"
            "                  t is in units of it), tmin, tmax\n"
            "  --primary WxH   instead of --rays: the benchmark scene's primary rays (eye (0,0,3),\n"
            "                  fov_y 45, one ray per pixel centre, rows top first, unit-length\n"
            "                  directions, tmin 0, tmax infinity) against the mesh normalised to\n"
            "                  [-1,1]^3 (box centre at the origin, largest extent 2)\n"
            "  --out HITS      16 bytes per ray: little-endian float32 t (+infinity on a miss), uint32\n"
            "                  triangle index (0xffffffff on a miss), float32 u, float32 v (barycentric\n"
            "                  weights of the triangle's second and third vertex; 0 on a miss)\n"
            "  --any-hit       report any hit within [tmin, tmax] instead of the closest\n"
            "  --threads N     split the rays into N chunks cast in parallel, 1 to %d (default 1);\n"
            "                  the output does not depend on N\n"
            "  --help          this text\n"
            "\n"
            "Prints one line: rays, hits, seconds and rays per second of the casting alone.\n"
            "Exit status: 0 done, 1 a file or the work failed, 2 a usage error.\n",
            SR_MAX_THREADS);
}

/* Returns -1 to go on, otherwise the exit status (0 after --help). */
static int parse_options(int argc, char **argv, raycast_options *o)
{
    *o = (raycast_options){.threads = 1};
    char error[SR_ARGS_ERROR_SIZE] = "";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (sr_args_is_help(arg)) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--any-hit") == 0) {
            o->any_hit = true;
        } else if (strcmp(arg, "--rays") == 0 || strcmp(arg, "--out") == 0 || strcmp(arg, "--primary") == 0 ||
                   strcmp(arg, "--threads") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error))
                goto fail;
            if (strcmp(arg, "--rays") == 0) {
                o->rays_path = value;
            } else if (strcmp(arg, "--out") == 0) {
                o->out_path = value;
            } else if (strcmp(arg, "--primary") == 0) {
                if (!sr_args_parse_size("--primary", value, SR_MAX_IMAGE_SIDE, &o->width, &o->height, error))
                    goto fail;
            } else {
                long threads = 0;
                if (!sr_args_parse_int("--threads", value, 1, SR_MAX_THREADS, &threads, error))
                    goto fail;
                o->threads = (int)threads;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast raycast --help)", arg);
            goto fail;
        } else if (o->mesh_path) {
            snprintf(error, sizeof error, "more than one mesh given ('%s' and '%s')", o->mesh_path, arg);
            goto fail;
        } else {
            o->mesh_path = arg;
        }
    }
    if (!o->mesh_path) {
        snprintf(error, sizeof error, "missing MESH.obj (see softrast raycast --help)");
        goto fail;
    }
    if (!o->rays_path && o->width == 0) {
        snprintf(error, sizeof error, "missing --rays RAYS or --primary WxH");
        goto fail;
    }
    if (o->rays_path && o->width != 0) {
        snprintf(error, sizeof error, "--rays and --primary exclude each other");
        goto fail;
    }
    if (!o->out_path) {
        snprintf(error, sizeof error, "missing --out HITS");
        goto fail;
    }
    if (o->out_path[0] == '\0') {
        snprintf(error, sizeof error, "--out: empty file name");
        goto fail;
    }
    return -1;
fail:
    fprintf(stderr, "softrast raycast: %s\n", error);
    return SR_EXIT_USAGE;
}

/* ---- timing ---- */

double sr_cmd_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- files ---- */

static float read_f32_le(const unsigned char *bytes)
{
    uint32_t bits = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static void write_u32_le(unsigned char *bytes, uint32_t bits)
{
    bytes[0] = (unsigned char)bits;
    bytes[1] = (unsigned char)(bits >> 8);
    bytes[2] = (unsigned char)(bits >> 16);
    bytes[3] = (unsigned char)(bits >> 24);
}

static void write_f32_le(unsigned char *bytes, float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    write_u32_le(bytes, bits);
}

/* Reads a RAYS file into rays made by sr_ray_make (non-finite values make a ray that hits
 * nothing). */
static bool read_rays(const char *path, sr_ray **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    FILE *file = fopen(path, "rb");
    if (!file) {
        fprintf(stderr, "softrast raycast: --rays: cannot open '%s': %s\n", path, strerror(errno));
        return false;
    }
    struct stat info;
    if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
        fprintf(stderr, "softrast raycast: --rays: '%s' is not a regular file\n", path);
        fclose(file);
        return false;
    }
    long size = -1;
    if (fseek(file, 0, SEEK_END) == 0)
        size = ftell(file);
    if (size < 0 || fseek(file, 0, SEEK_SET) != 0) {
        fprintf(stderr, "softrast raycast: --rays: cannot read '%s' (not a regular file?)\n", path);
        fclose(file);
        return false;
    }
    if (size % RAY_RECORD_BYTES != 0) {
        fprintf(stderr, "softrast raycast: --rays: '%s' has %ld bytes, not a multiple of %d (one ray is 8 float32)\n",
                path, size, RAY_RECORD_BYTES);
        fclose(file);
        return false;
    }
    size_t ray_count = (size_t)size / RAY_RECORD_BYTES;
    unsigned char *bytes = malloc(size > 0 ? (size_t)size : 1);
    sr_ray *rays = calloc(ray_count > 0 ? ray_count : 1, sizeof(sr_ray));
    if (!bytes || !rays) {
        fprintf(stderr, "softrast raycast: --rays: '%s': out of memory for %zu rays\n", path, ray_count);
        free(bytes);
        free(rays);
        fclose(file);
        return false;
    }
    size_t got = fread(bytes, 1, (size_t)size, file);
    bool read_error = ferror(file) != 0;
    fclose(file);
    if (got != (size_t)size || read_error) {
        fprintf(stderr, "softrast raycast: --rays: '%s': read %zu of %ld bytes\n", path, got, size);
        free(bytes);
        free(rays);
        return false;
    }
    for (size_t i = 0; i < ray_count; i++) {
        const unsigned char *r = bytes + i * RAY_RECORD_BYTES;
        float f[8];
        for (int k = 0; k < 8; k++)
            f[k] = read_f32_le(r + 4 * k);
        rays[i] = sr_ray_make((sr_vec3){f[0], f[1], f[2]}, (sr_vec3){f[3], f[4], f[5]}, f[6], f[7]);
    }
    free(bytes);
    *out = rays;
    *count = ray_count;
    return true;
}

/* ---- casting ---- */

typedef struct cast_job {
    const sr_bvh *bvh;
    const sr_ray *rays;
    unsigned char *hits; /* HIT_RECORD_BYTES per ray */
    size_t first, count;
    bool any_hit;
    size_t hit_count;
} cast_job;

static void *cast_chunk(void *argument)
{
    cast_job *job = argument;
    size_t hits = 0;
    for (size_t i = job->first; i < job->first + job->count; i++) {
        sr_bvh_hit hit;
        bool found = job->any_hit ? sr_bvh_query_ray_any(job->bvh, &job->rays[i], &hit)
                                  : sr_bvh_query_ray(job->bvh, &job->rays[i], &hit);
        unsigned char *record = job->hits + i * HIT_RECORD_BYTES;
        write_f32_le(record, found ? hit.t : INFINITY);
        write_u32_le(record + 4, found ? hit.primitive : SR_BVH_NO_HIT);
        write_f32_le(record + 8, found ? hit.u : 0.0f);
        write_f32_le(record + 12, found ? hit.v : 0.0f);
        hits += found;
    }
    job->hit_count = hits;
    return NULL;
}

/* Casts every ray, in `threads` contiguous chunks; returns the number of hits (or SIZE_MAX when
 * a thread could not be started). Each ray's record depends on that ray only, so the output is
 * the same for every thread count. */
static size_t cast_rays(const sr_bvh *bvh, const sr_ray *rays, size_t count, bool any_hit, int threads,
                        unsigned char *hits)
{
    cast_job jobs[SR_MAX_THREADS];
    pthread_t ids[SR_MAX_THREADS];
    size_t chunk = (count + (size_t)threads - 1) / (size_t)threads;
    int started = 0;
    bool failed = false;
    for (int t = 0; t < threads; t++) {
        size_t first = (size_t)t * chunk;
        jobs[t] = (cast_job){.bvh = bvh,
                             .rays = rays,
                             .hits = hits,
                             .first = first < count ? first : count,
                             .count = first < count ? (count - first < chunk ? count - first : chunk) : 0,
                             .any_hit = any_hit};
    }
    /* Chunk 0 runs on this thread; the others on their own. */
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&ids[t], NULL, cast_chunk, &jobs[t]) != 0) {
            failed = true;
            break;
        }
        started = t;
    }
    cast_chunk(&jobs[0]);
    size_t total = jobs[0].hit_count;
    for (int t = 1; t <= started; t++) {
        pthread_join(ids[t], NULL);
        total += jobs[t].hit_count;
    }
    return failed ? SIZE_MAX : total;
}

int sr_cmd_raycast(int argc, char **argv)
{
    raycast_options o;
    int exit_status = parse_options(argc, argv, &o);
    if (exit_status >= 0)
        return exit_status;

    sr_error err = {0};
    sr_mesh *mesh = NULL;
    sr_bvh *bvh = NULL;
    sr_ray *rays = NULL;
    unsigned char *hits = NULL;
    size_t ray_count = 0;
    exit_status = SR_EXIT_FAILURE;

    /* The rays first: a malformed rays file is reported before a large mesh is loaded. */
    if (o.rays_path) {
        if (!read_rays(o.rays_path, &rays, &ray_count))
            goto done;
    } else {
        ray_count = (size_t)o.width * (size_t)o.height;
        rays = malloc(ray_count * sizeof(sr_ray));
        if (!rays) {
            fprintf(stderr, "softrast raycast: --primary %dx%d: out of memory\n", o.width, o.height);
            goto done;
        }
        sr_bench_scene_primary_rays(o.width, o.height, rays);
    }
    hits = malloc(ray_count > 0 ? ray_count * HIT_RECORD_BYTES : 1);
    if (!hits) {
        fprintf(stderr, "softrast raycast: out of memory for %zu hit records\n", ray_count);
        goto done;
    }
    if (sr_mesh_load_obj(o.mesh_path, &mesh, &err) != SR_OK) {
        fprintf(stderr, "softrast raycast: %s\n", err.message);
        goto done;
    }
    if (!o.rays_path)
        sr_mesh_normalize(mesh);
    sr_bvh_triangles input = {.positions = &mesh->positions[0].x,
                              .position_stride = sizeof(sr_vec3),
                              .vertex_count = mesh->vertex_count,
                              .indices = mesh->indices,
                              .triangle_count = mesh->triangle_count};
    if (sr_bvh_build_triangles(NULL, &input, &bvh, &err) != SR_OK) {
        fprintf(stderr, "softrast raycast: %s: %s\n", o.mesh_path, err.message);
        goto done;
    }

    double start = sr_cmd_seconds();
    size_t hit_count = cast_rays(bvh, rays, ray_count, o.any_hit, o.threads, hits);
    double seconds = sr_cmd_seconds() - start;
    if (hit_count == SIZE_MAX) {
        fprintf(stderr, "softrast raycast: --threads %d: could not start a thread\n", o.threads);
        goto done;
    }
    if (sr_file_write_atomic(o.out_path, hits, ray_count * HIT_RECORD_BYTES, &err) != SR_OK) {
        fprintf(stderr, "softrast raycast: --out: %s\n", err.message);
        goto done;
    }
    printf("softrast raycast: %zu rays, %zu hits, %.6f s, %.0f rays/s\n", ray_count, hit_count, seconds,
           seconds > 0.0 ? (double)ray_count / seconds : 0.0);
    exit_status = 0;
done:
    free(rays);
    free(hits);
    sr_bvh_destroy(bvh);
    sr_mesh_destroy(mesh);
    return exit_status;
}
