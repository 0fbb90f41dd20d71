/* test_scene.c — meshes: vertex normals, normalisation, transforms (src/scene/mesh.c). The
 * OBJ/MTL loader is tested in test_obj.c, the generated shapes in test_mesh_gen.c. */
#include <criterion/criterion.h>
#include <softrast/scene.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sr_mesh *parse_ok(const char *text)
{
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    sr_status status = sr_mesh_parse_obj(text, strlen(text), "test.obj", &mesh, &err);
    cr_assert_eq(status, SR_OK, "parse failed: %s", err.message);
    cr_assert_not_null(mesh);
    return mesh;
}

Test(mesh, area_weighted_normals_match_brute_force)
{
    /* A tent: two faces of very different areas meeting at a ridge. */
    sr_mesh *mesh = parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 -10\nf 1 2 3\nf 1 3 4\n");
    cr_assert_eq(sr_mesh_compute_normals(mesh, NULL), SR_OK);
    /* face 1: (1,0,0)x(0,1,0) = (0,0,1), area 0.5; face 2: (0,1,0)x(0,0,-10) = (-10,0,0), area 5 */
    double sum[3] = {-10.0, 0.0, 1.0}, length = sqrt(101.0);
    for (int v = 0; v < 3; v += 2) {
        cr_assert_float_eq(mesh->normals[v].x, sum[0] / length, 1e-6);
        cr_assert_float_eq(mesh->normals[v].z, sum[2] / length, 1e-6);
    }
    cr_assert_float_eq(mesh->normals[1].z, 1.0, 1e-6);
    cr_assert_float_eq(mesh->normals[3].x, -1.0, 1e-6);
    sr_mesh_destroy(mesh);
}

Test(mesh, normalize_centres_and_scales_to_two)
{
    sr_mesh *mesh = parse_ok("v 10 20 30\nv 14 21 31\nv 10 22 35\nf 1 2 3\n");
    sr_mesh_normalize(mesh);
    sr_aabb box = sr_mesh_bounds(mesh);
    cr_assert_float_eq(box.max.z - box.min.z, 2.0f, 1e-6);
    cr_assert_float_eq(box.max.x - box.min.x, 4.0f * 2.0f / 5.0f, 1e-6);
    cr_assert_float_eq(box.min.x + box.max.x, 0.0f, 1e-6);
    cr_assert_float_eq(box.min.y + box.max.y, 0.0f, 1e-6);
    cr_assert_float_eq(box.min.z + box.max.z, 0.0f, 1e-6);
    sr_mesh_destroy(mesh);
}

Test(mesh, transform_moves_positions_and_normals)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_box((sr_vec3){1, 1, 1}, 1, &mesh, NULL), SR_OK);
    sr_mat4 m = sr_mat4_mul(sr_mat4_translation((sr_vec3){5, 0, 0}), sr_mat4_scaling((sr_vec3){2, 1, 1}));
    sr_mesh_transform(mesh, m);
    sr_aabb box = sr_mesh_bounds(mesh);
    cr_assert_float_eq(box.min.x, 3.0f, 1e-6);
    cr_assert_float_eq(box.max.x, 7.0f, 1e-6);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        cr_assert_float_eq(sr_vec3_length(mesh->normals[v]), 1.0f, 1e-6);
    sr_mesh_destroy(mesh);
}

/* ---- normals under sheared, non-uniformly scaled, rotated and mirrored transforms ---- */

/* The analytic outward unit normal of the untransformed shape at p: radial for the sphere, away
 * from the tube's centre circle (radius `major` in the XZ plane) for the torus. */
static void analytic_normal(sr_vec3 p, double major, double n[3])
{
    double q[3] = {p.x, p.y, p.z};
    if (major > 0.0) {
        double rho = sqrt(q[0] * q[0] + q[2] * q[2]);
        q[0] -= major * q[0] / rho;
        q[2] -= major * q[2] / rho;
    }
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    for (int i = 0; i < 3; i++)
        n[i] = q[i] / length;
}

/* A (the matrix's linear part, in double) times v. */
static void apply_linear(const sr_mat4 *m, const double v[3], double out[3])
{
    for (int row = 0; row < 3; row++)
        out[row] = (double)m->m[row] * v[0] + (double)m->m[4 + row] * v[1] + (double)m->m[8 + row] * v[2];
}

static double ddot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void dcross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* A normal of the transformed surface is, by definition, orthogonal to its tangent plane, which
 * is the image A T of the original tangent plane T; it points outward when it has a positive
 * component along A n0 (n . A n0 = n0 . n0 > 0 for the true normal A^-T n0). That needs only the
 * forward matrix, no inverse. Also checked against the transformed geometry itself: the face
 * normals (b - a) x (c - a) of the transformed positions agree with the vertex normals (the
 * winding flips with a mirroring transform, the normals do not). */
static void check_transformed_normals(sr_mesh *mesh, double major, sr_mat4 m, const char *name)
{
    sr_vec3 *original = malloc(mesh->vertex_count * sizeof *original);
    cr_assert_not_null(original);
    memcpy(original, mesh->positions, mesh->vertex_count * sizeof *original);
    sr_mesh_transform(mesh, m);
    double determinant;
    {
        double c0[3] = {m.m[0], m.m[1], m.m[2]}, c1[3] = {m.m[4], m.m[5], m.m[6]}, c2[3] = {m.m[8], m.m[9], m.m[10]};
        double c1xc2[3];
        dcross3(c1, c2, c1xc2);
        determinant = ddot3(c0, c1xc2);
    }
    double worst_tangent = 0.0;
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        double p[3] = {original[v].x, original[v].y, original[v].z}, moved[3];
        apply_linear(&m, p, moved);
        const float got[3] = {mesh->positions[v].x, mesh->positions[v].y, mesh->positions[v].z};
        for (int i = 0; i < 3; i++)
            cr_assert_float_eq(got[i], moved[i] + m.m[12 + i], 1e-5, "%s: position %zu", name, v);
        double n0[3], t1[3], t2[3], axis[3] = {0.0, 0.0, 0.0};
        analytic_normal(original[v], major, n0);
        axis[fabs(n0[0]) < 0.5 ? 0 : 1] = 1.0; /* not parallel to n0 */
        dcross3(n0, axis, t1);
        dcross3(n0, t1, t2);
        double n[3] = {mesh->normals[v].x, mesh->normals[v].y, mesh->normals[v].z};
        cr_assert_float_eq(sqrt(ddot3(n, n)), 1.0, 1e-6, "%s: normal %zu is not unit length", name, v);
        double at1[3], at2[3], an0[3];
        apply_linear(&m, t1, at1);
        apply_linear(&m, t2, at2);
        apply_linear(&m, n0, an0);
        double off1 = fabs(ddot3(n, at1)) / sqrt(ddot3(at1, at1)), off2 = fabs(ddot3(n, at2)) / sqrt(ddot3(at2, at2));
        worst_tangent = fmax(worst_tangent, fmax(off1, off2));
        cr_assert(off1 <= 4e-6 && off2 <= 4e-6, "%s: normal %zu leaves the tangent plane (cosines %.3g, %.3g)", name, v,
                  off1, off2);
        cr_assert_gt(ddot3(n, an0), 0.0, "%s: normal %zu points inwards", name, v);
    }
    /* Angles between face and vertex normals: small on average, never large (on the strongly
     * sheared thin triangles near the poles the face is a coarse sample of the curved surface). */
    double worst_face = 0.0, mean_face = 0.0;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        double q[3][3], sum[3] = {0.0, 0.0, 0.0};
        for (int k = 0; k < 3; k++) {
            uint32_t index = mesh->indices[3 * t + k];
            q[k][0] = mesh->positions[index].x, q[k][1] = mesh->positions[index].y, q[k][2] = mesh->positions[index].z;
            sum[0] += mesh->normals[index].x, sum[1] += mesh->normals[index].y, sum[2] += mesh->normals[index].z;
        }
        double e1[3] = {q[1][0] - q[0][0], q[1][1] - q[0][1], q[1][2] - q[0][2]};
        double e2[3] = {q[2][0] - q[0][0], q[2][1] - q[0][1], q[2][2] - q[0][2]};
        double face[3];
        dcross3(e1, e2, face);
        double cosine = ddot3(face, sum) / sqrt(ddot3(face, face) * ddot3(sum, sum)) * (determinant > 0 ? 1 : -1);
        double degrees = acos(fmin(1.0, cosine)) * 180.0 / 3.14159265358979323846;
        worst_face = fmax(worst_face, degrees);
        mean_face += degrees / (double)mesh->triangle_count;
    }
    cr_log_info("%s: worst tangent cosine %.3g; face against vertex normals: mean %.3f, worst %.3f degrees", name,
                worst_tangent, mean_face, worst_face);
    cr_assert(mean_face < 4.0 && worst_face < 25.0,
              "%s: face normals of the transformed geometry are %.2f degrees "
              "(worst %.2f) from their vertices' normals",
              name, mean_face, worst_face);
    free(original);
}

/* x += 0.9 y - 0.4 z, z += 0.6 x: a shear no scaling or rotation can stand for. */
static sr_mat4 shear(void)
{
    sr_mat4 h = sr_mat4_identity();
    h.m[4] = 0.9f;
    h.m[8] = -0.4f;
    h.m[2] = 0.6f;
    return h;
}

Test(mesh, transform_gives_normals_of_the_transformed_surface)
{
    const sr_mat4 transforms[] = {
        /* translation, rotation, shear, non-uniform scale */
        sr_mat4_mul(sr_mat4_translation((sr_vec3){1.5f, -2.0f, 0.25f}),
                    sr_mat4_mul(sr_mat4_rotation((sr_vec3){1, 2, 3}, 0.8f),
                                sr_mat4_mul(shear(), sr_mat4_scaling((sr_vec3){3.0f, 0.5f, 1.5f})))),
        /* non-uniform scale after a rotation, with a mirror */
        sr_mat4_mul(sr_mat4_scaling((sr_vec3){-1.5f, 1.0f, 0.4f}), sr_mat4_rotation((sr_vec3){-2, 1, 0.5f}, 1.1f)),
    };
    const char *names[] = {"sheared", "mirrored"};
    for (int i = 0; i < 2; i++) {
        char name[64];
        sr_mesh *mesh = NULL;
        cr_assert_eq(sr_mesh_create_sphere(1.0f, 48, 24, &mesh, NULL), SR_OK);
        snprintf(name, sizeof name, "%s sphere", names[i]);
        check_transformed_normals(mesh, 0.0, transforms[i], name);
        sr_mesh_destroy(mesh);
        cr_assert_eq(sr_mesh_create_torus(1.0f, 0.35f, 64, 32, &mesh, NULL), SR_OK);
        snprintf(name, sizeof name, "%s torus", names[i]);
        check_transformed_normals(mesh, 1.0, transforms[i], name);
        sr_mesh_destroy(mesh);
    }
}

Test(mesh, create_allocates_what_the_desc_asks_for)
{
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_create(&(sr_mesh_desc){.vertex_count = 3, .triangle_count = 1, .colors = true}, &mesh, &err),
                 SR_OK, "%s", err.message);
    cr_assert(mesh->positions && mesh->indices && mesh->colors && !mesh->normals && !mesh->uvs);
    for (int v = 0; v < 3; v++)
        cr_assert(mesh->colors[v].x == 0.0f && mesh->colors[v].w == 0.0f, "colours are zeroed");
    cr_assert(!mesh->materials && !mesh->parts && !mesh->groups && mesh->part_count == 0 && mesh->group_count == 0,
              "a mesh not read from OBJ has no materials, parts or groups");
    sr_mesh_destroy(mesh);
}
