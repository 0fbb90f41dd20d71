/* src/debug/debug_list.c — the debug list's storage (softrast/debug.h): fixed capacities grown
 * between frames, items kept as their parameters with what they cost (segments, triangles,
 * points, text bytes), the counters, and read access for recorders. Knows nothing of drawing or
 * of the shapes' geometry (debug_items.c adds them, debug_tessellate.c makes their segments). */
#include "debug_internal.h"

#include <string.h>

#define DEFAULT_ITEMS 16384
#define DEFAULT_SEGMENTS 16384
#define DEFAULT_TRIANGLES 4096
#define DEFAULT_POINTS 4096
#define DEFAULT_TEXTS 256
#define DEFAULT_TEXT_BYTES 16384

/* The capacities of a list, in one struct so that creation and growth read alike. */
typedef struct capacities {
    size_t items, segments, triangles, points, texts, bytes;
} capacities;

/* Grows `*array` of `*capacity` elements of `size` bytes to `wanted` (never shrinks). */
static bool grow(void **array, size_t *capacity, size_t wanted, size_t size)
{
    if (wanted <= *capacity)
        return true;
    if (wanted > SIZE_MAX / 4 / size)
        return false;
    void *grown = sr_realloc(*array, wanted * size);
    if (!grown)
        return false;
    sr_advise_huge_pages(grown, wanted * size); // a 100,000-line list: some 16 MB filled at once
    *array = grown;
    *capacity = wanted;
    return true;
}

/* Grows every array to `c` (0: unchanged). A failure leaves what was grown so far usable: each
 * capacity stays the size of its array. */
static bool reserve(sr_debug_list *list, capacities c)
{
    // The scratch of sr_debug_draw (the list's own or a shared one, which may be larger already):
    // 2 line vertices per segment, 3 per triangle.
    sr_debug_scratch *scratch = list->scratch;
    if (c.segments > SIZE_MAX / 8 || c.triangles > SIZE_MAX / 8)
        return false;
    if (!grow((void **)&scratch->segments, &scratch->segment_vertices, 2 * c.segments, sizeof(sr_line_vertex)))
        return false;
    if (c.segments > list->segment_capacity)
        list->segment_capacity = c.segments;
    if (!grow((void **)&scratch->triangles, &scratch->triangle_vertices, 3 * c.triangles, sizeof(sr_line_vertex)))
        return false;
    if (c.triangles > list->triangle_capacity)
        list->triangle_capacity = c.triangles;
    if (c.texts > list->text_capacity) // texts are items: a count, no array of their own
        list->text_capacity = c.texts;
    return grow((void **)&list->items, &list->item_capacity, c.items, sizeof(sr_debug_item)) &&
           grow((void **)&list->points, &list->point_capacity, c.points, sizeof(sr_vec3)) &&
           grow((void **)&list->bytes, &list->byte_capacity, c.bytes, 1);
}

sr_status sr_debug_scratch_create(sr_debug_scratch **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_scratch_create: out is NULL");
    *out = sr_calloc(1, sizeof **out);
    return *out ? SR_OK : sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_debug_scratch_create: out of memory");
}

void sr_debug_scratch_destroy(sr_debug_scratch *scratch)
{
    if (!scratch)
        return;
    sr_free(scratch->segments);
    sr_free(scratch->triangles);
    sr_free(scratch);
}

size_t sr_debug_scratch_bytes(const sr_debug_scratch *scratch)
{
    return scratch ? (scratch->segment_vertices + scratch->triangle_vertices) * sizeof(sr_line_vertex) : 0;
}

size_t sr_debug_scratch_segments(const sr_debug_scratch *scratch)
{
    return scratch ? scratch->segment_vertices / 2 : 0;
}

/* Writes every page of `size` bytes at `block` (the first touch of fresh memory is a page fault:
 * taken here rather than by the first fill). */
static void touch(void *block, size_t size)
{
    if (block)
        memset(block, 0, size);
}

sr_status sr_debug_list_create(const sr_debug_list_desc *desc, sr_debug_list **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_list_create: out is NULL");
    *out = NULL;
    sr_debug_list_desc d = desc ? *desc : (sr_debug_list_desc){0};
    sr_debug_list *list = sr_calloc(1, sizeof *list);
    capacities c = {
        .items = d.item_capacity ? d.item_capacity : DEFAULT_ITEMS,
        .segments = d.segment_capacity ? d.segment_capacity : DEFAULT_SEGMENTS,
        .triangles = d.triangle_capacity ? d.triangle_capacity : DEFAULT_TRIANGLES,
        .points = d.point_capacity ? d.point_capacity : DEFAULT_POINTS,
        .texts = d.text_capacity ? d.text_capacity : DEFAULT_TEXTS,
        .bytes = d.text_bytes ? d.text_bytes : DEFAULT_TEXT_BYTES,
    };
    if (list)
        list->scratch = d.scratch ? d.scratch : &list->own;
    if (!list || !reserve(list, c)) {
        sr_debug_list_destroy(list);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_debug_list_create: out of memory");
    }
    if (d.touch_memory) {
        touch(list->items, list->item_capacity * sizeof(sr_debug_item));
        touch(list->points, list->point_capacity * sizeof(sr_vec3));
        touch(list->bytes, list->byte_capacity);
        touch(list->scratch->segments, list->scratch->segment_vertices * sizeof(sr_line_vertex));
        touch(list->scratch->triangles, list->scratch->triangle_vertices * sizeof(sr_line_vertex));
    }
    *out = list;
    return SR_OK;
}

void sr_debug_list_destroy(sr_debug_list *list)
{
    if (!list)
        return;
    sr_free(list->items);
    sr_free(list->own.segments); // a shared scratch belongs to its creator
    sr_free(list->own.triangles);
    sr_free(list->points);
    sr_free(list->bytes);
    sr_free(list);
}

/* What a capacity grows to at a clear: half again over the demand, so that a slowly growing
 * frame does not grow every time; 0 (unchanged) when the demand fitted. */
static size_t grown(size_t asked, size_t capacity)
{
    return asked > capacity ? asked + asked / 2 : 0;
}

sr_status sr_debug_list_clear(sr_debug_list *list, sr_error *err)
{
    if (!list)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_debug_list_clear: list is NULL");
    capacities c = {
        .items = grown(list->items_asked, list->item_capacity),
        .segments = grown(list->segments_asked, list->segment_capacity),
        .triangles = grown(list->triangles_asked, list->triangle_capacity),
        .points = grown(list->points_asked, list->point_capacity),
        .texts = grown(list->texts_asked, list->text_capacity),
        .bytes = grown(list->bytes_asked, list->byte_capacity),
    };
    list->generation++;
    list->item_count = list->segment_count = list->triangle_count = list->point_count = 0;
    list->text_count = list->byte_count = 0;
    list->items_asked = list->segments_asked = list->triangles_asked = list->points_asked = 0;
    list->texts_asked = list->bytes_asked = 0;
    if (!reserve(list, c))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_debug_list_clear: out of memory growing the list");
    return SR_OK;
}

sr_debug_list_stats sr_debug_list_get_stats(const sr_debug_list *list)
{
    if (!list)
        return (sr_debug_list_stats){0};
    return (sr_debug_list_stats){
        .segments = list->segment_count,
        .texts = list->text_count,
        .text_bytes = list->byte_count,
        .segments_dropped = list->segments_asked - list->segment_count,
        .texts_dropped = list->texts_asked - list->text_count,
        .segment_capacity = list->segment_capacity,
        .text_capacity = list->text_capacity,
        .text_byte_capacity = list->byte_capacity,
        .items = list->item_count,
        .triangles = list->triangle_count,
        .points = list->point_count,
        .items_dropped = list->items_asked - list->item_count,
        .item_capacity = list->item_capacity,
        .triangle_capacity = list->triangle_capacity,
        .point_capacity = list->point_capacity,
        .scratch_bytes = sr_debug_scratch_bytes(&list->own),
    };
}

uint64_t sr_debug_list_generation(const sr_debug_list *list)
{
    return list ? list->generation : 0;
}

sr_debug_item *sr_debug_list_begin(sr_debug_list *list, sr_debug_item_kind kind, sr_debug_style style)
{
    sr_debug_item *item = list->item_count < list->item_capacity ? &list->items[list->item_count] : &list->spare;
    memset(item, 0, sizeof *item); // the union's unused bytes too: recorders may copy items whole
    item->kind = kind;
    // Field by field: a struct assignment may copy the caller's padding bytes (after on_top),
    // and an item must compare equal byte for byte to its copy read back from a recording.
    item->style.color = style.color;
    item->style.width = style.width < 1 ? 1 : style.width > 4 ? 4 : style.width;
    item->style.on_top = style.on_top;
    return item;
}

void sr_debug_list_commit(sr_debug_list *list, sr_debug_item *item, const sr_vec3 *points, const char *text)
{
    debug_cost cost = sr_debug_item_cost(item);
    bool is_text = item->kind == SR_DEBUG_ITEM_TEXT || item->kind == SR_DEBUG_ITEM_TEXT_2D;
    list->generation++;
    list->items_asked++;
    list->segments_asked += cost.segments;
    list->triangles_asked += cost.triangles;
    list->points_asked += cost.points;
    list->texts_asked += is_text;
    list->bytes_asked += cost.bytes;
    // Each comparison is written so that it cannot overflow: the counts never pass the capacities.
    if (item == &list->spare || cost.segments > list->segment_capacity - list->segment_count ||
        cost.triangles > list->triangle_capacity - list->triangle_count ||
        cost.points > list->point_capacity - list->point_count || (is_text && list->text_count >= list->text_capacity) ||
        cost.bytes > list->byte_capacity - list->byte_count)
        return; // dropped: the slot past item_count is free for the next item
    sr_vec3 *kept = list->points + list->point_count;
    if (cost.points && points != kept) // a shape's wire may have been written in place
        memcpy(kept, points, cost.points * sizeof *points);
    if (item->kind == SR_DEBUG_ITEM_POLYLINE)
        item->polyline.first = (uint32_t)list->point_count;
    if (item->kind == SR_DEBUG_ITEM_SHAPE)
        item->shape.first = (uint32_t)list->point_count;
    if (is_text) {
        memcpy(list->bytes + list->byte_count, text, cost.bytes - 1);
        list->bytes[list->byte_count + cost.bytes - 1] = '\0';
        item->text.offset = (uint32_t)list->byte_count;
    }
    list->item_count++;
    list->segment_count += cost.segments;
    list->triangle_count += cost.triangles;
    list->point_count += cost.points;
    list->text_count += is_text;
    list->byte_count += cost.bytes;
}

sr_vec3 *sr_debug_list_point_space(sr_debug_list *list, size_t count)
{
    return count <= list->point_capacity - list->point_count ? list->points + list->point_count : NULL;
}

/* ---- reading ---- */

const sr_debug_item *sr_debug_list_items(const sr_debug_list *list, size_t *count)
{
    size_t n = list ? list->item_count : 0;
    if (count)
        *count = n;
    return n ? list->items : NULL;
}

/* Whether `item` is one of the list's kept items (a pointer into its array). */
static bool owns(const sr_debug_list *list, const sr_debug_item *item)
{
    return list && item && (uintptr_t)item >= (uintptr_t)list->items &&
           (uintptr_t)item < (uintptr_t)(list->items + list->item_count);
}

const sr_vec3 *sr_debug_list_item_points(const sr_debug_list *list, const sr_debug_item *item)
{
    if (!owns(list, item))
        return NULL;
    if (item->kind == SR_DEBUG_ITEM_SHAPE)
        return list->points + item->shape.first;
    return item->kind == SR_DEBUG_ITEM_POLYLINE ? list->points + item->polyline.first : NULL;
}

const char *sr_debug_list_item_text(const sr_debug_list *list, const sr_debug_item *item)
{
    if (!owns(list, item) || (item->kind != SR_DEBUG_ITEM_TEXT && item->kind != SR_DEBUG_ITEM_TEXT_2D))
        return NULL;
    return list->bytes + item->text.offset;
}
