/* tests/test_raster_clip.c — homogeneous clipping of triangles and lines (src/raster/clip.c, the
 * plane tests of raster_internal.h, the parametric clipping of line.c), checked against independent
 * computations in double: the homogeneous-edge-function regions of tests/raster_reference.h (what a
 * planar polygon covers in front of the eye between the near and far planes, without clipping), and a
 * line rasteriser written from raster.h's rule. Geometry is made to cross the planes on screen: parts
 * between the eye and the near plane, behind the eye and beyond the far plane are all in view, so that
 * drawing them (or losing what is in front) changes pixels. Framebuffers are built by hand. */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"
#include "raster_reference.h"

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                     */

static sr_framebuffer *fb_new(int width, int height)
{
    sr_framebuffer *fb = calloc(1, sizeof *fb);
    cr_assert(fb);
    size_t count = (size_t)width * (size_t)height;
    fb->width = width;
    fb->height = height;
    fb->color = calloc(count, sizeof *fb->color);
    fb->depth = malloc(count * sizeof *fb->depth);
    cr_assert(fb->color && fb->depth);
    for (size_t i = 0; i < count; i++)
        fb->depth[i] = 1.0f;
    return fb;
}

static void fb_clear(sr_framebuffer *fb)
{
    size_t count = (size_t)fb->width * (size_t)fb->height;
    memset(fb->color, 0, count * sizeof *fb->color);
    for (size_t i = 0; i < count; i++)
        fb->depth[i] = 1.0f;
}

static void fb_delete(sr_framebuffer *fb)
{
    free(fb->color);
    free(fb->depth);
    free(fb);
}

static sr_renderer *renderer_new(void)
{
    sr_renderer *renderer = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(NULL, &renderer, &err), SR_OK, "%s", err.message);
    return renderer;
}

static uint64_t rng_next(uint64_t *state)
{
    // xorshift64*
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

static double rng_uniform(uint64_t *state)
{
    return (double)(rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* The vertices of these tests are clip-space positions, computed by the test (in float, as a vertex
 * function would) so that the reference sees exactly the positions the pipeline gets. */
typedef struct clip_vertex {
    float clip[4];
} clip_vertex;

static void clip_vertex_fn(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    (void)uniforms;
    (void)varyings;
    memcpy(clip, ((const clip_vertex *)vertex)->clip, sizeof(float[4]));
}

static bool color_fragment_fn(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    (void)in;
    memcpy(out->color, uniforms, sizeof out->color);
    return true;
}

/* The counter: every fragment adds 1/255 to red (additive blend, depth ALWAYS, no depth writes), so
 * red is the number of times the pixel was drawn, whatever the depth. */
static const float counter_color[4] = {1.0f / 255.0f, 0.0f, 0.0f, 1.0f};
static const sr_render_state counter_state = {
    .cull = SR_CULL_NONE, .depth_func = SR_DEPTH_ALWAYS, .no_depth_write = true, .blend = SR_BLEND_ADDITIVE};

static void draw_clip_mesh(sr_renderer *renderer, sr_framebuffer *fb, const clip_vertex *vertices, size_t count,
                           const uint32_t *indices, size_t index_count, const float color[4], sr_render_state state)
{
    sr_program program = {.name = "clip",
                          .vertex = clip_vertex_fn,
                          .fragment = color_fragment_fn,
                          .uniforms = color,
                          .vertex_size = sizeof(clip_vertex)};
    sr_draw_desc desc = {.vertices = vertices,
                         .vertex_count = count,
                         .vertex_stride = sizeof *vertices,
                         .indices = indices,
                         .index_count = index_count,
                         .program = &program,
                         .state = state};
    sr_error err;
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
}

static int red_at(const sr_framebuffer *fb, int x, int y)
{
    return (int)(fb->color[y * fb->width + x] & 0xffu);
}

/* Clip position of a view-space point, in float as a vertex function computes it. */
static clip_vertex project(sr_mat4 projection, const double p[3])
{
    sr_vec4 c = sr_mat4_mul_vec4(projection, (sr_vec4){(float)p[0], (float)p[1], (float)p[2], 1.0f});
    return (clip_vertex){{c.x, c.y, c.z, c.w}};
}

static void to_double(const clip_vertex *v, double out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = v->clip[k];
}

/* ------------------------------------------------------------------------------------------ */
/* A planar mesh crossing the near or far plane, every pixel against the reference             */

/* Planes that cut a mesh, and HIDDEN: they hide all of it. */
enum { CUT_NEAR = 1, CUT_FAR = 2, HIDDEN = 4 };

/* A camera (fov_y, near, far) and a parallelogram centre + s u + t v (s, t in [-1, 1]) in view space,
 * meshed as an n x n grid with jittered interior points, random diagonals and random windings.
 * `cuts`: the planes that must visibly hide part of it (checked on the reference itself, so that the
 * test cannot pass by not looking). */
typedef struct plane_case {
    double fov_y, near_z, far_z;
    double centre[3], u[3], v[3];
    int cuts;
} plane_case;

#define GRID 8
#define GRID_POINTS ((GRID + 1) * (GRID + 1))

static void check_plane_case(const plane_case *pc, uint64_t seed)
{
    const int size = 64;
    sr_mat4 projection = sr_mat4_perspective((float)pc->fov_y, 1.0f, (float)pc->near_z, (float)pc->far_z);
    clip_vertex vertices[GRID_POINTS];
    uint32_t indices[GRID * GRID * 6];
    uint64_t rng = seed;
    for (int j = 0; j <= GRID; j++)
        for (int i = 0; i <= GRID; i++) {
            double s = 2.0 * i / GRID - 1.0, t = 2.0 * j / GRID - 1.0;
            if (i > 0 && i < GRID)
                s += (rng_uniform(&rng) - 0.5) * 0.6 / GRID;
            if (j > 0 && j < GRID)
                t += (rng_uniform(&rng) - 0.5) * 0.6 / GRID;
            double p[3];
            for (int k = 0; k < 3; k++)
                p[k] = pc->centre[k] + s * pc->u[k] + t * pc->v[k];
            vertices[j * (GRID + 1) + i] = project(projection, p);
        }
    size_t count = 0;
    for (int j = 0; j < GRID; j++)
        for (int i = 0; i < GRID; i++) {
            uint32_t a = (uint32_t)(j * (GRID + 1) + i), b = a + 1, d = a + GRID + 1, e = d + 1;
            uint32_t tri[2][3] = {{a, b, e}, {a, e, d}};
            if (rng_next(&rng) & 1) {
                const uint32_t other[2][3] = {{a, b, d}, {b, e, d}};
                memcpy(tri, other, sizeof tri);
            }
            for (int k = 0; k < 2; k++) {
                bool flip = rng_next(&rng) & 1;
                indices[count++] = tri[k][0];
                indices[count++] = tri[k][flip ? 2 : 1];
                indices[count++] = tri[k][flip ? 1 : 2];
            }
        }
    // The reference: the outline (corners s, t = (-1, -1), (1, -1), (1, 1), (-1, 1)) and the plane
    // through its first three corners.
    const int corners[4] = {0, GRID, GRID_POINTS - 1, GRID * (GRID + 1)};
    double outline[4][4], cone[4][4];
    for (int c = 0; c < 4; c++) {
        to_double(&vertices[corners[c]], outline[c]);
        memcpy(cone[c], outline[c], sizeof cone[c]);
        cone[c][2] = 0.5 * cone[c][3]; // the same cone with nothing cut by the near and far planes
    }
    reference_region region = reference_region_make(&outline[0][0], 4, &outline[0][0], SR_CLIP_W_EPSILON);
    reference_region unclipped = reference_region_make(&cone[0][0], 4, &cone[0][0], 0.0);
    cr_assert(!region.unknown && !unclipped.unknown);

    sr_framebuffer *fb = fb_new(size, size);
    sr_renderer *renderer = renderer_new();
    draw_clip_mesh(renderer, fb, vertices, GRID_POINTS, indices, count, counter_color, counter_state);
    int inside = 0, decided = 0, hidden_near = 0, hidden_far = 0;
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            double x = px + 0.5, y = py + 0.5;
            int expected = reference_region_classify(&region, size, size, x, y, 0.01);
            int drawn = red_at(fb, px, py);
            if (expected < 0) {
                cr_assert_leq(drawn, 1, "pixel (%d, %d) on the outline drawn %d times", px, py, drawn);
            } else {
                decided++;
                inside += expected;
                cr_assert_eq(drawn, expected, "pixel (%d, %d) drawn %d times, the reference covers it %d times", px,
                             py, drawn, expected);
            }
            // Pixels where the mesh is in view but lies between the eye and the near plane, or
            // beyond the far plane (window depth z / w below 0 or above 1).
            if (reference_region_classify(&unclipped, size, size, x, y, 0.01) == 1) {
                double ndc_x = 2.0 * x / size - 1.0, ndc_y = 1.0 - 2.0 * y / size;
                double depth = region.depth[0] * ndc_x + region.depth[1] * ndc_y + region.depth[2];
                hidden_near += depth < -1e-3;
                hidden_far += depth > 1.0 + 1e-3;
            }
        }
    cr_assert_gt(decided, size * size * 9 / 10, "only %d pixels decided", decided);
    sr_raster_stats stats = sr_renderer_stats(renderer);
    if (pc->cuts & HIDDEN)
        cr_assert_eq(stats.triangles_culled, stats.triangles_in, "a hidden mesh was not rejected whole");
    else
        cr_assert_gt(stats.triangles_clipped, 0);
    if (pc->cuts & HIDDEN)
        cr_assert_eq(inside, 0, "%d pixels of a hidden mesh", inside);
    else
        cr_assert_gt(inside, 50, "only %d pixels covered", inside);
    if (pc->cuts & CUT_NEAR)
        cr_assert_gt(hidden_near, 50, "only %d pixels see the mesh between the eye and the near plane", hidden_near);
    if (pc->cuts & CUT_FAR)
        cr_assert_gt(hidden_far, 50, "only %d pixels see the mesh beyond the far plane", hidden_far);

    // Drawn again with the default state (LESS, depth writes): the depth buffer holds the window
    // depth of the plane where it is visible, 1 elsewhere.
    fb_clear(fb);
    const float white[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    draw_clip_mesh(renderer, fb, vertices, GRID_POINTS, indices, count, white, (sr_render_state){0});
    double tolerance = 1e-5 + region.depth_noise + 0.01 * reference_region_depth_slope(&region, size, size);
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            double x = px + 0.5, y = py + 0.5;
            int expected = reference_region_classify(&region, size, size, x, y, 0.01);
            if (expected < 0)
                continue;
            float depth = fb->depth[py * size + px];
            double reference = expected ? reference_region_depth(&region, size, size, x, y) : 1.0;
            if (expected && reference > 1.0 - tolerance)
                continue; // at the far plane: LESS against the cleared 1.0 may go either way
            cr_assert_eq(fb->color[py * size + px] != 0, expected == 1, "pixel (%d, %d)", px, py);
            cr_assert(fabs(depth - reference) <= tolerance, "pixel (%d, %d): depth %.9g, reference %.9g", px, py,
                      (double)depth, reference);
        }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(clip, geometry_between_the_eye_and_the_near_plane_is_not_drawn)
{
    // A near plane at 1 with a 90 degree field of view: the near plane crosses these meshes well
    // inside the picture, and what lies between it and the eye (and behind the eye) is in view.
    const double fov = SR_PI / 2;
    const plane_case cases[] = {
        {fov, 1.0, 50.0, {0.0, -0.4, -2.0}, {3.0, 0.0, 0.0}, {0.0, 0.0, 3.5}, CUT_NEAR},      // floor
        {fov, 1.0, 50.0, {0.0, 0.45, -1.5}, {2.5, 0.0, 0.3}, {0.2, 0.1, 3.0}, CUT_NEAR},      // ceiling
        {fov, 1.0, 50.0, {0.3, 0.2, -1.5}, {1.5, 0.4, 1.2}, {-0.3, 1.6, 0.5}, CUT_NEAR},      // wall
        {fov, 1.0, 50.0, {-0.2, -0.1, -1.2}, {2.0, 0.6, -0.8}, {0.4, 1.5, 1.6}, CUT_NEAR},    // tilted
        {fov, 0.5, 20.0, {0.4, -0.2, -0.8}, {0.3, 1.5, 0.9}, {1.8, -0.2, -0.6}, CUT_NEAR},    // steep
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check_plane_case(&cases[c], 1000 + c);
}

Test(clip, geometry_beyond_the_far_plane_is_not_drawn)
{
    const double fov = SR_PI / 2;
    const plane_case cases[] = {
        {fov, 0.1, 3.0, {0.0, -0.5, -5.5}, {3.0, 0.0, 0.0}, {0.0, 0.0, 4.5}, CUT_FAR},      // floor
        {fov, 0.1, 5.0, {0.5, 0.0, -5.0}, {3.0, 0.0, -3.5}, {0.0, 2.0, 0.0}, CUT_FAR},      // wall
        {fov, 0.1, 4.5, {-0.3, 0.4, -4.5}, {1.8, 0.3, 1.5}, {0.2, 1.2, -1.6}, CUT_FAR},     // tilted
        {fov, 0.1, 4.0, {0.0, 0.0, -8.0}, {3.0, 0.0, 0.0}, {0.0, 3.0, 0.5}, CUT_FAR | HIDDEN}, // all beyond
        {fov, 0.5, 1.5, {0.0, 0.9, -3.0}, {2.5, 0.0, 0.0}, {0.0, -0.7, 3.5}, CUT_NEAR | CUT_FAR}, // both
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check_plane_case(&cases[c], 2000 + c);
}

/* Regression (found by a watertightness test of webs of triangles): a triangle with
 * one corner behind the eye and one beyond the far plane, both about 1e24 away. Clipping makes
 * vertices on the w plane (w = 1e-20, coordinates up to 1e23: points at infinity on screen); the near
 * plane then cuts the edge between two of them close to its small end. Interpolated from the huge
 * inside end (t = 1 - 3e-16), that vertex lost all its digits, the guard-band vertices after it moved
 * by 20,000 pixels, and the polygon came out non-convex: its fan drew pixels twice, and outside the
 * triangle. Every pixel must be drawn as often as the reference covers it. */
Test(clip, triangle_with_far_corners_on_both_sides_of_the_eye_stays_convex)
{
    const int size = 64;
    const clip_vertex v[3] = {{{0x1.1c3b88p-1f, 0x1.01d104p+0f, 0x1.dc79f4p+0f, 0x1.2a447ep+1f}},
                              {{0x1.3f58c8p+77f, 0x1.a736ap+79f, -0x1.abf486p+75f, -0x1.a4d294p+75f}},
                              {{0x1.3048eep+76f, 0x1.8fcbfp+79f, 0x1.95d3fap+77f, 0x1.8f107p+77f}}};
    double clip[3][4];
    for (int k = 0; k < 3; k++)
        to_double(&v[k], clip[k]);
    reference_region region = reference_region_triangle(&clip[0][0], SR_CLIP_W_EPSILON);
    sr_framebuffer *fb = fb_new(size, size);
    sr_renderer *renderer = renderer_new();
    draw_clip_mesh(renderer, fb, v, 3, NULL, 3, counter_color, counter_state);
    int inside = 0;
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            int expected = reference_region_classify(&region, size, size, px + 0.5, py + 0.5, 0.01);
            int drawn = red_at(fb, px, py);
            cr_assert_leq(drawn, 1, "pixel (%d, %d) drawn %d times", px, py, drawn);
            if (expected >= 0)
                cr_assert_eq(drawn, expected, "pixel (%d, %d) drawn %d times, the reference covers it %d times", px,
                             py, drawn, expected);
            inside += expected == 1;
        }
    cr_assert_gt(inside, 20);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}
