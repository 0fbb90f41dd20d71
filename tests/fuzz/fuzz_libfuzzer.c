/* tests/fuzz/fuzz_libfuzzer.c — turns one fuzz target into a libFuzzer executable. Compiled
 * once per target with -DFUZZ_TARGET=fuzz_target_<name> (see tests/fuzz/meson.build).
 *
 * LLVMFuzzerInitialize writes the target's seeds (and its text tokens as a libFuzzer
 * dictionary) when the environment variable FUZZ_SEED_DIR names a folder:
 *     FUZZ_SEED_DIR=corpus ./fuzz_obj corpus -dict=corpus.dict -max_total_time=60
 * writes corpus/seed-N and corpus.dict before libFuzzer reads them. */
#include "fuzz_targets.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_TARGET
#error "compile with -DFUZZ_TARGET=fuzz_target_<name>"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return FUZZ_TARGET.test_one_input(data, size);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *file = fopen(path, "wb");
    if (!file) {
        fprintf(stderr, "fuzz: cannot write %s\n", path);
        return;
    }
    if (size && fwrite(data, 1, size, file) != size)
        fprintf(stderr, "fuzz: short write to %s\n", path);
    fclose(file);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *folder = getenv("FUZZ_SEED_DIR");
    if (!folder || !*folder)
        return 0;
    fuzz_corpus corpus = {0};
    FUZZ_TARGET.add_seeds(&corpus);
    char path[4096];
    for (size_t i = 0; i < corpus.count; i++) {
        snprintf(path, sizeof path, "%s/seed-%zu", folder, i);
        write_file(path, corpus.inputs[i].data, corpus.inputs[i].size);
    }
    fuzz_corpus_free(&corpus);
    if (FUZZ_TARGET.token_count > 0) {
        snprintf(path, sizeof path, "%s.dict", folder);
        FILE *file = fopen(path, "w");
        if (file) {
            /* libFuzzer dictionary: one quoted token per line, \xNN for special bytes */
            for (size_t i = 0; i < FUZZ_TARGET.token_count; i++) {
                fputc('"', file);
                for (const char *p = FUZZ_TARGET.tokens[i]; *p; p++) {
                    unsigned char c = (unsigned char)*p;
                    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
                        fprintf(file, "\\x%02x", c);
                    else
                        fputc(c, file);
                }
                fputs("\"\n", file);
            }
            fclose(file);
        }
    }
    return 0;
}
