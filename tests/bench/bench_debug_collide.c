/* bench_debug_collide.c — what showing a query's steps costs per frame (the viewer redraws them on
 * every drag): for a GJK pair (a hull and a box apart), an EPA pair (a cylinder into a box) and a
 * SAT pair (two boxes), the median time of the query with its trace, of sr_debug_collide_trace in
 * the world view and in the Minkowski view (A - B's hull built each time), and of drawing that
 * list into a 1280 x 720 frame. One JSON line per pair; medians of 101 runs in microseconds.
 *   ninja -C build tests/bench/bench_debug_collide && build/tests/bench/bench_debug_collide */
#include <softrast/debug.h>
#include <softrast/raster.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 101

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values)
{
    qsort(values, RUNS, sizeof *values, compare);
    return values[RUNS / 2];
}

static sr_gjk_step gjk[256];
static sr_epa_step epa[256];
static sr_epa_vertex vertices[512];
static sr_epa_face faces[1 << 16];
static sr_sat_axis sat[1024];

static void bench(const char *name, sr_debug_trace_kind kind, const sr_shape *a, const sr_shape *b,
                  sr_renderer *renderer, sr_framebuffer *fb, sr_debug_list *list, sr_mat4 view_projection)
{
    sr_collide_trace trace = {.gjk = gjk, .gjk_capacity = 256, .epa = epa, .epa_capacity = 256,
                              .epa_vertices = vertices, .epa_vertex_capacity = 512, .epa_faces = faces,
                              .epa_face_capacity = 1 << 16, .sat = sat, .sat_capacity = 1024};
    sr_collide_options options = {.trace = &trace};
    double query[RUNS], world[RUNS], minkowski[RUNS], drawing[RUNS];
    sr_collide_result result;
    for (int run = 0; run < RUNS; run++) {
        double t0 = now_us();
        if (kind == SR_DEBUG_TRACE_GJK)
            sr_collide_distance(a, b, &options, &result);
        else if (kind == SR_DEBUG_TRACE_EPA)
            sr_collide_penetration(a, b, &options, &result);
        else
            sr_collide_sat(a, b, &options, &result);
        double t1 = now_us();
        sr_debug_list_clear(list, NULL);
        sr_debug_trace_desc desc = {.kind = kind, .step = -1, .legend = true, .legend_x = 8, .legend_y = 8};
        sr_debug_collide_trace(list, a, b, &trace, &desc, NULL);
        double t2 = now_us();
        sr_debug_list_clear(list, NULL);
        desc.minkowski = true;
        sr_debug_collide_trace(list, a, b, &trace, &desc, NULL);
        double t3 = now_us();
        sr_framebuffer_clear(fb, 0xff202020u, 1.0f);
        sr_debug_draw(list, renderer, fb, view_projection, NULL);
        double t4 = now_us();
        query[run] = t1 - t0;
        world[run] = t2 - t1;
        minkowski[run] = t3 - t2;
        drawing[run] = t4 - t3;
    }
    sr_debug_list_stats stats = sr_debug_list_get_stats(list);
    printf("{\"pair\":\"%s\",\"steps\":%zu,\"query_us\":%.2f,\"trace_world_us\":%.2f,\"trace_minkowski_us\":%.2f,"
           "\"draw_minkowski_1280x720_us\":%.1f,\"segments\":%zu}\n",
           name, sr_debug_trace_step_count(&trace, kind), median(query), median(world), median(minkowski),
           median(drawing), stats.segments);
}

int main(void)
{
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    sr_debug_list *list = NULL;
    if (sr_framebuffer_create(&(sr_framebuffer_desc){.width = 1280, .height = 720}, &fb, NULL) != SR_OK ||
        sr_renderer_create(&(sr_renderer_desc){.threads = 1}, &renderer, NULL) != SR_OK ||
        sr_debug_list_create(NULL, &list, NULL) != SR_OK)
        return 1;
    sr_camera camera = {.eye = {0.5f, 1.5f, 4.0f}, .target = {0, 0.3f, 0}, .up = {0, 1, 0},
                        .fov_y_degrees = 50, .near_z = 0.1f, .far_z = 50};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, 1280, 720, &view, &projection);
    sr_mat4 view_projection = sr_mat4_mul(projection, view);

    sr_dvec3 points[8];
    for (int i = 0; i < 8; i++)
        points[i] = sr_dvec3_make(0.5 * cos(0.9 * i) * cos(1.3 * i), 0.45 * sin(1.3 * i), 0.5 * sin(0.9 * i));
    sr_hull *hull = NULL;
    if (sr_hull_create(points, 8, &hull, NULL) != SR_OK)
        return 1;
    sr_dquat turn = sr_dquat_from_axis_angle(sr_dvec3_make(0.3, 1, 0.2), 0.7);
    sr_shape rock = sr_shape_with_pose(sr_shape_hull(hull), sr_pose_make(sr_dvec3_make(-0.6, 0.3, 0), turn));
    sr_shape box = sr_shape_with_pose(sr_shape_box(sr_dvec3_make(0.25, 0.3, 0.2)),
                                      sr_pose_make(sr_dvec3_make(0.45, 0.5, -0.1), turn));
    sr_shape drum = sr_shape_with_pose(sr_shape_cylinder(0.4, 0.3), sr_pose_make(sr_dvec3_make(0, 0.2, 0), turn));
    sr_shape block = sr_shape_with_pose(sr_shape_box(sr_dvec3_make(0.3, 0.25, 0.3)),
                                        sr_pose_make(sr_dvec3_make(0.35, 0.45, 0.1), sr_dquat_from_axis_angle(
                                                                                         sr_dvec3_make(0.2, 1, 0.4), 0.6)));
    sr_shape left = sr_shape_with_pose(sr_shape_box(sr_dvec3_make(0.5, 0.4, 0.45)),
                                       sr_pose_make(sr_dvec3_make(-0.45, 0, 0), turn));
    bench("hull-box gjk", SR_DEBUG_TRACE_GJK, &rock, &box, renderer, fb, list, view_projection);
    bench("cylinder-box epa", SR_DEBUG_TRACE_EPA, &drum, &block, renderer, fb, list, view_projection);
    bench("box-box sat", SR_DEBUG_TRACE_SAT, &left, &block, renderer, fb, list, view_projection);
    sr_hull_destroy(hull);
    sr_debug_list_destroy(list);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    return 0;
}
