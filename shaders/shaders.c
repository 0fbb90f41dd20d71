/* shaders/shaders.c — the catalogue of built-in programs (softrast/shaders.h): default
 * uniforms, derived transforms, lookup by name. The programs themselves live one per file;
 * this file must not know what any of them computes. */
#include <softrast/shaders.h>

#include <string.h>

/* Catalogue order: simplest first; also the order of sr_shader_names(). */
static const sr_shader *const catalogue[] = {
    &sr_shader_flat,        &sr_shader_vertex_color, &sr_shader_lambert, &sr_shader_vertex_color_lit,
    &sr_shader_blinn_phong, &sr_shader_textured,     &sr_shader_normals, &sr_shader_depth,
    &sr_shader_wireframe,   &sr_shader_triangle_id,
};

#define CATALOGUE_SIZE (sizeof catalogue / sizeof catalogue[0])

sr_shader_uniforms sr_shader_uniforms_default(void)
{
    sr_shader_uniforms u = {
        /* The benchmark scene (README): L = normalize(0.3, 0.5, 1.0), albedo 0.8, colour = albedo * (0.2 + 0.8 N.L). */
        .light_direction = sr_vec3_normalize(sr_vec3_make(0.3f, 0.5f, 1.0f)),
        .albedo = {0.8f, 0.8f, 0.8f},
        .opacity = 1.0f,
        .ambient = 0.2f,
        .diffuse = 0.8f,
        .specular_color = {0.5f, 0.5f, 0.5f},
        .shininess = 32.0f,
        .texture = NULL,
        .sampler = {.filter = SR_FILTER_NEAREST, .wrap_u = SR_WRAP_REPEAT, .wrap_v = SR_WRAP_REPEAT},
        .depth_near = 0.1f,
        .depth_far = 100.0f,
        .wireframe_width = 0.04f,
        .wireframe_color = {0.05f, 0.05f, 0.05f, 1.0f},
        .wireframe_fill = true,
    };
    sr_shader_uniforms_set_transforms(&u, sr_mat4_identity(), sr_mat4_identity(), sr_mat4_identity());
    return u;
}

/* Inverse transpose of the upper-left 3x3 of `model`, which is its cofactor matrix divided by
 * the determinant. Dividing by the determinant (not only taking cofactors) keeps the sign right
 * for mirroring transforms, whose normals must flip with the winding. */
static sr_mat4 normal_matrix_of(const sr_mat4 *model)
{
    const float *m = model->m;
    /* a[row][column] of the 3x3 block */
    float a00 = m[0], a01 = m[4], a02 = m[8];
    float a10 = m[1], a11 = m[5], a12 = m[9];
    float a20 = m[2], a21 = m[6], a22 = m[10];
    float c00 = a11 * a22 - a12 * a21, c01 = a12 * a20 - a10 * a22, c02 = a10 * a21 - a11 * a20;
    float c10 = a02 * a21 - a01 * a22, c11 = a00 * a22 - a02 * a20, c12 = a01 * a20 - a00 * a21;
    float c20 = a01 * a12 - a02 * a11, c21 = a02 * a10 - a00 * a12, c22 = a00 * a11 - a01 * a10;
    float det = a00 * c00 + a01 * c01 + a02 * c02;
    sr_mat4 r = sr_mat4_identity();
    if (det == 0.0f || !isfinite(det))
        return r;
    float s = 1.0f / det;
    /* (A^-1)^T = C / det: element (row i, column j) is the cofactor c_ij. */
    const float cofactors[3][3] = {{c00, c01, c02}, {c10, c11, c12}, {c20, c21, c22}};
    for (int row = 0; row < 3; row++)
        for (int column = 0; column < 3; column++)
            r.m[column * 4 + row] = cofactors[row][column] * s;
    return r;
}

void sr_shader_uniforms_set_transforms(sr_shader_uniforms *uniforms, sr_mat4 model, sr_mat4 view, sr_mat4 projection)
{
    if (!uniforms)
        return;
    uniforms->model = model;
    uniforms->view = view;
    uniforms->projection = projection;
    uniforms->model_view = sr_mat4_mul(view, model);
    uniforms->model_view_projection = sr_mat4_mul(projection, uniforms->model_view);
    uniforms->normal_matrix = normal_matrix_of(&model);
    sr_mat4 view_inverse;
    if (sr_mat4_inverse(view, &view_inverse))
        uniforms->camera_position = sr_vec3_make(view_inverse.m[12], view_inverse.m[13], view_inverse.m[14]);
    else
        uniforms->camera_position = sr_vec3_make(0.0f, 0.0f, 0.0f);
}

size_t sr_shader_count(void)
{
    return CATALOGUE_SIZE;
}

const sr_shader *sr_shader_get(size_t index)
{
    return index < CATALOGUE_SIZE ? catalogue[index] : NULL;
}

const sr_shader *sr_shader_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < CATALOGUE_SIZE; i++)
        if (strcmp(catalogue[i]->name, name) == 0)
            return catalogue[i];
    return NULL;
}

const char *sr_shader_names(void)
{
    /* A literal rather than a string built at run time: no mutable state. test_shaders checks it
     * lists the catalogue exactly. */
    return "flat, vertex_color, lambert, vertex_color_lit, blinn_phong, textured, normals, depth, wireframe, "
           "triangle_id";
}

sr_program sr_shader_program(const sr_shader *shader, const sr_shader_uniforms *uniforms)
{
    if (!shader)
        return (sr_program){0};
    sr_program program = shader->program;
    program.uniforms = uniforms;
    return program;
}
