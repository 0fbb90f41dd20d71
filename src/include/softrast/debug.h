/* softrast/debug.h — the collision debug renderer: immediate-mode draw lists that any code fills
 * (lines, boxes, spheres, capsules, arrows, points, frustums, text), drawn over a frame through
 * the pipeline's line rasteriser, and the overlays that show what the geometry queries did
 * (BVH nodes, bounds, normals, wireframes, picks, frustums and culling, heat maps, a HUD),
 * built only from the public queries of geom, bvh and scene.
 * Stands on scene, raster, bvh, geom; knows nothing of SDL. Like Box2D's b2DebugDraw or Jolt's
 * DebugRenderer, but the list is data: fill it from a physics step, draw it over any frame. */
#ifndef SOFTRAST_DEBUG_H
#define SOFTRAST_DEBUG_H

#include <softrast/core.h>
#include <softrast/geom.h>
#include <softrast/math.h>
#include <softrast/raster.h>
#include <softrast/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Draw lists (src/debug/debug_list.c, debug_draw.c)                                           */

/// An immediate-mode list of debug items for one frame. Filling never allocates: items past the
/// capacity are dropped and counted; sr_debug_list_clear grows the capacity, between frames, to
/// what the last frame asked for (sokol_gl's way). Not thread-safe: one list per filling thread
/// (draw several lists over one frame). Free with sr_debug_list_destroy.
typedef struct sr_debug_list sr_debug_list;

typedef struct sr_debug_list_desc {
    size_t segment_capacity; ///< line segments (shapes are made of them); 0 = 16384
    size_t text_capacity;    ///< text items; 0 = 256
    size_t text_bytes;       ///< bytes of text; 0 = 16384
} sr_debug_list_desc;

sr_status sr_debug_list_create(const sr_debug_list_desc *desc, sr_debug_list **out, sr_error *err);
void sr_debug_list_destroy(sr_debug_list *list);

/// Empties the list for the next frame, first growing its capacity to hold everything the
/// frame just ended asked for (dropped items included). Errors: out of memory (the list is
/// emptied and keeps its old capacity).
sr_status sr_debug_list_clear(sr_debug_list *list, sr_error *err);

/// What a list holds and what it dropped since the last clear.
typedef struct sr_debug_list_stats {
    size_t segments, texts, text_bytes;     ///< stored
    size_t segments_dropped, texts_dropped; ///< asked for past the capacity
    size_t segment_capacity, text_capacity, text_byte_capacity;
} sr_debug_list_stats;

sr_debug_list_stats sr_debug_list_get_stats(const sr_debug_list *list);

/// How an item is drawn. A zeroed style is an opaque white one-pixel line, depth-tested.
typedef struct sr_debug_style {
    uint32_t color; ///< sr_rgba8 (alpha blends); 0 means opaque white
    int width;      ///< line width in pixels, 1 to 4; 0 means 1. For text: the scale, 1 to 4
    /// false: tested against the scene's depth (LESS_EQUAL, with SR_DEBUG_DEPTH_BIAS, so lines
    /// drawn on a surface show); true: drawn over everything.
    bool on_top;
} sr_debug_style;

/// The depth bias of depth-tested debug lines (sr_line_desc.depth_bias): a line point at window
/// depth z is tested as if nearer by this fraction of its view distance (z - bias * (1 - z);
/// under perspective 1 - z is proportional to 1 / distance), plus the surface's own depth change
/// over one pixel across the line. Lines on a surface, or within 0.4% of the view distance
/// behind it, show; lines further behind are hidden.
#define SR_DEBUG_DEPTH_BIAS (1.0f / 256.0f)

/* ---- 3D items (world space) ---- */

void sr_debug_line(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_debug_style style);
/// `count` points joined in order (and back to the first when `closed`); each joint pixel is
/// drawn once.
void sr_debug_polyline(sr_debug_list *list, const sr_vec3 *points, size_t count, bool closed, sr_debug_style style);
/// A line from `from` to `to` with an arrow head at `to`: four barbs a sixth of the length long,
/// opening at 20 degrees.
void sr_debug_arrow(sr_debug_list *list, sr_vec3 from, sr_vec3 to, sr_debug_style style);
/// The ray from its origin to origin + length * direction (length <= 0 or infinite: to tmax when
/// finite, else 1000 units), with an arrow head.
void sr_debug_ray(sr_debug_list *list, const sr_ray *ray, float length, sr_debug_style style);
/// A point marker: a cross `size_px` pixels wide on screen, whatever the distance.
void sr_debug_point(sr_debug_list *list, sr_vec3 point, float size_px, sr_debug_style style);
void sr_debug_aabb(sr_debug_list *list, sr_aabb box, sr_debug_style style);
void sr_debug_obb(sr_debug_list *list, const sr_obb *box, sr_debug_style style);
/// The 12 edges of `box` mapped by `transform` (any affine matrix).
void sr_debug_box(sr_debug_list *list, sr_aabb box, sr_mat4 transform, sr_debug_style style);
/// Three great circles (in the XY, YZ and ZX planes), 32 segments each.
void sr_debug_sphere(sr_debug_list *list, sr_vec3 centre, float radius, sr_debug_style style);
/// A capsule around segment a-b: two circles at the ends, four side lines and half circles.
void sr_debug_capsule(sr_debug_list *list, sr_vec3 a, sr_vec3 b, float radius, sr_debug_style style);
void sr_debug_cylinder(sr_debug_list *list, sr_vec3 a, sr_vec3 b, float radius, sr_debug_style style);
/// A cone with its apex at `apex` and its base disc of `radius` around `base`.
void sr_debug_cone(sr_debug_list *list, sr_vec3 apex, sr_vec3 base, float radius, sr_debug_style style);
/// The 12 edges of the frustum of a world-to-clip matrix (zero-to-one depth), found by mapping
/// the clip cube's corners back (nothing for a singular matrix).
void sr_debug_frustum(sr_debug_list *list, sr_mat4 view_projection, sr_debug_style style);
/// The frustum of a camera for a `width` x `height` image.
void sr_debug_camera_frustum(sr_debug_list *list, const sr_camera *camera, int width, int height, sr_debug_style style);
/// X, Y, Z axes of `transform` in red, green and blue, `length` long (style's width and on_top).
void sr_debug_axes(sr_debug_list *list, sr_mat4 transform, float length, sr_debug_style style);
/// A ground grid in the XZ plane at height y = centre.y: `divisions` x `divisions` squares
/// covering `size` x `size` around the centre, the two centre lines brighter.
void sr_debug_grid(sr_debug_list *list, sr_vec3 centre, float size, int divisions, sr_debug_style style);
void sr_debug_triangle(sr_debug_list *list, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_debug_style style);
/// Text anchored at a world point: its top-left corner at the point's pixel, drawn on top
/// (text is not depth-tested unless style.on_top is false, then it is hidden behind the scene
/// when its anchor is). Copied into the list.
void sr_debug_text(sr_debug_list *list, sr_vec3 anchor, const char *text, sr_debug_style style);

/* ---- 2D items (window pixels, origin top-left), always on top ---- */

void sr_debug_text_2d(sr_debug_list *list, float x, float y, const char *text, sr_debug_style style);
/// A rectangle outline, or filled when `filled` (for legends and backdrops).
void sr_debug_rect_2d(sr_debug_list *list, float x, float y, float width, float height, bool filled,
                      sr_debug_style style);

/* ---- drawing ---- */

/// Draws the list over `fb` as seen by `view_projection` (world to clip, zero-to-one depth):
/// depth-tested segments, then on-top ones, then 2D rectangles and text, each group in the
/// order given. Lines go through sr_draw_lines, so they use the renderer's threads and the
/// image does not depend on their number. The items are kept: a list may be drawn over several
/// frames (the list's scratch memory is used, so one draw at a time per list). Never writes
/// depth or ids. Errors: NULL arguments, those of sr_draw_lines.
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
    /// Scale of the HUD's and the legends' text, 1 to 4 (0: sr_overlay_text_scale of the frame).
    int text_scale;
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
/// node, triangle, t, position, normal and BVH nodes visited (or that it hit nothing); then
/// desc->hud_text. Writes at most `size` bytes (NUL included); returns the text's length.
size_t sr_overlay_hud_text(const sr_scene *scene, const sr_scene_frame *frame, const sr_overlay_desc *desc,
                           const sr_pick_hit *pick, char *out, size_t size);

/// Parses the --overlay syntax: comma-separated items bvh[:A-B], mesh-bvh[:A-B], bounds, normals,
/// wire, pick:X,Y, frustum, heat, axes, grid, hud (into desc->items and the ranges; other fields
/// untouched). Errors name the item.
sr_status sr_overlay_parse(const char *text, sr_overlay_desc *desc, sr_error *err);

/// Appends the overlays of `desc` to `list` for a `width` x `height` frame of `scene` seen by
/// `camera` and culled as `frame` says (the frame of the sr_scene_render just done): BVH nodes
/// from sr_scene_instance_tree and sr_scene_mesh_bvh, bounds and culled sets from the frame, the
/// pick from sr_scene_pick. Items past the list's capacity are dropped (see sr_debug_list_clear).
sr_status sr_overlay_add(const sr_scene *scene, const sr_scene_frame *frame, const sr_camera *camera, int width,
                         int height, const sr_overlay_desc *desc, sr_debug_list *list, sr_error *err);

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
