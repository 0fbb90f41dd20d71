#!/bin/sh
# check_headers.sh SOURCE_DIR — each public header (src/include/softrast/*.h) compiles alone, and
# twice in a row (its include guard), as C17 with gcc and clang and as C++17 and C++20 with g++
# and clang++, under -Wall -Wextra -Wpedantic -Werror; then tests/headers/header_usage.c, which
# uses the helpers meant to read the same in both languages (SR_LITERAL, SR_NODE_NULL, the
# make functions, ...), compiles, links and runs in each of those languages. A compiler that is
# not installed is skipped with a message; without any compiler of one language the test reports
# itself skipped (exit 77) after checking the other.
# Run by `meson test headers`; by hand: tests/headers/check_headers.sh .
set -u
source_dir=${1:?usage: check_headers.sh SOURCE_DIR}
include_dir=$source_dir/src/include
usage=$source_dir/tests/headers/header_usage.c
work=$(mktemp -d "${TMPDIR:-/tmp}/softrast_headers_XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
flags="-Wall -Wextra -Wpedantic -Werror"

# configurations: "compiler language standard"
configurations=""
c_found=0
cxx_found=0
for compiler in gcc clang; do
    if command -v "$compiler" >/dev/null 2>&1; then
        configurations="$configurations $compiler:c:c17"
        c_found=1
    else
        echo "check_headers: $compiler is not installed: skipped"
    fi
done
for compiler in g++ clang++; do
    if command -v "$compiler" >/dev/null 2>&1; then
        configurations="$configurations $compiler:c++:c++17 $compiler:c++:c++20"
        cxx_found=1
    else
        echo "check_headers: $compiler is not installed: skipped"
    fi
done
if [ "$c_found" = 0 ] && [ "$cxx_found" = 0 ]; then
    echo "check_headers: SKIP: no C compiler (gcc, clang) and no C++ compiler (g++, clang++) found"
    exit 77
fi

headers=$(cd "$include_dir" && ls softrast/*.h)
for header in $headers; do
    name=$(basename "$header" .h)
    printf '#include <%s>\n#include <%s>\n' "$header" "$header" >"$work/alone_$name.c"
done

# check CONFIGURATION: every header alone, then header_usage.c built and run; prints one line
# per failure (with the compiler's first lines), and "checked N failed M" last.
check() {
    compiler=${1%%:*}
    rest=${1#*:}
    language=${rest%%:*}
    standard=${rest#*:}
    tag=$(echo "$1" | tr ':+' '_p')
    checked=0
    failed=0
    for header in $headers; do
        name=$(basename "$header" .h)
        # shellcheck disable=SC2086
        if ! "$compiler" -x "$language" -std="$standard" $flags -fsyntax-only -I"$include_dir" \
            "$work/alone_$name.c" >"$work/log_$tag" 2>&1; then
            echo "check_headers: FAIL: $header alone, $compiler -std=$standard:"
            head -n 20 "$work/log_$tag"
            failed=$((failed + 1))
        fi
        checked=$((checked + 1))
    done
    # Compiled and linked with the headers only (header_usage.c calls only inline functions and
    # macros), then run: the helpers compute the same in every language.
    # shellcheck disable=SC2086
    if ! "$compiler" -x "$language" -std="$standard" $flags -I"$include_dir" "$usage" -x none -lm \
        -o "$work/usage_$tag" >"$work/log_$tag" 2>&1; then
        echo "check_headers: FAIL: header_usage.c, $compiler -std=$standard:"
        head -n 20 "$work/log_$tag"
        failed=$((failed + 1))
    elif ! "$work/usage_$tag" >"$work/log_$tag" 2>&1; then
        echo "check_headers: FAIL: header_usage.c built by $compiler -std=$standard:"
        head -n 20 "$work/log_$tag"
        failed=$((failed + 1))
    fi
    checked=$((checked + 1))
    echo "checked $checked failed $failed"
}

# Two workers (the machine's tests run two at a time), each taking every other configuration.
worker=0
for configuration in $configurations; do
    echo "$configuration" >>"$work/worker_$worker"
    worker=$((1 - worker))
done
for worker in 0 1; do
    [ -f "$work/worker_$worker" ] || continue
    (while read -r configuration; do check "$configuration"; done <"$work/worker_$worker") >"$work/out_$worker" &
done
wait
cat "$work"/out_* | grep -v '^checked '
checked=$(cat "$work"/out_* | awk '/^checked /{n += $2} END{print n + 0}')
failures=$(cat "$work"/out_* | awk '/^checked /{n += $4} END{print n + 0}')
echo "check_headers: $checked compilations ($(echo "$headers" | wc -w) headers;$configurations), $failures failed"
[ "$failures" = 0 ] && [ "$checked" -gt 0 ] || exit 1
# What could be checked passed; without a compiler of one language the check is incomplete:
# meson reports the test as skipped (77) rather than passed.
if [ "$c_found" = 0 ] || [ "$cxx_found" = 0 ]; then
    echo "check_headers: SKIP: no $([ "$c_found" = 0 ] && echo "C compiler (gcc, clang)" || echo "C++ compiler (g++, clang++; Debian: g++)"): that language was not checked"
    exit 77
fi
