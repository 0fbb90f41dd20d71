/* viewer_collide.c — one pair of a scene's shapes in the viewer: click selects a shape, shift +
 * click a second; ctrl + drag moves the selected shape in the view plane (by the drag's world
 * displacement at the shape's depth) and alt + drag turns it about the view's axes; the pair's
 * answer (sr_collide_signed_distance) is computed again for every frame drawn after a change, and
 * shown in the HUD and over the scene (the two shapes' wires, the closest points or the contact
 * with its normal). */
#include "viewer_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/// Degrees a shape turns per drawable pixel of an alt + drag.
#define ROTATE_DEGREES_PER_PIXEL 0.5

/// The colours of the pair: A orange and B blue, as sr_debug_collide_trace draws them.
#define PAIR_COLOR_A 0xff2a9cffu
#define PAIR_COLOR_B 0xffffa040u

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

bool viewer_pair_node_ok(const sr_viewer *viewer, sr_node_id node)
{
    sr_node_info info;
    return viewer->scene && sr_scene_node_is_valid(viewer->scene, node) &&
           sr_scene_node(viewer->scene, node, &info, NULL) == SR_OK && info.has_shape;
}

const char *viewer_node_name(const sr_viewer *viewer, sr_node_id node)
{
    sr_node_info info;
    if (!viewer->scene || sr_scene_node(viewer->scene, node, &info, NULL) != SR_OK)
        return "";
    return info.name;
}

/* Drops a selected node that the scene no longer has (a reload, the program removed it). */
static void forget_stale(sr_viewer *viewer)
{
    viewer_pair *pair = &viewer->pair;
    if (pair->has_b && !viewer_pair_node_ok(viewer, pair->b))
        pair->has_b = false;
    if (pair->has_a && !viewer_pair_node_ok(viewer, pair->a)) {
        pair->has_a = pair->has_b;
        pair->a = pair->b;
        pair->has_b = false;
    }
    if (!(pair->has_a && pair->has_b))
        pair->answered = false;
}

void viewer_pair_clear(sr_viewer *viewer)
{
    viewer->pair.has_a = viewer->pair.has_b = false;
    viewer->pair.answered = false;
    viewer->pair.view = VIEWER_PAIR_SCENE;
    viewer->pair.changed = true;
    viewer->dirty = true;
}

bool viewer_pair_select(sr_viewer *viewer, sr_node_id node, bool second)
{
    if (!viewer_pair_node_ok(viewer, node))
        return false;
    viewer_pair *pair = &viewer->pair;
    if (!second || !pair->has_a) {
        pair->a = node;
        pair->has_a = true;
        pair->has_b = false;
        pair->view = VIEWER_PAIR_SCENE;
    } else if (pair->a.index == node.index && pair->a.generation == node.generation) {
        return true; // a pair is two nodes: shift + click on A again keeps A alone
    } else {
        pair->b = node;
        pair->has_b = true;
        pair->step = -1;
    }
    pair->changed = true;
    viewer->dirty = true;
    return true;
}

bool viewer_pair_selected(const sr_viewer *viewer)
{
    return viewer->pair.has_a && viewer->pair.has_b;
}

/* The scene up to date (the shapes' world poses are those of the last update). */
static bool bring_up_to_date(sr_viewer *viewer)
{
    return viewer->scene &&
           (!sr_scene_needs_update(viewer->scene) || sr_scene_update(viewer->scene, NULL, NULL) == SR_OK);
}

bool viewer_pair_shapes(sr_viewer *viewer, sr_shape *a, sr_shape *b)
{
    forget_stale(viewer);
    if (!viewer_pair_selected(viewer) || !bring_up_to_date(viewer))
        return false;
    sr_node_shape shape_a, shape_b;
    if (sr_scene_node_shape(viewer->scene, viewer->pair.a, &shape_a, NULL) != SR_OK ||
        sr_scene_node_shape(viewer->scene, viewer->pair.b, &shape_b, NULL) != SR_OK)
        return false;
    *a = shape_a.world;
    *b = shape_b.world;
    return true;
}

void viewer_pair_answer(sr_viewer *viewer)
{
    viewer_pair *pair = &viewer->pair;
    sr_shape a, b;
    if (!viewer_pair_shapes(viewer, &a, &b)) {
        pair->answered = false;
        return;
    }
    double start = now_us();
    pair->status = sr_collide_signed_distance(&a, &b, NULL, &pair->result);
    pair->query_us = now_us() - start;
    pair->answered = true;
}

static const char *method_name(sr_collide_method method)
{
    switch (method) {
    case SR_COLLIDE_BY_GJK:
        return "GJK";
    case SR_COLLIDE_BY_EPA:
        return "EPA";
    case SR_COLLIDE_BY_SAT:
        return "SAT";
    case SR_COLLIDE_BY_CLOSED_FORM:
        return "closed form";
    }
    return "?";
}

size_t viewer_pair_hud(const sr_viewer *viewer, char *out, size_t size)
{
    const viewer_pair *pair = &viewer->pair;
    out[0] = '\0';
    if (!pair->has_a || size == 0)
        return 0;
    int n;
    if (!pair->has_b) {
        n = snprintf(out, size, "selected: %s (shift + click: a second shape)\n", viewer_node_name(viewer, pair->a));
    } else if (!pair->answered) {
        n = snprintf(out, size, "pair: %s, %s\n", viewer_node_name(viewer, pair->a), viewer_node_name(viewer, pair->b));
    } else {
        const sr_collide_result *r = &pair->result;
        const char *what = pair->status == SR_COLLIDE_INVALID_SHAPE ? "invalid shape"
                           : pair->status == SR_COLLIDE_UNSUPPORTED ? "not supported"
                           : r->distance > 0.0                      ? "apart, distance"
                           : r->distance < 0.0                      ? "penetrating, depth"
                                                                    : "touching, distance";
        char iterations[64] = "";
        if (r->method != SR_COLLIDE_BY_CLOSED_FORM || r->iterations > 0)
            snprintf(iterations, sizeof iterations, ", %d iteration%s", r->iterations, r->iterations == 1 ? "" : "s");
        n = snprintf(out, size, "pair: %s, %s\n%s %.6g\nnormal (%.4f, %.4f, %.4f)\n%s%s%s, query %.1f us\n",
                     viewer_node_name(viewer, pair->a), viewer_node_name(viewer, pair->b), what, fabs(r->distance),
                     r->normal.x, r->normal.y, r->normal.z, method_name(r->method), iterations,
                     pair->status == SR_COLLIDE_ITERATION_CAP ? " (the cap)" : "", pair->query_us);
    }
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* The camera's unit axes in double: forward (eye to target), right and up as the image shows them. */
static void camera_axes(const sr_camera *camera, sr_dvec3 *forward, sr_dvec3 *right, sr_dvec3 *up)
{
    *forward = sr_dvec3_normalize(sr_dvec3_sub(sr_dvec3_from_vec3(camera->target), sr_dvec3_from_vec3(camera->eye)));
    *right = sr_dvec3_normalize(sr_dvec3_cross(*forward, sr_dvec3_from_vec3(camera->up)));
    *up = sr_dvec3_cross(*right, *forward);
}

void viewer_pair_overlay(sr_viewer *viewer, sr_debug_list *list, const sr_camera *camera, int height)
{
    const viewer_pair *pair = &viewer->pair;
    if (!pair->has_a || !viewer->scene)
        return;
    sr_node_shape shape;
    const sr_debug_style style_a = {.color = PAIR_COLOR_A, .width = 2, .on_top = true};
    const sr_debug_style style_b = {.color = PAIR_COLOR_B, .width = 2, .on_top = true};
    if (sr_scene_node_shape(viewer->scene, pair->a, &shape, NULL) == SR_OK)
        sr_debug_shape(list, &shape.world, style_a);
    if (!pair->has_b || sr_scene_node_shape(viewer->scene, pair->b, &shape, NULL) != SR_OK)
        return;
    sr_debug_shape(list, &shape.world, style_b);
    if (!pair->answered || pair->status == SR_COLLIDE_INVALID_SHAPE || pair->status == SR_COLLIDE_UNSUPPORTED)
        return;
    const sr_collide_result *r = &pair->result;
    sr_vec3 pa = sr_dvec3_to_vec3(r->point_a), pb = sr_dvec3_to_vec3(r->point_b);
    char text[64];
    if (r->distance > 0.0) {
        // The closest points and the segment between them, the distance beside it.
        sr_debug_style closest = {.color = SR_OVERLAY_COLOR_CLOSEST, .width = 2, .on_top = true};
        sr_debug_line(list, pa, pb, closest);
        sr_debug_dot(list, pa, 7.0f, closest);
        sr_debug_dot(list, pb, 7.0f, closest);
        snprintf(text, sizeof text, "%.4g", r->distance);
        // Beside the segment, not over it: 10 pixels below and right of its middle.
        sr_vec3 mid = sr_vec3_scale(sr_vec3_add(pa, pb), 0.5f);
        float per_unit = sr_overlay_pixels_per_unit(camera, height, mid);
        if (per_unit > 0.0f) {
            sr_dvec3 forward, right, up;
            sr_camera c = sr_camera_resolve(camera);
            camera_axes(&c, &forward, &right, &up);
            sr_dvec3 offset = sr_dvec3_scale(sr_dvec3_sub(right, up), 10.0 / per_unit);
            mid = sr_vec3_add(mid, sr_dvec3_to_vec3(offset));
        }
        sr_debug_text(list, mid, text, (sr_debug_style){.color = SR_OVERLAY_COLOR_CLOSEST, .on_top = true});
    } else {
        // The contact as the contacts overlay draws it: the normal's arrow 72 pixels long.
        sr_vec3 mid = sr_vec3_scale(sr_vec3_add(pa, pb), 0.5f);
        float per_unit = sr_overlay_pixels_per_unit(camera, height, mid);
        snprintf(text, sizeof text, "depth %.4g", -r->distance);
        sr_debug_contact(list, mid, sr_dvec3_to_vec3(r->normal),
                         &(sr_debug_contact_desc){
                             .length = per_unit > 0.0f ? 72.0f / per_unit : 0.0f, .text = text, .text_at = mid});
    }
}

/* ---- moving and turning the selected shape ---- */

bool viewer_pair_grab(sr_viewer *viewer, float x, float y, sr_node_id *node)
{
    viewer_pair *pair = &viewer->pair;
    forget_stale(viewer);
    if (!pair->has_a)
        return false;
    // The selected shape under the cursor, else the one selected last.
    sr_pick_hit hit;
    if (pair->has_b && viewer_pick_at(viewer, x, y, &hit) && hit.hit) {
        if (hit.node.index == pair->a.index && hit.node.generation == pair->a.generation) {
            *node = pair->a;
            return true;
        }
    }
    *node = pair->has_b ? pair->b : pair->a;
    return true;
}

/* The node's local transform turned into a world pose change: `delta` added to its world
 * position, then `turn` applied about its world position. The node's parent frame is
 * W * L^-1 (W its world pose, L its local transform; no scales with shapes). */
static bool change_pose(sr_viewer *viewer, sr_node_id node, sr_dvec3 delta, sr_dquat turn)
{
    sr_node_info info;
    sr_node_shape shape;
    if (!bring_up_to_date(viewer) || sr_scene_node(viewer->scene, node, &info, NULL) != SR_OK ||
        sr_scene_node_shape(viewer->scene, node, &shape, NULL) != SR_OK)
        return false;
    sr_transform local = info.transform;
    sr_dquat world_rotation = shape.world.pose.rotation;
    sr_dquat local_rotation = sr_dquat_from_quat(sr_quat_normalize(local.rotation));
    // The parent's rotation P = W L^-1; the local change is P^-1 (change) P.
    sr_dquat parent = sr_dquat_mul(world_rotation, sr_dquat_conjugate(local_rotation));
    sr_dvec3 local_delta = sr_dquat_rotate(sr_dquat_conjugate(parent), delta);
    sr_dquat local_turn = sr_dquat_mul(sr_dquat_conjugate(parent), sr_dquat_mul(turn, parent));
    sr_dquat rotation = sr_dquat_mul(local_turn, local_rotation);
    double length =
        sqrt(rotation.x * rotation.x + rotation.y * rotation.y + rotation.z * rotation.z + rotation.w * rotation.w);
    local.translation =
        sr_vec3_make((float)(local.translation.x + local_delta.x), (float)(local.translation.y + local_delta.y),
                     (float)(local.translation.z + local_delta.z));
    local.rotation = sr_quat_make((float)(rotation.x / length), (float)(rotation.y / length),
                                  (float)(rotation.z / length), (float)(rotation.w / length));
    if (sr_scene_set_transform(viewer->scene, node, local, NULL) != SR_OK)
        return false;
    viewer->pair.changed = true;
    viewer->dirty = true;
    return true;
}

sr_dvec3 viewer_drag_displacement(const sr_camera *camera, int width, int height, sr_vec3 at, float x0, float y0,
                                  float x1, float y1)
{
    (void)width; // square pixels: the vertical extent sets the scale (sr_camera_matrices)
    sr_camera c = sr_camera_resolve(camera);
    sr_dvec3 forward, right, up;
    camera_axes(&c, &forward, &right, &up);
    // One pixel's size in the view plane through `at`: the view's height there over the image's.
    double extent = c.projection == SR_PROJECTION_ORTHOGRAPHIC
                        ? (double)c.height
                        : 2.0 * sr_dvec3_dot(sr_dvec3_sub(sr_dvec3_from_vec3(at), sr_dvec3_from_vec3(c.eye)), forward) *
                              tan((double)c.fov_y_degrees * 3.14159265358979323846 / 360.0);
    if (!(extent > 0.0) || !isfinite(extent))
        return sr_dvec3_make(0, 0, 0); // behind the eye
    double pixel = extent / (double)height;
    return sr_dvec3_add(sr_dvec3_scale(right, ((double)x1 - x0) * pixel),
                        sr_dvec3_scale(up, ((double)y0 - y1) * pixel));
}

bool viewer_pair_move(sr_viewer *viewer, sr_node_id node, const sr_camera *camera, float x0, float y0, float x1,
                      float y1)
{
    sr_node_shape shape;
    if (!bring_up_to_date(viewer) || sr_scene_node_shape(viewer->scene, node, &shape, NULL) != SR_OK)
        return false;
    sr_dvec3 delta = viewer_drag_displacement(camera, viewer->fb->width, viewer->fb->height,
                                              sr_dvec3_to_vec3(shape.world.pose.position), x0, y0, x1, y1);
    return change_pose(viewer, node, delta, sr_dquat_identity());
}

bool viewer_pair_rotate(sr_viewer *viewer, sr_node_id node, const sr_camera *camera, float dx, float dy)
{
    // Trackball-like: a horizontal drag turns the shape about the view's up axis, a vertical one
    // about its right axis, so that the side under the cursor follows the mouse.
    sr_camera c = sr_camera_resolve(camera);
    sr_dvec3 forward, right, up;
    camera_axes(&c, &forward, &right, &up);
    const double radians = ROTATE_DEGREES_PER_PIXEL * 3.14159265358979323846 / 180.0;
    sr_dquat turn =
        sr_dquat_mul(sr_dquat_from_axis_angle(right, dy * radians), sr_dquat_from_axis_angle(up, dx * radians));
    return change_pose(viewer, node, sr_dvec3_make(0, 0, 0), turn);
}

/* ---- script mode: select and print-pair ---- */

static void print_name(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void print_dvec3(FILE *out, sr_dvec3 v)
{
    fprintf(out, "[%.17g, %.17g, %.17g]", v.x, v.y, v.z);
}

static void print_shape(sr_viewer *viewer, FILE *out, bool has, sr_node_id node)
{
    sr_node_shape shape;
    if (!has || sr_scene_node_shape(viewer->scene, node, &shape, NULL) != SR_OK) {
        fputs("null", out);
        return;
    }
    fputs("{\"name\": ", out);
    print_name(out, viewer_node_name(viewer, node));
    fputs(", \"position\": ", out);
    print_dvec3(out, shape.world.pose.position);
    sr_dquat q = shape.world.pose.rotation;
    fprintf(out, ", \"rotation\": [%.17g, %.17g, %.17g, %.17g]}", q.x, q.y, q.z, q.w);
}

void viewer_pair_print(sr_viewer *viewer, FILE *out)
{
    forget_stale(viewer);
    bring_up_to_date(viewer);
    const viewer_pair *pair = &viewer->pair;
    fputs("{\"a\": ", out);
    print_shape(viewer, out, pair->has_a, pair->a);
    fputs(", \"b\": ", out);
    print_shape(viewer, out, pair->has_b, pair->b);
    static const char *const views[] = {"scene", "world", "minkowski", "both"};
    int step = -1, steps = 0;
    const char *query = pair->has_b ? viewer_pair_trace_state(viewer, &step, &steps) : "gjk";
    fprintf(out, ", \"view\": \"%s\", \"query\": \"%s\", \"step\": %d, \"steps\": %d", views[pair->view], query, step,
            steps);
    fputs(", \"answer\": ", out);
    if (!pair->answered) {
        fputs("null}\n", out);
        return;
    }
    const sr_collide_result *r = &pair->result;
    static const char *const statuses[] = {"ok", "iteration cap", "invalid shape", "unsupported"};
    fprintf(out, "{\"status\": \"%s\", \"method\": \"%s\", \"hit\": %s, \"distance\": %.17g, \"normal\": ",
            statuses[pair->status], method_name(r->method), r->hit ? "true" : "false", r->distance);
    print_dvec3(out, r->normal);
    fputs(", \"point_a\": ", out);
    print_dvec3(out, r->point_a);
    fputs(", \"point_b\": ", out);
    print_dvec3(out, r->point_b);
    fprintf(out, ", \"iterations\": %d, \"query_us\": %.3f}}\n", r->iterations, pair->query_us);
}
