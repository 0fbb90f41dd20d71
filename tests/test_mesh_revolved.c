/* test_mesh_revolved.c — the shapes of revolution of src/scene/mesh_gen.c (cylinder, capsule,
 * cone) against independent computations: closedness and orientation by the
 * bit patterns of edge end positions, the exact volume of the polyhedron the vertex formula
 * describes (derived here in double, never from the code's positions), the analytic surfaces,
 * normals, uvs and boxes, and argument errors. Plus a sanity pass over every generated shape.
 * (Sphere, torus, box and plane are tested in test_mesh_gen.c.) */
#include <criterion/criterion.h>
#include <softrast/scene.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum shape_kind { CYLINDER, CAPSULE, CONE } shape_kind;

typedef struct shape_case {
    shape_kind kind;
    float radius, height;
    int slices, stacks;
} shape_case;

static const char *const kind_names[] = {"cylinder", "capsule", "cone"};

/* Coarse and fine, odd and even slice counts (odd: no vertex at azimuth pi, so the box is not
 * symmetric in x), flat and slender, a capsule of height 0 (a sphere) and stacks = 1. */
static const shape_case cases[] = {
    {CYLINDER, 1.0f, 2.0f, 3, 1},   {CYLINDER, 0.5f, 3.0f, 7, 4},   {CYLINDER, 2.0f, 0.25f, 64, 5},
    {CYLINDER, 3.5f, 0.01f, 16, 1}, {CAPSULE, 1.0f, 2.0f, 3, 1},    {CAPSULE, 0.5f, 0.0f, 8, 4},
    {CAPSULE, 0.75f, 1.5f, 13, 6},  {CAPSULE, 2.0f, 0.1f, 64, 16},  {CAPSULE, 1.0f, 0.0f, 5, 1},
    {CONE, 1.0f, 2.0f, 3, 1},       {CONE, 0.5f, 1.5f, 7, 3},       {CONE, 2.0f, 0.3f, 32, 1},
    {CONE, 0.1f, 4.0f, 64, 8},      {CAPSULE, 0.25f, 3.0f, 24, 12}, {CYLINDER, 1.0f, 1.0f, 4096, 2},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

static sr_status create_shape(const shape_case *c, sr_mesh **out, sr_error *err)
{
    switch (c->kind) {
    case CYLINDER:
        return sr_mesh_create_cylinder(c->radius, c->height, c->slices, c->stacks, out, err);
    case CAPSULE:
        return sr_mesh_create_capsule(c->radius, c->height, c->slices, c->stacks, out, err);
    case CONE:
        return sr_mesh_create_cone(c->radius, c->height, c->slices, c->stacks, out, err);
    }
    return SR_ERROR_INVALID_ARGUMENT;
}

static sr_mesh *create_ok(const shape_case *c)
{
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(create_shape(c, &mesh, &err), SR_OK, "%s: %s", kind_names[c->kind], err.message);
    cr_assert_not_null(mesh);
    return mesh;
}

#define CASE_FORMAT "%s(r %g, h %g, slices %d, stacks %d)"
#define CASE_ARGS(c) kind_names[(c)->kind], (double)(c)->radius, (double)(c)->height, (c)->slices, (c)->stacks

/* ---- closedness: edges keyed by the bit patterns of their end positions ---------------------- */

typedef struct edge_key {
    uint32_t bits[6]; /* from.xyz, to.xyz */
} edge_key;

static int compare_keys(const void *a, const void *b)
{
    const edge_key *x = a, *y = b;
    for (int k = 0; k < 6; k++)
        if (x->bits[k] != y->bits[k])
            return x->bits[k] < y->bits[k] ? -1 : 1;
    return 0;
}

static void position_bits(sr_vec3 p, uint32_t bits[3])
{
    memcpy(&bits[0], &p.x, 4);
    memcpy(&bits[1], &p.y, 4);
    memcpy(&bits[2], &p.z, 4);
}

/* True when every edge is used by exactly two triangles in opposite directions, comparing end
 * positions bit for bit (so a seam off by one ulp is an open edge). Otherwise false, with the
 * reason in `why`. Positions only: split vertices (cap rims, apex, seam columns) must agree. */
static bool mesh_is_closed(const sr_mesh *mesh, char *why, size_t why_size)
{
    size_t count = 3 * mesh->triangle_count;
    edge_key *edges = calloc(count, sizeof *edges);
    cr_assert_not_null(edges);
    for (size_t t = 0; t < mesh->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            edge_key *e = &edges[3 * t + (size_t)k];
            position_bits(mesh->positions[mesh->indices[3 * t + (size_t)k]], &e->bits[0]);
            position_bits(mesh->positions[mesh->indices[3 * t + (size_t)(k + 1) % 3]], &e->bits[3]);
        }
    bool closed = true;
    for (size_t i = 0; i < count && closed; i++)
        if (memcmp(&edges[i].bits[0], &edges[i].bits[3], 12) == 0) {
            snprintf(why, why_size, "triangle %zu has two corners at the same position", i / 3);
            closed = false;
        }
    qsort(edges, count, sizeof *edges, compare_keys);
    for (size_t i = 0; i < count && closed; i++) {
        edge_key reverse;
        memcpy(&reverse.bits[0], &edges[i].bits[3], 12);
        memcpy(&reverse.bits[3], &edges[i].bits[0], 12);
        if (i > 0 && compare_keys(&edges[i - 1], &edges[i]) == 0) {
            snprintf(why, why_size, "a directed edge is used twice (inconsistent orientation or a fold)");
            closed = false;
        } else if (!bsearch(&reverse, edges, count, sizeof *edges, compare_keys)) {
            float from[3], to[3];
            memcpy(from, &edges[i].bits[0], 12);
            memcpy(to, &edges[i].bits[3], 12);
            snprintf(why, why_size, "edge (%.9g %.9g %.9g) -> (%.9g %.9g %.9g) has no opposite twin: not closed",
                     (double)from[0], (double)from[1], (double)from[2], (double)to[0], (double)to[1], (double)to[2]);
            closed = false;
        }
    }
    free(edges);
    return closed;
}

/* Divergence theorem in double: the sum of the signed volumes of the tetrahedra (origin, a, b, c). */
static double signed_volume(const sr_mesh *mesh)
{
    double volume = 0.0;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double p[3][3];
        for (int k = 0; k < 3; k++) {
            sr_vec3 q = mesh->positions[mesh->indices[3 * t + (size_t)k]];
            p[k][0] = q.x, p[k][1] = q.y, p[k][2] = q.z;
        }
        volume +=
            (p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) - p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
             p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0])) /
            6.0;
    }
    return volume;
}

/* ---- the polyhedra's exact volumes, from the documented vertex formula ----------------------
 * The vertex at azimuth 2 pi j / n and distance rho from the axis is (rho cos, y, -rho sin). */

/* Area of the regular n-gon inscribed in a circle of radius rho. */
static double polygon_area(int n, double rho)
{
    return 0.5 * n * rho * rho * sin(2.0 * M_PI / n);
}

/* Between two rings (rho1, y1) and (rho2, y2) at the same azimuths the side faces are planar
 * isosceles trapezoids (their horizontal edges are parallel), so the band is a frustum of an
 * n-gon pyramid: dy / 3 (A1 + A2 + sqrt(A1 A2)). */
static double frustum_volume(int n, double rho1, double rho2, double dy)
{
    double a1 = polygon_area(n, rho1), a2 = polygon_area(n, rho2);
    return fabs(dy) / 3.0 * (a1 + a2 + sqrt(a1 * a2));
}

static double exact_polyhedron_volume(const shape_case *c)
{
    double r = c->radius, h = c->height;
    int n = c->slices;
    switch (c->kind) {
    case CYLINDER: /* an n-gon prism: the side rows lie in the prism's faces */
        return polygon_area(n, r) * h;
    case CONE: /* an n-gon pyramid: the side rows lie in the pyramid's faces */
        return polygon_area(n, r) * h / 3.0;
    case CAPSULE: {
        /* the prism of the middle plus two stacks of frusta: hemisphere ring i at polar angle
         * theta_i = pi / 2 i / stacks has rho = r sin theta_i, height r cos theta_i over the rim */
        double volume = polygon_area(n, r) * h;
        for (int i = 0; i < c->stacks; i++) {
            double t0 = 0.5 * M_PI * i / c->stacks, t1 = 0.5 * M_PI * (i + 1) / c->stacks;
            volume += 2.0 * frustum_volume(n, r * sin(t0), r * sin(t1), r * (cos(t0) - cos(t1)));
        }
        return volume;
    }
    }
    return 0.0;
}

/* The smooth solid's volume. */
static double solid_volume(shape_kind kind, double r, double h)
{
    switch (kind) {
    case CYLINDER:
        return M_PI * r * r * h;
    case CAPSULE:
        return M_PI * r * r * h + 4.0 / 3.0 * M_PI * r * r * r;
    case CONE:
        return M_PI * r * r * h / 3.0;
    }
    return 0.0;
}

/* ---- tests ------------------------------------------------------------------------------------ */

Test(mesh_gen_revolution, closed_and_consistently_oriented)
{
    for (size_t i = 0; i < CASE_COUNT; i++) {
        const shape_case *c = &cases[i];
        sr_mesh *mesh = create_ok(c);
        char why[256] = "";
        cr_assert(mesh_is_closed(mesh, why, sizeof why), CASE_FORMAT ": %s", CASE_ARGS(c), why);
        sr_mesh_destroy(mesh);
    }
}

/* The check above must see a seam broken by a single ulp: every vertex whose position another
 * vertex repeats (cap rim copies, seam columns, apex and pole copies) is moved by one ulp in turn,
 * and the mesh must no longer count as closed. (Moving a vertex no other one repeats keeps the
 * mesh closed: its triangles move with it.) */
Test(mesh_gen_revolution, closedness_check_sees_a_seam_one_ulp_off)
{
    const shape_case cylinder = {CYLINDER, 1.0f, 2.0f, 8, 2}, capsule = {CAPSULE, 1.0f, 1.0f, 8, 3},
                     cone = {CONE, 1.0f, 2.0f, 8, 2};
    const shape_case *shapes[] = {&cylinder, &capsule, &cone};
    for (int s = 0; s < 3; s++) {
        sr_mesh *mesh = create_ok(shapes[s]);
        char why[256];
        cr_assert(mesh_is_closed(mesh, why, sizeof why), "%s", why);
        size_t nudged = 0;
        for (size_t v = 0; v < mesh->vertex_count; v++) {
            sr_vec3 *p = &mesh->positions[v];
            bool repeated = false;
            for (size_t w = 0; w < mesh->vertex_count && !repeated; w++)
                repeated = w != v && memcmp(&mesh->positions[w], p, sizeof *p) == 0;
            if (!repeated)
                continue;
            sr_vec3 saved = *p;
            p->y = nextafterf(p->y, INFINITY);
            cr_assert(!mesh_is_closed(mesh, why, sizeof why), "%s: moving vertex %zu by one ulp went unnoticed",
                      kind_names[shapes[s]->kind], v);
            *p = saved;
            nudged++;
        }
        cr_assert_geq(nudged, 2 * (size_t)shapes[s]->slices, "%s: only %zu shared positions tried",
                      kind_names[shapes[s]->kind], nudged);
        cr_log_info("%s: %zu repeated positions moved", kind_names[shapes[s]->kind], nudged);
        sr_mesh_destroy(mesh);
    }
}

Test(mesh_gen_revolution, volume_is_the_polyhedron_s_exactly)
{
    for (size_t i = 0; i < CASE_COUNT; i++) {
        const shape_case *c = &cases[i];
        sr_mesh *mesh = create_ok(c);
        double volume = signed_volume(mesh), expected = exact_polyhedron_volume(c);
        /* float positions, rounded once each: a few ulps of relative error per coordinate */
        cr_assert(fabs(volume - expected) <= 1e-5 * expected, CASE_FORMAT ": volume %.9g, exact %.9g", CASE_ARGS(c),
                  volume, expected);
        sr_mesh_destroy(mesh);
    }
}

/* The inscribed polyhedra approach the solids from inside: the error is positive, shrinks with
 * the tessellation, and at 512 x 128 is within what the n-gon factor sin(2 pi/n) / (2 pi/n)
 * (about 1 - 2.5e-5) and the meridian polygon allow. */
Test(mesh_gen_revolution, volume_tends_to_the_solid_s)
{
    const int resolutions[][2] = {{6, 2}, {16, 4}, {64, 16}, {512, 128}};
    for (int kind = CYLINDER; kind <= CONE; kind++) {
        double r = 0.75, h = 1.25, solid = solid_volume((shape_kind)kind, r, h), previous = INFINITY;
        for (int k = 0; k < 4; k++) {
            shape_case c = {(shape_kind)kind, (float)r, (float)h, resolutions[k][0], resolutions[k][1]};
            sr_mesh *mesh = create_ok(&c);
            double error = (solid - signed_volume(mesh)) / solid;
            cr_assert_gt(error, 0.0, CASE_FORMAT ": relative error %g", CASE_ARGS(&c), error);
            cr_assert_lt(error, previous, CASE_FORMAT ": relative error %g did not shrink from %g", CASE_ARGS(&c),
                         error, previous);
            previous = error;
            sr_mesh_destroy(mesh);
        }
        cr_assert_lt(previous, 1e-4, "%s: relative error %g at 512 x 128", kind_names[kind], previous);
    }
}

/* An assertion about vertex `index` of case `c`, naming the case. */
#define VERTEX_ASSERT(condition, format, ...) cr_assert(condition, CASE_FORMAT ": " format, CASE_ARGS(c), __VA_ARGS__)

/* Checks one vertex against the analytic surface it belongs to: its position on the surface (to
 * `eps`, a few float roundings of the shape's size), and its normal and v against what the
 * documented formulas give for that position, computed here in double. */
static void check_vertex(const shape_case *c, size_t index, sr_vec3 p, sr_vec3 normal, sr_vec2 uv)
{
    double r = c->radius, h = c->height, half = 0.5 * h, eps = 4.0 * FLT_EPSILON * (r + half);
    double x = p.x, y = p.y, z = p.z, d = hypot(x, z);
    double n[3] = {normal.x, normal.y, normal.z}, expected[3] = {0, 0, 0}, v = -1.0;
    bool on_axis = p.x == 0.0f && p.z == 0.0f, cap = false;
    double phi = on_axis ? 2.0 * M_PI * uv.x : atan2(-z, x); /* axis vertices: their slice's middle */
    double core = 0.0;                                       /* half length of the axis segment inside */
    switch (c->kind) {
    case CYLINDER: {
        double length = 2.0 * r + h;
        cap = fabs(y) == (double)(0.5f * c->height) && n[1] != 0.0;
        if (cap) { /* flat caps */
            VERTEX_ASSERT(d <= r + eps, "vertex %zu outside its cap", index);
            expected[1] = y > 0 ? 1.0 : -1.0;
            v = y > 0 ? d / length : 1.0 - d / length;
        } else {
            VERTEX_ASSERT(fabs(d - r) <= eps && fabs(y) <= half, "vertex %zu (%g %g %g) off the side", index, x, y, z);
            expected[0] = x / d, expected[2] = z / d;
            v = (r + half - y) / length;
        }
        core = 0.5 * half;
        break;
    }
    case CAPSULE: {
        double centre = y > half ? half : y < -half ? -half : y, dy = y - centre, length = M_PI * r + h;
        double distance = hypot(d, dy);
        VERTEX_ASSERT(fabs(distance - r) <= eps, "vertex %zu (%g %g %g) is %.9g from the axis segment, not %g", index,
                      x, y, z, distance, r);
        if (on_axis) /* the poles, exactly on the axis and at the ends */
            VERTEX_ASSERT(fabs(y) == (double)(float)(half + r), "pole vertex %zu at y = %.9g", index, y);
        expected[0] = x / distance, expected[1] = dy / distance, expected[2] = z / distance;
        double arc = y > half ? r * atan2(d, dy) : y < -half ? r * atan2(d, -dy) : 0.0;
        v = y > half ? arc / length : y < -half ? 1.0 - arc / length : (0.5 * M_PI * r + half - y) / length;
        core = half;
        break;
    }
    case CONE: {
        double slant = hypot(r, h), length = slant + r;
        cap = y == (double)(-0.5f * c->height) && n[1] < 0.0;
        if (cap) {
            VERTEX_ASSERT(d <= r + eps, "vertex %zu outside the base", index);
            expected[1] = -1.0;
            v = (slant + r - d) / length;
        } else {
            /* on the side line from (0, half) to (r, -half): h d + r (y - half) = 0 */
            VERTEX_ASSERT(fabs(h * d + r * (y - half)) / slant <= eps && y >= -half && y <= half,
                          "vertex %zu (%g %g %g) off the cone's side", index, x, y, z);
            if (on_axis)
                VERTEX_ASSERT(y == (double)(0.5f * c->height), "apex vertex %zu at y = %.9g", index, y);
            expected[0] = h / slant * cos(phi), expected[1] = r / slant, expected[2] = -h / slant * sin(phi);
            v = hypot(d, half - y) / length;
        }
        core = 0.5 * half;
        break;
    }
    }
    double deviation = 0.0, length = 0.0;
    for (int k = 0; k < 3; k++) {
        deviation = fmax(deviation, fabs(n[k] - expected[k]));
        length += n[k] * n[k];
    }
    VERTEX_ASSERT(fabs(sqrt(length) - 1.0) <= 1e-6, "vertex %zu: normal of length %.9g", index, sqrt(length));
    VERTEX_ASSERT(deviation <= 1e-5 * (1.0 + half / r), "vertex %zu (%g %g %g): normal (%g %g %g), expected (%g %g %g)",
                  index, x, y, z, n[0], n[1], n[2], expected[0], expected[1], expected[2]);
    /* outwards: away from the nearest point of an axis segment strictly inside the solid */
    double axis_y = y > core ? core : y < -core ? -core : y;
    VERTEX_ASSERT(n[0] * x + n[1] * (y - axis_y) + n[2] * z > 0.0, "vertex %zu: normal points inwards", index);
    /* uvs: u around (the seam column at u = 1, axis vertices at their slice's middle), v down */
    VERTEX_ASSERT(uv.x >= 0.0f && uv.x <= 1.0f && uv.y >= 0.0f && uv.y <= 1.0f, "vertex %zu: uv (%g %g)", index,
                  (double)uv.x, (double)uv.y);
    if (on_axis) {
        double slice = uv.x * c->slices - 0.5;
        VERTEX_ASSERT(fabs(slice - round(slice)) <= 1e-4, "axis vertex %zu: u = %g is not a slice's middle", index,
                      (double)uv.x);
    } else {
        double around = fmod(phi + 2.0 * M_PI, 2.0 * M_PI) / (2.0 * M_PI);
        double u = uv.x == 1.0f ? 0.0 : uv.x;
        VERTEX_ASSERT(fabs(around - u) <= 1e-5 || fabs(around - u - 1.0) <= 1e-5,
                      "vertex %zu: u = %g, azimuth / 2 pi %g", index, (double)uv.x, around);
    }
    VERTEX_ASSERT(fabs(uv.y - v) <= 1e-5, "vertex %zu (%g %g %g): v = %.7g, expected %.7g", index, x, y, z,
                  (double)uv.y, v);
}

Test(mesh_gen_revolution, vertices_normals_and_uvs_follow_the_analytic_surface)
{
    for (size_t i = 0; i < CASE_COUNT; i++) {
        const shape_case *c = &cases[i];
        sr_mesh *mesh = create_ok(c);
        for (size_t v = 0; v < mesh->vertex_count; v++)
            check_vertex(c, v, mesh->positions[v], mesh->normals[v], mesh->uvs[v]);
        sr_mesh_destroy(mesh);
    }
}

/* Vertex normals against the face normals of their triangles. A face of a side band spans an
 * azimuth step 2 pi / slices, so its normal is at most pi / slices from its corners' on the
 * cylinder and the cone (their normals do not change along the meridian); a capsule face also
 * spans a polar step pi / 2 / stacks. */
Test(mesh_gen_revolution, vertex_normals_agree_with_face_normals)
{
    for (size_t i = 0; i < CASE_COUNT; i++) {
        const shape_case *c = &cases[i];
        sr_mesh *mesh = create_ok(c);
        double bound = M_PI / c->slices + (c->kind == CAPSULE ? 0.5 * M_PI / c->stacks : 0.0) + 1e-3, worst = 0.0;
        for (size_t t = 0; t < mesh->triangle_count; t++) {
            double p[3][3];
            for (int k = 0; k < 3; k++) {
                sr_vec3 q = mesh->positions[mesh->indices[3 * t + (size_t)k]];
                p[k][0] = q.x, p[k][1] = q.y, p[k][2] = q.z;
            }
            double e1[3], e2[3];
            for (int k = 0; k < 3; k++)
                e1[k] = p[1][k] - p[0][k], e2[k] = p[2][k] - p[0][k];
            double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            double f_length = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
            cr_assert_gt(f_length, 0.0, CASE_FORMAT ": triangle %zu is degenerate", CASE_ARGS(c), t);
            for (int k = 0; k < 3; k++) {
                sr_vec3 n = mesh->normals[mesh->indices[3 * t + (size_t)k]];
                double cosine = (n.x * f[0] + n.y * f[1] + n.z * f[2]) / (f_length * sr_vec3_length(n));
                double angle = acos(fmin(1.0, fmax(-1.0, cosine)));
                worst = fmax(worst, angle);
                cr_assert_leq(angle, bound, CASE_FORMAT ": triangle %zu corner %d, %g rad from its face (bound %g)",
                              CASE_ARGS(c), t, k, angle, bound);
            }
        }
        cr_log_info(CASE_FORMAT ": worst normal-face angle %g of bound %g", CASE_ARGS(c), worst, bound);
        sr_mesh_destroy(mesh);
    }
}

Test(mesh_gen_revolution, bounds_are_the_analytic_box)
{
    for (size_t i = 0; i < CASE_COUNT; i++) {
        const shape_case *c = &cases[i];
        sr_mesh *mesh = create_ok(c);
        double r = c->radius, half = 0.5 * c->height;
        /* the widest ring has radius r; its extremes over the azimuths 2 pi j / n */
        double lo[3] = {INFINITY, 0, INFINITY}, hi[3] = {-INFINITY, 0, -INFINITY};
        for (int j = 0; j < c->slices; j++) {
            double phi = 2.0 * M_PI * j / c->slices, x = r * cos(phi), z = -r * sin(phi);
            lo[0] = fmin(lo[0], x), hi[0] = fmax(hi[0], x), lo[2] = fmin(lo[2], z), hi[2] = fmax(hi[2], z);
        }
        double top = c->kind == CAPSULE ? half + r : half;
        lo[1] = -top, hi[1] = top;
        sr_aabb box = sr_mesh_bounds(mesh);
        float got_lo[3] = {box.min.x, box.min.y, box.min.z}, got_hi[3] = {box.max.x, box.max.y, box.max.z};
        for (int k = 0; k < 3; k++) {
            double eps = 2.0 * FLT_EPSILON * (r + half);
            cr_assert(fabs(got_lo[k] - lo[k]) <= eps && fabs(got_hi[k] - hi[k]) <= eps,
                      CASE_FORMAT ": axis %d: box [%.9g, %.9g], analytic [%.9g, %.9g]", CASE_ARGS(c), k,
                      (double)got_lo[k], (double)got_hi[k], lo[k], hi[k]);
        }
        sr_mesh_destroy(mesh);
    }
}

Test(mesh_gen_revolution, counts_are_the_documented_ones)
{
    for (size_t i = 0; i < CASE_COUNT; i++) {
        const shape_case *c = &cases[i];
        sr_mesh *mesh = create_ok(c);
        size_t n = (size_t)c->slices, s = (size_t)c->stacks, vertices = 0, triangles = 0;
        switch (c->kind) {
        case CYLINDER:
            vertices = (n + 1) * (s + 3) + 2 * n, triangles = 2 * n * (s + 1);
            break;
        case CAPSULE: {
            size_t middle = c->height > 0.0f;
            vertices = 2 * n + (n + 1) * (2 * s - 1 + middle), triangles = 4 * n * s - 2 * n + 2 * n * middle;
            break;
        }
        case CONE:
            vertices = n + (n + 1) * (s + 1) + n, triangles = n * (2 * s - 1) + n;
            break;
        }
        cr_assert_eq(mesh->vertex_count, vertices, CASE_FORMAT ": %zu vertices", CASE_ARGS(c), mesh->vertex_count);
        cr_assert_eq(mesh->triangle_count, triangles, CASE_FORMAT ": %zu triangles", CASE_ARGS(c),
                     mesh->triangle_count);
        sr_mesh_destroy(mesh);
    }
}

/* A capsule of height 0 is a sphere: every vertex at distance r from the origin, one ring at the
 * equator, symmetric in y bit for bit. */
Test(mesh_gen_revolution, capsule_of_height_zero_is_a_symmetric_sphere)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_capsule(1.5f, 0.0f, 12, 5, &mesh, NULL), SR_OK);
    size_t equator = 0;
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        sr_vec3 p = mesh->positions[v];
        cr_assert(fabs(hypot(hypot(p.x, p.y), p.z) - 1.5) <= 4.0 * FLT_EPSILON * 1.5, "vertex %zu", v);
        equator += p.y == 0.0f;
        bool mirrored = false; /* some vertex at (x, -y, z) exactly */
        for (size_t w = 0; w < mesh->vertex_count && !mirrored; w++)
            mirrored = mesh->positions[w].x == p.x && mesh->positions[w].z == p.z && mesh->positions[w].y == -p.y;
        cr_assert(mirrored, "vertex %zu (%g %g %g) has no mirror image", v, (double)p.x, (double)p.y, (double)p.z);
    }
    cr_assert_eq(equator, 13, "%zu equator vertices", equator);
    sr_mesh_destroy(mesh);
}

/* ---- errors ----------------------------------------------------------------------------------- */

static void assert_refused(sr_status status, sr_mesh *mesh, const sr_error *err, const char *function,
                           const char *argument, const char *call)
{
    cr_assert_eq(status, SR_ERROR_INVALID_ARGUMENT, "%s accepted", call);
    cr_assert_null(mesh, "%s left *out set", call);
    cr_assert(strstr(err->message, function) && strstr(err->message, argument), "%s: message '%s' lacks '%s' or '%s'",
              call, err->message, function, argument);
}

#define REFUSED(call, function, argument)                                                                              \
    do {                                                                                                               \
        sr_mesh sentinel = {0};                                                                                        \
        sr_mesh *mesh = &sentinel; /* not NULL: the call must clear it */                                              \
        sr_error err = {0};                                                                                            \
        sr_status status = call;                                                                                       \
        assert_refused(status, mesh, &err, function, argument, #call);                                                 \
    } while (0)

Test(mesh_gen_revolution, bad_arguments_are_errors)
{
    const float bad_lengths[] = {0.0f, -1.0f, NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 5; i++) {
        float b = bad_lengths[i];
        REFUSED(sr_mesh_create_cylinder(b, 1.0f, 8, 2, &mesh, &err), "sr_mesh_create_cylinder", "radius");
        REFUSED(sr_mesh_create_cylinder(1.0f, b, 8, 2, &mesh, &err), "sr_mesh_create_cylinder", "height");
        REFUSED(sr_mesh_create_capsule(b, 1.0f, 8, 2, &mesh, &err), "sr_mesh_create_capsule", "radius");
        if (b != 0.0f) /* a capsule of height 0 is a sphere */
            REFUSED(sr_mesh_create_capsule(1.0f, b, 8, 2, &mesh, &err), "sr_mesh_create_capsule", "height");
        REFUSED(sr_mesh_create_cone(b, 1.0f, 8, 2, &mesh, &err), "sr_mesh_create_cone", "radius");
        REFUSED(sr_mesh_create_cone(1.0f, b, 8, 2, &mesh, &err), "sr_mesh_create_cone", "height");
    }
    const int bad_slices[] = {2, 0, -3, 4097, 1 << 30}, bad_stacks[] = {0, -1, 4097, 1 << 30, -(1 << 30)};
    for (int i = 0; i < 5; i++) {
        int s = bad_slices[i], t = bad_stacks[i];
        REFUSED(sr_mesh_create_cylinder(1.0f, 1.0f, s, 2, &mesh, &err), "sr_mesh_create_cylinder", "slices");
        REFUSED(sr_mesh_create_cylinder(1.0f, 1.0f, 8, t, &mesh, &err), "sr_mesh_create_cylinder", "stacks");
        REFUSED(sr_mesh_create_capsule(1.0f, 1.0f, s, 2, &mesh, &err), "sr_mesh_create_capsule", "slices");
        REFUSED(sr_mesh_create_capsule(1.0f, 1.0f, 8, t, &mesh, &err), "sr_mesh_create_capsule", "stacks");
        REFUSED(sr_mesh_create_cone(1.0f, 1.0f, s, 2, &mesh, &err), "sr_mesh_create_cone", "slices");
        REFUSED(sr_mesh_create_cone(1.0f, 1.0f, 8, t, &mesh, &err), "sr_mesh_create_cone", "stacks");
    }
    /* the capsule's poles at height / 2 + radius must be representable */
    REFUSED(sr_mesh_create_capsule(FLT_MAX, FLT_MAX, 8, 2, &mesh, &err), "sr_mesh_create_capsule",
            "height / 2 + radius");
    /* NULL err is allowed */
    sr_mesh sentinel = {0}, *mesh = &sentinel;
    cr_assert_eq(sr_mesh_create_cone(1.0f, 1.0f, 8, 0, &mesh, NULL), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_null(mesh);
    /* the extremes of the ranges are accepted */
    cr_assert_eq(sr_mesh_create_cylinder(1.0f, 1.0f, 3, 1, &mesh, NULL), SR_OK);
    sr_mesh_destroy(mesh);
    cr_assert_eq(sr_mesh_create_cone(FLT_MAX, FLT_MAX, 3, 1, &mesh, NULL), SR_OK);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        cr_assert(sr_vec3_is_finite(mesh->positions[v]) && sr_vec3_is_finite(mesh->normals[v]), "vertex %zu", v);
    sr_mesh_destroy(mesh);
}

typedef struct failing_allocator {
    int remaining;
} failing_allocator;

static void *failing_allocate(size_t size, void *user)
{
    failing_allocator *f = user;
    return f->remaining-- > 0 ? malloc(size) : NULL;
}

static void *failing_reallocate(void *pointer, size_t size, void *user)
{
    failing_allocator *f = user;
    return f->remaining-- > 0 ? realloc(pointer, size) : NULL;
}

static void failing_release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

Test(mesh_gen_revolution, allocation_failures_are_reported)
{
    const shape_case shapes[] = {{CYLINDER, 1, 1, 8, 2}, {CAPSULE, 1, 1, 8, 2}, {CONE, 1, 1, 8, 2}};
    for (int s = 0; s < 3; s++) {
        bool succeeded = false;
        for (int budget = 0; budget < 16 && !succeeded; budget++) {
            failing_allocator f = {budget};
            sr_set_allocator(&(sr_allocator){failing_allocate, failing_reallocate, failing_release, &f});
            sr_mesh sentinel = {0}, *mesh = &sentinel;
            sr_error err = {0};
            sr_status status = create_shape(&shapes[s], &mesh, &err);
            sr_set_allocator(NULL);
            if (status == SR_OK) {
                succeeded = true;
                sr_mesh_destroy(mesh); /* freed with free(): the hook and malloc agree */
            } else {
                cr_assert_eq(status, SR_ERROR_OUT_OF_MEMORY, "budget %d: %s", budget, err.message);
                cr_assert_null(mesh);
                cr_assert(strstr(err.message, "sr_mesh_create_") && strstr(err.message, kind_names[s]), "%s",
                          err.message);
            }
        }
        cr_assert(succeeded, "%s never succeeded", kind_names[s]);
    }
}

/* ---- sanity over every generated shape, old and new ------------------------------------------- */

Test(mesh_gen_sanity, every_generated_shape_is_well_formed)
{
    sr_mesh *meshes[32] = {0};
    const char *names[32] = {0};
    size_t count = 0;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 12, 6, &meshes[count], NULL), SR_OK);
    names[count++] = "sphere";
    cr_assert_eq(sr_mesh_create_torus(1.0f, 0.3f, 12, 8, &meshes[count], NULL), SR_OK);
    names[count++] = "torus";
    cr_assert_eq(sr_mesh_create_box((sr_vec3){1, 2, 3}, 2, &meshes[count], NULL), SR_OK);
    names[count++] = "box";
    cr_assert_eq(sr_mesh_create_plane(2.0f, 3, 2.0f, &meshes[count], NULL), SR_OK);
    names[count++] = "plane";
    for (size_t i = 0; i < CASE_COUNT && count < 32; i++) {
        cr_assert_eq(create_shape(&cases[i], &meshes[count], NULL), SR_OK);
        names[count++] = kind_names[cases[i].kind];
    }
    for (size_t m = 0; m < count; m++) {
        const sr_mesh *mesh = meshes[m];
        cr_assert(mesh->vertex_count > 0 && mesh->triangle_count > 0 && mesh->normals && mesh->uvs, "%s", names[m]);
        for (size_t v = 0; v < mesh->vertex_count; v++) {
            cr_assert(sr_vec3_is_finite(mesh->positions[v]), "%s: vertex %zu position", names[m], v);
            cr_assert(fabsf(sr_vec3_length(mesh->normals[v]) - 1.0f) <= 1e-6f, "%s: vertex %zu normal", names[m], v);
            cr_assert(isfinite(mesh->uvs[v].x) && isfinite(mesh->uvs[v].y), "%s: vertex %zu uv", names[m], v);
        }
        bool *used = calloc(mesh->vertex_count, sizeof *used);
        cr_assert_not_null(used);
        for (size_t t = 0; t < mesh->triangle_count; t++) {
            const uint32_t *tri = &mesh->indices[3 * t];
            for (int k = 0; k < 3; k++) {
                cr_assert_lt(tri[k], mesh->vertex_count, "%s: triangle %zu index out of range", names[m], t);
                used[tri[k]] = true;
            }
            sr_vec3 a = mesh->positions[tri[0]], b = mesh->positions[tri[1]], c = mesh->positions[tri[2]];
            sr_vec3 n = sr_vec3_cross(sr_vec3_sub(b, a), sr_vec3_sub(c, a));
            cr_assert_gt(sr_vec3_length(n), 0.0f, "%s: triangle %zu is degenerate", names[m], t);
            /* the face turns the way its corners' normals say */
            sr_vec3 corner_normals =
                sr_vec3_add(sr_vec3_add(mesh->normals[tri[0]], mesh->normals[tri[1]]), mesh->normals[tri[2]]);
            cr_assert_gt(sr_vec3_dot(n, corner_normals), 0.0f, "%s: triangle %zu is wound against its normals",
                         names[m], t);
        }
        /* the sphere (m = 0) keeps one unused copy of each pole for its regular grid; the new
         * shapes keep exactly the vertices their triangles use */
        for (size_t v = 0; v < mesh->vertex_count && m >= 4; v++)
            cr_assert(used[v], "%s: vertex %zu is used by no triangle", names[m], v);
        free(used);
        sr_mesh_destroy(meshes[m]);
    }
}
