/* tests/fuzz/fuzz_targets.h — the fuzz targets of softrast, one per file in tests/fuzz/.
 * Each file defines its entry point (libFuzzer's contract, under its own name so that all
 * targets link into one test program) and the descriptor below that bundles it with its seeds.
 * fuzz_libfuzzer.c turns one of them into a libFuzzer executable; tests/test_fuzz.c runs them
 * all through the mutation engine of fuzz_driver.h. */
#ifndef SR_FUZZ_TARGETS_H
#define SR_FUZZ_TARGETS_H

#include "fuzz_driver.h"

/// fuzz_obj.c: sr_obj_load over OBJ and MTL texts, then sr_mesh_normalize.
int fuzz_obj_test_one_input(const uint8_t *data, size_t size);
extern const fuzz_target fuzz_target_obj;

/// fuzz_draw.c: sr_framebuffer_create, sr_draw_triangles and sr_draw_lines.
int fuzz_draw_test_one_input(const uint8_t *data, size_t size);
extern const fuzz_target fuzz_target_draw;
/// fuzz_draw_seeds.c: the draw target's seeds.
void fuzz_draw_add_seeds(fuzz_corpus *corpus);

/// fuzz_texture.c: sr_texture_create / sr_texture_load and sr_texture_sample.
int fuzz_texture_test_one_input(const uint8_t *data, size_t size);
extern const fuzz_target fuzz_target_texture;

/// fuzz_geom.c: every query of softrast/geom.h.
int fuzz_geom_test_one_input(const uint8_t *data, size_t size);
extern const fuzz_target fuzz_target_geom;

/// fuzz_bvh.c: sr_bvh_build_triangles / _boxes and every query, against brute force.
int fuzz_bvh_test_one_input(const uint8_t *data, size_t size);
extern const fuzz_target fuzz_target_bvh;

/// fuzz_dynamic.c: sr_dynamic_tree_* operations and queries against a model and brute force.
int fuzz_dynamic_test_one_input(const uint8_t *data, size_t size);
extern const fuzz_target fuzz_target_dynamic;

/// fuzz_pairs.c: sr_pair_set_parse over pairs-file texts, then the pairs' signed distances.
int fuzz_pairs_test_one_input(const uint8_t *data, size_t size);
extern const fuzz_target fuzz_target_pairs;
/// fuzz_record.c: sr_recording_open, _seek, _render, _pick_item, _check over any file bytes.
int fuzz_record_test_one_input(const uint8_t *data, size_t size);
extern const fuzz_target fuzz_target_record;

#endif
