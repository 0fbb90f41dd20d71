/* src/record/record_pick.c — picking the current frame's debug items under a window point
 * (solids by the ray through the pixel, outlines by their distance on screen) and finding a
 * picked item again in another frame. */
#include "record_reader.h"

#include <math.h>
#include <stdio.h>

/* ---- picking ---- */

/* A world point on the window: x, y in pixels (y down), window depth, clip w. */
typedef struct screen_point {
    double x, y, depth, w;
} screen_point;

typedef struct pick_view {
    double vp[16]; ///< column-major view-projection
    int width, height;
    double pixels_per_unit; ///< projection's y scale * height / 2 (divide by w for a length at depth w)
    sr_ray ray;             ///< through the window point
    double px, py;          ///< the window point
} pick_view;

static void clip_of(const pick_view *v, sr_vec3 p, double clip[4])
{
    for (int r = 0; r < 4; r++)
        clip[r] = v->vp[r] * p.x + v->vp[4 + r] * p.y + v->vp[8 + r] * p.z + v->vp[12 + r];
}

static screen_point to_screen(const pick_view *v, const double clip[4])
{
    screen_point s;
    s.w = clip[3];
    s.x = (clip[0] / clip[3] * 0.5 + 0.5) * v->width;
    s.y = (0.5 - clip[1] / clip[3] * 0.5) * v->height;
    s.depth = clip[2] / clip[3];
    return s;
}

/* The nearest approach of a world segment to the window point: distance in pixels and window
 * depth there, after clipping the segment to the space in front of the eye. */
typedef struct approach {
    double distance, depth;
    sr_vec3 position;
} approach;

static bool segment_approach(const pick_view *v, sr_vec3 a, sr_vec3 b, approach *out)
{
    double ca[4], cb[4];
    clip_of(v, a, ca);
    clip_of(v, b, cb);
    const double near_w = 1e-6;
    double ta = 0.0, tb = 1.0;
    if (ca[3] < near_w && cb[3] < near_w)
        return false;
    if (ca[3] < near_w)
        ta = (near_w - ca[3]) / (cb[3] - ca[3]);
    if (cb[3] < near_w)
        tb = (near_w - ca[3]) / (cb[3] - ca[3]);
    double pa[4], pb[4];
    for (int k = 0; k < 4; k++) {
        pa[k] = ca[k] + (cb[k] - ca[k]) * ta;
        pb[k] = ca[k] + (cb[k] - ca[k]) * tb;
    }
    screen_point sa = to_screen(v, pa), sb = to_screen(v, pb);
    double dx = sb.x - sa.x, dy = sb.y - sa.y, length2 = dx * dx + dy * dy;
    double s = length2 > 0.0 ? ((v->px - sa.x) * dx + (v->py - sa.y) * dy) / length2 : 0.0;
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    double x = sa.x + s * dx - v->px, y = sa.y + s * dy - v->py;
    double distance = sqrt(x * x + y * y);
    if (!isfinite(distance))
        return false;
    // The point on screen at s is, in clip space, at the parameter whose 1/w interpolates linearly.
    double inv = (1.0 - s) / pa[3] + s / pb[3];
    double t_clip = (s / pb[3]) / inv; // from pa to pb
    double t = ta + (tb - ta) * t_clip;
    out->distance = distance;
    out->depth = sa.depth + s * (sb.depth - sa.depth);
    out->position =
        sr_vec3_make((float)(a.x + (b.x - a.x) * t), (float)(a.y + (b.y - a.y) * t), (float)(a.z + (b.z - a.z) * t));
    return true;
}

static void keep_nearer(approach *best, bool *found, const approach *candidate)
{
    if (!*found || candidate->distance < best->distance ||
        (candidate->distance == best->distance && candidate->depth < best->depth)) {
        *best = *candidate;
        *found = true;
    }
}

static void edges_approach(const pick_view *v, const sr_vec3 *points, const uint8_t (*edges)[2], int edge_count,
                           approach *best, bool *found)
{
    for (int e = 0; e < edge_count; e++) {
        approach a;
        if (segment_approach(v, points[edges[e][0]], points[edges[e][1]], &a))
            keep_nearer(best, found, &a);
    }
}

static const uint8_t box_edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                         {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};

/* A hit of the window point's ray on a solid at ray distance t: distance 0, its depth. */
static approach hit_at(const pick_view *v, double t)
{
    sr_vec3 p = sr_ray_at(&v->ray, (float)t);
    double clip[4];
    clip_of(v, p, clip);
    approach a = {0.0, clip[3] > 0.0 ? clip[2] / clip[3] : 1.0, p};
    return a;
}

/* Distance from the ray to segment a-b (closest points), and the ray parameter there. */
static double ray_segment_distance(const sr_ray *ray, sr_vec3 a, sr_vec3 b, double *t_ray)
{
    double o[3] = {ray->origin.x, ray->origin.y, ray->origin.z},
           d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
    double p[3] = {a.x, a.y, a.z}, e[3] = {b.x - a.x, b.y - a.y, b.z - a.z}, r[3];
    for (int k = 0; k < 3; k++)
        r[k] = o[k] - p[k];
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    double de = d[0] * e[0] + d[1] * e[1] + d[2] * e[2], dr = d[0] * r[0] + d[1] * r[1] + d[2] * r[2];
    double er = e[0] * r[0] + e[1] * r[1] + e[2] * r[2];
    double denominator = dd * ee - de * de, s = 0.0, t = 0.0;
    if (denominator > 1e-12 * dd * ee)
        s = (dd * er - de * dr) / denominator; // the closest points of the two lines
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    t = (de * s - dr) / dd;
    if (t < 0.0)
        t = 0.0, s = ee > 0.0 ? fmin(1.0, fmax(0.0, er / ee)) : 0.0;
    double q[3];
    for (int k = 0; k < 3; k++)
        q[k] = o[k] + d[k] * t - (p[k] + e[k] * s);
    *t_ray = t;
    return sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
}

/* An orthonormal pair perpendicular to n (zero n: the XZ plane). */
static void plane_basis(sr_vec3 n, sr_vec3 *u, sr_vec3 *w)
{
    float length = sqrtf(n.x * n.x + n.y * n.y + n.z * n.z);
    n = length > 0.0f && isfinite(length) ? sr_vec3_scale(n, 1.0f / length) : sr_vec3_make(0, 1, 0);
    sr_vec3 helper = fabsf(n.x) < 0.9f ? sr_vec3_make(1, 0, 0) : sr_vec3_make(0, 1, 0);
    *u = sr_vec3_normalize(sr_vec3_cross(n, helper));
    *w = sr_vec3_cross(n, *u);
}

/* The ray's hit on triangle abc (either face), at ray distance *t. */
static bool ray_triangle_hit(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c, double *t)
{
    sr_triangle_hit hit;
    if (!sr_ray_triangle(ray, a, b, c, &hit))
        return false;
    *t = hit.t;
    return true;
}

/* How near item `item` comes to the window point; false when it cannot be seen there at all. */
static bool item_approach(const pick_view *v, const sr_debug_list *list, const sr_debug_item *item, approach *out)
{
    approach best = {INFINITY, 1.0, {0, 0, 0}};
    bool found = false;
    switch (item->kind) {
    case SR_DEBUG_ITEM_LINE:
    case SR_DEBUG_ITEM_ARROW:
        found = segment_approach(v, item->line.a, item->line.b, &best);
        break;
    case SR_DEBUG_ITEM_POINT:
    case SR_DEBUG_ITEM_DOT: {
        double clip[4];
        clip_of(v, item->point.position, clip);
        if (clip[3] <= 0.0)
            return false;
        screen_point s = to_screen(v, clip);
        double d = hypot(s.x - v->px, s.y - v->py) - item->point.size_px * 0.5;
        best = (approach){d > 0.0 ? d : 0.0, s.depth, item->point.position};
        found = true;
        break;
    }
    case SR_DEBUG_ITEM_BOX: {
        sr_vec3 corners[8];
        sr_aabb b = item->box.box;
        for (int i = 0; i < 8; i++)
            corners[i] =
                rec_affine_point(&item->box.transform, sr_vec3_make(i & 1 ? b.max.x : b.min.x, i & 2 ? b.max.y : b.min.y,
                                                                i & 4 ? b.max.z : b.min.z));
        // Solid: the ray in the box's frame against its extents.
        sr_mat4 m = item->box.transform, inverse;
        m.m[3] = m.m[7] = m.m[11] = 0.0f, m.m[15] = 1.0f;
        if (sr_mat4_inverse(m, &inverse)) {
            sr_vec3 o = sr_mat4_transform_point(inverse, v->ray.origin);
            sr_vec3 e = sr_mat4_transform_point(inverse, sr_vec3_add(v->ray.origin, v->ray.direction));
            sr_ray local = sr_ray_make(o, sr_vec3_sub(e, o), 0.0f, INFINITY);
            float t0, t1;
            if (sr_ray_aabb(&local, &b, &t0, &t1)) {
                // local direction is not unit: t in units of it, the world ray's too
                best = hit_at(v, t0 > 0.0f ? t0 : 0.0f);
                found = true;
                break;
            }
        }
        edges_approach(v, corners, box_edges, 12, &best, &found);
        break;
    }
    case SR_DEBUG_ITEM_SPHERE:
    case SR_DEBUG_ITEM_ORIENTED_SPHERE: {
        double t;
        float r = item->sphere.radius;
        if (ray_segment_distance(&v->ray, item->sphere.centre, item->sphere.centre, &t) <= r) {
            best = hit_at(v, t);
            found = true;
            break;
        }
        double clip[4];
        clip_of(v, item->sphere.centre, clip);
        if (clip[3] <= 0.0)
            return false;
        screen_point s = to_screen(v, clip);
        double radius_px = r * v->pixels_per_unit / (v->vp[15] == 1.0 && v->vp[11] == 0.0 ? 1.0 : clip[3]);
        best = (approach){fabs(hypot(s.x - v->px, s.y - v->py) - radius_px), s.depth, item->sphere.centre};
        found = true;
        break;
    }
    case SR_DEBUG_ITEM_SHAPE: {
        // Its bounding sphere: solid where the ray passes through it, else its outline's distance.
        double t;
        float r = rec_shape_reach(list, item);
        sr_vec3 centre = item->shape.position;
        if (ray_segment_distance(&v->ray, centre, centre, &t) <= r) {
            best = hit_at(v, t);
            found = true;
            break;
        }
        double clip[4];
        clip_of(v, centre, clip);
        if (clip[3] <= 0.0)
            return false;
        screen_point sp = to_screen(v, clip);
        double radius_px = r * v->pixels_per_unit / (v->vp[15] == 1.0 && v->vp[11] == 0.0 ? 1.0 : clip[3]);
        best = (approach){fabs(hypot(sp.x - v->px, sp.y - v->py) - radius_px), sp.depth, centre};
        found = true;
        break;
    }
    case SR_DEBUG_ITEM_CAPSULE:
    case SR_DEBUG_ITEM_CYLINDER:
    case SR_DEBUG_ITEM_CONE: {
        double t;
        float r = item->segment.radius;
        if (ray_segment_distance(&v->ray, item->segment.a, item->segment.b, &t) <= r) {
            best = hit_at(v, t);
            found = true;
            break;
        }
        if (!segment_approach(v, item->segment.a, item->segment.b, &best))
            return false;
        double clip[4];
        clip_of(v, best.position, clip);
        double radius_px = clip[3] > 0.0 ? r * v->pixels_per_unit / clip[3] : 0.0;
        best.distance = best.distance > radius_px ? best.distance - radius_px : 0.0;
        found = true;
        break;
    }
    case SR_DEBUG_ITEM_CIRCLE: {
        sr_vec3 u, w, points[33];
        plane_basis(item->circle.normal, &u, &w);
        for (int i = 0; i <= 32; i++) {
            float angle = (float)(2.0 * M_PI * i / 32.0);
            points[i] =
                sr_vec3_add(item->circle.centre, sr_vec3_add(sr_vec3_scale(u, item->circle.radius * cosf(angle)),
                                                             sr_vec3_scale(w, item->circle.radius * sinf(angle))));
        }
        if (item->circle.fill_color >> 24)
            for (int i = 0; i < 32 && !found; i++) {
                double t;
                if (ray_triangle_hit(&v->ray, item->circle.centre, points[i], points[i + 1], &t)) {
                    best = hit_at(v, t);
                    found = true;
                }
            }
        for (int i = 0; i < 32 && !(found && best.distance == 0.0); i++) {
            approach a;
            if (segment_approach(v, points[i], points[i + 1], &a))
                keep_nearer(&best, &found, &a);
        }
        break;
    }
    case SR_DEBUG_ITEM_FRUSTUM: {
        sr_vec3 corners[8];
        if (!rec_frustum_corners(&item->frustum.view_projection, corners))
            return false;
        edges_approach(v, corners, box_edges, 12, &best, &found);
        break;
    }
    case SR_DEBUG_ITEM_AXES: {
        sr_vec3 origin = rec_affine_point(&item->axes.transform, sr_vec3_make(0, 0, 0));
        for (int axis = 0; axis < 3; axis++) {
            float l = item->axes.length;
            approach a;
            sr_vec3 tip = rec_affine_point(&item->axes.transform,
                                       sr_vec3_make(axis == 0 ? l : 0.0f, axis == 1 ? l : 0.0f, axis == 2 ? l : 0.0f));
            if (segment_approach(v, origin, tip, &a))
                keep_nearer(&best, &found, &a);
        }
        break;
    }
    case SR_DEBUG_ITEM_GRID: {
        float h = item->grid.size * 0.5f;
        sr_vec3 c = item->grid.centre;
        int n = item->grid.divisions;
        for (int i = 0; i <= n; i++) {
            float f = -h + item->grid.size * (float)i / (float)n;
            approach a;
            if (segment_approach(v, sr_vec3_make(c.x + f, c.y, c.z - h), sr_vec3_make(c.x + f, c.y, c.z + h), &a))
                keep_nearer(&best, &found, &a);
            if (segment_approach(v, sr_vec3_make(c.x - h, c.y, c.z + f), sr_vec3_make(c.x + h, c.y, c.z + f), &a))
                keep_nearer(&best, &found, &a);
        }
        break;
    }
    case SR_DEBUG_ITEM_TRIANGLE: {
        double t;
        if ((item->triangle.fill_color >> 24) &&
            ray_triangle_hit(&v->ray, item->triangle.a, item->triangle.b, item->triangle.c, &t)) {
            best = hit_at(v, t);
            found = true;
            break;
        }
        sr_vec3 corners[3] = {item->triangle.a, item->triangle.b, item->triangle.c};
        static const uint8_t edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
        edges_approach(v, corners, edges, 3, &best, &found);
        break;
    }
    case SR_DEBUG_ITEM_POLYLINE: {
        const sr_vec3 *points = sr_debug_list_item_points(list, item);
        uint32_t n = points ? item->polyline.count : 0;
        bool closed = item->polyline.closed && n > 2;
        if (closed && (item->polyline.fill_color >> 24))
            for (uint32_t i = 1; i + 1 < n && !found; i++) {
                double t;
                if (ray_triangle_hit(&v->ray, points[0], points[i], points[i + 1], &t)) {
                    best = hit_at(v, t);
                    found = true;
                }
            }
        for (uint32_t i = 0; i + 1 < n + (closed ? 1u : 0u) && !(found && best.distance == 0.0); i++) {
            approach a;
            if (segment_approach(v, points[i], points[(i + 1) % n], &a))
                keep_nearer(&best, &found, &a);
        }
        break;
    }
    case SR_DEBUG_ITEM_TEXT:
    case SR_DEBUG_ITEM_TEXT_2D:
    case SR_DEBUG_ITEM_RECT_2D: {
        double x, y, width, height, depth = 0.0;
        sr_vec3 position = item->text.anchor;
        if (item->kind == SR_DEBUG_ITEM_RECT_2D) {
            x = item->rect.x, y = item->rect.y, width = item->rect.width, height = item->rect.height;
            position = sr_vec3_make(item->rect.x, item->rect.y, 0.0f);
        } else {
            int w = 0, h = 0;
            sr_overlay_text_size(sr_debug_list_item_text(list, item), item->style.width, &w, &h);
            width = w, height = h;
            if (item->kind == SR_DEBUG_ITEM_TEXT) {
                double clip[4];
                clip_of(v, item->text.anchor, clip);
                if (clip[3] <= 0.0)
                    return false;
                screen_point s = to_screen(v, clip);
                x = s.x, y = s.y, depth = s.depth;
            } else {
                x = item->text.anchor.x, y = item->text.anchor.y;
            }
        }
        double dx = v->px < x ? x - v->px : v->px > x + width ? v->px - (x + width) : 0.0;
        double dy = v->py < y ? y - v->py : v->py > y + height ? v->py - (y + height) : 0.0;
        double d = hypot(dx, dy);
        if (item->kind == SR_DEBUG_ITEM_RECT_2D && !item->rect.filled && d == 0.0) // inside an outline
            d = fmin(fmin(v->px - x, x + width - v->px), fmin(v->py - y, y + height - v->py));
        best = (approach){d, depth, position};
        found = isfinite(d);
        break;
    }
    case SR_DEBUG_ITEM_KIND_COUNT:
        break;
    }
    if (!found)
        return false;
    if (item->style.on_top || item->kind == SR_DEBUG_ITEM_TEXT_2D || item->kind == SR_DEBUG_ITEM_RECT_2D)
        best.depth = -1.0; // drawn over everything: in front of any depth-tested item
    *out = best;
    return true;
}

sr_status sr_recording_pick_item(const sr_recording *rec, const sr_camera *camera, int width, int height, float x,
                                 float y, float radius_px, const bool *lists_shown, sr_recording_item_pick *out,
                                 sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recording_pick_item: out is NULL");
    *out = (sr_recording_item_pick){0};
    sr_status status = rec_need_frame(rec, "sr_recording_pick_item", err);
    if (status != SR_OK)
        return status;
    if (width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE || !isfinite(x) ||
        !isfinite(y))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recording_pick_item: bad size %dx%d or point", width,
                            height);
    sr_camera c;
    status = rec_frame_camera(rec, camera, width, height, &c, err);
    if (status != SR_OK)
        return status;
    pick_view v = {.width = width, .height = height, .px = x, .py = y};
    sr_mat4 view, projection;
    sr_camera_matrices(&c, width, height, &view, &projection);
    sr_mat4 vp = sr_mat4_mul(projection, view);
    for (int k = 0; k < 16; k++)
        v.vp[k] = vp.m[k];
    v.pixels_per_unit = projection.m[5] * height * 0.5;
    v.ray = sr_camera_ray(&c, width, height, x, y);
    double radius = radius_px > 0.0f && isfinite(radius_px) ? radius_px : 6.0;

    const sr_recording_frame *f = &rec->current;
    for (size_t l = 0; l < f->list_count; l++) {
        if (lists_shown && !lists_shown[l])
            continue;
        size_t count = 0;
        const sr_debug_item *items = sr_debug_list_items(f->lists[l], &count);
        for (size_t i = 0; i < count; i++) {
            if (!(items[i].style.color >> 24))
                continue; // drawn invisible
            approach a;
            if (!item_approach(&v, f->lists[l], &items[i], &a) || !(a.distance <= radius))
                continue;
            // Items about as near (within a pixel) go by depth; later items win ties (drawn over).
            bool better = !out->hit || a.distance < out->distance_px - 1.0 ||
                          (a.distance <= out->distance_px + 1.0 && a.depth <= out->depth);
            if (better) {
                *out = (sr_recording_item_pick){true,           (uint32_t)l, (uint32_t)i, items[i], (float)a.distance,
                                                (float)a.depth, a.position};
            }
        }
    }
    return SR_OK;
}

/* ---- finding an item again ---- */

static sr_vec3 item_anchor(const sr_debug_list *list, const sr_debug_item *item)
{
    switch (item->kind) {
    case SR_DEBUG_ITEM_LINE:
    case SR_DEBUG_ITEM_ARROW:
        return sr_vec3_scale(sr_vec3_add(item->line.a, item->line.b), 0.5f);
    case SR_DEBUG_ITEM_POINT:
    case SR_DEBUG_ITEM_DOT:
        return item->point.position;
    case SR_DEBUG_ITEM_BOX:
        return rec_affine_point(&item->box.transform,
                            sr_vec3_scale(sr_vec3_add(item->box.box.min, item->box.box.max), 0.5f));
    case SR_DEBUG_ITEM_SPHERE:
    case SR_DEBUG_ITEM_ORIENTED_SPHERE:
        return item->sphere.centre;
    case SR_DEBUG_ITEM_CAPSULE:
    case SR_DEBUG_ITEM_CYLINDER:
    case SR_DEBUG_ITEM_CONE:
        return sr_vec3_scale(sr_vec3_add(item->segment.a, item->segment.b), 0.5f);
    case SR_DEBUG_ITEM_CIRCLE:
        return item->circle.centre;
    case SR_DEBUG_ITEM_AXES:
        return rec_affine_point(&item->axes.transform, sr_vec3_make(0, 0, 0));
    case SR_DEBUG_ITEM_GRID:
        return item->grid.centre;
    case SR_DEBUG_ITEM_TRIANGLE:
        return sr_vec3_scale(sr_vec3_add(sr_vec3_add(item->triangle.a, item->triangle.b), item->triangle.c),
                             1.0f / 3.0f);
    case SR_DEBUG_ITEM_POLYLINE: {
        const sr_vec3 *points = sr_debug_list_item_points(list, item);
        sr_vec3 sum = {0, 0, 0};
        for (uint32_t i = 0; points && i < item->polyline.count; i++)
            sum = sr_vec3_add(sum, points[i]);
        return item->polyline.count ? sr_vec3_scale(sum, 1.0f / (float)item->polyline.count) : sum;
    }
    case SR_DEBUG_ITEM_TEXT:
    case SR_DEBUG_ITEM_TEXT_2D:
        return item->text.anchor;
    case SR_DEBUG_ITEM_RECT_2D:
        return sr_vec3_make(item->rect.x + item->rect.width * 0.5f, item->rect.y + item->rect.height * 0.5f, 0.0f);
    case SR_DEBUG_ITEM_SHAPE:
        return item->shape.position;
    case SR_DEBUG_ITEM_FRUSTUM:
    case SR_DEBUG_ITEM_KIND_COUNT:
        break;
    }
    return sr_vec3_make(0, 0, 0);
}

bool sr_recording_find_item(const sr_recording *rec, const sr_recording_item_pick *previous,
                            sr_recording_item_pick *out)
{
    if (!rec || !previous || !out || !rec->has_current || !previous->hit)
        return false;
    const sr_recording_frame *f = &rec->current;
    if (previous->list >= f->list_count)
        return false;
    const sr_debug_list *list = f->lists[previous->list];
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(list, &count);
    // The previous item's anchor: its own list is gone, but its parameters are in the copy (a
    // polyline's points are not: its place in the list stands in).
    sr_vec3 anchor =
        previous->item.kind == SR_DEBUG_ITEM_POLYLINE ? previous->position : item_anchor(NULL, &previous->item);
    size_t best = SIZE_MAX;
    double best_distance = INFINITY;
    for (size_t i = 0; i < count; i++) {
        const sr_debug_item *item = &items[i];
        if (item->kind != previous->item.kind || item->style.color != previous->item.style.color)
            continue;
        sr_vec3 d = sr_vec3_sub(item_anchor(list, item), anchor);
        double distance = previous->item.kind == SR_DEBUG_ITEM_POLYLINE || previous->item.kind == SR_DEBUG_ITEM_FRUSTUM
                              ? fabs((double)i - previous->index)
                              : sqrt((double)d.x * d.x + (double)d.y * d.y + (double)d.z * d.z);
        if (!isfinite(distance))
            distance = fabs((double)i - previous->index) + 1e30;
        if (distance < best_distance || (distance == best_distance && i == previous->index)) {
            best = i;
            best_distance = distance;
        }
    }
    if (best == SIZE_MAX)
        return false;
    *out = (sr_recording_item_pick){true,
                                    previous->list,
                                    (uint32_t)best,
                                    items[best],
                                    previous->distance_px,
                                    previous->depth,
                                    item_anchor(list, &items[best])};
    return true;
}
