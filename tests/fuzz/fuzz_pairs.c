/* tests/fuzz/fuzz_pairs.c — fuzz target of the pairs-file reader (src/scene/pair_file.c,
 * shape_json.c: sr_pair_set_parse) and of the queries the pairs then go through.
 *
 * The bytes are a pairs file. A failure must be an error of the parse kinds (malformed text, an
 * allocation or a hull that failed) whose message names the file and a line of it, and no set.
 * A success must give one pair per line that is neither blank nor a comment, in line order, each
 * shape valid (sr_shape_validate), its points kept as the file gave them, and then the signed
 * distance of the first pairs must be finite and within the iteration cap, and the same on a
 * second call. Inputs starting with FUZZ_ALLOCATION_FAILURE_MARK run with failing allocations
 * (then only SR_ERROR_OUT_OF_MEMORY may change the outcome). */
#include "fuzz_targets.h"

#include <softrast/collide.h>
#include <softrast/scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "fuzz/pairs.jsonl"
/* Pairs whose queries are run per input. */
#define QUERIED 4

/* Lines that hold a pair: not blank, not starting with '#' after blanks. */
static size_t count_pair_lines(const char *text, size_t size, size_t *lines)
{
    size_t pairs = 0;
    *lines = 0;
    for (size_t start = 0; start < size;) {
        const char *newline = memchr(text + start, '\n', size - start);
        size_t end = newline ? (size_t)(newline - text) : size;
        size_t i = start;
        while (i < end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r'))
            i++;
        pairs += i < end && text[i] != '#';
        (*lines)++;
        start = end + 1;
    }
    return pairs;
}

static bool finite3(sr_dvec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static void check_shape(const sr_pair_shape *side, const sr_pair *pair)
{
    sr_error err = {0};
    FUZZ_CHECK(sr_shape_validate(&side->shape, &err) == SR_OK, "line %u: shape not valid: %s", pair->line, err.message);
    sr_shape_type type = side->shape.type;
    if (type == SR_SHAPE_SEGMENT || type == SR_SHAPE_TRIANGLE || type == SR_SHAPE_HULL) {
        FUZZ_CHECK(side->points && side->point_count >= 1, "line %u: no points kept", pair->line);
        if (type != SR_SHAPE_HULL) {
            FUZZ_CHECK(side->point_count == (type == SR_SHAPE_SEGMENT ? 2u : 3u), "line %u: %zu points", pair->line,
                       side->point_count);
            FUZZ_CHECK(memcmp(side->points, side->shape.points, side->point_count * sizeof(sr_dvec3)) == 0,
                       "line %u: the shape's points differ from the file's", pair->line);
        } else {
            FUZZ_CHECK(side->shape.hull, "line %u: a hull shape without a hull", pair->line);
        }
    } else {
        FUZZ_CHECK(!side->points && side->point_count == 0, "line %u: points kept for a %s", pair->line,
                   sr_shape_type_name(type));
    }
    sr_dvec3 d = {0.6, -0.8, 0.0};
    FUZZ_CHECK(finite3(sr_shape_support(&side->shape, d)), "line %u: support point not finite", pair->line);
}

static void check_queries(const sr_pair *pair)
{
    sr_collide_result first, second;
    sr_collide_status status = sr_collide_signed_distance(&pair->a.shape, &pair->b.shape, NULL, &first);
    FUZZ_CHECK(status == SR_COLLIDE_OK, "line %u: signed distance status %d", pair->line, (int)status);
    FUZZ_CHECK(isfinite(first.distance) && finite3(first.normal) && finite3(first.point_a) && finite3(first.point_b),
               "line %u: a NaN or infinite value in the signed distance", pair->line);
    sr_collide_signed_distance(&pair->a.shape, &pair->b.shape, NULL, &second);
    FUZZ_CHECK(memcmp(&first, &second, sizeof first) == 0, "line %u: a second call answers differently", pair->line);
}

int fuzz_pairs_test_one_input(const uint8_t *data, size_t size)
{
    fuzz_reader reader = fuzz_reader_make(data, size);
    bool failing = fuzz_allocation_failures_begin(&reader);
    // (an empty input may come as NULL: no offset is added to it)
    const char *text = data ? (const char *)data + reader.offset : NULL;
    size_t length = size - reader.offset;
    sr_pair_set *set = NULL;
    sr_error err = {0};
    sr_status status = sr_pair_set_parse(text, length, NAME, &set, &err);
    bool refused = fuzz_allocation_failed();
    fuzz_allocation_failures_end();
    size_t lines = 0, pair_lines = count_pair_lines(text, length, &lines);
    if (status != SR_OK) {
        FUZZ_CHECK(!set, "a failed parse returned a set");
        FUZZ_CHECK(status == SR_ERROR_PARSE || status == SR_ERROR_INVALID_ARGUMENT ||
                       (status == SR_ERROR_OUT_OF_MEMORY && (failing || refused)),
                   "status %d: %s", (int)status, err.message);
        unsigned line = 0;
        bool named = strncmp(err.message, NAME ":", strlen(NAME ":")) == 0;
        FUZZ_CHECK(named, "the message does not name the file: %s", err.message);
        if (status != SR_ERROR_OUT_OF_MEMORY) /* running out before the first line has no line */
            FUZZ_CHECK(sscanf(err.message, NAME ":%u", &line) == 1 && line >= 1 && line <= lines,
                       "the message names no line of the file (%zu lines): %s", lines, err.message);
        return 0;
    }
    FUZZ_CHECK(set, "no set");
    FUZZ_CHECK(set->count == pair_lines, "%zu pairs for %zu pair lines", set->count, pair_lines);
    for (size_t i = 0; i < set->count; i++) {
        const sr_pair *pair = &set->pairs[i];
        FUZZ_CHECK(pair->line >= 1 && pair->line <= lines && (i == 0 || pair->line > set->pairs[i - 1].line),
                   "pair %zu at line %u", i, pair->line);
        check_shape(&pair->a, pair);
        check_shape(&pair->b, pair);
        if (i < QUERIED)
            check_queries(pair);
    }
    sr_pair_set_destroy(set);
    return 0;
}

static void add_seeds(fuzz_corpus *corpus)
{
    static const char *const seeds[] = {
        "{\"id\":1,\"a\":{\"type\":\"sphere\",\"radius\":1},\"b\":{\"type\":\"box\",\"half_extents\":[1,2,3],"
        "\"position\":[3,0,0]}}\n",
        "# two capsules\n{\"id\":2,\"a\":{\"type\":\"capsule\",\"radius\":0.5,\"half_height\":1},\"b\":{\"type\":"
        "\"capsule\",\"radius\":0.5,\"half_height\":1,\"position\":[0.5,0,0],\"rotation\":[0,0.7071067811865476,0,"
        "0.7071067811865476]}}\n\n",
        "{\"id\":3,\"a\":{\"type\":\"cylinder\",\"radius\":1,\"half_height\":0.5,\"rounding\":0.1},\"b\":{\"type\":"
        "\"cone\",\"radius\":1,\"half_height\":1,\"position\":[0,0,1.7]}}\n",
        "{\"id\":4,\"a\":{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[0.1,0.1,0.1],[1,0,0]]},"
        "\"b\":{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[1,1,0]],\"position\":[0,0,-0.5]}}\n",
        "{\"id\":5,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"segment\",\"points\":[[-1,0,0],[1,0,0]]}}\n"
        "{\"id\":6,\"a\":{\"type\":\"triangle\",\"points\":[[0,0,0],[1,0,0],[0,1,0]]},\"b\":{\"type\":\"point\","
        "\"position\":[0.2,0.2,0],\"rounding\":0.05}}\r\n",
        "{\"id\":7,\"a\":{\"type\":\"hull\",\"points\":[[2,2,2]]},\"b\":{\"type\":\"hull\",\"points\":[[0,0,0],[1e-3,0,"
        "0]"
        "],\"position\":[1000,1000,1000]}}\n",
        /* malformed */
        "{\"id\":8,\"a\":{\"type\":\"sphere\",\"radius\":-1},\"b\":{\"type\":\"point\"}}\n",
        "{\"id\":9,\"a\":{\"type\":\"box\"},\"b\":{\"type\":\"point\"}}\n",
        "{\"id\":10,\"id\":11,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}\n",
        "{\"id\":12,\"a\":{\"type\":\"blob\"},\"b\":{\"type\":\"point\"}}\n",
        "{\"id\":13,\"a\":{\"type\":\"hull\",\"points\":[]},\"b\":{\"type\":\"point\"}}\n",
        "{\"id\":14,\"a\":{\"type\":\"point\",\"rotation\":[0,0,0,0.5]},\"b\":{\"type\":\"point\"}}\n",
        "{\"id\":15,\"a\":{\"type\":\"point\",\"position\":[1e400,0,0]},\"b\":{\"type\":\"point\"}}\n",
        "{\"id\":16,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}} trailing\n",
        "{\"id\":1.5,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}\n{\"id\":",
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        fuzz_corpus_add_text(corpus, seeds[i]);
    fuzz_corpus_add_failing(corpus, 3, 12);
}

static const char *const pair_tokens[] = {
    "{\"id\":1,\"a\":",
    ",\"b\":",
    "{\"type\":\"point\"}",
    "{\"type\":\"sphere\",\"radius\":1}",
    "{\"type\":\"box\",\"half_extents\":[1,1,1]}",
    "{\"type\":\"capsule\",\"radius\":1,\"half_height\":1}",
    "{\"type\":\"cylinder\",\"radius\":1,\"half_height\":1}",
    "{\"type\":\"cone\",\"radius\":1,\"half_height\":1}",
    "{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}",
    "{\"type\":\"segment\",\"points\":[[0,0,0],[1,0,0]]}",
    "{\"type\":\"triangle\",\"points\":[[0,0,0],[1,0,0],[0,1,0]]}",
    "\"position\":[0,0,0]",
    "\"rotation\":[0,0,0,1]",
    "\"rotation\":[0.5,0.5,0.5,0.5]",
    "\"rounding\":0.1",
    "\"points\":",
    "\"radius\":",
    "\"half_height\":",
    "\"half_extents\":",
    "\"type\":",
    "[0,0,0]",
    "[1e15,-1e15,0]",
    "0",
    "-1",
    "1e-300",
    "1e400",
    "NaN",
    "null",
    "true",
    "\"x\"",
    "}",
    "{",
    "[",
    "]",
    ",",
    ":",
    "\n",
    "# comment\n",
    "\r\n",
};

const fuzz_target fuzz_target_pairs = {
    .name = "pairs",
    .test_one_input = fuzz_pairs_test_one_input,
    .add_seeds = add_seeds,
    .tokens = pair_tokens,
    .token_count = sizeof pair_tokens / sizeof pair_tokens[0],
    .max_size = 2048,
};
