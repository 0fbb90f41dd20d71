/* test_debug_collide.c — a query's work in a debug list (sr_debug_collide_trace,
 * sr_debug_minkowski_hull; src/debug/debug_collide.c, debug_minkowski.c) and `softrast collide
 * SCENE --pair A,B --query ...` (src/app/cmd_collide_steps.c): the drawn simplex vertices,
 * witnesses, support points and EPA normals lie where an independent projection of the trace's own
 * numbers puts them (pixels read back); a trace's last step is the query's answer; drawing a step,
 * others, then the step again gives the same pixels; the Minkowski hull holds the origin exactly
 * when the shapes overlap (brute force on its face planes); bad input is refused with a message and
 * nothing drawn; the command's errors name the file or argument (exit 2 usage, 1 failure) and its
 * pictures are whole. */
#include <criterion/criterion.h>
#include <softrast/debug.h>

#include "debug_test_frame.h"
#include "run_program.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define RANDOM_PAIRS 60
#else
#define RANDOM_PAIRS 400
#endif

/* The palette of sr_debug_collide_trace (softrast/debug.h documents it). */
#define SIMPLEX SR_DEBUG_YELLOW
#define CLOSEST SR_DEBUG_GREEN
#define SEARCH SR_DEBUG_MAGENTA

/* ---- shapes and traces ---- */

typedef struct traced {
    sr_gjk_step gjk[256];
    sr_epa_step epa[256];
    sr_epa_vertex vertices[512];
    sr_epa_face faces[1 << 15];
    sr_sat_axis sat[1024];
    sr_collide_trace trace;
    sr_collide_result result;
} traced;

static traced *traced_make(void)
{
    traced *t = calloc(1, sizeof *t);
    cr_assert_not_null(t);
    t->trace = (sr_collide_trace){.gjk = t->gjk,
                                  .gjk_capacity = 256,
                                  .epa = t->epa,
                                  .epa_capacity = 256,
                                  .epa_vertices = t->vertices,
                                  .epa_vertex_capacity = 512,
                                  .epa_faces = t->faces,
                                  .epa_face_capacity = 1 << 15,
                                  .sat = t->sat,
                                  .sat_capacity = 1024};
    return t;
}

static sr_hull *rock(double scale)
{
    static const double p[8][3] = {{-0.5, -0.2, -0.35}, {0.45, -0.25, -0.4}, {0.55, -0.1, 0.3}, {-0.3, -0.2, 0.45},
                                   {-0.2, 0.45, -0.1},  {0.25, 0.55, 0.05},  {0.05, 0.3, 0.4},  {0.6, 0.2, -0.1}};
    sr_dvec3 points[8];
    for (int i = 0; i < 8; i++)
        points[i] = sr_dvec3_make(scale * p[i][0], scale * p[i][1], scale * p[i][2]);
    sr_hull *hull = NULL;
    cr_assert_eq(sr_hull_create(points, 8, &hull, NULL), SR_OK);
    return hull;
}

static sr_pose pose(double x, double y, double z, double ax, double ay, double az, double angle)
{
    return sr_pose_make(sr_dvec3_make(x, y, z), sr_dquat_from_axis_angle(sr_dvec3_make(ax, ay, az), angle));
}

/* Two hulls apart (GJK of several steps), in view of the test frame. */
static void apart_pair(sr_hull *hull, sr_shape *a, sr_shape *b)
{
    *a = sr_shape_with_pose(sr_shape_hull(hull), pose(-0.55, 0.3, 0.0, 0.3, 1, 0.2, 0.5));
    *b = sr_shape_with_pose(sr_shape_box(sr_dvec3_make(0.25, 0.3, 0.2)), pose(0.45, 0.55, -0.1, 1, 0.4, 0.3, 0.9));
}

/* A cylinder into a box (EPA). */
static void epa_pair(sr_shape *a, sr_shape *b)
{
    *a = sr_shape_with_pose(sr_shape_cylinder(0.4, 0.3), pose(0.0, 0.2, 0.0, 1, 0.2, 0, 1.2));
    *b = sr_shape_with_pose(sr_shape_box(sr_dvec3_make(0.3, 0.25, 0.3)), pose(0.35, 0.45, 0.1, 0.2, 1, 0.4, 0.6));
}

static sr_vec3 f3(sr_dvec3 p)
{
    return sr_dvec3_to_vec3(p);
}

/* Whether a pixel of exactly `color` lies within `radius` pixels of where `p` projects. */
static bool color_near(const frame *f, sr_vec3 p, uint32_t color, int radius)
{
    test_pixel q = project(f, p);
    cr_assert(q.in_front);
    int cx = (int)floor(q.x), cy = (int)floor(q.y);
    for (int y = cy - radius; y <= cy + radius; y++)
        for (int x = cx - radius; x <= cx + radius; x++)
            if (x >= 0 && y >= 0 && x < W && y < H && pixel(f, x, y) == color)
                return true;
    return false;
}

/* Whether the dot at `p` may be covered by the later dot and label at `q` (an 11-pixel dot, and
 * text of two 6 x 10 cells from q's pixel). */
static bool under_label(const frame *f, sr_vec3 p, sr_vec3 q)
{
    test_pixel a = project(f, p), b = project(f, q);
    double dx = a.x - b.x, dy = a.y - b.y;
    return dx * dx + dy * dy < 8.0 * 8.0 || (dx > -6 && dx < 18 && dy > -6 && dy < 14);
}

/* Whether the point `p` may be under a label of `cells` characters anchored at `q`. */
static bool under_text(const frame *f, sr_vec3 p, sr_vec3 q, int cells)
{
    test_pixel a = project(f, p), b = project(f, q);
    double dx = a.x - b.x, dy = a.y - b.y;
    return dx > -6 && dx < 6 * cells + 6 && dy > -6 && dy < 14;
}

static void draw_step(frame *f, const sr_shape *a, const sr_shape *b, const traced *t, sr_debug_trace_desc desc)
{
    sr_debug_list *list = list_make();
    sr_error err = {0};
    cr_assert_eq(sr_debug_collide_trace(list, a, b, &t->trace, &desc, &err), SR_OK, "%s", err.message);
    sr_framebuffer_clear(f->fb, BACKGROUND, 1.0f);
    draw(f, list);
    sr_debug_list_destroy(list);
}

/* ---- the drawing against the trace's numbers ---- */

Test(debug_collide, gjk_simplex_closest_point_and_support_lie_where_the_steps_numbers_project)
{
    sr_hull *hull = rock(0.8);
    sr_shape a, b;
    apart_pair(hull, &a, &b);
    traced *t = traced_make();
    cr_assert_eq(sr_collide_distance(&a, &b, &(sr_collide_options){.trace = &t->trace}, &t->result), SR_COLLIDE_OK);
    cr_assert_gt(t->trace.gjk_count, 1u);
    frame f = frame_make(1, false);
    for (size_t step = 0; step < t->trace.gjk_count; step++) {
        const sr_gjk_step *s = &t->gjk[step];
        bool last = step + 1 == t->trace.gjk_count;
        // The Minkowski view, its origin put at (0, 0.3, 0): every simplex vertex a yellow dot, v
        // green, w magenta (each checked where no later dot covers it).
        sr_vec3 shift = sr_vec3_make(0.0f, 0.3f, 0.0f);
        draw_step(&f, &a, &b, t,
                  (sr_debug_trace_desc){.kind = SR_DEBUG_TRACE_GJK, .step = (int)step, .minkowski = true,
                                        .minkowski_origin = shift});
        sr_dvec3 w = sr_dvec3_sub(s->support_a, s->support_b);
        for (int i = 0; i < s->simplex_count; i++) {
            sr_dvec3 vertex = sr_dvec3_sub(s->simplex_a[i], s->simplex_b[i]);
            sr_vec3 at = sr_vec3_add(shift, f3(vertex));
            bool covered = under_label(&f, at, sr_vec3_add(shift, f3(s->closest))) ||
                           (!last && under_label(&f, at, sr_vec3_add(shift, f3(w))));
            if (!covered)
                cr_assert(color_near(&f, sr_vec3_add(shift, f3(vertex)), SIMPLEX, 1), "step %zu vertex %d", step, i);
        }
        cr_assert(color_near(&f, sr_vec3_add(shift, f3(s->closest)), CLOSEST, 1), "step %zu: v", step);
        if (!last)
            cr_assert(color_near(&f, sr_vec3_add(shift, f3(w)), SEARCH, 1), "step %zu: w", step);
        // The world view: the witnesses (the weights applied to the simplex's points on A and B)
        // green, the support points on A and B magenta.
        draw_step(&f, &a, &b, t, (sr_debug_trace_desc){.kind = SR_DEBUG_TRACE_GJK, .step = (int)step});
        sr_dvec3 pa = {0, 0, 0}, pb = {0, 0, 0};
        for (int i = 0; i < s->simplex_count; i++) {
            pa = sr_dvec3_add(pa, sr_dvec3_scale(s->simplex_a[i], s->weights[i]));
            pb = sr_dvec3_add(pb, sr_dvec3_scale(s->simplex_b[i], s->weights[i]));
        }
        for (int k = 0; k < 2; k++) { // unless the labels " w(A)", " w(B)" drawn later cover it
            sr_vec3 witness = f3(k ? pb : pa);
            if (last || (!under_text(&f, witness, f3(s->support_a), 5) && !under_text(&f, witness, f3(s->support_b), 5)))
                cr_assert(color_near(&f, witness, CLOSEST, 1), "step %zu: witness on %c", step, k ? 'B' : 'A');
        }
        for (int k = 0; k < 2 && !last; k++) { // unless a witness dot drawn later covers it
            sr_vec3 support = f3(k ? s->support_b : s->support_a);
            if (!under_label(&f, support, f3(pa)) && !under_label(&f, support, f3(pb)))
                cr_assert(color_near(&f, support, SEARCH, 1), "step %zu: support on %c", step, k ? 'B' : 'A');
        }
    }
    frame_free(&f);
    free(t);
    sr_hull_destroy(hull);
}

Test(debug_collide, epa_face_normal_and_support_lie_where_the_steps_numbers_project)
{
    sr_shape a, b;
    epa_pair(&a, &b);
    traced *t = traced_make();
    sr_collide_penetration(&a, &b, &(sr_collide_options){.trace = &t->trace}, &t->result);
    cr_assert_eq(t->result.method, SR_COLLIDE_BY_EPA);
    cr_assert_gt(t->trace.epa_count, 1u);
    frame f = frame_make(1, false);
    for (size_t step = 0; step < t->trace.epa_count; step += 3) {
        const sr_epa_step *s = &t->epa[step];
        draw_step(&f, &a, &b, t,
                  (sr_debug_trace_desc){.kind = SR_DEBUG_TRACE_EPA, .step = (int)step, .minkowski = true});
        cr_assert(color_near(&f, f3(s->support.point), SEARCH, 1), "step %zu: w", step);
        // The red normal arrow from the origin reaches the chosen face's plane at distance * normal.
        const sr_epa_face *face = &t->faces[s->chosen_face];
        sr_vec3 foot = f3(sr_dvec3_scale(face->normal, face->distance));
        sr_vec3 middle = sr_vec3_scale(foot, 0.5f);
        bool red = false;
        test_pixel q = project(&f, middle);
        for (int y = (int)q.y - 1; y <= (int)q.y + 1; y++)
            for (int x = (int)q.x - 1; x <= (int)q.x + 1; x++)
                red |= (pixel(&f, x, y) & 0x00ffffffu) == 0x4040ffu;
        cr_assert(red, "step %zu: the normal arrow", step);
    }
    frame_free(&f);
    free(t);
}

/* ---- the trace against the answer ---- */

Test(debug_collide, a_traces_last_step_is_the_querys_answer)
{
    sr_hull *hull = rock(0.8);
    sr_shape a, b;
    apart_pair(hull, &a, &b);
    traced *t = traced_make();
    sr_collide_distance(&a, &b, &(sr_collide_options){.trace = &t->trace}, &t->result);
    const sr_gjk_step *last = &t->gjk[t->trace.gjk_count - 1];
    cr_assert_float_eq(last->upper_bound, t->result.distance, 1e-12);
    sr_dvec3 pa = {0, 0, 0}, pb = {0, 0, 0};
    for (int i = 0; i < last->simplex_count; i++) {
        pa = sr_dvec3_add(pa, sr_dvec3_scale(last->simplex_a[i], last->weights[i]));
        pb = sr_dvec3_add(pb, sr_dvec3_scale(last->simplex_b[i], last->weights[i]));
    }
    cr_assert_lt(sr_dvec3_length(sr_dvec3_sub(pa, t->result.point_a)), 1e-9);
    cr_assert_lt(sr_dvec3_length(sr_dvec3_sub(pb, t->result.point_b)), 1e-9);

    // EPA: the last step's face is the answer's normal, its distance plus the radii the depth.
    epa_pair(&a, &b);
    sr_collide_penetration(&a, &b, &(sr_collide_options){.trace = &t->trace}, &t->result);
    const sr_epa_step *e = &t->epa[t->trace.epa_count - 1];
    const sr_epa_face *face = &t->faces[e->chosen_face];
    cr_assert_lt(sr_dvec3_length(sr_dvec3_sub(face->normal, t->result.normal)), 1e-6);
    cr_assert_float_eq(face->distance, -t->result.distance, 1e-6 * (1 + face->distance));

    // SAT: the largest separation over the axes is the answer, along its normal.
    a = sr_shape_with_pose(sr_shape_box(sr_dvec3_make(0.5, 0.4, 0.45)), pose(-0.45, 0, 0, 0, 1, 0.5, 0.35));
    b = sr_shape_with_pose(sr_shape_box(sr_dvec3_make(0.45, 0.35, 0.4)), pose(0.5, 0.3, 0.1, 0.6, -0.4, 0.7, 0.9));
    cr_assert_eq(sr_collide_sat(&a, &b, &(sr_collide_options){.trace = &t->trace}, &t->result), SR_COLLIDE_OK);
    size_t best = 0;
    for (size_t i = 1; i < t->trace.sat_count; i++)
        if (t->sat[i].separation > t->sat[best].separation)
            best = i;
    cr_assert_float_eq(t->sat[best].separation, t->result.distance, 1e-12);
    cr_assert_lt(sr_dvec3_length(sr_dvec3_sub(t->sat[best].axis, t->result.normal)), 1e-12);
    free(t);
    sr_hull_destroy(hull);
}

Test(debug_collide, stepping_through_a_trace_and_back_gives_the_same_pictures)
{
    sr_hull *hull = rock(0.8);
    sr_shape a, b;
    apart_pair(hull, &a, &b);
    traced *t = traced_make();
    sr_collide_distance(&a, &b, &(sr_collide_options){.trace = &t->trace}, &t->result);
    size_t count = sr_debug_trace_step_count(&t->trace, SR_DEBUG_TRACE_GJK);
    cr_assert_eq(count, t->trace.gjk_count);
    frame f = frame_make(1, false);
    size_t bytes = (size_t)W * H * sizeof(uint32_t);
    uint32_t *first = malloc(count * bytes);
    cr_assert_not_null(first);
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < count; k++) {
            size_t step = pass ? count - 1 - k : k; // forwards, then backwards
            draw_step(&f, &a, &b, t,
                      (sr_debug_trace_desc){.kind = SR_DEBUG_TRACE_GJK, .step = (int)step, .minkowski = true,
                                            .legend = true});
            if (pass == 0)
                memcpy(first + step * W * H, f.fb->color, bytes);
            else
                cr_assert(memcmp(first + step * W * H, f.fb->color, bytes) == 0, "step %zu differs", step);
        }
    // Neighbouring steps differ (the picture shows the step).
    cr_assert(memcmp(first, first + W * H, bytes) != 0);
    // The last step is also step -1.
    draw_step(&f, &a, &b, t, (sr_debug_trace_desc){.kind = SR_DEBUG_TRACE_GJK, .step = -1, .minkowski = true,
                                                   .legend = true});
    cr_assert(memcmp(first + (count - 1) * W * H, f.fb->color, bytes) == 0);
    free(first);
    frame_free(&f);
    free(t);
    sr_hull_destroy(hull);
}

/* ---- the Minkowski hull ---- */

static double uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / 9007199254740992.0;
}

static sr_pose random_pose(uint64_t *state, double spread)
{
    sr_dvec3 axis = sr_dvec3_make(uniform(state) - 0.5, uniform(state) - 0.5, uniform(state) - 0.5 + 1e-3);
    return sr_pose_make(sr_dvec3_make(spread * (uniform(state) - 0.5), spread * (uniform(state) - 0.5),
                                      spread * (uniform(state) - 0.5)),
                        sr_dquat_from_axis_angle(axis, 6.283 * uniform(state)));
}

/* Whether the origin is inside every face plane of the hull (brute force). */
static bool holds_origin(const sr_hull *hull, double tolerance)
{
    sr_hull_view view = sr_hull_get_view(hull);
    for (size_t f = 0; f < view.face_count; f++)
        if (view.faces[f].offset < -tolerance) // dot(normal, 0) <= offset on the inside
            return false;
    return view.dimension == 3;
}

Test(debug_collide, the_minkowski_hull_holds_the_origin_exactly_when_the_shapes_overlap)
{
    sr_hull *hull = rock(1.0);
    uint64_t state = 22;
    int overlaps = 0, apart = 0;
    for (int i = 0; i < RANDOM_PAIRS; i++) {
        // Polytopes (exact hull) and, every third pair, a cylinder or cone (a sampled hull, checked
        // only when the depth or distance is past its approximation).
        bool curved = i % 3 == 2;
        sr_shape a = i % 2 ? sr_shape_hull(hull) : sr_shape_box(sr_dvec3_make(0.4, 0.3, 0.5));
        sr_shape b = curved ? (i % 2 ? sr_shape_cylinder(0.4, 0.3) : sr_shape_cone(0.5, 0.4))
                            : sr_shape_triangle(sr_dvec3_make(-0.5, 0, 0), sr_dvec3_make(0.5, 0.1, 0),
                                                sr_dvec3_make(0, 0.6, 0.2));
        if (!curved && i % 4 == 1)
            b = sr_shape_box(sr_dvec3_make(0.3, 0.2, 0.35));
        a.pose = random_pose(&state, 1.2);
        b.pose = random_pose(&state, 1.2);
        sr_collide_result r;
        sr_collide_signed_distance(&a, &b, NULL, &r);
        sr_hull *difference = NULL;
        double rounding = -1;
        sr_error err = {0};
        cr_assert_eq(sr_debug_minkowski_hull(&a, &b, &difference, &rounding, &err), SR_OK, "%s", err.message);
        cr_assert_eq(rounding, 0.0);
        double margin = curved ? 0.03 : 1e-6;
        if (fabs(r.distance) > margin) {
            bool inside = holds_origin(difference, 0.0);
            cr_assert_eq(inside, r.distance < 0, "pair %d: signed distance %g, origin %s A - B", i, r.distance,
                         inside ? "inside" : "outside");
            overlaps += inside;
            apart += !inside;
        }
        // Every vertex of A - B is a difference of points of A and B: its support value along any
        // direction is at most A's minus B's.
        sr_hull_view view = sr_hull_get_view(difference);
        sr_dvec3 d = sr_dvec3_normalize(sr_dvec3_make(uniform(&state) - 0.5, uniform(&state) - 0.5, 0.3));
        double most = sr_dvec3_dot(sr_shape_support(&a, d), d) - sr_dvec3_dot(sr_shape_support(&b, sr_dvec3_negate(d)), d);
        for (size_t v = 0; v < view.vertex_count; v++)
            cr_assert_leq(sr_dvec3_dot(view.vertices[v], d), most + 1e-9);
        sr_hull_destroy(difference);
    }
    cr_assert_gt(overlaps, RANDOM_PAIRS / 10);
    cr_assert_gt(apart, RANDOM_PAIRS / 10);
    // A sphere's core is its centre: the hull is B's shape mirrored, the rounding the radius.
    sr_shape ball = sr_shape_sphere(0.3), box = sr_shape_box(sr_dvec3_make(0.1, 0.2, 0.3));
    sr_hull *difference = NULL;
    double rounding = 0;
    cr_assert_eq(sr_debug_minkowski_hull(&ball, &box, &difference, &rounding, NULL), SR_OK);
    cr_assert_float_eq(rounding, 0.3, 1e-15);
    cr_assert_eq(sr_hull_get_view(difference).vertex_count, 8u);
    sr_hull_destroy(difference);
    sr_hull_destroy(hull);
}

/* ---- bad input ---- */

Test(debug_collide, bad_input_is_refused_with_a_message_and_draws_nothing)
{
    sr_hull *hull = rock(0.8);
    sr_shape a, b;
    apart_pair(hull, &a, &b);
    traced *t = traced_make();
    sr_collide_distance(&a, &b, &(sr_collide_options){.trace = &t->trace}, &t->result);
    sr_debug_list *list = list_make();
    sr_error err = {0};
    sr_debug_trace_desc desc = {.kind = SR_DEBUG_TRACE_GJK, .step = (int)t->trace.gjk_count, .legend = true};
    cr_assert_eq(sr_debug_collide_trace(list, &a, &b, &t->trace, &desc, &err), SR_ERROR_INVALID_ARGUMENT);
    char expected[96];
    snprintf(expected, sizeof expected, "step %zu: the trace holds %zu GJK steps", t->trace.gjk_count,
             t->trace.gjk_count);
    cr_assert(strstr(err.message, expected), "%s", err.message);
    desc.step = 0;
    desc.kind = SR_DEBUG_TRACE_EPA;
    cr_assert_eq(sr_debug_collide_trace(list, &a, &b, &t->trace, &desc, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "no EPA step"), "%s", err.message);
    desc.kind = (sr_debug_trace_kind)7;
    cr_assert_eq(sr_debug_collide_trace(list, &a, &b, &t->trace, &desc, &err), SR_ERROR_INVALID_ARGUMENT);
    desc.kind = SR_DEBUG_TRACE_GJK;
    sr_shape bad = b;
    bad.half_extents.y = -1;
    cr_assert_eq(sr_debug_collide_trace(list, &a, &bad, &t->trace, &desc, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "shape b"), "%s", err.message);
    cr_assert_eq(sr_debug_collide_trace(list, NULL, &b, &t->trace, &desc, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_debug_collide_trace(list, &a, &b, NULL, &desc, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_debug_collide_trace(NULL, &a, &b, &t->trace, &desc, NULL), SR_ERROR_INVALID_ARGUMENT);
    // An EPA step whose faces the trace dropped.
    sr_shape c, d;
    epa_pair(&c, &d);
    t->trace.epa_face_capacity = 4;
    sr_collide_penetration(&c, &d, &(sr_collide_options){.trace = &t->trace}, &t->result);
    desc.kind = SR_DEBUG_TRACE_EPA;
    desc.step = 1;
    cr_assert_eq(sr_debug_collide_trace(list, &c, &d, &t->trace, &desc, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "larger"), "%s", err.message);
    size_t count = 1;
    sr_debug_list_items(list, &count);
    cr_assert_eq(count, 0u);
    cr_assert_eq(sr_debug_minkowski_hull(&a, &bad, &(sr_hull *){NULL}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "shape b"), "%s", err.message);
    sr_debug_list_destroy(list);
    free(t);
    sr_hull_destroy(hull);
}

Test(debug_collide, wild_traces_draw_without_crashing)
{
    // Every byte of the steps random (NaN, infinities, huge values, any simplex count, any face
    // index): refused or drawn, never a crash or a read past the trace (the sanitized run checks).
    sr_hull *hull = rock(0.8);
    sr_shape a, b;
    apart_pair(hull, &a, &b);
    traced *t = traced_make();
    uint64_t state = 7;
    frame f = frame_make(1, false);
    for (int round = 0; round < 40; round++) {
        unsigned char *bytes[] = {(unsigned char *)t->gjk, (unsigned char *)t->epa, (unsigned char *)t->vertices,
                                  (unsigned char *)t->faces, (unsigned char *)t->sat};
        size_t sizes[] = {sizeof t->gjk, sizeof t->epa, sizeof t->vertices, 64 * sizeof t->faces[0], sizeof t->sat};
        for (int k = 0; k < 5; k++)
            for (size_t i = 0; i < sizes[k]; i++)
                bytes[k][i] = (unsigned char)(uniform(&state) * 256);
        t->trace.gjk_count = 1 + (size_t)(uniform(&state) * 8);
        t->trace.epa_count = 1 + (size_t)(uniform(&state) * 8);
        t->trace.epa_vertex_count = (size_t)(uniform(&state) * 512);
        t->trace.epa_face_count = (size_t)(uniform(&state) * 64);
        t->trace.sat_count = 1 + (size_t)(uniform(&state) * 8);
        for (int kind = 0; kind < 3; kind++) {
            sr_debug_list *list = list_make();
            sr_debug_trace_desc desc = {.kind = (sr_debug_trace_kind)kind, .step = round % 3 - 1,
                                        .minkowski = round % 2 == 0, .legend = true};
            sr_debug_collide_trace(list, &a, &b, &t->trace, &desc, NULL);
            draw(&f, list);
            sr_debug_list_destroy(list);
        }
    }
    frame_free(&f);
    free(t);
    sr_hull_destroy(hull);
}

/* ---- the command ---- */

#define SCENE SR_SOURCE_DIR "/assets/scenes/steps.json"

static void expect_error(const char *const *args, int code, const char *needle)
{
    run_result r = run(args);
    cr_assert(r.exited);
    cr_assert_eq(r.code, code, "exit %d, expected %d: %s", r.code, code, r.err);
    cr_assert(strstr(r.err, needle), "stderr lacks '%s': %s", needle, r.err);
}

Test(cli_collide_steps, bad_pairs_steps_and_options_are_named_and_leave_no_file)
{
    char dir[64], out[128];
    make_temp_dir(dir);
    snprintf(out, sizeof out, "%s/step.png", dir);
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,nobody", "--query", "gjk", "--out", out, NULL},
                 1, "no node called 'nobody'");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,nobody", "--query", "gjk", "--out", out, NULL},
                 1, "steps.json");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,rock", "--query", "gjk", "--out", out, NULL},
                 2, "--pair: 'rock,rock' names node 'rock' twice");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock", "--query", "gjk", "--out", out, NULL}, 2,
                 "--pair: 'rock' is not two node names");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,empty", "--query", "gjk", "--out", out, NULL},
                 1, "node 'empty' has no \"shape\"");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,gem", "--query", "gjk", "--step", "99",
                                       "--out", out, NULL},
                 1, "--step 99: step 99: the trace holds");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,gem", "--query", "epa", "--out", out, NULL}, 1,
                 "no EPA step");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,ball", "--query", "sat", "--out", out, NULL},
                 1, "no SAT step");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,gem", "--query", "mpr", "--out", out, NULL}, 2,
                 "--query: 'mpr'");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,gem", "--query", "gjk", NULL}, 2,
                 "missing --out");
    expect_error((const char *const[]){"collide", SCENE, "--pair", "rock,gem", "--query", "gjk", "--out",
                                       "/nonexistent/x.png", NULL},
                 2, "--out");
    expect_error((const char *const[]){"collide", "missing.json", "--pair", "a,b", "--query", "gjk", "--out", out, NULL},
                 1, "missing.json");
    cr_assert_eq(count_entries(dir), 0);
    remove_dir(dir);
}

Test(cli_collide_steps, every_step_is_a_picture_and_the_last_is_the_default)
{
    char dir[64], steps[128], out[128];
    make_temp_dir(dir);
    snprintf(steps, sizeof steps, "%s/steps", dir);
    snprintf(out, sizeof out, "%s/last.png", dir);
    run_result r = run((const char *const[]){"collide", SCENE, "--pair", "rock,gem", "--query", "gjk", "--minkowski",
                                             "--steps", steps, "--size", "160x120", NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    unsigned count = 0;
    cr_assert(sscanf(strstr(r.out, "gjk: "), "gjk: %u step", &count) == 1, "%s", r.out);
    cr_assert_gt(count, 1u);
    cr_assert_eq(count_entries(steps), (int)count);
    r = run((const char *const[]){"collide", SCENE, "--pair", "rock,gem", "--query", "gjk", "--minkowski", "--out", out,
                                  "--size", "160x120", NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    // The default step is the last: the same file as the last of --steps.
    char last[160];
    snprintf(last, sizeof last, "%s/gjk-%03u.png", steps, count - 1);
    long size = file_size(out);
    cr_assert_gt(size, 0);
    cr_assert_eq(file_size(last), size);
    void *x = read_raw(out, size), *y = read_raw(last, size);
    cr_assert(memcmp(x, y, (size_t)size) == 0);
    free(x);
    free(y);
    // A sphere and a capsule: the distance has a closed form, the steps shown are GJK's
    // intersection test's.
    r = run((const char *const[]){"collide", SCENE, "--pair", "ball,pill", "--query", "gjk", "--out", out, "--size",
                                  "160x120", NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.out, "GJK's intersection test") && strstr(r.out, "apart"), "%s", r.out);
    remove_dir(steps);
    remove_dir(dir);
}

/* The pixels (BGR rows, bottom first) of a 24-bit BMP that softrast wrote, and its size. */
static unsigned char *read_bmp(const char *path, int *width, int *height)
{
    long size = file_size(path);
    cr_assert_gt(size, 54, "%s", path);
    unsigned char *data = read_raw(path, size);
    *width = data[18] | data[19] << 8;
    *height = data[22] | data[23] << 8;
    cr_assert_eq(data[28], 24);
    return data;
}

Test(cli_collide_steps, both_views_side_by_side_are_the_two_views_alone)
{
    char dir[64], both[128], world[128], minkowski[128];
    make_temp_dir(dir);
    snprintf(both, sizeof both, "%s/both.bmp", dir);
    snprintf(world, sizeof world, "%s/world.bmp", dir);
    snprintf(minkowski, sizeof minkowski, "%s/minkowski.bmp", dir);
    run_result r = run((const char *const[]){"collide", SCENE, "--pair", "drum,block", "--query", "epa", "--step", "2",
                                             "--both", "--size", "320x120", "--out", both, NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    r = run((const char *const[]){"collide", SCENE, "--pair", "drum,block", "--query", "epa", "--step", "2", "--size",
                                  "160x120", "--out", world, NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    r = run((const char *const[]){"collide", SCENE, "--pair", "drum,block", "--query", "epa", "--step", "2",
                                  "--minkowski", "--size", "160x120", "--out", minkowski, NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    int w2, h2, w1, h1, w3, h3;
    unsigned char *b = read_bmp(both, &w2, &h2), *l = read_bmp(world, &w1, &h1), *m = read_bmp(minkowski, &w3, &h3);
    cr_assert(w2 == 320 && h2 == 120 && w1 == 160 && h1 == 120 && w3 == 160 && h3 == 120);
    for (int y = 0; y < 120; y++) {
        const unsigned char *row = b + 54 + (size_t)y * 320 * 3;
        cr_assert(memcmp(row, l + 54 + (size_t)y * 160 * 3, 160 * 3) == 0, "row %d: the world view", y);
        // The Minkowski view but its first column, the grey line between the views.
        cr_assert(memcmp(row + 161 * 3, m + 54 + (size_t)y * 160 * 3 + 3, 159 * 3) == 0, "row %d: the Minkowski view",
                  y);
    }
    free(b);
    free(l);
    free(m);
    expect_error((const char *const[]){"collide", SCENE, "--pair", "drum,block", "--query", "epa", "--both",
                                       "--minkowski", "--out", both, NULL},
                 2, "--both and --minkowski");
    remove_dir(dir);
}

