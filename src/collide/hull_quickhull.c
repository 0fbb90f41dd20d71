/* src/collide/hull_quickhull.c — the solid case of sr_hull_create (hull.c): quickhull in double
 * over a half-edge mesh with polygon faces, from a first tetrahedron to the finished hull's tables.
 * Knows nothing of the queries, nor of raster, scene or SDL.
 *
 * The algorithm is Barber, Dobkin & Huhdanpaa's quickhull with the face merging that John
 * Lloyd's QuickHull3D made practical: a point joins the hull only when it is more than the
 * tolerance above a face; after every step, new faces that are not clearly convex against a
 * neighbour (its centroid not below their plane by more than the tolerance) are merged with it,
 * first against the larger face, then both ways; vertices left between two edges of the same pair
 * of faces are removed, and a neighbour that would be left with two edges is absorbed. So faces
 * are polygons (coplanar triangles merged), every edge is convex, and the visible region of the
 * next point is a disc with one horizon loop. Beyond QuickHull3D: face normals in double-double
 * (slivers: hull_dd.h), faces no wider than the tolerance merged into a neighbour (as Jolt does), merges of
 * nearly coplanar faces refused when they would make a loop that is not convex, a last pass that
 * merges what became coplanar late and removes vertices left between two faces.
 *
 * The result is checked (every half-edge's twin, faces of three or more vertices with convex loops,
 * V - E + F = 2); should it ever fail (found in about one of 20,000 random degenerate point sets
 * while this was written), the hull is rebuilt with a ten times larger tolerance. */
#include "collide_internal.h"
#include "hull_dd.h"

#include <stdlib.h>
#include <string.h>

#define NONE (-1)
#define REBUILD_ATTEMPTS 4

/* ---- growable arrays ---- */

typedef struct index_array {
    int32_t *items;
    size_t count, capacity;
} index_array;

static bool reserve(void **items, size_t *capacity, size_t needed, size_t item_size)
{
    if (needed <= *capacity)
        return true;
    size_t new_capacity = *capacity ? *capacity * 2 : 64;
    if (new_capacity < needed)
        new_capacity = needed;
    void *grown = *items ? sr_realloc(*items, new_capacity * item_size) : sr_alloc_array(new_capacity, item_size);
    if (!grown)
        return false;
    *items = grown;
    *capacity = new_capacity;
    return true;
}

static bool push(index_array *array, int32_t value)
{
    if (!reserve((void **)&array->items, &array->capacity, array->count + 1, sizeof(int32_t)))
        return false;
    array->items[array->count++] = value;
    return true;
}

/* ---- the builder's half-edge mesh ---- */

typedef struct half_edge {
    int32_t head; /* the point it points to; its tail is the head of prev */
    int32_t face, next, prev, twin;
} half_edge;

enum { FACE_LIVE = 0, FACE_DELETED = 1 };

typedef struct hull_face {
    int32_t edge; /* any half-edge of the face */
    int32_t vertex_count;
    int32_t state;
    int32_t outside; /* first point of the face's outside set (points above it), NONE if empty */
    int32_t longest; /* its longest half-edge */
    sr_dvec3 normal, centroid;
    double offset, area;
    double width; /* the largest distance of a vertex from the longest edge's line */
} hull_face;

typedef struct point_link {
    int32_t next, prev; /* in the outside set of `face` */
    int32_t face;       /* NONE: in no outside set */
} point_link;

typedef struct builder {
    const sr_dvec3 *p; /* the points, moved to their box's centre */
    size_t n;
    double tolerance;
    point_link *links;
    half_edge *edges;
    size_t edge_count, edge_capacity;
    hull_face *faces;
    size_t face_count, face_capacity;
    index_array horizon, new_faces, unclaimed, stack, discarded;
    bool out_of_memory;
} builder;

static double face_distance(const builder *b, int32_t f, sr_dvec3 p)
{
    return ddot(b->faces[f].normal, p) - b->faces[f].offset;
}

static int32_t tail_of(const builder *b, int32_t e)
{
    return b->edges[b->edges[e].prev].head;
}

/* Normal, centroid, area and offset of a face, its vertex count, longest edge and width; the
 * normal is Newell's sum (a fan of cross products from the first vertex) in double-double. */
static void face_compute(builder *b, int32_t f)
{
    hull_face *face = &b->faces[f];
    int32_t first = face->edge, e = first;
    sr_dvec3 origin = b->p[b->edges[first].head];
    dd3 sum = {{0, 0}, {0, 0}, {0, 0}};
    sr_dvec3 centroid = dv(0, 0, 0);
    int32_t count = 0, longest = first;
    double longest_length = -1;
    do {
        const half_edge *h = &b->edges[e];
        sr_dvec3 head = b->p[h->head], next_head = b->p[b->edges[h->next].head];
        if (count > 0 && b->edges[h->next].head != b->edges[first].head)
            sum = dd3_add(sum, dd3_cross(dd3_sub(head, origin), dd3_sub(next_head, origin)));
        centroid = dadd(centroid, head);
        double length = dlength_squared(dsub(next_head, head));
        if (length > longest_length) {
            longest_length = length;
            longest = h->next;
        }
        count++;
        e = h->next;
    } while (e != first && count <= (int32_t)b->edge_count);
    face->vertex_count = count;
    face->longest = longest;
    face->centroid = dscale(centroid, 1.0 / count);
    sr_dvec3 n = dv(sum.x.hi + sum.x.lo, sum.y.hi + sum.y.lo, sum.z.hi + sum.z.lo);
    double length = dlength(n);
    face->area = 0.5 * length;
    face->normal = length > 0 ? dscale(n, 1.0 / length) : dv(0, 0, 0);
    face->offset = ddot(face->normal, face->centroid);
    /* width across the longest edge */
    sr_dvec3 a = b->p[tail_of(b, longest)], u = sr_dvec3_normalize(dsub(b->p[b->edges[longest].head], a));
    double width = 0;
    e = first;
    do {
        width = fmax(width, dlength(dcross(dsub(b->p[b->edges[e].head], a), u)));
        e = b->edges[e].next;
    } while (e != first);
    face->width = width;
}

static int32_t new_edge(builder *b, int32_t head, int32_t face)
{
    if (!reserve((void **)&b->edges, &b->edge_capacity, b->edge_count + 1, sizeof(half_edge))) {
        b->out_of_memory = true;
        return NONE;
    }
    b->edges[b->edge_count] = (half_edge){head, face, NONE, NONE, NONE};
    return (int32_t)b->edge_count++;
}

/* A triangle a -> b -> c (counter-clockwise seen from outside); returns the face, its half-edges
 * ending at a, b, c are edges[face's edge], then next, next. */
static int32_t new_triangle(builder *b, int32_t a, int32_t v, int32_t c)
{
    if (!reserve((void **)&b->faces, &b->face_capacity, b->face_count + 1, sizeof(hull_face))) {
        b->out_of_memory = true;
        return NONE;
    }
    int32_t f = (int32_t)b->face_count;
    int32_t e0 = new_edge(b, a, f), e1 = new_edge(b, v, f), e2 = new_edge(b, c, f);
    if (e2 == NONE)
        return NONE;
    b->face_count++;
    b->edges[e0].next = e1, b->edges[e1].next = e2, b->edges[e2].next = e0;
    b->edges[e0].prev = e2, b->edges[e1].prev = e0, b->edges[e2].prev = e1;
    b->faces[f] = (hull_face){.edge = e0, .vertex_count = 3, .state = FACE_LIVE, .outside = NONE};
    face_compute(b, f);
    return f;
}

static void set_twins(builder *b, int32_t e, int32_t t)
{
    b->edges[e].twin = t;
    b->edges[t].twin = e;
}

/* ---- outside sets ---- */

static void add_point_to_face(builder *b, int32_t point, int32_t f)
{
    point_link *link = &b->links[point];
    link->face = f;
    link->prev = NONE;
    link->next = b->faces[f].outside;
    if (link->next != NONE)
        b->links[link->next].prev = point;
    b->faces[f].outside = point;
}

static void remove_point(builder *b, int32_t point)
{
    point_link *link = &b->links[point];
    if (link->prev != NONE)
        b->links[link->prev].next = link->next;
    else
        b->faces[link->face].outside = link->next;
    if (link->next != NONE)
        b->links[link->next].prev = link->prev;
    link->face = link->next = link->prev = NONE;
}

/* Moves the outside set of a face that goes away to `absorbing` (the points still above it) or to
 * the unclaimed points, which the end of the step gives to the new faces or drops. */
static void move_face_points(builder *b, int32_t f, int32_t absorbing)
{
    int32_t point = b->faces[f].outside;
    b->faces[f].outside = NONE;
    while (point != NONE) {
        int32_t next = b->links[point].next;
        b->links[point].face = b->links[point].next = b->links[point].prev = NONE;
        if (absorbing != NONE && face_distance(b, absorbing, b->p[point]) > b->tolerance)
            add_point_to_face(b, point, absorbing);
        else if (!push(&b->unclaimed, point))
            b->out_of_memory = true;
        point = next;
    }
}

/* ---- one step: the horizon, the cone of new faces, the merges ---- */

/* Depth-first walk over the faces the eye sees (more than the tolerance above), from the face it
 * was assigned to, deleting them; the edges of seen faces whose neighbour is not seen form the
 * horizon, collected in order around it (each edge's head is the next one's tail). The recursion
 * of QuickHull3D's calculateHorizon, with an explicit stack of (face, stop edge, edge) frames. */
static void find_horizon(builder *b, sr_dvec3 eye, int32_t eye_face)
{
    b->horizon.count = 0;
    b->stack.count = 0;
    b->faces[eye_face].state = FACE_DELETED;
    move_face_points(b, eye_face, NONE);
    int32_t start = b->faces[eye_face].edge;
    /* frames of 3: the stop edge, the next edge to look across, a "started" flag */
    if (!push(&b->stack, start) || !push(&b->stack, start) || !push(&b->stack, 0)) {
        b->out_of_memory = true;
        return;
    }
    while (b->stack.count && !b->out_of_memory) {
        int32_t *frame = &b->stack.items[b->stack.count - 3];
        if (frame[2] && frame[1] == frame[0]) {
            b->stack.count -= 3;
            continue;
        }
        frame[2] = 1;
        int32_t e = frame[1];
        frame[1] = b->edges[e].next;
        int32_t twin = b->edges[e].twin;
        int32_t neighbour = b->edges[twin].face;
        if (b->faces[neighbour].state != FACE_LIVE)
            continue;
        if (face_distance(b, neighbour, eye) > b->tolerance) {
            b->faces[neighbour].state = FACE_DELETED;
            move_face_points(b, neighbour, NONE);
            /* the neighbour's walk stops at the edge it was entered by */
            if (!push(&b->stack, twin) || !push(&b->stack, b->edges[twin].next) || !push(&b->stack, 1))
                b->out_of_memory = true;
        } else if (!push(&b->horizon, e)) {
            b->out_of_memory = true;
        }
    }
}

/* One triangle (eye, tail, head) per horizon edge, twinned with the face behind the edge and with
 * the triangles of the neighbouring horizon edges. */
static void add_cone(builder *b, int32_t eye)
{
    b->new_faces.count = 0;
    int32_t first_side = NONE, previous_side = NONE;
    for (size_t i = 0; i < b->horizon.count; i++) {
        int32_t h = b->horizon.items[i];
        int32_t tail = tail_of(b, h), head = b->edges[h].head;
        int32_t f = new_triangle(b, tail, head, eye); /* edges: eye->tail, tail->head, head->eye */
        if (f == NONE || !push(&b->new_faces, f)) {
            b->out_of_memory = true;
            return;
        }
        int32_t to_tail = b->faces[f].edge, to_head = b->edges[to_tail].next, to_eye = b->edges[to_head].next;
        set_twins(b, to_head, b->edges[h].twin);
        if (previous_side != NONE)
            set_twins(b, to_tail, previous_side);
        else
            first_side = to_tail;
        previous_side = to_eye;
    }
    if (first_side != NONE)
        set_twins(b, first_side, previous_side);
}

/* The distance of the centroid of the face across half-edge e from e's face's plane. */
static double across_distance(const builder *b, int32_t e)
{
    int32_t other = b->edges[b->edges[e].twin].face;
    return face_distance(b, b->edges[e].face, b->faces[other].centroid);
}

/* Joins half-edges prev_edge -> edge of face f, which now follow each other. When both border the
 * same face `other`, the vertex between them is redundant: it goes, `edge` takes prev_edge's place,
 * and `other` loses the matching vertex too — or, were it a triangle, `other` goes entirely and
 * `edge` is twinned with its third edge's twin. Returns the face discarded, or NONE. */
static int32_t connect_edges(builder *b, int32_t f, int32_t prev_edge, int32_t edge)
{
    half_edge *E = b->edges;
    int32_t other = E[E[edge].twin].face;
    if (E[E[prev_edge].twin].face != other) {
        E[prev_edge].next = edge;
        E[edge].prev = prev_edge;
        return NONE;
    }
    int32_t discarded = NONE, opposite;
    if (b->faces[f].edge == prev_edge)
        b->faces[f].edge = edge;
    if (b->faces[other].vertex_count == 3) {
        opposite = E[E[E[edge].twin].prev].twin;
        b->faces[other].state = FACE_DELETED;
        discarded = other;
    } else {
        opposite = E[E[edge].twin].next;
        if (b->faces[other].edge == E[opposite].prev)
            b->faces[other].edge = opposite;
        E[opposite].prev = E[E[opposite].prev].prev;
        E[E[opposite].prev].next = opposite;
    }
    E[edge].prev = E[prev_edge].prev;
    E[E[edge].prev].next = edge;
    set_twins(b, edge, opposite);
    if (discarded == NONE)
        face_compute(b, other);
    return discarded;
}

/* Face f absorbs the face across its half-edge `shared` (and every further edge they share). */
static void merge_across(builder *b, int32_t f, int32_t shared)
{
    half_edge *E = b->edges;
    int32_t other_shared = E[shared].twin;
    int32_t other = E[other_shared].face;
    b->discarded.count = 0;
    b->faces[other].state = FACE_DELETED;
    if (!push(&b->discarded, other)) {
        b->out_of_memory = true;
        return;
    }
    int32_t prev = E[shared].prev, next = E[shared].next;
    int32_t other_prev = E[other_shared].prev, other_next = E[other_shared].next;
    while (E[E[prev].twin].face == other) {
        prev = E[prev].prev;
        other_next = E[other_next].next;
    }
    while (E[E[next].twin].face == other) {
        other_prev = E[other_prev].prev;
        next = E[next].next;
    }
    for (int32_t e = other_next; e != E[other_prev].next; e = E[e].next)
        E[e].face = f;
    b->faces[f].edge = next;
    int32_t gone = connect_edges(b, f, other_prev, next);
    if (gone != NONE && !push(&b->discarded, gone))
        b->out_of_memory = true;
    gone = connect_edges(b, f, prev, other_next);
    if (gone != NONE && !push(&b->discarded, gone))
        b->out_of_memory = true;
    face_compute(b, f);
    for (size_t i = 0; i < b->discarded.count; i++)
        move_face_points(b, b->discarded.items[i], f);
}

/* Whether the faces around the vertex that half-edge `into` ends at are all flat within the
 * tolerance, and their union is a convex polygon: the vertex is then inside a face that merges
 * will complete (three coplanar faces around a vertex, which no two of them make convex). */
#define FAN_LOOP_CAPACITY 256
static bool fan_is_flat_and_convex(const builder *b, int32_t into)
{
    const half_edge *E = b->edges;
    sr_dvec3 sum = dv(0, 0, 0);
    int32_t h = into, limit = (int32_t)b->edge_count;
    do {
        const hull_face *g = &b->faces[E[h].face];
        sum = dadd(sum, dscale(g->normal, g->area));
        h = E[E[h].twin].prev;
    } while (h != into && --limit > 0);
    sr_dvec3 normal = sr_dvec3_normalize(sum);
    sr_dvec3 centre = b->p[E[into].head];
    int32_t loop[FAN_LOOP_CAPACITY];
    int count = 0;
    h = into;
    do {
        if (ddot(b->faces[E[h].face].normal, normal) <= 0)
            return false;
        /* the face's vertices after the fan's centre, up to (not including) the last one */
        for (int32_t e = E[h].next; E[e].next != h; e = E[e].next) {
            if (count == FAN_LOOP_CAPACITY || fabs(ddot(dsub(b->p[E[e].head], centre), normal)) > b->tolerance)
                return false;
            loop[count++] = E[e].head;
        }
        h = E[E[h].twin].prev;
    } while (h != into);
    for (int k = 0; k < count; k++) {
        sr_dvec3 p = b->p[loop[k]], v = b->p[loop[(k + 1) % count]], n = b->p[loop[(k + 2) % count]];
        if (ddot(dcross(dsub(v, p), dsub(n, v)), normal) < -b->tolerance * dlength(dsub(n, p)))
            return false;
    }
    return true;
}

/* Whether face f and the face across its half-edge `shared` make a convex polygon together: no
 * vertex of the joined loop more than the tolerance inside the chord of its neighbours, seen along
 * the area-weighted normal of the two. QuickHull3D merges on the planes alone; a nearly flat dome
 * of points (heights of a few tolerances), or a sliver folded under its neighbour, then gives faces
 * whose loops are not convex. Refusing those merges keeps every face a convex polygon; the edge
 * stays, within the tolerance of flat. A notch is allowed where the faces around it are all flat
 * and make a convex polygon: the merges that follow fill it. */
static bool merge_is_convex(const builder *b, int32_t f, int32_t shared)
{
    const half_edge *E = b->edges;
    int32_t other_shared = E[shared].twin;
    int32_t other = E[other_shared].face;
    int32_t prev = E[shared].prev, next = E[shared].next;
    int32_t other_prev = E[other_shared].prev, other_next = E[other_shared].next;
    while (E[E[prev].twin].face == other) {
        prev = E[prev].prev;
        other_next = E[other_next].next;
    }
    while (E[E[next].twin].face == other) {
        other_prev = E[other_prev].prev;
        next = E[next].next;
    }
    sr_dvec3 normal = sr_dvec3_normalize(
        dadd(dscale(b->faces[f].normal, b->faces[f].area), dscale(b->faces[other].normal, b->faces[other].area)));
    /* the joined loop: f's edges from `next` to `prev`, then the other's from `other_next` to
     * `other_prev` */
    int32_t e = next, limit = (int32_t)b->edge_count;
    do {
        int32_t after = e == prev ? other_next : e == other_prev ? next : E[e].next;
        sr_dvec3 p = b->p[tail_of(b, e)], v = b->p[E[e].head], n = b->p[E[after].head];
        double turn = ddot(dcross(dsub(v, p), dsub(n, v)), normal);
        if (turn < -b->tolerance * dlength(dsub(n, p)) && !fan_is_flat_and_convex(b, e))
            return false;
        e = after;
    } while (e != next && --limit > 0);
    return true;
}

enum { MERGE_AGAINST_LARGER, MERGE_NONCONVEX };

/* Merges f with the first neighbour it is not clearly convex against; returns whether it did.
 * A clearly concave edge (a centroid more than the tolerance above the other face's plane) is
 * always merged: the hull's convexity needs it. A flat one (within the tolerance) only when the
 * joined polygon is convex. */
static bool merge_one_neighbour(builder *b, int32_t f, int mode)
{
    int32_t first = b->faces[f].edge, e = first;
    double tolerance = b->tolerance;
    do {
        int32_t other = b->edges[b->edges[e].twin].face;
        double here = across_distance(b, e), there = across_distance(b, b->edges[e].twin);
        bool merge;
        if (mode == MERGE_NONCONVEX)
            merge = here > -tolerance || there > -tolerance;
        else if (b->faces[f].area > b->faces[other].area)
            merge = here > -tolerance;
        else
            merge = there > -tolerance;
        if (merge && (here > tolerance || there > tolerance || merge_is_convex(b, f, e))) {
            merge_across(b, f, e);
            return !b->out_of_memory;
        }
        e = b->edges[e].next;
    } while (e != first);
    return false;
}

/* A face no wider than the tolerance across its longest edge has a meaningless plane (three
 * nearly collinear points, or nearly equal ones: its normal turns freely within the rounding):
 * it is merged into the face across its longest edge, whatever the convexity test would say
 * (QuickHull3D and Jolt do the same). Its vertices are within the tolerance of that edge, so the
 * merged face stays convex within the tolerance. Returns whether it merged. */
static bool merge_if_degenerate(builder *b, int32_t f)
{
    if (b->faces[f].width > b->tolerance)
        return false;
    merge_across(b, f, b->faces[f].longest);
    return !b->out_of_memory;
}

/* Merges faces (from `faces`, or every face when NULL) with their degenerate, coplanar or
 * concave neighbours until none is left. */
static void merge_faces(builder *b, const index_array *faces, int mode)
{
    size_t count = faces ? faces->count : b->face_count;
    for (size_t i = 0; i < count && !b->out_of_memory; i++) {
        int32_t f = faces ? faces->items[i] : (int32_t)i;
        while (b->faces[f].state == FACE_LIVE && (merge_if_degenerate(b, f) || merge_one_neighbour(b, f, mode)))
            ;
    }
}

static void add_point(builder *b, int32_t eye)
{
    int32_t eye_face = b->links[eye].face;
    remove_point(b, eye);
    b->unclaimed.count = 0;
    find_horizon(b, b->p[eye], eye_face);
    if (b->out_of_memory)
        return;
    add_cone(b, eye);
    if (b->out_of_memory)
        return;
    merge_faces(b, &b->new_faces, MERGE_AGAINST_LARGER);
    merge_faces(b, &b->new_faces, MERGE_NONCONVEX);
    if (b->out_of_memory)
        return;
    /* the points the deleted and merged faces had go to the new face they are farthest above */
    for (size_t k = 0; k < b->unclaimed.count; k++) {
        int32_t point = b->unclaimed.items[k];
        double best = b->tolerance;
        int32_t best_face = NONE;
        for (size_t i = 0; i < b->new_faces.count; i++) {
            int32_t f = b->new_faces.items[i];
            if (b->faces[f].state != FACE_LIVE)
                continue;
            double distance = face_distance(b, f, b->p[point]);
            if (distance > best) {
                best = distance;
                best_face = f;
            }
        }
        if (best_face != NONE)
            add_point_to_face(b, point, best_face);
    }
}

/* Removes the vertices left between two faces only: a triangle a merge discarded can leave its
 * other vertices with two faces. A face that would keep two edges is absorbed by its neighbour. */
static void remove_redundant_vertices(builder *b)
{
    for (size_t i = 0; i < b->face_count && !b->out_of_memory; i++) {
        int32_t f = (int32_t)i;
        bool changed = true;
        while (changed && b->faces[f].state == FACE_LIVE) {
            changed = false;
            int32_t first = b->faces[f].edge, e = first;
            do {
                int32_t next = b->edges[e].next;
                int32_t other = b->edges[b->edges[e].twin].face;
                if (b->edges[b->edges[next].twin].face == other) {
                    if (b->faces[f].vertex_count == 3) {
                        b->discarded.count = 0;
                        merge_across(b, other, b->edges[e].twin);
                    } else {
                        if (connect_edges(b, f, e, next) != NONE)
                            b->faces[other].state = FACE_DELETED;
                        face_compute(b, f);
                    }
                    changed = true;
                    break;
                }
                e = next;
            } while (e != first);
        }
    }
}

/* The structure is a closed polyhedral surface of convex faces: twins agree, faces have three or
 * more vertices and convex loops (within the tolerance), V - E + F = 2. */
static bool mesh_is_valid(builder *b)
{
    size_t faces = 0, half_edges = 0;
    for (size_t f = 0; f < b->face_count; f++) {
        if (b->faces[f].state != FACE_LIVE)
            continue;
        faces++;
        int32_t first = b->faces[f].edge, e = first, count = 0;
        do {
            const half_edge *h = &b->edges[e];
            sr_dvec3 p = b->p[tail_of(b, e)], v = b->p[h->head], n = b->p[b->edges[h->next].head];
            if (ddot(dcross(dsub(v, p), dsub(n, v)), b->faces[f].normal) < -b->tolerance * dlength(dsub(n, p)))
                return false; /* not a convex loop */
            if (h->face != (int32_t)f || b->edges[h->next].prev != e || h->twin == NONE ||
                b->edges[h->twin].twin != e || b->edges[h->twin].head != tail_of(b, e) ||
                b->faces[b->edges[h->twin].face].state != FACE_LIVE || b->edges[h->twin].face == (int32_t)f)
                return false;
            count++;
            e = h->next;
        } while (e != first && count <= (int32_t)b->edge_count);
        if (e != first || count < 3)
            return false;
        half_edges += (size_t)count;
    }
    size_t vertices = 0;
    bool *used = sr_calloc(b->n, sizeof(bool));
    if (!used) {
        b->out_of_memory = true;
        return false;
    }
    for (size_t f = 0; f < b->face_count; f++) {
        if (b->faces[f].state != FACE_LIVE)
            continue;
        int32_t first = b->faces[f].edge, e = first;
        do {
            if (!used[b->edges[e].head]) {
                used[b->edges[e].head] = true;
                vertices++;
            }
            e = b->edges[e].next;
        } while (e != first);
    }
    sr_free(used);
    return faces >= 4 && (long long)vertices - (long long)(half_edges / 2) + (long long)faces == 2;
}

static void builder_release(builder *b)
{
    sr_free(b->links);
    sr_free(b->edges);
    sr_free(b->faces);
    sr_free(b->horizon.items);
    sr_free(b->new_faces.items);
    sr_free(b->unclaimed.items);
    sr_free(b->stack.items);
    sr_free(b->discarded.items);
}

/* Quickhull from the tetrahedron v[0..3]; false on allocation failure or a broken result. */
static bool build_solid(builder *b, const int32_t v[4])
{
    b->edge_count = b->face_count = 0;
    for (size_t i = 0; i < b->n; i++)
        b->links[i] = (point_link){NONE, NONE, NONE};
    /* orient the base v0 v1 v2 so that v3 is below it */
    int32_t a = v[0], c1 = v[1], c2 = v[2], d = v[3];
    if (ddot(dcross(dsub(b->p[c1], b->p[a]), dsub(b->p[c2], b->p[a])), dsub(b->p[d], b->p[a])) > 0) {
        int32_t t = c1;
        c1 = c2;
        c2 = t;
    }
    const int32_t tri[4][3] = {{a, c1, c2}, {a, d, c1}, {c1, d, c2}, {c2, d, a}};
    for (int i = 0; i < 4; i++)
        if (new_triangle(b, tri[i][0], tri[i][1], tri[i][2]) == NONE)
            return false;
    /* twins: the one half-edge going the other way between the same points */
    for (int32_t e = 0; e < 12; e++)
        for (int32_t t = 0; t < 12; t++)
            if (b->edges[t].head == tail_of(b, e) && tail_of(b, t) == b->edges[e].head)
                b->edges[e].twin = t;
    for (size_t i = 0; i < b->n; i++) {
        int32_t point = (int32_t)i;
        if (point == v[0] || point == v[1] || point == v[2] || point == v[3])
            continue;
        double best = b->tolerance;
        int32_t best_face = NONE;
        for (int32_t f = 0; f < 4; f++) {
            double distance = face_distance(b, f, b->p[i]);
            if (distance > best) {
                best = distance;
                best_face = f;
            }
        }
        if (best_face != NONE)
            add_point_to_face(b, point, best_face);
    }
    /* Faces are visited in creation order; a step only gives points to the faces it creates,
     * which come after the face it deletes, so the cursor never needs to go back. */
    size_t cursor = 0;
    for (;;) {
        while (cursor < b->face_count && (b->faces[cursor].state != FACE_LIVE || b->faces[cursor].outside == NONE))
            cursor++;
        if (cursor == b->face_count)
            break;
        int32_t eye = NONE;
        double farthest = -1;
        for (int32_t point = b->faces[cursor].outside; point != NONE; point = b->links[point].next) {
            double distance = face_distance(b, (int32_t)cursor, b->p[point]);
            if (distance > farthest || (distance == farthest && point < eye)) {
                farthest = distance;
                eye = point;
            }
        }
        add_point(b, eye);
        if (b->out_of_memory)
            return false;
    }
    /* Faces that became coplanar with an older neighbour they were never compared with (two old
     * faces both next to a merged one) are merged at the end, and the vertices between them go. */
    merge_faces(b, NULL, MERGE_NONCONVEX);
    remove_redundant_vertices(b);
    if (b->out_of_memory)
        return false;
    return mesh_is_valid(b);
}

/* The solid hull from the builder: vertices in input order, each face's loop starting at its
 * lowest vertex, the plane's offset the average over the final polygon's vertices. */
static sr_hull *solid_result(const builder *b, const sr_dvec3 *points, sr_dvec3 centre)
{
    int32_t *remap = sr_alloc_array(b->n, sizeof(int32_t));
    if (!remap)
        return NULL;
    for (size_t i = 0; i < b->n; i++)
        remap[i] = NONE;
    sr_hull_tables t = {.dimension = 3};
    for (size_t f = 0; f < b->face_count; f++) {
        if (b->faces[f].state != FACE_LIVE)
            continue;
        t.face_count++;
        int32_t first = b->faces[f].edge, e = first;
        do {
            remap[b->edges[e].head] = 0;
            t.face_vertex_count++;
            e = b->edges[e].next;
        } while (e != first);
    }
    t.edge_count = t.face_vertex_count / 2;
    for (size_t i = 0; i < b->n; i++)
        if (remap[i] == 0)
            remap[i] = (int32_t)t.vertex_count++;
    sr_hull *hull = sr_hull_allocate(&t);
    if (!hull) {
        sr_free(remap);
        return NULL;
    }
    sr_dvec3 *vertices = (sr_dvec3 *)hull->view.vertices;
    for (size_t i = 0; i < b->n; i++)
        if (remap[i] != NONE)
            vertices[remap[i]] = points[i];
    sr_hull_face *faces = (sr_hull_face *)hull->view.faces;
    uint32_t *face_vertices = (uint32_t *)hull->view.face_vertices, *edges = (uint32_t *)hull->view.edges;
    size_t face = 0, slot = 0, edge = 0;
    for (size_t f = 0; f < b->face_count; f++) {
        if (b->faces[f].state != FACE_LIVE)
            continue;
        /* start at the half-edge ending at the lowest vertex */
        int32_t first = b->faces[f].edge, e = first, start = first;
        do {
            if (remap[b->edges[e].head] < remap[b->edges[start].head])
                start = e;
            e = b->edges[e].next;
        } while (e != first);
        faces[face].first = (uint32_t)slot;
        e = start;
        do {
            const half_edge *h = &b->edges[e];
            face_vertices[slot++] = (uint32_t)remap[h->head];
            if (e < h->twin) {
                edges[2 * edge] = (uint32_t)remap[tail_of(b, e)];
                edges[2 * edge + 1] = (uint32_t)remap[h->head];
                edge++;
            }
            e = h->next;
        } while (e != start);
        faces[face].count = (uint32_t)slot - faces[face].first;
        sr_dvec3 normal = b->faces[f].normal;
        double offset = 0;
        for (uint32_t k = faces[face].first; k < slot; k++)
            offset += ddot(normal, dsub(vertices[face_vertices[k]], centre));
        faces[face].normal = normal;
        faces[face].offset = offset / faces[face].count + ddot(normal, centre);
        face++;
    }
    sr_free(remap);
    sr_hull_finish(hull);
    return hull;
}

sr_hull *sr_hull_quickhull(const sr_dvec3 *points, const sr_dvec3 *centred, size_t count, double tolerance,
                           const int32_t simplex[4], sr_dvec3 centre, sr_status *status)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.p = centred;
    b.n = count;
    b.tolerance = tolerance;
    b.links = sr_alloc_array(count, sizeof(point_link));
    sr_hull *hull = NULL;
    *status = SR_ERROR_OUT_OF_MEMORY;
    if (b.links) {
        for (int attempt = 0; attempt < REBUILD_ATTEMPTS && !hull && !b.out_of_memory; attempt++) {
            if (build_solid(&b, simplex)) {
                hull = solid_result(&b, points, centre);
                *status = hull ? SR_OK : SR_ERROR_OUT_OF_MEMORY;
            } else if (!b.out_of_memory) {
                *status = SR_ERROR_UNSUPPORTED;
                b.tolerance *= 10;
            }
        }
    }
    builder_release(&b);
    return hull;
}
