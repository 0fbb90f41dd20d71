/* src/scene/demo.c — the built-in scenes (softrast/scene.h): the demo scene made in code, so that
 * `softrast render` with no file and the tests always have something to draw, and the canonical
 * scene of one mesh (the README's benchmark scene). Also a checker texture for the built-in shaders and
 * The benchmark scene's camera and rays (a mesh's vertices for the shaders: mesh.c). Knows meshes,
 * scenes, raster and the shader catalogue; not SDL, not files. */
#include <softrast/scene.h>

#include "scene_internal.h"

#include <softrast/shaders.h>

sr_status sr_checker_texture_create(int size, int squares, uint32_t light, uint32_t dark, sr_texture **out,
                                    sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_checker_texture_create: out is NULL");
    *out = NULL;
    if (size < 1 || size > SR_MAX_IMAGE_SIDE || squares < 1 || squares > size)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_checker_texture_create: size %d, squares %d (need 1 <= squares <= size <= %d)", size,
                            squares, SR_MAX_IMAGE_SIDE);
    sr_status status = sr_texture_create(&(sr_texture_desc){.width = size, .height = size}, out, err);
    if (status != SR_OK)
        return status;
    uint32_t *texels = (*out)->texels;
    for (int y = 0; y < size; y++) {
        /* Square index by integer arithmetic, so sizes that are not multiples of `squares`
         * still give exactly `squares` squares per side. */
        int row = (int)((long)y * squares / size);
        for (int x = 0; x < size; x++) {
            int column = (int)((long)x * squares / size);
            texels[(size_t)y * (size_t)size + (size_t)x] = ((row + column) & 1) ? dark : light;
        }
    }
    return SR_OK;
}

void sr_bench_scene_camera(int width, int height, sr_mat4 *view, sr_mat4 *projection)
{
    float aspect = width > 0 && height > 0 ? (float)width / (float)height : 1.0f;
    if (view)
        *view = sr_mat4_look_at(sr_vec3_make(0.0f, 0.0f, 3.0f), sr_vec3_make(0.0f, 0.0f, 0.0f),
                                sr_vec3_make(0.0f, 1.0f, 0.0f));
    if (projection)
        *projection = sr_mat4_perspective(45.0f * SR_PI / 180.0f, aspect, 0.1f, 100.0f);
}

void sr_bench_scene_primary_rays(int width, int height, sr_ray *rays)
{
    if (!rays || width <= 0 || height <= 0)
        return;
    const sr_vec3 eye = {0.0f, 0.0f, 3.0f};
    sr_mat4 view, projection, clip_to_world;
    sr_bench_scene_camera(width, height, &view, &projection);
    sr_mat4_inverse(sr_mat4_mul(projection, view), &clip_to_world);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            /* pixel centre to NDC (y up), then the point on the near plane (depth 0) */
            sr_vec3 ndc = {((float)x + 0.5f) / (float)width * 2.0f - 1.0f,
                           1.0f - ((float)y + 0.5f) / (float)height * 2.0f, 0.0f};
            sr_vec3 near_point = sr_mat4_transform_point_projective(clip_to_world, ndc);
            sr_vec3 direction = sr_vec3_normalize(sr_vec3_sub(near_point, eye));
            rays[(size_t)y * (size_t)width + (size_t)x] = sr_ray_make(eye, direction, 0.0f, INFINITY);
        }
    }
}

sr_status sr_bench_scene_load_mesh(const char *path, sr_mesh **out, sr_error *err)
{
    if (!path || !out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_bench_scene_load_mesh: %s is NULL",
                            path ? "out" : "path");
    *out = NULL;
    sr_mesh *mesh = NULL;
    sr_status status = sr_mesh_load_obj(path, &mesh, err);
    if (status != SR_OK)
        return status;
    sr_mesh_normalize(mesh);
    status = sr_mesh_compute_normals(mesh, err);
    if (status != SR_OK) {
        sr_mesh_destroy(mesh);
        return status;
    }
    *out = mesh;
    return SR_OK;
}

sr_status sr_scene_create_from_mesh(sr_mesh *mesh, const char *name, sr_scene **out, sr_error *err)
{
    return sr_scene_create_from_mesh_reporting(mesh, name, NULL, NULL, out, err);
}

sr_status sr_scene_create_from_mesh_reporting(sr_mesh *mesh, const char *name, sr_progress_fn progress, void *user,
                                              sr_scene **out, sr_error *err)
{
    if (!out) {
        sr_mesh_destroy(mesh);
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_create_from_mesh: out is NULL");
    }
    *out = NULL;
    if (!mesh)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_create_from_mesh: mesh is NULL");
    sr_scene *scene = NULL;
    sr_status status = sr_scene_create(&(sr_scene_desc){.name = name ? name : "mesh"}, &scene, err);
    if (status != SR_OK) {
        sr_mesh_destroy(mesh);
        return status;
    }
    sr_mesh_id mesh_id = {0};
    sr_scene_set_progress(scene, progress, user);
    status = sr_scene_add_mesh(scene, mesh, name ? name : "mesh", &mesh_id, err);
    sr_scene_set_progress(scene, NULL, NULL);
    sr_node_id node;
    if (status == SR_OK)
        status = sr_scene_add_node(scene, &(sr_node_desc){.name = name ? name : "mesh", .mesh = mesh_id}, &node, err);
    if (status == SR_OK)
        status = sr_scene_update(scene, NULL, err);
    if (status != SR_OK) {
        sr_scene_destroy(scene);
        return status;
    }
    *out = scene;
    return SR_OK;
}

/* One object of the demo scene. */
typedef struct demo_object {
    const char *name;
    const sr_shader *shader;
    sr_vec3 albedo;
    bool textured;
    sr_vec3 translation, euler_degrees;
} demo_object;

static sr_status make_demo_mesh(int index, sr_mesh **out, sr_error *err)
{
    switch (index) {
    case 0:
        return sr_mesh_create_plane(8.0f, 8, 4.0f, out, err);
    case 1:
        return sr_mesh_create_sphere(0.6f, 48, 24, out, err);
    case 2:
        return sr_mesh_create_box(sr_vec3_make(0.5f, 0.5f, 0.5f), 1, out, err);
    default:
        return sr_mesh_create_torus(0.45f, 0.16f, 48, 24, out, err);
    }
}

sr_status sr_scene_create_demo(sr_scene **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_create_demo: out is NULL");
    *out = NULL;
    static const demo_object objects[4] = {
        {"ground", &sr_shader_textured, {0.9f, 0.9f, 0.9f}, true, {0, 0, 0}, {0, 0, 0}},
        {"sphere", &sr_shader_lambert, {0.85f, 0.25f, 0.2f}, false, {-1.5f, 0.6f, 0.2f}, {0, 0, 0}},
        {"box", &sr_shader_textured, {1.0f, 0.7f, 0.3f}, true, {0.0f, 0.5f, -0.6f}, {0, 35, 0}},
        /* Tilted towards the camera so the hole shows. */
        {"torus", &sr_shader_lambert, {0.25f, 0.5f, 0.9f}, false, {1.5f, 0.65f, 0.2f}, {60, 0, 0}},
    };
    sr_scene *scene = NULL;
    sr_status status = sr_scene_create(&(sr_scene_desc){.name = "demo"}, &scene, err);
    if (status != SR_OK)
        return status;
    /* The camera: above and in front of the objects, looking slightly down, so that the ground
     * recedes to the top of the image and every object stands in the middle band. */
    sr_scene_set_camera(scene, &(sr_camera){.eye = {0.0f, 2.0f, 4.6f},
                                            .target = {0.0f, 0.35f, 0.0f},
                                            .fov_y_degrees = 45.0f,
                                            .near_z = 0.1f,
                                            .far_z = 100.0f});
    sr_texture *checker = NULL;
    sr_texture_id checker_id = {0};
    status = sr_checker_texture_create(64, 8, sr_rgba8(0.95f, 0.95f, 0.95f, 1.0f), sr_rgba8(0.35f, 0.35f, 0.38f, 1.0f),
                                       &checker, err);
    if (status == SR_OK)
        status = sr_scene_add_texture(scene, checker, "checker", &checker_id, err);
    for (int i = 0; i < 4 && status == SR_OK; i++) {
        const demo_object *o = &objects[i];
        sr_mesh *mesh = NULL;
        sr_mesh_id mesh_id;
        sr_material_id material;
        sr_node_id node;
        status = make_demo_mesh(i, &mesh, err);
        if (status == SR_OK)
            status = sr_scene_add_mesh(scene, mesh, o->name, &mesh_id, err);
        if (status == SR_OK)
            status =
                sr_scene_add_material(scene,
                                      &(sr_material_desc){.name = o->name,
                                                          .shader = o->shader,
                                                          .base_color = {o->albedo.x, o->albedo.y, o->albedo.z, 1.0f},
                                                          .texture = o->textured ? checker_id : (sr_texture_id){0}},
                                      &material, err);
        if (status == SR_OK)
            status = sr_scene_add_node(
                scene,
                &(sr_node_desc){.name = o->name,
                                .mesh = mesh_id,
                                .material = material,
                                .transform = {.translation = o->translation,
                                              .rotation = sr_quat_from_euler_degrees(o->euler_degrees)}},
                &node, err);
    }
    if (status == SR_OK)
        status = sr_scene_update(scene, NULL, err);
    if (status != SR_OK) {
        sr_scene_destroy(scene);
        return status;
    }
    *out = scene;
    return SR_OK;
}
