/* test_camera.c — cameras and orbits (src/scene/camera.c): rays through window points against
 * the projection in double, validation and the --camera syntax, and the viewer's orbit maths
 * (rotation, pan, zoom about a point, framing) against the geometry they promise. */
#include <criterion/criterion.h>

#include "test_random.h"
#include <softrast/scene.h>

#include <math.h>
#include <string.h>


/* ---- cameras ---- */

/* Projects a world point with the camera's matrices in double to window coordinates. */
static void project_double(const sr_camera *camera, int width, int height, const double p[3], double window[3])
{
    sr_mat4 view, projection;
    sr_camera_matrices(camera, width, height, &view, &projection);
    double clip[4];
    for (int row = 0; row < 4; row++) {
        double v[4];
        for (int r = 0; r < 4; r++)
            v[r] = (double)view.m[r] * p[0] + (double)view.m[4 + r] * p[1] + (double)view.m[8 + r] * p[2] +
                   (double)view.m[12 + r];
        clip[row] = projection.m[row] * v[0] + projection.m[4 + row] * v[1] + projection.m[8 + row] * v[2] +
                    projection.m[12 + row] * v[3];
    }
    window[0] = (clip[0] / clip[3] + 1.0) * 0.5 * width;
    window[1] = (1.0 - clip[1] / clip[3]) * 0.5 * height;
    window[2] = clip[2] / clip[3];
}

Test(camera, ray_through_a_window_point_projects_back_onto_it)
{
    rng_seed(1);
    for (int trial = 0; trial < 200; trial++) {
        sr_camera camera = {
            .eye = {rng_range(-5, 5), rng_range(-5, 5), rng_range(-5, 5)},
            .target = {rng_range(-1, 1), rng_range(-1, 1), rng_range(-1, 1)},
            .projection = trial % 3 == 0 ? SR_PROJECTION_ORTHOGRAPHIC : SR_PROJECTION_PERSPECTIVE,
            .fov_y_degrees = rng_range(20, 100),
            .height = rng_range(1, 6),
            .near_z = rng_range(0.05, 0.5),
            .far_z = rng_range(20, 200),
        };
        int width = 64 + trial % 300, height = 48 + (trial * 7) % 200;
        float x = rng_range(0, width), y = rng_range(0, height);
        sr_ray ray = sr_camera_ray(&camera, width, height, x, y);
        cr_assert(fabsf(sr_vec3_length(ray.direction) - 1.0f) < 1e-6f, "direction is not unit length");
        const float fractions[3] = {0.0f, 0.37f, 1.0f};
        for (int k = 0; k < 3; k++) {
            double t = (double)ray.tmin + fractions[k] * ((double)ray.tmax - ray.tmin);
            double p[3] = {ray.origin.x + t * ray.direction.x, ray.origin.y + t * ray.direction.y,
                           ray.origin.z + t * ray.direction.z};
            double window[3];
            project_double(&camera, width, height, p, window);
            cr_assert(fabs(window[0] - x) < 2e-3 && fabs(window[1] - y) < 2e-3,
                      "trial %d: (%g, %g) projects to (%g, %g)", trial, (double)x, (double)y, window[0], window[1]);
            double expected_depth = fractions[k];
            if (camera.projection == SR_PROJECTION_PERSPECTIVE && k == 1)
                continue; // window depth is not linear in t under perspective
            cr_assert(fabs(window[2] - expected_depth) < 1e-4, "trial %d: depth %g at fraction %g", trial, window[2],
                      (double)fractions[k]);
        }
    }
}

Test(camera, invalid_cameras_and_rays)
{
    sr_error err = {0};
    sr_camera same = {.eye = {1, 2, 3}, .target = {1, 2, 3}};
    sr_camera resolved = sr_camera_resolve(&same);
    cr_assert_neq(sr_camera_check(&resolved, &err), SR_OK);
    cr_assert(strstr(err.message, "same point"), "%s", err.message);
    sr_camera parallel = sr_camera_resolve(&(sr_camera){.eye = {0, 5, 0}, .target = {0, 0, 0}});
    cr_assert_neq(sr_camera_check(&parallel, &err), SR_OK);
    cr_assert(strstr(err.message, "parallel"), "%s", err.message);
    sr_camera far = sr_camera_resolve(&(sr_camera){.eye = {0, 0, 5}, .near_z = 10, .far_z = 5});
    cr_assert_neq(sr_camera_check(&far, &err), SR_OK);
    cr_assert(strstr(err.message, "far"), "%s", err.message);
    sr_ray ray = sr_camera_ray(&same, 10, 10, 5, 5);
    cr_assert(isnan(ray.tmin) && isnan(ray.tmax), "an invalid camera gives a poisoned ray");
}

Test(camera, parse_accepts_the_documented_syntax_and_names_errors)
{
    sr_camera camera;
    sr_error err = {0};
    sr_camera base = sr_bench_camera();
    cr_assert_eq(sr_camera_parse("eye=1,2,3:target=0,0.5,0:up=0,0,1:fov=60", &base, &camera, &err), SR_OK, "%s",
                 err.message);
    cr_assert(camera.eye.x == 1 && camera.eye.y == 2 && camera.eye.z == 3);
    cr_assert(camera.target.y == 0.5f && camera.up.z == 1 && camera.fov_y_degrees == 60);
    cr_assert_eq(camera.near_z, base.near_z, "fields not named keep the base's values");
    cr_assert_eq(sr_camera_parse("eye=0,0,5:target=0,0,0:ortho=4", &base, &camera, &err), SR_OK, "%s", err.message);
    cr_assert(camera.projection == SR_PROJECTION_ORTHOGRAPHIC && camera.height == 4);
    const struct {
        const char *text, *fragment;
    } bad[] = {
        {"eye=1,2", "three finite numbers"},
        {"eye=1,2,3,4", "three finite numbers"},
        {"eye=1,2,x", "three finite numbers"},
        {"look=1,2,3", "unknown key 'look'"},
        {"eye 1,2,3", "KEY=VALUE"},
        {"fov=0", "must be positive"},
        {"fov=200", "fov"},
        {"eye=0,0,0:target=0,0,0", "same point"},
        {"eye=0,0,3:", "ends with ':'"},
        {"", "empty"},
        {"eye=nan,0,0", "three finite numbers"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sr_camera untouched = {.eye = {7, 7, 7}};
        sr_camera out = untouched;
        cr_assert_neq(sr_camera_parse(bad[i].text, &base, &out, &err), SR_OK, "accepted '%s'", bad[i].text);
        cr_assert(strstr(err.message, bad[i].fragment), "'%s': message '%s' lacks '%s'", bad[i].text, err.message,
                  bad[i].fragment);
        cr_assert(memcmp(&out, &untouched, sizeof out) == 0, "'%s' changed the camera", bad[i].text);
    }
}

/* ---- orbits ---- */

Test(orbit, round_trips_through_a_camera)
{
    rng_seed(20);
    for (int trial = 0; trial < 200; trial++) {
        sr_orbit orbit = {.target = {rng_range(-5, 5), rng_range(-5, 5), rng_range(-5, 5)},
                          .distance = rng_range(0.5, 50),
                          .yaw_degrees = rng_range(0, 359.9),
                          .pitch_degrees = rng_range(-85, 85)};
        sr_camera camera = sr_orbit_camera(&orbit, NULL);
        // The eye is at the distance, at the elevation and azimuth promised.
        sr_vec3 offset = sr_vec3_sub(camera.eye, camera.target);
        cr_assert(fabsf(sr_vec3_length(offset) - orbit.distance) < 1e-4f * orbit.distance);
        double pitch = asin(offset.y / sr_vec3_length(offset)) * 180 / M_PI;
        cr_assert(fabs(pitch - orbit.pitch_degrees) < 1e-2, "pitch %g vs %g", pitch, (double)orbit.pitch_degrees);
        sr_orbit back = sr_orbit_from_camera(&camera);
        cr_assert(fabsf(back.distance - orbit.distance) < 1e-4f * orbit.distance);
        float yaw_error = fabsf(back.yaw_degrees - orbit.yaw_degrees);
        cr_assert(yaw_error < 1e-2f || fabsf(yaw_error - 360) < 1e-2f, "yaw %g vs %g", (double)back.yaw_degrees,
                  (double)orbit.yaw_degrees);
        cr_assert(fabsf(back.pitch_degrees - orbit.pitch_degrees) < 1e-2f);
    }
    // Yaw 0, pitch 0: the eye on the target's +Z side, like the benchmark scene's camera.
    sr_camera bench = sr_bench_camera();
    sr_orbit o = sr_orbit_from_camera(&bench);
    cr_assert(fabsf(o.yaw_degrees) < 1e-4f && fabsf(o.pitch_degrees) < 1e-4f && fabsf(o.distance - 3) < 1e-6f);
    sr_orbit_rotate(&o, 370.0f, 200.0f);
    cr_assert(fabsf(o.yaw_degrees - 10.0f) < 1e-3f, "yaw wraps: %g", (double)o.yaw_degrees);
    cr_assert_eq(o.pitch_degrees, SR_ORBIT_MAX_PITCH, "pitch clamps");
}

/* Window position of a world point for a camera, in double. */
static void window_point(const sr_camera *camera, int width, int height, sr_vec3 p, double *x, double *y)
{
    double w[3];
    double q[3] = {p.x, p.y, p.z};
    project_double(camera, width, height, q, w);
    *x = w[0];
    *y = w[1];
}

Test(orbit, pan_moves_the_target_depth_plane_with_the_cursor_and_zoom_keeps_its_point)
{
    sr_camera base = {.fov_y_degrees = 50};
    const int width = 400, height = 300;
    for (int trial = 0; trial < 50; trial++) {
        sr_orbit orbit = {.target = {rng_range(-2, 2), rng_range(-2, 2), rng_range(-2, 2)},
                          .distance = rng_range(2, 20),
                          .yaw_degrees = rng_range(0, 360),
                          .pitch_degrees = rng_range(-60, 60)};
        sr_camera before = sr_orbit_camera(&orbit, &base);
        double x0, y0;
        window_point(&before, width, height, orbit.target, &x0, &y0);
        sr_vec3 anchor = orbit.target;
        float dx = rng_range(-50, 50), dy = rng_range(-50, 50);
        sr_orbit_pan(&orbit, &base, width, height, dx, dy);
        sr_camera after = sr_orbit_camera(&orbit, &base);
        double x1, y1;
        window_point(&after, width, height, anchor, &x1, &y1);
        // The old target (a point at the target's depth) followed the cursor.
        cr_assert(fabs(x1 - (x0 + dx)) < 0.05 && fabs(y1 - (y0 + dy)) < 0.05, "moved by (%g, %g), cursor (%g, %g)",
                  x1 - x0, y1 - y0, (double)dx, (double)dy);
        // Zoom about a point off-centre: that point stays at its pixel.
        sr_vec3 point = sr_vec3_add(orbit.target, sr_vec3_make(rng_range(-1, 1), rng_range(-1, 1), rng_range(-1, 1)));
        window_point(&after, width, height, point, &x0, &y0);
        float old_distance = orbit.distance;
        sr_orbit_zoom(&orbit, 0.7f, &point);
        cr_assert(fabsf(orbit.distance - 0.7f * old_distance) < 1e-4f * old_distance);
        sr_camera zoomed = sr_orbit_camera(&orbit, &base);
        window_point(&zoomed, width, height, point, &x1, &y1);
        cr_assert(fabs(x1 - x0) < 0.05 && fabs(y1 - y0) < 0.05, "the point moved from (%g, %g) to (%g, %g)", x0, y0, x1,
                  y1);
    }
}

Test(orbit, frame_fits_the_box_in_view)
{
    sr_camera base = {.fov_y_degrees = 40};
    sr_aabb box = {{-3, 1, -2}, {5, 4, 7}};
    for (int k = 0; k < 3; k++) {
        const float aspects[3] = {0.5f, 1.0f, 2.5f};
        sr_orbit orbit = {.distance = 1, .yaw_degrees = 30.0f * (float)k, .pitch_degrees = 20};
        sr_orbit_frame(&orbit, box, &base, aspects[k]);
        sr_camera camera = sr_orbit_camera(&orbit, &base);
        int height = 300, width = (int)(300 * aspects[k]);
        for (int corner = 0; corner < 8; corner++) {
            sr_vec3 p = {corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
                         corner & 4 ? box.max.z : box.min.z};
            double x, y;
            window_point(&camera, width, height, p, &x, &y);
            cr_assert(x >= 0 && x <= width && y >= 0 && y <= height, "aspect %g: corner %d at (%g, %g)",
                      (double)aspects[k], corner, x, y);
        }
        sr_vec3 centre = sr_aabb_centre(box);
        cr_assert(memcmp(&orbit.target, &centre, sizeof centre) == 0);
    }
}
