/* frame_check.c — why a rendered frame shows only the background (app_scene.h:
 * sr_app_why_nothing_drawn). The frame's statistics answer the simple cases; otherwise the
 * triangles of the instances that were drawn are projected again, in double, and sorted into
 * the reasons the rasteriser drops a triangle: outside the view volume, no area on screen
 * (seen edge-on or degenerate), or no pixel centre covered. Only run on a frame that drew
 * nothing, so it costs nothing on the ones that did. */
#include <math.h>
#include <stdio.h>

#include "app_scene.h"

/* The triangles of one drawn instance, classified. */
typedef struct triangle_counts {
    unsigned long long outside, edge_on, small, behind;
    double min_x, min_y, max_x, max_y; ///< window bounds of the triangles in front of the eye
} triangle_counts;

static void classify_instance(const sr_mesh *mesh, sr_mat4 clip_from_object, int width, int height,
                              triangle_counts *counts)
{
    const float *m = clip_from_object.m;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double clip[3][4];
        for (int k = 0; k < 3; k++) {
            sr_vec3 p = mesh->positions[mesh->indices[3 * t + k]];
            for (int row = 0; row < 4; row++)
                clip[k][row] =
                    (double)m[row] * p.x + (double)m[4 + row] * p.y + (double)m[8 + row] * p.z + (double)m[12 + row];
        }
        // Outside one plane of the view volume with all three corners: x, y in [-w, w], z in [0, w].
        bool out = false;
        for (int plane = 0; plane < 6 && !out; plane++) {
            int axis = plane / 2;
            bool all = true;
            for (int k = 0; k < 3 && all; k++) {
                double value = axis < 2 ? (plane % 2 ? clip[k][3] - clip[k][axis] : clip[k][3] + clip[k][axis])
                                        : (plane % 2 ? clip[k][3] - clip[k][2] : clip[k][2]);
                all = value < 0.0;
            }
            out = all;
        }
        if (out) {
            counts->outside++;
            continue;
        }
        if (!(clip[0][3] > 0.0 && clip[1][3] > 0.0 && clip[2][3] > 0.0)) {
            counts->behind++; // crosses the eye's plane: clipped, and then too thin or outside
            continue;
        }
        double x[3], y[3];
        for (int k = 0; k < 3; k++) {
            x[k] = (clip[k][0] / clip[k][3] + 1.0) * 0.5 * width;
            y[k] = (1.0 - clip[k][1] / clip[k][3]) * 0.5 * height;
        }
        for (int k = 0; k < 3; k++) {
            counts->min_x = fmin(counts->min_x, x[k]), counts->max_x = fmax(counts->max_x, x[k]);
            counts->min_y = fmin(counts->min_y, y[k]), counts->max_y = fmax(counts->max_y, y[k]);
        }
        double area = 0.5 * fabs((x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]));
        // Less than a thousandth of a pixel: a sliver seen edge-on, not merely a small triangle.
        if (area < 1e-3)
            counts->edge_on++;
        else
            counts->small++;
    }
}

bool sr_app_why_nothing_drawn(const sr_scene *scene, const sr_scene_frame *frame, const sr_camera *camera, int width,
                              int height, char *why, size_t size)
{
    sr_scene_stats stats = sr_scene_frame_stats(frame);
    if (stats.triangles_drawn > 0)
        return false;
    if (stats.instances_total == 0) {
        snprintf(why, size, "the scene has nothing to draw (no node with a mesh that is not hidden)");
        return true;
    }
    if (stats.instances_drawn == 0) {
        if (stats.instances_total == 1)
            snprintf(why, size, "the instance is outside the camera's view (culled by its frustum)");
        else
            snprintf(why, size, "all %u instances are outside the camera's view (culled by its frustum)",
                     stats.instances_total);
        return true;
    }
    if (stats.triangles_submitted == 0) {
        snprintf(why, size, "the %u instances in view have no triangles", stats.instances_drawn);
        return true;
    }
    if (stats.triangles_backface_culled == stats.triangles_submitted) {
        snprintf(why, size, "all %llu triangles face away from the camera and their materials cull back faces",
                 (unsigned long long)stats.triangles_submitted);
        return true;
    }
    sr_mat4 view, projection;
    sr_camera_matrices(camera, width, height, &view, &projection);
    sr_mat4 clip_from_world = sr_mat4_mul(projection, view);
    triangle_counts counts = {.min_x = INFINITY, .min_y = INFINITY, .max_x = -INFINITY, .max_y = -INFINITY};
    const sr_node_id *visible = NULL;
    size_t visible_count = sr_scene_frame_visible(frame, &visible);
    for (size_t i = 0; i < visible_count; i++) {
        sr_node_info info;
        const sr_mesh *mesh = NULL;
        if (sr_scene_node(scene, visible[i], &info, NULL) == SR_OK && (mesh = sr_scene_mesh(scene, info.mesh)))
            classify_instance(mesh, sr_mat4_mul(clip_from_world, info.world), width, height, &counts);
    }
    unsigned long long total = counts.outside + counts.edge_on + counts.small + counts.behind;
    unsigned long long in_front = counts.edge_on + counts.small;
    if (in_front > 0 && counts.edge_on < total && counts.max_x - counts.min_x < 1.0 &&
        counts.max_y - counts.min_y < 1.0)
        snprintf(why, size,
                 "everything in view fits within %.2g x %.2g pixels, between pixel centres (come closer or render a "
                 "larger --size)",
                 counts.max_x - counts.min_x, counts.max_y - counts.min_y);
    else if (counts.edge_on == total)
        snprintf(why, size,
                 "all %llu triangles are seen edge-on (the mesh is flat and the camera lies in its plane; "
                 "try another --camera)",
                 total);
    else if (counts.outside == total)
        snprintf(why, size, "all %llu triangles are outside the camera's view", total);
    else if (counts.small == total)
        snprintf(why, size,
                 "the %llu triangles in view are too small to cover a pixel centre (come closer or "
                 "render a larger --size)",
                 total);
    else
        snprintf(why, size,
                 "of %llu triangles, %llu are outside the camera's view, %llu cross the eye's plane, %llu are seen "
                 "edge-on and %llu are too small to cover a pixel centre",
                 total, counts.outside, counts.behind, counts.edge_on, counts.small);
    return true;
}
