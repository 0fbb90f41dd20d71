/* src/record/record_decode.c — a list's bytes back into debug items (record_encode.c's inverse),
 * each appended to a debug list with sr_debug_list_append, so a decoded item is checked as the
 * program's call was. Every read is bounds-checked against the list's bytes, every count bounded
 * by the bytes left (a damaged or hostile file allocates at most what it holds); an error names
 * the item and what was wrong with it. */
#include "record_internal.h"

#include <stdio.h>

enum {
    TAG_KIND = 0x1f,
    TAG_SAME_STYLE = 1u << 5,
    TAG_FLAG_1 = 1u << 6,
    TAG_FLAG_2 = 1u << 7,
};

void rec_decode_scratch_free(rec_decode_scratch *scratch)
{
    sr_free(scratch->points);
    sr_free(scratch->text);
    scratch->points = NULL;
    scratch->text = NULL;
    scratch->point_capacity = scratch->text_capacity = 0;
}

static bool reserve_points(rec_decode_scratch *scratch, size_t count)
{
    if (count <= scratch->point_capacity)
        return true;
    size_t wanted = count < 64 ? 64 : count;
    sr_vec3 *grown = sr_realloc(scratch->points, wanted * sizeof *grown);
    if (!grown)
        return false;
    scratch->points = grown;
    scratch->point_capacity = wanted;
    return true;
}

static bool reserve_text(rec_decode_scratch *scratch, size_t length)
{
    if (length < scratch->text_capacity)
        return true;
    size_t wanted = length + 1 < 256 ? 256 : length + 1;
    char *grown = sr_realloc(scratch->text, wanted);
    if (!grown)
        return false;
    scratch->text = grown;
    scratch->text_capacity = wanted;
    return true;
}

const char *rec_item_kind_name(sr_debug_item_kind kind)
{
    static const char *const names[SR_DEBUG_ITEM_KIND_COUNT] = {
        "line",     "arrow",    "point", "dot",     "box",     "sphere", "oriented sphere",
        "capsule",  "cylinder", "cone",  "circle",  "frustum", "axes",   "grid",
        "triangle", "polyline", "text",  "text 2d", "rect 2d", "shape",
    };
    return (unsigned)kind < SR_DEBUG_ITEM_KIND_COUNT ? names[kind] : "unknown item";
}

sr_status rec_list_decode(rec_cursor *c, uint64_t item_count, sr_debug_list *list, rec_decode_scratch *scratch,
                          sr_record_sizes *sizes, char *what, size_t what_size)
{
    rec_style_table *styles = &scratch->styles;
    memset(styles->packed, 0, sizeof styles->packed);
    uint32_t color = SR_DEBUG_WHITE, packed = 0;
    sr_vec3 previous_end = {0, 0, 0};
    bool has_end = false;

    for (uint64_t i = 0; i < item_count; i++) {
        const uint8_t *start = c->p;
        uint32_t tag = rec_get_u8(c);
        uint32_t kind = tag & TAG_KIND;
        if (c->bad) {
            snprintf(what, what_size, "item %llu: the list's bytes end before it (%llu items announced)",
                     (unsigned long long)i, (unsigned long long)item_count);
            return SR_ERROR_PARSE;
        }
        if (kind == REC_ITEM_EXTENSION) {
            // An item kind of a newer minor version: its length says how much to skip.
            size_t length = (size_t)rec_get_count(c, rec_left(c));
            rec_take(c, length);
            if (c->bad) {
                snprintf(what, what_size, "item %llu: an extension item longer than the list", (unsigned long long)i);
                return SR_ERROR_PARSE;
            }
            continue;
        }
        if (kind >= SR_DEBUG_ITEM_KIND_COUNT) {
            snprintf(what, what_size, "item %llu: unknown item kind %u", (unsigned long long)i, kind);
            return SR_ERROR_PARSE;
        }
        if (!(tag & TAG_SAME_STYLE)) {
            uint32_t code = rec_get_u8(c);
            if (code == REC_STYLE_LITERAL) {
                color = rec_get_u32(c);
                packed = rec_get_u8(c);
                if (packed > 7) {
                    snprintf(what, what_size, "item %llu (%s): style byte %u has unknown bits", (unsigned long long)i,
                             rec_item_kind_name((sr_debug_item_kind)kind), packed);
                    return SR_ERROR_PARSE;
                }
                uint32_t slot = rec_style_slot(color, packed);
                styles->color[slot] = color;
                styles->packed[slot] = (uint8_t)(packed | 0x80u);
            } else if (code < REC_STYLE_SLOTS && styles->packed[code]) {
                color = styles->color[code];
                packed = styles->packed[code] & 0x7fu;
            } else if (!c->bad) {
                snprintf(what, what_size, "item %llu (%s): style slot %u was never filled", (unsigned long long)i,
                         rec_item_kind_name((sr_debug_item_kind)kind), code);
                return SR_ERROR_PARSE;
            }
        }
        sr_debug_item item;
        memset(&item, 0, sizeof item);
        item.kind = (sr_debug_item_kind)kind;
        item.style.color = color;
        item.style.width = (int)(packed & 3u) + 1;
        item.style.on_top = (packed & 4u) != 0;
        const sr_vec3 *points = NULL;
        const char *text = NULL;
        switch (item.kind) {
        case SR_DEBUG_ITEM_LINE:
        case SR_DEBUG_ITEM_ARROW:
            if (tag & TAG_FLAG_2) {
                if (!has_end) {
                    snprintf(what, what_size, "item %llu (%s): continues a line but no line came before",
                             (unsigned long long)i, rec_item_kind_name(item.kind));
                    return SR_ERROR_PARSE;
                }
                item.line.a = previous_end;
            } else {
                item.line.a = rec_get_vec3(c);
            }
            item.line.b = rec_get_vec3(c);
            item.line.color_b = item.kind == SR_DEBUG_ITEM_LINE && (tag & TAG_FLAG_1) ? rec_get_u32(c) : color;
            if (item.kind == SR_DEBUG_ITEM_ARROW && (tag & TAG_FLAG_1))
                c->bad = true; // arrows have one colour
            previous_end = item.line.b;
            has_end = true;
            break;
        case SR_DEBUG_ITEM_POINT:
        case SR_DEBUG_ITEM_DOT:
            item.point.position = rec_get_vec3(c);
            item.point.size_px =
                (tag & TAG_FLAG_1) ? (item.kind == SR_DEBUG_ITEM_POINT ? REC_POINT_DEFAULT_SIZE : REC_DOT_DEFAULT_SIZE)
                                   : rec_get_f32(c);
            break;
        case SR_DEBUG_ITEM_BOX:
            if (!rec_transform_decode(c, &item.box.transform, &item.box.box))
                c->bad = true;
            break;
        case SR_DEBUG_ITEM_SPHERE:
            item.sphere.centre = rec_get_vec3(c);
            item.sphere.radius = rec_get_f32(c);
            item.sphere.rotation = sr_quat_identity();
            break;
        case SR_DEBUG_ITEM_ORIENTED_SPHERE:
            item.sphere.centre = rec_get_vec3(c);
            item.sphere.radius = rec_get_f32(c);
            item.sphere.rotation.x = rec_get_f32(c);
            item.sphere.rotation.y = rec_get_f32(c);
            item.sphere.rotation.z = rec_get_f32(c);
            item.sphere.rotation.w = rec_get_f32(c);
            break;
        case SR_DEBUG_ITEM_CAPSULE:
        case SR_DEBUG_ITEM_CYLINDER:
        case SR_DEBUG_ITEM_CONE:
            item.segment.a = rec_get_vec3(c);
            item.segment.b = rec_get_vec3(c);
            item.segment.radius = rec_get_f32(c);
            break;
        case SR_DEBUG_ITEM_CIRCLE:
            item.circle.centre = rec_get_vec3(c);
            item.circle.normal = (tag & TAG_FLAG_1) ? sr_vec3_make(0.0f, 0.0f, 1.0f) : rec_get_vec3(c);
            item.circle.radius = rec_get_f32(c);
            item.circle.fill_color = (tag & TAG_FLAG_2) ? rec_get_u32(c) : 0u;
            break;
        case SR_DEBUG_ITEM_FRUSTUM:
            for (int k = 0; k < 16; k++)
                item.frustum.view_projection.m[k] = rec_get_f32(c);
            break;
        case SR_DEBUG_ITEM_AXES:
            if (!rec_transform_decode(c, &item.axes.transform, NULL))
                c->bad = true;
            item.axes.length = rec_get_f32(c);
            break;
        case SR_DEBUG_ITEM_GRID:
            item.grid.centre = rec_get_vec3(c);
            item.grid.size = rec_get_f32(c);
            item.grid.divisions = (int)rec_get_count(c, 4096);
            break;
        case SR_DEBUG_ITEM_TRIANGLE:
            item.triangle.a = rec_get_vec3(c);
            item.triangle.b = rec_get_vec3(c);
            item.triangle.c = rec_get_vec3(c);
            item.triangle.fill_color = (tag & TAG_FLAG_1) ? rec_get_u32(c) : 0u;
            break;
        case SR_DEBUG_ITEM_POLYLINE: {
            size_t n = (size_t)rec_get_count(c, rec_left(c) / 12u);
            if (!reserve_points(scratch, n)) {
                snprintf(what, what_size, "item %llu (polyline): out of memory for %zu points", (unsigned long long)i,
                         n);
                return SR_ERROR_OUT_OF_MEMORY;
            }
            for (size_t k = 0; k < n; k++)
                scratch->points[k] = rec_get_vec3(c);
            item.polyline.count = (uint32_t)n;
            item.polyline.closed = (tag & TAG_FLAG_1) != 0;
            item.polyline.fill_color = (tag & TAG_FLAG_2) ? rec_get_u32(c) : 0u;
            points = scratch->points;
            break;
        }
        case SR_DEBUG_ITEM_TEXT:
        case SR_DEBUG_ITEM_TEXT_2D: {
            if (item.kind == SR_DEBUG_ITEM_TEXT) {
                item.text.anchor = rec_get_vec3(c);
            } else {
                item.text.anchor.x = rec_get_f32(c);
                item.text.anchor.y = rec_get_f32(c);
            }
            size_t length = 0;
            const char *bytes = rec_get_string(c, rec_left(c), &length);
            if (bytes && memchr(bytes, '\0', length)) {
                snprintf(what, what_size, "item %llu (%s): a NUL byte inside the text", (unsigned long long)i,
                         rec_item_kind_name(item.kind));
                return SR_ERROR_PARSE;
            }
            if (!reserve_text(scratch, length)) {
                snprintf(what, what_size, "item %llu (text): out of memory for %zu bytes", (unsigned long long)i,
                         length);
                return SR_ERROR_OUT_OF_MEMORY;
            }
            if (bytes)
                memcpy(scratch->text, bytes, length);
            scratch->text[length] = '\0';
            item.text.length = (uint32_t)length;
            text = scratch->text;
            break;
        }
        case SR_DEBUG_ITEM_RECT_2D:
            item.rect.x = rec_get_f32(c);
            item.rect.y = rec_get_f32(c);
            item.rect.width = rec_get_f32(c);
            item.rect.height = rec_get_f32(c);
            item.rect.filled = (tag & TAG_FLAG_1) != 0;
            break;
        case SR_DEBUG_ITEM_SHAPE: {
            sr_debug_item_shape *s = &item.shape;
            uint32_t type = rec_get_u8(c);
            if (type >= SR_SHAPE_TYPE_COUNT && !c->bad) {
                snprintf(what, what_size, "item %llu (shape): unknown shape type %u", (unsigned long long)i, type);
                return SR_ERROR_PARSE;
            }
            s->type = (sr_shape_type)type;
            s->position = rec_get_vec3(c);
            s->rotation.x = rec_get_f32(c);
            s->rotation.y = rec_get_f32(c);
            s->rotation.z = rec_get_f32(c);
            s->rotation.w = rec_get_f32(c);
            s->radius = rec_get_f32(c);
            s->half_height = rec_get_f32(c);
            s->rounding = rec_get_f32(c);
            s->half_extents = rec_get_vec3(c);
            for (int k = 0; k < 3; k++)
                s->points[k] = rec_get_vec3(c);
            size_t n = (size_t)rec_get_count(c, rec_left(c) / 12u);
            if (!reserve_points(scratch, n)) {
                snprintf(what, what_size, "item %llu (shape): out of memory for %zu points", (unsigned long long)i, n);
                return SR_ERROR_OUT_OF_MEMORY;
            }
            for (size_t k = 0; k < n; k++)
                scratch->points[k] = rec_get_vec3(c);
            s->count = (uint32_t)n;
            points = scratch->points;
            break;
        }
        case SR_DEBUG_ITEM_KIND_COUNT:
            break;
        }
        if (c->bad) {
            snprintf(what, what_size, "item %llu (%s): malformed, or cut short by the end of the list",
                     (unsigned long long)i, rec_item_kind_name(item.kind));
            return SR_ERROR_PARSE;
        }
        if (sizes) {
            sizes->items[kind] += (uint64_t)(c->p - start);
            sizes->item_counts[kind]++;
        }
        if (list)
            sr_debug_list_append(list, &item, points, text);
    }
    return SR_OK;
}
