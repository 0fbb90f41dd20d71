/* args.c — strict parsing of command-line values (args.h). */
#include "args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool sr_args_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

bool sr_args_parse_int(const char *option, const char *text, long min, long max, long *value,
                       char error[SR_ARGS_ERROR_SIZE])
{
    char *end = NULL;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (text[0] == '\0' || isspace((unsigned char)text[0]) || *end != '\0' || errno == ERANGE) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: '%s' is not a whole number", option, text);
        return false;
    }
    if (parsed < min || parsed > max) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: %ld is out of range [%ld, %ld]", option, parsed, min, max);
        return false;
    }
    *value = parsed;
    return true;
}

bool sr_args_parse_float(const char *option, const char *text, float *value, char error[SR_ARGS_ERROR_SIZE])
{
    char *end = NULL;
    errno = 0;
    float parsed = strtof(text, &end);
    if (text[0] == '\0' || isspace((unsigned char)text[0]) || *end != '\0' || !isfinite(parsed)) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: '%s' is not a finite number", option, text);
        return false;
    }
    *value = parsed;
    return true;
}

bool sr_args_parse_size(const char *option, const char *text, int max_side, int *width, int *height,
                        char error[SR_ARGS_ERROR_SIZE])
{
    const char *x = strchr(text, 'x');
    if (!x)
        x = strchr(text, 'X');
    char left[32], right[32];
    size_t left_length = x ? (size_t)(x - text) : 0;
    if (!x || left_length == 0 || left_length >= sizeof left || strlen(x + 1) == 0 || strlen(x + 1) >= sizeof right) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: '%s' is not a size of the form WxH (e.g. 1280x720)", option, text);
        return false;
    }
    memcpy(left, text, left_length);
    left[left_length] = '\0';
    strcpy(right, x + 1);
    for (const char *p = left; *p; p++)
        if (!isdigit((unsigned char)*p))
            goto malformed;
    for (const char *p = right; *p; p++)
        if (!isdigit((unsigned char)*p))
            goto malformed;
    long w = strtol(left, NULL, 10), h = strtol(right, NULL, 10);
    if (strlen(left) > 9 || strlen(right) > 9 || w < 1 || h < 1 || w > max_side || h > max_side) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: size '%s' is out of range (each side 1 to %d pixels)", option, text,
                 max_side);
        return false;
    }
    *width = (int)w;
    *height = (int)h;
    return true;
malformed:
    snprintf(error, SR_ARGS_ERROR_SIZE, "%s: '%s' is not a size of the form WxH (e.g. 1280x720)", option, text);
    return false;
}

bool sr_args_take_value(int argc, char **argv, int *index, const char **value, char error[SR_ARGS_ERROR_SIZE])
{
    if (*index + 1 >= argc) {
        snprintf(error, SR_ARGS_ERROR_SIZE, "%s: missing value", argv[*index]);
        return false;
    }
    *index += 1;
    *value = argv[*index];
    return true;
}

bool sr_args_has_extension(const char *path, const char *extension)
{
    size_t n = strlen(path), m = strlen(extension);
    return n > m && strcasecmp(path + n - m, extension) == 0;
}
