/* tests/bench/bench_viewer_collide.c — benchmark of the viewer (softrast/viewer.h) showing a pile
 * of N shapes (default 1,000: spheres, boxes, capsules, cylinders, cones and hulls of three sizes,
 * drawn solid, on a jittered grid of spacing 1 so that neighbours touch, penetrate or come near)
 * with the collision overlays on (contacts by default; --overlays contacts,closest,pairs), the HUD
 * on, at 1280x720 with 2 rendering threads, every shape moving a little every frame (a wobble of
 * up to 0.05 and a turn of up to 3 degrees, as bench_scene_collide moves them). Each frame is
 * what a program embedding the viewer does: set the nodes' transforms, then sr_viewer_frame
 * (scene update, render, collision pass, overlays, HUD, the copy to SDL's texture and present;
 * SDL's dummy video driver unless SDL_VIDEODRIVER says otherwise, so no display is needed).
 * Medians over the frames after WARMUP, of each frame's wall time (the loop's: moving the
 * shapes included), the viewer's own frame and render times, and the process's CPU time per
 * frame (every thread: on a loaded machine the wall time also counts waits for a core, the CPU
 * time does not); the frames per second they allow; and the pass's counts. One JSON line on
 * stdout. Not a test.
 *
 *   bench_viewer_collide [--shapes N] [--frames F] [--threads T] [--size WxH]
 *                        [--overlays contacts|closest|pairs,...] [--still] [--save FILE]
 *
 * --save FILE: the last frame as a picture (to look at what was measured).
 */
#include <softrast/viewer.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARMUP 5

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double process_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double thread_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static uint64_t state = 0x2545F4914F6CDD1Dull;
static double uniform(double low, double high)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return low + (high - low) * (double)((state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static void check(sr_status status, const sr_error *err)
{
    if (status != SR_OK) {
        fprintf(stderr, "bench_viewer_collide: %s\n", err->message);
        exit(1);
    }
}

static long parse_arg(const char *name, const char *value, long low, long high)
{
    char *end = NULL;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || *end != '\0' || v < low || v > high) {
        fprintf(stderr, "bench_viewer_collide: %s: expected a whole number from %ld to %ld\n", name, low, high);
        exit(2);
    }
    return v;
}

static uint32_t parse_overlays(const char *value)
{
    uint32_t items = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", value ? value : "");
    for (char *word = strtok(copy, ","); word; word = strtok(NULL, ",")) {
        if (strcmp(word, "contacts") == 0)
            items |= SR_OVERLAY_CONTACTS;
        else if (strcmp(word, "closest") == 0)
            items |= SR_OVERLAY_CLOSEST;
        else if (strcmp(word, "pairs") == 0)
            items |= SR_OVERLAY_PAIRS;
        else if (strcmp(word, "none") != 0) {
            fprintf(stderr, "bench_viewer_collide: --overlays: '%s' is not contacts, closest, pairs or none\n", word);
            exit(2);
        }
    }
    return items;
}

typedef struct body {
    sr_node_id node;
    sr_vec3 home, wobble_axis;
    float phase, speed, spin;
} body;

int main(int argc, char **argv)
{
    long shapes = 1000, frames = 120, threads = 2, width = 1280, height = 720;
    uint32_t overlays = SR_OVERLAY_CONTACTS;
    const char *overlay_names = "contacts";
    int still = 0;
    const char *save = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shapes") == 0)
            shapes = parse_arg("--shapes", i + 1 < argc ? argv[++i] : NULL, 2, 100000);
        else if (strcmp(argv[i], "--frames") == 0)
            frames = parse_arg("--frames", i + 1 < argc ? argv[++i] : NULL, 1, 100000);
        else if (strcmp(argv[i], "--threads") == 0)
            threads = parse_arg("--threads", i + 1 < argc ? argv[++i] : NULL, 1, SR_MAX_THREADS);
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc && sscanf(argv[++i], "%ldx%ld", &width, &height) == 2 &&
                 width > 0 && height > 0 && width <= 8192 && height <= 8192)
            continue;
        else if (strcmp(argv[i], "--overlays") == 0 && i + 1 < argc)
            overlays = parse_overlays(overlay_names = argv[++i]);
        else if (strcmp(argv[i], "--still") == 0)
            still = 1;
        else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
            save = argv[++i];
        else {
            fprintf(stderr, "usage: bench_viewer_collide [--shapes N] [--frames F] [--threads T] [--size WxH] "
                            "[--overlays contacts|closest|pairs,...|none] [--still] [--save FILE]\n");
            return 2;
        }
    }
    setenv("SDL_VIDEODRIVER", "dummy", 0);
    sr_error err = {0};
    sr_scene *scene = NULL;
    check(sr_scene_create(NULL, &scene, &err), &err);
    sr_hull *hulls[3];
    for (int h = 0; h < 3; h++) {
        sr_dvec3 points[16];
        for (int i = 0; i < 16; i++) {
            double z = uniform(-1, 1), angle = uniform(0, 2 * 3.14159265358979), r = sqrt(1 - z * z);
            points[i] = (sr_dvec3){0.45 * r * cos(angle), 0.35 * z, 0.45 * r * sin(angle)};
        }
        check(sr_hull_create(points, 16, &hulls[h], &err), &err);
    }
    sr_material_id materials[6];
    for (int m = 0; m < 6; m++) {
        float hue = (float)m / 6.0f;
        sr_material_desc material = {.cull = SR_CULL_BACK};
        material.base_color = sr_vec4_make(0.5f + 0.45f * sinf(6.28f * hue), 0.5f + 0.45f * sinf(6.28f * hue + 2.1f),
                                           0.5f + 0.45f * sinf(6.28f * hue + 4.2f), 1.0f);
        check(sr_scene_add_material(scene, &material, &materials[m], &err), &err);
    }
    int side = (int)ceil(cbrt((double)shapes));
    body *bodies = calloc((size_t)shapes, sizeof *bodies);
    double *wall = malloc(sizeof(double) * (size_t)frames), *cpu = malloc(sizeof(double) * (size_t)frames),
           *main_cpu = malloc(sizeof(double) * (size_t)frames);
    if (!bodies || !wall || !cpu || !main_cpu) {
        fprintf(stderr, "bench_viewer_collide: out of memory\n");
        return 1;
    }
    static const double sizes[3] = {0.38, 0.47, 0.56};
    for (long i = 0; i < shapes; i++) {
        double size = sizes[(i / 6) % 3]; // three sizes: the scene shares one mesh per equal shape
        sr_shape shape;
        switch (i % 6) {
        case 0:
            shape = sr_shape_sphere(size);
            break;
        case 1:
            shape = sr_shape_box((sr_dvec3){size, 0.8 * size, 0.9 * size});
            break;
        case 2:
            shape = sr_shape_capsule(0.5 * size, 0.6 * size);
            break;
        case 3:
            shape = sr_shape_cylinder(size, 0.7 * size);
            break;
        case 4:
            shape = sr_shape_cone(size, 0.8 * size);
            break;
        default:
            shape = sr_shape_hull(hulls[i % 3]);
            break;
        }
        body *b = &bodies[i];
        const double jitter[3] = {uniform(-0.1, 0.1), uniform(-0.1, 0.1), uniform(-0.1, 0.1)};
        b->home = sr_vec3_make((float)(i % side + jitter[0]), (float)((i / side) % side + jitter[1]),
                               (float)(i / ((long)side * side) + jitter[2]));
        const double axis[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
        b->wobble_axis = sr_vec3_normalize(sr_vec3_make((float)axis[0], (float)axis[1], (float)axis[2] + 0.01f));
        b->phase = (float)uniform(0, 6.28);
        b->speed = (float)uniform(0.05, 0.15);
        b->spin = (float)uniform(-0.05, 0.05);
        sr_transform t = sr_transform_identity();
        t.translation = b->home;
        t.rotation = sr_quat_from_axis_angle(b->wobble_axis, b->phase);
        sr_node_shape_desc desc = {.shape = shape, .draw = SR_SHAPE_DRAW_SOLID};
        check(sr_scene_add_node(
                  scene, &(sr_node_desc){.name = "shape", .transform = t, .material = materials[i % 6], .shape = &desc},
                  &b->node, &err),
              &err);
    }
    check(sr_scene_update(scene, NULL, &err), &err);
    sr_camera camera = sr_camera_fit_box(sr_scene_bounds(scene), sr_vec3_make(0, 1, 0), (float)width / (float)height);
    sr_scene_set_camera(scene, &camera);

    sr_viewer *viewer = NULL;
    check(sr_viewer_create(&(sr_viewer_desc){.title = "bench_viewer_collide",
                                             .width = (int)width,
                                             .height = (int)height,
                                             .threads = (int)threads,
                                             .hidden = true},
                           scene, &viewer, &err),
          &err);
    sr_viewer_set_overlays(viewer, overlays | SR_OVERLAY_HUD);
    for (long frame = -WARMUP; frame < frames; frame++) {
        double start = now_ms(), cpu_start = process_cpu_ms(), main_start = thread_cpu_ms();
        if (!still) {
            float time = (float)(frame + WARMUP);
            for (long i = 0; i < shapes; i++) {
                body *b = &bodies[i];
                float s = sinf(b->phase + b->speed * time), c = cosf(b->phase + 0.7f * b->speed * time);
                sr_transform t = sr_transform_identity();
                t.translation = sr_vec3_add(b->home, sr_vec3_make(0.05f * s, 0.05f * c, 0.05f * s * c));
                t.rotation = sr_quat_from_axis_angle(b->wobble_axis, b->phase + b->spin * s);
                check(sr_scene_set_transform(scene, b->node, t, &err), &err);
            }
        } else {
            sr_viewer_request_redraw(viewer);
        }
        if (!sr_viewer_frame(viewer, NULL, &err)) {
            fprintf(stderr, "bench_viewer_collide: the viewer stopped: %s\n", err.message[0] ? err.message : "closed");
            return 1;
        }
        if (frame < 0)
            continue;
        wall[frame] = now_ms() - start;
        cpu[frame] = process_cpu_ms() - cpu_start;
        main_cpu[frame] = thread_cpu_ms() - main_start;
    }
    if (save)
        check(sr_viewer_save_frame(viewer, save, &err), &err);
    sr_viewer_stats stats = sr_viewer_get_stats(viewer);
    double wall_median = median(wall, (int)frames), cpu_median = median(cpu, (int)frames),
           main_median = median(main_cpu, (int)frames);
    // On `threads` free cores a frame takes at least its CPU time spread over them, and at least
    // the main thread's own CPU time (it runs the update, the collision pass, the overlays' lists
    // and the copy to the texture alone, and takes part in the rendering).
    double bound = cpu_median / (double)threads > main_median ? cpu_median / (double)threads : main_median;
    // The pass's counts of the last frame, read from the HUD's source: a pass over the scene as
    // it is now (the same answers: every pair is reused).
    sr_collision *collision = NULL;
    check(sr_collision_create(&collision, &err), &err);
    check(sr_scene_collide(scene, NULL, collision, &err), &err);
    printf("{\"benchmark\": \"viewer_collide\", \"shapes\": %ld, \"frames\": %ld, \"size\": [%ld, %ld], "
           "\"threads\": %ld, \"overlays\": \"%s\", \"moving\": %s, "
           "\"per_frame_median_ms\": {\"wall\": %.3f, \"viewer_frame\": %.3f, \"render\": %.3f}, "
           "\"per_frame_median_cpu_ms\": {\"process\": %.3f, \"main_thread\": %.3f}, \"fps_from_wall\": %.1f, "
           "\"fps_bound_from_cpu_on_%ld_free_cores\": %.1f, "
           "\"pairs\": %u, \"contacts\": %u, \"near\": %u}\n",
           shapes, frames, width, height, threads, overlay_names, still ? "false" : "true", wall_median,
           stats.median_frame_ms, stats.median_render_ms, cpu_median, main_median, 1000.0 / wall_median, threads,
           1000.0 / bound, collision->stats.pairs, collision->stats.contacts, collision->stats.near);
    sr_collision_destroy(collision);
    sr_viewer_destroy(viewer);
    sr_scene_destroy(scene);
    for (int h = 0; h < 3; h++)
        sr_hull_destroy(hulls[h]);
    free(bodies);
    free(wall);
    free(cpu);
    free(main_cpu);
    return 0;
}
