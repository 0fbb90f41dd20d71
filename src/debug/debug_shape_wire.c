/* src/debug/debug_shape_wire.c — the wires of collide shapes (softrast/collide.h), rounding
 * included, in the shape's local frame: solids of revolution from their profile (spheres,
 * capsules, cylinders, cones, rounded points and segments) and polytopes from their faces and
 * edges (boxes, triangles, hulls). The same code counts the segments (what an item costs), writes
 * them into a sink at draw time, and writes a hull's wire into the list when the item is added, so
 * that the three cannot disagree. Knows nothing of the list's storage or of rasterising. */
#include "debug_internal.h"

#define CIRCLE SR_DEBUG_CIRCLE_SEGMENTS
#define HALF_PI 1.57079632679489661923f

void sr_debug_wire_line(debug_wire *wire, sr_vec3 p, sr_vec3 q)
{
    if (wire->sink) {
        sr_vec3 world[2];
        const sr_vec3 local[2] = {p, q};
        for (int k = 0; k < 2; k++)
            world[k] = sr_vec3_add(wire->position, sr_vec3_add(sr_vec3_add(sr_vec3_scale(wire->axes[0], local[k].x),
                                                                           sr_vec3_scale(wire->axes[1], local[k].y)),
                                                               sr_vec3_scale(wire->axes[2], local[k].z)));
        sr_debug_sink_segment(wire->sink, world[0], world[1], wire->color, wire->color);
    } else if (wire->pairs) {
        wire->pairs[2 * wire->count] = p;
        wire->pairs[2 * wire->count + 1] = q;
    }
    wire->count++;
}

/* Segments of an arc of `angle` radians: a full circle's 32 in proportion, at least one. A NaN
 * or infinite angle (wild input) gets one. */
static int arc_segments(float angle)
{
    if (!(angle > 0.0f) || !(angle <= 2.0f * SR_PI))
        return 1;
    int n = (int)ceilf(angle * (float)CIRCLE / (2.0f * SR_PI) - 1e-3f);
    return n < 1 ? 1 : n;
}

/* ---- solids of revolution ---- */

/* A piece of a profile in the (rho, z) half plane: a straight segment from p to q, or an arc of
 * `radius` around `centre` from angle a0 to a1 (angles of the outward normal, from +rho towards
 * +z), whose ends are p and q exactly. */
typedef struct piece {
    sr_vec2 p, q, centre;
    float a0, a1, radius;
    bool arc;
} piece;

/* The profile's point at angle a of an arc (its ends exact). */
static sr_vec2 arc_point(const piece *pc, int k, int n)
{
    if (k == 0)
        return pc->p;
    if (k == n)
        return pc->q;
    float a = pc->a0 + (pc->a1 - pc->a0) * (float)k / (float)n;
    return sr_vec2_make(pc->centre.x + pc->radius * cosf(a), pc->centre.y + pc->radius * sinf(a));
}

/* The outward unit normal of the profile edge a -> b (the profile runs up its right side: the
 * normal is the direction turned clockwise), as a vector and an angle. */
static sr_vec2 edge_normal(sr_vec2 a, sr_vec2 b)
{
    float dr = b.x - a.x, dz = b.y - a.y, length = sqrtf(dr * dr + dz * dz);
    return sr_vec2_make(dz / length, -dr / length);
}

static sr_vec2 offset(sr_vec2 p, sr_vec2 normal, float r)
{
    return sr_vec2_make(p.x + r * normal.x, p.y + r * normal.y);
}

/* Adds an arc around `centre` from normal n0 to n1 (counter-clockwise, less than a half turn
 * past -z to +z), split where it passes the +rho direction so that its widest ring is a piece
 * end. */
static int add_arc(piece *out, int count, sr_vec2 centre, sr_vec2 n0, sr_vec2 n1, float r)
{
    float a0 = atan2f(n0.y, n0.x), a1 = atan2f(n1.y, n1.x);
    if (!(a1 - a0 > 1e-6f))
        return count;
    if (a0 < 0.0f && a1 > 0.0f) {
        sr_vec2 side = sr_vec2_make(1.0f, 0.0f);
        out[count++] = (piece){offset(centre, n0, r), offset(centre, side, r), centre, a0, 0.0f, r, true};
        out[count++] = (piece){offset(centre, side, r), offset(centre, n1, r), centre, 0.0f, a1, r, true};
    } else {
        out[count++] = (piece){offset(centre, n0, r), offset(centre, n1, r), centre, a0, a1, r, true};
    }
    return count;
}

/* The profile of the core `core` rounded by r: arcs around its vertices (from the normal of the
 * edge before to that of the edge after; -z before the first, +z after the last) and its edges
 * moved out along their normals. At most 3 pieces per core point. */
static int profile(const sr_vec2 *core, int count, float r, piece *out)
{
    int pieces = 0;
    sr_vec2 normal_in = sr_vec2_make(0.0f, -1.0f);
    for (int i = 0; i < count; i++) {
        bool last = i + 1 == count;
        sr_vec2 normal_out = last ? sr_vec2_make(0.0f, 1.0f) : edge_normal(core[i], core[i + 1]);
        if (r > 0.0f)
            pieces = add_arc(out, pieces, core[i], normal_in, normal_out, r);
        if (!last)
            out[pieces++] = (piece){
                offset(core[i], normal_out, r), offset(core[i + 1], normal_out, r), core[i], 0.0f, 0.0f, 0.0f, false};
        normal_in = normal_out;
    }
    return pieces;
}

/* The local point of profile point (rho, z) at azimuth direction `radial` (unit, across z). */
static sr_vec3 revolved_point(sr_vec3 origin, sr_vec3 radial, sr_vec3 z_axis, sr_vec2 p)
{
    return sr_vec3_add(origin, sr_vec3_add(sr_vec3_scale(radial, p.x), sr_vec3_scale(z_axis, p.y)));
}

static void ring(debug_wire *wire, sr_vec3 origin, const sr_vec3 axes[3], sr_vec2 at)
{
    sr_vec3 centre = sr_vec3_add(origin, sr_vec3_scale(axes[2], at.y));
    sr_vec3 previous = sr_vec3_add(centre, sr_vec3_scale(axes[0], at.x));
    for (int k = 1; k <= CIRCLE; k++) {
        float angle = 2.0f * SR_PI * (float)(k % CIRCLE) / (float)CIRCLE;
        sr_vec3 p = sr_vec3_add(centre, sr_vec3_add(sr_vec3_scale(axes[0], at.x * cosf(angle)),
                                                    sr_vec3_scale(axes[1], at.x * sinf(angle))));
        if (k == CIRCLE)
            p = sr_vec3_add(centre, sr_vec3_scale(axes[0], at.x)); // closes exactly
        sr_debug_wire_line(wire, previous, p);
        previous = p;
    }
}

void sr_debug_wire_revolved(debug_wire *wire, sr_vec3 origin, const sr_vec3 axes[3], const sr_vec2 *core, int count,
                            float rounding)
{
    // The core's points without repeats (a zero radius or height makes some coincide).
    sr_vec2 points[8];
    int n = 0;
    for (int i = 0; i < count && n < 8; i++)
        if (n == 0 || core[i].x != points[n - 1].x || core[i].y != points[n - 1].y)
            points[n++] = core[i];
    piece pieces[3 * 8];
    int piece_count = profile(points, n, rounding > 0.0f ? rounding : 0.0f, pieces);
    // Rings where pieces meet and at the ends (the pieces are contiguous: each starts where the
    // one before ends, bit for bit), off the axis: a cap's rim, the widest circle.
    for (int i = piece_count > 0 ? -1 : 0; i < piece_count; i++) {
        sr_vec2 at = i < 0 ? pieces[0].p : pieces[i].q;
        if (at.x > 0.0f)
            ring(wire, origin, axes, at);
    }
    // The profile in four half planes. Flat caps (a straight piece across the axis) are left to
    // their rings; a piece on the axis itself is drawn once.
    const sr_vec3 radials[4] = {axes[0], axes[1], sr_vec3_negate(axes[0]), sr_vec3_negate(axes[1])};
    for (int m = 0; m < 4; m++)
        for (int i = 0; i < piece_count; i++) {
            const piece *pc = &pieces[i];
            if (!pc->arc) {
                bool cap = pc->p.y == pc->q.y, on_axis = pc->p.x == 0.0f && pc->q.x == 0.0f;
                if (!cap && (!on_axis || m == 0))
                    sr_debug_wire_line(wire, revolved_point(origin, radials[m], axes[2], pc->p),
                                       revolved_point(origin, radials[m], axes[2], pc->q));
                continue;
            }
            int segments = arc_segments(pc->a1 - pc->a0);
            sr_vec3 previous = revolved_point(origin, radials[m], axes[2], pc->p);
            for (int k = 1; k <= segments; k++) {
                sr_vec3 p = revolved_point(origin, radials[m], axes[2], arc_point(pc, k, segments));
                sr_debug_wire_line(wire, previous, p);
                previous = p;
            }
        }
}

/* ---- polytopes ---- */

static sr_vec3 to_float(sr_dvec3 v)
{
    return sr_vec3_make((float)v.x, (float)v.y, (float)v.z);
}

/* The arc of radius r around vertex v from normal n1 to normal n2 through the side of `middle`
 * (a direction between them: their bisector, or across the edge for opposite normals). */
static void edge_arc(debug_wire *wire, sr_dvec3 v, sr_dvec3 n1, sr_dvec3 n2, sr_dvec3 middle, double r)
{
    sr_dvec3 w = sr_dvec3_sub(middle, sr_dvec3_scale(n1, sr_dvec3_dot(middle, n1)));
    double length = sr_dvec3_length(w);
    if (!(length > 0.0))
        return;
    w = sr_dvec3_scale(w, 1.0 / length);
    double angle = atan2(sr_dvec3_dot(n2, w), sr_dvec3_dot(n2, n1));
    if (!(angle > 1e-6))
        return;
    int segments = arc_segments((float)angle);
    sr_vec3 previous = to_float(sr_dvec3_add(v, sr_dvec3_scale(n1, r)));
    for (int k = 1; k <= segments; k++) {
        double a = angle * (double)k / (double)segments;
        sr_dvec3 n = k == segments ? n2 : sr_dvec3_add(sr_dvec3_scale(n1, cos(a)), sr_dvec3_scale(w, sin(a)));
        sr_vec3 p = to_float(sr_dvec3_add(v, sr_dvec3_scale(n, r)));
        sr_debug_wire_line(wire, previous, p);
        previous = p;
    }
}

/* The centre of face f's loop. */
static sr_dvec3 face_centre(const sr_hull_view *view, uint32_t f)
{
    const sr_hull_face *face = &view->faces[f];
    sr_dvec3 sum = {0, 0, 0};
    for (uint32_t k = 0; k < face->count; k++)
        sum = sr_dvec3_add(sum, view->vertices[view->face_vertices[face->first + k]]);
    return sr_dvec3_scale(sum, 1.0 / (double)(face->count ? face->count : 1));
}

void sr_debug_wire_polytope(debug_wire *wire, const sr_hull_view *view, const uint32_t *edge_faces, float rounding)
{
    double r = rounding > 0.0f ? rounding : 0.0;
    if (r == 0.0 || view->face_count == 0) {
        for (size_t e = 0; e < view->edge_count; e++)
            sr_debug_wire_line(wire, to_float(view->vertices[view->edges[2 * e]]),
                               to_float(view->vertices[view->edges[2 * e + 1]]));
        return;
    }
    // The faces moved out by the rounding.
    for (size_t f = 0; f < view->face_count; f++) {
        const sr_hull_face *face = &view->faces[f];
        sr_dvec3 out = sr_dvec3_scale(face->normal, r);
        for (uint32_t k = 0; k < face->count; k++) {
            uint32_t a = view->face_vertices[face->first + k];
            uint32_t b = view->face_vertices[face->first + (k + 1) % face->count];
            sr_debug_wire_line(wire, to_float(sr_dvec3_add(view->vertices[a], out)),
                               to_float(sr_dvec3_add(view->vertices[b], out)));
        }
    }
    // Around each edge, at both its ends, the arc from one face's normal to the other's.
    for (size_t e = 0; e < view->edge_count; e++) {
        uint32_t f1 = edge_faces[2 * e], f2 = edge_faces[2 * e + 1];
        if (f1 >= view->face_count || f2 >= view->face_count)
            continue;
        sr_dvec3 n1 = view->faces[f1].normal, n2 = view->faces[f2].normal;
        sr_dvec3 a = view->vertices[view->edges[2 * e]], b = view->vertices[view->edges[2 * e + 1]];
        sr_dvec3 middle = sr_dvec3_add(n1, n2);
        if (sr_dvec3_length(middle) < 1e-3) {
            // Opposite faces (a flat polygon's two sides): the half turn goes out across the edge.
            middle = sr_dvec3_cross(sr_dvec3_sub(b, a), n1);
            sr_dvec3 mid = sr_dvec3_scale(sr_dvec3_add(a, b), 0.5);
            if (sr_dvec3_dot(middle, sr_dvec3_sub(mid, face_centre(view, f1))) < 0.0)
                middle = sr_dvec3_negate(middle);
        }
        edge_arc(wire, a, n1, n2, middle, r);
        edge_arc(wire, b, n1, n2, middle, r);
    }
    if (view->dimension != 2)
        return;
    // A flat polygon's rim in its plane (a rounded polygon's outline, as in 2D): each edge moved out
    // across itself, and around each vertex the arc from one edge's outward direction to the next.
    const sr_hull_face *face = &view->faces[0];
    const uint32_t *loop = view->face_vertices + face->first;
    for (uint32_t k = 0; k < face->count; k++) {
        sr_dvec3 a = view->vertices[loop[k]], b = view->vertices[loop[(k + 1) % face->count]];
        sr_dvec3 c = view->vertices[loop[(k + 2) % face->count]];
        // The loop runs counter-clockwise around the normal: edge x normal points out of it.
        sr_dvec3 out_ab = sr_dvec3_normalize(sr_dvec3_cross(sr_dvec3_sub(b, a), face->normal));
        sr_dvec3 out_bc = sr_dvec3_normalize(sr_dvec3_cross(sr_dvec3_sub(c, b), face->normal));
        sr_debug_wire_line(wire, to_float(sr_dvec3_add(a, sr_dvec3_scale(out_ab, r))),
                           to_float(sr_dvec3_add(b, sr_dvec3_scale(out_ab, r))));
        edge_arc(wire, b, out_ab, out_bc, sr_dvec3_add(out_ab, out_bc), r);
    }
}
