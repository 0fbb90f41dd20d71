#!/usr/bin/env bash
# tests/mutants/run.sh — mutation testing of the test suite: `./softrast.sh mutants [PATTERN]`;
# `./softrast.sh mutants --list [PATTERN]` only prints the mutants (name, file, what the bug
# breaks), without building anything.
#
# Each tests/mutants/NAME.mutant is one small, realistic bug planted in one critical spot of a
# module (an off-by-one, a flipped comparison, a dropped term). For every mutant this script
# plants the bug in a private copy of the sources, rebuilds incrementally, runs the test suite
# until a test fails, and prints one line:
#     [ 3/40] raster-depth-less-fast   killed by raster/early_and_late_depth_test  (meson test raster, 4.2 s)
#     [ 9/40] raster-near-clip-off     SURVIVED  (12 meson tests passed, 22.0 s)
# then `mutants: N killed, N survived` and what each survivor breaks. A survivor is a bug the
# suite cannot see: the exit status is 1 when any mutant survives or no longer applies ("stale"),
# 0 when every mutant is killed, 2 when the run could not be set up.
#
# Mutant format: a text file with `key: value` header lines, then the exact text to find and its
# replacement:
#     why: <one line: what the bug breaks>
#     file: src/raster/triangle.c          (path from the repository root)
#     suite: raster                        (optional: meson tests to run first; default from the path)
#     known: <reason>                      (optional: a survivor already known and being worked on)
#     --- find
#     <lines, verbatim; they must occur exactly once in the file>
#     --- replace
#     <lines, verbatim; may be empty>
# Chosen over unified diffs because a find/replace pair carries no line numbers and no context
# lines: it keeps applying while the file changes anywhere else, and when the spot itself changes
# (the text occurs 0 times, or more than once) the runner says so, naming the mutant and the
# file, instead of applying it fuzzily or skipping it. A unified diff's line numbers and context
# lines go stale with any edit nearby, and patch's fuzz factor may then apply it elsewhere.
#
# The working tree is never modified: the files git knows (tracked and untracked-but-not-ignored,
# with their uncommitted changes; outside a git checkout, everything but build*/ and out/) are
# copied into a temporary folder under $TMPDIR, configured once like the release build of
# `./softrast.sh test` (-Dbuildtype=release -Dnative=true), and each mutant is applied there,
# built with ninja, tested, reverted and built again. The suite runs through
# `CRITERION_FAIL_FAST=1 meson test --no-rebuild NAME`, one meson test at a time: first the
# mutated module's own suite, then the others from the fastest to the slowest, stopping at the
# first failure. (Fail-fast goes through criterion's environment, not meson's --test-args: those
# reach the shell-script tests too, and the install test handed --fail-fast to the compiler as a
# flag and failed, which counted as a kill of any mutant that got that far.) Every meson test gets a time limit of 5x its time on the unmutated copy (at
# least 30 s), so a mutant that makes a test loop forever is killed "by timeout". A mutant that
# does not compile is counted as killed by the compiler (the list should not contain any).
# The sanitized build is not used: it would triple the time, and the mutants are logic bugs.
#
# Environment: SOFTRAST_MUTANTS_KEEP=1 keeps the temporary folder (its path is printed).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
mutant_dir=$repo/tests/mutants
list=0
if [ "${1:-}" = "--list" ]; then
    list=1
    shift
fi
pattern=${1:-}

if [ $# -gt 1 ] || [ "$pattern" = "-h" ] || [ "$pattern" = "--help" ] || [[ $pattern == -* ]]; then
    echo "usage: ./softrast.sh mutants [--list] [PATTERN]   (PATTERN: a glob matched inside mutant names, e.g. raster or 'bvh-*';" >&2
    echo "       --list: print the mutants, name, file and what each breaks, without running them)" >&2
    exit 2
fi

# Reading, checking and applying mutants: Python (meson's own interpreter, always installed)
# does exact text matching without the quoting traps of shell tools.
IFS= read -r -d '' mutant_tool <<'PY' || true
import json, os, shlex, sys

def parse(path):
    """Returns (header dict, text to find, replacement) of a .mutant file; exits on bad format."""
    header, find, replace, part = {}, [], [], 'header'
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            stripped = line.rstrip('\n')
            if part == 'header':
                if stripped == '--- find':
                    part = 'find'
                elif stripped.strip() == '' or stripped.startswith('#'):
                    pass
                elif ':' in stripped:
                    key, value = stripped.split(':', 1)
                    if key not in ('why', 'file', 'suite', 'known'):
                        sys.exit(f'{path}:{number}: unknown key {key!r} (why, file, suite, known)')
                    header[key] = value.strip()
                else:
                    sys.exit(f'{path}:{number}: expected "key: value" or "--- find"')
            elif part == 'find':
                if stripped == '--- replace':
                    part = 'replace'
                else:
                    find.append(line)
            else:
                replace.append(line)
    if part != 'replace':
        sys.exit(f'{path}: missing the "--- find" and "--- replace" sections')
    for key in ('why', 'file'):
        if not header.get(key):
            sys.exit(f'{path}: missing "{key}:"')
    if not find:
        sys.exit(f'{path}: the text to find is empty')
    return header, ''.join(find), ''.join(replace)

def default_suite(file):
    """The meson test of the module a source file belongs to."""
    parts = file.split('/')
    if parts[0] == 'shaders':
        return 'shaders'
    if parts[:2] == ['src', 'app']:
        return 'cli'
    if parts[:3] == ['src', 'include', 'softrast'] and len(parts) == 4:
        return parts[3].rsplit('.', 1)[0]
    if parts[0] == 'src' and len(parts) > 2:
        return parts[1]
    return ''

def check(root, path):
    """(header, find, replace, target path, problem); problem is '' when the mutant applies."""
    header, find, replace = parse(path)
    target = os.path.join(root, header['file'])
    if not os.path.isfile(target):
        return header, find, replace, target, f"{header['file']} does not exist"
    with open(target, encoding='utf-8') as f:
        count = f.read().count(find)
    if count != 1:
        first = find.strip().splitlines()[0].strip()
        return header, find, replace, target, (f"the text to find occurs {count} times in {header['file']}, "
                                               f"not exactly once (it starts {first[:60]!r})")
    return header, find, replace, target, ''

command = sys.argv[1]
if command == 'list':  # ROOT PATH...: one line per mutant, then the count; exits 1 if any is stale
    rows, stale = [], 0
    for path in sys.argv[3:]:
        header, _, _, _, problem = check(sys.argv[2], path)
        why = header['why']
        if header.get('known'):
            why += f"  [known survivor: {header['known']}]"
        if problem:
            stale += 1
            why += f"  [STALE: {problem}]"
        rows.append((os.path.basename(path)[:-len('.mutant')], header['file'], why))
    name_width = max(len(row[0]) for row in rows)
    file_width = max(len(row[1]) for row in rows)
    print(f"{'mutant':<{name_width}}  {'file':<{file_width}}  what the bug breaks")
    for name, file, why in rows:
        print(f"{name:<{name_width}}  {file:<{file_width}}  {why}")
    total = f"{len(rows)} mutant" + ("s" if len(rows) != 1 else "")
    print(f"{total} in tests/mutants" + (f", {stale} stale (the text to find no longer occurs exactly once)" if stale else "")
          + "; ./softrast.sh mutants [PATTERN] plants each one and runs the suite")
    sys.exit(1 if stale else 0)
elif command == 'describe':  # shell assignments for one mutant
    header, _, _ = parse(sys.argv[2])
    print('m_file=' + shlex.quote(header['file']))
    print('m_suite=' + shlex.quote(header.get('suite') or default_suite(header['file'])))
    print('m_why=' + shlex.quote(header['why']))
    print('m_known=' + shlex.quote(header.get('known', '')))
elif command == 'check':  # prints why and exits 1 when the mutant no longer applies
    problem = check(sys.argv[2], sys.argv[3])[4]
    if problem:
        print(problem)
        sys.exit(1)
elif command == 'apply':
    header, find, replace, target, problem = check(sys.argv[2], sys.argv[3])
    if problem:
        sys.exit(problem)
    with open(target, encoding='utf-8') as f:
        text = f.read()
    with open(target, 'w', encoding='utf-8') as f:
        f.write(text.replace(find, replace, 1))
elif command == 'timeouts':  # TESTS.json NAME SECONDS...: prints NAME MULTIPLIER for meson test -t
    limits = dict(zip(sys.argv[3::2], map(float, sys.argv[4::2])))
    with open(sys.argv[2]) as f:
        for test in json.load(f):
            if test['name'] in limits:
                print(test['name'], f"{limits[test['name']] / (test['timeout'] or 30):.4f}")
PY
tool() { python3 -c "$mutant_tool" "$@"; }

now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- the mutants to run ------------------------------------------------------------------------
mutants=()
for path in "$mutant_dir"/*.mutant; do
    [ -e "$path" ] || break
    name=$(basename "$path" .mutant)
    # shellcheck disable=SC2053 # PATTERN is a glob on purpose
    if [ -z "$pattern" ] || [[ $name == *$pattern* ]]; then
        mutants+=("$path")
    fi
done
if [ ${#mutants[@]} -eq 0 ]; then
    echo "mutants: no mutant in tests/mutants matches '${pattern}'" >&2
    exit 2
fi
for path in "${mutants[@]}"; do
    tool describe "$path" >/dev/null || {
        echo "mutants: malformed mutant ${path#"$repo"/} (see the format at the top of tests/mutants/run.sh)" >&2
        exit 2
    }
done
if [ $list -eq 1 ]; then
    # exit status 1 when a mutant no longer applies to the working tree
    exec python3 -c "$mutant_tool" list "$repo" "${mutants[@]}"
fi

# ---- a private copy of the working tree, built once ----------------------------------------------
started=$(now)
work=$(mktemp -d "${TMPDIR:-/tmp}/softrast-mutants.XXXXXX")
cleanup() {
    if [ "${SOFTRAST_MUTANTS_KEEP:-0}" = 1 ]; then
        echo "mutants: kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
src=$work/src
build=$work/build
mkdir -p "$src"
# Tracked and untracked-but-not-ignored files as they are now (uncommitted edits included);
# files deleted but not yet committed are left out.
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$repo" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' file; do if [ -f "$file" ]; then printf '%s\0' "$file"; fi; done |
        tar --null -T - -cf -) | tar -xf - -C "$src"
else
    (cd "$repo" && tar --exclude='./build*' --exclude=./out --exclude=./.git -cf - .) | tar -xf - -C "$src"
fi
# The tests read ../shared/meshes next to the sources when it exists.
if [ -e "$repo/../shared" ]; then ln -s "$(cd "$repo/../shared" && pwd)" "$work/shared"; fi

echo "mutants: ${#mutants[@]} mutants; building a copy of the working tree in $work (release)"
if ! (meson setup "$build" "$src" -Dbuildtype=release -Dnative=true && ninja -C "$build") >"$work/setup.log" 2>&1; then
    tail -n 30 "$work/setup.log" >&2
    echo "mutants: the unmutated copy does not build (log above)" >&2
    exit 2
fi

# Baseline: the suite must pass without any mutant; its times give the order and the limits.
tests=()
# `meson test --list` prints "PROJECT / NAME" (or "PROJECT:SUITE / NAME"): the bare names.
while IFS= read -r test_name; do tests+=("$test_name"); done < <(
    meson test -C "$build" --list --no-rebuild 2>/dev/null | sed 's|^.* / ||')
declare -A baseline=()
for test_name in "${tests[@]}"; do
    t0=$(now)
    if ! meson test -C "$build" --no-rebuild --num-processes 1 "$test_name" >"$work/baseline.log" 2>&1; then
        cat "$build/meson-logs/testlog.txt" >&2 || true
        echo "mutants: meson test '$test_name' fails without any mutant: fix the suite first" >&2
        exit 2
    fi
    baseline[$test_name]=$(seconds_since "$t0")
done
meson introspect --tests "$build" >"$work/tests.json"
declare -A multiplier=() limit=()
limits=()
for test_name in "${tests[@]}"; do
    limit[$test_name]=$(awk -v t="${baseline[$test_name]}" 'BEGIN { l = 5 * t; printf "%d", l < 30 ? 30 : l + 1 }')
    limits+=("$test_name" "${limit[$test_name]}")
done
while read -r test_name value; do multiplier[$test_name]=$value; done < <(tool timeouts "$work/tests.json" "${limits[@]}")
by_speed=()
while IFS= read -r test_name; do by_speed+=("$test_name"); done < <(
    for test_name in "${tests[@]}"; do echo "${baseline[$test_name]} $test_name"; done | sort -n | cut -d' ' -f2)
setup_time=$(seconds_since "$started")
echo "mutants: copy built and suite passed in $setup_time s ($(for t in "${by_speed[@]}"; do printf '%s %ss, ' "$t" "${baseline[$t]}"; done | sed 's/, $//'))"

# ---- one mutant ----------------------------------------------------------------------------------
# run_suite NAME LOG: returns 0 when meson test NAME passes; otherwise prints the failing test as
# criterion names it (suite/test), or the meson test and why when no test is named.
run_suite() {
    local test_name=$1 log=$2 status=0 failed
    CRITERION_FAIL_FAST=1 timeout --kill-after=10 $((limit[$test_name] + 60)) \
        meson test -C "$build" --no-rebuild --num-processes 1 --verbose \
        --timeout-multiplier "${multiplier[$test_name]}" "$test_name" >"$log" 2>&1 || status=$?
    [ $status -eq 0 ] && return 0
    # criterion: "[FAIL] suite::test: ..." for a failed assertion, a crash or its own timeout
    failed=$(sed -n 's/^.*\[FAIL\] \([^:]*\)::\([^:]*\):.*$/\1\/\2/p' "$log" | head -n 1)
    if [ -n "$failed" ]; then
        echo "$failed"
    elif grep -q 'TIMEOUT' "$log" || [ $status -eq 124 ] || [ $status -eq 137 ]; then
        echo "timeout after ${limit[$test_name]} s"
    else
        echo "exit status $status, no failing test named"
    fi
    return 1
}

killed=0 survived=0 stale=0
survivors=() stale_list=()
index=0
for path in "${mutants[@]}"; do
    index=$((index + 1))
    name=$(basename "$path" .mutant)
    label=$(printf '[%2d/%d] %-36s' "$index" "${#mutants[@]}" "$name")
    eval "$(tool describe "$path")"
    if ! problem=$(tool check "$src" "$path"); then
        stale=$((stale + 1))
        stale_list+=("tests/mutants/$name.mutant: $problem")
        echo "$label STALE: tests/mutants/$name.mutant no longer applies: $problem"
        continue
    fi
    t0=$(now)
    target=$src/$m_file
    cp "$target" "$work/original"
    tool apply "$src" "$path"
    by="" where="" ran=0
    if ! timeout 900 ninja -C "$build" >"$work/ninja.log" 2>&1; then
        by="the compiler"
        where=$(grep -m 1 'error:' "$work/ninja.log" | sed "s|$src/||g; s|\.\./src/||g" || true)
        where=${where:-ninja failed}
    else
        # the module's own suites first, then every other one from the fastest
        order=()
        for test_name in $m_suite; do
            [ -n "${baseline[$test_name]:-}" ] && order+=("$test_name")
        done
        for test_name in "${by_speed[@]}"; do
            [[ " ${order[*]} " == *" $test_name "* ]] || order+=("$test_name")
        done
        for test_name in "${order[@]}"; do
            ran=$((ran + 1))
            if ! failed=$(run_suite "$test_name" "$work/test.log"); then
                if [ -z "$failed" ]; then
                    # run_suite always names why a suite failed: an empty answer is this script's
                    # own error, which must never count as a kill
                    echo "mutants: the runner failed while testing $name with meson test $test_name" >&2
                    exit 2
                fi
                case $failed in
                */*) by=$failed where="meson test $test_name" ;;
                *) by="meson test $test_name" where=$failed ;;
                esac
                break
            fi
        done
    fi
    # Revert and rebuild (counted in this mutant's time: a mutated header recompiles most of the
    # tree twice). The copy gets a new modification time, so ninja does recompile it.
    cp "$work/original" "$target"
    if ! ninja -C "$build" >"$work/ninja.log" 2>&1; then
        tail -n 20 "$work/ninja.log" >&2
        echo "mutants: the copy does not build again after reverting $name (log above)" >&2
        exit 2
    fi
    elapsed=$(seconds_since "$t0")
    if [ -n "$by" ]; then
        killed=$((killed + 1))
        line="killed by $by  ($where, $elapsed s)"
        [ -n "$m_known" ] && line="$line  [listed as a known survivor: delete its known: line]"
    else
        survived=$((survived + 1))
        line="SURVIVED  ($ran meson tests passed, $elapsed s)"
        [ -n "$m_known" ] && line="$line  [known: $m_known]"
        survivors+=("$name ($m_file): $m_why")
    fi
    echo "$label $line"
done

summary="mutants: $killed killed, $survived survived"
[ $stale -gt 0 ] && summary="$summary, $stale stale"
echo "$summary  (total $(seconds_since "$started") s, of which $setup_time s to build the copy and run the suite once)"
if [ $survived -gt 0 ]; then
    echo "survivors (bugs the suite does not see):"
    for line in "${survivors[@]}"; do echo "  $line"; done
fi
if [ $stale -gt 0 ]; then
    echo "stale mutants (update the text to find, or delete the mutant if the spot is gone):"
    for line in "${stale_list[@]}"; do echo "  $line"; done
fi
[ $survived -eq 0 ] && [ $stale -eq 0 ]
