/* src/scene/scene_view.c — the model view of a scene (softrast/scene.h: sr_scene_bounds,
 * sr_scene_set_model_view): how a model viewer (f3d, MeshLab, Blender's "frame all") first shows
 * a model, a camera that frames everything from a three-quarter view, a headlight, and the
 * vertex colours of meshes that have them. The camera's geometry is camera.c's
 * (sr_camera_fit_box). Knows nothing of files or SDL. */
#include "scene_internal.h"

#include <math.h>

sr_aabb sr_scene_bounds(const sr_scene *scene)
{
    sr_aabb box = sr_aabb_empty();
    for (uint32_t i = 0; scene && i < scene->slot_count; i++) {
        const scene_node *n = &scene->nodes[i];
        if ((n->flags & NODE_LIVE) && !(n->flags & NODE_HIDDEN) && n->mesh && !sr_aabb_is_empty(n->world_aabb))
            box = sr_aabb_merge(box, n->world_aabb);
    }
    return box;
}

/* Whether the node draws a mesh with vertex colours and nothing else decides its colours: no
 * material of its own, and no triangle of its mesh with a material of the mesh's file. */
static bool shows_vertex_colours(const sr_scene *scene, const scene_node *n)
{
    if (!(n->flags & NODE_LIVE) || !n->mesh || n->material)
        return false;
    const scene_mesh *m = &scene->meshes[n->mesh - 1];
    if (!m->mesh->colors)
        return false;
    for (uint32_t p = 0; p < m->part_count; p++)
        if (m->parts[p].material.id)
            return false;
    return true;
}

sr_status sr_scene_set_model_view(sr_scene *scene, const sr_model_view_desc *desc, sr_error *err)
{
    if (!scene)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_set_model_view: scene is NULL");
    sr_model_view_desc d = desc ? *desc : (sr_model_view_desc){0};
    if (!sr_vec3_is_finite(d.up))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_set_model_view: up (%g, %g, %g) is not finite",
                            (double)d.up.x, (double)d.up.y, (double)d.up.z);
    sr_status status = sr_scene_update(scene, NULL, err);
    if (status != SR_OK)
        return status;
    sr_material_id colours = {0};
    for (uint32_t i = 0; i < scene->slot_count && status == SR_OK; i++) {
        scene_node *n = &scene->nodes[i];
        if (!shows_vertex_colours(scene, n))
            continue;
        if (!colours.id)
            status = sr_scene_add_material(scene,
                                           &(sr_material_desc){.name = "vertex colours",
                                                               .shader = &sr_shader_vertex_color_lit,
                                                               .base_color = {1.0f, 1.0f, 1.0f, 1.0f}},
                                           &colours, err);
        n->material = colours.id; // materials do not move nodes: nothing to update
    }
    if (status != SR_OK)
        return status;
    scene->camera = sr_camera_fit_box(sr_scene_bounds(scene), d.up, d.aspect);
    scene->light = sr_light_headlight();
    return SR_OK;
}
