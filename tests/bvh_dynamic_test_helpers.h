/* tests/bvh_dynamic_test_helpers.h — what the tests of the dynamic AABB tree (tests/test_bvh_dynamic*.c) share:
 * deterministic random numbers, the test's model of the objects, brute-force references in double
 * precision, query callbacks, the checks of every query against brute force, and an independent
 * SAH (recomputed from the visited nodes, and a full-sweep reference build). Header-only, for
 * tests. */
#ifndef SR_TESTS_BVH_DYNAMIC_TEST_HELPERS_H
#define SR_TESTS_BVH_DYNAMIC_TEST_HELPERS_H

#include <criterion/criterion.h>

#include <softrast/bvh_dynamic.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic random numbers (SplitMix64) ---- */

typedef struct rng {
    uint64_t state;
} rng;

static inline uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline float rng_float(rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0));
}

static inline int rng_int(rng *r, int n)
{
    return (int)(rng_next(r) % (uint64_t)n);
}

static inline sr_vec3 rng_vec3(rng *r, float lo, float hi)
{
    return (sr_vec3){rng_float(r, lo, hi), rng_float(r, lo, hi), rng_float(r, lo, hi)};
}

static inline sr_vec3 rng_direction(rng *r)
{
    for (;;) {
        sr_vec3 v = rng_vec3(r, -1.0f, 1.0f);
        float length = sr_vec3_length(v);
        if (length > 0.1f && length <= 1.0f)
            return sr_vec3_scale(v, 1.0f / length);
    }
}

/* ---- the test's model of the objects ---- */

#define MAX_OBJECTS 8192
#define WORLD 50.0f

typedef struct object {
    bool live;
    bool is_sphere; /* exact shape: the sphere, or the tight box itself */
    sr_vec3 centre;
    float radius; /* sphere radius, or half extent of the box along x (y, z scaled below) */
    sr_vec3 half; /* half extents of the tight box */
    sr_aabb fat;  /* the fat box the documented rule gives (the test's own bookkeeping) */
    sr_dynamic_proxy proxy;
} object;

typedef struct world {
    object objects[MAX_OBJECTS];
    int live_count;
    float margin;
    float multiplier;
} world;

static inline sr_aabb tight_box(const object *o)
{
    return (sr_aabb){sr_vec3_sub(o->centre, o->half), sr_vec3_add(o->centre, o->half)};
}

static inline bool contains(sr_aabb outer, sr_aabb inner)
{
    return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && outer.min.z <= inner.min.z &&
           inner.max.x <= outer.max.x && inner.max.y <= outer.max.y && inner.max.z <= outer.max.z;
}

static inline sr_aabb expand(sr_aabb b, float m)
{
    return (sr_aabb){{b.min.x - m, b.min.y - m, b.min.z - m}, {b.max.x + m, b.max.y + m, b.max.z + m}};
}

/* The move rule as documented in bvh_dynamic.h (Box2D v2.4 MoveProxy); returns whether the
 * stored fat box changes. */
static inline bool model_move(const world *w, object *o, sr_vec3 displacement)
{
    sr_aabb box = tight_box(o);
    sr_aabb fat = expand(box, w->margin);
    sr_vec3 d = sr_vec3_scale(displacement, w->multiplier);
    if (d.x < 0.0f)
        fat.min.x += d.x;
    else
        fat.max.x += d.x;
    if (d.y < 0.0f)
        fat.min.y += d.y;
    else
        fat.max.y += d.y;
    if (d.z < 0.0f)
        fat.min.z += d.z;
    else
        fat.max.z += d.z;
    if (contains(o->fat, box) && contains(expand(fat, 4.0f * w->margin), o->fat))
        return false;
    o->fat = fat;
    return true;
}

static inline void random_shape(rng *r, object *o)
{
    o->is_sphere = rng_int(r, 2) == 0;
    /* Sizes like a game's: mostly small props, a few large ones. */
    float size = rng_int(r, 20) == 0 ? rng_float(r, 2.0f, 6.0f) : rng_float(r, 0.2f, 1.5f);
    o->radius = size;
    o->half = o->is_sphere ? sr_vec3_splat(size)
                           : (sr_vec3){size, size * rng_float(r, 0.3f, 1.5f), size * rng_float(r, 0.3f, 1.5f)};
}

static inline int insert_object(world *w, sr_dynamic_tree *tree, rng *r)
{
    int slot = -1;
    for (int i = 0; i < MAX_OBJECTS; i++) {
        int k = (rng_int(r, MAX_OBJECTS) + i) % MAX_OBJECTS;
        if (!w->objects[k].live) {
            slot = k;
            break;
        }
    }
    cr_assert(slot >= 0);
    object *o = &w->objects[slot];
    random_shape(r, o);
    o->centre = rng_vec3(r, -WORLD, WORLD);
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_insert(tree, tight_box(o), (uint64_t)slot, &o->proxy, &err), SR_OK, "%s", err.message);
    o->fat = expand(tight_box(o), w->margin);
    o->live = true;
    w->live_count++;
    return slot;
}

static inline int random_live(world *w, rng *r)
{
    for (;;) {
        int k = rng_int(r, MAX_OBJECTS);
        if (w->objects[k].live)
            return k;
    }
}

/* ---- brute-force references in double precision ---- */

#define EPS 1e-3

typedef enum verdict { NO, YES, UNSURE } verdict;

/* Slab test in double on the fat box; UNSURE within EPS of a boundary. */
static inline verdict brute_ray_box(const sr_ray *ray, sr_aabb box)
{
    double o[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    double d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
    double lo[3] = {box.min.x, box.min.y, box.min.z}, hi[3] = {box.max.x, box.max.y, box.max.z};
    double t_near = ray->tmin, t_far = ray->tmax;
    bool unsure = false;
    for (int a = 0; a < 3; a++) {
        if (d[a] == 0.0) {
            if (o[a] < lo[a] - EPS || o[a] > hi[a] + EPS)
                return NO;
            if (o[a] < lo[a] + EPS || o[a] > hi[a] - EPS)
                unsure = true;
            continue;
        }
        double t1 = (lo[a] - o[a]) / d[a], t2 = (hi[a] - o[a]) / d[a];
        if (t1 > t2) {
            double s = t1;
            t1 = t2, t2 = s;
        }
        t_near = fmax(t_near, t1);
        t_far = fmin(t_far, t2);
    }
    if (t_near > t_far + EPS)
        return NO;
    if (t_near > t_far - EPS || unsure)
        return UNSURE;
    return YES;
}

static inline verdict brute_sphere_box(sr_sphere s, sr_aabb box)
{
    double c[3] = {s.centre.x, s.centre.y, s.centre.z};
    double lo[3] = {box.min.x, box.min.y, box.min.z}, hi[3] = {box.max.x, box.max.y, box.max.z};
    double sum = 0.0;
    for (int a = 0; a < 3; a++) {
        double v = c[a] < lo[a] ? lo[a] - c[a] : (c[a] > hi[a] ? c[a] - hi[a] : 0.0);
        sum += v * v;
    }
    double distance = sqrt(sum);
    if (distance > s.radius + EPS)
        return NO;
    if (distance < s.radius - EPS)
        return YES;
    return UNSURE;
}

/* Corner-based frustum classification in double. *outside: NO/YES/UNSURE that the box is wholly
 * outside one plane; *inside: that it is inside all planes. */
static inline void brute_frustum_box(const sr_frustum *f, sr_aabb box, verdict *outside, verdict *inside)
{
    bool surely_not_outside = true, surely_inside = true, surely_not_inside = false;
    *outside = NO;
    for (int p = 0; p < 6; p++) {
        double most = -DBL_MAX, least = DBL_MAX;
        for (int corner = 0; corner < 8; corner++) {
            double x = corner & 1 ? box.max.x : box.min.x, y = corner & 2 ? box.max.y : box.min.y,
                   z = corner & 4 ? box.max.z : box.min.z;
            double dist = (double)f->planes[p].normal.x * x + (double)f->planes[p].normal.y * y +
                          (double)f->planes[p].normal.z * z + f->planes[p].d;
            most = fmax(most, dist);
            least = fmin(least, dist);
        }
        if (most < -EPS)
            *outside = YES;
        if (most <= EPS)
            surely_not_outside = false;
        if (least <= EPS)
            surely_inside = false;
        if (least < -EPS)
            surely_not_inside = true;
    }
    if (*outside != YES && !surely_not_outside)
        *outside = UNSURE;
    *inside = surely_inside ? YES : (surely_not_inside ? NO : UNSURE);
}

/* Exact first hit t >= tmin of the object's shape, in double; INFINITY on a miss. */
static inline double exact_hit(const object *o, const sr_ray *ray, double tmin)
{
    double origin[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    double d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
    double c[3] = {o->centre.x, o->centre.y, o->centre.z};
    if (o->is_sphere) {
        double oc[3] = {origin[0] - c[0], origin[1] - c[1], origin[2] - c[2]};
        double a = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        double b = oc[0] * d[0] + oc[1] * d[1] + oc[2] * d[2];
        double cc = oc[0] * oc[0] + oc[1] * oc[1] + oc[2] * oc[2] - (double)o->radius * o->radius;
        double disc = b * b - a * cc;
        if (disc < 0.0)
            return INFINITY;
        double root = sqrt(disc);
        double t0 = (-b - root) / a, t1 = (-b + root) / a;
        if (t0 >= tmin)
            return t0;
        return t1 >= tmin ? t1 : INFINITY;
    }
    double half[3] = {o->half.x, o->half.y, o->half.z};
    double t_near = tmin, t_far = INFINITY;
    for (int k = 0; k < 3; k++) {
        double lo = c[k] - half[k], hi = c[k] + half[k];
        if (d[k] == 0.0) {
            if (origin[k] < lo || origin[k] > hi)
                return INFINITY;
            continue;
        }
        double t1 = (lo - origin[k]) / d[k], t2 = (hi - origin[k]) / d[k];
        t_near = fmax(t_near, fmin(t1, t2));
        t_far = fmin(t_far, fmax(t1, t2));
    }
    return t_near <= t_far ? t_near : INFINITY;
}

/* ---- query callbacks collecting into per-object marks ---- */

typedef struct collector {
    unsigned char mark[MAX_OBJECTS];
    sr_containment containment[MAX_OBJECTS];
    int count;
    int duplicates;
    int stale;
    const sr_dynamic_tree *tree;
    /* closest hit */
    const world *w;
    int best;
    double best_t;
} collector;

static inline void collector_reset(collector *c, const sr_dynamic_tree *tree, const world *w)
{
    memset(c->mark, 0, sizeof c->mark);
    c->count = c->duplicates = c->stale = 0;
    c->tree = tree;
    c->w = w;
    c->best = -1;
    c->best_t = INFINITY;
}

static inline void collect(collector *c, sr_dynamic_proxy proxy, uint64_t user_data)
{
    if (!sr_dynamic_tree_proxy_is_valid(c->tree, proxy) || user_data >= MAX_OBJECTS) {
        c->stale++;
        return;
    }
    if (c->mark[user_data])
        c->duplicates++;
    c->mark[user_data] = 1;
    c->count++;
}

static inline bool collect_overlap(void *user, sr_dynamic_proxy proxy, uint64_t user_data)
{
    collect(user, proxy, user_data);
    return true;
}

static inline float collect_ray(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    collect(user, proxy, user_data);
    return ray->tmax;
}

static inline bool collect_frustum(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    collector *c = user;
    collect(c, proxy, user_data);
    if (user_data < MAX_OBJECTS)
        c->containment[user_data] = containment;
    return true;
}

static inline float closest_hit(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    collector *c = user;
    collect(c, proxy, user_data);
    double t = exact_hit(&c->w->objects[user_data], ray, ray->tmin);
    if (t <= ray->tmax && t < c->best_t) {
        c->best_t = t;
        c->best = (int)user_data;
        return (float)t;
    }
    return ray->tmax;
}

static inline sr_ray make_ray(sr_vec3 origin, sr_vec3 direction, float tmin, float tmax)
{
    return sr_ray_make(origin, direction, tmin, tmax);
}

/* Gribb & Hartmann plane extraction for zero-to-one depth, written here independently of geom. */
static inline sr_frustum frustum_from(sr_mat4 m)
{
    sr_vec4 row[4];
    for (int r = 0; r < 4; r++)
        row[r] = (sr_vec4){m.m[0 * 4 + r], m.m[1 * 4 + r], m.m[2 * 4 + r], m.m[3 * 4 + r]};
    sr_vec4 planes[6] = {sr_vec4_add(row[3], row[0]),
                         sr_vec4_sub(row[3], row[0]),
                         sr_vec4_add(row[3], row[1]),
                         sr_vec4_sub(row[3], row[1]),
                         row[2],
                         sr_vec4_sub(row[3], row[2])};
    sr_frustum f;
    for (int i = 0; i < 6; i++) {
        float length = sqrtf(planes[i].x * planes[i].x + planes[i].y * planes[i].y + planes[i].z * planes[i].z);
        f.planes[i] =
            (sr_plane){{planes[i].x / length, planes[i].y / length, planes[i].z / length}, planes[i].w / length};
    }
    return f;
}

static inline sr_frustum random_frustum(rng *r, float far_z)
{
    sr_vec3 eye = rng_vec3(r, -WORLD, WORLD);
    sr_vec3 target = sr_vec3_add(eye, rng_direction(r));
    sr_mat4 view =
        sr_mat4_look_at(eye, target, fabsf(target.y - eye.y) > 0.99f ? (sr_vec3){1, 0, 0} : (sr_vec3){0, 1, 0});
    /* drawn in separate statements, in gcc's right-to-left order of the arguments they were:
     * C leaves that order unspecified (clang goes left to right), and the data must not depend
     * on the compiler */
    const float aspect = rng_float(r, 0.8f, 2.0f), fov = rng_float(r, 0.5f, 1.5f);
    sr_mat4 projection = sr_mat4_perspective(fov, aspect, 0.5f, far_z);
    return frustum_from(sr_mat4_mul(projection, view));
}

/* ---- checks of all queries against brute force ---- */

static inline void check_no_extras(const collector *c)
{
    cr_assert_eq(c->duplicates, 0, "a proxy was reported twice");
    cr_assert_eq(c->stale, 0, "a callback got a stale handle or bad user data");
}

static inline void check_queries(const world *w, const sr_dynamic_tree *tree, rng *r, collector *c, int rounds)
{
    sr_error err;
    for (int q = 0; q < rounds; q++) {
        /* AABB: plain comparisons, no rounding: the sets must match exactly. */
        sr_vec3 centre = rng_vec3(r, -WORLD, WORLD), half = rng_vec3(r, 0.0f, 8.0f);
        sr_aabb box = {sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
        collector_reset(c, tree, w);
        sr_dynamic_tree_query_stats s = sr_dynamic_tree_query_aabb(tree, box, collect_overlap, c, &err);
        cr_assert_eq(s.status, SR_OK, "%s", err.message);
        check_no_extras(c);
        cr_assert_eq(s.proxies_reported, c->count);
        for (int i = 0; i < MAX_OBJECTS; i++) {
            sr_aabb f = w->objects[i].fat;
            bool expected = w->objects[i].live && f.min.x <= box.max.x && box.min.x <= f.max.x &&
                            f.min.y <= box.max.y && box.min.y <= f.max.y && f.min.z <= box.max.z &&
                            box.min.z <= f.max.z;
            cr_assert_eq(c->mark[i] != 0, expected, "aabb query: object %d reported %d, brute force %d", i, c->mark[i],
                         expected);
        }

        /* Sphere. */
        sr_sphere sphere = {rng_vec3(r, -WORLD, WORLD), rng_float(r, 0.0f, 10.0f)};
        collector_reset(c, tree, w);
        s = sr_dynamic_tree_query_sphere(tree, sphere, collect_overlap, c, &err);
        cr_assert_eq(s.status, SR_OK, "%s", err.message);
        check_no_extras(c);
        for (int i = 0; i < MAX_OBJECTS; i++) {
            verdict v = w->objects[i].live ? brute_sphere_box(sphere, w->objects[i].fat) : NO;
            if (v != UNSURE)
                cr_assert_eq(c->mark[i] != 0, v == YES, "sphere query: object %d reported %d", i, c->mark[i]);
        }

        /* Ray, all candidates: some rays axis-parallel (zero direction components). */
        sr_vec3 direction = rng_direction(r);
        if (q % 5 == 0)
            direction = (sr_vec3){0.0f, q % 10 == 0 ? 1.0f : -1.0f, 0.0f};
        float tmax = q % 3 == 0 ? INFINITY : rng_float(r, 5.0f, 150.0f);
        sr_ray ray =
            make_ray(rng_vec3(r, -WORLD, WORLD), direction, q % 4 == 0 ? rng_float(r, 0.0f, 5.0f) : 0.0f, tmax);
        collector_reset(c, tree, w);
        s = sr_dynamic_tree_ray_cast(tree, &ray, collect_ray, c, &err);
        cr_assert_eq(s.status, SR_OK, "%s", err.message);
        check_no_extras(c);
        int unclipped_candidates = s.proxies_reported;
        for (int i = 0; i < MAX_OBJECTS; i++) {
            verdict v = w->objects[i].live ? brute_ray_box(&ray, w->objects[i].fat) : NO;
            if (v != UNSURE)
                cr_assert_eq(c->mark[i] != 0, v == YES, "ray query: object %d reported %d", i, c->mark[i]);
        }

        /* Ray, closest hit with an exact per-object test in the callback. */
        collector_reset(c, tree, w);
        s = sr_dynamic_tree_ray_cast(tree, &ray, closest_hit, c, &err);
        cr_assert_eq(s.status, SR_OK, "%s", err.message);
        int brute_best = -1;
        double brute_t = INFINITY;
        for (int i = 0; i < MAX_OBJECTS; i++) {
            if (!w->objects[i].live)
                continue;
            double t = exact_hit(&w->objects[i], &ray, ray.tmin);
            if (t <= ray.tmax && t < brute_t)
                brute_t = t, brute_best = i;
        }
        if (brute_best < 0) {
            cr_assert_eq(c->best, -1, "closest hit: tree found object %d, brute force nothing", c->best);
        } else {
            cr_assert(c->best >= 0, "closest hit: brute force found object %d at %g, tree nothing", brute_best,
                      brute_t);
            cr_assert(fabs(c->best_t - brute_t) <= 1e-4 * (1.0 + brute_t), "closest hit: t %.9g vs %.9g", c->best_t,
                      brute_t);
            if (c->best != brute_best) /* only a near tie may pick another object */
                cr_assert(fabs(c->best_t - brute_t) <= 1e-6 * (1.0 + brute_t), "closest hit: object %d vs %d", c->best,
                          brute_best);
        }
        /* Clipping only prunes: never more candidates than the unclipped pass over the same ray. */
        cr_assert(s.proxies_reported <= unclipped_candidates, "%d candidates with clipping, %d without",
                  s.proxies_reported, unclipped_candidates);

        /* Frustum, every fourth round. */
        if (q % 4 == 0) {
            sr_frustum f = random_frustum(r, rng_float(r, 10.0f, 80.0f));
            collector_reset(c, tree, w);
            s = sr_dynamic_tree_query_frustum(tree, &f, collect_frustum, c, &err);
            cr_assert_eq(s.status, SR_OK, "%s", err.message);
            check_no_extras(c);
            for (int i = 0; i < MAX_OBJECTS; i++) {
                if (!w->objects[i].live) {
                    cr_assert_eq(c->mark[i], 0);
                    continue;
                }
                verdict outside, inside;
                brute_frustum_box(&f, w->objects[i].fat, &outside, &inside);
                if (outside != UNSURE)
                    cr_assert_eq(c->mark[i] != 0, outside == NO, "frustum query: object %d reported %d", i, c->mark[i]);
                if (c->mark[i] && inside != UNSURE)
                    cr_assert_eq(c->containment[i], inside == YES ? SR_INSIDE : SR_INTERSECTING,
                                 "frustum query: object %d containment %d", i, (int)c->containment[i]);
                /* bvh_dynamic.h: and exactly as sr_frustum_test_aabb classifies the fat box */
                sr_containment geom = sr_frustum_test_aabb(&f, &w->objects[i].fat);
                cr_assert_eq(c->mark[i] != 0, geom != SR_OUTSIDE, "frustum query: object %d reported %d, geom %d", i,
                             c->mark[i], (int)geom);
                if (c->mark[i])
                    cr_assert_eq(c->containment[i], geom, "frustum query: object %d containment %d, geom %d", i,
                                 (int)c->containment[i], (int)geom);
            }
        }
    }
}

/* Every live proxy's stored fat box is the one the documented rule gives, bit for bit. */
static inline void check_fat_boxes(const world *w, const sr_dynamic_tree *tree)
{
    for (int i = 0; i < MAX_OBJECTS; i++) {
        const object *o = &w->objects[i];
        if (!o->live)
            continue;
        sr_aabb fat;
        uint64_t user_data;
        sr_error err;
        cr_assert_eq(sr_dynamic_tree_get(tree, o->proxy, &fat, &user_data, &err), SR_OK, "%s", err.message);
        cr_assert_eq(user_data, (uint64_t)i);
        cr_assert(memcmp(&fat, &o->fat, sizeof fat) == 0, "object %d: stored fat box differs from the rule's", i);
        cr_assert(contains(fat, tight_box(o)));
    }
}

/* ---- independent SAH: recomputed from the visited nodes, and a full-sweep reference build ---- */

typedef struct node_census {
    double area_sum, root_area;
    int nodes, leaves, max_depth;
    unsigned char leaf_mark[MAX_OBJECTS];
} node_census;

static inline double half_area(double lo[3], double hi[3])
{
    double x = hi[0] - lo[0], y = hi[1] - lo[1], z = hi[2] - lo[2];
    return x * y + y * z + z * x;
}

static inline double box_half_area(sr_aabb b)
{
    double lo[3] = {b.min.x, b.min.y, b.min.z}, hi[3] = {b.max.x, b.max.y, b.max.z};
    return half_area(lo, hi);
}

static inline bool census_node(void *user, const sr_dynamic_tree_node_info *n)
{
    node_census *c = user;
    if (n->depth == 0)
        c->root_area = box_half_area(n->box);
    c->area_sum += box_half_area(n->box);
    c->nodes++;
    if (n->depth > c->max_depth)
        c->max_depth = n->depth;
    if (n->is_leaf) {
        c->leaves++;
        if (n->user_data < MAX_OBJECTS)
            c->leaf_mark[n->user_data]++;
    }
    return true;
}

static inline double census_sah(const sr_dynamic_tree *tree, node_census *c)
{
    memset(c, 0, sizeof *c);
    sr_error err;
    sr_dynamic_tree_query_stats s = sr_dynamic_tree_visit_nodes(tree, census_node, c, &err);
    cr_assert_eq(s.status, SR_OK, "%s", err.message);
    return c->area_sum / c->root_area;
}

typedef struct ref_item {
    double lo[3], hi[3], centre[3];
} ref_item;

static inline int compare_axis(const ref_item *a, const ref_item *b, int axis)
{
    return a->centre[axis] < b->centre[axis] ? -1 : (a->centre[axis] > b->centre[axis] ? 1 : 0);
}
static inline int compare_x(const void *a, const void *b)
{
    return compare_axis(a, b, 0);
}
static inline int compare_y(const void *a, const void *b)
{
    return compare_axis(a, b, 1);
}
static inline int compare_z(const void *a, const void *b)
{
    return compare_axis(a, b, 2);
}
static int (*const compare_by_axis[3])(const void *, const void *) = {compare_x, compare_y, compare_z};

/* Full-sweep SAH build (sorted centroids, every split position, all axes): returns the sum of the
 * half areas of all nodes of the tree it would build. Independent of the code under test. */
static inline double reference_area_sum(ref_item *items, int n, double *prefix)
{
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (int i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            lo[a] = fmin(lo[a], items[i].lo[a]), hi[a] = fmax(hi[a], items[i].hi[a]);
    double own = half_area(lo, hi);
    if (n == 1)
        return own;
    double best_cost = DBL_MAX;
    int best_axis = 0, best_split = n / 2;
    for (int axis = 0; axis < 3; axis++) {
        qsort(items, (size_t)n, sizeof *items, compare_by_axis[axis]);
        double l[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, h[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
        for (int i = 0; i < n; i++) { /* prefix[i]: area of items[0..i] */
            for (int a = 0; a < 3; a++)
                l[a] = fmin(l[a], items[i].lo[a]), h[a] = fmax(h[a], items[i].hi[a]);
            prefix[i] = half_area(l, h);
        }
        for (int a = 0; a < 3; a++)
            l[a] = DBL_MAX, h[a] = -DBL_MAX;
        for (int i = n - 1; i > 0; i--) { /* split between i - 1 and i */
            for (int a = 0; a < 3; a++)
                l[a] = fmin(l[a], items[i].lo[a]), h[a] = fmax(h[a], items[i].hi[a]);
            double cost = (double)i * prefix[i - 1] + (double)(n - i) * half_area(l, h);
            if (cost < best_cost)
                best_cost = cost, best_axis = axis, best_split = i;
        }
    }
    qsort(items, (size_t)n, sizeof *items, compare_by_axis[best_axis]);
    return own + reference_area_sum(items, best_split, prefix) +
           reference_area_sum(items + best_split, n - best_split, prefix);
}

static inline double reference_sah(const world *w)
{
    ref_item *items = malloc(sizeof(ref_item) * MAX_OBJECTS);
    double *prefix = malloc(sizeof(double) * MAX_OBJECTS);
    cr_assert(items && prefix);
    int n = 0;
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (!w->objects[i].live)
            continue;
        sr_aabb f = w->objects[i].fat;
        items[n] = (ref_item){{f.min.x, f.min.y, f.min.z}, {f.max.x, f.max.y, f.max.z}, {0, 0, 0}};
        for (int a = 0; a < 3; a++)
            items[n].centre[a] = 0.5 * (items[n].lo[a] + items[n].hi[a]);
        n++;
    }
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (int i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            lo[a] = fmin(lo[a], items[i].lo[a]), hi[a] = fmax(hi[a], items[i].hi[a]);
    double cost = reference_area_sum(items, n, prefix) / half_area(lo, hi);
    free(items);
    free(prefix);
    return cost;
}

#endif
