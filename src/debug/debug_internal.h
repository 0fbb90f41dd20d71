/* src/debug/debug_internal.h — the storage of sr_debug_list, shared by debug_list.c (capacities,
 * reading), debug_items.c (the public functions that add items), debug_shape.c (collide shapes'
 * items) and debug_shape_wire.c (their wires), debug_tessellate.c (items into segments and
 * triangles) and debug_draw.c (drawing). Never installed. */
#ifndef SR_DEBUG_INTERNAL_H
#define SR_DEBUG_INTERNAL_H

#include <softrast/debug.h>

/// Segments of a full circle (spheres, cylinders, capsules, cones, circles).
#define SR_DEBUG_CIRCLE_SEGMENTS 32

/// Where sr_debug_draw makes the segments (two line vertices each) and filled triangles (three).
struct sr_debug_scratch {
    sr_line_vertex *segments, *triangles;
    size_t segment_vertices, triangle_vertices; ///< their capacities, in vertices
};

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
    /// Scratch of sr_debug_draw, with room for segment_capacity segments and triangle_capacity
    /// triangles: `own`, or a shared one (sr_debug_list_desc.scratch).
    sr_debug_scratch *scratch, own;
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
/// polyline's, item->polyline.count of them, or a shape's, item->shape.count) or `text` (a text
/// item's, item->text.length bytes and a NUL) into the list and pointing the item at them;
/// otherwise drops it. Both are counted (stats, growth at the next clear) and bump the
/// generation. `points` may be the space sr_debug_list_point_space gave (then nothing is copied).
void sr_debug_list_commit(sr_debug_list *list, sr_debug_item *item, const sr_vec3 *points, const char *text);
/// Where the next `count` points would be kept, so that an item can write its points there
/// before sr_debug_list_commit (a hull's wire, made without a copy); NULL when they do not fit.
sr_vec3 *sr_debug_list_point_space(sr_debug_list *list, size_t count);

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

/// Appends the segment p-q coloured color_p at p and color_q at q (a segment both of whose colours
/// are fully transparent is left out).
void sr_debug_sink_segment(debug_sink *sink, sr_vec3 p, sr_vec3 q, uint32_t color_p, uint32_t color_q);

/* ---- collide shapes (debug_shape.c, debug_shape_wire.c) ---- */

/// The segments a SR_DEBUG_ITEM_SHAPE item is drawn with (what sr_debug_shape_tessellate writes).
size_t sr_debug_shape_segments(const sr_debug_item *item);
/// Appends a SR_DEBUG_ITEM_SHAPE item's wire, in world space, to `sink`.
void sr_debug_shape_tessellate(const sr_debug_item *item, const sr_vec3 *points, debug_sink *sink);
/// Adds a copy of a shape item with its points (sr_debug_list_append); a count its type cannot
/// have, or sizes that are negative or not finite, add nothing.
void sr_debug_shape_append(sr_debug_list *list, const sr_debug_item *item, const sr_vec3 *points);

/// Where a wire goes (debug_shape_wire.c): segments in the shape's local frame, counted always;
/// written, when `sink` is set, through the pose (`position`, rotation columns `axes`) into the
/// sink in `color`, or, when `pairs` is set, as pairs of local ends.
typedef struct debug_wire {
    debug_sink *sink;
    sr_vec3 position, axes[3];
    uint32_t color;
    sr_vec3 *pairs;
    size_t count;
} debug_wire;

void sr_debug_wire_line(debug_wire *wire, sr_vec3 p, sr_vec3 q);
/// A solid of revolution around the axis `z_axis` through `origin` (unit axes x, y, z): the core
/// profile `core` (count points (rho, z), from the bottom of the axis up its side to the top,
/// convex) swept around, rounded by `rounding`: its rings and its profile in the four half
/// planes of +x, +y, -x, -y (sphere, capsule, cylinder, cone, rounded point and segment).
void sr_debug_wire_revolved(debug_wire *wire, sr_vec3 origin, const sr_vec3 axes[3], const sr_vec2 *core, int count,
                            float rounding);
/// A polytope's edges (a hull's view; any dimension), or, rounded, its faces moved out along
/// their normals and the arcs around its edges. `edge_faces` gives each edge's two faces.
void sr_debug_wire_polytope(debug_wire *wire, const sr_hull_view *view, const uint32_t *edge_faces, float rounding);

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
