/* src/core/cpu.c — which instruction-set variant of the hot kernels runs (softrast/core.h,
 * sr_isa_active). The choice is made once per process, from the processor's CPUID bits (GCC and
 * Clang's __builtin_cpu_supports) and the build's variants (SR_ISA_DISPATCH, meson.build), and
 * may be lowered by SOFTRAST_ISA. Knows nothing of the kernels themselves. */
#include <softrast/core.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

bool sr_isa_available(sr_isa isa)
{
    switch (isa) {
    case SR_ISA_BUILD:
        return true;
#if defined(SR_ISA_DISPATCH)
    case SR_ISA_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
    case SR_ISA_AVX512:
        return sr_isa_available(SR_ISA_AVX2) && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw");
#endif
    default:
        return false;
    }
}

const char *sr_isa_name(sr_isa isa)
{
    switch (isa) {
    case SR_ISA_BUILD:
#if defined(__AVX512F__)
        return "native (avx512)";
#elif defined(__AVX2__)
        return "native (avx2)";
#elif defined(__x86_64__) || defined(__SSE2__)
        return "sse2";
#elif defined(__ARM_NEON)
        return "neon";
#else
        return "build";
#endif
    case SR_ISA_AVX2:
        return "avx2";
    case SR_ISA_AVX512:
        return "avx512";
    }
    return "unknown";
}

/* The limit a SOFTRAST_ISA value names; false for an unknown value. */
static bool limit_named(const char *value, sr_isa *limit)
{
    static const struct {
        const char *name;
        sr_isa limit;
    } names[] = {{"build", SR_ISA_BUILD},
                 {"sse2", SR_ISA_BUILD},
                 {"portable", SR_ISA_BUILD},
                 {"avx2", SR_ISA_AVX2},
                 {"avx512", SR_ISA_AVX512}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(value, names[i].name) == 0) {
            *limit = names[i].limit;
            return true;
        }
    return false;
}

sr_status sr_isa_check_environment(sr_error *err)
{
    const char *env = getenv("SOFTRAST_ISA");
    sr_isa limit;
    if (!env || limit_named(env, &limit))
        return SR_OK;
    return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                        "SOFTRAST_ISA=%.64s%s: unknown instruction set (expected build, sse2, portable, avx2 or "
                        "avx512, or unset it)",
                        env, strlen(env) > 64 ? "..." : "");
}

static sr_isa choose(void)
{
    sr_isa limit = SR_ISA_AVX512;
    const char *env = getenv("SOFTRAST_ISA");
    if (env && !limit_named(env, &limit))
        limit = SR_ISA_AVX512; /* unknown: no limit (sr_isa_check_environment reports it) */
    for (int isa = (int)limit; isa > (int)SR_ISA_BUILD; isa--)
        if (sr_isa_available((sr_isa)isa))
            return (sr_isa)isa;
    return SR_ISA_BUILD;
}

sr_isa sr_isa_active(void)
{
    /* -1: not decided yet. Two threads deciding at once decide alike. */
    static _Atomic int active = -1;
    int isa = atomic_load_explicit(&active, memory_order_relaxed);
    if (isa < 0) {
        isa = (int)choose();
        atomic_store_explicit(&active, isa, memory_order_relaxed);
    }
    return (sr_isa)isa;
}
