/* src/debug/debug_collide.c — a collision query's work in a debug list (sr_debug_collide_trace):
 * the state after one step of a GJK, EPA or SAT trace (softrast/collide.h), in the world view (the
 * shapes, their support points and witnesses) or the Minkowski view (A - B, the origin, the
 * simplex, the polytope, the projected interval), and a legend saying what every colour is. Made
 * only of the list's public items; knows nothing of rasterising. */
#include "debug_internal.h"

#include <stdarg.h>
#include <stdio.h>

/* The palette (sr_rgba8: 0xAABBGGRR). */
#define COLOR_A 0xff3399ffu         // orange
#define COLOR_B 0xffffb34du         // sky blue
#define COLOR_MINKOWSKI 0xffff80c8u // violet
#define COLOR_ORIGIN SR_DEBUG_WHITE
#define COLOR_SIMPLEX SR_DEBUG_YELLOW
#define COLOR_CLOSEST SR_DEBUG_GREEN
#define COLOR_SEARCH SR_DEBUG_MAGENTA
#define COLOR_POLYTOPE SR_DEBUG_CYAN
#define COLOR_FACE 0xff4040ffu // red
#define COLOR_AXIS SR_DEBUG_WHITE
#define COLOR_TESTED SR_DEBUG_GREY

static const char *const kind_names[] = {"GJK", "EPA", "SAT"};

size_t sr_debug_trace_step_count(const sr_collide_trace *trace, sr_debug_trace_kind kind)
{
    if (!trace)
        return 0;
    switch (kind) {
    case SR_DEBUG_TRACE_GJK:
        return trace->gjk ? trace->gjk_count : 0;
    case SR_DEBUG_TRACE_EPA:
        return trace->epa ? trace->epa_count : 0;
    case SR_DEBUG_TRACE_SAT:
        return trace->sat ? trace->sat_count : 0;
    }
    return 0;
}

/* ---- what every view shares ---- */

typedef struct painter {
    sr_debug_list *list;
    sr_vec3 shift; ///< added to Minkowski-space points (the view's origin)
    float size;    ///< a length of the picture (A - B's or the shapes' extent): arrows and offsets
    double radii;  ///< the cores' radii together (sr_shape_core_radius of both)
    /* the legend's lines */
    char title[160], detail[160];
    struct {
        uint32_t color;
        char text[96];
    } keys[12];
    int key_count;
} painter;

static sr_vec3 v3(sr_dvec3 p)
{
    return sr_dvec3_to_vec3(p);
}

/* A point of Minkowski space where it is drawn. */
static sr_vec3 m3(const painter *p, sr_dvec3 q)
{
    return sr_vec3_add(p->shift, v3(q));
}

static sr_debug_style style(uint32_t color, int width)
{
    return sr_debug_style_make(color, width, true);
}

static void key(painter *p, uint32_t color, const char *format, ...) __attribute__((format(printf, 3, 4)));
static void key(painter *p, uint32_t color, const char *format, ...)
{
    if (p->key_count >= (int)(sizeof p->keys / sizeof p->keys[0]))
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(p->keys[p->key_count].text, sizeof p->keys[0].text, format, args);
    va_end(args);
    p->keys[p->key_count++].color = color;
}

static double extent(sr_dbox box)
{
    return fmax(box.max.x - box.min.x, fmax(box.max.y - box.min.y, box.max.z - box.min.z));
}

/* The two shapes' wires. */
static void draw_shapes(painter *p, const sr_shape *a, const sr_shape *b)
{
    sr_debug_shape(p->list, a, sr_debug_style_make(COLOR_A, 1, false));
    sr_debug_shape(p->list, b, sr_debug_style_make(COLOR_B, 1, false));
    key(p, COLOR_A, "A (%s)", sr_shape_type_name(a->type));
    key(p, COLOR_B, "B (%s)", sr_shape_type_name(b->type));
}

/* A - B (its core, and faint around it the whole difference when the cores have radii) and the
 * origin. */
static sr_status draw_minkowski(painter *p, const sr_shape *a, const sr_shape *b, sr_error *err)
{
    sr_hull *hull = NULL;
    double rounding = 0;
    sr_status status = sr_debug_minkowski_hull(a, b, &hull, &rounding, err);
    if (status != SR_OK)
        return status;
    sr_shape core = sr_shape_hull(hull);
    core.pose.position = sr_dvec3_from_vec3(p->shift);
    sr_hull_view view = sr_hull_get_view(hull);
    // A sampled hull (curved cores) has many small faces: faint, so that the steps stand out.
    sr_debug_shape(p->list, &core, style(sr_debug_color_alpha(COLOR_MINKOWSKI, view.vertex_count > 64 ? 0.3f : 0.85f), 1));
    if (rounding > 0 && view.vertex_count <= 96) {
        core.rounding = rounding;
        sr_debug_shape(p->list, &core, style(sr_debug_color_alpha(COLOR_MINKOWSKI, 0.4f), 1));
    }
    sr_dbox box = sr_shape_bounds(&core);
    p->size = (float)fmax(extent(box), 1e-6);
    sr_hull_destroy(hull);
    sr_debug_point(p->list, p->shift, 14.0f, style(COLOR_ORIGIN, 2));
    sr_debug_text(p->list, sr_vec3_add(p->shift, sr_vec3_make(0.02f * p->size, 0, 0)), " O", style(COLOR_ORIGIN, 1));
    if (rounding > 0)
        key(p, COLOR_MINKOWSKI, "A - B of the cores (faint: rounded by %.3g)", rounding);
    else
        key(p, COLOR_MINKOWSKI, "A - B (Minkowski difference)");
    key(p, COLOR_ORIGIN, "O the origin: inside A - B <=> A, B overlap");
    return SR_OK;
}

/* The witnesses on A and B of a core point pair, moved out by the cores' radii along the pair's
 * direction (`normal` from A towards B when given; otherwise from the points). */
static void witnesses(const sr_shape *a, const sr_shape *b, sr_dvec3 *pa, sr_dvec3 *pb, sr_dvec3 normal)
{
    double ra = sr_shape_core_radius(a), rb = sr_shape_core_radius(b);
    if (ra == 0 && rb == 0)
        return;
    sr_dvec3 n = normal;
    if (sr_dvec3_length(n) == 0)
        n = sr_dvec3_sub(*pb, *pa);
    double length = sr_dvec3_length(n);
    if (!(length > 0))
        return;
    n = sr_dvec3_scale(n, 1.0 / length);
    *pa = sr_dvec3_add(*pa, sr_dvec3_scale(n, ra));
    *pb = sr_dvec3_sub(*pb, sr_dvec3_scale(n, rb));
}

/* Where a segment's label goes: off its middle, across it and as far down (-y) as can be, so that
 * the text (drawn right and down of its anchor) keeps off the segment's end dots. */
static sr_vec3 beside_segment(const painter *p, sr_dvec3 a, sr_dvec3 b)
{
    sr_dvec3 middle = sr_dvec3_scale(sr_dvec3_add(a, b), 0.5), u = sr_dvec3_sub(b, a);
    double length = sr_dvec3_length(u);
    sr_dvec3 down = sr_dvec3_make(0, -1, 0);
    if (length > 0) {
        u = sr_dvec3_scale(u, 1.0 / length);
        down = sr_dvec3_sub(down, sr_dvec3_scale(u, sr_dvec3_dot(down, u)));
        down = sr_dvec3_length(down) > 1e-3 ? sr_dvec3_normalize(down) : sr_dvec3_make(1, 0, 0);
    }
    return v3(sr_dvec3_add(middle, sr_dvec3_scale(down, 0.04 * p->size)));
}

static const char *simplex_name(int count)
{
    static const char *const names[] = {"point", "segment", "triangle", "tetrahedron"};
    return count >= 1 && count <= 4 ? names[count - 1] : "?";
}

/* ---- GJK ---- */

static void draw_gjk(painter *p, const sr_shape *a, const sr_shape *b, const sr_gjk_step *s, bool minkowski,
                     bool last)
{
    int n = s->simplex_count < 0 ? 0 : s->simplex_count > 4 ? 4 : s->simplex_count;
    sr_dvec3 w[4], pa = {0, 0, 0}, pb = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        w[i] = sr_dvec3_sub(s->simplex_a[i], s->simplex_b[i]);
        pa = sr_dvec3_add(pa, sr_dvec3_scale(s->simplex_a[i], s->weights[i]));
        pb = sr_dvec3_add(pb, sr_dvec3_scale(s->simplex_b[i], s->weights[i]));
    }
    sr_dvec3 support = sr_dvec3_sub(s->support_a, s->support_b);
    bool has_direction = sr_dvec3_length(s->direction) > 0;
    bool overlap = last && s->upper_bound == 0;
    if (overlap)
        snprintf(p->detail, sizeof p->detail, "simplex: %s, it holds the origin: A and B overlap", simplex_name(n));
    else if (p->radii > 0)
        snprintf(p->detail, sizeof p->detail, "simplex: %s, cores %.4g apart (lower bound %.4g), minus radii %.4g: %s %.4g",
                 simplex_name(n), s->upper_bound, s->lower_bound, p->radii,
                 s->upper_bound > p->radii ? "distance" : "overlap", fabs(s->upper_bound - p->radii));
    else
        snprintf(p->detail, sizeof p->detail, "simplex: %s, distance %.4g (the lower bound %.4g)%s", simplex_name(n),
                 s->upper_bound, s->lower_bound, last ? ": converged" : "");
    if (minkowski) {
        sr_debug_style edge = style(COLOR_SIMPLEX, 3);
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                sr_debug_line(p->list, m3(p, w[i]), m3(p, w[j]), edge);
        uint32_t fill = sr_debug_color_alpha(COLOR_SIMPLEX, 0.22f);
        sr_debug_style none = style(0, 1);
        for (int i = 0; i < n && n >= 3; i++)
            for (int j = i + 1; j < n; j++)
                for (int k = j + 1; k < n; k++)
                    sr_debug_triangle_filled(p->list, m3(p, w[i]), m3(p, w[j]), m3(p, w[k]), fill, none);
        // Lines first, then the dots over them, then their labels.
        sr_debug_line(p->list, p->shift, m3(p, s->closest), style(COLOR_CLOSEST, 2));
        bool search = has_direction && !last;
        if (search) {
            sr_dvec3 d = sr_dvec3_normalize(s->direction);
            double length = fmax(0.35 * p->size, 0.0);
            sr_debug_arrow(p->list, m3(p, s->closest), m3(p, sr_dvec3_add(s->closest, sr_dvec3_scale(d, length))),
                           style(COLOR_SEARCH, 2));
        }
        for (int i = 0; i < n; i++)
            sr_debug_dot(p->list, m3(p, w[i]), 9.0f, style(COLOR_SIMPLEX, 1));
        sr_debug_dot(p->list, m3(p, s->closest), 11.0f, style(COLOR_CLOSEST, 1));
        if (search)
            sr_debug_dot(p->list, m3(p, support), 11.0f, style(COLOR_SEARCH, 1));
        sr_debug_text(p->list, m3(p, s->closest), " v", style(COLOR_CLOSEST, 1));
        if (search)
            sr_debug_text(p->list, m3(p, support), " w", style(COLOR_SEARCH, 1));
        key(p, COLOR_SIMPLEX, "simplex (%s) of this step", simplex_name(n));
        key(p, COLOR_CLOSEST, "v: its point closest to the origin");
        if (!last)
            key(p, COLOR_SEARCH, "search direction -v, w: support of A - B along it");
        return;
    }
    witnesses(a, b, &pa, &pb, sr_dvec3_make(0, 0, 0));
    // Lines first, then the dots over them, then the labels.
    for (int i = 0; i < n; i++)
        sr_debug_line(p->list, v3(s->simplex_a[i]), v3(s->simplex_b[i]),
                      style(sr_debug_color_alpha(COLOR_SIMPLEX, 0.35f), 1));
    sr_debug_line(p->list, v3(pa), v3(pb), style(COLOR_CLOSEST, 2));
    for (int i = 0; i < n; i++) {
        sr_debug_dot(p->list, v3(s->simplex_a[i]), 8.0f, style(COLOR_SIMPLEX, 1));
        sr_debug_dot(p->list, v3(s->simplex_b[i]), 8.0f, style(COLOR_SIMPLEX, 1));
    }
    bool search = has_direction && !last;
    if (search) {
        sr_debug_dot(p->list, v3(s->support_a), 11.0f, style(COLOR_SEARCH, 1));
        sr_debug_dot(p->list, v3(s->support_b), 11.0f, style(COLOR_SEARCH, 1));
    }
    sr_debug_dot(p->list, v3(pa), 11.0f, style(COLOR_CLOSEST, 1));
    sr_debug_dot(p->list, v3(pb), 11.0f, style(COLOR_CLOSEST, 1));
    if (search) {
        sr_debug_text(p->list, v3(s->support_a), " w(A)", style(COLOR_SEARCH, 1));
        sr_debug_text(p->list, v3(s->support_b), " w(B)", style(COLOR_SEARCH, 1));
    }
    char text[48];
    snprintf(text, sizeof text, " %.4g", overlap ? 0.0 : s->upper_bound - p->radii);
    sr_debug_text(p->list, beside_segment(p, pa, pb), text, style(COLOR_CLOSEST, 1));
    key(p, COLOR_SIMPLEX, "simplex vertices' points on A and on B");
    key(p, COLOR_CLOSEST, "closest points so far, their distance");
    if (!last)
        key(p, COLOR_SEARCH, "w: support points on A and B (A - B along -v)");
}

/* ---- EPA ---- */

/* Whether an EPA step's faces and vertices were all kept by the trace. */
static sr_status check_epa(const sr_collide_trace *trace, const sr_epa_step *s, sr_error *err)
{
    if ((size_t)s->face_first + s->face_count > trace->epa_face_count || s->vertex_count > trace->epa_vertex_count ||
        !trace->epa_faces || !trace->epa_vertices)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "the trace's EPA step refers to faces or vertices it did not keep (%zu dropped): give "
                            "the trace larger epa_faces and epa_vertices capacities",
                            trace->dropped);
    const sr_epa_face *faces = trace->epa_faces + s->face_first;
    for (uint32_t f = 0; f < s->face_count; f++)
        for (int k = 0; k < 3; k++)
            if (faces[f].v[k] >= s->vertex_count)
                return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                    "the trace's EPA face %u names vertex %u of %u", f, faces[f].v[k], s->vertex_count);
    if (s->chosen_face == UINT32_MAX || s->face_count == 0)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "the trace's EPA step lost its faces (%zu dropped): give the trace larger epa_faces "
                            "and epa_vertices capacities",
                            trace->dropped);
    return SR_OK;
}

static void draw_epa(painter *p, const sr_shape *a, const sr_shape *b, const sr_collide_trace *trace,
                     const sr_epa_step *s, bool minkowski)
{
    const sr_epa_face *faces = trace->epa_faces + s->face_first;
    bool chosen = s->chosen_face >= s->face_first && s->chosen_face < s->face_first + s->face_count;
    const sr_epa_vertex *vertices = trace->epa_vertices;
    sr_dvec3 pa = {0, 0, 0}, pb = {0, 0, 0}, normal = {0, 0, 1};
    double distance = 0;
    if (chosen) {
        const sr_epa_face *face = &trace->epa_faces[s->chosen_face];
        normal = face->normal;
        distance = face->distance;
        sr_dvec3 weights;
        sr_collide_closest_point_triangle(sr_dvec3_scale(normal, distance), vertices[face->v[0]].point,
                                          vertices[face->v[1]].point, vertices[face->v[2]].point, &weights);
        const double wk[3] = {weights.x, weights.y, weights.z};
        for (int k = 0; k < 3; k++) {
            pa = sr_dvec3_add(pa, sr_dvec3_scale(vertices[face->v[k]].a, wk[k]));
            pb = sr_dvec3_add(pb, sr_dvec3_scale(vertices[face->v[k]].b, wk[k]));
        }
    }
    snprintf(p->detail, sizeof p->detail, "polytope: %u vertices, %u faces; depth in [%.4g, %.4g]", s->vertex_count,
             s->face_count, s->lower_bound, s->upper_bound);
    if (minkowski) {
        sr_debug_style edge = style(COLOR_POLYTOPE, 1);
        for (uint32_t f = 0; f < s->face_count; f++)
            for (int k = 0; k < 3; k++)
                sr_debug_line(p->list, m3(p, vertices[faces[f].v[k]].point),
                              m3(p, vertices[faces[f].v[(k + 1) % 3]].point), edge);
        if (chosen) {
            const sr_epa_face *face = &trace->epa_faces[s->chosen_face];
            sr_debug_triangle_filled(p->list, m3(p, vertices[face->v[0]].point), m3(p, vertices[face->v[1]].point),
                                     m3(p, vertices[face->v[2]].point), sr_debug_color_alpha(COLOR_FACE, 0.35f),
                                     style(COLOR_FACE, 2));
            sr_dvec3 foot = sr_dvec3_scale(normal, distance);
            sr_debug_arrow(p->list, p->shift, m3(p, foot), style(COLOR_FACE, 2));
            sr_debug_line(p->list, m3(p, foot), m3(p, s->support.point), style(COLOR_SEARCH, 1));
        }
        sr_debug_dot(p->list, m3(p, s->support.point), 11.0f, style(COLOR_SEARCH, 1));
        sr_debug_text(p->list, m3(p, s->support.point), " w", style(COLOR_SEARCH, 1));
        key(p, COLOR_POLYTOPE, "EPA polytope inside A - B");
        key(p, COLOR_FACE, "its face nearest the origin, and its normal");
        key(p, COLOR_SEARCH, "w: support of A - B along that normal");
        return;
    }
    witnesses(a, b, &pa, &pb, normal);
    sr_debug_dot(p->list, v3(s->support.a), 11.0f, style(COLOR_SEARCH, 1));
    sr_debug_dot(p->list, v3(s->support.b), 11.0f, style(COLOR_SEARCH, 1));
    sr_debug_text(p->list, v3(s->support.a), " w(A)", style(COLOR_SEARCH, 1));
    sr_debug_text(p->list, v3(s->support.b), " w(B)", style(COLOR_SEARCH, 1));
    if (chosen) {
        sr_debug_arrow(p->list, v3(pb), v3(pa), style(COLOR_FACE, 2));
        sr_debug_dot(p->list, v3(pa), 11.0f, style(COLOR_CLOSEST, 1));
        sr_debug_dot(p->list, v3(pb), 11.0f, style(COLOR_CLOSEST, 1));
        char text[48];
        snprintf(text, sizeof text, " depth %.4g", sr_dvec3_length(sr_dvec3_sub(pa, pb)));
        sr_debug_text(p->list, beside_segment(p, pa, pb), text, style(COLOR_CLOSEST, 1));
    }
    key(p, COLOR_CLOSEST, "deepest points of this face's estimate");
    key(p, COLOR_FACE, "moving B by this arrow separates them");
    key(p, COLOR_SEARCH, "w: support points on A and B along the face normal");
}

/* ---- SAT ---- */

static const char *feature_text(const sr_sat_axis *axis, char *out, size_t size)
{
    switch (axis->kind) {
    case SR_SAT_FACE_A:
        snprintf(out, size, "face %d of A", axis->feature_a);
        break;
    case SR_SAT_FACE_B:
        snprintf(out, size, "face %d of B", axis->feature_b);
        break;
    default:
        snprintf(out, size, "edge %d of A x edge %d of B", axis->feature_a, axis->feature_b);
        break;
    }
    return out;
}

/* A unit vector across unit `d`. */
static sr_dvec3 across(sr_dvec3 d, sr_dvec3 prefer)
{
    sr_dvec3 s = sr_dvec3_sub(prefer, sr_dvec3_scale(d, sr_dvec3_dot(prefer, d)));
    if (sr_dvec3_length(s) < 1e-6) {
        sr_dvec3 helper = fabs(d.x) < 0.6 ? sr_dvec3_make(1, 0, 0) : sr_dvec3_make(0, 1, 0);
        s = sr_dvec3_cross(d, helper);
    }
    return sr_dvec3_normalize(s);
}

static void draw_sat(painter *p, const sr_shape *a, const sr_shape *b, const sr_sat_axis *axes, size_t step,
                     bool minkowski)
{
    size_t best = 0;
    for (size_t i = 1; i <= step; i++)
        if (axes[i].separation > axes[best].separation)
            best = i;
    const sr_sat_axis *s = &axes[step];
    char what[64];
    snprintf(p->detail, sizeof p->detail, "axis: %s, %s %.4g; best so far axis %zu (%s %.4g)",
             feature_text(s, what, sizeof what), s->separation > 0 ? "gap" : "overlap", fabs(s->separation), best,
             axes[best].separation > 0 ? "gap" : "overlap", fabs(axes[best].separation));
    sr_dvec3 centre = minkowski ? sr_dvec3_from_vec3(p->shift)
                                : sr_dvec3_scale(sr_dvec3_add(a->pose.position, b->pose.position), 0.5);
    double arrow = 0.45 * p->size;
    for (size_t i = 0; i <= step; i++) {
        if (i == step || i == best)
            continue;
        sr_debug_arrow(p->list, v3(centre), v3(sr_dvec3_add(centre, sr_dvec3_scale(axes[i].axis, arrow))),
                       style(sr_debug_color_alpha(COLOR_TESTED, 0.7f), 1));
    }
    if (best != step)
        sr_debug_arrow(p->list, v3(centre), v3(sr_dvec3_add(centre, sr_dvec3_scale(axes[best].axis, arrow))),
                       style(COLOR_CLOSEST, 2));
    sr_dvec3 d = s->axis;
    // The axis as a line through the centre, and the intervals on a parallel line beside the shapes.
    sr_dvec3 side = across(d, sr_dvec3_make(0, 1, 0));
    if (minkowski) {
        double lo = s->min_a - s->max_b, hi = s->max_a - s->min_b;
        double reach = fmax(fabs(lo), fabs(hi)) + 0.1 * p->size;
        sr_debug_line(p->list, v3(sr_dvec3_sub(centre, sr_dvec3_scale(d, reach))),
                      v3(sr_dvec3_add(centre, sr_dvec3_scale(d, reach))), style(COLOR_AXIS, 1));
        sr_debug_arrow(p->list, v3(centre), v3(sr_dvec3_add(centre, sr_dvec3_scale(d, arrow))), style(COLOR_AXIS, 2));
        sr_dvec3 base = sr_dvec3_add(centre, sr_dvec3_scale(side, 0.04 * p->size));
        sr_debug_line(p->list, v3(sr_dvec3_add(base, sr_dvec3_scale(d, lo))), v3(sr_dvec3_add(base, sr_dvec3_scale(d, hi))),
                      style(COLOR_MINKOWSKI, 4));
        if (lo > 0 || hi < 0) {
            double end = lo > 0 ? lo : hi;
            sr_debug_line(p->list, v3(base), v3(sr_dvec3_add(base, sr_dvec3_scale(d, end))), style(COLOR_CLOSEST, 2));
        }
        key(p, COLOR_AXIS, "axis %zu: %s", step, what);
        key(p, COLOR_MINKOWSKI, "A - B projected on it (0 outside: separated)");
        key(p, COLOR_CLOSEST, "best axis so far (largest separation)");
        key(p, COLOR_TESTED, "axes tested before");
        return;
    }
    double reach = 0.5 * p->size;
    sr_debug_arrow(p->list, v3(centre), v3(sr_dvec3_add(centre, sr_dvec3_scale(d, arrow))), style(COLOR_AXIS, 2));
    // The line beside both shapes: past their extent across the axis.
    double beside = 0.0;
    sr_dbox boxes[2] = {sr_shape_bounds(a), sr_shape_bounds(b)};
    for (int k = 0; k < 2; k++)
        for (int corner = 0; corner < 8; corner++) {
            sr_dvec3 q = sr_dvec3_make(corner & 1 ? boxes[k].max.x : boxes[k].min.x,
                                       corner & 2 ? boxes[k].max.y : boxes[k].min.y,
                                       corner & 4 ? boxes[k].max.z : boxes[k].min.z);
            beside = fmax(beside, sr_dvec3_dot(sr_dvec3_sub(q, centre), side));
        }
    sr_dvec3 base = sr_dvec3_add(centre, sr_dvec3_scale(side, beside + 0.12 * p->size));
    base = sr_dvec3_sub(base, sr_dvec3_scale(d, sr_dvec3_dot(base, d))); // value 0 of the axis at `base`
    sr_dvec3 step_side = sr_dvec3_scale(side, 0.04 * p->size);
    double lo = fmin(s->min_a, s->min_b), hi = fmax(s->max_a, s->max_b);
    sr_debug_line(p->list, v3(sr_dvec3_add(base, sr_dvec3_scale(d, lo - 0.1 * reach))),
                  v3(sr_dvec3_add(base, sr_dvec3_scale(d, hi + 0.1 * reach))),
                  style(sr_debug_color_alpha(COLOR_AXIS, 0.6f), 1));
    sr_dvec3 base_a = sr_dvec3_add(base, step_side), base_b = sr_dvec3_sub(base, step_side);
    sr_debug_line(p->list, v3(sr_dvec3_add(base_a, sr_dvec3_scale(d, s->min_a))),
                  v3(sr_dvec3_add(base_a, sr_dvec3_scale(d, s->max_a))), style(COLOR_A, 4));
    sr_debug_line(p->list, v3(sr_dvec3_add(base_b, sr_dvec3_scale(d, s->min_b))),
                  v3(sr_dvec3_add(base_b, sr_dvec3_scale(d, s->max_b))), style(COLOR_B, 4));
    // The gap (green) or the overlap (red) between A's end and B's start along the axis.
    uint32_t color = s->separation > 0 ? COLOR_CLOSEST : COLOR_FACE;
    sr_dvec3 from = sr_dvec3_add(base, sr_dvec3_scale(d, s->max_a)), to = sr_dvec3_add(base, sr_dvec3_scale(d, s->min_b));
    sr_debug_line(p->list, v3(from), v3(to), style(color, 3));
    char text[48];
    snprintf(text, sizeof text, " %s %.4g", s->separation > 0 ? "gap" : "overlap", fabs(s->separation));
    sr_debug_text(p->list, v3(sr_dvec3_add(sr_dvec3_scale(sr_dvec3_add(from, to), 0.5), sr_dvec3_scale(step_side, 2))),
                  text, style(color, 1));
    key(p, COLOR_AXIS, "axis %zu: %s", step, what);
    key(p, COLOR_A, "A projected on it");
    key(p, COLOR_B, "B projected on it");
    key(p, color, "%s along it", s->separation > 0 ? "gap (green): separated" : "overlap (red)");
    key(p, COLOR_CLOSEST, "best axis so far (largest separation)");
    key(p, COLOR_TESTED, "axes tested before");
}

/* ---- the legend ---- */

static void draw_legend(const painter *p, const sr_debug_trace_desc *desc)
{
    int scale = desc->legend_scale < 1 ? 1 : desc->legend_scale > 4 ? 4 : desc->legend_scale;
    float x = desc->legend_x, y = desc->legend_y, line = 12.0f * (float)scale, swatch = 8.0f * (float)scale;
    sr_debug_text_2d(p->list, x, y, p->title, sr_debug_style_make(SR_DEBUG_WHITE, scale, true));
    y += line;
    sr_debug_text_2d(p->list, x, y, p->detail, sr_debug_style_make(0xffd0d0d0u, scale, true));
    y += line * 1.5f;
    for (int i = 0; i < p->key_count; i++) {
        sr_debug_rect_2d(p->list, x, y + 0.1f * line, swatch, swatch, true,
                         sr_debug_style_make(p->keys[i].color, 1, true));
        sr_debug_text_2d(p->list, x + swatch + 4.0f * (float)scale, y, p->keys[i].text,
                         sr_debug_style_make(p->keys[i].color, scale, true));
        y += line;
    }
}

sr_status sr_debug_collide_trace(sr_debug_list *list, const sr_shape *a, const sr_shape *b,
                                 const sr_collide_trace *trace, const sr_debug_trace_desc *desc, sr_error *err)
{
    if (!list || !trace || !desc)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s is NULL", !list ? "list" : !trace ? "trace" : "desc");
    sr_error why = {0};
    if (!a || sr_shape_validate(a, &why) != SR_OK)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "shape a: %s", a ? why.message : "NULL");
    if (!b || sr_shape_validate(b, &why) != SR_OK)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "shape b: %s", b ? why.message : "NULL");
    if ((unsigned)desc->kind > SR_DEBUG_TRACE_SAT)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "desc->kind %d is not GJK, EPA or SAT", (int)desc->kind);
    size_t count = sr_debug_trace_step_count(trace, desc->kind);
    const char *name = kind_names[desc->kind];
    if (count == 0)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "the trace holds no %s step%s", name,
                            desc->kind == SR_DEBUG_TRACE_GJK ? " (pairs of points, spheres, segments and capsules are "
                                                               "answered in closed form)"
                            : desc->kind == SR_DEBUG_TRACE_EPA ? " (EPA runs only when the cores overlap and neither "
                                                                 "SAT nor a closed form answers: a cylinder or a cone "
                                                                 "against a shape that is not coaxial)"
                                                               : " (SAT takes polytopes without rounding)");
    if (desc->step >= 0 && (size_t)desc->step >= count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "step %d: the trace holds %zu %s steps (0 to %zu)",
                            desc->step, count, name, count - 1);
    size_t step = desc->step < 0 ? count - 1 : (size_t)desc->step;
    bool last = step == count - 1;
    if (desc->kind == SR_DEBUG_TRACE_EPA) {
        sr_status status = check_epa(trace, &trace->epa[step], err);
        if (status != SR_OK)
            return status;
    }

    painter p = {.list = list, .shift = desc->minkowski_origin, .radii = sr_shape_core_radius(a) + sr_shape_core_radius(b)};
    sr_dbox both = sr_shape_bounds(a), bb = sr_shape_bounds(b);
    both.min = sr_dvec3_make(fmin(both.min.x, bb.min.x), fmin(both.min.y, bb.min.y), fmin(both.min.z, bb.min.z));
    both.max = sr_dvec3_make(fmax(both.max.x, bb.max.x), fmax(both.max.y, bb.max.y), fmax(both.max.z, bb.max.z));
    p.size = (float)fmax(extent(both), 1e-6);
    snprintf(p.title, sizeof p.title, "%s step %zu of %zu (0 to %zu)%s, %s view", name, step, count, count - 1,
             last ? ", the last" : "", desc->minkowski ? "Minkowski" : "world");
    if (desc->minkowski) {
        sr_status status = draw_minkowski(&p, a, b, err);
        if (status != SR_OK)
            return status;
    } else {
        draw_shapes(&p, a, b);
    }
    switch (desc->kind) {
    case SR_DEBUG_TRACE_GJK:
        draw_gjk(&p, a, b, &trace->gjk[step], desc->minkowski, last);
        break;
    case SR_DEBUG_TRACE_EPA:
        draw_epa(&p, a, b, trace, &trace->epa[step], desc->minkowski);
        break;
    case SR_DEBUG_TRACE_SAT:
        draw_sat(&p, a, b, trace->sat, step, desc->minkowski);
        break;
    }
    if (desc->legend)
        draw_legend(&p, desc);
    return SR_OK;
}
