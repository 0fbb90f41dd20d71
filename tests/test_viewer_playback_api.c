/* test_viewer_playback_api.c — a recording steered from code by a program that embeds the viewer
 * (softrast/viewer.h: desc.scene_path naming a recording, sr_viewer_get_playback, sr_viewer_seek,
 * sr_viewer_play, desc.recording_cache_bytes), in this process under SDL's dummy video driver.
 * The recording is made here: frame f holds one vertical magenta line at x = X0 + DX * f, recorded
 * at time f / 30 s. Checked: the frame count and each frame's recorded time; after a seek, the
 * line drawn where an independent projection (tests/debug_projection.h) puts frame f's line, for
 * every frame with a cache far smaller than one frame; seeks past the end clamped; play in real
 * time (the frame shown follows the wall clock within the time the calls took) and pause; a
 * viewer without a recording refuses a seek with a message and reports no playback; a viewer left
 * idle prepares for the recording's largest frame, so that its first visit allocates no large block. */
#include <criterion/criterion.h>

#include <SDL.h>
#include <math.h>
#include <softrast/softrast.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc_watch.h"
#include "debug_projection.h"

#define WIDTH 320
#define HEIGHT 200
#define FRAMES 30
#define FPS 30.0
#define X0 (-1.45)
#define DX 0.1
/// The line's colour: pure magenta, opaque (r = b = 255).
#define LINE_COLOR 0xffff00ffu

static void init(void)
{
    setenv("SDL_VIDEODRIVER", "dummy", 0);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double line_x(uint64_t frame)
{
    return X0 + DX * (double)frame;
}

/* Records FRAMES frames into a fresh file; returns its path (static storage). */
static const char *make_recording(void)
{
    static char path[256];
    const char *folder = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%.200s/test_viewer_playback_api_%d.rec", folder, (int)getpid());
    sr_error err = {0};
    sr_recorder *recorder = NULL;
    const char *names[1] = {"lines"};
    cr_assert_eq(sr_recorder_create(path,
                                    &(sr_recorder_desc){.title = "api test", .list_names = names, .list_name_count = 1},
                                    &recorder, &err),
                 SR_OK, "%s", err.message);
    sr_camera camera = sr_camera_look_at(sr_vec3_make(0.0f, 0.0f, 5.0f), sr_vec3_make(0.0f, 0.0f, 0.0f));
    cr_assert_eq(sr_recorder_set_camera(recorder, &camera, &err), SR_OK, "%s", err.message);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &list, &err), SR_OK);
    for (int f = 0; f < FRAMES; f++) {
        sr_debug_list_clear(list, NULL);
        sr_debug_line(list, sr_vec3_make((float)line_x((uint64_t)f), -0.6f, 0.0f),
                      sr_vec3_make((float)line_x((uint64_t)f), 0.6f, 0.0f), sr_debug_style_color(LINE_COLOR));
        cr_assert_eq(sr_recorder_frame(recorder, f / FPS, &list, 1, NULL, &err), SR_OK, "%s", err.message);
    }
    sr_debug_list_destroy(list);
    cr_assert_eq(sr_recorder_close(recorder, &err), SR_OK, "%s", err.message);
    return path;
}

/* A hidden viewer on `path`, returned once the recording's first frame is shown. */
static sr_viewer *open_recording(const char *path, size_t cache_bytes)
{
    sr_error err = {0};
    sr_viewer *viewer = NULL;
    cr_assert_eq(sr_viewer_create(&(sr_viewer_desc){.title = "test_viewer_playback_api",
                                                    .width = WIDTH,
                                                    .height = HEIGHT,
                                                    .threads = 2,
                                                    .hidden = true,
                                                    .scene_path = path,
                                                    .recording_cache_bytes = cache_bytes},
                                  NULL, &viewer, &err),
                 SR_OK, "%s", err.message);
    double give_up = now_s() + 60.0;
    while (!sr_viewer_get_playback(viewer).recording) {
        cr_assert(sr_viewer_frame(viewer, NULL, &err), "the viewer stopped: %s", err.message);
        cr_assert_str_empty(sr_viewer_load_error(viewer), "%s", sr_viewer_load_error(viewer));
        cr_assert(now_s() < give_up, "the recording did not open within 60 s");
    }
    // The picture alone: no HUD (the timeline is part of it).
    sr_viewer_set_overlays(viewer, 0);
    cr_assert(sr_viewer_frame(viewer, NULL, &err), "%s", err.message);
    return viewer;
}

/* Where the line crosses the middle row of the viewer's last frame: the mean of the pixel
 * centres weighted by how magenta each pixel is (an antialiased line's edge pixels count for
 * less; the grey background not at all); -1 when nothing there is magenta. */
static double line_column(const sr_viewer *viewer)
{
    const sr_framebuffer *fb = sr_viewer_framebuffer(viewer);
    const unsigned char *row = (const unsigned char *)(fb->color + (size_t)(fb->height / 2) * (size_t)fb->width);
    double sum = 0.0, weights = 0.0;
    for (int x = 0; x < fb->width; x++) {
        const unsigned char *p = row + 4 * x;
        int weight = (p[0] < p[2] ? p[0] : p[2]) - p[1] - 16;
        if (weight > 0) {
            sum += weight * (x + 0.5);
            weights += weight;
        }
    }
    return weights > 0.0 ? sum / weights : -1.0;
}

/* Where frame f's line crosses the middle row, by an independent projection of the recorded
 * camera (fov 45, near 0.1, far 100 by default). */
static double expected_column(uint64_t frame)
{
    const double eye[3] = {0.0, 0.0, 5.0}, target[3] = {0.0, 0.0, 0.0}, up[3] = {0.0, 1.0, 0.0};
    test_view view = test_view_make(eye, target, up, 45.0, 0.1, 100.0, WIDTH, HEIGHT);
    return test_project(&view, line_x(frame), 0.0, 0.0).x;
}

Test(viewer_playback_api, a_seek_from_code_shows_that_frame_even_with_a_cache_smaller_than_a_frame, .init = init,
     .timeout = 120)
{
    const char *path = make_recording();
    sr_viewer *viewer = open_recording(path, 256); // a few hundred bytes: every frame read again
    sr_viewer_playback playback = sr_viewer_get_playback(viewer);
    cr_assert_eq(playback.frame_count, FRAMES);
    cr_assert_eq(playback.frame, 0);
    cr_assert(!playback.playing);
    cr_assert_eq(playback.speed, 1.0);
    sr_error err = {0};
    // Every frame, in an order that jumps both ways (7 is prime to 30).
    for (int i = 0; i < FRAMES; i++) {
        uint64_t frame = (uint64_t)(i * 7 % FRAMES);
        cr_assert_eq(sr_viewer_seek(viewer, frame, &err), SR_OK, "frame %llu: %s", (unsigned long long)frame,
                     err.message);
        cr_assert(sr_viewer_frame(viewer, NULL, &err), "%s", err.message);
        playback = sr_viewer_get_playback(viewer);
        cr_assert_eq(playback.frame, frame);
        cr_assert_eq(playback.time, (double)frame / FPS, "frame %llu at t %.17g", (unsigned long long)frame,
                     playback.time);
        double column = line_column(viewer), expected = expected_column(frame);
        cr_assert(fabs(column - expected) <= 1.0, "frame %llu: the line at column %.2f, expected %.2f",
                  (unsigned long long)frame, column, expected);
    }
    // Past the end: the last frame.
    cr_assert_eq(sr_viewer_seek(viewer, 1000, &err), SR_OK, "%s", err.message);
    cr_assert(sr_viewer_frame(viewer, NULL, &err));
    cr_assert_eq(sr_viewer_get_playback(viewer).frame, FRAMES - 1);
    cr_assert(fabs(line_column(viewer) - expected_column(FRAMES - 1)) <= 1.0);
    sr_viewer_destroy(viewer);
    remove(path);
}

Test(viewer_playback_api, play_from_code_follows_the_wall_clock_and_pause_stops_it, .init = init, .timeout = 120)
{
    const char *path = make_recording();
    sr_viewer *viewer = open_recording(path, 0);
    sr_error err = {0};
    cr_assert_eq(sr_viewer_seek(viewer, 3, &err), SR_OK, "%s", err.message);
    double before_play = now_s();
    sr_viewer_play(viewer, true);
    double after_play = now_s();
    cr_assert(sr_viewer_get_playback(viewer).playing);
    SDL_Delay(150);
    double before_frame = now_s();
    cr_assert(sr_viewer_frame(viewer, NULL, &err), "%s", err.message);
    double after_frame = now_s();
    sr_viewer_playback playback = sr_viewer_get_playback(viewer);
    // The frame shown is the one of a moment between the calls: 3 + elapsed * 30 frames a second.
    double least = 3.0 + floor((before_frame - after_play) * FPS) - 1.0;
    double most = 3.0 + ceil((after_frame - before_play) * FPS) + 1.0;
    cr_assert(playback.playing || playback.frame == FRAMES - 1, "play stopped at frame %llu",
              (unsigned long long)playback.frame);
    cr_assert((double)playback.frame >= fmin(least, FRAMES - 1) && (double)playback.frame <= most,
              "frame %llu after %.0f to %.0f ms of play: expected %.0f to %.0f", (unsigned long long)playback.frame,
              (before_frame - after_play) * 1e3, (after_frame - before_play) * 1e3, least, most);
    cr_assert(playback.frame > 3, "play did not move past frame 3");
    cr_assert(fabs(line_column(viewer) - expected_column(playback.frame)) <= 1.0, "the picture is not frame %llu's",
              (unsigned long long)playback.frame);

    // Paused: the frame stays however long it waits.
    sr_viewer_play(viewer, false);
    uint64_t paused_at = sr_viewer_get_playback(viewer).frame;
    cr_assert(!sr_viewer_get_playback(viewer).playing);
    SDL_Delay(100);
    cr_assert(sr_viewer_frame(viewer, NULL, &err), "%s", err.message);
    cr_assert_eq(sr_viewer_get_playback(viewer).frame, paused_at);

    // Play to the end: it stops at the last frame (no loop range).
    cr_assert_eq(sr_viewer_seek(viewer, FRAMES - 2, &err), SR_OK, "%s", err.message);
    sr_viewer_play(viewer, true);
    double give_up = now_s() + 30.0;
    while (sr_viewer_get_playback(viewer).playing && now_s() < give_up) {
        SDL_Delay(20);
        cr_assert(sr_viewer_frame(viewer, NULL, &err), "%s", err.message);
    }
    playback = sr_viewer_get_playback(viewer);
    cr_assert(!playback.playing, "play did not stop at the end");
    cr_assert_eq(playback.frame, FRAMES - 1);
    sr_viewer_destroy(viewer);
    remove(path);
}

Test(viewer_playback_api, a_viewer_without_a_recording_refuses_a_seek_and_reports_no_playback, .init = init,
     .timeout = 120)
{
    sr_error err = {0};
    sr_scene *scene = NULL;
    cr_assert_eq(sr_scene_create(&(sr_scene_desc){.name = "no recording"}, &scene, &err), SR_OK);
    sr_viewer *viewer = NULL;
    cr_assert_eq(sr_viewer_create(&(sr_viewer_desc){.width = WIDTH, .height = HEIGHT, .threads = 1, .hidden = true},
                                  scene, &viewer, &err),
                 SR_OK, "%s", err.message);
    cr_assert(sr_viewer_frame(viewer, NULL, &err), "%s", err.message);
    sr_viewer_playback playback = sr_viewer_get_playback(viewer);
    cr_assert(!playback.recording && playback.frame_count == 0 && !playback.playing);
    err = (sr_error){0};
    cr_assert_eq(sr_viewer_seek(viewer, 3, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "no recording"), "the message: %s", err.message);
    sr_viewer_play(viewer, true); // nothing to play: no effect
    cr_assert(!sr_viewer_get_playback(viewer).playing);
    cr_assert(sr_viewer_frame(viewer, NULL, &err), "%s", err.message);
    sr_viewer_destroy(viewer);
    sr_scene_destroy(scene);
}

/* A viewer left idle on a recording prepares for its largest frame (sr_recording_prepare, then
 * the renderer's line memory): a first visit to that frame, 20,000 lines, then asks the library's
 * allocator for no block near the size of its lines (without the preparation: its items, 2 MB,
 * and the renderer's line memory, 1.8 MB), and shows it. */
Test(viewer_playback_api, an_idle_viewer_prepares_for_the_largest_frame, .init = init, .timeout = 120)
{
    enum { big_frame = 3, big_lines = 20000 };
    static char path[256];
    const char *folder = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%.200s/test_viewer_playback_api_big_%d.rec", folder, (int)getpid());
    sr_error err = {0};
    sr_recorder *recorder = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &recorder, &err), SR_OK, "%s", err.message);
    sr_camera camera = sr_camera_look_at(sr_vec3_make(0.0f, 0.0f, 5.0f), sr_vec3_make(0.0f, 0.0f, 0.0f));
    cr_assert_eq(sr_recorder_set_camera(recorder, &camera, &err), SR_OK, "%s", err.message);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.segment_capacity = big_lines, .item_capacity = big_lines},
                                      &list, &err),
                 SR_OK);
    for (int f = 0; f < 6; f++) {
        sr_debug_list_clear(list, NULL);
        int lines = f == big_frame ? big_lines : 10;
        for (int i = 0; i < lines; i++) {
            float x = -1.4f + 2.8f * (float)i / (float)lines;
            // short lines (20 rows at most: two units of rows, as sr_renderer_reserve_lines plans)
            sr_debug_line(list, sr_vec3_make(x, -0.1f, 0.0f), sr_vec3_make(x + 0.05f, 0.1f, 0.0f),
                          sr_debug_style_color(LINE_COLOR));
        }
        cr_assert_eq(sr_recorder_frame(recorder, f / FPS, &list, 1, NULL, &err), SR_OK, "%s", err.message);
    }
    sr_debug_list_destroy(list);
    cr_assert_eq(sr_recorder_close(recorder, &err), SR_OK, "%s", err.message);

    sr_viewer *viewer = open_recording(path, 0);
    // Idle frames: nothing to draw, so each prepares a step (the largest frame read, a spare list,
    // the renderer's line memory).
    for (int i = 0; i < 8; i++)
        cr_assert(sr_viewer_frame(viewer, NULL, &err), "%s", err.message);
    watch watched = {.limit = SIZE_MAX};
    sr_set_allocator(&(sr_allocator){watch_allocate, watch_reallocate, watch_release, &watched});
    sr_status status = sr_viewer_seek(viewer, big_frame, &err);
    bool shown = status == SR_OK && sr_viewer_frame(viewer, NULL, &err);
    sr_set_allocator(NULL);
    cr_assert(shown, "%s", err.message);
    cr_assert_eq(sr_viewer_get_playback(viewer).frame, big_frame);
    cr_assert(line_column(viewer) >= 0.0, "the frame's lines are not on screen");
    cr_assert_lt(watched.largest, (size_t)256 * 1024, "a first visit to the prepared frame allocated %zu bytes at once",
                 watched.largest);
    sr_viewer_destroy(viewer);
    remove(path);
}
