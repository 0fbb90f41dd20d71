/* src/record/record_scene_shape.c — the collision shapes of a recorded scene (format 1.1): the
 * writer notes each node's shape as its parameters (type, sizes, rounding, how it is drawn; a hull
 * as the id of a HULL record holding its tables, identical hulls stored once) and writes the SHAPES
 * section of the nodes whose shape was set, changed or removed; the reader applies that section to
 * its state and gives the nodes of the reconstructed scene the same shapes, their hulls rebuilt
 * table for table (sr_hull_create_from_view), so that the collision pass, its overlays and the
 * pair views answer on a recording exactly as on the program's scene. */
#include "record_scene.h"

#include <stdio.h>

typedef struct rec_hull_written {
    uint64_t hash;
    uint32_t stored;
    uint8_t *bytes; ///< the HULL payload after the id (owned)
    size_t size;
} rec_hull_written;

typedef struct rec_hull_loaded {
    uint32_t stored;
    sr_hull *hull;
} rec_hull_loaded;

static bool grow(void **array, size_t *capacity, size_t needed, size_t size)
{
    return rec_grow(array, capacity, needed, size, 16);
}

/* ---- hulls as bytes ----
 * HULL payload: id (varint), dimension (u8), vertex count (varint) and vertices (3 f64 each), face
 * count (varint) and faces (first and count as varints, normal 3 f64, offset f64), face vertex
 * count (varint) and the face vertices (varints), edge count (varint) and edges (2 varints). */

static size_t face_vertex_count(const sr_hull_view *v)
{
    size_t count = 0;
    for (size_t f = 0; f < v->face_count; f++) {
        size_t end = (size_t)v->faces[f].first + v->faces[f].count;
        count = end > count ? end : count;
    }
    return count;
}

static size_t hull_bound(const sr_hull_view *v)
{
    return 1 + 4 * REC_VARINT_MAX + v->vertex_count * 24 + v->face_count * (2 * REC_VARINT_MAX + 32) +
           face_vertex_count(v) * 5 + v->edge_count * 10;
}

static uint8_t *put_dvec3(uint8_t *p, sr_dvec3 v)
{
    p = rec_put_f64(p, v.x);
    p = rec_put_f64(p, v.y);
    return rec_put_f64(p, v.z);
}

static sr_dvec3 get_dvec3(rec_cursor *c)
{
    sr_dvec3 v;
    v.x = rec_get_f64(c);
    v.y = rec_get_f64(c);
    v.z = rec_get_f64(c);
    return v;
}

static uint8_t *put_hull(uint8_t *p, const sr_hull_view *v)
{
    p = rec_put_u8(p, (uint32_t)v->dimension);
    p = rec_put_varint(p, v->vertex_count);
    for (size_t i = 0; i < v->vertex_count; i++)
        p = put_dvec3(p, v->vertices[i]);
    p = rec_put_varint(p, v->face_count);
    for (size_t f = 0; f < v->face_count; f++) {
        p = rec_put_varint(p, v->faces[f].first);
        p = rec_put_varint(p, v->faces[f].count);
        p = put_dvec3(p, v->faces[f].normal);
        p = rec_put_f64(p, v->faces[f].offset);
    }
    size_t fv = face_vertex_count(v);
    p = rec_put_varint(p, fv);
    for (size_t i = 0; i < fv; i++)
        p = rec_put_varint(p, v->face_vertices[i]);
    p = rec_put_varint(p, v->edge_count);
    for (size_t i = 0; i < 2 * v->edge_count; i++)
        p = rec_put_varint(p, v->edges[i]);
    return p;
}

/* A fingerprint of the hull's tables (what makes two hulls answer alike). */
static uint64_t hull_hash(const sr_hull_view *v)
{
    uint32_t crc = rec_crc32c(0, v->vertices, v->vertex_count * sizeof *v->vertices);
    if (v->face_count)
        crc = rec_crc32c(crc, v->faces, v->face_count * sizeof *v->faces);
    crc = rec_crc32c(crc, v->face_vertices, face_vertex_count(v) * sizeof *v->face_vertices);
    crc = rec_crc32c(crc, v->edges, 2 * v->edge_count * sizeof *v->edges);
    return (uint64_t)crc << 32 ^ (uint64_t)v->vertex_count * 0x9e3779b97f4a7c15u ^ (uint64_t)v->face_count << 16 ^
           (uint64_t)v->dimension;
}

void rec_shape_writer_forget(rec_scene_writer *w)
{
    for (size_t i = 0; i < w->hull_count; i++)
        sr_free(w->hulls[i].bytes);
    w->hull_count = 0;
}

/* The stored id of `hull` (written into `out` the first time, or found among those written). */
static sr_status need_hull(rec_scene_writer *w, const sr_hull *hull, rec_node *n, rec_buffer *out,
                           sr_record_sizes *sizes, uint32_t *stored, sr_error *err)
{
    sr_hull_view v = sr_hull_get_view(hull);
    uint64_t hash = hull_hash(&v);
    if (n->hull == hull && n->hull_hash == hash && n->shape_size) {
        // The hull the node had last frame, unchanged: its id is in the bytes already.
        rec_cursor c = rec_cursor_make(n->shape + 1, (size_t)n->shape_size - 1);
        if (n->shape[0] & REC_SHAPE_ROUNDED)
            rec_get_f64(&c);
        *stored = (uint32_t)rec_get_varint(&c);
        if (!c.bad && *stored)
            return SR_OK;
    }
    size_t bound = hull_bound(&v);
    if (!rec_buffer_reserve(out, REC_RECORD_OVERHEAD + REC_VARINT_MAX + 2 * bound))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_recorder_frame: out of memory for a hull");
    // The payload after the id, encoded past the end of what `out` holds, to compare and keep.
    uint8_t *scratch = out->data + out->size + REC_RECORD_OVERHEAD + REC_VARINT_MAX + bound;
    size_t size = (size_t)(put_hull(scratch, &v) - scratch);
    for (size_t i = 0; i < w->hull_count; i++)
        if (w->hulls[i].hash == hash && w->hulls[i].size == size && memcmp(w->hulls[i].bytes, scratch, size) == 0) {
            *stored = w->hulls[i].stored;
            n->hull = hull;
            n->hull_hash = hash;
            return SR_OK;
        }
    uint8_t *copy = sr_alloc(size);
    if (!copy || !grow((void **)&w->hulls, &w->hull_capacity, w->hull_count + 1, sizeof *w->hulls)) {
        sr_free(copy);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_recorder_frame: out of memory for a hull");
    }
    memcpy(copy, scratch, size);
    uint32_t number = ++w->next_hull;
    size_t start = out->size;
    uint8_t *record = out->data + start;
    uint8_t *p = rec_put_varint(record + REC_RECORD_HEAD, number);
    memmove(p, copy, size);
    p = rec_record_finish(record, REC_HULL, p + size);
    out->size = (size_t)(p - out->data);
    if (!grow((void **)&w->new_definitions, &w->new_definition_capacity, w->new_definition_count + 1,
              sizeof *w->new_definitions)) {
        sr_free(copy);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_recorder_frame: out of memory for the definitions");
    }
    w->new_definitions[w->new_definition_count++] = (rec_definition){REC_HULL, number, start, out->size - start};
    w->hulls[w->hull_count++] = (rec_hull_written){hash, number, copy, size};
    sizes->shapes += out->size - start;
    *stored = number;
    n->hull = hull;
    n->hull_hash = hash;
    return SR_OK;
}

/* ---- the writer's side of a node ---- */

bool rec_mesh_is_shape_mesh(const sr_scene *scene, sr_node_id id, const sr_node_info *info)
{
    sr_node_shape shape;
    return info->has_shape && info->mesh.id && sr_scene_node_shape(scene, id, &shape, NULL) == SR_OK &&
           shape.mesh.id == info->mesh.id;
}

sr_status rec_shape_note(rec_scene_writer *w, const sr_scene *scene, sr_node_id id, const sr_node_info *info,
                         rec_node *n, rec_buffer *out, sr_record_sizes *sizes, bool *changed, sr_error *err)
{
    *changed = false;
    // The scene's number for the node's shape: the same number (on the same node: `n` is
    // forgotten when the node or the scene changes) is the same shape, already in `n->shape`.
    if (n->generation && n->shape_version == info->shape_version && (n->shape_size != 0) == info->has_shape)
        return SR_OK;
    uint8_t bytes[REC_SHAPE_MAX];
    size_t size = 0;
    sr_node_shape shape;
    if (info->has_shape && sr_scene_node_shape(scene, id, &shape, NULL) == SR_OK) {
        const sr_shape *s = &shape.local;
        uint8_t *p = bytes;
        p = rec_put_u8(p, (uint32_t)s->type | (uint32_t)shape.draw << 4 | (s->rounding != 0 ? REC_SHAPE_ROUNDED : 0u));
        if (s->rounding != 0)
            p = rec_put_f64(p, s->rounding);
        switch (s->type) {
        case SR_SHAPE_SEGMENT:
        case SR_SHAPE_TRIANGLE:
            for (int k = 0; k < (s->type == SR_SHAPE_SEGMENT ? 2 : 3); k++)
                p = put_dvec3(p, s->points[k]);
            break;
        case SR_SHAPE_SPHERE:
            p = rec_put_f64(p, s->radius);
            break;
        case SR_SHAPE_BOX:
            p = put_dvec3(p, s->half_extents);
            break;
        case SR_SHAPE_CAPSULE:
        case SR_SHAPE_CYLINDER:
        case SR_SHAPE_CONE:
            p = rec_put_f64(p, s->radius);
            p = rec_put_f64(p, s->half_height);
            break;
        case SR_SHAPE_HULL: {
            uint32_t stored = 0;
            sr_status status = need_hull(w, s->hull, n, out, sizes, &stored, err);
            if (status != SR_OK)
                return status;
            p = rec_put_varint(p, stored);
            break;
        }
        default: // a point: its type says it all
            break;
        }
        size = (size_t)(p - bytes);
    }
    if (size != n->shape_size || memcmp(bytes, n->shape, size) != 0) {
        memcpy(n->shape, bytes, size);
        n->shape_size = (uint8_t)size;
        *changed = true;
    }
    n->shape_version = info->shape_version;
    return SR_OK;
}

size_t rec_shapes_bound(size_t count)
{
    return REC_VARINT_MAX + count * (REC_VARINT_MAX + 2 + REC_SHAPE_MAX);
}

uint8_t *rec_put_shapes(const rec_scene_writer *w, uint8_t *p, size_t count)
{
    p = rec_put_varint(p, count);
    uint32_t previous = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t slot = w->shaped[i];
        const rec_node *n = &w->nodes[slot];
        p = rec_put_varint(p, slot - previous);
        previous = slot;
        p = rec_put_u8(p, (n->shape_size ? REC_SHAPE_ENTRY_SHAPE : 0u) |
                              (n->mesh_from_shape ? REC_SHAPE_ENTRY_MESH_FROM_SHAPE : 0u));
        if (n->shape_size) {
            p = rec_put_varint(p, n->shape_size);
            memcpy(p, n->shape, n->shape_size);
            p += n->shape_size;
        }
    }
    return p;
}

/* ---- the reader ---- */

/* A shape's bytes decoded; false when malformed (a hull's id is left in *hull_id, 0 otherwise). */
static bool decode_shape(const uint8_t *bytes, size_t size, sr_shape *shape, sr_shape_draw *draw, uint32_t *hull_id)
{
    rec_cursor c = rec_cursor_make(bytes, size);
    uint32_t head = rec_get_u8(&c);
    uint32_t type = head & 15u, how = head >> 4 & 3u;
    if (c.bad || head & 0x80u || type > SR_SHAPE_HULL || how < SR_SHAPE_DRAW_SOLID || how > SR_SHAPE_DRAW_NONE)
        return false;
    *shape = (sr_shape){.type = (sr_shape_type)type, .pose = sr_pose_identity()};
    *draw = (sr_shape_draw)how;
    *hull_id = 0;
    if (head & REC_SHAPE_ROUNDED)
        shape->rounding = rec_get_f64(&c);
    switch (shape->type) {
    case SR_SHAPE_SEGMENT:
    case SR_SHAPE_TRIANGLE:
        for (int k = 0; k < (shape->type == SR_SHAPE_SEGMENT ? 2 : 3); k++)
            shape->points[k] = get_dvec3(&c);
        break;
    case SR_SHAPE_SPHERE:
        shape->radius = rec_get_f64(&c);
        break;
    case SR_SHAPE_BOX:
        shape->half_extents = get_dvec3(&c);
        break;
    case SR_SHAPE_CAPSULE:
    case SR_SHAPE_CYLINDER:
    case SR_SHAPE_CONE:
        shape->radius = rec_get_f64(&c);
        shape->half_height = rec_get_f64(&c);
        break;
    case SR_SHAPE_HULL:
        *hull_id = (uint32_t)rec_get_count(&c, UINT32_MAX);
        if (*hull_id == 0)
            return false;
        break;
    default:
        break;
    }
    return !c.bad && rec_left(&c) == 0;
}

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

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        snprintf(what, what_size, __VA_ARGS__);                                                                        \
        return SR_ERROR_PARSE;                                                                                         \
    } while (0)

sr_status rec_apply_shapes(rec_scene_reader *r, rec_cursor *c, char *what, size_t what_size)
{
    size_t count = (size_t)rec_get_count(c, rec_left(c) / 2);
    uint64_t slot = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t delta = rec_get_varint(c);
        slot = i == 0 ? delta : slot + delta;
        uint32_t flags = rec_get_u8(c);
        ptrdiff_t at = slot <= UINT32_MAX ? find_target(r, (uint32_t)slot) : -1;
        if (c->bad)
            FAIL("the shapes are cut short");
        if (at < 0)
            FAIL("gives a shape to node slot %llu, which holds no node", (unsigned long long)slot);
        if (flags & ~(uint32_t)REC_SHAPE_ENTRY_KNOWN)
            FAIL("node slot %llu: unknown shape flags 0x%x", (unsigned long long)slot, flags);
        rec_node *n = &r->targets[at].node;
        n->mesh_from_shape = flags & REC_SHAPE_ENTRY_MESH_FROM_SHAPE;
        n->shape_size = 0;
        if (flags & REC_SHAPE_ENTRY_SHAPE) {
            size_t size = (size_t)rec_get_count(c, REC_SHAPE_MAX);
            const uint8_t *bytes = rec_take(c, size);
            sr_shape shape;
            sr_shape_draw draw;
            uint32_t hull = 0;
            if (!bytes || !decode_shape(bytes, size, &shape, &draw, &hull))
                FAIL("node slot %llu: its shape is malformed", (unsigned long long)slot);
            // Values no program could have given (a check, which builds no scene, finds them too);
            // a hull's tables are checked where they are defined.
            sr_error cause = {0};
            sr_shape checked = hull ? (sr_shape){.type = SR_SHAPE_POINT, .pose = shape.pose, .rounding = shape.rounding}
                                    : shape;
            if (sr_shape_validate(&checked, &cause) != SR_OK)
                FAIL("node slot %llu: its %s is refused: %s", (unsigned long long)slot, sr_shape_type_name(shape.type),
                     cause.message);
            memcpy(n->shape, bytes, size);
            n->shape_size = (uint8_t)size;
        }
    }
    return SR_OK;
}

#undef FAIL

void rec_shape_reader_free(rec_scene_reader *r)
{
    for (size_t i = 0; i < r->hull_count; i++)
        sr_hull_destroy(r->hulls[i].hull);
    sr_free(r->hulls);
    r->hulls = NULL;
    r->hull_count = r->hull_capacity = 0;
}

size_t rec_shape_reader_bytes(const rec_scene_reader *r)
{
    size_t bytes = r->hull_capacity * sizeof *r->hulls;
    for (size_t i = 0; i < r->hull_count; i++) {
        sr_hull_view v = sr_hull_get_view(r->hulls[i].hull);
        // vertices (and their copy by axis), faces, loops, edges and their adjacency
        bytes += v.vertex_count * 52 + v.face_count * sizeof(sr_hull_face) + face_vertex_count(&v) * 4 +
                 v.edge_count * 24;
    }
    return bytes;
}

/* Decodes a HULL payload (after its id) into a hull, checked; false with `why`. */
static bool decode_hull(rec_cursor *c, sr_hull **out, sr_status *status, char *why, size_t why_size)
{
    *out = NULL;
    *status = SR_ERROR_PARSE;
    sr_hull_view v = {0};
    v.dimension = (int)rec_get_u8(c);
    v.vertex_count = (size_t)rec_get_count(c, rec_left(c) / 24);
    const uint8_t *vertex_bytes = rec_take(c, v.vertex_count * 24);
    v.face_count = (size_t)rec_get_count(c, rec_left(c) / 34);
    const uint8_t *face_bytes = c->p;
    for (size_t f = 0; f < v.face_count && !c->bad; f++) {
        rec_get_varint(c);
        rec_get_varint(c);
        rec_take(c, 32);
    }
    size_t fv = (size_t)rec_get_count(c, rec_left(c));
    const uint8_t *face_vertex_bytes = c->p;
    for (size_t i = 0; i < fv && !c->bad; i++)
        rec_get_varint(c);
    v.edge_count = (size_t)rec_get_count(c, rec_left(c) / 2);
    const uint8_t *edge_bytes = c->p;
    for (size_t i = 0; i < 2 * v.edge_count && !c->bad; i++)
        rec_get_varint(c);
    if (c->bad || rec_left(c) != 0 || !vertex_bytes) {
        snprintf(why, why_size, "its tables are cut short or followed by stray bytes");
        return false;
    }
    // The counts are bounded by the bytes read above: the tables below fit in memory.
    sr_dvec3 *vertices = sr_alloc_array(v.vertex_count ? v.vertex_count : 1, sizeof *vertices);
    sr_hull_face *faces = sr_alloc_array(v.face_count ? v.face_count : 1, sizeof *faces);
    uint32_t *face_vertices = sr_alloc_array(fv ? fv : 1, sizeof *face_vertices);
    uint32_t *edges = sr_alloc_array(v.edge_count ? 2 * v.edge_count : 1, sizeof *edges);
    bool ok = vertices && faces && face_vertices && edges;
    if (!ok) {
        *status = SR_ERROR_OUT_OF_MEMORY;
        snprintf(why, why_size, "out of memory");
    } else {
        rec_cursor t = rec_cursor_make(vertex_bytes, v.vertex_count * 24);
        for (size_t i = 0; i < v.vertex_count; i++)
            vertices[i] = get_dvec3(&t);
        t = rec_cursor_make(face_bytes, (size_t)(c->end - face_bytes));
        for (size_t f = 0; f < v.face_count; f++) {
            uint64_t first = rec_get_varint(&t), count = rec_get_varint(&t);
            faces[f].first = first > UINT32_MAX ? UINT32_MAX : (uint32_t)first;
            faces[f].count = count > UINT32_MAX ? 0 : (uint32_t)count;
            faces[f].normal = get_dvec3(&t);
            faces[f].offset = rec_get_f64(&t);
        }
        t = rec_cursor_make(face_vertex_bytes, (size_t)(c->end - face_vertex_bytes));
        for (size_t i = 0; i < fv; i++)
            face_vertices[i] = (uint32_t)rec_get_count(&t, UINT32_MAX);
        t = rec_cursor_make(edge_bytes, (size_t)(c->end - edge_bytes));
        for (size_t i = 0; i < 2 * v.edge_count; i++)
            edges[i] = (uint32_t)rec_get_count(&t, UINT32_MAX);
        v.vertices = vertices;
        v.faces = faces;
        v.face_vertices = face_vertices;
        v.edges = edges;
        sr_error cause = {0};
        *status = t.bad ? SR_ERROR_PARSE : sr_hull_create_from_view(&v, fv, out, &cause);
        if (*status == SR_ERROR_INVALID_ARGUMENT)
            *status = SR_ERROR_PARSE;
        ok = *status == SR_OK;
        if (!ok)
            snprintf(why, why_size, "%s", t.bad ? "an index beyond 32 bits" : cause.message);
    }
    sr_free(vertices);
    sr_free(faces);
    sr_free(face_vertices);
    sr_free(edges);
    return ok;
}

bool rec_hull_check(const uint8_t *payload, size_t size, char *why, size_t why_size)
{
    rec_cursor c = rec_cursor_make(payload, size);
    uint64_t id = rec_get_varint(&c);
    if (c.bad || id == 0 || id > UINT32_MAX) {
        snprintf(why, why_size, "its id is malformed");
        return false;
    }
    sr_hull *hull = NULL;
    sr_status status;
    bool ok = decode_hull(&c, &hull, &status, why, why_size);
    sr_hull_destroy(hull);
    return ok;
}

static sr_status load_hull(rec_scene_reader *r, uint32_t stored, const sr_hull **out, sr_error *err)
{
    for (size_t i = 0; i < r->hull_count; i++)
        if (r->hulls[i].stored == stored) {
            *out = r->hulls[i].hull;
            return SR_OK;
        }
    const uint8_t *payload;
    size_t size;
    sr_status status = r->read(r->user, REC_HULL, stored, &payload, &size, err);
    if (status != SR_OK)
        return status;
    rec_cursor c = rec_cursor_make(payload, size);
    uint64_t id = rec_get_varint(&c);
    if (c.bad || id != stored)
        return sr_error_set(err, SR_ERROR_PARSE, "the definition of hull %u is malformed (its id)", stored);
    if (!grow((void **)&r->hulls, &r->hull_capacity, r->hull_count + 1, sizeof *r->hulls))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory loading hull %u", stored);
    sr_hull *hull = NULL;
    char why[256];
    if (!decode_hull(&c, &hull, &status, why, sizeof why))
        return sr_error_set(err, status, "the definition of hull %u is malformed: %s", stored, why);
    r->hulls[r->hull_count++] = (rec_hull_loaded){stored, hull};
    *out = hull;
    return SR_OK;
}

sr_status rec_shape_sync(rec_scene_reader *r, const rec_node *target, rec_built *b, sr_error *err)
{
    if (b->shape_size == target->shape_size && memcmp(b->shape, target->shape, target->shape_size) == 0)
        return SR_OK;
    sr_status status = SR_OK;
    if (!target->shape_size) {
        status = sr_scene_set_node_shape(r->scene, b->id, NULL, err);
    } else {
        sr_node_shape_desc desc = {0};
        uint32_t hull = 0;
        if (!decode_shape(target->shape, target->shape_size, &desc.shape, &desc.draw, &hull))
            return sr_error_set(err, SR_ERROR_PARSE, "node '%s' (slot %u): its shape is malformed", target->name,
                                b->slot);
        if (hull)
            status = load_hull(r, hull, &desc.shape.hull, err);
        if (status == SR_OK)
            status = sr_scene_set_node_shape(r->scene, b->id, &desc, err);
    }
    if (status == SR_ERROR_INVALID_ARGUMENT) {
        char reason[sizeof err->message];
        snprintf(reason, sizeof reason, "%s", err ? err->message : "");
        return sr_error_set(err, SR_ERROR_PARSE, "the shape of node '%s' (slot %u) of the recording is refused: %s",
                            target->name, b->slot, reason);
    }
    if (status == SR_OK) {
        memcpy(b->shape, target->shape, target->shape_size);
        b->shape_size = target->shape_size;
    }
    return status;
}
