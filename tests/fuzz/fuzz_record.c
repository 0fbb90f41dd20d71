/* tests/fuzz/fuzz_record.c — fuzz target of the recording reader (softrast/record.h, the reading
 * half of src/record/): any bytes as a recording file, opened, every frame sought (forwards, then
 * backwards), some drawn and picked in, the frames framed, and the whole file checked.
 *
 * Input: a mode byte, then the file. Mode bit 0 repairs the checksums first (the header's, each
 * record's as far as the lengths chain, the trailer's), so that mutations reach the decoders of
 * items, states, meshes and the index instead of stopping at a checksum; bit 1 uses a tiny cache
 * (evictions at every seek). Inputs starting with FUZZ_ALLOCATION_FAILURE_MARK run with failing
 * allocations. The frames' scenes go through the collision pass (their shapes and hulls, format 1.1).
 * Promises checked: no crash, no leak, no allocation past what the file justifies
 * (the sanitizers and the allocator), every failure with a message, info that holds together,
 * and a file found clean by the check seeks to every frame. Knows nothing of the driver. */
#include "fuzz_targets.h"

#include <softrast/record.h>
#include <softrast/scene_collide.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the file the reader opens (one per process, rewritten for each input) ---- */

static char file_path[64];
static int file_fd = -1;

static bool write_file(const uint8_t *data, size_t size)
{
    if (file_fd < 0) {
        snprintf(file_path, sizeof file_path, "/tmp/softrast_fuzz_record_XXXXXX");
        file_fd = mkstemp(file_path);
        if (file_fd < 0)
            return false;
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(file_fd, data + done, size - done, (off_t)done);
        if (n <= 0)
            return false;
        done += (size_t)n;
    }
    // Cut to the new size after writing, never to zero before: on ext4, a file truncated to zero
    // is written back when any descriptor of it closes (its auto_da_alloc rule), and the next
    // truncation then waits for that write: 20 ms an input, 78 s of the target's 80.
    return ftruncate(file_fd, (off_t)size) == 0;
}

/* ---- checksum repair ---- */

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

static uint32_t load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store_u32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static void repair(uint8_t *data, size_t size)
{
    if (size < 16)
        return;
    uint64_t header = 16 + (uint64_t)load_u32(data + 12);
    if (header + 4 > size)
        return;
    store_u32(data + header, crc32c(data + 8, (size_t)header - 8));
    size_t end = size;
    if (size >= header + 4 + 32 && memcmp(data + size - 32, "\x89SRRIDX\n", 8) == 0) {
        store_u32(data + size - 4, crc32c(data + size - 32, 28));
        end = size - 32;
    }
    for (size_t at = (size_t)header + 4; at + 9 <= end;) {
        uint64_t length = load_u32(data + at + 1);
        if (at + 9 + length > end)
            break;
        store_u32(data + at + 5 + length, crc32c(data + at, 5 + (size_t)length));
        at += 9 + (size_t)length;
    }
}

/* ---- the target ---- */

static void played(sr_recording *recording, const sr_recording_info *info, sr_framebuffer *fb, sr_renderer *renderer,
                   bool clean)
{
    uint64_t frames = info->frame_count < 48 ? info->frame_count : 48;
    sr_collision *collision = NULL;
    sr_collision_create(&collision, NULL);
    for (uint64_t k = 0; k < 2 * frames; k++) {
        uint64_t f = k < frames ? k : 2 * frames - 1 - k; // forwards, then backwards
        sr_recording_frame frame;
        sr_error err = {0};
        sr_status status = sr_recording_seek(recording, f, &frame, &err);
        FUZZ_CHECK(status == SR_OK || err.message[0], "seek %llu failed without a message", (unsigned long long)f);
        FUZZ_CHECK(status == SR_OK || !clean || status == SR_ERROR_OUT_OF_MEMORY || status == SR_ERROR_UNSUPPORTED ||
                       status == SR_ERROR_PARSE,
                   "a clean file's frame %llu failed: %s", (unsigned long long)f, err.message);
        if (status != SR_OK)
            continue;
        FUZZ_CHECK(frame.index == f && frame.list_count <= info->list_count, "frame %llu: index %llu, %zu lists of %zu",
                   (unsigned long long)f, (unsigned long long)frame.index, frame.list_count, info->list_count);
        FUZZ_CHECK(frame.message_first + frame.message_count <= info->message_count, "frame messages out of range");
        if (k % 5 == 0) {
            err.message[0] = '\0';
            status = sr_recording_render(recording, renderer, fb, NULL, &err);
            FUZZ_CHECK(status == SR_OK || err.message[0], "a render failed without a message");
        }
        if (k % 3 == 0 && frame.scene && collision) {
            err.message[0] = '\0';
            status = sr_scene_collide(frame.scene, NULL, collision, &err);
            FUZZ_CHECK(status == SR_OK || err.message[0], "a collision pass failed without a message");
        }
        sr_recording_item_pick pick, again;
        if (sr_recording_pick_item(recording, NULL, fb->width, fb->height, (float)(k % 16), (float)(k % 12), 4.0f, NULL,
                                   &pick, NULL) == SR_OK &&
            pick.hit) {
            FUZZ_CHECK(pick.list < frame.list_count, "a pick in list %u of %zu", pick.list, frame.list_count);
            sr_recording_find_item(recording, &pick, &again);
        }
        sr_recording_frame_bounds(recording);
        // A viewer's idle steps (the largest frame read, a spare list, the renderer's line memory):
        // none takes the cache past its bound, whatever the file says its frames hold.
        for (int step = 0; step < 3; step++) {
            size_t before = sr_recording_get_cache_stats(recording).bytes;
            if (!sr_recording_prepare(recording))
                break;
            sr_recording_cache_stats after = sr_recording_get_cache_stats(recording);
            FUZZ_CHECK(after.bytes <= after.limit || after.bytes <= before,
                       "a prepared step took the cache from %zu to %zu bytes, past its bound of %zu", before,
                       after.bytes, after.limit);
        }
        if (k == 0)
            sr_renderer_reserve_lines(renderer, sr_recording_get_cache_stats(recording).draw_segments, NULL);
    }
    sr_collision_destroy(collision);
    if (info->frame_count) {
        sr_camera camera;
        sr_recording_fit_camera(recording, 0, frames ? frames - 1 : 0, 1.5f, &camera, NULL);
    }
}

int fuzz_record_test_one_input(const uint8_t *data, size_t size)
{
    fuzz_reader reader = fuzz_reader_make(data, size);
    bool failing = fuzz_allocation_failures_begin(&reader);
    uint8_t mode = fuzz_read_u8(&reader);
    size_t file_size = size - reader.offset;
    uint8_t *file = malloc(file_size ? file_size : 1);
    if (!file)
        return 0;
    if (file_size) // data may be NULL for the empty input
        memcpy(file, data + reader.offset, file_size);
    if (mode & 1)
        repair(file, file_size);
    bool written = write_file(file, file_size);
    free(file);
    if (!written) {
        fuzz_allocation_failures_end();
        return 0;
    }

    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    sr_framebuffer_create(&(sr_framebuffer_desc){.width = 16, .height = 12}, &fb, NULL);
    sr_renderer_create(NULL, &renderer, NULL);
    sr_recording_check_report report;
    sr_error err = {0};
    sr_status checked = sr_recording_check(file_path, NULL, &report, &err);
    FUZZ_CHECK(checked == SR_OK || err.message[0], "a check failed without a message");
    if (checked == SR_OK) {
        FUZZ_CHECK(report.message[0], "a check without its line");
        FUZZ_CHECK(report.health <= SR_RECORDING_DAMAGED, "health %d", (int)report.health);
        FUZZ_CHECK(report.bytes.total <= file_size, "%llu bytes counted in a file of %zu",
                   (unsigned long long)report.bytes.total, file_size);
    }
    sr_recording *recording = NULL;
    err.message[0] = '\0';
    sr_status status = sr_recording_open(file_path, &(sr_recording_desc){.cache_bytes = mode & 2 ? 4096u : 8u << 20},
                                         &recording, &err);
    FUZZ_CHECK(status == SR_OK || err.message[0], "an open failed without a message");
    FUZZ_CHECK(status != SR_OK || checked == SR_OK || failing, "the file opens but its check failed: %s", err.message);
    if (status == SR_OK) {
        const sr_recording_info *info = sr_recording_get_info(recording);
        FUZZ_CHECK(info->readable_bytes <= info->file_bytes && info->file_bytes == file_size, "sizes: %llu of %llu",
                   (unsigned long long)info->readable_bytes, (unsigned long long)info->file_bytes);
        FUZZ_CHECK(info->note && info->note[0], "no note");
        FUZZ_CHECK(info->frame_count <= file_size / 9, "%llu frames in %zu bytes",
                   (unsigned long long)info->frame_count, file_size);
        size_t count = 0;
        const sr_recording_message *messages = sr_recording_messages(recording, &count);
        FUZZ_CHECK(count == info->message_count, "messages: %zu and %zu", count, info->message_count);
        for (size_t i = 0; i < count; i++)
            FUZZ_CHECK(messages[i].text && (info->frame_count == 0 || messages[i].frame < info->frame_count),
                       "message %zu", i);
        for (size_t i = 0; i < info->list_count; i++)
            FUZZ_CHECK(info->list_names[i] != NULL, "list name %zu", i);
        bool clean = checked == SR_OK && report.health == SR_RECORDING_CLEAN && !failing;
        if (fb && renderer)
            played(recording, info, fb, renderer, clean);
        sr_recording_destroy(recording);
    }
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    fuzz_allocation_failures_end();
    return 0;
}

/* ---- seeds: recordings made by the recorder ---- */

static void add_file(fuzz_corpus *corpus, const char *path, uint8_t mode, size_t cut)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return;
    uint8_t bytes[16384];
    bytes[0] = mode;
    size_t size = 1 + fread(bytes + 1, 1, sizeof bytes - 1, in);
    fclose(in);
    fuzz_corpus_add(corpus, bytes, cut && cut < size ? cut : size);
}

static void add_seeds(fuzz_corpus *corpus)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/softrast_fuzz_seed_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return;
    close(fd);
    sr_debug_list *list = NULL;
    sr_debug_list_create(NULL, &list, NULL);
    sr_debug_style red = sr_debug_style_color(SR_DEBUG_RED), blue = sr_debug_style_make(SR_DEBUG_BLUE, 2, true);
    for (int variant = 0; variant < 3; variant++) {
        sr_recorder *rec = NULL;
        const char *names[] = {"items"};
        if (sr_recorder_create(
                path,
                &(sr_recorder_desc){.keyframe_interval = 2, .title = "seed", .list_names = names, .list_name_count = 1},
                &rec, NULL) != SR_OK)
            break;
        sr_scene *scene = NULL;
        if (variant == 1) {
            sr_scene_create(NULL, &scene, NULL);
            sr_mesh *mesh = NULL;
            sr_mesh_create_box(sr_vec3_make(0.5f, 0.5f, 0.5f), 1, &mesh, NULL);
            sr_mesh_id id;
            sr_scene_add_mesh(scene, mesh, "box", &id, NULL);
            sr_material_id material;
            sr_scene_add_material(scene, &(sr_material_desc){.name = "m", .base_color = {1, 0, 0, 1}}, &material, NULL);
            sr_node_id root, child;
            sr_scene_add_node(scene, &(sr_node_desc){.name = "root", .transform = sr_transform_identity(), .mesh = id},
                              &root, NULL);
            sr_scene_add_node(scene,
                              &(sr_node_desc){.name = "child",
                                              .parent = root,
                                              .transform = sr_transform_identity(),
                                              .mesh = id,
                                              .material = material},
                              &child, NULL);
            // Collision shapes (format 1.1): a wire box over the root's mesh, a hull of points alone,
            // a sphere that grows and then goes.
            sr_node_shape_desc box = {.shape = sr_shape_box((sr_dvec3){0.5, 0.5, 0.5}), .draw = SR_SHAPE_DRAW_WIRE};
            sr_scene_set_node_shape(scene, root, &box, NULL);
            const sr_dvec3 points[] = {{0, 0, 0}, {0.6, 0, 0}, {0, 0.6, 0}, {0, 0, 0.6}, {0.1, 0.1, 0.1}};
            sr_node_shape_desc hull = {.shape = {.type = SR_SHAPE_HULL}, .hull_points = points, .hull_point_count = 5};
            sr_transform at = sr_transform_identity();
            at.translation = sr_vec3_make(0.4f, 0.2f, 0);
            sr_node_id shaped;
            sr_scene_add_node(scene, &(sr_node_desc){.name = "hull", .transform = at, .shape = &hull}, &shaped, NULL);
            sr_node_shape_desc ball = {.shape = sr_shape_sphere(0.3)};
            at.translation = sr_vec3_make(-0.4f, 0.3f, 0);
            sr_scene_add_node(scene, &(sr_node_desc){.name = "ball", .transform = at, .shape = &ball}, &shaped, NULL);
        }
        for (int f = 0; f < 4; f++) {
            sr_debug_list_clear(list, NULL);
            float x = (float)f;
            sr_debug_line(list, sr_vec3_make(x, 0, 0), sr_vec3_make(x, 1, 0), red);
            sr_debug_line(list, sr_vec3_make(x, 1, 0), sr_vec3_make(x, 1, 1), red);
            if (variant != 1) {
                sr_debug_line_gradient(list, sr_vec3_make(0, 0, 0), sr_vec3_make(1, 0, 0), blue, SR_DEBUG_GREEN);
                sr_debug_arrow(list, sr_vec3_make(0, 0, 0), sr_vec3_make(0, 0, 1), blue);
                sr_debug_point(list, sr_vec3_make(0.5f, 0.5f, 0.5f), 8.0f, red);
                sr_debug_dot(list, sr_vec3_make(0.5f, 0.5f, 0.5f), 3.0f, red);
                sr_mat4 m = sr_transform_matrix(
                    (sr_transform){{x, 0, 0}, sr_quat_from_euler_degrees(sr_vec3_make(10.0f * x, 20, 30)), {1, 1, 1}});
                sr_debug_box(list, (sr_aabb){{-1, -1, -1}, {1, 1, 1}}, m, red);
                sr_debug_sphere(list, sr_vec3_make(0, 0, 0), 1.0f, blue);
                sr_debug_sphere_oriented(list, sr_vec3_make(0, 0, 0), (sr_quat){0, 0.6f, 0, 0.8f}, 1.0f, blue);
                sr_debug_capsule(list, sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0), 0.3f, red);
                sr_debug_cylinder(list, sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0), 0.3f, red);
                sr_debug_cone(list, sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0), 0.3f, red);
                sr_debug_circle_filled(list, sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0), 1.0f, 0x80ffffffu, red);
                sr_camera camera = sr_camera_look_at(sr_vec3_make(0, 0, 3), sr_vec3_make(0, 0, 0));
                sr_debug_camera_frustum(list, &camera, 4, 3, red);
                sr_debug_axes(list, m, 1.0f, red);
                sr_debug_grid(list, sr_vec3_make(0, 0, 0), 4.0f, 4, red);
                sr_debug_triangle_filled(list, sr_vec3_make(0, 0, 0), sr_vec3_make(1, 0, 0), sr_vec3_make(0, 1, 0),
                                         0x40ff0000u, red);
                sr_vec3 points[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
                sr_debug_polygon_filled(list, points, 4, 0x40ff0000u, red);
                sr_debug_text(list, sr_vec3_make(0, 1, 0), "hi", red);
                sr_debug_text_2d(list, 2, 2, "2d", red);
                sr_debug_rect_2d(list, 1, 1, 5, 4, true, red);
            }
            if (scene) {
                sr_node_id child = sr_scene_find_node(scene, "child");
                sr_transform t = sr_transform_identity();
                t.translation.x = x;
                sr_scene_set_transform(scene, child, t, NULL);
                if (f == 2)
                    sr_scene_set_hidden(scene, child, true, NULL);
                sr_node_id ball = sr_scene_find_node(scene, "ball");
                sr_node_shape_desc bigger = {.shape = sr_shape_sphere(0.5)};
                if (f == 1 || f == 3)
                    sr_scene_set_node_shape(scene, ball, f == 1 ? &bigger : NULL, NULL);
                sr_scene_update(scene, NULL, NULL);
            }
            if (f == 1)
                sr_recorder_message(rec, SR_RECORD_WARNING, "m", NULL);
            sr_recorder_frame(rec, f * 0.5, &list, 1, scene, NULL);
        }
        sr_recorder_close(rec, NULL);
        sr_scene_destroy(scene);
        add_file(corpus, path, 1, 0); // checksums repaired after mutation
        add_file(corpus, path, 2, 0); // as is, tiny cache
        add_file(corpus, path, 3, 0); // both
        if (variant == 2)             // a crashed writer's file: no index, a torn last record
            add_file(corpus, path, 1, 700);
    }
    sr_debug_list_destroy(list);
    unlink(path);
    size_t seeds = corpus->count;
    for (size_t i = 0; i < seeds; i += 3)
        fuzz_corpus_add_failing(corpus, i, 24);
}

const fuzz_target fuzz_target_record = {
    .name = "record",
    .test_one_input = fuzz_record_test_one_input,
    .add_seeds = add_seeds,
    .tokens = NULL,
    .token_count = 0,
    .max_size = 16384,
};
