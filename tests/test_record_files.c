/* tests/test_record_files.c — recordings as files: a writer killed at random points leaves every
 * frame it finished readable; files cut anywhere read up to their last complete frame; damaged
 * bytes, wrong versions and absurd lengths give clear errors, no crash and no allocation beyond
 * what the file could justify (an allocator hook measures every request); a newer minor
 * version's records, sections and items are skipped; random seeks give the frames of a playback
 * from the start. (Failed writes and bad arguments: test_record_errors.c; the cache of decoded
 * frames: test_record_cache.c.) */
#include "record_test_helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

/* ---- an independent CRC-32C (bit by bit, from the polynomial) to craft records ---- */

static uint32_t crc32c(const uint8_t *data, size_t size)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < size; i++) {
        crc ^= data[i];
        for (int bit = 0; bit < 8; bit++)
            crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
    }
    return ~crc;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A record: type, length, payload, CRC. Returns its size (written at `out`). */
static size_t craft_record(uint8_t *out, uint8_t type, const uint8_t *payload, uint32_t size)
{
    out[0] = type;
    put_u32(out + 1, size);
    memcpy(out + 5, payload, size);
    put_u32(out + 5 + size, crc32c(out, 5 + (size_t)size));
    return 9 + (size_t)size;
}

/* ---- a recording to take apart ---- */

/* A scene whose nodes move, appear and vanish with f. */
static sr_scene *make_scene(void)
{
    sr_scene *scene = NULL;
    cr_assert_eq(sr_scene_create(&(sr_scene_desc){.name = "files"}, &scene, NULL), SR_OK);
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_box(sr_vec3_make(0.4f, 0.4f, 0.4f), 1, &mesh, NULL), SR_OK);
    cr_assert_eq(sr_scene_add_mesh(scene, mesh, "box", NULL, NULL), SR_OK);
    return scene;
}

static void animate(sr_scene *scene, int f)
{
    // Nodes 0..9 live from frame 2 n to 2 n + 25: slots are reused as nodes come and go.
    for (int n = 0; n < 10; n++) {
        sr_node_id id = sr_scene_find_node(scene, (char[]){(char)('a' + n), 0});
        bool alive = f >= 2 * n && f < 2 * n + 25;
        if (alive && !id.generation) {
            sr_transform t = sr_transform_identity();
            t.translation = sr_vec3_make((float)n, 0.0f, 0.0f);
            cr_assert_eq(sr_scene_add_node(
                             scene, &(sr_node_desc){.name = (char[]){(char)('a' + n), 0}, .transform = t, .mesh = {1}},
                             &id, NULL),
                         SR_OK);
        } else if (!alive && id.generation) {
            cr_assert_eq(sr_scene_remove_node(scene, id, NULL), SR_OK);
            continue;
        }
        if (alive && n % 2) {
            sr_node_info info;
            sr_scene_node(scene, id, &info, NULL);
            info.transform.translation.y = 0.1f * (float)f;
            cr_assert_eq(sr_scene_set_transform(scene, id, info.transform, NULL), SR_OK);
        }
    }
}

/* Writes `frames` frames to `path`; ends[f] receives the file's size once frame f was written
 * (the end of its records). Closes the file when `close` (else it is left as a killed writer's). */
static void write_recording(const char *path, int frames, uint64_t *ends, bool close)
{
    sr_debug_list *lists[2] = {new_list(), new_list()};
    sr_scene *scene = make_scene();
    sr_recorder *rec = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_recorder_create(path, &(sr_recorder_desc){.keyframe_interval = 5, .title = "files"}, &rec, &err),
                 SR_OK);
    for (int f = 0; f < frames; f++) {
        frame_lists(lists, f);
        animate(scene, f);
        if (f % 7 == 3)
            cr_assert_eq(sr_recorder_message(rec, SR_RECORD_WARNING, "seven", &err), SR_OK);
        cr_assert_eq(sr_recorder_frame(rec, f * 0.5, lists, 2, scene, &err), SR_OK, "%s", err.message);
        if (ends)
            ends[f] = sr_recorder_get_stats(rec).bytes.total;
    }
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK);
    // Without its index and trailer, the file is what a killed writer leaves between two frames.
    if (!close)
        cr_assert_eq(truncate(path, (off_t)ends[frames - 1]), 0);
    sr_debug_list_destroy(lists[0]);
    sr_debug_list_destroy(lists[1]);
    sr_scene_destroy(scene);
}

/* Frame f of a recording holds what write_recording recorded (lists; nodes by name and count). */
static void assert_frame(sr_recording *recording, int f, sr_debug_list *expected[2])
{
    sr_recording_frame frame;
    sr_error err = {0};
    cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, &err), SR_OK, "frame %d: %s", f, err.message);
    cr_assert_eq(frame.list_count, 2);
    frame_lists(expected, f);
    char where[64];
    snprintf(where, sizeof where, "frame %d", f);
    assert_same_list(expected[0], frame.lists[0], where);
    assert_same_list(expected[1], frame.lists[1], where);
    cr_assert_not_null(frame.scene);
    uint32_t alive = 0;
    for (int n = 0; n < 10; n++)
        alive += f >= 2 * n && f < 2 * n + 25;
    cr_assert_eq(sr_scene_node_count(frame.scene), alive, "frame %d: %u nodes, %u expected", f,
                 sr_scene_node_count(frame.scene), alive);
    for (int n = 1; n < 10; n += 2) {
        sr_node_id id = sr_scene_find_node(frame.scene, (char[]){(char)('a' + n), 0});
        if (!id.generation)
            continue;
        sr_node_info info;
        sr_scene_node(frame.scene, id, &info, NULL);
        cr_assert_eq(info.transform.translation.y, 0.1f * (float)f, "frame %d, node %c", f, 'a' + n);
    }
}

/* ---- a killed writer ---- */

/* A list of BIG lines (a write of half a megabyte, so that kills land inside writes too). */
enum { BIG = 20000 };
static void big_list(sr_debug_list *list, int f)
{
    sr_debug_list_clear(list, NULL);
    rng r = {(uint64_t)f + 1000};
    for (int i = 0; i < BIG; i++)
        sr_debug_line(list, rng_in_box(&r, (sr_aabb){{-9, -9, -9}, {9, 9, 9}}), sr_vec3_make((float)f, (float)i, 0),
                      sr_debug_style_color(SR_DEBUG_GREEN));
}

Test(record_files, a_killed_writer_leaves_every_finished_frame_readable, .timeout = 300)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/killed.srrec", folder);
    sr_debug_list *expected[2] = {new_list(), new_list()};
    sr_debug_list *big = NULL;
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = BIG, .segment_capacity = BIG}, &big, NULL),
                 SR_OK);
    const int runs = SANITIZED ? 4 : 16;
    rng delays = {2024};
    int truncated_runs = 0, frames_seen = 0;
    for (int run = 0; run < runs; run++) {
        unlink(path);
        int pipe_fds[2];
        cr_assert_eq(pipe(pipe_fds), 0);
        pid_t child = fork();
        cr_assert_neq(child, -1);
        if (child == 0) {
            // The writer: records until killed; after each frame returns, says so on the pipe.
            close(pipe_fds[0]);
            sr_debug_list *lists[3];
            sr_debug_list_create(NULL, &lists[0], NULL);
            sr_debug_list_create(NULL, &lists[1], NULL);
            sr_debug_list_create(&(sr_debug_list_desc){.item_capacity = BIG, .segment_capacity = BIG}, &lists[2], NULL);
            sr_scene *scene = NULL;
            sr_scene_create(NULL, &scene, NULL);
            sr_mesh *mesh = NULL;
            sr_mesh_create_box(sr_vec3_make(0.4f, 0.4f, 0.4f), 1, &mesh, NULL);
            sr_scene_add_mesh(scene, mesh, "box", NULL, NULL);
            sr_recorder *rec = NULL;
            if (sr_recorder_create(path, &(sr_recorder_desc){.keyframe_interval = 5}, &rec, NULL) != SR_OK)
                _exit(2);
            for (int32_t f = 0;; f++) {
                frame_lists(lists, f);
                big_list(lists[2], f);
                animate(scene, f % 40);
                if (sr_recorder_frame(rec, f * 0.5, lists, 3, scene, NULL) != SR_OK)
                    _exit(3);
                if (write(pipe_fds[1], &f, sizeof f) != (ssize_t)sizeof f)
                    _exit(4);
            }
        }
        close(pipe_fds[1]);
        // Let it run a random while (a few to a few dozen frames), then kill it mid-stride.
        struct timespec delay = {0, (long)(rng_next(&delays) % (SANITIZED ? 200000000u : 60000000u)) + 1000000};
        nanosleep(&delay, NULL);
        kill(child, SIGKILL);
        int status = 0;
        waitpid(child, &status, 0);
        cr_assert(WIFSIGNALED(status), "the writer ended by itself (status %d)", WEXITSTATUS(status));
        int32_t last = -1, f;
        while (read(pipe_fds[0], &f, sizeof f) == (ssize_t)sizeof f)
            last = f;
        close(pipe_fds[0]);

        sr_recording *recording = NULL;
        sr_error err = {0};
        if (sr_recording_open(path, NULL, &recording, &err) != SR_OK) {
            // Killed before its header was written whole: no frame had returned.
            cr_assert_eq(last, -1, "frame %d returned, but the file does not open: %s", last, err.message);
            continue;
        }
        const sr_recording_info *info = sr_recording_get_info(recording);
        cr_assert_not(info->closed_cleanly);
        cr_assert_geq((int64_t)info->frame_count, (int64_t)last + 1, "run %d: frame %d returned, %llu frames read (%s)",
                      run, last, (unsigned long long)info->frame_count, info->note);
        // Every frame that is there is whole: those that returned and any written just before the kill.
        for (int g = (int)info->frame_count - 1; g >= 0; g -= (g > 8 ? 7 : 1)) {
            sr_recording_frame frame;
            cr_assert_eq(sr_recording_seek(recording, (uint64_t)g, &frame, &err), SR_OK, "frame %d: %s", g,
                         err.message);
            frame_lists(expected, g);
            assert_same_list(expected[0], frame.lists[0], "killed writer");
            assert_same_list(expected[1], frame.lists[1], "killed writer");
            big_list(big, g);
            assert_same_list(big, frame.lists[2], "killed writer");
        }
        truncated_runs += info->truncated;
        frames_seen += (int)info->frame_count;
        sr_recording_destroy(recording);
        sr_recording_check_report report;
        cr_assert_eq(sr_recording_check(path, NULL, &report, &err), SR_OK, "%s", err.message);
        cr_assert_eq(report.health, SR_RECORDING_TRUNCATED, "run %d: %s", run, report.message);
        cr_assert_geq((int64_t)report.frames, (int64_t)last + 1);
    }
    cr_log_info("%d runs, %d of them killed in the middle of a write; %d frames read back in all", runs, truncated_runs,
                frames_seen);
    sr_debug_list_destroy(big);
    sr_debug_list_destroy(expected[0]);
    sr_debug_list_destroy(expected[1]);
    temp_folder_remove(folder);
}

/* ---- files cut short ---- */

Test(record_files, a_file_cut_anywhere_reads_up_to_its_last_complete_frame, .timeout = 300)
{
    char folder[256], path[300], cut[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/whole.srrec", folder);
    snprintf(cut, sizeof cut, "%s/cut.srrec", folder);
    enum { FRAMES = 24 };
    uint64_t ends[FRAMES];
    write_recording(path, FRAMES, ends, true);
    size_t size = 0;
    uint8_t *bytes = read_whole(path, &size);
    size_t header = 16 + get_u32(bytes + 12) + 4;
    sr_debug_list *expected[2] = {new_list(), new_list()};
    // Every frame's end, a byte either side of it, and random places.
    uint64_t lengths[FRAMES * 3 + 40];
    size_t count = 0;
    for (int f = 0; f < FRAMES; f++) {
        lengths[count++] = ends[f];
        lengths[count++] = ends[f] - 1;
        lengths[count++] = ends[f] + 1;
    }
    rng r = {77};
    for (int k = 0; k < 40; k++)
        lengths[count++] = rng_next(&r) % size;
    for (size_t k = 0; k < count; k += SANITIZED ? 3 : 1) {
        size_t length = (size_t)lengths[k];
        write_whole(cut, bytes, length);
        sr_recording *recording = NULL;
        sr_error err = {0};
        sr_status status = sr_recording_open(cut, NULL, &recording, &err);
        if (length < header) { // not even a header
            cr_assert_eq(status, SR_ERROR_PARSE, "%zu bytes: %s", length, err.message);
            cr_assert(strstr(err.message, cut) != NULL, "the message names the file: %s", err.message);
            continue;
        }
        cr_assert_eq(status, SR_OK, "%zu bytes: %s", length, err.message);
        int complete = 0;
        while (complete < FRAMES && ends[complete] <= length)
            complete++;
        const sr_recording_info *info = sr_recording_get_info(recording);
        cr_assert_eq(info->frame_count, (uint64_t)complete, "cut at %zu: %llu frames read, %d complete (%s)", length,
                     (unsigned long long)info->frame_count, complete, info->note);
        if (complete && length == ends[complete - 1])
            cr_assert_not(info->truncated, "cut at the end of frame %d: %s", complete - 1, info->note);
        if (complete)
            assert_frame(recording, complete - 1, expected);
        if (complete > 3)
            assert_frame(recording, complete / 2, expected);
        uint64_t ignored = info->file_bytes - info->readable_bytes;
        cr_assert_leq(ignored, length - (complete ? ends[complete - 1] : header), "cut at %zu: %s", length, info->note);
        sr_recording_destroy(recording);
        sr_recording_check_report report;
        cr_assert_eq(sr_recording_check(cut, NULL, &report, &err), SR_OK, "%s", err.message);
        cr_assert_eq(report.health, SR_RECORDING_TRUNCATED, "cut at %zu: %s", length, report.message);
        cr_assert_eq(report.frames, (uint64_t)complete, "cut at %zu: %s", length, report.message);
        // The check and the open count the same bytes past the readable part.
        char said[64];
        snprintf(said, sizeof said, "(%llu bytes ignored)", (unsigned long long)ignored);
        cr_assert(strstr(report.message, said) != NULL, "cut at %zu: the check says '%s', the open %s", length,
                  report.message, said);
    }
    // The whole file, and the file without its index and trailer.
    sr_recording_check_report report;
    sr_error err = {0};
    cr_assert_eq(sr_recording_check(path, NULL, &report, &err), SR_OK);
    cr_assert_eq(report.health, SR_RECORDING_CLEAN, "%s", report.message);
    cr_assert_eq(report.frames, FRAMES);
    cr_assert_eq(report.bytes.total, size);
    write_whole(cut, bytes, (size_t)ends[FRAMES - 1]);
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(cut, NULL, &recording, &err), SR_OK);
    cr_assert_eq(sr_recording_get_info(recording)->frame_count, FRAMES);
    cr_assert_not(sr_recording_get_info(recording)->truncated, "%s", sr_recording_get_info(recording)->note);
    for (int f = 0; f < FRAMES; f++)
        assert_frame(recording, f, expected);
    sr_recording_destroy(recording);
    // Without its index, the last frame whole in length but a byte of it wrong (a write that the
    // file system padded, a damaged sector): the open checks the last frame's records whole and
    // reads up to the frame before.
    bytes[ends[FRAMES - 1] - 7] ^= 0x10;
    write_whole(cut, bytes, (size_t)ends[FRAMES - 1]);
    cr_assert_eq(sr_recording_open(cut, NULL, &recording, &err), SR_OK, "%s", err.message);
    const sr_recording_info *info = sr_recording_get_info(recording);
    cr_assert_eq(info->frame_count, FRAMES - 1, "a damaged last frame handed out: %s", info->note);
    cr_assert(info->truncated, "%s", info->note);
    assert_frame(recording, FRAMES - 2, expected);
    sr_recording_destroy(recording);
    free(bytes);
    sr_debug_list_destroy(expected[0]);
    sr_debug_list_destroy(expected[1]);
    temp_folder_remove(folder);
}

/* ---- damage ---- */

/* Opens, plays and checks a damaged file: nothing may crash, every failure says something. */
static void survive(const char *path, sr_framebuffer *fb, sr_renderer *renderer)
{
    sr_recording *recording = NULL;
    sr_error err = {0};
    sr_status status = sr_recording_open(path, &(sr_recording_desc){.cache_bytes = 4u << 20}, &recording, &err);
    if (status != SR_OK) {
        cr_assert(err.message[0], "an open failed without a message");
    } else {
        const sr_recording_info *info = sr_recording_get_info(recording);
        for (uint64_t f = 0; f < info->frame_count; f++) {
            sr_recording_frame frame;
            err.message[0] = '\0';
            if (sr_recording_seek(recording, info->frame_count - 1 - f, &frame, &err) != SR_OK) {
                cr_assert(err.message[0], "a seek failed without a message");
                continue;
            }
            if (f % 4 == 0 && sr_recording_render(recording, renderer, fb, NULL, &err) != SR_OK)
                cr_assert(err.message[0], "a render failed without a message");
            sr_recording_item_pick pick;
            sr_recording_pick_item(recording, NULL, fb->width, fb->height, 10, 10, 0, NULL, &pick, NULL);
        }
        sr_recording_destroy(recording);
    }
    sr_recording_check_report report;
    if (sr_recording_check(path, NULL, &report, &err) == SR_OK)
        cr_assert(report.message[0]);
    else
        cr_assert(err.message[0]);
}

Test(record_files, damaged_bytes_give_errors_never_a_crash_nor_a_huge_allocation, .timeout = 600)
{
    char folder[256], path[300], damaged[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/whole.srrec", folder);
    snprintf(damaged, sizeof damaged, "%s/damaged.srrec", folder);
    uint64_t ends[12];
    write_recording(path, 12, ends, true);
    size_t size = 0;
    uint8_t *bytes = read_whole(path, &size);
    uint8_t *copy = malloc(size);
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = 48, .height = 32}, &fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(NULL, &renderer, NULL), SR_OK);
    // No request may exceed what a file of this size could justify.
    watch w = {.limit = 64u << 20};
    sr_set_allocator(&(sr_allocator){watch_allocate, watch_reallocate, watch_release, &w});
    rng r = {31337};
    int runs = SANITIZED ? 60 : 400, not_clean = 0;
    for (int k = 0; k < runs; k++) {
        memcpy(copy, bytes, size);
        size_t at = k < 64 ? (size_t)k : (size_t)(rng_next(&r) % size); // the header's bytes, then anywhere
        if (k % 3 == 0)
            copy[at] ^= (uint8_t)(1u << (rng_next(&r) % 8));
        else
            copy[at] = (uint8_t)rng_next(&r);
        if (copy[at] == bytes[at])
            copy[at] ^= 0x40;
        write_whole(damaged, copy, size);
        survive(damaged, fb, renderer);
        sr_recording_check_report report;
        sr_error err;
        if (sr_recording_check(damaged, NULL, &report, &err) != SR_OK || report.health != SR_RECORDING_CLEAN)
            not_clean++;
        else
            cr_assert_fail("byte %zu changed, and the check found the file clean: %s", at, report.message);
    }
    sr_set_allocator(NULL);
    cr_log_info("%d damaged files, every one found damaged; largest allocation %zu bytes", not_clean, w.largest);
    cr_assert_eq(w.refused, 0, "%zu requests over %zu bytes (largest %zu)", w.refused, w.limit, w.largest);
    free(copy);
    free(bytes);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    temp_folder_remove(folder);
}

Test(record_files, absurd_lengths_and_counts_allocate_nothing_absurd)
{
    char folder[256], path[300], damaged[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/whole.srrec", folder);
    snprintf(damaged, sizeof damaged, "%s/damaged.srrec", folder);
    uint64_t ends[3];
    write_recording(path, 3, ends, false); // no index: the scan reads the lengths
    size_t size = 0;
    uint8_t *bytes = read_whole(path, &size);
    uint32_t header = 16 + get_u32(bytes + 12) + 4;
    watch w = {.limit = 16u << 20};
    sr_set_allocator(&(sr_allocator){watch_allocate, watch_reallocate, watch_release, &w});
    // The first record's length: 4 GiB.
    uint8_t *copy = malloc(size);
    memcpy(copy, bytes, size);
    put_u32(copy + header + 1, 0xfffffff0u);
    write_whole(damaged, copy, size);
    sr_recording *recording = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_recording_open(damaged, NULL, &recording, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recording_get_info(recording)->frame_count, 0);
    cr_assert(strstr(sr_recording_get_info(recording)->note, "incomplete") != NULL, "%s",
              sr_recording_get_info(recording)->note);
    sr_recording_destroy(recording);
    // A frame whose list claims 4 billion items, and one whose polyline claims 4 billion points,
    // each in a record with a valid checksum.
    uint8_t payload[64], record[128];
    size_t n = 0;
    payload[n++] = 0; // frame 0
    double time = 0.0;
    memcpy(payload + n, &time, 8), n += 8;
    payload[n++] = 1;                                              // one list
    put_u32(payload + n, 0xffffffffu), n += 4;                     // items
    put_u32(payload + n, 4), n += 4;                               // bytes
    payload[n++] = 0x20 | 15;                                      // a polyline in the previous style
    payload[n++] = 0xff, payload[n++] = 0xff, payload[n++] = 0xff; // a count past the list's bytes
    size_t length = craft_record(record, 1, payload, (uint32_t)n);
    uint8_t *crafted = malloc(header + length);
    memcpy(crafted, bytes, header);
    memcpy(crafted + header, record, length);
    write_whole(damaged, crafted, header + length);
    cr_assert_eq(sr_recording_open(damaged, NULL, &recording, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recording_get_info(recording)->frame_count, 1);
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 0, &frame, &err), SR_ERROR_PARSE);
    cr_assert(strstr(err.message, "frame 0") != NULL && strstr(err.message, "list 0") != NULL, "%s", err.message);
    sr_recording_destroy(recording);
    sr_set_allocator(NULL);
    cr_assert_eq(w.refused, 0, "largest request %zu bytes", w.largest);
    free(crafted);
    free(copy);
    free(bytes);
    temp_folder_remove(folder);
}

/* ---- versions ---- */

/* Sets the header's version and fixes its checksum. */
static void set_version(uint8_t *bytes, uint16_t major, uint16_t minor)
{
    bytes[8] = (uint8_t)major, bytes[9] = (uint8_t)(major >> 8);
    bytes[10] = (uint8_t)minor, bytes[11] = (uint8_t)(minor >> 8);
    uint32_t length = get_u32(bytes + 12);
    put_u32(bytes + 16 + length, crc32c(bytes + 8, 8 + (size_t)length));
}

Test(record_files, a_newer_major_version_is_refused_a_newer_minor_read)
{
    char folder[256], path[300], other[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/whole.srrec", folder);
    snprintf(other, sizeof other, "%s/other.srrec", folder);
    uint64_t ends[6];
    write_recording(path, 6, ends, false);
    size_t size = 0;
    uint8_t *bytes = read_whole(path, &size);
    uint32_t header = 16 + get_u32(bytes + 12) + 4;
    sr_error err = {0};
    sr_recording *recording = NULL;

    set_version(bytes, 2, 0);
    write_whole(other, bytes, size);
    cr_assert_eq(sr_recording_open(other, NULL, &recording, &err), SR_ERROR_UNSUPPORTED);
    cr_assert(strstr(err.message, "2.0") != NULL && strstr(err.message, "1.x") != NULL, "%s", err.message);
    sr_recording_check_report report;
    cr_assert_eq(sr_recording_check(other, NULL, &report, &err), SR_ERROR_UNSUPPORTED);

    // A minor version from the future, with a record type, a state section and an item kind this
    // build does not know: all skipped.
    set_version(bytes, 1, 9);
    uint8_t *grown = malloc(size + 256);
    memcpy(grown, bytes, header);
    uint8_t unknown[] = {1, 2, 3, 4, 5};
    size_t at = header + craft_record(grown + header, 200, unknown, sizeof unknown);
    memcpy(grown + at, bytes + header, size - header);
    at += size - header;
    // Frame 6: a state record with an unknown section, then lists with an extension item and a line.
    uint8_t state[] = {6, 0, 99, 3, 7, 7, 7};
    at += craft_record(grown + at, 2, state, sizeof state);
    uint8_t lists[80];
    size_t n = 0;
    lists[n++] = 6;
    double time = 3.0;
    memcpy(lists + n, &time, 8), n += 8;
    lists[n++] = 1;
    put_u32(lists + n, 2), n += 4; // two items
    uint8_t *list_bytes = lists + n + 4;
    size_t b = 0;
    list_bytes[b++] = 0x20 | 31, list_bytes[b++] = 3, list_bytes[b++] = 9, list_bytes[b++] = 9, list_bytes[b++] = 9;
    list_bytes[b++] = 0x20 | 0; // a line in the first style (opaque white)
    float coords[6] = {1, 2, 3, 4, 5, 6};
    memcpy(list_bytes + b, coords, sizeof coords), b += sizeof coords;
    put_u32(lists + n, (uint32_t)b), n += 4 + b;
    at += craft_record(grown + at, 1, lists, (uint32_t)n);
    write_whole(other, grown, at);
    cr_assert_eq(sr_recording_open(other, NULL, &recording, &err), SR_OK, "%s", err.message);
    const sr_recording_info *info = sr_recording_get_info(recording);
    cr_assert_eq(info->version_minor, 9);
    cr_assert_eq(info->frame_count, 7);
    cr_assert_eq(info->unknown_records, 1);
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 6, &frame, &err), SR_OK, "%s", err.message);
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(frame.lists[0], &count);
    cr_assert_eq(count, 1);
    cr_assert_eq(items[0].kind, SR_DEBUG_ITEM_LINE);
    cr_assert_eq(items[0].line.b.z, 6.0f);
    cr_assert_eq(items[0].style.color, SR_DEBUG_WHITE);
    uint32_t nodes = sr_scene_node_count(frame.scene);
    cr_assert_eq(sr_recording_seek(recording, 5, &frame, &err), SR_OK, "%s", err.message);
    cr_assert_eq(nodes, sr_scene_node_count(frame.scene), "the unknown section changed nothing");
    sr_recording_destroy(recording);
    cr_assert_eq(sr_recording_check(other, NULL, &report, &err), SR_OK, "%s", err.message);
    cr_assert_eq(report.health, SR_RECORDING_TRUNCATED, "%s", report.message);
    cr_assert_eq(report.unknown_records, 1);
    cr_assert_eq(report.frames, 7);
    free(grown);
    free(bytes);
    temp_folder_remove(folder);
}

/* ---- seeking ---- */

/* A digest of a frame: its lists' items and its scene's nodes, in the order of the program's
 * nodes (the played-back scene's own slots depend on how it got there). */
static uint64_t digest_frame(const sr_recording *recording, const sr_recording_frame *frame)
{
    uint64_t h = 1469598103934665603ull;
#define MIX(data, size)                                                                                                \
    for (size_t _i = 0; _i < (size); _i++)                                                                             \
    h = (h ^ ((const uint8_t *)(data))[_i]) * 1099511628211ull
    for (size_t l = 0; l < frame->list_count; l++) {
        size_t count = 0;
        const sr_debug_item *items = sr_debug_list_items(frame->lists[l], &count);
        MIX(items, count * sizeof *items);
    }
    if (frame->scene) {
        uint64_t order[64];
        uint32_t count = 0;
        for (uint32_t i = 0; i < sr_scene_node_slots(frame->scene) && count < 64; i++) {
            sr_node_id id = sr_scene_node_at(frame->scene, i);
            if (id.generation)
                order[count++] = (uint64_t)sr_recording_source_node(recording, id).index << 32 | i;
        }
        for (uint32_t a = 1; a < count; a++) // insertion sort by source slot
            for (uint32_t b = a; b > 0 && order[b - 1] > order[b]; b--) {
                uint64_t t = order[b];
                order[b] = order[b - 1];
                order[b - 1] = t;
            }
        for (uint32_t k = 0; k < count; k++) {
            sr_node_info info;
            sr_scene_node(frame->scene, sr_scene_node_at(frame->scene, (uint32_t)order[k]), &info, NULL);
            sr_node_id source = sr_recording_source_node(recording, sr_scene_node_at(frame->scene, (uint32_t)order[k]));
            MIX(&source, sizeof source);
            MIX(info.name, strlen(info.name));
            MIX(&info.transform, sizeof info.transform);
        }
    }
#undef MIX
    return h;
}

Test(record_files, random_seeks_give_the_frames_of_a_playback_from_the_start, .timeout = 300)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/seek.srrec", folder);
    enum { FRAMES = 60 };
    write_recording(path, FRAMES, NULL, true);
    sr_recording *recording = NULL;
    sr_error err = {0};
    uint64_t digests[FRAMES];
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK);
    for (int f = 0; f < FRAMES; f++) {
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, &err), SR_OK);
        cr_assert_leq(frame.frames_decoded, 2, "playing forward reads the frame itself and nothing else");
        digests[f] = digest_frame(recording, &frame);
    }
    sr_recording_destroy(recording);
    // A cache too small for more than a frame or two, so that seeks go back to the file.
    cr_assert_eq(sr_recording_open(path, &(sr_recording_desc){.cache_bytes = 192u << 10}, &recording, &err), SR_OK);
    rng r = {4242};
    for (int k = 0; k < (SANITIZED ? 120 : 600); k++) {
        uint64_t f = rng_next(&r) % FRAMES;
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, f, &frame, &err), SR_OK, "%s", err.message);
        cr_assert_eq(digest_frame(recording, &frame), digests[f], "seek %d: frame %llu differs from playback", k,
                     (unsigned long long)f);
        cr_assert_leq(frame.frames_decoded, 5 + 1, "a seek decoded %u frames (keyframes every 5)",
                      frame.frames_decoded);
    }
    sr_recording_cache_stats stats = sr_recording_get_cache_stats(recording);
    cr_assert_gt(stats.evictions, 0);
    cr_log_info("cache: %zu bytes of %zu, %llu hits, %llu misses, %llu evictions", stats.bytes, stats.limit,
                (unsigned long long)stats.hits, (unsigned long long)stats.misses, (unsigned long long)stats.evictions);
    sr_recording_destroy(recording);
    temp_folder_remove(folder);
}
