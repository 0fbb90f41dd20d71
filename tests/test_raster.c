/* tests/test_raster.c — the triangle and line pipeline (src/raster/pipeline.c, clip.c,
 * triangle.c, line.c), checked against independent computations: brute-force pixel-centre tests
 * with the fill rule written differently, ray casts through pixel centres in double precision,
 * analytic plane intersections and hand-computed blending. Framebuffers are built by hand so
 * that these tests do not depend on framebuffer.c. This file: the fill rule, watertightness and
 * clipping; the program test_raster also holds test_raster_state.c (render state, lines),
 * test_raster_input.c (bad input) and test_raster_tiles.c (statistics, tiles, threads); their
 * helpers are in raster_test_helpers.h. */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"
#include "raster_reference.h"

#include "raster_test_helpers.h"

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
