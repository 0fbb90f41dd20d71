#!/usr/bin/env python3
"""make_mesh.py — writes a bumpy closed sphere as a Wavefront OBJ, for BVH and raster benchmarks
on meshes larger than the ones in ../shared/meshes. Generated meshes are never committed.

    python3 tests/bench/make_mesh.py --triangles 1000000 --out /tmp/sphere_1m.obj

The sphere is a subdivided cube (each face an n x n grid of quads, two triangles each, so
12 n^2 triangles: the smallest n reaching --triangles is used) projected onto the unit sphere and
displaced along the radius by a sum of sines, so that its BVH sees a surface with bumps at
several scales rather than a perfect sphere. Vertices on cube edges are shared: the mesh is
closed. Faces are wound counter-clockwise seen from outside. Deterministic: no randomness.
"""
import argparse
import math
import os
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--triangles", type=int, default=1_000_000,
                        help="at least this many triangles (default 1000000)")
    parser.add_argument("--out", required=True, help="OBJ file to write (written atomically)")
    args = parser.parse_args()
    if args.triangles < 12 or args.triangles > 200_000_000:
        sys.exit("make_mesh.py: --triangles must be in [12, 200000000]")

    n = max(1, math.ceil(math.sqrt(args.triangles / 12.0)))
    index_of = {}
    lines = []

    def vertex(i, j, k):
        """Index (1-based) of the cube-surface grid point (i, j, k), each in [0, n]."""
        key = (i, j, k)
        found = index_of.get(key)
        if found is not None:
            return found
        x, y, z = (2.0 * i / n - 1.0, 2.0 * j / n - 1.0, 2.0 * k / n - 1.0)
        length = math.sqrt(x * x + y * y + z * z)
        x, y, z = x / length, y / length, z / length
        r = (1.0 + 0.08 * math.sin(5.0 * x + 1.0) * math.sin(7.0 * y + 2.0) * math.sin(6.0 * z + 3.0)
             + 0.02 * math.sin(23.0 * x) * math.sin(19.0 * y + 1.0) * math.sin(29.0 * z + 2.0))
        lines.append("v %.7g %.7g %.7g\n" % (x * r, y * r, z * r))
        index_of[key] = len(index_of) + 1
        return index_of[key]

    faces = []
    # Each cube face: a fixed axis at 0 or n, and two running axes (a, b) ordered so that
    # a x b points outwards (counter-clockwise winding seen from outside).
    for axis in range(3):
        for side in (0, n):
            a_axis, b_axis = (axis + 1) % 3, (axis + 2) % 3
            if side == 0:
                a_axis, b_axis = b_axis, a_axis

            def point(a, b):
                p = [0, 0, 0]
                p[axis], p[a_axis], p[b_axis] = side, a, b
                return vertex(*p)

            for a in range(n):
                for b in range(n):
                    v00, v10 = point(a, b), point(a + 1, b)
                    v11, v01 = point(a + 1, b + 1), point(a, b + 1)
                    faces.append("f %d %d %d\n" % (v00, v10, v11))
                    faces.append("f %d %d %d\n" % (v00, v11, v01))

    directory = os.path.dirname(os.path.abspath(args.out))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".make_mesh.")
    try:
        with os.fdopen(handle, "w") as out:
            out.write("# bumpy cube-sphere, %d triangles (tests/bench/make_mesh.py)\n" % len(faces))
            out.writelines(lines)
            out.writelines(faces)
        os.chmod(temporary, 0o644)  # mkstemp creates 0600; an OBJ is not a secret
        os.replace(temporary, args.out)
    except BaseException:
        os.unlink(temporary)
        raise
    print("%s: %d vertices, %d triangles" % (args.out, len(lines), len(faces)))


if __name__ == "__main__":
    main()
