/* font.c — the debug renderer's bitmap font (font.h): a glyph table drawn by hand for softrast,
 * and text measuring and drawing into a framebuffer over an outline or box backdrop.
 * Stands on raster's framebuffer only; knows nothing of scenes, BVHs or SDL. */
#include "font.h"

#include <limits.h>
#include <string.h>

enum {
    GLYPHS_PER_BAND = 16,
    BAND_COUNT = 6,                        // 6 bands of 16: the slots of bytes 0x20-0x7f
    BAND_STRIDE = SR_FONT_GLYPH_WIDTH + 1, // characters per glyph in a band row: glyph + one blank
    GLYPH_REPLACEMENT = 0x7f - 0x20,       // DEL's slot holds the replacement box
    GLYPH_SPACE = 0,                       // the one blank glyph: every other one lights pixels
    GLYPH_NONE = -1,                       // past the end of a line: a blank cell
};

/* The glyphs, drawn for this repository: '#' is a lit pixel, '.' an unlit one. Band k holds the
 * 16 characters 0x20 + 16k to 0x2f + 16k side by side, 5 columns each and one blank between
 * them, so that the table reads like a font sheet; each band is the 9 glyph rows of the cell
 * (the spacing column and row of the cell are not stored: they are always blank). Capitals and
 * digits use rows 0-6 (row 6 sits on the baseline), lowercase rows 2-6 with ascenders from row
 * 0 and descenders down to row 8. Deliberate differences: 0 is slashed, O is not; 1 has a flag
 * and a foot, I two serifs, l a flag and a tail to the right, | runs from row 0 to row 7.
 * tests/test_debug_font.c parses this table back from this file's text on its own. */
static const char glyph_art[BAND_COUNT][SR_FONT_GLYPH_HEIGHT][GLYPHS_PER_BAND * BAND_STRIDE] = {
    {
        // sp    !     "     #     $     %     &     '     (     )     *     +     ,     -     .     /
        "..... ..#.. .#.#. .#.#. ..#.. ##... .##.. ..#.. ...#. .#... ..... ..... ..... ..... ..... ....#",
        "..... ..#.. .#.#. .#.#. .#### ##..# #..#. ..#.. ..#.. ..#.. ..#.. ..#.. ..... ..... ..... ...#.",
        "..... ..#.. .#.#. ##### #.#.. ...#. #.#.. .#... .#... ...#. #.#.# ..#.. ..... ..... ..... ...#.",
        "..... ..#.. ..... .#.#. .###. ..#.. .#... ..... .#... ...#. .###. ##### ..... ##### ..... ..#..",
        "..... ..#.. ..... ##### ..#.# .#... #.#.# ..... .#... ...#. #.#.# ..#.. ..... ..... ..... .#...",
        "..... ..... ..... .#.#. ####. #..## #..#. ..... .#... ...#. ..#.. ..#.. ..##. ..... ..##. .#...",
        "..... ..#.. ..... .#.#. ..#.. ...## .##.# ..... ..#.. ..#.. ..... ..... ..##. ..... ..##. #....",
        "..... ..... ..... ..... ..... ..... ..... ..... ...#. .#... ..... ..... ...#. ..... ..... .....",
        "..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..#.. ..... ..... .....",
    },
    {
        // 0     1     2     3     4     5     6     7     8     9     :     ;     <     =     >     ?
        ".###. ..#.. .###. ##### ...#. ##### ..##. ##### .###. .###. ..... ..... ..... ..... ..... .###.",
        "#...# .##.. #...# ...#. ..##. #.... .#... ....# #...# #...# ..... ..... ...#. ..... .#... #...#",
        "#..## #.#.. ....# ..#.. .#.#. ####. #.... ...#. #...# #...# ..##. ..##. ..#.. ##### ..#.. ....#",
        "#.#.# ..#.. ...#. ...#. #..#. ....# ####. ..#.. .###. .#### ..##. ..##. .#... ..... ...#. ...#.",
        "##..# ..#.. ..#.. ....# ##### ....# #...# .#... #...# ....# ..... ..... ..#.. ##### ..#.. ..#..",
        "#...# ..#.. .#... #...# ...#. #...# #...# .#... #...# ...#. ..##. ..##. ...#. ..... .#... .....",
        ".###. ##### ##### .###. ...#. .###. .###. .#... .###. .##.. ..##. ..##. ..... ..... ..... ..#..",
        "..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ...#. ..... ..... ..... .....",
        "..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..#.. ..... ..... ..... .....",
    },
    {
        // @     A     B     C     D     E     F     G     H     I     J     K     L     M     N     O
        ".###. .###. ####. .###. ###.. ##### ##### .###. #...# .###. ..### #...# #.... #...# #...# .###.",
        "#...# #...# #...# #...# #..#. #.... #.... #...# #...# ..#.. ...#. #..#. #.... ##.## #...# #...#",
        "#.### #...# #...# #.... #...# #.... #.... #.... #...# ..#.. ...#. #.#.. #.... #.#.# ##..# #...#",
        "#.#.# ##### ####. #.... #...# ####. ####. #.### ##### ..#.. ...#. ##... #.... #.#.# #.#.# #...#",
        "#.### #...# #...# #.... #...# #.... #.... #...# #...# ..#.. ...#. #.#.. #.... #...# #..## #...#",
        "#.... #...# #...# #...# #..#. #.... #.... #...# #...# ..#.. #..#. #..#. #.... #...# #...# #...#",
        ".#### #...# ####. .###. ###.. ##### #.... .#### #...# .###. .##.. #...# ##### #...# #...# .###.",
        "..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .....",
        "..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .....",
    },
    {
        // P     Q     R     S     T     U     V     W     X     Y     Z     [     \     ]     ^     _
        "####. .###. ####. .#### ##### #...# #...# #...# #...# #...# ##### .###. #.... .###. ..#.. .....",
        "#...# #...# #...# #.... ..#.. #...# #...# #...# #...# #...# ....# .#... .#... ...#. .#.#. .....",
        "#...# #...# #...# #.... ..#.. #...# #...# #...# .#.#. .#.#. ...#. .#... .#... ...#. #...# .....",
        "####. #...# ####. .###. ..#.. #...# #...# #.#.# ..#.. ..#.. ..#.. .#... ..#.. ...#. ..... .....",
        "#.... #.#.# #.#.. ....# ..#.. #...# #...# #.#.# .#.#. ..#.. .#... .#... ...#. ...#. ..... .....",
        "#.... #..#. #..#. ....# ..#.. #...# .#.#. #.#.# #...# ..#.. #.... .#... ...#. ...#. ..... .....",
        "#.... .##.# #...# ####. ..#.. .###. ..#.. .#.#. #...# ..#.. ##### .#... ....# ...#. ..... .....",
        "..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .###. ..... .###. ..... #####",
        "..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .....",
    },
    {
        // `     a     b     c     d     e     f     g     h     i     j     k     l     m     n     o
        ".#... ..... #.... ..... ....# ..... ..##. ..... #.... ..#.. ...#. #.... .##.. ..... ..... .....",
        "..#.. ..... #.... ..... ....# ..... .#... ..... #.... ..... ..... #.... ..#.. ..... ..... .....",
        "..... .###. #.##. .#### .##.# .###. ####. .#### #.##. .##.. ..##. #..#. ..#.. ##.#. #.##. .###.",
        "..... ....# ##..# #.... #..## #...# .#... #...# ##..# ..#.. ...#. #.#.. ..#.. #.#.# ##..# #...#",
        "..... .#### #...# #.... #...# ##### .#... #...# #...# ..#.. ...#. ##... ..#.. #.#.# #...# #...#",
        "..... #...# #...# #.... #...# #.... .#... #...# #...# ..#.. ...#. #.#.. ..#.. #.#.# #...# #...#",
        "..... .#### ####. .#### .#### .###. .#... .#### #...# .###. ...#. #..#. ...## #.#.# #...# .###.",
        "..... ..... ..... ..... ..... ..... ..... ....# ..... ..... #..#. ..... ..... ..... ..... .....",
        "..... ..... ..... ..... ..... ..... ..... .###. ..... ..... .##.. ..... ..... ..... ..... .....",
    },
    {
        // p     q     r     s     t     u     v     w     x     y     z     {     |     }     ~    box
        "..... ..... ..... ..... .#... ..... ..... ..... ..... ..... ..... ...## ..#.. ##... ..... #####",
        "..... ..... ..... ..... .#... ..... ..... ..... ..... ..... ..... ..#.. ..#.. ..#.. ..... #...#",
        "####. .#### #.##. .#### ####. #...# #...# #...# #...# #...# ##### ..#.. ..#.. ..#.. ..... #.#.#",
        "#...# #...# ##..# #.... .#... #...# #...# #...# .#.#. #...# ...#. .#... ..#.. ...#. .##.# #...#",
        "#...# #...# #.... .###. .#... #...# #...# #.#.# ..#.. #...# ..#.. ..#.. ..#.. ..#.. #..#. #.#.#",
        "#...# #...# #.... ....# .#..# #..## .#.#. #.#.# .#.#. #...# .#... ..#.. ..#.. ..#.. ..... #...#",
        "####. .#### #.... ####. ..##. .##.# ..#.. .#.#. #...# .#### ##### ..#.. ..#.. ..#.. ..... #.#.#",
        "#.... ....# ..... ..... ..... ..... ..... ..... ..... ....# ..... ...## ..#.. ##... ..... #...#",
        "#.... ....# ..... ..... ..... ..... ..... ..... ..... .###. ..... ..... ..... ..... ..... #####",
    },
};

static inline int clamp_scale(int scale)
{
    return scale < 1 ? 1 : scale > SR_FONT_SCALE_MAX ? SR_FONT_SCALE_MAX : scale;
}

/* Whether pixel (column, row) of the cell of `glyph` is lit; anything outside the 5 x 9 glyph
 * area (the spacing column and row) and GLYPH_NONE are unlit. column, row >= 0. */
static inline bool glyph_lit(int glyph, int column, int row)
{
    if (glyph < 0 || column >= SR_FONT_GLYPH_WIDTH || row >= SR_FONT_GLYPH_HEIGHT)
        return false;
    return glyph_art[glyph / GLYPHS_PER_BAND][row][(glyph % GLYPHS_PER_BAND) * BAND_STRIDE + column] == '#';
}

/* ---- Text decoding ------------------------------------------------------------------------- */

/* Length in bytes of what starts at `s`, a byte without a glyph of its own: a well-formed UTF-8
 * sequence (Unicode 15, table 3-7) or the maximal subpart of an ill-formed one, so that each
 * becomes one replacement box (Unicode's "maximal subpart" practice, also the WHATWG decoder's).
 * A byte that cannot start a sequence (a control, DEL, a continuation byte, C0, C1, F5-FF) is
 * one. Reads only continuation bytes past s[0], so never past the terminating NUL. */
static size_t replacement_length(const unsigned char *s)
{
    unsigned char lead = s[0];
    size_t length;
    unsigned char low = 0x80, high = 0xbf; // allowed range of the second byte
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        low = lead == 0xe0 ? 0xa0 : 0x80;  // no overlong forms
        high = lead == 0xed ? 0x9f : 0xbf; // no surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        low = lead == 0xf0 ? 0x90 : 0x80;  // no overlong forms
        high = lead == 0xf4 ? 0x8f : 0xbf; // nothing past U+10FFFF
    } else {
        return 1;
    }
    if (s[1] < low || s[1] > high)
        return 1;
    size_t taken = 2;
    while (taken < length && s[taken] >= 0x80 && s[taken] <= 0xbf)
        taken++;
    return taken;
}

/* Reads one line of text glyph by glyph. */
typedef struct line_reader {
    const unsigned char *next; ///< next byte to decode; NULL for a line that does not exist
} line_reader;

/* The next glyph of the line, or GLYPH_NONE (and no progress) at its end ('\n' or NUL). */
static int read_glyph(line_reader *reader)
{
    const unsigned char *s = reader->next;
    if (!s || *s == '\0' || *s == '\n')
        return GLYPH_NONE;
    if (*s >= 0x20 && *s < 0x7f) {
        reader->next = s + 1;
        return *s - 0x20;
    }
    reader->next = s + replacement_length(s);
    return GLYPH_REPLACEMENT;
}

/* Skips up to `count` glyphs; stops at the end of the line, so a huge count costs only the line. */
static void skip_glyphs(line_reader *reader, int64_t count)
{
    for (; count > 0; count--)
        if (read_glyph(reader) == GLYPH_NONE)
            return;
}

/* The start of the line after the one starting at `line`, NULL if it is the last. A '\n' never
 * belongs to a UTF-8 sequence (replacement_length takes only continuation bytes), so the byte
 * scan splits lines exactly where read_glyph stops. */
static const unsigned char *next_line(const unsigned char *line)
{
    const char *newline = strchr((const char *)line, '\n');
    return newline ? (const unsigned char *)newline + 1 : NULL;
}

typedef struct text_cells {
    size_t columns; ///< characters of the longest line
    size_t lines;   ///< 0 for empty text, else 1 + the number of '\n'
} text_cells;

static text_cells count_cells(const unsigned char *text)
{
    text_cells cells = {0, 0};
    if (!text || !*text)
        return cells;
    cells.lines = 1;
    size_t column = 0;
    line_reader reader = {text};
    for (;;) {
        if (read_glyph(&reader) != GLYPH_NONE) {
            column++;
            continue;
        }
        if (column > cells.columns)
            cells.columns = column;
        if (*reader.next != '\n')
            break;
        reader.next++;
        cells.lines++;
        column = 0;
    }
    return cells;
}

/* (count * cell - 1) * scale pixels, 0 for no cells. count is capped at INT_MAX first, which no
 * drawing can tell apart (the box then reaches past any framebuffer from any int position). */
static int64_t extent_px(size_t count, int cell, int scale)
{
    if (count == 0)
        return 0;
    int64_t capped = count > INT_MAX ? INT_MAX : (int64_t)count;
    return (capped * cell - 1) * scale;
}

static int saturate_int(int64_t value)
{
    return value > INT_MAX ? INT_MAX : (int)value;
}

/* ---- Pixels -------------------------------------------------------------------------------- */

/* `source` over `destination` with the source's alpha, as documented in font.h: exact integer
 * rounding to nearest, (v + 127) / 255 = floor(v / 255 + 1/2) because 255 is odd (no ties). */
static inline uint32_t blend_over(uint32_t destination, uint32_t source)
{
    uint32_t alpha = source >> 24;
    if (alpha == 255u)
        return source;
    uint32_t keep = 255u - alpha;
    uint32_t result = 0;
    for (int shift = 0; shift < 24; shift += 8) {
        uint32_t s = (source >> shift) & 0xffu, d = (destination >> shift) & 0xffu;
        result |= ((s * alpha + d * keep + 127u) / 255u) << shift;
    }
    uint32_t d = destination >> 24;
    return result | ((255u * alpha + d * keep + 127u) / 255u) << 24;
}

/* Blends `color` once over every pixel of [x0, x1) x [y0, y1) inside the framebuffer. */
static void blend_rect(sr_framebuffer *fb, int64_t x0, int64_t y0, int64_t x1, int64_t y1, uint32_t color)
{
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > fb->width ? fb->width : x1;
    y1 = y1 > fb->height ? fb->height : y1;
    if (x0 >= x1 || y0 >= y1 || (color >> 24) == 0)
        return;
    for (int64_t py = y0; py < y1; py++) {
        uint32_t *row = fb->color + (size_t)py * (size_t)fb->width;
        for (int64_t px = x0; px < x1; px++)
            row[px] = blend_over(row[px], color);
    }
}

/* What one draw needs at every cell. */
typedef struct font_pen {
    sr_framebuffer *fb;
    int scale;
    uint32_t color, ring_color;
    bool outline;
} font_pen;

/* Whether font pixel (column, row) is lit in the 2 x 2 block of cells whose glyphs are
 * quad = {this cell, the one to its right, the one below, the one below-right}; column in
 * [-1, 2 * cell width), row in [-1, 2 * cell height). Pixels left of or above this cell are the
 * spacing column or row of a neighbour (or outside the text): never lit. */
static inline bool lit_in_quad(const int quad[4], int column, int row)
{
    if (column < 0 || row < 0)
        return false;
    int right = column >= SR_FONT_CELL_WIDTH, down = row >= SR_FONT_CELL_HEIGHT;
    return glyph_lit(quad[right + 2 * down], column - right * SR_FONT_CELL_WIDTH, row - down * SR_FONT_CELL_HEIGHT);
}

/* Draws the cell whose glyph is quad[0] with its top-left pixel at (left, top). Each cell owns
 * its 6 x 10 font pixels, spacing included, and decides each of them once: lit (color), ring
 * (an unlit pixel with a lit 8-neighbour, in this cell or in the cells right, below and
 * below-right of it: the cells left and above touch it only through their blank spacing) or
 * nothing. So rings shared by two glyphs are blended once. */
static void draw_cell(const font_pen *pen, int64_t left, int64_t top, const int quad[4])
{
    // lit[r + 1] bit c + 1 = font pixel (c, r) lit, for c in [-1, 6], r in [-1, 10]: the cell and
    // the ring of neighbours its 8-neighbourhood tests reach, read from the table once per cell.
    uint32_t lit[SR_FONT_CELL_HEIGHT + 2];
    for (int row = -1; row <= SR_FONT_CELL_HEIGHT; row++) {
        uint32_t bits = 0;
        for (int column = -1; column <= SR_FONT_CELL_WIDTH; column++)
            bits |= (uint32_t)lit_in_quad(quad, column, row) << (column + 1);
        lit[row + 1] = bits;
    }
    const int s = pen->scale;
    const int64_t width = pen->fb->width, height = pen->fb->height;
    for (int row = 0; row < SR_FONT_CELL_HEIGHT; row++) {
        int64_t y0 = top + (int64_t)row * s;
        if (y0 + s <= 0 || y0 >= height)
            continue;
        uint32_t here = lit[row + 1], near = 0;
        if (pen->outline) {
            near = lit[row] | lit[row + 1] | lit[row + 2];
            near |= near << 1 | near >> 1; // bit c + 1: a lit pixel in the 3 x 3 block around (c, row)
        }
        for (int column = 0; column < SR_FONT_CELL_WIDTH; column++) {
            int64_t x0 = left + (int64_t)column * s;
            if (x0 + s <= 0 || x0 >= width)
                continue;
            uint32_t bit = 1u << (column + 1);
            if (here & bit)
                blend_rect(pen->fb, x0, y0, x0 + s, y0 + s, pen->color);
            else if (near & bit)
                blend_rect(pen->fb, x0, y0, x0 + s, y0 + s, pen->ring_color);
        }
    }
}

/* Draws the visible cells of one text line whose top-left pixel is (left, top): `line` is its
 * first byte (NULL: a line above the text, drawn only for the ring), `below` the next line's
 * (NULL: none, or no outline to draw). */
static void draw_line(const font_pen *pen, int64_t left, int64_t top, const unsigned char *line,
                      const unsigned char *below)
{
    const int64_t cell_width = (int64_t)SR_FONT_CELL_WIDTH * pen->scale;
    // The ring reaches one font pixel left of the text: the last column of cell -1.
    int64_t index = pen->outline ? -1 : 0;
    if (left < 0 && -left / cell_width > index)
        index = -left / cell_width; // the first cell whose right end is inside the framebuffer
    line_reader here = {line}, next = {below};
    skip_glyphs(&here, index);
    skip_glyphs(&next, index);
    int quad[4];
    quad[0] = index >= 0 ? read_glyph(&here) : GLYPH_NONE;
    quad[1] = read_glyph(&here);
    quad[2] = index >= 0 ? read_glyph(&next) : GLYPH_NONE;
    quad[3] = read_glyph(&next);
    for (; left + index * cell_width < pen->fb->width; index++) {
        if (quad[0] == GLYPH_NONE && quad[1] == GLYPH_NONE && quad[2] == GLYPH_NONE && quad[3] == GLYPH_NONE)
            return; // both lines have ended: every later cell is blank
        // Spaces and ends of lines light nothing and have no ring: skip their 60 pixel tests.
        if (quad[0] > GLYPH_SPACE || quad[1] > GLYPH_SPACE || quad[2] > GLYPH_SPACE || quad[3] > GLYPH_SPACE)
            draw_cell(pen, left + index * cell_width, top, quad);
        quad[0] = quad[1];
        quad[2] = quad[3];
        quad[1] = read_glyph(&here);
        quad[3] = read_glyph(&next);
    }
}

/* ---- Public functions ---------------------------------------------------------------------- */

int sr_font_cell_width(int scale)
{
    return SR_FONT_CELL_WIDTH * clamp_scale(scale);
}

int sr_font_cell_height(int scale)
{
    return SR_FONT_CELL_HEIGHT * clamp_scale(scale);
}

void sr_font_measure(const char *text, int scale, int *width, int *height)
{
    int s = clamp_scale(scale);
    text_cells cells = count_cells((const unsigned char *)text);
    if (width)
        *width = saturate_int(extent_px(cells.columns, SR_FONT_CELL_WIDTH, s));
    if (height)
        *height = saturate_int(extent_px(cells.lines, SR_FONT_CELL_HEIGHT, s));
}

void sr_font_draw(sr_framebuffer *fb, int x, int y, const char *text, int scale, uint32_t color,
                  uint32_t backdrop_color, sr_font_backdrop backdrop)
{
    if (!fb || !fb->color || fb->width < 1 || fb->height < 1 || !text || !*text)
        return;
    const unsigned char *start = (const unsigned char *)text;
    const int s = clamp_scale(scale);
    if (backdrop == SR_FONT_BOX) {
        text_cells cells = count_cells(start);
        if (cells.columns > 0) {
            int64_t width = extent_px(cells.columns, SR_FONT_CELL_WIDTH, s);
            int64_t height = extent_px(cells.lines, SR_FONT_CELL_HEIGHT, s);
            blend_rect(fb, (int64_t)x - s, (int64_t)y - s, (int64_t)x + width + s, (int64_t)y + height + s,
                       backdrop_color);
        }
    }
    font_pen pen = {
        .fb = fb,
        .scale = s,
        .color = color,
        .ring_color = backdrop_color,
        .outline = backdrop == SR_FONT_OUTLINE && (backdrop_color >> 24) != 0,
    };
    if ((color >> 24) == 0 && !pen.outline)
        return;
    const int64_t cell_height = (int64_t)SR_FONT_CELL_HEIGHT * s;
    // Lines j and j + 1; with the outline, line -1 (above the text) is drawn for its last row.
    const unsigned char *line = pen.outline ? NULL : start;
    const unsigned char *below = pen.outline ? start : next_line(start);
    for (int64_t j = pen.outline ? -1 : 0; line || below; j++) {
        int64_t top = (int64_t)y + j * cell_height;
        if (top >= fb->height)
            break;
        if (top + cell_height > 0)
            draw_line(&pen, x, top, line, pen.outline ? below : NULL);
        line = below;
        below = below ? next_line(below) : NULL;
    }
}
