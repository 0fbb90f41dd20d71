/* font.h — the debug renderer's bitmap font: printable ASCII drawn into a framebuffer, for
 * labels, the HUD and legends. Private to src/debug/ (not installed). Stands on raster's
 * framebuffer only; knows nothing of scenes, BVHs or SDL.
 *
 * Glyph cell (scale 1): 6 x 10 pixels. The glyph itself lives in the top-left 5 x 9 pixels; the
 * right column and the bottom row of the cell are spacing and never lit. Capitals and digits are
 * 7 rows tall (rows 0-6, baseline under row 6), lowercase has a 5-row x-height (rows 2-6) and
 * descenders take rows 7-8. At scale s every font pixel is an s x s block, so text stays crisp
 * (no filtering). */
#ifndef SR_DEBUG_FONT_H
#define SR_DEBUG_FONT_H

#include <softrast/raster.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Cell size at scale 1, in pixels: glyph plus one spacing column and one spacing row.
#define SR_FONT_CELL_WIDTH 6
#define SR_FONT_CELL_HEIGHT 10
/// The part of the cell a glyph may light, in pixels at scale 1 (top-left of the cell).
#define SR_FONT_GLYPH_WIDTH 5
#define SR_FONT_GLYPH_HEIGHT 9
/// Rows of the cell above the baseline (the height of capitals and digits) at scale 1.
#define SR_FONT_BASELINE 7
/// Scales accepted by the functions below; others are clamped into [1, SR_FONT_SCALE_MAX].
#define SR_FONT_SCALE_MAX 4

/// What is drawn behind the text so that it reads over any scene, in `backdrop_color`.
typedef enum sr_font_backdrop {
    /// Default: a ring `scale` pixels thick around the glyphs: every font pixel that is not lit
    /// but touches a lit one (8-neighbourhood), over the whole text (where the rings of two
    /// glyphs meet, the pixel is blended once). Extends at most `scale` pixels past the
    /// measured box on each side.
    SR_FONT_OUTLINE = 0,
    /// A rectangle behind the measured box, `scale` pixels larger on each side, blended once
    /// per pixel; nothing for a text whose measured width or height is 0.
    SR_FONT_BOX,
    /// Nothing behind the glyphs.
    SR_FONT_PLAIN,
} sr_font_backdrop;

/// Cell width (SR_FONT_CELL_WIDTH * scale) and height (SR_FONT_CELL_HEIGHT * scale) in pixels at
/// `scale` (clamped into [1, SR_FONT_SCALE_MAX]): the advance from one character to the next
/// and from one line to the next.
int sr_font_cell_width(int scale);
int sr_font_cell_height(int scale);

/// Size in pixels of the text block `sr_font_draw` draws for `text` at `scale` (clamped), the
/// backdrop not included (OUTLINE adds up to `scale` pixels on each side, BOX exactly `scale`).
/// Lines are split at '\n' (a text of n '\n' has n + 1 lines, empty ones included); a line of c
/// characters is (c * SR_FONT_CELL_WIDTH - 1) * scale wide (0 when c = 0): the spacing column
/// after its last character is not part of the box. Width = the longest line's, height =
/// (lines * SR_FONT_CELL_HEIGHT - 1) * scale; both 0 for NULL or empty text; saturated at
/// INT_MAX. Characters are counted as sr_font_draw draws them (one per printable ASCII byte, one
/// replacement box per other byte or UTF-8 sequence). `width` or `height` may be NULL.
/// Thread-safe (reads only).
void sr_font_measure(const char *text, int scale, int *width, int *height);

/// Draws `text` (NUL-terminated; NULL draws nothing) with its top-left corner at pixel (x, y):
/// character k of line j has its cell at (x + k * cell width, y + j * cell height); '\n' starts
/// a new line at x. Printable ASCII (0x20-0x7e) has its own glyph; every other byte below 0x80
/// except '\n' (controls, DEL) draws one replacement box, and so does each UTF-8 sequence: a
/// well-formed one, or each maximal ill-formed subpart of one (Unicode's "maximal subpart"
/// practice, as WHATWG decoders do), so a stray byte >= 0x80 is one box.
///
/// `color` and `backdrop_color` are RGBA8 (see sr_rgba8), blended over the framebuffer with
/// their own alpha a (0-255), per pixel and once per pixel: for r, g, b,
/// out = round((src * a + dst * (255 - a)) / 255); for alpha (Porter-Duff over, so an opaque
/// framebuffer stays opaque) out = round((255 * a + dst * (255 - a)) / 255). Exact integer
/// arithmetic rounding to nearest (the quotient never ends in exactly .5). a = 255 replaces,
/// a = 0 leaves the pixel as it is. The backdrop is drawn first, the glyphs over it.
///
/// `scale` is clamped into [1, SR_FONT_SCALE_MAX]; `backdrop` out of range draws as
/// SR_FONT_PLAIN. Clipped to the framebuffer for any x, y and text length: never writes outside
/// the colour buffer, never touches depth or ids, allocates nothing. A NULL framebuffer, one
/// with a NULL colour buffer or a side < 1 draws nothing. Not thread-safe on one framebuffer
/// (it writes pixels); reentrant otherwise.
void sr_font_draw(sr_framebuffer *fb, int x, int y, const char *text, int scale, uint32_t color,
                  uint32_t backdrop_color, sr_font_backdrop backdrop);

#ifdef __cplusplus
}
#endif
#endif
