/* src/debug/overlay_collide.c — the overlays of the collision pass (softrast/debug.h:
 * SR_OVERLAY_CONTACTS, _CLOSEST, _PAIRS, and the HUD's lines about it), drawn from the pass's
 * own answers (sr_collision of sr_scene_collide), and sr_debug_contact, the contact marker they
 * and a user's physics step share. Contacts lie inside the shapes (half-way through the overlap),
 * so they are drawn on top of everything, as physics engines' debug views draw them. Knows the
 * public APIs of scene and geom; nothing of SDL. */
#include "debug_internal.h"
#include "font.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The contact arrow's length on screen: from this for a touching contact ... */
#define ARROW_MIN_PX 16.0f
/* ... to this for the deepest contact of the pass. */
#define ARROW_MAX_PX 72.0f
/* Labels start this far right of (or below) the point they name. */
#define LABEL_OFFSET_PX 7.0f

void sr_debug_contact(sr_debug_list *list, sr_vec3 point, sr_vec3 normal, const sr_debug_contact_desc *desc)
{
    if (!list)
        return;
    sr_debug_contact_desc d = desc ? *desc : (sr_debug_contact_desc){0};
    uint32_t point_color = d.point_color ? d.point_color : SR_OVERLAY_COLOR_CONTACT;
    uint32_t normal_color = d.normal_color ? d.normal_color : SR_OVERLAY_COLOR_CONTACT_NORMAL;
    bool on_top = !d.depth_tested;
    if (d.length > 0.0f && isfinite(d.length))
        sr_debug_arrow(list, point, sr_vec3_add(point, sr_vec3_scale(sr_vec3_normalize(normal), d.length)),
                       sr_debug_style_make(normal_color, d.width > 0 ? d.width : 2, on_top));
    sr_debug_dot(list, point, d.point_px > 0.0f ? d.point_px : 7.0f, sr_debug_style_make(point_color, 1, on_top));
    if (d.text && d.text[0])
        sr_debug_text(list, d.text_at, d.text, sr_debug_style_make(point_color, d.width > 0 ? d.width : 1, on_top));
}

float sr_overlay_pixels_per_unit(const sr_camera *camera, int height, sr_vec3 point)
{
    if (!camera || height < 1)
        return 0.0f;
    sr_camera c = sr_camera_resolve(camera);
    if (sr_camera_check(&c, NULL) != SR_OK)
        return 0.0f;
    if (c.projection == SR_PROJECTION_ORTHOGRAPHIC)
        return (float)height / c.height;
    sr_vec3 forward = sr_vec3_normalize(sr_vec3_sub(c.target, c.eye));
    float distance = sr_vec3_dot(sr_vec3_sub(point, c.eye), forward);
    if (!(distance > 0.0f))
        return 0.0f;
    return (float)height / (2.0f * distance * tanf(0.5f * c.fov_y_degrees * SR_PI / 180.0f));
}

/* What a label for a point needs: where a few pixels right of or below it are in the world. */
typedef struct label_frame {
    const sr_camera *camera;
    int height;
    int scale;           ///< of the text
    sr_vec3 right, down; ///< the camera's right and screen-down directions, unit
} label_frame;

/* The top-left corner of the label of `point` from which a line (an arrow, a segment) leaves in
 * world direction `along`: right of the point, centred on it, beside a line that runs mostly up
 * or down the screen; below it, beside one that runs mostly across. */
static sr_vec3 label_anchor(const label_frame *frame, sr_vec3 point, sr_vec3 along)
{
    float per_unit = sr_overlay_pixels_per_unit(frame->camera, frame->height, point);
    if (!(per_unit > 0.0f))
        return point;
    float across = fabsf(sr_vec3_dot(along, frame->right)), up_down = fabsf(sr_vec3_dot(along, frame->down));
    float right_px, down_px;
    if (across > up_down) {
        right_px = 2.0f;
        down_px = LABEL_OFFSET_PX - 2.0f;
    } else {
        right_px = LABEL_OFFSET_PX;
        down_px = -0.5f * (float)(SR_FONT_BASELINE * frame->scale);
    }
    return sr_vec3_add(point, sr_vec3_add(sr_vec3_scale(frame->right, right_px / per_unit),
                                          sr_vec3_scale(frame->down, down_px / per_unit)));
}

/* The centre of a node's shape's world box (false when the node has no shape any more). */
static bool shape_centre(const sr_scene *scene, sr_node_id node, sr_vec3 *out)
{
    sr_node_shape shape;
    if (sr_scene_node_shape(scene, node, &shape, NULL) != SR_OK)
        return false;
    sr_dbox box = shape.world_bounds;
    *out = sr_vec3_make((float)(0.5 * (box.min.x + box.max.x)), (float)(0.5 * (box.min.y + box.max.y)),
                        (float)(0.5 * (box.min.z + box.max.z)));
    return true;
}

static void draw_pairs(const sr_scene *scene, const sr_collision *collision, sr_debug_list *list)
{
    for (size_t i = 0; i < collision->pair_count; i++) {
        const sr_collision_pair *pair = &collision->pairs[i];
        sr_vec3 a, b;
        if (!shape_centre(scene, pair->a, &a) || !shape_centre(scene, pair->b, &b))
            continue;
        uint32_t color = pair->state == SR_PAIR_CONTACT ? SR_OVERLAY_COLOR_CONTACT
                         : pair->state == SR_PAIR_NEAR  ? SR_OVERLAY_COLOR_CLOSEST
                                                        : SR_OVERLAY_COLOR_APART;
        sr_debug_line(list, a, b, sr_debug_style_make(color, 1, true));
        sr_debug_dot(list, a, 4.0f, sr_debug_style_make(color, 1, true));
        sr_debug_dot(list, b, 4.0f, sr_debug_style_make(color, 1, true));
    }
}

static void draw_closest(const sr_collision *collision, const label_frame *frame, int scale, sr_debug_list *list)
{
    const sr_debug_style style = sr_debug_style_make(SR_OVERLAY_COLOR_CLOSEST, 2, true);
    for (size_t i = 0; i < collision->near_count; i++) {
        const sr_contact *near = &collision->near[i];
        sr_vec3 a = sr_dvec3_to_vec3(near->point_a), b = sr_dvec3_to_vec3(near->point_b);
        sr_debug_line(list, a, b, style);
        sr_debug_dot(list, a, 5.0f, sr_debug_style_make(SR_OVERLAY_COLOR_CLOSEST, 1, true));
        sr_debug_dot(list, b, 5.0f, sr_debug_style_make(SR_OVERLAY_COLOR_CLOSEST, 1, true));
        char label[32];
        snprintf(label, sizeof label, "%.3g", near->distance);
        sr_debug_text(list, label_anchor(frame, sr_dvec3_to_vec3(near->point), sr_vec3_sub(b, a)), label,
                      sr_debug_style_make(SR_OVERLAY_COLOR_CLOSEST, scale, true));
    }
}

/* A contact's depth as its label: 3 significant digits, and "0" for touching contacts and for
 * depths below 1e-6 of the point's distance from the origin (at least 1), the rounding of the
 * float transforms that place the shapes (a crate resting on a floor is not 1e-8 deep). */
static void depth_label(double depth, sr_dvec3 point, char *out, size_t size)
{
    double scale = fmax(1.0, fmax(fabs(point.x), fmax(fabs(point.y), fabs(point.z))));
    if (!(depth > 1e-6 * scale))
        snprintf(out, size, "0");
    else
        snprintf(out, size, "%.3g", depth);
}

/* A label's box on screen, in pixels from the image's centre (x right, y down). */
typedef struct label_box {
    float x0, y0, x1, y1;
} label_box;

/* Where `anchor` falls on screen, from the image's centre, for the label frame's camera. */
static bool screen_offset(const label_frame *frame, sr_vec3 anchor, float *x, float *y)
{
    float per_unit = sr_overlay_pixels_per_unit(frame->camera, frame->height, anchor);
    if (!(per_unit > 0.0f))
        return false;
    sr_vec3 d = sr_vec3_sub(anchor, frame->camera->eye);
    *x = sr_vec3_dot(d, frame->right) * per_unit;
    *y = sr_vec3_dot(d, frame->down) * per_unit;
    return isfinite(*x) && isfinite(*y);
}

/* Whether a label `text` at `anchor` would overlap one of the `count` labels already placed; if
 * not, it is placed (added to `placed`, which holds `capacity`). Labels past the capacity are
 * placed without the check. */
static bool place_label(const label_frame *frame, sr_vec3 anchor, const char *text, label_box *placed, size_t *count,
                        size_t capacity)
{
    float x, y;
    if (!screen_offset(frame, anchor, &x, &y))
        return true;
    int width = 0, height = 0;
    sr_overlay_text_size(text, frame->scale, &width, &height);
    label_box box = {x, y, x + (float)width, y + (float)height};
    for (size_t i = 0; i < *count; i++)
        if (box.x0 < placed[i].x1 && placed[i].x0 < box.x1 && box.y0 < placed[i].y1 && placed[i].y0 < box.y1)
            return false;
    if (*count < capacity)
        placed[(*count)++] = box;
    return true;
}

/* The contacts' order for their labels: deepest first (ties in the pass's order). */
static int deeper_first(const void *a, const void *b)
{
    const sr_contact *const *x = a, *const *y = b;
    if ((*x)->distance != (*y)->distance)
        return (*x)->distance < (*y)->distance ? -1 : 1;
    return *x < *y ? -1 : *x > *y;
}

static void draw_contacts(const sr_collision *collision, const label_frame *frame, int scale, sr_debug_list *list)
{
    double deepest = 0.0;
    for (size_t i = 0; i < collision->contact_count; i++)
        deepest = fmax(deepest, -collision->contacts[i].distance);
    // A pile's contacts crowd the screen: a depth label that would overlap a deeper contact's
    // label is left out (its dot and arrow stay), so the labels that are drawn can be read.
    // Without memory for the order, every label is drawn.
    size_t n = collision->contact_count;
    const sr_contact **order = n ? sr_alloc(n * sizeof *order) : NULL;
    label_box *placed = n ? sr_alloc(n * sizeof *placed) : NULL;
    size_t placed_count = 0;
    if (order && placed) {
        for (size_t i = 0; i < n; i++)
            order[i] = &collision->contacts[i];
        qsort(order, n, sizeof *order, deeper_first);
    }
    for (size_t k = 0; k < n; k++) {
        const sr_contact *contact = order && placed ? order[k] : &collision->contacts[k];
        sr_vec3 point = sr_dvec3_to_vec3(contact->point);
        double depth = contact->distance < 0.0 ? -contact->distance : 0.0;
        float px = ARROW_MIN_PX + (deepest > 0.0 ? (float)(depth / deepest) : 0.0f) * (ARROW_MAX_PX - ARROW_MIN_PX);
        float per_unit = sr_overlay_pixels_per_unit(frame->camera, frame->height, point);
        char label[32];
        depth_label(depth, contact->point, label, sizeof label);
        sr_vec3 anchor = label_anchor(frame, point, sr_dvec3_to_vec3(contact->normal));
        bool labelled = !(order && placed) || place_label(frame, anchor, label, placed, &placed_count, n);
        sr_debug_contact(list, point, sr_dvec3_to_vec3(contact->normal),
                         &(sr_debug_contact_desc){.length = per_unit > 0.0f ? px / per_unit : 0.0f,
                                                  .text = labelled ? label : NULL,
                                                  .text_at = anchor,
                                                  .width = scale > 1 ? scale : 0});
    }
    sr_free(order);
    sr_free(placed);
}

void sr_overlay_add_collision(const sr_scene *scene, const sr_camera *camera, int height,
                              const sr_overlay_desc *desc, int scale, sr_debug_list *list)
{
    const sr_collision *collision = desc->collision;
    if (!collision || !(desc->items & (SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS)))
        return;
    sr_camera c = sr_camera_resolve(camera);
    sr_vec3 forward = sr_vec3_normalize(sr_vec3_sub(c.target, c.eye));
    sr_vec3 right = sr_vec3_normalize(sr_vec3_cross(forward, c.up));
    label_frame frame = {&c, height, scale, right, sr_vec3_cross(forward, right)};
    // Pairs first, under the answers they lead to.
    if (desc->items & SR_OVERLAY_PAIRS)
        draw_pairs(scene, collision, list);
    if (desc->items & SR_OVERLAY_CLOSEST)
        draw_closest(collision, &frame, scale, list);
    if (desc->items & SR_OVERLAY_CONTACTS)
        draw_contacts(collision, &frame, scale, list);
}

size_t sr_overlay_collision_text(const sr_collision *collision, char *out, size_t size)
{
    if (!out || size == 0)
        return 0;
    out[0] = '\0';
    if (!collision)
        return 0;
    const sr_collision_stats *s = &collision->stats;
    int n = snprintf(out, size, "collide %u shapes\n %u pairs, %u queries\n %u contacts, %u near\n %.2f + %.2f ms",
                     s->shapes, s->pairs, s->tests, s->contacts, s->near, s->broadphase_ms, s->narrowphase_ms);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
