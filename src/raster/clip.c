/* src/raster/clip.c — vertex classification, perspective divide and viewport transform, and
 * homogeneous (Sutherland–Hodgman) clipping of convex polygons against the w, near and far
 * planes and the guard band. Knows nothing of rasterisation or of the framebuffer's contents. */
#include "raster_internal.h"

#include <math.h>
#include <string.h>

sr_viewport sr_raster_viewport(int width, int height)
{
    sr_viewport viewport;
    viewport.width = width;
    viewport.height = height;
    // x_win = (ndc.x + 1) / 2 * W, in units of 1/256 pixel: ndc.x * 128 W + 128 W.
    viewport.scale_x = (float)width * (float)(SR_SUBPIXEL_ONE / 2);
    viewport.scale_y = (float)height * (float)(SR_SUBPIXEL_ONE / 2);
    // The band reaches SR_GUARD_BAND_PIXELS from the viewport centre: |ndc| <= G / (W / 2).
    viewport.guard_x = SR_GUARD_BAND_PIXELS / (0.5f * (float)width);
    viewport.guard_y = SR_GUARD_BAND_PIXELS / (0.5f * (float)height);
    return viewport;
}

static float clamp_fixed(float value)
{
    return value < -SR_FIXED_LIMIT ? -SR_FIXED_LIMIT : value > SR_FIXED_LIMIT ? SR_FIXED_LIMIT : value;
}

/* The one perspective divide of the pipeline: both the vertex cache and the clipper call it, so a
 * vertex shared by a clipped and an unclipped triangle lands on the same fixed-point position. */
static void project_to_window(const float clip[4], const sr_viewport *viewport, sr_screen_vertex *out)
{
    float inv_w = 1.0f / clip[3];
    float x = clip[0] * inv_w * viewport->scale_x + viewport->scale_x;
    float y = viewport->scale_y - clip[1] * inv_w * viewport->scale_y;
    // Round to nearest: the 8-bit snapping of DESIGN.md.
    out->x = (int32_t)lrintf(clamp_fixed(x));
    out->y = (int32_t)lrintf(clamp_fixed(y));
    float depth = clip[2] * inv_w;
    out->z = depth < 0.0f ? 0.0f : depth > 1.0f ? 1.0f : depth;
    out->inv_w = inv_w;
}

sr_screen_vertex sr_raster_project(const float clip[4], const sr_viewport *viewport)
{
    sr_screen_vertex out = {0, 0, 0.0f, 0.0f, 0};
    float x = clip[0], y = clip[1], w = clip[3];
    if (!(isfinite(clip[0]) && isfinite(clip[1]) && isfinite(clip[2]) && isfinite(clip[3]))) {
        out.flags = SR_VERTEX_NONFINITE;
        return out;
    }
    uint32_t flags = 0;
    for (int plane = 0; plane < SR_CLIP_PLANE_COUNT; plane++)
        if (sr_raster_plane_distance(plane, clip, viewport) < 0.0f)
            flags |= 1u << plane;
    flags |= (x < -w ? SR_OUT_LEFT : 0u) | (x > w ? SR_OUT_RIGHT : 0u);
    flags |= (y < -w ? SR_OUT_BOTTOM : 0u) | (y > w ? SR_OUT_TOP : 0u);
    out.flags = flags;
    if (!(flags & SR_CLIP_MASK))
        project_to_window(clip, viewport, &out);
    return out;
}

static double clamp_fixed_double(double value)
{
    return value < -SR_FIXED_LIMIT ? -SR_FIXED_LIMIT : value > SR_FIXED_LIMIT ? SR_FIXED_LIMIT : value;
}

bool sr_raster_project_clipped(const double clip[4], const sr_viewport *viewport, sr_screen_vertex *out)
{
    if (!(isfinite(clip[0]) && isfinite(clip[1]) && isfinite(clip[2]) && clip[3] > 0.0 && isfinite(clip[3])))
        return false;
    double inv_w = 1.0 / clip[3];
    double x = clip[0] * inv_w * viewport->scale_x + viewport->scale_x;
    double y = viewport->scale_y - clip[1] * inv_w * viewport->scale_y;
    out->x = (int32_t)lrint(clamp_fixed_double(x));
    out->y = (int32_t)lrint(clamp_fixed_double(y));
    double depth = clip[2] * inv_w;
    out->z = depth < 0.0 ? 0.0f : depth > 1.0 ? 1.0f : (float)depth;
    out->inv_w = (float)inv_w;
    out->flags = 0;
    // A w of 1e-20 (the w plane) still gives a finite float 1 / w; anything else is absurd input.
    return isfinite(out->inv_w) && out->inv_w > 0.0f;
}

/* sr_raster_plane_distance in double: the same planes, evaluated without float round-off. */
static double clip_distance(int plane, const double c[4], const sr_viewport *viewport)
{
    switch (plane) {
    case 0:
        return c[3] - (double)SR_CLIP_W_EPSILON;
    case 1:
        return c[2];
    case 2:
        return c[3] - c[2];
    case 3:
        return c[0] + (double)viewport->guard_x * c[3];
    case 4:
        return (double)viewport->guard_x * c[3] - c[0];
    case 5:
        return c[1] + (double)viewport->guard_y * c[3];
    default:
        return (double)viewport->guard_y * c[3] - c[1];
    }
}

static void copy_vertex(sr_clip_vertex *to, const sr_clip_vertex *from, int attribute_count)
{
    memcpy(to->clip, from->clip, sizeof to->clip);
    memcpy(to->attributes, from->attributes, (size_t)attribute_count * sizeof(float));
    to->corner = from->corner;
}

int sr_raster_clip_polygon(sr_clip_vertex *polygon, int count, uint32_t planes, int attribute_count,
                           const sr_viewport *viewport)
{
    sr_clip_vertex scratch[SR_CLIP_MAX_VERTICES];
    sr_clip_vertex *input = polygon, *output = scratch;
    double distance[SR_CLIP_MAX_VERTICES];
    for (int plane = 0; plane < SR_CLIP_PLANE_COUNT && count >= 3; plane++) {
        if (!(planes & (1u << plane)))
            continue;
        for (int i = 0; i < count; i++)
            distance[i] = clip_distance(plane, input[i].clip, viewport);
        int kept = 0;
        for (int i = 0; i < count; i++) {
            int next = i + 1 == count ? 0 : i + 1;
            bool inside = distance[i] >= 0.0, next_inside = distance[next] >= 0.0;
            if (inside)
                copy_vertex(&output[kept++], &input[i], attribute_count);
            if (inside != next_inside) {
                // Sutherland–Hodgman. The new vertex is interpolated from the end nearer to the plane
                // (the inside end on a tie) towards the other, so t <= 1/2 and no digits cancel
                // whichever end is huge: from the far end, a cut next to a small end left 1e23 - 1e23
                // (vertices on the w plane are points at infinity with such coordinates). The choice
                // depends on the edge, not on the direction a triangle walks it, so both triangles
                // sharing this edge compute the very same new vertex (watertight clipping).
                const sr_clip_vertex *in = inside ? &input[i] : &input[next];
                const sr_clip_vertex *out = inside ? &input[next] : &input[i];
                double d_in = inside ? distance[i] : distance[next];
                double d_out = inside ? distance[next] : distance[i];
                bool from_in = d_in <= -d_out;
                const sr_clip_vertex *from = from_in ? in : out, *to = from_in ? out : in;
                double t = from_in ? d_in / (d_in - d_out) : d_out / (d_out - d_in);
                sr_clip_vertex *made = &output[kept++];
                for (int k = 0; k < 4; k++)
                    made->clip[k] = from->clip[k] + t * (to->clip[k] - from->clip[k]);
                for (int k = 0; k < attribute_count; k++)
                    made->attributes[k] =
                        (float)(from->attributes[k] + t * ((double)to->attributes[k] - from->attributes[k]));
                made->corner = -1;
            }
        }
        count = kept;
        sr_clip_vertex *swap = input;
        input = output;
        output = swap;
    }
    if (count < 3)
        return 0;
    if (input != polygon)
        for (int i = 0; i < count; i++)
            copy_vertex(&polygon[i], &input[i], attribute_count);
    return count;
}
