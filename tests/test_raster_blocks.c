/* tests/test_raster_blocks.c — shading in blocks (src/raster/fill.c, raster.h's
 * sr_fragment_block_fn, the built-in programs' block forms in shaders/): for every built-in
 * program the block form and the one-fragment form (called lane by lane by the pipeline) give the
 * same colour, depth, ids and statistics bit for bit, over scenes of small, tiny, large, clipped
 * and back-facing triangles, in every render state (blending, depth functions, no depth writes,
 * culling), with depth written by the program (late test), with barycentrics, and for the textured
 * program with every filter and wrap; the same images with 1, 2, 3, 5 and 7 threads, and with the
 * portable variant of the fill (plain C) as with the native one (AVX2 or SSE2, whichever the build
 * compiles: the sanitized build of `./softrast.sh test` runs SSE2, the release build AVX2).
 * User programs: one with only `fragment` gets inputs lane for lane equal to those the block form
 * sees; one with only `fragment_block` that discards lanes (and returns bits outside its mask)
 * draws what its one-fragment twin draws, sees only covered lanes, in 4x2 blocks. This file: the
 * built-in programs; the program test_raster_blocks also holds test_raster_blocks_user.c (user
 * programs); their helpers are in raster_blocks_test_helpers.h. */
#include <criterion/criterion.h>

#include <softrast/raster.h>
#include <softrast/shaders.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"

#include "raster_blocks_test_helpers.h"
#include "test_budget.h"

/* ------------------------------------------------------------------------------------------ */
/* The built-in programs in every configuration                                                */

/* A 13x7 texture of unrelated texels (odd sizes: wrapping and clamping show). */
static sr_texture *texture_new(void)
{
    uint32_t texels[13 * 7];
    uint32_t x = 12345u;
    for (int i = 0; i < 13 * 7; i++) {
        x = x * 1664525u + 1013904223u;
        texels[i] = x;
    }
    sr_texture *texture = NULL;
    sr_error err;
    cr_assert_eq(sr_texture_create(&(sr_texture_desc){.width = 13, .height = 7, .texels = texels}, &texture, &err),
                 SR_OK, "%s", err.message);
    return texture;
}

/* Configurations of a built-in program: its uniforms and program flags. */
typedef struct configuration {
    char name[96];
    sr_shader_uniforms uniforms;
    bool writes_depth, uses_barycentrics;
} configuration;

#define MAX_CONFIGURATIONS 16

/* The configurations worth drawing for `shader`: the defaults (half transparent, so that blending
 * shows), with depth written by the program, with barycentrics; textured with every filter and
 * wrap, and without a texture; wireframe with and without fill (discards). */
static int configurations_of(const sr_shader *shader, const sr_texture *texture, int width, int height,
                             configuration out[MAX_CONFIGURATIONS])
{
    sr_shader_uniforms base = sr_shader_uniforms_default();
    sr_mat4 view = sr_mat4_look_at((sr_vec3){0.3f, 0.4f, 0.5f}, (sr_vec3){0.0f, -0.1f, -3.0f}, (sr_vec3){0, 1, 0});
    sr_mat4 projection = sr_mat4_perspective(1.0f, (float)width / (float)height, 0.1f, 60.0f);
    sr_shader_uniforms_set_transforms(&base, sr_mat4_identity(), view, projection);
    base.opacity = 0.6f;
    base.depth_near = 1.0f;
    base.depth_far = 12.0f;
    base.wireframe_width = 0.08f;
    base.shininess = 9.0f;
    base.specular_color = (sr_vec3){0.7f, 0.6f, 0.4f};
    int count = 0;
    out[count++] = (configuration){"defaults", base, false, false};
    out[count++] = (configuration){"program writes depth", base, true, false};
    out[count++] = (configuration){"barycentrics", base, false, true};
    if (shader == &sr_shader_textured) {
        out[count - 1].uniforms.texture = texture; // barycentrics and a texture
        const sr_wrap wraps[4][2] = {{SR_WRAP_REPEAT, SR_WRAP_REPEAT},
                                     {SR_WRAP_CLAMP, SR_WRAP_CLAMP},
                                     {SR_WRAP_REPEAT, SR_WRAP_CLAMP},
                                     {SR_WRAP_CLAMP, SR_WRAP_REPEAT}};
        for (int filter = 0; filter < 2; filter++)
            for (int w = 0; w < 4; w++) {
                configuration c = {"", base, w == 1, false};
                c.uniforms.texture = texture;
                c.uniforms.sampler =
                    (sr_sampler){filter ? SR_FILTER_BILINEAR : SR_FILTER_NEAREST, wraps[w][0], wraps[w][1]};
                snprintf(c.name, sizeof c.name, "texture, %s, wrap %d %d%s", filter ? "bilinear" : "nearest",
                         (int)wraps[w][0], (int)wraps[w][1], c.writes_depth ? ", program writes depth" : "");
                out[count++] = c;
            }
    }
    if (shader == &sr_shader_wireframe) {
        configuration c = {"wireframe without fill (discards)", base, false, false};
        c.uniforms.wireframe_fill = false;
        out[count++] = c;
        c.writes_depth = true;
        snprintf(c.name, sizeof c.name, "wireframe without fill, program writes depth");
        out[count++] = c;
    }
    return count;
}

/* Draws every built-in program in every configuration `a`'s way once, and each of the `way_count`
 * ways of `b` (named by `what`), and compares each with `a`'s frame. */
static void compare_builtins_with(way a, int way_count, const way *b, const char *const *what)
{
    // Under the sanitizers the larger frame is 131x97 instead of 203x149: still odd sizes over
    // several tiles with partial blocks and tiles at the edges, every comparison of the release
    // run on 58% fewer pixels (this test was half of the sanitized run's longest program).
    const int sizes[2][2] = {{SR_TEST_COUNT(203, 131), SR_TEST_COUNT(149, 97)}, {64, 48}};
    geometry scene = build_scene();
    sr_texture *texture = texture_new();
    for (int z = 0; z < 2; z++) {
        const int width = sizes[z][0], height = sizes[z][1];
        for (size_t s = 0; s < sr_shader_count(); s++) {
            const sr_shader *shader = sr_shader_get(s);
            cr_assert(shader->program.fragment && shader->program.fragment_block, "%s: both forms", shader->name);
            configuration configurations[MAX_CONFIGURATIONS];
            int count = configurations_of(shader, texture, width, height, configurations);
            for (int c = 0; c < count; c++) {
                sr_program program = sr_shader_program(shader, &configurations[c].uniforms);
                program.writes_depth = configurations[c].writes_depth;
                program.uses_barycentrics = program.uses_barycentrics || configurations[c].uses_barycentrics;
                frame first = draw_frame(&scene, program, a, width, height);
                for (int k = 0; k < way_count; k++) {
                    frame second = draw_frame(&scene, program, b[k], width, height);
                    char name[256];
                    snprintf(name, sizeof name, "%.60s, %.30s, %.95s, %dx%d", what[k], shader->name,
                             configurations[c].name, width, height);
                    // Every state drew something (NEVER nothing; the scene is not trivial).
                    cr_assert_gt(first.stats.fragments_written, (uint64_t)(width * height), "%s", name);
                    assert_same_frame(&first, &second, name);
                    frame_free(&second);
                }
                frame_free(&first);
            }
        }
    }
    sr_texture_destroy(texture);
    geometry_free(&scene);
}

/* Every way of drawing gives the frame of the one-thread native fill, for every built-in program
 * in every configuration and for the user programs: blocks against one fragment at a time (called
 * lane by lane); the portable fill (plain C) and, in builds that dispatch at run time
 * (meson.build), every fill variant this processor runs, against the native one; 2, 3, 5 and 7
 * threads (2 and 7 under the sanitizers) against one. One test, so that each reference frame is drawn once for every comparison
 * it anchors (three tests drew the same ones again: 15 draws per configuration, now 12). */
Test(raster_blocks, every_form_fill_variant_and_thread_count_gives_the_same_frame)
{
    // Both forms, one thread, native fill: against the portable fill, every variant, N threads.
    const int thread_counts[4] = {2, 3, 5, 7};
    way both[1 + 2 + 4] = {{FORM_BOTH, true, 1, SR_ISA_BUILD}};
    const char *both_names[1 + 2 + 4] = {"native / portable"};
    char names[2 + 4][64];
    int count = 1;
    for (sr_isa isa = SR_ISA_AVX2; isa <= SR_ISA_AVX512; isa++) {
        if (!sr_raster_fill_for(isa) || !sr_isa_available(isa))
            continue;
        snprintf(names[count - 1], sizeof names[0], "native / %s", sr_isa_name(isa));
        both_names[count] = names[count - 1];
        both[count++] = (way){FORM_BOTH, false, 1, isa};
    }
    for (int t = 0; t < 4; t++) {
        // Under the sanitizers 2 and 7 threads only: the release run compares every count here,
        // and raster_threads takes every count through the sanitized run (the same tiles and
        // workers); this run looks for memory errors of every program and configuration.
        if (SR_TEST_SANITIZED && (thread_counts[t] == 3 || thread_counts[t] == 5))
            continue;
        snprintf(names[count - 1], sizeof names[0], "1 / %d threads", thread_counts[t]);
        both_names[count] = names[count - 1];
        both[count++] = (way){FORM_BOTH, t % 2 == 1, thread_counts[t], SR_ISA_BUILD};
    }
    compare_builtins_with((way){FORM_BOTH, false, 1, SR_ISA_BUILD}, count, both, both_names);
    // One fragment at a time, one thread, native fill: against blocks, the portable fill, 3 threads.
    const way one[3] = {{FORM_BLOCK, false, 1, SR_ISA_BUILD},
                        {FORM_ONE, true, 1, SR_ISA_BUILD},
                        {FORM_ONE, false, 3, SR_ISA_BUILD}};
    const char *const one_names[3] = {"one fragment / block", "native / portable, one fragment",
                                      "1 / 3 threads, one fragment"};
    compare_builtins_with((way){FORM_ONE, false, 1, SR_ISA_BUILD}, 3, one, one_names);
    // The user programs: the portable fill, then N threads (the odd ones with the portable fill).
    // (the sanitized run takes the first three: the portable fill, 7 threads, 2 threads)
    const bool portable[5] = {true, true, false, true, false};
    const int threads[5] = {1, 7, 2, 3, 5};
    const char *const user_names[5] = {"native / portable, user program", "1 / 7 threads, user program",
                                       "1 / 2 threads, user program", "1 / 3 threads, user program",
                                       "1 / 5 threads, user program"};
    compare_user_frames(SR_TEST_SANITIZED ? 3 : 5, portable, threads, user_names);
}

/* Floats equal bit for bit, or both NaN (NaN payloads are not part of the contract; colours pack
 * NaN as 0). */
static bool same_float(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b);
}

/* Lane by lane, before any packing into bytes (which would hide a difference of an ulp): every
 * built-in's block function against its one-fragment function on the same inputs, 20,000 blocks
 * of random varyings and barycentrics with zeros, huge values, infinities and NaNs among them, in
 * every configuration, random masks. */
Test(raster_blocks, block_and_one_fragment_functions_agree_lane_for_lane)
{
    sr_texture *texture = texture_new();
    SR_BLOCK_ALIGNED float varyings[SR_ATTRIBUTE_SLOTS][SR_BLOCK_LANES];
    uint32_t x = 2024u;
    const float special[6] = {0.0f, -0.0f, 1e30f, -1e-30f, INFINITY, NAN};
    for (size_t s = 0; s < sr_shader_count(); s++) {
        const sr_shader *shader = sr_shader_get(s);
        configuration configurations[MAX_CONFIGURATIONS];
        int count = configurations_of(shader, texture, 64, 48, configurations);
        const int varying_count = shader->program.varying_count;
        for (int c = 0; c < count; c++) {
            const sr_shader_uniforms *u = &configurations[c].uniforms;
            const bool barycentrics = shader->program.uses_barycentrics || configurations[c].uses_barycentrics;
            for (int round = 0; round < 20000 / count; round++) {
                for (int i = 0; i < varying_count + 3; i++)
                    for (int k = 0; k < SR_BLOCK_LANES; k++) {
                        x = x * 1664525u + 1013904223u;
                        float value = ((float)(x >> 8) / 16777216.0f * 2.0f - 1.0f) * 3.0f;
                        if ((x & 63u) == 0)
                            value = special[(x >> 6) % 6];
                        varyings[i][k] = i >= varying_count ? fabsf(value) * 0.2f : value;
                    }
                x = x * 1664525u + 1013904223u;
                sr_fragment_block_in in = {
                    .varyings = (const float(*)[SR_BLOCK_LANES])varyings,
                    .barycentric = barycentrics ? (const float(*)[SR_BLOCK_LANES])varyings + varying_count : NULL,
                    .mask = round % 3 ? 0xffu : (x >> 8 & 0xffu) | 1u,
                    .primitive_id = x >> 3,
                    .front_facing = x & 1u};
                sr_fragment_block_out out;
                for (int k = 0; k < SR_BLOCK_LANES; k++) {
                    in.x[k] = 0.5f + (float)(k % 4) + 4.0f * (float)(round % 9);
                    in.y[k] = 0.5f + (float)(k / 4) + 2.0f * (float)(round % 5);
                    in.depth[k] = (float)k / 8.0f;
                    out.color[0][k] = out.color[1][k] = out.color[2][k] = 0.0f;
                    out.color[3][k] = 1.0f;
                    out.depth[k] = in.depth[k];
                }
                uint32_t keep = shader->program.fragment_block(&in, u, &out) & in.mask;
                for (int k = 0; k < SR_BLOCK_LANES; k++) {
                    if (!(in.mask >> k & 1u))
                        continue;
                    float lane_varyings[SR_MAX_VARYINGS + 3], lane_barycentric[3];
                    for (int i = 0; i < varying_count; i++)
                        lane_varyings[i] = varyings[i][k];
                    for (int i = 0; i < 3; i++)
                        lane_barycentric[i] = varyings[varying_count + i][k];
                    sr_fragment_in one = {.x = in.x[k],
                                          .y = in.y[k],
                                          .depth = in.depth[k],
                                          .varyings = lane_varyings,
                                          .barycentric = barycentrics ? lane_barycentric : NULL,
                                          .primitive_id = in.primitive_id,
                                          .front_facing = in.front_facing};
                    sr_fragment_out expected = {.color = {0.0f, 0.0f, 0.0f, 1.0f}, .depth = in.depth[k]};
                    bool kept = shader->program.fragment(&one, u, &expected);
                    cr_assert_eq(kept, (keep >> k & 1u) != 0, "%s, %s: lane %d kept %d by the block form, %d alone",
                                 shader->name, configurations[c].name, k, (int)(keep >> k & 1u), (int)kept);
                    if (!kept)
                        continue;
                    for (int ch = 0; ch < 4; ch++)
                        cr_assert(
                            same_float(out.color[ch][k], expected.color[ch]),
                            "%s, %s: lane %d channel %d is %.9g in the block form, %.9g alone (varyings %g %g %g)",
                            shader->name, configurations[c].name, k, ch, (double)out.color[ch][k],
                            (double)expected.color[ch], (double)lane_varyings[0],
                            (double)(varying_count > 1 ? lane_varyings[1] : 0.0f),
                            (double)(varying_count > 2 ? lane_varyings[2] : 0.0f));
                    cr_assert(same_float(out.depth[k], expected.depth), "%s: lane %d depth", shader->name, k);
                }
            }
        }
    }
    sr_texture_destroy(texture);
}

/* The block forms compute what the formulas of shaders.h say (the one-fragment forms are checked
 * against them in test_shaders): lambert's block output, lane by lane, against the formula in
 * double precision, over normals of every direction and length (zero included). */
Test(raster_blocks, lambert_block_against_its_formula)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    SR_BLOCK_ALIGNED float varyings[3][SR_BLOCK_LANES];
    sr_fragment_block_in in = {.varyings = (const float(*)[SR_BLOCK_LANES])varyings, .mask = 0xffu};
    uint32_t x = 777u;
    for (int round = 0; round < 20000; round++) {
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < SR_BLOCK_LANES; k++) {
                x = x * 1664525u + 1013904223u;
                varyings[i][k] =
                    round % 97 == 0 && k == 3 ? 0.0f : ((float)(x >> 8) / 16777216.0f * 2.0f - 1.0f) * 3.0f;
            }
        sr_fragment_block_out out = {0};
        cr_assert_eq(sr_shader_lambert.program.fragment_block(&in, &u, &out), 0xffu);
        for (int k = 0; k < SR_BLOCK_LANES; k++) {
            double n[3] = {varyings[0][k], varyings[1][k], varyings[2][k]};
            double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            double n_dot_l =
                length > 0
                    ? (n[0] * u.light_direction.x + n[1] * u.light_direction.y + n[2] * u.light_direction.z) / length
                    : 0.0;
            double factor = u.ambient + u.diffuse * (n_dot_l > 0 ? n_dot_l : 0);
            cr_assert(fabs(out.color[0][k] - u.albedo.x * factor) < 1e-5, "lane %d: %g, not %g", k,
                      (double)out.color[0][k], u.albedo.x * factor);
            cr_assert(fabs(out.color[2][k] - u.albedo.z * factor) < 1e-5);
            cr_assert_eq(out.color[3][k], u.opacity);
        }
    }
}
