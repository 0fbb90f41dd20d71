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
 * draws what its one-fragment twin draws, sees only covered lanes, in 4x2 blocks. */
#include <criterion/criterion.h>

#include <softrast/raster.h>
#include <softrast/shaders.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/raster/raster_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Geometry                                                                                    */

typedef struct geometry {
    sr_shader_vertex *vertices;
    size_t vertex_count, vertex_capacity;
    uint32_t *indices;
    size_t index_count, index_capacity;
} geometry;

static uint32_t add_vertex(geometry *g, sr_vec3 position, sr_vec3 normal, sr_vec2 uv, const float color[4])
{
    if (g->vertex_count == g->vertex_capacity) {
        g->vertex_capacity = g->vertex_capacity ? 2 * g->vertex_capacity : 1024;
        g->vertices = realloc(g->vertices, g->vertex_capacity * sizeof *g->vertices);
        cr_assert(g->vertices);
    }
    sr_shader_vertex *v = &g->vertices[g->vertex_count];
    *v = (sr_shader_vertex){.position = position, .normal = normal, .uv = uv};
    memcpy(v->color, color, sizeof v->color);
    return (uint32_t)g->vertex_count++;
}

static void add_triangle(geometry *g, uint32_t a, uint32_t b, uint32_t c)
{
    if (g->index_count + 3 > g->index_capacity) {
        g->index_capacity = g->index_capacity ? 2 * g->index_capacity : 3072;
        g->indices = realloc(g->indices, g->index_capacity * sizeof *g->indices);
        cr_assert(g->indices);
    }
    g->indices[g->index_count++] = a;
    g->indices[g->index_count++] = b;
    g->indices[g->index_count++] = c;
}

/* A bumpy sphere: normals off the radial direction, uvs beyond [0, 1] (wrapping), colours with
 * varying alpha. Seen from the camera at the origin both windings occur (front and back). */
static void add_sphere(geometry *g, sr_vec3 centre, float radius, int slices, int stacks)
{
    uint32_t first = (uint32_t)g->vertex_count;
    for (int j = 0; j <= stacks; j++)
        for (int i = 0; i <= slices; i++) {
            float theta = (float)SR_PI * (float)j / (float)stacks, phi = 2.0f * (float)SR_PI * (float)i / (float)slices;
            sr_vec3 direction = {sinf(theta) * cosf(phi), cosf(theta), -sinf(theta) * sinf(phi)};
            float r = radius * (1.0f + 0.06f * sinf(5.0f * phi) * sinf(3.0f * theta));
            sr_vec3 normal = sr_vec3_add(direction, (sr_vec3){0.3f * sinf(7.0f * phi), 0.2f * cosf(4.0f * theta), 0});
            float color[4] = {0.5f + 0.5f * sinf(phi), 0.5f + 0.5f * cosf(3.0f * theta), (float)i / (float)slices,
                              0.3f + 0.7f * (float)j / (float)stacks};
            add_vertex(g, sr_vec3_add(centre, sr_vec3_scale(direction, r)), normal,
                       (sr_vec2){3.0f * (float)i / (float)slices - 1.0f, 2.5f * (float)j / (float)stacks - 0.7f},
                       color);
        }
    for (int j = 0; j < stacks; j++)
        for (int i = 0; i < slices; i++) {
            uint32_t a = first + (uint32_t)(j * (slices + 1) + i), b = a + 1, c = a + (uint32_t)(slices + 1), d = c + 1;
            add_triangle(g, a, c, b);
            add_triangle(g, b, c, d);
        }
}

/* The scene: a sphere of small triangles, a far one of tiny (sub-pixel) triangles, and large
 * triangles: crossing the near plane (clipped), reaching far beyond the guard band, back-facing,
 * one with zero normals (the shaders' zero-length paths), one covering the view behind. */
static geometry build_scene(void)
{
    geometry g = {0};
    add_sphere(&g, (sr_vec3){0.15f, -0.1f, -3.0f}, 1.1f, 36, 26);
    add_sphere(&g, (sr_vec3){-1.6f, 1.0f, -9.0f}, 0.35f, 30, 20);
    const float large[6][3][3] = {
        {{-4, -3, 1.0f}, {5, -2, -8}, {0.5f, 4, -2}},              // crosses the near plane
        {{-1e5f, -1e5f, -40}, {1e5f, -1e5f, -40}, {0, 1e5f, -40}}, // far outside the guard band
        {{-3, 2, -5}, {3, 2, -5}, {0, -3, -5}},                    // clockwise seen from the camera
        {{-2, -2, -2.5f}, {2.5f, -1, -2.5f}, {-1, 2.5f, -2.5f}},
        {{-1.5f, 0.5f, -2.2f}, {-0.2f, -1.5f, -2.0f}, {-0.4f, 1.2f, -1.9f}}, // zero normals
        {{-30, -20, -20}, {30, -20, -20}, {0, 40, -20}},                     // behind everything
    };
    for (int t = 0; t < 6; t++) {
        uint32_t corner[3];
        for (int k = 0; k < 3; k++) {
            sr_vec3 p = {large[t][k][0], large[t][k][1], large[t][k][2]};
            sr_vec3 normal = t == 4 ? (sr_vec3){0, 0, 0} : (sr_vec3){0.2f * (float)k - 0.2f, 0.3f, 1.0f};
            float color[4] = {0.2f * (float)t, 1.0f - 0.3f * (float)k, 0.5f, 0.25f + 0.25f * (float)k};
            corner[k] = add_vertex(&g, p, normal, (sr_vec2){0.37f * p.x, -0.21f * p.y}, color);
        }
        add_triangle(&g, corner[0], corner[1], corner[2]);
    }
    return g;
}

static void geometry_free(geometry *g)
{
    free(g->vertices);
    free(g->indices);
}

/* ------------------------------------------------------------------------------------------ */
/* Drawing and comparing                                                                       */

static sr_framebuffer *fb_new(int width, int height)
{
    sr_framebuffer *fb = NULL;
    sr_error err;
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &fb, &err), SR_OK,
        "%s", err.message);
    return fb;
}

/* How a frame is drawn: the form of the program's fragment function, the fill variant, threads. */
typedef enum form { FORM_ONE = 0, FORM_BLOCK, FORM_BOTH } form;

typedef struct way {
    form form;
    bool portable;
    int threads;
    sr_isa isa; ///< the fill variant unless `portable` (SR_ISA_BUILD: the native one)
} way;

/* Render states of the draws: the fast path, then the generic one in every flavour. */
static const sr_render_state states[] = {
    {0},
    {.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_LESS_EQUAL},
    {.blend = SR_BLEND_ADDITIVE, .no_depth_write = true, .depth_func = SR_DEPTH_GREATER_EQUAL, .cull = SR_CULL_BACK},
    {.depth_func = SR_DEPTH_NOT_EQUAL, .cull = SR_CULL_FRONT},
    {.depth_func = SR_DEPTH_EQUAL},
    {.depth_func = SR_DEPTH_GREATER, .blend = SR_BLEND_ALPHA},
    {.depth_func = SR_DEPTH_ALWAYS, .no_depth_write = true},
    {.depth_func = SR_DEPTH_NEVER},
};
#define STATE_COUNT (sizeof states / sizeof states[0])

typedef struct frame {
    sr_framebuffer *fb;
    sr_raster_stats stats;
} frame;

/* One frame: the scene drawn once per render state in a row (each draw sees the previous ones'
 * depth and colour), the program as `w` asks. */
static frame draw_frame(const geometry *g, sr_program program, way w, int width, int height)
{
    if (w.form == FORM_ONE)
        program.fragment_block = NULL;
    else if (w.form == FORM_BLOCK)
        program.fragment = NULL;
    sr_renderer *renderer = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = w.threads}, &renderer, &err), SR_OK, "%s",
                 err.message);
    renderer->portable_fill = w.portable;
    renderer->fill = sr_raster_fill_for(w.isa);
    cr_assert(renderer->fill, "no fill for %s", sr_isa_name(w.isa));
    frame f = {fb_new(width, height), {0}};
    sr_renderer_clear(renderer, f.fb, 0xff302010u, 1.0f);
    for (size_t s = 0; s < STATE_COUNT; s++) {
        sr_draw_desc desc = {.vertices = g->vertices,
                             .vertex_count = g->vertex_count,
                             .vertex_stride = sizeof(sr_shader_vertex),
                             .indices = g->indices,
                             .index_count = g->index_count,
                             .program = &program,
                             .state = states[s],
                             .primitive_id_base = (uint32_t)s * 100000u};
        cr_assert_eq(sr_draw_triangles(renderer, f.fb, &desc, &err), SR_OK, "%s", err.message);
    }
    f.stats = sr_renderer_stats(renderer);
    sr_renderer_destroy(renderer);
    return f;
}

static void frame_free(frame *f)
{
    sr_framebuffer_destroy(f->fb);
}

/* Colour, depth, ids and statistics bit for bit; `what` names the comparison in failures. */
static void assert_same_frame(const frame *a, const frame *b, const char *what)
{
    const size_t width = (size_t)a->fb->width, pixels = width * (size_t)a->fb->height;
    for (size_t i = 0; i < pixels; i++) {
        cr_assert(a->fb->color[i] == b->fb->color[i], "%s: colour of pixel (%zu, %zu) %08x, not %08x", what, i % width,
                  i / width, b->fb->color[i], a->fb->color[i]);
        cr_assert(memcmp(&a->fb->depth[i], &b->fb->depth[i], sizeof(float)) == 0,
                  "%s: depth of pixel (%zu, %zu) %.9g, not %.9g", what, i % width, i / width, (double)b->fb->depth[i],
                  (double)a->fb->depth[i]);
        cr_assert(a->fb->ids[i] == b->fb->ids[i], "%s: id of pixel (%zu, %zu) %u, not %u", what, i % width, i / width,
                  b->fb->ids[i], a->fb->ids[i]);
    }
    cr_assert(memcmp(&a->stats, &b->stats, sizeof a->stats) == 0,
              "%s: statistics differ (shaded %llu / %llu, written %llu / %llu)", what,
              (unsigned long long)b->stats.fragments_shaded, (unsigned long long)a->stats.fragments_shaded,
              (unsigned long long)b->stats.fragments_written, (unsigned long long)a->stats.fragments_written);
}

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

/* Draws every built-in program in every configuration the two ways and compares. */
static void compare_builtins(way a, way b, const char *what)
{
    const int sizes[2][2] = {{203, 149}, {64, 48}};
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
                frame second = draw_frame(&scene, program, b, width, height);
                char name[256];
                snprintf(name, sizeof name, "%.60s, %.30s, %.95s, %dx%d", what, shader->name, configurations[c].name,
                         width, height);
                // Every state drew something (NEVER nothing; the scene is not trivial).
                cr_assert_gt(first.stats.fragments_written, (uint64_t)(width * height), "%s", name);
                assert_same_frame(&first, &second, name);
                frame_free(&first);
                frame_free(&second);
            }
        }
    }
    sr_texture_destroy(texture);
    geometry_free(&scene);
}

Test(raster_blocks, block_and_one_fragment_forms_agree_for_every_builtin)
{
    compare_builtins((way){FORM_ONE, false, 1, SR_ISA_BUILD}, (way){FORM_BLOCK, false, 1, SR_ISA_BUILD}, "one fragment / block");
}

static void compare_user_frames(bool portable, int threads, const char *what);

Test(raster_blocks, portable_and_native_fills_agree)
{
    compare_builtins((way){FORM_BOTH, false, 1, SR_ISA_BUILD}, (way){FORM_BOTH, true, 1, SR_ISA_BUILD}, "native / portable");
    compare_builtins((way){FORM_ONE, false, 1, SR_ISA_BUILD}, (way){FORM_ONE, true, 1, SR_ISA_BUILD}, "native / portable, one fragment");
    // Builds that dispatch at run time (meson.build): every fill variant this processor runs.
    for (sr_isa isa = SR_ISA_AVX2; isa <= SR_ISA_AVX512; isa++) {
        if (!sr_raster_fill_for(isa) || !sr_isa_available(isa))
            continue;
        char what[64];
        snprintf(what, sizeof what, "native / %s", sr_isa_name(isa));
        compare_builtins((way){FORM_BOTH, false, 1, SR_ISA_BUILD}, (way){FORM_BOTH, false, 1, isa}, what);
    }
    compare_user_frames(true, 1, "native / portable, user program");
}

Test(raster_blocks, every_thread_count_gives_the_single_thread_frame)
{
    const int thread_counts[4] = {2, 3, 5, 7};
    for (int t = 0; t < 4; t++) {
        char what[64];
        snprintf(what, sizeof what, "1 / %d threads", thread_counts[t]);
        compare_builtins((way){FORM_BOTH, false, 1, SR_ISA_BUILD}, (way){FORM_BOTH, t % 2 == 1, thread_counts[t], SR_ISA_BUILD}, what);
    }
    compare_builtins((way){FORM_ONE, false, 1, SR_ISA_BUILD}, (way){FORM_ONE, false, 3, SR_ISA_BUILD}, "1 / 3 threads, one fragment");
    for (int t = 0; t < 4; t++)
        compare_user_frames(t % 2 == 1, thread_counts[t], "1 / N threads, user program");
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

/* ------------------------------------------------------------------------------------------ */
/* User programs                                                                               */

/* The scene in clip space for the user programs: x, y, z, w straight from the vertex. */
typedef struct user_vertex {
    float clip[4];
    float attributes[3];
} user_vertex;

/* Per pixel, what the fragment function saw: x, y, depth, 3 varyings, 3 barycentrics, id,
 * facing, and the number of calls. */
enum {
    SEEN_X,
    SEEN_Y,
    SEEN_DEPTH,
    SEEN_VARYINGS,
    SEEN_BARY = SEEN_VARYINGS + 3,
    SEEN_ID = SEEN_BARY + 3,
    SEEN_FRONT,
    SEEN_CALLS,
    SEEN_SIZE
};

typedef struct user_uniforms {
    int width, height;
    float *seen;                ///< SEEN_SIZE floats per pixel, or NULL
    _Atomic uint64_t lanes;     ///< lanes in the masks given to the block form
    _Atomic uint64_t blocks;    ///< calls of the block form
    _Atomic uint64_t misplaced; ///< blocks whose lanes were not laid out as a 4x2 block
} user_uniforms;

static void user_vertex_fn(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    (void)uniforms;
    const user_vertex *v = vertex;
    memcpy(clip, v->clip, sizeof v->clip);
    memcpy(varyings, v->attributes, sizeof v->attributes);
}

/* Discards where the second varying's fraction is below 0.3; writes a depth from the varyings. */
static bool user_fragment_fn(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const user_uniforms *u = uniforms;
    const float *v = in->varyings;
    if (u->seen) {
        float *seen = u->seen + ((size_t)in->y * (size_t)u->width + (size_t)in->x) * SEEN_SIZE;
        seen[SEEN_X] = in->x;
        seen[SEEN_Y] = in->y;
        seen[SEEN_DEPTH] = in->depth;
        for (int i = 0; i < 3; i++) {
            seen[SEEN_VARYINGS + i] = v[i];
            seen[SEEN_BARY + i] = in->barycentric ? in->barycentric[i] : -1.0f;
        }
        seen[SEEN_ID] = (float)in->primitive_id;
        seen[SEEN_FRONT] = in->front_facing;
        seen[SEEN_CALLS] += 1.0f;
    }
    float fraction = v[1] - floorf(v[1]);
    if (fraction < 0.3f)
        return false;
    out->color[0] = v[0] - floorf(v[0]);
    out->color[1] = fraction;
    out->color[2] = in->barycentric ? in->barycentric[2] : 0.5f * in->depth;
    out->color[3] = in->front_facing ? 0.8f : 0.4f;
    out->depth = 0.5f * in->depth + 0.2f * (v[2] - floorf(v[2]));
    return true;
}

/* The same, a block at a time, written as a user would (a loop over the lanes of the mask). It
 * returns the lanes it keeps with every bit outside the mask set too: the pipeline must ignore
 * them. It also checks that the lanes' pixels are laid out as raster.h says (lane k at column
 * k % 4, row k / 4 of the block). */
static uint32_t user_fragment_block_fn(const sr_fragment_block_in *in, const void *uniforms, sr_fragment_block_out *out)
{
    user_uniforms *u = (user_uniforms *)uniforms;
    atomic_fetch_add_explicit(&u->blocks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&u->lanes, (uint64_t)__builtin_popcount(in->mask), memory_order_relaxed);
    int first = __builtin_ctz(in->mask);
    float x0 = in->x[first] - 0.5f - (float)(first % SR_BLOCK_WIDTH);
    float y0 = in->y[first] - 0.5f - (float)(first / SR_BLOCK_WIDTH);
    bool laid_out = in->mask != 0 && in->mask <= 0xffu && fmodf(x0, 1.0f) == 0.0f && fmodf(y0, 1.0f) == 0.0f;
    uint32_t keep = ~in->mask;
    for (uint32_t mask = in->mask; mask; mask &= mask - 1) {
        int k = __builtin_ctz(mask);
        laid_out = laid_out && in->x[k] == x0 + 0.5f + (float)(k % SR_BLOCK_WIDTH) &&
                   in->y[k] == y0 + 0.5f + (float)(k / SR_BLOCK_WIDTH);
        float varyings[3] = {in->varyings[0][k], in->varyings[1][k], in->varyings[2][k]};
        float barycentric[3];
        if (in->barycentric)
            for (int i = 0; i < 3; i++)
                barycentric[i] = in->barycentric[i][k];
        sr_fragment_in one = {.x = in->x[k],
                              .y = in->y[k],
                              .depth = in->depth[k],
                              .varyings = varyings,
                              .barycentric = in->barycentric ? barycentric : NULL,
                              .primitive_id = in->primitive_id,
                              .front_facing = in->front_facing};
        sr_fragment_out o = {.color = {out->color[0][k], out->color[1][k], out->color[2][k], out->color[3][k]},
                             .depth = out->depth[k]};
        if (!user_fragment_fn(&one, uniforms, &o))
            continue;
        keep |= 1u << k;
        for (int c = 0; c < 4; c++)
            out->color[c][k] = o.color[c];
        out->depth[k] = o.depth;
    }
    if (!laid_out)
        atomic_fetch_add_explicit(&u->misplaced, 1, memory_order_relaxed);
    return keep;
}

/* Triangles in clip space: small, large and tiny ones scattered, some crossing the near plane,
 * some back-facing; then a grid of squares with corners on pixel centres, each cut along a
 * diagonal, so that many pixel centres lie exactly on edges (the fill rule decides them). */
static size_t user_scene(user_vertex **out, size_t *grid_first)
{
    enum { MAX = 3 * 760, WIDTH = 157, HEIGHT = 111 };
    user_vertex *v = malloc(MAX * sizeof *v);
    cr_assert(v);
    size_t n = 0;
    uint32_t x = 99u;
    for (int t = 0; t < 560; t++) {
        float cx, cy, size;
        x = x * 1664525u + 1013904223u;
        cx = (float)(x >> 8) / 16777216.0f * 2.2f - 1.1f;
        x = x * 1664525u + 1013904223u;
        cy = (float)(x >> 8) / 16777216.0f * 2.2f - 1.1f;
        size = t % 40 == 0 ? 1.5f : t % 3 == 0 ? 0.01f : 0.12f;
        for (int k = 0; k < 3; k++) {
            float angle = 2.1f * (float)k + 0.3f * (float)t;
            float w = 1.0f + 0.6f * (float)k + 0.1f * (float)(t % 5);
            float z = t % 50 == 7 && k == 0 ? -0.5f : 0.3f + 0.001f * (float)t;
            v[n++] = (user_vertex){{(cx + size * cosf(angle)) * w, (cy + size * sinf(angle)) * w, z * w, w},
                                   {(float)k * 1.7f + 0.3f * cx, (float)t * 0.013f + 3.1f * cy, (float)k * 0.6f}};
        }
        if (t % 7 == 3) { // clockwise
            user_vertex swap = v[n - 1];
            v[n - 1] = v[n - 2];
            v[n - 2] = swap;
        }
    }
    *grid_first = n;
    for (int j = 0; j < 10; j++)
        for (int i = 0; i < 10; i++) {
            float corner[4][2];
            for (int k = 0; k < 4; k++) {
                float px = 10.5f + 6.0f * (float)(i + k % 2), py = 20.5f + 6.0f * (float)(j + k / 2);
                corner[k][0] = px * 2.0f / WIDTH - 1.0f;
                corner[k][1] = 1.0f - py * 2.0f / HEIGHT;
            }
            // Both diagonals, both windings, and the corners rotated, so that each of a triangle's
            // three edges (in setup's order) is at times a top, left, bottom or right edge.
            const int orders[4][6] = {{0, 2, 1, 1, 2, 3}, {0, 3, 1, 0, 2, 3}, {1, 2, 0, 3, 2, 1}, {3, 0, 2, 3, 1, 0}};
            const int *order = orders[(i + 2 * j) % 4];
            for (int k = 0; k < 6; k++) {
                const float *c = corner[order[(k + i) % 3 + k / 3 * 3]];
                v[n++] = (user_vertex){{c[0], c[1], 0.2f, 1.0f}, {c[0] * 5.0f, c[1] * 3.0f + 0.5f, (float)k}};
            }
        }
    cr_assert_leq(n, MAX);
    *out = v;
    return n;
}

typedef struct user_frame {
    frame frame;
    float *seen;
    uint64_t lanes, blocks, misplaced;
} user_frame;

static user_frame draw_user(form f, bool late, bool barycentrics, int threads, bool record, bool portable)
{
    const int width = 157, height = 111;
    user_vertex *vertices;
    size_t grid_first;
    size_t count = user_scene(&vertices, &grid_first);
    user_uniforms u = {.width = width, .height = height};
    u.seen = record ? calloc((size_t)width * height * SEEN_SIZE, sizeof(float)) : NULL;
    atomic_init(&u.lanes, 0);
    atomic_init(&u.blocks, 0);
    atomic_init(&u.misplaced, 0);
    sr_program program = {.name = "user",
                          .vertex = user_vertex_fn,
                          .fragment = f == FORM_BLOCK ? NULL : user_fragment_fn,
                          .fragment_block = f == FORM_ONE ? NULL : user_fragment_block_fn,
                          .varying_count = 3,
                          .uniforms = &u,
                          .writes_depth = late,
                          .uses_barycentrics = barycentrics,
                          .vertex_size = sizeof(user_vertex)};
    sr_renderer *renderer = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &renderer, &err), SR_OK);
    renderer->portable_fill = portable;
    user_frame result = {.frame = {fb_new(width, height), {0}}, .seen = u.seen};
    sr_framebuffer_clear(result.frame.fb, 0, 1.0f);
    // Three draws of everything, then the grid blended over everything: a pixel on an edge drawn
    // by both triangles, or by neither, shows.
    const sr_render_state draws[4] = {{0},
                                      {.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_LESS_EQUAL},
                                      {.no_depth_write = true, .depth_func = SR_DEPTH_GREATER, .cull = SR_CULL_BACK},
                                      {.blend = SR_BLEND_ALPHA, .depth_func = SR_DEPTH_ALWAYS}};
    for (int d = 0; d < (record ? 1 : 4); d++) {
        sr_draw_desc desc = {.vertices = d == 3 ? vertices + grid_first : vertices,
                             .vertex_count = d == 3 ? count - grid_first : count,
                             .vertex_stride = sizeof(user_vertex),
                             .program = &program,
                             .state = draws[d],
                             .primitive_id_base = (uint32_t)d * 1000u};
        cr_assert_eq(sr_draw_triangles(renderer, result.frame.fb, &desc, &err), SR_OK, "%s", err.message);
    }
    result.frame.stats = sr_renderer_stats(renderer);
    result.lanes = atomic_load(&u.lanes);
    result.blocks = atomic_load(&u.blocks);
    result.misplaced = atomic_load(&u.misplaced);
    sr_renderer_destroy(renderer);
    free(vertices);
    return result;
}

/* The user programs drawn by the native fill on one thread, and as `portable` and `threads` say. */
static void compare_user_frames(bool portable, int threads, const char *what)
{
    for (int f = FORM_ONE; f <= FORM_BLOCK; f++)
        for (int late = 0; late < 2; late++) {
            user_frame a = draw_user((form)f, late, true, 1, false, false);
            user_frame b = draw_user((form)f, late, true, threads, false, portable);
            char name[128];
            snprintf(name, sizeof name, "%.60s, form %d, late %d", what, f, late);
            assert_same_frame(&a.frame, &b.frame, name);
            frame_free(&a.frame);
            frame_free(&b.frame);
        }
}

/* A program with only a one-fragment function (the wrapped path) draws what its block twin
 * draws, with and without barycentrics and depth written, on 1 and 3 threads; and each call sees
 * the values the block form sees in its lane (recorded per pixel through a pass with no
 * overdraw: a record draw keeps the last visitor). */
Test(raster_blocks, one_fragment_user_program_matches_its_block_twin)
{
    for (int late = 0; late < 2; late++)
        for (int barycentrics = 0; barycentrics < 2; barycentrics++)
            for (int threads = 1; threads <= 3; threads += 2) {
                user_frame one = draw_user(FORM_ONE, late, barycentrics, threads, false, false);
                user_frame block = draw_user(FORM_BLOCK, late, barycentrics, threads, false, false);
                char what[96];
                snprintf(what, sizeof what, "one fragment / block, late %d, barycentrics %d, %d threads", late,
                         barycentrics, threads);
                cr_assert_gt(one.frame.stats.fragments_written, 5000, "%s", what);
                assert_same_frame(&one.frame, &block.frame, what);
                cr_assert_eq(block.lanes, block.frame.stats.fragments_shaded, "%s", what);
                cr_assert_eq(block.misplaced, 0, "%s: %llu blocks not laid out as 4x2 blocks", what,
                             (unsigned long long)block.misplaced);
                frame_free(&one.frame);
                frame_free(&block.frame);
            }
    user_frame one = draw_user(FORM_ONE, true, true, 1, true, false);
    user_frame block = draw_user(FORM_BLOCK, true, true, 1, true, false);
    size_t floats = (size_t)one.frame.fb->width * (size_t)one.frame.fb->height * SEEN_SIZE;
    size_t seen = 0;
    for (size_t i = 0; i < floats; i += SEEN_SIZE) {
        seen += one.seen[i + SEEN_CALLS] > 0.0f;
        cr_assert(memcmp(one.seen + i, block.seen + i, SEEN_SIZE * sizeof(float)) == 0,
                  "pixel (%zu, %zu): the one-fragment call saw other values than the block's lane",
                  i / SEEN_SIZE % (size_t)one.frame.fb->width, i / SEEN_SIZE / (size_t)one.frame.fb->width);
    }
    cr_assert_gt(seen, 5000);
    free(one.seen);
    free(block.seen);
    frame_free(&one.frame);
    frame_free(&block.frame);
}

/* A program with only a block function that discards lanes: the pipeline gives it covered lanes
 * only (each pixel's lanes exactly the pixels that the one-fragment twin is called for), in
 * 4x2 blocks, never an empty mask, counts shaded lanes as fragments_shaded, ignores the
 * returned bits outside the mask, and discards the lanes whose bit is cleared. */
Test(raster_blocks, block_only_user_program_discards_lanes)
{
    for (int late = 0; late < 2; late++) {
        user_frame block = draw_user(FORM_BLOCK, late, false, 1, true, false);
        user_frame one = draw_user(FORM_ONE, late, false, 1, true, false);
        cr_assert_eq(block.misplaced, 0);
        cr_assert_eq(block.lanes, block.frame.stats.fragments_shaded);
        cr_assert_lt(block.blocks * 2, block.lanes, "blocks hold several lanes (%llu lanes in %llu blocks)",
                     (unsigned long long)block.lanes, (unsigned long long)block.blocks);
        cr_assert_lt(block.frame.stats.fragments_written, block.frame.stats.fragments_shaded * 9 / 10,
                     "some lanes are discarded");
        cr_assert_gt(block.frame.stats.fragments_written, 1000);
        assert_same_frame(&one.frame, &block.frame, late ? "block only / one fragment, late" : "block only");
        size_t pixels = (size_t)one.frame.fb->width * (size_t)one.frame.fb->height;
        for (size_t i = 0; i < pixels; i++)
            cr_assert_eq(one.seen[i * SEEN_SIZE + SEEN_CALLS], block.seen[i * SEEN_SIZE + SEEN_CALLS],
                         "pixel (%zu, %zu): shaded %g times as a lane, %g as one fragment", i % 157, i / 157,
                         (double)block.seen[i * SEEN_SIZE + SEEN_CALLS], (double)one.seen[i * SEEN_SIZE + SEEN_CALLS]);
        free(one.seen);
        free(block.seen);
        frame_free(&one.frame);
        frame_free(&block.frame);
    }
}

/* sr_draw_triangles accepts a program with either form and refuses one with neither. */
Test(raster_blocks, a_program_needs_a_fragment_function)
{
    user_vertex *vertices;
    size_t grid_first;
    size_t count = user_scene(&vertices, &grid_first);
    user_uniforms u = {.width = 8, .height = 8};
    atomic_init(&u.lanes, 0);
    atomic_init(&u.blocks, 0);
    atomic_init(&u.misplaced, 0);
    sr_program program = {.vertex = user_vertex_fn, .varying_count = 3, .uniforms = &u};
    sr_renderer *renderer = NULL;
    sr_error err;
    cr_assert_eq(sr_renderer_create(NULL, &renderer, &err), SR_OK);
    sr_framebuffer *fb = fb_new(8, 8);
    sr_draw_desc desc = {
        .vertices = vertices, .vertex_count = count, .vertex_stride = sizeof(user_vertex), .program = &program};
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "no fragment function"), "%s", err.message);
    program.fragment_block = user_fragment_block_fn;
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
    program.fragment = user_fragment_fn;
    program.fragment_block = NULL;
    cr_assert_eq(sr_draw_triangles(renderer, fb, &desc, &err), SR_OK, "%s", err.message);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    free(vertices);
}
