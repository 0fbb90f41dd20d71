/* bench_view_recording.c — the viewer on a big recording: how soon the first frame is on screen,
 * how soon any frame is on screen after a seek (frames of 100,000 lines among them), the frames
 * of play one after another, and the memory the viewer holds meanwhile, whatever the file's size.
 * Never run by `meson test`.
 *
 *   build/tests/bench/bench_view_recording [--frames N] [--lines L] [--big-every K] [--big-lines B]
 *        [--seeks S] [--idle I] [--play P] [--size WxH] [--threads T] [--file PATH] [--keep]
 *
 * Makes a recording of N frames (default 10,000) of L lines each (default 1,000; positions and
 * colours vary from frame to frame), every K-th frame (default 500) with B lines (default
 * 100,000) instead, in the current folder (or reads PATH), closed cleanly. Then, in a hidden
 * viewer of W x H (default 1280 x 720) under SDL's dummy driver:
 *   - first_frame_ms: from sr_viewer_create to the first frame of the recording presented (the
 *     index read, the frame decoded and drawn), with the index, in a fresh process (SDL's start
 *     and the first touch of the framebuffers and window included); first_frame_warm_ms the same
 *     once more at the end (the recording's own part), and first_frame_no_index_warm_ms after
 *     cutting the file's last byte, so that the reader has no index and scans the records (a
 *     crashed writer; the byte is put back afterwards);
 *   - seek_ms: S random seeks (default 100) each until its frame is presented, medians and maxima,
 *     for the big frames (first visits: decoded from the file; again: from the cache) and the
 *     others apart; the first visits' CPU time also split into those that touched new memory (at
 *     least NEW_MEMORY_FAULTS page faults: the cache still filling) and the others (decoded into
 *     the memory of the frames the full cache dropped, or into memory the viewer prepared while
 *     idle); after the first frame and after each seek the viewer is given I frames with nothing
 *     to draw, untimed (default 4: a viewer left alone for a moment between a user's seeks takes
 *     its idle steps one after another: the file's largest frame read, a spare list made, the
 *     renderer's line memory readied, then nothing; 0: seeks back to back);
 *   - play_ms: P frames one after another (default 3,000: far past the cache's bound), median;
 *   - idle_cpu_ms: the CPU time of the idle frames after each seek (the memory the viewer
 *     prepares there for the next first visit while the cache fills; its wait for input excluded);
 *   - the process's peak resident memory (VmHWM) and its size at the end (VmRSS);
 *   - each timing's CPU time too (the process's, all threads; "_cpu_ms"): the machine's load
 *     stretches the wall-clock figures, not these; and the page faults of the seeks and of play
 *     (medians, "_faults": memory the process touches for the first time, each a trip to the
 *     kernel).
 * Prints one JSON line. The file is removed at the end unless --keep (or --file). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <softrast/record.h>
#include <softrast/viewer.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The CPU time of the whole process (every rendering thread), in milliseconds: on a busy machine
 * the wall-clock figures grow with the load, this one does not. */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/// A seek with this many page faults or more decoded into new memory (a 100,000-line frame's
/// lists are some 16 MB: 4,000 pages, or 600 with transparent huge pages).
#define NEW_MEMORY_FAULTS 64

/* The process's minor page faults so far (pages touched for the first time). */
static double page_faults(void)
{
    struct rusage usage;
    return getrusage(RUSAGE_SELF, &usage) == 0 ? (double)usage.ru_minflt : 0.0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count)
{
    if (count <= 0)
        return 0.0;
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static double maximum(const double *values, int count)
{
    double most = 0.0;
    for (int i = 0; i < count; i++)
        most = values[i] > most ? values[i] : most;
    return most;
}

/* A line of /proc/self/status in KiB ("VmHWM:", "VmRSS:"). */
static long status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long value = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0) {
            value = atol(line + strlen(key));
            break;
        }
    fclose(f);
    return value;
}

/* xorshift: the same file on every run. */
static uint32_t next(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static float unit(uint32_t *state)
{
    return (float)(next(state) >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

static const uint32_t palette[8] = {SR_DEBUG_RED,  SR_DEBUG_GREEN,   SR_DEBUG_BLUE,  SR_DEBUG_YELLOW,
                                    SR_DEBUG_CYAN, SR_DEBUG_MAGENTA, SR_DEBUG_WHITE, SR_DEBUG_GREY};

typedef struct options {
    long frames, lines, big_every, big_lines, seeks, idle, play;
    int width, height, threads;
    const char *file;
    bool keep;
} options;

static bool make_file(const options *o, const char *path, double *seconds, sr_error *err)
{
    sr_recorder *recorder = NULL;
    sr_debug_list *list = NULL;
    double start = now_ms();
    const char *names[1] = {"lines"};
    sr_status status = sr_recorder_create(
        path, &(sr_recorder_desc){.title = "bench_view_recording", .list_names = names, .list_name_count = 1},
        &recorder, err);
    if (status == SR_OK)
        status = sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = (size_t)o->big_lines + 16,
                                                            .segment_capacity = (size_t)o->big_lines + 16},
                                      &list, err);
    sr_camera camera = sr_camera_look_at(sr_vec3_make(0.0f, 0.5f, 3.2f), sr_vec3_make(0.0f, 0.0f, 0.0f));
    if (status == SR_OK)
        status = sr_recorder_set_camera(recorder, &camera, err);
    uint32_t state = 12345u;
    for (long f = 0; f < o->frames && status == SR_OK; f++) {
        long lines = o->big_every > 0 && f % o->big_every == o->big_every / 2 ? o->big_lines : o->lines;
        sr_debug_list_clear(list, NULL);
        for (long i = 0; i < lines; i++) {
            sr_vec3 a = sr_vec3_make(unit(&state), unit(&state), unit(&state));
            sr_vec3 b = sr_vec3_add(a, sr_vec3_make(0.1f * unit(&state), 0.1f * unit(&state), 0.1f * unit(&state)));
            sr_debug_line(list, a, b, sr_debug_style_color(palette[(i + f) & 7]));
        }
        if (f % 1000 == 0) {
            char text[64];
            snprintf(text, sizeof text, "frame %ld", f);
            status = sr_recorder_message(recorder, f % 3000 == 0 ? SR_RECORD_WARNING : SR_RECORD_INFO, text, err);
        }
        if (status == SR_OK)
            status = sr_recorder_frame(recorder, (double)f / 60.0, &list, 1, NULL, err);
    }
    sr_debug_list_destroy(list);
    if (recorder) {
        sr_status closed = sr_recorder_close(recorder, status == SR_OK ? err : NULL);
        status = status == SR_OK ? closed : status;
    }
    *seconds = (now_ms() - start) / 1000.0;
    return status == SR_OK;
}

/* Opens a hidden viewer on `path` and returns when the recording's first frame is on screen; the
 * milliseconds it took in *ms. */
static sr_viewer *open_viewer(const options *o, const char *path, double *ms, sr_error *err)
{
    double start = now_ms();
    sr_viewer *viewer = NULL;
    if (sr_viewer_create(
            &(sr_viewer_desc){
                .width = o->width, .height = o->height, .threads = o->threads, .scene_path = path, .hidden = true},
            NULL, &viewer, err) != SR_OK)
        return NULL;
    while (sr_viewer_frame(viewer, NULL, err)) {
        if (sr_viewer_load_error(viewer)[0]) {
            snprintf(err->message, sizeof err->message, "%s", sr_viewer_load_error(viewer));
            break;
        }
        sr_viewer_playback playback = sr_viewer_get_playback(viewer);
        // sr_viewer_frame draws whatever changed: once the recording is taken, its first frame
        // has been presented by the call that took it.
        if (playback.recording) {
            *ms = now_ms() - start;
            return viewer;
        }
    }
    sr_viewer_destroy(viewer);
    return NULL;
}

static bool parse(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--keep") == 0) {
            o->keep = true;
            continue;
        }
        if (!value)
            return false;
        i++;
        if (strcmp(arg, "--frames") == 0)
            o->frames = atol(value);
        else if (strcmp(arg, "--lines") == 0)
            o->lines = atol(value);
        else if (strcmp(arg, "--big-every") == 0)
            o->big_every = atol(value);
        else if (strcmp(arg, "--big-lines") == 0)
            o->big_lines = atol(value);
        else if (strcmp(arg, "--seeks") == 0)
            o->seeks = atol(value);
        else if (strcmp(arg, "--idle") == 0)
            o->idle = atol(value);
        else if (strcmp(arg, "--play") == 0)
            o->play = atol(value);
        else if (strcmp(arg, "--threads") == 0)
            o->threads = atoi(value);
        else if (strcmp(arg, "--file") == 0)
            o->file = value;
        else if (strcmp(arg, "--size") == 0) {
            if (sscanf(value, "%dx%d", &o->width, &o->height) != 2)
                return false;
        } else
            return false;
    }
    return o->frames > 0 && o->lines >= 0 && o->big_lines >= 0 && o->seeks >= 0 && o->idle >= 0 && o->play >= 0 &&
           o->width > 0 && o->height > 0;
}

int main(int argc, char **argv)
{
    options o = {.frames = 10000,
                 .lines = 1000,
                 .big_every = 500,
                 .big_lines = 100000,
                 .seeks = 100,
                 .idle = 4,
                 .play = 3000,
                 .width = 1280,
                 .height = 720};
    if (!parse(argc, argv, &o)) {
        fprintf(stderr, "usage: bench_view_recording [--frames N] [--lines L] [--big-every K] [--big-lines B] "
                        "[--seeks S] [--idle I] [--play P] [--size WxH] [--threads T] [--file PATH] [--keep]\n");
        return 2;
    }
    setenv("SDL_VIDEODRIVER", "dummy", 0);
    sr_error err = {0};
    char path[512];
    double record_s = 0.0;
    if (o.file) {
        snprintf(path, sizeof path, "%s", o.file);
    } else {
        snprintf(path, sizeof path, "bench_view_recording_%d.rec", (int)getpid());
        if (!make_file(&o, path, &record_s, &err)) {
            fprintf(stderr, "bench_view_recording: %s\n", err.message);
            remove(path);
            return 1;
        }
    }
    FILE *f = fopen(path, "rb");
    long long file_bytes = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        file_bytes = ftell(f);
    if (f)
        fclose(f);

    double first_ms = 0.0, first_cpu_start = cpu_ms();
    sr_viewer *viewer = open_viewer(&o, path, &first_ms, &err);
    double first_cpu_ms = cpu_ms() - first_cpu_start;
    if (!viewer) {
        fprintf(stderr, "bench_view_recording: %s\n", err.message);
        return 1;
    }
    sr_viewer_playback playback = sr_viewer_get_playback(viewer);
    uint64_t frames = playback.frame_count;
    // The frames a window shows before the user's first seek, with nothing new to draw.
    for (long k = 0; k < o.idle; k++)
        if (!sr_viewer_frame(viewer, NULL, &err)) {
            fprintf(stderr, "bench_view_recording: an idle frame after the first: %s\n", err.message);
            return 1;
        }

    // Random seeks, each until its frame is presented; the big frames apart, and among them the
    // first visits (decoded from the file) apart from the frames seen before (from the cache).
    int seeks = (int)o.seeks;
    double *big = calloc((size_t)seeks + 1, sizeof *big), *small = calloc((size_t)seeks + 1, sizeof *small);
    double *big_again = calloc((size_t)seeks + 1, sizeof *big_again);
    double *big_cpu = calloc((size_t)seeks + 1, sizeof *big_cpu),
           *small_cpu = calloc((size_t)seeks + 1, sizeof *small_cpu);
    double *again_cpu = calloc((size_t)seeks + 1, sizeof *again_cpu);
    double *big_faults = calloc((size_t)seeks + 1, sizeof *big_faults),
           *again_faults = calloc((size_t)seeks + 1, sizeof *again_faults);
    double *idle_cpu = calloc((size_t)seeks + 1, sizeof *idle_cpu);
    unsigned char *seen = calloc((size_t)frames, 1);
    int big_count = 0, small_count = 0, again_count = 0;
    uint32_t state = 777u;
    for (int i = 0; i < seeks; i++) {
        uint64_t frame = next(&state) % frames;
        if (i % 2 == 0 && o.big_every > 0) // every other seek lands on a big frame
            frame = (frame / (uint64_t)o.big_every) * (uint64_t)o.big_every + (uint64_t)(o.big_every / 2);
        frame = frame >= frames ? frames - 1 : frame;
        bool is_big = o.big_every > 0 && (long)(frame % (uint64_t)o.big_every) == o.big_every / 2;
        double start = now_ms(), start_cpu = cpu_ms(), start_faults = page_faults();
        if (sr_viewer_seek(viewer, frame, &err) != SR_OK || !sr_viewer_frame(viewer, NULL, &err)) {
            fprintf(stderr, "bench_view_recording: seek %llu: %s\n", (unsigned long long)frame, err.message);
            return 1;
        }
        double ms = now_ms() - start, cpu = cpu_ms() - start_cpu, faults = page_faults() - start_faults;
        if (is_big && seen[frame]) {
            again_cpu[again_count] = cpu;
            again_faults[again_count] = faults;
            big_again[again_count++] = ms;
        } else if (is_big) {
            big_cpu[big_count] = cpu;
            big_faults[big_count] = faults;
            big[big_count++] = ms;
        } else {
            small_cpu[small_count] = cpu;
            small[small_count++] = ms;
        }
        seen[frame] = 1;
        // The frames a window shows between a user's seeks, with nothing new to draw: apart from
        // the seeks' times (their CPU time is what the viewer does while idle, its wait excluded).
        double idle_start = cpu_ms();
        for (long k = 0; k < o.idle; k++)
            if (!sr_viewer_frame(viewer, NULL, &err)) {
                fprintf(stderr, "bench_view_recording: an idle frame after seek %d: %s\n", i, err.message);
                return 1;
            }
        idle_cpu[i] = cpu_ms() - idle_start;
    }
    // Play, frame after frame, from frame 0 (the cache fills to its bound and drops the oldest).
    long play = o.play < (long)frames ? o.play : (long)frames;
    double *played = calloc((size_t)play + 1, sizeof *played),
           *played_cpu = calloc((size_t)play + 1, sizeof *played_cpu),
           *played_faults = calloc((size_t)play + 1, sizeof *played_faults);
    for (long i = 0; i < play; i++) {
        double start = now_ms(), start_cpu = cpu_ms(), start_faults = page_faults();
        if (sr_viewer_seek(viewer, (uint64_t)i, &err) != SR_OK || !sr_viewer_frame(viewer, NULL, &err)) {
            fprintf(stderr, "bench_view_recording: frame %ld: %s\n", i, err.message);
            return 1;
        }
        played[i] = now_ms() - start;
        played_cpu[i] = cpu_ms() - start_cpu;
        played_faults[i] = page_faults() - start_faults;
    }
    long peak_kib = status_kib("VmHWM:"), rss_kib = status_kib("VmRSS:");
    sr_viewer_destroy(viewer);
    // Opened again in this process (SDL started, memory touched before): the recording's own part.
    double warm_first_ms = 0.0;
    viewer = open_viewer(&o, path, &warm_first_ms, &err);
    sr_viewer_destroy(viewer);

    // A crashed writer's file: no index and trailer (the last byte cut), so the reader scans.
    // The byte goes back afterwards, so that a kept file is whole again.
    double scan_first_ms = -1.0;
    unsigned char last = 0;
    f = !o.file && file_bytes > 0 ? fopen(path, "rb") : NULL;
    bool have_last = f && fseek(f, file_bytes - 1, SEEK_SET) == 0 && fread(&last, 1, 1, f) == 1;
    if (f)
        fclose(f);
    if (have_last && truncate(path, file_bytes - 1) == 0) {
        viewer = open_viewer(&o, path, &scan_first_ms, &err);
        if (!viewer)
            fprintf(stderr, "bench_view_recording: without its index: %s\n", err.message);
        sr_viewer_destroy(viewer);
        f = fopen(path, "ab");
        if (f) {
            fwrite(&last, 1, 1, f);
            fclose(f);
        }
    }
    if (!o.file && !o.keep)
        remove(path);

    // The first visits apart by the memory they decoded into (before median() sorts big_cpu).
    double *new_cpu = calloc((size_t)seeks + 1, sizeof *new_cpu),
           *reused_cpu = calloc((size_t)seeks + 1, sizeof *reused_cpu);
    int new_count = 0, reused_count = 0;
    for (int i = 0; i < big_count; i++) {
        if (big_faults[i] >= NEW_MEMORY_FAULTS)
            new_cpu[new_count++] = big_cpu[i];
        else
            reused_cpu[reused_count++] = big_cpu[i];
    }
    double again_median = median(big_again, again_count), again_max = maximum(big_again, again_count);
    double big_median = median(big, big_count), big_max = maximum(big, big_count);
    double small_median = median(small, small_count), small_max = maximum(small, small_count);
    printf(
        "{\"frames\": %llu, \"lines\": %ld, \"big_lines\": %ld, \"big_every\": %ld, \"file_mib\": %.1f, "
        "\"record_s\": %.2f, \"size\": [%d, %d], \"first_frame_ms\": %.2f, \"first_frame_warm_ms\": %.2f, "
        "\"first_frame_no_index_warm_ms\": %.2f, "
        "\"seek_big_ms\": {\"median\": %.2f, \"max\": %.2f, \"count\": %d}, "
        "\"seek_big_cached_ms\": {\"median\": %.2f, \"max\": %.2f, \"count\": %d}, "
        "\"seek_ms\": {\"median\": %.2f, \"max\": %.2f, \"count\": %d}, \"play_ms\": {\"median\": %.2f, "
        "\"frames\": %ld}, \"seek_big_cpu_ms\": %.2f, \"seek_big_cached_cpu_ms\": %.2f, \"seek_cpu_ms\": %.2f, "
        "\"play_cpu_ms\": %.2f, \"first_frame_cpu_ms\": %.2f, \"seek_big_new_memory_cpu_ms\": {\"median\": %.2f, "
        "\"count\": %d}, \"seek_big_reused_memory_cpu_ms\": {\"median\": %.2f, \"count\": %d}, "
        "\"seek_big_faults\": %.0f, "
        "\"seek_big_cached_faults\": %.0f, \"play_faults\": %.0f, \"idle_cpu_ms\": {\"median\": %.2f, \"max\": %.2f, "
        "\"count\": %d}, \"peak_rss_mib\": %.1f, \"rss_mib\": %.1f}\n",
        (unsigned long long)frames, o.lines, o.big_lines, o.big_every, (double)file_bytes / 1048576.0, record_s,
        o.width, o.height, first_ms, warm_first_ms, scan_first_ms, big_median, big_max, big_count, again_median,
        again_max, again_count, small_median, small_max, small_count, median(played, (int)play), play,
        median(big_cpu, big_count), median(again_cpu, again_count), median(small_cpu, small_count),
        median(played_cpu, (int)play), first_cpu_ms, median(new_cpu, new_count), new_count,
        median(reused_cpu, reused_count), reused_count, median(big_faults, big_count),
        median(again_faults, again_count), median(played_faults, (int)play), median(idle_cpu, seeks),
        maximum(idle_cpu, seeks), o.idle ? seeks : 0, (double)peak_kib / 1024.0, (double)rss_kib / 1024.0);
    free(big);
    free(big_again);
    free(big_cpu);
    free(again_cpu);
    free(big_faults);
    free(new_cpu);
    free(reused_cpu);
    free(again_faults);
    free(small_cpu);
    free(played_cpu);
    free(idle_cpu);
    free(seen);
    free(small);
    free(played);
    free(played_faults);
    return 0;
}
