/* bench_embree.c — the baseline of `softrast bench bvh`: the same mesh, the same normalisation
 * and the same 1280x720 primary rays (BENCH_SCENE.md), traced by Embree 3 (Debian's
 * libembree-dev) with one thread, so that softrast's figures can be given as ratios measured
 * side by side on this machine. Built only when Embree is installed; never run by `meson test`.
 *
 *   build/tests/bench/bench_embree MESH.obj [--runs N] [--quality low|medium|high]
 *
 * Prints one JSON line with the fields of `softrast bench bvh` that Embree can report: build_ms
 * (rtcCommitScene of a fresh scene, median/min/max), rays_per_s (rtcIntersect1 one ray at a
 * time, median) and the checksums hits, mean_t, triangle_index_sum, which must equal softrast's. */
#include <embree3/rtcore.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

    size_t hits = 0;
    double t_sum = 0.0;
    unsigned long long index_sum = 0;
    for (int run = -1; run < runs; run++) { /* run -1 is the warm-up */
        double start = seconds();
        RTCScene scene = build_scene(device, mesh, quality);
        double built = seconds();
        struct RTCIntersectContext context;
        rtcInitIntersectContext(&context);
        hits = 0;
        t_sum = 0.0;
        index_sum = 0;
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
                hits++;
                t_sum += rh.ray.tfar;
                index_sum += rh.hit.primID;
            }
        }
        double cast = seconds();
        rtcReleaseScene(scene);
        if (run >= 0) {
            build_ms[run] = (built - start) * 1e3;
            rays_per_s[run] = (double)ray_count / (cast - built);
        }
    }
    qsort(build_ms, (size_t)runs, sizeof(double), compare_doubles);
    qsort(rays_per_s, (size_t)runs, sizeof(double), compare_doubles);
    printf("{\"mesh\": \"%s\", \"renderer\": \"embree %d.%d.%d %s\", \"triangles\": %zu, "
           "\"build_ms\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}, \"rays\": %zu, \"rays_per_s\": %.0f, "
           "\"hits\": %zu, \"mean_t\": %.6f, \"triangle_index_sum\": %llu}\n",
           mesh_path, RTC_VERSION_MAJOR, RTC_VERSION_MINOR, RTC_VERSION_PATCH, quality_name, mesh->triangle_count,
           median_sorted(build_ms, runs), build_ms[0], build_ms[runs - 1], ray_count, median_sorted(rays_per_s, runs),
           hits, hits > 0 ? t_sum / (double)hits : 0.0, index_sum);

    rtcReleaseDevice(device);
    mesh->positions = original;
    sr_mesh_destroy(mesh);
    free(padded);
    free(rays);
    free(build_ms);
    free(rays_per_s);
    return 0;
}
