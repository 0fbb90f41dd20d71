/* tests/fuzz/fuzz_bvh.c — fuzz target of the static BVH (softrast/bvh.h, src/bvh/bvh_build.c,
 * bvh_build_split.c, bvh_query.c): trees built over triangles or boxes made of raw floats (NaN,
 * infinities, duplicates, degenerate and exponentially spread shapes), with raw build options,
 * then queried by rays, boxes, spheres and frustums.
 *
 * Every answer is compared with a brute-force loop over the same primitives, exactly and for
 * every ray and scene, whatever their magnitudes: the closest hit with sr_ray_triangle over all
 * triangles (bvh.h: the same hit or miss, brute force's t bit for bit, the reported triangle's
 * own t, u, v), any hit, the closest hit through a caller's test (sr_ray_triangle over
 * triangles, sr_ray_aabb over boxes), and the exact sets of primitives an overlap query must
 * report once each; of triangles hit at the closest t the smallest number must be reported. The
 * ray queries (which walk the wide tree) must also answer exactly as the binary traversal
 * (sr_bvh_query_ray_binary). Bad options and out-of-range indices must be refused with an error; the tree itself must
 * be well formed (every kept primitive in exactly one leaf, node boxes holding their contents, depth within
 * SR_BVH_MAX_DEPTH). Inputs starting with FUZZ_ALLOCATION_FAILURE_MARK build with failing allocations. Knows nothing of
 * the driver that calls it. */
#include "fuzz_targets.h"

#include <softrast/bvh.h>

#include "../../src/bvh/bvh_internal.h" /* sr_bvh_query_ray_binary: the traversal the wide tree replaced */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TRIANGLES 200
#define MAX_VERTICES (3 * MAX_TRIANGLES)

/* The decoded input: triangles (or boxes) in the caller's numbering. */
typedef struct scene {
    bool boxes_mode;
    size_t count; /* triangles or boxes */
    sr_vec3 vertices[MAX_VERTICES];
    size_t vertex_count;
    uint32_t indices[3 * MAX_TRIANGLES];
    bool indexed;
    sr_aabb boxes[MAX_TRIANGLES];
    bool kept[MAX_TRIANGLES]; /* primitives the build must keep (finite, non-empty) */
    sr_aabb bounds[MAX_TRIANGLES];
} scene;

static void triangle_of(const scene *s, size_t i, sr_vec3 v[3])
{
    for (int k = 0; k < 3; k++)
        v[k] = s->vertices[s->indexed ? s->indices[3 * i + (size_t)k] : 3 * i + (size_t)k];
}

static float read_coordinate(fuzz_reader *r, bool quantised)
{
    /* quantised: a coarse grid, so that vertices coincide and edges are shared */
    return quantised ? (float)(int8_t)fuzz_read_u8(r) / 8.0f : fuzz_read_float(r);
}

/* ------------------------------------------------------------------------------------------ */
/* Tree structure                                                                              */

static void check_structure(const sr_bvh *bvh, const scene *s)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->count; i++)
        kept += s->kept[i];
    FUZZ_CHECK(bvh->primitive_count == kept, "%zu primitives in the tree, %zu expected", bvh->primitive_count, kept);
    FUZZ_CHECK(bvh->stats.primitive_count == kept && bvh->stats.skipped_count == s->count - kept,
               "stats: %zu kept, %zu skipped; expected %zu, %zu", bvh->stats.primitive_count, bvh->stats.skipped_count,
               kept, s->count - kept);
    FUZZ_CHECK(s->boxes_mode ? bvh->boxes != NULL && bvh->triangles == NULL
                             : bvh->triangles != NULL && bvh->boxes == NULL,
               "wrong slot arrays for a %s tree", s->boxes_mode ? "box" : "triangle");
    FUZZ_CHECK(bvh->node_count >= 1 && bvh->nodes, "no nodes");
    if (kept == 0)
        return;
    unsigned char *seen = calloc(s->count + 1, 1);
    unsigned char *slot_seen = calloc(bvh->primitive_count + 1, 1);
    FUZZ_CHECK(seen && slot_seen, "out of memory");
    for (size_t slot = 0; slot < bvh->primitive_count; slot++) {
        uint32_t p = bvh->primitive_indices[slot];
        FUZZ_CHECK(p < s->count && s->kept[p], "slot %zu holds primitive %u, not a kept one", slot, p);
        FUZZ_CHECK(!seen[p], "primitive %u in two slots", p);
        seen[p] = 1;
    }
    /* Walk the tree: every node reached once, children inside the array, boxes nested. */
    struct item {
        uint32_t node;
        int depth;
    } stack[2 * SR_BVH_MAX_DEPTH + 4];
    int top = 0;
    stack[top++] = (struct item){0, 0};
    size_t leaves_slots = 0;
    while (top > 0) {
        struct item item = stack[--top];
        FUZZ_CHECK(item.node < bvh->node_count, "node %u outside the %zu nodes", item.node, bvh->node_count);
        FUZZ_CHECK(item.depth <= SR_BVH_MAX_DEPTH, "depth %d > SR_BVH_MAX_DEPTH", item.depth);
        const sr_bvh_node *node = &bvh->nodes[item.node];
        sr_aabb box = {node->min, node->max};
        if (node->count == 0) {
            FUZZ_CHECK(node->first >= 1 && (size_t)node->first + 1 < bvh->node_count,
                       "interior node %u has children %u, %u of %zu nodes", item.node, node->first, node->first + 1,
                       bvh->node_count);
            for (uint32_t child = node->first; child <= node->first + 1; child++) {
                const sr_bvh_node *c = &bvh->nodes[child];
                FUZZ_CHECK(sr_aabb_contains(box, (sr_aabb){c->min, c->max}), "node %u does not contain child %u",
                           item.node, child);
            }
            FUZZ_CHECK(top + 2 <= (int)(sizeof stack / sizeof stack[0]), "tree too deep for the checker");
            stack[top++] = (struct item){node->first + 1, item.depth + 1};
            stack[top++] = (struct item){node->first, item.depth + 1};
            continue;
        }
        FUZZ_CHECK((size_t)node->first + node->count <= bvh->primitive_count, "leaf %u slots %u+%u past %zu", item.node,
                   node->first, node->count, bvh->primitive_count);
        for (uint32_t slot = node->first; slot < node->first + node->count; slot++) {
            FUZZ_CHECK(!slot_seen[slot], "slot %u in two leaves", slot);
            slot_seen[slot] = 1;
            uint32_t p = bvh->primitive_indices[slot];
            FUZZ_CHECK(sr_aabb_contains(box, s->bounds[p]), "leaf %u does not contain primitive %u", item.node, p);
        }
        leaves_slots += node->count;
    }
    FUZZ_CHECK(leaves_slots == bvh->primitive_count, "leaves hold %zu slots of %zu", leaves_slots,
               bvh->primitive_count);
    free(seen);
    free(slot_seen);
}

/* ------------------------------------------------------------------------------------------ */
/* Ray queries                                                                                 */

static bool intersect_triangle(void *user, uint32_t primitive, const sr_ray *ray, sr_bvh_hit *hit)
{
    const scene *s = user;
    FUZZ_CHECK(primitive < s->count && s->kept[primitive], "custom test called for primitive %u", primitive);
    sr_vec3 v[3];
    triangle_of(s, primitive, v);
    sr_triangle_hit h;
    if (!sr_ray_triangle(ray, v[0], v[1], v[2], &h))
        return false;
    hit->t = h.t;
    hit->u = h.u;
    hit->v = h.v;
    return true;
}

/* The custom test of the box queries: the box against the query's own ray (its tmax as given),
 * the hit kept when its t is within the closest so far (ray->tmax). Testing the box against
 * `ray` itself would be wrong once the closest t is -inf (a box entered at -inf: slab distances
 * that overflow): sr_ray_aabb counts a box whose exit is clamped to -inf as missed, so every
 * other box hit at -inf would be refused and the answer would depend on the order of the
 * calls (found by fuzz_bvh). */
typedef struct box_test {
    const scene *s;
    float query_tmax;
} box_test;

static bool intersect_box(void *user, uint32_t primitive, const sr_ray *ray, sr_bvh_hit *hit)
{
    const box_test *b = user;
    FUZZ_CHECK(primitive < b->s->count && b->s->kept[primitive], "custom test called for primitive %u", primitive);
    sr_ray query = *ray;
    query.tmax = b->query_tmax;
    float t_near;
    if (!sr_ray_aabb(&query, &b->s->boxes[primitive], &t_near, NULL) || !(t_near <= ray->tmax))
        return false;
    hit->t = t_near;
    return true;
}

static void check_ray(const sr_bvh *bvh, const scene *s, const sr_ray *ray)
{
    /* brute force over every kept primitive */
    float brute_t[MAX_TRIANGLES], brute_u[MAX_TRIANGLES], brute_v[MAX_TRIANGLES];
    bool brute_hit[MAX_TRIANGLES];
    float best = INFINITY;
    bool any = false;
    for (size_t i = 0; i < s->count; i++) {
        brute_hit[i] = false;
        if (!s->kept[i])
            continue;
        if (s->boxes_mode) {
            float t_near = NAN;
            brute_hit[i] = sr_ray_aabb(ray, &s->boxes[i], &t_near, NULL);
            brute_t[i] = t_near;
        } else {
            sr_vec3 v[3];
            triangle_of(s, i, v);
            sr_triangle_hit h = {NAN, NAN, NAN};
            brute_hit[i] = sr_ray_triangle(ray, v[0], v[1], v[2], &h);
            brute_t[i] = h.t;
            brute_u[i] = h.u;
            brute_v[i] = h.v;
        }
        if (brute_hit[i]) {
            any = true;
            best = brute_t[i] < best ? brute_t[i] : best;
        }
    }
    /* bvh_query.c refuses rays with a zero direction; sr_ray_aabb treats them as points */
    bool zero_direction = ray->direction.x == 0.0f && ray->direction.y == 0.0f && ray->direction.z == 0.0f;
    if (s->boxes_mode && zero_direction)
        any = false;

    if (!s->boxes_mode) {
        sr_bvh_hit hit;
        bool found = sr_bvh_query_ray(bvh, ray, &hit);
        FUZZ_CHECK(found == any, "closest-hit query %s, brute force %s (best t %g)", found ? "hit" : "missed",
                   any ? "hits" : "misses", (double)best);
        if (found) {
            uint32_t p = hit.primitive;
            FUZZ_CHECK(p < s->count && brute_hit[p], "closest hit reports primitive %u, which the ray misses", p);
            FUZZ_CHECK(
                memcmp(&hit.t, &brute_t[p], sizeof hit.t) == 0 && memcmp(&hit.u, &brute_u[p], sizeof hit.u) == 0 &&
                    memcmp(&hit.v, &brute_v[p], sizeof hit.v) == 0,
                "primitive %u reported at (t %g, u %g, v %g), sr_ray_triangle says (%g, %g, %g)", p, (double)hit.t,
                (double)hit.u, (double)hit.v, (double)brute_t[p], (double)brute_u[p], (double)brute_v[p]);
            /* bvh.h: exactly brute force's closest t, for every ray */
            FUZZ_CHECK(hit.t == best, "closest hit t %.9g (primitive %u) but brute force finds t %.9g", (double)hit.t,
                       p, (double)best);
            /* bvh.h: of triangles hit at that very t, the smallest number */
            for (size_t i = 0; i < p; i++)
                FUZZ_CHECK(!(brute_hit[i] && brute_t[i] == best),
                           "closest hit reports primitive %u, but %zu is hit at the same t %a", p, i, (double)best);
            float length = sr_vec3_length(hit.normal);
            FUZZ_CHECK(sr_vec3_is_finite(hit.normal) && (length == 0.0f || fabsf(length - 1.0f) < 1e-3f),
                       "hit normal (%g %g %g)", (double)hit.normal.x, (double)hit.normal.y, (double)hit.normal.z);
        } else {
            FUZZ_CHECK(hit.primitive == SR_BVH_NO_HIT && hit.t == INFINITY, "a miss reports primitive %u at t %g",
                       hit.primitive, (double)hit.t);
        }

        sr_bvh_hit any_hit;
        bool any_found = sr_bvh_query_ray_any(bvh, ray, &any_hit);
        FUZZ_CHECK(any_found == any, "any-hit query %s, brute force %s", any_found ? "hit" : "missed",
                   any ? "hits" : "misses");
        if (any_found)
            FUZZ_CHECK(any_hit.primitive < s->count && brute_hit[any_hit.primitive] &&
                           memcmp(&any_hit.t, &brute_t[any_hit.primitive], sizeof any_hit.t) == 0,
                       "any-hit reports primitive %u at t %g", any_hit.primitive, (double)any_hit.t);
        FUZZ_CHECK(sr_bvh_query_ray_any(bvh, ray, NULL) == any_found, "any-hit with a NULL hit answers differently");

        sr_bvh_hit custom;
        bool custom_found = sr_bvh_query_ray_custom(bvh, ray, intersect_triangle, (void *)s, &custom);
        FUZZ_CHECK(custom_found == found && (!found || (custom.primitive < s->count && custom.t == hit.t)),
                   "custom query (%d, t %g) differs from the closest hit (%d, t %g)", custom_found, (double)custom.t,
                   found, (double)hit.t);

        /* The wide tree against the binary traversal: the same hit, bit for bit, and the same
         * triangle (ties go to the smallest number in both). */
        sr_bvh_hit binary;
        bool binary_found = sr_bvh_query_ray_binary(bvh, ray, SR_BVH_RAY_CLOSEST, NULL, NULL, &binary);
        FUZZ_CHECK(binary_found == found &&
                       (!found ||
                        (binary.primitive == hit.primitive && memcmp(&binary.t, &hit.t, sizeof hit.t) == 0 &&
                         memcmp(&binary.u, &hit.u, sizeof hit.u) == 0 && memcmp(&binary.v, &hit.v, sizeof hit.v) == 0)),
                   "wide closest hit (%d, primitive %u, t %a) differs from the binary traversal's (%d, %u, %a)", found,
                   hit.primitive, (double)hit.t, binary_found, binary.primitive, (double)binary.t);
        FUZZ_CHECK(sr_bvh_query_ray_binary(bvh, ray, SR_BVH_RAY_ANY, NULL, NULL, &binary) == any_found,
                   "wide any-hit (%d) differs from the binary traversal's", any_found);
        return;
    }
    sr_bvh_hit hit;
    FUZZ_CHECK(!sr_bvh_query_ray(bvh, ray, &hit), "a box tree answered a triangle ray query");
    box_test test = {s, ray->tmax};
    bool found = sr_bvh_query_ray_custom(bvh, ray, intersect_box, &test, &hit);
    FUZZ_CHECK(found == any, "custom box query %s, brute force %s", found ? "hit" : "missed", any ? "hits" : "misses");
    if (found) {
        uint32_t p = hit.primitive;
        FUZZ_CHECK(p < s->count && brute_hit[p] && memcmp(&hit.t, &brute_t[p], sizeof hit.t) == 0,
                   "custom box query reports primitive %u at t %g", p, (double)hit.t);
        FUZZ_CHECK(hit.t == best, "custom box query t %.9g, brute force closest %.9g", (double)hit.t, (double)best);
    }
    /* exact box tests on both sides: the wide tree answers as the binary traversal */
    sr_bvh_hit binary;
    bool binary_found = sr_bvh_query_ray_binary(bvh, ray, SR_BVH_RAY_CUSTOM, intersect_box, &test, &binary);
    FUZZ_CHECK(binary_found == found &&
                   (!found || (binary.primitive == hit.primitive && memcmp(&binary.t, &hit.t, sizeof hit.t) == 0)),
               "wide custom box query (%d, primitive %u, t %a) differs from the binary traversal's (%d, %u, %a)", found,
               hit.primitive, (double)hit.t, binary_found, binary.primitive, (double)binary.t);
}

/* ------------------------------------------------------------------------------------------ */
/* Overlap queries                                                                             */

typedef struct collector {
    const scene *s;
    uint8_t reported[MAX_TRIANGLES];
    sr_containment containment[MAX_TRIANGLES];
    uint32_t calls;
    uint32_t stop_after; /* 0: never stop */
} collector;

static bool collect(void *user, uint32_t primitive)
{
    collector *c = user;
    FUZZ_CHECK(primitive < c->s->count && c->s->kept[primitive], "reported primitive %u", primitive);
    FUZZ_CHECK(c->reported[primitive] == 0, "primitive %u reported twice", primitive);
    c->reported[primitive] = 1;
    c->calls++;
    return c->stop_after == 0 || c->calls < c->stop_after;
}

static bool collect_frustum(void *user, uint32_t primitive, sr_containment containment)
{
    collector *c = user;
    FUZZ_CHECK(containment == SR_INSIDE || containment == SR_INTERSECTING, "reported with containment %d",
               (int)containment);
    if (primitive < MAX_TRIANGLES)
        c->containment[primitive] = containment;
    return collect(user, primitive);
}

/* Compares what a query reported with the brute-force set `expected` (and containments). */
static void check_reported(const collector *c, const sr_bvh_query_stats *stats, const bool *expected,
                           const sr_containment *expected_containment, const char *query)
{
    size_t expected_count = 0;
    for (size_t i = 0; i < c->s->count; i++)
        expected_count += expected[i];
    FUZZ_CHECK(stats->primitives_reported == c->calls, "%s: stats say %u reported, callback ran %u times", query,
               stats->primitives_reported, c->calls);
    if (c->stop_after && expected_count >= c->stop_after) {
        FUZZ_CHECK(stats->stopped && c->calls == c->stop_after, "%s: did not stop after %u reports (%u, stopped %d)",
                   query, c->stop_after, c->calls, (int)stats->stopped);
        for (size_t i = 0; i < c->s->count; i++)
            FUZZ_CHECK(!c->reported[i] || expected[i], "%s reported primitive %zu, which brute force leaves out", query,
                       i);
        return;
    }
    FUZZ_CHECK(!stats->stopped, "%s: stopped although the callback never asked", query);
    for (size_t i = 0; i < c->s->count; i++) {
        FUZZ_CHECK(c->reported[i] == expected[i], "%s %s primitive %zu (brute force: %s)", query,
                   c->reported[i] ? "reported" : "missed", i, expected[i] ? "overlaps" : "does not overlap");
        if (expected_containment && expected[i])
            FUZZ_CHECK(c->containment[i] == expected_containment[i], "%s: primitive %zu reported %d, its box tests %d",
                       query, i, (int)c->containment[i], (int)expected_containment[i]);
    }
}

static void check_overlaps(const sr_bvh *bvh, const scene *s, fuzz_reader *r, int kind)
{
    collector c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.stop_after = fuzz_read_u8(r) % 8;
    bool expected[MAX_TRIANGLES];
    sr_containment expected_containment[MAX_TRIANGLES];
    bool quantised = fuzz_read_u8(r) % 2;
    if (kind == 0) {
        sr_vec3 a = {read_coordinate(r, quantised), read_coordinate(r, quantised), read_coordinate(r, quantised)};
        sr_vec3 b = {read_coordinate(r, quantised), read_coordinate(r, quantised), read_coordinate(r, quantised)};
        sr_aabb box = {sr_vec3_min(a, b), sr_vec3_max(a, b)};
        for (size_t i = 0; i < s->count; i++)
            expected[i] = s->kept[i] && sr_aabb_overlaps(box, s->bounds[i]);
        sr_bvh_query_stats stats = sr_bvh_query_aabb(bvh, box, collect, &c);
        check_reported(&c, &stats, expected, NULL, "sr_bvh_query_aabb");
    } else if (kind == 1) {
        sr_sphere sphere = {
            {read_coordinate(r, quantised), read_coordinate(r, quantised), read_coordinate(r, quantised)},
            read_coordinate(r, quantised)};
        for (size_t i = 0; i < s->count; i++)
            expected[i] = s->kept[i] && sr_aabb_sphere_overlap(s->bounds[i], sphere);
        sr_bvh_query_stats stats = sr_bvh_query_sphere(bvh, sphere, collect, &c);
        check_reported(&c, &stats, expected, NULL, "sr_bvh_query_sphere");
    } else {
        sr_mat4 m;
        if (fuzz_read_u8(r) % 2) {
            sr_vec3 eye = {read_coordinate(r, true), read_coordinate(r, true), read_coordinate(r, true)};
            sr_vec3 target = {read_coordinate(r, true), read_coordinate(r, true), read_coordinate(r, true)};
            float fov = 0.2f + fabsf(read_coordinate(r, true));
            m = sr_mat4_mul(sr_mat4_perspective(fov, 1.0f, 0.05f, 50.0f),
                            sr_mat4_look_at(eye, target, (sr_vec3){0.0f, 1.0f, 0.0f}));
        } else {
            for (int i = 0; i < 16; i++)
                m.m[i] = read_coordinate(r, quantised);
        }
        sr_frustum frustum = sr_frustum_from_matrix(m);
        /* Exact comparison where no NaN can appear in plane distances (see fuzz_geom.c): finite
         * planes with normal components <= 1.5, primitives below 1e38. Elsewhere only the
         * callback's own checks (kept primitives, once each) apply. */
        bool exact = true;
        for (int i = 0; i < 6; i++) {
            sr_plane p = frustum.planes[i];
            exact = exact && isfinite(p.d) && fabsf(p.normal.x) <= 1.5f && fabsf(p.normal.y) <= 1.5f &&
                    fabsf(p.normal.z) <= 1.5f;
        }
        for (size_t i = 0; i < s->count && exact; i++) {
            sr_aabb b = s->bounds[i];
            exact = !s->kept[i] || (fabsf(b.min.x) <= 1e38f && fabsf(b.min.y) <= 1e38f && fabsf(b.min.z) <= 1e38f &&
                                    fabsf(b.max.x) <= 1e38f && fabsf(b.max.y) <= 1e38f && fabsf(b.max.z) <= 1e38f);
        }
        for (size_t i = 0; i < s->count; i++) {
            expected_containment[i] = s->kept[i] ? sr_frustum_test_aabb(&frustum, &s->bounds[i]) : SR_OUTSIDE;
            expected[i] = expected_containment[i] != SR_OUTSIDE;
        }
        sr_bvh_query_stats stats = sr_bvh_query_frustum(bvh, &frustum, collect_frustum, &c);
        if (exact)
            check_reported(&c, &stats, expected, expected_containment, "sr_bvh_query_frustum");
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Entry point                                                                                 */

static void run_input(fuzz_reader r, bool failing);

int fuzz_bvh_test_one_input(const uint8_t *data, size_t size)
{
    fuzz_reader r = fuzz_reader_make(data, size);
    bool failing = fuzz_allocation_failures_begin(&r);
    run_input(r, failing);
    fuzz_allocation_failures_end();
    return 0;
}

static void run_input(fuzz_reader r, bool failing)
{
    scene *s = calloc(1, sizeof *s);
    FUZZ_CHECK(s, "out of memory");
    uint8_t kind = fuzz_read_u8(&r);
    s->boxes_mode = kind & 1;
    bool quantised = !(kind & 2);
    s->indexed = kind & 4;

    /* build options, raw values included */
    sr_bvh_desc desc = {0};
    desc.split = (sr_bvh_split)fuzz_read_enum(&r, 3);
    uint8_t bins = fuzz_read_u8(&r), leaf = fuzz_read_u8(&r), cost = fuzz_read_u8(&r);
    static const int odd_bins[] = {1, 257, -1, 256, 2, 1000000, -1000000, 0};
    static const int odd_leaves[] = {256, -1, 255, 1, 100000, -100000, 0, 2};
    desc.bin_count = bins < 0xf8 ? (bins % 5 == 0 ? 0 : 2 + bins % 31) : odd_bins[bins - 0xf8];
    desc.max_leaf_size = leaf < 0xf8 ? (leaf % 3 == 0 ? 0 : 1 + leaf % 12) : odd_leaves[leaf - 0xf8];
    desc.traversal_cost = cost == 0 ? 0.0f : cost == 1 ? fuzz_read_float(&r) : (float)cost / 16.0f;
    bool desc_valid = (unsigned)desc.split <= SR_BVH_SPLIT_MEDIAN &&
                      (desc.bin_count == 0 || (desc.bin_count >= 2 && desc.bin_count <= 256)) &&
                      (desc.max_leaf_size == 0 || (desc.max_leaf_size >= 1 && desc.max_leaf_size <= 255)) &&
                      (desc.traversal_cost == 0.0f || (desc.traversal_cost > 0.0f && isfinite(desc.traversal_cost)));

    uint8_t count_code = fuzz_read_u8(&r);
    s->count = count_code < 0xc0 ? (size_t)(count_code % 48) : (size_t)MAX_TRIANGLES - (size_t)(count_code - 0xc0);
    bool expect_error = !desc_valid;
    sr_bvh *bvh = NULL;
    sr_error err = {0};
    sr_status status;
    if (s->boxes_mode) {
        for (size_t i = 0; i < s->count; i++) {
            sr_vec3 a = {read_coordinate(&r, quantised), read_coordinate(&r, quantised),
                         read_coordinate(&r, quantised)};
            sr_vec3 b = {read_coordinate(&r, quantised), read_coordinate(&r, quantised),
                         read_coordinate(&r, quantised)};
            /* mostly valid boxes, sometimes raw (inverted, NaN) ones */
            s->boxes[i] = fuzz_read_u8(&r) % 8 == 0 ? (sr_aabb){a, b} : (sr_aabb){sr_vec3_min(a, b), sr_vec3_max(a, b)};
            s->kept[i] = sr_vec3_is_finite(s->boxes[i].min) && sr_vec3_is_finite(s->boxes[i].max) &&
                         !sr_aabb_is_empty(s->boxes[i]);
            s->bounds[i] = s->boxes[i];
        }
        status = sr_bvh_build_boxes(&desc, s->boxes, s->count, &bvh, &err);
    } else {
        s->vertex_count = s->indexed ? (size_t)(1 + fuzz_read_u8(&r) % 64) : 3 * s->count;
        for (size_t v = 0; v < s->vertex_count; v++) {
            s->vertices[v] = (sr_vec3){read_coordinate(&r, quantised), read_coordinate(&r, quantised),
                                       read_coordinate(&r, quantised)};
            /* duplicates of an earlier vertex: shared edges and degenerate triangles */
            uint8_t copy = fuzz_read_u8(&r);
            if (v > 0 && copy % 4 == 0)
                s->vertices[v] = s->vertices[copy / 4 % v];
        }
        for (size_t i = 0; i < 3 * s->count && s->indexed; i++) {
            uint8_t b = fuzz_read_u8(&r);
            /* 0xff: out of range, which the build must refuse */
            s->indices[i] = b == 0xff ? (uint32_t)s->vertex_count : (uint32_t)(b % s->vertex_count);
            expect_error = expect_error || b == 0xff;
        }
        for (size_t i = 0; i < s->count; i++) {
            sr_vec3 v[3];
            triangle_of(s, i, v);
            bool in_range =
                !s->indexed || (s->indices[3 * i] < s->vertex_count && s->indices[3 * i + 1] < s->vertex_count &&
                                s->indices[3 * i + 2] < s->vertex_count);
            if (!in_range)
                continue;
            s->kept[i] = sr_vec3_is_finite(v[0]) && sr_vec3_is_finite(v[1]) && sr_vec3_is_finite(v[2]);
            s->bounds[i] =
                (sr_aabb){sr_vec3_min(v[0], sr_vec3_min(v[1], v[2])), sr_vec3_max(v[0], sr_vec3_max(v[1], v[2]))};
        }
        /* positions as packed xyz, or with a stride of 4 floats (padding NaN), or a bad stride */
        uint8_t layout = fuzz_read_u8(&r) % 8;
        sr_bvh_triangles input = {
            .positions = &s->vertices[0].x,
            .position_stride = layout == 1 ? 0 : 3 * sizeof(float),
            .vertex_count = s->vertex_count,
            .indices = s->indexed ? s->indices : NULL,
            .triangle_count = s->count,
        };
        float padded[4 * MAX_VERTICES];
        if (layout == 2) {
            for (size_t v = 0; v < s->vertex_count; v++) {
                memcpy(&padded[4 * v], &s->vertices[v], sizeof s->vertices[v]);
                padded[4 * v + 3] = NAN;
            }
            input.positions = padded;
            input.position_stride = 4 * sizeof(float);
        } else if (layout == 3) {
            input.position_stride = 8; /* not enough for xyz */
            expect_error = true;
        } else if (layout == 4 && s->count > 0) {
            input.positions = NULL;
            expect_error = true;
        }
        status = sr_bvh_build_triangles(&desc, &input, &bvh, &err);
    }
    bool refused = status == SR_ERROR_OUT_OF_MEMORY && failing && fuzz_allocation_failed();
    if (expect_error) {
        /* an allocation may fail before the index that makes the input invalid is read */
        FUZZ_CHECK((status == SR_ERROR_INVALID_ARGUMENT || refused) && bvh == NULL,
                   "invalid build (split %d, bins %d, leaf %d, cost %g) returned %s", (int)desc.split, desc.bin_count,
                   desc.max_leaf_size, (double)desc.traversal_cost, sr_status_name(status));
        FUZZ_CHECK(err.message[0] != '\0', "error without a message");
        free(s);
        return;
    }
    if (refused) {
        FUZZ_CHECK(bvh == NULL && err.message[0] != '\0', "failed build left a tree or no message");
        free(s);
        return;
    }
    FUZZ_CHECK(status == SR_OK && bvh, "valid build failed: %s", err.message);
    check_structure(bvh, s);

    for (int query = 0; query < 16 && !fuzz_reader_done(&r); query++) {
        uint8_t what = fuzz_read_u8(&r) % 4;
        if (what == 0) {
            bool q = fuzz_read_u8(&r) % 2;
            sr_vec3 origin = {read_coordinate(&r, q), read_coordinate(&r, q), read_coordinate(&r, q)};
            sr_vec3 direction = {read_coordinate(&r, q), read_coordinate(&r, q), read_coordinate(&r, q)};
            uint8_t range = fuzz_read_u8(&r);
            float tmin = range % 2 ? -INFINITY : 0.0f, tmax = range / 2 % 2 ? read_coordinate(&r, q) : INFINITY;
            sr_ray ray = sr_ray_make(origin, direction, tmin, tmax);
            check_ray(bvh, s, &ray);
        } else {
            check_overlaps(bvh, s, &r, what - 1);
        }
    }
    sr_bvh_destroy(bvh);
    free(s);
}

/* ------------------------------------------------------------------------------------------ */
/* Seeds                                                                                       */

/* a quantised coordinate (value * 8 as int8) */
static void put_q(fuzz_seed_writer *w, float value)
{
    fuzz_seed_put(w, (uint8_t)(int8_t)lrintf(value * 8.0f));
}

static void add_seeds(fuzz_corpus *corpus)
{
    /* A closed indexed octahedron (shared edges and vertices), default options, then rays
     * through a vertex, along an edge, from inside, and box/sphere/frustum queries. */
    fuzz_seed_writer w = {.size = 0};
    fuzz_seed_put(&w, 4); /* triangles, quantised, indexed */
    fuzz_seed_put(&w, 0); /* split default */
    fuzz_seed_put(&w, 0); /* bins default */
    fuzz_seed_put(&w, 0); /* leaf default */
    fuzz_seed_put(&w, 0); /* cost default */
    fuzz_seed_put(&w, 8); /* 8 triangles */
    fuzz_seed_put(&w, 5); /* 6 vertices */
    const float octahedron[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int v = 0; v < 6; v++) {
        for (int k = 0; k < 3; k++)
            put_q(&w, octahedron[v][k]);
        fuzz_seed_put(&w, 1); /* no duplicate */
    }
    const uint8_t faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                 {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    for (int f = 0; f < 8; f++)
        for (int k = 0; k < 3; k++)
            fuzz_seed_put(&w, faces[f][k]);
    fuzz_seed_put(&w, 0); /* packed positions */
    const float rays[4][6] = {
        {0, 0, 4, 0, 0, -1}, {0.5f, 0.5f, 4, 0, 0, -1}, {0, 0, 0, 1, 1, 1}, {-3, 0.25f, 0.25f, 1, 0, 0}};
    for (int i = 0; i < 4; i++) {
        fuzz_seed_put(&w, 0); /* ray */
        fuzz_seed_put(&w, 1); /* quantised */
        for (int k = 0; k < 6; k++)
            put_q(&w, rays[i][k]);
        fuzz_seed_put(&w, i == 2 ? 1 : 0); /* tmin -inf for the ray from inside */
    }
    fuzz_seed_put(&w, 1); /* box query */
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 1);
    put_q(&w, 0.25f), put_q(&w, 0.25f), put_q(&w, 0.25f), put_q(&w, 2), put_q(&w, 2), put_q(&w, 2);
    fuzz_seed_put(&w, 2); /* sphere query, stop after 2 */
    fuzz_seed_put(&w, 2);
    fuzz_seed_put(&w, 1);
    put_q(&w, 0), put_q(&w, 0), put_q(&w, 1), put_q(&w, 0.5f);
    fuzz_seed_put(&w, 3); /* frustum query from a camera */
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 1);
    fuzz_seed_put(&w, 1);
    put_q(&w, 0), put_q(&w, 0), put_q(&w, 4), put_q(&w, 0), put_q(&w, 0), put_q(&w, 0), put_q(&w, 0.5f);
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* Exponentially spread raw triangles (deep SAH splits), median split, leaf size 1. */
    w.size = 0;
    fuzz_seed_put(&w, 2); /* triangles, raw floats, not indexed */
    fuzz_seed_put(&w, 2); /* median */
    fuzz_seed_put(&w, 1);
    fuzz_seed_put(&w, 1); /* leaf size 2 */
    fuzz_seed_put(&w, 32);
    fuzz_seed_put(&w, 40); /* 40 triangles */
    for (int t = 0; t < 40; t++)
        for (int v = 0; v < 3; v++) {
            for (int k = 0; k < 3; k++) {
                float value = ldexpf(1.0f + (float)v * 0.5f, t - 20) * (k == 0 ? 1.0f : (float)(k + v));
                uint32_t bits;
                memcpy(&bits, &value, sizeof bits);
                fuzz_seed_put(&w, 0); /* raw float tag */
                for (int b = 0; b < 4; b++)
                    fuzz_seed_put(&w, (uint8_t)(bits >> (8 * b)));
            }
            fuzz_seed_put(&w, 1);
        }
    fuzz_seed_put(&w, 0);
    for (int i = 0; i < 3; i++) {
        fuzz_seed_put(&w, 0);
        fuzz_seed_put(&w, 1);
        put_q(&w, -1), put_q(&w, -1), put_q(&w, -1), put_q(&w, 1), put_q(&w, (float)i), put_q(&w, 1);
        fuzz_seed_put(&w, 0);
    }
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* Boxes: a grid of unit boxes, one inverted and one NaN; SAH with 4 bins. */
    w.size = 0;
    fuzz_seed_put(&w, 1); /* boxes, quantised */
    fuzz_seed_put(&w, 1); /* SAH */
    fuzz_seed_put(&w, 2); /* 4 bins */
    fuzz_seed_put(&w, 2);
    fuzz_seed_put(&w, 16);
    fuzz_seed_put(&w, 12);
    for (int i = 0; i < 12; i++) {
        float x = (float)(i % 4), y = (float)(i / 4);
        put_q(&w, x), put_q(&w, y), put_q(&w, 0), put_q(&w, x + 0.75f), put_q(&w, y + 0.75f), put_q(&w, 1);
        fuzz_seed_put(&w, i == 5 ? 0 : 1); /* box 5 raw: still ordered, so kept */
    }
    for (int i = 0; i < 3; i++) {
        fuzz_seed_put(&w, 0);
        fuzz_seed_put(&w, 1);
        put_q(&w, -1), put_q(&w, 0.5f + (float)i), put_q(&w, 0.5f), put_q(&w, 1), put_q(&w, 0), put_q(&w, 0);
        fuzz_seed_put(&w, 0);
    }
    fuzz_seed_put(&w, 1);
    fuzz_seed_put(&w, 3);
    fuzz_seed_put(&w, 1);
    put_q(&w, 0.5f), put_q(&w, 0.5f), put_q(&w, 0.5f), put_q(&w, 2.5f), put_q(&w, 1.5f), put_q(&w, 0.5f);
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* The octahedron again, with allocation failures after 0 to 3 allocations. */
    fuzz_corpus_add_failing(corpus, corpus->count - 3, 4);

    /* A refused build: an out-of-range index. */
    const uint8_t bad_index[] = {4, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 8, 0, 0, 1, 0, 8, 0, 1, 0, 1, 0xff, 0};
    fuzz_corpus_add(corpus, bad_index, sizeof bad_index);
}

const fuzz_target fuzz_target_bvh = {
    .name = "bvh",
    .test_one_input = fuzz_bvh_test_one_input,
    .add_seeds = add_seeds,
    .tokens = NULL,
    .token_count = 0,
    .max_size = 4096,
};
