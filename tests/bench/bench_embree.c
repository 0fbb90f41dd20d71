/* bench_embree.c — softrast's BVH next to Embree 3 (Debian's libembree-dev), side by side in one
 * process: the same mesh, the same normalisation and the same 1280x720 primary rays
 * (the README's benchmark scene), one thread each. Every round builds and traces with both, in alternating
 * order, so that the speed changes of a shared machine hit both alike; the ratios printed are
 * the medians of the per-round ratios. Built only where Embree is installed; never run by
 * `meson test`.
 *
 *   build/tests/bench/bench_embree MESH.obj [--runs N] [--quality low|medium|high]
 *
 * Prints one JSON line: per engine the median build time (softrast: sr_bvh_build_triangles,
 * which includes the collapse into the wide tree; Embree: a fresh scene committed at the given
 * build quality, default medium), the median rays per second of the single-ray closest hits
 * (softrast: sr_bvh_query_ray; Embree: rtcIntersect1), of packets of 8 rays in 4x2 pixel tiles
 * (sr_bvh_query_ray_packet; rtcIntersect8) and of 16 rays in 4x4 tiles (rtcIntersect16), the
 * checksums hits, mean_t and triangle_index_sum (the README's benchmark scene) and the memory per triangle
 * (softrast: the tree's bytes, sr_bvh_stats.bytes, split into binary nodes, wide tree, and
 * slots with vertices; Embree: the bytes its device holds after the commit, counted by a
 * memory monitor, rtcSetDeviceMemoryMonitorFunction; Embree reads the caller's vertex and
 * index buffers in place, softrast keeps its own copy of the vertices); the single rays by kind
 * (single_by_kind: the rays missing the mesh's bounding box, those entering it without a hit,
 * the hits; per kind the ray count, the median ns per ray of each engine and the median ratio
 * of rays per second, from rounds of their own); the whole image's single rays against Embree's
 * robust mode (single_robust: RTC_SCENE_FLAG_ROBUST, the watertight traversal and triangle test
 * that do the work softrast's exact ones do; rays per second of both, Embree's hit count, the
 * median ratio, from rounds of their own); then the ratios softrast / Embree of build time
 * (below 1: softrast builds faster) and of rays per second. */
#include <embree3/rtcore.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <softrast/bvh.h>
#include <softrast/core.h>
#include <softrast/geom.h>
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
static RTCScene build_scene(RTCDevice device, const sr_mesh *mesh, enum RTCBuildQuality quality, bool robust)
{
    RTCScene scene = rtcNewScene(device);
    if (robust) /* watertight: no ray slips between triangles sharing an edge, as softrast's */
        rtcSetSceneFlags(scene, RTC_SCENE_FLAG_ROBUST);
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

/* The checksums of the README's benchmark scene over one pass of rays. */
typedef struct checksum {
    size_t hits;
    double t_sum;
    unsigned long long index_sum;
} checksum;

static void checksum_add(checksum *c, bool hit, float t, uint32_t triangle)
{
    if (hit) {
        c->hits++;
        c->t_sum += t;
        c->index_sum += triangle;
    }
}

/* One engine's figures of one round: build, single rays, packets of 8 (4x2), packets of 16
 * (4x4). */
enum { SINGLE, PACKET8, PACKET16, FORMS };

typedef struct engine_result {
    double build_ms;
    double rays_per_s[FORMS];
    checksum sums[FORMS];
    double bytes_per_triangle;
} engine_result;

/* The primary rays of the image and, for each packet form, the same rays in tile order. */
typedef struct ray_sets {
    const sr_ray *rays[FORMS];
    size_t count;
} ray_sets;

static const int tile_height[FORMS] = {1, 2, 4}; /* tiles are 4 wide */

/* The rays of a width x height image (rows of the image) regrouped into tiles of 4 x tile_h
 * pixels, tile after tile, row by row inside a tile. width and height are multiples of 4. */
static void tile_rays(const sr_ray *image, int width, int height, int tile_h, sr_ray *out)
{
    size_t k = 0;
    for (int y = 0; y < height; y += tile_h)
        for (int x = 0; x < width; x += 4)
            for (int dy = 0; dy < tile_h; dy++)
                for (int dx = 0; dx < 4; dx++)
                    out[k++] = image[(size_t)(y + dy) * (size_t)width + (size_t)(x + dx)];
}

/* Embree's memory monitor: the bytes its device holds. */
typedef struct memory_count {
    long long current;
} memory_count;

static bool on_embree_memory(void *user, ssize_t bytes, bool post)
{
    (void)post;
    ((memory_count *)user)->current += bytes;
    return true;
}

/* Median of `count` values (sorted in place). */
static double median_of(double *values, int count)
{
    qsort(values, (size_t)count, sizeof(double), compare_doubles);
    return median_sorted(values, count);
}

/* softrast's closest hits of `count` single rays, one sr_bvh_query_ray each. */
static void trace_softrast_single(const sr_bvh *bvh, const sr_ray *rays, size_t count, checksum *c)
{
    for (size_t i = 0; i < count; i++) {
        sr_bvh_hit hit;
        bool found = sr_bvh_query_ray(bvh, &rays[i], &hit);
        checksum_add(c, found, hit.t, hit.primitive);
    }
}

/* softrast's round: sr_bvh_build_triangles, then the closest hits of each form. */
static bool run_softrast(const sr_bvh_triangles *input, const ray_sets *sets, engine_result *result, size_t bytes[3])
{
    sr_error err = {0};
    sr_bvh *bvh = NULL;
    double start = seconds();
    if (sr_bvh_build_triangles(NULL, input, &bvh, &err) != SR_OK) {
        fprintf(stderr, "bench_embree: %s\n", err.message);
        return false;
    }
    double built = seconds();
    *result = (engine_result){.build_ms = (built - start) * 1e3};
    for (int form = 0; form < FORMS; form++) {
        const sr_ray *rays = sets->rays[form];
        checksum *c = &result->sums[form];
        double begin = seconds();
        if (form == SINGLE) {
            trace_softrast_single(bvh, rays, sets->count, c);
        } else {
            const int n = 4 * tile_height[form];
            for (size_t i = 0; i < sets->count; i += (size_t)n) {
                sr_bvh_hit hits[SR_BVH_PACKET_MAX];
                sr_bvh_query_ray_packet(bvh, &rays[i], n, hits);
                for (int k = 0; k < n; k++)
                    checksum_add(c, hits[k].primitive != SR_BVH_NO_HIT, hits[k].t, hits[k].primitive);
            }
        }
        result->rays_per_s[form] = (double)sets->count / (seconds() - begin);
    }
    const size_t triangles = input->triangle_count;
    const size_t binary = bvh->node_count * sizeof(sr_bvh_node);
    const size_t slots = bvh->primitive_count * (sizeof(uint32_t) + 9 * sizeof(float));
    bytes[0] = binary;
    bytes[1] = bvh->stats.bytes - binary - slots; /* the wide tree */
    bytes[2] = slots;
    result->bytes_per_triangle = (double)bvh->stats.bytes / (double)triangles;
    sr_bvh_destroy(bvh);
    return true;
}

static void embree_ray(const sr_ray *ray, float *org, float *dir, float *tnear, float *tfar, size_t lane, size_t stride)
{
    org[0 * stride + lane] = ray->origin.x;
    org[1 * stride + lane] = ray->origin.y;
    org[2 * stride + lane] = ray->origin.z;
    dir[0 * stride + lane] = ray->direction.x;
    dir[1 * stride + lane] = ray->direction.y;
    dir[2 * stride + lane] = ray->direction.z;
    *tnear = ray->tmin;
    *tfar = ray->tmax;
}

/* Embree's closest hits of `count` single rays, one rtcIntersect1 each. */
static void trace_embree_single(RTCScene scene, struct RTCIntersectContext *context, const sr_ray *rays, size_t count,
                                checksum *c)
{
    for (size_t i = 0; i < count; i++) {
        struct RTCRayHit rh;
        float org[3], dir[3];
        embree_ray(&rays[i], org, dir, &rh.ray.tnear, &rh.ray.tfar, 0, 1);
        rh.ray.org_x = org[0];
        rh.ray.org_y = org[1];
        rh.ray.org_z = org[2];
        rh.ray.dir_x = dir[0];
        rh.ray.dir_y = dir[1];
        rh.ray.dir_z = dir[2];
        rh.ray.time = 0.0f;
        rh.ray.mask = 0xffffffffu;
        rh.ray.id = 0;
        rh.ray.flags = 0;
        rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(scene, context, &rh);
        checksum_add(c, rh.hit.geomID != RTC_INVALID_GEOMETRY_ID, rh.ray.tfar, rh.hit.primID);
    }
}

/* softrast's and Embree's single rays side by side: each engine traces rays[0..count) in image
 * order, in alternating rounds (round -1 warms up); the medians of nanoseconds per ray of each
 * and of the per-round ratios of rays per second (softrast / Embree), and Embree's hit count. */
typedef struct side_by_side {
    size_t rays, embree_hits;
    double softrast_ns, embree_ns, ratio;
} side_by_side;

static bool trace_side_by_side(const sr_bvh *bvh, RTCScene scene, const sr_ray *rays, size_t count, int runs,
                               side_by_side *out)
{
    *out = (side_by_side){.rays = count};
    if (count == 0)
        return true;
    double *samples = malloc((size_t)runs * 3 * sizeof(double));
    if (!samples) {
        fputs("bench_embree: out of memory\n", stderr);
        return false;
    }
    struct RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    for (int run = -1; run < runs; run++) {
        double ns[2];
        for (int turn = 0; turn < 2; turn++) {
            const bool softrast_turn = (turn == 0) == (run % 2 == 0);
            checksum c = {0};
            const double begin = seconds();
            if (softrast_turn)
                trace_softrast_single(bvh, rays, count, &c);
            else
                trace_embree_single(scene, &context, rays, count, &c);
            ns[softrast_turn ? 0 : 1] = (seconds() - begin) * 1e9 / (double)count;
            if (!softrast_turn)
                out->embree_hits = c.hits;
        }
        if (run < 0)
            continue;
        samples[run] = ns[0];
        samples[runs + run] = ns[1];
        samples[2 * runs + run] = ns[1] / ns[0];
    }
    out->softrast_ns = median_of(samples, runs);
    out->embree_ns = median_of(samples + runs, runs);
    out->ratio = median_of(samples + 2 * runs, runs);
    free(samples);
    return true;
}

/* softrast's tree and an Embree scene (`robust`: RTC_SCENE_FLAG_ROBUST) of the mesh. */
static bool build_both(const sr_bvh_triangles *input, const sr_mesh *mesh, RTCDevice device,
                       enum RTCBuildQuality quality, bool robust, sr_bvh **bvh, RTCScene *scene)
{
    sr_error err = {0};
    if (sr_bvh_build_triangles(NULL, input, bvh, &err) != SR_OK) {
        fprintf(stderr, "bench_embree: %s\n", err.message);
        return false;
    }
    *scene = build_scene(device, mesh, quality, robust);
    return true;
}

/* Single rays by kind: the rays that miss the mesh's bounding box, those that enter it and hit
 * nothing, and those that hit a triangle (by softrast's answer, which Embree's checksums match),
 * each kind's rays traced side by side. Shows where the single-ray time goes: a whole-image
 * figure mixes kinds whose costs differ tenfold. */
enum { OUTSIDE_BOX, BOX_NO_HIT, HIT, KINDS };

static bool single_rays_by_kind(const sr_bvh_triangles *input, const sr_mesh *mesh, RTCDevice device,
                                enum RTCBuildQuality quality, const sr_ray *rays, size_t count, int runs,
                                side_by_side figures[KINDS])
{
    sr_bvh *bvh = NULL;
    RTCScene scene;
    if (!build_both(input, mesh, device, quality, false, &bvh, &scene))
        return false;
    sr_ray *sorted = malloc(count * sizeof(sr_ray));
    if (!sorted) {
        fputs("bench_embree: out of memory\n", stderr);
        return false;
    }
    const sr_aabb box = sr_mesh_bounds(mesh);
    size_t start[KINDS + 1] = {0};
    for (int kind = 0; kind < KINDS; kind++) {
        start[kind + 1] = start[kind];
        for (size_t i = 0; i < count; i++) {
            float t_near, t_far;
            sr_bvh_hit hit;
            const int k = !sr_ray_aabb(&rays[i], &box, &t_near, &t_far) ? OUTSIDE_BOX
                          : sr_bvh_query_ray(bvh, &rays[i], &hit)        ? HIT
                                                                         : BOX_NO_HIT;
            if (k == kind)
                sorted[start[kind + 1]++] = rays[i];
        }
    }
    bool ok = true;
    for (int kind = 0; kind < KINDS && ok; kind++)
        ok = trace_side_by_side(bvh, scene, &sorted[start[kind]], start[kind + 1] - start[kind], runs, &figures[kind]);
    free(sorted);
    rtcReleaseScene(scene);
    sr_bvh_destroy(bvh);
    return ok;
}

/* Embree's round: a fresh committed scene, then rtcIntersect1 one ray at a time, rtcIntersect8
 * over 4x2 tiles and rtcIntersect16 over 4x4 tiles (coherent rays, as the flag tells it). */
static void run_embree(RTCDevice device, const sr_mesh *mesh, enum RTCBuildQuality quality, const ray_sets *sets,
                       memory_count *memory, engine_result *result)
{
    const long long before = memory->current;
    double start = seconds();
    RTCScene scene = build_scene(device, mesh, quality, false);
    double built = seconds();
    *result = (engine_result){.build_ms = (built - start) * 1e3};
    result->bytes_per_triangle = (double)(memory->current - before) / (double)mesh->triangle_count;
    struct RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    for (int form = 0; form < FORMS; form++) {
        const sr_ray *rays = sets->rays[form];
        checksum *c = &result->sums[form];
        double begin = seconds();
        if (form == SINGLE) {
            trace_embree_single(scene, &context, rays, sets->count, c);
        } else {
            struct RTCIntersectContext coherent;
            rtcInitIntersectContext(&coherent);
            coherent.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
            const size_t n = (size_t)(4 * tile_height[form]);
            /* Embree wants the valid masks and packets aligned to their size */
            _Alignas(64) int valid[16];
            _Alignas(64) struct RTCRayHit16 rh16;
            _Alignas(32) struct RTCRayHit8 rh8;
            for (size_t i = 0; i < sets->count; i += n) {
                for (size_t k = 0; k < n; k++) {
                    const sr_ray *ray = &rays[i + k];
                    valid[k] = -1;
                    if (n == 8) {
                        rh8.ray.org_x[k] = ray->origin.x, rh8.ray.org_y[k] = ray->origin.y,
                        rh8.ray.org_z[k] = ray->origin.z;
                        rh8.ray.dir_x[k] = ray->direction.x, rh8.ray.dir_y[k] = ray->direction.y;
                        rh8.ray.dir_z[k] = ray->direction.z;
                        rh8.ray.tnear[k] = ray->tmin, rh8.ray.tfar[k] = ray->tmax, rh8.ray.time[k] = 0.0f;
                        rh8.ray.mask[k] = 0xffffffffu, rh8.ray.id[k] = (unsigned)k, rh8.ray.flags[k] = 0;
                        rh8.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID, rh8.hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
                    } else {
                        rh16.ray.org_x[k] = ray->origin.x, rh16.ray.org_y[k] = ray->origin.y;
                        rh16.ray.org_z[k] = ray->origin.z;
                        rh16.ray.dir_x[k] = ray->direction.x, rh16.ray.dir_y[k] = ray->direction.y;
                        rh16.ray.dir_z[k] = ray->direction.z;
                        rh16.ray.tnear[k] = ray->tmin, rh16.ray.tfar[k] = ray->tmax, rh16.ray.time[k] = 0.0f;
                        rh16.ray.mask[k] = 0xffffffffu, rh16.ray.id[k] = (unsigned)k, rh16.ray.flags[k] = 0;
                        rh16.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
                        rh16.hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
                    }
                }
                if (n == 8) {
                    rtcIntersect8(valid, scene, &coherent, &rh8);
                    for (size_t k = 0; k < n; k++)
                        checksum_add(c, rh8.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID, rh8.ray.tfar[k],
                                     rh8.hit.primID[k]);
                } else {
                    rtcIntersect16(valid, scene, &coherent, &rh16);
                    for (size_t k = 0; k < n; k++)
                        checksum_add(c, rh16.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID, rh16.ray.tfar[k],
                                     rh16.hit.primID[k]);
                }
            }
        }
        result->rays_per_s[form] = (double)sets->count / (seconds() - begin);
    }
    rtcReleaseScene(scene);
}

static void print_sums(const checksum *c)
{
    printf("\"hits\": %zu, \"mean_t\": %.6f, \"triangle_index_sum\": %llu", c->hits,
           c->hits > 0 ? c->t_sum / (double)c->hits : 0.0, c->index_sum);
}

/* The whole image's single rays against Embree's robust mode (RTC_SCENE_FLAG_ROBUST), the
 * watertight traversal and triangle test that do the work softrast's exact ones do, side by
 * side. */
static bool single_rays_robust(const sr_bvh_triangles *input, const sr_mesh *mesh, RTCDevice device,
                               enum RTCBuildQuality quality, const sr_ray *rays, size_t count, int runs,
                               side_by_side *figures)
{
    sr_bvh *bvh = NULL;
    RTCScene scene;
    if (!build_both(input, mesh, device, quality, true, &bvh, &scene))
        return false;
    const bool ok = trace_side_by_side(bvh, scene, rays, count, runs, figures);
    rtcReleaseScene(scene);
    sr_bvh_destroy(bvh);
    return ok;
}

int main(int argc, char **argv)
{
    sr_error isa_err = {0};
    if (sr_isa_check_environment(&isa_err) != SR_OK) {
        fprintf(stderr, "bench_embree: %s\n", isa_err.message);
        return 2;
    }
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
    if (!padded || !rays) {
        fputs("bench_embree: out of memory\n", stderr);
        return 1;
    }
    memcpy(padded, mesh->positions, mesh->vertex_count * sizeof(sr_vec3));
    padded[mesh->vertex_count] = (sr_vec3){0.0f, 0.0f, 0.0f};
    sr_vec3 *original = mesh->positions;
    mesh->positions = padded;
    sr_bench_scene_primary_rays(WIDTH, HEIGHT, rays);
    sr_ray *tiled[FORMS] = {NULL};
    ray_sets sets = {.count = ray_count};
    sets.rays[SINGLE] = rays;
    for (int form = PACKET8; form < FORMS; form++) {
        tiled[form] = malloc(ray_count * sizeof(sr_ray));
        if (!tiled[form]) {
            fputs("bench_embree: out of memory\n", stderr);
            return 1;
        }
        tile_rays(rays, WIDTH, HEIGHT, tile_height[form], tiled[form]);
        sets.rays[form] = tiled[form];
    }

    /* one thread, as softrast's benchmark */
    RTCDevice device = rtcNewDevice("threads=1");
    if (!device) {
        fprintf(stderr, "bench_embree: rtcNewDevice failed (error %d)\n", (int)rtcGetDeviceError(NULL));
        return 1;
    }
    rtcSetDeviceErrorFunction(device, on_embree_error, NULL);
    memory_count embree_memory = {0};
    rtcSetDeviceMemoryMonitorFunction(device, on_embree_memory, &embree_memory);

    /* Both engines run in every round, in alternating order (even rounds softrast first), so
     * that the minute-to-minute changes of speed of a shared machine hit both alike; the ratios
     * are the medians of the per-round ratios. Round -1 is the warm-up. */
    sr_bvh_triangles input = {.positions = &mesh->positions[0].x,
                              .position_stride = sizeof(sr_vec3),
                              .vertex_count = mesh->vertex_count,
                              .indices = mesh->indices,
                              .triangle_count = mesh->triangle_count};
    engine_result ours = {0}, theirs = {0};
    size_t our_bytes[3] = {0};
    /* per round: build ms of both, rays/s of both per form, and the ratios */
    double *samples = malloc((size_t)runs * (3 + 3 * FORMS) * sizeof(double));
    if (!samples) {
        fputs("bench_embree: out of memory\n", stderr);
        return 1;
    }
#define SAMPLE(kind, run) samples[(size_t)(kind) * (size_t)runs + (size_t)(run)]
    for (int run = -1; run < runs; run++) {
        for (int turn = 0; turn < 2; turn++) {
            bool softrast_turn = (turn == 0) == (run % 2 == 0);
            if (softrast_turn) {
                if (!run_softrast(&input, &sets, &ours, our_bytes))
                    return 1;
            } else {
                run_embree(device, mesh, quality, &sets, &embree_memory, &theirs);
            }
        }
        if (run < 0)
            continue;
        SAMPLE(0, run) = ours.build_ms;
        SAMPLE(1, run) = theirs.build_ms;
        SAMPLE(2, run) = ours.build_ms / theirs.build_ms;
        for (int form = 0; form < FORMS; form++) {
            SAMPLE(3 + 3 * form, run) = ours.rays_per_s[form];
            SAMPLE(4 + 3 * form, run) = theirs.rays_per_s[form];
            SAMPLE(5 + 3 * form, run) = ours.rays_per_s[form] / theirs.rays_per_s[form];
        }
    }
    side_by_side kinds[KINDS];
    if (!single_rays_by_kind(&input, mesh, device, quality, rays, ray_count, runs, kinds))
        return 1;
    side_by_side robust = {0};
    if (!single_rays_robust(&input, mesh, device, quality, rays, ray_count, runs, &robust))
        return 1;
    double median[3 + 3 * FORMS];
    for (int kind = 0; kind < 3 + 3 * FORMS; kind++)
        median[kind] = median_of(&SAMPLE(kind, 0), runs);
#undef SAMPLE
    const double triangles = (double)mesh->triangle_count;
    printf("{\"mesh\": ");
    print_json_string(mesh_path);
    printf(", \"baseline\": \"embree %d.%d.%d %s\", \"triangles\": %zu, \"runs\": %d, ", RTC_VERSION_MAJOR,
           RTC_VERSION_MINOR, RTC_VERSION_PATCH, quality_name, mesh->triangle_count, runs);
    const char *names[FORMS] = {"single", "packet8", "packet16"};
    for (int engine = 0; engine < 2; engine++) {
        const engine_result *r = engine == 0 ? &ours : &theirs;
        printf("\"%s\": {\"build_ms\": %.3f, \"rays_per_s\": %.0f, ", engine == 0 ? "softrast" : "embree",
               median[engine], median[3 + engine]);
        print_sums(&r->sums[SINGLE]);
        for (int form = PACKET8; form < FORMS; form++) {
            printf(", \"%s\": {\"rays_per_s\": %.0f, ", names[form], median[3 + 3 * form + engine]);
            print_sums(&r->sums[form]);
            printf("}");
        }
        if (engine == 0)
            printf(", \"bytes_per_triangle\": {\"binary_nodes\": %.1f, \"wide_tree\": %.1f, "
                   "\"slots_and_vertices\": %.1f, \"total\": %.1f}}, ",
                   (double)our_bytes[0] / triangles, (double)our_bytes[1] / triangles, (double)our_bytes[2] / triangles,
                   ours.bytes_per_triangle);
        else
            printf(", \"bytes_per_triangle\": %.1f}, ", theirs.bytes_per_triangle);
    }
    const char *kind_names[KINDS] = {"outside_box", "box_no_hit", "hit"};
    printf("\"single_by_kind\": {");
    for (int kind = 0; kind < KINDS; kind++)
        printf("%s\"%s\": {\"rays\": %zu, \"softrast_ns\": %.1f, \"embree_ns\": %.1f, \"rays_per_s_ratio\": %.3f}",
               kind ? ", " : "", kind_names[kind], kinds[kind].rays, kinds[kind].softrast_ns, kinds[kind].embree_ns,
               kinds[kind].ratio);
    printf("}, ");
    printf("\"single_robust\": {\"softrast_rays_per_s\": %.0f, \"embree_rays_per_s\": %.0f, \"embree_hits\": %zu, "
           "\"rays_per_s_ratio\": %.3f}, ",
           1e9 / robust.softrast_ns, 1e9 / robust.embree_ns, robust.embree_hits, robust.ratio);
    printf("\"build_time_ratio\": %.3f, \"rays_per_s_ratio\": %.3f, \"packet8_rays_per_s_ratio\": %.3f, "
           "\"packet16_rays_per_s_ratio\": %.3f}\n",
           median[2], median[5], median[8], median[11]);
    free(samples);
    for (int form = PACKET8; form < FORMS; form++)
        free(tiled[form]);

    rtcReleaseDevice(device);
    mesh->positions = original;
    sr_mesh_destroy(mesh);
    free(padded);
    free(rays);
    return 0;
}
