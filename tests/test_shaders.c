/* test_shaders.c — the built-in shader programs (shaders/) and the demo scene (src/scene/demo.c).
 * Each program's functions are checked against formulas recomputed here in double precision;
 * a whole lambert frame of a sphere against ray casting the analytic sphere; the demo scene by
 * where its objects land on screen. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <softrast/raster.h>
#include <softrast/scene.h>

#include <softrast/shaders.h>

/* ---- helpers ---------------------------------------------------------------------------- */

static const double PI = 3.14159265358979323846;

typedef struct dvec3 {
    double x, y, z;
} dvec3;

static dvec3 dv(double x, double y, double z)
{
    return (dvec3){x, y, z};
}
static double ddot(dvec3 a, dvec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static dvec3 dscale(dvec3 a, double s)
{
    return dv(a.x * s, a.y * s, a.z * s);
}
static dvec3 dadd(dvec3 a, dvec3 b)
{
    return dv(a.x + b.x, a.y + b.y, a.z + b.z);
}
static dvec3 dsub(dvec3 a, dvec3 b)
{
    return dv(a.x - b.x, a.y - b.y, a.z - b.z);
}
static dvec3 dnormalize(dvec3 a)
{
    return dscale(a, 1.0 / sqrt(ddot(a, a)));
}

/* BENCH_SCENE.md's light, computed here rather than taken from the defaults under test. */
static dvec3 bench_light(void)
{
    return dnormalize(dv(0.3, 0.5, 1.0));
}

/* BENCH_SCENE.md's lambert formula for one channel. */
static double lambert_expected(double albedo, dvec3 normal)
{
    double n_dot_l = ddot(dnormalize(normal), bench_light());
    return albedo * (0.2 + 0.8 * fmax(0.0, n_dot_l));
}

/* Runs a program's vertex function on one vertex. */
static void run_vertex(const sr_shader *shader, const sr_shader_uniforms *u, const sr_shader_vertex *v, float clip[4],
                       float varyings[SR_MAX_VARYINGS])
{
    memset(varyings, 0, SR_MAX_VARYINGS * sizeof(float));
    shader->program.vertex(v, u, clip, varyings);
}

/* Runs a program's fragment function with the given varyings; returns its keep/discard. */
static bool run_fragment(const sr_shader *shader, const sr_shader_uniforms *u, const float *varyings,
                         const float *barycentric, uint32_t primitive_id, float color[4])
{
    sr_fragment_in in = {.x = 0.5f,
                         .y = 0.5f,
                         .depth = 0.5f,
                         .varyings = varyings,
                         .barycentric = barycentric,
                         .primitive_id = primitive_id,
                         .front_facing = true};
    sr_fragment_out out = {.color = {-1, -1, -1, -1}, .depth = 0.5f};
    bool kept = shader->program.fragment(&in, u, &out);
    memcpy(color, out.color, sizeof out.color);
    return kept;
}

/* M * (p, 1) in double, from a float matrix. */
static void dtransform(const sr_mat4 *m, dvec3 p, double out[4])
{
    for (int row = 0; row < 4; row++)
        out[row] = (double)m->m[row] * p.x + (double)m->m[4 + row] * p.y + (double)m->m[8 + row] * p.z +
                   (double)m->m[12 + row];
}

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

/* ---- helpers of the demo section -------------------------------------------------------- */

Test(demo_helpers, checker_texture_pattern)
{
    sr_texture *t = NULL;
    sr_error err;
    uint32_t light = sr_rgba8(1, 1, 1, 1), dark = sr_rgba8(0, 0, 0, 1);
    cr_assert_eq(sr_checker_texture_create(10, 4, light, dark, &t, &err), SR_OK, "%s", err.message);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 10; x++) {
            int square = (x * 4 / 10 + y * 4 / 10) % 2;
            cr_assert_eq(t->texels[y * 10 + x], square ? dark : light, "texel (%d, %d)", x, y);
        }
    sr_texture_destroy(t);
    cr_assert_neq(sr_checker_texture_create(0, 1, light, dark, &t, &err), SR_OK);
    cr_assert_null(t);
    cr_assert_neq(sr_checker_texture_create(4, 5, light, dark, &t, &err), SR_OK);
    cr_assert(strstr(err.message, "squares"));
}

Test(demo_helpers, shader_vertices_copy_the_mesh)
{
    sr_mesh *mesh = NULL;
    sr_error err;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 8, 4, &mesh, &err), SR_OK, "%s", err.message);
    sr_shader_vertex *v = NULL;
    const float color[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    cr_assert_eq(sr_mesh_create_shader_vertices(mesh, color, &v, &err), SR_OK, "%s", err.message);
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        cr_assert(memcmp(&v[i].position, &mesh->positions[i], sizeof(sr_vec3)) == 0);
        cr_assert(memcmp(&v[i].normal, &mesh->normals[i], sizeof(sr_vec3)) == 0);
        cr_assert(memcmp(&v[i].uv, &mesh->uvs[i], sizeof(sr_vec2)) == 0);
        cr_assert(memcmp(v[i].color, color, sizeof color) == 0);
    }
    sr_free(v);
    cr_assert_neq(sr_mesh_create_shader_vertices(NULL, color, &v, &err), SR_OK);
    sr_mesh_destroy(mesh);
}

/* ---- a whole frame of the canonical scene against the analytic sphere --------------------- */

typedef struct frame {
    sr_framebuffer *fb;
    sr_renderer *renderer;
} frame;

static frame make_frame(int width, int height, bool ids)
{
    frame f = {0};
    sr_error err;
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = ids}, &f.fb, &err), SR_OK,
        "%s", err.message);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){0}, &f.renderer, &err), SR_OK, "%s", err.message);
    return f;
}

static void free_frame(frame *f)
{
    sr_renderer_destroy(f->renderer);
    sr_framebuffer_destroy(f->fb);
}

/* On failure, the frame is kept as a PNG next to the build for a look. */
static void dump_frame(const sr_framebuffer *fb, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SR_BUILD_DIR, name);
    sr_error err;
    if (sr_framebuffer_save(fb, path, &err) == SR_OK)
        fprintf(stderr, "test_shaders: wrote the actual image to %s\n", path);
}

Test(render, lambert_sphere_matches_analytic_sphere, .timeout = 60)
{
    const int width = 320, height = 180;
    sr_mesh *mesh = NULL;
    sr_error err;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 96, 48, &mesh, &err), SR_OK, "%s", err.message);
    sr_shader_vertex *vertices = NULL;
    cr_assert_eq(sr_mesh_create_shader_vertices(mesh, NULL, &vertices, &err), SR_OK, "%s", err.message);
    frame f = make_frame(width, height, false);

    sr_mat4 view, projection;
    sr_bench_scene_camera(width, height, &view, &projection);
    sr_shader_uniforms u = sr_shader_uniforms_default();
    sr_shader_uniforms_set_transforms(&u, sr_mat4_identity(), view, projection);
    sr_program program = sr_shader_program(&sr_shader_lambert, &u);
    sr_framebuffer_clear(f.fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
    cr_assert_eq(sr_draw_triangles(f.renderer, f.fb,
                                   &(sr_draw_desc){.vertices = vertices,
                                                   .vertex_count = mesh->vertex_count,
                                                   .vertex_stride = sizeof *vertices,
                                                   .indices = mesh->indices,
                                                   .index_count = mesh->triangle_count * 3,
                                                   .program = &program},
                                   &err),
                 SR_OK, "%s", err.message);

    /* Independent camera (BENCH_SCENE.md): eye (0, 0, 3), fov_y 45 degrees; the ray through the
     * pixel centre has view direction (ndc_x * tan(fov/2) * aspect, ndc_y * tan(fov/2), -1). */
    double tan_half = tan(PI / 8), aspect = (double)width / height;
    dvec3 eye = dv(0, 0, 3);
    int compared = 0, background = 0, bad = 0;
    double worst = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            double ndc_x = (x + 0.5) / width * 2 - 1, ndc_y = 1 - (y + 0.5) / height * 2;
            dvec3 d = dnormalize(dv(ndc_x * tan_half * aspect, ndc_y * tan_half, -1));
            /* |eye + t d|^2 = r^2; closest approach of the ray to the centre decides coverage. */
            double b = ddot(eye, d), c = ddot(eye, eye);
            double miss_distance = sqrt(fmax(0.0, c - b * b));
            uint32_t pixel = f.fb->color[y * width + x];
            if (miss_distance > 1.02) {
                background++;
                if (pixel != SR_BENCH_SCENE_BACKGROUND)
                    bad++;
                continue;
            }
            if (miss_distance > 0.97)
                continue; /* near the silhouette: the tessellated outline differs from the circle */
            double t = -b - sqrt(b * b - (c - 1.0));
            dvec3 normal = dadd(eye, dscale(d, t)); /* unit sphere: the hit point is the normal */
            for (int ch = 0; ch < 3; ch++) {
                double want = lambert_expected(0.8, normal);
                double got = ((pixel >> (8 * ch)) & 0xffu) / 255.0;
                worst = fmax(worst, fabs(got - want));
                if (fabs(got - want) > 0.01)
                    bad++;
            }
            compared++;
        }
    cr_log_info("sphere: %d pixels compared, worst channel error %f", compared, worst);
    if (bad)
        dump_frame(f.fb, "test_shaders_sphere_actual.png");
    cr_assert_gt(compared, 10000, "only %d pixels on the sphere", compared);
    cr_assert_gt(background, 10000);
    cr_assert_eq(bad, 0, "%d pixels differ (worst %f)", bad, worst);
    free_frame(&f);
    sr_free(vertices);
    sr_mesh_destroy(mesh);
}

/* ---- the demo scene ------------------------------------------------------------------------ */

/* Pixel position of a world point under view and projection (window convention of raster.h). */
static bool project(sr_mat4 view, sr_mat4 projection, sr_vec3 p, int width, int height, int *x, int *y)
{
    double v[4], c[4];
    dtransform(&view, dv(p.x, p.y, p.z), v);
    dtransform(&projection, dv(v[0], v[1], v[2]), c);
    if (c[3] <= 0)
        return false;
    *x = (int)floor((c[0] / c[3] * 0.5 + 0.5) * width);
    *y = (int)floor((0.5 - c[1] / c[3] * 0.5) * height);
    return *x >= 0 && *x < width && *y >= 0 && *y < height;
}

Test(demo, every_object_is_visible_where_expected, .timeout = 60)
{
    const int width = 480, height = 270;
    sr_scene *scene = NULL;
    sr_error err;
    cr_assert_eq(sr_scene_create_demo(&scene, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_scene_node_count(scene), 4);
    frame f = make_frame(width, height, true);
    sr_scene_frame *scene_frame = NULL;
    cr_assert_eq(sr_scene_frame_create(&scene_frame, &err), SR_OK);
    cr_assert_eq(sr_scene_render(scene, NULL, f.renderer, f.fb, scene_frame, &err), SR_OK, "%s", err.message);

    sr_mat4 view, projection;
    sr_camera camera = sr_scene_camera(scene);
    sr_camera_matrices(&camera, width, height, &view, &projection);
    const char *names[4] = {"ground", "sphere", "box", "torus"};
    bool failed = false;
    /* Per pixel, the node drawn there (UINT32_MAX for none). */
    uint32_t *drawn = malloc((size_t)width * height * sizeof *drawn);
    for (int p = 0; p < width * height; p++) {
        sr_node_id node;
        drawn[p] = sr_scene_frame_decode_id(scene_frame, f.fb->ids[p], &node, NULL) ? node.index : UINT32_MAX;
    }
    for (uint32_t i = 0; i < 4; i++) {
        sr_node_id id = sr_scene_node_at(scene, i);
        sr_node_info object;
        cr_assert_eq(sr_scene_node(scene, id, &object, NULL), SR_OK);
        cr_assert_str_eq(object.name, names[i]);
        /* Visible: a good number of pixels carry the object's ids. */
        int pixels = 0;
        double red = 0, green = 0, blue = 0;
        for (int p = 0; p < width * height; p++)
            if (drawn[p] == i) {
                pixels++;
                red += f.fb->color[p] & 0xff;
                green += f.fb->color[p] >> 8 & 0xff;
                blue += f.fb->color[p] >> 16 & 0xff;
            }
        if (pixels < 1500) {
            failed = true;
            cr_expect_geq(pixels, 1500, "%s covers %d pixels", object.name, pixels);
        }
        /* Where expected: the centre of its world box lands on the object, and the object's
         * mean colour follows its albedo's dominant channel. */
        if (i > 0) {
            int x, y;
            cr_assert(project(view, projection, sr_aabb_centre(object.world_aabb), width, height, &x, &y),
                      "%s is off screen", object.name);
            uint32_t at = drawn[y * width + x];
            /* The torus's centre is its hole: test a point on its ring instead. */
            if (i == 3) {
                sr_vec3 ring = sr_mat4_transform_point(object.world, sr_vec3_make(0.45f, 0.0f, 0.0f));
                project(view, projection, ring, width, height, &x, &y);
                at = drawn[y * width + x];
            }
            if (at != i) {
                failed = true;
                cr_expect(false, "pixel (%d, %d) shows node %u, not %s", x, y, at, object.name);
            }
        }
        if (i == 1)
            cr_expect(red > 2 * green && red > 2 * blue, "the sphere is not red");
        if (i == 3)
            cr_expect(blue > 1.3 * red && blue > green, "the torus is not blue");
    }
    /* The ground fills the bottom corners. */
    cr_expect_eq(drawn[(height - 1) * width], 0u);
    cr_expect_eq(drawn[(height - 1) * width + width - 1], 0u);
    if (failed)
        dump_frame(f.fb, "test_shaders_demo_actual.png");
    free(drawn);
    sr_scene_frame_destroy(scene_frame);
    free_frame(&f);
    sr_scene_destroy(scene);
}

Test(demo, bench_camera_is_bench_scene)
{
    sr_mat4 view, projection;
    sr_bench_scene_camera(1280, 720, &view, &projection);
    /* The eye maps to the view origin, the origin lies 3 units down -Z. */
    double e[4], o[4];
    dtransform(&view, dv(0, 0, 3), e);
    dtransform(&view, dv(0, 0, 0), o);
    cr_assert_float_eq(e[0] * e[0] + e[1] * e[1] + e[2] * e[2], 0.0, 1e-10);
    cr_assert_float_eq(o[2], -3.0, 1e-6);
    /* A point on the near plane at the top edge of the field of view: ndc (0, 1, 0). */
    double top = 0.1 * tan(PI / 8), c[4];
    dtransform(&projection, dv(0, top, -0.1), c);
    cr_assert_float_eq(c[1] / c[3], 1.0, 1e-5);
    cr_assert_float_eq(c[2] / c[3], 0.0, 1e-5);
    /* Aspect 16:9: the right edge at the same depth. */
    dtransform(&projection, dv(top * 1280.0 / 720.0, 0, -0.1), c);
    cr_assert_float_eq(c[0] / c[3], 1.0, 1e-5);
    dtransform(&projection, dv(0, 0, -100), c);
    cr_assert_float_eq(c[2] / c[3], 1.0, 1e-5, "far plane at depth 1");
}

Test(demo, bench_primary_rays_pass_through_pixel_centres)
{
    /* Against the pinhole model in double: the ray of pixel (x, y) points along
     * (ndc_x tan(22.5 deg) aspect, ndc_y tan(22.5 deg), -1) from the eye (0, 0, 3). */
    enum { W = 40, H = 24 };
    sr_ray rays[W * H];
    sr_bench_scene_primary_rays(W, H, rays);
    const double t = tan(PI / 8), aspect = (double)W / H;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const sr_ray *r = &rays[y * W + x];
            double d[3] = {((x + 0.5) / W * 2 - 1) * t * aspect, (1 - (y + 0.5) / H * 2) * t, -1.0};
            double length = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            cr_assert(r->origin.x == 0.0f && r->origin.y == 0.0f && r->origin.z == 3.0f);
            cr_assert_float_eq(r->direction.x, d[0] / length, 1e-5, "pixel %d %d", x, y);
            cr_assert_float_eq(r->direction.y, d[1] / length, 1e-5, "pixel %d %d", x, y);
            cr_assert_float_eq(r->direction.z, d[2] / length, 1e-5, "pixel %d %d", x, y);
            cr_assert(r->tmin == 0.0f && isinf(r->tmax));
        }
    }
    /* Bad sizes and a NULL array write nothing and do not crash. */
    sr_ray untouched = rays[0];
    sr_bench_scene_primary_rays(0, H, rays);
    sr_bench_scene_primary_rays(W, -1, rays);
    sr_bench_scene_primary_rays(W, H, NULL);
    cr_assert(memcmp(&untouched, &rays[0], sizeof untouched) == 0);
}
