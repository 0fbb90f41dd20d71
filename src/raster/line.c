/* src/raster/line.c — sr_draw_lines: world-space segments transformed to clip space, clipped
 * against the view volume in homogeneous space (parametrically, Liang–Barsky style), and drawn
 * one pixel wide by stepping the major axis with pixel-centre sampling. Perspective-correct
 * colour, optional LESS_EQUAL depth test without depth writes, blending.
 * Knows nothing of triangles or of the debug-draw lists that feed it. */
#include "raster_internal.h"

#include <math.h>

/* A clipped segment end in window space. */
typedef struct line_end {
    float x, y;     ///< window position in pixels
    float z;        ///< window depth
    float inv_w;    ///< 1 / w
    float color[4]; ///< colour / w
} line_end;

static float line_plane_distance(int plane, const float c[4])
{
    switch (plane) {
    case 0:
        return c[3] - SR_CLIP_W_EPSILON;
    case 1:
        return c[2]; // near: z >= 0
    case 2:
        return c[3] - c[2]; // far: z <= w
    case 3:
        return c[0] + c[3]; // x >= -w
    case 4:
        return c[3] - c[0]; // x <= w
    case 5:
        return c[1] + c[3]; // y >= -w
    default:
        return c[3] - c[1];
    }
}

static bool make_end(const float clip[4], const float color[4], const sr_viewport *viewport, line_end *end)
{
    float inv_w = 1.0f / clip[3];
    /* A clipped end lies in the view volume up to the clipper's rounding, which is unbounded when
     * the clip parameter is subnormal (a segment from a point just behind the eye to one near
     * FLT_MAX): x / w came out as -3.6e14 (found by fuzz_draw). Clamp to the volume. */
    float ndc_x = clip[0] * inv_w, ndc_y = clip[1] * inv_w;
    ndc_x = ndc_x < -1.0f ? -1.0f : ndc_x > 1.0f ? 1.0f : ndc_x;
    ndc_y = ndc_y < -1.0f ? -1.0f : ndc_y > 1.0f ? 1.0f : ndc_y;
    end->x = (ndc_x + 1.0f) * 0.5f * (float)viewport->width;
    end->y = (1.0f - ndc_y) * 0.5f * (float)viewport->height;
    float z = clip[2] * inv_w;
    end->z = z < 0.0f ? 0.0f : z > 1.0f ? 1.0f : z;
    end->inv_w = inv_w;
    for (int k = 0; k < 4; k++)
        end->color[k] = color[k] * inv_w;
    return isfinite(end->x) && isfinite(end->y) && isfinite(inv_w);
}

static void plot(sr_framebuffer *fb, const sr_line_desc *desc, const line_end *a, const line_end *b, float t, int px,
                 int py, uint64_t *written)
{
    size_t index = (size_t)py * (size_t)fb->width + (size_t)px;
    float z = a->z + (b->z - a->z) * t;
    if (desc->depth_test && !(z <= fb->depth[index]))
        return;
    float inv_w = a->inv_w + (b->inv_w - a->inv_w) * t;
    float w = 1.0f / inv_w, color[4];
    for (int k = 0; k < 4; k++)
        color[k] = (a->color[k] + (b->color[k] - a->color[k]) * t) * w;
    fb->color[index] = sr_raster_blend(desc->blend, color, fb->color[index]);
    (*written)++;
}

static void rasterize_segment(sr_framebuffer *fb, const sr_line_desc *desc, const line_end *a, const line_end *b,
                              uint64_t *written)
{
    float dx = b->x - a->x, dy = b->y - a->y;
    bool x_major = fabsf(dx) >= fabsf(dy);
    // Step the major axis from the end with the smaller coordinate.
    float major_a = x_major ? a->x : a->y, major_b = x_major ? b->x : b->y;
    const line_end *from = a, *to = b;
    if (major_b < major_a) {
        from = b;
        to = a;
        float swap = major_a;
        major_a = major_b;
        major_b = swap;
    }
    float major_delta = major_b - major_a;
    float minor_from = x_major ? from->y : from->x, minor_delta = x_major ? to->y - from->y : to->x - from->x;
    int major_size = x_major ? fb->width : fb->height, minor_size = x_major ? fb->height : fb->width;
    float first_f = floorf(major_a), last_f = floorf(major_b);
    /* clamped in float before the conversion, which is undefined outside int's range */
    int first = first_f < 0.0f ? 0 : first_f > (float)major_size ? major_size : (int)first_f;
    int last = last_f > (float)(major_size - 1) ? major_size - 1 : last_f < -1.0f ? -1 : (int)last_f;
    float inv_delta = major_delta > 0.0f ? 1.0f / major_delta : 0.0f;
    for (int cell = first; cell <= last; cell++) {
        // Sample at the column's (row's) centre, clamped to the segment so that both ends' own
        // pixels are included.
        float at = (float)cell + 0.5f;
        at = at < major_a ? major_a : at > major_b ? major_b : at;
        float t = (at - major_a) * inv_delta;
        float minor_f = floorf(minor_from + minor_delta * t);
        if (!(minor_f >= 0.0f && minor_f < (float)minor_size))
            continue;
        int minor = (int)minor_f;
        plot(fb, desc, from, to, t, x_major ? cell : minor, x_major ? minor : cell, written);
    }
}

sr_status sr_draw_lines(sr_renderer *renderer, sr_framebuffer *fb, const sr_line_desc *desc, sr_error *err)
{
    const sr_status invalid = SR_ERROR_INVALID_ARGUMENT;
    if (!renderer)
        return sr_error_set(err, invalid, "sr_draw_lines: renderer is NULL");
    sr_status status = sr_raster_check_framebuffer(fb, "sr_draw_lines", err);
    if (status != SR_OK)
        return status;
    if (!desc)
        return sr_error_set(err, invalid, "sr_draw_lines: desc is NULL");
    if (desc->vertex_count > 0 && !desc->vertices)
        return sr_error_set(err, invalid, "sr_draw_lines: desc->vertices is NULL but vertex_count is %zu",
                            desc->vertex_count);
    if (desc->vertex_count % 2 != 0)
        return sr_error_set(err, invalid, "sr_draw_lines: desc->vertex_count %zu is odd", desc->vertex_count);
    if ((unsigned)desc->blend > SR_BLEND_ADDITIVE)
        return sr_error_set(err, invalid, "sr_draw_lines: desc->blend %d is not an sr_blend_mode", (int)desc->blend);

    sr_viewport viewport = sr_raster_viewport(fb->width, fb->height);
    uint64_t written = 0, skipped = 0;
    for (size_t i = 0; i + 1 < desc->vertex_count; i += 2) {
        float clip[2][4], color[2][4];
        for (int e = 0; e < 2; e++) {
            const sr_line_vertex *vertex = &desc->vertices[i + (size_t)e];
            sr_vec4 c = sr_mat4_mul_vec4(desc->view_projection, sr_vec4_from_vec3(vertex->position, 1.0f));
            clip[e][0] = c.x;
            clip[e][1] = c.y;
            clip[e][2] = c.z;
            clip[e][3] = c.w;
            for (int k = 0; k < 4; k++)
                color[e][k] = vertex->color[k];
        }
        bool finite = true;
        for (int k = 0; k < 4; k++)
            finite = finite && isfinite(clip[0][k]) && isfinite(clip[1][k]);
        if (!finite) {
            skipped++;
            continue;
        }
        // Parametric clipping: keep t in [enter, leave] where every plane distance is >= 0.
        float enter = 0.0f, leave = 1.0f;
        bool visible = true;
        for (int plane = 0; plane < SR_CLIP_PLANE_COUNT && visible; plane++) {
            float d0 = line_plane_distance(plane, clip[0]), d1 = line_plane_distance(plane, clip[1]);
            if (d0 < 0.0f && d1 < 0.0f)
                visible = false;
            else if (d0 < 0.0f)
                enter = fmaxf(enter, d0 / (d0 - d1));
            else if (d1 < 0.0f)
                leave = fminf(leave, d0 / (d0 - d1));
        }
        if (!visible || enter > leave)
            continue;
        float clipped[2][4], colors[2][4];
        for (int k = 0; k < 4; k++) {
            clipped[0][k] = clip[0][k] + (clip[1][k] - clip[0][k]) * enter;
            clipped[1][k] = clip[0][k] + (clip[1][k] - clip[0][k]) * leave;
            colors[0][k] = color[0][k] + (color[1][k] - color[0][k]) * enter;
            colors[1][k] = color[0][k] + (color[1][k] - color[0][k]) * leave;
        }
        line_end a, b;
        if (!(clipped[0][3] > 0.0f && clipped[1][3] > 0.0f) || !make_end(clipped[0], colors[0], &viewport, &a) ||
            !make_end(clipped[1], colors[1], &viewport, &b)) {
            skipped++;
            continue;
        }
        rasterize_segment(fb, desc, &a, &b, &written);
    }
    renderer->stats.lines_in += desc->vertex_count / 2;
    renderer->stats.lines_skipped += skipped;
    renderer->stats.fragments_written += written;
    return SR_OK;
}
