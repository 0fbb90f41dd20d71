#!/bin/sh
# check_adapters.sh SOURCE_DIR HEADER:CFLAGS... — the engine adapters (src/include/softrast/*.hpp)
# compile, each included twice in a row (its include guard), as C++17 and C++20 with g++ and clang++
# under -Wall -Wextra -Wpedantic -Werror, with its engine's flags (CFLAGS: the engine's include
# flags, as pkg-config gives them, spaces allowed). A compiler that is not installed is skipped
# with a message (at least one must be there). Run by `meson test adapters` where the engines are
# installed (tests/examples/meson.build); by hand:
#   tests/examples/check_adapters.sh . "bullet_draw.hpp:-isystem /usr/include/bullet" box2d_draw.hpp:
set -u
source_dir=${1:?usage: check_adapters.sh SOURCE_DIR HEADER:CFLAGS...}
shift
work=$(mktemp -d "${TMPDIR:-/tmp}/softrast_adapters_XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# One translation unit with every adapter, each included twice: one compilation per compiler
# and standard (the engines' headers are most of the time).
cflags=""
: >"$work/alone.cpp"
specs=""
for spec in "$@"; do
    # options meant for test programs (meson test --test-args=--verbose) are not adapters
    case $spec in --*) continue ;; esac
    specs="$specs $spec"
    header=${spec%%:*}
    cflags="$cflags ${spec#*:}"
    printf '#include <softrast/%s>\n#include <softrast/%s>\n' "$header" "$header" >>"$work/alone.cpp"
done
found=0
failed=0
checked=0
for compiler in g++ clang++; do
    if ! command -v "$compiler" >/dev/null 2>&1; then
        echo "check_adapters: $compiler is not installed: skipped"
        continue
    fi
    found=1
    for standard in c++17 c++20; do
        checked=$((checked + 1))
        # shellcheck disable=SC2086
        if ! "$compiler" -std=$standard -Wall -Wextra -Wpedantic -Werror -fsyntax-only \
            -I"$source_dir/src/include" $cflags "$work/alone.cpp" >"$work/log" 2>&1; then
            failed=$((failed + 1))
            echo "check_adapters: FAIL:$specs with $compiler -std=$standard:"
            head -n 20 "$work/log"
        fi
    done
done
if [ "$found" = 0 ]; then
    echo "check_adapters: FAIL: no C++ compiler (g++, clang++) found"
    exit 1
fi
echo "check_adapters:$specs: $checked configurations, $failed failed"
[ "$failed" = 0 ]
