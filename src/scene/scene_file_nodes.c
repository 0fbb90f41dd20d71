/* src/scene/scene_file_nodes.c — the "nodes" of scene files (sr_scene_load, scene_file.c reads
 * the rest): transforms, meshes and materials by name, children, "repeat" grids, and collision
 * shapes ("shape", in the SHAPE format of pairs files read by shape_json.c, and "draw"). Every
 * value is checked where it is read; a bad one stops the load with the file and its JSON path. */
#include "scene_file_internal.h"
#include "shape_json.h"

#include <stdio.h>
#include <string.h>

static sr_status read_transform(loader *l, const cJSON *item, const char *at, sr_transform *out)
{
    static const char *const keys[] = {"translation", "rotation", "euler", "scale", NULL};
    sr_status status = sr_json_expect_object(l, item, at);
    if (status == SR_OK)
        status = sr_json_check_keys(l, item, at, keys);
    sr_transform t = sr_transform_identity();
    if (status == SR_OK && cJSON_GetObjectItemCaseSensitive(item, "rotation") &&
        cJSON_GetObjectItemCaseSensitive(item, "euler"))
        return sr_json_fail(l, SR_ERROR_PARSE, at, "give \"rotation\" (a quaternion) or \"euler\" (degrees), not both");
    for (const cJSON *field = item->child; status == SR_OK && field; field = field->next) {
        char here[PATH_SIZE];
        sr_json_path_key(here, at, field->string);
        const char *key = field->string;
        if (strcmp(key, "translation") == 0) {
            status = sr_json_read_vec3(l, field, here, &t.translation);
        } else if (strcmp(key, "rotation") == 0) {
            float q[4];
            status = sr_json_read_numbers(l, field, here, 4, q);
            if (status == SR_OK && !(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 1e-12f))
                status = sr_json_fail(l, SR_ERROR_PARSE, here, "the quaternion [x, y, z, w] is zero");
            t.rotation = sr_quat_normalize((sr_quat){q[0], q[1], q[2], q[3]});
        } else if (strcmp(key, "euler") == 0) {
            sr_vec3 degrees;
            status = sr_json_read_vec3(l, field, here, &degrees);
            t.rotation = sr_quat_from_euler_degrees(degrees);
        } else if (cJSON_IsNumber(field)) {
            float s = 1.0f;
            status = sr_json_read_number(l, field, here, &s);
            t.scale = sr_vec3_splat(s);
            if (status == SR_OK && s == 0.0f)
                status = sr_json_fail(l, SR_ERROR_PARSE, here, "a scale of 0 flattens the node");
        } else {
            status = sr_json_read_vec3(l, field, here, &t.scale);
            const float s[3] = {t.scale.x, t.scale.y, t.scale.z};
            for (int k = 0; status == SR_OK && k < 3; k++)
                if (s[k] == 0.0f) {
                    char there[PATH_SIZE];
                    sr_json_path_index(there, here, k);
                    status = sr_json_fail(l, SR_ERROR_PARSE, there, "a scale of 0 flattens the node");
                }
        }
    }
    if (status == SR_OK)
        *out = t;
    return status;
}

static sr_status add_node(loader *l, const char *at, const sr_node_desc *desc, sr_node_id *out)
{
    sr_error cause = {0};
    if (sr_scene_add_node(l->scene, desc, out, &cause) != SR_OK)
        return sr_json_fail(l, cause.status, at, "%s", cause.message);
    return SR_OK;
}

/* A tiny deterministic generator for "repeat": the same file gives the same scene. */
static double repeat_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * 0x1p-53;
}

/* "repeat": the node becomes a group of count[0] x count[1] x count[2] instances on a grid. */
static sr_status read_repeat(loader *l, const cJSON *item, const char *at, const cJSON *meshes_item,
                             const char *meshes_at, sr_node_id group, const char *name, sr_material_id material,
                             bool hidden, const sr_node_shape_desc *shape)
{
    static const char *const keys[] = {"count", "spacing", "jitter", "random_rotation", "seed", NULL};
    sr_status status = sr_json_expect_object(l, item, at);
    if (status == SR_OK)
        status = sr_json_check_keys(l, item, at, keys);
    int count[3] = {1, 1, 1}, seed = 1;
    sr_vec3 spacing = {1, 1, 1};
    float jitter = 0.0f;
    bool random_rotation = false;
    for (const cJSON *field = item->child; status == SR_OK && field; field = field->next) {
        char here[PATH_SIZE];
        sr_json_path_key(here, at, field->string);
        const char *key = field->string;
        if (strcmp(key, "count") == 0) {
            if (!cJSON_IsArray(field) || cJSON_GetArraySize(field) != 3) {
                status = sr_json_fail(l, SR_ERROR_PARSE, here, "expected [nx, ny, nz]");
                break;
            }
            int k = 0;
            for (const cJSON *c = field->child; c && status == SR_OK; c = c->next, k++) {
                char there[PATH_SIZE];
                sr_json_path_index(there, here, k);
                status = sr_json_read_int(l, c, there, 1, REPEAT_MAX, &count[k]);
            }
        } else if (strcmp(key, "spacing") == 0) {
            status = sr_json_read_vec3(l, field, here, &spacing);
        } else if (strcmp(key, "jitter") == 0) {
            status = sr_json_read_ranged(l, field, here, 0.0, 1.0, &jitter);
        } else if (strcmp(key, "random_rotation") == 0) {
            status = sr_json_read_bool(l, field, here, &random_rotation);
        } else {
            status = sr_json_read_int(l, field, here, 0, 2000000000, &seed);
        }
    }
    if (status != SR_OK)
        return status;
    if ((uint64_t)count[0] * (uint64_t)count[1] * (uint64_t)count[2] > REPEAT_MAX)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "%d x %d x %d instances: more than %d", count[0], count[1], count[2],
                            REPEAT_MAX);
    // The meshes cycled through: one name or an array of names.
    uint32_t mesh_ids[64];
    int mesh_count = 0;
    if (cJSON_IsArray(meshes_item)) {
        int k = 0;
        for (const cJSON *m = meshes_item->child; m && status == SR_OK; m = m->next, k++) {
            char there[PATH_SIZE];
            sr_json_path_index(there, meshes_at, k);
            if (k >= 64)
                return sr_json_fail(l, SR_ERROR_PARSE, there, "at most 64 meshes per repeat");
            status = sr_json_table_find(l, &l->meshes, "mesh", m, there, &mesh_ids[mesh_count++]);
        }
        if (status == SR_OK && mesh_count == 0)
            return sr_json_fail(l, SR_ERROR_PARSE, meshes_at, "an empty list of meshes");
    } else if (meshes_item) {
        status = sr_json_table_find(l, &l->meshes, "mesh", meshes_item, meshes_at, &mesh_ids[0]);
        mesh_count = 1;
    } else if (!shape) {
        return sr_json_fail(l, SR_ERROR_PARSE, at, "a repeated node needs \"mesh\" or \"shape\"");
    }
    if (status != SR_OK)
        return status;
    uint64_t state = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    // Centred on the group's origin.
    sr_vec3 origin = {-0.5f * spacing.x * (float)(count[0] - 1), -0.5f * spacing.y * (float)(count[1] - 1),
                      -0.5f * spacing.z * (float)(count[2] - 1)};
    int index = 0;
    for (int k = 0; k < count[2]; k++)
        for (int j = 0; j < count[1]; j++)
            for (int i = 0; i < count[0]; i++, index++) {
                sr_vec3 offset = {(float)(repeat_random(&state) - 0.5) * jitter * spacing.x,
                                  (float)(repeat_random(&state) - 0.5) * jitter * spacing.y,
                                  (float)(repeat_random(&state) - 0.5) * jitter * spacing.z};
                float angle = (float)repeat_random(&state) * 360.0f;
                sr_transform t = sr_transform_identity();
                t.translation = sr_vec3_add(
                    origin, sr_vec3_add(sr_vec3_make(spacing.x * (float)i, spacing.y * (float)j, spacing.z * (float)k),
                                        offset));
                if (random_rotation)
                    t.rotation = sr_quat_from_euler_degrees(sr_vec3_make(0.0f, angle, 0.0f));
                char child_name[160];
                snprintf(child_name, sizeof child_name, "%s[%d]", name, index);
                sr_node_desc desc = {.name = child_name,
                                     .parent = group,
                                     .transform = t,
                                     .mesh = {mesh_count ? mesh_ids[index % mesh_count] : 0},
                                     .material = material,
                                     .hidden = hidden,
                                     .shape = shape};
                sr_node_id ignored;
                if ((status = add_node(l, at, &desc, &ignored)) != SR_OK)
                    return status;
            }
    return SR_OK;
}

static sr_status add_node_and_children(loader *l, const cJSON *item, const char *at, sr_node_id parent, int depth,
                                       const sr_node_desc *desc, const cJSON *repeat, const cJSON *mesh_item,
                                       const char *mesh_at);

/* A node's "shape" (and "draw", NULL when not given) into `desc`; what it read is kept in `json`
 * (the points of a hull) until the node is made. */
static sr_status read_shape(loader *l, const cJSON *item, const char *at, const cJSON *draw, const char *draw_at,
                            sr_node_shape_desc *desc, sr_shape_json *json)
{
    *desc = (sr_node_shape_desc){0};
    sr_json_place place = {l->file, l->err};
    sr_status status = sr_shape_json_read_kind(&place, item, at, SR_SHAPE_JSON_SCENE, json);
    if (status != SR_OK)
        return status;
    desc->shape = json->shape;
    if (json->mesh_name) {
        cJSON name = {.type = cJSON_String, .valuestring = (char *)json->mesh_name};
        status = sr_json_table_find(l, &l->meshes, "mesh", &name, json->mesh_at, &desc->hull_mesh.id);
    } else if (desc->shape.type == SR_SHAPE_HULL) {
        desc->hull_points = json->points;
        desc->hull_point_count = json->point_count;
    }
    if (status == SR_OK && draw) {
        static const char *const draws[] = {"default", "solid", "wire", "none", NULL};
        int which = 0;
        status = sr_json_read_choice(l, draw, draw_at, draws, &which);
        desc->draw = (sr_shape_draw)which;
    }
    if (status != SR_OK)
        sr_shape_json_release(json);
    return status;
}

static sr_status read_node(loader *l, const cJSON *item, const char *at, sr_node_id parent, int depth)
{
    static const char *const keys[] = {"name",   "mesh",   "material", "transform", "children",
                                       "hidden", "repeat", "shape",    "draw",      NULL};
    sr_status status = sr_json_expect_object(l, item, at);
    if (status == SR_OK)
        status = sr_json_check_keys(l, item, at, keys);
    if (status != SR_OK)
        return status;
    const cJSON *repeat = cJSON_GetObjectItemCaseSensitive(item, "repeat");
    const cJSON *mesh_item = cJSON_GetObjectItemCaseSensitive(item, "mesh");
    sr_node_desc desc = {.name = "", .parent = parent, .transform = sr_transform_identity()};
    char mesh_at[PATH_SIZE] = "";
    for (const cJSON *field = item->child; status == SR_OK && field; field = field->next) {
        char here[PATH_SIZE];
        sr_json_path_key(here, at, field->string);
        const char *key = field->string;
        if (strcmp(key, "name") == 0)
            status = sr_json_read_string(l, field, here, &desc.name);
        else if (strcmp(key, "mesh") == 0 && repeat)
            memcpy(mesh_at, here, sizeof mesh_at); // read by read_repeat
        else if (strcmp(key, "mesh") == 0)
            status = sr_json_table_find(l, &l->meshes, "mesh", field, here, &desc.mesh.id);
        else if (strcmp(key, "material") == 0)
            status = sr_json_table_find(l, &l->materials, "material", field, here, &desc.material.id);
        else if (strcmp(key, "transform") == 0)
            status = read_transform(l, field, here, &desc.transform);
        else if (strcmp(key, "hidden") == 0)
            status = sr_json_read_bool(l, field, here, &desc.hidden);
    }
    if (status != SR_OK)
        return status;
    const cJSON *shape_item = cJSON_GetObjectItemCaseSensitive(item, "shape");
    const cJSON *draw_item = cJSON_GetObjectItemCaseSensitive(item, "draw");
    char shape_at[PATH_SIZE], draw_at[PATH_SIZE];
    sr_json_path_key(shape_at, at, "shape");
    sr_json_path_key(draw_at, at, "draw");
    if (draw_item && !shape_item)
        return sr_json_fail(l, SR_ERROR_PARSE, draw_at, "says how a node's shape is drawn, but the node has no \"shape\"");
    sr_node_shape_desc shape = {0};
    sr_shape_json json = {0};
    if (shape_item) {
        if (!sr_scene_scale_is_one(desc.transform.scale)) {
            char here[PATH_SIZE];
            sr_json_path_key(here, at, "transform.scale");
            return sr_json_fail(l, SR_ERROR_PARSE, here,
                                "node '%s' has a shape, and a node with a shape takes no scale (give the shape the "
                                "size instead)",
                                desc.name);
        }
        if ((status = read_shape(l, shape_item, shape_at, draw_item, draw_at, &shape, &json)) != SR_OK)
            return status;
        desc.shape = &shape;
    }
    status = add_node_and_children(l, item, at, parent, depth, &desc, repeat, mesh_item, mesh_at);
    sr_shape_json_release(&json);
    return status;
}

/* Adds the node of `desc` (a group of repeated ones, with "repeat") and its children. */
static sr_status add_node_and_children(loader *l, const cJSON *item, const char *at, sr_node_id parent, int depth,
                                       const sr_node_desc *desc, const cJSON *repeat, const cJSON *mesh_item,
                                       const char *mesh_at)
{
    sr_status status = SR_OK;
    const cJSON *children = cJSON_GetObjectItemCaseSensitive(item, "children");
    if (repeat && children)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "\"repeat\" and \"children\" cannot be combined");
    if (repeat) {
        sr_node_id group;
        sr_node_desc group_desc = {.name = desc->name, .parent = parent, .transform = desc->transform};
        char repeat_at[PATH_SIZE];
        sr_json_path_key(repeat_at, at, "repeat");
        if ((status = add_node(l, at, &group_desc, &group)) != SR_OK)
            return status;
        return read_repeat(l, repeat, repeat_at, mesh_item, mesh_at, group, desc->name, desc->material, desc->hidden,
                           desc->shape);
    }
    sr_node_id node;
    if ((status = add_node(l, at, desc, &node)) != SR_OK)
        return status;
    if (children) {
        char here[PATH_SIZE];
        sr_json_path_key(here, at, "children");
        if (depth + 1 >= SCENE_MAX_DEPTH)
            return sr_json_fail(l, SR_ERROR_PARSE, here, "nodes nested deeper than %d levels", SCENE_MAX_DEPTH);
        return sr_scene_file_read_nodes(l, children, here, node, depth + 1);
    }
    return SR_OK;
}

sr_status sr_scene_file_read_nodes(loader *l, const cJSON *item, const char *at, sr_node_id parent, int depth)
{
    if (!cJSON_IsArray(item))
        return sr_json_fail(l, SR_ERROR_PARSE, at, "expected an array of nodes, found %s", sr_json_type_name(item));
    int i = 0;
    for (const cJSON *element = item->child; element; element = element->next, i++) {
        char here[PATH_SIZE];
        sr_json_path_index(here, at, i);
        sr_status status = read_node(l, element, here, parent, depth);
        if (status != SR_OK)
            return status;
    }
    return SR_OK;
}

