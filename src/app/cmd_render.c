/* cmd_render.c — `softrast render`: one frame of a mesh (BENCH_SCENE.md's canonical scene) or of
 * the built-in demo scene, written to an image file, optionally with the depth and id buffers
 * as raw files. Everything the user gives is checked before any work starts; every failure
 * prints one message naming the argument or file and leaves no output file behind. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <softrast/raster.h>
#include <softrast/scene.h>

#include "args.h"
#include "commands.h"
#include <softrast/shaders.h>

#define DEFAULT_OUT "frame.bmp"
#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720
/* Squares of the generated checker texture along the mesh's [-1, 1] extent (textured shader). */
#define CHECKER_SQUARES 8

typedef struct render_options {
    const char *mesh_path; ///< NULL: the demo scene
    const char *out_path;
    const char *depth_path; ///< NULL: not written
    const char *ids_path;   ///< NULL: not written
    int width, height;
    const sr_shader *shader; ///< NULL: lambert (mesh); the demo scene brings its own
} render_options;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: softrast render [MESH.obj] [--out FILE] [--size WxH] [--shader NAME]\n"
            "                       [--depth FILE] [--ids FILE]\n"
            "\n"
            "Renders one frame. With MESH.obj: BENCH_SCENE.md's canonical scene (the mesh normalised to\n"
            "[-1,1]^3 with area-weighted vertex normals, eye (0,0,3) looking at the origin, fov_y 45\n"
            "degrees, near 0.1, far 100, background 0.1 grey, depth LESS, no culling). Without a mesh:\n"
            "the built-in demo scene (ground, sphere, box, torus), which uses its own shaders.\n"
            "\n"
            "options:\n"
            "  --out FILE     colour image, .bmp or .png (default " DEFAULT_OUT " in the current folder)\n"
            "  --size WxH     image size in pixels, each side 1 to %d (default %dx%d)\n"
            "  --shader NAME  shader for the mesh (default lambert; not with the demo scene):\n",
            SR_MAX_IMAGE_SIDE, DEFAULT_WIDTH, DEFAULT_HEIGHT);
    for (size_t i = 0; i < sr_shader_count(); i++)
        fprintf(out, "                   %-12s %s\n", sr_shader_get(i)->name, sr_shader_get(i)->summary);
    fputs("                 OBJ files carry no uvs or colours: textured maps an 8x8 checker texture by\n"
          "                 the planar projection u = (x+1)/2, v = (1-y)/2 of the normalised mesh, and\n"
          "                 vertex_color shows the normalised position as colour (p * 0.5 + 0.5).\n"
          "  --depth FILE   window depth in [0,1] per pixel: raw little-endian float32, top row first,\n"
          "                 1.0 where nothing was drawn\n"
          "  --ids FILE     triangle drawn per pixel: raw little-endian uint32, top row first, the\n"
          "                 triangle's index in file order after fan triangulation (demo scene:\n"
          "                 numbered across objects in the order ground, sphere, box, torus),\n"
          "                 0xffffffff where nothing was drawn\n"
          "  --help         this text\n"
          "\n"
          "Files are written under a temporary name and renamed; when one output fails, the ones\n"
          "already written by this run are removed. Prints one line on success.\n",
          out);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Checks before rendering that `path` can become a file: its folder exists and is writable, and
 * the path itself is not a folder. The atomic save checks again; this only avoids rendering a
 * large frame for nothing and names the problem more precisely. */
static bool check_output_path(const char *option, const char *path, char error[SR_ARGS_ERROR_SIZE])
{
    if (path[0] == '\0') {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: empty file name", option);
        return false;
    }
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: '%s' is a folder, not a file", option, path);
        return false;
    }
    char folder[SR_ARGS_PATH_SIZE];
    const char *slash = strrchr(path, '/');
    if (!slash) {
        strcpy(folder, ".");
    } else {
        size_t length = slash == path ? 1 : (size_t)(slash - path);
        if (length >= sizeof folder) {
            snprintf(error, SR_ARGS_ERROR_SIZE, "%s: path too long", option);
            return false;
        }
        memcpy(folder, path, length);
        folder[length] = '\0';
    }
    if (stat(folder, &info) != 0) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: cannot write '%s': folder '%s' does not exist", option, path, folder);
        return false;
    }
    if (!S_ISDIR(info.st_mode)) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: cannot write '%s': '%s' is not a folder", option, path, folder);
        return false;
    }
    if (access(folder, W_OK) != 0) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: cannot write '%s': folder '%s' is not writable (%s)", option, path,
                 folder, strerror(errno));
        return false;
    }
    return true;
}

/* Returns -1 to go on rendering, otherwise the exit status (0 after --help). */
static int parse_options(int argc, char **argv, render_options *o)
{
    *o = (render_options){.out_path = DEFAULT_OUT, .width = DEFAULT_WIDTH, .height = DEFAULT_HEIGHT};
    char error[SR_ARGS_ERROR_SIZE] = "";
    const char *shader_name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--out") == 0 || strcmp(arg, "--depth") == 0 || strcmp(arg, "--ids") == 0 ||
                   strcmp(arg, "--size") == 0 || strcmp(arg, "--shader") == 0) {
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
            else if (!sr_args_parse_size("--size", value, SR_MAX_IMAGE_SIDE, &o->width, &o->height, error))
                goto fail;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, sizeof error, "unknown option '%s' (see softrast render --help)", arg);
            goto fail;
        } else if (o->mesh_path) {
            snprintf(error, sizeof error, "more than one mesh given ('%s' and '%s')", o->mesh_path, arg);
            goto fail;
        } else {
            o->mesh_path = arg;
        }
    }
    if (shader_name) {
        o->shader = sr_shader_find(shader_name);
        if (!o->shader) {
            snprintf(error, sizeof error, "--shader: unknown shader '%s' (known: %s)", shader_name, sr_shader_names());
            goto fail;
        }
        if (!o->mesh_path) {
            snprintf(error, sizeof error,
                     "--shader %s: needs a mesh; the demo scene (no MESH.obj) uses its own shaders", shader_name);
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
        if (!check_output_path(names[a], paths[a], error))
            goto fail;
        for (int b = 0; b < a; b++)
            if (paths[b] && strcmp(paths[a], paths[b]) == 0) {
                snprintf(error, sizeof error, "%s and %s name the same file '%s'", names[b], names[a], paths[a]);
                goto fail;
            }
    }
    return -1;
fail:
    fprintf(stderr, "softrast render: %s\n", error);
    return 2;
}

/* The mesh in the built-in vertex layout, with what OBJ files lack made up (see --help): uvs by
 * planar projection onto XY of the normalised mesh (v down, raster.h), colour = position mapped
 * from [-1, 1] to [0, 1]. */
static sr_status make_mesh_vertices(const sr_mesh *mesh, sr_shader_vertex **out, sr_error *err)
{
    sr_status status = sr_mesh_create_shader_vertices(mesh, NULL, out, err);
    if (status != SR_OK)
        return status;
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        sr_shader_vertex *v = &(*out)[i];
        sr_vec3 p = v->position;
        if (!mesh->uvs)
            v->uv = sr_vec2_make((p.x + 1.0f) * 0.5f, (1.0f - p.y) * 0.5f);
        v->color[0] = p.x * 0.5f + 0.5f;
        v->color[1] = p.y * 0.5f + 0.5f;
        v->color[2] = p.z * 0.5f + 0.5f;
        v->color[3] = 1.0f;
    }
    return SR_OK;
}

/* The depth program's white-to-black range: the nearest and farthest view distances of the
 * mesh's vertices, so the grey ramp spans the mesh rather than the camera's 0.1 to 100. */
static void fit_depth_range(const sr_mesh *mesh, sr_shader_uniforms *u)
{
    float nearest = INFINITY, farthest = -INFINITY;
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        float distance = -sr_mat4_transform_point(u->model_view, mesh->positions[i]).z;
        nearest = fminf(nearest, distance);
        farthest = fmaxf(farthest, distance);
    }
    if (nearest < farthest) {
        u->depth_near = nearest;
        u->depth_far = farthest;
    }
}

/* Draws the mesh with the chosen shader into a cleared framebuffer. */
static sr_status render_mesh(const render_options *o, const sr_mesh *mesh, sr_renderer *renderer, sr_framebuffer *fb,
                             sr_error *err)
{
    sr_shader_vertex *vertices = NULL;
    sr_texture *checker = NULL;
    const sr_shader *shader = o->shader ? o->shader : &sr_shader_lambert;
    sr_status status = make_mesh_vertices(mesh, &vertices, err);
    if (status == SR_OK && (shader->inputs & SR_SHADER_INPUT_TEXTURE))
        status = sr_checker_texture_create(64, CHECKER_SQUARES, sr_rgba8(1.0f, 1.0f, 1.0f, 1.0f),
                                           sr_rgba8(0.3f, 0.3f, 0.3f, 1.0f), &checker, err);
    if (status == SR_OK) {
        sr_mat4 view, projection;
        sr_bench_scene_camera(fb->width, fb->height, &view, &projection);
        sr_shader_uniforms uniforms = sr_shader_uniforms_default();
        sr_shader_uniforms_set_transforms(&uniforms, sr_mat4_identity(), view, projection);
        uniforms.texture = checker;
        fit_depth_range(mesh, &uniforms);
        sr_program program = sr_shader_program(shader, &uniforms);
        sr_framebuffer_clear(fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
        status = sr_draw_triangles(renderer, fb,
                                   &(sr_draw_desc){.vertices = vertices,
                                                   .vertex_count = mesh->vertex_count,
                                                   .vertex_stride = sizeof(sr_shader_vertex),
                                                   .indices = mesh->indices,
                                                   .index_count = mesh->triangle_count * 3,
                                                   .program = &program},
                                   err);
    }
    sr_texture_destroy(checker);
    sr_free(vertices);
    return status;
}

/* Removes an output this run wrote, but only a regular file: a device or pipe given as output
 * (--depth /dev/null) was written in place and must never be unlinked. */
static void remove_written(const char *path)
{
    struct stat info;
    if (stat(path, &info) == 0 && S_ISREG(info.st_mode))
        remove(path);
}

/* Writes the requested files in order; if one fails, removes the ones this run already wrote,
 * so the user never finds a colour image next to a missing id file and thinks both are new. */
static sr_status save_outputs(const render_options *o, const sr_framebuffer *fb, sr_error *err)
{
    sr_status status = sr_framebuffer_save(fb, o->out_path, err);
    if (status != SR_OK)
        return status;
    if (o->depth_path) {
        status = sr_framebuffer_save_depth(fb, o->depth_path, err);
        if (status != SR_OK) {
            remove_written(o->out_path);
            return status;
        }
    }
    if (o->ids_path) {
        status = sr_framebuffer_save_ids(fb, o->ids_path, err);
        if (status != SR_OK) {
            remove_written(o->out_path);
            if (o->depth_path)
                remove_written(o->depth_path);
            return status;
        }
    }
    return SR_OK;
}

int sr_cmd_render(int argc, char **argv)
{
    render_options options;
    int exit_status = parse_options(argc, argv, &options);
    if (exit_status >= 0)
        return exit_status;

    sr_error err = {0};
    sr_mesh *mesh = NULL;
    sr_demo_scene *demo = NULL;
    sr_renderer *renderer = NULL;
    sr_framebuffer *fb = NULL;
    size_t triangles = 0;
    double render_ms = 0.0;

    double start = now_ms();
    sr_status status = options.mesh_path ? sr_bench_scene_load_mesh(options.mesh_path, &mesh, &err)
                                         : sr_demo_scene_create(&demo, &err);
    double load_ms = now_ms() - start;
    if (status == SR_OK)
        status = sr_framebuffer_create(
            &(sr_framebuffer_desc){.width = options.width, .height = options.height, .ids = options.ids_path != NULL},
            &fb, &err);
    if (status == SR_OK)
        status = sr_renderer_create(&(sr_renderer_desc){.threads = 1}, &renderer, &err);
    if (status == SR_OK) {
        start = now_ms();
        if (mesh) {
            triangles = mesh->triangle_count;
            status = render_mesh(&options, mesh, renderer, fb, &err);
        } else {
            triangles = sr_demo_scene_triangle_count(demo);
            status = sr_demo_scene_render(demo, renderer, fb, &err);
        }
        render_ms = now_ms() - start;
    }
    if (status == SR_OK)
        status = save_outputs(&options, fb, &err);

    if (status == SR_OK) {
        printf("softrast render: wrote %s (%dx%d, %s, %s, %zu triangles, load %.1f ms, render %.1f ms)",
               options.out_path, options.width, options.height, mesh ? options.mesh_path : "demo scene",
               mesh ? (options.shader ? options.shader->name : "lambert") : "demo shaders", triangles, load_ms,
               render_ms);
        if (options.depth_path)
            printf(", depth %s", options.depth_path);
        if (options.ids_path)
            printf(", ids %s", options.ids_path);
        putchar('\n');
    } else {
        fprintf(stderr, "softrast render: %s\n", err.message[0] ? err.message : sr_status_name(status));
    }
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_demo_scene_destroy(demo);
    sr_mesh_destroy(mesh);
    return status == SR_OK ? 0 : 1;
}
