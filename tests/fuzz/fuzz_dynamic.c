/* tests/fuzz/fuzz_dynamic.c — fuzz target of the dynamic AABB tree (softrast/bvh_dynamic.h,
 * src/bvh/bvh_dynamic*.c): a tree created with raw options (margin, multiplier, capacity, greedy
 * or exact insertion), then a sequence of inserts, moves, removals (live, stale and forged
 * handles), reserves, rebuilds and box, sphere, ray and frustum queries, with boxes made of raw
 * floats (NaN, infinities, inverted, overflowing with the margin) as well as of coarse grids where
 * boxes touch.
 *
 * A model of the live proxies follows the documented contracts and every call is checked
 * against it: which arguments are refused, the fat box an insert stores, Box2D's move rule
 * (whether the tree changed and the fat box it keeps), that the tree stays valid
 * (sr_dynamic_tree_validate) and holds exactly the live proxies after every operation, and that
 * queries report what brute force over the live fat boxes reports: exactly for boxes and rays
 * (the tree uses the same closed-box and sr_ray_aabb tests), and outside a rounding band for
 * spheres and frustums, whose tests the tree evaluates in its own float order. Inputs starting
 * with FUZZ_ALLOCATION_FAILURE_MARK run with failing allocations: a refused allocation must
 * leave the tree as it was. Knows nothing of the driver that calls it. */
#include "fuzz_targets.h"

#include <softrast/bvh_dynamic.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OBJECTS 48
#define MAX_OPERATIONS 400
#define MAX_STALE 16
/* bvh_dynamic.c's limit on proxies (2^29): larger capacities are refused. */
#define MAX_PROXY_CAPACITY (1 << 29)

typedef struct object {
    bool live;
    sr_dynamic_proxy proxy;
    sr_aabb fat; /* the fat box the tree must hold */
} object;

typedef struct model {
    object objects[MAX_OBJECTS];
    int live_count;
    sr_dynamic_proxy stale[MAX_STALE]; /* handles of removed proxies */
    int stale_count;
    float margin, multiplier; /* as the tree applies them (defaults resolved) */
} model;

typedef struct report_set {
    int count[MAX_OBJECTS]; /* reports per object (user data = object index) */
    sr_containment containment[MAX_OBJECTS];
    int total;
    int stop_after; /* the callback returns false at this report (0: never) */
    bool foreign;   /* a report whose user data or handle is not a live object */
    const model *m;
} report_set;

/* ------------------------------------------------------------------------------------------ */
/* Decoding                                                                                    */

/* A coordinate: tagged floats (fuzz_read_float), or on a coarse grid so that boxes touch. */
static float read_coordinate(fuzz_reader *r, bool grid)
{
    return grid ? (float)(int8_t)fuzz_read_u8(r) / 4.0f : fuzz_read_float(r);
}

static sr_vec3 read_vec3(fuzz_reader *r, bool grid)
{
    sr_vec3 v;
    v.x = read_coordinate(r, grid);
    v.y = read_coordinate(r, grid);
    v.z = read_coordinate(r, grid);
    return v;
}

/* A box; `ordered` sorts each axis (NaN stays where it is, so such boxes are still refused). */
static sr_aabb read_box(fuzz_reader *r, bool grid, bool ordered)
{
    sr_aabb b = {read_vec3(r, grid), read_vec3(r, grid)};
    if (ordered) {
        float *lo = &b.min.x, *hi = &b.max.x;
        for (int k = 0; k < 3; k++)
            if (lo[k] > hi[k]) {
                float t = lo[k];
                lo[k] = hi[k];
                hi[k] = t;
            }
    }
    return b;
}

/* ------------------------------------------------------------------------------------------ */
/* The documented rules                                                                        */

static bool box_finite_ordered(const sr_aabb *b)
{
    return sr_vec3_is_finite(b->min) && sr_vec3_is_finite(b->max) && b->min.x <= b->max.x && b->min.y <= b->max.y &&
           b->min.z <= b->max.z;
}

static bool box_contains(const sr_aabb *outer, const sr_aabb *inner)
{
    return outer->min.x <= inner->min.x && outer->min.y <= inner->min.y && outer->min.z <= inner->min.z &&
           inner->max.x <= outer->max.x && inner->max.y <= outer->max.y && inner->max.z <= outer->max.z;
}

static bool box_equal(const sr_aabb *a, const sr_aabb *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static sr_aabb expanded(sr_aabb b, float margin)
{
    return (sr_aabb){{b.min.x - margin, b.min.y - margin, b.min.z - margin},
                     {b.max.x + margin, b.max.y + margin, b.max.z + margin}};
}

/* The fat box of a move (bvh_dynamic.h): margin on every side, then displacement * multiplier
 * on its side. */
static sr_aabb moved_fat_box(const model *m, sr_aabb box, sr_vec3 displacement)
{
    sr_vec3 d = {displacement.x * m->multiplier, displacement.y * m->multiplier, displacement.z * m->multiplier};
    return (sr_aabb){
        {box.min.x - m->margin + (d.x < 0.0f ? d.x : 0.0f), box.min.y - m->margin + (d.y < 0.0f ? d.y : 0.0f),
         box.min.z - m->margin + (d.z < 0.0f ? d.z : 0.0f)},
        {box.max.x + m->margin + (d.x < 0.0f ? 0.0f : d.x), box.max.y + m->margin + (d.y < 0.0f ? 0.0f : d.y),
         box.max.z + m->margin + (d.z < 0.0f ? 0.0f : d.z)}};
}

/* ------------------------------------------------------------------------------------------ */
/* Checks of the whole tree                                                                    */

typedef struct census {
    const model *m;
    int leaves, nodes;
    int seen[MAX_OBJECTS];
} census;

static bool count_node(void *user, const sr_dynamic_tree_node_info *node)
{
    census *c = user;
    c->nodes++;
    if (!node->is_leaf)
        return true;
    c->leaves++;
    FUZZ_CHECK(node->user_data < MAX_OBJECTS, "leaf with user data %llu", (unsigned long long)node->user_data);
    const object *o = &c->m->objects[node->user_data];
    FUZZ_CHECK(o->live && o->proxy.index == node->proxy.index && o->proxy.generation == node->proxy.generation,
               "leaf of object %llu is not its live proxy", (unsigned long long)node->user_data);
    FUZZ_CHECK(box_equal(&node->box, &o->fat), "leaf of object %llu holds another box",
               (unsigned long long)node->user_data);
    c->seen[node->user_data]++;
    return true;
}

static void check_tree(const sr_dynamic_tree *tree, const model *m)
{
    sr_error err = {0};
    FUZZ_CHECK(sr_dynamic_tree_validate(tree, &err) == SR_OK, "validate: %s", err.message);
    sr_dynamic_tree_stats stats = sr_dynamic_tree_get_stats(tree);
    FUZZ_CHECK(stats.proxy_count == m->live_count, "%d proxies, model %d", stats.proxy_count, m->live_count);
    FUZZ_CHECK(stats.node_count == (m->live_count ? 2 * m->live_count - 1 : 0), "%d nodes for %d proxies",
               stats.node_count, m->live_count);
    census c = {.m = m};
    sr_dynamic_tree_query_stats walk = sr_dynamic_tree_visit_nodes(tree, count_node, &c, &err);
    FUZZ_CHECK(walk.status == SR_OK, "visit_nodes: %s", err.message);
    FUZZ_CHECK(c.leaves == m->live_count && c.nodes == stats.node_count, "walk saw %d leaves, %d nodes", c.leaves,
               c.nodes);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        const object *o = &m->objects[i];
        FUZZ_CHECK(c.seen[i] == (o->live ? 1 : 0), "object %d is %d leaves", i, c.seen[i]);
        FUZZ_CHECK(sr_dynamic_tree_proxy_is_valid(tree, o->proxy) == o->live, "object %d validity", i);
        if (o->live) {
            sr_aabb fat;
            uint64_t user_data;
            FUZZ_CHECK(sr_dynamic_tree_get(tree, o->proxy, &fat, &user_data, &err) == SR_OK, "get: %s", err.message);
            FUZZ_CHECK(user_data == (uint64_t)i && box_equal(&fat, &o->fat), "get of object %d", i);
        }
    }
    for (int i = 0; i < m->stale_count; i++)
        FUZZ_CHECK(!sr_dynamic_tree_proxy_is_valid(tree, m->stale[i]), "stale handle %d is valid", i);
}

/* ------------------------------------------------------------------------------------------ */
/* Queries against brute force                                                                 */

static void note_report(report_set *s, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    if (user_data >= MAX_OBJECTS || !s->m->objects[user_data].live ||
        s->m->objects[user_data].proxy.index != proxy.index ||
        s->m->objects[user_data].proxy.generation != proxy.generation) {
        s->foreign = true;
        return;
    }
    s->count[user_data]++;
    s->containment[user_data] = containment;
    s->total++;
}

static bool on_overlap(void *user, sr_dynamic_proxy proxy, uint64_t user_data)
{
    report_set *s = user;
    note_report(s, proxy, user_data, SR_INTERSECTING);
    return s->stop_after == 0 || s->total < s->stop_after;
}

static bool on_frustum(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    report_set *s = user;
    note_report(s, proxy, user_data, containment);
    return s->stop_after == 0 || s->total < s->stop_after;
}

static float on_ray(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    report_set *s = user;
    note_report(s, proxy, user_data, SR_INTERSECTING);
    /* ray->tmax goes on (also when tmin == tmax); NaN stops (0 would only clip a ray with tmin < 0) */
    return s->stop_after == 0 || s->total < s->stop_after ? ray->tmax : NAN;
}

/* The reports of a query against brute force: expected[i] for each live object, enforced where
 * judged[i] (NULL: everywhere). With a stop, exactly stop_after reports (or all the expected
 * ones when fewer) when every object is judged. */
static void check_reports(const char *what, const report_set *s, const sr_dynamic_tree_query_stats *stats,
                          const bool expected[MAX_OBJECTS], const bool *judged)
{
    FUZZ_CHECK(!s->foreign, "%s reported a proxy that is not live", what);
    FUZZ_CHECK(stats->proxies_reported == s->total, "%s: stats say %d reports, callback saw %d", what,
               stats->proxies_reported, s->total);
    int expected_total = 0;
    bool all_judged = true;
    for (int i = 0; i < MAX_OBJECTS; i++) {
        FUZZ_CHECK(s->count[i] <= 1, "%s reported object %d %d times", what, i, s->count[i]);
        expected_total += expected[i];
        if (judged && !judged[i]) {
            all_judged = false;
            continue;
        }
        FUZZ_CHECK(!s->count[i] || expected[i], "%s reported object %d, brute force does not", what, i);
        if (s->stop_after == 0)
            FUZZ_CHECK(s->count[i] || !expected[i], "%s missed object %d", what, i);
    }
    if (s->stop_after > 0) {
        FUZZ_CHECK(s->total <= s->stop_after, "%s went on after the callback stopped it", what);
        if (all_judged) {
            int want = expected_total < s->stop_after ? expected_total : s->stop_after;
            FUZZ_CHECK(s->total == want, "%s stopped after %d reports, expected %d", what, s->total, want);
            FUZZ_CHECK(stats->stopped == (expected_total >= s->stop_after), "%s: stopped flag", what);
        }
    }
}

/* Whether float sums of products of magnitudes up to these stay far from overflow: the condition
 * under which the tree's pruning with its larger boxes provably agrees with the per-box test of
 * geom (both are monotonic in the box while nothing overflows). */
static bool well_scaled(double magnitude)
{
    return magnitude < 1e37;
}

static double box_magnitude(const sr_aabb *b, int axis)
{
    const float lo[3] = {b->min.x, b->min.y, b->min.z}, hi[3] = {b->max.x, b->max.y, b->max.z};
    return fmax(fabs((double)lo[axis]), fabs((double)hi[axis]));
}

static void query_box(const sr_dynamic_tree *tree, const model *m, fuzz_reader *r, bool grid, int stop_after)
{
    sr_aabb box = read_box(r, grid, fuzz_read_u8(r) & 1);
    report_set s = {.stop_after = stop_after, .m = m};
    sr_error err = {0};
    sr_dynamic_tree_query_stats stats = sr_dynamic_tree_query_aabb(tree, box, on_overlap, &s, &err);
    bool nan = isnan(box.min.x) || isnan(box.min.y) || isnan(box.min.z) || isnan(box.max.x) || isnan(box.max.y) ||
               isnan(box.max.z);
    if (nan) {
        FUZZ_CHECK(stats.status == SR_ERROR_INVALID_ARGUMENT && s.total == 0, "NaN query box accepted");
        return;
    }
    FUZZ_CHECK(stats.status == SR_OK, "box query: %s", err.message);
    bool expected[MAX_OBJECTS] = {false};
    for (int i = 0; i < MAX_OBJECTS; i++)
        expected[i] = m->objects[i].live && sr_aabb_overlaps(m->objects[i].fat, box);
    check_reports("box query", &s, &stats, expected, NULL);
}

static void query_ray(const sr_dynamic_tree *tree, const model *m, fuzz_reader *r, bool grid, int stop_after)
{
    sr_vec3 origin = read_vec3(r, grid), direction = read_vec3(r, grid);
    uint8_t limits = fuzz_read_u8(r);
    float tmin = limits & 1 ? fuzz_read_float(r) : 0.0f;
    float tmax = limits & 2 ? fuzz_read_float(r) : INFINITY;
    sr_ray ray = sr_ray_make(origin, direction, tmin, tmax);
    report_set s = {.stop_after = stop_after, .m = m};
    sr_error err = {0};
    sr_dynamic_tree_query_stats stats = sr_dynamic_tree_ray_cast(tree, &ray, on_ray, &s, &err);
    bool usable = sr_vec3_is_finite(ray.origin) && sr_vec3_is_finite(ray.direction) && ray.tmin <= ray.tmax;
    if (!usable) {
        FUZZ_CHECK(stats.status == SR_ERROR_INVALID_ARGUMENT && s.total == 0, "unusable ray accepted");
        return;
    }
    FUZZ_CHECK(stats.status == SR_OK, "ray cast: %s", err.message);
    bool expected[MAX_OBJECTS] = {false};
    for (int i = 0; i < MAX_OBJECTS; i++)
        expected[i] = m->objects[i].live && sr_ray_aabb(&ray, &m->objects[i].fat, NULL, NULL);
    check_reports("ray cast", &s, &stats, expected, NULL);
}

static void query_sphere(const sr_dynamic_tree *tree, const model *m, fuzz_reader *r, bool grid, int stop_after)
{
    sr_sphere sphere = {read_vec3(r, grid), read_coordinate(r, grid)};
    report_set s = {.stop_after = stop_after, .m = m};
    sr_error err = {0};
    sr_dynamic_tree_query_stats stats = sr_dynamic_tree_query_sphere(tree, sphere, on_overlap, &s, &err);
    if (!sr_vec3_is_finite(sphere.centre) || !(sphere.radius >= 0.0f) || isinf(sphere.radius)) {
        FUZZ_CHECK(stats.status == SR_ERROR_INVALID_ARGUMENT && s.total == 0, "bad sphere accepted");
        return;
    }
    FUZZ_CHECK(stats.status == SR_OK, "sphere query: %s", err.message);
    /* bvh_dynamic.h: each proxy as sr_aabb_sphere_overlap decides it. */
    bool expected[MAX_OBJECTS] = {false}, judged[MAX_OBJECTS] = {false};
    const float centre[3] = {sphere.centre.x, sphere.centre.y, sphere.centre.z};
    for (int i = 0; i < MAX_OBJECTS; i++) {
        judged[i] = true; /* free objects: never reported */
        if (!m->objects[i].live)
            continue;
        double square = (double)sphere.radius * sphere.radius;
        for (int k = 0; k < 3; k++) {
            double reach = fabs((double)centre[k]) + box_magnitude(&m->objects[i].fat, k);
            square += reach * reach;
        }
        judged[i] = well_scaled(square);
        expected[i] = sr_aabb_sphere_overlap(m->objects[i].fat, sphere);
    }
    check_reports("sphere query", &s, &stats, expected, judged);
}

static void query_frustum(const sr_dynamic_tree *tree, const model *m, fuzz_reader *r, bool grid, int stop_after)
{
    sr_frustum frustum;
    for (int i = 0; i < 6; i++) {
        frustum.planes[i].normal = read_vec3(r, grid);
        frustum.planes[i].d = read_coordinate(r, grid);
    }
    report_set s = {.stop_after = stop_after, .m = m};
    sr_error err = {0};
    sr_dynamic_tree_query_stats stats = sr_dynamic_tree_query_frustum(tree, &frustum, on_frustum, &s, &err);
    bool finite = true;
    for (int i = 0; i < 6; i++)
        finite = finite && sr_vec3_is_finite(frustum.planes[i].normal) && isfinite(frustum.planes[i].d);
    if (!finite) {
        FUZZ_CHECK(stats.status == SR_ERROR_INVALID_ARGUMENT && s.total == 0, "non-finite frustum accepted");
        return;
    }
    FUZZ_CHECK(stats.status == SR_OK, "frustum query: %s", err.message);
    /* bvh_dynamic.h: each proxy as sr_frustum_test_aabb classifies its fat box. */
    bool expected[MAX_OBJECTS] = {false}, judged[MAX_OBJECTS] = {false};
    for (int i = 0; i < MAX_OBJECTS; i++) {
        judged[i] = true; /* free objects: never reported */
        if (!m->objects[i].live)
            continue;
        const sr_aabb *b = &m->objects[i].fat;
        for (int p = 0; p < 6; p++) {
            const sr_plane *plane = &frustum.planes[p];
            double sum = fabs((double)plane->d) + fabs((double)plane->normal.x) * box_magnitude(b, 0) +
                         fabs((double)plane->normal.y) * box_magnitude(b, 1) +
                         fabs((double)plane->normal.z) * box_magnitude(b, 2);
            judged[i] = judged[i] && well_scaled(sum);
        }
        sr_containment containment = sr_frustum_test_aabb(&frustum, b);
        expected[i] = containment != SR_OUTSIDE;
        if (judged[i] && s.count[i])
            FUZZ_CHECK(s.containment[i] == containment, "frustum query: object %d reported as %d, geom says %d", i,
                       (int)s.containment[i], (int)containment);
    }
    check_reports("frustum query", &s, &stats, expected, judged);
}

/* ------------------------------------------------------------------------------------------ */
/* Entry point                                                                                 */

static void run_input(fuzz_reader r, bool failing);

int fuzz_dynamic_test_one_input(const uint8_t *data, size_t size)
{
    fuzz_reader r = fuzz_reader_make(data, size);
    bool failing = fuzz_allocation_failures_begin(&r);
    run_input(r, failing);
    fuzz_allocation_failures_end();
    return 0;
}

/* A handle to act on: a live or a free object's, a stale one, or one forged from the input. */
static sr_dynamic_proxy pick_handle(const model *m, fuzz_reader *r, int *object_index)
{
    uint8_t choice = fuzz_read_u8(r);
    *object_index = -1;
    if (choice < 0xe0) {
        int i = choice % MAX_OBJECTS;
        if (m->objects[i].live)
            *object_index = i;
        return m->objects[i].proxy; /* a free object's handle is stale or null */
    }
    if (choice < 0xf0 && m->stale_count > 0)
        return m->stale[choice % m->stale_count];
    sr_dynamic_proxy forged = {fuzz_read_u32(r), fuzz_read_u32(r)};
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (m->objects[i].live && m->objects[i].proxy.index == forged.index &&
            m->objects[i].proxy.generation == forged.generation)
            *object_index = i;
    return forged;
}

static void remember_stale(model *m, sr_dynamic_proxy proxy)
{
    if (m->stale_count < MAX_STALE)
        m->stale[m->stale_count++] = proxy;
    else
        m->stale[proxy.index % MAX_STALE] = proxy;
}

static void run_input(fuzz_reader r, bool failing)
{
    sr_error err = {0};
    model *m = calloc(1, sizeof *m);
    FUZZ_CHECK(m, "out of memory");

    /* options, raw values included */
    uint8_t flags = fuzz_read_u8(&r), capacity_byte = fuzz_read_u8(&r);
    static const int odd_capacities[] = {-1, INT_MIN, MAX_PROXY_CAPACITY + 1, INT_MAX, 0, 1, 2, 10000};
    sr_dynamic_tree_desc desc = {
        .initial_capacity = capacity_byte < 0xf8 ? capacity_byte % 40 : odd_capacities[capacity_byte - 0xf8],
        .margin = flags & 8 ? fuzz_read_float(&r) : (float)(flags >> 4) / 8.0f,
        .no_margin = flags & 2,
        .displacement_multiplier = flags & 4 ? fuzz_read_float(&r) : 0.0f,
        .exact_insertion = flags & 1,
    };
    const bool grid = !(flags & 0x80);
    const bool use_desc = !(flags & 0x40);
    bool desc_valid = desc.initial_capacity >= 0 && desc.initial_capacity <= MAX_PROXY_CAPACITY &&
                      isfinite(desc.margin) && desc.margin >= 0.0f && isfinite(desc.displacement_multiplier) &&
                      desc.displacement_multiplier >= 0.0f;
    sr_dynamic_tree *tree = NULL;
    sr_status status = sr_dynamic_tree_create(use_desc ? &desc : NULL, &tree, &err);
    if (use_desc && !desc_valid) {
        FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT && !tree, "bad options accepted");
        free(m);
        return;
    }
    if (status == SR_ERROR_OUT_OF_MEMORY && failing) {
        FUZZ_CHECK(!tree, "failed create left a tree");
        free(m);
        return;
    }
    FUZZ_CHECK(status == SR_OK && tree, "create: %s", err.message);
    if (!use_desc)
        desc = (sr_dynamic_tree_desc){0};
    m->margin = desc.no_margin ? 0.0f : desc.margin > 0.0f ? desc.margin : 0.1f;
    m->multiplier = desc.displacement_multiplier > 0.0f ? desc.displacement_multiplier : 4.0f;

    /* NULL arguments are refused */
    sr_dynamic_proxy unused;
    FUZZ_CHECK(sr_dynamic_tree_insert(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, NULL, &err) ==
                   SR_ERROR_INVALID_ARGUMENT,
               "insert without out_proxy accepted");
    FUZZ_CHECK(sr_dynamic_tree_insert(NULL, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, &unused, &err) ==
                   SR_ERROR_INVALID_ARGUMENT,
               "insert into NULL accepted");
    FUZZ_CHECK(sr_dynamic_tree_query_aabb(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, NULL, NULL, &err).status ==
                   SR_ERROR_INVALID_ARGUMENT,
               "query without callback accepted");

    for (int operation = 0; operation < MAX_OPERATIONS && !fuzz_reader_done(&r); operation++) {
        uint8_t op = fuzz_read_u8(&r);
        int stop_after = op & 0x80 ? 1 + (op >> 4 & 3) : 0;
        switch (op % 10) {
        case 0:
        case 1: { /* insert */
            int slot = -1;
            for (int i = 0; i < MAX_OBJECTS && slot < 0; i++)
                if (!m->objects[i].live)
                    slot = i;
            sr_aabb box = read_box(&r, grid, !(op & 0x40));
            if (slot < 0)
                break;
            sr_dynamic_proxy proxy;
            status = sr_dynamic_tree_insert(tree, box, (uint64_t)slot, &proxy, &err);
            sr_aabb fat = expanded(box, m->margin);
            if (!box_finite_ordered(&box) || !box_finite_ordered(&fat)) {
                FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT, "insert of a bad box: status %d", (int)status);
                break;
            }
            if (status == SR_ERROR_OUT_OF_MEMORY && failing)
                break;
            FUZZ_CHECK(status == SR_OK, "insert: %s", err.message);
            FUZZ_CHECK(proxy.generation != 0, "insert gave a null handle");
            for (int i = 0; i < m->stale_count; i++)
                FUZZ_CHECK(m->stale[i].index != proxy.index || m->stale[i].generation != proxy.generation,
                           "insert reused a stale handle");
            m->objects[slot] = (object){.live = true, .proxy = proxy, .fat = fat};
            m->live_count++;
            break;
        }
        case 2: { /* remove */
            int i;
            sr_dynamic_proxy proxy = pick_handle(m, &r, &i);
            status = sr_dynamic_tree_remove(tree, proxy, &err);
            if (i < 0) {
                FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT, "removal of a stale handle accepted");
                break;
            }
            FUZZ_CHECK(status == SR_OK, "remove: %s", err.message);
            m->objects[i].live = false;
            m->live_count--;
            remember_stale(m, proxy);
            break;
        }
        case 3:
        case 4: { /* move */
            int i;
            sr_dynamic_proxy proxy = pick_handle(m, &r, &i);
            sr_aabb box = read_box(&r, grid, !(op & 0x40));
            sr_vec3 displacement = op & 0x20 ? read_vec3(&r, grid) : (sr_vec3){0.0f, 0.0f, 0.0f};
            bool changed = true;
            status = sr_dynamic_tree_move(tree, proxy, box, displacement, &changed, &err);
            if (i < 0) {
                FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT && !changed, "move of a stale handle accepted");
                break;
            }
            sr_aabb fat = moved_fat_box(m, box, displacement);
            if (!box_finite_ordered(&box) || !sr_vec3_is_finite(displacement) || !box_finite_ordered(&fat)) {
                FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT && !changed, "move with bad arguments accepted");
                break;
            }
            FUZZ_CHECK(status == SR_OK, "move: %s", err.message);
            object *o = &m->objects[i];
            sr_aabb huge = expanded(fat, 4.0f * m->margin);
            bool keep = box_contains(&o->fat, &box) && box_contains(&huge, &o->fat);
            FUZZ_CHECK(changed == !keep, "move of object %d: changed %d, the rule says %d", i, changed, !keep);
            if (!keep)
                o->fat = fat;
            break;
        }
        case 5:
            query_box(tree, m, &r, grid, stop_after);
            break;
        case 6:
            query_ray(tree, m, &r, grid, stop_after);
            break;
        case 7:
            if (op & 0x40)
                query_sphere(tree, m, &r, grid, stop_after);
            else
                query_frustum(tree, m, &r, grid, stop_after);
            break;
        case 8: { /* rebuild: the same proxies, handles and fat boxes */
            status = sr_dynamic_tree_rebuild(tree, &err);
            FUZZ_CHECK(status == SR_OK || (status == SR_ERROR_OUT_OF_MEMORY && failing), "rebuild: %s", err.message);
            break;
        }
        default: { /* reserve */
            uint8_t count_byte = fuzz_read_u8(&r);
            static const int odd_counts[] = {-1, INT_MIN, MAX_PROXY_CAPACITY + 1, INT_MAX, 0, 1, 64, 1000};
            int count = count_byte < 0xf8 ? count_byte : odd_counts[count_byte - 0xf8];
            status = sr_dynamic_tree_reserve(tree, count, &err);
            if (count < 0 || count > MAX_PROXY_CAPACITY)
                FUZZ_CHECK(status == SR_ERROR_INVALID_ARGUMENT, "reserve(%d) accepted", count);
            else
                FUZZ_CHECK(status == SR_OK || (status == SR_ERROR_OUT_OF_MEMORY && failing), "reserve(%d): %s", count,
                           err.message);
            break;
        }
        }
        check_tree(tree, m);
    }
    sr_dynamic_tree_destroy(tree);
    free(m);
}

/* ------------------------------------------------------------------------------------------ */
/* Seeds                                                                                       */

/* a grid coordinate (value * 4 as int8) */
static void put_g(fuzz_seed_writer *w, float value)
{
    fuzz_seed_put(w, (uint8_t)(int8_t)lrintf(value * 4.0f));
}

static void put_box(fuzz_seed_writer *w, float x, float y, float z, float size)
{
    put_g(w, x), put_g(w, y), put_g(w, z), put_g(w, x + size), put_g(w, y + size), put_g(w, z + size);
}

static void add_seeds(fuzz_corpus *corpus)
{
    for (int exact = 0; exact < 2; exact++) {
        /* Grid boxes (touching neighbours), default margin: inserts, moves inside and outside
         * the fat box, a removal, every query, a rebuild and a reserve. */
        fuzz_seed_writer w = {.size = 0};
        fuzz_seed_put(&w, (uint8_t)exact); /* grid, options from desc: margin 0 -> default */
        fuzz_seed_put(&w, 8);              /* initial capacity 8: the pool grows */
        for (int i = 0; i < 20; i++) {
            fuzz_seed_put(&w, 0); /* insert */
            put_box(&w, (float)(i % 5), (float)(i / 5), (float)(i % 3) * 0.5f, 1.0f);
        }
        fuzz_seed_put(&w, 3), fuzz_seed_put(&w, 4), put_box(&w, 4.0f, 0.0f, 0.0f, 1.0f);  /* move inside the fat box */
        fuzz_seed_put(&w, 3), fuzz_seed_put(&w, 5), put_box(&w, 10.0f, 2.0f, 1.0f, 0.5f); /* move out of it */
        fuzz_seed_put(&w, 0x21), fuzz_seed_put(&w, 6), put_box(&w, 1.0f, 1.0f, 0.0f, 1.0f), put_g(&w, 2), put_g(&w, 0),
            put_g(&w, -1);
        fuzz_seed_put(&w, 2), fuzz_seed_put(&w, 7); /* remove */
        fuzz_seed_put(&w, 2), fuzz_seed_put(&w, 7); /* the same handle again: stale */
        fuzz_seed_put(&w, 5), fuzz_seed_put(&w, 1), put_box(&w, 1.0f, 1.0f, 0.0f, 2.0f); /* box query */
        fuzz_seed_put(&w, 6); /* ray along x through the row y = 0.5 */
        put_g(&w, -5), put_g(&w, 0.5f), put_g(&w, 0.25f), put_g(&w, 1), put_g(&w, 0), put_g(&w, 0),
            fuzz_seed_put(&w, 0);
        fuzz_seed_put(&w, 0x43), put_g(&w, 2), put_g(&w, 2), put_g(&w, 0.5f), put_g(&w, 1.5f); /* sphere */
        fuzz_seed_put(&w, 7); /* frustum: a slab 1 <= x <= 3 */
        const float planes[6][4] = {{1, 0, 0, -1},  {-1, 0, 0, 3}, {0, 1, 0, 10},
                                    {0, -1, 0, 10}, {0, 0, 1, 10}, {0, 0, -1, 10}};
        for (int p = 0; p < 6; p++)
            for (int k = 0; k < 4; k++)
                put_g(&w, planes[p][k]);
        fuzz_seed_put(&w, 0x91), fuzz_seed_put(&w, 1),
            put_box(&w, -10.0f, -10.0f, -10.0f, 20.0f); /* box query stopped at 2 */
        fuzz_seed_put(&w, 8);                           /* rebuild */
        fuzz_seed_put(&w, 9), fuzz_seed_put(&w, 64);    /* reserve */
        fuzz_seed_put(&w, 9), fuzz_seed_put(&w, 0xf8);  /* reserve(-1): refused */
        fuzz_corpus_add(corpus, w.bytes, w.size);
    }

    /* Raw floats: a NaN box, an infinite box, an inverted box, a box that overflows with a huge
     * margin, then a valid one. */
    fuzz_seed_writer w = {.size = 0};
    fuzz_seed_put(&w, 0x80 | 8); /* raw floats, margin read */
    fuzz_seed_put(&w, 0);
    fuzz_seed_put(&w, 3), fuzz_seed_put(&w, 0x40), fuzz_seed_put(&w, 0); /* margin 0.25 (tag 3: int16 / 256) */
    const float raw[4][6] = {
        {NAN, 0, 0, 1, 1, 1}, {0, 0, 0, INFINITY, 1, 1}, {1, 1, 1, 0, 0, 0}, {3e38f, 0, 0, 3.4e38f, 1, 1}};
    for (int b = 0; b < 4; b++) {
        fuzz_seed_put(&w, b == 2 ? 0x46 : 0); /* insert; the inverted box stays inverted */
        for (int k = 0; k < 6; k++) {
            uint32_t bits;
            memcpy(&bits, &raw[b][k], sizeof bits);
            fuzz_seed_put(&w, 0);
            for (int i = 0; i < 4; i++)
                fuzz_seed_put(&w, (uint8_t)(bits >> (8 * i)));
        }
    }
    fuzz_seed_put(&w, 0);
    for (int k = 0; k < 6; k++)
        fuzz_seed_put(&w, 1), fuzz_seed_put(&w, (uint8_t)(k < 3 ? 0 : 32)); /* tag 1: int8 / 32: the box [0, 1]^3 */
    fuzz_corpus_add(corpus, w.bytes, w.size);

    /* The first seed with allocation failures after 0 to 3 allocations. */
    fuzz_corpus_add_failing(corpus, corpus->count - 3, 4);

    /* Refused options: a NaN margin. */
    const uint8_t bad_margin[] = {8, 0, 2, 6};
    fuzz_corpus_add(corpus, bad_margin, sizeof bad_margin);
}

const fuzz_target fuzz_target_dynamic = {
    .name = "dynamic",
    .test_one_input = fuzz_dynamic_test_one_input,
    .add_seeds = add_seeds,
    .tokens = NULL,
    .token_count = 0,
    .max_size = 4096,
};
