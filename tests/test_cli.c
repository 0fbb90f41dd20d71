/* test_cli.c — the `softrast` program as a user runs it (path in SOFTRAST_EXE, set by
 * tests/meson.build): `render` of a generated OBJ and of the demo scene, its images against the
 * library's own render of the scene --help documents (pixel for pixel), its depth and id files
 * against ray casting the same mesh in double precision here, every error path (exit status,
 * message, no crash, no file left behind), and `bench raster`'s JSON. */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <softrast/raster.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>

#include <stb_image.h>

extern char **environ;

static const double PI = 3.14159265358979323846;

/* ---- running the program ------------------------------------------------------------------ */

typedef struct run_result {
    bool exited; ///< ended by exit (not by a signal)
    int code;    ///< exit status when exited
    int signal;  ///< signal number otherwise
    char out[8192];
    char err[8192];
} run_result;

/* A fresh folder under /tmp; each test runs in its own process (criterion), so no sharing. */
static void make_temp_dir(char path[64])
{
    strcpy(path, "/tmp/softrast_cli_XXXXXX");
    cr_assert_not_null(mkdtemp(path), "mkdtemp: %s", strerror(errno));
}

/* Removes a folder and the files in it (one level; the tests make no deeper folders). */
static void remove_dir(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return;
    struct dirent *entry;
    char file[1024];
    while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        snprintf(file, sizeof file, "%s/%s", path, entry->d_name);
        remove(file);
    }
    closedir(dir);
    rmdir(path);
}

static int count_entries(const char *path)
{
    DIR *dir = opendir(path);
    cr_assert_not_null(dir);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL)
        count += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
    closedir(dir);
    return count;
}

static void read_text(const char *path, char *buffer, size_t size)
{
    buffer[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buffer, 1, size - 1, f);
    buffer[n] = '\0';
    fclose(f);
}

/* Runs SOFTRAST_EXE with `args` (NULL-terminated, without the program name), stdout and stderr
 * captured through files in a private folder. */
static run_result run(const char *const *args)
{
    const char *exe = getenv("SOFTRAST_EXE");
    cr_assert_not_null(exe, "SOFTRAST_EXE is not set (run through meson test)");
    char capture_dir[64];
    make_temp_dir(capture_dir);
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "%s/stdout", capture_dir);
    snprintf(err_path, sizeof err_path, "%s/stderr", capture_dir);

    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)exe;
    for (int i = 0; args[i]; i++) {
        cr_assert_lt(argc, 63);
        argv[argc++] = (char *)args[i];
    }
    argv[argc] = NULL;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int spawned = posix_spawn(&pid, exe, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    cr_assert_eq(spawned, 0, "posix_spawn %s: %s", exe, strerror(spawned));
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);

    run_result r = {.exited = WIFEXITED(status),
                    .code = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                    .signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0};
    read_text(out_path, r.out, sizeof r.out);
    read_text(err_path, r.err, sizeof r.err);
    remove_dir(capture_dir);
    return r;
}

static long file_size(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (long)info.st_size : -1;
}

/* Reads a whole raw file of exactly `size` bytes into a malloc'ed buffer. */
static void *read_raw(const char *path, long size)
{
    cr_assert_eq(file_size(path), size, "%s has %ld bytes, expected %ld", path, file_size(path), size);
    void *data = malloc((size_t)size);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    cr_assert_eq(fread(data, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    return data;
}

/* ---- the test mesh ------------------------------------------------------------------------ */

/* A mesh written as an OBJ: an ellipsoid of quads with triangle fans at the poles in front of a
 * pentagon, placed off-centre and scaled so that normalisation matters, with polygons so that
 * fan triangulation matters. `triangles` holds the triangles in the order the file defines them
 * (fan triangulation: f a b c d e gives (a b c), (a c d), (a d e)), as 0-based indices. */
#define RINGS 10
#define SLICES 14
#define MAX_VERTICES 512
#define MAX_TRIANGLES 1024

typedef struct test_mesh {
    double positions[MAX_VERTICES][3]; ///< normalised (BENCH_SCENE.md), computed here in double
    int vertex_count;
    int triangles[MAX_TRIANGLES][3];
    int triangle_count;
} test_mesh;

static void add_triangle(test_mesh *m, int a, int b, int c)
{
    cr_assert_lt(m->triangle_count, MAX_TRIANGLES);
    m->triangles[m->triangle_count][0] = a;
    m->triangles[m->triangle_count][1] = b;
    m->triangles[m->triangle_count][2] = c;
    m->triangle_count++;
}

/* Writes a face line and records its fan triangles. */
static void write_face(FILE *f, test_mesh *m, const int *vertices, int count)
{
    fputs("f", f);
    for (int i = 0; i < count; i++)
        fprintf(f, " %d", vertices[i] + 1);
    fputs("\n", f);
    for (int i = 1; i + 1 < count; i++)
        add_triangle(m, vertices[0], vertices[i], vertices[i + 1]);
}

static void write_test_obj(const char *path, test_mesh *m)
{
    memset(m, 0, sizeof *m);
    double raw[MAX_VERTICES][3];
    int n = 0;
    /* The shape in "design" coordinates: ellipsoid centre (0, 0, 0.2) radii (1, 0.6, 0.5), and a
     * pentagon in the plane z = -0.5 behind it, sticking out below. */
    raw[n][0] = 0, raw[n][1] = 0.6, raw[n][2] = 0.2, n++; /* top pole */
    for (int i = 1; i < RINGS; i++) {
        double polar = PI * i / RINGS;
        for (int j = 0; j < SLICES; j++) {
            double azimuth = 2 * PI * j / SLICES;
            raw[n][0] = sin(polar) * cos(azimuth);
            raw[n][1] = 0.6 * cos(polar);
            raw[n][2] = 0.2 + 0.5 * sin(polar) * sin(azimuth);
            n++;
        }
    }
    int bottom = n;
    raw[n][0] = 0, raw[n][1] = -0.6, raw[n][2] = 0.2, n++;
    int pentagon = n;
    const double pent[5][2] = {{-0.3, -0.9}, {0.9, -0.9}, {0.95, 0.0}, {0.3, 0.3}, {-0.35, 0.0}};
    for (int i = 0; i < 5; i++) {
        raw[n][0] = pent[i][0], raw[n][1] = pent[i][1], raw[n][2] = -0.5;
        n++;
    }
    m->vertex_count = n;

    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs("# generated by test_cli.c\no test_mesh\n", f);
    /* In the file: scaled by 1.7 and moved to (3, -1, 2), which normalisation must undo. */
    for (int i = 0; i < n; i++)
        fprintf(f, "v %.9f %.9f %.9f\n", raw[i][0] * 1.7 + 3.0, raw[i][1] * 1.7 - 1.0, raw[i][2] * 1.7 + 2.0);
    fputs("vn 0 0 1\ns off\n", f);
    for (int j = 0; j < SLICES; j++) {
        int face[3] = {0, 1 + j, 1 + (j + 1) % SLICES};
        write_face(f, m, face, 3);
    }
    for (int i = 0; i + 2 < RINGS; i++)
        for (int j = 0; j < SLICES; j++) {
            int a = 1 + i * SLICES + j, b = 1 + i * SLICES + (j + 1) % SLICES;
            int face[4] = {a, a + SLICES, b + SLICES, b};
            write_face(f, m, face, 4);
        }
    for (int j = 0; j < SLICES; j++) {
        int last = 1 + (RINGS - 2) * SLICES;
        int face[3] = {bottom, last + (j + 1) % SLICES, last + j};
        write_face(f, m, face, 3);
    }
    int face[5] = {pentagon, pentagon + 1, pentagon + 2, pentagon + 3, pentagon + 4};
    write_face(f, m, face, 5);
    fclose(f);

    /* Normalise as BENCH_SCENE.md says, from the file's values (as the program reads them). */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++) {
        double p[3] = {raw[i][0] * 1.7 + 3.0, raw[i][1] * 1.7 - 1.0, raw[i][2] * 1.7 + 2.0};
        for (int k = 0; k < 3; k++) {
            m->positions[i][k] = p[k];
            lo[k] = fmin(lo[k], p[k]);
            hi[k] = fmax(hi[k], p[k]);
        }
    }
    double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            m->positions[i][k] = (m->positions[i][k] - 0.5 * (lo[k] + hi[k])) * 2.0 / extent;
}

/* The ray of BENCH_SCENE.md through window point (px, py) of a width x height image: from the
 * eye (0, 0, 3), direction (ndc_x * tan(fov/2) * aspect, ndc_y * tan(fov/2), -1). */
static void camera_ray(double px, double py, int width, int height, double direction[3])
{
    double tan_half = tan(PI / 8);
    direction[0] = (px / width * 2 - 1) * tan_half * width / height;
    direction[1] = (1 - py / height * 2) * tan_half;
    direction[2] = -1;
}

/* Closest triangle hit by the ray from (0, 0, 3) along `d` (Möller–Trumbore in double), or -1.
 * `t` is in units of |d|; since d.z = -1, the view distance of the hit is t. */
static int closest_triangle(const test_mesh *m, const double d[3], double *t_hit)
{
    const double o[3] = {0, 0, 3};
    int best = -1;
    double best_t = INFINITY;
    for (int i = 0; i < m->triangle_count; i++) {
        const double *a = m->positions[m->triangles[i][0]];
        const double *b = m->positions[m->triangles[i][1]];
        const double *c = m->positions[m->triangles[i][2]];
        double e1[3], e2[3], s[3], p[3], q[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = b[k] - a[k];
            e2[k] = c[k] - a[k];
            s[k] = o[k] - a[k];
        }
        p[0] = d[1] * e2[2] - d[2] * e2[1], p[1] = d[2] * e2[0] - d[0] * e2[2], p[2] = d[0] * e2[1] - d[1] * e2[0];
        double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
        if (fabs(det) < 1e-15)
            continue;
        double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
        q[0] = s[1] * e1[2] - s[2] * e1[1], q[1] = s[2] * e1[0] - s[0] * e1[2], q[2] = s[0] * e1[1] - s[1] * e1[0];
        double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
        double t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
        if (u < 0 || v < 0 || u + v > 1 || t <= 0)
            continue;
        if (t < best_t) {
            best_t = t;
            best = i;
        }
    }
    *t_hit = best_t;
    return best;
}

/* ---- render ------------------------------------------------------------------------------- */

/* The library's own render, through the public API, of what `softrast render` documents
 * (--help): with `mesh_path`, BENCH_SCENE.md's canonical scene (sr_bench_scene_load_mesh and
 * sr_bench_scene_camera, background SR_BENCH_SCENE_BACKGROUND, the built-in shader `shader`,
 * lambert by default), the made-up vertex attributes --help describes (uv = ((x + 1) / 2,
 * (1 - y) / 2), colour = p * 0.5 + 0.5, opaque) and, for the textured shader, its checker (64
 * texels, 8 squares, white and 0.3 grey); without a mesh, the demo scene. The depth shader's
 * range is the view distances of the mesh's vertices. Rendered with as many threads as there
 * are cores, where the program uses one: DESIGN.md promises the same image bit for bit.
 * Returns width * height RGBA8 pixels (malloc'ed). */
static uint32_t *library_render(const char *mesh_path, const char *shader_name, int width, int height)
{
    sr_error err = {0};
    sr_renderer *renderer = NULL;
    sr_framebuffer *fb = NULL;
    cr_assert_eq(sr_renderer_create(NULL, &renderer, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height}, &fb, &err), SR_OK,
                 "%s", err.message);
    if (!mesh_path) {
        sr_scene *demo = NULL;
        cr_assert_eq(sr_scene_create_demo(&demo, &err), SR_OK, "%s", err.message);
        cr_assert_eq(sr_scene_render(demo, NULL, renderer, fb, NULL, &err), SR_OK, "%s", err.message);
        sr_scene_destroy(demo);
    } else {
        sr_mesh *mesh = NULL;
        cr_assert_eq(sr_bench_scene_load_mesh(mesh_path, &mesh, &err), SR_OK, "%s", err.message);
        const sr_shader *shader = sr_shader_find(shader_name ? shader_name : "lambert");
        cr_assert_not_null(shader, "no shader %s", shader_name);
        sr_shader_vertex *vertices = NULL;
        cr_assert_eq(sr_mesh_create_shader_vertices(mesh, NULL, &vertices, &err), SR_OK, "%s", err.message);
        cr_assert_null(mesh->uvs, "the test mesh has no uvs");
        for (size_t i = 0; i < mesh->vertex_count; i++) {
            const sr_vec3 p = vertices[i].position;
            vertices[i].uv = sr_vec2_make((p.x + 1.0f) * 0.5f, (1.0f - p.y) * 0.5f);
            const float color[4] = {p.x * 0.5f + 0.5f, p.y * 0.5f + 0.5f, p.z * 0.5f + 0.5f, 1.0f};
            memcpy(vertices[i].color, color, sizeof color);
        }
        sr_texture *checker = NULL;
        if (shader->inputs & SR_SHADER_INPUT_TEXTURE)
            cr_assert_eq(sr_checker_texture_create(64, 8, sr_rgba8(1.0f, 1.0f, 1.0f, 1.0f),
                                                   sr_rgba8(0.3f, 0.3f, 0.3f, 1.0f), &checker, &err),
                         SR_OK, "%s", err.message);
        sr_mat4 view, projection;
        sr_bench_scene_camera(width, height, &view, &projection);
        sr_shader_uniforms uniforms = sr_shader_uniforms_default();
        sr_shader_uniforms_set_transforms(&uniforms, sr_mat4_identity(), view, projection);
        uniforms.texture = checker;
        float nearest = INFINITY, farthest = -INFINITY;
        for (size_t i = 0; i < mesh->vertex_count; i++) {
            const float distance = -sr_mat4_transform_point(uniforms.model_view, mesh->positions[i]).z;
            nearest = fminf(nearest, distance);
            farthest = fmaxf(farthest, distance);
        }
        uniforms.depth_near = nearest;
        uniforms.depth_far = farthest;
        sr_program program = sr_shader_program(shader, &uniforms);
        sr_framebuffer_clear(fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
        cr_assert_eq(sr_draw_triangles(renderer, fb,
                                       &(sr_draw_desc){.vertices = vertices,
                                                       .vertex_count = mesh->vertex_count,
                                                       .vertex_stride = sizeof(sr_shader_vertex),
                                                       .indices = mesh->indices,
                                                       .index_count = mesh->triangle_count * 3,
                                                       .program = &program},
                                       &err),
                     SR_OK, "%s", err.message);
        sr_texture_destroy(checker);
        sr_free(vertices);
        sr_mesh_destroy(mesh);
    }
    uint32_t *pixels = malloc((size_t)width * (size_t)height * sizeof *pixels);
    cr_assert_not_null(pixels);
    memcpy(pixels, fb->color, (size_t)width * (size_t)height * sizeof *pixels);
    sr_framebuffer_destroy(fb);
    sr_renderer_destroy(renderer);
    return pixels;
}

/* The image the program wrote at `path` (BMP or PNG, read back with stb_image) equals the
 * library's render of the same scene pixel for pixel: RGB from a BMP (24 bits, read back
 * opaque), RGBA from a PNG. On a mismatch the library's image is written next to the program's
 * as <path>.expected.png and both paths are printed (the test's folder is kept). */
static void check_image(const char *path, const char *mesh_path, const char *shader_name, int width, int height)
{
    int w = 0, h = 0, channels = 0;
    unsigned char *pixels = stbi_load(path, &w, &h, &channels, 4);
    cr_assert_not_null(pixels, "%s is not a readable image: %s", path, stbi_failure_reason());
    cr_assert_eq(w, width);
    cr_assert_eq(h, height);
    uint32_t *expected = library_render(mesh_path, shader_name, width, height);
    const size_t length = strlen(path);
    const bool bmp = length >= 4 && strcasecmp(path + length - 4, ".bmp") == 0;
    size_t mismatches = 0, first = 0, background = 0;
    for (size_t i = 0; i < (size_t)width * (size_t)height; i++) {
        unsigned char want[4];
        memcpy(want, &expected[i], sizeof want);
        if (bmp)
            want[3] = 255;
        if (memcmp(want, pixels + 4 * i, 4) != 0 && mismatches++ == 0)
            first = i;
        background += expected[i] == SR_BENCH_SCENE_BACKGROUND;
    }
    if (mismatches > 0) {
        char expected_path[1100];
        snprintf(expected_path, sizeof expected_path, "%s.expected.png", path);
        sr_error err = {0};
        sr_status saved = sr_image_save(expected_path, width, height, expected, (size_t)width * 4, &err);
        const unsigned char *got = pixels + 4 * first;
        unsigned char want[4];
        memcpy(want, &expected[first], sizeof want);
        cr_assert_fail("%s: %zu of %d pixels differ from the library's render (%s%s); first at (%zu, %zu): "
                       "%u %u %u %u, expected %u %u %u %u",
                       path, mismatches, width * height,
                       saved == SR_OK ? "written to " : "not written: ", saved == SR_OK ? expected_path : err.message,
                       first % (size_t)width, first / (size_t)width, got[0], got[1], got[2], got[3], want[0], want[1],
                       want[2], want[3]);
    }
    /* the comparison means something only if the scene shows */
    cr_assert_lt(background, (size_t)width * (size_t)height / 20 * 19, "%s: the render is almost all background", path);
    free(expected);
    stbi_image_free(pixels);
}

Test(render, mesh_to_bmp_and_png)
{
    char dir[64], mesh[128], bmp[128], png[128];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/mesh.obj", dir);
    snprintf(bmp, sizeof bmp, "%s/out.bmp", dir);
    snprintf(png, sizeof png, "%s/out.PNG", dir);
    test_mesh m;
    write_test_obj(mesh, &m);
    run_result r = run((const char *[]){"render", mesh, "--out", bmp, "--size", "160x120", NULL});
    cr_assert(r.exited && r.code == 0, "exit %d signal %d: %s", r.code, r.signal, r.err);
    check_image(bmp, mesh, NULL, 160, 120);
    cr_assert(strstr(r.out, "out.bmp") && strchr(r.out, '\n') == strrchr(r.out, '\n'), "one line: %s", r.out);
    r = run((const char *[]){"render", "--size", "97x61", "--out", png, mesh, NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    check_image(png, mesh, NULL, 97, 61);
    remove_dir(dir);
}

Test(render, default_output_is_frame_bmp_in_current_folder)
{
    char dir[64], mesh[128], frame[128];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/mesh.obj", dir);
    snprintf(frame, sizeof frame, "%s/frame.bmp", dir);
    test_mesh m;
    write_test_obj(mesh, &m);
    char previous[4096];
    cr_assert_not_null(getcwd(previous, sizeof previous));
    cr_assert_eq(chdir(dir), 0);
    run_result r = run((const char *[]){"render", "mesh.obj", "--size", "64x48", NULL});
    cr_assert_eq(chdir(previous), 0);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    check_image(frame, mesh, NULL, 64, 48);
    remove_dir(dir);
}

Test(render, every_shader, .timeout = 120)
{
    const char *shaders[] = {"flat",    "vertex_color", "lambert",   "blinn_phong", "textured",
                             "normals", "depth",        "wireframe", "triangle_id"};
    char dir[64], mesh[128], out[128];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/mesh.obj", dir);
    test_mesh m;
    write_test_obj(mesh, &m);
    for (size_t i = 0; i < sizeof shaders / sizeof shaders[0]; i++) {
        snprintf(out, sizeof out, "%s/%s.png", dir, shaders[i]);
        run_result r =
            run((const char *[]){"render", mesh, "--shader", shaders[i], "--out", out, "--size", "80x60", NULL});
        cr_assert(r.exited && r.code == 0, "--shader %s: exit %d: %s", shaders[i], r.code, r.err);
        check_image(out, mesh, shaders[i], 80, 60);
    }
    remove_dir(dir);
}

Test(render, depth_and_ids_agree_with_ray_casting, .timeout = 120)
{
    const int width = 160, height = 120;
    char dir[64], mesh[128], out[128], depth_path[128], ids_path[128];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/mesh.obj", dir);
    snprintf(out, sizeof out, "%s/out.bmp", dir);
    snprintf(depth_path, sizeof depth_path, "%s/depth.f32", dir);
    snprintf(ids_path, sizeof ids_path, "%s/ids.u32", dir);
    test_mesh m;
    write_test_obj(mesh, &m);
    run_result r = run((const char *[]){"render", mesh, "--out", out, "--size", "160x120", "--depth", depth_path,
                                        "--ids", ids_path, NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    long size = (long)width * height * 4;
    float *depth = read_raw(depth_path, size);
    uint32_t *ids = read_raw(ids_path, size);

    /* Corners: nothing drawn. */
    const int corners[4] = {0, width - 1, (height - 1) * width, height * width - 1};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(depth[corners[i]], 1.0f, "corner %d depth %f", i, depth[corners[i]]);
        cr_assert_eq(ids[corners[i]], 0xffffffffu, "corner %d id %u", i, ids[corners[i]]);
    }
    /* Centre: a valid triangle. */
    uint32_t centre = ids[(height / 2) * width + width / 2];
    cr_assert_lt(centre, (uint32_t)m.triangle_count);

    /* Every pixel whose centre and four points a quarter pixel around it see the same closest
     * triangle (so it is away from edges) must carry that triangle's id and depth; pixels where
     * none of the five rays hits anything must be background. */
    const double n = 0.1, f = 100.0;
    int checked = 0, empty = 0, pentagon_pixels = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            const double offsets[5][2] = {{0, 0}, {0.25, 0}, {-0.25, 0}, {0, 0.25}, {0, -0.25}};
            int hit[5];
            double t_centre = 0;
            for (int k = 0; k < 5; k++) {
                double d[3], t;
                camera_ray(x + 0.5 + offsets[k][0], y + 0.5 + offsets[k][1], width, height, d);
                hit[k] = closest_triangle(&m, d, &t);
                if (k == 0)
                    t_centre = t;
            }
            bool same = true;
            for (int k = 1; k < 5; k++)
                same = same && hit[k] == hit[0];
            if (!same)
                continue;
            size_t p = (size_t)y * width + x;
            if (hit[0] < 0) {
                cr_assert_eq(ids[p], 0xffffffffu, "pixel (%d, %d): id %u where the ray hits nothing", x, y, ids[p]);
                cr_assert_eq(depth[p], 1.0f);
                empty++;
                continue;
            }
            cr_assert_eq(ids[p], (uint32_t)hit[0], "pixel (%d, %d): id %u, ray casting finds triangle %d", x, y, ids[p],
                         hit[0]);
            /* Window depth of view distance t: f (t - n) / ((f - n) t) (zero-to-one perspective). */
            double expected_depth = f * (t_centre - n) / ((f - n) * t_centre);
            cr_assert_float_eq(depth[p], expected_depth, 2e-5, "pixel (%d, %d): depth %f vs %f", x, y, depth[p],
                               expected_depth);
            checked++;
            pentagon_pixels += hit[0] >= m.triangle_count - 3;
        }
    cr_log_info("ray casting: %d pixels on the mesh checked, %d empty, %d on the pentagon", checked, empty,
                pentagon_pixels);
    cr_assert_gt(checked, 2000, "only %d pixels checked", checked);
    cr_assert_gt(empty, 2000);
    cr_assert_gt(pentagon_pixels, 50, "the partly hidden pentagon shows in %d pixels", pentagon_pixels);
    free(depth);
    free(ids);
    remove_dir(dir);
}

Test(render, demo_scene_without_mesh)
{
    char dir[64], out[128], ids_path[128];
    make_temp_dir(dir);
    snprintf(out, sizeof out, "%s/demo.bmp", dir);
    snprintf(ids_path, sizeof ids_path, "%s/demo.ids", dir);
    run_result r = run((const char *[]){"render", "--out", out, "--size", "320x180", "--ids", ids_path, NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    check_image(out, NULL, NULL, 320, 180);
    cr_assert(strstr(r.out, "demo"), "%s", r.out);
    /* Two values per pixel, node and triangle: every object shows, the ground (node 0) at the
     * bottom corners. */
    uint32_t *ids = read_raw(ids_path, 320L * 180 * 8);
    cr_assert_eq(ids[2 * (179 * 320)], 0u);
    cr_assert_eq(ids[2 * (179 * 320 + 319)], 0u);
    int pixels_of_node[4] = {0};
    for (int i = 0; i < 320 * 180; i++)
        if (ids[2 * i] != 0xffffffffu) {
            cr_assert_lt(ids[2 * i], 4u, "pixel %d: node %u", i, ids[2 * i]);
            pixels_of_node[ids[2 * i]]++;
        } else {
            cr_assert_eq(ids[2 * i + 1], 0xffffffffu);
        }
    for (int node = 0; node < 4; node++)
        cr_assert_gt(pixels_of_node[node], 500, "node %d covers %d pixels", node, pixels_of_node[node]);
    free(ids);
    remove_dir(dir);
}

/* ---- errors ------------------------------------------------------------------------------- */

/* Runs a failing command: non-zero exit, no signal, a message on stderr containing `expected`,
 * and nothing left in the output folder. */
static void expect_failure(const char *const *args, const char *expected, const char *out_dir)
{
    run_result r = run(args);
    cr_assert(r.exited, "%s: killed by signal %d; stderr: %s", args[1] ? args[1] : args[0], r.signal, r.err);
    cr_assert_neq(r.code, 0, "expected a failure containing '%s'; stdout: %s", expected, r.out);
    cr_assert(strstr(r.err, expected), "stderr does not name '%s': %s", expected, r.err);
    cr_assert(strchr(r.err, '\n') == strrchr(r.err, '\n'), "more than one line on stderr: %s", r.err);
    cr_assert_eq(count_entries(out_dir), 0, "a file was left in %s after: %s", out_dir, r.err);
}

Test(errors, bad_input_is_reported_and_leaves_nothing, .timeout = 120)
{
    char dir[64], outs[128], mesh[128], missing[128], png[128], text[128], out[256], depth[256], ids[256];
    make_temp_dir(dir);
    snprintf(outs, sizeof outs, "%s/outputs", dir);
    cr_assert_eq(mkdir(outs, 0700), 0);
    snprintf(mesh, sizeof mesh, "%s/mesh.obj", dir);
    snprintf(missing, sizeof missing, "%s/missing.obj", dir);
    snprintf(png, sizeof png, "%s/picture.png", dir);
    snprintf(text, sizeof text, "%s/notes.obj", dir);
    snprintf(out, sizeof out, "%s/out.bmp", outs);
    snprintf(depth, sizeof depth, "%s/depth.raw", outs);
    snprintf(ids, sizeof ids, "%s/ids.raw", outs);
    test_mesh m;
    write_test_obj(mesh, &m);
    /* A PNG: the signature, a header chunk and binary bytes. */
    FILE *f = fopen(png, "wb");
    const unsigned char png_bytes[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H',  'D',  'R',
                                       0,    0,   0,   16,  0,    0,    0,    16,   8, 6, 0, 0,  0,   0xde, 0xad, 0xbe};
    fwrite(png_bytes, 1, sizeof png_bytes, f);
    fclose(f);
    f = fopen(text, "w");
    fputs("Dear diary,\nthis is not a mesh at all.\n", f);
    fclose(f);

    expect_failure((const char *[]){"render", missing, "--out", out, NULL}, "missing.obj", outs);
    expect_failure((const char *[]){"render", png, "--out", out, NULL}, "picture.png", outs);
    expect_failure((const char *[]){"render", text, "--out", out, NULL}, "notes.obj", outs);
    expect_failure((const char *[]){"render", dir, "--out", out, NULL}, dir, outs); /* a folder */
    const char *sizes[] = {"0x5", "abc", "100000x100000", "640x", "x480", "-5x5", "12x12x12", "1e3x100", ""};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        expect_failure((const char *[]){"render", mesh, "--out", out, "--size", sizes[i], NULL}, "--size", outs);
    expect_failure((const char *[]){"render", mesh, "--out", out, "--size", NULL}, "--size", outs);
    expect_failure((const char *[]){"render", mesh, "--out", out, "--shader", "phong", NULL}, "phong", outs);
    char jpg[256];
    snprintf(jpg, sizeof jpg, "%s/out.jpg", outs);
    expect_failure((const char *[]){"render", mesh, "--out", jpg, NULL}, "out.jpg", outs);
    expect_failure((const char *[]){"render", mesh, "--out", out, "--frobnicate", NULL}, "--frobnicate", outs);
    expect_failure((const char *[]){"render", mesh, mesh, "--out", out, NULL}, "mesh.obj", outs);
    /* Unwritable outputs: a folder that does not exist, a path through a regular file. */
    expect_failure((const char *[]){"render", mesh, "--out", "/nonexistent_softrast_dir/out.bmp", NULL},
                   "/nonexistent_softrast_dir/out.bmp", outs);
    char through_file[160];
    snprintf(through_file, sizeof through_file, "%s/out.bmp", mesh);
    expect_failure((const char *[]){"render", mesh, "--out", through_file, NULL}, through_file, outs);
    /* The colour image would be fine but the depth or id file is not: nothing is written. */
    expect_failure((const char *[]){"render", mesh, "--out", out, "--depth", "/nonexistent_softrast_dir/d.raw", NULL},
                   "/nonexistent_softrast_dir/d.raw", outs);
    expect_failure((const char *[]){"render", mesh, "--out", out, "--depth", depth, "--ids", through_file, NULL},
                   through_file, outs);
    /* A file name longer than the file system allows passes the folder check, so the colour
     * image is written before the depth file fails: the image must be removed again. */
    char long_name[512];
    int length = snprintf(long_name, sizeof long_name, "%s/", outs);
    memset(long_name + length, 'a', 300);
    strcpy(long_name + length + 300, ".raw");
    expect_failure((const char *[]){"render", mesh, "--out", out, "--depth", long_name, NULL}, "aaaaaaaa", outs);
    expect_failure((const char *[]){"render", mesh, "--out", out, "--depth", depth, "--ids", long_name, NULL},
                   "aaaaaaaa", outs);
    expect_failure((const char *[]){"render", mesh, "--out", out, "--ids", out, NULL}, "same file", outs);
    expect_failure((const char *[]){"render", mesh, "--out", outs, NULL}, "outputs", outs);
    expect_failure((const char *[]){"render", mesh, "--out", out, "--ids", ids, "--depth",
                                    "/nonexistent_softrast_dir/d.raw", NULL},
                   "/nonexistent_softrast_dir/d.raw", outs);
    remove_dir(outs);
    remove_dir(dir);
}

Test(errors, devices_are_refused_not_read_forever, .timeout = 60)
{
    char dir[64], outs[128], out[256], hits[256];
    make_temp_dir(dir);
    snprintf(outs, sizeof outs, "%s/outputs", dir);
    cr_assert_eq(mkdir(outs, 0700), 0);
    snprintf(out, sizeof out, "%s/out.bmp", outs);
    snprintf(hits, sizeof hits, "%s/hits.bin", outs);
    expect_failure((const char *[]){"render", "/dev/zero", "--out", out, NULL}, "/dev/zero: not a regular file", outs);
    test_mesh m;
    char mesh[160];
    snprintf(mesh, sizeof mesh, "%s/mesh.obj", dir);
    write_test_obj(mesh, &m);
    expect_failure((const char *[]){"raycast", mesh, "--rays", "/dev/zero", "--out", hits, NULL},
                   "'/dev/zero' is not a regular file", outs);
    remove_dir(outs);
    remove_dir(dir);
}

Test(errors, a_pipe_output_is_never_removed, .timeout = 60)
{
    /* --depth to a FIFO (standing in for /dev/null) then a failing --ids: the cleanup of the
     * written outputs must remove the colour image but leave the FIFO node alone. */
    char dir[64], mesh[160], out[160], fifo[160], bad[160];
    make_temp_dir(dir);
    snprintf(mesh, sizeof mesh, "%s/mesh.obj", dir);
    snprintf(out, sizeof out, "%s/out.bmp", dir);
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(bad, sizeof bad, "%s/ids-is-a-folder", dir); /* passes the checks, fails at the rename */
    cr_assert_eq(mkdir(bad, 0700), 0);
    test_mesh m;
    write_test_obj(mesh, &m);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    pid_t reader = fork();
    cr_assert(reader >= 0);
    if (reader == 0) { /* drain the pipe */
        FILE *in = fopen(fifo, "rb");
        char buffer[4096];
        while (in && fread(buffer, 1, sizeof buffer, in) > 0) {
        }
        _exit(0);
    }
    run_result r =
        run((const char *[]){"render", mesh, "--size", "32x16", "--out", out, "--depth", fifo, "--ids", bad, NULL});
    kill(reader, SIGKILL); /* in case the pipe was never opened for writing */
    waitpid(reader, NULL, 0);
    cr_assert(r.exited && r.code != 0, "expected a failure: %s", r.err);
    struct stat info;
    cr_assert_eq(stat(fifo, &info), 0, "the FIFO was removed");
    cr_assert(S_ISFIFO(info.st_mode), "the FIFO was replaced");
    cr_assert_neq(stat(out, &info), 0, "the colour image of the failed run was left behind");
    unlink(fifo);
    rmdir(bad);
    remove_dir(dir);
}

Test(render, help_lists_shaders)
{
    run_result r = run((const char *[]){"render", "--help", NULL});
    cr_assert(r.exited && r.code == 0);
    cr_assert(strstr(r.out, "--shader") && strstr(r.out, "triangle_id") && strstr(r.out, "frame.bmp"), "%s", r.out);
}

/* ---- bench raster ------------------------------------------------------------------------- */

Test(bench, raster_prints_one_json_object, .timeout = 120)
{
    char dir[64], mesh[160];
    make_temp_dir(dir);
    /* A name that needs JSON escaping. */
    snprintf(mesh, sizeof mesh, "%s/a \"quoted\" \\ mesh.obj", dir);
    test_mesh m;
    write_test_obj(mesh, &m);
    run_result r = run((const char *[]){"bench", "raster", mesh, "--runs", "3", "--size", "64x48", NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cr_assert(strchr(r.out, '\n') == r.out + strlen(r.out) - 1, "not exactly one line: %s", r.out);
    cJSON *json = cJSON_Parse(r.out);
    cr_assert_not_null(json, "not JSON: %s", r.out);
    cJSON *path = cJSON_GetObjectItemCaseSensitive(json, "mesh");
    cr_assert(cJSON_IsString(path) && strcmp(path->valuestring, mesh) == 0, "mesh: %s", r.out);
    cJSON *triangles = cJSON_GetObjectItemCaseSensitive(json, "triangles");
    cr_assert(cJSON_IsNumber(triangles) && triangles->valuedouble == m.triangle_count, "%s", r.out);
    cJSON *size = cJSON_GetObjectItemCaseSensitive(json, "size");
    cr_assert(cJSON_IsArray(size) && cJSON_GetArraySize(size) == 2);
    cr_assert_eq(cJSON_GetArrayItem(size, 0)->valuedouble, 64);
    cr_assert_eq(cJSON_GetArrayItem(size, 1)->valuedouble, 48);
    cJSON *threads = cJSON_GetObjectItemCaseSensitive(json, "threads");
    cr_assert(cJSON_IsNumber(threads) && threads->valuedouble == 1);
    cJSON *load = cJSON_GetObjectItemCaseSensitive(json, "load_ms");
    cr_assert(cJSON_IsNumber(load) && load->valuedouble >= 0);
    cJSON *frame = cJSON_GetObjectItemCaseSensitive(json, "frame_ms");
    cr_assert(cJSON_IsObject(frame));
    cJSON *median = cJSON_GetObjectItemCaseSensitive(frame, "median");
    cJSON *min = cJSON_GetObjectItemCaseSensitive(frame, "min");
    cJSON *max = cJSON_GetObjectItemCaseSensitive(frame, "max");
    cr_assert(cJSON_IsNumber(median) && cJSON_IsNumber(min) && cJSON_IsNumber(max));
    cr_assert(min->valuedouble >= 0 && min->valuedouble <= median->valuedouble &&
              median->valuedouble <= max->valuedouble);
    cr_assert_eq(cJSON_GetArraySize(json), 6, "unexpected keys: %s", r.out);
    cJSON_Delete(json);
    /* Multi-threaded rendering is accepted and reported. */
    r = run((const char *[]){"bench", "raster", mesh, "--runs", "2", "--size", "64x48", "--threads", "2", NULL});
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    json = cJSON_Parse(r.out);
    cr_assert_not_null(json, "not JSON: %s", r.out);
    threads = cJSON_GetObjectItemCaseSensitive(json, "threads");
    cr_assert(cJSON_IsNumber(threads) && threads->valuedouble == 2, "%s", r.out);
    cJSON_Delete(json);
    remove_dir(dir);
}

Test(bench, raster_errors)
{
    char dir[64], outs[128], mesh[128];
    make_temp_dir(dir);
    snprintf(outs, sizeof outs, "%s/outputs", dir);
    cr_assert_eq(mkdir(outs, 0700), 0);
    snprintf(mesh, sizeof mesh, "%s/mesh.obj", dir);
    test_mesh m;
    write_test_obj(mesh, &m);
    expect_failure((const char *[]){"bench", "raster", NULL}, "MESH", outs);
    expect_failure((const char *[]){"bench", "raster", "/nonexistent_softrast.obj", NULL}, "nonexistent_softrast.obj",
                   outs);
    expect_failure((const char *[]){"bench", "raster", mesh, "--runs", "0", NULL}, "--runs", outs);
    expect_failure((const char *[]){"bench", "raster", mesh, "--runs", "ten", NULL}, "--runs", outs);
    expect_failure((const char *[]){"bench", "raster", mesh, "--size", "0x0", NULL}, "--size", outs);
    expect_failure((const char *[]){"bench", "raster", mesh, "--threads", "0", NULL}, "--threads", outs);
    expect_failure((const char *[]){"bench", "raster", mesh, "--threads", "65", NULL}, "--threads", outs);
    expect_failure((const char *[]){"bench", "raster", mesh, "--fast", NULL}, "--fast", outs);
    remove_dir(outs);
    remove_dir(dir);
}
