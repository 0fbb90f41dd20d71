/* tests/debug_test_frame.h — the frame the debug list's tests draw into (test_debug_items.c,
 * test_debug_list.c): a 320 x 240 framebuffer cleared to BACKGROUND, a renderer, and one camera
 * both as the matrices a user passes to sr_debug_draw and as the independent projection of
 * tests/debug_projection.h. Header-only, static functions, test code. */
#ifndef SR_TESTS_DEBUG_TEST_FRAME_H
#define SR_TESTS_DEBUG_TEST_FRAME_H

#include <criterion/criterion.h>
#include <softrast/debug.h>

#include "debug_projection.h"

#define W 320
#define H 240

static const uint32_t BACKGROUND = 0xff302820u;

typedef struct frame {
    sr_framebuffer *fb;
    sr_renderer *renderer;
    sr_mat4 vp;     ///< what a user passes to sr_debug_draw (sr_camera_matrices)
    test_view view; ///< the independent projection of the same camera
} frame;

static inline frame frame_make(int threads, bool ids)
{
    frame f;
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = W, .height = H, .ids = ids}, &f.fb, NULL), SR_OK);
    cr_assert_eq(sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &f.renderer, NULL), SR_OK);
    sr_framebuffer_clear(f.fb, BACKGROUND, 1.0f);
    sr_camera camera = {.eye = {0.5f, 1.5f, 4.0f},
                        .target = {0.0f, 0.3f, 0.0f},
                        .up = {0, 1, 0},
                        .fov_y_degrees = 50.0f,
                        .near_z = 0.1f,
                        .far_z = 50.0f};
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, W, H, &view, &projection);
    f.vp = sr_mat4_mul(projection, view);
    const double eye[3] = {0.5, 1.5, 4.0}, target[3] = {0.0, 0.3, 0.0}, up[3] = {0, 1, 0};
    f.view = test_view_make(eye, target, up, 50.0, 0.1, 50.0, W, H);
    return f;
}

static inline void frame_free(frame *f)
{
    sr_framebuffer_destroy(f->fb);
    sr_renderer_destroy(f->renderer);
}

static inline sr_debug_list *list_make(void)
{
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &list, NULL), SR_OK);
    return list;
}

static inline void draw(frame *f, sr_debug_list *list)
{
    sr_error err = {0};
    cr_assert_eq(sr_debug_draw(list, f->renderer, f->fb, f->vp, &err), SR_OK, "%s", err.message);
}

static inline test_pixel project(const frame *f, sr_vec3 p)
{
    return test_project(&f->view, p.x, p.y, p.z);
}

static inline uint32_t pixel(const frame *f, int x, int y)
{
    return f->fb->color[(size_t)y * W + (size_t)x];
}

#endif
