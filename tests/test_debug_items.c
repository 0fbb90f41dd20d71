/* test_debug_items.c — the debug list's primitives for physics engines (src/debug/: filled
 * polygons and triangles, circles with a normal, oriented spheres, two-colour lines, round dots),
 * each drawn and checked against an independent computation of where its pixels go: the defining
 * points projected in double precision by tests/debug_projection.h (not sr_camera_matrices), the
 * pixels there lit and no pixel lit elsewhere. (The items' read access and replay, the
 * capacities and bad input: test_debug_list.c.) */
#include <criterion/criterion.h>
#include <softrast/debug.h>
#include <softrast/shaders.h>

#include "../src/debug/debug_internal.h"
#include "debug_projection.h"
#include "debug_test_frame.h"

#include <stdlib.h>
#include <string.h>

/* Whether pixel (x, y) or one of its 8 neighbours has colour `color` (a line within 1 px). */
static bool lit_near(const frame *f, double x, double y, uint32_t color)
{
    int cx = (int)floor(x), cy = (int)floor(y);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int px = cx + dx, py = cy + dy;
            if (px >= 0 && py >= 0 && px < W && py < H && pixel(f, px, py) == color)
                return true;
        }
    return false;
}

/* Whether two colours differ by at most one unit per channel (blends computed in float by the
 * pipeline and in double here may round a .5 differently). */
static bool near_color(uint32_t a, uint32_t b)
{
    for (int k = 0; k < 4; k++) {
        int x = (int)(a >> (8 * k) & 0xffu), y = (int)(b >> (8 * k) & 0xffu);
        if (abs(x - y) > 1)
            return false;
    }
    return true;
}

/* ---- a projected curve: dense samples of world points, and distances to their polyline ---- */

enum { MAX_SAMPLES = 4096 };

typedef struct curve {
    double x[MAX_SAMPLES], y[MAX_SAMPLES];
    int count;
    bool closed;
} curve;

static void curve_add(curve *c, const frame *f, sr_vec3 p)
{
    cr_assert_lt(c->count, MAX_SAMPLES);
    test_pixel q = project(f, p);
    cr_assert(q.in_front);
    c->x[c->count] = q.x;
    c->y[c->count] = q.y;
    c->count++;
}

static double curve_distance(const curve *c, double x, double y)
{
    double best = INFINITY;
    int segments = c->closed ? c->count : c->count - 1;
    for (int i = 0; i < segments; i++) {
        int j = (i + 1) % c->count;
        double d = test_distance_to_segment(x, y, c->x[i], c->y[i], c->x[j], c->y[j]);
        best = d < best ? d : best;
    }
    return best;
}

/* Whether (x, y) is inside the closed curve (even-odd rule). */
static bool curve_inside(const curve *c, double x, double y)
{
    bool inside = false;
    for (int i = 0, j = c->count - 1; i < c->count; j = i++)
        if ((c->y[i] > y) != (c->y[j] > y) &&
            x < (c->x[j] - c->x[i]) * (y - c->y[i]) / (c->y[j] - c->y[i]) + c->x[i])
            inside = !inside;
    return inside;
}

/* Every sample of the `required` curves has `color` within 1 px, and every pixel of `color` lies
 * within `slack` px of a required or `allowed` curve (nothing drawn elsewhere). */
static void expect_curves_allowing(const frame *f, const curve *required, int required_count, const curve *allowed,
                                   int allowed_count, uint32_t color, double slack)
{
    int samples = 0;
    for (int k = 0; k < required_count; k++)
        for (int i = 0; i < required[k].count; i++, samples++)
            cr_assert(lit_near(f, required[k].x[i], required[k].y[i], color),
                      "curve %d sample %d at (%.2f, %.2f) not drawn", k, i, required[k].x[i], required[k].y[i]);
    int lit = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (pixel(f, x, y) != color)
                continue;
            lit++;
            double best = INFINITY;
            for (int k = 0; k < required_count + allowed_count; k++) {
                const curve *c = k < required_count ? &required[k] : &allowed[k - required_count];
                double d = curve_distance(c, x + 0.5, y + 0.5);
                best = d < best ? d : best;
            }
            cr_assert_leq(best, slack, "pixel (%d, %d) is %.2f px from every curve", x, y, best);
        }
    cr_assert_gt(lit, samples / 8, "%d pixels lit", lit);
}

static void expect_curves(const frame *f, const curve *curves, int count, uint32_t color, double slack)
{
    expect_curves_allowing(f, curves, count, NULL, 0, color, slack);
}

/* ---- filled polygons and triangles ---- */

/* A convex hexagon in a tilted plane around `centre`. */
static void hexagon(sr_vec3 centre, float radius, sr_vec3 points[6])
{
    sr_vec3 u = sr_vec3_normalize(sr_vec3_make(1.0f, 0.2f, 0.0f)), v = sr_vec3_normalize(sr_vec3_make(0, 0.6f, 0.8f));
    for (int i = 0; i < 6; i++) {
        float angle = (float)i * SR_PI / 3.0f + 0.2f, r = radius * (i % 2 ? 0.85f : 1.0f);
        points[i] = sr_vec3_add(centre, sr_vec3_add(sr_vec3_scale(u, r * cosf(angle)), sr_vec3_scale(v, r * sinf(angle))));
    }
}

/* The projected polygon as a closed curve of its corners only (its edges are straight). */
static curve *polygon_curve(const frame *f, const sr_vec3 *points, int count)
{
    curve *c = calloc(1, sizeof *c);
    c->closed = true;
    for (int i = 0; i < count; i++)
        curve_add(c, f, points[i]);
    return c;
}

Test(debug_fill, a_polygon_fills_exactly_the_pixel_centres_inside_its_projection)
{
    sr_vec3 points[6];
    hexagon(sr_vec3_make(0.1f, 0.4f, -0.2f), 1.1f, points);
    const uint32_t fill = sr_rgba8(0.2f, 0.9f, 0.4f, 0.5f);
    uint32_t *reference = NULL;
    for (int threads = 1; threads <= 3; threads += 2) {
        frame f = frame_make(threads, false);
        sr_debug_list *list = list_make();
        // No outline (alpha 0): the fill alone.
        sr_debug_polygon_filled(list, points, 6, fill, sr_debug_style_color(0));
        draw(&f, list);
        curve *c = polygon_curve(&f, points, 6);
        int inside = 0, checked = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                double d = curve_distance(c, x + 0.5, y + 0.5);
                if (d < 0.02) // on an edge, up to the 1/256 px snapping of vertices: either way
                    continue;
                bool in = curve_inside(c, x + 0.5, y + 0.5);
                checked++;
                inside += in;
                uint32_t expected = in ? test_blend_over(fill, BACKGROUND) : BACKGROUND;
                cr_assert(in ? near_color(pixel(&f, x, y), expected) : pixel(&f, x, y) == expected,
                          "pixel (%d, %d) %s: %08x, expected %08x", x, y, in ? "inside" : "outside", pixel(&f, x, y),
                          expected);
            }
        cr_assert_gt(inside, 3000, "%d pixels inside", inside);
        cr_assert_gt(checked, W * H - 400);
        // The same image on 3 threads.
        if (!reference) {
            reference = malloc(W * H * 4);
            memcpy(reference, f.fb->color, W * H * 4);
        } else {
            cr_assert(memcmp(reference, f.fb->color, W * H * 4) == 0);
        }
        free(c);
        sr_debug_list_destroy(list);
        frame_free(&f);
    }
    free(reference);
}

Test(debug_fill, a_solid_polygon_is_its_fill_under_its_outline)
{
    frame f = frame_make(1, false);
    sr_vec3 points[6];
    hexagon(sr_vec3_make(-0.2f, 0.5f, 0.1f), 1.0f, points);
    const uint32_t outline = sr_rgba8(1.0f, 0.8f, 0.1f, 1.0f), fill = sr_debug_color_alpha(outline, 0.35f);
    sr_debug_list *list = list_make();
    sr_debug_polygon_filled(list, points, 6, fill, sr_debug_style_make(outline, 2, false));
    draw(&f, list);
    curve *c = polygon_curve(&f, points, 6);
    // The outline: samples along every edge, lit within 1 px; nothing of its colour elsewhere.
    curve *edges = calloc(1, sizeof *edges);
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 40; k++)
            curve_add(edges, &f, sr_vec3_lerp(points[i], points[(i + 1) % 6], (float)k / 40.0f));
    edges->closed = true;
    expect_curves(&f, edges, 1, outline, 1.6);
    // Away from the edges: the fill inside, the background outside.
    int inside = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (curve_distance(c, x + 0.5, y + 0.5) < 2.0)
                continue;
            bool in = curve_inside(c, x + 0.5, y + 0.5);
            inside += in;
            if (in)
                cr_assert(near_color(pixel(&f, x, y), test_blend_over(fill, BACKGROUND)), "(%d, %d)", x, y);
            else
                cr_assert_eq(pixel(&f, x, y), BACKGROUND, "(%d, %d)", x, y);
        }
    cr_assert_gt(inside, 2000);
    free(c);
    free(edges);
    sr_debug_list_destroy(list);
    frame_free(&f);
}

/* Draws an opaque grey quad in the plane z = `z` (|x|, |y| <= 2) with the pipeline, writing
 * depth and ids. */
static void draw_wall(frame *f, float z)
{
    sr_shader_vertex v[4] = {
        {.position = {-2, -2, z}}, {.position = {2, -2, z}}, {.position = {2, 2, z}}, {.position = {-2, 2, z}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    sr_shader_uniforms uniforms = sr_shader_uniforms_default();
    sr_camera camera = {.eye = {0.5f, 1.5f, 4.0f}, .target = {0.0f, 0.3f, 0.0f}, .up = {0, 1, 0},
                        .fov_y_degrees = 50.0f, .near_z = 0.1f, .far_z = 50.0f};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, W, H, &view, &projection);
    sr_shader_uniforms_set_transforms(&uniforms, sr_mat4_identity(), view, projection);
    uniforms.albedo = sr_vec3_make(0.5f, 0.5f, 0.5f);
    sr_program program = sr_shader_program(&sr_shader_flat, &uniforms);
    cr_assert_eq(sr_draw_triangles(f->renderer, f->fb,
                                   &(sr_draw_desc){.vertices = v,
                                                   .vertex_count = 4,
                                                   .vertex_stride = sizeof(sr_shader_vertex),
                                                   .indices = indices,
                                                   .index_count = 6,
                                                   .program = &program,
                                                   .primitive_id_base = 7},
                                   NULL),
                 SR_OK);
}

Test(debug_fill, fills_are_depth_tested_with_the_lines_bias_and_write_neither_depth_nor_ids)
{
    // Three squares: one lying on the wall (z = 0), one behind it (z = -0.3) depth-tested, and
    // the same one behind it on top. Each alone over the wall.
    const uint32_t fill = sr_rgba8(1.0f, 0.2f, 0.6f, 0.6f);
    for (int k = 0; k < 3; k++) {
        frame f = frame_make(1, true);
        draw_wall(&f, 0.0f);
        uint32_t *color = malloc(W * H * 4), *ids = malloc(W * H * 4);
        float *depth = malloc(W * H * 4);
        memcpy(color, f.fb->color, W * H * 4);
        memcpy(ids, f.fb->ids, W * H * 4);
        memcpy(depth, f.fb->depth, W * H * 4);
        float z = k == 0 ? 0.0f : -0.3f;
        const sr_vec3 square[4] = {{-0.8f, -0.5f, z}, {0.9f, -0.5f, z}, {0.9f, 1.2f, z}, {-0.8f, 1.2f, z}};
        sr_debug_list *list = list_make();
        sr_debug_polygon_filled(list, square, 4, fill, sr_debug_style_make(0, 1, k == 2));
        draw(&f, list);
        curve *c = polygon_curve(&f, square, 4);
        int shown = 0, inside = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                size_t i = (size_t)y * W + (size_t)x;
                if (curve_distance(c, x + 0.5, y + 0.5) < 0.02)
                    continue;
                bool in = curve_inside(c, x + 0.5, y + 0.5);
                inside += in;
                bool blended = near_color(f.fb->color[i], test_blend_over(fill, color[i])) && f.fb->color[i] != color[i];
                shown += in && blended;
                if (!in)
                    cr_assert_eq(f.fb->color[i], color[i]);
            }
        if (k == 1)
            cr_assert_eq(shown, 0, "a square behind the wall is hidden");
        else
            cr_assert_eq(shown, inside, "square %d: %d of %d pixels show", k, shown, inside);
        cr_assert(memcmp(depth, f.fb->depth, W * H * 4) == 0, "no depth written");
        cr_assert(memcmp(ids, f.fb->ids, W * H * 4) == 0, "no ids written");
        free(c);
        free(color);
        free(ids);
        free(depth);
        sr_debug_list_destroy(list);
        frame_free(&f);
    }
}

Test(debug_fill, a_filled_triangle_is_the_polygon_of_its_three_corners)
{
    const sr_vec3 corners[3] = {{-1.2f, 0.1f, 0.3f}, {1.0f, -0.2f, -0.4f}, {0.1f, 1.4f, 0.2f}};
    const uint32_t outline = SR_DEBUG_CYAN, fill = sr_debug_color_alpha(SR_DEBUG_CYAN, 0.4f);
    uint32_t *images[2];
    for (int k = 0; k < 2; k++) {
        frame f = frame_make(1, false);
        sr_debug_list *list = list_make();
        if (k == 0)
            sr_debug_triangle_filled(list, corners[0], corners[1], corners[2], fill, sr_debug_style_color(outline));
        else
            sr_debug_polygon_filled(list, corners, 3, fill, sr_debug_style_color(outline));
        draw(&f, list);
        images[k] = malloc(W * H * 4);
        memcpy(images[k], f.fb->color, W * H * 4);
        sr_debug_list_destroy(list);
        frame_free(&f);
    }
    cr_assert(memcmp(images[0], images[1], W * H * 4) == 0);
    free(images[0]);
    free(images[1]);
}

/* ---- circles ---- */

/* The analytic circle around `centre` in the plane perpendicular to `normal`, densely sampled. */
static curve *circle_curve(const frame *f, sr_vec3 centre, sr_vec3 normal, float radius)
{
    // Any orthonormal basis of the plane: the circle is the same set of points.
    double n[3] = {normal.x, normal.y, normal.z}, helper[3] = {0.3, -0.7, 0.2}, u[3], v[3];
    test_normalize(n);
    test_cross(n, helper, u);
    test_normalize(u);
    test_cross(n, u, v);
    curve *c = calloc(1, sizeof *c);
    c->closed = true;
    for (int i = 0; i < 720; i++) {
        double a = 2.0 * M_PI * i / 720.0;
        curve_add(c, f,
                  sr_vec3_make((float)(centre.x + radius * (cos(a) * u[0] + sin(a) * v[0])),
                               (float)(centre.y + radius * (cos(a) * u[1] + sin(a) * v[1])),
                               (float)(centre.z + radius * (cos(a) * u[2] + sin(a) * v[2]))));
    }
    return c;
}

Test(debug_circle, a_circle_lies_in_the_plane_perpendicular_to_its_normal)
{
    sr_vec3 centre = {0.2f, 0.5f, -0.3f}, normal = {0.4f, 1.0f, 0.6f};
    const float radius = 1.2f;
    // Its points: at the radius from the centre, in the plane.
    sr_debug_list *list = list_make();
    sr_debug_circle(list, centre, normal, radius, sr_debug_style_color(SR_DEBUG_YELLOW));
    const sr_debug_item *item = sr_debug_list_items(list, NULL);
    sr_line_vertex vertices[2 * SR_DEBUG_CIRCLE_SEGMENTS];
    debug_sink sink = {.segments = vertices};
    const debug_view view = {.view_projection = sr_mat4_identity(), .width = W, .height = H};
    sr_debug_tessellate(item, NULL, &view, &sink);
    cr_assert_eq(sink.segment_count, 32u);
    sr_vec3 unit = sr_vec3_normalize(normal);
    for (size_t i = 0; i < 2 * sink.segment_count; i++) {
        sr_vec3 d = sr_vec3_sub(vertices[i].position, centre);
        cr_assert_float_eq(sr_vec3_length(d), radius, 1e-5f);
        cr_assert_float_eq(sr_vec3_dot(d, unit), 0.0f, 1e-5f);
    }
    // Its pixels: on the projected circle, and nowhere else (the 32-gon's chords stray at most
    // radius (1 - cos(pi / 32)) = 0.006 world units, well under a pixel here).
    frame f = frame_make(1, false);
    draw(&f, list);
    curve *c = circle_curve(&f, centre, normal, radius);
    expect_curves(&f, c, 1, SR_DEBUG_YELLOW, 1.6);
    // A circle in another plane through the same centre fails that check: the test sees planes.
    curve *tilted = circle_curve(&f, centre, sr_vec3_make(0.4f, 1.0f, -0.6f), radius);
    int missed = 0;
    for (int i = 0; i < tilted->count; i++)
        missed += !lit_near(&f, tilted->x[i], tilted->y[i], SR_DEBUG_YELLOW);
    cr_assert_gt(missed, tilted->count / 2);
    free(c);
    free(tilted);
    sr_debug_list_destroy(list);
    frame_free(&f);
}

Test(debug_circle, a_solid_circle_fills_its_disc_under_its_outline)
{
    // Box2D's way: a circle in the plane z = 0 (normal +Z), filled at half alpha.
    frame f = frame_make(2, false);
    sr_vec3 centre = {-0.3f, 0.6f, 0.0f}, normal = {0, 0, 1};
    const float radius = 0.9f;
    const uint32_t outline = sr_rgba8(0.9f, 0.7f, 0.7f, 1.0f), fill = sr_rgba8(0.45f, 0.35f, 0.35f, 0.5f);
    sr_debug_list *list = list_make();
    sr_debug_circle_filled(list, centre, normal, radius, fill, sr_debug_style_color(outline));
    draw(&f, list);
    curve *c = circle_curve(&f, centre, normal, radius);
    expect_curves(&f, c, 1, outline, 1.6);
    int inside = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (curve_distance(c, x + 0.5, y + 0.5) < 2.0)
                continue;
            bool in = curve_inside(c, x + 0.5, y + 0.5);
            inside += in;
            if (in)
                cr_assert(near_color(pixel(&f, x, y), test_blend_over(fill, BACKGROUND)), "(%d, %d)", x, y);
            else
                cr_assert_eq(pixel(&f, x, y), BACKGROUND, "(%d, %d)", x, y);
        }
    cr_assert_gt(inside, 3000);
    free(c);
    sr_debug_list_destroy(list);
    frame_free(&f);
}

/* ---- oriented spheres ---- */

/* The curves of an oriented sphere: its three great circles in the rotated planes and its
 * rotated +X radius (curves[0..3]), from the rotation's matrix computed here in double; and in
 * curves[4..19] the generatrices of the cone its arrow head's barbs lie on (tip at the surface,
 * a sixth of the radius back, opening at 20 degrees: four of them are drawn, at angles the test
 * does not presume). Returns 4, the curves that must all be drawn. */
static int oriented_sphere_curves(const frame *f, sr_vec3 centre, double axis[3], double angle, float radius,
                                  curve *curves)
{
    test_normalize(axis);
    // Rodrigues' formula: the images of the unit axes.
    double local[3][3];
    for (int k = 0; k < 3; k++) {
        double e[3] = {k == 0, k == 1, k == 2}, cross[3];
        test_cross(axis, e, cross);
        double dot = axis[0] * e[0] + axis[1] * e[1] + axis[2] * e[2];
        for (int j = 0; j < 3; j++)
            local[k][j] = e[j] * cos(angle) + cross[j] * sin(angle) + axis[j] * dot * (1 - cos(angle));
    }
    for (int k = 0; k < 3; k++) {
        const double *u = local[k], *v = local[(k + 1) % 3];
        curves[k].count = 0;
        curves[k].closed = true;
        for (int i = 0; i < 720; i++) {
            double a = 2.0 * M_PI * i / 720.0;
            curve_add(&curves[k], f,
                      sr_vec3_make((float)(centre.x + radius * (cos(a) * u[0] + sin(a) * v[0])),
                                   (float)(centre.y + radius * (cos(a) * u[1] + sin(a) * v[1])),
                                   (float)(centre.z + radius * (cos(a) * u[2] + sin(a) * v[2]))));
        }
    }
    curves[3].count = 0;
    curves[3].closed = false;
    for (int i = 0; i <= 100; i++) {
        double t = radius * i / 100.0;
        curve_add(&curves[3], f,
                  sr_vec3_make((float)(centre.x + t * local[0][0]), (float)(centre.y + t * local[0][1]),
                               (float)(centre.z + t * local[0][2])));
    }
    double back = radius * (1.0 - 1.0 / 6.0), spread = radius / 6.0 * tan(20.0 * M_PI / 180.0);
    for (int g = 0; g < 16; g++) {
        double a = 2.0 * M_PI * g / 16.0;
        const double *u = local[1], *v = local[2];
        curve *c = &curves[4 + g];
        c->count = 0;
        c->closed = false;
        for (int i = 0; i <= 10; i++) {
            double t = i / 10.0; // from the tip to the base circle
            double along = radius + t * (back - radius), out = t * spread;
            curve_add(c, f,
                      sr_vec3_make((float)(centre.x + along * local[0][0] + out * (cos(a) * u[0] + sin(a) * v[0])),
                                   (float)(centre.y + along * local[0][1] + out * (cos(a) * u[1] + sin(a) * v[1])),
                                   (float)(centre.z + along * local[0][2] + out * (cos(a) * u[2] + sin(a) * v[2]))));
        }
    }
    return 4;
}

Test(debug_sphere, an_oriented_sphere_draws_its_rotated_circles_and_its_x_axis_arrow)
{
    frame f = frame_make(1, false);
    sr_vec3 centre = {0.1f, 0.6f, 0.0f};
    double axis[3] = {1.0, 2.0, 0.5};
    const double angle = 0.9;
    const float radius = 1.1f;
    sr_quat q = sr_quat_from_axis_angle(sr_vec3_make(1.0f, 2.0f, 0.5f), (float)angle);
    sr_debug_list *list = list_make();
    sr_debug_sphere_oriented(list, centre, q, radius, sr_debug_style_color(SR_DEBUG_GREEN));
    draw(&f, list);
    curve *curves = calloc(20, sizeof *curves);
    int n = oriented_sphere_curves(&f, centre, axis, angle, radius, curves);
    expect_curves_allowing(&f, curves, n, curves + n, 16, SR_DEBUG_GREEN, 1.6);
    // The unrotated sphere's circles are not there.
    double none[3] = {0, 1, 0};
    oriented_sphere_curves(&f, centre, none, 0.0, radius, curves);
    int missed = 0;
    for (int i = 0; i < curves[0].count; i++)
        missed += !lit_near(&f, curves[0].x[i], curves[0].y[i], SR_DEBUG_GREEN);
    cr_assert_gt(missed, curves[0].count / 4);
    free(curves);
    sr_debug_list_destroy(list);
    frame_free(&f);
}

/* Returns the colour buffer of one sphere drawn alone (free it). */
static uint32_t *sphere_image(bool oriented, sr_quat q)
{
    frame f = frame_make(1, false);
    sr_debug_list *list = list_make();
    if (oriented)
        sr_debug_sphere_oriented(list, sr_vec3_make(0, 0.5f, 0), q, 1.0f, sr_debug_style_color(SR_DEBUG_WHITE));
    else
        sr_debug_sphere(list, sr_vec3_make(0, 0.5f, 0), 1.0f, sr_debug_style_color(SR_DEBUG_WHITE));
    draw(&f, list);
    uint32_t *image = malloc(W * H * 4);
    memcpy(image, f.fb->color, W * H * 4);
    sr_debug_list_destroy(list);
    frame_free(&f);
    return image;
}

Test(debug_sphere, spin_shows_even_where_the_circles_map_onto_themselves)
{
    // A quarter turn about Y maps the three great circles onto themselves: only the marked
    // radius tells the two orientations apart.
    uint32_t *still = sphere_image(true, sr_quat_identity());
    uint32_t *turned = sphere_image(true, sr_quat_from_axis_angle(sr_vec3_make(0, 1, 0), SR_PI / 2));
    int different = 0;
    for (int i = 0; i < W * H; i++)
        different += still[i] != turned[i];
    cr_assert_gt(different, 40, "%d pixels differ", different);
    // With the identity, the circles are sr_debug_sphere's pixels: the oriented one adds the radius.
    uint32_t *plain = sphere_image(false, sr_quat_identity());
    int extra = 0;
    for (int i = 0; i < W * H; i++) {
        if (plain[i] != BACKGROUND)
            cr_assert_eq(still[i], plain[i], "pixel %d", i);
        extra += plain[i] == BACKGROUND && still[i] != BACKGROUND;
    }
    cr_assert_gt(extra, 10);
    // A rotation that is no rotation draws the unrotated sphere; a scaled quaternion is normalised.
    uint32_t *zero = sphere_image(true, (sr_quat){0, 0, 0, 0});
    uint32_t *scaled = sphere_image(true, (sr_quat){0, 0, 0, 3});
    cr_assert(memcmp(zero, still, W * H * 4) == 0 && memcmp(scaled, still, W * H * 4) == 0);
    free(still);
    free(turned);
    free(plain);
    free(zero);
    free(scaled);
}

/* ---- two-colour lines ---- */

Test(debug_line, a_gradient_line_blends_its_end_colours_perspective_correctly)
{
    frame f = frame_make(1, false);
    // From near the eye to far away: screen-space interpolation would be far off the world's.
    sr_vec3 a = {-1.2f, 0.2f, 2.5f}, b = {1.0f, 0.5f, -12.0f};
    const uint32_t color_a = sr_rgba8(1, 0, 0, 1), color_b = sr_rgba8(0, 0, 1, 1);
    sr_debug_list *list = list_make();
    sr_debug_line_gradient(list, a, b, sr_debug_style_color(color_a), color_b);
    draw(&f, list);
    test_pixel pa = project(&f, a), pb = project(&f, b);
    int checked = 0, far_from_affine = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint32_t c = pixel(&f, x, y);
            if (c == BACKGROUND)
                continue;
            // The pixel lies on the projected segment (within 1 px)...
            double d = test_distance_to_segment(x + 0.5, y + 0.5, pa.x, pa.y, pb.x, pb.y);
            cr_assert_leq(d, 1.0, "pixel (%d, %d) is %.2f px off the line", x, y, d);
            // ...at screen fraction s of it, which is world fraction t = (s / wb) / ((1 - s) / wa + s / wb).
            double dx = pb.x - pa.x, dy = pb.y - pa.y;
            double s = ((x + 0.5 - pa.x) * dx + (y + 0.5 - pa.y) * dy) / (dx * dx + dy * dy);
            s = s < 0 ? 0 : s > 1 ? 1 : s;
            double t = (s / pb.w) / ((1 - s) / pa.w + s / pb.w);
            double red = 255.0 * (1 - t), blue = 255.0 * t;
            // The colour of a point half a pixel along the line changes by this much.
            double per_px = 255.0 * fabs(((s + 0.5 / sqrt(dx * dx + dy * dy)) / pb.w) /
                                             ((1 - s - 0.5 / sqrt(dx * dx + dy * dy)) / pa.w +
                                              (s + 0.5 / sqrt(dx * dx + dy * dy)) / pb.w) -
                                         t);
            double tolerance = 1.5 + per_px;
            cr_assert_leq(fabs((double)(c & 0xffu) - red), tolerance, "(%d, %d): red %u, expected %.1f", x, y,
                          c & 0xffu, red);
            cr_assert_leq(fabs((double)(c >> 16 & 0xffu) - blue), tolerance, "(%d, %d): blue %u, expected %.1f", x, y,
                          c >> 16 & 0xffu, blue);
            checked++;
            far_from_affine += fabs(255.0 * s - blue) > 3 * tolerance;
        }
    cr_assert_gt(checked, 100, "%d pixels", checked);
    cr_assert_gt(far_from_affine, checked / 4, "the test tells perspective-correct from screen-linear");
    sr_debug_list_destroy(list);
    frame_free(&f);
}

/* ---- dots ---- */

/* Checks that exactly the pixels whose centres are within size / 2 of the point's projection
 * have `color` (a ring of 0.01 px on the border excepted). Returns the pixels inside. */
static int expect_disc(const frame *f, sr_vec3 point, double size, uint32_t color)
{
    test_pixel p = project(f, point);
    double radius = size / 2;
    int inside = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double d = hypot(x + 0.5 - p.x, y + 0.5 - p.y);
            if (fabs(d - radius) < 0.01)
                continue;
            bool in = d < radius;
            inside += in;
            cr_assert_eq(pixel(f, x, y) == color, in, "(%d, %d) at %.3f px from the centre (radius %.1f)", x, y, d,
                         radius);
        }
    return inside;
}

Test(debug_dot, a_dot_is_the_disc_of_its_size_around_the_projection)
{
    const float sizes[4] = {1.0f, 4.0f, 9.0f, 24.5f};
    for (int k = 0; k < 4; k++) {
        frame f = frame_make(1, false);
        sr_vec3 point = {0.3f + 0.05f * (float)k, 0.7f, -0.4f};
        sr_debug_list *list = list_make();
        sr_debug_dot(list, point, sizes[k], sr_debug_style_make(SR_DEBUG_MAGENTA, 1, true));
        draw(&f, list);
        int inside = expect_disc(&f, point, sizes[k], SR_DEBUG_MAGENTA);
        double area = M_PI * sizes[k] * sizes[k] / 4;
        cr_assert(fabs(inside - area) <= 2 + 0.6 * sizes[k], "size %g: %d pixels, area %.1f", (double)sizes[k], inside,
                  area);
        sr_debug_list_destroy(list);
        frame_free(&f);
    }
}

Test(debug_dot, a_dot_is_screen_sized_and_depth_tested_at_its_point)
{
    // The same size near and far.
    frame f = frame_make(1, false);
    sr_debug_list *list = list_make();
    sr_vec3 near_point = {-0.5f, 0.5f, 2.0f}, far_point = {1.5f, 0.5f, -20.0f};
    sr_debug_dot(list, near_point, 8.0f, sr_debug_style_color(SR_DEBUG_RED));
    sr_debug_dot(list, far_point, 8.0f, sr_debug_style_color(SR_DEBUG_YELLOW));
    draw(&f, list);
    int near_count = expect_disc(&f, near_point, 8.0, SR_DEBUG_RED);
    int far_count = expect_disc(&f, far_point, 8.0, SR_DEBUG_YELLOW);
    cr_assert(near_count >= 44 && near_count <= 56 && far_count >= 44 && far_count <= 56, "%d and %d pixels",
              near_count, far_count);
    sr_debug_list_destroy(list);
    frame_free(&f);
    // On a sloped wall (the camera looks down on it), behind it, behind it on top: the dot on the
    // wall shows whole, the one behind not at all unless on top.
    const sr_vec3 points[3] = {{0.2f, 0.4f, 0.0f}, {0.2f, 0.4f, -0.3f}, {0.2f, 0.4f, -0.3f}};
    for (int k = 0; k < 3; k++) {
        frame g = frame_make(1, false);
        draw_wall(&g, 0.0f);
        sr_debug_list *dots = list_make();
        sr_debug_dot(dots, points[k], 16.0f, sr_debug_style_make(SR_DEBUG_CYAN, 1, k == 2));
        draw(&g, dots);
        if (k == 1) {
            for (int i = 0; i < W * H; i++)
                cr_assert_neq(g.fb->color[i], SR_DEBUG_CYAN, "the dot behind the wall is hidden");
        } else {
            cr_assert_gt(expect_disc(&g, points[k], 16.0, SR_DEBUG_CYAN), 190, "dot %d", k);
        }
        sr_debug_list_destroy(dots);
        frame_free(&g);
    }
}

Test(debug_dot, a_translucent_dot_blends_each_pixel_once)
{
    frame f = frame_make(1, false);
    sr_debug_list *list = list_make();
    const uint32_t color = sr_rgba8(1.0f, 1.0f, 0.0f, 0.5f);
    sr_vec3 point = {0.0f, 0.5f, 0.0f};
    sr_debug_dot(list, point, 12.0f, sr_debug_style_make(color, 1, true));
    draw(&f, list);
    expect_disc(&f, point, 12.0, test_blend_over(color, BACKGROUND));
    sr_debug_list_destroy(list);
    frame_free(&f);
}

