/* tests/test_debug_font.c — the bitmap font of src/debug/ (font.c), against computations of
 * this file: the glyph table is read back from font.c's text by a parser written here (and a
 * few glyphs are spelled out here by hand), text is decoded by a table-driven UTF-8 reader of
 * this file, and every draw is compared pixel for pixel with a reference renderer written here
 * (per pixel: which font pixel covers it, is that lit, does it touch a lit one), blending
 * computed in double. Framebuffers are built by hand with guard words before and after each of
 * the colour, depth and id buffers, checked after every draw. A mismatching image is written as
 * PNG (actual and expected) into the build folder. */
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

static bool glyph_table[GLYPHS][GLYPH_H][GLYPH_W];

/* Reads font.c's `glyph_art` rows: after the line declaring it, every line whose first non-blank
 * character is '"' is one row: 16 glyphs of 5 characters ('#' or '.') separated by one blank;
 * 9 rows make a band of 16 characters, 6 bands cover 0x20-0x7f. */
static void load_glyph_table(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/src/debug/font.c", SR_SOURCE_DIR);
    FILE *file = fopen(path, "r");
    cr_assert_not_null(file, "cannot open %s", path);
    char line[1024];
    bool inside = false;
    int rows = 0;
    while (fgets(line, sizeof line, file)) {
        if (!inside) {
            inside = strstr(line, "glyph_art[") != NULL && strstr(line, "= {") != NULL;
            continue;
        }
        if (strncmp(line, "};", 2) == 0)
            break;
        const char *p = line;
        while (*p == ' ')
            p++;
        if (*p != '"')
            continue;
        p++;
        const char *end = strchr(p, '"');
        cr_assert_not_null(end, "font.c table row %d: no closing quote", rows);
        cr_assert_eq(end - p, 16 * 6 - 1, "font.c table row %d: %d characters, expected 95", rows, (int)(end - p));
        cr_assert_lt(rows, 6 * GLYPH_H, "font.c table: more than %d rows", 6 * GLYPH_H);
        int band = rows / GLYPH_H, row = rows % GLYPH_H;
        for (int k = 0; k < 16; k++) {
            for (int c = 0; c < GLYPH_W; c++) {
                char ch = p[k * 6 + c];
                cr_assert(ch == '#' || ch == '.', "font.c table row %d, glyph %d: character '%c'", rows, k, ch);
                glyph_table[band * 16 + k][row][c] = ch == '#';
            }
            if (k < 15)
                cr_assert_eq(p[k * 6 + 5], ' ', "font.c table row %d: no blank after glyph %d", rows, k);
        }
        rows++;
    }
    fclose(file);
    cr_assert(inside, "font.c: glyph_art table not found");
    cr_assert_eq(rows, 6 * GLYPH_H, "font.c table: %d rows, expected %d", rows, 6 * GLYPH_H);
}

TestSuite(debug_font, .init = load_glyph_table);

static int glyph_of_char(char c)
{
    return (unsigned char)c - 0x20;
}

static int lit_count(int glyph)
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
static size_t ref_sequence_length(const unsigned char *s)
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

static ref_text ref_decode(const char *text)
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

static void ref_free(ref_text *t)
{
    free(t->glyphs);
    free(t->starts);
    free(t->lengths);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Whether font pixel (u, v) of the text (cells laid out from (0, 0)) is lit. */
static bool ref_lit(const ref_text *t, int64_t u, int64_t v)
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
static uint32_t ref_blend(uint32_t destination, uint32_t source)
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

static int clamp_scale(int scale)
{
    return scale < 1 ? 1 : scale > SCALE_MAX ? SCALE_MAX : scale;
}

/* Measured box of the text in pixels, by the formula of font.h. */
static void ref_box(const ref_text *t, int scale, int64_t *width, int64_t *height)
{
    *width = t->columns ? ((int64_t)t->columns * CELL_W - 1) * scale : 0;
    *height = t->lines ? ((int64_t)t->lines * CELL_H - 1) * scale : 0;
}

/* Draws the case into `image` (width x height, rows top first) the reference way. */
static void ref_draw(uint32_t *image, int width, int height, const draw_case *dc)
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

static uint32_t hash32(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)(x ^ (x >> 31));
}

static float depth_pattern(size_t i)
{
    return (float)(i % 1000) / 1000.0f;
}

static uint32_t id_pattern(size_t i)
{
    return (uint32_t)i * 2654435761u;
}

/* Background: `background` everywhere, or with noise != 0 a hash of (noise, px + ox, py + oy), so
 * that two framebuffers offset by (ox, oy) get the same background where they overlap. */
static test_fb tfb_create(int width, int height, uint32_t background, uint64_t noise, int ox, int oy)
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

static void tfb_destroy(test_fb *t)
{
    free(t->color_block);
    free(t->ids_block);
    free(t->depth_block);
}

/* Guards untouched, depth and ids as created. */
static void tfb_check(const test_fb *t, const char *what)
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

static void save_failure(const char *name, const uint32_t *pixels, int width, int height)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/test_debug_font_%s.png", SR_BUILD_DIR, name);
    sr_image_save(path, width, height, pixels, (size_t)width * 4, NULL);
}

static void expect_image(const uint32_t *actual, const uint32_t *expected, int width, int height, const char *what)
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

static void font_draw(sr_framebuffer *fb, const draw_case *dc)
{
    sr_font_draw(fb, dc->x, dc->y, dc->text, dc->scale, dc->color, dc->backdrop_color, (sr_font_backdrop)dc->backdrop);
}

/* Draws the case into a guarded framebuffer and checks: guards, depth and ids untouched; nothing
 * changed outside the measured box plus `scale` on each side (the backdrop's reach); the image
 * equal to the reference renderer's. */
static void check_draw(int width, int height, const draw_case *dc, uint32_t background, uint64_t noise,
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

/* ------------------------------------------------------------------------------------------ */
/* The glyph table                                                                             */

Test(debug_font, cell_constants_and_sizes)
{
    cr_assert_eq(SR_FONT_CELL_WIDTH, CELL_W);
    cr_assert_eq(SR_FONT_CELL_HEIGHT, CELL_H);
    cr_assert_eq(SR_FONT_GLYPH_WIDTH, GLYPH_W);
    cr_assert_eq(SR_FONT_GLYPH_HEIGHT, GLYPH_H);
    cr_assert_eq(SR_FONT_SCALE_MAX, SCALE_MAX);
    const int scales[] = {INT_MIN, -7, 0, 1, 2, 3, 4, 5, 9, INT_MAX};
    const int clamped[] = {1, 1, 1, 1, 2, 3, 4, 4, 4, 4};
    for (size_t i = 0; i < sizeof scales / sizeof *scales; i++) {
        cr_assert_eq(sr_font_cell_width(scales[i]), 6 * clamped[i], "scale %d", scales[i]);
        cr_assert_eq(sr_font_cell_height(scales[i]), 10 * clamped[i], "scale %d", scales[i]);
    }
}

Test(debug_font, every_printable_glyph_lit_and_all_distinct)
{
    cr_assert_eq(lit_count(glyph_of_char(' ')), 0, "space has lit pixels");
    for (int g = 1; g < GLYPHS; g++)
        cr_assert_gt(lit_count(g), 0, "glyph 0x%02x has no lit pixel", g + 0x20);
    for (int a = 0; a < GLYPHS; a++)
        for (int b = a + 1; b < GLYPHS; b++)
            cr_assert_neq(memcmp(glyph_table[a], glyph_table[b], sizeof glyph_table[a]), 0,
                          "glyphs 0x%02x and 0x%02x are identical", a + 0x20, b + 0x20);
}

/* A few glyphs spelled out by hand, independently of the parser. */
Test(debug_font, hand_drawn_glyphs_match_the_table)
{
    static const struct {
        int glyph;
        const char *rows[GLYPH_H];
    } expected[] = {
        {'A' - 0x20, {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#", ".....", "....."}},
        {'g' - 0x20, {".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", ".###."}},
        {'0' - 0x20, {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###.", ".....", "....."}},
        {'|' - 0x20, {"..#..", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..", "..#..", "....."}},
        {REPLACEMENT, {"#####", "#...#", "#.#.#", "#...#", "#.#.#", "#...#", "#.#.#", "#...#", "#####"}},
    };
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++)
        for (int r = 0; r < GLYPH_H; r++)
            for (int c = 0; c < GLYPH_W; c++)
                cr_assert_eq(glyph_table[expected[i].glyph][r][c], expected[i].rows[r][c] == '#',
                             "glyph 0x%02x, row %d, column %d", expected[i].glyph + 0x20, r, c);
}

static void lit_rows(int glyph, int *top, int *bottom)
{
    *top = GLYPH_H;
    *bottom = -1;
    for (int r = 0; r < GLYPH_H; r++)
        for (int c = 0; c < GLYPH_W; c++)
            if (glyph_table[glyph][r][c]) {
                *top = r < *top ? r : *top;
                *bottom = r > *bottom ? r : *bottom;
            }
}

/* One baseline for all: capitals and digits rows 0-6, x-height letters rows 2-6, ascenders from
 * row 0, descenders down to row 8. */
Test(debug_font, consistent_baseline_x_height_and_descenders)
{
    static const struct {
        const char *chars;
        int top, bottom;
    } groups[] = {
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 0, 6},
        {"acemnorsuvwxz", 2, 6},
        {"bdfhiklt", 0, 6},
        {"gpqy", 2, 8},
        {"j", 0, 8},
    };
    for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
        for (const char *c = groups[i].chars; *c; c++) {
            int top, bottom;
            lit_rows(glyph_of_char(*c), &top, &bottom);
            cr_assert_eq(top, groups[i].top, "'%c': top row %d, expected %d", *c, top, groups[i].top);
            cr_assert_eq(bottom, groups[i].bottom, "'%c': bottom row %d, expected %d", *c, bottom, groups[i].bottom);
        }
}

/* ------------------------------------------------------------------------------------------ */
/* Drawing single glyphs                                                                       */

/* Every glyph at every scale lights exactly its bitmap scaled s x s at (x, y): nothing in the
 * spacing column or row, descenders inside the cell, lit count = table count * s^2. */
Test(debug_font, each_glyph_lights_exactly_its_scaled_bitmap)
{
    const int width = 40, height = 50, x = 3, y = 4;
    for (int g = 0; g < GLYPHS; g++) {
        char text[2] = {(char)(g + 0x20), 0};
        for (int s = 1; s <= SCALE_MAX; s++) {
            char what[64];
            snprintf(what, sizeof what, "glyph 0x%02x scale %d", g + 0x20, s);
            draw_case dc = {x, y, text, s, white, black, SR_FONT_PLAIN};
            check_draw(width, height, &dc, black, 0, what);

            test_fb t = tfb_create(width, height, black, 0, 0, 0);
            font_draw(&t.fb, &dc);
            int lit = 0;
            for (int py = 0; py < height; py++)
                for (int px = 0; px < width; px++) {
                    if (t.fb.color[py * width + px] == black)
                        continue;
                    lit++;
                    int c = (px - x) / s, r = (py - y) / s;
                    cr_assert(px >= x && py >= y && c < GLYPH_W && r < GLYPH_H,
                              "%s: pixel (%d, %d) outside the glyph area", what, px, py);
                    cr_assert(glyph_table[g][r][c], "%s: pixel (%d, %d) lit", what, px, py);
                }
            cr_assert_eq(lit, lit_count(g) * s * s, "%s: %d pixels lit", what, lit);
            tfb_destroy(&t);
        }
    }
}

/* The ring of '.' (2 x 2 pixels at columns 2-3, rows 5-6) spelled out: the 4 x 4 block around it
 * minus the dot, at scale 1 and 2. */
Test(debug_font, outline_of_a_dot_by_hand)
{
    const uint32_t ring = 0xff0000ffu;
    for (int s = 1; s <= 2; s++) {
        test_fb t = tfb_create(20, 30, black, 0, 0, 0);
        sr_font_draw(&t.fb, 1, 2, ".", s, white, ring, SR_FONT_OUTLINE);
        tfb_check(&t, "dot");
        for (int py = 0; py < 30; py++)
            for (int px = 0; px < 20; px++) {
                int c = (px - 1) / s, r = (py - 2) / s;
                bool in_block = px >= 1 + s && py >= 2 + 4 * s && c >= 1 && c <= 4 && r >= 4 && r <= 7;
                bool dot = in_block && c >= 2 && c <= 3 && r >= 5 && r <= 6;
                uint32_t want = dot ? white : in_block ? ring : black;
                cr_assert_eq(t.fb.color[py * 20 + px], want, "scale %d pixel (%d, %d)", s, px, py);
            }
        tfb_destroy(&t);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Backdrops                                                                                   */

static const char *const sample_texts[] = {
    "A",
    "Hello, World!",
    "ab\nlonger line_gj\n\n|x",
    "gjpqy\n_|_\nW",
    "0O1lI|\n{[()]}\n~`^\"'",
    " \n  .",
    "\xc3\xa9t\xc3\xa9\n\xff\x80!",
};

Test(debug_font, outline_is_the_scaled_ring_of_lit_pixels)
{
    const uint32_t backdrops[] = {0xff000000u, 0xbf102030u, 0x40ffffffu, 0x00000000u};
    for (size_t i = 0; i < sizeof sample_texts / sizeof *sample_texts; i++)
        for (int s = 1; s <= SCALE_MAX; s++)
            for (size_t b = 0; b < sizeof backdrops / sizeof *backdrops; b++) {
                char what[96];
                snprintf(what, sizeof what, "outline text %zu scale %d backdrop 0x%08x", i, s, backdrops[b]);
                draw_case dc = {5, 7, sample_texts[i], s, 0xfff0e0d0u, backdrops[b], SR_FONT_OUTLINE};
                check_draw(230, 150, &dc, 0, 1 + i, what);
            }
}

/* Over a uniform background each changed pixel is either the glyph colour blended once or the
 * backdrop blended once, even where the rings of neighbouring glyphs and lines overlap. */
Test(debug_font, shared_rings_are_blended_once)
{
    const uint32_t background = 0xff808080u, color = 0xffffffffu, shade = 0xbf000000u;
    const char *texts[] = {"llll\nllll", "WWW\nMMM", "g\nT", "|||\n|||"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        for (int s = 1; s <= 2; s++) {
            test_fb t = tfb_create(60, 60, background, 0, 0, 0);
            sr_font_draw(&t.fb, 2, 2, texts[i], s, color, shade, SR_FONT_OUTLINE);
            int rings = 0;
            for (size_t k = 0; k < t.count; k++) {
                uint32_t p = t.fb.color[k];
                cr_assert(p == background || p == color || p == ref_blend(background, shade),
                          "text %zu scale %d pixel %zu: 0x%08x", i, s, k, p);
                rings += p == ref_blend(background, shade);
            }
            cr_assert_gt(rings, 0);
            tfb_destroy(&t);
        }
}

/* BOX: with a transparent glyph colour, exactly the measured box (the formula of font.h,
 * computed here) plus `scale` on each side, blended once; with glyphs, the reference image. */
Test(debug_font, box_covers_the_measured_box_plus_margin)
{
    const uint32_t background = 0xff336699u, shade = 0xbf000000u;
    for (size_t i = 0; i < sizeof sample_texts / sizeof *sample_texts; i++)
        for (int s = 1; s <= SCALE_MAX; s++) {
            ref_text text = ref_decode(sample_texts[i]);
            int64_t w, h;
            ref_box(&text, s, &w, &h);
            ref_free(&text);
            test_fb t = tfb_create(240, 160, background, 0, 0, 0);
            const int x = 6, y = 5;
            sr_font_draw(&t.fb, x, y, sample_texts[i], s, 0x00ffffffu, shade, SR_FONT_BOX);
            tfb_check(&t, "box");
            for (int py = 0; py < 160; py++)
                for (int px = 0; px < 240; px++) {
                    bool inside = px >= x - s && px < x + w + s && py >= y - s && py < y + h + s;
                    cr_assert_eq(t.fb.color[py * 240 + px], inside ? ref_blend(background, shade) : background,
                                 "text %zu scale %d pixel (%d, %d)", i, s, px, py);
                }
            tfb_destroy(&t);

            char what[64];
            snprintf(what, sizeof what, "box text %zu scale %d", i, s);
            draw_case dc = {x, y, sample_texts[i], s, 0xff40e0ffu, shade, SR_FONT_BOX};
            check_draw(240, 160, &dc, 0, 7 + i, what);
            dc.backdrop = SR_FONT_PLAIN;
            check_draw(240, 160, &dc, 0, 7 + i, what);
        }
}

/* ------------------------------------------------------------------------------------------ */
/* Blending                                                                                    */

/* Two cases computed by hand, then a sweep of alphas and random colours over random
 * destinations for the glyph colour (a lit pixel of 'I') and the backdrop (a box pixel). */
Test(debug_font, blending_formula_per_pixel)
{
    int lit_x = -1, lit_y = -1;
    for (int r = 0; r < GLYPH_H && lit_x < 0; r++)
        for (int c = 0; c < GLYPH_W && lit_x < 0; c++)
            if (glyph_table[glyph_of_char('I')][r][c]) {
                lit_x = c + 1;
                lit_y = r + 1;
            }
    static const struct {
        uint32_t destination, source, result;
    } by_hand[] = {
        // (255, 0, 0, 128) over (0, 0, 255, 255): r = 255*128/255 = 128, b = 255*127/255 = 127,
        // a = (255*128 + 255*127)/255 = 255.
        {0xffff0000u, 0x800000ffu, 0xff7f0080u},
        // (10, 20, 30, 191) over (200, 100, 50, 0): r = (1910 + 12800)/255 = 57.69 -> 58,
        // g = (3820 + 6400)/255 = 40.08 -> 40, b = (5730 + 3200)/255 = 35.02 -> 35, a = 191.
        {0x003264c8u, 0xbf1e140au, 0xbf23283au},
        {0x12345678u, 0x00ffffffu, 0x12345678u}, // a = 0: unchanged
        {0x12345678u, 0xff9abcdeu, 0xff9abcdeu}, // a = 255: replaced
    };
    for (size_t i = 0; i < sizeof by_hand / sizeof *by_hand; i++) {
        test_fb t = tfb_create(8, 12, by_hand[i].destination, 0, 0, 0);
        sr_font_draw(&t.fb, 1, 1, "I", 1, by_hand[i].source, 0, SR_FONT_PLAIN);
        cr_assert_eq(t.fb.color[lit_y * 8 + lit_x], by_hand[i].result, "case %zu: 0x%08x", i,
                     t.fb.color[lit_y * 8 + lit_x]);
        cr_assert_eq(ref_blend(by_hand[i].destination, by_hand[i].source), by_hand[i].result, "reference, case %zu", i);
        tfb_destroy(&t);
    }
    const uint32_t alphas[] = {0, 1, 2, 64, 127, 128, 129, 191, 253, 254, 255};
    uint64_t seed = 12345;
    for (size_t a = 0; a < sizeof alphas / sizeof *alphas; a++)
        for (int k = 0; k < 150; k++) {
            uint32_t source = (hash32(seed++) & 0x00ffffffu) | alphas[a] << 24;
            uint32_t destination = hash32(seed++);
            test_fb t = tfb_create(8, 12, destination, 0, 0, 0);
            sr_font_draw(&t.fb, 1, 1, "I", 1, source, 0, SR_FONT_PLAIN);
            cr_assert_eq(t.fb.color[lit_y * 8 + lit_x], ref_blend(destination, source),
                         "colour 0x%08x over 0x%08x: 0x%08x, expected 0x%08x", source, destination,
                         t.fb.color[lit_y * 8 + lit_x], ref_blend(destination, source));
            cr_assert_eq(t.fb.color[0], destination, "unlit pixel written");
            sr_font_draw(&t.fb, 1, 1, "I", 1, 0x00000000u, source, SR_FONT_BOX);
            cr_assert_eq(t.fb.color[0], ref_blend(destination, source), "box 0x%08x over 0x%08x: 0x%08x", source,
                         destination, t.fb.color[0]);
            tfb_destroy(&t);
        }
}

/* ------------------------------------------------------------------------------------------ */
/* Clipping                                                                                    */

/* Text partly off each edge (and off two at once) at every scale and backdrop: the small
 * framebuffer holds exactly the crop of the same text drawn whole into a larger one. */
Test(debug_font, clipped_text_equals_the_crop_of_an_unclipped_draw)
{
    const int width = 31, height = 23;
    const char *text = "Hi|g\nW_j{}\n~\xe2\x82\xac";
    const uint32_t color = 0xe0f0f0ffu, shade = 0xc0100000u;
    for (int s = 1; s <= SCALE_MAX; s++) {
        ref_text t = ref_decode(text);
        int64_t w, h;
        ref_box(&t, s, &w, &h);
        ref_free(&t);
        const int margin = (int)(w > h ? w : h) + 2 * s + 2;
        const int xs[] = {
            (int)-w - s - 1,    (int)-w - s,        (int)-w - s + 1, (int)-w / 2, -s - 1, -s,       -1, 0, 1, s,
            width - (int)w - s, width - (int)w / 2, width - s,       width - 1,   width,  width + s};
        // 1 and s: only the ring row above the text (partly) in view above it.
        const int ys[] = {(int)-h - s - 1, (int)-h - s,         (int)-h / 2, -s,     -1,        0, 1, s, 3,
                          height - (int)h, height - (int)h / 2, height - 1,  height, height + s};
        for (int backdrop = 0; backdrop < 3; backdrop++)
            for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
                for (size_t j = 0; j < sizeof ys / sizeof *ys; j++) {
                    int x = xs[i], y = ys[j];
                    char what[96];
                    snprintf(what, sizeof what, "clip scale %d backdrop %d at (%d, %d)", s, backdrop, x, y);
                    test_fb small = tfb_create(width, height, 0, 99, 0, 0);
                    test_fb big = tfb_create(width + 2 * margin, height + 2 * margin, 0, 99, -margin, -margin);
                    sr_font_draw(&small.fb, x, y, text, s, color, shade, (sr_font_backdrop)backdrop);
                    sr_font_draw(&big.fb, x + margin, y + margin, text, s, color, shade, (sr_font_backdrop)backdrop);
                    tfb_check(&small, what);
                    tfb_check(&big, what);
                    for (int py = 0; py < height; py++)
                        for (int px = 0; px < width; px++)
                            cr_assert_eq(small.fb.color[py * width + px],
                                         big.fb.color[(py + margin) * big.fb.width + px + margin],
                                         "%s: pixel (%d, %d) differs from the crop", what, px, py);
                    tfb_destroy(&small);
                    tfb_destroy(&big);
                    draw_case dc = {x, y, text, s, color, shade, backdrop};
                    check_draw(width, height, &dc, 0, 5, what);
                }
    }
}

/* Extreme coordinates: nothing or exactly the on-screen part, never a write outside. */
Test(debug_font, huge_and_negative_coordinates)
{
    const int coords[] = {INT_MIN, INT_MIN + 1, -1000000000, -100, -6, 0, 17, 1000000000, INT_MAX - 5, INT_MAX};
    const char *texts[] = {"Far away\nW", "x"};
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < sizeof coords / sizeof *coords; i++)
            for (size_t j = 0; j < sizeof coords / sizeof *coords; j++)
                for (int s = 1; s <= SCALE_MAX; s += 3) {
                    char what[96];
                    snprintf(what, sizeof what, "text %zu at (%d, %d) scale %d", t, coords[i], coords[j], s);
                    draw_case dc = {coords[i], coords[j], texts[t], s, white, 0xc0000000u, SR_FONT_OUTLINE};
                    check_draw(24, 20, &dc, 0, 3, what);
                    dc.backdrop = SR_FONT_BOX;
                    check_draw(24, 20, &dc, 0, 3, what);
                }
}

/* Very long lines and many lines, seen through the framebuffer from far along. */
Test(debug_font, very_long_text)
{
    const size_t length = 200000;
    char *line = malloc(length + 1);
    cr_assert(line);
    for (size_t i = 0; i < length; i++)
        line[i] = (char)(0x21 + i % 94);
    line[length] = 0;
    draw_case dc = {-6 * 150000 + 3, 2, line, 1, white, 0xc0000000u, SR_FONT_OUTLINE};
    check_draw(40, 14, &dc, 0, 11, "long line, middle in view");
    dc.x = INT_MIN;
    dc.scale = 4;
    check_draw(40, 14, &dc, 0, 11, "long line from INT_MIN");
    dc.x = INT_MAX - 10;
    check_draw(40, 14, &dc, 0, 11, "long line from INT_MAX - 10");

    char *lines = malloc(length + 1);
    cr_assert(lines);
    for (size_t i = 0; i < length; i++)
        lines[i] = i % 3 == 2 ? '\n' : (char)('a' + i % 26);
    lines[length] = 0;
    draw_case many = {1, -10 * 30000 - 4, lines, 1, white, 0xc0000000u, SR_FONT_OUTLINE};
    check_draw(20, 40, &many, 0, 12, "many lines, middle in view");
    many.backdrop = SR_FONT_BOX;
    check_draw(20, 40, &many, 0, 12, "many lines in a box");
    free(line);
    free(lines);
}

/* ------------------------------------------------------------------------------------------ */
/* Measuring, lines, replacement boxes                                                         */

Test(debug_font, measure_by_formula)
{
    static const struct {
        const char *text;
        int scale, width, height;
    } cases[] = {
        {"A", 1, 5, 9},
        {"A", 2, 10, 18},
        {"AB", 1, 11, 9},
        {"ab\ncdef\n", 1, 23, 29},
        {"", 1, 0, 0},
        {NULL, 3, 0, 0},
        {"\n", 3, 0, 57},
        {"\xc3\xa9x", 1, 11, 9},
        {"h\xc3\xa9llo", 4, 116, 36},
        {"abc", 0, 17, 9},
        {"abc", 100, 68, 36},
        {"\xff\xfe\n\x01", 1, 11, 19},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int w = -1, h = -1;
        sr_font_measure(cases[i].text, cases[i].scale, &w, &h);
        cr_assert_eq(w, cases[i].width, "case %zu: width %d", i, w);
        cr_assert_eq(h, cases[i].height, "case %zu: height %d", i, h);
        w = -1;
        sr_font_measure(cases[i].text, cases[i].scale, &w, NULL);
        cr_assert_eq(w, cases[i].width);
        h = -1;
        sr_font_measure(cases[i].text, cases[i].scale, NULL, &h);
        cr_assert_eq(h, cases[i].height);
    }
    sr_font_measure("abc", 1, NULL, NULL);
    const size_t length = 1000000;
    char *text = malloc(length + 1);
    cr_assert(text);
    memset(text, 'x', length);
    text[length] = 0;
    int w, h;
    sr_font_measure(text, 3, &w, &h);
    cr_assert_eq(w, (6 * 1000000 - 1) * 3);
    cr_assert_eq(h, 27);
    free(text);
}

/* The drawn box is the measured box: for texts whose glyphs reach every side of their cells
 * (a 'W' first, descenders on the last line), the changed pixels span exactly the measured
 * box (PLAIN), one scale more on each side (OUTLINE, BOX); for others they stay inside it. */
Test(debug_font, measured_box_is_the_drawn_box)
{
    const char *exact[] = {"Wg\nMjq", "W\n\ny", "[MMMM\n\n\nj_"};
    for (size_t i = 0; i < sizeof exact / sizeof *exact + sizeof sample_texts / sizeof *sample_texts; i++) {
        bool is_exact = i < sizeof exact / sizeof *exact;
        const char *text = is_exact ? exact[i] : sample_texts[i - sizeof exact / sizeof *exact];
        for (int s = 1; s <= SCALE_MAX; s++)
            for (int backdrop = 0; backdrop < 3; backdrop++) {
                int w, h;
                sr_font_measure(text, s, &w, &h);
                test_fb t = tfb_create(260, 200, black, 0, 0, 0);
                const int x = 10, y = 9;
                sr_font_draw(&t.fb, x, y, text, s, white, 0xff0000ffu, (sr_font_backdrop)backdrop);
                int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
                for (int py = 0; py < 200; py++)
                    for (int px = 0; px < 260; px++)
                        if (t.fb.color[py * 260 + px] != black) {
                            x0 = px < x0 ? px : x0;
                            y0 = py < y0 ? py : y0;
                            x1 = px > x1 ? px : x1;
                            y1 = py > y1 ? py : y1;
                        }
                int margin = backdrop == SR_FONT_PLAIN ? 0 : s;
                if (is_exact) {
                    cr_assert(x0 == x - margin && y0 == y - margin && x1 == x + w - 1 + margin &&
                                  y1 == y + h - 1 + margin,
                              "text %zu scale %d backdrop %d: drawn [%d, %d] x [%d, %d], measured %d x %d at (%d, %d)",
                              i, s, backdrop, x0, x1, y0, y1, w, h, x, y);
                } else if (x1 >= x0) {
                    cr_assert(x0 >= x - margin && y0 >= y - margin && x1 <= x + w - 1 + margin &&
                                  y1 <= y + h - 1 + margin,
                              "text %zu scale %d backdrop %d: drawn outside the measured box", i, s, backdrop);
                }
                tfb_destroy(&t);
            }
    }
}

/* '\n' starts a new line at x: the same as drawing each line on its own, 10 * scale lower. */
Test(debug_font, newline_starts_a_line_at_x)
{
    const char *text = "AB\nC\n\nxyz|";
    const char *parts[] = {"AB", "C", "", "xyz|"};
    for (int s = 1; s <= SCALE_MAX; s++) {
        test_fb whole = tfb_create(120, 200, black, 0, 0, 0), apart = tfb_create(120, 200, black, 0, 0, 0);
        sr_font_draw(&whole.fb, 7, 3, text, s, white, 0, SR_FONT_PLAIN);
        for (int j = 0; j < 4; j++)
            sr_font_draw(&apart.fb, 7, 3 + j * 10 * s, parts[j], s, white, 0, SR_FONT_PLAIN);
        expect_image(whole.fb.color, apart.fb.color, 120, 200, "lines drawn apart");
        tfb_destroy(&whole);
        tfb_destroy(&apart);
    }
}

/* One replacement box per invalid byte and per UTF-8 sequence: each input is drawn as the
 * expected text, written here with DEL (0x7f, a control: one box) where a box is due. The
 * longest case is the example of Unicode 15, section 3.9 (U+FFFD substitution of maximal
 * subparts): 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 reads a, 3 boxes, b, box, c, 2 boxes, d. */
Test(debug_font, one_replacement_box_per_invalid_byte_or_sequence)
{
    static const struct {
        const char *input, *expected;
    } cases[] = {
        {"\xc3\xa9", "\x7f"},
        {"\xe2\x82\xac", "\x7f"},
        {"\xf0\x9f\x98\x80", "\x7f"},
        {"\xf4\x8f\xbf\xbf", "\x7f"},
        {"\x80", "\x7f"},
        {"\x80\xbf", "\x7f\x7f"},
        {"\xc0\xaf", "\x7f\x7f"},
        {"\xc1\xbf", "\x7f\x7f"},
        {"\xe0\x80\x80", "\x7f\x7f\x7f"},
        {"\xed\xa0\x80", "\x7f\x7f\x7f"},
        {"\xf4\x90\x80\x80", "\x7f\x7f\x7f\x7f"},
        {"\xf5\x80", "\x7f\x7f"},
        {"\xe2\x82", "\x7f"},
        {"\xe2\x82\x41", "\x7f\x41"}, // then 'A' (0x41)
        {"\xf0\x9f\x98", "\x7f"},
        {"\xf0\x9f\x98\n\xc3", "\x7f\n\x7f"},
        {"\xff\xfe", "\x7f\x7f"},
        {"\x01\t\r\x1b\x7f", "\x7f\x7f\x7f\x7f\x7f"},
        // a F1 80 80 E1 80 C2 b 80 c 80 BF d (b, c, d are 0x62, 0x63, 0x64)
        {"a\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64", "a\x7f\x7f\x7f\x62\x7f\x63\x7f\x7f\x64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int w, h, want_w, want_h;
        sr_font_measure(cases[i].input, 2, &w, &h);
        sr_font_measure(cases[i].expected, 2, &want_w, &want_h);
        cr_assert(w == want_w && h == want_h, "case %zu: measured %d x %d, expected %d x %d", i, w, h, want_w, want_h);
        for (int backdrop = 0; backdrop < 3; backdrop++) {
            test_fb t = tfb_create(140, 50, 0, 21, 0, 0);
            uint32_t *expected = malloc(t.count * sizeof *expected);
            cr_assert(expected);
            memcpy(expected, t.fb.color, t.count * sizeof *expected);
            draw_case actual = {3, 4, cases[i].input, 2, white, 0xc0000000u, backdrop};
            draw_case wanted = {3, 4, cases[i].expected, 2, white, 0xc0000000u, backdrop};
            font_draw(&t.fb, &actual);
            ref_draw(expected, 140, 50, &wanted);
            char what[64];
            snprintf(what, sizeof what, "replacement case %zu backdrop %d", i, backdrop);
            tfb_check(&t, what);
            expect_image(t.fb.color, expected, 140, 50, what);
            free(expected);
            tfb_destroy(&t);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Degenerate arguments                                                                        */

Test(debug_font, null_empty_and_clamped_arguments)
{
    // NULL and empty text draw nothing.
    const char *nothing[] = {NULL, "", "\n\n"};
    for (size_t i = 0; i < 3; i++)
        for (int backdrop = 0; backdrop < 3; backdrop++) {
            test_fb t = tfb_create(16, 16, 0x80402010u, 0, 0, 0);
            sr_font_draw(&t.fb, 2, 2, nothing[i], 1, white, 0xff000000u, (sr_font_backdrop)backdrop);
            tfb_check(&t, "nothing");
            for (size_t k = 0; k < t.count; k++)
                cr_assert_eq(t.fb.color[k], 0x80402010u, "text %zu backdrop %d wrote pixel %zu", i, backdrop, k);
            tfb_destroy(&t);
        }
    // Scales below 1 draw as 1, above SR_FONT_SCALE_MAX as SR_FONT_SCALE_MAX.
    const int scales[] = {0, -1, INT_MIN, 5, 9, INT_MAX};
    for (size_t i = 0; i < sizeof scales / sizeof *scales; i++) {
        test_fb a = tfb_create(80, 60, 0, 4, 0, 0), b = tfb_create(80, 60, 0, 4, 0, 0);
        sr_font_draw(&a.fb, 1, 2, "Ag\nz", scales[i], white, 0xc0000000u, SR_FONT_OUTLINE);
        sr_font_draw(&b.fb, 1, 2, "Ag\nz", scales[i] < 1 ? 1 : SCALE_MAX, white, 0xc0000000u, SR_FONT_OUTLINE);
        expect_image(a.fb.color, b.fb.color, 80, 60, "clamped scale");
        tfb_destroy(&a);
        tfb_destroy(&b);
        draw_case dc = {1, 2, "Ag\nz", scales[i], white, 0xc0000000u, SR_FONT_BOX};
        check_draw(80, 60, &dc, 0, 4, "clamped scale, reference");
    }
    // A backdrop out of range draws as PLAIN.
    const int backdrops[] = {3, 4, 1000, -1};
    for (size_t i = 0; i < sizeof backdrops / sizeof *backdrops; i++) {
        test_fb a = tfb_create(40, 30, 0, 8, 0, 0), b = tfb_create(40, 30, 0, 8, 0, 0);
        sr_font_draw(&a.fb, 1, 2, "Hq", 2, white, 0xff000000u, (sr_font_backdrop)backdrops[i]);
        sr_font_draw(&b.fb, 1, 2, "Hq", 2, white, 0xff000000u, SR_FONT_PLAIN);
        expect_image(a.fb.color, b.fb.color, 40, 30, "backdrop out of range");
        tfb_destroy(&a);
        tfb_destroy(&b);
    }
    // No framebuffer, no colour buffer, empty or negative dimensions: nothing, no crash.
    sr_font_draw(NULL, 0, 0, "x", 1, white, black, SR_FONT_OUTLINE);
    const int sizes[][2] = {{0, 0}, {0, 5}, {5, 0}, {-3, 4}, {4, -3}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        test_fb t = tfb_create(sizes[i][0], sizes[i][1], black, 0, 0, 0);
        for (int backdrop = 0; backdrop < 3; backdrop++)
            sr_font_draw(&t.fb, 0, 0, "Wg\nq", 1, white, black, (sr_font_backdrop)backdrop);
        tfb_check(&t, "empty framebuffer");
        tfb_destroy(&t);
    }
    sr_framebuffer no_color = {.width = 4, .height = 4, .color = NULL, .depth = NULL, .ids = NULL};
    sr_font_draw(&no_color, 0, 0, "x", 1, white, black, SR_FONT_BOX);
}

/* ------------------------------------------------------------------------------------------ */
/* Fuzz                                                                                        */

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Random bytes (biased towards newlines, UTF-8 lead and continuation bytes and controls) as text,
 * at random positions, some extreme, with random scales, backdrops and colours, into
 * framebuffers of random sizes: guards, depth and ids untouched, nothing outside the text's box,
 * and the image equal to the reference renderer's. */
Test(debug_font, fuzz_random_bytes_never_write_outside)
{
    uint64_t state = 0x243f6a8885a308d3ull;
    const int extremes[] = {INT_MIN, INT_MIN + 7, -2000000000, 2000000000, INT_MAX - 30, INT_MAX};
    char text[161];
    for (int iteration = 0; iteration < 1500; iteration++) {
        size_t length = next_random(&state) % 160;
        for (size_t i = 0; i < length; i++) {
            uint64_t r = next_random(&state);
            unsigned kind = (unsigned)(r % 10), v = (unsigned)(r >> 8);
            if (kind < 5)
                text[i] = (char)(0x20 + v % 95); // printable
            else if (kind == 5)
                text[i] = '\n';
            else if (kind == 6)
                text[i] = (char)(0x80 + v % 0x40); // continuation byte
            else if (kind == 7)
                text[i] = (char)(0xc0 + v % 0x40); // lead byte (valid or not)
            else if (kind == 8)
                text[i] = (char)(1 + v % 31); // control
            else
                text[i] = (char)(1 + v % 255);
        }
        text[length] = 0;
        uint64_t r = next_random(&state);
        int width = 1 + (int)(r % 48), height = 1 + (int)((r >> 8) % 36);
        int x = (int)((r >> 16) % 260) - 160, y = (int)((r >> 28) % 200) - 120;
        if ((r >> 40) % 8 == 0)
            x = extremes[(r >> 44) % 6];
        if ((r >> 48) % 8 == 0)
            y = extremes[(r >> 52) % 6];
        uint64_t q = next_random(&state);
        int scale = (int)(q % 8) - 1, backdrop = (int)((q >> 4) % 5) - 1;
        uint32_t alphas[] = {0u, 255u, (uint32_t)(q >> 8) & 0xffu};
        uint32_t color = (hash32(q) & 0x00ffffffu) | alphas[(q >> 16) % 3] << 24;
        uint32_t shade = (hash32(q + 1) & 0x00ffffffu) | alphas[(q >> 20) % 3] << 24;
        char what[96];
        snprintf(what, sizeof what, "fuzz iteration %d (%zu bytes at (%d, %d), scale %d, backdrop %d, %dx%d)",
                 iteration, length, x, y, scale, backdrop, width, height);
        draw_case dc = {x, y, text, scale, color, shade, backdrop};
        check_draw(width, height, &dc, 0, (uint64_t)iteration + 1, what);
    }
}
