/* tests/test_record.c — src/record/ written and read back: every kind of debug item and record
 * exactly (bit for bit, wild values included), the recorded scene as it was at each frame
 * (checked against the program's scene, node by node), replayed frames pixel-identical to the
 * program's own drawing, the sizes the issue aims at, picking recorded items. The files' side
 * (crashes, damage, seeking, the cache) is test_record_files.c. */
#include "record_test_helpers.h"

#include <softrast/shaders.h>

/* ---- items ---- */

Test(record, every_kind_of_item_reads_back_bit_for_bit, .timeout = 120)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/items.srrec", folder);
    const int frames = SANITIZED ? 12 : 40;
    const size_t per_list = SANITIZED ? 150 : 600;
    sr_debug_list *lists[3] = {new_list(), new_list(), new_list()};
    sr_debug_list *expected = new_list();
    sr_recorder *rec = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_recorder_create(path, &(sr_recorder_desc){.keyframe_interval = 7}, &rec, &err), SR_OK, "%s",
                 err.message);
    for (int f = 0; f < frames; f++) {
        for (int l = 0; l < 3; l++)
            fill_list(lists[l], (uint64_t)(f * 3 + l), l == 2 ? 0 : per_list, l == 1); // list 2 stays empty
        sr_debug_list *given[4] = {lists[0], lists[1], f % 5 == 0 ? NULL : lists[2], lists[0]};
        cr_assert_eq(sr_recorder_frame(rec, f * 0.25, given, 4, NULL, &err), SR_OK, "%s", err.message);
    }
    sr_recorder_stats stats = sr_recorder_get_stats(rec);
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK, "%s", err.message);

    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK, "%s", err.message);
    const sr_recording_info *info = sr_recording_get_info(recording);
    cr_assert(info->closed_cleanly);
    cr_assert_eq(info->frame_count, (uint64_t)frames);
    cr_assert_eq(info->list_count, 4);
    // The byte counts of the index are the recorder's, and add up to the file.
    cr_assert_eq(memcmp(info->bytes.items, stats.bytes.items, sizeof stats.bytes.items), 0);
    cr_assert_eq(memcmp(info->bytes.item_counts, stats.bytes.item_counts, sizeof stats.bytes.item_counts), 0);
    size_t file_size = 0;
    free(read_whole(path, &file_size));
    uint64_t sum = info->bytes.meshes + info->bytes.textures + info->bytes.materials + info->bytes.nodes +
                   info->bytes.views + info->bytes.messages + info->bytes.framing + info->bytes.unsorted_items;
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++) {
        sum += info->bytes.items[k];
        cr_assert_gt(info->bytes.item_counts[k], 0, "no item of kind %d was recorded", k);
    }
    cr_assert_eq(sum, file_size);
    cr_assert_eq(info->bytes.total, file_size);

    // Backwards, so that no frame comes from the state of the one before.
    for (int f = frames - 1; f >= 0; f--) {
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, &err), SR_OK, "%s", err.message);
        cr_assert_eq(frame.list_count, 4);
        cr_assert_eq(frame.time, f * 0.25);
        cr_assert_null(frame.scene);
        cr_assert_not(frame.has_camera);
        for (int l = 0; l < 4; l++) {
            char where[64];
            snprintf(where, sizeof where, "frame %d, list %d", f, l);
            int source = l == 3 ? 0 : l;
            fill_list(expected, (uint64_t)(f * 3 + source), source == 2 ? 0 : per_list, source == 1);
            if (l == 2 && f % 5 == 0)
                sr_debug_list_clear(expected, NULL); // recorded as NULL: an empty list
            assert_same_list(expected, frame.lists[l], where);
        }
    }
    sr_recording_destroy(recording);
    for (int l = 0; l < 3; l++)
        sr_debug_list_destroy(lists[l]);
    sr_debug_list_destroy(expected);
    temp_folder_remove(folder);
}

Test(record, title_names_messages_and_times)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/named.srrec", folder);
    const char *names[] = {"bodies", NULL};
    sr_recorder *rec = NULL;
    sr_error err = {0};
    cr_assert_eq(
        sr_recorder_create(
            path, &(sr_recorder_desc){.title = "pile, seed 7", .list_names = names, .list_name_count = 2}, &rec, &err),
        SR_OK, "%s", err.message);
    sr_debug_list *list = new_list();
    cr_assert_eq(sr_recorder_message(rec, SR_RECORD_INFO, "before the first frame", &err), SR_OK);
    for (int f = 0; f < 20; f++) {
        sr_debug_list *lists[3] = {list, list, list};
        if (f == 12) {
            cr_assert_eq(sr_recorder_message(rec, SR_RECORD_ERROR, "tunnelled", &err), SR_OK);
            cr_assert_eq(sr_recorder_message(rec, SR_RECORD_WARNING, "contact lost", &err), SR_OK);
        }
        cr_assert_eq(sr_recorder_frame(rec, 1.0 + f / 60.0, lists, f < 10 ? 1 : 3, NULL, &err), SR_OK);
    }
    cr_assert_eq(sr_recorder_message(rec, SR_RECORD_INFO, "after the last frame", &err), SR_OK);
    cr_assert_eq(sr_recorder_message(rec, (sr_record_level)7, "bad level", &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_recorder_frame(rec, NAN, NULL, 0, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "time") != NULL, "%s", err.message);
    cr_assert_eq(sr_recorder_frame(rec, 0.0, NULL, 2, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_recorder_destroy(rec);

    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK, "%s", err.message);
    const sr_recording_info *info = sr_recording_get_info(recording);
    cr_assert_str_eq(info->title, "pile, seed 7");
    cr_assert_eq(info->list_count, 3);
    cr_assert_str_eq(info->list_names[0], "bodies");
    cr_assert_str_eq(info->list_names[1], "");
    cr_assert_str_eq(info->list_names[2], "list 2");
    cr_assert_eq(info->first_time, 1.0);
    cr_assert_eq(info->last_time, 1.0 + 19 / 60.0);
    cr_assert(info->times_increase);
    cr_assert_eq(sr_recording_frame_at_time(recording, 0.5), 0);
    cr_assert_eq(sr_recording_frame_at_time(recording, 1.0 + 5.5 / 60.0), 5);
    cr_assert_eq(sr_recording_frame_at_time(recording, 100.0), 19);
    cr_assert(isnan(sr_recording_frame_time(recording, 20)));
    size_t count = 0;
    const sr_recording_message *messages = sr_recording_messages(recording, &count);
    cr_assert_eq(count, 4);
    cr_assert_str_eq(messages[0].text, "before the first frame");
    cr_assert_eq(messages[0].frame, 0);
    cr_assert_eq(messages[1].frame, 12);
    cr_assert_eq(messages[1].level, SR_RECORD_ERROR);
    cr_assert_str_eq(messages[1].text, "tunnelled");
    cr_assert_eq(messages[2].level, SR_RECORD_WARNING);
    cr_assert_eq(messages[3].frame, 19, "a message after the last frame marks the last frame");
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 12, &frame, &err), SR_OK);
    cr_assert_eq(frame.message_count, 2);
    cr_assert_eq(frame.message_first, 1);
    cr_assert_eq(frame.list_count, 3);
    cr_assert_eq(sr_recording_seek(recording, 3, &frame, &err), SR_OK);
    cr_assert_eq(frame.list_count, 1);
    cr_assert_eq(sr_recording_seek(recording, 20, &frame, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "20") != NULL, "%s", err.message);
    sr_recording_destroy(recording);
    sr_debug_list_destroy(list);
    temp_folder_remove(folder);
}

/* ---- sizes ---- */

/* Bytes per item of `kind` over `count` items added by `add` to one list, one frame. */
typedef void (*add_fn)(sr_debug_list *list, rng *r, int i);

static double bytes_per_item(const char *folder, add_fn add, int count, sr_debug_item_kind kind)
{
    char path[300];
    snprintf(path, sizeof path, "%s/size.srrec", folder);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(
                     &(sr_debug_list_desc){.item_capacity = (size_t)count, .segment_capacity = (size_t)count * 140},
                     &list, NULL),
                 SR_OK);
    rng r = {12345};
    for (int i = 0; i < count; i++)
        add(list, &r, i);
    cr_assert_eq(sr_debug_list_get_stats(list).items_dropped, 0);
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, NULL), SR_OK);
    cr_assert_eq(sr_recorder_frame(rec, 0.0, &list, 1, NULL, NULL), SR_OK);
    sr_recorder_stats stats = sr_recorder_get_stats(rec);
    sr_recorder_destroy(rec);
    sr_debug_list_destroy(list);
    cr_assert_eq(stats.bytes.item_counts[kind], (uint64_t)count);
    return (double)stats.bytes.items[kind] / count;
}

static sr_debug_style two_styles(int i)
{
    // A style change at every item: the worst case of the style table (one byte each).
    return sr_debug_style_color(i % 2 ? SR_DEBUG_GREEN : SR_DEBUG_RED);
}

static void add_line(sr_debug_list *list, rng *r, int i)
{
    (void)i;
    sr_vec3 a = rng_in_box(r, (sr_aabb){{-50, -50, -50}, {50, 50, 50}});
    sr_vec3 b = rng_in_box(r, (sr_aabb){{-50, -50, -50}, {50, 50, 50}});
    sr_debug_line(list, a, b, sr_debug_style_color(SR_DEBUG_GREEN));
}

static void add_box(sr_debug_list *list, rng *r, int i)
{
    sr_vec3 half = rng_in_box(r, (sr_aabb){{0.1f, 0.1f, 0.1f}, {2, 2, 2}});
    sr_vec3 centre = rng_in_box(r, (sr_aabb){{-50, 0, -50}, {50, 20, 50}});
    sr_debug_box(list, (sr_aabb){sr_vec3_negate(half), half}, engine_rotation(r, centre), two_styles(i));
}

static void add_obb(sr_debug_list *list, rng *r, int i)
{
    // sr_debug_obb from axes a program computed (unit columns of a rotation).
    sr_mat4 m = engine_rotation(r, rng_in_box(r, (sr_aabb){{-5, -5, -5}, {5, 5, 5}}));
    sr_obb box = {.centre = {m.m[12], m.m[13], m.m[14]},
                  .axes = {{m.m[0], m.m[1], m.m[2]}, {m.m[4], m.m[5], m.m[6]}, {m.m[8], m.m[9], m.m[10]}},
                  .half_extents = rng_in_box(r, (sr_aabb){{0.1f, 0.1f, 0.1f}, {2, 2, 2}})};
    sr_debug_obb(list, &box, two_styles(i));
}

static void add_sphere(sr_debug_list *list, rng *r, int i)
{
    (void)i;
    sr_debug_sphere(list, rng_in_box(r, (sr_aabb){{-50, -50, -50}, {50, 50, 50}}), rng_range(r, 0.1f, 3.0f),
                    sr_debug_style_color(SR_DEBUG_YELLOW));
}

static void add_capsule(sr_debug_list *list, rng *r, int i)
{
    (void)i;
    sr_vec3 a = rng_in_box(r, (sr_aabb){{-50, -50, -50}, {50, 50, 50}});
    sr_debug_capsule(list, a, sr_vec3_add(a, rng_direction(r)), rng_range(r, 0.1f, 1.0f),
                     sr_debug_style_color(SR_DEBUG_CYAN));
}

Test(record, sizes_meet_the_aims, .timeout = 120)
{
    char folder[256];
    temp_folder(folder, sizeof folder);
    int n = SANITIZED ? 2000 : 20000;
    double line = bytes_per_item(folder, add_line, n, SR_DEBUG_ITEM_LINE);
    double box = bytes_per_item(folder, add_box, n, SR_DEBUG_ITEM_BOX);
    double obb = bytes_per_item(folder, add_obb, n, SR_DEBUG_ITEM_BOX);
    double sphere = bytes_per_item(folder, add_sphere, n, SR_DEBUG_ITEM_SPHERE);
    double capsule = bytes_per_item(folder, add_capsule, n, SR_DEBUG_ITEM_CAPSULE);
    cr_log_info("bytes per item: line %.2f, rotated box %.2f (obb %.2f), sphere %.2f, capsule %.2f", line, box, obb,
                sphere, capsule);
    cr_expect_leq(line, 26.0, "a line takes %.2f bytes (aim: 26)", line);
    cr_expect_leq(box, 44.0, "a rotated box takes %.2f bytes (aim: 44)", box);
    cr_expect_leq(obb, 44.0, "an oriented box takes %.2f bytes (aim: 44)", obb);
    cr_expect_leq(sphere, 20.0, "a sphere takes %.2f bytes (aim: 20)", sphere);
    cr_expect_leq(capsule, 32.0, "a capsule takes %.2f bytes (aim: 32)", capsule);
    temp_folder_remove(folder);
}

/* ---- the scene ---- */

/* A scene the tests record: meshes (two identical boxes among them), a material with a
 * texture, one with another shader and culling, a hierarchy, a hidden node. */
typedef struct test_scene {
    sr_scene *scene;
    sr_node_id nodes[12];
    int node_count;
    sr_material_id red, textured;
} test_scene;

static sr_mesh_id add_mesh(sr_scene *scene, sr_status (*make)(sr_mesh **), const char *name)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(make(&mesh), SR_OK);
    sr_mesh_id id;
    cr_assert_eq(sr_scene_add_mesh(scene, mesh, name, &id, NULL), SR_OK);
    return id;
}

static sr_status make_box(sr_mesh **out)
{
    return sr_mesh_create_box(sr_vec3_make(0.5f, 0.5f, 0.5f), 2, out, NULL);
}

static sr_status make_sphere(sr_mesh **out)
{
    return sr_mesh_create_sphere(0.5f, 16, 8, out, NULL);
}

/* A mesh read from OBJ text with two materials of its .mtl: parts drawn with imported materials. */
static const char *read_mtl(void *user, const char *path, size_t *length)
{
    (void)user, (void)path;
    static const char mtl[] = "newmtl warm\nKd 0.9 0.4 0.1\nnewmtl cool\nKd 0.1 0.5 0.9\nd 0.5\n";
    *length = sizeof mtl - 1;
    return mtl;
}

static sr_status make_parts(sr_mesh **out)
{
    static const char obj[] = "mtllib parts.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\n"
                              "usemtl warm\nf 1 2 3\nf 1 3 4\nusemtl cool\nf 1 2 6\nf 1 6 5\n";
    return sr_obj_load(&(sr_obj_desc){.text = obj, .length = sizeof obj - 1, .name = "parts.obj", .read_mtl = read_mtl},
                       out, NULL);
}

static test_scene make_test_scene(void)
{
    test_scene t = {0};
    cr_assert_eq(sr_scene_create(&(sr_scene_desc){.name = "recorded scene"}, &t.scene, NULL), SR_OK);
    sr_mesh_id box = add_mesh(t.scene, make_box, "box");
    sr_mesh_id box_again = add_mesh(t.scene, make_box, "box again"); // identical: stored once
    sr_mesh_id sphere = add_mesh(t.scene, make_sphere, "ball");
    sr_mesh_id parts = add_mesh(t.scene, make_parts, "parts");
    sr_texture *checker = NULL;
    cr_assert_eq(sr_checker_texture_create(16, 4, 0xffffffffu, 0xff404040u, &checker, NULL), SR_OK);
    sr_texture_id texture;
    cr_assert_eq(sr_scene_add_texture(t.scene, checker, "checker", &texture, NULL), SR_OK);
    cr_assert_eq(sr_scene_add_material(t.scene,
                                       &(sr_material_desc){.name = "red",
                                                           .base_color = {0.9f, 0.1f, 0.1f, 1.0f},
                                                           .shader = sr_shader_find("blinn_phong"),
                                                           .cull = SR_CULL_BACK},
                                       &t.red, NULL),
                 SR_OK);
    cr_assert_eq(
        sr_scene_add_material(t.scene,
                              &(sr_material_desc){.name = "checker",
                                                  .texture = texture,
                                                  .sampler = {SR_FILTER_BILINEAR, SR_WRAP_CLAMP, SR_WRAP_REPEAT}},
                              &t.textured, NULL),
        SR_OK);
    sr_node_id root;
    cr_assert_eq(
        sr_scene_add_node(t.scene, &(sr_node_desc){.name = "pile", .transform = sr_transform_identity()}, &root, NULL),
        SR_OK);
    t.nodes[t.node_count++] = root;
    sr_mesh_id meshes[4] = {box, box_again, sphere, parts};
    for (int i = 0; i < 8; i++) {
        sr_transform transform = sr_transform_identity();
        transform.translation = sr_vec3_make((float)(i % 4) - 1.5f, 0.5f + (float)(i / 4), (float)(i % 3) * 0.3f);
        char name[32];
        snprintf(name, sizeof name, "body %d", i);
        sr_node_id id;
        cr_assert_eq(sr_scene_add_node(t.scene,
                                       &(sr_node_desc){.name = name,
                                                       .parent = i < 6 ? root : t.nodes[1],
                                                       .transform = transform,
                                                       .mesh = meshes[i % 4],
                                                       .material = i == 2   ? t.textured
                                                                   : i == 5 ? t.red
                                                                            : (sr_material_id){0},
                                                       .hidden = i == 7},
                                       &id, NULL),
                     SR_OK);
        t.nodes[t.node_count++] = id;
    }
    sr_scene_set_camera(t.scene, &(sr_camera){.eye = {1.0f, 3.0f, 6.0f}, .target = {0, 0.5f, 0}});
    return t;
}

/* Moves the scene to its state at frame `f` (deterministic): bodies fall and spin, one is
 * removed, one added, one hidden, a material changes, the camera and light move. */
static void animate(test_scene *t, int f)
{
    for (int i = 1; i < t->node_count; i++) {
        if (!sr_scene_node_is_valid(t->scene, t->nodes[i]))
            continue;
        sr_node_info info;
        cr_assert_eq(sr_scene_node(t->scene, t->nodes[i], &info, NULL), SR_OK);
        if (i % 3 == 0)
            continue; // asleep: never changes
        sr_transform transform = info.transform;
        transform.translation.y -= 0.01f * (float)i;
        transform.rotation = sr_quat_from_euler_degrees(sr_vec3_make((float)(f * i), (float)(2 * f), 0.0f));
        cr_assert_eq(sr_scene_set_transform(t->scene, t->nodes[i], transform, NULL), SR_OK);
    }
    if (f == 9)
        cr_assert_eq(sr_scene_remove_node(t->scene, t->nodes[4], NULL), SR_OK);
    if (f == 13) {
        sr_transform transform = sr_transform_identity();
        transform.scale = sr_vec3_make(2.0f, 0.5f, 1.0f);
        cr_assert_eq(sr_scene_add_node(
                         t->scene,
                         &(sr_node_desc){.name = "late", .parent = t->nodes[1], .transform = transform, .mesh = {3}},
                         &t->nodes[t->node_count++], NULL),
                     SR_OK);
    }
    if (f == 17) {
        cr_assert_eq(sr_scene_set_hidden(t->scene, t->nodes[5], true, NULL), SR_OK);
        cr_assert_eq(sr_scene_set_node_material(t->scene, t->nodes[6], t->red, NULL), SR_OK);
        sr_scene_set_background(t->scene, 0xff203040u);
    }
    if (f == 21) {
        sr_light light = sr_scene_light(t->scene);
        light.direction = sr_vec3_make(-0.5f, 1.0f, 0.2f);
        light.ambient = 0.3f;
        cr_assert_eq(sr_scene_set_light(t->scene, light, NULL), SR_OK);
    }
    sr_camera camera = sr_scene_camera(t->scene);
    camera.eye.x = 1.0f + 0.05f * (float)(f / 4);
    sr_scene_set_camera(t->scene, &camera);
}

/* The bytes of a mesh's arrays (what a recording stores of it, give or take its name and counts). */
static uint64_t mesh_bytes(const sr_mesh *mesh)
{
    size_t per_vertex = 12 + (mesh->normals ? 12 : 0) + (mesh->uvs ? 8 : 0) + (mesh->colors ? 16 : 0);
    return mesh->vertex_count * per_vertex + mesh->triangle_count * 12;
}

/* One node as the program's scene has it: what playback must show. */
typedef struct node_state {
    sr_node_id id, parent;
    char name[32];
    sr_transform transform;
    bool hidden;
    sr_mesh_id mesh;
    sr_material_id material;
} node_state;

typedef struct scene_state {
    node_state nodes[16];
    int count;
    sr_camera camera;
    sr_light light;
    uint32_t background;
} scene_state;

static scene_state snapshot(const sr_scene *scene)
{
    scene_state s = {0};
    for (uint32_t i = 0; i < sr_scene_node_slots(scene); i++) {
        sr_node_id id = sr_scene_node_at(scene, i);
        if (!id.generation)
            continue;
        sr_node_info info;
        cr_assert_eq(sr_scene_node(scene, id, &info, NULL), SR_OK);
        node_state *n = &s.nodes[s.count++];
        *n = (node_state){.id = id,
                          .parent = info.parent,
                          .transform = info.transform,
                          .hidden = info.hidden,
                          .mesh = info.mesh,
                          .material = info.material};
        snprintf(n->name, sizeof n->name, "%s", info.name);
    }
    s.camera = sr_scene_camera(scene);
    s.light = sr_scene_light(scene);
    s.background = sr_scene_background(scene);
    return s;
}

static void assert_same_material(const sr_scene *a, sr_material_id ma, const sr_scene *b, sr_material_id mb,
                                 const char *where)
{
    sr_material_desc x = sr_scene_material(a, ma), y = sr_scene_material(b, mb);
    cr_assert_str_eq(x.name, y.name, "%s", where);
    cr_assert_eq(x.shader, y.shader, "%s: shader", where);
    cr_assert_eq(memcmp(&x.base_color, &y.base_color, sizeof x.base_color), 0, "%s: base colour", where);
    cr_assert_eq(memcmp(&x.sampler, &y.sampler, sizeof x.sampler), 0, "%s: sampler", where);
    cr_assert_eq(x.cull, y.cull, "%s: cull", where);
    cr_assert_eq(x.texture.id != 0, y.texture.id != 0, "%s: texture", where);
    if (x.texture.id) {
        const sr_texture *tx = sr_scene_texture(a, x.texture), *ty = sr_scene_texture(b, y.texture);
        cr_assert(tx->width == ty->width && tx->height == ty->height, "%s: texture size", where);
        cr_assert_eq(memcmp(tx->texels, ty->texels, (size_t)tx->width * tx->height * 4), 0, "%s: texels", where);
    }
}

static void assert_same_mesh(const sr_scene *a, sr_mesh_id ma, const sr_scene *b, sr_mesh_id mb, const char *where)
{
    const sr_mesh *x = sr_scene_mesh(a, ma), *y = sr_scene_mesh(b, mb);
    cr_assert_eq(x == NULL, y == NULL, "%s: mesh", where);
    if (!x)
        return;
    cr_assert_eq(x->vertex_count, y->vertex_count, "%s", where);
    cr_assert_eq(x->triangle_count, y->triangle_count, "%s", where);
    size_t n = x->vertex_count;
    cr_assert_eq(memcmp(x->positions, y->positions, n * sizeof(sr_vec3)), 0, "%s: positions", where);
    cr_assert_eq(memcmp(x->normals, y->normals, n * sizeof(sr_vec3)), 0, "%s: normals", where);
    cr_assert_eq(x->uvs == NULL, y->uvs == NULL, "%s: uvs", where);
    if (x->uvs)
        cr_assert_eq(memcmp(x->uvs, y->uvs, n * sizeof(sr_vec2)), 0, "%s: uvs", where);
    cr_assert_eq(memcmp(x->indices, y->indices, x->triangle_count * 12), 0, "%s: indices", where);
    size_t parts = sr_scene_mesh_part_count(a, ma);
    cr_assert_eq(parts, sr_scene_mesh_part_count(b, mb), "%s: parts", where);
    for (size_t i = 0; i < parts; i++)
        assert_same_material(a, sr_scene_mesh_part_material(a, ma, i), b, sr_scene_mesh_part_material(b, mb, i), where);
}

/* The played-back scene against the program's at the same frame. */
static void assert_same_scene(const sr_recording *recording, const sr_scene *source, const scene_state *expected,
                              const sr_scene *played, int f)
{
    char where[96];
    cr_assert_eq(sr_scene_node_count(played), (uint32_t)expected->count, "frame %d: node count", f);
    for (int i = 0; i < expected->count; i++) {
        const node_state *e = &expected->nodes[i];
        snprintf(where, sizeof where, "frame %d, node '%s'", f, e->name);
        sr_node_id id = sr_recording_node_of_source(recording, e->id);
        cr_assert_neq(id.generation, 0, "%s: not in the played-back scene", where);
        sr_node_id source_id = sr_recording_source_node(recording, id);
        cr_assert_eq(memcmp(&source_id, &e->id, sizeof e->id), 0, "%s", where);
        sr_node_info info;
        cr_assert_eq(sr_scene_node(played, id, &info, NULL), SR_OK);
        cr_assert_str_eq(info.name, e->name, "%s", where);
        cr_assert_eq(memcmp(&info.transform, &e->transform, sizeof e->transform), 0, "%s: transform", where);
        cr_assert_eq(info.hidden, e->hidden, "%s: hidden", where);
        sr_node_id parent = sr_recording_source_node(recording, info.parent);
        cr_assert_eq(memcmp(&parent, &e->parent, sizeof parent), 0, "%s: parent", where);
        assert_same_mesh(source, e->mesh, played, info.mesh, where);
        cr_assert_eq(info.material.id != 0, e->material.id != 0, "%s: material override", where);
        if (e->material.id)
            assert_same_material(source, e->material, played, info.material, where);
    }
    sr_camera camera = sr_scene_camera(played);
    cr_assert_eq(memcmp(&camera, &expected->camera, sizeof camera), 0, "frame %d: camera", f);
    sr_light light = sr_scene_light(played);
    cr_assert_eq(memcmp(&light.direction, &expected->light.direction, sizeof light.direction), 0, "frame %d: light", f);
    cr_assert_eq(light.ambient, expected->light.ambient, "frame %d: light", f);
    cr_assert_eq(sr_scene_background(played), expected->background, "frame %d: background", f);
}

/* What the program draws over its scene at frame f. */
static void draw_lists(sr_debug_list *lists[2], int f)
{
    for (int l = 0; l < 2; l++)
        sr_debug_list_clear(lists[l], NULL);
    for (int i = 0; i < 8; i++) {
        sr_vec3 c = sr_vec3_make((float)(i % 4) - 1.5f, 0.5f + (float)(i / 4) - 0.01f * (float)(i * f), 0.2f);
        sr_debug_style style = sr_debug_style_make(i % 2 ? SR_DEBUG_GREEN : SR_DEBUG_YELLOW, 1 + i % 3, i == 3);
        sr_debug_box(lists[0], (sr_aabb){{-0.55f, -0.55f, -0.55f}, {0.55f, 0.55f, 0.55f}}, sr_mat4_translation(c),
                     style);
        sr_debug_sphere_oriented(lists[0], c, sr_quat_from_euler_degrees(sr_vec3_make((float)f, 0, 0)), 0.3f, style);
        sr_debug_dot(lists[1], sr_vec3_add(c, sr_vec3_make(0, 0.5f, 0)), 7.0f, sr_debug_style_color(SR_DEBUG_RED));
        sr_debug_arrow(lists[1], c, sr_vec3_add(c, sr_vec3_make(0, 0.8f, 0.1f)), sr_debug_style_color(SR_DEBUG_CYAN));
    }
    sr_debug_circle_filled(lists[1], sr_vec3_make(0, 0.01f, 0), sr_vec3_make(0, 1, 0), 2.5f, 0x40ffffffu,
                           sr_debug_style_color(SR_DEBUG_WHITE));
    sr_debug_text(lists[1], sr_vec3_make(-1.5f, 2.5f, 0), "contact", sr_debug_style_make(SR_DEBUG_WHITE, 1, true));
    sr_debug_text_2d(lists[1], 4, 4, "frame", sr_debug_style_make(SR_DEBUG_WHITE, 2, true));
}

Test(record, scene_plays_back_as_recorded_and_pixel_for_pixel, .timeout = 180)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/scene.srrec", folder);
    const int frames = 26, width = 160, height = 120;
    test_scene t = make_test_scene();
    sr_debug_list *lists[2] = {new_list(), new_list()};
    sr_recorder *rec = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_recorder_create(path, &(sr_recorder_desc){.keyframe_interval = 8}, &rec, &err), SR_OK);
    scene_state states[26];
    uint32_t *images[26];
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height}, &fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = 1}, &renderer, NULL), SR_OK);
    uint64_t nodes_before = 0;
    for (int f = 0; f < frames; f++) {
        animate(&t, f);
        draw_lists(lists, f);
        states[f] = snapshot(t.scene);
        cr_assert_eq(sr_recorder_frame(rec, f / 60.0, lists, 2, t.scene, &err), SR_OK, "%s", err.message);
        // The program's own frame: its scene, then its lists.
        sr_camera camera = sr_scene_camera(t.scene);
        cr_assert_eq(sr_scene_render(t.scene, &(sr_scene_render_desc){.camera = &camera}, renderer, fb, NULL, &err),
                     SR_OK);
        sr_mat4 view, projection;
        sr_camera_matrices(&camera, width, height, &view, &projection);
        for (int l = 0; l < 2; l++)
            cr_assert_eq(sr_debug_draw(lists[l], renderer, fb, sr_mat4_mul(projection, view), &err), SR_OK);
        images[f] = malloc((size_t)width * height * 4);
        memcpy(images[f], fb->color, (size_t)width * height * 4);
        sr_recorder_stats stats = sr_recorder_get_stats(rec);
        if (f == 2) // two sleeping bodies of nine, and the root: nothing written for them
            cr_assert_lt(stats.bytes.nodes - nodes_before, 6u * 32u, "moved nodes cost %llu bytes",
                         (unsigned long long)(stats.bytes.nodes - nodes_before));
        nodes_before = stats.bytes.nodes;
    }
    sr_recorder_stats stats = sr_recorder_get_stats(rec);
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK);
    // Identical meshes are stored once: three meshes' worth, not four.
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK, "%s", err.message);
    const sr_recording_info *info = sr_recording_get_info(recording);
    cr_assert(info->has_scene);
    cr_assert_eq(info->bytes.meshes, stats.bytes.meshes);
    uint64_t all = 0, box = mesh_bytes(sr_scene_mesh(t.scene, (sr_mesh_id){1}));
    for (uint32_t m = 1; m <= 4; m++)
        all += mesh_bytes(sr_scene_mesh(t.scene, (sr_mesh_id){m}));
    cr_assert_leq(info->bytes.meshes, all - box + 256,
                  "the second box was stored again (%llu bytes of meshes, %llu "
                  "for the four)",
                  (unsigned long long)info->bytes.meshes, (unsigned long long)all);

    sr_renderer *threaded = NULL;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = 3}, &threaded, NULL), SR_OK);
    // In order, backwards, then at random: the scene and the pixels are those of the frame.
    int order[3 * 26];
    for (int f = 0; f < frames; f++) {
        order[f] = f;
        order[frames + f] = frames - 1 - f;
        order[2 * frames + f] = (f * 7 + 3) % frames;
    }
    for (int k = 0; k < 3 * frames; k++) {
        int f = order[k];
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, &err), SR_OK, "frame %d: %s", f, err.message);
        cr_assert_not_null(frame.scene);
        assert_same_scene(recording, t.scene, &states[f], frame.scene, f);
        cr_assert(frame.has_camera);
        cr_assert_eq(memcmp(&frame.camera, &states[f].camera, sizeof frame.camera), 0);
        sr_framebuffer_clear(fb, 0, 0.5f);
        cr_assert_eq(sr_recording_render(recording, k % 2 ? threaded : renderer, fb, NULL, &err), SR_OK, "%s",
                     err.message);
        size_t differ = 0;
        for (size_t p = 0; p < (size_t)width * height; p++)
            differ += fb->color[p] != images[f][p];
        if (differ) {
            char out[320];
            snprintf(out, sizeof out, "%s/replayed_%d.png", folder, f);
            sr_framebuffer_save(fb, out, NULL);
        }
        cr_assert_eq(differ, 0, "frame %d: %zu pixels differ from the program's frame", f, differ);
    }
    // The frame's scene is ready to pick: the node under a body's centre is that body.
    {
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, 0, &frame, &err), SR_OK);
        const node_state *body = &states[0].nodes[1]; // "body 0": a box at (-1.5, 0.5, 0)
        cr_assert_str_eq(body->name, "body 0");
        sr_mat4 view, projection;
        sr_camera_matrices(&states[0].camera, width, height, &view, &projection);
        sr_vec3 ndc = sr_mat4_transform_point_projective(sr_mat4_mul(projection, view), body->transform.translation);
        sr_pick_hit hit;
        cr_assert_eq(sr_scene_pick(frame.scene, NULL, width, height, (ndc.x * 0.5f + 0.5f) * width,
                                   (0.5f - ndc.y * 0.5f) * height, &hit, &err),
                     SR_OK, "%s", err.message);
        cr_assert(hit.hit);
        sr_node_id source = sr_recording_source_node(recording, hit.node);
        cr_assert(source.index == body->id.index && source.generation == body->id.generation,
                  "picked the node of slot %u", source.index);
    }
    // The scene keeps node handles across seeks while the node lives.
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 3, &frame, &err), SR_OK);
    sr_node_id kept = sr_recording_node_of_source(recording, t.nodes[2]);
    cr_assert_eq(sr_recording_seek(recording, 20, &frame, &err), SR_OK);
    sr_node_id again = sr_recording_node_of_source(recording, t.nodes[2]);
    cr_assert(kept.index == again.index && kept.generation == again.generation);
    cr_assert_eq(sr_recording_node_of_source(recording, t.nodes[4]).generation, 0, "removed at frame 9");

    for (int f = 0; f < frames; f++)
        free(images[f]);
    sr_recording_destroy(recording);
    sr_renderer_destroy(threaded);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_debug_list_destroy(lists[0]);
    sr_debug_list_destroy(lists[1]);
    sr_scene_destroy(t.scene);
    temp_folder_remove(folder);
}

Test(record, unchanged_nodes_cost_nothing_and_moved_ones_little, .timeout = 60)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/nodes.srrec", folder);
    sr_scene *scene = NULL;
    cr_assert_eq(sr_scene_create(NULL, &scene, NULL), SR_OK);
    sr_mesh_id mesh = add_mesh(scene, make_box, "box");
    enum { NODES = 200, MOVING = 50, FRAMES = 120 };
    sr_node_id nodes[NODES];
    rng r = {99};
    for (int i = 0; i < NODES; i++) {
        sr_transform transform = sr_transform_identity();
        transform.translation = rng_in_box(&r, (sr_aabb){{-20, 0, -20}, {20, 10, 20}});
        cr_assert_eq(sr_scene_add_node(scene, &(sr_node_desc){.transform = transform, .mesh = mesh}, &nodes[i], NULL),
                     SR_OK);
    }
    sr_debug_list *list = new_list();
    sr_debug_line(list, sr_vec3_make(0, 0, 0), sr_vec3_make(1, 1, 1), sr_debug_style_color(SR_DEBUG_RED));
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, &(sr_recorder_desc){.keyframe_interval = 1000}, &rec, NULL), SR_OK);
    cr_assert_eq(sr_recorder_frame(rec, 0.0, &list, 1, scene, NULL), SR_OK);
    // Nothing moves: no node bytes at all, and the frame is its framing and its one line.
    sr_recorder_stats before = sr_recorder_get_stats(rec);
    for (int f = 1; f <= 10; f++)
        cr_assert_eq(sr_recorder_frame(rec, f / 60.0, &list, 1, scene, NULL), SR_OK);
    sr_recorder_stats still = sr_recorder_get_stats(rec);
    cr_assert_eq(still.bytes.nodes, before.bytes.nodes, "unchanged nodes cost %llu bytes",
                 (unsigned long long)(still.bytes.nodes - before.bytes.nodes));
    cr_assert_eq(still.bytes.views, before.bytes.views);
    // MOVING bodies move and turn every frame.
    for (int f = 11; f < FRAMES; f++) {
        for (int i = 0; i < MOVING; i++) {
            sr_node_info info;
            sr_scene_node(scene, nodes[i], &info, NULL);
            info.transform.translation.y -= 0.01f;
            info.transform.rotation = sr_quat_from_euler_degrees(sr_vec3_make((float)f, (float)(i + f), 1.0f));
            cr_assert_eq(sr_scene_set_transform(scene, nodes[i], info.transform, NULL), SR_OK);
        }
        cr_assert_eq(sr_recorder_frame(rec, f / 60.0, &list, 1, scene, NULL), SR_OK);
    }
    sr_recorder_stats moved = sr_recorder_get_stats(rec);
    double per_node = (double)(moved.bytes.nodes - still.bytes.nodes) / ((FRAMES - 11) * (double)MOVING);
    double framing = (double)moved.bytes.framing / moved.frames;
    cr_log_info("a moved node: %.2f bytes a frame; framing %.1f bytes a frame (header, index and trailer to come)",
                per_node, framing);
    cr_expect_leq(per_node, 32.0, "a moved node takes %.2f bytes (aim: 32)", per_node);
    cr_assert_eq(sr_recorder_close(rec, NULL), SR_OK);
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, NULL), SR_OK);
    const sr_recording_info *info = sr_recording_get_info(recording);
    double framing_all = (double)info->bytes.framing / (double)info->frame_count;
    cr_log_info("framing with the header, index and trailer: %.1f bytes a frame", framing_all);
    cr_expect_leq(framing_all, 64.0, "framing takes %.1f bytes a frame (aim: 64)", framing_all);
    sr_recording_destroy(recording);
    sr_debug_list_destroy(list);
    sr_scene_destroy(scene);
    temp_folder_remove(folder);
}

/* ---- picking ---- */

Test(record, picking_finds_the_item_under_the_cursor_and_again_after_a_seek)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/pick.srrec", folder);
    sr_debug_list *list = new_list();
    sr_recorder *rec = NULL;
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, NULL), SR_OK);
    sr_camera camera = {.eye = {0, 0, 10}, .target = {0, 0, 0}};
    cr_assert_eq(sr_recorder_set_camera(rec, &camera, NULL), SR_OK);
    for (int f = 0; f < 5; f++) {
        sr_debug_list_clear(list, NULL);
        float x = 0.1f * (float)f;
        sr_debug_line(list, sr_vec3_make(-4, 2, 0), sr_vec3_make(4, 2, 0), sr_debug_style_color(SR_DEBUG_RED));
        sr_debug_sphere(list, sr_vec3_make(-2 + x, -1, 0), 1.0f, sr_debug_style_color(SR_DEBUG_GREEN));
        sr_debug_box(list, (sr_aabb){{-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f}},
                     sr_mat4_translation(sr_vec3_make(2 + x, -1, 0)), sr_debug_style_color(SR_DEBUG_BLUE));
        // In front of the box, on the line from the eye to the box's centre.
        sr_debug_sphere(list, sr_vec3_make(0.7f * (2 + x), -0.7f, 3), 0.2f, sr_debug_style_color(SR_DEBUG_YELLOW));
        sr_debug_text_2d(list, 10, 10, "label", sr_debug_style_color(SR_DEBUG_WHITE));
        cr_assert_eq(sr_recorder_frame(rec, f, &list, 1, NULL, NULL), SR_OK);
    }
    sr_recorder_destroy(rec);
    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, NULL), SR_OK);
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, 0, &frame, NULL), SR_OK);
    const int w = 400, h = 300;
    // Where world points land, from the camera's matrices.
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, w, h, &view, &projection);
    sr_mat4 vp = sr_mat4_mul(projection, view);
    sr_vec3 line_point = sr_mat4_transform_point_projective(vp, sr_vec3_make(1.0f, 2.0f, 0.0f));
    float line_x = (line_point.x * 0.5f + 0.5f) * w, line_y = (0.5f - line_point.y * 0.5f) * h;
    sr_recording_item_pick pick;
    cr_assert_eq(sr_recording_pick_item(recording, NULL, w, h, line_x, line_y + 3.0f, 0, NULL, &pick, NULL), SR_OK);
    cr_assert(pick.hit);
    cr_assert_eq(pick.item.kind, SR_DEBUG_ITEM_LINE);
    cr_assert_float_eq(pick.distance_px, 3.0f, 0.5f);
    cr_assert_float_eq(pick.position.x, 1.0f, 0.1f);
    // Inside the sphere's disc; inside the box, behind the small sphere; nothing far away.
    sr_vec3 sphere = sr_mat4_transform_point_projective(vp, sr_vec3_make(-2, -1, 0));
    cr_assert_eq(sr_recording_pick_item(recording, NULL, w, h, (sphere.x * 0.5f + 0.5f) * w + 10,
                                        (0.5f - sphere.y * 0.5f) * h, 0, NULL, &pick, NULL),
                 SR_OK);
    cr_assert(pick.hit && pick.item.kind == SR_DEBUG_ITEM_SPHERE && pick.index == 1);
    sr_vec3 small = sr_mat4_transform_point_projective(vp, sr_vec3_make(1.4f, -0.7f, 3));
    sr_vec3 box_centre = sr_mat4_transform_point_projective(vp, sr_vec3_make(2, -1, 0));
    cr_assert_float_eq(small.x, box_centre.x, 1e-5f, "the small sphere hides the box's centre");
    cr_assert_float_eq(small.y, box_centre.y, 1e-5f);
    cr_assert_eq(sr_recording_pick_item(recording, NULL, w, h, (small.x * 0.5f + 0.5f) * w, (0.5f - small.y * 0.5f) * h,
                                        0, NULL, &pick, NULL),
                 SR_OK);
    cr_assert(pick.hit && pick.index == 3, "the nearer item wins (got item %u)", pick.index);
    cr_assert_eq(sr_recording_pick_item(recording, NULL, w, h, 15, 12, 0, NULL, &pick, NULL), SR_OK);
    cr_assert(pick.hit && pick.item.kind == SR_DEBUG_ITEM_TEXT_2D);
    cr_assert_eq(sr_recording_pick_item(recording, NULL, w, h, w - 2, h - 2, 0, NULL, &pick, NULL), SR_OK);
    cr_assert_not(pick.hit);
    bool hidden[1] = {false};
    cr_assert_eq(sr_recording_pick_item(recording, NULL, w, h, 15, 12, 0, hidden, &pick, NULL), SR_OK);
    cr_assert_not(pick.hit, "a hidden list is not picked");
    // The box, then found again four frames later where it moved.
    sr_vec3 box = sr_mat4_transform_point_projective(vp, sr_vec3_make(2, -1, 0));
    cr_assert_eq(sr_recording_pick_item(recording, NULL, w, h, (box.x * 0.5f + 0.5f) * w + 15,
                                        (0.5f - box.y * 0.5f) * h + 5, 0, NULL, &pick, NULL),
                 SR_OK);
    cr_assert(pick.hit && pick.item.kind == SR_DEBUG_ITEM_BOX);
    cr_assert_eq(sr_recording_seek(recording, 4, &frame, NULL), SR_OK);
    sr_recording_item_pick found;
    cr_assert(sr_recording_find_item(recording, &pick, &found));
    cr_assert_eq(found.index, 2);
    cr_assert_float_eq(found.item.box.transform.m[12], 2.4f, 1e-6f);
    sr_recording_destroy(recording);
    sr_debug_list_destroy(list);
    temp_folder_remove(folder);
}
