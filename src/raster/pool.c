/* src/raster/pool.c — the worker threads of a renderer created with threads > 1: a job (a
 * function and its data) is offered to every worker at once and the caller runs its own share as
 * worker 0. A worker joins a job only while it is open: the caller closes it when its own share
 * is done and then waits only for the workers that joined, so a worker the system wakes late
 * (milliseconds, on a busy machine) never delays a draw it had no part in. Waiting threads
 * (workers for the next job, the caller for the joined workers, anyone for a phase of a job) spin
 * briefly on atomics (yielding the processor now and then, in case the thread they wait for needs
 * it), then sleep on a condition variable: an idle renderer uses no CPU.
 *
 * Where there are at least as many processors as threads (Linux), the workers are kept off the
 * processor the caller runs on when it offers a job: a sleeping worker woken by the caller was
 * otherwise often queued on the caller's own processor (the scheduler's wake-up affinity, the
 * more so in virtual machines whose idle processors are halted), where it waited for the
 * caller's time slice to end, milliseconds, while the other processor stayed idle. Measured on
 * the 2-processor VM of the benchmarks, a worker asleep for 2 ms started a job a median of
 * 1,500 µs after it was offered without this, 50 µs with it. Knows nothing of what the jobs
 * draw. */
#if defined(__linux__)
#define _GNU_SOURCE 1 /* sched_getcpu, pthread_setaffinity_np, CPU_SET */
#endif
#include "raster_internal.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// How long a waiting thread spins before it sleeps. Long enough to cover the hand-over between
/// the phases of a draw and between back-to-back draws, short enough to waste little.
#define SPIN_NANOSECONDS 200000
/// Pause instructions between two readings of the clock (and additions to `spins`).
#define SPIN_ROUNDS 64
/// Readings of the clock between two yields of the processor while spinning (about 6 µs).
#define SPIN_YIELD_EVERY 4

/// `admission`: the number of the open job << ACTIVE_BITS | the workers inside it; number 0: no
/// job is open.
#define ACTIVE_BITS 16
#define ACTIVE_MASK ((UINT64_C(1) << ACTIVE_BITS) - 1)

struct sr_worker_start {
    sr_worker_pool *pool;
    int index;
};

struct sr_worker_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done, progress;
    void (*job)(void *data, int worker); ///< written under `lock` before `generation` changes
    void *data;
    _Atomic uint64_t generation; ///< number of the job offered last (jobs are numbered 1, 2, ...)
    _Atomic uint64_t admission;  ///< see ACTIVE_BITS
    _Atomic bool quit;
    /// Pause instructions executed by waiting threads, in SPIN_ROUNDS (on a cache line of its own:
    /// the lines above are the ones the waiters read).
    _Alignas(64) _Atomic uint64_t spins;
    _Atomic uint64_t wakeups; ///< returns from sleeping on a condition variable
    _Atomic int sleeping;     ///< workers asleep waiting for a job
    int count;
#if defined(__linux__)
    /// The processors the workers may use while the caller runs on `caller_cpu` (see the top of
    /// the file): the process's own set without it. `steer` is false when there are fewer
    /// processors than threads (the caller's processor is then needed too).
    cpu_set_t allowed;
    bool steer;
    int caller_cpu; ///< -1 before the first job
#endif
    pthread_t threads[SR_MAX_THREADS - 1];
    struct sr_worker_start starts[SR_MAX_THREADS - 1];
};

static uint64_t monotonic_nanoseconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Whether *value stands where the waiter wants it: equal to `target`, or (`change`) different. */
static inline bool reached(const _Atomic uint64_t *value, uint64_t target, bool change)
{
    return (atomic_load_explicit(value, memory_order_acquire) == target) != change;
}

/* Spins until reached() (true) or SPIN_NANOSECONDS have passed (false). */
static bool spin_until(sr_worker_pool *pool, const _Atomic uint64_t *value, uint64_t target, bool change)
{
    uint64_t deadline = 0;
    for (unsigned round = 1;; round++) {
        if (reached(value, target, change))
            return true;
        if (round % SPIN_ROUNDS == 0) {
            // Reading the clock every round would cost more than the pause.
            atomic_fetch_add_explicit(&pool->spins, 1, memory_order_relaxed);
            uint64_t now = monotonic_nanoseconds();
            if (deadline == 0)
                deadline = now + SPIN_NANOSECONDS;
            else if (now > deadline)
                return false;
            // On a busy machine the thread being waited for may be waiting for this very
            // processor: let it run (when nothing else wants the processor this returns at once).
            if (round / SPIN_ROUNDS % SPIN_YIELD_EVERY == 0)
                sched_yield();
        }
#if defined(__SSE2__)
        _mm_pause(); // tells the core (and a hypervisor) that this is a spin loop
#endif
    }
}

/* Waits until reached(): spins first, then sleeps on `cond`. Whoever moves the value calls
 * announce(pool, cond) afterwards, so a sleeper cannot miss it: it re-checks the value under the
 * lock that announce takes. */
static void wait_until(sr_worker_pool *pool, pthread_cond_t *cond, const _Atomic uint64_t *value, uint64_t target,
                       bool change)
{
    if (spin_until(pool, value, target, change))
        return;
    pthread_mutex_lock(&pool->lock);
    while (!reached(value, target, change)) {
        pthread_cond_wait(cond, &pool->lock);
        atomic_fetch_add_explicit(&pool->wakeups, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&pool->lock);
}

static void announce(sr_worker_pool *pool, pthread_cond_t *cond)
{
    pthread_mutex_lock(&pool->lock);
    pthread_cond_broadcast(cond);
    pthread_mutex_unlock(&pool->lock);
}

/* Enters job `number` if it is still open. */
static bool join(sr_worker_pool *pool, uint64_t number)
{
    uint64_t current = atomic_load_explicit(&pool->admission, memory_order_relaxed);
    while (current >> ACTIVE_BITS == number)
        // Acquire: the job and its data, written before the job was opened.
        if (atomic_compare_exchange_weak_explicit(&pool->admission, &current, current + 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return true;
    return false;
}

static void *worker_main(void *argument)
{
    struct sr_worker_start *start = argument;
    sr_worker_pool *pool = start->pool;
    for (uint64_t seen = 0;;) {
        // Sleeping only here, where a worker waits for work, counts as idle.
        if (!spin_until(pool, &pool->generation, seen, true)) {
            pthread_mutex_lock(&pool->lock);
            atomic_fetch_add_explicit(&pool->sleeping, 1, memory_order_relaxed);
            while (!reached(&pool->generation, seen, true)) {
                pthread_cond_wait(&pool->wake, &pool->lock);
                atomic_fetch_add_explicit(&pool->wakeups, 1, memory_order_relaxed);
            }
            atomic_fetch_sub_explicit(&pool->sleeping, 1, memory_order_relaxed);
            pthread_mutex_unlock(&pool->lock);
        }
        if (atomic_load_explicit(&pool->quit, memory_order_acquire))
            break;
        // A worker that slept through jobs takes the newest; one that comes after the caller
        // closed it waits for the next.
        seen = atomic_load_explicit(&pool->generation, memory_order_acquire);
        if (!join(pool, seen))
            continue;
        pool->job(pool->data, start->index);
        // Release: the job's results before the caller sees this worker leave. The last worker to
        // leave a closed job tells the caller.
        if (atomic_fetch_sub_explicit(&pool->admission, 1, memory_order_acq_rel) - 1 == 0)
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
    atomic_init(&pool->admission, 0);
    atomic_init(&pool->quit, false);
    atomic_init(&pool->spins, 0);
    atomic_init(&pool->wakeups, 0);
    atomic_init(&pool->sleeping, 0);
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
#if defined(__linux__)
    CPU_ZERO(&pool->allowed);
    pool->steer = sched_getaffinity(0, sizeof pool->allowed, &pool->allowed) == 0 &&
                  CPU_COUNT(&pool->allowed) >= count + 1;
    pool->caller_cpu = -1;
#endif
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

/* Keeps the workers off the caller's processor (see the top of the file); a system call only
 * when the caller has moved to another processor since the last job. */
static void steer_workers(sr_worker_pool *pool)
{
#if defined(__linux__)
    if (!pool->steer)
        return;
    const int cpu = sched_getcpu();
    if (cpu < 0 || cpu == pool->caller_cpu || !CPU_ISSET(cpu, &pool->allowed))
        return;
    pool->caller_cpu = cpu;
    cpu_set_t others = pool->allowed;
    CPU_CLR(cpu, &others);
    for (int i = 0; i < pool->count; i++)
        pthread_setaffinity_np(pool->threads[i], sizeof others, &others); /* advice: failure changes nothing */
#else
    (void)pool;
#endif
}

void sr_pool_start(sr_worker_pool *pool, void (*job)(void *, int), void *data)
{
    steer_workers(pool);
    pthread_mutex_lock(&pool->lock);
    pool->job = job;
    pool->data = data;
    uint64_t number = atomic_load_explicit(&pool->generation, memory_order_relaxed) + 1;
    // Release: a worker that joins also sees job and data.
    atomic_store_explicit(&pool->admission, number << ACTIVE_BITS, memory_order_release);
    atomic_store_explicit(&pool->generation, number, memory_order_release);
    // Only sleepers need the system call.
    if (atomic_load_explicit(&pool->sleeping, memory_order_relaxed) > 0)
        pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
}

void sr_pool_finish(sr_worker_pool *pool)
{
    // Close the job (no worker joins it any more), then wait for those inside to leave.
    uint64_t current = atomic_load_explicit(&pool->admission, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&pool->admission, &current, current & ACTIVE_MASK,
                                                  memory_order_acq_rel, memory_order_relaxed))
        ;
    wait_until(pool, &pool->done, &pool->admission, 0, false);
}

void sr_pool_destroy(sr_worker_pool *pool)
{
    if (pool)
        destroy_started(pool, pool->count);
}

void sr_pool_wait(sr_worker_pool *pool, const _Atomic uint64_t *value, uint64_t target)
{
    wait_until(pool, &pool->progress, value, target, false);
}

void sr_pool_announce(sr_worker_pool *pool)
{
    announce(pool, &pool->progress);
}

sr_pool_activity sr_pool_read_activity(sr_worker_pool *pool)
{
    return (sr_pool_activity){
        .spins = atomic_load_explicit(&pool->spins, memory_order_relaxed),
        .wakeups = atomic_load_explicit(&pool->wakeups, memory_order_relaxed),
        .sleeping = atomic_load_explicit(&pool->sleeping, memory_order_relaxed),
    };
}
