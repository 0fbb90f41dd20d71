/* test_scene_shape.c — collision shapes on scene nodes (src/scene/scene_shape.c, shape_mesh.c and
 * the scene file's "shape" and "draw" keys in scene_file_nodes.c): every type read from a file as
 * written, placed at the node's world pose, drawn solid where an independent projection of the
 * shape puts it (and picked there), drawn as a wire along its projected edges and not inside; the
 * hull of a mesh; and every kind of bad shape refused with a message naming the file and field. */
#include <criterion/criterion.h>
#include <softrast/collide.h>
#include <softrast/scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debug_projection.h"

/* ---- helpers ---- */

static sr_scene *load_text(const char *text)
{
    sr_scene *scene = NULL;
    sr_error err = {0};
    sr_status status =
        sr_scene_load(&(sr_scene_load_desc){.text = text, .length = strlen(text), .name = "shapes.json"}, &scene, &err);
    cr_assert_eq(status, SR_OK, "load failed: %s", err.message);
    return scene;
}

static void load_fails(const char *text, const char *fragment)
{
    sr_scene *scene = (sr_scene *)1;
    sr_error err = {0};
    sr_status status =
        sr_scene_load(&(sr_scene_load_desc){.text = text, .length = strlen(text), .name = "bad.json"}, &scene, &err);
    cr_assert_neq(status, SR_OK, "accepted: %s", text);
    cr_assert_null(scene);
    cr_assert(strstr(err.message, fragment), "message '%s' lacks '%s' (file: %s)", err.message, fragment, text);
    cr_assert(strstr(err.message, "bad.json"), "message '%s' does not name the file", err.message);
}

typedef struct picture {
    sr_framebuffer *fb;
    sr_scene_frame *frame;
} picture;

static picture render(sr_scene *scene, int width, int height)
{
    picture p = {0};
    sr_renderer *renderer = NULL;
    sr_error err = {0};
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &p.fb, NULL),
        SR_OK);
    cr_assert_eq(sr_renderer_create(NULL, &renderer, NULL), SR_OK);
    cr_assert_eq(sr_scene_frame_create(&p.frame, NULL), SR_OK);
    cr_assert_eq(sr_scene_render(scene, NULL, renderer, p.fb, p.frame, &err), SR_OK, "%s", err.message);
    sr_renderer_destroy(renderer);
    return p;
}

static void free_picture(picture *p)
{
    sr_framebuffer_destroy(p->fb);
    sr_scene_frame_destroy(p->frame);
}

/* The node drawn at pixel (x, y), SR_NO_ID for none. */
static uint32_t node_at(const picture *p, int x, int y)
{
    sr_node_id node;
    uint32_t triangle;
    if (!sr_scene_frame_decode_id(p->frame, p->fb->ids[(size_t)y * (size_t)p->fb->width + (size_t)x], &node, &triangle))
        return SR_NO_ID;
    return node.index;
}

static uint32_t color_at(const picture *p, int x, int y)
{
    return p->fb->color[(size_t)y * (size_t)p->fb->width + (size_t)x];
}

/* The camera of the scenes below, as the independent projection sees it. */
#define WIDTH 640
#define HEIGHT 240
static test_view the_view(void)
{
    const double eye[3] = {0, 3, 12}, target[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    return test_view_make(eye, target, up, 40, 0.1, 100, WIDTH, HEIGHT);
}

#define CAMERA "\"camera\": {\"eye\": [0, 3, 12], \"target\": [0, 0, 0], \"fov\": 40, \"near\": 0.1, \"far\": 100}, "

/* One node of each type in a row along x, 1.6 apart, turned so that flat ones face the camera. */
static const char *const ROW =
    "{" CAMERA "\"background\": [0, 0, 0],"
    " \"materials\": {\"m\": {\"color\": [0.9, 0.5, 0.2]}},"
    " \"meshes\": {\"ball\": {\"primitive\": \"sphere\", \"radius\": 0.4}},"
    " \"nodes\": ["
    "  {\"name\": \"sphere\", \"material\": \"m\", \"transform\": {\"translation\": [-7.2, 0, 0]},"
    "   \"shape\": {\"type\": \"sphere\", \"radius\": 0.5}},"
    "  {\"name\": \"box\", \"material\": \"m\", \"transform\": {\"translation\": [-5.6, 0, 0], \"euler\": [0, 30, 0]},"
    "   \"shape\": {\"type\": \"box\", \"half_extents\": [0.4, 0.6, 0.3], \"rounding\": 0.05}},"
    "  {\"name\": \"capsule\", \"material\": \"m\", \"transform\": {\"translation\": [-4, 0, 0], \"euler\": [90, 0, "
    "0]},"
    "   \"shape\": {\"type\": \"capsule\", \"radius\": 0.3, \"half_height\": 0.4}},"
    "  {\"name\": \"cylinder\", \"material\": \"m\", \"transform\": {\"translation\": [-2.4, 0, 0], \"euler\": [90, 0, "
    "0]},"
    "   \"shape\": {\"type\": \"cylinder\", \"radius\": 0.5, \"half_height\": 0.5}},"
    "  {\"name\": \"cone\", \"material\": \"m\", \"transform\": {\"translation\": [-0.8, 0, 0], \"euler\": [-90, 0, "
    "0]},"
    "   \"shape\": {\"type\": \"cone\", \"radius\": 0.5, \"half_height\": 0.5}},"
    "  {\"name\": \"hull\", \"material\": \"m\", \"transform\": {\"translation\": [0.8, 0, 0]},"
    "   \"shape\": {\"type\": \"hull\", \"points\": [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0, -0.5, 0.5], [0, 0.6, "
    "0]]}},"
    "  {\"name\": \"triangle\", \"material\": \"m\", \"transform\": {\"translation\": [2.4, 0, 0]},"
    "   \"shape\": {\"type\": \"triangle\", \"points\": [[-0.5, -0.5, 0], [0.5, -0.5, 0], [0, 0.6, 0]]}},"
    "  {\"name\": \"segment\", \"material\": \"m\", \"transform\": {\"translation\": [4, 0, 0]},"
    "   \"shape\": {\"type\": \"segment\", \"points\": [[-0.5, -0.5, 0], [0.5, 0.5, 0]]}},"
    "  {\"name\": \"point\", \"material\": \"m\", \"transform\": {\"translation\": [5.6, 0, 0]},"
    "   \"shape\": {\"type\": \"point\", \"rounding\": 0.3}},"
    "  {\"name\": \"mesh hull\", \"material\": \"m\", \"transform\": {\"translation\": [7.2, 0, 0]},"
    "   \"shape\": {\"type\": \"hull\", \"mesh\": \"ball\"}}"
    " ]}";

static const char *const TYPE_NAMES[] = {"sphere", "box",      "capsule", "cylinder", "cone",
                                         "hull",   "triangle", "segment", "point",    "mesh hull"};

/* ---- every type, as written, where it is ---- */

Test(scene_shape, every_type_reads_as_written_and_sits_at_its_node)
{
    sr_scene *scene = load_text(ROW);
    cr_assert_eq(sr_scene_shape_count(scene), 10);
    const sr_shape_type types[] = {SR_SHAPE_SPHERE, SR_SHAPE_BOX,  SR_SHAPE_CAPSULE,  SR_SHAPE_CYLINDER,
                                   SR_SHAPE_CONE,   SR_SHAPE_HULL, SR_SHAPE_TRIANGLE, SR_SHAPE_SEGMENT,
                                   SR_SHAPE_POINT,  SR_SHAPE_HULL};
    for (int i = 0; i < 10; i++) {
        sr_node_id id = sr_scene_find_node(scene, TYPE_NAMES[i]);
        sr_node_shape shape;
        sr_error err = {0};
        cr_assert_eq(sr_scene_node_shape(scene, id, &shape, &err), SR_OK, "%s: %s", TYPE_NAMES[i], err.message);
        cr_assert_eq(shape.local.type, types[i], "%s", TYPE_NAMES[i]);
        cr_assert_eq(shape.draw, SR_SHAPE_DRAW_SOLID, "%s: a node without a mesh draws its shape solid", TYPE_NAMES[i]);
        cr_assert_neq(shape.mesh.id, 0);
        // The world pose is the node's transform, in double.
        cr_assert_float_eq(shape.world.pose.position.x, -7.2 + 1.6 * i, 1e-6, "%s", TYPE_NAMES[i]);
        cr_assert_float_eq(shape.world.pose.position.y, 0.0, 1e-12);
        sr_dbox box = sr_shape_bounds(&shape.world);
        cr_assert(memcmp(&box, &shape.world_bounds, sizeof box) == 0);
        sr_node_info info;
        cr_assert_eq(sr_scene_node(scene, id, &info, NULL), SR_OK);
        cr_assert(info.has_shape);
        cr_assert_eq(info.mesh.id, shape.mesh.id, "%s: the node draws and picks the shape's mesh", TYPE_NAMES[i]);
    }
    sr_node_shape s;
    cr_assert_eq(sr_scene_node_shape(scene, sr_scene_find_node(scene, "box"), &s, NULL), SR_OK);
    cr_assert(s.local.half_extents.x == 0.4 && s.local.half_extents.y == 0.6 && s.local.half_extents.z == 0.3);
    cr_assert_eq(s.local.rounding, 0.05);
    // The box is turned 30 degrees about y: its world box is the rounded box's turned extents.
    double c = cos(M_PI / 6), sn = sin(M_PI / 6);
    cr_assert_float_eq(s.world_bounds.max.x - s.world_bounds.min.x, 2 * (0.4 * c + 0.3 * sn) + 0.1, 1e-6);
    cr_assert_float_eq(s.world_bounds.max.y - s.world_bounds.min.y, 1.3, 1e-9);
    cr_assert_eq(sr_scene_node_shape(scene, sr_scene_find_node(scene, "capsule"), &s, NULL), SR_OK);
    cr_assert(s.local.radius == 0.3 && s.local.half_height == 0.4);
    cr_assert_eq(sr_scene_node_shape(scene, sr_scene_find_node(scene, "segment"), &s, NULL), SR_OK);
    cr_assert(s.local.points[1].x == 0.5 && s.local.points[1].y == 0.5);
    // The hull of the mesh wraps its vertices: a sphere mesh of radius 0.4 has poles at +-0.4.
    cr_assert_eq(sr_scene_node_shape(scene, sr_scene_find_node(scene, "mesh hull"), &s, NULL), SR_OK);
    cr_assert_eq(s.local.type, SR_SHAPE_HULL);
    cr_assert_float_eq(s.world_bounds.max.y, 0.4, 1e-6);
    cr_assert_float_eq(s.world_bounds.min.y, -0.4, 1e-6);
    sr_scene_totals totals = sr_scene_get_totals(scene);
    cr_assert_eq(totals.shapes, 10);
    sr_scene_destroy(scene);
}

/* Each shape is drawn (and its node found in the id buffer) at the projection of a point
 * inside it, and nothing is drawn just outside the projection of its world box. */
Test(scene_shape, solid_shapes_are_drawn_where_they_project)
{
    sr_scene *scene = load_text(ROW);
    picture p = render(scene, WIDTH, HEIGHT);
    test_view view = the_view();
    for (int i = 0; i < 10; i++) {
        sr_node_id id = sr_scene_find_node(scene, TYPE_NAMES[i]);
        sr_node_shape shape;
        cr_assert_eq(sr_scene_node_shape(scene, id, &shape, NULL), SR_OK);
        // A point inside: the centre of the box for solid shapes; for the flat and thin ones,
        // the centroid of the triangle, the middle of the segment.
        sr_dbox b = shape.world_bounds;
        double inside[3] = {0.5 * (b.min.x + b.max.x), 0.5 * (b.min.y + b.max.y), 0.5 * (b.min.z + b.max.z)};
        if (shape.local.type == SR_SHAPE_TRIANGLE || shape.local.type == SR_SHAPE_HULL) {
            sr_dvec3 centroid = {0, 0, 0};
            if (shape.local.type == SR_SHAPE_TRIANGLE)
                for (int k = 0; k < 3; k++)
                    centroid = sr_dvec3_add(centroid, sr_dvec3_scale(shape.local.points[k], 1.0 / 3.0));
            centroid = sr_pose_apply(shape.world.pose, centroid);
            inside[0] = centroid.x, inside[1] = centroid.y, inside[2] = centroid.z;
        }
        test_pixel at = test_project(&view, inside[0], inside[1], inside[2]);
        int x = (int)floor(at.x), y = (int)floor(at.y);
        cr_assert_eq(node_at(&p, x, y), id.index, "%s: pixel (%d, %d) shows node %u, not the shape", TYPE_NAMES[i], x,
                     y, node_at(&p, x, y));
        sr_pick_hit hit;
        sr_error err = {0};
        cr_assert_eq(sr_scene_pick(scene, NULL, WIDTH, HEIGHT, (float)x + 0.5f, (float)y + 0.5f, &hit, &err), SR_OK,
                     "%s", err.message);
        cr_assert(hit.hit && hit.node.index == id.index, "%s: picking its pixel does not pick it", TYPE_NAMES[i]);
        // The box's projection, 2 pixels out: the background.
        double low_x = 1e9, high_x = -1e9, low_y = 1e9, high_y = -1e9;
        for (int k = 0; k < 8; k++) {
            test_pixel corner =
                test_project(&view, k & 1 ? b.max.x : b.min.x, k & 2 ? b.max.y : b.min.y, k & 4 ? b.max.z : b.min.z);
            low_x = fmin(low_x, corner.x), high_x = fmax(high_x, corner.x);
            low_y = fmin(low_y, corner.y), high_y = fmax(high_y, corner.y);
        }
        for (int yy = (int)low_y - 2; yy <= (int)high_y + 2; yy++)
            for (int xx = (int)low_x - 2; xx <= (int)high_x + 2; xx++) {
                if (xx < 0 || yy < 0 || xx >= WIDTH || yy >= HEIGHT)
                    continue;
                bool outside = xx < low_x - 1.5 || xx > high_x + 0.5 || yy < low_y - 1.5 || yy > high_y + 0.5;
                if (outside)
                    cr_assert_neq(node_at(&p, xx, yy), id.index, "%s drawn at (%d, %d), outside its box", TYPE_NAMES[i],
                                  xx, yy);
            }
    }
    free_picture(&p);
    sr_scene_destroy(scene);
}

/* A wire box: its material's colour on the projected middles of its front edges, the background
 * inside its faces; a wire over a mesh draws both; picking still finds the wire box. */
Test(scene_shape, wire_shapes_are_drawn_along_their_edges)
{
    const char *text = "{" CAMERA "\"background\": [0, 0, 0],"
                       " \"materials\": {\"w\": {\"color\": [0.2, 1, 0.4]}, \"m\": {\"color\": [0.8, 0.8, 0.8]}},"
                       " \"meshes\": {\"ball\": {\"primitive\": \"sphere\", \"radius\": 0.5}},"
                       " \"nodes\": ["
                       "  {\"name\": \"frame\", \"material\": \"w\", \"draw\": \"wire\","
                       "   \"shape\": {\"type\": \"box\", \"half_extents\": [1, 1, 1]}},"
                       "  {\"name\": \"proxy\", \"mesh\": \"ball\", \"material\": \"m\", \"draw\": \"wire\","
                       "   \"transform\": {\"translation\": [4, 0, 0]},"
                       "   \"shape\": {\"type\": \"box\", \"half_extents\": [0.6, 0.6, 0.6]}}"
                       " ]}";
    sr_scene *scene = load_text(text);
    picture p = render(scene, WIDTH, HEIGHT);
    test_view view = the_view();
    const uint32_t wire = sr_rgba8(0.2f, 1.0f, 0.4f, 1.0f);
    // The middles of the edges of the front face (z = 1) and of the top face's back edge.
    const double middles[][3] = {{0, 1, 1}, {0, -1, 1}, {1, 0, 1}, {-1, 0, 1}, {0, 1, -1}};
    for (int m = 0; m < 5; m++) {
        test_pixel at = test_project(&view, middles[m][0], middles[m][1], middles[m][2]);
        bool found = false;
        for (int dy = -1; dy <= 1 && !found; dy++)
            for (int dx = -1; dx <= 1 && !found; dx++)
                found = color_at(&p, (int)floor(at.x) + dx, (int)floor(at.y) + dy) == wire;
        cr_assert(found, "no wire colour around (%.1f, %.1f), the edge through (%g, %g, %g)", at.x, at.y, middles[m][0],
                  middles[m][1], middles[m][2]);
    }
    // Inside the front face, away from the edges: the background.
    test_pixel face = test_project(&view, 0.5, -0.4, 1);
    cr_assert_eq(color_at(&p, (int)face.x, (int)face.y), sr_rgba8(0, 0, 0, 1), "a wire box is filled at (%d, %d)",
                 (int)face.x, (int)face.y);
    sr_node_id frame = sr_scene_find_node(scene, "frame");
    sr_pick_hit hit;
    cr_assert_eq(sr_scene_pick(scene, NULL, WIDTH, HEIGHT, (float)face.x, (float)face.y, &hit, NULL), SR_OK);
    cr_assert(hit.hit && hit.node.index == frame.index, "a click inside the wire box does not pick it");
    // The proxy: its mesh is drawn (grey sphere in the middle), its shape's wire around it.
    sr_node_id proxy = sr_scene_find_node(scene, "proxy");
    test_pixel centre = test_project(&view, 4, 0, 0);
    cr_assert_eq(node_at(&p, (int)centre.x, (int)centre.y), proxy.index);
    test_pixel edge = test_project(&view, 4.6, 0, 0.6);
    bool found = false;
    for (int dy = -1; dy <= 1 && !found; dy++)
        for (int dx = -1; dx <= 1 && !found; dx++)
            found = color_at(&p, (int)floor(edge.x) + dx, (int)floor(edge.y) + dy) == sr_rgba8(0.8f, 0.8f, 0.8f, 1.0f);
    cr_assert(found, "no wire of the proxy box around (%.1f, %.1f)", edge.x, edge.y);
    sr_node_shape shape;
    cr_assert_eq(sr_scene_node_shape(scene, proxy, &shape, NULL), SR_OK);
    cr_assert_eq(shape.draw, SR_SHAPE_DRAW_WIRE);
    free_picture(&p);
    sr_scene_destroy(scene);
}

/* ---- bad input ---- */

#define NODE(X) "{\"meshes\": {\"ball\": {\"primitive\": \"sphere\"}}, \"nodes\": [" X "]}"

Test(scene_shape, bad_shapes_are_refused_with_the_file_and_the_field)
{
    load_fails(NODE("{\"shape\": {\"type\": \"box\", \"half_extents\": [1, -2, 1]}}"), "nodes[0].shape.half_extents");
    load_fails(NODE("{\"shape\": {\"type\": \"sphere\", \"radius\": -1}}"), "nodes[0].shape.radius");
    load_fails(NODE("{\"shape\": {\"type\": \"capsule\", \"radius\": 1, \"half_height\": -0.5}}"), "half_height");
    load_fails(NODE("{\"shape\": {\"type\": \"sphere\", \"radius\": 1, \"rounding\": -0.1}}"), "rounding");
    load_fails(NODE("{\"shape\": {\"type\": \"hull\", \"points\": []}}"), "nodes[0].shape.points");
    load_fails(NODE("{\"shape\": {\"type\": \"hull\", \"mesh\": \"nothing\"}}"), "nothing");
    load_fails(NODE("{\"shape\": {\"type\": \"hull\", \"mesh\": 3}}"), "nodes[0].shape.mesh");
    load_fails(NODE("{\"shape\": {\"type\": \"hull\"}}"), "\"points\" or \"mesh\"");
    load_fails(NODE("{\"shape\": {\"type\": \"hull\", \"mesh\": \"ball\", \"points\": [[0, 0, 0]]}}"), "not both");
    load_fails(NODE("{\"shape\": {\"type\": \"blob\"}}"), "nodes[0].shape.type");
    load_fails(NODE("{\"shape\": {\"type\": \"sphere\", \"radius\": \"big\"}}"), "nodes[0].shape.radius");
    load_fails(NODE("{\"shape\": {\"type\": \"box\", \"half_extents\": [1, 1]}}"), "nodes[0].shape.half_extents");
    load_fails(NODE("{\"shape\": {\"type\": \"sphere\", \"radius\": 1, \"colour\": 2}}"), "colour");
    load_fails(NODE("{\"shape\": {\"type\": \"sphere\", \"radius\": 1, \"position\": [1, 0, 0]}}"), "position");
    load_fails(NODE("{\"shape\": [1, 2]}"), "nodes[0].shape");
    load_fails(NODE("{\"shape\": {\"type\": \"segment\", \"points\": [[0, 0, 0]]}}"), "nodes[0].shape.points");
    // A shape takes no scale, its node's or an ancestor's.
    load_fails(NODE("{\"name\": \"big\", \"transform\": {\"scale\": [2, 2, 2]},"
                    " \"shape\": {\"type\": \"sphere\", \"radius\": 1}}"),
               "nodes[0].transform.scale");
    load_fails(NODE("{\"name\": \"group\", \"transform\": {\"scale\": [1, 3, 1]}, \"children\": ["
                    " {\"name\": \"ball\", \"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}"),
               "group");
    load_fails(NODE("{\"name\": \"group\", \"transform\": {\"scale\": [1, 3, 1]}, \"children\": ["
                    " {\"name\": \"ball\", \"shape\": {\"type\": \"sphere\", \"radius\": 1}}]}"),
               "nodes[0].children[0]");
    // "draw": known values, only with a shape, solid only without a mesh.
    load_fails(NODE("{\"draw\": \"wire\"}"), "nodes[0].draw");
    load_fails(NODE("{\"draw\": \"dotted\", \"shape\": {\"type\": \"sphere\", \"radius\": 1}}"), "nodes[0].draw");
    load_fails(NODE("{\"draw\": 1, \"shape\": {\"type\": \"sphere\", \"radius\": 1}}"), "nodes[0].draw");
    load_fails(NODE("{\"mesh\": \"ball\", \"draw\": \"solid\", \"shape\": {\"type\": \"sphere\", \"radius\": 1}}"),
               "solid");
}

/* The API refuses what the file refuses, and leaves the node's shape as it was. */
Test(scene_shape, the_api_refuses_bad_shapes_and_keeps_the_old_one)
{
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(NULL, &scene, &err), SR_OK);
    sr_node_id group, ball;
    sr_transform scaled = sr_transform_identity();
    scaled.scale = sr_vec3_make(2, 2, 2);
    cr_assert_eq(sr_scene_add_node(scene, &(sr_node_desc){.name = "group"}, &group, &err), SR_OK);
    sr_node_shape_desc sphere = {.shape = sr_shape_sphere(1)};
    cr_assert_eq(
        sr_scene_add_node(
            scene,
            &(sr_node_desc){.name = "ball", .parent = group, .transform = sr_transform_identity(), .shape = &sphere},
            &ball, &err),
        SR_OK, "%s", err.message);
    cr_assert_eq(sr_scene_set_transform(scene, group, scaled, &err), SR_ERROR_INVALID_ARGUMENT,
                 "a scale over a shape is refused");
    cr_assert(strstr(err.message, "ball") || strstr(err.message, "group"), "%s", err.message);
    sr_node_shape_desc bad = {.shape = sr_shape_sphere(-1)};
    cr_assert_eq(sr_scene_set_node_shape(scene, ball, &bad, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "ball") && strstr(err.message, "radius"), "%s", err.message);
    bad = (sr_node_shape_desc){.shape = {.type = SR_SHAPE_HULL}};
    cr_assert_eq(sr_scene_set_node_shape(scene, ball, &bad, &err), SR_ERROR_INVALID_ARGUMENT, "a hull of nothing");
    sr_dvec3 nan_point = {NAN, 0, 0};
    bad = (sr_node_shape_desc){.shape = {.type = SR_SHAPE_HULL}, .hull_points = &nan_point, .hull_point_count = 1};
    cr_assert_eq(sr_scene_set_node_shape(scene, ball, &bad, &err), SR_ERROR_INVALID_ARGUMENT, "a NaN point");
    bad = (sr_node_shape_desc){.shape = {.type = SR_SHAPE_HULL}, .hull_mesh = {99}};
    cr_assert_eq(sr_scene_set_node_shape(scene, ball, &bad, &err), SR_ERROR_INVALID_ARGUMENT, "a bad mesh");
    bad = (sr_node_shape_desc){
        .shape = sr_shape_with_pose(sr_shape_sphere(1), sr_pose_make((sr_dvec3){1, 0, 0}, (sr_dquat){0, 0, 0, 1}))};
    cr_assert_eq(sr_scene_set_node_shape(scene, ball, &bad, &err), SR_ERROR_INVALID_ARGUMENT, "a pose of its own");
    bad = (sr_node_shape_desc){.shape = sr_shape_sphere(1), .draw = (sr_shape_draw)42};
    cr_assert_eq(sr_scene_set_node_shape(scene, ball, &bad, &err), SR_ERROR_INVALID_ARGUMENT, "draw 42");
    cr_assert_eq(sr_scene_update(scene, NULL, &err), SR_OK);
    sr_node_shape kept;
    cr_assert_eq(sr_scene_node_shape(scene, ball, &kept, &err), SR_OK);
    cr_assert(kept.local.type == SR_SHAPE_SPHERE && kept.local.radius == 1.0, "the old shape is gone");
    // Removing the shape frees the node to take a scale.
    cr_assert_eq(sr_scene_set_node_shape(scene, ball, NULL, &err), SR_OK);
    cr_assert_eq(sr_scene_shape_count(scene), 0);
    cr_assert_eq(sr_scene_set_transform(scene, group, scaled, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_scene_node_shape(scene, ball, &kept, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_scene_destroy(scene);
}

/* sr_node_info.shape_version against a model of the calls: over a random sequence of shape
 * changes (given, replaced, removed, refused) and other edits (poses, materials, updates, nodes
 * removed and added into freed slots), a node's number changes exactly when its shape was given,
 * replaced or removed, is 0 until then, and no number is ever given twice. */
Test(scene_shape, shape_version_changes_exactly_when_a_shape_is_set_or_removed)
{
    enum { NODES = 6, STEPS = 600, MAX_VERSIONS = STEPS + NODES + 1 };
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(NULL, &scene, &err), SR_OK);
    sr_node_id nodes[NODES];
    uint64_t expected[NODES];  // the model: the number each node should show
    bool expect_change[NODES]; // the model: a shape call since the last look
    bool shaped[NODES];
    uint64_t given[MAX_VERSIONS]; // every non-zero number seen, to check none repeats
    int given_count = 0;
    for (int i = 0; i < NODES; i++) {
        cr_assert_eq(sr_scene_add_node(scene, &(sr_node_desc){.transform = sr_transform_identity()}, &nodes[i], &err),
                     SR_OK);
        expected[i] = 0;
        expect_change[i] = false;
        shaped[i] = false;
    }
    static const sr_dvec3 points[] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    unsigned seed = 12345;
    for (int step = 0; step < STEPS; step++) {
        seed = seed * 1103515245u + 12345u;
        int i = (int)(seed >> 16) % NODES;
        int what = (int)(seed >> 8) % 7;
        sr_node_shape_desc desc = {.shape = sr_shape_sphere(0.5 + 0.25 * (step % 3))};
        if (what == 0) { // a shape given or replaced (sometimes the same sphere again: still a change)
            cr_assert_eq(sr_scene_set_node_shape(scene, nodes[i], &desc, &err), SR_OK, "%s", err.message);
            expect_change[i] = shaped[i] = true;
        } else if (what == 1) { // a hull
            desc = (sr_node_shape_desc){.shape = {.type = SR_SHAPE_HULL}, .hull_points = points, .hull_point_count = 4};
            cr_assert_eq(sr_scene_set_node_shape(scene, nodes[i], &desc, &err), SR_OK, "%s", err.message);
            expect_change[i] = shaped[i] = true;
        } else if (what == 2) { // removed: a change only when there was one
            cr_assert_eq(sr_scene_set_node_shape(scene, nodes[i], NULL, &err), SR_OK);
            expect_change[i] = expect_change[i] || shaped[i];
            shaped[i] = false;
        } else if (what == 3) { // refused: no change
            desc.shape = sr_shape_sphere(-1);
            cr_assert_eq(sr_scene_set_node_shape(scene, nodes[i], &desc, &err), SR_ERROR_INVALID_ARGUMENT);
        } else if (what == 4) { // a pose and an update: no change
            sr_transform t = sr_transform_identity();
            t.translation = sr_vec3_make((float)step, 0, 0);
            cr_assert_eq(sr_scene_set_transform(scene, nodes[i], t, &err), SR_OK, "%s", err.message);
            cr_assert_eq(sr_scene_update(scene, NULL, &err), SR_OK, "%s", err.message);
        } else if (what == 5) { // the node removed and another added, with a shape half the time
            cr_assert_eq(sr_scene_remove_node(scene, nodes[i], &err), SR_OK, "%s", err.message);
            bool with_shape = step % 2 == 0;
            cr_assert_eq(sr_scene_add_node(scene,
                                           &(sr_node_desc){.transform = sr_transform_identity(),
                                                           .shape = with_shape ? &desc : NULL},
                                           &nodes[i], &err),
                         SR_OK, "%s", err.message);
            expected[i] = 0;
            expect_change[i] = shaped[i] = with_shape;
        } else { // the hidden flag: no change
            cr_assert_eq(sr_scene_set_hidden(scene, nodes[i], step % 2 == 0, &err), SR_OK);
        }
        for (int k = 0; k < NODES; k++) {
            sr_node_info info;
            cr_assert_eq(sr_scene_node(scene, nodes[k], &info, &err), SR_OK, "%s", err.message);
            cr_assert_eq(info.has_shape, shaped[k]);
            if (!expect_change[k]) {
                cr_assert_eq(info.shape_version, expected[k], "step %d node %d: %llu, expected %llu", step, k,
                             (unsigned long long)info.shape_version, (unsigned long long)expected[k]);
                continue;
            }
            cr_assert_neq(info.shape_version, 0, "step %d node %d", step, k);
            for (int g = 0; g < given_count; g++)
                cr_assert_neq(given[g], info.shape_version, "step %d node %d: %llu given before", step, k,
                              (unsigned long long)info.shape_version);
            cr_assert_lt(given_count, MAX_VERSIONS);
            given[given_count++] = info.shape_version;
            expected[k] = info.shape_version;
            expect_change[k] = false;
        }
    }
    cr_assert_gt(given_count, STEPS / 4, "the sequence changed shapes often (%d)", given_count);
    sr_scene_destroy(scene);
}
