/* src/collide/sat_box.c — the separating-axis test of two boxes: Gottschalk's 15 axes in A's
 * frame (the 3 face normals of each, the 9 cross products of their edge directions), and the
 * witness points of the chosen axis by clipping B's feature against A's face (or the reverse), or
 * the closest points of the two edges. The general witness of sat_witness.c takes over when the
 * features' projections do not meet (apart, or rounding at a corner). Part of collide. */
#include "sat_internal.h"

/* The separation along the 15 axes, kept for the one chosen and for the trace. */
typedef struct box_axes {
    double separation[15];  /* -inf: an edge pair skipped as parallel */
    double centre_sign[15]; /* the side of B: the axis is oriented from A towards B */
    double inverse_length[15];
} box_axes;

/* (i + 1) % 3 and (i + 2) % 3, from tables: the loops below then unroll to constants */
static const int next1[3] = {1, 2, 0}, next2[3] = {2, 0, 1};

static double comp(sr_dvec3 v, int i)
{
    return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

static sr_dvec3 unit(int axis, double sign)
{
    return dv(axis == 0 ? sign : 0.0, axis == 1 ? sign : 0.0, axis == 2 ? sign : 0.0);
}

/* Axis k (0-2 A's faces, 3-5 B's, 6 + 3 i + j the edge pair a_i x b_j), unit, in A's frame. */
static sr_dvec3 axis_of(const sat_relative *rel, const box_axes *x, int k)
{
    const double(*r)[3] = rel->r.m;
    if (k < 3)
        return unit(k, x->centre_sign[k]);
    if (k < 6) {
        int j = k - 3;
        return dscale(dv(r[0][j], r[1][j], r[2][j]), x->centre_sign[k]);
    }
    int i = (k - 6) / 3, j = (k - 6) % 3, i1 = next1[i], i2 = next2[i];
    double l[3];
    l[i] = 0.0;
    l[i1] = -r[i2][j];
    l[i2] = r[i1][j];
    double scale = x->centre_sign[k] * x->inverse_length[k];
    return dv(l[0] * scale, l[1] * scale, l[2] * scale);
}

/* The kind and features of axis k (face numbering: 2 axis + (negative side); edge numbering of
 * sat_poly.c: 4 axis + the signs of the two other axes). */
static void features_of(const sat_relative *rel, const box_axes *x, int k, sr_sat_axis_kind *kind, int *feature_a,
                        int *feature_b)
{
    if (k < 3) {
        *kind = SR_SAT_FACE_A;
        *feature_a = 2 * k + (x->centre_sign[k] < 0.0);
        *feature_b = -1;
    } else if (k < 6) {
        *kind = SR_SAT_FACE_B;
        *feature_a = -1;
        *feature_b = 2 * (k - 3) + (x->centre_sign[k] > 0.0); /* B's face against the axis */
    } else {
        int i = (k - 6) / 3, j = (k - 6) % 3;
        sr_dvec3 axis = axis_of(rel, x, k), axis_b = sat_rotate_inverse(&rel->r, axis);
        *kind = SR_SAT_EDGE_EDGE;
        /* A's edge where the axis leaves A, B's where it enters B */
        *feature_a = 4 * i + (comp(axis, next1[i]) > 0.0) + 2 * (comp(axis, next2[i]) > 0.0);
        *feature_b = 4 * j + (comp(axis_b, next1[j]) < 0.0) + 2 * (comp(axis_b, next2[j]) < 0.0);
    }
}

void sat_box_box(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_recorder *recorder,
                 sat_best *best)
{
    const double ha[3] = {a->half_extents.x, a->half_extents.y, a->half_extents.z};
    const double hb[3] = {b->half_extents.x, b->half_extents.y, b->half_extents.z};
    const double t[3] = {rel->t.x, rel->t.y, rel->t.z};
    const double(*r)[3] = rel->r.m;
    double abs_r[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            abs_r[i][j] = fabs(r[i][j]);
    box_axes x;
    for (int i = 0; i < 3; i++) { /* A's faces: the centres' distance against both radii */
        x.separation[i] = fabs(t[i]) - ha[i] - (hb[0] * abs_r[i][0] + hb[1] * abs_r[i][1] + hb[2] * abs_r[i][2]);
        x.centre_sign[i] = t[i] < 0.0 ? -1.0 : 1.0;
    }
    for (int j = 0; j < 3; j++) { /* B's faces */
        double centre = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
        x.separation[3 + j] = fabs(centre) - hb[j] - (ha[0] * abs_r[0][j] + ha[1] * abs_r[1][j] + ha[2] * abs_r[2][j]);
        x.centre_sign[3 + j] = centre < 0.0 ? -1.0 : 1.0;
    }
    int tested = 6;
    for (int i = 0; i < 3; i++) { /* a_i x b_j, whose components in A's frame are (0, -r_{i2 j}, r_{i1 j}) */
        int i1 = next1[i], i2 = next2[i];
        for (int j = 0; j < 3; j++) {
            int j1 = next1[j], j2 = next2[j], k = 6 + 3 * i + j;
            /* |L|^2 = 1 - r_ij^2, summed without the cancellation */
            double length_squared = r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j];
            if (!(length_squared > SAT_PARALLEL * SAT_PARALLEL)) {
                x.separation[k] = -INFINITY; /* parallel edges: A - B has an edge there, its faces are tested */
                continue;
            }
            tested++;
            double centre = t[i2] * r[i1][j] - t[i1] * r[i2][j];
            double radius_a = ha[i1] * abs_r[i2][j] + ha[i2] * abs_r[i1][j];
            double radius_b = hb[j1] * abs_r[i][j2] + hb[j2] * abs_r[i][j1];
            x.inverse_length[k] = 1.0 / sqrt(length_squared);
            x.separation[k] = (fabs(centre) - radius_a - radius_b) * x.inverse_length[k];
            x.centre_sign[k] = centre < 0.0 ? -1.0 : 1.0;
        }
    }
    /* the largest separation; an edge pair must beat the faces by the bias (sat_offer) */
    int chosen = 0;
    for (int k = 1; k < 6; k++)
        if (x.separation[k] > x.separation[chosen])
            chosen = k;
    double edge_bias = 1e-9 * fmax(a->size, b->size);
    double bar = x.separation[chosen] + edge_bias;
    for (int k = 6; k < 15; k++)
        if (x.separation[k] > bar) {
            chosen = k;
            bar = x.separation[k];
        }
    best->separation = x.separation[chosen];
    best->axis = axis_of(rel, &x, chosen);
    features_of(rel, &x, chosen, &best->kind, &best->feature_a, &best->feature_b);
    best->tested = tested;
    if (recorder)
        for (int k = 0; k < 15; k++) {
            if (x.separation[k] == -INFINITY)
                continue;
            sr_sat_axis_kind kind;
            int feature_a, feature_b;
            features_of(rel, &x, k, &kind, &feature_a, &feature_b);
            sat_record(recorder, kind, feature_a, feature_b, axis_of(rel, &x, k), x.separation[k]);
        }
}

/* ---- witness points ---- */

/* The witness of a face axis: the reference box's face on `axis` (index i, outward along sign),
 * the incident box placed in the reference's frame by x_ref = r x + t. The incident box's feature
 * facing the face (a vertex, an edge or a face: its axes along which it leans less than
 * `tolerance`) is clipped to the face's rectangle; the witness is the average of the clipped
 * polygon's vertices. False when nothing is left (its projection misses the face). */
static bool face_witness(const double h_ref[3], const double h_inc[3], const sat_matrix *rm, sr_dvec3 t, int i,
                         double sign, double tolerance, double *u_out, double *w_out)
{
    const double(*r)[3] = rm->m;
    int u = next1[i], w = next2[i];
    /* the incident corner farthest against the axis, and the axes it may slide along */
    double corner[3];
    int free_axes[3], free_count = 0;
    for (int j = 0; j < 3; j++) {
        double d = -sign * r[i][j];
        corner[j] = d >= 0.0 ? h_inc[j] : -h_inc[j];
        if (fabs(r[i][j]) * h_inc[j] <= tolerance && h_inc[j] > 0.0)
            free_axes[free_count++] = j;
    }
    /* the feature's vertices in order, projected on the face's plane (u, w) */
    double pu[8], pw[8];
    int n = 0;
    static const double walk[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    int corners = free_count == 0 ? 1 : (free_count == 1 ? 2 : 4);
    for (int c = 0; c < corners; c++) {
        double v[3] = {corner[0], corner[1], corner[2]};
        if (free_count >= 1)
            v[free_axes[0]] = walk[c][0] * h_inc[free_axes[0]];
        if (free_count >= 2)
            v[free_axes[1]] = walk[c][1] * h_inc[free_axes[1]];
        pu[n] = r[u][0] * v[0] + r[u][1] * v[1] + r[u][2] * v[2] + comp(t, u);
        pw[n] = r[w][0] * v[0] + r[w][1] * v[1] + r[w][2] * v[2] + comp(t, w);
        n++;
    }
    if (n == 1) {
        if (fabs(pu[0]) > h_ref[u] + tolerance || fabs(pw[0]) > h_ref[w] + tolerance)
            return false;
        *u_out = pu[0];
        *w_out = pw[0];
        return true;
    }
    if (n == 2) { /* Liang-Barsky: the part of the segment in the rectangle */
        double t0 = 0.0, t1 = 1.0;
        const double start[2] = {pu[0], pw[0]}, delta[2] = {pu[1] - pu[0], pw[1] - pw[0]};
        const double limit[2] = {h_ref[u] + tolerance, h_ref[w] + tolerance};
        for (int k = 0; k < 2; k++) {
            if (delta[k] == 0.0) {
                if (fabs(start[k]) > limit[k])
                    return false;
                continue;
            }
            double a = (-limit[k] - start[k]) / delta[k], b = (limit[k] - start[k]) / delta[k];
            t0 = fmax(t0, fmin(a, b));
            t1 = fmin(t1, fmax(a, b));
        }
        if (t0 > t1)
            return false;
        double middle = 0.5 * (t0 + t1);
        *u_out = pu[0] + middle * delta[0];
        *w_out = pw[0] + middle * delta[1];
        return true;
    }
    /* a face: Sutherland-Hodgman against the rectangle's four sides */
    double qu[8], qw[8];
    for (int side = 0; side < 4; side++) {
        int axis = side / 2; /* 0: u, 1: w */
        double limit = (axis == 0 ? h_ref[u] : h_ref[w]) + tolerance, s = side % 2 ? -1.0 : 1.0;
        int m = 0;
        for (int k = 0; k < n; k++) {
            int next = (k + 1) % n;
            double dk = s * (axis == 0 ? pu[k] : pw[k]) - limit, dn = s * (axis == 0 ? pu[next] : pw[next]) - limit;
            if (dk <= 0.0) {
                qu[m] = pu[k];
                qw[m] = pw[k];
                m++;
            }
            if ((dk < 0.0 && dn > 0.0) || (dk > 0.0 && dn < 0.0)) {
                double f = dk / (dk - dn);
                qu[m] = pu[k] + f * (pu[next] - pu[k]);
                qw[m] = pw[k] + f * (pw[next] - pw[k]);
                m++;
            }
        }
        n = m;
        for (int k = 0; k < n; k++) {
            pu[k] = qu[k];
            pw[k] = qw[k];
        }
        if (n == 0)
            return false;
    }
    double su = 0.0, sw = 0.0;
    for (int k = 0; k < n; k++) {
        su += pu[k];
        sw += pw[k];
    }
    *u_out = su / n;
    *w_out = sw / n;
    return true;
}

bool sat_box_box_witness(const sat_poly *a, const sat_poly *b, const sat_relative *rel, const sat_best *best,
                         sr_dvec3 *point_a, sr_dvec3 *point_b)
{
    const double ha[3] = {a->half_extents.x, a->half_extents.y, a->half_extents.z};
    const double hb[3] = {b->half_extents.x, b->half_extents.y, b->half_extents.z};
    double tolerance = 1e-9 * fmax(a->size, b->size);
    sr_dvec3 axis = best->axis;
    double s = best->separation;
    if (best->kind == SR_SAT_FACE_A) {
        int i = best->feature_a / 2;
        double sign = best->feature_a % 2 ? -1.0 : 1.0, u, w;
        if (!face_witness(ha, hb, &rel->r, rel->t, i, sign, tolerance, &u, &w))
            return false;
        double c[3];
        c[i] = sign * ha[i];
        c[next1[i]] = u;
        c[next2[i]] = w;
        *point_a = dv(c[0], c[1], c[2]);
        *point_b = dmadd(*point_a, s, axis);
        return true;
    }
    if (best->kind == SR_SAT_FACE_B) {
        /* the same with B as the reference: A placed in B's frame by r^T and -r^T t */
        sat_matrix inverse;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                inverse.m[i][j] = rel->r.m[j][i];
        sr_dvec3 t = dneg(sat_rotate(&inverse, rel->t));
        int j = best->feature_b / 2;
        double sign = best->feature_b % 2 ? -1.0 : 1.0, u, w;
        if (!face_witness(hb, ha, &inverse, t, j, sign, tolerance, &u, &w))
            return false;
        double c[3];
        c[j] = sign * hb[j];
        c[next1[j]] = u;
        c[next2[j]] = w;
        *point_b = sat_b_to_a(rel, dv(c[0], c[1], c[2]));
        *point_a = dmadd(*point_b, -s, axis);
        return true;
    }
    /* two edges: their closest points (the crossing of a Minkowski face's edges) */
    int i = best->feature_a / 4, k = best->feature_a % 4, j = best->feature_b / 4, l = best->feature_b % 4;
    double pa[3], pb[3];
    pa[i] = -ha[i];
    pa[next1[i]] = k & 1 ? ha[next1[i]] : -ha[next1[i]];
    pa[next2[i]] = k & 2 ? ha[next2[i]] : -ha[next2[i]];
    pb[j] = -hb[j];
    pb[next1[j]] = l & 1 ? hb[next1[j]] : -hb[next1[j]];
    pb[next2[j]] = l & 2 ? hb[next2[j]] : -hb[next2[j]];
    sr_dvec3 a0 = dv(pa[0], pa[1], pa[2]), a1 = dmadd(a0, 2.0 * ha[i], unit(i, 1.0));
    sr_dvec3 b0 = dv(pb[0], pb[1], pb[2]), b1 = dmadd(b0, 2.0 * hb[j], unit(j, 1.0));
    sr_dvec3 c1, c2;
    sr_collide_closest_segment_segment(a0, a1, sat_b_to_a(rel, b0), sat_b_to_a(rel, b1), &c1, &c2);
    *point_a = c1;
    /* overlapping: B's point by the depth along the axis, exactly; apart: B's closest point */
    *point_b = s <= 0.0 ? dmadd(c1, s, axis) : c2;
    return true;
}
