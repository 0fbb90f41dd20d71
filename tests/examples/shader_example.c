/* shader_example.c — a shader program of your own (toon shading in three bands) drawing a
 * generated torus with the mesh-level API: no scene, your vertices, your draw call.
 * The README shows the program's two functions; the test suite builds and runs this file
 * (meson test shader_example).
 *   cc shader_example.c $(pkg-config --cflags --libs softrast) -o shader_example && ./shader_example out.png */
#include <softrast/softrast.h>

#include <math.h>
#include <stdio.h>

typedef struct toon_uniforms {
    sr_mat4 model_view_projection;
    sr_vec3 light; ///< unit vector towards the light, in the mesh's space
    float color[3];
} toon_uniforms;

/* The vertex function: one vertex in (here the built-in layout, sr_shader_vertex), its clip-space
 * position and its varyings out; varying i is interpolated perspective-correctly. */
static void toon_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const sr_shader_vertex *v = vertex;
    const toon_uniforms *u = uniforms;
    sr_vec4 p = sr_mat4_mul_vec4(u->model_view_projection, sr_vec4_from_vec3(v->position, 1.0f));
    clip[0] = p.x;
    clip[1] = p.y;
    clip[2] = p.z;
    clip[3] = p.w;
    varyings[0] = v->normal.x; // the normal, in the mesh's space
    varyings[1] = v->normal.y;
    varyings[2] = v->normal.z;
}

/* The fragment function in block form: the 8 fragments of a 4x2 block, one per lane, in
 * structure-of-arrays form (in->varyings[i][lane]). Written as loops over the lanes, it
 * vectorises. A lane's colour may depend only on that lane's inputs and the uniforms. */
static uint32_t toon_block(const sr_fragment_block_in *in, const void *uniforms, sr_fragment_block_out *out)
{
    const toon_uniforms *u = uniforms;
    for (int k = 0; k < SR_BLOCK_LANES; k++) {
        float x = in->varyings[0][k], y = in->varyings[1][k], z = in->varyings[2][k];
        float n_dot_l = (x * u->light.x + y * u->light.y + z * u->light.z) / sqrtf(x * x + y * y + z * z);
        float band = n_dot_l > 0.8f ? 1.0f : n_dot_l > 0.35f ? 0.6f : 0.3f;
        for (int c = 0; c < 3; c++)
            out->color[c][k] = u->color[c] * band;
    }
    return in->mask; // the lanes to keep: clear a lane's bit to discard its fragment
}

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "toon.png";
    sr_error err = {0};
    sr_mesh *torus = NULL;
    sr_shader_vertex *vertices = NULL;
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    if (sr_mesh_create_torus(0.8f, 0.3f, 48, 24, &torus, &err) ||
        sr_mesh_create_shader_vertices(torus, NULL, &vertices, &err) ||
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = 480, .height = 270}, &fb, &err) ||
        sr_renderer_create(NULL, &renderer, &err))
        goto done;

    sr_camera camera = {.eye = {0, 1.8f, 2.6f}, .target = {0, 0, 0}};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, fb->width, fb->height, &view, &projection);
    toon_uniforms uniforms = {.model_view_projection = sr_mat4_mul(projection, view),
                              .light = sr_vec3_normalize(sr_vec3_make(-0.6f, 0.7f, 0.5f)),
                              .color = {0.2f, 0.6f, 1.0f}};
    sr_program program = {.name = "toon",
                          .vertex = toon_vertex,
                          .fragment_block = toon_block,
                          .varying_count = 3,
                          .uniforms = &uniforms,
                          .vertex_size = sizeof(sr_shader_vertex)};
    sr_renderer_clear(renderer, fb, sr_rgba8(0.1f, 0.1f, 0.1f, 1), 1.0f);
    if (sr_draw_triangles(renderer, fb,
                          &(sr_draw_desc){.vertices = vertices,
                                          .vertex_count = torus->vertex_count,
                                          .vertex_stride = sizeof(sr_shader_vertex),
                                          .indices = torus->indices,
                                          .index_count = 3 * torus->triangle_count,
                                          .program = &program,
                                          .state = {.cull = SR_CULL_BACK}},
                          &err) ||
        sr_framebuffer_save(fb, out, &err))
        goto done;
    sr_raster_stats stats = sr_renderer_stats(renderer);
    printf("%s: %llu triangles drawn, %llu fragments shaded\n", out, (unsigned long long)stats.triangles_rasterized,
           (unsigned long long)stats.fragments_shaded);

done:
    if (err.status != SR_OK)
        fprintf(stderr, "shader_example: %s\n", err.message);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_free(vertices);
    sr_mesh_destroy(torus);
    return err.status == SR_OK ? 0 : 1;
}
