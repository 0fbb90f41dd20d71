/* test_raster_lines.c — sr_draw_lines (src/raster/line.c): pixels of segments in every octant
 * against a reference drawn in double, widths, polylines whose joints are written exactly once
 * and without gaps, the relative depth bias against surfaces drawn by the triangle pipeline,
 * thread counts giving the same image, one-coloured lines' shortcut giving the general path's
 * pixels, the specialised per-case loops giving the general loop's pixels, and line memory readied
 * ahead (sr_renderer_reserve_lines) drawing without allocating. */
#include <criterion/criterion.h>
#include <softrast/raster.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h" /* sr_renderer.general_lines */
#include "alloc_watch.h"

#define W 96
#define H 80

static uint64_t rng_state = 12345;

static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * 0x1p-53;
}

typedef struct target {
    sr_framebuffer *fb;
    sr_renderer *renderer;
} target;

static target make_target(int threads)
{
    target t;
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = W, .height = H}, &t.fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &t.renderer, NULL), SR_OK);
    sr_framebuffer_clear(t.fb, 0, 1.0f);
    return t;
}

static void free_target(target *t)
{
    sr_framebuffer_destroy(t->fb);
    sr_renderer_destroy(t->renderer);
}

/* A window point (pixels) as a world point seen through the identity matrix: NDC. */
static sr_vec3 at_pixel(double x, double y, double z)
{
    return sr_vec3_make((float)(x / W * 2.0 - 1.0), (float)(1.0 - y / H * 2.0), (float)z);
}

/* Window coordinates of a point made by at_pixel, recomputed as the pipeline does in float
 * (so that the reference starts from the same end points), then continued in double. */
static void window_of(sr_vec3 p, double *x, double *y)
{
    *x = ((double)p.x + 1.0) * 0.5 * W;
    *y = (1.0 - (double)p.y) * 0.5 * H;
}

/* The reference: per major-axis cell, the pixel holding the segment's point at the cell's
 * centre clamped to the segment, and width - 1 more across. `ambiguous` marks pixels whose
 * minor coordinate is within `margin` of a pixel border (float and double may disagree). */
static void reference_segment(double ax, double ay, double bx, double by, int width, int *count, bool *ambiguous,
                              int skip_cell_a, int skip_cell_b)
{
    bool x_major = fabs(bx - ax) >= fabs(by - ay);
    double ma = x_major ? ax : ay, mb = x_major ? bx : by, na = x_major ? ay : ax, nb = x_major ? by : bx;
    double skip_major = x_major ? ax : ay, skip_major_b = x_major ? bx : by;
    if (mb < ma) {
        double t = ma;
        ma = mb;
        mb = t;
        t = na;
        na = nb;
        nb = t;
    }
    int major_size = x_major ? W : H, minor_size = x_major ? H : W;
    int skipped = skip_cell_a ? (int)floor(skip_major) : -1000;
    int skipped_b = skip_cell_b ? (int)floor(skip_major_b) : -1000;
    for (int cell = (int)floor(ma); cell <= (int)floor(mb); cell++) {
        if (cell < 0 || cell >= major_size || cell == skipped || cell == skipped_b)
            continue;
        double s = fmin(fmax(cell + 0.5, ma), mb);
        double t = mb > ma ? (s - ma) / (mb - ma) : 0.0;
        double minor = na + (nb - na) * t;
        int m = (int)floor(minor);
        double border = fabs(minor - round(minor));
        for (int o = -(width - 1) / 2; o <= width / 2; o++) {
            int q = m + o;
            if (q < 0 || q >= minor_size)
                continue;
            int px = x_major ? cell : q, py = x_major ? q : cell;
            count[py * W + px]++;
            if (border < 1e-4)
                ambiguous[py * W + px] = true;
        }
    }
}

static void draw(target *t, const sr_line_vertex *v, size_t count, int width, sr_blend_mode blend)
{
    sr_error err = {0};
    sr_status status = sr_draw_lines(t->renderer, t->fb,
                                     &(sr_line_desc){.vertices = v,
                                                     .vertex_count = count,
                                                     .view_projection = sr_mat4_identity(),
                                                     .blend = blend,
                                                     .width = width},
                                     &err);
    cr_assert_eq(status, SR_OK, "%s", err.message);
}

static sr_line_vertex vertex(sr_vec3 p)
{
    return (sr_line_vertex){p, {1.0f, 1.0f, 1.0f, 1.0f}};
}

Test(lines, every_octant_and_width_matches_a_reference_in_double)
{
    int mismatches = 0, checked = 0;
    for (int trial = 0; trial < 400; trial++) {
        int width = 1 + trial % 4;
        double angle = 2.0 * M_PI * (trial / 400.0) + 0.01, length = 5 + 60 * uniform();
        double cx = 10 + (W - 20) * uniform(), cy = 10 + (H - 20) * uniform();
        sr_vec3 a = at_pixel(cx - 0.5 * length * cos(angle), cy - 0.5 * length * sin(angle), 0.5);
        sr_vec3 b = at_pixel(cx + 0.5 * length * cos(angle), cy + 0.5 * length * sin(angle), 0.5);
        target t = make_target(1);
        sr_line_vertex v[2] = {vertex(a), vertex(b)};
        draw(&t, v, 2, width, SR_BLEND_NONE);
        int count[W * H] = {0};
        bool ambiguous[W * H] = {false};
        double ax, ay, bx, by;
        window_of(a, &ax, &ay);
        window_of(b, &bx, &by);
        reference_segment(ax, ay, bx, by, width, count, ambiguous, 0, 0);
        for (int p = 0; p < W * H; p++) {
            bool drawn = t.fb->color[p] != 0;
            checked++;
            if (drawn != (count[p] > 0) && !ambiguous[p]) {
                mismatches++;
                fprintf(stderr, "trial %d width %d: pixel (%d, %d) drawn %d ref %d; a (%.9g %.9g) b (%.9g %.9g)\n",
                        trial, width, p % W, p / W, drawn, count[p], ax, ay, bx, by);
            }
        }
        free_target(&t);
    }
    cr_assert_eq(mismatches, 0, "%d of %d pixels differ from the reference", mismatches, checked);
}

Test(lines, polyline_joints_are_written_once_and_connected)
{
    // A closed star and an open zigzag, drawn with additive blending of 1/255: a pixel's value
    // counts its writes.
    for (int width = 1; width <= 3; width++) {
        target t = make_target(1);
        sr_vec3 points[11];
        for (int i = 0; i < 10; i++) {
            double r = i % 2 ? 12.0 : 34.0, a = 2 * M_PI * i / 10.0 + 0.1;
            points[i] = at_pixel(48 + r * cos(a), 40 + r * sin(a), 0.5);
        }
        points[10] = points[0];
        sr_line_vertex v[20];
        const float one[4] = {1.0f / 255.0f, 1.0f / 255.0f, 1.0f / 255.0f, 1.0f};
        for (int i = 0; i < 10; i++) {
            v[2 * i] = (sr_line_vertex){points[i], {one[0], one[1], one[2], one[3]}};
            v[2 * i + 1] = (sr_line_vertex){points[i + 1], {one[0], one[1], one[2], one[3]}};
        }
        draw(&t, v, 20, width, SR_BLEND_ADDITIVE);
        int reference[W * H] = {0};
        bool ambiguous[W * H] = {false};
        for (int i = 0; i < 10; i++) {
            double ax, ay, bx, by;
            window_of(points[i], &ax, &ay);
            window_of(points[i + 1], &bx, &by);
            // Every segment but the first skips its start's cell; the last also its end's (the
            // first segment's start).
            reference_segment(ax, ay, bx, by, width, reference, ambiguous, i > 0, i == 9);
        }
        // Writes per pixel are the reference's: each segment's own pixels once, joint cells
        // once; only an acute tip, where two segments really overlap, writes a pixel twice.
        int differ = 0;
        for (int p = 0; p < W * H; p++) {
            int writes = (int)(t.fb->color[p] & 0xffu);
            if (writes != reference[p] && !ambiguous[p] && (width == 1 || (writes > 0) != (reference[p] > 0))) {
                differ++;
                fprintf(stderr, "width %d: pixel (%d, %d) written %d times, reference %d\n", width, p % W, p / W,
                        writes, reference[p]);
            }
        }
        cr_assert_eq(differ, 0, "width %d: %d pixels differ from the reference", width, differ);
        // Every joint pixel is written exactly once (width 1: one pixel per cell).
        for (int i = 0; i < 10 && width == 1; i++) {
            double x, y;
            window_of(points[i], &x, &y);
            cr_assert_eq(t.fb->color[(int)floor(y) * W + (int)floor(x)] & 0xffu, 1u, "joint %d", i);
        }
        // Connected: every vertex pixel is drawn, and each segment's pixels touch the next's.
        for (int i = 0; i < 10; i++) {
            double x, y;
            window_of(points[i], &x, &y);
            cr_assert_neq(t.fb->color[(int)floor(y) * W + (int)floor(x)], 0u, "width %d: joint %d missing", width, i);
        }
        free_target(&t);
    }
}

/* A plane tilted away from the camera drawn by the triangle pipeline, and lines on it, behind
 * it and in front of it, under perspective. */
Test(lines, the_depth_bias_shows_lines_on_surfaces_and_hides_them_behind)
{
    sr_mat4 projection = sr_mat4_perspective(50.0f * SR_PI / 180.0f, (float)W / H, 0.1f, 100.0f);
    sr_mat4 view = sr_mat4_look_at(sr_vec3_make(0, 3, 6), sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0));
    sr_mat4 vp = sr_mat4_mul(projection, view);
    // The depth buffer holds the ground plane y = 0 as the rasteriser would draw it up to its
    // rounding: the window depth, in double, of the point where the ray through each pixel
    // centre meets the plane.
    target t = make_target(1);
    sr_mat4 inverse;
    cr_assert(sr_mat4_inverse(vp, &inverse));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            sr_vec3 near_point = sr_mat4_transform_point_projective(
                inverse, sr_vec3_make((x + 0.5f) / W * 2 - 1, 1 - (y + 0.5f) / H * 2, 0.0f));
            sr_vec3 far_point = sr_mat4_transform_point_projective(
                inverse, sr_vec3_make((x + 0.5f) / W * 2 - 1, 1 - (y + 0.5f) / H * 2, 1.0f));
            double s = near_point.y / ((double)near_point.y - far_point.y);
            float depth = 1.0f;
            if (s > 0 && s < 1) {
                double p[3] = {near_point.x + s * ((double)far_point.x - near_point.x), 0.0,
                               near_point.z + s * ((double)far_point.z - near_point.z)};
                double clip[4];
                for (int r = 0; r < 4; r++)
                    clip[r] = vp.m[r] * p[0] + vp.m[4 + r] * p[1] + vp.m[8 + r] * p[2] + vp.m[12 + r];
                depth = (float)(clip[2] / clip[3]);
            }
            t.fb->depth[y * W + x] = depth;
        }
    // Lines on the ground along x at several z: all their pixels show with the bias.
    int on_surface = 0, shown_with_bias = 0, shown_without = 0;
    for (int k = -4; k <= 4; k++) {
        sr_line_vertex v[2] = {vertex(sr_vec3_make(-5, 0, (float)k)), vertex(sr_vec3_make(5, 0, (float)k))};
        for (int biased = 0; biased < 2; biased++) {
            sr_framebuffer_clear_color(t.fb, 0);
            sr_line_desc desc = {.vertices = v,
                                 .vertex_count = 2,
                                 .view_projection = vp,
                                 .depth_test = true,
                                 .depth_bias = biased ? 1.0f / 256.0f : 0.0f};
            cr_assert_eq(sr_draw_lines(t.renderer, t.fb, &desc, NULL), SR_OK);
            int shown = 0;
            for (int p = 0; p < W * H; p++)
                shown += t.fb->color[p] != 0;
            if (biased)
                shown_with_bias += shown;
            else
                shown_without += shown;
        }
        // The same line unbiased and without depth test: how many pixels it has.
        sr_framebuffer_clear_color(t.fb, 0);
        cr_assert_eq(sr_draw_lines(t.renderer, t.fb,
                                   &(sr_line_desc){.vertices = v, .vertex_count = 2, .view_projection = vp}, NULL),
                     SR_OK);
        for (int p = 0; p < W * H; p++)
            on_surface += t.fb->color[p] != 0;
    }
    cr_assert_eq(shown_with_bias, on_surface, "with the bias every pixel of a line on the surface shows");
    cr_assert_lt(shown_without, on_surface, "without it some are lost (the test would not test the bias)");
    // A line 2% of its distance below the surface (seen from above) is hidden, bias or not.
    sr_line_vertex below[2] = {vertex(sr_vec3_make(-5, -0.15f, 0)), vertex(sr_vec3_make(5, -0.15f, 0))};
    sr_framebuffer_clear_color(t.fb, 0);
    cr_assert_eq(sr_draw_lines(t.renderer, t.fb,
                               &(sr_line_desc){.vertices = below,
                                               .vertex_count = 2,
                                               .view_projection = vp,
                                               .depth_test = true,
                                               .depth_bias = 1.0f / 256.0f},
                               NULL),
                 SR_OK);
    for (int p = 0; p < W * H; p++)
        cr_assert_eq(t.fb->color[p], 0u, "a line under the surface shows at pixel %d", p);
    free_target(&t);
}

Test(lines, any_thread_count_draws_the_same_image)
{
    enum { segments = 600 };
    sr_line_vertex *v = malloc(2 * segments * sizeof *v);
    rng_state = 99;
    for (int i = 0; i < segments; i++) {
        for (int e = 0; e < 2; e++) {
            float c[4] = {(float)uniform(), (float)uniform(), (float)uniform(), 0.5f};
            v[2 * i + e] = (sr_line_vertex){at_pixel(-20 + (W + 40) * uniform(), -20 + (H + 40) * uniform(), uniform()),
                                            {c[0], c[1], c[2], c[3]}};
        }
        if (i % 3 == 1) // some polylines
            v[2 * i].position = v[2 * i - 1].position;
    }
    target reference = make_target(1);
    draw(&reference, v, 2 * segments, 2, SR_BLEND_ALPHA);
    const int threads[] = {2, 3, 5, 7};
    for (int k = 0; k < 4; k++) {
        target t = make_target(threads[k]);
        draw(&t, v, 2 * segments, 2, SR_BLEND_ALPHA);
        cr_assert(memcmp(t.fb->color, reference.fb->color, W * H * 4) == 0, "%d threads", threads[k]);
        sr_raster_stats a = sr_renderer_stats(t.renderer), b = sr_renderer_stats(reference.renderer);
        cr_assert_eq(a.fragments_written, b.fragments_written);
        free_target(&t);
    }
    free_target(&reference);
    free(v);
}

/* One-coloured opaque lines (the debug renderer's usual ones) take a shortcut: every pixel that
 * passes the depth test gets the colour's bytes, without the perspective interpolation and blend
 * of each pixel. Drawn by the general path instead (SR_BLEND_ADDITIVE over black, which adds the
 * interpolated colour to zero), each must give the same pixels, across perspective depths that
 * take the shortcut and beyond (1 / w of the ends apart by up to 100 times), and over a depth
 * buffer that hides some pixels. */
Test(lines, one_coloured_opaque_lines_match_the_general_path)
{
    enum { segments = 400 };
    rng_state = 2024;
    sr_mat4 view_projection = sr_mat4_mul(sr_mat4_perspective(1.0f, (float)W / H, 0.1f, 100.0f),
                                          sr_mat4_look_at(sr_vec3_make(0, 0, 0), sr_vec3_make(0, 0, -1),
                                                          sr_vec3_make(0, 1, 0)));
    target general = make_target(1), shortcut = make_target(1);
    float *depth = malloc(sizeof(float) * W * H);
    for (int i = 0; i < W * H; i++)
        depth[i] = 0.97f + 0.03f * (float)uniform();
    for (int i = 0; i < segments; i++) {
        // Ends at distances 0.2 to 20 along -z, inside the view (and some past its sides).
        sr_vec3 ends[2];
        for (int e = 0; e < 2; e++) {
            double distance = 0.2 * pow(100.0, uniform());
            ends[e] = sr_vec3_make((float)((uniform() * 2.4 - 1.2) * distance),
                                   (float)((uniform() * 2.0 - 1.0) * distance), (float)-distance);
        }
        float color[4] = {(float)(rng_state % 256) / 255.0f, (float)((rng_state >> 8) % 256) / 255.0f,
                          (float)((rng_state >> 16) % 256) / 255.0f, 1.0f};
        sr_line_vertex v[2];
        for (int e = 0; e < 2; e++)
            v[e] = (sr_line_vertex){ends[e], {color[0], color[1], color[2], color[3]}};
        int width = 1 + i % 3;
        const sr_blend_mode modes[2] = {SR_BLEND_ADDITIVE, i % 2 ? SR_BLEND_ALPHA : SR_BLEND_NONE};
        target *targets[2] = {&general, &shortcut};
        for (int k = 0; k < 2; k++) {
            sr_framebuffer_clear(targets[k]->fb, 0xff000000u, 1.0f);
            memcpy(targets[k]->fb->depth, depth, sizeof(float) * W * H);
            sr_line_desc desc = {.vertices = v,
                                 .vertex_count = 2,
                                 .view_projection = view_projection,
                                 .blend = modes[k],
                                 .width = width,
                                 .depth_test = i % 4 != 0,
                                 .depth_bias = 1.0f / 256.0f};
            sr_error err = {0};
            cr_assert_eq(sr_draw_lines(targets[k]->renderer, targets[k]->fb, &desc, &err), SR_OK, "%s", err.message);
        }
        for (int p = 0; p < W * H; p++)
            cr_assert_eq(shortcut.fb->color[p], general.fb->color[p],
                         "segment %d, pixel (%d, %d): %08x, the general path %08x", i, p % W, p / W,
                         shortcut.fb->color[p], general.fb->color[p]);
    }
    sr_raster_stats a = sr_renderer_stats(shortcut.renderer), b = sr_renderer_stats(general.renderer);
    cr_assert_eq(a.fragments_written, b.fragments_written);
    cr_assert_gt(a.fragments_written, (uint64_t)segments * 4, "the lines drew %llu pixels",
                 (unsigned long long)a.fragments_written);
    free(depth);
    free_target(&general);
    free_target(&shortcut);
}

Test(lines, bad_widths_and_biases_are_refused)
{
    target t = make_target(1);
    sr_line_vertex v[2] = {vertex(at_pixel(1, 1, 0.5)), vertex(at_pixel(20, 9, 0.5))};
    sr_error err = {0};
    const int widths[] = {-1, 5};
    for (int i = 0; i < 2; i++) {
        sr_line_desc desc = {
            .vertices = v, .vertex_count = 2, .view_projection = sr_mat4_identity(), .width = widths[i]};
        cr_assert_neq(sr_draw_lines(t.renderer, t.fb, &desc, &err), SR_OK);
        cr_assert(strstr(err.message, "width"), "%s", err.message);
    }
    const float biases[] = {-0.1f, NAN, INFINITY};
    for (int i = 0; i < 3; i++) {
        sr_line_desc desc = {.vertices = v,
                             .vertex_count = 2,
                             .view_projection = sr_mat4_identity(),
                             .depth_test = true,
                             .depth_bias = biases[i]};
        cr_assert_neq(sr_draw_lines(t.renderer, t.fb, &desc, &err), SR_OK);
        cr_assert(strstr(err.message, "depth_bias"), "%s", err.message);
    }
    for (int p = 0; p < W * H; p++)
        cr_assert_eq(t.fb->color[p], 0u, "a refused draw drew nothing");
    free_target(&t);
}

/* line.c draws each segment through a loop specialised for its case (axis, depth test, bias, one
 * colour) that clamps the pixels across the line and, x-major, the cells to the rows drawn before
 * looping. Random draws of every kind (widths 0 to 4, ends inside, on and past the frame's edges
 * and behind the near plane, perspective depths, depth test on and off with and without bias over
 * a sloped and noisy depth buffer, each blend mode, one opaque colour or gradients, polylines with
 * their joints and closed loops), 1 and 3 threads (units of rows), drawn once through the
 * specialised loops and once through the general loop (sr_renderer.general_lines): the same
 * pixels and the same count of pixels written. */
Test(lines, specialised_loops_match_the_general_loop)
{
    enum { FW = 203, FH = 151, draws = 120, segments = 90 };
    rng_state = 777;
    sr_mat4 view_projection =
        sr_mat4_mul(sr_mat4_perspective(1.1f, (float)FW / FH, 0.1f, 100.0f),
                    sr_mat4_look_at(sr_vec3_make(0, 0, 0), sr_vec3_make(0, 0, -1), sr_vec3_make(0, 1, 0)));
    float *depth = malloc(sizeof(float) * FW * FH);
    uint32_t *color = malloc(sizeof(uint32_t) * FW * FH);
    for (int y = 0; y < FH; y++)
        for (int x = 0; x < FW; x++) {
            // A slope with noise: the bias's slope term sees both; some pixels left at the clear depth.
            double d = 0.9 + 0.08 * x / FW + 0.01 * y / FH + 0.01 * uniform();
            depth[y * FW + x] = uniform() < 0.1 ? 1.0f : (float)d;
            color[y * FW + x] = (uint32_t)(uniform() * 4294967295.0);
        }
    sr_line_vertex *v = malloc(2 * segments * sizeof *v);
    uint64_t written[2] = {0, 0};
    for (int d = 0; d < draws; d++) {
        bool one_colour = d % 3 != 0;
        float base[4] = {(float)(rng_state % 256) / 255.0f, (float)((rng_state >> 8) % 256) / 255.0f,
                         (float)((rng_state >> 16) % 256) / 255.0f, 1.0f};
        for (int i = 0; i < segments; i++) {
            for (int e = 0; e < 2; e++) {
                // Distances 0.05 (in front of the near plane) to 30, up to 40% past the sides.
                double distance = 0.05 * pow(600.0, uniform());
                sr_vec3 p = sr_vec3_make((float)((uniform() * 2.8 - 1.4) * distance),
                                         (float)((uniform() * 2.8 - 1.4) * distance), (float)-distance);
                float c[4] = {(float)uniform(), (float)uniform(), (float)uniform(), (float)uniform()};
                if (one_colour)
                    memcpy(c, base, sizeof c);
                v[2 * i + e] = (sr_line_vertex){p, {c[0], c[1], c[2], c[3]}};
            }
            if (i % 4 != 0 && uniform() < 0.6) // polylines, some of them closed
                v[2 * i].position = v[2 * i - 1].position;
            if (i % 4 == 3 && uniform() < 0.3)
                v[2 * i + 1].position = v[2 * i - 6].position;
            if (uniform() < 0.25) { // short ones too, axis-aligned some
                v[2 * i + 1].position = sr_vec3_add(
                    v[2 * i].position, sr_vec3_make((float)(0.02 * uniform()), (float)(0.02 * uniform()), 0.0f));
                if (uniform() < 0.3)
                    v[2 * i + 1].position.y = v[2 * i].position.y;
            }
        }
        sr_line_desc desc = {.vertices = v,
                             .vertex_count = 2 * segments,
                             .view_projection = view_projection,
                             .blend = (sr_blend_mode)(d % 3 == 2 ? SR_BLEND_ADDITIVE
                                                      : d % 2    ? SR_BLEND_ALPHA
                                                                 : SR_BLEND_NONE),
                             .width = d % 5,
                             .depth_test = d % 4 != 0,
                             .depth_bias = d % 8 < 4 ? 1.0f / 256.0f : 0.0f};
        uint32_t *images[2];
        for (int k = 0; k < 2; k++) {
            sr_framebuffer *fb;
            sr_renderer *renderer;
            cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = FW, .height = FH}, &fb, NULL), SR_OK);
            cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = d % 2 ? 3 : 1}, &renderer, NULL), SR_OK);
            renderer->general_lines = k == 0;
            memcpy(fb->depth, depth, sizeof(float) * FW * FH);
            memcpy(fb->color, color, sizeof(uint32_t) * FW * FH);
            sr_error err = {0};
            cr_assert_eq(sr_draw_lines(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
            written[k] += sr_renderer_stats(renderer).fragments_written;
            images[k] = malloc(sizeof(uint32_t) * FW * FH);
            memcpy(images[k], fb->color, sizeof(uint32_t) * FW * FH);
            sr_renderer_destroy(renderer);
            sr_framebuffer_destroy(fb);
        }
        for (int p = 0; p < FW * FH; p++)
            cr_assert_eq(images[1][p], images[0][p],
                         "draw %d (width %d, depth test %d, bias %g, blend %d, one colour %d), pixel (%d, %d): "
                         "%08x, the general loop %08x",
                         d, desc.width, desc.depth_test, (double)desc.depth_bias, (int)desc.blend, one_colour, p % FW,
                         p / FW, images[1][p], images[0][p]);
        cr_assert_eq(written[1], written[0], "draw %d: %llu pixels written, the general loop %llu", d,
                     (unsigned long long)written[1], (unsigned long long)written[0]);
        free(images[0]);
        free(images[1]);
    }
    cr_assert_gt(written[0], (uint64_t)draws * segments * 10, "the lines drew %llu pixels",
                 (unsigned long long)written[0]);
    free(v);
    free(color);
    free(depth);
}

/* sr_renderer_reserve_lines readies the line memory: a draw of as many segments (short ones, each
 * within two units of rows), on two threads, then asks the allocator for nothing and gives the
 * pixels of a renderer that was not readied; twice as many still draw (the memory grows), and the
 * same as without it. A NULL renderer and an impossible count are refused by name. */
Test(lines, reserved_line_memory_draws_without_allocating)
{
    enum { segments = 3000 };
    sr_line_vertex *v = malloc(4 * segments * sizeof *v);
    cr_assert(v);
    rng_state = 7;
    for (int i = 0; i < 2 * segments; i++) {
        double x = W * uniform(), y = H * uniform();
        float c[4] = {(float)uniform(), (float)uniform(), (float)uniform(), 1.0f};
        v[2 * i] = (sr_line_vertex){at_pixel(x, y, uniform()), {c[0], c[1], c[2], c[3]}};
        v[2 * i + 1] = (sr_line_vertex){at_pixel(x + 12 * uniform() - 6, y + 12 * uniform() - 6, uniform()),
                                        {c[2], c[1], c[0], c[3]}};
    }
    target plain = make_target(2), ready = make_target(2);
    sr_error err = {0};
    cr_assert_eq(sr_renderer_reserve_lines(ready.renderer, segments, &err), SR_OK, "%s", err.message);
    watch count = {.limit = SIZE_MAX};
    sr_set_allocator(&(sr_allocator){watch_allocate, watch_reallocate, watch_release, &count});
    draw(&ready, v, 2 * segments, 1, SR_BLEND_ALPHA);
    sr_set_allocator(NULL);
    cr_assert_eq(count.allocations, 0, "a draw of the %d segments reserved asked the allocator %zu times",
                 (int)segments, count.allocations);
    draw(&plain, v, 2 * segments, 1, SR_BLEND_ALPHA);
    cr_assert(memcmp(ready.fb->color, plain.fb->color, W * H * 4) == 0);
    // More than reserved: drawn all the same.
    draw(&ready, v, 4 * segments, 1, SR_BLEND_ALPHA);
    draw(&plain, v, 4 * segments, 1, SR_BLEND_ALPHA);
    cr_assert(memcmp(ready.fb->color, plain.fb->color, W * H * 4) == 0);
    // Asking for fewer keeps what it has.
    cr_assert_eq(sr_renderer_reserve_lines(ready.renderer, 10, &err), SR_OK);

    cr_assert_eq(sr_renderer_reserve_lines(NULL, 10, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "sr_renderer_reserve_lines: renderer is NULL"), "%s", err.message);
    cr_assert_eq(sr_renderer_reserve_lines(ready.renderer, SIZE_MAX / 4, &err), SR_ERROR_OUT_OF_MEMORY);
    cr_assert(strstr(err.message, "too many"), "%s", err.message);
    free_target(&plain);
    free_target(&ready);
    free(v);
}
