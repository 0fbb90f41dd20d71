/* framebuffer.c — framebuffer storage: creation, resizing and clearing (softrast/raster.h).
 * Owns the colour/depth/id arrays only; knows nothing of drawing, files or scenes. */
#include "raster_internal.h"

#include <string.h>

/* Checks a framebuffer size and names it in the message: a size comes from the command line
 * or a window event, so 0, negative and absurd values are runtime input, not programmer error. */
static sr_status check_size(int width, int height, sr_error *err)
{
    if (width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "framebuffer size %dx%d: each side must be in [1, %d]",
                            width, height, SR_MAX_IMAGE_SIDE);
    return SR_OK;
}

/* Fills `count` words with `value`. memset when the four bytes are equal (0, SR_NO_ID, white
 * with full alpha): libc's memset is the fastest store loop there is. Otherwise a plain loop,
 * which the compiler vectorises into wide stores. */
static void fill_words(uint32_t *words, size_t count, uint32_t value)
{
    uint32_t low_byte = value & 0xffu;
    if (value == low_byte * 0x01010101u) {
        memset(words, (int)low_byte, count * sizeof *words);
        return;
    }
    for (size_t i = 0; i < count; i++)
        words[i] = value;
}

static size_t pixel_count(const sr_framebuffer *fb)
{
    return (size_t)fb->width * (size_t)fb->height;
}

/* The three pixel arrays of one size, allocated all-or-nothing so that resize can build the new
 * set before it touches the old one. */
typedef struct buffers {
    uint32_t *color;
    float *depth;
    uint32_t *ids;
} buffers;

static void free_buffers(buffers *b)
{
    sr_free(b->color);
    sr_free(b->depth);
    sr_free(b->ids);
}

static sr_status allocate_buffers(int width, int height, bool ids, buffers *out, sr_error *err)
{
    size_t count = (size_t)width * (size_t)height;
    buffers b = {
        .color = sr_alloc_array(count, sizeof(uint32_t)),
        .depth = sr_alloc_array(count, sizeof(float)),
        .ids = ids ? sr_alloc_array(count, sizeof(uint32_t)) : NULL,
    };
    if (!b.color || !b.depth || (ids && !b.ids)) {
        free_buffers(&b);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "framebuffer %dx%d%s: out of memory", width, height,
                            ids ? " with ids" : "");
    }
    *out = b;
    return SR_OK;
}

sr_status sr_framebuffer_create(const sr_framebuffer_desc *desc, sr_framebuffer **out, sr_error *err)
{
    if (out)
        *out = NULL;
    if (!desc || !out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_framebuffer_create: %s is NULL",
                            !desc ? "desc" : "out");
    sr_status status = check_size(desc->width, desc->height, err);
    if (status != SR_OK)
        return status;

    sr_framebuffer *fb = sr_alloc(sizeof *fb);
    if (!fb)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "framebuffer %dx%d: out of memory", desc->width, desc->height);
    buffers b;
    status = allocate_buffers(desc->width, desc->height, desc->ids, &b, err);
    if (status != SR_OK) {
        sr_free(fb);
        return status;
    }
    *fb = (sr_framebuffer){desc->width, desc->height, b.color, b.depth, b.ids};
    sr_framebuffer_clear(fb, 0, 1.0f);
    *out = fb;
    return SR_OK;
}

void sr_framebuffer_destroy(sr_framebuffer *fb)
{
    if (!fb)
        return;
    sr_free(fb->color);
    sr_free(fb->depth);
    sr_free(fb->ids);
    sr_free(fb);
}

sr_status sr_framebuffer_resize(sr_framebuffer *fb, int width, int height, sr_error *err)
{
    if (!fb)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_framebuffer_resize: fb is NULL");
    sr_status status = check_size(width, height, err);
    if (status != SR_OK)
        return status;
    // New buffers first, old ones freed only on success: "on error the framebuffer is unchanged".
    buffers b;
    status = allocate_buffers(width, height, fb->ids != NULL, &b, err);
    if (status != SR_OK)
        return status;
    buffers old = {fb->color, fb->depth, fb->ids};
    free_buffers(&old);
    *fb = (sr_framebuffer){width, height, b.color, b.depth, b.ids};
    sr_framebuffer_clear(fb, 0, 1.0f);
    return SR_OK;
}

void sr_raster_clear_rows(sr_framebuffer *fb, uint32_t rgba, float depth, int first_row, int end_row)
{
    size_t first = (size_t)first_row * (size_t)fb->width, count = (size_t)(end_row - first_row) * (size_t)fb->width;
    fill_words(fb->color + first, count, rgba);
    // +0.0 is all-zero bits (IEEE 754), so it takes the memset path; other values a float loop
    // (storing floats as floats keeps the effective type right for the pipeline's reads).
    uint32_t bits;
    memcpy(&bits, &depth, sizeof bits);
    if (bits == 0) {
        memset(fb->depth + first, 0, count * sizeof *fb->depth);
    } else {
        float *row = fb->depth + first;
        for (size_t i = 0; i < count; i++)
            row[i] = depth;
    }
    if (fb->ids)
        fill_words(fb->ids + first, count, SR_NO_ID);
}

void sr_framebuffer_clear_color(sr_framebuffer *fb, uint32_t rgba)
{
    if (fb)
        fill_words(fb->color, pixel_count(fb), rgba);
}

void sr_framebuffer_clear_depth(sr_framebuffer *fb, float depth)
{
    if (!fb)
        return;
    size_t count = pixel_count(fb);
    // +0.0 is all-zero bits (IEEE 754), so it takes the memset path; other values a float loop
    // (storing floats as floats keeps the effective type right for the pipeline's reads).
    uint32_t bits;
    memcpy(&bits, &depth, sizeof bits);
    if (bits == 0) {
        memset(fb->depth, 0, count * sizeof *fb->depth);
        return;
    }
    for (size_t i = 0; i < count; i++)
        fb->depth[i] = depth;
}

void sr_framebuffer_clear(sr_framebuffer *fb, uint32_t rgba, float depth)
{
    if (fb)
        sr_raster_clear_rows(fb, rgba, depth, 0, fb->height);
}
