/* tests/test_budget.h — how many random cases a test runs: its full count in a plain build, a
 * smaller one under AddressSanitizer, where every case costs several times as much (the
 * sanitized run checks memory and undefined behaviour on the same kinds of cases; the release run
 * keeps the full counts). Header-only, for tests. */
#ifndef SR_TESTS_TEST_BUDGET_H
#define SR_TESTS_TEST_BUDGET_H

#if defined(__SANITIZE_ADDRESS__)
#define SR_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SR_TEST_SANITIZED 1
#endif
#endif
#ifndef SR_TEST_SANITIZED
#define SR_TEST_SANITIZED 0
#endif

/// `full` in a plain build, `sanitized` under AddressSanitizer.
#define SR_TEST_COUNT(full, sanitized) (SR_TEST_SANITIZED ? (sanitized) : (full))

#endif
