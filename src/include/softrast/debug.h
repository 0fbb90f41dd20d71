/* softrast/debug.h — the collision debug renderer: immediate-mode draw lists that any code fills
 * (lines, boxes, spheres, capsules, arrows, points and dots, circles, filled polygons, frustums,
 * text), kept as the shapes' parameters and drawn over a frame through the pipeline's line and
 * triangle rasterisers, and the overlays that show what the geometry queries did (BVH nodes,
 * bounds, normals, wireframes, picks, frustums and culling, heat maps, a HUD), built only from
 * the public queries of geom, bvh and scene.
 * Stands on scene, collide, raster, bvh, geom; knows nothing of SDL. Like Box2D's b2DebugDraw or Jolt's
 * DebugRenderer, but the list is data: fill it from a physics step, draw it over any frame.
 * Bullet's btIDebugDraw and Box2D's b2Draw on a list: softrast/bullet_draw.hpp, box2d_draw.hpp. */
#ifndef SOFTRAST_DEBUG_H
#define SOFTRAST_DEBUG_H

#include <softrast/collide.h>
#include <softrast/core.h>
#include <softrast/geom.h>
#include <softrast/math.h>
#include <softrast/raster.h>
#include <softrast/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Draw lists (src/debug/debug_list.c, debug_items.c, debug_draw.c, debug_tessellate.c)         */

/// An immediate-mode list of debug items for one frame. Items are kept as their parameters (a
/// sphere is a centre and a radius, a box its extents and pose) and turned into segments and
/// triangles only by sr_debug_draw, so a recorder can read them (sr_debug_list_items). Filling
/// never allocates: items past a capacity are dropped and counted; sr_debug_list_clear grows the
/// capacities, between frames, to what the last frame asked for (sokol_gl's way). Not
/// thread-safe: one list per filling thread (draw several lists over one frame). Free with
/// sr_debug_list_destroy.
typedef struct sr_debug_list sr_debug_list;

/// The memory sr_debug_draw makes a list's segments and filled triangles in (two line vertices,
/// 56 bytes, a segment; three a triangle). Each list has its own unless it is made with a shared
/// one (sr_debug_list_desc.scratch): lists that are kept but drawn one at a time (the frames of
/// a recording's cache) then hold only their items. Grows to the largest capacities of the lists
/// that use it, when they are made or cleared (never while drawing). Free with
/// sr_debug_scratch_destroy, after the lists made with it.
typedef struct sr_debug_scratch sr_debug_scratch;

sr_status sr_debug_scratch_create(sr_debug_scratch **out, sr_error *err);
void sr_debug_scratch_destroy(sr_debug_scratch *scratch);
/// The memory the scratch holds, in bytes (0 for NULL).
size_t sr_debug_scratch_bytes(const sr_debug_scratch *scratch);
/// The segments it has room for: the most a list drawn in it draws without it growing (0 for NULL).
size_t sr_debug_scratch_segments(const sr_debug_scratch *scratch);

/// The capacities of a list; zero fields take their defaults. An item is kept only when it
/// fits in all of them (a sphere takes one item and 96 segments).
typedef struct sr_debug_list_desc {
    size_t segment_capacity;  ///< line segments the items are drawn with; 0 = 16384
    size_t text_capacity;     ///< text items; 0 = 256
    size_t text_bytes;        ///< bytes of text; 0 = 16384
    size_t item_capacity;     ///< items of every kind; 0 = 16384
    size_t triangle_capacity; ///< filled triangles (polygons, circles, triangles); 0 = 4096
    size_t point_capacity;    ///< points of polylines and polygons; 0 = 4096
    /// NULL: the list has its own draw scratch. Otherwise the list draws in this one, shared with
    /// the other lists made with it: they must be drawn one at a time (never two at once from two
    /// threads), and the scratch must outlive them.
    sr_debug_scratch *scratch;
    /// Write every page of the list's arrays and of its draw scratch (a shared one too) at
    /// creation, so that its first fill and draw do not wait for the system to hand out fresh
    /// memory (a list made ahead of the frame that fills it).
    bool touch_memory;
} sr_debug_list_desc;

sr_status sr_debug_list_create(const sr_debug_list_desc *desc, sr_debug_list **out, sr_error *err);
void sr_debug_list_destroy(sr_debug_list *list);

/// Empties the list for the next frame, first growing its capacities to hold everything the
/// frame just ended asked for (dropped items included). Errors: out of memory (the list is
/// emptied and keeps its old capacities).
sr_status sr_debug_list_clear(sr_debug_list *list, sr_error *err);

/// What a list holds and what it dropped since the last clear.
typedef struct sr_debug_list_stats {
    size_t segments, texts, text_bytes;     ///< stored: segments the items draw, text items, bytes
    size_t segments_dropped, texts_dropped; ///< of the items dropped past a capacity
    size_t segment_capacity, text_capacity, text_byte_capacity;
    size_t items, triangles, points;        ///< stored: items of every kind, filled triangles, points
    size_t items_dropped;                   ///< items of every kind dropped past a capacity
    size_t item_capacity, triangle_capacity, point_capacity;
    size_t scratch_bytes; ///< its own draw scratch's memory (0 when it draws in a shared one)
} sr_debug_list_stats;

sr_debug_list_stats sr_debug_list_get_stats(const sr_debug_list *list);

/// A counter that changes whenever the list's contents may have: every item added (kept or
/// dropped) and every sr_debug_list_clear bump it. A viewer that keeps a list's pointer across
/// frames compares it to the value it last drew to notice a list cleared and refilled in place.
/// Never decreases; 0 for a new list and for NULL.
uint64_t sr_debug_list_generation(const sr_debug_list *list);

/* ---- style and colours ---- */

/// How an item is drawn.
///
/// Colours are sr_rgba8 values, and always mean what they say: alpha blends, and a colour whose
/// alpha is 0 (such as 0, fully transparent black) draws nothing. A zeroed style is therefore
/// invisible: name a colour (SR_DEBUG_WHITE, sr_rgba8(...)), most readably with
/// sr_debug_style_make, which reads the same in C and C++.
typedef struct sr_debug_style {
    uint32_t color; ///< sr_rgba8 (alpha blends; alpha 0 draws nothing)
    int width;      ///< line width in pixels, 1 to 4; 0 means 1. For text: the scale, 1 to 4
    /// false: tested against the scene's depth (LESS_EQUAL, with SR_DEBUG_DEPTH_BIAS, so lines
    /// drawn on a surface show); text and dots are then hidden when their anchor is behind the
    /// scene. true: drawn over everything. The same for every kind of item.
    bool on_top;
} sr_debug_style;

/// Opaque colours for debug drawing (sr_rgba8 values; sr_rgba8 makes any other).
#define SR_DEBUG_WHITE 0xffffffffu
#define SR_DEBUG_BLACK 0xff000000u
#define SR_DEBUG_RED 0xff3340f2u
#define SR_DEBUG_GREEN 0xff4de64du
#define SR_DEBUG_BLUE 0xffff804du
#define SR_DEBUG_YELLOW 0xff20d8ffu
#define SR_DEBUG_CYAN 0xffffff40u
#define SR_DEBUG_MAGENTA 0xffff40ffu
#define SR_DEBUG_GREY 0xff8c8c8cu

/// A style from its three fields (C and C++ alike: no compound literal needed).
static inline sr_debug_style sr_debug_style_make(uint32_t color, int width, bool on_top)
{
    sr_debug_style style;
    style.color = color;
    style.width = width;
    style.on_top = on_top;
    return style;
}

/// A one-pixel, depth-tested style of `color`.
static inline sr_debug_style sr_debug_style_color(uint32_t color)
{
    return sr_debug_style_make(color, 1, false);
}

/// `color` with its alpha replaced by `alpha` in [0, 1], clamped (NaN: 0) (a translucent fill
/// from an outline's colour: sr_debug_color_alpha(SR_DEBUG_GREEN, 0.25f)).
static inline uint32_t sr_debug_color_alpha(uint32_t color, float alpha)
{
    float a = !(alpha > 0.0f) ? 0.0f : alpha >= 1.0f ? 255.0f : alpha * 255.0f + 0.5f; // NaN: 0
    return (color & 0x00ffffffu) | (uint32_t)a << 24;
}

/// The depth bias of depth-tested debug lines (sr_line_desc.depth_bias): a line point at window
/// depth z is tested as if nearer by this fraction of its view distance (z - bias * (1 - z);
/// under perspective 1 - z is proportional to 1 / distance), plus the surface's own depth change
/// over one pixel across the line. Lines on a surface, or within 0.4% of the view distance
/// behind it, show; lines further behind are hidden. Fills, dots and text use the same bias
/// (without the slope term).
#define SR_DEBUG_DEPTH_BIAS (1.0f / 256.0f)

/* ---- 3D items (world space) ---- */

void sr_debug_line(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_debug_style style);
/// A line whose colour goes from style.color at `a` to `color_b` at `b`, interpolated along it
/// (perspective-correct: the colour of a world point at fraction t of a-b is the blend at t);
/// btIDebugDraw::drawLine's two-colour form.
void sr_debug_line_gradient(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_debug_style style, uint32_t color_b);
/// `count` points joined in order (and back to the first when `closed` and count > 2); each
/// joint pixel is drawn once. The points are copied into the list.
void sr_debug_polyline(sr_debug_list *list, const sr_vec3 *points, size_t count, bool closed, sr_debug_style style);
/// A line from `from` to `to` with an arrow head at `to`: four barbs a sixth of the length long,
/// opening at 20 degrees.
void sr_debug_arrow(sr_debug_list *list, sr_vec3 from, sr_vec3 to, sr_debug_style style);
/// The ray from its origin to origin + length * direction (length <= 0 or infinite: to tmax when
/// finite, else 1000 units), with an arrow head.
void sr_debug_ray(sr_debug_list *list, const sr_ray *ray, float length, sr_debug_style style);
/// A point marker: a diagonal cross `size_px` pixels wide on screen, whatever the distance
/// (size_px <= 0: 8).
void sr_debug_point(sr_debug_list *list, sr_vec3 point, float size_px, sr_debug_style style);
/// A round dot: the pixels whose centres lie within size_px / 2 of the point's projection
/// (a filled disc `size_px` pixels across, whatever the distance; size_px <= 0: 6). Unless
/// style.on_top it is depth-tested as a whole, as text is: hidden when the point is behind the
/// scene at its own pixel, whole otherwise (a contact dot on a sloped surface shows entirely).
/// b2Draw::DrawPoint, btIDebugDraw::drawContactPoint.
void sr_debug_dot(sr_debug_list *list, sr_vec3 point, float size_px, sr_debug_style style);
void sr_debug_aabb(sr_debug_list *list, sr_aabb box, sr_debug_style style);
void sr_debug_obb(sr_debug_list *list, const sr_obb *box, sr_debug_style style);
/// The 12 edges of `box` mapped by `transform` (any affine matrix; its last row is ignored).
void sr_debug_box(sr_debug_list *list, sr_aabb box, sr_mat4 transform, sr_debug_style style);
/// Three great circles (in the XY, YZ and ZX planes), 32 segments each.
void sr_debug_sphere(sr_debug_list *list, sr_vec3 centre, float radius, sr_debug_style style);
/// A sphere that shows its orientation: the three great circles of its local XY, YZ and ZX
/// planes (rotated by `rotation`, a unit quaternion; normalised here; a zero or non-finite one
/// is the identity) and its local +X axis as an arrow from the centre to the surface, so a
/// spinning body's spin shows (btIDebugDraw::drawSphere with a transform). With the identity
/// rotation the circles are sr_debug_sphere's.
void sr_debug_sphere_oriented(sr_debug_list *list, sr_vec3 centre, sr_quat rotation, float radius,
                              sr_debug_style style);
/// A capsule around segment a-b: two circles at the ends, four side lines and half circles.
void sr_debug_capsule(sr_debug_list *list, sr_vec3 a, sr_vec3 b, float radius, sr_debug_style style);
void sr_debug_cylinder(sr_debug_list *list, sr_vec3 a, sr_vec3 b, float radius, sr_debug_style style);
/// A cone with its apex at `apex` and its base disc of `radius` around `base`.
void sr_debug_cone(sr_debug_list *list, sr_vec3 apex, sr_vec3 base, float radius, sr_debug_style style);
/// A circle of `radius` around `centre` in the plane perpendicular to `normal` (32 segments;
/// a zero normal: +Y). b2Draw::DrawCircle, with the normal (0, 0, 1) of Box2D's plane.
void sr_debug_circle(sr_debug_list *list, sr_vec3 centre, sr_vec3 normal, float radius, sr_debug_style style);
/// The same circle filled with `fill_color` (translucent fills blend), outlined with the
/// style's colour (an outline colour of alpha 0: no outline). b2Draw::DrawSolidCircle draws
/// its axis line besides (sr_debug_line).
void sr_debug_circle_filled(sr_debug_list *list, sr_vec3 centre, sr_vec3 normal, float radius, uint32_t fill_color,
                            sr_debug_style style);
/// The 12 edges of the frustum of a world-to-clip matrix (zero-to-one depth), found by mapping
/// the clip cube's corners back (nothing for a singular matrix).
void sr_debug_frustum(sr_debug_list *list, sr_mat4 view_projection, sr_debug_style style);
/// The frustum of a camera for a `width` x `height` image.
void sr_debug_camera_frustum(sr_debug_list *list, const sr_camera *camera, int width, int height, sr_debug_style style);
/// X, Y, Z axes of `transform` as arrows in SR_DEBUG_RED, SR_DEBUG_GREEN and SR_DEBUG_BLUE,
/// `length` long (the style's width and on_top; its colour is not used).
void sr_debug_axes(sr_debug_list *list, sr_mat4 transform, float length, sr_debug_style style);
/// A ground grid in the XZ plane at height y = centre.y: `divisions` x `divisions` squares
/// covering `size` x `size` around the centre, the two centre lines at the style's colour, the
/// others at half its alpha.
void sr_debug_grid(sr_debug_list *list, sr_vec3 centre, float size, int divisions, sr_debug_style style);
/// A triangle's three edges.
void sr_debug_triangle(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_debug_style style);
/// A triangle filled with `fill_color` and outlined with the style's colour (alpha 0: no
/// outline). Both faces are filled. btIDebugDraw::drawTriangle.
void sr_debug_triangle_filled(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_vec3 c, uint32_t fill_color,
                              sr_debug_style style);
/// A closed polygon of `count` points (3 or more) filled with `fill_color` and outlined with
/// the style's colour (alpha 0: no outline; fill_color of alpha 0: the outline alone, as
/// sr_debug_polyline closed). The polygon should be convex and planar: it is filled as the fan of
/// triangles from its first point (how engines hand polygons over: b2Draw::DrawSolidPolygon).
/// The points are copied into the list.
void sr_debug_polygon_filled(sr_debug_list *list, const sr_vec3 *points, size_t count, uint32_t fill_color,
                             sr_debug_style style);
/// Text anchored at a world point: its top-left corner at the point's pixel. Depth-tested like
/// every item unless style.on_top: hidden when its anchor is behind the scene. Copied into the
/// list.
void sr_debug_text(sr_debug_list *list, sr_vec3 anchor, const char *text, sr_debug_style style);

/// A convex shape of the collision queries (softrast/collide.h) as a wire at its pose (src/debug/
/// debug_shape.c): a box's 12 edges; a sphere's three great circles (in its local XY, YZ and ZX
/// planes); a capsule's, cylinder's and cone's rings (32 segments each) and four side lines in
/// its local XZ and YZ planes, so that its rotation shows; a segment's line, a triangle's three
/// edges, a hull's edges; a point as a marker cross (sr_debug_point, 8 pixels), as is a hull of
/// one point. With `rounding` the wire is the rounded surface the queries see: the faces moved
/// out by the rounding with arcs around the edges (box, triangle, hull), the profile with arcs
/// (cylinder, cone; a rounded segment is a capsule, a rounded point a sphere). An invalid shape
/// (sr_shape_validate) draws nothing. Kept as a SR_DEBUG_ITEM_SHAPE item of the shape's
/// parameters (in float); a hull's wire (its edges, and when rounded the whole rounded wire, as
/// pairs of segment ends in the hull's frame) is copied into the list's points: the hull need
/// not outlive the call.
void sr_debug_shape(sr_debug_list *list, const sr_shape *shape, sr_debug_style style);

/* ---- collision queries at work (src/debug/debug_collide.c, debug_minkowski.c) ---- */

/// Which steps of a trace sr_debug_collide_trace draws.
typedef enum sr_debug_trace_kind {
    SR_DEBUG_TRACE_GJK = 0, ///< trace->gjk: the simplex, the search direction, the support point
    SR_DEBUG_TRACE_EPA,     ///< trace->epa: the polytope, the face it expands, the support point
    SR_DEBUG_TRACE_SAT,     ///< trace->sat: the axis, the two projected intervals, the best axis so far
} sr_debug_trace_kind;

/// How sr_debug_collide_trace draws. Zero-initialised: GJK, step 0, the world view, no legend.
typedef struct sr_debug_trace_desc {
    sr_debug_trace_kind kind;
    /// The step drawn, from 0 (the state after the first iteration); any negative value: the last.
    int step;
    /// false: the world view (the two shapes, the support points on each, the witnesses); true:
    /// the Minkowski view (A - B, the origin, the simplex or polytope or projected interval).
    bool minkowski;
    /// Where the Minkowski view's origin is put in the list's world (so that both views can be
    /// drawn side by side); the world view is drawn where the shapes are.
    sr_vec3 minkowski_origin;
    /// A legend in the window's top-left corner at (legend_x, legend_y) pixels: the step, what it
    /// found, and what every colour is; its text scale is legend_scale (1 to 4; 0: 1).
    bool legend;
    float legend_x, legend_y;
    int legend_scale;
} sr_debug_trace_desc;

/// The number of steps of `kind` that `trace` holds (0 for a NULL trace).
size_t sr_debug_trace_step_count(const sr_collide_trace *trace, sr_debug_trace_kind kind);

/// Appends to `list` the state of a query after step desc->step of its trace (filled by a query
/// of softrast/collide.h on shapes `a` and `b`, which must be the query's). The traces hold the
/// cores' points (a sphere is its centre, a capsule its segment: softrast/collide.h); the
/// Minkowski view draws the cores' difference, where the steps happen, and around it, faint, the
/// difference of the whole shapes (the cores' rounded by both radii) when the cores have radii.
/// Colours (the legend says the same):
///   A orange and B blue wires; A - B violet (sr_debug_minkowski_hull; faint when it has more than
///   64 vertices, so that the steps stand out); the origin a white cross labelled O;
///   GJK: the simplex yellow (vertices, edges, faces filled faintly; in the world view its
///   vertices' points on A and on B joined by faint yellow lines), the closest point of the
///   simplex to the origin and its witnesses on A and B green with the distance, the search
///   direction a magenta arrow and the support point it found magenta (w; on A and on B);
///   EPA: the polytope cyan, the face it expands filled red with its normal a red arrow from the
///   origin to the face's plane, the support point along it magenta, the witnesses on A and B of
///   that face green with the depth;
///   SAT: every axis tested so far a grey arrow, the current one white and the best so far (the
///   largest separation: the answer's axis at the last step) green; the shapes' projected
///   intervals on the current axis orange (A) and blue (B) beside the shapes, their gap green or
///   their overlap red with its length; in the Minkowski view the interval of A - B on the axis
///   through the origin.
/// Errors (nothing is added): a NULL list, shape, trace or desc; a shape that fails
/// sr_shape_validate (the message names it: "shape b: radius is -1"); a trace with no steps of
/// that kind ("the trace holds no EPA step: the pair was answered by SAT or a closed form"); a
/// step past the last ("step 9: the trace holds 7 GJK steps (0 to 6)"); an EPA step whose faces
/// or vertices were dropped (give the trace larger capacities); out of memory (A - B's hull).
sr_status sr_debug_collide_trace(sr_debug_list *list, const sr_shape *a, const sr_shape *b,
                                 const sr_collide_trace *trace, const sr_debug_trace_desc *desc, sr_error *err);

/// The Minkowski difference of the cores of `a` and `b` (sr_shape_core_support) as a hull in world
/// coordinates (free it with sr_hull_destroy), and in *rounding (may be NULL) the sum of the
/// cores' radii (sr_shape_core_radius), so that A - B is the hull rounded by it: the hull of every
/// difference of a vertex of A's core and one of B's. Exact for polytope cores (points, segments,
/// triangles, boxes, hulls, and the cores of spheres and capsules); a cylinder's or cone's rims are
/// taken as 32-gons (an inner approximation within 0.5% of their radius). Past 65,536 vertex pairs
/// (big hulls), the hull of the support points of A - B along 642 directions spread over the sphere
/// instead. Errors: NULL arguments, an invalid shape (named "shape a" / "shape b"), out of memory.
sr_status sr_debug_minkowski_hull(const sr_shape *a, const sr_shape *b, sr_hull **out, double *rounding,
                                  sr_error *err);

/* ---- one pair's query as a whole picture (src/debug/debug_collide_picture.c) ---- */

/// A pair's query run with a trace, as `softrast collide SCENE --pair A,B` and the viewer's pair
/// views run it. Zero-initialise before the first run; sr_debug_pair_trace_free releases it.
typedef struct sr_debug_pair_trace {
    sr_debug_trace_kind kind;
    sr_collide_trace trace; ///< capacities for max_iterations steps, 2^18 EPA faces, 2^16 SAT axes
    sr_collide_result result;
    sr_collide_status status;
    /// GJK on a pair whose distance has a closed form (spheres, capsules, points, segments): the
    /// steps are those of sr_collide_intersect's boolean GJK, which iterates on any pair.
    bool boolean_gjk;
    int cap; ///< the iteration cap the buffers were made for
} sr_debug_pair_trace;

/// Runs `kind`'s query on a and b with a trace (GJK: sr_collide_distance, EPA:
/// sr_collide_penetration, SAT: sr_collide_sat); max_iterations 0: 128. Reuses the buffers of an
/// earlier run into `out`. Errors: NULL arguments, a bad kind, out of memory.
sr_status sr_debug_pair_trace_run(const sr_shape *a, const sr_shape *b, sr_debug_trace_kind kind, int max_iterations,
                                  sr_debug_pair_trace *out, sr_error *err);
void sr_debug_pair_trace_free(sr_debug_pair_trace *traced);

/// The camera a pair's view is drawn with in a width x height image: it frames both shapes (or,
/// `minkowski`, A - B and the origin) with room around (more for SAT's intervals), looking
/// across the answer's normal so that the distance or depth along it shows at full length.
sr_status sr_debug_pair_camera(const sr_shape *a, const sr_shape *b, const sr_debug_pair_trace *traced,
                               bool minkowski, int width, int height, sr_camera *out, sr_error *err);

typedef enum sr_debug_pair_view {
    SR_DEBUG_PAIR_WORLD = 0,  ///< the two shapes, the support points, the witnesses
    SR_DEBUG_PAIR_MINKOWSKI,  ///< A - B, the origin, the simplex, polytope or intervals
    SR_DEBUG_PAIR_BOTH,       ///< the two side by side, each half the image, a grey line between
} sr_debug_pair_view;

typedef struct sr_debug_pair_picture_desc {
    sr_debug_pair_view view;
    int step;           ///< from 0; negative: the last (the answer)
    const char *camera; ///< NULL, or a --camera spec (sr_camera_parse) over each view's camera
} sr_debug_pair_picture_desc;

/// Draws the pair's trace after desc->step into the whole of `fb` (cleared to a dark blue-grey
/// first) with sr_debug_pair_camera's camera and sr_debug_collide_trace's legend: the picture of
/// `softrast collide SCENE --pair A,B`. Errors: those of sr_debug_collide_trace (no steps of that
/// kind, a step past the last), a bad camera spec, out of memory.
sr_status sr_debug_pair_picture(sr_renderer *renderer, sr_framebuffer *fb, const sr_shape *a, const sr_shape *b,
                                const sr_debug_pair_trace *traced, const sr_debug_pair_picture_desc *desc,
                                sr_error *err);

/* ---- 2D items (window pixels, origin top-left), always on top ---- */

void sr_debug_text_2d(sr_debug_list *list, float x, float y, const char *text, sr_debug_style style);
/// A rectangle outline, or filled when `filled` (for legends and backdrops).
void sr_debug_rect_2d(sr_debug_list *list, float x, float y, float width, float height, bool filled,
                      sr_debug_style style);

/* ---- reading the items (recorders, tools) ---- */

/// What an item is (sr_debug_item.kind) and which member of its union holds its parameters.
typedef enum sr_debug_item_kind {
    SR_DEBUG_ITEM_LINE = 0,        ///< line: a (style.color) to b (line.color_b)
    SR_DEBUG_ITEM_ARROW,           ///< line: from a to b, head at b (color_b = style.color)
    SR_DEBUG_ITEM_POINT,           ///< point: a cross
    SR_DEBUG_ITEM_DOT,             ///< point: a round dot
    SR_DEBUG_ITEM_BOX,             ///< box
    SR_DEBUG_ITEM_SPHERE,          ///< sphere (rotation: identity)
    SR_DEBUG_ITEM_ORIENTED_SPHERE, ///< sphere: with its rotation
    SR_DEBUG_ITEM_CAPSULE,         ///< segment: around a-b
    SR_DEBUG_ITEM_CYLINDER,        ///< segment: around a-b
    SR_DEBUG_ITEM_CONE,            ///< segment: apex a, base centre b
    SR_DEBUG_ITEM_CIRCLE,          ///< circle (fill_color alpha 0: an outline)
    SR_DEBUG_ITEM_FRUSTUM,         ///< frustum
    SR_DEBUG_ITEM_AXES,            ///< axes
    SR_DEBUG_ITEM_GRID,            ///< grid
    SR_DEBUG_ITEM_TRIANGLE,        ///< triangle (fill_color alpha 0: an outline)
    SR_DEBUG_ITEM_POLYLINE,        ///< polyline: its points are sr_debug_list_item_points
    SR_DEBUG_ITEM_TEXT,            ///< text: anchored at a world point
    SR_DEBUG_ITEM_TEXT_2D,         ///< text: anchor (x, y, 0) in window pixels
    SR_DEBUG_ITEM_RECT_2D,         ///< rect
    SR_DEBUG_ITEM_SHAPE,           ///< shape: a collide shape (sr_debug_shape)
    SR_DEBUG_ITEM_KIND_COUNT
} sr_debug_item_kind;

typedef struct sr_debug_item_line {
    sr_vec3 a, b;
    uint32_t color_b;
} sr_debug_item_line;
typedef struct sr_debug_item_point {
    sr_vec3 position;
    float size_px;
} sr_debug_item_point;
typedef struct sr_debug_item_box {
    sr_aabb box;
    sr_mat4 transform;
} sr_debug_item_box;
typedef struct sr_debug_item_sphere {
    sr_vec3 centre;
    float radius;
    sr_quat rotation;
} sr_debug_item_sphere;
typedef struct sr_debug_item_segment {
    sr_vec3 a, b;
    float radius;
} sr_debug_item_segment;
typedef struct sr_debug_item_circle {
    sr_vec3 centre, normal;
    float radius;
    uint32_t fill_color;
} sr_debug_item_circle;
typedef struct sr_debug_item_frustum {
    sr_mat4 view_projection;
} sr_debug_item_frustum;
typedef struct sr_debug_item_axes {
    sr_mat4 transform;
    float length;
} sr_debug_item_axes;
typedef struct sr_debug_item_grid {
    sr_vec3 centre;
    float size;
    int divisions;
} sr_debug_item_grid;
typedef struct sr_debug_item_triangle {
    sr_vec3 a, b, c;
    uint32_t fill_color;
} sr_debug_item_triangle;
typedef struct sr_debug_item_polyline {
    uint32_t first, count; ///< of the list's points (sr_debug_list_item_points)
    bool closed;
    uint32_t fill_color; ///< alpha 0: not filled (a closed polygon is filled otherwise)
} sr_debug_item_polyline;
typedef struct sr_debug_item_text {
    sr_vec3 anchor;
    uint32_t offset, length; ///< of the list's text bytes (sr_debug_list_item_text)
} sr_debug_item_text;
typedef struct sr_debug_item_rect {
    float x, y, width, height;
    bool filled;
} sr_debug_item_rect;
/// A collide shape's parameters in float: sr_shape's fields of the same names (a segment's and a
/// triangle's points in `points`), its pose as `position` and a unit `rotation`. A hull keeps its
/// wire in the list's points (sr_debug_list_item_points; `count` of them, in the hull's frame):
/// `count / 2` segments, point 2 k to 2 k + 1, rounding included; `count` is 0 for other types.
typedef struct sr_debug_item_shape {
    sr_shape_type type;
    sr_vec3 position;
    sr_quat rotation;
    float radius, half_height, rounding;
    sr_vec3 half_extents;
    sr_vec3 points[3];
    uint32_t first, count; ///< a hull's wire among the list's points
} sr_debug_item_shape;

/// One item as the list keeps it: what was asked, before any tessellation. `style` is the
/// style given with its width clamped to 1..4.
typedef struct sr_debug_item {
    sr_debug_item_kind kind;
    sr_debug_style style;
    union {
        sr_debug_item_line line;
        sr_debug_item_point point;
        sr_debug_item_box box;
        sr_debug_item_sphere sphere;
        sr_debug_item_segment segment;
        sr_debug_item_circle circle;
        sr_debug_item_frustum frustum;
        sr_debug_item_axes axes;
        sr_debug_item_grid grid;
        sr_debug_item_triangle triangle;
        sr_debug_item_polyline polyline;
        sr_debug_item_text text;
        sr_debug_item_rect rect;
        sr_debug_item_shape shape;
    };
} sr_debug_item;

/// The items kept, in the order they were added (*count of them; NULL and 0 for an empty or
/// NULL list). Owned by the list: valid until the next sr_debug_list_clear or
/// sr_debug_list_destroy (additions never move them).
const sr_debug_item *sr_debug_list_items(const sr_debug_list *list, size_t *count);
/// The points of a SR_DEBUG_ITEM_POLYLINE item of `list` (item->polyline.count of them) or of a
/// SR_DEBUG_ITEM_SHAPE item (item->shape.count, perhaps 0); NULL for other kinds. Valid as
/// sr_debug_list_items.
const sr_vec3 *sr_debug_list_item_points(const sr_debug_list *list, const sr_debug_item *item);
/// The NUL-terminated text of a SR_DEBUG_ITEM_TEXT or _TEXT_2D item of `list`; NULL for other
/// kinds. Valid as sr_debug_list_items.
const char *sr_debug_list_item_text(const sr_debug_list *list, const sr_debug_item *item);
/// Adds a copy of `item` (read from any list, or stored by a recorder) through the function of
/// its kind, so it is checked and counted as that call would be. A polyline's points and a
/// text's characters are taken from `points` / `text` (the offsets in `item` belong to the list
/// it came from), as are a shape's (item->shape.count of them; a count its type cannot have, or
/// non-finite or negative sizes, drop the item); they may be NULL for other kinds. An unknown
/// kind is ignored. An item read from a list is added bit for bit the same (an oriented sphere's
/// rotation of unit length is kept, not normalised again), so a recording replays exactly.
void sr_debug_list_append(sr_debug_list *list, const sr_debug_item *item, const sr_vec3 *points, const char *text);

/* ---- drawing ---- */

/// Draws the list over `fb` as seen by `view_projection` (world to clip, zero-to-one depth):
/// first the depth-tested items, then the on-top ones; within each, fills (translucent triangles,
/// polygons and circles), then world lines, then screen-sized markers and dots, each group in
/// the order the items were added, thin lines before wide; then 2D rectangles and text. Lines
/// go through sr_draw_lines and fills through sr_draw_triangles, so they use the renderer's
/// threads and the image does not depend on their number. The items are kept: a list may be
/// drawn over several frames (the list's scratch memory is used, so one draw at a time per
/// list, or per shared scratch: sr_debug_list_desc.scratch). Never writes depth or ids.
/// Errors: NULL arguments, those of sr_draw_lines and sr_draw_triangles.
sr_status sr_debug_draw(sr_debug_list *list, sr_renderer *renderer, sr_framebuffer *fb, sr_mat4 view_projection,
                        sr_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Overlays: what the queries did (src/debug/overlay.c)                                        */

/// Overlay items, combined as bits.
enum {
    SR_OVERLAY_BVH = 1u << 0,      ///< the instance tree's nodes (boxes coloured by depth)
    SR_OVERLAY_MESH_BVH = 1u << 1, ///< the triangle BVH nodes of the drawn instances
    SR_OVERLAY_BOUNDS = 1u << 2,   ///< each drawn instance's world box
    SR_OVERLAY_NORMALS = 1u << 3,  ///< vertex normals of the drawn instances as short lines
    SR_OVERLAY_WIRE = 1u << 4,     ///< triangle edges of the drawn instances
    SR_OVERLAY_PICK = 1u << 5,     ///< the pick at (pick_x, pick_y): ray, hit, normal, triangle, bounds
    SR_OVERLAY_FRUSTUM = 1u << 6,  ///< the culling camera's frustum, and culled instances as grey boxes
    SR_OVERLAY_HEAT = 1u << 7,     ///< legend of the heat map (the map itself: sr_overlay_heat)
    SR_OVERLAY_AXES = 1u << 8,     ///< world axes at the origin
    SR_OVERLAY_GRID = 1u << 9,     ///< a ground grid at y = 0 around the scene
    SR_OVERLAY_HUD = 1u << 10,     ///< statistics as text at the top left
    /// The collision pass's contacts (sr_overlay_desc.collision): a dot at each contact point, its
    /// normal as an arrow scaled by the depth, the depth as text
    SR_OVERLAY_CONTACTS = 1u << 11,
    SR_OVERLAY_CLOSEST = 1u << 12, ///< near pairs: the segment between their closest points, the distance
    SR_OVERLAY_PAIRS = 1u << 13,   ///< candidate pairs as lines between their boxes' centres, coloured by state
};

/// The overlays' colours (sr_rgba8 values), documented in the README.
#define SR_OVERLAY_COLOR_BOUNDS 0xff40e060u     ///< green
#define SR_OVERLAY_COLOR_CULLED 0xff8c8c8cu     ///< grey
#define SR_OVERLAY_COLOR_FRUSTUM 0xff20d8ffu    ///< yellow
#define SR_OVERLAY_COLOR_NORMAL 0xffffc060u     ///< light blue
#define SR_OVERLAY_COLOR_WIRE 0xff1a1a1au       ///< near black
#define SR_OVERLAY_COLOR_RAY 0xffffff40u        ///< cyan
#define SR_OVERLAY_COLOR_HIT 0xffff40ffu        ///< magenta: hit marker and hit triangle
#define SR_OVERLAY_COLOR_HIT_NORMAL 0xff40ffffu ///< yellow: the hit's normal
#define SR_OVERLAY_COLOR_PICKED 0xffffffffu     ///< white: the picked instance's box
#define SR_OVERLAY_COLOR_GRID 0xb0a0a0a0u       ///< translucent grey
#define SR_OVERLAY_COLOR_CONTACT 0xff3c50ffu    ///< red: contact points, depths, contact pairs
#define SR_OVERLAY_COLOR_CONTACT_NORMAL 0xff28dcffu ///< yellow: contact normals
#define SR_OVERLAY_COLOR_CLOSEST 0xffffd040u    ///< light blue: closest points, distances, near pairs
#define SR_OVERLAY_COLOR_APART 0xffb4b4b4u      ///< light grey: candidate pairs found apart

/// The colour of BVH depth `depth` of a range [first, last] drawn: a ramp from blue (first)
/// through cyan, green and yellow to red (last).
uint32_t sr_overlay_level_color(int depth, int first, int last);
/// The heat map's colour for `value` in [0, max]: black, purple, red, orange, yellow, white.
uint32_t sr_overlay_heat_color(uint32_t value, uint32_t max);

typedef struct sr_overlay_desc {
    uint32_t items; ///< SR_OVERLAY_* bits
    /// Depths of the instance tree drawn (root 0) when bvh_range, else all.
    bool bvh_range;
    int bvh_min, bvh_max;
    /// Depths of the mesh BVHs drawn when mesh_bvh_range, else 0 to 5 (deeper levels of big
    /// meshes are millions of boxes).
    bool mesh_bvh_range;
    int mesh_bvh_min, mesh_bvh_max;
    float pick_x, pick_y; ///< window point of SR_OVERLAY_PICK
    /// A pick already made (the viewer's last click, perhaps from another camera): drawn by
    /// SR_OVERLAY_PICK instead of picking at (pick_x, pick_y). NULL: pick there. Not kept.
    const sr_pick_hit *pick_hit;
    /// The camera that culled the frame (its frustum for SR_OVERLAY_FRUSTUM); NULL: the view camera.
    const sr_camera *cull_camera;
    uint32_t heat_max; ///< the heat map's scale (from sr_overlay_heat), for its legend
    double frame_ms;   ///< frame time the HUD shows (0: the frame's update + cull + draw)
    /// The frame rate the HUD shows after the frame time, e.g. a viewer's while frames follow
    /// each other (0: none; a rate of frames drawn only on change would mean nothing).
    double fps;
    /// Lines appended to the HUD's text (a viewer's state: a frozen camera, a reload, the help
    /// key); NULL: none. Copied into the list.
    const char *hud_text;
    /// Where the HUD and the legends (2D text and boxes) go; NULL: `list` with the rest. A viewer
    /// draws its program's lines between the two lists: over the 3D overlays, under the HUD.
    sr_debug_list *hud_list;
    /// Scale of the HUD's and the legends' text, 1 to 4 (0: sr_overlay_text_scale of the frame).
    int text_scale;
    /// The collision pass (sr_scene_collide of the scene as drawn) that SR_OVERLAY_CONTACTS,
    /// _CLOSEST and _PAIRS draw and the HUD counts; NULL: none (those overlays draw nothing).
    const sr_collision *collision;
} sr_overlay_desc;

/// The text scale that keeps the HUD readable and in proportion to a `width` x `height` frame:
/// min(width / 640, height / 360) clamped to [1, 4], so 1 up to 1280x720, 2 from there, 3 from
/// 1920x1080, 4 from 2560x1440 (the debug font's cell is 6 x 10 pixels at scale 1).
int sr_overlay_text_scale(int width, int height);
/// Size in pixels of `text` as sr_debug_text_2d draws it at `scale` (its box, without the
/// outline around the glyphs): for laying out panels of text. `width` or `height` may be NULL.
void sr_overlay_text_size(const char *text, int scale, int *width, int *height);

/// The HUD's text (what SR_OVERLAY_HUD draws at the top left) for the frame just rendered, in
/// short lines that keep the box narrow: the scene's name, the frame time (desc->frame_ms, or the
/// frame's update + cull + draw) with desc->fps when it is not 0, instances and triangles drawn
/// of those submitted, fragments and draw calls; then, when `pick` is not NULL, the pick once:
/// node, triangle, t, position, normal and BVH nodes visited (or that it hit nothing); then the
/// collision pass's counts and times when desc->collision is set (sr_overlay_collision_text);
/// then desc->hud_text. Writes at most `size` bytes (NUL included); returns the text's length.
size_t sr_overlay_hud_text(const sr_scene *scene, const sr_scene_frame *frame, const sr_overlay_desc *desc,
                           const sr_pick_hit *pick, char *out, size_t size);

/// Parses the --overlay syntax: comma-separated items bvh[:A-B], mesh-bvh[:A-B], bounds, normals,
/// wire, pick:X,Y, frustum, heat, axes, grid, hud, contacts, closest, pairs (into desc->items and
/// the ranges; other fields untouched). Errors name the item.
sr_status sr_overlay_parse(const char *text, sr_overlay_desc *desc, sr_error *err);

/// Appends the overlays of `desc` to `list` for a `width` x `height` frame of `scene` seen by
/// `camera` and culled as `frame` says (the frame of the sr_scene_render just done): BVH nodes
/// from sr_scene_instance_tree and sr_scene_mesh_bvh, bounds and culled sets from the frame, the
/// pick from sr_scene_pick. Items past the list's capacity are dropped (see sr_debug_list_clear).
sr_status sr_overlay_add(const sr_scene *scene, const sr_scene_frame *frame, const sr_camera *camera, int width,
                         int height, const sr_overlay_desc *desc, sr_debug_list *list, sr_error *err);

/// How sr_debug_contact draws a contact. Zero fields take their defaults.
typedef struct sr_debug_contact_desc {
    float length;          ///< of the normal's arrow, world units; 0: no arrow
    float point_px;        ///< the dot's diameter in pixels; 0: 7
    uint32_t point_color;  ///< dot and text; 0: SR_OVERLAY_COLOR_CONTACT
    uint32_t normal_color; ///< 0: SR_OVERLAY_COLOR_CONTACT_NORMAL
    /// The text beside the dot (the depth, say; copied); NULL: none. Anchored at `text_at`.
    const char *text;
    sr_vec3 text_at;
    int width;    ///< the arrow's width and the text's scale, 1 to 4; 0: 2 and 1
    bool depth_tested; ///< false (default): on top of everything, as physics debug views draw contacts
} sr_debug_contact_desc;

/// A contact as physics engines' debug views draw it (Box2D's b2_drawContactPoints and normals,
/// Jolt's DrawContactPoint): a dot at `point` and the normal (unit, from A towards B: the way B
/// is pushed out) as an arrow from it, with an optional label.
void sr_debug_contact(sr_debug_list *list, sr_vec3 point, sr_vec3 normal, const sr_debug_contact_desc *desc);

/// The pixels per world unit at `point` seen by `camera` in a `height`-pixel-high image (the
/// scale of a small object there; 0 behind the eye or for a bad camera): for sizing world items
/// in pixels.
float sr_overlay_pixels_per_unit(const sr_camera *camera, int height, sr_vec3 point);

/// The HUD's lines about a collision pass: shapes, pairs, queries, contacts and near pairs, and
/// the broadphase and narrowphase times. Writes at most `size` bytes; returns the length.
size_t sr_overlay_collision_text(const sr_collision *collision, char *out, size_t size);

/// The heat map: for each pixel the nodes the closest-hit pick through its centre visited
/// (sr_scene_pick's nodes_visited), written into `fb`'s colour as sr_overlay_heat_color(value,
/// max) with max the largest value; `counts` (may be NULL) receives the values, width * height
/// rows top first; *max_out (may be NULL) the scale. Picks run on `threads` threads.
sr_status sr_overlay_heat(const sr_scene *scene, const sr_camera *camera, sr_framebuffer *fb, int threads,
                          uint32_t *counts, uint32_t *max_out, sr_error *err);

#ifdef __cplusplus
}
#endif
#endif
