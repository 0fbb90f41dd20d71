/* src/raster/pool.c — the worker threads of a renderer created with threads > 1: a job (a
 * function and its data) is started on every worker at once and the caller runs its own share as
 * worker 0; waiting threads (workers for the next job, the caller for the end of one, anyone for
 * a phase of a job) spin briefly on atomics, then sleep on a condition variable. Knows nothing of
 * what the jobs draw. */
#include "raster_internal.h"

#include <pthread.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

struct sr_worker_start {
    sr_worker_pool *pool;
    int index;
};

struct sr_worker_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done, progress;
    void (*job)(void *data, int worker); ///< written under `lock` before `generation` changes
    void *data;
    _Atomic uint64_t generation; ///< incremented per job (and to quit); jobs are numbered 1, 2, ...
    _Atomic uint64_t finished;   ///< workers that have finished the current job
    _Atomic bool quit;
    int count;
    pthread_t threads[SR_MAX_THREADS - 1];
    struct sr_worker_start starts[SR_MAX_THREADS - 1];
};

/// How long a waiting thread spins before it sleeps. Long enough to cover the hand-over between
/// the phases of a draw and between back-to-back draws, short enough to waste little.
#define SPIN_NANOSECONDS 200000

static uint64_t monotonic_nanoseconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Spins until *value == target (true) or SPIN_NANOSECONDS have passed (false). */
static bool spin_until(const _Atomic uint64_t *value, uint64_t target)
{
    uint64_t deadline = 0;
    for (unsigned round = 1;; round++) {
        if (atomic_load_explicit(value, memory_order_acquire) == target)
            return true;
        if (round % 64 == 0) {
            // Reading the clock every round would cost more than the pause.
            uint64_t now = monotonic_nanoseconds();
            if (deadline == 0)
                deadline = now + SPIN_NANOSECONDS;
            else if (now > deadline)
                return false;
        }
#if defined(__SSE2__)
        _mm_pause(); // tells the core (and a hypervisor) that this is a spin loop
#endif
    }
}

/* Waits until *value == target: spins first, then sleeps on `cond`. Whoever makes the value reach
 * the target calls announce(pool, cond) afterwards, so a sleeper cannot miss it: it re-checks the
 * value under the lock that announce takes. */
static void wait_until(sr_worker_pool *pool, pthread_cond_t *cond, const _Atomic uint64_t *value, uint64_t target)
{
    if (spin_until(value, target))
        return;
    pthread_mutex_lock(&pool->lock);
    while (atomic_load_explicit(value, memory_order_acquire) != target)
        pthread_cond_wait(cond, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}

static void announce(sr_worker_pool *pool, pthread_cond_t *cond)
{
    pthread_mutex_lock(&pool->lock);
    pthread_cond_broadcast(cond);
    pthread_mutex_unlock(&pool->lock);
}

static void *worker_main(void *argument)
{
    struct sr_worker_start *start = argument;
    sr_worker_pool *pool = start->pool;
    for (uint64_t seen = 0;; seen++) {
        // Jobs are numbered 1, 2, ...: the caller starts job seen + 1 only once this worker has
        // finished job seen. Quitting also advances the number, to wake the workers.
        wait_until(pool, &pool->wake, &pool->generation, seen + 1);
        if (atomic_load_explicit(&pool->quit, memory_order_acquire))
            break;
        pool->job(pool->data, start->index);
        if (atomic_fetch_add_explicit(&pool->finished, 1, memory_order_acq_rel) + 1 == (uint64_t)pool->count)
            announce(pool, &pool->done);
    }
    return NULL;
}

/* Stops and joins the first `started` workers and frees the pool. */
static void destroy_started(sr_worker_pool *pool, int started)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    atomic_store_explicit(&pool->quit, true, memory_order_release);
    atomic_fetch_add_explicit(&pool->generation, 1, memory_order_release);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < started; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->progress);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    sr_free(pool);
}

sr_status sr_pool_create(int count, sr_worker_pool **out, sr_error *err)
{
    sr_worker_pool *pool = sr_calloc(1, sizeof *pool);
    if (!pool)
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: out of memory");
    pool->count = count;
    atomic_init(&pool->generation, 0);
    atomic_init(&pool->finished, 0);
    atomic_init(&pool->quit, false);
    if (pthread_mutex_init(&pool->lock, NULL) != 0) {
        sr_free(pool);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: cannot create a mutex");
    }
    pthread_cond_t *conds[3] = {&pool->wake, &pool->done, &pool->progress};
    for (int i = 0; i < 3; i++) {
        if (pthread_cond_init(conds[i], NULL) != 0) {
            while (i-- > 0)
                pthread_cond_destroy(conds[i]);
            pthread_mutex_destroy(&pool->lock);
            sr_free(pool);
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: cannot create a condition variable");
        }
    }
    for (int i = 0; i < count; i++) {
        pool->starts[i] = (struct sr_worker_start){pool, i + 1};
        if (pthread_create(&pool->threads[i], NULL, worker_main, &pool->starts[i]) != 0) {
            destroy_started(pool, i);
            return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "sr_renderer_create: cannot start worker thread %d of %d",
                                i + 1, count);
        }
    }
    *out = pool;
    return SR_OK;
}

/* Starts job(data, worker) on the workers 1..count; the caller then runs its own share as worker
 * 0 and calls pool_finish. */
void sr_pool_start(sr_worker_pool *pool, void (*job)(void *, int), void *data)
{
    pthread_mutex_lock(&pool->lock);
    pool->job = job;
    pool->data = data;
    atomic_store_explicit(&pool->finished, 0, memory_order_relaxed);
    // Release: a worker that sees the new number also sees job, data and finished.
    atomic_fetch_add_explicit(&pool->generation, 1, memory_order_release);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
}

/* Waits until every worker has finished the job started last. */
void sr_pool_finish(sr_worker_pool *pool)
{
    wait_until(pool, &pool->done, &pool->finished, (uint64_t)pool->count);
}

void sr_pool_destroy(sr_worker_pool *pool)
{
    if (pool)
        destroy_started(pool, pool->count);
}

void sr_pool_wait(sr_worker_pool *pool, const _Atomic uint64_t *value, uint64_t target)
{
    wait_until(pool, &pool->progress, value, target);
}

void sr_pool_announce(sr_worker_pool *pool)
{
    announce(pool, &pool->progress);
}
