/* tests/test_raster.c — the triangle and line pipeline (src/raster/pipeline.c, clip.c,
 * triangle.c, line.c), checked against independent computations: brute-force pixel-centre tests
 * with the fill rule written differently, ray casts through pixel centres in double precision,
 * analytic plane intersections and hand-computed blending. Framebuffers are built by hand so
 * that these tests do not depend on framebuffer.c. */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"
#include "raster_reference.h"

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                     */

static sr_framebuffer *fb_new(int width, int height, bool ids)
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
    if (ids) {
        fb->ids = malloc(count * sizeof *fb->ids);
        cr_assert(fb->ids);
        for (size_t i = 0; i < count; i++)
            fb->ids[i] = SR_NO_ID;
    }
    return fb;
}

static void fb_fill(sr_framebuffer *fb, uint32_t color, float depth)
{
    size_t count = (size_t)fb->width * (size_t)fb->height;
    for (size_t i = 0; i < count; i++) {
        fb->color[i] = color;
        fb->depth[i] = depth;
        if (fb->ids)
            fb->ids[i] = SR_NO_ID;
    }
}

static void fb_delete(sr_framebuffer *fb)
{
    free(fb->color);
    free(fb->depth);
    free(fb->ids);
    free(fb);
}

static int red_at(const sr_framebuffer *fb, int x, int y)
{
    return (int)(fb->color[y * fb->width + x] & 0xffu);
}

static sr_renderer *renderer_new(void)
{
    sr_renderer *renderer = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(NULL, &renderer, &err), SR_OK, "%s", err.message);
    return renderer;
}

/* Per-pixel record written by the capturing fragment function. */
enum { CAP_VARYINGS = 0, CAP_BARY = 4, CAP_DEPTH = 7, CAP_FRONT = 8, CAP_ID = 9, CAP_CALLS = 10, CAP_SIZE = 11 };

typedef struct test_vertex {
    float position[4];   ///< clip position (use_matrix false) or world xyz (use_matrix true)
    float attributes[4]; ///< copied to the varyings
} test_vertex;

typedef struct test_uniforms {
    bool use_matrix;
    sr_mat4 matrix;
    int varying_count;
    bool world_varyings; ///< varyings 0..2 = world position
    float color[4];
    float *capture; ///< CAP_SIZE floats per pixel, or NULL
    int capture_width;
    int *vertex_calls;
    float discard_below_x; ///< discard fragments whose x is smaller
    float written_depth;   ///< depth written by depth_fragment
} test_uniforms;

static void test_vertex_fn(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const test_vertex *v = vertex;
    const test_uniforms *u = uniforms;
    if (u->use_matrix) {
        sr_vec4 c = sr_mat4_mul_vec4(u->matrix, (sr_vec4){v->position[0], v->position[1], v->position[2], 1.0f});
        clip[0] = c.x;
        clip[1] = c.y;
        clip[2] = c.z;
        clip[3] = c.w;
    } else {
        memcpy(clip, v->position, 4 * sizeof(float));
    }
    for (int i = 0; i < u->varying_count; i++)
        varyings[i] = u->world_varyings ? v->position[i] : v->attributes[i];
    if (u->vertex_calls)
        (*u->vertex_calls)++;
}

static bool test_fragment_fn(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const test_uniforms *u = uniforms;
    if (in->x < u->discard_below_x)
        return false;
    memcpy(out->color, u->color, sizeof out->color);
    if (u->capture) {
        float *c = u->capture + ((size_t)in->y * (size_t)u->capture_width + (size_t)in->x) * CAP_SIZE;
        for (int i = 0; i < u->varying_count && i < 4; i++)
            c[CAP_VARYINGS + i] = in->varyings[i];
        if (in->barycentric)
            for (int i = 0; i < 3; i++)
                c[CAP_BARY + i] = in->barycentric[i];
        c[CAP_DEPTH] = in->depth;
        c[CAP_FRONT] = in->front_facing ? 1.0f : 0.0f;
        c[CAP_ID] = (float)in->primitive_id;
        c[CAP_CALLS] += 1.0f;
    }
    return true;
}

static bool depth_fragment_fn(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const test_uniforms *u = uniforms;
    bool keep = test_fragment_fn(in, uniforms, out);
    out->depth = u->written_depth;
    return keep;
}

static sr_program program_for(const test_uniforms *u)
{
    return (sr_program){.name = "test",
                        .vertex = test_vertex_fn,
                        .fragment = test_fragment_fn,
                        .varying_count = u->varying_count,
                        .uniforms = u,
                        .vertex_size = sizeof(test_vertex)};
}

/* Uniforms of the coverage counter: every fragment adds 1/255 to red (additive blend, depth
 * ALWAYS, no depth writes), so red = number of times the pixel was drawn. */
static test_uniforms counter_uniforms(void)
{
    return (test_uniforms){.color = {1.0f / 255.0f, 0.0f, 0.0f, 1.0f}};
}

static const sr_render_state counter_state = {
    .cull = SR_CULL_NONE, .depth_func = SR_DEPTH_ALWAYS, .no_depth_write = true, .blend = SR_BLEND_ADDITIVE};

static sr_status draw(sr_renderer *renderer, sr_framebuffer *fb, const test_vertex *vertices, size_t vertex_count,
                      const uint32_t *indices, size_t index_count, const sr_program *program, sr_render_state state,
                      uint32_t primitive_id_base)
{
    sr_error err;
    sr_draw_desc desc = {
        .vertices = vertices,
        .vertex_count = vertex_count,
        .vertex_stride = sizeof(test_vertex),
        .indices = indices,
        .index_count = index_count,
        .program = program,
        .state = state,
        .primitive_id_base = primitive_id_base,
    };
    sr_status status = sr_draw_triangles(renderer, fb, &desc, &err);
    cr_assert_eq(status, SR_OK, "%s", err.message);
    return status;
}

/* A vertex at window position (x, y) (pixels, y down) with w = 1. */
static test_vertex window_vertex(double x, double y, double z, int width, int height)
{
    test_vertex v = {{(float)(2.0 * x / width - 1.0), (float)(1.0 - 2.0 * y / height), (float)z, 1.0f}, {0}};
    return v;
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

/* Draws one triangle given in fixed point with the counter and compares every pixel with the
 * reference. */
static void check_against_reference(sr_renderer *renderer, sr_framebuffer *fb, const int64_t x[3], const int64_t y[3])
{
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    test_vertex v[3];
    for (int k = 0; k < 3; k++)
        v[k] = window_vertex((double)x[k] / 256.0, (double)y[k] / 256.0, 0.5, fb->width, fb->height);
    fb_fill(fb, 0, 1.0f);
    draw(renderer, fb, v, 3, NULL, 3, &program, counter_state, 0);
    for (int py = 0; py < fb->height; py++)
        for (int px = 0; px < fb->width; px++) {
            int expected = reference_fixed_covers(x, y, px, py) ? 1 : 0;
            cr_assert_eq(red_at(fb, px, py), expected,
                         "pixel (%d, %d): drawn %d times, expected %d; triangle (%lld %lld) (%lld %lld) (%lld %lld) "
                         "in 1/256 px",
                         px, py, red_at(fb, px, py), expected, (long long)x[0], (long long)y[0], (long long)x[1],
                         (long long)y[1], (long long)x[2], (long long)y[2]);
        }
}

/* ------------------------------------------------------------------------------------------ */
/* Fill rule and watertightness                                                                */

/* A square of side `side` pixels centred at (cx, cy), rotated by `angle`, cut into an n x n grid
 * whose interior points are jittered (boundary points slide along the boundary), each cell split
 * along a random diagonal with a random winding. Drawn with the counter: every pixel must be
 * drawn at most once, and exactly once where its centre is inside the square (pixels within
 * 0.01 px of the outline are not compared: vertex snapping moves edges by up to 1/362 px). */
static void check_jittered_square(double cx, double cy, double side, double angle, int n, double jitter, uint64_t seed)
{
    const int size = 96;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    uint64_t rng = seed;
    int points = (n + 1) * (n + 1);
    test_vertex *vertices = calloc((size_t)points, sizeof *vertices);
    uint32_t *indices = calloc((size_t)n * (size_t)n * 6, sizeof *indices);
    double c = cos(angle), s = sin(angle);
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++) {
            double u = (double)i / n, v = (double)j / n;
            if (i > 0 && i < n)
                u += (rng_uniform(&rng) * 2.0 - 1.0) * jitter / n;
            if (j > 0 && j < n)
                v += (rng_uniform(&rng) * 2.0 - 1.0) * jitter / n;
            double lx = (u - 0.5) * side, ly = (v - 0.5) * side;
            vertices[j * (n + 1) + i] = window_vertex(cx + c * lx - s * ly, cy + s * lx + c * ly, 0.5, size, size);
        }
    size_t count = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            uint32_t a = (uint32_t)(j * (n + 1) + i), b = a + 1, d = a + (uint32_t)(n + 1), e = d + 1;
            uint32_t tri[2][3];
            if (rng_next(&rng) & 1) {
                memcpy(tri[0], (uint32_t[3]){a, b, e}, sizeof tri[0]);
                memcpy(tri[1], (uint32_t[3]){a, e, d}, sizeof tri[1]);
            } else {
                memcpy(tri[0], (uint32_t[3]){a, b, d}, sizeof tri[0]);
                memcpy(tri[1], (uint32_t[3]){b, e, d}, sizeof tri[1]);
            }
            for (int t = 0; t < 2; t++) {
                bool flip = rng_next(&rng) & 1;
                indices[count++] = tri[t][0];
                indices[count++] = tri[t][flip ? 2 : 1];
                indices[count++] = tri[t][flip ? 1 : 2];
            }
        }
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    draw(renderer, fb, vertices, (size_t)points, indices, count, &program, counter_state, 0);
    int compared = 0;
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            int drawn = red_at(fb, px, py);
            cr_assert_leq(drawn, 1, "pixel (%d, %d) drawn %d times (angle %g, centre %g %g)", px, py, drawn, angle, cx,
                          cy);
            double dx = px + 0.5 - cx, dy = py + 0.5 - cy;
            double lx = c * dx + s * dy, ly = -s * dx + c * dy;
            double distance = side / 2 - fmax(fabs(lx), fabs(ly)); // > 0 inside
            if (fabs(distance) < 0.01)
                continue;
            compared++;
            cr_assert_eq(drawn, distance > 0 ? 1 : 0, "pixel (%d, %d) drawn %d times, inside %d (angle %g)", px, py,
                         drawn, distance > 0, angle);
        }
    cr_assert_gt(compared, size * size / 2);
    free(vertices);
    free(indices);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, watertight_jittered_grids)
{
    const double angles[] = {0.0, 0.3, 1.0, 2.2, 3.9};
    const double offsets[][2] = {{48.0, 48.0}, {48.25, 47.75}, {48.5, 48.5}, {47.37, 48.11}};
    uint64_t seed = 12345;
    for (size_t a = 0; a < sizeof angles / sizeof angles[0]; a++)
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++)
            check_jittered_square(offsets[o][0], offsets[o][1], 64.0, angles[a], 13, 0.2, seed++);
}

Test(raster, watertight_regular_grid_on_pixel_centres)
{
    // Cells of 4 px with every grid line through pixel centres: all edges, shared diagonals
    // included, pass exactly through rows and columns of centres.
    check_jittered_square(48.5, 48.5, 64.0, 0.0, 16, 0.0, 7);
    check_jittered_square(48.0, 48.0, 64.0, 0.0, 16, 0.0, 8);
    check_jittered_square(48.5, 48.5, 64.0, SR_PI / 2, 16, 0.0, 9);
}

/* UV sphere with shared vertices (single pole vertices, seam vertices shared through indices),
 * triangles counter-clockwise seen from outside. */
static size_t make_sphere(double cx, double cy, double cz, double radius, int slices, int stacks,
                          test_vertex **vertices_out, uint32_t **indices_out, size_t *vertex_count)
{
    size_t count = 2 + (size_t)slices * (size_t)(stacks - 1);
    test_vertex *vertices = calloc(count, sizeof *vertices);
    uint32_t *indices = calloc((size_t)slices * (size_t)stacks * 6, sizeof *indices);
    for (int j = 1; j < stacks; j++)
        for (int i = 0; i < slices; i++) {
            double theta = SR_PI * j / stacks, phi = 2.0 * SR_PI * i / slices;
            test_vertex *v = &vertices[1 + (size_t)(j - 1) * (size_t)slices + (size_t)i];
            v->position[0] = (float)(cx + radius * sin(theta) * cos(phi));
            v->position[1] = (float)(cy + radius * cos(theta));
            v->position[2] = (float)(cz - radius * sin(theta) * sin(phi));
        }
    vertices[0].position[0] = (float)cx;
    vertices[0].position[1] = (float)(cy + radius);
    vertices[0].position[2] = (float)cz;
    vertices[count - 1].position[0] = (float)cx;
    vertices[count - 1].position[1] = (float)(cy - radius);
    vertices[count - 1].position[2] = (float)cz;
#define RING(j, i) ((uint32_t)(1 + ((j)-1) * slices + ((i) % slices)))
    size_t n = 0;
    for (int i = 0; i < slices; i++) {
        uint32_t top[3] = {0, RING(1, i), RING(1, i + 1)};
        uint32_t bottom[3] = {(uint32_t)(count - 1), RING(stacks - 1, i + 1), RING(stacks - 1, i)};
        memcpy(indices + n, top, sizeof top);
        n += 3;
        memcpy(indices + n, bottom, sizeof bottom);
        n += 3;
        for (int j = 1; j + 1 < stacks; j++) {
            uint32_t quad[6] = {RING(j, i), RING(j + 1, i),     RING(j + 1, i + 1),
                                RING(j, i), RING(j + 1, i + 1), RING(j, i + 1)};
            memcpy(indices + n, quad, sizeof quad);
            n += 6;
        }
    }
#undef RING
    *vertices_out = vertices;
    *indices_out = indices;
    *vertex_count = count;
    return n;
}

static double segment_distance(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, length2 = dx * dx + dy * dy;
    double t = length2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / length2 : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(px - (ax + t * dx), py - (ay + t * dy));
}

Test(raster, watertight_tessellated_sphere)
{
    const int size = 96;
    const double fov = 60.0 * SR_PI / 180.0;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex *vertices;
    uint32_t *indices;
    size_t vertex_count;
    size_t index_count = make_sphere(0.13, -0.07, -3.5, 1.0, 23, 13, &vertices, &indices, &vertex_count);
    // Independent projection in double: camera at the origin looking down -Z.
    double *wx = calloc(vertex_count, sizeof *wx), *wy = calloc(vertex_count, sizeof *wy);
    double f = 1.0 / tan(fov / 2);
    for (size_t i = 0; i < vertex_count; i++) {
        double x = vertices[i].position[0], y = vertices[i].position[1], z = vertices[i].position[2];
        double nx = f * x / -z, ny = f * y / -z;
        wx[i] = (nx + 1) / 2 * size;
        wy[i] = (1 - ny) / 2 * size;
    }
    const sr_cull_mode modes[3] = {SR_CULL_NONE, SR_CULL_BACK, SR_CULL_FRONT};
    for (int m = 0; m < 3; m++) {
        test_uniforms u = counter_uniforms();
        u.use_matrix = true;
        u.matrix = sr_mat4_perspective((float)fov, 1.0f, 0.1f, 100.0f);
        sr_program program = program_for(&u);
        sr_render_state state = counter_state;
        state.cull = modes[m];
        fb_fill(fb, 0, 1.0f);
        draw(renderer, fb, vertices, vertex_count, indices, index_count, &program, state, 0);
        int inside = 0;
        for (int py = 0; py < size; py++)
            for (int px = 0; px < size; px++) {
                double cx = px + 0.5, cy = py + 0.5, nearest = 1e9;
                int expected = 0;
                for (size_t t = 0; t < index_count; t += 3) {
                    const uint32_t *k = &indices[t];
                    double area =
                        (wx[k[1]] - wx[k[0]]) * (wy[k[2]] - wy[k[0]]) - (wy[k[1]] - wy[k[0]]) * (wx[k[2]] - wx[k[0]]);
                    bool front = area < 0; // y down: counter-clockwise in NDC has negative area here
                    for (int e = 0; e < 3; e++)
                        nearest = fmin(nearest, segment_distance(cx, cy, wx[k[e]], wy[k[e]], wx[k[(e + 1) % 3]],
                                                                 wy[k[(e + 1) % 3]]));
                    if ((modes[m] == SR_CULL_BACK && !front) || (modes[m] == SR_CULL_FRONT && front))
                        continue;
                    int signs = 0;
                    for (int e = 0; e < 3; e++) {
                        int a = (int)k[e], b = (int)k[(e + 1) % 3];
                        double side = (wx[b] - wx[a]) * (cy - wy[a]) - (wy[b] - wy[a]) * (cx - wx[a]);
                        signs += side > 0 ? 1 : -1;
                    }
                    expected += signs == 3 || signs == -3;
                }
                if (nearest < 0.01)
                    continue;
                inside += expected > 0;
                cr_assert_eq(red_at(fb, px, py), expected, "cull mode %d, pixel (%d, %d): drawn %d, expected %d",
                             (int)modes[m], px, py, red_at(fb, px, py), expected);
            }
        cr_assert_gt(inside, 1000);
        sr_raster_stats stats = sr_renderer_stats(renderer);
        cr_assert_eq(stats.triangles_in, (m + 1) * index_count / 3);
    }
    free(wx);
    free(wy);
    free(vertices);
    free(indices);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, top_left_rule_square_and_shared_diagonal)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, true);
    sr_renderer *renderer = renderer_new();
    // A square whose four sides pass exactly through pixel centres: rows 2..5 and columns 2..5
    // are inside (top and left sides included, bottom and right excluded), each exactly once,
    // for both diagonals and both windings.
    test_vertex corner[4] = {window_vertex(2.5, 2.5, 0.5, size, size), window_vertex(6.5, 2.5, 0.5, size, size),
                             window_vertex(6.5, 6.5, 0.5, size, size), window_vertex(2.5, 6.5, 0.5, size, size)};
    const uint32_t splits[4][6] = {{0, 1, 2, 0, 2, 3}, {0, 2, 1, 0, 3, 2}, {0, 1, 3, 1, 2, 3}, {1, 0, 3, 3, 2, 1}};
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    for (int s = 0; s < 4; s++) {
        fb_fill(fb, 0, 1.0f);
        draw(renderer, fb, corner, 4, splits[s], 6, &program, counter_state, 0);
        for (int py = 0; py < size; py++)
            for (int px = 0; px < size; px++) {
                int expected = px >= 2 && px <= 5 && py >= 2 && py <= 5;
                cr_assert_eq(red_at(fb, px, py), expected, "split %d pixel (%d, %d)", s, px, py);
            }
    }
    // Two triangles sharing the diagonal from (10.5, 2.5) to (2.5, 10.5), which passes through
    // pixel centres: it is a right edge of the upper-left triangle and a left edge of the lower-
    // right one, so the centres on it belong to the lower-right triangle (id 1).
    test_vertex quad[4] = {window_vertex(2.5, 2.5, 0.5, size, size), window_vertex(10.5, 2.5, 0.5, size, size),
                           window_vertex(10.5, 10.5, 0.5, size, size), window_vertex(2.5, 10.5, 0.5, size, size)};
    const uint32_t shared[6] = {0, 1, 3, 1, 2, 3};
    fb_fill(fb, 0, 1.0f);
    draw(renderer, fb, quad, 4, shared, 6, &program, counter_state, 0);
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            bool inside = px >= 2 && px <= 9 && py >= 2 && py <= 9;
            cr_assert_eq(red_at(fb, px, py), inside ? 1 : 0, "pixel (%d, %d)", px, py);
            if (inside && px + py == 12) // centre on the diagonal: x + y + 1 = 13
                cr_assert_eq(fb->ids[py * size + px], 1u, "diagonal pixel (%d, %d) has id %u", px, py,
                             fb->ids[py * size + px]);
            else if (inside)
                cr_assert_eq(fb->ids[py * size + px], px + py < 12 ? 0u : 1u, "pixel (%d, %d)", px, py);
        }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, top_left_rule_hand_made_edges)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    // Coordinates in 1/256 px; 128 + 256 k is a pixel centre.
    const int64_t cases[][6] = {
        {2 * 256 + 128, 3 * 256 + 128, 10 * 256 + 128, 3 * 256 + 128, 6 * 256 + 128, 9 * 256 + 128},    // top edge
        {2 * 256 + 128, 9 * 256 + 128, 6 * 256 + 128, 3 * 256 + 128, 10 * 256 + 128, 9 * 256 + 128},    // bottom edge
        {3 * 256 + 128, 2 * 256 + 128, 3 * 256 + 128, 12 * 256 + 128, 9 * 256 + 128, 7 * 256 + 128},    // left edge
        {9 * 256 + 128, 2 * 256 + 128, 9 * 256 + 128, 12 * 256 + 128, 3 * 256 + 128, 7 * 256 + 128},    // right edge
        {3 * 256 + 128, 3 * 256 + 128, 11 * 256 + 128, 3 * 256 + 128, 3 * 256 + 128, 11 * 256 + 128},   // top+left
        {11 * 256 + 128, 3 * 256 + 128, 11 * 256 + 128, 11 * 256 + 128, 3 * 256 + 128, 11 * 256 + 128}, // b+r
        {100, 100, 15 * 256 + 50, 700, 900, 14 * 256 + 3},                                              // generic
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int winding = 0; winding < 2; winding++) {
            int64_t x[3] = {cases[c][0], cases[c][2], cases[c][4]}, y[3] = {cases[c][1], cases[c][3], cases[c][5]};
            if (winding) {
                int64_t t = x[1];
                x[1] = x[2];
                x[2] = t;
                t = y[1];
                y[1] = y[2];
                y[2] = t;
            }
            check_against_reference(renderer, fb, x, y);
        }
    // Spot checks written out by hand for the first cases: the top edge row 3 is drawn, the
    // bottom edge row 9 of the second triangle is not, the left column 3 is, the right column 9
    // is not.
    int64_t top_x[3] = {cases[0][0], cases[0][2], cases[0][4]}, top_y[3] = {cases[0][1], cases[0][3], cases[0][5]};
    cr_assert(reference_fixed_covers(top_x, top_y, 6, 3) && reference_fixed_covers(top_x, top_y, 3, 3));
    cr_assert(!reference_fixed_covers(top_x, top_y, 10, 3));
    int64_t bottom_x[3] = {cases[1][0], cases[1][2], cases[1][4]};
    int64_t bottom_y[3] = {cases[1][1], cases[1][3], cases[1][5]};
    cr_assert(!reference_fixed_covers(bottom_x, bottom_y, 6, 9) && reference_fixed_covers(bottom_x, bottom_y, 6, 8));
    int64_t left_x[3] = {cases[2][0], cases[2][2], cases[2][4]}, left_y[3] = {cases[2][1], cases[2][3], cases[2][5]};
    cr_assert(reference_fixed_covers(left_x, left_y, 3, 7));
    int64_t right_x[3] = {cases[3][0], cases[3][2], cases[3][4]};
    int64_t right_y[3] = {cases[3][1], cases[3][3], cases[3][5]};
    cr_assert(!reference_fixed_covers(right_x, right_y, 9, 7) && reference_fixed_covers(right_x, right_y, 8, 7));
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, thin_and_subpixel_triangles_match_brute_force)
{
    const int size = 24;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    uint64_t rng = 99;
    for (int i = 0; i < 1500; i++) {
        int64_t x[3], y[3];
        int kind = i % 5;
        int64_t base_x = (int64_t)(rng_next(&rng) % (uint64_t)(size * 256)),
                base_y = (int64_t)(rng_next(&rng) % (uint64_t)(size * 256));
        for (int k = 0; k < 3; k++) {
            int64_t spread = kind == 0 ? 3 * 256 : kind == 1 ? 300 : size * 256;
            x[k] = base_x + (int64_t)(rng_next(&rng) % (uint64_t)(2 * spread)) - spread;
            y[k] = base_y + (int64_t)(rng_next(&rng) % (uint64_t)(2 * spread)) - spread;
            if (kind == 3) { // vertices on pixel centres: edges through many centres
                x[k] = (x[k] & ~255) + 128;
                y[k] = (y[k] & ~255) + 128;
            }
        }
        if (kind == 4) { // slivers: the third vertex is one 1/256 step off the line of the others
            int64_t t = (int64_t)(rng_next(&rng) % 256);
            x[2] = x[0] + (x[1] - x[0]) * t / 256 + (int64_t)(rng_next(&rng) % 3) - 1;
            y[2] = y[0] + (y[1] - y[0]) * t / 256 + (int64_t)(rng_next(&rng) % 3) - 1;
        }
        check_against_reference(renderer, fb, x, y);
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* Triangles of a pixel or less, most of whose bounds fit in one 4x2 block (setup decides their
 * coverage before the fill), with a vertex on a pixel centre or an edge through one: centres
 * exactly on an edge, covered or not by the top-left rule, are the cases a one-off error misses. */
Test(raster, tiny_triangles_touching_pixel_centres_match_brute_force)
{
    const int size = 8;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    uint64_t rng = 7;
    for (int i = 0; i < 3000; i++) {
        // A pixel centre away from the border, and offsets of up to 1.5 px around it.
        int64_t cx = (int64_t)(1 + rng_next(&rng) % (uint64_t)(size - 2)) * 256 + 128;
        int64_t cy = (int64_t)(1 + rng_next(&rng) % (uint64_t)(size - 2)) * 256 + 128;
        int64_t x[3], y[3];
        for (int k = 0; k < 3; k++) {
            x[k] = cx + (int64_t)(rng_next(&rng) % 769) - 384;
            y[k] = cy + (int64_t)(rng_next(&rng) % 769) - 384;
        }
        switch (i % 4) {
        case 0: // a vertex on the centre
            x[0] = cx, y[0] = cy;
            break;
        case 1: // an edge through the centre
            x[1] = 2 * cx - x[0], y[1] = 2 * cy - y[0];
            break;
        case 2: // a horizontal or vertical edge through the centre
            if (rng_next(&rng) & 1)
                y[0] = y[1] = cy;
            else
                x[0] = x[1] = cx;
            break;
        default: // anywhere around it
            break;
        }
        check_against_reference(renderer, fb, x, y);
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, degenerate_triangles_draw_nothing)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[9] = {// collinear through pixel centres
                        window_vertex(1.5, 1.5, 0.5, size, size), window_vertex(7.5, 7.5, 0.5, size, size),
                        window_vertex(13.5, 13.5, 0.5, size, size),
                        // repeated vertex
                        window_vertex(2.0, 9.0, 0.5, size, size), window_vertex(2.0, 9.0, 0.5, size, size),
                        window_vertex(12.0, 14.0, 0.5, size, size),
                        // one point three times
                        window_vertex(5.5, 5.5, 0.5, size, size), window_vertex(5.5, 5.5, 0.5, size, size),
                        window_vertex(5.5, 5.5, 0.5, size, size)};
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    draw(renderer, fb, v, 9, NULL, 9, &program, counter_state, 0);
    for (int i = 0; i < size * size; i++)
        cr_assert_eq(fb->color[i], 0u, "pixel %d written", i);
    sr_raster_stats stats = sr_renderer_stats(renderer);
    cr_assert_eq(stats.triangles_in, 3);
    cr_assert_eq(stats.triangles_culled, 3);
    cr_assert_eq(stats.fragments_shaded, 0);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* ------------------------------------------------------------------------------------------ */
/* Clipping, perspective, depth                                                                */

typedef struct camera {
    double tan_half_fov, aspect, near_z, far_z;
    int width, height;
} camera;

/* Direction of the ray from the eye (origin, looking down -Z) through the centre of pixel
 * (px, py), offset by (ox, oy) pixels: computed from the camera's definition, not its matrix. */
static void pixel_ray(const camera *cam, double px, double py, double direction[3])
{
    double nx = (px + 0.5) / cam->width * 2 - 1, ny = 1 - (py + 0.5) / cam->height * 2;
    direction[0] = nx * cam->tan_half_fov * cam->aspect;
    direction[1] = ny * cam->tan_half_fov;
    direction[2] = -1.0;
}

/* Möller–Trumbore in double: hit distance along `direction` (as a multiple of it) and the
 * barycentric weights of the three corners; false when the ray misses. */
static bool ray_triangle(const double direction[3], const float p0[3], const float p1[3], const float p2[3],
                         double *t_out, double weights[3])
{
    double e1[3], e2[3], pv[3], tv[3], qv[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)p1[k] - p0[k];
        e2[k] = (double)p2[k] - p0[k];
        tv[k] = -(double)p0[k];
    }
    pv[0] = direction[1] * e2[2] - direction[2] * e2[1];
    pv[1] = direction[2] * e2[0] - direction[0] * e2[2];
    pv[2] = direction[0] * e2[1] - direction[1] * e2[0];
    double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (fabs(det) < 1e-15)
        return false;
    double inv = 1.0 / det;
    double u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) * inv;
    qv[0] = tv[1] * e1[2] - tv[2] * e1[1];
    qv[1] = tv[2] * e1[0] - tv[0] * e1[2];
    qv[2] = tv[0] * e1[1] - tv[1] * e1[0];
    double v = (direction[0] * qv[0] + direction[1] * qv[1] + direction[2] * qv[2]) * inv;
    double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) * inv;
    weights[0] = 1 - u - v;
    weights[1] = u;
    weights[2] = v;
    *t_out = t;
    return u >= 0 && v >= 0 && u + v <= 1 && t > 0;
}

/* Is the pixel's ray hitting the visible part of the triangle (between the near and far planes;
 * direction has z = -1 so t is the view depth)? Undecided (returns -1) when nudging the sample by
 * 0.01 px changes the answer: the centre is too close to the outline to compare. */
static int visible_hit(const camera *cam, int px, int py, const float *p[3], double *t, double weights[3])
{
    const double nudges[5][2] = {{0, 0}, {0.01, 0}, {-0.01, 0}, {0, 0.01}, {0, -0.01}};
    int result = -1;
    for (int n = 0; n < 5; n++) {
        double direction[3], tn = 0.0, w[3] = {0.0, 0.0, 0.0};
        pixel_ray(cam, px + nudges[n][0], py + nudges[n][1], direction);
        bool hit = ray_triangle(direction, p[0], p[1], p[2], &tn, w) && tn >= cam->near_z && tn <= cam->far_z;
        if (n == 0) {
            result = hit;
            *t = tn;
            memcpy(weights, w, sizeof w);
        } else if (hit != (result == 1)) {
            return -1;
        }
    }
    return result;
}

static void check_clipped_triangle(const float positions[3][3], bool barycentrics)
{
    const int size = 64;
    camera cam = {tan(35.0 * SR_PI / 180.0), 1.0, 0.1, 50.0, size, size};
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    float *capture = calloc((size_t)size * size * CAP_SIZE, sizeof *capture);
    test_vertex v[3];
    for (int k = 0; k < 3; k++)
        memcpy(v[k].position, positions[k], 3 * sizeof(float));
    test_uniforms u = {.use_matrix = true,
                       .matrix = sr_mat4_perspective((float)(70.0 * SR_PI / 180.0), 1.0f, 0.1f, 50.0f),
                       .varying_count = 3,
                       .world_varyings = true,
                       .color = {1, 1, 1, 1},
                       .capture = capture,
                       .capture_width = size};
    sr_program program = program_for(&u);
    program.uses_barycentrics = barycentrics;
    draw(renderer, fb, v, 3, NULL, 3, &program, (sr_render_state){0}, 0);
    const float *p[3] = {positions[0], positions[1], positions[2]};
    int covered = 0, compared = 0;
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            double t = 0.0, w[3] = {0.0, 0.0, 0.0};
            int expected = visible_hit(&cam, px, py, p, &t, w);
            const float *c = capture + ((size_t)py * size + (size_t)px) * CAP_SIZE;
            int drawn = (int)c[CAP_CALLS];
            cr_assert_leq(drawn, 1, "pixel (%d, %d) shaded %d times", px, py, drawn);
            if (expected < 0)
                continue;
            compared++;
            cr_assert_eq(drawn, expected, "pixel (%d, %d): drawn %d, ray hit %d", px, py, drawn, expected);
            if (!expected)
                continue;
            covered++;
            double direction[3];
            pixel_ray(&cam, px, py, direction);
            for (int k = 0; k < 3; k++) {
                double hit = direction[k] * t;
                cr_assert(fabs(c[CAP_VARYINGS + k] - hit) <= 1e-3 * fmax(1.0, t),
                          "pixel (%d, %d): world %c interpolated %g, ray hit %g", px, py, "xyz"[k], c[CAP_VARYINGS + k],
                          hit);
            }
            if (barycentrics) {
                double sum = (double)c[CAP_BARY] + c[CAP_BARY + 1] + c[CAP_BARY + 2];
                cr_assert(fabs(sum - 1.0) < 1e-5, "barycentrics sum to %g", sum);
                for (int k = 0; k < 3; k++)
                    cr_assert(fabs(c[CAP_BARY + k] - w[k]) < 1e-3, "pixel (%d, %d): weight %d is %g, analytic %g", px,
                              py, k, c[CAP_BARY + k], w[k]);
            }
        }
    cr_assert_gt(covered, 100, "only %d pixels covered", covered);
    cr_assert_gt(compared, size * size * 3 / 4);
    free(capture);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, clip_one_vertex_behind_camera)
{
    const float positions[3][3] = {{-2.0f, -1.0f, -3.0f}, {2.0f, -1.5f, -4.0f}, {0.5f, 1.0f, 2.0f}};
    check_clipped_triangle(positions, false);
    const float reversed[3][3] = {{0.5f, 1.0f, 2.0f}, {2.0f, -1.5f, -4.0f}, {-2.0f, -1.0f, -3.0f}};
    check_clipped_triangle(reversed, false);
}

Test(raster, clip_two_vertices_behind_camera)
{
    const float positions[3][3] = {{-1.0f, -1.0f, -3.0f}, {3.0f, 0.0f, 1.0f}, {-2.0f, 2.0f, 2.0f}};
    check_clipped_triangle(positions, false);
}

Test(raster, barycentrics_match_ray_hits_also_when_clipped)
{
    const float unclipped[3][3] = {{-1.5f, -1.0f, -3.0f}, {1.5f, -1.2f, -6.0f}, {0.2f, 1.4f, -2.0f}};
    check_clipped_triangle(unclipped, true);
    const float clipped[3][3] = {{-2.0f, -1.0f, -3.0f}, {2.0f, -1.5f, -4.0f}, {0.5f, 1.0f, 2.0f}};
    check_clipped_triangle(clipped, true);
}

Test(raster, huge_triangles_beyond_the_guard_band)
{
    const int size = 64;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    // One edge crosses the viewport along ndc y = 0.3 x + 0.1; the other two are ~1e6 away.
    test_vertex edge[3] = {{{-1e6f, -0.3e6f + 0.1f, 0.5f, 1.0f}, {0}},
                           {{1e6f, 0.3e6f + 0.1f, 0.5f, 1.0f}, {0}},
                           {{-1e6f, 1e6f, 0.5f, 1.0f}, {0}}};
    draw(renderer, fb, edge, 3, NULL, 3, &program, counter_state, 0);
    cr_assert_gt(sr_renderer_stats(renderer).triangles_clipped, 0);
    // The vertices as stored (floats near 1e6 are 1/32 apart), in double.
    double ax = edge[0].position[0], ay = edge[0].position[1], bx = edge[1].position[0], by = edge[1].position[1];
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            double nx = (px + 0.5) / size * 2 - 1, ny = 1 - (py + 0.5) / size * 2;
            // Vertical distance in pixels from the centre to the line through a and b.
            double above = (ny - (ay + (nx - ax) * (by - ay) / (bx - ax))) * size / 2;
            if (fabs(above) < 0.01)
                continue;
            cr_assert_eq(red_at(fb, px, py), above > 0 ? 1 : 0, "pixel (%d, %d), %g px from the edge", px, py, above);
        }
    // A quad of two such triangles sharing a diagonal through the viewport: every pixel once.
    test_vertex quad[4] = {{{-1e6f, -1e6f, 0.5f, 1.0f}, {0}},
                           {{1e6f, -1e6f, 0.5f, 1.0f}, {0}},
                           {{1e6f, 1e6f, 0.5f, 1.0f}, {0}},
                           {{-1e6f, 1e6f, 0.5f, 1.0f}, {0}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    fb_fill(fb, 0, 1.0f);
    draw(renderer, fb, quad, 4, indices, 6, &program, counter_state, 0);
    for (int i = 0; i < size * size; i++)
        cr_assert_eq(fb->color[i] & 0xffu, 1u, "pixel %d drawn %u times", i, fb->color[i] & 0xffu);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, camera_inside_a_box_sees_every_pixel_once)
{
    const int size = 64;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex corners[8];
    for (int i = 0; i < 8; i++) {
        corners[i] = (test_vertex){{(i & 1) ? 1.0f : -1.0f, (i & 2) ? 1.0f : -1.0f, (i & 4) ? 1.0f : -1.0f, 1.0f}, {0}};
    }
    const uint32_t faces[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    const sr_vec3 eyes[3] = {{0.1f, -0.2f, 0.15f}, {0.0f, 0.0f, 0.0f}, {-0.6f, 0.5f, 0.3f}};
    const sr_vec3 targets[5] = {
        {0.0f, 0.0f, -1.0f}, {1.0f, 1.0f, 1.0f}, {1.0f, 0.0f, 1.0f}, {-0.3f, 0.8f, 0.2f}, {0.2f, -1.0f, 0.1f}};
    for (int e = 0; e < 3; e++)
        for (int t = 0; t < 5; t++) {
            sr_vec3 up = fabsf(targets[t].y) > 0.9f ? (sr_vec3){1, 0, 0} : (sr_vec3){0, 1, 0};
            sr_mat4 view = sr_mat4_look_at(eyes[e], sr_vec3_add(eyes[e], targets[t]), up);
            test_uniforms u = counter_uniforms();
            u.use_matrix = true;
            u.matrix = sr_mat4_mul(sr_mat4_perspective((float)(90.0 * SR_PI / 180.0), 1.0f, 0.05f, 10.0f), view);
            sr_program program = program_for(&u);
            fb_fill(fb, 0, 1.0f);
            draw(renderer, fb, corners, 8, faces, 36, &program, counter_state, 0);
            for (int i = 0; i < size * size; i++)
                cr_assert_eq(fb->color[i] & 0xffu, 1u, "eye %d target %d: pixel (%d, %d) drawn %u times", e, t,
                             i % size, i / size, fb->color[i] & 0xffu);
        }
    cr_assert_gt(sr_renderer_stats(renderer).triangles_clipped, 0);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, perspective_correct_uv_on_a_steep_quad)
{
    const int size = 64;
    camera cam = {tan(30.0 * SR_PI / 180.0), 1.0, 0.1, 100.0, size, size};
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    float *capture = calloc((size_t)size * size * CAP_SIZE, sizeof *capture);
    // A rectangle rising steeply away from the camera: corners P0 + u (P1 - P0) + v (P3 - P0).
    const float p[4][3] = {{-1, -1, -1.2f}, {1, -1, -1.2f}, {1, 1, -9}, {-1, 1, -9}};
    const float uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    test_vertex v[4];
    for (int k = 0; k < 4; k++) {
        memcpy(v[k].position, p[k], sizeof p[k]);
        v[k].attributes[0] = uv[k][0];
        v[k].attributes[1] = uv[k][1];
    }
    test_uniforms u = {.use_matrix = true,
                       .matrix = sr_mat4_perspective((float)(60.0 * SR_PI / 180.0), 1.0f, 0.1f, 100.0f),
                       .varying_count = 2,
                       .color = {1, 1, 1, 1},
                       .capture = capture,
                       .capture_width = size};
    sr_program program = program_for(&u);
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    draw(renderer, fb, v, 4, indices, 6, &program, (sr_render_state){0}, 0);
    // Plane of the quad: point P0, normal n; ray t = (n . P0) / (n . d).
    double e1[3] = {2, 0, 0}, e2[3] = {0, 2, -7.8};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    int checked = 0;
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            double d[3];
            pixel_ray(&cam, px, py, d);
            double t = (n[0] * p[0][0] + n[1] * p[0][1] + n[2] * p[0][2]) / (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]);
            double hu = (d[0] * t + 1) / 2, hv = (d[1] * t + 1) / 2;
            const float *c = capture + ((size_t)py * size + (size_t)px) * CAP_SIZE;
            if (hu < 0.01 || hu > 0.99 || hv < 0.01 || hv > 0.99 || t < 0)
                continue;
            cr_assert_eq(c[CAP_CALLS], 1.0f, "pixel (%d, %d) inside the quad not drawn once", px, py);
            cr_assert(fabs(c[CAP_VARYINGS] - hu) < 1e-3 && fabs(c[CAP_VARYINGS + 1] - hv) < 1e-3,
                      "pixel (%d, %d): uv (%g, %g), analytic (%g, %g)", px, py, c[CAP_VARYINGS], c[CAP_VARYINGS + 1],
                      hu, hv);
            checked++;
        }
    cr_assert_gt(checked, 500);
    free(capture);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, intersecting_triangles_split_along_the_analytic_line)
{
    const int size = 64;
    camera cam = {tan(30.0 * SR_PI / 180.0), 1.0, 0.1, 100.0, size, size};
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    // Triangle A lies in the plane z = -4 - 0.05 x + 0.02 y, B in z = -4 + 0.04 x - 0.03 y; both
    // cover the whole view and meet along the line 0.09 x = 0.05 y.
    const float pa[3][3] = {{-30, -30, -3.1f}, {30, -30, -6.1f}, {0, 30, -3.4f}};
    const float pb[3][3] = {{-30, -30, -4.3f}, {30, -30, -1.9f}, {0, 30, -4.9f}};
    test_vertex va[3], vb[3];
    for (int k = 0; k < 3; k++) {
        memcpy(va[k].position, pa[k], sizeof pa[k]);
        memcpy(vb[k].position, pb[k], sizeof pb[k]);
    }
    sr_mat4 projection = sr_mat4_perspective((float)(60.0 * SR_PI / 180.0), 1.0f, 0.1f, 100.0f);
    test_uniforms red = {.use_matrix = true, .matrix = projection, .color = {1, 0, 0, 1}};
    test_uniforms green = red;
    green.color[0] = 0;
    green.color[1] = 1;
    sr_program program_a = program_for(&red), program_b = program_for(&green);
    for (int order = 0; order < 2; order++) {
        fb_fill(fb, 0, 1.0f);
        draw(renderer, fb, order ? vb : va, 3, NULL, 3, order ? &program_b : &program_a, (sr_render_state){0}, 0);
        draw(renderer, fb, order ? va : vb, 3, NULL, 3, order ? &program_a : &program_b, (sr_render_state){0}, 0);
        int compared = 0;
        for (int py = 0; py < size; py++)
            for (int px = 0; px < size; px++) {
                // Sign of (t_A - t_B) at this centre and one pixel around: skip where it changes.
                int sign = 0;
                bool mixed = false;
                for (int n = 0; n < 5; n++) {
                    const int off[5][2] = {{0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}};
                    double d[3], ta, tb, w[3];
                    pixel_ray(&cam, px + off[n][0], py + off[n][1], d);
                    const float *a[3] = {pa[0], pa[1], pa[2]}, *b[3] = {pb[0], pb[1], pb[2]};
                    cr_assert(ray_triangle(d, a[0], a[1], a[2], &ta, w) && ray_triangle(d, b[0], b[1], b[2], &tb, w));
                    int s = ta < tb ? 1 : -1;
                    if (n == 0)
                        sign = s;
                    else
                        mixed |= s != sign;
                }
                if (mixed)
                    continue;
                compared++;
                uint32_t expected = sign > 0 ? sr_rgba8(1, 0, 0, 1) : sr_rgba8(0, 1, 0, 1);
                cr_assert_eq(fb->color[py * size + px], expected, "order %d pixel (%d, %d): %08x, expected %08x", order,
                             px, py, fb->color[py * size + px], expected);
            }
        cr_assert_gt(compared, size * size * 3 / 4);
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* ------------------------------------------------------------------------------------------ */
/* Render state                                                                                */

Test(raster, face_culling_and_front_facing)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    float *capture = calloc((size_t)size * size * CAP_SIZE, sizeof *capture);
    // Counter-clockwise in NDC (y up): a front face.
    test_vertex ccw[3] = {{{-0.5f, -0.5f, 0.5f, 1}, {0}}, {{0.5f, -0.5f, 0.5f, 1}, {0}}, {{0.0f, 0.5f, 0.5f, 1}, {0}}};
    test_vertex cw[3] = {ccw[0], ccw[2], ccw[1]};
    test_uniforms u = {.color = {1, 1, 1, 1}, .capture = capture, .capture_width = size};
    sr_program program = program_for(&u);
    const struct {
        const test_vertex *v;
        sr_cull_mode cull;
        bool drawn, front;
    } cases[6] = {{ccw, SR_CULL_NONE, true, true}, {ccw, SR_CULL_BACK, true, true},  {ccw, SR_CULL_FRONT, false, true},
                  {cw, SR_CULL_NONE, true, false}, {cw, SR_CULL_BACK, false, false}, {cw, SR_CULL_FRONT, true, false}};
    for (int c = 0; c < 6; c++) {
        fb_fill(fb, 0, 1.0f);
        memset(capture, 0, (size_t)size * size * CAP_SIZE * sizeof *capture);
        draw(renderer, fb, cases[c].v, 3, NULL, 3, &program, (sr_render_state){.cull = cases[c].cull}, 0);
        const float *centre = capture + ((size_t)(size / 2) * size + size / 2) * CAP_SIZE;
        cr_assert_eq(fb->color[(size / 2) * size + size / 2] != 0, cases[c].drawn, "case %d", c);
        if (cases[c].drawn)
            cr_assert_eq(centre[CAP_FRONT], cases[c].front ? 1.0f : 0.0f, "case %d: front_facing", c);
    }
    free(capture);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

static bool reference_depth_test(sr_depth_func func, float z, float stored)
{
    if (func == SR_DEPTH_ALWAYS)
        return true;
    if (func == SR_DEPTH_NEVER)
        return false;
    int order = z < stored ? -1 : z > stored ? 1 : 0;
    const int allowed[6][3] = {{1, 0, 0}, {1, 1, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}, {1, 0, 1}};
    return allowed[func][order + 1];
}

Test(raster, every_depth_func_and_the_write_mask)
{
    const int size = 8;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_uniforms u = {.color = {1, 1, 1, 1}};
    sr_program program = program_for(&u);
    const float depths[3] = {0.25f, 0.5f, 0.75f};
    for (int func = SR_DEPTH_LESS; func <= SR_DEPTH_NEVER; func++)
        for (int d = 0; d < 3; d++)
            for (int mask = 0; mask < 2; mask++) {
                // Two triangles covering the viewport at constant depth (clip z with w = 1).
                test_vertex v[4] = {{{-1, -1, depths[d], 1}, {0}},
                                    {{1, -1, depths[d], 1}, {0}},
                                    {{1, 1, depths[d], 1}, {0}},
                                    {{-1, 1, depths[d], 1}, {0}}};
                const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
                fb_fill(fb, 0, 0.5f);
                sr_render_state state = {.depth_func = (sr_depth_func)func, .no_depth_write = mask};
                draw(renderer, fb, v, 4, indices, 6, &program, state, 0);
                bool pass = reference_depth_test((sr_depth_func)func, depths[d], 0.5f);
                for (int i = 0; i < size * size; i++) {
                    cr_assert_eq(fb->color[i], pass ? 0xffffffffu : 0u, "func %d depth %g pixel %d", func, depths[d],
                                 i);
                    float expected = pass && !mask ? depths[d] : 0.5f;
                    cr_assert_eq(fb->depth[i], expected, "func %d depth %g mask %d pixel %d: depth %g", func, depths[d],
                                 mask, i, fb->depth[i]);
                }
            }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, discard_writes_nothing)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, true);
    sr_renderer *renderer = renderer_new();
    test_uniforms u = {.color = {1, 1, 1, 1}, .discard_below_x = 8.0f};
    sr_program program = program_for(&u);
    test_vertex v[4] = {
        {{-1, -1, 0.3f, 1}, {0}}, {{1, -1, 0.3f, 1}, {0}}, {{1, 1, 0.3f, 1}, {0}}, {{-1, 1, 0.3f, 1}, {0}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    draw(renderer, fb, v, 4, indices, 6, &program, (sr_render_state){0}, 7);
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            int i = y * size + x;
            bool kept = x >= 8;
            cr_assert_eq(fb->color[i], kept ? 0xffffffffu : 0u, "pixel (%d, %d)", x, y);
            cr_assert_eq(fb->depth[i], kept ? 0.3f : 1.0f, "pixel (%d, %d)", x, y);
            // Triangle 0 is the lower-right half (x + y > 16 on the screen) and owns the diagonal,
            // its left edge.
            uint32_t id = x + y + 1 >= size ? 7u : 8u;
            cr_assert_eq(fb->ids[i], kept ? id : SR_NO_ID, "pixel (%d, %d): id %u", x, y, fb->ids[i]);
        }
    sr_raster_stats stats = sr_renderer_stats(renderer);
    cr_assert_eq(stats.fragments_shaded, (uint64_t)(size * size));
    cr_assert_eq(stats.fragments_written, (uint64_t)(size * size / 2));
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, early_and_late_depth_test)
{
    const int size = 8;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[4] = {
        {{-1, -1, 0.5f, 1}, {0}}, {{1, -1, 0.5f, 1}, {0}}, {{1, 1, 0.5f, 1}, {0}}, {{-1, 1, 0.5f, 1}, {0}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    test_uniforms u = {.color = {1, 1, 1, 1}, .written_depth = 0.1f};
    // Early test: hidden fragments never reach the fragment function.
    sr_program early = program_for(&u);
    fb_fill(fb, 0, 0.3f);
    draw(renderer, fb, v, 4, indices, 6, &early, (sr_render_state){0}, 0);
    cr_assert_eq(sr_renderer_stats(renderer).fragments_shaded, 0);
    cr_assert_eq(fb->color[0], 0u);
    // Late test on the written depth: 0.1 < 0.3 passes although the interpolated 0.5 would not.
    sr_program late = early;
    late.fragment = depth_fragment_fn;
    late.writes_depth = true;
    sr_renderer_reset_stats(renderer);
    draw(renderer, fb, v, 4, indices, 6, &late, (sr_render_state){0}, 0);
    cr_assert_eq(sr_renderer_stats(renderer).fragments_shaded, (uint64_t)(size * size));
    for (int i = 0; i < size * size; i++) {
        cr_assert_eq(fb->color[i], 0xffffffffu);
        cr_assert_eq(fb->depth[i], 0.1f);
    }
    // And a written depth behind the stored one fails.
    u.written_depth = 0.9f;
    u.color[0] = 0;
    draw(renderer, fb, v, 4, indices, 6, &late, (sr_render_state){0}, 0);
    for (int i = 0; i < size * size; i++) {
        cr_assert_eq(fb->color[i], 0xffffffffu);
        cr_assert_eq(fb->depth[i], 0.1f);
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

static uint32_t bytes(int r, int g, int b, int a)
{
    return (uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16 | (uint32_t)a << 24;
}

Test(raster, blending_matches_hand_computed_bytes)
{
    const int size = 4;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[4] = {
        {{-1, -1, 0.5f, 1}, {0}}, {{1, -1, 0.5f, 1}, {0}}, {{1, 1, 0.5f, 1}, {0}}, {{-1, 1, 0.5f, 1}, {0}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    test_uniforms u = {.color = {0.2f, 0.6f, 1.0f, 0.25f}};
    sr_program program = program_for(&u);
    const uint32_t destination = bytes(200, 100, 50, 255);
    // By hand, v = s a + d (1 - a) with s = 255 c: r 12.75 + 150, g 38.25 + 75, b 63.75 + 37.5,
    // and for alpha ("over") v = 255 a + d (1 - a): 63.75 + 191.25; rounded half up.
    const struct {
        sr_blend_mode mode;
        uint32_t expected;
    } cases[3] = {{SR_BLEND_NONE, bytes(51, 153, 255, 64)},
                  {SR_BLEND_ALPHA, bytes(163, 113, 101, 255)},
                  {SR_BLEND_ADDITIVE, bytes(213, 138, 114, 255)}};
    for (int c = 0; c < 3; c++) {
        fb_fill(fb, destination, 1.0f);
        draw(renderer, fb, v, 4, indices, 6, &program, (sr_render_state){.blend = cases[c].mode}, 0);
        for (int i = 0; i < size * size; i++)
            cr_assert_eq(fb->color[i], cases[c].expected, "mode %d: %08x, expected %08x", (int)cases[c].mode,
                         fb->color[i], cases[c].expected);
    }
    // Additive saturates; out-of-range and NaN source components are clamped (NaN as 0).
    test_uniforms bright = {.color = {2.0f, NAN, -1.0f, 1.0f}};
    sr_program bright_program = program_for(&bright);
    fb_fill(fb, bytes(250, 10, 20, 128), 1.0f);
    draw(renderer, fb, v, 4, indices, 6, &bright_program, (sr_render_state){.blend = SR_BLEND_ADDITIVE}, 0);
    cr_assert_eq(fb->color[0], bytes(255, 10, 20, 255), "%08x", fb->color[0]);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, ids_buffer_records_the_primitive)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, true);
    sr_renderer *renderer = renderer_new();
    float *capture = calloc((size_t)size * size * CAP_SIZE, sizeof *capture);
    test_vertex quad[4] = {window_vertex(2, 2, 0.5, size, size), window_vertex(10, 2, 0.5, size, size),
                           window_vertex(10, 10, 0.5, size, size), window_vertex(2, 10, 0.5, size, size)};
    const uint32_t indices[9] = {0, 1, 3, 1, 2, 3, 0, 0, 0};
    test_uniforms u = {.color = {1, 1, 1, 1}, .capture = capture, .capture_width = size};
    sr_program program = program_for(&u);
    draw(renderer, fb, quad, 4, indices, 9, &program, (sr_render_state){0}, 1000);
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            bool inside = x >= 2 && x < 10 && y >= 2 && y < 10;
            // The diagonal from (10, 2) to (2, 10) has no pixel centre on it: x + y + 1 = 12.
            uint32_t expected = !inside ? SR_NO_ID : x + y + 1 < 12 ? 1000u : 1001u;
            cr_assert_eq(fb->ids[y * size + x], expected, "pixel (%d, %d): id %u", x, y, fb->ids[y * size + x]);
            if (inside)
                cr_assert_eq(capture[((size_t)y * size + (size_t)x) * CAP_SIZE + CAP_ID], (float)expected);
        }
    free(capture);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, vertex_function_runs_once_per_referenced_vertex)
{
    const int size = 32, n = 10;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    // An n x n grid plus 7 vertices no triangle uses.
    size_t count = (size_t)n * n + 7;
    test_vertex *v = calloc(count, sizeof *v);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            v[j * n + i] = window_vertex(2 + i * 3.1, 1 + j * 2.9, 0.5, size, size);
    uint32_t *indices = calloc((size_t)(n - 1) * (n - 1) * 6, sizeof *indices);
    size_t k = 0;
    for (int j = 0; j + 1 < n; j++)
        for (int i = 0; i + 1 < n; i++) {
            uint32_t a = (uint32_t)(j * n + i);
            uint32_t quad[6] = {a, a + 1, a + (uint32_t)n + 1, a, a + (uint32_t)n + 1, a + (uint32_t)n};
            memcpy(indices + k, quad, sizeof quad);
            k += 6;
        }
    int calls = 0;
    test_uniforms u = counter_uniforms();
    u.vertex_calls = &calls;
    sr_program program = program_for(&u);
    draw(renderer, fb, v, count, indices, k, &program, counter_state, 0);
    cr_assert_eq(calls, n * n, "%d vertex calls for %d referenced vertices", calls, n * n);
    draw(renderer, fb, v, count, indices, k, &program, counter_state, 0);
    cr_assert_eq(calls, 2 * n * n, "the second draw must transform again");
    // Only the first row of quads: 2 n vertices referenced.
    draw(renderer, fb, v, count, indices, (size_t)(n - 1) * 6, &program, counter_state, 0);
    cr_assert_eq(calls, 2 * n * n + 2 * n);
    free(v);
    free(indices);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* ------------------------------------------------------------------------------------------ */
/* Lines                                                                                       */

static sr_line_vertex line_vertex_at(double x, double y, double z, int width, int height, float r, float g, float b)
{
    return (sr_line_vertex){{(float)(2.0 * x / width - 1.0), (float)(1.0 - 2.0 * y / height), (float)z}, {r, g, b, 1}};
}

static void draw_lines(sr_renderer *renderer, sr_framebuffer *fb, const sr_line_vertex *v, size_t count,
                       sr_mat4 view_projection, bool depth_test)
{
    sr_error err;
    sr_line_desc desc = {
        .vertices = v, .vertex_count = count, .view_projection = view_projection, .depth_test = depth_test};
    cr_assert_eq(sr_draw_lines(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
}

static int count_written(const sr_framebuffer *fb)
{
    int n = 0;
    for (int i = 0; i < fb->width * fb->height; i++)
        n += fb->color[i] != 0;
    return n;
}

Test(raster, lines_axis_aligned_and_diagonal)
{
    const int size = 32;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    const struct {
        double x0, y0, x1, y1;
    } segments[6] = {{3.5, 5.5, 12.5, 5.5}, {12.5, 5.5, 3.5, 5.5},  {7.5, 2.5, 7.5, 20.5},
                     {7.5, 20.5, 7.5, 2.5}, {2.5, 2.5, 12.5, 12.5}, {12.5, 12.5, 2.5, 2.5}};
    for (int s = 0; s < 6; s++) {
        fb_fill(fb, 0, 1.0f);
        sr_line_vertex v[2] = {line_vertex_at(segments[s].x0, segments[s].y0, 0.5, size, size, 1, 0, 0),
                               line_vertex_at(segments[s].x1, segments[s].y1, 0.5, size, size, 0, 0, 1)};
        draw_lines(renderer, fb, v, 2, sr_mat4_identity(), false);
        int expected_count = 0;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                bool on;
                if (s < 2)
                    on = y == 5 && x >= 3 && x <= 12;
                else if (s < 4)
                    on = x == 7 && y >= 2 && y <= 20;
                else
                    on = x == y && x >= 2 && x <= 12;
                expected_count += on;
                cr_assert_eq(fb->color[y * size + x] != 0, on, "segment %d pixel (%d, %d)", s, x, y);
            }
        cr_assert_eq(count_written(fb), expected_count);
    }
    // Colour along the first segment: t = (x + 0.5 - 3.5) / 9 from red to blue.
    fb_fill(fb, 0, 1.0f);
    sr_line_vertex v[2] = {line_vertex_at(3.5, 5.5, 0.5, size, size, 1, 0, 0),
                           line_vertex_at(12.5, 5.5, 0.5, size, size, 0, 0, 1)};
    draw_lines(renderer, fb, v, 2, sr_mat4_identity(), false);
    for (int x = 3; x <= 12; x++) {
        double t = (x + 0.5 - 3.5) / 9.0;
        uint32_t c = fb->color[5 * size + x];
        cr_assert(abs((int)(c & 0xff) - (int)lround(255 * (1 - t))) <= 1, "x %d red %u", x, c & 0xff);
        cr_assert(abs((int)((c >> 16) & 0xff) - (int)lround(255 * t)) <= 1, "x %d blue %u", x, (c >> 16) & 0xff);
    }
    // Ends off pixel centres: every column containing a point of the segment is drawn, both
    // ends' own pixels included (an end exactly on a pixel border belongs to the pixel right
    // of / below the border).
    const struct {
        double x0, y0, x1, y1;
        int first, last, row;
    } ends[3] = {{3.2, 6.3, 12.9, 6.7, 3, 12, 6}, {2.0, 9.5, 11.0, 9.5, 2, 11, 9}, {14.99, 3.1, 5.01, 3.9, 5, 14, 3}};
    for (int e = 0; e < 3; e++) {
        fb_fill(fb, 0, 1.0f);
        sr_line_vertex w[2] = {line_vertex_at(ends[e].x0, ends[e].y0, 0.5, size, size, 1, 1, 1),
                               line_vertex_at(ends[e].x1, ends[e].y1, 0.5, size, size, 1, 1, 1)};
        draw_lines(renderer, fb, w, 2, sr_mat4_identity(), false);
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                bool on = y == ends[e].row && x >= ends[e].first && x <= ends[e].last;
                cr_assert_eq(fb->color[y * size + x] != 0, on, "segment %d pixel (%d, %d)", e, x, y);
            }
    }
    cr_assert_eq(sr_renderer_stats(renderer).lines_in, 10);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, line_colour_is_perspective_correct)
{
    const int size = 64;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    sr_mat4 projection = sr_mat4_perspective((float)(60.0 * SR_PI / 180.0), 1.0f, 0.1f, 100.0f);
    // From (-1, 0, -2) red to (1, 0, -8) green: on screen the far half is much shorter.
    sr_line_vertex v[2] = {{{-1, 0, -2}, {1, 0, 0, 1}}, {{1, 0, -8}, {0, 1, 0, 1}}};
    draw_lines(renderer, fb, v, 2, projection, false);
    double f = 1.0 / tan(30.0 * SR_PI / 180.0);
    int checked = 0;
    for (int x = 0; x < size; x++) {
        // Point of the segment seen through the column's centre: f (-1 + 2 s) = ndc (2 + 6 s).
        double ndc = (x + 0.5) / size * 2 - 1;
        double s = (2 * ndc + f) / (2 * f - 6 * ndc);
        if (s < 0.02 || s > 0.98)
            continue;
        for (int y = 0; y < size; y++) {
            uint32_t c = fb->color[y * size + x];
            if (!c)
                continue;
            cr_assert(abs((int)(c & 0xff) - (int)lround(255 * (1 - s))) <= 2, "column %d: red %u, expected %g", x,
                      c & 0xff, 255 * (1 - s));
            checked++;
        }
    }
    cr_assert_gt(checked, 10);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, line_crossing_the_near_plane_is_clipped)
{
    const int size = 64;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    const double fov = 60.0 * SR_PI / 180.0, near_z = 0.1;
    sr_mat4 projection = sr_mat4_perspective((float)fov, 1.0f, (float)near_z, 100.0f);
    const double a[3] = {0.3, 0.2, -2.0}, b[3] = {-0.4, -0.1, 3.0};
    sr_line_vertex v[2] = {{{(float)a[0], (float)a[1], (float)a[2]}, {1, 1, 1, 1}},
                           {{(float)b[0], (float)b[1], (float)b[2]}, {1, 1, 1, 1}}};
    draw_lines(renderer, fb, v, 2, projection, false);
    // Visible part: from a to the near plane z = -near.
    double s = (-near_z - a[2]) / (b[2] - a[2]), p[3];
    for (int k = 0; k < 3; k++)
        p[k] = a[k] + s * (b[k] - a[k]);
    double f = 1.0 / tan(fov / 2);
    double ax = (f * a[0] / -a[2] + 1) / 2 * size, ay = (1 - f * a[1] / -a[2]) / 2 * size;
    double px = (f * p[0] / -p[2] + 1) / 2 * size, py = (1 - f * p[1] / -p[2]) / 2 * size;
    int written = 0;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            if (!fb->color[y * size + x])
                continue;
            written++;
            double d = segment_distance(x + 0.5, y + 0.5, ax, ay, px, py);
            cr_assert_leq(d, 1.0, "pixel (%d, %d) is %g px away from the visible segment", x, y, d);
        }
    cr_assert(fb->color[(int)ay * size + (int)ax] != 0, "the pixel of the front end is not drawn");
    double span = fmax(fabs(fmin(px, size) - ax), fabs(fmin(fmax(py, 0), size) - ay));
    cr_assert_geq(written, (int)span - 1, "%d pixels for a span of %g", written, span);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, depth_tested_line_hidden_behind_a_triangle)
{
    const int size = 32;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    // The left half of the screen at depth 0.3.
    test_vertex half[4] = {window_vertex(0, 0, 0.3, size, size), window_vertex(16, 0, 0.3, size, size),
                           window_vertex(16, 32, 0.3, size, size), window_vertex(0, 32, 0.3, size, size)};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    test_uniforms u = {.color = {0, 0, 1, 1}};
    sr_program program = program_for(&u);
    draw(renderer, fb, half, 4, indices, 6, &program, (sr_render_state){0}, 0);
    const uint32_t blue = bytes(0, 0, 255, 255), white = 0xffffffffu;
    for (int pass = 0; pass < 2; pass++) {
        double z = pass == 0 ? 0.6 : 0.2;
        sr_line_vertex v[2] = {line_vertex_at(0.5, 10.5, z, size, size, 1, 1, 1),
                               line_vertex_at(31.5, 10.5, z, size, size, 1, 1, 1)};
        draw_lines(renderer, fb, v, 2, sr_mat4_identity(), true);
        for (int x = 0; x < size; x++) {
            uint32_t expected = pass == 0 && x < 16 ? blue : white;
            cr_assert_eq(fb->color[10 * size + x], expected, "pass %d x %d: %08x", pass, x, fb->color[10 * size + x]);
            cr_assert_eq(fb->depth[10 * size + x], x < 16 ? 0.3f : 1.0f, "lines must not write depth");
        }
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* sr_line_desc.depth_test is LESS_EQUAL: a line exactly at the stored depth is drawn. With an
 * orthographic projection from near 0 to far 1, clip z = -z_view and w = 1 exactly, so a segment at
 * constant z_view = -d has window depth d bit for bit at every pixel (a + (b - a) t with b == a). */
Test(raster, line_at_exactly_the_stored_depth_is_drawn)
{
    const int size = 32;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    const sr_mat4 ortho = sr_mat4_orthographic(-1.0f, 1.0f, -1.0f, 1.0f, 0.0f, 1.0f);
    const float stored = 0.375f;
    const float depths[3] = {stored, nextafterf(stored, 0.0f), nextafterf(stored, 1.0f)};
    for (int pass = 0; pass < 3; pass++) {
        fb_fill(fb, 0, stored);
        // Ends on the centres of pixels (2, 10) and (29, 10).
        sr_line_vertex v[2] = {line_vertex_at(2.5, 10.5, -depths[pass], size, size, 1, 1, 1),
                               line_vertex_at(29.5, 10.5, -depths[pass], size, size, 1, 1, 1)};
        draw_lines(renderer, fb, v, 2, ortho, true);
        bool visible = depths[pass] <= stored;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                bool on = visible && y == 10 && x >= 2 && x <= 29;
                cr_assert_eq(fb->color[y * size + x] != 0, on, "line at depth %a over %a: pixel (%d, %d)",
                             (double)depths[pass], (double)stored, x, y);
                cr_assert_eq(fb->depth[y * size + x], stored, "lines must not write depth");
            }
    }
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* ------------------------------------------------------------------------------------------ */
/* Bad input                                                                                   */

static void expect_error(sr_status status, sr_status expected, const sr_error *err, const char *word)
{
    cr_assert_eq(status, expected, "status %d (%s), expected %d", (int)status, err->message, (int)expected);
    cr_assert(strstr(err->message, word) != NULL, "message \"%s\" does not name \"%s\"", err->message, word);
}

Test(raster, bad_arguments_are_errors)
{
    sr_framebuffer *fb = fb_new(8, 8, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[3] = {{{-1, -1, 0.5f, 1}, {0}}, {{1, -1, 0.5f, 1}, {0}}, {{0, 1, 0.5f, 1}, {0}}};
    uint32_t indices[4] = {0, 1, 2, 0};
    test_uniforms u = {.color = {1, 1, 1, 1}};
    sr_program program = program_for(&u);
    sr_draw_desc good = {.vertices = v,
                         .vertex_count = 3,
                         .vertex_stride = sizeof(test_vertex),
                         .indices = indices,
                         .index_count = 3,
                         .program = &program};
    sr_error err;
    expect_error(sr_draw_triangles(NULL, fb, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "renderer");
    expect_error(sr_draw_triangles(renderer, NULL, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb");
    expect_error(sr_draw_triangles(renderer, fb, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "desc");
    sr_draw_desc d = good;
    d.program = NULL;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "program");
    sr_program p = program;
    d = good;
    d.program = &p;
    p.vertex = NULL;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertex function");
    p = program;
    p.fragment = NULL;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fragment function");
    p = program;
    p.varying_count = -1;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "varying_count");
    p.varying_count = SR_MAX_VARYINGS + 1;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "varying_count");
    p = program;
    d.vertex_stride = sizeof(test_vertex) - 4;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertex_stride");
    d = good;
    d.vertex_stride = 0;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertex_stride");
    d = good;
    d.index_count = 4;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "index_count");
    d = good;
    d.vertices = NULL;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertices");
    d = good;
    d.state.cull = (sr_cull_mode)9;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "cull");
    d = good;
    d.state.depth_func = (sr_depth_func)-1;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "depth_func");
    d = good;
    d.state.blend = (sr_blend_mode)3;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "blend");
    d = good;
    d.vertex_count = SIZE_MAX / 2;
    expect_error(sr_draw_triangles(renderer, fb, &d, &err), SR_ERROR_INVALID_ARGUMENT, &err, "overflows");

    // Framebuffers: absurd, zero-sized, negative, missing buffers; never touched.
    sr_framebuffer bad = *fb;
    bad.width = bad.height = 100000;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "100000x100000");
    bad = *fb;
    bad.width = 0;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb size");
    bad = *fb;
    bad.height = -5;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb size");
    bad = *fb;
    bad.color = NULL;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "color");
    bad = *fb;
    bad.depth = NULL;
    expect_error(sr_draw_triangles(renderer, &bad, &good, &err), SR_ERROR_INVALID_ARGUMENT, &err, "depth");

    // Lines.
    sr_line_vertex lv[3] = {{{0, 0, 0.5f}, {1, 1, 1, 1}}, {{1, 1, 0.5f}, {1, 1, 1, 1}}, {{0, 1, 0.5f}, {1, 1, 1, 1}}};
    sr_line_desc ld = {.vertices = lv, .vertex_count = 2, .view_projection = sr_mat4_identity()};
    expect_error(sr_draw_lines(NULL, fb, &ld, &err), SR_ERROR_INVALID_ARGUMENT, &err, "renderer");
    expect_error(sr_draw_lines(renderer, NULL, &ld, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb");
    expect_error(sr_draw_lines(renderer, fb, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "desc");
    bad = *fb;
    bad.width = bad.height = 100000;
    expect_error(sr_draw_lines(renderer, &bad, &ld, &err), SR_ERROR_INVALID_ARGUMENT, &err, "fb size");
    sr_line_desc odd = ld;
    odd.vertex_count = 3;
    expect_error(sr_draw_lines(renderer, fb, &odd, &err), SR_ERROR_INVALID_ARGUMENT, &err, "odd");
    odd = ld;
    odd.vertices = NULL;
    expect_error(sr_draw_lines(renderer, fb, &odd, &err), SR_ERROR_INVALID_ARGUMENT, &err, "vertices");
    odd = ld;
    odd.blend = (sr_blend_mode)7;
    expect_error(sr_draw_lines(renderer, fb, &odd, &err), SR_ERROR_INVALID_ARGUMENT, &err, "blend");

    // Renderer creation.
    sr_renderer *other = (sr_renderer *)&err;
    expect_error(sr_renderer_create(&(sr_renderer_desc){.threads = SR_MAX_THREADS + 1}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT, &err, "threads");
    cr_assert_null(other);
    expect_error(sr_renderer_create(&(sr_renderer_desc){.threads = -1}, &other, &err), SR_ERROR_INVALID_ARGUMENT, &err,
                 "threads");
    expect_error(sr_renderer_create(NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT, &err, "out");
    // Nothing was drawn by any failed call; NULL err is accepted.
    cr_assert_eq(sr_draw_triangles(NULL, NULL, NULL, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(count_written(fb), 0);
    cr_assert_eq(sr_renderer_stats(renderer).triangles_in, 0);
    sr_renderer_destroy(NULL);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

Test(raster, non_finite_positions_and_bad_indices_are_skipped_and_counted)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[9] = {{{-1, -1, 0.5f, 1}, {0}},          {{1, -1, 0.5f, 1}, {0}},          {{0, 1, 0.5f, 1}, {0}},
                        {{NAN, -1, 0.5f, 1}, {0}},         {{INFINITY, 0, 0.5f, 1}, {0}},    {{0, 0, 0.5f, NAN}, {0}},
                        {{3e38f, -3e38f, 0, 1e-30f}, {0}}, {{-3e38f, 1, 3e38f, 3e38f}, {0}}, {{0, 0, 0, 0}, {0}}};
    const uint32_t indices[] = {0,           1, 2, 3, 1, 2, 0, 4, 2, 0, 1, 5, 0, 1, 99,
                                0xffffffffu, 1, 2, 6, 7, 8, 0, 6, 7, 8, 8, 8, 1, 8, 2};
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    draw(renderer, fb, v, 9, indices, sizeof indices / sizeof indices[0], &program, counter_state, 0);
    sr_raster_stats stats = sr_renderer_stats(renderer);
    cr_assert_eq(stats.triangles_in, 10);
    cr_assert_eq(stats.triangles_skipped, 5, "skipped %llu", (unsigned long long)stats.triangles_skipped);
    cr_assert_eq(stats.triangles_in, stats.triangles_skipped + stats.triangles_culled + stats.triangles_rasterized);
    // Every pixel is drawn once per triangle whose visible part covers its centre (the homogeneous
    // reference, clipped at w >= SR_CLIP_W_EPSILON): triangle (0, 1, 2), and (0, 6, 7), whose corner
    // 6 lies 3e68 away in NDC, over the lower-left corner; the ones through vertex 8 at the origin
    // of clip space have no area. No triangle draws a pixel twice, and none is lost.
    int compared = 0, overlapped = 0;
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            int expected = 0;
            bool decided = true;
            for (size_t t = 0; t + 2 < sizeof indices / sizeof indices[0] && decided; t += 3) {
                double clip[3][4];
                bool usable = true;
                for (int k = 0; k < 3 && usable; k++) {
                    uint32_t i = indices[t + (size_t)k];
                    usable = i < 9;
                    for (int c = 0; c < 4 && usable; c++) {
                        usable = isfinite(v[i].position[c]);
                        clip[k][c] = v[i].position[c];
                    }
                }
                if (!usable)
                    continue;
                reference_region region = reference_region_triangle(&clip[0][0], SR_CLIP_W_EPSILON);
                int covered = reference_region_classify(&region, size, size, px + 0.5, py + 0.5, 0.01);
                decided = covered >= 0;
                expected += covered > 0;
            }
            if (!decided)
                continue;
            compared++;
            overlapped += expected == 2;
            cr_assert_eq(red_at(fb, px, py), expected, "pixel (%d, %d) drawn %d times, covered by %d triangles", px, py,
                         red_at(fb, px, py), expected);
        }
    cr_assert_gt(compared, size * size * 3 / 4);
    cr_assert_gt(overlapped, 5);
    // Lines with non-finite ends are skipped and counted too.
    sr_line_vertex lv[4] = {{{NAN, 0, 0.5f}, {1, 1, 1, 1}},
                            {{0, 0, 0.5f}, {1, 1, 1, 1}},
                            {{0, 0, 0.5f}, {1, 1, 1, 1}},
                            {{0.5f, 0.5f, 0.5f}, {1, 1, 1, 1}}};
    draw_lines(renderer, fb, lv, 4, sr_mat4_identity(), false);
    cr_assert_eq(sr_renderer_stats(renderer).lines_skipped, 1);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* An allocator that grants the first `left` requests and refuses the others (state through
 * sr_allocator.user, not a global). */
typedef struct allocation_budget {
    int left;
    int refused;
} allocation_budget;

static void *budget_allocate(size_t size, void *user)
{
    allocation_budget *budget = user;
    if (budget->left <= 0) {
        budget->refused++;
        return NULL;
    }
    budget->left--;
    return malloc(size);
}

static void *budget_reallocate(void *pointer, size_t size, void *user)
{
    allocation_budget *budget = user;
    if (budget->left <= 0) {
        budget->refused++;
        return NULL; // the old block stays valid
    }
    budget->left--;
    return realloc(pointer, size);
}

static void budget_release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

/* Every budget of allocations, from none upwards, until the draw succeeds: each draw refused for
 * lack of memory returns SR_ERROR_OUT_OF_MEMORY naming what it could not allocate and leaves the
 * framebuffer and the statistics exactly as they were; the renderer then still draws once memory is
 * available again. The draw has 300 triangles, so that with worker threads it is split and binned
 * (the bins are allocated too). */
Test(raster, out_of_memory_is_an_error)
{
    allocation_budget budget = {0, 0};
    sr_allocator limited = {budget_allocate, budget_reallocate, budget_release, &budget};
    sr_set_allocator(&limited);
    sr_error err;
    sr_renderer *renderer = NULL;
    expect_error(sr_renderer_create(NULL, &renderer, &err), SR_ERROR_OUT_OF_MEMORY, &err, "memory");
    cr_assert_null(renderer);
    const int size = 16;
    const uint32_t old_color = 0x11223344u, white = 0xffffffffu;
    sr_framebuffer *fb = fb_new(size, size, false);
    // The whole screen at depth 0.5, 150 times: the first copy writes every pixel, the others fail
    // the LESS test.
    test_vertex v[4] = {
        {{-1, -1, 0.5f, 1}, {0}}, {{1, -1, 0.5f, 1}, {0}}, {{1, 1, 0.5f, 1}, {0}}, {{-1, 1, 0.5f, 1}, {0}}};
    uint32_t indices[900];
    for (int q = 0; q < 150; q++) {
        const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
        memcpy(indices + 6 * q, quad, sizeof quad);
    }
    test_uniforms u = {.color = {1, 1, 1, 1}, .varying_count = 2};
    sr_program program = program_for(&u);
    sr_draw_desc desc = {.vertices = v,
                         .vertex_count = 4,
                         .vertex_stride = sizeof *v,
                         .indices = indices,
                         .index_count = 900,
                         .program = &program};
    const int thread_counts[2] = {0, 3};
    for (int c = 0; c < 2; c++) {
        int refused_draws = 0;
        bool drawn = false, named_cache = false, named_varyings = false, named_bins = false;
        for (int allowed = 0; allowed < 64 && !drawn; allowed++) {
            budget.left = allowed;
            renderer = NULL;
            sr_status status = sr_renderer_create(&(sr_renderer_desc){.threads = thread_counts[c]}, &renderer, &err);
            if (status != SR_OK) {
                expect_error(status, SR_ERROR_OUT_OF_MEMORY, &err, "memory");
                cr_assert_null(renderer);
                continue;
            }
            fb_fill(fb, old_color, 0.75f);
            status = sr_draw_triangles(renderer, fb, &desc, &err);
            if (status == SR_OK) {
                drawn = true;
            } else {
                expect_error(status, SR_ERROR_OUT_OF_MEMORY, &err, "out of memory");
                refused_draws++;
                named_cache = named_cache || strstr(err.message, "vertex cache") != NULL;
                named_varyings = named_varyings || strstr(err.message, "varyings") != NULL;
                named_bins = named_bins || strstr(err.message, "bins") != NULL;
                for (int i = 0; i < size * size; i++)
                    cr_assert(fb->color[i] == old_color && fb->depth[i] == 0.75f,
                              "threads %d, %d allocations: a refused draw changed pixel %d", thread_counts[c], allowed,
                              i);
                sr_raster_stats stats = sr_renderer_stats(renderer);
                cr_assert_eq(stats.triangles_in + stats.fragments_shaded + stats.fragments_written, 0,
                             "a refused draw changed the statistics");
                // The same renderer draws once memory is there.
                budget.left = 1000;
                cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
            }
            for (int i = 0; i < size * size; i++)
                cr_assert(fb->color[i] == white && fb->depth[i] == 0.5f, "threads %d, %d allocations: pixel %d is %08x",
                          thread_counts[c], allowed, i, fb->color[i]);
            sr_renderer_destroy(renderer);
        }
        cr_assert(drawn, "threads %d: no budget of allocations was enough", thread_counts[c]);
        cr_assert_geq(refused_draws, 2, "threads %d: only %d draws ran out of memory", thread_counts[c], refused_draws);
        cr_assert(named_cache && named_varyings, "threads %d: the vertex cache and varyings failures were not both met",
                  thread_counts[c]);
        cr_assert(named_bins == (thread_counts[c] > 1), "threads %d: bins failure met: %d", thread_counts[c],
                  (int)named_bins);
    }
    cr_assert_gt(budget.refused, 0);
    sr_set_allocator(NULL);
    fb_delete(fb);
}

Test(raster, statistics_count_the_work)
{
    const int size = 16;
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    test_vertex v[6] = {window_vertex(0, 0, 0.5, size, size),   window_vertex(0, 16, 0.5, size, size),
                        window_vertex(16, 0, 0.5, size, size),  window_vertex(40, 40, 0.5, size, size),
                        window_vertex(50, 40, 0.5, size, size), window_vertex(40, 50, 0.5, size, size)};
    test_uniforms u = counter_uniforms();
    sr_program program = program_for(&u);
    // Triangle 0 covers the upper-left half (136 centres: x + y + 1 < 16, plus the diagonal
    // owned by it? no: the diagonal is its right edge), triangle 1 is off-screen.
    draw(renderer, fb, v, 6, NULL, 6, &program, counter_state, 0);
    int covered = 0;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++)
            covered += x + y + 1 < 16;
    sr_raster_stats stats = sr_renderer_stats(renderer);
    cr_assert_eq(stats.triangles_in, 2);
    cr_assert_eq(stats.triangles_rasterized, 1);
    cr_assert_eq(stats.triangles_culled, 1);
    cr_assert_eq(stats.fragments_shaded, (uint64_t)covered);
    cr_assert_eq(stats.fragments_written, (uint64_t)covered);
    cr_assert_eq(count_written(fb), covered);
    sr_renderer_reset_stats(renderer);
    stats = sr_renderer_stats(renderer);
    cr_assert_eq(stats.triangles_in + stats.fragments_written, 0);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}

/* The tiled renderer of DESIGN.md needs rasterising a set-up triangle over any split of the
 * screen into rectangles to give the same bits as one pass over the whole screen: the tiles' own
 * split (rectangles on the 4x2 block grid) and one whose rectangles cut blocks (their pixels then
 * go lane by lane), with both variants of the fill (native and portable). */
Test(raster, tiles_reproduce_the_single_pass_image)
{
    const int size = 80;
    sr_framebuffer *whole = fb_new(size, size, true), *tiled = fb_new(size, size, true);
    test_vertex *vertices;
    uint32_t *indices;
    size_t vertex_count;
    size_t index_count = make_sphere(0.1, 0.05, -3.0, 1.2, 17, 9, &vertices, &indices, &vertex_count);
    float *capture = NULL;
    test_uniforms u = {.use_matrix = true,
                       .matrix = sr_mat4_perspective(1.0f, 1.0f, 0.1f, 10.0f),
                       .varying_count = 3,
                       .world_varyings = true,
                       .color = {0.5f, 0.25f, 1.0f, 0.5f},
                       .capture = capture};
    // Alpha blending takes the generic per-pixel path, the default state the fast one.
    const sr_render_state states[2] = {{.blend = SR_BLEND_ALPHA}, {0}};
    const sr_fill_fn fills[2] = {sr_raster_fill_triangle_native, sr_raster_fill_triangle_portable};
    const int tile_sizes[2][2] = {{24, 16}, {13, 7}};
    for (int pass = 0; pass < 8; pass++) {
        const int tile_width = tile_sizes[pass / 4][0], tile_height = tile_sizes[pass / 4][1];
        sr_draw_context context = {.viewport = sr_raster_viewport(size, size),
                                   .fill = fills[pass / 2 % 2],
                                   .fragment = test_fragment_fn,
                                   .uniforms = &u,
                                   .varying_count = 3,
                                   .attribute_count = 3,
                                   .state = states[pass % 2]};
        sr_fragment_counters counters = {0, 0};
        fb_fill(whole, 0, 1.0f);
        fb_fill(tiled, 0, 1.0f);
        for (size_t t = 0; t < index_count; t += 3) {
            sr_screen_vertex screen[3];
            float varyings[3][SR_ATTRIBUTE_SLOTS_FOR(3)] = {{0}}; // zero-padded, as the setup reads
            for (int k = 0; k < 3; k++) {
                float clip[4];
                test_vertex_fn(&vertices[indices[t + (size_t)k]], &u, clip, varyings[k]);
                screen[k] = sr_raster_project(clip, &context.viewport);
            }
            const float *const attributes[3] = {varyings[0], varyings[1], varyings[2]};
            sr_triangle_setup setup;
            if (sr_raster_setup_triangle(&context, &screen[0], &screen[1], &screen[2], attributes, (uint32_t)t,
                                         &setup) != SR_SETUP_OK)
                continue;
            context.fb = whole;
            sr_raster_fill_triangle(&context, &setup, (sr_pixel_rect){0, 0, size - 1, size - 1}, &counters);
            context.fb = tiled;
            for (int ty = 0; ty < size; ty += tile_height)
                for (int tx = 0; tx < size; tx += tile_width) {
                    sr_pixel_rect tile = {tx, ty, tx + tile_width - 1, ty + tile_height - 1};
                    tile.max_x = tile.max_x < size - 1 ? tile.max_x : size - 1;
                    tile.max_y = tile.max_y < size - 1 ? tile.max_y : size - 1;
                    sr_raster_fill_triangle(&context, &setup, tile, &counters);
                }
        }
        size_t pixels = (size_t)size * size;
        cr_assert_gt(counters.written, 2000, "pass %d", pass);
        cr_assert(memcmp(whole->color, tiled->color, pixels * sizeof *whole->color) == 0);
        cr_assert(memcmp(whole->depth, tiled->depth, pixels * sizeof *whole->depth) == 0);
        cr_assert(memcmp(whole->ids, tiled->ids, pixels * sizeof *whole->ids) == 0);
    }
    free(vertices);
    free(indices);
    fb_delete(whole);
    fb_delete(tiled);
}

/* DESIGN.md: with several threads the image is bit-identical to the single-threaded one. A mix of
 * small and large, clipped and unclipped, front and back triangles with ids and barycentrics, in
 * the fast and the generic per-pixel paths, drawn with 1, 2, 3 and 5 threads. */
Test(raster, threads_give_the_single_thread_image)
{
    const int width = 150, height = 101;
    test_vertex *sphere;
    uint32_t *sphere_indices;
    size_t sphere_count;
    size_t sphere_index_count = make_sphere(0.2, -0.1, -3.0, 1.3, 41, 23, &sphere, &sphere_indices, &sphere_count);
    // Plus, in the same draw (large enough to be split between threads), large triangles crossing
    // the near plane and the whole view.
    const test_vertex big[6] = {{{-3, -2, -1.5f, 1}, {0}}, {{3, -1, -6, 1}, {0}}, {{0.5f, 2, 1.5f, 1}, {0}},
                                {{-8, 5, -2, 1}, {0}},     {{9, 4, -9, 1}, {0}},  {{1, -9, -4, 1}, {0}}};
    sphere = realloc(sphere, (sphere_count + 6) * sizeof *sphere);
    sphere_indices = realloc(sphere_indices, (sphere_index_count + 6) * sizeof *sphere_indices);
    cr_assert(sphere && sphere_indices);
    for (int k = 0; k < 6; k++) {
        sphere[sphere_count + (size_t)k] = big[k];
        sphere_indices[sphere_index_count + (size_t)k] = (uint32_t)(sphere_count + (size_t)k);
    }
    sphere_count += 6;
    sphere_index_count += 6;
    const sr_render_state states[3] = {{0},
                                       {.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_LESS_EQUAL},
                                       {.cull = SR_CULL_BACK, .depth_func = SR_DEPTH_GREATER}};
    const int thread_counts[4] = {1, 2, 3, 5};
    sr_framebuffer *reference = NULL;
    sr_raster_stats reference_stats = {0};
    for (int s = 0; s < 3; s++)
        for (int c = 0; c < 4; c++) {
            sr_renderer *renderer = NULL;
            sr_error err;
            cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = thread_counts[c]}, &renderer, &err), SR_OK,
                         "%s", err.message);
            sr_framebuffer *fb = fb_new(width, height, true);
            fb_fill(fb, 0, s == 2 ? 0.0f : 1.0f);
            float *capture = calloc((size_t)width * height * CAP_SIZE, sizeof *capture);
            test_uniforms u = {.use_matrix = true,
                               .matrix = sr_mat4_perspective(1.1f, (float)width / height, 0.1f, 20.0f),
                               .varying_count = 3,
                               .world_varyings = true,
                               .color = {0.3f, 0.6f, 0.9f, 0.7f},
                               .capture = capture,
                               .capture_width = width};
            sr_program program = program_for(&u);
            program.uses_barycentrics = true;
            draw(renderer, fb, sphere, sphere_count, sphere_indices, sphere_index_count, &program, states[s], 0);
            sr_raster_stats stats = sr_renderer_stats(renderer);
            if (c == 0) {
                if (reference)
                    fb_delete(reference);
                reference = fb;
                reference_stats = stats;
                cr_assert_gt(stats.fragments_written, 1000, "state %d", s);
                cr_assert_gt(stats.triangles_clipped, 0, "state %d", s);
            } else {
                size_t pixels = (size_t)width * height;
                cr_assert(memcmp(fb->color, reference->color, pixels * sizeof *fb->color) == 0, "state %d threads %d",
                          s, thread_counts[c]);
                cr_assert(memcmp(fb->depth, reference->depth, pixels * sizeof *fb->depth) == 0, "state %d threads %d",
                          s, thread_counts[c]);
                cr_assert(memcmp(fb->ids, reference->ids, pixels * sizeof *fb->ids) == 0, "state %d threads %d", s,
                          thread_counts[c]);
                cr_assert(memcmp(&stats, &reference_stats, sizeof stats) == 0,
                          "state %d threads %d: statistics differ (rasterized %llu vs %llu, culled %llu vs %llu)", s,
                          thread_counts[c], (unsigned long long)stats.triangles_rasterized,
                          (unsigned long long)reference_stats.triangles_rasterized,
                          (unsigned long long)stats.triangles_culled,
                          (unsigned long long)reference_stats.triangles_culled);
                fb_delete(fb);
            }
            free(capture);
            sr_renderer_destroy(renderer);
        }
    fb_delete(reference);
    free(sphere);
    free(sphere_indices);
}

/* Uniforms of counting_vertex_fn: test_uniforms first (test_vertex_fn and test_fragment_fn read
 * them), then a call counter per vertex. Each vertex must be transformed by one thread exactly
 * once, so the counters need no atomics (a second call from another thread would be a data race
 * that ThreadSanitizer reports, and a count of 2 here). */
typedef struct counting_uniforms {
    test_uniforms base;
    const test_vertex *first;
    int *calls;
} counting_uniforms;

static void counting_vertex_fn(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const counting_uniforms *u = uniforms;
    test_vertex_fn(vertex, uniforms, clip, varyings);
    u->calls[(const test_vertex *)vertex - u->first]++;
}

/* The multi-threaded draw sorts triangles into units of rows and hands the units out. On a
 * framebuffer too tall for SR_BAND_HEIGHT-row units (over 64 of them), with triangles skipped for
 * bad indices and NaN positions, rejected, clipped, and vertices no triangle references, every
 * thread count must give the single-threaded image and statistics; the statistics must count
 * the bad triangles built here, and each referenced vertex (found by scanning the indices) must
 * be transformed exactly once, the others never. Indexed and non-indexed draws. */
Test(raster, threads_match_on_a_tall_framebuffer_with_bad_triangles)
{
    const int width = 45, height = 2700;
    test_vertex *vertices;
    uint32_t *sphere_indices;
    size_t sphere_count;
    size_t sphere_index_count = make_sphere(0.0, 0.05, -3.0, 1.25, 37, 29, &vertices, &sphere_indices, &sphere_count);
    // Extra vertices: 3 crossing the near plane, 1 with a NaN position, 5 never referenced.
    const size_t extra = 9;
    vertices = realloc(vertices, (sphere_count + extra) * sizeof *vertices);
    cr_assert(vertices);
    const test_vertex near_crossing[3] = {
        {{-0.5f, -1.5f, 1.0f, 1}, {0}}, {{0.5f, -0.5f, -4.0f, 1}, {0}}, {{0.0f, 1.5f, -1.0f, 1}, {0}}};
    for (size_t k = 0; k < extra; k++)
        vertices[sphere_count + k] = k < 3 ? near_crossing[k] : (test_vertex){{0.1f * (float)k, 0.2f, -2.0f, 1}, {0}};
    const uint32_t near_first = (uint32_t)sphere_count, nan_vertex = (uint32_t)sphere_count + 3;
    vertices[nan_vertex].position[1] = NAN;
    const size_t vertex_count = sphere_count + extra;
    // The sphere's triangles with, every 50th, a bad one inserted: out-of-range index, NaN vertex
    // or the near-crossing triangle (clipped); and one behind the camera (rejected).
    size_t capacity = sphere_index_count * 2 + 64;
    uint32_t *indices = malloc(capacity * sizeof *indices);
    cr_assert(indices);
    size_t count = 0, out_of_range = 0, with_nan = 0;
    for (size_t t = 0; t < sphere_index_count / 3; t++) {
        memcpy(indices + count, sphere_indices + 3 * t, 3 * sizeof *indices);
        count += 3;
        if (t % 50 == 7) {
            uint32_t bad[3][3] = {
                {0, (uint32_t)(vertex_count + t), 1}, {2, nan_vertex, 3}, {near_first, near_first + 1, near_first + 2}};
            memcpy(indices + count, bad[(t / 50) % 3], 3 * sizeof *indices);
            out_of_range += (t / 50) % 3 == 0;
            with_nan += (t / 50) % 3 == 1;
            count += 3;
        }
    }
    cr_assert_gt(out_of_range, 0);
    cr_assert_gt(with_nan, 0);
    // Referenced vertices, by brute force (an out-of-range index references nothing).
    bool *referenced = calloc(vertex_count, sizeof *referenced);
    for (size_t i = 0; i < count; i++)
        if (indices[i] < vertex_count)
            referenced[indices[i]] = true;
    cr_assert(!referenced[vertex_count - 1], "the last vertices stay unreferenced");

    const int thread_counts[4] = {1, 2, 3, 7};
    for (int indexed = 1; indexed >= 0; indexed--) {
        // Non-indexed: the sphere's triangles written out (no bad ones), minus a partial tail.
        test_vertex *flat = NULL;
        size_t flat_count = sphere_index_count;
        if (!indexed) {
            flat = malloc(flat_count * sizeof *flat);
            cr_assert(flat);
            for (size_t i = 0; i < flat_count; i++)
                flat[i] = vertices[sphere_indices[i]];
        }
        sr_framebuffer *reference = NULL;
        sr_raster_stats reference_stats = {0};
        for (int c = 0; c < 4; c++) {
            sr_renderer *renderer = NULL;
            sr_error err;
            cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = thread_counts[c]}, &renderer, &err), SR_OK,
                         "%s", err.message);
            sr_framebuffer *fb = fb_new(width, height, true);
            int *calls = calloc(indexed ? vertex_count : flat_count, sizeof *calls);
            counting_uniforms u = {
                .base = {.use_matrix = true,
                         .matrix = sr_mat4_perspective(1.1f, (float)width / height * 40.0f, 0.1f, 20.0f),
                         .varying_count = 3,
                         .world_varyings = true,
                         .color = {0.2f, 0.7f, 0.4f, 0.6f}},
                .first = indexed ? vertices : flat,
                .calls = calls,
            };
            sr_program program = program_for(&u.base);
            program.vertex = counting_vertex_fn;
            program.uniforms = &u;
            // Two draws into one image: the second blends over the first (generic per-pixel path).
            draw(renderer, fb, u.first, indexed ? vertex_count : flat_count, indexed ? indices : NULL,
                 indexed ? count : flat_count - 2 * 3, &program, (sr_render_state){0}, 0);
            draw(renderer, fb, u.first, indexed ? vertex_count : flat_count, indexed ? indices : NULL,
                 indexed ? count : flat_count - 2 * 3, &program,
                 (sr_render_state){.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_LESS_EQUAL}, 1000000);
            for (size_t v = 0; v < (indexed ? vertex_count : flat_count - 6); v++)
                cr_assert_eq(calls[v], indexed && !referenced[v] ? 0 : 2,
                             "indexed %d threads %d: vertex %zu transformed %d times in 2 draws", indexed,
                             thread_counts[c], v, calls[v]);
            free(calls);
            sr_raster_stats stats = sr_renderer_stats(renderer);
            if (c == 0) {
                reference = fb;
                reference_stats = stats;
                cr_assert_gt(stats.fragments_written, 20000, "indexed %d", indexed);
                cr_assert_eq(stats.triangles_skipped, indexed ? 2 * (out_of_range + with_nan) : 0);
                if (indexed)
                    cr_assert_gt(stats.triangles_clipped, 0);
                // Rows drawn: the image must reach far beyond 64 bands of 32 rows.
                int last_row = 0;
                for (int i = 0; i < width * height; i++)
                    last_row = fb->ids[i] != SR_NO_ID ? i / width : last_row;
                cr_assert_gt(last_row, 64 * 32, "indexed %d: last drawn row %d", indexed, last_row);
            } else {
                size_t pixels = (size_t)width * height;
                cr_assert(memcmp(fb->color, reference->color, pixels * sizeof *fb->color) == 0, "threads %d",
                          thread_counts[c]);
                cr_assert(memcmp(fb->depth, reference->depth, pixels * sizeof *fb->depth) == 0, "threads %d",
                          thread_counts[c]);
                cr_assert(memcmp(fb->ids, reference->ids, pixels * sizeof *fb->ids) == 0, "threads %d",
                          thread_counts[c]);
                cr_assert(memcmp(&stats, &reference_stats, sizeof stats) == 0,
                          "indexed %d threads %d: statistics differ", indexed, thread_counts[c]);
                fb_delete(fb);
            }
            sr_renderer_destroy(renderer);
        }
        fb_delete(reference);
        free(flat);
    }
    free(referenced);
    free(indices);
    free(sphere_indices);
    free(vertices);
}

/* The largest programs: SR_MAX_VARYINGS varyings plus barycentrics, through clipping. Varying i
 * is the linear function (i + 1) x - i y + 0.5 z of the world position, so it is checked against
 * the analytic ray hit. */
typedef struct wide_vertex {
    float position[3];
} wide_vertex;

static void wide_vertex_fn(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const wide_vertex *v = vertex;
    const sr_mat4 *m = uniforms;
    sr_vec4 c = sr_mat4_mul_vec4(*m, (sr_vec4){v->position[0], v->position[1], v->position[2], 1.0f});
    clip[0] = c.x;
    clip[1] = c.y;
    clip[2] = c.z;
    clip[3] = c.w;
    for (int i = 0; i < SR_MAX_VARYINGS; i++)
        varyings[i] = (float)(i + 1) * v->position[0] - (float)i * v->position[1] + 0.5f * v->position[2];
}

typedef struct wide_uniforms {
    sr_mat4 matrix; ///< first: wide_vertex_fn reads the uniforms as an sr_mat4
    int width;
    float *values; ///< SR_MAX_VARYINGS + 3 per pixel, then a hit counter
} wide_uniforms;

static bool wide_fragment_fn(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    (void)out;
    const wide_uniforms *capture = uniforms;
    float *c = capture->values + ((size_t)in->y * (size_t)capture->width + (size_t)in->x) * (SR_MAX_VARYINGS + 4);
    for (int i = 0; i < SR_MAX_VARYINGS; i++)
        c[i] = in->varyings[i];
    for (int k = 0; k < 3; k++)
        c[SR_MAX_VARYINGS + k] = in->barycentric[k];
    c[SR_MAX_VARYINGS + 3] += 1.0f;
    return true;
}

Test(raster, maximum_varyings_with_barycentrics_through_clipping)
{
    const int size = 48;
    camera cam = {tan(35.0 * SR_PI / 180.0), 1.0, 0.1, 50.0, size, size};
    sr_framebuffer *fb = fb_new(size, size, false);
    sr_renderer *renderer = renderer_new();
    wide_uniforms uniforms = {sr_mat4_perspective((float)(70.0 * SR_PI / 180.0), 1.0f, 0.1f, 50.0f), size,
                              calloc((size_t)size * size * (SR_MAX_VARYINGS + 4), sizeof(float))};
    const float positions[3][3] = {{-2.0f, -1.0f, -3.0f}, {2.0f, -1.5f, -4.0f}, {0.5f, 1.0f, 2.0f}};
    wide_vertex v[3];
    memcpy(v, positions, sizeof v);
    sr_program program = {.name = "wide",
                          .vertex = wide_vertex_fn,
                          .fragment = wide_fragment_fn,
                          .varying_count = SR_MAX_VARYINGS,
                          .uniforms = &uniforms,
                          .uses_barycentrics = true,
                          .vertex_size = sizeof(wide_vertex)};
    sr_error err;
    sr_draw_desc desc = {.vertices = v, .vertex_count = 3, .vertex_stride = sizeof *v, .program = &program};
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_renderer_stats(renderer).triangles_clipped, 1);
    const float *p[3] = {positions[0], positions[1], positions[2]};
    int checked = 0;
    for (int py = 0; py < size; py++)
        for (int px = 0; px < size; px++) {
            double t = 0.0, w[3] = {0.0, 0.0, 0.0};
            const float *c = uniforms.values + ((size_t)py * size + (size_t)px) * (SR_MAX_VARYINGS + 4);
            if (visible_hit(&cam, px, py, p, &t, w) != 1)
                continue;
            cr_assert_eq(c[SR_MAX_VARYINGS + 3], 1.0f, "pixel (%d, %d)", px, py);
            double d[3];
            pixel_ray(&cam, px, py, d);
            double x = d[0] * t, y = d[1] * t, z = d[2] * t;
            for (int i = 0; i < SR_MAX_VARYINGS; i++) {
                double expected = (i + 1) * x - i * y + 0.5 * z;
                cr_assert(fabs(c[i] - expected) <= 2e-3 * (1.0 + fabs(expected)), "pixel (%d, %d) varying %d: %g vs %g",
                          px, py, i, c[i], expected);
            }
            for (int k = 0; k < 3; k++)
                cr_assert(fabs(c[SR_MAX_VARYINGS + k] - w[k]) < 1e-3, "pixel (%d, %d) weight %d", px, py, k);
            checked++;
        }
    cr_assert_gt(checked, 100);
    free(uniforms.values);
    sr_renderer_destroy(renderer);
    fb_delete(fb);
}
