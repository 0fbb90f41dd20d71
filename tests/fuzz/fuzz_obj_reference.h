/* tests/fuzz/fuzz_obj_reference.h — an independent reading of an OBJ text for the OBJ fuzz
 * target (fuzz_obj.c): what sr_obj_load must make of a text it accepted, read the simple way
 * (strtof per number, the index rules of scene.h, the names of o/g/usemtl/newmtl), from
 * scene.h's contract and not from src/scene/. Arrays sized by the text, freed by
 * fuzz_obj_reference_free. */
#ifndef SR_FUZZ_OBJ_REFERENCE_H
#define SR_FUZZ_OBJ_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* No index: a corner without vt or vn. */
#define NONE UINT32_MAX

static inline bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

typedef struct corner {
    uint32_t v, t, n;
} corner;

typedef struct name_ref {
    const char *start;
    size_t length;
} name_ref;

typedef struct group_ref {
    name_ref name;
    size_t first, count;
} group_ref;

/* Everything the reference reads from one OBJ text (and its MTL). Arrays sized by the text. */
typedef struct reference {
    float (*positions)[3];
    float (*colors)[4];
    bool any_color;
    size_t position_count;
    float (*uvs)[2];
    size_t uv_count;
    float (*normals)[3];
    size_t normal_count;
    corner *corners;
    size_t corner_count;
    size_t *face_starts; /* corners of face f: face_starts[f] .. face_starts[f + 1] */
    size_t face_count;
    name_ref *face_materials; /* the usemtl name in force at each face (length 0: none) */
    bool *face_has_material;
    group_ref *groups;
    size_t group_count;
    bool group_open;
    size_t triangle_count;
    bool any_mtllib;
    name_ref *materials; /* newmtl names of the MTL, first definitions */
    size_t material_count;
} reference;

static inline bool same_name(name_ref a, name_ref b)
{
    return a.length == b.length && memcmp(a.start, b.start, a.length) == 0;
}

/// Reads the prepared OBJ text (which sr_obj_load accepted) into r.
void fuzz_obj_reference_read(reference *r, const char *text, size_t length);
/// newmtl names of the MTL text, first definitions, in order, into r->materials (room for
/// `capacity`).
void fuzz_obj_reference_read_materials(reference *r, const char *mtl, size_t capacity);
void fuzz_obj_reference_free(reference *r);

#endif
