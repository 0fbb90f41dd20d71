/* debug_collide_picture.c — one pair's query traced and drawn as a whole picture: the query run
 * with a trace of generous capacities (sr_debug_pair_trace_run), the camera that frames the two
 * shapes or A - B and the origin, looking across the answer's normal (sr_debug_pair_camera), and
 * the world view, the Minkowski view or both side by side after a step, with the legend
 * (sr_debug_pair_picture). `softrast collide SCENE --pair A,B` and the viewer's pair views both
 * draw through here, so that their pictures of the same state are the same pixels. */
#include <softrast/debug.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/scene.h>

/// The pictures' background and the line between the two views of SR_DEBUG_PAIR_BOTH.
#define PICTURE_BACKGROUND 0xff261e1au
#define PICTURE_DIVIDER 0xff606060u

void sr_debug_pair_trace_free(sr_debug_pair_trace *traced)
{
    if (!traced)
        return;
    sr_free(traced->trace.gjk);
    sr_free(traced->trace.epa);
    sr_free(traced->trace.epa_vertices);
    sr_free(traced->trace.epa_faces);
    sr_free(traced->trace.sat);
    memset(traced, 0, sizeof *traced);
}

sr_status sr_debug_pair_trace_run(const sr_shape *a, const sr_shape *b, sr_debug_trace_kind kind, int max_iterations,
                                  sr_debug_pair_trace *out, sr_error *err)
{
    if (!a || !b || !out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_pair_trace_run: a NULL argument");
    if ((int)kind < SR_DEBUG_TRACE_GJK || kind > SR_DEBUG_TRACE_SAT || max_iterations < 0)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_pair_trace_run: kind %d, max_iterations %d",
                            (int)kind, max_iterations);
    // Reuse the buffers of an earlier run with the same cap (the viewer runs it on every move).
    int cap = max_iterations > 0 ? max_iterations : 128;
    sr_collide_trace *tr = &out->trace;
    if (!tr->gjk || out->cap != cap) {
        sr_debug_pair_trace_free(out);
        tr->gjk_capacity = (size_t)cap + 2;
        tr->epa_capacity = (size_t)cap + 2;
        tr->epa_vertex_capacity = (size_t)cap + 8;
        tr->epa_face_capacity = 1u << 18;
        tr->sat_capacity = 1u << 16;
        tr->gjk = sr_calloc(tr->gjk_capacity, sizeof *tr->gjk);
        tr->epa = sr_calloc(tr->epa_capacity, sizeof *tr->epa);
        tr->epa_vertices = sr_calloc(tr->epa_vertex_capacity, sizeof *tr->epa_vertices);
        tr->epa_faces = sr_calloc(tr->epa_face_capacity, sizeof *tr->epa_faces);
        tr->sat = sr_calloc(tr->sat_capacity, sizeof *tr->sat);
        out->cap = cap;
        if (!tr->gjk || !tr->epa || !tr->epa_vertices || !tr->epa_faces || !tr->sat) {
            sr_debug_pair_trace_free(out);
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory for the trace");
        }
    }
    out->kind = kind;
    out->boolean_gjk = false;
    memset(&out->result, 0, sizeof out->result);
    tr->gjk_count = tr->epa_count = tr->epa_vertex_count = tr->epa_face_count = tr->sat_count = 0;
    sr_collide_options options = {.max_iterations = max_iterations, .trace = tr};
    switch (kind) {
    case SR_DEBUG_TRACE_GJK:
        out->status = sr_collide_distance(a, b, &options, &out->result);
        if (tr->gjk_count == 0) {
            // Answered in closed form (points, spheres, segments, capsules): show the boolean GJK
            // of sr_collide_intersect instead, which iterates on any pair.
            sr_collide_trace kept = *tr;
            bool hit = false;
            sr_collide_intersect(a, b, NULL, &options, &hit);
            out->boolean_gjk = tr->gjk_count > 0;
            if (!out->boolean_gjk)
                *tr = kept;
        }
        break;
    case SR_DEBUG_TRACE_EPA:
        out->status = sr_collide_penetration(a, b, &options, &out->result);
        break;
    case SR_DEBUG_TRACE_SAT:
        out->status = sr_collide_sat(a, b, &options, &out->result);
        break;
    }
    return SR_OK;
}

/* ---- the camera ---- */

static void grow(sr_dbox *box, sr_dbox more)
{
    box->min = sr_dvec3_make(fmin(box->min.x, more.min.x), fmin(box->min.y, more.min.y), fmin(box->min.z, more.min.z));
    box->max = sr_dvec3_make(fmax(box->max.x, more.max.x), fmax(box->max.y, more.max.y), fmax(box->max.z, more.max.z));
}

/* The fitted camera turned about its target so that it looks across the answer's normal (the
 * depth or distance along it is then seen at full length), from the side of its old eye. */
static void look_across(sr_camera *camera, sr_dvec3 normal)
{
    double length = sr_dvec3_length(normal);
    if (!(length > 0))
        return;
    sr_dvec3 n = sr_dvec3_scale(normal, 1.0 / length);
    sr_dvec3 target = sr_dvec3_from_vec3(camera->target), eye = sr_dvec3_from_vec3(camera->eye);
    sr_dvec3 offset = sr_dvec3_sub(eye, target);
    double distance = sr_dvec3_length(offset);
    sr_dvec3 across = sr_dvec3_sub(offset, sr_dvec3_scale(n, sr_dvec3_dot(offset, n)));
    if (sr_dvec3_length(across) < 1e-3 * distance) // looking along the normal: any side will do
        across = sr_dvec3_cross(n, fabs(n.x) < 0.9 ? sr_dvec3_make(1, 0, 0) : sr_dvec3_make(0, 0, 1));
    across = sr_dvec3_normalize(across);
    // Keep a little of the view from above, unless that would look along the normal again.
    sr_dvec3 up = sr_dvec3_make(0, 1, 0);
    if (fabs(across.y) > 0.9)
        up = n;
    camera->eye = sr_dvec3_to_vec3(sr_dvec3_add(target, sr_dvec3_scale(across, distance)));
    camera->up = sr_dvec3_to_vec3(up);
}

sr_status sr_debug_pair_camera(const sr_shape *a, const sr_shape *b, const sr_debug_pair_trace *traced, bool minkowski,
                               int width, int height, sr_camera *out, sr_error *err)
{
    if (!a || !b || !traced || !out || width < 1 || height < 1)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_pair_camera: a NULL argument or a %dx%d image",
                            width, height);
    sr_dbox box = sr_shape_bounds(a);
    grow(&box, sr_shape_bounds(b));
    if (minkowski) {
        sr_hull *hull = NULL;
        double rounding = 0;
        sr_status status = sr_debug_minkowski_hull(a, b, &hull, &rounding, err);
        if (status != SR_OK)
            return status;
        sr_shape difference = sr_shape_hull(hull);
        difference.rounding = rounding;
        box = sr_shape_bounds(&difference);
        sr_hull_destroy(hull);
        grow(&box, (sr_dbox){{0, 0, 0}, {0, 0, 0}});
    }
    // Room around (the SAT intervals beside the shapes, the legend in the corner).
    sr_dvec3 centre = sr_dvec3_scale(sr_dvec3_add(box.min, box.max), 0.5);
    sr_dvec3 half =
        sr_dvec3_scale(sr_dvec3_sub(box.max, box.min), 0.5 * (traced->kind == SR_DEBUG_TRACE_SAT ? 1.6 : 1.25));
    sr_aabb fit = {sr_dvec3_to_vec3(sr_dvec3_sub(centre, half)), sr_dvec3_to_vec3(sr_dvec3_add(centre, half))};
    *out = sr_camera_fit_box(fit, sr_vec3_make(0, 1, 0), (float)width / (float)height);
    if (traced->status != SR_COLLIDE_UNSUPPORTED && traced->status != SR_COLLIDE_INVALID_SHAPE)
        look_across(out, traced->result.normal);
    return SR_OK;
}

/* ---- the picture ---- */

/* One view into `fb` (its whole size): the camera, the trace's items, drawn over the background. */
static sr_status draw_view(sr_renderer *renderer, sr_framebuffer *fb, sr_debug_list *list, const sr_shape *a,
                           const sr_shape *b, const sr_debug_pair_trace *traced, bool minkowski,
                           const sr_debug_pair_picture_desc *desc, sr_error *err)
{
    sr_camera camera;
    sr_status status = sr_debug_pair_camera(a, b, traced, minkowski, fb->width, fb->height, &camera, err);
    if (status == SR_OK && desc->camera)
        status = sr_camera_parse(desc->camera, &camera, &camera, err);
    if (status != SR_OK)
        return status;
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, fb->width, fb->height, &view, &projection);
    sr_debug_trace_desc trace_desc = {.kind = traced->kind,
                                      .step = desc->step,
                                      .minkowski = minkowski,
                                      .legend = true,
                                      .legend_x = 8,
                                      .legend_y = 8,
                                      .legend_scale = fb->width >= 1200 ? 2 : 1};
    // A list too small for the picture drops items; the clear grows it, so the second fill fits.
    for (int attempt = 0; attempt < 2; attempt++) {
        status = sr_debug_list_clear(list, err);
        if (status == SR_OK)
            status = sr_debug_collide_trace(list, a, b, &traced->trace, &trace_desc, err);
        if (status != SR_OK)
            return status;
        if (sr_debug_list_get_stats(list).items_dropped == 0)
            break;
    }
    sr_framebuffer_clear(fb, PICTURE_BACKGROUND, 1.0f);
    return sr_debug_draw(list, renderer, fb, sr_mat4_mul(projection, view), err);
}

sr_status sr_debug_pair_picture(sr_renderer *renderer, sr_framebuffer *fb, const sr_shape *a, const sr_shape *b,
                                const sr_debug_pair_trace *traced, const sr_debug_pair_picture_desc *desc,
                                sr_error *err)
{
    if (!renderer || !fb || !a || !b || !traced || !desc)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_pair_picture: a NULL argument");
    if ((int)desc->view < SR_DEBUG_PAIR_WORLD || desc->view > SR_DEBUG_PAIR_BOTH)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_pair_picture: view %d", (int)desc->view);
    if (desc->view == SR_DEBUG_PAIR_BOTH && fb->width < 2)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "a %dx%d image is too narrow for two views", fb->width,
                            fb->height);
    sr_debug_list *list = NULL;
    sr_status status = sr_debug_list_create(NULL, &list, err);
    if (status != SR_OK)
        return status;
    if (desc->view != SR_DEBUG_PAIR_BOTH) {
        status = draw_view(renderer, fb, list, a, b, traced, desc->view == SR_DEBUG_PAIR_MINKOWSKI, desc, err);
        sr_debug_list_destroy(list);
        return status;
    }
    // Each view in its own half-sized image (its own aspect), copied side by side with a one-pixel
    // grey line between them.
    int left = fb->width / 2;
    sr_framebuffer *halves[2] = {NULL, NULL};
    for (int v = 0; v < 2 && status == SR_OK; v++) {
        int width = v == 0 ? left : fb->width - left;
        status = sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = fb->height}, &halves[v], err);
        if (status == SR_OK)
            status = draw_view(renderer, halves[v], list, a, b, traced, v == 1, desc, err);
    }
    if (status == SR_OK)
        for (int y = 0; y < fb->height; y++) {
            uint32_t *row = fb->color + (size_t)y * (size_t)fb->width;
            memcpy(row, halves[0]->color + (size_t)y * (size_t)left, (size_t)left * sizeof *row);
            memcpy(row + left, halves[1]->color + (size_t)y * (size_t)halves[1]->width,
                   (size_t)halves[1]->width * sizeof *row);
            row[left] = PICTURE_DIVIDER;
        }
    sr_framebuffer_destroy(halves[0]);
    sr_framebuffer_destroy(halves[1]);
    sr_debug_list_destroy(list);
    return status;
}
