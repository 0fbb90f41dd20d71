/* src/raster/fill_portable.c — the portable variant of fill.c: the same block rasterisation in
 * plain C (no vector intrinsics), as a build for a processor without SSE2 or AVX2 runs it. The
 * library keeps it beside the native variant so that the tests can compare the two images bit for
 * bit (raster_internal.h: sr_renderer.portable_fill). */
#define SR_FILL_PORTABLE 1
#include "fill.c"
