#!/usr/bin/env bash
# softrast.sh — the README's quick-start commands.
#   ./softrast.sh run                install what is missing, build the library and the program (only
#                                    them), open the viewer on the demo scene (or, with no display,
#                                    render it to out/demo.bmp and say why)
#   ./softrast.sh test               install what is missing, build what the tests run, run every test
#                                    (release build, then AddressSanitizer + UndefinedBehaviorSanitizer)
#   ./softrast.sh mutants [PATTERN]  plant each bug of tests/mutants/ in a copy of the tree and check
#                                    that the suite kills it (tests/mutants/run.sh)
#   ./softrast.sh mutants --list [PATTERN]
#                                    print the mutants: name, file, what the bug breaks
#   ./softrast.sh fuzz [SECONDS] [TARGET...]
#                                    run every (or each named) libFuzzer target for SECONDS each,
#                                    default 60 (tests/fuzz/run.sh)
set -euo pipefail
cd "$(dirname "$0")"

packages=(gcc g++ pkg-config meson ninja-build libsdl2-dev libstb-dev zlib1g-dev libcriterion-dev libcjson-dev)

# install_missing PACKAGE...: installs the missing ones as root, else prints the command and stops.
install_missing() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ]; then
        echo "softrast.sh: installing ${missing[*]}"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    else
        echo "softrast.sh: missing packages; install them with:" >&2
        echo "  sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
}

# configure DIR [meson options...]: configures DIR once (later runs build it incrementally).
configure() {
    local dir=$1
    shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@"
    fi
}

# Which build tests which variant of the fill and the BVH traversals: build/ is native
# (-march=native: its one variant uses the machine's widest instructions) and also compares the
# portable code with it; build-sanitize/ is generic x86-64 with run-time dispatch, so the sanitized
# run tests the SSE2 code (its native variant), the AVX2 and AVX-512 variants, the dispatch glue
# and the portable code.
release_options=(-Dbuildtype=release -Dnative=true)
# -g1: line tables only. Sanitizer reports keep their file:line backtraces; full -g made GCC track
# variables through the inlined fill and SIMD-lane code, three quarters of this build's compile
# time (src/raster/fill_portable.c: 146 s of CPU with -g, 39 s with -g1). -O1, as
# AddressSanitizer's documentation advises: its checks at -O2 cost two to three times the compile
# time of -O1 (src/raster/fill_portable.c 45 s against 18 s, the tests' portable BVH packet
# kernel 33 s against 14 s), for runs a fifth faster; the portable fill alone keeps -O2
# (src/raster/meson.build says why).
sanitize_options=(-Doptimization=1 -Ddebug=true -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-g1
    -Dcpp_args=-g1)

case "${1:-}" in
run)
    install_missing "${packages[@]}"
    configure build "${release_options[@]}"
    # The library and the program, nothing else (no test, benchmark or fuzz target).
    meson compile -C build softrast:executable
    # The viewer on the demo scene where a window can be opened; otherwise a rendered file.
    reason=""
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
        reason="no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"
    elif ! probe=$(./build/src/app/softrast view --probe 2>&1); then
        reason=$(printf '%s\n' "$probe" | tail -n 1) # SDL may print its own lines first
        reason=${reason#softrast view --probe: }
    fi
    if [ -z "$reason" ]; then
        echo "softrast.sh: opening the viewer on the demo scene (H in the window lists the keys)"
        exec ./build/src/app/softrast view
    fi
    mkdir -p out
    echo "softrast.sh: not opening the viewer: $reason; rendering out/demo.bmp instead"
    ./build/src/app/softrast render --out out/demo.bmp
    ;;
test)
    install_missing "${packages[@]}"
    configure build "${release_options[@]}"
    configure build-sanitize "${sanitize_options[@]}"
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    # CRITERION_VERBOSITY_LEVEL=1 is criterion's --verbose, given through the environment (meson's
    # --test-args would hand --verbose to the shell-script tests as well: the adapters test took it
    # for a header and failed). Criterion then prints a line per test, "[SKIP] suite::name: why"
    # included; its closing "Synthesis" line has no skip count (criterion 2.4: "Tested" leaves
    # skipped tests out), so the skips are counted from those lines. Tests that a --filter leaves
    # out (the fuzz program runs twice, once per suite) print "[SKIP] ...: Test is disabled", as
    # .disabled tests would (the suite has none): those are not counted.
    # meson test builds what the tests run and nothing else. Two meson tests at a time: each
    # program runs its criterion tests two at a time too, and the serial parts of one (start-up,
    # set-up, sleeps in the viewer's tests) leave a core to the other; no test times itself.
    # meson prints a parallel test's output whole when it ends, never interleaved.
    # The two runs go one after the other: side by side, on two cores, the multi-threaded
    # renderer's workers (the draw fuzz target's, the threads tests') waited for cores so long
    # that the sanitized draw fuzz target ran past its 600 s limit (21 s alone).
    export CRITERION_VERBOSITY_LEVEL=1
    status=0
    echo "== test suite (release build) =="
    meson test -C build --verbose --num-processes 2 2>&1 | tee "$log" || status=1
    echo "== test suite (AddressSanitizer + UndefinedBehaviorSanitizer) =="
    meson test -C build-sanitize --setup sanitize --verbose --num-processes 2 2>&1 | tee -a "$log" || status=1
    # One closing line over both runs, summed from criterion's per-program synthesis lines
    # ("Crashing" counts tests that are also in "Failing") and its [SKIP] lines.
    awk 'function count(key) { return match($0, key ": [0-9]+") ? substr($0, RSTART + length(key) + 2, RLENGTH - length(key) - 2) : 0 }
        /Synthesis: Tested:/ { passed += count("Passing"); failed += count("Failing") }
        /^\[SKIP\] / && !/: Test is disabled$/ { skipped++ }
        END { printf "tests: %d passed, %d failed, %d skipped\n", passed, failed, skipped }' "$log"
    if [ "$status" -ne 0 ]; then
        echo "softrast.sh: meson test failed (see above)" >&2
        exit 1
    fi
    ;;
mutants)
    shift
    # the list needs nothing but python3 (meson's interpreter)
    [ "${1:-}" = "--list" ] || install_missing "${packages[@]}"
    exec tests/mutants/run.sh "$@"
    ;;
fuzz)
    # libFuzzer needs clang and its runtime (Debian: libclang-rt-14-dev); only this command does.
    install_missing "${packages[@]}" clang libclang-rt-14-dev
    shift
    exec tests/fuzz/run.sh "$@"
    ;;
*)
    echo "usage: ./softrast.sh run | test | mutants [--list] [PATTERN] | fuzz [SECONDS] [TARGET...]" >&2
    exit 2
    ;;
esac
