/* tests/test_debug_font_text.c — the bitmap font's clipping, measuring, lines and
 * replacement boxes, degenerate arguments and random bytes, against the reference renderer of
 * debug_font_test_helpers.h (part of the program test_debug_font). */
#include <criterion/criterion.h>

#include <softrast/raster.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/debug/font.h"

#include "debug_font_test_helpers.h"
#include "test_budget.h"

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
        // Under the sanitizers scales 1, 2 and SCALE_MAX: the release run checks every scale;
        // this run looks for memory errors and undefined behaviour in the same clipping code, which
        // scale 1, a multiplied scale and the largest (the widest rows and rings, reaching
        // farthest outside the framebuffer) take through every edge case of the positions.
        if (SR_TEST_SANITIZED && s != 1 && s != 2 && s != SCALE_MAX)
            continue;
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
