/* tests/test_debug_font.c — the bitmap font of src/debug/ (font.c), against computations of
 * this file: the glyph table is read back from font.c's text by a parser written here (and a
 * few glyphs are spelled out here by hand), text is decoded by a table-driven UTF-8 reader of
 * this file, and every draw is compared pixel for pixel with a reference renderer written here
 * (per pixel: which font pixel covers it, is that lit, does it touch a lit one), blending
 * computed in double. Framebuffers are built by hand with guard words before and after each of
 * the colour, depth and id buffers, checked after every draw. A mismatching image is written as
 * PNG (actual and expected) into the build folder. This file: the glyph table, single glyphs,
 * backdrops, blending; the program test_debug_font also holds test_debug_font_text.c (clipping,
 * measuring, degenerate arguments, random bytes); their helpers are in
 * debug_font_test_helpers.h. */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/debug/font.h"

#include "debug_font_test_helpers.h"

bool glyph_table[GLYPHS][GLYPH_H][GLYPH_W];

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
