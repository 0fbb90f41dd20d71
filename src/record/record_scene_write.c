/* src/record/record_scene_write.c — what the program's scene says that the file does not yet:
 * the meshes, materials and textures its nodes use (each written once, the first time it is
 * used; a mesh identical to one written before is the same stored mesh), and the STATE record of
 * a frame: nodes removed, nodes changed (only the floats whose bits changed, and the visibility
 * and material), nodes added (parents first), and the camera, light and background when they
 * changed; a keyframe writes the whole state. The recorder keeps a copy of each node as the
 * file has it (rec_node) to compare with. */
#include "record_scene.h"

#include <softrast/shaders.h>

#include <stdio.h>
#include <stdlib.h>

void rec_transform_bits(const sr_transform *t, uint32_t bits[10])
{
    const float f[10] = {t->translation.x, t->translation.y, t->translation.z, t->rotation.x, t->rotation.y,
                         t->rotation.z,    t->rotation.w,    t->scale.x,       t->scale.y,    t->scale.z};
    memcpy(bits, f, sizeof f);
}

sr_transform rec_bits_transform(const uint32_t bits[10])
{
    float f[10];
    memcpy(f, bits, sizeof f);
    sr_transform t;
    t.translation = sr_vec3_make(f[0], f[1], f[2]);
    t.rotation = (sr_quat){f[3], f[4], f[5], f[6]};
    t.scale = sr_vec3_make(f[7], f[8], f[9]);
    return t;
}

uint8_t *rec_record_finish(uint8_t *record, uint32_t type, uint8_t *end)
{
    size_t length = (size_t)(end - record) - REC_RECORD_HEAD;
    record[0] = (uint8_t)type;
    rec_put_u32(record + 1, (uint32_t)length);
    return rec_put_u32(end, rec_crc32c(0, record, REC_RECORD_HEAD + length));
}

static void forget_nodes(rec_scene_writer *w)
{
    for (uint32_t i = 0; i < w->node_count; i++) {
        sr_free(w->nodes[i].name);
        w->nodes[i] = (rec_node){0};
    }
    w->node_count = 0;
}

/* Forgets the source ids of a scene (another scene comes, or a failure): what was written stays
 * in the file, and is written again when used again. */
static void forget_definitions(rec_scene_writer *w)
{
    if (w->mesh_stored)
        memset(w->mesh_stored, 0, w->mesh_map_capacity * sizeof *w->mesh_stored);
    if (w->material_stored)
        memset(w->material_stored, 0, w->material_map_capacity * sizeof *w->material_stored);
    if (w->texture_stored)
        memset(w->texture_stored, 0, w->texture_map_capacity * sizeof *w->texture_stored);
    w->meshes_seen_count = 0;
    rec_shape_writer_forget(w);
}

void rec_scene_writer_free(rec_scene_writer *w)
{
    forget_nodes(w);
    rec_shape_writer_forget(w); // the hulls' bytes
    sr_free(w->nodes);
    sr_free(w->mesh_stored);
    sr_free(w->material_stored);
    sr_free(w->texture_stored);
    sr_free(w->meshes_seen);
    sr_free(w->view.scene_name);
    sr_free(w->removed);
    sr_free(w->changed);
    sr_free(w->added);
    sr_free(w->new_definitions);
    sr_free(w->shaped);
    sr_free(w->hulls);
    *w = (rec_scene_writer){0};
}

void rec_scene_write_failed(rec_scene_writer *w)
{
    // The definitions the frame wrote never reached the file, and the nodes' copies already say
    // what the frame said: forget everything, the next frame is a keyframe written from scratch.
    w->new_definition_count = 0;
    w->reset = true;
}

/* Grows a uint32 map indexed by source id to hold `id` (zero-filled). */
static bool grow_map(uint32_t **map, uint32_t *capacity, uint32_t id)
{
    if (id < *capacity)
        return true;
    uint32_t wanted = *capacity ? *capacity : 16;
    while (wanted <= id) {
        if (wanted > UINT32_MAX / 2)
            return false;
        wanted *= 2;
    }
    uint32_t *grown = sr_realloc(*map, (size_t)wanted * sizeof *grown);
    if (!grown)
        return false;
    memset(grown + *capacity, 0, (size_t)(wanted - *capacity) * sizeof *grown);
    *map = grown;
    *capacity = wanted;
    return true;
}

static bool grow_array(void **array, size_t *capacity, size_t needed, size_t size)
{
    return rec_grow(array, capacity, needed, size, 64);
}

static sr_status out_of_memory(sr_error *err, const char *what)
{
    return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_recorder_frame: out of memory %s", what);
}

/* Notes a definition written into `out` from `start` to its end. */
static bool note_definition(rec_scene_writer *w, uint32_t type, uint32_t id, size_t start, size_t end)
{
    if (!grow_array((void **)&w->new_definitions, &w->new_definition_capacity, w->new_definition_count + 1,
                    sizeof *w->new_definitions))
        return false;
    w->new_definitions[w->new_definition_count++] = (rec_definition){type, id, start, end - start};
    return true;
}

/* ---- definitions ---- */

static sr_status need_texture(rec_scene_writer *w, const sr_scene *scene, uint32_t id, rec_buffer *out,
                              sr_record_sizes *sizes, uint32_t *stored, sr_error *err)
{
    *stored = 0;
    const sr_texture *texture = id ? sr_scene_texture(scene, (sr_texture_id){id}) : NULL;
    if (!texture)
        return SR_OK;
    if (!grow_map(&w->texture_stored, &w->texture_map_capacity, id))
        return out_of_memory(err, "for the texture map");
    if (w->texture_stored[id]) {
        *stored = w->texture_stored[id];
        return SR_OK;
    }
    size_t texels = (size_t)texture->width * (size_t)texture->height;
    if (!rec_buffer_reserve(out, REC_RECORD_OVERHEAD + 3 * REC_VARINT_MAX + texels * 4))
        return out_of_memory(err, "for a texture");
    uint32_t number = ++w->next_texture;
    size_t start = out->size;
    uint8_t *record = out->data + start;
    uint8_t *p = record + REC_RECORD_HEAD;
    p = rec_put_varint(p, number);
    p = rec_put_varint(p, (uint32_t)texture->width);
    p = rec_put_varint(p, (uint32_t)texture->height);
    for (size_t i = 0; i < texels; i++)
        p = rec_put_u32(p, texture->texels[i]);
    p = rec_record_finish(record, REC_TEXTURE, p);
    out->size = (size_t)(p - out->data);
    if (!note_definition(w, REC_TEXTURE, number, start, out->size))
        return out_of_memory(err, "for the definitions");
    sizes->textures += out->size - start;
    w->texture_stored[id] = number;
    *stored = number;
    return SR_OK;
}

static sr_status need_material(rec_scene_writer *w, const sr_scene *scene, uint32_t id, rec_buffer *out,
                               sr_record_sizes *sizes, uint32_t *stored, sr_error *err)
{
    *stored = 0;
    if (id == 0)
        return SR_OK;
    if (!grow_map(&w->material_stored, &w->material_map_capacity, id))
        return out_of_memory(err, "for the material map");
    if (w->material_stored[id]) {
        *stored = w->material_stored[id];
        return SR_OK;
    }
    sr_material_desc desc = sr_scene_material(scene, (sr_material_id){id});
    uint32_t texture = 0;
    sr_status status = need_texture(w, scene, desc.texture.id, out, sizes, &texture, err);
    if (status != SR_OK)
        return status;
    const char *name = desc.name ? desc.name : "";
    const char *shader = desc.shader && desc.shader->name ? desc.shader->name : "";
    size_t name_length = strlen(name), shader_length = strlen(shader);
    if (!rec_buffer_reserve(out, REC_RECORD_OVERHEAD + 4 * REC_VARINT_MAX + name_length + shader_length + 16 + 4))
        return out_of_memory(err, "for a material");
    uint32_t number = ++w->next_material;
    size_t start = out->size;
    uint8_t *record = out->data + start;
    uint8_t *p = record + REC_RECORD_HEAD;
    p = rec_put_varint(p, number);
    p = rec_put_string(p, name, name_length);
    p = rec_put_string(p, shader, shader_length);
    p = rec_put_f32(p, desc.base_color.x);
    p = rec_put_f32(p, desc.base_color.y);
    p = rec_put_f32(p, desc.base_color.z);
    p = rec_put_f32(p, desc.base_color.w);
    p = rec_put_varint(p, texture);
    p = rec_put_u8(p, (uint32_t)desc.sampler.filter);
    p = rec_put_u8(p, (uint32_t)desc.sampler.wrap_u);
    p = rec_put_u8(p, (uint32_t)desc.sampler.wrap_v);
    p = rec_put_u8(p, (uint32_t)desc.cull);
    p = rec_record_finish(record, REC_MATERIAL, p);
    out->size = (size_t)(p - out->data);
    if (!note_definition(w, REC_MATERIAL, number, start, out->size))
        return out_of_memory(err, "for the definitions");
    sizes->materials += out->size - start;
    w->material_stored[id] = number;
    *stored = number;
    return SR_OK;
}

/* Everything that makes a mesh what it draws: geometry and its parts' stored materials. */
typedef struct mesh_view {
    const sr_mesh *mesh;
    size_t part_count;
    uint32_t part_material[64]; ///< stored ids of the first parts (the rest compared through the scene)
} mesh_view;

static uint64_t mesh_hash(const sr_mesh *mesh)
{
    uint32_t crc = 0;
    size_t n = mesh->vertex_count;
    crc = rec_crc32c(crc, mesh->positions, n * sizeof *mesh->positions);
    if (mesh->normals)
        crc = rec_crc32c(crc, mesh->normals, n * sizeof *mesh->normals);
    if (mesh->uvs)
        crc = rec_crc32c(crc, mesh->uvs, n * sizeof *mesh->uvs);
    if (mesh->colors)
        crc = rec_crc32c(crc, mesh->colors, n * sizeof *mesh->colors);
    crc = rec_crc32c(crc, mesh->indices, mesh->triangle_count * 3 * sizeof *mesh->indices);
    return (uint64_t)crc << 32 ^ (uint64_t)mesh->vertex_count * 0x9e3779b97f4a7c15u ^ mesh->triangle_count;
}

static bool same_array(const void *a, const void *b, size_t size)
{
    if (!a || !b)
        return a == b;
    return memcmp(a, b, size) == 0;
}

/* Whether source meshes `a` and `b` of `scene` draw the same (geometry, parts and their materials). */
static bool same_mesh(rec_scene_writer *w, const sr_scene *scene, uint32_t a, uint32_t b)
{
    const sr_mesh *ma = sr_scene_mesh(scene, (sr_mesh_id){a}), *mb = sr_scene_mesh(scene, (sr_mesh_id){b});
    if (!ma || !mb || ma->vertex_count != mb->vertex_count || ma->triangle_count != mb->triangle_count)
        return false;
    size_t n = ma->vertex_count;
    if (!same_array(ma->positions, mb->positions, n * sizeof(sr_vec3)) ||
        !same_array(ma->normals, mb->normals, n * sizeof(sr_vec3)) ||
        !same_array(ma->uvs, mb->uvs, n * sizeof(sr_vec2)) ||
        !same_array(ma->colors, mb->colors, n * sizeof(sr_vec4)) ||
        !same_array(ma->indices, mb->indices, ma->triangle_count * 3 * sizeof(uint32_t)))
        return false;
    size_t parts = sr_scene_mesh_part_count(scene, (sr_mesh_id){a});
    if (parts != sr_scene_mesh_part_count(scene, (sr_mesh_id){b}) || ma->part_count != mb->part_count)
        return false;
    for (size_t i = 0; i < ma->part_count; i++)
        if (ma->parts[i].first_triangle != mb->parts[i].first_triangle ||
            ma->parts[i].triangle_count != mb->parts[i].triangle_count)
            return false;
    for (size_t i = 0; i < parts; i++) {
        uint32_t pa = sr_scene_mesh_part_material(scene, (sr_mesh_id){a}, i).id;
        uint32_t pb = sr_scene_mesh_part_material(scene, (sr_mesh_id){b}, i).id;
        // Both materials are written by now (need_mesh writes them first): compare stored ids.
        uint32_t sa = pa < w->material_map_capacity ? w->material_stored[pa] : 0;
        uint32_t sb = pb < w->material_map_capacity ? w->material_stored[pb] : 0;
        if (pa != pb && sa != sb)
            return false;
    }
    return true;
}

static sr_status need_mesh(rec_scene_writer *w, const sr_scene *scene, uint32_t id, rec_buffer *out,
                           sr_record_sizes *sizes, uint32_t *stored, sr_error *err)
{
    *stored = 0;
    const sr_mesh *mesh = id ? sr_scene_mesh(scene, (sr_mesh_id){id}) : NULL;
    if (!mesh)
        return SR_OK;
    if (!grow_map(&w->mesh_stored, &w->mesh_map_capacity, id))
        return out_of_memory(err, "for the mesh map");
    if (w->mesh_stored[id]) {
        *stored = w->mesh_stored[id];
        return SR_OK;
    }
    // The parts' materials first, so that a reader has them when it reads the mesh.
    size_t parts = sr_scene_mesh_part_count(scene, (sr_mesh_id){id});
    for (size_t i = 0; i < parts; i++) {
        uint32_t material_stored = 0;
        sr_status status = need_material(w, scene, sr_scene_mesh_part_material(scene, (sr_mesh_id){id}, i).id, out,
                                         sizes, &material_stored, err);
        if (status != SR_OK)
            return status;
    }
    uint64_t hash = mesh_hash(mesh);
    for (size_t i = 0; i < w->meshes_seen_count; i++) {
        const rec_mesh_seen *seen = &w->meshes_seen[i];
        if (seen->hash == hash && same_mesh(w, scene, seen->source, id)) {
            w->mesh_stored[id] = seen->stored; // identical meshes are stored once
            *stored = seen->stored;
            return SR_OK;
        }
    }
    if (!grow_array((void **)&w->meshes_seen, &w->meshes_seen_capacity, w->meshes_seen_count + 1,
                    sizeof *w->meshes_seen))
        return out_of_memory(err, "for the mesh table");

    const char *name = sr_scene_mesh_name(scene, (sr_mesh_id){id});
    name = name ? name : "";
    size_t name_length = strlen(name), n = mesh->vertex_count, t = mesh->triangle_count;
    size_t bytes = REC_RECORD_OVERHEAD + 4 * REC_VARINT_MAX + name_length + 1 + n * (12 + 12 + 8 + 16) + t * 12 +
                   parts * 3 * REC_VARINT_MAX;
    if (!rec_buffer_reserve(out, bytes))
        return out_of_memory(err, "for a mesh");
    uint32_t number = ++w->next_mesh;
    size_t start = out->size;
    uint8_t *record = out->data + start;
    uint8_t *p = record + REC_RECORD_HEAD;
    p = rec_put_varint(p, number);
    p = rec_put_string(p, name, name_length);
    p = rec_put_varint(p, n);
    p = rec_put_u8(p, (mesh->normals ? 1u : 0u) | (mesh->uvs ? 2u : 0u) | (mesh->colors ? 4u : 0u));
    for (size_t i = 0; i < n; i++)
        p = rec_put_vec3(p, mesh->positions[i]);
    for (size_t i = 0; mesh->normals && i < n; i++)
        p = rec_put_vec3(p, mesh->normals[i]);
    for (size_t i = 0; mesh->uvs && i < n; i++) {
        p = rec_put_f32(p, mesh->uvs[i].x);
        p = rec_put_f32(p, mesh->uvs[i].y);
    }
    for (size_t i = 0; mesh->colors && i < n; i++) {
        p = rec_put_f32(p, mesh->colors[i].x);
        p = rec_put_f32(p, mesh->colors[i].y);
        p = rec_put_f32(p, mesh->colors[i].z);
        p = rec_put_f32(p, mesh->colors[i].w);
    }
    p = rec_put_varint(p, t);
    for (size_t i = 0; i < t * 3; i++)
        p = rec_put_u32(p, mesh->indices[i]);
    // Parts: ranges (as the mesh has them; none means one part of every triangle) and materials.
    p = rec_put_varint(p, mesh->part_count);
    for (size_t i = 0; i < mesh->part_count; i++) {
        p = rec_put_varint(p, mesh->parts[i].first_triangle);
        p = rec_put_varint(p, mesh->parts[i].triangle_count);
    }
    p = rec_put_varint(p, parts);
    for (size_t i = 0; i < parts; i++) {
        uint32_t material = sr_scene_mesh_part_material(scene, (sr_mesh_id){id}, i).id;
        p = rec_put_varint(p, material && material < w->material_map_capacity ? w->material_stored[material] : 0);
    }
    p = rec_record_finish(record, REC_MESH, p);
    out->size = (size_t)(p - out->data);
    if (!note_definition(w, REC_MESH, number, start, out->size))
        return out_of_memory(err, "for the definitions");
    sizes->meshes += out->size - start;
    w->meshes_seen[w->meshes_seen_count++] = (rec_mesh_seen){hash, id, number};
    w->mesh_stored[id] = number;
    *stored = number;
    return SR_OK;
}

/* ---- the view ---- */

#define CAMERA_BYTES 54u
#define LIGHT_BYTES 22u

static size_t encode_camera(uint8_t *p, bool present, const sr_camera *camera)
{
    uint8_t *start = p;
    p = rec_put_u8(p, present ? 1u : 0u);
    if (present) {
        p = rec_put_vec3(p, camera->eye);
        p = rec_put_vec3(p, camera->target);
        p = rec_put_vec3(p, camera->up);
        p = rec_put_u8(p, (uint32_t)camera->projection);
        p = rec_put_f32(p, camera->fov_y_degrees);
        p = rec_put_f32(p, camera->height);
        p = rec_put_f32(p, camera->near_z);
        p = rec_put_f32(p, camera->far_z);
    }
    return (size_t)(p - start);
}

static size_t encode_light(uint8_t *p, const sr_light *light)
{
    uint8_t *start = p;
    p = rec_put_vec3(p, light->direction);
    p = rec_put_f32(p, light->ambient);
    p = rec_put_f32(p, light->diffuse);
    p = rec_put_u8(p, (uint32_t)light->space);
    p = rec_put_u8(p, light->two_sided ? 1u : 0u);
    return (size_t)(p - start);
}

/* A section: tag, length, payload. */
static uint8_t *put_section(uint8_t *p, uint32_t tag, const uint8_t *payload, size_t size)
{
    p = rec_put_u8(p, tag);
    p = rec_put_varint(p, size);
    memcpy(p, payload, size);
    return p + size;
}

static size_t varint_size(uint64_t value)
{
    size_t size = 1;
    while (value >= 0x80)
        value >>= 7, size++;
    return size;
}

/* A node section's payload length, written once the payload is: five varint bytes whatever the
 * value (readers accept such padded varints), reserved before the payload. */
#define SECTION_LENGTH_BYTES 5u
static void fill_section_length(uint8_t *at, size_t size)
{
    for (int k = 0; k < 4; k++)
        at[k] = (uint8_t)(size >> (7 * k) | 0x80);
    at[4] = (uint8_t)(size >> 28 & 0x7f);
}

/* ---- nodes ---- */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static char *copy_string(const char *text)
{
    size_t length = strlen(text);
    char *copy = sr_alloc(length + 1);
    if (copy)
        memcpy(copy, text, length + 1);
    return copy;
}

/* The most bytes a node takes in the ADDED section. */
static size_t added_bound(const rec_node *n)
{
    return 5 * REC_VARINT_MAX + (n->name ? strlen(n->name) : 0) + REC_VARINT_MAX + 1 + 40;
}

static uint8_t *put_added(uint8_t *p, uint32_t slot, const rec_node *n)
{
    p = rec_put_varint(p, slot);
    p = rec_put_varint(p, n->generation);
    p = rec_put_varint(p, n->parent);
    const char *name = n->name ? n->name : "";
    p = rec_put_string(p, name, strlen(name));
    p = rec_put_varint(p, n->mesh);
    p = rec_put_varint(p, n->material);
    p = rec_put_u8(p, n->hidden ? 1u : 0u);
    for (int k = 0; k < 10; k++)
        p = rec_put_u32(p, n->transform[k]);
    return p;
}

/* Compares the program's scene with the nodes as the file has them, updating those and noting
 * the slots removed, changed (with their masks) and added. Writes the definitions the nodes need. */
static sr_status walk_nodes(rec_scene_writer *w, const sr_scene *scene, rec_buffer *out, sr_record_sizes *sizes,
                            size_t *removed_count, size_t *changed_count, size_t *added_count, size_t *shaped_count,
                            sr_error *err)
{
    *removed_count = *changed_count = *added_count = *shaped_count = 0;
    uint32_t slots = sr_scene_node_slots(scene);
    uint32_t total = slots > w->node_count ? slots : w->node_count;
    if (total > w->node_capacity) {
        size_t capacity = w->node_capacity;
        if (!grow_array((void **)&w->nodes, &capacity, total, sizeof *w->nodes))
            return out_of_memory(err, "for the nodes");
        memset(w->nodes + w->node_capacity, 0, (capacity - w->node_capacity) * sizeof *w->nodes);
        w->node_capacity = (uint32_t)capacity;
    }
    if (!grow_array((void **)&w->removed, &w->removed_capacity, total, sizeof *w->removed) ||
        !grow_array((void **)&w->changed, &w->changed_capacity, total, sizeof *w->changed) ||
        !grow_array((void **)&w->added, &w->added_capacity, total, sizeof *w->added) ||
        !grow_array((void **)&w->shaped, &w->shaped_capacity, total, sizeof *w->shaped))
        return out_of_memory(err, "for the node lists");
    w->node_count = total;

    for (uint32_t i = 0; i < total; i++) {
        rec_node *n = &w->nodes[i];
        sr_node_id id = i < slots ? sr_scene_node_at(scene, i) : SR_NODE_NULL;
        if (id.generation == 0) {
            if (n->generation) {
                w->removed[(*removed_count)++] = i;
                sr_free(n->name);
                *n = (rec_node){0};
            }
            continue;
        }
        sr_node_info info;
        if (sr_scene_node(scene, id, &info, NULL) != SR_OK)
            continue;
        uint32_t mesh = 0, material = 0;
        // A shape's mesh (one the scene made to draw it) is recorded as the node's for readers
        // of format 1.0, and flagged so that newer ones make it from the shape.
        bool mesh_from_shape = // asked of new nodes only: a node's recorded mesh never changes
            n->generation != id.generation && info.has_shape && rec_mesh_is_shape_mesh(scene, id, &info);
        sr_status status = need_mesh(w, scene, info.mesh.id, out, sizes, &mesh, err);
        if (status == SR_OK)
            status = need_material(w, scene, info.material.id, out, sizes, &material, err);
        if (status != SR_OK)
            return status;
        uint32_t transform[10];
        rec_transform_bits(&info.transform, transform);
        bool is_new = n->generation != id.generation;
        if (is_new) {
            if (n->generation)
                w->removed[(*removed_count)++] = i; // the slot was reused: its old node is gone
            char *name = copy_string(info.name ? info.name : "");
            if (!name)
                return out_of_memory(err, "for a node's name");
            sr_free(n->name);
            *n = (rec_node){.generation = id.generation,
                            .parent = info.parent.generation ? info.parent.index + 1 : 0,
                            .mesh = mesh,
                            .material = material,
                            .hidden = info.hidden,
                            .name = name,
                            .depth = info.depth,
                            .mesh_from_shape = mesh_from_shape};
            memcpy(n->transform, transform, sizeof transform);
            w->added[(*added_count)++] = (uint64_t)(uint32_t)info.depth << 32 | i;
        }
        bool shape_changed = false;
        status = rec_shape_note(w, scene, id, &info, n, out, sizes, &shape_changed, err);
        if (status != SR_OK)
            return status;
        if (shape_changed || (is_new && n->mesh_from_shape))
            w->shaped[(*shaped_count)++] = i;
        if (is_new)
            continue;
        uint32_t mask = 0;
        for (int k = 0; k < 10; k++)
            if (transform[k] != n->transform[k])
                mask |= 1u << k;
        if (info.hidden != n->hidden)
            mask |= REC_NODE_HIDDEN;
        if (material != n->material)
            mask |= REC_NODE_MATERIAL;
        if (mask) {
            w->changed[(*changed_count)++] = (uint64_t)i << 16 | mask;
            memcpy(n->transform, transform, sizeof transform);
            n->hidden = info.hidden;
            n->material = material;
        }
    }
    return SR_OK;
}

sr_status rec_scene_write(rec_scene_writer *w, const sr_scene *scene, const sr_camera *camera, uint64_t frame,
                          bool keyframe_due, rec_buffer *out, sr_record_sizes *sizes, rec_scene_written *written,
                          sr_error *err)
{
    *written = (rec_scene_written){0};
    w->new_definition_count = 0;
    bool keyframe = keyframe_due;
    if (w->reset) {
        forget_nodes(w);
        forget_definitions(w);
        w->scene = NULL;
        w->view_known = false;
        w->reset = false;
        keyframe = true;
    }
    if (scene && scene != w->scene) {
        // Another scene (or the first): its ids mean other things. Start the state afresh.
        forget_nodes(w);
        forget_definitions(w);
        w->scene = scene;
        keyframe = true;
        char *name = copy_string(sr_scene_name(scene));
        if (!name)
            return out_of_memory(err, "for the scene's name");
        sr_free(w->view.scene_name);
        w->view.scene_name = name;
        w->view.has_scene = true;
    }
    if (!w->view_known)
        keyframe = true;

    size_t removed = 0, changed = 0, added = 0, shaped = 0;
    if (scene) {
        sr_status status = walk_nodes(w, scene, out, sizes, &removed, &changed, &added, &shaped, err);
        if (status != SR_OK)
            return status;
    }
    // The view now: the program's camera, else the scene's, else what the file has.
    rec_view view = w->view;
    if (camera) {
        view.has_camera = true;
        view.camera = *camera;
    } else if (scene) {
        view.has_camera = true;
        view.camera = sr_scene_camera(scene);
    } else if (!w->scene) {
        view.has_camera = false;
    }
    if (scene) {
        view.has_light = view.has_background = true;
        view.light = sr_scene_light(scene);
        view.background = sr_scene_background(scene);
    }
    uint8_t camera_now[CAMERA_BYTES], camera_then[CAMERA_BYTES], light_now[LIGHT_BYTES], light_then[LIGHT_BYTES];
    size_t camera_size = encode_camera(camera_now, view.has_camera, &view.camera);
    bool camera_changed = !w->view_known ||
                          camera_size != encode_camera(camera_then, w->view.has_camera, &w->view.camera) ||
                          memcmp(camera_now, camera_then, camera_size) != 0;
    size_t light_size = view.has_light ? encode_light(light_now, &view.light) : 0;
    bool light_changed = view.has_light && (!w->view_known || !w->view.has_light ||
                                            encode_light(light_then, &w->view.light) != light_size ||
                                            memcmp(light_now, light_then, light_size) != 0);
    bool background_changed =
        view.has_background && (!w->view_known || !w->view.has_background || view.background != w->view.background);
    bool retained = view.has_camera || view.has_scene;

    if (keyframe) {
        // The whole state: every live node, parents first.
        added = 0;
        for (uint32_t i = 0; i < w->node_count; i++)
            if (w->nodes[i].generation)
                w->added[added++] = (uint64_t)(uint32_t)w->nodes[i].depth << 32 | i;
        removed = changed = 0;
        shaped = 0;
        for (uint32_t i = 0; i < w->node_count; i++)
            if (w->nodes[i].generation && (w->nodes[i].shape_size || w->nodes[i].mesh_from_shape))
                w->shaped[shaped++] = i;
        camera_changed = true;
        light_changed = view.has_light;
        background_changed = view.has_background;
    }
    w->view = view;
    w->view_known = true;
    bool anything = camera_changed || light_changed || background_changed || removed || changed || added || shaped;
    if (!retained || (!keyframe && !anything)) {
        written->has_scene = view.has_scene;
        return SR_OK;
    }
    rec_sort(w->added, added, sizeof *w->added, compare_u64);

    // The record's size, at most.
    size_t bound = REC_RECORD_OVERHEAD + REC_VARINT_MAX + 1 + 7 * (1 + REC_VARINT_MAX) + CAMERA_BYTES + LIGHT_BYTES +
                   4 + REC_VARINT_MAX + (view.scene_name ? strlen(view.scene_name) + REC_VARINT_MAX : 0) +
                   3 * REC_VARINT_MAX + removed * REC_VARINT_MAX + changed * (REC_VARINT_MAX + 2 + 40 + REC_VARINT_MAX);
    for (size_t i = 0; i < added; i++)
        bound += added_bound(&w->nodes[(uint32_t)w->added[i]]);
    bound += 1 + SECTION_LENGTH_BYTES + rec_shapes_bound(shaped);
    if (!rec_buffer_reserve(out, bound))
        return out_of_memory(err, "for the scene's state");

    size_t start = out->size;
    uint8_t *record = out->data + start;
    uint8_t *p = record + REC_RECORD_HEAD;
    p = rec_put_varint(p, frame);
    p = rec_put_u8(p, keyframe ? REC_STATE_KEYFRAME : 0u);
    uint8_t *views_start = p;
    if (camera_changed)
        p = put_section(p, REC_SECTION_CAMERA, camera_now, camera_size);
    if (light_changed)
        p = put_section(p, REC_SECTION_LIGHT, light_now, light_size);
    if (background_changed) {
        uint8_t bytes[4];
        rec_put_u32(bytes, view.background);
        p = put_section(p, REC_SECTION_BACKGROUND, bytes, 4);
    }
    if (keyframe && view.has_scene) {
        const char *name = view.scene_name ? view.scene_name : "";
        size_t length = strlen(name);
        p = rec_put_u8(p, REC_SECTION_SCENE);
        p = rec_put_varint(p, varint_size(length) + length);
        p = rec_put_string(p, name, length);
    }
    sizes->views += (uint64_t)(p - views_start);
    uint8_t *nodes_start = p;
    if (removed) {
        p = rec_put_u8(p, REC_SECTION_REMOVED);
        uint8_t *length_at = p;
        p += SECTION_LENGTH_BYTES;
        uint8_t *payload = p;
        p = rec_put_varint(p, removed);
        uint32_t previous = 0;
        for (size_t i = 0; i < removed; i++) {
            p = rec_put_varint(p, w->removed[i] - previous);
            previous = w->removed[i];
        }
        fill_section_length(length_at, (size_t)(p - payload));
    }
    if (changed) {
        p = rec_put_u8(p, REC_SECTION_CHANGED);
        uint8_t *length_at = p;
        p += SECTION_LENGTH_BYTES;
        uint8_t *payload = p;
        p = rec_put_varint(p, changed);
        uint32_t previous = 0;
        for (size_t i = 0; i < changed; i++) {
            uint32_t slot = (uint32_t)(w->changed[i] >> 16), mask = (uint32_t)(w->changed[i] & REC_NODE_KNOWN_BITS);
            const rec_node *n = &w->nodes[slot];
            p = rec_put_varint(p, slot - previous);
            previous = slot;
            p = rec_put_u16(p, mask);
            for (int k = 0; k < 10; k++)
                if (mask & 1u << k)
                    p = rec_put_u32(p, n->transform[k]);
            if (mask & REC_NODE_MATERIAL)
                p = rec_put_varint(p, n->material);
        }
        fill_section_length(length_at, (size_t)(p - payload));
    }
    if (added) {
        p = rec_put_u8(p, REC_SECTION_ADDED);
        uint8_t *length_at = p;
        p += SECTION_LENGTH_BYTES;
        uint8_t *payload = p;
        p = rec_put_varint(p, added);
        for (size_t i = 0; i < added; i++) {
            uint32_t slot = (uint32_t)w->added[i];
            p = put_added(p, slot, &w->nodes[slot]);
        }
        fill_section_length(length_at, (size_t)(p - payload));
    }
    size_t node_bytes = (size_t)(p - nodes_start), view_bytes = (size_t)(nodes_start - views_start);
    sizes->nodes += node_bytes;
    uint8_t *shapes_start = p;
    if (shaped) {
        // After ADDED: the entries name nodes that exist. Slots ascend (the walk's order).
        p = rec_put_u8(p, REC_SECTION_SHAPES);
        uint8_t *length_at = p;
        p += SECTION_LENGTH_BYTES;
        uint8_t *payload = p;
        p = rec_put_shapes(w, p, shaped);
        fill_section_length(length_at, (size_t)(p - payload));
    }
    size_t shape_bytes = (size_t)(p - shapes_start);
    sizes->shapes += shape_bytes;
    p = rec_record_finish(record, REC_STATE, p);
    out->size = (size_t)(p - out->data);
    sizes->framing += out->size - start - node_bytes - view_bytes - shape_bytes;
    written->state_offset = start;
    written->state_size = out->size - start;
    written->keyframe = keyframe;
    written->has_scene = view.has_scene;
    return SR_OK;
}
