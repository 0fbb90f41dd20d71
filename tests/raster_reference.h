/* tests/raster_reference.h — independent references for the rasteriser's tests (tests/test_raster.c,
 * tests/test_raster_clip.c) and for the oracle of the draw fuzz target (tests/fuzz/fuzz_draw_oracle.c).
 * They restate DESIGN.md's conventions in double precision and in another form than src/raster/:
 *   - the coverage of a triangle given in 24.8 fixed point, with the top-left rule stated
 *     geometrically (orientation-free sign tests, not the pipeline's biased edge functions);
 *   - what a triangle or a planar convex polygon given in clip space covers once clipped against the
 *     w, near and far planes, as homogeneous edge functions (Olano and Greer, "Triangle scan conversion
 *     using 2D homogeneous coordinates", 1997) instead of clipping: no new vertices, no snapping.
 * Header-only (static inline) so that each test program takes what it uses. Knows nothing of the
 * pipeline's internals. */
#ifndef SR_TESTS_RASTER_REFERENCE_H
#define SR_TESTS_RASTER_REFERENCE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/// Does the triangle given in 24.8 fixed-point window coordinates (y down) cover the centre of pixel
/// (px, py)? A centre strictly inside is covered; one exactly on an edge is covered when that edge is a
/// top edge (horizontal, the triangle below it) or a left edge (not horizontal, the triangle to its
/// right), so that a centre on an edge shared by two triangles is covered by exactly one of them.
/// Zero-area triangles cover nothing.
static inline bool reference_fixed_covers(const int64_t x[3], const int64_t y[3], int px, int py)
{
    int64_t cx = (int64_t)px * 256 + 128, cy = (int64_t)py * 256 + 128;
    int64_t area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
    if (area == 0)
        return false;
    for (int k = 0; k < 3; k++) {
        int a = k, b = (k + 1) % 3, c = (k + 2) % 3;
        int64_t side_c = (x[b] - x[a]) * (y[c] - y[a]) - (y[b] - y[a]) * (x[c] - x[a]);
        int64_t side_p = (x[b] - x[a]) * (cy - y[a]) - (y[b] - y[a]) * (cx - x[a]);
        if (side_p != 0) {
            if ((side_p > 0) != (side_c > 0))
                return false;
            continue;
        }
        bool top_or_left;
        if (y[a] == y[b]) {
            top_or_left = y[c] > y[a]; // horizontal edge with the triangle below it (y down)
        } else {
            // Is the third vertex to the right of the edge's line at its own height?
            int64_t d = (x[c] - x[a]) * (y[b] - y[a]) - (y[c] - y[a]) * (x[b] - x[a]);
            top_or_left = (d > 0) == (y[b] > y[a]);
        }
        if (!top_or_left)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Clip-space regions                                                                          */

/// Most polygon edges of a region; its lines are the edges, then the w, near and far planes.
#define REFERENCE_MAX_EDGES 24
#define REFERENCE_MAX_LINES (REFERENCE_MAX_EDGES + 3)

/// What a planar convex polygon given in clip space covers on screen, clipped against w >= w_min,
/// z >= 0 and z <= w. For p = (X, Y, 1), X and Y in NDC, the polygon's point seen through p is s p
/// in (x, y, w) for an s > 0 exactly when p is in the cone over the vertices' u = (x, y, w): the edge
/// functions det(u_i, u_i+1, p) all have the cone's sign. On the polygon's plane, z = zeta . u and
/// 1 / s = n . p, so the three planes are linear in p too: every constraint is a line
/// a X + b Y + c >= 0, and the window depth z / w = zeta . p is linear in screen space.
/// Every coefficient carries a bound on its rounding error, so that a classification is never
/// wrong, only sometimes undecided.
typedef struct reference_region {
    double line[REFERENCE_MAX_LINES][3];
    double noise[REFERENCE_MAX_LINES]; ///< bound on the error of the line's coefficients (sum)
    int line_count;
    double depth[3];    ///< window depth depth[0] X + depth[1] Y + depth[2] inside
    double depth_noise; ///< bound on the error of that depth on screen
    double front;       ///< > 0: counter-clockwise in NDC (a front face), < 0: clockwise
    bool empty;         ///< entirely outside one of the three planes: covers nothing
    bool flat;          ///< a vertex at the eye (u = 0) or two equal: no area; pixels near
                        ///< line[0] are undecided, the others outside
    bool unknown;       ///< (nearly) edge-on to the eye, or too ill-conditioned: every pixel undecided
} reference_region;

static inline void reference_cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double reference_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline double reference_norm1(const double a[3])
{
    return fabs(a[0]) + fabs(a[1]) + fabs(a[2]);
}

static inline bool reference_same(const double a[3], const double b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static inline void reference_add_line(reference_region *r, const double line[3], double sign, double noise)
{
    if (r->line_count == REFERENCE_MAX_LINES) {
        r->unknown = true;
        return;
    }
    for (int k = 0; k < 3; k++)
        r->line[r->line_count][k] = sign * line[k];
    r->noise[r->line_count] = noise;
    r->line_count++;
}

/// The region of the convex polygon whose clip-space vertices (x, y, z, w) are outline[4 i .. 4 i + 3]
/// for i in [0, count) (3 <= count <= REFERENCE_MAX_EDGES), in order, lying in the plane through
/// plane[0 .. 11] (three clip-space points of the polygon, in the outline's orientation, well apart;
/// for a triangle, the triangle itself). Planes that every outline vertex is inside of are left out
/// (they cut nothing); `w_min` 0 means no w plane.
static inline reference_region reference_region_make(const double *outline, int count, const double *plane,
                                                     double w_min)
{
    reference_region r = {.line_count = 0};
    if (count < 3 || count > REFERENCE_MAX_EDGES) {
        r.unknown = true;
        return r;
    }
    double u[3][3], c[3][3];
    for (int i = 0; i < 3; i++) {
        u[i][0] = plane[4 * i];
        u[i][1] = plane[4 * i + 1];
        u[i][2] = plane[4 * i + 3];
    }
    const double zero[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < 3; i++) {
        const double *a = u[(i + 1) % 3], *b = u[(i + 2) % 3];
        if (reference_same(u[i], zero) || reference_same(a, b)) {
            // The cone is spanned by two directions (or fewer): at most a line on screen.
            double e[3];
            reference_cross(a, b, e);
            r.flat = true;
            if (reference_same(u[0], zero) && reference_same(u[1], zero) && reference_same(u[2], zero))
                r.empty = true; // all three at the eye
            else if (reference_same(e, zero) || count != 3)
                r.unknown = true;
            else
                reference_add_line(&r, e, 1.0, 1e-15 * reference_norm1(a) * reference_norm1(b));
            return r;
        }
    }
    reference_cross(u[1], u[2], c[0]);
    reference_cross(u[2], u[0], c[1]);
    reference_cross(u[0], u[1], c[2]);
    double det = reference_dot(u[0], c[0]);
    // Relative error of det (and so of everything divided by it).
    double rho = 1e-15 * reference_norm1(u[0]) * reference_norm1(u[1]) * reference_norm1(u[2]) / fabs(det);
    if (!(rho < 1e-6)) {
        r.unknown = true;
        return r;
    }
    r.front = det;
    // The cone's sign, from a direction inside it: the sum of the plane points' directions, each
    // scaled to unit length first so that none is lost to the others' magnitude.
    double inner[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            inner[k] += u[i][k] / reference_norm1(u[i]);
    for (int i = 0; i < count; i++) {
        const double *a = outline + 4 * i, *b = outline + 4 * ((i + 1) % count);
        double ua[3] = {a[0], a[1], a[3]}, ub[3] = {b[0], b[1], b[3]}, e[3];
        reference_cross(ua, ub, e);
        // Each product of two floats is exact in double, each component rounded once.
        double noise = 1e-15 * reference_norm1(ua) * reference_norm1(ub);
        double side = reference_dot(e, inner);
        if (!(fabs(side) > 1e-15 * reference_norm1(e) * reference_norm1(inner) + noise * reference_norm1(inner))) {
            r.unknown = true; // an edge through the inner point: not a convex polygon in front view
            return r;
        }
        reference_add_line(&r, e, side < 0.0 ? -1.0 : 1.0, noise);
    }
    // n . u_i = 1 and zeta . u_i = z_i at the three plane points (Cramer's rule).
    double n[3], zeta[3], noise_n = 0.0, noise_zeta = 0.0;
    for (int k = 0; k < 3; k++) {
        n[k] = (c[0][k] + c[1][k] + c[2][k]) / det;
        zeta[k] = (plane[2] * c[0][k] + plane[6] * c[1][k] + plane[10] * c[2][k]) / det;
    }
    for (int i = 0; i < 3; i++) {
        noise_n += 1e-15 * 4.0 * reference_norm1(c[i]) / fabs(det);
        noise_zeta += 1e-15 * 4.0 * fabs(plane[4 * i + 2]) * reference_norm1(c[i]) / fabs(det);
    }
    noise_n += rho * reference_norm1(n);
    noise_zeta += rho * reference_norm1(zeta);
    r.depth[0] = zeta[0];
    r.depth[1] = zeta[1];
    r.depth[2] = zeta[2];
    r.depth_noise = noise_zeta * 3.0 + 1e-15;
    bool all_in[3] = {true, true, true}, all_out[3] = {true, true, true};
    for (int i = 0; i < count; i++) {
        const double *v = outline + 4 * i;
        bool in[3] = {v[3] >= w_min, v[2] >= 0.0, v[2] <= v[3]};
        for (int k = 0; k < 3; k++) {
            all_in[k] = all_in[k] && in[k];
            all_out[k] = all_out[k] && !in[k];
        }
    }
    r.empty = all_out[1] || all_out[2] || (w_min > 0.0 && all_out[0]);
    if (!all_in[0] && w_min > 0.0) { // w >= w_min <=> n . p <= 1 / w_min
        double line[3] = {-n[0], -n[1], 1.0 / w_min - n[2]};
        reference_add_line(&r, line, 1.0, noise_n + 1e-15 / w_min);
    }
    if (!all_in[1]) // z >= 0
        reference_add_line(&r, zeta, 1.0, noise_zeta);
    if (!all_in[2]) { // z <= w
        double line[3] = {-zeta[0], -zeta[1], 1.0 - zeta[2]};
        reference_add_line(&r, line, 1.0, noise_zeta + 1e-15);
    }
    return r;
}

/// The region of one clip-space triangle, clip[0 .. 11] (three vertices x, y, z, w).
static inline reference_region reference_region_triangle(const double *clip, double w_min)
{
    return reference_region_make(clip, 3, clip, w_min);
}

/// Classifies the point (x, y) in window pixels (y down; a pixel centre is (px + 0.5, py + 0.5)) of a
/// width x height viewport: 1 when it is inside every line by more than `margin` pixels, 0 when it is
/// outside one of them by more than `margin`, -1 otherwise (undecided: too close to call).
static inline int reference_region_classify(const reference_region *r, int width, int height, double x, double y,
                                            double margin)
{
    if (r->unknown)
        return -1;
    if (r->empty)
        return 0;
    double ndc_x = 2.0 * x / width - 1.0, ndc_y = 1.0 - 2.0 * y / height;
    double reach_p = fabs(ndc_x) + fabs(ndc_y) + 1.0;
    bool undecided = false;
    for (int k = 0; k < r->line_count; k++) {
        const double *l = r->line[k];
        double value = l[0] * ndc_x + l[1] * ndc_y + l[2];
        double gradient = hypot(l[0] * 2.0 / width, l[1] * 2.0 / height); // per pixel
        double rounding = 1e-15 * (fabs(l[0] * ndc_x) + fabs(l[1] * ndc_y) + fabs(l[2]));
        double reach = margin * gradient + r->noise[k] * reach_p + rounding;
        if (value < -reach) {
            if (!r->flat)
                return 0;
        } else if (value <= reach) {
            undecided = true;
        }
    }
    if (r->flat)
        return undecided ? -1 : 0;
    return undecided ? -1 : 1;
}

/// Window depth z / w of the region's plane at window position (x, y), clamped to [0, 1]; within
/// depth_noise of the exact value.
static inline double reference_region_depth(const reference_region *r, int width, int height, double x, double y)
{
    double ndc_x = 2.0 * x / width - 1.0, ndc_y = 1.0 - 2.0 * y / height;
    double depth = r->depth[0] * ndc_x + r->depth[1] * ndc_y + r->depth[2];
    return depth < 0.0 ? 0.0 : depth > 1.0 ? 1.0 : depth;
}

/// Largest change of the window depth per pixel step (x plus y).
static inline double reference_region_depth_slope(const reference_region *r, int width, int height)
{
    return fabs(r->depth[0]) * 2.0 / width + fabs(r->depth[1]) * 2.0 / height;
}

#endif
