/* src/debug/debug_draw.c — sr_debug_draw: a list's items over a frame. Segments go through
 * sr_draw_lines in groups of the same width and depth mode (depth-tested first, then on top),
 * each group in the order the items were added; markers become crosses of a fixed pixel size
 * in normalised device coordinates; 2D rectangles and text are drawn last, on top.
 * Knows raster and the font; nothing of scenes' internals or SDL. */
#include "debug_internal.h"
#include "font.h"

/* A colour as line vertex floats. */
static void unpack(uint32_t rgba, float out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = (float)(rgba >> (8 * k) & 0xffu) / 255.0f;
}

/* Appends the segment p-q (positions in the space the group is drawn in) to the scratch. */
static void emit(sr_line_vertex *vertices, size_t *count, sr_vec3 p, sr_vec3 q, uint32_t color)
{
    sr_line_vertex *v = &vertices[*count];
    v[0].position = p;
    v[1].position = q;
    unpack(color, v[0].color);
    unpack(color, v[1].color);
    *count += 2;
}

/* Window pixel (x, y) at window depth z as a normalised device coordinate point. */
static sr_vec3 ndc_of(const sr_framebuffer *fb, float x, float y, float z)
{
    return sr_vec3_make(x / (float)fb->width * 2.0f - 1.0f, 1.0f - y / (float)fb->height * 2.0f, z);
}

/* Draws the items of one group: `world` segments through view_projection, or markers and
 * rectangle outlines in normalised device coordinates (identity matrix). */
static sr_status draw_group(sr_debug_list *list, sr_renderer *renderer, sr_framebuffer *fb, sr_mat4 view_projection,
                            bool world, bool on_top, int width, sr_error *err)
{
    size_t count = 0;
    sr_line_vertex *v = list->scratch;
    for (size_t i = 0; i < list->item_count; i++) {
        const debug_item *item = &list->items[i];
        if (item->width != width || (bool)item->on_top != on_top)
            continue;
        if (world && item->kind == ITEM_SEGMENT) {
            emit(v, &count, item->a, item->b, item->color);
        } else if (!world && item->kind == ITEM_MARKER) {
            sr_vec4 clip = sr_mat4_mul_vec4(view_projection, sr_vec4_from_vec3(item->a, 1.0f));
            if (!(clip.w > 0.0f) || !(clip.z >= 0.0f && clip.z <= clip.w))
                continue; // behind the eye or outside the depth range
            float x = (clip.x / clip.w + 1.0f) * 0.5f * (float)fb->width;
            float y = (1.0f - clip.y / clip.w) * 0.5f * (float)fb->height;
            float z = clip.z / clip.w, half = 0.5f * item->size;
            // A diagonal cross: it stays readable on horizontal and vertical edges.
            emit(v, &count, ndc_of(fb, x - half, y - half, z), ndc_of(fb, x + half, y + half, z), item->color);
            emit(v, &count, ndc_of(fb, x - half, y + half, z), ndc_of(fb, x + half, y - half, z), item->color);
        } else if (!world && item->kind == ITEM_RECT) {
            float x0 = item->a.x + 0.5f, y0 = item->a.y + 0.5f;
            float x1 = item->a.x + item->b.x - 0.5f, y1 = item->a.y + item->b.y - 0.5f;
            sr_vec3 corners[4] = {ndc_of(fb, x0, y0, 0.0f), ndc_of(fb, x1, y0, 0.0f), ndc_of(fb, x1, y1, 0.0f),
                                  ndc_of(fb, x0, y1, 0.0f)};
            for (int k = 0; k < 4; k++)
                emit(v, &count, corners[k], corners[(k + 1) % 4], item->color);
        }
    }
    if (count == 0)
        return SR_OK;
    sr_line_desc desc = {
        .vertices = v,
        .vertex_count = count,
        .view_projection = world ? view_projection : sr_mat4_identity(),
        .depth_test = !on_top,
        .depth_bias = on_top ? 0.0f : SR_DEBUG_DEPTH_BIAS,
        .blend = SR_BLEND_ALPHA,
        .width = width,
    };
    return sr_draw_lines(renderer, fb, &desc, err);
}

/* A filled rectangle: the pixels whose centres it covers, blended. */
static void fill_rect(sr_framebuffer *fb, const debug_item *item)
{
    float x0 = item->a.x, y0 = item->a.y, x1 = item->a.x + item->b.x, y1 = item->a.y + item->b.y;
    if (!(x1 > x0 && y1 > y0))
        return;
    // Pixel i is covered when x0 <= i + 0.5 < x1.
    float first_x = ceilf(x0 - 0.5f), last_x = ceilf(x1 - 0.5f) - 1.0f;
    float first_y = ceilf(y0 - 0.5f), last_y = ceilf(y1 - 0.5f) - 1.0f;
    int left = first_x < 0.0f ? 0 : first_x > (float)fb->width ? fb->width : (int)first_x;
    int right = last_x >= (float)fb->width ? fb->width - 1 : last_x < -1.0f ? -1 : (int)last_x;
    int top = first_y < 0.0f ? 0 : first_y > (float)fb->height ? fb->height : (int)first_y;
    int bottom = last_y >= (float)fb->height ? fb->height - 1 : last_y < -1.0f ? -1 : (int)last_y;
    float color[4];
    unpack(item->color, color);
    for (int y = top; y <= bottom; y++)
        for (int x = left; x <= right; x++) {
            uint32_t *pixel = &fb->color[(size_t)y * (size_t)fb->width + (size_t)x];
            *pixel = sr_blend_rgba8(SR_BLEND_ALPHA, color, *pixel);
        }
}

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
    // Depth-tested before on-top, world segments before markers, thin before wide.
    for (int on_top = 0; on_top < 2; on_top++)
        for (int world = 1; world >= 0; world--)
            for (int width = 1; width <= 4; width++) {
                sr_status status = draw_group(list, renderer, fb, view_projection, world, on_top, width, err);
                if (status != SR_OK)
                    return status;
            }
    for (size_t i = 0; i < list->item_count; i++)
        if (list->items[i].kind == ITEM_FILLED_RECT)
            fill_rect(fb, &list->items[i]);
    for (size_t i = 0; i < list->text_count; i++) {
        const debug_text *text = &list->texts[i];
        float x = text->anchor.x, y = text->anchor.y;
        if (!text->is_2d) {
            sr_vec4 clip = sr_mat4_mul_vec4(view_projection, sr_vec4_from_vec3(text->anchor, 1.0f));
            if (!(clip.w > 0.0f) || !(clip.z >= 0.0f && clip.z <= clip.w))
                continue;
            x = (clip.x / clip.w + 1.0f) * 0.5f * (float)fb->width;
            y = (1.0f - clip.y / clip.w) * 0.5f * (float)fb->height;
            if (!text->on_top) { // hidden when its anchor is behind the scene
                float z = clip.z / clip.w;
                int px = (int)floorf(x), py = (int)floorf(y);
                if (px >= 0 && py >= 0 && px < fb->width && py < fb->height &&
                    !(z - SR_DEBUG_DEPTH_BIAS * (1.0f - z) <= fb->depth[(size_t)py * (size_t)fb->width + (size_t)px]))
                    continue;
            }
        }
        if (!(x > -1e6f && x < 1e6f && y > -1e6f && y < 1e6f))
            continue;
        sr_font_draw(fb, (int)floorf(x), (int)floorf(y), list->bytes + text->offset, text->scale, text->color,
                     sr_rgba8(0.0f, 0.0f, 0.0f, 0.8f), SR_FONT_OUTLINE);
    }
    return SR_OK;
}
