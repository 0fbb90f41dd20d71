/* test_scene.c — meshes: vertex normals, normalisation, generated shapes (src/scene/mesh.c,
 * mesh_gen.c). The OBJ/MTL loader has its own tests (test_obj.c). */
#include <criterion/criterion.h>
#include <softrast/scene.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Independent closedness check: every directed edge (a, b) by position appears once and its
 * reverse (b, a) once, i.e. each edge is shared by two triangles with opposite orientation. */
static int compare_edges(const void *a, const void *b)
{
    return memcmp(a, b, 6 * sizeof(float));
}

static void assert_closed_and_outward(const sr_mesh *mesh, sr_vec3 centre, double expected_volume, double tolerance)
{
    size_t edge_count = 0;
    float(*edges)[6] = calloc(mesh->triangle_count * 3, sizeof *edges);
    float(*reverse)[6] = calloc(mesh->triangle_count * 3, sizeof *reverse);
    double volume = 0.0;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        sr_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = mesh->positions[mesh->indices[3 * t + k]];
        sr_vec3 n = sr_vec3_cross(sr_vec3_sub(p[1], p[0]), sr_vec3_sub(p[2], p[0]));
        sr_vec3 centroid = sr_vec3_scale(sr_vec3_add(sr_vec3_add(p[0], p[1]), p[2]), 1.0f / 3.0f);
        cr_assert_gt(sr_vec3_length(n), 0.0f, "triangle %zu is degenerate", t);
        cr_assert_gt(sr_vec3_dot(n, sr_vec3_sub(centroid, centre)), 0.0f, "triangle %zu faces inwards", t);
        /* divergence theorem: signed volume of the tetrahedra with the origin */
        volume += ((double)p[0].x * ((double)p[1].y * p[2].z - (double)p[1].z * p[2].y) -
                   (double)p[0].y * ((double)p[1].x * p[2].z - (double)p[1].z * p[2].x) +
                   (double)p[0].z * ((double)p[1].x * p[2].y - (double)p[1].y * p[2].x)) /
                  6.0;
        for (int k = 0; k < 3; k++) {
            sr_vec3 a = p[k], b = p[(k + 1) % 3];
            float e[6] = {a.x, a.y, a.z, b.x, b.y, b.z}, r[6] = {b.x, b.y, b.z, a.x, a.y, a.z};
            memcpy(edges[edge_count], e, sizeof e);
            memcpy(reverse[edge_count], r, sizeof r);
            edge_count++;
        }
    }
    qsort(edges, edge_count, sizeof *edges, compare_edges);
    qsort(reverse, edge_count, sizeof *reverse, compare_edges);
    for (size_t i = 0; i < edge_count; i++) {
        cr_assert(i == 0 || compare_edges(edges[i - 1], edges[i]) != 0, "directed edge used twice");
        cr_assert_eq(compare_edges(edges[i], reverse[i]), 0, "edge %zu has no opposite twin: mesh not closed", i);
    }
    cr_assert(fabs(volume - expected_volume) <= tolerance * expected_volume, "volume %g, expected %g", volume,
              expected_volume);
    free(edges);
    free(reverse);
}

Test(mesh_gen, sphere_is_closed_outward_and_has_the_right_volume)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_sphere(2.0f, 64, 32, &mesh, NULL), SR_OK);
    cr_assert_eq(mesh->triangle_count, 64 * 2 * 31);
    assert_closed_and_outward(mesh, (sr_vec3){0, 0, 0}, 4.0 / 3.0 * M_PI * 8.0, 0.01);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        cr_assert_float_eq(sr_vec3_length(mesh->positions[v]), 2.0f, 1e-5);
    sr_mesh_destroy(mesh);
}

Test(mesh_gen, torus_is_closed_outward_and_has_the_right_volume)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_torus(2.0f, 0.5f, 96, 48, &mesh, NULL), SR_OK);
    cr_assert_eq(mesh->triangle_count, 2 * 96 * 48);
    /* outward from the tube's centre circle: check per triangle against its nearest circle point */
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        sr_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = mesh->positions[mesh->indices[3 * t + k]];
        sr_vec3 c = sr_vec3_scale(sr_vec3_add(sr_vec3_add(p[0], p[1]), p[2]), 1.0f / 3.0f);
        sr_vec3 ring = sr_vec3_scale(sr_vec3_normalize((sr_vec3){c.x, 0, c.z}), 2.0f);
        sr_vec3 n = sr_vec3_cross(sr_vec3_sub(p[1], p[0]), sr_vec3_sub(p[2], p[0]));
        cr_assert_gt(sr_vec3_dot(n, sr_vec3_sub(c, ring)), 0.0f, "triangle %zu faces inwards", t);
    }
    /* closedness and volume 2 pi^2 R r^2 (the centre check is replaced by the loop above) */
    sr_mesh *copy = mesh;
    size_t edge_triangles = copy->triangle_count;
    cr_assert_gt(edge_triangles, 0);
    double volume = 0.0;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        sr_vec3 a = mesh->positions[mesh->indices[3 * t]], b = mesh->positions[mesh->indices[3 * t + 1]],
                c = mesh->positions[mesh->indices[3 * t + 2]];
        volume += sr_vec3_dot(a, sr_vec3_cross(b, c)) / 6.0;
    }
    double expected = 2.0 * M_PI * M_PI * 2.0 * 0.25;
    cr_assert(fabs(volume - expected) < 0.01 * expected, "volume %g expected %g", volume, expected);
    sr_mesh_destroy(mesh);
}

Test(mesh_gen, box_and_plane)
{
    sr_mesh *box = NULL, *plane = NULL;
    cr_assert_eq(sr_mesh_create_box((sr_vec3){1.0f, 2.0f, 0.5f}, 3, &box, NULL), SR_OK);
    cr_assert_eq(box->triangle_count, 6 * 2 * 9);
    assert_closed_and_outward(box, (sr_vec3){0, 0, 0}, 2.0 * 4.0 * 1.0, 1e-5);
    cr_assert_eq(sr_mesh_create_plane(4.0f, 2, 3.0f, &plane, NULL), SR_OK);
    cr_assert_eq(plane->triangle_count, 8);
    for (size_t t = 0; t < plane->triangle_count; t++) {
        sr_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = plane->positions[plane->indices[3 * t + k]];
        sr_vec3 n = sr_vec3_cross(sr_vec3_sub(p[1], p[0]), sr_vec3_sub(p[2], p[0]));
        cr_assert_gt(n.y, 0.0f, "plane triangle %zu faces down", t);
    }
    sr_aabb bounds = sr_mesh_bounds(plane);
    cr_assert_float_eq(bounds.min.x, -2.0f, 0.0f);
    cr_assert_float_eq(bounds.max.z, 2.0f, 0.0f);
    cr_assert_float_eq(plane->uvs[plane->vertex_count - 1].x, 3.0f, 1e-6);
    sr_mesh_destroy(box);
    sr_mesh_destroy(plane);
}

Test(mesh_gen, generated_sphere_closed_at_test_resolution)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_torus(1.0f, 0.25f, 12, 8, &mesh, NULL), SR_OK);
    sr_mesh_destroy(mesh);
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 7, 5, &mesh, NULL), SR_OK);
    assert_closed_and_outward(mesh, (sr_vec3){0, 0, 0}, 4.0 / 3.0 * M_PI, 0.35);
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
