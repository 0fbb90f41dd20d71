/* bench_embree.c — softrast's BVH next to Embree 3 (Debian's libembree-dev), side by side in one
 * process: the same mesh, the same normalisation and the same 1280x720 primary rays
 * (BENCH_SCENE.md), one thread each. Every round builds and traces with both, in alternating
 * order, so that the speed changes of a shared machine hit both alike; the ratios printed are
 * the medians of the per-round ratios. Built only where Embree is installed; never run by
 * `meson test`.
 *
 *   build/tests/bench/bench_embree MESH.obj [--runs N] [--quality low|medium|high]
 *
 * Prints one JSON line: per engine the median build time (softrast: sr_bvh_build_triangles;
 * Embree: a fresh scene committed at the given build quality, default medium), the median rays
 * per second (softrast: sr_bvh_query_ray; Embree: rtcIntersect1 one ray at a time) and the
 * checksums hits, mean_t and triangle_index_sum (BENCH_SCENE.md); then build_time_ratio
 * (softrast / Embree, below 1: softrast builds faster) and rays_per_s_ratio (softrast / Embree). */
#include <embree3/rtcore.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <softrast/bvh.h>
#include <softrast/scene.h>

#define WIDTH 1280
#define HEIGHT 720

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

static double median_sorted(const double *values, int count)
{
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

static void on_embree_error(void *user, enum RTCError code, const char *message)
{
    (void)user;
    fprintf(stderr, "bench_embree: Embree error %d: %s\n", (int)code, message ? message : "(no message)");
    exit(1);
}

/* A committed scene of one triangle geometry over the mesh (shared buffers: no copy). */
static RTCScene build_scene(RTCDevice device, const sr_mesh *mesh, enum RTCBuildQuality quality)
{
    RTCScene scene = rtcNewScene(device);
    rtcSetSceneBuildQuality(scene, quality);
    RTCGeometry geometry = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE);
    rtcSetGeometryBuildQuality(geometry, quality);
    /* Embree may read 16 bytes from the last vertex: sr_vec3 is 12, so the buffer is padded by
     * the caller (see main). */
    rtcSetSharedGeometryBuffer(geometry, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, mesh->positions, 0,
                               sizeof(sr_vec3), mesh->vertex_count);
    rtcSetSharedGeometryBuffer(geometry, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, mesh->indices, 0,
                               3 * sizeof(uint32_t), mesh->triangle_count);
    rtcCommitGeometry(geometry);
    rtcAttachGeometry(scene, geometry);
    rtcReleaseGeometry(geometry);
    rtcCommitScene(scene);
    return scene;
}

/* One engine's figures of one round. */
typedef struct engine_result {
    double build_ms, rays_per_s;
    size_t hits;
    double t_sum;
    unsigned long long index_sum;
} engine_result;

/* Median of `count` values (sorted in place). */
static double median_of(double *values, int count)
{
    qsort(values, (size_t)count, sizeof(double), compare_doubles);
    return median_sorted(values, count);
}

/* softrast's round: sr_bvh_build_triangles, then the closest hits, as `softrast bench bvh`. */
static bool run_softrast(const sr_bvh_triangles *input, const sr_ray *rays, size_t ray_count, engine_result *result)
{
    sr_error err = {0};
    sr_bvh *bvh = NULL;
    double start = seconds();
    if (sr_bvh_build_triangles(NULL, input, &bvh, &err) != SR_OK) {
        fprintf(stderr, "bench_embree: %s\n", err.message);
        return false;
    }
    double built = seconds();
    *result = (engine_result){0};
    for (size_t i = 0; i < ray_count; i++) {
        sr_bvh_hit hit;
        if (sr_bvh_query_ray(bvh, &rays[i], &hit)) {
            result->hits++;
            result->t_sum += hit.t;
            result->index_sum += hit.primitive;
        }
    }
    double cast = seconds();
    sr_bvh_destroy(bvh);
    result->build_ms = (built - start) * 1e3;
    result->rays_per_s = (double)ray_count / (cast - built);
    return true;
}

/* Embree's round: a fresh committed scene, then rtcIntersect1 one ray at a time. */
static void run_embree(RTCDevice device, const sr_mesh *mesh, enum RTCBuildQuality quality, const sr_ray *rays,
                       size_t ray_count, engine_result *result)
{
    double start = seconds();
    RTCScene scene = build_scene(device, mesh, quality);
    double built = seconds();
    struct RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    *result = (engine_result){0};
    for (size_t i = 0; i < ray_count; i++) {
        const sr_ray *ray = &rays[i];
        struct RTCRayHit rh;
        rh.ray.org_x = ray->origin.x;
        rh.ray.org_y = ray->origin.y;
        rh.ray.org_z = ray->origin.z;
        rh.ray.dir_x = ray->direction.x;
        rh.ray.dir_y = ray->direction.y;
        rh.ray.dir_z = ray->direction.z;
        rh.ray.tnear = ray->tmin;
        rh.ray.tfar = ray->tmax;
        rh.ray.time = 0.0f;
        rh.ray.mask = 0xffffffffu;
        rh.ray.id = 0;
        rh.ray.flags = 0;
        rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(scene, &context, &rh);
        if (rh.hit.geomID != RTC_INVALID_GEOMETRY_ID) {
            result->hits++;
            result->t_sum += rh.ray.tfar;
            result->index_sum += rh.hit.primID;
        }
    }
    double cast = seconds();
    rtcReleaseScene(scene);
    result->build_ms = (built - start) * 1e3;
    result->rays_per_s = (double)ray_count / (cast - built);
}

int main(int argc, char **argv)
{
    const char *mesh_path = NULL;
    int runs = 5;
    enum RTCBuildQuality quality = RTC_BUILD_QUALITY_MEDIUM;
    const char *quality_name = "medium";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            char *end;
            long value = strtol(argv[++i], &end, 10);
            if (*end != '\0' || value < 1 || value > 1000) {
                fprintf(stderr, "bench_embree: --runs: '%s' is not a whole number in [1, 1000]\n", argv[i]);
                return 2;
            }
            runs = (int)value;
        } else if (strcmp(argv[i], "--quality") == 0 && i + 1 < argc) {
            quality_name = argv[++i];
            if (strcmp(quality_name, "low") == 0)
                quality = RTC_BUILD_QUALITY_LOW;
            else if (strcmp(quality_name, "medium") == 0)
                quality = RTC_BUILD_QUALITY_MEDIUM;
            else if (strcmp(quality_name, "high") == 0)
                quality = RTC_BUILD_QUALITY_HIGH;
            else {
                fprintf(stderr, "bench_embree: --quality: '%s' is not low, medium or high\n", quality_name);
                return 2;
            }
        } else if (argv[i][0] == '-' || mesh_path) {
            fprintf(stderr, "usage: bench_embree MESH.obj [--runs N] [--quality low|medium|high]\n");
            return 2;
        } else {
            mesh_path = argv[i];
        }
    }
    if (!mesh_path) {
        fprintf(stderr, "usage: bench_embree MESH.obj [--runs N] [--quality low|medium|high]\n");
        return 2;
    }

    sr_error err = {0};
    sr_mesh *mesh = NULL;
    if (sr_mesh_load_obj(mesh_path, &mesh, &err) != SR_OK) {
        fprintf(stderr, "bench_embree: %s\n", err.message);
        return 1;
    }
    sr_mesh_normalize(mesh);
    /* a copy of the positions with 4 bytes of slack after the last vertex (Embree's 16-byte reads) */
    sr_vec3 *padded = malloc((mesh->vertex_count + 1) * sizeof(sr_vec3));
    size_t ray_count = (size_t)WIDTH * HEIGHT;
    sr_ray *rays = malloc(ray_count * sizeof(sr_ray));
    double *build_ms = malloc((size_t)runs * sizeof(double));
    double *rays_per_s = malloc((size_t)runs * sizeof(double));
    if (!padded || !rays || !build_ms || !rays_per_s) {
        fputs("bench_embree: out of memory\n", stderr);
        return 1;
    }
    memcpy(padded, mesh->positions, mesh->vertex_count * sizeof(sr_vec3));
    padded[mesh->vertex_count] = (sr_vec3){0.0f, 0.0f, 0.0f};
    sr_vec3 *original = mesh->positions;
    mesh->positions = padded;
    sr_bench_scene_primary_rays(WIDTH, HEIGHT, rays);

    /* one thread, as softrast's benchmark */
    RTCDevice device = rtcNewDevice("threads=1");
    if (!device) {
        fprintf(stderr, "bench_embree: rtcNewDevice failed (error %d)\n", (int)rtcGetDeviceError(NULL));
        return 1;
    }
    rtcSetDeviceErrorFunction(device, on_embree_error, NULL);

    /* Both engines run in every round, in alternating order (even rounds softrast first), so
     * that the minute-to-minute changes of speed of a shared machine hit both alike; the ratios
     * are the medians of the per-round ratios. Round -1 is the warm-up. */
    sr_bvh_triangles input = {.positions = &mesh->positions[0].x,
                              .position_stride = sizeof(sr_vec3),
                              .vertex_count = mesh->vertex_count,
                              .indices = mesh->indices,
                              .triangle_count = mesh->triangle_count};
    engine_result ours = {0}, theirs = {0};
    double *sr_build_ms = malloc((size_t)runs * sizeof(double));
    double *sr_rays_per_s = malloc((size_t)runs * sizeof(double));
    double *build_ratio = malloc((size_t)runs * sizeof(double));
    double *rays_ratio = malloc((size_t)runs * sizeof(double));
    if (!sr_build_ms || !sr_rays_per_s || !build_ratio || !rays_ratio) {
        fputs("bench_embree: out of memory\n", stderr);
        return 1;
    }
    for (int run = -1; run < runs; run++) {
        for (int turn = 0; turn < 2; turn++) {
            bool softrast_turn = (turn == 0) == (run % 2 == 0);
            if (softrast_turn) {
                if (!run_softrast(&input, rays, ray_count, &ours))
                    return 1;
            } else {
                run_embree(device, mesh, quality, rays, ray_count, &theirs);
            }
        }
        if (run >= 0) {
            sr_build_ms[run] = ours.build_ms;
            sr_rays_per_s[run] = ours.rays_per_s;
            build_ms[run] = theirs.build_ms;
            rays_per_s[run] = theirs.rays_per_s;
            build_ratio[run] = ours.build_ms / theirs.build_ms;
            rays_ratio[run] = ours.rays_per_s / theirs.rays_per_s;
        }
    }
    double sr_build_median = median_of(sr_build_ms, runs), sr_rays_median = median_of(sr_rays_per_s, runs);
    double build_median = median_of(build_ms, runs), rays_median = median_of(rays_per_s, runs);
    double build_ratio_median = median_of(build_ratio, runs), rays_ratio_median = median_of(rays_ratio, runs);
    printf("{\"mesh\": ");
    print_json_string(mesh_path);
    printf(", \"baseline\": \"embree %d.%d.%d %s\", \"triangles\": %zu, \"runs\": %d, "
           "\"softrast\": {\"build_ms\": %.3f, \"rays_per_s\": %.0f, \"hits\": %zu, \"mean_t\": %.6f, "
           "\"triangle_index_sum\": %llu}, "
           "\"embree\": {\"build_ms\": %.3f, \"rays_per_s\": %.0f, \"hits\": %zu, \"mean_t\": %.6f, "
           "\"triangle_index_sum\": %llu}, "
           "\"build_time_ratio\": %.3f, \"rays_per_s_ratio\": %.3f}\n",
           RTC_VERSION_MAJOR, RTC_VERSION_MINOR, RTC_VERSION_PATCH, quality_name, mesh->triangle_count, runs,
           sr_build_median, sr_rays_median, ours.hits, ours.hits > 0 ? ours.t_sum / (double)ours.hits : 0.0,
           ours.index_sum, build_median, rays_median, theirs.hits,
           theirs.hits > 0 ? theirs.t_sum / (double)theirs.hits : 0.0, theirs.index_sum, build_ratio_median,
           rays_ratio_median);
    free(sr_build_ms);
    free(sr_rays_per_s);
    free(build_ratio);
    free(rays_ratio);

    rtcReleaseDevice(device);
    mesh->positions = original;
    sr_mesh_destroy(mesh);
    free(padded);
    free(rays);
    free(build_ms);
    free(rays_per_s);
    return 0;
}
