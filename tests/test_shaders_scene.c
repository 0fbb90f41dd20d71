/* tests/test_shaders_scene.c — the demo section's helpers (checker texture, shader
 * vertices), a whole frame of the canonical scene against the analytic sphere, and the demo scene
 * (src/scene/demo.c) seen where expected (part of the program test_shaders; helpers:
 * shader_test_helpers.h). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <softrast/raster.h>
#include <softrast/scene.h>

#include <softrast/shaders.h>

#include "shader_test_helpers.h"

/* ---- helpers of the demo section -------------------------------------------------------- */

Test(demo_helpers, checker_texture_pattern)
{
    sr_texture *t = NULL;
    sr_error err;
    uint32_t light = sr_rgba8(1, 1, 1, 1), dark = sr_rgba8(0, 0, 0, 1);
    cr_assert_eq(sr_checker_texture_create(10, 4, light, dark, &t, &err), SR_OK, "%s", err.message);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 10; x++) {
            int square = (x * 4 / 10 + y * 4 / 10) % 2;
            cr_assert_eq(t->texels[y * 10 + x], square ? dark : light, "texel (%d, %d)", x, y);
        }
    sr_texture_destroy(t);
    cr_assert_neq(sr_checker_texture_create(0, 1, light, dark, &t, &err), SR_OK);
    cr_assert_null(t);
    cr_assert_neq(sr_checker_texture_create(4, 5, light, dark, &t, &err), SR_OK);
    cr_assert(strstr(err.message, "squares"));
}

Test(demo_helpers, shader_vertices_copy_the_mesh)
{
    sr_mesh *mesh = NULL;
    sr_error err;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 8, 4, &mesh, &err), SR_OK, "%s", err.message);
    sr_shader_vertex *v = NULL;
    const float color[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    cr_assert_eq(sr_mesh_create_shader_vertices(mesh, color, &v, &err), SR_OK, "%s", err.message);
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        cr_assert(memcmp(&v[i].position, &mesh->positions[i], sizeof(sr_vec3)) == 0);
        cr_assert(memcmp(&v[i].normal, &mesh->normals[i], sizeof(sr_vec3)) == 0);
        cr_assert(memcmp(&v[i].uv, &mesh->uvs[i], sizeof(sr_vec2)) == 0);
        cr_assert(memcmp(v[i].color, color, sizeof color) == 0);
    }
    sr_free(v);
    cr_assert_neq(sr_mesh_create_shader_vertices(NULL, color, &v, &err), SR_OK);
    sr_mesh_destroy(mesh);
}

/* ---- a whole frame of the canonical scene against the analytic sphere --------------------- */

typedef struct frame {
    sr_framebuffer *fb;
    sr_renderer *renderer;
} frame;

static frame make_frame(int width, int height, bool ids)
{
    frame f = {0};
    sr_error err;
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = ids}, &f.fb, &err), SR_OK,
        "%s", err.message);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){0}, &f.renderer, &err), SR_OK, "%s", err.message);
    return f;
}

static void free_frame(frame *f)
{
    sr_renderer_destroy(f->renderer);
    sr_framebuffer_destroy(f->fb);
}

/* On failure, the frame is kept as a PNG next to the build for a look. */
static void dump_frame(const sr_framebuffer *fb, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SR_BUILD_DIR, name);
    sr_error err;
    if (sr_framebuffer_save(fb, path, &err) == SR_OK)
        fprintf(stderr, "test_shaders: wrote the actual image to %s\n", path);
}

Test(render, lambert_sphere_matches_analytic_sphere, .timeout = 60)
{
    const int width = 320, height = 180;
    sr_mesh *mesh = NULL;
    sr_error err;
    cr_assert_eq(sr_mesh_create_sphere(1.0f, 96, 48, &mesh, &err), SR_OK, "%s", err.message);
    sr_shader_vertex *vertices = NULL;
    cr_assert_eq(sr_mesh_create_shader_vertices(mesh, NULL, &vertices, &err), SR_OK, "%s", err.message);
    frame f = make_frame(width, height, false);

    sr_mat4 view, projection;
    sr_bench_scene_camera(width, height, &view, &projection);
    sr_shader_uniforms u = sr_shader_uniforms_default();
    sr_shader_uniforms_set_transforms(&u, sr_mat4_identity(), view, projection);
    sr_program program = sr_shader_program(&sr_shader_lambert, &u);
    sr_framebuffer_clear(f.fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
    cr_assert_eq(sr_draw_triangles(f.renderer, f.fb,
                                   &(sr_draw_desc){.vertices = vertices,
                                                   .vertex_count = mesh->vertex_count,
                                                   .vertex_stride = sizeof *vertices,
                                                   .indices = mesh->indices,
                                                   .index_count = mesh->triangle_count * 3,
                                                   .program = &program},
                                   &err),
                 SR_OK, "%s", err.message);

    /* Independent camera (the README's benchmark scene): eye (0, 0, 3), fov_y 45 degrees; the ray through the
     * pixel centre has view direction (ndc_x * tan(fov/2) * aspect, ndc_y * tan(fov/2), -1). */
    double tan_half = tan(PI / 8), aspect = (double)width / height;
    dvec3 eye = dv(0, 0, 3);
    int compared = 0, background = 0, bad = 0;
    double worst = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            double ndc_x = (x + 0.5) / width * 2 - 1, ndc_y = 1 - (y + 0.5) / height * 2;
            dvec3 d = dnormalize(dv(ndc_x * tan_half * aspect, ndc_y * tan_half, -1));
            /* |eye + t d|^2 = r^2; closest approach of the ray to the centre decides coverage. */
            double b = ddot(eye, d), c = ddot(eye, eye);
            double miss_distance = sqrt(fmax(0.0, c - b * b));
            uint32_t pixel = f.fb->color[y * width + x];
            if (miss_distance > 1.02) {
                background++;
                if (pixel != SR_BENCH_SCENE_BACKGROUND)
                    bad++;
                continue;
            }
            if (miss_distance > 0.97)
                continue; /* near the silhouette: the tessellated outline differs from the circle */
            double t = -b - sqrt(b * b - (c - 1.0));
            dvec3 normal = dadd(eye, dscale(d, t)); /* unit sphere: the hit point is the normal */
            for (int ch = 0; ch < 3; ch++) {
                double want = lambert_expected(0.8, normal);
                double got = ((pixel >> (8 * ch)) & 0xffu) / 255.0;
                worst = fmax(worst, fabs(got - want));
                if (fabs(got - want) > 0.01)
                    bad++;
            }
            compared++;
        }
    cr_log_info("sphere: %d pixels compared, worst channel error %f", compared, worst);
    if (bad)
        dump_frame(f.fb, "test_shaders_sphere_actual.png");
    cr_assert_gt(compared, 10000, "only %d pixels on the sphere", compared);
    cr_assert_gt(background, 10000);
    cr_assert_eq(bad, 0, "%d pixels differ (worst %f)", bad, worst);
    free_frame(&f);
    sr_free(vertices);
    sr_mesh_destroy(mesh);
}

/* ---- the demo scene ------------------------------------------------------------------------ */

/* Pixel position of a world point under view and projection (window convention of raster.h). */
static bool project(sr_mat4 view, sr_mat4 projection, sr_vec3 p, int width, int height, int *x, int *y)
{
    double v[4], c[4];
    dtransform(&view, dv(p.x, p.y, p.z), v);
    dtransform(&projection, dv(v[0], v[1], v[2]), c);
    if (c[3] <= 0)
        return false;
    *x = (int)floor((c[0] / c[3] * 0.5 + 0.5) * width);
    *y = (int)floor((0.5 - c[1] / c[3] * 0.5) * height);
    return *x >= 0 && *x < width && *y >= 0 && *y < height;
}

Test(demo, every_object_is_visible_where_expected, .timeout = 60)
{
    const int width = 480, height = 270;
    sr_scene *scene = NULL;
    sr_error err;
    cr_assert_eq(sr_scene_create_demo(&scene, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_scene_node_count(scene), 4);
    frame f = make_frame(width, height, true);
    sr_scene_frame *scene_frame = NULL;
    cr_assert_eq(sr_scene_frame_create(&scene_frame, &err), SR_OK);
    cr_assert_eq(sr_scene_render(scene, NULL, f.renderer, f.fb, scene_frame, &err), SR_OK, "%s", err.message);

    sr_mat4 view, projection;
    sr_camera camera = sr_scene_camera(scene);
    sr_camera_matrices(&camera, width, height, &view, &projection);
    const char *names[4] = {"ground", "sphere", "box", "torus"};
    bool failed = false;
    /* Per pixel, the node drawn there (UINT32_MAX for none). */
    uint32_t *drawn = malloc((size_t)width * height * sizeof *drawn);
    for (int p = 0; p < width * height; p++) {
        sr_node_id node;
        drawn[p] = sr_scene_frame_decode_id(scene_frame, f.fb->ids[p], &node, NULL) ? node.index : UINT32_MAX;
    }
    for (uint32_t i = 0; i < 4; i++) {
        sr_node_id id = sr_scene_node_at(scene, i);
        sr_node_info object;
        cr_assert_eq(sr_scene_node(scene, id, &object, NULL), SR_OK);
        cr_assert_str_eq(object.name, names[i]);
        /* Visible: a good number of pixels carry the object's ids. */
        int pixels = 0;
        double red = 0, green = 0, blue = 0;
        for (int p = 0; p < width * height; p++)
            if (drawn[p] == i) {
                pixels++;
                red += f.fb->color[p] & 0xff;
                green += f.fb->color[p] >> 8 & 0xff;
                blue += f.fb->color[p] >> 16 & 0xff;
            }
        if (pixels < 1500) {
            failed = true;
            cr_expect_geq(pixels, 1500, "%s covers %d pixels", object.name, pixels);
        }
        /* Where expected: the centre of its world box lands on the object, and the object's
         * mean colour follows its albedo's dominant channel. */
        if (i > 0) {
            int x, y;
            cr_assert(project(view, projection, sr_aabb_centre(object.world_aabb), width, height, &x, &y),
                      "%s is off screen", object.name);
            uint32_t at = drawn[y * width + x];
            /* The torus's centre is its hole: test a point on its ring instead. */
            if (i == 3) {
                sr_vec3 ring = sr_mat4_transform_point(object.world, sr_vec3_make(0.45f, 0.0f, 0.0f));
                project(view, projection, ring, width, height, &x, &y);
                at = drawn[y * width + x];
            }
            if (at != i) {
                failed = true;
                cr_expect(false, "pixel (%d, %d) shows node %u, not %s", x, y, at, object.name);
            }
        }
        if (i == 1)
            cr_expect(red > 2 * green && red > 2 * blue, "the sphere is not red");
        if (i == 3)
            cr_expect(blue > 1.3 * red && blue > green, "the torus is not blue");
    }
    /* The ground fills the bottom corners. */
    cr_expect_eq(drawn[(height - 1) * width], 0u);
    cr_expect_eq(drawn[(height - 1) * width + width - 1], 0u);
    if (failed)
        dump_frame(f.fb, "test_shaders_demo_actual.png");
    free(drawn);
    sr_scene_frame_destroy(scene_frame);
    free_frame(&f);
    sr_scene_destroy(scene);
}

Test(demo, bench_camera_is_bench_scene)
{
    sr_mat4 view, projection;
    sr_bench_scene_camera(1280, 720, &view, &projection);
    /* The eye maps to the view origin, the origin lies 3 units down -Z. */
    double e[4], o[4];
    dtransform(&view, dv(0, 0, 3), e);
    dtransform(&view, dv(0, 0, 0), o);
    cr_assert_float_eq(e[0] * e[0] + e[1] * e[1] + e[2] * e[2], 0.0, 1e-10);
    cr_assert_float_eq(o[2], -3.0, 1e-6);
    /* A point on the near plane at the top edge of the field of view: ndc (0, 1, 0). */
    double top = 0.1 * tan(PI / 8), c[4];
    dtransform(&projection, dv(0, top, -0.1), c);
    cr_assert_float_eq(c[1] / c[3], 1.0, 1e-5);
    cr_assert_float_eq(c[2] / c[3], 0.0, 1e-5);
    /* Aspect 16:9: the right edge at the same depth. */
    dtransform(&projection, dv(top * 1280.0 / 720.0, 0, -0.1), c);
    cr_assert_float_eq(c[0] / c[3], 1.0, 1e-5);
    dtransform(&projection, dv(0, 0, -100), c);
    cr_assert_float_eq(c[2] / c[3], 1.0, 1e-5, "far plane at depth 1");
}

Test(demo, bench_primary_rays_pass_through_pixel_centres)
{
    /* Against the pinhole model in double: the ray of pixel (x, y) points along
     * (ndc_x tan(22.5 deg) aspect, ndc_y tan(22.5 deg), -1) from the eye (0, 0, 3). */
    enum { W = 40, H = 24 };
    sr_ray rays[W * H];
    sr_bench_scene_primary_rays(W, H, rays);
    const double t = tan(PI / 8), aspect = (double)W / H;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const sr_ray *r = &rays[y * W + x];
            double d[3] = {((x + 0.5) / W * 2 - 1) * t * aspect, (1 - (y + 0.5) / H * 2) * t, -1.0};
            double length = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            cr_assert(r->origin.x == 0.0f && r->origin.y == 0.0f && r->origin.z == 3.0f);
            cr_assert_float_eq(r->direction.x, d[0] / length, 1e-5, "pixel %d %d", x, y);
            cr_assert_float_eq(r->direction.y, d[1] / length, 1e-5, "pixel %d %d", x, y);
            cr_assert_float_eq(r->direction.z, d[2] / length, 1e-5, "pixel %d %d", x, y);
            cr_assert(r->tmin == 0.0f && isinf(r->tmax));
        }
    }
    /* Bad sizes and a NULL array write nothing and do not crash. */
    sr_ray untouched = rays[0];
    sr_bench_scene_primary_rays(0, H, rays);
    sr_bench_scene_primary_rays(W, -1, rays);
    sr_bench_scene_primary_rays(W, H, NULL);
    cr_assert(memcmp(&untouched, &rays[0], sizeof untouched) == 0);
}
