/* tests/test_fuzz.c — the fuzz targets of tests/fuzz/ as a criterion test: each target runs
 * over its seeds and a fixed number of deterministic mutants (tests/fuzz/fuzz_driver.c). A
 * crash, a failed invariant (abort) or a sanitizer report fails the test, and the driver prints
 * the failing input first. The value is mostly in the ASan+UBSan run
 * (`meson test --setup sanitize fuzz`); FUZZ_ITERATIONS=N runs longer locally.
 *
 * The `regressions` tests replay inputs that once broke a module, one test each, so that the
 * failure names the bug. */
#include <criterion/criterion.h>

#include "fuzz/fuzz_targets.h"
#include "png_builder.h"

#include <softrast/bvh.h>
#include <softrast/bvh_dynamic.h>
#include <softrast/geom.h>
#include <softrast/raster.h>
#include <softrast/scene.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Mutants per target, the same in every build: chosen so that the whole program stays under
 * ~20 s in the release build and ~90 s under ASan+UBSan on the shared 2-core machine, no target
 * over ~5 s / ~30 s (measurements in the session report). FUZZ_ITERATIONS=N overrides. */
static void run_target(const fuzz_target *target, uint64_t seed, size_t iterations)
{
    fuzz_report report = fuzz_run(target, seed, iterations);
    cr_assert_gt(report.executions, 0, "target %s ran no input", target->name);
    cr_log_info("fuzz %s: %zu executions, largest input %zu bytes", target->name, report.executions, report.largest);
}

Test(fuzz, obj, .timeout = 600)
{
    run_target(&fuzz_target_obj, 1, 1000000);
}

Test(fuzz, draw, .timeout = 600)
{
    run_target(&fuzz_target_draw, 2, 25000);
}

Test(fuzz, texture, .timeout = 600)
{
    run_target(&fuzz_target_texture, 3, 100000);
}

Test(fuzz, geom, .timeout = 600)
{
    run_target(&fuzz_target_geom, 4, 300000);
}

Test(fuzz, bvh, .timeout = 600)
{
    run_target(&fuzz_target_bvh, 5, 200000);
}

Test(fuzz, dynamic, .timeout = 600)
{
    run_target(&fuzz_target_dynamic, 6, 100000);
}

/* ------------------------------------------------------------------------------------------ */
/* Regressions: what the targets found, each checked directly against the API. The targets
 * check everything in every build: a bug they find fails `fuzz` until it is fixed.            */

Test(regressions, obj_normalize_near_flt_max)
{
    /* src/scene/mesh.c: sr_mesh_normalize took the box centre as (min + max) / 2, which
     * overflows for coordinates near FLT_MAX and turned every position into -inf. */
    const char text[] = "v 3e38 3e38 3e38\nv 3e38 3e38 3e38\nv 3e38 3e38 3e38\nf 1 2 3\n";
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_parse_obj(text, strlen(text), "regression", &mesh, &err), SR_OK, "%s", err.message);
    sr_mesh_normalize(mesh);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        cr_expect(sr_vec3_is_finite(mesh->positions[v]), "vertex %zu is (%g %g %g) after sr_mesh_normalize", v,
                  (double)mesh->positions[v].x, (double)mesh->positions[v].y, (double)mesh->positions[v].z);
    sr_mesh_destroy(mesh);
}

Test(regressions, obj_normalize_subnormal_extent)
{
    /* src/scene/mesh.c: for a mesh whose largest extent is subnormal (here 1.4e-45),
     * sr_mesh_normalize's scale 2 / largest overflows to infinity and the positions become NaN
     * (0 * inf) or infinite. */
    const char text[] = "v 0 0 0\nv 1e-45 1e-45 0\nv 0 1e-45 0\nf 1 2 3\n";
    sr_mesh *mesh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_mesh_parse_obj(text, strlen(text), "regression", &mesh, &err), SR_OK, "%s", err.message);
    sr_mesh_normalize(mesh);
    for (size_t v = 0; v < mesh->vertex_count; v++)
        cr_expect(sr_vec3_is_finite(mesh->positions[v]), "vertex %zu is (%g %g %g) after sr_mesh_normalize", v,
                  (double)mesh->positions[v].x, (double)mesh->positions[v].y, (double)mesh->positions[v].z);
    sr_mesh_destroy(mesh);
}

Test(regressions, geom_merge_inverted_empty_box)
{
    /* src/geom/aabb.c: geom.h says sr_aabb_merge ignores empty boxes, but only the canonical
     * empty box (+inf, -inf) and NaN boxes are ignored; an inverted box (min > max on one axis)
     * still moves the other axes. The fuzzer's input was (1e30, -0.9375, -0)..(2.3e-38, 0, 0). */
    sr_aabb empty = {{1.0f, -1.0f, -1.0f}, {0.0f, 0.0f, 0.0f}}; /* min.x > max.x */
    sr_aabb box = {{2.0f, 2.0f, 2.0f}, {3.0f, 3.0f, 3.0f}};
    cr_assert(sr_aabb_is_empty(empty));
    sr_aabb merged = sr_aabb_merge(empty, box);
    cr_expect(memcmp(&merged, &box, sizeof box) == 0, "merge gave (%g %g %g)..(%g %g %g), expected the box itself",
              (double)merged.min.x, (double)merged.min.y, (double)merged.min.z, (double)merged.max.x,
              (double)merged.max.y, (double)merged.max.z);
}

Test(regressions, texture_bilinear_above_one)
{
    /* src/raster/texture.c: bilinear weights (1 - ax)(1 - ay) / 255, ... can sum to one ulp
     * above 1/255, so an all-white texture samples as 1.00000012 (raster.h: RGBA in [0, 1]).
     * The fuzzer met it on its JPEG seed; (0.3, 0.3) on a white 2x2 texture shows it. */
    uint32_t white[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    sr_texture texture = {2, 2, white};
    sr_sampler bilinear = {SR_FILTER_BILINEAR, SR_WRAP_REPEAT, SR_WRAP_REPEAT};
    float rgba[4];
    sr_texture_sample(&texture, &bilinear, 0.3f, 0.3f, rgba);
    for (int c = 0; c < 4; c++)
        cr_expect(rgba[c] <= 1.0f, "channel %d is %.9g", c, (double)rgba[c]);
}

Test(regressions, geom_ray_hits_inverted_box)
{
    /* src/geom/aabb.c / geom.h: "an empty box never hits", but the exit distance is widened by
     * 2^-21 (SR_RAY_AABB_FAR_SCALE) before the enter <= leave test, so a box inverted by less
     * than that fraction of the distance is hit. Only the canonical empty box is safe. Either
     * the header should say so or sr_ray_aabb should reject min > max. */
    sr_ray ray = sr_ray_make((sr_vec3){0.0f, 0.0f, 0.0f}, (sr_vec3){0.0f, 0.0f, 1.0f}, 0.0f, INFINITY);
    sr_aabb inverted = {{-1.0f, -1.0f, 1.0f}, {1.0f, 1.0f, 0x1.fffffep-1f}}; /* min.z > max.z by one ulp */
    cr_assert(sr_aabb_is_empty(inverted));
    cr_expect(!sr_ray_aabb(&ray, &inverted, NULL, NULL), "a ray hit an empty (inverted) box");
}

Test(regressions, texture_truncated_file_refused)
{
    /* src/raster/texture.c through Debian's stb_image 2.27: the PNM loader ignores a short read,
     * so a binary PPM whose pixel data is cut off loads "successfully" with uninitialised texels
     * (which differ from run to run). raster.h lists PNG, JPG, TGA and BMP; a truncated file must
     * be an error. The TGA loader ignores short reads the same way. The fuzzer also found BMPs
     * whose pixels index palette entries the file does not hold, and corrupt JPEGs and PNGs, that
     * stb decodes from uninitialised memory (see the report); those cannot be told apart from a
     * valid decode here. */
    const char ppm[] = "P6\n4 4\n255\n\x10\x20\x30"; /* 48 bytes of pixels declared, 3 given */
    /* TGA, uncompressed true-colour 4x4 at 24 bits per pixel, with 3 of its 48 pixel bytes */
    const char tga[] = "\0\0\x02\0\0\0\0\0\0\0\0\0\x04\0\x04\0\x18\0\x10\x20\x30";
    const struct {
        const char *name, *bytes;
        size_t size;
    } files[] = {{"PPM", ppm, sizeof ppm - 1}, {"TGA", tga, sizeof tga - 1}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[] = "/tmp/softrast-regression-XXXXXX";
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        cr_assert_eq(write(fd, files[i].bytes, files[i].size), (ssize_t)files[i].size);
        close(fd);
        sr_texture *texture = NULL;
        sr_error err = {0};
        sr_status status = sr_texture_load(path, &texture, &err);
        unlink(path);
        cr_expect_neq(status, SR_OK, "a truncated %s loaded as a %dx%d texture", files[i].name,
                      texture ? texture->width : 0, texture ? texture->height : 0);
        sr_texture_destroy(texture);
    }
}

Test(regressions, texture_png_invalid_distance_code_refused)
{
    /* src/raster/texture.c through Debian's stb_image 2.27: its inflate takes the deflate
     * distance symbols 30 and 31, which RFC 1951 3.2.6 says never occur, as distance 0 and
     * copies bytes of its output buffer that were never written, so the texels came from
     * uninitialised heap memory (the fuzzer's inputs: 4x3 RGBA PNGs with a few IDAT bytes
     * changed). Here a 4x1 grey PNG whose fixed-Huffman block holds the filter byte, one pixel
     * and a copy of 3 bytes at distance symbol 30 (or 31): exactly the 5 bytes the image needs,
     * which stb decoded "successfully". The PNG's deflate data is now walked by a strict decoder
     * first, and the load is refused with a message naming the file. */
    for (int symbol = 30; symbol <= 31; symbol++) {
        png_bits idat = {.size = 0};
        png_bits_put_zlib_header(&idat);
        png_bits_put(&idat, 1, 1);              /* final block */
        png_bits_put(&idat, 1, 2);              /* fixed Huffman codes */
        png_bits_put_fixed_symbol(&idat, 0);    /* filter: none */
        png_bits_put_fixed_symbol(&idat, 0x40); /* first pixel */
        png_bits_put_fixed_symbol(&idat, 257);  /* length 3 */
        png_bits_put_fixed_distance(&idat, symbol);
        png_bits_put_fixed_symbol(&idat, 256); /* end of block */
        const unsigned char intended[5] = {0, 0x40, 0x40, 0x40, 0x40};
        png_bits_put_adler32(&idat, png_adler32(intended, sizeof intended));
        unsigned char file[256];
        size_t size = png_make(file, 4, 1, 0, &idat, 0, false);
        char path[] = "/tmp/softrast-regression-XXXXXX";
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        cr_assert_eq(write(fd, file, size), (ssize_t)size);
        close(fd);
        sr_texture *texture = NULL;
        sr_error err = {0};
        sr_status status = sr_texture_load(path, &texture, &err);
        unlink(path);
        cr_expect_eq(status, SR_ERROR_PARSE, "distance symbol %d: %s (%s)", symbol, sr_status_name(status),
                     status == SR_OK ? "loaded" : err.message);
        cr_expect(status == SR_OK || strstr(err.message, path) != NULL, "the message must name the file: %s",
                  err.message);
        cr_expect(status == SR_OK || strstr(err.message, symbol == 30 ? "distance symbol 30" : "distance symbol 31"),
                  "the message must say what is wrong: %s", err.message);
        sr_texture_destroy(texture);
    }
}

Test(regressions, geom_ray_obb_huge_direction)
{
    /* src/geom/intersect.c: sr_ray_obb rotates the direction into the box frame and refuses the
     * ray when the result is not finite (meant for NaN boxes). A finite direction near FLT_MAX
     * overflows there, so a ray starting at the centre of the box misses it, against the
     * closed-box rule ("origins inside ... hit"). The fuzzer's direction was
     * (-1.6e-27, -FLT_MAX, -FLT_MAX) in a box rotated by a few degrees. */
    sr_mat4 rotation = sr_mat4_rotation((sr_vec3){0.0f, 0.0f, 1.0f}, SR_PI / 4.0f);
    sr_obb box = sr_obb_from_aabb((sr_aabb){{-1.0f, -1.0f, -1.0f}, {1.0f, 1.0f, 1.0f}}, rotation);
    sr_ray ray = sr_ray_make((sr_vec3){0.0f, 0.0f, 0.0f}, (sr_vec3){FLT_MAX, FLT_MAX, 0.0f}, 0.0f, INFINITY);
    cr_assert(sr_obb_contains_point(&box, ray.origin));
    cr_expect(sr_ray_obb(&ray, &box, NULL, NULL), "a ray from the centre of an oriented box missed it");
}

Test(regressions, geom_grow_ignores_signalling_nan)
{
    /* src/geom/aabb.c + math.h: geom.h says NaN coordinates of the point are ignored by
     * sr_aabb_grow, but sr_vec3_min/max use fminf/fmaxf, which return NaN for a signalling NaN
     * (C Annex F / IEEE 754 minNum). Raw bytes read as floats (a binary file, a network
     * buffer) can hold one. The fuzzer's point was (1, sNaN, 24). */
    uint32_t bits = 0x7fa00000u; /* signalling NaN: quiet bit clear, payload non-zero */
    float signalling;
    memcpy(&signalling, &bits, sizeof signalling);
    sr_aabb box = {{0.0f, 0.0f, 0.0f}, {1.0f, 1.0f, 1.0f}};
    sr_aabb grown = sr_aabb_grow(box, (sr_vec3){0.5f, signalling, 0.5f});
    cr_expect(grown.min.y == 0.0f && grown.max.y == 1.0f, "y range became [%g, %g]", (double)grown.min.y,
              (double)grown.max.y);
}

/* Brute force over sr_ray_triangle: whether the ray hits any of `count` triangles (9 floats
 * each), and the smallest t. */
static bool brute_force_closest(const float (*triangles)[9], int count, const sr_ray *ray, float *best)
{
    bool any = false;
    *best = INFINITY;
    for (int i = 0; i < count; i++) {
        const float *p = triangles[i];
        sr_triangle_hit hit;
        if (sr_ray_triangle(ray, (sr_vec3){p[0], p[1], p[2]}, (sr_vec3){p[3], p[4], p[5]}, (sr_vec3){p[6], p[7], p[8]},
                            &hit)) {
            any = true;
            *best = fminf(*best, hit.t);
        }
    }
    return any;
}

/* The BVH's answers for `ray` equal brute force's exactly (bvh.h): hit or miss, closest t bit
 * for bit, any-hit. */
static void expect_brute_force_answer(const sr_bvh *bvh, const float (*triangles)[9], int count, const sr_ray *ray,
                                      const char *what)
{
    float best;
    bool any = brute_force_closest(triangles, count, ray, &best);
    cr_assert(any, "%s: the case needs a ray that sr_ray_triangle says hits", what);
    sr_bvh_hit hit;
    bool found = sr_bvh_query_ray(bvh, ray, &hit);
    cr_expect(found, "%s: the BVH misses, brute force hits at t %a", what, (double)best);
    cr_expect(!found || memcmp(&hit.t, &best, sizeof best) == 0, "%s: BVH closest t %a (triangle %u), brute force %a",
              what, (double)hit.t, hit.primitive, (double)best);
    cr_expect(sr_bvh_query_ray_any(bvh, ray, NULL), "%s: the any-hit query misses", what);
}

Test(regressions, bvh_closest_hit_at_box_face)
{
    /* src/bvh/bvh_query.c: three triangles in the plane x = 0 (each a leaf), a ray starting in
     * that plane (tmin = -inf). sr_ray_triangle gives t = -1.95e-9, -1.66e-8 and 1.3e-8 (the
     * exact t is 0: the rounding of the sheared ray space); every leaf's slab interval is
     * exactly [0, 0]. Once the first triangle was found at -1.95e-9 the leaf of the closest one
     * (-1.66e-8) was entered "after" that hit and pruned, and with tmax = -1e-9 (below every
     * slab entry) the BVH missed all three. The node boxes are now tested with a margin that
     * covers the triangle test's rounding, and the answer is brute force's bit for bit. */
    const float positions[3][9] = {
        {0, 0, 0, 0, 0, 7, 0, -16, 7}, {0, 0, 0, 0, 0, 7.125f, 0, -16, 7}, {0, 0, 0, 0, 0, 7.25f, 0, -16, 7}};
    sr_bvh_triangles input = {.positions = &positions[0][0], .vertex_count = 9, .triangle_count = 3};
    sr_bvh *bvh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_bvh_build_triangles(&(sr_bvh_desc){.max_leaf_size = 1}, &input, &bvh, &err), SR_OK, "%s",
                 err.message);
    const sr_vec3 origin = {-0.0f, 0.0f, 0.03125f}, direction = {0.0234375f, 0.046875f, 0.0703125f};
    sr_ray ray = sr_ray_make(origin, direction, -INFINITY, INFINITY);
    expect_brute_force_answer(bvh, positions, 3, &ray, "tmax +inf");
    ray = sr_ray_make(origin, direction, -INFINITY, -1e-9f);
    expect_brute_force_answer(bvh, positions, 3, &ray, "tmax -1e-9");
    sr_bvh_destroy(bvh);
}

Test(regressions, bvh_hit_where_the_shear_underflows)
{
    /* src/bvh/bvh_query.c: a ray from z = -1e34 along -z (tmin = -inf) with direction x and y
     * components near 1e-36: its ray-space shears d_x / d_z and d_y / d_z underflow to (or
     * below) the smallest subnormal, so sr_ray_triangle's sheared coordinates are off by up to
     * 2^-150 * 1e34 ~ 7e-12. The ray passes 2.3e-12 below the edge y = 0 of the triangle, which
     * sr_ray_triangle reports as a hit at t = -9.67e25 (the octahedron face the fuzzer met);
     * the slab test, right about the exact ray, missed the triangle's box, so the BVH missed
     * what brute force hits. The margin covers subnormal shears too. */
    const float triangle[1][9] = {{1, 0, 0, -1, 0, 0, 0, 1, 0}};
    sr_bvh_triangles input = {.positions = &triangle[0][0], .vertex_count = 3, .triangle_count = 1};
    sr_bvh *bvh = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_bvh_build_triangles(NULL, &input, &bvh, &err), SR_OK, "%s", err.message);
    sr_ray ray = sr_ray_make((sr_vec3){0x1.fp-142f, 0.0f, -0x1.00004p+113f},
                             (sr_vec3){0x1.0802p-119f, 0x1.f01p-126f, -0x1.999a02p+26f}, -INFINITY, INFINITY);
    expect_brute_force_answer(bvh, triangle, 1, &ray, "subnormal shear");
    sr_bvh_destroy(bvh);
}

static bool record_containment(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    (void)proxy;
    ((sr_containment *)user)[user_data] = containment;
    return true;
}

Test(regressions, dynamic_frustum_large_box_beside_small_one)
{
    /* src/bvh/bvh_dynamic_query.c: the frustum query tested nodes in centre/half-extent form. A parent
     * box reaching 3e38 in y over a small box gave distance - radius = 1.5e38 - 1.5e38 = 0 for
     * the plane x + y >= 0 (the true n-vertex distance is -0.2), so the whole subtree was accepted
     * as inside and the small box reported SR_INSIDE where sr_frustum_test_aabb says
     * SR_INTERSECTING. The query now runs sr_frustum_test_aabb's corner tests. */
    sr_dynamic_tree *tree = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true}, &tree, &err), SR_OK);
    const sr_aabb boxes[2] = {{{-0.1f, -0.1f, -0.1f}, {0.1f, 0.1f, 0.1f}},
                              {{-0.1f, -0.1f, -0.1f}, {0.1f, 3e38f, 0.1f}}};
    for (int i = 0; i < 2; i++) {
        sr_dynamic_proxy proxy;
        cr_assert_eq(sr_dynamic_tree_insert(tree, boxes[i], (uint64_t)i, &proxy, &err), SR_OK, "%s", err.message);
    }
    sr_frustum frustum = {{{{1.0f, 1.0f, 0.0f}, 0.0f}}}; /* the other five planes: 0 >= 0, inside */
    sr_containment got[2] = {SR_OUTSIDE, SR_OUTSIDE};
    sr_dynamic_tree_query_stats stats = sr_dynamic_tree_query_frustum(tree, &frustum, record_containment, got, &err);
    cr_assert_eq(stats.status, SR_OK, "%s", err.message);
    for (int i = 0; i < 2; i++)
        cr_expect_eq(got[i], sr_frustum_test_aabb(&frustum, &boxes[i]), "box %d reported as %d", i, (int)got[i]);
    sr_dynamic_tree_destroy(tree);
}

Test(regressions, dynamic_rebuild_subnormal_extent)
{
    /* src/bvh/bvh_dynamic_rebuild.c: the rebuild's binning scale, bins / centroid extent, is infinite for a
     * subnormal extent; (centre - lo) * scale was then NaN (0 * inf) and its conversion to int
     * indexed bins[INT_MIN]. Bins are now clamped before the conversion. */
    sr_dynamic_tree *tree = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true}, &tree, &err), SR_OK);
    for (int i = 0; i < 5; i++) {
        float x = (float)i * 0x1p-149f; /* multiples of the smallest subnormal */
        sr_dynamic_proxy proxy;
        cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{x, 0, 0}, {x, 0, 0}}, (uint64_t)i, &proxy, &err), SR_OK);
    }
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).proxy_count, 5);
    sr_dynamic_tree_destroy(tree);
}

Test(regressions, draw_line_clipped_at_subnormal_parameter)
{
    /* src/raster/line.c: a segment from a point just behind the w epsilon to one near FLT_MAX in
     * clip space is clipped at a subnormal parameter (1.2e-40), whose few significant bits left the
     * clipped end far outside the view volume: window x 1.4e10, converted to int out of range,
     * then a pixel index 2^37 bytes before the framebuffer (found by libFuzzer on fuzz_draw). Ends
     * are now clamped to the volume and the pixel range in float before any conversion. */
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = 8, .height = 8}, &fb, &err), SR_OK, "%s",
                 err.message);
    cr_assert_eq(sr_renderer_create(NULL, &renderer, &err), SR_OK, "%s", err.message);
    /* column-major, as found */
    const sr_mat4 view_projection = {{-0x1.00007ep+127f, -0x1p-8f, -0x1p-8f, -0x1p-8f, -0x1p-8f, -0x1p-8f, -0x1p-8f,
                                      -0x1p-8f, 0x1.fep-1f, 0x1.fe007ep-117f, 0x1.f8p-144f, 0x1.c8007ep+73f, 0.0f,
                                      0x1.83fp-137f, 0x1.fdp-128f, -0.0f}};
    const sr_line_vertex vertices[2] = {{{0x1.cp-134f, 0.0f, 0x1.83fp-129f}, {1, 1, 1, 1}},
                                        {{-0x1.58p+0f, -0x1.58p+0f, -0x1.58p+0f}, {1, 1, 1, 1}}};
    sr_framebuffer_clear(fb, 0, 1.0f);
    cr_assert_eq(
        sr_draw_lines(renderer, fb,
                      &(sr_line_desc){.vertices = vertices, .vertex_count = 2, .view_projection = view_projection},
                      &err),
        SR_OK, "%s", err.message);
    cr_expect_leq(sr_renderer_stats(renderer).fragments_written, 8u, "a line across an 8x8 frame wrote %llu pixels",
                  (unsigned long long)sr_renderer_stats(renderer).fragments_written);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
}
