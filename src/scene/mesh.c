/* mesh.c — indexed triangle meshes: creation, bounds, normalisation, vertex normals, and the
 * mesh interleaved into the built-in shaders' vertex layout (softrast/scene.h). Knows nothing
 * of files (obj.c) or generated shapes (mesh_gen.c). */
#include <softrast/scene.h>

#include <softrast/shaders.h>

#include <string.h>

sr_status sr_mesh_create(const sr_mesh_desc *desc, sr_mesh **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_create: out is NULL");
    *out = NULL;
    if (!desc)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_create: desc is NULL");
    if (desc->vertex_count > UINT32_MAX || desc->triangle_count > UINT32_MAX / 3)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_mesh_create: %zu vertices / %zu triangles exceed the 32-bit index range",
                            desc->vertex_count, desc->triangle_count);
    sr_mesh *mesh = sr_calloc(1, sizeof *mesh);
    if (!mesh)
        goto out_of_memory;
    mesh->vertex_count = desc->vertex_count;
    mesh->triangle_count = desc->triangle_count;
    mesh->positions = sr_calloc(desc->vertex_count, sizeof *mesh->positions);
    mesh->indices = sr_calloc(desc->triangle_count * 3, sizeof *mesh->indices);
    if (!mesh->positions || !mesh->indices)
        goto out_of_memory;
    if (desc->normals && !(mesh->normals = sr_calloc(desc->vertex_count, sizeof *mesh->normals)))
        goto out_of_memory;
    if (desc->uvs && !(mesh->uvs = sr_calloc(desc->vertex_count, sizeof *mesh->uvs)))
        goto out_of_memory;
    if (desc->colors && !(mesh->colors = sr_calloc(desc->vertex_count, sizeof *mesh->colors)))
        goto out_of_memory;
    *out = mesh;
    return SR_OK;
out_of_memory:
    sr_mesh_destroy(mesh);
    return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_mesh_create: out of memory for %zu vertices, %zu triangles",
                        desc->vertex_count, desc->triangle_count);
}

void sr_mesh_destroy(sr_mesh *mesh)
{
    if (!mesh)
        return;
    sr_free(mesh->positions);
    sr_free(mesh->normals);
    sr_free(mesh->uvs);
    sr_free(mesh->colors);
    sr_free(mesh->indices);
    for (size_t i = 0; i < mesh->material_count; i++) {
        sr_free(mesh->materials[i].name);
        sr_free(mesh->materials[i].texture_path);
        sr_texture_destroy(mesh->materials[i].texture);
    }
    sr_free(mesh->materials);
    sr_free(mesh->parts);
    for (size_t i = 0; i < mesh->group_count; i++)
        sr_free(mesh->groups[i].name);
    sr_free(mesh->groups);
    sr_free(mesh);
}

sr_status sr_mesh_compute_normals(sr_mesh *mesh, sr_error *err)
{
    if (!mesh)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_compute_normals: mesh is NULL");
    if (!mesh->normals && !(mesh->normals = sr_calloc(mesh->vertex_count, sizeof *mesh->normals)))
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_mesh_compute_normals: out of memory");
    memset(mesh->normals, 0, mesh->vertex_count * sizeof *mesh->normals);
    const sr_vec3 *p = mesh->positions;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        const uint32_t *tri = mesh->indices + 3 * t;
        if (tri[0] >= mesh->vertex_count || tri[1] >= mesh->vertex_count || tri[2] >= mesh->vertex_count)
            continue;
        /* The unnormalised cross product has length 2 * area: summing it weights by area. */
        sr_vec3 n = sr_vec3_cross(sr_vec3_sub(p[tri[1]], p[tri[0]]), sr_vec3_sub(p[tri[2]], p[tri[0]]));
        if (!sr_vec3_is_finite(n))
            continue;
        for (int k = 0; k < 3; k++)
            mesh->normals[tri[k]] = sr_vec3_add(mesh->normals[tri[k]], n);
    }
    for (size_t v = 0; v < mesh->vertex_count; v++)
        mesh->normals[v] = sr_vec3_normalize(mesh->normals[v]);
    return SR_OK;
}

sr_aabb sr_mesh_bounds(const sr_mesh *mesh)
{
    sr_vec3 lo = sr_vec3_splat(INFINITY), hi = sr_vec3_splat(-INFINITY);
    if (mesh)
        for (size_t v = 0; v < mesh->vertex_count; v++) {
            lo = sr_vec3_min(lo, mesh->positions[v]);
            hi = sr_vec3_max(hi, mesh->positions[v]);
        }
    return (sr_aabb){lo, hi};
}

void sr_mesh_normalize(sr_mesh *mesh)
{
    if (!mesh || mesh->vertex_count == 0)
        return;
    sr_aabb box = sr_mesh_bounds(mesh);
    /* In double: the centre of bounds near FLT_MAX and the scale of a subnormal extent both
     * leave the float range, while every normalised position is within [-1, 1]. */
    double centre[3] = {0.5 * box.min.x + 0.5 * box.max.x, 0.5 * box.min.y + 0.5 * box.max.y,
                        0.5 * box.min.z + 0.5 * box.max.z};
    double largest =
        fmax((double)box.max.x - box.min.x, fmax((double)box.max.y - box.min.y, (double)box.max.z - box.min.z));
    double scale = largest > 0.0 && isfinite(largest) ? 2.0 / largest : 1.0;
    for (size_t v = 0; v < mesh->vertex_count; v++) {
        sr_vec3 *p = &mesh->positions[v];
        *p = (sr_vec3){(float)((p->x - centre[0]) * scale), (float)((p->y - centre[1]) * scale),
                       (float)((p->z - centre[2]) * scale)};
    }
}

void sr_mesh_transform(sr_mesh *mesh, sr_mat4 matrix)
{
    if (!mesh)
        return;
    for (size_t v = 0; v < mesh->vertex_count; v++)
        mesh->positions[v] = sr_mat4_transform_point(matrix, mesh->positions[v]);
    if (mesh->normals) {
        sr_mat4 inverse;
        sr_mat4_inverse(matrix, &inverse);
        sr_mat4 normal_matrix = sr_mat4_transpose(inverse);
        for (size_t v = 0; v < mesh->vertex_count; v++)
            mesh->normals[v] = sr_vec3_normalize(sr_mat4_transform_direction(normal_matrix, mesh->normals[v]));
    }
}

sr_status sr_mesh_create_shader_vertices(const sr_mesh *mesh, const float color[4], sr_shader_vertex **out,
                                         sr_error *err)
{
    if (!mesh || !out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_mesh_create_shader_vertices: %s is NULL",
                            mesh ? "out" : "mesh");
    *out = NULL;
    sr_shader_vertex *vertices = sr_alloc_array(mesh->vertex_count, sizeof *vertices);
    if (!vertices)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_mesh_create_shader_vertices: no memory for %zu vertices",
                            mesh->vertex_count);
    const float white[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    if (!color)
        color = white;
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        sr_shader_vertex *v = &vertices[i];
        v->position = mesh->positions[i];
        v->normal = mesh->normals ? mesh->normals[i] : sr_vec3_make(0.0f, 0.0f, 0.0f);
        v->uv = mesh->uvs ? mesh->uvs[i] : sr_vec2_make(0.0f, 0.0f);
        if (mesh->colors)
            memcpy(v->color, &mesh->colors[i], sizeof v->color);
        else
            memcpy(v->color, color, sizeof v->color);
    }
    *out = vertices;
    return SR_OK;
}
