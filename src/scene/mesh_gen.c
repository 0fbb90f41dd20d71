/* mesh_gen.c — generated meshes: sphere, torus, box, plane (softrast/scene.h). Closed shapes
 * are watertight: every position shared by two faces is computed by the same expression from
 * the same integers, so seams and poles are bit-identical. Triangles are counter-clockwise seen
 * from outside ((b - a) x (c - a) points outwards). */
#include <softrast/scene.h>

static sr_status check_count(const char *function, const char *what, int value, int minimum, sr_error *err)
{
    if (value < minimum || value > 4096)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: %s = %d is out of range [%d, 4096]", function, what,
                            value, minimum);
    return SR_OK;
}

static sr_status check_length(const char *function, const char *what, float value, sr_error *err)
{
    if (!(value > 0.0f) || !isfinite(value))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: %s = %g must be positive and finite", function, what,
                            (double)value);
    return SR_OK;
}

static void set_triangle(sr_mesh *mesh, size_t *t, uint32_t a, uint32_t b, uint32_t c)
{
    mesh->indices[3 * *t + 0] = a;
    mesh->indices[3 * *t + 1] = b;
    mesh->indices[3 * *t + 2] = c;
    (*t)++;
}

sr_status sr_mesh_create_sphere(float radius, int slices, int stacks, sr_mesh **out, sr_error *err)
{
    const char *fn = "sr_mesh_create_sphere";
    sr_status status;
    if ((status = check_length(fn, "radius", radius, err)) || (status = check_count(fn, "slices", slices, 3, err)) ||
        (status = check_count(fn, "stacks", stacks, 2, err)))
        return status;
    size_t columns = (size_t)slices + 1; /* the seam column is duplicated for its uvs */
    status = sr_mesh_create(&(sr_mesh_desc){.vertex_count = columns * ((size_t)stacks + 1),
                                            .triangle_count = (size_t)slices * 2 * ((size_t)stacks - 1),
                                            .normals = true,
                                            .uvs = true},
                            out, err);
    if (status)
        return status;
    sr_mesh *mesh = *out;
    for (int i = 0; i <= stacks; i++) {
        float polar = SR_PI * (float)i / (float)stacks;
        for (int j = 0; j <= slices; j++) {
            float azimuth = 2.0f * SR_PI * (float)(j % slices) / (float)slices;
            sr_vec3 n = {sinf(polar) * cosf(azimuth), cosf(polar), -sinf(polar) * sinf(azimuth)};
            if (i == 0 || i == stacks) /* poles exactly on the axis, shared by every column */
                n = (sr_vec3){0.0f, i == 0 ? 1.0f : -1.0f, 0.0f};
            size_t v = (size_t)i * columns + (size_t)j;
            mesh->positions[v] = sr_vec3_scale(n, radius);
            mesh->normals[v] = n;
            mesh->uvs[v] = (sr_vec2){(float)j / (float)slices, (float)i / (float)stacks};
        }
    }
    size_t t = 0;
    for (int i = 0; i < stacks; i++)
        for (int j = 0; j < slices; j++) {
            uint32_t a = (uint32_t)(i * (int)columns + j), b = a + 1;
            uint32_t c = a + (uint32_t)columns, d = c + 1;
            /* azimuth grows counter-clockwise seen from +Y; rows grow downwards */
            if (i != 0)
                set_triangle(mesh, &t, a, c, b);
            if (i != stacks - 1)
                set_triangle(mesh, &t, b, c, d);
        }
    return SR_OK;
}

sr_status sr_mesh_create_torus(float major_radius, float minor_radius, int rings, int sides, sr_mesh **out,
                               sr_error *err)
{
    const char *fn = "sr_mesh_create_torus";
    sr_status status;
    if ((status = check_length(fn, "major_radius", major_radius, err)) ||
        (status = check_length(fn, "minor_radius", minor_radius, err)) ||
        (status = check_count(fn, "rings", rings, 3, err)) || (status = check_count(fn, "sides", sides, 3, err)))
        return status;
    size_t columns = (size_t)sides + 1;
    status = sr_mesh_create(&(sr_mesh_desc){.vertex_count = columns * ((size_t)rings + 1),
                                            .triangle_count = 2 * (size_t)rings * (size_t)sides,
                                            .normals = true,
                                            .uvs = true},
                            out, err);
    if (status)
        return status;
    sr_mesh *mesh = *out;
    for (int i = 0; i <= rings; i++) {
        float u = 2.0f * SR_PI * (float)(i % rings) / (float)rings;
        for (int j = 0; j <= sides; j++) {
            float w = 2.0f * SR_PI * (float)(j % sides) / (float)sides;
            sr_vec3 n = {cosf(w) * cosf(u), sinf(w), -cosf(w) * sinf(u)};
            sr_vec3 centre = {major_radius * cosf(u), 0.0f, -major_radius * sinf(u)};
            size_t v = (size_t)i * columns + (size_t)j;
            mesh->positions[v] = sr_vec3_add(centre, sr_vec3_scale(n, minor_radius));
            mesh->normals[v] = n;
            mesh->uvs[v] = (sr_vec2){(float)i / (float)rings, (float)j / (float)sides};
        }
    }
    size_t t = 0;
    for (int i = 0; i < rings; i++)
        for (int j = 0; j < sides; j++) {
            uint32_t a = (uint32_t)(i * (int)columns + j), b = a + 1;
            uint32_t c = a + (uint32_t)columns, d = c + 1;
            set_triangle(mesh, &t, a, c, b);
            set_triangle(mesh, &t, b, c, d);
        }
    return SR_OK;
}

/* Grid coordinate k of d between -h and h: one expression for every face, so edges shared by
 * two faces get bit-identical positions. */
static float grid(float h, int k, int d)
{
    return k == d ? h : -h + 2.0f * h * (float)k / (float)d;
}

sr_status sr_mesh_create_box(sr_vec3 half_extents, int divisions, sr_mesh **out, sr_error *err)
{
    const char *fn = "sr_mesh_create_box";
    sr_status status;
    if ((status = check_length(fn, "half_extents.x", half_extents.x, err)) ||
        (status = check_length(fn, "half_extents.y", half_extents.y, err)) ||
        (status = check_length(fn, "half_extents.z", half_extents.z, err)) ||
        (status = check_count(fn, "divisions", divisions, 1, err)))
        return status;
    size_t side = (size_t)divisions + 1;
    status = sr_mesh_create(&(sr_mesh_desc){.vertex_count = 6 * side * side,
                                            .triangle_count = 6 * 2 * (size_t)divisions * (size_t)divisions,
                                            .normals = true,
                                            .uvs = true},
                            out, err);
    if (status)
        return status;
    sr_mesh *mesh = *out;
    const float h[3] = {half_extents.x, half_extents.y, half_extents.z};
    size_t v = 0, t = 0;
    for (int face = 0; face < 6; face++) {
        int axis = face / 2;                  /* the face's normal axis */
        float sign = face % 2 ? -1.0f : 1.0f; /* +axis then -axis */
        int ua = (axis + 1) % 3, va = (axis + 2) % 3;
        uint32_t first = (uint32_t)v;
        for (int j = 0; j <= divisions; j++)
            for (int i = 0; i <= divisions; i++) {
                float p[3], n[3] = {0, 0, 0};
                p[axis] = sign * h[axis];
                p[ua] = grid(h[ua], i, divisions);
                p[va] = grid(h[va], j, divisions);
                n[axis] = sign;
                mesh->positions[v] = (sr_vec3){p[0], p[1], p[2]};
                mesh->normals[v] = (sr_vec3){n[0], n[1], n[2]};
                mesh->uvs[v] = (sr_vec2){(float)i / (float)divisions, (float)j / (float)divisions};
                v++;
            }
        for (int j = 0; j < divisions; j++)
            for (int i = 0; i < divisions; i++) {
                uint32_t a = first + (uint32_t)(j * (int)side + i), b = a + 1;
                uint32_t c = a + (uint32_t)side, d = c + 1;
                /* (ua, va, axis) is right-handed: a, b, d is counter-clockwise seen from +axis */
                if (sign > 0) {
                    set_triangle(mesh, &t, a, b, d);
                    set_triangle(mesh, &t, a, d, c);
                } else {
                    set_triangle(mesh, &t, a, d, b);
                    set_triangle(mesh, &t, a, c, d);
                }
            }
    }
    return SR_OK;
}

sr_status sr_mesh_create_plane(float size, int divisions, float uv_repeat, sr_mesh **out, sr_error *err)
{
    const char *fn = "sr_mesh_create_plane";
    sr_status status;
    if ((status = check_length(fn, "size", size, err)) || (status = check_count(fn, "divisions", divisions, 1, err)))
        return status;
    if (!isfinite(uv_repeat))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: uv_repeat is not finite", fn);
    size_t side = (size_t)divisions + 1;
    status = sr_mesh_create(&(sr_mesh_desc){.vertex_count = side * side,
                                            .triangle_count = 2 * (size_t)divisions * (size_t)divisions,
                                            .normals = true,
                                            .uvs = true},
                            out, err);
    if (status)
        return status;
    sr_mesh *mesh = *out;
    size_t v = 0, t = 0;
    for (int j = 0; j <= divisions; j++)
        for (int i = 0; i <= divisions; i++) {
            float s = (float)i / (float)divisions, r = (float)j / (float)divisions;
            mesh->positions[v] = (sr_vec3){grid(0.5f * size, i, divisions), 0.0f, grid(0.5f * size, j, divisions)};
            mesh->normals[v] = (sr_vec3){0.0f, 1.0f, 0.0f};
            mesh->uvs[v] = (sr_vec2){s * uv_repeat, r * uv_repeat};
            v++;
        }
    for (int j = 0; j < divisions; j++)
        for (int i = 0; i < divisions; i++) {
            uint32_t a = (uint32_t)(j * (int)side + i), b = a + 1;
            uint32_t c = a + (uint32_t)side, d = c + 1;
            /* x right, z towards the viewer: a, c, d is counter-clockwise seen from +Y */
            set_triangle(mesh, &t, a, c, d);
            set_triangle(mesh, &t, a, d, b);
        }
    return SR_OK;
}

/* ---- shapes of revolution about Y: cylinder, capsule, cone ------------------------------------
 * Each shape is a profile: rows from the top of the meridian down to its bottom, every row a ring
 * of slices + 1 vertices (the seam column repeated for its u) or, on the axis, a pole of `slices`
 * vertices (one per triangle, for their u and, at a cone's apex, their normals). Consecutive rows
 * of one strip are joined by a band of triangles; a row that starts a new strip is not joined to
 * the previous one, which is how the flat caps get their own vertices at the side's positions.
 * Positions are computed in double and rounded once, by ring_position only: two rows with the
 * same (radius, y) doubles give bit-identical vertices, which is what keeps seams watertight. */

typedef struct profile_row {
    double radius; /* distance to the axis; 0 marks a pole row */
    double y;
    double normal_radial, normal_y; /* the unit normal in the meridian half plane */
    double v;
    bool starts_strip; /* not joined to the previous row */
} profile_row;

typedef profile_row (*profile_function)(const void *shape, int row);

static double azimuth(int column, int slices)
{
    return 2.0 * (double)SR_PI * (double)(column % slices) / (double)slices;
}

static sr_vec3 ring_position(double radius, double y, double phi)
{
    return (sr_vec3){(float)(radius * cos(phi)), (float)y, (float)(-radius * sin(phi))};
}

/* from + (to - from) i / n, exactly `to` at i = n so that rows meant to meet another strip's
 * row land on the very same double. */
static double interpolate(double from, double to, int i, int n)
{
    return i == n ? to : from + (to - from) * (double)i / (double)n;
}

static sr_status create_lathe(const char *function, int slices, int rows, profile_function profile, const void *shape,
                              sr_mesh **out, sr_error *err)
{
    size_t vertex_count = 0, triangle_count = 0, columns = (size_t)slices + 1;
    bool previous_pole = false;
    for (int k = 0; k < rows; k++) {
        profile_row row = profile(shape, k);
        bool pole = row.radius == 0.0;
        vertex_count += pole ? (size_t)slices : columns;
        if (k > 0 && !row.starts_strip)
            triangle_count += (pole || previous_pole ? 1 : 2) * (size_t)slices;
        previous_pole = pole;
    }
    sr_status status = sr_mesh_create(
        &(sr_mesh_desc){.vertex_count = vertex_count, .triangle_count = triangle_count, .normals = true, .uvs = true},
        out, err);
    if (status) /* only out of memory: the counts are bounded well inside the index range */
        return sr_error_set(err, status, "%s: out of memory for %zu vertices, %zu triangles", function, vertex_count,
                            triangle_count);
    sr_mesh *mesh = *out;
    size_t v = 0, t = 0;
    uint32_t above = 0; /* first vertex of the previous row */
    previous_pole = false;
    for (int k = 0; k < rows; k++) {
        profile_row row = profile(shape, k);
        bool pole = row.radius == 0.0;
        uint32_t first = (uint32_t)v;
        for (size_t j = 0; j < (pole ? (size_t)slices : columns); j++) {
            /* a pole vertex belongs to the triangle of slice j: its u and normal are the slice's middle */
            double phi = pole ? 2.0 * (double)SR_PI * ((double)j + 0.5) / (double)slices : azimuth((int)j, slices);
            mesh->positions[v] = pole ? (sr_vec3){0.0f, (float)row.y, 0.0f} : ring_position(row.radius, row.y, phi);
            mesh->normals[v] = (sr_vec3){(float)(row.normal_radial * cos(phi)), (float)row.normal_y,
                                         (float)(-row.normal_radial * sin(phi))};
            mesh->uvs[v] =
                (sr_vec2){pole ? (float)(((double)j + 0.5) / (double)slices) : (float)j / (float)slices, (float)row.v};
            v++;
        }
        if (k > 0 && !row.starts_strip)
            for (uint32_t j = 0; j < (uint32_t)slices; j++) {
                /* a = above j, b = above j + 1, c = below j, d = below j + 1: azimuth grows
                 * counter-clockwise seen from +Y and rows go down the meridian, so a, c, b and
                 * b, c, d are counter-clockwise seen from outside (as in the sphere) */
                uint32_t a = above + j, b = a + 1, c = first + j, d = c + 1;
                if (previous_pole)
                    set_triangle(mesh, &t, a, c, d);
                else if (pole)
                    set_triangle(mesh, &t, a, c, b);
                else {
                    set_triangle(mesh, &t, a, c, b);
                    set_triangle(mesh, &t, b, c, d);
                }
            }
        above = first;
        previous_pole = pole;
    }
    return SR_OK;
}

typedef struct cylinder_shape {
    double radius, half_height, height;
    int stacks;
} cylinder_shape;

/* rows: top cap (centre, rim), side (stacks + 1 rings), bottom cap (rim, centre) */
static profile_row cylinder_row(const void *shape, int k)
{
    const cylinder_shape *s = shape;
    double r = s->radius, h = s->half_height, length = 2.0 * r + s->height;
    if (k <= 1)
        return (profile_row){
            .radius = k ? r : 0.0, .y = h, .normal_y = 1.0, .v = k ? r / length : 0.0, .starts_strip = k == 0};
    int last = s->stacks + 3;
    if (k >= last)
        return (profile_row){.radius = k == last ? r : 0.0,
                             .y = -h,
                             .normal_y = -1.0,
                             .v = k == last ? (r + s->height) / length : 1.0,
                             .starts_strip = k == last};
    int i = k - 2; /* side row 0 .. stacks */
    return (profile_row){.radius = r,
                         .y = interpolate(h, -h, i, s->stacks),
                         .normal_radial = 1.0,
                         .v = interpolate(r, r + s->height, i, s->stacks) / length,
                         .starts_strip = i == 0};
}

sr_status sr_mesh_create_cylinder(float radius, float height, int slices, int stacks, sr_mesh **out, sr_error *err)
{
    const char *fn = "sr_mesh_create_cylinder";
    sr_status status;
    if (out)
        *out = NULL;
    if ((status = check_length(fn, "radius", radius, err)) || (status = check_length(fn, "height", height, err)) ||
        (status = check_count(fn, "slices", slices, 3, err)) || (status = check_count(fn, "stacks", stacks, 1, err)))
        return status;
    cylinder_shape shape = {radius, 0.5 * (double)height, height, stacks};
    return create_lathe(fn, slices, stacks + 5, cylinder_row, &shape, out, err);
}

typedef struct capsule_shape {
    double radius, half_height, height;
    int stacks;
    bool middle; /* a cylindrical part between the rims (height / 2 > 0 in float) */
} capsule_shape;

/* rows: top pole, top hemisphere, top rim, [bottom rim when height > 0], bottom hemisphere,
 * bottom pole; the bottom half mirrors the top half (y negated, which is exact) */
static profile_row capsule_row(const void *shape, int k)
{
    const capsule_shape *s = shape;
    int n = s->stacks, rims = s->middle ? 2 : 1;
    bool bottom = k >= n + rims;
    int i = bottom ? 2 * n + rims - 1 - k : k; /* rows from the pole: 0 .. n (n = rim) */
    if (!bottom && k == n + 1)                 /* the bottom rim of the cylindrical part */
        bottom = true, i = n;
    double r = s->radius, length = (double)SR_PI * r + s->height;
    double polar = 0.5 * (double)SR_PI * (double)i / (double)n;
    double sine = i == n ? 1.0 : i == 0 ? 0.0 : sin(polar), cosine = i == n ? 0.0 : i == 0 ? 1.0 : cos(polar);
    double y = i == n ? s->half_height : s->half_height + r * cosine;
    double v = r * polar / length;
    return (profile_row){.radius = r * sine,
                         .y = bottom ? -y : y,
                         .normal_radial = sine,
                         .normal_y = bottom ? -cosine : cosine,
                         .v = bottom ? 1.0 - v : v};
}

sr_status sr_mesh_create_capsule(float radius, float height, int slices, int stacks, sr_mesh **out, sr_error *err)
{
    const char *fn = "sr_mesh_create_capsule";
    sr_status status;
    if (out)
        *out = NULL;
    if ((status = check_length(fn, "radius", radius, err)))
        return status;
    if (!(height >= 0.0f) || !isfinite(height))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: height = %g must be finite and >= 0", fn,
                            (double)height);
    if (!isfinite(0.5f * height + radius)) /* the poles' y */
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: height / 2 + radius = %g overflows float", fn,
                            0.5 * (double)height + (double)radius);
    if ((status = check_count(fn, "slices", slices, 3, err)) || (status = check_count(fn, "stacks", stacks, 1, err)))
        return status;
    capsule_shape shape = {radius, 0.5 * (double)height, height, stacks, 0.5f * height > 0.0f};
    return create_lathe(fn, slices, 2 * stacks + 1 + shape.middle, capsule_row, &shape, out, err);
}

typedef struct cone_shape {
    double radius, half_height, slant, normal_radial, normal_y;
    int stacks;
} cone_shape;

/* rows: apex, side rings 1 .. stacks (the base rim), base cap (rim, centre) */
static profile_row cone_row(const void *shape, int k)
{
    const cone_shape *s = shape;
    double r = s->radius, h = s->half_height, length = s->slant + r;
    if (k <= s->stacks)
        return (profile_row){.radius = interpolate(0.0, r, k, s->stacks),
                             .y = interpolate(h, -h, k, s->stacks),
                             .normal_radial = s->normal_radial,
                             .normal_y = s->normal_y,
                             .v = interpolate(0.0, s->slant, k, s->stacks) / length};
    bool rim = k == s->stacks + 1;
    return (profile_row){
        .radius = rim ? r : 0.0, .y = -h, .normal_y = -1.0, .v = rim ? s->slant / length : 1.0, .starts_strip = rim};
}

sr_status sr_mesh_create_cone(float radius, float height, int slices, int stacks, sr_mesh **out, sr_error *err)
{
    const char *fn = "sr_mesh_create_cone";
    sr_status status;
    if (out)
        *out = NULL;
    if ((status = check_length(fn, "radius", radius, err)) || (status = check_length(fn, "height", height, err)) ||
        (status = check_count(fn, "slices", slices, 3, err)) || (status = check_count(fn, "stacks", stacks, 1, err)))
        return status;
    /* the side line runs from (0, h/2) to (r, -h/2) in the meridian half plane: its outward
     * normal is (h, r) / slant (in double: no overflow for any float r and h) */
    double slant = hypot((double)radius, (double)height);
    cone_shape shape = {radius, 0.5 * (double)height, slant, (double)height / slant, (double)radius / slant, stacks};
    return create_lathe(fn, slices, stacks + 3, cone_row, &shape, out, err);
}
