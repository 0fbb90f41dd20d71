/* src/scene/scene_render.c — frustum culling through the instance tree and drawing of the
 * visible instances through raster (softrast/scene.h: sr_scene_cull, sr_scene_render, frames).
 * Opaque parts are drawn in node order, blended ones after them far to near; ids of drawn
 * triangles map back to (node, triangle) through the frame. Knows nothing of files or SDL. */
#include "scene_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/// A blended part waiting for the far-to-near pass.
typedef struct deferred_part {
    uint32_t node, part, visible; ///< slot, part index in its mesh, index in the visible list
    float distance;               ///< view distance of the instance's box centre
} deferred_part;

struct sr_scene_frame {
    sr_node_id *visible, *culled;
    uint32_t *id_bases; ///< per visible instance: id of its triangle 0 (valid after a render)
    uint32_t visible_count, culled_count, list_capacity;
    /// Per node slot: the cull pass that found it visible (compared with `stamp`).
    uint32_t *stamps;
    uint32_t stamp_capacity, stamp;
    deferred_part *deferred;
    uint32_t deferred_count, deferred_capacity;
    sr_line_vertex *lines; ///< the shape wires of the frame, world space
    uint32_t line_capacity;
    /// The uniforms of each part drawn: they live until the renderer's batch is drawn
    /// (sr_renderer_begin_batch), after the last part's draw call.
    sr_shader_uniforms *uniforms;
    uint32_t uniform_capacity;
    uint64_t id_total; ///< ids in use: [id_bases[0], id_total)
    bool ids_valid;
    sr_scene_stats stats;
};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

sr_status sr_scene_frame_create(sr_scene_frame **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_frame_create: out is NULL");
    *out = sr_calloc(1, sizeof **out);
    if (!*out)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_scene_frame_create: out of memory");
    return SR_OK;
}

void sr_scene_frame_destroy(sr_scene_frame *frame)
{
    if (!frame)
        return;
    sr_free(frame->visible);
    sr_free(frame->culled);
    sr_free(frame->id_bases);
    sr_free(frame->stamps);
    sr_free(frame->deferred);
    sr_free(frame->lines);
    sr_free(frame->uniforms);
    sr_free(frame);
}

sr_scene_stats sr_scene_frame_stats(const sr_scene_frame *frame)
{
    return frame ? frame->stats : (sr_scene_stats){0};
}

size_t sr_scene_frame_visible(const sr_scene_frame *frame, const sr_node_id **nodes)
{
    if (nodes)
        *nodes = frame ? frame->visible : NULL;
    return frame ? frame->visible_count : 0;
}

size_t sr_scene_frame_culled(const sr_scene_frame *frame, const sr_node_id **nodes)
{
    if (nodes)
        *nodes = frame ? frame->culled : NULL;
    return frame ? frame->culled_count : 0;
}

bool sr_scene_frame_decode_id(const sr_scene_frame *frame, uint32_t id, sr_node_id *node, uint32_t *triangle)
{
    if (node)
        *node = SR_NODE_NULL;
    if (triangle)
        *triangle = SR_NO_ID;
    if (!frame || !frame->ids_valid || id == SR_NO_ID || frame->visible_count == 0 || id < frame->id_bases[0])
        return false;
    // The last visible instance whose base is <= id (bases grow with the visible order).
    uint32_t low = 0, high = frame->visible_count - 1;
    while (low < high) {
        uint32_t middle = low + (high - low + 1) / 2;
        if (frame->id_bases[middle] <= id)
            low = middle;
        else
            high = middle - 1;
    }
    uint64_t next = low + 1 < frame->visible_count ? frame->id_bases[low + 1] : frame->id_total;
    if (id >= next)
        return false;
    if (node)
        *node = frame->visible[low];
    if (triangle)
        *triangle = id - frame->id_bases[low];
    return true;
}

/* ---- culling ---- */

typedef struct cull_context {
    const sr_scene *scene;
    const sr_frustum *frustum;
    sr_scene_frame *frame;
} cull_context;

/* The tree reports proxies by their fat boxes; the verdict is the exact test of the world box. */
static bool cull_visit(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    (void)proxy;
    cull_context *c = user;
    const scene_node *n = &c->scene->nodes[user_data];
    // A fat box inside the frustum holds a world box inside it.
    if (containment == SR_INSIDE || sr_frustum_test_aabb(c->frustum, &n->world_aabb) != SR_OUTSIDE)
        c->frame->stamps[user_data] = c->frame->stamp;
    return true;
}

static bool is_instance(const scene_node *n)
{
    return (n->flags & NODE_LIVE) && !(n->flags & NODE_HIDDEN) && n->mesh != 0;
}

/* Makes room in the frame for a scene of the current size (between frames, never while drawing). */
static sr_status frame_reserve(sr_scene_frame *frame, const sr_scene *scene, sr_error *err)
{
    uint32_t slots = scene->slot_count;
    uint32_t capacity = frame->list_capacity;
    bool ok = sr_scene_grow((void **)&frame->visible, &capacity, slots, sizeof *frame->visible);
    capacity = frame->list_capacity;
    ok = ok && sr_scene_grow((void **)&frame->culled, &capacity, slots, sizeof *frame->culled);
    capacity = frame->list_capacity;
    ok = ok && sr_scene_grow((void **)&frame->id_bases, &capacity, slots, sizeof *frame->id_bases);
    if (ok)
        frame->list_capacity = capacity;
    uint32_t stamp_capacity = frame->stamp_capacity;
    if (ok && slots > frame->stamp_capacity) {
        uint32_t *grown = sr_realloc(frame->stamps, (size_t)slots * sizeof *grown);
        ok = grown != NULL;
        if (ok) {
            memset(grown + stamp_capacity, 0, (size_t)(slots - stamp_capacity) * sizeof *grown);
            frame->stamps = grown;
            frame->stamp_capacity = slots;
        }
    }
    return ok ? SR_OK : sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "scene frame: out of memory for %u nodes", slots);
}

/* Culls against `camera` (resolved and checked by the caller) for a width x height image. */
static sr_status cull(const sr_scene *scene, const sr_camera *camera, int width, int height, sr_scene_frame *frame,
                      bool no_culling, sr_error *err)
{
    sr_status status = frame_reserve(frame, scene, err);
    if (status != SR_OK)
        return status;
    frame->stamp++;
    if (frame->stamp == 0) { // wrapped: old stamps could alias
        memset(frame->stamps, 0, (size_t)frame->stamp_capacity * sizeof *frame->stamps);
        frame->stamp = 1;
    }
    if (!no_culling) {
        sr_mat4 view, projection;
        sr_camera_matrices(camera, width, height, &view, &projection);
        sr_frustum frustum = sr_frustum_from_matrix(sr_mat4_mul(projection, view));
        cull_context context = {scene, &frustum, frame};
        sr_dynamic_tree_query_stats query =
            sr_dynamic_tree_query_frustum(scene->instances, &frustum, cull_visit, &context, err);
        if (query.status != SR_OK)
            return query.status;
    }
    frame->visible_count = frame->culled_count = 0;
    frame->ids_valid = false;
    uint32_t total = 0;
    for (uint32_t i = 0; i < scene->slot_count; i++) {
        const scene_node *n = &scene->nodes[i];
        if (!is_instance(n))
            continue;
        total++;
        // Instances whose box is empty (a mesh without triangles) draw nothing: culled.
        bool visible = no_culling ? !sr_aabb_is_empty(n->world_aabb) : frame->stamps[i] == frame->stamp;
        if (visible)
            frame->visible[frame->visible_count++] = (sr_node_id){i, n->generation};
        else
            frame->culled[frame->culled_count++] = (sr_node_id){i, n->generation};
    }
    frame->stats.instances_total = total;
    frame->stats.instances_drawn = frame->visible_count;
    frame->stats.instances_culled = frame->culled_count;
    return SR_OK;
}

static sr_status check_view(const char *function, const sr_scene *scene, const sr_camera *camera, int width, int height,
                            sr_error *err)
{
    if (!scene)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: scene is NULL", function);
    if (width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: image size %dx%d is out of range", function, width,
                            height);
    sr_camera resolved = sr_camera_resolve(camera);
    return sr_camera_check(&resolved, err);
}

sr_status sr_scene_cull(const sr_scene *scene, const sr_camera *camera, int width, int height, sr_scene_frame *frame,
                        sr_error *err)
{
    if (!frame)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_cull: frame is NULL");
    sr_camera c = sr_camera_resolve(camera ? camera : scene ? &scene->camera : NULL);
    sr_status status = check_view("sr_scene_cull", scene, &c, width, height, err);
    if (status != SR_OK)
        return status;
    if (scene->dirty)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_scene_cull: the scene has edits waiting for sr_scene_update");
    double start = now_ms();
    frame->stats = (sr_scene_stats){0};
    status = cull(scene, &c, width, height, frame, false, err);
    frame->stats.cull_ms = now_ms() - start;
    return status;
}

/* ---- drawing ---- */

typedef struct draw_setup {
    const sr_scene *scene;
    const sr_scene_render_desc *desc;
    sr_renderer *renderer;
    sr_framebuffer *fb;
    sr_mat4 view, projection;
    float depth_near, depth_far; ///< for the depth program
    sr_vec3 light_direction;     ///< world space, for this frame's camera (a headlight turns with it)
    uint32_t draw_calls;
    sr_shader_uniforms *uniforms; ///< one per part drawn (the frame's), the next at uniform_count
    uint32_t uniform_count;
} draw_setup;

static const sr_shader *part_shader(const draw_setup *s, const scene_material *material)
{
    if (s->desc->shader)
        return s->desc->shader;
    if (material->desc.shader)
        return material->desc.shader;
    return material->desc.texture.id ? &sr_shader_textured : &sr_shader_lambert;
}

static sr_status draw_part(draw_setup *s, const scene_node *n, uint32_t part_index, uint32_t id_base, bool blended,
                           sr_error *err)
{
    const scene_mesh *m = &s->scene->meshes[n->mesh - 1];
    const scene_part *part = &m->parts[part_index];
    if (part->triangle_count == 0)
        return SR_OK;
    const scene_material *material = sr_scene_resolve_material(s->scene, n, part);
    const sr_shader *shader = part_shader(s, material);
    sr_shader_uniforms *kept = &s->uniforms[s->uniform_count++];
    *kept = sr_shader_uniforms_default();
    sr_shader_uniforms uniforms = *kept;
    sr_shader_uniforms_set_transforms(&uniforms, n->world, s->view, s->projection);
    uniforms.light_direction = s->light_direction;
    uniforms.ambient = s->scene->light.ambient;
    uniforms.diffuse = s->scene->light.diffuse;
    uniforms.two_sided = s->scene->light.two_sided;
    uniforms.albedo =
        sr_vec3_make(material->desc.base_color.x, material->desc.base_color.y, material->desc.base_color.z);
    uniforms.opacity = material->desc.base_color.w;
    uniforms.texture = sr_scene_texture(s->scene, material->desc.texture);
    if (!uniforms.texture)
        uniforms.texture = s->desc->fallback_texture;
    uniforms.sampler = material->desc.sampler;
    uniforms.depth_near = s->depth_near;
    uniforms.depth_far = s->depth_far;
    *kept = uniforms;
    sr_program program = sr_shader_program(shader, kept);
    sr_draw_desc draw = {
        .vertices = m->vertices,
        .vertex_count = m->mesh->vertex_count,
        .vertex_stride = sizeof(sr_shader_vertex),
        .indices = m->mesh->indices + (size_t)part->first_triangle * 3,
        .index_count = (size_t)part->triangle_count * 3,
        .program = &program,
        .state = {.cull = material->desc.cull, .blend = blended ? SR_BLEND_ALPHA : SR_BLEND_NONE},
        .primitive_id_base = id_base + part->first_triangle,
    };
    /* A two-sided blended part is drawn back faces first, then front faces, both writing depth:
     * the far side of a closed glass object shows through its near side, and the depth and id
     * buffers keep the nearest surface, the one a pick reports. */
    // A shape's mesh is closed and wound outwards: its back faces are never seen when opaque.
    if (m->shape_mesh && !blended && material->desc.cull == SR_CULL_NONE)
        draw.state.cull = SR_CULL_BACK;
    int passes = blended && material->desc.cull == SR_CULL_NONE ? 2 : 1;
    for (int pass = 0; pass < passes; pass++) {
        if (passes == 2)
            draw.state.cull = pass == 0 ? SR_CULL_FRONT : SR_CULL_BACK;
        s->draw_calls++;
        sr_status status = sr_draw_triangles(s->renderer, s->fb, &draw, err);
        if (status != SR_OK)
            return status;
    }
    return SR_OK;
}

/* The white-to-black range of the depth program: the nearest and farthest view distances of the
 * visible instances' vertices, so its ramp spans what is on screen (the camera's near and far
 * where nothing is visible). Only computed when some part is drawn with the depth program. */
static void fit_depth_range(draw_setup *s, const sr_scene_frame *frame, const sr_camera *camera)
{
    s->depth_near = camera->near_z;
    s->depth_far = camera->far_z;
    bool needed = s->desc->shader == &sr_shader_depth;
    for (uint32_t i = 0; i < s->scene->material_count && !needed && !s->desc->shader; i++)
        needed = s->scene->materials[i].desc.shader == &sr_shader_depth;
    if (!needed)
        return;
    float nearest = INFINITY, farthest = -INFINITY;
    for (uint32_t i = 0; i < frame->visible_count; i++) {
        const scene_node *n = &s->scene->nodes[frame->visible[i].index];
        const sr_mesh *mesh = s->scene->meshes[n->mesh - 1].mesh;
        sr_mat4 model_view = sr_mat4_mul(s->view, n->world);
        for (size_t v = 0; v < mesh->vertex_count; v++) {
            float distance = -sr_mat4_transform_point(model_view, mesh->positions[v]).z;
            nearest = fminf(nearest, distance);
            farthest = fmaxf(farthest, distance);
        }
    }
    if (nearest < farthest) {
        s->depth_near = nearest;
        s->depth_far = farthest;
    }
}

static int compare_deferred(const void *a, const void *b)
{
    const deferred_part *x = a, *y = b;
    if (x->distance != y->distance)
        return x->distance > y->distance ? -1 : 1; // far first
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return (x->part > y->part) - (x->part < y->part);
}

/* The wires of the visible nodes' shapes (SR_SHAPE_DRAW_WIRE), in their materials' colours,
 * depth-tested against the opaque surfaces drawn so far (lines write no depth: drawn before the
 * blended parts, which then cover them as they cover surfaces). */
static sr_status draw_wires(draw_setup *s, sr_scene_frame *frame, sr_error *err)
{
    const sr_scene *scene = s->scene;
    uint64_t total = 0;
    bool blended = false;
    for (uint32_t i = 0; i < frame->visible_count; i++) {
        const scene_node *n = &scene->nodes[frame->visible[i].index];
        if (n->wire_mesh)
            total += 2u * (uint64_t)scene->meshes[n->wire_mesh - 1].wire_count;
    }
    if (total == 0)
        return SR_OK;
    if (total > UINT32_MAX / 2 || !sr_scene_grow((void **)&frame->lines, &frame->line_capacity, (uint32_t)total,
                                                  sizeof *frame->lines))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "scene: out of memory for %llu wire points",
                            (unsigned long long)total);
    size_t count = 0;
    for (uint32_t i = 0; i < frame->visible_count; i++) {
        const scene_node *n = &scene->nodes[frame->visible[i].index];
        if (!n->wire_mesh)
            continue;
        const scene_mesh *wire = &scene->meshes[n->wire_mesh - 1];
        const scene_material *material = sr_scene_resolve_material(scene, n, &wire->parts[0]);
        sr_vec4 c = material->desc.base_color;
        blended = blended || c.w < 1.0f;
        for (uint32_t k = 0; k < 2 * wire->wire_count; k++)
            frame->lines[count++] = (sr_line_vertex){sr_mat4_transform_point(n->world, wire->wire[k]), {c.x, c.y, c.z, c.w}};
    }
    s->draw_calls++;
    return sr_draw_lines(s->renderer, s->fb,
                         &(sr_line_desc){.vertices = frame->lines,
                                         .vertex_count = count,
                                         .view_projection = sr_mat4_mul(s->projection, s->view),
                                         .depth_test = true,
                                         .blend = blended ? SR_BLEND_ALPHA : SR_BLEND_NONE,
                                         .width = 1,
                                         // debug.h's SR_DEBUG_DEPTH_BIAS: a wire over its node's own
                                         // mesh shows where the two coincide.
                                         .depth_bias = 1.0f / 256.0f},
                         err);
}

static sr_status draw_visible(draw_setup *s, sr_scene_frame *frame, sr_error *err)
{
    const sr_scene *scene = s->scene;
    // Ids: instance k's triangles are numbered from the sum of the earlier instances' counts.
    uint64_t next_id = 0, parts = 0;
    uint32_t deferred = 0;
    for (uint32_t i = 0; i < frame->visible_count; i++) {
        const scene_node *n = &scene->nodes[frame->visible[i].index];
        const scene_mesh *m = &scene->meshes[n->mesh - 1];
        frame->id_bases[i] = (uint32_t)next_id;
        next_id += m->mesh->triangle_count;
        for (uint32_t p = 0; p < m->part_count && !(n->flags & NODE_WIRE_ONLY); p++) {
            deferred += sr_scene_resolve_material(scene, n, &m->parts[p])->blended;
            parts++;
        }
    }
    if (parts > UINT32_MAX ||
        !sr_scene_grow((void **)&frame->uniforms, &frame->uniform_capacity, (uint32_t)parts, sizeof *frame->uniforms))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "scene: out of memory for the uniforms of %llu parts",
                            (unsigned long long)parts);
    s->uniforms = frame->uniforms;
    s->uniform_count = 0;
    if (s->fb->ids && next_id >= SR_NO_ID)
        return sr_error_set(err, SR_ERROR_UNSUPPORTED, "scene: %llu visible triangles do not fit the 32-bit id buffer",
                            (unsigned long long)next_id);
    if (!sr_scene_grow((void **)&frame->deferred, &frame->deferred_capacity, deferred, sizeof *frame->deferred))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "scene: out of memory for %u blended parts", deferred);
    frame->deferred_count = 0;
    frame->id_total = next_id;
    frame->ids_valid = true;
    for (uint32_t i = 0; i < frame->visible_count; i++) {
        const scene_node *n = &scene->nodes[frame->visible[i].index];
        const scene_mesh *m = &scene->meshes[n->mesh - 1];
        if (n->flags & NODE_WIRE_ONLY)
            continue; // drawn by draw_wires
        for (uint32_t p = 0; p < m->part_count; p++) {
            if (sr_scene_resolve_material(scene, n, &m->parts[p])->blended) {
                sr_vec3 centre = sr_aabb_centre(n->world_aabb);
                frame->deferred[frame->deferred_count++] =
                    (deferred_part){frame->visible[i].index, p, i, -sr_mat4_transform_point(s->view, centre).z};
                continue;
            }
            sr_status status = draw_part(s, n, p, frame->id_bases[i], false, err);
            if (status != SR_OK)
                return status;
        }
    }
    sr_status wired = draw_wires(s, frame, err);
    if (wired != SR_OK)
        return wired;
    if (frame->deferred_count > 1)
        qsort(frame->deferred, frame->deferred_count, sizeof *frame->deferred, compare_deferred);
    for (uint32_t k = 0; k < frame->deferred_count; k++) {
        const deferred_part *d = &frame->deferred[k];
        sr_status status = draw_part(s, &scene->nodes[d->node], d->part, frame->id_bases[d->visible], true, err);
        if (status != SR_OK)
            return status;
    }
    return SR_OK;
}

sr_status sr_scene_render(sr_scene *scene, const sr_scene_render_desc *desc, sr_renderer *renderer, sr_framebuffer *fb,
                          sr_scene_frame *frame, sr_error *err)
{
    const sr_scene_render_desc defaults = {0};
    if (!desc)
        desc = &defaults;
    if (!renderer || !fb)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_render: %s is NULL",
                            renderer ? "fb" : "renderer");
    sr_camera camera = sr_camera_resolve(desc->camera ? desc->camera : scene ? &scene->camera : NULL);
    sr_status status = check_view("sr_scene_render", scene, &camera, fb->width, fb->height, err);
    if (status != SR_OK)
        return status;
    sr_camera cull_camera = desc->cull_camera ? sr_camera_resolve(desc->cull_camera) : camera;
    if (desc->cull_camera && (status = sr_camera_check(&cull_camera, err)) != SR_OK)
        return status;
    sr_scene_frame *temporary = NULL;
    if (!frame) {
        status = sr_scene_frame_create(&temporary, err);
        if (status != SR_OK)
            return status;
        frame = temporary;
    }
    frame->stats = (sr_scene_stats){0};
    double start = now_ms();
    sr_scene_update_stats update;
    status = sr_scene_update(scene, &update, err);
    frame->stats.update_ms = now_ms() - start;
    if (status == SR_OK) {
        start = now_ms();
        status = cull(scene, &cull_camera, fb->width, fb->height, frame, desc->no_culling, err);
        frame->stats.cull_ms = now_ms() - start;
    }
    if (status == SR_OK) {
        start = now_ms();
        draw_setup setup = {.scene = scene, .desc = desc, .renderer = renderer, .fb = fb};
        sr_camera_matrices(&camera, fb->width, fb->height, &setup.view, &setup.projection);
        setup.light_direction = sr_light_world_direction(&scene->light, &camera);
        fit_depth_range(&setup, frame, &camera);
        if (!desc->no_clear)
            sr_renderer_clear(renderer, fb, scene->background, 1.0f);
        sr_raster_stats before = sr_renderer_stats(renderer);
        // The parts in one batch: a thousand small parts are shared between the renderer's
        // threads (each alone would be drawn by this one).
        status = sr_renderer_begin_batch(renderer, fb, err);
        if (status == SR_OK)
            status = draw_visible(&setup, frame, err);
        sr_status ended = sr_renderer_end_batch(renderer, status == SR_OK ? err : NULL);
        status = status == SR_OK ? ended : status;
        sr_raster_stats after = sr_renderer_stats(renderer);
        frame->stats.triangles_submitted = after.triangles_in - before.triangles_in;
        frame->stats.triangles_backface_culled = after.triangles_backfacing - before.triangles_backfacing;
        frame->stats.triangles_clipped = after.triangles_clipped - before.triangles_clipped;
        frame->stats.triangles_drawn = after.triangles_rasterized - before.triangles_rasterized;
        frame->stats.fragments_shaded = after.fragments_shaded - before.fragments_shaded;
        frame->stats.draw_calls = setup.draw_calls;
        frame->stats.draw_ms = now_ms() - start;
    }
    sr_scene_frame_destroy(temporary);
    return status;
}
