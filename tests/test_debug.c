/* test_debug.c — debug draw lists (src/debug/debug_list.c, debug_draw.c): capacity and overflow
 * counting, every shape's segments against its analytic definition, and drawing: projected
 * points on the pixels they should light, depth-tested lines hidden behind and shown in front of
 * a triangle drawn by the pipeline, markers, rectangles, thread counts. */
#include <criterion/criterion.h>
#include <softrast/debug.h>
#include <softrast/shaders.h>

#include "../src/debug/debug_internal.h"

#include <string.h>

static sr_debug_list *new_list(size_t segments)
{
    sr_debug_list *list = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.segment_capacity = segments}, &list, &err), SR_OK, "%s",
                 err.message);
    return list;
}

/* A world segment as the list's items are drawn with. */
typedef struct segment {
    sr_vec3 a, b;
} segment;

/* The segments the list's items are tessellated into (sr_debug_draw's first step), in order, in
 * *out (NULL or an earlier result, freed here; free the last one); a 320 x 200 view for the
 * screen-sized items. */
static size_t segments_of(const sr_debug_list *list, segment **out)
{
    free(*out);
    size_t count = 0, total = 0;
    const sr_debug_item *items = sr_debug_list_items(list, &count);
    for (size_t i = 0; i < count; i++)
        total += sr_debug_item_cost(&items[i]).segments;
    sr_line_vertex *vertices = malloc((2 * total + 1) * sizeof *vertices);
    sr_line_vertex *triangles = malloc((3 * sr_debug_list_get_stats(list).triangles + 1) * sizeof *triangles);
    debug_sink sink = {.segments = vertices, .triangles = triangles};
    const debug_view view = {.view_projection = sr_mat4_identity(), .width = 320, .height = 200};
    for (size_t i = 0; i < count; i++) {
        size_t before = sink.segment_count;
        sr_debug_tessellate(&items[i], sr_debug_list_item_points(list, &items[i]), &view, &sink);
        cr_assert_leq(sink.segment_count - before, sr_debug_item_cost(&items[i]).segments, "item %zu", i);
    }
    *out = malloc((sink.segment_count + 1) * sizeof **out);
    for (size_t i = 0; i < sink.segment_count; i++)
        (*out)[i] = (segment){vertices[2 * i].position, vertices[2 * i + 1].position};
    free(vertices);
    free(triangles);
    return sink.segment_count;
}

Test(debug_list, capacity_drops_and_counts_then_grows_between_frames)
{
    sr_debug_list *list = new_list(10);
    for (int i = 0; i < 25; i++)
        sr_debug_line(list, sr_vec3_make(0, 0, 0), sr_vec3_make((float)i, 1, 0), (sr_debug_style){.color = SR_DEBUG_WHITE});
    sr_debug_list_stats stats = sr_debug_list_get_stats(list);
    cr_assert_eq(stats.segments, 10u);
    cr_assert_eq(stats.segments_dropped, 15u);
    // The items kept are the first ten, in order.
    for (int i = 0; i < 10; i++)
        cr_assert_eq(sr_debug_list_items(list, NULL)[i].line.b.x, (float)i);
    cr_assert_eq(sr_debug_list_clear(list, NULL), SR_OK);
    stats = sr_debug_list_get_stats(list);
    cr_assert_eq(stats.segments, 0u);
    cr_assert_geq(stats.segment_capacity, 25u, "clear grew the list to the demand");
    for (int i = 0; i < 25; i++)
        sr_debug_line(list, sr_vec3_make(0, 0, 0), sr_vec3_make((float)i, 1, 0), (sr_debug_style){.color = SR_DEBUG_WHITE});
    cr_assert_eq(sr_debug_list_get_stats(list).segments_dropped, 0u);
    // Text: the same rule for items and bytes.
    sr_debug_list *small = NULL;
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.text_capacity = 2, .text_bytes = 8}, &small, NULL), SR_OK);
    sr_debug_text_2d(small, 0, 0, "abc", (sr_debug_style){.color = SR_DEBUG_WHITE});
    sr_debug_text_2d(small, 0, 0, "defghij", (sr_debug_style){.color = SR_DEBUG_WHITE}); // 8 bytes: does not fit after 4
    sr_debug_text_2d(small, 0, 0, "k", (sr_debug_style){.color = SR_DEBUG_WHITE});
    stats = sr_debug_list_get_stats(small);
    cr_assert_eq(stats.texts, 2u);
    cr_assert_eq(stats.texts_dropped, 1u);
    cr_assert_str_eq(sr_debug_list_item_text(small, &sr_debug_list_items(small, NULL)[1]), "k");
    sr_debug_list_destroy(small);
    sr_debug_list_destroy(list);
}

Test(debug_list, generation_changes_with_every_addition_and_clear)
{
    sr_debug_list *list = new_list(2);
    cr_assert_eq(sr_debug_list_generation(list), 0u, "a new list");
    cr_assert_eq(sr_debug_list_generation(NULL), 0u);
    uint64_t last = sr_debug_list_generation(list);
    // Every kind of addition moves it, a dropped one too (the list's stats changed).
    for (int i = 0; i < 4; i++) {
        sr_debug_line(list, sr_vec3_make(0, 0, 0), sr_vec3_make(1, 0, 0), (sr_debug_style){.color = SR_DEBUG_WHITE});
        cr_assert_gt(sr_debug_list_generation(list), last, "line %d", i);
        last = sr_debug_list_generation(list);
    }
    sr_debug_text(list, sr_vec3_make(0, 0, 0), "x", (sr_debug_style){.color = SR_DEBUG_WHITE});
    cr_assert_gt(sr_debug_list_generation(list), last);
    last = sr_debug_list_generation(list);
    // Reading does not.
    (void)sr_debug_list_get_stats(list);
    cr_assert_eq(sr_debug_list_generation(list), last);
    // A clear and a refill with the very same items: a different generation each time, so a
    // viewer comparing (pointer, generation) draws the refilled list again.
    for (int frame = 0; frame < 3; frame++) {
        cr_assert_eq(sr_debug_list_clear(list, NULL), SR_OK);
        cr_assert_gt(sr_debug_list_generation(list), last, "clear of frame %d", frame);
        last = sr_debug_list_generation(list);
        sr_debug_line(list, sr_vec3_make(0, 0, 0), sr_vec3_make(1, 0, 0), (sr_debug_style){.color = SR_DEBUG_WHITE});
        cr_assert_gt(sr_debug_list_generation(list), last);
        last = sr_debug_list_generation(list);
    }
    sr_debug_list_destroy(list);
}

/* Every end point of every segment is at distance `radius` from `centre` (within `tolerance`). */
static void expect_on_sphere(const segment *segments, size_t from, size_t to, sr_vec3 centre, float radius)
{
    for (size_t i = from; i < to; i++) {
        const segment *item = &segments[i];
        float da = sr_vec3_length(sr_vec3_sub(item->a, centre)), db = sr_vec3_length(sr_vec3_sub(item->b, centre));
        cr_assert(fabsf(da - radius) < 1e-5f * radius && fabsf(db - radius) < 1e-5f * radius, "segment %zu: %g %g", i,
                  (double)da, (double)db);
    }
}

Test(debug_list, shapes_are_their_analytic_definitions)
{
    sr_debug_list *list = new_list(4096);
    segment *items = NULL;
    // Sphere: three great circles of 32 segments, every point at the radius, each circle a
    // closed polyline (each segment starts where the previous ended, the last ends at the first).
    sr_vec3 centre = {1, -2, 3};
    sr_debug_sphere(list, centre, 2.5f, (sr_debug_style){.color = SR_DEBUG_WHITE});
    cr_assert_eq(segments_of(list, &items), 96u);
    expect_on_sphere(items, 0, 96, centre, 2.5f);
    for (int circle = 0; circle < 3; circle++) {
        for (int k = 1; k < 32; k++)
            cr_assert(memcmp(&items[circle * 32 + k].a, &items[circle * 32 + k - 1].b, sizeof(sr_vec3)) == 0);
        cr_assert(memcmp(&items[circle * 32 + 31].b, &items[circle * 32].a, sizeof(sr_vec3)) == 0, "closed");
    }
    sr_debug_list_clear(list, NULL);
    // Box: 12 edges, each of one axis, between the box's corners.
    sr_aabb box = {{-1, 2, -3}, {4, 5, 6}};
    sr_debug_aabb(list, box, (sr_debug_style){.color = SR_DEBUG_WHITE});
    cr_assert_eq(segments_of(list, &items), 12u);
    int per_axis[3] = {0};
    for (int i = 0; i < 12; i++) {
        sr_vec3 d = sr_vec3_sub(items[i].b, items[i].a);
        int axis = d.x != 0 ? 0 : d.y != 0 ? 1 : 2;
        per_axis[axis]++;
        const float e[3] = {5, 3, 9};
        cr_assert_float_eq(fabsf(sr_vec3_get(d, axis)), e[axis], 0.0f);
        cr_assert((d.x != 0) + (d.y != 0) + (d.z != 0) == 1, "edge %d is along one axis", i);
        cr_assert(sr_aabb_contains_point(box, items[i].a) && sr_aabb_contains_point(box, items[i].b));
    }
    cr_assert(per_axis[0] == 4 && per_axis[1] == 4 && per_axis[2] == 4);
    sr_debug_list_clear(list, NULL);
    // Cylinder, capsule, cone: every point on the analytic surface.
    sr_vec3 a = {0, 0, 0}, b = {0, 3, 0};
    sr_debug_cylinder(list, a, b, 0.5f, (sr_debug_style){.color = SR_DEBUG_WHITE});
    size_t n = segments_of(list, &items);
    for (size_t i = 0; i < n; i++) {
        const sr_vec3 points[2] = {items[i].a, items[i].b};
        for (int e = 0; e < 2; e++) {
            float radial = sqrtf(points[e].x * points[e].x + points[e].z * points[e].z);
            cr_assert(fabsf(radial - 0.5f) < 1e-5f && points[e].y >= -1e-6f && points[e].y <= 3 + 1e-6f);
        }
    }
    sr_debug_list_clear(list, NULL);
    sr_debug_capsule(list, a, b, 0.5f, (sr_debug_style){.color = SR_DEBUG_WHITE});
    n = segments_of(list, &items);
    for (size_t i = 0; i < n; i++) {
        const sr_vec3 points[2] = {items[i].a, items[i].b};
        for (int e = 0; e < 2; e++) {
            // Distance to the segment a-b is the radius.
            float y = fminf(fmaxf(points[e].y, 0.0f), 3.0f);
            float distance = sr_vec3_length(sr_vec3_sub(points[e], sr_vec3_make(0, y, 0)));
            cr_assert(fabsf(distance - 0.5f) < 1e-5f, "capsule point at %g from the axis", (double)distance);
        }
    }
    sr_debug_list_clear(list, NULL);
    sr_debug_cone(list, sr_vec3_make(0, 2, 0), sr_vec3_make(0, 0, 0), 1.0f, (sr_debug_style){.color = SR_DEBUG_WHITE});
    n = segments_of(list, &items);
    for (size_t i = 0; i < n; i++) {
        const sr_vec3 points[2] = {items[i].a, items[i].b};
        for (int e = 0; e < 2; e++) {
            // On the cone: radius 1 - y / 2 at height y.
            float radial = sqrtf(points[e].x * points[e].x + points[e].z * points[e].z);
            cr_assert(fabsf(radial - (1.0f - points[e].y / 2.0f)) < 1e-5f);
        }
    }
    sr_debug_list_clear(list, NULL);
    // Arrow: the shaft and four barbs ending at the head, a sixth of the length back, at 20 degrees.
    sr_vec3 from = {1, 1, 1}, to = {1, 7, 1};
    sr_debug_arrow(list, from, to, (sr_debug_style){.color = SR_DEBUG_WHITE});
    cr_assert_eq(segments_of(list, &items), 5u);
    for (int i = 1; i < 5; i++) {
        cr_assert(memcmp(&items[i].a, &to, sizeof to) == 0);
        sr_vec3 barb = sr_vec3_sub(items[i].b, to);
        cr_assert_float_eq(barb.y, -1.0f, 1e-5f);
        float across = sqrtf(barb.x * barb.x + barb.z * barb.z);
        cr_assert_float_eq(atanf(across / 1.0f), 20.0f * SR_PI / 180.0f, 1e-4f);
    }
    sr_debug_list_clear(list, NULL);
    // Frustum: its corners project back onto the clip cube's corners.
    sr_camera camera = {.eye = {2, 1, 5}, .target = {0, 0, 0}, .fov_y_degrees = 60, .near_z = 0.5f, .far_z = 20};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, 320, 200, &view, &projection);
    sr_mat4 vp = sr_mat4_mul(projection, view);
    sr_debug_frustum(list, vp, (sr_debug_style){.color = SR_DEBUG_WHITE});
    n = segments_of(list, &items);
    cr_assert_eq(n, 12u);
    for (size_t i = 0; i < n; i++) {
        const sr_vec3 points[2] = {items[i].a, items[i].b};
        for (int e = 0; e < 2; e++) {
            sr_vec3 ndc = sr_mat4_transform_point_projective(vp, points[e]);
            cr_assert(fabsf(fabsf(ndc.x) - 1) < 1e-3f && fabsf(fabsf(ndc.y) - 1) < 1e-3f &&
                          (fabsf(ndc.z) < 1e-3f || fabsf(ndc.z - 1) < 1e-3f),
                      "corner projects to (%g %g %g)", (double)ndc.x, (double)ndc.y, (double)ndc.z);
        }
    }
    sr_debug_list_clear(list, NULL);
    // Grid: 2 (divisions + 1) lines in the plane y = centre.y.
    sr_debug_grid(list, sr_vec3_make(0, 1.5f, 0), 10.0f, 10, (sr_debug_style){.color = SR_DEBUG_WHITE});
    n = segments_of(list, &items);
    cr_assert_eq(n, 22u);
    for (size_t i = 0; i < n; i++)
        cr_assert(items[i].a.y == 1.5f && items[i].b.y == 1.5f);
    free(items);
    sr_debug_list_destroy(list);
}

/* ---- drawing ---- */

typedef struct target {
    sr_framebuffer *fb;
    sr_renderer *renderer;
    sr_mat4 vp;
} target;

static target make_target(int width, int height, int threads)
{
    target t;
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height}, &t.fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &t.renderer, NULL), SR_OK);
    sr_framebuffer_clear(t.fb, sr_rgba8(0, 0, 0, 1), 1.0f);
    sr_camera camera = {.eye = {0, 2, 6}, .target = {0, 0, 0}};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, width, height, &view, &projection);
    t.vp = sr_mat4_mul(projection, view);
    return t;
}

static void free_target(target *t)
{
    sr_framebuffer_destroy(t->fb);
    sr_renderer_destroy(t->renderer);
}

static bool project(const target *t, sr_vec3 p, int *x, int *y, float *z)
{
    sr_vec4 c = sr_mat4_mul_vec4(t->vp, sr_vec4_from_vec3(p, 1.0f));
    if (c.w <= 0)
        return false;
    *x = (int)floorf((c.x / c.w + 1) * 0.5f * (float)t->fb->width);
    *y = (int)floorf((1 - c.y / c.w) * 0.5f * (float)t->fb->height);
    *z = c.z / c.w;
    return *x >= 0 && *y >= 0 && *x < t->fb->width && *y < t->fb->height;
}

Test(debug_draw, box_corners_light_their_pixels)
{
    target t = make_target(200, 150, 1);
    sr_debug_list *list = new_list(0);
    sr_aabb box = {{-1, -0.5f, -1}, {1.2f, 0.8f, 0.6f}};
    const uint32_t color = sr_rgba8(0.2f, 1.0f, 0.4f, 1.0f);
    sr_debug_aabb(list, box, (sr_debug_style){.color = color, .on_top = true});
    cr_assert_eq(sr_debug_draw(list, t.renderer, t.fb, t.vp, NULL), SR_OK);
    for (int corner = 0; corner < 8; corner++) {
        sr_vec3 p = {corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                     corner & 4 ? box.max.z : box.min.z};
        int x, y;
        float z;
        cr_assert(project(&t, p, &x, &y, &z));
        cr_assert_eq(t.fb->color[y * 200 + x], color, "corner %d at (%d, %d)", corner, x, y);
    }
    // Nothing else than the line colour and the background.
    for (int p = 0; p < 200 * 150; p++)
        cr_assert(t.fb->color[p] == color || t.fb->color[p] == sr_rgba8(0, 0, 0, 1));
    sr_debug_list_destroy(list);
    free_target(&t);
}

Test(debug_draw, depth_tested_lines_hide_behind_a_triangle_and_show_in_front)
{
    target t = make_target(160, 120, 1);
    // A big triangle in the plane z = 0 facing the camera, drawn by the pipeline with flat.
    sr_shader_vertex v[3] = {{.position = {-3, -3, 0}}, {.position = {3, -3, 0}}, {.position = {0, 3, 0}}};
    sr_shader_uniforms uniforms = sr_shader_uniforms_default();
    sr_camera camera = {.eye = {0, 2, 6}, .target = {0, 0, 0}};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, 160, 120, &view, &projection);
    sr_shader_uniforms_set_transforms(&uniforms, sr_mat4_identity(), view, projection);
    uniforms.albedo = sr_vec3_make(0.5f, 0.5f, 0.5f);
    sr_program program = sr_shader_program(&sr_shader_flat, &uniforms);
    cr_assert_eq(sr_draw_triangles(t.renderer, t.fb,
                                   &(sr_draw_desc){.vertices = v,
                                                   .vertex_count = 3,
                                                   .vertex_stride = sizeof(sr_shader_vertex),
                                                   .program = &program},
                                   NULL),
                 SR_OK);
    uint32_t grey = t.fb->color[60 * 160 + 80];
    sr_debug_list *list = new_list(0);
    const uint32_t behind_color = sr_rgba8(1, 0, 0, 1), front_color = sr_rgba8(0, 0, 1, 1),
                   on_color = sr_rgba8(0, 1, 0, 1);
    sr_debug_line(list, sr_vec3_make(-1, 0.5f, -0.5f), sr_vec3_make(1, 0.5f, -0.5f),
                  (sr_debug_style){.color = behind_color});
    sr_debug_line(list, sr_vec3_make(-1, -0.5f, 0.5f), sr_vec3_make(1, -0.5f, 0.5f),
                  (sr_debug_style){.color = front_color});
    sr_debug_line(list, sr_vec3_make(-1, 0.0f, 0.0f), sr_vec3_make(1, 0.0f, 0.0f), (sr_debug_style){.color = on_color});
    cr_assert_eq(sr_debug_draw(list, t.renderer, t.fb, t.vp, NULL), SR_OK);
    int behind = 0, front = 0, on = 0;
    for (int p = 0; p < 160 * 120; p++) {
        behind += t.fb->color[p] == behind_color;
        front += t.fb->color[p] == front_color;
        on += t.fb->color[p] == on_color;
    }
    cr_assert_eq(behind, 0, "the line behind the triangle is hidden");
    cr_assert_gt(front, 20);
    // The line lying on the triangle shows entirely: as many pixels as without depth test.
    target bare = make_target(160, 120, 1);
    sr_debug_list *alone = new_list(0);
    sr_debug_line(alone, sr_vec3_make(-1, 0.0f, 0.0f), sr_vec3_make(1, 0.0f, 0.0f),
                  (sr_debug_style){.color = on_color, .on_top = true});
    cr_assert_eq(sr_debug_draw(alone, bare.renderer, bare.fb, bare.vp, NULL), SR_OK);
    int expected = 0;
    for (int p = 0; p < 160 * 120; p++)
        expected += bare.fb->color[p] == on_color;
    cr_assert_eq(on, expected, "%d of %d pixels of the line on the surface show", on, expected);
    cr_assert_eq(t.fb->color[60 * 160 + 80] == grey || t.fb->color[60 * 160 + 80] == on_color, true);
    sr_debug_list_destroy(list);
    sr_debug_list_destroy(alone);
    free_target(&t);
    free_target(&bare);
}

Test(debug_draw, markers_rectangles_and_threads)
{
    target t = make_target(200, 150, 1);
    sr_debug_list *list = new_list(0);
    const uint32_t color = sr_rgba8(1, 0, 1, 1);
    sr_vec3 point = {0.3f, 0.4f, -0.2f};
    sr_debug_point(list, point, 10.0f, (sr_debug_style){.color = color, .on_top = true});
    sr_debug_rect_2d(list, 10, 20, 30, 5, true, (sr_debug_style){.color = sr_rgba8(1, 1, 0, 1)});
    cr_assert_eq(sr_debug_draw(list, t.renderer, t.fb, t.vp, NULL), SR_OK);
    int x, y;
    float z;
    cr_assert(project(&t, point, &x, &y, &z));
    cr_assert_eq(t.fb->color[y * 200 + x], color, "the marker's centre is at the projection (%d, %d)", x, y);
    // The cross spans 10 pixels: its pixels lie within 6 of the centre, some at 4 or more.
    int far_enough = 0;
    for (int p = 0; p < 200 * 150; p++)
        if (t.fb->color[p] == color) {
            int dx = p % 200 - x, dy = p / 200 - y;
            cr_assert(abs(dx) <= 6 && abs(dy) <= 6, "marker pixel (%d, %d) too far", dx, dy);
            far_enough += abs(dx) >= 4 && abs(dy) >= 4;
        }
    cr_assert_geq(far_enough, 4, "all four arms reach out");
    // The filled rectangle covers exactly the pixels whose centres are inside it.
    for (int py = 15; py < 30; py++)
        for (int px = 5; px < 45; px++) {
            bool inside = px >= 10 && px < 40 && py >= 20 && py < 25;
            cr_assert_eq(t.fb->color[py * 200 + px] == sr_rgba8(1, 1, 0, 1), inside, "(%d, %d)", px, py);
        }
    sr_debug_list_destroy(list);
    free_target(&t);
    // Many shapes on 1, 2 and 3 threads: the same image.
    uint32_t *reference = NULL;
    for (int threads = 1; threads <= 3; threads++) {
        target u = make_target(240, 160, threads);
        sr_debug_list *many = new_list(0);
        for (int i = 0; i < 60; i++) {
            sr_vec3 c = {(float)(i % 10) * 0.5f - 2.2f, (float)(i / 10) * 0.4f - 1.0f, (float)(i % 7) * 0.2f - 0.5f};
            sr_debug_sphere(many, c, 0.2f + 0.01f * (float)i,
                            (sr_debug_style){.color = sr_rgba8(0.5f, (float)i / 60.0f, 1, 0.6f), .width = 1 + i % 3});
        }
        cr_assert_eq(sr_debug_draw(many, u.renderer, u.fb, u.vp, NULL), SR_OK);
        if (!reference) {
            reference = malloc(240 * 160 * 4);
            memcpy(reference, u.fb->color, 240 * 160 * 4);
        } else {
            cr_assert(memcmp(reference, u.fb->color, 240 * 160 * 4) == 0, "%d threads", threads);
        }
        sr_debug_list_destroy(many);
        free_target(&u);
    }
    free(reference);
}

/* The viewer's use of the overlays: a pick already made is drawn exactly as a pick made at the
 * same point, and hud_text lines are added to the HUD. */
Test(overlay, a_given_pick_draws_as_the_pick_at_its_point_and_hud_text_is_appended)
{
    sr_scene *scene = NULL;
    cr_assert_eq(sr_scene_create_demo(&scene, NULL), SR_OK);
    sr_scene_frame *frame = NULL;
    sr_renderer *renderer = NULL;
    sr_framebuffer *fbs[2] = {NULL, NULL};
    cr_assert_eq(sr_scene_frame_create(&frame, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(NULL, &renderer, NULL), SR_OK);
    sr_camera camera = sr_scene_camera(scene);
    sr_pick_hit hit;
    cr_assert_eq(sr_scene_pick(scene, &camera, 160, 90, 80.5f, 52.5f, &hit, NULL), SR_OK);
    cr_assert(hit.hit);
    size_t texts[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = 160, .height = 90}, &fbs[k], NULL), SR_OK);
        cr_assert_eq(sr_scene_render(scene, NULL, renderer, fbs[k], frame, NULL), SR_OK);
        sr_overlay_desc desc = {.items = SR_OVERLAY_PICK | SR_OVERLAY_HUD,
                                .pick_x = 80.5f,
                                .pick_y = 52.5f,
                                .frame_ms = 1.0,
                                .pick_hit = k ? &hit : NULL,
                                .hud_text = k ? "viewer line" : NULL};
        sr_debug_list *list = new_list(0);
        cr_assert_eq(sr_overlay_add(scene, frame, &camera, 160, 90, &desc, list, NULL), SR_OK);
        texts[k] = sr_debug_list_get_stats(list).text_bytes;
        if (k == 1) // the HUD without the extra line, to compare the pictures
            desc.hud_text = NULL;
        cr_assert_eq(sr_debug_list_clear(list, NULL), SR_OK);
        cr_assert_eq(sr_overlay_add(scene, frame, &camera, 160, 90, &desc, list, NULL), SR_OK);
        sr_mat4 view, projection;
        sr_camera_matrices(&camera, 160, 90, &view, &projection);
        cr_assert_eq(sr_debug_draw(list, renderer, fbs[k], sr_mat4_mul(projection, view), NULL), SR_OK);
        sr_debug_list_destroy(list);
    }
    cr_assert_eq(texts[1], texts[0] + strlen("\nviewer line"), "%zu %zu", texts[0], texts[1]);
    cr_assert_eq(memcmp(fbs[0]->color, fbs[1]->color, 160 * 90 * 4), 0, "the given pick draws as the pick there");
    // A pick from elsewhere is drawn as given, not picked again at (pick_x, pick_y).
    sr_pick_hit other;
    cr_assert_eq(sr_scene_pick(scene, &camera, 160, 90, 30.5f, 60.5f, &other, NULL), SR_OK);
    sr_overlay_desc desc = {.items = SR_OVERLAY_PICK, .pick_x = 80.5f, .pick_y = 52.5f, .pick_hit = &other};
    sr_debug_list *list = new_list(0);
    cr_assert_eq(sr_overlay_add(scene, frame, &camera, 160, 90, &desc, list, NULL), SR_OK);
    sr_debug_list *at_point = new_list(0);
    desc.pick_hit = NULL;
    cr_assert_eq(sr_overlay_add(scene, frame, &camera, 160, 90, &desc, at_point, NULL), SR_OK);
    segment *a = NULL, *b = NULL;
    size_t na = segments_of(list, &a), nb = segments_of(at_point, &b);
    cr_assert(na != nb || memcmp(a, b, na * sizeof *a) != 0, "another hit, other segments");
    free(a);
    free(b);
    sr_debug_list_destroy(list);
    sr_debug_list_destroy(at_point);
    for (int k = 0; k < 2; k++)
        sr_framebuffer_destroy(fbs[k]);
    sr_renderer_destroy(renderer);
    sr_scene_frame_destroy(frame);
    sr_scene_destroy(scene);
}

Test(debug_draw, lines_on_a_surface_seen_at_an_angle_all_show)
{
    // A ground quad y = 0 drawn by the pipeline, seen from (0, 2, 6): wire-like lines lying on it
    // are depth-tested and must show entirely (the bias), lines just under it not at all.
    target t = make_target(200, 150, 1);
    sr_shader_vertex v[4] = {
        {.position = {-4, 0, -4}}, {.position = {-4, 0, 4}}, {.position = {4, 0, 4}}, {.position = {4, 0, -4}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    sr_shader_uniforms uniforms = sr_shader_uniforms_default();
    sr_camera camera = {.eye = {0, 2, 6}, .target = {0, 0, 0}};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, 200, 150, &view, &projection);
    sr_shader_uniforms_set_transforms(&uniforms, sr_mat4_identity(), view, projection);
    uniforms.albedo = sr_vec3_make(0.5f, 0.5f, 0.5f);
    sr_program program = sr_shader_program(&sr_shader_flat, &uniforms);
    cr_assert_eq(sr_draw_triangles(t.renderer, t.fb,
                                   &(sr_draw_desc){.vertices = v,
                                                   .vertex_count = 4,
                                                   .vertex_stride = sizeof(sr_shader_vertex),
                                                   .indices = indices,
                                                   .index_count = 6,
                                                   .program = &program},
                                   NULL),
                 SR_OK);
    const uint32_t on_color = sr_rgba8(0, 1, 0, 1), under_color = sr_rgba8(1, 0, 0, 1);
    int expected = 0, shown = 0, under = 0;
    for (int pass = 0; pass < 2; pass++) {
        target bare = make_target(200, 150, 1);
        sr_debug_list *list = new_list(0);
        for (int k = -3; k <= 3; k++) {
            sr_debug_line(list, sr_vec3_make(-3, 0, (float)k), sr_vec3_make(3, 0, (float)k),
                          (sr_debug_style){.color = on_color, .on_top = pass == 0});
            sr_debug_line(list, sr_vec3_make((float)k, 0, -3), sr_vec3_make((float)k, 0, 3),
                          (sr_debug_style){.color = on_color, .on_top = pass == 0});
            if (pass == 1)
                sr_debug_line(list, sr_vec3_make(-3, -0.1f, (float)k + 0.5f), sr_vec3_make(3, -0.1f, (float)k + 0.5f),
                              (sr_debug_style){.color = under_color});
        }
        target *into = pass == 0 ? &bare : &t;
        cr_assert_eq(sr_debug_draw(list, into->renderer, into->fb, into->vp, NULL), SR_OK);
        for (int p = 0; p < 200 * 150; p++) {
            if (pass == 0)
                expected += into->fb->color[p] == on_color;
            else {
                shown += into->fb->color[p] == on_color;
                under += into->fb->color[p] == under_color;
            }
        }
        sr_debug_list_destroy(list);
        free_target(&bare);
    }
    cr_assert_gt(expected, 500);
    cr_assert_eq(shown, expected, "%d of %d pixels of lines on the ground show", shown, expected);
    cr_assert_eq(under, 0, "lines under the ground are hidden");
    free_target(&t);
}

/* Colour rules (issue 25, point 10): a colour means what it says. Every kind of item drawn with a
 * fully transparent colour (0, sr_rgba8(0, 0, 0, 0), or any colour of alpha 0) and with a zeroed
 * style leaves the frame as it was, text's outline included; the same items in white do not. */
Test(debug_draw, transparent_colours_and_zeroed_styles_draw_nothing)
{
    const uint32_t transparent[3] = {0u, sr_rgba8(0, 0, 0, 0), sr_rgba8(1, 0.5f, 0.2f, 0)};
    for (int k = 0; k < 4; k++) {
        target t = make_target(160, 120, 1);
        sr_framebuffer_clear(t.fb, sr_rgba8(0.2f, 0.3f, 0.4f, 1), 1.0f);
        uint32_t *before = malloc(160 * 120 * 4);
        memcpy(before, t.fb->color, 160 * 120 * 4);
        // k = 3: the very same calls in white, which must change the frame.
        sr_debug_style style = k < 3 ? sr_debug_style_make(transparent[k], 2, false) : sr_debug_style_color(SR_DEBUG_WHITE);
        uint32_t fill = k < 3 ? transparent[k] : SR_DEBUG_WHITE;
        sr_debug_list *list = new_list(0);
        sr_vec3 o = {0, 0, 0}, x = {1, 0, 0}, y = {0, 1, 0};
        const sr_vec3 square[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
        sr_debug_line(list, o, x, style);
        sr_debug_line_gradient(list, o, y, style, fill);
        sr_debug_arrow(list, o, y, style);
        sr_debug_point(list, o, 10, style);
        sr_debug_dot(list, x, 10, style);
        sr_debug_aabb(list, (sr_aabb){{-1, -1, -1}, {1, 1, 1}}, style);
        sr_debug_sphere(list, o, 1, style);
        sr_debug_sphere_oriented(list, o, sr_quat_identity(), 0.5f, style);
        sr_debug_capsule(list, o, y, 0.3f, style);
        sr_debug_circle_filled(list, o, y, 1, fill, style);
        sr_debug_triangle_filled(list, o, x, y, fill, style);
        sr_debug_polygon_filled(list, square, 4, fill, style);
        sr_debug_polyline(list, square, 4, false, style);
        sr_debug_grid(list, o, 4, 4, style);
        sr_debug_text(list, o, "text", style);
        sr_debug_text_2d(list, 5, 5, "2d", style);
        sr_debug_rect_2d(list, 10, 10, 20, 20, true, style);
        sr_debug_rect_2d(list, 40, 10, 20, 20, false, style);
        cr_assert_eq(sr_debug_draw(list, t.renderer, t.fb, t.vp, NULL), SR_OK);
        cr_assert_eq(memcmp(before, t.fb->color, 160 * 120 * 4) == 0, k < 3, "colour %d (%08x)", k,
                     k < 3 ? transparent[k] : SR_DEBUG_WHITE);
        sr_debug_list_destroy(list);
        free(before);
        free_target(&t);
    }
    // A zeroed style is fully transparent too.
    target t = make_target(160, 120, 1);
    uint32_t *before = malloc(160 * 120 * 4);
    memcpy(before, t.fb->color, 160 * 120 * 4);
    sr_debug_list *list = new_list(0);
    sr_debug_style zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    sr_debug_line(list, sr_vec3_make(0, 0, 0), sr_vec3_make(1, 1, 0), zeroed);
    sr_debug_text(list, sr_vec3_make(0, 0, 0), "zero", zeroed);
    cr_assert_eq(sr_debug_list_get_stats(list).items, 2u, "kept (a recorder sees them), drawn as nothing");
    cr_assert_eq(sr_debug_draw(list, t.renderer, t.fb, t.vp, NULL), SR_OK);
    cr_assert(memcmp(before, t.fb->color, 160 * 120 * 4) == 0);
    sr_debug_list_destroy(list);
    free(before);
    free_target(&t);
}

/* on_top means the same for text as for lines: a depth-tested label (the zeroed on_top) whose
 * anchor is behind a surface is hidden, an on-top one shows; both show where nothing hides
 * their anchor. */
Test(debug_draw, text_follows_on_top_like_every_item)
{
    target t = make_target(160, 120, 1);
    // An opaque quad in the plane z = 0 covering the middle of the frame, drawn by the pipeline.
    sr_shader_vertex v[4] = {{.position = {-1, -1, 0}}, {.position = {1, -1, 0}}, {.position = {1, 1, 0}},
                             {.position = {-1, 1, 0}}};
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    sr_shader_uniforms uniforms = sr_shader_uniforms_default();
    sr_camera camera = {.eye = {0, 2, 6}, .target = {0, 0, 0}};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, 160, 120, &view, &projection);
    sr_shader_uniforms_set_transforms(&uniforms, sr_mat4_identity(), view, projection);
    sr_program program = sr_shader_program(&sr_shader_flat, &uniforms);
    cr_assert_eq(sr_draw_triangles(t.renderer, t.fb,
                                   &(sr_draw_desc){.vertices = v,
                                                   .vertex_count = 4,
                                                   .vertex_stride = sizeof(sr_shader_vertex),
                                                   .indices = indices,
                                                   .index_count = 6,
                                                   .program = &program},
                                   NULL),
                 SR_OK);
    const uint32_t red = sr_rgba8(1, 0, 0, 1), green = sr_rgba8(0, 1, 0, 1);
    int counts[4];
    for (int k = 0; k < 4; k++) {
        // k 0, 1: behind the quad (z = -0.5), depth-tested then on top; k 2, 3: beside it.
        sr_vec3 anchor = k < 2 ? sr_vec3_make(-0.3f, 0.0f, -0.5f) : sr_vec3_make(-2.3f, 1.5f, -0.5f);
        target u = make_target(160, 120, 1);
        memcpy(u.fb->color, t.fb->color, 160 * 120 * 4);
        memcpy(u.fb->depth, t.fb->depth, 160 * 120 * 4);
        sr_debug_list *list = new_list(0);
        sr_debug_text(list, anchor, "XX", sr_debug_style_make(k % 2 ? green : red, 1, k % 2 == 1));
        cr_assert_eq(sr_debug_draw(list, u.renderer, u.fb, u.vp, NULL), SR_OK);
        counts[k] = 0;
        for (int p = 0; p < 160 * 120; p++)
            counts[k] += u.fb->color[p] == (k % 2 ? green : red);
        sr_debug_list_destroy(list);
        free_target(&u);
    }
    cr_assert_eq(counts[0], 0, "a depth-tested label behind the quad is hidden");
    cr_assert_gt(counts[1], 10, "an on-top label behind the quad shows");
    cr_assert_gt(counts[2], 10, "a depth-tested label with nothing in front shows");
    cr_assert_eq(counts[2], counts[3], "as many pixels as on top");
    free_target(&t);
}
