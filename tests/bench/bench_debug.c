/* bench_debug.c — the debug draw list's two costs: filling it (what a physics step's debug
 * drawer spends per item) and drawing it over a 1280 x 720 frame (sr_debug_draw: tessellation
 * and the lines' rasterisation). Never run by `meson test`.
 *
 *   build/tests/bench/bench_debug [--runs N] [--threads N]
 *
 * Three workloads, each filled and drawn `runs` times (medians):
 *   lines:  20,000 random segments of 1 to 3 pixels width, a quarter on top (a Bullet world's
 *           btIDebugDraw::drawLine stream);
 *   shapes: 400 spheres, 400 boxes, 200 capsules, 200 arrows (a pile of bodies drawn as shapes);
 *   text:   500 world-anchored labels;
 *   fills:  a Box2D-like pile: 600 solid polygons (6 corners), 300 solid circles with their axis
 *           lines and 400 contact dots, translucent fills under opaque outlines.
 * Fill times are per item (ns), draw times per frame (ms). Prints one JSON line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <softrast/debug.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A small deterministic generator (xorshift32): the same workload on every run and build. */
static float next_float(uint32_t *state, float lo, float hi)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return lo + (hi - lo) * (float)(x >> 8) / 16777216.0f;
}

static sr_vec3 next_point(uint32_t *state)
{
    float x = next_float(state, -4, 4), y = next_float(state, 0, 3), z = next_float(state, -4, 4);
    return sr_vec3_make(x, y, z);
}

static sr_debug_style style_of(uint32_t *state, int i)
{
    sr_debug_style style = {0};
    style.color = sr_rgba8(next_float(state, 0.2f, 1), next_float(state, 0.2f, 1), next_float(state, 0.2f, 1),
                           i % 5 == 0 ? 0.5f : 1.0f);
    style.width = 1 + i % 3;
    style.on_top = i % 4 == 0;
    return style;
}

enum { LINES, SHAPES, TEXT, FILLS, WORKLOADS };
static const char *const names[WORKLOADS] = {"lines", "shapes", "text", "fills"};

/* Fills `list` with workload `w`; returns the number of items asked for. */
static size_t fill(sr_debug_list *list, int w)
{
    uint32_t state = 12345u;
    size_t items = 0;
    if (w == LINES) {
        for (int i = 0; i < 20000; i++, items++) {
            sr_vec3 a = next_point(&state);
            sr_vec3 b = sr_vec3_add(a, sr_vec3_make(next_float(&state, -1, 1), next_float(&state, -1, 1),
                                                    next_float(&state, -1, 1)));
            sr_debug_line(list, a, b, style_of(&state, i));
        }
    } else if (w == SHAPES) {
        for (int i = 0; i < 400; i++, items += 2) {
            sr_vec3 c = next_point(&state);
            sr_debug_sphere(list, c, next_float(&state, 0.1f, 0.5f), style_of(&state, i));
            sr_vec3 half = sr_vec3_make(next_float(&state, 0.1f, 0.4f), next_float(&state, 0.1f, 0.4f),
                                        next_float(&state, 0.1f, 0.4f));
            sr_mat4 pose = sr_mat4_mul(sr_mat4_translation(next_point(&state)),
                                       sr_mat4_rotation(sr_vec3_make(0.3f, 1, 0.2f), next_float(&state, 0, 6)));
            sr_debug_box(list, (sr_aabb){sr_vec3_negate(half), half}, pose, style_of(&state, i));
        }
        for (int i = 0; i < 200; i++, items += 2) {
            sr_vec3 a = next_point(&state);
            sr_debug_capsule(list, a, sr_vec3_add(a, sr_vec3_make(0, next_float(&state, 0.2f, 1), 0.1f)),
                             next_float(&state, 0.1f, 0.3f), style_of(&state, i));
            sr_debug_arrow(list, a, next_point(&state), style_of(&state, i));
        }
    } else if (w == TEXT) {
        for (int i = 0; i < 500; i++, items++)
            sr_debug_text(list, next_point(&state), "contact 12", style_of(&state, i));
    } else {
        for (int i = 0; i < 600; i++, items++) {
            sr_vec3 c = next_point(&state), corners[6];
            float r = next_float(&state, 0.1f, 0.4f), turn = next_float(&state, 0, 6);
            for (int k = 0; k < 6; k++)
                corners[k] = sr_vec3_add(c, sr_vec3_make(r * cosf(turn + 1.047f * (float)k),
                                                         r * sinf(turn + 1.047f * (float)k), 0.0f));
            sr_debug_style s = style_of(&state, i);
            sr_debug_polygon_filled(list, corners, 6, sr_debug_color_alpha(s.color, 0.5f), s);
        }
        for (int i = 0; i < 300; i++, items += 2) {
            sr_vec3 c = next_point(&state);
            float r = next_float(&state, 0.1f, 0.4f);
            sr_debug_style s = style_of(&state, i);
            sr_debug_circle_filled(list, c, sr_vec3_make(0, 0, 1), r, sr_debug_color_alpha(s.color, 0.5f), s);
            sr_debug_line(list, c, sr_vec3_add(c, sr_vec3_make(r, 0, 0)), s);
        }
        for (int i = 0; i < 400; i++, items++)
            sr_debug_dot(list, next_point(&state), 6.0f, style_of(&state, i));
    }
    return items;
}

int main(int argc, char **argv)
{
    long runs = 11, threads = 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = strtol(argv[++i], NULL, 10);
        else
            runs = 0, i = argc;
    }
    if (runs < 1 || runs > 1000 || threads < 1 || threads > SR_MAX_THREADS) {
        fprintf(stderr, "usage: bench_debug [--runs N] [--threads N]\n");
        return 2;
    }
    sr_error err = {0};
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    sr_debug_list *list = NULL;
    if (sr_framebuffer_create(&(sr_framebuffer_desc){.width = 1280, .height = 720}, &fb, &err) != SR_OK ||
        sr_renderer_create(&(sr_renderer_desc){.threads = (int)threads}, &renderer, &err) != SR_OK ||
        sr_debug_list_create(NULL, &list, &err) != SR_OK) {
        fprintf(stderr, "bench_debug: %s\n", err.message);
        return 1;
    }
    sr_camera camera = {.eye = {0, 5, 11}, .target = {0, 1, 0}};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, 1280, 720, &view, &projection);
    sr_mat4 view_projection = sr_mat4_mul(projection, view);
    double *fill_ns = calloc((size_t)runs, sizeof *fill_ns), *draw_ms = calloc((size_t)runs, sizeof *draw_ms);
    if (!fill_ns || !draw_ms)
        return 1;
    printf("{\"threads\": %ld, \"runs\": %ld", threads, runs);
    for (int w = 0; w < WORKLOADS; w++) {
        // A first fill grows the list to the workload (sr_debug_list_clear), untimed.
        fill(list, w);
        sr_debug_list_clear(list, NULL);
        size_t items = 0;
        for (long r = 0; r < runs; r++) {
            sr_debug_list_clear(list, NULL);
            double start = wall_seconds();
            items = fill(list, w);
            fill_ns[r] = (wall_seconds() - start) * 1e9 / (double)items;
            sr_renderer_clear(renderer, fb, sr_rgba8(0.1f, 0.1f, 0.12f, 1), 1.0f);
            start = wall_seconds();
            if (sr_debug_draw(list, renderer, fb, view_projection, &err) != SR_OK) {
                fprintf(stderr, "bench_debug: %s\n", err.message);
                return 1;
            }
            draw_ms[r] = (wall_seconds() - start) * 1e3;
        }
        qsort(fill_ns, (size_t)runs, sizeof *fill_ns, compare_doubles);
        qsort(draw_ms, (size_t)runs, sizeof *draw_ms, compare_doubles);
        sr_debug_list_stats stats = sr_debug_list_get_stats(list);
        printf(", \"%s\": {\"items\": %zu, \"segments\": %zu, \"triangles\": %zu, \"fill_ns_per_item\": %.1f, "
               "\"draw_ms\": %.3f}",
               names[w], items, stats.segments, stats.triangles, fill_ns[runs / 2], draw_ms[runs / 2]);
    }
    printf("}\n");
    free(fill_ns);
    free(draw_ms);
    sr_debug_list_destroy(list);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    return 0;
}
