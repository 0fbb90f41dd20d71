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

/* What OBJ files lack for the built-in shaders, made up from the normalised positions. */
static sr_status add_mesh_extras(sr_mesh *mesh, sr_error *err)
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
    if (!mesh->colors) {
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

sr_status sr_app_load_scene(const char *command, const char *path, sr_scene **out, sr_app_input *input, sr_error *err)
{
    *out = NULL;
    if (!path) {
        *input = SR_APP_INPUT_DEMO;
        return sr_scene_create_demo(out, err);
    }
    if (sr_args_has_extension(path, ".json")) {
        *input = SR_APP_INPUT_SCENE;
        return sr_scene_load(&(sr_scene_load_desc){.path = path, .warning = print_warning, .user = (void *)command},
                             out, err);
    }
    *input = SR_APP_INPUT_MESH;
    sr_mesh *mesh = NULL;
    sr_status status = sr_obj_load(
        &(sr_obj_desc){.path = path, .warning = print_warning, .user = (void *)command, .skip_normals = true}, &mesh,
        err);
    if (status != SR_OK)
        return status;
    /* BENCH_SCENE.md's order: normalise, then area-weighted normals of the normalised mesh (unless
     * the file gives them). */
    sr_mesh_normalize(mesh);
    if (!mesh->normals)
        status = sr_mesh_compute_normals(mesh, err);
    if (status == SR_OK)
        status = add_mesh_extras(mesh, err);
    if (status != SR_OK) {
        sr_mesh_destroy(mesh);
        return status;
    }
    char name[128];
    sr_path_stem(path, name, sizeof name);
    return sr_scene_create_from_mesh(mesh, name, out, err);
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
