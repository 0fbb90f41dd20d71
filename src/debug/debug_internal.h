/* src/debug/debug_internal.h — the storage of sr_debug_list, shared by debug_list.c (capacities,
 * reading), debug_items.c (the public functions that add items), debug_tessellate.c (items into
 * segments and triangles) and debug_draw.c (drawing). Never installed. */
#ifndef SR_DEBUG_INTERNAL_H
#define SR_DEBUG_INTERNAL_H

#include <softrast/debug.h>

/// Segments of a full circle (spheres, cylinders, capsules, cones, circles).
#define SR_DEBUG_CIRCLE_SEGMENTS 32

struct sr_debug_list {
    sr_debug_item *items;
    size_t item_count, item_capacity, items_asked;
    /// Segments and filled triangles the kept items are drawn with (budgets of the scratch below).
    size_t segment_count, segment_capacity, segments_asked;
    size_t triangle_count, triangle_capacity, triangles_asked;
    sr_vec3 *points; ///< polylines' and polygons' points
    size_t point_count, point_capacity, points_asked;
    size_t text_count, text_capacity, texts_asked;
    char *bytes; ///< texts, each NUL-terminated
    size_t byte_count, byte_capacity, bytes_asked;
    /// Scratch of sr_debug_draw: two line vertices per segment, three per filled triangle.
    sr_line_vertex *segment_scratch, *triangle_scratch;
    /// Bumped by every item added (kept or dropped) and every clear (sr_debug_list_generation).
    uint64_t generation;
    /// Where sr_debug_list_begin starts an item when the list is full (it is then dropped).
    sr_debug_item spare;
};

/// What an item costs: the segments and filled triangles it is drawn with (at most; an item
/// outside the view may draw fewer), and the points and text bytes it stores.
typedef struct debug_cost {
    size_t segments, triangles, points, bytes;
} debug_cost;

/// Starts an item of `kind` in the list's next slot (zeroed, kind and style set, the width
/// clamped), or in a spare item when the list is full, so the caller fills it in place either
/// way; sr_debug_list_commit then keeps or drops it.
sr_debug_item *sr_debug_list_begin(sr_debug_list *list, sr_debug_item_kind kind, sr_debug_style style);
/// Keeps the item sr_debug_list_begin started when it and its cost fit, copying `points` (a
/// polyline's, item->polyline.count of them) or `text` (a text item's, item->text.length bytes
/// and a NUL) into the list and pointing the item at them; otherwise drops it. Both are
/// counted (stats, growth at the next clear) and bump the generation.
void sr_debug_list_commit(sr_debug_list *list, sr_debug_item *item, const sr_vec3 *points, const char *text);

/// The segments and filled triangles `item` is drawn with (debug_tessellate.c; what
/// sr_debug_tessellate writes at most), and the points and text bytes it keeps.
debug_cost sr_debug_item_cost(const sr_debug_item *item);

/// Where sr_debug_tessellate writes: segments (pairs of line vertices) and triangles (triples),
/// each array with room for the item's cost.
typedef struct debug_sink {
    sr_line_vertex *segments;
    size_t segment_count;
    sr_line_vertex *triangles;
    size_t triangle_count;
} debug_sink;

/// What the screen-sized items need: the view and the framebuffer's size (markers and 2D
/// rectangle outlines are made in normalised device coordinates).
typedef struct debug_view {
    sr_mat4 view_projection;
    int width, height;
} debug_view;

/// Appends the segments and filled triangles of `item` (world space, or normalised device
/// coordinates for markers and rectangle outlines: sr_debug_item_is_screen) to `sink`.
void sr_debug_tessellate(const sr_debug_item *item, const sr_vec3 *points, const debug_view *view, debug_sink *sink);

/// Whether the item's segments are in normalised device coordinates (markers, 2D rectangles).
static inline bool sr_debug_item_is_screen(const sr_debug_item *item)
{
    return item->kind == SR_DEBUG_ITEM_POINT || item->kind == SR_DEBUG_ITEM_RECT_2D;
}

/// The collision overlays of `desc` (SR_OVERLAY_CONTACTS, _CLOSEST, _PAIRS) from desc->collision,
/// labels at text scale `scale`, for a `height`-pixel-high frame seen by `camera` (overlay_collide.c).
void sr_overlay_add_collision(const sr_scene *scene, const sr_camera *camera, int height,
                              const sr_overlay_desc *desc, int scale, sr_debug_list *list);

#endif
