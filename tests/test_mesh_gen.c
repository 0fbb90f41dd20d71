/* test_mesh_gen.c — generated meshes (src/scene/mesh_gen.c): sphere, torus, box and plane against
 * their analytic shapes. Closedness is checked edge by edge on the bit patterns of the positions
 * (the watertightness softrast/scene.h promises), volumes against the exact volumes of the
 * polyhedra the vertex formulas describe (computed here in closed form), and every vertex and
 * normal against the analytic surface. */
#include <criterion/criterion.h>
#include <softrast/scene.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* ---- edges keyed by the bits of their end positions ---- */

typedef struct point_key {
    uint32_t bits[3];
} point_key;

typedef struct edge_record {
    point_key low, high; /* the two ends, ordered by their bits */
    int forward;         /* 1 when the triangle walks low -> high, 0 when high -> low */
    size_t triangle;
} edge_record;

static point_key key_of(sr_vec3 p)
{
    point_key k;
    memcpy(&k.bits[0], &p.x, sizeof(float));
    memcpy(&k.bits[1], &p.y, sizeof(float));
    memcpy(&k.bits[2], &p.z, sizeof(float));
    return k;
}

static int compare_keys(const point_key *a, const point_key *b)
{
    for (int i = 0; i < 3; i++)
        if (a->bits[i] != b->bits[i])
            return a->bits[i] < b->bits[i] ? -1 : 1;
    return 0;
}

static int compare_edges(const void *a, const void *b)
{
    const edge_record *x = a, *y = b;
    int c = compare_keys(&x->low, &y->low);
    return c ? c : compare_keys(&x->high, &y->high);
}

static sr_vec3 position_of(point_key k)
{
    sr_vec3 p;
    memcpy(&p.x, &k.bits[0], sizeof(float));
    memcpy(&p.y, &k.bits[1], sizeof(float));
    memcpy(&p.z, &k.bits[2], sizeof(float));
    return p;
}

/* Plane borders: both ends of a boundary edge on the same side of the square of half side h. */
static bool on_same_border(sr_vec3 a, sr_vec3 b, float h)
{
    return (a.x == b.x && fabsf(a.x) == h) || (a.z == b.z && fabsf(a.z) == h);
}

/* Every edge, keyed by the bit patterns of its two end positions, is used by exactly two
 * triangles walking it in opposite directions; with `border_half_side` > 0 (the plane) an edge
 * may instead be used by one triangle if it lies on the square's border. No triangle repeats a
 * position. Returns the number of edges breaking these rules (the first described in `first`)
 * and counts the boundary edges in *boundary. */
static size_t edge_problems(const sr_mesh *mesh, float border_half_side, size_t *boundary, char *first, size_t size)
{
    size_t count = mesh->triangle_count * 3, problems = 0;
    *boundary = 0;
    first[0] = '\0';
    edge_record *edges = malloc(count * sizeof *edges);
    cr_assert_not_null(edges);
    for (size_t t = 0; t < mesh->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t from = mesh->indices[3 * t + k], to = mesh->indices[3 * t + (k + 1) % 3];
            cr_assert(from < mesh->vertex_count && to < mesh->vertex_count, "triangle %zu: index out of range", t);
            point_key a = key_of(mesh->positions[from]), b = key_of(mesh->positions[to]);
            int order = compare_keys(&a, &b);
            if (order == 0 && problems++ == 0)
                snprintf(first, size, "triangle %zu repeats a position (degenerate)", t);
            edges[3 * t + k] = order < 0 ? (edge_record){a, b, 1, t} : (edge_record){b, a, 0, t};
        }
    qsort(edges, count, sizeof *edges, compare_edges);
    for (size_t i = 0; i < count;) {
        size_t run = 1;
        while (i + run < count && compare_edges(&edges[i], &edges[i + run]) == 0)
            run++;
        sr_vec3 a = position_of(edges[i].low), b = position_of(edges[i].high);
        const char *wrong = NULL;
        if (run == 1 && border_half_side > 0.0f && on_same_border(a, b, border_half_side))
            ++*boundary;
        else if (run == 1)
            wrong = "is open";
        else if (run > 2)
            wrong = "is shared by more than two triangles";
        else if (edges[i].forward == edges[i + 1].forward)
            wrong = "is walked the same way by both its triangles";
        if (wrong && problems++ == 0)
            snprintf(first, size, "edge (%.9g %.9g %.9g)-(%.9g %.9g %.9g) of triangle %zu %s", (double)a.x, (double)a.y,
                     (double)a.z, (double)b.x, (double)b.y, (double)b.z, edges[i].triangle, wrong);
        i += run;
    }
    free(edges);
    return problems;
}

/* Asserts the mesh passes edge_problems; returns the number of boundary edges. */
static size_t check_edges(const sr_mesh *mesh, const char *name, float border_half_side)
{
    char first[256];
    size_t boundary;
    size_t problems = edge_problems(mesh, border_half_side, &boundary, first, sizeof first);
    cr_assert_eq(problems, 0, "%s: %zu edges are wrong; first: %s", name, problems, first);
    return boundary;
}

/* Signed volume by the divergence theorem, in double from the float positions. */
static double mesh_volume(const sr_mesh *mesh)
{
    double volume = 0.0;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double p[3][3];
        for (int k = 0; k < 3; k++) {
            sr_vec3 v = mesh->positions[mesh->indices[3 * t + k]];
            p[k][0] = v.x, p[k][1] = v.y, p[k][2] = v.z;
        }
        volume +=
            (p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) - p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
             p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0])) /
            6.0;
    }
    return volume;
}

/* (b - a) x (c - a) of triangle t in double, and its centroid. */
static void face_normal(const sr_mesh *mesh, size_t t, double n[3], double centroid[3])
{
    double p[3][3];
    for (int k = 0; k < 3; k++) {
        sr_vec3 v = mesh->positions[mesh->indices[3 * t + k]];
        p[k][0] = v.x, p[k][1] = v.y, p[k][2] = v.z;
    }
    double u[3], w[3];
    for (int i = 0; i < 3; i++) {
        u[i] = p[1][i] - p[0][i];
        w[i] = p[2][i] - p[0][i];
        centroid[i] = (p[0][i] + p[1][i] + p[2][i]) / 3.0;
    }
    n[0] = u[1] * w[2] - u[2] * w[1];
    n[1] = u[2] * w[0] - u[0] * w[2];
    n[2] = u[0] * w[1] - u[1] * w[0];
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Exact volume of the UV sphere's polyhedron: each band between rings i and i + 1 is a
 * prismatoid (two parallel regular `slices`-gons at the same azimuths, joined by planar isosceles
 * trapezoids), whose cross-section area is quadratic in height, so Simpson's rule is exact:
 * V = h / 6 (A_i + 4 A_mid + A_i+1) with A = slices / 2 sin(2 pi / slices) rho^2 and the middle
 * section's circumradius (rho_i + rho_i+1) / 2. Rings at polar angles pi i / stacks. */
static double uv_sphere_volume(double radius, int slices, int stacks)
{
    double k = slices / 2.0 * sin(2.0 * PI / slices), volume = 0.0;
    for (int i = 0; i < stacks; i++) {
        double y0 = radius * cos(PI * i / stacks), y1 = radius * cos(PI * (i + 1) / stacks);
        double r0 = radius * sin(PI * i / stacks), r1 = radius * sin(PI * (i + 1) / stacks);
        volume += (y0 - y1) / 6.0 * k * (r0 * r0 + (r0 + r1) * (r0 + r1) + r1 * r1);
    }
    return volume;
}

/* Exact volume of the torus polyhedron: the segment between the rings at u_i and u_i+1 is the
 * tube's cross-section (a regular `sides`-gon of circumradius r centred at distance R from the
 * axis) carried linearly from one ring plane to the next; the map's Jacobian is rho sin(du), so the
 * segment holds sin(2 pi / rings) * area * R (the section's centroid is at rho = R). */
static double torus_polyhedron_volume(double major, double minor, int rings, int sides)
{
    double section_area = sides / 2.0 * minor * minor * sin(2.0 * PI / sides);
    return rings * sin(2.0 * PI / rings) * section_area * major;
}

/* ---- sphere ---- */

static void check_sphere(float radius, int slices, int stacks)
{
    sr_mesh *mesh = NULL;
    sr_error err;
    cr_assert_eq(sr_mesh_create_sphere(radius, slices, stacks, &mesh, &err), SR_OK, "%s", err.message);
    char name[64];
    snprintf(name, sizeof name, "sphere %d x %d", slices, stacks);
    cr_assert_eq(mesh->triangle_count, (size_t)(2 * slices * (stacks - 1)), "%s", name);
    cr_assert_eq(check_edges(mesh, name, 0.0f), 0);
    /* every vertex on the sphere, its normal the radial direction */
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        sr_vec3 p = mesh->positions[v], n = mesh->normals[v];
        double length = sqrt((double)p.x * p.x + (double)p.y * p.y + (double)p.z * p.z);
        cr_assert(fabs(length - radius) <= 4.0 * FLT_EPSILON * radius, "%s: vertex %zu at distance %.9g, radius %.9g",
                  name, v, length, (double)radius);
        double n_length = sqrt((double)n.x * n.x + (double)n.y * n.y + (double)n.z * n.z);
        cr_assert(fabs(n_length - 1.0) <= 4.0 * FLT_EPSILON, "%s: normal %zu has length %.9g", name, v, n_length);
        double along = ((double)p.x * n.x + (double)p.y * n.y + (double)p.z * n.z) / (length * n_length);
        cr_assert(along >= 1.0 - 1e-6, "%s: normal %zu is not radial (cos %.9g)", name, v, along);
    }
    /* outward faces */
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double n[3], c[3];
        face_normal(mesh, t, n, c);
        cr_assert_gt(dot3(n, c), 0.0, "%s: triangle %zu faces inwards", name, t);
    }
    double volume = mesh_volume(mesh), expected = uv_sphere_volume(radius, slices, stacks);
    cr_assert(fabs(volume - expected) <= 1e-6 * expected, "%s: volume %.12g, polyhedron's %.12g (relative error %.3g)",
              name, volume, expected, fabs(volume - expected) / expected);
    sr_mesh_destroy(mesh);
}

Test(mesh_gen, sphere_is_closed_on_the_sphere_with_the_polyhedron_volume)
{
    check_sphere(2.0f, 64, 32);
    check_sphere(1.0f, 7, 5);
    check_sphere(0.75f, 3, 2); /* the smallest: a triangular bipyramid */
    check_sphere(3.0f, 4, 3);
    check_sphere(1.5f, 33, 17);
}

Test(mesh_gen, sphere_polyhedron_volume_formula)
{
    /* The closed form against known solids: slices 4, stacks 2 is the octahedron (volume
     * 4/3 r^3); fine tessellations tend to the ball. */
    cr_assert_float_eq(uv_sphere_volume(1.0, 4, 2), 4.0 / 3.0, 1e-12);
    cr_assert_float_eq(uv_sphere_volume(2.0, 4, 2), 8.0 * 4.0 / 3.0, 1e-11);
    double ball = 4.0 / 3.0 * PI;
    cr_assert(fabs(uv_sphere_volume(1.0, 4096, 2048) - ball) < 1e-5 * ball);
    cr_assert(uv_sphere_volume(1.0, 64, 32) < ball, "inscribed");
}

/* ---- torus ---- */

static void check_torus(float major, float minor, int rings, int sides)
{
    sr_mesh *mesh = NULL;
    sr_error err;
    cr_assert_eq(sr_mesh_create_torus(major, minor, rings, sides, &mesh, &err), SR_OK, "%s", err.message);
    char name[64];
    snprintf(name, sizeof name, "torus %d x %d", rings, sides);
    cr_assert_eq(mesh->triangle_count, (size_t)(2 * rings * sides), "%s", name);
    cr_assert_eq(check_edges(mesh, name, 0.0f), 0);
    const double scale = (double)major + minor;
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        sr_vec3 p = mesh->positions[v], n = mesh->normals[v];
        /* nearest point of the tube's centre circle (radius R in the XZ plane) */
        double rho = sqrt((double)p.x * p.x + (double)p.z * p.z);
        cr_assert_gt(rho, 0.0);
        double centre[3] = {major * p.x / rho, 0.0, major * p.z / rho};
        double offset[3] = {p.x - centre[0], p.y - centre[1], p.z - centre[2]};
        double distance = sqrt(dot3(offset, offset));
        cr_assert(fabs(distance - minor) <= 8.0 * FLT_EPSILON * scale,
                  "%s: vertex %zu at %.9g from the centre circle, minor radius %.9g", name, v, distance, (double)minor);
        double nd[3] = {n.x, n.y, n.z};
        double n_length = sqrt(dot3(nd, nd));
        cr_assert(fabs(n_length - 1.0) <= 4.0 * FLT_EPSILON, "%s: normal %zu has length %.9g", name, v, n_length);
        double along = dot3(nd, offset) / (n_length * distance);
        cr_assert(along >= 1.0 - 1e-5, "%s: normal %zu is not the tube's normal (cos %.9g)", name, v, along);
    }
    /* Outward, triangle by triangle: along the sum of its vertices' offsets from the centre circle
     * (a consistently oriented closed mesh of positive volume is outward as a whole; this names
     * the triangle). */
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double n[3], c[3], out[3] = {0, 0, 0};
        face_normal(mesh, t, n, c);
        for (int k = 0; k < 3; k++) {
            sr_vec3 p = mesh->positions[mesh->indices[3 * t + k]];
            double rho = sqrt((double)p.x * p.x + (double)p.z * p.z);
            out[0] += p.x - major * p.x / rho, out[1] += p.y, out[2] += p.z - major * p.z / rho;
        }
        cr_assert_gt(dot3(n, out), 0.0, "%s: triangle %zu faces inwards", name, t);
    }
    double volume = mesh_volume(mesh), expected = torus_polyhedron_volume(major, minor, rings, sides);
    cr_assert(fabs(volume - expected) <= 1e-6 * expected, "%s: volume %.12g, polyhedron's %.12g (relative error %.3g)",
              name, volume, expected, fabs(volume - expected) / expected);
    sr_mesh_destroy(mesh);
}

Test(mesh_gen, torus_is_closed_on_the_torus_with_the_polyhedron_volume)
{
    check_torus(2.0f, 0.5f, 96, 48);
    check_torus(1.0f, 0.25f, 12, 8);
    check_torus(1.0f, 0.5f, 3, 3); /* the smallest */
    check_torus(3.0f, 1.25f, 7, 5);
}

Test(mesh_gen, torus_polyhedron_volume_formula)
{
    /* Fine tessellations tend to Pappus's 2 pi^2 R r^2; coarse ones are inscribed. With 4 rings
     * and 4 sides the solid is four square-section wedges: by hand, each ring segment is the
     * square section (side r sqrt 2, area 2 r^2) swept with Jacobian rho sin(90 deg). */
    double exact = 2.0 * PI * PI * 2.0 * 0.25;
    cr_assert(fabs(torus_polyhedron_volume(2.0, 0.5, 4096, 4096) - exact) < 1e-5 * exact);
    cr_assert(torus_polyhedron_volume(2.0, 0.5, 96, 48) < exact, "inscribed");
    cr_assert_float_eq(torus_polyhedron_volume(2.0, 0.5, 4, 4), 4.0 * 2.0 * 0.25 * 2.0, 1e-12);
}

/* ---- box and plane ---- */

static void check_box(sr_vec3 half, int divisions)
{
    sr_mesh *mesh = NULL;
    sr_error err;
    cr_assert_eq(sr_mesh_create_box(half, divisions, &mesh, &err), SR_OK, "%s", err.message);
    char name[64];
    snprintf(name, sizeof name, "box %d", divisions);
    cr_assert_eq(mesh->triangle_count, (size_t)(12 * divisions * divisions), "%s", name);
    cr_assert_eq(check_edges(mesh, name, 0.0f), 0);
    const float h[3] = {half.x, half.y, half.z};
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        const float p[3] = {mesh->positions[v].x, mesh->positions[v].y, mesh->positions[v].z};
        const float n[3] = {mesh->normals[v].x, mesh->normals[v].y, mesh->normals[v].z};
        /* on the surface: inside the box, exactly on the face its normal names */
        int faces = 0;
        for (int a = 0; a < 3; a++) {
            cr_assert(fabsf(p[a]) <= h[a], "%s: vertex %zu outside the box", name, v);
            cr_assert(n[a] == 0.0f || n[a] == 1.0f || n[a] == -1.0f, "%s: normal %zu not axis-aligned", name, v);
            if (n[a] != 0.0f) {
                faces++;
                cr_assert(p[a] == n[a] * h[a], "%s: vertex %zu not on the face of its normal", name, v);
            }
        }
        cr_assert_eq(faces, 1, "%s: normal %zu", name, v);
    }
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double n[3], c[3];
        face_normal(mesh, t, n, c);
        cr_assert_gt(dot3(n, c), 0.0, "%s: triangle %zu faces inwards", name, t);
    }
    double volume = mesh_volume(mesh), expected = 8.0 * half.x * half.y * half.z;
    cr_assert(fabs(volume - expected) <= 1e-9 * expected, "%s: volume %.12g, expected %.12g", name, volume, expected);
    sr_mesh_destroy(mesh);
}

Test(mesh_gen, box_is_closed_on_its_faces_with_its_volume)
{
    check_box((sr_vec3){1.0f, 2.0f, 0.5f}, 3);
    check_box((sr_vec3){1.0f, 1.0f, 1.0f}, 1);
    check_box((sr_vec3){0.3f, 1.7f, 2.9f}, 4);
    check_box((sr_vec3){5.0f, 0.01f, 0.7f}, 7);
}

static void check_plane(float size, int divisions, float uv_repeat)
{
    sr_mesh *mesh = NULL;
    sr_error err;
    cr_assert_eq(sr_mesh_create_plane(size, divisions, uv_repeat, &mesh, &err), SR_OK, "%s", err.message);
    char name[64];
    snprintf(name, sizeof name, "plane %d", divisions);
    cr_assert_eq(mesh->triangle_count, (size_t)(2 * divisions * divisions), "%s", name);
    /* open only along the border: 4 sides of `divisions` edges */
    cr_assert_eq(check_edges(mesh, name, 0.5f * size), (size_t)(4 * divisions), "%s", name);
    double area = 0.0;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double n[3], c[3];
        face_normal(mesh, t, n, c);
        cr_assert(n[1] > 0.0 && n[0] == 0.0 && n[2] == 0.0, "%s: triangle %zu does not face +Y", name, t);
        area += 0.5 * n[1];
    }
    cr_assert(fabs(area - (double)size * size) <= 1e-9 * size * size, "%s: area %.12g", name, area);
    float max_u = 0.0f, max_v = 0.0f;
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        sr_vec3 p = mesh->positions[v], n = mesh->normals[v];
        cr_assert(p.y == 0.0f && fabsf(p.x) <= 0.5f * size && fabsf(p.z) <= 0.5f * size, "%s: vertex %zu", name, v);
        cr_assert(n.x == 0.0f && n.y == 1.0f && n.z == 0.0f, "%s: normal %zu", name, v);
        /* uvs run from 0 to uv_repeat across the square, following x and z */
        cr_assert_float_eq(mesh->uvs[v].x, (p.x / size + 0.5) * uv_repeat, 1e-5 * fabsf(uv_repeat));
        cr_assert_float_eq(mesh->uvs[v].y, (p.z / size + 0.5) * uv_repeat, 1e-5 * fabsf(uv_repeat));
        max_u = fmaxf(max_u, mesh->uvs[v].x), max_v = fmaxf(max_v, mesh->uvs[v].y);
    }
    cr_assert_float_eq(max_u, uv_repeat, 1e-6 * uv_repeat);
    cr_assert_float_eq(max_v, uv_repeat, 1e-6 * uv_repeat);
    sr_aabb bounds = sr_mesh_bounds(mesh);
    cr_assert(bounds.min.x == -0.5f * size && bounds.max.x == 0.5f * size);
    cr_assert(bounds.min.z == -0.5f * size && bounds.max.z == 0.5f * size);
    sr_mesh_destroy(mesh);
}

Test(mesh_gen, plane_is_open_only_along_its_border)
{
    check_plane(4.0f, 2, 3.0f);
    check_plane(1.0f, 1, 1.0f);
    check_plane(7.5f, 9, 2.5f);
}

/* The checker itself sees a seam off by one ulp, a flipped triangle and a missing one. */
Test(mesh_gen, edge_check_sees_open_and_flipped_meshes)
{
    sr_mesh *mesh = NULL;
    char first[256];
    size_t boundary;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 8, 4, &mesh, NULL), SR_OK);
    cr_assert_eq(edge_problems(mesh, 0.0f, &boundary, first, sizeof first), 0, "%s", first);
    /* Two vertices with the same bits (the seam's copies): moving one by an ulp opens the seam. */
    size_t a = 0, b = 0;
    for (size_t i = 0; i < mesh->vertex_count && !b; i++)
        for (size_t j = i + 1; j < mesh->vertex_count && !b; j++)
            if (memcmp(&mesh->positions[i], &mesh->positions[j], sizeof(sr_vec3)) == 0)
                a = i, b = j;
    cr_assert_gt(b, 0, "no duplicated positions: where is the seam?");
    sr_vec3 kept = mesh->positions[b];
    mesh->positions[b].y = nextafterf(kept.y, 2.0f);
    cr_assert_gt(edge_problems(mesh, 0.0f, &boundary, first, sizeof first), 0, "seam of %zu and %zu opened", a, b);
    mesh->positions[b] = kept;
    /* One triangle flipped. */
    uint32_t swap = mesh->indices[4];
    mesh->indices[4] = mesh->indices[5];
    mesh->indices[5] = swap;
    cr_assert_gt(edge_problems(mesh, 0.0f, &boundary, first, sizeof first), 0);
    mesh->indices[5] = mesh->indices[4];
    mesh->indices[4] = swap;
    /* One triangle left out. */
    mesh->triangle_count--;
    cr_assert_gt(edge_problems(mesh, 0.0f, &boundary, first, sizeof first), 0);
    mesh->triangle_count++;
    cr_assert_eq(edge_problems(mesh, 0.0f, &boundary, first, sizeof first), 0, "%s", first);
    sr_mesh_destroy(mesh);
}

Test(mesh_gen, bad_parameters_are_errors)
{
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_create_sphere(-1.0f, 8, 8, &mesh, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "radius"), "%s", err.message);
    cr_assert_eq(sr_mesh_create_sphere(NAN, 8, 8, &mesh, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 2, 8, &mesh, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_mesh_create_torus(1.0f, 0.5f, 100000, 8, &mesh, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "rings"), "%s", err.message);
    cr_assert_eq(sr_mesh_create_box((sr_vec3){1, 0, 1}, 1, &mesh, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_mesh_create_plane(INFINITY, 1, 1.0f, &mesh, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_null(mesh);
}
