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
                cr_assert_eq(drawn, expected, "pixel (%d, %d) drawn %d times, the reference covers it %d times", px, py,
                             drawn, expected);
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
        {fov, 1.0, 50.0, {0.0, -0.4, -2.0}, {3.0, 0.0, 0.0}, {0.0, 0.0, 3.5}, CUT_NEAR},   // floor
        {fov, 1.0, 50.0, {0.0, 0.45, -1.5}, {2.5, 0.0, 0.3}, {0.2, 0.1, 3.0}, CUT_NEAR},   // ceiling
        {fov, 1.0, 50.0, {0.3, 0.2, -1.5}, {1.5, 0.4, 1.2}, {-0.3, 1.6, 0.5}, CUT_NEAR},   // wall
        {fov, 1.0, 50.0, {-0.2, -0.1, -1.2}, {2.0, 0.6, -0.8}, {0.4, 1.5, 1.6}, CUT_NEAR}, // tilted
        {fov, 0.5, 20.0, {0.4, -0.2, -0.8}, {0.3, 1.5, 0.9}, {1.8, -0.2, -0.6}, CUT_NEAR}, // steep
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check_plane_case(&cases[c], 1000 + c);
}

Test(clip, geometry_beyond_the_far_plane_is_not_drawn)
{
    const double fov = SR_PI / 2;
    const plane_case cases[] = {
        {fov, 0.1, 3.0, {0.0, -0.5, -5.5}, {3.0, 0.0, 0.0}, {0.0, 0.0, 4.5}, CUT_FAR},            // floor
        {fov, 0.1, 5.0, {0.5, 0.0, -5.0}, {3.0, 0.0, -3.5}, {0.0, 2.0, 0.0}, CUT_FAR},            // wall
        {fov, 0.1, 4.5, {-0.3, 0.4, -4.5}, {1.8, 0.3, 1.5}, {0.2, 1.2, -1.6}, CUT_FAR},           // tilted
        {fov, 0.1, 4.0, {0.0, 0.0, -8.0}, {3.0, 0.0, 0.0}, {0.0, 3.0, 0.5}, CUT_FAR | HIDDEN},    // all beyond
        {fov, 0.5, 1.5, {0.0, 0.9, -3.0}, {2.5, 0.0, 0.0}, {0.0, -0.7, 3.5}, CUT_NEAR | CUT_FAR}, // both
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check_plane_case(&cases[c], 2000 + c);
}

/* ------------------------------------------------------------------------------------------ */
/* Watertight clipping: edges shared by two triangles are cut at the same point in both         */

#define SPOKES 16
#define WEB_POINTS (1 + 2 * SPOKES)
#define WEB_INDICES (3 * SPOKES * 3)

/* A web in plane coordinates (s, t): point 0 at the centre, points 1..SPOKES on an inner ring of
 * radius `inner`, SPOKES + 1..2 SPOKES on an outer ring of radius `outer` (angles jittered, in
 * counter-clockwise order). Triangles: a fan from the centre to the inner ring, and between the rings
 * quads split along random diagonals; random windings. The spokes between the rings (and the
 * diagonals) are shared by two triangles, and are what a plane far out cuts. */
static void make_web(double inner, double outer, double phase, uint64_t *rng, double st[WEB_POINTS][2],
                     uint32_t indices[WEB_INDICES])
{
    st[0][0] = st[0][1] = 0.0;
    for (int i = 0; i < SPOKES; i++) {
        double a = phase + 2.0 * SR_PI * (i + 0.3 * (rng_uniform(rng) - 0.5)) / SPOKES;
        double b = phase + 2.0 * SR_PI * (i + 0.3 * (rng_uniform(rng) - 0.5)) / SPOKES;
        st[1 + i][0] = inner * cos(a);
        st[1 + i][1] = inner * sin(a);
        st[1 + SPOKES + i][0] = outer * cos(b);
        st[1 + SPOKES + i][1] = outer * sin(b);
    }
    size_t n = 0;
    for (int i = 0; i < SPOKES; i++) {
        uint32_t in0 = (uint32_t)(1 + i), in1 = (uint32_t)(1 + (i + 1) % SPOKES);
        uint32_t out0 = in0 + SPOKES, out1 = in1 + SPOKES;
        uint32_t tri[3][3] = {{0, in0, in1}, {in0, out0, out1}, {in0, out1, in1}};
        if (rng_next(rng) & 1) {
            const uint32_t other[2][3] = {{in0, out0, in1}, {in1, out0, out1}};
            memcpy(tri[1], other, sizeof other);
        }
        for (int k = 0; k < 3; k++) {
            bool flip = rng_next(rng) & 1;
            indices[n++] = tri[k][0];
            indices[n++] = tri[k][flip ? 2 : 1];
            indices[n++] = tri[k][flip ? 1 : 2];
        }
    }
}

/* Outer radii from ordinary to extreme: the farther the outer ring, the more an interpolation that
 * starts from the outside end of a spoke loses (1e30 - 1e30 leaves nothing of the inside end). */
static const double web_radii[] = {3e4, 1e8, 1e16, 1e24, 1e30};

/* In clip space with w = 1 (scaled by a random positive factor per vertex, which is the same point),
 * the outer ring lies far outside the guard band: every spoke is cut by guard-band planes, and the
 * web covers the whole viewport, so every pixel must be drawn exactly once. */
Test(clip, shared_edges_cut_by_the_guard_band_stay_watertight)
{
    const int size = 64;
    sr_framebuffer *fb = fb_new(size, size);
    sr_renderer *renderer = renderer_new();
    const double centres[3][2] = {{0.0, 0.0}, {0.31, -0.23}, {-0.55, 0.4}};
    uint64_t rng = 77;
    int webs = 0;
    for (size_t r = 0; r < sizeof web_radii / sizeof web_radii[0]; r++)
        for (int c = 0; c < 3; c++)
            for (int p = 0; p < 3; p++) {
                double st[WEB_POINTS][2];
                uint32_t indices[WEB_INDICES];
                make_web(0.4, web_radii[r], 0.37 + 1.3 * p + 0.1 * c, &rng, st, indices);
                clip_vertex vertices[WEB_POINTS];
                for (int i = 0; i < WEB_POINTS; i++) {
                    double k = 0.5 + 1.5 * rng_uniform(&rng);
                    vertices[i] = (clip_vertex){{(float)((centres[c][0] + st[i][0]) * k),
                                                 (float)((centres[c][1] + st[i][1]) * k), (float)(0.5 * k), (float)k}};
                }
                fb_clear(fb);
                sr_renderer_reset_stats(renderer);
                draw_clip_mesh(renderer, fb, vertices, WEB_POINTS, indices, WEB_INDICES, counter_color, counter_state);
                if (web_radii[r] > 1e5)
                    cr_assert_gt(sr_renderer_stats(renderer).triangles_clipped, 0);
                for (int i = 0; i < size * size; i++)
                    cr_assert_eq(fb->color[i] & 0xffu, 1u,
                                 "outer radius %g, centre %d, phase %d: pixel (%d, %d) drawn %u times", web_radii[r], c,
                                 p, i % size, i / size, fb->color[i] & 0xffu);
                webs++;
            }
    cr_assert_eq(webs, 45);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* Webs in view space, in planes that pass in front of the eye: the outer ring reaches behind the eye
 * (spokes cut by the w and near planes) and beyond the far plane (spokes cut by it). Every pixel is
 * drawn as often as the reference region of the outer ring covers it: once inside, never outside. */
Test(clip, shared_edges_cut_by_the_near_and_far_planes_stay_watertight)
{
    const int size = 64;
    const double near_z = 0.5, far_z = 30.0;
    sr_mat4 projection = sr_mat4_perspective(SR_PI / 2, 1.0f, (float)near_z, (float)far_z);
    const struct {
        double centre[3], e1[3], e2[3];
    } planes[4] = {
        {{0.2, -0.4, -3.0}, {1.0, 0.0, 0.0}, {0.0, 0.0, 1.0}},   // floor
        {{-0.3, -0.2, -2.5}, {0.9, 0.3, 0.3}, {-0.2, 0.4, 0.9}}, // tilted
        {{0.5, 0.1, -2.0}, {0.2, 1.0, 0.1}, {0.3, 0.0, 1.0}},    // wall
        {{0.0, 0.5, -2.2}, {1.0, 0.1, 0.0}, {0.1, 0.2, 1.0}},    // ceiling
    };
    sr_framebuffer *fb = fb_new(size, size);
    sr_renderer *renderer = renderer_new();
    uint64_t rng = 99;
    for (size_t r = 0; r < sizeof web_radii / sizeof web_radii[0]; r++)
        for (int q = 0; q < 4; q++)
            for (int p = 0; p < 2; p++) {
                double st[WEB_POINTS][2];
                uint32_t indices[WEB_INDICES];
                make_web(1.0, web_radii[r], 0.2 + 1.9 * p + 0.3 * q, &rng, st, indices);
                clip_vertex vertices[WEB_POINTS];
                for (int i = 0; i < WEB_POINTS; i++) {
                    double world[3];
                    for (int k = 0; k < 3; k++)
                        world[k] = planes[q].centre[k] + st[i][0] * planes[q].e1[k] + st[i][1] * planes[q].e2[k];
                    vertices[i] = project(projection, world);
                }
                // The reference: the outer ring as outline, the plane through the centre and two
                // inner-ring points a quarter turn apart (in the ring's orientation).
                double outline[SPOKES][4], plane[3][4];
                for (int i = 0; i < SPOKES; i++)
                    to_double(&vertices[1 + SPOKES + i], outline[i]);
                to_double(&vertices[0], plane[0]);
                to_double(&vertices[1], plane[1]);
                to_double(&vertices[1 + SPOKES / 4], plane[2]);
                reference_region region =
                    reference_region_make(&outline[0][0], SPOKES, &plane[0][0], SR_CLIP_W_EPSILON);
                cr_assert(!region.unknown);
                fb_clear(fb);
                sr_renderer_reset_stats(renderer);
                draw_clip_mesh(renderer, fb, vertices, WEB_POINTS, indices, WEB_INDICES, counter_color, counter_state);
                cr_assert_gt(sr_renderer_stats(renderer).triangles_clipped, 0);
                int inside = 0, decided = 0;
                for (int py = 0; py < size; py++)
                    for (int px = 0; px < size; px++) {
                        int expected = reference_region_classify(&region, size, size, px + 0.5, py + 0.5, 0.01);
                        int drawn = red_at(fb, px, py);
                        cr_assert_leq(drawn, 1, "outer radius %g, plane %d: pixel (%d, %d) drawn %d times",
                                      web_radii[r], q, px, py, drawn);
                        if (expected < 0)
                            continue;
                        decided++;
                        inside += expected;
                        cr_assert_eq(drawn, expected,
                                     "outer radius %g, plane %d: pixel (%d, %d) drawn %d times, the "
                                     "reference covers it %d times",
                                     web_radii[r], q, px, py, drawn, expected);
                    }
                cr_assert_gt(decided, size * size * 9 / 10);
                cr_assert_gt(inside, size * size / 8, "only %d pixels covered", inside);
            }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* The clipper's contract (raster_internal.h): how a new vertex on an edge is computed depends on the
 * edge and the plane, not on the direction a triangle walks the edge, so the two triangles sharing
 * it, which walk it in opposite directions, make the very same vertex, bit for bit (clip position
 * and attributes). For
 * each plane, random edges from inside to far outside (10^0 .. 10^30 beyond), each clipped in two
 * triangles with third vertices on either side. */
Test(clip, both_triangles_of_a_cut_edge_make_the_same_vertex)
{
    const sr_viewport viewport = sr_raster_viewport(64, 48);
    const double guard[2] = {viewport.guard_x, viewport.guard_y};
    uint64_t rng = 4242;
    int compared = 0;
    for (int plane = 0; plane < SR_CLIP_PLANE_COUNT; plane++) {
        for (int trial = 0; trial < 300; trial++) {
            // A random point near the view volume, and one pushed along a random direction by
            // 10^0 .. 10^30: clip distances in double with the planes' definitions (DESIGN.md).
            double points[4][4];
            for (int p = 0; p < 4; p++) {
                double scale = p == 1 ? pow(10.0, 30.0 * rng_uniform(&rng)) : 1.0;
                for (int k = 0; k < 4; k++)
                    points[p][k] = (float)((rng_uniform(&rng) * 2.0 - 1.0) * scale);
                points[p][3] = (float)(fabs(points[p][3]) + (p == 1 ? -0.5 * scale : 0.5));
            }
            double distance[4];
            for (int p = 0; p < 4; p++) {
                const double *c = points[p];
                double d[SR_CLIP_PLANE_COUNT] = {c[3] - (double)SR_CLIP_W_EPSILON,
                                                 c[2],
                                                 c[3] - c[2],
                                                 c[0] + guard[0] * c[3],
                                                 guard[0] * c[3] - c[0],
                                                 c[1] + guard[1] * c[3],
                                                 guard[1] * c[3] - c[1]};
                distance[p] = d[plane];
            }
            // Point 0 (A) inside, point 1 (B) outside; 2 and 3 are the third vertices.
            if (!(distance[0] > 0.0 && distance[1] < 0.0 && distance[2] != 0.0 && distance[3] != 0.0))
                continue;
            sr_clip_vertex made[2];
            for (int side = 0; side < 2; side++) {
                // Triangle (A, B, C) and, walking the edge the other way, (B, A, C').
                const int order[2][3] = {{0, 1, 2}, {1, 0, 3}};
                sr_clip_vertex polygon[SR_CLIP_MAX_VERTICES];
                memset(polygon, 0, sizeof polygon);
                for (int k = 0; k < 3; k++) {
                    int p = order[side][k];
                    memcpy(polygon[k].clip, points[p], sizeof polygon[k].clip);
                    polygon[k].corner = k;
                    // Attribute 1 is 0 on A and B only: exactly 0 on the new vertex of edge AB, above
                    // 0 on the new vertices of the other edges (which lie strictly inside them: A is
                    // strictly inside the plane, B strictly outside).
                    polygon[k].attributes[0] = p == 0 ? 0.25f : p == 1 ? -1.75f : 3.0f;
                    polygon[k].attributes[1] = p >= 2 ? 1.0f : 0.0f;
                    polygon[k].attributes[2] = (float)p * 0.1f;
                }
                int count = sr_raster_clip_polygon(polygon, 3, 1u << plane, 4, &viewport);
                int found = 0;
                for (int k = 0; k < count; k++)
                    if (polygon[k].corner < 0 && polygon[k].attributes[1] == 0.0f) {
                        made[side] = polygon[k];
                        found++;
                    }
                cr_assert_eq(found, 1, "plane %d trial %d: %d new vertices on the shared edge", plane, trial, found);
            }
            cr_assert(memcmp(made[0].clip, made[1].clip, sizeof made[0].clip) == 0 &&
                          memcmp(made[0].attributes, made[1].attributes, 4 * sizeof(float)) == 0,
                      "plane %d trial %d: the edge is cut at (%a %a %a %a) in one triangle, (%a %a %a %a) in the other",
                      plane, trial, made[0].clip[0], made[0].clip[1], made[0].clip[2], made[0].clip[3], made[1].clip[0],
                      made[1].clip[1], made[1].clip[2], made[1].clip[3]);
            compared++;
        }
    }
    cr_assert_gt(compared, 500, "only %d edges compared", compared);
}

/* Regression (found by shared_edges_cut_by_the_near_and_far_planes_stay_watertight): a triangle with
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
                cr_assert_eq(drawn, expected, "pixel (%d, %d) drawn %d times, the reference covers it %d times", px, py,
                             drawn, expected);
            inside += expected == 1;
        }
    cr_assert_gt(inside, 20);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* ------------------------------------------------------------------------------------------ */
/* Lines                                                                                       */

enum { LINE_OFF = 0, LINE_ON = 1, LINE_EITHER = 2 };

/* The pixels of a segment between window positions a and b (pixels, y down) by raster.h's rule:
 * along the major axis every column (row) containing a point of the segment, both ends included;
 * in each, the pixel containing the segment's point at the column's (row's) centre, clamped to the
 * segment. Where an end or that point is within `slack` pixels of a pixel border, either pixel is
 * accepted (LINE_EITHER). */
static void reference_line_pixels(const double a[2], const double b[2], int width, int height, double slack,
                                  uint8_t *expected)
{
    memset(expected, LINE_OFF, (size_t)width * (size_t)height);
    bool x_major = fabs(b[0] - a[0]) >= fabs(b[1] - a[1]);
    int major = x_major ? 0 : 1, minor = 1 - major;
    const double *from = a[major] <= b[major] ? a : b, *to = a[major] <= b[major] ? b : a;
    int major_size = x_major ? width : height, minor_size = x_major ? height : width;
    int first = (int)floor(from[major] - slack), last = (int)floor(to[major] + slack);
    for (int cell = first < 0 ? 0 : first; cell <= last && cell < major_size; cell++) {
        bool end_cell = cell < (int)floor(from[major] + slack) || cell > (int)floor(to[major] - slack);
        double at = fmin(fmax(cell + 0.5, from[major]), to[major]);
        double s = to[major] > from[major] ? (at - from[major]) / (to[major] - from[major]) : 0.0;
        double value = from[minor] + s * (to[minor] - from[minor]);
        int low = (int)floor(value - slack), high = (int)floor(value + slack);
        for (int m = low; m <= high; m++) {
            if (m < 0 || m >= minor_size)
                continue;
            int x = x_major ? cell : m, y = x_major ? m : cell;
            expected[y * width + x] = end_cell || low != high ? LINE_EITHER : LINE_ON;
        }
    }
}

/* A view-space point's window position through an ideal pinhole camera (DESIGN.md), in double. */
static void window_of(const double p[3], double f, int width, int height, double out[2])
{
    out[0] = (f * p[0] / -p[2] + 1.0) * 0.5 * width;
    out[1] = (1.0 - f * p[1] / -p[2]) * 0.5 * height;
}

/* Segments whose crossings of the near plane (near = 1, 90 degree field of view) and of the far plane
 * (far = 5) are in the picture, and whose hidden parts (between the eye and the near plane, behind
 * the eye, beyond the far plane) would be in the picture too. The drawn pixels must be those of the
 * visible part, computed in double: the segment between its crossings of z_view = -near and
 * z_view = -far. */
Test(clip, lines_crossing_the_near_and_far_planes_on_screen)
{
    const int size = 64;
    const double near_z = 1.0, far_z = 5.0, f = 1.0; // f = 1 / tan(45 degrees)
    sr_mat4 projection = sr_mat4_perspective(SR_PI / 2, 1.0f, (float)near_z, (float)far_z);
    const struct {
        double a[3], b[3];
    } segments[] = {
        {{0.4, 0.3, -4.0}, {-0.25, -0.2, -0.5}}, // b between the eye and the near plane
        {{-2.5, 1.0, -4.0}, {1.5, -0.6, 1.0}},   // b behind the eye
        {{-1.5, 0.2, -3.0}, {4.0, -0.5, -9.0}},  // b beyond the far plane
        {{2.0, 0.5, 1.0}, {-12.0, -3.0, -12.0}}, // from behind the eye to beyond the far plane
        {{-0.2, 0.7, -0.3}, {0.1, -0.6, -2.5}},  // a between the eye and the near plane, y major
    };
    sr_framebuffer *fb = fb_new(size, size);
    sr_renderer *renderer = renderer_new();
    uint8_t expected[64 * 64];
    for (size_t s = 0; s < sizeof segments / sizeof segments[0]; s++) {
        const double *a = segments[s].a, *b = segments[s].b;
        // The visible part: parameters where -far <= z <= -near along a + u (b - a).
        double enter = 0.0, leave = 1.0;
        for (int side = 0; side < 2; side++) {
            double plane_z = side == 0 ? -near_z : -far_z;
            double u = (plane_z - a[2]) / (b[2] - a[2]);
            bool entering = side == 0 ? b[2] < a[2] : b[2] > a[2]; // moving into the slab at u
            if (u > 0.0 && u < 1.0) {
                if (entering)
                    enter = fmax(enter, u);
                else
                    leave = fmin(leave, u);
            }
        }
        double p[3], q[3], wp[2], wq[2];
        for (int k = 0; k < 3; k++) {
            p[k] = a[k] + enter * (b[k] - a[k]);
            q[k] = a[k] + leave * (b[k] - a[k]);
        }
        window_of(p, f, size, size, wp);
        window_of(q, f, size, size, wq);
        reference_line_pixels(wp, wq, size, size, 1e-3, expected);
        fb_clear(fb);
        sr_line_vertex v[2] = {{{(float)a[0], (float)a[1], (float)a[2]}, {1, 1, 1, 1}},
                               {{(float)b[0], (float)b[1], (float)b[2]}, {1, 1, 1, 1}}};
        sr_error err;
        sr_line_desc desc = {.vertices = v, .vertex_count = 2, .view_projection = projection};
        cr_assert_eq(sr_draw_lines(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
        int on = 0;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                bool drawn = fb->color[y * size + x] != 0;
                uint8_t e = expected[y * size + x];
                on += e == LINE_ON;
                if (e != LINE_EITHER)
                    cr_assert_eq(drawn, e == LINE_ON,
                                 "segment %zu: pixel (%d, %d) drawn %d; the visible part runs from (%.3f, %.3f) to "
                                 "(%.3f, %.3f)",
                                 s, x, y, (int)drawn, wp[0], wp[1], wq[0], wq[1]);
            }
        cr_assert_gt(on, 8, "segment %zu: only %d pixels", s, on);
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}
