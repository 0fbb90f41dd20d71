/* app_scene.c — the SCENE argument and the helpers shared by the scene commands (app_scene.h). */
#include "app_scene.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void print_warning(void *user, const char *message)
{
    fprintf(stderr, "%s: warning: %s\n", (const char *)user, message);
}

void sr_app_print_view_help(FILE *out, bool bench_by_default)
{
    fprintf(out,
            "  --camera SPEC  the camera: fit, bench, or KEY=VALUE pairs separated by ':', alone (they\n"
            "                 change the default camera) or after fit: or bench: (they change that one)\n"
            "                   fit    a three-quarter view (%g degrees around the up axis from the front,\n"
            "                          %g above) of everything drawn, from where its bounding sphere fits\n"
            "                          the image, fov_y 45 (as model viewers open a model)\n"
            "                   bench  the benchmark scene's camera: eye (0,0,3) looking at the origin,\n"
            "                          up +Y, fov_y 45, near 0.1, far 100; for a mesh also its light,\n"
            "                          fixed in the world (see 'The benchmark scene' below)\n"
            "                   keys   eye=X,Y,Z target=X,Y,Z up=X,Y,Z fov=DEG near=N far=F ortho=H\n"
            "                          (ortho: orthographic, H world units high)\n"
            "                 e.g. --camera bench:fov=30 or --camera eye=3,2,4:target=0,0,0\n"
            "                 default: %s for a mesh; a scene file's own camera, or the demo scene's\n"
            "  --up y|z       the world's up for fit (default y; z for Z-up files such as CAD and\n"
            "                 Blender exports): the view turns about it and keeps it up on screen\n",
            (double)SR_FIT_YAW_DEGREES, (double)SR_FIT_PITCH_DEGREES, bench_by_default ? "bench" : "fit");
}

void sr_app_print_bench_scene(FILE *out)
{
    fputs("The benchmark scene (--camera bench; what 'softrast bench' measures, the same work for\n"
          "every renderer it is compared with): the mesh translated so that its bounding box is\n"
          "centred on the origin and scaled uniformly so that its largest extent is 2 (it fits\n"
          "[-1,1]^3); area-weighted vertex normals of that mesh where the file has none; camera at\n"
          "(0,0,3) looking at the origin down -Z, up +Y, vertical field of view 45 degrees, near 0.1,\n"
          "far 100; background grey 0.1; depth test LESS, no face culling; lambert shading, colour =\n"
          "albedo * (0.2 + 0.8 * max(0, N.L)), albedo 0.8 grey (or the file's materials), L the\n"
          "direction (0.3, 0.5, 1) normalised, fixed in the world. Its primary rays (raycast\n"
          "--primary, bench bvh) start at the eye and pass through each pixel centre on the near\n"
          "plane, rows top first, unit-length directions, tmin 0, tmax infinity.\n",
          out);
}

/* A camera spec that parses over at least one of two cameras looking different ways is well
 * formed: whether it suits the scene's own camera is only known once the scene is loaded. */
static bool camera_keys_are_well_formed(const char *keys, sr_error *first_error)
{
    const sr_camera bench = sr_bench_camera();
    const sr_camera other = {.eye = {1.0f, 2.0f, 3.0f}, .target = {-3.0f, -2.0f, -1.0f}, .up = {0.0f, 1.0f, 0.0f}};
    sr_camera parsed;
    if (sr_camera_parse(keys, &bench, &parsed, first_error) == SR_OK)
        return true;
    return sr_camera_parse(keys, &other, &parsed, NULL) == SR_OK;
}

bool sr_app_parse_camera_option(const char *text, sr_app_view_options *view, char error[SR_ARGS_ERROR_SIZE])
{
    view->spec = text;
    view->kind = SR_APP_CAMERA_DEFAULT;
    view->keys = text;
    static const struct {
        const char *word;
        sr_app_camera_kind kind;
    } words[] = {{"fit", SR_APP_CAMERA_FIT}, {"bench", SR_APP_CAMERA_BENCH}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t length = strlen(words[i].word);
        if (strncmp(text, words[i].word, length) == 0 && (text[length] == '\0' || text[length] == ':')) {
            view->kind = words[i].kind;
            view->keys = text[length] == ':' ? text + length + 1 : NULL;
            if (view->keys && view->keys[0] == '\0') {
                snprintf(error, SR_ARGS_ERROR_SIZE, "--camera: '%s' ends with ':' (expected KEY=VALUE after it)", text);
                return false;
            }
        }
    }
    sr_error camera_error = {0};
    if (view->keys && !camera_keys_are_well_formed(view->keys, &camera_error)) {
        bool unknown = strstr(camera_error.message, "is not KEY=VALUE") || strstr(camera_error.message, "unknown key");
        snprintf(error, SR_ARGS_ERROR_SIZE, "--camera: %.400s%s", camera_error.message,
                 unknown ? " (expected fit, bench or KEY=VALUE pairs; see --help)" : "");
        return false;
    }
    return true;
}

bool sr_app_parse_up_option(const char *text, sr_app_view_options *view, char error[SR_ARGS_ERROR_SIZE])
{
    const char *axis = text[0] == '+' ? text + 1 : text;
    if ((axis[0] == 'y' || axis[0] == 'Y' || axis[0] == 'z' || axis[0] == 'Z') && axis[1] == '\0') {
        view->up = axis[0] == 'y' || axis[0] == 'Y' ? 'y' : 'z';
        return true;
    }
    snprintf(error, SR_ARGS_ERROR_SIZE, "--up: '%s' is not an axis (expected y or z)", text);
    return false;
}

/* What OBJ files lack for the built-in shaders, made up from the normalised positions: uvs by
 * planar projection (textured), and colours p * 0.5 + 0.5 when asked (vertex_color). */
static sr_status add_mesh_extras(sr_mesh *mesh, bool position_colors, sr_error *err)
{
    if (!mesh->uvs) {
        mesh->uvs = sr_alloc_array(mesh->vertex_count, sizeof *mesh->uvs);
        if (!mesh->uvs)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory for uvs");
        for (size_t i = 0; i < mesh->vertex_count; i++) {
            sr_vec3 p = mesh->positions[i];
            mesh->uvs[i] = sr_vec2_make((p.x + 1.0f) * 0.5f, (1.0f - p.y) * 0.5f);
        }
    }
    if (!mesh->colors && position_colors) {
        mesh->colors = sr_alloc_array(mesh->vertex_count, sizeof *mesh->colors);
        if (!mesh->colors)
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "out of memory for colours");
        for (size_t i = 0; i < mesh->vertex_count; i++) {
            sr_vec3 p = mesh->positions[i];
            mesh->colors[i] = (sr_vec4){p.x * 0.5f + 0.5f, p.y * 0.5f + 0.5f, p.z * 0.5f + 0.5f, 1.0f};
        }
    }
    return SR_OK;
}

/* The mesh at `path` as one scene: normalised, with normals, uvs and colours as the commands
 * need them (the benchmark scene's mesh). */
static sr_status load_mesh_scene(const sr_app_scene_desc *desc, sr_scene **out, sr_error *err)
{
    sr_mesh *mesh = NULL;
    sr_status status = sr_obj_load(
        &(sr_obj_desc){
            .path = desc->path, .warning = print_warning, .user = (void *)desc->command, .skip_normals = true},
        &mesh, err);
    if (status != SR_OK)
        return status;
    // The benchmark scene's order: normalise, then area-weighted normals of the normalised mesh
    // (unless the file gives them).
    sr_mesh_normalize(mesh);
    if (!mesh->normals)
        status = sr_mesh_compute_normals(mesh, err);
    if (status == SR_OK)
        status = add_mesh_extras(mesh, desc->position_colors, err);
    if (status != SR_OK) {
        sr_mesh_destroy(mesh);
        return status;
    }
    char name[128];
    sr_path_stem(desc->path, name, sizeof name);
    return sr_scene_create_from_mesh(mesh, name, out, err);
}

sr_status sr_app_load_scene(const sr_app_scene_desc *desc, sr_app_scene *out, bool *usage_error, sr_error *err)
{
    *out = (sr_app_scene){0};
    *usage_error = false;
    const sr_app_view_options *view = &desc->view;
    sr_app_input input = !desc->path                                  ? SR_APP_INPUT_DEMO
                         : sr_args_has_extension(desc->path, ".json") ? SR_APP_INPUT_SCENE
                                                                      : SR_APP_INPUT_MESH;
    // Which camera: a mesh has two views of its own, a scene its camera (or either of the two).
    sr_app_camera_kind kind = view->kind;
    if (kind == SR_APP_CAMERA_DEFAULT && input == SR_APP_INPUT_MESH)
        kind = desc->bench_by_default ? SR_APP_CAMERA_BENCH : SR_APP_CAMERA_FIT;
    if (view->up && kind != SR_APP_CAMERA_FIT) {
        *usage_error = true;
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "--up %c: %s", view->up,
                            kind == SR_APP_CAMERA_BENCH
                                ? "the benchmark scene's camera is fixed (Y up); --up applies to --camera fit"
                                : "a scene keeps its own camera; --up applies to meshes and to --camera fit");
    }

    sr_status status;
    if (input == SR_APP_INPUT_DEMO)
        status = sr_scene_create_demo(&out->scene, err);
    else if (input == SR_APP_INPUT_SCENE)
        status = sr_scene_load(
            &(sr_scene_load_desc){.path = desc->path, .warning = print_warning, .user = (void *)desc->command},
            &out->scene, err);
    else
        status = load_mesh_scene(desc, &out->scene, err);
    if (status != SR_OK)
        return status;
    out->input = input;
    const sr_vec3 up = view->up == 'z' ? sr_vec3_make(0.0f, 0.0f, 1.0f) : sr_vec3_make(0.0f, 1.0f, 0.0f);
    const float aspect = (float)desc->width / (float)desc->height;
    if (input == SR_APP_INPUT_MESH && kind != SR_APP_CAMERA_BENCH)
        status = sr_scene_set_model_view(out->scene, &(sr_model_view_desc){.up = up, .aspect = aspect}, err);
    out->bench = input == SR_APP_INPUT_MESH && kind == SR_APP_CAMERA_BENCH;
    out->camera = sr_scene_camera(out->scene);
    if (status == SR_OK && kind == SR_APP_CAMERA_FIT && input != SR_APP_INPUT_MESH) {
        sr_scene_update(out->scene, NULL, NULL);
        out->camera = sr_camera_fit_box(sr_scene_bounds(out->scene), up, aspect);
    } else if (kind == SR_APP_CAMERA_BENCH) {
        out->camera = sr_bench_camera(); // a mesh's scene has it already; a scene file gets it
    }
    if (status == SR_OK && view->keys) {
        sr_camera base = out->camera;
        sr_error camera_error = {0};
        if (sr_camera_parse(view->keys, &base, &out->camera, &camera_error) != SR_OK) {
            *usage_error = true;
            status = sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "--camera %.200s: %.400s", view->spec,
                                  camera_error.message);
        }
    }
    if (status != SR_OK) {
        sr_scene_destroy(out->scene);
        *out = (sr_app_scene){0};
    }
    return status;
}

/* The shader a material draws with (scene_render.c's choice). */
static const char *material_shader_name(const sr_scene *scene, sr_material_id id)
{
    sr_material_desc material = sr_scene_material(scene, id);
    if (material.shader)
        return material.shader->name;
    return material.texture.id ? sr_shader_textured.name : sr_shader_lambert.name;
}

static void add_name(const char *name, const char **names, int *count, int capacity)
{
    for (int i = 0; i < *count; i++)
        if (strcmp(names[i], name) == 0)
            return;
    if (*count < capacity)
        names[(*count)++] = name;
}

void sr_app_describe_shading(const sr_scene *scene, const sr_shader *shader, char *out, size_t size)
{
    if (shader) {
        snprintf(out, size, "%s", shader->name);
        return;
    }
    const char *names[8];
    int count = 0;
    for (uint32_t slot = 0; slot < sr_scene_node_slots(scene); slot++) {
        sr_node_info info;
        sr_node_id node = sr_scene_node_at(scene, slot);
        if (!node.generation || sr_scene_node(scene, node, &info, NULL) != SR_OK || !info.mesh.id || info.hidden)
            continue;
        const sr_mesh *mesh = sr_scene_mesh(scene, info.mesh);
        if (info.material.id || !mesh || mesh->part_count == 0) {
            add_name(material_shader_name(scene, info.material), names, &count, 8);
            continue;
        }
        // The mesh's own materials, part by part (the scene's material of the file's name).
        for (size_t p = 0; p < mesh->part_count; p++) {
            uint32_t index = mesh->parts[p].material;
            sr_material_id id = index < mesh->material_count
                                    ? sr_scene_find_material(scene, mesh->materials[index].name)
                                    : (sr_material_id){0};
            add_name(material_shader_name(scene, id), names, &count, 8);
        }
    }
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < count && used < size; i++) {
        int n = snprintf(out + used, size - used, "%s%s", i ? " + " : "", names[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (count == 0)
        snprintf(out, size, "nothing to shade");
}

bool sr_app_check_output_path(const char *option, const char *path, char error[SR_ARGS_ERROR_SIZE])
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

void sr_app_remove_written(const char *path)
{
    struct stat info;
    if (stat(path, &info) == 0 && S_ISREG(info.st_mode))
        remove(path);
}

void sr_app_print_json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

double sr_app_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

sr_status sr_app_checker_texture(sr_texture **out, sr_error *err)
{
    return sr_checker_texture_create(64, 8, sr_rgba8(1.0f, 1.0f, 1.0f, 1.0f), sr_rgba8(0.3f, 0.3f, 0.3f, 1.0f), out,
                                     err);
}

sr_status sr_app_draw_overlays(const sr_scene *scene, const sr_scene_frame *frame, const sr_camera *view,
                               sr_overlay_desc *desc, int threads, sr_renderer *renderer, sr_framebuffer *fb,
                               sr_error *err)
{
    sr_status status = SR_OK;
    if (desc->items & SR_OVERLAY_HEAT)
        status = sr_overlay_heat(scene, view, fb, threads, NULL, &desc->heat_max, err);
    sr_debug_list *list = NULL;
    if (status == SR_OK)
        status = sr_debug_list_create(NULL, &list, err);
    for (int attempt = 0; attempt < 2 && status == SR_OK; attempt++) {
        status = sr_overlay_add(scene, frame, view, fb->width, fb->height, desc, list, err);
        if (status != SR_OK || sr_debug_list_get_stats(list).items_dropped == 0)
            break;
        status = sr_debug_list_clear(list, err); // grows to what the overlays asked for
    }
    if (status == SR_OK) {
        sr_mat4 view_matrix, projection;
        sr_camera_matrices(view, fb->width, fb->height, &view_matrix, &projection);
        status = sr_debug_draw(list, renderer, fb, sr_mat4_mul(projection, view_matrix), err);
    }
    sr_debug_list_destroy(list);
    return status;
}
