/* softrast/scene.h — meshes (OBJ/MTL loading, generated shapes, normalisation, vertex normals) and
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

/// Material index of triangles drawn without a material of the file: faces before any `usemtl`,
/// or after a `usemtl` naming a material that no .mtl file defines. A renderer draws them with its
/// default material.
#define SR_MESH_NO_MATERIAL 0xffffffffu

/// A material of an OBJ mesh, read from the .mtl files named by `mtllib`. Owned by the mesh.
typedef struct sr_mesh_material {
    char *name;          ///< as written after `newmtl` (the rest of the line, blanks trimmed)
    sr_vec4 base_color;  ///< Kd (default 0.8 0.8 0.8, Blender's); alpha from `d`, else 1 - `Tr`, else 1
    char *texture_path;  ///< map_Kd resolved against the .mtl file's folder (`\` read as `/`); NULL if none
    sr_texture *texture; ///< map_Kd loaded with sr_texture_load; NULL if none, if skipped
                         ///< (sr_obj_desc.skip_textures), if no triangle uses the material, or if
                         ///< it failed to load (a warning)
} sr_mesh_material;

/// Consecutive triangles first_triangle .. first_triangle + triangle_count - 1 drawn with
/// `material` (an index into sr_mesh.materials, or SR_MESH_NO_MATERIAL).
typedef struct sr_mesh_range {
    uint32_t first_triangle, triangle_count;
    uint32_t material;
} sr_mesh_range;

/// The triangles of one `o` or `g` statement of an OBJ file (up to the next `o` or `g`).
typedef struct sr_mesh_group {
    char *name; ///< the rest of the statement's line, blanks trimmed ("" for a bare `g`)
    uint32_t first_triangle, triangle_count;
} sr_mesh_group;

/// An indexed triangle mesh. Everything is owned by the mesh (free with sr_mesh_destroy).
/// `normals`, `uvs` and `colors` are NULL or have vertex_count entries. Triangle i uses
/// indices[3 i .. 3 i + 2]; for OBJ files i is the file order after triangulation (sr_obj_load),
/// the triangle numbering every command and query uses.
/// uvs follow softrast's texture convention (raster.h: v grows downwards).
/// `parts` (OBJ materials) cover every triangle in order, each a maximal run of one material, so
/// a renderer draws one call per part; `groups` (OBJ `o`/`g`) need not cover every triangle.
/// Meshes not read from OBJ have no materials, parts or groups (NULL, counts 0).
typedef struct sr_mesh {
    sr_vec3 *positions;
    sr_vec3 *normals;
    sr_vec2 *uvs;
    sr_vec4 *colors; ///< RGBA per vertex (OBJ `v x y z r g b`, alpha 1); NULL when the file has none
    size_t vertex_count;
    uint32_t *indices;
    size_t triangle_count;
    sr_mesh_material *materials;
    size_t material_count;
    sr_mesh_range *parts;
    size_t part_count;
    sr_mesh_group *groups;
    size_t group_count;
} sr_mesh;

typedef struct sr_mesh_desc {
    size_t vertex_count;
    size_t triangle_count;
    bool normals; ///< allocate normals (zeroed)
    bool uvs;     ///< allocate uvs (zeroed)
    bool colors;  ///< allocate colors (zeroed)
} sr_mesh_desc;

/// Allocates a mesh with zeroed arrays of the given sizes (no materials, parts or groups).
sr_status sr_mesh_create(const sr_mesh_desc *desc, sr_mesh **out, sr_error *err);
/// Frees the mesh and everything it owns: arrays, material names, texture paths and textures
/// (sr_texture_destroy), group names. Accepts NULL.
void sr_mesh_destroy(sr_mesh *mesh);

/// What sr_obj_load reads, and how. Zero means default: give `path`, or `text` and `length`.
typedef struct sr_obj_desc {
    const char *path; ///< the OBJ file; NULL to read `text` instead
    const char *text; ///< OBJ text in memory (`length` bytes, need not be NUL-terminated), not kept
    size_t length;
    const char *name; ///< `text`'s name in messages (default "<memory>"); relative `mtllib` paths
                      ///< are resolved against its folder (the current folder when it has none)
    /// Called once per warning (a .mtl or texture that cannot be read, an unknown material, a
    /// malformed .mtl line, ...) with a message "file:line: what"; NULL drops warnings. The
    /// library never prints. Warnings never make the load fail.
    void (*warning)(void *user, const char *message);
    /// Optional source of the .mtl files (NULL: the file system): returns the bytes of the file
    /// at `path` (resolved as above) and sets *length, or NULL when there is no such file. The
    /// bytes must stay valid until sr_obj_load returns; the loader does not free them.
    const char *(*read_mtl)(void *user, const char *path, size_t *length);
    void *user;         ///< passed to `warning` and `read_mtl`
    bool skip_textures; ///< do not load map_Kd images (texture_path is still set, texture stays NULL)
    bool skip_normals;  ///< do not compute the normals the file lacks: normals is NULL when no face
                        ///< corner has a `vn`, and corners without one get (0, 0, 0)
} sr_obj_desc;

/// Loads a Wavefront OBJ mesh with its .mtl materials. Free with sr_mesh_destroy.
///
/// OBJ: `v x y z [w]` (w ignored) or `v x y z r g b [a]` (vertex colours); `vt u [v [w]]`, stored
/// as uv = (u, 1 - v) since OBJ's v grows upwards and softrast's downwards; `vn x y z`, used as
/// given; `f` with corners `v`, `v/vt`, `v/vt/vn` or `v//vn` (forms may be mixed; negative indices
/// count back from the last element defined). A face of n corners gives n - 2 triangles, in file
/// order: the fan (a b c), (a c d), ... for convex and degenerate polygons; ear clipping in the
/// plane of Newell's normal for concave ones, so that the triangles tile the polygon (faces of
/// over 1024 corners: the fan, with a warning). `o` and `g` start groups; `usemtl` selects a
/// material of the `mtllib` files (several files per line and several lines, anywhere in the
/// file; one name with blanks is the whole rest of the line when such a file exists). Names
/// (o, g, usemtl, mtllib, newmtl) are the rest of the line, blanks trimmed; in v, vt, vn and f a
/// `#` starts a comment. Ignored: `s`, `l`, `p`, `vp` and the free-form statements (curves,
/// surfaces). CRLF line ends, a UTF-8 byte order mark, `\` line continuations and a missing final
/// newline are accepted.
///
/// MTL: `newmtl`, `Kd r [g b]`, `d a`, `Tr t`, `map_Kd [options] file` (the options -blendu,
/// -blendv, -cc, -clamp, -bm, -boost, -texres, -imfchan, -type, -colorspace, -mm, -o, -s, -t
/// are skipped with their arguments; the file name may contain blanks); the other statements
/// of the format (Ka, Ks, Ns, illum, map_Bump, PBR extensions, ...) are ignored.
///
/// Vertices: when no face corner has a `vt` or `vn`, vertex i is the i-th `v` line (unused ones
/// included); otherwise there is one vertex per distinct (v, vt, vn) triple, numbered in order of
/// first use by the face corners in file order, so that given normals and uvs are per corner
/// (corners without vt get uv (0, 0)). The normals the file lacks are computed (unless
/// skip_normals) as sr_mesh_compute_normals does, summed over the triangles that use the
/// vertex's position (a uv seam is no normal seam).
///
/// Errors (SR_ERROR_PARSE unless said, message "file:line: what"): malformed number, non-finite
/// coordinate, index 0 or out of range, face with fewer than 3 vertices, unknown statement (not
/// an OBJ file), NUL byte, no faces at all; SR_ERROR_IO: unreadable file, not a regular file;
/// SR_ERROR_UNSUPPORTED: larger than 1 GiB; SR_ERROR_OUT_OF_MEMORY. A missing or malformed .mtl,
/// an unknown material or a texture that fails to load is a warning: the mesh still loads.
/// Thread-safe for different descs (no shared state).
sr_status sr_obj_load(const sr_obj_desc *desc, sr_mesh **out, sr_error *err);

/// sr_obj_load(&(sr_obj_desc){.path = path, .skip_normals = true}): warnings dropped, normals
/// only where the file gives them.
sr_status sr_mesh_load_obj(const char *path, sr_mesh **out, sr_error *err);
/// sr_obj_load(&(sr_obj_desc){.text = text, .length = length, .name = name, .skip_normals = true}).
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

/* ------------------------------------------------------------------------------------------ */
/* Meshes for the built-in shaders, and the demo scene (src/scene/demo.c)                      */

/* Declared in softrast/shaders.h (the shader catalogue); named here only through pointers so
 * that this header does not depend on where the catalogue header is installed. */
struct sr_shader;
struct sr_shader_vertex;

/// Interleaves the mesh into the vertex layout of the built-in shaders: position, normal (zero
/// when the mesh has none), uv (zero when none) and colour for every vertex: mesh->colors when
/// the mesh has them, else `color` (RGBA; NULL = opaque white). `*out` holds mesh->vertex_count
/// vertices; free it with sr_free. Errors: NULL arguments, out of memory.
sr_status sr_mesh_create_shader_vertices(const sr_mesh *mesh, const float color[4], struct sr_shader_vertex **out,
                                         sr_error *err);

/// A square RGBA8 checkerboard of `size` x `size` texels with `squares` x `squares` squares
/// alternating `light` and `dark` (sr_rgba8 values), the top-left square light. Free with
/// sr_texture_destroy. Errors: size outside [1, SR_MAX_IMAGE_SIDE], squares outside [1, size].
sr_status sr_checker_texture_create(int size, int squares, uint32_t light, uint32_t dark, sr_texture **out,
                                    sr_error *err);

/// BENCH_SCENE.md's camera for a `width` x `height` image: eye (0, 0, 3) looking at the origin,
/// up +Y, vertical field of view 45 degrees, aspect width / height, near 0.1, far 100.
void sr_bench_scene_camera(int width, int height, sr_mat4 *view, sr_mat4 *projection);
/// BENCH_SCENE.md's primary rays of a `width` x `height` image into rays[width * height], rows
/// top first: from the eye through the unprojected pixel centre on the near plane, unit-length
/// directions, tmin 0, tmax infinity. Writes nothing when rays is NULL or a size is not positive.
void sr_bench_scene_primary_rays(int width, int height, sr_ray *rays);
/// BENCH_SCENE.md's mesh: loads the OBJ at `path`, normalises it (box centre at the origin,
/// largest extent 2) and computes area-weighted vertex normals. Free with sr_mesh_destroy.
/// Errors: those of sr_mesh_load_obj and sr_mesh_compute_normals.
sr_status sr_bench_scene_load_mesh(const char *path, sr_mesh **out, sr_error *err);
/// BENCH_SCENE.md's background colour (0.1, 0.1, 0.1), opaque, as an sr_rgba8 value.
#define SR_BENCH_SCENE_BACKGROUND 0xff1a1a1au

/// One object of the demo scene; read-only for callers, owned by the scene.
typedef struct sr_demo_object {
    const char *name;               ///< "ground", "sphere", "box" or "torus"
    const sr_mesh *mesh;            ///< object space, with normals and uvs
    sr_mat4 model;                  ///< object to world
    sr_aabb world_bounds;           ///< box of the transformed vertices
    const struct sr_shader *shader; ///< the built-in program it is drawn with (lambert or textured)
    sr_vec3 albedo;
    uint32_t first_primitive_id; ///< its triangles have ids first .. first + triangle_count - 1
} sr_demo_object;

/// The built-in demo scene, made in code (no files): a checker-textured ground plane (y = 0)
/// with a lambert sphere, a textured box and a lambert torus standing on it, lit by the default
/// light of softrast/shaders.h, seen by a camera that shows all of them for any aspect ratio
/// from 1:2 to 3:1.
typedef struct sr_demo_scene sr_demo_scene;

/// Builds the demo scene. Free with sr_demo_scene_destroy. Errors: out of memory.
sr_status sr_demo_scene_create(sr_demo_scene **out, sr_error *err);
void sr_demo_scene_destroy(sr_demo_scene *scene);

/// Number of objects, and object `index` (NULL outside [0, count)). Object order is draw order
/// and primitive id order: ground, sphere, box, torus.
size_t sr_demo_scene_object_count(const sr_demo_scene *scene);
const sr_demo_object *sr_demo_scene_object(const sr_demo_scene *scene, size_t index);
/// Total number of triangles of all objects.
size_t sr_demo_scene_triangle_count(const sr_demo_scene *scene);

/// The scene's camera for a `width` x `height` target: world-to-view and view-to-clip matrices
/// (eye (0, 2, 4.6) looking at (0, 0.35, 0), vertical field of view 45 degrees, near 0.1, far 100).
void sr_demo_scene_camera(const sr_demo_scene *scene, int width, int height, sr_mat4 *view, sr_mat4 *projection);

/// Clears `fb` (colour to the background (0.1, 0.1, 0.1), depth to 1, ids to SR_NO_ID) and draws
/// every object with depth test LESS and no culling. With an id buffer, a pixel's id is its
/// object's first_primitive_id plus the triangle index within the object's mesh. The scene is
/// only read, so several threads may render it at once with their own renderers and
/// framebuffers. Errors: NULL arguments, and those of sr_draw_triangles.
sr_status sr_demo_scene_render(const sr_demo_scene *scene, sr_renderer *renderer, sr_framebuffer *fb, sr_error *err);

#ifdef __cplusplus
}
#endif
#endif
