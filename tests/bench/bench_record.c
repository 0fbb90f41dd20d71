/* bench_record.c — what recording costs a program and what playing a recording back costs a
 * viewer (softrast/record.h, issue 23's aims). Never run by `meson test`.
 *
 *   build/tests/bench/bench_record [--runs N] [--threads N] [--folder DIR] [--frames N]
 *
 * Recording (medians over frames, after the recorder's buffers have grown to the frame):
 *   warm:  frames of 1,000 lines, the time of sr_recorder_frame per line (aim: 5 ns);
 *   batch: a frame of 100,000 lines in one list, per line (aim: 3 ns) and per frame (aim: 1 ms);
 *   each to a file in --folder (the page cache) and to /dev/null (encoding and checksum alone).
 * Sizes: bytes per line, rotated box, sphere, capsule, moved node, and framing per frame.
 * Playback of a 10,000-frame file (--frames) of 1,000 lines a frame, every 200th frame 100,000
 * lines, with a scene of 200 nodes of which 50 move:
 *   first frame on screen (open, seek to frame 0, render 1280x720) with the index (aim: 50 ms)
 *   and without it (the scan of a crashed writer's file; aim: 1 s);
 *   a seek to a random 100,000-line frame, rendered at 1280x720 (aim: 33 ms), on 1 and N threads;
 *   a decoded 100,000-line frame rendered again (drawing alone), on 1 and N threads;
 *   a seek to a random frame, and playing forward, per frame.
 * The file's pages are in the page cache (just written): the times are the reader's, not the disk's.
 * Prints a line per measure and one JSON line at the end. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <softrast/record.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static double percentile(double *values, int count, double p)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    int index = (int)(p * (count - 1) + 0.5);
    return values[index];
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The process's CPU time (all its threads): on a machine shared with other jobs, what a 1-thread
 * measure would take on an idle core (the wall clock counts the time others had the core). */
static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint32_t next(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static float next_float(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)(next(state) >> 8) / 16777216.0f;
}

static sr_vec3 next_point(uint32_t *state)
{
    float x = next_float(state, -4, 4), y = next_float(state, 0, 3), z = next_float(state, -4, 4);
    return sr_vec3_make(x, y, z);
}

static void fail(const char *what, const sr_error *err)
{
    fprintf(stderr, "bench_record: %s: %s\n", what, err ? err->message : "");
    exit(1);
}

/* A list of `count` lines as a physics engine draws them: the 12 edges of small boxes scattered
 * over the scene (drawLine by drawLine), in runs of one colour. */
static sr_debug_list *lines_list(size_t count, uint32_t seed)
{
    sr_debug_list *list = NULL;
    sr_error err;
    if (sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = count, .segment_capacity = count}, &list, &err))
        fail("list", &err);
    uint32_t state = seed;
    static const uint32_t colors[4] = {SR_DEBUG_GREEN, SR_DEBUG_RED, SR_DEBUG_YELLOW, SR_DEBUG_CYAN};
    static const int edges[12][2] = {{0, 1}, {1, 3}, {3, 2}, {2, 0}, {4, 5}, {5, 7},
                                     {7, 6}, {6, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    sr_vec3 corners[8];
    for (size_t i = 0; i < count; i++) {
        if (i % 12 == 0) {
            sr_vec3 c = next_point(&state);
            float h = next_float(&state, 0.02f, 0.1f);
            for (int k = 0; k < 8; k++)
                corners[k] = sr_vec3_make(c.x + (k & 1 ? h : -h), c.y + (k & 2 ? h : -h), c.z + (k & 4 ? h : -h));
        }
        const int *e = edges[i % 12];
        sr_debug_line(list, corners[e[0]], corners[e[1]], sr_debug_style_color(colors[(i / 96) % 4]));
    }
    return list;
}

/* Times sr_recorder_frame over `frames` frames of `list` into `path`; returns the median ns a
 * frame (after `warmup` frames), and in *cpu_ns the mean CPU time a frame. */
static double time_recording(const char *path, sr_debug_list *list, int frames, int warmup, double *cpu_ns)
{
    sr_recorder *rec = NULL;
    sr_error err;
    if (sr_recorder_create(path, NULL, &rec, &err))
        fail(path, &err);
    double *times = malloc(sizeof(double) * (size_t)frames);
    double cpu_start = 0.0;
    for (int f = 0; f < warmup + frames; f++) {
        if (f == warmup)
            cpu_start = cpu_seconds();
        double start = now_seconds();
        if (sr_recorder_frame(rec, f / 60.0, &list, 1, NULL, &err))
            fail("frame", &err);
        double seconds = now_seconds() - start;
        if (f >= warmup)
            times[f - warmup] = seconds * 1e9;
    }
    *cpu_ns = (cpu_seconds() - cpu_start) * 1e9 / frames;
    double result = median(times, frames);
    free(times);
    sr_recorder_destroy(rec);
    return result;
}

typedef struct results {
    double warm_ns_per_line, warm_ns_per_line_null, batch_ns_per_line, batch_ms, batch_ns_per_line_null, batch_ms_null;
    double warm_cpu_ns, warm_cpu_ns_null, batch_cpu_ns, batch_cpu_ns_null; ///< CPU time a line (means)
    double line_bytes, box_bytes, sphere_bytes, capsule_bytes, moved_node_bytes, framing_bytes;
    double write_seconds, file_mib;
    double first_frame_ms, first_frame_scan_ms, scan_ms;
    double big_seek_ms[2], big_seek_p90_ms[2], big_seek_max_ms[2], big_decode_ms, big_cold_ms, big_seek_cpu_ms;
    double any_seek_ms, forward_ms;
    double render_ms[2], render_cpu_ms[2]; ///< a decoded 100,000-line frame rendered, 1 and N threads
} results;

/* ---- the playback file ---- */

static sr_mat4 rotation_of(uint32_t *state, sr_vec3 centre)
{
    sr_quat q = {next_float(state, -1, 1), next_float(state, -1, 1), next_float(state, -1, 1),
                 next_float(state, -1, 1)};
    return sr_transform_matrix((sr_transform){centre, q, {1, 1, 1}});
}

static void write_playback_file(const char *path, int frames, int threads, results *r)
{
    (void)threads;
    sr_scene *scene = NULL;
    sr_error err;
    if (sr_scene_create(&(sr_scene_desc){.name = "pile"}, &scene, &err))
        fail("scene", &err);
    sr_mesh *mesh = NULL;
    sr_mesh_create_box(sr_vec3_make(0.1f, 0.1f, 0.1f), 1, &mesh, NULL);
    sr_mesh_id box;
    sr_scene_add_mesh(scene, mesh, "box", &box, NULL);
    enum { NODES = 200, MOVING = 50 };
    sr_node_id nodes[NODES];
    uint32_t state = 7;
    for (int i = 0; i < NODES; i++) {
        sr_transform t = sr_transform_identity();
        t.translation = next_point(&state);
        sr_scene_add_node(scene, &(sr_node_desc){.transform = t, .mesh = box}, &nodes[i], NULL);
    }
    sr_scene_set_camera(scene, &(sr_camera){.eye = {0, 5, 10}, .target = {0, 1, 0}});
    sr_debug_list *small = lines_list(1000, 11), *big = lines_list(100000, 13);
    sr_debug_list *shapes = NULL;
    sr_debug_list_create(NULL, &shapes, NULL);
    sr_recorder *rec = NULL;
    if (sr_recorder_create(path, &(sr_recorder_desc){.title = "bench_record playback"}, &rec, &err))
        fail(path, &err);
    double start = now_seconds();
    uint64_t nodes_before = 0, nodes_bytes = 0;
    int moved_frames = 0;
    for (int f = 0; f < frames; f++) {
        for (int i = 0; i < MOVING; i++) {
            sr_transform t = sr_transform_identity();
            t.translation = sr_vec3_make((float)(i % 10) - 5.0f, 3.0f - 0.001f * (float)f, (float)(i / 10) - 2.5f);
            t.rotation = sr_quat_from_euler_degrees(sr_vec3_make((float)f, (float)i, 0));
            sr_scene_set_transform(scene, nodes[i], t, NULL);
        }
        sr_debug_list_clear(shapes, NULL);
        for (int i = 0; i < 20; i++)
            sr_debug_box(shapes, (sr_aabb){{-0.1f, -0.1f, -0.1f}, {0.1f, 0.1f, 0.1f}},
                         rotation_of(&state, next_point(&state)), sr_debug_style_color(SR_DEBUG_GREEN));
        sr_debug_list *lists[2] = {f % 200 == 100 ? big : small, shapes};
        if (sr_recorder_frame(rec, f / 60.0, lists, 2, scene, &err))
            fail("frame", &err);
        sr_recorder_stats stats = sr_recorder_get_stats(rec);
        if (f % 60) { // not a keyframe: the moving nodes' cost
            nodes_bytes += stats.bytes.nodes - nodes_before;
            moved_frames++;
        }
        nodes_before = stats.bytes.nodes;
    }
    if (sr_recorder_close(rec, &err))
        fail("close", &err);
    r->write_seconds = now_seconds() - start;
    r->moved_node_bytes = (double)nodes_bytes / ((double)moved_frames * MOVING);
    sr_debug_list_destroy(small);
    sr_debug_list_destroy(big);
    sr_debug_list_destroy(shapes);
    sr_scene_destroy(scene);
}

/* The same file without its index and trailer: what a crashed writer leaves. */
static void copy_without_index(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (!in || !out)
        fail("copy", NULL);
    fseek(in, -32, SEEK_END);
    unsigned char trailer[32];
    if (fread(trailer, 1, 32, in) != 32)
        fail("copy", NULL);
    uint64_t index = 0;
    for (int k = 7; k >= 0; k--)
        index = index << 8 | trailer[8 + k];
    fseek(in, 0, SEEK_SET);
    static char chunk[1 << 20];
    uint64_t left = index;
    while (left) {
        size_t n = fread(chunk, 1, left < sizeof chunk ? (size_t)left : sizeof chunk, in);
        if (!n || fwrite(chunk, 1, n, out) != n)
            fail("copy", NULL);
        left -= n;
    }
    fclose(in);
    fclose(out);
}

static double first_frame_ms(const char *path, sr_renderer *renderer, sr_framebuffer *fb, double *open_ms)
{
    sr_error err;
    double start = now_seconds();
    sr_recording *rec = NULL;
    if (sr_recording_open(path, NULL, &rec, &err))
        fail(path, &err);
    double opened = now_seconds();
    if (sr_recording_seek(rec, 0, NULL, &err) || sr_recording_render(rec, renderer, fb, NULL, &err))
        fail("first frame", &err);
    double done = now_seconds();
    sr_recording_destroy(rec);
    if (open_ms)
        *open_ms = (opened - start) * 1e3;
    return (done - start) * 1e3;
}

int main(int argc, char **argv)
{
    int runs = 11, threads = 2, frames = 10000;
    // The page cache without a disk behind it where there is one: the recorder's own cost, not the
    // disk's (an ext4 file on this machine's virtual disk takes new blocks at ~230 MB/s).
    const char *folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--folder") == 0 && i + 1 < argc)
            folder = argv[++i];
        else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
            frames = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_record [--runs N] [--threads N] [--folder DIR] [--frames N]\n");
            return 2;
        }
    }
    if (runs < 1 || threads < 1 || frames < 400) {
        fprintf(stderr, "bench_record: --runs and --threads at least 1, --frames at least 400\n");
        return 2;
    }
    results r = {0};
    char path[1024], scan_path[1024];
    snprintf(path, sizeof path, "%s/bench_record.srrec", folder);
    snprintf(scan_path, sizeof scan_path, "%s/bench_record_crashed.srrec", folder);

    // Recording.
    sr_debug_list *warm = lines_list(1000, 1), *batch = lines_list(100000, 2);
    r.warm_ns_per_line = time_recording(path, warm, 200 * runs, 20, &r.warm_cpu_ns) / 1000.0;
    r.warm_ns_per_line_null = time_recording("/dev/null", warm, 200 * runs, 20, &r.warm_cpu_ns_null) / 1000.0;
    r.warm_cpu_ns /= 1000.0, r.warm_cpu_ns_null /= 1000.0;
    double batch_ns = time_recording(path, batch, 4 * runs, 3, &r.batch_cpu_ns);
    r.batch_ns_per_line = batch_ns / 100000.0;
    r.batch_ms = batch_ns * 1e-6;
    double batch_null_ns = time_recording("/dev/null", batch, 4 * runs, 3, &r.batch_cpu_ns_null);
    r.batch_ns_per_line_null = batch_null_ns / 100000.0;
    r.batch_ms_null = batch_null_ns * 1e-6;
    r.batch_cpu_ns /= 100000.0, r.batch_cpu_ns_null /= 100000.0;
    printf("recording, 1,000 lines a frame:   %.2f ns a line (%.2f to /dev/null); CPU time %.2f (%.2f)   aim 5\n",
           r.warm_ns_per_line, r.warm_ns_per_line_null, r.warm_cpu_ns, r.warm_cpu_ns_null);
    printf("recording, 100,000 lines at once: %.2f ns a line, %.3f ms a frame (%.2f ns, %.3f ms to /dev/null); CPU "
           "time %.2f ns a line (%.2f)   aims 3 ns, 1 ms\n",
           r.batch_ns_per_line, r.batch_ms, r.batch_ns_per_line_null, r.batch_ms_null, r.batch_cpu_ns,
           r.batch_cpu_ns_null);

    // Sizes of single kinds.
    sr_recorder *rec = NULL;
    sr_error err;
    if (sr_recorder_create(path, NULL, &rec, &err))
        fail(path, &err);
    sr_debug_list *shapes = NULL;
    sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = 40000, .segment_capacity = 40000 * 140}, &shapes, NULL);
    uint32_t state = 3;
    for (int i = 0; i < 10000; i++) {
        sr_debug_box(shapes, (sr_aabb){{-0.2f, -0.1f, -0.3f}, {0.2f, 0.1f, 0.3f}},
                     rotation_of(&state, next_point(&state)),
                     sr_debug_style_color(i % 2 ? SR_DEBUG_GREEN : SR_DEBUG_RED));
        sr_debug_sphere(shapes, next_point(&state), 0.2f, sr_debug_style_color(SR_DEBUG_GREEN));
        sr_vec3 a = next_point(&state);
        sr_debug_capsule(shapes, a, sr_vec3_add(a, sr_vec3_make(0, 0.5f, 0)), 0.1f, sr_debug_style_color(SR_DEBUG_RED));
    }
    sr_debug_list *size_lists[2] = {warm, shapes};
    sr_recorder_frame(rec, 0, size_lists, 2, NULL, NULL);
    sr_recorder_stats stats = sr_recorder_get_stats(rec);
    sr_recorder_destroy(rec);
    r.line_bytes = (double)stats.bytes.items[SR_DEBUG_ITEM_LINE] / (double)stats.bytes.item_counts[SR_DEBUG_ITEM_LINE];
    r.box_bytes = (double)stats.bytes.items[SR_DEBUG_ITEM_BOX] / (double)stats.bytes.item_counts[SR_DEBUG_ITEM_BOX];
    r.sphere_bytes =
        (double)stats.bytes.items[SR_DEBUG_ITEM_SPHERE] / (double)stats.bytes.item_counts[SR_DEBUG_ITEM_SPHERE];
    r.capsule_bytes =
        (double)stats.bytes.items[SR_DEBUG_ITEM_CAPSULE] / (double)stats.bytes.item_counts[SR_DEBUG_ITEM_CAPSULE];
    sr_debug_list_destroy(warm);
    sr_debug_list_destroy(batch);
    sr_debug_list_destroy(shapes);

    // Playback.
    write_playback_file(path, frames, threads, &r);
    sr_recording *recording = NULL;
    if (sr_recording_open(path, NULL, &recording, &err))
        fail(path, &err);
    const sr_recording_info *info = sr_recording_get_info(recording);
    r.file_mib = (double)info->file_bytes / (1 << 20);
    r.framing_bytes = (double)info->bytes.framing / (double)info->frame_count;
    printf("sizes: a line %.2f bytes (aim 26), a rotated box %.2f (44), a sphere %.2f (20), a capsule %.2f (32), a "
           "moved node %.2f (32), framing %.1f a frame (64)\n",
           r.line_bytes, r.box_bytes, r.sphere_bytes, r.capsule_bytes, r.moved_node_bytes, r.framing_bytes);
    printf("playback file: %d frames, %.1f MiB, written in %.2f s\n", frames, r.file_mib, r.write_seconds);

    sr_framebuffer *fb = NULL;
    sr_renderer *renderers[2] = {NULL, NULL};
    sr_framebuffer_create(&(sr_framebuffer_desc){.width = 1280, .height = 720}, &fb, NULL);
    sr_renderer_create(&(sr_renderer_desc){.threads = 1}, &renderers[0], NULL);
    sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &renderers[1], NULL);
    double *times = malloc(sizeof(double) * (size_t)(runs * 8 + 64));
    double seek_only[64], cpu[64];
    for (int k = 0; k < runs; k++)
        times[k] = first_frame_ms(path, renderers[1], fb, NULL);
    r.first_frame_ms = median(times, runs);
    copy_without_index(path, scan_path);
    double *scans = malloc(sizeof(double) * (size_t)runs);
    for (int k = 0; k < runs; k++)
        times[k] = first_frame_ms(scan_path, renderers[1], fb, &scans[k]);
    r.first_frame_scan_ms = median(times, runs);
    r.scan_ms = median(scans, runs);
    free(scans);
    printf("first frame on screen: %.1f ms with the index (aim 50), %.1f ms without it, of which %.1f ms of scan (aim "
           "1000)\n",
           r.first_frame_ms, r.first_frame_scan_ms, r.scan_ms);

    // Seeks to 100,000-line frames: in a viewer's session (one recording, its cache holding a few
    // big frames, so most seeks miss and decode into pooled lists), and the first seek of a fresh
    // recording (its lists' memory new).
    int big_frames = frames / 200;
    for (int t = 0; t < 2; t++) {
        sr_recording *session = NULL;
        if (sr_recording_open(path, NULL, &session, &err))
            fail(path, &err);
        for (int k = 0; k < 12; k++)
            sr_recording_seek(session, (uint64_t)((k % big_frames) * 200 + 100), NULL, NULL);
        int count = runs * 3 < 64 ? runs * 3 : 64;
        for (int k = 0; k < count; k++) {
            uint64_t f = (uint64_t)((next(&state) % (uint32_t)big_frames) * 200 + 100);
            double start = now_seconds(), cpu_start = cpu_seconds();
            if (sr_recording_seek(session, f, NULL, &err))
                fail("seek", &err);
            double sought = now_seconds();
            if (sr_recording_render(session, renderers[t], fb, NULL, &err))
                fail("render", &err);
            times[k] = (now_seconds() - start) * 1e3;
            cpu[k] = (cpu_seconds() - cpu_start) * 1e3;
            seek_only[k] = (sought - start) * 1e3;
        }
        sr_recording_cache_stats cache = sr_recording_get_cache_stats(session);
        sr_recording_destroy(session);
        r.big_decode_ms = median(seek_only, count);
        r.big_seek_max_ms[t] = percentile(times, count, 1.0);
        r.big_seek_p90_ms[t] = percentile(times, count, 0.9);
        r.big_seek_ms[t] = median(times, count);
        if (t == 0)
            r.big_seek_cpu_ms = median(cpu, count);
        printf("seek to a 100,000-line frame and render it at 1280x720, %d thread%s: median %.1f ms (the seek %.1f, "
               "%.0f%% of seeks missed the cache), 90%% %.1f, max %.1f (aim 33)",
               t ? threads : 1, t && threads > 1 ? "s" : "", r.big_seek_ms[t], r.big_decode_ms,
               100.0 * (double)cache.misses / (double)(cache.hits + cache.misses), r.big_seek_p90_ms[t],
               r.big_seek_max_ms[t]);
        printf(t == 0 ? "; CPU time %.1f ms\n" : "\n", r.big_seek_cpu_ms);
    }
    // Drawing alone: a 100,000-line frame already decoded, rendered again and again (the viewer
    // redrawing a paused frame as the camera turns), on 1 and N threads.
    {
        sr_recording *session = NULL;
        if (sr_recording_open(path, NULL, &session, &err) || sr_recording_seek(session, 100, NULL, &err))
            fail("seek", &err);
        int count = runs * 3 < 64 ? runs * 3 : 64;
        for (int t = 0; t < 2; t++) {
            for (int k = 0; k < count + 1; k++) {
                double start = now_seconds(), cpu_start = cpu_seconds();
                if (sr_recording_render(session, renderers[t], fb, NULL, &err))
                    fail("render", &err);
                if (k > 0) { // the first one tessellates the frame's shapes for the first time
                    times[k - 1] = (now_seconds() - start) * 1e3;
                    cpu[k - 1] = (cpu_seconds() - cpu_start) * 1e3;
                }
            }
            r.render_ms[t] = median(times, count);
            r.render_cpu_ms[t] = median(cpu, count);
        }
        sr_recording_destroy(session);
        printf("render a decoded 100,000-line frame at 1280x720: 1 thread %.1f ms (CPU %.1f), %d threads %.1f ms "
               "(CPU %.1f, all threads)\n",
               r.render_ms[0], r.render_cpu_ms[0], threads, r.render_ms[1], r.render_cpu_ms[1]);
    }
    for (int k = 0; k < 8; k++) {
        sr_recording *fresh = NULL;
        sr_recording_open(path, NULL, &fresh, NULL);
        double start = now_seconds();
        if (sr_recording_seek(fresh, (uint64_t)((k % big_frames) * 200 + 100), NULL, &err))
            fail("seek", &err);
        seek_only[k] = (now_seconds() - start) * 1e3;
        sr_recording_destroy(fresh);
    }
    r.big_cold_ms = median(seek_only, 8);
    printf("the first seek of a fresh recording to a 100,000-line frame (its memory new): %.1f ms\n", r.big_cold_ms);
    // Random seeks anywhere (the state from the nearest keyframe), and playing forward.
    int count = runs * 8;
    for (int k = 0; k < count; k++) {
        uint64_t f = next(&state) % (uint32_t)frames;
        double start = now_seconds();
        if (sr_recording_seek(recording, f, NULL, &err))
            fail("seek", &err);
        times[k] = (now_seconds() - start) * 1e3;
    }
    r.any_seek_ms = median(times, count);
    uint64_t from = next(&state) % (uint32_t)(frames - 300);
    sr_recording_seek(recording, from, NULL, NULL);
    for (int k = 0; k < 64; k++) {
        uint64_t f = from + 1 + (uint64_t)k;
        if (f % 200 == 100)
            f++;
        double start = now_seconds();
        if (sr_recording_seek(recording, f, NULL, &err))
            fail("seek", &err);
        times[k] = (now_seconds() - start) * 1e3;
    }
    r.forward_ms = median(times, 64);
    printf("seek to a random frame (no render): median %.3f ms; playing forward: %.3f ms a frame\n", r.any_seek_ms,
           r.forward_ms);
    sr_recording_cache_stats cache = sr_recording_get_cache_stats(recording);
    printf("cache: %.1f MiB held of %.0f MiB, %llu hits, %llu misses, %llu evictions\n", cache.bytes / 1048576.0,
           cache.limit / 1048576.0, (unsigned long long)cache.hits, (unsigned long long)cache.misses,
           (unsigned long long)cache.evictions);
    sr_recording_destroy(recording);
    free(times);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderers[0]);
    sr_renderer_destroy(renderers[1]);
    unlink(path);
    unlink(scan_path);

    printf("{\"bench\": \"record\", \"runs\": %d, \"threads\": %d, \"frames\": %d, "
           "\"record_ns_per_line\": {\"warm\": %.3f, \"warm_null\": %.3f, \"batch\": %.3f, \"batch_null\": %.3f}, "
           "\"record_cpu_ns_per_line\": {\"warm\": %.3f, \"warm_null\": %.3f, \"batch\": %.3f, \"batch_null\": %.3f}, "
           "\"record_batch_ms\": %.4f, \"record_batch_null_ms\": %.4f, "
           "\"bytes\": {\"line\": %.2f, \"box\": %.2f, \"sphere\": %.2f, \"capsule\": %.2f, \"moved_node\": %.2f, "
           "\"framing\": %.2f}, \"file_mib\": %.1f, "
           "\"first_frame_ms\": %.2f, \"first_frame_scan_ms\": %.2f, \"scan_ms\": %.2f, "
           "\"big_seek_ms\": [%.2f, %.2f], \"big_seek_p90_ms\": [%.2f, %.2f], \"big_seek_cpu_ms\": %.2f, "
           "\"big_decode_ms\": %.2f, \"big_cold_ms\": %.2f, \"render_ms\": [%.2f, %.2f], \"render_cpu_ms\": [%.2f, %.2f], "
           "\"any_seek_ms\": %.4f, "
           "\"forward_ms\": %.4f}\n",
           runs, threads, frames, r.warm_ns_per_line, r.warm_ns_per_line_null, r.batch_ns_per_line,
           r.batch_ns_per_line_null, r.warm_cpu_ns, r.warm_cpu_ns_null, r.batch_cpu_ns, r.batch_cpu_ns_null, r.batch_ms,
           r.batch_ms_null, r.line_bytes, r.box_bytes, r.sphere_bytes, r.capsule_bytes, r.moved_node_bytes,
           r.framing_bytes, r.file_mib, r.first_frame_ms, r.first_frame_scan_ms, r.scan_ms, r.big_seek_ms[0],
           r.big_seek_ms[1], r.big_seek_p90_ms[0], r.big_seek_p90_ms[1], r.big_seek_cpu_ms, r.big_decode_ms,
           r.big_cold_ms, r.render_ms[0], r.render_ms[1], r.render_cpu_ms[0], r.render_cpu_ms[1], r.any_seek_ms,
           r.forward_ms);
    return 0;
}
