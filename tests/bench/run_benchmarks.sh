#!/usr/bin/env bash
# run_benchmarks.sh — the figures of the README: `softrast bench raster` and `softrast bench bvh`
# over ../shared/meshes and generated meshes of the Stanford dragons' sizes (bumpy spheres, and
# dragon_res3 subdivided to 764,704 triangles), with softrast and Embree 3 side by side on each
# mesh where tests/bench/bench_embree is built, OBJ loading next to tinyobjloader where
# tests/bench/bench_obj is built, plus the dynamic tree benchmark. Prints the JSON lines and
# markdown tables of medians.
#
#   tests/bench/run_benchmarks.sh [BUILD_DIR] [RUNS]      (defaults: build, 11)
#
# Needs a configured release build (./softrast.sh run makes one); builds the programs it runs.
# Generated meshes go to $TMPDIR (never committed); ../shared/meshes (or $SOFTRAST_MESHES) is
# skipped with a message when absent.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-11}
only=${3:-}
exe=$build/src/app/softrast
[ -f "$build/build.ninja" ] || { echo "run_benchmarks.sh: $build is not a configured build: make one first (./softrast.sh run)" >&2; exit 1; }
# The benchmark programs are not built by default (tests/bench/meson.build): build the program and
# every benchmark this configuration has (the alias target `benchmarks`), its output on stderr.
targets=(src/app/softrast)
if ninja -C "$build" -t query benchmarks >/dev/null 2>&1; then targets+=(benchmarks); fi
ninja -C "$build" "${targets[@]}" >&2 || { echo "run_benchmarks.sh: building ${targets[*]} in $build failed" >&2; exit 1; }
tmp=${TMPDIR:-/tmp}/softrast-bench
mkdir -p "$tmp"

shared=${SOFTRAST_MESHES:-../shared/meshes}
meshes=()
if [ -d "$shared" ]; then
    meshes+=("$shared"/teapot.obj "$shared"/bunny.obj "$shared"/dragon_res3.obj)
else
    echo "run_benchmarks.sh: $shared is absent: only generated meshes" >&2
fi
if [ -d "$shared" ]; then
    # the Stanford dragon's shape at its size: dragon_res3 split 16-fold (764,704 triangles)
    mesh=$tmp/dragon_x16.obj
    [ -f "$mesh" ] || python3 tests/bench/make_mesh.py --subdivide "$shared"/dragon_res3.obj --levels 2 \
        --out "$mesh" >&2
    meshes+=("$mesh")
fi
for size in 202520 871414 1000000; do
    mesh=$tmp/sphere_$size.obj
    [ -f "$mesh" ] || python3 tests/bench/make_mesh.py --triangles "$size" --out "$mesh" >&2
    meshes+=("$mesh")
done

raster=()
bvh=()
embree=()
obj=()
llvmpipe=()
llvmpipe_exe=$build/tests/bench/bench_llvmpipe
[ -x "$llvmpipe_exe" ] || echo "run_benchmarks.sh: $llvmpipe_exe not built (apt-get install libosmesa6-dev, then reconfigure): no llvmpipe table" >&2
embree_exe=$build/tests/bench/bench_embree
[ -x "$embree_exe" ] || echo "run_benchmarks.sh: $embree_exe not built (apt-get install libembree-dev, then reconfigure): no Embree column" >&2
obj_exe=$build/tests/bench/bench_obj
[ -x "$obj_exe" ] || echo "run_benchmarks.sh: $obj_exe not built (apt-get install libtinyobjloader-dev, then reconfigure): no OBJ loading table" >&2
for mesh in "${meshes[@]}"; do
    if [ -x "$obj_exe" ] && [ "$only" != raster ]; then
        # sr_obj_load and tinyobjloader's LoadObj side by side in one process
        line=$("$obj_exe" "$mesh" --runs "$runs")
        echo "$line"
        obj+=("$line")
    fi
    for threads in 1 2; do
        line=$("$exe" bench raster "$mesh" --runs "$runs" --threads "$threads")
        echo "$line"
        raster+=("$line")
        if [ -x "$llvmpipe_exe" ]; then
            # softrast and llvmpipe side by side in one process (one process per thread count:
            # llvmpipe reads LP_NUM_THREADS once). On a shared machine, a row whose probe found
            # fewer than 1.8 cores free before or after it is measured again, up to 3 times in
            # all (the table shows the probe of the row kept).
            for attempt in 1 2 3; do
                line=$("$llvmpipe_exe" "$mesh" --runs "$runs" --threads "$threads")
                echo "$line"
                python3 -c 'import json, sys; sys.exit(min(json.loads(sys.argv[1])["machine_parallelism"]) < 1.8)' \
                    "$line" && break
            done
            llvmpipe+=("$line")
        fi
    done
    [ "$only" = raster ] && continue
    line=$("$exe" bench bvh "$mesh" --runs "$runs")
    echo "$line"
    bvh+=("$line")
    if [ -x "$embree_exe" ]; then
        # softrast and Embree side by side in one process (the README's benchmark scene rays)
        line=$("$embree_exe" "$mesh" --runs "$runs")
        echo "$line"
        embree+=("$line")
    fi
done
# The dynamic tree, then the same workload on Bullet's btDbvt and Box2D's b2DynamicTree where
# those baselines are built (apt-get install libbullet-dev libbox2d-dev, then reconfigure).
dynamic=()
[ "$only" = raster ] || for program in bench_dynamic bench_dynamic_bullet bench_dynamic_box2d; do
    if [ -x "$build/tests/bench/$program" ]; then
        line=$("$build/tests/bench/$program" 2>/dev/null | tail -n 1)
        echo "$line"
        dynamic+=("$line")
    else
        echo "run_benchmarks.sh: $build/tests/bench/$program not built: skipped" >&2
    fi
done

python3 - "${raster[@]}" -- "${bvh[@]}" -- "${embree[@]}" -- "${dynamic[@]}" -- "${obj[@]}" -- "${llvmpipe[@]}" <<'PY'
import json, os, sys
args = sys.argv[1:]
first = args.index("--")
second = args.index("--", first + 1)
third = args.index("--", second + 1)
fourth = args.index("--", third + 1)
fifth = args.index("--", fourth + 1)
raster = [json.loads(a) for a in args[:first]]
bvh = [json.loads(a) for a in args[first + 1:second]]
embree = {e["mesh"]: e for e in (json.loads(a) for a in args[second + 1:third])}
dynamic = [json.loads(a) for a in args[third + 1:fourth]]
obj = [json.loads(a) for a in args[fourth + 1:fifth]]
llvmpipe = [json.loads(a) for a in args[fifth + 1:]]
print("\n| mesh | triangles | frame ms, 1 thread | frame ms, 2 threads |")
print("|---|---|---|---|")
by_mesh = {}
for r in raster:
    by_mesh.setdefault(r["mesh"], {})[r["threads"]] = r
for mesh, r in by_mesh.items():
    print(f"| {os.path.basename(mesh)} | {r[1]['triangles']:,} | {r[1]['frame_ms']['median']:.1f} | "
          f"{r[2]['frame_ms']['median']:.1f} |")
if llvmpipe:
    print("\nSide by side with Mesa's llvmpipe (bench_llvmpipe: softrast, llvmpipe and, with 2 threads, softrast on "
          "one thread in rotating order in one process; ratios are medians of per-round ratios; coverage: pixels "
          "covered by only one of the two / pixels where they drew different front triangles; machine: how much "
          "faster two threads ran two pieces of fixed work than one thread, before / after the row, about 2 when two "
          "cores were free)\n")
    print("| mesh | triangles | threads | softrast ms | llvmpipe ms | softrast / llvmpipe | softrast, 1 thread, ms "
          "| ratio to 1 thread | coverage differences | machine |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for l in llvmpipe:
        c = l["covered"]
        one = f"{l['softrast_1_thread_ms']:.2f} | {l['ratio_to_1_thread']:.2f}" if l["threads"] > 1 else "— | —"
        print(f"| {os.path.basename(l['mesh'])} | {l['triangles']:,} | {l['threads']} | {l['softrast_ms']:.2f} | "
              f"{l['llvmpipe_ms']:.2f} | {l['ratio']:.2f} | {one} | "
              f"{c['only_softrast'] + c['only_llvmpipe']} / {c['other_triangle']} of {c['llvmpipe']:,} | "
              f"{l['machine_parallelism'][0]:.2f} / {l['machine_parallelism'][1]:.2f} |")
if bvh:
    print("\n| mesh | triangles | build ms | SAH cost | nodes | M rays/s |")
    print("|---|---|---|---|---|---|")
for b in bvh:
    print(f"| {os.path.basename(b['mesh'])} | {b['triangles']:,} | {b['build_ms']['median']:.1f} | "
          f"{b['sah_cost']:.1f} | {b['nodes']:,} | {b['rays_per_s'] / 1e6:.2f} |")
if embree:
    print("\nSide by side with Embree (bench_embree: both in one process, alternating rounds; ratios are "
          "medians of per-round ratios)\n")
    print("| mesh | softrast build ms | Embree build ms | build time ratio | softrast M rays/s | Embree M rays/s "
          "| rays/s ratio | 8-ray packets: M rays/s, ratio | 16-ray packets: M rays/s, ratio "
          "| bytes per triangle, softrast / Embree |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mesh, e in embree.items():
        s, m = e["softrast"], e["embree"]
        cells = [f"{s['build_ms']:.1f}", f"{m['build_ms']:.1f}", f"{e['build_time_ratio']:.2f}",
                 f"{s['rays_per_s'] / 1e6:.2f}", f"{m['rays_per_s'] / 1e6:.2f}", f"{e['rays_per_s_ratio']:.2f}"]
        for size in (8, 16):
            key = f"packet{size}"
            cells.append(f"{s[key]['rays_per_s'] / 1e6:.1f} / {m[key]['rays_per_s'] / 1e6:.1f}, "
                         f"{e[key + '_rays_per_s_ratio']:.2f}" if key in s else "—")
        cells.append(f"{s['bytes_per_triangle']['total']:.0f} / {m['bytes_per_triangle']:.0f}"
                     if "bytes_per_triangle" in s else "—")
        print(f"| {os.path.basename(mesh)} | " + " | ".join(cells) + " |")
    if any("single_by_kind" in e for e in embree.values()):
        print("\nSingle rays by kind (bench_embree: each kind's rays traced apart, in image order; ns per ray, "
              "medians; ratio: softrast / Embree rays per second)\n")
        print("| mesh | outside the mesh's box: rays, softrast / Embree ns, ratio "
              "| in the box, no hit | hit |")
        print("|---|---|---|---|")
        for mesh, e in embree.items():
            k = e.get("single_by_kind")
            if not k:
                continue
            cells = [f"{k[n]['rays']:,}, {k[n]['softrast_ns']:.1f} / {k[n]['embree_ns']:.1f}, "
                     f"{k[n]['rays_per_s_ratio']:.2f}" for n in ("outside_box", "box_no_hit", "hit")]
            print(f"| {os.path.basename(mesh)} | " + " | ".join(cells) + " |")
    if any("single_robust" in e for e in embree.values()):
        print("\nSingle rays against Embree's robust mode (bench_embree: RTC_SCENE_FLAG_ROBUST, Embree's watertight "
              "traversal and triangle test, the work softrast's exact ones do; whole image, rounds of their own)\n")
        print("| mesh | softrast M rays/s | Embree robust M rays/s | rays/s ratio | hits, softrast / Embree robust |")
        print("|---|---|---|---|---|")
        for mesh, e in embree.items():
            r = e.get("single_robust")
            if not r:
                continue
            print(f"| {os.path.basename(mesh)} | {r['softrast_rays_per_s'] / 1e6:.2f} | "
                  f"{r['embree_rays_per_s'] / 1e6:.2f} | {r['rays_per_s_ratio']:.2f} | "
                  f"{e['softrast']['hits']:,} / {r['embree_hits']:,} |")
if obj:
    print("\nOBJ loading side by side with tinyobjloader (bench_obj: both in one process, alternating rounds; "
          "softrast also computes the normals; the ratio is the median of per-round ratios)\n")
    print("| mesh | triangles | file MB | softrast ms | tinyobjloader ms | time ratio |")
    print("|---|---|---|---|---|---|")
    for o in obj:
        size = os.path.getsize(o["mesh"]) / 1e6
        print(f"| {os.path.basename(o['mesh'])} | {o['triangles']['softrast']:,} | {size:.1f} | "
              f"{o['softrast_ms']:.1f} | {o['tinyobjloader_ms']:.1f} | {o['ratio']:.2f} |")
if dynamic:
    names = {"dynamic_tree": "softrast", "dynamic_tree_bullet_btdbvt": "Bullet btDbvt",
             "dynamic_tree_box2d_b2dynamictree": "Box2D b2DynamicTree (2D, x-z)"}
    fields = [("insert_us", "insert, µs"), ("move_mixed_us", "move, mixed, µs"),
              ("move_reinsert_us", "move, reinsert, µs"), ("remove_us", "remove, µs"),
              ("frustum_ms", "frustum cull, ms"), ("insert_into_10k_us", "insert into 10k, µs"),
              ("rebuild_10k_ms", "rebuild 10k, ms"), ("sah_incremental", "SAH after inserts")]
    print("\n| operation (100,000 objects) | " + " | ".join(names.get(d["bench"], d["bench"]) for d in dynamic) + " |")
    print("|---|" + "---|" * len(dynamic))
    for key, label in fields:
        cells = [("%.3g" % d[key]) if isinstance(d.get(key), (int, float)) else "—" for d in dynamic]
        print(f"| {label} | " + " | ".join(cells) + " |")
PY
