/* scene_example.c — a scene made in code (a ground, a red ball, a box), moved for a few steps as
 * a physics engine would move it, rendered to an image and picked through a pixel.
 * The README shows this file as it is; the test suite builds and runs it (meson test scene_example).
 *   cc scene_example.c $(pkg-config --cflags --libs softrast) -o scene_example && ./scene_example out.png */
#include <softrast/softrast.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "scene.png";
    sr_error err = {0}; // every function that can fail returns its status and fills err
    sr_scene *scene = NULL;
    sr_renderer *renderer = NULL;
    sr_framebuffer *fb = NULL;
    sr_scene_frame *frame = NULL;
    sr_mesh *plane = NULL, *sphere = NULL, *cube = NULL;
    sr_texture *checker = NULL;
    sr_mesh_id plane_mesh, sphere_mesh, cube_mesh;
    sr_texture_id tiles;
    sr_material_id tiled, red;
    sr_node_id ground, ball, box;
    sr_transform box_pose = {.translation = {1.2f, 0.4f, -0.5f},
                             .rotation = sr_quat_from_euler_degrees(sr_vec3_make(0, 30, 0))};
    if (sr_scene_create(&(sr_scene_desc){.name = "example"}, &scene, &err) ||
        sr_mesh_create_plane(6.0f, 1, 3.0f, &plane, &err) ||
        sr_scene_add_mesh(scene, plane, "plane", &plane_mesh, &err) || // the scene owns the mesh now
        sr_mesh_create_sphere(0.5f, 32, 16, &sphere, &err) ||
        sr_scene_add_mesh(scene, sphere, "sphere", &sphere_mesh, &err) ||
        sr_mesh_create_box(sr_vec3_splat(0.4f), 1, &cube, &err) ||
        sr_scene_add_mesh(scene, cube, "cube", &cube_mesh, &err) ||
        sr_checker_texture_create(64, 8, sr_rgba8(0.9f, 0.9f, 0.9f, 1), sr_rgba8(0.5f, 0.5f, 0.5f, 1), &checker,
                                  &err) ||
        sr_scene_add_texture(scene, checker, "tiles", &tiles, &err) || // and the texture
        sr_scene_add_material(scene, &(sr_material_desc){.texture = tiles}, &tiled, &err) ||
        sr_scene_add_material(scene, &(sr_material_desc){.base_color = {0.9f, 0.2f, 0.1f, 1}}, &red, &err) ||
        sr_scene_add_node(scene, &(sr_node_desc){.name = "ground", .mesh = plane_mesh, .material = tiled}, &ground,
                          &err) ||
        sr_scene_add_node(scene, &(sr_node_desc){.name = "ball", .mesh = sphere_mesh, .material = red}, &ball, &err) ||
        sr_scene_add_node(scene, &(sr_node_desc){.name = "box", .mesh = cube_mesh, .transform = box_pose}, &box,
                          &err) ||
        sr_renderer_create(&(sr_renderer_desc){.threads = 2}, &renderer, &err) ||
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = 640, .height = 360}, &fb, &err) ||
        sr_scene_frame_create(&frame, &err))
        goto done;
    sr_scene_set_camera(scene, &(sr_camera){.eye = {0, 2.5f, 5}, .target = {0, 0.5f, 0}});

    // Each step: your physics moves nodes, sr_scene_render updates what moved, culls and draws.
    float height = 2.5f, velocity = 0.0f, dt = 1.0f / 60.0f;
    for (int step = 0; step < 40; step++) {
        velocity -= 9.81f * dt;
        height += velocity * dt;
        if (height < 0.5f) { // the ball rests on the ground
            height = 0.5f;
            velocity = 0.0f;
        }
        if (sr_scene_set_transform(scene, ball, (sr_transform){.translation = {-0.6f, height, 0}}, &err) ||
            sr_scene_render(scene, NULL, renderer, fb, frame, &err))
            goto done;
    }
    if (sr_framebuffer_save(fb, out, &err))
        goto done;
    sr_scene_stats stats = sr_scene_frame_stats(frame);
    printf("%s: %u instances drawn, %llu triangles, %.2f ms\n", out, stats.instances_drawn,
           (unsigned long long)stats.triangles_drawn, stats.update_ms + stats.cull_ms + stats.draw_ms);

    // What is under pixel (270, 160)? The ray through its centre hits what the rasteriser drew there.
    sr_pick_hit hit;
    sr_node_info node;
    if (sr_scene_pick(scene, NULL, fb->width, fb->height, 270.5f, 160.5f, &hit, &err))
        goto done;
    if (hit.hit && sr_scene_node(scene, hit.node, &node, &err) == SR_OK)
        printf("pixel (270, 160): '%s', triangle %u, %.3f from the eye, normal (%.2f, %.2f, %.2f)\n", node.name,
               hit.triangle, hit.t, hit.normal.x, hit.normal.y, hit.normal.z);

done:
    if (err.status != SR_OK)
        fprintf(stderr, "scene_example: %s\n", err.message);
    sr_scene_frame_destroy(frame);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    sr_scene_destroy(scene); // with its meshes, materials and nodes
    return err.status == SR_OK ? 0 : 1;
}
