/* src/raster/fill_avx512.c — the AVX-512 variant of fill.c (AVX-512 F, VL, DQ, BW), for builds
 * without -march=native on a processor that has it (meson.build, pipeline.c's
 * sr_raster_fill_for). The block code is fill_lanes.h's AVX2 form; the compiler may use the
 * wider instruction set's encodings, masks and extra registers for it. The same results, bit
 * for bit, as every other variant. */
#define SR_FILL_AVX512 1
#include "fill.c"
