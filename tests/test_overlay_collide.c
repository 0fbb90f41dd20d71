/* test_overlay_collide.c — the collision overlays (src/debug/overlay_collide.c): contacts, closest
 * and pairs drawn where an independent projection (tests/debug_projection.h) of the pass's own
 * numbers puts them, in the documented colours; the contact arrow's length; the labels beside
 * their points; the HUD's lines about the pass; sr_debug_contact; nothing without a pass. */
#include <criterion/criterion.h>
#include <softrast/debug.h>
#include <softrast/scene.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "debug_projection.h"

#define W 480
#define H 360
static const uint32_t BACKGROUND = 0xff000000u;

/* Three spheres seen from +z: A (r 1) at the origin and B (r 1) at x = 1.5 overlap by 0.5; C
 * (r 0.5) at y = 1.8 is 0.3 above A (near, margin 0.5); B and C are candidates found apart. */
typedef struct fixture {
    sr_scene *scene;
    sr_scene_frame *frame;
    sr_collision *collision;
    sr_framebuffer *fb;
    sr_renderer *renderer;
    sr_camera camera;
    test_view view;
    sr_node_id a, b, c;
} fixture;

static sr_node_id add_ball(sr_scene *scene, float x, float y, double radius)
{
    sr_transform t = sr_transform_identity();
    t.translation = sr_vec3_make(x, y, 0);
    sr_node_shape_desc shape = {.shape = sr_shape_sphere(radius), .draw = SR_SHAPE_DRAW_NONE};
    sr_node_id id;
    sr_error err = {0};
    cr_assert_eq(sr_scene_add_node(scene, &(sr_node_desc){.name = "ball", .transform = t, .shape = &shape}, &id, &err),
                 SR_OK, "%s", err.message);
    return id;
}

static fixture fixture_make(void)
{
    fixture f = {0};
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(NULL, &f.scene, &err), SR_OK);
    f.a = add_ball(f.scene, 0, 0, 1);
    f.b = add_ball(f.scene, 1.5f, 0, 1);
    f.c = add_ball(f.scene, 0, 1.8f, 0.5);
    f.camera = (sr_camera){.eye = {0.6f, 0.6f, 9},
                           .target = {0.6f, 0.6f, 0},
                           .up = {0, 1, 0},
                           .fov_y_degrees = 40,
                           .near_z = 0.1f,
                           .far_z = 50};
    const double eye[3] = {0.6, 0.6, 9}, target[3] = {0.6, 0.6, 0}, up[3] = {0, 1, 0};
    f.view = test_view_make(eye, target, up, 40, 0.1, 50, W, H);
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = W, .height = H}, &f.fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(NULL, &f.renderer, NULL), SR_OK);
    cr_assert_eq(sr_scene_frame_create(&f.frame, NULL), SR_OK);
    cr_assert_eq(
        sr_scene_render(f.scene, &(sr_scene_render_desc){.camera = &f.camera}, f.renderer, f.fb, f.frame, &err), SR_OK,
        "%s", err.message);
    cr_assert_eq(sr_collision_create(&f.collision, NULL), SR_OK);
    cr_assert_eq(sr_scene_collide(f.scene, &(sr_collision_desc){.margin = 0.5}, f.collision, &err), SR_OK, "%s",
                 err.message);
    // What the pass must have found for the pictures below to mean anything.
    cr_assert_eq(f.collision->contact_count, 1);
    cr_assert_eq(f.collision->near_count, 1);
    cr_assert_eq(f.collision->pair_count, 3);
    return f;
}

static void fixture_free(fixture *f)
{
    sr_collision_destroy(f->collision);
    sr_scene_frame_destroy(f->frame);
    sr_renderer_destroy(f->renderer);
    sr_framebuffer_destroy(f->fb);
    sr_scene_destroy(f->scene);
}

/* The overlays `items` over the background. */
static void draw_overlays(fixture *f, uint32_t items, const sr_collision *collision)
{
    sr_framebuffer_clear(f->fb, BACKGROUND, 1.0f);
    sr_debug_list *list = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_debug_list_create(NULL, &list, NULL), SR_OK);
    sr_overlay_desc desc = {.items = items, .collision = collision, .text_scale = 1};
    cr_assert_eq(sr_overlay_add(f->scene, f->frame, &f->camera, W, H, &desc, list, &err), SR_OK, "%s", err.message);
    sr_mat4 view, projection;
    sr_camera_matrices(&f->camera, W, H, &view, &projection);
    cr_assert_eq(sr_debug_draw(list, f->renderer, f->fb, sr_mat4_mul(projection, view), &err), SR_OK, "%s",
                 err.message);
    sr_debug_list_destroy(list);
}

static uint32_t pixel(const fixture *f, int x, int y)
{
    if (x < 0 || y < 0 || x >= W || y >= H)
        return 0;
    return f->fb->color[(size_t)y * W + (size_t)x];
}

/* `color` within `radius` pixels of window point (x, y). */
static bool color_near(const fixture *f, double x, double y, int radius, uint32_t color)
{
    for (int dy = -radius; dy <= radius; dy++)
        for (int dx = -radius; dx <= radius; dx++)
            if (pixel(f, (int)floor(x) + dx, (int)floor(y) + dy) == color)
                return true;
    return false;
}

/* Pixels of `color` in the rectangle [x0, x1) x [y0, y1). */
static int count_color(const fixture *f, int x0, int y0, int x1, int y1, uint32_t color)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            n += pixel(f, x, y) == color;
    return n;
}

static int count_all(const fixture *f, uint32_t color)
{
    return count_color(f, 0, 0, W, H, color);
}

static test_pixel project(const fixture *f, sr_dvec3 p)
{
    return test_project(&f->view, p.x, p.y, p.z);
}

Test(overlay_collide, contacts_draw_a_dot_an_arrow_along_the_normal_and_the_depth)
{
    fixture f = fixture_make();
    draw_overlays(&f, SR_OVERLAY_CONTACTS, f.collision);
    const sr_contact *contact = &f.collision->contacts[0];
    // The pass's contact: half-way through the overlap, normal from A to B.
    cr_assert_float_eq(contact->point.x, 0.75, 1e-6);
    test_pixel at = project(&f, contact->point);
    cr_assert(color_near(&f, at.x, at.y, 1, SR_OVERLAY_COLOR_CONTACT), "no contact dot at (%.1f, %.1f)", at.x, at.y);
    // The arrow: +x on screen (the normal seen from +z), 72 pixels for the deepest contact.
    test_pixel ahead = project(&f, sr_dvec3_add(contact->point, contact->normal));
    double dx = ahead.x - at.x, dy = ahead.y - at.y, length = sqrt(dx * dx + dy * dy);
    dx /= length, dy /= length;
    for (double s = 12; s <= 62; s += 10)
        cr_assert(color_near(&f, at.x + s * dx, at.y + s * dy, 1, SR_OVERLAY_COLOR_CONTACT_NORMAL),
                  "no normal arrow %g pixels along the normal", s);
    cr_assert(!color_near(&f, at.x + 80 * dx, at.y + 80 * dy, 2, SR_OVERLAY_COLOR_CONTACT_NORMAL),
              "the arrow reaches past 72 pixels");
    cr_assert(!color_near(&f, at.x - 20 * dx, at.y - 20 * dy, 2, SR_OVERLAY_COLOR_CONTACT_NORMAL),
              "the arrow points the wrong way");
    // The depth "0.5" in red just below the dot (the arrow runs across the screen), clear of it.
    int label =
        count_color(&f, (int)at.x - 2, (int)at.y + 4, (int)at.x + 40, (int)at.y + 20, SR_OVERLAY_COLOR_CONTACT);
    cr_assert_gt(label, 10, "no depth label below the contact (%d red pixels)", label);
    // Nothing of the other overlays.
    cr_assert_eq(count_all(&f, SR_OVERLAY_COLOR_CLOSEST), 0);
    cr_assert_eq(count_all(&f, SR_OVERLAY_COLOR_APART), 0);
    fixture_free(&f);
}

Test(overlay_collide, closest_draws_the_segment_between_the_closest_points_and_the_distance)
{
    fixture f = fixture_make();
    draw_overlays(&f, SR_OVERLAY_CLOSEST, f.collision);
    const sr_contact *near = &f.collision->near[0];
    cr_assert_float_eq(near->point_a.y, 1.0, 1e-6);
    cr_assert_float_eq(near->point_b.y, 1.3, 1e-6);
    for (int k = 0; k <= 4; k++) {
        sr_dvec3 p = sr_dvec3_add(near->point_a, sr_dvec3_scale(sr_dvec3_sub(near->point_b, near->point_a), k / 4.0));
        test_pixel at = project(&f, p);
        cr_assert(color_near(&f, at.x, at.y, 1, SR_OVERLAY_COLOR_CLOSEST), "no closest segment at %d/4 (%.1f, %.1f)", k,
                  at.x, at.y);
    }
    test_pixel middle = project(&f, near->point);
    int label = count_color(&f, (int)middle.x + 6, (int)middle.y - 12, (int)middle.x + 40, (int)middle.y + 12,
                            SR_OVERLAY_COLOR_CLOSEST);
    cr_assert_gt(label, 10, "no distance label right of the segment (%d pixels)", label);
    cr_assert_eq(count_all(&f, SR_OVERLAY_COLOR_CONTACT), 0);
    fixture_free(&f);
}

Test(overlay_collide, pairs_join_the_boxes_centres_coloured_by_what_the_narrowphase_found)
{
    fixture f = fixture_make();
    draw_overlays(&f, SR_OVERLAY_PAIRS, f.collision);
    const uint32_t colors[3] = {SR_OVERLAY_COLOR_APART, SR_OVERLAY_COLOR_CLOSEST, SR_OVERLAY_COLOR_CONTACT};
    for (size_t i = 0; i < f.collision->pair_count; i++) {
        const sr_collision_pair *pair = &f.collision->pairs[i];
        sr_node_shape a, b;
        cr_assert_eq(sr_scene_node_shape(f.scene, pair->a, &a, NULL), SR_OK);
        cr_assert_eq(sr_scene_node_shape(f.scene, pair->b, &b, NULL), SR_OK);
        sr_dvec3 ca = sr_dvec3_scale(sr_dvec3_add(a.world_bounds.min, a.world_bounds.max), 0.5);
        sr_dvec3 cb = sr_dvec3_scale(sr_dvec3_add(b.world_bounds.min, b.world_bounds.max), 0.5);
        for (int k = 1; k <= 3; k++) {
            test_pixel at = project(&f, sr_dvec3_add(ca, sr_dvec3_scale(sr_dvec3_sub(cb, ca), k / 4.0)));
            cr_assert(color_near(&f, at.x, at.y, 1, colors[pair->state]), "pair %zu (state %d): no line at %d/4", i,
                      pair->state, k);
        }
    }
    // One pair of each state, so each colour is there.
    cr_assert_gt(count_all(&f, SR_OVERLAY_COLOR_APART), 20);
    fixture_free(&f);
}

Test(overlay_collide, no_pass_draws_nothing_and_the_hud_counts_the_pass)
{
    fixture f = fixture_make();
    draw_overlays(&f, SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS, NULL);
    cr_assert_eq(count_all(&f, BACKGROUND), W * H, "overlays drawn without a pass");
    char text[256];
    size_t length = sr_overlay_collision_text(f.collision, text, sizeof text);
    cr_assert_eq(length, strlen(text));
    cr_assert(strstr(text, "3 shapes") && strstr(text, "3 pairs") && strstr(text, "1 contacts, 1 near"), "%s", text);
    char hud[1024];
    sr_overlay_hud_text(f.scene, f.frame, &(sr_overlay_desc){.collision = f.collision}, NULL, hud, sizeof hud);
    cr_assert(strstr(hud, text), "the HUD lacks the pass's lines: %s", hud);
    cr_assert_eq(sr_overlay_collision_text(NULL, text, sizeof text), 0);
    // The parser knows the three names.
    sr_overlay_desc desc = {0};
    cr_assert_eq(sr_overlay_parse("contacts,closest,pairs", &desc, NULL), SR_OK);
    cr_assert_eq(desc.items, SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS);
    fixture_free(&f);
}

Test(overlay_collide, sr_debug_contact_draws_what_it_is_given)
{
    fixture f = fixture_make();
    sr_framebuffer_clear(f.fb, BACKGROUND, 1.0f);
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &list, NULL), SR_OK);
    const uint32_t dot = 0xff00ff00u, arrow = 0xffff00ffu;
    sr_debug_contact(list, sr_vec3_make(0, 0, 0), sr_vec3_make(0, 2, 0),
                     &(sr_debug_contact_desc){.length = 1.5f, .point_color = dot, .normal_color = arrow});
    sr_mat4 view, projection;
    sr_camera_matrices(&f.camera, W, H, &view, &projection);
    cr_assert_eq(sr_debug_draw(list, f.renderer, f.fb, sr_mat4_mul(projection, view), NULL), SR_OK);
    test_pixel origin = test_project(&f.view, 0, 0, 0), tip = test_project(&f.view, 0, 1.5, 0),
               beyond = test_project(&f.view, 0, 1.8, 0);
    cr_assert(color_near(&f, origin.x, origin.y, 1, dot));
    cr_assert(color_near(&f, origin.x, 0.5 * (origin.y + tip.y), 1, arrow), "the normal is not unit-scaled to 1.5");
    cr_assert(!color_near(&f, beyond.x, beyond.y, 2, arrow), "the arrow is longer than 1.5");
    sr_debug_list_destroy(list);
    fixture_free(&f);
}

/* The labels of `count` contacts as the contacts overlay lays them out: the list's text items. */
static sr_debug_list *contact_labels(fixture *f, const sr_contact *contacts, size_t count)
{
    sr_collision collision = {.contacts = contacts, .contact_count = count};
    sr_debug_list *list = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_debug_list_create(NULL, &list, NULL), SR_OK);
    sr_overlay_desc desc = {.items = SR_OVERLAY_CONTACTS, .collision = &collision, .text_scale = 1};
    cr_assert_eq(sr_overlay_add(f->scene, f->frame, &f->camera, W, H, &desc, list, &err), SR_OK, "%s", err.message);
    return list;
}

static size_t count_kind(const sr_debug_list *list, sr_debug_item_kind kind)
{
    size_t n = 0, count = 0;
    const sr_debug_item *items = sr_debug_list_items(list, &n);
    for (size_t i = 0; i < n; i++)
        count += items[i].kind == kind;
    return count;
}

/* A pile's contacts crowd the screen: a depth label that would overlap a deeper contact's label
 * is left out, never the contact's dot or arrow. The labels drawn, projected independently, never
 * overlap; the deepest contact's is always drawn; labels apart on screen are all drawn. */
Test(overlay_collide, contact_labels_never_overlap_and_the_deepest_is_kept)
{
    fixture f = fixture_make();
    enum { SAME = 40, APART = 6, CROWD = 300 };
    sr_contact contacts[CROWD];
    // Forty contacts at one point: one label, the deepest's ("0.4"), forty arrows.
    for (int i = 0; i < SAME; i++)
        contacts[i] = (sr_contact){.point = {0.75, 0, 0}, .normal = {1, 0, 0}, .distance = -0.01 * (i + 1)};
    sr_debug_list *list = contact_labels(&f, contacts, SAME);
    cr_assert_eq(count_kind(list, SR_DEBUG_ITEM_TEXT), 1);
    cr_assert_eq(count_kind(list, SR_DEBUG_ITEM_ARROW), SAME);
    size_t n = 0;
    const sr_debug_item *items = sr_debug_list_items(list, &n);
    for (size_t i = 0; i < n; i++)
        if (items[i].kind == SR_DEBUG_ITEM_TEXT)
            cr_assert_str_eq(sr_debug_list_item_text(list, &items[i]), "0.4");
    sr_debug_list_destroy(list);
    // Six contacts a unit (about 55 pixels) apart: six labels.
    for (int i = 0; i < APART; i++)
        contacts[i] = (sr_contact){.point = {i - 2.0, 0, 0}, .normal = {0, 1, 0}, .distance = -0.05};
    list = contact_labels(&f, contacts, APART);
    cr_assert_eq(count_kind(list, SR_DEBUG_ITEM_TEXT), APART);
    sr_debug_list_destroy(list);
    // Three hundred contacts crowded in a few hundred pixels: the labels drawn are disjoint.
    uint64_t state = 7;
    double deepest = 0.0;
    for (int i = 0; i < CROWD; i++) {
        double u[4];
        for (int k = 0; k < 4; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = (double)(state >> 11) / 9007199254740992.0;
        }
        double depth = 0.001 + 0.5 * u[3];
        deepest = fmax(deepest, depth);
        contacts[i] = (sr_contact){.point = {4 * u[0] - 1.4, 3 * u[1] - 0.9, u[2] - 0.5},
                                   .normal = {u[0] < 0.5 ? 1 : 0, u[0] < 0.5 ? 0 : 1, 0},
                                   .distance = -depth};
    }
    list = contact_labels(&f, contacts, CROWD);
    items = sr_debug_list_items(list, &n);
    cr_assert_eq(count_kind(list, SR_DEBUG_ITEM_ARROW), CROWD);
    size_t labels = count_kind(list, SR_DEBUG_ITEM_TEXT);
    cr_assert(labels > 10 && labels < CROWD, "%zu labels of %d contacts", labels, CROWD);
    char deepest_text[32];
    snprintf(deepest_text, sizeof deepest_text, "%.3g", deepest);
    bool deepest_drawn = false;
    for (size_t i = 0; i < n; i++) {
        if (items[i].kind != SR_DEBUG_ITEM_TEXT)
            continue;
        const char *text = sr_debug_list_item_text(list, &items[i]);
        deepest_drawn |= strcmp(text, deepest_text) == 0;
        int wi, hi;
        sr_overlay_text_size(text, 1, &wi, &hi);
        sr_vec3 a = items[i].text.anchor;
        test_pixel pi = project(&f, sr_dvec3_make(a.x, a.y, a.z));
        for (size_t j = i + 1; j < n; j++) {
            if (items[j].kind != SR_DEBUG_ITEM_TEXT)
                continue;
            int wj, hj;
            sr_overlay_text_size(sr_debug_list_item_text(list, &items[j]), 1, &wj, &hj);
            sr_vec3 b = items[j].text.anchor;
            test_pixel pj = project(&f, sr_dvec3_make(b.x, b.y, b.z));
            // (a pixel's slack: the two projections round differently)
            bool apart = pi.x + wi <= pj.x + 1 || pj.x + wj <= pi.x + 1 || pi.y + hi <= pj.y + 1 || pj.y + hj <= pi.y + 1;
            cr_assert(apart, "labels %zu and %zu overlap at (%.1f, %.1f) and (%.1f, %.1f)", i, j, pi.x, pi.y, pj.x, pj.y);
        }
    }
    cr_assert(deepest_drawn, "the deepest contact's label (%s) is not drawn", deepest_text);
    sr_debug_list_destroy(list);
    fixture_free(&f);
}
