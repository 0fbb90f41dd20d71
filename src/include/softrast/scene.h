/* softrast/scene.h — meshes (OBJ loading, generated shapes, normalisation, vertex normals) and
 * the built-in demo scene. Later: node hierarchy, camera, instance BVH, picking, culling.
 * Knows nothing of SDL. */
#ifndef SOFTRAST_SCENE_H
#define SOFTRAST_SCENE_H

#include <softrast/core.h>
#include <softrast/geom.h>
#include <softrast/math.h>
#include <softrast/raster.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An indexed triangle mesh. Arrays are owned by the mesh (free with sr_mesh_destroy).
/// `normals` and `uvs` are NULL or have vertex_count entries. Triangle i uses
/// indices[3 i .. 3 i + 2]; for OBJ files i is the file order after fan triangulation.
typedef struct sr_mesh {
    sr_vec3 *positions;
    sr_vec3 *normals;
    sr_vec2 *uvs;
    size_t vertex_count;
    uint32_t *indices;
    size_t triangle_count;
} sr_mesh;

typedef struct sr_mesh_desc {
    size_t vertex_count;
    size_t triangle_count;
    bool normals; ///< allocate normals (zeroed)
    bool uvs;     ///< allocate uvs (zeroed)
} sr_mesh_desc;

/// Allocates a mesh with zeroed arrays of the given sizes.
sr_status sr_mesh_create(const sr_mesh_desc *desc, sr_mesh **out, sr_error *err);
void sr_mesh_destroy(sr_mesh *mesh);

/// Loads a Wavefront OBJ file: `v` lines (x y z, an optional w ignored) and `f` lines (3 or more
/// vertices, fan-triangulated: f a b c d gives (a b c), (a c d); `v/vt/vn` forms accepted, only
/// the position index is used; negative indices count back from the last `v`). Other statements
/// (vn, vt, o, g, s, usemtl, mtllib, l, p, comments) are ignored. Normals are not read: call
/// sr_mesh_compute_normals. Errors name the file and the line: unreadable file, malformed number,
/// index out of range, face with fewer than 3 vertices, no triangles at all.
sr_status sr_mesh_load_obj(const char *path, sr_mesh **out, sr_error *err);
/// The same parser over a text in memory; `name` is used in error messages.
sr_status sr_mesh_parse_obj(const char *text, size_t length, const char *name, sr_mesh **out, sr_error *err);

/// Area-weighted vertex normals (BENCH_SCENE.md): each face adds (b - a) x (c - a) to its
/// vertices, then each sum is normalised. Allocates `normals` if needed.
sr_status sr_mesh_compute_normals(sr_mesh *mesh, sr_error *err);
/// Bounding box of the positions (empty box for an empty mesh).
sr_aabb sr_mesh_bounds(const sr_mesh *mesh);
/// Translates the box centre to the origin and scales uniformly so the largest extent is 2.
void sr_mesh_normalize(sr_mesh *mesh);
/// Applies an affine transform to positions (and the inverse transpose to normals).
void sr_mesh_transform(sr_mesh *mesh, sr_mat4 matrix);

/* ---- generated shapes: closed where the shape is, with normals and uvs; vertices on seams and
 *      poles have bit-identical positions so that the meshes are watertight ---- */
sr_status sr_mesh_create_sphere(float radius, int slices, int stacks, sr_mesh **out, sr_error *err);
sr_status sr_mesh_create_torus(float major_radius, float minor_radius, int rings, int sides, sr_mesh **out,
                               sr_error *err);
/// Axis-aligned box centred on the origin, each face split into `divisions` x `divisions` quads.
sr_status sr_mesh_create_box(sr_vec3 half_extents, int divisions, sr_mesh **out, sr_error *err);
/// Square in the XZ plane (y = 0, normal +Y) of side `size`, `divisions` x `divisions` quads,
/// uvs from 0 to `uv_repeat`.
sr_status sr_mesh_create_plane(float size, int divisions, float uv_repeat, sr_mesh **out, sr_error *err);

#ifdef __cplusplus
}
#endif
#endif
