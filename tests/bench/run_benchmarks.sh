#!/usr/bin/env bash
# run_benchmarks.sh — the figures of the README: `softrast bench raster` and `softrast bench bvh`
# over ../shared/meshes and generated meshes of the Stanford dragons' sizes, plus the dynamic
# tree benchmark. Prints the JSON lines and a markdown table of medians.
#
#   tests/bench/run_benchmarks.sh [BUILD_DIR] [RUNS]      (defaults: build, 11)
#
# Needs a release build (./softrast.sh run makes one). Generated meshes go to $TMPDIR (never
# committed); ../shared/meshes is skipped with a message when absent.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-11}
exe=$build/src/app/softrast
[ -x "$exe" ] || { echo "run_benchmarks.sh: $exe not found: build first (./softrast.sh run)" >&2; exit 1; }
tmp=${TMPDIR:-/tmp}/softrast-bench
mkdir -p "$tmp"

meshes=()
if [ -d ../shared/meshes ]; then
    meshes+=(../shared/meshes/teapot.obj ../shared/meshes/bunny.obj ../shared/meshes/dragon_res3.obj)
else
    echo "run_benchmarks.sh: ../shared/meshes is absent: only generated meshes" >&2
fi
for size in 202520 871414 1000000; do
    mesh=$tmp/sphere_$size.obj
    [ -f "$mesh" ] || python3 tests/bench/make_mesh.py --triangles "$size" --out "$mesh" >&2
    meshes+=("$mesh")
done

raster=()
bvh=()
for mesh in "${meshes[@]}"; do
    for threads in 1 2; do
        line=$("$exe" bench raster "$mesh" --runs "$runs" --threads "$threads")
        echo "$line"
        raster+=("$line")
    done
    line=$("$exe" bench bvh "$mesh" --runs "$runs")
    echo "$line"
    bvh+=("$line")
done
[ -x "$build/tests/bench/bench_dynamic" ] && "$build/tests/bench/bench_dynamic"

python3 - "${raster[@]}" -- "${bvh[@]}" <<'PY'
import json, os, sys
args = sys.argv[1:]
split = args.index("--")
raster = [json.loads(a) for a in args[:split]]
bvh = [json.loads(a) for a in args[split + 1:]]
print("\n| mesh | triangles | frame ms, 1 thread | frame ms, 2 threads |")
print("|---|---|---|---|")
by_mesh = {}
for r in raster:
    by_mesh.setdefault(r["mesh"], {})[r["threads"]] = r
for mesh, r in by_mesh.items():
    print(f"| {os.path.basename(mesh)} | {r[1]['triangles']:,} | {r[1]['frame_ms']['median']:.1f} | "
          f"{r[2]['frame_ms']['median']:.1f} |")
print("\n| mesh | triangles | build ms | SAH cost | nodes | M rays/s |")
print("|---|---|---|---|---|---|")
for b in bvh:
    print(f"| {os.path.basename(b['mesh'])} | {b['triangles']:,} | {b['build_ms']['median']:.1f} | "
          f"{b['sah_cost']:.1f} | {b['nodes']:,} | {b['rays_per_s'] / 1e6:.2f} |")
PY
