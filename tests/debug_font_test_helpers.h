/* tests/debug_font_test_helpers.h — what the bitmap font's tests (tests/test_debug_font*.c) share: the glyph table
 * parsed from font.c (loaded by the suite's init in test_debug_font.c), the reference text decoding
 * and rendering, framebuffers with guard words. Header-only, for tests. */
#ifndef SR_TESTS_DEBUG_FONT_TEST_HELPERS_H
#define SR_TESTS_DEBUG_FONT_TEST_HELPERS_H

#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/debug/font.h"

/* ------------------------------------------------------------------------------------------ */
/* The glyph table, parsed from font.c                                                         */

/* The documented cell (font.h), written out again so that the header's macros are checked. */
enum { CELL_W = 6, CELL_H = 10, GLYPH_W = 5, GLYPH_H = 9, GLYPHS = 96, REPLACEMENT = 95, SCALE_MAX = 4 };

/* The glyph table, read from font.c by the suite's init (test_debug_font.c). */
extern bool glyph_table[GLYPHS][GLYPH_H][GLYPH_W];

static inline int glyph_of_char(char c)
{
    return (unsigned char)c - 0x20;
}

static inline int lit_count(int glyph)
{
    int n = 0;
    for (int r = 0; r < GLYPH_H; r++)
        for (int c = 0; c < GLYPH_W; c++)
            n += glyph_table[glyph][r][c];
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* Reference text decoding and rendering                                                       */

/* Length of the well-formed UTF-8 sequence or maximal ill-formed subpart at s (s[0] has no glyph
 * of its own), from the table of well-formed byte sequences (Unicode 15, table 3-7). */
static inline size_t ref_sequence_length(const unsigned char *s)
{
    static const struct {
        unsigned char lead_low, lead_high, second_low, second_high;
        size_t length;
    } forms[] = {
        {0xc2, 0xdf, 0x80, 0xbf, 2}, {0xe0, 0xe0, 0xa0, 0xbf, 3}, {0xe1, 0xec, 0x80, 0xbf, 3},
        {0xed, 0xed, 0x80, 0x9f, 3}, {0xee, 0xef, 0x80, 0xbf, 3}, {0xf0, 0xf0, 0x90, 0xbf, 4},
        {0xf1, 0xf3, 0x80, 0xbf, 4}, {0xf4, 0xf4, 0x80, 0x8f, 4},
    };
    for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
        if (s[0] < forms[f].lead_low || s[0] > forms[f].lead_high)
            continue;
        if (s[1] < forms[f].second_low || s[1] > forms[f].second_high)
            return 1;
        size_t n = 2;
        while (n < forms[f].length && (s[n] & 0xc0) == 0x80)
            n++;
        return n;
    }
    return 1;
}

typedef struct ref_text {
    int *glyphs;     ///< every glyph, line after line
    size_t *starts;  ///< index in glyphs of each line's first glyph
    size_t *lengths; ///< glyphs per line
    size_t lines, columns;
} ref_text;

static inline ref_text ref_decode(const char *text)
{
    ref_text t = {0};
    if (!text || !*text)
        return t;
    size_t n = strlen(text), newlines = 0;
    for (size_t i = 0; i < n; i++)
        newlines += text[i] == '\n';
    t.lines = newlines + 1;
    t.glyphs = malloc((n + 1) * sizeof *t.glyphs);
    t.starts = calloc(t.lines, sizeof *t.starts);
    t.lengths = calloc(t.lines, sizeof *t.lengths);
    cr_assert(t.glyphs && t.starts && t.lengths);
    const unsigned char *p = (const unsigned char *)text;
    size_t count = 0, line = 0;
    while (*p) {
        if (*p == '\n') {
            t.starts[++line] = count;
            p++;
            continue;
        }
        int glyph;
        if (*p >= 0x20 && *p <= 0x7e) {
            glyph = *p - 0x20;
            p++;
        } else {
            glyph = REPLACEMENT;
            p += ref_sequence_length(p);
        }
        t.glyphs[count++] = glyph;
        t.lengths[line]++;
    }
    for (size_t j = 0; j < t.lines; j++)
        t.columns = t.lengths[j] > t.columns ? t.lengths[j] : t.columns;
    return t;
}

static inline void ref_free(ref_text *t)
{
    free(t->glyphs);
    free(t->starts);
    free(t->lengths);
}

static inline int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Whether font pixel (u, v) of the text (cells laid out from (0, 0)) is lit. */
static inline bool ref_lit(const ref_text *t, int64_t u, int64_t v)
{
    if (u < 0 || v < 0)
        return false;
    int64_t line = v / CELL_H, k = u / CELL_W;
    int row = (int)(v % CELL_H), column = (int)(u % CELL_W);
    if ((uint64_t)line >= t->lines || (uint64_t)k >= t->lengths[line])
        return false;
    if (column >= GLYPH_W || row >= GLYPH_H)
        return false;
    return glyph_table[t->glyphs[t->starts[line] + (size_t)k]][row][column];
}

/* The blend of font.h in double: for r, g, b src * a + dst * (1 - a), for alpha a + dst * (1 - a),
 * rounded to nearest. */
static inline uint32_t ref_blend(uint32_t destination, uint32_t source)
{
    double a = (double)(source >> 24) / 255.0;
    uint32_t out = 0;
    for (int c = 0; c < 4; c++) {
        double s = c == 3 ? 255.0 : (double)((source >> (8 * c)) & 0xffu);
        double d = (double)((destination >> (8 * c)) & 0xffu);
        double v = s * a + d * (1.0 - a);
        out |= (uint32_t)floor(v + 0.5) << (8 * c);
    }
    return out;
}

typedef struct draw_case {
    int x, y;
    const char *text;
    int scale;
    uint32_t color, backdrop_color;
    int backdrop; ///< sr_font_backdrop, or an out-of-range value
} draw_case;

static inline int clamp_scale(int scale)
{
    return scale < 1 ? 1 : scale > SCALE_MAX ? SCALE_MAX : scale;
}

/* Measured box of the text in pixels, by the formula of font.h. */
static inline void ref_box(const ref_text *t, int scale, int64_t *width, int64_t *height)
{
    *width = t->columns ? ((int64_t)t->columns * CELL_W - 1) * scale : 0;
    *height = t->lines ? ((int64_t)t->lines * CELL_H - 1) * scale : 0;
}

/* Draws the case into `image` (width x height, rows top first) the reference way. */
static inline void ref_draw(uint32_t *image, int width, int height, const draw_case *dc)
{
    if (!dc->text || width < 1 || height < 1)
        return;
    ref_text t = ref_decode(dc->text);
    const int64_t s = clamp_scale(dc->scale);
    int64_t box_w, box_h;
    ref_box(&t, (int)s, &box_w, &box_h);
    bool box = dc->backdrop == SR_FONT_BOX && t.columns > 0, outline = dc->backdrop == SR_FONT_OUTLINE;
    for (int py = 0; py < height; py++)
        for (int px = 0; px < width; px++) {
            int64_t dx = (int64_t)px - dc->x, dy = (int64_t)py - dc->y;
            uint32_t p = image[(size_t)py * (size_t)width + (size_t)px];
            if (box && dx >= -s && dx < box_w + s && dy >= -s && dy < box_h + s)
                p = ref_blend(p, dc->backdrop_color);
            int64_t u = floor_div(dx, s), v = floor_div(dy, s);
            if (ref_lit(&t, u, v)) {
                p = ref_blend(p, dc->color);
            } else if (outline) {
                bool ring = false;
                for (int dv = -1; dv <= 1; dv++)
                    for (int du = -1; du <= 1; du++)
                        ring = ring || ref_lit(&t, u + du, v + dv);
                if (ring)
                    p = ref_blend(p, dc->backdrop_color);
            }
            image[(size_t)py * (size_t)width + (size_t)px] = p;
        }
    ref_free(&t);
}

/* ------------------------------------------------------------------------------------------ */
/* Framebuffers with guards                                                                    */

#define GUARD_COLOR 0xa5c3e1f7u
#define GUARD_ID 0x5eed1234u
#define GUARD_DEPTH 0.375f

typedef struct test_fb {
    sr_framebuffer fb;
    uint32_t *color_block, *ids_block;
    float *depth_block;
    size_t guard, count;
} test_fb;

static inline uint32_t hash32(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)(x ^ (x >> 31));
}

static inline float depth_pattern(size_t i)
{
    return (float)(i % 1000) / 1000.0f;
}

static inline uint32_t id_pattern(size_t i)
{
    return (uint32_t)i * 2654435761u;
}

/* Background: `background` everywhere, or with noise != 0 a hash of (noise, px + ox, py + oy), so
 * that two framebuffers offset by (ox, oy) get the same background where they overlap. */
static inline test_fb tfb_create(int width, int height, uint32_t background, uint64_t noise, int ox, int oy)
{
    test_fb t = {0};
    t.count = width > 0 && height > 0 ? (size_t)width * (size_t)height : 0;
    t.guard = width > 0 ? 3 * (size_t)width : 0;
    t.guard = t.guard < 64 ? 64 : t.guard;
    size_t total = t.count + 2 * t.guard;
    t.color_block = malloc(total * sizeof *t.color_block);
    t.ids_block = malloc(total * sizeof *t.ids_block);
    t.depth_block = malloc(total * sizeof *t.depth_block);
    cr_assert(t.color_block && t.ids_block && t.depth_block);
    for (size_t i = 0; i < total; i++) {
        t.color_block[i] = GUARD_COLOR;
        t.ids_block[i] = GUARD_ID;
        t.depth_block[i] = GUARD_DEPTH;
    }
    t.fb.width = width;
    t.fb.height = height;
    t.fb.color = t.color_block + t.guard;
    t.fb.ids = t.ids_block + t.guard;
    t.fb.depth = t.depth_block + t.guard;
    for (size_t i = 0; i < t.count; i++) {
        int px = (int)(i % (size_t)width), py = (int)(i / (size_t)width);
        t.fb.color[i] =
            noise ? hash32(noise * 0x100000001ull ^ ((uint64_t)(uint32_t)(px + ox) << 32 | (uint32_t)(py + oy)))
                  : background;
        t.fb.depth[i] = depth_pattern(i);
        t.fb.ids[i] = id_pattern(i);
    }
    return t;
}

static inline void tfb_destroy(test_fb *t)
{
    free(t->color_block);
    free(t->ids_block);
    free(t->depth_block);
}

/* Guards untouched, depth and ids as created. */
static inline void tfb_check(const test_fb *t, const char *what)
{
    size_t total = t->count + 2 * t->guard;
    for (size_t i = 0; i < total; i++) {
        bool guard = i < t->guard || i >= t->guard + t->count;
        size_t k = i - t->guard;
        if (guard) {
            cr_assert_eq(t->color_block[i], GUARD_COLOR, "%s: colour guard word %zu written", what, i);
            cr_assert_eq(t->ids_block[i], GUARD_ID, "%s: id guard word %zu written", what, i);
            cr_assert(t->depth_block[i] == GUARD_DEPTH, "%s: depth guard word %zu written", what, i);
        } else {
            cr_assert_eq(t->ids_block[i], id_pattern(k), "%s: id of pixel %zu written", what, k);
            cr_assert(t->depth_block[i] == depth_pattern(k), "%s: depth of pixel %zu written", what, k);
        }
    }
}

static inline void save_failure(const char *name, const uint32_t *pixels, int width, int height)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/test_debug_font_%s.png", SR_BUILD_DIR, name);
    sr_image_save(path, width, height, pixels, (size_t)width * 4, NULL);
}

static inline void expect_image(const uint32_t *actual, const uint32_t *expected, int width, int height,
                                const char *what)
{
    size_t count = (size_t)width * (size_t)height, wrong = 0, first = 0;
    for (size_t i = 0; i < count; i++)
        if (actual[i] != expected[i] && wrong++ == 0)
            first = i;
    if (wrong) {
        save_failure("actual", actual, width, height);
        save_failure("expected", expected, width, height);
        cr_assert_fail("%s: %zu pixels differ, first (%d, %d): 0x%08x, expected 0x%08x (images in %s)", what, wrong,
                       (int)(first % (size_t)width), (int)(first / (size_t)width), actual[first], expected[first],
                       SR_BUILD_DIR);
    }
}

static inline void font_draw(sr_framebuffer *fb, const draw_case *dc)
{
    sr_font_draw(fb, dc->x, dc->y, dc->text, dc->scale, dc->color, dc->backdrop_color, (sr_font_backdrop)dc->backdrop);
}

/* Draws the case into a guarded framebuffer and checks: guards, depth and ids untouched; nothing
 * changed outside the measured box plus `scale` on each side (the backdrop's reach); the image
 * equal to the reference renderer's. */
static inline void check_draw(int width, int height, const draw_case *dc, uint32_t background, uint64_t noise,
                              const char *what)
{
    test_fb t = tfb_create(width, height, background, noise, 0, 0);
    uint32_t *before = malloc((t.count + 1) * sizeof *before), *expected = malloc((t.count + 1) * sizeof *expected);
    cr_assert(before && expected);
    memcpy(before, t.fb.color, t.count * sizeof *before);
    memcpy(expected, t.fb.color, t.count * sizeof *expected);
    font_draw(&t.fb, dc);
    tfb_check(&t, what);
    ref_draw(expected, width, height, dc);

    ref_text text = ref_decode(dc->text);
    int64_t s = clamp_scale(dc->scale), box_w, box_h;
    ref_box(&text, (int)s, &box_w, &box_h);
    ref_free(&text);
    for (int py = 0; py < height; py++)
        for (int px = 0; px < width; px++) {
            int64_t dx = (int64_t)px - dc->x, dy = (int64_t)py - dc->y;
            bool inside = dx >= -s && dx < box_w + s && dy >= -s && dy < box_h + s;
            size_t i = (size_t)py * (size_t)width + (size_t)px;
            if (!inside)
                cr_assert_eq(t.fb.color[i], before[i], "%s: pixel (%d, %d) outside the text's box written", what, px,
                             py);
        }
    expect_image(t.fb.color, expected, width, height, what);
    free(before);
    free(expected);
    tfb_destroy(&t);
}

static const uint32_t black = 0xff000000u, white = 0xffffffffu;

static const char *const sample_texts[] = {
    "A",
    "Hello, World!",
    "ab\nlonger line_gj\n\n|x",
    "gjpqy\n_|_\nW",
    "0O1lI|\n{[()]}\n~`^\"'",
    " \n  .",
    "\xc3\xa9t\xc3\xa9\n\xff\x80!",
};

#endif
