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
/// sr_mesh_compute_normals. Errors name the file and the line: unreadable file, not a regular
/// file (devices and pipes are refused), larger than 1 GiB, malformed number, index out of range,
/// face with fewer than 3 vertices, no triangles at all.
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

/* Shapes of revolution about the Y axis, centred on the origin. Common to all of them:
 * - `slices` (3 .. 4096) columns around the axis, azimuth phi_j = 2 pi j / slices counter-clockwise
 *   seen from +Y starting at +X (the point at phi is (rho cos phi, y, -rho sin phi)); the seam
 *   column j = slices repeats column 0's positions bit for bit, with u = 1.
 * - u = j / slices around; v = arc length along the meridian from the top (top pole, cap centre
 *   or apex: v = 0) down to the bottom (v = 1), divided by the meridian's whole length. Vertices
 *   on the axis (poles, apex, cap centres) are one per slice, exactly at x = z = 0, with
 *   u = (j + 0.5) / slices, the middle of the one triangle they belong to.
 * - Counter-clockwise seen from outside, closed and watertight: positions shared by faces are
 *   bit-identical (edges match by position even where vertices are split for their normals).
 * - Free with sr_mesh_destroy. Errors (SR_ERROR_INVALID_ARGUMENT, naming the function and the
 *   argument; *out is NULL): lengths that are not positive and finite, counts out of range;
 *   SR_ERROR_OUT_OF_MEMORY. */

/// Cylinder of `radius` from y = -height / 2 to +height / 2, `stacks` (1 .. 4096) rows of quads
/// along the side, closed by two flat caps (triangle fans). The caps have their own vertices with
/// normals (0, +-1, 0) at the very positions of the side's rim vertices, whose normals are
/// radial. v: top cap centre 0, rims at r / (h + 2 r) and (r + h) / (h + 2 r), bottom centre 1.
/// Vertices: (slices + 1) (stacks + 3) + 2 slices; triangles: 2 slices (stacks + 1).
sr_status sr_mesh_create_cylinder(float radius, float height, int slices, int stacks, sr_mesh **out, sr_error *err);
/// Capsule: a cylinder of `radius` from y = -height / 2 to +height / 2 (height >= 0; 0 gives a
/// sphere) between two hemispheres of `radius`, each of `stacks` (1 .. 4096) rows; total length
/// height + 2 radius. Smooth normals (radial from the nearer hemisphere centre, or from the axis
/// on the cylinder); the cylindrical part is one row of quads whose rim vertices are the
/// hemispheres' rim vertices (shared, not copied); the poles are at (0, +-(height / 2 + radius),
/// 0) exactly. v by arc length over pi radius + height. Also an error: height / 2 + radius not
/// finite in float. With m = 1 when height > 0 (0 when height / 2 rounds to 0 in float):
/// vertices 2 slices + (slices + 1) (2 stacks - 1 + m), triangles 4 slices stacks - 2 slices + 2 m slices.
sr_status sr_mesh_create_capsule(float radius, float height, int slices, int stacks, sr_mesh **out, sr_error *err);
/// Cone with its base disc of `radius` at y = -height / 2 and its apex at (0, +height / 2, 0),
/// `stacks` (1 .. 4096) rows of quads along the side (a fan at the apex), closed by a flat base
/// cap with normal (0, -1, 0). Side normals are the cone's smooth normals,
/// (height cos phi, radius, -height sin phi) / sqrt(height^2 + radius^2); the apex is one vertex
/// per slice with the normal at its slice's middle azimuth, all at the same position. v: apex 0,
/// base rim s / (s + r) (s the slant length), base centre 1.
/// Vertices: slices + (slices + 1) (stacks + 1) + slices; triangles: slices (2 stacks - 1) + slices.
sr_status sr_mesh_create_cone(float radius, float height, int slices, int stacks, sr_mesh **out, sr_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Meshes for the built-in shaders, and the demo scene (src/scene/demo.c)                      */

/* Declared in softrast/shaders.h (the shader catalogue); named here only through pointers so
 * that this header does not depend on where the catalogue header is installed. */
struct sr_shader;
struct sr_shader_vertex;

/// Interleaves the mesh into the vertex layout of the built-in shaders: position, normal (zero
/// when the mesh has none), uv (zero when none) and `color` (RGBA; NULL = opaque white) for
/// every vertex. `*out` holds mesh->vertex_count vertices; free it with sr_free.
/// Errors: NULL arguments, out of memory.
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
    uint32_t first_primitive_id;    ///< its triangles have ids first .. first + triangle_count - 1
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
sr_status sr_demo_scene_render(const sr_demo_scene *scene, sr_renderer *renderer, sr_framebuffer *fb,
                               sr_error *err);

#ifdef __cplusplus
}
#endif
#endif
