#!/usr/bin/env python3
"""make_mesh.py — writes a bumpy closed sphere, or a subdivided copy of a given mesh, as a
Wavefront OBJ, for BVH and raster benchmarks on meshes larger than the ones in ../shared/meshes.
Generated meshes are never committed.

    python3 tests/bench/make_mesh.py --triangles 1000000 --out /tmp/sphere_1m.obj
    python3 tests/bench/make_mesh.py --subdivide ../shared/meshes/dragon_res3.obj --levels 2 \
        --out /tmp/dragon_x16.obj

--subdivide splits every triangle of the mesh (polygons are fan-triangulated, as softrast does)
into four at its edge midpoints, --levels times (default 2: 16 triangles per triangle), sharing
each midpoint between the triangles of an edge: the surface, its silhouette and the pixels it
covers stay exactly those of the input, only the triangle count grows. dragon_res3 (47,794
triangles) at 2 levels gives 764,704 triangles, a stand-in of the size of the 871,414-triangle
Stanford dragon that keeps the dragon's shape and screen coverage. Triangle order: the four
children of a triangle follow each other, in the order of their parent.

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


def read_obj(path):
    """Vertices and fan-triangulated faces (0-based) of the v and f lines of an OBJ file."""
    vertices, triangles = [], []
    try:
        obj = open(path)
    except OSError as error:
        sys.exit("make_mesh.py: %s: cannot read: %s" % (path, error.strerror))
    with obj:
        for number, line in enumerate(obj, 1):
            fields = line.split()
            if not fields:
                continue
            try:
                if fields[0] == "v":
                    vertex = tuple(float(x) for x in fields[1:4])
                    if len(vertex) != 3 or not all(math.isfinite(x) for x in vertex):
                        raise ValueError("a vertex needs three finite coordinates")
                    vertices.append(vertex)
                elif fields[0] == "f":
                    corners = []
                    for field in fields[1:]:
                        index = int(field.split("/")[0])
                        corners.append(index - 1 if index > 0 else len(vertices) + index)
                    if any(c < 0 or c >= len(vertices) for c in corners) or len(corners) < 3:
                        raise ValueError("a face index is out of range")
                    for k in range(1, len(corners) - 1):
                        triangles.append((corners[0], corners[k], corners[k + 1]))
            except ValueError as error:
                sys.exit("make_mesh.py: %s:%d: %s" % (path, number, error))
    if not triangles:
        sys.exit("make_mesh.py: %s: no faces to subdivide" % path)
    return vertices, triangles


def subdivide(vertices, triangles):
    """One level of midpoint subdivision: 4 triangles per triangle, midpoints shared per edge."""
    vertices = list(vertices)
    midpoint_of = {}

    def midpoint(a, b):
        key = (a, b) if a < b else (b, a)
        found = midpoint_of.get(key)
        if found is None:
            pa, pb = vertices[a], vertices[b]
            vertices.append(tuple(0.5 * (pa[k] + pb[k]) for k in range(3)))
            found = midpoint_of[key] = len(vertices) - 1
        return found

    out = []
    for a, b, c in triangles:
        ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
        out += [(a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca)]  # same winding as the parent
    return vertices, out


def write_atomically(path, header, vertex_lines, face_lines):
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".make_mesh.")
    except OSError as error:
        sys.exit("make_mesh.py: --out %s: cannot write in %s: %s" % (path, directory, error.strerror))
    try:
        with os.fdopen(handle, "w") as out:
            out.write(header)
            out.writelines(vertex_lines)
            out.writelines(face_lines)
        os.chmod(temporary, 0o644)  # mkstemp creates 0600; an OBJ is not a secret
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--triangles", type=int, default=1_000_000,
                        help="bumpy sphere: at least this many triangles (default 1000000)")
    parser.add_argument("--subdivide", metavar="MESH.obj",
                        help="subdivide this mesh instead of making a sphere")
    parser.add_argument("--levels", type=int, default=2,
                        help="--subdivide: levels of 1-to-4 splits, 1 to 6 (default 2)")
    parser.add_argument("--out", required=True, help="OBJ file to write (written atomically)")
    args = parser.parse_args()
    if args.subdivide:
        if not 1 <= args.levels <= 6:
            sys.exit("make_mesh.py: --levels must be in [1, 6]")
        vertices, triangles = read_obj(args.subdivide)
        for _ in range(args.levels):
            vertices, triangles = subdivide(vertices, triangles)
        write_atomically(args.out,
                         "# %s subdivided %d times, %d triangles (tests/bench/make_mesh.py)\n"
                         % (os.path.basename(args.subdivide), args.levels, len(triangles)),
                         ["v %.9g %.9g %.9g\n" % v for v in vertices],
                         ["f %d %d %d\n" % (a + 1, b + 1, c + 1) for a, b, c in triangles])
        print("%s: %d vertices, %d triangles" % (args.out, len(vertices), len(triangles)))
        return
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

    write_atomically(args.out, "# bumpy cube-sphere, %d triangles (tests/bench/make_mesh.py)\n" % len(faces),
                     lines, faces)
    print("%s: %d vertices, %d triangles" % (args.out, len(lines), len(faces)))


if __name__ == "__main__":
    main()
