/* test_core.c — status names, error messages and the allocator hook (src/core/core.c). */
#include <criterion/criterion.h>
#include <softrast/core.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(core, error_set_formats_and_returns_status)
{
    sr_error err;
    sr_status status = sr_error_set(&err, SR_ERROR_IO, "%s:%d: %s", "file.obj", 12, "broken");
    cr_assert_eq(status, SR_ERROR_IO);
    cr_assert_eq(err.status, SR_ERROR_IO);
    cr_assert_str_eq(err.message, "file.obj:12: broken");
    cr_assert_eq(sr_error_set(NULL, SR_ERROR_PARSE, "ignored"), SR_ERROR_PARSE);
    sr_error_clear(&err);
    cr_assert_eq(err.status, SR_OK);
    cr_assert_str_eq(err.message, "");
    char long_text[2000];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    sr_error_set(&err, SR_ERROR_PARSE, "%s", long_text);
    cr_assert_eq(strlen(err.message), sizeof err.message - 1, "message is truncated, not overflowed");
}

Test(core, status_names)
{
    /* Every status has the name softrast/core.h documents for it, and the names are distinct. */
    const struct {
        sr_status status;
        const char *name;
    } expected[] = {
        {SR_OK, "ok"},
        {SR_ERROR_INVALID_ARGUMENT, "invalid argument"},
        {SR_ERROR_OUT_OF_MEMORY, "out of memory"},
        {SR_ERROR_IO, "i/o error"},
        {SR_ERROR_PARSE, "parse error"},
        {SR_ERROR_UNSUPPORTED, "unsupported"},
        {SR_ERROR_CANCELLED, "cancelled"},
    };
    const size_t count = sizeof expected / sizeof expected[0];
    cr_assert_eq(count, (size_t)SR_ERROR_CANCELLED + 1, "a status was added: name it here");
    for (size_t i = 0; i < count; i++) {
        const char *name = sr_status_name(expected[i].status);
        cr_assert_not_null(name, "status %d", (int)expected[i].status);
        cr_assert_str_eq(name, expected[i].name, "status %d", (int)expected[i].status);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(name, sr_status_name(expected[j].status));
    }
    /* Out of range, on both sides and next to the last status: a name, never NULL. */
    const int outside[] = {SR_ERROR_CANCELLED + 1, 999, -1, INT32_MAX};
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        const char *name = sr_status_name((sr_status)outside[i]);
        cr_assert_not_null(name, "status %d", outside[i]);
        cr_assert_str_eq(name, "unknown status", "status %d", outside[i]);
    }
}

typedef struct counting {
    int allocations, releases, fail_after;
} counting;

static void *counting_allocate(size_t size, void *user)
{
    counting *c = user;
    if (c->fail_after >= 0 && c->allocations >= c->fail_after)
        return NULL;
    c->allocations++;
    return malloc(size);
}

static void *counting_reallocate(void *pointer, size_t size, void *user)
{
    counting *c = user;
    if (c->fail_after >= 0 && c->allocations >= c->fail_after)
        return NULL;
    if (!pointer)
        c->allocations++;
    return realloc(pointer, size);
}

static void counting_release(void *pointer, void *user)
{
    counting *c = user;
    if (pointer)
        c->releases++;
    free(pointer);
}

Test(core, allocator_hook_routes_every_allocation_and_can_fail)
{
    counting c = {0, 0, -1};
    sr_set_allocator(&(sr_allocator){counting_allocate, counting_reallocate, counting_release, &c});
    void *a = sr_alloc(10), *b = sr_calloc(4, 8), *r = sr_realloc(NULL, 5);
    cr_assert(a && b && r);
    cr_assert_eq(((char *)b)[31], 0);
    sr_free(a);
    sr_free(b);
    sr_free(r);
    sr_free(NULL);
    cr_assert_eq(c.allocations, 3);
    cr_assert_eq(c.releases, 3);
    c.fail_after = c.allocations;
    cr_assert_null(sr_alloc(1));
    sr_set_allocator(NULL);
    void *back = sr_alloc(1);
    cr_assert_not_null(back);
    sr_free(back);
}

Test(core, overflowing_sizes_are_refused)
{
    cr_assert_null(sr_alloc_array(SIZE_MAX / 2, 4));
    cr_assert_null(sr_calloc(SIZE_MAX / 8 + 1, 16));
    void *zero = sr_alloc(0);
    cr_assert_not_null(zero, "zero-size allocations return a unique pointer");
    sr_free(zero);
}

Test(core, path_stem_drops_the_folder_and_the_extension)
{
    char out[16];
    const struct {
        const char *path, *stem;
    } cases[] = {{"a/b/bunny.obj", "bunny"}, {"bunny", "bunny"}, {"/x/.hidden", ".hidden"}, {"dir.d/mesh", "mesh"},
                 {"a.b.c", "a.b"}, {"", ""}, {"folder/", ""}, {"a/very_long_name_indeed.obj", "very_long_name_"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sr_path_stem(cases[i].path, out, sizeof out);
        cr_assert_str_eq(out, cases[i].stem, "'%s'", cases[i].path);
    }
    sr_path_stem(NULL, out, sizeof out);
    cr_assert_str_eq(out, "");
}

/* ---- instruction sets (core.h, src/core/cpu.c) ----
 * Each criterion test runs in its own process, so each decides sr_isa_active afresh. */

static sr_isa widest_available(sr_isa limit)
{
    for (int isa = (int)limit; isa > (int)SR_ISA_BUILD; isa--)
        if (sr_isa_available((sr_isa)isa))
            return (sr_isa)isa;
    return SR_ISA_BUILD;
}

Test(isa, the_widest_available_is_chosen_and_kept)
{
    unsetenv("SOFTRAST_ISA");
    cr_assert(sr_isa_available(SR_ISA_BUILD));
    const sr_isa active = sr_isa_active();
    cr_assert_eq(active, widest_available(SR_ISA_AVX512), "chose %s", sr_isa_name(active));
    setenv("SOFTRAST_ISA", "sse2", 1); /* decided once: a later change is not seen */
    cr_assert_eq(sr_isa_active(), active);
    // AVX-512 implies AVX2 wherever the build dispatches
    cr_assert(!sr_isa_available(SR_ISA_AVX512) || sr_isa_available(SR_ISA_AVX2));
}

Test(isa, the_environment_lowers_the_choice)
{
    setenv("SOFTRAST_ISA", "sse2", 1);
    cr_assert_eq(sr_isa_active(), SR_ISA_BUILD, "chose %s", sr_isa_name(sr_isa_active()));
}

Test(isa, avx2_in_the_environment_caps_at_avx2)
{
    setenv("SOFTRAST_ISA", "avx2", 1);
    cr_assert_eq(sr_isa_active(), widest_available(SR_ISA_AVX2), "chose %s", sr_isa_name(sr_isa_active()));
}

Test(isa, an_unknown_value_is_ignored)
{
    setenv("SOFTRAST_ISA", "mmx", 1);
    cr_assert_eq(sr_isa_active(), widest_available(SR_ISA_AVX512));
}

Test(isa, the_environment_check_names_an_unknown_value)
{
    sr_error err = {0};
    unsetenv("SOFTRAST_ISA");
    cr_assert_eq(sr_isa_check_environment(&err), SR_OK);
    const char *known[] = {"build", "sse2", "portable", "avx2", "avx512"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        setenv("SOFTRAST_ISA", known[i], 1);
        cr_assert_eq(sr_isa_check_environment(&err), SR_OK, "%s", known[i]);
    }
    const char *unknown[] = {"mmx", "", "AVX2", "avx2 "};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        setenv("SOFTRAST_ISA", unknown[i], 1);
        cr_assert_eq(sr_isa_check_environment(&err), SR_ERROR_INVALID_ARGUMENT, "'%s'", unknown[i]);
        char expected[64];
        snprintf(expected, sizeof expected, "SOFTRAST_ISA=%s:", unknown[i]);
        cr_assert(strstr(err.message, expected) && strstr(err.message, "avx512"), "%s", err.message);
    }
    char long_value[300];
    memset(long_value, 'x', sizeof long_value - 1);
    long_value[sizeof long_value - 1] = '\0';
    setenv("SOFTRAST_ISA", long_value, 1);
    cr_assert_eq(sr_isa_check_environment(&err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(err.message, "...: unknown instruction set"), "%s", err.message);
}

Test(isa, avx512_in_the_environment_is_no_limit)
{
    setenv("SOFTRAST_ISA", "avx512", 1);
    cr_assert_eq(sr_isa_active(), widest_available(SR_ISA_AVX512));
}

Test(isa, names_are_distinct)
{
    const char *names[] = {sr_isa_name(SR_ISA_BUILD), sr_isa_name(SR_ISA_AVX2), sr_isa_name(SR_ISA_AVX512)};
    for (int i = 0; i < 3; i++) {
        cr_assert(names[i][0] != '\0');
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(names[i], names[j]);
    }
}
