/* tests/test_geom_triangle.c — ray/triangle (Möller–Trumbore) against a double-precision
 * reference, and watertightness on closed meshes built here (part of the program test_geom;
 * helpers: geom_test_helpers.h). */
#include <criterion/criterion.h>

#include <softrast/geom.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geom_test_helpers.h"

/* ------------------------------------------------------------------------------------------ */
/* Ray / triangle                                                                              */

/* Independent reference in double: plane intersection, then barycentrics of the hit point. */
typedef struct triangle_reference {
    bool valid; /* false for rays too close to parallel to judge */
    double t, u, v, w;
    double facing; /* dot(normal, direction) < 0: front face */
} triangle_reference;

static triangle_reference reference_ray_triangle(sr_vec3 origin, sr_vec3 direction, sr_vec3 a, sr_vec3 b, sr_vec3 c)
{
    triangle_reference ref = {0};
    dvec o = dv(origin), d = dv(direction), A = dv(a), B = dv(b), C = dv(c);
    dvec n = dv_cross(dv_sub(B, A), dv_sub(C, A));
    double nn = dv_dot(n, n);
    double denominator = dv_dot(n, d);
    ref.facing = denominator;
    if (nn == 0 || fabs(denominator) < 1e-3 * sqrt(nn) * dv_length(d))
        return ref;
    ref.valid = true;
    ref.t = dv_dot(n, dv_sub(A, o)) / denominator;
    dvec p = dv_add(o, dv_scale(d, ref.t));
    ref.u = dv_dot(n, dv_cross(dv_sub(p, A), dv_sub(C, A))) / nn; /* weight of b */
    ref.v = dv_dot(n, dv_cross(dv_sub(B, A), dv_sub(p, A))) / nn; /* weight of c */
    ref.w = 1 - ref.u - ref.v;
    return ref;
}

Test(ray_triangle, analytic_cases)
{
    sr_vec3 a = {-1, -1, -2}, b = {1, -1, -2}, c = {0, 1, -2};
    sr_ray ray = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    sr_triangle_hit hit;
    cr_assert(sr_ray_triangle(&ray, a, b, c, &hit));
    /* (0, 0) = a + u (b - a) + v (c - a) = (-1 + 2u + v, -1 + 2v): v = 1/2, u = 1/4 */
    cr_assert(hit.t == 2.0f && hit.u == 0.25f && hit.v == 0.5f, "t %g u %g v %g", (double)hit.t, (double)hit.u,
              (double)hit.v);
    cr_assert(sr_ray_triangle_culled(&ray, a, b, c, &hit), "counter-clockwise seen from the origin: front");
    cr_assert(!sr_ray_triangle_culled(&ray, a, c, b, &hit), "clockwise: back face culled");
    cr_assert(sr_ray_triangle(&ray, a, c, b, &hit));
    cr_assert(hit.u == 0.5f && hit.v == 0.25f);
    /* direction length scales t */
    sr_ray fast = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -4}, 0, INFINITY);
    cr_assert(sr_ray_triangle(&fast, a, b, c, &hit) && hit.t == 0.5f);
    /* closed t range */
    sr_ray exact = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 2.0f, 2.0f);
    cr_assert(sr_ray_triangle(&exact, a, b, c, &hit), "t = tmin = tmax counts");
    sr_ray short_ray = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 0, nextafterf(2.0f, 0));
    cr_assert(!sr_ray_triangle(&short_ray, a, b, c, &hit));
    sr_ray late = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, nextafterf(2.0f, 3), INFINITY);
    cr_assert(!sr_ray_triangle(&late, a, b, c, &hit));
    sr_ray behind = sr_ray_make((sr_vec3){0, 0, -3}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(!sr_ray_triangle(&behind, a, b, c, &hit));
    /* vertices and edges are inside (closed triangle) */
    sr_ray at_vertex = sr_ray_make((sr_vec3){0, 1, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(sr_ray_triangle(&at_vertex, a, b, c, &hit) && hit.v == 1.0f && hit.u == 0.0f);
    sr_ray at_edge = sr_ray_make((sr_vec3){0, -1, 5}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(sr_ray_triangle(&at_edge, a, b, c, &hit) && hit.t == 7.0f && hit.v == 0.0f);
    sr_ray outside_edge = sr_ray_make((sr_vec3){0, nextafterf(-1, -2), 5}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(!sr_ray_triangle(&outside_edge, a, b, c, &hit));
    /* a ray in the triangle's plane misses (edge-on) */
    sr_ray in_plane = sr_ray_make((sr_vec3){-5, 0, -2}, (sr_vec3){1, 0, 0}, 0, INFINITY);
    cr_assert(!sr_ray_triangle(&in_plane, a, b, c, &hit));
}

Test(ray_triangle, random_rays_against_double_reference)
{
    rng r = {20};
    int compared = 0, hits = 0, culled_checked = 0;
    for (int i = 0; i < 40000; i++) {
        double size = rng_unit(&r) < 0.2 ? 0.01 : 3;
        sr_vec3 centre = rng_vec3(&r, -10, 10);
        sr_vec3 a = sr_vec3_add(centre, rng_vec3(&r, -size, size));
        sr_vec3 b = sr_vec3_add(centre, rng_vec3(&r, -size, size));
        sr_vec3 c = sr_vec3_add(centre, rng_vec3(&r, -size, size));
        sr_vec3 origin = rng_vec3(&r, -20, 20);
        /* aim at a random barycentric point around the triangle: about half hit */
        double wb = rng_range(&r, -0.3, 1.1), wc = rng_range(&r, -0.3, 1.1);
        dvec target = dv_add(dv(a), dv_add(dv_scale(dv_sub(dv(b), dv(a)), wb), dv_scale(dv_sub(dv(c), dv(a)), wc)));
        sr_vec3 direction = to_float(dv_scale(dv_sub(target, dv(origin)), rng_range(&r, 0.05, 20)));
        float tmin = rng_unit(&r) < 0.8 ? 0.0f : rng_float(&r, -1, 1);
        float tmax = rng_unit(&r) < 0.7 ? INFINITY : rng_float(&r, 0, 2);
        sr_ray ray = sr_ray_make(origin, direction, tmin, tmax);
        sr_triangle_hit hit = {-1, -1, -1}, front = {-1, -1, -1};
        bool got = sr_ray_triangle(&ray, a, b, c, &hit);
        bool got_front = sr_ray_triangle_culled(&ray, a, b, c, &front);
        triangle_reference ref = reference_ray_triangle(origin, direction, a, b, c);
        if (!ref.valid)
            continue;
        /* Float rounding of the vertices relative to the origin (a few u |v - o| per edge
         * function) is small against the triangle when it is about as large as its distance,
         * and grows with distance / size and with 1 / cosine at grazing angles. Barycentric
         * tolerance: 1e-4 plus that growth; t: 1e-5 relative plus the same growth of the
         * vertices' depths along the ray (|v - o| / |d|), which matters only when t is small
         * against those depths. Cases closer than the tolerance to an edge or to tmin/tmax are
         * not judged. */
        dvec normal = dv_cross(dv_sub(dv(b), dv(a)), dv_sub(dv(c), dv(a)));
        double cosine = fabs(ref.facing) / (dv_length(normal) * dv_length(dv(direction)));
        double distance = fmax(dv_length(dv_sub(dv(a), dv(origin))),
                               fmax(dv_length(dv_sub(dv(b), dv(origin))), dv_length(dv_sub(dv(c), dv(origin)))));
        double ratio = distance / sqrt(dv_length(normal));
        double uv_tolerance = 1e-4 + 1e-6 * ratio / cosine;
        double t_tolerance = 1e-5 * fabs(ref.t) + 1e-6 * distance / dv_length(dv(direction)) / cosine;
        double edge = fmin(fabs(ref.u), fmin(fabs(ref.v), fabs(ref.w)));
        if (edge < uv_tolerance || fabs(ref.t - tmin) < t_tolerance || fabs(ref.t - tmax) < t_tolerance)
            continue;
        bool expected = ref.u >= 0 && ref.v >= 0 && ref.w >= 0 && ref.t >= tmin && ref.t <= tmax;
        compared++;
        cr_assert_eq(got, expected, "case %d: got %d, reference t %g u %g v %g", i, got, ref.t, ref.u, ref.v);
        if (expected) {
            hits++;
            cr_assert(fabs(hit.t - ref.t) <= t_tolerance, "t %.9g vs %.9g", (double)hit.t, ref.t);
            cr_assert(fabs(hit.u - ref.u) <= uv_tolerance && fabs(hit.v - ref.v) <= uv_tolerance,
                      "u %g vs %g, v %g vs %g (ratio %g cosine %g)", (double)hit.u, ref.u, (double)hit.v, ref.v, ratio,
                      cosine);
        }
        /* culled: the same answer for front faces, never a back face */
        cr_assert_eq(got_front, expected && ref.facing < 0, "culled case %d", i);
        if (got_front) {
            culled_checked++;
            cr_assert(front.t == hit.t && front.u == hit.u && front.v == hit.v);
        }
    }
    cr_assert(compared > 30000, "compared %d", compared);
    cr_assert(hits > compared / 5 && culled_checked > hits / 5, "hits %d culled %d", hits, culled_checked);
}

Test(ray_triangle, degenerate_and_invalid_input_never_hit)
{
    rng r = {21};
    sr_triangle_hit hit;
    for (int i = 0; i < 20000; i++) {
        sr_vec3 a = rng_vec3(&r, -5, 5), b = rng_vec3(&r, -5, 5), c;
        if (i % 2)
            c = a; /* two vertices equal */
        else
            b = c = a; /* all equal */
        /* rays aimed exactly at the vertices, at the middle of the segment, and at random */
        sr_vec3 origin = rng_vec3(&r, -10, 10);
        sr_vec3 targets[5] = {a, b, c, sr_vec3_lerp(a, b, 0.5f), rng_vec3(&r, -5, 5)};
        for (int k = 0; k < 5; k++) {
            sr_ray ray = sr_ray_make(origin, sr_vec3_sub(targets[k], origin), -INFINITY, INFINITY);
            cr_assert(!sr_ray_triangle(&ray, a, b, c, &hit), "degenerate case %d target %d", i % 2, k);
            cr_assert(!sr_ray_triangle(&ray, c, a, b, &hit));
            cr_assert(!sr_ray_triangle_culled(&ray, a, b, c, &hit));
        }
    }
    /* Collinear distinct vertices: zero area in exact arithmetic, but in the ray space they are
     * rounded to a sliver of rounding width, which must stay hittable for watertightness (a
     * T-junction repair in a closed mesh is such a sliver, and its neighbours leave exactly
     * that sliver uncovered). So only rays passing further than rounding from the segment are
     * required to miss. */
    for (int i = 0; i < 20000; i++) {
        sr_vec3 a = {(float)(int)rng_range(&r, -40, 40) / 8, (float)(int)rng_range(&r, -40, 40) / 8,
                     (float)(int)rng_range(&r, -40, 40) / 8};
        sr_vec3 step = {(float)(int)rng_range(&r, -8, 8) / 16, (float)(int)rng_range(&r, -8, 8) / 16,
                        (float)(int)rng_range(&r, -8, 8) / 16};
        sr_vec3 b = sr_vec3_add(a, step), c = sr_vec3_add(a, sr_vec3_scale(step, 3)); /* exact */
        sr_vec3 origin = rng_vec3(&r, -10, 10);
        sr_vec3 target = rng_vec3(&r, -5, 5);
        /* distance between the ray's line and the segment's line, in double */
        dvec d = dv_sub(dv(target), dv(origin)), e = dv(step);
        dvec n = dv_cross(d, e);
        double line_distance = dv_length(n) > 0 ? fabs(dv_dot(dv_sub(dv(a), dv(origin)), n)) / dv_length(n) : 0;
        if (line_distance < 1e-4)
            continue;
        sr_ray ray = sr_ray_make(origin, sr_vec3_sub(target, origin), -INFINITY, INFINITY);
        cr_assert(!sr_ray_triangle(&ray, a, b, c, &hit), "collinear triangle hit %g away", line_distance);
    }
    /* zero direction, NaN anywhere */
    sr_vec3 a = {-1, -1, -2}, b = {1, -1, -2}, c = {0, 1, -2};
    sr_ray zero = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, 0}, -INFINITY, INFINITY);
    cr_assert(!sr_ray_triangle(&zero, a, b, c, &hit));
    sr_ray zero_on = sr_ray_make((sr_vec3){0, 0, -2}, (sr_vec3){-0.0f, 0, 0}, -INFINITY, INFINITY);
    cr_assert(!sr_ray_triangle(&zero_on, a, b, c, &hit), "a point on the triangle is not a ray");
    sr_ray good = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, 0, INFINITY);
    cr_assert(sr_ray_triangle(&good, a, b, c, &hit));
    for (int k = 0; k < 9; k++) {
        sr_vec3 v[3] = {a, b, c};
        set_axis(&v[k / 3], k % 3, NAN);
        cr_assert(!sr_ray_triangle(&good, v[0], v[1], v[2], &hit), "NaN vertex %d", k);
        cr_assert(!sr_ray_triangle_culled(&good, v[0], v[1], v[2], &hit));
        set_axis(&v[k / 3], k % 3, INFINITY);
        cr_assert(!sr_ray_triangle(&good, v[0], v[1], v[2], &hit), "infinite vertex %d", k);
    }
    const sr_vec3 nan_vec[3] = {{NAN, 0, 0}, {0, NAN, 0}, {0, 0, NAN}};
    for (int k = 0; k < 3; k++) {
        sr_ray o = sr_ray_make(nan_vec[k], (sr_vec3){0, 0, -1}, 0, INFINITY);
        cr_assert(!sr_ray_triangle(&o, a, b, c, &hit));
        sr_ray d = sr_ray_make((sr_vec3){0, 0, 0}, nan_vec[k], 0, INFINITY);
        cr_assert(!sr_ray_triangle(&d, a, b, c, &hit));
    }
    sr_ray t1 = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1}, NAN, INFINITY);
    cr_assert(!sr_ray_triangle(&t1, a, b, c, &hit));
    sr_ray hand = good; /* not through sr_ray_make */
    hand.tmax = NAN;
    cr_assert(!sr_ray_triangle(&hand, a, b, c, &hit));
    hand.tmax = INFINITY;
    hand.tmin = NAN;
    cr_assert(!sr_ray_triangle(&hand, a, b, c, &hit));
    /* a subnormal direction would put the hit at t ~ 1e40: infinite t is not a hit */
    sr_ray subnormal = sr_ray_make((sr_vec3){0, 0, 0}, (sr_vec3){0, 0, -1e-40f}, 0, INFINITY);
    cr_assert(!sr_ray_triangle(&subnormal, a, b, c, &hit));
}

/* ------------------------------------------------------------------------------------------ */
/* Watertightness on closed meshes                                                             */

typedef struct test_mesh {
    sr_vec3 *positions;
    dvec *outward; /* per vertex: direction away from the solid (for rays from outside) */
    uint32_t *indices;
    int vertex_count, triangle_count;
} test_mesh;

static void mesh_free(test_mesh *m)
{
    free(m->positions);
    free(m->outward);
    free(m->indices);
}

static void mesh_add_triangle(test_mesh *m, int *cursor, uint32_t a, uint32_t b, uint32_t c)
{
    m->indices[3 * *cursor + 0] = a;
    m->indices[3 * *cursor + 1] = b;
    m->indices[3 * *cursor + 2] = c;
    (*cursor)++;
}

/* Orients every triangle counter-clockwise seen from outside (normal along `outward`). */
static void mesh_orient(test_mesh *m)
{
    for (int i = 0; i < m->triangle_count; i++) {
        uint32_t *t = &m->indices[3 * i];
        dvec a = dv(m->positions[t[0]]), b = dv(m->positions[t[1]]), c = dv(m->positions[t[2]]);
        dvec out = dv_add(dv_add(m->outward[t[0]], m->outward[t[1]]), m->outward[t[2]]);
        if (dv_dot(dv_cross(dv_sub(b, a), dv_sub(c, a)), out) < 0) {
            uint32_t swap = t[1];
            t[1] = t[2];
            t[2] = swap;
        }
    }
}

/* UV sphere: poles shared by their fans, seam vertices shared by index: every shared vertex is
 * one float triple. `rotation` (row-major, double) is applied before rounding to float. */
static test_mesh build_sphere(int slices, int stacks, double radius, const double rotation[9])
{
    test_mesh m = {0};
    m.vertex_count = 2 + slices * (stacks - 1);
    m.triangle_count = 2 * slices * (stacks - 1);
    m.positions = calloc((size_t)m.vertex_count, sizeof *m.positions);
    m.outward = calloc((size_t)m.vertex_count, sizeof *m.outward);
    m.indices = calloc((size_t)m.triangle_count * 3, sizeof *m.indices);
    cr_assert(m.positions && m.outward && m.indices);
    for (int v = 0; v < m.vertex_count; v++) {
        dvec p;
        if (v == 0)
            p = (dvec){0, 1, 0};
        else if (v == m.vertex_count - 1)
            p = (dvec){0, -1, 0};
        else {
            int ring = (v - 1) / slices + 1, j = (v - 1) % slices;
            double theta = pi * ring / stacks, phi = 2 * pi * j / slices;
            p = (dvec){sin(theta) * cos(phi), cos(theta), sin(theta) * sin(phi)};
        }
        m.outward[v] = rotate(rotation, p);
        m.positions[v] = to_float(dv_scale(m.outward[v], radius));
    }
    int cursor = 0;
    uint32_t south = (uint32_t)m.vertex_count - 1;
    for (int j = 0; j < slices; j++) {
        uint32_t j1 = (uint32_t)((j + 1) % slices);
        mesh_add_triangle(&m, &cursor, 0, 1 + (uint32_t)j, 1 + j1);
        uint32_t last = 1 + (uint32_t)((stacks - 2) * slices);
        mesh_add_triangle(&m, &cursor, south, last + j1, last + (uint32_t)j);
        for (int ring = 1; ring < stacks - 1; ring++) {
            uint32_t upper = 1 + (uint32_t)((ring - 1) * slices), lower = upper + (uint32_t)slices;
            mesh_add_triangle(&m, &cursor, upper + (uint32_t)j, lower + (uint32_t)j, lower + j1);
            mesh_add_triangle(&m, &cursor, upper + (uint32_t)j, lower + j1, upper + j1);
        }
    }
    cr_assert_eq(cursor, m.triangle_count);
    mesh_orient(&m);
    return m;
}

static test_mesh build_torus(int rings, int sides, double major, double minor, const double rotation[9])
{
    test_mesh m = {0};
    m.vertex_count = rings * sides;
    m.triangle_count = 2 * rings * sides;
    m.positions = calloc((size_t)m.vertex_count, sizeof *m.positions);
    m.outward = calloc((size_t)m.vertex_count, sizeof *m.outward);
    m.indices = calloc((size_t)m.triangle_count * 3, sizeof *m.indices);
    cr_assert(m.positions && m.outward && m.indices);
    for (int i = 0; i < rings; i++) {
        for (int j = 0; j < sides; j++) {
            double phi = 2 * pi * i / rings, theta = 2 * pi * j / sides;
            dvec tube = {cos(theta) * cos(phi), sin(theta), cos(theta) * sin(phi)};
            dvec centre = {major * cos(phi), 0, major * sin(phi)};
            m.outward[i * sides + j] = rotate(rotation, tube);
            m.positions[i * sides + j] = to_float(rotate(rotation, dv_add(centre, dv_scale(tube, minor))));
        }
    }
    int cursor = 0;
    for (int i = 0; i < rings; i++) {
        for (int j = 0; j < sides; j++) {
            uint32_t a = (uint32_t)(i * sides + j), b = (uint32_t)(((i + 1) % rings) * sides + j);
            uint32_t c = (uint32_t)(((i + 1) % rings) * sides + (j + 1) % sides);
            uint32_t d = (uint32_t)(i * sides + (j + 1) % sides);
            mesh_add_triangle(&m, &cursor, a, b, c);
            mesh_add_triangle(&m, &cursor, a, c, d);
        }
    }
    mesh_orient(&m);
    return m;
}

/* Edges with their two triangles (the mesh must be closed: every edge used exactly twice) and
 * vertex fans, built by sorting. */
typedef struct edge_entry {
    uint64_t key;
    int triangle;
} edge_entry;

static int compare_edges(const void *pa, const void *pb)
{
    const edge_entry *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->triangle - b->triangle;
}

static edge_entry *mesh_edges(const test_mesh *m)
{
    size_t count = (size_t)m->triangle_count * 3;
    edge_entry *edges = malloc(count * sizeof *edges);
    cr_assert(edges);
    for (int t = 0; t < m->triangle_count; t++) {
        for (int k = 0; k < 3; k++) {
            uint64_t p = m->indices[3 * t + k], q = m->indices[3 * t + (k + 1) % 3];
            edges[3 * t + k] = (edge_entry){p < q ? (p << 32 | q) : (q << 32 | p), t};
        }
    }
    qsort(edges, count, sizeof *edges, compare_edges);
    for (size_t i = 0; i < count; i += 2) /* closed, manifold */
        cr_assert(edges[i].key == edges[i + 1].key && (i + 2 >= count || edges[i + 2].key != edges[i].key),
                  "mesh is not closed at edge %zu", i);
    return edges;
}

static bool triangle_hit_two_sided(const test_mesh *m, const sr_ray *ray, int t, sr_triangle_hit *hit)
{
    const uint32_t *i = &m->indices[3 * t];
    return sr_ray_triangle(ray, m->positions[i[0]], m->positions[i[1]], m->positions[i[2]], hit);
}

static bool triangle_hit_front(const test_mesh *m, const sr_ray *ray, int t, sr_triangle_hit *hit)
{
    const uint32_t *i = &m->indices[3 * t];
    return sr_ray_triangle_culled(ray, m->positions[i[0]], m->positions[i[1]], m->positions[i[2]], hit);
}

/* Rays aimed exactly at every shared edge (midpoint a + 0.5 (b - a) in float) and every vertex,
 * from outside and from inside: at least one of the adjacent triangles must hit (front faces
 * for rays from outside, with the culled test as well). */
static void check_edges_and_vertices(const test_mesh *m, rng *r, double offset, double inside_offset,
                                     const sr_vec3 *centre)
{
    edge_entry *edges = mesh_edges(m);
    size_t count = (size_t)m->triangle_count * 3;
    int missed_outside = 0, missed_culled = 0, missed_inside = 0;
    for (size_t e = 0; e < count; e += 2) {
        uint32_t p = (uint32_t)(edges[e].key >> 32), q = (uint32_t)(edges[e].key & 0xffffffffu);
        sr_vec3 a = m->positions[p], b = m->positions[q];
        sr_vec3 midpoint = sr_vec3_add(a, sr_vec3_scale(sr_vec3_sub(b, a), 0.5f));
        dvec out = dv_add(m->outward[p], m->outward[q]);
        out = dv_scale(out, 1 / dv_length(out));
        for (int side = 0; side < 2; side++) {
            double distance = side == 0 ? offset : -inside_offset;
            dvec jitter = dv_scale(rng_direction(r), 0.3 * fabs(distance));
            sr_vec3 origin = to_float(dv_add(dv_add(dv(midpoint), dv_scale(out, distance)), jitter));
            sr_ray ray = sr_ray_make(origin, sr_vec3_sub(midpoint, origin), 0, INFINITY);
            bool any = triangle_hit_two_sided(m, &ray, edges[e].triangle, NULL) ||
                       triangle_hit_two_sided(m, &ray, edges[e + 1].triangle, NULL);
            if (side == 0) {
                missed_outside += !any;
                missed_culled += !(triangle_hit_front(m, &ray, edges[e].triangle, NULL) ||
                                   triangle_hit_front(m, &ray, edges[e + 1].triangle, NULL));
            } else {
                missed_inside += !any;
            }
        }
        if (centre) { /* from the centre of a convex mesh, direction = midpoint - centre */
            sr_ray ray = sr_ray_make(*centre, sr_vec3_sub(midpoint, *centre), 0, INFINITY);
            missed_inside += !(triangle_hit_two_sided(m, &ray, edges[e].triangle, NULL) ||
                               triangle_hit_two_sided(m, &ray, edges[e + 1].triangle, NULL));
        }
    }
    cr_assert(missed_outside == 0 && missed_culled == 0 && missed_inside == 0,
              "rays through shared edges slipped through: %d from outside, %d culled, %d from inside", missed_outside,
              missed_culled, missed_inside);
    free(edges);

    /* vertex fans */
    int *fan_count = calloc((size_t)m->vertex_count + 1, sizeof *fan_count);
    int *fan = malloc((size_t)m->triangle_count * 3 * sizeof *fan);
    cr_assert(fan_count && fan);
    for (int i = 0; i < m->triangle_count * 3; i++)
        fan_count[m->indices[i] + 1]++;
    for (int v = 0; v < m->vertex_count; v++)
        fan_count[v + 1] += fan_count[v];
    int *fill = calloc((size_t)m->vertex_count, sizeof *fill);
    cr_assert(fill);
    for (int i = 0; i < m->triangle_count * 3; i++) {
        uint32_t v = m->indices[i];
        fan[fan_count[v] + fill[v]++] = i / 3;
    }
    int vertex_missed = 0, vertex_missed_culled = 0;
    for (int v = 0; v < m->vertex_count; v++) {
        for (int side = 0; side < 3; side++) {
            if (side == 2 && !centre)
                break;
            double distance = side == 0 ? offset : -inside_offset;
            dvec jitter = dv_scale(rng_direction(r), 0.3 * fabs(distance));
            sr_vec3 origin = to_float(dv_add(dv_add(dv(m->positions[v]), dv_scale(m->outward[v], distance)), jitter));
            if (side == 2)
                origin = *centre; /* direction = vertex - centre, exactly the vertex for (0,0,0) */
            sr_ray ray = sr_ray_make(origin, sr_vec3_sub(m->positions[v], origin), 0, INFINITY);
            bool any = false, any_front = false;
            for (int k = fan_count[v]; k < fan_count[v + 1]; k++) {
                any = any || triangle_hit_two_sided(m, &ray, fan[k], NULL);
                any_front = any_front || triangle_hit_front(m, &ray, fan[k], NULL);
            }
            vertex_missed += !any;
            if (side == 0)
                vertex_missed_culled += !any_front;
        }
    }
    cr_assert(vertex_missed == 0 && vertex_missed_culled == 0, "rays through vertices slipped through: %d (%d culled)",
              vertex_missed, vertex_missed_culled);
    free(fan_count);
    free(fan);
    free(fill);
}

/* A uniform grid over the mesh so that 100,000 rays need not each test every triangle. It only
 * selects candidates, conservatively: triangles are binned with their boxes grown by half the
 * sampling step, and the ray is sampled every `step` along its length, so the sample nearest to
 * any hit point lies in a cell holding that triangle. A mistake here could only hide hits (and
 * fail the test), never invent one. */
typedef struct test_grid {
    int resolution;
    double lo[3], cell, step;
    int *start, *items;
    int *stamp;
} test_grid;

static int grid_coordinate(const test_grid *g, double x, int axis)
{
    int c = (int)floor((x - g->lo[axis]) / g->cell);
    return c < 0 ? 0 : (c >= g->resolution ? g->resolution - 1 : c);
}

static test_grid grid_build(const test_mesh *m, int resolution)
{
    test_grid g = {.resolution = resolution};
    double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    g.lo[0] = g.lo[1] = g.lo[2] = INFINITY;
    for (int v = 0; v < m->vertex_count; v++) {
        for (int axis = 0; axis < 3; axis++) {
            g.lo[axis] = fmin(g.lo[axis], dv_get(dv(m->positions[v]), axis));
            hi[axis] = fmax(hi[axis], dv_get(dv(m->positions[v]), axis));
        }
    }
    double extent = fmax(hi[0] - g.lo[0], fmax(hi[1] - g.lo[1], hi[2] - g.lo[2]));
    g.cell = extent * 1.001 / resolution;
    g.step = g.cell * 0.5;
    size_t cells = (size_t)resolution * resolution * resolution;
    g.start = calloc(cells + 1, sizeof *g.start);
    g.stamp = malloc((size_t)m->triangle_count * sizeof *g.stamp);
    cr_assert(g.start && g.stamp);
    for (int pass = 0; pass < 2; pass++) {
        int *fill = pass ? calloc(cells, sizeof *fill) : NULL;
        for (int t = 0; t < m->triangle_count; t++) {
            int lo_cell[3], hi_cell[3];
            for (int axis = 0; axis < 3; axis++) {
                double mn = INFINITY, mx = -INFINITY;
                for (int k = 0; k < 3; k++) {
                    double x = dv_get(dv(m->positions[m->indices[3 * t + k]]), axis);
                    mn = fmin(mn, x);
                    mx = fmax(mx, x);
                }
                lo_cell[axis] = grid_coordinate(&g, mn - 0.6 * g.step, axis);
                hi_cell[axis] = grid_coordinate(&g, mx + 0.6 * g.step, axis);
            }
            for (int z = lo_cell[2]; z <= hi_cell[2]; z++)
                for (int y = lo_cell[1]; y <= hi_cell[1]; y++)
                    for (int x = lo_cell[0]; x <= hi_cell[0]; x++) {
                        size_t c = ((size_t)z * resolution + y) * resolution + x;
                        if (pass == 0)
                            g.start[c + 1]++;
                        else
                            g.items[g.start[c] + fill[c]++] = t;
                    }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; c++)
                g.start[c + 1] += g.start[c];
            g.items = malloc((size_t)g.start[cells] * sizeof *g.items);
            cr_assert(g.items);
        }
        free(fill);
    }
    for (int t = 0; t < m->triangle_count; t++)
        g.stamp[t] = -1;
    return g;
}

static void grid_free(test_grid *g)
{
    free(g->start);
    free(g->items);
    free(g->stamp);
}

/* Any hit of a ray with unit direction whose origin is inside the grid, over all candidates
 * along the ray until it leaves the grid's box. */
static bool grid_any_hit(test_grid *g, const test_mesh *m, const sr_ray *ray, int ray_id, sr_triangle_hit *hit)
{
    double hi[3];
    for (int axis = 0; axis < 3; axis++)
        hi[axis] = g->lo[axis] + g->cell * g->resolution;
    /* length inside the grid box (double slab clip; the origin is inside) */
    double t_exit = INFINITY;
    dvec o = dv(ray->origin), d = dv(ray->direction);
    for (int axis = 0; axis < 3; axis++) {
        double dc = dv_get(d, axis), oc = dv_get(o, axis);
        if (dc > 0)
            t_exit = fmin(t_exit, (hi[axis] - oc) / dc);
        else if (dc < 0)
            t_exit = fmin(t_exit, (g->lo[axis] - oc) / dc);
    }
    int steps = (int)ceil(t_exit / g->step) + 1;
    for (int s = 0; s <= steps; s++) {
        dvec p = dv_add(o, dv_scale(d, fmin(s * g->step, t_exit)));
        int x = grid_coordinate(g, p.x, 0), y = grid_coordinate(g, p.y, 1), z = grid_coordinate(g, p.z, 2);
        size_t c = ((size_t)z * g->resolution + y) * g->resolution + x;
        for (int k = g->start[c]; k < g->start[c + 1]; k++) {
            int t = g->items[k];
            if (g->stamp[t] == ray_id)
                continue;
            g->stamp[t] = ray_id;
            if (triangle_hit_two_sided(m, ray, t, hit))
                return true;
        }
    }
    return false;
}

typedef dvec (*inside_point_fn)(rng *r, const double rotation[9]);

static dvec inside_sphere(rng *r, const double rotation[9])
{
    (void)rotation;
    dvec p;
    do
        p = (dvec){rng_range(r, -0.9, 0.9), rng_range(r, -0.9, 0.9), rng_range(r, -0.9, 0.9)};
    while (dv_length(p) > 0.9);
    return p;
}

static dvec inside_torus(rng *r, const double rotation[9])
{
    /* major 1, minor 0.35: points within 0.6 of the minor radius of the ring circle, far inside
     * the tessellated tube (its inradius is 0.35 cos(pi / 64) minus a 2e-4 sag) */
    double phi = rng_range(r, 0, 2 * pi), radius = 0.35 * 0.6 * sqrt(rng_unit(r));
    double theta = rng_range(r, 0, 2 * pi);
    dvec tube = {cos(theta) * cos(phi), sin(theta), cos(theta) * sin(phi)};
    dvec p = dv_add((dvec){cos(phi), 0, sin(phi)}, dv_scale(tube, radius));
    return rotate(rotation, p);
}

/* Distance of a point from the ideal surface the mesh approximates. */
typedef double (*surface_error_fn)(dvec point, const double rotation[9]);

static double sphere_surface_error(dvec p, const double rotation[9])
{
    (void)rotation;
    return fabs(dv_length(p) - 1.0);
}

static double torus_surface_error(dvec p, const double rotation[9])
{
    const double *m = rotation; /* transpose = inverse */
    dvec q = {m[0] * p.x + m[3] * p.y + m[6] * p.z, m[1] * p.x + m[4] * p.y + m[7] * p.z,
              m[2] * p.x + m[5] * p.y + m[8] * p.z};
    double ring = sqrt(q.x * q.x + q.z * q.z) - 1.0;
    return fabs(sqrt(ring * ring + q.y * q.y) - 0.35);
}

static void check_rays_from_inside(const test_mesh *m, rng *r, const double rotation[9], inside_point_fn inside,
                                   int count, surface_error_fn surface_error)
{
    test_grid g = grid_build(m, 48);
    int misses = 0;
    for (int i = 0; i < count; i++) {
        sr_vec3 origin = to_float(inside(r, rotation));
        sr_vec3 direction = to_float(rng_direction(r));
        sr_ray ray = sr_ray_make(origin, direction, 0, INFINITY);
        sr_triangle_hit hit;
        if (!grid_any_hit(&g, m, &ray, i, &hit)) {
            misses++;
            continue;
        }
        /* a genuine crossing of the surface: positive t, a point within the tessellation's sag
         * (about 1e-3 here) of the ideal surface */
        cr_assert(hit.t > 0 && hit.u >= 0 && hit.v >= 0 && hit.u + hit.v <= 1.0f + 1e-6f);
        dvec point = dv_add(dv(origin), dv_scale(dv(direction), hit.t));
        cr_assert(surface_error(point, rotation) < 5e-3, "hit %g off the surface", surface_error(point, rotation));
    }
    cr_assert_eq(misses, 0, "%d of %d rays from inside the closed mesh escaped", misses, count);
    grid_free(&g);
}

static const double identity_rotation[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

Test(watertight, sphere_edges_and_vertices)
{
    rng r = {30};
    double rotation[9];
    random_rotation(&r, rotation);
    for (int variant = 0; variant < 2; variant++) {
        test_mesh m = build_sphere(128, 80, 1.0, variant ? rotation : identity_rotation);
        cr_assert(m.triangle_count >= 20000);
        const sr_vec3 centre = {0, 0, 0};
        check_edges_and_vertices(&m, &r, 0.5, 0.5, &centre);
        mesh_free(&m);
    }
}

Test(watertight, torus_edges_and_vertices)
{
    rng r = {31};
    double rotation[9];
    random_rotation(&r, rotation);
    for (int variant = 0; variant < 2; variant++) {
        test_mesh m = build_torus(160, 64, 1.0, 0.35, variant ? rotation : identity_rotation);
        cr_assert(m.triangle_count >= 20000);
        check_edges_and_vertices(&m, &r, 0.2, 0.2, NULL);
        mesh_free(&m);
    }
}

Test(watertight, sphere_rays_from_inside)
{
    rng r = {32};
    double rotation[9];
    random_rotation(&r, rotation);
    test_mesh aligned = build_sphere(128, 80, 1.0, identity_rotation);
    check_rays_from_inside(&aligned, &r, identity_rotation, inside_sphere, 20000, sphere_surface_error);
    mesh_free(&aligned);
    test_mesh m = build_sphere(128, 80, 1.0, rotation);
    check_rays_from_inside(&m, &r, rotation, inside_sphere, 100000, sphere_surface_error);
    mesh_free(&m);
}

Test(watertight, torus_rays_from_inside)
{
    rng r = {33};
    double rotation[9];
    random_rotation(&r, rotation);
    test_mesh aligned = build_torus(160, 64, 1.0, 0.35, identity_rotation);
    check_rays_from_inside(&aligned, &r, identity_rotation, inside_torus, 20000, torus_surface_error);
    mesh_free(&aligned);
    test_mesh m = build_torus(160, 64, 1.0, 0.35, rotation);
    check_rays_from_inside(&m, &r, rotation, inside_torus, 100000, torus_surface_error);
    mesh_free(&m);
}
