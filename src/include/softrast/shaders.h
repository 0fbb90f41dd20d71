/* softrast/shaders.h — the catalogue of built-in shader programs (installed as
 * softrast/shaders.h): one vertex layout every program reads, one uniforms struct every program
 * shares, and a lookup by name. Each program lives in its own file under shaders/.
 * Knows raster.h (sr_program, textures) only; knows nothing of meshes, scenes or files.
 *
 * Use:
 *     sr_shader_uniforms uniforms = sr_shader_uniforms_default();
 *     sr_shader_uniforms_set_transforms(&uniforms, model, view, projection);
 *     sr_program program = sr_shader_program(sr_shader_find("lambert"), &uniforms);
 *     sr_draw_triangles(renderer, fb, &(sr_draw_desc){.vertices = vertices,
 *         .vertex_count = n, .vertex_stride = sizeof(sr_shader_vertex), ..., .program = &program}, err);
 *
 * Spaces: positions and normals of sr_shader_vertex are in object space; lighting happens in
 * world space (normals go through the normal matrix, the light direction and camera position
 * are world-space). */
#ifndef SOFTRAST_SHADERS_H
#define SOFTRAST_SHADERS_H

#include <softrast/math.h>
#include <softrast/raster.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The vertex every built-in program reads (pass sizeof(sr_shader_vertex) as the draw's stride).
/// Each program reads only the fields it needs (see sr_shader.inputs); others may hold anything.
typedef struct sr_shader_vertex {
    sr_vec3 position; ///< object space
    sr_vec3 normal;   ///< object space; need not be unit length (renormalised per fragment)
    sr_vec2 uv;       ///< texture coordinates (raster.h: u right, v down)
    float color[4];   ///< RGBA in [0, 1] (vertex_color and vertex_color_lit programs)
} sr_shader_vertex;

/// The uniforms shared by every built-in program. Start from sr_shader_uniforms_default(), set
/// the transforms with sr_shader_uniforms_set_transforms (which derives the matrices marked
/// "derived"), then change what you need. Read-only while a draw uses it, so one struct may
/// serve several threads at once.
typedef struct sr_shader_uniforms {
    /* ---- transforms ---- */
    sr_mat4 model;                 ///< object to world
    sr_mat4 view;                  ///< world to view (right-handed, camera looks down -Z)
    sr_mat4 projection;            ///< view to clip (zero-to-one depth)
    sr_mat4 model_view_projection; ///< derived: projection * view * model (object to clip)
    sr_mat4 model_view;            ///< derived: view * model (object to view; depth program)
    sr_mat4 normal_matrix;         ///< derived: inverse transpose of model's upper-left 3x3
    sr_vec3 camera_position;       ///< derived: the eye in world space (blinn_phong)

    /* ---- surface and light (lambert, blinn_phong, textured; flat uses albedo and opacity) ---- */
    sr_vec3 light_direction; ///< world space, unit length, from the surface towards the light
    sr_vec3 albedo;          ///< RGB in [0, 1]
    /// alpha written by every program except vertex_color (the vertex's alpha), triangle_id
    /// (opaque) and wireframe edges (wireframe_color's); textured multiplies it by the texel's alpha
    float opacity;
    float ambient; ///< colour = albedo * (ambient + diffuse * max(0, N.L))
    float diffuse;
    /// Two-sided lighting (the lit programs: lambert, vertex_color_lit, blinn_phong, textured,
    /// wireframe's fill): a surface seen from behind, a back-facing triangle whose interpolated
    /// world normal faces away from the viewer (negative dot product with the camera's view
    /// axis, the third row of `view`), is lit with its normal reversed, so a sheet or the inside
    /// of an open mesh is lit like a front instead of getting the ambient term only. Triangles
    /// wound the other way under normals that face the camera (common in scans) are lit as they
    /// are. Off by default (the benchmark scene's lambert is one-sided).
    bool two_sided;
    sr_vec3 specular_color; ///< blinn_phong: added specular_color * max(0, N.H)^shininess
    float shininess;        ///< blinn_phong exponent (> 0)

    /* ---- textured ---- */
    const sr_texture *texture; ///< NULL samples as opaque white; owned by the caller
    sr_sampler sampler;

    /* ---- depth ---- */
    float depth_near; ///< view distance shown white (distance along -Z, world units)
    float depth_far;  ///< view distance shown black

    /* ---- wireframe ---- */
    float wireframe_width;    ///< edge width as a fraction of the triangle's altitude, in (0, 1/3]
    float wireframe_color[4]; ///< RGBA of the edges
    bool wireframe_fill;      ///< true: interiors are shaded as lambert; false: they are discarded
} sr_shader_uniforms;

/// The defaults of the benchmark scene's lambert shading: identity transforms, light direction
/// normalize(0.3, 0.5, 1.0), albedo (0.8, 0.8, 0.8), opacity 1, ambient 0.2, diffuse 0.8;
/// specular (0.5, 0.5, 0.5) with shininess 32; no texture, nearest/repeat sampler; depth range
/// 0.1 to 100; wireframe width 0.04, opaque near-black (0.05, 0.05, 0.05, 1) edges, interiors filled.
sr_shader_uniforms sr_shader_uniforms_default(void);

/// Sets model, view and projection and recomputes every derived field (model_view_projection,
/// model_view, normal_matrix, camera_position). A singular model or view matrix gives identity
/// normal matrix / camera position at the origin rather than NaNs. NULL `uniforms`: no-op.
void sr_shader_uniforms_set_transforms(sr_shader_uniforms *uniforms, sr_mat4 model, sr_mat4 view, sr_mat4 projection);

/// Which sr_shader_vertex fields and uniforms a program reads (bit set in sr_shader.inputs).
enum {
    SR_SHADER_INPUT_NORMAL = 1u << 0,
    SR_SHADER_INPUT_UV = 1u << 1,
    SR_SHADER_INPUT_COLOR = 1u << 2,
    SR_SHADER_INPUT_TEXTURE = 1u << 3,
};

/// A built-in program: its name, a one-line summary and an sr_program whose uniforms pointer is
/// NULL (bind uniforms with sr_shader_program). Immutable; lives for the whole program.
typedef struct sr_shader {
    const char *name;
    const char *summary;
    sr_program program;
    unsigned inputs; ///< SR_SHADER_INPUT_* bits
} sr_shader;

/* ---- the programs (one file each) ---- */

/// flat: albedo and opacity, unlit. No varyings.
extern const sr_shader sr_shader_flat;
/// vertex_color: the interpolated vertex colour (RGBA), unlit. 4 varyings.
extern const sr_shader sr_shader_vertex_color;
/// vertex_color_lit: the vertex colour times albedo, lit as lambert: RGB = color * albedo *
/// (ambient + diffuse * max(0, N.L)), alpha = color alpha * opacity (how meshes with vertex
/// colours are shown). 7 varyings (normal, colour).
extern const sr_shader sr_shader_vertex_color_lit;
/// lambert: the benchmark scene's exactly, colour = albedo * (ambient + diffuse * max(0, N.L)) with N the
/// interpolated world normal renormalised, alpha = opacity. 3 varyings (the normal).
extern const sr_shader sr_shader_lambert;
/// blinn_phong: lambert plus specular_color * max(0, N.H)^shininess where H = normalize(L + V), V
/// towards camera_position; the specular term only where N.L > 0. 6 varyings (normal, position).
extern const sr_shader sr_shader_blinn_phong;
/// textured: texel(uv) * albedo * (ambient + diffuse * max(0, N.L)) in RGB, texel alpha *
/// opacity. 5 varyings (normal, uv).
extern const sr_shader sr_shader_textured;
/// normals: the renormalised world normal mapped to colour, N * 0.5 + 0.5 (zero normals give
/// grey 0.5). 3 varyings.
extern const sr_shader sr_shader_normals;
/// depth: linear view distance d (distance along the camera's -Z, interpolated exactly since it
/// is affine in object space) shown as grey 1 - (d - depth_near) / (depth_far - depth_near),
/// clamped to [0, 1]: near is white, far is black. Not the window depth, which crowds
/// everything near 1 under perspective. 1 varying.
extern const sr_shader sr_shader_depth;
/// wireframe: barycentric edges. A fragment whose smallest barycentric weight is below
/// wireframe_width is an edge (wireframe_color); others are shaded as lambert or discarded
/// (wireframe_fill). Screen-space derivatives do not exist in this pipeline, so the width is
/// constant in barycentric space: weight b_i is the distance to the edge opposite vertex i
/// divided by that edge's altitude, so lines are a fixed fraction of each triangle's size
/// (thicker on large triangles, thinner on small ones). Uses barycentrics; 3 varyings (normal).
extern const sr_shader sr_shader_wireframe;
/// triangle_id: a distinct opaque colour per primitive id (an integer hash of the id, each
/// channel in [0.25, 1] so no triangle is near-black). No varyings.
extern const sr_shader sr_shader_triangle_id;

/* ---- catalogue ---- */

/// Number of built-in programs.
size_t sr_shader_count(void);
/// Program `index` in [0, sr_shader_count()), NULL outside.
const sr_shader *sr_shader_get(size_t index);
/// The program called `name` (exact, case-sensitive), or NULL (also for NULL).
const sr_shader *sr_shader_find(const char *name);
/// All names separated by ", " in catalogue order, e.g. for --help and error messages.
const char *sr_shader_names(void);

/// A copy of shader->program with its uniforms pointer set to `uniforms` (the caller keeps
/// `uniforms` alive while the program is drawn).
sr_program sr_shader_program(const sr_shader *shader, const sr_shader_uniforms *uniforms);

/// The colour the triangle_id program gives `primitive_id` (RGB in [0.25, 1]).
void sr_shader_id_color(uint32_t primitive_id, float rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
