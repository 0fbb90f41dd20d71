/* debug_example.c — the README's debug-draw example: a program's own shapes (here: a few
 * bodies of a made-up physics step) drawn with no scene on a cleared framebuffer, saved as BMP.
 * Built and run by the test suite (tests/meson.build: meson test debug_example). */
#include <softrast/softrast.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "debug.bmp";
    sr_framebuffer *fb;
    sr_renderer *renderer;
    sr_debug_list *list;
    sr_error err;
    if (sr_framebuffer_create(&(sr_framebuffer_desc){.width = 640, .height = 360}, &fb, &err) ||
        sr_renderer_create(NULL, &renderer, &err) || sr_debug_list_create(NULL, &list, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    sr_framebuffer_clear(fb, sr_rgba8(0.1f, 0.1f, 0.12f, 1.0f), 1.0f);
    sr_debug_grid(list, sr_vec3_make(0, 0, 0), 8.0f, 16, (sr_debug_style){.color = sr_rgba8(0.4f, 0.4f, 0.4f, 1)});
    sr_debug_aabb(list, (sr_aabb){{-2.5f, 0, -0.5f}, {-1.5f, 1, 0.5f}}, (sr_debug_style){.color = 0xff40e060u});
    sr_debug_sphere(list, sr_vec3_make(0, 0.6f, 0), 0.6f, (sr_debug_style){.color = 0xff20d8ffu});
    sr_debug_capsule(list, sr_vec3_make(2, 0.3f, 0), sr_vec3_make(2, 1.3f, 0), 0.3f, (sr_debug_style){.color = SR_DEBUG_WHITE});
    sr_debug_arrow(list, sr_vec3_make(0, 0.6f, 0), sr_vec3_make(1.2f, 1.5f, 0.3f),
                   (sr_debug_style){.color = 0xffff40ffu, .width = 2});
    sr_debug_point(list, sr_vec3_make(1.2f, 1.5f, 0.3f), 12.0f, (sr_debug_style){.color = 0xffff40ffu, .width = 2});
    sr_debug_text(list, sr_vec3_make(1.25f, 1.55f, 0.3f), "contact", (sr_debug_style){.color = SR_DEBUG_WHITE});
    sr_debug_text_2d(list, 8, 8, "3 bodies, 1 contact", (sr_debug_style){.color = SR_DEBUG_WHITE, .width = 2});
    sr_camera camera = {.eye = {0, 3, 6}, .target = {0, 0.5f, 0}};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, fb->width, fb->height, &view, &projection);
    sr_status status = sr_debug_draw(list, renderer, fb, sr_mat4_mul(projection, view), &err);
    if (status == SR_OK)
        status = sr_framebuffer_save(fb, out, &err);
    if (status != SR_OK)
        fprintf(stderr, "%s\n", err.message);
    sr_debug_list_destroy(list);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    return status == SR_OK ? 0 : 1;
}
