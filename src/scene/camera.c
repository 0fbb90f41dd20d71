/* src/scene/camera.c — look-at cameras (softrast/scene.h): defaults, validation, matrices, the
 * ray through a window point in the rasteriser's pixel convention, and the --camera syntax of
 * the command-line tools. Knows nothing of scenes, files or SDL. */
#include <softrast/scene.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FOV_DEGREES 45.0f
#define DEFAULT_NEAR 0.1f
#define DEFAULT_FAR 100.0f
#define DEFAULT_ORTHO_HEIGHT 2.0f

static bool vec3_is_zero(sr_vec3 v)
{
    return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f;
}

sr_camera sr_camera_resolve(const sr_camera *camera)
{
    sr_camera c = camera ? *camera : (sr_camera){0};
    if (vec3_is_zero(c.up))
        c.up = sr_vec3_make(0.0f, 1.0f, 0.0f);
    if (c.fov_y_degrees == 0.0f)
        c.fov_y_degrees = DEFAULT_FOV_DEGREES;
    if (c.height == 0.0f)
        c.height = DEFAULT_ORTHO_HEIGHT;
    if (c.near_z == 0.0f)
        c.near_z = DEFAULT_NEAR;
    if (c.far_z == 0.0f)
        c.far_z = DEFAULT_FAR;
    return c;
}

sr_camera sr_bench_camera(void)
{
    return (sr_camera){.eye = {0.0f, 0.0f, 3.0f},
                       .target = {0.0f, 0.0f, 0.0f},
                       .up = {0.0f, 1.0f, 0.0f},
                       .fov_y_degrees = 45.0f,
                       .near_z = 0.1f,
                       .far_z = 100.0f};
}

/* The orthonormal basis of the camera in double: right s, up u, forward f (towards the target).
 * False when eye == target or up is parallel to the view direction. */
static bool camera_basis(const sr_camera *c, double s[3], double u[3], double f[3])
{
    double d[3] = {(double)c->target.x - c->eye.x, (double)c->target.y - c->eye.y, (double)c->target.z - c->eye.z};
    double length = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(length > 0.0) || !isfinite(length))
        return false;
    for (int k = 0; k < 3; k++)
        f[k] = d[k] / length;
    double up[3] = {c->up.x, c->up.y, c->up.z};
    double r[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
    double r_length = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    double up_length = sqrt(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    // Parallel up: the cross product vanishes relative to |up| (1e-6 rad is ~0.06 millidegrees).
    if (!(r_length > 1e-6 * up_length) || !isfinite(r_length))
        return false;
    for (int k = 0; k < 3; k++)
        s[k] = r[k] / r_length;
    u[0] = s[1] * f[2] - s[2] * f[1];
    u[1] = s[2] * f[0] - s[0] * f[2];
    u[2] = s[0] * f[1] - s[1] * f[0];
    return true;
}

sr_light sr_light_headlight(void)
{
    // The benchmark scene's direction, in camera space: for its camera (looking down -Z, up +Y) the
    // two lights are the same.
    return (sr_light){.direction = sr_vec3_normalize(sr_vec3_make(0.3f, 0.5f, 1.0f)),
                      .ambient = 0.2f,
                      .diffuse = 0.8f,
                      .space = SR_LIGHT_CAMERA,
                      .two_sided = true};
}

sr_vec3 sr_light_world_direction(const sr_light *light, const sr_camera *camera)
{
    if (!light)
        return sr_vec3_make(0.0f, 0.0f, 1.0f);
    if (light->space != SR_LIGHT_CAMERA)
        return light->direction;
    sr_camera c = sr_camera_resolve(camera);
    double s[3], u[3], f[3];
    if (!camera_basis(&c, s, u, f))
        return light->direction; // an invalid camera draws nothing anyway
    // Camera space to world: x along s, y along u, z along -f (towards the viewer).
    const sr_vec3 l = light->direction;
    double w[3], length = 0.0;
    for (int k = 0; k < 3; k++) {
        w[k] = s[k] * l.x + u[k] * l.y - f[k] * l.z;
        length += w[k] * w[k];
    }
    length = sqrt(length);
    if (!(length > 0.0))
        return light->direction;
    return sr_vec3_make((float)(w[0] / length), (float)(w[1] / length), (float)(w[2] / length));
}

sr_status sr_camera_check(const sr_camera *camera, sr_error *err)
{
    if (!camera)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera is NULL");
    const sr_camera *c = camera;
    if (!sr_vec3_is_finite(c->eye))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera eye (%g, %g, %g) is not finite", (double)c->eye.x,
                            (double)c->eye.y, (double)c->eye.z);
    if (!sr_vec3_is_finite(c->target))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera target (%g, %g, %g) is not finite",
                            (double)c->target.x, (double)c->target.y, (double)c->target.z);
    if (!sr_vec3_is_finite(c->up))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera up is not finite");
    double s[3], u[3], f[3];
    if (c->eye.x == c->target.x && c->eye.y == c->target.y && c->eye.z == c->target.z)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera eye and target are the same point (%g, %g, %g)",
                            (double)c->eye.x, (double)c->eye.y, (double)c->eye.z);
    if (!camera_basis(c, s, u, f))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "camera up (%g, %g, %g) is zero or parallel to the view direction", (double)c->up.x,
                            (double)c->up.y, (double)c->up.z);
    if ((unsigned)c->projection > SR_PROJECTION_ORTHOGRAPHIC)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera projection %d is not an sr_projection",
                            (int)c->projection);
    if (c->projection == SR_PROJECTION_PERSPECTIVE && !(c->fov_y_degrees > 0.0f && c->fov_y_degrees < 180.0f))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera fov %g degrees is outside (0, 180)",
                            (double)c->fov_y_degrees);
    if (c->projection == SR_PROJECTION_ORTHOGRAPHIC && !(c->height > 0.0f && isfinite(c->height)))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera orthographic height %g must be positive",
                            (double)c->height);
    if (!(c->near_z > 0.0f && isfinite(c->near_z)))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera near %g must be positive", (double)c->near_z);
    if (!(c->far_z > c->near_z && isfinite(c->far_z)))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera far %g must be greater than near %g",
                            (double)c->far_z, (double)c->near_z);
    return SR_OK;
}

void sr_camera_matrices(const sr_camera *camera, int width, int height, sr_mat4 *view, sr_mat4 *projection)
{
    sr_camera c = sr_camera_resolve(camera);
    bool valid = sr_camera_check(&c, NULL) == SR_OK && width > 0 && height > 0;
    float aspect = valid ? (float)width / (float)height : 1.0f;
    if (view)
        *view = valid ? sr_mat4_look_at(c.eye, c.target, c.up) : sr_mat4_identity();
    if (projection) {
        if (!valid) {
            *projection = sr_mat4_identity();
        } else if (c.projection == SR_PROJECTION_ORTHOGRAPHIC) {
            float half_height = 0.5f * c.height, half_width = half_height * aspect;
            *projection = sr_mat4_orthographic(-half_width, half_width, -half_height, half_height, c.near_z, c.far_z);
        } else {
            *projection = sr_mat4_perspective(c.fov_y_degrees * SR_PI / 180.0f, aspect, c.near_z, c.far_z);
        }
    }
}

sr_ray sr_camera_ray(const sr_camera *camera, int width, int height, float x, float y)
{
    sr_camera c = sr_camera_resolve(camera);
    double s[3], u[3], f[3];
    if (sr_camera_check(&c, NULL) != SR_OK || width <= 0 || height <= 0 || !isfinite(x) || !isfinite(y) ||
        !camera_basis(&c, s, u, f))
        return sr_ray_make(sr_vec3_splat(0.0f), sr_vec3_splat(0.0f), NAN, NAN);
    // Window to NDC exactly as the viewport transform inverts it: x_win = (ndc_x + 1) / 2 * W,
    // y_win = (1 - ndc_y) / 2 * H (raster.h, DESIGN.md).
    double ndc_x = (double)x / width * 2.0 - 1.0, ndc_y = 1.0 - (double)y / height * 2.0;
    double aspect = (double)width / height;
    double origin[3] = {c.eye.x, c.eye.y, c.eye.z}, direction[3];
    double tmin, tmax;
    if (c.projection == SR_PROJECTION_ORTHOGRAPHIC) {
        double half_height = 0.5 * c.height, half_width = half_height * aspect;
        for (int k = 0; k < 3; k++) {
            origin[k] += s[k] * ndc_x * half_width + u[k] * ndc_y * half_height;
            direction[k] = f[k];
        }
        tmin = c.near_z;
        tmax = c.far_z;
    } else {
        // The view-space direction (ndc_x tan(fov/2) aspect, ndc_y tan(fov/2), -1) in world
        // space; its component along f is 1, so the near plane is at t = near * |d| / 1.
        double tangent = tan((double)c.fov_y_degrees * M_PI / 360.0);
        double dx = ndc_x * tangent * aspect, dy = ndc_y * tangent, length = 0.0;
        for (int k = 0; k < 3; k++) {
            direction[k] = s[k] * dx + u[k] * dy + f[k];
            length += direction[k] * direction[k];
        }
        length = sqrt(length);
        for (int k = 0; k < 3; k++)
            direction[k] /= length;
        tmin = c.near_z * length;
        tmax = c.far_z * length;
    }
    return sr_ray_make(sr_vec3_make((float)origin[0], (float)origin[1], (float)origin[2]),
                       sr_vec3_make((float)direction[0], (float)direction[1], (float)direction[2]), (float)tmin,
                       (float)tmax);
}

/* ---- the --camera syntax ---- */

/* Parses `count` comma-separated finite numbers filling all of [text, end). */
static bool parse_numbers(const char *text, const char *end, float *values, int count)
{
    const char *p = text;
    for (int i = 0; i < count; i++) {
        char buffer[64];
        const char *stop = p;
        while (stop < end && *stop != ',')
            stop++;
        size_t length = (size_t)(stop - p);
        if (length == 0 || length >= sizeof buffer)
            return false;
        memcpy(buffer, p, length);
        buffer[length] = '\0';
        char *tail = NULL;
        errno = 0;
        float value = strtof(buffer, &tail);
        if (*tail != '\0' || !isfinite(value) || buffer[0] == ' ')
            return false;
        values[i] = value;
        if (i + 1 < count) {
            if (stop >= end)
                return false;
            p = stop + 1;
        } else if (stop != end) {
            return false;
        }
    }
    return true;
}

sr_status sr_camera_parse(const char *text, const sr_camera *base, sr_camera *camera, sr_error *err)
{
    if (!text || !camera)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_camera_parse: %s is NULL", text ? "camera" : "text");
    sr_camera c = base ? *base : (sr_camera){0};
    const char *p = text;
    if (*p == '\0')
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera '': empty (expected eye=X,Y,Z:target=X,Y,Z)");
    while (*p) {
        const char *end = strchr(p, ':');
        if (!end)
            end = p + strlen(p);
        const char *equals = memchr(p, '=', (size_t)(end - p));
        if (!equals)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera '%s': '%.*s' is not KEY=VALUE", text,
                                (int)(end - p), p);
        size_t key_length = (size_t)(equals - p);
        const char *value = equals + 1;
        float numbers[3] = {0.0f, 0.0f, 0.0f};
        const struct {
            const char *key;
            int count;
        } keys[] = {{"eye", 3}, {"target", 3}, {"up", 3}, {"fov", 1}, {"near", 1}, {"far", 1}, {"ortho", 1}};
        int which = -1;
        for (int k = 0; k < (int)(sizeof keys / sizeof keys[0]); k++)
            if (strlen(keys[k].key) == key_length && strncmp(p, keys[k].key, key_length) == 0)
                which = k;
        if (which < 0)
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                                "camera '%s': unknown key '%.*s' (known: eye, target, up, fov, near, far, ortho)", text,
                                (int)key_length, p);
        if (!parse_numbers(value, end, numbers, keys[which].count))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera '%s': %s=%.*s: expected %s", text,
                                keys[which].key, (int)(end - value), value,
                                keys[which].count == 3 ? "three finite numbers X,Y,Z" : "one finite number");
        if (keys[which].count == 1 && !(numbers[0] > 0.0f))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera '%s': %s=%g must be positive", text,
                                keys[which].key, (double)numbers[0]);
        sr_vec3 v = {numbers[0], numbers[1], numbers[2]};
        switch (which) {
        case 0:
            c.eye = v;
            break;
        case 1:
            c.target = v;
            break;
        case 2:
            c.up = v;
            break;
        case 3:
            c.fov_y_degrees = numbers[0];
            c.projection = SR_PROJECTION_PERSPECTIVE;
            break;
        case 4:
            c.near_z = numbers[0];
            break;
        case 5:
            c.far_z = numbers[0];
            break;
        default:
            c.height = numbers[0];
            c.projection = SR_PROJECTION_ORTHOGRAPHIC;
            break;
        }
        p = *end ? end + 1 : end;
        if (*end && *p == '\0')
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera '%s': ends with ':'", text);
    }
    sr_camera resolved = sr_camera_resolve(&c);
    sr_error check = {0};
    if (sr_camera_check(&resolved, &check) != SR_OK)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "camera '%s': %s", text, check.message);
    *camera = c;
    return SR_OK;
}

/* ---- orbits ---- */

static float clamp_pitch(float pitch)
{
    return pitch < -SR_ORBIT_MAX_PITCH ? -SR_ORBIT_MAX_PITCH : pitch > SR_ORBIT_MAX_PITCH ? SR_ORBIT_MAX_PITCH : pitch;
}

static float wrap_degrees(float angle)
{
    float wrapped = fmodf(angle, 360.0f);
    return wrapped < 0.0f ? wrapped + 360.0f : wrapped;
}

/* The orbit's frame: `up` normalised (+Y when zero or not finite), and the directions of yaw 0
 * (`front`, R(+Z)) and yaw 90 (`right`, R(+X)) where R is the shortest rotation taking +Y to up
 * (Rodrigues' formula about k = (+Y x up) / |+Y x up|; half a turn about +X for -Y). Exact for
 * the axes: up +Z gives front -Y and right +X. False for +Y itself, whose frame the callers
 * write out so that Y-up orbits keep their bits. */
static bool orbit_frame(sr_vec3 up, double u[3], double front[3], double right[3])
{
    double x = up.x, y = up.y, z = up.z, length = sqrt(x * x + y * y + z * z);
    if (!(length > 0.0) || !isfinite(length) || (x == 0.0 && z == 0.0 && y > 0.0))
        return false;
    u[0] = x / length, u[1] = y / length, u[2] = z / length;
    double c = u[1], s = sqrt(u[0] * u[0] + u[2] * u[2]);
    if (!(s > 0.0)) { // straight down: half a turn about +X
        front[0] = 0.0, front[1] = 0.0, front[2] = -1.0;
        right[0] = 1.0, right[1] = 0.0, right[2] = 0.0;
        return true;
    }
    double kx = u[2] / s, kz = -u[0] / s; // k = (+Y x up) / s, whose y is 0
    right[0] = c + kx * kx * (1.0 - c), right[1] = kz * s, right[2] = kx * kz * (1.0 - c);
    front[0] = kx * kz * (1.0 - c), front[1] = -kx * s, front[2] = c + kz * kz * (1.0 - c);
    return true;
}

sr_orbit sr_orbit_from_camera(const sr_camera *camera)
{
    sr_camera c = sr_camera_resolve(camera);
    sr_vec3 offset = sr_vec3_sub(c.eye, c.target);
    float distance = sr_vec3_length(offset);
    double u[3], front[3], right[3];
    bool turned = orbit_frame(c.up, u, front, right);
    sr_vec3 up = turned ? sr_vec3_make((float)u[0], (float)u[1], (float)u[2]) : sr_vec3_make(0.0f, 1.0f, 0.0f);
    if (!(distance > 0.0f) || !isfinite(distance))
        return (sr_orbit){c.target, 1.0f, 0.0f, 0.0f, up};
    if (!turned) {
        float pitch = asinf(fmaxf(-1.0f, fminf(1.0f, offset.y / distance))) * 180.0f / SR_PI;
        float yaw = atan2f(offset.x, offset.z) * 180.0f / SR_PI;
        return (sr_orbit){c.target, distance, wrap_degrees(yaw), clamp_pitch(pitch), up};
    }
    double o[3] = {offset.x, offset.y, offset.z};
    double along_up = o[0] * u[0] + o[1] * u[1] + o[2] * u[2];
    double along_front = o[0] * front[0] + o[1] * front[1] + o[2] * front[2];
    double along_right = o[0] * right[0] + o[1] * right[1] + o[2] * right[2];
    double pitch = asin(fmax(-1.0, fmin(1.0, along_up / distance))) * 180.0 / M_PI;
    double yaw = atan2(along_right, along_front) * 180.0 / M_PI;
    return (sr_orbit){c.target, distance, wrap_degrees((float)yaw), clamp_pitch((float)pitch), up};
}

sr_camera sr_orbit_camera(const sr_orbit *orbit, const sr_camera *base)
{
    sr_camera c = base ? *base : (sr_camera){0};
    if (!orbit)
        return c;
    double yaw = (double)orbit->yaw_degrees * M_PI / 180.0,
           pitch = (double)clamp_pitch(orbit->pitch_degrees) * M_PI / 180.0;
    double d = orbit->distance;
    c.target = orbit->target;
    double u[3], front[3], right[3];
    if (!orbit_frame(orbit->up, u, front, right)) {
        c.eye = sr_vec3_make((float)(orbit->target.x + d * cos(pitch) * sin(yaw)),
                             (float)(orbit->target.y + d * sin(pitch)),
                             (float)(orbit->target.z + d * cos(pitch) * cos(yaw)));
        c.up = sr_vec3_make(0.0f, 1.0f, 0.0f);
        return c;
    }
    double along_right = d * cos(pitch) * sin(yaw), along_up = d * sin(pitch), along_front = d * cos(pitch) * cos(yaw);
    const float target[3] = {orbit->target.x, orbit->target.y, orbit->target.z};
    float eye[3];
    for (int k = 0; k < 3; k++)
        eye[k] = (float)(target[k] + along_right * right[k] + along_up * u[k] + along_front * front[k]);
    c.eye = sr_vec3_make(eye[0], eye[1], eye[2]);
    c.up = sr_vec3_make((float)u[0], (float)u[1], (float)u[2]);
    return c;
}

void sr_orbit_rotate(sr_orbit *orbit, float yaw_degrees, float pitch_degrees)
{
    if (!orbit || !isfinite(yaw_degrees) || !isfinite(pitch_degrees))
        return;
    orbit->yaw_degrees = wrap_degrees(orbit->yaw_degrees + yaw_degrees);
    orbit->pitch_degrees = clamp_pitch(orbit->pitch_degrees + pitch_degrees);
}

void sr_orbit_pan(sr_orbit *orbit, const sr_camera *base, int width, int height, float dx, float dy)
{
    if (!orbit || width <= 0 || height <= 0 || !isfinite(dx) || !isfinite(dy))
        return;
    sr_camera c = sr_camera_resolve(base);
    sr_camera view = sr_orbit_camera(orbit, &c);
    double s[3], u[3], f[3];
    if (!camera_basis(&view, s, u, f))
        return;
    // World units per pixel at the target's depth.
    double per_pixel = c.projection == SR_PROJECTION_ORTHOGRAPHIC
                           ? (double)c.height / height
                           : 2.0 * orbit->distance * tan((double)c.fov_y_degrees * M_PI / 360.0) / height;
    // Dragging right moves the scene right: the target moves left; y grows downwards.
    double move[3];
    for (int k = 0; k < 3; k++)
        move[k] = (-s[k] * dx + u[k] * dy) * per_pixel;
    orbit->target = sr_vec3_make((float)(orbit->target.x + move[0]), (float)(orbit->target.y + move[1]),
                                 (float)(orbit->target.z + move[2]));
}

void sr_orbit_zoom(sr_orbit *orbit, float factor, const sr_vec3 *towards)
{
    if (!orbit || !(factor > 0.0f) || !isfinite(factor))
        return;
    float distance = orbit->distance * factor;
    if (!(distance > 1e-6f) || !isfinite(distance))
        return;
    // A homothety about `towards`: target' = p + (target - p) * factor keeps p's pixel.
    if (towards && sr_vec3_is_finite(*towards))
        orbit->target = sr_vec3_add(*towards, sr_vec3_scale(sr_vec3_sub(orbit->target, *towards), factor));
    orbit->distance = distance;
}

void sr_orbit_frame(sr_orbit *orbit, sr_aabb box, const sr_camera *base, float aspect)
{
    if (!orbit || sr_aabb_is_empty(box) || !sr_vec3_is_finite(box.min) || !sr_vec3_is_finite(box.max))
        return;
    sr_camera c = sr_camera_resolve(base);
    float radius = 0.5f * sr_vec3_length(sr_aabb_extent(box));
    if (!(radius > 0.0f))
        radius = 0.5f;
    double half_fov = (double)c.fov_y_degrees * M_PI / 360.0;
    double half_horizontal = atan(tan(half_fov) * (aspect > 0.0f ? aspect : 1.0f));
    double narrowest = half_fov < half_horizontal ? half_fov : half_horizontal;
    orbit->target = sr_aabb_centre(box);
    // The sphere touches the narrower pair of frustum planes, with 5% to spare.
    orbit->distance = (float)(1.05 * radius / sin(narrowest));
}

sr_camera sr_camera_fit_box(sr_aabb box, sr_vec3 up, float aspect)
{
    if (sr_aabb_is_empty(box) || !sr_vec3_is_finite(box.min) || !sr_vec3_is_finite(box.max))
        box = (sr_aabb){{-1.0f, -1.0f, -1.0f}, {1.0f, 1.0f, 1.0f}};
    if (!(aspect > 0.0f) || !isfinite(aspect))
        aspect = 1.0f;
    sr_camera base = sr_camera_resolve(&(sr_camera){.fov_y_degrees = DEFAULT_FOV_DEGREES});
    sr_orbit orbit = {.yaw_degrees = SR_FIT_YAW_DEGREES, .pitch_degrees = SR_FIT_PITCH_DEGREES, .up = up};
    sr_orbit_frame(&orbit, box, &base, aspect);
    double radius = 0.5 * sr_vec3_length(sr_aabb_extent(box)), distance = orbit.distance;
    // The defaults suit boxes of a few units (a normalised mesh); others get planes of their own
    // size, so that nothing of the box is clipped and zooming out has room.
    double far_z = fmax(DEFAULT_FAR, 10.0 * (distance + radius));
    double near_z = fmin(DEFAULT_NEAR, 0.5 * (distance - radius));
    base.near_z = (float)fmax(near_z, far_z * 1e-6);
    base.far_z = (float)far_z;
    return sr_orbit_camera(&orbit, &base);
}
