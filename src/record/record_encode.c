/* src/record/record_encode.c — a debug list's items into bytes (the writer's hot loop).
 *
 * Each item is a tag byte (its kind in bits 0-4; bit 5: the style of the previous item; bits 6
 * and 7: flags of the kind), its style unless bit 5 says it is the previous one (a byte: a slot
 * of the table of recent styles, or 255 and the colour and width literally), then its parameters
 * as raw little-endian floats, exactly, with the common cases folded into the flag bits: a line
 * that starts where the previous line ended, a single-coloured line, a default point size, a
 * circle in the XY plane, an unfilled triangle. A line is 25 bytes, or 13 in a strip; a collide
 * shape (sr_debug_shape) is its type byte and every parameter, and a hull's wire points. The format
 * of every kind is in docs (README, "Recording format"). Allocates nothing: the caller reserves
 * rec_list_bound bytes. */
#include "record_internal.h"

#include <stddef.h>

/* Tag bits. */
enum {
    TAG_SAME_STYLE = 1u << 5,
    TAG_FLAG_1 = 1u << 6,
    TAG_FLAG_2 = 1u << 7,
};

/* The most bytes of a fixed-size item: tag, literal style (6), a box's or axes' transform and
 * length (a shape's fixed part, 89 bytes, is smaller). */
#define ITEM_FIXED_MAX (1u + 6u + REC_TRANSFORM_MAX + 4u)

size_t rec_list_bound(const sr_debug_list_stats *stats)
{
    // Every item at the largest fixed size, plus the variable parts: points and text bytes, each
    // text's and polyline's length varint.
    return stats->items * (size_t)ITEM_FIXED_MAX + stats->points * 12u + stats->text_bytes +
           (stats->items + 1) * (size_t)REC_VARINT_MAX;
}

_Static_assert(1u + 89u <= REC_TRANSFORM_MAX + 4u, "a shape item's fixed part fits the bound");
_Static_assert(sizeof(sr_vec3) == 12, "sr_vec3 is three floats: stored with one copy");
_Static_assert(offsetof(sr_debug_item_line, b) == offsetof(sr_debug_item_line, a) + sizeof(sr_vec3),
               "a line's ends are contiguous: stored with one copy");

static inline bool same_vec3(sr_vec3 a, sr_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0; // bit for bit: -0 is not +0, a NaN may equal itself
}

static inline uint32_t packed_style(const sr_debug_style *style)
{
    int width = style->width < 1 ? 1 : style->width > 4 ? 4 : style->width;
    return (uint32_t)(width - 1) | (style->on_top ? 4u : 0u);
}

uint8_t *rec_list_encode(uint8_t *p, const sr_debug_list *list, rec_style_table *styles, sr_record_sizes *sizes,
                         uint64_t *encoded)
{
    size_t count = 0;
    const sr_debug_item *items = sr_debug_list_items(list, &count);
    *encoded = 0;
    if (!count)
        return p;
    memset(styles->packed, 0, sizeof styles->packed);
    // The style an item repeats when it has none of its own; the reader starts from the same.
    // previous_width and previous_on_top: the last style's own fields (any whose packed_style is
    // previous_packed), compared as they are by the fast path below.
    uint32_t previous_color = SR_DEBUG_WHITE, previous_packed = 0;
    int previous_width = 1;
    bool previous_on_top = false;
    const sr_vec3 *previous_end = NULL; // the last line's or arrow's b, in the list (NULL: none yet)
    uint64_t kind_bytes[SR_DEBUG_ITEM_KIND_COUNT] = {0}, kind_counts[SR_DEBUG_ITEM_KIND_COUNT] = {0};
    uint64_t line_bytes = 0, line_count = 0; // the fast path's, in registers

    for (size_t i = 0; i < count; i++) {
        const sr_debug_item *item = &items[i];
        uint32_t kind = (uint32_t)item->kind;
        // The common case first: a one-coloured line in the previous item's style (an engine's
        // stream of drawLine calls). Same bytes as the general path below, with less to decide.
        if (kind == SR_DEBUG_ITEM_LINE && item->style.color == previous_color && item->line.color_b == previous_color &&
            item->style.width == previous_width && item->style.on_top == previous_on_top) {
            uint8_t *start = p;
            // Compared and copied in place (no sr_vec3 copies on the stack): a and b are 24
            // contiguous bytes of the item, stored as they are on a little-endian host.
            if (previous_end && memcmp(&item->line.a, previous_end, sizeof(sr_vec3)) == 0) {
                *p = SR_DEBUG_ITEM_LINE | TAG_SAME_STYLE | TAG_FLAG_2;
                p = rec_put_vec3(p + 1, item->line.b);
            } else {
                *p = SR_DEBUG_ITEM_LINE | TAG_SAME_STYLE;
#if REC_LITTLE_ENDIAN
                memcpy(p + 1, &item->line.a, 2 * sizeof(sr_vec3));
                p += 1 + 2 * sizeof(sr_vec3);
#else
                p = rec_put_vec3(rec_put_vec3(p + 1, item->line.a), item->line.b);
#endif
            }
            previous_end = &item->line.b;
            line_bytes += (uint64_t)(p - start);
            line_count++;
            continue;
        }
        if (kind >= SR_DEBUG_ITEM_KIND_COUNT)
            continue; // a list never holds one; nothing a reader could rebuild
        uint8_t *start = p++;
        uint32_t tag = kind;
        uint32_t color = item->style.color, packed = packed_style(&item->style);
        if (color == previous_color && packed == previous_packed) {
            tag |= TAG_SAME_STYLE;
        } else {
            uint32_t slot = rec_style_slot(color, packed);
            if (styles->packed[slot] == (packed | 0x80u) && styles->color[slot] == color) {
                *p++ = (uint8_t)slot;
            } else {
                *p++ = REC_STYLE_LITERAL;
                p = rec_put_u32(p, color);
                *p++ = (uint8_t)packed;
                styles->color[slot] = color;
                styles->packed[slot] = (uint8_t)(packed | 0x80u);
            }
            previous_color = color;
            previous_packed = packed;
        }
        previous_width = item->style.width;
        previous_on_top = item->style.on_top;
        switch (item->kind) {
        case SR_DEBUG_ITEM_LINE:
        case SR_DEBUG_ITEM_ARROW:
            if (previous_end && same_vec3(item->line.a, *previous_end))
                tag |= TAG_FLAG_2;
            else
                p = rec_put_vec3(p, item->line.a);
            p = rec_put_vec3(p, item->line.b);
            // An arrow's second colour is its style's (sr_debug_arrow sets it so).
            if (item->kind == SR_DEBUG_ITEM_LINE && item->line.color_b != color) {
                tag |= TAG_FLAG_1;
                p = rec_put_u32(p, item->line.color_b);
            }
            previous_end = &item->line.b;
            break;
        case SR_DEBUG_ITEM_POINT:
        case SR_DEBUG_ITEM_DOT: {
            float fallback = item->kind == SR_DEBUG_ITEM_POINT ? REC_POINT_DEFAULT_SIZE : REC_DOT_DEFAULT_SIZE;
            p = rec_put_vec3(p, item->point.position);
            if (rec_float_bits(item->point.size_px) == rec_float_bits(fallback))
                tag |= TAG_FLAG_1;
            else
                p = rec_put_f32(p, item->point.size_px);
            break;
        }
        case SR_DEBUG_ITEM_BOX:
            p = rec_transform_encode(p, &item->box.transform, &item->box.box);
            break;
        case SR_DEBUG_ITEM_SPHERE:
            p = rec_put_vec3(p, item->sphere.centre);
            p = rec_put_f32(p, item->sphere.radius);
            break;
        case SR_DEBUG_ITEM_ORIENTED_SPHERE:
            p = rec_put_vec3(p, item->sphere.centre);
            p = rec_put_f32(p, item->sphere.radius);
            p = rec_put_f32(p, item->sphere.rotation.x);
            p = rec_put_f32(p, item->sphere.rotation.y);
            p = rec_put_f32(p, item->sphere.rotation.z);
            p = rec_put_f32(p, item->sphere.rotation.w);
            break;
        case SR_DEBUG_ITEM_CAPSULE:
        case SR_DEBUG_ITEM_CYLINDER:
        case SR_DEBUG_ITEM_CONE:
            p = rec_put_vec3(p, item->segment.a);
            p = rec_put_vec3(p, item->segment.b);
            p = rec_put_f32(p, item->segment.radius);
            break;
        case SR_DEBUG_ITEM_CIRCLE:
            p = rec_put_vec3(p, item->circle.centre);
            if (same_vec3(item->circle.normal, sr_vec3_make(0.0f, 0.0f, 1.0f)))
                tag |= TAG_FLAG_1; // Box2D's plane
            else
                p = rec_put_vec3(p, item->circle.normal);
            p = rec_put_f32(p, item->circle.radius);
            if (item->circle.fill_color) {
                tag |= TAG_FLAG_2;
                p = rec_put_u32(p, item->circle.fill_color);
            }
            break;
        case SR_DEBUG_ITEM_FRUSTUM:
            for (int k = 0; k < 16; k++)
                p = rec_put_f32(p, item->frustum.view_projection.m[k]);
            break;
        case SR_DEBUG_ITEM_AXES:
            p = rec_transform_encode(p, &item->axes.transform, NULL);
            p = rec_put_f32(p, item->axes.length);
            break;
        case SR_DEBUG_ITEM_GRID:
            p = rec_put_vec3(p, item->grid.centre);
            p = rec_put_f32(p, item->grid.size);
            p = rec_put_varint(p, (uint32_t)item->grid.divisions);
            break;
        case SR_DEBUG_ITEM_TRIANGLE:
            p = rec_put_vec3(p, item->triangle.a);
            p = rec_put_vec3(p, item->triangle.b);
            p = rec_put_vec3(p, item->triangle.c);
            if (item->triangle.fill_color) {
                tag |= TAG_FLAG_1;
                p = rec_put_u32(p, item->triangle.fill_color);
            }
            break;
        case SR_DEBUG_ITEM_POLYLINE: {
            const sr_vec3 *points = sr_debug_list_item_points(list, item);
            uint32_t n = points ? item->polyline.count : 0;
            if (item->polyline.closed)
                tag |= TAG_FLAG_1;
            p = rec_put_varint(p, n);
            for (uint32_t k = 0; k < n; k++)
                p = rec_put_vec3(p, points[k]);
            if (item->polyline.fill_color) {
                tag |= TAG_FLAG_2;
                p = rec_put_u32(p, item->polyline.fill_color);
            }
            break;
        }
        case SR_DEBUG_ITEM_TEXT:
        case SR_DEBUG_ITEM_TEXT_2D: {
            const char *text = sr_debug_list_item_text(list, item);
            if (item->kind == SR_DEBUG_ITEM_TEXT) {
                p = rec_put_vec3(p, item->text.anchor);
            } else {
                p = rec_put_f32(p, item->text.anchor.x);
                p = rec_put_f32(p, item->text.anchor.y);
            }
            p = rec_put_string(p, text ? text : "", text ? item->text.length : 0);
            break;
        }
        case SR_DEBUG_ITEM_RECT_2D:
            p = rec_put_f32(p, item->rect.x);
            p = rec_put_f32(p, item->rect.y);
            p = rec_put_f32(p, item->rect.width);
            p = rec_put_f32(p, item->rect.height);
            if (item->rect.filled)
                tag |= TAG_FLAG_1;
            break;
        case SR_DEBUG_ITEM_SHAPE: {
            // Every parameter, whatever the type (the unused ones are zeros): 89 bytes, then a
            // hull's wire as point pairs in the shape's frame.
            const sr_debug_item_shape *s = &item->shape;
            const sr_vec3 *points = sr_debug_list_item_points(list, item);
            uint32_t n = points ? s->count : 0;
            p = rec_put_u8(p, (uint32_t)s->type);
            p = rec_put_vec3(p, s->position);
            p = rec_put_f32(p, s->rotation.x);
            p = rec_put_f32(p, s->rotation.y);
            p = rec_put_f32(p, s->rotation.z);
            p = rec_put_f32(p, s->rotation.w);
            p = rec_put_f32(p, s->radius);
            p = rec_put_f32(p, s->half_height);
            p = rec_put_f32(p, s->rounding);
            p = rec_put_vec3(p, s->half_extents);
            for (int k = 0; k < 3; k++)
                p = rec_put_vec3(p, s->points[k]);
            p = rec_put_varint(p, n);
            for (uint32_t k = 0; k < n; k++)
                p = rec_put_vec3(p, points[k]);
            break;
        }
        case SR_DEBUG_ITEM_KIND_COUNT:
            break;
        }
        *start = (uint8_t)tag;
        kind_bytes[kind] += (uint64_t)(p - start);
        kind_counts[kind]++;
    }
    kind_bytes[SR_DEBUG_ITEM_LINE] += line_bytes;
    kind_counts[SR_DEBUG_ITEM_LINE] += line_count;
    for (int k = 0; k < SR_DEBUG_ITEM_KIND_COUNT; k++) {
        *encoded += kind_counts[k];
        if (sizes) {
            sizes->items[k] += kind_bytes[k];
            sizes->item_counts[k] += kind_counts[k];
        }
    }
    return p;
}
