/* tests/test_record_errors.c — what goes wrong around a recording: every bad argument of the
 * recorder and of the reader refused with a message naming it, nothing written or changed; long
 * titles, names and messages cut to their limits without splitting a UTF-8 character; what is not
 * a recording (no file, a folder, a FIFO nobody writes, an empty file, text, a PNG, a header cut
 * short, of version 0 or announcing more bytes than a header holds) refused by name, without a
 * hang or a large allocation; failed writes (a full device, a file-size limit, max_bytes) leave a
 * readable file. The files' damage, crashes and seeks are test_record_files.c. */
#include "record_test_helpers.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* The call returned `want` and its message names `needle`. */
static void expect_error(sr_status got, sr_status want, const sr_error *err, const char *needle, const char *what)
{
    cr_assert_eq(got, want, "%s: %s, expected %s (%s)", what, sr_status_name(got), sr_status_name(want), err->message);
    cr_assert(strstr(err->message, needle) != NULL, "%s: the message '%s' does not say '%s'", what, err->message,
              needle);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- the recorder's arguments ---- */

Test(record_errors, the_recorder_refuses_bad_arguments_by_name)
{
    char folder[256], path[300], missing[320];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/args.srrec", folder);
    snprintf(missing, sizeof missing, "%s/no/such/folder/x.srrec", folder);
    sr_recorder *rec = (sr_recorder *)&rec; // overwritten with NULL by every failure
    sr_error err = {0};
    const char *names[2] = {"a", "b"};

    expect_error(sr_recorder_create(NULL, NULL, &rec, &err), SR_ERROR_INVALID_ARGUMENT, &err, "path is NULL", "path");
    cr_assert_null(rec);
    expect_error(sr_recorder_create("", NULL, &rec, &err), SR_ERROR_INVALID_ARGUMENT, &err, "path is empty", "empty");
    expect_error(sr_recorder_create(path, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "out is NULL", "out");
    expect_error(sr_recorder_create(path, &(sr_recorder_desc){.keyframe_interval = 70000}, &rec, &err),
                 SR_ERROR_INVALID_ARGUMENT, &err, "keyframe_interval 70000", "interval");
    expect_error(sr_recorder_create(path, &(sr_recorder_desc){.list_names = names, .list_name_count = 257}, &rec, &err),
                 SR_ERROR_INVALID_ARGUMENT, &err, "257 list names", "names");
    expect_error(sr_recorder_create(path, &(sr_recorder_desc){.list_name_count = 2}, &rec, &err),
                 SR_ERROR_INVALID_ARGUMENT, &err, "list_names is NULL", "names NULL");
    cr_assert_not(exists(path), "a refused recorder created its file");
    expect_error(sr_recorder_create(missing, NULL, &rec, &err), SR_ERROR_IO, &err, missing, "missing folder");
    cr_assert(strstr(err.message, "No such file") != NULL, "%s", err.message);
    cr_assert_null(rec);

    // Limits: a title, a list name and a message past them are cut, never inside a character.
    char title[2000], name[600], text[9000];
    for (size_t i = 0; i + 2 < sizeof title; i += 2)
        memcpy(title + i, "\xc3\xa9", 2); // é, 2 bytes: 1023 would split one
    title[sizeof title - 2] = title[sizeof title - 1] = '\0';
    memset(name, 'n', sizeof name - 1), name[sizeof name - 1] = '\0';
    for (size_t i = 0; i + 4 < sizeof text; i += 3)
        memcpy(text + i, "\xe2\x82\xac", 3); // €, 3 bytes: 4095 is a boundary, 4094 would not be
    text[sizeof text - 3] = text[sizeof text - 2] = text[sizeof text - 1] = '\0';
    const char *long_names[2] = {name, NULL};
    cr_assert_eq(sr_recorder_create(
                     path,
                     &(sr_recorder_desc){
                         .title = title, .list_names = long_names, .list_name_count = 2, .keyframe_interval = 65536},
                     &rec, &err),
                 SR_OK, "%s", err.message);

    // The frame's arguments: each refusal writes nothing, and the recorder goes on.
    sr_debug_list *list = new_list();
    sr_debug_list *lists[2] = {NULL, list};
    sr_debug_line(list, sr_vec3_make(0, 0, 0), sr_vec3_make(1, 2, 3), sr_debug_style_color(SR_DEBUG_RED));
    expect_error(sr_recorder_frame(NULL, 0.0, lists, 2, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "rec is NULL",
                 "frame rec");
    expect_error(sr_recorder_frame(rec, INFINITY, lists, 2, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "time inf is not finite", "infinite time");
    expect_error(sr_recorder_frame(rec, -NAN, lists, 2, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "not finite",
                 "NaN time");
    expect_error(sr_recorder_frame(rec, 0.0, NULL, 2, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "lists is NULL with list_count 2", "lists NULL");
    expect_error(sr_recorder_frame(rec, 0.0, lists, 70000, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "70000 lists",
                 "too many lists");
    cr_assert(strstr(err.message, path) != NULL, "%s", err.message);
    expect_error(sr_recorder_message(NULL, SR_RECORD_INFO, "x", &err), SR_ERROR_INVALID_ARGUMENT, &err, "rec is NULL",
                 "message rec");
    expect_error(sr_recorder_message(rec, SR_RECORD_INFO, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "text is NULL",
                 "message text");
    expect_error(sr_recorder_message(rec, (sr_record_level)-1, "x", &err), SR_ERROR_INVALID_ARGUMENT, &err, "level -1",
                 "message level");
    expect_error(sr_recorder_set_camera(NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "rec is NULL",
                 "camera rec");
    sr_camera flat = {.eye = {1, 2, 3}, .target = {1, 2, 3}};
    cr_assert_neq(sr_recorder_set_camera(rec, &flat, &err), SR_OK, "a camera looking at its own eye");
    cr_assert(err.message[0] != '\0');
    sr_recorder_stats stats = sr_recorder_get_stats(rec);
    cr_assert_eq(stats.frames, 0);
    cr_assert_eq(stats.messages, 0);
    cr_assert_eq(stats.bytes.total, stats.bytes.framing, "only the header was written");
    cr_assert_eq(sr_recorder_get_stats(NULL).frames, 0);

    sr_camera camera = {.eye = {0, 2, 6}, .target = {0, 0, 0}};
    cr_assert_eq(sr_recorder_set_camera(rec, &camera, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recorder_message(rec, SR_RECORD_WARNING, text, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recorder_frame(rec, -1.5, lists, 2, NULL, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recorder_set_camera(rec, NULL, &err), SR_OK, "NULL: back to the scene's camera");
    cr_assert_eq(sr_recorder_frame(rec, -1.0, lists, 0, NULL, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recorder_close(NULL, &err), SR_OK);
    sr_recorder_destroy(NULL);

    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK, "%s", err.message);
    const sr_recording_info *info = sr_recording_get_info(recording);
    cr_assert_eq(info->frame_count, 2);
    cr_assert_eq(info->keyframe_interval, 65536);
    cr_assert_eq(strlen(info->title), 1022, "the title cut before the character 1023 bytes would split");
    cr_assert_eq(strncmp(info->title, title, 1022), 0);
    cr_assert_eq(strlen(info->list_names[0]), 255);
    cr_assert_str_eq(info->list_names[1], "");
    size_t count = 0;
    const sr_recording_message *messages = sr_recording_messages(recording, &count);
    cr_assert_eq(count, 1);
    cr_assert_eq(strlen(messages[0].text), 4095);
    cr_assert_eq(strncmp(messages[0].text, text, 4095), 0);
    cr_assert_eq(messages[0].level, SR_RECORD_WARNING);
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 0, &frame, &err), SR_OK, "%s", err.message);
    cr_assert_eq(frame.time, -1.5);
    cr_assert(frame.has_camera);
    cr_assert_eq(frame.list_count, 2);
    cr_assert_eq(sr_debug_list_get_stats(frame.lists[0]).items, 0, "a NULL list is recorded empty");
    assert_same_list(list, frame.lists[1], "frame 0");
    cr_assert_eq(sr_recording_seek(recording, 1, &frame, &err), SR_OK, "%s", err.message);
    cr_assert_not(frame.has_camera, "no camera set and no scene");
    cr_assert_eq(frame.list_count, 0);
    sr_recording_destroy(recording);
    sr_debug_list_destroy(list);
    temp_folder_remove(folder);
}

/* ---- the reader's arguments ---- */

Test(record_errors, the_reader_refuses_bad_arguments_by_name)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/args.srrec", folder);
    sr_debug_list *lists[2] = {new_list(), new_list()};
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, NULL), SR_OK);
    for (int f = 0; f < 3; f++) {
        frame_lists(lists, f);
        cr_assert_eq(sr_recorder_frame(rec, f, lists, 2, NULL, NULL), SR_OK);
    }
    cr_assert_eq(sr_recorder_close(rec, NULL), SR_OK);

    sr_error err = {0};
    sr_recording *recording = (sr_recording *)&recording;
    expect_error(sr_recording_open(NULL, NULL, &recording, &err), SR_ERROR_INVALID_ARGUMENT, &err, "path is NULL",
                 "open path");
    cr_assert_null(recording);
    expect_error(sr_recording_open(path, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "out is NULL", "open out");
    sr_recording_check_report report;
    expect_error(sr_recording_check(NULL, NULL, &report, &err), SR_ERROR_INVALID_ARGUMENT, &err, "path is NULL",
                 "check path");
    expect_error(sr_recording_check(path, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "report is NULL",
                 "check report");
    expect_error(sr_recording_seek(NULL, 0, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "rec is NULL", "seek rec");
    sr_recording_destroy(NULL);

    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK, "%s", err.message);
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = 64, .height = 48}, &fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = 1}, &renderer, NULL), SR_OK);
    sr_recording_item_pick pick;
    sr_camera camera;
    // Before the first seek there is no frame to draw or pick.
    cr_assert_eq(sr_recording_current(recording)->list_count, 0);
    expect_error(sr_recording_render(recording, renderer, fb, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "seek to one first", "render before a seek");
    expect_error(sr_recording_pick_item(recording, NULL, 64, 48, 1, 1, 0, NULL, &pick, &err), SR_ERROR_INVALID_ARGUMENT,
                 &err, "seek to one first", "pick before a seek");
    cr_assert_not(pick.hit);
    cr_assert_not(sr_recording_find_item(recording, &pick, &pick));

    // Seeks past the end leave the current frame as it was.
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 1, &frame, &err), SR_OK, "%s", err.message);
    expect_error(sr_recording_seek(recording, 3, &frame, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "frame 3 does not exist (3 frames)", "seek past the end");
    expect_error(sr_recording_seek(recording, UINT64_MAX, &frame, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "18446744073709551615", "seek to the largest frame");
    cr_assert(strstr(err.message, path) != NULL, "%s", err.message);
    cr_assert_eq(sr_recording_current(recording)->index, 1);
    frame_lists(lists, 1);
    assert_same_list(lists[0], sr_recording_current(recording)->lists[0], "after refused seeks");
    cr_assert(isnan(sr_recording_frame_time(recording, 3)));
    cr_assert_not(sr_recording_frame_is_keyframe(recording, 3));
    cr_assert_lt(sr_recording_frame_at_time(recording, NAN), 3);
    cr_assert_eq(sr_recording_frame_at_time(recording, -INFINITY), 0);
    cr_assert_eq(sr_recording_frame_at_time(recording, INFINITY), 2);
    sr_node_id stale = sr_recording_source_node(recording, (sr_node_id){12345, 678});
    cr_assert(stale.index == 0 && stale.generation == 0, "a node of no recorded scene");
    stale = sr_recording_node_of_source(recording, (sr_node_id){12345, 678});
    cr_assert(stale.index == 0 && stale.generation == 0, "a node of no recorded scene");

    expect_error(sr_recording_render(NULL, renderer, fb, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "rec is NULL",
                 "render rec");
    expect_error(sr_recording_render(recording, NULL, fb, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "renderer is NULL", "render renderer");
    expect_error(sr_recording_render(recording, renderer, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "fb is NULL", "render fb");
    sr_camera flat = {.eye = {1, 2, 3}, .target = {1, 2, 3}};
    cr_assert_neq(sr_recording_render(recording, renderer, fb, &(sr_recording_render_desc){.camera = &flat}, &err),
                  SR_OK, "a camera looking at its own eye");
    cr_assert_eq(sr_recording_render(recording, renderer, fb, NULL, &err), SR_OK, "%s", err.message);
    expect_error(sr_recording_pick_item(recording, NULL, 64, 48, 1, 1, 0, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT,
                 &err, "out is NULL", "pick out");
    expect_error(sr_recording_pick_item(recording, NULL, 0, 48, 1, 1, 0, NULL, &pick, &err), SR_ERROR_INVALID_ARGUMENT,
                 &err, "bad size 0x48", "pick size");
    expect_error(sr_recording_pick_item(recording, NULL, 64, 48, NAN, 1, 0, NULL, &pick, &err),
                 SR_ERROR_INVALID_ARGUMENT, &err, "point", "pick point");
    cr_assert_neq(sr_recording_pick_item(recording, &flat, 64, 48, 1, 1, 0, NULL, &pick, &err), SR_OK);
    cr_assert_not(sr_recording_find_item(recording, NULL, &pick));
    expect_error(sr_recording_fit_camera(recording, 0, 2, 1.5f, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "camera is NULL", "fit camera");
    expect_error(sr_recording_fit_camera(recording, 2, 1, 1.5f, &camera, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "frames 2 to 1 are not a range of its 3 frames", "fit reversed");
    expect_error(sr_recording_fit_camera(recording, 0, 3, 1.5f, &camera, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "frames 0 to 3", "fit past the end");
    cr_assert_eq(sr_recording_current(recording)->index, 1, "refused calls leave the current frame");

    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_recording_destroy(recording);
    sr_debug_list_destroy(lists[0]);
    sr_debug_list_destroy(lists[1]);
    temp_folder_remove(folder);
}

/* ---- what is not a recording ---- */

/* Opening and checking `path` fail with `want` and a message naming the file and saying `needle`;
 * sr_recording_probe takes it for a recording only when it starts with the magic. */
static void expect_refused(const char *path, sr_status want, const char *needle)
{
    uint8_t start[SR_RECORD_MAGIC_SIZE] = {0};
    FILE *file = strstr(needle, "regular") ? NULL : fopen(path, "rb");
    bool magic = file && fread(start, 1, sizeof start, file) == sizeof start &&
                 memcmp(start, SR_RECORD_MAGIC, sizeof start) == 0;
    if (file)
        fclose(file);
    sr_error err = {0};
    sr_recording *recording = NULL;
    expect_error(sr_recording_open(path, NULL, &recording, &err), want, &err, needle, path);
    cr_assert(strstr(err.message, path) != NULL, "the message does not name the file: %s", err.message);
    cr_assert_null(recording);
    sr_recording_check_report report;
    expect_error(sr_recording_check(path, NULL, &report, &err), want, &err, needle, path);
    cr_assert_eq(sr_recording_probe(path), magic, "%s: probed %d", path, !magic);
}

/* The start of a header: the magic, version major.minor, a payload length of `length`, then 6
 * bytes of payload (a keyframe interval of 60, an empty title, no names); its size. */
static size_t make_header(uint8_t *out, uint16_t major, uint16_t minor, uint32_t length)
{
    memcpy(out, SR_RECORD_MAGIC, SR_RECORD_MAGIC_SIZE);
    uint8_t fields[8] = {(uint8_t)major,  (uint8_t)(major >> 8),  (uint8_t)minor,          (uint8_t)(minor >> 8),
                         (uint8_t)length, (uint8_t)(length >> 8), (uint8_t)(length >> 16), (uint8_t)(length >> 24)};
    memcpy(out + 8, fields, 8);
    uint8_t payload[6] = {60, 0, 0, 0, 0, 0};
    memcpy(out + 16, payload, sizeof payload);
    return 16 + sizeof payload;
}

Test(record_errors, what_is_not_a_recording_is_refused_by_name, .timeout = 30)
{
    char folder[256], path[320];
    temp_folder(folder, sizeof folder);

    snprintf(path, sizeof path, "%s/missing.srrec", folder);
    expect_refused(path, SR_ERROR_IO, "No such file");
    expect_refused(folder, SR_ERROR_IO, "not a regular file");
    // A FIFO that nobody writes: an open() waiting for a writer would hang here (the timeout).
    snprintf(path, sizeof path, "%s/fifo.srrec", folder);
    cr_assert_eq(mkfifo(path, 0600), 0);
    expect_refused(path, SR_ERROR_IO, "not a regular file");
    unlink(path);

    static const struct {
        const char *name;
        const char *bytes;
        size_t size;
        const char *says;
    } files[] = {
        {"empty.srrec", "", 0, "not a softrast recording"},
        {"text.srrec", "frame 1: 3 lines\n", 17, "not a softrast recording"},
        {"image.png", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16, "not a softrast recording"},
        {"magic.srrec", SR_RECORD_MAGIC, SR_RECORD_MAGIC_SIZE, "the header is cut short"},
        {"short.srrec", SR_RECORD_MAGIC "\1\0\0\0", SR_RECORD_MAGIC_SIZE + 4, "the header is cut short"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", folder, files[i].name);
        write_whole(path, (const uint8_t *)files[i].bytes, files[i].size);
        expect_refused(path, SR_ERROR_PARSE, files[i].says);
    }

    uint8_t header[64] = {0};
    snprintf(path, sizeof path, "%s/version0.srrec", folder);
    write_whole(path, header, make_header(header, 0, 3, 6) + 4);
    expect_refused(path, SR_ERROR_PARSE, "format version 0.3 does not exist");
    snprintf(path, sizeof path, "%s/long.srrec", folder);
    write_whole(path, header, make_header(header, 1, 0, 5000));
    expect_refused(path, SR_ERROR_PARSE, "the header announces 5000 bytes, more than the file holds");

    // A header announcing 100 MB in a (sparse) 200 MB file: refused without reading it.
    snprintf(path, sizeof path, "%s/huge.srrec", folder);
    write_whole(path, header, make_header(header, 1, 0, 100u << 20));
    cr_assert_eq(truncate(path, 200 << 20), 0);
    watch w = {.limit = 4u << 20};
    sr_set_allocator(&(sr_allocator){watch_allocate, watch_reallocate, watch_release, &w});
    expect_refused(path, SR_ERROR_PARSE, "more than a header holds");
    sr_set_allocator(NULL);
    cr_assert_eq(w.refused, 0, "the largest request was %zu bytes", w.largest);
    cr_assert_lt(w.largest, 1u << 20, "%zu bytes", w.largest);
    temp_folder_remove(folder);
}

/* ---- failed writes ---- */

Test(record_errors, a_failed_write_leaves_a_readable_file)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/full.srrec", folder);
    sr_error err = {0};
    sr_recorder *rec = NULL;
    // A device that is always full: the header cannot be written.
    if (access("/dev/full", W_OK) == 0) {
        cr_assert_eq(sr_recorder_create("/dev/full", NULL, &rec, &err), SR_ERROR_IO);
        cr_assert(strstr(err.message, "/dev/full") != NULL, "%s", err.message);
        cr_assert_null(rec);
    }
    cr_assert_eq(sr_recorder_create(folder, NULL, &rec, &err), SR_ERROR_IO, "a folder is not a file");

    // A file-size limit in a child (as a full disk would do): frames fail past it, and the file
    // holds every frame that returned.
    pid_t child = fork();
    cr_assert_neq(child, -1);
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit = {60000, 60000};
        setrlimit(RLIMIT_FSIZE, &limit);
        sr_debug_list *lists[2];
        sr_debug_list_create(NULL, &lists[0], NULL);
        sr_debug_list_create(NULL, &lists[1], NULL);
        if (sr_recorder_create(path, NULL, &rec, NULL) != SR_OK)
            _exit(10);
        int f = 0;
        for (; f < 1000; f++) {
            frame_lists(lists, f);
            if (sr_recorder_frame(rec, f, lists, 2, NULL, &err) != SR_OK)
                break;
        }
        bool named = strstr(err.message, path) != NULL;
        bool refused = sr_recorder_frame(rec, f + 1, lists, 2, NULL, NULL) == SR_ERROR_IO;
        bool close_fails = sr_recorder_close(rec, NULL) == SR_ERROR_IO;
        _exit(f == 1000 ? 11 : !named ? 12 : !refused ? 13 : !close_fails ? 14 : f > 200 ? 15 : 100 + f);
    }
    int status = 0;
    waitpid(child, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) >= 100, "the child ended with %d", WEXITSTATUS(status));
    int returned = WEXITSTATUS(status) - 100;
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK, "%s", err.message);
    const sr_recording_info *info = sr_recording_get_info(recording);
    cr_assert_eq(info->frame_count, (uint64_t)returned);
    cr_assert_not(info->truncated, "the failed write was cut off: %s", info->note);
    sr_debug_list *expected[2] = {new_list(), new_list()};
    for (int f = 0; f < returned; f++) {
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, &err), SR_OK);
        frame_lists(expected, f);
        assert_same_list(expected[0], frame.lists[0], "before the failure");
    }
    sr_recording_destroy(recording);

    // max_bytes: frames past it refused, the index still written at close.
    cr_assert_eq(sr_recorder_create(path, &(sr_recorder_desc){.max_bytes = 40000}, &rec, &err), SR_OK);
    int f = 0;
    for (; f < 1000; f++) {
        frame_lists(expected, f);
        if (sr_recorder_frame(rec, f, expected, 2, NULL, &err) != SR_OK)
            break;
    }
    cr_assert_lt(f, 1000);
    cr_assert(strstr(err.message, "max_bytes") != NULL, "%s", err.message);
    cr_assert_eq(sr_recorder_message(rec, SR_RECORD_INFO, "after", &err), SR_ERROR_IO);
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK);
    cr_assert(sr_recording_get_info(recording)->closed_cleanly);
    cr_assert_eq(sr_recording_get_info(recording)->frame_count, (uint64_t)f);
    sr_recording_destroy(recording);
    sr_debug_list_destroy(expected[0]);
    sr_debug_list_destroy(expected[1]);
    temp_folder_remove(folder);
}
