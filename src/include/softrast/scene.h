/* softrast/scene.h — meshes (OBJ/MTL loading, generated shapes, normalisation, vertex normals),
 * cameras, scenes (nodes, materials, the instance tree, culling, drawing, picking), scene files
 * and the built-in demo scene; collision shapes on nodes and the collision pass are
 * softrast/scene_collide.h, which this header includes. Knows nothing of SDL. */
#ifndef SOFTRAST_SCENE_H
#define SOFTRAST_SCENE_H

#include <softrast/bvh.h>
#include <softrast/bvh_dynamic.h>
#include <softrast/collide.h>
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
    /// Optional: told how much of the text has been read ("reading NAME"; fraction 0 at the
    /// start, then every 4 MiB, 1 when the text is read); false from it stops the load with
    /// SR_ERROR_CANCELLED.
    sr_progress_fn progress;
    void *user;         ///< passed to `warning`, `read_mtl` and `progress`
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

/// Area-weighted vertex normals (the README's benchmark scene): each face adds (b - a) x (c - a) to its
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
/* Meshes for the built-in shaders (src/scene/mesh.c), the benchmark scene's helpers (demo.c)     */

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

/// The benchmark scene's camera for a `width` x `height` image: eye (0, 0, 3) looking at the origin,
/// up +Y, vertical field of view 45 degrees, aspect width / height, near 0.1, far 100.
void sr_bench_scene_camera(int width, int height, sr_mat4 *view, sr_mat4 *projection);
/// The benchmark scene's primary rays of a `width` x `height` image into rays[width * height], rows
/// top first: from the eye through the unprojected pixel centre on the near plane, unit-length
/// directions, tmin 0, tmax infinity. Writes nothing when rays is NULL or a size is not positive.
void sr_bench_scene_primary_rays(int width, int height, sr_ray *rays);
/// The benchmark scene's mesh: loads the OBJ at `path`, normalises it (box centre at the origin,
/// largest extent 2) and computes area-weighted vertex normals. Free with sr_mesh_destroy.
/// Errors: those of sr_mesh_load_obj and sr_mesh_compute_normals.
sr_status sr_bench_scene_load_mesh(const char *path, sr_mesh **out, sr_error *err);
/// The benchmark scene's background colour (0.1, 0.1, 0.1), opaque, as an sr_rgba8 value.
#define SR_BENCH_SCENE_BACKGROUND 0xff1a1a1au

/* ------------------------------------------------------------------------------------------ */
/* Cameras (src/scene/camera.c)                                                                */

typedef enum sr_projection {
    SR_PROJECTION_PERSPECTIVE = 0,
    SR_PROJECTION_ORTHOGRAPHIC,
} sr_projection;

/// A look-at camera. Zero fields take their defaults (sr_camera_resolve): up (0, 1, 0), field of
/// view 45 degrees, near 0.1, far 100, orthographic height 2 world units. The aspect ratio is the
/// image's (width / height), given wherever the camera is turned into matrices or rays.
typedef struct sr_camera {
    sr_vec3 eye;    ///< world position of the camera
    sr_vec3 target; ///< the point it looks at (must differ from eye)
    sr_vec3 up;     ///< world up; must not be parallel to target - eye
    sr_projection projection;
    float fov_y_degrees; ///< perspective: vertical field of view, in (0, 180)
    float height;        ///< orthographic: visible height in world units, > 0
    float near_z, far_z; ///< distances of the clip planes along the view direction, 0 < near < far
} sr_camera;

/// A perspective camera at `eye` looking at `target`, every other field zero (its default): the
/// same in C and C++ (`sr_camera camera = sr_camera_look_at(sr_vec3_make(0, 2, 5), target);`).
static inline sr_camera sr_camera_look_at(sr_vec3 eye, sr_vec3 target)
{
    sr_camera camera = SR_ZERO_INIT;
    camera.eye = eye;
    camera.target = target;
    return camera;
}
/// The camera with every zero field replaced by its default.
sr_camera sr_camera_resolve(const sr_camera *camera);
/// Checks a camera (after sr_camera_resolve): finite values, eye != target, up not parallel to
/// the view direction, fov in (0, 180), 0 < near < far, height > 0. The message names the field.
sr_status sr_camera_check(const sr_camera *camera, sr_error *err);
/// World-to-view and view-to-clip matrices for a `width` x `height` image (either output may be
/// NULL). Right-handed, looking down -Z, zero-to-one depth (DESIGN.md). The camera is resolved
/// first; an invalid camera gives identity matrices (check it with sr_camera_check).
void sr_camera_matrices(const sr_camera *camera, int width, int height, sr_mat4 *view, sr_mat4 *projection);
/// The world ray through window point (x, y) of a `width` x `height` image, in the pixel
/// convention of the rasteriser: pixel (i, j) covers [i, i + 1) x [j, j + 1), its centre is
/// (i + 0.5, j + 0.5), y grows downwards. The direction has unit length, so t is a distance in
/// world units: from the eye for perspective cameras, from the eye's plane for orthographic ones
/// (the origin is then the point of that plane under (x, y)). tmin and tmax are the distances
/// to the near and far planes along this ray, so the ray sees exactly the depth range the
/// rasteriser keeps. Computed in double from the camera's basis. Invalid cameras or sizes give
/// a poisoned ray (tmin = tmax = NaN) that hits nothing.
sr_ray sr_camera_ray(const sr_camera *camera, int width, int height, float x, float y);
/// Parses "eye=X,Y,Z:target=X,Y,Z[:up=X,Y,Z][:fov=DEG][:near=N][:far=F][:ortho=HEIGHT]" (the
/// --camera option of the command-line tools) over `base` (fields not named keep their value).
/// Errors name the key and what was wrong; *camera is unchanged then.
sr_status sr_camera_parse(const char *text, const sr_camera *base, sr_camera *camera, sr_error *err);
/// The benchmark scene's camera: eye (0, 0, 3) looking at the origin, fov 45, near 0.1, far 100.
sr_camera sr_bench_camera(void);

/// An orbit around a target (the viewer's camera): the eye at `distance` from `target`, at
/// azimuth `yaw_degrees` around the up axis and elevation `pitch_degrees` (positive: above).
/// With up +Y, yaw 0 puts the eye on the target's +Z side and yaw 90 on its +X side. Another up
/// turns that frame by the shortest rotation taking +Y to it: with up +Z (Blender's, CAD's),
/// yaw 0 is the -Y side (Blender's front view) and yaw 90 the +X side.
typedef struct sr_orbit {
    sr_vec3 target;
    float distance;      ///< > 0
    float yaw_degrees;
    float pitch_degrees; ///< kept within [-SR_ORBIT_MAX_PITCH, SR_ORBIT_MAX_PITCH]
    sr_vec3 up;          ///< the world's up, the camera's up; zero: +Y
} sr_orbit;

/// Steepest elevation of an orbit, so that the view direction never meets the up vector.
#define SR_ORBIT_MAX_PITCH 89.0f

/// The orbit of a camera's eye around its target, about the camera's up (normalised; the pitch
/// is clamped).
sr_orbit sr_orbit_from_camera(const sr_camera *camera);
/// `base` (projection, field of view, clip planes) with the orbit's eye, target and up.
sr_camera sr_orbit_camera(const sr_orbit *orbit, const sr_camera *base);
/// Turns the eye around the target by the given angles (pitch clamped, yaw wrapped to [0, 360)).
void sr_orbit_rotate(sr_orbit *orbit, float yaw_degrees, float pitch_degrees);
/// Moves target and eye together so that the point at the target's depth follows the cursor by
/// (dx, dy) pixels of a `width` x `height` image seen through `base`'s projection.
void sr_orbit_pan(sr_orbit *orbit, const sr_camera *base, int width, int height, float dx, float dy);
/// Scales the distance by `factor` (> 0; < 1 comes closer) about `towards` (NULL: the target):
/// eye and target move towards that point, so a point under the cursor stays under it.
void sr_orbit_zoom(sr_orbit *orbit, float factor, const sr_vec3 *towards);
/// Aims at the box's centre from a distance at which its bounding sphere fits the view of
/// `base` for an image of the given aspect (width / height), keeping yaw and pitch: the sphere
/// touches the narrower pair of frustum planes (the vertical ones when aspect < 1, as VTK's
/// ResetCamera does), with 5% to spare.
void sr_orbit_frame(sr_orbit *orbit, sr_aabb box, const sr_camera *base, float aspect);

/// The azimuth and elevation of the camera a model is first seen from (sr_camera_fit_box): a
/// three-quarter view from the front right and above, as model viewers open a model (Blender's
/// default view looks from about 45 degrees around and 26 above), so that a box shows three
/// faces and no face is seen edge-on.
#define SR_FIT_YAW_DEGREES 35.0f
#define SR_FIT_PITCH_DEGREES 25.0f

/// The camera a model viewer opens a model with (f3d, MeshLab, Blender's "frame all"): looking
/// at the box's centre from the three-quarter view (SR_FIT_YAW_DEGREES, SR_FIT_PITCH_DEGREES)
/// about `up` (zero: +Y; normalised), fov_y 45 degrees, from the distance at which the box's
/// bounding sphere fits an image of `aspect` (width / height; 0 or not finite: 1, which fits any
/// wider image too) as sr_orbit_frame fits it. Near and far are 0.1 and 100 unless the box needs
/// more: far at least ten times past the sphere, near at most half-way to it (and at least far /
/// 1e6). An empty or non-finite box is taken as [-1, 1]^3.
sr_camera sr_camera_fit_box(sr_aabb box, sr_vec3 up, float aspect);

/* ------------------------------------------------------------------------------------------ */
/* Scenes: meshes, materials, a node hierarchy, an instance BVH, culling, drawing, picking     */
/* (src/scene/scene.c, scene_update.c, scene_render.c, scene_pick.c)                           */

/// A scene: meshes (each with its triangle BVH, built once), textures, materials, a hierarchy
/// of nodes (local transforms, world transforms and world boxes kept up to date by
/// sr_scene_update), an instance BVH over the nodes that have a mesh (a dynamic tree, so moving
/// a node is cheap), a camera, a directional light and a background colour.
/// Thread-safety: functions taking `const sr_scene *` (picks, culling, reads) may run
/// concurrently with each other; anything that changes the scene, sr_scene_update and
/// sr_scene_render need exclusive access, with one exception: once sr_scene_update has brought
/// the scene up to date, the collision pass (sr_scene_collide, softrast/scene_collide.h) may run
/// on one thread while sr_scene_render draws it on another (the render then only reads the
/// scene; the pass reads the nodes and writes only its own collision state).
/// No global state: several scenes may live at once.
typedef struct sr_scene sr_scene;

/// Handle of a node: slot index + generation (never 0 for a live node). A handle becomes stale
/// when its node is removed; every function taking one detects stale, zeroed and out-of-range
/// handles and reports an error instead of touching memory. The zero handle (SR_NODE_NULL) is
/// never valid; as a parent it means "at the top level". `index` is the node's number in id
/// buffers and pick results.
typedef struct sr_node_id {
    uint32_t index;
    uint32_t generation;
} sr_node_id;
#define SR_NODE_NULL (SR_LITERAL(sr_node_id){0, 0})

/// Meshes, textures and materials live as long as the scene: their handles are 1-based indices
/// (0 means "none" or "default"), never reused.
typedef struct sr_mesh_id {
    uint32_t id;
} sr_mesh_id;
typedef struct sr_texture_id {
    uint32_t id;
} sr_texture_id;
typedef struct sr_material_id {
    uint32_t id;
} sr_material_id;

/// A local transform: scale first, then rotation, then translation (M = T * R * S). Zero
/// rotation (all four components 0) means the identity, zero scale (all three 0) means
/// (1, 1, 1), so a zeroed transform is the identity. Non-uniform scale is allowed; a scale
/// component of 0 (with another non-zero) is refused, since a flat node cannot be picked.
typedef struct sr_transform {
    sr_vec3 translation;
    sr_quat rotation; ///< normalised when used
    sr_vec3 scale;
} sr_transform;

/// The identity transform written out: rotation (0, 0, 0, 1), scale (1, 1, 1).
sr_transform sr_transform_identity(void);
/// T * R * S of the transform (defaults applied, rotation normalised).
sr_mat4 sr_transform_matrix(sr_transform transform);
/// Rotation from Euler angles in degrees, applied in the order X, then Y, then Z (R = Rz Ry Rx).
sr_quat sr_quat_from_euler_degrees(sr_vec3 degrees);

typedef struct sr_scene_desc {
    const char *name; ///< shown by tools; copied; NULL = "scene"
    /// Fat-box margin of the instance tree in world units (sr_dynamic_tree_desc.margin): nodes
    /// moving less than this do not touch the tree. 0 = 0.1.
    float instance_margin;
    /// Fat-box margin of the shape tree, the collision pass's broadphase (sr_scene_shape_tree), in
    /// world units: shapes moving less than this do not touch the tree. 0 = 0.1.
    float shape_margin;
} sr_scene_desc;

/// Creates an empty scene: no nodes, the benchmark scene's camera, light and background. `desc` may
/// be NULL. Free with sr_scene_destroy.
sr_status sr_scene_create(const sr_scene_desc *desc, sr_scene **out, sr_error *err);
/// Frees the scene with every mesh, texture, material and node it owns (NULL is fine).
void sr_scene_destroy(sr_scene *scene);
/// The scene's name (never NULL; valid while the scene lives).
const char *sr_scene_name(const sr_scene *scene);

/* ---- settings ---- */

/// Where a light's direction is given.
typedef enum sr_light_space {
    SR_LIGHT_WORLD = 0, ///< fixed in the world (the benchmark scene's light)
    /// in the view camera's space (x right, y up, z towards the viewer): the light turns with
    /// the camera, a headlight, so the side the camera sees is always lit
    SR_LIGHT_CAMERA,
} sr_light_space;

/// The directional light of the lambert-family shaders.
typedef struct sr_light {
    sr_vec3 direction; ///< from the surface towards the light, in `space`; normalised when set
    float ambient;     ///< colour = base * (ambient + diffuse * max(0, N.L))
    float diffuse;
    sr_light_space space;
    /// Surfaces seen from behind are lit as fronts (sr_shader_uniforms.two_sided): sheets and
    /// the insides of open meshes are not left dark.
    bool two_sided;
} sr_light;

/// The light of the model view (sr_scene_set_model_view): the benchmark scene's direction (0.3,
/// 0.5, 1) normalised, ambient 0.2 and diffuse 0.8, but held in camera space (slightly above,
/// to the right of and behind the eye) and two-sided.
sr_light sr_light_headlight(void);
/// The light's direction in world space for a view through `camera` (SR_LIGHT_CAMERA: turned
/// with the camera's basis; SR_LIGHT_WORLD: as it is), unit length.
sr_vec3 sr_light_world_direction(const sr_light *light, const sr_camera *camera);

void sr_scene_set_camera(sr_scene *scene, const sr_camera *camera);
sr_camera sr_scene_camera(const sr_scene *scene);
/// Errors: a zero or non-finite direction, non-finite factors.
sr_status sr_scene_set_light(sr_scene *scene, sr_light light, sr_error *err);
sr_light sr_scene_light(const sr_scene *scene);
/// Background colour (sr_rgba8) the frame is cleared to.
void sr_scene_set_background(sr_scene *scene, uint32_t rgba);
uint32_t sr_scene_background(const sr_scene *scene);

/// Reports the BVH build of every later sr_scene_add_mesh to `progress` (NULL: stop reporting):
/// stage "building the BVH of mesh 'NAME'", fraction 0 before the build and 1 after it; false
/// from the callback makes that sr_scene_add_mesh fail with SR_ERROR_CANCELLED (the mesh is
/// freed). sr_scene_load sets it while it loads and clears it before it returns.
void sr_scene_set_progress(sr_scene *scene, sr_progress_fn progress, void *user);

/* ---- meshes, textures, materials ---- */

/// Adds a mesh. The scene takes ownership of `mesh` in every case (on failure it is freed at
/// once), computes its vertex normals if it has none, builds its triangle BVH and the vertex
/// array the shaders read. OBJ materials of the mesh (sr_mesh.materials, with their textures)
/// become scene materials used by the mesh's parts. `name` is copied (NULL = "mesh N").
/// Errors: NULL scene or mesh, an index out of range, out of memory.
sr_status sr_scene_add_mesh(sr_scene *scene, sr_mesh *mesh, const char *name, sr_mesh_id *out, sr_error *err);
/// The mesh (NULL for a bad id). Read-only; valid while the scene lives.
const sr_mesh *sr_scene_mesh(const sr_scene *scene, sr_mesh_id mesh);
/// The mesh's triangle BVH in mesh space (for the debug renderer; NULL for a bad id).
const sr_bvh *sr_scene_mesh_bvh(const sr_scene *scene, sr_mesh_id mesh);
const char *sr_scene_mesh_name(const sr_scene *scene, sr_mesh_id mesh);
size_t sr_scene_mesh_count(const sr_scene *scene);
/// The parts a mesh is drawn in: its sr_mesh.parts, or one part of every triangle for a mesh
/// without (0 for a bad id). A recorder reads and a player sets which scene material each uses.
size_t sr_scene_mesh_part_count(const sr_scene *scene, sr_mesh_id mesh);
/// The scene material part `part` of the mesh is drawn with (its OBJ material as
/// sr_scene_add_mesh imported it, or 0: the default material); 0 for a bad id or part.
sr_material_id sr_scene_mesh_part_material(const sr_scene *scene, sr_mesh_id mesh, size_t part);
/// Draws part `part` of the mesh with `material` (0: the default material) from now on.
/// Errors: a bad mesh id, part or material id.
sr_status sr_scene_set_mesh_part_material(sr_scene *scene, sr_mesh_id mesh, size_t part, sr_material_id material,
                                          sr_error *err);

/// Adds a texture; the scene takes ownership of `texture` in every case.
sr_status sr_scene_add_texture(sr_scene *scene, sr_texture *texture, const char *name, sr_texture_id *out,
                               sr_error *err);
const sr_texture *sr_scene_texture(const sr_scene *scene, sr_texture_id texture);

/// How a material is drawn. Zero fields are defaults.
typedef struct sr_material_desc {
    const char *name;               ///< copied; NULL = "material N"
    const struct sr_shader *shader; ///< NULL: textured when a texture is set, else lambert
    /// RGB albedo and opacity (alpha). All four zero means the default (0.8, 0.8, 0.8, 1), the
    /// albedo of the README's benchmark scene. Opacity below 1 draws the material blended, after the opaque
    /// ones, instances far to near; a two-sided one (cull none) in two passes, back faces then
    /// front faces, both writing depth, so the nearest surface keeps the depth and the id.
    sr_vec4 base_color;
    sr_texture_id texture; ///< 0 = none (the texel is white)
    sr_sampler sampler;
    sr_cull_mode cull; ///< SR_CULL_NONE by default: scanned meshes are not consistently wound
} sr_material_desc;

/// Adds a material. Errors: a bad texture id or shader, non-finite or out-of-range colour.
sr_status sr_scene_add_material(sr_scene *scene, const sr_material_desc *desc, sr_material_id *out, sr_error *err);
/// The material's description (name and pointers valid while the scene lives); the default
/// material for id 0 or a bad id.
sr_material_desc sr_scene_material(const sr_scene *scene, sr_material_id material);
/// The material called `name` (first added wins), or id 0.
sr_material_id sr_scene_find_material(const sr_scene *scene, const char *name);

/* ---- nodes ---- */

struct sr_node_shape_desc;

typedef struct sr_node_desc {
    const char *name;      ///< copied; NULL = ""
    sr_node_id parent;     ///< SR_NODE_NULL: a top-level node
    sr_transform transform; ///< local, relative to the parent
    sr_mesh_id mesh;       ///< 0: a node without geometry (a group or a pivot)
    /// 0: the mesh's own materials (from its OBJ file), or the default material where it has
    /// none; otherwise this material for every triangle of the mesh.
    sr_material_id material;
    bool hidden; ///< not drawn, not picked (its children are unaffected)
    /// A collision shape for the node (sr_scene_set_node_shape), or NULL. Not kept.
    const struct sr_node_shape_desc *shape;
} sr_node_desc;

/// Adds a node (the last child of its parent). Errors: a stale parent, bad mesh or material
/// id, a transform with non-finite values or a zero scale component, a shape refused by
/// sr_scene_set_node_shape (the node is then not added), out of memory.
sr_status sr_scene_add_node(sr_scene *scene, const sr_node_desc *desc, sr_node_id *out, sr_error *err);
/// Removes the node and its whole subtree; their handles become stale.
sr_status sr_scene_remove_node(sr_scene *scene, sr_node_id node, sr_error *err);
bool sr_scene_node_is_valid(const sr_scene *scene, sr_node_id node);
/// Sets the local transform; world transforms and boxes follow at the next sr_scene_update.
/// Errors: a stale node, non-finite values, a zero scale component, a scale other than 1 on a
/// node that has a shape or has one below it (shapes take no scale).
sr_status sr_scene_set_transform(sr_scene *scene, sr_node_id node, sr_transform transform, sr_error *err);
sr_status sr_scene_set_hidden(sr_scene *scene, sr_node_id node, bool hidden, sr_error *err);
sr_status sr_scene_set_node_material(sr_scene *scene, sr_node_id node, sr_material_id material, sr_error *err);

/// What the scene knows of a node. Pointers are valid until the node is removed; world values
/// are those of the last sr_scene_update.
typedef struct sr_node_info {
    const char *name;
    sr_node_id parent;      ///< SR_NODE_NULL for top-level nodes
    sr_transform transform; ///< local
    sr_mat4 world;          ///< object to world
    /// Box of the node's own mesh in world space (the mesh's box mapped by `world`, Arvo's
    /// method), merged with the box of its shape's wire when the shape is drawn as a wire over a
    /// mesh; empty for nodes that draw nothing. This is the box culling tests.
    sr_aabb world_aabb;
    sr_aabb subtree_aabb; ///< union of world_aabb over the node and its descendants
    /// The mesh drawn and picked: the node's own, or for a node with a shape and no mesh of its
    /// own, the mesh the scene made from the shape (sr_node_shape.mesh); 0 for none.
    sr_mesh_id mesh;
    sr_material_id material;
    bool hidden;
    bool has_shape; ///< the node carries a collision shape (sr_scene_node_shape)
    int depth;      ///< 0 for top-level nodes
    /// Which shape the node carries, as a number that changes whenever its shape is given,
    /// replaced or removed (sr_scene_set_node_shape, sr_node_desc.shape) and only then: 0 for a
    /// node never given one; otherwise a value this scene never gave before (to this node or any
    /// other). The same node handle with the same value has the same shape, sizes, hull and draw
    /// mode, so a program that mirrors shapes (the recorder) compares this number, not the shape.
    uint64_t shape_version;
} sr_node_info;

sr_status sr_scene_node(const sr_scene *scene, sr_node_id node, sr_node_info *out, sr_error *err);
/// Number of node slots (live or free); valid indices are below it.
uint32_t sr_scene_node_slots(const sr_scene *scene);
/// The live node in slot `index`, or SR_NODE_NULL (free slot or out of range).
sr_node_id sr_scene_node_at(const sr_scene *scene, uint32_t index);
/// Live nodes.
uint32_t sr_scene_node_count(const sr_scene *scene);
/// The first live node (in slot order) called `name`, or SR_NODE_NULL.
sr_node_id sr_scene_find_node(const sr_scene *scene, const char *name);
/// First child and next sibling in child order (SR_NODE_NULL at the end); a NULL `node` for
/// sr_scene_first_child gives the first top-level node.
sr_node_id sr_scene_first_child(const sr_scene *scene, sr_node_id node);
sr_node_id sr_scene_next_sibling(const sr_scene *scene, sr_node_id node);

/// Sizes of a scene (computed on demand, O(nodes)).
typedef struct sr_scene_totals {
    uint32_t meshes, textures, materials, nodes;
    uint32_t instances;           ///< nodes with a mesh, hidden or not
    uint64_t mesh_triangles;      ///< triangles of all meshes, each counted once
    uint64_t instance_triangles;  ///< triangles of all instances (what drawing everything submits)
    uint64_t bvh_nodes;           ///< nodes of all mesh BVHs
    double bvh_build_ms;          ///< time spent building the mesh BVHs (in sr_scene_add_mesh)
    uint32_t shapes;              ///< nodes with a collision shape
    uint32_t shape_meshes;        ///< meshes the scene made to draw shapes (counted in `meshes`)
} sr_scene_totals;
sr_scene_totals sr_scene_get_totals(const sr_scene *scene);

/// The instance tree over the world boxes of the nodes that have a mesh (user data: the node's
/// slot index). Read-only, for queries and the debug renderer; current after sr_scene_update.
const sr_dynamic_tree *sr_scene_instance_tree(const sr_scene *scene);

/// The union of the world boxes of the instances that are drawn (nodes with a mesh, not
/// hidden), as of the last sr_scene_update; empty when there are none.
sr_aabb sr_scene_bounds(const sr_scene *scene);

/// What sr_scene_set_model_view makes the view for. Zero fields take their defaults.
typedef struct sr_model_view_desc {
    sr_vec3 up;   ///< the world's up (zero: +Y); +Z for Z-up files
    float aspect; ///< width / height of the images it is for (0: 1, which fits any wider image)
} sr_model_view_desc;

/// Shows the scene as a model viewer opens a model (f3d, MeshLab, Blender's "frame all"):
/// updates it, sets its camera to sr_camera_fit_box of sr_scene_bounds (a three-quarter view
/// fitting everything drawn), its light to sr_light_headlight (a two-sided light that turns
/// with the camera, so no side the camera sees is dark), and gives every node that draws a mesh
/// with vertex colours and no material of its own or of its file a material of those colours
/// lit by the light (shader vertex_color_lit, albedo white), so the colours appear. `desc` may
/// be NULL. Errors: NULL scene, a non-finite up, those of sr_scene_update and
/// sr_scene_add_material.
sr_status sr_scene_set_model_view(sr_scene *scene, const sr_model_view_desc *desc, sr_error *err);

/* ---- update ---- */

/// What an update did.
typedef struct sr_scene_update_stats {
    uint32_t transforms_updated; ///< nodes whose world transform was recomputed
    uint32_t bounds_updated;     ///< nodes whose world or subtree box was recomputed
    uint32_t proxies_moved;      ///< instance-tree proxies that had to be reinserted
    double ms;
} sr_scene_update_stats;

/// Brings world transforms (top-down) and boxes (bottom-up) up to date where something changed
/// since the last update, and moves the instance tree's proxies: a moved node recomputes its
/// subtree's transforms and boxes and its ancestors' subtree boxes, nothing else. `stats` may
/// be NULL. Errors: out of memory (the scene stays consistent but not updated).
sr_status sr_scene_update(sr_scene *scene, sr_scene_update_stats *stats, sr_error *err);
/// True when edits wait for sr_scene_update (picks and culling then refuse to run).
bool sr_scene_needs_update(const sr_scene *scene);

/* ---- culling and drawing ---- */

/// Per-frame results kept between frames by the caller: the instances found visible and those
/// culled, the table that maps id-buffer values to (node, triangle), and the statistics.
/// Its arrays grow between frames (never shrink), so a frame of the same scene allocates
/// nothing. Free with sr_scene_frame_destroy.
typedef struct sr_scene_frame sr_scene_frame;
sr_status sr_scene_frame_create(sr_scene_frame **out, sr_error *err);
void sr_scene_frame_destroy(sr_scene_frame *frame);

/// Statistics of one frame (sr_scene_render).
typedef struct sr_scene_stats {
    uint32_t instances_total;  ///< nodes with a mesh that are not hidden
    uint32_t instances_culled; ///< outside the culling camera's frustum
    uint32_t instances_drawn;
    uint64_t triangles_submitted;
    uint64_t triangles_backface_culled; ///< removed by a material's face culling
    uint64_t triangles_clipped;         ///< that went through homogeneous clipping
    uint64_t triangles_drawn;           ///< rasterised (covering at least one pixel centre)
    uint64_t fragments_shaded;
    uint32_t draw_calls;
    double update_ms, cull_ms, draw_ms;
} sr_scene_stats;

typedef struct sr_scene_render_desc {
    const sr_camera *camera;      ///< NULL: the scene's camera
    const sr_camera *cull_camera; ///< NULL: `camera`; another one shows its culling from `camera`
    bool no_culling;              ///< draw every instance (the image is the same, only slower)
    bool no_clear;                ///< keep the framebuffer's contents (no clear to the background)
    const struct sr_shader *shader; ///< NULL: the materials' shaders; else this one for everything
    const struct sr_texture *fallback_texture; ///< texture for `shader` where a material has none
} sr_scene_render_desc;

/// Updates the scene (sr_scene_update), culls its instances against the culling camera's
/// frustum through the instance tree (an instance is drawn when sr_frustum_test_aabb of its
/// world_aabb is not SR_OUTSIDE), and draws the visible ones with their materials into `fb`:
/// opaque materials in node order, then blended ones far to near. Culling never changes the
/// picture: it only skips instances that would draw no pixel. With an id buffer, each pixel's
/// id maps to (node, triangle) through the frame (sr_scene_frame_decode_id). `desc` may be
/// NULL; `frame` may be NULL (the results are then dropped). Errors: bad camera, those of
/// sr_draw_triangles, out of memory.
sr_status sr_scene_render(sr_scene *scene, const sr_scene_render_desc *desc, sr_renderer *renderer,
                          sr_framebuffer *fb, sr_scene_frame *frame, sr_error *err);

/// Only the culling of sr_scene_render for `camera` and a `width` x `height` image: fills the
/// frame's visible and culled lists (and the instance counts of its statistics).
sr_status sr_scene_cull(const sr_scene *scene, const sr_camera *camera, int width, int height, sr_scene_frame *frame,
                        sr_error *err);

sr_scene_stats sr_scene_frame_stats(const sr_scene_frame *frame);
/// The instances drawn by the last frame (node order), and those culled; the arrays are valid
/// until the frame is used again.
size_t sr_scene_frame_visible(const sr_scene_frame *frame, const sr_node_id **nodes);
size_t sr_scene_frame_culled(const sr_scene_frame *frame, const sr_node_id **nodes);
/// Maps an id-buffer value of the last frame to the node and the triangle index within the
/// node's mesh. False (and SR_NODE_NULL, SR_NO_ID) for SR_NO_ID or an unknown value.
bool sr_scene_frame_decode_id(const sr_scene_frame *frame, uint32_t id, sr_node_id *node, uint32_t *triangle);

/* ---- picking ---- */

/// What a pick found. On a miss only `hit` (false), `ray` and the counters are meaningful.
typedef struct sr_pick_hit {
    bool hit;
    sr_node_id node;
    uint32_t triangle; ///< index in the node's mesh (file order after triangulation for OBJ)
    float t;           ///< distance along the ray in world units (the ray has unit direction)
    sr_vec3 position;  ///< world space
    sr_vec3 normal;    ///< world space, unit, geometric (of the triangle), facing the ray
    float u, v;        ///< barycentric weights of the triangle's second and third vertex
    uint32_t nodes_visited;     ///< instance-tree nodes plus mesh-BVH nodes whose box was tested
    uint32_t instances_tested;  ///< instances whose mesh BVH the ray entered
    sr_ray ray;                 ///< the world ray that was cast
} sr_pick_hit;

/// Picks through window point (x, y) of a `width` x `height` image seen by `camera` (NULL: the
/// scene's camera): the ray of sr_camera_ray, so the triangle hit through a pixel centre is the
/// one the rasteriser drew there (up to edges between touching triangles). The ray walks the
/// instance tree; each candidate instance gets the ray in its mesh space (t stays in world
/// units) and its mesh BVH's closest hit; the closest over all instances wins. Hidden nodes
/// are not picked. Errors: a scene needing an update, a bad camera or size.
sr_status sr_scene_pick(const sr_scene *scene, const sr_camera *camera, int width, int height, float x, float y,
                        sr_pick_hit *hit, sr_error *err);
/// The same for any world ray (made with sr_ray_make; t in units of its direction).
sr_status sr_scene_pick_ray(const sr_scene *scene, const sr_ray *ray, sr_pick_hit *hit, sr_error *err);
/// Many window points at once, split over `threads` threads (0 or 1: the calling thread);
/// hits[i] is the pick of points[i], the same as sr_scene_pick gives for any thread count.
sr_status sr_scene_pick_many(const sr_scene *scene, const sr_camera *camera, int width, int height,
                             const sr_vec2 *points, size_t count, int threads, sr_pick_hit *hits, sr_error *err);


/* ---- scene files (src/scene/scene_file.c) and built-in scenes ---- */

/// Receives a warning (a problem that does not stop loading: a missing texture, say) as one
/// line "file:line: what" or "file: json.path: what". The library never prints.
typedef void (*sr_warning_fn)(void *user, const char *message);

/// How sr_scene_load shows a lone mesh (.obj).
typedef enum sr_mesh_view {
    /// As a model viewer opens it: normalised as the README's benchmark scene says, then
    /// sr_scene_set_model_view (three-quarter view fitting it, headlight, vertex colours).
    SR_MESH_VIEW_MODEL = 0,
    /// The benchmark scene's canonical scene of it (sr_scene_create_from_mesh): the benchmarks' view.
    SR_MESH_VIEW_BENCH,
} sr_mesh_view;

typedef struct sr_scene_load_desc {
    /// A scene file (.json, the format of the README) or a mesh (.obj: shown as `mesh_view` says).
    const char *path;
    /// Instead of `path`: JSON text in memory (`length` bytes) named `name` in messages; paths
    /// in it are relative to the folder of `name` (NULL: the current folder).
    const char *text;
    size_t length;
    const char *name;
    sr_warning_fn warning; ///< NULL: warnings are dropped
    /// NULL, or told of the long stages (sr_progress_fn): reading each OBJ file (every 4 MiB of
    /// text, sr_obj_desc.progress) and building each mesh's BVH (sr_scene_set_progress); false
    /// from it stops the load with SR_ERROR_CANCELLED. Called on the loading thread.
    sr_progress_fn progress;
    void *user; ///< passed to `warning` and `progress`
    sr_mesh_view mesh_view;        ///< for a mesh: the model view (default) or the benchmark scene
    sr_model_view_desc model_view; ///< for a mesh shown as SR_MESH_VIEW_MODEL: up and aspect
} sr_scene_load_desc;

/// Loads a scene file or a mesh into a new scene (already updated). Errors name the file and,
/// for scene files, the JSON path of the offending value ("scene.json: nodes[3].transform.scale[1]:
/// expected a number") or the line and column of a syntax error. Free with sr_scene_destroy.
sr_status sr_scene_load(const sr_scene_load_desc *desc, sr_scene **out, sr_error *err);

/// A scene of one mesh as the README's benchmark scene sets it up (the scene takes ownership of `mesh` in every
/// case): one node called `name` (NULL: "mesh") at the origin, the benchmark scene's camera, light and
/// background; the mesh's OBJ materials where it has them, else the default lambert material
/// (albedo 0.8). The mesh is used as given: call sr_mesh_normalize first for the canonical scene
/// (sr_scene_load does for .obj files); missing normals are computed (area-weighted).
sr_status sr_scene_create_from_mesh(sr_mesh *mesh, const char *name, sr_scene **out, sr_error *err);

/// The built-in demo scene, made in code (no files; assets/scenes/demo.json is the same scene
/// as a file): a checker-textured ground plane (y = 0) with a lambert sphere, a textured box and
/// a lambert torus standing on it, seen by a camera that shows all of them for any aspect ratio
/// from 1:2 to 3:1 (eye (0, 2, 4.6) looking at (0, 0.35, 0), fov 45). Nodes, in order:
/// "ground", "sphere", "box", "torus".
sr_status sr_scene_create_demo(sr_scene **out, sr_error *err);

#ifdef __cplusplus
}
#endif

// Collision shapes on nodes, the collision pass and pairs files: softrast/scene_collide.h.
#include <softrast/scene_collide.h>

#endif
