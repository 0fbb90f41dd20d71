/* cmd_render.c — `softrast render`: one frame of a scene file, a mesh (as a model viewer opens
 * it, or as the benchmark scene) or the built-in demo scene, written to an image file,
 * optionally with the depth and id buffers as raw files and the frame's statistics as JSON.
 * Everything the user gives is checked before any work starts; every failure prints one
 * message naming the argument or file and leaves no output file behind. A frame that draws
 * nothing says why on stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/debug.h>
#include <softrast/raster.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>

#include "app_scene.h"
#include "args.h"
#include "commands.h"

#define DEFAULT_OUT "frame.bmp"
#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720

typedef struct render_options {
    const char *scene_path; ///< NULL: the demo scene
    const char *out_path;
    const char *depth_path;   ///< NULL: not written
    const char *ids_path;     ///< NULL: not written
    sr_app_view_options view; ///< --camera, --up
    const char *debug_camera; ///< --debug-camera SPEC: view from here, cull with the scene camera
    const char *overlay;      ///< --overlay LIST
    double margin;            ///< --margin D: the collision pass's near-pair margin (0: its default)
    bool margin_given;
    int width, height;
    long threads;
    bool stats;
    bool no_culling;
    const sr_shader *shader; ///< NULL: the materials' shaders
} render_options;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast render [SCENE.json | MESH.obj] [--out FILE] [--size WxH] [--shader NAME]\n"
            "                       [--camera SPEC] [--up y|z] [--overlay LIST] [--debug-camera SPEC]\n"
            "                       [--depth FILE] [--ids FILE] [--stats] [--no-culling] [--threads N]\n"
            "                       [--margin D]\n"
            "\n"
            "Renders one frame of a scene file (the format is in the README), of a mesh, or of the\n"
            "built-in demo scene (ground, sphere, box, torus) when neither is given. A mesh is shown as\n"
            "a model viewer opens it: normalised to [-1,1]^3, seen from a three-quarter view that fits\n"
            "it (--camera fit), lit by a two-sided light that turns with the camera (slightly above and\n"
            "to the right of the eye), its vertex colours shown when the file has them (OBJ 'v x y z r\n"
            "g b') and its materials when it has them; --camera bench draws it as the benchmark scene\n"
            "instead (below). Instances outside the camera's frustum are culled (the picture is the\n"
            "same without culling).\n"
            "\n"
            "options:\n"
            "  --out FILE     colour image, .bmp or .png (default " DEFAULT_OUT " in the current folder)\n"
            "  --size WxH     image size in pixels, each side 1 to %d (default %dx%d)\n",
            SR_MAX_IMAGE_SIDE, DEFAULT_WIDTH, DEFAULT_HEIGHT);
    sr_app_print_view_help(out, false);
    fputs("  --shader NAME  draw everything with one shader instead of the materials' shaders:\n", out);
    for (size_t i = 0; i < sr_shader_count(); i++)
        fprintf(out, "                   %-16s %s\n", sr_shader_get(i)->name, sr_shader_get(i)->summary);
    fprintf(out,
            "                 OBJ files without uvs or colours: textured maps an 8x8 checker texture by\n"
            "                 the planar projection u = (x+1)/2, v = (1-y)/2 of the normalised mesh, and\n"
            "                 the vertex colour shaders show the normalised position as colour\n"
            "                 (p * 0.5 + 0.5).\n"
            "  --overlay LIST what the queries did, drawn over the frame; comma-separated items:\n"
            "                   bvh[:A-B]       the instance BVH's boxes (depths A to B), coloured by depth\n"
            "                   mesh-bvh[:A-B]  the triangle BVHs of drawn instances (default depths 0-5)\n"
            "                   bounds          each drawn instance's world box (green)\n"
            "                   normals         vertex normals as short lines (light blue)\n"
            "                   wire            triangle edges (near black)\n"
            "                   pick:X,Y        the pick at window point X,Y: ray (cyan), hit and triangle\n"
            "                                   (magenta), normal (yellow), instance box (white)\n"
            "                   frustum         the culling camera's frustum (yellow), culled instances grey\n"
            "                   heat            BVH nodes visited by each pixel's pick, with a legend\n"
            "                   axes, grid      world axes at the origin, a ground grid at y = 0\n"
            "                   hud             statistics at the top left (text scaled with the image)\n"
            "                   contacts        the collision pass over the scene's shapes: each touching or\n"
            "                                   penetrating pair's contact point (red dot), its normal from\n"
            "                                   the first shape to the second (yellow arrow, longer the\n"
            "                                   deeper) and its depth (red text)\n"
            "                   closest         pairs apart by at most the margin: the segment between\n"
            "                                   their closest points and the distance (light blue)\n"
            "                   pairs           the broadphase's candidate pairs as lines between their\n"
            "                                   boxes' centres: red in contact, light blue near, light grey\n"
            "                                   where the narrowphase found them apart\n"
            "  --debug-camera SPEC  draw from this camera (same syntax as --camera) while culling still\n"
            "                 uses the --camera one: its frustum and the culled instances (grey boxes)\n"
            "                 are drawn too; without far= its far plane reaches past the whole scene\n");
    fprintf(out,
            "  --depth FILE   window depth in [0,1] per pixel: raw little-endian float32, top row first,\n"
            "                 1.0 where nothing was drawn\n"
            "  --ids FILE     what was drawn per pixel, raw little-endian uint32, top row first:\n"
            "                 for a mesh one value, the triangle's index in file order after\n"
            "                 triangulation; for a scene (or the demo scene) two values, the node's\n"
            "                 index and the triangle's index in that node's mesh; 0xffffffff where\n"
            "                 nothing was drawn\n"
            "  --stats        print the frame's statistics as one JSON line instead of the summary:\n"
            "                 instances (total, culled, drawn), triangles (submitted, back-face\n"
            "                 culled, clipped, drawn), fragments shaded, draw calls, milliseconds per\n"
            "                 stage (load, update, cull, draw); for a scene with collision shapes, also\n"
            "                 the collision pass: shapes, candidate pairs, queries, contacts, near pairs\n"
            "                 and milliseconds of broadphase and narrowphase\n"
            "  --margin D     the collision pass's margin: pairs apart by at most D (world units) are\n"
            "                 near pairs (default %g; 0: contacts only)\n"
            "  --no-culling   draw every instance, also those outside the frustum (the same picture,\n"
            "                 slower: for measuring what culling saves)\n"
            "  --threads N    rendering threads, 1 to %d (default 1); the image does not depend on N\n"
            "  --help         this text\n"
            "\n"
            "The collision pass (contacts, closest, pairs, and the counts of hud and --stats) runs once\n"
            "over the shapes of the nodes that have one (a scene file's \"shape\" key), hidden or not.\n"
            "Files are written under a temporary name and renamed; when one output fails, the ones\n"
            "already written by this run are removed. Prints one line on success. A frame in which\n"
            "no triangle covers a pixel is still written (exit 0), with a warning on stderr saying\n"
            "why (nothing to draw, everything outside the view, every triangle culled, too small).\n"
            "Exit status: 0 written, 1 a file or the rendering failed, 2 a usage error.\n"
            "\n",
            SR_COLLISION_DEFAULT_MARGIN, SR_MAX_THREADS);
    sr_app_print_bench_scene(out);
}

/* --margin D: a finite number >= 0 (and not absurdly large). */
static bool parse_margin(const char *value, double *out, char error[SR_ARGS_ERROR_SIZE])
{
    char *end = NULL;
    double margin = strtod(value, &end);
    if (end == value || *end != '\0' || !isfinite(margin) || margin < 0.0 || margin > 1e9) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "--margin: '%s' is not a distance (a number from 0 to 1e9)", value);
        return false;
    }
    *out = margin;
    return true;
}

/* Returns -1 to go on rendering, otherwise the exit status (0 after --help). */
static int parse_options(int argc, char **argv, render_options *o)
{
    *o = (render_options){.out_path = DEFAULT_OUT, .width = DEFAULT_WIDTH, .height = DEFAULT_HEIGHT, .threads = 1};
    char error[SR_ARGS_ERROR_SIZE] = "";
    const char *shader_name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (sr_args_is_help(arg)) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--stats") == 0) {
            o->stats = true;
        } else if (strcmp(arg, "--no-culling") == 0) {
            o->no_culling = true;
        } else if (strcmp(arg, "--out") == 0 || strcmp(arg, "--depth") == 0 || strcmp(arg, "--ids") == 0 ||
                   strcmp(arg, "--size") == 0 || strcmp(arg, "--shader") == 0 || strcmp(arg, "--camera") == 0 ||
                   strcmp(arg, "--threads") == 0 || strcmp(arg, "--overlay") == 0 ||
                   strcmp(arg, "--debug-camera") == 0 || strcmp(arg, "--up") == 0 || strcmp(arg, "--margin") == 0) {
            if (!sr_args_take_value(argc, argv, &i, &value, error))
                goto fail;
            if (strcmp(arg, "--out") == 0)
                o->out_path = value;
            else if (strcmp(arg, "--depth") == 0)
                o->depth_path = value;
            else if (strcmp(arg, "--ids") == 0)
                o->ids_path = value;
            else if (strcmp(arg, "--shader") == 0)
                shader_name = value;
            else if (strcmp(arg, "--camera") == 0) {
                if (!sr_app_parse_camera_option(value, &o->view, error))
                    goto fail;
            } else if (strcmp(arg, "--up") == 0) {
                if (!sr_app_parse_up_option(value, &o->view, error))
                    goto fail;
            } else if (strcmp(arg, "--debug-camera") == 0)
                o->debug_camera = value;
            else if (strcmp(arg, "--overlay") == 0)
                o->overlay = value;
            else if (strcmp(arg, "--margin") == 0) {
                if (!parse_margin(value, &o->margin, error))
                    goto fail;
                o->margin_given = true;
            }
            else if (strcmp(arg, "--threads") == 0) {
                if (!sr_args_parse_int("--threads", value, 1, SR_MAX_THREADS, &o->threads, error))
                    goto fail;
            } else if (!sr_args_parse_size("--size", value, SR_MAX_IMAGE_SIDE, &o->width, &o->height, error))
                goto fail;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast render --help)", arg);
            goto fail;
        } else if (o->scene_path) {
            snprintf(error, sizeof error, "more than one scene or mesh given ('%s' and '%s')", o->scene_path, arg);
            goto fail;
        } else {
            o->scene_path = arg;
        }
    }
    if (shader_name) {
        o->shader = sr_shader_find(shader_name);
        if (!o->shader) {
            snprintf(error, sizeof error, "--shader: unknown shader '%s' (known: %s)", shader_name, sr_shader_names());
            goto fail;
        }
    }
    if (o->overlay) {
        sr_overlay_desc overlay = {0};
        sr_error overlay_error = {0};
        if (sr_overlay_parse(o->overlay, &overlay, &overlay_error) != SR_OK) {
            snprintf(error, sizeof error, "--overlay: %.200s", overlay_error.message);
            goto fail;
        }
        if ((overlay.items & SR_OVERLAY_PICK) && !(overlay.pick_x >= 0.0f && overlay.pick_x <= (float)o->width &&
                                                   overlay.pick_y >= 0.0f && overlay.pick_y <= (float)o->height)) {
            snprintf(error, sizeof error, "--overlay: pick:%g,%g is outside the %dx%d image", (double)overlay.pick_x,
                     (double)overlay.pick_y, o->width, o->height);
            goto fail;
        }
    }
    if (!sr_args_has_extension(o->out_path, ".bmp") && !sr_args_has_extension(o->out_path, ".png")) {
        snprintf(error, sizeof error, "--out: '%s' must end in .bmp or .png", o->out_path);
        goto fail;
    }
    const char *names[3] = {"--out", "--depth", "--ids"};
    const char *paths[3] = {o->out_path, o->depth_path, o->ids_path};
    for (int a = 0; a < 3; a++) {
        if (!paths[a])
            continue;
        if (!sr_app_check_output_path(names[a], paths[a], error))
            goto fail;
        for (int b = 0; b < a; b++)
            if (paths[b] && strcmp(paths[a], paths[b]) == 0) {
                snprintf(error, sizeof error, "%s and %s name the same file '%s'", names[b], names[a], paths[a]);
                goto fail;
            }
    }
    if (o->debug_camera) {
        sr_app_view_options debug = {0};
        char debug_error[SR_ARGS_ERROR_SIZE];
        if (!sr_app_parse_camera_option(o->debug_camera, &debug, debug_error)) {
            snprintf(error, sizeof error, "--debug-camera%.4000s", debug_error + strlen("--camera"));
            goto fail;
        }
        if (debug.kind != SR_APP_CAMERA_DEFAULT) {
            snprintf(error, sizeof error,
                     "--debug-camera: '%s': give KEY=VALUE pairs (fit and bench are --camera's cameras)",
                     o->debug_camera);
            goto fail;
        }
    }
    return -1;
fail:
    fprintf(stderr, "softrast render: %s\n", error);
    return SR_EXIT_USAGE;
}

/* The id file: per pixel the triangle (mesh) or the node and the triangle (scene). */
static sr_status save_ids(const render_options *o, sr_app_input input, const sr_framebuffer *fb,
                          const sr_scene_frame *frame, sr_error *err)
{
    size_t pixels = (size_t)fb->width * (size_t)fb->height, per_pixel = input == SR_APP_INPUT_MESH ? 1 : 2;
    uint32_t *values = sr_alloc_array(pixels * per_pixel, sizeof *values);
    if (!values)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory for the ids", o->ids_path);
    for (size_t p = 0; p < pixels; p++) {
        sr_node_id node;
        uint32_t triangle;
        if (!sr_scene_frame_decode_id(frame, fb->ids[p], &node, &triangle)) {
            node.index = SR_NO_ID;
            triangle = SR_NO_ID;
        }
        // Little-endian on the machines softrast builds for (x86-64, arm64).
        if (per_pixel == 1) {
            values[p] = triangle;
        } else {
            values[2 * p] = node.index;
            values[2 * p + 1] = triangle;
        }
    }
    sr_status status = sr_file_write_atomic(o->ids_path, values, pixels * per_pixel * sizeof *values, err);
    sr_free(values);
    return status;
}

/* Writes the requested files in order; if one fails, removes the ones this run already wrote,
 * so the user never finds a colour image next to a missing id file and thinks both are new. */
static sr_status save_outputs(const render_options *o, sr_app_input input, const sr_framebuffer *fb,
                              const sr_scene_frame *frame, sr_error *err)
{
    sr_status status = sr_framebuffer_save(fb, o->out_path, err);
    if (status != SR_OK)
        return status;
    if (o->depth_path) {
        status = sr_framebuffer_save_depth(fb, o->depth_path, err);
        if (status != SR_OK) {
            sr_app_remove_written(o->out_path);
            return status;
        }
    }
    if (o->ids_path) {
        status = save_ids(o, input, fb, frame, err);
        if (status != SR_OK) {
            sr_app_remove_written(o->out_path);
            if (o->depth_path)
                sr_app_remove_written(o->depth_path);
            return status;
        }
    }
    return SR_OK;
}

static void print_stats(const render_options *o, const sr_scene_stats *s, double load_ms, const sr_collision *collision)
{
    printf("{\"out\": ");
    sr_app_print_json_string(stdout, o->out_path);
    printf(", \"size\": [%d, %d], \"threads\": %ld, "
           "\"instances\": {\"total\": %u, \"culled\": %u, \"drawn\": %u}, "
           "\"triangles\": {\"submitted\": %llu, \"backface_culled\": %llu, \"clipped\": %llu, \"drawn\": %llu}, "
           "\"fragments_shaded\": %llu, \"draw_calls\": %u, "
           "\"ms\": {\"load\": %.3f, \"update\": %.3f, \"cull\": %.3f, \"draw\": %.3f}",
           o->width, o->height, o->threads, s->instances_total, s->instances_culled, s->instances_drawn,
           (unsigned long long)s->triangles_submitted, (unsigned long long)s->triangles_backface_culled,
           (unsigned long long)s->triangles_clipped, (unsigned long long)s->triangles_drawn,
           (unsigned long long)s->fragments_shaded, s->draw_calls, load_ms, s->update_ms, s->cull_ms, s->draw_ms);
    if (collision) {
        const sr_collision_stats *c = &collision->stats;
        printf(", \"collision\": {\"shapes\": %u, \"margin\": %g, \"pairs\": %u, \"tests\": %u, \"reused\": %u, \"axis_rejects\": %u, "
               "\"contacts\": %u, \"near\": %u, \"iteration_caps\": %u, "
               "\"ms\": {\"broadphase\": %.3f, \"narrowphase\": %.3f}}",
               c->shapes, collision->margin, c->pairs, c->tests, c->reused, c->axis_rejects, c->contacts, c->near, c->iteration_caps,
               c->broadphase_ms, c->narrowphase_ms);
    }
    printf("}\n");
}

/* The distance from the view camera's eye past every node's box and every corner of the culling
 * camera's frustum, with 10% to spare: the far plane of a debug camera. */
static float far_enough(const sr_scene *scene, const sr_camera *view, const sr_camera *cull, int width, int height)
{
    sr_aabb box = sr_aabb_empty();
    for (sr_node_id n = sr_scene_first_child(scene, SR_NODE_NULL); n.generation; n = sr_scene_next_sibling(scene, n)) {
        sr_node_info info;
        if (sr_scene_node(scene, n, &info, NULL) == SR_OK)
            box = sr_aabb_merge(box, info.subtree_aabb);
    }
    sr_mat4 v, p, inverse;
    sr_camera_matrices(cull, width, height, &v, &p);
    if (sr_mat4_inverse(sr_mat4_mul(p, v), &inverse))
        for (int i = 0; i < 8; i++)
            box = sr_aabb_grow(box,
                               sr_mat4_transform_point_projective(
                                   inverse, sr_vec3_make(i & 1 ? 1.0f : -1.0f, i & 2 ? 1.0f : -1.0f, (float)(i >> 2))));
    float farthest = 0.0f;
    for (int i = 0; i < 8 && !sr_aabb_is_empty(box); i++) {
        sr_vec3 corner = {i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z};
        farthest = fmaxf(farthest, sr_vec3_length(sr_vec3_sub(corner, view->eye)));
    }
    return isfinite(farthest) ? 1.1f * farthest : 0.0f;
}

/* The camera of --camera or --debug-camera over `base`. */
static sr_status parse_camera(const char *option, const char *spec, sr_camera base, sr_camera *out, sr_error *err)
{
    sr_error camera_error = {0};
    if (sr_camera_parse(spec, &base, out, &camera_error) != SR_OK)
        return sr_error_set(err, camera_error.status, "%s: %.400s", option, camera_error.message);
    return SR_OK;
}

/* The collision pass of the collision overlays, the HUD and --stats, over a scene with shapes
 * (NULL in *out when there is no reason to run it). The scene is up to date after rendering. */
static sr_status run_collision(const render_options *o, sr_scene *scene, sr_collision **out, sr_error *err)
{
    *out = NULL;
    sr_overlay_desc overlay = {0};
    if (o->overlay && sr_overlay_parse(o->overlay, &overlay, NULL) != SR_OK)
        return SR_OK; // already checked by parse_options
    const uint32_t collision_items = SR_OVERLAY_CONTACTS | SR_OVERLAY_CLOSEST | SR_OVERLAY_PAIRS;
    bool wanted = o->stats || (overlay.items & (collision_items | SR_OVERLAY_HUD));
    if (sr_scene_shape_count(scene) == 0) {
        if (overlay.items & collision_items)
            fprintf(stderr, "softrast render: warning: the scene has no collision shapes (a node's \"shape\" key), "
                            "so contacts, closest and pairs draw nothing\n");
        return SR_OK;
    }
    if (!wanted)
        return SR_OK;
    sr_status status = sr_collision_create(out, err);
    if (status == SR_OK)
        status = sr_scene_collide(
            scene, &(sr_collision_desc){.margin = o->margin, .no_near = o->margin_given && o->margin == 0.0}, *out, err);
    return status;
}

/* The overlays of --overlay (and --debug-camera's frustum) over the rendered frame, drawn with the
 * view camera. */
static sr_status draw_overlays(const render_options *o, const sr_scene *scene, const sr_scene_frame *frame,
                               const sr_camera *view, const sr_camera *cull, double frame_ms,
                               const sr_collision *collision, sr_renderer *renderer, sr_framebuffer *fb, sr_error *err)
{
    sr_overlay_desc desc = {.cull_camera = cull, .frame_ms = frame_ms, .collision = collision};
    sr_status status = o->overlay ? sr_overlay_parse(o->overlay, &desc, err) : SR_OK;
    if (o->debug_camera)
        desc.items |= SR_OVERLAY_FRUSTUM;
    if (status == SR_OK)
        status = sr_app_draw_overlays(scene, frame, view, &desc, (int)o->threads, renderer, fb, err);
    return status;
}

int sr_cmd_render(int argc, char **argv)
{
    render_options options;
    int exit_status = parse_options(argc, argv, &options);
    if (exit_status >= 0)
        return exit_status;

    sr_error err = {0};
    sr_renderer *renderer = NULL;
    sr_framebuffer *fb = NULL;
    sr_scene_frame *frame = NULL;
    sr_texture *checker = NULL;
    sr_app_scene loaded = {0};
    sr_collision *collision = NULL;
    bool usage_error = false;

    double start = sr_app_now_ms();
    sr_status status = sr_app_load_scene(
        &(sr_app_scene_desc){.command = "softrast render",
                             .path = options.scene_path,
                             .view = options.view,
                             .width = options.width,
                             .height = options.height,
                             .position_colors = options.shader && (options.shader->inputs & SR_SHADER_INPUT_COLOR)},
        &loaded, &usage_error, &err);
    double load_ms = sr_app_now_ms() - start;
    sr_scene *scene = loaded.scene;
    sr_camera camera = loaded.camera, view = camera;
    if (status == SR_OK && options.debug_camera) {
        status = parse_camera("--debug-camera", options.debug_camera, camera, &view, &err);
        usage_error = status != SR_OK;
        // Unless the spec sets far=, the debug camera sees the whole scene and the culling
        // camera's frustum, however far out it stands.
        if (status == SR_OK && !strstr(options.debug_camera, "far="))
            view.far_z =
                fmaxf(sr_camera_resolve(&view).far_z, far_enough(scene, &view, &camera, options.width, options.height));
    }
    if (status == SR_OK)
        status = sr_framebuffer_create(
            &(sr_framebuffer_desc){.width = options.width, .height = options.height, .ids = options.ids_path != NULL},
            &fb, &err);
    if (status == SR_OK)
        status = sr_renderer_create(&(sr_renderer_desc){.threads = (int)options.threads}, &renderer, &err);
    if (status == SR_OK)
        status = sr_scene_frame_create(&frame, &err);
    if (status == SR_OK && options.shader && (options.shader->inputs & SR_SHADER_INPUT_TEXTURE))
        status = sr_app_checker_texture(&checker, &err);
    if (status == SR_OK) {
        sr_scene_render_desc desc = {.camera = &view,
                                     .cull_camera = options.debug_camera ? &camera : NULL,
                                     .shader = options.shader,
                                     .fallback_texture = checker,
                                     .no_culling = options.no_culling};
        double render_start = sr_app_now_ms();
        status = sr_scene_render(scene, &desc, renderer, fb, frame, &err);
        double frame_ms = sr_app_now_ms() - render_start;
        if (status == SR_OK)
            status = run_collision(&options, scene, &collision, &err);
        if (status == SR_OK && (options.overlay || options.debug_camera))
            status = draw_overlays(&options, scene, frame, &view, &camera, frame_ms, collision, renderer, fb, &err);
    }
    if (status == SR_OK)
        status = save_outputs(&options, loaded.input, fb, frame, &err);

    if (status == SR_OK) {
        sr_scene_stats stats = sr_scene_frame_stats(frame);
        char why[512];
        if (sr_app_why_nothing_drawn(scene, frame, &view, options.width, options.height, why, sizeof why))
            fprintf(stderr, "softrast render: warning: nothing was drawn, the image is only the background: %s\n", why);
        if (options.stats) {
            print_stats(&options, &stats, load_ms, collision);
        } else {
            char shading[256];
            sr_app_describe_shading(scene, options.shader, shading, sizeof shading);
            printf("softrast render: wrote %s (%dx%d, %s, %s%s, %llu triangles, %u of %u instances drawn, load %.1f "
                   "ms, render %.1f ms)",
                   options.out_path, options.width, options.height,
                   options.scene_path ? options.scene_path : "demo scene", loaded.bench ? "benchmark scene, " : "",
                   shading, (unsigned long long)stats.triangles_submitted, stats.instances_drawn, stats.instances_total,
                   load_ms, stats.update_ms + stats.cull_ms + stats.draw_ms);
            if (options.depth_path)
                printf(", depth %s", options.depth_path);
            if (options.ids_path)
                printf(", ids %s", options.ids_path);
            putchar('\n');
        }
    } else {
        fprintf(stderr, "softrast render: %s\n", err.message[0] ? err.message : sr_status_name(status));
    }
    sr_collision_destroy(collision);
    sr_texture_destroy(checker);
    sr_scene_frame_destroy(frame);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_scene_destroy(scene);
    return status == SR_OK ? 0 : usage_error ? SR_EXIT_USAGE : SR_EXIT_FAILURE;
}
