#!/usr/bin/env bash
# compare_builds.sh — the default build (generic x86-64, kernels chosen at run time) against the
# native one (-march=native) on the README's benchmarks: `softrast bench raster` on 1 and 2
# threads and `softrast bench bvh`, per mesh, the two builds' programs run in alternating rounds
# (A B A B ...) so that the machine's drift hits both alike. Prints one markdown table of medians
# and the ratios default / native (frame time; for rays, native rays/s over default rays/s, so
# that above 1 always means the default build is slower).
#
#   tests/bench/compare_builds.sh NATIVE_BUILD DEFAULT_BUILD [ROUNDS] [RUNS] [MESH.obj ...]
#
# Defaults: 5 rounds of 11 runs; meshes: ../shared/meshes (or $SOFTRAST_MESHES) and the generated
# meshes of run_benchmarks.sh in $TMPDIR/softrast-bench when they are there.
set -euo pipefail
cd "$(dirname "$0")/../.."
native=${1:?usage: compare_builds.sh NATIVE_BUILD DEFAULT_BUILD [ROUNDS] [RUNS] [MESH.obj ...]}
portable=${2:?usage: compare_builds.sh NATIVE_BUILD DEFAULT_BUILD [ROUNDS] [RUNS] [MESH.obj ...]}
rounds=${3:-5}
runs=${4:-11}
shift $(( $# < 4 ? $# : 4 ))
for b in "$native" "$portable"; do
    [ -x "$b/src/app/softrast" ] || { echo "compare_builds.sh: $b/src/app/softrast not found: build it first" >&2; exit 1; }
done
meshes=("$@")
if [ ${#meshes[@]} -eq 0 ]; then
    shared=${SOFTRAST_MESHES:-../shared/meshes}
    tmp=${TMPDIR:-/tmp}/softrast-bench
    for m in "$shared"/teapot.obj "$shared"/bunny.obj "$shared"/dragon_res3.obj "$tmp"/dragon_x16.obj \
        "$tmp"/sphere_202520.obj "$tmp"/sphere_871414.obj; do
        [ -f "$m" ] && meshes+=("$m")
    done
fi
[ ${#meshes[@]} -gt 0 ] || { echo "compare_builds.sh: no meshes" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for mesh in "${meshes[@]}"; do
    for r in $(seq "$rounds"); do
        for b in "$native" "$portable"; do
            for t in 1 2; do
                echo "raster $t $b $("$b/src/app/softrast" bench raster "$mesh" --runs "$runs" --threads "$t")" >>"$out"
            done
            echo "bvh 1 $b $("$b/src/app/softrast" bench bvh "$mesh" --runs "$runs")" >>"$out"
        done
    done
done
python3 - "$out" "$native" "$portable" <<'PY'
import json, statistics, sys, os
path, native, portable = sys.argv[1:]
rows = {}
isa = {}
for line in open(path):
    kind, threads, build, text = line.split(" ", 3)
    d = json.loads(text)
    key = (os.path.basename(d["mesh"]), kind, threads)
    value = d["frame_ms"]["median"] if kind == "raster" else d["rays_per_s"] / 1e6
    rows.setdefault(key, {}).setdefault(build, []).append(value)
    isa[build] = d.get("isa", "?")
print(f"native: {native} ({isa.get(native)}), default: {portable} ({isa.get(portable)})\n")
print("| mesh | benchmark | native | default | default / native |")
print("|---|---|---|---|---|")
for (mesh, kind, threads), by in rows.items():
    n, p = statistics.median(by[native]), statistics.median(by[portable])
    if kind == "raster":
        print(f"| {mesh} | frame ms, {threads} thread{'s' if threads != '1' else ''} | {n:.2f} | {p:.2f} | {p / n:.2f} |")
    else:
        print(f"| {mesh} | M rays/s | {n:.1f} | {p:.1f} | {n / p:.2f} |")
PY
