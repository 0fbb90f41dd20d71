/* headless.c — a program that renders without a display, built by tests/install/check_install.sh
 * against an installed copy of softrast with `pkg-config --cflags --libs softrast` alone (no
 * SDL2), as C and as C++: the demo scene with a debug line over it, saved as OUT (PNG or BMP).
 * Exits 1, saying why, when the frame is not what it should be. */
#include <softrast/softrast.h>

#include <stdio.h>

static int fail(const char *what, const sr_error *err)
{
    fprintf(stderr, "headless: %s%s%s\n", what, err ? ": " : "", err ? err->message : "");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return fail("usage: headless OUT.png", NULL);
    sr_error err = SR_ZERO_INIT;
    sr_framebuffer_desc fb_desc = SR_ZERO_INIT;
    fb_desc.width = 160;
    fb_desc.height = 120;
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    sr_scene *scene = NULL;
    sr_debug_list *list = NULL;
    if (sr_framebuffer_create(&fb_desc, &fb, &err) || sr_renderer_create(NULL, &renderer, &err) ||
        sr_scene_create_demo(&scene, &err) || sr_debug_list_create(NULL, &list, &err))
        return fail("setting up", &err);
    sr_camera camera = sr_scene_camera(scene);
    sr_scene_render_desc render = SR_ZERO_INIT;
    render.camera = &camera;
    int status = 0;
    if (sr_scene_render(scene, &render, renderer, fb, NULL, &err) != SR_OK) {
        status = fail("sr_scene_render", &err);
    } else {
        // The demo's objects stand in the middle of the picture; its corners show the background.
        uint32_t background = sr_scene_background(scene);
        if (fb->color[60 * 160 + 80] == background || fb->color[0] != background)
            status = fail("the demo scene is not where it should be in the frame", NULL);
        // The program's own text over it, in red at the top left.
        sr_mat4 view, projection;
        sr_camera_matrices(&camera, fb->width, fb->height, &view, &projection);
        sr_debug_text_2d(list, 4.0f, 4.0f, "headless", SR_LITERAL(sr_debug_style){0xff0000ffu, 1, true});
        if (status == 0 && sr_debug_draw(list, renderer, fb, sr_mat4_mul(projection, view), &err) != SR_OK)
            status = fail("sr_debug_draw", &err);
        int red = 0;
        for (int y = 0; y < 20; y++)
            for (int x = 0; x < 60; x++)
                red += fb->color[y * 160 + x] == 0xff0000ffu;
        if (status == 0 && red < 20)
            status = fail("the text is not drawn", NULL);
        if (status == 0 && sr_framebuffer_save(fb, argv[1], &err) != SR_OK)
            status = fail("sr_framebuffer_save", &err);
    }
    sr_debug_list_destroy(list);
    sr_scene_destroy(scene);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    return status;
}
