/* tests/alloc_watch.h — the library's allocations watched through its hook (sr_set_allocator):
 * how many requests, the largest, and requests past a limit refused (and counted). Passed on to
 * malloc, realloc and free, so the hook may come and go around the calls a test watches.
 *
 *   watch w = {.limit = SIZE_MAX};
 *   sr_set_allocator(&(sr_allocator){watch_allocate, watch_reallocate, watch_release, &w});
 *   ... the calls watched ...
 *   sr_set_allocator(NULL); */
#ifndef SOFTRAST_TESTS_ALLOC_WATCH_H
#define SOFTRAST_TESTS_ALLOC_WATCH_H

#include <softrast/core.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct watch {
    size_t allocations; ///< requests (allocations and reallocations), refused ones included
    size_t largest;
    size_t limit; ///< requests above it fail (and are counted)
    size_t refused;
} watch;

/* Counts a request of `size` bytes; false when it is past the limit (refused). */
static inline bool watch_grants(watch *w, size_t size)
{
    w->allocations++;
    if (size > w->largest)
        w->largest = size;
    if (size > w->limit) {
        w->refused++;
        return false;
    }
    return true;
}

static inline void *watch_allocate(size_t size, void *user)
{
    return watch_grants(user, size) ? malloc(size) : NULL;
}

static inline void *watch_reallocate(void *pointer, size_t size, void *user)
{
    return watch_grants(user, size) ? realloc(pointer, size) : NULL;
}

static inline void watch_release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

#endif
