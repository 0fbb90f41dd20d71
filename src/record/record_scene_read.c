/* src/record/record_scene_read.c — the recorded scene at a frame: the state (nodes as the file
 * has them, sorted by their source slot; the camera, light, background) that STATE records build
 * from a keyframe on, and the sr_scene made to match it. The scene is one object for the whole
 * playback: a sync removes the nodes that no longer exist, sets what changed on the others and
 * adds the new ones (parents first), loading the meshes, materials and textures they use from
 * their definition records the first time. Nodes keep their handles while they live, so a viewer's
 * selection survives seeking. Everything read from the file is checked: counts against the bytes
 * left, slots against the nodes that exist, parents against cycles. */
#include "record_scene.h"

#include <softrast/shaders.h>

#include <stdio.h>
#include <stdlib.h>

static bool grow(void **array, size_t *capacity, size_t needed, size_t size)
{
    return rec_grow(array, capacity, needed, size, 64);
}

void rec_scene_reader_clear_state(rec_scene_reader *r)
{
    for (size_t i = 0; i < r->target_count; i++)
        sr_free(r->targets[i].node.name);
    r->target_count = 0;
    sr_free(r->view.scene_name);
    r->view = (rec_view){0};
}

void rec_scene_reader_free(rec_scene_reader *r)
{
    rec_scene_reader_clear_state(r);
    sr_free(r->targets);
    sr_scene_destroy(r->scene);
    sr_free(r->built);
    sr_free(r->source_of);
    sr_free(r->meshes);
    sr_free(r->materials);
    sr_free(r->textures);
    sr_free(r->order);
    sr_free(r->fresh);
    rec_shape_reader_free(r); // after the scene, whose shapes point to the hulls
    *r = (rec_scene_reader){0};
}

size_t rec_scene_reader_bytes(const rec_scene_reader *r)
{
    size_t bytes = r->target_capacity * sizeof *r->targets + r->built_capacity * sizeof *r->built +
                   r->source_capacity * sizeof *r->source_of + r->order_capacity * sizeof *r->order +
                   r->fresh_capacity * sizeof *r->fresh + rec_shape_reader_bytes(r);
    if (r->scene) {
        sr_scene_totals totals = sr_scene_get_totals(r->scene);
        for (uint32_t m = 1; m <= totals.meshes; m++) {
            const sr_mesh *mesh = sr_scene_mesh(r->scene, (sr_mesh_id){m});
            if (mesh)
                bytes += mesh->vertex_count * (sizeof(sr_vec3) * 2 + sizeof(sr_vec2) + sizeof(sr_vec4) + 48) +
                         mesh->triangle_count * (12 + 32);
        }
        for (uint32_t t = 1; t <= totals.textures; t++) {
            const sr_texture *texture = sr_scene_texture(r->scene, (sr_texture_id){t});
            if (texture)
                bytes += (size_t)texture->width * (size_t)texture->height * 4;
        }
    }
    return bytes;
}

/* The index of the target in `slot`, or -1. */
static ptrdiff_t find_target(const rec_scene_reader *r, uint32_t slot)
{
    size_t low = 0, high = r->target_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (r->targets[middle].slot < slot)
            low = middle + 1;
        else
            high = middle;
    }
    return low < r->target_count && r->targets[low].slot == slot ? (ptrdiff_t)low : -1;
}

static ptrdiff_t find_built(const rec_built *built, size_t count, uint32_t slot)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (built[middle].slot < slot)
            low = middle + 1;
        else
            high = middle;
    }
    return low < count && built[low].slot == slot ? (ptrdiff_t)low : -1;
}

static int compare_targets(const void *a, const void *b)
{
    uint32_t x = ((const rec_target *)a)->slot, y = ((const rec_target *)b)->slot;
    return x < y ? -1 : x > y;
}

static int compare_built(const void *a, const void *b)
{
    uint32_t x = ((const rec_built *)a)->slot, y = ((const rec_built *)b)->slot;
    return x < y ? -1 : x > y;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static char *copy_bytes(const char *bytes, size_t length)
{
    char *copy = sr_alloc(length + 1);
    if (copy) {
        if (length)
            memcpy(copy, bytes, length);
        copy[length] = '\0';
    }
    return copy;
}

/* Drops the targets marked dead (generation 0), keeping the order. */
static void compact_targets(rec_scene_reader *r)
{
    size_t kept = 0;
    for (size_t i = 0; i < r->target_count; i++)
        if (r->targets[i].node.generation)
            r->targets[kept++] = r->targets[i];
    r->target_count = kept;
}

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        snprintf(what, what_size, __VA_ARGS__);                                                                        \
        return SR_ERROR_PARSE;                                                                                         \
    } while (0)

static sr_status apply_removed(rec_scene_reader *r, rec_cursor *c, char *what, size_t what_size)
{
    size_t count = (size_t)rec_get_count(c, rec_left(c));
    uint64_t slot = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t delta = rec_get_varint(c);
        slot = i == 0 ? delta : slot + delta;
        ptrdiff_t at = slot <= UINT32_MAX ? find_target(r, (uint32_t)slot) : -1;
        if (c->bad)
            FAIL("the removed nodes are cut short");
        if (at < 0 || !r->targets[at].node.generation)
            FAIL("removes node slot %llu, which holds no node", (unsigned long long)slot);
        sr_free(r->targets[at].node.name);
        r->targets[at].node = (rec_node){0};
    }
    compact_targets(r);
    return SR_OK;
}

static sr_status apply_changed(rec_scene_reader *r, rec_cursor *c, char *what, size_t what_size)
{
    size_t count = (size_t)rec_get_count(c, rec_left(c) / 3);
    uint64_t slot = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t delta = rec_get_varint(c);
        slot = i == 0 ? delta : slot + delta;
        uint32_t mask = rec_get_u16(c);
        ptrdiff_t at = slot <= UINT32_MAX ? find_target(r, (uint32_t)slot) : -1;
        if (c->bad)
            FAIL("the changed nodes are cut short");
        if (at < 0)
            FAIL("changes node slot %llu, which holds no node", (unsigned long long)slot);
        if (mask & ~(uint32_t)REC_NODE_KNOWN_BITS)
            FAIL("node slot %llu: unknown change bits 0x%x", (unsigned long long)slot, mask);
        rec_node *n = &r->targets[at].node;
        for (int k = 0; k < REC_NODE_TRANSFORM_BITS; k++)
            if (mask & 1u << k)
                n->transform[k] = rec_get_u32(c);
        if (mask & REC_NODE_HIDDEN)
            n->hidden = !n->hidden;
        if (mask & REC_NODE_MATERIAL)
            n->material = (uint32_t)rec_get_count(c, UINT32_MAX);
        if (c->bad)
            FAIL("node slot %llu: its changes are cut short", (unsigned long long)slot);
    }
    return SR_OK;
}

/* The fewest bytes of an added node: slot, generation, parent, name, mesh, material (1 each),
 * hidden, transform. */
#define ADDED_MIN_BYTES (6u + 1u + 40u)

static sr_status apply_added(rec_scene_reader *r, rec_cursor *c, char *what, size_t what_size)
{
    size_t count = (size_t)rec_get_count(c, rec_left(c) / ADDED_MIN_BYTES);
    if (!grow((void **)&r->targets, &r->target_capacity, r->target_count + count, sizeof *r->targets))
        FAIL("out of memory for %zu nodes", r->target_count + count);
    size_t old = r->target_count;
    for (size_t i = 0; i < count; i++) {
        rec_node n = {0};
        uint64_t slot = rec_get_varint(c);
        n.generation = (uint32_t)rec_get_count(c, UINT32_MAX);
        n.parent = (uint32_t)rec_get_count(c, UINT32_MAX);
        size_t name_length = 0;
        const char *name = rec_get_string(c, rec_left(c), &name_length);
        n.mesh = (uint32_t)rec_get_count(c, UINT32_MAX);
        n.material = (uint32_t)rec_get_count(c, UINT32_MAX);
        uint32_t hidden = rec_get_u8(c);
        for (int k = 0; k < 10; k++)
            n.transform[k] = rec_get_u32(c);
        if (c->bad || !name) {
            r->target_count = old + i;
            FAIL("the added nodes are cut short");
        }
        if (slot >= UINT32_MAX || n.generation == 0 || hidden > 1) {
            r->target_count = old + i;
            FAIL("added node %zu has slot %llu, generation %u, hidden %u", i, (unsigned long long)slot, n.generation,
                 hidden);
        }
        n.hidden = hidden != 0;
        n.name = copy_bytes(name, name_length);
        if (!n.name) {
            r->target_count = old + i;
            FAIL("out of memory for a node's name");
        }
        r->targets[old + i] = (rec_target){(uint32_t)slot, n};
    }
    r->target_count = old + count;
    rec_sort(r->targets, r->target_count, sizeof *r->targets, compare_targets);
    for (size_t i = 1; i < r->target_count; i++)
        if (r->targets[i].slot == r->targets[i - 1].slot)
            FAIL("adds a node in slot %u, which holds one already", r->targets[i].slot);
    return SR_OK;
}

static sr_status apply_camera(rec_scene_reader *r, rec_cursor *c, char *what, size_t what_size)
{
    uint32_t present = rec_get_u8(c);
    if (present == 0) {
        r->view.has_camera = false;
        return c->bad ? SR_ERROR_PARSE : SR_OK;
    }
    sr_camera camera = {0};
    camera.eye = rec_get_vec3(c);
    camera.target = rec_get_vec3(c);
    camera.up = rec_get_vec3(c);
    uint32_t projection = rec_get_u8(c);
    camera.fov_y_degrees = rec_get_f32(c);
    camera.height = rec_get_f32(c);
    camera.near_z = rec_get_f32(c);
    camera.far_z = rec_get_f32(c);
    if (c->bad || present != 1 || projection > SR_PROJECTION_ORTHOGRAPHIC)
        FAIL("the camera is malformed");
    camera.projection = (sr_projection)projection;
    r->view.has_camera = true;
    r->view.camera = camera;
    return SR_OK;
}

static sr_status apply_light(rec_scene_reader *r, rec_cursor *c, char *what, size_t what_size)
{
    sr_light light = {0};
    light.direction = rec_get_vec3(c);
    light.ambient = rec_get_f32(c);
    light.diffuse = rec_get_f32(c);
    uint32_t space = rec_get_u8(c), two_sided = rec_get_u8(c);
    if (c->bad || space > SR_LIGHT_CAMERA || two_sided > 1)
        FAIL("the light is malformed");
    light.space = (sr_light_space)space;
    light.two_sided = two_sided != 0;
    r->view.has_light = true;
    r->view.light = light;
    return SR_OK;
}

sr_status rec_state_apply(rec_scene_reader *r, const uint8_t *payload, size_t size, uint64_t frame, char *what,
                          size_t what_size)
{
    rec_cursor c = rec_cursor_make(payload, size);
    uint64_t recorded = rec_get_varint(&c);
    uint32_t flags = rec_get_u8(&c);
    if (c.bad)
        FAIL("the state record is cut short");
    if (recorded != frame)
        FAIL("the state record says it is of frame %llu", (unsigned long long)recorded);
    if (flags & REC_STATE_KEYFRAME)
        rec_scene_reader_clear_state(r);
    while (rec_left(&c)) {
        uint32_t tag = rec_get_u8(&c);
        size_t length = (size_t)rec_get_count(&c, rec_left(&c));
        const uint8_t *bytes = rec_take(&c, length);
        if (!bytes)
            FAIL("a section of the state record is cut short");
        rec_cursor section = rec_cursor_make(bytes, length);
        sr_status status = SR_OK;
        switch (tag) {
        case REC_SECTION_CAMERA:
            status = apply_camera(r, &section, what, what_size);
            break;
        case REC_SECTION_LIGHT:
            status = apply_light(r, &section, what, what_size);
            break;
        case REC_SECTION_BACKGROUND:
            r->view.background = rec_get_u32(&section);
            r->view.has_background = true;
            break;
        case REC_SECTION_SCENE: {
            size_t name_length = 0;
            const char *name = rec_get_string(&section, length, &name_length);
            char *copy = name ? copy_bytes(name, name_length) : NULL;
            if (!copy)
                FAIL("the scene's name is malformed");
            sr_free(r->view.scene_name);
            r->view.scene_name = copy;
            r->view.has_scene = true;
            break;
        }
        case REC_SECTION_REMOVED:
            status = apply_removed(r, &section, what, what_size);
            break;
        case REC_SECTION_CHANGED:
            status = apply_changed(r, &section, what, what_size);
            break;
        case REC_SECTION_ADDED:
            status = apply_added(r, &section, what, what_size);
            break;
        case REC_SECTION_SHAPES:
            status = rec_apply_shapes(r, &section, what, what_size);
            break;
        default:
            break; // a newer minor version's section
        }
        if (status != SR_OK)
            return status;
        if (section.bad)
            FAIL("section %u of the state record is malformed", tag);
    }
    return SR_OK;
}

#undef FAIL

/* ---- definitions into the scene ---- */

static uint32_t loaded_id(const rec_loaded *loaded, size_t count, uint32_t stored)
{
    for (size_t i = 0; i < count; i++)
        if (loaded[i].stored == stored)
            return loaded[i].id;
    return 0;
}

static bool note_loaded(rec_loaded **loaded, size_t *count, size_t *capacity, uint32_t stored, uint32_t id)
{
    if (!grow((void **)loaded, capacity, *count + 1, sizeof **loaded))
        return false;
    (*loaded)[(*count)++] = (rec_loaded){stored, id};
    return true;
}

static sr_status malformed(sr_error *err, const char *what, uint32_t id)
{
    return sr_error_set(err, SR_ERROR_PARSE, "the definition of %s %u is malformed", what, id);
}

/* A definition the scene refused (SR_ERROR_INVALID_ARGUMENT: values no program could have
 * recorded) is a damaged file. */
static sr_status refused(sr_error *err, const char *what, uint32_t id)
{
    if (!err)
        return SR_ERROR_PARSE;
    char reason[sizeof err->message];
    snprintf(reason, sizeof reason, "%s", err->message);
    return sr_error_set(err, SR_ERROR_PARSE, "%s %u of the recording is refused: %s", what, id, reason);
}

static sr_status load_texture(rec_scene_reader *r, uint32_t stored, uint32_t *out, sr_error *err)
{
    *out = 0;
    if (!stored)
        return SR_OK;
    if ((*out = loaded_id(r->textures, r->texture_count, stored)) != 0)
        return SR_OK;
    const uint8_t *payload;
    size_t size;
    sr_status status = r->read(r->user, REC_TEXTURE, stored, &payload, &size, err);
    if (status != SR_OK)
        return status;
    rec_cursor c = rec_cursor_make(payload, size);
    uint64_t id = rec_get_varint(&c), width = rec_get_varint(&c), height = rec_get_varint(&c);
    if (c.bad || id != stored || width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE ||
        width * height > rec_left(&c) / 4)
        return malformed(err, "texture", stored);
    sr_texture *texture = NULL;
    status = sr_texture_create(&(sr_texture_desc){.width = (int)width, .height = (int)height}, &texture, err);
    if (status != SR_OK)
        return status;
    for (size_t i = 0; i < width * height; i++)
        texture->texels[i] = rec_get_u32(&c);
    sr_texture_id texture_id;
    status = sr_scene_add_texture(r->scene, texture, NULL, &texture_id, err);
    if (status != SR_OK)
        return status;
    if (!note_loaded(&r->textures, &r->texture_count, &r->texture_capacity, stored, texture_id.id))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory loading texture %u", stored);
    *out = texture_id.id;
    return SR_OK;
}

static sr_status load_material(rec_scene_reader *r, uint32_t stored, uint32_t *out, sr_error *err)
{
    *out = 0;
    if (!stored)
        return SR_OK;
    if ((*out = loaded_id(r->materials, r->material_count, stored)) != 0)
        return SR_OK;
    const uint8_t *payload;
    size_t size;
    sr_status status = r->read(r->user, REC_MATERIAL, stored, &payload, &size, err);
    if (status != SR_OK)
        return status;
    rec_cursor c = rec_cursor_make(payload, size);
    uint64_t id = rec_get_varint(&c);
    size_t name_length = 0, shader_length = 0;
    const char *name = rec_get_string(&c, size, &name_length);
    const char *shader = rec_get_string(&c, size, &shader_length);
    sr_material_desc desc = {0};
    desc.base_color.x = rec_get_f32(&c);
    desc.base_color.y = rec_get_f32(&c);
    desc.base_color.z = rec_get_f32(&c);
    desc.base_color.w = rec_get_f32(&c);
    uint32_t texture_stored = (uint32_t)rec_get_count(&c, UINT32_MAX);
    uint32_t filter = rec_get_u8(&c), wrap_u = rec_get_u8(&c), wrap_v = rec_get_u8(&c), cull = rec_get_u8(&c);
    if (c.bad || id != stored || !name || !shader || filter > SR_FILTER_BILINEAR || wrap_u > SR_WRAP_CLAMP ||
        wrap_v > SR_WRAP_CLAMP || cull > SR_CULL_FRONT)
        return malformed(err, "material", stored);
    // Copies: the payload belongs to the reader's buffer, which the texture's read reuses.
    char *name_copy = copy_bytes(name, name_length), *shader_copy = copy_bytes(shader, shader_length);
    if (!name_copy || !shader_copy) {
        sr_free(name_copy);
        sr_free(shader_copy);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory loading material %u", stored);
    }
    uint32_t texture = 0;
    status = load_texture(r, texture_stored, &texture, err);
    if (status == SR_OK) {
        desc.name = name_copy;
        desc.shader = shader_length ? sr_shader_find(shader_copy) : NULL; // unknown: the default
        desc.texture = (sr_texture_id){texture};
        desc.sampler = (sr_sampler){(sr_filter)filter, (sr_wrap)wrap_u, (sr_wrap)wrap_v};
        desc.cull = (sr_cull_mode)cull;
        sr_material_id material;
        status = sr_scene_add_material(r->scene, &desc, &material, err);
        if (status == SR_OK &&
            !note_loaded(&r->materials, &r->material_count, &r->material_capacity, stored, material.id))
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory loading material %u", stored);
        if (status == SR_OK)
            *out = material.id;
        else if (status == SR_ERROR_INVALID_ARGUMENT)
            status = refused(err, "material", stored);
    }
    sr_free(name_copy);
    sr_free(shader_copy);
    return status;
}

static sr_status load_mesh(rec_scene_reader *r, uint32_t stored, uint32_t *out, sr_error *err)
{
    *out = 0;
    if (!stored)
        return SR_OK;
    if ((*out = loaded_id(r->meshes, r->mesh_count, stored)) != 0)
        return SR_OK;
    const uint8_t *payload;
    size_t size;
    sr_status status = r->read(r->user, REC_MESH, stored, &payload, &size, err);
    if (status != SR_OK)
        return status;
    rec_cursor c = rec_cursor_make(payload, size);
    uint64_t id = rec_get_varint(&c);
    size_t name_length = 0;
    const char *name = rec_get_string(&c, size, &name_length);
    size_t n = (size_t)rec_get_count(&c, rec_left(&c) / 12);
    uint32_t attributes = rec_get_u8(&c);
    if (c.bad || id != stored || !name || attributes > 7)
        return malformed(err, "mesh", stored);
    char *name_copy = copy_bytes(name, name_length);
    if (!name_copy)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory loading mesh %u", stored);
    sr_mesh *mesh = NULL;
    // The counts are checked against the bytes left before anything of their size is allocated.
    size_t per_vertex = 12 + ((attributes & 1) ? 12 : 0) + ((attributes & 2) ? 8 : 0) + ((attributes & 4) ? 16 : 0);
    if (n > rec_left(&c) / per_vertex) {
        sr_free(name_copy);
        return malformed(err, "mesh", stored);
    }
    const uint8_t *vertices = rec_take(&c, n * per_vertex);
    size_t t = (size_t)rec_get_count(&c, rec_left(&c) / 12);
    const uint8_t *indices = rec_take(&c, t * 12);
    size_t ranges = (size_t)rec_get_count(&c, rec_left(&c) / 2);
    const uint8_t *range_bytes = c.p;
    for (size_t i = 0; i < 2 * ranges; i++)
        rec_get_varint(&c);
    size_t parts = (size_t)rec_get_count(&c, rec_left(&c));
    if (c.bad || parts != (ranges ? ranges : 1)) {
        sr_free(name_copy);
        return malformed(err, "mesh", stored);
    }
    uint32_t *part_stored = sr_alloc_array(parts, sizeof *part_stored);
    status = part_stored ? sr_mesh_create(&(sr_mesh_desc){.vertex_count = n,
                                                          .triangle_count = t,
                                                          .normals = attributes & 1,
                                                          .uvs = (attributes & 2) != 0,
                                                          .colors = (attributes & 4) != 0},
                                          &mesh, err)
                         : sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory loading mesh %u", stored);
    if (status == SR_OK && ranges) {
        mesh->parts = sr_alloc_array(ranges, sizeof *mesh->parts);
        if (!mesh->parts)
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory loading mesh %u", stored);
        else
            mesh->part_count = ranges;
    }
    if (status == SR_OK) {
        rec_cursor v = rec_cursor_make(vertices, n * per_vertex);
        for (size_t i = 0; i < n; i++)
            mesh->positions[i] = rec_get_vec3(&v);
        for (size_t i = 0; mesh->normals && i < n; i++)
            mesh->normals[i] = rec_get_vec3(&v);
        for (size_t i = 0; mesh->uvs && i < n; i++) {
            mesh->uvs[i].x = rec_get_f32(&v);
            mesh->uvs[i].y = rec_get_f32(&v);
        }
        for (size_t i = 0; mesh->colors && i < n; i++) {
            mesh->colors[i].x = rec_get_f32(&v);
            mesh->colors[i].y = rec_get_f32(&v);
            mesh->colors[i].z = rec_get_f32(&v);
            mesh->colors[i].w = rec_get_f32(&v);
        }
        for (size_t i = 0; i < 3 * t; i++)
            mesh->indices[i] = rec_load_u32(indices + 4 * i);
        rec_cursor q = rec_cursor_make(range_bytes, (size_t)(c.end - range_bytes));
        for (size_t i = 0; i < ranges; i++) {
            uint64_t first = rec_get_varint(&q), count = rec_get_varint(&q);
            // Parts index the triangles: each within them (what a renderer trusts).
            if (first > t || count > t - first)
                status = malformed(err, "mesh", stored);
            mesh->parts[i] = (sr_mesh_range){(uint32_t)first, (uint32_t)count, SR_MESH_NO_MATERIAL};
        }
        rec_get_varint(&q); // the part count, read above
        for (size_t i = 0; i < parts; i++)
            part_stored[i] = (uint32_t)rec_get_count(&q, UINT32_MAX);
        if (q.bad)
            status = malformed(err, "mesh", stored);
    }
    // From here the payload may be overwritten: the materials are read.
    sr_mesh_id mesh_id = {0};
    if (status == SR_OK) {
        status = sr_scene_add_mesh(r->scene, mesh, name_copy, &mesh_id, err); // takes the mesh in every case
        mesh = NULL;
        if (status == SR_ERROR_INVALID_ARGUMENT)
            status = refused(err, "mesh", stored);
    }
    for (size_t i = 0; status == SR_OK && i < parts; i++) {
        uint32_t material = 0;
        status = load_material(r, part_stored[i], &material, err);
        if (status == SR_OK && material)
            status = sr_scene_set_mesh_part_material(r->scene, mesh_id, i, (sr_material_id){material}, err);
    }
    if (status == SR_OK && !note_loaded(&r->meshes, &r->mesh_count, &r->mesh_capacity, stored, mesh_id.id))
        status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory loading mesh %u", stored);
    if (status == SR_OK)
        *out = mesh_id.id;
    sr_mesh_destroy(mesh);
    sr_free(part_stored);
    sr_free(name_copy);
    return status;
}

/* ---- the scene made to match the state ---- */

static bool note_source(rec_scene_reader *r, sr_node_id id, uint32_t slot, uint32_t generation)
{
    if (!grow((void **)&r->source_of, &r->source_capacity, (size_t)id.index + 1, sizeof *r->source_of))
        return false;
    r->source_of[id.index] = (rec_source){slot, generation};
    return true;
}

/* The depth of target `index` (0 at the top), following parents through the targets; -1 when a
 * parent is missing or the chain loops. */
static int64_t target_depth(const rec_scene_reader *r, size_t index)
{
    int64_t depth = 0;
    uint32_t parent = r->targets[index].node.parent;
    while (parent) {
        ptrdiff_t at = find_target(r, parent - 1);
        if (at < 0 || depth > (int64_t)r->target_count)
            return -1;
        parent = r->targets[at].node.parent;
        depth++;
    }
    return depth;
}

static sr_status set_node(rec_scene_reader *r, const rec_node *target, rec_built *b, sr_error *err)
{
    sr_status status = SR_OK;
    if (memcmp(b->transform, target->transform, sizeof b->transform) != 0) {
        status = sr_scene_set_transform(r->scene, b->id, rec_bits_transform(target->transform), err);
        if (status == SR_ERROR_INVALID_ARGUMENT)
            return refused(err, "a node's transform in slot", b->slot);
        memcpy(b->transform, target->transform, sizeof b->transform);
    }
    if (status == SR_OK && b->hidden != target->hidden) {
        status = sr_scene_set_hidden(r->scene, b->id, target->hidden, err);
        b->hidden = target->hidden;
    }
    if (status == SR_OK && b->material != target->material) {
        uint32_t material = 0;
        status = load_material(r, target->material, &material, err);
        if (status == SR_OK)
            status = sr_scene_set_node_material(r->scene, b->id, (sr_material_id){material}, err);
        b->material = target->material;
    }
    return status;
}

sr_status rec_scene_sync(rec_scene_reader *r, sr_error *err)
{
    if (!r->scene) {
        if (!r->view.has_scene)
            return SR_OK;
        sr_status status = sr_scene_create(&(sr_scene_desc){.name = r->view.scene_name}, &r->scene, err);
        if (status != SR_OK)
            return status;
    }
    // Nodes gone (or whose slot now holds another node): removed with their subtrees.
    for (size_t i = 0; i < r->built_count; i++) {
        rec_built *b = &r->built[i];
        ptrdiff_t at = find_target(r, b->slot);
        if (at < 0 || r->targets[at].node.generation != b->generation) {
            if (sr_scene_node_is_valid(r->scene, b->id))
                sr_scene_remove_node(r->scene, b->id, NULL);
            b->generation = 0;
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < r->built_count; i++) {
        rec_built *b = &r->built[i];
        if (b->generation && sr_scene_node_is_valid(r->scene, b->id))
            r->built[kept++] = *b;
        else if (b->id.index < r->source_capacity)
            r->source_of[b->id.index] = (rec_source){0, 0};
    }
    r->built_count = kept;
    // Nodes that live on: what changed. A shape that changed or went is taken off first (a node
    // with a shape takes no scale: its new transform may have one), and set again below.
    for (size_t i = 0; i < r->built_count; i++) {
        rec_built *b = &r->built[i];
        const rec_node *target = &r->targets[find_target(r, b->slot)].node;
        sr_status status = SR_OK;
        if (b->shape_size &&
            (b->shape_size != target->shape_size || memcmp(b->shape, target->shape, b->shape_size) != 0)) {
            status = sr_scene_set_node_shape(r->scene, b->id, NULL, err);
            b->shape_size = 0;
        }
        if (status == SR_OK)
            status = set_node(r, target, b, err);
        if (status != SR_OK)
            return status;
    }
    // New nodes, parents first (level by level, so that a parent added in this pass is found).
    if (!grow((void **)&r->order, &r->order_capacity, r->target_count, sizeof *r->order))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory adding nodes");
    size_t added = 0;
    for (size_t i = 0; i < r->target_count; i++) {
        if (find_built(r->built, r->built_count, r->targets[i].slot) >= 0)
            continue;
        int64_t depth = target_depth(r, i);
        if (depth < 0)
            return sr_error_set(err, SR_ERROR_PARSE, "node '%s' (slot %u) has a parent that does not exist",
                                r->targets[i].node.name, r->targets[i].slot);
        r->order[added++] = (uint64_t)depth << 32 | i;
    }
    rec_sort(r->order, added, sizeof *r->order, compare_u64);
    if (!grow((void **)&r->fresh, &r->fresh_capacity, added, sizeof *r->fresh) ||
        !grow((void **)&r->built, &r->built_capacity, r->built_count + added, sizeof *r->built))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory adding nodes");
    size_t fresh = 0;
    uint64_t level = 0;
    for (size_t k = 0; k < added; k++) {
        if (r->order[k] >> 32 != level) { // a new level: the previous one's nodes become parents
            if (fresh > 0) // (built is NULL before the first node: no offset to add)
                rec_copy(r->built + r->built_count, r->fresh, fresh * sizeof *r->fresh);
            r->built_count += fresh;
            fresh = 0;
            rec_sort(r->built, r->built_count, sizeof *r->built, compare_built);
            level = r->order[k] >> 32;
        }
        const rec_target *t = &r->targets[(uint32_t)r->order[k]];
        sr_node_id parent = SR_NODE_NULL;
        if (t->node.parent) {
            ptrdiff_t at = find_built(r->built, r->built_count, t->node.parent - 1);
            if (at < 0)
                return sr_error_set(err, SR_ERROR_PARSE, "node '%s' (slot %u): its parent was not made", t->node.name,
                                    t->slot);
            parent = r->built[at].id;
        }
        uint32_t mesh = 0, material = 0;
        // A mesh the program's scene made to draw the node's shape: made here from the shape.
        sr_status status = load_mesh(r, t->node.mesh_from_shape ? 0 : t->node.mesh, &mesh, err);
        if (status == SR_OK)
            status = load_material(r, t->node.material, &material, err);
        sr_node_id id = SR_NODE_NULL;
        if (status == SR_OK)
            status = sr_scene_add_node(r->scene,
                                       &(sr_node_desc){.name = t->node.name,
                                                       .parent = parent,
                                                       .transform = rec_bits_transform(t->node.transform),
                                                       .mesh = {mesh},
                                                       .material = {material},
                                                       .hidden = t->node.hidden},
                                       &id, err);
        if (status == SR_ERROR_INVALID_ARGUMENT)
            status = refused(err, "the node in slot", t->slot);
        if (status == SR_OK && !note_source(r, id, t->slot, t->node.generation))
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory adding nodes");
        if (status != SR_OK) {
            if (id.generation)
                sr_scene_remove_node(r->scene, id, NULL);
            if (fresh > 0) // (built is NULL before the first node: no offset to add)
                rec_copy(r->built + r->built_count, r->fresh, fresh * sizeof *r->fresh);
            r->built_count += fresh;
            rec_sort(r->built, r->built_count, sizeof *r->built, compare_built);
            return status;
        }
        rec_built *b = &r->fresh[fresh++];
        *b = (rec_built){.slot = t->slot,
                         .generation = t->node.generation,
                         .id = id,
                         .hidden = t->node.hidden,
                         .material = t->node.material};
        memcpy(b->transform, t->node.transform, sizeof b->transform);
    }
    if (fresh > 0) // (built is NULL before the first node: no offset to add)
        rec_copy(r->built + r->built_count, r->fresh, fresh * sizeof *r->fresh);
    r->built_count += fresh;
    rec_sort(r->built, r->built_count, sizeof *r->built, compare_built);
    // Shapes last: every node has its transform by now.
    for (size_t i = 0; i < r->built_count; i++) {
        rec_built *b = &r->built[i];
        sr_status status = rec_shape_sync(r, &r->targets[find_target(r, b->slot)].node, b, err);
        if (status != SR_OK)
            return status;
    }

    if (r->view.has_camera)
        sr_scene_set_camera(r->scene, &r->view.camera);
    if (r->view.has_light && sr_scene_set_light(r->scene, r->view.light, err) != SR_OK)
        return refused(err, "the light of frame", 0);
    if (r->view.has_background)
        sr_scene_set_background(r->scene, r->view.background);
    return SR_OK;
}
