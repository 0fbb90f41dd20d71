/* test_debug_list.c — the debug list's storage (src/debug/debug_list.c, debug_items.c): every
 * kind of item read back as its parameters and replayed (sr_debug_list_items,
 * sr_debug_list_append) to the same items and pixels, the capacities of points and triangles
 * (dropped, counted, grown between frames), lists sharing a draw scratch, and wild arguments of
 * every kind, which must never crash nor write depth or ids. (test_debug.c has the list's first
 * tests: capacity of segments and texts, the generation counter, the shapes' segments.) */
#include <criterion/criterion.h>
#include <softrast/debug.h>

#include "../src/debug/debug_internal.h"
#include "debug_test_frame.h"

#include <stdlib.h>
#include <string.h>

/* ---- reading and replaying the items ---- */

/* One item of every kind, to a list. */
static void fill_every_kind(sr_debug_list *list)
{
    sr_debug_style style = sr_debug_style_make(sr_rgba8(0.9f, 0.8f, 0.3f, 0.9f), 2, false);
    const sr_vec3 points[5] = {{-1, 0, 0}, {-0.5f, 0.8f, 0.2f}, {0, 1, 0}, {0.6f, 0.6f, -0.2f}, {0.8f, 0, 0}};
    sr_debug_line(list, sr_vec3_make(-2, 0, 0), sr_vec3_make(2, 0.1f, 0), style);
    sr_debug_line_gradient(list, sr_vec3_make(-2, 1, 0), sr_vec3_make(2, 1.2f, -1), style, SR_DEBUG_BLUE);
    sr_debug_arrow(list, sr_vec3_make(0, 0, 0), sr_vec3_make(0.5f, 1.5f, 0), style);
    sr_debug_point(list, sr_vec3_make(0.4f, 0.4f, 0.4f), 9, style);
    sr_debug_dot(list, sr_vec3_make(-0.4f, 0.4f, 0.4f), 7, style);
    sr_debug_box(list, (sr_aabb){{-0.3f, -0.2f, -0.1f}, {0.3f, 0.2f, 0.1f}}, sr_mat4_rotation(sr_vec3_make(1, 1, 0), 0.4f),
                 style);
    sr_debug_sphere(list, sr_vec3_make(1, 0.5f, 0), 0.4f, style);
    sr_debug_sphere_oriented(list, sr_vec3_make(-1, 0.5f, 0), sr_quat_from_axis_angle(sr_vec3_make(0, 0, 1), 0.5f),
                             0.4f, style);
    sr_debug_capsule(list, sr_vec3_make(0, -0.5f, 1), sr_vec3_make(0.5f, 0.2f, 1), 0.2f, style);
    sr_debug_cylinder(list, sr_vec3_make(-1, -0.5f, 1), sr_vec3_make(-1, 0.2f, 1), 0.2f, style);
    sr_debug_cone(list, sr_vec3_make(1.5f, 0.5f, 1), sr_vec3_make(1.5f, -0.3f, 1), 0.3f, style);
    sr_debug_circle_filled(list, sr_vec3_make(0, 0.3f, -1), sr_vec3_make(0, 0, 1), 0.5f, SR_DEBUG_GREEN & 0x80ffffffu,
                           style);
    sr_camera camera = {.eye = {2, 2, 2}, .target = {0, 0, 0}, .near_z = 0.5f, .far_z = 3.0f};
    sr_debug_camera_frustum(list, &camera, 40, 30, style);
    sr_debug_axes(list, sr_mat4_translation(sr_vec3_make(0.5f, -0.5f, 0)), 0.4f, style);
    sr_debug_grid(list, sr_vec3_make(0, -0.6f, 0), 4, 8, style);
    sr_debug_triangle_filled(list, points[0], points[2], points[4], SR_DEBUG_RED & 0x60ffffffu, style);
    sr_debug_polyline(list, points, 5, false, style);
    sr_debug_polygon_filled(list, points, 5, SR_DEBUG_MAGENTA & 0x50ffffffu, sr_debug_style_make(SR_DEBUG_WHITE, 1, true));
    sr_debug_text(list, sr_vec3_make(0, 1.6f, 0), "label", style);
    sr_debug_text_2d(list, 4, 4, "2d text", style);
    sr_debug_rect_2d(list, 4, 20, 40, 12, true, style);
    sr_debug_rect_2d(list, 4, 40, 40, 12, false, style);
    sr_shape box = sr_shape_with_pose(
        sr_shape_box(sr_dvec3_make(0.3, 0.2, 0.1)),
        sr_pose_make(sr_dvec3_make(-1, 1, 0), sr_dquat_from_axis_angle(sr_dvec3_make(0, 1, 0), 0.3)));
    sr_debug_shape(list, &box, style);
}

Test(debug_items, every_kind_reads_back_and_replays_to_the_same_items_and_pixels)
{
    sr_debug_list *list = list_make(), *copy = list_make();
    fill_every_kind(list);
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(list, &count);
    cr_assert_eq(count, 23u);
    bool seen[SR_DEBUG_ITEM_KIND_COUNT] = {0};
    for (size_t i = 0; i < count; i++) {
        seen[items[i].kind] = true;
        sr_debug_list_append(copy, &items[i], sr_debug_list_item_points(list, &items[i]),
                             sr_debug_list_item_text(list, &items[i]));
    }
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++)
        cr_assert(seen[k], "kind %d", k);
    // The parameters, not segments: a sphere is its centre and radius, a polyline its points.
    cr_assert_eq(items[6].kind, SR_DEBUG_ITEM_SPHERE);
    cr_assert(items[6].sphere.centre.x == 1 && items[6].sphere.radius == 0.4f);
    cr_assert_eq(items[16].kind, SR_DEBUG_ITEM_POLYLINE);
    cr_assert_eq(items[16].polyline.count, 5u);
    cr_assert_eq(sr_debug_list_item_points(list, &items[16])[3].x, 0.6f);
    cr_assert_str_eq(sr_debug_list_item_text(list, &items[18]), "label");
    cr_assert_null(sr_debug_list_item_text(list, &items[6]));
    cr_assert_null(sr_debug_list_item_points(list, &items[6]));
    // The copy holds the same items, byte for byte (the offsets too: same order), and counts.
    size_t copied = 0;
    const sr_debug_item *again = sr_debug_list_items(copy, &copied);
    cr_assert_eq(copied, count);
    cr_assert(memcmp(items, again, count * sizeof *items) == 0);
    sr_debug_list_stats a = sr_debug_list_get_stats(list), b = sr_debug_list_get_stats(copy);
    cr_assert(memcmp(&a, &b, sizeof a) == 0);
    cr_assert_eq(a.segments,
                 1 + 1 + 5 + 2 + 0 + 12 + 96 + 101 + 132 + 68 + 36 + 32 + 12 + 15 + 18 + 3 + 4 + 5 + 4 + 12);
    cr_assert_eq(a.triangles, 32u + 1 + 3);
    cr_assert_eq(a.points, 10u);
    // And draws the same pixels.
    frame f = frame_make(1, false), g = frame_make(1, false);
    draw(&f, list);
    draw(&g, copy);
    cr_assert(memcmp(f.fb->color, g.fb->color, W * H * 4) == 0);
    frame_free(&f);
    frame_free(&g);
    sr_debug_list_destroy(list);
    sr_debug_list_destroy(copy);
}

Test(debug_items, points_and_triangles_past_the_capacity_are_dropped_counted_and_grown)
{
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.point_capacity = 16, .triangle_capacity = 8}, &list, NULL),
                 SR_OK);
    sr_vec3 ring[40];
    for (int i = 0; i < 40; i++)
        ring[i] = sr_vec3_make(cosf((float)i * 0.157f), sinf((float)i * 0.157f), 0);
    sr_debug_polyline(list, ring, 10, false, sr_debug_style_color(SR_DEBUG_WHITE));                           // kept
    sr_debug_polyline(list, ring, 10, false, sr_debug_style_color(SR_DEBUG_WHITE));                           // no points
    sr_debug_circle_filled(list, ring[0], sr_vec3_make(0, 0, 1), 1, SR_DEBUG_RED, sr_debug_style_color(0));    // 32 tri
    sr_debug_triangle_filled(list, ring[0], ring[1], ring[2], SR_DEBUG_RED, sr_debug_style_color(0));          // kept
    sr_debug_polygon_filled(list, ring, 40, SR_DEBUG_RED, sr_debug_style_color(SR_DEBUG_WHITE));              // both
    sr_debug_list_stats stats = sr_debug_list_get_stats(list);
    cr_assert_eq(stats.items, 2u);
    cr_assert_eq(stats.items_dropped, 3u);
    cr_assert_eq(stats.points, 10u);
    cr_assert_eq(stats.triangles, 1u);
    cr_assert_eq(stats.segments_dropped, 9u + 32 + 40);
    cr_assert_eq(sr_debug_list_clear(list, NULL), SR_OK);
    stats = sr_debug_list_get_stats(list);
    cr_assert_geq(stats.point_capacity, 60u);
    cr_assert_geq(stats.triangle_capacity, 1u + 32 + 38);
    sr_debug_polyline(list, ring, 10, false, sr_debug_style_color(SR_DEBUG_WHITE));
    sr_debug_polyline(list, ring, 10, false, sr_debug_style_color(SR_DEBUG_WHITE));
    sr_debug_circle_filled(list, ring[0], sr_vec3_make(0, 0, 1), 1, SR_DEBUG_RED, sr_debug_style_color(0));
    sr_debug_triangle_filled(list, ring[0], ring[1], ring[2], SR_DEBUG_RED, sr_debug_style_color(0));
    sr_debug_polygon_filled(list, ring, 40, SR_DEBUG_RED, sr_debug_style_color(SR_DEBUG_WHITE));
    cr_assert_eq(sr_debug_list_get_stats(list).items_dropped, 0u);
    // Degenerate input adds nothing: fewer than 3 points for a polygon, NULL points, negative radii.
    sr_debug_polygon_filled(list, ring, 2, SR_DEBUG_RED, sr_debug_style_color(SR_DEBUG_WHITE));
    sr_debug_polyline(list, NULL, 4, true, sr_debug_style_color(SR_DEBUG_WHITE));
    sr_debug_circle(list, ring[0], ring[1], -1.0f, sr_debug_style_color(SR_DEBUG_WHITE));
    sr_debug_sphere_oriented(list, ring[0], sr_quat_identity(), NAN, sr_debug_style_color(SR_DEBUG_WHITE));
    cr_assert_eq(sr_debug_list_get_stats(list).items, 5u);
    sr_debug_list_destroy(list);
}

/* ---- the draw scratch ---- */

/* The memory a list's own scratch holds for its capacities: two line vertices a segment, three a
 * triangle. */
static size_t own_scratch_bytes(const sr_debug_list *list)
{
    sr_debug_list_stats s = sr_debug_list_get_stats(list);
    return (2 * s.segment_capacity + 3 * s.triangle_capacity) * sizeof(sr_line_vertex);
}

/* Lists made with a shared scratch hold only their items (the scratch grows to the largest list's
 * capacities) and draw the very pixels of a list with its own, whatever list the scratch drew
 * before; a list made with its memory touched draws the same too. */
Test(debug_items, lists_sharing_a_scratch_hold_only_their_items_and_draw_the_same_pixels)
{
    sr_debug_scratch *shared = NULL;
    cr_assert_eq(sr_debug_scratch_create(&shared, NULL), SR_OK);
    cr_assert_eq(sr_debug_scratch_bytes(shared), 0u);
    sr_debug_list *own = list_make(), *a = NULL, *b = NULL, *touched = NULL;
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.scratch = shared}, &a, NULL), SR_OK);
    cr_assert_eq(
        sr_debug_list_create(&(sr_debug_list_desc){.segment_capacity = 64, .triangle_capacity = 8, .scratch = shared},
                             &b, NULL),
        SR_OK);
    cr_assert_eq(sr_debug_list_create(&(sr_debug_list_desc){.touch_memory = true}, &touched, NULL), SR_OK);
    cr_assert_eq(sr_debug_list_get_stats(own).scratch_bytes, own_scratch_bytes(own));
    cr_assert_eq(sr_debug_list_get_stats(a).scratch_bytes, 0u);
    cr_assert_eq(sr_debug_list_get_stats(b).scratch_bytes, 0u);
    // The default capacities' scratch, once: the smaller list made after took nothing more.
    cr_assert_eq(sr_debug_scratch_bytes(shared), own_scratch_bytes(own));
    fill_every_kind(own);
    fill_every_kind(a);
    fill_every_kind(touched);
    // b: spheres past its capacity, grown at the clear, which grows the shared scratch.
    for (int pass = 0; pass < 2; pass++) {
        sr_debug_list_clear(b, NULL);
        for (int i = 0; i < 300; i++)
            sr_debug_sphere(b, sr_vec3_make((float)(i % 20) * 0.2f - 2.0f, (float)(i / 20) * 0.2f - 1.5f, -1.0f), 0.15f,
                            sr_debug_style_color(SR_DEBUG_CYAN));
    }
    cr_assert_eq(sr_debug_list_get_stats(b).items_dropped, 0u);
    cr_assert_eq(sr_debug_list_get_stats(b).scratch_bytes, 0u);
    cr_assert_geq(sr_debug_scratch_bytes(shared), 2u * 300 * 96 * sizeof(sr_line_vertex));
    frame reference = frame_make(2, false), shared_frame = frame_make(2, false), other = frame_make(2, false),
          touched_frame = frame_make(2, false);
    draw(&reference, own);
    draw(&other, b); // the scratch's every segment written by b's spheres
    draw(&shared_frame, a);
    draw(&touched_frame, touched);
    cr_assert(memcmp(reference.fb->color, shared_frame.fb->color, W * H * 4) == 0);
    cr_assert(memcmp(reference.fb->color, touched_frame.fb->color, W * H * 4) == 0);
    // b drawn again after a: its spheres as an own-scratch list draws them.
    sr_debug_list *b_own = list_make();
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(b, &count);
    for (int pass = 0; pass < 2; pass++) {
        sr_debug_list_clear(b_own, NULL);
        for (size_t i = 0; i < count; i++)
            sr_debug_list_append(b_own, &items[i], NULL, NULL);
    }
    frame again = frame_make(2, false), b_reference = frame_make(2, false);
    draw(&again, b);
    draw(&b_reference, b_own);
    cr_assert(memcmp(again.fb->color, b_reference.fb->color, W * H * 4) == 0);
    cr_assert(memcmp(other.fb->color, b_reference.fb->color, W * H * 4) == 0);
    frame_free(&reference);
    frame_free(&shared_frame);
    frame_free(&other);
    frame_free(&touched_frame);
    frame_free(&again);
    frame_free(&b_reference);
    sr_debug_list_destroy(own);
    sr_debug_list_destroy(a);
    sr_debug_list_destroy(b);
    sr_debug_list_destroy(b_own);
    sr_debug_list_destroy(touched);
    sr_debug_scratch_destroy(shared); // after its lists
    sr_debug_scratch_destroy(NULL);
}

/* ---- bad input ---- */

/* A value a careless caller might pass: ordinary, huge, tiny, zero, negative, NaN, infinite. */
static float wild(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    uint32_t r = *state >> 8;
    switch (r % 9) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return 1e30f;
    case 4: return -1e30f;
    case 5: return 0.0f;
    case 6: return 1e-30f;
    default: return (float)(r % 2001) / 250.0f - 4.0f;
    }
}

static sr_vec3 wild_vec3(uint32_t *state)
{
    float x = wild(state), y = wild(state), z = wild(state);
    return sr_vec3_make(x, y, z);
}

Test(debug_items, wild_arguments_never_crash_nor_write_depth_or_ids)
{
#if defined(__SANITIZE_ADDRESS__)
    const int rounds = 300;
#else
    const int rounds = 2000;
#endif
    frame f = frame_make(2, true);
    sr_debug_list *list = list_make();
    uint32_t state = 7u;
    for (int i = 0; i < rounds; i++) {
        sr_debug_style style = sr_debug_style_make(state | 0xff000000u, (int)(state % 7) - 1, state & 1);
        sr_vec3 p = wild_vec3(&state), q = wild_vec3(&state), r = wild_vec3(&state);
        float s = wild(&state);
        uint32_t fill = state * 2654435761u;
        sr_vec3 points[5] = {p, q, r, wild_vec3(&state), wild_vec3(&state)};
        sr_quat rotation = {wild(&state), wild(&state), wild(&state), wild(&state)};
        sr_mat4 m;
        for (int k = 0; k < 16; k++)
            m.m[k] = wild(&state);
        switch (i % 16) {
        case 0: sr_debug_line_gradient(list, p, q, style, fill); break;
        case 1: sr_debug_dot(list, p, s, style); break;
        case 2: sr_debug_point(list, p, s, style); break;
        case 3: sr_debug_circle_filled(list, p, q, s, fill, style); break;
        case 4: sr_debug_sphere_oriented(list, p, rotation, s, style); break;
        case 5: sr_debug_polygon_filled(list, points, 2 + state % 4, fill, style); break;
        case 6: sr_debug_triangle_filled(list, p, q, r, fill, style); break;
        case 7: sr_debug_box(list, (sr_aabb){p, q}, m, style); break;
        case 8: sr_debug_frustum(list, m, style); break;
        case 9: sr_debug_axes(list, m, s, style); break;
        case 10: sr_debug_grid(list, p, s, (int)(state % 40) - 5, style); break;
        case 11: sr_debug_capsule(list, p, q, s, style); break;
        case 12: sr_debug_cone(list, p, q, s, style); break;
        case 13: sr_debug_text(list, p, "wild", style); break;
        case 14: sr_debug_rect_2d(list, p.x, p.y, q.x, q.y, state & 2, style); break;
        default: sr_debug_arrow(list, p, q, style); break;
        }
        (void)sr_debug_color_alpha(fill, s);
    }
    sr_error err = {0};
    cr_assert_eq(sr_debug_draw(list, f.renderer, f.fb, f.vp, &err), SR_OK, "%s", err.message);
    // Every kept item replays into another list, which draws too.
    sr_debug_list *copy = list_make();
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(list, &count);
    for (size_t i = 0; i < count; i++)
        sr_debug_list_append(copy, &items[i], sr_debug_list_item_points(list, &items[i]),
                             sr_debug_list_item_text(list, &items[i]));
    cr_assert_eq(sr_debug_list_get_stats(copy).items, count);
    cr_assert_eq(sr_debug_draw(copy, f.renderer, f.fb, f.vp, &err), SR_OK, "%s", err.message);
    // An unknown kind is ignored; NULL arguments are no-ops.
    sr_debug_item bogus = items[0];
    bogus.kind = (sr_debug_item_kind)1000;
    sr_debug_list_append(copy, &bogus, NULL, NULL);
    sr_debug_list_append(NULL, &bogus, NULL, NULL);
    sr_debug_list_append(copy, NULL, NULL, NULL);
    sr_debug_dot(NULL, items[0].line.a, 4, items[0].style);
    sr_debug_polygon_filled(copy, NULL, 4, SR_DEBUG_RED, items[0].style);
    cr_assert_eq(sr_debug_list_get_stats(copy).items, count);
    // The ids drawn by nobody stay as they were: debug items never write ids or depth.
    for (int i = 0; i < W * H; i++)
        cr_assert(f.fb->ids[i] == SR_NO_ID && f.fb->depth[i] == 1.0f);
    sr_debug_list_destroy(copy);
    sr_debug_list_destroy(list);
    frame_free(&f);
}
