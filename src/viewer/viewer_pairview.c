/* viewer_pairview.c — a selected pair's query step by step: G, E and T show the GJK, EPA or SAT
 * trace of the pair, M cycles its world view, Minkowski view and both side by side, comma and
 * period step back and forth through the iterations, Home returns to the last step. The picture
 * is sr_debug_pair_picture's, the one `softrast collide SCENE --pair A,B --query Q [--step N]
 * [--minkowski|--both]` saves, for the shapes where they are now: moving a shape (ctrl or alt +
 * drag) runs the query again for the next frame. */
#include "viewer_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {"gjk", "epa", "sat"};
static const char *const kind_titles[] = {"GJK", "EPA", "SAT"};
static const char *const view_names[] = {"scene", "world", "Minkowski", "both"};

bool viewer_pair_view_shown(const sr_viewer *viewer)
{
    return viewer->scene && viewer_pair_selected(viewer) && viewer->pair.view != VIEWER_PAIR_SCENE;
}

/* The pair's trace for the shapes as they are now: run again when they moved or the query changed. */
static bool trace_now(sr_viewer *viewer, sr_shape *a, sr_shape *b, sr_error *err)
{
    viewer_pair *pair = &viewer->pair;
    if (!viewer_pair_shapes(viewer, a, b))
        return false;
    if (pair->traced && pair->trace.kind == pair->kind && memcmp(&pair->traced_a, a, sizeof *a) == 0 &&
        memcmp(&pair->traced_b, b, sizeof *b) == 0)
        return true;
    pair->traced = false;
    if (sr_debug_pair_trace_run(a, b, pair->kind, 0, &pair->trace, err) != SR_OK)
        return false;
    pair->traced = true;
    pair->traced_a = *a;
    pair->traced_b = *b;
    return true;
}

const char *viewer_pair_trace_state(sr_viewer *viewer, int *step, int *steps)
{
    sr_shape a, b;
    *step = -1;
    *steps = 0;
    if (!trace_now(viewer, &a, &b, NULL))
        return kind_names[viewer->pair.kind];
    *steps = (int)sr_debug_trace_step_count(&viewer->pair.trace.trace, viewer->pair.kind);
    // A step past the end (the shapes moved and the trace is shorter now) shows the last.
    *step = viewer->pair.step < 0 || viewer->pair.step >= *steps ? *steps - 1 : viewer->pair.step;
    return kind_names[viewer->pair.kind];
}

/* The HUD's panel over the trace view, top right (the legend is top left, messages bottom left). */
static void hud_panel(sr_viewer *viewer, sr_debug_list *list, int scale)
{
    char text[1024];
    size_t used = viewer_pair_hud(viewer, text, sizeof text);
    int step, steps;
    viewer_pair_trace_state(viewer, &step, &steps);
    snprintf(text + used, sizeof text - used, "%s view (M), %s trace (G E T)\nstep %d (0 to %d; , . Home)\nH: help",
             view_names[viewer->pair.view], kind_titles[viewer->pair.kind], step, steps - 1);
    int width;
    sr_overlay_text_size(text, scale, &width, NULL);
    const float s = (float)scale;
    float x = (float)viewer->fb->width - (float)width - 22.0f * s;
    viewer_text_panel(list, x > 4.0f ? x : 4.0f, 8.0f * s, text, SR_DEBUG_WHITE, sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f),
                      scale);
}

/* Breaks `text` in place at blanks so that no line is longer than `most` characters. */
static void wrap(char *text, int most)
{
    int column = 0;
    char *last_blank = NULL;
    for (char *p = text; *p; p++) {
        if (*p == '\n') {
            column = 0;
            last_blank = NULL;
            continue;
        }
        if (*p == ' ')
            last_blank = p;
        if (++column > most && last_blank) {
            *last_blank = '\n';
            column = (int)(p - last_blank);
            last_blank = NULL;
        }
    }
}

sr_status viewer_pair_render(sr_viewer *viewer, sr_error *err)
{
    sr_framebuffer *fb = viewer->fb;
    viewer_pair_answer(viewer);
    sr_shape a, b;
    sr_error why = {0};
    sr_status status = SR_OK;
    int step, steps;
    viewer_pair_trace_state(viewer, &step, &steps);
    bool drawn = false;
    if (trace_now(viewer, &a, &b, &why)) {
        sr_debug_pair_picture_desc desc = {.view = (sr_debug_pair_view)(viewer->pair.view - VIEWER_PAIR_WORLD),
                                           .step = steps > 0 ? step : -1};
        drawn = sr_debug_pair_picture(viewer->renderer, fb, &a, &b, &viewer->pair.trace, &desc, &why) == SR_OK;
    }
    const int scale = sr_overlay_text_scale(fb->width, fb->height);
    status = sr_debug_list_clear(viewer->hud_list, err);
    if (status != SR_OK)
        return status;
    if (!drawn) {
        // No steps of that query for this pair (say, EPA on two boxes, which SAT answers): say so.
        sr_framebuffer_clear(fb, 0xff261e1au, 1.0f);
        char text[700];
        snprintf(text, sizeof text, "%s, %s: %s\n%s", viewer_node_name(viewer, viewer->pair.a),
                 viewer_node_name(viewer, viewer->pair.b), kind_titles[viewer->pair.kind],
                 why.message[0] ? why.message : "the query could not run");
        int char_width;
        sr_overlay_text_size("m", scale, &char_width, NULL);
        wrap(text, char_width > 0 ? (fb->width - 40 * scale) / char_width : 80);
        viewer_text_panel(viewer->hud_list, 8.0f * (float)scale, (float)fb->height / 3.0f, text,
                          sr_rgba8(1.0f, 0.45f, 0.4f, 1.0f), sr_rgba8(0.0f, 0.0f, 0.0f, 0.6f), scale);
    }
    if (viewer->overlays & SR_OVERLAY_HUD) {
        hud_panel(viewer, viewer->hud_list, scale);
        char text[1024];
        viewer_pair_hud(viewer, text, sizeof text);
        snprintf(viewer->hud_shown, sizeof viewer->hud_shown, "%s", text);
    } else {
        viewer->hud_shown[0] = '\0';
    }
    viewer_add_panels(viewer, viewer->hud_list, scale);
    return sr_debug_draw(viewer->hud_list, viewer->renderer, fb, sr_mat4_identity(), err);
}

bool viewer_pair_view_camera(sr_viewer *viewer, float x, sr_camera *camera, int *width)
{
    sr_shape a, b;
    if (!viewer_pair_view_shown(viewer) || !trace_now(viewer, &a, &b, NULL))
        return false;
    int left = viewer->fb->width / 2;
    bool both = viewer->pair.view == VIEWER_PAIR_BOTH;
    bool minkowski = viewer->pair.view == VIEWER_PAIR_MINKOWSKI || (both && x >= (float)left);
    *width = !both ? viewer->fb->width : x < (float)left ? left : viewer->fb->width - left;
    return sr_debug_pair_camera(&a, &b, &viewer->pair.trace, minkowski, *width, viewer->fb->height, camera, NULL) ==
           SR_OK;
}

/* Shows `kind`'s trace; the trace shown already: back to the scene. */
static void choose_trace(sr_viewer *viewer, sr_debug_trace_kind kind)
{
    viewer_pair *pair = &viewer->pair;
    if (pair->view != VIEWER_PAIR_SCENE && pair->kind == kind) {
        pair->view = VIEWER_PAIR_SCENE;
        viewer_say(viewer, false, "the scene again (%s: the %s trace)", kind_titles[kind], kind_titles[kind]);
        return;
    }
    if (pair->kind != kind)
        pair->step = -1;
    pair->kind = kind;
    if (pair->view == VIEWER_PAIR_SCENE)
        pair->view = VIEWER_PAIR_WORLD;
    int step, steps;
    viewer_pair_trace_state(viewer, &step, &steps);
    if (steps == 0)
        viewer_say(viewer, false, "%s trace of %s, %s: no steps (the panel says why; %c again: the scene)",
                   kind_titles[kind], viewer_node_name(viewer, pair->a), viewer_node_name(viewer, pair->b),
                   "GET"[kind]);
    else
        viewer_say(viewer, false, "%s trace of %s, %s: %d step%s (, and . step, Home: the last; %c again: the scene)",
                   kind_titles[kind], viewer_node_name(viewer, pair->a), viewer_node_name(viewer, pair->b), steps,
                   steps == 1 ? "" : "s", "GET"[kind]);
}

static void step_by(sr_viewer *viewer, int delta)
{
    int step, steps;
    viewer_pair_trace_state(viewer, &step, &steps);
    if (steps == 0)
        return;
    int next = step + delta;
    next = next < 0 ? 0 : next >= steps ? steps - 1 : next;
    // The last step is kept as "the last", so that a shape moved later shows its new answer.
    viewer->pair.step = next == steps - 1 ? -1 : next;
}

bool viewer_pair_key(sr_viewer *viewer, SDL_Keycode key)
{
    if (!viewer->scene || !viewer_pair_selected(viewer))
        return false;
    viewer_pair *pair = &viewer->pair;
    bool shown = pair->view != VIEWER_PAIR_SCENE;
    switch (key) {
    case SDLK_m:
        pair->view = pair->view == VIEWER_PAIR_SCENE  ? VIEWER_PAIR_MINKOWSKI
                     : pair->view == VIEWER_PAIR_BOTH ? VIEWER_PAIR_WORLD
                                                      : pair->view + 1;
        break;
    case SDLK_g:
        choose_trace(viewer, SR_DEBUG_TRACE_GJK);
        break;
    case SDLK_e:
        choose_trace(viewer, SR_DEBUG_TRACE_EPA);
        break;
    case SDLK_t:
        choose_trace(viewer, SR_DEBUG_TRACE_SAT);
        break;
    case SDLK_COMMA:
    case SDLK_PERIOD:
        if (!shown) {
            viewer_say(viewer, false, "%s steps through a trace: G, E or T shows one", key == SDLK_COMMA ? "," : ".");
            return true;
        }
        step_by(viewer, key == SDLK_COMMA ? -1 : 1);
        break;
    case SDLK_HOME:
        if (!shown)
            return false; // the camera, as without a pair
        pair->step = -1;
        break;
    default:
        return false;
    }
    viewer->dirty = true;
    return true;
}
