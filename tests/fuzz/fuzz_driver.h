/* tests/fuzz/fuzz_driver.h — what every fuzz target of softrast shares: the byte reader that
 * turns an input into values, the check that aborts on a broken invariant, the seed corpus, and
 * the deterministic mutation engine that tests/test_fuzz.c runs where libFuzzer is not used.
 *
 * A target is a function `int f(const uint8_t *data, size_t size)` with libFuzzer's contract:
 * any bytes are valid input, it returns 0, and it abort()s (through FUZZ_CHECK) when the library
 * broke one of its documented promises. The same target runs under libFuzzer
 * (fuzz_libfuzzer.c) and under fuzz_run below. Knows nothing of the targets themselves. */
#ifndef SR_FUZZ_DRIVER_H
#define SR_FUZZ_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------------------------ */
/* Reading values out of the input bytes                                                       */

/// A cursor over a target's input. Every read past the end returns zeros, so a target decodes
/// any input, short or long, without length checks of its own.
typedef struct fuzz_reader {
    const uint8_t *data;
    size_t size;
    size_t offset;
} fuzz_reader;

fuzz_reader fuzz_reader_make(const uint8_t *data, size_t size);
/// True once every byte has been read.
bool fuzz_reader_done(const fuzz_reader *reader);
uint8_t fuzz_read_u8(fuzz_reader *reader);
/// Little-endian.
uint32_t fuzz_read_u32(fuzz_reader *reader);
/// The next four bytes as the bits of a float (little-endian): NaNs with payloads, infinities,
/// subnormals, anything.
float fuzz_read_float_bits(fuzz_reader *reader);
/// A float through a tag byte, so that mutations reach both bit patterns and the values that
/// make geometry meet: tag % 4 == 0 raw bits (as fuzz_read_float_bits), 1 a small multiple of
/// 1/32 in [-4, 4), 2 an entry of the table of interesting floats (NaN, +/-inf, +/-0, FLT_MAX,
/// FLT_MIN, 1e-45, ...), 3 a multiple of 1/256 in [-128, 128).
float fuzz_read_float(fuzz_reader *reader);
/// An enum value: usually `byte % count` (valid), but a byte >= 0xf0 reads a raw 32-bit value
/// instead, which is out of range most of the time (also negative as an int).
uint32_t fuzz_read_enum(fuzz_reader *reader, uint32_t count);

/// The floats fuzz_read_float and the mutation engine insert. Read-only.
extern const float fuzz_interesting_floats[];
extern const size_t fuzz_interesting_float_count;

/* ------------------------------------------------------------------------------------------ */
/* Allocation failures                                                                         */

/// First byte of an input that runs with allocation failures: the next byte N makes every
/// library allocation after the first N fail (through sr_set_allocator), the rest is the
/// target's usual input. Targets then accept SR_ERROR_OUT_OF_MEMORY where an allocation can
/// happen, and nothing else may change: no crash, no leak, no half-made object.
#define FUZZ_ALLOCATION_FAILURE_MARK 0xa1

/// When the next byte is FUZZ_ALLOCATION_FAILURE_MARK, reads it and the count and installs the
/// failing allocator; returns whether it did. Pair with fuzz_allocation_failures_end.
bool fuzz_allocation_failures_begin(fuzz_reader *reader);
/// Restores the default allocator; returns whether an allocation was refused since _begin.
bool fuzz_allocation_failures_end(void);
/// Whether an allocation has been refused since _begin (false when not installed).
bool fuzz_allocation_failed(void);

/* ------------------------------------------------------------------------------------------ */
/* Invariant checks                                                                            */

/// Prints "fuzz check failed at file:line: condition: message" to stderr and aborts.
_Noreturn void fuzz_fail(const char *file, int line, const char *condition, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/// Aborts with a message when `condition` is false. The message is printf-style.
#define FUZZ_CHECK(condition, ...)                                                                                     \
    do {                                                                                                               \
        if (!(condition))                                                                                              \
            fuzz_fail(__FILE__, __LINE__, #condition, __VA_ARGS__);                                                    \
    } while (0)

/* ------------------------------------------------------------------------------------------ */
/* Seeds and targets                                                                           */

/// An owned byte string.
typedef struct fuzz_input {
    uint8_t *data;
    size_t size;
} fuzz_input;

/// A growable list of inputs (the seeds of a target). Zero-initialise, free with
/// fuzz_corpus_free. Allocation failures abort: this is test code.
typedef struct fuzz_corpus {
    fuzz_input *inputs;
    size_t count, capacity;
} fuzz_corpus;

/// Appends a copy of `size` bytes.
void fuzz_corpus_add(fuzz_corpus *corpus, const void *data, size_t size);
/// Appends a copy of a NUL-terminated text (without the NUL).
void fuzz_corpus_add_text(fuzz_corpus *corpus, const char *text);
/// Appends `counts` copies of input `index` that run with allocation failures: prefixed with
/// FUZZ_ALLOCATION_FAILURE_MARK and N, so that every allocation after the first N fails, for
/// N = 0 .. counts - 1.
void fuzz_corpus_add_failing(fuzz_corpus *corpus, size_t index, uint8_t counts);
void fuzz_corpus_free(fuzz_corpus *corpus);

/// A seed being written byte by byte in a target's add_seeds; bytes past the capacity are dropped.
/// Start from `{.size = 0}`, add it with fuzz_corpus_add(corpus, w.bytes, w.size).
typedef struct fuzz_seed_writer {
    uint8_t bytes[2048];
    size_t size;
} fuzz_seed_writer;

void fuzz_seed_put(fuzz_seed_writer *writer, uint8_t byte);

/// Everything known about one target.
typedef struct fuzz_target {
    const char *name;                                        ///< "obj", "draw", ...
    int (*test_one_input)(const uint8_t *data, size_t size); ///< libFuzzer's contract
    void (*add_seeds)(fuzz_corpus *corpus);                  ///< the seed inputs, written in code
    const char *const *tokens;                               ///< text tokens to insert (NULL: none)
    size_t token_count;
    size_t max_size; ///< mutants never grow past this many bytes
} fuzz_target;

/* ------------------------------------------------------------------------------------------ */
/* The deterministic mutation engine                                                           */

/// xorshift64* state; any value but 0 (fuzz_rng_make maps 0 to a fixed constant).
typedef struct fuzz_rng {
    uint64_t state;
} fuzz_rng;

fuzz_rng fuzz_rng_make(uint64_t seed);
uint64_t fuzz_rng_next(fuzz_rng *rng);
/// Uniform in [0, bound) for bound >= 1 (0 for bound 0).
size_t fuzz_rng_below(fuzz_rng *rng, size_t bound);

/// Applies one random mutation to data[0 .. *size) in place (capacity bytes available): bit
/// flips, bytes set to 0/0xff/0x7f/0x80, random bytes, insertions and removals, splices from
/// another corpus input, interesting floats and 32-bit integers written or inserted; for a
/// target with tokens, three times in four a text mutation instead (a token inserted, a word
/// replaced by a token, a line duplicated or removed).
void fuzz_mutate(fuzz_rng *rng, uint8_t *data, size_t *size, size_t capacity, const fuzz_corpus *corpus,
                 const fuzz_target *target);

/// What fuzz_run did.
typedef struct fuzz_report {
    size_t executions; ///< target calls (seeds plus mutants)
    size_t largest;    ///< size of the largest input run
} fuzz_report;

/// Runs `target` over each seed as is, then over `iterations` mutants (each built from a seed or
/// the previous mutant by 1 to 8 stacked mutations), deterministically from `rng_seed`. While it
/// runs, a crash (signal, sanitizer report, failed FUZZ_CHECK) first prints the input being run
/// as a C array to stderr, ready to paste as a seed. `iterations` may be overridden by the
/// environment variable FUZZ_ITERATIONS (for longer local runs).
fuzz_report fuzz_run(const fuzz_target *target, uint64_t rng_seed, size_t iterations);

#endif
