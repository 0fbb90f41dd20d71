/* test_pair_file.c — pairs files (softrast/scene.h: sr_pair_set_parse / _load, src/scene/pair_file.c
 * and shape_json.c): every shape type read to the bit (numbers written with %.17g read back the
 * same), comments, blank lines and CRLF, rotations kept, normalised or refused, and every
 * malformed line refused with the file, the line and the JSON path of the value, nothing kept;
 * files that cannot be read; allocations that fail. */
#include <criterion/criterion.h>

#include <softrast/scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sr_pair_set *parse_ok(const char *text)
{
    sr_pair_set *set = NULL;
    sr_error err = {0};
    sr_status status = sr_pair_set_parse(text, strlen(text), "t.jsonl", &set, &err);
    cr_assert_eq(status, SR_OK, "refused: %s\n%s", err.message, text);
    cr_assert(set);
    return set;
}

/* The text is refused with a message that starts with `prefix` and contains `part`. */
static void refused(const char *text, const char *prefix, const char *part)
{
    sr_pair_set *set = (sr_pair_set *)1;
    sr_error err = {0};
    sr_status status = sr_pair_set_parse(text, strlen(text), "t.jsonl", &set, &err);
    cr_assert_neq(status, SR_OK, "accepted: %s", text);
    cr_assert_null(set, "a set was kept after a failure");
    cr_assert_eq(strncmp(err.message, prefix, strlen(prefix)), 0, "message '%s' does not start with '%s'", err.message,
                 prefix);
    cr_assert(strstr(err.message, part), "message '%s' does not say '%s'", err.message, part);
}

static bool same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

Test(pair_file, every_shape_type_with_its_fields)
{
    const char *text =
        "{\"id\":1,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"sphere\",\"radius\":0.5,\"rounding\":0.25}}\n"
        "{\"id\":2,\"a\":{\"type\":\"segment\",\"points\":[[0,0,-1],[0,0,1]]},\"b\":{\"type\":\"triangle\",\"points\":"
        "[[0,0,0],[1,0,0],[0,1,0]],\"position\":[1,2,3]}}\n"
        "{\"id\":-3,\"a\":{\"type\":\"box\",\"half_extents\":[1,2,3]},\"b\":{\"type\":\"capsule\",\"radius\":0.1,"
        "\"half_height\":0.7}}\n"
        "{\"id\":4,\"a\":{\"type\":\"cylinder\",\"radius\":2,\"half_height\":0},\"b\":{\"type\":\"cone\",\"radius\":1,"
        "\"half_height\":3,\"rotation\":[0,0,1,0]}}\n"
        "{\"id\":9007199254740992,\"a\":{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1],[0.1,0.1,0.1],"
        "[1,0,0]]},\"b\":{\"type\":\"hull\",\"points\":[[5,5,5]]}}\n";
    sr_pair_set *set = parse_ok(text);
    cr_assert_eq(set->count, 5);
    const sr_pair *p = set->pairs;
    cr_assert_eq(p[0].id, 1);
    cr_assert_eq(p[0].line, 1);
    cr_assert_eq(p[0].a.shape.type, SR_SHAPE_POINT);
    cr_assert_eq(p[0].b.shape.type, SR_SHAPE_SPHERE);
    cr_assert(same(p[0].b.shape.radius, 0.5) && same(p[0].b.shape.rounding, 0.25));
    cr_assert(same(p[0].b.shape.pose.rotation.w, 1.0), "the default rotation is the identity");
    cr_assert_eq(p[1].a.shape.type, SR_SHAPE_SEGMENT);
    cr_assert(same(p[1].a.shape.points[1].z, 1.0));
    cr_assert_eq(p[1].a.point_count, 2);
    cr_assert_eq(p[1].b.shape.type, SR_SHAPE_TRIANGLE);
    cr_assert(same(p[1].b.shape.points[2].y, 1.0) && same(p[1].b.shape.pose.position.z, 3.0));
    cr_assert_eq(p[2].id, -3);
    cr_assert(same(p[2].a.shape.half_extents.y, 2.0));
    cr_assert_null(p[2].a.points);
    cr_assert(same(p[2].b.shape.radius, 0.1) && same(p[2].b.shape.half_height, 0.7));
    cr_assert_eq(p[3].a.shape.type, SR_SHAPE_CYLINDER);
    cr_assert(same(p[3].a.shape.half_height, 0.0));
    cr_assert_eq(p[3].b.shape.type, SR_SHAPE_CONE);
    cr_assert(same(p[3].b.shape.pose.rotation.z, 1.0) && same(p[3].b.shape.pose.rotation.w, 0.0));
    cr_assert_eq(p[4].id, 9007199254740992ll);
    cr_assert_eq(p[4].a.shape.type, SR_SHAPE_HULL);
    cr_assert_eq(p[4].a.point_count, 6, "the hull's points are kept as written, duplicates and inside ones too");
    sr_hull_view view = sr_hull_get_view(p[4].a.shape.hull);
    cr_assert_eq(view.dimension, 3);
    cr_assert_eq(view.vertex_count, 4);
    cr_assert_eq(sr_hull_get_view(p[4].b.shape.hull).dimension, 0);
    for (size_t i = 0; i < set->count; i++) {
        sr_error err = {0};
        cr_assert_eq(sr_shape_validate(&set->pairs[i].a.shape, &err), SR_OK, "%s", err.message);
        cr_assert_eq(sr_shape_validate(&set->pairs[i].b.shape, &err), SR_OK, "%s", err.message);
    }
    sr_pair_set_destroy(set);
}

/* Doubles printed with %.17g read back to the same bits, whatever their size. */
Test(pair_file, numbers_read_back_to_the_bit)
{
    uint64_t state = 7;
    for (int round = 0; round < 200; round++) {
        double v[7];
        for (int k = 0; k < 7; k++) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            double unit = (double)(state >> 11) * 0x1p-53;
            v[k] = ldexp(unit, (int)(state % 60) - 40) * (k % 2 ? -1.0 : 1.0);
        }
        double norm = sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
        double q[4] = {v[3] / norm, v[4] / norm, v[5] / norm, v[6] / norm};
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"id\":%d,\"a\":{\"type\":\"sphere\",\"radius\":%.17g,\"position\":[%.17g,%.17g,%.17g]},\"b\":{"
                 "\"type\":\"point\",\"rotation\":[%.17g,%.17g,%.17g,%.17g]}}",
                 round, fabs(v[0]), v[0], v[1], v[2], q[0], q[1], q[2], q[3]);
        sr_pair_set *set = parse_ok(text);
        const sr_shape *a = &set->pairs[0].a.shape, *b = &set->pairs[0].b.shape;
        cr_assert(same(a->radius, fabs(v[0])) && same(a->pose.position.x, v[0]) && same(a->pose.position.y, v[1]) &&
                      same(a->pose.position.z, v[2]),
                  "%s", text);
        double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (fabs(length - 1.0) <= 4.0 * 2.220446049250313e-16) /* unit to rounding: kept as written */
            cr_assert(same(b->pose.rotation.x, q[0]) && same(b->pose.rotation.y, q[1]) &&
                          same(b->pose.rotation.z, q[2]) && same(b->pose.rotation.w, q[3]),
                      "%s", text);
        sr_pair_set_destroy(set);
    }
}

Test(pair_file, comments_blank_lines_crlf_and_no_final_newline)
{
    const char *text = "# pairs for a test\n"
                       "\n"
                       "   \t \r\n"
                       "{\"id\":7,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}\r\n"
                       "  # an indented comment {\"id\": not json\n"
                       "{\"id\":8,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}";
    sr_pair_set *set = parse_ok(text);
    cr_assert_eq(set->count, 2);
    cr_assert_eq(set->pairs[0].line, 4);
    cr_assert_eq(set->pairs[1].line, 6);
    cr_assert_eq(set->pairs[1].id, 8);
    sr_pair_set_destroy(set);
    set = parse_ok("");
    cr_assert_eq(set->count, 0);
    sr_pair_set_destroy(set);
}

Test(pair_file, rotations_normalised_near_unit_refused_otherwise)
{
    sr_pair_set *set = parse_ok("{\"id\":1,\"a\":{\"type\":\"point\",\"rotation\":[0,0,0,1.0005]},\"b\":{\"type\":"
                                "\"point\"}}");
    cr_assert(same(set->pairs[0].a.shape.pose.rotation.w, 1.0));
    sr_pair_set_destroy(set);
    refused("{\"id\":1,\"a\":{\"type\":\"point\",\"rotation\":[0,0,0,1.002]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.rotation:", "not a unit quaternion");
    refused("{\"id\":1,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"box\",\"half_extents\":[1,1,1],\"rotation\":[0,0,0,"
            "0]}}",
            "t.jsonl:1: b.rotation:", "length 0");
}

/* Each malformed line: the file and line, the JSON path of the value, and what is wrong. */
Test(pair_file, malformed_lines_name_the_line_and_the_field)
{
    const char *good = "{\"id\":1,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}\n";
    char text[512];
    snprintf(text, sizeof text, "%s%s{\"id\":2,\"a\":{\"type\":\"sphere\",\"radius\":-1},\"b\":{\"type\":\"point\"}}\n",
             good, good);
    refused(text, "t.jsonl:3: a.radius:", "negative");
    refused("{\"id\":1,", "t.jsonl:1:", "malformed JSON");
    refused("{\"id\":1,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}} {}", "t.jsonl:1:", "one pair per line");
    refused("[1,2]", "t.jsonl:1:", "expected an object");
    refused("{\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}", "t.jsonl:1: id:", "missing");
    refused("{\"id\":1,\"b\":{\"type\":\"point\"}}", "t.jsonl:1: a:", "missing");
    refused("{\"id\":1,\"a\":{\"type\":\"point\"}}", "t.jsonl:1: b:", "missing");
    refused("{\"id\":1,\"c\":2,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}", "t.jsonl:1: c:", "unknown key");
    refused("{\"id\":1,\"id\":2,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: id:", "given twice");
    refused("{\"id\":1.5,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}", "t.jsonl:1: id:", "whole number");
    refused("{\"id\":\"7\",\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}", "t.jsonl:1: id:", "a string");
    refused("{\"id\":1e20,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"point\"}}", "t.jsonl:1: id:", "2^53");
    refused("{\"id\":1,\"a\":3,\"b\":{\"type\":\"point\"}}", "t.jsonl:1: a:", "expected a shape object");
    refused("{\"id\":1,\"a\":{\"radius\":1},\"b\":{\"type\":\"point\"}}", "t.jsonl:1: a.type:", "missing");
    refused("{\"id\":1,\"a\":{\"type\":4},\"b\":{\"type\":\"point\"}}", "t.jsonl:1: a.type:", "expected a string");
    refused("{\"id\":1,\"a\":{\"type\":\"blob\"},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.type:", "unknown type 'blob'");
    refused("{\"id\":1,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"sphere\"}}", "t.jsonl:1: b.radius:", "missing");
    refused("{\"id\":1,\"a\":{\"type\":\"box\"},\"b\":{\"type\":\"point\"}}", "t.jsonl:1: a.half_extents:", "missing");
    refused("{\"id\":1,\"a\":{\"type\":\"capsule\",\"radius\":1},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.half_height:", "missing");
    refused("{\"id\":1,\"a\":{\"type\":\"hull\"},\"b\":{\"type\":\"point\"}}", "t.jsonl:1: a.points:", "missing");
    refused("{\"id\":1,\"a\":{\"type\":\"sphere\",\"radius\":1,\"half_extents\":[1,1,1]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.half_extents:", "unknown key");
    refused("{\"id\":1,\"a\":{\"type\":\"sphere\",\"radius\":1,\"radius\":2},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.radius:", "given twice");
    refused("{\"id\":1,\"a\":{\"type\":\"box\",\"half_extents\":[1,-2,1]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.half_extents[1]:", "negative");
    refused("{\"id\":1,\"a\":{\"type\":\"point\",\"rounding\":-0.1},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.rounding:", "negative");
    refused("{\"id\":1,\"a\":{\"type\":\"sphere\",\"radius\":1e400},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.radius:", "outside");
    refused("{\"id\":1,\"a\":{\"type\":\"point\",\"position\":[0,1e16,0]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.position[1]:", "outside");
    refused("{\"id\":1,\"a\":{\"type\":\"point\",\"position\":[0,NaN,0]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1:", "malformed JSON");
    refused("{\"id\":1,\"a\":{\"type\":\"point\",\"position\":[0,0]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.position:", "expected 3 numbers, found 2");
    refused("{\"id\":1,\"a\":{\"type\":\"hull\",\"points\":[]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.points:", "at least one point");
    refused("{\"id\":1,\"a\":{\"type\":\"segment\",\"points\":[[0,0,0],[1,0,0],[2,0,0]]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.points:", "expected 2 points, found 3");
    refused("{\"id\":1,\"a\":{\"type\":\"hull\",\"points\":[[0,0,\"1\"]]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.points[0][2]:", "found a string");
    refused("{\"id\":1,\"a\":{\"type\":\"triangle\",\"points\":[[0,0,0],[1,0],[0,1,0]]},\"b\":{\"type\":\"point\"}}",
            "t.jsonl:1: a.points[1]:", "expected 3 numbers");
}

Test(pair_file, a_nul_byte_is_refused)
{
    const char text[] = "{\"id\":1,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"po\0int\"}}\n";
    sr_pair_set *set = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_pair_set_parse(text, sizeof text - 1, "t.jsonl", &set, &err), SR_ERROR_PARSE);
    cr_assert(strstr(err.message, "t.jsonl:1:") && strstr(err.message, "NUL"), "%s", err.message);
}

Test(pair_file, files_that_cannot_be_read)
{
    sr_pair_set *set = NULL;
    sr_error err = {0};
    cr_assert_eq(sr_pair_set_load("/nonexistent/pairs.jsonl", &set, &err), SR_ERROR_IO);
    cr_assert(strstr(err.message, "/nonexistent/pairs.jsonl"), "%s", err.message);
    cr_assert_null(set);
    cr_assert_eq(sr_pair_set_load("/tmp", &set, &err), SR_ERROR_IO);
    char path[] = "/tmp/softrast_pairs_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *line = "{\"id\":5,\"a\":{\"type\":\"point\"},\"b\":{\"type\":\"sphere\",\"radius\":2}}\n";
    cr_assert_eq(write(fd, line, strlen(line)), (ssize_t)strlen(line));
    close(fd);
    cr_assert_eq(sr_pair_set_load(path, &set, &err), SR_OK, "%s", err.message);
    cr_assert_eq(set->count, 1);
    cr_assert_eq(set->pairs[0].id, 5);
    sr_pair_set_destroy(set);
    unlink(path);
}

/* ---- allocation failures: the N-th allocation and every later one fail ---- */

static size_t allowed, made;

static void *failing_allocate(size_t size, void *user)
{
    (void)user;
    return made++ < allowed ? malloc(size) : NULL;
}

static void *failing_reallocate(void *pointer, size_t size, void *user)
{
    (void)user;
    return made++ < allowed ? realloc(pointer, size) : NULL;
}

static void release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

Test(pair_file, failed_allocations_leave_nothing)
{
    char text[16384] = "";
    for (int i = 0; i < 70; i++) /* enough pairs to grow the arrays (64 first) */
        snprintf(text + strlen(text), sizeof text - strlen(text),
                 "{\"id\":%d,\"a\":{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[0,0,%d]]},\"b\":{\"type\":"
                 "\"point\"}}\n",
                 i, i + 1);
    sr_allocator allocator = {failing_allocate, failing_reallocate, release, NULL};
    bool succeeded = false;
    /* Every count at first, then every 5th (the same paths again, pair after pair). */
    for (allowed = 0; !succeeded && allowed < 3000; allowed += allowed < 120 ? 1 : 5) {
        made = 0;
        sr_set_allocator(&allocator);
        sr_pair_set *set = NULL;
        sr_error err = {0};
        sr_status status = sr_pair_set_parse(text, strlen(text), "t.jsonl", &set, &err);
        sr_set_allocator(NULL);
        if (status == SR_OK) {
            succeeded = true;
            cr_assert_eq(set->count, 70);
            sr_pair_set_destroy(set); /* freed by malloc's free: the hook's release */
        } else {
            cr_assert_eq(status, SR_ERROR_OUT_OF_MEMORY, "allowed %zu: %s", allowed, err.message);
            cr_assert_null(set);
        }
    }
    cr_assert(succeeded);
}
