/* test_scene_file.c — scene files (src/scene/scene_file.c) and the built-in scenes (demo.c): the
 * shipped example scenes, every section of the format against the values written in the test,
 * relative paths, warnings, and every kind of malformed file with the JSON path in its message. */
#include <criterion/criterion.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCENES SR_SOURCE_DIR "/assets/scenes/"

static sr_scene *load_text(const char *text)
{
    sr_scene *scene = NULL;
    sr_error err = {0};
    sr_status status =
        sr_scene_load(&(sr_scene_load_desc){.text = text, .length = strlen(text), .name = "test.json"}, &scene, &err);
    cr_assert_eq(status, SR_OK, "load failed: %s", err.message);
    return scene;
}

static void load_fails(const char *text, const char *fragment)
{
    sr_scene *scene = (sr_scene *)1;
    sr_error err = {0};
    sr_status status =
        sr_scene_load(&(sr_scene_load_desc){.text = text, .length = strlen(text), .name = "bad.json"}, &scene, &err);
    cr_assert_neq(status, SR_OK, "accepted: %s", text);
    cr_assert_null(scene);
    cr_assert(strstr(err.message, fragment), "message '%s' lacks '%s' (file: %s)", err.message, fragment, text);
    cr_assert(strstr(err.message, "bad.json"), "message '%s' does not name the file", err.message);
}

static sr_scene *load_file(const char *path)
{
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = path}, &scene, &err), SR_OK, "%s: %s", path, err.message);
    return scene;
}

static sr_node_info node_named(const sr_scene *scene, const char *name)
{
    sr_node_id id = sr_scene_find_node(scene, name);
    cr_assert(id.generation != 0, "no node '%s'", name);
    sr_node_info info;
    cr_assert_eq(sr_scene_node(scene, id, &info, NULL), SR_OK);
    return info;
}

typedef struct picture {
    sr_framebuffer *fb;
    sr_scene_frame *frame;
} picture;

static picture render(sr_scene *scene, int width, int height)
{
    picture p = {0};
    sr_renderer *renderer = NULL;
    sr_error err = {0};
    cr_assert_eq(
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &p.fb, NULL),
        SR_OK);
    cr_assert_eq(sr_renderer_create(NULL, &renderer, NULL), SR_OK);
    cr_assert_eq(sr_scene_frame_create(&p.frame, NULL), SR_OK);
    cr_assert_eq(sr_scene_render(scene, NULL, renderer, p.fb, p.frame, &err), SR_OK, "%s", err.message);
    sr_renderer_destroy(renderer);
    return p;
}

static void free_picture(picture *p)
{
    sr_framebuffer_destroy(p->fb);
    sr_scene_frame_destroy(p->frame);
}

/* ---- the shipped scenes ---- */

Test(scene_file, demo_json_renders_exactly_as_the_built_in_demo_scene)
{
    sr_scene *file = load_file(SCENES "demo.json");
    sr_scene *built_in = NULL;
    cr_assert_eq(sr_scene_create_demo(&built_in, NULL), SR_OK);
    cr_assert_eq(sr_scene_node_count(file), sr_scene_node_count(built_in));
    picture a = render(file, 320, 180), b = render(built_in, 320, 180);
    cr_assert(memcmp(a.fb->color, b.fb->color, 320 * 180 * 4) == 0, "colours differ");
    cr_assert(memcmp(a.fb->depth, b.fb->depth, 320 * 180 * 4) == 0, "depths differ");
    cr_assert(memcmp(a.fb->ids, b.fb->ids, 320 * 180 * 4) == 0, "ids differ");
    for (uint32_t i = 0; i < 4; i++) {
        sr_node_info x, y;
        sr_scene_node(file, sr_scene_node_at(file, i), &x, NULL);
        sr_scene_node(built_in, sr_scene_node_at(built_in, i), &y, NULL);
        cr_assert_str_eq(x.name, y.name);
    }
    free_picture(&a);
    free_picture(&b);
    sr_scene_destroy(file);
    sr_scene_destroy(built_in);
}

Test(scene_file, robot_arm_is_a_deep_hierarchy_with_non_uniform_scale)
{
    sr_scene *scene = load_file(SCENES "robot_arm.json");
    sr_node_info finger = node_named(scene, "left finger");
    cr_assert_geq(finger.depth, 3, "the fingers hang %d levels deep", finger.depth);
    // A non-uniformly scaled node with a child: the child's world matrix carries the shear.
    sr_node_info wrist = node_named(scene, "wrist");
    cr_assert(wrist.transform.scale.x != wrist.transform.scale.y);
    sr_node_info band = node_named(scene, "wrist band");
    cr_assert_eq(band.parent.index, sr_scene_find_node(scene, "wrist").index);
    // Every node's world box lies within its ancestors' subtree boxes.
    for (uint32_t i = 0; i < sr_scene_node_slots(scene); i++) {
        sr_node_id id = sr_scene_node_at(scene, i);
        if (!id.generation)
            continue;
        sr_node_info info;
        sr_scene_node(scene, id, &info, NULL);
        for (sr_node_id a = info.parent; a.generation;) {
            sr_node_info ancestor;
            sr_scene_node(scene, a, &ancestor, NULL);
            cr_assert(sr_aabb_is_empty(info.world_aabb) || sr_aabb_contains(ancestor.subtree_aabb, info.world_aabb),
                      "%s is outside %s's subtree box", info.name, ancestor.name);
            a = ancestor.parent;
        }
    }
    picture p = render(scene, 200, 120);
    sr_scene_stats stats = sr_scene_frame_stats(p.frame);
    cr_assert_eq(stats.instances_drawn, stats.instances_total, "the whole arm is in view");
    free_picture(&p);
    sr_scene_destroy(scene);
}

Test(scene_file, the_field_has_over_ten_thousand_instances_mostly_outside_the_view)
{
    sr_scene *scene = load_file(SCENES "field.json");
    sr_scene_totals totals = sr_scene_get_totals(scene);
    cr_assert_geq(totals.instances, 10000u);
    sr_scene_frame *frame = NULL;
    sr_scene_frame_create(&frame, NULL);
    cr_assert_eq(sr_scene_cull(scene, NULL, 320, 180, frame, NULL), SR_OK);
    sr_scene_stats stats = sr_scene_frame_stats(frame);
    cr_assert_gt(stats.instances_culled, 4 * stats.instances_drawn, "%u culled, %u drawn", stats.instances_culled,
                 stats.instances_drawn);
    sr_scene_frame_destroy(frame);
    sr_scene_destroy(scene);
}

/* ---- the format ---- */

Test(scene_file, sections_give_the_values_written)
{
    sr_scene *scene = load_text(
        "{\"name\": \"values\",\n"
        " \"camera\": {\"eye\": [1, 2, 3], \"target\": [0, 1, 0], \"up\": [0, 0, 1], \"fov\": 60, \"near\": 0.5,"
        "  \"far\": 50},\n"
        " \"light\": {\"direction\": [0, 2, 0], \"ambient\": 0.1, \"diffuse\": 0.9},\n"
        " \"background\": [1, 0, 0.5],\n"
        " \"textures\": {\"check\": {\"checker\": {\"size\": 8, \"squares\": 2}}},\n"
        " \"materials\": {\"red\": {\"color\": [1, 0, 0], \"opacity\": 0.5, \"cull\": \"back\", \"texture\": \"check\","
        "  \"filter\": \"bilinear\", \"wrap\": \"clamp\"}, \"plain\": {\"shader\": \"normals\"}},\n"
        " \"meshes\": {\"b\": {\"primitive\": \"box\", \"size\": [2, 4, 6]}, \"s\": {\"primitive\": \"sphere\"},"
        "  \"c\": {\"primitive\": \"cylinder\", \"radius\": 0.25, \"height\": 3},"
        "  \"p\": {\"primitive\": \"capsule\", \"height\": 0}, \"k\": {\"primitive\": \"cone\"},"
        "  \"t\": {\"primitive\": \"torus\"}, \"g\": {\"primitive\": \"plane\", \"size\": 4}},\n"
        " \"nodes\": [\n"
        "  {\"name\": \"box\", \"mesh\": \"b\", \"material\": \"red\","
        "   \"transform\": {\"translation\": [1, 0, 0], \"euler\": [0, 90, 0], \"scale\": 2}},\n"
        "  {\"name\": \"parent\", \"transform\": {\"rotation\": [0, 0, 0.70710678, 0.70710678]}, \"children\": [\n"
        "    {\"name\": \"child\", \"mesh\": \"c\", \"hidden\": true, \"transform\": {\"translation\": [1, 0, 0]}}]}\n"
        " ]}");
    cr_assert_str_eq(sr_scene_name(scene), "values");
    sr_camera c = sr_scene_camera(scene);
    cr_assert(c.eye.x == 1 && c.eye.y == 2 && c.eye.z == 3 && c.target.y == 1 && c.up.z == 1);
    cr_assert(c.fov_y_degrees == 60 && c.near_z == 0.5f && c.far_z == 50);
    sr_light light = sr_scene_light(scene);
    cr_assert(light.direction.y == 1.0f && light.ambient == 0.1f && light.diffuse == 0.9f, "normalised direction");
    cr_assert_eq(sr_scene_background(scene), sr_rgba8(1, 0, 0.5f, 1));
    sr_material_desc red = sr_scene_material(scene, sr_scene_find_material(scene, "red"));
    cr_assert(red.base_color.x == 1 && red.base_color.y == 0 && red.base_color.w == 0.5f);
    cr_assert(red.cull == SR_CULL_BACK && red.sampler.filter == SR_FILTER_BILINEAR &&
              red.sampler.wrap_v == SR_WRAP_CLAMP);
    const sr_texture *texture = sr_scene_texture(scene, red.texture);
    cr_assert(texture && texture->width == 8);
    cr_assert_eq(texture->texels[0], sr_rgba8(1, 1, 1, 1), "the checker's default light squares are white");
    cr_assert_eq(sr_scene_material(scene, sr_scene_find_material(scene, "plain")).shader, &sr_shader_normals);
    cr_assert_eq(sr_scene_mesh_count(scene), 7u);
    // The box: 2 x 4 x 6, scaled by 2, turned 90 degrees about Y (x -> -z), moved by +1 in x.
    sr_node_info box = node_named(scene, "box");
    cr_assert(fabsf(box.world_aabb.min.x - (1 - 6)) < 1e-3f && fabsf(box.world_aabb.max.x - (1 + 6)) < 1e-3f,
              "x %g..%g", (double)box.world_aabb.min.x, (double)box.world_aabb.max.x);
    cr_assert(fabsf(box.world_aabb.max.y - 4) < 1e-3f && fabsf(box.world_aabb.max.z - 2) < 1e-3f);
    // The child: turned 90 degrees about Z with its parent, (1, 0, 0) goes to (0, 1, 0).
    sr_node_info child = node_named(scene, "child");
    cr_assert(child.hidden && child.depth == 1);
    sr_vec3 centre = sr_aabb_centre(child.world_aabb);
    cr_assert(fabsf(centre.x) < 1e-5f && fabsf(centre.y - 1) < 1e-5f, "(%g, %g)", (double)centre.x, (double)centre.y);
    sr_scene_destroy(scene);
}

Test(scene_file, repeat_makes_a_centred_grid_cycling_through_meshes)
{
    sr_scene *scene = load_text("{\"meshes\": {\"a\": {\"primitive\": \"box\"}, \"b\": {\"primitive\": \"sphere\"}},\n"
                                " \"nodes\": [{\"name\": \"grid\", \"mesh\": [\"a\", \"b\"],"
                                " \"transform\": {\"translation\": [0, 5, 0]},"
                                " \"repeat\": {\"count\": [3, 2, 4], \"spacing\": [2, 10, 1]}}]}");
    cr_assert_eq(sr_scene_node_count(scene), 1u + 24u);
    sr_node_info group = node_named(scene, "grid");
    cr_assert(group.mesh.id == 0);
    for (int index = 0; index < 24; index++) {
        int i = index % 3, j = index / 3 % 2, k = index / 6;
        char name[32];
        snprintf(name, sizeof name, "grid[%d]", index);
        sr_node_info item = node_named(scene, name);
        sr_vec3 expected = {(float)(i - 1) * 2, 5 + (float)j * 10 - 5, (float)k - 1.5f};
        sr_vec3 at = {item.world.m[12], item.world.m[13], item.world.m[14]};
        cr_assert(sr_vec3_length(sr_vec3_sub(at, expected)) < 1e-5f, "%s at (%g %g %g)", name, (double)at.x,
                  (double)at.y, (double)at.z);
        cr_assert_eq(item.mesh.id, (uint32_t)(index % 2 + 1), "%s cycles through the meshes", name);
        cr_assert_eq(item.parent.index, sr_scene_find_node(scene, "grid").index);
    }
    sr_scene_destroy(scene);
}

/* Writes `text` to dir/name. */
static void write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    fwrite(data, 1, size, f);
    fclose(f);
}

typedef struct warnings {
    int count;
    char last[1024];
} warnings;

static void collect_warning(void *user, const char *message)
{
    warnings *w = user;
    w->count++;
    snprintf(w->last, sizeof w->last, "%s", message);
}

Test(scene_file, paths_are_relative_to_the_scene_file_and_missing_images_warn)
{
    char dir[] = "/tmp/softrast_scene_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char sub[600];
    snprintf(sub, sizeof sub, "%s/models", dir);
    mkdir(sub, 0700);
    const char *obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n";
    write_file(sub, "tri.obj", obj, strlen(obj));
    sr_texture *texture = NULL;
    sr_checker_texture_create(4, 2, sr_rgba8(1, 0, 0, 1), sr_rgba8(0, 0, 1, 1), &texture, NULL);
    sr_framebuffer image = {.width = 4, .height = 4, .color = texture->texels};
    char png[700];
    snprintf(png, sizeof png, "%s/models/red.png", dir);
    cr_assert_eq(sr_framebuffer_save(&image, png, NULL), SR_OK);
    sr_texture_destroy(texture);
    const char *scene_text = "{\"textures\": {\"red\": {\"path\": \"models/red.png\"},"
                             " \"gone\": {\"path\": \"models/missing.png\"}},\n"
                             " \"materials\": {\"m\": {\"texture\": \"red\"}, \"n\": {\"texture\": \"gone\"}},\n"
                             " \"meshes\": {\"tri\": {\"obj\": \"models/tri.obj\", \"normalize\": true}},\n"
                             " \"nodes\": [{\"name\": \"t\", \"mesh\": \"tri\", \"material\": \"m\"},"
                             " {\"name\": \"u\", \"mesh\": \"tri\", \"material\": \"n\"}]}";
    write_file(dir, "scene.json", scene_text, strlen(scene_text));
    char path[700];
    snprintf(path, sizeof path, "%s/scene.json", dir);
    // Loaded from another working directory: the paths are the file's, not the process's.
    warnings w = {0};
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(
        sr_scene_load(&(sr_scene_load_desc){.path = path, .warning = collect_warning, .user = &w}, &scene, &err), SR_OK,
        "%s", err.message);
    cr_assert_eq(w.count, 1, "one warning for the missing image");
    cr_assert(strstr(w.last, "textures.gone.path") && strstr(w.last, "missing.png"), "%s", w.last);
    sr_material_desc m = sr_scene_material(scene, sr_scene_find_material(scene, "m"));
    const sr_texture *red = sr_scene_texture(scene, m.texture);
    cr_assert(red && red->width == 4 && red->texels[0] == sr_rgba8(1, 0, 0, 1));
    cr_assert_eq(sr_scene_material(scene, sr_scene_find_material(scene, "n")).texture.id, 0u,
                 "a missing image leaves the material untextured");
    sr_node_info t = node_named(scene, "t");
    const sr_mesh *mesh = sr_scene_mesh(scene, t.mesh);
    cr_assert_eq(mesh->triangle_count, 2u);
    sr_aabb bounds = sr_mesh_bounds(mesh);
    cr_assert(bounds.min.x == -1 && bounds.max.x == 1, "normalize: largest extent 2");
    sr_scene_destroy(scene);
    // A missing mesh file is an error naming it and its JSON path.
    const char *broken = "{\"meshes\": {\"x\": {\"obj\": \"models/nothing.obj\"}}}";
    write_file(dir, "broken.json", broken, strlen(broken));
    snprintf(path, sizeof path, "%s/broken.json", dir);
    scene = (sr_scene *)1;
    cr_assert_neq(sr_scene_load(&(sr_scene_load_desc){.path = path}, &scene, &err), SR_OK);
    cr_assert_null(scene);
    cr_assert(strstr(err.message, "meshes.x.obj") && strstr(err.message, "nothing.obj"), "%s", err.message);
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_assert_eq(system(command), 0);
}

Test(scene_file, a_mesh_path_gives_the_canonical_scene)
{
    char dir[] = "/tmp/softrast_mesh_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *obj = "v 10 10 10\nv 14 10 10\nv 10 12 10\nf 1 2 3\n";
    write_file(dir, "Tri.OBJ", obj, strlen(obj));
    char path[600];
    snprintf(path, sizeof path, "%s/Tri.OBJ", dir);
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = path, .mesh_view = SR_MESH_VIEW_BENCH}, &scene, &err),
                 SR_OK, "%s", err.message);
    cr_assert_eq(sr_scene_node_count(scene), 1u);
    sr_node_info info = node_named(scene, "Tri");
    const sr_mesh *mesh = sr_scene_mesh(scene, info.mesh);
    sr_aabb bounds = sr_mesh_bounds(mesh);
    cr_assert(bounds.min.x == -1 && bounds.max.x == 1 && bounds.max.y == 0.5f, "normalised");
    sr_camera camera = sr_scene_camera(scene), bench = sr_bench_camera();
    cr_assert(memcmp(&camera, &bench, sizeof camera) == 0, "the benchmark scene's camera");
    cr_assert_eq(sr_scene_background(scene), SR_BENCH_SCENE_BACKGROUND);
    sr_scene_destroy(scene);
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_assert_eq(system(command), 0);
}

Test(scene_file, malformed_files_name_the_json_path)
{
    const char *box = "\"meshes\": {\"b\": {\"primitive\": \"box\"}}";
    char text[1024];
    // The example: the offending value's path.
    snprintf(text, sizeof text,
             "{%s, \"nodes\": [{}, {}, {}, {\"mesh\": \"b\", \"transform\": {\"scale\": [1, \"x\", 1]}}]}", box);
    load_fails(text, "nodes[3].transform.scale[1]: expected a number, found a string");
    load_fails("{\"nodes\": [{\"name\": 3}]}", "nodes[0].name: expected a string");
    load_fails("{\"nodes\": [{\"trasnform\": {}}]}", "nodes[0].trasnform: unknown key");
    load_fails("{\"nodes\": [{\"mesh\": \"nothing\"}]}", "nodes[0].mesh: no mesh called 'nothing'");
    load_fails("{\"nodes\": {}}", "nodes: expected an array");
    load_fails("{\"cameras\": {}}", "cameras: unknown key (expected one of: name, camera");
    load_fails("{\"camera\": {\"eye\": [0, 0, 0], \"target\": [0, 0, 0]}}", "camera: camera eye and target");
    load_fails("{\"camera\": {\"fov\": 190}}", "camera.fov: 190 is outside");
    load_fails("{\"camera\": {\"projection\": \"fisheye\"}}", "'fisheye' is not one of: perspective, orthographic");
    load_fails("{\"light\": {\"direction\": [0, 0, 0]}}", "light: light direction");
    load_fails("{\"background\": [1, 2, 3]}", "background[1]: colour component 2 is outside [0, 1]");
    load_fails("{\"background\": [1, 1]}", "background: expected a colour");
    load_fails("{\"materials\": {\"m\": {\"shader\": \"phong\"}}}", "materials.m.shader: unknown shader 'phong'");
    load_fails("{\"materials\": {\"m\": {\"texture\": \"t\"}}}", "materials.m.texture: no texture called 't'");
    load_fails("{\"materials\": {\"m\": {\"opacity\": 1.5}}}", "materials.m.opacity: 1.5 is outside [0, 1]");
    load_fails("{\"materials\": {\"m\": {\"cull\": \"sideways\"}}}", "materials.m.cull");
    load_fails("{\"textures\": {\"t\": {}}}", "textures.t: give either");
    load_fails("{\"textures\": {\"t\": {\"checker\": {\"size\": 4, \"squares\": 8}}}}", "8 squares do not fit");
    load_fails("{\"meshes\": {\"m\": {\"primitive\": \"teapot\"}}}", "meshes.m.primitive: 'teapot' is not one of");
    load_fails("{\"meshes\": {\"m\": {\"primitive\": \"sphere\", \"slices\": 2.5}}}",
               "meshes.m.slices: expected a whole number");
    load_fails("{\"meshes\": {\"m\": {\"primitive\": \"sphere\", \"slices\": 2}}}", "slices = 2 is out of range");
    load_fails("{\"meshes\": {\"m\": {\"primitive\": \"box\", \"radius\": 1}}}", "meshes.m.radius: unknown key");
    load_fails("{\"meshes\": {\"m\": {\"primitive\": \"box\", \"size\": [1, -1, 1]}}}", "box sizes must be positive");
    load_fails("{\"meshes\": {\"m\": {}}}", "meshes.m: a mesh needs");
    load_fails("{\"meshes\": {\"m\": {\"primitive\": \"box\"}, \"m\": {\"primitive\": \"box\"}}}",
               "meshes.m: the name 'm' is used twice");
    snprintf(text, sizeof text, "{%s, \"nodes\": [{\"mesh\": \"b\", \"transform\": {\"scale\": [1, 0, 1]}}]}", box);
    load_fails(text, "nodes[0].transform.scale[1]: a scale of 0");
    load_fails("{\"nodes\": [{\"transform\": {\"rotation\": [0, 0, 0, 0]}}]}", "the quaternion [x, y, z, w] is zero");
    load_fails("{\"nodes\": [{\"transform\": {\"rotation\": [0, 0, 0, 1], \"euler\": [0, 0, 0]}}]}", "not both");
    load_fails("{\"nodes\": [{\"transform\": {\"translation\": [1e39, 0, 0]}}]}", "out of range");
    snprintf(text, sizeof text, "{%s, \"nodes\": [{\"mesh\": \"b\", \"repeat\": {\"count\": [1000, 1000, 2]}}]}", box);
    load_fails(text, "nodes[0].repeat: 1000 x 1000 x 2 instances: more than");
    snprintf(text, sizeof text, "{%s, \"nodes\": [{\"mesh\": \"b\", \"repeat\": {}, \"children\": []}]}", box);
    load_fails(text, "cannot be combined");
    load_fails("{\"nodes\": [{\"repeat\": {}}]}", "needs \"mesh\"");
    // Syntax errors give line and column.
    load_fails("{\"nodes\": [\n  {\"name\": \"a\",}\n]}", "bad.json:2:");
    load_fails("{\"nodes\": [", "bad.json:1:11: malformed JSON");
    load_fails("{} {}", "text after the end");
    load_fails("[1, 2]", "expected an object, found an array");
    load_fails("", "bad.json:1:1");
    // Nesting past the limit.
    char deep[4096] = "{\"nodes\": [";
    for (int i = 0; i < 70; i++)
        strcat(deep, "{\"children\": [");
    for (int i = 0; i < 70; i++)
        strcat(deep, "]}");
    strcat(deep, "]}");
    load_fails(deep, "nested deeper than 64 levels");
}

Test(scene_file, files_that_are_not_scenes)
{
    sr_scene *scene = (sr_scene *)1;
    sr_error err = {0};
    cr_assert_neq(sr_scene_load(&(sr_scene_load_desc){.path = "/nonexistent_softrast/scene.json"}, &scene, &err),
                  SR_OK);
    cr_assert_null(scene);
    cr_assert(strstr(err.message, "/nonexistent_softrast/scene.json"), "%s", err.message);
    cr_assert_neq(sr_scene_load(&(sr_scene_load_desc){.path = "/dev/zero.json"}, &scene, &err), SR_OK);
    cr_assert_neq(sr_scene_load(&(sr_scene_load_desc){.path = "/tmp"}, &scene, &err), SR_OK);
    cr_assert(strstr(err.message, "/tmp"), "%s", err.message);
    cr_assert_neq(sr_scene_load(NULL, &scene, &err), SR_OK);
    cr_assert_neq(sr_scene_load(&(sr_scene_load_desc){0}, &scene, &err), SR_OK);
}

/* ---- progress (sr_scene_load_desc.progress, sr_scene_set_progress) ---- */

typedef struct stage_log {
    int calls, builds_started, builds_ended, reads;
    int stop_at; ///< the call (1-based) that returns false; 0 never
    char last_stage[200];
} stage_log;

static bool log_stage(void *user, const char *stage, double fraction)
{
    stage_log *log = user;
    log->calls++;
    snprintf(log->last_stage, sizeof log->last_stage, "%s", stage);
    if (strncmp(stage, "building the BVH of mesh '", 26) == 0) {
        log->builds_started += fraction == 0.0;
        log->builds_ended += fraction == 1.0;
    } else if (strncmp(stage, "reading ", 8) == 0) {
        log->reads++;
    }
    return log->stop_at == 0 || log->calls < log->stop_at;
}

Test(scene_progress, every_mesh_build_and_obj_read_is_reported)
{
    stage_log log = {0};
    sr_scene *scene = NULL;
    sr_error err;
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = SCENES "demo.json", .progress = log_stage, .user = &log},
                               &scene, &err),
                 SR_OK, "%s", err.message);
    cr_assert_eq(log.builds_started, 4, "one per mesh of demo.json");
    cr_assert_eq(log.builds_ended, 4);
    cr_assert_eq(log.calls, 8);
    // The callback is not kept past the load: later meshes are not reported to it.
    sr_mesh *box = NULL;
    cr_assert_eq(sr_mesh_create_box(sr_vec3_splat(1.0f), 1, &box, NULL), SR_OK);
    cr_assert_eq(sr_scene_add_mesh(scene, box, "extra", NULL, NULL), SR_OK);
    cr_assert_eq(log.calls, 8);
    sr_scene_destroy(scene);

    // A mesh file: read, then its BVH.
    log = (stage_log){0};
    char path[256];
    snprintf(path, sizeof path, "%s/tests/data_progress.obj", SR_BUILD_DIR);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    fclose(f);
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = path, .progress = log_stage, .user = &log}, &scene, &err),
                 SR_OK, "%s", err.message);
    cr_assert_eq(log.reads, 2, "start and end of the text");
    cr_assert_eq(log.builds_started, 1);
    cr_assert_eq(log.builds_ended, 1);
    cr_assert_str_eq(log.last_stage, "building the BVH of mesh 'data_progress'");
    sr_scene_destroy(scene);

    // Stopping during a build cancels the load; nothing is left.
    log = (stage_log){.stop_at = 3};
    scene = (sr_scene *)1;
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = path, .progress = log_stage, .user = &log}, &scene, &err),
                 SR_ERROR_CANCELLED, "%s", err.message);
    cr_assert_null(scene);
    cr_assert(strstr(err.message, "cancelled"), "%s", err.message);
    log = (stage_log){.stop_at = 5};
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = SCENES "demo.json", .progress = log_stage, .user = &log},
                               &scene, &err),
                 SR_ERROR_CANCELLED, "%s", err.message);
    cr_assert_null(scene);
    cr_assert(strstr(err.message, "demo.json"), "the message names the file: %s", err.message);
    remove(path);
}
