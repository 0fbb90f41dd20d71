/* src/raster/fill_avx2.c — the AVX2 variant of fill.c, for builds without -march=native that
 * run on a processor with AVX2 (meson.build compiles this file with -mavx2 -mbmi2 where it
 * dispatches; pipeline.c picks it once, through sr_isa_active). The same block rasterisation
 * as the native and portable variants, with the same results bit for bit. */
#define SR_FILL_AVX2 1
#include "fill.c"
