/* tests/tools/make_pairs.c — writes a pairs file (softrast/scene.h) of generated pairs: the
 * oracle's generator (tests/collide_oracle.h), the same pairs the collision tests check, for
 * `softrast collide`, `softrast bench collide` and tests/bench/bench_collide_baselines. Never run
 * by `meson test`.
 *
 *   ./build/tests/make_pairs COUNT SEED OUT
 *
 * Pair i is the generator's pair i of SEED (kinds cycle with i: apart, near-touching at +-1e-4,
 * +-1e-6 and 0 of the smaller size, shallow, deep, identical, inside, coplanar faces, parallel
 * edges; every ordered pair of the nine shape types). The file is written under a temporary name
 * and renamed. */
#include "collide_oracle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool parse_count(const char *text, unsigned long long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (text[0] == '\0' || text[0] == '-' || *end != '\0' || errno == ERANGE)
        return false;
    *out = value;
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: make_pairs COUNT SEED OUT\n", stderr);
        return 2;
    }
    unsigned long long count = 0, seed = 0;
    if (!parse_count(argv[1], &count) || count > 100000000ull) {
        fprintf(stderr, "make_pairs: COUNT '%s' is not a whole number from 0 to 100000000\n", argv[1]);
        return 2;
    }
    if (!parse_count(argv[2], &seed)) {
        fprintf(stderr, "make_pairs: SEED '%s' is not a whole number\n", argv[2]);
        return 2;
    }
    const char *path = argv[3];
    size_t length = strlen(path);
    char *temporary = malloc(length + 16);
    if (!temporary) {
        fputs("make_pairs: out of memory\n", stderr);
        return 1;
    }
    snprintf(temporary, length + 16, "%s.tmp", path);
    FILE *out = fopen(temporary, "w");
    if (!out) {
        fprintf(stderr, "make_pairs: cannot create '%s': %s\n", temporary, strerror(errno));
        free(temporary);
        return 1;
    }
    fprintf(out, "# %llu pairs of tests/collide_oracle.h's generator, seed %llu (tests/tools/make_pairs)\n", count,
            seed);
    for (unsigned long long i = 0; i < count; i++) {
        oracle_shape a, b;
        oracle_generate_pair(seed, i, &a, &b, NULL);
        oracle_print_pair(out, (long long)i, &a, &b);
    }
    bool failed = ferror(out) != 0;
    failed = fclose(out) != 0 || failed;
    if (failed || rename(temporary, path) != 0) {
        fprintf(stderr, "make_pairs: cannot write '%s': %s\n", path, strerror(errno));
        remove(temporary);
        free(temporary);
        return 1;
    }
    free(temporary);
    return 0;
}
