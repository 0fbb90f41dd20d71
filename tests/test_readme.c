/* test_readme.c — the README is true to the repository: its example programs are the files the
 * test suite builds (tests/examples/, built and run by meson test *_example), its links, anchors
 * and repository paths lead somewhere that exists in a fresh clone, and it documents every
 * command and option the `softrast` program's help lists.
 *
 * A code block the README marks with `<!-- file: PATH -->` on the line before its opening fence
 * must be the file PATH byte for byte; one marked `<!-- excerpt: PATH -->` must be a run of whole
 * lines of PATH. */
#include <criterion/criterion.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <softrast/core.h>

#include "run_program.h"

#define MAX_HEADINGS 256

/* The whole file at SR_SOURCE_DIR/relative, NUL-terminated (free with sr_free). */
static char *read_source(const char *relative, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SR_SOURCE_DIR, relative);
    char *data = NULL;
    size_t length = 0;
    sr_error err;
    cr_assert_eq(sr_file_read(path, 1u << 24, &data, &length, &err), SR_OK, "%s", err.message);
    char *text = malloc(length + 1);
    cr_assert_not_null(text);
    memcpy(text, data, length);
    text[length] = '\0';
    sr_free(data);
    if (size)
        *size = length;
    return text;
}

static bool source_exists(const char *relative)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SR_SOURCE_DIR, relative);
    struct stat info;
    return stat(path, &info) == 0;
}

/* The README split into lines (pointers into a copy; the newline of each line replaced by NUL),
 * with whether each line is inside a fenced code block (fence lines included). */
typedef struct readme {
    char *text;
    char **lines;
    bool *in_code;
    size_t count;
} readme;

static readme read_readme(void)
{
    readme r = {0};
    r.text = read_source("README.md", NULL);
    size_t capacity = 1;
    for (const char *c = r.text; *c; c++)
        capacity += *c == '\n';
    r.lines = calloc(capacity, sizeof *r.lines);
    r.in_code = calloc(capacity, sizeof *r.in_code);
    cr_assert(r.lines && r.in_code);
    bool code = false;
    for (char *line = r.text; *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        bool fence = strncmp(line, "```", 3) == 0;
        r.lines[r.count] = line;
        r.in_code[r.count] = code || fence;
        r.count++;
        if (fence)
            code = !code;
        if (!end)
            break;
        line = end + 1;
    }
    cr_assert(!code, "README.md: a code block is never closed");
    return r;
}

static void free_readme(readme *r)
{
    free(r->text);
    free(r->lines);
    free(r->in_code);
}

/* The lines of the code block whose opening fence is line `fence`, each with its newline. */
static char *code_block(const readme *r, size_t fence, size_t *closing)
{
    size_t size = 1;
    size_t i = fence + 1;
    for (; i < r->count && strncmp(r->lines[i], "```", 3) != 0; i++)
        size += strlen(r->lines[i]) + 1;
    cr_assert_lt(i, r->count, "README.md:%zu: the code block is never closed", fence + 1);
    char *block = malloc(size), *at = block;
    for (size_t j = fence + 1; j < i; j++)
        at += sprintf(at, "%s\n", r->lines[j]);
    *at = '\0';
    *closing = i;
    return block;
}

/* GitHub's anchor of a heading: lower case; letters, digits, '-' and '_' kept, spaces made '-',
 * other ASCII dropped; among other characters, the punctuation and symbols this README could use
 * (U+2000 to U+2BFF: dashes, quotes, arrows; the multiplication sign) dropped, the rest kept. */
static void heading_slug(const char *heading, char *slug, size_t size)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)heading; *c && n + 4 < size;) {
        if (*c < 0x80) {
            if (isalnum(*c) || *c == '-' || *c == '_')
                slug[n++] = (char)tolower(*c);
            else if (*c == ' ')
                slug[n++] = '-';
            c++;
            continue;
        }
        size_t length = *c >= 0xf0 ? 4 : *c >= 0xe0 ? 3 : 2;
        bool symbol = (*c == 0xe2 && c[1] >= 0x80 && c[1] <= 0xaf) || (*c == 0xc3 && c[1] == 0x97);
        for (size_t k = 0; k < length && c[k]; k++)
            if (!symbol)
                slug[n++] = (char)c[k];
        for (size_t k = 0; k < length && *c; k++)
            c++;
    }
    slug[n] = '\0';
}

/* The anchors of every heading, with GitHub's -1, -2, ... for repeated ones. */
static size_t heading_anchors(const readme *r, char anchors[][128])
{
    static char slugs[MAX_HEADINGS][128];
    size_t count = 0;
    for (size_t i = 0; i < r->count; i++) {
        const char *line = r->lines[i];
        if (r->in_code[i] || line[0] != '#')
            continue;
        line += strspn(line, "#");
        line += strspn(line, " ");
        cr_assert_lt(count, MAX_HEADINGS);
        heading_slug(line, slugs[count], sizeof slugs[count]);
        int repeats = 0;
        for (size_t j = 0; j < count; j++)
            repeats += strcmp(slugs[j], slugs[count]) == 0;
        if (repeats)
            snprintf(anchors[count], 128, "%.100s-%d", slugs[count], repeats);
        else
            snprintf(anchors[count], 128, "%s", slugs[count]);
        count++;
    }
    return count;
}

Test(readme, example_programs_are_the_files_the_tests_build)
{
    readme r = read_readme();
    int files = 0, excerpts = 0;
    bool scene_example_whole = false;
    for (size_t i = 0; i < r.count; i++) {
        char kind[16], path[256];
        if (sscanf(r.lines[i], "<!-- %15[a-z]: %255s -->", kind, path) != 2)
            continue;
        bool whole = strcmp(kind, "file") == 0;
        cr_assert(whole || strcmp(kind, "excerpt") == 0, "README.md:%zu: unknown marker '%s'", i + 1, kind);
        cr_assert(i + 1 < r.count && strncmp(r.lines[i + 1], "```", 3) == 0,
                  "README.md:%zu: a %s marker must stand on the line before a code block's opening fence", i + 1, kind);
        size_t closing;
        char *block = code_block(&r, i + 1, &closing);
        cr_assert(source_exists(path), "README.md:%zu: %s does not exist", i + 1, path);
        size_t size;
        char *file = read_source(path, &size);
        if (whole) {
            cr_assert(strcmp(block, file) == 0,
                      "README.md:%zu: the code block is not %s byte for byte (copy the file into the README)", i + 2,
                      path);
            files++;
            scene_example_whole |= strcmp(path, "tests/examples/scene_example.c") == 0;
        } else {
            // A run of whole lines: found at the start of the file or right after a newline.
            bool found = false;
            size_t length = strlen(block);
            for (const char *at = file; (at = strstr(at, block)) != NULL && !found; at++)
                found = at == file || at[-1] == '\n';
            cr_assert(length > 0 && found, "README.md:%zu: the code block is not a run of whole lines of %s", i + 2,
                      path);
            excerpts++;
        }
        free(file);
        free(block);
        i = closing;
    }
    cr_assert(scene_example_whole, "README.md shows tests/examples/scene_example.c whole (a file marker)");
    cr_log_info("%d example files shown whole, %d excerpts", files, excerpts);
    free_readme(&r);
}

/* Checks one link target outside code: a local anchor names a heading, anything else that is
 * not a URL is a file or folder of the repository (no ../: a clone has nothing beside it). */
static void check_link(size_t line, const char *target, char anchors[][128], size_t anchor_count)
{
    if (strncmp(target, "http://", 7) == 0 || strncmp(target, "https://", 8) == 0 || strncmp(target, "mailto:", 7) == 0)
        return;
    if (target[0] == '#') {
        bool found = false;
        for (size_t a = 0; a < anchor_count && !found; a++)
            found = strcmp(anchors[a], target + 1) == 0;
        cr_assert(found, "README.md:%zu: no heading has the anchor %s", line + 1, target);
        return;
    }
    char path[512];
    snprintf(path, sizeof path, "%.*s", (int)strcspn(target, "#"), target);
    cr_assert(strncmp(path, "../", 3) != 0 && strstr(path, "/../") == NULL,
              "README.md:%zu: %s points outside the repository", line + 1, path);
    cr_assert(source_exists(path), "README.md:%zu: %s does not exist in the repository", line + 1, path);
}

Test(readme, links_and_anchors_lead_somewhere)
{
    readme r = read_readme();
    static char anchors[MAX_HEADINGS][128];
    size_t anchor_count = heading_anchors(&r, anchors);
    int links = 0;
    for (size_t i = 0; i < r.count; i++) {
        if (r.in_code[i])
            continue;
        bool in_span = false;
        for (const char *c = r.lines[i]; *c; c++) {
            if (*c == '`')
                in_span = !in_span;
            if (in_span || c[0] != ']' || c[1] != '(')
                continue;
            const char *start = c + 2, *end = strchr(start, ')');
            cr_assert_not_null(end, "README.md:%zu: a link without its closing parenthesis", i + 1);
            char target[512];
            snprintf(target, sizeof target, "%.*s", (int)(end - start), start);
            check_link(i, target, anchors, anchor_count);
            links++;
        }
    }
    cr_assert_gt(links, 10);
    free_readme(&r);
}

/* A word that names a path inside the repository: path characters only, starting with one of
 * its top-level folders. */
static bool names_repository_path(const char *word)
{
    static const char *const roots[] = {"src/", "tests/", "assets/", "shaders/", ".ci/", "docs/"};
    if (word[strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/")] != '\0')
        return false;
    for (size_t k = 0; k < sizeof roots / sizeof roots[0]; k++)
        if (strncmp(word, roots[k], strlen(roots[k])) == 0)
            return true;
    return false;
}

/* Every word of `text` (blank-separated) that names a repository path exists; no word reaches
 * out of the clone (../) or names a Markdown file that the repository lacks. */
static int check_words(const char *text, size_t line)
{
    int paths = 0;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", text);
    for (char *save = NULL, *word = strtok_r(copy, " \t,;()\"'", &save); word;
         word = strtok_r(NULL, " \t,;()\"'", &save)) {
        size_t length = strlen(word);
        while (length > 0 && (word[length - 1] == '.' || word[length - 1] == ':'))
            word[--length] = '\0'; // a sentence's full stop or colon
        cr_assert(strncmp(word, "../", 3) != 0, "README.md:%zu: '%s' points outside the repository", line + 1, word);
        bool markdown =
            length > 3 && strcmp(word + length - 3, ".md") == 0 &&
            word[strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/")] == '\0';
        if (names_repository_path(word) || markdown) {
            cr_assert(source_exists(word), "README.md:%zu: %s does not exist in the repository", line + 1, word);
            paths++;
        }
    }
    return paths;
}

Test(readme, repository_paths_exist)
{
    readme r = read_readme();
    int paths = 0;
    bool comment = false;
    for (size_t i = 0; i < r.count; i++) {
        const char *line = r.lines[i];
        // Notes for maintainers in HTML comments are not read by users.
        if (comment || (!r.in_code[i] && strncmp(line, "<!--", 4) == 0)) {
            comment = strstr(line, "-->") == NULL;
            continue;
        }
        // Code is checked word by word; prose through its code spans and the words left when
        // every character that cannot be part of a path is taken for a blank.
        char text[4096];
        size_t n = 0;
        bool in_span = false;
        for (const char *c = line; *c && n + 1 < sizeof text; c++) {
            if (!r.in_code[i] && *c == '`')
                in_span = !in_span;
            bool keep = r.in_code[i] || in_span || isalnum((unsigned char)*c) || strchr("_.-/", *c);
            text[n++] = keep && *c != '`' ? *c : ' ';
        }
        text[n] = '\0';
        paths += check_words(text, i);
    }
    cr_assert_gt(paths, 10);
    free_readme(&r);
}

/* Whether `text` holds `word` followed by a character that cannot continue it. */
static bool mentions(const char *text, const char *word)
{
    size_t length = strlen(word);
    for (const char *at = text; (at = strstr(at, word)) != NULL; at++) {
        char next = at[length];
        if (!isalnum((unsigned char)next) && next != '-' && next != '_')
            return true;
    }
    return false;
}

/* The options (--name) in a help text, each checked once. */
static void check_options(const char *help, const char *command, const char *readme_text)
{
    char seen[2048] = " ";
    for (const char *at = help; (at = strstr(at, "--")) != NULL;) {
        const char *start = at;
        at += 2;
        if (!islower((unsigned char)*at))
            continue;
        while (islower((unsigned char)*at) || isdigit((unsigned char)*at) || *at == '-')
            at++;
        char option[64];
        snprintf(option, sizeof option, "%.*s ", (int)(at - start), start);
        if (strstr(seen, option) || strlen(seen) + strlen(option) >= sizeof seen)
            continue;
        strcat(seen, option);
        option[strlen(option) - 1] = '\0';
        cr_expect(mentions(readme_text, option), "README.md does not document %s of softrast %s", option, command);
    }
}

Test(readme, documents_every_command_and_option_of_the_program)
{
    const char *help_args[] = {"help", NULL};
    run_result *help = malloc(sizeof *help);
    run_result *command_help = malloc(sizeof *command_help);
    cr_assert(help && command_help);
    *help = run(help_args);
    cr_assert(help->exited && help->code == 0, "softrast help: exit %d: %s", help->code, help->err);
    char *text = read_source("README.md", NULL);
    int commands = 0;
    // Commands are the lines of the usage that start with two blanks and a lower-case word.
    for (const char *line = help->out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "  ", 2) != 0 || !islower((unsigned char)line[2]))
            continue;
        char first[32] = "", second[32] = "";
        if (sscanf(line, "%31s %31s", first, second) < 1 || strcmp(first, "help") == 0)
            continue;
        char name[64];
        snprintf(name, sizeof name, "%s%s%s", first, strcmp(first, "bench") == 0 ? " " : "",
                 strcmp(first, "bench") == 0 ? second : "");
        char spelled[80];
        snprintf(spelled, sizeof spelled, "softrast %s", name);
        cr_expect(mentions(text, spelled), "README.md does not document %s", spelled);
        const char *args[] = {first, strcmp(first, "bench") == 0 ? second : "--help",
                              strcmp(first, "bench") == 0 ? "--help" : NULL, NULL};
        *command_help = run(args);
        cr_expect(command_help->exited && command_help->code == 0, "%s --help: exit %d: %s", spelled,
                  command_help->code, command_help->err);
        check_options(command_help->out, name, text);
        commands++;
    }
    check_options(help->out, "", text);
    cr_assert_geq(commands, 5, "softrast help lists %d commands", commands);
    free(text);
    free(help);
    free(command_help);
}
