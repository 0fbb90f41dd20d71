// bench_obj_tinyobjloader.cpp — the baseline side of bench_obj.c: one OBJ load through
// tinyobjloader's LoadObj (Debian's libtinyobjloader-dev, the library built with float reals),
// triangulating, as a C function so that bench_obj.c stays C. Built only where the library is
// installed; never run by `meson test`.
#include <tiny_obj_loader.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

extern "C" {
/// Loads `path` with tinyobjloader (materials from the file's folder) and returns whether it
/// succeeded; *triangles and *vertices get the triangle count of all shapes and the number of
/// `v` positions. The loaded data is freed before returning.
bool bench_obj_tinyobjloader_load(const char *path, size_t *triangles, size_t *vertices);
}

bool bench_obj_tinyobjloader_load(const char *path, size_t *triangles, size_t *vertices)
{
    tinyobj::attrib_t attrib;
    std::vector<tinyobj::shape_t> shapes;
    std::vector<tinyobj::material_t> materials;
    std::string warn, err;
    std::string folder(path);
    size_t slash = folder.find_last_of('/');
    folder = slash == std::string::npos ? std::string("./") : folder.substr(0, slash + 1);
    bool ok = tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, path, folder.c_str(), true);
    if (!ok) {
        std::fprintf(stderr, "bench_obj: tinyobjloader: %s: %s\n", path, err.c_str());
        return false;
    }
    size_t count = 0;
    for (const tinyobj::shape_t &shape : shapes)
        count += shape.mesh.indices.size() / 3;
    *triangles = count;
    *vertices = attrib.vertices.size() / 3;
    return true;
}
