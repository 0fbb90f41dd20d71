/* test_cli_collide.c — `softrast collide` (src/app/cmd_collide.c): every query's lines, in input
 * order, carry exactly the library's answers (numbers read back to the same bits) on 240 generated
 * pairs of every type and kind; standard output without --out; usage errors exit 2, failures
 * exit 1 naming the file and line, and leave no output file (an existing one untouched). */
#include <criterion/criterion.h>

#include "collide_oracle.h"
#include "run_program.h"

#include <softrast/collide.h>
#include <softrast/scene.h>

#include <cJSON.h>
#include <math.h>

#if defined(__SANITIZE_ADDRESS__)
#define PAIRS 60
#else
#define PAIRS 240
#endif

static void write_pairs(const char *path, uint64_t seed, int count)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("# generated pairs\n", f);
    for (int i = 0; i < count; i++) {
        oracle_shape a, b;
        oracle_generate_pair(seed, (uint64_t)i, &a, &b, NULL);
        oracle_print_pair(f, 1000 + i, &a, &b);
    }
    fclose(f);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static bool same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static double number(const cJSON *line, const char *key, int line_number)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(line, key);
    cr_assert(cJSON_IsNumber(item), "line %d: no number \"%s\"", line_number, key);
    return item->valuedouble;
}

static sr_dvec3 vector(const cJSON *line, const char *key, int line_number)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(line, key);
    cr_assert(cJSON_IsArray(item) && cJSON_GetArraySize(item) == 3, "line %d: no vector \"%s\"", line_number, key);
    double v[3];
    for (int k = 0; k < 3; k++) {
        const cJSON *c = cJSON_GetArrayItem(item, k);
        cr_assert(cJSON_IsNumber(c), "line %d: %s[%d] is not a number", line_number, key, k);
        v[k] = c->valuedouble;
    }
    return (sr_dvec3){v[0], v[1], v[2]};
}

static bool same_vector(sr_dvec3 a, sr_dvec3 b)
{
    return same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z);
}

/* Runs one query over the file and checks every line against the library's own answer. */
static void check_query(const char *folder, const char *pairs_path, const char *query)
{
    char out_path[256];
    snprintf(out_path, sizeof out_path, "%s/%s.jsonl", folder, query);
    const char *args[] = {"collide", "--pairs", pairs_path, "--out", out_path, "--query", query, NULL};
    run_result r = run(args);
    cr_assert(r.exited && r.code == 0, "collide --query %s: exit %d: %s", query, r.code, r.err);
    char summary[32];
    snprintf(summary, sizeof summary, "%d pairs", PAIRS);
    cr_assert(strstr(r.out, summary), "summary: %s", r.out);
    sr_pair_set *set = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_pair_set_load(pairs_path, &set, &err), SR_OK, "%s", err.message);
    cr_assert_eq(set->count, PAIRS);
    FILE *f = fopen(out_path, "r");
    cr_assert_not_null(f);
    char *text = NULL;
    size_t capacity = 0;
    int line_number = 0;
    for (ssize_t n; (n = getline(&text, &capacity, f)) > 0;) {
        cr_assert_lt(line_number, PAIRS, "more lines than pairs");
        const sr_pair *p = &set->pairs[line_number];
        line_number++;
        cJSON *line = cJSON_Parse(text);
        cr_assert_not_null(line, "line %d is not JSON: %s", line_number, text);
        cr_assert_eq((long long)number(line, "id", line_number), p->id, "line %d: ids out of order", line_number);
        const cJSON *hit_item = cJSON_GetObjectItemCaseSensitive(line, "hit");
        const cJSON *status = cJSON_GetObjectItemCaseSensitive(line, "status");
        sr_collide_result expected;
        memset(&expected, 0, sizeof expected);
        if (strcmp(query, "intersect") == 0) {
            bool hit = false;
            sr_dvec3 axis = {0, 0, 0};
            sr_collide_intersect(&p->a.shape, &p->b.shape, &axis, NULL, &hit);
            cr_assert(cJSON_IsBool(hit_item) && cJSON_IsTrue(hit_item) == hit, "line %d: hit", line_number);
            if (!hit)
                cr_assert(same_vector(vector(line, "axis", line_number), axis), "line %d: axis", line_number);
        } else {
            sr_collide_status s =
                strcmp(query, "signed") == 0 ? sr_collide_signed_distance(&p->a.shape, &p->b.shape, NULL, &expected)
                : strcmp(query, "penetration") == 0 ? sr_collide_penetration(&p->a.shape, &p->b.shape, NULL, &expected)
                : strcmp(query, "distance") == 0    ? sr_collide_distance(&p->a.shape, &p->b.shape, NULL, &expected)
                                                    : sr_collide_sat(&p->a.shape, &p->b.shape, NULL, &expected);
            if (s == SR_COLLIDE_UNSUPPORTED) {
                cr_assert(cJSON_IsString(status) && strcmp(status->valuestring, "unsupported") == 0 && !hit_item,
                          "line %d: an unsupported query must say so", line_number);
                cJSON_Delete(line);
                continue;
            }
            cr_assert(cJSON_IsBool(hit_item) && cJSON_IsTrue(hit_item) == expected.hit, "line %d: hit", line_number);
            if (strcmp(query, "sat") == 0 && !expected.hit) {
                cr_assert(same(number(line, "separation", line_number), expected.distance), "line %d", line_number);
                cr_assert(same_vector(vector(line, "normal", line_number), expected.normal), "line %d", line_number);
            } else if (!expected.hit || strcmp(query, "distance") == 0) {
                cr_assert(same(number(line, "dist", line_number), expected.hit ? 0.0 : expected.distance),
                          "line %d: dist", line_number);
                cr_assert(same_vector(vector(line, "pa", line_number), expected.point_a), "line %d: pa", line_number);
                cr_assert(same_vector(vector(line, "pb", line_number), expected.point_b), "line %d: pb", line_number);
            } else {
                cr_assert(same(number(line, "depth", line_number), -expected.distance), "line %d: depth", line_number);
                cr_assert(same_vector(vector(line, "normal", line_number), expected.normal), "line %d: normal",
                          line_number);
                cr_assert(same_vector(vector(line, "pa", line_number), expected.point_a), "line %d: pa", line_number);
                cr_assert(same_vector(vector(line, "pb", line_number), expected.point_b), "line %d: pb", line_number);
            }
            if (s == SR_COLLIDE_ITERATION_CAP)
                cr_assert(cJSON_IsString(status) && strcmp(status->valuestring, "iteration_cap") == 0, "line %d",
                          line_number);
            else
                cr_assert_null(status, "line %d: a status on an answer that has none", line_number);
        }
        cJSON_Delete(line);
    }
    free(text);
    fclose(f);
    cr_assert_eq(line_number, PAIRS, "%d lines for %d pairs", line_number, PAIRS);
    sr_pair_set_destroy(set);
}

Test(collide, every_query_prints_the_library_answers, .timeout = 120)
{
    char folder[64];
    make_temp_dir(folder);
    char pairs_path[128];
    snprintf(pairs_path, sizeof pairs_path, "%s/pairs.jsonl", folder);
    write_pairs(pairs_path, 5, PAIRS);
    const char *queries[] = {"signed", "distance", "penetration", "intersect", "sat"};
    for (int q = 0; q < 5; q++)
        check_query(folder, pairs_path, queries[q]);
    remove_dir(folder);
}

Test(collide, standard_output_without_out)
{
    char folder[64];
    make_temp_dir(folder);
    char pairs_path[128];
    snprintf(pairs_path, sizeof pairs_path, "%s/pairs.jsonl", folder);
    write_text(pairs_path, "{\"id\":1,\"a\":{\"type\":\"sphere\",\"radius\":1},\"b\":{\"type\":\"sphere\",\"radius\":1,"
                           "\"position\":[3,0,0]}}\n"
                           "{\"id\":2,\"a\":{\"type\":\"box\",\"half_extents\":[1,1,1]},\"b\":{\"type\":\"box\","
                           "\"half_extents\":[1,1,1],\"position\":[1.5,0,0]}}\n");
    const char *args[] = {"collide", "--pairs", pairs_path, NULL};
    run_result r = run(args);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cr_assert(strstr(r.out, "{\"id\":1,\"hit\":false,\"dist\":1,\"pa\":[1,0,0],\"pb\":[2,0,0]}\n"), "%s", r.out);
    cr_assert(strstr(r.out, "{\"id\":2,\"hit\":true,\"depth\":0.5,\"normal\":[1,"), "%s", r.out);
    remove_dir(folder);
}

Test(collide, usage_errors_exit_2)
{
    const char *cases[][8] = {
        {"collide", NULL},
        {"collide", "--pairs", NULL},
        {"collide", "--pairs", "p.jsonl", "--query", "nearest", NULL},
        {"collide", "--pairs", "p.jsonl", "--frobnicate", NULL},
        {"collide", "--pairs", "p.jsonl", "--max-iterations", "0", NULL},
        {"collide", "--pairs", "p.jsonl", "extra", NULL},
        {"collide", "--pairs", "p.jsonl", "--out", "", NULL},
    };
    const char *expected[] = {"missing --pairs",  "--pairs: missing value",      "--query: 'nearest'", "unknown option",
                              "--max-iterations", "unexpected argument 'extra'", "--out: empty"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r = run(cases[i]);
        cr_assert(r.exited && r.code == 2, "case %zu: exit %d", i, r.code);
        cr_assert(strstr(r.err, expected[i]), "case %zu: '%s' does not say '%s'", i, r.err, expected[i]);
    }
    const char *help[] = {"collide", "--help", NULL};
    run_result r = run(help);
    cr_assert(r.exited && r.code == 0 && strstr(r.out, "usage: softrast collide"), "%s", r.out);
}

Test(collide, failures_exit_1_and_leave_no_output)
{
    char folder[64];
    make_temp_dir(folder);
    char pairs_path[128], out_path[128], old_path[128];
    snprintf(pairs_path, sizeof pairs_path, "%s/pairs.jsonl", folder);
    snprintf(out_path, sizeof out_path, "%s/out.jsonl", folder);
    snprintf(old_path, sizeof old_path, "%s/old.jsonl", folder);
    write_text(pairs_path, "{\"id\":1,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}\n"
                           "{\"id\":2,\"a\":{\"type\":\"cone\",\"radius\":1},\"b\":{\"type\":\"point\"}}\n");
    const char *args[] = {"collide", "--pairs", pairs_path, "--out", out_path, NULL};
    run_result r = run(args);
    cr_assert(r.exited && r.code == 1, "exit %d", r.code);
    cr_assert(strstr(r.err, "pairs.jsonl:2: a.half_height: missing"), "%s", r.err);
    cr_assert_eq(file_size(out_path), -1, "an output file was left");
    write_text(old_path, "old\n");
    const char *over_old[] = {"collide", "--pairs", pairs_path, "--out", old_path, NULL};
    r = run(over_old);
    cr_assert(r.exited && r.code == 1);
    char text[16];
    read_text(old_path, text, sizeof text);
    cr_assert_str_eq(text, "old\n", "a failed run changed an existing output file");
    const char *missing[] = {"collide", "--pairs", "/nonexistent/pairs.jsonl", "--out", out_path, NULL};
    r = run(missing);
    cr_assert(r.exited && r.code == 1 && strstr(r.err, "/nonexistent/pairs.jsonl"), "%s", r.err);
    cr_assert_eq(file_size(out_path), -1);
    remove_dir(folder);
}

/* `softrast bench collide`: one JSON line with every kind's times and hits, the hits those of the
 * library's own answers; usage errors exit 2. */
Test(bench_collide, one_json_line_with_every_kind, .timeout = 120)
{
    char folder[64];
    make_temp_dir(folder);
    char pairs_path[128];
    snprintf(pairs_path, sizeof pairs_path, "%s/pairs.jsonl", folder);
    write_pairs(pairs_path, 9, 60);
    const char *args[] = {"bench", "collide", "--pairs", pairs_path, "--runs", "1", NULL};
    run_result r = run(args);
    cr_assert(r.exited && r.code == 0, "exit %d: %s", r.code, r.err);
    cJSON *line = cJSON_Parse(r.out);
    cr_assert_not_null(line, "not one JSON line: %s", r.out);
    cr_assert_eq(number(line, "pairs", 1), 60);
    const char *kinds[] = {"intersect", "distance", "penetration", "signed", "ray"};
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(line, "ns_per_query");
    const cJSON *hits = cJSON_GetObjectItemCaseSensitive(line, "hits");
    for (int k = 0; k < 5; k++) {
        cr_assert(number(ns, kinds[k], 1) > 0.0, "%s: no time", kinds[k]);
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(hits, kinds[k])), "%s: no hits", kinds[k]);
    }
    sr_pair_set *set = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_pair_set_load(pairs_path, &set, &err), SR_OK, "%s", err.message);
    size_t signed_hits = 0;
    for (size_t i = 0; i < set->count; i++) {
        sr_collide_result result;
        sr_collide_signed_distance(&set->pairs[i].a.shape, &set->pairs[i].b.shape, NULL, &result);
        signed_hits += result.hit;
    }
    cr_assert_eq((size_t)number(hits, "signed", 1), signed_hits);
    sr_pair_set_destroy(set);
    cJSON_Delete(line);
    const char *no_pairs[] = {"bench", "collide", "--runs", "3", NULL};
    r = run(no_pairs);
    cr_assert(r.exited && r.code == 2 && strstr(r.err, "missing --pairs"), "%s", r.err);
    const char *bad_runs[] = {"bench", "collide", "--pairs", pairs_path, "--runs", "0", NULL};
    r = run(bad_runs);
    cr_assert(r.exited && r.code == 2 && strstr(r.err, "--runs"), "%s", r.err);
    remove_dir(folder);
}
