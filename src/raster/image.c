/* image.c — image and raw buffer files (softrast/raster.h): the atomic file writer, a BMP
 * encoder, PNG through stb_image_write, and raw depth/id dumps.
 * Knows the framebuffer's memory layout only; nothing of drawing or scenes. */
#include <softrast/raster.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

// Debian's libstb already holds the implementation: include the declarations only (STYLE.md).
#include <stb_image_write.h>

/* Reentrant strerror: POSIX's (XSI) strerror_r, since plain strerror may share a buffer between
 * threads that save frames at the same time. */
static const char *describe_errno(int code, char *buffer, size_t size)
{
    if (strerror_r(code, buffer, size) != 0)
        snprintf(buffer, size, "error %d", code);
    return buffer;
}

static sr_status io_error(sr_error *err, const char *path, const char *what, int code)
{
    char reason[128];
    return sr_error_set(err, SR_ERROR_IO, "%s: %s: %s", path, what, describe_errno(code, reason, sizeof reason));
}

/* Writes all of `data`, resuming after short writes and signals. Returns 0 or an errno value. */
static int write_all(int fd, const unsigned char *data, size_t size)
{
    while (size > 0) {
        ssize_t written = write(fd, data, size);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        data += written;
        size -= (size_t)written;
    }
    return 0;
}

sr_status sr_file_write_atomic(const char *path, const void *data, size_t size, sr_error *err)
{
    if (!path || (!data && size > 0))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_file_write_atomic: %s is NULL",
                            !path ? "path" : "data");

    /* An existing device or pipe (--depth /dev/stdout, a FIFO) is written in place: renaming a
     * file over it would replace the device node itself (as root, even /dev/null). */
    struct stat info;
    if (stat(path, &info) == 0 && (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode))) {
        int device = open(path, O_WRONLY | O_CLOEXEC);
        if (device < 0)
            return io_error(err, path, "cannot open", errno);
        int code = write_all(device, data, size);
        if (close(device) != 0 && code == 0)
            code = errno;
        return code == 0 ? SR_OK : io_error(err, path, "write failed", code);
    }

    /* The temporary file sits in the target's folder so that rename(2) stays on one file system,
     * where POSIX makes it atomic: readers see the old file or the complete new one. The name
     * is "<path>.tmp-<pid>-<n>", created with O_EXCL (as mkstemp does) so that two writers never
     * share it; unlike mkstemp it gets the usual 0666 & ~umask mode, as fopen would. */
    size_t name_size = strlen(path) + 48;
    char *temp_path = sr_alloc(name_size);
    if (!temp_path)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory for the temporary name", path);
    int fd = -1;
    for (unsigned attempt = 0; attempt < 1000 && fd < 0; attempt++) {
        snprintf(temp_path, name_size, "%s.tmp-%ld-%u", path, (long)getpid(), attempt);
        fd = open(temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST && errno != EINTR)
            break;
    }
    if (fd < 0) {
        sr_status status = io_error(err, path, "cannot create a temporary file beside it", errno);
        sr_free(temp_path);
        return status;
    }

    const char *failed_step = "write failed";
    int code = write_all(fd, data, size);
    // close() reports delayed write errors (NFS, full disks), so it is checked too.
    if (close(fd) != 0 && code == 0) {
        code = errno;
        failed_step = "close failed";
    }
    if (code == 0 && rename(temp_path, path) != 0) {
        code = errno;
        failed_step = "cannot rename the temporary file over it";
    }
    if (code != 0) {
        unlink(temp_path);
        sr_free(temp_path);
        return io_error(err, path, failed_step, code);
    }
    sr_free(temp_path);
    return SR_OK;
}

/* ---- BMP ------------------------------------------------------------------------------------ */

static unsigned char *put_u16(unsigned char *p, uint32_t value)
{
    p[0] = (unsigned char)value;
    p[1] = (unsigned char)(value >> 8);
    return p + 2;
}

static unsigned char *put_u32(unsigned char *p, uint32_t value)
{
    return put_u16(put_u16(p, value & 0xffffu), value >> 16);
}

enum { BMP_HEADER_SIZE = 14 + 40 }; // BITMAPFILEHEADER + BITMAPINFOHEADER

/* The most widely readable BMP: BITMAPINFOHEADER, 24 bits per pixel (B, G, R), BI_RGB, rows
 * bottom-up (positive height) and each padded to a multiple of 4 bytes (Microsoft's "Bitmap
 * Storage" documentation). Alpha is dropped. The largest image, 16384 x 16384, is 768 MiB plus
 * the header, within the format's 32-bit sizes. */
static sr_status save_bmp(const char *path, int width, int height, const unsigned char *pixels, size_t stride,
                          sr_error *err)
{
    size_t row_size = ((size_t)width * 3 + 3) & ~(size_t)3;
    size_t image_size = row_size * (size_t)height;
    size_t file_size = BMP_HEADER_SIZE + image_size;
    unsigned char *file = sr_alloc(file_size);
    if (!file)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory encoding a %dx%d BMP", path, width, height);

    unsigned char *p = file;
    *p++ = 'B';
    *p++ = 'M';
    p = put_u32(p, (uint32_t)file_size);
    p = put_u32(p, 0); // two reserved 16-bit fields
    p = put_u32(p, BMP_HEADER_SIZE);
    p = put_u32(p, 40); // BITMAPINFOHEADER size
    p = put_u32(p, (uint32_t)width);
    p = put_u32(p, (uint32_t)height); // positive: bottom-up
    p = put_u16(p, 1);                // planes
    p = put_u16(p, 24);               // bits per pixel
    p = put_u32(p, 0);                // BI_RGB, no compression
    p = put_u32(p, (uint32_t)image_size);
    p = put_u32(p, 2835); // 72 dpi in pixels per metre, horizontally
    p = put_u32(p, 2835); // and vertically
    p = put_u32(p, 0);    // colours used: none (no palette)
    p = put_u32(p, 0);    // important colours: all

    for (int y = height - 1; y >= 0; y--) {
        const unsigned char *source = pixels + (size_t)y * stride; // bytes r, g, b, a (sr_rgba8)
        unsigned char *row_start = p;
        for (int x = 0; x < width; x++, source += 4) {
            *p++ = source[2];
            *p++ = source[1];
            *p++ = source[0];
        }
        while ((size_t)(p - row_start) < row_size)
            *p++ = 0;
    }
    sr_status status = sr_file_write_atomic(path, file, file_size, err);
    sr_free(file);
    return status;
}

/* ---- PNG ------------------------------------------------------------------------------------ */

/* Collects stb_image_write's output in memory (it hands the whole file over in one call today,
 * but its contract allows several). */
typedef struct memory_sink {
    unsigned char *data;
    size_t size, capacity;
    bool out_of_memory;
} memory_sink;

static void sink_write(void *context, void *data, int size)
{
    memory_sink *sink = context;
    if (sink->out_of_memory || size <= 0)
        return;
    size_t needed = sink->size + (size_t)size;
    if (needed > sink->capacity) {
        size_t capacity = needed > 2 * sink->capacity ? needed : 2 * sink->capacity;
        unsigned char *grown = sr_realloc(sink->data, capacity);
        if (!grown) {
            sink->out_of_memory = true;
            return;
        }
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->size, data, (size_t)size);
    sink->size = needed;
}

static sr_status save_png(const char *path, int width, int height, const unsigned char *pixels, size_t stride,
                          sr_error *err)
{
    if (stride > INT_MAX)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: row stride %zu bytes is too large for PNG", path,
                            stride);
    memory_sink sink = {0};
    int ok = stbi_write_png_to_func(sink_write, &sink, width, height, 4, pixels, (int)stride);
    sr_status status;
    if (!ok || sink.out_of_memory)
        status =
            sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory encoding a %dx%d PNG", path, width, height);
    else
        status = sr_file_write_atomic(path, sink.data, sink.size, err);
    sr_free(sink.data);
    return status;
}

/* ---- Public entry points ---------------------------------------------------------------------- */

/* The extension of the file name (after the last '/'), including the dot, or "". */
static const char *file_extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot ? dot : "";
}

sr_status sr_image_save(const char *path, int width, int height, const uint32_t *rgba, size_t stride_bytes,
                        sr_error *err)
{
    if (!path || !rgba)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_image_save: %s is NULL", !path ? "path" : "pixels");
    const char *extension = file_extension(path);
    bool bmp = strcasecmp(extension, ".bmp") == 0;
    if (!bmp && strcasecmp(extension, ".png") != 0)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: unknown image extension (expected .bmp or .png)",
                            path);
    if (width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: image size %dx%d: each side must be in [1, %d]", path,
                            width, height, SR_MAX_IMAGE_SIDE);
    if (stride_bytes < (size_t)width * 4)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "%s: row stride %zu bytes is less than %d pixels", path,
                            stride_bytes, width);
    const unsigned char *pixels = (const unsigned char *)rgba;
    return bmp ? save_bmp(path, width, height, pixels, stride_bytes, err)
               : save_png(path, width, height, pixels, stride_bytes, err);
}

sr_status sr_framebuffer_save(const sr_framebuffer *fb, const char *path, sr_error *err)
{
    if (!fb)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_framebuffer_save: fb is NULL");
    return sr_image_save(path, fb->width, fb->height, fb->color, (size_t)fb->width * 4, err);
}

/* Writes `count` 32-bit words (uint32 or float32) as little-endian: the file format is fixed so
 * that tools read it the same on every machine. */
static sr_status save_words_le(const char *path, const void *words, size_t count, sr_error *err)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    unsigned char *bytes = sr_alloc_array(count, 4);
    if (!bytes)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    for (size_t i = 0; i < count; i++) {
        uint32_t word;
        memcpy(&word, (const unsigned char *)words + 4 * i, 4);
        put_u32(bytes + 4 * i, word);
    }
    sr_status status = sr_file_write_atomic(path, bytes, count * 4, err);
    sr_free(bytes);
    return status;
#else
    return sr_file_write_atomic(path, words, count * 4, err);
#endif
}

sr_status sr_framebuffer_save_depth(const sr_framebuffer *fb, const char *path, sr_error *err)
{
    if (!fb || !path)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_framebuffer_save_depth: %s is NULL",
                            !fb ? "fb" : "path");
    return save_words_le(path, fb->depth, (size_t)fb->width * (size_t)fb->height, err);
}

sr_status sr_framebuffer_save_ids(const sr_framebuffer *fb, const char *path, sr_error *err)
{
    if (!fb || !path)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_framebuffer_save_ids: %s is NULL", !fb ? "fb" : "path");
    if (!fb->ids)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "%s: the framebuffer has no id buffer (create it with .ids)", path);
    return save_words_le(path, fb->ids, (size_t)fb->width * (size_t)fb->height, err);
}
