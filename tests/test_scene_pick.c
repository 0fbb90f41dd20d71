/* test_scene_pick.c — picking (src/scene/scene_pick.c): picks agreeing with the id buffer
 * (nested transforms, non-uniform scale, overlapping instances, a textured OBJ with groups and
 * materials), with brute-force ray casts in double and with the analytic normals of a scaled
 * sphere; batches on any thread count; hidden nodes and pending edits. */
#include "scene_test_helpers.h"

#include <stddef.h>
#include <unistd.h>

/* ---- picking ---- */

/* Nested transforms with non-uniform scale and overlapping instances, seen from a camera that
 * shows all of them. */
static sr_scene *make_picking_scene(sr_node_id nodes[6])
{
    sr_scene *scene = new_scene();
    sr_mesh_id sphere = add_mesh(scene, sphere_mesh(0.6f), "sphere");
    sr_mesh_id box = add_mesh(scene, box_mesh(0.5f), "box");
    sr_mesh *torus_mesh = NULL;
    sr_mesh_create_torus(0.5f, 0.2f, 24, 12, &torus_mesh, NULL);
    sr_mesh_id torus = add_mesh(scene, torus_mesh, "torus");
    nodes[0] =
        add_node(scene, "base", SR_NODE_NULL, (sr_transform){.translation = {0, -0.5f, 0}, .scale = {3, 0.2f, 2}}, box);
    nodes[1] = add_node(scene, "arm", SR_NODE_NULL,
                        (sr_transform){.translation = {-0.8f, 0.4f, 0},
                                       .rotation = sr_quat_from_euler_degrees(sr_vec3_make(10, 30, 20)),
                                       .scale = {1.5f, 0.7f, 1.0f}},
                        sphere);
    nodes[2] = add_node(scene, "forearm", nodes[1],
                        (sr_transform){.translation = {0.9f, 0.3f, 0.2f},
                                       .rotation = sr_quat_from_euler_degrees(sr_vec3_make(0, 0, 50)),
                                       .scale = {0.5f, 1.4f, 0.8f}},
                        box);
    nodes[3] = add_node(scene, "hand", nodes[2],
                        (sr_transform){.translation = {0.2f, 0.7f, 0.0f},
                                       .rotation = sr_quat_from_euler_degrees(sr_vec3_make(70, 0, 0)),
                                       .scale = {1.2f, 1.2f, 0.6f}},
                        torus);
    // Two overlapping instances: their surfaces cross.
    nodes[4] = add_node(scene, "overlap a", SR_NODE_NULL, (sr_transform){.translation = {1.2f, 0.2f, 0.3f}}, sphere);
    nodes[5] = add_node(scene, "overlap b", SR_NODE_NULL,
                        (sr_transform){.translation = {1.5f, 0.3f, 0.5f},
                                       .rotation = sr_quat_from_euler_degrees(sr_vec3_make(20, 40, 0)),
                                       .scale = {0.8f, 1.3f, 0.9f}},
                        box);
    sr_scene_set_camera(scene, &(sr_camera){.eye = {0.5f, 2.0f, 4.5f}, .target = {0.2f, 0.1f, 0}});
    update(scene, NULL);
    return scene;
}

/* Does triangle `t` of node `node` share a vertex position (in world space, bit for bit after the
 * same transform) with triangle `u` of node `other`, or lie near it? Here: the pick's barycentric
 * weights put the hit within `margin` of an edge. */
static bool near_edge(const sr_pick_hit *hit, float margin)
{
    float w = 1.0f - hit->u - hit->v;
    return hit->u < margin || hit->v < margin || w < margin;
}

Test(picking, pick_agrees_with_the_id_buffer)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    const int width = 240, height = 160;
    sr_renderer *renderer = new_renderer(1);
    sr_framebuffer *fb = new_framebuffer(width, height);
    sr_scene_frame *frame = NULL;
    sr_scene_frame_create(&frame, NULL);
    render(scene, NULL, renderer, fb, frame);
    size_t covered = 0, agree = 0, background = 0;
    sr_camera camera = sr_scene_camera(scene);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            sr_pick_hit hit;
            sr_error err = {0};
            cr_assert_eq(sr_scene_pick(scene, NULL, width, height, x + 0.5f, y + 0.5f, &hit, &err), SR_OK, "%s",
                         err.message);
            sr_node_id node;
            uint32_t triangle;
            bool drawn = sr_scene_frame_decode_id(frame, fb->ids[y * width + x], &node, &triangle);
            if (!drawn) {
                background++;
                // Where nothing was drawn the pick misses, but for rays grazing a silhouette
                // within the rasteriser's 1/256-pixel snapping.
                cr_assert(!hit.hit || near_edge(&hit, 0.02f), "pixel (%d, %d): background but hit node %u", x, y,
                          hit.node.index);
                cr_assert(!hit.hit || hit.t <= sr_camera_ray(&camera, width, height, x + 0.5f, y + 0.5f).tmax);
                continue;
            }
            covered++;
            if (hit.hit && hit.node.index == node.index && hit.triangle == triangle) {
                agree++;
                continue;
            }
            cr_assert(hit.hit, "pixel (%d, %d): drawn node %u triangle %u, pick misses", x, y, node.index, triangle);
            // Disagreements lie on edges between triangles that touch, or where two surfaces
            // cross (equal depths up to rounding).
            sr_node_info info;
            sr_scene_node(scene, node, &info, NULL);
            cr_assert(near_edge(&hit, 0.02f) || hit.node.index != node.index,
                      "pixel (%d, %d): drawn %u/%u, picked %u/%u inside a triangle", x, y, node.index, triangle,
                      hit.node.index, hit.triangle);
        }
    cr_assert(covered > 5000 && background > 1000, "the scene covers part of the image (%zu pixels)", covered);
    cr_assert(agree >= covered * 999 / 1000, "%zu of %zu covered pixels agree", agree, covered);
    sr_scene_frame_destroy(frame);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    sr_scene_destroy(scene);
}

/* Brute force in double: every triangle of every instance mapped to world space. */
static bool brute_force_pick(const sr_scene *scene, const sr_node_id *nodes, int count, const sr_ray *ray,
                             double *t_out, int *node_out, uint32_t *triangle_out)
{
    double best = INFINITY;
    for (int i = 0; i < count; i++) {
        sr_node_info info;
        sr_scene_node(scene, nodes[i], &info, NULL);
        const sr_mesh *mesh = sr_scene_mesh(scene, info.mesh);
        double world[16];
        for (int k = 0; k < 16; k++)
            world[k] = info.world.m[k];
        for (size_t t = 0; t < mesh->triangle_count; t++) {
            double p[3][3];
            for (int c = 0; c < 3; c++)
                transform_point_double(world, mesh->positions[mesh->indices[3 * t + c]], p[c]);
            // Möller–Trumbore in double.
            double e1[3], e2[3], s[3], d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
            double o[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
            for (int k = 0; k < 3; k++) {
                e1[k] = p[1][k] - p[0][k];
                e2[k] = p[2][k] - p[0][k];
                s[k] = o[k] - p[0][k];
            }
            double h[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
            double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
            if (det == 0.0)
                continue;
            double u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) / det;
            double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
            double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
            double tt = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
            if (u < 0 || v < 0 || u + v > 1 || tt < ray->tmin || tt > ray->tmax || tt >= best)
                continue;
            best = tt;
            *node_out = i;
            *triangle_out = (uint32_t)t;
        }
    }
    *t_out = best;
    return best < INFINITY;
}

Test(picking, pick_matches_brute_force_in_double)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    rng_seed(7);
    int hits = 0;
    for (int trial = 0; trial < 3000; trial++) {
        float x = rng_range(0, 200), y = rng_range(0, 150);
        sr_pick_hit hit;
        cr_assert_eq(sr_scene_pick(scene, NULL, 200, 150, x, y, &hit, NULL), SR_OK);
        double t;
        int node = 0;
        uint32_t triangle = 0;
        bool expected = brute_force_pick(scene, nodes, 6, &hit.ray, &t, &node, &triangle);
        if (expected != hit.hit) {
            cr_assert(hit.hit && near_edge(&hit, 1e-3f), "trial %d: brute force %s", trial,
                      expected ? "hits" : "misses");
            continue;
        }
        if (!expected)
            continue;
        hits++;
        cr_assert(fabs(hit.t - t) < 1e-4 * t, "trial %d: t %g vs %g", trial, (double)hit.t, t);
        if (hit.node.index != nodes[node].index || hit.triangle != triangle)
            cr_assert(near_edge(&hit, 1e-3f) || fabs(hit.t - t) < 1e-5 * t, "trial %d: picked %u/%u, brute force %u/%u",
                      trial, hit.node.index, hit.triangle, nodes[node].index, triangle);
        // The point is on the ray at t, the normal unit and facing the ray.
        sr_vec3 p = sr_ray_at(&hit.ray, hit.t);
        cr_assert(sr_vec3_length(sr_vec3_sub(p, hit.position)) < 1e-5f);
        cr_assert(fabsf(sr_vec3_length(hit.normal) - 1.0f) < 1e-5f);
        cr_assert(sr_vec3_dot(hit.normal, hit.ray.direction) <= 0.0f);
        cr_assert(hit.nodes_visited > 0 && hit.instances_tested > 0);
    }
    cr_assert(hits > 1000, "%d hits", hits);
    sr_scene_destroy(scene);
}

Test(picking, world_normals_of_a_scaled_sphere_are_the_analytic_normals)
{
    // A sphere of radius 1 scaled to an ellipsoid (a, b, c): the normal at p is
    // normalize(p.x / a^2, p.y / b^2, p.z / c^2); the geometric normal of the hit triangle is
    // within the tessellation's angle of it.
    sr_scene *scene = new_scene();
    sr_mesh *mesh = NULL;
    sr_mesh_create_sphere(1.0f, 96, 48, &mesh, NULL);
    sr_mesh_id sphere = add_mesh(scene, mesh, "sphere");
    const float a = 2.0f, b = 0.5f, c = 1.0f;
    add_node(scene, "ellipsoid", SR_NODE_NULL, (sr_transform){.scale = {a, b, c}}, sphere);
    update(scene, NULL);
    rng_seed(8);
    for (int trial = 0; trial < 500; trial++) {
        sr_vec3 origin = {rng_range(-1, 1), rng_range(-0.3, 0.3), 5.0f};
        sr_ray ray = sr_ray_make(origin, sr_vec3_make(0, 0, -1), 0.0f, INFINITY);
        sr_pick_hit hit;
        cr_assert_eq(sr_scene_pick_ray(scene, &ray, &hit, NULL), SR_OK);
        if (!hit.hit)
            continue;
        sr_vec3 p = hit.position;
        sr_vec3 expected = sr_vec3_normalize(sr_vec3_make(p.x / (a * a), p.y / (b * b), p.z / (c * c)));
        cr_assert(sr_vec3_dot(hit.normal, expected) > 0.99f, "trial %d: normal (%g %g %g) vs (%g %g %g)", trial,
                  (double)hit.normal.x, (double)hit.normal.y, (double)hit.normal.z, (double)expected.x,
                  (double)expected.y, (double)expected.z);
        // t in world units: the hit's distance from the origin.
        cr_assert(fabsf(hit.t - sr_vec3_length(sr_vec3_sub(p, origin))) < 1e-5f);
    }
    sr_scene_destroy(scene);
}

/* Two picks alike bit for bit, field by field: sr_pick_hit has padding after `hit`, which a copy
 * of the struct need not carry (clang's copies leave it as it was). */
static bool same_pick(const sr_pick_hit *a, const sr_pick_hit *b)
{
    return a->hit == b->hit &&
           memcmp(&a->node, &b->node, sizeof *a - offsetof(sr_pick_hit, node)) == 0;
}

Test(picking, many_points_on_any_thread_count_equal_single_picks)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    enum { count = 997 };
    sr_vec2 points[count];
    rng_seed(9);
    for (int i = 0; i < count; i++)
        points[i] = sr_vec2_make(rng_range(0, 320), rng_range(0, 200));
    sr_pick_hit single[count], many[count];
    for (int i = 0; i < count; i++)
        cr_assert_eq(sr_scene_pick(scene, NULL, 320, 200, points[i].x, points[i].y, &single[i], NULL), SR_OK);
    const int thread_counts[] = {0, 1, 2, 3, 7};
    for (int k = 0; k < 5; k++) {
        cr_assert_eq(sr_scene_pick_many(scene, NULL, 320, 200, points, count, thread_counts[k], many, NULL), SR_OK);
        for (int i = 0; i < count; i++)
            cr_assert(same_pick(&single[i], &many[i]), "%d threads, point %d", thread_counts[k], i);
    }
    sr_scene_destroy(scene);
}

Test(picking, hidden_nodes_and_pending_edits)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    sr_pick_hit hit;
    sr_ray ray = sr_ray_make(sr_vec3_make(1.45f, 5, -0.9f), sr_vec3_make(0, -1, 0), 0.0f, INFINITY);
    cr_assert_eq(sr_scene_pick_ray(scene, &ray, &hit, NULL), SR_OK);
    cr_assert(hit.hit && hit.node.index == nodes[0].index, "straight down hits the base");
    cr_assert(fabsf(hit.t - 5.4f) < 1e-4f, "t %g: the base's top is at y = -0.4", (double)hit.t);
    sr_scene_set_hidden(scene, nodes[0], true, NULL);
    cr_assert_eq(sr_scene_pick_ray(scene, &ray, &hit, NULL), SR_OK);
    cr_assert(!hit.hit, "a hidden node is not picked");
    sr_scene_set_transform(scene, nodes[1], (sr_transform){0}, NULL);
    sr_error err = {0};
    cr_assert_neq(sr_scene_pick_ray(scene, &ray, &hit, &err), SR_OK);
    cr_assert(strstr(err.message, "sr_scene_update"), "%s", err.message);
    sr_scene_destroy(scene);
}

/* An OBJ file with groups, materials and a texture, written here: two tilted quads in front of a
 * polygon, the left one red, the right one textured with a PNG of two colours. */
static void write_text(const char *dir, const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(picking, a_textured_obj_with_groups_and_materials_agrees_with_its_picture)
{
    char dir[] = "/tmp/softrast_objscene_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    write_text(dir, "parts.mtl",
               "newmtl red\nKd 1 0 0\n\nnewmtl checker\nKd 1 1 1\nmap_Kd -s 1 1 1 two colours.png\n"
               "newmtl floor\nKd 0.3 0.6 0.3\n");
    sr_texture *texture = NULL;
    sr_checker_texture_create(8, 2, sr_rgba8(0, 0, 1, 1), sr_rgba8(1, 1, 0, 1), &texture, NULL);
    sr_framebuffer image = {.width = 8, .height = 8, .color = texture->texels};
    char png[700];
    snprintf(png, sizeof png, "%s/two colours.png", dir);
    cr_assert_eq(sr_framebuffer_save(&image, png, NULL), SR_OK);
    sr_texture_destroy(texture);
    write_text(dir, "parts.obj",
               "mtllib parts.mtl\n"
               "v -2 -1 0.2\nv -0.2 -1 0\nv -0.2 1 0\nv -2 1 0.3\n"
               "v 0.2 -1 0\nv 2 -1 -0.4\nv 2 1 -0.2\nv 0.2 1 0\n"
               "v -3 -2 -1\nv 3 -2 -1\nv 3 2 -1\nv 0 0.5 -1\nv -3 2 -1\n"
               "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
               "g left\nusemtl red\nf 1 2 3 4\n"
               "g right\nusemtl checker\nf 5/1 6/2 7/3 8/4\n"
               "g back\nusemtl floor\nf 9 10 11 12 13\n");
    char path[700];
    snprintf(path, sizeof path, "%s/parts.obj", dir);
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = path, .mesh_view = SR_MESH_VIEW_BENCH}, &scene, &err),
                 SR_OK, "%s", err.message);
    sr_node_id node = sr_scene_find_node(scene, "parts");
    cr_assert(node.generation != 0);
    sr_node_info info;
    sr_scene_node(scene, node, &info, NULL);
    const sr_mesh *mesh = sr_scene_mesh(scene, info.mesh);
    cr_assert_eq(mesh->triangle_count, 2u + 2u + 3u, "the concave pentagon gives three triangles");
    cr_assert_eq(mesh->group_count, 3u);
    cr_assert(sr_scene_find_material(scene, "red").id && sr_scene_find_material(scene, "checker").id);
    const int width = 160, height = 120;
    sr_renderer *renderer = new_renderer(1);
    sr_framebuffer *fb = new_framebuffer(width, height);
    sr_scene_frame *frame = NULL;
    sr_scene_frame_create(&frame, NULL);
    render(scene, NULL, renderer, fb, frame);
    size_t covered = 0, agree = 0, red = 0, textured = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            sr_node_id drawn_node;
            uint32_t triangle;
            if (!sr_scene_frame_decode_id(frame, fb->ids[y * width + x], &drawn_node, &triangle))
                continue;
            covered++;
            sr_pick_hit hit;
            cr_assert_eq(sr_scene_pick(scene, NULL, width, height, x + 0.5f, y + 0.5f, &hit, NULL), SR_OK);
            agree += hit.hit && hit.node.index == drawn_node.index && hit.triangle == triangle;
            uint32_t c = fb->color[y * width + x];
            uint32_t r = c & 0xff, g = c >> 8 & 0xff, b = c >> 16 & 0xff;
            if (triangle < 2) // the red quad: lit red, no green or blue
                red += r > 100 && g == 0 && b == 0;
            else if (triangle < 4) // the textured quad: the texture's blue or yellow, lit
                textured += (b > 100 && r == 0 && g == 0) || (r > 100 && g > 100 && b == 0);
        }
    cr_assert_gt(covered, 3000, "%zu pixels covered", covered);
    cr_assert_geq(agree, covered * 999 / 1000, "%zu of %zu agree", agree, covered);
    cr_assert_gt(red, 600, "the red material shows (%zu pixels)", red);
    cr_assert_gt(textured, 600, "the texture shows (%zu pixels)", textured);
    sr_scene_frame_destroy(frame);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    sr_scene_destroy(scene);
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_assert_eq(system(command), 0);
}

Test(drawing, decode_id_maps_every_drawn_triangle_back)
{
    sr_node_id nodes[6];
    sr_scene *scene = make_picking_scene(nodes);
    sr_renderer *renderer = new_renderer(1);
    sr_framebuffer *fb = new_framebuffer(100, 80);
    sr_scene_frame *frame = NULL;
    sr_scene_frame_create(&frame, NULL);
    render(scene, NULL, renderer, fb, frame);
    for (size_t p = 0; p < 100 * 80; p++) {
        sr_node_id node;
        uint32_t triangle;
        if (!sr_scene_frame_decode_id(frame, fb->ids[p], &node, &triangle)) {
            cr_assert_eq(fb->ids[p], SR_NO_ID);
            continue;
        }
        sr_node_info info;
        cr_assert_eq(sr_scene_node(scene, node, &info, NULL), SR_OK);
        cr_assert(triangle < sr_scene_mesh(scene, info.mesh)->triangle_count);
    }
    cr_assert(!sr_scene_frame_decode_id(frame, SR_NO_ID, NULL, NULL));
    cr_assert(!sr_scene_frame_decode_id(frame, 0x7fffffff, NULL, NULL), "ids past the last instance are unknown");
    sr_scene_frame_destroy(frame);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    sr_scene_destroy(scene);
}
