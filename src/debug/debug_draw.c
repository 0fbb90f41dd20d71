/* src/debug/debug_draw.c — sr_debug_draw: a list's items over a frame. The items are tessellated
 * (debug_tessellate.c) into the list's scratch sorted into groups — per depth mode (tested, then
 * on top): filled triangles, then world segments and screen segments (markers, 2D outlines) of
 * each width — each group keeping the order the items were added; segments go through
 * sr_draw_lines, fills through sr_draw_triangles with a small program of its own. Dots, filled 2D
 * rectangles and text are written pixel by pixel, blended as the pipeline blends.
 * Knows raster and the font; nothing of scenes' internals or SDL. */
#include "debug_internal.h"
#include "font.h"

/* Segment groups: index on_top * 8 + screen * 4 + (width - 1), drawn in index order within a
 * depth mode after that mode's fills. */
enum { GROUPS = 16 };

static int group_of(const sr_debug_item *item)
{
    return (item->style.on_top ? 8 : 0) + (sr_debug_item_is_screen(item) ? 4 : 0) + (item->style.width - 1);
}

/* ---- fills: the program ---- */

/* Clip position from a line vertex through the uniforms' matrix; the colour as 4 varyings. */
static void fill_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const sr_line_vertex *v = vertex;
    sr_vec4 c = sr_mat4_mul_vec4(*(const sr_mat4 *)uniforms, sr_vec4_from_vec3(v->position, 1.0f));
    clip[0] = c.x;
    clip[1] = c.y;
    clip[2] = c.z;
    clip[3] = c.w;
    for (int k = 0; k < 4; k++)
        varyings[k] = v->color[k];
}

/* The fill's colour is one RGBA8 value per triangle; interpolating a constant may round a unit
 * in the last place either way, so it is put back on the byte grid: every pixel of a fill then
 * blends the same colour, exactly the one sr_blend_rgba8 is given by the tests. */
static float on_byte_grid(float value)
{
    return floorf(value * 255.0f + 0.5f) / 255.0f;
}

static bool fill_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    (void)uniforms;
    for (int k = 0; k < 4; k++)
        out->color[k] = on_byte_grid(in->varyings[k]);
    return true;
}

static uint32_t fill_fragment_block(const sr_fragment_block_in *in, const void *uniforms, sr_fragment_block_out *out)
{
    (void)uniforms;
    for (int k = 0; k < 4; k++)
        for (int lane = 0; lane < SR_BLOCK_LANES; lane++)
            out->color[k][lane] = on_byte_grid(in->varyings[k][lane]);
    return in->mask;
}

/* Draws `count` filled triangles (3 vertices each). Depth-tested fills are tested LESS_EQUAL
 * with the lines' bias, put into the matrix: clip z' = (1 + bias) z - bias w is window depth
 * z - bias (1 - z), exactly what sr_line_desc.depth_bias tests (without its slope term). Never
 * writes depth, nor ids (drawn into a copy of the framebuffer's description without them). */
static sr_status draw_fills(sr_renderer *renderer, const sr_framebuffer *fb, sr_mat4 view_projection, bool on_top,
                            const sr_line_vertex *vertices, size_t count, sr_error *err)
{
    if (count == 0)
        return SR_OK;
    sr_mat4 bias = sr_mat4_identity();
    if (!on_top) {
        bias.m[10] = 1.0f + SR_DEBUG_DEPTH_BIAS;
        bias.m[14] = -SR_DEBUG_DEPTH_BIAS;
    }
    sr_mat4 matrix = sr_mat4_mul(bias, view_projection);
    sr_program program = {.name = "debug_fill",
                          .vertex = fill_vertex,
                          .fragment = fill_fragment,
                          .fragment_block = fill_fragment_block,
                          .varying_count = 4,
                          .uniforms = &matrix,
                          .vertex_size = sizeof(sr_line_vertex)};
    sr_framebuffer target = *fb;
    target.ids = NULL;
    sr_draw_desc desc = {
        .vertices = vertices,
        .vertex_count = 3 * count,
        .vertex_stride = sizeof(sr_line_vertex),
        .program = &program,
        .state = {.cull = SR_CULL_NONE,
                  .depth_func = on_top ? SR_DEPTH_ALWAYS : SR_DEPTH_LESS_EQUAL,
                  .no_depth_write = true,
                  .blend = SR_BLEND_ALPHA},
    };
    return sr_draw_triangles(renderer, &target, &desc, err);
}

/* ---- pixel by pixel: dots, filled rectangles, text ---- */

/* A colour as floats, as the pipeline blends them. */
static void unpack(uint32_t rgba, float out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = (float)(rgba >> (8 * k) & 0xffu) / 255.0f;
}

/* The window position and depth of world point `p`; false behind the eye, outside the depth
 * range or far off screen. */
static bool window_of(sr_mat4 view_projection, const sr_framebuffer *fb, sr_vec3 p, float *x, float *y, float *z)
{
    sr_vec4 clip = sr_mat4_mul_vec4(view_projection, sr_vec4_from_vec3(p, 1.0f));
    if (!(clip.w > 0.0f) || !(clip.z >= 0.0f && clip.z <= clip.w))
        return false;
    *x = (clip.x / clip.w + 1.0f) * 0.5f * (float)fb->width;
    *y = (1.0f - clip.y / clip.w) * 0.5f * (float)fb->height;
    *z = clip.z / clip.w;
    return *x > -1e6f && *x < 1e6f && *y > -1e6f && *y < 1e6f;
}

/* Whether a point at window depth z, biased as the lines are, passes LESS_EQUAL at pixel i. */
static bool depth_passes(const sr_framebuffer *fb, size_t i, float z)
{
    return z - SR_DEBUG_DEPTH_BIAS * (1.0f - z) <= fb->depth[i];
}

/* The pixel range [first, last] whose centres k + 0.5 lie in [lo, hi], clipped to [0, size). */
static void pixel_range(float lo, float hi, int size, int *first, int *last)
{
    float a = ceilf(lo - 0.5f), b = floorf(hi - 0.5f);
    *first = a < 0.0f ? 0 : a > (float)size ? size : (int)a;
    *last = b >= (float)size ? size - 1 : b < -1.0f ? -1 : (int)b;
}

/* Whether a screen-sized item anchored at window (x, y, z) is hidden by the scene: its anchor's
 * pixel fails the biased depth test (an anchor off screen hides nothing). The item is then
 * hidden as a whole, as a label or a contact dot on a sloped surface should be shown whole. */
static bool anchor_hidden(const sr_framebuffer *fb, float x, float y, float z)
{
    int px = (int)floorf(x), py = (int)floorf(y);
    return px >= 0 && py >= 0 && px < fb->width && py < fb->height &&
           !depth_passes(fb, (size_t)py * (size_t)fb->width + (size_t)px, z);
}

/* A dot: the pixels whose centres lie within size / 2 of the point's window position. */
static void draw_dot(sr_framebuffer *fb, sr_mat4 view_projection, const sr_debug_item *item)
{
    float x, y, z;
    if (!(item->style.color >> 24) || !window_of(view_projection, fb, item->point.position, &x, &y, &z) ||
        (!item->style.on_top && anchor_hidden(fb, x, y, z)))
        return;
    float radius = 0.5f * item->point.size_px;
    int left, right, top, bottom;
    pixel_range(x - radius, x + radius, fb->width, &left, &right);
    pixel_range(y - radius, y + radius, fb->height, &top, &bottom);
    float color[4];
    unpack(item->style.color, color);
    for (int py = top; py <= bottom; py++)
        for (int px = left; px <= right; px++) {
            float dx = (float)px + 0.5f - x, dy = (float)py + 0.5f - y;
            if (dx * dx + dy * dy <= radius * radius) {
                uint32_t *p = &fb->color[(size_t)py * (size_t)fb->width + (size_t)px];
                *p = sr_blend_rgba8(SR_BLEND_ALPHA, color, *p);
            }
        }
}

/* A filled rectangle: the pixels whose centres it covers, blended. */
static void fill_rect(sr_framebuffer *fb, const sr_debug_item *item)
{
    const sr_debug_item_rect *r = &item->rect;
    float x0 = r->x, y0 = r->y, x1 = r->x + r->width, y1 = r->y + r->height;
    if (!(x1 > x0 && y1 > y0) || !(item->style.color >> 24))
        return;
    // Pixel i is covered when x0 <= i + 0.5 < x1.
    float first_x = ceilf(x0 - 0.5f), last_x = ceilf(x1 - 0.5f) - 1.0f;
    float first_y = ceilf(y0 - 0.5f), last_y = ceilf(y1 - 0.5f) - 1.0f;
    int left = first_x < 0.0f ? 0 : first_x > (float)fb->width ? fb->width : (int)first_x;
    int right = last_x >= (float)fb->width ? fb->width - 1 : last_x < -1.0f ? -1 : (int)last_x;
    int top = first_y < 0.0f ? 0 : first_y > (float)fb->height ? fb->height : (int)first_y;
    int bottom = last_y >= (float)fb->height ? fb->height - 1 : last_y < -1.0f ? -1 : (int)last_y;
    float color[4];
    unpack(item->style.color, color);
    for (int y = top; y <= bottom; y++)
        for (int x = left; x <= right; x++) {
            uint32_t *pixel = &fb->color[(size_t)y * (size_t)fb->width + (size_t)x];
            *pixel = sr_blend_rgba8(SR_BLEND_ALPHA, color, *pixel);
        }
}

/* Text: world-anchored text at its anchor's pixel (hidden, unless on top, when the anchor is
 * behind the scene), 2D text at its window position. */
static void draw_text(sr_debug_list *list, sr_framebuffer *fb, sr_mat4 view_projection, const sr_debug_item *item)
{
    float x = item->text.anchor.x, y = item->text.anchor.y, z;
    if (!(item->style.color >> 24))
        return;
    if (item->kind == SR_DEBUG_ITEM_TEXT) {
        if (!window_of(view_projection, fb, item->text.anchor, &x, &y, &z) ||
            (!item->style.on_top && anchor_hidden(fb, x, y, z)))
            return;
    }
    if (!(x > -1e6f && x < 1e6f && y > -1e6f && y < 1e6f))
        return;
    // The dark outline fades with the text: a label faded out leaves nothing behind.
    float alpha = (float)(item->style.color >> 24) / 255.0f;
    sr_font_draw(fb, (int)floorf(x), (int)floorf(y), list->bytes + item->text.offset, item->style.width,
                 item->style.color, sr_rgba8(0.0f, 0.0f, 0.0f, 0.8f * alpha), SR_FONT_OUTLINE);
}

/* ---- the draw ---- */

sr_status sr_debug_draw(sr_debug_list *list, sr_renderer *renderer, sr_framebuffer *fb, sr_mat4 view_projection,
                        sr_error *err)
{
    if (!list || !renderer || !fb)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_draw: %s is NULL",
                            !list       ? "list"
                            : !renderer ? "renderer"
                                        : "fb");
    if (fb->width < 1 || fb->height < 1 || !fb->color || !fb->depth)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_draw: the framebuffer has no pixels");
    // Where each group starts in the scratch: the sums of its items' costs, in group order.
    size_t segment_start[GROUPS + 1] = {0}, triangle_start[3] = {0};
    for (size_t i = 0; i < list->item_count; i++) {
        const sr_debug_item *item = &list->items[i];
        debug_cost cost = sr_debug_item_cost(item);
        segment_start[group_of(item) + 1] += cost.segments;
        triangle_start[item->style.on_top + 1] += cost.triangles;
    }
    for (int g = 0; g < GROUPS; g++)
        segment_start[g + 1] += segment_start[g];
    triangle_start[2] += triangle_start[1];
    // Tessellate every item into its group, in the order added.
    size_t segment_end[GROUPS], triangle_end[2];
    for (int g = 0; g < GROUPS; g++)
        segment_end[g] = segment_start[g];
    triangle_end[0] = triangle_start[0];
    triangle_end[1] = triangle_start[1];
    const debug_view view = {.view_projection = view_projection, .width = fb->width, .height = fb->height};
    for (size_t i = 0; i < list->item_count; i++) {
        const sr_debug_item *item = &list->items[i];
        int g = group_of(item), mode = item->style.on_top;
        debug_sink sink = {.segments = list->scratch->segments + 2 * segment_end[g],
                           .triangles = list->scratch->triangles + 3 * triangle_end[mode]};
        const sr_vec3 *points = item->kind == SR_DEBUG_ITEM_POLYLINE ? list->points + item->polyline.first
                                : item->kind == SR_DEBUG_ITEM_SHAPE  ? list->points + item->shape.first
                                                                     : NULL;
        sr_debug_tessellate(item, points, &view, &sink);
        segment_end[g] += sink.segment_count;
        triangle_end[mode] += sink.triangle_count;
    }
    // Depth-tested before on top; fills, then world segments, then screen segments (thin before
    // wide), then dots.
    for (int mode = 0; mode < 2; mode++) {
        sr_status status =
            draw_fills(renderer, fb, view_projection, mode, list->scratch->triangles + 3 * triangle_start[mode],
                       triangle_end[mode] - triangle_start[mode], err);
        for (int g = 8 * mode; g < 8 * mode + 8 && status == SR_OK; g++) {
            if (segment_end[g] == segment_start[g])
                continue;
            bool screen = g % 8 >= 4, on_top = mode == 1;
            sr_line_desc desc = {
                .vertices = list->scratch->segments + 2 * segment_start[g],
                .vertex_count = 2 * (segment_end[g] - segment_start[g]),
                .view_projection = screen ? sr_mat4_identity() : view_projection,
                .depth_test = !on_top,
                .depth_bias = on_top ? 0.0f : SR_DEBUG_DEPTH_BIAS,
                .blend = SR_BLEND_ALPHA,
                .width = g % 4 + 1,
            };
            status = sr_draw_lines(renderer, fb, &desc, err);
        }
        if (status != SR_OK)
            return status;
        for (size_t i = 0; i < list->item_count; i++)
            if (list->items[i].kind == SR_DEBUG_ITEM_DOT && list->items[i].style.on_top == (bool)mode)
                draw_dot(fb, view_projection, &list->items[i]);
    }
    for (size_t i = 0; i < list->item_count; i++)
        if (list->items[i].kind == SR_DEBUG_ITEM_RECT_2D && list->items[i].rect.filled)
            fill_rect(fb, &list->items[i]);
    for (size_t i = 0; i < list->item_count; i++)
        if (list->items[i].kind == SR_DEBUG_ITEM_TEXT || list->items[i].kind == SR_DEBUG_ITEM_TEXT_2D)
            draw_text(list, fb, view_projection, &list->items[i]);
    return SR_OK;
}
