#!/usr/bin/env bash
# tests/fuzz/run.sh — coverage-guided fuzzing with libFuzzer: `./softrast.sh fuzz [SECONDS] [TARGET...]`.
#
# Builds the libFuzzer programs of tests/fuzz/meson.build in build-fuzz/ (clang, the library
# instrumented with -fsanitize=fuzzer-no-link, AddressSanitizer + UndefinedBehaviorSanitizer),
# then runs each target (default: all six) for SECONDS (default 60), one after the other. Each
# run starts from the target's own seeds (written by the program itself through FUZZ_SEED_DIR,
# with its dictionary for the OBJ target) in a fresh corpus folder under $TMPDIR that is deleted
# afterwards, with a random libFuzzer seed (printed, for -seed=N). One line per target:
#     fuzz_obj      60 s   9,876,543 executions (164,609/s), cov 1234, corpus 321, seed 42: nothing found
# and a closing `fuzz: N executions, N targets, nothing found`. Anything libFuzzer saves (a
# crash, leak, timeout or out-of-memory input) is kept in out/fuzz/ and printed with the command
# that reproduces it; the exit status is then 1.
#
# Environment: SOFTRAST_FUZZ_ARGS adds libFuzzer options to every run, e.g. -runs=10000000 to stop
# after that many executions (SECONDS then being an upper bound; the lines show the time taken).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
all_targets=(obj draw texture geom bvh dynamic pairs record)
seconds=${1:-60}
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: ./softrast.sh fuzz [SECONDS] [TARGET...]   (SECONDS per target, default 60; targets: ${all_targets[*]})" >&2
    exit 2
fi
if [ $# -gt 0 ]; then shift; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=("${all_targets[@]}"); fi
for target in "${targets[@]}"; do
    if [[ " ${all_targets[*]} " != *" $target "* ]]; then
        echo "fuzz: unknown target '$target' (targets: ${all_targets[*]})" >&2
        exit 2
    fi
done

build=build-fuzz
if [ ! -f "$build/build.ninja" ]; then
    echo "fuzz: configuring $build (clang, libFuzzer, ASan + UBSan)"
    CC=clang meson setup "$build" -Dbuildtype=release -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fsanitize=fuzzer-no-link >"$repo/$build-setup.log" 2>&1 || {
        tail -n 20 "$repo/$build-setup.log" >&2
        echo "fuzz: meson setup failed (log above, full log in $build-setup.log)" >&2
        exit 2
    }
    rm -f "$repo/$build-setup.log"
elif ! grep -q 'fuzzer-no-link' "$build/meson-info/intro-buildoptions.json" 2>/dev/null; then
    echo "fuzz: $build/ exists but was not configured for libFuzzer (c_args lack -fsanitize=fuzzer-no-link);" >&2
    echo "      remove it (rm -rf $build) and run again" >&2
    exit 2
fi
programs=()
for target in "${targets[@]}"; do programs+=("tests/fuzz/fuzz_$target"); done
if ! ninja -C "$build" "${programs[@]}" >"$build/fuzz-build.log" 2>&1; then
    tail -n 30 "$build/fuzz-build.log" >&2
    echo "fuzz: building the libFuzzer programs failed (log above; is libclang-rt-14-dev installed?)" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/softrast-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
findings_dir=out/fuzz

# stat KEY LOG: the value of libFuzzer's final "stat::KEY: N" line (-print_final_stats=1).
stat() { sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$2" | tail -n 1; }
thousands() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }

total=0 found=0
for target in "${targets[@]}"; do
    program=$build/tests/fuzz/fuzz_$target
    corpus=$work/corpus-$target
    artifacts=$work/artifacts-$target
    log=$work/$target.log
    mkdir -p "$corpus" "$artifacts"
    seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
    dict=()
    # The program writes corpus/seed-N (and corpus.dict for the OBJ target) before fuzzing;
    # -runs=0 only runs the seeds once, so the dictionary exists before the real run reads it.
    FUZZ_SEED_DIR=$corpus "$program" -runs=0 "$corpus" >"$log" 2>&1 || true
    if [ -f "$corpus.dict" ]; then dict=(-dict="$corpus.dict"); fi
    status=0
    started=$SECONDS
    # -timeout: an input running 30 s is a finding (a hang), not a stall of the whole run.
    "$program" "$corpus" "${dict[@]}" -max_total_time="$seconds" -print_final_stats=1 -seed="$seed" \
        -timeout=30 -artifact_prefix="$artifacts/" ${SOFTRAST_FUZZ_ARGS:-} >"$log" 2>&1 || status=$?
    elapsed=$((SECONDS - started))
    runs=$(stat number_of_executed_units "$log")
    rate=$(stat average_exec_per_sec "$log")
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    corpus_size=$(find "$corpus" -type f | wc -l)
    total=$((total + ${runs:-0}))
    saved=()
    for file in "$artifacts"/*; do
        [ -e "$file" ] || continue
        mkdir -p "$findings_dir"
        cp "$file" "$findings_dir/"
        saved+=("$findings_dir/$(basename "$file")")
    done
    line=$(printf '%-14s %4d s %13s executions (%s/s), cov %s, corpus %s, seed %s' "fuzz_$target" "$elapsed" \
        "$(thousands "${runs:-0}")" "$(thousands "${rate:-0}")" "${coverage:-?}" "$corpus_size" "$seed")
    if [ ${#saved[@]} -gt 0 ] || [ $status -ne 0 ]; then
        found=$((found + 1))
        echo "$line: FOUND something (libFuzzer exit status $status)"
        grep -m 5 -E 'ERROR: |runtime error:|FUZZ_CHECK|==[0-9]+==' "$log" | sed 's/^/    /' || true
        for file in "${saved[@]}"; do
            echo "    saved $file; reproduce (from the repository root): ./$build/tests/fuzz/fuzz_$target $file"
        done
        if [ ${#saved[@]} -eq 0 ]; then
            echo "    nothing saved; the end of libFuzzer's output:"
            tail -n 20 "$log" | sed 's/^/    /'
        fi
    else
        echo "$line: nothing found"
    fi
done

count="${#targets[@]} targets"
[ ${#targets[@]} -gt 1 ] || count="1 target"
if [ $found -eq 0 ]; then
    echo "fuzz: $(thousands "$total") executions, $count, nothing found"
else
    echo "fuzz: $(thousands "$total") executions, $count, FOUND something in $found (inputs in $findings_dir/)"
    exit 1
fi
