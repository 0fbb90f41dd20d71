/* scene_test_helpers.h — what the scene tests share (test_scene_graph.c, test_scene_pick.c):
 * scenes of generated shapes, random transforms and cameras, transform products in double,
 * framebuffers and renderers. Header-only; each test program includes it once. */
#ifndef SR_TESTS_SCENE_HELPERS_H
#define SR_TESTS_SCENE_HELPERS_H

#include <criterion/criterion.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_random.h"

/* ---- helpers ---- */

static inline sr_scene *new_scene(void)
{
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_create(NULL, &scene, &err), SR_OK, "%s", err.message);
    return scene;
}

static inline sr_mesh_id add_mesh(sr_scene *scene, sr_mesh *mesh, const char *name)
{
    sr_mesh_id id;
    sr_error err = {0};
    cr_assert_eq(sr_scene_add_mesh(scene, mesh, name, &id, &err), SR_OK, "%s", err.message);
    return id;
}

static inline sr_mesh *sphere_mesh(float radius)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_sphere(radius, 16, 8, &mesh, NULL), SR_OK);
    return mesh;
}

static inline sr_mesh *box_mesh(float half)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(sr_mesh_create_box(sr_vec3_splat(half), 2, &mesh, NULL), SR_OK);
    return mesh;
}

static inline sr_node_id add_node(sr_scene *scene, const char *name, sr_node_id parent, sr_transform transform,
                                  sr_mesh_id mesh)
{
    sr_node_id id;
    sr_error err = {0};
    sr_status status = sr_scene_add_node(
        scene, &(sr_node_desc){.name = name, .parent = parent, .transform = transform, .mesh = mesh}, &id, &err);
    cr_assert_eq(status, SR_OK, "%s", err.message);
    return id;
}

static inline void update(sr_scene *scene, sr_scene_update_stats *stats)
{
    sr_error err = {0};
    cr_assert_eq(sr_scene_update(scene, stats, &err), SR_OK, "%s", err.message);
}

static inline sr_transform random_transform(void)
{
    sr_vec3 axis = {rng_range(-1, 1), rng_range(-1, 1), rng_range(-1, 1)};
    if (sr_vec3_length(axis) < 0.1f)
        axis = sr_vec3_make(0, 1, 0);
    return (sr_transform){
        .translation = {rng_range(-3, 3), rng_range(-3, 3), rng_range(-3, 3)},
        .rotation = sr_quat_from_axis_angle(sr_vec3_normalize(axis), rng_range(-3.1, 3.1)),
        .scale = {rng_range(0.3, 2.0), rng_range(0.3, 2.0), rng_range(0.3, 2.0)},
    };
}

/* Double-precision T * R * S from the transform's fields (Rodrigues' rotation matrix of the
 * normalised quaternion), column-major like sr_mat4. */
static inline void transform_matrix_double(sr_transform t, double m[16])
{
    double x = t.rotation.x, y = t.rotation.y, z = t.rotation.z, w = t.rotation.w;
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n, y /= n, z /= n, w /= n;
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    double s[3] = {t.scale.x, t.scale.y, t.scale.z};
    memset(m, 0, 16 * sizeof *m);
    for (int column = 0; column < 3; column++)
        for (int row = 0; row < 3; row++)
            m[column * 4 + row] = r[row][column] * s[column];
    m[12] = t.translation.x;
    m[13] = t.translation.y;
    m[14] = t.translation.z;
    m[15] = 1.0;
}

static inline void mul_double(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int column = 0; column < 4; column++)
        for (int row = 0; row < 4; row++) {
            double sum = 0.0;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + row] * b[column * 4 + k];
            r[column * 4 + row] = sum;
        }
    memcpy(out, r, sizeof r);
}

static inline void transform_point_double(const double m[16], sr_vec3 p, double out[3])
{
    for (int row = 0; row < 3; row++)
        out[row] = m[row] * p.x + m[4 + row] * p.y + m[8 + row] * p.z + m[12 + row];
}

/* A field of `count` instances of two meshes scattered over a wide area. */
static inline sr_scene *make_field(int count, uint64_t seed, sr_node_id *nodes)
{
    rng_seed(seed);
    sr_scene *scene = new_scene();
    sr_mesh_id meshes[2] = {add_mesh(scene, sphere_mesh(0.5f), "sphere"), add_mesh(scene, box_mesh(0.4f), "box")};
    for (int i = 0; i < count; i++) {
        sr_transform t = random_transform();
        t.translation = sr_vec3_make(rng_range(-40, 40), rng_range(-3, 3), rng_range(-40, 40));
        sr_node_id id = add_node(scene, "item", SR_NODE_NULL, t, meshes[i % 2]);
        if (nodes)
            nodes[i] = id;
    }
    update(scene, NULL);
    return scene;
}

static inline sr_camera random_camera(void)
{
    return (sr_camera){.eye = {rng_range(-30, 30), rng_range(1, 10), rng_range(-30, 30)},
                       .target = {rng_range(-10, 10), 0, rng_range(-10, 10)},
                       .fov_y_degrees = rng_range(30, 90),
                       .far_z = rng_range(10, 60)};
}

static inline sr_framebuffer *new_framebuffer(int width, int height)
{
    sr_framebuffer *fb = NULL;
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &fb, NULL), SR_OK);
    return fb;
}

static inline sr_renderer *new_renderer(int threads)
{
    sr_renderer *renderer = NULL;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &renderer, NULL), SR_OK);
    return renderer;
}

static inline void render(sr_scene *scene, const sr_scene_render_desc *desc, sr_renderer *renderer, sr_framebuffer *fb,
                          sr_scene_frame *frame)
{
    sr_error err = {0};
    cr_assert_eq(sr_scene_render(scene, desc, renderer, fb, frame, &err), SR_OK, "%s", err.message);
}

#endif
