/* src/scene/scene_file.c — scene files (softrast/scene.h: sr_scene_load): JSON through cJSON
 * into an sr_scene. Every value is checked where it is read, and a bad one stops the load with
 * the file and the JSON path of the value ("scene.json: nodes[3].transform.scale[1]: expected a
 * number"); unknown keys are errors too, so a typo never goes unnoticed. Paths in the file are
 * relative to its folder. The format is documented in the README. Knows nothing of SDL. */
#include "scene_file_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- sections ---- */

static sr_status read_camera(loader *l, const cJSON *item, const char *at, sr_camera *camera)
{
    static const char *const keys[] = {"eye", "target", "up", "fov", "near", "far", "projection", "height", NULL};
    sr_status status = sr_json_expect_object(l, item, at);
    if (status == SR_OK)
        status = sr_json_check_keys(l, item, at, keys);
    sr_camera c = *camera;
    for (const cJSON *field = item->child; status == SR_OK && field; field = field->next) {
        char here[PATH_SIZE];
        sr_json_path_key(here, at, field->string);
        const char *key = field->string;
        if (strcmp(key, "eye") == 0)
            status = sr_json_read_vec3(l, field, here, &c.eye);
        else if (strcmp(key, "target") == 0)
            status = sr_json_read_vec3(l, field, here, &c.target);
        else if (strcmp(key, "up") == 0)
            status = sr_json_read_vec3(l, field, here, &c.up);
        else if (strcmp(key, "fov") == 0)
            status = sr_json_read_ranged(l, field, here, 1e-3, 179.9, &c.fov_y_degrees);
        else if (strcmp(key, "near") == 0)
            status = sr_json_read_positive(l, field, here, &c.near_z);
        else if (strcmp(key, "far") == 0)
            status = sr_json_read_positive(l, field, here, &c.far_z);
        else if (strcmp(key, "height") == 0)
            status = sr_json_read_positive(l, field, here, &c.height);
        else {
            static const char *const projections[] = {"perspective", "orthographic", NULL};
            int which = 0;
            status = sr_json_read_choice(l, field, here, projections, &which);
            c.projection = (sr_projection)which;
        }
    }
    if (status != SR_OK)
        return status;
    sr_camera resolved = sr_camera_resolve(&c);
    sr_error check = {0};
    if (sr_camera_check(&resolved, &check) != SR_OK)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "%s", check.message);
    *camera = c;
    return SR_OK;
}

static sr_status read_light(loader *l, const cJSON *item, const char *at)
{
    static const char *const keys[] = {"direction", "ambient", "diffuse", "space", "two_sided", NULL};
    sr_status status = sr_json_expect_object(l, item, at);
    if (status == SR_OK)
        status = sr_json_check_keys(l, item, at, keys);
    sr_light light = sr_scene_light(l->scene);
    for (const cJSON *field = item->child; status == SR_OK && field; field = field->next) {
        char here[PATH_SIZE];
        sr_json_path_key(here, at, field->string);
        if (strcmp(field->string, "direction") == 0) {
            status = sr_json_read_vec3(l, field, here, &light.direction);
        } else if (strcmp(field->string, "ambient") == 0) {
            status = sr_json_read_ranged(l, field, here, 0.0, 16.0, &light.ambient);
        } else if (strcmp(field->string, "diffuse") == 0) {
            status = sr_json_read_ranged(l, field, here, 0.0, 16.0, &light.diffuse);
        } else if (strcmp(field->string, "two_sided") == 0) {
            status = sr_json_read_bool(l, field, here, &light.two_sided);
        } else {
            // "camera": the direction is in the view camera's space, a headlight.
            const char *space = NULL;
            status = sr_json_read_string(l, field, here, &space);
            if (status == SR_OK && strcmp(space, "world") == 0)
                light.space = SR_LIGHT_WORLD;
            else if (status == SR_OK && strcmp(space, "camera") == 0)
                light.space = SR_LIGHT_CAMERA;
            else if (status == SR_OK)
                status = sr_json_fail(l, SR_ERROR_PARSE, here,
                                      "unknown light space \"%s\" (expected \"world\" or "
                                      "\"camera\")",
                                      space);
        }
    }
    if (status != SR_OK)
        return status;
    sr_error check = {0};
    if (sr_scene_set_light(l->scene, light, &check) != SR_OK)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "%s", check.message);
    return SR_OK;
}

static sr_status read_texture(loader *l, const cJSON *item, const char *at, const char *name)
{
    static const char *const keys[] = {"path", "checker", NULL};
    sr_status status = sr_json_expect_object(l, item, at);
    if (status == SR_OK)
        status = sr_json_check_keys(l, item, at, keys);
    if (status != SR_OK)
        return status;
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(item, "path");
    const cJSON *checker = cJSON_GetObjectItemCaseSensitive(item, "checker");
    if (!path == !checker)
        return sr_json_fail(l, SR_ERROR_PARSE, at, "give either \"path\" (an image file) or \"checker\"");
    sr_texture *texture = NULL;
    sr_error cause = {0};
    char here[PATH_SIZE];
    if (path) {
        const char *relative = "";
        char full[4096];
        sr_json_path_key(here, at, "path");
        if ((status = sr_json_read_string(l, path, here, &relative)) != SR_OK ||
            (status = sr_json_resolve_path(l, relative, here, full)) != SR_OK)
            return status;
        if (sr_texture_load(full, &texture, &cause) != SR_OK) {
            // A missing or broken image is a warning: the material draws untextured (white).
            char what[640];
            if (snprintf(what, sizeof what, "%s (drawn untextured)", cause.message) >= (int)sizeof what)
                what[sizeof what - 1] = '\0';
            sr_json_warn(l, here, what);
            return sr_json_table_add(l, &l->textures, name, 0, at);
        }
    } else {
        static const char *const checker_keys[] = {"size", "squares", "light", "dark", NULL};
        sr_json_path_key(here, at, "checker");
        if ((status = sr_json_expect_object(l, checker, here)) != SR_OK ||
            (status = sr_json_check_keys(l, checker, here, checker_keys)) != SR_OK)
            return status;
        int size = 64, squares = 8;
        sr_vec4 light = {1, 1, 1, 1}, dark = {0.3f, 0.3f, 0.3f, 1};
        for (const cJSON *field = checker->child; status == SR_OK && field; field = field->next) {
            char there[PATH_SIZE];
            sr_json_path_key(there, here, field->string);
            if (strcmp(field->string, "size") == 0)
                status = sr_json_read_int(l, field, there, 1, 4096, &size);
            else if (strcmp(field->string, "squares") == 0)
                status = sr_json_read_int(l, field, there, 1, 4096, &squares);
            else if (strcmp(field->string, "light") == 0)
                status = sr_json_read_color(l, field, there, &light);
            else
                status = sr_json_read_color(l, field, there, &dark);
        }
        if (status != SR_OK)
            return status;
        if (squares > size)
            return sr_json_fail(l, SR_ERROR_PARSE, here, "%d squares do not fit %d texels", squares, size);
        if (sr_checker_texture_create(size, squares, sr_rgba8(light.x, light.y, light.z, light.w),
                                      sr_rgba8(dark.x, dark.y, dark.z, dark.w), &texture, &cause) != SR_OK)
            return sr_json_fail(l, cause.status, here, "%s", cause.message);
    }
    sr_texture_id id;
    if (sr_scene_add_texture(l->scene, texture, name, &id, &cause) != SR_OK)
        return sr_json_fail(l, cause.status, at, "%s", cause.message);
    return sr_json_table_add(l, &l->textures, name, id.id, at);
}

static sr_status read_material(loader *l, const cJSON *item, const char *at, const char *name)
{
    static const char *const keys[] = {"shader", "color", "opacity", "texture", "filter", "wrap", "cull", NULL};
    sr_status status = sr_json_expect_object(l, item, at);
    if (status == SR_OK)
        status = sr_json_check_keys(l, item, at, keys);
    sr_material_desc desc = {.name = name, .base_color = {0.8f, 0.8f, 0.8f, 1.0f}};
    float opacity = -1.0f;
    for (const cJSON *field = item->child; status == SR_OK && field; field = field->next) {
        char here[PATH_SIZE];
        sr_json_path_key(here, at, field->string);
        const char *key = field->string;
        if (strcmp(key, "shader") == 0) {
            const char *shader = "";
            if ((status = sr_json_read_string(l, field, here, &shader)) == SR_OK &&
                !(desc.shader = sr_shader_find(shader)))
                status =
                    sr_json_fail(l, SR_ERROR_PARSE, here, "unknown shader '%s' (known: %s)", shader, sr_shader_names());
        } else if (strcmp(key, "color") == 0) {
            status = sr_json_read_color(l, field, here, &desc.base_color);
        } else if (strcmp(key, "opacity") == 0) {
            status = sr_json_read_ranged(l, field, here, 0.0, 1.0, &opacity);
        } else if (strcmp(key, "texture") == 0) {
            status = sr_json_table_find(l, &l->textures, "texture", field, here, &desc.texture.id);
        } else if (strcmp(key, "filter") == 0) {
            static const char *const filters[] = {"nearest", "bilinear", NULL};
            int which = 0;
            status = sr_json_read_choice(l, field, here, filters, &which);
            desc.sampler.filter = (sr_filter)which;
        } else if (strcmp(key, "wrap") == 0) {
            static const char *const wraps[] = {"repeat", "clamp", NULL};
            int which = 0;
            status = sr_json_read_choice(l, field, here, wraps, &which);
            desc.sampler.wrap_u = desc.sampler.wrap_v = (sr_wrap)which;
        } else {
            static const char *const culls[] = {"none", "back", "front", NULL};
            int which = 0;
            status = sr_json_read_choice(l, field, here, culls, &which);
            desc.cull = (sr_cull_mode)which;
        }
    }
    if (status != SR_OK)
        return status;
    if (opacity >= 0.0f)
        desc.base_color.w = opacity;
    sr_material_id id;
    sr_error cause = {0};
    if (sr_scene_add_material(l->scene, &desc, &id, &cause) != SR_OK)
        return sr_json_fail(l, cause.status, at, "%s", cause.message);
    return sr_json_table_add(l, &l->materials, name, id.id, at);
}

/* Parameters of a built-in primitive. */
typedef struct primitive_parameters {
    float radius, major_radius, minor_radius, height, size, uv_repeat;
    sr_vec3 extents;
    int slices, stacks, rings, sides, divisions;
} primitive_parameters;

static sr_status read_primitive(loader *l, const cJSON *item, const char *at, sr_mesh **mesh)
{
    static const char *const kinds[] = {"plane", "box", "sphere", "torus", "cylinder", "capsule", "cone", NULL};
    static const char *const allowed[][8] = {
        {"primitive", "size", "divisions", "uv_repeat", NULL},
        {"primitive", "size", "divisions", NULL},
        {"primitive", "radius", "slices", "stacks", NULL},
        {"primitive", "major_radius", "minor_radius", "rings", "sides", NULL},
        {"primitive", "radius", "height", "slices", "stacks", NULL},
        {"primitive", "radius", "height", "slices", "stacks", NULL},
        {"primitive", "radius", "height", "slices", "stacks", NULL},
    };
    char here[PATH_SIZE];
    sr_json_path_key(here, at, "primitive");
    int kind = 0;
    sr_status status = sr_json_read_choice(l, cJSON_GetObjectItemCaseSensitive(item, "primitive"), here, kinds, &kind);
    if (status == SR_OK)
        status = sr_json_check_keys(l, item, at, allowed[kind]);
    // Defaults: a sphere of 32 x 16, revolved shapes of 32 slices and 1 row (4 per capsule end).
    primitive_parameters p = {.radius = 0.5f,
                              .major_radius = 0.5f,
                              .minor_radius = 0.2f,
                              .height = 1.0f,
                              .size = 1.0f,
                              .uv_repeat = 1.0f,
                              .extents = {1, 1, 1},
                              .slices = 32,
                              .stacks = kind == 2   ? 16
                                        : kind == 5 ? 4
                                                    : 1,
                              .rings = 32,
                              .sides = 16,
                              .divisions = 1};
    for (const cJSON *field = item->child; status == SR_OK && field; field = field->next) {
        sr_json_path_key(here, at, field->string);
        const char *key = field->string;
        if (strcmp(key, "primitive") == 0)
            continue;
        if (strcmp(key, "size") == 0 && kind == 1) {
            if (cJSON_IsNumber(field)) {
                status = sr_json_read_positive(l, field, here, &p.size);
                p.extents = sr_vec3_splat(p.size);
            } else {
                status = sr_json_read_vec3(l, field, here, &p.extents);
                if (status == SR_OK && !(p.extents.x > 0 && p.extents.y > 0 && p.extents.z > 0))
                    status = sr_json_fail(l, SR_ERROR_PARSE, here, "box sizes must be positive");
            }
        } else if (strcmp(key, "size") == 0) {
            status = sr_json_read_positive(l, field, here, &p.size);
        } else if (strcmp(key, "uv_repeat") == 0) {
            status = sr_json_read_positive(l, field, here, &p.uv_repeat);
        } else if (strcmp(key, "radius") == 0) {
            status = sr_json_read_positive(l, field, here, &p.radius);
        } else if (strcmp(key, "height") == 0 && kind == 5) {
            status = sr_json_read_ranged(l, field, here, 0.0, 1e30, &p.height); // a capsule of height 0 is a sphere
        } else if (strcmp(key, "height") == 0) {
            status = sr_json_read_positive(l, field, here, &p.height);
        } else if (strcmp(key, "major_radius") == 0) {
            status = sr_json_read_positive(l, field, here, &p.major_radius);
        } else if (strcmp(key, "minor_radius") == 0) {
            status = sr_json_read_positive(l, field, here, &p.minor_radius);
        } else {
            int *target = strcmp(key, "slices") == 0   ? &p.slices
                          : strcmp(key, "stacks") == 0 ? &p.stacks
                          : strcmp(key, "rings") == 0  ? &p.rings
                          : strcmp(key, "sides") == 0  ? &p.sides
                                                       : &p.divisions;
            status = sr_json_read_int(l, field, here, 1, 4096, target);
        }
    }
    if (status != SR_OK)
        return status;
    sr_error cause = {0};
    switch (kind) {
    case 0:
        status = sr_mesh_create_plane(p.size, p.divisions, p.uv_repeat, mesh, &cause);
        break;
    case 1:
        status = sr_mesh_create_box(sr_vec3_scale(p.extents, 0.5f), p.divisions, mesh, &cause);
        break;
    case 2:
        status = sr_mesh_create_sphere(p.radius, p.slices, p.stacks, mesh, &cause);
        break;
    case 3:
        status = sr_mesh_create_torus(p.major_radius, p.minor_radius, p.rings, p.sides, mesh, &cause);
        break;
    case 4:
        status = sr_mesh_create_cylinder(p.radius, p.height, p.slices, p.stacks, mesh, &cause);
        break;
    case 5:
        status = sr_mesh_create_capsule(p.radius, p.height, p.slices, p.stacks, mesh, &cause);
        break;
    default:
        status = sr_mesh_create_cone(p.radius, p.height, p.slices, p.stacks, mesh, &cause);
        break;
    }
    return status == SR_OK ? SR_OK : sr_json_fail(l, status, at, "%s", cause.message);
}

static sr_status read_mesh(loader *l, const cJSON *item, const char *at, const char *name)
{
    sr_status status = sr_json_expect_object(l, item, at);
    if (status != SR_OK)
        return status;
    sr_mesh *mesh = NULL;
    if (cJSON_GetObjectItemCaseSensitive(item, "primitive")) {
        status = read_primitive(l, item, at, &mesh);
    } else {
        static const char *const keys[] = {"obj", "normalize", NULL};
        if ((status = sr_json_check_keys(l, item, at, keys)) != SR_OK)
            return status;
        const cJSON *obj = cJSON_GetObjectItemCaseSensitive(item, "obj");
        if (!obj)
            return sr_json_fail(l, SR_ERROR_PARSE, at, "a mesh needs \"obj\" (a file) or \"primitive\"");
        char here[PATH_SIZE], full[4096];
        const char *relative = "";
        bool normalize = false;
        sr_json_path_key(here, at, "obj");
        if ((status = sr_json_read_string(l, obj, here, &relative)) != SR_OK ||
            (status = sr_json_resolve_path(l, relative, here, full)) != SR_OK)
            return status;
        const cJSON *flag = cJSON_GetObjectItemCaseSensitive(item, "normalize");
        char flag_at[PATH_SIZE];
        sr_json_path_key(flag_at, at, "normalize");
        if (flag && (status = sr_json_read_bool(l, flag, flag_at, &normalize)) != SR_OK)
            return status;
        sr_error cause = {0};
        if (sr_obj_load(&(sr_obj_desc){.path = full, .warning = l->warning, .progress = l->progress, .user = l->user},
                        &mesh, &cause) != SR_OK)
            return sr_json_fail(l, cause.status, here, "%s", cause.message);
        if (normalize)
            sr_mesh_normalize(mesh);
    }
    if (status != SR_OK)
        return status;
    sr_mesh_id id;
    sr_error cause = {0};
    if (sr_scene_add_mesh(l->scene, mesh, name, &id, &cause) != SR_OK)
        return sr_json_fail(l, cause.status, at, "%s", cause.message);
    return sr_json_table_add(l, &l->meshes, name, id.id, at);
}

/* Reads a named section: an object whose members are the named things. */
static sr_status read_section(loader *l, const cJSON *item, const char *at,
                              sr_status (*read_one)(loader *, const cJSON *, const char *, const char *))
{
    sr_status status = sr_json_expect_object(l, item, at);
    for (const cJSON *member = item ? item->child : NULL; status == SR_OK && member; member = member->next) {
        char here[PATH_SIZE];
        sr_json_path_key(here, at, member->string);
        if (member->string[0] == '\0')
            return sr_json_fail(l, SR_ERROR_PARSE, here, "empty name");
        status = read_one(l, member, here, member->string);
    }
    return status;
}

/* The whole document, in an order that lets names refer backwards: textures, materials, meshes,
 * then nodes, whatever the order of the keys in the file. */
static sr_status read_document(loader *l, const cJSON *root)
{
    static const char *const keys[] = {"name",      "camera", "light", "background", "textures",
                                       "materials", "meshes", "nodes", NULL};
    sr_status status = sr_json_expect_object(l, root, "(top level)");
    if (status == SR_OK)
        status = sr_json_check_keys(l, root, "", keys);
    if (status != SR_OK)
        return status;
    const cJSON *item;
    if ((item = cJSON_GetObjectItemCaseSensitive(root, "camera"))) {
        sr_camera camera = sr_scene_camera(l->scene);
        if ((status = read_camera(l, item, "camera", &camera)) != SR_OK)
            return status;
        sr_scene_set_camera(l->scene, &camera);
    }
    if ((item = cJSON_GetObjectItemCaseSensitive(root, "light")) && (status = read_light(l, item, "light")) != SR_OK)
        return status;
    if ((item = cJSON_GetObjectItemCaseSensitive(root, "background"))) {
        sr_vec4 c;
        if ((status = sr_json_read_color(l, item, "background", &c)) != SR_OK)
            return status;
        sr_scene_set_background(l->scene, sr_rgba8(c.x, c.y, c.z, c.w));
    }
    if ((item = cJSON_GetObjectItemCaseSensitive(root, "textures")) &&
        (status = read_section(l, item, "textures", read_texture)) != SR_OK)
        return status;
    if ((item = cJSON_GetObjectItemCaseSensitive(root, "materials")) &&
        (status = read_section(l, item, "materials", read_material)) != SR_OK)
        return status;
    if ((item = cJSON_GetObjectItemCaseSensitive(root, "meshes")) &&
        (status = read_section(l, item, "meshes", read_mesh)) != SR_OK)
        return status;
    if ((item = cJSON_GetObjectItemCaseSensitive(root, "nodes")) &&
        (status = sr_scene_file_read_nodes(l, item, "nodes", SR_NODE_NULL, 0)) != SR_OK)
        return status;
    return SR_OK;
}

/* Line and column (1-based) of `position` in `text`. */
static void line_and_column(const char *text, const char *position, int *line, int *column)
{
    *line = 1;
    *column = 1;
    for (const char *p = text; p < position; p++) {
        if (*p == '\n') {
            (*line)++;
            *column = 1;
        } else {
            (*column)++;
        }
    }
}

static sr_status parse_text(loader *l, const char *text, size_t length, const char *name_for_scene, sr_scene **out)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, length, &end, false);
    if (!root) {
        if (!end || end < text || end > text + length)
            return sr_error_set(l->err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory parsing the JSON", l->file);
        int line, column;
        line_and_column(text, end, &line, &column);
        char near[24] = "";
        size_t left = (size_t)(text + length - end);
        size_t take = left < 16 ? left : 16;
        for (size_t i = 0; i < take && end[i] != '\n' && end[i] != '\r'; i++)
            near[i] = (unsigned char)end[i] < 32 ? '?' : end[i];
        return sr_error_set(l->err, SR_ERROR_PARSE, "%s:%d:%d: malformed JSON%s%s%s", l->file, line, column,
                            end >= text + length ? " (the text ends early)" : " near '",
                            end >= text + length ? "" : near, end >= text + length ? "" : "'");
    }
    // Trailing non-blank text after the document is an error too.
    for (const char *p = end; p < text + length; p++)
        if (!(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
            int line, column;
            line_and_column(text, p, &line, &column);
            cJSON_Delete(root);
            return sr_error_set(l->err, SR_ERROR_PARSE, "%s:%d:%d: text after the end of the JSON document", l->file,
                                line, column);
        }
    const cJSON *title = cJSON_GetObjectItemCaseSensitive(root, "name");
    const char *scene_name = cJSON_IsString(title) ? title->valuestring : name_for_scene;
    sr_status status = sr_scene_create(&(sr_scene_desc){.name = scene_name}, &l->scene, l->err);
    if (status == SR_OK) {
        sr_scene_set_progress(l->scene, l->progress, l->user);
        status = read_document(l, root);
        sr_scene_set_progress(l->scene, NULL, NULL);
    }
    if (status == SR_OK)
        status = sr_scene_update(l->scene, NULL, l->err);
    cJSON_Delete(root);
    if (status != SR_OK) {
        sr_scene_destroy(l->scene);
        l->scene = NULL;
        return status;
    }
    *out = l->scene;
    return SR_OK;
}

/* The folder part of `path` with its trailing '/', or "" (the current folder). */
static void folder_of(const char *path, char folder[4096])
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    size_t length = slash ? (size_t)(slash - path) + 1 : 0;
    if (length >= 4096)
        length = 0;
    memcpy(folder, path, length);
    folder[length] = '\0';
}

static bool has_extension(const char *path, const char *extension)
{
    size_t n = strlen(path), m = strlen(extension);
    if (n <= m)
        return false;
    for (size_t i = 0; i < m; i++) {
        char c = path[n - m + i];
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != extension[i])
            return false;
    }
    return true;
}

sr_status sr_scene_load(const sr_scene_load_desc *desc, sr_scene **out, sr_error *err)
{
    if (!out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_load: out is NULL");
    *out = NULL;
    if (!desc || (!desc->path && !desc->text))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_load: no path and no text given");
    loader l = {.file = desc->path   ? desc->path
                        : desc->name ? desc->name
                                     : "(scene text)",
                .warning = desc->warning,
                .progress = desc->progress,
                .user = desc->user,
                .err = err};
    folder_of(desc->path ? desc->path : desc->name, l.folder);
    sr_status status;
    if (desc->path && has_extension(desc->path, ".obj")) {
        sr_mesh *mesh = NULL;
        char name[128];
        sr_path_stem(desc->path, name, sizeof name);
        status = sr_obj_load(
            &(sr_obj_desc){
                .path = desc->path, .warning = desc->warning, .progress = desc->progress, .user = desc->user},
            &mesh, err);
        if (status == SR_OK) {
            sr_mesh_normalize(mesh);
            status = sr_scene_create_from_mesh_reporting(mesh, name, desc->progress, desc->user, out, err);
        }
        if (status == SR_OK && desc->mesh_view != SR_MESH_VIEW_BENCH) {
            status = sr_scene_set_model_view(*out, &desc->model_view, err);
            if (status != SR_OK) {
                sr_scene_destroy(*out);
                *out = NULL;
            }
        }
        return status;
    }
    char scene_name[128];
    sr_path_stem(l.file, scene_name, sizeof scene_name);
    if (desc->path) {
        char *text = NULL;
        size_t length = 0;
        status = sr_file_read(desc->path, SCENE_FILE_MAX_BYTES, &text, &length, err);
        if (status == SR_OK)
            status = parse_text(&l, text, length, scene_name, out);
        sr_free(text);
    } else {
        status = parse_text(&l, desc->text, desc->length, scene_name, out);
    }
    sr_free(l.textures.items);
    sr_free(l.materials.items);
    sr_free(l.meshes.items);
    return status;
}
