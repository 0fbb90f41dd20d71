/* src/scene/demo.c — the built-in demo scene (softrast/scene.h): a few generated shapes on a
 * checker-textured ground, made in code so that `softrast render` with no file and the tests
 * always have something to draw. Also the two helpers every caller of the built-in shaders
 * needs: a mesh interleaved into sr_shader_vertex, and a checker texture.
 * Knows meshes, raster and the shader catalogue; not SDL, not files. The scene module with
 * nodes and picking will replace the fixed object array here. */
#include <softrast/scene.h>

#include <softrast/shaders.h>

#include <string.h>

#define DEMO_OBJECT_COUNT 4

struct sr_demo_scene {
    sr_demo_object objects[DEMO_OBJECT_COUNT];
    sr_mesh *meshes[DEMO_OBJECT_COUNT];
    sr_shader_vertex *vertices[DEMO_OBJECT_COUNT];
    sr_texture *checker;
};

/* The camera: above and in front of the objects, looking slightly down, so that the ground
 * recedes to the top of the image and every object stands in the middle band. */
static const sr_vec3 demo_eye = {0.0f, 2.0f, 4.6f};
static const sr_vec3 demo_target = {0.0f, 0.35f, 0.0f};
static const float demo_fov_y = 45.0f * SR_PI / 180.0f;
static const float demo_near = 0.1f;
static const float demo_far = 100.0f;

sr_status sr_mesh_create_shader_vertices(const sr_mesh *mesh, const float color[4], sr_shader_vertex **out,
                                         sr_error *err)
{
    if (!mesh || !out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_create_shader_vertices: %s is NULL",
                            mesh ? "out" : "mesh");
    *out = NULL;
    sr_shader_vertex *vertices = sr_alloc_array(mesh->vertex_count, sizeof *vertices);
    if (!vertices)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_mesh_create_shader_vertices: no memory for %zu vertices",
                            mesh->vertex_count);
    const float white[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    if (!color)
        color = white;
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        sr_shader_vertex *v = &vertices[i];
        v->position = mesh->positions[i];
        v->normal = mesh->normals ? mesh->normals[i] : sr_vec3_make(0.0f, 0.0f, 0.0f);
        v->uv = mesh->uvs ? mesh->uvs[i] : sr_vec2_make(0.0f, 0.0f);
        if (mesh->colors)
            memcpy(v->color, &mesh->colors[i], sizeof v->color);
        else
            memcpy(v->color, color, sizeof v->color);
    }
    *out = vertices;
    return SR_OK;
}

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

void sr_demo_scene_destroy(sr_demo_scene *scene)
{
    if (!scene)
        return;
    for (int i = 0; i < DEMO_OBJECT_COUNT; i++) {
        sr_mesh_destroy(scene->meshes[i]);
        sr_free(scene->vertices[i]);
    }
    sr_texture_destroy(scene->checker);
    sr_free(scene);
}

/* What create makes of each object: its shape comes from the switch in make_mesh. */
typedef struct object_recipe {
    const char *name;
    const sr_shader *shader;
    sr_vec3 albedo;
    sr_mat4 model;
} object_recipe;

static sr_status make_mesh(int index, sr_mesh **out, sr_error *err)
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

sr_status sr_demo_scene_create(sr_demo_scene **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_demo_scene_create: out is NULL");
    *out = NULL;
    sr_demo_scene *scene = sr_calloc(1, sizeof *scene);
    if (!scene)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_demo_scene_create: no memory for the scene");

    const object_recipe recipes[DEMO_OBJECT_COUNT] = {
        {"ground", &sr_shader_textured, {0.9f, 0.9f, 0.9f}, sr_mat4_identity()},
        {"sphere", &sr_shader_lambert, {0.85f, 0.25f, 0.2f}, sr_mat4_translation(sr_vec3_make(-1.5f, 0.6f, 0.2f))},
        {"box",
         &sr_shader_textured,
         {1.0f, 0.7f, 0.3f},
         sr_mat4_mul(sr_mat4_translation(sr_vec3_make(0.0f, 0.5f, -0.6f)),
                     sr_mat4_rotation(sr_vec3_make(0.0f, 1.0f, 0.0f), 35.0f * SR_PI / 180.0f))},
        /* Tilted towards the camera so the hole shows. */
        {"torus",
         &sr_shader_lambert,
         {0.25f, 0.5f, 0.9f},
         sr_mat4_mul(sr_mat4_translation(sr_vec3_make(1.5f, 0.65f, 0.2f)),
                     sr_mat4_rotation(sr_vec3_make(1.0f, 0.0f, 0.0f), 60.0f * SR_PI / 180.0f))},
    };

    sr_status status = sr_checker_texture_create(64, 8, sr_rgba8(0.95f, 0.95f, 0.95f, 1.0f),
                                                 sr_rgba8(0.35f, 0.35f, 0.38f, 1.0f), &scene->checker, err);
    uint32_t next_id = 0;
    for (int i = 0; i < DEMO_OBJECT_COUNT && status == SR_OK; i++) {
        status = make_mesh(i, &scene->meshes[i], err);
        if (status == SR_OK)
            status = sr_mesh_create_shader_vertices(scene->meshes[i], NULL, &scene->vertices[i], err);
        if (status != SR_OK)
            break;
        const sr_mesh *mesh = scene->meshes[i];
        sr_aabb bounds = sr_mesh_bounds(mesh);
        scene->objects[i] = (sr_demo_object){
            .name = recipes[i].name,
            .mesh = mesh,
            .model = recipes[i].model,
            .world_bounds = sr_aabb_transform(bounds, recipes[i].model),
            .shader = recipes[i].shader,
            .albedo = recipes[i].albedo,
            .first_primitive_id = next_id,
        };
        next_id += (uint32_t)mesh->triangle_count;
    }
    if (status != SR_OK) {
        sr_demo_scene_destroy(scene);
        return status;
    }
    *out = scene;
    return SR_OK;
}

size_t sr_demo_scene_object_count(const sr_demo_scene *scene)
{
    return scene ? DEMO_OBJECT_COUNT : 0;
}

const sr_demo_object *sr_demo_scene_object(const sr_demo_scene *scene, size_t index)
{
    return scene && index < DEMO_OBJECT_COUNT ? &scene->objects[index] : NULL;
}

size_t sr_demo_scene_triangle_count(const sr_demo_scene *scene)
{
    size_t count = 0;
    for (size_t i = 0; scene && i < DEMO_OBJECT_COUNT; i++)
        count += scene->meshes[i]->triangle_count;
    return count;
}

void sr_demo_scene_camera(const sr_demo_scene *scene, int width, int height, sr_mat4 *view, sr_mat4 *projection)
{
    (void)scene; /* one fixed camera for now; the scene module will own cameras */
    float aspect = width > 0 && height > 0 ? (float)width / (float)height : 1.0f;
    if (view)
        *view = sr_mat4_look_at(demo_eye, demo_target, sr_vec3_make(0.0f, 1.0f, 0.0f));
    if (projection)
        *projection = sr_mat4_perspective(demo_fov_y, aspect, demo_near, demo_far);
}

sr_status sr_demo_scene_render(const sr_demo_scene *scene, sr_renderer *renderer, sr_framebuffer *fb, sr_error *err)
{
    if (!scene || !renderer || !fb)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_demo_scene_render: %s is NULL",
                            !scene      ? "scene"
                            : !renderer ? "renderer"
                                        : "fb");
    sr_framebuffer_clear(fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
    sr_mat4 view, projection;
    sr_demo_scene_camera(scene, fb->width, fb->height, &view, &projection);
    for (int i = 0; i < DEMO_OBJECT_COUNT; i++) {
        const sr_demo_object *object = &scene->objects[i];
        sr_shader_uniforms uniforms = sr_shader_uniforms_default();
        sr_shader_uniforms_set_transforms(&uniforms, object->model, view, projection);
        uniforms.albedo = object->albedo;
        uniforms.texture = scene->checker;
        sr_program program = sr_shader_program(object->shader, &uniforms);
        sr_draw_desc draw = {
            .vertices = scene->vertices[i],
            .vertex_count = object->mesh->vertex_count,
            .vertex_stride = sizeof(sr_shader_vertex),
            .indices = object->mesh->indices,
            .index_count = object->mesh->triangle_count * 3,
            .program = &program,
            .primitive_id_base = object->first_primitive_id,
        };
        sr_status status = sr_draw_triangles(renderer, fb, &draw, err);
        if (status != SR_OK)
            return status;
    }
    return SR_OK;
}
