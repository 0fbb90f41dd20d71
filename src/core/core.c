/* core.c — status names, error messages and the allocator hook (softrast/core.h). */
#include <softrast/core.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
