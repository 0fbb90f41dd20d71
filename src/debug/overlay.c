/* src/debug/overlay.c — the overlays (softrast/debug.h): what the queries did, drawn from their
 * real results only — the instance tree's and the mesh BVHs' own nodes, the frame's visible and
 * culled sets, sr_scene_pick's answer, the nodes each pixel's pick visited — into a debug list.
 * Knows the public APIs of scene, bvh and geom; nothing of SDL. */
#include "debug_internal.h"
#include "font.h"

#include <softrast/bvh.h>
#include <softrast/bvh_dynamic.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MESH_BVH_LEVELS 5

/* ---- colours ---- */

/* Linear interpolation through `count` RGB stops at positions spread evenly over [0, 1]. */
static uint32_t ramp(const float stops[][3], int count, float x)
{
    x = x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
    float position = x * (float)(count - 1);
    int i = (int)position;
    if (i >= count - 1)
        i = count - 2;
    float f = position - (float)i;
    float c[3];
    for (int k = 0; k < 3; k++)
        c[k] = stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f;
    return sr_rgba8(c[0], c[1], c[2], 1.0f);
}

uint32_t sr_overlay_level_color(int depth, int first, int last)
{
    static const float stops[5][3] = {
        {0.25f, 0.45f, 1.0f}, {0.2f, 0.9f, 1.0f}, {0.3f, 0.95f, 0.35f}, {1.0f, 0.9f, 0.2f}, {1.0f, 0.3f, 0.25f}};
    float x = last > first ? (float)(depth - first) / (float)(last - first) : 0.0f;
    return ramp(stops, 5, x);
}

uint32_t sr_overlay_heat_color(uint32_t value, uint32_t max)
{
    static const float stops[6][3] = {{0.0f, 0.0f, 0.0f},  {0.35f, 0.05f, 0.55f}, {0.85f, 0.1f, 0.3f},
                                      {1.0f, 0.5f, 0.05f}, {1.0f, 0.9f, 0.2f},    {1.0f, 1.0f, 1.0f}};
    return ramp(stops, 6, max > 0 ? (float)value / (float)max : 0.0f);
}

/* ---- parsing ---- */

/* "A-B" after a colon: a depth range. */
static bool parse_range(const char *text, size_t length, int *low, int *high)
{
    char buffer[32];
    if (length == 0 || length >= sizeof buffer)
        return false;
    memcpy(buffer, text, length);
    buffer[length] = '\0';
    char *dash = strchr(buffer, '-'), *end = NULL;
    if (!dash)
        return false;
    *dash = '\0';
    long a = strtol(buffer, &end, 10);
    if (end == buffer || *end != '\0')
        return false;
    long b = strtol(dash + 1, &end, 10);
    if (end == dash + 1 || *end != '\0' || a < 0 || b < a || b > 255)
        return false;
    *low = (int)a;
    *high = (int)b;
    return true;
}

static bool parse_point(const char *text, size_t length, float *x, float *y)
{
    char buffer[64];
    if (length == 0 || length >= sizeof buffer)
        return false;
    memcpy(buffer, text, length);
    buffer[length] = '\0';
    char *comma = strchr(buffer, ','), *end = NULL;
    if (!comma)
        return false;
    *comma = '\0';
    *x = strtof(buffer, &end);
    if (end == buffer || *end != '\0' || !isfinite(*x))
        return false;
    *y = strtof(comma + 1, &end);
    return end != comma + 1 && *end == '\0' && isfinite(*y);
}

sr_status sr_overlay_parse(const char *text, sr_overlay_desc *desc, sr_error *err)
{
    if (!text || !desc)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_overlay_parse: %s is NULL", text ? "desc" : "text");
    static const struct {
        const char *name;
        uint32_t bit;
    } names[] = {{"bvh", SR_OVERLAY_BVH},         {"mesh-bvh", SR_OVERLAY_MESH_BVH},
                 {"bounds", SR_OVERLAY_BOUNDS},   {"normals", SR_OVERLAY_NORMALS},
                 {"wire", SR_OVERLAY_WIRE},       {"pick", SR_OVERLAY_PICK},
                 {"frustum", SR_OVERLAY_FRUSTUM}, {"heat", SR_OVERLAY_HEAT},
                 {"axes", SR_OVERLAY_AXES},       {"grid", SR_OVERLAY_GRID},
                 {"hud", SR_OVERLAY_HUD},         {"contacts", SR_OVERLAY_CONTACTS},
                 {"closest", SR_OVERLAY_CLOSEST}, {"pairs", SR_OVERLAY_PAIRS}};
    sr_overlay_desc d = *desc;
    const char *p = text;
    if (*p == '\0')
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "overlay list is empty");
    while (*p) {
        // An item ends at the next comma, except inside "pick:X,Y" whose value has one.
        const char *colon = NULL, *end = p;
        while (*end && *end != ',' && *end != ':')
            end++;
        size_t name_length = (size_t)(end - p);
        const char *value = NULL;
        size_t value_length = 0;
        if (*end == ':') {
            colon = end;
            value = colon + 1;
            bool is_pick = name_length == 4 && strncmp(p, "pick", 4) == 0;
            const char *stop = value;
            while (*stop && (*stop != ',' || is_pick)) {
                if (*stop == ',' && is_pick) {
                    is_pick = false; // the one comma between X and Y
                }
                stop++;
            }
            value_length = (size_t)(stop - value);
            end = stop;
        }
        int which = -1;
        for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
            if (strlen(names[i].name) == name_length && strncmp(p, names[i].name, name_length) == 0)
                which = i;
        if (which < 0)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                "overlay '%.*s': unknown (known: bvh[:A-B], mesh-bvh[:A-B], bounds, normals, wire, "
                                "pick:X,Y, frustum, heat, axes, grid, hud, contacts, closest, pairs)",
                                (int)name_length, p);
        uint32_t bit = names[which].bit;
        if (bit == SR_OVERLAY_BVH || bit == SR_OVERLAY_MESH_BVH) {
            if (value) {
                int low, high;
                if (!parse_range(value, value_length, &low, &high))
                    return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                        "overlay '%s:%.*s': expected a depth range A-B with 0 <= A <= B <= 255",
                                        names[which].name, (int)value_length, value);
                if (bit == SR_OVERLAY_BVH) {
                    d.bvh_range = true;
                    d.bvh_min = low;
                    d.bvh_max = high;
                } else {
                    d.mesh_bvh_range = true;
                    d.mesh_bvh_min = low;
                    d.mesh_bvh_max = high;
                }
            }
        } else if (bit == SR_OVERLAY_PICK) {
            if (!value || !parse_point(value, value_length, &d.pick_x, &d.pick_y))
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                    "overlay 'pick%s%.*s': expected pick:X,Y (window pixels, e.g. pick:640.5,360.5)",
                                    value ? ":" : "", (int)value_length, value ? value : "");
        } else if (value) {
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "overlay '%s' takes no value (found ':%.*s')",
                                names[which].name, (int)value_length, value);
        }
        d.items |= bit;
        p = *end ? end + 1 : end;
        if (*end == ',' && *p == '\0')
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "overlay list '%s' ends with a comma", text);
    }
    *desc = d;
    return SR_OK;
}

/* ---- the overlays ---- */

typedef struct tree_walk {
    sr_debug_list *list;
    int first, last;
} tree_walk;

static bool draw_tree_node(void *user, const sr_dynamic_tree_node_info *node)
{
    tree_walk *walk = user;
    if (node->depth >= walk->first && node->depth <= walk->last)
        sr_debug_aabb(
            walk->list, node->box,
            (sr_debug_style){.color = sr_overlay_level_color(node->depth, walk->first, walk->last), .on_top = true});
    return true;
}

static int tree_height(const sr_dynamic_tree *tree)
{
    return sr_dynamic_tree_get_stats(tree).height;
}

/* The nodes of a mesh BVH between depths first and last, in the instance's world space. */
static void draw_mesh_bvh(sr_debug_list *list, const sr_bvh *bvh, sr_mat4 world, int first, int last)
{
    if (!bvh || bvh->node_count == 0)
        return;
    uint32_t stack[SR_BVH_MAX_DEPTH * 2 + 2];
    uint8_t depths[SR_BVH_MAX_DEPTH * 2 + 2];
    int top = 0;
    stack[top] = 0;
    depths[top++] = 0;
    while (top > 0) {
        top--;
        uint32_t index = stack[top];
        int depth = depths[top];
        const sr_bvh_node *node = &bvh->nodes[index];
        if (depth >= first && depth <= last)
            sr_debug_box(list, (sr_aabb){node->min, node->max}, world,
                         (sr_debug_style){.color = sr_overlay_level_color(depth, first, last), .on_top = true});
        if (node->count == 0 && depth < last && top + 2 <= (int)(sizeof stack / sizeof stack[0])) {
            stack[top] = node->first;
            depths[top++] = (uint8_t)(depth + 1);
            stack[top] = node->first + 1;
            depths[top++] = (uint8_t)(depth + 1);
        }
    }
}

/* A short line along each vertex normal, 5% of the instance's box diagonal long. */
static void draw_normals(sr_debug_list *list, const sr_mesh *mesh, const sr_node_info *info)
{
    if (!mesh->normals)
        return;
    sr_mat4 inverse;
    if (!sr_mat4_inverse(info->world, &inverse))
        return;
    sr_mat4 normal_matrix = sr_mat4_transpose(inverse);
    float length = 0.05f * sr_vec3_length(sr_aabb_extent(info->world_aabb));
    sr_debug_style style = {.color = SR_OVERLAY_COLOR_NORMAL};
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        sr_vec3 p = sr_mat4_transform_point(info->world, mesh->positions[v]);
        sr_vec3 n = sr_vec3_normalize(sr_mat4_transform_direction(normal_matrix, mesh->normals[v]));
        sr_debug_line(list, p, sr_vec3_add(p, sr_vec3_scale(n, length)), style);
    }
}

static void draw_wire(sr_debug_list *list, const sr_mesh *mesh, const sr_node_info *info)
{
    sr_debug_style style = {.color = SR_OVERLAY_COLOR_WIRE};
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        const uint32_t *tri = &mesh->indices[3 * t];
        sr_debug_triangle(list, sr_mat4_transform_point(info->world, mesh->positions[tri[0]]),
                          sr_mat4_transform_point(info->world, mesh->positions[tri[1]]),
                          sr_mat4_transform_point(info->world, mesh->positions[tri[2]]), style);
    }
}

static void draw_pick(sr_debug_list *list, const sr_scene *scene, const sr_pick_hit *hit)
{
    if (!hit->hit) {
        // A miss: the ray to the far plane.
        sr_debug_ray(list, &hit->ray, 0.0f, (sr_debug_style){.color = SR_OVERLAY_COLOR_RAY, .on_top = true});
        return;
    }
    sr_node_info info;
    if (sr_scene_node(scene, hit->node, &info, NULL) != SR_OK)
        return;
    const sr_mesh *mesh = sr_scene_mesh(scene, info.mesh);
    sr_debug_line(list, hit->ray.origin, hit->position,
                  (sr_debug_style){.color = SR_OVERLAY_COLOR_RAY, .on_top = true});
    sr_debug_aabb(list, info.world_aabb, (sr_debug_style){.color = SR_OVERLAY_COLOR_PICKED, .on_top = true});
    if (mesh && hit->triangle < mesh->triangle_count) {
        const uint32_t *tri = &mesh->indices[3 * hit->triangle];
        sr_debug_triangle(list, sr_mat4_transform_point(info.world, mesh->positions[tri[0]]),
                          sr_mat4_transform_point(info.world, mesh->positions[tri[1]]),
                          sr_mat4_transform_point(info.world, mesh->positions[tri[2]]),
                          (sr_debug_style){.color = SR_OVERLAY_COLOR_HIT, .width = 2, .on_top = true});
    }
    float length = 0.15f * sr_vec3_length(sr_aabb_extent(info.world_aabb));
    sr_debug_arrow(list, hit->position, sr_vec3_add(hit->position, sr_vec3_scale(hit->normal, length)),
                   (sr_debug_style){.color = SR_OVERLAY_COLOR_HIT_NORMAL, .width = 2, .on_top = true});
    sr_debug_point(list, hit->position, 12.0f,
                   (sr_debug_style){.color = SR_OVERLAY_COLOR_HIT, .width = 2, .on_top = true});
}

/* The legend of the BVH levels: a coloured square and the depth per level, at text scale `scale`. */
static void draw_level_legend(sr_debug_list *list, const char *title, int first, int last, float x, float *y, int scale)
{
    const float s = (float)scale;
    sr_debug_style text = {.color = SR_DEBUG_WHITE, .width = scale};
    sr_debug_text_2d(list, x, *y, title, text);
    *y += (float)sr_font_cell_height(scale) + 2.0f * s;
    int shown = last - first + 1 > 16 ? 16 : last - first + 1;
    for (int i = 0; i < shown; i++) {
        int depth = first + (int)((long)i * (last - first) / (shown > 1 ? shown - 1 : 1));
        char label[16];
        snprintf(label, sizeof label, "%d", depth);
        float cx = x + (float)i * 22.0f * s;
        sr_debug_rect_2d(list, cx, *y, 10.0f * s, 10.0f * s, true,
                         (sr_debug_style){.color = sr_overlay_level_color(depth, first, last)});
        sr_debug_text_2d(list, cx, *y + 12.0f * s, label, text);
    }
    *y += 12.0f * s + (float)sr_font_cell_height(scale) + 6.0f * s;
}

/* The heat map's legend at the bottom right, at text scale `scale`. */
static void draw_heat_legend(sr_debug_list *list, uint32_t max, int width, int height, int scale)
{
    const float s = (float)scale, cell = (float)sr_font_cell_height(scale);
    const float bar_width = 200.0f * s, bar_height = 12.0f * s;
    float x = (float)width - bar_width - 16.0f * s, y = (float)height - bar_height - 2.0f * cell - 14.0f * s;
    if (x < 4.0f)
        x = 4.0f;
    sr_debug_rect_2d(list, x - 6.0f * s, y - cell - 8.0f * s, bar_width + 12.0f * s,
                     bar_height + 2.0f * cell + 20.0f * s, true,
                     (sr_debug_style){.color = sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f)});
    sr_debug_text_2d(list, x, y - cell - 3.0f * s, "BVH nodes visited per pixel",
                     (sr_debug_style){.color = SR_DEBUG_WHITE, .width = scale});
    for (int i = 0; i < (int)bar_width; i++) {
        uint32_t value = (uint32_t)((double)max * i / (bar_width - 1.0f) + 0.5);
        sr_debug_rect_2d(list, x + (float)i, y, 1.0f, bar_height, true,
                         (sr_debug_style){.color = sr_overlay_heat_color(value, max)});
    }
    sr_debug_rect_2d(list, x, y, bar_width, bar_height, false, (sr_debug_style){.color = 0xffffffffu, .on_top = true});
    char label[32];
    const int ticks = 5;
    for (int k = 0; k < ticks; k++) {
        uint32_t value = (uint32_t)((double)max * k / (ticks - 1) + 0.5);
        snprintf(label, sizeof label, "%u", value);
        int label_width, label_height;
        sr_font_measure(label, scale, &label_width, &label_height);
        float tx = x + bar_width * (float)k / (float)(ticks - 1) - (float)label_width * 0.5f;
        sr_debug_rect_2d(list, x + bar_width * (float)k / (float)(ticks - 1) - 0.5f * s, y + bar_height, s, 3.0f * s,
                         true, (sr_debug_style){.color = SR_DEBUG_WHITE});
        sr_debug_text_2d(list, tx, y + bar_height + 4.0f * s, label, (sr_debug_style){.color = SR_DEBUG_WHITE, .width = scale});
    }
}

int sr_overlay_text_scale(int width, int height)
{
    int scale = width / 640 < height / 360 ? width / 640 : height / 360;
    return scale < 1 ? 1 : scale > 4 ? 4 : scale;
}

void sr_overlay_text_size(const char *text, int scale, int *width, int *height)
{
    sr_font_measure(text, scale, width, height);
}

/* Appends printf output to `out` (size bytes, *used filled); keeps it NUL-terminated. */
static void append(char *out, size_t size, size_t *used, const char *format, ...) __attribute__((format(printf, 4, 5)));
static void append(char *out, size_t size, size_t *used, const char *format, ...)
{
    if (*used + 1 >= size)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(out + *used, size - *used, format, args);
    va_end(args);
    if (n > 0)
        *used = (size_t)n < size - *used ? *used + (size_t)n : size - 1;
}

/* The name on the HUD's first line, cut to keep the box narrow. */
#define HUD_NAME_MAX 24

size_t sr_overlay_hud_text(const sr_scene *scene, const sr_scene_frame *frame, const sr_overlay_desc *desc,
                           const sr_pick_hit *pick, char *out, size_t size)
{
    if (!out || size == 0)
        return 0;
    out[0] = '\0';
    if (!scene || !frame || !desc)
        return 0;
    size_t used = 0;
    sr_scene_stats stats = sr_scene_frame_stats(frame);
    const char *name = sr_scene_name(scene);
    if (strlen(name) > HUD_NAME_MAX)
        append(out, size, &used, "%.*s...\n", HUD_NAME_MAX - 3, name);
    else
        append(out, size, &used, "%s\n", name);
    double ms = desc->frame_ms > 0.0 ? desc->frame_ms : stats.update_ms + stats.cull_ms + stats.draw_ms;
    append(out, size, &used, "frame %.*f ms", ms < 10.0 ? 2 : 1, ms);
    if (desc->fps > 0.0)
        append(out, size, &used, ", %.0f fps", desc->fps);
    append(out, size, &used, "\ninstances %u of %u\ntriangles %llu of %llu\nfragments %llu\ndraw calls %u",
           stats.instances_drawn, stats.instances_total, (unsigned long long)stats.triangles_drawn,
           (unsigned long long)stats.triangles_submitted, (unsigned long long)stats.fragments_shaded, stats.draw_calls);
    if (pick) {
        sr_node_info info;
        if (!pick->hit) {
            append(out, size, &used, "\npick: nothing");
        } else {
            bool named = sr_scene_node(scene, pick->node, &info, NULL) == SR_OK;
            append(out, size, &used, "\npick: %.*s #%u\n triangle %u, t %.4g", HUD_NAME_MAX - 8,
                   named ? info.name : "?", pick->node.index, pick->triangle, (double)pick->t);
            append(out, size, &used, "\n at %.3g %.3g %.3g\n normal %.2f %.2f %.2f", (double)pick->position.x,
                   (double)pick->position.y, (double)pick->position.z, (double)pick->normal.x, (double)pick->normal.y,
                   (double)pick->normal.z);
        }
        append(out, size, &used, "\n %u BVH nodes visited", pick->nodes_visited);
    }
    if (desc->collision) {
        char collision[256];
        sr_overlay_collision_text(desc->collision, collision, sizeof collision);
        append(out, size, &used, "\n%s", collision);
    }
    if (desc->hud_text && desc->hud_text[0])
        append(out, size, &used, "\n%s", desc->hud_text);
    return used;
}

sr_status sr_overlay_add(const sr_scene *scene, const sr_scene_frame *frame, const sr_camera *camera, int width,
                         int height, const sr_overlay_desc *desc, sr_debug_list *list, sr_error *err)
{
    if (!scene || !frame || !desc || !list)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_overlay_add: %s is NULL",
                            !scene   ? "scene"
                            : !frame ? "frame"
                            : !desc  ? "desc"
                                     : "list");
    sr_camera scene_camera = sr_scene_camera(scene);
    sr_camera view = sr_camera_resolve(camera ? camera : &scene_camera);
    sr_status status = sr_camera_check(&view, err);
    if (status != SR_OK)
        return status;
    const uint32_t items = desc->items;
    const sr_node_id *visible = NULL, *culled = NULL;
    size_t visible_count = sr_scene_frame_visible(frame, &visible);
    size_t culled_count = sr_scene_frame_culled(frame, &culled);

    if (items & SR_OVERLAY_GRID) {
        // Around the scene's drawn instances, in steps of a power of ten.
        sr_aabb box = sr_aabb_empty();
        for (size_t i = 0; i < visible_count; i++) {
            sr_node_info info;
            if (sr_scene_node(scene, visible[i], &info, NULL) == SR_OK)
                box = sr_aabb_merge(box, info.world_aabb);
        }
        float extent = sr_aabb_is_empty(box) ? 10.0f : fmaxf(sr_aabb_extent(box).x, sr_aabb_extent(box).z);
        float step = powf(10.0f, floorf(log10f(fmaxf(extent, 1e-3f) / 2.0f)));
        int divisions = (int)ceilf(extent / step) + 2;
        divisions += divisions % 2;
        if (divisions > 400)
            divisions = 400;
        sr_vec3 centre = sr_aabb_is_empty(box) ? sr_vec3_splat(0.0f) : sr_aabb_centre(box);
        centre = sr_vec3_make(roundf(centre.x / step) * step, 0.0f, roundf(centre.z / step) * step);
        sr_debug_grid(list, centre, step * (float)divisions, divisions,
                      (sr_debug_style){.color = SR_OVERLAY_COLOR_GRID});
    }
    if (items & SR_OVERLAY_AXES) {
        float length = 1.0f;
        sr_debug_axes(list, sr_mat4_identity(), length, (sr_debug_style){.width = 2, .on_top = true});
    }
    if (items & (SR_OVERLAY_BOUNDS | SR_OVERLAY_NORMALS | SR_OVERLAY_WIRE | SR_OVERLAY_MESH_BVH)) {
        int mesh_first = desc->mesh_bvh_range ? desc->mesh_bvh_min : 0;
        int mesh_last = desc->mesh_bvh_range ? desc->mesh_bvh_max : DEFAULT_MESH_BVH_LEVELS;
        for (size_t i = 0; i < visible_count; i++) {
            sr_node_info info;
            if (sr_scene_node(scene, visible[i], &info, NULL) != SR_OK)
                continue;
            const sr_mesh *mesh = sr_scene_mesh(scene, info.mesh);
            if (items & SR_OVERLAY_WIRE)
                draw_wire(list, mesh, &info);
            if (items & SR_OVERLAY_NORMALS)
                draw_normals(list, mesh, &info);
            if (items & SR_OVERLAY_MESH_BVH)
                draw_mesh_bvh(list, sr_scene_mesh_bvh(scene, info.mesh), info.world, mesh_first, mesh_last);
            if (items & SR_OVERLAY_BOUNDS)
                sr_debug_aabb(list, info.world_aabb,
                              (sr_debug_style){.color = SR_OVERLAY_COLOR_BOUNDS, .on_top = true});
        }
    }
    int tree_first = 0, tree_last = 0;
    if (items & SR_OVERLAY_BVH) {
        const sr_dynamic_tree *tree = sr_scene_instance_tree(scene);
        tree_first = desc->bvh_range ? desc->bvh_min : 0;
        tree_last = desc->bvh_range ? desc->bvh_max : tree_height(tree);
        tree_walk walk = {list, tree_first, tree_last};
        sr_dynamic_tree_query_stats stats = sr_dynamic_tree_visit_nodes(tree, draw_tree_node, &walk, err);
        if (stats.status != SR_OK)
            return stats.status;
    }
    if (items & SR_OVERLAY_FRUSTUM) {
        sr_camera cull = desc->cull_camera ? sr_camera_resolve(desc->cull_camera) : view;
        sr_debug_camera_frustum(list, &cull, width, height,
                                (sr_debug_style){.color = SR_OVERLAY_COLOR_FRUSTUM, .width = 2, .on_top = true});
        for (size_t i = 0; i < culled_count; i++) {
            sr_node_info info;
            if (sr_scene_node(scene, culled[i], &info, NULL) == SR_OK)
                sr_debug_aabb(list, info.world_aabb, (sr_debug_style){.color = SR_OVERLAY_COLOR_CULLED});
        }
    }
    const int scale =
        desc->text_scale >= 1 && desc->text_scale <= 4 ? desc->text_scale : sr_overlay_text_scale(width, height);
    sr_pick_hit hit = {0};
    if (items & SR_OVERLAY_PICK) {
        if (desc->pick_hit)
            hit = *desc->pick_hit;
        else
            status = sr_scene_pick(scene, desc->cull_camera ? desc->cull_camera : &view, width, height, desc->pick_x,
                                   desc->pick_y, &hit, err);
        if (status != SR_OK)
            return status;
        draw_pick(list, scene, &hit);
    }
    sr_overlay_add_collision(scene, &view, height, desc, scale, list);
    sr_debug_list *hud = desc->hud_list ? desc->hud_list : list;
    if (items & SR_OVERLAY_HEAT)
        draw_heat_legend(hud, desc->heat_max, width, height, scale);
    if (items & SR_OVERLAY_HUD) {
        char text[2048];
        sr_overlay_hud_text(scene, frame, desc, (items & SR_OVERLAY_PICK) ? &hit : NULL, text, sizeof text);
        // A box of the text's size plus a margin of a cell's third, all in proportion to the scale.
        const float s = (float)scale, margin = 6.0f * s;
        int text_width, text_height;
        sr_font_measure(text, scale, &text_width, &text_height);
        sr_debug_rect_2d(hud, 4.0f * s, 4.0f * s, (float)text_width + 2.0f * margin,
                         (float)text_height + 2.0f * margin, true,
                         (sr_debug_style){.color = sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f)});
        sr_debug_text_2d(hud, 4.0f * s + margin, 4.0f * s + margin, text,
                         (sr_debug_style){.color = SR_DEBUG_WHITE, .width = scale});
        float y = 4.0f * s + (float)text_height + 2.0f * margin + 8.0f * s;
        if (items & SR_OVERLAY_BVH)
            draw_level_legend(hud, "instance BVH depth", tree_first, tree_last, 4.0f * s + margin, &y, scale);
        if (items & SR_OVERLAY_MESH_BVH)
            draw_level_legend(hud, "mesh BVH depth", desc->mesh_bvh_range ? desc->mesh_bvh_min : 0,
                              desc->mesh_bvh_range ? desc->mesh_bvh_max : DEFAULT_MESH_BVH_LEVELS, 4.0f * s + margin,
                              &y, scale);
    }
    return SR_OK;
}

sr_status sr_overlay_heat(const sr_scene *scene, const sr_camera *camera, sr_framebuffer *fb, int threads,
                          uint32_t *counts, uint32_t *max_out, sr_error *err)
{
    if (!scene || !fb)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_overlay_heat: %s is NULL", scene ? "fb" : "scene");
    size_t pixels = (size_t)fb->width * (size_t)fb->height;
    // Points and hits for one row at a time, so that memory stays small for large frames.
    sr_vec2 *points = sr_alloc_array((size_t)fb->width, sizeof *points);
    sr_pick_hit *hits = sr_alloc_array((size_t)fb->width, sizeof *hits);
    uint32_t *values = counts ? counts : sr_alloc_array(pixels, sizeof *values);
    sr_status status = points && hits && values
                           ? SR_OK
                           : sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_overlay_heat: out of memory for %dx%d",
                                          fb->width, fb->height);
    uint32_t max = 0;
    for (int y = 0; y < fb->height && status == SR_OK; y++) {
        for (int x = 0; x < fb->width; x++)
            points[x] = sr_vec2_make((float)x + 0.5f, (float)y + 0.5f);
        status =
            sr_scene_pick_many(scene, camera, fb->width, fb->height, points, (size_t)fb->width, threads, hits, err);
        for (int x = 0; x < fb->width && status == SR_OK; x++) {
            uint32_t value = hits[x].nodes_visited;
            values[(size_t)y * (size_t)fb->width + (size_t)x] = value;
            max = value > max ? value : max;
        }
    }
    if (status == SR_OK) {
        for (size_t p = 0; p < pixels; p++)
            fb->color[p] = sr_overlay_heat_color(values[p], max);
        if (max_out)
            *max_out = max;
    }
    sr_free(points);
    sr_free(hits);
    if (values != counts)
        sr_free(values);
    return status;
}
