/* bench_llvmpipe.c — softrast's lambert frame next to Mesa's llvmpipe (through OSMesa, Debian's
 * libosmesa6-dev), side by side in one process: the benchmark scene's scene (the normalised mesh with
 * area-weighted vertex normals, the camera, the lambert formula as a GLSL shader, background 0.1,
 * depth test LESS, no culling) at the same size and thread count. Every round renders one frame
 * with each (and, with --threads above 1, one with softrast on one thread), in an order that
 * rotates from round to round, so that the speed changes of a shared machine hit all alike; the
 * ratios printed are the medians of the per-round ratios: softrast / llvmpipe (`ratio`) and
 * softrast / softrast on one thread (`ratio_to_1_thread`). Built only where OSMesa is installed;
 * never run by `meson test`.
 *
 *   build/tests/bench/bench_llvmpipe MESH.obj [--runs N] [--threads N] [--size WxH]
 *                                    [--llvmpipe-threads N] [--save PREFIX]
 *
 * A softrast frame is sr_renderer_clear + sr_draw_triangles, as `softrast bench raster`; a Mesa
 * frame is glClear + glDrawElements + glFinish into a framebuffer object (RGBA8 colour, 32-bit
 * float depth: the storage softrast draws into, with nothing copied out). llvmpipe reads
 * LP_NUM_THREADS once, when OSMesa creates its screen with the first context, so the program sets
 * it before that and one process measures one thread count. LP_NUM_THREADS=N gives N rasteriser
 * threads while the calling thread transforms, sets up and bins; 0 has the calling thread do
 * everything. --llvmpipe-threads sets it; by default it is --threads, except that one thread is
 * LP_NUM_THREADS=0: llvmpipe on one thread (with a rasteriser thread it was slower here, the
 * hand-over between the threads costing more than the overlap gains).
 *
 * The timed rounds are framed by a probe of the machine (`machine_parallelism`, before and after):
 * how much faster two threads do two pieces of fixed work than one thread, about 2 when two cores
 * are free; on a shared machine, rows measured while it was near 1 say little about threads.
 *
 * The pictures are compared after the timing: colour within 2/255 per channel, and coverage
 * (softrast's id buffer against gl_PrimitiveID drawn by Mesa into an R32UI target, both with the
 * depth test): pixels covered by one renderer and not the other (the first few listed, with the
 * triangle that covers them), and pixels where both saw a different front-most triangle. Prints
 * one JSON line. */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/osmesa.h>

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <softrast/core.h>
#include <softrast/raster.h>
#include <softrast/scene.h>
#include <softrast/shaders.h>

#define MAX_RUNS 10000

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* A dependent chain of additions (about 20 ms): the same speed on any free core. */
static void *probe_work(void *result)
{
    volatile double sum = 0.0;
    for (long i = 0; i < 20000000; i++)
        sum += (double)i * 1e-9;
    *(double *)result = sum;
    return NULL;
}

/* How much faster two threads run two pieces of work than one thread runs them: about 2 on a
 * machine with two free cores, about 1 when the other users of a shared machine leave one. */
static double machine_parallelism(void)
{
    double results[2];
    double start = now_ms();
    probe_work(&results[0]);
    probe_work(&results[1]);
    double serial = now_ms() - start;
    start = now_ms();
    pthread_t thread;
    if (pthread_create(&thread, NULL, probe_work, &results[1]) != 0)
        return 0.0;
    probe_work(&results[0]);
    pthread_join(thread, NULL);
    return serial / (now_ms() - start);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static void print_json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    putchar('"');
}

/* The benchmark scene's lambert, written as shaders/lambert.c computes it: N renormalised only where
 * the light term is used (the same value; a zero normal gives ambient). */
static const char *vertex_source = "#version 330 core\n"
                                   "layout(location = 0) in vec3 position;\n"
                                   "layout(location = 1) in vec3 normal;\n"
                                   "uniform mat4 model_view_projection;\n"
                                   "uniform mat3 normal_matrix;\n"
                                   "out vec3 world_normal;\n"
                                   "void main() {\n"
                                   "    gl_Position = model_view_projection * vec4(position, 1.0);\n"
                                   "    world_normal = normal_matrix * normal;\n"
                                   "}\n";
static const char *lambert_source =
    "#version 330 core\n"
    "in vec3 world_normal;\n"
    "uniform vec3 light_direction;\n"
    "uniform vec3 albedo;\n"
    "uniform float ambient;\n"
    "uniform float diffuse;\n"
    "layout(location = 0) out vec4 color;\n"
    "void main() {\n"
    "    float n_dot_l = dot(world_normal, light_direction);\n"
    "    float k = n_dot_l > 0.0 ? ambient + diffuse * (n_dot_l / length(world_normal))\n"
    "                            : ambient;\n"
    "    color = vec4(albedo * k, 1.0);\n"
    "}\n";
static const char *id_source = "#version 330 core\n"
                               "in vec3 world_normal;\n"
                               "layout(location = 0) out uint id;\n"
                               "void main() { id = uint(gl_PrimitiveID); }\n";

static GLuint compile(GLenum type, const char *source)
{
    GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &source, NULL);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048] = "";
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        fprintf(stderr, "bench_llvmpipe: shader does not compile: %s\n", log);
        exit(1);
    }
    return shader;
}

static GLuint link_program(const char *fragment_source)
{
    GLuint program = glCreateProgram();
    GLuint vs = compile(GL_VERTEX_SHADER, vertex_source), fs = compile(GL_FRAGMENT_SHADER, fragment_source);
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048] = "";
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        fprintf(stderr, "bench_llvmpipe: program does not link: %s\n", log);
        exit(1);
    }
    glDeleteShader(vs);
    glDeleteShader(fs);
    return program;
}

static void set_uniforms(GLuint program, const sr_shader_uniforms *u)
{
    glUseProgram(program);
    glUniformMatrix4fv(glGetUniformLocation(program, "model_view_projection"), 1, GL_FALSE, u->model_view_projection.m);
    const float *n = u->normal_matrix.m; // column-major 4x4: its upper-left 3x3
    const float normal3[9] = {n[0], n[1], n[2], n[4], n[5], n[6], n[8], n[9], n[10]};
    glUniformMatrix3fv(glGetUniformLocation(program, "normal_matrix"), 1, GL_FALSE, normal3);
    GLint at;
    if ((at = glGetUniformLocation(program, "light_direction")) >= 0)
        glUniform3f(at, u->light_direction.x, u->light_direction.y, u->light_direction.z);
    if ((at = glGetUniformLocation(program, "albedo")) >= 0)
        glUniform3f(at, u->albedo.x, u->albedo.y, u->albedo.z);
    if ((at = glGetUniformLocation(program, "ambient")) >= 0)
        glUniform1f(at, u->ambient);
    if ((at = glGetUniformLocation(program, "diffuse")) >= 0)
        glUniform1f(at, u->diffuse);
}

/* A framebuffer object of one colour renderbuffer (`format`) and a 32-bit float depth one. */
static GLuint make_target(GLenum format, int width, int height)
{
    GLuint fbo, buffers[2];
    glGenFramebuffers(1, &fbo);
    glGenRenderbuffers(2, buffers);
    glBindRenderbuffer(GL_RENDERBUFFER, buffers[0]);
    glRenderbufferStorage(GL_RENDERBUFFER, format, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, buffers[1]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT32F, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, buffers[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, buffers[1]);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        fprintf(stderr, "bench_llvmpipe: framebuffer object incomplete\n");
        exit(1);
    }
    return fbo;
}

int main(int argc, char **argv)
{
    sr_error isa_err = {0};
    if (sr_isa_check_environment(&isa_err) != SR_OK) {
        fprintf(stderr, "bench_llvmpipe: %s\n", isa_err.message);
        return 2;
    }
    const char *mesh_path = NULL, *save_prefix = NULL;
    long runs = 11, threads = 1, lp_threads = -1;
    int width = 1280, height = 720;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--llvmpipe-threads") == 0 && i + 1 < argc)
            lp_threads = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2)
                width = 0;
        } else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
            save_prefix = argv[++i];
        else if (argv[i][0] != '-' && !mesh_path)
            mesh_path = argv[i];
        else {
            mesh_path = NULL;
            break;
        }
    }
    if (!mesh_path || runs < 1 || runs > MAX_RUNS || threads < 1 || threads > SR_MAX_THREADS || width < 1 ||
        height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE || lp_threads > 64) {
        fprintf(stderr, "usage: bench_llvmpipe MESH.obj [--runs N] [--threads N] [--size WxH] "
                        "[--llvmpipe-threads N] [--save PREFIX]\n");
        return 2;
    }
    if (lp_threads < 0)
        lp_threads = threads > 1 ? threads : 0;
    // Read by llvmpipe when the screen is created (the first OSMesa context), never again.
    char lp_value[16];
    snprintf(lp_value, sizeof lp_value, "%ld", lp_threads);
    setenv("LP_NUM_THREADS", lp_value, 1);
    setenv("GALLIUM_DRIVER", "llvmpipe", 1);

    sr_error err = {0};
    sr_mesh *mesh = NULL;
    sr_shader_vertex *vertices = NULL;
    sr_framebuffer *fb = NULL;
    sr_renderer *renderer = NULL;
    if (sr_bench_scene_load_mesh(mesh_path, &mesh, &err) != SR_OK ||
        sr_mesh_create_shader_vertices(mesh, NULL, &vertices, &err) != SR_OK ||
        sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = false}, &fb, &err) !=
            SR_OK ||
        sr_renderer_create(&(sr_renderer_desc){.threads = (int)threads}, &renderer, &err) != SR_OK) {
        fprintf(stderr, "bench_llvmpipe: %s\n", err.message);
        return 1;
    }
    sr_mat4 view, projection;
    sr_bench_scene_camera(width, height, &view, &projection);
    sr_shader_uniforms uniforms = sr_shader_uniforms_default();
    sr_shader_uniforms_set_transforms(&uniforms, sr_mat4_identity(), view, projection);
    sr_program program = sr_shader_program(&sr_shader_lambert, &uniforms);
    sr_draw_desc draw = {
        .vertices = vertices,
        .vertex_count = mesh->vertex_count,
        .vertex_stride = sizeof(sr_shader_vertex),
        .indices = mesh->indices,
        .index_count = mesh->triangle_count * 3,
        .program = &program,
    };

    // OSMesa: a core 3.3 context; its own buffer only makes the context current (1x1), the
    // frames go to framebuffer objects.
    const int attributes[] = {OSMESA_FORMAT,
                              OSMESA_RGBA,
                              OSMESA_DEPTH_BITS,
                              0,
                              OSMESA_PROFILE,
                              OSMESA_CORE_PROFILE,
                              OSMESA_CONTEXT_MAJOR_VERSION,
                              3,
                              OSMESA_CONTEXT_MINOR_VERSION,
                              3,
                              0};
    OSMesaContext context = OSMesaCreateContextAttribs(attributes, NULL);
    static unsigned char dummy[4];
    if (!context || !OSMesaMakeCurrent(context, dummy, GL_UNSIGNED_BYTE, 1, 1)) {
        fprintf(stderr, "bench_llvmpipe: cannot create an OSMesa 3.3 core context\n");
        return 1;
    }
    const char *gl_renderer = (const char *)glGetString(GL_RENDERER);
    if (!gl_renderer || !strstr(gl_renderer, "llvmpipe")) {
        fprintf(stderr, "bench_llvmpipe: the renderer is \"%s\", not llvmpipe\n", gl_renderer ? gl_renderer : "?");
        return 1;
    }
    // Zero-to-one clip depth (DESIGN.md): softrast's projection matrix as it is.
    // (GL 4.5, an extension for a 3.3 context: libOSMesa does not export it.)
    PFNGLCLIPCONTROLPROC clip_control = (PFNGLCLIPCONTROLPROC)OSMesaGetProcAddress("glClipControl");
    if (!clip_control) {
        fprintf(stderr, "bench_llvmpipe: glClipControl is missing\n");
        return 1;
    }
    clip_control(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
    GLuint vao, buffers[2];
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(2, buffers);
    glBindBuffer(GL_ARRAY_BUFFER, buffers[0]);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(mesh->vertex_count * sizeof *vertices), vertices, GL_STATIC_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, buffers[1]);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(draw.index_count * sizeof(uint32_t)), mesh->indices,
                 GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(sr_shader_vertex),
                          (const void *)offsetof(sr_shader_vertex, position));
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(sr_shader_vertex),
                          (const void *)offsetof(sr_shader_vertex, normal));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    GLuint lambert = link_program(lambert_source), ids = link_program(id_source);
    set_uniforms(ids, &uniforms);
    set_uniforms(lambert, &uniforms);
    GLuint color_target = make_target(GL_RGBA8, width, height);
    glViewport(0, 0, width, height);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_CULL_FACE);
    const float background = (float)(SR_BENCH_SCENE_BACKGROUND & 0xffu) / 255.0f;
    glClearColor(background, background, background, 1.0f);
    glClearDepth(1.0);

    // With threads, softrast with one thread takes part in every round too (a renderer of its
    // own), for the ratio to one thread measured side by side as well.
    sr_renderer *single = NULL;
    if (threads > 1 && sr_renderer_create(&(sr_renderer_desc){.threads = 1}, &single, &err) != SR_OK) {
        fprintf(stderr, "bench_llvmpipe: %s\n", err.message);
        return 1;
    }
    const int entrants = single ? 3 : 2; // 0: softrast, 1: llvmpipe, 2: softrast with one thread
    double *ms[3], *ratio = calloc((size_t)runs, sizeof(double)), *thread_ratio = calloc((size_t)runs, sizeof(double));
    for (int e = 0; e < 3; e++)
        ms[e] = calloc((size_t)runs, sizeof(double));
    if (!ms[0] || !ms[1] || !ms[2] || !ratio || !thread_ratio)
        return 1;
    const double parallelism_before = machine_parallelism();
    // Round -1 warms every renderer up (llvmpipe compiles its shaders and its setup functions at
    // the first draw, softrast grows its scratch memory); then the order of the renderers
    // rotates from round to round.
    for (long run = -1; run < runs; run++) {
        double times[3] = {0.0, 0.0, 0.0};
        for (int turn = 0; turn < entrants; turn++) {
            int entrant = (int)((turn + (run + 1)) % entrants);
            double start = now_ms();
            if (entrant == 1) {
                glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
                glDrawElements(GL_TRIANGLES, (GLsizei)draw.index_count, GL_UNSIGNED_INT, NULL);
                glFinish();
            } else {
                sr_renderer *r = entrant == 0 ? renderer : single;
                sr_renderer_clear(r, fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
                if (sr_draw_triangles(r, fb, &draw, &err) != SR_OK) {
                    fprintf(stderr, "bench_llvmpipe: %s\n", err.message);
                    return 1;
                }
            }
            times[entrant] = now_ms() - start;
        }
        if (run >= 0) {
            for (int e = 0; e < entrants; e++)
                ms[e][run] = times[e];
            ratio[run] = times[0] / times[1];
            thread_ratio[run] = single ? times[0] / times[2] : 1.0;
        }
    }
    const double parallelism_after = machine_parallelism();
    // The last frame drawn into fb, for the comparison: the one with --threads.
    sr_renderer_clear(renderer, fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
    sr_draw_triangles(renderer, fb, &draw, &err);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glDrawElements(GL_TRIANGLES, (GLsizei)draw.index_count, GL_UNSIGNED_INT, NULL);
    glFinish();

    // The pictures: softrast's last frame against Mesa's, rows flipped (GL's row 0 is the bottom).
    const size_t pixels = (size_t)width * (size_t)height;
    uint32_t *mesa_color = malloc(pixels * sizeof *mesa_color), *mesa_ids = malloc(pixels * sizeof *mesa_ids);
    if (!mesa_color || !mesa_ids)
        return 1;
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, mesa_color);
    size_t color_within = 0, color_max_difference = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            uint32_t a = fb->color[(size_t)y * (size_t)width + (size_t)x];
            uint32_t b = mesa_color[(size_t)(height - 1 - y) * (size_t)width + (size_t)x];
            unsigned largest = 0;
            for (int c = 0; c < 3; c++) {
                int d = (int)(a >> (8 * c) & 0xffu) - (int)(b >> (8 * c) & 0xffu);
                unsigned magnitude = (unsigned)(d < 0 ? -d : d);
                largest = magnitude > largest ? magnitude : largest;
            }
            color_within += largest <= 2;
            color_max_difference = largest > color_max_difference ? largest : color_max_difference;
        }
    if (save_prefix) {
        char path[4096];
        snprintf(path, sizeof path, "%s_softrast.png", save_prefix);
        sr_framebuffer_save(fb, path, &err);
        for (int y = 0; y < height / 2; y++)
            for (int x = 0; x < width; x++) {
                uint32_t *top = &mesa_color[(size_t)y * (size_t)width + (size_t)x];
                uint32_t *bottom = &mesa_color[(size_t)(height - 1 - y) * (size_t)width + (size_t)x];
                uint32_t swap = *top;
                *top = *bottom;
                *bottom = swap;
            }
        snprintf(path, sizeof path, "%s_llvmpipe.png", save_prefix);
        sr_image_save(path, width, height, mesa_color, (size_t)width * sizeof(uint32_t), &err);
    }

    // Coverage: primitive ids with the depth test in both.
    sr_framebuffer *id_fb = NULL;
    if (sr_framebuffer_create(&(sr_framebuffer_desc){.width = width, .height = height, .ids = true}, &id_fb, &err) !=
        SR_OK)
        return 1;
    sr_framebuffer_clear(id_fb, 0, 1.0f);
    sr_draw_triangles(renderer, id_fb, &draw, &err);
    GLuint id_target = make_target(GL_R32UI, width, height);
    glUseProgram(ids);
    const GLuint none[4] = {SR_NO_ID, 0, 0, 0};
    glClearBufferuiv(GL_COLOR, 0, none);
    glClear(GL_DEPTH_BUFFER_BIT);
    glDrawElements(GL_TRIANGLES, (GLsizei)draw.index_count, GL_UNSIGNED_INT, NULL);
    glReadPixels(0, 0, width, height, GL_RED_INTEGER, GL_UNSIGNED_INT, mesa_ids);
    size_t covered_softrast = 0, covered_mesa = 0, only_softrast = 0, only_mesa = 0, other_triangle = 0;
    enum { EXAMPLES = 4 };
    uint32_t examples[EXAMPLES][4]; // x, y, softrast's id, llvmpipe's id of pixels covered by one only
    int example_count = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            uint32_t a = id_fb->ids[(size_t)y * (size_t)width + (size_t)x];
            uint32_t b = mesa_ids[(size_t)(height - 1 - y) * (size_t)width + (size_t)x];
            covered_softrast += a != SR_NO_ID;
            covered_mesa += b != SR_NO_ID;
            only_softrast += a != SR_NO_ID && b == SR_NO_ID;
            only_mesa += a == SR_NO_ID && b != SR_NO_ID;
            other_triangle += a != SR_NO_ID && b != SR_NO_ID && a != b;
            if ((a == SR_NO_ID) != (b == SR_NO_ID) && example_count < EXAMPLES) {
                uint32_t example[4] = {(uint32_t)x, (uint32_t)y, a, b};
                memcpy(examples[example_count++], example, sizeof example);
            }
        }
    (void)color_target;
    (void)id_target;

    double sr_median = median_of(ms[0], (int)runs), lp_median = median_of(ms[1], (int)runs);
    double single_median = single ? median_of(ms[2], (int)runs) : sr_median;
    double ratio_median = median_of(ratio, (int)runs), thread_ratio_median = median_of(thread_ratio, (int)runs);
    printf("{\"bench\": \"raster_llvmpipe\", \"mesh\": ");
    print_json_string(mesh_path);
    printf(", \"triangles\": %zu, \"size\": [%d, %d], \"threads\": %ld, \"llvmpipe_threads\": %ld, \"runs\": %ld, "
           "\"softrast_ms\": %.3f, \"llvmpipe_ms\": %.3f, \"ratio\": %.3f, \"softrast_1_thread_ms\": %.3f, "
           "\"ratio_to_1_thread\": %.3f, \"machine_parallelism\": [%.2f, %.2f], "
           "\"color_within_2\": %.5f, \"color_max_difference\": %zu, "
           "\"covered\": {\"softrast\": %zu, \"llvmpipe\": %zu, \"only_softrast\": %zu, \"only_llvmpipe\": %zu, "
           "\"other_triangle\": %zu}, \"coverage_examples\": [",
           mesh->triangle_count, width, height, threads, lp_threads, runs, sr_median, lp_median, ratio_median,
           single_median, thread_ratio_median, parallelism_before, parallelism_after,
           (double)color_within / (double)pixels, color_max_difference, covered_softrast, covered_mesa, only_softrast,
           only_mesa, other_triangle);
    for (int e = 0; e < example_count; e++)
        printf("%s{\"x\": %u, \"y\": %u, \"softrast_id\": %d, \"llvmpipe_id\": %d}", e ? ", " : "", examples[e][0],
               examples[e][1], examples[e][2] == SR_NO_ID ? -1 : (int)examples[e][2],
               examples[e][3] == SR_NO_ID ? -1 : (int)examples[e][3]);
    printf("], \"renderer\": ");
    print_json_string(gl_renderer);
    printf("}\n");

    free(mesa_color);
    free(mesa_ids);
    for (int e = 0; e < 3; e++)
        free(ms[e]);
    free(ratio);
    free(thread_ratio);
    sr_renderer_destroy(single);
    OSMesaDestroyContext(context);
    sr_framebuffer_destroy(id_fb);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_free(vertices);
    sr_mesh_destroy(mesh);
    return 0;
}
