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

static sr_isa choose(void)
{
    sr_isa limit = SR_ISA_AVX512;
    const char *env = getenv("SOFTRAST_ISA");
    if (env) {
        if (strcmp(env, "build") == 0 || strcmp(env, "sse2") == 0 || strcmp(env, "portable") == 0)
            limit = SR_ISA_BUILD;
        else if (strcmp(env, "avx2") == 0)
            limit = SR_ISA_AVX2;
    }
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
