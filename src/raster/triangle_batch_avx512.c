/* src/raster/triangle_batch_avx512.c — the AVX-512 variant of triangle_batch.c (a batch of 16
 * triangles in one register per value), for builds without -march=native on a processor that
 * has it (meson.build; pipeline.c's sr_raster_screen_batch_for). The same verdicts as every
 * other variant. */
#define SR_BATCH_AVX512 1
#include "triangle_batch.c"
