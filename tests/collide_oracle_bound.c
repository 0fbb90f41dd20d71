/* tests/collide_oracle_bound.c — certified bounds of a pair's signed distance from support
 * functions alone (collide_oracle.h), for cylinders and cones, swept shapes, and as a second
 * opinion on the exact polytope answers in the oracle's own tests.
 *
 * The signed distance is s = -min over unit n of h(n), h the support function of the Minkowski
 * difference M = A - B (a positive min is the depth, a negative one minus the distance). Every
 * evaluated h(n) is an upper bound of the min. For a lower bound, a branch and bound over the
 * sphere of directions, cut into cells by a cube map: a cell is covered by a cap of directions
 * (centre c, angular radius r), and for any point z of M and any n in the cap,
 * h(n) >= n . z >= |z| cos(min(pi, angle(c, z) + r)). The cell's bound is the best such value over
 * points z that the cell's own support points give: those points, and the points of their
 * convex hull nearest to the line through c (where the bound is second order in r: the support
 * point of the optimal direction lies on that line). Cells whose bound is lowest are split in
 * four until the bounds meet. */
#include "collide_oracle_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cells evaluated before giving up (the pair is then uncertified). */
#define CELL_BUDGET 40000
/* Bounds are certified when they are within this fraction of the pair's tolerance. */
#define GAP_FRACTION 0.05

typedef struct cell {
    int face;
    double u0, v0, size; /* the square [u0, u0 + size] x [v0, v0 + size] of a cube face */
    sr_dvec3 corner[4];  /* support points of M at the corner directions (u0,v0) (u1,v0) (u0,v1) (u1,v1) */
    sr_dvec3 centre_dir; /* unit */
    sr_dvec3 centre;     /* support point of M along centre_dir */
    double cos_r, sin_r; /* of the angular radius r of a cap around centre_dir covering the cell */
    double lb;           /* lower bound of h over the cell */
    bool full;           /* lb from every candidate point, not only the support points */
} cell;

typedef struct search {
    const oracle_body *a, *b;
    cell *heap;
    size_t count, capacity;
    int evaluated;
    double ub; /* smallest h seen */
    sr_dvec3 best_dir;
} search;

static sr_dvec3 face_direction(int face, double u, double v)
{
    int axis = face / 2;
    double d[3];
    d[axis] = face % 2 ? -1.0 : 1.0;
    d[(axis + 1) % 3] = u;
    d[(axis + 2) % 3] = v;
    return vunit(v3(d[0], d[1], d[2]));
}

/* Support point of the cores' difference: the radii around the cores add the same to h(n) for
 * every unit n, so the search leaves them out (a rounded box's support is then a vertex, constant
 * over whole cells) and adds them at the end. */
static sr_dvec3 support_difference(const search *s, sr_dvec3 n)
{
    return vsub(oracle_core_support(s->a, n), oracle_core_support(s->b, vscale(n, -1.0)));
}

/* The least n . z over the cap of directions within angle r of c (unit): |z| cos(min(pi, angle(c,
 * z) + r)), that is (c . z) cos r - |c x z| sin r, or -|z| once the cap reaches -z. */
static double cap_bound(sr_dvec3 c, double cos_r, double sin_r, sr_dvec3 z)
{
    double along = vdot(c, z), across = vlen(vcross(c, z));
    if (along < -cos_r * sqrt(along * along + across * across))
        return -sqrt(along * along + across * across);
    return along * cos_r - across * sin_r;
}

typedef struct flat {
    double x, y;
} flat;

/* The parameter t in [0, 1] of the point of a-b nearest to the origin (2D). */
static double nearest_on_segment(flat a, flat b)
{
    double ex = b.x - a.x, ey = b.y - a.y, length2 = ex * ex + ey * ey;
    return length2 > 0.0 ? clamp01(-(a.x * ex + a.y * ey) / length2) : 0.0;
}

/* The point of triangle abc nearest to the origin (3D): inside, the foot of the plane's
 * perpendicular; otherwise on an edge. */
static sr_dvec3 nearest_on_triangle(sr_dvec3 a, sr_dvec3 b, sr_dvec3 c)
{
    sr_dvec3 n = vcross(vsub(b, a), vsub(c, a));
    double n2 = vdot(n, n);
    if (n2 > 0.0) {
        sr_dvec3 q = vscale(n, vdot(n, a) / n2);
        if (vdot(vcross(vsub(b, a), vsub(q, a)), n) >= 0.0 && vdot(vcross(vsub(c, b), vsub(q, b)), n) >= 0.0 &&
            vdot(vcross(vsub(a, c), vsub(q, c)), n) >= 0.0)
            return q;
    }
    sr_dvec3 origin = v3(0, 0, 0), best = oracle_closest_on_segment(origin, a, b);
    sr_dvec3 e2 = oracle_closest_on_segment(origin, b, c), e3 = oracle_closest_on_segment(origin, c, a);
    if (vlen(e2) < vlen(best))
        best = e2;
    if (vlen(e3) < vlen(best))
        best = e3;
    return best;
}

/* The least n . y over the cell's directions. The cell is a spherical quadrilateral whose sides
 * are arcs of great circles (a cube face's square seen from the centre); n . y has no minimum
 * inside the sphere but at -y, so the least is at -y if the cell holds it, otherwise on a side:
 * at a corner or at the point of a side's great circle nearest to -y. */
static double least_on_cell(const cell *c, sr_dvec3 y)
{
    double length = vlen(y);
    if (length == 0.0)
        return 0.0;
    sr_dvec3 d[4];
    for (int i = 0; i < 4; i++)
        d[i] = face_direction(c->face, c->u0 + (i & 1) * c->size, c->v0 + (i >> 1) * c->size);
    /* -y inside: the cell's corners in order around it, -y on the inner side of every side. */
    const int order[4] = {0, 1, 3, 2};
    sr_dvec3 away = vscale(y, -1.0 / length);
    bool inside = true;
    double least = INFINITY;
    for (int k = 0; k < 4; k++) {
        sr_dvec3 p = d[order[k]], q = d[order[(k + 1) % 4]];
        sr_dvec3 w = vunit(vcross(p, q));
        least = fmin(least, vdot(p, y));
        inside = inside && vdot(away, w) * vdot(d[order[(k + 2) % 4]], w) >= 0.0;
        sr_dvec3 in_plane = vsub(away, vscale(w, vdot(away, w)));
        if (vlen(in_plane) == 0.0)
            continue;
        sr_dvec3 n = vunit(in_plane);
        if (vdot(vcross(p, n), w) >= 0.0 && vdot(vcross(n, q), w) >= 0.0)
            least = fmin(least, vdot(n, y));
    }
    return inside ? -length : least;
}

typedef struct bound {
    double value;
    sr_dvec3 point;   /* the point of M that gave it */
    sr_dvec3 nearest; /* the point of the cell's points' hull nearest to the origin (when searched) */
    bool searched;
} bound;

static void consider(bound *b, const cell *c, sr_dvec3 z)
{
    double value = cap_bound(c->centre_dir, c->cos_r, c->sin_r, z);
    if (value > b->value) {
        b->value = value;
        b->point = z;
    }
    if (vdot(z, z) < vdot(b->nearest, b->nearest))
        b->nearest = z;
}

/* The cell's bound: the best cap bound over its support points and, where the bound is still
 * below `enough`, over points of their convex hull: those nearest to the line through the
 * centre (the optimum's support point lies on its direction's line when penetrating) and those
 * nearest to the origin (the nearest point of M when apart). */
static bound cell_bound(const cell *c, bool full, bool apart)
{
    sr_dvec3 points[5] = {c->centre, c->corner[0], c->corner[1], c->corner[2], c->corner[3]};
    bound b = {-INFINITY, c->centre, c->centre, false};
    /* One support point y at the four corners: the corner directions lie in y's normal cone,
     * which is convex, so the whole cell does (its directions are positive combinations of the
     * corners'), and h(n) = n . y on it: its least value is exact (least_on_cell). */
    bool same = true;
    for (int i = 1; i < 4 && same; i++)
        same = memcmp(&c->corner[i], &c->corner[0], sizeof c->corner[0]) == 0;
    if (same) {
        b.value = least_on_cell(c, c->corner[0]);
        return b;
    }
    for (int i = 0; i < 5; i++)
        consider(&b, c, points[i]);
    if (!full)
        return b;
    b.searched = true;
    sr_dvec3 t1, t2;
    oracle_basis(c->centre_dir, &t1, &t2);
    flat f[5];
    for (int i = 0; i < 5; i++)
        f[i] = (flat){vdot(points[i], t1), vdot(points[i], t2)};
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++) {
            if (apart)
                consider(&b, c, oracle_closest_on_segment(v3(0, 0, 0), points[i], points[j]));
            else
                consider(&b, c, vlerp(points[i], points[j], nearest_on_segment(f[i], f[j])));
        }
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            for (int k = j + 1; k < 5; k++) {
                if (apart) {
                    consider(&b, c, nearest_on_triangle(points[i], points[j], points[k]));
                    continue;
                }
                /* The origin inside the projected triangle: its barycentric weights. */
                double area = (f[j].x - f[i].x) * (f[k].y - f[i].y) - (f[j].y - f[i].y) * (f[k].x - f[i].x);
                if (area == 0.0)
                    continue;
                double wi = (f[j].x * f[k].y - f[j].y * f[k].x) / area;
                double wj = (f[k].x * f[i].y - f[k].y * f[i].x) / area;
                double wk = 1.0 - wi - wj;
                if (wi < 0.0 || wj < 0.0 || wk < 0.0)
                    continue;
                consider(&b, c, vadd(vadd(vscale(points[i], wi), vscale(points[j], wj)), vscale(points[k], wk)));
            }
    return b;
}

static void heap_push(search *s, const cell *c)
{
    if (s->count == s->capacity) {
        s->capacity = s->capacity ? 2 * s->capacity : 256;
        s->heap = realloc(s->heap, s->capacity * sizeof *s->heap);
        if (!s->heap)
            abort();
    }
    size_t i = s->count++;
    while (i > 0 && s->heap[(i - 1) / 2].lb > c->lb) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = *c;
}

static cell heap_pop(search *s)
{
    cell top = s->heap[0], last = s->heap[--s->count];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= s->count)
            break;
        if (child + 1 < s->count && s->heap[child + 1].lb < s->heap[child].lb)
            child++;
        if (s->heap[child].lb >= last.lb)
            break;
        s->heap[i] = s->heap[child];
        i = child;
    }
    if (s->count > 0)
        s->heap[i] = last;
    return top;
}

static void evaluate(search *s, sr_dvec3 n)
{
    sr_dvec3 y = support_difference(s, n);
    s->evaluated++;
    if (vdot(n, y) < s->ub) {
        s->ub = vdot(n, y);
        s->best_dir = n;
    }
}

/* Makes a cell from its corner support points: centre, cap and a first bound from its support
 * points alone (at least `parent_lb`). */
static void make_cell(search *s, int face, double u0, double v0, double size, const sr_dvec3 corner[4],
                      double parent_lb)
{
    cell c = {.face = face, .u0 = u0, .v0 = v0, .size = size};
    memcpy(c.corner, corner, sizeof c.corner);
    c.centre_dir = face_direction(face, u0 + 0.5 * size, v0 + 0.5 * size);
    c.centre = support_difference(s, c.centre_dir);
    s->evaluated++;
    double h = vdot(c.centre_dir, c.centre);
    if (h < s->ub) {
        s->ub = h;
        s->best_dir = c.centre_dir;
    }
    /* The cap through the farthest corner covers the square: the directions within an angle of
     * c form a convex region of the face's plane, and it holds the four corners. Its radius from
     * the chord k = 2 sin(r / 2) to that corner (cos r = 1 - k^2 / 2, sin r = k sqrt(1 - k^2 / 4)),
     * widened a little against rounding. */
    double chord = 0.0;
    for (int i = 0; i < 4; i++)
        chord = fmax(chord, vdist(c.centre_dir, face_direction(face, u0 + (i & 1) * size, v0 + (i >> 1) * size)));
    chord = fmin(2.0, chord * (1.0 + 1e-12) + 1e-15);
    c.cos_r = 1.0 - 0.5 * chord * chord;
    c.sin_r = chord * sqrt(fmax(0.0, 1.0 - 0.25 * chord * chord));
    c.lb = fmax(parent_lb, cell_bound(&c, false, false).value);
    heap_push(s, &c);
}

/* The full bound of a cell that reached the top of the heap (most never do). The directions of
 * the point that bounds it and of the point of its support points' hull nearest the origin are
 * worth evaluating: when such a point lies on the boundary of M nearest the origin, its direction
 * is the optimum's (its opposite when apart), as in EPA; here they only give upper bounds,
 * certified by the cells' lower ones. */
static void refine_cell(search *s, cell *c)
{
    /* Apart (the best h so far negative), the bound comes from the hull's point nearest to the
     * origin; penetrating, from its points nearest to the centre's line. */
    bound b = cell_bound(c, true, s->ub < 0.0);
    c->lb = fmax(c->lb, b.value);
    c->full = true;
    for (int k = 0; k < (b.searched ? 2 : 0); k++) {
        sr_dvec3 z = k ? b.nearest : b.point;
        double length = vlen(z);
        if (length > 0.0)
            evaluate(s, vscale(z, (vdot(z, c->centre_dir) >= 0.0 ? 1.0 : -1.0) / length));
    }
}

static double gap_target(double size, double lb, double ub)
{
    return GAP_FRACTION * fmin(oracle_tolerance(size, -ub), oracle_tolerance(size, -lb));
}

void oracle_solve_bound(const oracle_body *a, const oracle_body *b, double size, oracle_answer *out)
{
    search s = {.a = a, .b = b, .ub = INFINITY, .best_dir = v3(0, 0, 1)};
    /* Each cube face cut in 2 x 2 to start. */
    const int start = 2;
    for (int face = 0; face < 6; face++)
        for (int i = 0; i < start; i++)
            for (int j = 0; j < start; j++) {
                double step = 2.0 / start, u0 = -1.0 + i * step, v0 = -1.0 + j * step;
                sr_dvec3 corner[4];
                for (int k = 0; k < 4; k++)
                    corner[k] = support_difference(&s, face_direction(face, u0 + (k & 1) * step, v0 + (k >> 1) * step));
                make_cell(&s, face, u0, v0, step, corner, -INFINITY);
            }
    double lb = -INFINITY;
    bool certified = false;
    double radius = a->radius + b->radius;
    while (s.count > 0) {
        lb = s.heap[0].lb;
        double target = gap_target(size, lb + radius, s.ub + radius);
        if (s.ub - lb <= target) {
            certified = true;
            break;
        }
        if (s.evaluated >= CELL_BUDGET)
            break;
        cell c = heap_pop(&s);
        if (!c.full) {
            refine_cell(&s, &c);
            heap_push(&s, &c);
            continue;
        }
        double half = 0.5 * c.size;
        /* The 3 x 3 grid of the children's corners: the parent's corners, edge middles, centre. */
        sr_dvec3 grid[3][3];
        grid[0][0] = c.corner[0];
        grid[2][0] = c.corner[1];
        grid[0][2] = c.corner[2];
        grid[2][2] = c.corner[3];
        grid[1][1] = c.centre;
        const int middles[4][2] = {{1, 0}, {0, 1}, {2, 1}, {1, 2}};
        for (int m = 0; m < 4; m++) {
            int i = middles[m][0], j = middles[m][1];
            grid[i][j] = support_difference(&s, face_direction(c.face, c.u0 + i * half, c.v0 + j * half));
        }
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                sr_dvec3 corner[4] = {grid[i][j], grid[i + 1][j], grid[i][j + 1], grid[i + 1][j + 1]};
                make_cell(&s, c.face, c.u0 + i * half, c.v0 + j * half, half, corner, c.lb);
            }
    }
    if (s.count > 0)
        lb = s.heap[0].lb;
#ifdef ORACLE_BOUND_DEBUG
    if (!certified && s.count > 0) {
        const cell *c = &s.heap[0];
        fprintf(stderr, "worst cell: face %d u0 %.6g v0 %.6g size %.3g sin_r %.3g lb %.17g ub %.17g\n", c->face, c->u0,
                c->v0, c->size, c->sin_r, c->lb, s.ub);
        fprintf(stderr, "  dir %.9f %.9f %.9f centre y %.9f %.9f %.9f h %.17g\n", c->centre_dir.x, c->centre_dir.y,
                c->centre_dir.z, c->centre.x, c->centre.y, c->centre.z, vdot(c->centre, c->centre_dir));
        for (int k = 0; k < 4; k++)
            fprintf(stderr, "  corner %d y %.9f %.9f %.9f\n", k, c->corner[k].x, c->corner[k].y, c->corner[k].z);
        bound b = cell_bound(c, true, s.ub < 0.0);
        fprintf(stderr, "  bound %.17g at %.9f %.9f %.9f\n", b.value, b.point.x, b.point.y, b.point.z);
        fprintf(stderr, "  best dir %.9f %.9f %.9f\n", s.best_dir.x, s.best_dir.y, s.best_dir.z);
    }
#endif
    free(s.heap);

    memset(out, 0, sizeof *out);
    out->exact = false;
    out->certified = certified;
    out->lo = -(s.ub + radius);
    out->hi = -(lb + radius);
    out->distance = 0.5 * (out->lo + out->hi);
    out->normal = s.best_dir;
    out->point_a = oracle_support(a, s.best_dir);
    out->point_b = oracle_support(b, vscale(s.best_dir, -1.0));
    out->sat_separation = out->sat_face_separation = NAN;
    out->size = size;
    out->cells = s.evaluated;
}
