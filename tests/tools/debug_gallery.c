/* debug_gallery.c — renders the pictures of the debug list's primitives for the documentation
 * (docs: the engines' primitives), one PNG per panel, into a folder:
 *   debug_gallery OUT_DIR
 * writes OUT_DIR/debug_fills.png (solid polygons and triangles over a lit scene, depth-tested
 * and on top), debug_circles.png (circles with a normal, solid circles with Box2D's axis line),
 * debug_spheres.png (an oriented sphere turning in four steps, beside sr_debug_sphere),
 * debug_gradient.png (two-colour lines) and debug_dots.png (round dots of 2 to 16 pixels beside
 * sr_debug_point's crosses). Never run by `meson test`. */
#include <softrast/debug.h>
#include <softrast/shaders.h>

#include <stdio.h>
#include <stdlib.h>

enum { WIDTH = 480, HEIGHT = 300 };

typedef struct panel {
    sr_framebuffer *fb;
    sr_renderer *renderer;
    sr_mat4 view, projection;
    sr_debug_list *list;
} panel;

static bool panel_open(panel *p, sr_vec3 eye, sr_vec3 target)
{
    sr_error err = {0};
    if (sr_framebuffer_create(&(sr_framebuffer_desc){.width = WIDTH, .height = HEIGHT}, &p->fb, &err) != SR_OK ||
        sr_renderer_create(NULL, &p->renderer, &err) != SR_OK || sr_debug_list_create(NULL, &p->list, &err) != SR_OK) {
        fprintf(stderr, "debug_gallery: %s\n", err.message);
        return false;
    }
    sr_framebuffer_clear(p->fb, sr_rgba8(0.11f, 0.12f, 0.14f, 1.0f), 1.0f);
    sr_camera camera = {.eye = eye, .target = target, .fov_y_degrees = 45.0f};
    sr_camera_matrices(&camera, WIDTH, HEIGHT, &p->view, &p->projection);
    return true;
}

/* Draws the panel's list with a caption and saves it. */
static bool panel_save(panel *p, const char *folder, const char *name, const char *caption)
{
    sr_debug_text_2d(p->list, 8, 8, caption, sr_debug_style_make(SR_DEBUG_WHITE, 1, true));
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    sr_error err = {0};
    bool ok = sr_debug_draw(p->list, p->renderer, p->fb, sr_mat4_mul(p->projection, p->view), &err) == SR_OK &&
              sr_framebuffer_save(p->fb, path, &err) == SR_OK;
    if (!ok)
        fprintf(stderr, "debug_gallery: %s\n", err.message);
    else
        printf("wrote %s\n", path);
    sr_debug_list_destroy(p->list);
    sr_renderer_destroy(p->renderer);
    sr_framebuffer_destroy(p->fb);
    return ok;
}

/* A lit ground slab and a box standing on it, drawn by the pipeline (for depth and blending). */
static void draw_scene(panel *p)
{
    sr_mesh *slab = NULL, *box = NULL;
    sr_shader_vertex *vertices = NULL;
    sr_mesh_create_box(sr_vec3_make(3.0f, 0.05f, 1.6f), 1, &slab, NULL);
    sr_mesh_create_box(sr_vec3_make(0.35f, 0.5f, 0.35f), 1, &box, NULL);
    const sr_mesh *meshes[2] = {slab, box};
    const sr_mat4 models[2] = {sr_mat4_translation(sr_vec3_make(0, -0.05f, 0)),
                               sr_mat4_translation(sr_vec3_make(0.2f, 0.5f, -0.6f))};
    for (int k = 0; k < 2; k++) {
        if (!meshes[k] || sr_mesh_create_shader_vertices(meshes[k], NULL, &vertices, NULL) != SR_OK)
            continue;
        sr_shader_uniforms uniforms = sr_shader_uniforms_default();
        sr_shader_uniforms_set_transforms(&uniforms, models[k], p->view, p->projection);
        uniforms.albedo = k ? sr_vec3_make(0.55f, 0.45f, 0.35f) : sr_vec3_make(0.32f, 0.34f, 0.38f);
        sr_program program = sr_shader_program(&sr_shader_lambert, &uniforms);
        sr_draw_triangles(p->renderer, p->fb,
                          &(sr_draw_desc){.vertices = vertices,
                                          .vertex_count = meshes[k]->vertex_count,
                                          .vertex_stride = sizeof(sr_shader_vertex),
                                          .indices = meshes[k]->indices,
                                          .index_count = 3 * meshes[k]->triangle_count,
                                          .program = &program},
                          NULL);
        sr_free(vertices);
        vertices = NULL;
    }
    sr_mesh_destroy(slab);
    sr_mesh_destroy(box);
}

static bool fills(const char *folder)
{
    panel p;
    if (!panel_open(&p, sr_vec3_make(0.4f, 2.4f, 4.2f), sr_vec3_make(0.0f, 0.3f, -0.2f)))
        return false;
    draw_scene(&p);
    // A solid hexagon lying on the ground (depth-tested: the box hides part of it), a triangle
    // standing through the box (the part inside it hidden), and the same triangle on top.
    sr_vec3 hexagon[6];
    for (int i = 0; i < 6; i++) {
        float a = (float)i * SR_PI / 3.0f;
        hexagon[i] = sr_vec3_make(-1.2f + 0.8f * cosf(a), 0.0f, -0.2f + 0.8f * sinf(a));
    }
    sr_debug_polygon_filled(p.list, hexagon, 6, sr_debug_color_alpha(SR_DEBUG_GREEN, 0.35f),
                            sr_debug_style_make(SR_DEBUG_GREEN, 2, false));
    sr_debug_triangle_filled(p.list, sr_vec3_make(-0.3f, 0.0f, -0.6f), sr_vec3_make(0.8f, 0.0f, -0.6f),
                             sr_vec3_make(0.25f, 1.3f, -0.6f), sr_debug_color_alpha(SR_DEBUG_YELLOW, 0.4f),
                             sr_debug_style_color(SR_DEBUG_YELLOW));
    sr_debug_triangle_filled(p.list, sr_vec3_make(1.2f, 0.0f, 0.4f), sr_vec3_make(2.2f, 0.0f, 0.4f),
                             sr_vec3_make(1.7f, 1.1f, 0.1f), sr_debug_color_alpha(SR_DEBUG_MAGENTA, 0.4f),
                             sr_debug_style_make(SR_DEBUG_MAGENTA, 1, true));
    sr_debug_text(p.list, hexagon[4], "polygon", sr_debug_style_make(SR_DEBUG_GREEN, 1, true));
    sr_debug_text(p.list, sr_vec3_make(0.25f, 1.35f, -0.6f), "triangle", sr_debug_style_make(SR_DEBUG_YELLOW, 1, true));
    sr_debug_text(p.list, sr_vec3_make(1.7f, 1.15f, 0.1f), "on top", sr_debug_style_make(SR_DEBUG_MAGENTA, 1, true));
    return panel_save(&p, folder, "debug_fills.png", "sr_debug_polygon_filled, sr_debug_triangle_filled");
}

static bool circles(const char *folder)
{
    panel p;
    if (!panel_open(&p, sr_vec3_make(0.0f, 1.6f, 5.0f), sr_vec3_make(0.0f, 0.4f, 0.0f)))
        return false;
    sr_debug_grid(p.list, sr_vec3_make(0, 0, 0), 6.0f, 12, sr_debug_style_color(sr_rgba8(0.5f, 0.5f, 0.5f, 0.6f)));
    // Circles around three normals, each with its normal as an arrow.
    const sr_vec3 normals[3] = {{0, 1, 0}, {1, 0.3f, 0.4f}, {0, 0, 1}};
    const uint32_t colors[3] = {SR_DEBUG_CYAN, SR_DEBUG_YELLOW, SR_DEBUG_MAGENTA};
    for (int i = 0; i < 3; i++) {
        sr_vec3 centre = sr_vec3_make(-1.8f + 1.2f * (float)i, 0.7f, 0.0f);
        sr_debug_circle(p.list, centre, normals[i], 0.45f, sr_debug_style_make(colors[i], 2, false));
        sr_debug_arrow(p.list, centre, sr_vec3_add(centre, sr_vec3_scale(sr_vec3_normalize(normals[i]), 0.6f)),
                       sr_debug_style_color(colors[i]));
    }
    // Box2D's solid circle: the disc in z = 0 at half alpha, the outline, and its axis line.
    sr_vec3 centre = sr_vec3_make(1.9f, 0.7f, 0.0f), axis = sr_vec3_make(0.8f, 0.6f, 0.0f);
    const uint32_t color = sr_rgba8(0.9f, 0.7f, 0.7f, 1.0f);
    sr_debug_circle_filled(p.list, centre, sr_vec3_make(0, 0, 1), 0.5f, sr_rgba8(0.45f, 0.35f, 0.35f, 0.5f),
                           sr_debug_style_color(color));
    sr_debug_line(p.list, centre, sr_vec3_add(centre, sr_vec3_scale(axis, 0.5f)), sr_debug_style_color(color));
    sr_debug_text(p.list, sr_vec3_make(1.55f, 1.35f, 0.0f), "solid + axis", sr_debug_style_make(color, 1, true));
    return panel_save(&p, folder, "debug_circles.png", "sr_debug_circle (normals as arrows), sr_debug_circle_filled");
}

static bool spheres(const char *folder)
{
    panel p;
    if (!panel_open(&p, sr_vec3_make(0.0f, 1.3f, 4.6f), sr_vec3_make(0.0f, 0.55f, 0.0f)))
        return false;
    // A ball rolling to the right (turning about -Z) in four steps: its +X radius turns like a
    // clock's hand, beside sr_debug_sphere, which cannot show the spin.
    for (int i = 0; i < 4; i++) {
        sr_quat q = sr_quat_from_axis_angle(sr_vec3_make(0.15f, 0.25f, 1.0f), -0.6f * (float)i);
        sr_vec3 centre = sr_vec3_make(-2.0f + 1.12f * (float)i, 0.55f, 0.0f);
        sr_debug_sphere_oriented(p.list, centre, q, 0.5f, sr_debug_style_color(SR_DEBUG_CYAN));
    }
    sr_debug_sphere(p.list, sr_vec3_make(2.35f, 0.55f, 0.0f), 0.5f, sr_debug_style_color(SR_DEBUG_GREY));
    sr_debug_text(p.list, sr_vec3_make(1.95f, 1.25f, 0.0f), "unoriented", sr_debug_style_make(SR_DEBUG_GREY, 1, true));
    sr_debug_grid(p.list, sr_vec3_make(0, 0.05f, 0), 6.0f, 12, sr_debug_style_color(sr_rgba8(0.5f, 0.5f, 0.5f, 0.5f)));
    return panel_save(&p, folder, "debug_spheres.png", "sr_debug_sphere_oriented, rolling in 4 steps");
}

static bool gradient(const char *folder)
{
    panel p;
    if (!panel_open(&p, sr_vec3_make(0.0f, 1.0f, 4.0f), sr_vec3_make(0.0f, 0.3f, -2.0f)))
        return false;
    // A fan of lines from red to blue, and rails receding into the distance (the colour changes
    // along the world's length, not the screen's).
    for (int i = 0; i < 9; i++) {
        float a = SR_PI * (float)i / 8.0f;
        sr_debug_line_gradient(p.list, sr_vec3_make(-1.6f, 0.2f, 0.0f),
                               sr_vec3_make(-1.6f + 1.1f * cosf(a), 0.2f + 1.1f * sinf(a), 0.0f),
                               sr_debug_style_make(SR_DEBUG_RED, 2, false), SR_DEBUG_BLUE);
    }
    for (int i = 0; i < 3; i++)
        sr_debug_line_gradient(p.list, sr_vec3_make(0.4f + 0.5f * (float)i, 0.0f, 1.0f),
                               sr_vec3_make(0.4f + 0.5f * (float)i, 0.0f, -14.0f),
                               sr_debug_style_make(SR_DEBUG_YELLOW, 3, false), sr_rgba8(0.1f, 0.9f, 0.4f, 1.0f));
    return panel_save(&p, folder, "debug_gradient.png", "sr_debug_line_gradient");
}

static bool dots(const char *folder)
{
    panel p;
    if (!panel_open(&p, sr_vec3_make(0.0f, 1.2f, 4.0f), sr_vec3_make(0.0f, 0.3f, 0.0f)))
        return false;
    // Dots of 2 to 16 pixels in a row, crosses below; then the same 8-pixel dot near and far.
    const float sizes[5] = {2, 4, 6, 10, 16};
    for (int i = 0; i < 5; i++) {
        sr_vec3 at = sr_vec3_make(-2.0f + 0.75f * (float)i, 0.9f, 0.0f);
        sr_debug_dot(p.list, at, sizes[i], sr_debug_style_color(SR_DEBUG_YELLOW));
        sr_debug_point(p.list, sr_vec3_add(at, sr_vec3_make(0, -0.5f, 0)), sizes[i] + 4.0f,
                       sr_debug_style_make(SR_DEBUG_CYAN, 2, false));
        char label[16];
        snprintf(label, sizeof label, "%g px", (double)sizes[i]);
        sr_debug_text(p.list, sr_vec3_add(at, sr_vec3_make(-0.2f, 0.3f, 0)), label,
                      sr_debug_style_make(SR_DEBUG_WHITE, 1, true));
    }
    for (int i = 0; i < 4; i++)
        sr_debug_dot(p.list, sr_vec3_make(-1.7f + 0.9f * (float)i, -0.75f, 1.0f - 1.5f * (float)i), 8.0f,
                     sr_debug_style_color(SR_DEBUG_GREEN));
    sr_debug_text(p.list, sr_vec3_make(-1.5f, -0.68f, 1.0f), "8 px, near to far", sr_debug_style_make(SR_DEBUG_GREEN, 1, true));
    // Translucent dots overlapping.
    sr_debug_dot(p.list, sr_vec3_make(1.5f, -0.1f, 0.5f), 30.0f, sr_debug_style_color(sr_rgba8(1, 0.2f, 0.2f, 0.6f)));
    sr_debug_dot(p.list, sr_vec3_make(1.65f, 0.0f, 0.5f), 30.0f, sr_debug_style_color(sr_rgba8(0.2f, 0.4f, 1, 0.6f)));
    sr_debug_text(p.list, sr_vec3_make(1.3f, -0.45f, 0.5f), "translucent", sr_debug_style_make(SR_DEBUG_WHITE, 1, true));
    return panel_save(&p, folder, "debug_dots.png", "sr_debug_dot (top), sr_debug_point (below)");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: debug_gallery OUT_DIR\n");
        return 2;
    }
    bool ok = fills(argv[1]) & circles(argv[1]) & spheres(argv[1]) & gradient(argv[1]) & dots(argv[1]);
    return ok ? 0 : 1;
}
