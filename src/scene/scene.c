/* src/scene/scene.c — scene storage (softrast/scene.h): meshes with their BVHs and shader
 * vertices, textures, materials, the scene's settings and totals. The node hierarchy with its
 * generation-checked handles and local transforms is scene_node.c.
 * World transforms and boxes are brought up to date in scene_update.c; culling and drawing are
 * scene_render.c, picking scene_pick.c. Knows nothing of files or SDL. */
#include "scene_internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

bool sr_scene_grow(void **array, uint32_t *capacity, uint32_t needed, size_t size)
{
    if (needed <= *capacity)
        return true;
    uint64_t grown = *capacity ? (uint64_t)*capacity * 2 : 16;
    while (grown < needed)
        grown *= 2;
    if (grown > UINT32_MAX)
        grown = UINT32_MAX;
    void *bigger = sr_realloc(*array, (size_t)grown * size);
    if (!bigger)
        return false;
    *array = bigger;
    *capacity = (uint32_t)grown;
    return true;
}

char *sr_scene_copy_string(const char *text)
{
    size_t length = strlen(text);
    char *copy = sr_alloc(length + 1);
    if (copy)
        memcpy(copy, text, length + 1);
    return copy;
}

/* ---- the scene ---- */

static const sr_material_desc default_material_desc = {
    .name = "default",
    .base_color = {0.8f, 0.8f, 0.8f, 1.0f},
};

sr_status sr_scene_create(const sr_scene_desc *desc, sr_scene **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_create: out is NULL");
    *out = NULL;
    sr_scene_desc d = desc ? *desc : (sr_scene_desc){0};
    if (!(d.instance_margin >= 0.0f) || !isfinite(d.instance_margin))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_create: instance_margin %g must be >= 0",
                            (double)d.instance_margin);
    if (!(d.shape_margin >= 0.0f) || !isfinite(d.shape_margin))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_create: shape_margin %g must be >= 0",
                            (double)d.shape_margin);
    sr_scene *scene = sr_calloc(1, sizeof *scene);
    if (!scene)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_create: out of memory");
    scene->name = sr_scene_copy_string(d.name ? d.name : "scene");
    scene->camera = sr_bench_camera();
    sr_shader_uniforms defaults = sr_shader_uniforms_default();
    scene->light =
        (sr_light){.direction = defaults.light_direction, .ambient = defaults.ambient, .diffuse = defaults.diffuse};
    scene->background = SR_BENCH_SCENE_BACKGROUND;
    scene->default_material = (scene_material){.name = NULL, .desc = default_material_desc};
    scene->first_root = scene->last_root = scene->free_head = SCENE_NONE;
    scene->instance_margin = d.instance_margin > 0.0f ? d.instance_margin : 0.1f;
    scene->shape_margin = d.shape_margin > 0.0f ? d.shape_margin : 0.1f;
    sr_status status = scene->name ? SR_OK : SR_ERROR_OUT_OF_MEMORY;
    if (status == SR_OK)
        status =
            sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = scene->instance_margin}, &scene->instances, err);
    else
        sr_error_set(err, status, "sr_scene_create: out of memory");
    if (status != SR_OK) {
        sr_scene_destroy(scene);
        return status;
    }
    *out = scene;
    return SR_OK;
}

void sr_scene_destroy(sr_scene *scene)
{
    if (!scene)
        return;
    sr_scene_destroy_shapes(scene); // before the meshes: hulls of meshes are shared with shapes
    for (uint32_t i = 0; i < scene->mesh_count; i++)
        sr_scene_release_mesh(&scene->meshes[i]);
    for (uint32_t i = 0; i < scene->texture_count; i++) {
        sr_texture_destroy(scene->textures[i]);
        sr_free(scene->texture_names[i]);
    }
    for (uint32_t i = 0; i < scene->material_count; i++)
        sr_free(scene->materials[i].name);
    for (uint32_t i = 0; i < scene->slot_count; i++)
        sr_free(scene->nodes[i].name);
    sr_free(scene->meshes);
    sr_free(scene->textures);
    sr_free(scene->texture_names);
    sr_free(scene->materials);
    sr_free(scene->nodes);
    sr_free(scene->pending);
    sr_free(scene->bounds_pending);
    sr_dynamic_tree_destroy(scene->instances);
    sr_free(scene->name);
    sr_free(scene);
}

const char *sr_scene_name(const sr_scene *scene)
{
    return scene && scene->name ? scene->name : "";
}

void sr_scene_set_camera(sr_scene *scene, const sr_camera *camera)
{
    if (scene && camera)
        scene->camera = *camera;
}

sr_camera sr_scene_camera(const sr_scene *scene)
{
    return scene ? scene->camera : sr_bench_camera();
}

sr_status sr_scene_set_light(sr_scene *scene, sr_light light, sr_error *err)
{
    if (!scene)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_set_light: scene is NULL");
    // A direction already of unit length is kept bit for bit: normalising it again may change its
    // last bits, and a light read back (from a recording, say) must be the light that was set.
    float length2 = sr_vec3_dot(light.direction, light.direction);
    sr_vec3 direction = fabsf(length2 - 1.0f) <= 4.0f * FLT_EPSILON ? light.direction : sr_vec3_normalize(light.direction);
    if (sr_vec3_length(direction) == 0.0f)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "light direction (%g, %g, %g) is zero or not finite",
                            (double)light.direction.x, (double)light.direction.y, (double)light.direction.z);
    if (!isfinite(light.ambient) || !isfinite(light.diffuse))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "light ambient %g / diffuse %g must be finite",
                            (double)light.ambient, (double)light.diffuse);
    if ((unsigned)light.space > SR_LIGHT_CAMERA)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "light space %d is not an sr_light_space",
                            (int)light.space);
    light.direction = direction;
    scene->light = light;
    return SR_OK;
}

sr_light sr_scene_light(const sr_scene *scene)
{
    return scene ? scene->light : (sr_light){.direction = {0.0f, 0.0f, 1.0f}, .ambient = 0.2f, .diffuse = 0.8f};
}

void sr_scene_set_background(sr_scene *scene, uint32_t rgba)
{
    if (scene)
        scene->background = rgba;
}

uint32_t sr_scene_background(const sr_scene *scene)
{
    return scene ? scene->background : SR_BENCH_SCENE_BACKGROUND;
}

/* ---- meshes ---- */

/* The mesh's parts: runs of triangles of one material. Meshes from OBJ files with materials
 * bring their own (sr_mesh.parts): their materials become scene materials (base colour, texture,
 * lambert or textured), their textures move to the scene. Others are one part of the default
 * material. */
static sr_status make_parts(sr_scene *scene, scene_mesh *m, sr_error *err)
{
    sr_mesh *mesh = m->mesh;
    size_t count = mesh->part_count > 0 ? mesh->part_count : 1;
    m->parts = sr_alloc_array(count, sizeof *m->parts);
    uint32_t *imported = mesh->material_count ? sr_calloc(mesh->material_count, sizeof *imported) : NULL;
    if (!m->parts || (mesh->material_count && !imported)) {
        sr_free(imported);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_add_mesh: out of memory");
    }
    sr_status status = SR_OK;
    for (size_t i = 0; i < mesh->material_count && status == SR_OK; i++) {
        sr_mesh_material *source = &mesh->materials[i];
        sr_texture_id texture = {0};
        if (source->texture) {
            // The scene owns it from here (freed with the scene, even if adding fails).
            sr_texture *moved = source->texture;
            source->texture = NULL;
            status = sr_scene_add_texture(scene, moved, source->texture_path, &texture, err);
        }
        sr_material_id id = {0};
        sr_vec4 color = source->base_color;
        // A material whose Kd and d are all zero would read as "default": keep it black, opaque 0.
        if (color.x == 0.0f && color.y == 0.0f && color.z == 0.0f && color.w == 0.0f)
            color.w = 0x1p-24f;
        if (status == SR_OK)
            status = sr_scene_add_material(
                scene, &(sr_material_desc){.name = source->name, .base_color = color, .texture = texture}, &id, err);
        imported[i] = id.id;
    }
    if (status == SR_OK) {
        if (mesh->part_count == 0) {
            m->parts[0] = (scene_part){0, (uint32_t)mesh->triangle_count, {0}};
        } else {
            for (size_t i = 0; i < mesh->part_count; i++) {
                const sr_mesh_range *part = &mesh->parts[i];
                uint32_t material = part->material < mesh->material_count ? imported[part->material] : 0;
                m->parts[i] = (scene_part){part->first_triangle, part->triangle_count, {material}};
            }
        }
        m->part_count = (uint32_t)count;
    }
    sr_free(imported);
    return status;
}

void sr_scene_set_progress(sr_scene *scene, sr_progress_fn progress, void *user)
{
    if (!scene)
        return;
    scene->progress = progress;
    scene->progress_user = progress ? user : NULL;
}

/* Tells sr_scene_set_progress's callback how far the BVH build of mesh `name` is. */
static sr_status report_build(const sr_scene *scene, const char *name, double fraction, sr_error *err)
{
    if (!scene->progress)
        return SR_OK;
    char stage[200];
    snprintf(stage, sizeof stage, "building the BVH of mesh '%.150s'", name);
    if (!scene->progress(scene->progress_user, stage, fraction))
        return sr_error_set(err, SR_ERROR_CANCELLED, "mesh '%s': loading cancelled", name);
    return SR_OK;
}

sr_status sr_scene_build_mesh(sr_scene *scene, sr_mesh *mesh, const char *name, scene_mesh *out, sr_error *err)
{
    const char *label = name ? name : "mesh";
    *out = (scene_mesh){0};
    for (size_t i = 0; i < mesh->triangle_count * 3; i++)
        if (mesh->indices[i] >= mesh->vertex_count)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "mesh '%s': triangle %zu uses vertex %u of %zu", label,
                                i / 3, mesh->indices[i], mesh->vertex_count);
    char generated[32];
    snprintf(generated, sizeof generated, "mesh %u", scene->mesh_count + 1);
    scene_mesh m = {.mesh = mesh, .bounds = sr_mesh_bounds(mesh)};
    m.name = sr_scene_copy_string(name ? name : generated);
    sr_status status = m.name ? SR_OK : sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_add_mesh: out of memory");
    if (status == SR_OK && !mesh->normals)
        status = sr_mesh_compute_normals(mesh, err);
    if (status == SR_OK)
        status = sr_mesh_create_shader_vertices(mesh, NULL, &m.vertices, err);
    if (status == SR_OK)
        status = report_build(scene, m.name, 0.0, err);
    struct timespec before, after;
    clock_gettime(CLOCK_MONOTONIC, &before);
    if (status == SR_OK)
        status = sr_bvh_build_triangles(NULL,
                                        &(sr_bvh_triangles){.positions = &mesh->positions[0].x,
                                                            .position_stride = sizeof(sr_vec3),
                                                            .vertex_count = mesh->vertex_count,
                                                            .indices = mesh->indices,
                                                            .triangle_count = mesh->triangle_count},
                                        &m.bvh, err);
    clock_gettime(CLOCK_MONOTONIC, &after);
    scene->bvh_build_ms +=
        (double)(after.tv_sec - before.tv_sec) * 1e3 + (double)(after.tv_nsec - before.tv_nsec) * 1e-6;
    if (status == SR_OK)
        status = report_build(scene, m.name, 1.0, err);
    if (status == SR_OK)
        status = make_parts(scene, &m, err);
    if (status != SR_OK) {
        m.mesh = NULL; // the caller's still
        sr_scene_release_mesh(&m);
        return status;
    }
    *out = m;
    return SR_OK;
}

void sr_scene_release_mesh(scene_mesh *m)
{
    sr_free(m->name);
    sr_mesh_destroy(m->mesh);
    sr_bvh_destroy(m->bvh);
    sr_free(m->vertices);
    sr_free(m->parts);
    sr_hull_destroy(m->hull);
    sr_free(m->wire);
    *m = (scene_mesh){0};
}

sr_status sr_scene_add_mesh(sr_scene *scene, sr_mesh *mesh, const char *name, sr_mesh_id *out, sr_error *err)
{
    if (out)
        *out = (sr_mesh_id){0};
    if (!scene || !mesh) {
        sr_mesh_destroy(mesh);
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_add_mesh: %s is NULL", scene ? "mesh" : "scene");
    }
    if (scene->mesh_count == UINT32_MAX - 1 ||
        !sr_scene_grow((void **)&scene->meshes, &scene->mesh_capacity, scene->mesh_count + 1, sizeof *scene->meshes)) {
        sr_mesh_destroy(mesh);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_add_mesh: out of memory for mesh '%s'",
                            name ? name : "mesh");
    }
    scene_mesh m;
    sr_status status = sr_scene_build_mesh(scene, mesh, name, &m, err);
    if (status != SR_OK) {
        sr_mesh_destroy(mesh);
        return status;
    }
    scene->meshes[scene->mesh_count++] = m;
    if (out)
        *out = (sr_mesh_id){scene->mesh_count};
    return SR_OK;
}

static const scene_mesh *mesh_of(const sr_scene *scene, sr_mesh_id mesh)
{
    return scene && mesh.id >= 1 && mesh.id <= scene->mesh_count ? &scene->meshes[mesh.id - 1] : NULL;
}

const sr_mesh *sr_scene_mesh(const sr_scene *scene, sr_mesh_id mesh)
{
    const scene_mesh *m = mesh_of(scene, mesh);
    return m ? m->mesh : NULL;
}

const sr_bvh *sr_scene_mesh_bvh(const sr_scene *scene, sr_mesh_id mesh)
{
    const scene_mesh *m = mesh_of(scene, mesh);
    return m ? m->bvh : NULL;
}

const char *sr_scene_mesh_name(const sr_scene *scene, sr_mesh_id mesh)
{
    const scene_mesh *m = mesh_of(scene, mesh);
    return m ? m->name : NULL;
}

size_t sr_scene_mesh_count(const sr_scene *scene)
{
    return scene ? scene->mesh_count : 0;
}

size_t sr_scene_mesh_part_count(const sr_scene *scene, sr_mesh_id mesh)
{
    const scene_mesh *m = mesh_of(scene, mesh);
    return m ? m->part_count : 0;
}

sr_material_id sr_scene_mesh_part_material(const sr_scene *scene, sr_mesh_id mesh, size_t part)
{
    const scene_mesh *m = mesh_of(scene, mesh);
    return m && part < m->part_count ? m->parts[part].material : (sr_material_id){0};
}

sr_status sr_scene_set_mesh_part_material(sr_scene *scene, sr_mesh_id mesh, size_t part, sr_material_id material,
                                          sr_error *err)
{
    const scene_mesh *m = mesh_of(scene, mesh);
    if (!m)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_set_mesh_part_material: mesh id %u does not exist",
                            mesh.id);
    if (part >= m->part_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "mesh '%s': part %zu does not exist (it has %u)", m->name,
                            part, m->part_count);
    if (material.id > scene->material_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "mesh '%s': material id %u does not exist", m->name,
                            material.id);
    m->parts[part].material = material;
    return SR_OK;
}

/* ---- textures and materials ---- */

sr_status sr_scene_add_texture(sr_scene *scene, sr_texture *texture, const char *name, sr_texture_id *out,
                               sr_error *err)
{
    if (out)
        *out = (sr_texture_id){0};
    if (!scene || !texture) {
        sr_texture_destroy(texture);
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_add_texture: %s is NULL",
                            scene ? "texture" : "scene");
    }
    uint32_t capacity = scene->texture_capacity;
    char *copy = sr_scene_copy_string(name ? name : "texture");
    bool grown =
        copy && sr_scene_grow((void **)&scene->textures, &capacity, scene->texture_count + 1, sizeof *scene->textures);
    uint32_t names_capacity = scene->texture_capacity;
    grown = grown && sr_scene_grow((void **)&scene->texture_names, &names_capacity, scene->texture_count + 1,
                                   sizeof *scene->texture_names);
    if (!grown) {
        /* Both arrays may have grown to different capacities: keep the smaller as the truth. */
        scene->texture_capacity = capacity < names_capacity ? capacity : names_capacity;
        sr_free(copy);
        sr_texture_destroy(texture);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_add_texture: out of memory");
    }
    scene->texture_capacity = capacity < names_capacity ? capacity : names_capacity;
    scene->textures[scene->texture_count] = texture;
    scene->texture_names[scene->texture_count] = copy;
    scene->texture_count++;
    if (out)
        *out = (sr_texture_id){scene->texture_count};
    return SR_OK;
}

const sr_texture *sr_scene_texture(const sr_scene *scene, sr_texture_id texture)
{
    return scene && texture.id >= 1 && texture.id <= scene->texture_count ? scene->textures[texture.id - 1] : NULL;
}

static bool color_component_ok(float c)
{
    return c >= 0.0f && c <= 1.0f;
}

sr_status sr_scene_add_material(sr_scene *scene, const sr_material_desc *desc, sr_material_id *out, sr_error *err)
{
    if (out)
        *out = (sr_material_id){0};
    if (!scene || !desc)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_add_material: %s is NULL",
                            scene ? "desc" : "scene");
    sr_material_desc d = *desc;
    const char *label = d.name ? d.name : "material";
    if (d.base_color.x == 0.0f && d.base_color.y == 0.0f && d.base_color.z == 0.0f && d.base_color.w == 0.0f)
        d.base_color = default_material_desc.base_color;
    if (!color_component_ok(d.base_color.x) || !color_component_ok(d.base_color.y) ||
        !color_component_ok(d.base_color.z) || !color_component_ok(d.base_color.w))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "material '%s': base colour (%g, %g, %g, %g) has a component outside [0, 1]", label,
                            (double)d.base_color.x, (double)d.base_color.y, (double)d.base_color.z,
                            (double)d.base_color.w);
    if (d.texture.id > scene->texture_count)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "material '%s': texture id %u does not exist", label,
                            d.texture.id);
    if ((unsigned)d.cull > SR_CULL_FRONT || (unsigned)d.sampler.filter > SR_FILTER_BILINEAR ||
        (unsigned)d.sampler.wrap_u > SR_WRAP_CLAMP || (unsigned)d.sampler.wrap_v > SR_WRAP_CLAMP)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "material '%s': cull mode or sampler out of range", label);
    if (!sr_scene_grow((void **)&scene->materials, &scene->material_capacity, scene->material_count + 1,
                       sizeof *scene->materials))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_add_material: out of memory");
    char generated[32];
    snprintf(generated, sizeof generated, "material %u", scene->material_count + 1);
    char *name = sr_scene_copy_string(d.name ? d.name : generated);
    if (!name)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_add_material: out of memory");
    d.name = name;
    scene->materials[scene->material_count++] = (scene_material){name, d, d.base_color.w < 1.0f};
    if (out)
        *out = (sr_material_id){scene->material_count};
    return SR_OK;
}

static const scene_material *material_of(const sr_scene *scene, uint32_t id)
{
    return id >= 1 && id <= scene->material_count ? &scene->materials[id - 1] : &scene->default_material;
}

sr_material_desc sr_scene_material(const sr_scene *scene, sr_material_id material)
{
    return scene ? material_of(scene, material.id)->desc : default_material_desc;
}

sr_material_id sr_scene_find_material(const sr_scene *scene, const char *name)
{
    for (uint32_t i = 0; scene && name && i < scene->material_count; i++)
        if (strcmp(scene->materials[i].name, name) == 0)
            return (sr_material_id){i + 1};
    return (sr_material_id){0};
}

const scene_material *sr_scene_resolve_material(const sr_scene *scene, const scene_node *node, const scene_part *part)
{
    if (node->material)
        return material_of(scene, node->material);
    return material_of(scene, part->material.id);
}

sr_scene_totals sr_scene_get_totals(const sr_scene *scene)
{
    sr_scene_totals t = {0};
    if (!scene)
        return t;
    t.meshes = scene->mesh_count;
    t.textures = scene->texture_count;
    t.materials = scene->material_count;
    t.nodes = scene->live_count;
    t.bvh_build_ms = scene->bvh_build_ms;
    t.shapes = scene->shape_count;
    t.shape_meshes = scene->shape_mesh_count;
    for (uint32_t i = 0; i < scene->mesh_count; i++) {
        t.mesh_triangles += scene->meshes[i].mesh->triangle_count;
        t.bvh_nodes += scene->meshes[i].bvh->stats.node_count;
    }
    for (uint32_t i = 0; i < scene->slot_count; i++) {
        const scene_node *n = &scene->nodes[i];
        if ((n->flags & NODE_LIVE) && n->mesh) {
            t.instances++;
            t.instance_triangles += scene->meshes[n->mesh - 1].mesh->triangle_count;
        }
    }
    return t;
}

const sr_dynamic_tree *sr_scene_instance_tree(const sr_scene *scene)
{
    return scene ? scene->instances : NULL;
}

bool sr_scene_needs_update(const sr_scene *scene)
{
    return scene && scene->dirty;
}
