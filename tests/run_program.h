/* run_program.h — running the `softrast` program from a criterion test (path in SOFTRAST_EXE,
 * set by tests/meson.build) with its output captured, and the temporary folders and files the
 * command-line tests need. Header-only (static functions): each test program includes it once. */
#ifndef SR_TESTS_RUN_PROGRAM_H
#define SR_TESTS_RUN_PROGRAM_H

#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef struct run_result {
    bool exited; ///< ended by exit (not by a signal)
    int code;    ///< exit status when exited
    int signal;  ///< signal number otherwise
    char out[262144];
    char err[8192];
} run_result;

/* A fresh folder under /tmp; each test runs in its own process (criterion), so no sharing. */
static inline void make_temp_dir(char path[64])
{
    strcpy(path, "/tmp/softrast_cli_XXXXXX");
    cr_assert_not_null(mkdtemp(path), "mkdtemp: %s", strerror(errno));
}

/* Removes a folder and the files in it (one level; the tests make no deeper folders). */
static inline void remove_dir(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return;
    struct dirent *entry;
    char file[1024];
    while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        snprintf(file, sizeof file, "%s/%s", path, entry->d_name);
        remove(file);
    }
    closedir(dir);
    rmdir(path);
}

static inline int count_entries(const char *path)
{
    DIR *dir = opendir(path);
    cr_assert_not_null(dir);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL)
        count += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
    closedir(dir);
    return count;
}

static inline void read_text(const char *path, char *buffer, size_t size)
{
    buffer[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buffer, 1, size - 1, f);
    buffer[n] = '\0';
    fclose(f);
}

/* Runs SOFTRAST_EXE with `args` (NULL-terminated, without the program name), stdout and stderr
 * captured through files in a private folder. */
static inline run_result run(const char *const *args)
{
    const char *exe = getenv("SOFTRAST_EXE");
    cr_assert_not_null(exe, "SOFTRAST_EXE is not set (run through meson test)");
    char capture_dir[64];
    make_temp_dir(capture_dir);
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "%s/stdout", capture_dir);
    snprintf(err_path, sizeof err_path, "%s/stderr", capture_dir);

    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)exe;
    for (int i = 0; args[i]; i++) {
        cr_assert_lt(argc, 63);
        argv[argc++] = (char *)args[i];
    }
    argv[argc] = NULL;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int spawned = posix_spawn(&pid, exe, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    cr_assert_eq(spawned, 0, "posix_spawn %s: %s", exe, strerror(spawned));
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);

    run_result r = {.exited = WIFEXITED(status),
                    .code = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                    .signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0};
    read_text(out_path, r.out, sizeof r.out);
    read_text(err_path, r.err, sizeof r.err);
    remove_dir(capture_dir);
    return r;
}

static inline long file_size(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (long)info.st_size : -1;
}

/* Reads a whole raw file of exactly `size` bytes into a malloc'ed buffer. */
static inline void *read_raw(const char *path, long size)
{
    cr_assert_eq(file_size(path), size, "%s has %ld bytes, expected %ld", path, file_size(path), size);
    void *data = malloc((size_t)size);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    cr_assert_eq(fread(data, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    return data;
}

#endif
