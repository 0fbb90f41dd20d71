/* src/record/record_render.c — what is done with the current frame of a recording: drawing it
 * (the scene, then its lists, as the recording program drew them), its world bounds and a camera
 * that frames a range of frames. Picking its items is record_pick.c. */
#include "record_reader.h"

#include <math.h>
#include <stdio.h>

sr_status rec_need_frame(const sr_recording *rec, const char *function, sr_error *err)
{
    if (!rec)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: rec is NULL", function);
    if (!rec->has_current)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: no current frame (seek to one first)", function);
    return SR_OK;
}

/* ---- bounds ---- */

/* Points past this in any coordinate (an exploded simulation's) are left out of the bounds, as
 * non-finite ones are: a box that reached them could not be framed (its extent overflows). */
#define BOUNDS_LIMIT 1e15f

static void grow_box(sr_aabb *box, sr_vec3 p)
{
    if (!(fabsf(p.x) <= BOUNDS_LIMIT && fabsf(p.y) <= BOUNDS_LIMIT && fabsf(p.z) <= BOUNDS_LIMIT))
        return;
    box->min = sr_vec3_make(fminf(box->min.x, p.x), fminf(box->min.y, p.y), fminf(box->min.z, p.z));
    box->max = sr_vec3_make(fmaxf(box->max.x, p.x), fmaxf(box->max.y, p.y), fmaxf(box->max.z, p.z));
}

static void grow_ball(sr_aabb *box, sr_vec3 centre, float radius)
{
    float r = isfinite(radius) && radius > 0.0f ? radius : 0.0f;
    grow_box(box, sr_vec3_make(centre.x - r, centre.y - r, centre.z - r));
    grow_box(box, sr_vec3_make(centre.x + r, centre.y + r, centre.z + r));
}

/* The affine part of a matrix applied to a point (the last row ignored, as debug boxes are drawn). */
sr_vec3 rec_affine_point(const sr_mat4 *m, sr_vec3 p)
{
    const float *a = m->m;
    return sr_vec3_make(a[0] * p.x + a[4] * p.y + a[8] * p.z + a[12], a[1] * p.x + a[5] * p.y + a[9] * p.z + a[13],
                        a[2] * p.x + a[6] * p.y + a[10] * p.z + a[14]);
}

/* The 8 corners of a frustum (clip cube, zero-to-one depth, mapped back); false when singular. */
bool rec_frustum_corners(const sr_mat4 *view_projection, sr_vec3 corners[8])
{
    sr_mat4 inverse;
    if (!sr_mat4_inverse(*view_projection, &inverse))
        return false;
    for (int i = 0; i < 8; i++) {
        sr_vec4 clip = sr_vec4_make(i & 1 ? 1.0f : -1.0f, i & 2 ? 1.0f : -1.0f, i & 4 ? 1.0f : 0.0f, 1.0f);
        sr_vec4 world = sr_mat4_mul_vec4(inverse, clip);
        if (!(fabsf(world.w) > 1e-20f))
            return false;
        corners[i] = sr_vec3_make(world.x / world.w, world.y / world.w, world.z / world.w);
    }
    return true;
}

/* The radius of a sphere around a shape item's position that holds it in any rotation. */
float rec_shape_reach(const sr_debug_list *list, const sr_debug_item *item)
{
    const sr_debug_item_shape *s = &item->shape;
    float reach = 0.0f;
    switch (s->type) {
    case SR_SHAPE_SPHERE:
        reach = s->radius;
        break;
    case SR_SHAPE_BOX:
        reach = sr_vec3_length(s->half_extents);
        break;
    case SR_SHAPE_CAPSULE:
        reach = s->radius + s->half_height;
        break;
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        reach = sqrtf(s->radius * s->radius + s->half_height * s->half_height);
        break;
    case SR_SHAPE_HULL: {
        const sr_vec3 *points = sr_debug_list_item_points(list, item);
        for (uint32_t i = 0; points && i < s->count; i++)
            reach = fmaxf(reach, sr_vec3_length(points[i]));
        return reach; // the wire's points hold the rounding already
    }
    default: // a point, a segment, a triangle: its points in its frame
        for (int k = 0; k < 3; k++)
            reach = fmaxf(reach, sr_vec3_length(s->points[k]));
        break;
    }
    return reach + s->rounding;
}

static void item_bounds(const sr_debug_list *list, const sr_debug_item *item, sr_aabb *box)
{
    switch (item->kind) {
    case SR_DEBUG_ITEM_LINE:
    case SR_DEBUG_ITEM_ARROW:
        grow_box(box, item->line.a);
        grow_box(box, item->line.b);
        break;
    case SR_DEBUG_ITEM_POINT:
    case SR_DEBUG_ITEM_DOT:
        grow_box(box, item->point.position);
        break;
    case SR_DEBUG_ITEM_BOX:
        for (int i = 0; i < 8; i++) {
            sr_aabb b = item->box.box;
            sr_vec3 corner = {i & 1 ? b.max.x : b.min.x, i & 2 ? b.max.y : b.min.y, i & 4 ? b.max.z : b.min.z};
            grow_box(box, rec_affine_point(&item->box.transform, corner));
        }
        break;
    case SR_DEBUG_ITEM_SPHERE:
    case SR_DEBUG_ITEM_ORIENTED_SPHERE:
        grow_ball(box, item->sphere.centre, item->sphere.radius);
        break;
    case SR_DEBUG_ITEM_CAPSULE:
    case SR_DEBUG_ITEM_CYLINDER:
    case SR_DEBUG_ITEM_CONE:
        grow_ball(box, item->segment.a, item->kind == SR_DEBUG_ITEM_CONE ? 0.0f : item->segment.radius);
        grow_ball(box, item->segment.b, item->segment.radius);
        break;
    case SR_DEBUG_ITEM_CIRCLE:
        grow_ball(box, item->circle.centre, item->circle.radius);
        break;
    case SR_DEBUG_ITEM_FRUSTUM: {
        sr_vec3 corners[8];
        if (rec_frustum_corners(&item->frustum.view_projection, corners))
            for (int i = 0; i < 8; i++)
                grow_box(box, corners[i]);
        break;
    }
    case SR_DEBUG_ITEM_AXES:
        grow_box(box, rec_affine_point(&item->axes.transform, sr_vec3_make(0, 0, 0)));
        for (int axis = 0; axis < 3; axis++) {
            float l = item->axes.length;
            grow_box(box, rec_affine_point(&item->axes.transform,
                                       sr_vec3_make(axis == 0 ? l : 0.0f, axis == 1 ? l : 0.0f, axis == 2 ? l : 0.0f)));
        }
        break;
    case SR_DEBUG_ITEM_GRID: {
        float h = item->grid.size * 0.5f;
        sr_vec3 c = item->grid.centre;
        grow_box(box, sr_vec3_make(c.x - h, c.y, c.z - h));
        grow_box(box, sr_vec3_make(c.x + h, c.y, c.z + h));
        break;
    }
    case SR_DEBUG_ITEM_TRIANGLE:
        grow_box(box, item->triangle.a);
        grow_box(box, item->triangle.b);
        grow_box(box, item->triangle.c);
        break;
    case SR_DEBUG_ITEM_POLYLINE: {
        const sr_vec3 *points = sr_debug_list_item_points(list, item);
        for (uint32_t i = 0; points && i < item->polyline.count; i++)
            grow_box(box, points[i]);
        break;
    }
    case SR_DEBUG_ITEM_TEXT:
        grow_box(box, item->text.anchor);
        break;
    case SR_DEBUG_ITEM_SHAPE: {
        float reach = rec_shape_reach(list, item);
        grow_box(box, sr_vec3_sub(item->shape.position, sr_vec3_make(reach, reach, reach)));
        grow_box(box, sr_vec3_add(item->shape.position, sr_vec3_make(reach, reach, reach)));
        break;
    }
    case SR_DEBUG_ITEM_TEXT_2D:
    case SR_DEBUG_ITEM_RECT_2D:
    case SR_DEBUG_ITEM_KIND_COUNT:
        break;
    }
}

sr_aabb sr_recording_frame_bounds(const sr_recording *rec)
{
    sr_aabb box = sr_aabb_empty();
    if (!rec || !rec->has_current)
        return box;
    const sr_recording_frame *f = &rec->current;
    if (f->scene) {
        sr_aabb scene = sr_scene_bounds(f->scene);
        if (!sr_aabb_is_empty(scene)) {
            grow_box(&box, scene.min);
            grow_box(&box, scene.max);
        }
    }
    for (size_t l = 0; l < f->list_count; l++) {
        size_t count = 0;
        const sr_debug_item *items = sr_debug_list_items(f->lists[l], &count);
        for (size_t i = 0; i < count; i++)
            item_bounds(f->lists[l], &items[i], &box);
    }
    return box;
}

sr_status sr_recording_fit_camera(sr_recording *rec, uint64_t first, uint64_t last, float aspect, sr_camera *camera,
                                  sr_error *err)
{
    if (!rec || !camera)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recording_fit_camera: %s is NULL",
                            rec ? "camera" : "rec");
    if (first > last || last >= rec->frame_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "%s: frames %llu to %llu are not a range of its %llu frames", rec->path,
                            (unsigned long long)first, (unsigned long long)last, (unsigned long long)rec->frame_count);
    sr_aabb box = sr_aabb_empty();
    for (uint64_t f = first; f <= last; f++) {
        sr_status status = sr_recording_seek(rec, f, NULL, err);
        if (status != SR_OK)
            return status;
        sr_aabb b = sr_recording_frame_bounds(rec);
        if (!sr_aabb_is_empty(b)) {
            grow_box(&box, b.min);
            grow_box(&box, b.max);
        }
    }
    *camera = sr_camera_fit_box(box, sr_vec3_make(0.0f, 1.0f, 0.0f), aspect);
    return SR_OK;
}

/* ---- drawing ---- */

/* The camera sr_recording_render and sr_recording_pick_item use. */
sr_status rec_frame_camera(const sr_recording *rec, const sr_camera *given, int width, int height, sr_camera *camera,
                           sr_error *err)
{
    if (given)
        *camera = *given;
    else if (rec->current.has_camera)
        *camera = rec->current.camera;
    else
        *camera = sr_camera_fit_box(sr_recording_frame_bounds(rec), sr_vec3_make(0.0f, 1.0f, 0.0f),
                                    (float)width / (float)height);
    *camera = sr_camera_resolve(camera);
    return sr_camera_check(camera, err);
}

sr_status sr_recording_render(sr_recording *rec, sr_renderer *renderer, sr_framebuffer *fb,
                              const sr_recording_render_desc *desc, sr_error *err)
{
    sr_status status = rec_need_frame(rec, "sr_recording_render", err);
    if (status != SR_OK)
        return status;
    if (!renderer || !fb)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recording_render: %s is NULL",
                            renderer ? "fb" : "renderer");
    sr_recording_render_desc d = desc ? *desc : (sr_recording_render_desc){0};
    sr_camera camera;
    status = rec_frame_camera(rec, d.camera, fb->width, fb->height, &camera, err);
    if (status != SR_OK)
        return status;
    if (d.camera_used)
        *d.camera_used = camera;
    const sr_recording_frame *f = &rec->current;
    bool scene = f->scene && !d.no_scene;
    uint32_t background = d.background ? d.background
                          : scene      ? sr_scene_background(f->scene)
                                       : SR_BENCH_SCENE_BACKGROUND;
    if (fb->ids)
        for (size_t i = 0; i < (size_t)fb->width * (size_t)fb->height; i++)
            fb->ids[i] = SR_NO_ID;
    if (scene) {
        if (d.background)
            sr_renderer_clear(renderer, fb, background, 1.0f);
        status = sr_scene_render(f->scene, &(sr_scene_render_desc){.camera = &camera, .no_clear = d.background != 0},
                                 renderer, fb, d.scene_frame, err);
        if (status != SR_OK)
            return status;
    } else {
        sr_renderer_clear(renderer, fb, background, 1.0f);
    }
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, fb->width, fb->height, &view, &projection);
    sr_mat4 view_projection = sr_mat4_mul(projection, view);
    for (size_t l = 0; l < f->list_count; l++) {
        if (d.lists_shown && !d.lists_shown[l])
            continue;
        status = sr_debug_draw(f->lists[l], renderer, fb, view_projection, err);
        if (status != SR_OK)
            return status;
    }
    return SR_OK;
}
