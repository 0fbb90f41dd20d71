/* viewer.c — a program embedding the viewer, built by tests/install/check_install.sh against an
 * installed copy with `pkg-config --cflags --libs softrast-viewer`: a hidden window with no scene,
 * the HUD off, the program's list (a filled square in the middle of the frame), a few frames, the
 * frame saved as OUT. Runs under SDL's dummy video driver. Exits 1, saying why, when something fails. */
#include <softrast/softrast.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: viewer OUT.png\n");
        return 1;
    }
    sr_error err = SR_ZERO_INIT;
    sr_viewer_desc desc = SR_ZERO_INIT;
    desc.title = "install test";
    desc.width = 160;
    desc.height = 120;
    desc.hidden = true;
    sr_viewer *viewer = NULL;
    sr_debug_list *list = NULL;
    if (sr_viewer_create(&desc, NULL, &viewer, &err) || sr_debug_list_create(NULL, &list, &err)) {
        fprintf(stderr, "viewer: %s\n", err.message);
        sr_viewer_destroy(viewer);
        return 1;
    }
    sr_viewer_set_overlays(viewer, 0); // no HUD over the square
    sr_debug_rect_2d(list, 60.0f, 40.0f, 40.0f, 40.0f, true, SR_LITERAL(sr_debug_style){0xff00ff00u, 1, true});
    int status = 0;
    for (int frame = 0; frame < 3 && status == 0; frame++)
        if (!sr_viewer_frame(viewer, list, &err))
            status = 1;
    if (status == 0 && sr_viewer_save_frame(viewer, argv[1], &err) != SR_OK)
        status = 1;
    const sr_framebuffer *fb = sr_viewer_framebuffer(viewer);
    if (status == 0 && fb->color[(size_t)(fb->height / 2) * (size_t)fb->width + (size_t)fb->width / 2] != 0xff00ff00u) {
        fprintf(stderr, "viewer: the program's square is not in the middle of the frame\n");
        status = 2;
    }
    if (status == 1)
        fprintf(stderr, "viewer: %s\n", err.message);
    sr_viewer_destroy(viewer);
    sr_debug_list_destroy(list);
    return status ? 1 : 0;
}
