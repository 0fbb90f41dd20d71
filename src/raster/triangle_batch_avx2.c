/* src/raster/triangle_batch_avx2.c — the AVX2 variant of triangle_batch.c, for builds without
 * -march=native on a processor with AVX2 (meson.build; pipeline.c's sr_raster_screen_batch_for).
 * The same verdicts as every other variant: integer arithmetic, lane by lane. */
#define SR_BATCH_AVX2 1
#include "triangle_batch.c"
