/* args.h — strict parsing of command-line values for the sub-commands. Every parser returns
 * false and writes a message naming the option and the bad value into `error`. */
#ifndef SR_APP_ARGS_H
#define SR_APP_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/// The longest path the program handles, in bytes with the terminating NUL (Linux's PATH_MAX).
#define SR_ARGS_PATH_SIZE 4096
/// Room for an argument error naming two paths of up to SR_ARGS_PATH_SIZE and its own text (a
/// message may name a file and its folder), so that no message is ever cut short.
#define SR_ARGS_ERROR_SIZE (2 * SR_ARGS_PATH_SIZE + 256)

/// The exit statuses of every command, one rule: 0 success, SR_EXIT_FAILURE when the work or a
/// file failed (a missing or malformed input, an output that cannot be written), SR_EXIT_USAGE
/// when the command line is wrong (an unknown option, a bad or missing value, options that
/// exclude each other, a --camera or --up that does not fit the scene), before any output.
#define SR_EXIT_FAILURE 1
#define SR_EXIT_USAGE 2

/// True for "--help" and "-h".
bool sr_args_is_help(const char *arg);

/// "WxH" with 1 <= W, H <= max_side, e.g. "1280x720".
bool sr_args_parse_size(const char *option, const char *text, int max_side, int *width, int *height,
                        char error[SR_ARGS_ERROR_SIZE]);
/// A whole decimal integer in [min, max].
bool sr_args_parse_int(const char *option, const char *text, long min, long max, long *value,
                       char error[SR_ARGS_ERROR_SIZE]);
/// A finite decimal number.
bool sr_args_parse_float(const char *option, const char *text, float *value, char error[SR_ARGS_ERROR_SIZE]);
/// The value after option argv[*index]; advances *index. False (with message) when missing.
bool sr_args_take_value(int argc, char **argv, int *index, const char **value, char error[SR_ARGS_ERROR_SIZE]);
/// True when `path` ends with `extension` (".bmp"), compared case-insensitively.
bool sr_args_has_extension(const char *path, const char *extension);

#endif
