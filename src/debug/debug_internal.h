/* src/debug/debug_internal.h — the storage of sr_debug_list, shared by debug_list.c (filling) and
 * debug_draw.c (drawing). Never installed. */
#ifndef SR_DEBUG_INTERNAL_H
#define SR_DEBUG_INTERNAL_H

#include <softrast/debug.h>

/// What an item of the segment array is.
enum {
    ITEM_SEGMENT = 0, ///< a world-space segment a-b
    ITEM_MARKER,      ///< a screen-size cross at a, `size` pixels wide
    ITEM_RECT,        ///< a 2D rectangle: a = (x, y), b = (width, height), outline
    ITEM_FILLED_RECT, ///< the same, filled
};

typedef struct debug_item {
    sr_vec3 a, b;
    float size;
    uint32_t color;
    uint8_t kind, width, on_top;
} debug_item;

typedef struct debug_text {
    sr_vec3 anchor; ///< world point, or (x, y, 0) window pixels for 2D text
    uint32_t color;
    uint32_t offset; ///< of the NUL-terminated text in the list's bytes
    uint8_t scale, on_top, is_2d;
} debug_text;

struct sr_debug_list {
    debug_item *items;
    size_t item_count, item_capacity, items_asked;
    debug_text *texts;
    size_t text_count, text_capacity, texts_asked;
    char *bytes;
    size_t byte_count, byte_capacity, bytes_asked;
    /// Line vertices for sr_debug_draw: two per item, sized with the item capacity.
    sr_line_vertex *scratch;
    /// Bumped by every item added (kept or dropped) and every clear (sr_debug_list_generation).
    uint64_t generation;
};

/// Adds an item (dropped and counted when the list is full).
void sr_debug_add_item(sr_debug_list *list, const debug_item *item);

#endif
