/* tests/test_record_shapes.c — nodes' collision shapes in recordings (src/record/
 * record_scene_shape.c, format 1.1): every shape type and every kind of change read back as the
 * program's scene had it (hulls table for table), the collision pass over a replayed frame equal
 * to the program's pass at that frame (pairs, contacts and near pairs, bit for bit), the contacts
 * overlay drawn over a replayed frame pixel for pixel the program's, and damaged shape records
 * refused with messages that say what was wrong. */
#include <softrast/record.h>
#include <softrast/scene_collide.h>

#include "record_test_helpers.h"

/* ---- what the program's scene had, per frame ---- */

typedef struct shape_state {
    sr_node_id source;
    sr_node_shape shape;     ///< hull pointers not compared: the hull's tables below are
    uint64_t hull_signature; ///< FNV-1a of the hull's tables (0: not a hull)
} shape_state;

static uint64_t fnv(uint64_t h, const void *data, size_t size)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static uint64_t hull_signature(const sr_hull *hull)
{
    if (!hull)
        return 0;
    sr_hull_view v = sr_hull_get_view(hull);
    uint64_t h = fnv(0xcbf29ce484222325u, &v.dimension, sizeof v.dimension);
    h = fnv(h, v.vertices, v.vertex_count * sizeof *v.vertices);
    size_t fv = 0;
    for (size_t f = 0; f < v.face_count; f++) {
        h = fnv(h, &v.faces[f].first, sizeof v.faces[f].first);
        h = fnv(h, &v.faces[f].count, sizeof v.faces[f].count);
        h = fnv(h, &v.faces[f].normal, sizeof v.faces[f].normal);
        h = fnv(h, &v.faces[f].offset, sizeof v.faces[f].offset);
        fv = v.faces[f].first + v.faces[f].count > fv ? v.faces[f].first + v.faces[f].count : fv;
    }
    h = fnv(h, v.face_vertices, fv * sizeof *v.face_vertices);
    h = fnv(h, v.edges, 2 * v.edge_count * sizeof *v.edges);
    return fnv(h, v.edge_faces, 2 * v.edge_count * sizeof *v.edge_faces);
}

/* Every node with a shape (in the scene's shape order). */
static size_t snapshot_shapes(const sr_scene *scene, shape_state *out, size_t capacity)
{
    uint32_t count = sr_scene_shape_count(scene);
    cr_assert_leq(count, capacity);
    for (uint32_t i = 0; i < count; i++) {
        out[i].source = sr_scene_shape_node(scene, i);
        cr_assert_eq(sr_scene_node_shape(scene, out[i].source, &out[i].shape, NULL), SR_OK);
        out[i].hull_signature = hull_signature(out[i].shape.local.hull);
    }
    return count;
}

static void assert_same_shape_fields(const sr_shape *a, const sr_shape *b, const char *what, int frame)
{
    cr_assert_eq(a->type, b->type, "frame %d, %s: type", frame, what);
    cr_assert_eq(memcmp(&a->pose, &b->pose, sizeof a->pose), 0, "frame %d, %s: pose", frame, what);
    cr_assert(a->radius == b->radius && a->half_height == b->half_height && a->rounding == b->rounding,
              "frame %d, %s: sizes", frame, what);
    cr_assert_eq(memcmp(&a->half_extents, &b->half_extents, sizeof a->half_extents), 0, "frame %d, %s", frame, what);
    cr_assert_eq(memcmp(a->points, b->points, sizeof a->points), 0, "frame %d, %s: points", frame, what);
}

/* The replayed scene's shapes are the program's: same nodes, fields, hull tables and world poses. */
static void assert_same_shapes(const sr_recording *rec, const sr_scene *replayed, const shape_state *expected,
                               size_t count, int frame)
{
    cr_assert_eq(sr_scene_shape_count(replayed), count, "frame %d: %u shapes, the program had %zu", frame,
                 sr_scene_shape_count(replayed), count);
    for (size_t i = 0; i < count; i++) {
        sr_node_id node = sr_recording_node_of_source(rec, expected[i].source);
        cr_assert_neq(node.generation, 0, "frame %d: the node of shape %zu is missing", frame, i);
        sr_node_shape shape;
        cr_assert_eq(sr_scene_node_shape(replayed, node, &shape, NULL), SR_OK, "frame %d: shape %zu is missing", frame,
                     i);
        assert_same_shape_fields(&expected[i].shape.local, &shape.local, "local", frame);
        assert_same_shape_fields(&expected[i].shape.world, &shape.world, "world", frame);
        cr_assert_eq(expected[i].shape.draw, shape.draw, "frame %d, shape %zu: drawn %d, the program's %d", frame, i,
                     shape.draw, expected[i].shape.draw);
        cr_assert_eq(hull_signature(shape.local.hull), expected[i].hull_signature,
                     "frame %d, shape %zu: the hull's tables differ", frame, i);
    }
}

/* ---- a scene of every shape type ---- */

typedef struct shape_scene {
    sr_scene *scene;
    sr_node_id nodes[16];
    size_t count;
    sr_hull *hull; ///< the program's own hull (given as `hull`)
    sr_material_id material;
} shape_scene;

static sr_node_id add_shaped(shape_scene *s, const char *name, sr_vec3 at, const sr_node_shape_desc *shape,
                             sr_mesh_id mesh)
{
    sr_node_id id;
    sr_error err = {0};
    sr_transform t = sr_transform_identity();
    t.translation = at;
    cr_assert_eq(sr_scene_add_node(s->scene,
                                   &(sr_node_desc){.name = name,
                                                   .transform = t,
                                                   .mesh = mesh,
                                                   .material = s->material,
                                                   .shape = shape},
                                   &id, &err),
                 SR_OK, "%s: %s", name, err.message);
    s->nodes[s->count++] = id;
    return id;
}

static shape_scene make_shape_scene(void)
{
    shape_scene s = {0};
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(&(sr_scene_desc){.name = "shapes"}, &s.scene, &err), SR_OK);
    cr_assert_eq(sr_scene_add_material(s.scene,
                                       &(sr_material_desc){.name = "orange", .base_color = {0.9f, 0.5f, 0.2f, 1}},
                                       &s.material, &err),
                 SR_OK, "%s", err.message);
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_sphere(0.6f, 9, 6, &mesh, &err), SR_OK);
    sr_mesh_id sphere_mesh;
    cr_assert_eq(sr_scene_add_mesh(s.scene, mesh, "ball", &sphere_mesh, &err), SR_OK);
    const sr_dvec3 points[] = {{0.5, 0.1, -0.3}, {-0.4, 0.5, 0.2}, {0.1, -0.5, 0.4}, {-0.2, -0.1, -0.5},
                               {0.3, 0.4, 0.45}, {0, 0, 0},         {0.05, 0.02, 0.01}};
    cr_assert_eq(sr_hull_create(points, 7, &s.hull, &err), SR_OK);
    sr_node_shape_desc d;
    d = (sr_node_shape_desc){.shape = sr_shape_point()};
    d.shape.rounding = 0.3;
    add_shaped(&s, "point", sr_vec3_make(-3, 0, 0), &d, (sr_mesh_id){0});
    d = (sr_node_shape_desc){.shape = sr_shape_segment((sr_dvec3){-0.5, 0, 0}, (sr_dvec3){0.5, 0.2, 0.1}),
                             .draw = SR_SHAPE_DRAW_WIRE};
    d.shape.rounding = 0.1;
    add_shaped(&s, "segment", sr_vec3_make(-2, 0, 0), &d, (sr_mesh_id){0});
    d = (sr_node_shape_desc){
        .shape = sr_shape_triangle((sr_dvec3){-0.5, 0, 0}, (sr_dvec3){0.5, 0, 0}, (sr_dvec3){0, 0.7, 0.1})};
    add_shaped(&s, "triangle", sr_vec3_make(-1, 0, 0), &d, (sr_mesh_id){0});
    d = (sr_node_shape_desc){.shape = sr_shape_sphere(0.5)};
    add_shaped(&s, "sphere", sr_vec3_make(0, 0, 0), &d, (sr_mesh_id){0});
    d = (sr_node_shape_desc){.shape = sr_shape_box((sr_dvec3){0.4, 0.3, 0.2}), .draw = SR_SHAPE_DRAW_WIRE};
    add_shaped(&s, "box over a ball", sr_vec3_make(1, 0, 0), &d, sphere_mesh); // a wire over its own mesh
    d = (sr_node_shape_desc){.shape = sr_shape_capsule(0.25, 0.4)};
    add_shaped(&s, "capsule", sr_vec3_make(2, 0, 0), &d, (sr_mesh_id){0});
    d = (sr_node_shape_desc){.shape = sr_shape_cylinder(0.3, 0.35), .draw = SR_SHAPE_DRAW_NONE};
    add_shaped(&s, "cylinder", sr_vec3_make(3, 0, 0), &d, sphere_mesh); // a proxy only
    d = (sr_node_shape_desc){.shape = sr_shape_cone(0.35, 0.4)};
    d.shape.rounding = 0.05;
    add_shaped(&s, "cone", sr_vec3_make(-3, 1.5, 0), &d, (sr_mesh_id){0});
    d = (sr_node_shape_desc){.shape = {.type = SR_SHAPE_HULL}, .hull_points = points, .hull_point_count = 7};
    add_shaped(&s, "hull of points", sr_vec3_make(-2, 1.5, 0), &d, (sr_mesh_id){0});
    add_shaped(&s, "same hull of points", sr_vec3_make(-1, 1.5, 0), &d, (sr_mesh_id){0});
    d = (sr_node_shape_desc){.shape = {.type = SR_SHAPE_HULL}, .hull_mesh = sphere_mesh, .draw = SR_SHAPE_DRAW_WIRE};
    add_shaped(&s, "hull of a mesh", sr_vec3_make(0, 1.5, 0), &d, (sr_mesh_id){0});
    d = (sr_node_shape_desc){.shape = sr_shape_hull(s.hull)};
    add_shaped(&s, "program's hull", sr_vec3_make(1, 1.5, 0), &d, (sr_mesh_id){0});
    add_shaped(&s, "no shape", sr_vec3_make(2, 1.5, 0), NULL, sphere_mesh);
    cr_assert_eq(sr_scene_update(s.scene, NULL, &err), SR_OK, "%s", err.message);
    return s;
}

static void destroy_shape_scene(shape_scene *s)
{
    sr_scene_destroy(s->scene);
    sr_hull_destroy(s->hull);
}

/* Frame f's changes: everything moves and turns; shapes change size, go, come and change type. */
static void change_shapes(shape_scene *s, int f)
{
    sr_error err = {0};
    for (size_t i = 0; i < s->count; i++) {
        if (!sr_scene_node_is_valid(s->scene, s->nodes[i]))
            continue;
        sr_node_info info;
        cr_assert_eq(sr_scene_node(s->scene, s->nodes[i], &info, NULL), SR_OK);
        sr_transform t = info.transform;
        t.translation.y += 0.05f * (float)((i + (size_t)f) % 3);
        float angle = 0.1f * (float)f + (float)i;
        t.rotation = (sr_quat){0, sinf(angle / 2), 0, cosf(angle / 2)};
        cr_assert_eq(sr_scene_set_transform(s->scene, s->nodes[i], t, &err), SR_OK, "%s", err.message);
    }
    sr_node_shape_desc d;
    switch (f) {
    case 3: // a sphere grows
        d = (sr_node_shape_desc){.shape = sr_shape_sphere(0.7)};
        cr_assert_eq(sr_scene_set_node_shape(s->scene, s->nodes[3], &d, &err), SR_OK, "%s", err.message);
        break;
    case 5: // the box over the ball goes: the ball stays
        cr_assert_eq(sr_scene_set_node_shape(s->scene, s->nodes[4], NULL, &err), SR_OK, "%s", err.message);
        break;
    case 7: // the node without a shape gets one, a cylinder becomes a box drawn solid over nothing
        d = (sr_node_shape_desc){.shape = sr_shape_capsule(0.2, 0.1), .draw = SR_SHAPE_DRAW_WIRE};
        cr_assert_eq(sr_scene_set_node_shape(s->scene, s->nodes[12], &d, &err), SR_OK, "%s", err.message);
        d = (sr_node_shape_desc){.shape = sr_shape_box((sr_dvec3){0.2, 0.5, 0.2}), .draw = SR_SHAPE_DRAW_WIRE};
        cr_assert_eq(sr_scene_set_node_shape(s->scene, s->nodes[6], &d, &err), SR_OK, "%s", err.message);
        break;
    case 9: // a node with a shape goes; the triangle loses its shape (and with it its mesh)
        cr_assert_eq(sr_scene_remove_node(s->scene, s->nodes[9], &err), SR_OK);
        cr_assert_eq(sr_scene_set_node_shape(s->scene, s->nodes[2], NULL, &err), SR_OK, "%s", err.message);
        break;
    case 11: { // a new node with a new hull, of points given anew
        const sr_dvec3 points[] = {{0, 0, 0}, {0.6, 0, 0}, {0, 0.6, 0}, {0, 0, 0.6}, {0.5, 0.5, 0.5}};
        d = (sr_node_shape_desc){.shape = {.type = SR_SHAPE_HULL}, .hull_points = points, .hull_point_count = 5};
        add_shaped(s, "late hull", sr_vec3_make(0, -1.5, 0), &d, (sr_mesh_id){0});
        break;
    }
    default:
        break;
    }
    cr_assert_eq(sr_scene_update(s->scene, NULL, &err), SR_OK, "%s", err.message);
}

Test(record_shapes, every_shape_type_and_its_changes_read_back, .timeout = 60)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/shapes.srrec", folder);
    enum { FRAMES = 14 };
    shape_scene s = make_shape_scene();
    sr_recorder *rec = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_recorder_create(path, &(sr_recorder_desc){.keyframe_interval = 4}, &rec, &err), SR_OK);
    static shape_state states[FRAMES][16];
    size_t counts[FRAMES];
    for (int f = 0; f < FRAMES; f++) {
        if (f)
            change_shapes(&s, f);
        counts[f] = snapshot_shapes(s.scene, states[f], 16);
        cr_assert_eq(sr_recorder_frame(rec, f / 60.0, NULL, 0, s.scene, &err), SR_OK, "%s", err.message);
    }
    sr_recorder_stats stats = sr_recorder_get_stats(rec);
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK, "%s", err.message);
    cr_assert_gt(stats.bytes.shapes, 0);

    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK, "%s", err.message);
    const sr_recording_info *info = sr_recording_get_info(recording);
    cr_assert_eq(info->version_minor, 1);
    cr_assert_eq(info->bytes.shapes, stats.bytes.shapes);
    // In order, backwards, then at random (keyframes and deltas both).
    for (int k = 0; k < 3 * FRAMES; k++) {
        int f = k < FRAMES ? k : k < 2 * FRAMES ? 2 * FRAMES - 1 - k : (k * 5 + 3) % FRAMES;
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, &err), SR_OK, "frame %d: %s", f, err.message);
        assert_same_shapes(recording, frame.scene, states[f], counts[f], f);
    }
    // The nodes without a shape of their own mesh draw nothing but their shape; the ball under the
    // box keeps its mesh once the box has gone.
    sr_recording_frame frame;
    cr_assert_eq(sr_recording_seek(recording, FRAMES - 1, &frame, &err), SR_OK);
    sr_node_info info_ball;
    cr_assert_eq(sr_scene_node(frame.scene, sr_recording_node_of_source(recording, s.nodes[4]), &info_ball, NULL),
                 SR_OK);
    cr_assert_neq(info_ball.mesh.id, 0);
    cr_assert(!info_ball.has_shape);
    sr_node_info info_triangle;
    cr_assert_eq(sr_scene_node(frame.scene, sr_recording_node_of_source(recording, s.nodes[2]), &info_triangle, NULL),
                 SR_OK);
    cr_assert_eq(info_triangle.mesh.id, 0, "the triangle's shape went, and with it what drew it");
    // The check reads every record, hulls included, and finds the file clean.
    sr_recording_check_report report;
    cr_assert_eq(sr_recording_check(path, NULL, &report, &err), SR_OK, "%s", err.message);
    cr_assert_eq(report.health, SR_RECORDING_CLEAN, "%s", report.message);
    cr_assert_eq(report.bytes.shapes, stats.bytes.shapes);
    sr_recording_destroy(recording);
    destroy_shape_scene(&s);
    temp_folder_remove(folder);
}

/* ---- the collision pass on a replayed frame ---- */

typedef struct pass_state {
    size_t pair_count, contact_count, near_count;
    sr_collision_pair *pairs; ///< nodes as the program's (source) handles
    sr_contact *contacts, *near;
} pass_state;

static sr_node_id source_of(const sr_recording *rec, sr_node_id node)
{
    return rec ? sr_recording_source_node(rec, node) : node;
}

/* The pass's answers with nodes mapped to the program's handles (rec NULL: they are already). */
static pass_state copy_pass(const sr_collision *c, const sr_recording *rec)
{
    pass_state p = {c->pair_count, c->contact_count, c->near_count, NULL, NULL, NULL};
    p.pairs = malloc((c->pair_count + 1) * sizeof *p.pairs);
    p.contacts = malloc((c->contact_count + 1) * sizeof *p.contacts);
    p.near = malloc((c->near_count + 1) * sizeof *p.near);
    for (size_t i = 0; i < c->pair_count; i++) {
        p.pairs[i] = c->pairs[i];
        p.pairs[i].a = source_of(rec, c->pairs[i].a);
        p.pairs[i].b = source_of(rec, c->pairs[i].b);
    }
    for (size_t i = 0; i < c->contact_count; i++) {
        p.contacts[i] = c->contacts[i];
        p.contacts[i].a = source_of(rec, c->contacts[i].a);
        p.contacts[i].b = source_of(rec, c->contacts[i].b);
    }
    for (size_t i = 0; i < c->near_count; i++) {
        p.near[i] = c->near[i];
        p.near[i].a = source_of(rec, c->near[i].a);
        p.near[i].b = source_of(rec, c->near[i].b);
    }
    return p;
}

static void free_pass(pass_state *p)
{
    free(p->pairs);
    free(p->contacts);
    free(p->near);
}

static bool same_node(sr_node_id a, sr_node_id b)
{
    return a.index == b.index && a.generation == b.generation;
}

/* Contacts and near pairs bit for bit (what the queries answered); pairs by nodes and state (a
 * pair's `distance` may be the lower bound of last pass's axis, which depends on the history of
 * passes, not on the frame). */
static void assert_same_pass(const pass_state *expected, const pass_state *actual, int frame)
{
    cr_assert_eq(actual->pair_count, expected->pair_count, "frame %d: %zu pairs, the program had %zu", frame,
                 actual->pair_count, expected->pair_count);
    cr_assert_eq(actual->contact_count, expected->contact_count, "frame %d: %zu contacts, the program had %zu", frame,
                 actual->contact_count, expected->contact_count);
    cr_assert_eq(actual->near_count, expected->near_count, "frame %d: near pairs", frame);
    for (size_t i = 0; i < expected->pair_count; i++)
        cr_assert(same_node(expected->pairs[i].a, actual->pairs[i].a) &&
                      same_node(expected->pairs[i].b, actual->pairs[i].b) &&
                      expected->pairs[i].state == actual->pairs[i].state,
                  "frame %d: pair %zu differs", frame, i);
    const sr_contact *lists[2][2] = {{expected->contacts, actual->contacts}, {expected->near, actual->near}};
    size_t counts[2] = {expected->contact_count, expected->near_count};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            const sr_contact *e = &lists[l][0][i], *a = &lists[l][1][i];
            cr_assert(same_node(e->a, a->a) && same_node(e->b, a->b), "frame %d: %s %zu joins other nodes", frame,
                      l ? "near pair" : "contact", i);
            cr_assert(memcmp(&e->point, &a->point, sizeof e->point) == 0 &&
                          memcmp(&e->normal, &a->normal, sizeof e->normal) == 0 && e->distance == a->distance &&
                          memcmp(&e->point_a, &a->point_a, sizeof e->point_a) == 0 &&
                          memcmp(&e->point_b, &a->point_b, sizeof e->point_b) == 0 && e->method == a->method &&
                          e->status == a->status,
                      "frame %d: %s %zu differs (distance %.17g, the program's %.17g)", frame,
                      l ? "near pair" : "contact", i, a->distance, e->distance);
        }
}

/* A pile of every shape type falling into itself: bodies turn and sink, so pairs come and go. */
static void make_pile(shape_scene *s, rng *r)
{
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(&(sr_scene_desc){.name = "pile"}, &s->scene, &err), SR_OK);
    cr_assert_eq(sr_scene_add_material(s->scene,
                                       &(sr_material_desc){.name = "clay", .base_color = {0.6f, 0.7f, 0.9f, 1}},
                                       &s->material, &err),
                 SR_OK);
    sr_camera camera = sr_scene_camera(s->scene);
    camera.eye = sr_vec3_make(0, 2.5f, 6);
    camera.target = sr_vec3_make(0, 0.3f, 0);
    sr_scene_set_camera(s->scene, &camera);
    const sr_dvec3 points[] = {{0.3, 0, 0}, {-0.3, 0.1, 0}, {0, 0.35, 0.1}, {0, -0.1, 0.3}, {0.1, 0.1, -0.3}};
    for (int i = 0; i < 16; i++) {
        sr_node_shape_desc d = {0};
        switch (i % 8) {
        case 0: d.shape = sr_shape_sphere(0.3); break;
        case 1: d.shape = sr_shape_box((sr_dvec3){0.3, 0.2, 0.25}); break;
        case 2: d.shape = sr_shape_capsule(0.15, 0.25); break;
        case 3: d.shape = sr_shape_cylinder(0.25, 0.2); break;
        case 4: d.shape = sr_shape_cone(0.3, 0.25); break;
        case 5: d = (sr_node_shape_desc){.shape = {.type = SR_SHAPE_HULL}, .hull_points = points, .hull_point_count = 5}; break;
        case 6: d.shape = sr_shape_box((sr_dvec3){0.25, 0.25, 0.25}); d.shape.rounding = 0.05; break;
        default: d.shape = sr_shape_triangle((sr_dvec3){-0.3, 0, 0}, (sr_dvec3){0.3, 0, 0}, (sr_dvec3){0, 0, 0.4}); break;
        }
        sr_vec3 at = sr_vec3_make(rng_range(r, -1.2f, 1.2f), rng_range(r, 0, 1.2f), rng_range(r, -1.2f, 1.2f));
        add_shaped(s, "body", at, &d, (sr_mesh_id){0});
    }
    cr_assert_eq(sr_scene_update(s->scene, NULL, &err), SR_OK);
}

static void move_pile(shape_scene *s, int f)
{
    sr_error err = {0};
    for (size_t i = 0; i < s->count; i++) {
        sr_node_info info;
        cr_assert_eq(sr_scene_node(s->scene, s->nodes[i], &info, NULL), SR_OK);
        sr_transform t = info.transform;
        t.translation = sr_vec3_scale(t.translation, 0.96f); // towards the middle
        float angle = 0.07f * (float)(f * (int)(i % 5 + 1));
        float c = cosf(angle / 2), sn = sinf(angle / 2);
        t.rotation = sr_quat_normalize((sr_quat){sn * 0.6f, sn * 0.8f, 0, c});
        cr_assert_eq(sr_scene_set_transform(s->scene, s->nodes[i], t, &err), SR_OK);
    }
    cr_assert_eq(sr_scene_update(s->scene, NULL, &err), SR_OK);
}

/* The program's frame: its scene, then the contacts, closest points and pairs overlays over it. */
static void draw_with_overlay(sr_scene *scene, const sr_camera *camera, const sr_collision *collision,
                              sr_renderer *renderer, sr_framebuffer *fb, sr_scene_frame *frame, bool rendered)
{
    sr_error err = {0};
    if (!rendered)
        cr_assert_eq(sr_scene_render(scene, &(sr_scene_render_desc){.camera = camera}, renderer, fb, frame, &err),
                     SR_OK, "%s", err.message);
    else
        cr_assert_eq(sr_scene_cull(scene, camera, fb->width, fb->height, frame, &err), SR_OK, "%s", err.message);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &list, &err), SR_OK);
    sr_overlay_desc desc = {.items = SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS,
                            .collision = collision};
    cr_assert_eq(sr_overlay_add(scene, frame, camera, fb->width, fb->height, &desc, list, &err), SR_OK, "%s",
                 err.message);
    sr_mat4 view, projection;
    sr_camera_matrices(camera, fb->width, fb->height, &view, &projection);
    cr_assert_eq(sr_debug_draw(list, renderer, fb, sr_mat4_mul(projection, view), &err), SR_OK, "%s", err.message);
    sr_debug_list_destroy(list);
}

Test(record_shapes, a_replayed_frame_collides_and_draws_its_contacts_as_the_program_did, .timeout = 90)
{
    char folder[256], path[300];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/pile.srrec", folder);
    enum { FRAMES = 16, WIDTH = 200, HEIGHT = 150 };
    rng r = {0x9e3779b97f4a7c15u};
    shape_scene s = {0};
    make_pile(&s, &r);
    sr_recorder *rec = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_recorder_create(path, &(sr_recorder_desc){.keyframe_interval = 5}, &rec, &err), SR_OK);
    sr_collision *collision = NULL;
    cr_assert_eq(sr_collision_create(&collision, &err), SR_OK);
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    sr_scene_frame *scene_frame = NULL;
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = WIDTH, .height = HEIGHT}, &fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = 1}, &renderer, NULL), SR_OK);
    cr_assert_eq(sr_scene_frame_create(&scene_frame, NULL), SR_OK);
    pass_state passes[FRAMES];
    uint32_t *images[FRAMES];
    size_t contacts = 0;
    for (int f = 0; f < FRAMES; f++) {
        if (f)
            move_pile(&s, f);
        cr_assert_eq(sr_scene_collide(s.scene, NULL, collision, &err), SR_OK, "%s", err.message);
        passes[f] = copy_pass(collision, NULL);
        contacts += collision->contact_count;
        cr_assert_eq(sr_recorder_frame(rec, f / 60.0, NULL, 0, s.scene, &err), SR_OK, "%s", err.message);
        sr_camera camera = sr_scene_camera(s.scene);
        draw_with_overlay(s.scene, &camera, collision, renderer, fb, scene_frame, false);
        images[f] = malloc((size_t)WIDTH * HEIGHT * 4);
        memcpy(images[f], fb->color, (size_t)WIDTH * HEIGHT * 4);
    }
    cr_assert_gt(contacts, (size_t)FRAMES, "the pile should touch (%zu contacts in all)", contacts);
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK);
    char image_path[400] = "";
    if (getenv("SOFTRAST_KEEP_IMAGES")) // a look at the last frame: SOFTRAST_KEEP_IMAGES=file.png
        sr_framebuffer_save(fb, getenv("SOFTRAST_KEEP_IMAGES"), NULL);

    sr_recording *recording = NULL;
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK, "%s", err.message);
    sr_collision *replayed = NULL;
    cr_assert_eq(sr_collision_create(&replayed, &err), SR_OK);
    // Backwards and at random: the replayed pass has its own history of passes, not the program's.
    for (int k = 0; k < 2 * FRAMES; k++) {
        int f = k < FRAMES ? FRAMES - 1 - k : (k * 7 + 2) % FRAMES;
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, &err), SR_OK, "frame %d: %s", f, err.message);
        cr_assert_eq(sr_scene_collide(frame.scene, NULL, replayed, &err), SR_OK, "frame %d: %s", f, err.message);
        pass_state pass = copy_pass(replayed, recording);
        assert_same_pass(&passes[f], &pass, f);
        free_pass(&pass);
        sr_framebuffer_clear(fb, 0, 1.0f);
        cr_assert_eq(sr_recording_render(recording, renderer, fb, NULL, &err), SR_OK, "%s", err.message);
        draw_with_overlay(frame.scene, &frame.camera, replayed, renderer, fb, scene_frame, true);
        size_t differ = 0;
        for (size_t p = 0; p < (size_t)WIDTH * HEIGHT; p++)
            differ += fb->color[p] != images[f][p];
        if (differ) {
            snprintf(image_path, sizeof image_path, "%s/replayed_%d.png", folder, f);
            sr_framebuffer_save(fb, image_path, NULL);
        }
        cr_assert_eq(differ, 0, "frame %d: %zu pixels differ from the program's frame (%s)", f, differ, image_path);
    }
    for (int f = 0; f < FRAMES; f++) {
        free_pass(&passes[f]);
        free(images[f]);
    }
    sr_collision_destroy(replayed);
    sr_collision_destroy(collision);
    sr_recording_destroy(recording);
    sr_scene_frame_destroy(scene_frame);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    destroy_shape_scene(&s);
    temp_folder_remove(folder);
}

/* ---- damaged shape records ---- */

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

/* The offset of the first record of `type` (header, then type u8, length u32, payload, CRC). */
static size_t find_record(const uint8_t *file, size_t size, uint32_t type)
{
    size_t at = 16 + load_u32(file + 12) + 4;
    while (at + 9 <= size) {
        uint32_t length = load_u32(file + at + 1);
        if (file[at] == type)
            return at;
        at += 9 + (size_t)length;
    }
    cr_assert_fail("no record of type %u", type);
    return 0;
}

static void fix_crc(uint8_t *file, size_t record)
{
    uint32_t length = load_u32(file + record + 1);
    uint32_t crc = crc32c(file + record, 5 + (size_t)length);
    for (int k = 0; k < 4; k++)
        file[record + 5 + length + (size_t)k] = (uint8_t)(crc >> (8 * k));
}

static uint64_t get_varint(const uint8_t **p)
{
    uint64_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t byte = *(*p)++;
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return value;
    }
}

/* Where entry `nth` of the first STATE record's SHAPES section is: its flags byte. */
static uint8_t *shape_entry(uint8_t *file, size_t size, size_t record, int nth)
{
    uint32_t length = load_u32(file + record + 1);
    const uint8_t *p = file + record + 5, *end = p + length;
    get_varint(&p); // frame
    p++;            // flags
    while (p < end) {
        uint8_t tag = *p++;
        uint64_t section = get_varint(&p);
        if (tag != 8) {
            p += section;
            continue;
        }
        uint64_t count = get_varint(&p);
        cr_assert_gt(count, (uint64_t)nth);
        for (int i = 0;; i++) {
            get_varint(&p); // slot delta
            if (i == nth)
                return file + (p - file);
            uint8_t flags = *p++;
            if (flags & 1)
                p += get_varint(&p);
        }
    }
    cr_assert_fail("no SHAPES section (file of %zu bytes)", size);
    return NULL;
}

/* Opens the damaged file: seeking frame 0 fails with SR_ERROR_PARSE saying `expected`, and the
 * check finds the file damaged. */
static void assert_refused(const char *path, const uint8_t *file, size_t size, const char *expected)
{
    write_whole(path, file, size);
    sr_recording *recording = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_recording_open(path, NULL, &recording, &err), SR_OK, "%s", err.message);
    sr_recording_frame frame;
    sr_status status = sr_recording_seek(recording, 0, &frame, &err);
    cr_assert_eq(status, SR_ERROR_PARSE, "status %d (%s)", status, err.message);
    cr_assert(strstr(err.message, expected), "the message '%s' does not say '%s'", err.message, expected);
    cr_assert(strstr(err.message, path), "the message '%s' does not name the file", err.message);
    sr_recording_destroy(recording);
    sr_recording_check_report report;
    cr_assert_eq(sr_recording_check(path, NULL, &report, &err), SR_OK, "%s", err.message);
    cr_assert_eq(report.health, SR_RECORDING_DAMAGED, "%s: %s", expected, report.message);
}

Test(record_shapes, damaged_shapes_and_hulls_are_refused_by_what_is_wrong, .timeout = 30)
{
    char folder[256], path[300], damaged[320];
    temp_folder(folder, sizeof folder);
    snprintf(path, sizeof path, "%s/shapes.srrec", folder);
    snprintf(damaged, sizeof damaged, "%s/damaged.srrec", folder);
    shape_scene s = make_shape_scene();
    sr_recorder *rec = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_recorder_create(path, NULL, &rec, &err), SR_OK);
    cr_assert_eq(sr_recorder_frame(rec, 0, NULL, 0, s.scene, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK);
    size_t size = 0;
    uint8_t *file = read_whole(path, &size), *copy = malloc(size);
    size_t state = find_record(file, size, 2), hull = find_record(file, size, 9);

    // A hull's vertex moved far out: its faces no longer bound it.
    memcpy(copy, file, size);
    double far = 100.0;
    memcpy(copy + hull + 5 + 3, &far, sizeof far); // id (1 byte), dimension, vertex count (1 byte), vertex 0's x
    fix_crc(copy, hull);
    assert_refused(damaged, copy, size, "not convex");
    // A hull whose face names a vertex that does not exist: the last byte of the tables is an edge's
    // vertex; make every face vertex count unreadable instead by a dimension of 7.
    memcpy(copy, file, size);
    copy[hull + 5 + 1] = 7;
    fix_crc(copy, hull);
    assert_refused(damaged, copy, size, "dimension 7");
    // A shape entry with flags this version does not know.
    memcpy(copy, file, size);
    *shape_entry(copy, size, state, 0) |= 0x80;
    fix_crc(copy, state);
    assert_refused(damaged, copy, size, "unknown shape flags");
    // A shape of type 12.
    memcpy(copy, file, size);
    uint8_t *entry = shape_entry(copy, size, state, 0);
    const uint8_t *bytes = entry + 1;
    get_varint(&bytes);
    copy[bytes - copy] = (uint8_t)((copy[bytes - copy] & 0xf0u) | 12u);
    fix_crc(copy, state);
    assert_refused(damaged, copy, size, "shape is malformed");
    // A sphere of radius -1 (node 3): well formed, refused by the scene, named.
    memcpy(copy, file, size);
    entry = shape_entry(copy, size, state, 3);
    bytes = entry + 1;
    cr_assert_eq(get_varint(&bytes), 9u, "a sphere's bytes: head and radius");
    cr_assert_eq(*bytes & 15u, SR_SHAPE_SPHERE);
    double negative = -1.0;
    memcpy(copy + (bytes - copy) + 1, &negative, sizeof negative);
    fix_crc(copy, state);
    assert_refused(damaged, copy, size, "radius");
    // A shape for a node that does not exist (the first entry's slot moved past every node).
    memcpy(copy, file, size);
    entry = shape_entry(copy, size, state, 0);
    cr_assert_eq(entry[-1], 0, "the first entry is slot 0");
    entry[-1] = 120;
    fix_crc(copy, state);
    assert_refused(damaged, copy, size, "holds no node");

    free(copy);
    free(file);
    destroy_shape_scene(&s);
    temp_folder_remove(folder);
}

/* ---- hulls read back table for table (sr_hull_create_from_view) ---- */

static size_t face_vertex_total(const sr_hull_view *v)
{
    size_t count = 0;
    for (size_t f = 0; f < v->face_count; f++)
        count = v->faces[f].first + v->faces[f].count > count ? v->faces[f].first + v->faces[f].count : count;
    return count;
}

Test(record_shapes, a_hull_made_from_another_hulls_tables_is_that_hull_and_bad_tables_are_refused, .timeout = 60)
{
    rng r = {0x2545f4914f6cdd1du};
    sr_error err = {0};
    // Random point sets of every dimension, and one large enough for the local convexity check.
    int runs = SANITIZED ? 60 : 300;
    for (int t = 0; t <= runs; t++) {
        size_t n = t == runs ? (SANITIZED ? 3000 : 12000) : 1 + (size_t)(t % 40);
        sr_dvec3 *points = malloc(n * sizeof *points);
        for (size_t i = 0; i < n; i++) {
            sr_vec3 d = rng_direction(&r);
            double radius = t == runs ? 1.0 : rng_range(&r, 0.2f, 1.0f);
            points[i] = (sr_dvec3){d.x * radius, t % 7 == 3 ? 0 : d.y * radius, t % 11 == 5 ? 0 : d.z * radius};
        }
        sr_hull *hull = NULL, *copy = NULL;
        cr_assert_eq(sr_hull_create(points, n, &hull, &err), SR_OK, "%s", err.message);
        sr_hull_view a = sr_hull_get_view(hull);
        cr_assert_eq(sr_hull_create_from_view(&a, face_vertex_total(&a), &copy, &err), SR_OK, "run %d (dimension %d): %s",
                     t, a.dimension, err.message);
        cr_assert_eq(hull_signature(copy), hull_signature(hull), "run %d: the copy's tables differ", t);
        // The same support points in every direction (ties broken alike).
        for (int k = 0; k < 16; k++) {
            sr_vec3 d = rng_direction(&r);
            sr_dvec3 dir = {d.x, d.y, d.z};
            sr_dvec3 p = sr_shape_support(&(sr_shape){.type = SR_SHAPE_HULL, .pose = sr_pose_identity(), .hull = hull}, dir);
            sr_dvec3 q = sr_shape_support(&(sr_shape){.type = SR_SHAPE_HULL, .pose = sr_pose_identity(), .hull = copy}, dir);
            cr_assert_eq(memcmp(&p, &q, sizeof p), 0, "run %d: another support point", t);
        }
        sr_hull_destroy(copy);
        copy = NULL;
        if (a.dimension == 3 && t < runs) {
            // Damaged tables, each refused with what is wrong.
            size_t fv = face_vertex_total(&a);
            sr_hull_face *faces = malloc(a.face_count * sizeof *faces);
            uint32_t *loops = malloc(fv * sizeof *loops);
            sr_dvec3 *vertices = malloc(a.vertex_count * sizeof *vertices);
            struct {
                const char *says;
                int what;
            } cases[] = {{"does not exist", 0}, {"not a unit vector", 1}, {"not convex", 2}, {"V - E + F", 3},
                         {"twice", 4}};
            for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
                if (cases[c].what == 3 && a.face_count == 4)
                    continue; // a tetrahedron less a face is refused for its count first
                memcpy(faces, a.faces, a.face_count * sizeof *faces);
                memcpy(loops, a.face_vertices, fv * sizeof *loops);
                memcpy(vertices, a.vertices, a.vertex_count * sizeof *vertices);
                sr_hull_view bad = a;
                bad.faces = faces;
                bad.face_vertices = loops;
                bad.vertices = vertices;
                switch (cases[c].what) {
                case 0: loops[0] = (uint32_t)a.vertex_count; break;
                case 1: faces[0].normal.x += 0.01; break;
                case 2: vertices[0] = sr_dvec3_scale(vertices[0], 3.0); break;
                case 3: bad.face_count--; break;
                default: loops[faces[0].first + 1] = loops[faces[0].first]; break;
                }
                cr_assert_neq(sr_hull_create_from_view(&bad, fv, &copy, &err), SR_OK,
                              "run %d: tables with %s accepted", t, cases[c].says);
                cr_assert_null(copy);
                cr_assert(strstr(err.message, cases[c].says), "run %d: '%s' does not say '%s'", t, err.message,
                          cases[c].says);
            }
            free(faces);
            free(loops);
            free(vertices);
        }
        sr_hull_destroy(hull);
        free(points);
    }
}
