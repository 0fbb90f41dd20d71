/* tests/bench/bench_raster_core.c — times the triangle pipeline alone (sr_draw_triangles) on
 * The benchmark scene's lambert scene at 1280x720 on one thread, with its own small OBJ reader and a
 * generated bumpy sphere, so that the pipeline can be measured without the scene module.
 *
 *     bench_raster_core [MESH.obj | sphere:TRIANGLES]... [--frames N] [--size WxH] [--threads N]
 *
 * Prints one JSON line per mesh: median frame time (clear + draw) and draw time in ms over N
 * frames after one warm-up. Never run by `meson test`. */
#include <softrast/core.h>
#include <softrast/raster.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench_vertex {
    float position[3];
    float normal[3];
} bench_vertex;

typedef struct bench_mesh {
    bench_vertex *vertices;
    size_t vertex_count, vertex_capacity;
    uint32_t *indices;
    size_t index_count, index_capacity;
} bench_mesh;

static void *grow(void *array, size_t *capacity, size_t needed, size_t element)
{
    if (needed <= *capacity)
        return array;
    size_t capacity_new = *capacity ? *capacity * 2 : 1024;
    while (capacity_new < needed)
        capacity_new *= 2;
    void *grown = realloc(array, capacity_new * element);
    if (!grown) {
        fprintf(stderr, "bench_raster_core: out of memory\n");
        exit(1);
    }
    *capacity = capacity_new;
    return grown;
}

static void add_vertex(bench_mesh *mesh, float x, float y, float z)
{
    mesh->vertices = grow(mesh->vertices, &mesh->vertex_capacity, mesh->vertex_count + 1, sizeof *mesh->vertices);
    mesh->vertices[mesh->vertex_count++] = (bench_vertex){{x, y, z}, {0, 0, 0}};
}

static void add_triangle(bench_mesh *mesh, uint32_t a, uint32_t b, uint32_t c)
{
    mesh->indices = grow(mesh->indices, &mesh->index_capacity, mesh->index_count + 3, sizeof *mesh->indices);
    mesh->indices[mesh->index_count++] = a;
    mesh->indices[mesh->index_count++] = b;
    mesh->indices[mesh->index_count++] = c;
}

/* `v` and `f` lines only; polygons fan-triangulated; v/vt/vn forms and negative indices. */
static bool load_obj(const char *path, bench_mesh *mesh)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return false;
    char line[4096];
    while (fgets(line, sizeof line, file)) {
        if (line[0] == 'v' && line[1] == ' ') {
            float x, y, z;
            if (sscanf(line + 2, "%f %f %f", &x, &y, &z) == 3)
                add_vertex(mesh, x, y, z);
        } else if (line[0] == 'f' && line[1] == ' ') {
            long corner[64];
            int count = 0;
            char *cursor = line + 2;
            while (count < 64) {
                char *end;
                long index = strtol(cursor, &end, 10);
                if (end == cursor)
                    break;
                corner[count++] = index < 0 ? (long)mesh->vertex_count + index : index - 1;
                cursor = end;
                while (*cursor && *cursor != ' ' && *cursor != '\t')
                    cursor++;
            }
            for (int k = 1; k + 1 < count; k++)
                add_triangle(mesh, (uint32_t)corner[0], (uint32_t)corner[k], (uint32_t)corner[k + 1]);
        }
    }
    fclose(file);
    return mesh->index_count > 0;
}

/* A subdivided cube projected on the unit sphere with bumps (as tests/bench/make_mesh.py). */
static void make_bumpy_sphere(size_t triangles, bench_mesh *mesh)
{
    int n = (int)ceil(sqrt((double)triangles / 12.0));
    for (int face = 0; face < 6; face++) {
        int axis = face / 2, a_axis = (axis + 1) % 3, b_axis = (axis + 2) % 3;
        double side = face % 2 ? 1.0 : -1.0;
        if (face % 2 == 0) {
            int swap = a_axis;
            a_axis = b_axis;
            b_axis = swap;
        }
        uint32_t base = (uint32_t)mesh->vertex_count;
        for (int j = 0; j <= n; j++)
            for (int i = 0; i <= n; i++) {
                double p[3];
                p[axis] = side;
                p[a_axis] = 2.0 * i / n - 1.0;
                p[b_axis] = 2.0 * j / n - 1.0;
                double length = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
                double x = p[0] / length, y = p[1] / length, z = p[2] / length;
                double r = 1.0 + 0.08 * sin(5.0 * x + 1.0) * sin(7.0 * y + 2.0) * sin(6.0 * z + 3.0) +
                           0.02 * sin(23.0 * x) * sin(19.0 * y + 1.0) * sin(29.0 * z + 2.0);
                add_vertex(mesh, (float)(x * r), (float)(y * r), (float)(z * r));
            }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                uint32_t a = base + (uint32_t)(j * (n + 1) + i), b = a + 1, c = a + (uint32_t)(n + 1), d = c + 1;
                add_triangle(mesh, a, b, d);
                add_triangle(mesh, a, d, c);
            }
    }
}

/* The benchmark scene (README): centre the box on the origin, largest extent 2, area-weighted normals. */
static void prepare(bench_mesh *mesh)
{
    float low[3] = {INFINITY, INFINITY, INFINITY}, high[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < mesh->vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            low[k] = fminf(low[k], mesh->vertices[i].position[k]);
            high[k] = fmaxf(high[k], mesh->vertices[i].position[k]);
        }
    float extent = fmaxf(high[0] - low[0], fmaxf(high[1] - low[1], high[2] - low[2]));
    for (size_t i = 0; i < mesh->vertex_count; i++)
        for (int k = 0; k < 3; k++)
            mesh->vertices[i].position[k] =
                (mesh->vertices[i].position[k] - 0.5f * (low[k] + high[k])) * (2.0f / extent);
    for (size_t t = 0; t + 2 < mesh->index_count; t += 3) {
        uint32_t *k = &mesh->indices[t];
        if (k[0] >= mesh->vertex_count || k[1] >= mesh->vertex_count || k[2] >= mesh->vertex_count)
            continue;
        float *a = mesh->vertices[k[0]].position, *b = mesh->vertices[k[1]].position,
              *c = mesh->vertices[k[2]].position;
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int v = 0; v < 3; v++)
            for (int q = 0; q < 3; q++)
                mesh->vertices[k[v]].normal[q] += n[q];
    }
    for (size_t i = 0; i < mesh->vertex_count; i++) {
        float *n = mesh->vertices[i].normal;
        float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (length > 0)
            for (int q = 0; q < 3; q++)
                n[q] /= length;
    }
}

typedef struct lambert_uniforms {
    sr_mat4 view_projection;
    float light[3];
} lambert_uniforms;

static void lambert_vertex(const void *vertex, const void *uniforms, float clip[4], float *varyings)
{
    const bench_vertex *v = vertex;
    const lambert_uniforms *u = uniforms;
    const float *m = u->view_projection.m;
    float x = v->position[0], y = v->position[1], z = v->position[2];
    clip[0] = m[0] * x + m[4] * y + m[8] * z + m[12];
    clip[1] = m[1] * x + m[5] * y + m[9] * z + m[13];
    clip[2] = m[2] * x + m[6] * y + m[10] * z + m[14];
    clip[3] = m[3] * x + m[7] * y + m[11] * z + m[15];
    varyings[0] = v->normal[0];
    varyings[1] = v->normal[1];
    varyings[2] = v->normal[2];
}

static bool lambert_fragment(const sr_fragment_in *in, const void *uniforms, sr_fragment_out *out)
{
    const lambert_uniforms *u = uniforms;
    const float *n = in->varyings;
    float length2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    float inv = length2 > 0.0f ? 1.0f / sqrtf(length2) : 0.0f;
    float d = (n[0] * u->light[0] + n[1] * u->light[1] + n[2] * u->light[2]) * inv;
    float shade = 0.8f * (0.2f + 0.8f * (d > 0.0f ? d : 0.0f));
    out->color[0] = out->color[1] = out->color[2] = shade;
    out->color[3] = 1.0f;
    return true;
}

static double now_ms(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int bench(const char *name, bench_mesh *mesh, int width, int height, int frames, int threads)
{
    prepare(mesh);
    sr_framebuffer fb = {width, height, NULL, NULL, NULL};
    size_t pixels = (size_t)width * (size_t)height;
    fb.color = malloc(pixels * sizeof *fb.color);
    fb.depth = malloc(pixels * sizeof *fb.depth);
    sr_renderer *renderer = NULL;
    sr_error err;
    if (!fb.color || !fb.depth ||
        sr_renderer_create(&(sr_renderer_desc){.threads = threads}, &renderer, &err) != SR_OK) {
        fprintf(stderr, "bench_raster_core: setup failed (%s)\n", err.message);
        return 1;
    }
    sr_mat4 view = sr_mat4_look_at((sr_vec3){0, 0, 3}, (sr_vec3){0, 0, 0}, (sr_vec3){0, 1, 0});
    sr_mat4 projection = sr_mat4_perspective(45.0f * SR_PI / 180.0f, (float)width / (float)height, 0.1f, 100.0f);
    sr_vec3 light = sr_vec3_normalize((sr_vec3){0.3f, 0.5f, 1.0f});
    lambert_uniforms uniforms = {sr_mat4_mul(projection, view), {light.x, light.y, light.z}};
    sr_program program = {.name = "lambert",
                          .vertex = lambert_vertex,
                          .fragment = lambert_fragment,
                          .varying_count = 3,
                          .uniforms = &uniforms,
                          .vertex_size = sizeof(bench_vertex)};
    sr_draw_desc desc = {.vertices = mesh->vertices,
                         .vertex_count = mesh->vertex_count,
                         .vertex_stride = sizeof(bench_vertex),
                         .indices = mesh->indices,
                         .index_count = mesh->index_count,
                         .program = &program};
    uint32_t background = sr_rgba8(0.1f, 0.1f, 0.1f, 1.0f);
    // Wall-clock times, and the thread's CPU time of the draw (less sensitive to other processes
    // sharing the machine).
    double *frame_ms = calloc((size_t)frames, sizeof *frame_ms), *draw_ms = calloc((size_t)frames, sizeof *draw_ms);
    double *cpu_ms = calloc((size_t)frames, sizeof *cpu_ms);
    for (int f = -1; f < frames; f++) {
        double start = now_ms(CLOCK_MONOTONIC);
        for (size_t i = 0; i < pixels; i++) {
            fb.color[i] = background;
            fb.depth[i] = 1.0f;
        }
        double drawn = now_ms(CLOCK_MONOTONIC), cpu_start = now_ms(CLOCK_THREAD_CPUTIME_ID);
        sr_renderer_reset_stats(renderer);
        if (sr_draw_triangles(renderer, &fb, &desc, &err) != SR_OK) {
            fprintf(stderr, "bench_raster_core: %s\n", err.message);
            return 1;
        }
        double end = now_ms(CLOCK_MONOTONIC), cpu_end = now_ms(CLOCK_THREAD_CPUTIME_ID);
        if (f >= 0) {
            frame_ms[f] = end - start;
            draw_ms[f] = end - drawn;
            cpu_ms[f] = cpu_end - cpu_start;
        }
    }
    qsort(frame_ms, (size_t)frames, sizeof *frame_ms, compare_doubles);
    qsort(draw_ms, (size_t)frames, sizeof *draw_ms, compare_doubles);
    qsort(cpu_ms, (size_t)frames, sizeof *cpu_ms, compare_doubles);
    sr_raster_stats stats = sr_renderer_stats(renderer);
    printf("{\"mesh\": \"%s\", \"triangles\": %zu, \"size\": \"%dx%d\", \"threads\": %d, \"frames\": %d, "
           "\"median_frame_ms\": %.3f, "
           "\"median_draw_ms\": %.3f, \"median_draw_cpu_ms\": %.3f, \"min_frame_ms\": %.3f, \"min_draw_cpu_ms\": %.3f, "
           "\"rasterized\": %llu, \"fragments_shaded\": %llu}\n",
           name, mesh->index_count / 3, width, height, threads, frames, frame_ms[frames / 2], draw_ms[frames / 2],
           cpu_ms[frames / 2], frame_ms[0], cpu_ms[0], (unsigned long long)stats.triangles_rasterized,
           (unsigned long long)stats.fragments_shaded);
    if (getenv("BENCH_SAVE_PPM")) {
        FILE *out = fopen(getenv("BENCH_SAVE_PPM"), "wb");
        if (out) {
            fprintf(out, "P6\n%d %d\n255\n", width, height);
            for (size_t i = 0; i < pixels; i++) {
                unsigned char rgb[3] = {(unsigned char)(fb.color[i] & 0xff), (unsigned char)(fb.color[i] >> 8 & 0xff),
                                        (unsigned char)(fb.color[i] >> 16 & 0xff)};
                fwrite(rgb, 1, 3, out);
            }
            fclose(out);
        }
    }
    free(frame_ms);
    free(draw_ms);
    free(cpu_ms);
    free(fb.color);
    free(fb.depth);
    sr_renderer_destroy(renderer);
    return 0;
}

int main(int argc, char **argv)
{
    sr_error isa_err = {0};
    if (sr_isa_check_environment(&isa_err) != SR_OK) {
        fprintf(stderr, "bench_raster_core: %s\n", isa_err.message);
        return 2;
    }
    int frames = 11, width = 1280, height = 720, threads = 1, status = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            frames = atoi(argv[++i]);
            frames = frames < 1 ? 1 : frames;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2 || width < 1 || height < 1 || width > 16384 ||
                height > 16384) {
                fprintf(stderr, "bench_raster_core: bad --size\n");
                return 2;
            }
        }
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--frames") == 0 || strcmp(argv[i], "--size") == 0 || strcmp(argv[i], "--threads") == 0) {
            i++;
            continue;
        }
        bench_mesh mesh = {0};
        if (strncmp(argv[i], "sphere:", 7) == 0) {
            make_bumpy_sphere((size_t)strtoull(argv[i] + 7, NULL, 10), &mesh);
        } else if (!load_obj(argv[i], &mesh)) {
            fprintf(stderr, "bench_raster_core: cannot read %s\n", argv[i]);
            status = 1;
            continue;
        }
        status |= bench(argv[i], &mesh, width, height, frames, threads);
        free(mesh.vertices);
        free(mesh.indices);
    }
    return status;
}
