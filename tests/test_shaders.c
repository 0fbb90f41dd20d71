/* test_shaders.c — the built-in shader programs (shaders/) and the demo scene (src/scene/demo.c).
 * Each program's functions are checked against formulas recomputed here in double precision;
 * a whole lambert frame of a sphere against ray casting the analytic sphere; the demo scene by
 * where its objects land on screen. This file: the catalogue, uniforms and each program; the
 * program test_shaders also holds test_shaders_scene.c (the demo helpers, the analytic sphere
 * frame, the demo scene); their helpers are in shader_test_helpers.h. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <softrast/raster.h>
#include <softrast/scene.h>

#include <softrast/shaders.h>

#include "shader_test_helpers.h"

/* ---- catalogue -------------------------------------------------------------------------- */

Test(catalogue, every_name_is_found_and_unknown_names_are_not)
{
    const char *expected[] = {"flat",     "vertex_color", "lambert", "vertex_color_lit", "blinn_phong",
                              "textured", "normals",      "depth",   "wireframe",        "triangle_id"};
    size_t count = sizeof expected / sizeof expected[0];
    cr_assert_eq(sr_shader_count(), count);
    char names[512] = "";
    for (size_t i = 0; i < count; i++) {
        const sr_shader *shader = sr_shader_find(expected[i]);
        cr_assert_not_null(shader, "sr_shader_find(\"%s\") is NULL", expected[i]);
        cr_assert_str_eq(shader->name, expected[i]);
        cr_assert_eq(sr_shader_get(i), shader, "catalogue order differs at %zu", i);
        cr_assert_not_null(shader->program.vertex);
        cr_assert_not_null(shader->program.fragment);
        cr_assert(shader->program.varying_count >= 0 && shader->program.varying_count <= SR_MAX_VARYINGS);
        cr_assert_null(shader->program.uniforms);
        cr_assert(shader->summary && shader->summary[0]);
        strcat(names, i ? ", " : "");
        strcat(names, expected[i]);
    }
    cr_assert_str_eq(sr_shader_names(), names);
    cr_assert_null(sr_shader_get(count));
    cr_assert_null(sr_shader_find("phong"));
    cr_assert_null(sr_shader_find("Lambert"));
    cr_assert_null(sr_shader_find(""));
    cr_assert_null(sr_shader_find(NULL));
    cr_assert(sr_shader_find("wireframe")->program.uses_barycentrics);
    cr_assert_eq(sr_shader_find("lambert")->program.varying_count, 3, "the benchmark's hot path uses 3 varyings");
}

Test(catalogue, program_binds_uniforms)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    sr_program p = sr_shader_program(&sr_shader_lambert, &u);
    cr_assert_eq(p.uniforms, &u);
    cr_assert_eq(p.fragment, sr_shader_lambert.program.fragment);
    cr_assert_null(sr_shader_lambert.program.uniforms, "the catalogue entry is not modified");
    sr_program none = sr_shader_program(NULL, &u);
    cr_assert_null(none.vertex);
}

/* ---- uniforms --------------------------------------------------------------------------- */

Test(uniforms, defaults_are_bench_scene)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    dvec3 l = bench_light();
    cr_assert_float_eq(u.light_direction.x, l.x, 1e-6);
    cr_assert_float_eq(u.light_direction.y, l.y, 1e-6);
    cr_assert_float_eq(u.light_direction.z, l.z, 1e-6);
    cr_assert_float_eq(u.albedo.x, 0.8, 1e-7);
    cr_assert_float_eq(u.albedo.y, 0.8, 1e-7);
    cr_assert_float_eq(u.albedo.z, 0.8, 1e-7);
    cr_assert_float_eq(u.ambient, 0.2, 1e-7);
    cr_assert_float_eq(u.diffuse, 0.8, 1e-7);
    cr_assert_float_eq(u.opacity, 1.0, 0);
}

/* Every other default softrast/shaders.h documents for sr_shader_uniforms_default(). */
static void assert_identity(const sr_mat4 *m, const char *name)
{
    for (int column = 0; column < 4; column++)
        for (int row = 0; row < 4; row++)
            cr_assert(m->m[column * 4 + row] == (row == column ? 1.0f : 0.0f), "%s[row %d][column %d] = %g", name, row,
                      column, (double)m->m[column * 4 + row]);
}

Test(uniforms, every_documented_default)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    /* identity transforms, and the fields derived from them */
    assert_identity(&u.model, "model");
    assert_identity(&u.view, "view");
    assert_identity(&u.projection, "projection");
    assert_identity(&u.model_view_projection, "model_view_projection");
    assert_identity(&u.model_view, "model_view");
    assert_identity(&u.normal_matrix, "normal_matrix");
    cr_assert(u.camera_position.x == 0.0f && u.camera_position.y == 0.0f && u.camera_position.z == 0.0f);
    /* the light is unit length (its direction is checked by defaults_are_bench_scene) */
    double l =
        sqrt((double)u.light_direction.x * u.light_direction.x + (double)u.light_direction.y * u.light_direction.y +
             (double)u.light_direction.z * u.light_direction.z);
    cr_assert_float_eq(l, 1.0, 1e-6);
    /* blinn_phong: specular (0.5, 0.5, 0.5), shininess 32 */
    cr_assert_float_eq(u.specular_color.x, 0.5, 0);
    cr_assert_float_eq(u.specular_color.y, 0.5, 0);
    cr_assert_float_eq(u.specular_color.z, 0.5, 0);
    cr_assert_float_eq(u.shininess, 32.0, 0);
    /* textured: no texture, nearest filtering, repeat in u and v */
    cr_assert_null(u.texture);
    cr_assert_eq(u.sampler.filter, SR_FILTER_NEAREST);
    cr_assert_eq(u.sampler.wrap_u, SR_WRAP_REPEAT);
    cr_assert_eq(u.sampler.wrap_v, SR_WRAP_REPEAT);
    /* depth: 0.1 to 100 */
    cr_assert_float_eq(u.depth_near, 0.1, 1e-8);
    cr_assert_float_eq(u.depth_far, 100.0, 0);
    /* wireframe: width 0.04, opaque near-black (0.05) edges, interiors filled */
    cr_assert_float_eq(u.wireframe_width, 0.04, 1e-9);
    for (int c = 0; c < 3; c++)
        cr_assert_float_eq(u.wireframe_color[c], 0.05, 1e-9, "wireframe_color[%d] = %g", c,
                           (double)u.wireframe_color[c]);
    cr_assert_float_eq(u.wireframe_color[3], 1.0, 0);
    cr_assert(u.wireframe_fill);
}

Test(uniforms, derived_transforms)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    sr_vec3 eye = {1.0f, 2.0f, 5.0f};
    sr_mat4 model = sr_mat4_mul(
        sr_mat4_translation(sr_vec3_make(0.5f, -1.0f, 2.0f)),
        sr_mat4_mul(sr_mat4_rotation(sr_vec3_make(1, 1, 0), 0.7f), sr_mat4_scaling(sr_vec3_make(2.0f, 1.0f, 0.5f))));
    sr_mat4 view = sr_mat4_look_at(eye, sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0));
    sr_mat4 projection = sr_mat4_perspective(1.0f, 1.5f, 0.1f, 50.0f);
    sr_shader_uniforms_set_transforms(&u, model, view, projection);

    cr_assert_float_eq(u.camera_position.x, eye.x, 1e-5);
    cr_assert_float_eq(u.camera_position.y, eye.y, 1e-5);
    cr_assert_float_eq(u.camera_position.z, eye.z, 1e-5);

    /* mvp * p equals projection * (view * (model * p)) done step by step in double. */
    dvec3 p = dv(0.3, -0.7, 1.1);
    double world[4], in_view[4], clip[4], got[4];
    dtransform(&model, p, world);
    dtransform(&view, dv(world[0], world[1], world[2]), in_view);
    dtransform(&projection, dv(in_view[0], in_view[1], in_view[2]), clip);
    dtransform(&u.model_view_projection, p, got);
    for (int i = 0; i < 4; i++)
        cr_assert_float_eq(got[i], clip[i], 1e-4, "clip[%d]: %f vs %f", i, got[i], clip[i]);

    /* Normal matrix N satisfies N^T * M3 = I (inverse transpose of the 3x3 block). */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double sum = 0;
            for (int k = 0; k < 3; k++)
                sum += (double)u.normal_matrix.m[r * 4 + k] * (double)model.m[c * 4 + k];
            cr_assert_float_eq(sum, r == c ? 1.0 : 0.0, 1e-5, "(N^T M)[%d][%d] = %f", r, c, sum);
        }
}

/* ---- lambert ---------------------------------------------------------------------------- */

Test(lambert, fragment_is_bench_scene_formula)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    u.albedo = sr_vec3_make(0.8f, 0.5f, 0.25f);
    dvec3 normals[] = {
        dv(0, 0, 1),         dv(0.3, 0.5, 1.0),                                    /* along L: full light */
        dv(2.0, -1.0, 0.5),  dv(0, 1, 0),       dv(1, 0, 0), dv(-0.3, -0.5, -1.0), /* N.L < 0: ambient only */
        dv(0, -1, 0),        dv(10, 20, 5),                                        /* not unit length: renormalised */
        dv(1e-3, 2e-3, 0.0),
    };
    for (size_t i = 0; i < sizeof normals / sizeof normals[0]; i++) {
        float varyings[3] = {(float)normals[i].x, (float)normals[i].y, (float)normals[i].z};
        float color[4];
        cr_assert(run_fragment(&sr_shader_lambert, &u, varyings, NULL, 0, color));
        double albedo[3] = {0.8, 0.5, 0.25};
        for (int c = 0; c < 3; c++)
            cr_assert_float_eq(color[c], lambert_expected(albedo[c], normals[i]), 2e-6,
                               "normal %zu channel %d: %f vs %f", i, c, color[c],
                               lambert_expected(albedo[c], normals[i]));
        cr_assert_float_eq(color[3], 1.0, 0);
    }
    /* N.L < 0 exactly gives the ambient term. */
    float away[3] = {-0.3f, -0.5f, -1.0f}, color[4];
    run_fragment(&sr_shader_lambert, &u, away, NULL, 0, color);
    cr_assert_float_eq(color[0], 0.8 * 0.2, 1e-7);
    /* A zero normal (degenerate interpolation) gives ambient, not NaN. */
    float zero[3] = {0, 0, 0};
    run_fragment(&sr_shader_lambert, &u, zero, NULL, 0, color);
    cr_assert_float_eq(color[0], 0.8 * 0.2, 1e-7);
}

Test(lambert, vertex_writes_clip_position_and_world_normal)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    /* Non-uniform scale: normals must go through the inverse transpose, not the model matrix. */
    sr_mat4 model = sr_mat4_scaling(sr_vec3_make(2.0f, 1.0f, 1.0f));
    sr_mat4 view = sr_mat4_look_at(sr_vec3_make(0, 0, 3), sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0));
    sr_mat4 projection = sr_mat4_perspective(SR_PI / 4, 16.0f / 9.0f, 0.1f, 100.0f);
    sr_shader_uniforms_set_transforms(&u, model, view, projection);
    sr_shader_vertex v = {.position = {0.25f, 0.5f, -0.5f}, .normal = {1.0f, 1.0f, 0.0f}};
    float clip[4], varyings[SR_MAX_VARYINGS];
    run_vertex(&sr_shader_lambert, &u, &v, clip, varyings);
    /* Independent: world = (0.5, 0.5, -0.5); view = world - (0,0,3); then the projection. */
    double f = 1.0 / tan(PI / 8), aspect = 16.0 / 9.0, n = 0.1, fa = 100.0;
    dvec3 pv = dv(0.5, 0.5, -3.5);
    double expected[4] = {f / aspect * pv.x, f * pv.y, fa / (n - fa) * pv.z + n * fa / (n - fa), -pv.z};
    for (int i = 0; i < 4; i++)
        cr_assert_float_eq(clip[i], expected[i], 1e-5, "clip[%d] %f vs %f", i, clip[i], expected[i]);
    /* The surface x^2/4 + ... stretched by 2 in x: normal (1, 1, 0) becomes parallel to (0.5, 1, 0). */
    dvec3 got = dnormalize(dv(varyings[0], varyings[1], varyings[2]));
    dvec3 want = dnormalize(dv(0.5, 1.0, 0.0));
    cr_assert_float_eq(ddot(got, want), 1.0, 1e-6);
}

/* ---- blinn-phong ------------------------------------------------------------------------ */

Test(blinn_phong, matches_independent_formula)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    sr_mat4 view = sr_mat4_look_at(sr_vec3_make(1, 2, 4), sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0));
    sr_shader_uniforms_set_transforms(&u, sr_mat4_identity(), view, sr_mat4_identity());
    u.albedo = sr_vec3_make(0.6f, 0.4f, 0.2f);
    u.specular_color = sr_vec3_make(0.5f, 0.7f, 0.9f);
    u.shininess = 16.0f;
    dvec3 eye = dv(1, 2, 4), l = bench_light();
    struct {
        dvec3 normal, position;
    } cases[] = {
        {dv(0, 0, 1), dv(0, 0, 0)},           {dv(0.2, 0.6, 0.8), dv(0.5, -0.2, 0.1)}, {dv(1, 1, 1), dv(-1, 0.5, 0)},
        {dv(-0.3, -0.5, -1.0), dv(0, 0, 0)}, /* faces away from the light: ambient only */
        {dv(0, -1, 0.05), dv(0.2, 0.2, 0.2)},
    };
    double albedo[3] = {0.6, 0.4, 0.2}, specular[3] = {0.5, 0.7, 0.9};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* Through the vertex function, so the world position varying is tested too. */
        sr_shader_vertex v = {
            .position = {(float)cases[i].position.x, (float)cases[i].position.y, (float)cases[i].position.z},
            .normal = {(float)cases[i].normal.x, (float)cases[i].normal.y, (float)cases[i].normal.z}};
        float clip[4], varyings[SR_MAX_VARYINGS], color[4];
        run_vertex(&sr_shader_blinn_phong, &u, &v, clip, varyings);
        cr_assert(run_fragment(&sr_shader_blinn_phong, &u, varyings, NULL, 0, color));
        dvec3 n = dnormalize(cases[i].normal);
        dvec3 to_eye = dnormalize(dsub(eye, cases[i].position));
        dvec3 h = dnormalize(dadd(l, to_eye));
        double n_dot_l = ddot(n, l);
        double spec = n_dot_l > 0 ? pow(fmax(0.0, ddot(n, h)), 16.0) : 0.0;
        for (int c = 0; c < 3; c++) {
            double want = albedo[c] * (0.2 + 0.8 * fmax(0.0, n_dot_l)) + specular[c] * spec;
            cr_assert_float_eq(color[c], want, 1e-5, "case %zu channel %d: %f vs %f", i, c, color[c], want);
        }
    }
}

/* ---- textured --------------------------------------------------------------------------- */

Test(textured, texel_times_albedo_times_lambert)
{
    const uint32_t texels[4] = {sr_rgba8(1, 0, 0, 1), sr_rgba8(0, 1, 0, 1), sr_rgba8(0, 0, 1, 1),
                                sr_rgba8(1, 1, 1, 0.4f)};
    sr_texture *texture = NULL;
    sr_error err;
    cr_assert_eq(sr_texture_create(&(sr_texture_desc){.width = 2, .height = 2, .texels = texels}, &texture, &err),
                 SR_OK, "%s", err.message);
    sr_shader_uniforms u = sr_shader_uniforms_default();
    u.texture = texture;
    u.albedo = sr_vec3_make(0.5f, 1.0f, 1.0f);
    /* Texel centres: (0.25, 0.25) top-left red, (0.75, 0.25) green, (0.25, 0.75) blue, (0.75, 0.75) white. */
    const float uvs[4][2] = {{0.25f, 0.25f}, {0.75f, 0.25f}, {0.25f, 0.75f}, {0.75f, 0.75f}};
    const double expected_texel[4][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {1, 1, 1, 0.4}};
    dvec3 normal = dv(0.1, 0.9, 0.4);
    for (int t = 0; t < 4; t++) {
        sr_shader_vertex v = {.normal = {0.1f, 0.9f, 0.4f}, .uv = {uvs[t][0], uvs[t][1]}};
        float clip[4], varyings[SR_MAX_VARYINGS], color[4];
        run_vertex(&sr_shader_textured, &u, &v, clip, varyings);
        cr_assert(run_fragment(&sr_shader_textured, &u, varyings, NULL, 0, color));
        double albedo[3] = {0.5, 1.0, 1.0};
        for (int c = 0; c < 3; c++)
            cr_assert_float_eq(color[c], expected_texel[t][c] * lambert_expected(albedo[c], normal), 1e-2,
                               "texel %d channel %d: %f", t, c, color[c]);
        cr_assert_float_eq(color[3], expected_texel[t][3], 1e-2);
    }
    /* No texture: white. */
    u.texture = NULL;
    float varyings[5] = {0.1f, 0.9f, 0.4f, 0.25f, 0.25f}, color[4];
    run_fragment(&sr_shader_textured, &u, varyings, NULL, 0, color);
    cr_assert_float_eq(color[1], lambert_expected(1.0, normal), 1e-6);
    sr_texture_destroy(texture);
}

/* ---- normals, flat, vertex colour, depth -------------------------------------------------- */

Test(normals, maps_unit_normal_to_colour)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    dvec3 inputs[] = {dv(1, 0, 0), dv(0, -2, 0), dv(3, 4, 0), dv(-1, -1, -1)};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        dvec3 n = dnormalize(inputs[i]);
        float varyings[3] = {(float)inputs[i].x, (float)inputs[i].y, (float)inputs[i].z}, color[4];
        run_fragment(&sr_shader_normals, &u, varyings, NULL, 0, color);
        cr_assert_float_eq(color[0], n.x * 0.5 + 0.5, 1e-6);
        cr_assert_float_eq(color[1], n.y * 0.5 + 0.5, 1e-6);
        cr_assert_float_eq(color[2], n.z * 0.5 + 0.5, 1e-6);
    }
    float zero[3] = {0, 0, 0}, color[4];
    run_fragment(&sr_shader_normals, &u, zero, NULL, 0, color);
    cr_assert_float_eq(color[0], 0.5, 0);
}

Test(flat_and_vertex_color, pass_colours_through)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    u.albedo = sr_vec3_make(0.1f, 0.2f, 0.3f);
    u.opacity = 0.5f;
    float color[4];
    run_fragment(&sr_shader_flat, &u, NULL, NULL, 0, color);
    cr_assert(color[0] == 0.1f && color[1] == 0.2f && color[2] == 0.3f && color[3] == 0.5f);

    sr_shader_vertex v = {.color = {0.9f, 0.8f, 0.7f, 0.6f}};
    float clip[4], varyings[SR_MAX_VARYINGS];
    run_vertex(&sr_shader_vertex_color, &u, &v, clip, varyings);
    run_fragment(&sr_shader_vertex_color, &u, varyings, NULL, 0, color);
    cr_assert(color[0] == 0.9f && color[1] == 0.8f && color[2] == 0.7f && color[3] == 0.6f);
}

/* softrast/shaders.h: alpha is `opacity` for every program except vertex_color (the vertex's
 * alpha), triangle_id (opaque) and wireframe edges (wireframe_color's alpha); textured multiplies
 * it by the texel's alpha. Every program of the catalogue, through its own vertex function, with
 * several opacities; a program added later is held to the general rule. */
Test(opacity, every_program_writes_the_documented_alpha)
{
    const uint32_t texel = sr_rgba8(0.2f, 0.6f, 1.0f, 0.4f);
    sr_texture *texture = NULL;
    sr_error err;
    cr_assert_eq(sr_texture_create(&(sr_texture_desc){.width = 1, .height = 1, .texels = &texel}, &texture, &err),
                 SR_OK, "%s", err.message);
    const double texel_alpha = (double)(texture->texels[0] >> 24) / 255.0; /* the stored byte */
    cr_assert(texel_alpha > 0.3 && texel_alpha < 0.5);
    const float opacities[] = {0.0f, 0.25f, 0.6f, 1.0f};
    const float interior[3] = {1 / 3.0f, 1 / 3.0f, 1 / 3.0f}, edge[3] = {0.01f, 0.5f, 0.49f};
    const sr_shader_vertex vertex = {.position = {0.1f, 0.2f, 0.3f},
                                     .normal = {0.3f, 0.5f, 1.0f},
                                     .uv = {0.5f, 0.5f},
                                     .color = {0.9f, 0.8f, 0.7f, 0.35f}};
    int checked = 0;
    for (size_t s = 0; s < sr_shader_count(); s++) {
        const sr_shader *shader = sr_shader_get(s);
        for (size_t o = 0; o < sizeof opacities / sizeof opacities[0]; o++) {
            for (int textured = 0; textured < 2; textured++) {
                sr_shader_uniforms u = sr_shader_uniforms_default();
                sr_mat4 view = sr_mat4_look_at(sr_vec3_make(1, 2, 4), sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0));
                sr_shader_uniforms_set_transforms(&u, sr_mat4_identity(), view,
                                                  sr_mat4_perspective(1.0f, 1.0f, 0.1f, 100.0f));
                u.opacity = opacities[o];
                u.wireframe_color[3] = 0.8f;
                u.texture = textured ? texture : NULL;
                float clip[4], varyings[SR_MAX_VARYINGS], color[4];
                run_vertex(shader, &u, &vertex, clip, varyings);
                cr_assert(run_fragment(shader, &u, varyings, interior, 7, color), "%s discarded", shader->name);
                double want = opacities[o];
                if (strcmp(shader->name, "vertex_color") == 0)
                    want = 0.35f;
                else if (strcmp(shader->name, "vertex_color_lit") == 0)
                    want = 0.35f * opacities[o];
                else if (strcmp(shader->name, "triangle_id") == 0)
                    want = 1.0;
                else if (strcmp(shader->name, "textured") == 0 && textured)
                    want = texel_alpha * opacities[o];
                cr_assert_float_eq(color[3], want, 1e-6, "%s, opacity %g, %s texture: alpha %g, expected %g",
                                   shader->name, (double)opacities[o], textured ? "with" : "no", (double)color[3],
                                   want);
                checked++;
                if (strcmp(shader->name, "wireframe") == 0) {
                    cr_assert(run_fragment(shader, &u, varyings, edge, 7, color));
                    cr_assert_float_eq(color[3], 0.8, 1e-7, "wireframe edge alpha %g", (double)color[3]);
                }
            }
        }
    }
    cr_assert_eq(checked, 10 * 4 * 2);
    sr_texture_destroy(texture);
}

Test(depth, linear_view_distance_as_grey)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    sr_mat4 model = sr_mat4_translation(sr_vec3_make(0.0f, 0.0f, -1.0f));
    sr_mat4 view = sr_mat4_look_at(sr_vec3_make(0, 0, 3), sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0));
    sr_shader_uniforms_set_transforms(&u, model, view, sr_mat4_perspective(1.0f, 1.0f, 0.1f, 100.0f));
    u.depth_near = 2.0f;
    u.depth_far = 6.0f;
    /* Object z = 0.5 -> world z = -0.5 -> 3.5 in front of the eye at z = 3. */
    sr_shader_vertex v = {.position = {0.7f, -0.2f, 0.5f}};
    float clip[4], varyings[SR_MAX_VARYINGS], color[4];
    run_vertex(&sr_shader_depth, &u, &v, clip, varyings);
    cr_assert_float_eq(varyings[0], 3.5, 1e-5);
    run_fragment(&sr_shader_depth, &u, varyings, NULL, 0, color);
    cr_assert_float_eq(color[0], 1.0 - (3.5 - 2.0) / 4.0, 1e-5);
    cr_assert(color[0] == color[1] && color[1] == color[2]);
    float near_value[1] = {2.0f}, far_value[1] = {6.0f}, before[1] = {0.5f}, beyond[1] = {50.0f};
    run_fragment(&sr_shader_depth, &u, near_value, NULL, 0, color);
    cr_assert_float_eq(color[0], 1.0, 1e-6);
    run_fragment(&sr_shader_depth, &u, far_value, NULL, 0, color);
    cr_assert_float_eq(color[0], 0.0, 1e-6);
    run_fragment(&sr_shader_depth, &u, before, NULL, 0, color);
    cr_assert_float_eq(color[0], 1.0, 0, "clamped");
    run_fragment(&sr_shader_depth, &u, beyond, NULL, 0, color);
    cr_assert_float_eq(color[0], 0.0, 0, "clamped");
}

/* ---- wireframe, triangle id ------------------------------------------------------------- */

Test(wireframe, marks_edges_not_interiors)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    u.wireframe_width = 0.05f;
    memcpy(u.wireframe_color, (float[4]){1.0f, 0.0f, 0.0f, 1.0f}, sizeof u.wireframe_color);
    u.albedo = sr_vec3_make(0.0f, 0.0f, 1.0f);
    const float edges[][3] = {{0.01f, 0.5f, 0.49f}, {0.6f, 0.0f, 0.4f}, {0.3f, 0.66f, 0.04f}, {1.0f, 0.0f, 0.0f}};
    const float interiors[][3] = {{1 / 3.0f, 1 / 3.0f, 1 / 3.0f}, {0.06f, 0.5f, 0.44f}, {0.8f, 0.1f, 0.1f}};
    /* The fill is lit as lambert: a normal facing the light, one facing away. */
    const float normals[2][3] = {{0.3f, 0.5f, 1.0f}, {0.0f, -1.0f, 0.0f}};
    const double fill_blue[2] = {lambert_expected(1.0, dv(0.3, 0.5, 1.0)), lambert_expected(1.0, dv(0, -1, 0))};
    float color[4];
    for (int n = 0; n < 2; n++) {
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
            cr_assert(run_fragment(&sr_shader_wireframe, &u, normals[n], edges[i], 0, color));
            cr_assert(color[0] == 1.0f && color[2] == 0.0f, "edge %zu not marked", i);
        }
        for (size_t i = 0; i < sizeof interiors / sizeof interiors[0]; i++) {
            cr_assert(run_fragment(&sr_shader_wireframe, &u, normals[n], interiors[i], 0, color));
            cr_assert(color[0] == 0.0f, "interior %zu marked as edge", i);
            cr_assert_float_eq(color[2], fill_blue[n], 1e-6, "interior %zu fill %f", i, color[2]);
        }
    }
    u.wireframe_fill = false;
    cr_assert_not(run_fragment(&sr_shader_wireframe, &u, normals[0], interiors[0], 0, color), "interior kept");
    cr_assert(run_fragment(&sr_shader_wireframe, &u, normals[0], edges[0], 0, color));
}

Test(triangle_id, neighbouring_ids_get_distinct_colours)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    uint32_t previous = 0;
    int close_neighbours = 0;
    float previous_rgb[3] = {0};
    for (uint32_t id = 0; id < 200000; id++) {
        float color[4];
        run_fragment(&sr_shader_triangle_id, &u, NULL, NULL, id, color);
        for (int c = 0; c < 3; c++)
            cr_assert(color[c] >= 0.25f && color[c] <= 1.0f, "id %u channel %d = %f", id, c, color[c]);
        cr_assert_float_eq(color[3], 1.0, 0);
        uint32_t packed = sr_rgba8(color[0], color[1], color[2], 1.0f);
        if (id > 0) {
            cr_assert_neq(packed, previous, "ids %u and %u have the same colour", id - 1, id);
            double distance = 0;
            for (int c = 0; c < 3; c++)
                distance += fabs((double)color[c] - previous_rgb[c]);
            close_neighbours += distance < 0.1;
        }
        previous = packed;
        memcpy(previous_rgb, color, sizeof previous_rgb);
        float again[3];
        sr_shader_id_color(id, again);
        cr_assert(again[0] == color[0] && again[1] == color[1] && again[2] == color[2]);
    }
    /* Hard to tell apart (sum of channel differences < 0.1): rare for a hash, about 0.1 % of
     * neighbours for uniformly random colours; a sequence like id * constant would fail. */
    cr_assert_lt(close_neighbours, 1000, "%d neighbouring pairs look alike", close_neighbours);
}
