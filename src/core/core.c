/* core.c — status names, error messages and the allocator hook (softrast/core.h). */
#include <softrast/core.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

static void *default_allocate(size_t size, void *user)
{
    (void)user;
    return malloc(size);
}

static void *default_reallocate(void *pointer, size_t size, void *user)
{
    (void)user;
    return realloc(pointer, size);
}

static void default_release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

/* The documented exception to "no global mutable state": a process-wide allocator
 * configuration, as in stb (STBI_MALLOC) and Box2D (b2SetAllocator). */
static sr_allocator g_allocator = {default_allocate, default_reallocate, default_release, NULL};

const char *sr_status_name(sr_status status)
{
    switch (status) {
    case SR_OK:
        return "ok";
    case SR_ERROR_INVALID_ARGUMENT:
        return "invalid argument";
    case SR_ERROR_OUT_OF_MEMORY:
        return "out of memory";
    case SR_ERROR_IO:
        return "i/o error";
    case SR_ERROR_PARSE:
        return "parse error";
    case SR_ERROR_UNSUPPORTED:
        return "unsupported";
    case SR_ERROR_CANCELLED:
        return "cancelled";
    }
    return "unknown status";
}

sr_status sr_error_set(sr_error *err, sr_status status, const char *format, ...)
{
    if (err) {
        va_list args;
        va_start(args, format);
        err->status = status;
        vsnprintf(err->message, sizeof err->message, format, args);
        va_end(args);
    }
    return status;
}

void sr_error_clear(sr_error *err)
{
    if (err) {
        err->status = SR_OK;
        err->message[0] = '\0';
    }
}

void sr_set_allocator(const sr_allocator *allocator)
{
    if (allocator && allocator->allocate && allocator->reallocate && allocator->release)
        g_allocator = *allocator;
    else
        g_allocator = (sr_allocator){default_allocate, default_reallocate, default_release, NULL};
}

void *sr_alloc(size_t size)
{
    return g_allocator.allocate(size ? size : 1, g_allocator.user);
}

void *sr_alloc_array(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    return sr_alloc(count * size);
}

void *sr_calloc(size_t count, size_t size)
{
    void *pointer = sr_alloc_array(count, size);
    if (pointer)
        memset(pointer, 0, count * size);
    return pointer;
}

void *sr_realloc(void *pointer, size_t size)
{
    return g_allocator.reallocate(pointer, size ? size : 1, g_allocator.user);
}

void sr_free(void *pointer)
{
    if (pointer)
        g_allocator.release(pointer, g_allocator.user);
}

sr_status sr_file_read(const char *path, size_t max_size, char **out_data, size_t *out_size, sr_error *err)
{
    if (out_data)
        *out_data = NULL;
    if (out_size)
        *out_size = 0;
    if (!path || !out_data)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_file_read: %s is NULL", path ? "out_data" : "path");
    FILE *file = fopen(path, "rb");
    if (!file)
        return sr_error_set(err, SR_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat info;
    if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
        fclose(file);
        return sr_error_set(err, SR_ERROR_IO, "%s: not a regular file", path);
    }
    if ((uint64_t)info.st_size > (uint64_t)max_size) {
        fclose(file);
        return sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: %llu bytes, larger than the limit of %llu", path,
                            (unsigned long long)info.st_size, (unsigned long long)max_size);
    }
    /* One block of the size stat reports, plus one byte to notice a file that grew meanwhile. */
    size_t capacity = (size_t)info.st_size + 2;
    char *data = sr_alloc(capacity);
    if (!data) {
        fclose(file);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory for %llu bytes", path,
                            (unsigned long long)info.st_size);
    }
    size_t length = 0;
    sr_status status = SR_OK;
    for (;;) {
        size_t got = fread(data + length, 1, capacity - 1 - length, file);
        length += got;
        if (got == 0) {
            if (ferror(file))
                status = sr_error_set(err, SR_ERROR_IO, "%s: read error: %s", path, strerror(errno));
            break;
        }
        if (length == capacity - 1) {
            if (length > max_size) {
                status = sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: larger than the limit of %llu bytes", path,
                                      (unsigned long long)max_size);
                break;
            }
            size_t grown = capacity * 2;
            char *bigger = sr_realloc(data, grown);
            if (!bigger) {
                status = sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "%s: out of memory reading the file", path);
                break;
            }
            data = bigger;
            capacity = grown;
        }
    }
    fclose(file);
    if (status == SR_OK && length > max_size)
        status = sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: larger than the limit of %llu bytes", path,
                              (unsigned long long)max_size);
    if (status != SR_OK) {
        sr_free(data);
        return status;
    }
    data[length] = '\0';
    *out_data = data;
    if (out_size)
        *out_size = length;
    return SR_OK;
}

void sr_path_stem(const char *path, char *out, size_t size)
{
    if (!out || size == 0)
        return;
    out[0] = '\0';
    if (!path)
        return;
    const char *slash = strrchr(path, '/');
    const char *start = slash ? slash + 1 : path;
    const char *dot = strrchr(start, '.');
    size_t length = dot && dot > start ? (size_t)(dot - start) : strlen(start);
    if (length > size - 1)
        length = size - 1;
    memcpy(out, start, length);
    out[length] = '\0';
}

void sr_advise_huge_pages(void *block, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (size < 2 * huge)
        return;
    uintptr_t start = ((uintptr_t)block + huge - 1) & ~(huge - 1);
    uintptr_t end = ((uintptr_t)block + size) & ~(huge - 1);
    if (end > start)
        madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)block;
    (void)size;
#endif
}
