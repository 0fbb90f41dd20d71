/* tests/fuzz/fuzz_driver.c — the byte reader, the invariant check, seed corpora and the
 * deterministic mutation engine shared by the fuzz targets (see fuzz_driver.h).
 * Knows nothing of the targets or of softrast itself. */
#include "fuzz_driver.h"

#include <softrast/core.h>

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_HAVE_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_HAVE_SANITIZER 1
#endif
#endif
#ifdef FUZZ_HAVE_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif

/* ------------------------------------------------------------------------------------------ */
/* Reader                                                                                      */

const float fuzz_interesting_floats[] = {
    0.0f,        -0.0f,   1.0f,     -1.0f,   0.5f,     2.0f,      NAN,          -NAN,        INFINITY,
    -INFINITY,   FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 0x1p-149f, -0x1p-149f,   FLT_EPSILON, 0x1.fffffep-1f,
    16777216.0f, 1e30f,   -1e30f,   1e-30f,  0.1f,     262144.0f, 134217728.0f, 1e-20f,      3e19f,
};
const size_t fuzz_interesting_float_count = sizeof fuzz_interesting_floats / sizeof fuzz_interesting_floats[0];

static const uint32_t interesting_u32[] = {
    0u,      1u,      2u,     3u,     0x7fu,       0x80u,       0xffu,       0x7fffu,
    0x8000u, 0xffffu, 16384u, 16385u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu,
};

fuzz_reader fuzz_reader_make(const uint8_t *data, size_t size)
{
    return (fuzz_reader){data, size, 0};
}

bool fuzz_reader_done(const fuzz_reader *reader)
{
    return reader->offset >= reader->size;
}

uint8_t fuzz_read_u8(fuzz_reader *reader)
{
    return reader->offset < reader->size ? reader->data[reader->offset++] : 0;
}

uint32_t fuzz_read_u32(fuzz_reader *reader)
{
    uint32_t value = 0;
    for (int k = 0; k < 4; k++)
        value |= (uint32_t)fuzz_read_u8(reader) << (8 * k);
    return value;
}

float fuzz_read_float_bits(fuzz_reader *reader)
{
    uint32_t bits = fuzz_read_u32(reader);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

float fuzz_read_float(fuzz_reader *reader)
{
    uint8_t tag = fuzz_read_u8(reader);
    switch (tag % 4) {
    case 0:
        return fuzz_read_float_bits(reader);
    case 1:
        return (float)(int8_t)fuzz_read_u8(reader) / 32.0f;
    case 2:
        return fuzz_interesting_floats[fuzz_read_u8(reader) % fuzz_interesting_float_count];
    default: {
        uint16_t low = fuzz_read_u8(reader);
        uint16_t bits = (uint16_t)(low | (uint16_t)fuzz_read_u8(reader) << 8);
        return (float)(int16_t)bits / 256.0f;
    }
    }
}

uint32_t fuzz_read_enum(fuzz_reader *reader, uint32_t count)
{
    uint8_t byte = fuzz_read_u8(reader);
    if (byte >= 0xf0)
        return fuzz_read_u32(reader);
    return count ? byte % count : byte;
}

/* ------------------------------------------------------------------------------------------ */
/* Allocation failures                                                                         */

/* The failing allocator's state: process-wide like the hook it serves (sr_set_allocator).
 * Atomic because worker threads of a renderer may allocate too. */
static atomic_uint_fast64_t allocations_left;
static atomic_bool allocation_refused;

static bool take_allocation(void)
{
    uint_fast64_t left = atomic_load(&allocations_left);
    while (left > 0)
        if (atomic_compare_exchange_weak(&allocations_left, &left, left - 1))
            return true;
    atomic_store(&allocation_refused, true);
    return false;
}

static void *failing_allocate(size_t size, void *user)
{
    (void)user;
    return take_allocation() ? malloc(size) : NULL;
}

static void *failing_reallocate(void *pointer, size_t size, void *user)
{
    (void)user;
    return take_allocation() ? realloc(pointer, size) : NULL; /* the old block stays valid */
}

static void failing_release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

bool fuzz_allocation_failures_begin(fuzz_reader *reader)
{
    if (reader->offset >= reader->size || reader->data[reader->offset] != FUZZ_ALLOCATION_FAILURE_MARK)
        return false;
    reader->offset++;
    atomic_store(&allocations_left, fuzz_read_u8(reader));
    atomic_store(&allocation_refused, false);
    sr_set_allocator(&(sr_allocator){failing_allocate, failing_reallocate, failing_release, NULL});
    return true;
}

bool fuzz_allocation_failures_end(void)
{
    sr_set_allocator(NULL);
    bool refused = atomic_load(&allocation_refused);
    atomic_store(&allocation_refused, false);
    return refused;
}

bool fuzz_allocation_failed(void)
{
    return atomic_load(&allocation_refused);
}

/* ------------------------------------------------------------------------------------------ */
/* Checks and crash reports                                                                    */

/* The input being run by fuzz_run, for the crash dump. Test-only process state: criterion runs
 * each test in its own process, and a signal handler has no other way to find it. */
static const uint8_t *current_data;
static size_t current_size;
static const char *current_name;
static size_t current_execution;
static volatile sig_atomic_t dumped;

static void write_text(const char *text)
{
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(STDERR_FILENO, text, length);
        if (written <= 0)
            return;
        text += written;
        length -= (size_t)written;
    }
}

static void write_number(size_t value)
{
    char digits[32];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0 && count < 31);
    char text[32];
    for (int k = 0; k < count; k++)
        text[k] = digits[count - 1 - k];
    text[count] = '\0';
    write_text(text);
}

/* Async-signal-safe (write only): prints the current input as a C array. */
static void dump_current_input(void)
{
    if (!current_data || dumped)
        return;
    dumped = 1;
    write_text("\n==== fuzz target '");
    write_text(current_name ? current_name : "?");
    write_text("' failed on execution ");
    write_number(current_execution);
    write_text(", input of ");
    write_number(current_size);
    write_text(" bytes (paste as a seed):\n");
    static const char hex[] = "0123456789abcdef";
    char line[16 * 6 + 2];
    size_t used = 0;
    for (size_t i = 0; i < current_size; i++) {
        uint8_t byte = current_data[i];
        line[used++] = '0';
        line[used++] = 'x';
        line[used++] = hex[byte >> 4];
        line[used++] = hex[byte & 15];
        line[used++] = ',';
        line[used++] = (i % 16 == 15 || i + 1 == current_size) ? '\n' : ' ';
        if (line[used - 1] == '\n') {
            line[used] = '\0';
            write_text(line);
            used = 0;
        }
    }
    write_text("==== end of input\n");
}

static void on_fatal_signal(int signal_number)
{
    dump_current_input();
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

#ifdef FUZZ_HAVE_SANITIZER
static void on_sanitizer_death(void)
{
    dump_current_input();
}
#endif

void fuzz_fail(const char *file, int line, const char *condition, const char *format, ...)
{
    sr_set_allocator(NULL);
    fprintf(stderr, "fuzz check failed at %s:%d: %s: ", file, line, condition);
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

/* ------------------------------------------------------------------------------------------ */
/* Corpus                                                                                      */

static void *checked_realloc(void *pointer, size_t size)
{
    void *result = realloc(pointer, size ? size : 1);
    if (!result) {
        fprintf(stderr, "fuzz driver: out of memory (%zu bytes)\n", size);
        abort();
    }
    return result;
}

void fuzz_corpus_add(fuzz_corpus *corpus, const void *data, size_t size)
{
    if (corpus->count == corpus->capacity) {
        corpus->capacity = corpus->capacity ? 2 * corpus->capacity : 16;
        corpus->inputs = checked_realloc(corpus->inputs, corpus->capacity * sizeof *corpus->inputs);
    }
    uint8_t *copy = checked_realloc(NULL, size);
    if (size)
        memcpy(copy, data, size);
    corpus->inputs[corpus->count++] = (fuzz_input){copy, size};
}

void fuzz_corpus_add_text(fuzz_corpus *corpus, const char *text)
{
    fuzz_corpus_add(corpus, text, strlen(text));
}

void fuzz_corpus_add_failing(fuzz_corpus *corpus, size_t index, uint8_t counts)
{
    for (uint8_t allowed = 0; allowed < counts; allowed++) {
        /* read after each append: fuzz_corpus_add may move the array (the bytes stay put) */
        const fuzz_input input = corpus->inputs[index];
        uint8_t *failing = checked_realloc(NULL, input.size + 2);
        failing[0] = FUZZ_ALLOCATION_FAILURE_MARK;
        failing[1] = allowed;
        if (input.size)
            memcpy(failing + 2, input.data, input.size);
        fuzz_corpus_add(corpus, failing, input.size + 2);
        free(failing);
    }
}

void fuzz_seed_put(fuzz_seed_writer *writer, uint8_t byte)
{
    if (writer->size < sizeof writer->bytes)
        writer->bytes[writer->size++] = byte;
}

void fuzz_corpus_free(fuzz_corpus *corpus)
{
    for (size_t i = 0; i < corpus->count; i++)
        free(corpus->inputs[i].data);
    free(corpus->inputs);
    *corpus = (fuzz_corpus){0};
}

/* ------------------------------------------------------------------------------------------ */
/* Mutation engine                                                                             */

fuzz_rng fuzz_rng_make(uint64_t seed)
{
    /* splitmix64 of the seed, so that nearby seeds give unrelated streams; xorshift needs != 0 */
    uint64_t z = seed + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (fuzz_rng){z ? z : 0x2545f4914f6cdd1du};
}

uint64_t fuzz_rng_next(fuzz_rng *rng)
{
    /* xorshift64* (Marsaglia 2003; Vigna 2016) */
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return x * 0x2545f4914f6cdd1du;
}

size_t fuzz_rng_below(fuzz_rng *rng, size_t bound)
{
    return bound ? (size_t)(fuzz_rng_next(rng) % bound) : 0;
}

/* Makes room for `count` bytes at `at` (truncating what would pass `capacity`). Returns the
 * number of bytes of room made. */
static size_t open_gap(uint8_t *data, size_t *size, size_t capacity, size_t at, size_t count)
{
    if (at > *size)
        at = *size;
    if (count > capacity - at)
        count = capacity - at;
    size_t tail = *size - at;
    if (tail > capacity - at - count)
        tail = capacity - at - count;
    memmove(data + at + count, data + at, tail);
    *size = at + count + tail;
    return count;
}

static void insert_bytes(uint8_t *data, size_t *size, size_t capacity, size_t at, const void *bytes, size_t count)
{
    if (at > *size)
        at = *size;
    size_t room = open_gap(data, size, capacity, at, count);
    memcpy(data + at, bytes, room);
}

static void overwrite_bytes(uint8_t *data, size_t *size, size_t capacity, size_t at, const void *bytes, size_t count)
{
    if (at > *size)
        at = *size;
    if (count > capacity - at)
        count = capacity - at;
    memcpy(data + at, bytes, count);
    if (at + count > *size)
        *size = at + count;
}

/* A position for 4-byte values: half the time aligned to 4, where raw-float readers look. */
static size_t word_position(fuzz_rng *rng, size_t size)
{
    size_t at = fuzz_rng_below(rng, size + 1);
    return fuzz_rng_below(rng, 2) ? at & ~(size_t)3 : at;
}

static void mutate_bytes(fuzz_rng *rng, uint8_t *data, size_t *size, size_t capacity, const fuzz_corpus *corpus)
{
    static const uint8_t interesting_bytes[] = {0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe, 0x20, 0x0a};
    switch (fuzz_rng_below(rng, 12)) {
    case 0: /* flip one bit */
        if (*size)
            data[fuzz_rng_below(rng, *size)] ^= (uint8_t)(1u << fuzz_rng_below(rng, 8));
        break;
    case 1: /* a byte set to an interesting value */
        if (*size)
            data[fuzz_rng_below(rng, *size)] = interesting_bytes[fuzz_rng_below(rng, sizeof interesting_bytes)];
        break;
    case 2: /* a random byte */
        if (*size)
            data[fuzz_rng_below(rng, *size)] = (uint8_t)fuzz_rng_next(rng);
        break;
    case 3: { /* small arithmetic on a byte */
        if (*size) {
            size_t at = fuzz_rng_below(rng, *size);
            data[at] = (uint8_t)(data[at] + (int)fuzz_rng_below(rng, 33) - 16);
        }
        break;
    }
    case 4: { /* insert 1..4 random bytes */
        uint8_t bytes[4];
        size_t count = 1 + fuzz_rng_below(rng, 4);
        for (size_t k = 0; k < count; k++)
            bytes[k] = (uint8_t)fuzz_rng_next(rng);
        insert_bytes(data, size, capacity, fuzz_rng_below(rng, *size + 1), bytes, count);
        break;
    }
    case 5: { /* remove a range */
        if (*size) {
            size_t at = fuzz_rng_below(rng, *size);
            size_t count = 1 + fuzz_rng_below(rng, *size - at < 16 ? *size - at : 16);
            memmove(data + at, data + at + count, *size - at - count);
            *size -= count;
        }
        break;
    }
    case 6: { /* splice a chunk of another input in (insert or overwrite) */
        const fuzz_input *other = &corpus->inputs[fuzz_rng_below(rng, corpus->count)];
        if (other->size == 0)
            break;
        size_t from = fuzz_rng_below(rng, other->size);
        size_t count = 1 + fuzz_rng_below(rng, other->size - from);
        size_t at = fuzz_rng_below(rng, *size + 1);
        if (fuzz_rng_below(rng, 2))
            insert_bytes(data, size, capacity, at, other->data + from, count);
        else
            overwrite_bytes(data, size, capacity, at, other->data + from, count);
        break;
    }
    case 7: { /* an interesting float written over 4 bytes */
        float value = fuzz_interesting_floats[fuzz_rng_below(rng, fuzz_interesting_float_count)];
        overwrite_bytes(data, size, capacity, word_position(rng, *size), &value, sizeof value);
        break;
    }
    case 8: { /* an interesting float inserted */
        float value = fuzz_interesting_floats[fuzz_rng_below(rng, fuzz_interesting_float_count)];
        insert_bytes(data, size, capacity, word_position(rng, *size), &value, sizeof value);
        break;
    }
    case 9: { /* an interesting 32-bit integer written over 4 bytes (little-endian) */
        uint32_t value = interesting_u32[fuzz_rng_below(rng, sizeof interesting_u32 / sizeof interesting_u32[0])];
        uint8_t bytes[4] = {(uint8_t)value, (uint8_t)(value >> 8), (uint8_t)(value >> 16), (uint8_t)(value >> 24)};
        overwrite_bytes(data, size, capacity, word_position(rng, *size), bytes, sizeof bytes);
        break;
    }
    case 10: { /* duplicate a chunk of the input itself */
        if (*size == 0)
            break;
        size_t from = fuzz_rng_below(rng, *size);
        size_t count = 1 + fuzz_rng_below(rng, *size - from < 64 ? *size - from : 64);
        uint8_t chunk[64];
        memcpy(chunk, data + from, count);
        insert_bytes(data, size, capacity, fuzz_rng_below(rng, *size + 1), chunk, count);
        break;
    }
    default: /* truncate */
        *size = fuzz_rng_below(rng, *size + 1);
        break;
    }
}

static bool is_separator(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/';
}

/* Mutations that keep a text mostly well formed, so that a parser gets past its first line:
 * tokens inserted (anywhere or at a line start), a word replaced by a token, a line duplicated
 * or removed. */
static void mutate_text(fuzz_rng *rng, uint8_t *data, size_t *size, size_t capacity, const fuzz_target *target)
{
    const char *token = target->tokens[fuzz_rng_below(rng, target->token_count)];
    size_t at = fuzz_rng_below(rng, *size + 1);
    switch (fuzz_rng_below(rng, 5)) {
    case 0: /* a token anywhere */
        insert_bytes(data, size, capacity, at, token, strlen(token));
        break;
    case 1: { /* a token at the start of a line, followed by a space unless it ends the line */
        while (at < *size && data[at] != '\n')
            at++;
        at = at < *size ? at + 1 : *size;
        size_t length = strlen(token);
        if (length > 0 && token[length - 1] != '\n')
            insert_bytes(data, size, capacity, at, " ", 1);
        insert_bytes(data, size, capacity, at, token, length);
        break;
    }
    case 2: { /* the word around `at` replaced by a token */
        size_t start = at, end = at;
        while (start > 0 && !is_separator(data[start - 1]))
            start--;
        while (end < *size && !is_separator(data[end]))
            end++;
        memmove(data + start, data + end, *size - end);
        *size -= end - start;
        insert_bytes(data, size, capacity, start, token, strlen(token));
        break;
    }
    default: { /* the line around `at` duplicated or removed */
        size_t start = at, end = at;
        while (start > 0 && data[start - 1] != '\n')
            start--;
        while (end < *size && data[end] != '\n')
            end++;
        end = end < *size ? end + 1 : end;
        size_t length = end - start;
        if (fuzz_rng_below(rng, 2) && length <= 256) {
            uint8_t line[256];
            memcpy(line, data + start, length);
            insert_bytes(data, size, capacity, end, line, length);
        } else {
            memmove(data + start, data + end, *size - end);
            *size -= length;
        }
        break;
    }
    }
}

void fuzz_mutate(fuzz_rng *rng, uint8_t *data, size_t *size, size_t capacity, const fuzz_corpus *corpus,
                 const fuzz_target *target)
{
    if (target->token_count > 0 && fuzz_rng_below(rng, 4) != 0)
        mutate_text(rng, data, size, capacity, target);
    else
        mutate_bytes(rng, data, size, capacity, corpus);
}

static void install_crash_dump(void)
{
    static const int signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_fatal_signal;
        sigemptyset(&action.sa_mask);
        sigaction(signals[i], &action, NULL);
    }
#ifdef FUZZ_HAVE_SANITIZER
    __sanitizer_set_death_callback(on_sanitizer_death);
#endif
}

static void run_one(const fuzz_target *target, const uint8_t *data, size_t size, fuzz_report *report)
{
    /* A private copy of exactly `size` bytes: ASan then flags any read past the input's end. */
    uint8_t *copy = checked_realloc(NULL, size);
    if (size)
        memcpy(copy, data, size);
    current_data = copy;
    current_size = size;
    current_execution = report->executions;
    target->test_one_input(size ? copy : NULL, size);
    current_data = NULL;
    free(copy);
    report->executions++;
    if (size > report->largest)
        report->largest = size;
}

fuzz_report fuzz_run(const fuzz_target *target, uint64_t rng_seed, size_t iterations)
{
    const char *override = getenv("FUZZ_ITERATIONS");
    if (override && *override)
        iterations = (size_t)strtoull(override, NULL, 10);
    fuzz_corpus corpus = {0};
    target->add_seeds(&corpus);
    if (corpus.count == 0)
        fuzz_corpus_add(&corpus, "", 0);
    current_name = target->name;
    install_crash_dump();

    fuzz_report report = {0, 0};
    for (size_t i = 0; i < corpus.count; i++)
        run_one(target, corpus.inputs[i].data, corpus.inputs[i].size, &report);

    size_t capacity = target->max_size ? target->max_size : 4096;
    uint8_t *mutant = checked_realloc(NULL, capacity);
    size_t mutant_size = 0;
    bool have_previous = false;
    fuzz_rng rng = fuzz_rng_make(rng_seed);
    for (size_t i = 0; i < iterations; i++) {
        /* A quarter of the mutants build on the previous one, to reach deeper than one step. */
        if (!have_previous || fuzz_rng_below(&rng, 4) != 0) {
            const fuzz_input *base = &corpus.inputs[fuzz_rng_below(&rng, corpus.count)];
            mutant_size = base->size < capacity ? base->size : capacity;
            memcpy(mutant, base->data, mutant_size);
        }
        size_t stacked = 1 + fuzz_rng_below(&rng, fuzz_rng_below(&rng, 2) ? 2 : 8);
        for (size_t k = 0; k < stacked; k++)
            fuzz_mutate(&rng, mutant, &mutant_size, capacity, &corpus, target);
        run_one(target, mutant, mutant_size, &report);
        have_previous = true;
    }
    free(mutant);
    fuzz_corpus_free(&corpus);
    return report;
}
