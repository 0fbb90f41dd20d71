/* obj_mesh.c — the mesh assembled from an OBJ text that obj.c has read (obj_internal.h): the
 * vertices (the positions as they are, or one per (v, vt, vn) triple), the missing normals, the
 * parts (material switches resolved against the .mtl libraries, whose textures are loaded for the
 * materials in use), the materials and groups handed over to the mesh. */
#include "obj_internal.h"

#include <string.h>

#define NONE SR_OBJ_NONE

/* Shrinks an array handed to the mesh to its size (the capacity doubled while reading). */
static void *fit(void *array, size_t count, size_t element_size)
{
    void *fitted = count ? sr_realloc(array, count * element_size) : NULL;
    return fitted ? fitted : array;
}

/* Parts: the material switches resolved to material indices, empty runs dropped and runs of
 * the same material merged. Marks the materials used. */
static sr_status build_parts(sr_obj_parser *ps, sr_mesh *mesh, bool *used)
{
    uint32_t triangle_count = (uint32_t)(ps->index_count / 3);
    uint32_t *resolved = sr_alloc_array(ps->usemtl_names.count + 1, sizeof *resolved);
    mesh->parts = sr_alloc_array(ps->switch_count + 1, sizeof *mesh->parts);
    if (!resolved || !mesh->parts) {
        sr_free(resolved);
        return sr_error_set(ps->err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->name);
    }
    for (size_t i = 0; i < ps->usemtl_names.count; i++) {
        const char *name = ps->usemtl_names.names[i];
        resolved[i] = sr_obj_names_find(&ps->library.names, name, strlen(name));
        if (resolved[i] == UINT32_MAX) {
            resolved[i] = SR_MESH_NO_MATERIAL;
            sr_obj_warn(ps->desc,
                        "%s:%zu: material '%.200s' is not defined by any material library: its faces have "
                        "no material",
                        ps->name, ps->usemtl_lines[i], name);
        }
    }
    for (size_t s = 0; s <= ps->switch_count; s++) {
        uint32_t first = s == 0 ? 0 : ps->switches[s - 1].first_triangle;
        uint32_t end = s < ps->switch_count ? ps->switches[s].first_triangle : triangle_count;
        uint32_t name = s == 0 ? NONE : ps->switches[s - 1].name;
        uint32_t material = name == NONE ? SR_MESH_NO_MATERIAL : resolved[name];
        if (end == first)
            continue;
        if (mesh->part_count > 0 && mesh->parts[mesh->part_count - 1].material == material) {
            mesh->parts[mesh->part_count - 1].triangle_count += end - first;
        } else {
            mesh->parts[mesh->part_count++] = (sr_mesh_range){first, end - first, material};
            if (material != SR_MESH_NO_MATERIAL)
                used[material] = true;
        }
    }
    mesh->parts = fit(mesh->parts, mesh->part_count, sizeof *mesh->parts);
    sr_free(resolved);
    return SR_OK;
}

/* Normals of the vertices without a given one: the area-weighted sum over the triangles using
 * the vertex's position (as sr_mesh_compute_normals, so that a uv seam is no normal seam). */
static sr_status compute_missing_normals(sr_obj_parser *ps, sr_mesh *mesh)
{
    sr_vec3 *sums = sr_calloc(ps->position_count, sizeof *sums);
    if (!sums)
        return sr_error_set(ps->err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory computing normals", ps->name);
    const sr_vec3 *p = ps->positions;
    for (size_t t = 0; t < mesh->triangle_count; t++) {
        const uint32_t *tri = mesh->indices + 3 * t;
        uint32_t a = ps->vertices[tri[0]].position, b = ps->vertices[tri[1]].position,
                 c = ps->vertices[tri[2]].position;
        sr_vec3 n = sr_vec3_cross(sr_vec3_sub(p[b], p[a]), sr_vec3_sub(p[c], p[a]));
        if (!sr_vec3_is_finite(n))
            continue;
        sums[a] = sr_vec3_add(sums[a], n);
        sums[b] = sr_vec3_add(sums[b], n);
        sums[c] = sr_vec3_add(sums[c], n);
    }
    for (size_t v = 0; v < mesh->vertex_count; v++)
        if (ps->vertices[v].normal == NONE)
            mesh->normals[v] = sr_vec3_normalize(sums[ps->vertices[v].position]);
    sr_free(sums);
    return SR_OK;
}

static sr_status build_vertices(sr_obj_parser *ps, sr_mesh *mesh)
{
    if (!ps->deduplicate) {
        /* vertex i is the i-th `v` line */
        mesh->positions = fit(ps->positions, ps->position_count, sizeof *ps->positions);
        mesh->colors = ps->colors ? fit(ps->colors, ps->position_count, sizeof *ps->colors) : NULL;
        mesh->vertex_count = ps->position_count;
        ps->positions = NULL;
        ps->colors = NULL;
        if (ps->desc->skip_normals)
            return SR_OK;
        sr_status status = sr_mesh_compute_normals(mesh, ps->err);
        return status == SR_OK ? SR_OK : sr_error_set(ps->err, status, "%s: out of memory computing normals", ps->name);
    }
    size_t n = ps->vertex_count;
    mesh->vertex_count = n;
    mesh->positions = sr_alloc_array(n, sizeof *mesh->positions);
    bool normals = ps->any_normal || !ps->desc->skip_normals;
    if (!mesh->positions || (normals && !(mesh->normals = sr_calloc(n, sizeof *mesh->normals))) ||
        (ps->any_uv && !(mesh->uvs = sr_alloc_array(n, sizeof *mesh->uvs))) ||
        (ps->colors && !(mesh->colors = sr_alloc_array(n, sizeof *mesh->colors))))
        return sr_error_set(ps->err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu vertices", ps->name, n);
    for (size_t v = 0; v < n; v++) {
        const sr_obj_vertex *vertex = &ps->vertices[v];
        mesh->positions[v] = ps->positions[vertex->position];
        if (mesh->uvs)
            mesh->uvs[v] = vertex->uv == NONE ? (sr_vec2){0.0f, 0.0f} : ps->uvs[vertex->uv];
        if (mesh->normals && vertex->normal != NONE)
            mesh->normals[v] = ps->normals[vertex->normal];
        if (mesh->colors)
            mesh->colors[v] = ps->colors[vertex->position];
    }
    if (ps->any_missing_normal && !ps->desc->skip_normals)
        return compute_missing_normals(ps, mesh);
    return SR_OK;
}

sr_status sr_obj_build_mesh(sr_obj_parser *ps, sr_mesh **out)
{
    sr_mesh *mesh = sr_calloc(1, sizeof *mesh);
    bool *used = sr_calloc(ps->library.count + 1, sizeof *used);
    if (!mesh || !used) {
        sr_free(mesh);
        sr_free(used);
        return sr_error_set(ps->err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->name);
    }
    mesh->indices = fit(ps->indices, ps->index_count, sizeof *ps->indices);
    mesh->triangle_count = ps->index_count / 3;
    ps->indices = NULL;
    sr_status status = build_vertices(ps, mesh);
    if (status == SR_OK)
        status = build_parts(ps, mesh, used);
    if (status == SR_OK)
        status = sr_mtl_library_load_textures(&ps->library, ps->desc, used, ps->err);
    sr_free(used);
    if (status != SR_OK) {
        sr_mesh_destroy(mesh);
        return status;
    }
    /* the mesh takes the materials (their names from the name table) and the groups */
    mesh->materials = ps->library.materials;
    mesh->material_count = ps->library.count;
    for (size_t i = 0; i < ps->library.count; i++)
        ps->library.names.names[i] = NULL;
    for (size_t i = 0; i < ps->library.count; i++)
        sr_free(ps->library.texture_origins[i]);
    ps->library.materials = NULL;
    ps->library.count = 0;
    mesh->groups = ps->groups ? fit(ps->groups, ps->group_count, sizeof *ps->groups) : NULL;
    mesh->group_count = ps->group_count;
    ps->groups = NULL;
    ps->group_count = 0;
    *out = mesh;
    return SR_OK;
}
