/* viewer.c — the viewer's window and loop (softrast/viewer.h): SDL2 window and streaming texture,
 * the frame pipeline (input → camera and overlay state → scene update → softrast frame →
 * texture → present), frame pacing (draw only on change; wait for events otherwise, so an idle
 * viewer uses no CPU), window resizes (the framebuffer follows the drawable size), the scene
 * file's reloads, saving frames and the statistics. Input is viewer_input.c, what is drawn over
 * the frame viewer_draw.c, loading viewer_load.c, scripts viewer_script.c. */
#include "viewer_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// How long sr_viewer_frame waits for input when nothing needs drawing, in milliseconds.
#define FRAME_IDLE_WAIT_MS 16
/// Redraw interval of the loading screen, in milliseconds.
#define LOADING_REDRAW_MS 100
/// How long the first frame waits for a load before showing the loading screen, in milliseconds.
#define FIRST_LOAD_WAIT_MS 150u
/// The scene file's modification time is polled this often, in milliseconds.
#define MTIME_POLL_MS 1000u
/// A recording that changes on disk is read again by itself when its last opening took at most
/// this long (milliseconds); otherwise the user is told, and R reads it.
#define RECORDING_RELOAD_MS 250.0

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

void viewer_say(sr_viewer *viewer, bool is_error, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(viewer->message, sizeof viewer->message, format, args);
    va_end(args);
    viewer->message_is_error = is_error;
    viewer->message_until = SDL_GetTicks() + VIEWER_MESSAGE_MS;
    if (viewer->message_until == 0)
        viewer->message_until = 1;
    viewer->dirty = true;
    if (viewer->desc.message) {
        viewer->desc.message(viewer->desc.user, viewer->message, is_error);
    } else {
        FILE *stream = is_error ? stderr : stdout;
        fprintf(stream, "softrast view: %s%s\n", is_error ? "error: " : "", viewer->message);
        fflush(stream);
    }
}

bool viewer_owns_file(const sr_viewer *viewer)
{
    return viewer->scene_path[0] && (viewer->owns_scene || viewer->playback);
}

sr_camera viewer_view_camera(const sr_viewer *viewer)
{
    return viewer->orbit_moved ? sr_orbit_camera(&viewer->orbit, &viewer->base) : viewer->base;
}

void viewer_reset_camera(sr_viewer *viewer)
{
    viewer->base = viewer->home;
    viewer->orbit = sr_orbit_from_camera(&viewer->base);
    viewer->orbit_moved = false;
    viewer->dirty = true;
}

static bool same_camera(const sr_camera *a, const sr_camera *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

void viewer_watch_scene(sr_viewer *viewer)
{
    if (!viewer->scene)
        return;
    if (sr_scene_needs_update(viewer->scene))
        viewer->dirty = true;
    if (viewer->playback)
        return; // a recording's camera is followed frame by frame (viewer_playback_seek)
    sr_camera camera = sr_scene_camera(viewer->scene);
    camera = sr_camera_resolve(&camera);
    if (!same_camera(&camera, &viewer->home)) {
        // sr_scene_set_camera by the program: the view follows, as Home would.
        viewer->home = camera;
        viewer_reset_camera(viewer);
    }
}

void viewer_camera_spec(const sr_camera *camera, char *out, size_t size)
{
    sr_camera c = sr_camera_resolve(camera);
    int n =
        snprintf(out, size, "eye=%.9g,%.9g,%.9g:target=%.9g,%.9g,%.9g:up=%.9g,%.9g,%.9g:near=%.9g:far=%.9g",
                 (double)c.eye.x, (double)c.eye.y, (double)c.eye.z, (double)c.target.x, (double)c.target.y,
                 (double)c.target.z, (double)c.up.x, (double)c.up.y, (double)c.up.z, (double)c.near_z, (double)c.far_z);
    if (n < 0 || (size_t)n >= size)
        return;
    if (c.projection == SR_PROJECTION_ORTHOGRAPHIC)
        snprintf(out + n, size - (size_t)n, ":ortho=%.9g", (double)c.height);
    else
        snprintf(out + n, size - (size_t)n, ":fov=%.9g", (double)c.fov_y_degrees);
}

void viewer_overlay_spec(const sr_viewer *viewer, char *out, size_t size)
{
    out[0] = '\0';
    size_t used = 0;
    char item[96];
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{SR_OVERLAY_BVH, "bvh"},         {SR_OVERLAY_MESH_BVH, "mesh-bvh"},
                 {SR_OVERLAY_BOUNDS, "bounds"},   {SR_OVERLAY_NORMALS, "normals"},
                 {SR_OVERLAY_WIRE, "wire"},       {SR_OVERLAY_PICK, "pick"},
                 {SR_OVERLAY_FRUSTUM, "frustum"}, {SR_OVERLAY_HEAT, "heat"},
                 {SR_OVERLAY_AXES, "axes"},       {SR_OVERLAY_GRID, "grid"},
                 {SR_OVERLAY_CONTACTS, "contacts"}, {SR_OVERLAY_CLOSEST, "closest"},
                 {SR_OVERLAY_PAIRS, "pairs"},     {SR_OVERLAY_HUD, "hud"}};
    uint32_t items = viewer->overlays | (viewer->frozen ? SR_OVERLAY_FRUSTUM : 0u);
    if (!viewer->has_pick)
        items &= ~(uint32_t)SR_OVERLAY_PICK;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(items & names[i].bit))
            continue;
        if (names[i].bit == SR_OVERLAY_BVH)
            snprintf(item, sizeof item, "bvh:%d-%d", viewer->bvh_first, viewer->bvh_last);
        else if (names[i].bit == SR_OVERLAY_MESH_BVH)
            snprintf(item, sizeof item, "mesh-bvh:%d-%d", viewer->mesh_bvh_first, viewer->mesh_bvh_last);
        else if (names[i].bit == SR_OVERLAY_PICK)
            snprintf(item, sizeof item, "pick:%.9g,%.9g", (double)viewer->pick_x, (double)viewer->pick_y);
        else
            snprintf(item, sizeof item, "%s", names[i].name);
        int n = snprintf(out + used, size - used, "%s%s", used ? "," : "", item);
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
    }
}

/* Drawable pixels per window pixel (1 except on high-DPI screens). */
static void update_scale(sr_viewer *viewer)
{
    int window_width = 0, window_height = 0, drawable_width = 0, drawable_height = 0;
    SDL_GetWindowSize(viewer->window, &window_width, &window_height);
    if (SDL_GetRendererOutputSize(viewer->sdl_renderer, &drawable_width, &drawable_height) != 0 || window_width <= 0 ||
        window_height <= 0 || drawable_width <= 0 || drawable_height <= 0) {
        viewer->scale_x = viewer->scale_y = 1.0f;
        return;
    }
    viewer->scale_x = (float)drawable_width / (float)window_width;
    viewer->scale_y = (float)drawable_height / (float)window_height;
}

void viewer_pump(sr_viewer *viewer, int wait_ms)
{
    update_scale(viewer);
    SDL_Event event;
    if (wait_ms > 0 && SDL_WaitEventTimeout(&event, wait_ms))
        viewer_handle_event(viewer, &event);
    while (SDL_PollEvent(&event))
        viewer_handle_event(viewer, &event);
}

/* What happens with time rather than input: a finished load, a changed scene file, a message
 * that expires. */
void viewer_periodic(sr_viewer *viewer)
{
    bool loading = viewer_load_poll(viewer);
    viewer_playback_tick(viewer);
    viewer_watch_scene(viewer);
    uint32_t ticks = SDL_GetTicks();
    if (!loading && viewer_owns_file(viewer) && ticks - viewer->last_poll >= MTIME_POLL_MS) {
        viewer->last_poll = ticks;
        struct timespec mtime;
        bool readable = viewer_file_mtime(viewer->scene_path, &mtime);
        if (readable && (!viewer->have_mtime || mtime.tv_sec != viewer->scene_mtime.tv_sec ||
                         mtime.tv_nsec != viewer->scene_mtime.tv_nsec)) {
            if (!viewer->playback) {
                viewer_say(viewer, false, "%s changed on disk: reloading", viewer->scene_path);
                viewer_load_start(viewer, viewer->scene != NULL);
            } else if (viewer->load.open_ms <= RECORDING_RELOAD_MS) {
                // A recording that grows (its program still records): read again quietly, the
                // frame shown kept, or the new last frame when the last one was shown.
                viewer->load.quiet = true;
                viewer_load_start(viewer, true);
            } else if (!viewer->grew_said) {
                viewer->grew_said = true;
                viewer->scene_mtime = mtime;
                viewer_say(viewer, false, "%s grew on disk: R reads it again", viewer->scene_path);
            }
        }
    }
    if (viewer->message_until && (int32_t)(ticks - viewer->message_until) >= 0) {
        viewer->message_until = 0;
        viewer->message[0] = '\0';
        viewer->dirty = true;
    }
    if (loading && !viewer->load.quiet)
        viewer->dirty = true; // the loading screen (or the HUD's "reloading") shows the progress
}

/* Milliseconds until periodic() has something to do. */
static int next_wakeup(const sr_viewer *viewer)
{
    if (viewer->load.running)
        return LOADING_REDRAW_MS;
    uint32_t ticks = SDL_GetTicks();
    int wait = 1000;
    int play = viewer_playback_wakeup(viewer);
    if (play >= 0)
        wait = play;
    if (viewer_owns_file(viewer)) {
        uint32_t since = ticks - viewer->last_poll;
        int poll = since >= MTIME_POLL_MS ? 1 : (int)(MTIME_POLL_MS - since);
        wait = poll < wait ? poll : wait;
    }
    if (viewer->message_until) {
        int32_t left = (int32_t)(viewer->message_until - ticks);
        if (left < wait)
            wait = left > 1 ? left : 1;
    }
    return wait;
}

/* The framebuffer follows the drawable size of the window. */
static sr_status fit_framebuffer(sr_viewer *viewer, sr_error *err)
{
    int width = 0, height = 0;
    if (SDL_GetRendererOutputSize(viewer->sdl_renderer, &width, &height) != 0 || width <= 0 || height <= 0)
        return SR_OK; // minimised: keep the old size
    if (width > SR_MAX_IMAGE_SIDE)
        width = SR_MAX_IMAGE_SIDE;
    if (height > SR_MAX_IMAGE_SIDE)
        height = SR_MAX_IMAGE_SIDE;
    if (viewer->fb->width == width && viewer->fb->height == height)
        return SR_OK;
    return sr_framebuffer_resize(viewer->fb, width, height, err);
}

/* The texture format: ARGB8888 (bytes b, g, r, a on little-endian machines) where the renderer
 * has it, since window surfaces and GPU drivers store that order and a copy then needs no
 * conversion; otherwise RGBA32, sr_rgba8's own byte order. */
static Uint32 texture_format(SDL_Renderer *renderer)
{
    SDL_RendererInfo info;
    if (SDL_BYTEORDER == SDL_LIL_ENDIAN && SDL_GetRendererInfo(renderer, &info) == 0)
        for (Uint32 i = 0; i < info.num_texture_formats; i++)
            if (info.texture_formats[i] == SDL_PIXELFORMAT_ARGB8888)
                return SDL_PIXELFORMAT_ARGB8888;
    return SDL_PIXELFORMAT_RGBA32;
}

/* Swaps r and b of `count` RGBA8 pixels into ARGB8888 ones. The arrays do not overlap (restrict):
 * the compiler then turns the loop into vector instructions, 8 to 16 pixels at a time (scalar,
 * the copy of a 1280x720 frame took 0.7 ms of the main thread, 3% of a frame with contacts). */
static void swap_red_blue(const uint32_t *restrict from, uint32_t *restrict to, size_t count)
{
    for (size_t x = 0; x < count; x++) {
        const uint32_t p = from[x];
        to[x] = (p & 0xff00ff00u) | (p & 0xffu) << 16 | (p >> 16 & 0xffu);
    }
}

/* Copies the framebuffer into the locked texture, swapping r and b for ARGB8888. */
static void copy_pixels(const sr_framebuffer *fb, Uint32 format, void *pixels, int pitch)
{
    for (int y = 0; y < fb->height; y++) {
        const uint32_t *from = fb->color + (size_t)y * (size_t)fb->width;
        uint32_t *to = (uint32_t *)((unsigned char *)pixels + (size_t)y * (size_t)pitch);
        if (format == SDL_PIXELFORMAT_RGBA32)
            memcpy(to, from, (size_t)fb->width * sizeof *to);
        else
            swap_red_blue(from, to, (size_t)fb->width);
    }
}

static sr_status present(sr_viewer *viewer, sr_error *err)
{
    sr_framebuffer *fb = viewer->fb;
    if (!viewer->texture || viewer->texture_width != fb->width || viewer->texture_height != fb->height) {
        if (viewer->texture)
            SDL_DestroyTexture(viewer->texture);
        viewer->texture_format = texture_format(viewer->sdl_renderer);
        viewer->texture = SDL_CreateTexture(viewer->sdl_renderer, viewer->texture_format, SDL_TEXTUREACCESS_STREAMING,
                                            fb->width, fb->height);
        if (!viewer->texture)
            return sr_error_set(err, SR_ERROR_UNSUPPORTED, "SDL_CreateTexture %dx%d: %s", fb->width, fb->height,
                                SDL_GetError());
        viewer->texture_width = fb->width;
        viewer->texture_height = fb->height;
    }
    void *pixels = NULL;
    int pitch = 0;
    if (SDL_LockTexture(viewer->texture, NULL, &pixels, &pitch) != 0)
        return sr_error_set(err, SR_ERROR_UNSUPPORTED, "SDL_LockTexture: %s", SDL_GetError());
    copy_pixels(fb, viewer->texture_format, pixels, pitch);
    SDL_UnlockTexture(viewer->texture);
    // The texture covers the whole output: no clear first (on the software renderer a clear is
    // one more pass over every pixel).
    SDL_RenderCopy(viewer->sdl_renderer, viewer->texture, NULL, NULL);
    SDL_RenderPresent(viewer->sdl_renderer);
    return SR_OK;
}

/* The window's title says what is shown and what the viewer is busy with; the frame times are
 * the HUD's. Set when it changes (not on every frame), so it follows a load that finishes or a
 * slow frame that starts without waiting for input. `busy` (NULL: none) is what a slow frame
 * being computed does. */
static void update_title(sr_viewer *viewer, const char *busy)
{
    char title[512];
    if (!viewer->scene)
        snprintf(title, sizeof title, "%s - %s - %s", viewer->title, viewer->scene_name,
                 viewer->load.running ? "loading" : "not loaded");
    else
        snprintf(title, sizeof title, "%s - %s%s%s%s", viewer->title, viewer->scene_name,
                 viewer->load.running && !viewer->load.quiet ? " - reloading" : "",
                 viewer->load_error[0] ? " - reload failed" : "", viewer->frozen ? " - culling frozen" : "");
    const viewer_playback *playback = viewer->playback;
    if (playback && playback->has_frame)
        snprintf(title + strlen(title), sizeof title - strlen(title), " - frame %llu / %llu%s",
                 (unsigned long long)playback->frame.index, (unsigned long long)(playback->info->frame_count - 1),
                 playback->playing ? " - playing" : "");
    if (busy)
        snprintf(title + strlen(title), sizeof title - strlen(title), " - %s", busy);
    if (strcmp(title, viewer->title_shown) == 0)
        return;
    snprintf(viewer->title_shown, sizeof viewer->title_shown, "%s", title);
    SDL_SetWindowTitle(viewer->window, title);
}

/* Before a frame that takes long (the heat map: a pick per pixel), the last frame is shown again
 * with a notice and the title says so, so that the window does not look frozen meanwhile. */
static void announce_slow_frame(sr_viewer *viewer)
{
    if (!viewer->scene || !(viewer->overlays & SR_OVERLAY_HEAT) || viewer->frames == 0)
        return;
    char what[128];
    snprintf(what, sizeof what, "computing the heat map (%d x %d picks; T turns it off)", viewer->fb->width,
             viewer->fb->height);
    update_title(viewer, "computing the heat map");
    viewer_notice_slow_frame(viewer, what);
    sr_error ignored = {0};
    present(viewer, &ignored);
}

int viewer_program_lists(const sr_viewer *viewer, sr_debug_list **lists)
{
    int count = 0;
    for (int i = 0; i < viewer->list_count; i++)
        lists[count++] = viewer->lists[i];
    if (viewer->extra) {
        bool added = false;
        for (int i = 0; i < viewer->list_count; i++)
            added |= viewer->lists[i] == viewer->extra;
        if (!added)
            lists[count++] = viewer->extra;
    }
    return count;
}

int viewer_lists_summary(const sr_viewer *viewer, size_t *items, size_t *dropped)
{
    sr_debug_list *lists[SR_VIEWER_MAX_LISTS + 1];
    int count = viewer_program_lists(viewer, lists);
    *items = *dropped = 0;
    for (int i = 0; i < count; i++) {
        sr_debug_list_stats stats = sr_debug_list_get_stats(lists[i]);
        *items += stats.items;
        *dropped += stats.items_dropped;
    }
    return count;
}

bool viewer_lists_changed(const sr_viewer *viewer)
{
    sr_debug_list *lists[SR_VIEWER_MAX_LISTS + 1];
    int count = viewer_program_lists(viewer, lists);
    if (count != viewer->drawn_count)
        return true;
    for (int i = 0; i < count; i++)
        if (lists[i] != viewer->drawn_lists[i] || sr_debug_list_generation(lists[i]) != viewer->drawn_generations[i])
            return true;
    return false;
}

/* Before the very first frame, a load that is about to finish is waited for (up to
 * FIRST_LOAD_WAIT_MS after the viewer was created), so that a file that opens at once is shown
 * without a loading screen flashing first; a longer load shows its progress after that. */
static void wait_for_first_load(sr_viewer *viewer)
{
    while (viewer->load.running && !viewer->quit) {
        int32_t left = (int32_t)(viewer->created_ticks + FIRST_LOAD_WAIT_MS - SDL_GetTicks());
        if (left <= 0)
            break;
        viewer_pump(viewer, left); // the worker's wake event ends the wait
        viewer_load_poll(viewer);
    }
}

bool viewer_draw_if_needed(sr_viewer *viewer, bool force)
{
    if (viewer->frames == 0 && viewer->load.running)
        wait_for_first_load(viewer);
    if (!viewer->dirty && !force && !viewer_lists_changed(viewer))
        return true;
    viewer->dirty = false;
    double start = now_ms();
    sr_error err = {0};
    sr_status status = fit_framebuffer(viewer, &err);
    double render_ms = 0.0;
    if (status == SR_OK && viewer->fb->width == viewer->texture_width && viewer->fb->height == viewer->texture_height)
        announce_slow_frame(viewer); // over the last frame: not after a resize, which has none of this size
    if (status == SR_OK)
        status = viewer_render(viewer, &render_ms, &err);
    if (status == SR_OK)
        status = present(viewer, &err);
    if (status != SR_OK) {
        viewer->failure = err;
        viewer->failure.status = status;
        return false;
    }
    sr_debug_list *lists[SR_VIEWER_MAX_LISTS + 1];
    viewer->drawn_count = viewer_program_lists(viewer, lists);
    for (int i = 0; i < viewer->drawn_count; i++) {
        viewer->drawn_lists[i] = lists[i];
        viewer->drawn_generations[i] = sr_debug_list_generation(lists[i]);
    }
    double frame_ms = now_ms() - start;
    viewer->last_frame_ms = frame_ms;
    viewer->last_render_ms = render_ms;
    viewer->frame_ms[viewer->frames % VIEWER_TIMES] = frame_ms;
    viewer->render_ms[viewer->frames % VIEWER_TIMES] = render_ms;
    viewer->frames++;
    viewer->presents[viewer->present_count++ % VIEWER_PRESENTS] = SDL_GetTicks();
    update_title(viewer, NULL);
    return true;
}

sr_status viewer_save(sr_viewer *viewer, const char *path, sr_error *err)
{
    if (!viewer_draw_if_needed(viewer, viewer->frames == 0)) {
        if (err)
            *err = viewer->failure;
        return viewer->failure.status;
    }
    return sr_framebuffer_save(viewer->fb, path, err);
}

/* ---- the public API ---- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *values, uint64_t count)
{
    size_t n = count < VIEWER_TIMES ? (size_t)count : VIEWER_TIMES;
    if (n == 0)
        return 0.0;
    double sorted[VIEWER_TIMES];
    memcpy(sorted, values, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

sr_viewer_stats sr_viewer_get_stats(const sr_viewer *viewer)
{
    SDL_assert(viewer);
    sr_viewer_stats stats = {.frames = viewer->frames,
                             .last_frame_ms = viewer->last_frame_ms,
                             .median_frame_ms = median(viewer->frame_ms, viewer->frames),
                             .median_render_ms = median(viewer->render_ms, viewer->frames)};
    // Presents within the last second (the ring holds more than any display shows in one).
    uint32_t ticks = SDL_GetTicks();
    size_t kept = viewer->present_count < VIEWER_PRESENTS ? (size_t)viewer->present_count : VIEWER_PRESENTS;
    uint32_t oldest = ticks;
    int recent = 0;
    for (size_t i = 0; i < kept; i++) {
        uint32_t at = viewer->presents[i];
        if (ticks - at < 1000u) {
            recent++;
            if ((int32_t)(at - oldest) < 0)
                oldest = at;
        }
    }
    // Over the span those frames cover (a burst of a few frames is not a rate of one second).
    if (recent >= 2 && ticks > oldest)
        stats.fps = (double)(recent - 1) * 1000.0 / (double)(ticks - oldest > 1000u ? 1000u : ticks - oldest);
    return stats;
}

/* The default threads: one per core. */
static int default_threads(void)
{
    int cores = SDL_GetCPUCount();
    return cores < 1 ? 1 : cores > SR_MAX_THREADS ? SR_MAX_THREADS : cores;
}

static void use_scene(sr_viewer *viewer, sr_scene *scene, bool owned)
{
    viewer->scene = scene;
    viewer->owns_scene = owned;
    snprintf(viewer->scene_name, sizeof viewer->scene_name, "%s", sr_scene_name(scene));
    sr_camera camera = sr_scene_camera(scene);
    viewer->home = sr_camera_resolve(&camera);
    viewer_reset_camera(viewer);
}

sr_status sr_viewer_create(const sr_viewer_desc *desc, sr_scene *scene, sr_viewer **out, sr_error *err)
{
    SDL_assert(out);
    *out = NULL;
    sr_viewer_desc d = desc ? *desc : (sr_viewer_desc){0};
    if (d.width < 0 || d.height < 0 || d.width > SR_MAX_IMAGE_SIDE || d.height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_viewer_create: size %dx%d outside 1 to %d", d.width,
                            d.height, SR_MAX_IMAGE_SIDE);
    if (d.threads < 0 || d.threads > SR_MAX_THREADS)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_viewer_create: threads %d outside 0 to %d", d.threads,
                            SR_MAX_THREADS);
    if (d.scene_path && strlen(d.scene_path) >= sizeof((sr_viewer *)0)->scene_path)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_viewer_create: scene path too long");
    if (d.save_folder && (d.save_folder[0] == '\0' || strlen(d.save_folder) >= sizeof((sr_viewer *)0)->save_folder))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_viewer_create: save_folder %s",
                            d.save_folder[0] ? "too long" : "is empty");
    sr_viewer *viewer = sr_calloc(1, sizeof *viewer);
    if (!viewer)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_viewer_create: out of memory");
    pthread_mutex_init(&viewer->load.lock, NULL);
    snprintf(viewer->title, sizeof viewer->title, "%s", d.title ? d.title : "softrast");
    snprintf(viewer->scene_path, sizeof viewer->scene_path, "%s", d.scene_path ? d.scene_path : "");
    // Frames are saved where the program says, else next to the scene file, else into the
    // current folder.
    const char *slash = d.scene_path ? strrchr(d.scene_path, '/') : NULL;
    if (d.save_folder)
        snprintf(viewer->save_folder, sizeof viewer->save_folder, "%s", d.save_folder);
    else if (slash && slash == d.scene_path)
        snprintf(viewer->save_folder, sizeof viewer->save_folder, "/");
    else if (slash)
        snprintf(viewer->save_folder, sizeof viewer->save_folder, "%.*s", (int)(slash - d.scene_path), d.scene_path);
    else
        snprintf(viewer->save_folder, sizeof viewer->save_folder, ".");
    d.title = viewer->title;
    d.scene_path = viewer->scene_path[0] ? viewer->scene_path : NULL;
    d.save_folder = viewer->save_folder;
    d.width = d.width ? d.width : VIEWER_DEFAULT_WIDTH;
    d.height = d.height ? d.height : VIEWER_DEFAULT_HEIGHT;
    viewer->desc = d;
    viewer->threads = d.threads ? d.threads : default_threads();
    viewer->overlays = SR_OVERLAY_HUD;
    viewer->bvh_last = VIEWER_BVH_WINDOW - 1;
    viewer->mesh_bvh_last = VIEWER_MESH_BVH_WINDOW - 1;
    viewer->scale_x = viewer->scale_y = 1.0f;
    viewer->dirty = true;
    viewer->last_poll = SDL_GetTicks();
    viewer->created_ticks = SDL_GetTicks();
    viewer->load.cache_bytes = d.recording_cache_bytes ? d.recording_cache_bytes : VIEWER_RECORDING_CACHE_BYTES;

    sr_status status = SR_OK;
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
        status = sr_error_set(err, SR_ERROR_UNSUPPORTED, "cannot start SDL's video: %s", SDL_GetError());
    } else {
        viewer->sdl_ready = true;
        Uint32 wake = SDL_RegisterEvents(1);
        viewer->load.wake_event = wake == (Uint32)-1 ? 0 : wake;
        // The file loads on the worker while the window, the renderer and the framebuffer are
        // made (a recording's first frame is often ready before they are).
        if (!scene && viewer->scene_path[0] && !viewer_load_start(viewer, false))
            status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: cannot start loading", viewer->scene_path);
        Uint32 flags = SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI | (d.hidden ? SDL_WINDOW_HIDDEN : 0u);
        viewer->window =
            SDL_CreateWindow(viewer->title, SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, d.width, d.height, flags);
        if (!viewer->window)
            status = sr_error_set(err, SR_ERROR_UNSUPPORTED, "cannot open a %dx%d window: %s", d.width, d.height,
                                  SDL_GetError());
    }
    if (status == SR_OK) {
        // Any renderer that can show a texture; the software one where there is no GPU driver.
        viewer->sdl_renderer = SDL_CreateRenderer(viewer->window, -1, 0);
        if (!viewer->sdl_renderer)
            viewer->sdl_renderer = SDL_CreateRenderer(viewer->window, -1, SDL_RENDERER_SOFTWARE);
        if (!viewer->sdl_renderer)
            status = sr_error_set(err, SR_ERROR_UNSUPPORTED, "cannot draw into the window: %s", SDL_GetError());
    }
    int width = d.width, height = d.height;
    if (status == SR_OK && (SDL_GetRendererOutputSize(viewer->sdl_renderer, &width, &height) != 0 || width <= 0 ||
                            height <= 0 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE)) {
        width = d.width;
        height = d.height;
    }
    if (status == SR_OK)
        status = sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height}, &viewer->fb, err);
    if (status == SR_OK)
        status = sr_renderer_create(&(sr_renderer_desc){.threads = viewer->threads}, &viewer->renderer, err);
    if (status == SR_OK)
        status = sr_scene_frame_create(&viewer->frame, err);
    if (status == SR_OK)
        status = sr_debug_list_create(NULL, &viewer->list, err);
    if (status == SR_OK)
        status = sr_debug_list_create(NULL, &viewer->hud_list, err);
    if (status == SR_OK) {
        if (scene) {
            use_scene(viewer, scene, false);
        } else if (viewer->scene_path[0]) {
            const char *name = strrchr(viewer->scene_path, '/');
            snprintf(viewer->scene_name, sizeof viewer->scene_name, "%.127s", name ? name + 1 : viewer->scene_path);
            viewer->home = sr_bench_camera();
            viewer_reset_camera(viewer);
        } else {
            // No scene: an empty one of the viewer's own, so that the camera, the grid, the axes
            // and the HUD work as with any other.
            sr_scene *empty = NULL;
            status = sr_scene_create(&(sr_scene_desc){.name = "no scene"}, &empty, err);
            if (status == SR_OK) {
                use_scene(viewer, empty, true);
                viewer->no_scene = true;
            }
        }
    }
    if (status != SR_OK) {
        sr_viewer_destroy(viewer);
        return status;
    }
    update_scale(viewer);
    *out = viewer;
    return SR_OK;
}

void sr_viewer_destroy(sr_viewer *viewer)
{
    if (!viewer)
        return;
    viewer_load_stop(viewer);
    viewer_pass_stop(viewer);
    pthread_mutex_destroy(&viewer->load.lock);
    viewer_playback_free(viewer);
    viewer_item_pick_free(viewer);
    sr_debug_pair_trace_free(&viewer->pair.trace);
    sr_collision_destroy(viewer->collision);
    if (viewer->owns_scene)
        sr_scene_destroy(viewer->scene);
    sr_debug_list_destroy(viewer->list);
    sr_debug_list_destroy(viewer->hud_list);
    sr_scene_frame_destroy(viewer->frame);
    sr_renderer_destroy(viewer->renderer);
    sr_framebuffer_destroy(viewer->fb);
    if (viewer->texture)
        SDL_DestroyTexture(viewer->texture);
    if (viewer->sdl_renderer)
        SDL_DestroyRenderer(viewer->sdl_renderer);
    if (viewer->window)
        SDL_DestroyWindow(viewer->window);
    if (viewer->sdl_ready)
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
    sr_free(viewer);
}

bool sr_viewer_frame(sr_viewer *viewer, sr_debug_list *extra, sr_error *err)
{
    SDL_assert(viewer);
    if (viewer->quit)
        return false;
    // Kept until the next call: a save, the S key or a script in between draws it too.
    viewer->extra = extra;
    // What the program changed since the last call, before the input: a click picks the nodes
    // where they are now (the pick brings the scene up to date).
    viewer_watch_scene(viewer);
    viewer_pump(viewer, 0);
    viewer_periodic(viewer);
    bool needed = viewer->dirty || viewer_lists_changed(viewer);
    if (!viewer->quit && !needed) {
        // Nothing to draw: memory for the recording's next first visit (while its cache fills),
        // else wait for input a little, so that a loop around this call does not spin.
        viewer_pump(viewer, viewer_playback_prepare(viewer) ? 0 : FRAME_IDLE_WAIT_MS);
        viewer_periodic(viewer);
    }
    if (!viewer->quit && !viewer_draw_if_needed(viewer, false)) {
        if (err)
            *err = viewer->failure;
        return false;
    }
    return !viewer->quit;
}

sr_status sr_viewer_run(sr_viewer *viewer, sr_error *err)
{
    SDL_assert(viewer);
    while (!viewer->quit) {
        viewer_periodic(viewer);
        if (!viewer_draw_if_needed(viewer, false)) {
            if (err)
                *err = viewer->failure;
            return viewer->failure.status;
        }
        // Sleep in SDL until input arrives or periodic() has work: no CPU while idle, once the
        // memory for the recording's next first visit is ready (while its cache fills).
        int wait = next_wakeup(viewer);
        viewer_pump(viewer, wait > 0 && viewer_playback_prepare(viewer) ? 0 : wait);
    }
    return SR_OK;
}

bool sr_viewer_probe(char *reason, size_t size)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
        snprintf(reason, size, "SDL cannot start its video: %s", SDL_GetError());
        return false;
    }
    const char *driver = SDL_GetCurrentVideoDriver();
    bool ok = false;
    if (driver && (strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0)) {
        const char *asked = SDL_getenv("SDL_VIDEODRIVER");
        if (asked && asked[0])
            snprintf(reason, size, "SDL_VIDEODRIVER=%s shows no window", asked);
        else
            snprintf(reason, size,
                     "SDL found no display it can open (DISPLAY=%s, WAYLAND_DISPLAY=%s) and fell back "
                     "to its '%s' driver, which shows no window",
                     SDL_getenv("DISPLAY") ? SDL_getenv("DISPLAY") : "",
                     SDL_getenv("WAYLAND_DISPLAY") ? SDL_getenv("WAYLAND_DISPLAY") : "", driver);
    } else {
        SDL_Window *window = SDL_CreateWindow("softrast probe", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 64,
                                              64, SDL_WINDOW_HIDDEN);
        SDL_Renderer *renderer = window ? SDL_CreateRenderer(window, -1, 0) : NULL;
        if (window && !renderer)
            renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE);
        ok = window && renderer;
        if (ok)
            snprintf(reason, size, "SDL opened a window (video driver '%s')", driver ? driver : "?");
        else
            snprintf(reason, size, "SDL cannot open a window: %s", SDL_GetError());
        if (renderer)
            SDL_DestroyRenderer(renderer);
        if (window)
            SDL_DestroyWindow(window);
    }
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    return ok;
}
