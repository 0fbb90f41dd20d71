/* tests/record_test_helpers.h — what the recording tests share (test_record.c,
 * test_record_files.c): a temporary folder, debug lists of random items of every kind (wild
 * values included), an exact comparison of two lists, a small scene with meshes, materials, a
 * texture and a node hierarchy, and a snapshot of a scene's state to compare a played-back scene
 * with. Header-only, static functions, test code. */
#ifndef SR_TESTS_RECORD_TEST_HELPERS_H
#define SR_TESTS_RECORD_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <softrast/record.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_rng.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* ---- files ---- */

/// A new empty folder under TMPDIR (or /tmp); remove it with temp_folder_remove.
static inline void temp_folder(char *out, size_t size)
{
    const char *base = getenv("TMPDIR");
    snprintf(out, size, "%s/softrast_record_XXXXXX", base && *base ? base : "/tmp");
    cr_assert_not_null(mkdtemp(out), "cannot make a temporary folder");
}

/// Removes the folder and the files in it (not recursive: the tests make no subfolders).
static inline void temp_folder_remove(const char *folder)
{
    DIR *dir = opendir(folder);
    if (!dir)
        return;
    struct dirent *entry;
    char path[4096];
    while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        unlink(path);
    }
    closedir(dir);
    rmdir(folder);
}

/// The whole file in memory (malloc'd); *size its length.
static inline uint8_t *read_whole(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    cr_assert_not_null(file, "cannot open %s", path);
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *data = malloc(length > 0 ? (size_t)length : 1);
    cr_assert_not_null(data);
    cr_assert_eq(fread(data, 1, (size_t)length, file), (size_t)length);
    fclose(file);
    *size = (size_t)length;
    return data;
}

static inline void write_whole(const char *path, const uint8_t *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    cr_assert_not_null(file, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, size, file), size);
    cr_assert_eq(fclose(file), 0);
}

/* ---- random items ---- */

/// A float that is usually ordinary and sometimes one of the values that break codecs: zeros of
/// both signs, infinities, NaNs with payloads, denormals, huge and tiny numbers.
static inline float wild_float(rng *r, bool wild)
{
    if (wild && rng_next(r) % 8 == 0) {
        static const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                            0x7fc12345u, 0xffc00001u, 0x00000001u, 0x807fffffu, 0x7f7fffffu,
                                            0x00800000u, 0x3f800001u, 0xbf7fffffu};
        uint32_t bits = specials[rng_next(r) % (sizeof specials / sizeof *specials)];
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    return rng_range(r, -10.0f, 10.0f);
}

static inline sr_vec3 wild_vec3(rng *r, bool wild)
{
    sr_vec3 v;
    v.x = wild_float(r, wild);
    v.y = wild_float(r, wild);
    v.z = wild_float(r, wild);
    return v;
}

/// A rotation matrix as an engine makes it: a random unit quaternion turned into a basis in
/// float, by Bullet's formula (btMatrix3x3::setRotation), plus a translation.
static inline sr_mat4 engine_rotation(rng *r, sr_vec3 translation)
{
    float q[4];
    float n = 0.0f;
    do {
        for (int k = 0; k < 4; k++)
            q[k] = rng_range(r, -1.0f, 1.0f);
        n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    } while (n < 0.01f || n > 1.0f);
    float s = 2.0f / n;
    float xs = q[0] * s, ys = q[1] * s, zs = q[2] * s;
    float wx = q[3] * xs, wy = q[3] * ys, wz = q[3] * zs;
    float xx = q[0] * xs, xy = q[0] * ys, xz = q[0] * zs;
    float yy = q[1] * ys, yz = q[1] * zs, zz = q[2] * zs;
    sr_mat4 m = sr_mat4_identity();
    // Rows of Bullet's basis; sr_mat4 is column-major: entry (row i, column j) at m[4 j + i].
    float rows[3][3] = {{1.0f - (yy + zz), xy - wz, xz + wy},
                        {xy + wz, 1.0f - (xx + zz), yz - wx},
                        {xz - wy, yz + wx, 1.0f - (xx + yy)}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m.m[4 * j + i] = rows[i][j];
    m.m[12] = translation.x;
    m.m[13] = translation.y;
    m.m[14] = translation.z;
    return m;
}

static inline sr_debug_style random_style(rng *r)
{
    static const uint32_t colors[] = {SR_DEBUG_RED, SR_DEBUG_GREEN, SR_DEBUG_BLUE, SR_DEBUG_YELLOW, 0x80ff00ffu, 0u};
    uint32_t color = rng_next(r) % 4 == 0 ? rng_next(r) : colors[rng_next(r) % 6];
    return sr_debug_style_make(color, (int)(rng_next(r) % 6) - 1, rng_next(r) % 3 == 0);
}

/// Adds `count` random items of every kind to `list` (through the public functions, so the list
/// keeps what it keeps); `wild` mixes in the values of wild_float.
/* A collide shape of a random type (sr_debug_shape), at a random pose; a hull of a few random
 * points, freed right after the call (the list keeps its wire). Shapes the debug list refuses
 * (wild sizes) are refused alike in the recording and the list compared with it. */
static inline void add_random_shape(sr_debug_list *list, rng *r, sr_vec3 a, sr_vec3 b, sr_vec3 c, float radius,
                                    sr_debug_style style)
{
    sr_shape shape;
    sr_hull *hull = NULL;
    float h = rng_range(r, 0.0f, 1.5f);
    switch (rng_next(r) % SR_SHAPE_TYPE_COUNT) {
    case SR_SHAPE_POINT:
        shape = sr_shape_point();
        break;
    case SR_SHAPE_SEGMENT:
        shape = sr_shape_segment(sr_dvec3_from_vec3(a), sr_dvec3_from_vec3(b));
        break;
    case SR_SHAPE_TRIANGLE:
        shape = sr_shape_triangle(sr_dvec3_from_vec3(a), sr_dvec3_from_vec3(b), sr_dvec3_from_vec3(c));
        break;
    case SR_SHAPE_SPHERE:
        shape = sr_shape_sphere(radius);
        break;
    case SR_SHAPE_BOX:
        shape = sr_shape_box(sr_dvec3_make(fabsf(a.x), fabsf(a.y), fabsf(a.z)));
        break;
    case SR_SHAPE_CAPSULE:
        shape = sr_shape_capsule(radius, h);
        break;
    case SR_SHAPE_CYLINDER:
        shape = sr_shape_cylinder(radius, h);
        break;
    case SR_SHAPE_CONE:
        shape = sr_shape_cone(radius, h);
        break;
    default: {
        sr_dvec3 points[8];
        size_t n = 1 + rng_next(r) % 8;
        for (size_t k = 0; k < n; k++)
            points[k] = sr_dvec3_make(rng_range(r, -1.0f, 1.0f), rng_range(r, -1.0f, 1.0f), rng_range(r, -1.0f, 1.0f));
        if (sr_hull_create(points, n, &hull, NULL) != SR_OK)
            return;
        shape = sr_shape_hull(hull);
        break;
    }
    }
    if (rng_next(r) % 3 == 0)
        shape.rounding = rng_range(r, 0.0f, 0.3f);
    sr_quat q = sr_quat_normalize(sr_quat_make(rng_range(r, -1.0f, 1.0f), rng_range(r, -1.0f, 1.0f),
                                               rng_range(r, -1.0f, 1.0f), rng_range(r, 0.1f, 1.0f)));
    shape.pose.position = sr_dvec3_from_vec3(c);
    shape.pose.rotation = (sr_dquat){q.x, q.y, q.z, q.w};
    sr_debug_shape(list, &shape, style);
    sr_hull_destroy(hull);
}

static inline void add_random_items(sr_debug_list *list, rng *r, size_t count, bool wild)
{
    sr_debug_style style = random_style(r);
    sr_vec3 previous = wild_vec3(r, wild);
    for (size_t i = 0; i < count; i++) {
        if (rng_next(r) % 4 == 0)
            style = random_style(r);
        uint32_t kind = rng_next(r) % (SR_DEBUG_ITEM_KIND_COUNT + 3);
        sr_vec3 a = wild_vec3(r, wild), b = wild_vec3(r, wild), c = wild_vec3(r, wild);
        float radius = rng_next(r) % 16 == 0 ? wild_float(r, wild) : rng_range(r, 0.0f, 2.0f);
        switch (kind) {
        case 0: { // a strip of lines, then a line that starts where it ended but in y or z
            for (int k = 0; k < 5; k++) {
                sr_vec3 next = wild_vec3(r, wild);
                sr_debug_line(list, previous, next, style);
                previous = next;
            }
            sr_vec3 beside = previous; // agrees with the strip's end in x: no continuation
            float *moved = rng_next(r) % 2 ? &beside.y : &beside.z;
            *moved = *moved == 1.0f ? 2.0f : 1.0f;
            sr_debug_line(list, beside, a, style);
            previous = a;
            break;
        }
        case 1:
            sr_debug_line_gradient(list, a, b, style, rng_next(r));
            break;
        case 2:
            sr_debug_arrow(list, rng_next(r) % 2 ? previous : a, b, style);
            previous = b;
            break;
        case 3:
            sr_debug_point(list, a, rng_next(r) % 2 ? 8.0f : wild_float(r, wild), style);
            break;
        case 4:
            sr_debug_dot(list, a, rng_next(r) % 2 ? 6.0f : wild_float(r, wild), style);
            break;
        case 5: {
            sr_aabb box = {sr_vec3_make(-fabsf(a.x), -fabsf(a.y), -fabsf(a.z)),
                           sr_vec3_make(fabsf(a.x), fabsf(a.y), fabsf(a.z))};
            if (rng_next(r) % 3 == 0)
                box = (sr_aabb){sr_vec3_make(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)),
                                sr_vec3_make(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z))};
            sr_mat4 m;
            switch (rng_next(r) % 5) {
            case 0:
                m = sr_mat4_identity();
                break;
            case 1:
                m = sr_mat4_translation(c);
                break;
            case 2:
            case 3:
                m = engine_rotation(r, c);
                break;
            default:
                for (int k = 0; k < 16; k++)
                    m.m[k] = wild_float(r, wild); // any affine matrix, even its last row
                break;
            }
            sr_debug_box(list, box, m, style);
            break;
        }
        case 6:
            sr_debug_sphere(list, a, radius, style);
            break;
        case 7: {
            sr_quat q = {wild_float(r, wild), wild_float(r, wild), wild_float(r, wild), wild_float(r, wild)};
            sr_debug_sphere_oriented(list, a, q, radius, style);
            break;
        }
        case 8:
            sr_debug_capsule(list, a, b, radius, style);
            break;
        case 9:
            sr_debug_cylinder(list, a, b, radius, style);
            break;
        case 10:
            sr_debug_cone(list, a, b, radius, style);
            break;
        case 11:
            if (rng_next(r) % 2)
                sr_debug_circle(list, a, sr_vec3_make(0, 0, 1), radius, style);
            else
                sr_debug_circle_filled(list, a, b, radius, rng_next(r), style);
            break;
        case 12: {
            sr_camera camera = sr_camera_look_at(a, sr_vec3_add(a, sr_vec3_make(0.3f, 0.2f, -1.0f)));
            sr_debug_camera_frustum(list, &camera, 64, 48, style);
            break;
        }
        case 13:
            sr_debug_axes(list, rng_next(r) % 2 ? engine_rotation(r, a) : sr_mat4_translation(a), radius, style);
            break;
        case 14:
            sr_debug_grid(list, a, fabsf(radius) + 0.5f, 1 + (int)(rng_next(r) % 12), style);
            break;
        case 15:
            if (rng_next(r) % 2)
                sr_debug_triangle(list, a, b, c, style);
            else
                sr_debug_triangle_filled(list, a, b, c, rng_next(r), style);
            break;
        case 16: {
            sr_vec3 points[40];
            size_t n = 2 + rng_next(r) % 38;
            for (size_t k = 0; k < n; k++)
                points[k] = wild_vec3(r, wild);
            if (rng_next(r) % 2)
                sr_debug_polyline(list, points, n, rng_next(r) % 2, style);
            else
                sr_debug_polygon_filled(list, points, n, rng_next(r), style);
            break;
        }
        case 17:
        case 18: {
            char text[64];
            size_t n = rng_next(r) % 60;
            for (size_t k = 0; k < n; k++)
                text[k] = (char)(1 + rng_next(r) % 255); // any byte but NUL, UTF-8 or not
            text[n] = '\0';
            if (kind == 17)
                sr_debug_text(list, a, text, style);
            else
                sr_debug_text_2d(list, a.x * 30.0f, a.y * 30.0f, text, style);
            break;
        }
        case 19:
            add_random_shape(list, r, a, b, c, radius, style);
            break;
        default:
            sr_debug_rect_2d(list, a.x * 30.0f, a.y * 30.0f, b.x * 10.0f, b.y * 10.0f, rng_next(r) % 2, style);
            break;
        }
    }
}

/// Asserts that `actual` holds exactly `expected`'s items, bit for bit, with their points and text.
static inline void assert_same_list(const sr_debug_list *expected, const sr_debug_list *actual, const char *where)
{
    size_t n = 0, m = 0;
    const sr_debug_item *a = sr_debug_list_items(expected, &n);
    const sr_debug_item *b = sr_debug_list_items(actual, &m);
    cr_assert_eq(m, n, "%s: %zu items read back, %zu recorded", where, m, n);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(memcmp(&a[i], &b[i], sizeof a[i]), 0, "%s: item %zu (kind %d) differs", where, i, a[i].kind);
        if (a[i].kind == SR_DEBUG_ITEM_POLYLINE)
            cr_assert_eq(memcmp(sr_debug_list_item_points(expected, &a[i]), sr_debug_list_item_points(actual, &b[i]),
                                a[i].polyline.count * sizeof(sr_vec3)),
                         0, "%s: item %zu's points differ", where, i);
        if (a[i].kind == SR_DEBUG_ITEM_SHAPE && a[i].shape.count)
            cr_assert_eq(memcmp(sr_debug_list_item_points(expected, &a[i]), sr_debug_list_item_points(actual, &b[i]),
                                a[i].shape.count * sizeof(sr_vec3)),
                         0, "%s: item %zu's hull wire differs", where, i);
        if (a[i].kind == SR_DEBUG_ITEM_TEXT || a[i].kind == SR_DEBUG_ITEM_TEXT_2D)
            cr_assert_str_eq(sr_debug_list_item_text(expected, &a[i]), sr_debug_list_item_text(actual, &b[i]),
                             "%s: item %zu's text differs", where, i);
    }
}

static inline sr_debug_list *new_list(void)
{
    sr_debug_list *list = NULL;
    cr_assert_eq(sr_debug_list_create(NULL, &list, NULL), SR_OK);
    return list;
}

/// Empties a list, growing it to what the last frame asked, and fills it again with random items
/// until everything fits (nothing dropped), so that it holds exactly what was asked.
static inline void fill_list(sr_debug_list *list, uint64_t seed, size_t count, bool wild)
{
    for (int attempt = 0; attempt < 4; attempt++) {
        cr_assert_eq(sr_debug_list_clear(list, NULL), SR_OK);
        rng r = {seed * 0x9e3779b97f4a7c15ull + 1};
        add_random_items(list, &r, count, wild);
        if (sr_debug_list_get_stats(list).items_dropped == 0)
            return;
    }
    cr_assert_fail("the list never held all its items");
}

/* ---- allocations watched (sr_set_allocator): alloc_watch.h ---- */

#include "alloc_watch.h"

/* ---- a frame's lists ---- */

enum { ITEMS = 120 };

/* Frame f's lists: random items (no wild values, so that drawing is meaningful), seeded by f. */
static inline void frame_lists(sr_debug_list *lists[2], int f)
{
    fill_list(lists[0], (uint64_t)f * 2 + 1, ITEMS, false);
    fill_list(lists[1], (uint64_t)f * 2 + 2, ITEMS / 4, true);
}

#endif
