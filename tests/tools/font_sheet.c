/* font_sheet.c — renders a sheet of the debug font (src/debug/font.c) to an image file, for
 * judging the glyphs by eye and for the README picture (assets/readme/font.png):
 *   font_sheet OUT.png [grey|white|black|checker|scene] [SCALE|all]
 * Every printable ASCII character (one cell apart), the replacement box, a few lines of sample
 * text, and a label per backdrop (outline, box, plain); at scales 1 and 2 by default. Never run by `meson test`. */
#include "../../src/debug/font.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sheet_lines[] = {
    " !\"#$%&'()*+,-./",   // 0x20-0x2f
    "0123456789:;<=>?",    // 0x30-0x3f
    "@ABCDEFGHIJKLMNO",    // 0x40-0x4f
    "PQRSTUVWXYZ[\\]^_",   // 0x50-0x5f
    "`abcdefghijklmno",    // 0x60-0x6f
    "pqrstuvwxyz{|}~\x7f", // 0x70-0x7e and DEL (a replacement box)
};

static const char sample[] = "0O 1lI| 5S 2Z 8B g9q yjp\n"
                             "The quick brown fox jumps over\n"
                             "the lazy dog. t=12.50 ms [x]\n"
                             "bvh: 1024 nodes, hit #3 (u,v)\n"
                             "caf\xc3\xa9 \xe2\x82\xac \xff bad";

/* Fills the background: flat grey, white, black, an 8 x 8 checker of light and dark squares,
 * or a busy "scene" of colour bands and stripes. */
static void fill_background(sr_framebuffer *fb, const char *kind)
{
    for (int y = 0; y < fb->height; y++)
        for (int x = 0; x < fb->width; x++) {
            uint32_t c;
            if (strcmp(kind, "white") == 0)
                c = sr_rgba8(1, 1, 1, 1);
            else if (strcmp(kind, "black") == 0)
                c = sr_rgba8(0, 0, 0, 1);
            else if (strcmp(kind, "checker") == 0)
                c = ((x / 8 + y / 8) & 1) ? sr_rgba8(0.9f, 0.9f, 0.9f, 1) : sr_rgba8(0.15f, 0.15f, 0.15f, 1);
            else if (strcmp(kind, "scene") == 0)
                c = sr_rgba8((float)x / (float)fb->width, ((x + y) / 5) % 2 ? 0.8f : 0.3f, (float)y / (float)fb->height,
                             1);
            else
                c = sr_rgba8(0.36f, 0.42f, 0.5f, 1);
            fb->color[(size_t)y * (size_t)fb->width + (size_t)x] = c;
        }
}

/* Draws the sheet at one scale from (x, y); returns the height used. */
static int draw_sheet(sr_framebuffer *fb, int x, int y, int scale)
{
    const uint32_t white = sr_rgba8(1, 1, 1, 1), yellow = sr_rgba8(1, 0.9f, 0.3f, 1);
    const uint32_t shade = sr_rgba8(0, 0, 0, 0.75f);
    int top = y, gap = sr_font_cell_height(scale);
    for (size_t i = 0; i < sizeof sheet_lines / sizeof *sheet_lines; i++) {
        // Wide spacing between characters, so each glyph can be inspected on its own.
        for (int k = 0; sheet_lines[i][k]; k++) {
            char one[2] = {sheet_lines[i][k], 0};
            sr_font_draw(fb, x + k * 2 * sr_font_cell_width(scale), y, one, scale, white, shade, SR_FONT_OUTLINE);
        }
        y += sr_font_cell_height(scale) + scale * 2;
    }
    y += gap / 2;
    int w, h;
    sr_font_measure(sample, scale, &w, &h);
    sr_font_draw(fb, x, y, sample, scale, white, shade, SR_FONT_OUTLINE);
    y += h + gap / 2;
    sr_font_draw(fb, x, y, "OUTLINE (default)", scale, white, shade, SR_FONT_OUTLINE);
    sr_font_draw(fb, x + sr_font_cell_width(scale) * 19, y, "BOX: 42 ms", scale, yellow, shade, SR_FONT_BOX);
    sr_font_draw(fb, x + sr_font_cell_width(scale) * 31, y, "PLAIN", scale, white, shade, SR_FONT_PLAIN);
    y += sr_font_cell_height(scale);
    return y - top;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT.png [grey|white|black|checker|scene] [SCALE|all]\n", argv[0]);
        return 2;
    }
    const char *background = argc > 2 ? argv[2] : "grey";
    const char *scales = argc > 3 ? argv[3] : "all";
    int first = 1, last = 2;
    if (strcmp(scales, "all") != 0)
        first = last = atoi(scales);
    int width = 0, height = 8;
    for (int s = first; s <= last; s++) {
        int w, h;
        sr_font_measure(sample, s, &w, &h);
        int sheet_width = sr_font_cell_width(s) * 37;
        width = sheet_width + 16 > width ? sheet_width + 16 : width;
        height += 6 * (sr_font_cell_height(s) + 2 * s) + h + 2 * sr_font_cell_height(s) + 8;
    }
    sr_framebuffer *fb = NULL;
    sr_error err;
    if (sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height}, &fb, &err) != SR_OK) {
        fprintf(stderr, "font_sheet: %s\n", err.message);
        return 1;
    }
    fill_background(fb, background);
    int y = 8;
    for (int s = first; s <= last; s++)
        y += draw_sheet(fb, 8, y, s) + 8;
    sr_status status = sr_framebuffer_save(fb, argv[1], &err);
    if (status != SR_OK)
        fprintf(stderr, "font_sheet: %s\n", err.message);
    sr_framebuffer_destroy(fb);
    return status == SR_OK ? 0 : 1;
}
