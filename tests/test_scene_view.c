/* test_scene_view.c — the model view of a scene (src/scene/scene_view.c and its parts in
 * camera.c and the shaders): orbits about any up axis (Y up to the bit as before), the fitted
 * camera against its bounding sphere projected through the camera's own matrices, the headlight
 * against a basis built here in double, two-sided lighting's rule and its block form, the
 * vertex_color_lit program against its formula, and sr_scene_set_model_view / sr_scene_load's
 * choices (camera, light, vertex colour material) on generated meshes. */
#include <criterion/criterion.h>

#include "test_random.h"
#include <softrast/scene.h>
#include <softrast/shaders.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const double PI = 3.14159265358979323846;

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void to_double(sr_vec3 v, double out[3])
{
    out[0] = v.x, out[1] = v.y, out[2] = v.z;
}

/* ---- orbits ------------------------------------------------------------------------------- */

/* With up +Y (or none) an orbit's camera and the orbit of a camera are what they were before
 * orbits had an up axis, bit for bit: the formulas are written out here. */
Test(orbit, y_up_orbits_are_unchanged_to_the_bit)
{
    rng_seed(11);
    for (int trial = 0; trial < 2000; trial++) {
        sr_orbit orbit = {.target = {rng_range(-5, 5), rng_range(-5, 5), rng_range(-5, 5)},
                          .distance = rng_range(0.01, 50),
                          .yaw_degrees = rng_range(0, 360),
                          .pitch_degrees = rng_range(-89, 89),
                          .up = trial % 2 ? (sr_vec3){0, 1, 0} : (sr_vec3){0, 0, 0}};
        sr_camera c = sr_orbit_camera(&orbit, NULL);
        double yaw = (double)orbit.yaw_degrees * M_PI / 180.0, pitch = (double)orbit.pitch_degrees * M_PI / 180.0;
        double d = orbit.distance;
        sr_vec3 eye = {(float)(orbit.target.x + d * cos(pitch) * sin(yaw)), (float)(orbit.target.y + d * sin(pitch)),
                       (float)(orbit.target.z + d * cos(pitch) * cos(yaw))};
        cr_assert(memcmp(&c.eye, &eye, sizeof eye) == 0, "trial %d: eye differs", trial);
        cr_assert(c.up.x == 0 && c.up.y == 1 && c.up.z == 0);
        sr_orbit back = sr_orbit_from_camera(&c);
        sr_vec3 offset = sr_vec3_sub(c.eye, c.target);
        float distance = sr_vec3_length(offset);
        float old_pitch = asinf(fmaxf(-1.0f, fminf(1.0f, offset.y / distance))) * 180.0f / SR_PI;
        float old_yaw = fmodf(atan2f(offset.x, offset.z) * 180.0f / SR_PI, 360.0f);
        old_yaw = old_yaw < 0.0f ? old_yaw + 360.0f : old_yaw;
        cr_assert(back.distance == distance && back.yaw_degrees == old_yaw &&
                      back.pitch_degrees == fmaxf(-SR_ORBIT_MAX_PITCH, fminf(SR_ORBIT_MAX_PITCH, old_pitch)),
                  "trial %d", trial);
    }
}

/* About any other up axis: the eye is `distance` from the target, `pitch` above the plane
 * perpendicular to up, the camera's up is that axis, and the orbit of the camera is the orbit
 * again. Up +Z: yaw 0 looks from -Y (Blender's front view), yaw 90 from +X. */
Test(orbit, other_up_axes)
{
    const sr_vec3 ups[] = {{0, 0, 1}, {0, 0, -1}, {0, -1, 0}, {1, 0, 0}, {1, 2, 3}, {-0.2f, 0.9f, 0.1f}};
    rng_seed(12);
    for (size_t a = 0; a < sizeof ups / sizeof ups[0]; a++) {
        double up[3];
        to_double(sr_vec3_normalize(ups[a]), up);
        for (int trial = 0; trial < 300; trial++) {
            sr_orbit orbit = {.target = {rng_range(-3, 3), rng_range(-3, 3), rng_range(-3, 3)},
                              .distance = rng_range(0.5, 20),
                              .yaw_degrees = rng_range(0, 360),
                              .pitch_degrees = rng_range(-85, 85),
                              .up = ups[a]};
            sr_camera c = sr_orbit_camera(&orbit, NULL);
            double offset[3] = {(double)c.eye.x - c.target.x, (double)c.eye.y - c.target.y,
                                (double)c.eye.z - c.target.z};
            double length = sqrt(dot3(offset, offset));
            cr_assert(fabs(length - orbit.distance) < 1e-5 * orbit.distance + 1e-5, "up %zu: distance %g vs %g", a,
                      length, (double)orbit.distance);
            double elevation = asin(dot3(offset, up) / length) * 180 / PI;
            cr_assert(fabs(elevation - orbit.pitch_degrees) < 0.01, "up %zu: elevation %g vs pitch %g", a, elevation,
                      (double)orbit.pitch_degrees);
            double camera_up[3];
            to_double(c.up, camera_up);
            cr_assert(fabs(dot3(camera_up, up) - 1) < 1e-6, "up %zu: the camera's up is the axis", a);
            sr_orbit back = sr_orbit_from_camera(&c);
            double yaw_error = fmod(fabs(back.yaw_degrees - orbit.yaw_degrees), 360.0);
            yaw_error = fmin(yaw_error, 360 - yaw_error);
            cr_assert(yaw_error < 0.01 && fabs(back.pitch_degrees - orbit.pitch_degrees) < 0.01 &&
                          fabs(back.distance - orbit.distance) < 1e-4 * orbit.distance,
                      "up %zu trial %d: orbit (%g, %g, %g) came back as (%g, %g, %g)", a, trial,
                      (double)orbit.yaw_degrees, (double)orbit.pitch_degrees, (double)orbit.distance,
                      (double)back.yaw_degrees, (double)back.pitch_degrees, (double)back.distance);
        }
    }
    // Up +Z: the front is -Y, the right +X.
    sr_camera front = sr_orbit_camera(&(sr_orbit){.distance = 2, .up = {0, 0, 1}}, NULL);
    cr_assert(fabsf(front.eye.x) < 1e-6f && fabsf(front.eye.y + 2) < 1e-6f && fabsf(front.eye.z) < 1e-6f);
    sr_camera right = sr_orbit_camera(&(sr_orbit){.distance = 2, .yaw_degrees = 90, .up = {0, 0, 1}}, NULL);
    cr_assert(fabsf(right.eye.x - 2) < 1e-6f && fabsf(right.eye.y) < 1e-6f && fabsf(right.eye.z) < 1e-6f);
    sr_camera above = sr_orbit_camera(&(sr_orbit){.distance = 2, .pitch_degrees = 30, .up = {0, 0, 1}}, NULL);
    cr_assert(fabsf(above.eye.z - 1) < 1e-6f, "pitch rises along +Z: %g", (double)above.eye.z);
}

/* ---- the fitted camera -------------------------------------------------------------------- */

/* Clip coordinates of a world point through the camera's own matrices, in double. */
static void to_clip(const sr_camera *camera, int width, int height, const double p[3], double clip[4])
{
    sr_mat4 view, projection;
    sr_camera_matrices(camera, width, height, &view, &projection);
    double v[4];
    for (int r = 0; r < 4; r++)
        v[r] = (double)view.m[r] * p[0] + (double)view.m[4 + r] * p[1] + (double)view.m[8 + r] * p[2] +
               (double)view.m[12 + r];
    for (int r = 0; r < 4; r++)
        clip[r] = projection.m[r] * v[0] + projection.m[4 + r] * v[1] + projection.m[8 + r] * v[2] +
                  projection.m[12 + r] * v[3];
}

/* The whole bounding sphere of the box is in view for the image it was fitted for (points all
 * over the sphere project inside the clip volume), it nearly touches the narrower pair of sides
 * (5% to spare), the view comes from 35 degrees around up and 25 above, and near and far
 * enclose it. Boxes from a millimetre to kilometres, Y and Z up, portrait to panorama. */
Test(fit, the_bounding_sphere_fits_any_aspect)
{
    rng_seed(13);
    for (int trial = 0; trial < 300; trial++) {
        double scale = pow(10.0, rng_range(-3, 4));
        sr_vec3 centre = {rng_range(-2, 2) * (float)scale, rng_range(-2, 2) * (float)scale,
                          rng_range(-2, 2) * (float)scale};
        sr_vec3 half = {rng_range(0.01, 1) * (float)scale, rng_range(0.01, 1) * (float)scale,
                        rng_range(0.01, 1) * (float)scale};
        sr_aabb box = {sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
        bool z_up = trial % 2;
        int width = 16 + (int)rng_range(0, 1000), height = 16 + (int)rng_range(0, 1000);
        sr_camera camera =
            sr_camera_fit_box(box, z_up ? (sr_vec3){0, 0, 1} : (sr_vec3){0, 0, 0}, (float)width / (float)height);
        cr_assert_eq(sr_camera_check(&camera, NULL), SR_OK, "trial %d: invalid camera", trial);
        double c[3] = {(double)box.min.x / 2 + (double)box.max.x / 2, (double)box.min.y / 2 + (double)box.max.y / 2,
                       (double)box.min.z / 2 + (double)box.max.z / 2};
        double e[3] = {(double)box.max.x - box.min.x, (double)box.max.y - box.min.y, (double)box.max.z - box.min.z};
        double radius = 0.5 * sqrt(dot3(e, e));
        double widest = 0; // the largest |ndc| along the narrower axis
        for (int s = 0; s < 400; s++) {
            // Fibonacci points on the sphere.
            double z = 1 - 2 * (s + 0.5) / 400, r = sqrt(1 - z * z), phi = s * PI * (3 - sqrt(5.0));
            double p[3] = {c[0] + radius * r * cos(phi), c[1] + radius * r * sin(phi), c[2] + radius * z}, clip[4];
            to_clip(&camera, width, height, p, clip);
            cr_assert(clip[3] > 0 && fabs(clip[0]) <= clip[3] * (1 + 1e-5) && fabs(clip[1]) <= clip[3] * (1 + 1e-5) &&
                          clip[2] >= 0 && clip[2] <= clip[3],
                      "trial %d (%dx%d): a point of the sphere is outside the view", trial, width, height);
            widest = fmax(widest, fabs((width < height ? clip[0] : clip[1]) / clip[3]));
        }
        cr_assert(widest > 0.85 && widest < 0.99, "trial %d (%dx%d): the sphere spans %g of the narrower side", trial,
                  width, height, widest);
        // The direction it looks from.
        double from[3] = {(double)camera.eye.x - c[0], (double)camera.eye.y - c[1], (double)camera.eye.z - c[2]};
        double length = sqrt(dot3(from, from));
        double yaw = 35 * PI / 180, pitch = 25 * PI / 180;
        double want[3] = {cos(pitch) * sin(yaw), z_up ? -cos(pitch) * cos(yaw) : sin(pitch),
                          z_up ? sin(pitch) : cos(pitch) * cos(yaw)};
        for (int k = 0; k < 3; k++)
            cr_assert(fabs(from[k] / length - want[k]) < 1e-4, "trial %d: seen from (%g, %g, %g)", trial,
                      from[0] / length, from[1] / length, from[2] / length);
    }
    // An empty box is [-1, 1]^3.
    sr_camera empty = sr_camera_fit_box(sr_aabb_empty(), (sr_vec3){0}, 0.0f);
    sr_camera unit = sr_camera_fit_box((sr_aabb){{-1, -1, -1}, {1, 1, 1}}, (sr_vec3){0}, 1.0f);
    cr_assert(memcmp(&empty, &unit, sizeof empty) == 0);
}

/* ---- the headlight ------------------------------------------------------------------------ */

/* The headlight is (0.3, 0.5, 1) normalised in the view camera's basis (built here from eye,
 * target and up): for the benchmark camera it is the benchmark light; a world light is as set. */
Test(light, the_headlight_turns_with_the_camera)
{
    sr_light head = sr_light_headlight();
    cr_assert(head.space == SR_LIGHT_CAMERA && head.two_sided && head.ambient == 0.2f && head.diffuse == 0.8f);
    sr_camera bench = sr_bench_camera();
    sr_vec3 world = sr_light_world_direction(&head, &bench);
    sr_vec3 fixed = sr_shader_uniforms_default().light_direction;
    cr_assert(fabsf(world.x - fixed.x) < 1e-7f && fabsf(world.y - fixed.y) < 1e-7f && fabsf(world.z - fixed.z) < 1e-7f);
    rng_seed(14);
    double l[3] = {0.3, 0.5, 1.0}, norm = sqrt(dot3(l, l));
    for (int trial = 0; trial < 500; trial++) {
        sr_camera c = {.eye = {rng_range(-9, 9), rng_range(-9, 9), rng_range(-9, 9)},
                       .target = {rng_range(-1, 1), rng_range(-1, 1), rng_range(-1, 1)},
                       .up = trial % 3 ? (sr_vec3){0, 1, 0} : (sr_vec3){0, 0, 1}};
        double f[3] = {(double)c.target.x - c.eye.x, (double)c.target.y - c.eye.y, (double)c.target.z - c.eye.z};
        double fl = sqrt(dot3(f, f)), up[3];
        to_double(c.up, up);
        for (int k = 0; k < 3; k++)
            f[k] /= fl;
        double s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
        double sl = sqrt(dot3(s, s));
        if (sl < 1e-3)
            continue;
        for (int k = 0; k < 3; k++)
            s[k] /= sl;
        double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
        double w[3];
        to_double(sr_light_world_direction(&head, &c), w);
        double back[3] = {-f[0], -f[1], -f[2]};
        cr_assert(fabs(dot3(w, s) - l[0] / norm) < 1e-5 && fabs(dot3(w, u) - l[1] / norm) < 1e-5 &&
                      fabs(dot3(w, back) - l[2] / norm) < 1e-5,
                  "trial %d: the light is (%g, %g, %g) in the camera's basis", trial, dot3(w, s), dot3(w, u),
                  dot3(w, back));
    }
    sr_light fixed_light = {.direction = {0, 0.6f, 0.8f}, .ambient = 0.1f, .diffuse = 0.9f};
    sr_vec3 same = sr_light_world_direction(&fixed_light, &bench);
    cr_assert(same.x == 0 && same.y == 0.6f && same.z == 0.8f, "a world light is not turned");
}

/* ---- two-sided lighting ------------------------------------------------------------------- */

/* Uniforms seen from (2, 3, 5), two-sided or not. */
static sr_shader_uniforms uniforms_from_a_camera(bool two_sided)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    sr_mat4 view = sr_mat4_look_at(sr_vec3_make(2, 3, 5), sr_vec3_make(0, 0, 0), sr_vec3_make(0, 1, 0));
    sr_shader_uniforms_set_transforms(&u, sr_mat4_identity(), view, sr_mat4_perspective(1.0f, 1.0f, 0.1f, 50.0f));
    u.light_direction = sr_vec3_normalize(sr_vec3_make(2.3f, 3.5f, 5.0f)); // near the eye, as a headlight
    u.albedo = sr_vec3_make(0.9f, 0.6f, 0.3f);
    u.two_sided = two_sided;
    return u;
}

static void shade(const sr_shader *shader, const sr_shader_uniforms *u, sr_vec3 normal, bool front_facing,
                  float color[4])
{
    sr_shader_vertex v = {.position = {0.1f, 0.2f, 0.3f}, .normal = normal, .color = {0.5f, 1.0f, 0.25f, 1.0f}};
    float clip[4], varyings[SR_MAX_VARYINGS] = {0};
    shader->program.vertex(&v, u, clip, varyings);
    const float barycentric[3] = {1 / 3.0f, 1 / 3.0f, 1 / 3.0f}; // the wireframe's fill, not an edge
    sr_fragment_in in = {.x = 0.5f,
                         .y = 0.5f,
                         .depth = 0.5f,
                         .varyings = varyings,
                         .barycentric = barycentric,
                         .front_facing = front_facing};
    sr_fragment_out out = {.color = {0, 0, 0, 1}, .depth = 0.5f};
    cr_assert(shader->program.fragment(&in, u, &out), "%s discarded", shader->name);
    memcpy(color, out.color, sizeof out.color);
}

/* A surface seen from behind (back-facing, normal away from the viewer) is lit as the same
 * surface with its normal reversed; a back-facing triangle whose normal faces the viewer (wound
 * the other way) and a front-facing one whose normal faces away (a smooth normal past a
 * silhouette) are lit as they are; without two_sided nothing is turned. */
Test(two_sided, the_normal_is_turned_only_on_surfaces_seen_from_behind)
{
    const sr_shader *lit[] = {&sr_shader_lambert, &sr_shader_vertex_color_lit, &sr_shader_blinn_phong,
                              &sr_shader_textured, &sr_shader_wireframe};
    sr_shader_uniforms one = uniforms_from_a_camera(false), two = uniforms_from_a_camera(true);
    const sr_vec3 toward = sr_vec3_normalize(sr_vec3_make(1, 2, 4)), away = sr_vec3_scale(toward, -1.0f);
    for (size_t s = 0; s < sizeof lit / sizeof lit[0]; s++) {
        float got[4], want[4];
        shade(lit[s], &two, away, false, got);
        shade(lit[s], &one, toward, true, want);
        cr_assert(memcmp(got, want, sizeof got) == 0, "%s: seen from behind, not lit as a front", lit[s]->name);
        float ambient_only[4];
        shade(lit[s], &one, away, false, ambient_only);
        cr_assert(ambient_only[0] < want[0] * 0.5f, "%s: one-sided, the back is dark (%g vs %g)", lit[s]->name,
                  (double)ambient_only[0], (double)want[0]);
        shade(lit[s], &two, toward, false, got);
        cr_assert(memcmp(got, want, sizeof got) == 0, "%s: wound the other way, lit differently", lit[s]->name);
        shade(lit[s], &two, away, true, got);
        cr_assert(memcmp(got, ambient_only, sizeof got) == 0, "%s: a front-facing triangle was turned", lit[s]->name);
    }
}

/* The block forms turn exactly the lanes the one-fragment forms turn, bit for bit, on random
 * normals (zero, huge and NaN ones among them) and both facings. */
Test(two_sided, block_and_one_fragment_forms_agree)
{
    const sr_shader *lit[] = {&sr_shader_lambert, &sr_shader_vertex_color_lit, &sr_shader_blinn_phong,
                              &sr_shader_textured, &sr_shader_wireframe};
    sr_shader_uniforms u = uniforms_from_a_camera(true);
    rng_seed(15);
    SR_BLOCK_ALIGNED float varyings[SR_MAX_VARYINGS + 3][SR_BLOCK_LANES];
    for (size_t s = 0; s < sizeof lit / sizeof lit[0]; s++) {
        const int count = lit[s]->program.varying_count;
        for (int round = 0; round < 1000; round++) {
            for (int i = 0; i < count + 3; i++)
                for (int k = 0; k < SR_BLOCK_LANES; k++) {
                    float value = rng_range(-1, 1);
                    double pick = rng_uniform();
                    if (i < 3 && pick < 0.02)
                        value = pick < 0.01 ? 0.0f : pick < 0.015 ? 1e30f : NAN;
                    varyings[i][k] = i >= count ? fabsf(value) * 0.3f + 0.05f : value;
                }
            sr_fragment_block_in in = {.varyings = (const float(*)[SR_BLOCK_LANES])varyings,
                                       .barycentric = (const float(*)[SR_BLOCK_LANES])varyings + count,
                                       .mask = 0xffu,
                                       .front_facing = round % 2};
            sr_fragment_block_out out;
            for (int k = 0; k < SR_BLOCK_LANES; k++) {
                in.x[k] = 0.5f + k % 4, in.y[k] = 0.5f + k / 4, in.depth[k] = 0.5f;
                out.color[0][k] = out.color[1][k] = out.color[2][k] = 0, out.color[3][k] = 1, out.depth[k] = 0.5f;
            }
            uint32_t keep = lit[s]->program.fragment_block(&in, &u, &out);
            for (int k = 0; k < SR_BLOCK_LANES; k++) {
                float lane[SR_MAX_VARYINGS], barycentric[3];
                for (int i = 0; i < count; i++)
                    lane[i] = varyings[i][k];
                for (int i = 0; i < 3; i++)
                    barycentric[i] = varyings[count + i][k];
                sr_fragment_in one = {.x = in.x[k],
                                      .y = in.y[k],
                                      .depth = 0.5f,
                                      .varyings = lane,
                                      .barycentric = barycentric,
                                      .front_facing = in.front_facing};
                sr_fragment_out expected = {.color = {0, 0, 0, 1}, .depth = 0.5f};
                bool kept = lit[s]->program.fragment(&one, &u, &expected);
                cr_assert_eq(kept, (keep >> k & 1u) != 0, "%s lane %d", lit[s]->name, k);
                for (int c = 0; kept && c < 4; c++)
                    cr_assert(memcmp(&out.color[c][k], &expected.color[c], sizeof(float)) == 0,
                              "%s round %d lane %d channel %d: %.9g in the block form, %.9g alone", lit[s]->name, round,
                              k, c, (double)out.color[c][k], (double)expected.color[c]);
            }
        }
    }
}

/* vertex_color_lit: RGB = vertex colour * albedo * (ambient + diffuse max(0, N.L)), alpha =
 * vertex alpha * opacity, computed here in double. */
Test(vertex_color_lit, follows_its_formula)
{
    sr_shader_uniforms u = sr_shader_uniforms_default();
    u.albedo = sr_vec3_make(0.9f, 0.5f, 1.0f);
    u.opacity = 0.75f;
    const sr_vec3 normals[] = {{0, 0, 1}, {0.3f, 0.5f, 1}, {-1, 0, 0}, {0, 2, 0}, {0.3f, -0.5f, -1}};
    const double l[3] = {0.3 / sqrt(1.34), 0.5 / sqrt(1.34), 1.0 / sqrt(1.34)};
    for (size_t i = 0; i < sizeof normals / sizeof normals[0]; i++) {
        float color[4];
        shade(&sr_shader_vertex_color_lit, &u, normals[i], true, color);
        double n[3];
        to_double(sr_vec3_normalize(normals[i]), n);
        double k = 0.2 + 0.8 * fmax(0, dot3(n, l));
        const double vertex[4] = {0.5, 1.0, 0.25, 1.0}, albedo[3] = {0.9, 0.5, 1.0};
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(color[c] - vertex[c] * albedo[c] * k) < 2e-6, "normal %zu channel %d: %g vs %g", i, c,
                      (double)color[c], vertex[c] * albedo[c] * k);
        cr_assert(fabs(color[3] - vertex[3] * 0.75) < 1e-7);
    }
}

/* ---- sr_scene_set_model_view and sr_scene_load ---------------------------------------------- */

/* A triangle strip square in z = 0, with vertex colours or not, as a mesh. */
static sr_mesh *square(bool colours, float offset)
{
    sr_mesh *mesh = NULL;
    cr_assert_eq(
        sr_mesh_create(&(sr_mesh_desc){.vertex_count = 4, .triangle_count = 2, .colors = colours}, &mesh, NULL), SR_OK);
    const sr_vec3 p[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    for (int i = 0; i < 4; i++) {
        mesh->positions[i] = sr_vec3_add(p[i], sr_vec3_make(offset, 0, 0));
        if (colours)
            mesh->colors[i] = (sr_vec4){1, 0, 0, 1};
    }
    const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    memcpy(mesh->indices, indices, sizeof indices);
    return mesh;
}

/* The model view frames every drawn instance (hidden ones do not count), sets the headlight,
 * and gives vertex colours a lit material only where nothing else decides the colours. */
Test(model_view, camera_light_and_vertex_colour_materials)
{
    sr_scene *scene = NULL;
    cr_assert_eq(sr_scene_create(NULL, &scene, NULL), SR_OK);
    sr_mesh_id plain, coloured, far_away;
    cr_assert_eq(sr_scene_add_mesh(scene, square(false, 0), "plain", &plain, NULL), SR_OK);
    cr_assert_eq(sr_scene_add_mesh(scene, square(true, 3), "coloured", &coloured, NULL), SR_OK);
    cr_assert_eq(sr_scene_add_mesh(scene, square(false, 100), "far", &far_away, NULL), SR_OK);
    sr_material_id red = {0};
    cr_assert_eq(
        sr_scene_add_material(scene, &(sr_material_desc){.name = "red", .base_color = {1, 0, 0, 1}}, &red, NULL),
        SR_OK);
    sr_node_id nodes[4];
    cr_assert_eq(sr_scene_add_node(scene, &(sr_node_desc){.name = "plain", .mesh = plain}, &nodes[0], NULL), SR_OK);
    cr_assert_eq(sr_scene_add_node(scene, &(sr_node_desc){.name = "coloured", .mesh = coloured}, &nodes[1], NULL),
                 SR_OK);
    cr_assert_eq(
        sr_scene_add_node(scene, &(sr_node_desc){.name = "own", .mesh = coloured, .material = red}, &nodes[2], NULL),
        SR_OK);
    cr_assert_eq(
        sr_scene_add_node(scene, &(sr_node_desc){.name = "hidden", .mesh = far_away, .hidden = true}, &nodes[3], NULL),
        SR_OK);
    sr_error err = {0};
    cr_assert_eq(sr_scene_set_model_view(scene, &(sr_model_view_desc){.up = {0, 0, 1}, .aspect = 2}, &err), SR_OK, "%s",
                 err.message);
    sr_aabb bounds = sr_scene_bounds(scene);
    // World boxes are rounded outwards by a few ulps (scene_update.c).
    cr_assert(fabsf(bounds.min.x + 1) < 1e-5f && fabsf(bounds.max.x - 4) < 1e-5f && fabsf(bounds.min.y + 1) < 1e-5f &&
                  fabsf(bounds.max.y - 1) < 1e-5f,
              "hidden excluded: (%g, %g, %g) - (%g, %g, %g)", (double)bounds.min.x, (double)bounds.min.y,
              (double)bounds.min.z, (double)bounds.max.x, (double)bounds.max.y, (double)bounds.max.z);
    sr_camera camera = sr_scene_camera(scene), fitted = sr_camera_fit_box(bounds, (sr_vec3){0, 0, 1}, 2);
    cr_assert(memcmp(&camera, &fitted, sizeof camera) == 0);
    sr_light light = sr_scene_light(scene), head = sr_light_headlight();
    cr_assert(light.space == SR_LIGHT_CAMERA && light.two_sided && memcmp(&light.direction, &head.direction, 12) == 0);
    sr_node_info info[3];
    for (int i = 0; i < 3; i++)
        sr_scene_node(scene, nodes[i], &info[i], NULL);
    cr_assert_eq(info[0].material.id, 0u, "no colours: the default material");
    cr_assert_eq(sr_scene_material(scene, info[1].material).shader, &sr_shader_vertex_color_lit, "colours: lit");
    cr_assert_eq(info[2].material.id, red.id, "the node's own material stays");
    cr_assert_neq(sr_scene_set_model_view(NULL, NULL, &err), SR_OK);
    cr_assert_neq(sr_scene_set_model_view(scene, &(sr_model_view_desc){.up = {NAN, 0, 1}}, &err), SR_OK);
    cr_assert(strstr(err.message, "up"), "%s", err.message);
    sr_scene_destroy(scene);
}

/* sr_scene_load opens an OBJ in the model view unless asked for the benchmark scene; an OBJ's
 * materials keep deciding its colours even when it has vertex colours. A scene file's light can
 * be a two-sided headlight. */
Test(model_view, scene_load_chooses_the_view)
{
    char dir[] = "/tmp/softrast_view_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[600], with_material[600], mtl[600], json[600];
    snprintf(path, sizeof path, "%s/colours.obj", dir);
    snprintf(with_material, sizeof with_material, "%s/painted.obj", dir);
    snprintf(mtl, sizeof mtl, "%s/paint.mtl", dir);
    snprintf(json, sizeof json, "%s/light.json", dir);
    FILE *f = fopen(path, "w");
    fputs("v 0 0 0 1 0 0\nv 4 0 0 0 1 0\nv 0 2 0 0 0 1\nf 1 2 3\n", f);
    fclose(f);
    f = fopen(with_material, "w");
    fputs("mtllib paint.mtl\nv 0 0 0 1 0 0\nv 4 0 0 0 1 0\nv 0 2 0 0 0 1\nusemtl blue\nf 1 2 3\n", f);
    fclose(f);
    f = fopen(mtl, "w");
    fputs("newmtl blue\nKd 0 0 1\n", f);
    fclose(f);
    f = fopen(json, "w");
    fputs("{\"light\": {\"direction\": [0, 0, 1], \"space\": \"camera\", \"two_sided\": true}}\n", f);
    fclose(f);
    sr_scene *scene = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = path}, &scene, &err), SR_OK, "%s", err.message);
    sr_node_info info;
    sr_scene_node(scene, sr_scene_find_node(scene, "colours"), &info, NULL);
    cr_assert_eq(sr_scene_material(scene, info.material).shader, &sr_shader_vertex_color_lit);
    sr_camera camera = sr_scene_camera(scene), fitted = sr_camera_fit_box(sr_scene_bounds(scene), (sr_vec3){0}, 0);
    cr_assert(memcmp(&camera, &fitted, sizeof camera) == 0);
    cr_assert_eq(sr_scene_light(scene).space, SR_LIGHT_CAMERA);
    sr_scene_destroy(scene);
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = path, .mesh_view = SR_MESH_VIEW_BENCH}, &scene, &err),
                 SR_OK);
    camera = sr_scene_camera(scene);
    sr_camera bench = sr_bench_camera();
    cr_assert(memcmp(&camera, &bench, sizeof camera) == 0 && sr_scene_light(scene).space == SR_LIGHT_WORLD);
    sr_scene_node(scene, sr_scene_find_node(scene, "colours"), &info, NULL);
    cr_assert_eq(info.material.id, 0u, "the benchmark scene draws lambert");
    sr_scene_destroy(scene);
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = with_material}, &scene, &err), SR_OK, "%s", err.message);
    sr_scene_node(scene, sr_scene_find_node(scene, "painted"), &info, NULL);
    cr_assert_eq(info.material.id, 0u, "the file's material decides");
    sr_scene_destroy(scene);
    cr_assert_eq(sr_scene_load(&(sr_scene_load_desc){.path = json}, &scene, &err), SR_OK, "%s", err.message);
    sr_light light = sr_scene_light(scene);
    cr_assert(light.space == SR_LIGHT_CAMERA && light.two_sided);
    sr_scene_destroy(scene);
    f = fopen(json, "w");
    fputs("{\"light\": {\"space\": \"eye\"}}\n", f);
    fclose(f);
    cr_assert_neq(sr_scene_load(&(sr_scene_load_desc){.path = json}, &scene, &err), SR_OK);
    cr_assert(strstr(err.message, "light.space") && strstr(err.message, "eye"), "%s", err.message);
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_assert_eq(system(command), 0);
}
